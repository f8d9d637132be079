// SPDX-License-Identifier: MIT
// liteque, Karakeep's job queue (docs/FORMATS.md#liteque; karakeep-app/liteque@394fe166b03a
// src/queue.ts, src/schema.ts). One table `tasks` holds every named queue.
// status: pending, pending_retry, running, failed (kept only with
// keepFailedJobs); completed tasks are deleted. allocationId is a fresh
// random text at every claim and the library's finalize guards on it.
// createdAt and expireAt are INTEGER seconds, availableAt INTEGER ms.
#include "liteque.h"

#include "../error.h"
#include "../sqlite.h"
#include "driver.h"
#include "schema.h"

#include <algorithm>
#include <random>
#include <set>

namespace lq::core {

namespace {

constexpr TimeEncoding kSec = TimeEncoding::WholeSeconds;
constexpr TimeEncoding kMs = TimeEncoding::Ms;

const std::set<std::string> kSignature = {"id",           "queue",       "payload",
                                          "createdAt",    "status",      "expireAt",
                                          "allocationId", "numRunsLeft", "maxNumRuns"};

std::int64_t asInt(const BindValue& v) {
    return std::get<std::int64_t>(v);
}

/// A fresh allocationId like liteque's own (base-36 random text).
std::string freshAllocationId() {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    std::string out;
    std::uint64_t x = rng();
    for (int i = 0; i < 12; ++i) {
        out += "0123456789abcdefghijklmnopqrstuvwxyz"[x % 36];
        x /= 36;
    }
    return out;
}

bool hasColumn(const FormatInfo& info, const char* name) {
    return std::find(info.columns.begin(), info.columns.end(), name) != info.columns.end();
}

class LitequeDriver final : public FormatDriver {
public:
    LitequeDriver(const FormatInfo& fi, const std::string& path)
        : FormatDriver(fi, path)
        , m_t(quoteIdent(fi.table))
        , m_avail(hasColumn(fi, "availableAt") ? "availableAt" : "NULL") {
        m_cols = "rowid, payload, id, status, createdAt, expireAt, " + m_avail + ", " +
                 (fi.hasIdempotencyKey ? "idempotencyKey" : "NULL") +
                 ", allocationId, numRunsLeft, maxNumRuns, " +
                 (hasColumn(fi, "priority") ? "priority" : "NULL") + ", queue";
    }

    std::string columns() const override { return m_cols; }

    static bool expired(const Message& m, TimeNs now) {
        // The library's rule, in whole seconds: expireAt < now_s.
        return m.leaseExpiry && *m.leaseExpiry / kNsPerSecond < asInt(encodeTime(now, kSec));
    }

    static void classify(Message& m, TimeNs now) {
        const std::string& s = m.statusText;
        m.extraState.clear();
        if (s == "pending" || s == "pending_retry") {
            const bool due =
                !m.scheduledAt || *m.scheduledAt / 1'000'000 <= asInt(encodeTime(now, kMs));
            m.state = due ? State::Ready : State::Scheduled;
            if (s == "pending_retry")
                m.extraState = s;
        } else if (s == "running") {
            m.state = State::Locked;
            if (expired(m, now))
                m.extraState = "locked_expired";
        } else if (s == "failed") {
            m.state = State::Failed;
            m.doneTime = m.scheduledAt; // availableAt = the finalize time
        } else {
            m.state = State::Unknown;
        }
    }

    Message readRow(const Statement& st, TimeNs now) const override {
        Message m;
        m.rowid = st.int64(0);
        m.data = st.text(1);
        m.messageId = st.text(2);
        m.rawStatus = -1; // text status
        m.statusText = st.text(3);
        m.inTime = readTime(st, 4, kSec);
        m.leaseExpiry = readTime(st, 5, kSec);
        m.scheduledAt = readTime(st, 6, kMs);
        m.idempotencyKey = st.optText(7);
        m.tokenText = st.text(8);
        m.token = textTokenHash(*m.tokenText);
        const std::int64_t left = st.int64(9);
        m.maxAttempts = st.int64(10);
        m.attempts = *m.maxAttempts - left;
        m.priority = st.optInt64(11);
        m.queueName = st.optText(12);
        // The schedule columns the front ends already show.
        classify(m, now);
        return m;
    }

