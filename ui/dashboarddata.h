// SPDX-License-Identifier: MIT
#pragma once

// The dashboard's numbers: computed in a worker from one scan of the queue's
// timing columns (computeDashboard), shown by DashboardWidget, written as
// CSV (writeDashboardCsv).

#include "core/dashboard.h"
#include "core/format.h"
#include "core/query.h"
#include "core/stats.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

namespace lq::core {
class QueueBackend;
}

namespace lq::ui {

constexpr core::TimeNs kHour = 3600 * core::kNsPerSecond;

/// The attempts histogram's last bar is "10+".
constexpr int kMaxAttempts = core::kDashboardMaxAttempts;

/// Everything one dashboard computation produced (in the worker) and the
/// widget shows: the figures computed from the queue's timing columns
/// (core/dashboard.h; on a remote queue computed on the host) and what this
/// side adds.
struct DashboardData : core::DashboardFigures {
    std::optional<std::int64_t> maxsize;
    std::optional<core::TimeNs> rangeFrom, rangeTo; ///< the range asked for
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

/// Blocking (a worker's job): the whole dashboard from one scan
/// (core::QueueBackend::dashboard). Errors are
/// in DashboardData::error, never thrown.
DashboardData computeDashboard(core::QueueBackend& q, const DashboardRequest& r);

/// The numbers on screen as CSV: the percentile table, the histograms and
/// the time series. False when the file could not be written.
bool writeDashboardCsv(const DashboardData& d, const QString& path);

} // namespace lq::ui
