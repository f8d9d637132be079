// SPDX-License-Identifier: MIT
#include "stats.h"

#include "message.h"

#include <algorithm>
#include <cmath>
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

Histogram logHistogram(std::span<const TimeNs> values, int perDecade) {
    Histogram h;
    perDecade = std::max(1, perDecade);
    // 1 ms .. 10^6 s (~11.6 days): 9 decades.
    const int decades = 9;
    const int n = decades * perDecade;
    h.edges.reserve(static_cast<std::size_t>(n) + 1);
    for (int i = 0; i <= n; ++i)
        h.edges.push_back(static_cast<TimeNs>(
            std::llround(1e6 * std::pow(10.0, static_cast<double>(i) / perDecade))));
    h.counts.assign(static_cast<std::size_t>(n), 0);
    for (TimeNs v : values) {
        // First edge strictly above v, minus one, clamped to the buckets.
        auto it = std::upper_bound(h.edges.begin(), h.edges.end(), v);
        long idx = static_cast<long>(it - h.edges.begin()) - 1;
        idx = std::clamp<long>(idx, 0, n - 1);
        ++h.counts[static_cast<std::size_t>(idx)];
    }
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
} // namespace

Counts countsFrom(const TimingColumns& c, TimeNs now, TimeNs stuckAfterNs) {
    Counts n;
    n.stored = static_cast<std::int64_t>(c.size());
    const bool byRule = c.ownStuck.size() == c.size() && c.size() > 0;
    for (std::size_t i = 0; i < c.size(); ++i) {
        switch (static_cast<State>(c.state[i])) {
        case State::Ready:
            ++n.ready;
            break;
        case State::Locked:
            ++n.locked;
            if (byRule ? c.ownStuck[i] != 0
                       : has(c.lockTime[i]) && c.lockTime[i] < now - stuckAfterNs)
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
    return n;
}

QueueStats computeStats(const TimingColumns& c, TimeNs now) {
    QueueStats s;
    const std::size_t n = c.size();
    const TimeNs hourAgo = now - 3600 * kNsPerSecond;
    // One pass for the scalar facts.
    for (std::size_t i = 0; i < n; ++i) {
        const auto st = static_cast<State>(c.state[i]);
        const TimeNs in = c.inTime[i], lock = c.lockTime[i], done = c.doneTime[i];
        if (st == State::Done || st == State::Failed) {
            if (has(done) && done >= hourAgo && done <= now)
                ++(st == State::Done ? s.doneLastHour : s.failedLastHour);
        } else if (st == State::Ready && has(in)) {
            if (!s.oldestReadyInTime || in < *s.oldestReadyInTime)
                s.oldestReadyInTime = in;
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
    // Then one metric at a time, each gathered, summarised and freed before
    // the next, so at most two value arrays exist at once (memory at a
    // million rows); wait and time to failure on a second thread while this
    // one does processing and total.
    enum class M { Wait, Processing, Total, Failure };
    // Calls fn(value) for every value of metric m.
    const auto visit = [&c, n](M m, auto&& fn) {
        for (std::size_t i = 0; i < n; ++i) {
            const auto st = static_cast<State>(c.state[i]);
            const TimeNs in = c.inTime[i], lock = c.lockTime[i], done = c.doneTime[i];
            std::optional<TimeNs> d;
            switch (m) {
            case M::Wait:
                if (has(lock) && has(in))
                    d = diffNs(lock, in);
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
    };
    const auto metric = [&visit](M m, Histogram& h, Summary& sum) {
        // Count, then fill an exactly sized array: a growing one would
        // briefly hold two copies, up to three times the values.
        std::size_t count = 0;
        visit(m, [&count](TimeNs) { ++count; });
        std::vector<TimeNs> v;
        v.reserve(count);
        visit(m, [&v](TimeNs x) { v.push_back(x); });
        h = logHistogram(v);
        sum = summarize(v);
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
    const auto forEach = [&](auto&& onWait, auto&& onProc) {
        for (std::size_t i = 0; i < c.size(); ++i) {
            const auto st = static_cast<State>(c.state[i]);
            const TimeNs in = c.inTime[i], lock = c.lockTime[i], done = c.doneTime[i];
            if (long b = index(lock); b >= 0 && has(in))
                if (auto d = diffNs(lock, in))
                    onWait(static_cast<std::size_t>(b), *d);
            if (long b = index(done); b >= 0 && st == State::Done && has(lock))
                if (auto d = diffNs(done, lock))
                    onProc(static_cast<std::size_t>(b), *d);
        }
    };
    for (std::size_t i = 0; i < c.size(); ++i) {
        const auto st = static_cast<State>(c.state[i]);
        if (long b = index(c.inTime[i]); b >= 0)
            ++out[static_cast<std::size_t>(b)].arrivals;
        if (long b = index(c.lockTime[i]); b >= 0)
            ++out[static_cast<std::size_t>(b)].claims;
        if (long b = index(c.doneTime[i]); b >= 0) {
            if (st == State::Done)
                ++out[static_cast<std::size_t>(b)].completions;
            else if (st == State::Failed)
                ++out[static_cast<std::size_t>(b)].failures;
        }
    }
    forEach([&](std::size_t b, TimeNs) { ++waitAt[b + 1]; },
            [&](std::size_t b, TimeNs) { ++procAt[b + 1]; });
    for (std::size_t b = 0; b < nb; ++b) {
        waitAt[b + 1] += waitAt[b];
        procAt[b + 1] += procAt[b];
    }
    std::vector<TimeNs> waits(waitAt[nb]), procs(procAt[nb]);
    {
        std::vector<std::size_t> wCur(waitAt.begin(), waitAt.end() - 1);
        std::vector<std::size_t> pCur(procAt.begin(), procAt.end() - 1);
        forEach([&](std::size_t b, TimeNs d) { waits[wCur[b]++] = d; },
                [&](std::size_t b, TimeNs d) { procs[pCur[b]++] = d; });
    }
    // p50 and p99 per bucket by selection, not a sort.
    const auto p50p99 = [](std::vector<TimeNs>::iterator first, std::vector<TimeNs>::iterator last,
                           std::optional<TimeNs>& p50, std::optional<TimeNs>& p99) {
        if (first == last)
            return;
        const auto n = static_cast<std::size_t>(last - first);
        const auto idx = [n](double p) {
            auto rank = static_cast<std::size_t>(std::ceil(
                static_cast<long double>(p) / 100.0L * static_cast<long double>(n) - 1e-12L));
            return static_cast<std::ptrdiff_t>(std::clamp<std::size_t>(rank, 1, n) - 1);
        };
        const auto a = first + idx(50);
        std::nth_element(first, a, last);
        p50 = *a;
        const auto b = first + idx(99);
        std::nth_element(a, b, last);
        p99 = *b;
    };
    for (std::size_t b = 0; b < nb; ++b) {
        p50p99(waits.begin() + static_cast<std::ptrdiff_t>(waitAt[b]),
               waits.begin() + static_cast<std::ptrdiff_t>(waitAt[b + 1]), out[b].waitP50,
               out[b].waitP99);
        p50p99(procs.begin() + static_cast<std::ptrdiff_t>(procAt[b]),
               procs.begin() + static_cast<std::ptrdiff_t>(procAt[b + 1]), out[b].processingP50,
               out[b].processingP99);
    }
    return out;
}

} // namespace lq::core
