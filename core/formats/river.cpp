// SPDX-License-Identifier: MIT
// River's riversqlite driver (docs/FORMATS.md#river-sqlite; riverqueue/river@fdf6cdf12567
// riverdriver/riversqlite/migration/main/00{6,7}_*.up.sql, dbsqlc/river_job.sql,
// internal/maintenance/job_rescuer.go). The library completes and fails jobs
// `WHERE id = ? AND state = 'running'`, so moving a job out of running makes
// its old worker's result a no-op.
#include "river.h"

#include "../error.h"
#include "../json.h"
#include "../jsonb.h"
#include "../sqlite.h"
#include "../timefmt.h"
#include "schema.h"

#include <algorithm>
#include <cmath>

namespace lq::core {

namespace {

const std::set<std::string> kSignature = {
    "id",     "args",         "attempt",      "attempted_at", "attempted_by", "created_at",
    "errors", "finalized_at", "kind",         "max_attempts", "metadata",     "priority",
    "queue",  "state",        "scheduled_at", "tags"};

constexpr TimeNs kRescueAfter = 60LL * 60 * kNsPerSecond; // RescueStuckJobsAfter 1 h

// ---- a JSONB writer for the rescuer's errors/metadata (sqlite.org/jsonb.html) ----

void jsonbElement(std::string& out, int type, std::string_view payload) {
    const std::size_t n = payload.size();
    if (n <= 11) {
        out += static_cast<char>((n << 4) | static_cast<std::size_t>(type));
    } else if (n <= 0xff) {
        out += static_cast<char>(0xc0 | type);
        out += static_cast<char>(n);
    } else if (n <= 0xffff) {
        out += static_cast<char>(0xd0 | type);
        out += static_cast<char>(n >> 8);
        out += static_cast<char>(n & 0xff);
    } else {
        out += static_cast<char>(0xe0 | type);
        for (int s = 24; s >= 0; s -= 8)
            out += static_cast<char>((n >> s) & 0xff);
    }
    out += payload;
}

void toJsonb(std::string& out, const Json& j) {
    if (j.isNull()) {
        jsonbElement(out, 0, {});
    } else if (j.isBool()) {
        jsonbElement(out, j.toBool() ? 1 : 2, {});
    } else if (j.isInt()) {
        jsonbElement(out, 3, std::to_string(j.toInt()));
    } else if (j.isDouble()) {
        jsonbElement(out, 5, j.dump());
    } else if (j.isString()) {
        const std::string& s = j.toString();
        bool plain = true;
        for (unsigned char c : s)
            plain = plain && c >= 0x20 && c != '"' && c != '\\';
        jsonbElement(out, plain ? 7 : 10, s); // TEXT, or TEXTRAW (unescaped)
    } else if (j.isArray()) {
        std::string body;
        for (const auto& e : j.toArray())
            toJsonb(body, e);
        jsonbElement(out, 11, body);
    } else {
        std::string body;
        for (const auto& [k, v] : j.toObject()) {
            toJsonb(body, Json(k));
            toJsonb(body, v);
        }
        jsonbElement(out, 12, body);
    }
}

class RiverDriver final : public JobTableDriver {
public:
    RiverDriver(const FormatInfo& fi, const std::string& path, bool jsonb)
        : JobTableDriver(fi, path,
                         {"river_job",
                          "kind",
                          "created_at",
                          "metadata",
                          "running",
                          {"finalized_at"},
                          {"retryable", "cancelled", "pending"},
                          jsonb,
                          false,
                          kRescueAfter}) {}

protected:
    std::string writeTime(TimeNs t) const override {
        // River's timeString: "2006-01-02 15:04:05.999" (ms, zeros trimmed).
        std::string s = isoUtc(t).substr(0, 23);
        s[10] = ' ';
        while (s.back() == '0')
            s.pop_back();
        if (s.back() == '.')
            s.pop_back();
        return s;
    }

    std::string retryRefusal(const Message& m, TimeNs now) const override {
        if (m.statusText == "available" && (!m.scheduledAt || *m.scheduledAt <= now))
            return "is available and due: River's JobRetry leaves it as it is";
        if (m.state == State::Unknown && m.extraState.empty())
            return "has the unknown state '" + m.statusText + "': left alone";
        return {};
    }

