// SPDX-License-Identifier: MIT
// Symfony Messenger's Doctrine transport: its SQL on one open file
// (docs/FORMATS.md#symfony-messenger; symfony/doctrine-messenger 5.4.53
// Bridge/Doctrine/Transport/Connection.php). One table; times are Doctrine
// DATETIME_MUTABLE TEXT ('Y-m-d H:i:s'), read as Solid Queue's are
// (lq_text_ns; readTime(Text)); this driver writes none. The state is a
// partition on queue_name (the failure transport's 'failed'), delivered_at
// and available_at; stuck is the library's own rule
// (createAvailableMessagesQueryBuilder: delivered_at older than
// redeliver_timeout is delivered again). Every write is guarded by the
// delivery as stored: delivered_at, with available_at and queue_name.
#include "../error.h"
#include "../sqlite.h"
#include "driver.h"
#include "messenger.h"
#include "messenger_envelope.h"
#include "solidqueue_text.h"

#include <sqlite3.h>

#include <map>
#include <memory>
#include <string_view>

namespace lq::core {

namespace {

/// `now` as Messenger compares it: its limits are DateTimeImmutable values
/// stored and compared as whole-second datetimes (Connection::get():
/// available_at <= now, delivered_at < now - redeliver_timeout), so a
/// delivery is due again only from the next whole second on.
TimeNs wholeSecond(TimeNs now) {
    const TimeNs r = now % kNsPerSecond;
    return r < 0 ? now - r - kNsPerSecond : now - r;
}

using solidqueue::j;
using solidqueue::ns;

/// "queue_name is the failure transport's", as SQL.
std::string isFailed() {
    return std::string("queue_name IS '") + MessengerFormat::kFailedQueue + "'";
}
std::string notFailed() {
    return std::string("queue_name IS NOT '") + MessengerFormat::kFailedQueue + "'";
}

/// The stored row's own values as JSON (Message::formatRow): what undo
/// writes back, value for value and type for type (the body is
/// Message::data).
std::string rawRow() {
    return "json_object('id', id, 'headers', " + j("headers") + ", 'queue_name', " +
           j("queue_name") + ", 'created_at', " + j("created_at") + ", 'available_at', " +
           j("available_at") + ", 'delivered_at', " + j("delivered_at") + ")";
}

/// The claim token: the delivery as stored, with what a release or an undo
/// writes.
std::string deliveryToken() {
    return "json_object('delivered_at', " + j("delivered_at") + ", 'available_at', " +
           j("available_at") + ", 'queue_name', " + j("queue_name") + ")";
}

/// "AND the row still holds the delivery in `raw` (parameter ?N)".
std::string deliveryGuard(int n) {
    const std::string p = "?" + std::to_string(n);
    std::string out;
    for (const char* c : {"delivered_at", "available_at", "queue_name"})
        out += std::string(" AND ") + c + " IS json_extract(" + p + ", '$." + c + "')";
    return out;
}

/// What the body is, for the payload's note.
std::string bodyNote(const messenger::EnvelopeFacts& env, std::string_view headers) {
    constexpr std::size_t kMaxHeaders = 1000;
    std::string note;
    if (env.encoding == "php")
        note = "the body is the envelope as PhpSerializer stores it (PHP serialize(), "
               "addslashes): shown as text, never unserialized";
    else if (env.encoding == "php-base64")
        note = "the body is the envelope as PhpSerializer stores it, base64 because serialize() "
               "gave bytes that are not UTF-8: shown as stored, never unserialized";
    else if (env.encoding == "json")
        note = "the body is the message as Symfony's Serializer writes it; its class and stamps "
               "are in the headers column";
    else
        note = "the body is no envelope this tool reads (neither PhpSerializer's nor the "
               "Serializer's): shown as text, never unserialized";
    if (env.failedOn)
        note += ". Sent to the failure transport by the transport " + *env.failedOn +
                " (SentToFailureTransportStamp; its queue_name is in the app's DSN)";
    if (!headers.empty() && headers != "[]") {
        note += ". Headers: " + std::string(headers.substr(0, kMaxHeaders));
        if (headers.size() > kMaxHeaders)
            note += "…";
    }
    return note;
}

class MessengerDriver final : public FormatDriver {
public:
    MessengerDriver(const FormatInfo& fi, const std::string& path)
        : FormatDriver(fi, path)
        , m_t(quoteIdent(fi.table)) {
        if (const std::int64_t s = fi.settings.value(MessengerFormat::kRedeliverTimeoutKey); s > 0)
            m_timeout = s * kNsPerSecond;
        // redeliver_timeout is a transport's option, and each transport has
        // its queue_name: a value per queue.
        std::string arms;
        for (const auto& [queue, s] : fi.settings.byQueue(MessengerFormat::kRedeliverTimeoutKey))
            if (s > 0) {
                m_byQueue[queue] = s * kNsPerSecond;
                arms +=
                    " WHEN " + quoteLiteral(queue) + " THEN " + std::to_string(s * kNsPerSecond);
            }
        m_timeoutSql = arms.empty() ? std::to_string(m_timeout)
                                    : "(CASE queue_name" + arms + " ELSE " +
                                          std::to_string(m_timeout) + " END)";
    }

