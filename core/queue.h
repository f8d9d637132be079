// SPDX-License-Identifier: MIT
#pragma once

// lq::core::Queue — one queue file of any format core/formats/ knows
// (litequeue, jobs-lease, liteque, ...), plus the operator and query layers
// the GUI and lqctl share. The SQL of each format is its FormatDriver
// (core/formats/driver.h); this class is the same for every format. The
// litequeue API (put, pop, done, ...) is refused on formats whose jobs are
// written by their own library.
//
// Thread model
// ------------
// * One Queue may be used from several threads at once; every public member
//   is thread-safe.
// * Writes go through ONE write connection, opened lazily on the first
//   write (a Queue that only reads never opens the file for writing), behind
//   a recursive mutex. Each write is one transaction (BEGIN IMMEDIATE where
//   it reads before it writes).
// * Reads use a read-only connection owned by the calling thread (one per
//   thread, created on first use). Reads never see another thread's
//   uncommitted writes, except on the thread that owns an open
//   transaction(), whose reads go through the write connection.
// * No read transaction is held open between calls: every statement is
//   reset before the call returns, so checkpoints proceed and the WAL does
//   not grow because a viewer is watching.
//
// Opening never changes the file: no pragma writes, no journal-mode change,
// no migration, no file created. (For a WAL-mode file SQLite, like any
// reader, may create the -wal/-shm side files; the main file is untouched.)

#include "actions.h"
#include "clock.h"
#include "error.h"
#include "filestamp.h"
#include "format.h"
#include "message.h"
#include "processes.h"
#include "query.h"
#include "recurring.h"
#include "stats.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lq::core {

struct OpenOptions {
    /// Never open a write connection; every write throws ReadOnly.
    bool readOnly = false;
    Clock clock;              ///< default: the system clock
    int busyTimeoutMs = 5000; ///< how long to wait for a locked file
    std::string table;        ///< a multi file: which queue table
    /// Library settings the file does not store (goqite's maxReceive,
    /// backlite's ReleaseAfter); 0 fields take the library's default.
    FormatSettings settings;
    /// On a file not in WAL mode, a long read (counts, orderings, timing)
    /// is split into reads of at most this many rows, each its own read
    /// transaction, so a writer waits for one chunk, never for the whole
    /// scan (a reader's SHARED lock blocks a rollback-journal commit).
    /// 0: one read.
    std::int64_t scanChunkRows = 32768;
    /// The same in WAL mode, where readers never block writers but a read
    /// open across a writer's checkpoint keeps the WAL from restarting at
    /// its beginning, so it grows by what the writers write meanwhile. The
    /// chunks are small (a millisecond or so: the WAL grows by what a busy
    /// worker writes meanwhile), and when another connection committed
    /// during one, the next waits as long as that one took, so a commit's
    /// checkpoint finds no read open. 0: one read.
    std::int64_t walChunkRows = 512;
    /// How long one chunk's read may last, in microseconds: a chunk read
    /// faster has the next one wider (up to 64 times the rows above), one
    /// read slower the next one narrower (never below them), so the cost
    /// each read transaction carries is spread over as many rows as fit.
    /// 0: every chunk of the rows above.
    std::int64_t chunkBudgetUs = 1000;
};

struct PutItem {
    std::string data;
    std::optional<std::string> idempotencyKey;
};

class Queue {
public:
    /// Opens an existing queue file. Never creates one. Throws the errors of
    /// detectFormat() and Io for a missing path or a directory.
    static std::unique_ptr<Queue> open(const std::string& path, OpenOptions opts = {});
    /// Opens or creates a litequeue-0.14 queue. `maxsize` is immutable: on an
    /// existing file, a value other than the stored one throws
    /// InvalidArgument; nullopt means "use the stored limit" (unlimited for a
    /// new file). 0 creates a queue that accepts nothing.
    static std::unique_ptr<Queue> create(const std::string& path,
                                         std::optional<std::int64_t> maxsize = {},
                                         OpenOptions opts = {});

    ~Queue();
    Queue(const Queue&) = delete;
    Queue& operator=(const Queue&) = delete;

    const std::string& path() const noexcept;
    /// The file's format. Fixed at open; replaced (never freed while the
    /// Queue lives) by upgrade(), so a reference stays valid.
    const FormatInfo& info() const noexcept;
    /// Writes refused (asked for, or forced by the format).
    bool readOnly() const noexcept;
    TimeNs now() const;
    void setClock(Clock c);

