// SPDX-License-Identifier: MIT
#pragma once

#include "core/backend.h"
#include "core/pacing.h"
#include "core/query.h"
#include "ui/messagemodel.h"

#include <QDateTime>
#include <QObject>
#include <QSet>
#include <QThreadPool>
#include <QTimer>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace lq::core {
class QueueBackend;
}

namespace lq::ui {

class FileWatcher;

/// Edit script from one ordering to the next (positions, ascending).
struct OrderDiff {
    std::vector<std::pair<int, int>> removes; ///< (first old position, count)
    std::vector<std::pair<int, int>> inserts; ///< (first new position, count)
    bool reset = false;
};

/// Runs of consecutive positions as (first, count).
void toRanges(const std::vector<int>& positions, std::vector<std::pair<int, int>>& out);

/// What a poll needs from the model when it starts.
struct PollRequest {
    quint64 layout = 0;
    core::Filter filter;
    core::Sort sort;
    core::TimeNs stuckNs = 0;
    /// (rowid, fingerprint) of every cached row (none for a reset).
    std::vector<std::pair<qint64, quint64>> cached;
    /// The same of the cached rows on screen, none while the table is
    /// hidden: what a live peek re-reads (every cached row was up to 16,384
    /// reads by rowid per change; the others are marked stale instead).
    std::vector<std::pair<qint64, quint64>> shown;
    std::shared_ptr<const Ordering> order; ///< the ordering shown
};

/// What a poll found.
struct PollResult {
    quint64 generation = 0;
    std::optional<core::Counts> counts;
    std::shared_ptr<Ordering> order; ///< set when recomputed
    bool sameOrder = false;
    OrderDiff diff;
    std::vector<MessageRow> changedRows;
    std::vector<int> changedPositions; ///< in the new ordering, ascending
    std::vector<std::int64_t> goneRowids;
    qint64 elapsedMs = 0;
    qint64 elapsedNs = 0; ///< the same, for the pace (core::ReadPacer)
    // the loader's own (file monitoring)
    QString error;
    bool busy = false;
    /// The filter cannot be read (a JSON condition naming no field of the
    /// format): said once, not retried.
    bool invalid = false;
    /// Stopped because a newer filter, sort or file superseded it.
    bool cancelled = false;
    bool changed = false;
    std::int64_t version = -1;
    core::FileStamp identity;
    qint64 walBytes = 0;
};

/// One block of rows.
struct BlockResult {
    quint64 generation = 0;
    quint64 layout = 0;
    int block = 0;
    std::vector<std::int64_t> rowids;
    std::vector<MessageRow> rows;
    QString error;
};

/// Feeds a MessageModel (compare hotspot's PerfParser feeding its models):
/// polls the queue when the file, its -wal or its folder change (plus a 2 s
/// fallback), asking dataVersion() and the file's identity, and recomputes
/// counts and the ordering only when they moved; diffs the new ordering
/// against the one shown; loads blocks of rows; finds a message's row. All
/// of it runs on one dedicated worker thread (data_version is per
/// connection and lqcore keeps one read connection per thread), so jobs
/// never overlap; results come back as typed signals, and a generation
/// counter drops results that a newer request made stale. The model only
/// applies them.
class MessageLoader : public QObject {
    Q_OBJECT
public:
    using RequestSource = std::function<PollRequest(bool reset)>;

    /// `source` snapshots the model when a poll starts.
    explicit MessageLoader(RequestSource source, QObject* parent = nullptr);
    ~MessageLoader() override;

    /// Follows another queue (nullptr: none) whose file is `path`: forgets
    /// the file state and starts with a reset.
    void setBackend(std::shared_ptr<core::QueueBackend> backend, const QString& path);
    std::shared_ptr<core::QueueBackend> backend() const { return m_backend; }

    /// Results of jobs started before this are dropped.
    quint64 newGeneration() { return ++m_generation; }
    quint64 generation() const { return m_generation; }

    /// A new ordering from scratch (filter, sort, file).
    void requestReset();
    /// A poll as soon as the worker is free; `force` recomputes even when
    /// data_version did not move.
    void requestPoll(bool force);
    void setLive(bool on);
    bool live() const { return m_live; }
    /// No poll running or queued.
    bool isIdle() const { return !m_jobRunning && !m_pendingReset && !m_pendingPoll; }
    /// Nothing the operator asked for (a filter, a sort, a file, F5, an
    /// action's re-read) is running or queued. A live re-read waiting out
    /// its pace, or running in the background, does not count: what is on
    /// screen is what was asked for.
    bool isSettled() const { return !m_pendingReset && !m_pendingForce && !m_askedRunning; }

