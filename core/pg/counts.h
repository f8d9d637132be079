// SPDX-License-Identifier: MIT
#pragma once

// The counts of Solid Queue, Oban and River on PostgreSQL: one read-only
// statement per format, the same state model as their SQLite drivers
// (core/formats/solidqueue_sql.cpp, core/formats/jobtable.cpp): each job
// counted once, the library's own stuck rule as the stuck sub-count.

#include "../clock.h"
#include "../query.h"

#include <optional>
#include <string>
#include <vector>

namespace lq::core::pg {

class Connection;
struct Found;

/// True for the libraries counts() reads ("solid-queue", "oban", "river").
bool countsSupported(const std::string& library);

/// The id of the QueueFormat whose state model (states, extra states)
/// `library`'s counts fill ("" when none yet).
std::string stateModelFormatId(const std::string& library);

/// The counts of the jobs of `f` at `now`; `queue` non-empty: that named
/// queue only. Throws Unsupported for a library without counts yet.
Counts readCounts(Connection& c, const Found& f, TimeNs now, const std::string& queue);

/// From this many rows in the library's jobs table an exact count is read
/// only after an estimate (about 50 ms of the server's CPU per 100,000 jobs,
/// core/pg/estimate.cpp).
inline constexpr std::int64_t kEstimateFromRows = 100'000;

/// The counts of `f` (of named queue `queue` when non-empty) from the
/// server's statistics, Counts::estimated set and the stuck sub-count 0: a
/// few catalog reads, whatever the table's size. Nullopt below
/// kEstimateFromRows rows, where a library has no such estimate, or where
/// ANALYZE has never run on the columns it needs.
std::optional<Counts> estimateCounts(Connection& c, const Found& f, const std::string& queue);

/// The named queues the jobs are in, sorted (a skip scan of the library's
/// queue index, not a DISTINCT over every job).
std::vector<std::string> readQueueNames(Connection& c, const Found& f);

/// `schema`.`table` of `f`, quoted.
std::string qualified(const Found& f, const char* table);

/// Solid Queue's execution tables LEFT JOINed to its jobs `jb` (aliases r,
/// c, f, s, and b where the blocked table exists), for an unfinished job.
struct Executions {
    std::string joins;
    std::string held; ///< how many execution rows hold the job (1 when consistent)
    std::string ids;  ///< "r.id, c.id, ...": the one that holds it, by coalesce()
    bool blocked = false;
};
Executions solidQueueExecutions(const Found& f);

/// `t` as PostgreSQL reads a timestamptz: ISO 8601 UTC with microseconds.
std::string timestampText(TimeNs t);

} // namespace lq::core::pg
