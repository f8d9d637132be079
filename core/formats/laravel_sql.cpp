// SPDX-License-Identifier: MIT
// Laravel's database queue SQL on one open file (docs/FORMATS.md#laravel-database–§2.6).
// Reading goes through one read-only UNION of the jobs rows and the failed
// rows (ids "jobs:N" and "failed_jobs:N"; failed rows get negative rowids).
// Every write is guarded by the row's token: for a jobs row its
// reservation (id, reserved_at, attempts), for a failed row (id, uuid).
#include "../error.h"
#include "../sqlite.h"
#include "driver.h"
#include "laravel.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>

namespace lq::core {

namespace {

/// retry_after of the skeleton's config/queue.php: 90 s (not stored; the
/// operator's setting, the setting LaravelFormat::kRetryAfterKey, when given).
constexpr std::int64_t kDefaultRetryAfterS = LaravelFormat::kDefaultRetryAfterSeconds;

std::string q(const std::string& name) {
    return "\"" + name + "\"";
}

std::string jsonField(const std::string& key) {
    return "(CASE WHEN json_valid(payload) THEN json_extract(payload, '$." + key + "') END)";
}

/// A failed job's enqueue time in ns: the payload's original dispatch time
/// (createdAt, 12.x+; pushedAt where a payload hook stores it), since
/// failed_jobs keeps none of its own.
std::string failedCreatedNs() {
    return "lq_seconds_ns(coalesce(" + jsonField("createdAt") + ", " + jsonField("pushedAt") + "))";
}

/// A stored seconds column in ns (Connection's lq_seconds_ns).
std::string secs(const std::string& col) {
    return "lq_seconds_ns(" + col + ")";
}

/// A stored seconds column's whole seconds (a REAL truncated, as CAST does;
/// saturated at the 64-bit range), nothing for a text or blob.
std::optional<std::int64_t> wholeSeconds(const Statement& st, int col) {
    switch (st.columnType(col)) {
    case SQLITE_INTEGER:
        return st.int64(col);
    case SQLITE_FLOAT:
        return castRealToInteger(st.real(col));
    default:
        return std::nullopt;
    }
}

/// wholeSeconds() in ns, as secs() computes it in SQL: nothing past 64-bit ns.
std::optional<TimeNs> secondsNs(std::optional<std::int64_t> s) {
    constexpr std::int64_t kMax = std::numeric_limits<TimeNs>::max() / kNsPerSecond;
    if (!s || *s > kMax || *s < -kMax)
        return std::nullopt;
    return *s * kNsPerSecond;
}

/// "(arm UNION ALL arm ...)": a subquery over the arms.
std::string unionAll(const std::vector<std::string>& arms) {
    std::string out = "(";
    for (std::size_t i = 0; i < arms.size(); ++i)
        out += (i ? " UNION ALL " : "") + arms[i];
    return out + ")";
}

std::int64_t toSeconds(TimeNs t) {
    return t / kNsPerSecond - ((t % kNsPerSecond < 0) ? 1 : 0);
}

/// Laravel's failed_at: "Y-m-d H:i:s" (UTC, the default app.timezone).
std::string laravelTime(TimeNs t) {
    const auto tt = static_cast<std::time_t>(toSeconds(t));
    std::tm tm{};
    gmtime_r(&tt, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    return buf;
}

class LaravelDriver final : public FormatDriver {
public:
    LaravelDriver(const FormatInfo& fi, const std::string& path)
        : FormatDriver(fi, path) {
        const auto& c = fi.columns;
        if (c.size() >= 2 && c[0] == "failed_table")
            m_failed = c[1];
        m_uuid = std::find(c.begin(), c.end(), "failed_uuid") != c.end();
        if (const std::int64_t s = fi.settings.value(LaravelFormat::kRetryAfterKey); s > 0)
            m_retryAfterS = s;
        // Failed rows have rowid -id: ids of the two tables never collide.
        m_arms.push_back(
            {"SELECT id AS rowid, 'jobs:' || id AS id, 'job' AS kind, queue, payload, attempts, "
             "reserved_at, available_at, created_at, " +
                 secs("created_at") + " AS created_ns, " + secs("reserved_at") +
                 " AS reserved_ns, " + secs("available_at") +
                 " AS available_ns, NULL AS failed_at, NULL AS failed_ns, NULL AS connection, "
                 "NULL AS exception, NULL AS stored_uuid, id AS arm_id FROM " +
                 q(fi.table),
             false});
        if (!m_failed.empty())
            m_arms.push_back(
                {"SELECT -id AS rowid, '" + m_failed +
                     ":' || id AS id, 'failed' AS kind, queue, payload, " + jsonField("attempts") +
                     " AS attempts, NULL AS "
                     "reserved_at, NULL AS available_at, NULL AS created_at, " +
                     failedCreatedNs() +
                     " AS created_ns, "
                     "NULL AS reserved_ns, NULL AS available_ns, failed_at, unixepoch(failed_at) * "
                     "1000000000 AS failed_ns, connection, exception, " +
                     (m_uuid ? std::string("uuid") : std::string("NULL")) +
                     " AS stored_uuid, id AS arm_id FROM " + q(m_failed),
                 true});
        std::vector<std::string> arms;
        for (const SourceArm& a : m_arms)
            arms.push_back(a.sql);
        m_source = unionAll(arms);
        // The same rows without the payloads and texts only search and the
        // row view read: the compound computes (copies) every column.
        m_scanArms.push_back("SELECT id AS rowid, 'job' AS kind, queue, attempts, reserved_at, "
                             "available_at, created_at, " +
                             secs("created_at") + " AS created_ns, " + secs("reserved_at") +
                             " AS reserved_ns, " + secs("available_at") +
                             " AS available_ns, NULL AS failed_at, NULL AS failed_ns, id AS "
                             "arm_id FROM " +
                             q(fi.table));
        if (!m_failed.empty())
            m_scanArms.push_back(
                "SELECT -id AS rowid, 'failed' AS kind, queue, NULL AS attempts, NULL AS "
                "reserved_at, NULL AS available_at, NULL AS created_at, " +
                failedCreatedNs() +
                " AS created_ns, NULL "
                "AS reserved_ns, NULL AS available_ns, failed_at, unixepoch(failed_at) * "
                "1000000000 AS failed_ns, id AS arm_id FROM " +
                q(m_failed));
        m_scanSource = unionAll(m_scanArms);
    }

    std::string source() const override { return m_source; }
    std::string scanSource() const override { return m_scanSource; }
    const std::vector<std::string>& scanArms() const override { return m_scanArms; }
    const std::vector<SourceArm>& sourceArms() const override { return m_arms; }
    /// Each arm's own rowid: a range on it is an index range in both tables.
    std::string scanKey() const override { return "arm_id"; }

    // The payload's JSON fields are read here, for the rows shown, not in
    // source(): a compound subquery computes every column of every row, so a
    // scan (counts, orderings) would parse every payload.
    std::string columns() const override {
        return "rowid, id, kind, queue, payload, attempts, reserved_at, available_at, created_ns, "
               "reserved_ns, available_ns, failed_at, failed_ns, connection, exception, "
               "coalesce(stored_uuid, " +
               jsonField("uuid") + "), " + jsonField("displayName") + ", " + jsonField("maxTries") +
               ", " + jsonField("data.command");
    }

    /// What the payload's data.command is, when it is not JSON: Laravel
    /// stores the job object PHP-serialized (or encrypted), which we show
    /// as text and never unserialize.
    static std::optional<std::string> commandNote(const std::optional<std::string>& command) {
        if (!command || command->size() < 2)
            return std::nullopt;
        const char t = (*command)[0];
        if ((*command)[1] == ':' && std::string_view("OaCsibdN").find(t) != std::string::npos)
            return "data.command is a PHP-serialized job object: shown as text, never "
                   "unserialized";
        if (command->rfind("eyJpdiI", 0) == 0) // base64 of {"iv"
            return "data.command is encrypted (ShouldBeEncrypted): shown as stored";
        return std::nullopt;
    }

    Message readRow(const Statement& st, TimeNs now) const override {
        Message m;
        m.rowid = st.int64(0);
        m.messageId = st.text(1);
        const bool failed = st.text(2) == "failed";
        m.queueName = st.optText(3);
        m.dataIsBlob = st.columnType(4) == SQLITE_BLOB;
        m.data = st.text(4);
        m.attempts = st.columnType(5) == SQLITE_INTEGER ? st.int64(5) : 0;
        m.rawStatus = -1;
        m.jobName = st.optText(16);
        if (st.columnType(17) == SQLITE_INTEGER)
            m.maxAttempts = st.int64(17);
        m.dataNote = commandNote(st.optText(18));
        if (failed) {
            m.state = State::Failed;
            m.statusText = "failed";
            m.doneTime = readTime(st, 12, TimeEncoding::Ns);
            // The attempts and the original push time are the payload's
            // (failed_jobs keeps neither); without them the job's enqueue
            // time is unknown, not its failure time.
            m.inTime = readTime(st, 8, TimeEncoding::Ns);
            if (const auto n = wholeSeconds(st, 5))
                m.attempts = *n;
            m.lastError = st.optText(14);
            m.tokenText = "failed:" + st.text(15);
            m.formatRow = "{\"connection\":" + quoted(st.optText(13)) +
                          ",\"failed_at\":" + quoted(st.optText(11)) +
                          ",\"uuid\":" + quoted(st.optText(15)) + "}";
        } else {
            m.inTime = readTime(st, 8, TimeEncoding::Ns);
            m.lockTime = readTime(st, 9, TimeEncoding::Ns);
            m.scheduledAt = readTime(st, 10, TimeEncoding::Ns);
            m.waitFrom =
                m.scheduledAt; // wait = reserved - available (docs/FORMATS.md#laravel-database)
            const bool reserved = !st.isNull(6);
            m.tokenText = std::to_string(st.int64(0)) + ":" +
                          (reserved ? st.text(6) : std::string("null")) + ":" +
                          std::to_string(m.attempts);
            m.statusText = reserved ? "reserved" : "pending";
            if (reserved) {
                m.state = State::Locked;
                if (m.lockTime) {
                    m.leaseExpiry = *m.lockTime + m_retryAfterS * kNsPerSecond;
                    if (*m.leaseExpiry <= now)
                        m.extraState = "locked_expired";
                }
            } else {
                const bool due =
                    st.columnType(7) == SQLITE_INTEGER && st.int64(7) <= toSeconds(now);
                m.state = due ? State::Ready : State::Scheduled;
            }
        }
        m.token = textTokenHash(*m.tokenText);
        return m;
    }

    static std::string quoted(const std::optional<std::string>& s) {
        if (!s)
            return "null";
        std::string out = "\"";
        for (char ch : *s) {
            if (ch == '"' || ch == '\\')
                out += '\\';
            if (static_cast<unsigned char>(ch) < 0x20) {
                char b[8];
                std::snprintf(b, sizeof b, "\\u%04x", ch);
                out += b;
                continue;
            }
            out += ch;
        }
        return out + "\"";
    }

    std::string idColumn() const override { return "id"; }
    std::string targetColumns() const override {
        return "id, kind, rowid, reserved_at, attempts, stored_uuid";
    }
    Target readTarget(const Statement& st) const override {
        std::string t;
        if (st.text(1) == "failed")
            t = "failed:" + st.text(5);
        else
            t = std::to_string(st.int64(2)) + ":" +
                (st.isNull(3) ? std::string("null") : st.text(3)) + ":" +
                std::to_string(st.columnType(4) == SQLITE_INTEGER ? st.int64(4) : 0);
        return {st.text(0), textTokenHash(t)};
    }

    std::string stateCondition(State s, Binds& binds, TimeNs now) const override {
        switch (s) {
        case State::Ready:
            binds.emplace_back(toSeconds(now));
            return "(kind = 'job' AND reserved_at IS NULL AND typeof(available_at) = 'integer' "
                   "AND available_at <= ?)";
        case State::Scheduled:
            binds.emplace_back(toSeconds(now));
            return "(kind = 'job' AND reserved_at IS NULL AND NOT (typeof(available_at) = "
                   "'integer' AND available_at <= ?))";
        case State::Locked:
            return "(kind = 'job' AND reserved_at IS NOT NULL)";
        case State::Failed:
            return "kind = 'failed'";
        default:
            return "0";
        }
    }

    std::string stuckCondition(Binds& binds, TimeNs now, TimeNs) const override {
        binds.emplace_back((toSeconds(now) - m_retryAfterS) * kNsPerSecond);
        return "(kind = 'job' AND reserved_ns <= ?)";
    }

    std::vector<JsonField> jsonFields() const override {
        return {{"payload", "payload"}, {"data", "payload", "$.data"}};
    }
    std::vector<std::string> searchColumns() const override {
        return {"id", jsonField("displayName"), "payload", "stored_uuid", "exception"};
    }
    std::string queueColumn() const override { return "queue"; }
    std::string arrivalColumn() const override { return "created_ns"; }
    TimeEncoding arrivalEncoding() const override { return TimeEncoding::Ns; }

    std::string metricCondition(Filter::Metric m, TimeNs lo, TimeNs hi,
                                Binds& binds) const override {
        if (m != Filter::Metric::Wait)
            return "0"; // not stored (LaravelFormat::whyNoMetric)
        binds.emplace_back(lo);
        binds.emplace_back(hi);
        return "(reserved_ns - available_ns >= ? AND reserved_ns - available_ns < ?)";
    }

    SortColumns sortColumns() const override {
        SortColumns c;
        c.arrival = "rowid";
        c.claim = "rowid";
        c.inTime = "created_ns";
        c.lockTime = "reserved_ns";
        c.doneTime = "failed_ns";
        c.processing = "failed_ns";
        c.wait = "(reserved_ns - available_ns)";
        c.status = "kind";
        return c;
    }

    // Table by table, the jobs' sums on their stored columns: the arms'
    // computed columns (secs()) cost every row a conversion, and summing
    // constant `kind` tests over the failed rows read each of them where
    // count(*) reads an index. Each CASE stops at the first test that
    // decides the row: a reserved row never reaches the typeof() of
    // available_at. The stuck test compares reserved_at's CAST with ?2 in
    // seconds where stuckCondition() compares reserved_ns, that CAST times
    // 10^9, with ?2 times 10^9: the same answer (a product past 64 bits
    // becomes a REAL of the same sign, still beyond the bound).
    Counts counts(Connection& r, TimeNs now, TimeNs, const std::string& where,
                  const Binds& binds) const override {
        QueueCountsMap m = countsGrouped(r, now, where, binds, false);
        return m.empty() ? Counts{} : std::move(m.begin()->second);
    }

    std::optional<QueueCountsMap> countsByQueue(Connection& r, TimeNs now, TimeNs,
                                                const std::string& where,
                                                const Binds& binds) const override {
        return countsGrouped(r, now, where, binds, true);
    }

    // Grouped by queue (the key nullopt for a NULL queue), or one group
    // (nullopt) with `grouped` false.
    QueueCountsMap countsGrouped(Connection& r, TimeNs now, const std::string& where,
                                 const Binds& binds, bool grouped) const {
        const std::string group = grouped ? "queue" : "NULL";
        const std::string groupBy = grouped ? " GROUP BY queue" : "";
        const auto key = [](const Statement& st) {
            return st.isNull(0) ? std::nullopt : std::optional<std::string>(st.text(0));
        };
        QueueCountsMap out;
        auto jobs = r.cached(
            "SELECT " + group +
            ", count(*), coalesce(sum(CASE WHEN reserved_at IS NOT NULL THEN 0 WHEN "
            "typeof(available_at) = 'integer' THEN available_at <= ?1 ELSE 0 END), 0), "
            "coalesce(sum(reserved_at IS NOT NULL), 0), coalesce(sum(CASE WHEN reserved_at IS "
            "NULL THEN 0 WHEN typeof(reserved_at) IN ('integer', 'real') THEN CAST(reserved_at AS "
            "INTEGER) <= ?2 ELSE 0 END), 0) FROM (" +
            m_arms[0].sql + ")" + where + groupBy);
        bindValues(*jobs, {toSeconds(now), toSeconds(now) - m_retryAfterS});
        bindValues(*jobs, binds, 3);
        while (jobs->step()) {
            Counts& c = out[key(*jobs)];
            c.stored = jobs->int64(1);
            c.ready = jobs->int64(2);
            c.locked = jobs->int64(3);
            c.scheduled = c.stored - c.ready - c.locked; // not reserved, not due
            c.stuck = jobs->int64(4);
        }
        if (m_arms.size() > 1) {
            auto failed = r.cached("SELECT " + group + ", count(*) FROM (" + m_arms[1].sql + ")" +
                                   where + groupBy);
            bindValues(*failed, binds);
            while (failed->step()) {
                Counts& c = out[key(*failed)];
                c.failed = failed->int64(1);
                c.stored += c.failed;
            }
        }
        for (auto& [name, c] : out) {
            c.extra["locked_expired"] = c.stuck;
            c.leased = c.locked - c.stuck;
            c.expired = c.stuck;
        }
        return out;
    }

    std::string timingColumns() const override {
        // The stored seconds, converted here: the CASE of secs() per column
        // and row was a fifth of the scan.
        return "kind, created_at, reserved_at, failed_ns, available_at";
    }

    void timingRow(const Statement& st, TimeNs now, TimingColumns& cols) const override {
        constexpr TimeNs none = TimingColumns::kNoTime;
        const auto reservedS = wholeSeconds(st, 2);
        State s = State::Failed;
        if (st.textView(0) != "failed") {
            if (!st.isNull(2))
                s = State::Locked;
            else
                s = st.columnType(4) == SQLITE_INTEGER && st.int64(4) <= toSeconds(now)
                        ? State::Ready
                        : State::Scheduled;
        }
        cols.state.push_back(static_cast<std::int8_t>(s));
        // Stuck as the worker's pop sees it: reserved retry_after ago (in
        // whole seconds, as counts() compares them, far past ns range too).
        cols.ownStuck.push_back(
            s == State::Locked && reservedS && *reservedS <= toSeconds(now) - m_retryAfterS ? 1
                                                                                            : 0);
        cols.inTime.push_back(secondsNs(wholeSeconds(st, 1)).value_or(none));
        cols.lockTime.push_back(secondsNs(reservedS).value_or(none));
        cols.doneTime.push_back(readTime(st, 3, TimeEncoding::Ns).value_or(none));
        cols.dueTime.push_back(secondsNs(wholeSeconds(st, 4)).value_or(none));
    }

    // ---- operator actions --------------------------------------------------

    std::string tokenWord() const override { return "reservation"; }

    std::string refusal(Action a, const Message& m, TimeNs now) const override {
        (void)now;
        const bool failed = m.state == State::Failed;
        switch (a) {
        case Action::Retry: {
            if (!failed)
                return "is " + std::string(stateName(m.state)) +
                       ": retry applies to failed jobs (queue:retry)";
            const std::string conn = field(m, "connection");
            if (conn != "database" && conn != "default")
                return "failed on connection '" + conn +
                       "', not the database connection that owns this table (queue:retry "
                       "would push it back to that connection)";
            return {};
        }
        case Action::Release:
            if (m.state == State::Locked)
                return m.extraState == "locked_expired"
                           ? std::string()
                           : "is reserved by a live worker (within retry_after, " +
                                 std::to_string(m_retryAfterS) +
                                 " s): only an expired reservation can be released";
            if (m.state == State::Scheduled)
                return {};
            return "is " + std::string(stateName(m.state)) +
                   ": release applies to expired reservations and scheduled jobs";
        case Action::Delete:
            if (m.state == State::Locked && m.extraState.empty())
                return "is reserved by a live worker: deleting it would lose its run";
            return {};
        case Action::Prune:
            return failed ? std::string()
                          : "is " + std::string(stateName(m.state)) +
                                ": prune deletes only failed jobs, as queue:prune-failed does";
        default:
            return std::string(actionName(a)) + " is not offered on Laravel files";
        }
    }

    static std::string field(const Message& m, const char* key) {
        const std::string& r = m.formatRow.value_or("");
        const std::string k = std::string("\"") + key + "\":\"";
        const auto p = r.find(k);
        if (p == std::string::npos)
            return {};
        const auto e = r.find('"', p + k.size());
        return r.substr(p + k.size(), e - p - k.size());
    }

    std::int64_t applyRow(Connection& c, Action a, const Message& m, TimeNs now,
                          const ActionOptions&) const override {
        const std::int64_t s = toSeconds(now);
        if (m.state == State::Failed) {
            const std::int64_t id = -m.rowid;
            if (a == Action::Retry) {
                // RetryCommand: a new jobs row on the failed row's queue, then
                // the failed row deleted; here in one transaction.
                auto ins = c.cached("INSERT INTO " + q(info().table) +
                                    " (queue, payload, attempts, reserved_at, available_at, "
                                    "created_at) SELECT queue, CASE WHEN json_valid(payload) AND "
                                    "json_type(payload, '$.attempts') IS NOT NULL THEN "
                                    "json_set(payload, '$.attempts', 0) ELSE payload END, 0, "
                                    "NULL, ?2, ?2 FROM " +
                                    q(m_failed) + " WHERE id = ?1");
                ins->bind(1, id).bind(2, s).exec();
                if (c.changes() != 1)
                    return 0;
            }
            return deleteFailed(c, m);
        }
        const Reservation r = parse(m);
        if (a == Action::Delete) {
            auto st = c.cached("DELETE FROM " + q(info().table) +
                               " WHERE id = ?1 AND reserved_at IS ?2 AND attempts = ?3");
            st->bind(1, r.id).bind(2, r.reservedAt).bind(3, r.attempts).exec();
            return c.changes();
        }
        if (a == Action::Release) {
            auto st = c.cached("UPDATE " + q(info().table) +
                               " SET reserved_at = NULL, available_at = min(available_at, ?4) "
                               "WHERE id = ?1 AND reserved_at IS ?2 AND attempts = ?3");
            st->bind(1, r.id).bind(2, r.reservedAt).bind(3, r.attempts).bind(4, s).exec();
            return c.changes();
        }
        return 0;
    }

    struct Reservation {
        std::int64_t id = 0;
        std::optional<std::int64_t> reservedAt;
        std::int64_t attempts = 0;
    };

    static Reservation parse(const Message& m) {
        Reservation r;
        const std::string& t = m.tokenText.value_or("0:null:0");
        const auto a = t.find(':');
        const auto b = t.rfind(':');
        r.id = std::stoll(t.substr(0, a));
        const std::string mid = t.substr(a + 1, b - a - 1);
        if (mid != "null")
            r.reservedAt = std::stoll(mid);
        r.attempts = std::stoll(t.substr(b + 1));
        return r;
    }

    std::int64_t deleteFailed(Connection& c, const Message& m) const {
        auto st = c.cached("DELETE FROM " + q(m_failed) + " WHERE id = ?1 AND " +
                           (m_uuid ? "uuid IS ?2" : "?2 IS ?2"));
        st->bind(1, -m.rowid).bind(2, std::string_view(field(m, "uuid"))).exec();
        return c.changes();
    }

    std::optional<std::string> movedTo(Connection& c, Action a,
                                       const Message& before) const override {
        if (a != Action::Retry || before.state != State::Failed)
            return std::nullopt;
        return "jobs:" + std::to_string(c.lastInsertRowid());
    }

    bool holdsWritten(const Message& m, const Message& wrote) const override {
        return m.tokenText == wrote.tokenText && m.data == wrote.data &&
               m.scheduledAt == wrote.scheduledAt;
    }

    std::int64_t restoreRow(Connection& c, const Message& m, const Message& before,
                            TimeNs) const override {
        if (m.state == State::Failed)
            return 0;
        const Reservation now = parse(m);
        if (before.state == State::Failed) {
            // Undo of a retry: the new jobs row, untouched since, goes and
            // the failed row comes back as it was.
            auto del = c.cached("DELETE FROM " + q(info().table) +
                                " WHERE id = ?1 AND reserved_at IS ?2 AND attempts = ?3");
            del->bind(1, now.id).bind(2, now.reservedAt).bind(3, now.attempts).exec();
            if (c.changes() != 1)
                return 0;
            reinsert(c, before, 0);
            return 1;
        }
        const Reservation was = parse(before);
        auto st = c.cached("UPDATE " + q(info().table) +
                           " SET reserved_at = ?4, available_at = ?5 WHERE id = ?1 AND "
                           "reserved_at IS ?2 AND attempts = ?3");
        st->bind(1, now.id).bind(2, now.reservedAt).bind(3, now.attempts).bind(4, was.reservedAt);
        st->bind(5, before.scheduledAt ? toSeconds(*before.scheduledAt) : 0).exec();
        return c.changes();
    }

    std::string reinsert(Connection& c, const Message& before, TimeNs now) const override {
        if (before.state == State::Failed) {
            const std::string failedAt = field(before, "failed_at");
            auto st = c.cached("INSERT INTO " + q(m_failed) + " (id, " + (m_uuid ? "uuid, " : "") +
                               "connection, queue, payload, exception, failed_at) VALUES (?1, " +
                               (m_uuid ? "?2, " : "") + "?3, ?4, ?5, ?6, ?7)");
            st->bind(1, -before.rowid);
            if (m_uuid)
                st->bind(2, std::string_view(field(before, "uuid")));
            st->bind(3, std::string_view(field(before, "connection"))).bind(4, before.queueName);
            st->bind(5, std::string_view(before.data)).bind(6, before.lastError);
            st->bind(7, std::string_view(failedAt.empty() ? laravelTime(now) : failedAt)).exec();
            return {};
        }
        const Reservation r = parse(before);
        auto st = c.cached("INSERT INTO " + q(info().table) +
                           " (id, queue, payload, attempts, reserved_at, available_at, "
                           "created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
        st->bind(1, r.id).bind(2, before.queueName).bind(3, std::string_view(before.data));
        st->bind(4, r.attempts).bind(5, r.reservedAt);
        st->bind(6, before.scheduledAt ? toSeconds(*before.scheduledAt) : toSeconds(now));
        st->bind(7, before.inTime ? toSeconds(*before.inTime) : toSeconds(now)).exec();
        return {};
    }

private:
    std::string m_source;
    std::string m_scanSource; ///< source() without payloads (scanSource())
    std::vector<std::string> m_scanArms;
    std::vector<SourceArm> m_arms;
    std::int64_t m_retryAfterS = kDefaultRetryAfterS;
    std::string m_failed;
    bool m_uuid = false;
};

} // namespace

std::unique_ptr<FormatDriver> makeLaravelDriver(const FormatInfo& info, const std::string& path) {
    return std::make_unique<LaravelDriver>(info, path);
}

} // namespace lq::core
