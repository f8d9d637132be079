// SPDX-License-Identifier: MIT
// The SQL of litequeue files (0.14, 0.13, legacy, multi, unknown version):
// status 0..3 in an indexed column, claim_id (or lock_time) as the token,
// one time unit per file (ns, or seconds for 0.13).
#include "driver.h"
#include "litequeue.h"

#include "../error.h"
#include "../queue.h"
#include "../sqlite.h"

#include <sqlite3.h>

namespace lq::core {

namespace {

class LitequeueDriver final : public FormatDriver {
public:
    LitequeueDriver(const FormatInfo& fi, const std::string& path)
        : FormatDriver(fi, path)
        , m_t(quoteIdent(fi.table))
        , m_enc(fi.timeUnit == TimeUnit::Seconds ? TimeEncoding::Seconds : TimeEncoding::Ns)
        , m_claims(fi.hasClaimId) {
        m_cols = std::string("rowid, data, message_id, status, in_time, lock_time, done_time, ") +
                 (fi.hasIdempotencyKey ? "idempotency_key, " : "NULL, ") +
                 (m_claims ? "claim_id" : "0");
        m_tok = m_claims ? "claim_id" : "coalesce(lock_time, 0)";
        m_byId = "SELECT " + m_cols + " FROM " + m_t + " WHERE message_id = ?1";
        m_byKey = "SELECT " + m_cols + " FROM " + m_t + " WHERE idempotency_key = ?1";
    }

    std::string columns() const override { return m_cols; }

    Message readRow(const Statement& st, TimeNs now) const override {
        (void)now;
        Message m;
        m.rowid = st.int64(0);
        m.data = st.text(1);
        m.dataIsBlob = st.columnType(1) == SQLITE_BLOB;
        m.messageId = st.text(2);
        m.rawStatus = st.columnType(3) == SQLITE_INTEGER ? st.int64(3) : -1;
        m.inTime = readTime(st, 4, m_enc);
        m.lockTime = readTime(st, 5, m_enc);
        m.doneTime = readTime(st, 6, m_enc);
        m.idempotencyKey = st.optText(7);
        m.claimId = st.int64(8);
        m.token = m_claims ? m.claimId : (st.isNull(5) ? 0 : st.int64(5));
        m.state = (m.rawStatus >= 0 && m.rawStatus <= 3) ? static_cast<State>(m.rawStatus)
                                                         : State::Unknown;
        return m;
    }

    std::string idColumn() const override { return "message_id"; }
    std::string targetColumns() const override { return "message_id, " + m_tok; }
    Target readTarget(const Statement& st) const override { return {st.text(0), st.int64(1)}; }

