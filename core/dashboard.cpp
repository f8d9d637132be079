// SPDX-License-Identifier: MIT
#include "dashboard.h"

#include "formats/queueformat.h"
#include "queue.h"
#include "statemodel.h"

#include <algorithm>

namespace lq::core {

namespace {

constexpr TimeNs kHourNs = 3600 * kNsPerSecond;

/// The rows of `full` whose in_time lies in the query's range.
TimingColumns inRange(const TimingColumns& full, const DashboardQuery& q) {
    TimingColumns ranged;
    for (std::size_t i = 0; i < full.size(); ++i) {
        const TimeNs in = full.inTime[i];
        if (in == TimingColumns::kNoTime || (q.from && in < *q.from) || (q.to && in >= *q.to)) {
            continue;
        }
        ranged.state.push_back(full.state[i]);
        ranged.inTime.push_back(in);
        ranged.lockTime.push_back(full.lockTime[i]);
        ranged.doneTime.push_back(full.doneTime[i]);
        if (!full.attempts.empty())
            ranged.attempts.push_back(full.attempts[i]);
        if (!full.dueTime.empty())
            ranged.dueTime.push_back(full.dueTime[i]);
        if (!full.ownStuck.empty())
            ranged.ownStuck.push_back(full.ownStuck[i]);
        if (!full.extra.empty())
            ranged.extra.push_back(full.extra[i]);
    }
    return ranged;
}

/// The whole-queue overview: backlog age and what finished in the last hour.
void overview(const TimingColumns& full, bool jobs, DashboardFigures& d) {
    const TimeNs hourAgo = d.now - kHourNs;
    for (std::size_t i = 0; i < full.size(); ++i) {
        const auto st = static_cast<State>(full.state[i]);
        const TimeNs in = full.inTime[i], done = full.doneTime[i];
        // A job waits from the time it became due, where the format stores
        // one (a scheduled or retried job), else from its enqueue time.
        const TimeNs due =
            full.dueTime.size() == full.size() ? full.dueTime[i] : TimingColumns::kNoTime;
        const TimeNs since = due != TimingColumns::kNoTime ? due : in;
        const bool claimable = st == State::Ready || (jobs && st == State::Expired);
        if (claimable && since != TimingColumns::kNoTime &&
            (!d.backlogSince || since < *d.backlogSince)) {
            d.backlogSince = since;
        }
        if (done != TimingColumns::kNoTime && done >= hourAgo && done <= d.now) {
            if (st == State::Done) {
                ++d.doneLastHour;
            } else if (st == State::Failed) {
                ++d.failedLastHour;
            }
        }
    }
}

/// The charts' span: the range, or the data's own extent, kept within
/// 1970..2100 so a damaged file's timestamps (anything up to ±2^63) cannot
/// overflow the bucket arithmetic; points outside are not drawn.
void chartSeries(const TimingColumns& cols, const DashboardQuery& q, DashboardFigures& d) {
    static constexpr TimeNs kChartMin = 0;
    static constexpr TimeNs kChartMax = 4'102'444'800LL * kNsPerSecond; // 2100-01-01
    const auto clampT = [](TimeNs t) { return std::clamp(t, kChartMin, kChartMax); };
    const TimeNs now = clampT(d.now);
    const TimeNs first = clampT(d.stats.firstTime.value_or(now - kHourNs));
    const TimeNs last = clampT(d.stats.lastTime.value_or(now));
    const TimeNs from = q.from ? clampT(*q.from) : first;
    TimeNs to = q.to ? clampT(*q.to) : (q.from ? std::max(now, last + 1) : last + 1);
    if (to <= from) {
        to = from + kNsPerSecond;
    }
    d.bucket = chooseBucketSize(to - from);
    // Buckets on round instants (whole minutes, hours, UTC days).
    TimeNs aligned = from - (from % d.bucket);
    if (from % d.bucket < 0) {
        aligned -= d.bucket;
    }
    d.series = computeSeries(cols, aligned, to, d.bucket);
    d.spanFrom = aligned;
    d.spanTo = aligned + static_cast<TimeNs>(d.series.size()) * d.bucket;
}

/// Formats without history: the schedule ahead and the attempts.
void schedule(const TimingColumns& cols, DashboardFigures& d) {
    std::vector<TimeNs> ahead;
    for (std::size_t i = 0; i < cols.size(); ++i) {
        if (static_cast<State>(cols.state[i]) == State::Scheduled &&
            cols.inTime[i] != TimingColumns::kNoTime) {
            ahead.push_back(cols.inTime[i] - d.now);
        }
    }
    d.scheduledAhead = logHistogram(ahead);
    d.scheduledAheadSummary = summarize(ahead);
    d.attempts.assign(kDashboardMaxAttempts + 1, 0);
    for (const std::int64_t a : cols.attempts) {
        const auto k = std::clamp<std::int64_t>(a, 0, kDashboardMaxAttempts);
        ++d.attempts[static_cast<std::size_t>(k)];
    }
}

} // namespace

DashboardFigures computeDashboardFigures(const TimingColumns& full, TimeNs now, bool history,
                                         const DashboardQuery& q) {
    DashboardFigures d;
    d.now = now;
    d.history = history;
    const bool jobs = !history;
    // The cards count from the same scan: no second pass over the file.
    d.counts = countsFrom(full, now, q.stuckNs);
    d.totalRows = static_cast<std::int64_t>(full.size());
    // The time range is applied in memory, so the whole-queue overview needs
    // no second query.
    const bool hasRange = q.from || q.to;
    const TimingColumns ranged = hasRange ? inRange(full, q) : TimingColumns{};
    const TimingColumns& cols = hasRange ? ranged : full;
    d.stats = computeStats(cols, now);
    overview(full, jobs, d);
    chartSeries(cols, q, d);
    if (jobs) {
        schedule(cols, d);
    }
    return d;
}

DashboardFigures dashboardFigures(Queue& queue, const DashboardQuery& q) {
    const TimeNs now = queue.now();
    Filter all;
    all.now = now;
    // With each row's named queue, as the per-queue overview and the
    // exporter read it: the three share the rows the queue's TimingCache
    // keeps, where two sets of a million-job file would not fit its budget.
    const bool named = QueueFormat::of(queue.info()).namedQueues();
    return dashboardFiguresOf(queue.info(), queue.timing(all, named), now, q, [&] {
        return queue.counts(q.stuckNs > 0 ? q.stuckNs : kDefaultStuckAfterNs);
    });
}

DashboardFigures dashboardFiguresOf(const FormatInfo& info, const TimingColumns& full, TimeNs now,
                                    const DashboardQuery& q,
                                    const std::function<Counts()>& counts) {
    // The latency page where the format keeps finished history, or at least
    // stores a wait (Laravel deletes completed jobs but keeps reservations):
    // there the metrics it lacks are said, not left as an empty schedule.
    const QueueFormat& format = QueueFormat::of(info);
    const bool history = format.keepsHistory() || format.storesMetric(Filter::Metric::Wait, info);
    DashboardFigures d = computeDashboardFigures(full, now, history, q);
    // The cards count from the same scan where its rows carry every state
    // the format counts (Solid Queue's blocked); else (Oban's retryable)
    // from the counts every other view shows (core/statemodel.h).
    if (auto c = countsOfScan(format, full, now, q.stuckNs > 0 ? q.stuckNs : kDefaultStuckAfterNs,
                              false))
        d.counts = std::move(c->total);
    else
        d.counts = counts();
    return d;
}

} // namespace lq::core
