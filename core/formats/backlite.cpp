// SPDX-License-Identifier: MIT
// backlite (docs/FORMATS.md#backlite; mikestefanello/backlite@56d2839e4c2e
// internal/query/schema.sql, query.go). Live tasks in backlite_tasks; a
// claim sets claimed_at = now and attempts + 1 with no CAS; a claim older
// than ReleaseAfter is fetched again. Finished tasks are copied to
// backlite_tasks_completed only with Retention. Both tables are read through
// one read-only UNION ALL (completed rows get negative rowids).
#include "backlite.h"

#include "../sqlite.h"
#include "driver.h"
#include "schema.h"

#include <set>

namespace lq::core {

namespace {

constexpr TimeEncoding kMs = TimeEncoding::Ms;

const std::set<std::string> kLive = {
    "id",         "created_at",       "queue",   "task", "wait_until",
    "claimed_at", "last_executed_at", "attempts"};
const std::set<std::string> kDone = {"id",         "created_at",
                                     "queue",      "last_executed_at",
                                     "attempts",   "last_duration_micro",
                                     "succeeded",  "task",
                                     "expires_at", "error"};

class BackliteDriver final : public FormatDriver {
public:
    BackliteDriver(const FormatInfo& fi, const std::string& path)
        : FormatDriver(fi, path)
        , m_releaseSeconds(fi.settings.value(BackliteFormat::kReleaseAfterKey) > 0
                               ? fi.settings.value(BackliteFormat::kReleaseAfterKey)
                               : BackliteFormat::kReleaseAfterSeconds)
        , m_release(m_releaseSeconds * kNsPerSecond) {}

    std::string source() const override {
        return "(SELECT rowid AS rowid, id, created_at, queue, task, wait_until, claimed_at, "
               "last_executed_at, attempts, NULL AS last_duration_micro, NULL AS succeeded, "
               "NULL AS expires_at, NULL AS error, 0 AS completed FROM backlite_tasks UNION ALL "
               "SELECT -rowid, id, created_at, queue, task, NULL, NULL, last_executed_at, "
               "attempts, last_duration_micro, succeeded, expires_at, error, 1 FROM "
               "backlite_tasks_completed)";
    }
    /// No key: the completed arm's rowid is negated, so no range on the
    /// compound source is an index range there (reads are never chunked).
    std::string scanKey() const override { return {}; }
    std::string columns() const override {
        return "rowid, task, id, created_at, wait_until, claimed_at, last_executed_at, attempts, "
               "last_duration_micro, succeeded, expires_at, error, completed, queue";
    }

    void classify(Message& m, bool completed, std::optional<std::int64_t> succeeded,
                  TimeNs now) const {
        m.extraState.clear();
        if (completed) {
            m.state = succeeded.value_or(0) == 1 ? State::Done : State::Failed;
        } else if (m.lockTime) {
            m.state = State::Locked;
            if (*m.lockTime / 1'000'000 < std::get<std::int64_t>(encodeTime(now - m_release, kMs)))
                m.extraState = "locked_expired";
        } else if (m.scheduledAt &&
                   *m.scheduledAt / 1'000'000 > std::get<std::int64_t>(encodeTime(now, kMs))) {
            m.state = State::Scheduled;
        } else {
            m.state = State::Ready;
        }
    }

    static std::int64_t tokenOf(const std::optional<std::int64_t>& claimed, std::int64_t attempts) {
        return textTokenHash((claimed ? std::to_string(*claimed) : std::string("NULL")) + "/" +
                             std::to_string(attempts));
    }

