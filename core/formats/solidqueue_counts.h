// SPDX-License-Identifier: MIT
#pragma once

// Solid Queue's counts read table by table (solidqueue_counts.cpp): the
// sizes of the execution tables, proven in the same read to be the figures
// of the one pass over the jobs (SolidQueueDriver::countsByJob), for the
// whole file or a range of job ids (a chunk of Queue::counts); and the
// timing scan (Queue::timing) read the same way, each unfinished job from
// the one table that holds it.

#include "../query.h"
#include "../sqlite.h"
#include "driver.h"

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lq::core::solidqueue {

/// The fields Solid Queue's counts derive: blocked present (0 where none),
/// locked_expired, leased and expired from stuck. Every count read from the
/// tables ends with it (a count from the timing scan: countsOfScan()).
void completeCounts(Counts& c);

class TableCounts {
public:
    using Range = std::pair<std::int64_t, std::int64_t>; ///< job ids, both ends in
    /// `executions`: ready, claimed, failed, scheduled and, when the file has
    /// it, blocked, in that order.
    explicit TableCounts(const std::vector<std::string>& executions);
    /// Every job id there can be: the whole file.
    static Range everyJob();

    /// The counts of the jobs in `range` at `now`; nullopt when they are not
    /// proven (then nothing but the proof was read).
    std::optional<Counts> counts(Connection& r, TimeNs now, Range range) const;
    /// The same per queue_name (a NULL name: the key nullopt).
    std::optional<FormatDriver::QueueCountsMap> byQueue(Connection& r, TimeNs now,
                                                        Range range) const;
    /// The timing scan of the jobs in `range` (FormatDriver::rangeTiming):
    /// finished jobs from the jobs table, the others from the table that
    /// holds each; false when not proven (then no row given).
    bool timing(Connection& r, Range range, bool withQueue, const FormatDriver::RowSink& row) const;
    /// The print of what timing() reads for `range` (FormatDriver::rangePrint),
    /// the claims' processes as it joins them; nullopt when the schema is
    /// not proven.
    std::optional<std::uint64_t> print(Connection& r, Range range) const;

private:
    /// The schema version when the ids are proven rowids (schemaSql() in
    /// the .cpp), nullopt when they are not. Unless `fresh`, the version
    /// last proven, without a read: each statement checks it in its own
    /// read (withSchema()).
    std::optional<std::int64_t> schemaOk(Connection& r, bool fresh) const;
    /// `run(version, moved)` with the version of schemaOk(), and once more
    /// with a fresh one when it sets `moved` (its statement found the
    /// schema at another version); nothing when the schema is not proven.
    template <class Run>
    auto withSchema(Connection& r, const Run& run) const
        -> decltype(run(std::int64_t{}, std::declval<bool&>()));

    std::string m_schema;
    mutable std::mutex m_mutex;
    mutable std::optional<std::pair<std::int64_t, bool>> m_checked; ///< version, ok
    std::string m_counts;
    std::string m_byQueue;
    std::string m_timing[2]; ///< without, with the queue column
    std::string m_print;
    std::size_t m_tables = 0;
};

} // namespace lq::core::solidqueue
