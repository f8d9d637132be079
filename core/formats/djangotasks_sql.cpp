// SPDX-License-Identifier: MIT
// django-tasks-db's SQL on one open file (docs/FORMATS.md#django-tasks-db).
// One table, DBTaskResult's. Times are Django's TEXT UTC datetimes
// ('YYYY-MM-DD HH:MM:SS[.ffffff]'), read as text times (lq_text_ns,
// readTime(Text)) only between the years 1678 and 2261 that fit in ns:
// run_after's "none", 9999-01-01 00:00:00, is never parsed. The state is a
// partition on status and run_after; there is no heartbeat, so stuck is
// RUNNING longer than the operator's threshold. Every write is guarded by
// the row's status, started_at and finished_at as stored (a claim changes
// status and started_at, a finish status and finished_at).
#include "../error.h"
#include "../json.h"
#include "../sqlite.h"
#include "djangotasks.h"
#include "driver.h"
#include "solidqueue.h"
#include "solidqueue_text.h"

#include <sqlite3.h>

#include <algorithm>
#include <memory>
#include <string_view>

namespace lq::core {

namespace {

using solidqueue::j;

/// A stored run_after at or after this is the library's "none"
/// (get_date_max(), 9999-01-01 UTC, in whatever zone the connection stores).
constexpr std::string_view kNoRunAfterFrom = "9998-12-31";

/// A TEXT time column in ns, NULL unless it is a text time of the years
/// 1678-2261 (the instants an int64 of ns holds): what timeOf() reads. The
/// year is compared as substr()'s text: a `datetime` column has NUMERIC
/// affinity, which would turn a bare '1678' into a number.
std::string ns(const std::string& col) {
    return "(CASE WHEN substr(" + col + ", 1, 4) BETWEEN '1678' AND '2261' THEN lq_text_ns(" + col +
           ") END)";
}

/// The text a stored time compares as (textTimeKey()).
std::string key(const std::string& col) {
    return textTimeKey(col);
}

/// SQL: a READY row's run_after lies after `?` (textTimeKeyCeil(now)) and is
/// not the library's "none": the row is SCHEDULED. Never NULL.
std::string scheduledSql() {
    return "(typeof(run_after) = 'text' AND " + key("run_after") + " > ? AND " + key("run_after") +
           " < '" + std::string(kNoRunAfterFrom) + "')";
}

/// When wait starts: run_after when it is later than enqueued_at, else
/// enqueued_at (Message::waitFrom).
std::string waitFromSql() {
    const std::string due = ns("run_after"), in = ns("enqueued_at");
    return "(CASE WHEN " + due + " > " + in + " THEN " + due + " ELSE " + in + " END)";
}

const char* const kDoneSql = "status IN ('SUCCESSFUL', 'SUCCEEDED')";

/// The claim token: status, started_at and finished_at as stored.
std::string tokenJson() {
    return "json_object('status', " + j("status") + ", 'started_at', " + j("started_at") +
           ", 'finished_at', " + j("finished_at") + ")";
}

/// "AND the row still holds the token in `raw` (parameter ?N)".
std::string guard(int n) {
    const std::string p = "?" + std::to_string(n);
    std::string out;
    for (const char* c : {"status", "started_at", "finished_at"})
        out += std::string(" AND ") + c + " IS json_extract(" + p + ", '$." + c + "')";
    return out;
}

/// textTimeKey() of a stored text, as SQL's replace() makes it.
std::string keyOf(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s)
        if (c != 'Z')
            out += c == 'T' ? ' ' : c;
    return out;
}

/// A stored time as ns where ns() gives one, else nullopt.
std::optional<TimeNs> timeOf(const Statement& st, int col) {
    if (st.columnType(col) != SQLITE_TEXT)
        return std::nullopt;
    const std::string_view year = st.textView(col).substr(0, 4);
    if (year < std::string_view("1678") || year > std::string_view("2261"))
        return std::nullopt;
    return readTime(st, col, TimeEncoding::Text);
}

/// The state of a row from its status (column `s`) and run_after (`r`).
State stateOf(const Statement& st, int s, int r, const std::string& nowKey) {
    if (st.columnType(s) != SQLITE_TEXT)
        return State::Unknown;
    const std::string_view status = st.textView(s);
    if (status == "READY") {
        if (st.columnType(r) != SQLITE_TEXT)
            return State::Ready;
        const std::string k = keyOf(st.textView(r));
        return k > nowKey && k < kNoRunAfterFrom ? State::Scheduled : State::Ready;
    }
    if (status == "RUNNING")
        return State::Locked;
    if (status == "SUCCESSFUL" || status == "SUCCEEDED")
        return State::Done;
    if (status == "FAILED")
        return State::Failed;
    return State::Unknown;
}

/// run_after later than enqueued_at, else enqueued_at (waitFromSql()).
std::optional<TimeNs> waitFrom(const std::optional<TimeNs>& in, const std::optional<TimeNs>& due) {
    return due && in && *due > *in ? due : in;
}

class DjangoTasksDriver final : public FormatDriver {
public:
    DjangoTasksDriver(const FormatInfo& fi, const std::string& path)
        : FormatDriver(fi, path)
        , m_t(quoteIdent(fi.table))
        , m_metadata(std::find(fi.columns.begin(), fi.columns.end(), "metadata") !=
                     fi.columns.end()) {}

