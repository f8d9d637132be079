// SPDX-License-Identifier: MIT
#include "stats.h"

#include "mapped.h"
#include "message.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <thread>

namespace lq::core {

std::optional<TimeNs> nearestRank(std::span<const TimeNs> sorted, double p) {
    if (sorted.empty())
        return std::nullopt;
    // rank = ceil(p/100 * N), 1-based; computed in integers where possible so
    // p = 90, N = 10 gives exactly rank 9.
    const auto n = static_cast<long double>(sorted.size());
    auto rank =
        static_cast<std::size_t>(std::ceil(static_cast<long double>(p) / 100.0L * n - 1e-12L));
    rank = std::clamp<std::size_t>(rank, 1, sorted.size());
    return sorted[rank - 1];
}

Summary summarize(std::vector<TimeNs>& values) {
    Summary s;
    s.count = static_cast<std::int64_t>(values.size());
    if (values.empty())
        return s;
    // Selection instead of a full sort: each nearest rank is found with
    // nth_element on the part right of the previous one (ranks increase), so
    // a million values take a few passes rather than a sort.
    const std::size_t n = values.size();
    const auto rankIndex = [n](double p) {
        auto rank = static_cast<std::size_t>(
            std::ceil(static_cast<long double>(p) / 100.0L * static_cast<long double>(n) - 1e-12L));
        return std::clamp<std::size_t>(rank, 1, n) - 1;
    };
    auto from = values.begin();
    std::optional<TimeNs>* outs[] = {&s.p50, &s.p90, &s.p95, &s.p99};
    const double ps[] = {50, 90, 95, 99};
    for (int k = 0; k < 4; ++k) {
        const auto at = values.begin() + static_cast<std::ptrdiff_t>(rankIndex(ps[k]));
        if (at >= from) {
            std::nth_element(from, at, values.end());
            from = at;
        }
        *outs[k] = *at;
    }
    const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
    s.min = *mn;
    s.max = *mx;
    long double sum = 0;
    for (TimeNs x : values)
        sum += static_cast<long double>(x);
    s.mean = static_cast<double>(sum / static_cast<long double>(n));
    return s;
}

std::int64_t Histogram::total() const {
    return std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
}

namespace {

/// The edges logHistogram() uses: 1 ms .. 10^6 s (~11.6 days), 9 decades.
std::vector<TimeNs> logEdges(int perDecade) {
    const int n = 9 * perDecade;
    std::vector<TimeNs> edges;
    edges.reserve(static_cast<std::size_t>(n) + 1);
    for (int i = 0; i <= n; ++i)
        edges.push_back(static_cast<TimeNs>(
            std::llround(1e6 * std::pow(10.0, static_cast<double>(i) / perDecade))));
    return edges;
}

/// Counts `v` in the bucket of `h` that holds it (see Histogram).
void addTo(Histogram& h, TimeNs v) {
    // First edge strictly above v, minus one, clamped to the buckets.
    auto it = std::upper_bound(h.edges.begin(), h.edges.end(), v);
    const auto last = static_cast<long>(h.counts.size()) - 1;
    const long idx = std::clamp<long>(static_cast<long>(it - h.edges.begin()) - 1, 0, last);
    ++h.counts[static_cast<std::size_t>(idx)];
}

Histogram emptyLogHistogram(int perDecade) {
    Histogram h;
    h.edges = logEdges(std::max(1, perDecade));
    h.counts.assign(h.edges.size() - 1, 0);
    return h;
}

/// 0-based index of the nearest rank of the p-th percentile of n values.
std::size_t rankIndex(double p, std::size_t n) {
    auto rank = static_cast<std::size_t>(
        std::ceil(static_cast<long double>(p) / 100.0L * static_cast<long double>(n) - 1e-12L));
    return std::clamp<std::size_t>(rank, 1, n) - 1;
}

/// Values held at most at once by selectExact (8 MB), all positions together.
constexpr std::size_t kCollectAtMost = std::size_t{1} << 20;
constexpr std::uint64_t kSelectBuckets = 4096;

/// The values at the 0-based sorted positions `at` of the n values that
/// `visit(fn)` produces (calling fn(v) for each; the same values every call),
/// exactly, without holding them all: each pass counts the values into
/// kSelectBuckets equal slices of the range still holding a position and
/// keeps the slice it falls in; once the slices hold at most kCollectAtMost
/// values together they are gathered and selected. [mn, mx]: the values' range.
/// Ten million values take two or three passes and a few MB, not 80 MB.
template <class Visit>
void selectExact(const Visit& visit, std::size_t n, TimeNs mn, TimeNs mx,
                 std::span<const std::size_t> at, std::span<std::optional<TimeNs>> out) {
    // Offsets from mn as unsigned, so any int64 range fits without overflow.
    const auto off = [mn](TimeNs v) {
        return static_cast<std::uint64_t>(v) - static_cast<std::uint64_t>(mn);
    };
    struct Want {
        std::uint64_t lo = 0, hi = 0; ///< offsets; the position's value is in [lo, hi]
        std::size_t below = 0;        ///< values under lo
        std::size_t inside = 0;       ///< values in [lo, hi]
        bool done = false;
    };
    std::vector<Want> w(at.size());
    for (auto& x : w) {
        x.hi = off(mx);
        x.inside = n;
    }
    const auto settle = [&] {
        for (std::size_t k = 0; k < w.size(); ++k) {
            if (!w[k].done && w[k].lo == w[k].hi) {
                w[k].done = true;
                out[k] = static_cast<TimeNs>(static_cast<std::uint64_t>(mn) + w[k].lo);
            }
        }
    };
    settle();
    std::vector<std::uint64_t> width(w.size());
    std::vector<std::size_t> hist(w.size() * kSelectBuckets);
    for (;;) {
        std::vector<std::size_t> narrow;
        bool pending = false;
        for (std::size_t k = 0; k < w.size(); ++k) {
            if (w[k].done)
                continue;
            pending = true;
            if (w[k].inside > kCollectAtMost / w.size())
                narrow.push_back(k);
        }
        if (!pending)
            return;
        if (narrow.empty())
            break;
        std::fill(hist.begin(), hist.end(), 0);
        for (std::size_t k : narrow)
            width[k] = (w[k].hi - w[k].lo) / kSelectBuckets + 1;
        visit([&](TimeNs v) {
            const std::uint64_t u = off(v);
            for (std::size_t k : narrow)
                if (u >= w[k].lo && u <= w[k].hi)
                    ++hist[k * kSelectBuckets + (u - w[k].lo) / width[k]];
        });
        for (std::size_t k : narrow) {
            Want& x = w[k];
            std::size_t below = x.below;
            std::uint64_t b = 0;
            while (below + hist[k * kSelectBuckets + b] <= at[k])
                below += hist[k * kSelectBuckets + b++];
            const std::uint64_t start = x.lo + b * width[k];
            x.hi = start + std::min(width[k] - 1, x.hi - start);
            x.lo = start;
            x.below = below;
            x.inside = hist[k * kSelectBuckets + b];
        }
        settle();
    }
    // Gather what is left (at most kCollectAtMost values per position).
    std::vector<MappedVector<TimeNs>> got(w.size());
    for (std::size_t k = 0; k < w.size(); ++k)
        if (!w[k].done)
            got[k].reserve(w[k].inside);
    visit([&](TimeNs v) {
        const std::uint64_t u = off(v);
        for (std::size_t k = 0; k < w.size(); ++k)
            if (!w[k].done && u >= w[k].lo && u <= w[k].hi)
                got[k].push_back(v);
    });
    for (std::size_t k = 0; k < w.size(); ++k) {
        if (w[k].done)
            continue;
        auto& g = got[k];
        const auto pos = g.begin() + static_cast<std::ptrdiff_t>(at[k] - w[k].below);
        std::nth_element(g.begin(), pos, g.end());
        out[k] = *pos;
    }
}

} // namespace

Histogram logHistogram(std::span<const TimeNs> values, int perDecade) {
    Histogram h = emptyLogHistogram(perDecade);
    for (TimeNs v : values)
        addTo(h, v);
    return h;
}

TimeNs chooseBucketSize(TimeNs span, int maxBuckets) {
    static const TimeNs sizes[] = {kNsPerSecond,        5 * kNsPerSecond,
                                   15 * kNsPerSecond,   60 * kNsPerSecond,
                                   300 * kNsPerSecond,  900 * kNsPerSecond,
                                   3600 * kNsPerSecond, 6 * TimeNs(3600) * kNsPerSecond,
                                   86400 * kNsPerSecond};
    for (TimeNs s : sizes) {
        if (span / s < maxBuckets)
            return s;
    }
    return sizes[std::size(sizes) - 1];
}

namespace {
bool has(TimeNs t) {
    return t != TimingColumns::kNoTime;
}

/// The time columns of one block of rows at a time, decoded: the scans over
/// every row read so (PackedColumn::decodeBlock), not value by value.
class RowBlocks {
public:
    static constexpr std::size_t kBlock = PackedColumn::kBlock;
    RowBlocks(const TimingColumns& c, bool withDue)
        : m_c(c)
        , m_withDue(withDue)
        , m_buf((withDue ? 4 : 3) * kBlock) {}
    std::size_t blocks() const { return (m_c.size() + kBlock - 1) / kBlock; }
    /// Decodes block k; returns its rows (from row k * kBlock).
    std::size_t load(std::size_t k) {
        const std::size_t n = m_c.inTime.decodeBlock(k, m_buf.data());
        m_c.lockTime.decodeBlock(k, m_buf.data() + kBlock);
        m_c.doneTime.decodeBlock(k, m_buf.data() + 2 * kBlock);
        if (m_withDue)
            m_c.dueTime.decodeBlock(k, m_buf.data() + 3 * kBlock);
        return n;
    }
    TimeNs in(std::size_t j) const { return m_buf[j]; }
    TimeNs lock(std::size_t j) const { return m_buf[kBlock + j]; }
    TimeNs done(std::size_t j) const { return m_buf[2 * kBlock + j]; }
    TimeNs due(std::size_t j) const { return m_buf[3 * kBlock + j]; }

private:
    const TimingColumns& m_c;
    bool m_withDue;
    std::vector<TimeNs> m_buf;
};
} // namespace

namespace {

/// Counts row `i` of `c` into `n` (countsFrom()).
class RowTally {
public:
    RowTally(const TimingColumns& c, TimeNs now, TimeNs stuckAfterNs,
             const std::vector<ExtraTally>& extras)
        : m_c(c)
        , m_now(now)
        , m_stuckAfter(stuckAfterNs)
        , m_extras(c.extra.size() == c.size() ? &extras : nullptr)
        , m_byRule(c.ownStuck.size() == c.size() && c.size() > 0) {}

