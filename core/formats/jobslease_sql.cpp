// SPDX-License-Identifier: MIT
// The SQL of the jobs-lease pattern (seed 000): table `jobs`, REAL seconds,
// states derived from run_at and locked_until, attempts as the token.
#include "driver.h"
#include "jobslease.h"
#include "schema.h"

#include "../error.h"
#include "../sqlite.h"

#include <functional>
#include <thread>

namespace lq::core {

namespace {

constexpr TimeEncoding kEnc = TimeEncoding::Seconds;

class JobsLeaseDriver final : public FormatDriver {
public:
    JobsLeaseDriver(const FormatInfo& fi, const std::string& path)
        : FormatDriver(fi, path)
        , m_t(quoteIdent(fi.table)) {}

    std::string columns() const override { return kCols; }

    static void classify(Message& m, TimeNs now) {
        if (m.leaseExpiry && *m.leaseExpiry >= now)
            m.state = State::Leased;
        else if (m.scheduledAt && *m.scheduledAt > now)
            m.state = State::Scheduled;
        else if (m.leaseExpiry)
            m.state = State::Expired;
        else
            m.state = State::Ready;
        m.token = m.attempts;
    }

    Message readRow(const Statement& st, TimeNs now) const override {
        Message m;
        m.rowid = st.int64(0);
        m.data = st.text(1);
        m.messageId = st.text(2);
        m.rawStatus = -1; // no status column
        m.attempts = st.int64(3);
        m.scheduledAt = readTime(st, 4, kEnc);
        m.leaseExpiry = readTime(st, 5, kEnc);
        classify(m, now);
        return m;
    }

    std::string idColumn() const override { return "id"; }
    std::string targetColumns() const override { return "id, attempts"; }
    Target readTarget(const Statement& st) const override { return {st.text(0), st.int64(1)}; }

    std::string stateCondition(State s, Binds& binds, TimeNs now) const override {
        const auto push = [&] { binds.push_back(encodeTime(now, kEnc)); };
        switch (s) {
        case State::Leased:
            push();
            return "(locked_until >= ?)";
        case State::Scheduled:
            push();
            push();
            return "((locked_until IS NULL OR locked_until < ?) AND run_at > ?)";
        case State::Expired:
            push();
            push();
            return "(locked_until < ? AND run_at <= ?)";
        case State::Ready:
            push();
            return "(locked_until IS NULL AND run_at <= ?)";
        default:
            return "0";
        }
    }

    std::string stuckCondition(Binds&, TimeNs, TimeNs) const override { return "0"; }
    std::vector<JsonField> jsonFields() const override { return {{"payload", "payload"}}; }
    std::vector<std::string> searchColumns() const override { return {"id", "payload"}; }
    std::string arrivalColumn() const override { return "run_at"; }
    TimeEncoding arrivalEncoding() const override { return kEnc; }

    SortColumns sortColumns() const override {
        SortColumns c;
        c.arrival = "run_at";
        c.inTime = "run_at";
        c.lockTime = "locked_until";
        c.doneTime = "run_at";
        c.wait = "run_at";
        c.processing = "run_at";
        c.claim = "attempts";
        c.status = "locked_until";
        return c;
    }

    Counts counts(Connection& r, TimeNs now, TimeNs, const std::string& where,
                  const Binds& binds) const override {
        Counts c;
        auto st = r.cached("SELECT count(*), "
                           "coalesce(sum(locked_until >= ?1), 0), "
                           "coalesce(sum((locked_until IS NULL OR locked_until < ?1) AND run_at > "
                           "?1), 0), "
                           "coalesce(sum(locked_until < ?1 AND run_at <= ?1), 0), "
                           "coalesce(sum(locked_until IS NULL AND run_at <= ?1), 0) FROM " +
                           m_t + where);
        bindTime(*st, 1, now, kEnc);
        bindValues(*st, binds, 2);
        if (st->step()) {
            c.stored = st->int64(0);
            c.leased = st->int64(1);
            c.scheduled = st->int64(2);
            c.expired = st->int64(3);
            c.ready = st->int64(4);
            c.locked = c.leased;
        }
        return c;
    }

