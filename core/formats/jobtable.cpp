// SPDX-License-Identifier: MIT
// The job table Oban Lite and River share (jobtable.h): reading, state
// mapping, counts, conditions on TEXT times, delete/prune, and undo from the
// stored values kept in the claim token's text.
#include "jobtable.h"

#include "../error.h"
#include "../json.h"
#include "../jsonb.h"
#include "../sqlite.h"

#include <sqlite3.h>

#include <algorithm>

namespace lq::core {

namespace {

constexpr char kSep = '\x1f';
constexpr char kNull = '\x1e';

std::string hex(std::string_view bytes) {
    static constexpr char d[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (unsigned char c : bytes) {
        out += d[c >> 4];
        out += d[c & 15];
    }
    return out;
}

int nibble(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    return c - 'a' + 10;
}

std::string unhex(std::string_view h) {
    std::string out;
    for (std::size_t i = 0; i + 1 < h.size(); i += 2)
        out += static_cast<char>(nibble(h[i]) * 16 + nibble(h[i + 1]));
    return out;
}

/// A JSON column's stored value: "t<hex>" for TEXT, "b<hex>" for a BLOB.
std::string storedJson(const Statement& st, int col) {
    if (st.isNull(col))
        return std::string(1, kNull);
    return (st.columnType(col) == SQLITE_BLOB ? "b" : "t") + hex(st.text(col));
}

/// "secs since the epoch" of a TEXT time column, for metric bands.
std::string secs(const std::string& col) {
    const std::string k = textTimeKey(col);
    return "((julianday(substr(" + k + ", 1, 19)) - 2440587.5) * 86400.0 + CASE WHEN substr(" + k +
           ", 20, 1) = '.' THEN CAST('0.' || substr(" + k + ", 21) AS REAL) ELSE 0 END)";
}

std::string quoted(const std::string& s) {
    return "'" + s + "'";
}

} // namespace

std::optional<std::string> jobErrorText(const std::string& json) {
    const Json a = Json::parse(json);
    if (!a.isArray() || a.toArray().empty())
        return std::nullopt;
    Json e = a.toArray().back();
    if (e.isString())
        e = Json::parse(e.toString());
    if (!e.isObject())
        return e.dump();
    std::string out = e["error"].isString() ? e["error"].toString() : e.dump();
    if (e["trace"].isString() && !e["trace"].toString().empty())
        out += "\n" + e["trace"].toString();
    if (e["at"].isString())
        out = "attempt " + (e["attempt"].isNumber() ? std::to_string(e["attempt"].toInt()) : "?") +
              " at " + e["at"].toString() + ": " + out;
    return out;
}

JobTableDriver::JobTableDriver(const FormatInfo& fi, const std::string& path, JobTableSpec spec)
    : FormatDriver(fi, path)
    , m_spec(std::move(spec))
    , m_t(quoteIdent(m_spec.table)) {
    m_finish = m_spec.finishCols.size() == 1 ? m_spec.finishCols.front()
                                             : "coalesce(" + joinCols(m_spec.finishCols) + ")";
    m_cols = "rowid, id, state, queue, " + m_spec.kindCol + ", args, errors, " + m_spec.metaCol +
             ", attempt, max_attempts, priority, " + m_spec.createdCol +
             ", scheduled_at, attempted_at, tags, attempted_by";
    for (const auto& f : m_spec.finishCols)
        m_cols += ", " + f;
}

std::string JobTableDriver::joinCols(const std::vector<std::string>& cols) {
    std::string out;
    for (const auto& c : cols)
        out += (out.empty() ? "" : ", ") + c;
    return out;
}

Message JobTableDriver::readRow(const Statement& st, TimeNs now) const {
    Message m;
    m.rowid = st.int64(0);
    m.messageId = st.text(1);
    m.rawStatus = -1; // text state
    m.statusText = st.text(2);
    m.queueName = st.optText(3);
    m.jobName = st.optText(4);
    const auto asJson = [&](int col) -> std::string {
        std::string v = st.text(col);
        if (m_spec.jsonb && st.columnType(col) == SQLITE_BLOB)
            return jsonb::toJson(v);
        return v;
    };
    m.data = st.text(5);
    m.dataIsBlob = st.columnType(5) == SQLITE_BLOB;
    try {
        m.data = asJson(5);
        m.dataIsBlob = m.dataIsBlob && !isValidUtf8(m.data);
    } catch (const jsonb::DecodeError& e) {
        m.dataIsBlob = true; // shown as bytes, never guessed at
        m.dataNote = std::string("args is a damaged JSONB blob (") + e.what() + "): shown as bytes";
    }
    if (!st.isNull(6)) {
        try {
            m.lastError = jobErrorText(asJson(6));
        } catch (const std::exception& e) {
            m.lastError = std::string("errors column unreadable (") + e.what() + ")";
        }
    }
    m.attempts = st.int64(8);
    m.maxAttempts = st.optInt64(9);
    m.priority = st.optInt64(10);
    m.inTime = readTime(st, 11, TimeEncoding::Text);
    m.scheduledAt = readTime(st, 12, TimeEncoding::Text);
    m.waitFrom =
        m.scheduledAt; // wait = attempted_at - scheduled_at (docs/FORMATS.md#oban-lite, §5.4)
    m.lockTime = readTime(st, 13, TimeEncoding::Text);
    const int finish0 = 16;
    for (int i = 0; i < static_cast<int>(m_spec.finishCols.size()) && !m.doneTime; ++i)
        m.doneTime = readTime(st, finish0 + i, TimeEncoding::Text);

    // The stored values, as the undo record and the claim token.
    std::string rec;
    const auto put = [&](const std::string& v) {
        rec += v;
        rec += kSep;
    };
    const auto text = [&](int col) {
        return st.isNull(col) ? std::string(1, kNull) : st.text(col);
    };
    put(text(2));
    put(text(8));
    put(text(9));
    put(text(13));
    put(text(11));
    put(text(12));
    put(storedJson(st, 5));
    put(storedJson(st, 6));
    put(storedJson(st, 7));
    put(storedJson(st, 14));
    put(storedJson(st, 15));
    for (int i = 0; i < static_cast<int>(m_spec.finishCols.size()); ++i)
        put(text(finish0 + i));
    m.tokenText = std::move(rec);
    m.token = textTokenHash(*m.tokenText);
    classify(m, now);
    return m;
}

JobTableDriver::Raw JobTableDriver::rawOf(const Message& m) {
    Raw r;
    const std::string& s = m.tokenText.value_or(std::string());
    std::size_t from = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != kSep)
            continue;
        std::string v = s.substr(from, i - from);
        if (v == std::string(1, kNull))
            r.v.emplace_back(std::nullopt);
        else
            r.v.emplace_back(std::move(v));
        from = i + 1;
    }
    if (r.v.size() < kFinish0)
        throw std::runtime_error("message " + m.messageId + " carries no stored row");
    return r;
}

