// SPDX-License-Identifier: MIT
// Solid Queue's SQL on one open file (docs/FORMATS.md#solid-queue–§1.6). Reading goes
// through one read-only subquery: a job row joined to whichever execution
// row holds it (the table is the state), its claiming process, and its
// TEXT times turned into integer ns. Every write is a set of statements on
// the job and its execution rows, under a savepoint, each guarded by the
// execution row the operator saw (table, id, and for a claim its
// process_id). Solid Queue relies on ON DELETE CASCADE from the job to its
// execution rows; this connection does not turn foreign keys on (the pragma
// cannot change inside the action's transaction), so the child rows are
// deleted explicitly.
#include "../error.h"
#include "../json.h"
#include "../sqlite.h"
#include "driver.h"
#include "solidqueue.h"
#include "solidqueue_counts.h"
#include "solidqueue_ops.h"
#include "solidqueue_text.h"

#include <sqlite3.h>

#include <algorithm>
#include <string_view>
#include <utility>

namespace lq::core {

namespace {

using namespace solidqueue;

const char* const kJobs = "solid_queue_jobs";

bool has(const FormatInfo& info, const char* table) {
    // SolidQueueFormat::recognise lists the optional tables in `columns`.
    return std::find(info.columns.begin(), info.columns.end(), table) != info.columns.end();
}

/// A field of the stored-row JSON (Message::formatRow), "" when absent.
std::string rowField(const Message& m, const char* part, const char* key) {
    if (!m.formatRow)
        return {};
    try {
        // Keep the parsed document alive: operator[] returns a reference into it.
        const Json row = Json::parse(*m.formatRow);
        const Json& v = row[part][key];
        return v.isString() ? v.toString() : std::string();
    } catch (const std::exception&) {
        return {};
    }
}

bool isJsonText(const Message& m) {
    if (m.dataIsBlob)
        return false;
    try {
        return Json::parse(m.data).isObject();
    } catch (const std::exception&) {
        return false;
    }
}

class SavepointGuard {
public:
    explicit SavepointGuard(Connection& c)
        : m_c(c) {
        m_c.exec("SAVEPOINT lq_solid_row");
    }
    ~SavepointGuard() {
        if (m_open) {
            try {
                m_c.exec("ROLLBACK TO lq_solid_row");
                m_c.exec("RELEASE lq_solid_row");
            } catch (...) { // NOLINT(bugprone-empty-catch): the chunk's own rollback follows
            }
        }
    }
    SavepointGuard(const SavepointGuard&) = delete;
    SavepointGuard& operator=(const SavepointGuard&) = delete;
    void commit() {
        m_c.exec("RELEASE lq_solid_row");
        m_open = false;
    }

private:
    Connection& m_c;
    bool m_open = true;
};

class SolidQueueDriver final : public FormatDriver {
public:
    SolidQueueDriver(const FormatInfo& fi, const std::string& path)
        : FormatDriver(fi, path) {
        const bool blocked = has(fi, "solid_queue_blocked_executions");
        const bool recurring = has(fi, "solid_queue_recurring_executions");
        const std::string b = blocked ? "solid_queue_blocked_executions"
                                      : "(SELECT NULL AS id, NULL AS job_id, NULL AS queue_name, "
                                        "NULL AS priority, NULL AS concurrency_key, NULL AS "
                                        "expires_at, NULL AS created_at WHERE 0)";
        const std::string rec =
            recurring ? "(SELECT json_object('id', id, 'task_key', " + j("task_key") +
                            ", 'run_at', " + j("run_at") + ", 'created_at', " + j("created_at") +
                            ") FROM solid_queue_recurring_executions WHERE job_id = jb.id LIMIT 1)"
                      : std::string("NULL");
        m_source =
            "(SELECT jb.id AS rowid, jb.id AS id, jb.queue_name AS queue_name, jb.class_name AS "
            "class_name, jb.arguments AS arguments, jb.priority AS priority, jb.active_job_id AS "
            "active_job_id, " +
            ns("jb.created_at") + " AS created_ns, " + ns("jb.scheduled_at") +
            " AS scheduled_ns, CASE WHEN jb.finished_at IS NOT NULL THEN 'finished' WHEN (r.id "
            "IS NOT NULL) + (c.id IS NOT NULL) + (f.id IS NOT NULL) + (s.id IS NOT NULL) + (b.id "
            "IS NOT NULL) <> 1 THEN 'inconsistent' WHEN r.id IS NOT NULL THEN 'ready' WHEN c.id "
            "IS NOT NULL THEN 'claimed' WHEN f.id IS NOT NULL THEN 'failed' WHEN s.id IS NOT "
            "NULL THEN 'scheduled' ELSE 'blocked' END AS kind, coalesce(r.id, c.id, f.id, s.id, "
            "b.id) AS exec_id, c.process_id AS process_id, p.id AS process_row, " +
            ns("p.last_heartbeat_at") + " AS heartbeat_ns, " + ns("c.created_at") +
            " AS claimed_ns, f.error AS error, " + ns("s.scheduled_at") + " AS due_ns, " +
            ns("b.expires_at") + " AS blocked_ns, CASE WHEN jb.finished_at IS NOT NULL THEN " +
            ns("jb.finished_at") + " WHEN f.id IS NOT NULL THEN " + ns("f.created_at") +
            " END AS done_ns, jb.finished_at AS finished_at, jb.created_at AS created_text, "
            "jb.scheduled_at AS scheduled_text, c.created_at AS claimed_text, "
            "p.last_heartbeat_at AS heartbeat_text, s.scheduled_at AS due_text, CASE WHEN "
            "jb.finished_at IS NOT NULL THEN jb.finished_at WHEN f.id IS NOT NULL THEN "
            "f.created_at END AS done_text, CASE WHEN json_valid(jb.arguments) "
            "THEN json_extract(jb.arguments, '$.executions') END AS executions, "
            "json_object('job', json_object('active_job_id', " +
            j("jb.active_job_id") + ", 'concurrency_key', " + j("jb.concurrency_key") +
            ", 'scheduled_at', " + j("jb.scheduled_at") + ", 'finished_at', " +
            j("jb.finished_at") + ", 'created_at', " + j("jb.created_at") + ", 'updated_at', " +
            j("jb.updated_at") +
            "), 'exec', json_object('id', coalesce(r.id, c.id, f.id, s.id, b.id), "
            "'created_at', " +
            j("coalesce(r.created_at, c.created_at, f.created_at, s.created_at, b.created_at)") +
            ", 'queue_name', " + j("coalesce(r.queue_name, s.queue_name, b.queue_name)") +
            ", 'priority', " + j("coalesce(r.priority, s.priority, b.priority)") +
            ", 'process_id', " + j("c.process_id") + ", 'error', " + j("f.error") +
            ", 'scheduled_at', " + j("s.scheduled_at") + ", 'concurrency_key', " +
            j("b.concurrency_key") + ", 'expires_at', " + j("b.expires_at") + "), 'recurring', " +
            rec + ") AS row_json FROM solid_queue_jobs jb " + executionJoins(b) + ")";
        // A whole scan reads finished jobs (most of a file) from the jobs
        // table alone, the columns of the source that a filter, a sort key or
        // timingColumns() name: five index probes a job were three fifths
        // of a million-job statistics scan.
        const std::string scanColumns =
            "rowid, id, queue_name, created_ns, scheduled_ns, kind, exec_id, process_id, "
            "process_row, heartbeat_ns, claimed_ns, due_ns, done_ns, finished_at, created_text, "
            "claimed_text, done_text, due_text, heartbeat_text, scheduled_text";
        m_scanArms = {
            "SELECT jb.id AS rowid, jb.id AS id, jb.queue_name AS queue_name, " +
                ns("jb.created_at") + " AS created_ns, " + ns("jb.scheduled_at") +
                " AS scheduled_ns, 'finished' AS kind, NULL AS exec_id, NULL AS process_id, NULL "
                "AS process_row, NULL AS heartbeat_ns, NULL AS claimed_ns, NULL AS due_ns, " +
                ns("jb.finished_at") +
                " AS done_ns, jb.finished_at AS finished_at, jb.created_at AS created_text, NULL "
                "AS claimed_text, jb.finished_at AS done_text, NULL AS due_text, NULL AS "
                "heartbeat_text, jb.scheduled_at AS scheduled_text FROM solid_queue_jobs jb WHERE "
                "jb.finished_at IS NOT NULL",
            "SELECT " + scanColumns + " FROM " + m_source + " WHERE finished_at IS NULL"};
        m_scanSource = "(" + m_scanArms[0] + " UNION ALL " + m_scanArms[1] + ")";
        m_children = {"solid_queue_ready_executions", "solid_queue_claimed_executions",
                      "solid_queue_failed_executions", "solid_queue_scheduled_executions"};
        if (blocked)
            m_children.emplace_back("solid_queue_blocked_executions");
        m_tableCounts.emplace(m_children);
        if (recurring)
            m_children.emplace_back("solid_queue_recurring_executions");
    }

