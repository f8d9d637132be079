// SPDX-License-Identifier: MIT
#pragma once

// lq::core::StateModel — the one account of a queue's jobs that every view
// renders: the window's chips, sidebar rows and dashboard cards, lqctl's
// --json, watch and fleet, Prometheus and the remote protocol.
//
// Every job is in exactly one state of the PARTITION: a canonical state
// (ready, scheduled, locked, done, failed; unknown for rows the format cannot
// classify) or one of the format's own exclusive states (Solid Queue's
// blocked, Oban's retryable, goqite's dead_letter, ...). The partition sums
// to the rows stored. SUB-COUNTS are parts of one or more partition states
// (stuck and locked_expired inside locked, liteque's pending_retry inside
// ready or scheduled) and are never added to it. docs/FORMATS.md lists each
// format's states in the library's words.

#include "message.h"
#include "query.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lq::core {

class QueueFormat;
struct TimingColumns;

/// One state of a format's partition.
struct PartitionState {
    std::string name;           ///< lower case, as on the wire: "ready", "blocked"
    std::optional<State> state; ///< the State a row in it has, for canonical ones
    bool canonical = false;     ///< one of ready/scheduled/locked/done/failed/unknown
    /// A failure of the format's own (goqite's dead letters): health and
    /// the attention banner count it with failed.
    bool attention = false;
};

/// A sub-count: part of the partition states named in `within`.
struct SubState {
    std::string name;                ///< "stuck", "locked_expired", "pending_retry"
    std::vector<std::string> within; ///< partition state names
    std::string description;
};

struct StateModel {
    struct Entry {
        PartitionState state;
        std::int64_t count = 0;
    };
    struct Sub {
        SubState state;
        std::int64_t count = 0;
    };
    std::vector<Entry> partition; ///< in display order; sums to stored
    std::vector<Sub> subCounts;   ///< stuck first, then the format's nested states
    std::int64_t stored = 0;

    /// The count of partition state `name`; 0 for a name the format lacks.
    std::int64_t count(std::string_view name) const;
    /// The count of sub-count `name`; 0 when none.
    std::int64_t subCount(std::string_view name) const;
    /// The sum of the partition (== stored for counts read in one pass).
    std::int64_t sum() const;
    /// Jobs a worker may take now or holds: ready + locked.
    std::int64_t active() const { return count("ready") + count("locked"); }
    /// Jobs that need an operator: failed and the exclusive states that are
    /// failures of the format's own (dead letters), plus stuck.
    std::int64_t needingAttention() const;
};

/// The canonical wire names, in the order --json prints them: ready,
/// scheduled, locked, done, failed. They are printed for every format (0
/// where the format has no such state); unknown follows when it holds rows.
const std::vector<std::string>& canonicalStateNames();

/// The partition's states of `format`, in display order: its canonical
/// states (QueueFormat::states(); a lease is "locked"), then its exclusive
/// ones (QueueFormat::extraStates() whose `within` is empty).
std::vector<PartitionState> partitionStates(const QueueFormat& format);
/// The sub-counts `format` has: "stuck" (locked past the stuck rule), then
/// its nested states (extraStates() with a `within`).
std::vector<SubState> subStates(const QueueFormat& format);

/// The partition's name of state `s` in `format`: the library's own word
/// (QueueFormat::stateWord) or the canonical lower-case name; a lease is
/// "locked".
std::string partitionName(const QueueFormat& format, State s);
/// The State of the rows in partition state `name` of `format` (nullopt for
/// the format's own exclusive states, which filters name as such).
std::optional<State> stateOfName(const QueueFormat& format, std::string_view name);

/// The counts of a timing scan's rows `cols` read at `now`, as the format's
/// own counts read them: the whole, and with `byQueue` each named queue's
/// (the scan read with the queue column). One pass for every count a view
/// shows. nullopt where the scan does not carry every state the format
/// counts: a format with states of its own (other than locked_expired,
/// which is stuck) whose timing rows leave TimingColumns::extra empty, or
/// a scan without the queue column.
std::optional<CountsWithQueues> countsOfScan(const QueueFormat& format, const TimingColumns& cols,
                                             TimeNs now, TimeNs stuckAfterNs, bool byQueue);

/// The model of counts `c` read from a file of `format`.
StateModel stateModel(const QueueFormat& format, const Counts& c);

/// The partition states prune deletes on a file of `format` (its pruner's
/// rules; without FAILED when `includeFailed` is false), by wire name.
std::vector<std::string> pruneStateNames(const QueueFormat& format, bool includeFailed);

} // namespace lq::core