void JobTableDriver::classify(Message& m, TimeNs now) const {
    const std::string& s = m.statusText;
    const bool due = !m.scheduledAt || *m.scheduledAt <= now;
    m.extraState.clear();
    if (s == "available") {
        m.state = due ? State::Ready : State::Scheduled;
    } else if (s == "scheduled") {
        m.state = due && m_spec.dueScheduledIsReady ? State::Ready : State::Scheduled;
    } else if (s == m_spec.runningState) {
        m.state = State::Locked;
        if (abandoned(m, now))
            m.extraState = "locked_expired";
    } else if (s == "completed") {
        m.state = State::Done;
    } else if (s == "discarded") {
        m.state = State::Failed;
    } else {
        // An extra state of the library (retryable, cancelled, ...) is in no
        // canonical count; an unknown string is UNKNOWN.
        m.state = State::Unknown;
        if (std::find(m_spec.extraStates.begin(), m_spec.extraStates.end(), s) !=
            m_spec.extraStates.end())
            m.extraState = s;
    }
}

bool JobTableDriver::abandoned(const Message& m, TimeNs now) const {
    return m.statusText == m_spec.runningState && m.lockTime &&
           *m.lockTime < now - m_spec.stuckAfter;
}

std::string JobTableDriver::targetColumns() const {
    return m_cols;
}

