// SPDX-License-Identifier: MIT
#pragma once

#include "clock.h"
#include "packedcolumn.h"
#include "query.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lq::core {

/// Nearest-rank summary of one metric (docs/FORMATS.md#times): the p-th percentile of N
/// sorted values is the value at rank ceil(p/100 * N).
struct Summary {
    std::int64_t count = 0;
    std::optional<TimeNs> min, p50, p90, p95, p99, max;
    double mean = 0;
};

/// Nearest-rank percentile of already sorted values; empty when none.
std::optional<TimeNs> nearestRank(std::span<const TimeNs> sorted, double p);
/// Summarises `values` (reorders them in place).
Summary summarize(std::vector<TimeNs>& values);

/// Log-scale histogram from 1 ms to about 10 days: bucket i covers
/// [edge(i), edge(i+1)); bucket 0 also takes everything below 1 ms and the
/// last bucket everything above.
struct Histogram {
    std::vector<TimeNs> edges; ///< size = counts.size() + 1
    std::vector<std::int64_t> counts;
    std::int64_t total() const;
};
/// `perDecade` buckets per factor of ten (default 4: 1, 1.8, 3.2, 5.6 ms, ...).
Histogram logHistogram(std::span<const TimeNs> values, int perDecade = 4);

/// One time bucket of the throughput / latency-over-time series.
struct TimeBucket {
    TimeNs start = 0;
    std::int64_t arrivals = 0;                          ///< in_time in bucket
    std::int64_t claims = 0;                            ///< lock_time in bucket
    std::int64_t completions = 0;                       ///< DONE with done_time in bucket
    std::int64_t failures = 0;                          ///< FAILED with done_time in bucket
    std::optional<TimeNs> waitP50, waitP99;             ///< by lock_time
    std::optional<TimeNs> processingP50, processingP99; ///< by done_time
};

/// Picks a bucket size (1 s, 5 s, 15 s, 1 min, 5 min, 15 min, 1 h, 6 h, 1 d)
/// so that `span` gives at most about `maxBuckets` buckets.
TimeNs chooseBucketSize(TimeNs span, int maxBuckets = 120);

/// The timing columns of the rows a Filter matched, normalised to ns; the
/// raw material of every statistic. Row i of each column is one message.
/// The times are PackedColumns (35-38 bits a value instead of 64): at ten
/// million rows the columns are what the statistics hold.
struct TimingColumns {
    std::vector<std::int8_t> state; ///< static_cast<int8_t>(State)
    PackedColumn inTime;            ///< kNoTime where NULL
    PackedColumn lockTime;
    PackedColumn doneTime;
    std::vector<std::int64_t> attempts; ///< jobs-lease only; empty otherwise
    /// Formats whose wait is claim - due (Message::waitFrom): the due time,
    /// kNoTime where unknown. Empty: wait is lock - in.
    PackedColumn dueTime;
    /// Formats with a stuck rule of their own (a lease, a heartbeat, the
    /// library's rescue age): 1 where the row is past it. Empty: stuck is
    /// LOCKED longer than the operator's threshold (litequeue).
    std::vector<std::int8_t> ownStuck;
    /// The format's own state of each row (QueueFormat::extraStates()), as
    /// an index into that list, kNoExtra where none; filled where the
    /// format's timing rows carry its own states (Solid Queue's blocked),
    /// empty otherwise.
    std::vector<std::int8_t> extra;
    /// The named queue of each row, as an index into queueNames (kNoQueue:
    /// a row in no named queue), where the scan was asked for it
    /// (Queue::timing(f, true)) and the format has named queues; empty
    /// otherwise. The per-queue overview's one scan (core/queueoverview.h).
    std::vector<std::uint32_t> queue;
    std::vector<std::string> queueNames;
    /// The first time after the scan's `now` at which a row's state or stuck
    /// flag would read otherwise with the file unchanged (a scheduled row
    /// falling due, a lease running out). A format with prints
    /// (FormatDriver::rangePrint) lowers it in timingRow(): its kept ranges
    /// are good until then (Queue's TimingCache).
    TimeNs changesAt = std::numeric_limits<TimeNs>::max();
    static constexpr std::uint32_t kNoQueue = 0xFFFFFFFFU;
    static constexpr std::int8_t kNoExtra = -1;
    static constexpr TimeNs kNoTime = PackedColumn::kNull;
    std::size_t size() const { return inTime.size(); }
};

/// Appends one row's named queue (nullopt: none) to `cols.queue`.
void appendQueueName(TimingColumns& cols, std::optional<std::string_view> name);
/// Appends the queues of `from`'s rows to `to.queue`, indexed by `to`'s names.
void appendQueues(TimingColumns& to, const TimingColumns& from);

/// Everything the dashboard and `lqctl stats` show.
struct QueueStats {
    Summary wait;          ///< lock - in (or - due, TimingColumns::dueTime), rows with lock_time
    Summary processing;    ///< done - lock, DONE rows with both
    Summary total;         ///< done - in, DONE rows
    Summary timeToFailure; ///< done - lock, FAILED rows with both
    Histogram waitHist, processingHist, totalHist, failureHist;
    std::optional<TimeNs> oldestReadyInTime; ///< backlog age = now - this
    std::optional<TimeNs> oldestLockedLockTime;
    std::int64_t doneLastHour = 0;
    std::int64_t failedLastHour = 0;
    std::optional<TimeNs> firstTime, lastTime; ///< span of every timestamp
};

/// What a refresh of the exporter or `stats --prometheus` shows of a queue:
/// its counts, whole and by named queue, and its latency statistics.
struct CountsAndStats {
    CountsWithQueues counts;
    QueueStats stats;
};

/// A format's own state as the counts tally TimingColumns::extra: its name
/// in Counts::extra, and whether it is in no canonical state (its rows are
/// counted there only).
struct ExtraTally {
    std::string name;
    bool exclusive = false;
};

/// The counts of the rows in `cols` (the same numbers Queue::counts() reads,
/// from columns already in memory). Stuck follows the format's own rule
/// where the columns carry it (ownStuck), else `stuckAfterNs`. Where the
/// columns carry the format's own states (`extra`), `extras` names them by
/// index, each counted (0 where no row is in it).
Counts countsFrom(const TimingColumns& cols, TimeNs now, TimeNs stuckAfterNs,
                  const std::vector<ExtraTally>& extras = {});
/// The counts of each named queue of `cols` (read with the queue column),
/// by name, in the same pass as countsFrom(): rows in no named queue count
/// in none.
std::vector<std::pair<std::string, Counts>>
countsByQueueFrom(const TimingColumns& cols, TimeNs now, TimeNs stuckAfterNs,
                  const std::vector<ExtraTally>& extras = {});

/// Computes QueueStats from the columns at `now`.
QueueStats computeStats(const TimingColumns& cols, TimeNs now);
/// Throughput and latency-over-time series over [from, to) in buckets of
/// `bucket` ns.
std::vector<TimeBucket> computeSeries(const TimingColumns& cols, TimeNs from, TimeNs to,
                                      TimeNs bucket);

} // namespace lq::core
