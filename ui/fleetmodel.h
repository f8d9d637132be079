// SPDX-License-Identifier: MIT
#pragma once

#include "core/clock.h"
#include "core/fleet.h"

#include <QAbstractListModel>
#include <QHash>
#include <QIcon>
#include <QSet>
#include <QStringList>
#include <QThreadPool>
#include <QTimer>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <vector>

namespace lq::ui {

class FileWatcher;
class RemoteFolders;

/// The queues the sidebar lists: files opened one by one plus every queue
/// file of the watched folders, one row per queue (a litequeue ≤ 0.9 file
/// gives one row per table) and one row per file that is not a queue, with
/// the reason. A file with named queues (Solid Queue, Laravel, ...) gives
/// its total row followed by one child row per queue name, with that
/// queue's counts (QueueNameRole).
///
/// One scan (core::scanQueueFile on every file, read-only) runs in a worker
/// every scanInterval() and whenever a watched folder changes; scans never
/// overlap (a request during a scan runs once it ends). Results are merged
/// row by row: removed and inserted rows become remove/insert ranges, the
/// rest dataChanged, so the sidebar keeps its selection and scroll.
class FleetModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Role {
        PathRole = Qt::UserRole + 1, ///< QString absolute path
        TableRole,                   ///< QString queue table ("" for skipped files)
        FormatRole,                  ///< QString formatId
        SkippedRole,                 ///< bool: not a queue
        ReasonRole,                  ///< QString: why skipped
        ReadOnlyReasonRole,          ///< QString: why the format is read-only
        ReadyRole,                   ///< qint64 (lease queues: READY)
        LockedRole,                  ///< qint64 (lease queues: LEASED)
        StuckRole,                   ///< qint64
        FailedRole,                  ///< qint64
        DoneRole,                    ///< qint64
        HealthRole,                  ///< int: Health flags
        HealthTextRole,              ///< QString: the reasons, one a line
        SummaryRole,                 ///< QString: the second line of the sidebar
        BacklogAgeRole,              ///< qint64 ns (invalid when nothing is READY)
        QueueNameRole, ///< QString: a child row's named queue ("" for the file's total row)
        PausedRole,    ///< bool: a child row's named queue is paused (workers skip it)
    };
    Q_ENUM(Role)

    enum HealthFlag {
        Healthy = 0,
        StuckMessages = 1,  ///< LOCKED past the stuck threshold
        FailuresRising = 2, ///< the failed count went up at a recent scan
        BacklogOld = 4,     ///< the oldest READY message waits longer than the threshold
        Failures = 8,       ///< failed jobs or dead letters are kept (the state model's)
    };
    Q_DECLARE_FLAGS(Health, HealthFlag)
    Q_FLAG(Health)

    explicit FleetModel(QObject* parent = nullptr);
    ~FleetModel() override;

    /// Lists one file (a scan follows).
    void addFile(const QString& path);
    void removeFile(const QString& path);
    /// Lists every queue file of `dir` and follows files that appear or go.
    /// An ssh://[USER@]HOST[:PORT]/DIR folder is scanned on its host (one
    /// `fleet` request per scan over a session kept open); its rows are
    /// ssh:// URLs.
    void watchFolder(const QString& dir);
    void unwatchFolder(const QString& dir);
    QStringList files() const { return m_files; }
    QStringList folders() const { return m_folders; }

    /// "now" for stuck and backlog ages (tests pin it).
    void setClock(core::Clock clock);
    void setStuckThresholdSeconds(int seconds);
    int stuckThresholdSeconds() const { return m_stuckSeconds; }
    void setBacklogThresholdSeconds(int seconds);
    int backlogThresholdSeconds() const { return m_backlogSeconds; }
    /// Period of the background scan (default 2500 ms; 0 stops it).
    void setScanInterval(int ms);
    int scanInterval() const { return m_intervalMs; }
    /// How long "failures rising" stays marked after the count went up.
    void setFailuresHoldSeconds(int seconds) { m_failuresHoldSeconds = seconds; }

    /// Scans as soon as the worker is free.
    void scanNow();
    /// A watched folder or file changed: scans as soon as the worker is
    /// free, reading again only the files whose main file or `-wal` changed
    /// (size or mtime). Opening a WAL file touches its `-shm` (as root,
    /// SQLite chowns it): a full rescan here fed itself for good.
    void scanChanged();
    bool isScanning() const { return m_running; }
    /// Scans finished so far, and the wall time of the last one.
    int scanCount() const { return m_scanCount; }
    qint64 lastScanMs() const { return m_lastScanMs; }
    /// A local file whose scan took at least `minCostMs` keeps its last
    /// figures for its pace (core::ReadPacing: 100 times that cost on a
    /// rollback-journal file, 10 times in WAL mode), at most `maxAgeMs`
    /// (defaults 25 ms, a cost the 2.5 s scan interval keeps within the
    /// pace anyway, and 10 min), whether or not it changed since: a big
    /// queue file is not recounted every few seconds, nor on every commit
    /// of a live one, and its workers never wait on us for long. Files with
    /// library settings of their own are always scanned.
    void setUnchangedReuse(qint64 minCostMs, qint64 maxAgeMs);
    /// Files whose figures the last scan reused.
    int reusedLastScan() const { return m_reusedLastScan; }

