// SPDX-License-Identifier: MIT
// The query layer shared by the GUI and lqctl: counts, filtered listings in a
// stable order, precomputed orderings and the timing columns for statistics.
#include "queue.h"
#include "queue_p.h"
#include "sqlite.h"

#include <sqlite3.h>

#include <algorithm>
#include <exception>
#include <thread>

namespace lq::core {

using BindValue = std::variant<std::int64_t, double, std::string>;

void Queue::bindAll(Statement& st, const Where& w, int first) {
    int i = first;
    for (const auto& v : w.binds) {
        if (const auto* iv = std::get_if<std::int64_t>(&v))
            st.bind(i, *iv);
        else if (const auto* dv = std::get_if<double>(&v))
            st.bind(i, *dv);
        else
            st.bind(i, std::string_view(std::get<std::string>(v)));
        ++i;
    }
}

std::string Queue::stateCondition(State s, std::vector<BindValue>& binds, TimeNs now) const {
    if (isJobs()) {
        const auto push = [&] { binds.push_back(timeValue(now)); };
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

Queue::Where Queue::buildWhere(const Filter& f) const {
    Where w;
    const TimeNs t = f.now ? *f.now : now();
    std::vector<std::string> parts;
    if (!f.states.empty()) {
        std::string any;
        for (State s : f.states) {
            if (!any.empty())
                any += " OR ";
            any += stateCondition(s, w.binds, t);
        }
        parts.push_back("(" + any + ")");
    }
    if (f.stuckOnly) {
        if (isJobs()) {
            parts.push_back("0");
        } else {
            parts.push_back("(status = 1 AND lock_time < ?)");
            w.binds.push_back(timeValue(t - f.stuckAfterNs));
        }
    }
    if (!f.search.empty()) {
        std::string pattern = "%";
        for (char ch : f.search) {
            if (ch == '%' || ch == '_' || ch == '\\')
                pattern += '\\';
            pattern += ch;
        }
        pattern += '%';
        const std::string idCol = isJobs() ? "id" : "message_id";
        const std::string dataCol = isJobs() ? "payload" : "data";
        std::string cond =
            "(" + idCol + " LIKE ? ESCAPE '\\' OR " + dataCol + " LIKE ? ESCAPE '\\'";
        w.binds.push_back(pattern);
        w.binds.push_back(pattern);
        if (info().hasIdempotencyKey) {
            cond += " OR idempotency_key LIKE ? ESCAPE '\\'";
            w.binds.push_back(pattern);
        }
        parts.push_back(cond + ")");
    }
    const std::string& inCol = sql().inCol;
    if (f.olderThanSeconds) {
        parts.push_back(inCol + " < ?");
        w.binds.push_back(timeValue(t - secondsToNs(*f.olderThanSeconds)));
    }
    if (f.inTimeFrom) {
        parts.push_back(inCol + " >= ?");
        w.binds.push_back(timeValue(*f.inTimeFrom));
    }
    if (f.inTimeTo) {
        parts.push_back(inCol + " < ?");
        w.binds.push_back(timeValue(*f.inTimeTo));
    }
    if (f.doneBefore && !isJobs()) {
        parts.push_back("done_time < ?");
        w.binds.push_back(timeValue(*f.doneBefore));
    }
    if (f.metric != Filter::Metric::None && !isJobs()) {
        std::string expr;
        switch (f.metric) {
        case Filter::Metric::Wait:
            expr = "lock_time - in_time";
            break;
        case Filter::Metric::Processing:
            expr = "done_time - lock_time";
            parts.push_back("status = 2");
            break;
        case Filter::Metric::Total:
            expr = "done_time - in_time";
            parts.push_back("status = 2");
            break;
        case Filter::Metric::TimeToFailure:
            expr = "done_time - lock_time";
            parts.push_back("status = 3");
            break;
        case Filter::Metric::None:
            break;
        }
        parts.push_back("(" + expr + ") >= ? AND (" + expr + ") < ?");
        w.binds.push_back(durationValue(f.metricLo));
        w.binds.push_back(durationValue(f.metricHi));
    }
    for (const auto& p : parts)
        w.sql += (w.sql.empty() ? " WHERE " : " AND ") + p;
    return w;
}

std::string Queue::orderBy(const Sort& s) const {
    std::string key;
    bool desc = s.descending;
    switch (s.key) {
    case SortKey::Arrival:
        key = isJobs() ? "run_at" : "message_id";
        break;
    case SortKey::InTime:
        key = sql().inCol;
        break;
    case SortKey::LockTime:
        key = isJobs() ? "locked_until" : "lock_time";
        break;
    case SortKey::DoneTime:
        key = isJobs() ? "run_at" : "done_time";
        break;
    case SortKey::Wait:
        key = isJobs() ? "run_at" : "(lock_time - in_time)";
        break;
    case SortKey::Processing:
        key = isJobs() ? "run_at" : "(done_time - lock_time)";
        break;
    case SortKey::Age:
        key = sql().inCol;
        desc = !desc;
        break;
    case SortKey::Claim:
        key = sql().tokenCol;
        break;
    case SortKey::Status:
        key = isJobs() ? "locked_until" : "status";
        break;
    }
    const char* dir = desc ? " DESC" : "";
    return " ORDER BY " + key + dir + ", rowid" + dir;
}

Counts Queue::counts(TimeNs stuckAfterNs) {
    Counts c;
    const TimeNs t = now();
    Connection& r = reader();
    const std::string tq = quoteIdent(info().table);
    if (isJobs()) {
        auto st = r.cached("SELECT count(*), "
                           "coalesce(sum(locked_until >= ?1), 0), "
                           "coalesce(sum((locked_until IS NULL OR locked_until < ?1) AND run_at > "
                           "?1), 0), "
                           "coalesce(sum(locked_until < ?1 AND run_at <= ?1), 0), "
                           "coalesce(sum(locked_until IS NULL AND run_at <= ?1), 0) FROM " +
                           tq);
        bindTime(*st, 1, t);
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
    {
        auto st = r.cached("SELECT status, count(*) FROM " + tq + " GROUP BY status");
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
        auto st = r.cached("SELECT count(*) FROM " + tq + " WHERE status = 1 AND lock_time < ?1");
        bindTime(*st, 1, t - stuckAfterNs);
        if (st->step())
            c.stuck = st->int64(0);
    }
    return c;
}

std::int64_t Queue::count(const Filter& f) {
    const Where w = buildWhere(f);
    auto st = reader().cached("SELECT count(*) FROM " + quoteIdent(info().table) + w.sql);
    bindAll(*st, w);
    return st->step() ? st->int64(0) : 0;
}

std::vector<Message> Queue::list(const Filter& f, const Sort& s, std::int64_t offset,
                                 std::int64_t limit) {
    const Where w = buildWhere(f);
    const TimeNs t = f.now ? *f.now : now();
    auto st = reader().cached("SELECT " + sql().cols + " FROM " + quoteIdent(info().table) + w.sql +
                              orderBy(s) + " LIMIT ? OFFSET ?");
    bindAll(*st, w);
    const int n = static_cast<int>(w.binds.size());
    st->bind(n + 1, limit < 0 ? std::int64_t{-1} : limit);
    st->bind(n + 2, offset < 0 ? std::int64_t{0} : offset);
    std::vector<Message> out;
    while (st->step())
        out.push_back(readRow(*st, t));
    return out;
}

std::vector<std::int64_t> Queue::orderedRowids(const Filter& f, const Sort& s) {
    const Where w = buildWhere(f);
    auto st = reader().cached("SELECT rowid FROM " + quoteIdent(info().table) + w.sql + orderBy(s));
    bindAll(*st, w);
    std::vector<std::int64_t> out;
    while (st->step())
        out.push_back(st->int64(0));
    return out;
}

std::vector<Message> Queue::fetchRowids(const std::vector<std::int64_t>& rowids) {
    std::vector<Message> out;
    out.reserve(rowids.size());
    const TimeNs t = now();
    auto st = reader().cached("SELECT " + sql().cols + " FROM " + quoteIdent(info().table) +
                              " WHERE rowid = ?1");
    // One read transaction for the whole block so it is a consistent snapshot.
    Connection& r = reader();
    const bool ownTx = !r.inTransaction();
    if (ownTx)
        r.cached("BEGIN")->exec();
    try {
        for (std::int64_t id : rowids) {
            st->bind(1, id);
            if (st->step())
                out.push_back(readRow(*st, t));
            st->reset();
        }
    } catch (...) {
        if (ownTx)
            sqlite3_exec(r.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
    if (ownTx)
        r.cached("COMMIT")->exec();
    return out;
}

TimingColumns Queue::timingRange(const Filter& f,
                                 std::optional<std::pair<std::int64_t, std::int64_t>> rows,
                                 std::int64_t capacity) {
    TimingColumns cols;
    if (rows) {
        // Rowids are dense in a queue file: the range is a good capacity.
        const auto expect = static_cast<std::size_t>(std::clamp<std::int64_t>(
            capacity > 0 ? capacity : rows->second - rows->first + 1, 0, 50'000'000));
        cols.state.reserve(expect);
        cols.inTime.reserve(expect);
        cols.lockTime.reserve(expect);
        cols.doneTime.reserve(expect);
    }
    Where w = buildWhere(f);
    if (rows) {
        w.sql += (w.sql.empty() ? " WHERE " : " AND ") + std::string("rowid BETWEEN ? AND ?");
        w.binds.emplace_back(rows->first);
        w.binds.emplace_back(rows->second);
    }
    const TimeNs t = f.now ? *f.now : now();
    const std::string sel = isJobs()
                                ? "SELECT locked_until, run_at, attempts, NULL, locked_until FROM "
                                : "SELECT status, in_time, lock_time, done_time FROM ";
    auto st = reader().cached(sel + quoteIdent(info().table) + w.sql);
    bindAll(*st, w);
    constexpr TimeNs none = TimingColumns::kNoTime;
    while (st->step()) {
        State s;
        if (isJobs()) {
            Message m;
            m.runAt = timeAt(*st, 1);
            m.lockedUntil = timeAt(*st, 0);
            classify(m, t);
            s = m.state;
            cols.inTime.push_back(m.runAt.value_or(none));
            cols.lockTime.push_back(none);
            cols.doneTime.push_back(none);
            cols.attempts.push_back(st->int64(2));
        } else {
            const std::int64_t raw = st->columnType(0) == SQLITE_INTEGER ? st->int64(0) : -1;
            s = (raw >= 0 && raw <= 3) ? static_cast<State>(raw) : State::Unknown;
            cols.inTime.push_back(timeAt(*st, 1).value_or(none));
            cols.lockTime.push_back(timeAt(*st, 2).value_or(none));
            cols.doneTime.push_back(timeAt(*st, 3).value_or(none));
        }
        cols.state.push_back(static_cast<std::int8_t>(s));
    }
    return cols;
}

TimingColumns Queue::timing(const Filter& f) {
    // A large table is scanned as two rowid halves on two threads, each on its
    // own read connection (the scan, not the statistics, is the cost).
    constexpr std::int64_t kSplitAbove = 200'000;
    std::int64_t lo = 0, hi = -1;
    if (!inOwnTransaction()) {
        auto st = reader().cached("SELECT min(rowid), max(rowid) FROM " + quoteIdent(info().table));
        if (st->step() && !st->isNull(0)) {
            lo = st->int64(0);
            hi = st->int64(1);
        }
    }
    if (hi - lo < kSplitAbove)
        return timingRange(f, std::nullopt);
    const std::int64_t mid = lo + (hi - lo) / 2;
    TimingColumns upper;
    std::exception_ptr error;
    std::thread helper([&] {
        try {
            upper = timingRange(f, std::make_pair(mid + 1, hi));
        } catch (...) {
            error = std::current_exception();
        }
        dropThreadReader();
    });
    TimingColumns cols;
    try {
        // The lower half reserves room for both, so appending the upper
        // half does not copy everything once more (peak memory).
        cols = timingRange(f, std::make_pair(lo, mid), hi - lo + 1);
    } catch (...) {
        helper.join();
        throw;
    }
    helper.join();
    if (error)
        std::rethrow_exception(error);
    cols.state.insert(cols.state.end(), upper.state.begin(), upper.state.end());
    cols.inTime.insert(cols.inTime.end(), upper.inTime.begin(), upper.inTime.end());
    cols.lockTime.insert(cols.lockTime.end(), upper.lockTime.begin(), upper.lockTime.end());
    cols.doneTime.insert(cols.doneTime.end(), upper.doneTime.begin(), upper.doneTime.end());
    cols.attempts.insert(cols.attempts.end(), upper.attempts.begin(), upper.attempts.end());
    return cols;
}

void Queue::dropThreadReader() {
    std::unique_ptr<Connection> gone;
    {
        std::lock_guard lock(m_readersMutex);
        auto it = m_readers.find(std::this_thread::get_id());
        if (it == m_readers.end())
            return;
        gone = std::move(it->second);
        m_readers.erase(it);
    }
}

QueueStats Queue::stats(const Filter& f) {
    const TimeNs t = f.now ? *f.now : now();
    return computeStats(timing(f), t);
}

} // namespace lq::core
