// SPDX-License-Identifier: MIT
// `lqctl queues FILE`: one line per named queue of the file (one for the
// whole file where the format has none) with its counts, whether it is
// paused, its throughput and its wait over a time range (core/queueoverview.h,
// computed on the host for an ssh:// queue).
#include "commands.h"
#include "output.h"

#include <core/queueoverview.h>
#include <core/statemodel.h>
#include <core/timefmt.h>

#include <cmath>
#include <cstdio>

namespace lq::ctl {

using core::Json;
using core::TimeNs;

namespace {

std::string upper(std::string s) {
    for (char& c : s)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

std::string rateText(const std::optional<double>& perHour) {
    if (!perHour)
        return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, *perHour >= 100 ? "%.0f" : "%.1f", *perHour);
    return buf;
}

Json orNull(const std::string& s) {
    return s.empty() ? Json() : Json(s);
}

Json rowJson(const core::QueueOverviewRow& r, const core::FormatInfo& info) {
    const core::StateModel m = core::stateModel(core::QueueFormat::of(info), r.counts);
    Json j = Json::object();
    j.set("queue", r.queue);
    j.set("paused", r.paused);
    j.set("paused_since_ns", r.pausedSince);
    j.set("counts", partitionJson(m));
    j.set("sub_counts", subCountsJson(m));
    j.set("stuck", r.counts.stuck);
    j.set("done_in_range", r.doneInRange);
    j.set("failed_in_range", r.failedInRange);
    j.set("done_per_hour", r.donePerHour ? Json(*r.donePerHour) : Json());
    j.set("done_per_minute", r.donePerHour ? Json(*r.donePerHour / 60.0) : Json());
    j.set("wait_count", r.waitCount);
    j.set("wait_p50_ns", r.waitP50);
    j.set("wait_p99_ns", r.waitP99);
    j.set("backlog_since_ns", r.backlogSince);
    return j;
}

} // namespace

int cmdQueues(const Options& o) {
    auto q = openBackendFor(o, false);
    const core::FormatInfo& info = q->info();
    const TimeNs now = q->now();
    core::DashboardQuery query;
    query.stuckNs = o.stuckAfterNs();
    query.from = o.from;
    if (o.since)
        query.from = now - *o.since;
    query.to = o.to;
    if (query.from && query.to && *query.to <= *query.from)
        throw UsageError("the range ends before it starts (--to is not after the start)");
    core::QueueOverview ov = q->queueOverview(query);
    if (!o.queue.empty())
        std::erase_if(ov.rows, [&](const core::QueueOverviewRow& r) { return r.queue != o.queue; });

    if (o.json) {
        Json rows = Json::array();
        for (const auto& r : ov.rows)
            rows.push(rowJson(r, info));
        Json top = Json::object();
        top.set("queues", std::move(rows));
        top.set("now", ov.now);
        top.set("range_from_ns", ov.rangeFrom);
        top.set("range_to_ns", ov.rangeTo);
        top.set("throughput_note", orNull(ov.throughputNote));
        top.set("wait_note", orNull(ov.waitNote));
        printJson(top);
        return ExitOk;
    }
    if (ov.rows.empty()) {
        out("no queues: the file holds no jobs\n");
        return ExitOk;
    }
    const core::QueueFormat& format = core::QueueFormat::of(info);
    const std::vector<core::PartitionState> states = core::partitionStates(format);
    std::vector<std::string> headers = {"QUEUE", "PAUSED"};
    std::vector<bool> right = {false, false};
    for (const auto& s : states) {
        headers.push_back(upper(s.name));
        right.push_back(true);
    }
    for (const char* h : {"DONE/H", "WAIT P50", "WAIT P99", "BACKLOG"}) {
        headers.emplace_back(h);
        right.push_back(true);
    }
    Table t(std::move(headers), std::move(right));
    for (const auto& r : ov.rows) {
        const core::StateModel m = core::stateModel(format, r.counts);
        std::vector<std::string> cells = {
            r.queue.empty() ? std::string("(whole file)") : terminalSafe(r.queue, 32),
            r.paused ? (r.pausedSince ? "paused " + ageText(ov.now, *r.pausedSince) + " ago"
                                      : std::string("paused"))
                     : std::string("-")};
        for (const auto& s : states)
            cells.push_back(num(m.count(s.name)));
        cells.push_back(rateText(r.donePerHour));
        cells.push_back(durationOrDash(r.waitP50));
        cells.push_back(durationOrDash(r.waitP99));
        cells.push_back(r.backlogSince ? ageText(ov.now, *r.backlogSince) : std::string("-"));
        t.addRow(std::move(cells));
    }
    out(t.render());
    out("range: " + core::isoUtc(ov.rangeFrom) + " .. " + core::isoUtc(ov.rangeTo) +
        " (done per hour over it; wait of the jobs that arrived in it)\n");
    if (!ov.throughputNote.empty())
        out("throughput: " + terminalSafe(ov.throughputNote) + "\n");
    if (!ov.waitNote.empty())
        out("wait: " + terminalSafe(ov.waitNote) + "\n");
    return ExitOk;
}

} // namespace lq::ctl