    /// A write of ours to `path` (an action, an undo): its kept figures
    /// (setUnchangedReuse()) are stale, so it is counted again at once.
    void rescanFile(const QString& path);
    /// The counts the open queue's table just showed: the sidebar says the
    /// same as the status chips, not what its last scan saw. Until
    /// clearLiveCounts(), the scans' counts of that row give way to these
    /// (a scan a moment after the chips showed other numbers for the same
    /// queue in the same window).
    void setLiveCounts(const QString& path, const QString& table, const QString& queueName,
                       const core::Counts& counts);
    /// The window shows no queue now (closed, or another file): every row
    /// shows its scans' counts.
    void clearLiveCounts();
    /// Row of (path, table[, named queue]); an empty table matches the
    /// file's first row, an empty queue name its total row.
    int rowOf(const QString& path, const QString& table = {}, const QString& queueName = {}) const;
    const core::FleetEntry* entryAt(int row) const;
    Health healthAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

signals:
    /// A scan was merged into the rows.
    void scanned();

private:
    struct Row {
        core::FleetEntry entry;
        Health health;
        QStringList healthReasons;
        core::TimeNs failuresRoseAt = 0; ///< 0: never seen rising
        QString summaryText;             ///< summary(), made once per change of the entry
    };
    struct ScanResult;
    /// The counts the window's table showed last (setLiveCounts()).
    struct LiveCounts {
        std::string path; ///< queueKey()
        std::string table;
        std::string queueName;
        core::Counts counts;
    };

    void startScan();
    /// `e`'s counts are the window's where it is the row they are for.
    void useLiveCounts(core::FleetEntry& e) const;
    void applyScan(ScanResult&& r);
    /// The row's health and its summary (both follow the entry).
    void computeHealth(Row& row, const Row* previous, core::TimeNs now) const;
    core::TimeNs now() const;
    QString displayName(const Row& r) const;
    QString summary(const Row& r) const;
    QString toolTip(const Row& r) const;

    QStringList m_files;
    QStringList m_folders;
    std::vector<Row> m_rows;
    std::optional<LiveCounts> m_live;
    core::Clock m_clock;
    int m_stuckSeconds = core::kDefaultStuckAfterSeconds;
    int m_backlogSeconds = 600;
    int m_failuresHoldSeconds = 60;
    int m_intervalMs = 2500;

    /// The sessions of the ssh:// folders (used by the scan worker only).
    std::shared_ptr<RemoteFolders> m_remote;
    QThreadPool m_pool; ///< one thread: scans never overlap
    FileWatcher* m_watcher;
    QTimer m_timer;
    bool m_running = false;
    bool m_pending = false;
    bool m_fullPending = false; ///< the pending scan rereads every file
    quint64 m_generation = 0;   ///< bumped when the file set changes
    int m_scanCount = 0;
    qint64 m_lastScanMs = 0;

public:
    struct CachedScan;

private:
    /// A database's scan (on the scan worker): through the session kept in
    /// its cached scan, read again when due (core::scanDatabase); its
    /// entries appended to `out` and its scan put in `cache`. True when the
    /// last entries were reused.
    static bool scanDatabase(const std::string& url, const std::map<std::string, CachedScan>* old,
                             bool forced, core::TimeNs stuckNs, core::TimeNs t, qint64 maxAgeMs,
                             std::map<std::string, CachedScan>& cache,
                             std::vector<core::FleetEntry>& out);
    /// The last scan of each local file (setUnchangedReuse()); the scan
    /// worker gets a copy and hands back the new one.
    std::shared_ptr<const std::map<std::string, CachedScan>> m_scanCache;
    /// Files written by us since the last scan began: never reused.
    std::set<std::string> m_forced;
    qint64 m_reuseMinCostMs = 25; ///< at the 2.5 s scan interval: within the pace
    qint64 m_reuseMaxAgeMs = 600000;
    int m_reusedLastScan = 0;

    QIcon m_okIcon;
    QIcon m_warnIcon;
    QIcon m_stuckIcon;
    QIcon m_skippedIcon;
};

Q_DECLARE_OPERATORS_FOR_FLAGS(FleetModel::Health)

} // namespace lq::ui