Target JobTableDriver::readTarget(const Statement& st) const {
    const Message m = readRow(st, 0);
    return {m.messageId, m.token};
}

std::string JobTableDriver::stateSql(State s, int nowParam) const {
    const std::string now = "?" + std::to_string(nowParam);
    const std::string k = key("scheduled_at");
    const std::string dueAvail =
        "(state = 'available' AND (scheduled_at IS NULL OR " + k + " <= " + now + "))";
    const std::string dueSched = "(state = 'scheduled' AND " + k + " <= " + now + ")";
    switch (s) {
    case State::Ready:
        return m_spec.dueScheduledIsReady ? "(" + dueAvail + " OR " + dueSched + ")" : dueAvail;
    case State::Scheduled:
        return "((state = 'available' AND " + k + " > " + now + ") OR " +
               (m_spec.dueScheduledIsReady ? "(state = 'scheduled' AND " + k + " > " + now + ")"
                                           : std::string("state = 'scheduled'")) +
               ")";
    case State::Locked:
        return "state = " + quoted(m_spec.runningState);
    case State::Done:
        return "state = 'completed'";
    case State::Failed:
        return "state = 'discarded'";
    case State::Unknown:
        return "(state IS NULL OR state NOT IN ('available', 'scheduled', " +
               quoted(m_spec.runningState) + ", 'completed', 'discarded'))";
    default:
        return "0";
    }
}

std::string JobTableDriver::stateCondition(State s, Binds& binds, TimeNs now) const {
    // Numbered after the binds so far, so "?N" may appear twice.
    const int n = static_cast<int>(binds.size()) + 1;
    std::string sql = stateSql(s, n);
    if (sql.find('?') != std::string::npos)
        binds.emplace_back(textTimeKeyCeil(now));
    return sql;
}

std::string JobTableDriver::extraStateCondition(const std::string& name, Binds& binds,
                                                TimeNs now) const {
    if (name == "locked_expired")
        return "(" + stuckCondition(binds, now, 0) + ")";
    if (std::find(m_spec.extraStates.begin(), m_spec.extraStates.end(), name) ==
        m_spec.extraStates.end())
        return "0";
    return "state = " + quoted(name);
}

std::string JobTableDriver::stuckCondition(Binds& binds, TimeNs now, TimeNs) const {
    // The library's own rule (Lifeline / JobRescuer), not the operator's.
    binds.push_back(encodeTime(now - m_spec.stuckAfter, TimeEncoding::Text));
    return "(state = " + quoted(m_spec.runningState) + " AND " + key("attempted_at") + " < ?)";
}

std::vector<JobTableDriver::JsonField> JobTableDriver::jsonFields() const {
    // River's JSONB blobs as text through lqcore's decoder (lq_json()).
    const auto text = [&](const std::string& col) {
        return m_spec.jsonb ? "lq_json(" + col + ")" : col;
    };
    return {{"args", text("args")}, {m_spec.metaCol, text(m_spec.metaCol)}};
}

std::vector<std::string> JobTableDriver::searchColumns() const {
    return {"CAST(id AS TEXT)", m_spec.kindCol, "queue", "CAST(args AS TEXT)",
            "CAST(errors AS TEXT)"};
}

