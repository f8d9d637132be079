// SPDX-License-Identifier: MIT
// MessageModel, the half that applies what MessageLoader computed on its
// worker: polls (counts, orderings and their diffs, changed rows), a reset's
// first page, early rows and loaded blocks. messagemodel.cpp holds the
// QAbstractItemModel side (data, headers, sorting) and the settings.
#include "ui/messagemodel.h"

#include "ui/messageloader.h"
#include "ui/runasync.h"

#include <QLoggingCategory>
#include <QSet>

#include <algorithm>

Q_DECLARE_LOGGING_CATEGORY(lcModel)

namespace lq::ui {

void MessageModel::applyPoll(PollResult& r, bool reset, bool moved) {
    if (r.counts) {
        m_exactCountsOf = r.generation;
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
        const int all = std::min(int(r.order->size()), m_windowRows);
        if (all - shown > kMaxInsertedRows) {
            // QHeaderView does per-section work for inserted rows (10 M rows:
            // a third of a second on the UI thread) but nothing per section
            // on a reset. The rows on screen stay the same, so a reset shows
            // no change; only a selection inside the first page is dropped.
            beginResetModel();
            replaceOrder(std::move(r.order));
            endResetModel();
        } else if (all > shown) {
            beginInsertRows({}, shown, all - 1);
            replaceOrder(std::move(r.order));
            endInsertRows();
        } else {
            replaceOrder(std::move(r.order));
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
        std::vector<std::pair<int, int>> ranges;
        toRanges(r.changedPositions, ranges);
        for (const auto& [first, count] : ranges) {
            emitPositionsChanged(first, count);
        }
    }
    emitTimeColumnsChanged();
    m_lastRefresh = QDateTime::currentDateTime();
    // An ordering computed but not installed (the same as shown).
    dropOrdering(std::move(r.order));
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
    for (const auto& [first, count] : ranges) {
        emitPositionsChanged(first, count);
    }
    emit rowsRefreshed();
}

void MessageModel::markOthersStale(quint64 generation, quint64 layout, const QSet<qint64>& shown) {
    if (generation == m_loader->generation() && layout == m_layout) {
        m_cache.markStaleExcept(shown);
    }
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
    replaceOrder(std::make_shared<Ordering>(rowids.begin(), rowids.end()));
    m_windowStart = 0;
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

void MessageModel::installOrdering(std::shared_ptr<Ordering> order) {
    beginResetModel();
    replaceOrder(order ? std::move(order) : std::make_shared<Ordering>());
    m_windowStart = 0;
    m_hasOrdering = true;
    ++m_layout;
    m_cache.forgetPositions();
    endResetModel();
}

void MessageModel::replaceOrder(std::shared_ptr<Ordering> next) {
    std::shared_ptr<const Ordering> old = std::move(m_order);
    m_order = std::move(next);
    dropOrdering(std::move(old));
}

void MessageModel::dropOrdering(std::shared_ptr<const Ordering> old) {
    // Under a million rows freeing takes under a few ms: not worth a thread hop.
    constexpr std::size_t kOffThreadRows = std::size_t{1} << 20;
    if (old && old.use_count() == 1 && old->size() >= kOffThreadRows)
        releaseOffThread(std::move(old));
}

void MessageModel::mergeOrdering(PollResult& r) {
    // The worker computed the new ordering and the edit script from the
    // shown one: the script is replayed on views of the two (EditView), so
    // the UI thread never copies or edits the ordering (ten million rows: an
    // 80 MB copy, 20-30 ms).
    if (isWindowed() || int(r.order->size()) > m_windowRows) {
        mergeWindowed(r);
        return;
    }
    std::shared_ptr<const Ordering> old = m_order;
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
    dropOrdering(std::move(old));
    if (rows != int(m_order->size())) {
        // Defensive: never show an ordering other than the computed one.
        installOrdering(m_order);
    }
}

namespace {

/// Where the rows of an ordering go under an edit script: removes are runs
/// of old positions, inserts runs of new positions, both ascending (as
/// mergeOrdering() replays them).
class PositionMap {
public:
    PositionMap(const std::vector<std::pair<int, int>>& removes,
                const std::vector<std::pair<int, int>>& inserts)
        : m_removes(removes) {
        m_removedBefore.push_back(0);
        for (const auto& [first, count] : removes) {
            m_removedBefore.push_back(m_removedBefore.back() + count);
        }
        // Insert run k applies to the rows left at index first_k minus the
        // rows inserted before it, or later.
        m_insertedBefore.push_back(0);
        for (const auto& [first, count] : inserts) {
            m_insertAt.push_back(first - m_insertedBefore.back());
            m_insertedBefore.push_back(m_insertedBefore.back() + count);
        }
    }

    /// The new position of old position `p`; -1 when removed, unless
    /// `nextKept`: then the position of the first row kept after it.
    int map(int p, bool nextKept) const {
        const auto it = std::upper_bound(m_removes.begin(), m_removes.end(), p,
                                         [](int v, const auto& run) { return v < run.first; });
        const auto k = std::size_t(it - m_removes.begin());
        int kept = p - m_removedBefore[k];
        if (k > 0 && p < m_removes[k - 1].first + m_removes[k - 1].second) {
            if (!nextKept) {
                return -1;
            }
            kept = m_removes[k - 1].first - m_removedBefore[k - 1];
        }
        const auto applied = std::size_t(
            std::upper_bound(m_insertAt.begin(), m_insertAt.end(), kept) - m_insertAt.begin());
        return kept + m_insertedBefore[applied];
    }

private:
    const std::vector<std::pair<int, int>>& m_removes;
    std::vector<int> m_removedBefore, m_insertAt, m_insertedBefore;
};

} // namespace

void MessageModel::mergeWindowed(PollResult& r) {
    // A window over the ordering: the edit script moves the window's first
    // row to where it goes, and the persistent indexes (selection, current)
    // with their rows, in one layout change; rows outside the window cost
    // the view nothing.
    std::shared_ptr<const Ordering> old = m_order;
    const PositionMap map(r.diff.removes, r.diff.inserts);
    const int total = int(r.order->size());
    const int start =
        std::clamp(map.map(m_windowStart, true), 0, std::max(0, total - m_windowRows));
    ++m_layout;
    m_cache.forgetPending();
    for (const auto& [first, count] : r.diff.removes) {
        for (int i = first; i < first + count; ++i) {
            m_cache.remove((*old)[std::size_t(i)]);
        }
    }
    if (!isWindowed() || total <= m_windowRows) {
        // Into or out of a window: the row count changes, which a layout
        // change may not; the view restores its position from the reset.
        beginResetModel();
        replaceOrder(std::move(r.order));
        m_windowStart = total > m_windowRows ? start : 0;
        endResetModel();
        dropOrdering(std::move(old));
        return;
    }
    moveWindow(
        start, [&map](int position) { return map.map(position, false); },
        [this, &r] { replaceOrder(std::move(r.order)); });
    dropOrdering(std::move(old));
}

void MessageModel::moveWindow(int start, const std::function<int(int)>& positionAfter,
                              const std::function<void()>& install) {
    emit layoutAboutToBeChanged();
    const QModelIndexList from = persistentIndexList();
    QModelIndexList to;
    to.reserve(from.size());
    for (const QModelIndex& i : from) {
        const int row = positionAfter(i.row() + m_windowStart) - start;
        to.push_back(row >= 0 && row < m_windowRows ? createIndex(row, i.column()) : QModelIndex());
    }
    install();
    m_windowStart = start;
    changePersistentIndexList(from, to);
    emit layoutChanged();
}

void MessageModel::emitPositionsChanged(int first, int count) {
    const int from = std::max(first, m_windowStart) - m_windowStart;
    const int to = std::min(first + count, m_windowStart + rowCount()) - m_windowStart;
    if (from < to) {
        emit dataChanged(index(from, 0), index(to - 1, ColumnCount - 1));
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
        emitPositionsChanged(r.block * kBlockSize, kBlockSize);
    } else {
        // Rows moved since the request: positions are unknown, repaint all.
        emit dataChanged(index(0, 0), index(n - 1, ColumnCount - 1));
    }
}

} // namespace lq::ui
