// SPDX-License-Identifier: MIT
// The query layer shared by the GUI and lqctl: counts, filtered listings in a
// stable order, precomputed orderings and the timing columns for statistics.
#include "formats/queueformat.h"
#include "queue.h"
#include "queue_p.h"

#include "mapped.h"
#include "sqlite.h"
#include <deque>

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <thread>

#if defined(__GLIBC__) // malloc_trim
#include <malloc.h>
#endif

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
    if (!f.where.empty())
        parts.push_back(jsonCondition(f.where, w.binds));
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

namespace {

/// What a whole scan with filter `f` reads (FormatDriver::scanSource()).
std::string scanSourceFor(const FormatDriver& drv, const Filter& f) {
    return f.search.empty() && f.where.empty() ? drv.scanSource() : drv.source();
}

/// scanSourceFor() as sources read one after another, whose rows together
/// are its rows: the arms of a compound (FormatDriver::scanArms()) where it
/// has them, so that each table is scanned by itself.
std::vector<std::string> scanSourcesFor(const FormatDriver& drv, const Filter& f) {
    if (!f.search.empty() || !f.where.empty() || drv.scanArms().empty())
        return {scanSourceFor(drv, f)};
    std::vector<std::string> out;
    for (const std::string& arm : drv.scanArms())
        out.push_back("(" + arm + ")");
    return out;
}

} // namespace

std::string Queue::Impl::orderBy(const Sort& s) const {
    bool desc = s.descending;
    const std::string key = driver().orderKey(s.key, desc);
    const char* dir = desc ? " DESC" : "";
    return " ORDER BY " + key + dir + ", rowid" + dir;
}

Counts Queue::counts(TimeNs stuckAfterNs) {
    return counts(std::string(), stuckAfterNs);
}

Counts& Counts::operator+=(const Counts& o) {
    ready += o.ready;
    locked += o.locked;
    done += o.done;
    failed += o.failed;
    unknown += o.unknown;
    stuck += o.stuck;
    scheduled += o.scheduled;
    leased += o.leased;
    expired += o.expired;
    stored += o.stored;
    for (const auto& [name, n] : o.extra)
        extra[name] += n;
    estimated = estimated || o.estimated;
    return *this;
}