    // ---- reading -------------------------------------------------------------

    std::string columns() const override {
        return "rowid, id, status, enqueued_at, started_at, finished_at, args_kwargs, priority, "
               "task_path, worker_ids, queue_name, run_after, exception_class_path, traceback, " +
               rawRow() + ", " + tokenJson();
    }

    Message readRow(const Statement& st, TimeNs now) const override {
        Message m;
        m.rowid = st.int64(0);
        m.messageId = st.text(1);
        m.rawStatus = -1; // text status
        m.statusText = st.text(2);
        m.state = stateOf(st, 2, 11, textTimeKeyCeil(now));
        m.inTime = timeOf(st, 3);
        m.lockTime = timeOf(st, 4);
        m.doneTime = timeOf(st, 5);
        m.dataIsBlob = st.columnType(6) == SQLITE_BLOB;
        m.data = st.text(6);
        if (st.columnType(7) == SQLITE_INTEGER)
            m.priority = st.int64(7);
        m.jobName = st.optText(8);
        const std::string worker = readWorkers(st, 9, m);
        m.queueName = st.optText(10);
        m.scheduledAt = timeOf(st, 11);
        m.waitFrom = waitFrom(m.inTime, m.scheduledAt);
        m.lastError = errorText(st, 12, 13);
        m.formatRow = st.text(14);
        m.token = textTokenHash(st.textView(15));
        if (st.isNull(4) && worker.empty())
            m.tokenText = "not claimed";
        else
            m.tokenText = (worker.empty() ? std::string("?") : worker) + '\x1f' +
                          (st.isNull(4) ? std::string("NULL") : st.text(4));
        return m;
    }

    std::string idColumn() const override { return "id"; }
    std::string targetColumns() const override { return "id, " + tokenJson(); }
    Target readTarget(const Statement& st) const override {
        return {st.text(0), textTokenHash(st.textView(1))};
    }

    // ---- filters, order, counts ----------------------------------------------

    std::string stateCondition(State s, Binds& binds, TimeNs now) const override {
        switch (s) {
        case State::Ready:
            binds.emplace_back(textTimeKeyCeil(now));
            return "(status = 'READY' AND NOT " + scheduledSql() + ")";
        case State::Scheduled:
            binds.emplace_back(textTimeKeyCeil(now));
            return "(status = 'READY' AND " + scheduledSql() + ")";
        case State::Locked:
            return "status = 'RUNNING'";
        case State::Done:
            return kDoneSql;
        case State::Failed:
            return "status = 'FAILED'";
        case State::Unknown:
            return "(status IS NULL OR status NOT IN ('READY', 'RUNNING', 'SUCCESSFUL', "
                   "'SUCCEEDED', 'FAILED'))";
        default:
            return "0";
        }
    }