    std::string source() const override { return m_source; }
    std::string scanSource() const override { return m_scanSource; }
    const std::vector<std::string>& scanArms() const override { return m_scanArms; }

    /// A job's execution rows, its claim's process. A finished job joins
    /// none: Solid Queue deletes the execution in the transaction that
    /// finishes the job, and a leftover row (a damaged file) is not its
    /// state; so the finished jobs of scanArms() are the same rows.
    static std::string executionJoins(const std::string& blocked) {
        std::string out;
        for (const auto& [table, alias] :
             {std::pair<std::string, const char*>{"solid_queue_ready_executions", "r"},
              {"solid_queue_claimed_executions", "c"},
              {"solid_queue_failed_executions", "f"},
              {"solid_queue_scheduled_executions", "s"},
              {blocked, "b"}})
            out.append("LEFT JOIN ")
                .append(table)
                .append(" ")
                .append(alias)
                .append(" ON ")
                .append(alias)
                .append(".job_id = jb.id AND jb.finished_at IS NULL ");
        return out + "LEFT JOIN solid_queue_processes p ON p.id = c.process_id";
    }

    std::string columns() const override {
        return "rowid, id, queue_name, class_name, arguments, priority, created_ns, "
               "scheduled_ns, kind, exec_id, process_id, process_row, heartbeat_ns, claimed_ns, "
               "error, due_ns, blocked_ns, done_ns, finished_at, row_json, executions";
    }