    void loadBlock(quint64 layout, int block, std::vector<std::int64_t> rowids);
    /// Finds `messageId` and its position in `order` (the ordering shown
    /// when asked), both in a worker: a scan of up to ten million rowids.
    void locate(const QString& messageId, std::shared_ptr<const Ordering> order);

    MessageModel::FileState fileState() const { return m_fileState; }
    qint64 walBytes() const { return m_walBytes; }
    qint64 lastJobMs() const { return m_lastJobMs; }

signals:
    /// A poll of the current generation finished without error. `moved`:
    /// the file changed since the previous poll.
    void pollFinished(lq::ui::PollResult& result, bool reset, bool moved);
    /// A reset's first page, straight from the index, ahead of the ordering
    /// (the rows of positions 0..n-1 in the new order, as of that moment).
    /// The receiver may move them out: they are made for it alone.
    void firstRows(quint64 generation, std::vector<lq::ui::MessageRow>& rows);
    /// A poll's new ordering has `rows` rows; it follows with the counts
    /// (the model prepares the view's memory meanwhile: heapwarmup.h).
    void orderingSized(quint64 generation, qint64 rows);
    /// A reset's counts from the engine's statistics (a huge table on a
    /// server: QueueBackend::estimatedCounts), ahead of the exact ones.
    void countsEstimated(quint64 generation, const lq::core::Counts& counts);
    /// Phase one of a poll: shown rows that changed, ahead of the ordering.
    void earlyRows(quint64 generation, quint64 layout, const std::vector<lq::ui::MessageRow>& rows);
    /// A peek saw the file change and read again only `shown`, the rows on
    /// screen: the other cached rows are stale.
    void othersStale(quint64 generation, quint64 layout, const QSet<qint64>& shown);
    void blockLoaded(lq::ui::BlockResult& result);
    /// `rowid` is meaningful only when `found` (formats may use negative
    /// rowids: Laravel's failed jobs). `position`: its index in the ordering
    /// locate() was given, -1 when not in it.
    void located(const QString& messageId, bool found, qint64 rowid, qint64 position);
    void fileStateChanged(lq::ui::MessageModel::FileState state);
    void errorOccurred(const QString& message);

private:
    void kick();
    void startPoll(bool reset);
    void finishPoll(PollResult&& r, bool reset);
    /// While a long poll runs: re-reads the rows on screen on a thread of
    /// its own and sends those that changed (earlyRows), so a change to a
    /// shown row does not wait for the ordering and the counts.
    void startPeek();
    /// While a poll runs, peeks at the rows on screen every changePollMs()
    /// where the backend has no watcher to wake it (a database).
    void armWatch();
    void armFallback();
    /// Starts a live poll now, or when the pace allows it (core::ReadPacer):
    /// true when it started.
    bool startPacedPoll();

    RequestSource m_source;
    std::shared_ptr<core::QueueBackend> m_backend;
    QThreadPool m_pool;     ///< one thread: see the class comment
    QThreadPool m_peekPool; ///< one thread for startPeek()
    FileWatcher* m_watcher;
    QTimer m_fallback;
    /// The next live poll, when the pace holds it back.
    QTimer m_paceTimer;
    core::ReadPacer m_pacer;
    /// The peeks keep a pace of their own (a live file changes on every
    /// commit; a peek is cheap, not free), and a held-back one runs later.
    core::ReadPacer m_peekPacer;
    QTimer m_peekTimer;
    bool m_live = true;

    quint64 m_generation = 0;
    bool m_jobRunning = false;
    bool m_askedRunning = false; ///< the running job is a reset or a forced poll
    /// Set to stop the running poll's ordering (a reset supersedes it).
    std::shared_ptr<std::atomic_bool> m_pollCancel;
    bool m_pendingReset = false;
    bool m_pendingPoll = false;
    bool m_pendingForce = false;
    bool m_peekRunning = false;
    std::int64_t m_peekVersion = -1; ///< data_version on the peek thread's connection

    std::int64_t m_dataVersion = -1;
    qint64 m_fileSize = -1;
    qint64 m_fileMtime = -1;
    quint64 m_inode = 0;
    qint64 m_walBytes = 0;
    qint64 m_lastCountsMs = 0;
    /// What the last counts were for (named queue, stuck threshold), and
    /// what the running poll computes them for.
    std::optional<std::pair<std::string, qint64>> m_countsFor;
    std::pair<std::string, qint64> m_pollCountsFor;
    qint64 m_lastJobMs = 0;
    MessageModel::FileState m_fileState = MessageModel::FileState::Ok;
};

} // namespace lq::ui