    std::string timingColumns() const override { return "locked_until, run_at, attempts"; }

    void timingRow(const Statement& st, TimeNs now, TimingColumns& cols) const override {
        constexpr TimeNs none = TimingColumns::kNoTime;
        Message m;
        m.scheduledAt = readTime(st, 1, kEnc);
        m.leaseExpiry = readTime(st, 0, kEnc);
        classify(m, now);
        cols.inTime.push_back(m.scheduledAt.value_or(none));
        cols.lockTime.push_back(none);
        cols.doneTime.push_back(none);
        cols.attempts.push_back(st.int64(2));
        cols.state.push_back(static_cast<std::int8_t>(m.state));
    }

    // ---- library API -------------------------------------------------------

    Message insert(Connection& c, const std::string& data, const std::optional<std::string>& key,
                   TimeNs now, bool* inserted) const override {
        if (key)
            throw Unsupported(path(), "idempotency keys need a litequeue 0.13+ file; upgrade it "
                                      "first");
        static thread_local std::uint64_t x =
            std::hash<std::thread::id>()(std::this_thread::get_id()) ^
            static_cast<std::uint64_t>(now);
        char buf[33];
        for (int half = 0; half < 2; ++half) {
            x += 0x9e3779b97f4a7c15ULL;
            std::uint64_t z = x;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
            z ^= z >> 31;
            for (int i = 0; i < 16; ++i)
                buf[half * 16 + i] = "0123456789abcdef"[(z >> (60 - 4 * i)) & 0xf];
        }
        buf[32] = 0;
        Message m;
        m.data = data;
        m.messageId = buf;
        m.scheduledAt = now;
        auto st = c.cached("INSERT INTO " + m_t + " (id, payload, run_at) VALUES (?1, ?2, ?3)");
        st->bind(1, std::string_view(m.messageId)).bind(2, std::string_view(m.data));
        bindTime(*st, 3, now, kEnc);
        st->exec();
        if (inserted)
            *inserted = true;
        m.rowid = c.lastInsertRowid();
        classify(m, now);
        return m;
    }

    std::optional<Message> pop(Connection& c, TimeNs now) const override {
        auto st = c.cached("UPDATE " + m_t +
                           " SET locked_until = ?2, attempts = attempts + 1 WHERE id = (SELECT id "
                           "FROM " +
                           m_t +
                           " WHERE run_at <= ?1 AND (locked_until IS NULL OR locked_until < ?1) "
                           "ORDER BY run_at LIMIT 1) RETURNING " +
                           kCols);
        bindTime(*st, 1, now, kEnc);
        bindTime(*st, 2, now + 30 * kNsPerSecond, kEnc);
        if (!st->step())
            return std::nullopt;
        return readRow(*st, now);
    }

    std::optional<Message> peek(Connection& c, TimeNs now) const override {
        auto st = c.cached("SELECT " + std::string(kCols) + " FROM " + m_t +
                           " WHERE run_at <= ?1 AND (locked_until IS NULL OR locked_until < ?1) "
                           "ORDER BY run_at LIMIT 1");
        bindTime(*st, 1, now, kEnc);
        if (!st->step())
            return std::nullopt;
        return readRow(*st, now);
    }

    bool transition(Connection& c, std::string_view id, std::int64_t claim, int toStatus,
                    TimeNs now) const override {
        // done() is the seed's finish(); retry() its retry_later(0). Both
        // guarded by attempts.
        if (toStatus == 2) {
            auto st = c.cached("DELETE FROM " + m_t + " WHERE id = ?1 AND attempts = ?2");
            st->bind(1, id).bind(2, claim).exec();
        } else if (toStatus == 0) {
            auto st = c.cached("UPDATE " + m_t +
                               " SET locked_until = NULL, run_at = ?3 WHERE id = ?1 AND "
                               "attempts = ?2");
            st->bind(1, id).bind(2, claim);
            bindTime(*st, 3, now, kEnc);
            st->exec();
        } else {
            throw Unsupported(path(), "jobs-lease queues have no FAILED state");
        }
        return c.changes() == 1;
    }

