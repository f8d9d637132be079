// SPDX-License-Identifier: MIT
#include "ui/dashboarddata.h"

#include "core/backend.h"
#include "core/timefmt.h"

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

DashboardData computeDashboard(core::QueueBackend& q, const DashboardRequest& r) {
    QElapsedTimer timer;
    timer.start();
    DashboardData d;
    try {
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
        core::DashboardQuery query;
        query.from = r.from;
        query.to = r.to;
        query.stuckNs = r.stuckNs;
        static_cast<core::DashboardFigures&>(d) = q.dashboard(query);
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
