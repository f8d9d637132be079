// SPDX-License-Identifier: MIT
#pragma once

// lq::core::PgQueue — a queue kept in PostgreSQL (issue 41, first slice):
// opened from a libpq URI or keyword string, recognised from the catalog,
// counted with the same state model and the same core types as a SQLite
// queue (FormatInfo, Counts), so that both can later stand behind one
// interface. It only reads, through one read-only session
// (core/pg/connection.h); nothing is held open between calls.
//
// What it does so far: recognition of Solid Queue, Oban, River, GoodJob,
// pg-boss and Graphile Worker; counts, named queues, listing and timing of
// Solid Queue, Oban, River and Graphile Worker; row actions on all four
// (core/pg/actions.h) through a second, writing session opened at the
// first write. GoodJob/pg-boss, their actions and LISTEN are issue 41's
// later work.

#include "../actions.h"
#include "../clock.h"
#include "../format.h"
#include "../message.h"
#include "../processes.h"
#include "../query.h"
#include "../recurring.h"
#include "../stats.h"
#include "actions.h"
#include "catalog.h"
#include "connection.h"

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace lq::core {

class PauseStore;

struct PgOpenOptions {
    Clock clock; ///< default: the system clock
    pg::Connection::Options connection;
    bool readOnly = false; ///< never write, even where lqcore could
};

class PgQueue {
public:
    /// Connects (read-only session) and recognises the queue. `?schema=`
    /// limits the search to one schema; otherwise `public` comes first,
    /// then the other schemas by name. Throws NotAQueue ("no queue
    /// library's tables in schemas a, b") and the errors of
    /// pg::Connection::open().
    static std::unique_ptr<PgQueue> open(const std::string& url, PgOpenOptions opts = {});

    /// The database, by its URL without any password.
    const std::string& url() const noexcept;
    /// What was recognised, as for a SQLite queue: `format` is the state
    /// model its counts fill (null for a library without counts yet),
    /// `table` its schema-qualified jobs table, `queueTables` its tables,
    /// `warnings` the other queues the database holds.
    const FormatInfo& info() const noexcept;
    /// The URL as given (it may hold a password): for a session of our own
    /// beside this one (the LISTEN of core/pg/listen.h), never shown.
    const std::string& connectUrl() const noexcept { return m_connectUrl; }
    /// The library as found in the catalog (schema, library id, tables).
    const pg::Found& found() const noexcept;
    /// "solid-queue", "oban", "river", "good-job", "pg-boss",
    /// "graphile-worker": the id lqctl prints for this queue.
    const std::string& formatId() const noexcept;
    /// Every schema looked at and every library found there.
    const pg::Catalog& catalog() const noexcept;
    /// counts() and queueNames() serve this library.
    bool countsSupported() const noexcept;
    int serverVersion() const;
    TimeNs now() const;

    /// One statement; each job once (docs/FORMATS.md#postgresql). The stuck
    /// sub-count is the library's own rule, as on SQLite, so
    /// `stuckAfterNs` is unused by these three formats. `queue` non-empty:
    /// that named queue only. Throws Unsupported for other libraries.
    Counts counts(TimeNs stuckAfterNs = kDefaultStuckAfterNs, const std::string& queue = {});
    /// pg::estimateCounts, on the second session while the first reads.
    std::optional<Counts> estimatedCounts(const std::string& queue = {});
    /// The named queues, sorted.
    std::vector<std::string> queueNames();

    /// listSupported(): the browser's reads of this library (core/pg/list.h),
    /// at the queue's clock unless the filter pins one.
    bool listSupported() const noexcept;
    std::vector<std::int64_t> orderedIds(const Filter& f, const Sort& s,
                                         std::optional<std::int64_t> limit = std::nullopt);
    std::vector<Message> jobs(const std::vector<std::int64_t>& ids);
    /// Jobs [offset, offset + limit) of `f` in `s`'s order.
    std::vector<Message> firstJobs(const Filter& f, const Sort& s, std::int64_t limit,
                                   std::int64_t offset);
    std::int64_t count(const Filter& f);
    std::optional<Message> job(const std::string& id);
    /// `queue` non-empty: that named queue's jobs only.
    TimingColumns timing(bool withQueues, const Filter& f = {});
    /// The library's tables with their indexes and TOAST, in bytes.
    std::int64_t sizeOnDisk();
    std::vector<PausedQueue> pausedQueues();
    /// The library's worker processes and their claims (Solid Queue).
    ProcessList processes();
    /// The library's recurring tasks (Solid Queue), next runs in the
    /// schedule's zone at `tzOffset` seconds from UTC.
    RecurringList recurringTasks(int tzOffset);
    /// A number that moves when the library's tables change: the sum of
    /// their insert, update and delete counters in pg_stat_user_tables
    /// (one catalog read; the server publishes a writer's counters when it
    /// commits and goes idle, at most a second apart while it stays busy).
    std::int64_t changeMarker();
    /// The channels the library notifies an insert on (core/pg/listen.h).
    std::vector<std::string> insertChannels();

    // ---- actions (core/pg/actions.h) -----------------------------------
    /// "" when row actions can be written here; else why the queue reads
    /// only (also FormatInfo::readOnlyReason).
    const std::string& whyReadOnly() const noexcept;
    /// Why `a` would skip `m` (the format's rule, the one a run applies; ""
    /// when it applies).
    std::string refusal(Action a, const Message& m) const;
    /// `a` on `targets` in chunks, one transaction each on the writing
    /// session (runInChunks; o.beforeCommit runs before each COMMIT).
    /// Throws ReadOnly before the first chunk when whyReadOnly() says so.
    ActionResult apply(Action a, const std::vector<Target>& targets, const ActionOptions& o);
    /// Writes back what a record of `original` changed, while each job
    /// still holds what the action wrote.
    ActionResult undo(Action original, const std::vector<AppliedRow>& rows, const ActionOptions& o);
    /// Pauses or resumes named queue `queue` as the library does (core/pause.h),
    /// in one transaction.
    ActionResult setPaused(const std::string& queue, bool pause, const ActionOptions& o);
    /// Recurring task `key`'s job enqueued now, as the library's Run now
    /// (core/pg/recurring.h), in one transaction.
    ActionResult runRecurring(const std::string& key, const ActionOptions& o);

    ~PgQueue();
    PgQueue(const PgQueue&) = delete;
    PgQueue& operator=(const PgQueue&) = delete;

private:
    /// The library's pause store in chunk `x`; throws where it stores none.
    std::unique_ptr<PauseStore> pauseStore(const pg::ChunkContext& x) const;
    PgQueue() = default;
    /// The library's table names as a text[] literal.
    std::string tableArray() const;

    using ChunkFn = std::function<void(const pg::ChunkContext&, std::size_t first, std::size_t n,
                                       ActionResult& part)>;
    /// runInChunks on the writing session: BEGIN, `fn`, the hook, COMMIT.
    ActionResult inChunks(Action a, std::size_t total, const ActionOptions& o, const ChunkFn& fn);
    pg::Connection& writer();

    std::mutex m_mutex; ///< one libpq connection: one statement at a time
    std::unique_ptr<pg::Connection> m_conn;
    /// A second reading session, opened the first time a quick read (the
    /// change marker, the rows on screen) finds the first one busy with a
    /// long one (the ordering of a million jobs): so a change reaches the
    /// screen without waiting for it.
    std::mutex m_quickMutex;
    std::unique_ptr<pg::Connection> m_quick;
    /// Runs `read` on the first session if it is free, else on the second.
    template <class Read> auto quickRead(Read read);
    std::string m_connectUrl; ///< as given (may hold a password): only to connect again
    pg::Connection::Options m_connOptions;
    std::mutex m_writeMutex; ///< the writing session: one chunk at a time
    std::unique_ptr<pg::Connection> m_writer;
    pg::Refusal m_refusal; ///< the format's refusal rule (no SQL); null when read-only
    std::string m_whyReadOnly;
    pg::Catalog m_catalog;
    pg::Found m_found;
    FormatInfo m_info;
    Clock m_clock;
    int m_serverVersion = 0;
};

} // namespace lq::core