    std::int64_t retryExpired(Connection& c, TimeNs cutoff) const override {
        auto st = c.cached("UPDATE " + m_t + " SET locked_until = NULL WHERE locked_until < ?1");
        bindTime(*st, 1, cutoff, kEnc);
        st->exec();
        return c.changes();
    }

    std::int64_t prune(Connection&, bool, std::optional<TimeNs>) const override { return 0; }

    Filter lockedFilter(TimeNs) const override {
        Filter f;
        f.states = {State::Leased};
        return f;
    }

    // ---- operator actions --------------------------------------------------

    std::string tokenWord() const override { return "attempts"; }

    std::int64_t applyRow(Connection& c, Action a, const Message& m, TimeNs now,
                          const ActionOptions& o) const override {
        if (a == Action::Delete) {
            auto st = c.cached("DELETE FROM " + m_t + " WHERE rowid = ?1 AND attempts = ?2");
            st->bind(1, m.rowid).bind(2, m.token).exec();
            return c.changes();
        }
        const TimeNs runAt = a == Action::Reschedule ? now + o.delay.count() : now;
        auto st = c.cached("UPDATE " + m_t +
                           " SET locked_until = NULL, run_at = ?3 WHERE rowid = ?1 AND attempts "
                           "= ?2");
        st->bind(1, m.rowid).bind(2, m.token);
        bindTime(*st, 3, runAt, kEnc);
        st->exec();
        return c.changes();
    }

    bool holdsWritten(const Message& m, const Message& wrote) const override {
        return m.token == wrote.token && m.scheduledAt == wrote.scheduledAt &&
               m.leaseExpiry == wrote.leaseExpiry;
    }

    std::int64_t restoreRow(Connection& c, const Message& m, const Message& before,
                            TimeNs now) const override {
        auto st =
            c.cached("UPDATE " + m_t +
                     " SET run_at = ?3, locked_until = ?4 WHERE rowid = ?1 AND attempts = ?2");
        st->bind(1, m.rowid).bind(2, m.token);
        bindTime(*st, 3, before.scheduledAt.value_or(now), kEnc);
        bindOptTime(*st, 4, before.leaseExpiry, kEnc);
        st->exec();
        return c.changes();
    }

    std::string reinsert(Connection& c, const Message& before, TimeNs now) const override {
        auto st = c.cached("INSERT INTO " + m_t +
                           " (id, payload, run_at, locked_until, attempts) VALUES (?1, ?2, ?3, "
                           "?4, ?5)");
        st->bind(1, std::string_view(before.messageId)).bind(2, std::string_view(before.data));
        bindTime(*st, 3, before.scheduledAt.value_or(now), kEnc);
        if (before.leaseExpiry)
            bindTime(*st, 4, *before.leaseExpiry, kEnc);
        st->bind(5, before.attempts).exec();
        return {};
    }

    std::int64_t deleteRow(Connection& c, const Message& m) const override {
        auto st = c.cached("DELETE FROM " + m_t + " WHERE rowid = ?1 AND attempts = ?2");
        st->bind(1, m.rowid).bind(2, m.token).exec();
        return c.changes();
    }

private:
    static constexpr const char* kCols = "rowid, payload, id, attempts, run_at, locked_until";
    std::string m_t;
};

const std::set<std::string> kJobsColumns = {"id", "payload", "run_at", "locked_until", "attempts"};

} // namespace

std::unique_ptr<FormatDriver> JobsLeaseFormat::driver(const FormatInfo& info,
                                                      const std::string& path) const {
    return std::make_unique<JobsLeaseDriver>(info, path);
}

std::optional<FormatInfo> JobsLeaseFormat::recognise(const SchemaFacts& s,
                                                     const std::string& preferTable) const {
    (void)preferTable;
    if (s.tables.size() != 1 || s.tables[0] != "jobs" || !s.hasColumns("jobs", kJobsColumns))
        return std::nullopt;
    FormatInfo info;
    info.format = this;
    info.table = "jobs";
    info.queueTables = {"jobs"};
    info.timeUnit = TimeUnit::Seconds;
    info.userVersion = s.userVersion;
    info.journalMode = s.journalMode;
    refuseUnexpectedObjects(s, info, {}, [](const SchemaObject&) { return false; });
    return info;
}

} // namespace lq::core
