// SPDX-License-Identifier: MIT
#pragma once

// The per-queue overview (issue 39 item 6): one row per named queue of a
// file — the Queues page operators know from Mission Control and Horizon —
// with its counts (the partition every view shows, core/statemodel.h),
// whether it is paused, its throughput and its wait over a time range.
// Computed once here from one count pass and ONE scan of the timing columns
// that carries each row's queue (TimingColumns::queue), for lqctl, the GUI
// and the remote protocol (method `queue_overview`) alike.

#include "clock.h"
#include "dashboard.h"
#include "format.h"
#include "json.h"
#include "processes.h"
#include "query.h"
#include "stats.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lq::core {

class Queue;

/// One named queue (or the whole file, for a format without named queues).
struct QueueOverviewRow {
    std::string queue; ///< "" : the whole file
    bool paused = false;
    std::optional<TimeNs> pausedSince;
    /// The same numbers as Queue::counts(queue) (lqctl stats --queue Q).
    Counts counts;
    /// Jobs finished in the range, by their finish time.
    std::int64_t doneInRange = 0;
    std::int64_t failedInRange = 0;
    /// doneInRange per hour of the range; nullopt where the format keeps no
    /// finished jobs (QueueOverview::throughputNote) or the range is empty.
    std::optional<double> donePerHour;
    /// The wait (claim - enqueue, or - due: Message::waitNs) of the jobs that
    /// arrived in the range, as the dashboard computes it for the queue.
    std::int64_t waitCount = 0;
    std::optional<TimeNs> waitP50, waitP99;
    /// The oldest claimable job's wait start (backlog age = now - this).
    std::optional<TimeNs> backlogSince;
};

struct QueueOverview {
    TimeNs now = 0;
    /// The range the throughput is over: the query's, an open start taken
    /// as the file's earliest time and an open end as `now`.
    TimeNs rangeFrom = 0, rangeTo = 0;
    /// "" or why the format has no throughput (it deletes finished jobs).
    std::string throughputNote;
    /// "" or why the format has no wait.
    std::string waitNote;
    std::vector<QueueOverviewRow> rows; ///< by queue name
};

/// The overview of `full` (every row of a file, read with its queues),
/// with `counts` per queue (Queue::countsWithQueues) and the paused queues.
QueueOverview computeQueueOverview(const TimingColumns& full, TimeNs now, const DashboardQuery& q,
                                   const std::vector<std::pair<std::string, Counts>>& counts,
                                   const std::vector<PausedQueue>& paused);

/// The overview of an open queue at its clock: one count pass, one scan.
QueueOverview queueOverview(Queue& queue, const DashboardQuery& q);

/// The overview of a queue of format `info`, whatever engine read `full`
/// (with its queues), `counts` (per queue, every name) and `paused`: the
/// rows and the notes on what the format does not store.
QueueOverview queueOverviewOf(const FormatInfo& info, const TimingColumns& full, TimeNs now,
                              const DashboardQuery& q,
                              const std::vector<std::pair<std::string, Counts>>& counts,
                              const std::vector<PausedQueue>& paused);

/// On the wire (`queue_overview`, docs/PROTOCOL.md), losslessly.
Json queueOverviewJson(const QueueOverview& o);
QueueOverview queueOverviewFromJson(const Json& j);

} // namespace lq::core