    /// The library's stuck rule: no process, or its heartbeat is too old.
    static std::string stuckSql() {
        return "(process_id IS NULL OR process_row IS NULL OR heartbeat_ns <= ?)";
    }

    Message readRow(const Statement& st, TimeNs now) const override {
        Message m;
        m.rowid = st.int64(0);
        m.messageId = st.text(1);
        m.queueName = st.optText(2);
        m.jobName = st.optText(3);
        m.dataIsBlob = st.columnType(4) == SQLITE_BLOB;
        m.data = st.text(4);
        m.priority = st.optInt64(5);
        m.inTime = readTime(st, 6, TimeEncoding::Ns);
        const std::string kind = st.text(8);
        m.rawStatus = -1; // the state is a table, not a value
        m.statusText = kind;
        m.tokenText = tokenOf(kind, st, 9, 10, 18);
        m.token = textTokenHash(*m.tokenText);
        const auto due = readTime(st, 15, TimeEncoding::Ns);
        m.waitFrom =
            readTime(st, 7, TimeEncoding::Ns); // wait = claim - due (docs/FORMATS.md#solid-queue)
        m.scheduledAt = kind == "scheduled" ? due : m.waitFrom;
        if (kind == "claimed") {
            m.lockTime = readTime(st, 13, TimeEncoding::Ns);
            if (const auto hb = readTime(st, 12, TimeEncoding::Ns); hb && !st.isNull(11))
                m.leaseExpiry = *hb + kAliveThreshold; // abandoned from then on
        } else if (kind == "blocked") {
            m.leaseExpiry = readTime(st, 16, TimeEncoding::Ns);
        }
        m.doneTime = readTime(st, 17, TimeEncoding::Ns);
        m.lastError = st.optText(14);
        m.formatRow = st.optText(19);
        m.attempts = st.columnType(20) == SQLITE_INTEGER ? st.int64(20) : 0;
        classify(m, st.isNull(10) || st.isNull(11), now);
        return m;
    }

    /// The canonical state of a job whose execution is `kind`, and its
    /// extra state ("locked_expired", "blocked" or "").
    static std::pair<State, const char*> classifyKind(std::string_view k, bool noProcess,
                                                      std::optional<TimeNs> due,
                                                      std::optional<TimeNs> leaseExpiry,
                                                      TimeNs now) {
        if (k == "finished")
            return {State::Done, ""};
        if (k == "ready")
            return {State::Ready, ""};
        if (k == "scheduled")
            return {(due && *due > now) ? State::Scheduled : State::Ready, ""};
        if (k == "claimed")
            return {State::Locked,
                    noProcess || (leaseExpiry && *leaseExpiry <= now) ? "locked_expired" : ""};
        if (k == "failed")
            return {State::Failed, ""};
        if (k == "blocked")
            return {State::Unknown, "blocked"}; // in no canonical state: Counts::extra["blocked"]
        return {State::Unknown, ""};            // no execution row, or two
    }

    static void classify(Message& m, bool noProcess, TimeNs now) {
        const auto [state, extra] =
            classifyKind(m.statusText, noProcess, m.scheduledAt, m.leaseExpiry, now);
        m.state = state;
        m.extraState = extra;
    }

    std::string idColumn() const override { return "id"; }
    std::string targetColumns() const override {
        return "id, kind, exec_id, process_id, finished_at";
    }
    Target readTarget(const Statement& st) const override {
        return {st.text(0), textTokenHash(tokenOf(st.text(1), st, 2, 3, 4))};
    }

