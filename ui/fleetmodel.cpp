// SPDX-License-Identifier: MIT
#include "ui/fleetmodel.h"

#include "core/backend.h"

#include "core/error.h"
#include "core/filestamp.h"
#include "core/pacing.h"
#include "core/pg/connection.h"
#include "ui/filewatcher.h"
#include "ui/fleetremote.h"
#include "ui/queuesettings.h"
#include "ui/runasync.h"
#include "ui/theme.h"
#include "ui/uitext.h"

#include <QColor>
#include <QDir>
#include <QElapsedTimer>
#include <QLoggingCategory>
#include <QPainter>
#include <QPixmap>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

Q_LOGGING_CATEGORY(lcFleet, "lq.ui.fleet")

namespace lq::ui {

namespace {

QIcon dot(const QColor& fill, const QColor& ring = {}) {
    QPixmap pm(32, 32);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(ring.isValid() ? QPen(ring, 3) : Qt::NoPen);
    p.setBrush(fill);
    p.drawEllipse(QRectF(5, 5, 22, 22));
    return QIcon(pm);
}

bool sameKey(const core::FleetEntry& a, const core::FleetEntry& b) {
    return a.path == b.path && a.table == b.table && a.queueName == b.queueName;
}

// A file's total row ("" queue name) sorts before its named queues.
bool keyLess(const core::FleetEntry& a, const core::FleetEntry& b) {
    if (a.path != b.path)
        return a.path < b.path;
    return a.table != b.table ? a.table < b.table : a.queueName < b.queueName;
}

/// The file's entry, then one child entry per named queue with its counts.
void appendWithQueues(core::FleetEntry&& e, std::vector<core::FleetEntry>& out) {
    auto queues = std::move(e.queues);
    e.queues.clear();
    for (auto& [queueName, counts] : queues) {
        const std::string& name = queueName; // a lambda cannot capture a structured binding
        core::FleetEntry child = e;
        child.queueName = name;
        child.counts = counts;
        child.oldestReadyInTime.reset(); // the scan reads the file's backlog only
        std::erase_if(child.paused, [&](const core::PausedQueue& p) { return p.queue != name; });
        out.push_back(std::move(child));
    }
    out.push_back(std::move(e));
}

bool sameShown(const core::FleetEntry& a, const core::FleetEntry& b) {
    const auto& x = a.counts;
    const auto& y = b.counts;
    return a.skipped == b.skipped && a.reason == b.reason && a.format == b.format &&
           a.readOnlyReason == b.readOnlyReason && x.ready == y.ready && x.locked == y.locked &&
           x.done == y.done && x.failed == y.failed && x.stuck == y.stuck &&
           x.scheduled == y.scheduled && x.leased == y.leased && x.expired == y.expired &&
           x.stored == y.stored && x.extra == y.extra &&
           a.oldestReadyInTime == b.oldestReadyInTime && a.walBytes == b.walBytes &&
           a.paused.size() == b.paused.size() &&
           (a.paused.empty() || a.paused.front().since == b.paused.front().since) &&
           a.fileBytes == b.fileBytes;
}

} // namespace

namespace {

bool isFile(const std::string& path) {
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec);
}

/// What a write by another process changes: the file and its `-wal`.
using FileStamps = std::pair<core::FileStamp, core::FileStamp>;

FileStamps stampsOf(const std::string& path) {
    return {core::fileStamp(path), core::fileStamp(path + "-wal")};
}

} // namespace

struct FleetModel::CachedScan {
    core::TimeNs stuckNs = 0;
    core::TimeNs scannedAt = 0;
    qint64 costMs = 0;
    FileStamps stamp;                      ///< taken before the scan read the file
    std::vector<core::FleetEntry> entries; ///< as scanQueueFile() gave them
    /// A database's session, kept from scan to scan (scans run one at a
    /// time): read again only when its change marker moved.
    std::shared_ptr<core::WatchedDatabase> database;
};

