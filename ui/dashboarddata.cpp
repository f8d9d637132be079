// SPDX-License-Identifier: MIT
#include "ui/dashboarddata.h"

#include "core/formats/queueformat.h"
#include "core/timefmt.h"
#include "ui/queuebackend.h"

#include <QElapsedTimer>
#include <QSaveFile>
#include <QTextStream>

#include <algorithm>
#include <exception>

namespace lq::ui {

using core::Filter;
using core::TimeNs;

namespace {

QString csvField(const std::optional<TimeNs>& v) {
    return v ? QString::number(*v) : QString();
}

} // namespace

DashboardData computeDashboard(QueueBackend& q, const DashboardRequest& r) {
    QElapsedTimer timer;
    timer.start();
    DashboardData d;
    try {
        d.now = q.now();
        d.history = core::QueueFormat::of(q.info()).keepsHistory();
        try {
            // Prunes made by our tools are on record; say so on the charts.
            for (const auto& e : q.auditEntries()) {
                if (e.action == core::Action::Prune && !e.undone && e.undoneBy.empty() &&
                    !e.applied.empty()) {
                    d.prunedBefore = e.cutoff ? *e.cutoff : e.when;
                }
            }
        } catch (const std::exception&) {
            // No readable audit log: no note, the charts stand.
        }
        d.maxsize = q.maxsize();
        d.rangeFrom = r.from;
        d.rangeTo = r.to;
        const bool jobs = !d.history;

        // One scan of the file; the time range is applied in memory, so the
        // whole-queue overview needs no second query.
        Filter all;
        all.now = d.now;
        const core::TimingColumns full = q.timing(all);
        // The cards count from the same scan: no second pass over the file.
        d.counts = core::countsFrom(full, d.now, r.stuckNs);
        d.totalRows = static_cast<std::int64_t>(full.size());
        core::TimingColumns ranged;
        const bool hasRange = r.from || r.to;
        if (hasRange) {
            for (std::size_t i = 0; i < full.size(); ++i) {
                const TimeNs in = full.inTime[i];
                if (in == core::TimingColumns::kNoTime || (r.from && in < *r.from) ||
                    (r.to && in >= *r.to)) {
                    continue;
                }
                ranged.state.push_back(full.state[i]);
                ranged.inTime.push_back(in);
                ranged.lockTime.push_back(full.lockTime[i]);
                ranged.doneTime.push_back(full.doneTime[i]);
                if (!full.attempts.empty())
                    ranged.attempts.push_back(full.attempts[i]);
            }
        }
        const core::TimingColumns& cols = hasRange ? ranged : full;
        d.stats = core::computeStats(cols, d.now);

        const TimeNs hourAgo = d.now - kHour;
        for (std::size_t i = 0; i < full.size(); ++i) {
            const auto st = static_cast<core::State>(full.state[i]);
            const TimeNs in = full.inTime[i], done = full.doneTime[i];
            const bool claimable = st == core::State::Ready || (jobs && st == core::State::Expired);
            if (claimable && in != core::TimingColumns::kNoTime &&
                (!d.backlogSince || in < *d.backlogSince)) {
                d.backlogSince = in;
            }
            if (done != core::TimingColumns::kNoTime && done >= hourAgo && done <= d.now) {
                if (st == core::State::Done) {
                    ++d.doneLastHour;
                } else if (st == core::State::Failed) {
                    ++d.failedLastHour;
                }
            }
        }

        // The charts' span: the range, or the data's own extent, kept within
        // 1970..2100 so a damaged file's timestamps (anything up to ±2^63)
        // cannot overflow the bucket arithmetic; points outside are not drawn.
        static constexpr TimeNs kChartMin = 0;
        static constexpr TimeNs kChartMax = 4'102'444'800LL * core::kNsPerSecond; // 2100-01-01
        const auto clampT = [](TimeNs t) { return std::clamp(t, kChartMin, kChartMax); };
        const TimeNs now = clampT(d.now);
        const TimeNs first = clampT(d.stats.firstTime.value_or(now - kHour));
        const TimeNs last = clampT(d.stats.lastTime.value_or(now));
        TimeNs from = r.from ? clampT(*r.from) : first;
        TimeNs to = r.to ? clampT(*r.to) : (r.from ? std::max(now, last + 1) : last + 1);
        if (to <= from) {
            to = from + core::kNsPerSecond;
        }
        d.bucket = core::chooseBucketSize(to - from);
        // Buckets on round instants (whole minutes, hours, UTC days).
        TimeNs aligned = from - (from % d.bucket);
        if (from % d.bucket < 0) {
            aligned -= d.bucket;
        }
        d.series = core::computeSeries(cols, aligned, to, d.bucket);
        d.spanFrom = aligned;
        d.spanTo = aligned + static_cast<TimeNs>(d.series.size()) * d.bucket;

        if (jobs) {
            std::vector<TimeNs> ahead;
            for (std::size_t i = 0; i < cols.size(); ++i) {
                if (static_cast<core::State>(cols.state[i]) == core::State::Scheduled &&
                    cols.inTime[i] != core::TimingColumns::kNoTime) {
                    ahead.push_back(cols.inTime[i] - d.now);
                }
            }
            d.scheduledAhead = core::logHistogram(ahead);
            d.scheduledAheadSummary = core::summarize(ahead);
            d.attempts.assign(kMaxAttempts + 1, 0);
            for (const std::int64_t a : cols.attempts) {
                const auto k = std::clamp<std::int64_t>(a, 0, kMaxAttempts);
                ++d.attempts[static_cast<std::size_t>(k)];
            }
        }
    } catch (const std::exception& e) {
        d.error = QString::fromUtf8(e.what());
    }
    d.elapsedMs = timer.elapsed();
    return d;
}

bool writeDashboardCsv(const DashboardData& d, const QString& path) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        return false;
    }
    QTextStream out(&file);
    out << "# LiteQueue Admin dashboard\n";
    out << "now_ns," << d.now << ",now_utc," << QString::fromStdString(core::isoUtc(d.now)) << '\n';
    out << "range_from_ns," << csvField(d.rangeFrom) << ",range_to_ns," << csvField(d.rangeTo)
        << '\n';
    out << '\n' << "metric,count,min_ns,p50_ns,p90_ns,p95_ns,p99_ns,max_ns,mean_ns\n";
    const std::pair<const char*, const core::Summary*> rows[] = {
        {"wait", &d.stats.wait},
        {"processing", &d.stats.processing},
        {"total", &d.stats.total},
        {"time_to_failure", &d.stats.timeToFailure}};
    for (const auto& [name, s] : rows) {
        out << name << ',' << s->count << ',' << csvField(s->min) << ',' << csvField(s->p50) << ','
            << csvField(s->p90) << ',' << csvField(s->p95) << ',' << csvField(s->p99) << ','
            << csvField(s->max) << ',' << QString::number(s->mean, 'f', 0) << '\n';
    }
    out << '\n' << "histogram,bucket_lo_ns,bucket_hi_ns,count\n";
    const std::pair<const char*, const core::Histogram*> hists[] = {
        {"wait", &d.stats.waitHist},
        {"processing", &d.stats.processingHist},
        {"total", &d.stats.totalHist},
        {"time_to_failure", &d.stats.failureHist}};
    for (const auto& [name, h] : hists) {
        for (std::size_t i = 0; i < h->counts.size(); ++i) {
            out << name << ',' << h->edges[i] << ',' << h->edges[i + 1] << ',' << h->counts[i]
                << '\n';
        }
    }
    out << '\n'
        << "bucket_start_ns,bucket_start_utc,bucket_ns,arrivals,claims,completions,failures,"
           "wait_p50_ns,wait_p99_ns,processing_p50_ns,processing_p99_ns\n";
    for (const core::TimeBucket& b : d.series) {
        out << b.start << ',' << QString::fromStdString(core::isoUtc(b.start)) << ',' << d.bucket
            << ',' << b.arrivals << ',' << b.claims << ',' << b.completions << ',' << b.failures
            << ',' << csvField(b.waitP50) << ',' << csvField(b.waitP99) << ','
            << csvField(b.processingP50) << ',' << csvField(b.processingP99) << '\n';
    }
    if (!d.history) {
        out << '\n' << "attempts,jobs\n";
        for (std::size_t k = 0; k < d.attempts.size(); ++k) {
            out << k << (k + 1 == d.attempts.size() ? "+" : "") << ',' << d.attempts[k] << '\n';
        }
    }
    out.flush();
    return out.status() == QTextStream::Ok && file.commit();
}

} // namespace lq::ui
