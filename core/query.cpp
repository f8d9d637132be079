// SPDX-License-Identifier: MIT
// The query layer shared by the GUI and lqctl: counts, filtered listings in a
// stable order, precomputed orderings and the timing columns for statistics.
#include "formats/queueformat.h"
#include "queue.h"
#include "queue_p.h"

#include "sqlite.h"
#include <deque>

#include <sqlite3.h>

#include <algorithm>
#include <exception>
#include <thread>

namespace lq::core {

Queue::Impl::Where Queue::Impl::buildWhere(const Filter& f) const {
    const FormatDriver& drv = driver();
    Where w;
    const TimeNs t = f.now ? *f.now : now();
    std::vector<std::string> parts;
    if (!f.states.empty() || !f.extraStates.empty()) {
        std::string any;
        for (State s : f.states) {
            if (!any.empty())
                any += " OR ";
            any += drv.stateCondition(s, w.binds, t);
        }
        for (const std::string& x : f.extraStates) {
            if (!any.empty())
                any += " OR ";
            any += drv.extraStateCondition(x, w.binds, t);
        }
        parts.push_back("(" + any + ")");
    }
    if (f.stuckOnly)
        parts.push_back(drv.stuckCondition(w.binds, t, f.stuckAfterNs));
    if (!f.queue.empty()) {
        const std::string col = drv.queueColumn();
        if (col.empty())
            throw Error(ErrorKind::InvalidArgument, path,
                        std::string(formatId(info().format)) +
                            " files have no named queues: --queue " + f.queue + " matches nothing");
        parts.push_back(col + " = ?");
        w.binds.emplace_back(f.queue);
    }
    if (!f.search.empty()) {
        std::string pattern = "%";
        for (char ch : f.search) {
            if (ch == '%' || ch == '_' || ch == '\\')
                pattern += '\\';
            pattern += ch;
        }
        pattern += '%';
        std::string cond;
        for (const auto& col : drv.searchColumns()) {
            cond += (cond.empty() ? "(" : " OR ") + col + " LIKE ? ESCAPE '\\'";
            w.binds.emplace_back(pattern);
        }
        parts.push_back(cond + ")");
    }
    const std::string inCol = drv.arrivalColumn();
    const TimeEncoding inEnc = drv.arrivalEncoding();
    if (f.olderThan) {
        parts.push_back(inCol + " < ?");
        w.binds.push_back(encodeTime(t - f.olderThan->count(), inEnc));
    }
    if (f.inTimeFrom) {
        parts.push_back(inCol + " >= ?");
        w.binds.push_back(encodeTime(*f.inTimeFrom, inEnc));
    }
    if (f.inTimeTo) {
        parts.push_back(inCol + " < ?");
        w.binds.push_back(encodeTime(*f.inTimeTo, inEnc));
    }
    if (f.doneBefore && !drv.doneColumn().empty()) {
        parts.push_back(drv.doneColumn() + " < ?");
        w.binds.push_back(encodeTime(*f.doneBefore, drv.doneEncoding()));
    }
    if (f.expiredAt) {
        const std::string col = drv.expiryColumn();
        parts.push_back(col.empty() ? std::string("0") : col + " <= ?");
        if (!col.empty())
            w.binds.push_back(encodeTime(*f.expiredAt, drv.doneEncoding()));
    }
    if (f.metric != Filter::Metric::None) {
        if (std::string m = drv.metricCondition(f.metric, f.metricLo, f.metricHi, w.binds);
            !m.empty())
            parts.push_back(m);
    }
    for (const auto& p : parts)
        w.sql += (w.sql.empty() ? " WHERE " : " AND ") + p;
    return w;
}

std::string Queue::Impl::orderBy(const Sort& s) const {
    bool desc = s.descending;
    const std::string key = driver().orderKey(s.key, desc);
    const char* dir = desc ? " DESC" : "";
    return " ORDER BY " + key + dir + ", rowid" + dir;
}

Counts Queue::counts(TimeNs stuckAfterNs) {
    return counts(std::string(), stuckAfterNs);
}

Counts Queue::counts(const std::string& queueName, TimeNs stuckAfterNs) {
    Impl::Where w;
    if (!queueName.empty()) {
        Filter f;
        f.queue = queueName;
        w = d->buildWhere(f);
    }
    return d->driver().counts(d->reader(), now(), stuckAfterNs, w.sql, w.binds);
}

std::int64_t Queue::count(const Filter& f) {
    const Impl::Where w = d->buildWhere(f);
    auto st = d->reader().cached("SELECT count(*) FROM " + d->driver().source() + w.sql);
    bindValues(*st, w.binds);
    return st->step() ? st->int64(0) : 0;
}

namespace {

/// Whether `s` is arrival order by rowid, the order of a source's arms.
bool byRowid(const FormatDriver& drv, const Sort& s, bool& desc) {
    desc = s.descending;
    return !drv.sourceArms().empty() && drv.orderKey(s.key, desc) == "rowid";
}

} // namespace

std::vector<Message> Queue::list(const Filter& f, const Sort& s, std::int64_t offset,
                                 std::int64_t limit) {
    const FormatDriver& drv = d->driver();
    const Impl::Where w = d->buildWhere(f);
    const TimeNs t = f.now ? *f.now : now();
    if (bool desc = false; offset <= 0 && limit >= 0 && byRowid(drv, s, desc)) {
        // The first page arm by arm, each in its table's rowid order:
        // ascending, the negated arms (rowid -arm_id) come first, by arm_id
        // descending; descending, the other way round.
        std::vector<Message> out;
        for (const bool negatedFirst : {true, false}) {
            const bool negated = negatedFirst != desc;
            for (const auto& arm : drv.sourceArms()) {
                if (arm.negated != negated || std::int64_t(out.size()) >= limit)
                    continue;
                const bool armDesc = negated != desc;
                auto st = d->reader().cached("SELECT " + drv.columns() + " FROM (" + arm.sql + ")" +
                                             w.sql + " ORDER BY arm_id" + (armDesc ? " DESC" : "") +
                                             " LIMIT ?");
                bindValues(*st, w.binds);
                st->bind(static_cast<int>(w.binds.size()) + 1, limit - std::int64_t(out.size()));
                while (st->step())
                    out.push_back(drv.readRow(*st, t));
            }
        }
        return out;
    }
    auto st = d->reader().cached("SELECT " + drv.columns() + " FROM " + drv.source() + w.sql +
                                 d->orderBy(s) + " LIMIT ? OFFSET ?");
    bindValues(*st, w.binds);
    const int n = static_cast<int>(w.binds.size());
    st->bind(n + 1, limit < 0 ? std::int64_t{-1} : limit);
    st->bind(n + 2, offset < 0 ? std::int64_t{0} : offset);
    std::vector<Message> out;
    while (st->step())
        out.push_back(drv.readRow(*st, t));
    return out;
}

bool Queue::sortIsIndexed(const Filter& f, const Sort& s) {
    if (bool desc = false; byRowid(d->driver(), s, desc))
        return true; // list() reads the first page arm by arm
    const Impl::Where w = d->buildWhere(f);
    auto st = d->reader().cached("EXPLAIN QUERY PLAN SELECT rowid FROM " + d->driver().source() +
                                 w.sql + d->orderBy(s));
    bindValues(*st, w.binds);
    bool indexed = true;
    while (st->step())
        if (st->text(3).find("TEMP B-TREE FOR") != std::string::npos)
            indexed = false; // ORDER BY, or RIGHT PART OF ORDER BY
    return indexed;
}

std::vector<std::int64_t> Queue::orderedRowids(const Filter& f, const Sort& s) {
    const Impl::Where w = d->buildWhere(f);
    auto st =
        d->reader().cached("SELECT rowid FROM " + d->driver().source() + w.sql + d->orderBy(s));
    bindValues(*st, w.binds);
    std::vector<std::int64_t> out;
    while (st->step())
        out.push_back(st->int64(0));
    return out;
}

std::vector<Message> Queue::fetchRowids(const std::vector<std::int64_t>& rowids) {
    std::vector<Message> out;
    out.reserve(rowids.size());
    const TimeNs t = now();
    const FormatDriver& drv = d->driver();
    Connection& r = d->reader();
    auto st = r.cached("SELECT " + drv.columns() + " FROM " + drv.source() + " WHERE rowid = ?1");
    // A row of a compound source from its own arm, by its table's rowid.
    const auto& arms = drv.sourceArms();
    std::deque<CachedStatement> armRows; // reset when the block is done
    for (const auto& arm : arms)
        armRows.emplace_back(
            *r.cached("SELECT " + drv.columns() + " FROM (" + arm.sql + ") WHERE arm_id = ?1"));
    const auto statementFor = [&](std::int64_t id) -> std::pair<Statement*, std::int64_t> {
        for (std::size_t i = 0; i < arms.size(); ++i)
            if (arms[i].negated == (id < 0))
                return {&*armRows[i], arms[i].negated ? -id : id};
        return {&*st, id};
    };
    // One read transaction for the whole block so it is a consistent snapshot.
    const bool ownTx = !r.inTransaction();
    if (ownTx)
        r.cached("BEGIN")->exec();
    try {
        for (std::int64_t id : rowids) {
            const auto [s, key] = statementFor(id);
            s->bind(1, key);
            if (s->step())
                out.push_back(drv.readRow(*s, t));
            s->reset();
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

TimingColumns Queue::Impl::timingRange(const Filter& f,
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
    const FormatDriver& drv = driver();
    auto st = reader().cached("SELECT " + drv.timingColumns() + " FROM " + drv.source() + w.sql);
    bindValues(*st, w.binds);
    while (st->step())
        drv.timingRow(*st, t, cols);
    return cols;
}

TimingColumns Queue::timing(const Filter& f) {
    // A large table is scanned as two rowid halves on two threads, each on its
    // own read connection (the scan, not the statistics, is the cost).
    constexpr std::int64_t kSplitAbove = 200'000;
    std::int64_t lo = 0, hi = -1;
    if (!d->inOwnTransaction()) {
        auto st = d->reader().cached("SELECT min(rowid), max(rowid) FROM " + d->driver().source());
        if (st->step() && !st->isNull(0)) {
            lo = st->int64(0);
            hi = st->int64(1);
        }
    }
    if (hi - lo < kSplitAbove)
        return d->timingRange(f, std::nullopt);
    const std::int64_t mid = lo + (hi - lo) / 2;
    TimingColumns upper;
    std::exception_ptr error;
    std::thread helper([&] {
        try {
            upper = d->timingRange(f, std::make_pair(mid + 1, hi));
        } catch (...) {
            error = std::current_exception();
        }
        d->dropThreadReader();
    });
    TimingColumns cols;
    try {
        // The lower half reserves room for both, so appending the upper
        // half does not copy everything once more (peak memory).
        cols = d->timingRange(f, std::make_pair(lo, mid), hi - lo + 1);
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

void Queue::Impl::dropThreadReader() {
    std::unique_ptr<Connection> gone;
    {
        std::lock_guard lock(readersMutex);
        auto it = readers.find(std::this_thread::get_id());
        if (it == readers.end())
            return;
        gone = std::move(it->second);
        readers.erase(it);
    }
}

QueueStats Queue::stats(const Filter& f) {
    const TimeNs t = f.now ? *f.now : now();
    return computeStats(timing(f), t);
}

} // namespace lq::core
