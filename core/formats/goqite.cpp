// SPDX-License-Identifier: MIT
// goqite (docs/FORMATS.md#goqite; maragudk/goqite@23697cc78af6 schema_sqlite.sql,
// goqite.go). One table `goqite` holds every named queue and has no status
// column: receive sets timeout = now + Timeout and received + 1; complete
// deletes the row; a message whose lease lapsed is receivable again while
// received < maxReceive; at maxReceive it is a dead letter kept for ever.
// Times are TEXT `YYYY-MM-DDTHH:MM:SS.sssZ`, and the library compares them
// as text, so this driver does too. The table's own trigger
// goqite_updated_timestamp rewrites `updated` on every update.
#include "goqite.h"

#include "../sqlite.h"
#include "driver.h"
#include "schema.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>
#include <set>

namespace lq::core {

namespace {

constexpr TimeEncoding kMs = TimeEncoding::Ms;

const std::set<std::string> kSignature = {"id",   "created", "updated", "queue",
                                          "body", "timeout", "received"};

/// A TEXT time column as INTEGER ms (NULL when it is not a time).
std::string asMs(const std::string& col) {
    return "CAST(round((julianday(" + col + ") - 2440587.5) * 86400000.0) AS INTEGER)";
}

/// `t` as goqite writes it: UTC, milliseconds, `Z`.
std::string goqiteTime(TimeNs t) {
    const std::int64_t msAll = std::get<std::int64_t>(encodeTime(t, kMs));
    std::int64_t secs = msAll / 1000;
    std::int64_t milli = msAll % 1000;
    if (milli < 0) {
        milli += 1000;
        --secs;
    }
    const auto tt = static_cast<std::time_t>(secs);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    char buf[40];
    const std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    std::string out(buf, n);
    char frac[8];
    std::snprintf(frac, sizeof frac, ".%03dZ", static_cast<int>(milli));
    return out + frac;
}

std::string normalisedSql(const std::string& sql) {
    std::string out;
    bool space = false;
    for (const char ch : sql) {
        if (std::isspace(static_cast<unsigned char>(ch))) {
            space = !out.empty();
            continue;
        }
        if (space)
            out += ' ';
        space = false;
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
    return out;
}

/// goqite's own trigger, exactly (whitespace and case aside).
bool isGoqiteTrigger(const SchemaObject& o) {
    static const std::string kSql = normalisedSql(
        "create trigger goqite_updated_timestamp after update on goqite begin update goqite set "
        "updated = strftime('%Y-%m-%dT%H:%M:%fZ') where id = old.id; end");
    return o.name == "goqite_updated_timestamp" && normalisedSql(o.sql) == kSql;
}

class GoqiteDriver final : public FormatDriver {
public:
    GoqiteDriver(const FormatInfo& fi, const std::string& path)
        : FormatDriver(fi, path)
        , m_t(quoteIdent(fi.table))
        , m_priority(std::find(fi.columns.begin(), fi.columns.end(), "priority") != fi.columns.end()
                         ? "priority"
                         : "NULL")
        , m_max(fi.settings.value(GoqiteFormat::kMaxReceiveKey) > 0
                    ? fi.settings.value(GoqiteFormat::kMaxReceiveKey)
                    : GoqiteFormat::kDefaultMaxReceive)
        , m_byQueue(fi.settings.byQueue(GoqiteFormat::kMaxReceiveKey))
        , m_maxSql(maxReceiveSql(m_max, m_byQueue)) {}

    /// maxReceive of a message of queue `queue` (goqite's is per queue name).
    std::int64_t maxFor(const std::optional<std::string>& queue) const {
        if (queue) {
            const auto it = m_byQueue.find(*queue);
            if (it != m_byQueue.end() && it->second > 0)
                return it->second;
        }
        return m_max;
    }

    /// maxReceive as SQL on the row's `queue` (a CASE when queues differ).
    static std::string maxReceiveSql(std::int64_t fileWide,
                                     const std::map<std::string, std::int64_t>& byQueue) {
        std::string arms;
        for (const auto& [queue, v] : byQueue)
            if (v > 0)
                arms += " WHEN " + quoteLiteral(queue) + " THEN " + std::to_string(v);
        if (arms.empty())
            return std::to_string(fileWide);
        return "(CASE queue" + arms + " ELSE " + std::to_string(fileWide) + " END)";
    }

    std::string columns() const override {
        return "rowid, body, id, received, " + asMs("created") + ", " + asMs("timeout") +
               ", timeout, " + m_priority + ", queue, typeof(body) = 'blob'";
    }

    void classify(Message& m, const std::string& timeoutText, const std::string& nowText) const {
        m.extraState.clear();
        const bool future = timeoutText > nowText;
        if (future)
            m.state = m.attempts == 0 ? State::Scheduled : State::Locked;
        else if (m.attempts < maxFor(m.queueName))
            m.state = State::Ready;
        else {
            m.state = State::Failed;
            m.extraState = "dead_letter";
        }
    }

    static std::int64_t tokenOf(std::int64_t received, const std::string& timeout) {
        return textTokenHash(std::to_string(received) + "/" + timeout);
    }

    Message readRow(const Statement& st, TimeNs now) const override {
        Message m;
        m.rowid = st.int64(0);
        m.data = st.text(1);
        m.messageId = st.text(2);
        m.attempts = st.int64(3);
        m.inTime = readTime(st, 4, kMs);
        m.scheduledAt = readTime(st, 5, kMs);
        const std::string timeout = st.text(6);
        m.statusText = "received " + std::to_string(m.attempts);
        m.priority = st.optInt64(7);
        m.queueName = st.optText(8);
        m.maxAttempts = maxFor(m.queueName);
        m.dataIsBlob = st.int64(9) != 0;
        m.tokenText = timeout;
        m.token = tokenOf(m.attempts, timeout);
        classify(m, timeout, goqiteTime(now));
        if (m.state == State::Locked)
            m.leaseExpiry = m.scheduledAt;
        return m;
    }

    std::string idColumn() const override { return "id"; }
    std::string targetColumns() const override { return "id, received, timeout"; }
    Target readTarget(const Statement& st) const override {
        return {st.text(0), tokenOf(st.int64(1), st.text(2))};
    }
    std::string tokenWord() const override { return "received/timeout"; }
    std::string tokenShown(const Message& m) const override {
        return "received " + std::to_string(m.attempts) + ", timeout " + m.tokenText.value_or("");
    }

    std::string stateCondition(State s, Binds& binds, TimeNs now) const override {
        const std::string n = goqiteTime(now);
        switch (s) {
        case State::Ready:
            binds.emplace_back(n);
            return "(timeout <= ? AND received < " + m_maxSql + ")";
        case State::Scheduled:
            binds.emplace_back(n);
            return "(received = 0 AND timeout > ?)";
        case State::Locked:
            binds.emplace_back(n);
            return "(received > 0 AND timeout > ?)";
        case State::Failed:
            binds.emplace_back(n);
            return "(received >= " + m_maxSql + " AND timeout <= ?)";
        default:
            return "0";
        }
    }

    std::string extraStateCondition(const std::string& name, Binds& binds,
                                    TimeNs now) const override {
        // What goqite never delivers again: its rows carry State::Failed.
        return name == "dead_letter" ? stateCondition(State::Failed, binds, now) : "0";
    }

    std::string stuckCondition(Binds&, TimeNs, TimeNs) const override {
        // goqite's stuck rule is the lease: once it lapsed the message is
        // READY (receivable) again, so nothing stays LOCKED past it.
        return "0";
    }

    std::vector<JsonField> jsonFields() const override { return {{"body", "CAST(body AS TEXT)"}}; }
    std::vector<std::string> searchColumns() const override {
        return {"id", "queue", "CAST(body AS TEXT)"}; // LIKE does not look into a BLOB
    }
    std::string queueColumn() const override { return "queue"; }
    std::string arrivalColumn() const override { return asMs("created"); }
    TimeEncoding arrivalEncoding() const override { return kMs; }
    // Dead letters are pruned by age (docs/FORMATS.md#goqite: created < cutoff).
    std::string doneColumn() const override { return asMs("created"); }
    std::string metricCondition(Filter::Metric, TimeNs, TimeNs, Binds&) const override {
        return "0";
    }

    SortColumns sortColumns() const override {
        SortColumns c;
        c.arrival = "created";
        c.inTime = "created";
        c.lockTime = "timeout";
        c.doneTime = "timeout";
        c.wait = "timeout";
        c.processing = "timeout";
        c.claim = "received";
        c.status = "received";
        return c;
    }

    Counts counts(Connection& r, TimeNs now, TimeNs, const std::string& where,
                  const Binds& binds) const override {
        const std::string& mx = m_maxSql;
        auto st = r.cached("SELECT count(*), "
                           "coalesce(sum(timeout <= ?1 AND received < " +
                           mx +
                           "), 0), "
                           "coalesce(sum(received = 0 AND timeout > ?1), 0), "
                           "coalesce(sum(received > 0 AND timeout > ?1), 0), "
                           "coalesce(sum(received >= " +
                           mx + " AND timeout <= ?1), 0) FROM " + m_t + where);
        st->bind(1, std::string_view(goqiteTime(now)));
        bindValues(*st, binds, 2);
        Counts c;
        if (st->step()) {
            c.stored = st->int64(0);
            c.ready = st->int64(1);
            c.scheduled = st->int64(2);
            c.locked = st->int64(3);
            c.failed = st->int64(4);
            c.unknown = c.stored - c.ready - c.scheduled - c.locked - c.failed;
            c.leased = c.locked;
        }
        return c;
    }

    std::string timingColumns() const override {
        return "received, timeout, " + asMs("created") + ", queue";
    }

    void timingRow(const Statement& st, TimeNs now, TimingColumns& cols) const override {
        constexpr TimeNs none = TimingColumns::kNoTime;
        Message m;
        m.attempts = st.int64(0);
        m.queueName = st.optText(3);
        classify(m, st.text(1), goqiteTime(now));
        cols.state.push_back(static_cast<std::int8_t>(m.state));
        cols.inTime.push_back(readTime(st, 2, kMs).value_or(none));
        cols.lockTime.push_back(none);
        cols.doneTime.push_back(none);
    }

    // ---- operator actions --------------------------------------------------

    std::string refusal(Action a, const Message& m, TimeNs) const override {
        const std::string is = "is " + std::string(stateName(m.state)) + " (" + m.statusText + ")";
        switch (a) {
        case Action::Retry:
            if (m.state == State::Failed)
                return {};
            return is + ": retry applies to dead letters (received >= maxReceive " +
                   std::to_string(maxFor(m.queueName)) + ")";
        case Action::Reschedule:
            if (m.state == State::Scheduled)
                return {};
            return is + ": run now applies to delayed messages never received";
        case Action::Delete:
            if (m.state == State::Locked)
                return "is in flight (its lease has not lapsed): the receiver may still "
                       "complete it";
            return m.state == State::Unknown ? is + ": left alone" : std::string();
        case Action::Prune:
            if (m.state == State::Failed)
                return {};
            return is + ": prune deletes only dead letters";
        default:
            return std::string(actionName(a)) + " is not offered on goqite files";
        }
    }

    std::int64_t applyRow(Connection& c, Action a, const Message& m, TimeNs now,
                          const ActionOptions& o) const override {
        const std::string guard = " WHERE id = ?1 AND received = ?2 AND timeout = ?3";
        const std::string n = goqiteTime(now);
        auto bindGuard = [&](Statement& st) {
            st.bind(1, std::string_view(m.messageId)).bind(2, m.attempts);
            st.bind(3, std::string_view(*m.tokenText));
        };
        if (a == Action::Delete || a == Action::Prune) {
            // Never a message in flight: received > 0 with a live lease.
            auto st =
                c.cached("DELETE FROM " + m_t + guard + " AND (received = 0 OR timeout <= ?4)");
            bindGuard(*st);
            st->bind(4, std::string_view(n)).exec();
            return c.changes();
        }
        if (a == Action::Reschedule) {
            auto st = c.cached("UPDATE " + m_t + " SET timeout = ?4" + guard + " AND received = 0");
            bindGuard(*st);
            st->bind(4, std::string_view(goqiteTime(now + o.delay.count()))).exec();
            return c.changes();
        }
        // Retry a dead letter: received = 0, due now; never on a live lease.
        auto st = c.cached("UPDATE " + m_t + " SET received = 0, timeout = ?4" + guard +
                           " AND received >= " + m_maxSql + " AND timeout <= ?4");
        bindGuard(*st);
        st->bind(4, std::string_view(n)).exec();
        return c.changes();
    }

    bool holdsWritten(const Message& m, const Message& wrote) const override {
        return m.attempts == wrote.attempts && m.tokenText == wrote.tokenText;
    }

    std::int64_t restoreRow(Connection& c, const Message& m, const Message& before,
                            TimeNs) const override {
        auto st = c.cached("UPDATE " + m_t +
                           " SET received = ?4, timeout = ?5 WHERE id = ?1 AND received = ?2 AND "
                           "timeout = ?3");
        st->bind(1, std::string_view(m.messageId)).bind(2, m.attempts);
        st->bind(3, std::string_view(*m.tokenText)).bind(4, before.attempts);
        st->bind(5, std::string_view(*before.tokenText)).exec();
        return c.changes();
    }

    std::string reinsert(Connection& c, const Message& before, TimeNs now) const override {
        // created is restored; updated is the time of the undo.
        const bool prio = m_priority != "NULL";
        auto st =
            c.cached("INSERT INTO " + m_t + " (id, created, updated, queue, body, timeout, " +
                     "received" + (prio ? ", priority" : "") +
                     ") VALUES (?1, strftime('%Y-%m-%dT%H:%M:%fZ', ?2 / 1000.0, 'unixepoch'), "
                     "?3, ?4, ?5, ?6, ?7" +
                     (prio ? ", ?8" : "") + ")");
        st->bind(1, std::string_view(before.messageId));
        bindOptTime(*st, 2, before.inTime, kMs);
        st->bind(3, std::string_view(goqiteTime(now))).bind(4, before.queueName);
        st->bindBlob(5, before.data).bind(6, std::string_view(*before.tokenText));
        st->bind(7, before.attempts);
        if (prio)
            st->bind(8, before.priority.value_or(0));
        st->exec();
        return {};
    }

private:
    std::string m_t;
    std::string m_priority;
    std::int64_t m_max; ///< maxReceive (not stored: the setting, or goqite's default)
    std::map<std::string, std::int64_t> m_byQueue; ///< per named queue
    std::string m_maxSql;                          ///< maxReceive of the row, as SQL
};

} // namespace

std::vector<State> GoqiteFormat::states() const {
    return {State::Ready, State::Scheduled, State::Locked, State::Failed};
}

std::string GoqiteFormat::stateWord(State s) const {
    // A message goqite never delivers again is a dead letter: goqite has no
    // other failure (docs/FORMATS.md#goqite).
    return s == State::Failed ? "dead_letter" : std::string();
}

std::vector<std::string> GoqiteFormat::failureStates() const {
    return {"dead_letter"};
}

std::string GoqiteFormat::stateDescription(State s) const {
    return s == State::Failed
               ? "received maxReceive (" + std::to_string(kDefaultMaxReceive) +
                     ", goqite's default; not stored in the file) times: never delivered again, "
                     "never deleted by goqite"
               : std::string();
}

std::vector<QueueFormat::Setting> GoqiteFormat::settings() const {
    return {{std::string(kMaxReceiveKey), "Max receive", "receives", kDefaultMaxReceive, 1, true,
             "goqite's MaxReceive (goqite.New(NewOpts{Name, MaxReceive}), per queue name): "
             "receives after which a message is a dead letter; not stored in the file",
             "--max-receive"}};
}

std::string GoqiteFormat::whyNoMetric(Filter::Metric m, const FormatInfo&) const {
    if (m == Filter::Metric::None)
        return {};
    return "goqite stores no claim or finish time (timeout is the lease end or the due time, "
           "and completing deletes the message), so wait, processing, total and "
           "time-to-failure cannot be computed";
}

std::vector<Action> GoqiteFormat::rowActions() const {
    return {Action::Retry, Action::Reschedule, Action::Delete};
}

std::vector<QueueFormat::ActionRule> GoqiteFormat::actionRules(const FormatInfo&) const {
    return {
        {Action::Retry, ""},
        {Action::MarkFailed, "goqite has no failed state of its own: a message is dead only after "
                             "maxReceive receives"},
        {Action::Release,
         "goqite's lease is the timeout: once it lapsed the message is READY again, and "
         "a live lease is never cut short (the receiver may still complete it)"},
        {Action::Reschedule, ""},
        {Action::Delete, ""},
        {Action::Prune, ""},
        {Action::RetryExpired, "a goqite message whose lease lapsed is already receivable again"},
        {Action::Enqueue,
         "enqueue writes litequeue messages; goqite messages are sent by their app"},
        {Action::Vacuum, ""},
        {Action::Upgrade, "goqite ships no migrations"},
    };
}

std::optional<FormatInfo> GoqiteFormat::recognise(const SchemaFacts& s,
                                                  const std::string& preferTable) const {
    (void)preferTable;
    if (!s.hasColumns("goqite", kSignature))
        return std::nullopt;
    FormatInfo info = recognisedInfo(s, this, "goqite");
    const auto& cols = s.columns.at("goqite");
    if (!cols.count("priority"))
        info.warnings.push_back("goqite before 0.4 (no priority column): its times may carry "
                                "a local offset, and goqite compares them as text");
    info.warnings.push_back("maxReceive is not stored in the file: dead letters are counted at "
                            "the maxReceive set (goqite's default " +
                            std::to_string(kDefaultMaxReceive) +
                            "; per queue in Queue settings, lqctl --max-receive [QUEUE=]N)");
    refuseUnexpectedObjects(s, info, {"goqite"}, isGoqiteTrigger);
    return info;
}

std::unique_ptr<FormatDriver> GoqiteFormat::driver(const FormatInfo& info,
                                                   const std::string& path) const {
    return std::make_unique<GoqiteDriver>(info, path);
}

std::string GoqiteFormat::fieldLabel(Field f) const {
    switch (f) {
    case Field::Attempts:
        return "Received";
    case Field::ScheduledAt:
        return "Timeout";
    case Field::LeaseExpiry:
        return "Lease expiry";
    case Field::Token:
        return "Timeout token";
    default:
        return defaultFieldLabel(f);
    }
}

} // namespace lq::core
