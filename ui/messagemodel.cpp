// SPDX-License-Identifier: MIT
#include "ui/messagemodel.h"

#include "core/formats/queueformat.h"
#include "core/queue.h"
#include "ui/filewatcher.h"
#include "ui/runasync.h"
#include "ui/theme.h"
#include "ui/uitext.h"

#include <QBrush>
#include <QColor>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QFontDatabase>
#include <QLoggingCategory>
#include <QPainter>
#include <QPixmap>
#include <QSet>

#include <sys/stat.h>

#include <algorithm>
#include <unordered_set>

Q_LOGGING_CATEGORY(lcModel, "lq.ui.model", QtInfoMsg)

namespace lq::ui {

using core::Message;
using core::State;
using core::TimeNs;

namespace {

constexpr int kFallbackMs = 2000;
constexpr qint64 kCountsRefreshMs = 10000;

quint64 mix(quint64 h, quint64 v) {
    // splitmix-style combine: cheap and good enough to spot a changed row
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
}

quint64 optTime(const std::optional<TimeNs>& t) {
    return t ? static_cast<quint64>(*t) : 0x8000000000000001ULL;
}

MessageRow makeRow(Message&& m) {
    MessageRow r;
    r.dataBytes = static_cast<qint64>(m.data.size());
    r.preview = payloadPreview(m.data, m.dataIsBlob);
    quint64 h = qHash(QByteArrayView(m.messageId.data(), qsizetype(m.messageId.size())));
    h = mix(h, qHash(QByteArrayView(m.data.data(), qsizetype(m.data.size()))));
    h = mix(h, static_cast<quint64>(m.rawStatus));
    h = mix(h, static_cast<quint64>(m.state));
    h = mix(h, static_cast<quint64>(m.token));
    h = mix(h, static_cast<quint64>(m.claimId));
    h = mix(h, static_cast<quint64>(m.attempts));
    h = mix(h, optTime(m.inTime));
    h = mix(h, optTime(m.lockTime));
    h = mix(h, optTime(m.doneTime));
    h = mix(h, optTime(m.runAt));
    h = mix(h, optTime(m.lockedUntil));
    if (m.idempotencyKey) {
        h = mix(h, qHash(QByteArrayView(m.idempotencyKey->data(),
                                        qsizetype(m.idempotencyKey->size()))));
    }
    r.fingerprint = h;
    if (m.data.size() > MessageModel::kCachedPayloadBytes) {
        m.data.resize(MessageModel::kCachedPayloadBytes);
        m.data.shrink_to_fit();
    }
    r.msg = std::move(m);
    return r;
}

QString errorText(const std::exception& e) {
    return QString::fromUtf8(e.what());
}

QIcon dotIcon(const QColor& c) {
    QPixmap pm(16, 16);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(c.darker(130));
    p.setBrush(c);
    p.drawEllipse(QRectF(3.5, 3.5, 9, 9));
    return QIcon(pm);
}

/// Edit script from one ordering to the next (positions, ascending).
struct Diff {
    std::vector<std::pair<int, int>> removes; ///< (first old position, count)
    std::vector<std::pair<int, int>> inserts; ///< (first new position, count)
    bool reset = false;
};

void toRanges(const std::vector<int>& positions, std::vector<std::pair<int, int>>& out) {
    for (int p : positions) {
        if (!out.empty() && out.back().first + out.back().second == p) {
            ++out.back().second;
        } else {
            out.emplace_back(p, 1);
        }
    }
}

Diff diffOrders(const std::vector<std::int64_t>& oldO, const std::vector<std::int64_t>& newO) {
    Diff d;
    const std::size_t n = oldO.size();
    const std::size_t m = newO.size();
    std::size_t pre = 0;
    while (pre < n && pre < m && oldO[pre] == newO[pre]) {
        ++pre;
    }
    std::size_t suf = 0;
    while (suf < n - pre && suf < m - pre && oldO[n - 1 - suf] == newO[m - 1 - suf]) {
        ++suf;
    }
    const std::size_t oldEnd = n - suf;
    const std::size_t newEnd = m - suf;
    std::unordered_set<qint64> inOld(oldO.begin() + qsizetype(pre),
                                     oldO.begin() + qsizetype(oldEnd));
    std::unordered_set<qint64> inNew(newO.begin() + qsizetype(pre),
                                     newO.begin() + qsizetype(newEnd));
    std::vector<int> removed;
    std::vector<int> inserted;
    std::vector<std::int64_t> keptOld;
    std::vector<std::int64_t> keptNew;
    for (std::size_t i = pre; i < oldEnd; ++i) {
        if (inNew.count(oldO[i])) {
            keptOld.push_back(oldO[i]);
        } else {
            removed.push_back(int(i));
        }
    }
    std::size_t tailInserts = 0;
    for (std::size_t j = pre; j < newEnd; ++j) {
        if (inOld.count(newO[j])) {
            keptNew.push_back(newO[j]);
        } else {
            inserted.push_back(int(j));
        }
    }
    // Rows that moved (a sort key changed) cannot be expressed as
    // remove+insert of distinct rows here: reset.
    if (keptOld != keptNew) {
        d.reset = true;
        return d;
    }
    for (auto it = inserted.rbegin();
         it != inserted.rend() && std::size_t(*it) == m - 1 - tailInserts; ++it) {
        ++tailInserts;
    }
    // Appends at the end are cheap for a view whatever their number; other
    // changes beyond a tenth of the rows are cheaper as one reset.
    const std::size_t scattered = removed.size() + inserted.size() - tailInserts;
    const std::size_t limit = std::max<std::size_t>(std::max(n, m) / 10, 32);
    if (scattered > limit) {
        d.reset = true;
        return d;
    }
    toRanges(removed, d.removes);
    toRanges(inserted, d.inserts);
    return d;
}

} // namespace

struct MessageModel::PollResult {
    quint64 generation = 0;
    QString error;
    bool busy = false;
    std::int64_t version = -1;
    qint64 fileSize = -1;
    qint64 fileMtime = -1;
    quint64 inode = 0;
    bool missing = false;
    qint64 walBytes = 0;
    bool changed = false;
    std::optional<core::Counts> counts;
    std::shared_ptr<std::vector<std::int64_t>> order; ///< set when recomputed
    bool sameOrder = false;
    Diff diff;
    std::vector<MessageRow> changedRows;
    std::vector<int> changedPositions; ///< in the new ordering, ascending
    std::vector<std::int64_t> goneRowids;
    qint64 elapsedMs = 0;
};

struct MessageModel::BlockResult {
    quint64 generation = 0;
    quint64 layout = 0;
    int block = 0;
    std::vector<std::int64_t> rowids;
    std::vector<MessageRow> rows;
    QString error;
};

MessageModel::MessageModel(QObject* parent)
    : QAbstractTableModel(parent)
    , m_watcher(new FileWatcher(this))
    , m_order(std::make_shared<std::vector<std::int64_t>>()) {
    m_pool.setMaxThreadCount(1);
    m_pool.setExpiryTimeout(-1); // keep the thread: its read connection is ours
    m_fallback.setSingleShot(true);
    m_fallback.setInterval(kFallbackMs);
    connect(&m_fallback, &QTimer::timeout, this, [this] {
        m_pendingPoll = true;
        kick();
    });
    connect(m_watcher, &FileWatcher::changed, this, &MessageModel::onWatcherChanged);
    m_stuckIcon = QIcon(QStringLiteral(":/icons/stuck.svg"));
    for (State s : {State::Ready, State::Locked, State::Done, State::Failed, State::Unknown,
                    State::Scheduled, State::Leased, State::Expired}) {
        m_stateIcons.insert(int(s), dotIcon(theme::stateColor(s)));
    }
}

MessageModel::~MessageModel() {
    m_pool.clear();
    m_pool.waitForDone();
}

void MessageModel::setQueue(std::shared_ptr<core::Queue> queue, const QString& path) {
    ++m_generation;
    ++m_layout;
    m_watcher->clear();
    m_fallback.stop();
    beginResetModel();
    m_queue = std::move(queue);
    m_order = std::make_shared<std::vector<std::int64_t>>();
    m_hasOrdering = false;
    clearCache();
    m_counts = {};
    m_dataVersion = -1;
    m_fileSize = -1;
    m_fileMtime = -1;
    m_inode = 0;
    m_walBytes = 0;
    const bool stateWasBad = m_fileState != FileState::Ok;
    m_fileState = FileState::Ok;
    m_lastRefresh = {};
    endResetModel();
    // Formats with a schedule name the columns differently.
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
    if (stateWasBad) {
        emit fileStateChanged(FileState::Ok);
    }
    emit countsChanged(m_counts);
    m_pendingPoll = false;
    m_pendingReset = false;
    if (m_queue) {
        m_watcher->addPath(path);
        m_watcher->addPath(path + QStringLiteral("-wal"));
        m_watcher->addPath(QFileInfo(path).absolutePath());
        m_pendingReset = true;
        kick();
    }
}

void MessageModel::setFilter(const core::Filter& filter) {
    m_filter = filter;
    m_filter.stuckAfterNs = stuckNs();
    ++m_generation;
    m_pendingReset = true;
    kick();
}

void MessageModel::setStuckThresholdSeconds(int seconds) {
    if (seconds == m_stuckSeconds) {
        return;
    }
    m_stuckSeconds = std::max(1, seconds);
    m_filter.stuckAfterNs = stuckNs();
    if (m_filter.stuckOnly) {
        ++m_generation;
        m_pendingReset = true;
    } else {
        m_pendingPoll = true;
        m_pendingForce = true;
    }
    kick();
    emitTimeColumnsChanged();
}

void MessageModel::setUtc(bool utc) {
    if (utc == m_utc) {
        return;
    }
    m_utc = utc;
    const int n = rowCount();
    if (n > 0) {
        emit dataChanged(index(0, Enqueued), index(n - 1, Finished));
    }
}

void MessageModel::setLiveRefresh(bool on) {
    if (on == m_live) {
        return;
    }
    m_live = on;
    if (!on) {
        m_fallback.stop();
    } else {
        m_pendingPoll = true;
        kick();
    }
}

void MessageModel::refreshNow() {
    m_pendingPoll = true;
    m_pendingForce = true;
    kick();
}

bool MessageModel::isIdle() const {
    return !m_jobRunning && !m_pendingReset && !m_pendingPoll && m_pendingBlocks.isEmpty();
}

TimeNs MessageModel::stuckNs() const {
    return TimeNs(m_stuckSeconds) * core::kNsPerSecond;
}

void MessageModel::onWatcherChanged() {
    m_pendingPoll = true;
    kick();
}

void MessageModel::armFallback() {
    if (m_queue && m_live && !m_jobRunning) {
        m_fallback.start();
    }
}

void MessageModel::kick() {
    if (m_jobRunning || !m_queue) {
        return;
    }
    if (m_pendingReset) {
        m_pendingReset = false;
        m_pendingPoll = false;
        m_pendingForce = false;
        startPoll(true);
    } else if (m_pendingPoll && m_live) {
        m_pendingPoll = false;
        startPoll(false);
    }
}

void MessageModel::startPoll(bool reset) {
    m_fallback.stop();
    m_jobRunning = true;
    const bool force = reset || m_pendingForce;
    m_pendingForce = false;
    const qint64 nowMs = QDateTime::currentMSecsSinceEpoch();
    const bool countsDue = reset || nowMs - m_lastCountsMs > kCountsRefreshMs;
    // A filter on ages changes with the clock, not only with the data.
    const bool timeDependent = m_filter.stuckOnly || m_filter.olderThanSeconds.has_value();

    std::vector<std::pair<qint64, quint64>> cached;
    if (!reset) {
        cached.reserve(std::size_t(m_rows.size()));
        for (auto it = m_rows.cbegin(); it != m_rows.cend(); ++it) {
            cached.emplace_back(it.key(), it.value().fingerprint);
        }
    }
    std::shared_ptr<const std::vector<std::int64_t>> oldOrder = m_order;

    // The model outlives its worker (the destructor waits for the pool), so
    // the worker may post to it.
    auto work = [self = this, layout = m_layout, q = m_queue, filter = m_filter, sort = m_sort,
                 stuck = stuckNs(), gen = m_generation, lastVersion = m_dataVersion,
                 lastSize = m_fileSize, lastMtime = m_fileMtime, force, reset, countsDue,
                 timeDependent, cached = std::move(cached), oldOrder]() -> PollResult {
        PollResult r;
        r.generation = gen;
        QElapsedTimer timer;
        timer.start();
        try {
            struct stat st {};
            if (::stat(q->path().c_str(), &st) == 0) {
                r.inode = quint64(st.st_ino);
                r.fileSize = qint64(st.st_size);
                r.fileMtime = qint64(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
            } else {
                r.missing = true;
            }
            r.walBytes = q->walSize();
            r.version = q->dataVersion();
            r.changed = force || r.version != lastVersion || r.fileSize != lastSize ||
                        r.fileMtime != lastMtime;
            if (!reset && r.changed && !cached.empty()) {
                // Phase one: the rows on screen first. A change to a shown
                // row becomes visible now, before the ordering and the counts
                // (hundreds of ms at a million rows) are recomputed.
                std::vector<std::int64_t> ids;
                ids.reserve(cached.size());
                for (const auto& c : cached) {
                    ids.push_back(c.first);
                }
                QHash<qint64, quint64> before;
                before.reserve(qsizetype(cached.size()));
                for (const auto& c : cached) {
                    before.insert(c.first, c.second);
                }
                auto early = std::make_shared<std::vector<MessageRow>>();
                for (Message& m : q->fetchRowids(ids)) {
                    MessageRow row = makeRow(std::move(m));
                    if (row.fingerprint != before.value(row.msg.rowid)) {
                        early->push_back(std::move(row));
                    }
                }
                if (!early->empty()) {
                    QMetaObject::invokeMethod(
                        self,
                        [self, gen, layout, early] { self->applyEarlyRows(gen, layout, *early); },
                        Qt::QueuedConnection);
                }
            }
            if (r.changed || timeDependent) {
                r.order =
                    std::make_shared<std::vector<std::int64_t>>(q->orderedRowids(filter, sort));
            }
            if (r.changed || countsDue) {
                r.counts = q->counts(stuck);
            }
            if (!reset && r.order) {
                r.sameOrder = *r.order == *oldOrder;
                if (!r.sameOrder) {
                    r.diff = diffOrders(*oldOrder, *r.order);
                }
            }
            if (!reset && r.changed && !cached.empty() && !(r.order && r.diff.reset)) {
                std::vector<std::int64_t> ids;
                ids.reserve(cached.size());
                for (const auto& c : cached) {
                    ids.push_back(c.first);
                }
                std::vector<Message> msgs = q->fetchRowids(ids);
                QHash<qint64, quint64> before;
                before.reserve(qsizetype(cached.size()));
                for (const auto& c : cached) {
                    before.insert(c.first, c.second);
                }
                QSet<qint64> seen;
                QSet<qint64> changedIds;
                for (Message& m : msgs) {
                    seen.insert(m.rowid);
                    MessageRow row = makeRow(std::move(m));
                    if (row.fingerprint != before.value(row.msg.rowid)) {
                        changedIds.insert(row.msg.rowid);
                        r.changedRows.push_back(std::move(row));
                    }
                }
                for (const auto& c : cached) {
                    if (!seen.contains(c.first)) {
                        r.goneRowids.push_back(c.first);
                    }
                }
                if (!changedIds.isEmpty()) {
                    const std::vector<std::int64_t>& order = r.order ? *r.order : *oldOrder;
                    for (std::size_t i = 0; i < order.size(); ++i) {
                        if (changedIds.contains(order[i])) {
                            r.changedPositions.push_back(int(i));
                        }
                    }
                }
            }
        } catch (const core::Error& e) {
            r.error = errorText(e);
            r.busy = e.kind() == core::ErrorKind::Busy;
        } catch (const std::exception& e) {
            r.error = errorText(e);
        }
        r.elapsedMs = timer.elapsed();
        return r;
    };
    runAsync(this, &m_pool, std::move(work), [this, reset](PollResult r) {
        m_jobRunning = false;
        applyPoll(std::move(r), reset);
        kick();
        armFallback();
    });
}

void MessageModel::applyPoll(PollResult&& r, bool reset) {
    if (r.generation != m_generation) {
        return; // a newer filter/sort/file superseded this job
    }
    m_lastJobMs = r.elapsedMs;
    m_walBytes = r.walBytes;
    FileState fs = FileState::Ok;
    if (r.missing) {
        fs = FileState::Missing;
    } else if (m_inode != 0 && r.inode != m_inode) {
        fs = FileState::Replaced;
    }
    if (m_inode == 0) {
        m_inode = r.inode;
    }
    if (fs != m_fileState) {
        m_fileState = fs;
        emit fileStateChanged(fs);
    }
    if (!r.error.isEmpty()) {
        if (reset) {
            m_pendingReset = true; // try again on the next tick
        }
        emit errorOccurred(r.error);
        return;
    }
    const bool moved = r.changed && m_dataVersion >= 0;
    m_dataVersion = r.version;
    m_fileSize = r.fileSize;
    m_fileMtime = r.fileMtime;
    if (r.counts) {
        m_lastCountsMs = QDateTime::currentMSecsSinceEpoch();
        m_counts = *r.counts;
        emit countsChanged(m_counts);
    }
    if (reset) {
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
        m_rows.remove(gone);
    }
    if (!r.changedRows.empty() && !(r.order && r.diff.reset)) {
        for (MessageRow& row : r.changedRows) {
            auto it = m_rows.find(row.msg.rowid);
            if (it != m_rows.end()) {
                *it = std::move(row);
            }
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
    if (generation != m_generation || layout != m_layout || !m_live) {
        return; // the ordering moved on, or refresh is paused: the full poll says
    }
    QSet<qint64> changed;
    for (const MessageRow& row : rows) {
        auto it = m_rows.find(row.msg.rowid);
        if (it != m_rows.end()) {
            *it = row;
            changed.insert(row.msg.rowid);
        }
    }
    // Cached rows live in cached blocks: their positions are the blocks'.
    std::vector<int> positions;
    for (auto b = m_blocks.cbegin(); b != m_blocks.cend(); ++b) {
        const std::vector<std::int64_t>& ids = b.value().rowids;
        for (std::size_t i = 0; i < ids.size(); ++i) {
            if (changed.contains(ids[i])) {
                positions.push_back(b.key() * kBlockSize + int(i));
            }
        }
    }
    std::sort(positions.begin(), positions.end());
    std::vector<std::pair<int, int>> ranges;
    toRanges(positions, ranges);
    const int n = rowCount();
    for (const auto& [first, count] : ranges) {
        if (first + count <= n) {
            emit dataChanged(index(first, 0), index(first + count - 1, ColumnCount - 1));
        }
    }
    emit rowsRefreshed();
}

void MessageModel::installOrdering(std::shared_ptr<std::vector<std::int64_t>> order) {
    beginResetModel();
    m_order = order ? std::move(order) : std::make_shared<std::vector<std::int64_t>>();
    m_hasOrdering = true;
    ++m_layout;
    // Rows are cached by rowid, so they stay right under a new ordering:
    // keep them to show at once (a block load refreshes them) instead of
    // "…" in every row until the blocks come back. Found with a Status sort
    // under load, where each poll reorders many rows and used to blank the
    // table for seconds. Only positions (blocks) are forgotten; rows left
    // over from them are dropped once they exceed what the blocks may hold.
    m_blocks.clear();
    m_lru.clear();
    m_pendingBlocks.clear();
    m_goneRows.clear();
    if (m_rows.size() > qsizetype(kMaxBlocks) * kBlockSize) {
        m_rows.clear();
    }
    endResetModel();
}

void MessageModel::mergeOrdering(PollResult& r) {
    // Copy on write: the worker may still hold the previous vector.
    auto work = std::make_shared<std::vector<std::int64_t>>(*m_order);
    m_order = work;
    ++m_layout;
    m_pendingBlocks.clear();
    m_goneRows.clear();
    // Back to front, so earlier positions stay valid. NOLINTNEXTLINE(modernize-loop-convert)
    for (auto it = r.diff.removes.rbegin(); it != r.diff.removes.rend(); ++it) {
        const auto [first, count] = *it;
        beginRemoveRows({}, first, first + count - 1);
        for (int i = first; i < first + count; ++i) {
            m_rows.remove((*work)[std::size_t(i)]);
        }
        work->erase(work->begin() + first, work->begin() + first + count);
        endRemoveRows();
    }
    const std::vector<std::int64_t>& target = *r.order;
    for (const auto& [first, count] : r.diff.inserts) {
        beginInsertRows({}, first, first + count - 1);
        work->insert(work->begin() + first, target.begin() + first, target.begin() + first + count);
        endInsertRows();
    }
    Q_ASSERT(*work == target);
    if (*work != target) {
        // Defensive: never show an ordering other than the computed one.
        installOrdering(std::move(r.order));
    }
}

void MessageModel::clearCache() {
    m_rows.clear();
    m_blocks.clear();
    m_lru.clear();
    m_pendingBlocks.clear();
    m_goneRows.clear();
}

void MessageModel::emitTimeColumnsChanged() {
    const int n = rowCount();
    if (n <= 0) {
        return;
    }
    // Ages and the stuck mark move with the clock.
    emit dataChanged(index(0, Status), index(n - 1, Status));
    emit dataChanged(index(0, Age), index(n - 1, Age));
}

const MessageRow* MessageModel::rowAt(int row) const {
    if (row < 0 || std::size_t(row) >= m_order->size()) {
        return nullptr;
    }
    auto it = m_rows.constFind((*m_order)[std::size_t(row)]);
    return it == m_rows.cend() ? nullptr : &it.value();
}

qint64 MessageModel::rowIdAt(int row) const {
    if (row < 0 || std::size_t(row) >= m_order->size()) {
        return -1;
    }
    return (*m_order)[std::size_t(row)];
}

int MessageModel::rowOfRowId(qint64 rowid) const {
    auto it = std::find(m_order->begin(), m_order->end(), rowid);
    return it == m_order->end() ? -1 : int(it - m_order->begin());
}

void MessageModel::locate(const QString& messageId) {
    if (!m_queue) {
        emit located(messageId, -1);
        return;
    }
    const quint64 gen = m_generation;
    runAsync(
        this, &m_pool,
        [q = m_queue, id = toStd(messageId)]() -> qint64 {
            try {
                auto m = q->get(id);
                return m ? m->rowid : -1;
            } catch (const std::exception&) {
                return -1;
            }
        },
        [this, messageId, gen](qint64 rowid) {
            if (gen != m_generation) {
                return;
            }
            emit located(messageId, rowid < 0 ? -1 : rowOfRowId(rowid));
        });
}

void MessageModel::touchBlock(int block) const {
    auto it = m_blocks.find(block);
    if (it != m_blocks.end() && it->lru != m_lru.begin()) {
        m_lru.splice(m_lru.begin(), m_lru, it->lru);
    }
}

void MessageModel::requestBlock(int block) const {
    if (m_pendingBlocks.contains(block) || !m_queue) {
        return;
    }
    const std::size_t first = std::size_t(block) * kBlockSize;
    if (first >= m_order->size()) {
        return;
    }
    const std::size_t last = std::min(m_order->size(), first + kBlockSize);
    m_pendingBlocks.insert(block);
    std::vector<std::int64_t> rowids(m_order->begin() + qsizetype(first),
                                     m_order->begin() + qsizetype(last));
    auto* self = const_cast<MessageModel*>(this);
    runAsync(
        self, &self->m_pool,
        [q = m_queue, rowids = std::move(rowids), gen = m_generation, layout = m_layout,
         block]() mutable -> BlockResult {
            BlockResult r;
            r.generation = gen;
            r.layout = layout;
            r.block = block;
            try {
                std::vector<Message> msgs = q->fetchRowids(rowids);
                r.rows.reserve(msgs.size());
                for (Message& m : msgs) {
                    r.rows.push_back(makeRow(std::move(m)));
                }
            } catch (const std::exception& e) {
                r.error = errorText(e);
            }
            r.rowids = std::move(rowids);
            return r;
        },
        [self](BlockResult r) { self->applyBlock(std::move(r)); });
}

void MessageModel::applyBlock(BlockResult&& r) {
    if (r.generation != m_generation) {
        return;
    }
    if (r.layout == m_layout) {
        m_pendingBlocks.remove(r.block);
    }
    if (!r.error.isEmpty()) {
        emit errorOccurred(r.error);
        return;
    }
    auto existing = m_blocks.find(r.block);
    if (existing != m_blocks.end()) {
        m_lru.erase(existing->lru);
        m_blocks.erase(existing);
    }
    QSet<qint64> found;
    for (MessageRow& row : r.rows) {
        const qint64 id = row.msg.rowid;
        found.insert(id);
        m_rows.insert(id, row);
    }
    for (qint64 id : r.rowids) {
        if (!found.contains(id)) {
            m_goneRows.insert(id);
        }
    }
    m_lru.push_front(r.block);
    m_blocks.insert(r.block, Block{m_lru.begin(), std::move(r.rowids)});
    evictBlocks();
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

void MessageModel::evictBlocks() const {
    while (m_blocks.size() > kMaxBlocks && !m_lru.empty()) {
        const int victim = m_lru.back();
        m_lru.pop_back();
        auto it = m_blocks.find(victim);
        if (it == m_blocks.end()) {
            continue;
        }
        for (qint64 id : it->rowids) {
            m_rows.remove(id);
        }
        m_blocks.erase(it);
    }
}

int MessageModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_order->size());
}

int MessageModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

bool MessageModel::isStuck(const Message& m) const {
    return m.isStuck(core::systemNowNs(), stuckNs());
}

bool MessageModel::isSortable(int column) {
    return column != IdempotencyKey && column != Payload && column >= 0 && column < ColumnCount;
}

bool MessageModel::showsSchedule() const {
    return m_queue && core::QueueFormat::of(m_queue->info()).hasSchedule();
}

std::optional<TimeNs> MessageModel::leaseRemaining(const Message& m, TimeNs now) {
    if (m.state != State::Leased || !m.lockedUntil) {
        return std::nullopt;
    }
    return *m.lockedUntil - now;
}

QVariant MessageModel::jobsDisplayData(const MessageRow& r, int column) const {
    const Message& m = r.msg;
    const TimeNs now = core::systemNowNs();
    switch (Column(column)) {
    case Enqueued:
        return formatInstant(m.runAt, m_utc, false, false);
    case Claimed:
        return formatInstant(m.lockedUntil, m_utc, false, false);
    case Finished:
        return humanDuration(leaseRemaining(m, now));
    case Age:
        if (!m.runAt) {
            return QString();
        }
        if (m.state == State::Scheduled) {
            return tr("in %1").arg(humanDuration(core::diffNs(*m.runAt, now)));
        }
        if (m.state == State::Ready || m.state == State::Expired) {
            return humanDuration(core::diffNs(now, *m.runAt));
        }
        return QString();
    case IdempotencyKey:
    case Wait:
    case Processing:
        return QString();
    default:
        return displayData(r, column);
    }
}

QVariant MessageModel::displayData(const MessageRow& r, int column) const {
    const Message& m = r.msg;
    switch (Column(column)) {
    case MessageId:
        return fromStd(m.messageId);
    case Status:
        return stateText(m);
    case Claim:
        return QString::number(m.token);
    case IdempotencyKey:
        return m.idempotencyKey ? fromStd(*m.idempotencyKey) : QString();
    case Payload:
        return r.preview;
    case Enqueued:
        return formatInstant(m.inTime, m_utc, false, false);
    case Claimed:
        return formatInstant(m.lockTime, m_utc, false, false);
    case Finished:
        return formatInstant(m.doneTime, m_utc, false, false);
    case Wait:
        return humanDuration(m.waitNs());
    case Processing:
        return humanDuration(m.processingNs());
    case Age: {
        const TimeNs now = core::systemNowNs();
        if (m.state == State::Locked || m.state == State::Leased) {
            return humanDuration(m.lockAgeNs(now));
        }
        if (m.state == State::Ready || m.state == State::Scheduled || m.state == State::Expired) {
            return humanDuration(m.ageNs(now));
        }
        return QString();
    }
    case ColumnCount:
        break;
    }
    return {};
}

QVariant MessageModel::toolTipData(const MessageRow& r, int column) const {
    const Message& m = r.msg;
    auto instant = [](const std::optional<TimeNs>& t) {
        return t ? plainToolTip(exactInstant(*t)) : QVariant();
    };
    auto duration = [](const std::optional<TimeNs>& d) {
        return d ? plainToolTip(exactDuration(*d)) : QVariant();
    };
    switch (Column(column)) {
    case MessageId:
        return plainToolTip(fromStd(m.messageId));
    case Status: {
        QString t = stateText(m);
        if (isStuck(m)) {
            t += u'\n' + tr("Stuck: locked for %1 (threshold %2 s)")
                             .arg(humanDuration(m.lockAgeNs(core::systemNowNs())))
                             .arg(m_stuckSeconds);
        }
        return plainToolTip(t);
    }
    case Claim:
        return plainToolTip(tr("Claim token %1 (claim_id; lock_time in legacy files, attempts "
                               "in lease queues)")
                                .arg(m.token));
    case IdempotencyKey:
        return m.idempotencyKey ? plainToolTip(fromStd(*m.idempotencyKey)) : QVariant();
    case Payload: {
        QString text =
            QString::fromUtf8(m.data.data(), qsizetype(std::min<std::size_t>(m.data.size(), 600)));
        if (r.dataBytes > 600) {
            text += QChar(0x2026) + u'\n' + tr("(%1 in total)").arg(humanBytes(r.dataBytes));
        }
        return plainToolTip(text);
    }
    case Enqueued:
        return instant(m.inTime);
    case Claimed:
        return instant(m.lockTime);
    case Finished:
        return instant(m.doneTime);
    case Wait:
        return duration(m.waitNs());
    case Processing:
        return duration(m.processingNs());
    case Age: {
        const TimeNs now = core::systemNowNs();
        if (m.state == State::Locked || m.state == State::Leased) {
            return duration(m.lockAgeNs(now));
        }
        return duration(m.ageNs(now));
    }
    case ColumnCount:
        break;
    }
    return {};
}

QVariant MessageModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const int row = index.row();
    const int column = index.column();
    const qint64 rowid = (*m_order)[std::size_t(row)];
    auto it = m_rows.constFind(rowid);
    if (it == m_rows.cend()) {
        if (!m_goneRows.contains(rowid)) {
            requestBlock(row / kBlockSize);
        }
        switch (role) {
        case Qt::DisplayRole:
            return QStringLiteral("\u2026");
        case Qt::ForegroundRole:
            return QBrush(theme::mutedText());
        case RowIdRole:
            return rowid;
        case LoadedRole:
            return false;
        default:
            return {};
        }
    }
    touchBlock(row / kBlockSize);
    const MessageRow& r = it.value();
    const Message& m = r.msg;
    switch (role) {
    case Qt::DisplayRole:
        return showsSchedule() ? jobsDisplayData(r, column) : displayData(r, column);
    case Qt::ToolTipRole:
        if (showsSchedule()) {
            switch (column) {
            case Enqueued:
                return m.runAt ? plainToolTip(exactInstant(*m.runAt)) : QVariant();
            case Claimed:
                return m.lockedUntil ? plainToolTip(exactInstant(*m.lockedUntil)) : QVariant();
            case Finished:
                if (auto left = leaseRemaining(m, core::systemNowNs())) {
                    return plainToolTip(exactDuration(*left));
                }
                return {};
            case Claim:
                return plainToolTip(tr("%n attempt(s): the claim token of a lease queue", nullptr,
                                       int(m.attempts)));
            default:
                break;
            }
        }
        return toolTipData(r, column);
    case Qt::DecorationRole:
        if (column == Status) {
            return isStuck(m) ? m_stuckIcon : m_stateIcons.value(int(m.state));
        }
        return {};
    case Qt::ForegroundRole:
        if (column == Status) {
            return QBrush(theme::stateColor(m.state));
        }
        return {};
    case Qt::BackgroundRole:
        if (isStuck(m)) {
            return QBrush(theme::stuckBackground());
        }
        return {};
    case Qt::FontRole:
        if (column == MessageId || column == Claim) {
            return QFontDatabase::systemFont(QFontDatabase::FixedFont);
        }
        if (column == Status) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::TextAlignmentRole:
        if (column == Claim || column == Wait || column == Processing || column == Age) {
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        }
        return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
    case MessageIdRole:
        return fromStd(m.messageId);
    case TokenRole:
        return qint64(m.token);
    case StateRole:
        return int(m.state);
    case StuckRole:
        return isStuck(m);
    case RowIdRole:
        return rowid;
    case LoadedRole:
        return true;
    case PayloadBytesRole:
        return r.dataBytes;
    case SortValueRole: {
        auto v = [](const std::optional<TimeNs>& t) {
            return t ? QVariant(qint64(*t)) : QVariant();
        };
        if (showsSchedule()) {
            switch (column) {
            case Enqueued:
                return v(m.runAt);
            case Claimed:
                return v(m.lockedUntil);
            case Finished:
                return v(leaseRemaining(m, core::systemNowNs()));
            case Claim:
                return qint64(m.token);
            default:
                return {};
            }
        }
        switch (column) {
        case Enqueued:
            return v(m.inTime);
        case Claimed:
            return v(m.lockTime);
        case Finished:
            return v(m.doneTime);
        case Wait:
            return v(m.waitNs());
        case Processing:
            return v(m.processingNs());
        case Claim:
            return qint64(m.token);
        default:
            return {};
        }
    }
    default:
        return {};
    }
}

QVariant MessageModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    if (showsSchedule() && (role == Qt::DisplayRole || role == Qt::ToolTipRole)) {
        const bool tip = role == Qt::ToolTipRole;
        switch (Column(section)) {
        case MessageId:
            return tip ? tr("The job id") : tr("Id");
        case Claim:
            return tip ? tr("attempts: how many times the job was claimed (the claim token)")
                       : tr("Attempts");
        case Enqueued:
            return tip ? tr("run_at: when the job is due") : tr("Run at");
        case Claimed:
            return tip ? tr("locked_until: the end of the current or last lease")
                       : tr("Locked until");
        case Finished:
            return tip ? tr("locked_until - now, for LEASED jobs") : tr("Lease remaining");
        case Age:
            return tip ? tr("How long a due job has waited (now - run_at), or when a scheduled "
                            "job is due")
                       : tr("Due");
        default:
            break;
        }
    }
    if (role == Qt::DisplayRole) {
        switch (Column(section)) {
        case MessageId:
            return tr("Message id");
        case Status:
            return tr("Status");
        case Claim:
            return tr("Claim");
        case IdempotencyKey:
            return tr("Key");
        case Payload:
            return tr("Payload");
        case Enqueued:
            return tr("Enqueued");
        case Claimed:
            return tr("Claimed");
        case Finished:
            return tr("Finished");
        case Wait:
            return tr("Wait");
        case Processing:
            return tr("Processing");
        case Age:
            return tr("Age");
        case ColumnCount:
            break;
        }
    } else if (role == Qt::ToolTipRole) {
        switch (Column(section)) {
        case MessageId:
            return tr("UUIDv7 message id; sorts in arrival (pop) order");
        case IdempotencyKey:
            return tr("Idempotency key");
        case Claim:
            return tr("The claim token actions check: claim_id, or lock_time in legacy files");
        case Enqueued:
            return tr("in_time");
        case Claimed:
            return tr("lock_time: the last claim");
        case Finished:
            return tr("done_time");
        case Wait:
            return tr("lock_time - in_time");
        case Processing:
            return tr("done_time - lock_time (DONE rows)");
        case Age:
            return tr("now - in_time for READY rows; lock age (now - lock_time) for LOCKED rows");
        default:
            return {};
        }
    }
    return {};
}

void MessageModel::sort(int column, Qt::SortOrder order) {
    if (!isSortable(column)) {
        return;
    }
    core::Sort s;
    switch (Column(column)) {
    case Enqueued:
        s.key = core::SortKey::InTime;
        break;
    case Claimed:
        s.key = core::SortKey::LockTime;
        break;
    case Finished:
        // With a schedule: lease remaining orders as locked_until.
        s.key = showsSchedule() ? core::SortKey::LockTime : core::SortKey::DoneTime;
        break;
    case Wait:
        s.key = core::SortKey::Wait;
        break;
    case Processing:
        s.key = core::SortKey::Processing;
        break;
    case Age:
        s.key = core::SortKey::Age;
        break;
    case Claim:
        s.key = core::SortKey::Claim;
        break;
    case Status:
        s.key = core::SortKey::Status;
        break;
    default:
        s.key = core::SortKey::Arrival;
        break;
    }
    s.descending = order == Qt::DescendingOrder;
    if (s.key == m_sort.key && s.descending == m_sort.descending) {
        return;
    }
    m_sort = s;
    ++m_generation;
    m_pendingReset = true;
    kick();
}

} // namespace lq::ui
