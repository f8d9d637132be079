// SPDX-License-Identifier: MIT
// Delayed::Job's SQL on one open file (docs/FORMATS.md#delayed-job). One table;
// times are Active Record TEXT datetimes in UTC, read as Solid Queue's are
// (lq_text_ns, solidqueue::ns; readTime(Text)) and written as Rails writes
// them (railsTime). The state is a partition on failed_at, locked_at and
// run_at; stuck is the library's own rule (ready_to_run: locked_at older than
// max_run_time). Every write is guarded by the row's lock as stored:
// locked_at and locked_by, with attempts and failed_at (a worker's
// reschedule or fail! changes those without a new lock).
#include "../error.h"
#include "../sqlite.h"
#include "delayedjob.h"
#include "driver.h"
#include "solidqueue.h"
#include "solidqueue_text.h"

#include <sqlite3.h>

#include <cctype>
#include <memory>
#include <string_view>

namespace lq::core {

namespace {

using solidqueue::j;
using solidqueue::ns;

/// The stored row's own values as JSON (Message::formatRow): what undo
/// writes back, value for value and type for type.
std::string rawRow() {
    return "json_object('id', id, 'priority', " + j("priority") + ", 'attempts', " + j("attempts") +
           ", 'run_at', " + j("run_at") + ", 'locked_at', " + j("locked_at") + ", 'failed_at', " +
           j("failed_at") + ", 'locked_by', " + j("locked_by") + ", 'queue', " + j("queue") +
           ", 'created_at', " + j("created_at") + ", 'updated_at', " + j("updated_at") + ")";
}

/// The claim token: the lock as stored, with attempts and failed_at.
std::string lockToken() {
    return "json_object('locked_at', " + j("locked_at") + ", 'locked_by', " + j("locked_by") +
           ", 'attempts', " + j("attempts") + ", 'failed_at', " + j("failed_at") + ")";
}

/// "AND the row still holds the lock in `raw` (parameter ?N)".
std::string lockGuard(int n) {
    const std::string p = "?" + std::to_string(n);
    std::string out;
    for (const char* c : {"locked_at", "locked_by", "attempts", "failed_at"})
        out += std::string(" AND ") + c + " IS json_extract(" + p + ", '$." + c + "')";
    return out;
}

/// The class a handler's YAML names, read as text (never deserialized): the
/// library's own fallback name (Job#name's ParseObjectFromYaml,
/// `!ruby/\w+:(\S+)`), an Active Job's job_class (JobWrapper#display_name),
/// a delayed method's Class.method or Class#method (PerformableMethod).
std::optional<std::string> handlerClass(std::string_view y) {
    const auto tag = [](std::string_view s) -> std::optional<std::string> {
        for (auto p = s.find("!ruby/"); p != std::string_view::npos; p = s.find("!ruby/", p + 1)) {
            auto q = p + 6;
            while (q < s.size() && (std::isalnum(static_cast<unsigned char>(s[q])) || s[q] == '_'))
                ++q;
            if (q == p + 6 || q >= s.size() || s[q] != ':')
                continue;
            auto e = ++q;
            while (e < s.size() && !std::isspace(static_cast<unsigned char>(s[e])))
                ++e;
            if (e > q)
                return std::string(s.substr(q, e - q));
        }
        return std::nullopt;
    };
    const auto value = [&](std::string_view key) -> std::optional<std::string> {
        const auto p = y.find(key);
        if (p == std::string_view::npos)
            return std::nullopt;
        auto b = p + key.size();
        auto e = y.find('\n', b);
        std::string_view v = y.substr(b, e == std::string_view::npos ? e : e - b);
        while (!v.empty() && (v.front() == ' ' || v.front() == ':' || v.front() == '\''))
            v.remove_prefix(1);
        while (!v.empty() && (v.back() == ' ' || v.back() == '\'' || v.back() == '\r'))
            v.remove_suffix(1);
        if (v.empty())
            return std::nullopt;
        return std::string(v);
    };
    const auto first = y.substr(0, y.find('\n'));
    auto cls = tag(first);
    if (!cls)
        return tag(y);
    if (*cls == "ActiveJob::QueueAdapters::DelayedJobAdapter::JobWrapper")
        return value("\n  job_class:").value_or(*cls);
    if (*cls == "Delayed::PerformableMethod" || *cls == "Delayed::PerformableMailer") {
        const auto method = value("\nmethod_name:");
        const auto object = y.find("\nobject:");
        if (!method || object == std::string_view::npos)
            return cls;
        const auto line = y.substr(object + 8, y.find('\n', object + 8) - object - 8);
        if (const auto k = line.find("!ruby/class"); k != std::string_view::npos) {
            auto name = line.substr(k + 11);
            while (!name.empty() && (name.front() == ' ' || name.front() == '\''))
                name.remove_prefix(1);
            while (!name.empty() && (name.back() == ' ' || name.back() == '\''))
                name.remove_suffix(1);
            return std::string(name) + "." + *method;
        }
        if (const auto obj = tag(line))
            return *obj + "#" + *method;
        return cls;
    }
    return cls;
}

class DelayedJobDriver final : public FormatDriver {
public:
    DelayedJobDriver(const FormatInfo& fi, const std::string& path)
        : FormatDriver(fi, path)
        , m_t(quoteIdent(fi.table)) {
        if (const std::int64_t s = fi.settings.value(DelayedJobFormat::kMaxRunTimeKey); s > 0)
            m_maxRunTime = s * kNsPerSecond;
    }

