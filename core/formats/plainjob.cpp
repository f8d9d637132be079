// SPDX-License-Identifier: MIT
// plainjob (docs/FORMATS.md#plainjob; justplainstuff/plainjob@e13a567dcbe7 src/queue.ts).
// One table `plainjob_jobs` holds every job type; the type is the named
// queue. status: 0 pending, 1 processing, 2 done, 3 failed. Times are
// INTEGER ms. There is no claim token: a claim only flips status 0 -> 1, so
// every write guards on (id, status, next_run_at). Maintenance requeues a
// processing job whose next_run_at (its DUE time) is older than the timeout
// (30 min by default), and deletes done rows after 7 days (by next_run_at)
// and failed rows after 30 days (by failed_at).
#include "plainjob.h"

#include "../error.h"
#include "../sqlite.h"
#include "driver.h"
#include "schema.h"

#include <set>

namespace lq::core {

namespace {

constexpr TimeEncoding kMs = TimeEncoding::Ms;
/// plainjob's default processing timeout (worker option, not stored).
constexpr TimeNs kTimeout = 30LL * 60 * kNsPerSecond;

const std::set<std::string> kJobs = {"id",        "type",  "data",        "status",
                                     "failed_at", "error", "next_run_at", "created_at"};
const std::set<std::string> kScheduled = {"id", "type", "status", "cron_expression", "created_at"};

std::int64_t ms(TimeNs t) {
    return std::get<std::int64_t>(encodeTime(t, kMs));
}

class PlainjobDriver final : public FormatDriver {
public:
    PlainjobDriver(const FormatInfo& fi, const std::string& path)
        : FormatDriver(fi, path)
        , m_t(quoteIdent(fi.table)) {}

    std::string columns() const override {
        return "rowid, data, id, status, created_at, next_run_at, failed_at, error, type";
    }

    static void classify(Message& m, TimeNs now) {
        m.extraState.clear();
        switch (m.rawStatus) {
        case 0:
            m.state = (!m.scheduledAt || *m.scheduledAt / 1'000'000 <= ms(now)) ? State::Ready
                                                                                : State::Scheduled;
            break;
        case 1:
            m.state = State::Locked;
            if (m.scheduledAt && *m.scheduledAt / 1'000'000 < ms(now - kTimeout))
                m.extraState = "locked_expired";
            break;
        case 2:
            m.state = State::Done;
            break;
        case 3:
            m.state = State::Failed;
            break;
        default:
            m.state = State::Unknown;
        }
    }

    static std::int64_t tokenOf(std::int64_t status, const std::optional<TimeNs>& due) {
        return textTokenHash(std::to_string(status) + "/" +
                             (due ? std::to_string(*due / 1'000'000) : std::string("NULL")));
    }

    Message readRow(const Statement& st, TimeNs now) const override {
        Message m;
        m.rowid = st.int64(0);
        m.data = st.text(1);
        m.messageId = st.text(2);
        m.rawStatus = st.int64(3);
        m.statusText = std::to_string(m.rawStatus);
        m.inTime = readTime(st, 4, kMs);
        m.scheduledAt = readTime(st, 5, kMs);
        m.doneTime = readTime(st, 6, kMs); // failed_at; done rows have no done time
        m.lastError = st.optText(7);
        m.queueName = st.optText(8);
        m.jobName = m.queueName;
        m.token = tokenOf(m.rawStatus, m.scheduledAt);
        classify(m, now);
        return m;
    }

    std::string idColumn() const override { return "id"; }
    std::string targetColumns() const override { return "id, status, next_run_at"; }
    Target readTarget(const Statement& st) const override {
        return {st.text(0), tokenOf(st.int64(1), readTime(st, 2, kMs))};
    }
    std::string tokenWord() const override { return "status/next_run_at"; }
    std::string tokenShown(const Message& m) const override {
        return "status " + std::to_string(m.rawStatus) + ", next_run_at " +
               (m.scheduledAt ? std::to_string(*m.scheduledAt / 1'000'000) : std::string("NULL"));
    }

