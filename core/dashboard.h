// SPDX-License-Identifier: MIT
#pragma once

// The dashboard's figures, computed from one scan of a queue's timing
// columns: the cards' counts, the latency statistics and histograms over a
// time range, the throughput/latency series and, for formats without
// history, the schedule and attempts. Qt-free, so `lqctl serve` computes
// them on the host (protocol method `dashboard`) and sends the figures
// instead of a row per message; lqadmin's dashboard computes the same
// figures locally (ui/dashboarddata.h).

#include "format.h"
#include "query.h"
#include "stats.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace lq::core {

class Queue;

/// The dashboard's attempts histogram's last bar is "10+".
inline constexpr int kDashboardMaxAttempts = 10;

/// What one dashboard computation is asked for.
struct DashboardQuery {
    std::optional<TimeNs> from, to; ///< the time range (open ends)
    TimeNs stuckNs = 0;             ///< LOCKED longer than this is stuck
};

/// Everything computed from the timing columns (see ui::DashboardData).
struct DashboardFigures {
    TimeNs now = 0; ///< the queue's clock when computed
    /// The format keeps finished history (latency charts); without it the
    /// dashboard shows its schedule (attempts, leases) instead.
    bool history = true;
    Counts counts;
    QueueStats stats; ///< over the messages in the time range
    /// Whole-queue overview (ignores the range): the oldest claimable
    /// message's in_time (run_at where the format has a schedule), finished
    /// in the last hour.
    std::optional<TimeNs> backlogSince;
    std::int64_t doneLastHour = 0;
    std::int64_t failedLastHour = 0;
    std::int64_t totalRows = 0; ///< rows read from the file
    /// The charts' span [spanFrom, spanTo) and its bucket size; the series
    /// has one bucket per `bucket` ns starting at spanFrom.
    TimeNs spanFrom = 0, spanTo = 0, bucket = 0;
    std::vector<TimeBucket> series;
    // formats without history only
    Histogram scheduledAhead; ///< run_at - now of SCHEDULED jobs
    Summary scheduledAheadSummary;
    std::vector<std::int64_t> attempts; ///< attempts[k]: jobs with k attempts; last: k or more
};

/// The figures of `full` (every row of the queue) at `now`. `history`: the
/// latency page (QueueFormat::keepsHistory() of the file, or a format that
/// stores a wait), else the schedule and attempts.
DashboardFigures computeDashboardFigures(const TimingColumns& full, TimeNs now, bool history,
                                         const DashboardQuery& q);

/// The figures of an open queue: one scan of its timing columns at its clock.
DashboardFigures dashboardFigures(Queue& queue, const DashboardQuery& q);

/// The figures of a queue of format `info` from `full` (every row, read by
/// whatever engine holds it) at `now`; `counts` gives the counts every view
/// shows, asked for only where the format has states of its own.
DashboardFigures dashboardFiguresOf(const FormatInfo& info, const TimingColumns& full, TimeNs now,
                                    const DashboardQuery& q, const std::function<Counts()>& counts);

} // namespace lq::core