    std::string idColumn() const override { return "id"; }
    std::string targetColumns() const override { return "id, allocationId"; }
    Target readTarget(const Statement& st) const override {
        return {st.text(0), textTokenHash(st.text(1))};
    }

    std::string stateCondition(State s, Binds& binds, TimeNs now) const override {
        switch (s) {
        case State::Ready:
            binds.push_back(encodeTime(now, kMs));
            return "(status IN ('pending', 'pending_retry') AND (" + m_avail + " IS NULL OR " +
                   m_avail + " <= ?))";
        case State::Scheduled:
            binds.push_back(encodeTime(now, kMs));
            return "(status IN ('pending', 'pending_retry') AND " + m_avail + " > ?)";
        case State::Locked:
            return "status = 'running'";
        case State::Failed:
            return "status = 'failed'";
        case State::Unknown:
            return "(status IS NULL OR status NOT IN ('pending', 'pending_retry', 'running', "
                   "'failed'))";
        default:
            return "0";
        }
    }

    std::string extraStateCondition(const std::string& name, Binds& binds,
                                    TimeNs now) const override {
        if (name == "pending_retry")
            return "status = 'pending_retry'";
        return FormatDriver::extraStateCondition(name, binds, now);
    }

    std::string stuckCondition(Binds& binds, TimeNs now, TimeNs) const override {
        // The library's own rule: the lease (expireAt) lapsed.
        binds.push_back(encodeTime(now, kSec));
        return "(status = 'running' AND expireAt < ?)";
    }

    std::vector<JsonField> jsonFields() const override { return {{"payload", "payload"}}; }
    std::vector<std::string> searchColumns() const override {
        if (info().hasIdempotencyKey)
            return {"id", "queue", "payload", "idempotencyKey"};
        return {"id", "queue", "payload"};
    }
    std::string queueColumn() const override { return "queue"; }
    std::string arrivalColumn() const override { return "createdAt"; }
    TimeEncoding arrivalEncoding() const override { return kSec; }
    // Kept failed tasks: availableAt is the time they failed (prune cutoffs).
    std::string doneColumn() const override { return m_avail; }
    TimeEncoding doneEncoding() const override { return kMs; }
    std::string metricCondition(Filter::Metric, TimeNs, TimeNs, Binds&) const override {
        return "0"; // no latency is stored (LitequeFormat::whyNoMetric)
    }

    SortColumns sortColumns() const override {
        SortColumns c;
        c.arrival = "id";
        c.inTime = "createdAt";
        c.lockTime = "expireAt";
        c.doneTime = m_avail;
        c.wait = m_avail;
        c.processing = m_avail;
        c.claim = "allocationId";
        c.status = "status";
        return c;
    }

    Counts counts(Connection& r, TimeNs now, TimeNs, const std::string& where,
                  const Binds& binds) const override {
        auto st = r.cached("SELECT count(*), "
                           "coalesce(sum(status IN ('pending', 'pending_retry') AND (" +
                           m_avail + " IS NULL OR " + m_avail +
                           " <= ?1)), 0), "
                           "coalesce(sum(status IN ('pending', 'pending_retry') AND " +
                           m_avail +
                           " > ?1), 0), "
                           "coalesce(sum(status = 'running'), 0), "
                           "coalesce(sum(status = 'running' AND expireAt < ?2), 0), "
                           "coalesce(sum(status = 'failed'), 0), "
                           "coalesce(sum(status = 'pending_retry'), 0) FROM " +
                           m_t + where);
        bindValues(*st, {encodeTime(now, kMs), encodeTime(now, kSec)});
        bindValues(*st, binds, 3);
        Counts c;
        if (st->step()) {
            c.stored = st->int64(0);
            c.ready = st->int64(1);
            c.scheduled = st->int64(2);
            c.locked = st->int64(3);
            c.stuck = st->int64(4);
            c.failed = st->int64(5);
            c.unknown = c.stored - c.ready - c.scheduled - c.locked - c.failed;
            // In the lease words of the front ends: a live lease, a lapsed one.
            c.leased = c.locked - c.stuck;
            c.expired = c.stuck;
            c.extra["pending_retry"] = st->int64(6);
            c.extra["locked_expired"] = c.stuck;
        }
        return c;
    }