    // ---- reading -------------------------------------------------------------

    std::string columns() const override {
        return "id, priority, attempts, handler, last_error, run_at, locked_at, failed_at, "
               "locked_by, queue, created_at, " +
               rawRow() + ", " + lockToken();
    }

    Message readRow(const Statement& st, TimeNs now) const override {
        Message m;
        m.rowid = st.int64(0);
        m.messageId = st.text(0);
        if (st.columnType(1) == SQLITE_INTEGER)
            m.priority = st.int64(1);
        m.attempts = st.columnType(2) == SQLITE_INTEGER ? st.int64(2) : 0;
        m.dataIsBlob = st.columnType(3) == SQLITE_BLOB;
        m.data = st.text(3);
        m.dataNote = "the handler is the job object as YAML (Ruby's Psych): shown as text, never "
                     "deserialized";
        m.jobName = handlerClass(m.data);
        m.lastError = st.optText(4);
        m.rawStatus = -1;
        m.scheduledAt = readTime(st, 5, TimeEncoding::Text);
        m.waitFrom = m.scheduledAt; // wait = locked_at - run_at (docs/FORMATS.md#delayed-job)
        m.lockTime = readTime(st, 6, TimeEncoding::Text);
        m.inTime = readTime(st, 10, TimeEncoding::Text);
        // The lock as stored: locked_by and locked_at (a failed job keeps
        // the lock of its last run), "not locked" when there is none.
        if (!st.isNull(6) || !st.isNull(8))
            m.tokenText = (st.isNull(8) ? std::string("NULL") : st.text(8)) + '\x1f' +
                          (st.isNull(6) ? std::string("NULL") : st.text(6));
        else
            m.tokenText = "not locked";
        m.queueName = st.isNull(9) ? std::string(DelayedJobFormat::kDefaultQueue) : st.text(9);
        m.formatRow = st.text(11);
        m.token = textTokenHash(st.textView(12));
        if (!st.isNull(7)) {
            m.state = State::Failed;
            m.doneTime = readTime(st, 7, TimeEncoding::Text);
        } else if (!st.isNull(6)) {
            m.state = State::Locked;
            if (m.lockTime && *m.lockTime < now - m_maxRunTime)
                m.extraState = QueueFormat::kStuckState;
        } else {
            m.state = m.scheduledAt && *m.scheduledAt > now ? State::Scheduled : State::Ready;
        }
        return m;
    }

    std::string idColumn() const override { return "id"; }
    std::string targetColumns() const override { return "id, " + lockToken(); }
    Target readTarget(const Statement& st) const override {
        return {st.text(0), textTokenHash(st.textView(1))};
    }

    // ---- filters, order, counts ----------------------------------------------

    std::string stateCondition(State s, Binds& binds, TimeNs now) const override {
        switch (s) {
        case State::Ready:
            binds.emplace_back(now);
            return "(failed_at IS NULL AND locked_at IS NULL AND NOT coalesce(" + ns("run_at") +
                   " > ?, 0))";
        case State::Scheduled:
            binds.emplace_back(now);
            return "(failed_at IS NULL AND locked_at IS NULL AND " + ns("run_at") + " > ?)";
        case State::Locked:
            return "(failed_at IS NULL AND locked_at IS NOT NULL)";
        case State::Failed:
            return "failed_at IS NOT NULL";
        default:
            return "0";
        }
    }

    std::string extraStateCondition(const std::string& name, Binds& binds,
                                    TimeNs now) const override {
        if (name != QueueFormat::kStuckState)
            return "0";
        return stuckCondition(binds, now, 0);
    }

    std::string stuckCondition(Binds& binds, TimeNs now, TimeNs) const override {
        binds.emplace_back(now - m_maxRunTime);
        return "(failed_at IS NULL AND locked_at IS NOT NULL AND " + ns("locked_at") + " < ?)";
    }