    std::string stateCondition(State s, Binds& binds, TimeNs now) const override {
        switch (s) {
        case State::Ready:
            binds.push_back(encodeTime(now, kMs));
            return "(status = 0 AND (next_run_at IS NULL OR next_run_at <= ?))";
        case State::Scheduled:
            binds.push_back(encodeTime(now, kMs));
            return "(status = 0 AND next_run_at > ?)";
        case State::Locked:
            return "status = 1";
        case State::Done:
            return "status = 2";
        case State::Failed:
            return "status = 3";
        case State::Unknown:
            return "(status IS NULL OR status NOT IN (0, 1, 2, 3))";
        default:
            return "0";
        }
    }

    std::string stuckCondition(Binds& binds, TimeNs now, TimeNs) const override {
        // The library's own rule (maintenance): the due time is older than
        // the timeout.
        binds.push_back(encodeTime(now - kTimeout, kMs));
        return "(status = 1 AND next_run_at < ?)";
    }

    std::vector<JsonField> jsonFields() const override { return {{"data", "data"}}; }
    std::vector<std::string> searchColumns() const override {
        return {"id", "type", "data", "error"};
    }
    std::string queueColumn() const override { return "type"; }
    std::string arrivalColumn() const override { return "created_at"; }
    TimeEncoding arrivalEncoding() const override { return kMs; }
    // What maintenance prunes by: failed_at for failed rows, next_run_at for
    // done ones.
    std::string doneColumn() const override {
        return "(CASE status WHEN 3 THEN failed_at ELSE next_run_at END)";
    }
    std::string metricCondition(Filter::Metric, TimeNs, TimeNs, Binds&) const override {
        return "0"; // no claim or finish time is stored (PlainjobFormat::whyNoMetric)
    }

    SortColumns sortColumns() const override {
        SortColumns c;
        c.arrival = "id";
        c.inTime = "created_at";
        c.lockTime = "next_run_at";
        c.claim = "next_run_at";
        c.doneTime = "failed_at";
        c.wait = "failed_at";
        c.processing = "failed_at";
        c.status = "status";
        return c;
    }

