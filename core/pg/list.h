// SPDX-License-Identifier: MIT
#pragma once

// The jobs of Solid Queue, Oban and River on PostgreSQL as the browser lists
// them (issue 41): the same lq::core::Message, state and extra state as
// their SQLite drivers read (core/formats/solidqueue_sql.cpp,
// core/formats/jobtable.cpp), filtered and ordered in the server by one
// read-only statement each. The row's state is computed once, in SQL, and
// both the filter and the Message read it, so a filter and the state shown
// never disagree.
//
// Every Filter field is a condition in the statement: a JSON condition
// (Filter::where) and a latency band (Filter::metric) by the SQLite
// engine's rules (core/query_json.cpp, the drivers' metricCondition()),
// over the payload as jsonb. Message::tokenText is the claim as read
// here ("executing, attempt 2, 2026-…"; Solid Queue: "claimed execution
// 41"), Message::token its hash: what an action on PostgreSQL will compare.

#include "../clock.h"
#include "../format.h"
#include "../message.h"
#include "../processes.h"
#include "../query.h"
#include "../recurring.h"
#include "../stats.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lq::core::pg {

class Connection;
struct Found;

/// True for the libraries listed here ("solid-queue", "oban", "river",
/// "graphile-worker", "good-job", "pg-boss").
bool listSupported(const std::string& library);

/// Whether the library keys its jobs by UUID (GoodJob, pg-boss): the
/// browser's integer id of such a job is uuidRowidOf() its UUID, and
/// Message::messageId is the UUID.
bool keyedByUuid(const std::string& library);

/// The JSON fields a Filter::where may name in `library`'s jobs, in the
/// words of its SQLite driver where it has one.
std::vector<std::string> jsonFieldNames(const std::string& library);

/// GoodJob's advisory lock key for `keyText` (SQL text, e.g. "'good_jobs-'
/// || id::text"), as a SQL bit(64): its advisory_lock_bigint_sql, the first
/// 64 bits of the md5 (app/models/concerns/good_job/advisory_lockable.rb);
/// its halves are pg_locks' classid and objid. What reads look up and
/// actions take.
std::string goodJobLockKey(const std::string& keyText);
/// SQL: an advisory lock on GoodJob's key for `keyText` is granted to some
/// session (read from pg_locks, never taken).
std::string advisoryHeld(const std::string& keyText);
/// The integer id of a job keyed by `uuid`: its first 60 bits (15 hex
/// digits), so that the UUIDs of one id are one range of the primary key.
/// Two jobs whose UUIDs share those bits would share an id (the browser
/// then shows one of them): for random (version 4) UUIDs, 56 of those bits
/// are random, so that becomes likely only past about 2^28 (268 million)
/// jobs. No value for text that is not a UUID.
std::optional<std::int64_t> uuidRowidOf(const std::string& uuid);

/// The counts of a library without a counting statement of its own
/// (Graphile Worker): one GROUP BY over its derived table, by the state
/// and extra state the listing shows. `queue` non-empty: that named queue.
Counts countByState(Connection& c, const Found& lib, TimeNs now, const std::string& queue);

/// The ids of the jobs `f` matches at `now`, in `s`'s order (ties by id),
/// at most `limit` of them when given.
std::vector<std::int64_t> orderedIds(Connection& c, const Found& lib, const Filter& f,
                                     const Sort& s, TimeNs now,
                                     std::optional<std::int64_t> limit = std::nullopt);

/// The jobs with these ids, in the order given (an id no longer stored is
/// left out).
std::vector<Message> readJobs(Connection& c, const Found& lib, const std::vector<std::int64_t>& ids,
                              TimeNs now);

/// Jobs [offset, offset + limit) of those `f` matches, in `s`'s order.
std::vector<Message> firstJobs(Connection& c, const Found& lib, const Filter& f, const Sort& s,
                               TimeNs now, std::int64_t limit, std::int64_t offset = 0);

/// How many jobs `f` matches.
std::int64_t countJobs(Connection& c, const Found& lib, const Filter& f, TimeNs now);

/// The named queues the library records as paused, by name: Solid Queue's
/// solid_queue_pauses, River's river_queue.paused_at (Oban keeps none in
/// its table).
std::vector<PausedQueue> readPausedQueues(Connection& c, const Found& lib);
/// Solid Queue's processes at `now` with the claims each holds, by the
/// rule the file's driver follows (solidqueue::processList); "not read
/// yet" for the other libraries.
ProcessList readProcesses(Connection& c, const Found& lib, TimeNs now);
/// Solid Queue's recurring tasks with their last, next and missed runs at
/// `now` (solidqueue::scheduleTask); "not read yet" for the others.
RecurringList readRecurring(Connection& c, const Found& lib, const FormatInfo& info, TimeNs now,
                            int tzOffset);

/// A time column as integer ns since the epoch, in SQL (a `timestamp
/// without time zone` is read as UTC, which is how these libraries store
/// it).
std::string ns(const std::string& col);

/// The timing columns of the jobs `f` matches at `now` (every job: the
/// dashboard's and the queue overview's one scan; a filter: lqctl stats),
/// with each job's named queue when `withQueues`.
TimingColumns readTiming(Connection& c, const Found& lib, TimeNs now, bool withQueues,
                         const Filter& f = {});

} // namespace lq::core::pg
