// SPDX-License-Identifier: MIT
#pragma once

#include "core/formats/queueformat.h"
#include "core/message.h"
#include "core/packedcolumn.h"
#include "core/query.h"
#include "ui/rowcache.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QFont>
#include <QHash>
#include <QIcon>
#include <QSet>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace lq::core {
class QueueBackend;
class Queue;
} // namespace lq::core

namespace lq::ui {

class MessageLoader;
struct BlockResult;
struct PollRequest;
struct PollResult;

/// Every matching rowid in table order, packed (PackedColumn): ten million
/// rows hold 20-30 MB instead of 80.
using Ordering = core::PackedColumn;

/// The message table of one queue file: a model that receives data.
///
/// The row count is exact: the loader computes the ordering (every matching
/// rowid in sort order), which maps any position to a rowid in O(1). Rows
/// load in blocks of kBlockSize on first access into a bounded LRU cache
/// (RowCache); data() for a row not loaded yet shows a placeholder and asks
/// the loader for its block. No queue call runs on the UI thread.
///
/// Live refresh (docs/ARCHITECTURE.md) is MessageLoader's: it watches the file and
/// polls, and hands over typed results: counts, a new ordering (a reset) or
/// an edit script (rows removed and inserted become remove/insert ranges),
/// rows changed in place (dataChanged), the file's state. The model applies
/// them; only a large change resets it.
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
        // The fields a format declares (QueueFormat::fields()); hidden for
        // formats without them. The claim token text shows in Claim, the
        // stored state in Status.
        Queue,
        Job,
        Priority,
        Attempts,
        Error,
        ScheduledAt,
        LeaseExpiry,
        ColumnCount
    };
    Q_ENUM(Column)

    enum Role {
        MessageIdRole = Qt::UserRole + 1, ///< QString
        TokenRole,                        ///< qint64 claim token (docs/FORMATS.md#the-state-model)
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

    static constexpr int kBlockSize = RowCache::kBlockSize;
    /// Appending more rows than this after a first page is a reset (see
    /// applyPoll): QHeaderView's cost per inserted section.
    static constexpr int kMaxInsertedRows = 50000;
    static constexpr int kMaxBlocks = RowCache::kMaxBlocks;
    /// Rows the view holds at most: an ordering longer than this is shown
    /// through a window of this many rows that moves with the scrolling
    /// (QHeaderView keeps 8 bytes and a loop turn per row: ten million rows
    /// were 80 MB and a 280 ms reset on the UI thread).
    static constexpr int kWindowRows = 1 << 18;
    /// Payload bytes kept per cached row (enough for the preview).
    static constexpr std::size_t kCachedPayloadBytes = 1024;

    explicit MessageModel(QObject* parent = nullptr);
    ~MessageModel() override;

    /// Shows another queue (nullptr: none) whose file is `path`. Resets the
    /// model.
    void setBackend(std::shared_ptr<core::QueueBackend> backend, const QString& path = {});
    /// setBackend() over a queue open here.
    void setQueue(std::shared_ptr<core::Queue> queue, const QString& path = {});
    std::shared_ptr<core::QueueBackend> backend() const;

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
    bool liveRefresh() const;
    /// Polls as soon as the worker is free and recomputes even if
    /// data_version did not move.
    void refreshNow();

    /// The cached row at `row`, or nullptr when its block is not loaded.
    const MessageRow* rowAt(int row) const;
    qint64 rowIdAt(int row) const;
    /// Position of a rowid in the current ordering (linear), -1 if absent.
    int positionOfRowId(qint64 rowid) const;

    /// Rows in the ordering; rowCount() shows at most windowRows() of them,
    /// from ordering position windowStart() on.
    int orderedRows() const;
    int windowStart() const { return m_windowStart; }
    int windowRows() const { return m_windowRows; }
    bool isWindowed() const { return orderedRows() > m_windowRows; }
    /// Moves the window to start at ordering position `start` (clamped) as a
    /// layout change: the rows still inside keep their persistent indexes
    /// (the selection, the current row).
    void setWindowStart(int start);
    /// The view row of ordering position `pos`, moving the window to centre
    /// it when it lies outside; -1 when there is no such position.
    int rowOfPosition(int pos);
    /// A smaller window (tests); takes effect with the next ordering.
    void setWindowRows(int rows);
    /// The window rows the view shows, [first, last] (empty when hidden):
    /// a live peek re-reads those, and the other cached rows are read again
    /// as they come into view. Unset: every cached row counts as shown.
    using ShownRows = std::function<std::pair<int, int>()>;
    void setShownRows(ShownRows rows) { m_shownRows = std::move(rows); }
    /// Finds the row of a message id in a worker; answers with located().
    void locate(const QString& messageId);

    core::Counts counts() const { return m_counts; }
    bool hasOrdering() const { return m_hasOrdering; }
    /// The rows shown are a reset's first page, ahead of its ordering: how
    /// many rows the ordering has is not known yet.
    bool isProvisional() const { return m_provisional; }
    /// No ordering or poll job running or queued (for tests).
    bool isIdle() const;
    /// What the operator asked for is on screen: no reset or forced poll
    /// running or queued, no block of rows on its way (MessageLoader::isSettled).
    bool isSettled() const;
    QDateTime lastRefresh() const { return m_lastRefresh; }
    qint64 walBytes() const;
    FileState fileState() const;
    /// Wall time of the last ordering job (ms), for the status bar.
    qint64 lastJobMs() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
    static bool isSortable(int column);
    /// The format field a column shows (Queue..LeaseExpiry), if any.
    static std::optional<core::QueueFormat::Field> fieldOf(int column);
    /// Whether the open file's format has what `column` shows.
    bool hasColumn(int column) const;

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
    /// A reset's first rows are shown, ahead of the whole ordering.
    void firstRowsShown();
    void fileStateChanged(lq::ui::MessageModel::FileState state);
    void errorOccurred(const QString& message);
    void located(const QString& messageId, int row);

private:
    PollRequest pollRequest(bool reset) const;
    void applyPoll(PollResult& r, bool reset, bool moved);
    void mergeOrdering(PollResult& r);
    void installOrdering(std::shared_ptr<Ordering> order);
    /// m_order = `next`; the ordering it replaces is dropped by dropOrdering().
    void replaceOrder(std::shared_ptr<Ordering> next);
    /// Drops an ordering no longer shown: a large one that nothing else
    /// holds is freed off the UI thread (unpacked, ten million rows were an
    /// 80 MB, 10-50 ms munmap: a stall in every sort, filter and refresh).
    static void dropOrdering(std::shared_ptr<const Ordering> old);
    void applyEarlyRows(quint64 generation, quint64 layout, const std::vector<MessageRow>& rows);
    void markOthersStale(quint64 generation, quint64 layout, const QSet<qint64>& shown);
    void applyFirstRows(quint64 generation, std::vector<MessageRow>& rows);
    void requestBlock(int block) const;
    void applyBlock(BlockResult& r);
    void emitTimeColumnsChanged();
    /// dataChanged for ordering positions [first, first + count), clipped to
    /// the window.
    void emitPositionsChanged(int first, int count);
    /// Where a merged ordering's window starts, and the persistent indexes
    /// moved with it (a windowed ordering changes as a layout change).
    void mergeWindowed(PollResult& r);
    /// One layout change, windowed: `install` puts the new ordering in place
    /// (if any), the window starts at `start`, and each persistent index
    /// goes to the row of positionAfter(its old ordering position), or away
    /// when that lies outside the window (-1: the row is gone).
    void moveWindow(int start, const std::function<int(int)>& positionAfter,
                    const std::function<void()>& install);
    core::TimeNs stuckNs() const;
    QVariant displayData(const MessageRow& r, int column) const;
    /// formats with a schedule: the same columns show run_at, locked_until, the
    /// lease remaining and attempts (see headerData()).
    QVariant toolTipData(const MessageRow& r, int column) const;
    /// The declared-field columns (Queue..LeaseExpiry) and Claim's text token.
    QVariant fieldDisplayData(const core::Message& m, int column) const;
    QVariant fieldToolTip(const core::Message& m, int column) const;
    QVariant fieldHeader(int section, int role) const;
    bool hasField(core::QueueFormat::Field f) const;
    bool isStuck(const core::Message& m) const;

    MessageLoader* m_loader = nullptr; ///< owned; deleted first (it waits for its worker)
    core::Filter m_filter;
    core::Sort m_sort;
    int m_stuckSeconds = core::kDefaultStuckAfterSeconds;
    bool m_utc = false;
    /// The open format's declared fields and their labels (empty: none).
    const core::QueueFormat* m_format = nullptr;
    std::vector<core::QueueFormat::Field> m_fields;

    quint64 m_layout = 0;  ///< bumped by every change of the ordering
    int m_windowStart = 0; ///< ordering position of view row 0
    int m_windowRows = kWindowRows;
    ShownRows m_shownRows;
    std::shared_ptr<Ordering> m_order;
    /// While mergeOrdering() replays an edit script: the rows shown are
    /// `base` without the `skip` runs ((first, count) in base positions,
    /// ascending), `rows` of them.
    struct EditView {
        std::shared_ptr<const Ordering> base;
        std::vector<std::pair<int, int>> skip;
        int rows = 0;
    };
    std::optional<EditView> m_edit;
    /// A locate() in flight: the ordering the worker searches, and how many
    /// times it was asked again because the shown ordering changed first.
    struct Locating {
        std::weak_ptr<const Ordering> order;
        int retries = 0;
    };
    QHash<QString, Locating> m_locating;
    static constexpr int kLocateRetries = 3;
    bool m_hasOrdering = false;
    qint64 m_warmedRows = 0; ///< the largest ordering warmHeapForRows() prepared
    /// Rows shown are a reset's first page only; the ordering is coming.
    bool m_provisional = false;
    core::Counts m_counts;
    quint64 m_exactCountsOf = 0; ///< the loader generation m_counts were read in exactly
    QDateTime m_lastRefresh;
    /// Mutable: data() fills it on demand.
    mutable RowCache m_cache;

    QIcon m_stuckIcon;
    QFont m_fixedFont; ///< ids and claims
    QFont m_boldFont;  ///< the state
    QHash<int, QIcon> m_stateIcons;
};

} // namespace lq::ui