    std::vector<std::string> searchColumns() const override {
        return {"CAST(id AS TEXT)", "handler", "last_error", "locked_by", "queue"};
    }
    std::string queueColumn() const override {
        return std::string("coalesce(queue, '") + DelayedJobFormat::kDefaultQueue + "')";
    }
    std::string arrivalColumn() const override { return textTimeKey("created_at"); }
    TimeEncoding arrivalEncoding() const override { return TimeEncoding::Text; }
    std::string doneColumn() const override { return textTimeKey("failed_at"); }
    TimeEncoding doneEncoding() const override { return TimeEncoding::Text; }

    std::string metricCondition(Filter::Metric m, TimeNs lo, TimeNs hi,
                                Binds& binds) const override {
        std::string d;
        if (m == Filter::Metric::Wait)
            d = "(" + ns("locked_at") + " - " + ns("run_at") + ")";
        else if (m == Filter::Metric::TimeToFailure)
            d = "(CASE WHEN failed_at IS NOT NULL THEN " + ns("failed_at") + " - " +
                ns("locked_at") + " END)";
        else
            return "0"; // not stored (DelayedJobFormat::whyNoMetric)
        binds.emplace_back(lo);
        binds.emplace_back(hi);
        return "(" + d + " >= ? AND " + d + " < ?)";
    }

    SortColumns sortColumns() const override {
        SortColumns c;
        c.arrival = "id";
        c.inTime = ns("created_at");
        c.lockTime = ns("locked_at");
        c.claim = ns("locked_at");
        c.doneTime = ns("failed_at");
        c.wait = "(" + ns("locked_at") + " - " + ns("run_at") + ")";
        c.processing = "(" + ns("failed_at") + " - " + ns("locked_at") + ")";
        c.status =
            "(CASE WHEN failed_at IS NOT NULL THEN 3 WHEN locked_at IS NOT NULL THEN 2 ELSE 0 END)";
        return c;
    }

    // One pass: FAILED, LOCKED (and stuck among them), SCHEDULED; READY is
    // the rest, as stateCondition() has it.
    Counts counts(Connection& r, TimeNs now, TimeNs, const std::string& where,
                  const Binds& binds) const override {
        Counts c;
        auto st = r.cached(
            "SELECT count(*), coalesce(sum(failed_at IS NOT NULL), 0), coalesce(sum(failed_at IS "
            "NULL AND locked_at IS NOT NULL), 0), coalesce(sum(failed_at IS NULL AND locked_at "
            "IS NOT NULL AND " +
            ns("locked_at") +
            " < ?2), 0), coalesce(sum(failed_at IS NULL AND locked_at IS NULL AND " + ns("run_at") +
            " > ?1), 0) FROM " + m_t + where);
        bindValues(*st, {now, now - m_maxRunTime});
        bindValues(*st, binds, 3);
        if (st->step()) {
            c.stored = st->int64(0);
            c.failed = st->int64(1);
            c.locked = st->int64(2);
            c.stuck = st->int64(3);
            c.scheduled = st->int64(4);
            c.ready = c.stored - c.failed - c.locked - c.scheduled;
        }
        c.extra[QueueFormat::kStuckState] = c.stuck;
        c.leased = c.locked - c.stuck;
        c.expired = c.stuck;
        return c;
    }

    std::string timingColumns() const override {
        return "failed_at IS NOT NULL, created_at, run_at, locked_at, failed_at";
    }

    void timingRow(const Statement& st, TimeNs now, TimingColumns& cols) const override {
        constexpr TimeNs none = TimingColumns::kNoTime;
        const auto run = readTime(st, 2, TimeEncoding::Text);
        const auto locked = readTime(st, 3, TimeEncoding::Text);
        State s = State::Failed;
        if (st.int64(0) == 0) {
            if (!st.isNull(3))
                s = State::Locked;
            else
                s = run && *run > now ? State::Scheduled : State::Ready;
        }
        cols.state.push_back(static_cast<std::int8_t>(s));
        cols.ownStuck.push_back(s == State::Locked && locked && *locked < now - m_maxRunTime ? 1
                                                                                             : 0);
        cols.inTime.push_back(readTime(st, 1, TimeEncoding::Text).value_or(none));
        cols.lockTime.push_back(locked.value_or(none));
        cols.doneTime.push_back(readTime(st, 4, TimeEncoding::Text).value_or(none));
        cols.dueTime.push_back(run.value_or(none));
    }

    // ---- operator actions --------------------------------------------------

    std::string tokenWord() const override { return "lock"; }
    std::string tokenShown(const Message& m) const override {
        std::string t = m.tokenText.value_or("not locked");
        if (const auto p = t.find('\x1f'); p != std::string::npos)
            t = "locked by " + t.substr(0, p) + " at " + t.substr(p + 1);
        return t;
    }