    std::string stateCondition(State s, Binds& binds, TimeNs now) const override {
        switch (s) {
        case State::Ready:
            binds.emplace_back(now);
            return "(kind = 'ready' OR (kind = 'scheduled' AND (due_ns IS NULL OR due_ns <= ?)))";
        case State::Scheduled:
            binds.emplace_back(now);
            return "(kind = 'scheduled' AND due_ns > ?)";
        case State::Locked:
            return "kind = 'claimed'";
        case State::Done:
            return "kind = 'finished'";
        case State::Failed:
            return "kind = 'failed'";
        case State::Unknown:
            return "kind = 'inconsistent'";
        default:
            return "0";
        }
    }

    std::string extraStateCondition(const std::string& name, Binds& binds,
                                    TimeNs now) const override {
        if (name == "blocked")
            return "kind = 'blocked'";
        return FormatDriver::extraStateCondition(name, binds, now);
    }

    std::string stuckCondition(Binds& binds, TimeNs now, TimeNs) const override {
        binds.emplace_back(now - kAliveThreshold);
        return "(kind = 'claimed' AND " + stuckSql() + ")";
    }

    std::vector<JsonField> jsonFields() const override {
        return {{"arguments", "arguments", "$.arguments"}};
    }
    std::vector<std::string> searchColumns() const override {
        return {"id", "class_name", "arguments", "active_job_id", "error"};
    }
    std::string queueColumn() const override { return "queue_name"; }
    std::string arrivalColumn() const override { return "created_ns"; }
    TimeEncoding arrivalEncoding() const override { return TimeEncoding::Ns; }
    std::string doneColumn() const override { return "done_ns"; }
    TimeEncoding doneEncoding() const override { return TimeEncoding::Ns; }

    std::string metricCondition(Filter::Metric m, TimeNs lo, TimeNs hi,
                                Binds& binds) const override {
        std::string span;
        if (m == Filter::Metric::Wait)
            span = "kind = 'claimed' AND claimed_ns - scheduled_ns";
        else if (m == Filter::Metric::Total)
            span = "kind = 'finished' AND done_ns - created_ns";
        else
            return "0"; // not stored (SolidQueueFormat::whyNoMetric)
        binds.emplace_back(lo);
        binds.emplace_back(hi);
        const std::string d = span.substr(span.rfind("AND ") + 4);
        return "(" + span + " >= ? AND " + d + " < ?)";
    }

    SortColumns sortColumns() const override {
        SortColumns c;
        // The job id is the source's rowid: ordered by it, a long ordering
        // is read in keyset chunks (Queue::orderedRowids).
        c.arrival = "rowid";
        c.inTime = "created_ns";
        c.lockTime = "claimed_ns";
        c.doneTime = "done_ns";
        c.processing = "done_ns";
        c.wait = "(claimed_ns - scheduled_ns)";
        c.claim = "exec_id";
        c.status = "kind";
        return c;
    }

    // On a consistent file (every unfinished job in exactly one execution
    // table, nothing else in them) the counts are the sizes of the tables:
    // TableCounts proves that and counts in one read, for the whole file or
    // a chunk's range of jobs. Otherwise, and for a count narrowed by queue,
    // each unfinished job is classified through its executions.
    Counts counts(Connection& r, TimeNs now, TimeNs, const std::string& where,
                  const Binds& binds) const override {
        if (where.empty())
            if (auto c = m_tableCounts->counts(r, now, TableCounts::everyJob()))
                return *c;
        QueueCountsMap m = countsByJob(r, now, where, binds, false);
        return m.empty() ? Counts{} : std::move(m.begin()->second);
    }
    std::optional<Counts> rangeCounts(Connection& r, TimeNs now, TimeNs, std::int64_t lo,
                                      std::int64_t hi) const override {
        return m_tableCounts->counts(r, now, std::make_pair(lo, hi));
    }

    std::optional<QueueCountsMap> countsByQueue(Connection& r, TimeNs now, TimeNs,
                                                const std::string& where,
                                                const Binds& binds) const override {
        if (where.empty())
            if (auto m = m_tableCounts->byQueue(r, now, TableCounts::everyJob()))
                return m;
        return countsByJob(r, now, where, binds, true);
    }
    std::optional<QueueCountsMap> rangeCountsByQueue(Connection& r, TimeNs now, TimeNs,
                                                     std::int64_t lo,
                                                     std::int64_t hi) const override {
        return m_tableCounts->byQueue(r, now, std::make_pair(lo, hi));
    }