    Message readRow(const Statement& st, TimeNs now) const override {
        Message m;
        m.rowid = st.int64(0);
        m.data = st.text(1);
        m.dataIsBlob = !st.isNull(1);
        m.messageId = st.text(2);
        m.inTime = readTime(st, 3, kMs);
        m.scheduledAt = readTime(st, 4, kMs);
        m.lockTime = readTime(st, 5, kMs);
        const auto started = readTime(st, 6, kMs);
        m.attempts = st.int64(7);
        const auto micros = st.optInt64(8);
        const auto succeeded = st.optInt64(9);
        m.lastError = st.optText(11);
        const bool completed = st.int64(12) != 0;
        m.queueName = st.optText(13);
        m.statusText = completed ? "completed" : "live";
        if (completed) {
            m.lockTime = started; // start of the last attempt
            if (started && micros)
                m.doneTime = *started + *micros * 1000;
            m.leaseExpiry = readTime(st, 10, kMs); // expires_at: retention ends
        } else if (m.lockTime) {
            m.leaseExpiry = *m.lockTime + m_release;
        }
        m.token = tokenOf(st.optInt64(5), m.attempts);
        classify(m, completed, succeeded, now);
        return m;
    }

    std::string idColumn() const override { return "id"; }
    std::string targetColumns() const override { return "id, claimed_at, attempts"; }
    Target readTarget(const Statement& st) const override {
        return {st.text(0), tokenOf(st.optInt64(1), st.int64(2))};
    }
    std::string tokenWord() const override { return "claimed_at/attempts"; }
    std::string tokenShown(const Message& m) const override {
        return "claimed_at " +
               (m.statusText == "live" && m.lockTime ? std::to_string(*m.lockTime / 1'000'000)
                                                     : std::string("NULL")) +
               ", attempts " + std::to_string(m.attempts);
    }

    std::string stateCondition(State s, Binds& binds, TimeNs now) const override {
        switch (s) {
        case State::Ready:
            binds.push_back(encodeTime(now, kMs));
            return "(completed = 0 AND claimed_at IS NULL AND (wait_until IS NULL OR wait_until "
                   "<= ?))";
        case State::Scheduled:
            binds.push_back(encodeTime(now, kMs));
            return "(completed = 0 AND claimed_at IS NULL AND wait_until > ?)";
        case State::Locked:
            return "(completed = 0 AND claimed_at IS NOT NULL)";
        case State::Done:
            return "(completed = 1 AND succeeded = 1)";
        case State::Failed:
            return "(completed = 1 AND coalesce(succeeded, 0) <> 1)";
        default:
            return "0";
        }
    }

    std::string stuckCondition(Binds& binds, TimeNs now, TimeNs) const override {
        binds.push_back(encodeTime(now - m_release, kMs));
        return "(completed = 0 AND claimed_at < ?)";
    }

    std::vector<JsonField> jsonFields() const override { return {{"task", "CAST(task AS TEXT)"}}; }
    std::vector<std::string> searchColumns() const override {
        return {"id", "queue", "CAST(task AS TEXT)", "error"};
    }
    std::string queueColumn() const override { return "queue"; }
    std::string arrivalColumn() const override { return "created_at"; }
    TimeEncoding arrivalEncoding() const override { return kMs; }
    std::string doneColumn() const override {
        return "(last_executed_at + coalesce(last_duration_micro, 0) / 1000)";
    }
    // Retention's expiry (completion + Retention.Duration; NULL: for ever),
    // which backlite's cleaner deletes by (docs/FORMATS.md#backlite).
    std::string expiryColumn() const override { return "expires_at"; }

    SortColumns sortColumns() const override {
        SortColumns c;
        c.arrival = "id";
        c.inTime = "created_at";
        c.lockTime = "claimed_at";
        c.claim = "claimed_at";
        c.doneTime = "last_executed_at";
        c.wait = "last_executed_at";
        c.processing = "last_executed_at";
        c.status = "completed";
        return c;
    }

