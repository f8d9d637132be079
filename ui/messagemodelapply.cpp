// SPDX-License-Identifier: MIT
// MessageModel, the half that applies what MessageLoader computed on its
// worker: polls (counts, orderings and their diffs, changed rows), a reset's
// first page, early rows and loaded blocks. messagemodel.cpp holds the
// QAbstractItemModel side (data, headers, sorting) and the settings.
#include "ui/messagemodel.h"

#include "ui/messageloader.h"

#include <QLoggingCategory>
#include <QSet>

#include <algorithm>

Q_DECLARE_LOGGING_CATEGORY(lcModel)

namespace lq::ui {

void MessageModel::applyPoll(PollResult& r, bool reset, bool moved) {
    if (r.counts) {
        m_counts = *r.counts;
        emit countsChanged(m_counts);
    }
    if (reset && m_provisional && r.order && r.order->size() >= m_order->size() &&
        std::equal(m_order->begin(), m_order->end(), r.order->begin())) {
        // The first page shown is the ordering's start: the rest is appended,
        // so nothing on screen moves or flickers.
        m_provisional = false;
        m_hasOrdering = true;
        const int shown = int(m_order->size());
        const int all = int(r.order->size());
        if (all - shown > kMaxInsertedRows) {
            // QHeaderView does per-section work for inserted rows (10 M rows:
            // a third of a second on the UI thread) but nothing per section
            // on a reset. The rows on screen stay the same, so a reset shows
            // no change; only a selection inside the first page is dropped.
            beginResetModel();
            m_order = std::move(r.order);
            endResetModel();
        } else if (all > shown) {
            beginInsertRows({}, shown, all - 1);
            m_order = std::move(r.order);
            endInsertRows();
        } else {
            m_order = std::move(r.order);
        }
        ++m_layout;
        m_cache.forgetPending();
        qCDebug(lcModel) << "ordering of" << rowCount() << "rows in" << r.elapsedMs
                         << "ms, after its first page";
        emit orderingReset();
    } else if (reset) {
        m_provisional = false;
        installOrdering(std::move(r.order));
        qCDebug(lcModel) << "ordering of" << rowCount() << "rows in" << r.elapsedMs << "ms";
        emit orderingReset();
    } else if (r.order && !r.sameOrder) {
        if (r.diff.reset) {
            installOrdering(std::move(r.order));
            emit orderingReset();
        } else {
            mergeOrdering(r);
        }
    }
    for (qint64 gone : r.goneRowids) {
        m_cache.remove(gone);
    }
    if (!r.changedRows.empty() && !(r.order && r.diff.reset)) {
        for (const MessageRow& row : r.changedRows) {
            m_cache.replace(row);
        }
        const int n = rowCount();
        std::vector<std::pair<int, int>> ranges;
        toRanges(r.changedPositions, ranges);
        for (const auto& [first, count] : ranges) {
            if (first + count <= n) {
                emit dataChanged(index(first, 0), index(first + count - 1, ColumnCount - 1));
            }
        }
    }
    emitTimeColumnsChanged();
    m_lastRefresh = QDateTime::currentDateTime();
    if (moved) {
        emit dataVersionChanged();
    }
    emit refreshed();
}

void MessageModel::applyEarlyRows(quint64 generation, quint64 layout,
                                  const std::vector<MessageRow>& rows) {
    if (generation != m_loader->generation() || layout != m_layout || !m_loader->live()) {
        return; // the ordering moved on, or refresh is paused: the full poll says
    }
    QSet<qint64> changed;
    for (const MessageRow& row : rows) {
        if (m_cache.replace(row)) {
            changed.insert(row.msg.rowid);
        }
    }
    std::vector<std::pair<int, int>> ranges;
    toRanges(m_cache.positionsOf(changed), ranges);
    const int n = rowCount();
    for (const auto& [first, count] : ranges) {
        if (first + count <= n) {
            emit dataChanged(index(first, 0), index(first + count - 1, ColumnCount - 1));
        }
    }
    emit rowsRefreshed();
}

void MessageModel::applyFirstRows(quint64 generation, std::vector<MessageRow>& rows) {
    if (generation != m_loader->generation() || rows.empty()) {
        return; // a newer filter, sort or file
    }
    // Moved, not copied: a row holds its payload's preview (256 rows: 2 ms
    // on the UI thread, in the turn that shows them).
    std::vector<MessageRow> copy = std::move(rows);
    std::vector<std::int64_t> rowids;
    rowids.reserve(copy.size());
    for (const MessageRow& r : copy) {
        rowids.push_back(r.msg.rowid);
    }
    beginResetModel();
    m_order = std::make_shared<std::vector<std::int64_t>>(rowids);
    m_hasOrdering = false;
    m_provisional = true;
    ++m_layout;
    m_cache.forgetPositions();
    for (const MessageRow& r : copy) {
        m_cache.replace(r); // a row cached under the previous ordering: now fresh
    }
    m_cache.insertBlock(0, copy, std::move(rowids));
    endResetModel();
    emit firstRowsShown();
}

void MessageModel::installOrdering(std::shared_ptr<std::vector<std::int64_t>> order) {
    beginResetModel();
    m_order = order ? std::move(order) : std::make_shared<std::vector<std::int64_t>>();
    m_hasOrdering = true;
    ++m_layout;
    m_cache.forgetPositions();
    endResetModel();
}

void MessageModel::mergeOrdering(PollResult& r) {
    // The worker computed the new ordering and the edit script from the
    // shown one: the script is replayed on views of the two (EditView), so
    // the UI thread never copies or edits the ordering (ten million rows: an
    // 80 MB copy, 20-30 ms).
    const std::shared_ptr<const std::vector<std::int64_t>> old = m_order;
    const std::vector<std::pair<int, int>>& removes = r.diff.removes;
    const std::vector<std::pair<int, int>>& inserts = r.diff.inserts;
    ++m_layout;
    m_cache.forgetPending();
    // Removes back to front, in the old positions: the view is the old
    // ordering without the runs removed so far.
    m_edit = EditView{old, {}, int(old->size())};
    // NOLINTNEXTLINE(modernize-loop-convert)
    for (auto it = removes.rbegin(); it != removes.rend(); ++it) {
        const auto [first, count] = *it;
        beginRemoveRows({}, first, first + count - 1);
        for (int i = first; i < first + count; ++i) {
            m_cache.remove((*old)[std::size_t(i)]);
        }
        m_edit->skip.insert(m_edit->skip.begin(), *it);
        m_edit->rows -= count;
        endRemoveRows();
    }
    // Inserts front to back, in the new positions: the view is the new
    // ordering without the runs still to insert.
    m_order = std::move(r.order);
    m_edit->base = m_order;
    m_edit->skip = inserts;
    for (const auto& [first, count] : inserts) {
        beginInsertRows({}, first, first + count - 1);
        m_edit->skip.erase(m_edit->skip.begin());
        m_edit->rows += count;
        endInsertRows();
    }
    const int rows = m_edit->rows;
    m_edit.reset();
    if (rows != int(m_order->size())) {
        // Defensive: never show an ordering other than the computed one.
        installOrdering(m_order);
    }
}

void MessageModel::applyBlock(BlockResult& r) {
    if (r.layout == m_layout) {
        m_cache.donePending(r.block);
    }
    if (!r.error.isEmpty()) {
        emit errorOccurred(r.error);
        return;
    }
    m_cache.insertBlock(r.block, r.rows, std::move(r.rowids));
    const int n = rowCount();
    if (n == 0) {
        return;
    }
    if (r.layout == m_layout) {
        const int first = r.block * kBlockSize;
        const int last = std::min(n - 1, first + kBlockSize - 1);
        if (first <= last) {
            emit dataChanged(index(first, 0), index(last, ColumnCount - 1));
        }
    } else {
        // Rows moved since the request: positions are unknown, repaint all.
        emit dataChanged(index(0, 0), index(n - 1, ColumnCount - 1));
    }
}

} // namespace lq::ui