    // Finished jobs (most of a file) need no execution rows: they are counted
    // from the jobs table, and the state of each unfinished job (found through
    // the finished_at index) from its executions. The same sums as one pass
    // over every job.
    // Grouped by queue_name (the key nullopt for a job in none), or one
    // group (nullopt) with `grouped` false.
    QueueCountsMap countsByJob(Connection& r, TimeNs now, const std::string& where,
                               const Binds& binds, bool grouped) const {
        const std::string also = where.empty() ? " WHERE " : where + " AND ";
        const std::string group = grouped ? "queue_name" : "NULL";
        const std::string groupBy = grouped ? " GROUP BY queue_name" : "";
        const auto key = [](const Statement& st) {
            return st.isNull(0) ? std::nullopt : std::optional<std::string>(st.text(0));
        };
        QueueCountsMap out;
        // `where` narrows by queue_name only (Queue::counts), a column of the
        // jobs table itself: no execution row is read for finished jobs.
        // Narrowed to a key range (a chunk), the rowid range is the index to
        // search: `+` keeps the finished_at index, which holds every
        // finished job of the file, out of the plan.
        auto fin = r.cached("SELECT " + group + ", count(*) FROM solid_queue_jobs" + also +
                            (where.empty() ? "" : "+") + "finished_at IS NOT NULL" + groupBy);
        bindValues(*fin, binds);
        while (fin->step()) {
            Counts& c = out[key(*fin)];
            c.done = c.stored = fin->int64(1);
        }
        auto st = r.cached(
            "SELECT " + group +
            ", count(*), "
            "coalesce(sum(kind = 'ready' OR (kind = 'scheduled' AND (due_ns IS NULL OR due_ns "
            "<= ?1))), 0), coalesce(sum(kind = 'scheduled' AND due_ns > ?1), 0), "
            "coalesce(sum(kind = 'claimed'), 0), coalesce(sum(kind = 'claimed' AND (process_id "
            "IS NULL OR process_row IS NULL OR heartbeat_ns <= ?2)), 0), "
            "coalesce(sum(kind = 'finished'), 0), coalesce(sum(kind = 'failed'), 0), "
            "coalesce(sum(kind = 'blocked'), 0), coalesce(sum(kind = 'inconsistent'), 0) FROM " +
            m_source + also + "finished_at IS NULL" + groupBy);
        bindValues(*st, {now, now - kAliveThreshold});
        bindValues(*st, binds, 3);
        while (st->step()) {
            Counts& c = out[key(*st)];
            c.stored += st->int64(1);
            c.ready = st->int64(2);
            c.scheduled = st->int64(3);
            c.locked = st->int64(4);
            c.stuck = st->int64(5);
            c.done += st->int64(6); // 0: kind is 'finished' iff finished_at is set
            c.failed = st->int64(7);
            c.extra["blocked"] = st->int64(8);
            c.unknown = st->int64(9);
        }
        for (auto& [name, c] : out)
            solidqueue::completeCounts(c);
        return out;
    }

    ProcessList processes(Connection& c, TimeNs now) const override {
        return solidqueue::processes(c, now);
    }
    RecurringList recurringTasks(Connection& c, TimeNs now, int tzOffset) const override {
        return solidqueue::recurringTasks(c, info(), now, tzOffset);
    }
    RecurringRun runRecurring(Connection& c, const std::string& key, TimeNs now) const override {
        return solidqueue::runRecurring(c, info(), key, now);
    }
    /// Undo of a run now: the job as a discard takes it (execution, recurring run, row).
    std::int64_t deleteRow(Connection& c, const Message& current) const override {
        return applyRow(c, Action::Delete, current, 0, {});
    }
    std::vector<PausedQueue> pausedQueues(Connection& c) const override {
        return solidqueue::pausedQueues(c, info());
    }
    PauseRow readPause(Connection& c, const std::string& q) const override {
        return solidqueue::readPause(c, q);
    }
    std::int64_t writePause(Connection& c, const std::string& q, bool pause,
                            TimeNs now) const override {
        return solidqueue::writePause(c, q, pause, now);
    }
    std::int64_t restorePause(Connection& c, const std::string& q, const PauseRow& wrote,
                              const PauseRow& before) const override {
        return solidqueue::restorePause(c, q, wrote, before);
    }

    std::vector<std::string> queueNames(Connection& c) const override {
        std::set<std::string> names;
        distinctValues(c, "solid_queue_jobs", "queue_name", names);
        return {names.begin(), names.end()};
    }

    std::string timingColumns() const override {
        // The times as stored, parsed here: strftime() in SQL for each of
        // them was a third of a million-job scan.
        return "kind, created_text, claimed_text, done_text, due_text, process_id, process_row, "
               "heartbeat_text, scheduled_text";
    }