    Counts counts(Connection& r, TimeNs now, TimeNs, const std::string& where,
                  const Binds& binds) const override {
        auto st =
            r.cached("SELECT count(*), "
                     "coalesce(sum(completed = 0 AND claimed_at IS NULL AND (wait_until IS NULL OR "
                     "wait_until <= ?1)), 0), "
                     "coalesce(sum(completed = 0 AND claimed_at IS NULL AND wait_until > ?1), 0), "
                     "coalesce(sum(completed = 0 AND claimed_at IS NOT NULL), 0), "
                     "coalesce(sum(completed = 0 AND claimed_at < ?2), 0), "
                     "coalesce(sum(completed = 1 AND succeeded = 1), 0), "
                     "coalesce(sum(completed = 1 AND coalesce(succeeded, 0) <> 1), 0) FROM " +
                     source() + where);
        bindValues(*st, {encodeTime(now, kMs), encodeTime(now - m_release, kMs)});
        bindValues(*st, binds, 3);
        Counts c;
        if (st->step()) {
            c.stored = st->int64(0);
            c.ready = st->int64(1);
            c.scheduled = st->int64(2);
            c.locked = st->int64(3);
            c.stuck = st->int64(4);
            c.done = st->int64(5);
            c.failed = st->int64(6);
            c.unknown = c.stored - c.ready - c.scheduled - c.locked - c.done - c.failed;
            c.leased = c.locked - c.stuck;
            c.expired = c.stuck;
            c.extra["locked_expired"] = c.stuck;
        }
        return c;
    }

    std::string metricCondition(Filter::Metric, TimeNs, TimeNs, Binds&) const override {
        return {};
    }

    std::string timingColumns() const override {
        return "completed, succeeded, claimed_at, wait_until, created_at, last_executed_at, "
               "last_duration_micro";
    }

    void timingRow(const Statement& st, TimeNs now, TimingColumns& cols) const override {
        constexpr TimeNs none = TimingColumns::kNoTime;
        Message m;
        const bool completed = st.int64(0) != 0;
        m.lockTime = readTime(st, 2, kMs);
        m.scheduledAt = readTime(st, 3, kMs);
        classify(m, completed, st.optInt64(1), now);
        cols.state.push_back(static_cast<std::int8_t>(m.state));
        cols.ownStuck.push_back(m.extraState == "locked_expired" ? 1 : 0);
        cols.inTime.push_back(readTime(st, 4, kMs).value_or(none));
        const auto started = readTime(st, 5, kMs);
        const auto micros = st.optInt64(6);
        // Completed rows: the last attempt's start and end (wait is exact
        // only for single-attempt tasks, docs/FORMATS.md#backlite).
        cols.lockTime.push_back(completed && started ? *started : none);
        cols.doneTime.push_back(completed && started && micros ? *started + *micros * 1000 : none);
    }

    Filter lockedFilter(TimeNs) const override {
        Filter f;
        f.states = {State::Locked};
        f.stuckOnly = true;
        return f;
    }

    // ---- operator actions --------------------------------------------------

    std::string refusal(Action a, const Message& m, TimeNs) const override {
        const std::string is = "is " + std::string(stateName(m.state));
        const bool expired = m.state == State::Locked && !m.extraState.empty();
        switch (a) {
        case Action::Release:
            if (expired)
                return {};
            if (m.state == State::Locked)
                return "is claimed and within the release timeout (" +
                       std::to_string(m_releaseSeconds) + " s): the worker may still finish it";
            return is + ": release applies to claims past the release timeout";
        case Action::Reschedule:
            if (m.state == State::Scheduled || m.state == State::Ready)
                return {};
            return is + ": run now applies to waiting tasks";
        case Action::Delete:
            if (m.state == State::Locked)
                return "is claimed: release it first once the claim passed the release timeout";
            return {};
        case Action::Prune:
            if (m.state == State::Done || m.state == State::Failed)
                return {};
            return is + ": prune deletes only completed tasks";
        default:
            return std::string(actionName(a)) + " is not offered on backlite files";
        }
    }