    // ---- litequeue 0.14 API (docs/FORMATS.md#litequeue) --------------------------------
    /// `inserted` (optional) tells a new message from an idempotent replay.
    Message put(std::string_view data, std::optional<std::string> idempotencyKey = {},
                bool* inserted = nullptr);
    /// All or nothing: one transaction.
    std::vector<Message> putMany(const std::vector<PutItem>& items);
    std::optional<Message> pop();
    bool done(std::string_view messageId, std::int64_t claim);
    bool markFailed(std::string_view messageId, std::int64_t claim);
    bool retry(std::string_view messageId, std::int64_t claim);
    /// Gives LOCKED messages claimed more than `threshold` ago back (READY).
    std::int64_t retryExpired(std::chrono::nanoseconds threshold);
    /// Deletes DONE (and FAILED when includeFailed) rows finished more than
    /// `olderThan` ago (all of them when unset). Returns the count.
    std::int64_t prune(bool includeFailed = true,
                       std::optional<std::chrono::nanoseconds> olderThan = {});
    /// VACUUM; returns {bytes before, bytes after}.
    std::pair<std::int64_t, std::int64_t> vacuum();
    std::optional<Message> get(std::string_view messageId);
    /// Why `m` cannot take per-message action `a` now under this format's
    /// rules ("" when it can): what an action would skip it with.
    std::string refusal(Action a, const Message& m) const;
    std::optional<Message> peek();
    /// LOCKED messages claimed more than `threshold` ago (jobs-lease: every
    /// LEASED job).
    std::vector<Message> listLocked(std::chrono::nanoseconds threshold);
    std::vector<Message> listFailed();
    std::int64_t readyCount();
    std::int64_t lockedCount();
    std::int64_t doneCount();
    std::int64_t failedCount();
    std::int64_t activeCount();
    std::int64_t storedCount();
    std::int64_t qsize() { return readyCount(); }
    bool empty() { return readyCount() == 0; }
    bool full();
    std::optional<std::int64_t> maxsize() const { return info().maxsize; }
    /// The named queues inside the file, sorted (empty for formats without
    /// named queues, e.g. litequeue: one file, one queue).
    std::vector<std::string> queueNames();
    /// The worker processes the file records, alive or dead at `now` (the
    /// clock's now when unset) by the library's rule, or why it records none.
    ProcessList processes(std::optional<TimeNs> now = {});
    /// The recurring tasks the file records, evaluated at `now` (the clock's
    /// now when unset) with schedules that name no zone at `tzOffset`
    /// seconds east of UTC, or why it records none.
    RecurringList recurringTasks(std::optional<TimeNs> now = {}, int tzOffset = 0);
    /// The named queues the file records as paused (workers skip them).
    std::vector<PausedQueue> pausedQueues();
    /// Migrates a legacy or 0.13 file to 0.14 in one transaction (docs/FORMATS.md#litequeue).
    /// Old workers must be stopped first. No-op on 0.14.
    void upgrade();

    /// An explicit write transaction: while it lives, this thread's queue
    /// calls run inside it and other writers wait. Commits on commit(), rolls
    /// back otherwise. A guard made while another is open on this thread is
    /// a SAVEPOINT: destroyed without commit() it rolls back its own work
    /// only, and the outer guard decides about the rest.
    class TransactionGuard {
    public:
        explicit TransactionGuard(Queue& q);
        TransactionGuard(TransactionGuard&&) = delete;
        ~TransactionGuard();
        void commit();

    private:
        void release();
        Queue& m_q;
        int m_depth = 0; ///< 1: the outermost (BEGIN); deeper: a SAVEPOINT
        bool m_done = false;
        bool m_released = false;
    };
    std::unique_ptr<TransactionGuard> transaction();