    bool rangeTiming(Connection& r, std::int64_t lo, std::int64_t hi, bool withQueue,
                     const RowSink& row) const override {
        return m_tableCounts->timing(r, std::make_pair(lo, hi), withQueue, row);
    }
    std::optional<std::uint64_t> rangePrint(Connection& r, std::int64_t lo,
                                            std::int64_t hi) const override {
        return m_tableCounts->print(r, std::make_pair(lo, hi));
    }

    void timingRow(const Statement& st, TimeNs now, TimingColumns& cols) const override {
        constexpr TimeNs none = TimingColumns::kNoTime;
        // classify() without a Message per row (its strings were a tenth of
        // the scan).
        std::optional<TimeNs> leaseExpiry;
        if (const auto hb = storedRailsTime(st, 7))
            leaseExpiry = *hb + kAliveThreshold;
        const auto [state, extra] = classifyKind(st.textView(0), st.isNull(5) || st.isNull(6),
                                                 storedRailsTime(st, 4), leaseExpiry, now);
        cols.state.push_back(static_cast<std::int8_t>(state));
        cols.ownStuck.push_back(std::string_view(extra) == "locked_expired" ? 1 : 0);
        // The format's own state, as its place in SolidQueueFormat::extraStates().
        cols.extra.push_back(std::string_view(extra) == "blocked" ? std::int8_t{0}
                             : std::string_view(extra) == "locked_expired"
                                 ? std::int8_t{1}
                                 : TimingColumns::kNoExtra);
        // When classifyKind() would say otherwise: a scheduled row falls due,
        // a live claim's lease runs out.
        std::optional<TimeNs> turns;
        if (state == State::Scheduled)
            turns = storedRailsTime(st, 4);
        else if (state == State::Locked && cols.ownStuck.back() == 0)
            turns = leaseExpiry;
        if (turns && *turns > now && *turns < cols.changesAt)
            cols.changesAt = *turns;
        cols.inTime.push_back(storedRailsTime(st, 1).value_or(none));
        cols.lockTime.push_back(storedRailsTime(st, 2).value_or(none));
        cols.doneTime.push_back(storedRailsTime(st, 3).value_or(none));
        cols.dueTime.push_back(storedRailsTime(st, 8).value_or(none));
    }

    // ---- operator actions --------------------------------------------------

    std::string tokenWord() const override { return "execution"; }

    std::string refusal(Action a, const Message& m, TimeNs now) const override {
        const std::string& k = m.statusText;
        const std::string is = "is " + std::string(stateName(m.state)) + " (" + k + ")";
        const bool limited = !rowField(m, "job", "concurrency_key").empty();
        switch (a) {
        case Action::Retry:
            if (k != "failed")
                return is + ": retry applies to FAILED jobs";
            if (limited)
                return "is concurrency-limited (concurrency_key set): its limit lives in the job "
                       "class, not in the file, so retry it from the app (Mission Control)";
            if (!isJsonText(m))
                return "its arguments are not JSON text (Active Job's serialization): retry "
                       "would have to rewrite them; left alone";
            return {};
        case Action::Release:
            if (k == "claimed") {
                if (m.extraState == "locked_expired")
                    return {};
                return "is running and its process is alive (heartbeat within 5 minutes): only "
                       "a claim whose process is gone or silent can be released";
            }
            if (k == "scheduled")
                return m.scheduledAt && *m.scheduledAt > now
                           ? std::string()
                           : "is already due: the dispatcher moves it to ready within a second";
            if (k == "blocked")
                return {};
            return is + ": release applies to abandoned claims, scheduled and blocked jobs";
        case Action::Delete:
            if (k == "claimed")
                return "is running: Solid Queue refuses to discard a claimed job "
                       "(UndiscardableError); release it first if its process is gone";
            if (k == "ready" && limited)
                return "is ready and concurrency-limited: discarding it must give its semaphore "
                       "back, whose limit lives in the job class; discard it from the app";
            if (isExecution(k))
                return {};
            return is + ": discard applies to ready, scheduled, failed and blocked jobs";
        case Action::Prune:
            if (k == "finished")
                return {};
            return is + ": prune deletes only finished jobs, as clear_finished_in_batches does "
                        "(discard failed jobs instead)";
        default:
            return std::string(actionName(a)) + " is not offered on Solid Queue files";
        }
    }