    std::int64_t applyRow(Connection& c, Action a, const Message& m, TimeNs now,
                          const ActionOptions& o) const override {
        const bool completed = m.statusText == "completed";
        if (completed) { // Delete or Prune of a completed row
            auto st = c.cached("DELETE FROM backlite_tasks_completed WHERE id = ?1 AND attempts "
                               "= ?2");
            st->bind(1, std::string_view(m.messageId)).bind(2, m.attempts).exec();
            return c.changes();
        }
        const std::string guard = " WHERE id = ?1 AND claimed_at IS ?2 AND attempts = ?3";
        auto bindGuard = [&](Statement& st) {
            st.bind(1, std::string_view(m.messageId));
            bindOptTime(st, 2, m.lockTime, kMs);
            st.bind(3, m.attempts);
        };
        if (a == Action::Delete) {
            auto st = c.cached("DELETE FROM backlite_tasks" + guard + " AND claimed_at IS NULL");
            bindGuard(*st);
            st->exec();
            return c.changes();
        }
        if (a == Action::Release) {
            auto st = c.cached("UPDATE backlite_tasks SET claimed_at = NULL" + guard +
                               " AND claimed_at < ?4");
            bindGuard(*st);
            bindTime(*st, 4, now - m_release, kMs);
            st->exec();
            return c.changes();
        }
        if (a == Action::Reschedule) {
            auto st = c.cached("UPDATE backlite_tasks SET wait_until = ?4" + guard +
                               " AND claimed_at IS NULL");
            bindGuard(*st);
            bindTime(*st, 4, now + o.delay.count(), kMs);
            st->exec();
            return c.changes();
        }
        return 0;
    }

    bool holdsWritten(const Message& m, const Message& wrote) const override {
        return m.token == wrote.token && m.scheduledAt == wrote.scheduledAt;
    }

    std::int64_t restoreRow(Connection& c, const Message& m, const Message& before,
                            TimeNs) const override {
        auto st = c.cached("UPDATE backlite_tasks SET claimed_at = ?4, wait_until = ?5 WHERE id = "
                           "?1 AND claimed_at IS ?2 AND attempts = ?3");
        st->bind(1, std::string_view(m.messageId));
        bindOptTime(*st, 2, m.lockTime, kMs);
        st->bind(3, m.attempts);
        bindOptTime(*st, 4, before.lockTime, kMs);
        bindOptTime(*st, 5, before.scheduledAt, kMs);
        st->exec();
        return c.changes();
    }