    Counts counts(Connection& r, TimeNs now, TimeNs, const std::string& where,
                  const Binds& binds) const override {
        auto st = r.cached("SELECT count(*), "
                           "coalesce(sum(status = 0 AND (next_run_at IS NULL OR "
                           "next_run_at <= ?1)), 0), "
                           "coalesce(sum(status = 0 AND next_run_at > ?1), 0), "
                           "coalesce(sum(status = 1), 0), "
                           "coalesce(sum(status = 1 AND next_run_at < ?2), 0), "
                           "coalesce(sum(status = 2), 0), "
                           "coalesce(sum(status = 3), 0) FROM " +
                           m_t + where);
        bindValues(*st, {encodeTime(now, kMs), encodeTime(now - kTimeout, kMs)});
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

    std::string timingColumns() const override {
        return "status, created_at, next_run_at, failed_at";
    }

    void timingRow(const Statement& st, TimeNs now, TimingColumns& cols) const override {
        constexpr TimeNs none = TimingColumns::kNoTime;
        Message m;
        m.rawStatus = st.int64(0);
        m.scheduledAt = readTime(st, 2, kMs);
        classify(m, now);
        cols.state.push_back(static_cast<std::int8_t>(m.state));
        cols.ownStuck.push_back(m.extraState == "locked_expired" ? 1 : 0);
        cols.inTime.push_back(readTime(st, 1, kMs).value_or(none));
        cols.lockTime.push_back(none); // claim times are not stored
        cols.doneTime.push_back(readTime(st, 3, kMs).value_or(none));
    }

    Filter lockedFilter(TimeNs) const override {
        Filter f;
        f.states = {State::Locked};
        f.stuckOnly = true;
        return f;
    }

    // ---- operator actions --------------------------------------------------

    std::string refusal(Action a, const Message& m, TimeNs now) const override {
        const std::string is = "is " + std::string(stateName(m.state)) + " (status " +
                               std::to_string(m.rawStatus) + ")";
        const bool expired = m.state == State::Locked && !m.extraState.empty();
        (void)now;
        switch (a) {
        case Action::Release:
            if (expired)
                return {};
            if (m.state == State::Locked)
                return "is processing and within plainjob's 30 min timeout: only a job "
                       "maintenance would requeue can be released (the worker may still "
                       "finish it)";
            return is + ": release applies to processing jobs past the timeout";
        case Action::Retry:
            if (m.state == State::Failed)
                return {};
            return is + ": retry applies to FAILED jobs";
        case Action::Reschedule:
            if (m.state == State::Scheduled || m.state == State::Ready)
                return {};
            return is + ": run now applies to pending jobs";
        case Action::Delete:
            if (m.state == State::Locked)
                return "is processing: release it first once it passed the timeout";
            if (m.state == State::Unknown)
                return is + ": unknown status, left alone";
            return {};
        case Action::Prune:
            if (m.state == State::Done || m.state == State::Failed)
                return {};
            return is + ": prune deletes only DONE or FAILED jobs";
        default:
            return std::string(actionName(a)) + " is not offered on plainjob files";
        }
    }

    std::int64_t applyRow(Connection& c, Action a, const Message& m, TimeNs now,
                          const ActionOptions& o) const override {
        const std::string guard = " WHERE id = ?1 AND status = ?2 AND next_run_at IS ?3";
        auto bindGuard = [&](Statement& st) {
            st.bind(1, std::string_view(m.messageId)).bind(2, m.rawStatus);
            bindOptTime(st, 3, m.scheduledAt, kMs);
        };
        if (a == Action::Delete || a == Action::Prune) {
            auto st = c.cached("DELETE FROM " + m_t + guard + " AND status <> 1");
            bindGuard(*st);
            st->exec();
            return c.changes();
        }
        if (a == Action::Release) {
            // docs/FORMATS.md#plainjob release stuck: what maintenance does, but due
            // now. Maintenance keeps the old next_run_at, so the next claim
            // would hold the very (status, next_run_at) the operator saw and
            // look past the timeout at once: a second release with that
            // stale token would take a live worker's job (the stress test
            // found it).
            auto st = c.cached("UPDATE " + m_t + " SET status = 0, next_run_at = ?5" + guard +
                               " AND status = 1 AND next_run_at < ?4");
            bindGuard(*st);
            bindTime(*st, 4, now - kTimeout, kMs);
            bindTime(*st, 5, now, kMs);
            st->exec();
            return c.changes();
        }
        if (a == Action::Reschedule) {
            auto st =
                c.cached("UPDATE " + m_t + " SET next_run_at = ?4" + guard + " AND status = 0");
            bindGuard(*st);
            bindTime(*st, 4, now + o.delay.count(), kMs);
            st->exec();
            return c.changes();
        }
        // Retry a failed job: pending, due now, error cleared.
        auto st = c.cached("UPDATE " + m_t +
                           " SET status = 0, next_run_at = ?4, failed_at = NULL, error = NULL" +
                           guard + " AND status = 3");
        bindGuard(*st);
        bindTime(*st, 4, now, kMs);
        st->exec();
        return c.changes();
    }

    bool holdsWritten(const Message& m, const Message& wrote) const override {
        return m.rawStatus == wrote.rawStatus && m.scheduledAt == wrote.scheduledAt &&
               m.doneTime == wrote.doneTime && m.lastError == wrote.lastError;
    }

    std::int64_t restoreRow(Connection& c, const Message& m, const Message& before,
                            TimeNs) const override {
        auto st = c.cached("UPDATE " + m_t +
                           " SET status = ?4, next_run_at = ?5, failed_at = ?6, error = ?7 "
                           "WHERE id = ?1 AND status = ?2 AND next_run_at IS ?3");
        st->bind(1, std::string_view(m.messageId)).bind(2, m.rawStatus);
        bindOptTime(*st, 3, m.scheduledAt, kMs);
        st->bind(4, before.rawStatus);
        bindOptTime(*st, 5, before.scheduledAt, kMs);
        bindOptTime(*st, 6, before.doneTime, kMs);
        st->bind(7, before.lastError);
        st->exec();
        return c.changes();
    }

    std::string reinsert(Connection& c, const Message& before, TimeNs) const override {
        auto st = c.cached("INSERT INTO " + m_t +
                           " (id, type, data, status, failed_at, error, next_run_at, "
                           "created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
        st->bind(1, std::string_view(before.messageId)).bind(2, before.queueName);
        st->bind(3, std::string_view(before.data)).bind(4, before.rawStatus);
        bindOptTime(*st, 5, before.doneTime, kMs);
        st->bind(6, before.lastError);
        bindOptTime(*st, 7, before.scheduledAt, kMs);
        bindOptTime(*st, 8, before.inTime, kMs);
        st->exec();
        return {};
    }

private:
    std::string m_t;
};

} // namespace

// ---- what the format offers ----------------------------------------------------

std::vector<State> PlainjobFormat::states() const {
    return {State::Ready, State::Scheduled, State::Locked,
            State::Done,  State::Failed,    State::Unknown};
}

std::vector<QueueFormat::ExtraState> PlainjobFormat::extraStates() const {
    return {{"locked_expired",
             {State::Locked},
             "processing, and its due time (next_run_at) is more than plainjob's 30 min "
             "timeout ago: maintenance requeues it, even while it runs; counted in LOCKED "
             "and stuck too"}};
}

std::string PlainjobFormat::whyNoMetric(Filter::Metric m, const FormatInfo& info) const {
    (void)info;
    switch (m) {
    case Filter::Metric::None:
        return {};
    case Filter::Metric::Wait:
        return "plainjob does not store when a job was claimed (a claim only sets status 1), "
               "so wait time cannot be computed";
    case Filter::Metric::Processing:
    case Filter::Metric::Total:
        return "plainjob does not store when a job finished (done only sets status 2), so "
               "processing and total times cannot be computed";
    case Filter::Metric::TimeToFailure:
        return "plainjob does not store claim times; a failed job has only failed_at "
               "(failed_at - created_at is shown in the job's fields)";
    }
    return "unknown metric";
}

std::vector<Action> PlainjobFormat::rowActions() const {
    return {Action::Release, Action::Retry, Action::Reschedule, Action::Delete};
}

std::vector<QueueFormat::ActionRule> PlainjobFormat::actionRules(const FormatInfo&) const {
    return {
        {Action::Retry, ""},
        {Action::MarkFailed,
         "plainjob fails a job only from its worker (markJobAsFailed with the error); "
         "delete it instead"},
        {Action::Release, ""},
        {Action::Reschedule, ""},
        {Action::Delete, ""},
        {Action::Prune, ""},
        {Action::RetryExpired,
         "plainjob's stuck rule is its timeout on next_run_at: release the processing "
         "jobs past it"},
        {Action::Enqueue,
         "enqueue writes litequeue messages; plainjob jobs are added by their app"},
        {Action::Vacuum, ""},
        {Action::Upgrade, "plainjob ships no migrations"},
    };
}

std::optional<FormatInfo> PlainjobFormat::recognise(const SchemaFacts& s,
                                                    const std::string& preferTable) const {
    (void)preferTable;
    if (!s.hasColumns("plainjob_jobs", kJobs) ||
        !s.hasColumns("plainjob_scheduled_jobs", kScheduled))
        return std::nullopt;
    FormatInfo info =
        recognisedInfo(s, this, "plainjob_jobs", {"plainjob_jobs", "plainjob_scheduled_jobs"});
    // plainjob has no triggers.
    refuseUnexpectedObjects(s, info, {"plainjob_jobs", "plainjob_scheduled_jobs"},
                            [](const SchemaObject&) { return false; });
    return info;
}

void PlainjobFormat::explainNoMatch(const SchemaFacts& s) const {
    if (!s.hasTable("plainjob_jobs"))
        return;
    const auto& cols = s.columns.at("plainjob_jobs");
    std::vector<std::string> missing;
    for (const auto& c : kJobs)
        if (!cols.count(c))
            missing.push_back(c);
    if (!s.hasTable("plainjob_scheduled_jobs"))
        missing.emplace_back("(table plainjob_scheduled_jobs)");
    const bool old = !cols.count("next_run_at");
    throw Unsupported(s.path, "table plainjob_jobs lacks " + joinNames(missing) +
                                  (old ? ": a plainjob file older than 0.0.13 (no next_run_at), "
                                         "unsupported"
                                       : ": not a plainjob queue this tool can read"));
}

std::unique_ptr<FormatDriver> PlainjobFormat::driver(const FormatInfo& info,
                                                     const std::string& path) const {
    return std::make_unique<PlainjobDriver>(info, path);
}

std::string PlainjobFormat::fieldLabel(Field f) const {
    switch (f) {
    case Field::Queue:
        return "Type";
    case Field::ScheduledAt:
        return "Next run at";
    case Field::StatusText:
        return "Status";
    default:
        return defaultFieldLabel(f);
    }
}

} // namespace lq::core