    std::string stuckCondition(Binds& binds, TimeNs now, TimeNs stuckAfter) const override {
        // No heartbeat: RUNNING longer than the operator's threshold.
        binds.emplace_back(now - stuckAfter);
        return "(status = 'RUNNING' AND " + ns("started_at") + " < ?)";
    }

    Filter lockedFilter(TimeNs threshold) const override {
        Filter f;
        f.states = {State::Locked};
        f.stuckOnly = true;
        f.stuckAfterNs = threshold; // the operator's: no rule of the library's own
        return f;
    }

    std::vector<JsonField> jsonFields() const override {
        return {{"args", "args_kwargs", "$.args"},
                {"kwargs", "args_kwargs", "$.kwargs"},
                {"return_value", "return_value"}};
    }
    std::vector<std::string> searchColumns() const override {
        return {"id",          "task_path",
                "args_kwargs", "queue_name",
                "worker_ids",  "exception_class_path",
                "traceback",   "CAST(return_value AS TEXT)"};
    }
    std::string queueColumn() const override { return "queue_name"; }
    std::string arrivalColumn() const override { return key("enqueued_at"); }
    TimeEncoding arrivalEncoding() const override { return TimeEncoding::Text; }
    std::string doneColumn() const override { return key("finished_at"); }
    TimeEncoding doneEncoding() const override { return TimeEncoding::Text; }

    std::string metricCondition(Filter::Metric m, TimeNs lo, TimeNs hi,
                                Binds& binds) const override {
        const std::string in = ns("enqueued_at"), lock = ns("started_at"), done = ns("finished_at");
        std::string d, state;
        switch (m) {
        case Filter::Metric::Wait:
            d = "(" + lock + " - " + waitFromSql() + ")";
            break;
        case Filter::Metric::Processing:
            d = "(" + done + " - " + lock + ")";
            state = std::string(kDoneSql) + " AND ";
            break;
        case Filter::Metric::Total:
            d = "(" + done + " - " + in + ")";
            state = std::string(kDoneSql) + " AND ";
            break;
        case Filter::Metric::TimeToFailure:
            d = "(" + done + " - " + lock + ")";
            state = "status = 'FAILED' AND ";
            break;
        case Filter::Metric::None:
            return {};
        }
        binds.emplace_back(lo);
        binds.emplace_back(hi);
        return "(" + state + d + " >= ? AND " + d + " < ?)";
    }

    SortColumns sortColumns() const override {
        SortColumns c;
        c.arrival = "rowid";
        c.inTime = ns("enqueued_at");
        c.lockTime = ns("started_at");
        c.claim = ns("started_at");
        c.doneTime = ns("finished_at");
        c.wait = "(" + ns("started_at") + " - " + waitFromSql() + ")";
        c.processing = "(" + ns("finished_at") + " - " + ns("started_at") + ")";
        c.status = "(CASE status WHEN 'READY' THEN 0 WHEN 'RUNNING' THEN 1 WHEN 'SUCCESSFUL' THEN "
                   "2 WHEN 'SUCCEEDED' THEN 2 WHEN 'FAILED' THEN 3 ELSE 4 END)";
        return c;
    }

    // One pass: READY (SCHEDULED among them), RUNNING (stuck among them),
    // DONE, FAILED; UNKNOWN is the rest, as stateCondition() has it.
    Counts counts(Connection& r, TimeNs now, TimeNs stuckAfter, const std::string& where,
                  const Binds& binds) const override {
        Counts c;
        const std::string sched = "(typeof(run_after) = 'text' AND " + key("run_after") +
                                  " > ?1 AND " + key("run_after") + " < '" +
                                  std::string(kNoRunAfterFrom) + "')";
        auto st = r.cached("SELECT count(*), coalesce(sum(status = 'READY'), 0), "
                           "coalesce(sum(status = 'READY' AND " +
                           sched +
                           "), 0), coalesce(sum(status = 'RUNNING'), 0), coalesce(sum(status = "
                           "'RUNNING' AND " +
                           ns("started_at") + " < ?2), 0), coalesce(sum(" + kDoneSql +
                           "), 0), coalesce(sum(status = 'FAILED'), 0) FROM " + m_t + where);
        bindValues(*st, {textTimeKeyCeil(now), now - stuckAfter});
        bindValues(*st, binds, 3);
        if (st->step()) {
            c.stored = st->int64(0);
            c.scheduled = st->int64(2);
            c.ready = st->int64(1) - c.scheduled;
            c.locked = st->int64(3);
            c.stuck = st->int64(4);
            c.done = st->int64(5);
            c.failed = st->int64(6);
            c.unknown = c.stored - c.ready - c.scheduled - c.locked - c.done - c.failed;
        }
        return c;
    }

