// SPDX-License-Identifier: MIT
#include "codec.h"

#include "../audit.h"
#include "../formats/queueformat.h"

#include <array>
#include <map>
#include <string>
#include <string_view>

namespace lq::core::remote {

namespace {

Json optTime(const std::optional<TimeNs>& t) {
    return t ? Json(*t) : Json();
}

std::optional<TimeNs> timeFrom(const Json& j) {
    if (j.isNull())
        return std::nullopt;
    return j.toInt();
}

Json strings(const std::vector<std::string>& v) {
    Json a = Json::array();
    for (const auto& s : v)
        a.push(s);
    return a;
}

std::vector<std::string> stringsFrom(const Json& j) {
    std::vector<std::string> v;
    for (const auto& s : j.toArray())
        v.push_back(s.toString());
    return v;
}

Json ints(const std::vector<std::int64_t>& v) {
    Json a = Json::array();
    for (auto x : v)
        a.push(x);
    return a;
}

std::vector<std::int64_t> intsFrom(const Json& j) {
    std::vector<std::int64_t> v;
    v.reserve(j.toArray().size());
    for (const auto& x : j.toArray())
        v.push_back(x.toInt());
    return v;
}

Json toJson(const Summary& s) {
    Json j = Json::object();
    j.set("count", s.count);
    j.set("min", optTime(s.min));
    j.set("p50", optTime(s.p50));
    j.set("p90", optTime(s.p90));
    j.set("p95", optTime(s.p95));
    j.set("p99", optTime(s.p99));
    j.set("max", optTime(s.max));
    j.set("mean", s.mean);
    return j;
}

Summary summaryFrom(const Json& j) {
    Summary s;
    s.count = j["count"].toInt();
    s.min = timeFrom(j["min"]);
    s.p50 = timeFrom(j["p50"]);
    s.p90 = timeFrom(j["p90"]);
    s.p95 = timeFrom(j["p95"]);
    s.p99 = timeFrom(j["p99"]);
    s.max = timeFrom(j["max"]);
    s.mean = j["mean"].toDouble();
    return s;
}

Json toJson(const Histogram& h) {
    Json j = Json::object();
    j.set("edges", ints(h.edges));
    j.set("counts", ints(h.counts));
    return j;
}

Histogram histogramFrom(const Json& j) {
    return Histogram{intsFrom(j["edges"]), intsFrom(j["counts"])};
}

Json skippedJson(const std::vector<SkippedRow>& rows) {
    Json a = Json::array();
    for (const auto& r : rows) {
        Json o = Json::object();
        o.set("message_id", r.messageId);
        o.set("reason", r.reason);
        o.set("kind", static_cast<int>(r.kind));
        a.push(std::move(o));
    }
    return a;
}

} // namespace

Json secondsJson(std::optional<std::chrono::nanoseconds> d) {
    return d ? Json(std::chrono::duration<double>(*d).count()) : Json();
}

std::optional<std::chrono::nanoseconds> secondsFrom(const Json& j) {
    if (!j.isNumber())
        return std::nullopt;
    return secondsDuration(j.toDouble());
}

Json toJson(const FormatInfo& i) {
    Json j = Json::object();
    j.set("format", formatId(i.format)); // by id: no list's order is a contract
    j.set("user_version", i.userVersion);
    j.set("time_unit", static_cast<int>(i.timeUnit));
    j.set("table", i.table);
    j.set("queue_tables", strings(i.queueTables));
    // The columns and optional tables the format found: what it offers
    // follows from them (QueueFormat::whyNoPause: a table of pauses).
    j.set("columns", strings(i.columns));
    j.set("maxsize", i.maxsize);
    j.set("maxsize_trigger", i.maxsizeTrigger);
    j.set("has_claim_id", i.hasClaimId);
    j.set("has_idempotency_key", i.hasIdempotencyKey);
    j.set("has_idempotency_index", i.hasIdempotencyIndex);
    j.set("journal_mode", i.journalMode);
    j.set("read_only_reason", i.readOnlyReason);
    j.set("warnings", strings(i.warnings));
    if (!i.settings.empty())
        j.set("settings", toJson(i.settings));
    return j;
}

// Settings travel as keyed data (FormatSettings::entries() and set()): a
// file-wide value as "KEY": N, a named queue's as "KEY_by_queue": {QUEUE: N}.
// A new library setting needs no edit here.
constexpr std::string_view kByQueue = "_by_queue";

Json toJson(const FormatSettings& s) {
    Json j = Json::object();
    std::map<std::string, Json> byQueue;
    for (const FormatSettings::Entry& e : s.entries()) {
        if (e.queue.empty()) {
            j.set(e.key, e.value);
        } else {
            auto [it, added] = byQueue.try_emplace(e.key + std::string(kByQueue), Json::object());
            (void)added;
            it->second.set(e.queue, e.value);
        }
    }
    for (auto& [key, queues] : byQueue)
        j.set(key, std::move(queues));
    return j;
}

FormatSettings settingsFromJson(const Json& j) {
    FormatSettings s;
    if (!j.isObject())
        return s;
    const auto set = [&s](const std::string& key, const Json& v, const std::string& queue) {
        if (!v.isInt() || v.toInt() < 1)
            throw Error(ErrorKind::InvalidArgument, {},
                        "settings: " + key + " must be a whole number of 1 or more");
        if (!s.set(key, v.toInt(), queue))
            throw Error(ErrorKind::Unsupported, {},
                        "settings: " + key + (queue.empty() ? "" : " of queue " + queue) +
                            " is not a setting this lqctl knows: update it to the peer's version");
    };
    const Json::Object& fields = j.toObject();
    for (const auto& [key, v] : fields) {
        const bool perQueue = key.size() > kByQueue.size() && key.ends_with(kByQueue);
        if (!perQueue) {
            set(key, v, {});
            continue;
        }
        const std::string base = key.substr(0, key.size() - kByQueue.size());
        if (!v.isObject())
            throw Error(ErrorKind::InvalidArgument, {}, "settings: " + key + " must be an object");
        const Json::Object& queues = v.toObject();
        for (const auto& [queue, n] : queues)
            set(base, n, queue);
    }
    return s;
}

FormatInfo formatInfoFromJson(const Json& j) {
    FormatInfo i;
    if (j["format"].isString()) {
        i.format = QueueFormat::byId(j["format"].toString());
        if (!i.format)
            throw Error(ErrorKind::Unsupported, {},
                        "the host's queue is of format " + j["format"].toString() +
                            ", which this lqctl does not know: update it to the host's version");
    } else {
        // A peer of protocol 1 before format ids sent the index of a format
        // in its own list, which was, in this order:
        static constexpr std::array<const char*, 14> kProtocol1 = {
            "litequeue-0.14",    "litequeue-0.13",  "litequeue-legacy", "litequeue-multi",
            "litequeue-unknown", "jobs-lease",      "liteque",          "solid-queue",
            "plainjob",          "goqite",          "backlite",         "oban-lite",
            "river-sqlite",      "laravel-database"};
        const std::int64_t n = j["format"].toInt();
        if (n < 0 || n >= static_cast<std::int64_t>(kProtocol1.size()))
            throw Error(ErrorKind::Unsupported, {},
                        "the host's queue is of a format this lqctl does not know (" +
                            std::to_string(n) + "): update it to the host's version");
        i.format = QueueFormat::byId(kProtocol1[static_cast<std::size_t>(n)]);
    }
    i.userVersion = j["user_version"].toInt();
    i.timeUnit = static_cast<TimeUnit>(j["time_unit"].toInt());
    i.table = j["table"].toString();
    i.queueTables = stringsFrom(j["queue_tables"]);
    i.columns = stringsFrom(j["columns"]);
    if (!j["maxsize"].isNull())
        i.maxsize = j["maxsize"].toInt();
    i.maxsizeTrigger = j["maxsize_trigger"].toString();
    i.hasClaimId = j["has_claim_id"].toBool();
    i.hasIdempotencyKey = j["has_idempotency_key"].toBool();
    i.hasIdempotencyIndex = j["has_idempotency_index"].toBool();
    i.journalMode = j["journal_mode"].toString();
    i.readOnlyReason = j["read_only_reason"].toString();
    i.warnings = stringsFrom(j["warnings"]);
    i.settings = settingsFromJson(j["settings"]);
    return i;
}

Json toJson(const ProcessList& p) {
    Json j = Json::object();
    j.set("not_stored", p.notStored);
    j.set("alive_rule", p.aliveRule);
    j.set("orphaned_claims", p.orphanedClaims);
    Json w = Json::array();
    for (const auto& s : p.warnings)
        w.push(Json(s));
    j.set("warnings", std::move(w));
    Json a = Json::array();
    for (const ProcessInfo& x : p.processes) {
        Json e = Json::object();
        e.set("id", x.id);
        e.set("kind", x.kind);
        e.set("name", x.name);
        e.set("host", x.host);
        e.set("pid", x.pid);
        e.set("supervisor_id", x.supervisorId ? Json(*x.supervisorId) : Json());
        e.set("last_heartbeat_at_ns", optTime(x.lastHeartbeat));
        e.set("alive", x.alive);
        e.set("claimed", x.claimed);
        Json ids = Json::array();
        for (const auto& id : x.claimedIds)
            ids.push(Json(id));
        e.set("claimed_ids", std::move(ids));
        e.set("metadata", x.metadata);
        a.push(std::move(e));
    }
    j.set("processes", std::move(a));
    return j;
}

ProcessList processesFromJson(const Json& j) {
    ProcessList p;
    p.notStored = j["not_stored"].toString();
    p.aliveRule = j["alive_rule"].toString();
    p.orphanedClaims = j["orphaned_claims"].toInt();
    for (const Json& w : j["warnings"].toArray())
        p.warnings.push_back(w.toString());
    for (const Json& e : j["processes"].toArray()) {
        ProcessInfo x;
        x.id = e["id"].toString();
        x.kind = e["kind"].toString();
        x.name = e["name"].toString();
        x.host = e["host"].toString();
        x.pid = e["pid"].toInt();
        if (e["supervisor_id"].isString())
            x.supervisorId = e["supervisor_id"].toString();
        x.lastHeartbeat = timeFrom(e["last_heartbeat_at_ns"]);
        x.alive = e["alive"].toBool();
        x.claimed = e["claimed"].toInt();
        x.claimedIds = stringsFrom(e["claimed_ids"]);
        x.metadata = e["metadata"].toString();
        p.processes.push_back(std::move(x));
    }
    return p;
}

Json toJson(const RecurringList& r) {
    Json j = Json::object();
    j.set("not_stored", r.notStored);
    j.set("missed_rule", r.missedRule);
    Json a = Json::array();
    for (const RecurringTask& t : r.tasks) {
        Json e = Json::object();
        e.set("key", t.key);
        e.set("schedule", t.schedule);
        e.set("class", t.className);
        e.set("command", t.command);
        e.set("queue", t.queue);
        e.set("priority", t.priority);
        e.set("static", t.isStatic);
        e.set("description", t.description);
        e.set("last_run_ns", optTime(t.lastRunNs));
        e.set("next_run_ns", optTime(t.nextRunNs));
        e.set("missed", t.missed);
        e.set("why", t.why);
        a.push(std::move(e));
    }
    j.set("tasks", std::move(a));
    return j;
}

RecurringList recurringFromJson(const Json& j) {
    RecurringList r;
    r.notStored = j["not_stored"].toString();
    r.missedRule = j["missed_rule"].toString();
    for (const Json& e : j["tasks"].toArray()) {
        RecurringTask t;
        t.key = e["key"].toString();
        t.schedule = e["schedule"].toString();
        t.className = e["class"].toString();
        t.command = e["command"].toString();
        t.queue = e["queue"].toString();
        t.priority = e["priority"].toInt();
        t.isStatic = e["static"].toBool();
        t.description = e["description"].toString();
        t.lastRunNs = timeFrom(e["last_run_ns"]);
        t.nextRunNs = timeFrom(e["next_run_ns"]);
        t.missed = e["missed"].toInt();
        t.why = e["why"].toString();
        r.tasks.push_back(std::move(t));
    }
    return r;
}

Json toJson(const std::vector<PausedQueue>& paused) {
    Json a = Json::array();
    for (const PausedQueue& q : paused) {
        Json e = Json::object();
        e.set("queue", q.queue);
        e.set("since_ns", optTime(q.since));
        a.push(std::move(e));
    }
    return a;
}

std::vector<PausedQueue> pausedFromJson(const Json& j) {
    std::vector<PausedQueue> out;
    for (const Json& e : j.toArray())
        out.push_back({e["queue"].toString(), timeFrom(e["since_ns"])});
    return out;
}

Json toJson(const Counts& c) {
    Json j = Json::object();
    j.set("ready", c.ready);
    j.set("locked", c.locked);
    j.set("done", c.done);
    j.set("failed", c.failed);
    j.set("unknown", c.unknown);
    j.set("stuck", c.stuck);
    j.set("scheduled", c.scheduled);
    j.set("leased", c.leased);
    j.set("expired", c.expired);
    j.set("stored", c.stored);
    Json extra = Json::object();
    for (const auto& [state, n] : c.extra)
        extra.set(state, n);
    j.set("extra", std::move(extra));
    return j;
}

Counts countsFromJson(const Json& j) {
    Counts c;
    c.ready = j["ready"].toInt();
    c.locked = j["locked"].toInt();
    c.done = j["done"].toInt();
    c.failed = j["failed"].toInt();
    c.unknown = j["unknown"].toInt();
    c.stuck = j["stuck"].toInt();
    c.scheduled = j["scheduled"].toInt();
    c.leased = j["leased"].toInt();
    c.expired = j["expired"].toInt();
    c.stored = j["stored"].toInt();
    if (j["extra"].isObject())
        for (const auto& [state, n] : j["extra"].toObject())
            c.extra[state] = n.toInt();
    return c;
}

Json toJson(const QueueStats& s) {
    Json j = Json::object();
    j.set("wait", toJson(s.wait));
    j.set("processing", toJson(s.processing));
    j.set("total", toJson(s.total));
    j.set("time_to_failure", toJson(s.timeToFailure));
    j.set("wait_hist", toJson(s.waitHist));
    j.set("processing_hist", toJson(s.processingHist));
    j.set("total_hist", toJson(s.totalHist));
    j.set("failure_hist", toJson(s.failureHist));
    j.set("oldest_ready_in_time", optTime(s.oldestReadyInTime));
    j.set("oldest_locked_lock_time", optTime(s.oldestLockedLockTime));
    j.set("done_last_hour", s.doneLastHour);
    j.set("failed_last_hour", s.failedLastHour);
    j.set("first_time", optTime(s.firstTime));
    j.set("last_time", optTime(s.lastTime));
    return j;
}

QueueStats statsFromJson(const Json& j) {
    QueueStats s;
    s.wait = summaryFrom(j["wait"]);
    s.processing = summaryFrom(j["processing"]);
    s.total = summaryFrom(j["total"]);
    s.timeToFailure = summaryFrom(j["time_to_failure"]);
    s.waitHist = histogramFrom(j["wait_hist"]);
    s.processingHist = histogramFrom(j["processing_hist"]);
    s.totalHist = histogramFrom(j["total_hist"]);
    s.failureHist = histogramFrom(j["failure_hist"]);
    s.oldestReadyInTime = timeFrom(j["oldest_ready_in_time"]);
    s.oldestLockedLockTime = timeFrom(j["oldest_locked_lock_time"]);
    s.doneLastHour = j["done_last_hour"].toInt();
    s.failedLastHour = j["failed_last_hour"].toInt();
    s.firstTime = timeFrom(j["first_time"]);
    s.lastTime = timeFrom(j["last_time"]);
    return s;
}

Json toJson(const Filter& f) {
    Json j = Json::object();
    Json states = Json::array();
    for (State s : f.states)
        states.push(static_cast<int>(s));
    j.set("states", std::move(states));
    if (!f.extraStates.empty()) {
        Json extra = Json::array();
        for (const auto& x : f.extraStates)
            extra.push(x);
        j.set("extra_states", std::move(extra));
    }
    j.set("stuck_only", f.stuckOnly);
    j.set("stuck_after_ns", f.stuckAfterNs);
    j.set("search", f.search);
    if (!f.where.empty()) // optional: sent only to a server that takes it
        j.set("where", f.where);
    j.set("older_than_s", secondsJson(f.olderThan));
    j.set("in_time_from", optTime(f.inTimeFrom));
    j.set("in_time_to", optTime(f.inTimeTo));
    j.set("done_before", optTime(f.doneBefore));
    if (f.expiredAt) // optional: a v1 peer never sends it
        j.set("expired_at", *f.expiredAt);
    j.set("metric", static_cast<int>(f.metric));
    j.set("metric_lo", f.metricLo);
    j.set("metric_hi", f.metricHi);
    j.set("now", optTime(f.now));
    j.set("queue", f.queue);
    return j;
}

Filter filterFromJson(const Json& j) {
    Filter f;
    for (const auto& s : j["states"].toArray()) {
        const auto v = s.toInt();
        if (v < 0 || v > static_cast<int>(State::Expired))
            throw Error(ErrorKind::InvalidArgument, {}, "filter: unknown state " + s.dump());
        f.states.push_back(static_cast<State>(v));
    }
    for (const auto& x : j["extra_states"].toArray())
        f.extraStates.push_back(x.toString());
    f.stuckOnly = j["stuck_only"].toBool();
    if (j.contains("stuck_after_ns"))
        f.stuckAfterNs = j["stuck_after_ns"].toInt();
    f.search = j["search"].toString();
    f.where = j["where"].toString();
    f.olderThan = secondsFrom(j["older_than_s"]);
    f.inTimeFrom = timeFrom(j["in_time_from"]);
    f.inTimeTo = timeFrom(j["in_time_to"]);
    f.doneBefore = timeFrom(j["done_before"]);
    f.expiredAt = timeFrom(j["expired_at"]);
    const auto metric = j["metric"].toInt();
    if (metric < 0 || metric > static_cast<int>(Filter::Metric::TimeToFailure))
        throw Error(ErrorKind::InvalidArgument, {}, "filter: unknown metric");
    f.metric = static_cast<Filter::Metric>(metric);
    f.metricLo = j["metric_lo"].toInt();
    f.metricHi = j["metric_hi"].toInt();
    f.now = timeFrom(j["now"]);
    f.queue = j["queue"].toString();
    return f;
}

Json toJson(const Sort& s) {
    Json j = Json::object();
    j.set("key", static_cast<int>(s.key));
    j.set("descending", s.descending);
    return j;
}

Sort sortFromJson(const Json& j) {
    Sort s;
    const auto key = j["key"].toInt();
    if (key < 0 || key > static_cast<int>(SortKey::Status))
        throw Error(ErrorKind::InvalidArgument, {}, "sort: unknown key");
    s.key = static_cast<SortKey>(key);
    s.descending = j["descending"].toBool();
    return s;
}

Json toJson(const std::vector<Target>& t) {
    Json a = Json::array();
    for (const auto& x : t) {
        Json o = Json::array();
        o.push(x.messageId);
        o.push(x.token);
        a.push(std::move(o));
    }
    return a;
}

std::vector<Target> targetsFromJson(const Json& j) {
    std::vector<Target> t;
    t.reserve(j.toArray().size());
    for (const auto& x : j.toArray())
        t.push_back(Target{x.toArray().empty() ? std::string() : x.toArray()[0].toString(),
                           x.toArray().size() < 2 ? 0 : x.toArray()[1].toInt()});
    return t;
}

Json toJson(const std::vector<AppliedRow>& rows) {
    Json a = Json::array();
    for (const auto& r : rows) {
        Json o = Json::object();
        o.set("before", messageToJson(r.before));
        o.set("after", messageToJson(r.after));
        o.set("note", r.note);
        a.push(std::move(o));
    }
    return a;
}

std::vector<AppliedRow> appliedFromJson(const Json& j) {
    std::vector<AppliedRow> rows;
    for (const auto& o : j.toArray())
        rows.push_back(
            {messageFromJson(o["before"]), messageFromJson(o["after"]), o["note"].toString()});
    return rows;
}

Json toJson(const ActionResult& r) {
    Json j = Json::object();
    j.set("action", actionName(r.action));
    j.set("applied", toJson(r.applied));
    j.set("skipped", skippedJson(r.skipped));
    j.set("cancelled", r.cancelled);
    j.set("chunks_done", r.chunksDone);
    j.set("not_attempted", static_cast<std::int64_t>(r.notAttempted));
    j.set("error_kind", r.errorKind ? Json(errorKindName(*r.errorKind)) : Json());
    j.set("error", r.error);
    return j;
}

ActionResult actionResultFromJson(const Json& j) {
    ActionResult r;
    r.action = actionFromName(j["action"].toString()).value_or(Action::Retry);
    r.applied = appliedFromJson(j["applied"]);
    for (const auto& s : j["skipped"].toArray())
        r.skipped.push_back({s["message_id"].toString(), s["reason"].toString(),
                             static_cast<SkipKind>(s["kind"].toInt())});
    r.cancelled = j["cancelled"].toBool();
    r.chunksDone = j["chunks_done"].toInt();
    r.notAttempted = static_cast<std::size_t>(j["not_attempted"].toInt());
    if (j["error_kind"].isString())
        r.errorKind = errorKindFromName(j["error_kind"].toString()).value_or(ErrorKind::Io);
    r.error = j["error"].toString();
    return r;
}

Json toJson(const Plan& p) {
    Json j = Json::object();
    j.set("action", actionName(p.action));
    j.set("targets", toJson(p.targets));
    j.set("whole_filter", p.wholeFilter);
    j.set("filter", p.filterJson);
    j.set("cutoff", optTime(p.cutoff));
    j.set("fixed_at", p.fixedAt);
    j.set("delay_s", secondsJson(p.delay));
    j.set("chunk_size", static_cast<std::int64_t>(p.chunkSize));
    return j;
}

Plan planFromJson(const Json& j) {
    Plan p;
    const auto a = actionFromName(j["action"].toString());
    if (!a)
        throw Error(ErrorKind::InvalidArgument, {},
                    "unknown action \"" + j["action"].toString() + "\"");
    p.action = *a;
    p.targets = targetsFromJson(j["targets"]);
    p.wholeFilter = j["whole_filter"].toBool();
    p.filterJson = j["filter"].toString();
    p.cutoff = timeFrom(j["cutoff"]);
    p.fixedAt = j["fixed_at"].toInt();
    p.delay = secondsFrom(j["delay_s"]).value_or(std::chrono::nanoseconds{0});
    p.chunkSize = static_cast<std::size_t>(std::max<std::int64_t>(1, j["chunk_size"].toInt()));
    return p;
}

Json toJson(const std::vector<TimeBucket>& series) {
    Json a = Json::array();
    for (const auto& b : series) {
        Json o = Json::object();
        o.set("start", b.start);
        o.set("arrivals", b.arrivals);
        o.set("claims", b.claims);
        o.set("completions", b.completions);
        o.set("failures", b.failures);
        o.set("wait_p50", optTime(b.waitP50));
        o.set("wait_p99", optTime(b.waitP99));
        o.set("processing_p50", optTime(b.processingP50));
        o.set("processing_p99", optTime(b.processingP99));
        a.push(std::move(o));
    }
    return a;
}

std::vector<TimeBucket> seriesFromJson(const Json& j) {
    std::vector<TimeBucket> out;
    for (const auto& b : j.toArray()) {
        TimeBucket t;
        t.start = b["start"].toInt();
        t.arrivals = b["arrivals"].toInt();
        t.claims = b["claims"].toInt();
        t.completions = b["completions"].toInt();
        t.failures = b["failures"].toInt();
        t.waitP50 = timeFrom(b["wait_p50"]);
        t.waitP99 = timeFrom(b["wait_p99"]);
        t.processingP50 = timeFrom(b["processing_p50"]);
        t.processingP99 = timeFrom(b["processing_p99"]);
        out.push_back(t);
    }
    return out;
}

Json toJson(const DashboardQuery& q) {
    Json j = Json::object();
    j.set("from", optTime(q.from));
    j.set("to", optTime(q.to));
    j.set("stuck_after_ns", q.stuckNs);
    return j;
}

DashboardQuery dashboardQueryFromJson(const Json& j) {
    DashboardQuery q;
    q.from = timeFrom(j["from"]);
    q.to = timeFrom(j["to"]);
    q.stuckNs = j["stuck_after_ns"].toInt();
    return q;
}

Json toJson(const DashboardFigures& d) {
    Json j = Json::object();
    j.set("now", d.now);
    j.set("history", d.history);
    j.set("counts", toJson(d.counts));
    j.set("stats", toJson(d.stats));
    j.set("backlog_since", optTime(d.backlogSince));
    j.set("done_last_hour", d.doneLastHour);
    j.set("failed_last_hour", d.failedLastHour);
    j.set("total_rows", d.totalRows);
    j.set("span_from", d.spanFrom);
    j.set("span_to", d.spanTo);
    j.set("bucket", d.bucket);
    j.set("series", toJson(d.series));
    j.set("scheduled_ahead", toJson(d.scheduledAhead));
    j.set("scheduled_ahead_summary", toJson(d.scheduledAheadSummary));
    j.set("attempts", ints(d.attempts));
    return j;
}

DashboardFigures dashboardFromJson(const Json& j) {
    DashboardFigures d;
    d.now = j["now"].toInt();
    d.history = j["history"].toBool();
    d.counts = countsFromJson(j["counts"]);
    d.stats = statsFromJson(j["stats"]);
    d.backlogSince = timeFrom(j["backlog_since"]);
    d.doneLastHour = j["done_last_hour"].toInt();
    d.failedLastHour = j["failed_last_hour"].toInt();
    d.totalRows = j["total_rows"].toInt();
    d.spanFrom = j["span_from"].toInt();
    d.spanTo = j["span_to"].toInt();
    d.bucket = j["bucket"].toInt();
    d.series = seriesFromJson(j["series"]);
    d.scheduledAhead = histogramFrom(j["scheduled_ahead"]);
    d.scheduledAheadSummary = summaryFrom(j["scheduled_ahead_summary"]);
    d.attempts = intsFrom(j["attempts"]);
    return d;
}

Json messagesJson(const std::vector<Message>& ms) {
    Json a = Json::array();
    for (const auto& m : ms)
        a.push(messageToJson(m));
    return a;
}

std::vector<Message> messagesFromJson(const Json& j) {
    std::vector<Message> ms;
    ms.reserve(j.toArray().size());
    for (const auto& m : j.toArray())
        ms.push_back(messageFromJson(m));
    return ms;
}

Json errorJson(const Error& e) {
    Json j = Json::object();
    j.set("kind", errorKindName(e.kind()));
    j.set("message", e.detail());
    j.set("path", e.path());
    j.set("sqlite_code", e.sqliteCode());
    j.set("extended_code", e.extendedCode());
    return j;
}

Error errorFromJson(const Json& j, const std::string& path) {
    const auto kind = errorKindFromName(j["kind"].toString()).value_or(ErrorKind::Io);
    return Error(kind, path.empty() ? j["path"].toString() : path, j["message"].toString(),
                 static_cast<int>(j["sqlite_code"].toInt()),
                 static_cast<int>(j["extended_code"].toInt()));
}

std::optional<ErrorKind> errorKindFromName(std::string_view name) {
    for (int k = 0; k <= static_cast<int>(ErrorKind::FileChanged); ++k) {
        if (name == errorKindName(static_cast<ErrorKind>(k)))
            return static_cast<ErrorKind>(k);
    }
    return std::nullopt;
}

std::optional<Action> actionFromName(std::string_view name) {
    for (int a = 0; a <= static_cast<int>(Action::RunRecurring); ++a) {
        if (name == actionName(static_cast<Action>(a)))
            return static_cast<Action>(a);
    }
    return std::nullopt;
}

} // namespace lq::core::remote
