// SPDX-License-Identifier: MIT
#include "ui/messageloader.h"

#include "ui/filewatcher.h"
#include "ui/runasync.h"
#include "ui/uitext.h"

#include <QElapsedTimer>
#include <QHash>
#include <QLoggingCategory>
#include <QPointer>
#include <QSet>

#include <algorithm>
#include <climits>
#include <optional>
#include <unordered_set>

namespace lq::ui {

using core::Message;
using core::TimeNs;

namespace {

// What made a poll read the file again (QT_LOGGING_RULES="lq.ui.loader=true").
Q_LOGGING_CATEGORY(lcLoader, "lq.ui.loader", QtWarningMsg)

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
    const auto text = [&h](const std::string& s) {
        h = mix(h, qHash(QByteArrayView(s.data(), qsizetype(s.size()))));
    };
    const auto optText = [&](const std::optional<std::string>& s) {
        s ? text(*s) : void(h = mix(h, 0x8000000000000003ULL));
    };
    const auto optInt = [&h](const std::optional<std::int64_t>& v) {
        h = mix(h, v ? static_cast<quint64>(*v) : 0x8000000000000005ULL);
    };
    optText(m.idempotencyKey);
    // The formats' own columns: another process may change only these (a
    // job's priority, its queue, its error text).
    optText(m.queueName);
    optText(m.jobName);
    optInt(m.priority);
    optInt(m.maxAttempts);
    optText(m.lastError);
    text(m.extraState);
    text(m.statusText);
    optText(m.tokenText);
    h = mix(h, optTime(m.scheduledAt));
    h = mix(h, optTime(m.waitFrom));
    h = mix(h, optTime(m.leaseExpiry));
    optText(m.dataNote);
    optText(m.formatRow);
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

OrderDiff diffOrders(const Ordering& oldO, const Ordering& newO) {
    OrderDiff d;
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

void toRanges(const std::vector<int>& positions, std::vector<std::pair<int, int>>& out) {
    for (int p : positions) {
        if (!out.empty() && out.back().first + out.back().second == p) {
            ++out.back().second;
        } else {
            out.emplace_back(p, 1);
        }
    }
}

namespace {

/// The rows on screen (`cached`: rowid, fingerprint) whose stored values
/// differ from what is shown, as read now.
std::vector<MessageRow> changedShownRows(core::QueueBackend& q,
                                         const std::vector<std::pair<qint64, quint64>>& cached) {
    std::vector<std::int64_t> ids;
    ids.reserve(cached.size());
    QHash<qint64, quint64> before;
    before.reserve(qsizetype(cached.size()));
    for (const auto& c : cached) {
        ids.push_back(c.first);
        before.insert(c.first, c.second);
    }
    std::vector<MessageRow> out;
    for (Message& m : q.fetchRowids(ids)) {
        MessageRow row = makeRow(std::move(m));
        if (row.fingerprint != before.value(row.msg.rowid)) {
            out.push_back(std::move(row));
        }
    }
    return out;
}

} // namespace

MessageLoader::MessageLoader(RequestSource source, QObject* parent)
    : QObject(parent)
    , m_source(std::move(source))
    , m_watcher(new FileWatcher(this)) {
    m_pool.setMaxThreadCount(1);
    m_peekPool.setMaxThreadCount(1);
    // Named, as every pool of ours (the threads take the name): a thread in
    // perf or top is then ours or Qt's at a glance.
    m_pool.setObjectName(QStringLiteral("lq load"));
    m_peekPool.setObjectName(QStringLiteral("lq peek"));
    // Kept for good: the thread's read connection is ours.
    startBackgroundThreads(m_pool);
    startBackgroundThreads(m_peekPool);
    m_fallback.setSingleShot(true);
    m_fallback.setInterval(kFallbackMs);
    connect(&m_fallback, &QTimer::timeout, this, [this] { requestPoll(false); });
    m_paceTimer.setSingleShot(true);
    connect(&m_paceTimer, &QTimer::timeout, this, &MessageLoader::kick);
    m_peekTimer.setSingleShot(true);
    connect(&m_peekTimer, &QTimer::timeout, this, &MessageLoader::startPeek);
    connect(m_watcher, &FileWatcher::changed, this, [this] { requestPoll(false); });
}

MessageLoader::~MessageLoader() {
    m_pool.clear();
    m_pool.waitForDone();
    m_peekPool.waitForDone();
}

void MessageLoader::setBackend(std::shared_ptr<core::QueueBackend> backend, const QString& path) {
    m_watcher->clear();
    if (m_backend) {
        m_backend->setChangeListener({});
    }
    m_fallback.stop();
    m_paceTimer.stop();
    m_peekTimer.stop();
    m_backend = std::move(backend);
    m_pacer.reset();
    m_peekPacer.reset();
    m_fallback.setInterval(m_backend ? m_backend->changePollMs() : kFallbackMs);
    if (m_backend) {
        m_pacer.setFactor(m_backend->readPacingFactor());
        m_peekPacer.setFactor(m_pacer.factor());
    }
    m_dataVersion = -1;
    m_fileSize = -1;
    m_fileMtime = -1;
    m_inode = 0;
    m_walBytes = 0;
    m_countsFor.reset();
    m_pendingPoll = false;
    m_pendingReset = false;
    if (std::exchange(m_fileState, MessageModel::FileState::Ok) != MessageModel::FileState::Ok) {
        emit fileStateChanged(MessageModel::FileState::Ok);
    }
    if (m_backend) {
        // A remote queue pushes its changes (its link is never polled); a
        // database, the inserts its library notifies (it is polled too).
        QPointer<MessageLoader> self(this);
        m_backend->setChangeListener([self](bool force) {
            QMetaObject::invokeMethod(
                self.data(),
                [self, force] {
                    if (self) {
                        self->requestPoll(force);
                    }
                },
                Qt::QueuedConnection);
        });
    }
    if (m_backend && !m_backend->pushesChanges() && core::isLocalPath(path.toStdString())) {
        // The file and its -wal, not their folder: a watch is added again
        // after every change passed on, and adding one on a folder costs
        // the kernel a walk of every name it cached there (17 ms of a core
        // for /tmp on the bench machine, at each live refresh). What the
        // folder's events told is told otherwise: a switch to WAL writes the
        // file's header; a -wal missing is looked for again at each change
        // and at the fallback poll; a file replaced or deleted drops its own
        // watch with an event.
        m_watcher->addPath(path);
        m_watcher->addPath(path + QStringLiteral("-wal"));
    }
}

void MessageLoader::requestReset() {
    m_pendingReset = true;
    // A new filter, sort or file: the running poll's ordering (seconds for a
    // JSON condition on a million jobs) is no longer wanted; stop its read.
    if (m_jobRunning && m_pollCancel)
        m_pollCancel->store(true);
    kick();
}

void MessageLoader::requestPoll(bool force) {
    m_pendingPoll = true;
    m_pendingForce = m_pendingForce || force;
    if (m_jobRunning && m_live) {
        startPeek(); // a long poll is running: the rows on screen need not wait for it
    }
    kick();
}

void MessageLoader::startPeek() {
    if (m_peekRunning || !m_backend || m_backend->pushesChanges()) {
        return;
    }
    if (const TimeNs wait = m_peekPacer.waitAt(core::steadyNowNs()); wait > 0) {
        if (!m_peekTimer.isActive()) {
            m_peekTimer.start(int(std::min<TimeNs>(wait / 1'000'000 + 1, INT_MAX)));
        }
        return;
    }
    PollRequest req = m_source(false);
    if (req.shown.empty()) {
        return; // nothing on screen (another tab): the paced poll will do
    }
    m_peekRunning = true;
    const TimeNs peekStart = core::steadyNowNs();
    QSet<qint64> shownIds;
    shownIds.reserve(qsizetype(req.shown.size()));
    for (const auto& s : req.shown)
        shownIds.insert(s.first);
    // Its own thread and so its own read connection (and data_version).
    auto work = [q = m_backend, cached = std::move(req.shown),
                 last = m_peekVersion]() -> std::pair<std::int64_t, std::vector<MessageRow>> {
        try {
            const std::int64_t version = q->dataVersion();
            if (version == last) {
                return {version, {}};
            }
            return {version, changedShownRows(*q, cached)};
        } catch (const std::exception&) {
            return {-1, {}}; // the poll reports errors
        }
    };
    runAsync(
        this, &m_peekPool, std::move(work),
        [this, gen = m_generation, layout = req.layout, peekStart, shownIds = std::move(shownIds)](
            const std::pair<std::int64_t, std::vector<MessageRow>>& r) {
            m_peekRunning = false;
            m_peekPacer.ran(peekStart, core::steadyNowNs());
            qCDebug(lcLoader) << "peek: version" << r.first << "changed rows" << r.second.size()
                              << "in" << (core::steadyNowNs() - peekStart) / 1'000'000 << "ms";
            armWatch();
            const std::int64_t before = std::exchange(m_peekVersion, r.first);
            if (gen == m_generation && r.first >= 0 && r.first != before) {
                emit othersStale(gen, layout, shownIds);
            }
            if (gen == m_generation && !r.second.empty()) {
                emit earlyRows(gen, layout, r.second);
            }
        });
}

void MessageLoader::setLive(bool on) {
    if (on == m_live) {
        return;
    }
    m_live = on;
    if (!on) {
        m_fallback.stop();
    } else {
        requestPoll(false);
    }
}

void MessageLoader::armFallback() {
    if (m_backend && m_live && !m_jobRunning && !m_backend->pushesChanges()) {
        m_fallback.start();
    }
}

void MessageLoader::armWatch() {
    // A database has no file watcher: while a long poll runs (seconds on a
    // million jobs), and while the next one waits out its pace (ten times
    // that), the rows on screen are still checked at its pace.
    if (m_backend && m_live && (m_jobRunning || m_paceTimer.isActive()) &&
        !m_backend->pushesChanges() && m_backend->changePollMs() < kFallbackMs &&
        !m_peekTimer.isActive()) {
        m_peekTimer.start(m_backend->changePollMs());
    }
}

void MessageLoader::kick() {
    if (m_jobRunning || !m_backend) {
        return;
    }
    if (m_pendingReset) {
        m_pendingReset = false;
        m_pendingPoll = false;
        m_pendingForce = false;
        startPoll(true);
    } else if (m_pendingPoll && m_live) {
        startPacedPoll();
    }
}

bool MessageLoader::startPacedPoll() {
    if (!m_pendingForce) {
        const TimeNs wait = m_pacer.waitAt(core::steadyNowNs());
        if (wait > 0) {
            // The ordering and the counts wait for the pace; the rows on
            // screen need not (a read of a page of rows by rowid).
            startPeek();
            if (!m_paceTimer.isActive()) {
                m_paceTimer.start(int(std::min<TimeNs>(wait / 1'000'000 + 1, INT_MAX)));
            }
            return false;
        }
    }
    m_paceTimer.stop();
    m_pendingPoll = false;
    startPoll(false);
    return true;
}

void MessageLoader::startPoll(bool reset) {
    m_fallback.stop();
    m_jobRunning = true;
    armWatch();
    const bool force = reset || m_pendingForce;
    m_askedRunning = force;
    m_pendingForce = false;
    const qint64 nowMs = QDateTime::currentMSecsSinceEpoch();
    PollRequest req = m_source(reset);
    // A new sort or status filter changes the ordering, not the counts (the
    // chips count the whole named queue): a reset reuses recent counts of
    // the same queue and stuck threshold unless the data moved. (On a
    // million-job Laravel file they are 0.4 s of a 1.5 s sort.)
    m_pollCountsFor = {req.filter.queue, qint64(req.stuckNs)};
    const bool countsFresh =
        m_countsFor == m_pollCountsFor && nowMs - m_lastCountsMs <= kCountsRefreshMs;
    const bool countsDue = (reset && !countsFresh) || nowMs - m_lastCountsMs > kCountsRefreshMs;
    // A filter on ages changes with the clock, not only with the data.
    const bool timeDependent = req.filter.stuckOnly || req.filter.olderThan.has_value();

    m_pollCancel = std::make_shared<std::atomic_bool>(false);
    // The loader outlives its worker (the destructor waits for the pool), so
    // the worker may post to it.
    auto work = [self = this, cancel = m_pollCancel, layout = req.layout, q = m_backend,
                 filter = std::move(req.filter), sort = req.sort, stuck = req.stuckNs,
                 gen = m_generation, lastVersion = m_dataVersion, lastSize = m_fileSize,
                 lastMtime = m_fileMtime, force, reset, countsDue, timeDependent,
                 cached = std::move(req.cached), shown = std::move(req.shown),
                 oldOrder = std::move(req.order)]() -> PollResult {
        PollResult r;
        r.generation = gen;
        QElapsedTimer timer;
        timer.start();
        try {
            r.identity = q->fileIdentity();
            r.walBytes = q->walSize();
            r.version = q->dataVersion();
            const bool moved = r.version != lastVersion || r.identity.size != lastSize ||
                               r.identity.mtimeNs != lastMtime;
            r.changed = force || moved;
            if (force && !reset && !moved)
                qCDebug(lcLoader) << "forced poll: the file did not move";
            if (moved && lastVersion >= 0)
                qCDebug(lcLoader) << "file moved: data_version" << lastVersion << "->" << r.version
                                  << "size" << lastSize << "->" << r.identity.size << "mtime"
                                  << lastMtime << "->" << r.identity.mtimeNs;
            if (!reset && r.changed && !shown.empty()) {
                // Phase one: the rows on screen first. A change to a shown
                // row becomes visible now, before the ordering and the counts
                // (hundreds of ms at a million rows) are recomputed.
                auto early = std::make_shared<std::vector<MessageRow>>(changedShownRows(*q, shown));
                if (!early->empty()) {
                    QMetaObject::invokeMethod(
                        self,
                        [self, gen, layout, early] { emit self->earlyRows(gen, layout, *early); },
                        Qt::QueuedConnection);
                }
            }
            // A first page shorter than a page is every match: the ordering
            // (a second whole read where a filter no index serves, such as a
            // JSON field's, matches a few jobs in a million) is its rowids.
            std::optional<std::vector<std::int64_t>> whole;
            if (reset) {
                // The first rows from the index (a few ms) before the whole
                // ordering (hundreds of ms at a million rows): the table is
                // never empty while rows are coming.
                auto first = std::make_shared<std::vector<MessageRow>>();
                std::vector<Message> page = q->firstPage(filter, sort, MessageModel::kBlockSize);
                if (!page.empty() && page.size() < std::size_t(MessageModel::kBlockSize)) {
                    whole.emplace();
                    for (const Message& m : page)
                        whole->push_back(m.rowid);
                }
                for (Message& m : page) {
                    first->push_back(makeRow(std::move(m)));
                }
                if (!first->empty()) {
                    QMetaObject::invokeMethod(
                        self, [self, gen, first] { emit self->firstRows(gen, *first); },
                        Qt::QueuedConnection);
                }
                if (countsDue) {
                    // Where the exact counts take long, the server's
                    // estimate meanwhile (a few catalog reads); the exact
                    // ones below replace it.
                    std::optional<core::Counts> guess;
                    try {
                        guess = q->estimatedCounts(filter.queue);
                    } catch (const core::Error& e) {
                        qCDebug(lcLoader) << "no estimate:" << e.what();
                    }
                    if (guess) {
                        QMetaObject::invokeMethod(
                            self,
                            [self, gen, guess = std::move(*guess)] {
                                emit self->countsEstimated(gen, guess);
                            },
                            Qt::QueuedConnection);
                    }
                }
            }
            if (r.changed || timeDependent) {
                const std::vector<std::int64_t> ids =
                    whole ? std::move(*whole) : q->orderedRowids(filter, sort, cancel.get());
                r.order = std::make_shared<Ordering>(ids.begin(), ids.end());
                QMetaObject::invokeMethod(
                    self,
                    [self, gen, rows = qint64(r.order->size())] {
                        emit self->orderingSized(gen, rows);
                    },
                    Qt::QueuedConnection);
            }
            if (countsDue || moved || (force && !reset)) {
                r.counts = q->counts(stuck, filter.queue); // the chips follow the queue
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
                    const Ordering& order = r.order ? *r.order : *oldOrder;
                    for (std::size_t i = 0; i < order.size(); ++i) {
                        if (changedIds.contains(order[i])) {
                            r.changedPositions.push_back(int(i));
                        }
                    }
                }
            }
        } catch (const core::Error& e) {
            r.cancelled = cancel->load();
            r.error = errorText(e);
            r.busy = e.kind() == core::ErrorKind::Busy;
            r.invalid = e.kind() == core::ErrorKind::InvalidArgument;
        } catch (const std::exception& e) {
            r.cancelled = cancel->load();
            r.error = errorText(e);
        }
        r.elapsedNs = timer.nsecsElapsed();
        r.elapsedMs = r.elapsedNs / 1'000'000;
        return r;
    };
    runAsync(this, &m_pool, std::move(work), [this, reset](PollResult r) {
        m_jobRunning = false;
        m_askedRunning = false;
        const TimeNs end = core::steadyNowNs();
        m_pacer.ran(end - r.elapsedNs, end);
        finishPoll(std::move(r), reset);
        kick();
        armFallback();
    });
}

void MessageLoader::finishPoll(PollResult&& r, bool reset) {
    if (r.generation != m_generation || r.cancelled) {
        releaseOffThread(std::move(r.order)); // up to 80 MB at ten million rows
        return;                               // a newer filter/sort/file superseded this job
    }
    m_lastJobMs = r.elapsedMs;
    m_walBytes = r.walBytes;
    MessageModel::FileState fs = MessageModel::FileState::Ok;
    if (!r.identity.exists) {
        fs = MessageModel::FileState::Missing;
    } else if (m_inode != 0 && r.identity.inode != m_inode) {
        fs = MessageModel::FileState::Replaced;
    }
    if (m_inode == 0) {
        m_inode = r.identity.inode;
    }
    if (fs != m_fileState) {
        m_fileState = fs;
        emit fileStateChanged(fs);
    }
    if (!r.error.isEmpty()) {
        if (reset && !r.invalid) {
            m_pendingReset = true; // try again on the next tick
        }
        emit errorOccurred(r.error);
        return;
    }
    const bool moved = r.changed && m_dataVersion >= 0;
    m_dataVersion = r.version;
    m_fileSize = r.identity.size;
    m_fileMtime = r.identity.mtimeNs;
    if (r.counts) {
        m_lastCountsMs = QDateTime::currentMSecsSinceEpoch();
        m_countsFor = m_pollCountsFor;
    }
    emit pollFinished(r, reset, moved);
}

void MessageLoader::loadBlock(quint64 layout, int block, std::vector<std::int64_t> rowids) {
    runAsync(
        this, &m_pool,
        [q = m_backend, rowids = std::move(rowids), gen = m_generation, layout,
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
        [this](BlockResult r) {
            if (r.generation == m_generation) {
                emit blockLoaded(r);
            }
        });
}

void MessageLoader::locate(const QString& messageId, std::shared_ptr<const Ordering> order) {
    if (!m_backend) {
        emit located(messageId, false, 0, -1);
        return;
    }
    const quint64 gen = m_generation;
    struct Found {
        std::optional<qint64> rowid;
        qint64 position = -1;
    };
    runAsync(
        this, &m_pool,
        [q = m_backend, id = toStd(messageId), order = std::move(order)]() {
            Found out;
            try {
                if (auto m = q->get(id))
                    out.rowid = m->rowid;
            } catch (const std::exception&) {
                return out;
            }
            if (out.rowid && order) {
                const auto it = std::find(order->begin(), order->end(), *out.rowid);
                if (it != order->end())
                    out.position = qint64(it - order->begin());
            }
            return out;
        },
        [this, messageId, gen](Found f) {
            if (gen == m_generation) {
                emit located(messageId, f.rowid.has_value(), f.rowid.value_or(0), f.position);
            }
        });
}

} // namespace lq::ui
