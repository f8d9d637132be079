// SPDX-License-Identifier: MIT
// Hangfire.Storage.SQLite's SQL on one open file (docs/FORMATS.md#hangfire-sqlite).
// Reading goes through one read-only subquery: each Job row with its last
// JobQueue row, its current State row (the last of its StateName: Job.StateId
// is never written by this storage), its last Enqueued and Processing states
// and its times as ns (ticks: 100 ns since 0001-01-01; 0 is "never"). Every
// write is a set of statements under a savepoint, the first one on the Job
// row guarded by the token the operator saw: StateName, the job's last State
// row id, its last JobQueue row id and that row's FetchedAt (a state change
// adds a State row, a fetch sets FetchedAt). They write what Hangfire's own
// state changes write (SQLiteWriteOnlyTransaction: SetJobState, ExpireJob,
// PersistJob, AddToQueue, RemoveFromSet), never its statistics counters.
#include "../error.h"
#include "../json.h"
#include "../sqlite.h"
#include "driver.h"
#include "hangfire.h"
#include "solidqueue_text.h"

#include <sqlite3.h>

#include <memory>
#include <string_view>

namespace lq::core {

namespace {

using solidqueue::j;

/// DateTime.Ticks of 1970-01-01 (the Unix epoch).
constexpr std::int64_t kEpochTicks = 621'355'968'000'000'000LL;

/// A ticks column as ns, NULL for 0 ("never"), a non-integer, or a time an
/// int64 of ns does not hold (before 1678, after 2261).
std::string ns(const std::string& col) {
    return "(CASE WHEN typeof(" + col + ") = 'integer' AND " + col +
           " BETWEEN 529122247631452243 AND 713589688368547758 THEN (" + col + " - " +
           std::to_string(kEpochTicks) + ") * 100 END)";
}

std::int64_t ticksOf(TimeNs t) {
    return (t >= 0 ? t / 100 : (t - 99) / 100) + kEpochTicks;
}

/// JobHelper.SerializeDateTime at the default compatibility level:
/// DateTime.ToString("o"), seven fraction digits.
std::string dotnetIso(TimeNs t) {
    const std::string s = isoUtc(t); // ...SS.nnnnnnnnnZ
    return s.substr(0, 27) + "Z";
}

/// A job's partition kind from StateName and its queue row (kindSql()).
const char* const kKindSql =
    "CASE j.\"StateName\" WHEN 'Enqueued' THEN %A WHEN 'Processing' THEN %A WHEN 'Scheduled' "
    "THEN 'scheduled' WHEN 'Succeeded' THEN 'done' WHEN 'Failed' THEN 'failed' WHEN 'Deleted' "
    "THEN 'deleted' WHEN 'Awaiting' THEN 'awaiting' ELSE 'unknown' END";

std::string kindSql() {
    const std::string active = "(CASE WHEN q.\"Id\" IS NULL THEN 'unknown' WHEN q.\"FetchedAt\" "
                               "IS NULL OR q.\"FetchedAt\" = 0 THEN 'ready' ELSE 'locked' END)";
    std::string out = kKindSql;
    for (auto p = out.find("%A"); p != std::string::npos; p = out.find("%A"))
        out.replace(p, 2, active);
    return out;
}

std::string lastState(const std::string& name) {
    return "(SELECT max(x.\"Id\") FROM \"State\" x WHERE x.\"JobId\" = j.\"Id\" AND x.\"Name\" = " +
           name + ")";
}

std::string jsonField(const std::string& col, const char* key) {
    return "(CASE WHEN json_valid(" + col + ") THEN json_extract(" + col + ", '$." + key +
           "') END)";
}

/// The token: what a state change or a fetch changes.
const char* const kTokenJson =
    "json_object('state', state_name, 'last_state', last_state, 'queue_id', queue_id, "
    "'fetched_at', fetched_at)";

/// "AND the Job row (table "Job") still holds token `?N`".
std::string guard(int n) {
    const std::string t = "json_extract(?" + std::to_string(n) + ", '$.token.";
    return " AND \"StateName\" IS " + t +
           "state') AND (SELECT max(x.\"Id\") FROM \"State\" x WHERE x.\"JobId\" = "
           "\"Job\".\"Id\") IS " +
           t +
           "last_state') AND (SELECT max(x.\"Id\") FROM \"JobQueue\" x WHERE x.\"JobId\" = "
           "\"Job\".\"Id\") IS " +
           t + "queue_id') AND (SELECT x.\"FetchedAt\" FROM \"JobQueue\" x WHERE x.\"Id\" = " + t +
           "queue_id')) IS " + t + "fetched_at')";
}

/// json_group_array of `table`'s rows of the job `job_id`, each with `cols`.
std::string rowsJson(const char* table, std::initializer_list<const char*> cols,
                     const std::string& where) {
    std::string obj;
    for (const char* c : cols)
        obj += std::string(obj.empty() ? "" : ", ") + "'" + c + "', " +
               j(std::string("x.\"") + c + "\"");
    return "(SELECT json_group_array(json_object(" + obj + ")) FROM \"" + table + "\" x WHERE " +
           where + ")";
}

const char* const kSetRows = "x.\"Key\" IN ('schedule', 'awaiting') AND (x.\"Value\" = "
                             "CAST(job_id AS TEXT) OR x.\"Value\" GLOB '*:' || job_id)";

class SavepointGuard {
public:
    explicit SavepointGuard(Connection& c)
        : m_c(c) {
        m_c.exec("SAVEPOINT lq_hangfire_row");
    }
    ~SavepointGuard() {
        if (m_open) {
            try {
                m_c.exec("ROLLBACK TO lq_hangfire_row");
                m_c.exec("RELEASE lq_hangfire_row");
            } catch (...) { // NOLINT(bugprone-empty-catch): the chunk's own rollback follows
            }
        }
    }
    SavepointGuard(const SavepointGuard&) = delete;
    SavepointGuard& operator=(const SavepointGuard&) = delete;
    void commit() {
        m_c.exec("RELEASE lq_hangfire_row");
        m_open = false;
    }

private:
    Connection& m_c;
    bool m_open = true;
};

/// The partition of `kind` (kindSql()): the state, and the format's own.
std::pair<State, const char*> classify(std::string_view kind) {
    if (kind == "ready")
        return {State::Ready, ""};
    if (kind == "scheduled")
        return {State::Scheduled, ""};
    if (kind == "locked")
        return {State::Locked, ""};
    if (kind == "done")
        return {State::Done, ""};
    if (kind == "failed")
        return {State::Failed, ""};
    if (kind == "deleted")
        return {State::Unknown, HangfireFormat::kDeleted};
    if (kind == "awaiting")
        return {State::Unknown, HangfireFormat::kAwaiting};
    return {State::Unknown, ""};
}

/// "Mailer.SendReceipt" from InvocationData's Type ("Shop.Jobs.Mailer,
/// Shop") and Method, as the dashboard names a job.
std::optional<std::string> jobNameOf(std::string_view invocation) {
    try {
        const Json inv = Json::parse(invocation);
        if (!inv.isObject() || !inv["Type"].isString())
            return std::nullopt;
        std::string type = inv["Type"].toString();
        type = type.substr(0, type.find(','));
        if (const auto dot = type.rfind('.'); dot != std::string::npos)
            type = type.substr(dot + 1);
        const Json& m = inv["Method"];
        return m.isString() ? type + "." + m.toString() : type;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

/// The Failed state's exception: "Type: Message", then the details.
std::optional<std::string> errorOf(std::string_view data) {
    try {
        const Json d = Json::parse(data);
        if (!d.isObject())
            return std::nullopt;
        const auto str = [&](const char* k) {
            const Json& v = d[k];
            return v.isString() ? v.toString() : std::string();
        };
        const std::string type = str("ExceptionType"), msg = str("ExceptionMessage"),
                          details = str("ExceptionDetails");
        if (type.empty() && msg.empty() && details.empty())
            return std::nullopt;
        const std::string head = type.empty() ? msg : type + ": " + msg;
        if (details.empty())
            return head;
        // ExceptionDetails is Exception.ToString(): it starts with the same line.
        if (details.rfind(head, 0) == 0)
            return details;
        return head + "\n" + details;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

/// The Scheduled state's EnqueueAt: ISO 8601 ("o"), or a millisecond
/// timestamp (compatibility level 1.7 and later).
std::optional<TimeNs> enqueueAtOf(std::string_view data) {
    try {
        const Json d = Json::parse(data);
        if (!d.isObject() || !d["EnqueueAt"].isString())
            return std::nullopt;
        const std::string v = d["EnqueueAt"].toString();
        if (!v.empty() && v.find_first_not_of("0123456789") == std::string::npos && v.size() < 17)
            return std::stoll(v) * 1'000'000;
        return parseTextTime(v);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

class HangfireDriver final : public FormatDriver {
public:
    HangfireDriver(const FormatInfo& fi, const std::string& path)
        : FormatDriver(fi, path) {
        if (const std::int64_t s = fi.settings.value(HangfireFormat::kInvisibilityTimeoutKey);
            s > 0)
            m_timeout = s * kNsPerSecond;
        const std::string kind = kindSql();
        m_source =
            "(SELECT j.\"Id\" AS rowid, j.\"Id\" AS job_id, j.\"StateName\" AS state_name, "
            "j.\"InvocationData\" AS invocation, j.\"Arguments\" AS arguments, qm.qid AS queue_id, "
            "q.\"FetchedAt\" AS fetched_at, s.\"Id\" AS state_id, s.\"Reason\" AS state_reason, "
            "s.\"Data\" AS state_data, (SELECT max(x.\"Id\") FROM \"State\" x WHERE x.\"JobId\" = "
            "j.\"Id\") AS last_state, " +
            kind + " AS kind, coalesce(q.\"Queue\", " + jsonField("e.\"Data\"", "Queue") + ", " +
            jsonField("j.\"InvocationData\"", "Queue") + ", '" + HangfireFormat::kDefaultQueue +
            "') AS queue_name, " + ns("j.\"CreatedAt\"") + " AS created_ns, " +
            ns("q.\"FetchedAt\"") + " AS fetched_ns, CASE WHEN " + kind + " = 'locked' THEN " +
            ns("q.\"FetchedAt\"") + " ELSE " + ns("p.\"CreatedAt\"") +
            " END AS lock_ns, CASE WHEN j.\"StateName\" IN ('Succeeded', 'Failed', 'Deleted') "
            "THEN " +
            ns("s.\"CreatedAt\"") + " END AS done_ns, " + ns("e.\"CreatedAt\"") +
            " AS wait_from_ns, " + ns("j.\"ExpireAt\"") +
            " AS expire_ns FROM \"Job\" j LEFT JOIN (SELECT \"JobId\" AS qj, max(\"Id\") AS qid "
            "FROM \"JobQueue\" GROUP BY \"JobId\") qm ON qm.qj = j.\"Id\" LEFT JOIN \"JobQueue\" "
            "q ON q.\"Id\" = qm.qid LEFT JOIN \"State\" s ON s.\"Id\" = " +
            lastState("j.\"StateName\"") +
            " LEFT JOIN \"State\" e ON e.\"Id\" = " + lastState("'Enqueued'") +
            " LEFT JOIN \"State\" p ON p.\"Id\" = " + lastState("'Processing'") + ")";
    }

    // ---- reading -------------------------------------------------------------

    std::string source() const override { return m_source; }

    std::string columns() const override {
        return std::string("rowid, job_id, state_name, invocation, arguments, queue_id, "
                           "fetched_at, state_data, kind, queue_name, created_ns, fetched_ns, "
                           "lock_ns, done_ns, wait_from_ns, (SELECT x.\"Value\" FROM "
                           "\"JobParameter\" x WHERE x.\"JobId\" = job_id AND x.\"Name\" = "
                           "'RetryCount' ORDER BY x.\"Id\" DESC LIMIT 1), last_state, ") +
               rawRow();
    }

    Message readRow(const Statement& st, TimeNs now) const override {
        Message m;
        m.rowid = st.int64(0);
        m.messageId = st.text(1);
        m.rawStatus = -1; // the state is a name
        m.statusText = st.text(2);
        m.jobName = jobNameOf(st.textView(3));
        m.dataIsBlob = st.columnType(4) == SQLITE_BLOB;
        m.data = st.text(4);
        m.dataNote = "Arguments: each argument serialized as JSON by Hangfire, shown as text, "
                     "never deserialized";
        const std::string kind = st.text(8);
        const auto [state, extra] = classify(kind);
        m.state = state;
        m.extraState = extra;
        m.queueName = st.optText(9);
        m.inTime = readTime(st, 10, TimeEncoding::Ns);
        const auto fetched = readTime(st, 11, TimeEncoding::Ns);
        m.lockTime = readTime(st, 12, TimeEncoding::Ns);
        m.doneTime = readTime(st, 13, TimeEncoding::Ns);
        m.waitFrom = readTime(st, 14, TimeEncoding::Ns);
        if (st.columnType(15) == SQLITE_TEXT) {
            const std::string v = st.text(15);
            if (!v.empty() && v.find_first_not_of("0123456789") == std::string::npos &&
                v.size() < 10)
                m.attempts = std::stoll(v);
        }
        if (kind == "failed" && st.columnType(7) == SQLITE_TEXT)
            m.lastError = errorOf(st.textView(7));
        if (kind == "scheduled" && st.columnType(7) == SQLITE_TEXT)
            m.scheduledAt = enqueueAtOf(st.textView(7));
        if (kind == "locked") {
            if (fetched)
                m.leaseExpiry = *fetched + m_timeout; // fetched again from then on
            if (fetched && *fetched < now - m_timeout)
                m.extraState = QueueFormat::kStuckState;
        }
        m.formatRow = st.text(17);
        m.token = textTokenHash(tokenOf(m));
        if (st.isNull(5))
            m.tokenText = "no JobQueue row";
        else if (st.columnType(6) != SQLITE_INTEGER || st.int64(6) == 0)
            m.tokenText = "JobQueue row " + st.text(5) + ", not fetched";
        else
            m.tokenText = "JobQueue row " + st.text(5) + ", fetched at " +
                          (fetched ? isoUtc(*fetched) : st.text(6) + " ticks");
        return m;
    }

    std::string idColumn() const override { return "job_id"; }
    std::string targetColumns() const override { return std::string("job_id, ") + kTokenJson; }
    Target readTarget(const Statement& st) const override {
        return {st.text(0), textTokenHash(st.textView(1))};
    }

    // ---- filters, order, counts ----------------------------------------------

    std::string stateCondition(State s, Binds& binds, TimeNs now) const override {
        (void)binds, (void)now;
        switch (s) {
        case State::Ready:
            return "kind = 'ready'";
        case State::Scheduled:
            return "kind = 'scheduled'";
        case State::Locked:
            return "kind = 'locked'";
        case State::Done:
            return "kind = 'done'";
        case State::Failed:
            return "kind = 'failed'";
        case State::Unknown:
            return "kind = 'unknown'";
        default:
            return "0";
        }
    }

    std::string extraStateCondition(const std::string& name, Binds& binds,
                                    TimeNs now) const override {
        if (name == HangfireFormat::kDeleted)
            return "kind = 'deleted'";
        if (name == HangfireFormat::kAwaiting)
            return "kind = 'awaiting'";
        if (name == QueueFormat::kStuckState)
            return stuckCondition(binds, now, 0);
        return "0";
    }

    std::string stuckCondition(Binds& binds, TimeNs now, TimeNs) const override {
        binds.emplace_back(now - m_timeout);
        return "(kind = 'locked' AND fetched_ns < ?)";
    }

    std::vector<JsonField> jsonFields() const override {
        return {{"arguments", "arguments"}, {"invocation", "invocation"}};
    }
    std::vector<std::string> searchColumns() const override {
        return {"CAST(job_id AS TEXT)", "invocation", "arguments", "state_data", "state_name"};
    }
    std::string queueColumn() const override { return "queue_name"; }
    std::string arrivalColumn() const override { return "created_ns"; }
    TimeEncoding arrivalEncoding() const override { return TimeEncoding::Ns; }
    std::string doneColumn() const override { return "done_ns"; }
    TimeEncoding doneEncoding() const override { return TimeEncoding::Ns; }
    // ExpirationManager: ExpireAt < now (strictly); the caller asks <= now.
    std::string expiryColumn() const override { return "(expire_ns + 1)"; }

    std::string metricCondition(Filter::Metric m, TimeNs lo, TimeNs hi,
                                Binds& binds) const override {
        std::string d;
        switch (m) {
        case Filter::Metric::Wait:
            d = "(lock_ns - wait_from_ns)";
            break;
        case Filter::Metric::Processing:
            d = "(CASE WHEN kind = 'done' THEN done_ns - lock_ns END)";
            break;
        case Filter::Metric::Total:
            d = "(CASE WHEN kind = 'done' THEN done_ns - created_ns END)";
            break;
        case Filter::Metric::TimeToFailure:
            d = "(CASE WHEN kind = 'failed' THEN done_ns - lock_ns END)";
            break;
        case Filter::Metric::None:
            return {};
        }
        binds.emplace_back(lo);
        binds.emplace_back(hi);
        return "(" + d + " >= ? AND " + d + " < ?)";
    }

    SortColumns sortColumns() const override {
        SortColumns c;
        c.arrival = "rowid";
        c.inTime = "created_ns";
        c.lockTime = "lock_ns";
        c.claim = "lock_ns";
        c.doneTime = "done_ns";
        c.wait = "(lock_ns - wait_from_ns)";
        c.processing = "(done_ns - lock_ns)";
        c.status = "(CASE kind WHEN 'ready' THEN 0 WHEN 'scheduled' THEN 1 WHEN 'awaiting' THEN 2 "
                   "WHEN 'locked' THEN 3 WHEN 'done' THEN 4 WHEN 'failed' THEN 5 WHEN 'deleted' "
                   "THEN 6 ELSE 7 END)";
        return c;
    }

    // One pass over the jobs: each kind, and the stale fetches among the locked.
    Counts counts(Connection& r, TimeNs now, TimeNs, const std::string& where,
                  const Binds& binds) const override {
        Counts c;
        auto st = r.cached(
            "SELECT count(*), coalesce(sum(kind = 'ready'), 0), coalesce(sum(kind = "
            "'scheduled'), 0), coalesce(sum(kind = 'locked'), 0), coalesce(sum(kind = 'locked' "
            "AND fetched_ns < ?1), 0), coalesce(sum(kind = 'done'), 0), coalesce(sum(kind = "
            "'failed'), 0), coalesce(sum(kind = 'deleted'), 0), coalesce(sum(kind = 'awaiting'), "
            "0), coalesce(sum(kind = 'unknown'), 0) FROM " +
            m_source + where);
        st->bind(1, now - m_timeout);
        bindValues(*st, binds, 2);
        if (st->step()) {
            c.stored = st->int64(0);
            c.ready = st->int64(1);
            c.scheduled = st->int64(2);
            c.locked = st->int64(3);
            c.stuck = st->int64(4);
            c.done = st->int64(5);
            c.failed = st->int64(6);
            c.extra[HangfireFormat::kDeleted] = st->int64(7);
            c.extra[HangfireFormat::kAwaiting] = st->int64(8);
            c.unknown = st->int64(9);
        }
        c.extra[QueueFormat::kStuckState] = c.stuck;
        c.leased = c.locked - c.stuck;
        c.expired = c.stuck;
        return c;
    }

    std::vector<std::string> queueNames(Connection& c) const override {
        std::set<std::string> names;
        distinctValues(c, m_source, "queue_name", names);
        return {names.begin(), names.end()};
    }

    ProcessList processes(Connection& c, TimeNs now) const override;

    std::string timingColumns() const override {
        return "kind, created_ns, lock_ns, done_ns, wait_from_ns, fetched_ns";
    }

    void timingRow(const Statement& st, TimeNs now, TimingColumns& cols) const override {
        constexpr TimeNs none = TimingColumns::kNoTime;
        const std::string_view kind = st.textView(0);
        const State s = classify(kind).first;
        const auto fetched = readTime(st, 5, TimeEncoding::Ns);
        cols.state.push_back(static_cast<std::int8_t>(s));
        cols.ownStuck.push_back(kind == "locked" && fetched && *fetched < now - m_timeout ? 1 : 0);
        cols.inTime.push_back(readTime(st, 1, TimeEncoding::Ns).value_or(none));
        cols.lockTime.push_back(readTime(st, 2, TimeEncoding::Ns).value_or(none));
        cols.doneTime.push_back(readTime(st, 3, TimeEncoding::Ns).value_or(none));
        cols.dueTime.push_back(readTime(st, 4, TimeEncoding::Ns).value_or(none));
    }

    // ---- operator actions --------------------------------------------------

    std::string tokenWord() const override { return "state and fetch"; }
    std::string tokenShown(const Message& m) const override {
        return m.statusText + ", " + m.tokenText.value_or("");
    }

    std::string refusal(Action a, const Message& m, TimeNs now) const override {
        (void)now;
        const std::string is =
            "is " +
            (m.extraState.empty() || m.state != State::Unknown ? std::string(stateName(m.state))
                                                               : m.extraState) +
            " (StateName " + m.statusText + ")";
        const bool deleted = m.extraState == HangfireFormat::kDeleted;
        switch (a) {
        case Action::Retry:
            return m.state == State::Failed || deleted
                       ? std::string()
                       : is + ": requeue applies to Failed and Deleted jobs";
        case Action::Delete:
            if (m.state == State::Locked && m.extraState != QueueFormat::kStuckState)
                return is + ": a worker holds it (fetched within the invisibility timeout); "
                            "removing the job would not stop its run";
            if (m.state == State::Unknown && m.extraState.empty())
                return is + ": left alone";
            return {};
        case Action::Prune:
            return m.state == State::Done || m.state == State::Failed || deleted
                       ? std::string()
                       : is + ": prune deletes only finished jobs (Succeeded, Deleted; Failed "
                              "with --older-than)";
        default:
            return std::string(actionName(a)) + " is not offered on Hangfire files";
        }
    }

    std::int64_t applyRow(Connection& c, Action a, const Message& m, TimeNs now,
                          const ActionOptions&) const override {
        const std::string raw = m.formatRow.value_or("{}");
        const std::int64_t id = m.rowid;
        const std::int64_t nowTicks = ticksOf(now);
        SavepointGuard sp(c);
        if (a == Action::Prune) {
            // ExpirationManager: the job's rows whose ExpireAt passed (the
            // State and JobParameter rows expire with the job).
            auto st = c.cached("DELETE FROM \"Job\" WHERE \"Id\" = ?1" + guard(2));
            st->bind(1, id).bind(2, std::string_view(raw)).exec();
            if (c.changes() != 1)
                return 0;
            for (const char* t : {"State", "JobParameter"}) {
                auto d = c.cached(std::string("DELETE FROM \"") + t + "\" WHERE \"JobId\" = ?1");
                d->bind(1, id).exec();
            }
            sp.commit();
            return 1;
        }
        if (a == Action::Retry) {
            // The dashboard's Requeue: ChangeState(id, new EnqueuedState()):
            // SetJobState, PersistJob (Job.ExpireAt only), AddToQueue.
            const std::string queue = m.queueName.value_or(HangfireFormat::kDefaultQueue);
            auto st = c.cached("UPDATE \"Job\" SET \"StateName\" = 'Enqueued', \"ExpireAt\" = 0 "
                               "WHERE \"Id\" = ?1" +
                               guard(2));
            st->bind(1, id).bind(2, std::string_view(raw)).exec();
            if (c.changes() != 1)
                return 0;
            Json data = Json::object();
            data.set("EnqueuedAt", dotnetIso(now));
            data.set("Queue", queue);
            insertState(c, id, "Enqueued", nowTicks, data.dump(), 0);
            auto q = c.cached("INSERT INTO \"JobQueue\" (\"JobId\", \"Queue\", \"FetchedAt\") "
                              "VALUES (?1, ?2, 0)");
            q->bind(1, id).bind(2, std::string_view(queue)).exec();
            sp.commit();
            return 1;
        }
        if (a == Action::Delete) {
            // The job and every row of it, at once: what the ExpirationManager
            // does to a Deleted job a day later (Job, State, JobParameter),
            // with its JobQueue row (no worker fetches it) and its schedule or
            // awaiting entry (the scheduler does not enqueue it). Hangfire's
            // own Delete, a Deleted state, keeps the job: lqcore's undo of a
            // delete puts a removed row back (docs/FORMATS.md#hangfire-sqlite).
            auto st = c.cached("DELETE FROM \"Job\" WHERE \"Id\" = ?1" + guard(2));
            st->bind(1, id).bind(2, std::string_view(raw)).exec();
            if (c.changes() != 1)
                return 0;
            for (const char* t : {"State", "JobParameter", "JobQueue"}) {
                auto d = c.cached(std::string("DELETE FROM \"") + t + "\" WHERE \"JobId\" = ?1");
                d->bind(1, id).exec();
            }
            auto s = c.cached("DELETE FROM \"Set\" WHERE \"Key\" IN ('schedule', 'awaiting') AND "
                              "(\"Value\" = CAST(?1 AS TEXT) OR \"Value\" GLOB '*:' || ?1)");
            s->bind(1, id).exec();
            sp.commit();
            return 1;
        }
        return 0;
    }

    bool holdsWritten(const Message& m, const Message& wrote) const override {
        return m.formatRow == wrote.formatRow && m.data == wrote.data;
    }

    std::int64_t restoreRow(Connection& c, const Message& m, const Message& before,
                            TimeNs) const override {
        const std::string row = before.formatRow.value_or("{}");
        SavepointGuard sp(c);
        auto st = c.cached("UPDATE \"Job\" SET \"StateName\" = json_extract(?3, "
                           "'$.job.StateName'), \"ExpireAt\" = json_extract(?3, '$.job.ExpireAt') "
                           "WHERE \"Id\" = ?1" +
                           guard(2));
        st->bind(1, m.rowid).bind(2, std::string_view(m.formatRow.value_or("{}")));
        st->bind(3, std::string_view(row)).exec();
        if (c.changes() != 1)
            return 0;
        // Rows the action added go; the ExpireAt of those it changed comes back.
        for (const char* t : {"State", "JobQueue"}) {
            const std::string list = std::string(t) == "State" ? "states" : "queues";
            auto d = c.cached(std::string("DELETE FROM \"") + t +
                              "\" WHERE \"JobId\" = ?1 AND \"Id\" NOT IN (SELECT "
                              "json_extract(je.value, '$.Id') FROM json_each(?2, '$." +
                              list + "') je)");
            d->bind(1, m.rowid).bind(2, std::string_view(row)).exec();
        }
        for (const auto& [t, list] : {std::pair{"State", "states"}, {"JobParameter", "params"}}) {
            auto u =
                c.cached(std::string("UPDATE \"") + t +
                         "\" SET \"ExpireAt\" = (SELECT json_extract(je.value, '$.ExpireAt') "
                         "FROM json_each(?2, '$." +
                         list + "') je WHERE json_extract(je.value, '$.Id') = \"" + std::string(t) +
                         "\".\"Id\") WHERE \"JobId\" = "
                         "?1 AND \"Id\" IN (SELECT json_extract(je.value, '$.Id') FROM "
                         "json_each(?2, '$." +
                         list + "') je)");
            u->bind(1, m.rowid).bind(2, std::string_view(row)).exec();
        }
        insertRows(c, "Set", {"Id", "Key", "Score", "Value", "ExpireAt"}, "sets", row);
        sp.commit();
        return 1;
    }

    std::string reinsert(Connection& c, const Message& before, TimeNs) const override {
        const std::string row = before.formatRow.value_or("{}");
        SavepointGuard sp(c);
        auto st = c.cached("INSERT INTO \"Job\" (\"Id\", \"StateId\", \"StateName\", "
                           "\"InvocationData\", \"Arguments\", \"CreatedAt\", \"ExpireAt\") SELECT "
                           "json_extract(?1, '$.job.Id'), json_extract(?1, '$.job.StateId'), "
                           "json_extract(?1, '$.job.StateName'), json_extract(?1, "
                           "'$.job.InvocationData'), ?2, json_extract(?1, '$.job.CreatedAt'), "
                           "json_extract(?1, '$.job.ExpireAt')");
        st->bind(1, std::string_view(row));
        if (before.dataIsBlob)
            st->bindBlob(2, before.data);
        else
            st->bind(2, std::string_view(before.data));
        st->exec();
        insertRows(c, "State", {"Id", "JobId", "Name", "Reason", "CreatedAt", "Data", "ExpireAt"},
                   "states", row);
        insertRows(c, "JobParameter", {"Id", "JobId", "Name", "Value", "ExpireAt"}, "params", row);
        insertRows(c, "JobQueue", {"Id", "JobId", "Queue", "FetchedAt"}, "queues", row);
        insertRows(c, "Set", {"Id", "Key", "Score", "Value", "ExpireAt"}, "sets", row);
        sp.commit();
        return {};
    }

private:
    /// The job's stored rows as JSON (Message::formatRow): the token, the
    /// Job row but Arguments (Message::data), and its State, JobParameter,
    /// JobQueue and schedule/awaiting Set rows, value for value.
    static std::string rawRow() {
        return std::string("json_object('token', ") + kTokenJson +
               ", 'job', (SELECT json_object('Id', x.\"Id\", 'StateId', " + j("x.\"StateId\"") +
               ", 'StateName', " + j("x.\"StateName\"") + ", 'InvocationData', " +
               j("x.\"InvocationData\"") + ", 'CreatedAt', " + j("x.\"CreatedAt\"") +
               ", 'ExpireAt', " + j("x.\"ExpireAt\"") +
               ") FROM \"Job\" x WHERE x.\"Id\" = job_id), 'states', json(" +
               rowsJson("State", {"Id", "JobId", "Name", "Reason", "CreatedAt", "Data", "ExpireAt"},
                        "x.\"JobId\" = job_id") +
               "), 'params', json(" +
               rowsJson("JobParameter", {"Id", "JobId", "Name", "Value", "ExpireAt"},
                        "x.\"JobId\" = job_id") +
               "), 'queues', json(" +
               rowsJson("JobQueue", {"Id", "JobId", "Queue", "FetchedAt"}, "x.\"JobId\" = job_id") +
               "), 'sets', json(" +
               rowsJson("Set", {"Id", "Key", "Score", "Value", "ExpireAt"}, kSetRows) + "))";
    }

    /// The token as the source computes it (kTokenJson), from formatRow.
    static std::string tokenOf(const Message& m) {
        try {
            return Json::parse(m.formatRow.value_or("{}"))["token"].dump();
        } catch (const std::exception&) {
            return {};
        }
    }

    static void insertState(Connection& c, std::int64_t job, const char* name, std::int64_t at,
                            const std::string& data, std::int64_t expire) {
        auto st = c.cached("INSERT INTO \"State\" (\"JobId\", \"Name\", \"Reason\", "
                           "\"CreatedAt\", \"Data\", \"ExpireAt\") VALUES (?1, ?2, NULL, ?3, "
                           "?4, ?5)");
        st->bind(1, job).bind(2, std::string_view(name)).bind(3, at);
        st->bind(4, std::string_view(data)).bind(5, expire).exec();
    }

    /// Inserts the rows of list `key` of `row` that `table` lacks (by Id).
    static void insertRows(Connection& c, const char* table,
                           std::initializer_list<const char*> cols, const char* key,
                           const std::string& row) {
        std::string names, values;
        for (const char* col : cols) {
            names += std::string(names.empty() ? "" : ", ") + "\"" + col + "\"";
            values +=
                std::string(values.empty() ? "" : ", ") + "json_extract(je.value, '$." + col + "')";
        }
        auto st =
            c.cached(std::string("INSERT INTO \"") + table + "\" (" + names + ") SELECT " + values +
                     " FROM json_each(?1, '$." + key + "') je WHERE NOT EXISTS (SELECT 1 FROM \"" +
                     table + "\" x WHERE x.\"Id\" = json_extract(je.value, '$.Id'))");
        st->bind(1, std::string_view(row)).exec();
    }

    std::string m_source;
    TimeNs m_timeout = HangfireFormat::kDefaultInvisibilityTimeoutSeconds * kNsPerSecond;
};

/// Hangfire's server watchdog removes a server whose heartbeat is older than
/// ServerTimeout (BackgroundJobServerOptions: 5 minutes).
constexpr TimeNs kServerTimeout = 5LL * 60 * kNsPerSecond;

ProcessList HangfireDriver::processes(Connection& c, TimeNs now) const {
    ProcessList out;
    out.aliveRule = "a heartbeat within the last 5 minutes (ServerTimeout; the ServerWatchdog "
                    "removes a server silent for longer)";
    std::map<std::string, std::int64_t> claims;
    {
        // The server of each fetched job's Processing state.
        Statement st =
            c.prepare("SELECT " + jsonField("state_data", "ServerId") + ", count(*) FROM " +
                      m_source + " WHERE kind = 'locked' AND state_name = 'Processing' GROUP BY 1");
        while (st.step())
            claims[st.isNull(0) ? std::string() : st.text(0)] += st.int64(1);
    }
    Statement st = c.prepare("SELECT \"Id\", \"Data\", " + ns("\"LastHeartbeat\"") +
                             " FROM \"Server\" ORDER BY \"Id\"");
    while (st.step()) {
        ProcessInfo p;
        p.id = st.text(0);
        p.kind = "BackgroundJobServer";
        // Server ids are "host:pid:guid".
        const auto a = p.id.find(':'), b = a == std::string::npos ? a : p.id.find(':', a + 1);
        p.host = p.id.substr(0, a);
        if (b != std::string::npos) {
            const std::string pid = p.id.substr(a + 1, b - a - 1);
            if (!pid.empty() && pid.size() < 10 &&
                pid.find_first_not_of("0123456789") == std::string::npos)
                p.pid = std::stoll(pid);
        }
        p.lastHeartbeat = readTime(st, 2, TimeEncoding::Ns);
        p.alive = p.lastHeartbeat && *p.lastHeartbeat > now - kServerTimeout;
        p.metadata = st.text(1);
        if (const auto it = claims.find(p.id); it != claims.end()) {
            p.claimed = it->second;
            claims.erase(it);
        }
        out.processes.push_back(std::move(p));
    }
    for (const auto& [server, n] : claims)
        out.orphanedClaims += n;
    return out;
}

} // namespace

std::unique_ptr<FormatDriver> makeHangfireDriver(const FormatInfo& info, const std::string& path) {
    return std::make_unique<HangfireDriver>(info, path);
}

} // namespace lq::core