namespace {

/// How long a file's last figures stand before it is read again, changed
/// or not: its pace (core/pacing.h: a multiple of what the read cost, by
/// its backend: FleetEntry::readPacingFactor), at most `maxAgeMs`.
core::TimeNs paceOf(const FleetModel::CachedScan& c, qint64 maxAgeMs) {
    const std::int64_t factor =
        c.entries.empty() ? core::ReadPacing::kRollbackFactor : c.entries.front().readPacingFactor;
    return core::ReadPacing::restAfter(std::max<qint64>(c.costMs, 1) * 1'000'000, factor, 0,
                                       maxAgeMs * 1'000'000);
}

/// Whether the scan left its counts to the window's table.
bool omittedCounts(const FleetModel::CachedScan& c) {
    return std::any_of(c.entries.begin(), c.entries.end(),
                       [](const core::FleetEntry& e) { return e.countsOmitted; });
}

/// Kept under a minute by a change marker that did not move: a job turns
/// stuck by the clock alone, with no write to the database.
constexpr core::TimeNs kDatabaseMaxAgeNs = 60 * core::kNsPerSecond;

} // namespace

bool FleetModel::scanDatabase(const std::string& url, const std::map<std::string, CachedScan>* old,
                              bool forced, core::TimeNs stuckNs, core::TimeNs t, qint64 maxAgeMs,
                              std::map<std::string, CachedScan>& cache,
                              std::vector<core::FleetEntry>& out) {
    CachedScan now;
    if (old) {
        if (const auto it = old->find(url); it != old->end())
            now = it->second;
    }
    if (!now.database)
        now.database = std::make_shared<core::WatchedDatabase>(url, false, "lqadmin");
    const bool again = forced || now.stuckNs != stuckNs || now.entries.empty();
    // Paced by what its last read cost, as a slow file is, then only when
    // it changed (or its figures are a minute old).
    const core::TimeNs rest = again ? 0 : paceOf(now, maxAgeMs);
    QElapsedTimer cost;
    cost.start();
    auto read = core::scanDatabase(*now.database, stuckNs, rest,
                                   again ? 0 : std::max(rest, kDatabaseMaxAgeNs));
    const bool reused = !read;
    if (read) {
        now.entries = std::move(*read);
        now.costMs = cost.elapsed();
        now.stuckNs = stuckNs;
        now.scannedAt = t;
    }
    for (core::FleetEntry e : now.entries)
        appendWithQueues(std::move(e), out);
    cache.emplace(url, std::move(now));
    return reused;
}

struct FleetModel::ScanResult {
    std::vector<core::FleetEntry> entries;
    qint64 elapsedMs = 0;
    core::TimeNs now = 0;
    std::shared_ptr<const std::map<std::string, CachedScan>> cache;
    int reused = 0;
};

FleetModel::FleetModel(QObject* parent)
    : QAbstractListModel(parent)
    , m_clock(core::systemClock())
    , m_remote(std::make_shared<RemoteFolders>())
    , m_watcher(new FileWatcher(this)) {
    m_pool.setMaxThreadCount(1);
    m_pool.setObjectName(QStringLiteral("lq fleet"));
    startBackgroundThreads(m_pool); // and kept
    m_watcher->setCoalesceInterval(150);
    connect(m_watcher, &FileWatcher::changed, this, &FleetModel::scanChanged);
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &FleetModel::scanNow);
    m_okIcon = dot(theme::healthColor(theme::Health::Ok));
    m_warnIcon = dot(theme::healthColor(theme::Health::Warning));
    m_stuckIcon = dot(theme::healthColor(theme::Health::Stuck));
    m_skippedIcon = dot(Qt::transparent, theme::healthColor(theme::Health::Skipped));
}

FleetModel::~FleetModel() {
    m_pool.clear();
    m_pool.waitForDone();
}

void FleetModel::addFile(const QString& path) {
    const QString abs = queueKey(path);
    if (m_files.contains(abs)) {
        return;
    }
    m_files << abs;
    ++m_generation;
    scanNow();
}

void FleetModel::removeFile(const QString& path) {
    const QString abs = queueKey(path);
    if (m_files.removeAll(abs) > 0) {
        ++m_generation;
        scanNow();
    }
}

namespace {

QString folderKey(const QString& dir) {
    if (isRemotePath(dir)) {
        QString url = dir;
        while (url.endsWith(QLatin1Char('/')) && url.count(QLatin1Char('/')) > 3) {
            url.chop(1);
        }
        return url;
    }
    return QDir(dir).absolutePath();
}

} // namespace