    std::string stateCondition(State s, Binds& binds, TimeNs now) const override {
        (void)binds;
        (void)now;
        switch (s) {
        case State::Ready:
            return "status = 0";
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

    std::string stuckCondition(Binds& binds, TimeNs now, TimeNs stuckAfter) const override {
        binds.push_back(encodeTime(now - stuckAfter, m_enc));
        return "(status = 1 AND lock_time < ?)";
    }

    std::vector<JsonField> jsonFields() const override { return {{"data", "data"}}; }
    std::vector<std::string> searchColumns() const override {
        if (info().hasIdempotencyKey)
            return {"message_id", "data", "idempotency_key"};
        return {"message_id", "data"};
    }
    std::string arrivalColumn() const override { return "in_time"; }
    TimeEncoding arrivalEncoding() const override { return m_enc; }
    std::string doneColumn() const override { return "done_time"; }

    std::string metricCondition(Filter::Metric metric, TimeNs lo, TimeNs hi,
                                Binds& binds) const override {
        std::string expr, state;
        switch (metric) {
        case Filter::Metric::Wait:
            expr = "lock_time - in_time";
            break;
        case Filter::Metric::Processing:
            expr = "done_time - lock_time";
            state = "status = 2 AND ";
            break;
        case Filter::Metric::Total:
            expr = "done_time - in_time";
            state = "status = 2 AND ";
            break;
        case Filter::Metric::TimeToFailure:
            expr = "done_time - lock_time";
            state = "status = 3 AND ";
            break;
        case Filter::Metric::None:
            return {};
        }
        binds.push_back(encodeTime(lo, m_enc));
        binds.push_back(encodeTime(hi, m_enc));
        return state + "(" + expr + ") >= ? AND (" + expr + ") < ?";
    }

    SortColumns sortColumns() const override {
        SortColumns c;
        c.arrival = "message_id";
        c.inTime = "in_time";
        c.lockTime = "lock_time";
        c.doneTime = "done_time";
        c.wait = "(lock_time - in_time)";
        c.processing = "(done_time - lock_time)";
        c.claim = m_tok;
        c.status = "status";
        return c;
    }

    Counts counts(Connection& r, TimeNs now, TimeNs stuckAfter, const std::string& where,
                  const Binds& binds) const override {
        Counts c;
        {
            auto st = r.cached("SELECT status, count(*) FROM " + m_t + where + " GROUP BY status");
            bindValues(*st, binds);
            while (st->step()) {
                const std::int64_t n = st->int64(1);
                c.stored += n;
                if (st->columnType(0) != SQLITE_INTEGER) {
                    c.unknown += n;
                    continue;
                }
                switch (st->int64(0)) {
                case 0:
                    c.ready += n;
                    break;
                case 1:
                    c.locked += n;
                    break;
                case 2:
                    c.done += n;
                    break;
                case 3:
                    c.failed += n;
                    break;
                default:
                    c.unknown += n;
                    break;
                }
            }
        }
        {
            // The same rows as above (a chunk of a scan narrows `where`).
            auto st =
                r.cached("SELECT count(*) FROM " + m_t + where +
                         (where.empty() ? " WHERE " : " AND ") + "status = 1 AND lock_time < ?");
            bindValues(*st, binds);
            bindTime(*st, static_cast<int>(binds.size()) + 1, now - stuckAfter, m_enc);
            if (st->step())
                c.stuck = st->int64(0);
        }
        return c;
    }

    std::string timingColumns() const override { return "status, in_time, lock_time, done_time"; }

    void timingRow(const Statement& st, TimeNs now, TimingColumns& cols) const override {
        (void)now;
        constexpr TimeNs none = TimingColumns::kNoTime;
        const std::int64_t raw = st.columnType(0) == SQLITE_INTEGER ? st.int64(0) : -1;
        const State s = (raw >= 0 && raw <= 3) ? static_cast<State>(raw) : State::Unknown;
        cols.inTime.push_back(readTime(st, 1, m_enc).value_or(none));
        cols.lockTime.push_back(readTime(st, 2, m_enc).value_or(none));
        cols.doneTime.push_back(readTime(st, 3, m_enc).value_or(none));
        cols.state.push_back(static_cast<std::int8_t>(s));
    }

    // ---- library API -------------------------------------------------------

    Message insert(Connection& c, const std::string& data, const std::optional<std::string>& key,
                   TimeNs now, bool* inserted) const override {
        if (key) {
            if (!info().hasIdempotencyKey)
                throw Unsupported(path(), "idempotency keys need a litequeue 0.13+ file; "
                                          "upgrade it first");
            auto st = c.cached(m_byKey);
            st->bind(1, std::string_view(*key));
            if (st->step()) {
                Message existing = readRow(*st, now);
                if (existing.data == data)
                    return existing;
                throw IdempotencyConflict(path(), "idempotency key '" + *key +
                                                      "' is already stored (message " +
                                                      existing.messageId + ") with other data");
            }
        }
        Message m;
        m.data = data;
        m.idempotencyKey = key;
        m.messageId = Queue::newMessageId(now);
        m.inTime = now;
        auto st = c.cached(
            m_claims ? "INSERT INTO " + m_t +
                           " (data, message_id, status, in_time, lock_time, done_time, "
                           "idempotency_key, claim_id) VALUES (?1, ?2, 0, ?3, NULL, NULL, ?4, 0)"
                     : "INSERT INTO " + m_t +
                           " (data, message_id, status, in_time, lock_time, done_time) VALUES "
                           "(?1, ?2, 0, ?3, NULL, NULL)");
        st->bind(1, std::string_view(m.data)).bind(2, std::string_view(m.messageId));
        bindTime(*st, 3, now, m_enc);
        if (m_claims)
            st->bind(4, m.idempotencyKey);
        st->exec();
        if (inserted)
            *inserted = true;
        m.rowid = c.lastInsertRowid();
        m.state = State::Ready;
        return m;
    }

    std::optional<Message> pop(Connection& c, TimeNs now) const override {
        auto st = c.cached(
            "UPDATE " + m_t + " SET status = 1, " + (m_claims ? "claim_id = claim_id + 1, " : "") +
            "lock_time = ?1, done_time = NULL WHERE message_id = (SELECT message_id FROM " + m_t +
            " WHERE status = 0 ORDER BY message_id LIMIT 1) RETURNING " + m_cols);
        bindTime(*st, 1, now, m_enc);
        if (!st->step())
            return std::nullopt;
        return readRow(*st, now);
    }

    std::optional<Message> peek(Connection& c, TimeNs now) const override {
        auto st = c.cached("SELECT " + m_cols + " FROM " + m_t +
                           " WHERE status = 0 ORDER BY message_id LIMIT 1");
        if (!st->step())
            return std::nullopt;
        return readRow(*st, now);
    }

    bool transition(Connection& c, std::string_view id, std::int64_t claim, int toStatus,
                    TimeNs now) const override {
        const bool setDone = toStatus != 0;
        auto st = c.cached("UPDATE " + m_t +
                           " SET status = ?1, done_time = " + (setDone ? "?4" : "NULL") +
                           " WHERE message_id = ?2 AND status = 1 AND " + m_tok + " = ?3");
        st->bind(1, toStatus).bind(2, id).bind(3, claim);
        if (setDone)
            bindTime(*st, 4, now, m_enc);
        st->exec();
        return c.changes() == 1;
    }

    std::int64_t retryExpired(Connection& c, TimeNs cutoff) const override {
        auto st = c.cached("UPDATE " + m_t +
                           " SET status = 0, done_time = NULL WHERE status = 1 AND lock_time < ?1");
        bindTime(*st, 1, cutoff, m_enc);
        st->exec();
        return c.changes();
    }

    std::int64_t prune(Connection& c, bool includeFailed,
                       std::optional<TimeNs> cutoff) const override {
        std::string sql = "DELETE FROM " + m_t + " WHERE status IN (2" +
                          std::string(includeFailed ? ", 3)" : ")");
        if (cutoff)
            sql += " AND done_time < ?1";
        auto st = c.cached(sql);
        if (cutoff)
            bindTime(*st, 1, *cutoff, m_enc);
        st->exec();
        return c.changes();
    }

    Filter lockedFilter(TimeNs threshold) const override {
        Filter f;
        f.states = {State::Locked};
        f.stuckOnly = true;
        f.stuckAfterNs = threshold;
        return f;
    }

    void upgrade(Connection& c) const override {
        if (LitequeueFormat::versionOf(info()) == LitequeueFormat::Version::Legacy) {
            if (!info().hasIdempotencyKey)
                c.exec("ALTER TABLE " + m_t + " ADD COLUMN idempotency_key TEXT");
            if (!info().hasClaimId)
                c.exec("ALTER TABLE " + m_t + " ADD COLUMN claim_id INTEGER NOT NULL DEFAULT 0");
            // Their workers cannot hold a claim id: give the messages back.
            c.exec("UPDATE " + m_t + " SET status = 0 WHERE status = 1");
        } else if (LitequeueFormat::versionOf(info()) == LitequeueFormat::Version::V013) {
            c.exec("UPDATE " + m_t +
                   " SET in_time = CAST(round(in_time * 1000000000.0) AS INTEGER), "
                   "lock_time = CAST(round(lock_time * 1000000000.0) AS INTEGER), "
                   "done_time = CAST(round(done_time * 1000000000.0) AS INTEGER)");
        } else {
            FormatDriver::upgrade(c);
        }
        c.exec("CREATE UNIQUE INDEX IF NOT EXISTS \"Queue_idempotency_key_unique_idx\" ON " + m_t +
               "(idempotency_key) WHERE idempotency_key IS NOT NULL");
        c.exec("PRAGMA user_version = 3");
    }

    // ---- operator actions --------------------------------------------------

    std::string tokenWord() const override { return m_claims ? "claim" : "lock_time"; }

    std::int64_t applyRow(Connection& c, Action a, const Message& m, TimeNs now,
                          const ActionOptions& o) const override {
        (void)o;
        if (a == Action::Prune) {
            auto st = c.cached("DELETE FROM " + m_t + " WHERE rowid = ?1 AND status = ?2 AND " +
                               m_tok + " = ?3");
            st->bind(1, m.rowid).bind(2, m.rawStatus).bind(3, m.token).exec();
            return c.changes();
        }
        const bool fail = a == Action::MarkFailed;
        auto st =
            c.cached("UPDATE " + m_t + " SET status = ?4, done_time = " + (fail ? "?5" : "NULL") +
                     " WHERE rowid = ?1 AND status = ?2 AND " + m_tok + " = ?3");
        st->bind(1, m.rowid).bind(2, m.rawStatus).bind(3, m.token).bind(4, fail ? 3 : 0);
        if (fail)
            bindTime(*st, 5, now, m_enc);
        st->exec();
        return c.changes();
    }

    bool holdsWritten(const Message& m, const Message& wrote) const override {
        return m.rawStatus == wrote.rawStatus && m.token == wrote.token &&
               m.doneTime == wrote.doneTime;
    }

    std::int64_t restoreRow(Connection& c, const Message& m, const Message& before,
                            TimeNs now) const override {
        (void)now;
        auto st = c.cached("UPDATE " + m_t +
                           " SET status = ?4, done_time = ?5 WHERE rowid = ?1 AND status = ?2 "
                           "AND " +
                           m_tok + " = ?3");
        st->bind(1, m.rowid).bind(2, m.rawStatus).bind(3, m.token).bind(4, before.rawStatus);
        bindOptTime(*st, 5, before.doneTime, m_enc);
        st->exec();
        return c.changes();
    }

    std::string reinsert(Connection& c, const Message& before, TimeNs now) const override {
        std::string note;
        std::optional<std::string> key = before.idempotencyKey;
        // A pruned message's idempotency key is free again (docs/FORMATS.md#litequeue) and
        // may have been taken by a new message since: restore the message
        // without its key rather than lose it, and say so.
        if (m_claims && key) {
            auto byKey = c.cached(m_byKey);
            byKey->bind(1, std::string_view(*key));
            if (byKey->step()) {
                const Message holder = readRow(*byKey, now);
                note = "restored without its idempotency key '" + *key +
                       "': the key is now held by message " + holder.messageId;
                key.reset();
            }
        }
        auto st = c.cached("INSERT INTO " + m_t +
                           (m_claims ? " (data, message_id, status, in_time, lock_time, done_time, "
                                       "idempotency_key, claim_id) VALUES (?1, ?2, ?3, ?4, ?5, "
                                       "?6, ?7, ?8)"
                                     : " (data, message_id, status, in_time, lock_time, done_time) "
                                       "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
        if (before.dataIsBlob)
            st->bindBlob(1, before.data);
        else
            st->bind(1, std::string_view(before.data));
        st->bind(2, std::string_view(before.messageId)).bind(3, before.rawStatus);
        bindOptTime(*st, 4, before.inTime, m_enc);
        bindOptTime(*st, 5, before.lockTime, m_enc);
        bindOptTime(*st, 6, before.doneTime, m_enc);
        if (m_claims)
            st->bind(7, key).bind(8, before.claimId);
        st->exec();
        return note;
    }

    std::int64_t deleteRow(Connection& c, const Message& m) const override {
        auto st = c.cached("DELETE FROM " + m_t + " WHERE rowid = ?1 AND " + m_tok + " = ?2");
        st->bind(1, m.rowid).bind(2, m.token).exec();
        return c.changes();
    }

private:
    std::string m_t;
    TimeEncoding m_enc;
    bool m_claims;
    std::string m_cols, m_tok, m_byId, m_byKey;
};

} // namespace

void LitequeueFormat::createSchema(Connection& c, std::optional<std::int64_t> maxsize) {
    c.exec("CREATE TABLE \"Queue\" (data TEXT NOT NULL, message_id TEXT NOT NULL, "
           "status INTEGER NOT NULL, in_time INTEGER NOT NULL, lock_time INTEGER, "
           "done_time INTEGER, idempotency_key TEXT, claim_id INTEGER NOT NULL "
           "DEFAULT 0)");
    c.exec("CREATE UNIQUE INDEX \"Queue_message_id_unique_idx\" ON \"Queue\"(message_id)");
    c.exec("CREATE INDEX \"Queue_status_message_id_idx\" ON \"Queue\"(status, message_id)");
    c.exec("CREATE UNIQUE INDEX \"Queue_idempotency_key_unique_idx\" ON "
           "\"Queue\"(idempotency_key) WHERE idempotency_key IS NOT NULL");
    if (maxsize) {
        const std::string n = std::to_string(*maxsize);
        c.exec("CREATE TRIGGER \"maxsize_control_Queue\" BEFORE INSERT ON \"Queue\" "
               "WHEN (SELECT COUNT(*) FROM \"Queue\" WHERE status = 0) >= " +
               n + " BEGIN SELECT RAISE (ABORT,'Max queue length reached: " + n + "'); END");
    }
    c.exec("PRAGMA user_version = 3");
}

std::unique_ptr<FormatDriver> LitequeueFormat::driver(const FormatInfo& info,
                                                      const std::string& path) const {
    return std::make_unique<LitequeueDriver>(info, path);
}

} // namespace lq::core