    std::int64_t applyRow(Connection& c, Action a, const Message& m, TimeNs now,
                          const ActionOptions&) const override {
        const Token t = parseToken(m.tokenText.value_or(""));
        const std::int64_t id = m.rowid;
        const std::string nowText = railsTime(now);
        SavepointGuard sp(c);
        if (a == Action::Prune) {
            auto st = c.cached(std::string("DELETE FROM ") + kJobs +
                               " WHERE id = ?1 AND finished_at IS NOT NULL AND finished_at = ?2");
            st->bind(1, id).bind(2, std::string_view(m.tokenText->substr(9))).exec();
            if (c.changes() != 1)
                return 0;
            deleteChildren(c, id);
            sp.commit();
            return 1;
        }
        if (deleteExecution(c, t, id) != 1)
            return 0;
        if (a == Action::Delete) {
            deleteChildren(c, id);
            auto st = c.cached(std::string("DELETE FROM ") + kJobs + " WHERE id = ?1");
            st->bind(1, id).exec();
            if (c.changes() != 1)
                return 0;
        } else if (a == Action::Retry) {
            // FailedExecution#retry: reset the counters, then prepare the job
            // again: due -> ready, otherwise scheduled.
            auto st = c.cached(std::string("UPDATE ") + kJobs +
                               " SET arguments = json_set(arguments, '$.executions', 0, "
                               "'$.exception_executions', json('{}')), updated_at = ?2 WHERE id "
                               "= ?1 AND finished_at IS NULL AND json_valid(arguments)");
            st->bind(1, id).bind(2, std::string_view(nowText)).exec();
            if (c.changes() != 1)
                return 0;
            const bool due = !m.scheduledAt || *m.scheduledAt <= now;
            if (insertFromJob(c, due ? "ready" : "scheduled", id, nowText) != 1)
                return 0;
        } else if (a == Action::Release && t.kind == "scheduled") {
            // Mission Control's Dispatch: the scheduled execution is due now.
            if (insertExecution(c, "scheduled", id, withScheduledAt(m, nowText)) != 1)
                return 0;
        } else if (a == Action::Release) {
            // ClaimedExecution#release (a claim) or Dispatch (a blocked job):
            // a ready row, bypassing the concurrency limit as the library does.
            if (insertFromJob(c, "ready", id, nowText) != 1)
                return 0;
        } else {
            return 0;
        }
        sp.commit();
        return 1;
    }

    bool holdsWritten(const Message& m, const Message& wrote) const override {
        return m.tokenText == wrote.tokenText && m.data == wrote.data &&
               m.formatRow == wrote.formatRow;
    }

    std::int64_t restoreRow(Connection& c, const Message& m, const Message& before,
                            TimeNs) const override {
        SavepointGuard sp(c);
        const Token now = parseToken(m.tokenText.value_or(""));
        if (isExecution(now.kind) && deleteExecution(c, now, m.rowid) != 1)
            return 0;
        const std::string row = before.formatRow.value_or("{}");
        auto st = c.cached(std::string("UPDATE ") + kJobs +
                           " SET arguments = ?2, scheduled_at = json_extract(?3, "
                           "'$.job.scheduled_at'), finished_at = json_extract(?3, "
                           "'$.job.finished_at'), updated_at = json_extract(?3, "
                           "'$.job.updated_at') WHERE id = ?1");
        st->bind(1, m.rowid);
        bindData(*st, 2, before);
        st->bind(3, std::string_view(row)).exec();
        if (c.changes() != 1)
            return 0;
        if (isExecution(before.statusText) &&
            insertExecution(c, before.statusText, m.rowid, row) != 1)
            return 0;
        sp.commit();
        return 1;
    }

    std::string reinsert(Connection& c, const Message& before, TimeNs) const override {
        const std::string row = before.formatRow.value_or("{}");
        auto st = c.cached(std::string("INSERT INTO ") + kJobs +
                           " (id, queue_name, class_name, arguments, priority, active_job_id, "
                           "scheduled_at, finished_at, concurrency_key, created_at, updated_at) "
                           "VALUES (?1, ?2, ?3, ?4, ?5, json_extract(?6, '$.job.active_job_id'), "
                           "json_extract(?6, '$.job.scheduled_at'), json_extract(?6, "
                           "'$.job.finished_at'), json_extract(?6, '$.job.concurrency_key'), "
                           "json_extract(?6, '$.job.created_at'), json_extract(?6, "
                           "'$.job.updated_at'))");
        st->bind(1, before.rowid).bind(2, before.queueName).bind(3, before.jobName);
        bindData(*st, 4, before);
        st->bind(5, before.priority.value_or(0)).bind(6, std::string_view(row)).exec();
        if (isExecution(before.statusText))
            insertExecution(c, before.statusText, before.rowid, row);
        if (has(info(), "solid_queue_recurring_executions")) {
            auto rec = c.cached("INSERT INTO solid_queue_recurring_executions (id, job_id, "
                                "task_key, run_at, created_at) SELECT json_extract(?1, "
                                "'$.recurring.id'), ?2, json_extract(?1, '$.recurring.task_key'), "
                                "json_extract(?1, '$.recurring.run_at'), json_extract(?1, "
                                "'$.recurring.created_at') WHERE json_extract(?1, "
                                "'$.recurring.id') IS NOT NULL");
            rec->bind(1, std::string_view(row)).bind(2, before.rowid).exec();
        }
        return {};
    }

private:
    static void bindData(Statement& st, int i, const Message& m) {
        if (m.dataIsBlob)
            st.bindBlob(i, m.data);
        else
            st.bind(i, std::string_view(m.data));
    }