void FleetModel::watchFolder(const QString& dir) {
    const QString abs = folderKey(dir);
    if (m_folders.contains(abs)) {
        return;
    }
    m_folders << abs;
    if (!isRemotePath(abs)) {
        m_watcher->addPath(abs); // a remote folder is scanned on the interval
    }
    ++m_generation;
    scanNow();
}

void FleetModel::unwatchFolder(const QString& dir) {
    const QString abs = folderKey(dir);
    if (m_folders.removeAll(abs) > 0) {
        if (!isRemotePath(abs)) {
            m_watcher->removePath(abs);
        }
        ++m_generation;
        scanNow();
    }
}

void FleetModel::setClock(core::Clock clock) {
    m_clock = clock ? std::move(clock) : core::systemClock();
    scanNow();
}

void FleetModel::setStuckThresholdSeconds(int seconds) {
    if (seconds != m_stuckSeconds) {
        m_stuckSeconds = seconds;
        scanNow();
    }
}

void FleetModel::setBacklogThresholdSeconds(int seconds) {
    if (seconds != m_backlogSeconds) {
        m_backlogSeconds = seconds;
        scanNow();
    }
}

void FleetModel::setScanInterval(int ms) {
    m_intervalMs = ms;
    if (ms <= 0) {
        m_timer.stop();
    } else if (!m_running && !m_timer.isActive() && !(m_files.isEmpty() && m_folders.isEmpty())) {
        m_timer.start(ms);
    }
}

core::TimeNs FleetModel::now() const {
    return m_clock();
}

void FleetModel::scanNow() {
    m_fullPending = true;
    scanChanged();
}

void FleetModel::scanChanged() {
    if (m_running) {
        m_pending = true;
        return;
    }
    m_timer.stop();
    startScan();
}

