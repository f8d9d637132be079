// SPDX-License-Identifier: MIT
#include "queueoverview.h"

#include "formats/queueformat.h"
#include "queue.h"
#include "remote/codec.h"

#include <algorithm>
#include <map>

namespace lq::core {

namespace {

constexpr TimeNs kHourNs = 3600 * kNsPerSecond;

void pushRow(TimingColumns& to, const TimingColumns& from, std::size_t i) {
    to.state.push_back(from.state[i]);
    to.inTime.push_back(from.inTime[i]);
    to.lockTime.push_back(from.lockTime[i]);
    to.doneTime.push_back(from.doneTime[i]);
    if (!from.attempts.empty())
        to.attempts.push_back(from.attempts[i]);
    if (!from.dueTime.empty())
        to.dueTime.push_back(from.dueTime[i]);
    if (!from.ownStuck.empty())
        to.ownStuck.push_back(from.ownStuck[i]);
    if (!from.extra.empty())
        to.extra.push_back(from.extra[i]);
}

Json optTime(const std::optional<TimeNs>& t) {
    return t ? Json(*t) : Json();
}
std::optional<TimeNs> timeFrom(const Json& j) {
    return j.isInt() ? std::optional<TimeNs>(j.toInt()) : std::nullopt;
}

} // namespace

QueueOverview computeQueueOverview(const TimingColumns& full, TimeNs now, const DashboardQuery& q,
                                   const std::vector<std::pair<std::string, Counts>>& counts,
                                   const std::vector<PausedQueue>& paused) {
    QueueOverview o;
    o.now = now;
    const std::size_t n = full.size();
    // The rows, and which row each of the scan's queue names feeds (a file
    // without named queues: one row, fed by every job).
    o.rows.reserve(counts.size());
    std::map<std::string, std::size_t, std::less<>> rowOf;
    for (const auto& [name, c] : counts) {
        rowOf.emplace(name, o.rows.size());
        QueueOverviewRow r;
        r.queue = name;
        r.counts = c;
        for (const PausedQueue& p : paused)
            if (p.queue == name) {
                r.paused = true;
                r.pausedSince = p.since;
            }
        o.rows.push_back(std::move(r));
    }
    const bool whole = counts.size() == 1 && counts.front().first.empty();
    std::vector<std::size_t> rowOfName(full.queueNames.size(), o.rows.size());
    for (std::size_t k = 0; k < full.queueNames.size(); ++k)
        if (const auto it = rowOf.find(full.queueNames[k]); it != rowOf.end())
            rowOfName[k] = it->second;
    const bool byQueue = full.queue.size() == n;
    const auto rowIndex = [&](std::size_t i) -> std::size_t {
        if (whole)
            return 0;
        if (!byQueue || full.queue[i] == TimingColumns::kNoQueue)
            return o.rows.size();
        return rowOfName[full.queue[i]];
    };

    // The range: an open start is the file's earliest time, an open end now.
    std::optional<TimeNs> earliest;
    for (std::size_t i = 0; i < n; ++i)
        for (const TimeNs t : {full.inTime[i], full.doneTime[i]})
            if (t != TimingColumns::kNoTime && (!earliest || t < *earliest))
                earliest = t;
    o.rangeFrom = q.from ? *q.from : std::min(earliest.value_or(now), now);
    o.rangeTo = q.to ? *q.to : now;

    // One pass: each queue's finished jobs in the range, its backlog, and
    // the rows that arrived in the range for its wait.
    std::vector<TimingColumns> arrived(o.rows.size());
    const bool dueKnown = full.dueTime.size() == n;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t r = rowIndex(i);
        if (r >= o.rows.size())
            continue;
        QueueOverviewRow& row = o.rows[r];
        const auto st = static_cast<State>(full.state[i]);
        const TimeNs in = full.inTime[i], done = full.doneTime[i];
        if (done != TimingColumns::kNoTime && done >= o.rangeFrom && done < o.rangeTo) {
            if (st == State::Done)
                ++row.doneInRange;
            else if (st == State::Failed)
                ++row.failedInRange;
        }
        const TimeNs due = dueKnown ? full.dueTime[i] : TimingColumns::kNoTime;
        const TimeNs since = due != TimingColumns::kNoTime ? due : in;
        if (st == State::Ready && since != TimingColumns::kNoTime &&
            (!row.backlogSince || since < *row.backlogSince))
            row.backlogSince = since;
        if (in != TimingColumns::kNoTime && (!q.from || in >= *q.from) && (!q.to || in < *q.to))
            pushRow(arrived[r], full, i);
    }
    for (std::size_t r = 0; r < o.rows.size(); ++r) {
        QueueOverviewRow& row = o.rows[r];
        const QueueStats s = computeStats(arrived[r], now);
        arrived[r] = TimingColumns{};
        row.waitCount = s.wait.count;
        row.waitP50 = s.wait.p50;
        row.waitP99 = s.wait.p99;
        if (o.rangeTo > o.rangeFrom)
            row.donePerHour = static_cast<double>(row.doneInRange) * static_cast<double>(kHourNs) /
                              static_cast<double>(o.rangeTo - o.rangeFrom);
    }
    return o;
}

