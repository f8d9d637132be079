// SPDX-License-Identifier: MIT
#pragma once

// The dashboard's numbers: computed in a worker from one scan of the queue's
// timing columns (computeDashboard), shown by DashboardWidget, written as
// CSV (writeDashboardCsv).

#include "core/format.h"
#include "core/query.h"
#include "core/stats.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

namespace lq::ui {

class QueueBackend;

constexpr core::TimeNs kHour = 3600 * core::kNsPerSecond;

/// The attempts histogram's last bar is "10+".
constexpr int kMaxAttempts = 10;

/// Everything one dashboard computation produced (in the worker) and the
/// widget shows.
struct DashboardData {
    core::TimeNs now = 0; ///< the queue's clock when computed
    /// The format keeps finished history (latency charts); without it the
    /// dashboard shows its schedule (attempts, leases) instead.
    bool history = true;
    std::optional<std::int64_t> maxsize;
    core::Counts counts;
    core::QueueStats stats; ///< over the messages in the time range
    /// Whole-queue overview (the cards ignore the time range): the oldest
    /// claimable message's in_time (run_at where the format has a schedule), finished in the
    /// last hour.
    std::optional<core::TimeNs> backlogSince;
    std::int64_t doneLastHour = 0;
    std::int64_t failedLastHour = 0;
    std::int64_t totalRows = 0;                     ///< rows read from the file
    std::optional<core::TimeNs> rangeFrom, rangeTo; ///< the range asked for
    /// The charts' time span [spanFrom, spanTo) and its bucket size; the
    /// series has one bucket per `bucket` ns starting at spanFrom.
    core::TimeNs spanFrom = 0, spanTo = 0, bucket = 0;
    std::vector<core::TimeBucket> series;
    // formats without history only (no completion history is stored)
    core::Histogram scheduledAhead; ///< run_at - now of SCHEDULED jobs
    core::Summary scheduledAheadSummary;
    std::vector<std::int64_t> attempts; ///< attempts[k]: jobs with k attempts; last: k or more
    /// The newest prune of this file on record (audit log): what finished
    /// before this was deleted, so a gap in the charts is not an outage.
    std::optional<core::TimeNs> prunedBefore;
    qint64 elapsedMs = 0; ///< how long the worker took
    QString error;        ///< non-empty: the computation failed
};

/// What one computation is asked for.
struct DashboardRequest {
    std::optional<core::TimeNs> from, to; ///< the time range (open ends)
    qint64 stuckNs = 0;
};

/// Blocking (a worker's job): the whole dashboard from one scan. Errors are
/// in DashboardData::error, never thrown.
DashboardData computeDashboard(QueueBackend& q, const DashboardRequest& r);

/// The numbers on screen as CSV: the percentile table, the histograms and
/// the time series. False when the file could not be written.
bool writeDashboardCsv(const DashboardData& d, const QString& path);

} // namespace lq::ui