void FleetModel::startScan() {
    m_running = true;
    m_pending = false;
    const bool changedOnly = !std::exchange(m_fullPending, false);
    const QStringList files = m_files;
    const QStringList folders = m_folders;
    const core::TimeNs t = now();
    const core::TimeNs stuckNs = core::TimeNs(m_stuckSeconds) * core::kNsPerSecond;
    const QHash<QString, core::FormatSettings> settings = storedQueueSettingsByKey();
    // The queue the window's table counts (its whole file or table): the
    // scan does not count it again (one pass per window).
    std::optional<std::pair<std::string, std::string>> counted;
    if (m_live && m_live->queueName.empty())
        counted.emplace(m_live->path, m_live->table);
    runAsync(
        this, &m_pool,
        [files, folders, t, stuckNs, settings, remote = m_remote, old = m_scanCache,
         forced = std::exchange(m_forced, {}), minCost = m_reuseMinCostMs, maxAge = m_reuseMaxAgeMs,
         changedOnly, counted]() -> ScanResult {
            QElapsedTimer clock;
            clock.start();
            ScanResult r;
            r.now = t;
            std::set<std::string> paths;
            std::vector<std::string> remoteFolders;
            for (const QString& f : folders) {
                const std::string dir = toStd(f);
                if (isRemotePath(f)) {
                    remoteFolders.push_back(dir);
                    continue;
                }
                try {
                    for (std::string& p : core::fleetCandidates(dir)) {
                        paths.insert(std::move(p));
                    }
                } catch (const core::Error& e) {
                    core::FleetEntry skipped;
                    skipped.path = dir;
                    skipped.skipped = true;
                    skipped.reason = e.detail();
                    skipped.errorKind = e.kind();
                    r.entries.push_back(std::move(skipped));
                }
            }
            for (const QString& f : files) {
                paths.insert(toStd(f));
            }
            auto cache = std::make_shared<std::map<std::string, CachedScan>>();
            for (const std::string& p : paths) {
                // A short busy timeout: a writer holding the file for long
                // shows as busy at this scan, the next one tries again. The
                // file's library settings, as the open document uses them.
                const auto own = settings.constFind(fileSettingsKey(fromStd(p)));
                // A slow file keeps its figures for ten times its cost,
                // changed or not: a live million-job file was recounted on
                // every commit, a core busy for good (the open one's total
                // comes from its table, setLiveCounts()).
                // A database is paced like a slow file, by what its last read
                // cost; a scan for a changed local file leaves it as it was.
                if (core::pg::isPostgresUrl(p)) {
                    r.reused += scanDatabase(p, old.get(), forced.count(p) > 0, stuckNs, t, maxAge,
                                             *cache, r.entries)
                                    ? 1
                                    : 0;
                    continue;
                }
                const bool file = isFile(p);
                const bool cacheable = file || !core::isLocalPath(p);
                const CachedScan* last = nullptr;
                const FileStamps stamp = file ? stampsOf(p) : FileStamps{};
                const bool omit = counted && counted->first == p;
                const CachedScan* before = nullptr;
                if (old && cacheable) {
                    const auto it = old->find(p);
                    before = it != old->end() ? &it->second : nullptr;
                }
                if (before && own == settings.cend() && forced.count(p) == 0 &&
                    (omit || !omittedCounts(*before))) {
                    // Figures without counts stand only while the table counts.
                    if (before->stuckNs == stuckNs &&
                        ((changedOnly && before->stamp == stamp) ||
                         (before->costMs >= minCost && t >= before->scannedAt &&
                          t - before->scannedAt < paceOf(*before, maxAge))))
                        last = before;
                }
                CachedScan now;
                if (last) {
                    now = *last;
                    ++r.reused;
                } else {
                    QElapsedTimer cost;
                    cost.start();
                    now.entries = core::scanQueueFile(
                        p, t, stuckNs, 200, own == settings.cend() ? core::FormatSettings{} : *own,
                        omit ? std::optional(counted->second) : std::nullopt);
                    now.costMs = cost.elapsed();
                    // Paced as the count it left to the table: a cheap scan
                    // of a live file would be made again at every change (a
                    // new connection to the file several times a second).
                    if (omittedCounts(now) && before)
                        now.costMs = std::max(now.costMs, before->costMs);
                    now.stamp = stamp;
                    now.stuckNs = stuckNs;
                    now.scannedAt = t;
                }
                for (core::FleetEntry e : now.entries) {
                    appendWithQueues(std::move(e), r.entries);
                }
                if (cacheable)
                    cache->emplace(p, std::move(now));
            }
            r.cache = std::move(cache);
            for (auto& e : remote->scan(remoteFolders, t, stuckNs)) {
                appendWithQueues(std::move(e), r.entries);
            }
            std::stable_sort(r.entries.begin(), r.entries.end(), keyLess);
            r.elapsedMs = clock.elapsed();
            return r;
        },
        [this](ScanResult r) {
            m_running = false;
            applyScan(std::move(r));
            if (m_pending) {
                startScan();
            } else if (m_intervalMs > 0) {
                m_timer.start(m_intervalMs);
            }
        });
}

void FleetModel::setUnchangedReuse(qint64 minCostMs, qint64 maxAgeMs) {
    m_reuseMinCostMs = minCostMs;
    m_reuseMaxAgeMs = maxAgeMs;
}