QueueOverview queueOverview(Queue& queue, const DashboardQuery& q) {
    const TimeNs now = queue.now();
    const TimeNs stuck = q.stuckNs > 0 ? q.stuckNs : kDefaultStuckAfterNs;
    const QueueFormat& format = QueueFormat::of(queue.info());
    Filter all;
    all.now = now;
    const TimingColumns full = queue.timing(all, format.namedQueues());
    // The counts every view shows (the format's own states included): from
    // the same scan where its rows carry them, else in about one pass for
    // every queue.
    CountsWithQueues cq = queue.countsOf(full, now, stuck, format.namedQueues());
    std::vector<std::pair<std::string, Counts>> counts;
    if (!format.namedQueues()) {
        counts.emplace_back(std::string(), std::move(cq.total));
    } else {
        // Every name the file holds, with zeros for one no job is in.
        std::map<std::string, Counts> byName;
        for (auto& [name, c] : cq.queues)
            byName[name] = std::move(c);
        for (const std::string& name : queue.queueNames())
            byName.try_emplace(name);
        for (auto& [name, c] : byName)
            counts.emplace_back(name, std::move(c));
    }
    return queueOverviewOf(queue.info(), full, now, q, counts,
                           format.namedQueues() ? queue.pausedQueues()
                                                : std::vector<PausedQueue>{});
}

QueueOverview queueOverviewOf(const FormatInfo& info, const TimingColumns& full, TimeNs now,
                              const DashboardQuery& q,
                              const std::vector<std::pair<std::string, Counts>>& counts,
                              const std::vector<PausedQueue>& paused) {
    const QueueFormat& format = QueueFormat::of(info);
    QueueOverview o = computeQueueOverview(full, now, q, counts, paused);
    if (!format.keepsHistory() || !format.storesTime(QueueFormat::BaseTime::Finished)) {
        o.throughputNote = format.whyNoMetric(Filter::Metric::Total, info);
        if (o.throughputNote.empty())
            o.throughputNote = "the file keeps no finished jobs";
        for (QueueOverviewRow& r : o.rows)
            r.donePerHour.reset();
    }
    o.waitNote = format.whyNoMetric(Filter::Metric::Wait, info);
    return o;
}

Json queueOverviewJson(const QueueOverview& o) {
    Json j = Json::object();
    j.set("now", o.now);
    j.set("range_from_ns", o.rangeFrom);
    j.set("range_to_ns", o.rangeTo);
    j.set("throughput_note", o.throughputNote);
    j.set("wait_note", o.waitNote);
    Json rows = Json::array();
    for (const QueueOverviewRow& r : o.rows) {
        Json x = Json::object();
        x.set("queue", r.queue);
        x.set("paused", r.paused);
        x.set("paused_since_ns", optTime(r.pausedSince));
        x.set("counts", remote::toJson(r.counts));
        x.set("done_in_range", r.doneInRange);
        x.set("failed_in_range", r.failedInRange);
        x.set("done_per_hour", r.donePerHour ? Json(*r.donePerHour) : Json());
        x.set("wait_count", r.waitCount);
        x.set("wait_p50_ns", optTime(r.waitP50));
        x.set("wait_p99_ns", optTime(r.waitP99));
        x.set("backlog_since_ns", optTime(r.backlogSince));
        rows.push(std::move(x));
    }
    j.set("rows", std::move(rows));
    return j;
}

QueueOverview queueOverviewFromJson(const Json& j) {
    QueueOverview o;
    o.now = j["now"].toInt();
    o.rangeFrom = j["range_from_ns"].toInt();
    o.rangeTo = j["range_to_ns"].toInt();
    o.throughputNote = j["throughput_note"].toString();
    o.waitNote = j["wait_note"].toString();
    for (const Json& x : j["rows"].toArray()) {
        QueueOverviewRow r;
        r.queue = x["queue"].toString();
        r.paused = x["paused"].toBool();
        r.pausedSince = timeFrom(x["paused_since_ns"]);
        r.counts = remote::countsFromJson(x["counts"]);
        r.doneInRange = x["done_in_range"].toInt();
        r.failedInRange = x["failed_in_range"].toInt();
        if (x["done_per_hour"].isNumber())
            r.donePerHour = x["done_per_hour"].toDouble();
        r.waitCount = x["wait_count"].toInt();
        r.waitP50 = timeFrom(x["wait_p50_ns"]);
        r.waitP99 = timeFrom(x["wait_p99_ns"]);
        r.backlogSince = timeFrom(x["backlog_since_ns"]);
        o.rows.push_back(std::move(r));
    }
    return o;
}

} // namespace lq::core