    /// redeliver_timeout of queue `queue`, in ns.
    TimeNs timeoutFor(const std::optional<std::string>& queue) const {
        if (queue)
            if (const auto it = m_byQueue.find(*queue); it != m_byQueue.end())
                return it->second;
        return m_timeout;
    }

    // ---- reading -------------------------------------------------------------

    std::string columns() const override {
        return "id, body, headers, queue_name, created_at, available_at, delivered_at, " +
               rawRow() + ", " + deliveryToken();
    }

    Message readRow(const Statement& st, TimeNs exactNow) const override {
        const TimeNs now = wholeSecond(exactNow);
        Message m;
        m.rowid = st.int64(0);
        m.messageId = st.text(0);
        m.dataIsBlob = st.columnType(1) == SQLITE_BLOB;
        m.data = st.text(1);
        const std::string headers = st.text(2);
        const messenger::EnvelopeFacts env = messenger::readEnvelope(m.data, headers);
        m.dataNote = bodyNote(env, headers);
        m.jobName = env.messageClass;
        m.lastError = env.errorText();
        m.attempts = env.retries.value_or(0);
        m.rawStatus = -1;
        m.queueName = st.optText(3);
        m.inTime = readTime(st, 4, TimeEncoding::Text);
        m.scheduledAt = readTime(st, 5, TimeEncoding::Text);
        m.waitFrom = m.scheduledAt; // wait = delivered_at - available_at
        const auto delivered = readTime(st, 6, TimeEncoding::Text);
        const TimeNs timeout = timeoutFor(m.queueName);
        m.tokenText = st.isNull(6) ? std::string("not delivered") : st.text(6);
        if (delivered)
            m.leaseExpiry = *delivered + timeout;
        m.formatRow = st.text(7);
        m.token = textTokenHash(st.textView(8));
        if (m.queueName == MessengerFormat::kFailedQueue) {
            // Sent to the failure transport at created_at. A delivery here
            // is a consumer of the failure transport's (not the failure).
            m.state = State::Failed;
            m.doneTime = m.inTime;
        } else if (!st.isNull(6)) {
            m.state = State::Locked;
            m.lockTime = delivered;
            if (delivered && *delivered < now - timeout)
                m.extraState = QueueFormat::kStuckState;
        } else {
            m.state = m.scheduledAt && *m.scheduledAt > now ? State::Scheduled : State::Ready;
        }
        return m;
    }

    std::string idColumn() const override { return "id"; }
    std::string targetColumns() const override { return "id, " + deliveryToken(); }
    Target readTarget(const Statement& st) const override {
        return {st.text(0), textTokenHash(st.textView(1))};
    }

    // ---- filters, order, counts ----------------------------------------------

