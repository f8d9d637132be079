// SPDX-License-Identifier: MIT
#pragma once

// What the actions of each library on PostgreSQL share (core/pg/actions.cpp)
// and Solid Queue's own writes (core/pg/actions_solidqueue.cpp). Internal
// to core/pg.

#include "actions.h"
#include "connection.h"

#include <optional>
#include <string>
#include <vector>

namespace lq::core::pg::detail {

/// `table` of the queue's schema, quoted.
std::string qualifiedTable(const ChunkContext& x, const std::string& table);

/// `now` as a timestamp literal, to the microsecond PostgreSQL keeps
/// (truncated, as the libraries' own clocks write it on SQLite).
std::string pgTime(TimeNs now);

/// Rows changed by `sql` (which ends in RETURNING id).
std::int64_t changed(const ChunkContext& x, const std::string& sql,
                     const std::vector<Param>& params);

/// The skip reason of a row a worker's transaction holds right now.
extern const char* const kInUse;

// ---- Solid Queue: a job is its row in solid_queue_jobs and the one
// execution row that holds its state (solidqueue_sql.cpp on SQLite) ----

/// The columns of solid_queue_jobs an action writes (what undo writes back).
extern const char* const kSolidQueueWritten;

/// The rows of job `m` an action may change, as undo writes them back and
/// as the format's refusal rule reads them (Message::formatRow):
/// {"job": its row, "exec": the execution row that holds it (null when
/// finished), "recurring": its recurring-execution row (or null)}, each a
/// row_to_json. The execution row is taken FOR UPDATE SKIP LOCKED: nullopt
/// with `inUse` set when a worker's transaction holds it right now, nullopt
/// alone when it is no longer there.
std::optional<std::string> solidQueueRows(const ChunkContext& x, const Message& m,
                                          const std::string& jobRow, bool& inUse);

/// Action `a` on job `m` (its formatRow from solidQueueRows()), with the
/// library's own statements: 1 when written, 0 when a guard did not hold.
std::int64_t applySolidQueue(const ChunkContext& x, Action a, const Message& m);

/// Undo on job `now` (it holds what the action left) of an update that
/// changed `before`: the execution the action made is deleted, the job's
/// written columns and its execution row are written back as stored.
std::int64_t restoreSolidQueue(const ChunkContext& x, const Message& now, const Message& before);

/// Undo of a delete: the job, its execution and its recurring-execution
/// row inserted again as stored.
void reinsertSolidQueue(const ChunkContext& x, const Message& before);

} // namespace lq::core::pg::detail
