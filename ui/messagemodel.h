// SPDX-License-Identifier: MIT
#pragma once

#include "core/message.h"
#include "core/query.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QHash>
#include <QIcon>
#include <QSet>
#include <QThreadPool>
#include <QTimer>

#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <vector>

namespace lq::core {
class Queue;
}

namespace lq::ui {

class FileWatcher;

/// One cached row: the message (payload cut to a preview-sized prefix, the
/// detail pane loads the rest), the payload's full size and a fingerprint of
/// everything shown, so a refresh can tell which rows changed.
struct MessageRow {
    core::Message msg;
    qint64 dataBytes = 0;
    QString preview;
    quint64 fingerprint = 0;
};

/// The message table of one queue file.
///
/// The row count is exact: a worker computes the ordering (every matching
/// rowid in sort order, Queue::orderedRowids), which maps any position to a
/// rowid in O(1). Rows load in blocks of kBlockSize on first access, from a
/// worker, into a bounded LRU cache; data() for a row not loaded yet shows a
/// placeholder and asks for its block. No lqcore call runs on the UI thread.
///
/// Live refresh (SPEC §3.5): the file, its -wal and its folder are watched
/// (plus a 2 s fallback poll). A poll asks PRAGMA data_version and recomputes
/// counts and ordering only when it moved, then merges: rows removed and
/// inserted become remove/insert ranges, rows changed in place become
/// dataChanged; only a large change resets the model. All the model's work
/// runs on one dedicated worker thread (data_version is per connection and
/// lqcore keeps one read connection per thread), so jobs never overlap and
/// a generation counter drops results that a newer request made stale.
class MessageModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        MessageId,
        Status,
        Claim,
        IdempotencyKey,
        Payload,
        Enqueued,
        Claimed,
        Finished,
        Wait,
        Processing,
        Age,
        ColumnCount
    };
    Q_ENUM(Column)

    enum Role {
        MessageIdRole = Qt::UserRole + 1, ///< QString
        TokenRole,                        ///< qint64 claim token (SPEC §3.3)
        StateRole,                        ///< int(core::State)
        StuckRole,                        ///< bool
        RowIdRole,                        ///< qint64
        LoadedRole,                       ///< bool: the row is in the cache
        PayloadBytesRole,                 ///< qint64 full payload size
        SortValueRole,                    ///< qint64 raw value of time/duration columns
    };
    Q_ENUM(Role)

    enum class FileState { Ok, Missing, Replaced };
    Q_ENUM(FileState)

    static constexpr int kBlockSize = 256;
    static constexpr int kMaxBlocks = 64;
    /// Payload bytes kept per cached row (enough for the preview).
    static constexpr std::size_t kCachedPayloadBytes = 1024;

    explicit MessageModel(QObject* parent = nullptr);
    ~MessageModel() override;

    /// Shows another queue (nullptr: none) whose file is `path`. Resets the
    /// model.
    void setQueue(std::shared_ptr<core::Queue> queue, const QString& path = {});
    std::shared_ptr<core::Queue> queue() const { return m_queue; }

    /// A new filter or sort computes a new ordering in the worker, then
    /// resets the model.
    void setFilter(const core::Filter& filter);
    core::Filter filter() const { return m_filter; }
    core::Sort sortOrder() const { return m_sort; }
    void setStuckThresholdSeconds(int seconds);
    int stuckThresholdSeconds() const { return m_stuckSeconds; }
    void setUtc(bool utc);
    bool utc() const { return m_utc; }

    /// Pauses live refresh (while a confirmation dialog is open).
    void setLiveRefresh(bool on);
    bool liveRefresh() const { return m_live; }
    /// Polls as soon as the worker is free and recomputes even if
    /// data_version did not move.
    void refreshNow();

    /// The cached row at `row`, or nullptr when its block is not loaded.
    const MessageRow* rowAt(int row) const;
    qint64 rowIdAt(int row) const;
    /// Position of a rowid in the current ordering (linear), -1 if absent.
    int rowOfRowId(qint64 rowid) const;
    /// Finds the row of a message id in a worker; answers with located().
    void locate(const QString& messageId);

    core::Counts counts() const { return m_counts; }
    bool hasOrdering() const { return m_hasOrdering; }
    /// No ordering or poll job running or queued (for tests).
    bool isIdle() const;
    QDateTime lastRefresh() const { return m_lastRefresh; }
    qint64 walBytes() const { return m_walBytes; }
    FileState fileState() const { return m_fileState; }
    /// Wall time of the last ordering job (ms), for the status bar.
    qint64 lastJobMs() const { return m_lastJobMs; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
    static bool isSortable(int column);

signals:
    void countsChanged(const lq::core::Counts& counts);
    /// A poll finished (whether or not anything changed).
    void refreshed();
    /// Shown rows were updated in place ahead of a full refresh.
    void rowsRefreshed();
    /// A poll found the file changed (the dashboard recomputes on this).
    void dataVersionChanged();
    /// A new ordering was installed after a filter, sort or file change.
    void orderingReset();
    void fileStateChanged(lq::ui::MessageModel::FileState state);
    void errorOccurred(const QString& message);
    void located(const QString& messageId, int row);

private:
    struct PollResult;
    struct BlockResult;
    struct Block {
        std::list<int>::iterator lru;
        std::vector<std::int64_t> rowids;
    };

    void kick();
    void startPoll(bool reset);
    void applyPoll(PollResult&& r, bool reset);
    void mergeOrdering(PollResult& r);
    void installOrdering(std::shared_ptr<std::vector<std::int64_t>> order);
    void applyEarlyRows(quint64 generation, quint64 layout, const std::vector<MessageRow>& rows);
    void requestBlock(int block) const;
    void applyBlock(BlockResult&& r);
    void touchBlock(int block) const;
    void evictBlocks() const;
    void clearCache();
    void emitTimeColumnsChanged();
    void armFallback();
    void onWatcherChanged();
    core::TimeNs stuckNs() const;
    QVariant displayData(const MessageRow& r, int column) const;
    /// formats with a schedule: the same columns show run_at, locked_until, the
    /// lease remaining and attempts (see headerData()).
    QVariant jobsDisplayData(const MessageRow& r, int column) const;
    bool showsSchedule() const;
    static std::optional<core::TimeNs> leaseRemaining(const core::Message& m, core::TimeNs now);
    QVariant toolTipData(const MessageRow& r, int column) const;
    bool isStuck(const core::Message& m) const;

    std::shared_ptr<core::Queue> m_queue;
    core::Filter m_filter;
    core::Sort m_sort;
    int m_stuckSeconds = core::kDefaultStuckAfterSeconds;
    bool m_utc = false;
    bool m_live = true;

    // Single worker thread: see the class comment.
    QThreadPool m_pool;
    FileWatcher* m_watcher;
    QTimer m_fallback;

    quint64 m_generation = 0; ///< bumped by every reset-worthy change
    quint64 m_layout = 0;     ///< bumped by every change of the ordering
    bool m_jobRunning = false;
    bool m_pendingReset = false;
    bool m_pendingPoll = false;
    bool m_pendingForce = false;

    std::shared_ptr<std::vector<std::int64_t>> m_order;
    bool m_hasOrdering = false;
    core::Counts m_counts;
    std::int64_t m_dataVersion = -1;
    qint64 m_fileSize = -1;
    qint64 m_fileMtime = -1;
    quint64 m_inode = 0;
    qint64 m_walBytes = 0;
    qint64 m_lastCountsMs = 0;
    qint64 m_lastJobMs = 0;
    QDateTime m_lastRefresh;
    FileState m_fileState = FileState::Ok;

    // The cache. Mutable: data() fills it on demand.
    mutable QHash<qint64, MessageRow> m_rows;
    mutable QHash<int, Block> m_blocks;
    mutable std::list<int> m_lru; ///< most recent first
    mutable QSet<int> m_pendingBlocks;
    /// Rows of the ordering that a block load did not find (deleted since):
    /// not requested again until the next ordering drops them.
    mutable QSet<qint64> m_goneRows;

    QIcon m_stuckIcon;
    QHash<int, QIcon> m_stateIcons;
};

} // namespace lq::ui