    /// Every state the columns can tell, at 0.
    void zero(Counts& n) const {
        if (m_extras)
            for (const ExtraTally& e : *m_extras)
                n.extra[e.name] += 0;
    }

    void add(Counts& n, std::size_t i) const {
        ++n.stored;
        if (m_extras)
            if (const std::int8_t e = m_c.extra[i];
                e >= 0 && static_cast<std::size_t>(e) < m_extras->size()) {
                const ExtraTally& x = (*m_extras)[static_cast<std::size_t>(e)];
                ++n.extra[x.name];
                if (x.exclusive)
                    return;
            }
        switch (static_cast<State>(m_c.state[i])) {
        case State::Ready:
            ++n.ready;
            break;
        case State::Locked:
            ++n.locked;
            if (m_byRule ? m_c.ownStuck[i] != 0
                         : has(m_c.lockTime[i]) && m_c.lockTime[i] < m_now - m_stuckAfter)
                ++n.stuck;
            break;
        case State::Done:
            ++n.done;
            break;
        case State::Failed:
            ++n.failed;
            break;
        case State::Unknown:
            ++n.unknown;
            break;
        case State::Scheduled:
            ++n.scheduled;
            break;
        case State::Leased:
            ++n.leased;
            ++n.locked;
            break;
        case State::Expired:
            ++n.expired;
            break;
        }
    }

private:
    const TimingColumns& m_c;
    TimeNs m_now;
    TimeNs m_stuckAfter;
    const std::vector<ExtraTally>* m_extras;
    bool m_byRule;
};

} // namespace

Counts countsFrom(const TimingColumns& c, TimeNs now, TimeNs stuckAfterNs,
                  const std::vector<ExtraTally>& extras) {
    const RowTally tally(c, now, stuckAfterNs, extras);
    Counts n;
    tally.zero(n);
    for (std::size_t i = 0; i < c.size(); ++i)
        tally.add(n, i);
    return n;
}

std::vector<std::pair<std::string, Counts>>
countsByQueueFrom(const TimingColumns& c, TimeNs now, TimeNs stuckAfterNs,
                  const std::vector<ExtraTally>& extras) {
    const RowTally tally(c, now, stuckAfterNs, extras);
    std::vector<Counts> byIndex(c.queueNames.size());
    for (Counts& n : byIndex)
        tally.zero(n);
    for (std::size_t i = 0; i < c.queue.size() && i < c.size(); ++i)
        if (c.queue[i] < byIndex.size())
            tally.add(byIndex[c.queue[i]], i);
    std::vector<std::pair<std::string, Counts>> out;
    out.reserve(byIndex.size());
    for (std::size_t q = 0; q < byIndex.size(); ++q)
        out.emplace_back(c.queueNames[q], std::move(byIndex[q]));
    std::sort(out.begin(), out.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    return out;
}

void appendQueueName(TimingColumns& cols, std::optional<std::string_view> name) {
    if (!name) {
        cols.queue.push_back(TimingColumns::kNoQueue);
        return;
    }
    // Rows come in runs of one queue, and a file has a few queues: the last
    // row's first, then a look through the names.
    if (!cols.queue.empty()) {
        const std::uint32_t last = cols.queue.back();
        if (last != TimingColumns::kNoQueue && cols.queueNames[last] == *name) {
            cols.queue.push_back(last);
            return;
        }
    }
    const auto at = static_cast<std::size_t>(
        std::find(cols.queueNames.begin(), cols.queueNames.end(), *name) - cols.queueNames.begin());
    if (at == cols.queueNames.size())
        cols.queueNames.emplace_back(*name);
    cols.queue.push_back(static_cast<std::uint32_t>(at));
}

void appendQueues(TimingColumns& to, const TimingColumns& from) {
    for (const std::uint32_t i : from.queue)
        appendQueueName(to, i == TimingColumns::kNoQueue
                                ? std::nullopt
                                : std::optional<std::string_view>(from.queueNames[i]));
}

QueueStats computeStats(const TimingColumns& c, TimeNs now) {
    QueueStats s;
    const std::size_t n = c.size();
    const TimeNs hourAgo = now - 3600 * kNsPerSecond;
    // One pass for the scalar facts. A ready job waits from the time it
    // became due, where the format stores one.
    const bool dueKnown = c.dueTime.size() == n;
    RowBlocks facts(c, dueKnown);
    for (std::size_t k = 0; k < facts.blocks(); ++k) {
        const std::size_t first = k * RowBlocks::kBlock, count = facts.load(k);
        for (std::size_t j = 0; j < count; ++j) {
            const auto st = static_cast<State>(c.state[first + j]);
            const TimeNs in = facts.in(j), lock = facts.lock(j), done = facts.done(j);
            if (st == State::Done || st == State::Failed) {
                if (has(done) && done >= hourAgo && done <= now)
                    ++(st == State::Done ? s.doneLastHour : s.failedLastHour);
            } else if (const TimeNs since = dueKnown && has(facts.due(j)) ? facts.due(j) : in;
                       st == State::Ready && has(since)) {
                if (!s.oldestReadyInTime || since < *s.oldestReadyInTime)
                    s.oldestReadyInTime = since;
            } else if (st == State::Locked && has(lock)) {
                if (!s.oldestLockedLockTime || lock < *s.oldestLockedLockTime)
                    s.oldestLockedLockTime = lock;
            }
            for (TimeNs t : {in, lock, done}) {
                if (!has(t))
                    continue;
                if (!s.firstTime || t < *s.firstTime)
                    s.firstTime = t;
                if (!s.lastTime || t > *s.lastTime)
                    s.lastTime = t;
            }
        }
    }
    // Then one metric at a time, each gathered, summarised and freed before
    // the next, so at most two value arrays exist at once (memory at a
    // million rows); wait and time to failure on a second thread while this
    // one does processing and total.
    enum class M { Wait, Processing, Total, Failure };
    // Calls fn(value) for every value of metric m.
    const bool byDue = c.dueTime.size() == n;
    const auto visit = [&c, byDue](M m, auto&& fn) {
        RowBlocks rows(c, byDue);
        for (std::size_t k = 0; k < rows.blocks(); ++k) {
            const std::size_t first = k * RowBlocks::kBlock, count = rows.load(k);
            for (std::size_t j = 0; j < count; ++j) {
                const auto st = static_cast<State>(c.state[first + j]);
                const TimeNs in = rows.in(j), lock = rows.lock(j), done = rows.done(j);
                std::optional<TimeNs> d;
                switch (m) {
                case M::Wait:
                    if (byDue) {
                        // Message::waitNs(): a claim before the due time is an
                        // earlier attempt's.
                        const TimeNs due = rows.due(j);
                        if (has(lock) && has(due) && lock >= due)
                            d = diffNs(lock, due);
                    } else if (has(lock) && has(in)) {
                        d = diffNs(lock, in);
                    }
                    break;
                case M::Processing:
                    if (st == State::Done && has(lock) && has(done))
                        d = diffNs(done, lock);
                    break;
                case M::Total:
                    if (st == State::Done && has(in) && has(done))
                        d = diffNs(done, in);
                    break;
                case M::Failure:
                    if (st == State::Failed && has(lock) && has(done))
                        d = diffNs(done, lock);
                    break;
                }
                if (d)
                    fn(*d);
            }
        }
    };
    const auto metric = [&visit](M m, Histogram& h, Summary& sum) {
        // Streaming: count, range, mean and histogram in one pass, then the
        // exact nearest ranks by selectExact; the values are never gathered
        // (two metrics at once at ten million rows were 160 MB).
        h = emptyLogHistogram(4);
        sum = Summary{};
        long double total = 0;
        TimeNs mn = std::numeric_limits<TimeNs>::max(), mx = std::numeric_limits<TimeNs>::min();
        visit(m, [&](TimeNs x) {
            ++sum.count;
            total += static_cast<long double>(x);
            mn = std::min(mn, x);
            mx = std::max(mx, x);
            addTo(h, x);
        });
        if (sum.count == 0)
            return;
        const auto k = static_cast<std::size_t>(sum.count);
        sum.min = mn;
        sum.max = mx;
        sum.mean = static_cast<double>(total / static_cast<long double>(k));
        const std::size_t at[] = {rankIndex(50, k), rankIndex(90, k), rankIndex(95, k),
                                  rankIndex(99, k)};
        std::optional<TimeNs> got[4];
        selectExact([&visit, m](auto&& fn) { visit(m, fn); }, k, mn, mx, at, got);
        sum.p50 = got[0];
        sum.p90 = got[1];
        sum.p95 = got[2];
        sum.p99 = got[3];
    };
    const auto first = [&] {
        metric(M::Wait, s.waitHist, s.wait);
        metric(M::Failure, s.failureHist, s.timeToFailure);
    };
    if (n > 100'000) {
        std::thread helper(first);
        metric(M::Processing, s.processingHist, s.processing);
        metric(M::Total, s.totalHist, s.total);
        helper.join();
    } else {
        first();
        metric(M::Processing, s.processingHist, s.processing);
        metric(M::Total, s.totalHist, s.total);
    }
    return s;
}

std::vector<TimeBucket> computeSeries(const TimingColumns& c, TimeNs from, TimeNs to,
                                      TimeNs bucket) {
    std::vector<TimeBucket> out;
    if (bucket <= 0 || to <= from)
        return out;
    const auto span = diffNs(to, from);
    if (!span || *span / bucket > 10'000'000)
        return out; // a span no chart can show (hostile timestamps)
    const auto nb = static_cast<std::size_t>(*span / bucket + (*span % bucket ? 1 : 0));
    out.resize(nb);
    for (std::size_t i = 0; i < nb; ++i)
        out[i].start = from + static_cast<TimeNs>(i) * bucket;
    const auto index = [&](TimeNs t) -> long {
        if (!has(t) || t < from || t >= to)
            return -1;
        return static_cast<long>((t - from) / bucket);
    };
    // The waits (by claim time) and processing times (by completion time) of
    // every bucket, in two flat arrays laid out bucket after bucket: a
    // counting pass sizes them exactly, a second pass fills them.
    std::vector<std::size_t> waitAt(nb + 1, 0), procAt(nb + 1, 0);
    // Every wait claimed and processing time completed in [lo, hi); blocks of
    // rows whose claim and completion times all lie outside are skipped
    // unread (rows arrive in time order: a batch of buckets reads its part).
    // The wait is the histogram's (computeStats): from the due time where the
    // format stores one (a claim before it belongs to an earlier attempt),
    // else from the enqueue time.
    const bool byDue = c.dueTime.size() == c.size();
    const auto forEachIn = [&](TimeNs lo, TimeNs hi, auto&& onWait, auto&& onProc) {
        RowBlocks rows(c, byDue);
        for (std::size_t k = 0; k < rows.blocks(); ++k) {
            if (!c.lockTime.blockMayHold(k, lo, hi) && !c.doneTime.blockMayHold(k, lo, hi))
                continue;
            const std::size_t first = k * RowBlocks::kBlock, count = rows.load(k);
            for (std::size_t j = 0; j < count; ++j) {
                const auto st = static_cast<State>(c.state[first + j]);
                const TimeNs in = rows.in(j), lock = rows.lock(j), done = rows.done(j);
                const TimeNs start = byDue ? rows.due(j) : in;
                if (long b = index(lock);
                    b >= 0 && lock >= lo && lock < hi && has(start) && (!byDue || lock >= start))
                    if (auto d = diffNs(lock, start))
                        onWait(static_cast<std::size_t>(b), *d);
                if (long b = index(done);
                    b >= 0 && done >= lo && done < hi && st == State::Done && has(lock))
                    if (auto d = diffNs(done, lock))
                        onProc(static_cast<std::size_t>(b), *d);
            }
        }
    };
    const auto forEach = [&](auto&& onWait, auto&& onProc) { forEachIn(from, to, onWait, onProc); };
    // Where bucket b starts, and the end of the last.
    const auto startOf = [&](std::size_t b) { return b < nb ? out[b].start : to; };
    RowBlocks rows(c, false);
    for (std::size_t k = 0; k < rows.blocks(); ++k) {
        const std::size_t first = k * RowBlocks::kBlock, count = rows.load(k);
        for (std::size_t j = 0; j < count; ++j) {
            const auto st = static_cast<State>(c.state[first + j]);
            if (long b = index(rows.in(j)); b >= 0)
                ++out[static_cast<std::size_t>(b)].arrivals;
            if (long b = index(rows.lock(j)); b >= 0)
                ++out[static_cast<std::size_t>(b)].claims;
            if (long b = index(rows.done(j)); b >= 0) {
                if (st == State::Done)
                    ++out[static_cast<std::size_t>(b)].completions;
                else if (st == State::Failed)
                    ++out[static_cast<std::size_t>(b)].failures;
            }
        }
    }
    forEach([&](std::size_t b, TimeNs) { ++waitAt[b + 1]; },
            [&](std::size_t b, TimeNs) { ++procAt[b + 1]; });
    for (std::size_t b = 0; b < nb; ++b) {
        waitAt[b + 1] += waitAt[b];
        procAt[b + 1] += procAt[b];
    }
    // p50 and p99 per bucket, exactly, holding at most about kSeriesBatch
    // values at once: consecutive buckets are gathered batch by batch, one
    // pass over the blocks of rows that may hold them each (at ten million
    // rows: twenty batches of 8 MB, instead of 160 MB at once); a bucket
    // larger than a batch on its own is selected without gathering it
    // (selectExact).
    constexpr std::size_t kSeriesBatch = std::size_t{1} << 20;
    const auto p50p99 = [](TimeNs* first, TimeNs* last, std::optional<TimeNs>& p50,
                           std::optional<TimeNs>& p99) {
        if (first == last)
            return;
        const auto n = static_cast<std::size_t>(last - first);
        const auto a = first + static_cast<std::ptrdiff_t>(rankIndex(50, n));
        std::nth_element(first, a, last);
        p50 = *a;
        const auto b = first + static_cast<std::ptrdiff_t>(rankIndex(99, n));
        std::nth_element(a, b, last);
        p99 = *b;
    };
    const auto sizeOf = [&](std::size_t b) {
        return (waitAt[b + 1] - waitAt[b]) + (procAt[b + 1] - procAt[b]);
    };
    for (std::size_t b0 = 0; b0 < nb;) {
        if (sizeOf(b0) > kSeriesBatch) {
            // One huge bucket: each metric's two ranks by selection.
            const auto one = [&](bool wait, std::size_t count, std::optional<TimeNs>& p50,
                                 std::optional<TimeNs>& p99) {
                if (count == 0)
                    return;
                TimeNs mn = std::numeric_limits<TimeNs>::max();
                TimeNs mx = std::numeric_limits<TimeNs>::min();
                const auto visit = [&](auto&& fn) {
                    const auto none = [](std::size_t, TimeNs) {};
                    const auto mine = [&](std::size_t b, TimeNs d) {
                        if (b == b0)
                            fn(d);
                    };
                    if (wait)
                        forEachIn(startOf(b0), startOf(b0 + 1), mine, none);
                    else
                        forEachIn(startOf(b0), startOf(b0 + 1), none, mine);
                };
                visit([&](TimeNs d) {
                    mn = std::min(mn, d);
                    mx = std::max(mx, d);
                });
                const std::size_t at[] = {rankIndex(50, count), rankIndex(99, count)};
                std::optional<TimeNs> got[2];
                selectExact(visit, count, mn, mx, at, got);
                p50 = got[0];
                p99 = got[1];
            };
            one(true, waitAt[b0 + 1] - waitAt[b0], out[b0].waitP50, out[b0].waitP99);
            one(false, procAt[b0 + 1] - procAt[b0], out[b0].processingP50, out[b0].processingP99);
            ++b0;
            continue;
        }
        std::size_t b1 = b0, held = 0;
        while (b1 < nb && held + sizeOf(b1) <= kSeriesBatch)
            held += sizeOf(b1++);
        // Buckets [b0, b1), laid out bucket after bucket from their offsets.
        // Mapped: freed to malloc, 8 MB would stay resident after the scan.
        MappedVector<TimeNs> waits(waitAt[b1] - waitAt[b0]), procs(procAt[b1] - procAt[b0]);
        std::vector<std::size_t> wCur(waitAt.begin() + static_cast<std::ptrdiff_t>(b0),
                                      waitAt.begin() + static_cast<std::ptrdiff_t>(b1));
        std::vector<std::size_t> pCur(procAt.begin() + static_cast<std::ptrdiff_t>(b0),
                                      procAt.begin() + static_cast<std::ptrdiff_t>(b1));
        forEachIn(
            startOf(b0), startOf(b1),
            [&](std::size_t b, TimeNs d) {
                if (b >= b0 && b < b1)
                    waits[wCur[b - b0]++ - waitAt[b0]] = d;
            },
            [&](std::size_t b, TimeNs d) {
                if (b >= b0 && b < b1)
                    procs[pCur[b - b0]++ - procAt[b0]] = d;
            });
        const auto at = [](MappedVector<TimeNs>& v, std::size_t i) { return v.data() + i; };
        for (std::size_t b = b0; b < b1; ++b) {
            p50p99(at(waits, waitAt[b] - waitAt[b0]), at(waits, waitAt[b + 1] - waitAt[b0]),
                   out[b].waitP50, out[b].waitP99);
            p50p99(at(procs, procAt[b] - procAt[b0]), at(procs, procAt[b + 1] - procAt[b0]),
                   out[b].processingP50, out[b].processingP99);
        }
        b0 = b1;
    }
    return out;
}

} // namespace lq::core