    std::string timingColumns() const override {
        return "status, enqueued_at, started_at, finished_at, run_after";
    }

    void timingRow(const Statement& st, TimeNs now, TimingColumns& cols) const override {
        constexpr TimeNs none = TimingColumns::kNoTime;
        const auto in = timeOf(st, 1);
        cols.state.push_back(static_cast<std::int8_t>(stateOf(st, 0, 4, textTimeKeyCeil(now))));
        cols.inTime.push_back(in.value_or(none));
        cols.lockTime.push_back(timeOf(st, 2).value_or(none));
        cols.doneTime.push_back(timeOf(st, 3).value_or(none));
        cols.dueTime.push_back(waitFrom(in, timeOf(st, 4)).value_or(none));
    }

    // ---- operator actions --------------------------------------------------

    std::string tokenWord() const override { return "status/started_at"; }
    std::string tokenShown(const Message& m) const override {
        std::string t = m.tokenText.value_or("not claimed");
        if (const auto p = t.find('\x1f'); p != std::string::npos)
            t = "claimed by " + t.substr(0, p) + " at " + t.substr(p + 1);
        return m.statusText + ", " + t;
    }

    std::string refusal(Action a, const Message& m, TimeNs now) const override {
        (void)now;
        const std::string is =
            "is " + std::string(stateName(m.state)) + " (status " + m.statusText + ")";
        switch (a) {
        case Action::Retry:
            return m.state == State::Failed
                       ? std::string()
                       : is + ": retry applies to FAILED tasks (READY again, as a new enqueue)";
        case Action::Delete:
            if (m.state == State::Locked)
                return is + ": its worker would fail saving the result (no row to update) and "
                            "stop; django-tasks-db cannot stop a running task";
            return m.state == State::Unknown ? is + ": left alone" : std::string();
        case Action::Prune:
            return m.state == State::Done || m.state == State::Failed
                       ? std::string()
                       : is + ": prune deletes only SUCCESSFUL and FAILED tasks";
        default:
            return std::string(actionName(a)) + " is not offered on django-tasks-db files";
        }
    }

    std::int64_t applyRow(Connection& c, Action a, const Message& m, TimeNs now,
                          const ActionOptions&) const override {
        const std::string raw = m.formatRow.value_or("{}");
        switch (a) {
        case Action::Retry: {
            // As the app's Task.enqueue() would write it again: READY, enqueued
            // now, no run_after, no result; worker_ids keeps its history.
            auto st = c.cached("UPDATE " + m_t +
                               " SET status = 'READY', enqueued_at = ?3, started_at = NULL, "
                               "finished_at = NULL, run_after = '" +
                               std::string(DjangoTasksFormat::kNoRunAfter) +
                               "', return_value = NULL, exception_class_path = '', traceback = '' "
                               "WHERE id = ?1 AND status = 'FAILED'" +
                               guard(2));
            st->bind(1, std::string_view(m.messageId)).bind(2, std::string_view(raw));
            st->bind(3, std::string_view(railsTime(now))).exec();
            return c.changes();
        }
        case Action::Delete:
        case Action::Prune: {
            const std::string only = a == Action::Prune
                                         ? " AND status IN ('SUCCESSFUL', 'SUCCEEDED', 'FAILED')"
                                         : " AND status <> 'RUNNING'";
            auto st = c.cached("DELETE FROM " + m_t + " WHERE id = ?1" + only + guard(2));
            st->bind(1, std::string_view(m.messageId)).bind(2, std::string_view(raw)).exec();
            return c.changes();
        }
        default:
            return 0;
        }
    }