    std::string stateCondition(State s, Binds& binds, TimeNs exactNow) const override {
        const TimeNs now = wholeSecond(exactNow);
        switch (s) {
        case State::Ready:
            binds.emplace_back(now);
            return "(" + notFailed() + " AND delivered_at IS NULL AND NOT coalesce(" +
                   ns("available_at") + " > ?, 0))";
        case State::Scheduled:
            binds.emplace_back(now);
            return "(" + notFailed() + " AND delivered_at IS NULL AND " + ns("available_at") +
                   " > ?)";
        case State::Locked:
            return "(" + notFailed() + " AND delivered_at IS NOT NULL)";
        case State::Failed:
            return isFailed();
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

    std::string stuckCondition(Binds& binds, TimeNs exactNow, TimeNs) const override {
        const TimeNs now = wholeSecond(exactNow);
        binds.emplace_back(now);
        return "(" + notFailed() + " AND delivered_at IS NOT NULL AND " + ns("delivered_at") +
               " < ? - " + m_timeoutSql + ")";
    }

    std::vector<JsonField> jsonFields() const override { return {{"headers", "headers"}}; }
    std::vector<std::string> searchColumns() const override {
        return {"CAST(id AS TEXT)", "body", "headers", "queue_name"};
    }
    std::string queueColumn() const override { return "queue_name"; }
    std::string arrivalColumn() const override { return textTimeKey("created_at"); }
    TimeEncoding arrivalEncoding() const override { return TimeEncoding::Text; }
    std::string doneColumn() const override {
        return textTimeKey("(CASE WHEN " + isFailed() + " THEN created_at END)");
    }
    TimeEncoding doneEncoding() const override { return TimeEncoding::Text; }

    std::string metricCondition(Filter::Metric m, TimeNs lo, TimeNs hi,
                                Binds& binds) const override {
        if (m != Filter::Metric::Wait)
            return "0"; // not stored (MessengerFormat::whyNoMetric)
        const std::string d = "(CASE WHEN " + notFailed() + " THEN " + ns("delivered_at") + " - " +
                              ns("available_at") + " END)";
        binds.emplace_back(lo);
        binds.emplace_back(hi);
        return "(" + d + " >= ? AND " + d + " < ?)";
    }

    SortColumns sortColumns() const override {
        SortColumns c;
        c.arrival = "id";
        c.inTime = ns("created_at");
        c.lockTime = ns("delivered_at");
        c.claim = ns("delivered_at");
        c.doneTime = "(CASE WHEN " + isFailed() + " THEN " + ns("created_at") + " END)";
        c.wait = "(CASE WHEN " + notFailed() + " THEN " + ns("delivered_at") + " - " +
                 ns("available_at") + " END)";
        c.processing = "NULL"; // not stored
        c.status =
            "(CASE WHEN " + isFailed() + " THEN 3 WHEN delivered_at IS NOT NULL THEN 2 ELSE 0 END)";
        return c;
    }

    // One pass: FAILED, LOCKED (and stuck among them), SCHEDULED; READY is
    // the rest, as stateCondition() has it.
    Counts counts(Connection& r, TimeNs exactNow, TimeNs, const std::string& where,
                  const Binds& binds) const override {
        const TimeNs now = wholeSecond(exactNow);
        Counts c;
        auto st = r.cached("SELECT count(*), coalesce(sum(" + isFailed() + "), 0), coalesce(sum(" +
                           notFailed() + " AND delivered_at IS NOT NULL), 0), coalesce(sum(" +
                           notFailed() + " AND delivered_at IS NOT NULL AND " + ns("delivered_at") +
                           " < ?1 - " + m_timeoutSql + "), 0), coalesce(sum(" + notFailed() +
                           " AND delivered_at IS NULL AND " + ns("available_at") +
                           " > ?1), 0) FROM " + m_t + where);
        bindValues(*st, {now});
        bindValues(*st, binds, 2);
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
        return isFailed() + ", created_at, available_at, delivered_at, queue_name";
    }

    void timingRow(const Statement& st, TimeNs exactNow, TimingColumns& cols) const override {
        const TimeNs now = wholeSecond(exactNow);
        constexpr TimeNs none = TimingColumns::kNoTime;
        const bool failed = st.int64(0) != 0;
        const auto created = readTime(st, 1, TimeEncoding::Text);
        const auto available = readTime(st, 2, TimeEncoding::Text);
        const auto delivered = readTime(st, 3, TimeEncoding::Text);
        State s = State::Failed;
        if (!failed) {
            if (!st.isNull(3))
                s = State::Locked;
            else
                s = available && *available > now ? State::Scheduled : State::Ready;
        }
        cols.state.push_back(static_cast<std::int8_t>(s));
        const TimeNs timeout = timeoutFor(st.optText(4));
        cols.ownStuck.push_back(s == State::Locked && delivered && *delivered < now - timeout ? 1
                                                                                              : 0);
        cols.inTime.push_back(created.value_or(none));
        cols.lockTime.push_back(failed ? none : delivered.value_or(none));
        cols.doneTime.push_back(failed ? created.value_or(none) : none);
        cols.dueTime.push_back(available.value_or(none));
    }

    // ---- operator actions --------------------------------------------------

    std::string tokenWord() const override { return "delivery"; }
    std::string tokenShown(const Message& m) const override {
        const std::string t = m.tokenText.value_or("not delivered");
        return t == "not delivered" ? t : "delivered at " + t;
    }

    std::string refusal(Action a, const Message& m, TimeNs exactNow) const override {
        const TimeNs now = wholeSecond(exactNow);
        const bool stuck = m.extraState == QueueFormat::kStuckState;
        // A consumer of the failure transport (messenger:consume failed)
        // holds a FAILED row it got within redeliver_timeout.
        const bool failedInHand =
            m.state == State::Failed && m.leaseExpiry && *m.leaseExpiry >= now;
        const std::string live = "is delivered to a worker within redeliver_timeout (" +
                                 std::to_string(timeoutFor(m.queueName) / kNsPerSecond) + " s)";
        switch (a) {
        case Action::Release:
            if (m.state != State::Locked)
                return "is " + std::string(stateName(m.state)) +
                       ": release clears the delivery of a stuck delivered message";
            return stuck ? std::string()
                         : live + ": only a delivery older than redeliver_timeout can be "
                                  "released";
        case Action::Delete:
            if ((m.state == State::Locked && !stuck) || failedInHand)
                return live + ": deleting it would not stop its handler";
            return {};
        case Action::Prune:
            if (m.state != State::Failed)
                return "is " + std::string(stateName(m.state)) +
                       ": prune deletes only the failure transport's messages";
            return failedInHand ? live + ": it is being retried" : std::string();
        default:
            return std::string(actionName(a)) + " is not offered on Symfony Messenger files";
        }
    }

    std::int64_t applyRow(Connection& c, Action a, const Message& m, TimeNs,
                          const ActionOptions&) const override {
        const std::string raw = m.formatRow.value_or("{}");
        switch (a) {
        case Action::Release: {
            // What the next get() does to a delivery older than
            // redeliver_timeout, without delivering it: delivered_at cleared.
            auto st = c.cached("UPDATE " + m_t + " SET delivered_at = NULL WHERE id = ?1" +
                               deliveryGuard(2));
            st->bind(1, m.rowid).bind(2, std::string_view(raw)).exec();
            return c.changes();
        }
        case Action::Delete:
        case Action::Prune: {
            // Connection::reject() / messenger:failed:remove: DELETE by id.
            auto st = c.cached("DELETE FROM " + m_t + " WHERE id = ?1" + deliveryGuard(2));
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
                           " SET queue_name = json_extract(?3, '$.queue_name'), available_at = "
                           "json_extract(?3, '$.available_at'), delivered_at = json_extract(?3, "
                           "'$.delivered_at') WHERE id = ?1" +
                           deliveryGuard(2));
        st->bind(1, m.rowid).bind(2, std::string_view(m.formatRow.value_or("{}")));
        st->bind(3, std::string_view(before.formatRow.value_or("{}"))).exec();
        return c.changes();
    }

    std::string reinsert(Connection& c, const Message& before, TimeNs) const override {
        auto st = c.cached("INSERT INTO " + m_t +
                           " (id, body, headers, queue_name, created_at, available_at, "
                           "delivered_at) SELECT json_extract(?1, '$.id'), ?2, json_extract(?1, "
                           "'$.headers'), json_extract(?1, '$.queue_name'), json_extract(?1, "
                           "'$.created_at'), json_extract(?1, '$.available_at'), "
                           "json_extract(?1, '$.delivered_at')");
        st->bind(1, std::string_view(before.formatRow.value_or("{}")));
        st->bind(2, std::string_view(before.data)).exec();
        return {};
    }

private:
    std::string m_t;
    /// The file-wide redeliver_timeout, and the queues' own ones (ns).
    TimeNs m_timeout = MessengerFormat::kDefaultRedeliverTimeoutSeconds * kNsPerSecond;
    std::map<std::string, TimeNs> m_byQueue;
    std::string m_timeoutSql; ///< the row's redeliver_timeout in ns, as SQL on queue_name
};

} // namespace

std::unique_ptr<FormatDriver> makeMessengerDriver(const FormatInfo& info, const std::string& path) {
    return std::make_unique<MessengerDriver>(info, path);
}

} // namespace lq::core