void FleetModel::applyScan(ScanResult&& r) {
    ++m_scanCount;
    m_lastScanMs = r.elapsedMs;
    m_scanCache = std::move(r.cache);
    m_reusedLastScan = r.reused;
    if (r.elapsedMs >= 250) {
        // Worth knowing: the scan repeats every few seconds.
        qCInfo(lcFleet) << "slow scan:" << r.entries.size() << "entries in" << r.elapsedMs << "ms";
    }

    // The file set may have changed during the scan: keep only what is still
    // listed (the pending scan adds the rest).
    QSet<QString> files(m_files.cbegin(), m_files.cend());
    QSet<QString> folders(m_folders.cbegin(), m_folders.cend());
    std::vector<core::FleetEntry> fresh;
    fresh.reserve(r.entries.size());
    for (auto& e : r.entries) {
        const QString p = fromStd(e.path);
        if (files.contains(p) || folders.contains(p) || folders.contains(folderOf(p))) {
            fresh.push_back(std::move(e));
        }
    }

    // Rows gone: remove back to front, contiguous ranges at once.
    auto inFresh = [&fresh](const core::FleetEntry& e) {
        return std::binary_search(fresh.begin(), fresh.end(), e, keyLess);
    };
    for (int i = int(m_rows.size()) - 1; i >= 0;) {
        if (inFresh(m_rows[std::size_t(i)].entry)) {
            --i;
            continue;
        }
        int first = i;
        while (first > 0 && !inFresh(m_rows[std::size_t(first - 1)].entry)) {
            --first;
        }
        beginRemoveRows({}, first, i);
        m_rows.erase(m_rows.begin() + first, m_rows.begin() + i + 1);
        endRemoveRows();
        i = first - 1;
    }

    // What is left is a subsequence of `fresh` in the same order: walk both,
    // updating rows in place and inserting the new ones.
    for (std::size_t j = 0; j < fresh.size(); ++j) {
        const int row = int(j);
        if (j < m_rows.size() && sameKey(m_rows[j].entry, fresh[j])) {
            Row updated;
            updated.entry = std::move(fresh[j]);
            if (updated.entry.countsOmitted)
                updated.entry.counts = m_rows[j].entry.counts; // unless the table's below
            useLiveCounts(updated.entry);
            computeHealth(updated, &m_rows[j], r.now);
            const bool changed = !sameShown(updated.entry, m_rows[j].entry) ||
                                 updated.health != m_rows[j].health ||
                                 updated.healthReasons != m_rows[j].healthReasons;
            m_rows[j] = std::move(updated);
            if (changed) {
                const QModelIndex idx = index(row);
                emit dataChanged(idx, idx);
            }
            continue;
        }
        Row added;
        added.entry = std::move(fresh[j]);
        useLiveCounts(added.entry);
        computeHealth(added, nullptr, r.now);
        beginInsertRows({}, row, row);
        m_rows.insert(m_rows.begin() + row, std::move(added));
        endInsertRows();
    }
    emit scanned();
}

void FleetModel::rescanFile(const QString& path) {
    m_forced.insert(toStd(queueKey(path)));
    scanNow();
}

void FleetModel::setLiveCounts(const QString& path, const QString& table, const QString& queueName,
                               const core::Counts& counts) {
    const int row = rowOf(path, table, queueName);
    if (row < 0 || m_rows[std::size_t(row)].entry.skipped) {
        return;
    }
    Row& r = m_rows[std::size_t(row)];
    m_live = LiveCounts{r.entry.path, r.entry.table, r.entry.queueName, counts};
    const Row previous = r;
    r.entry.counts = counts;
    computeHealth(r, &previous, now());
    emit dataChanged(index(row), index(row));
}

void FleetModel::clearLiveCounts() {
    if (const auto live = std::exchange(m_live, std::nullopt)) {
        // Its scans did not count it meanwhile: counted now.
        m_forced.insert(live->path);
        scanNow();
    }
}

void FleetModel::useLiveCounts(core::FleetEntry& e) const {
    if (m_live && !e.skipped && e.path == m_live->path && e.table == m_live->table &&
        e.queueName == m_live->queueName)
        e.counts = m_live->counts;
}

int FleetModel::rowOf(const QString& path, const QString& table, const QString& queueName) const {
    const std::string p = toStd(queueKey(path));
    const std::string t = toStd(table);
    const std::string qn = toStd(queueName);
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        const auto& e = m_rows[i].entry;
        if (e.path == p && (t.empty() || e.table == t) && e.queueName == qn) {
            return int(i);
        }
    }
    return -1;
}

const core::FleetEntry* FleetModel::entryAt(int row) const {
    return row >= 0 && row < int(m_rows.size()) ? &m_rows[std::size_t(row)].entry : nullptr;
}

FleetModel::Health FleetModel::healthAt(int row) const {
    return row >= 0 && row < int(m_rows.size()) ? m_rows[std::size_t(row)].health : Health();
}

int FleetModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

Qt::ItemFlags FleetModel::flags(const QModelIndex& index) const {
    if (!index.isValid()) {
        return Qt::NoItemFlags;
    }
    // Skipped files stay selectable so their reason can be read and copied.
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
}

} // namespace lq::ui