    std::string timingColumns() const override { return "status, createdAt, expireAt, " + m_avail; }

    void timingRow(const Statement& st, TimeNs now, TimingColumns& cols) const override {
        constexpr TimeNs none = TimingColumns::kNoTime;
        Message m;
        m.statusText = st.text(0);
        m.leaseExpiry = readTime(st, 2, kSec);
        m.scheduledAt = readTime(st, 3, kMs);
        classify(m, now);
        cols.state.push_back(static_cast<std::int8_t>(m.state));
        cols.ownStuck.push_back(m.extraState == "locked_expired" ? 1 : 0);
        cols.inTime.push_back(readTime(st, 1, kSec).value_or(none));
        cols.lockTime.push_back(none); // claim times are not stored
        cols.doneTime.push_back(m.doneTime.value_or(none));
    }

    Filter lockedFilter(TimeNs) const override {
        Filter f;
        f.states = {State::Locked};
        f.stuckOnly = true; // the lease lapsed
        return f;
    }

    // ---- operator actions --------------------------------------------------

    std::string tokenWord() const override { return "allocationId"; }

    std::string refusal(Action a, const Message& m, TimeNs now) const override {
        const std::string is = "is " + std::string(stateName(m.state)) + " (" + m.statusText + ")";
        const bool running = m.statusText == "running";
        switch (a) {
        case Action::Release:
            if (running && expired(m, now))
                return {};
            if (running)
                return "is running and its lease has not expired: only an expired claim can be "
                       "released (the worker may still finish it)";
            return is + ": release applies to running tasks whose lease expired";
        case Action::Retry:
            if (m.statusText == "failed")
                return {};
            return is + ": retry applies to FAILED tasks";
        case Action::Delete:
            if (!running && m.state != State::Unknown)
                return {};
            return running ? "is running: liteque never deletes a running task; release it "
                             "first once its lease expired"
                           : is + ": unknown status, left alone";
        case Action::Prune:
            if (m.statusText == "failed")
                return {};
            return is + ": prune deletes only FAILED tasks (completed ones are already deleted)";
        default:
            return std::string(actionName(a)) + " is not offered on liteque files";
        }
    }

    std::int64_t applyRow(Connection& c, Action a, const Message& m, TimeNs now,
                          const ActionOptions&) const override {
        requireCurrentSchema();
        if (a == Action::Delete || a == Action::Prune) {
            auto st = c.cached("DELETE FROM " + m_t +
                               " WHERE rowid = ?1 AND allocationId = ?2 AND status = ?3 AND "
                               "status <> 'running'");
            st->bind(1, m.rowid).bind(2, std::string_view(*m.tokenText));
            st->bind(3, std::string_view(m.statusText)).exec();
            return c.changes();
        }
        const std::string fresh = freshAllocationId();
        if (a == Action::Release) {
            // docs/FORMATS.md#liteque "release stuck": back to pending_retry, due
            // now, with a fresh allocationId so the old worker's finalize is
            // a no-op; only when the lease lapsed.
            auto st = c.cached("UPDATE " + m_t +
                               " SET status = 'pending_retry', expireAt = NULL, availableAt = ?3, "
                               "allocationId = ?4 WHERE rowid = ?1 AND allocationId = ?2 AND "
                               "status = 'running' AND expireAt < ?5");
            st->bind(1, m.rowid).bind(2, std::string_view(*m.tokenText));
            bindTime(*st, 3, now, kMs);
            st->bind(4, std::string_view(fresh));
            bindTime(*st, 5, now, kSec);
            st->exec();
            return c.changes();
        }
        // Retry a failed task: pending, due now, a fresh run budget.
        auto st = c.cached("UPDATE " + m_t +
                           " SET status = 'pending', numRunsLeft = maxNumRuns, expireAt = NULL, "
                           "availableAt = ?3, allocationId = ?4 WHERE rowid = ?1 AND "
                           "allocationId = ?2 AND status = 'failed'");
        st->bind(1, m.rowid).bind(2, std::string_view(*m.tokenText));
        bindTime(*st, 3, now, kMs);
        st->bind(4, std::string_view(fresh)).exec();
        return c.changes();
    }