std::string JobTableDriver::metricCondition(Filter::Metric metric, TimeNs lo, TimeNs hi,
                                            Binds& binds) const {
    std::string expr, state;
    const std::string in = secs(m_spec.createdCol), lock = secs("attempted_at"),
                      done = secs(m_finish);
    switch (metric) {
    case Filter::Metric::Wait:
        // Message::waitFrom: from the due time; bands start at 0, so an
        // earlier attempt's claim (before the due time) is never in one.
        expr = lock + " - " + secs("scheduled_at");
        break;
    case Filter::Metric::Processing:
        expr = done + " - " + lock;
        state = "state = 'completed' AND ";
        break;
    case Filter::Metric::Total:
        expr = done + " - " + in;
        state = "state = 'completed' AND ";
        break;
    case Filter::Metric::TimeToFailure:
        expr = done + " - " + lock;
        state = "state = 'discarded' AND ";
        break;
    case Filter::Metric::None:
        return {};
    }
    binds.push_back(static_cast<double>(lo) / 1e9);
    binds.push_back(static_cast<double>(hi) / 1e9);
    return state + "(" + expr + ") >= ? AND (" + expr + ") < ?";
}

SortColumns JobTableDriver::sortColumns() const {
    SortColumns c;
    c.arrival = "id";
    c.inTime = key(m_spec.createdCol);
    c.lockTime = key("attempted_at");
    c.wait = "(" + secs("attempted_at") + " - " + secs("scheduled_at") + ")";
    c.doneTime = key(m_finish);
    c.processing = key(m_finish);
    c.claim = "attempt";
    c.status = "state";
    return c;
}

Counts JobTableDriver::counts(Connection& r, TimeNs now, TimeNs, const std::string& where,
                              const Binds& binds) const {
    std::string sql = "SELECT count(*)";
    for (State s : {State::Ready, State::Scheduled, State::Locked, State::Done, State::Failed})
        sql += ", coalesce(sum(" + stateSql(s, 1) + "), 0)";
    sql += ", coalesce(sum(state = " + quoted(m_spec.runningState) + " AND " + key("attempted_at") +
           " < ?2), 0)";
    for (const auto& x : m_spec.extraStates)
        sql += ", coalesce(sum(state = " + quoted(x) + "), 0)";
    auto st = r.cached(sql + " FROM " + m_t + where);
    bindValues(*st,
               {textTimeKeyCeil(now), encodeTime(now - m_spec.stuckAfter, TimeEncoding::Text)});
    bindValues(*st, binds, 3);
    Counts c;
    if (!st->step())
        return c;
    c.stored = st->int64(0);
    c.ready = st->int64(1);
    c.scheduled = st->int64(2);
    c.locked = st->int64(3);
    c.done = st->int64(4);
    c.failed = st->int64(5);
    c.stuck = st->int64(6);
    std::int64_t extras = 0;
    for (std::size_t i = 0; i < m_spec.extraStates.size(); ++i) {
        const std::int64_t n = st->int64(7 + static_cast<int>(i));
        c.extra[m_spec.extraStates[i]] = n;
        extras += n;
    }
    c.extra["locked_expired"] = c.stuck;
    // As for the other lease formats: a claim is leased until the
    // library's own rescue rule calls it abandoned, then expired.
    c.leased = c.locked - c.stuck;
    c.expired = c.stuck;
    c.unknown = c.stored - c.ready - c.scheduled - c.locked - c.done - c.failed - extras;
    return c;
}

std::string JobTableDriver::timingColumns() const {
    return "state, " + m_spec.createdCol + ", scheduled_at, attempted_at, " + m_finish;
}

void JobTableDriver::timingRow(const Statement& st, TimeNs now, TimingColumns& cols) const {
    constexpr TimeNs none = TimingColumns::kNoTime;
    Message m;
    m.statusText = st.text(0);
    m.scheduledAt = readTime(st, 2, TimeEncoding::Text);
    m.lockTime = readTime(st, 3, TimeEncoding::Text);
    classify(m, now);
    cols.state.push_back(static_cast<std::int8_t>(m.state));
    cols.ownStuck.push_back(m.extraState == "locked_expired" ? 1 : 0);
    cols.inTime.push_back(readTime(st, 1, TimeEncoding::Text).value_or(none));
    cols.lockTime.push_back(m.lockTime.value_or(none));
    cols.doneTime.push_back(readTime(st, 4, TimeEncoding::Text).value_or(none));
    cols.dueTime.push_back(m.scheduledAt.value_or(none));
}