    std::string reinsert(Connection& c, const Message& b, TimeNs) const override {
        // Copies the row back from what was read (every column is kept).
        if (b.statusText == "completed") {
            auto st = c.cached(
                "INSERT INTO backlite_tasks_completed (id, created_at, queue, last_executed_at, "
                "attempts, last_duration_micro, succeeded, task, expires_at, error) VALUES (?1, "
                "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
            st->bind(1, std::string_view(b.messageId));
            bindOptTime(*st, 2, b.inTime, kMs);
            st->bind(3, b.queueName);
            bindOptTime(*st, 4, b.lockTime, kMs);
            st->bind(5, b.attempts);
            if (b.lockTime && b.doneTime)
                st->bind(6, (*b.doneTime - *b.lockTime) / 1000);
            else
                st->bindNull(6);
            st->bind(7, b.state == State::Done ? 1 : 0);
            if (b.dataIsBlob)
                st->bindBlob(8, b.data);
            else
                st->bindNull(8);                     // the task was not retained
            bindOptTime(*st, 9, b.leaseExpiry, kMs); // expires_at
            st->bind(10, b.lastError);
            st->exec();
            return {};
        }
        auto st = c.cached("INSERT INTO backlite_tasks (id, created_at, queue, task, wait_until, "
                           "claimed_at, last_executed_at, attempts) VALUES (?1, ?2, ?3, ?4, ?5, "
                           "?6, ?7, ?8)");
        st->bind(1, std::string_view(b.messageId));
        bindOptTime(*st, 2, b.inTime, kMs);
        st->bind(3, b.queueName).bindBlob(4, b.data);
        bindOptTime(*st, 5, b.scheduledAt, kMs);
        bindOptTime(*st, 6, b.lockTime, kMs);
        st->bindNull(7);
        st->bind(8, b.attempts);
        st->exec();
        return b.attempts > 0 ? "restored without last_executed_at (the previous attempt's start)"
                              : std::string();
    }

private:
    std::int64_t m_releaseSeconds; ///< ReleaseAfter (not stored: the setting, or the default)
    TimeNs m_release;
};

} // namespace

std::vector<State> BackliteFormat::states() const {
    return {State::Ready, State::Scheduled, State::Locked, State::Done, State::Failed};
}

std::vector<QueueFormat::ExtraState> BackliteFormat::extraStates() const {
    return {{"locked_expired",
             {State::Locked},
             "claimed more than the release timeout (" + std::to_string(kReleaseAfterSeconds) +
                 " s, backlite's ReleaseAfter, not stored) ago: fetched again by the next "
                 "dispatch; counted in LOCKED and stuck too"}};
}

std::vector<QueueFormat::Setting> BackliteFormat::settings() const {
    return {{std::string(kReleaseAfterKey), "Release after", "seconds", kReleaseAfterSeconds, 1,
             false,
             "backlite's ClientConfig.ReleaseAfter: claim age after which a task is fetched "
             "again; not stored in the file",
             "--release-after"}};
}

std::vector<QueueFormat::PruneRule> BackliteFormat::pruneRules() const {
    // backlite's cleaner (every CleanupInterval): DELETE FROM
    // backlite_tasks_completed WHERE expires_at IS NOT NULL AND expires_at <= now.
    QueueFormat::PruneRule r;
    r.states = {State::Done, State::Failed};
    r.expired = true;
    return {r};
}

std::string BackliteFormat::pruneText() const {
    return "completed tasks whose expires_at (completion + the queue's Retention.Duration) has "
           "passed, as backlite's cleaner; tasks kept for ever (no expiry) stay";
}

std::string BackliteFormat::whyNoMetric(Filter::Metric, const FormatInfo&) const {
    // All four are stored, for the finished tasks backlite keeps (queues
    // with Retention); wait is exact only for single-attempt tasks.
    return {};
}

std::vector<Action> BackliteFormat::rowActions() const {
    return {Action::Release, Action::Reschedule, Action::Delete};
}

std::vector<QueueFormat::ActionRule> BackliteFormat::actionRules(const FormatInfo&) const {
    return {
        {Action::Retry,
         "retrying a failed backlite task moves it between tables (insert into "
         "backlite_tasks, delete the completed row); this tool does not offer it yet"},
        {Action::MarkFailed, "backlite fails a task only from its dispatcher"},
        {Action::Release, ""},
        {Action::Reschedule, ""},
        {Action::Delete, ""},
        {Action::Prune, ""},
        {Action::RetryExpired, "backlite's stuck rule is ReleaseAfter: release the claims past it"},
        {Action::Enqueue,
         "enqueue writes litequeue messages; backlite tasks are added by their app"},
        {Action::Vacuum, ""},
        {Action::Upgrade, "backlite's schema has not changed since Jul 2024"},
    };
}

std::optional<FormatInfo> BackliteFormat::recognise(const SchemaFacts& s,
                                                    const std::string& preferTable) const {
    (void)preferTable;
    if (!s.hasColumns("backlite_tasks", kLive) || !s.hasColumns("backlite_tasks_completed", kDone))
        return std::nullopt;
    FormatInfo info =
        recognisedInfo(s, this, "backlite_tasks", {"backlite_tasks", "backlite_tasks_completed"});
    info.warnings.push_back("ReleaseAfter is not stored in the file: expired claims are counted "
                            "at the release timeout set (default " +
                            std::to_string(kReleaseAfterSeconds) +
                            " s; lqctl --release-after SECONDS)");
    refuseUnexpectedObjects(s, info, {"backlite_tasks", "backlite_tasks_completed"},
                            [](const SchemaObject&) { return false; });
    return info;
}

std::unique_ptr<FormatDriver> BackliteFormat::driver(const FormatInfo& info,
                                                     const std::string& path) const {
    return std::make_unique<BackliteDriver>(info, path);
}

std::string BackliteFormat::fieldLabel(Field f) const {
    switch (f) {
    case Field::ScheduledAt:
        return "Wait until";
    case Field::LeaseExpiry:
        return "Expires";
    case Field::StatusText:
        return "Table";
    default:
        return defaultFieldLabel(f);
    }
}

} // namespace lq::core