    std::int64_t retryRow(Connection& c, const Message& m, TimeNs now) const override {
        // JobRetry: attempt and errors kept; one more attempt when exhausted.
        auto st = c.cached("UPDATE river_job SET state = 'available', scheduled_at = ?2, "
                           "finalized_at = NULL, max_attempts = CASE WHEN attempt = max_attempts "
                           "THEN max_attempts + 1 ELSE max_attempts END WHERE id = ?1 AND state "
                           "<> 'running' AND (state <> 'available' OR " +
                           textTimeKey("scheduled_at") + " > ?3)" + cas(4));
        st->bind(1, m.rowid).bind(2, std::string_view(writeTime(now)));
        bindValues(*st, {textTimeKeyCeil(now)}, 3);
        bindCas(*st, m, 4);
        st->exec();
        return c.changes();
    }

    // ---- river_queue.paused_at (dbsqlc/river_queue.sql, QueuePause/QueueResume) ----
    bool hasQueueTable() const {
        const auto& cols = info().columns;
        return std::find(cols.begin(), cols.end(), "river_queue") != cols.end();
    }

    std::vector<PausedQueue> pausedQueues(Connection& c) const override {
        std::vector<PausedQueue> out;
        if (!hasQueueTable())
            return out;
        Statement st = c.prepare("SELECT name, paused_at FROM river_queue WHERE paused_at IS NOT "
                                 "NULL ORDER BY name");
        while (st.step())
            out.push_back({st.text(0), readTime(st, 1, TimeEncoding::Text)});
        return out;
    }

    PauseRow readPause(Connection& c, const std::string& q) const override {
        PauseRow r;
        Statement st = c.prepare("SELECT paused_at, updated_at FROM river_queue WHERE name = ?");
        st.bind(1, std::string_view(q));
        if (!st.step()) {
            r.missing = "River has no river_queue row for queue \"" + q +
                        "\" (no River client has run it), and River pauses only a queue it has";
            return r;
        }
        r.exists = true;
        r.paused = !st.isNull(0);
        r.since = readTime(st, 0, TimeEncoding::Text);
        Json j = Json::object();
        j.set("paused_at", st.optText(0));
        j.set("updated_at", st.optText(1));
        r.stored = j.dump();
        return r;
    }

    std::int64_t writePause(Connection& c, const std::string& q, bool pause,
                            TimeNs now) const override {
        // River's own statements, with `now` as River's timeString writes it.
        Statement st = c.prepare(
            pause ? "UPDATE river_queue SET paused_at = CASE WHEN paused_at IS NULL THEN ?1 ELSE "
                    "paused_at END, updated_at = CASE WHEN paused_at IS NULL THEN ?1 ELSE "
                    "updated_at END WHERE name = ?2"
                  : "UPDATE river_queue SET paused_at = NULL, updated_at = CASE WHEN paused_at "
                    "IS NOT NULL THEN ?1 ELSE updated_at END WHERE name = ?2");
        st.bind(1, std::string_view(writeTime(now))).bind(2, std::string_view(q)).exec();
        return c.changes();
    }

    std::int64_t restorePause(Connection& c, const std::string& q, const PauseRow& wrote,
                              const PauseRow& before) const override {
        // paused_at back as it was while it still holds what was written;
        // updated_at too unless a client touched the row since.
        const Json w = Json::parse(wrote.stored);
        const Json b = Json::parse(before.stored);
        const auto text = [](const Json& j) {
            return j.isString() ? std::optional<std::string>(j.toString()) : std::nullopt;
        };
        Statement st = c.prepare("UPDATE river_queue SET paused_at = ?1, updated_at = CASE WHEN "
                                 "updated_at IS ?2 THEN ?3 ELSE updated_at END WHERE name = ?4 "
                                 "AND paused_at IS ?5");
        st.bind(1, text(b["paused_at"]))
            .bind(2, text(w["updated_at"]))
            .bind(3, text(b["updated_at"]))
            .bind(4, std::string_view(q))
            .bind(5, text(w["paused_at"]))
            .exec();
        return c.changes();
    }