    std::string refusal(Action a, const Message& m, TimeNs now) const override {
        (void)now;
        const bool stuck = m.extraState == QueueFormat::kStuckState;
        switch (a) {
        case Action::Retry:
            return m.state == State::Failed ? std::string()
                                            : "is " + std::string(stateName(m.state)) +
                                                  ": retry applies to failed jobs (failed_at set)";
        case Action::Release:
            if (m.state != State::Locked)
                return "is " + std::string(stateName(m.state)) +
                       ": release clears the lock of a stuck locked job";
            return stuck ? std::string()
                         : "is locked by a live worker (within max_run_time, " +
                               std::to_string(m_maxRunTime / kNsPerSecond) +
                               " s): only a lock older than max_run_time can be released";
        case Action::Delete:
            if (m.state == State::Locked && !stuck)
                return "is locked by a live worker: deleting it would not stop its run";
            return {};
        case Action::Prune:
            return m.state == State::Failed ? std::string()
                                            : "is " + std::string(stateName(m.state)) +
                                                  ": prune deletes only failed jobs";
        default:
            return std::string(actionName(a)) + " is not offered on Delayed::Job files";
        }
    }

    std::int64_t applyRow(Connection& c, Action a, const Message& m, TimeNs now,
                          const ActionOptions&) const override {
        const std::string raw = m.formatRow.value_or("{}");
        switch (a) {
        case Action::Retry: {
            // As an operator's `job.update(failed_at: nil, locked_at: nil,
            // locked_by: nil, run_at: Time.now)`: attempts kept.
            auto st = c.cached("UPDATE " + m_t +
                               " SET failed_at = NULL, locked_at = NULL, locked_by = NULL, "
                               "run_at = ?3, updated_at = ?3 WHERE id = ?1" +
                               lockGuard(2));
            st->bind(1, m.rowid).bind(2, std::string_view(raw));
            st->bind(3, std::string_view(railsTime(now))).exec();
            return c.changes();
        }
        case Action::Release: {
            // Delayed::Job.clear_locks!: update_all(locked_by: nil, locked_at: nil).
            auto st =
                c.cached("UPDATE " + m_t + " SET locked_at = NULL, locked_by = NULL WHERE id = ?1" +
                         lockGuard(2));
            st->bind(1, m.rowid).bind(2, std::string_view(raw)).exec();
            return c.changes();
        }
        case Action::Delete:
        case Action::Prune: {
            auto st = c.cached("DELETE FROM " + m_t + " WHERE id = ?1" + lockGuard(2));
            st->bind(1, m.rowid).bind(2, std::string_view(raw)).exec();
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
        auto st = c.cached("UPDATE " + m_t +
                           " SET priority = json_extract(?3, '$.priority'), attempts = "
                           "json_extract(?3, '$.attempts'), run_at = json_extract(?3, "
                           "'$.run_at'), locked_at = json_extract(?3, '$.locked_at'), failed_at "
                           "= json_extract(?3, '$.failed_at'), locked_by = json_extract(?3, "
                           "'$.locked_by'), updated_at = json_extract(?3, '$.updated_at') WHERE "
                           "id = ?1" +
                           lockGuard(2));
        st->bind(1, m.rowid).bind(2, std::string_view(m.formatRow.value_or("{}")));
        st->bind(3, std::string_view(before.formatRow.value_or("{}"))).exec();
        return c.changes();
    }

    std::string reinsert(Connection& c, const Message& before, TimeNs) const override {
        auto st = c.cached(
            "INSERT INTO " + m_t +
            " (id, priority, attempts, handler, last_error, run_at, locked_at, failed_at, "
            "locked_by, queue, created_at, updated_at) SELECT json_extract(?1, '$.id'), "
            "json_extract(?1, '$.priority'), json_extract(?1, '$.attempts'), ?2, ?3, "
            "json_extract(?1, '$.run_at'), json_extract(?1, '$.locked_at'), json_extract(?1, "
            "'$.failed_at'), json_extract(?1, '$.locked_by'), json_extract(?1, '$.queue'), "
            "json_extract(?1, '$.created_at'), json_extract(?1, '$.updated_at')");
        st->bind(1, std::string_view(before.formatRow.value_or("{}")));
        st->bind(2, std::string_view(before.data)).bind(3, before.lastError).exec();
        return {};
    }

private:
    std::string m_t;
    TimeNs m_maxRunTime = DelayedJobFormat::kDefaultMaxRunTimeSeconds * kNsPerSecond;
};

} // namespace

std::unique_ptr<FormatDriver> makeDelayedJobDriver(const FormatInfo& info,
                                                   const std::string& path) {
    return std::make_unique<DelayedJobDriver>(info, path);
}

} // namespace lq::core