    bool holdsWritten(const Message& m, const Message& wrote) const override {
        return m.formatRow == wrote.formatRow && m.data == wrote.data;
    }

    std::int64_t restoreRow(Connection& c, const Message& m, const Message& before,
                            TimeNs) const override {
        std::string set;
        for (const char* col : {"status", "enqueued_at", "started_at", "finished_at", "run_after",
                                "return_value", "exception_class_path", "traceback"})
            set +=
                std::string(set.empty() ? "" : ", ") + col + " = json_extract(?3, '$." + col + "')";
        auto st = c.cached("UPDATE " + m_t + " SET " + set + " WHERE id = ?1" + guard(2));
        st->bind(1, std::string_view(m.messageId));
        st->bind(2, std::string_view(m.formatRow.value_or("{}")));
        st->bind(3, std::string_view(before.formatRow.value_or("{}"))).exec();
        return c.changes();
    }

    std::string reinsert(Connection& c, const Message& before, TimeNs) const override {
        std::string cols = "args_kwargs", values = "?2";
        for (const std::string& col : storedColumns()) {
            cols += ", " + col;
            values += ", json_extract(?1, '$." + col + "')";
        }
        auto st = c.cached("INSERT INTO " + m_t + " (" + cols + ") SELECT " + values);
        st->bind(1, std::string_view(before.formatRow.value_or("{}")));
        if (before.dataIsBlob)
            st->bindBlob(2, before.data);
        else
            st->bind(2, std::string_view(before.data));
        st->exec();
        return {};
    }

private:
    /// Every column but args_kwargs (Message::data): what undo writes back.
    std::vector<std::string> storedColumns() const {
        std::vector<std::string> out = {
            "id",        "status",       "enqueued_at",          "started_at", "finished_at",
            "priority",  "task_path",    "worker_ids",           "queue_name", "backend_name",
            "run_after", "return_value", "exception_class_path", "traceback"};
        if (m_metadata) // migrations 0017 and 0018 only: NOT NULL, so kept for a reinsert
            out.emplace_back("metadata");
        return out;
    }

    /// The stored row's own values as JSON (Message::formatRow), value for
    /// value and type for type.
    std::string rawRow() const {
        std::string out;
        for (const std::string& col : storedColumns())
            out += (out.empty() ? "json_object('" : ", '") + col + "', " + j(col);
        return out + ")";
    }

    /// Message::attempts from worker_ids (one entry per claim); returns
    /// the last worker id ("" when none or unreadable).
    static std::string readWorkers(const Statement& st, int col, Message& m) {
        if (st.columnType(col) != SQLITE_TEXT)
            return {};
        try {
            const Json ids = Json::parse(st.textView(col));
            if (!ids.isArray())
                return {};
            m.attempts = static_cast<std::int64_t>(ids.toArray().size());
            if (!ids.toArray().empty() && ids.toArray().back().isString())
                return ids.toArray().back().toString();
        } catch (const std::exception&) {
            // Not JSON: no claims counted.
        }
        return {};
    }

    /// exception_class_path on the first line, then the traceback: the
    /// class is what core/errors.h groups by (errorClassOf: a first line
    /// with no "Class: " takes the whole line).
    static std::optional<std::string> errorText(const Statement& st, int cls, int tb) {
        const std::string c = st.text(cls), t = st.text(tb);
        if (c.empty() && t.empty())
            return std::nullopt;
        if (c.empty() || t.empty())
            return c + t;
        return c + "\n" + t;
    }

    std::string m_t;
    bool m_metadata = false;
};

} // namespace

std::unique_ptr<FormatDriver> makeDjangoTasksDriver(const FormatInfo& info,
                                                    const std::string& path) {
    return std::make_unique<DjangoTasksDriver>(info, path);
}

} // namespace lq::core