Filter JobTableDriver::lockedFilter(TimeNs) const {
    Filter f;
    f.states = {State::Locked};
    f.stuckOnly = true; // past the library's own rescue rule
    return f;
}

// ---- operator actions ----------------------------------------------------------

std::string JobTableDriver::tokenShown(const Message& m) const {
    const Raw r = rawOf(m);
    return r[kState].value_or("NULL") + ", attempt " + r[kAttempt].value_or("NULL") +
           ", attempted_at " + r[kAttemptedAt].value_or("NULL");
}

std::string JobTableDriver::refusal(Action a, const Message& m, TimeNs now) const {
    const std::string is = "is " + m.statusText;
    const bool running = m.statusText == m_spec.runningState;
    const std::string rule = "attempted_at more than " +
                             std::to_string(m_spec.stuckAfter / kNsPerSecond / 60) +
                             " min ago, the library's own rescue rule";
    switch (a) {
    case Action::Retry:
        if (running)
            return is +
                   ": the worker may still finish it; release it once its claim is "
                   "abandoned (" +
                   rule + ")";
        return retryRefusal(m, now);
    case Action::Release:
        if (running && abandoned(m, now))
            return {};
        if (running)
            return is + " and its claim is live (not " + rule + "): the worker may still finish it";
        return is + ": release applies to " + m_spec.runningState + " jobs past " + rule;
    case Action::Delete:
        if (running)
            return is + ": the library never deletes a " + m_spec.runningState +
                   " job (its worker would write to a missing row)";
        return {};
    case Action::Prune:
        if (m.statusText == "completed" || m.statusText == "discarded" ||
            m.statusText == "cancelled")
            return {};
        return is + ": prune deletes only finished jobs (completed, cancelled, discarded)";
    default:
        return std::string(actionName(a)) + " is not offered on " + formatId(info().format) +
               " files";
    }
}

std::string JobTableDriver::cas(int first) const {
    const auto p = [&](int i) { return "?" + std::to_string(first + i); };
    return " AND state = " + p(0) + " AND attempt = " + p(1) + " AND attempted_at IS " + p(2) +
           " AND " + m_spec.createdCol + " IS " + p(3) + " AND scheduled_at IS " + p(4);
}

void JobTableDriver::bindCas(Statement& st, const Message& m, int first) const {
    const Raw r = rawOf(m);
    st.bind(first, std::string_view(m.statusText)).bind(first + 1, m.attempts);
    st.bind(first + 2, r[kAttemptedAt]).bind(first + 3, r[kCreated]);
    st.bind(first + 4, r[kScheduledAt]);
}

void JobTableDriver::bindJson(Statement& st, int i, const std::optional<std::string>& v) const {
    if (!v)
        st.bindNull(i);
    else if (v->front() == 'b')
        st.bindBlob(i, unstored(*v));
    else
        st.bind(i, std::string_view(unstored(*v)));
}

std::optional<std::string> JobTableDriver::stored(const std::string& bytes) const {
    return (m_spec.jsonb ? "b" : "t") + hex(bytes);
}

std::string JobTableDriver::unstored(const std::string& raw) {
    return unhex(std::string_view(raw).substr(1));
}

std::int64_t JobTableDriver::applyRow(Connection& c, Action a, const Message& m, TimeNs now,
                                      const ActionOptions&) const {
    switch (a) {
    case Action::Delete:
    case Action::Prune: {
        // Oban's delete_all_jobs / River's JobDelete: never a running job.
        auto st = c.cached("DELETE FROM " + m_t + " WHERE id = ?1 AND state <> " +
                           quoted(m_spec.runningState) + cas(2));
        st->bind(1, m.rowid);
        bindCas(*st, m, 2);
        st->exec();
        return c.changes();
    }
    case Action::Retry:
        return retryRow(c, m, now);
    case Action::Release:
        return releaseRow(c, m, now);
    default:
        throw Unsupported(path(), std::string(actionName(a)) + " is not offered on " +
                                      formatId(info().format) + " files");
    }
}