    bool holdsWritten(const Message& m, const Message& wrote) const override {
        return m.tokenText == wrote.tokenText && m.statusText == wrote.statusText &&
               m.scheduledAt == wrote.scheduledAt && m.leaseExpiry == wrote.leaseExpiry &&
               m.attempts == wrote.attempts;
    }

    std::int64_t restoreRow(Connection& c, const Message& m, const Message& before,
                            TimeNs) const override {
        requireCurrentSchema();
        auto st = c.cached("UPDATE " + m_t +
                           " SET status = ?3, expireAt = ?4, availableAt = ?5, allocationId = ?6, "
                           "numRunsLeft = ?7 WHERE rowid = ?1 AND allocationId = ?2");
        st->bind(1, m.rowid).bind(2, std::string_view(*m.tokenText));
        st->bind(3, std::string_view(before.statusText));
        bindOptTime(*st, 4, before.leaseExpiry, kSec);
        bindOptTime(*st, 5, before.scheduledAt, kMs);
        st->bind(6, before.tokenText).bind(7, before.maxAttempts.value_or(0) - before.attempts);
        st->exec();
        return c.changes();
    }

    std::string reinsert(Connection& c, const Message& before, TimeNs) const override {
        requireCurrentSchema();
        auto st = c.cached("INSERT INTO " + m_t +
                           " (id, queue, payload, createdAt, status, expireAt, allocationId, "
                           "numRunsLeft, maxNumRuns, idempotencyKey, priority, availableAt) VALUES "
                           "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
        st->bind(1, before.rowid).bind(2, before.queueName).bind(3, std::string_view(before.data));
        bindOptTime(*st, 4, before.inTime, kSec);
        st->bind(5, std::string_view(before.statusText));
        bindOptTime(*st, 6, before.leaseExpiry, kSec);
        st->bind(7, before.tokenText);
        st->bind(8, before.maxAttempts.value_or(0) - before.attempts);
        st->bind(9, before.maxAttempts.value_or(0));
        st->bind(10, before.idempotencyKey).bind(11, before.priority.value_or(0));
        bindOptTime(*st, 12, before.scheduledAt, kMs);
        st->exec();
        return {};
    }

private:
    void requireCurrentSchema() const {
        if (m_avail == "NULL" || !hasColumn(info(), "priority") || !info().hasIdempotencyKey)
            throw ReadOnly(path(), "liteque file older than 0.6.1 (no availableAt, priority or "
                                   "idempotencyKey column): shown read-only");
    }

    std::string m_t;
    std::string m_avail; ///< "availableAt", or "NULL" before liteque 0.6.1
    std::string m_cols;
};

} // namespace

// ---- what the format offers ----------------------------------------------------

std::vector<State> LitequeFormat::states() const {
    return {State::Ready, State::Scheduled, State::Locked, State::Failed, State::Unknown};
}

bool LitequeFormat::hasKeys(const FormatInfo& info) const noexcept {
    return info.hasIdempotencyKey;
}

std::vector<QueueFormat::ExtraState> LitequeFormat::extraStates() const {
    return {{"pending_retry",
             {State::Ready, State::Scheduled},
             "failed before and will run again (counted in READY or SCHEDULED too)"},
            {"locked_expired",
             {State::Locked},
             "running, but its lease (expireAt) lapsed: the next dequeue takes it over; "
             "counted in LOCKED and stuck too"}};
}

std::string LitequeFormat::whyNoMetric(Filter::Metric m, const FormatInfo& info) const {
    (void)info;
    switch (m) {
    case Filter::Metric::None:
        return {};
    case Filter::Metric::Wait:
        return "liteque does not store when a task was claimed (only when its lease expires, "
               "and the timeout is a runner option), so wait time cannot be computed";
    case Filter::Metric::Processing:
    case Filter::Metric::Total:
        return "liteque deletes completed tasks, so processing and total times cannot be "
               "computed";
    case Filter::Metric::TimeToFailure:
        return "liteque does not store claim times; a kept failed task has only its failure "
               "time";
    }
    return "unknown metric";
}

std::vector<Action> LitequeFormat::rowActions() const {
    return {Action::Release, Action::Retry, Action::Delete};
}

std::vector<QueueFormat::ActionRule> LitequeFormat::actionRules(const FormatInfo&) const {
    return {
        {Action::Retry, ""},
        {Action::MarkFailed,
         "liteque fails a task only through its runner (after its last run); delete it "
         "instead"},
        {Action::Release, ""},
        {Action::Reschedule,
         "liteque has no reschedule: availableAt is rewritten by the library at every "
         "finalize"},
        {Action::Delete, ""},
        {Action::Prune, ""},
        {Action::RetryExpired,
         "liteque's lease is expireAt: release the running tasks whose lease expired"},
        {Action::Enqueue,
         "enqueue writes litequeue messages; liteque tasks are added by their app"},
        {Action::Vacuum, ""},
        {Action::Upgrade, "liteque files are migrated by liteque itself (drizzle migrations)"},
    };
}

std::optional<FormatInfo> LitequeFormat::recognise(const SchemaFacts& s,
                                                   const std::string& preferTable) const {
    (void)preferTable;
    if (!s.hasColumns("tasks", kSignature))
        return std::nullopt;
    FormatInfo info = recognisedInfo(s, this, "tasks");
    const auto& cols = s.columns.at("tasks");
    info.hasIdempotencyKey = cols.count("idempotencyKey") > 0;
    if (!s.hasTable("__drizzle_migrations"))
        info.warnings.push_back("no __drizzle_migrations table: not created by liteque's own "
                                "migrations");
    if (!cols.count("availableAt") || !cols.count("priority") || !info.hasIdempotencyKey)
        info.readOnlyReason = "liteque file older than 0.6.1 (no availableAt, priority or "
                              "idempotencyKey column): shown read-only";
    // liteque has no triggers; the app's own tables may have theirs.
    refuseUnexpectedObjects(s, info, {"tasks"}, [](const SchemaObject&) { return false; });
    return info;
}

void LitequeFormat::explainNoMatch(const SchemaFacts& s) const {
    // `tasks` is a common name: only a file with liteque's migrations table
    // beside it is taken for a damaged or unknown liteque file.
    if (!s.hasTable("tasks") || !s.hasTable("__drizzle_migrations"))
        return;
    std::vector<std::string> missing;
    const auto& cols = s.columns.at("tasks");
    for (const auto& c : kSignature)
        if (!cols.count(c))
            missing.push_back(c);
    throw Unsupported(s.path, "table tasks (beside liteque's __drizzle_migrations) lacks the "
                              "liteque column(s) " +
                                  joinNames(missing) + ": not a liteque queue this tool can read");
}

std::unique_ptr<FormatDriver> LitequeFormat::driver(const FormatInfo& info,
                                                    const std::string& path) const {
    return std::make_unique<LitequeDriver>(info, path);
}

std::string LitequeFormat::fieldLabel(Field f) const {
    switch (f) {
    case Field::ScheduledAt:
        return "Available at";
    case Field::LeaseExpiry:
        return "Expire at";
    case Field::Token:
        return "Allocation id";
    case Field::Attempts:
        return "Attempts";
    case Field::StatusText:
        return "Status";
    default:
        return defaultFieldLabel(f);
    }
}

} // namespace lq::core