    /// A JSON column's value as Json (text or JSONB as stored).
    Json decoded(const std::optional<std::string>& stored, const char* fallback) const {
        if (!stored)
            return Json::parse(fallback);
        const std::string bytes = unstored(*stored);
        return Json::parse(spec().jsonb ? jsonb::toJson(bytes) : bytes);
    }

    std::string encoded(const Json& j) const {
        if (!spec().jsonb)
            return j.dump();
        std::string out;
        toJsonb(out, j);
        return out;
    }

    std::int64_t releaseRow(Connection& c, const Message& m, TimeNs now) const override {
        // The JobRescuer: cancelled when a cancel was attempted; retryable
        // at the next retry time with an error appended and
        // river:rescue_count + 1 while attempts are left; else discarded.
        const Raw r = rawOf(m);
        Json meta = decoded(r[kMeta], "{}");
        Json errors = decoded(r[kErrors], "[]");
        std::string state, scheduled = r[kScheduledAt].value_or(""), finalized;
        if (meta.contains("cancel_attempted_at")) {
            state = "cancelled";
            finalized = writeTime(now);
        } else if (m.attempts < m.maxAttempts.value_or(0)) {
            state = "retryable";
            if (!errors.isArray())
                errors = Json::array();
            errors.push(riverRescueError(now, m.attempts));
            // DefaultClientRetryPolicy: (number of errors)^4 seconds.
            const auto n = static_cast<TimeNs>(errors.toArray().size());
            scheduled = writeTime(now + n * n * n * n * kNsPerSecond);
            if (!meta.isObject())
                meta = Json::object();
            meta.set("river:rescue_count", Json(meta["river:rescue_count"].toInt() + 1));
        } else {
            state = "discarded";
            finalized = writeTime(now);
        }
        auto st = c.cached("UPDATE river_job SET state = ?2, scheduled_at = ?3, finalized_at = "
                           "?4, errors = ?5, metadata = ?6 WHERE id = ?1 AND state = 'running' "
                           "AND " +
                           textTimeKey("attempted_at") + " < ?7" + cas(8));
        st->bind(1, m.rowid).bind(2, std::string_view(state)).bind(3, std::string_view(scheduled));
        if (finalized.empty())
            st->bindNull(4);
        else
            st->bind(4, std::string_view(finalized));
        const bool touched = state == "retryable";
        bindJson(*st, 5, touched ? stored(encoded(errors)) : r[kErrors]);
        bindJson(*st, 6, touched ? stored(encoded(meta)) : r[kMeta]);
        bindValues(*st, {encodeTime(now - kRescueAfter, TimeEncoding::Text)}, 7);
        bindCas(*st, m, 8);
        st->exec();
        return c.changes();
    }
};

} // namespace

namespace {

/// Go's time.RFC3339Nano, as River's errors[].at: trailing zeros trimmed.
std::string rfc3339Nano(TimeNs t) {
    std::string s = isoUtc(t);
    s.pop_back(); // 'Z'
    while (s.back() == '0')
        s.pop_back();
    if (s.back() == '.')
        s.pop_back();
    return s + "Z";
}

} // namespace

Json riverRescueError(TimeNs now, std::int64_t attempt) {
    Json e = Json::object();
    e.set("at", Json(rfc3339Nano(now)));
    e.set("attempt", Json(attempt));
    e.set("error", Json(std::string("Stuck job rescued by JobRescuer")));
    e.set("trace", Json(std::string("")));
    return e;
}

std::vector<QueueFormat::ExtraState> RiverFormat::extraStates() const {
    return {{"retryable", {}, "failed, another attempt is scheduled (in no canonical count)"},
            {"cancelled", {}, "cancelled (in no canonical count)"},
            {"pending", {}, "not yet eligible, never fetched until moved (in no canonical count)"},
            {"locked_expired",
             {State::Locked},
             "running with attempted_at over 1 h ago: the JobRescuer would rescue it; counted "
             "in LOCKED and stuck too"}};
}

// River's JobCleaner (internal/maintenance/job_cleaner.go): completed and
// cancelled jobs after 24 h, discarded jobs after 7 days, by finalized_at.
constexpr std::chrono::hours kRiverRetention{24};
constexpr std::chrono::hours kRiverDiscardedRetention{7 * 24};

std::vector<QueueFormat::PruneRule> RiverFormat::pruneRules() const {
    return {{{State::Done}, {"cancelled"}, kRiverRetention},
            {{State::Failed}, {}, kRiverDiscardedRetention}};
}

std::string RiverFormat::pruneText() const {
    return "completed and cancelled jobs finalized more than 24 h ago, discarded jobs more than "
           "7 days ago, as River's JobCleaner";
}

std::vector<QueueFormat::ActionRule> RiverFormat::actionRules(const FormatInfo&) const {
    return {
        {Action::Retry, ""},
        {Action::MarkFailed,
         "River discards a job only from its worker or the JobRescuer: delete it, or "
         "retry it"},
        {Action::Release, ""},
        {Action::Reschedule, "River has no reschedule: retry runs a scheduled job now"},
        {Action::Delete, ""},
        {Action::Prune, ""},
        {Action::RetryExpired,
         "River's JobRescuer rescues running jobs by attempted_at: release them"},
        {Action::Enqueue,
         "enqueue writes litequeue messages; River jobs are inserted by their app"},
        {Action::Vacuum, ""},
        {Action::Upgrade, "River migrates its schema itself (river migrate-up)"},
    };
}

std::string RiverFormat::whyNoPause(const FormatInfo& info) const {
    if (std::find(info.columns.begin(), info.columns.end(), "river_queue") != info.columns.end())
        return {};
    return "this River file has no river_queue table with paused_at, where River keeps its "
           "pauses";
}

std::optional<FormatInfo> RiverFormat::recognise(const SchemaFacts& s,
                                                 const std::string& preferTable) const {
    (void)preferTable;
    if (!s.hasColumns("river_job", kSignature) ||
        !s.hasColumns("river_migration", {"line", "version"}))
        return std::nullopt;
    FormatInfo info;
    info.format = this;
    info.table = "river_job";
    info.queueTables = {"river_job"};
    info.journalMode = s.journalMode;
    const auto& cols = s.columns.at("river_job");
    info.columns.assign(cols.begin(), cols.end());
    // The schema version, not a sniff of the bytes, says JSON or JSONB.
    std::int64_t version = 0;
    if (s.conn) {
        auto st = s.conn->cached("SELECT max(version) FROM river_migration WHERE line = 'main'");
        if (st->step())
            version = st->optInt64(0).value_or(0);
    }
    info.userVersion = version;
    // River's pauses (river_queue.paused_at), listed after the job columns
    // by table name as Solid Queue lists its optional tables.
    if (s.hasColumns("river_queue", {"name", "paused_at", "updated_at"}))
        info.columns.emplace_back("river_queue");
    if (version < 6)
        throw Unsupported(s.path, "River schema version " + std::to_string(version) +
                                      ": river_job is laid by migration 6 (River 0.23+)");
    if (version > 7)
        info.readOnlyReason = "River schema version " + std::to_string(version) +
                              " is newer than 7, the last this tool knows: shown read-only";
    refuseUnexpectedObjects(s, info, {"river_job"}, [](const SchemaObject&) { return false; });
    return info;
}

void RiverFormat::explainNoMatch(const SchemaFacts& s) const {
    if (!s.hasTable("river_job") || !s.hasTable("river_migration"))
        return;
    std::vector<std::string> missing;
    const auto& cols = s.columns.at("river_job");
    for (const auto& c : kSignature)
        if (!cols.count(c))
            missing.push_back(c);
    if (missing.empty())
        return;
    throw Unsupported(s.path, "table river_job lacks the River column(s) " + joinNames(missing) +
                                  ": not a River queue this tool can read");
}

std::unique_ptr<FormatDriver> RiverFormat::driver(const FormatInfo& info,
                                                  const std::string& path) const {
    return std::make_unique<RiverDriver>(info, path, info.userVersion >= 7);
}

} // namespace lq::core