bool JobTableDriver::holdsWritten(const Message& current, const Message& wrote) const {
    return current.token == wrote.token;
}

std::int64_t JobTableDriver::restoreRow(Connection& c, const Message& m, const Message& before,
                                        TimeNs) const {
    const Raw b = rawOf(before);
    std::string sql = "UPDATE " + m_t + " SET state = ?1, attempt = ?2, max_attempts = ?3, " +
                      "attempted_at = ?4, scheduled_at = ?5, errors = ?6, " + m_spec.metaCol +
                      " = ?7";
    int n = 8;
    for (const auto& f : m_spec.finishCols)
        sql += ", " + f + " = ?" + std::to_string(n++);
    const int idParam = n;
    sql += " WHERE id = ?" + std::to_string(idParam) + cas(idParam + 1);
    auto st = c.cached(sql);
    st->bind(1, b[kState]).bind(2, b[kAttempt]).bind(3, b[kMaxAttempts]);
    st->bind(4, b[kAttemptedAt]).bind(5, b[kScheduledAt]);
    bindJson(*st, 6, b[kErrors]);
    bindJson(*st, 7, b[kMeta]);
    for (std::size_t i = 0; i < m_spec.finishCols.size(); ++i)
        st->bind(8 + static_cast<int>(i), b[kFinish0 + i]);
    st->bind(idParam, m.rowid);
    bindCas(*st, m, idParam + 1);
    st->exec();
    return c.changes();
}

std::string JobTableDriver::reinsert(Connection& c, const Message& before, TimeNs) const {
    const Raw b = rawOf(before);
    std::string cols = "id, state, queue, " + m_spec.kindCol + ", args, errors, " + m_spec.metaCol +
                       ", tags, attempted_by, attempt, max_attempts, " + "priority, " +
                       m_spec.createdCol + ", scheduled_at, attempted_at";
    std::string vals = "?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15";
    int n = 16;
    for (const auto& f : m_spec.finishCols) {
        cols += ", " + f;
        vals += ", ?" + std::to_string(n++);
    }
    auto st = c.cached("INSERT INTO " + m_t + " (" + cols + ") VALUES (" + vals + ")");
    st->bind(1, before.rowid).bind(2, b[kState]).bind(3, before.queueName);
    st->bind(4, before.jobName);
    bindJson(*st, 5, b[kArgs]);
    bindJson(*st, 6, b[kErrors]);
    bindJson(*st, 7, b[kMeta]);
    bindJson(*st, 8, b[kTags]);
    bindJson(*st, 9, b[kAttemptedBy]);
    st->bind(10, b[kAttempt]).bind(11, b[kMaxAttempts]).bind(12, before.priority);
    st->bind(13, b[kCreated]).bind(14, b[kScheduledAt]).bind(15, b[kAttemptedAt]);
    for (std::size_t i = 0; i < m_spec.finishCols.size(); ++i)
        st->bind(16 + static_cast<int>(i), b[kFinish0 + i]);
    st->exec();
    return {};
}

// ---- what both formats offer ------------------------------------------------------

std::vector<State> JobTableFormat::states() const {
    return {State::Ready, State::Scheduled, State::Locked,
            State::Done,  State::Failed,    State::Unknown};
}

std::vector<Action> JobTableFormat::rowActions() const {
    return {Action::Retry, Action::Release, Action::Delete};
}

std::string JobTableFormat::whyNoMetric(Filter::Metric, const FormatInfo&) const {
    return {}; // every time is stored (docs/FORMATS.md 4.4, 5.4)
}

std::string JobTableFormat::fieldLabel(Field f) const {
    switch (f) {
    case Field::Job:
        return jobLabel();
    case Field::Error:
        return "Errors";
    case Field::StatusText:
        return "State";
    default:
        return defaultFieldLabel(f);
    }
}

} // namespace lq::core