namespace {

bool isWal(const std::string& journalMode) {
    std::string m = journalMode;
    std::transform(m.begin(), m.end(), m.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return m == "wal";
}

} // namespace

std::int64_t Queue::Impl::chunkRows() const {
    return isWal(info().journalMode) ? opts.walChunkRows : opts.scanChunkRows;
}

Queue::Impl::Where Queue::Impl::inRange(Where w, const std::string& key,
                                        std::pair<std::int64_t, std::int64_t> range) {
    w.sql += (w.sql.empty() ? " WHERE " : " AND ") + key + " >= ? AND " + key + " <= ?";
    w.binds.emplace_back(range.first);
    w.binds.emplace_back(range.second);
    return w;
}

std::optional<std::pair<std::int64_t, std::int64_t>> Queue::Impl::scanBounds() {
    const FormatDriver& drv = driver();
    const std::string& key = drv.scanKey();
    std::vector<std::string> froms;
    for (const auto& arm : drv.sourceArms())
        froms.push_back("(" + arm.sql + ")");
    if (froms.empty())
        froms.push_back(drv.source());
    std::optional<std::pair<std::int64_t, std::int64_t>> out;
    for (const std::string& from : froms) {
        // min() and max() in separate statements: each is one index seek.
        std::string of = key;
        of.append(") FROM ").append(from);
        auto lo = reader().cached("SELECT min(" + of);
        auto hi = reader().cached("SELECT max(" + of);
        if (!lo->step() || lo->isNull(0) || !hi->step() || hi->isNull(0))
            continue;
        const std::int64_t a = lo->int64(0);
        const std::int64_t b = hi->int64(0);
        out = out ? std::make_pair(std::min(out->first, a), std::max(out->second, b))
                  : std::make_pair(a, b);
    }
    return out;
}

std::int64_t Queue::Impl::rowsAtMost() {
    auto pages = reader().cached("PRAGMA page_count");
    auto size = reader().cached("PRAGMA page_size");
    const std::int64_t n = pages->step() ? pages->int64(0) : 0;
    const std::int64_t b = size->step() ? size->int64(0) : 0;
    pages->reset();
    size->reset();
    // At least a cell pointer (2 bytes) and a cell (payload size, rowid and
    // a one-byte record header: 3 bytes): 4 is a safe lower bound.
    return std::max<std::int64_t>(1, std::min<std::int64_t>(n, std::int64_t{1} << 32) * b / 4);
}

std::uint64_t Queue::Impl::keysPerRange(std::int64_t lo, std::int64_t hi, std::int64_t rows) {
    const auto per = static_cast<std::uint64_t>(std::max<std::int64_t>(1, rows));
    const std::uint64_t span = keySpan(lo, hi);
    const std::uint64_t ranges = static_cast<std::uint64_t>(rowsAtMost()) / per + 1;
    // ceil((span + 1) / width) <= ranges once width > span / ranges (one
    // range of all 2^64 keys: the widest width there is, and two ranges).
    const std::uint64_t q = span / ranges;
    return std::max(per, q == std::numeric_limits<std::uint64_t>::max() ? q : q + 1);
}

std::optional<Queue::Impl::ChunkPlan> Queue::Impl::scanChunks() {
    const std::int64_t n = chunkRows();
    if (n <= 0 || driver().scanKey().empty() || inOwnTransaction())
        return std::nullopt;
    // The bounds and the page count: short reads, taking their turn too.
    const auto turn = readTurn();
    const auto bounds = scanBounds();
    if (!bounds)
        return std::nullopt;
    const std::uint64_t width = keysPerRange(bounds->first, bounds->second, n);
    if (keySpan(bounds->first, bounds->second) < width)
        return std::nullopt; // one range: read in one
    return ChunkPlan{*bounds, width};
}

namespace {
// LQ_WAL_CHECKPOINT_WAIT=0: reads start whatever the WAL's length (a
// diagnostic, to measure the checkpoint wait: lqbench observer).
bool awayFromCheckpoints() {
    static const bool away = [] {
        const char* v = std::getenv("LQ_WAL_CHECKPOINT_WAIT");
        return !(v && std::string_view(v) == "0");
    }();
    return away;
}
} // namespace

ChunkPace Queue::Impl::chunkPace(std::uint64_t width) {
    // LQ_CHUNK_BUDGET_US in the environment overrides the option: a
    // diagnostic, to measure the pace against fixed chunks (lqbench observer).
    static const std::optional<std::int64_t> fromEnv = [] {
        const char* v = std::getenv("LQ_CHUNK_BUDGET_US");
        return v && *v ? std::optional<std::int64_t>(std::atoll(v)) : std::nullopt;
    }();
    return ChunkPace(reader(), isWal(info().journalMode), width,
                     std::chrono::microseconds(fromEnv.value_or(opts.chunkBudgetUs)),
                     awayFromCheckpoints());
}

std::unique_ptr<ChunkPace> Queue::Impl::readTurn() {
    if (inOwnTransaction() || !isWal(info().journalMode))
        return nullptr;
    return std::make_unique<ChunkPace>(reader(), true, 1, ChunkPace::Clock::duration::zero(),
                                       awayFromCheckpoints());
}

Counts Queue::counts(const std::string& queueName, TimeNs stuckAfterNs) {
    Impl::Where w;
    if (!queueName.empty()) {
        Filter f;
        f.queue = queueName;
        w = d->buildWhere(f);
    }
    const FormatDriver& drv = d->driver();
    const auto plan = d->scanChunks();
    if (!plan) {
        const auto turn = d->readTurn();
        return drv.counts(d->reader(), now(), stuckAfterNs, w.sql, w.binds);
    }
    // Chunk by chunk at one "now": a writer waits for one chunk at most.
    const TimeNs t = now();
    Counts total;
    d->chunkPace(plan->width).eachRange(plan->keys, [&](const auto& range) {
        if (queueName.empty())
            if (auto c = drv.rangeCounts(d->reader(), t, stuckAfterNs, range.first, range.second)) {
                total += *c;
                return true;
            }
        const Impl::Where c = Impl::inRange(w, drv.scanKey(), range);
        total += drv.counts(d->reader(), t, stuckAfterNs, c.sql, c.binds);
        return true;
    });
    return total;
}

Queue::CountsWithQueues Queue::countsWithQueues(TimeNs stuckAfterNs) {
    CountsWithQueues r;
    if (!QueueFormat::of(info()).namedQueues()) {
        r.total = counts(stuckAfterNs);
        return r;
    }
    // One pass for every queue where the format groups its counts (chunk by
    // chunk, at one "now"), else one count per queue.
    const FormatDriver& drv = d->driver();
    const TimeNs t = now();
    FormatDriver::QueueCountsMap groups;
    bool grouped = true;
    const auto add = [&](const Impl::Where& w,
                         std::optional<std::pair<std::int64_t, std::int64_t>> range) {
        auto part = range ? drv.rangeCountsByQueue(d->reader(), t, stuckAfterNs, range->first,
                                                   range->second)
                          : std::nullopt;
        if (!part)
            part = drv.countsByQueue(d->reader(), t, stuckAfterNs, w.sql, w.binds);
        if (!part)
            return false;
        for (auto& [name, c] : *part)
            groups[name] += c;
        return true;
    };
    if (const auto plan = d->scanChunks(); !plan) {
        const auto turn = d->readTurn();
        grouped = add(Impl::Where{}, std::nullopt);
    } else {
        d->chunkPace(plan->width).eachRange(plan->keys, [&](const auto& range) {
            return grouped = add(Impl::inRange(Impl::Where{}, drv.scanKey(), range), range);
        });
    }
    if (grouped) {
        for (auto& [name, c] : groups) {
            r.total += c;
            if (name)
                r.queues.emplace_back(*name, std::move(c));
        }
        return r;
    }
    Counts sum;
    for (std::string& name : queueNames()) {
        Counts c = counts(name, stuckAfterNs);
        sum += c;
        r.queues.emplace_back(std::move(name), std::move(c));
    }
    r.total = sum.stored == count(Filter{}) ? std::move(sum) : counts(stuckAfterNs);
    return r;
}

std::int64_t Queue::count(const Filter& f) {
    const Impl::Where w = d->buildWhere(f);
    const auto turn = d->readTurn();
    std::int64_t n = 0;
    for (const std::string& src : scanSourcesFor(d->driver(), f)) {
        auto st = d->reader().cached("SELECT count(*) FROM " + src + w.sql);
        bindValues(*st, w.binds);
        n += st->step() ? st->int64(0) : 0;
        st->reset();
    }
    return n;
}

namespace {

/// Collects a long list of rowids without a growing vector's slack: a
/// vector that doubles holds up to 1.5x its size while it copies (at ten
/// million rows, 80 MB of ordering peaked at ~200 MB). Mapped blocks of a
/// fixed size are copied into one exact vector at the end, each unmapped as
/// soon as it is copied, so the peak is the ordering plus one block.
class RowidCollector {
public:
    void push(std::int64_t id) {
        if (m_blocks.empty() || m_blocks.back().size() == kBlock) {
            m_blocks.emplace_back();
            m_blocks.back().reserve(kBlock);
        }
        m_blocks.back().push_back(id);
    }
    std::vector<std::int64_t> take() {
        std::size_t n = 0;
        for (const auto& b : m_blocks)
            n += b.size();
        // Reserved, not resized: a page of `out` is touched only when its
        // ids are copied, after the blocks before it are gone.
        std::vector<std::int64_t> out;
        out.reserve(n);
        for (auto& b : m_blocks) {
            out.insert(out.end(), b.begin(), b.end());
            MappedVector<std::int64_t>().swap(b); // unmapped now
        }
        m_blocks.clear();
        return out;
    }

private:
    static constexpr std::size_t kBlock = std::size_t{1} << 19; // 4 MB
    std::vector<MappedVector<std::int64_t>> m_blocks;
};

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
    const auto turn = d->readTurn();
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

std::vector<std::int64_t> Queue::orderedRowids(const Filter& f, const Sort& s,
                                               const std::atomic_bool* cancel) {
    const FormatDriver& drv = d->driver();
    const Impl::Where w = d->buildWhere(f);
    const InterruptWhen interrupt(d->reader(), cancel);
    RowidCollector out;
    // On a rollback-journal file a long ordering is read in keyset chunks,
    // each its own read transaction, so a writer waits for one chunk only.
    const bool chunked = d->scanChunks().has_value();
    ChunkPace pace = d->chunkPace(chunked ? std::uint64_t(d->chunkRows()) : 1);
    // Reads `key` ascending (or descending) from `from`, chunk by chunk;
    // pushes the rowid `sign * key` of each row.
    const auto keyset = [&](const std::string& from, const std::string& key, bool desc,
                            std::int64_t sign) {
        auto st = d->reader().cached("SELECT " + key + " FROM " + from + w.sql +
                                     (w.sql.empty() ? " WHERE " : " AND ") + key +
                                     (desc ? " < ?" : " > ?") + " ORDER BY " + key +
                                     (desc ? " DESC" : "") + " LIMIT ?");
        std::int64_t after = 0;
        for (bool first = true;; first = false) {
            const std::int64_t limit = chunked ? std::int64_t(pace.width()) : -1;
            st->reset();
            bindValues(*st, w.binds);
            const int n = static_cast<int>(w.binds.size());
            // The first chunk starts beyond every int64 (a real compares
            // with integers by value and still seeks the index): a key at
            // either end of int64 is a key like any other.
            if (first)
                st->bind(n + 1, desc ? 1e19 : -1e19);
            else
                st->bind(n + 1, after);
            st->bind(n + 2, limit);
            std::int64_t got = 0;
            while (st->step()) {
                after = st->int64(0);
                // Negated without overflow (a hostile arm id of -2^63 stays).
                out.push(sign < 0 ? static_cast<std::int64_t>(std::uint64_t{0} -
                                                              static_cast<std::uint64_t>(after))
                                  : after);
                ++got;
            }
            st->reset(); // ends the read transaction between chunks
            if (limit < 0 || got < limit)
                return;
            pace();
        }
    };
    if (bool desc = false; byRowid(drv, s, desc)) {
        // Arm by arm in each table's rowid order, as list() reads the first
        // page: no sort of the whole compound source.
        for (const bool negatedFirst : {true, false}) {
            const bool negated = negatedFirst != desc;
            for (const auto& arm : drv.sourceArms())
                if (arm.negated == negated)
                    keyset("(" + arm.sql + ")", "arm_id", negated != desc, negated ? -1 : 1);
        }
        return out.take();
    }
    if (bool desc = s.descending;
        chunked && drv.scanKey() == "rowid" && drv.orderKey(s.key, desc) == "rowid") {
        keyset(drv.source(), "rowid", desc, 1);
        return out.take();
    }
    if (const auto arms = scanSourcesFor(drv, f); arms.size() > 1) {
        // A compound sorts on its arms' rowid and key alone: through
        // scanSource() the co-routine would copy every column of every row
        // before the sorter reads two (a sixth of a Laravel sort by wait).
        // Each arm repeats the filter, and its binds: conditions bind plain
        // `?`s (FormatDriver::stateCondition), numbered arm after arm.
        bool desc = s.descending;
        const std::string key = drv.orderKey(s.key, desc);
        const char* dir = desc ? " DESC" : "";
        std::string sql = "SELECT rowid FROM (";
        for (std::size_t i = 0; i < arms.size(); ++i)
            sql.append(i ? " UNION ALL " : "")
                .append("SELECT rowid, ")
                .append(key)
                .append(" AS lq_key FROM ")
                .append(arms[i])
                .append(w.sql);
        sql.append(") ORDER BY lq_key").append(dir).append(", rowid").append(dir);
        auto st = d->reader().cached(sql);
        for (std::size_t i = 0; i < arms.size(); ++i)
            bindValues(*st, w.binds, 1 + static_cast<int>(i * w.binds.size()));
        while (st->step())
            out.push(st->int64(0));
        return out.take();
    }
    auto st =
        d->reader().cached("SELECT rowid FROM " + scanSourceFor(drv, f) + w.sql + d->orderBy(s));
    bindValues(*st, w.binds);
    while (st->step())
        out.push(st->int64(0));
    return out.take();
}

std::vector<Message> Queue::fetchRowids(const std::vector<std::int64_t>& rowids) {
    std::vector<Message> out;
    out.reserve(rowids.size());
    const TimeNs t = now();
    const FormatDriver& drv = d->driver();
    Connection& r = d->reader();
    const auto turn = d->readTurn();
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
                                       std::int64_t capacity, bool withQueue) {
    TimingColumns cols;
    if (rows) {
        // Rowids are mostly dense in a queue file: the range is a good
        // capacity, up to what the file can hold.
        const std::int64_t range = keysIn(rows->first, rows->second, std::int64_t{1} << 40);
        const auto expect = static_cast<std::size_t>(std::clamp<std::int64_t>(
            std::min(capacity > 0 ? capacity : range, rowsAtMost()), 0, 50'000'000));
        cols.state.reserve(expect); // the time columns grow by blocks, without slack
    }
    const Where w = buildWhere(f);
    const TimeNs t = f.now ? *f.now : now();
    const FormatDriver& drv = driver();
    const std::string& key = drv.scanKey();
    const std::vector<std::string> sources = scanSourcesFor(drv, f);
    // Each row's named queue, as the last column (TimingColumns::queue).
    const std::string queueCol = withQueue ? drv.queueColumn() : std::string();
    std::string select = "SELECT " + drv.timingColumns();
    if (!queueCol.empty())
        select.append(", ").append(queueCol);
    select += " FROM ";
    const auto take = [&](const Statement& st) { takeTimingRow(st, t, !queueCol.empty(), cols); };
    // The rows of `range` (every key: nullopt), the format's own way where
    // it has one for an unfiltered scan.
    const auto read = [&](std::optional<std::pair<std::int64_t, std::int64_t>> range) {
        if (w.sql.empty() && !key.empty()) {
            const auto all =
                range.value_or(std::make_pair(std::numeric_limits<std::int64_t>::min(),
                                              std::numeric_limits<std::int64_t>::max()));
            if (drv.rangeTiming(reader(), all.first, all.second, !queueCol.empty(), take))
                return;
        }
        const Where ww = range ? inRange(w, key, *range) : w;
        for (const std::string& src : sources) {
            auto st = reader().cached(std::string(select).append(src).append(ww.sql));
            bindValues(*st, ww.binds);
            while (st->step())
                take(*st);
            st->reset();
        }
    };
    if (!rows) {
        const auto turn = readTurn();
        read(std::nullopt);
        return cols;
    }
    // The range is read in chunks, each its own read transaction: on a
    // rollback-journal file a writer waits for one chunk only; in WAL mode
    // the WAL can restart between chunks (ChunkPace).
    if (chunkRows() <= 0 || inOwnTransaction()) {
        read(*rows);
        return cols;
    }
    // Unfiltered, from the queue's second scan on, by the format's prints
    // where it has them: the ranges that did not change are not read again.
    const auto rest = w.sql.empty() && !key.empty() && timingScanned.load()
                          ? timingByPrint(*rows, withQueue, t, cols)
                          : rows;
    if (!rest)
        return cols;
    chunkPace(keysPerRange(rest->first, rest->second, chunkRows()))
        .eachRange(*rest, [&](const auto& range) {
            read(range);
            return true;
        });
    return cols;
}

TimingColumns Queue::timing(const Filter& f, bool withQueue) {
    // From the next scan on, ranges are read by their prints.
    struct Scanned {
        std::atomic<bool>& flag;
        ~Scanned() { flag = true; }
    } const scanned{d->timingScanned};
    // A large table is scanned as two rowid halves on two threads, each on its
    // own read connection (the scan, not the statistics, is the cost).
    constexpr std::int64_t kSplitAbove = 200'000;
    std::int64_t lo = 0, hi = -1;
    if (!d->inOwnTransaction() && !d->driver().scanKey().empty()) {
        const auto turn = d->readTurn();
        if (const auto bounds = d->scanBounds()) {
            lo = bounds->first;
            hi = bounds->second;
        }
    }
    if (hi < lo)
        return d->timingRange(f, std::nullopt, 0, withQueue);
    // Keys minus one, and the rows they can stand for (sparse keys, or a
    // hostile file's rowids 1 and 2^62, stand for far fewer).
    const std::uint64_t span = keySpan(lo, hi);
    const std::int64_t keys = keysIn(lo, hi, kSplitAbove);
    const std::int64_t rows = keys < kSplitAbove ? keys : std::min(kSplitAbove, d->rowsAtMost());
    // In WAL mode, one thread: two readers taking turns would leave no
    // moment without a read open, and the WAL could not restart for the
    // whole scan (ChunkPace paces each reader, not the pair).
    if (rows < kSplitAbove || (isWal(info().journalMode) && d->chunkRows() > 0)) {
        // Read by key range: timingRange() chunks it.
        return d->timingRange(f, std::make_pair(lo, hi), 0, withQueue);
    }
    const auto mid = static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + span / 2);
    // The upper half is read in pieces, appended to the lower half's
    // columns and each freed as soon as it is appended. The time columns
    // grow by mapped pages (no slack, given back when freed); the state
    // column is reserved for both halves.
    constexpr std::int64_t kPieceRows = 1 << 18;
    const auto pieces = splitKeys(mid + 1, hi, d->keysPerRange(mid + 1, hi, kPieceRows));
    const std::int64_t whole =
        span < (std::uint64_t{1} << 40) ? static_cast<std::int64_t>(span) + 1 : kSplitAbove;
    std::vector<TimingColumns> upper;
    std::exception_ptr error;
    std::thread helper([&] {
        try {
            for (const auto& piece : pieces)
                upper.push_back(d->timingRange(f, piece, 0, withQueue));
        } catch (...) {
            error = std::current_exception();
        }
        d->dropThreadReader();
    });
    TimingColumns cols;
    try {
        cols = d->timingRange(f, std::make_pair(lo, mid), whole, withQueue);
    } catch (...) {
        helper.join();
        throw;
    }
    helper.join();
    if (error)
        std::rethrow_exception(error);
    for (TimingColumns& piece : upper) {
        appendTiming(cols, piece);
        piece = TimingColumns{};
#if defined(__GLIBC__)
        // The pieces came from the helper thread's malloc arena, which keeps
        // freed chunks mapped: hand them back now, or the peak stays 1.5x.
        malloc_trim(0);
#endif
    }
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
