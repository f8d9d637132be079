// SPDX-License-Identifier: MIT
#pragma once

#include "clock.h"

#include <string>

namespace lq::core {

/// How soon a watcher (the table and its chips, the dashboard, the fleet
/// sidebar, the exporter, `lqctl watch`) reads a live queue file again.
///
/// Every read costs the workers something. On a rollback-journal file a
/// writer's commit waits for the read chunk that holds the file (and then
/// for SQLite's busy-handler sleep, at least a millisecond); on every file
/// the read takes CPU the workers share. So a watcher rests after each
/// read for a multiple of what that read cost: the reads of one watcher
/// then hold a rollback-journal file for at most 1/(1 + factor) of the
/// time, and one core for at most that share, whatever the file's size.
/// A small file is re-read within milliseconds of a change; a big one
/// under a busy worker waits, and the views say how old their figures
/// are. Reads the operator asks for (a filter, a sort, an action's
/// refresh, F5) are never paced.
struct ReadPacing {
    /// Rollback-journal files: a read blocks every commit, and a writer
    /// that hits one waits at least one busy-handler sleep, so a writer's
    /// p99 moves once more than about 1 % of its commits wait. Reads
    /// hold such a file for at most 1/101 of the time.
    static constexpr std::int64_t kRollbackFactor = 100;
    /// WAL files: readers never block writers; the cost is CPU (and a
    /// WAL that cannot be reset while a read is open: reads are short).
    /// LQ_WAL_READ_FACTOR=n in the environment replaces it, for comparing
    /// paces in one build (docs/BENCHMARKS.md).
    static constexpr std::int64_t kWalFactor = 10;

    /// The factor for a file in `journalMode` (as PRAGMA journal_mode
    /// says it: "wal", "delete", ...; empty: not a local file).
    static std::int64_t factorFor(const std::string& journalMode);
    /// The rest after a read that took `costNs`: `factor` times it,
    /// within [minNs, maxNs].
    static TimeNs restAfter(TimeNs costNs, std::int64_t factor, TimeNs minNs = 0,
                            TimeNs maxNs = INT64_MAX);
};

/// One watcher's pace: when its last paced read ended and what it cost.
/// Not thread-safe; times are steady-clock nanoseconds (steadyNowNs()).
class ReadPacer {
public:
    explicit ReadPacer(std::int64_t factor = ReadPacing::kWalFactor, TimeNs maxRestNs = INT64_MAX)
        : m_factor(factor)
        , m_maxRest(maxRestNs) {}

    void setFactor(std::int64_t factor) { m_factor = factor; }
    std::int64_t factor() const { return m_factor; }
    /// Nanoseconds until the next read may start at `nowNs` (0: now).
    TimeNs waitAt(TimeNs nowNs) const;
    /// A read ran from `startNs` to `endNs`.
    void ran(TimeNs startNs, TimeNs endNs);
    /// Forgets the last read (another file): the next read may start now.
    void reset() { m_end = 0, m_cost = 0; }
    TimeNs lastCostNs() const { return m_cost; }

private:
    std::int64_t m_factor;
    TimeNs m_maxRest;
    TimeNs m_end = 0;
    TimeNs m_cost = 0;
};

/// A steady clock in nanoseconds (never goes back; not the wall time).
TimeNs steadyNowNs();

} // namespace lq::core