    // ---- query layer ---------------------------------------------------
    Counts counts(TimeNs stuckAfterNs = kDefaultStuckAfterNs);
    /// The counts of one named queue ("" : the whole file).
    Counts counts(const std::string& queueName, TimeNs stuckAfterNs = kDefaultStuckAfterNs);
    /// The counts of the whole file and of each of its named queues (none
    /// for a format without them), in about one pass: the whole is the sum
    /// of the queues when a count(*) proves they cover every job, else it
    /// is counted on its own (a job outside every named queue, or a write
    /// between the reads).
    using CountsWithQueues = core::CountsWithQueues;
    CountsWithQueues countsWithQueues(TimeNs stuckAfterNs = kDefaultStuckAfterNs);
    std::int64_t count(const Filter& f);
    /// A page of messages in a stable order; O(offset) in SQLite, fine for
    /// the CLI. The GUI uses orderedRowids() + fetchRowids() instead.
    std::vector<Message> list(const Filter& f, const Sort& s, std::int64_t offset,
                              std::int64_t limit);
    /// Whether SQLite walks an index in this order (its plan has no temporary
    /// B-tree for the ORDER BY): then a first page costs a few ms; otherwise
    /// it costs a full scan, as the whole ordering does.
    bool sortIsIndexed(const Filter& f, const Sort& s);
    /// Every matching rowid in sort order: the precomputed ordering that
    /// gives O(page) access to any position. Once `*cancel` is set the read
    /// stops at once and throws (an Error whose SQLite code is
    /// SQLITE_INTERRUPT): a filter replaced while it was being read.
    std::vector<std::int64_t> orderedRowids(const Filter& f, const Sort& s,
                                            const std::atomic_bool* cancel = nullptr);
    /// The rows for these rowids, in the same order (missing rows skipped).
    std::vector<Message> fetchRowids(const std::vector<std::int64_t>& rowids);
    /// The timing columns of every matching row (statistics' input);
    /// `withQueue`: with each row's named queue (TimingColumns::queue).
    TimingColumns timing(const Filter& f, bool withQueue = false);
    /// What an unfiltered timing() keeps of a live file between scans
    /// (core/timingcache.h): the key ranges whose rows it holds, those rows,
    /// and the ranges it took from there instead of reading them, since
    /// the queue was opened. For tests and benchmarks.
    struct TimingReuse {
        std::size_t ranges = 0;
        std::size_t rows = 0;
        std::uint64_t hits = 0;
    };
    TimingReuse timingReuse() const;
    QueueStats stats(const Filter& f = {});
    /// countsWithQueues() (`byQueue`; else the whole queue's counts only)
    /// and stats() of the whole queue from one timing scan, where the
    /// format's timing rows carry every state it counts (countsOfScan());
    /// else the counts are read on their own. On a live file whose ranges
    /// the TimingCache keeps, the counts then cost no read of their own.
    CountsAndStats countsAndStats(TimeNs stuckAfterNs = kDefaultStuckAfterNs, bool byQueue = true);
    /// The counts of a timing scan's rows `cols` (read at `now`; with the
    /// queue column for `byQueue`) where they carry every state the format
    /// counts, else read on their own (countsWithQueues(), or counts()).
    CountsWithQueues countsOf(const TimingColumns& cols, TimeNs now, TimeNs stuckAfterNs,
                              bool byQueue);
    /// PRAGMA data_version on this thread's read connection: moves when
    /// another connection commits.
    std::int64_t dataVersion();
    /// Size of the main file and of its -wal file, in bytes (0 if missing).
    std::int64_t fileSize() const;
    std::int64_t walSize() const;

    // ---- operator layer (docs/ARCHITECTURE.md#how-a-user-action-travels–3.3)
    // --------------------------------
    /// Applies `a` to `targets`, one BEGIN IMMEDIATE transaction per chunk,
    /// with a compare-and-swap on (state, token) per row.
    ActionResult apply(Action a, const std::vector<Target>& targets, const ActionOptions& o = {});
    /// The targets a filter matches right now, with their current tokens:
    /// what the confirmation dialog counts and the action then uses.
    std::vector<Target> targetsFor(const Filter& f);
    /// Restores `applied` rows that still hold what the action wrote (same
    /// guard), chunked like apply(); returns the restored rows and the ones
    /// that moved on. A row that cannot be restored is skipped with its
    /// reason; it never stops the rest.
    ActionResult undo(Action original, const std::vector<AppliedRow>& applied,
                      const ActionOptions& o = {});
    /// Pauses (or resumes) the named queue as its library does, in one
    /// BEGIN IMMEDIATE transaction whose o.beforeCommit gets the queue's
    /// pause before and after (Action::Pause / Resume; undo() reverts it).
    /// A queue already so, or one the file cannot pause, is skipped with
    /// the reason; a format that stores no pause throws Unsupported
    /// (QueueFormat::whyNoPause()).
    ActionResult setPaused(const std::string& queueName, bool pause, const ActionOptions& o = {});
    /// Enqueues recurring task `taskKey`'s job now, as the library's own
    /// "run now" does (Action::RunRecurring), in one BEGIN IMMEDIATE
    /// transaction whose o.beforeCommit gets the job written; undo()
    /// deletes it while it is unclaimed. A task that is gone or that the
    /// library would not run is skipped with the reason; a format that
    /// records no recurring tasks throws Unsupported (QueueFormat::whyNot).
    ActionResult runRecurring(const std::string& taskKey, const ActionOptions& o = {});

    /// The file as opened: its device and inode. Every operator write
    /// (apply, undo, vacuum, upgrade, a TransactionGuard) checks, inside its
    /// transaction, that the path still names this file, and refuses with
    /// ErrorKind::FileChanged when it was deleted, replaced or moved. The
    /// library calls (put, pop, done, ...) do not: they are a worker's hot
    /// path and behave as litequeue does.
    FileStamp identity() const noexcept;
    /// Empty when the path still names the opened file; else what happened.
    std::string fileChange() const;

    /// litequeue-compatible UUIDv7 for a new message (monotonic per process).
    static std::string newMessageId(TimeNs now);

private:
    friend class TransactionGuard;
    struct Impl; ///< queue_p.h: connections, locks, the format's driver
    Queue(std::string path, OpenOptions opts);
    std::unique_ptr<Impl> d;
};

} // namespace lq::core