    /// The stored row of `m` with its scheduled execution due at `when`.
    static std::string withScheduledAt(const Message& m, const std::string& when) {
        Json row = Json::parse(m.formatRow.value_or("{}"));
        Json exec = row["exec"];
        exec.set("scheduled_at", when);
        row.set("exec", std::move(exec));
        return row.dump();
    }

    /// Deletes the execution row the token names, guarded by its id, its
    /// job and (for a claim) its process.
    static std::int64_t deleteExecution(Connection& c, const Token& t, std::int64_t jobId) {
        if (!isExecution(t.kind))
            return 0;
        std::string sql = "DELETE FROM " + tableOf(t.kind) + " WHERE id = ?1 AND job_id = ?2";
        if (t.kind == "claimed")
            sql += " AND process_id IS ?3";
        auto st = c.cached(sql);
        st->bind(1, t.id).bind(2, jobId);
        if (t.kind == "claimed")
            st->bind(3, t.processId);
        st->exec();
        return c.changes();
    }

    /// What ON DELETE CASCADE would do for a job row.
    void deleteChildren(Connection& c, std::int64_t jobId) const {
        for (const auto& t : m_children) {
            auto st = c.cached("DELETE FROM " + t + " WHERE job_id = ?1");
            st->bind(1, jobId).exec();
        }
    }

    /// A new execution row for job `id` as the library creates it (queue
    /// and priority copied from the job), created now.
    static std::int64_t insertFromJob(Connection& c, const std::string& kind, std::int64_t id,
                                      const std::string& nowText) {
        const std::string sql =
            kind == "ready"
                ? "INSERT INTO solid_queue_ready_executions (job_id, queue_name, priority, "
                  "created_at) SELECT id, queue_name, priority, ?2 FROM solid_queue_jobs WHERE id "
                  "= ?1"
                : "INSERT INTO solid_queue_scheduled_executions (job_id, queue_name, priority, "
                  "scheduled_at, created_at) SELECT id, queue_name, priority, scheduled_at, ?2 "
                  "FROM solid_queue_jobs WHERE id = ?1";
        auto st = c.cached(sql);
        st->bind(1, id).bind(2, std::string_view(nowText)).exec();
        return c.changes();
    }

    /// Writes back an execution row exactly as stored (Message::formatRow).
    static std::int64_t insertExecution(Connection& c, const std::string& kind, std::int64_t jobId,
                                        const std::string& row) {
        std::string cols = "id, job_id, created_at";
        std::string vals = "json_extract(?1, '$.exec.id'), ?2, json_extract(?1, "
                           "'$.exec.created_at')";
        const auto add = [&](const char* col) {
            cols += std::string(", ") + col;
            vals += std::string(", json_extract(?1, '$.exec.") + col + "')";
        };
        if (kind == "ready" || kind == "scheduled" || kind == "blocked") {
            add("queue_name");
            add("priority");
        }
        if (kind == "claimed")
            add("process_id");
        if (kind == "failed")
            add("error");
        if (kind == "scheduled")
            add("scheduled_at");
        if (kind == "blocked") {
            add("concurrency_key");
            add("expires_at");
        }
        auto st =
            c.cached("INSERT INTO " + tableOf(kind) + " (" + cols + ") VALUES (" + vals + ")");
        st->bind(1, std::string_view(row)).bind(2, jobId).exec();
        return c.changes();
    }

    std::string m_source;
    std::string m_scanSource;
    std::vector<std::string> m_scanArms; ///< finished jobs, then the others
    std::vector<std::string> m_children;
    std::optional<TableCounts> m_tableCounts; ///< of the first of m_children
};

} // namespace

std::unique_ptr<FormatDriver> makeSolidQueueDriver(const FormatInfo& info,
                                                   const std::string& path) {
    return std::make_unique<SolidQueueDriver>(info, path);
}

} // namespace lq::core
