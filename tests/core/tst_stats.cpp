// SPDX-License-Identifier: MIT
// Statistics (docs/FORMATS.md#times), time formatting and the JSON value: pure functions
// on known inputs.

#include "testutil.h"

#include "core/json.h"
#include "core/stats.h"
#include "core/timefmt.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

using namespace lq::core;
using namespace lqtest;

namespace {
constexpr TimeNs kMs = 1'000'000;
constexpr TimeNs kSec = kNsPerSecond;
constexpr TimeNs kNo = TimingColumns::kNoTime;

struct Row {
    State s;
    TimeNs in, lock, done;
};

TimingColumns columns(const std::vector<Row>& rows, TimeNs base) {
    TimingColumns c;
    for (const Row& r : rows) {
        c.state.push_back(static_cast<std::int8_t>(r.s));
        c.inTime.push_back(r.in == kNo ? kNo : base + r.in);
        c.lockTime.push_back(r.lock == kNo ? kNo : base + r.lock);
        c.doneTime.push_back(r.done == kNo ? kNo : base + r.done);
    }
    return c;
}

// A small queue by hand (times in ms after kT0).
const std::vector<Row> kRows = {
    {State::Done, 0, 1000, 3000},       // wait 1 s, processing 2 s, total 3 s
    {State::Done, 0, 2000, 6000},       // wait 2 s, processing 4 s, total 6 s
    {State::Failed, 1000, 2000, 10000}, // wait 1 s, time to failure 8 s
    {State::Locked, 5000, 7000, kNo},   // wait 2 s
    {State::Ready, 3000, kNo, kNo},     //
    {State::Ready, 4000, 4500, kNo},    // requeued: wait 0.5 s
    {State::Done, 2000, kNo, 2500},     // cancelled before a pop: total 0.5 s
};

TimingColumns handColumns() {
    std::vector<Row> rows = kRows;
    for (Row& r : rows) {
        r.in = r.in == kNo ? kNo : r.in * kMs;
        r.lock = r.lock == kNo ? kNo : r.lock * kMs;
        r.done = r.done == kNo ? kNo : r.done * kMs;
    }
    return columns(rows, kT0);
}

} // namespace

class TstStats : public QObject {
    Q_OBJECT

private slots:
    void nearestRank_data();
    void nearestRank();
    void summarize();
    void logHistogram_data();
    void logHistogram();
    void computeStats();
    void computeStatsAtScale();
    void computeSeriesByHand();
    void timeColumn_data();
    void timeColumn();
    void timeColumnCopies();
    void packedColumnAsOrdering();
    void computeSeriesSums();
    void computeSeriesBatches();
    void chooseBucketSize_data();
    void chooseBucketSize();
    void humanDuration_data();
    void humanDuration();
    void parseTimeArg_data();
    void parseTimeArg();
    void isoUtc();
    void jsonRoundTrip_data();
    void jsonRoundTrip();
    void jsonValues();
    void jsonInvalid_data();
    void jsonInvalid();
    void utf8_data();
    void utf8();
};

void TstStats::nearestRank_data() {
    QTest::addColumn<QList<qint64>>("sorted");
    QTest::addColumn<double>("p");
    QTest::addColumn<qint64>("expected"); // -1: none
    const QList<qint64> one{42};
    const QList<qint64> ten{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    const QList<qint64> four{10, 20, 30, 40};
    QTest::newRow("empty") << QList<qint64>{} << 50.0 << qint64(-1);
    for (double p : {1.0, 50.0, 90.0, 99.0, 100.0})
        QTest::addRow("N=1 p%g", p) << one << p << qint64(42);
    QTest::newRow("N=10 p10") << ten << 10.0 << qint64(1);
    QTest::newRow("N=10 p11") << ten << 11.0 << qint64(2);
    QTest::newRow("N=10 p50") << ten << 50.0 << qint64(5);
    QTest::newRow("N=10 p51") << ten << 51.0 << qint64(6);
    QTest::newRow("N=10 p90") << ten << 90.0 << qint64(9);
    QTest::newRow("N=10 p95") << ten << 95.0 << qint64(10);
    QTest::newRow("N=10 p99") << ten << 99.0 << qint64(10);
    QTest::newRow("N=10 p100") << ten << 100.0 << qint64(10);
    QTest::newRow("N=4 p25") << four << 25.0 << qint64(10);
    QTest::newRow("N=4 p50") << four << 50.0 << qint64(20);
    QTest::newRow("N=4 p75") << four << 75.0 << qint64(30);
    QTest::newRow("N=4 p76") << four << 76.0 << qint64(40);
    QList<qint64> hundred;
    for (qint64 i = 1; i <= 100; ++i)
        hundred << i * 1000;
    QTest::newRow("N=100 p99") << hundred << 99.0 << qint64(99000);
    QTest::newRow("N=100 p90") << hundred << 90.0 << qint64(90000);
    QTest::newRow("N=100 p50") << hundred << 50.0 << qint64(50000);
}

void TstStats::nearestRank() {
    QFETCH(QList<qint64>, sorted);
    QFETCH(double, p);
    QFETCH(qint64, expected);
    const std::vector<TimeNs> v(sorted.begin(), sorted.end());
    const auto r = lq::core::nearestRank(v, p);
    QCOMPARE(r, expected < 0 ? std::nullopt : std::optional<TimeNs>(expected));
}

void TstStats::summarize() {
    std::vector<TimeNs> v{5, 1, 3};
    const Summary s = lq::core::summarize(v);
    QCOMPARE(s.count, 3);
    QCOMPARE(s.min, std::optional<TimeNs>(1));
    QCOMPARE(s.p50, std::optional<TimeNs>(3));
    QCOMPARE(s.p90, std::optional<TimeNs>(5));
    QCOMPARE(s.max, std::optional<TimeNs>(5));
    QCOMPARE(s.mean, 3.0);
    QCOMPARE(v, (std::vector<TimeNs>{1, 3, 5})); // sorted in place

    std::vector<TimeNs> none;
    const Summary e = lq::core::summarize(none);
    QCOMPARE(e.count, 0);
    QVERIFY(!e.p50);
    QVERIFY(!e.max);
}

void TstStats::logHistogram_data() {
    QTest::addColumn<int>("perDecade");
    QTest::addColumn<int>("n");
    QTest::newRow("default, 1000 values") << 4 << 1000;
    QTest::newRow("10 per decade") << 10 << 5000;
    QTest::newRow("1 per decade") << 1 << 300;
    QTest::newRow("empty") << 4 << 0;
}

void TstStats::logHistogram() {
    QFETCH(int, perDecade);
    QFETCH(int, n);
    std::mt19937_64 rng(20250314);
    std::lognormal_distribution<double> dist(20.0, 3.0); // ~0.5 s, spread over all decades
    std::vector<TimeNs> values;
    for (int i = 0; i < n; ++i)
        values.push_back(static_cast<TimeNs>(dist(rng)));
    if (n > 0) { // the edges and beyond
        values.insert(values.end(), {0, 1, kMs - 1, kMs, 20LL * 86400 * kSec});
    }
    const Histogram h = lq::core::logHistogram(values, perDecade);
    QCOMPARE(h.edges.size(), h.counts.size() + 1);
    QVERIFY(!h.counts.empty());
    QCOMPARE(h.edges.front(), kMs);
    for (std::size_t i = 1; i < h.edges.size(); ++i)
        QVERIFY(h.edges[i] > h.edges[i - 1]);
    QVERIFY(h.edges.back() >= 8LL * 86400 * kSec); // about 10 days
    // perDecade buckets per factor of ten.
    const TimeNs tenMs = h.edges[static_cast<std::size_t>(perDecade)];
    QVERIFY2(std::abs(static_cast<double>(tenMs) / (10.0 * kMs) - 1.0) < 0.01,
             std::to_string(tenMs).c_str());

    std::int64_t sum = 0;
    for (auto c : h.counts)
        sum += c;
    QCOMPARE(sum, static_cast<std::int64_t>(values.size()));
    QCOMPARE(h.total(), static_cast<std::int64_t>(values.size()));
    // Every value in the bucket [edge(i), edge(i+1)), the ends clamped.
    std::vector<std::int64_t> expect(h.counts.size(), 0);
    for (TimeNs v : values) {
        std::size_t i = 0;
        while (i + 1 < h.counts.size() && v >= h.edges[i + 1])
            ++i;
        ++expect[i];
    }
    QCOMPARE(h.counts, expect);
}

void TstStats::computeStats() {
    const TimingColumns c = handColumns();
    const TimeNs now = kT0 + 100 * kSec;
    const QueueStats s = lq::core::computeStats(c, now);
    QCOMPARE(s.wait.count, 5);
    QCOMPARE(s.wait.min, std::optional<TimeNs>(500 * kMs));
    QCOMPARE(s.wait.p50, std::optional<TimeNs>(1 * kSec)); // {0.5, 1, 1, 2, 2}: rank 3
    QCOMPARE(s.wait.max, std::optional<TimeNs>(2 * kSec));
    QCOMPARE(s.processing.count, 2);
    QCOMPARE(s.processing.p50, std::optional<TimeNs>(2 * kSec));
    QCOMPARE(s.processing.max, std::optional<TimeNs>(4 * kSec));
    QCOMPARE(s.total.count, 3); // {0.5, 3, 6}
    QCOMPARE(s.total.p50, std::optional<TimeNs>(3 * kSec));
    QCOMPARE(s.total.max, std::optional<TimeNs>(6 * kSec));
    QCOMPARE(s.timeToFailure.count, 1);
    QCOMPARE(s.timeToFailure.max, std::optional<TimeNs>(8 * kSec));
    QCOMPARE(s.waitHist.total(), 5);
    QCOMPARE(s.processingHist.total(), 2);
    QCOMPARE(s.totalHist.total(), 3);
    QCOMPARE(s.failureHist.total(), 1);
    QCOMPARE(s.oldestReadyInTime, std::optional<TimeNs>(kT0 + 3 * kSec));
    QCOMPARE(s.oldestLockedLockTime, std::optional<TimeNs>(kT0 + 7 * kSec));
    QCOMPARE(s.doneLastHour, 3);
    QCOMPARE(s.failedLastHour, 1);
    QCOMPARE(s.firstTime, std::optional<TimeNs>(kT0));
    QCOMPARE(s.lastTime, std::optional<TimeNs>(kT0 + 10 * kSec));

    // An hour later nothing finished "in the last hour".
    const QueueStats later = lq::core::computeStats(c, kT0 + 2 * 3600 * kSec);
    QCOMPARE(later.doneLastHour, 0);
    QCOMPARE(later.failedLastHour, 0);

    const QueueStats empty = lq::core::computeStats(TimingColumns{}, now);
    QCOMPARE(empty.wait.count, 0);
    QVERIFY(!empty.oldestReadyInTime);
    QVERIFY(!empty.firstTime);
}

// Past a million values the percentiles are found by narrowing passes, not
// by gathering the values (core/stats.cpp, selectExact): they must still be
// the nearest ranks of a full sort, on a hostile mix (a heavy cluster of
// equal values, negatives, values near the int64 ends), and a series bucket
// too large to gather alone must match a sort as well.
void TstStats::computeStatsAtScale() {
    std::mt19937_64 rng(11);
    const std::size_t n = 4'300'000;
    TimingColumns c;
    c.state.assign(n, static_cast<std::int8_t>(lq::core::State::Done));
    std::vector<TimeNs> waits;
    const TimeNs big = std::numeric_limits<TimeNs>::max() / 4;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t r = rng() % 100;
        TimeNs w = 0;
        if (r < 40)
            w = 130 * 1'000'000; // a cluster of one value
        else if (r < 45)
            w = -static_cast<TimeNs>(rng() % 1'000'000); // clock skew
        else if (r < 46)
            w = big - static_cast<TimeNs>(rng() % 1000); // hostile
        else
            w = static_cast<TimeNs>(rng() % (1000 * kSec));
        c.inTime.push_back(kT0);
        c.lockTime.push_back(kT0 + w);
        c.doneTime.push_back(TimingColumns::kNoTime); // processing: none
        waits.push_back(w);
    }
    std::sort(waits.begin(), waits.end());
    const lq::core::QueueStats s = lq::core::computeStats(c, kT0);
    QCOMPARE(s.wait.count, static_cast<std::int64_t>(n));
    QCOMPARE(s.wait.p50, lq::core::nearestRank(waits, 50));
    QCOMPARE(s.wait.p90, lq::core::nearestRank(waits, 90));
    QCOMPARE(s.wait.p95, lq::core::nearestRank(waits, 95));
    QCOMPARE(s.wait.p99, lq::core::nearestRank(waits, 99));
    QCOMPARE(s.wait.min, std::optional<TimeNs>(waits.front()));
    QCOMPARE(s.wait.max, std::optional<TimeNs>(waits.back()));
    QCOMPARE(s.waitHist.total(), static_cast<std::int64_t>(n));
    QCOMPARE(s.processing.count, 0);
    // Every claim (lock_time) in one bucket: the wait values come in a
    // bucket larger than the series gathers at once.
    const TimeNs from = kT0 - 1'000'000 * kSec;
    const auto series =
        lq::core::computeSeries(c, from, from + 2 * 1'000'000 * kSec, 2 * 1'000'000 * kSec);
    QCOMPARE(series.size(), std::size_t(1));
    std::vector<TimeNs> inSpan;
    for (TimeNs w : waits)
        if (kT0 + w < from + 2 * 1'000'000 * kSec)
            inSpan.push_back(w); // sorted still
    QVERIFY(inSpan.size() > (std::size_t{1} << 22));
    QCOMPARE(series[0].claims, static_cast<std::int64_t>(inSpan.size()));
    QCOMPARE(series[0].waitP50, lq::core::nearestRank(inSpan, 50));
    QCOMPARE(series[0].waitP99, lq::core::nearestRank(inSpan, 99));
    QVERIFY(!series[0].processingP50);
}

// PackedColumn keeps every value exactly, whatever the spread of a block,
// and holds queue-like timestamps in fewer bytes than an int64 vector.
void TstStats::timeColumn_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("n");
    // What it may hold at most, pages and block table included (a page is
    // 1 MB: only a million values say what a value costs).
    QTest::addColumn<double>("maxBytesPerValue");
    // Nanosecond arrivals ~60 ms apart (a queue of ten million over a week).
    // Blocks span ~246 s: 38 bits a value.
    QTest::newRow("queue-like ns") << 0 << 1'000'000 << 4.9;
    QTest::newRow("all NULL") << 1 << 1'000'000 << 0.1;
    QTest::newRow("hostile: int64 ends, NULLs") << 2 << 1'000'000 << 8.5;
    QTest::newRow("one value") << 3 << 1 << 1e9;
    QTest::newRow("empty") << 4 << 0 << 1e9;
    QTest::newRow("a block exactly") << 0 << int(PackedColumn::kBlock) << 1e9;
    QTest::newRow("seconds, half NULL") << 5 << 12'345 << 1e9;
    // Block 2k - 2 spans 2^k - 2 (fits k bits with the NULL code), block
    // 2k - 1 spans 2^k - 1 (needs k + 1): every packing from 1 to 64 bits,
    // each next to its limit, NULLs between.
    QTest::newRow("every width at its limit") << 6 << 127 * int(PackedColumn::kBlock) << 1e9;
}

void TstStats::timeColumn() {
    QFETCH(int, kind);
    QFETCH(int, n);
    QFETCH(double, maxBytesPerValue);
    std::mt19937_64 rng(static_cast<unsigned>(kind * 7919 + n));
    std::vector<TimeNs> want;
    TimeNs t = kT0;
    for (int i = 0; i < n; ++i) {
        TimeNs v = kNo;
        switch (kind) {
        case 0:
            t += static_cast<TimeNs>(rng() % (120 * kMs));
            v = t;
            break;
        case 2: {
            const std::uint64_t r = rng() % 6;
            v = r == 0   ? std::numeric_limits<TimeNs>::max()
                : r == 1 ? std::numeric_limits<TimeNs>::min() + 1
                : r == 2 ? kNo
                : r == 3 ? 0
                         : static_cast<TimeNs>(rng());
            break;
        }
        case 3:
            v = -5;
            break;
        case 5:
            v = rng() % 2 ? kNo : kT0 + static_cast<TimeNs>(rng() % 100'000) * kSec;
            break;
        case 6: {
            const std::size_t block = static_cast<std::size_t>(i) / PackedColumn::kBlock;
            const unsigned k = static_cast<unsigned>(block / 2 + 1); // 1..64
            const std::uint64_t range = k == 64 ? ~std::uint64_t{1} // 2^64 - 2: the widest there is
                                                : (std::uint64_t{1} << k) - 2 + block % 2;
            const std::uint64_t lo = static_cast<std::uint64_t>(kNo) + 1;
            const std::size_t at = static_cast<std::size_t>(i) % PackedColumn::kBlock;
            const std::uint64_t off = at == 0 ? 0 : at == 1 ? range : rng() % (range + 1);
            v = at % 17 == 5 ? kNo : static_cast<TimeNs>(lo + off);
            break;
        }
        default:
            break;
        }
        want.push_back(v);
    }
    PackedColumn c;
    for (TimeNs v : want)
        c.push_back(v);
    QCOMPARE(c.size(), want.size());
    QCOMPARE(c.empty(), want.empty());
    for (std::size_t i = 0; i < want.size(); ++i)
        if (c[i] != want[i])
            QFAIL(qPrintable(
                QStringLiteral("value %1: %2, stored %3").arg(i).arg(want[i]).arg(c[i])));
    // The same values a block at a time, the open last block included.
    std::vector<TimeNs> block(PackedColumn::kBlock);
    std::size_t decoded = 0;
    for (std::size_t k = 0;; ++k) {
        const std::size_t got = c.decodeBlock(k, block.data());
        if (got == 0)
            break;
        for (std::size_t j = 0; j < got; ++j)
            if (block[j] != want[decoded + j])
                QFAIL(qPrintable(QStringLiteral("block %1 value %2: %3, decoded %4")
                                     .arg(k)
                                     .arg(j)
                                     .arg(want[decoded + j])
                                     .arg(block[j])));
        decoded += got;
    }
    QCOMPARE(decoded, want.size());
    if (n > 0) {
        const double perValue = double(c.bytesHeld()) / n;
        QVERIFY2(perValue <= maxBytesPerValue,
                 qPrintable(QStringLiteral("%1 bytes a value").arg(perValue)));
    }
}

void TstStats::timeColumnCopies() {
    PackedColumn a;
    for (TimeNs i = 0; i < 10'000; ++i)
        a.push_back(i % 7 == 0 ? kNo : kT0 + i * kMs);
    PackedColumn b = a; // copy
    b.append(a);
    QCOMPARE(b.size(), std::size_t(20'000));
    for (std::size_t i = 0; i < 10'000; ++i) {
        QCOMPARE(b[i], a[i]);
        QCOMPARE(b[i + 10'000], a[i]);
    }
    PackedColumn twice = a;
    twice.append(twice); // onto itself
    QVERIFY(twice == b);
    twice.push_back(1);
    QVERIFY(!(twice == b));
    PackedColumn m = std::move(b);
    QCOMPARE(m.size(), std::size_t(20'000));
    QCOMPARE(m[19'999], a[9'999]);
    QCOMPARE(b.size(), std::size_t(0)); // NOLINT(bugprone-use-after-move): moved-from is empty
    b.push_back(3);                     // and usable
    QCOMPARE(b[0], TimeNs(3));
    m.clear();
    QVERIFY(m.empty());
}

// The table's ordering (ui::Ordering): rowids by id in 13 bits a value,
// shuffled over a million in 20, read through the standard algorithms.
void TstStats::packedColumnAsOrdering() {
    constexpr std::int64_t n = 1'000'000;
    std::vector<std::int64_t> byId(n);
    std::iota(byId.begin(), byId.end(), std::int64_t{1});
    std::vector<std::int64_t> shuffled = byId;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(5));
    const PackedColumn a(byId.begin(), byId.end());
    const PackedColumn b(shuffled.begin(), shuffled.end());
    QVERIFY(std::equal(a.begin(), a.end(), byId.begin(), byId.end()));
    QVERIFY(std::equal(b.begin(), b.end(), shuffled.begin(), shuffled.end()));
    QCOMPARE(b.end() - b.begin(), std::ptrdiff_t(n));
    QVERIFY2(double(a.bytesHeld()) / n <= 1.7, qPrintable(QString::number(a.bytesHeld())));
    QVERIFY2(double(b.bytesHeld()) / n <= 2.6, qPrintable(QString::number(b.bytesHeld())));
    // find, as the model's positionOfRowId() and the loader's locate()
    const std::int64_t last = shuffled.back();
    QCOMPARE(std::find(b.begin(), b.end(), last) - b.begin(), std::ptrdiff_t(n - 1));
    QVERIFY(std::find(b.begin(), b.end(), n + 1) == b.end());
    QCOMPARE(*std::lower_bound(a.begin(), a.end(), 777), std::int64_t(777));
    QCOMPARE((a.begin() + 10)[5], std::int64_t(16));
    // equality, as the poll's sameOrder
    QVERIFY(a == PackedColumn(byId.begin(), byId.end()));
    QVERIFY(!(a == b));
    std::vector<std::int64_t> one = byId;
    one[n / 2] = -1;
    QVERIFY(!(a == PackedColumn(one.begin(), one.end())));
    QVERIFY(!(a == PackedColumn(byId.begin(), byId.end() - 1)));
    // a rowid equal to kNull is a value like any other
    const std::vector<std::int64_t> ends{PackedColumn::kNull, INT64_MAX, 0};
    const PackedColumn e(ends.begin(), ends.end());
    QVERIFY(std::equal(e.begin(), e.end(), ends.begin(), ends.end()));
}

void TstStats::computeSeriesByHand() {
    const TimingColumns c = handColumns();
    const auto series = lq::core::computeSeries(c, kT0, kT0 + 20 * kSec, 5 * kSec);
    QCOMPARE(series.size(), std::size_t(4));
    for (std::size_t i = 0; i < series.size(); ++i)
        QCOMPARE(series[i].start, kT0 + static_cast<TimeNs>(i) * 5 * kSec);
    const std::vector<std::int64_t> arrivals{6, 1, 0, 0}, claims{4, 1, 0, 0},
        completions{2, 1, 0, 0}, failures{0, 0, 1, 0};
    for (std::size_t i = 0; i < series.size(); ++i) {
        QCOMPARE(series[i].arrivals, arrivals[i]);
        QCOMPARE(series[i].claims, claims[i]);
        QCOMPARE(series[i].completions, completions[i]);
        QCOMPARE(series[i].failures, failures[i]);
    }
    // Latency per bucket: waits by lock_time, processing by done_time.
    QCOMPARE(series[0].waitP50, std::optional<TimeNs>(1 * kSec)); // {0.5, 1, 1, 2}: rank 2
    QCOMPARE(series[0].waitP99, std::optional<TimeNs>(2 * kSec));
    QCOMPARE(series[1].waitP50, std::optional<TimeNs>(2 * kSec));
    QCOMPARE(series[0].processingP50, std::optional<TimeNs>(2 * kSec));
    QCOMPARE(series[1].processingP50, std::optional<TimeNs>(4 * kSec));
    QVERIFY(!series[3].waitP50);
    QVERIFY(!series[3].processingP50);
}

void TstStats::computeSeriesSums() {
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<TimeNs> t(0, 3600 * kSec);
    std::uniform_int_distribution<int> st(0, 3);
    std::vector<Row> rows;
    for (int i = 0; i < 5000; ++i) {
        const State s = static_cast<State>(st(rng));
        const TimeNs in = t(rng);
        const TimeNs lock = s == State::Ready ? kNo : in + t(rng) / 10;
        const TimeNs done = s == State::Done || s == State::Failed ? lock + t(rng) / 100 : kNo;
        rows.push_back({s, in, lock, done});
    }
    const TimingColumns c = columns(rows, kT0);
    const TimeNs from = kT0 + 600 * kSec, to = kT0 + 3000 * kSec;
    const TimeNs bucket = lq::core::chooseBucketSize(to - from);
    const auto series = lq::core::computeSeries(c, from, to, bucket);
    QCOMPARE(static_cast<TimeNs>(series.size()), (to - from + bucket - 1) / bucket);
    std::int64_t arrivals = 0, claims = 0, completions = 0, failures = 0;
    for (const TimeBucket& b : series) {
        arrivals += b.arrivals;
        claims += b.claims;
        completions += b.completions;
        failures += b.failures;
    }
    const auto in = [&](TimeNs v) { return v != kNo && v >= from && v < to; };
    std::int64_t ea = 0, ec = 0, ed = 0, ef = 0;
    for (std::size_t i = 0; i < c.size(); ++i) {
        ea += in(c.inTime[i]);
        ec += in(c.lockTime[i]);
        ed += c.state[i] == static_cast<std::int8_t>(State::Done) && in(c.doneTime[i]);
        ef += c.state[i] == static_cast<std::int8_t>(State::Failed) && in(c.doneTime[i]);
    }
    QCOMPARE(arrivals, ea);
    QCOMPARE(claims, ec);
    QCOMPARE(completions, ed);
    QCOMPARE(failures, ef);
}

// More values than one batch of the series gathers: the batches, and the
// blocks of rows each skips, give the percentiles of every bucket exactly,
// also for rows out of time order (a late claim, an old arrival).
void TstStats::computeSeriesBatches() {
    std::mt19937_64 rng(11);
    constexpr int n = 1'500'000;
    constexpr TimeNs bucket = 300 * kSec;
    constexpr std::size_t nb = 120; // ten hours
    TimingColumns c;
    std::vector<std::vector<TimeNs>> waits(nb), procs(nb);
    const auto bucketOf = [](TimeNs t) { return static_cast<std::size_t>((t - kT0) / bucket); };
    for (int i = 0; i < n; ++i) {
        TimeNs in = kT0 + static_cast<TimeNs>(i) * (nb * bucket / n);
        TimeNs wait = static_cast<TimeNs>(rng() % (20 * kSec));
        if (i % 997 == 0)
            wait += static_cast<TimeNs>(rng() % (8 * 3600)) * kSec; // a claim hours late
        if (i % 1009 == 0)
            in = kT0 + static_cast<TimeNs>(rng() % (nb * 300)) * kSec - wait; // out of order
        const TimeNs lock = in + wait;
        const TimeNs done = lock + static_cast<TimeNs>(rng() % (3 * kSec));
        const bool failed = i % 13 == 0;
        c.state.push_back(static_cast<std::int8_t>(failed ? State::Failed : State::Done));
        c.inTime.push_back(in);
        c.lockTime.push_back(lock);
        c.doneTime.push_back(done);
        if (lock >= kT0 && bucketOf(lock) < nb)
            waits[bucketOf(lock)].push_back(wait);
        if (!failed && done >= kT0 && bucketOf(done) < nb)
            procs[bucketOf(done)].push_back(done - lock);
    }
    const auto series = lq::core::computeSeries(c, kT0, kT0 + nb * bucket, bucket);
    QCOMPARE(series.size(), nb);
    for (std::size_t b = 0; b < nb; ++b) {
        std::sort(waits[b].begin(), waits[b].end());
        std::sort(procs[b].begin(), procs[b].end());
        QCOMPARE(series[b].claims, static_cast<std::int64_t>(waits[b].size()));
        QCOMPARE(series[b].waitP50, lq::core::nearestRank(waits[b], 50));
        QCOMPARE(series[b].waitP99, lq::core::nearestRank(waits[b], 99));
        QCOMPARE(series[b].processingP50, lq::core::nearestRank(procs[b], 50));
        QCOMPARE(series[b].processingP99, lq::core::nearestRank(procs[b], 99));
    }
}

void TstStats::chooseBucketSize_data() {
    QTest::addColumn<qint64>("span");
    QTest::addColumn<qint64>("expected");
    QTest::newRow("0") << qint64(0) << qint64(kSec);
    QTest::newRow("60 s") << qint64(60 * kSec) << qint64(kSec);
    QTest::newRow("5 min") << qint64(300 * kSec) << qint64(5 * kSec);
    QTest::newRow("1 h") << qint64(3600 * kSec) << qint64(60 * kSec);
    QTest::newRow("6 h") << qint64(6 * 3600 * kSec) << qint64(300 * kSec);
    QTest::newRow("1 d") << qint64(86400 * kSec) << qint64(900 * kSec);
    QTest::newRow("4 d") << qint64(4 * 86400 * kSec) << qint64(3600 * kSec);
    QTest::newRow("20 d") << qint64(20 * 86400 * kSec) << qint64(6 * 3600 * kSec);
    QTest::newRow("1 y") << qint64(365 * 86400 * kSec) << qint64(86400 * kSec);
}

void TstStats::chooseBucketSize() {
    QFETCH(qint64, span);
    QFETCH(qint64, expected);
    QCOMPARE(lq::core::chooseBucketSize(span), expected);
    QCOMPARE(lq::core::chooseBucketSize(span * 2, 240), expected);
}

void TstStats::humanDuration_data() {
    QTest::addColumn<qint64>("ns");
    QTest::addColumn<QString>("text");
    QTest::newRow("850 ms") << qint64(850 * kMs) << QStringLiteral("850 ms");
    QTest::newRow("2.4 s") << qint64(2400 * kMs) << QStringLiteral("2.4 s");
    QTest::newRow("3 h 12 m") << qint64((3 * 3600 + 12 * 60) * kSec) << QStringLiteral("3 h 12 m");
    QTest::newRow("4 d 2 h") << qint64((4 * 86400 + 2 * 3600) * kSec) << QStringLiteral("4 d 2 h");
}

void TstStats::humanDuration() {
    QFETCH(qint64, ns);
    QFETCH(QString, text);
    QCOMPARE(lq::core::humanDuration(ns), toStd(text));
    QVERIFY(!lq::core::humanDuration(0).empty());
    QVERIFY(!lq::core::humanDuration(-5 * kSec).empty());
}

void TstStats::parseTimeArg_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("expected"); // -1: rejected
    QTest::newRow("ns") << QStringLiteral("1741946700137482911") << qint64(1741946700137482911);
    QTest::newRow("ISO with ns") << QStringLiteral("2025-03-14T10:05:00.137482911Z")
                                 << qint64(1741946700137482911);
    QTest::newRow("ISO seconds") << QStringLiteral("2025-03-14T10:05:00Z")
                                 << qint64(1741946700000000000);
    QTest::newRow("ISO ms") << QStringLiteral("2025-03-14T10:05:00.5Z")
                            << qint64(1741946700500000000);
    QTest::newRow("ISO +02:00") << QStringLiteral("2025-03-14T12:05:00+02:00")
                                << qint64(1741946700000000000);
    QTest::newRow("ISO -05:30") << QStringLiteral("2025-03-14T04:35:00-05:30")
                                << qint64(1741946700000000000);
    QTest::newRow("seed reference")
        << QStringLiteral("2025-03-16T12:00:00Z") << qint64(1742126400) * kSec;
    QTest::newRow("empty") << QString() << qint64(-1);
    QTest::newRow("garbage") << QStringLiteral("yesterday") << qint64(-1);
    QTest::newRow("bad date") << QStringLiteral("2025-13-40T00:00:00Z") << qint64(-1);
    QTest::newRow("trailing junk") << QStringLiteral("123abc") << qint64(-1);
}

void TstStats::parseTimeArg() {
    QFETCH(QString, text);
    QFETCH(qint64, expected);
    QCOMPARE(lq::core::parseTimeArg(toStd(text)),
             expected < 0 ? std::nullopt : std::optional<TimeNs>(expected));
}

void TstStats::isoUtc() {
    QCOMPARE(lq::core::isoUtc(1741946700137482911), std::string("2025-03-14T10:05:00.137482911Z"));
    QCOMPARE(lq::core::parseTimeArg(lq::core::isoUtc(kT0 + 123)), std::optional<TimeNs>(kT0 + 123));
    QCOMPARE(lq::core::humanBytes(12'897'485), std::string("12.3 MiB"));
}

void TstStats::jsonRoundTrip_data() {
    QTest::addColumn<QString>("text");
    QTest::newRow("object") << QStringLiteral(
        R"({"b":1,"a":[true,false,null,1.5,"x\"y\n"],"c":{"d":-9223372036854775808}})");
    QTest::newRow("ns") << QStringLiteral(R"({"t":1741946700137482911})");
    QTest::newRow("nested") << QStringLiteral(R"([[[[]]],{},{"":""}])");
    QTest::newRow("unicode") << QStringLiteral(R"(["\u00e9\ud83d\ude00","é😀"])");
    QTest::newRow("scalar") << QStringLiteral("\"just a string\"");
}

void TstStats::jsonRoundTrip() {
    QFETCH(QString, text);
    const Json j = Json::parse(text.toStdString());
    const std::string once = j.dump();
    QVERIFY(isValidUtf8(once));
    const std::string twice = Json::parse(once).dump();
    QCOMPARE(twice, once);
    // Pretty output parses to the same value.
    QCOMPARE(Json::parse(j.dump(2)).dump(), once);
    // The same text Qt reads.
    QJsonParseError err{};
    QJsonDocument::fromJson(QByteArray::fromStdString(once), &err);
    if (!text.startsWith(QLatin1Char('"')))
        QCOMPARE(err.error, QJsonParseError::NoError);
}

void TstStats::jsonValues() {
    const Json j = Json::parse(
        R"({"b":1,"a":[true,false,null,1.5,"x\"y\n"],"c":{"d":-9223372036854775808},"t":1741946700137482911,"e":1e3,"u":"\u00e9\ud83d\ude00"})");
    QVERIFY(j.isObject());
    QCOMPARE(j.toObject().front().first, std::string("b")); // insertion order kept
    QCOMPARE(j["b"].toInt(), 1);
    QVERIFY(j["t"].isInt());
    QCOMPARE(j["t"].toInt(), 1741946700137482911);
    QCOMPARE(j["c"]["d"].toInt(), std::numeric_limits<std::int64_t>::min());
    QVERIFY(j["e"].isNumber());
    QCOMPARE(j["e"].toDouble(), 1000.0);
    QCOMPARE(j["a"].toArray().size(), std::size_t(5));
    QVERIFY(j["a"].toArray()[0].toBool());
    QVERIFY(j["a"].toArray()[2].isNull());
    QCOMPARE(j["a"].toArray()[3].toDouble(), 1.5);
    QCOMPARE(j["a"].toArray()[4].toString(), std::string("x\"y\n"));
    QCOMPARE(j["u"].toString(), std::string("\xc3\xa9\xf0\x9f\x98\x80"));
    QVERIFY(j["missing"].isNull());
    QVERIFY(!j.contains("missing"));
    QVERIFY(j.contains("a"));

    // Doubles survive a round trip exactly.
    for (double d : {0.1, 1.0 / 3.0, 1e-300, 123456789.123456789, -2.5})
        QCOMPARE(Json::parse(Json(d).dump()).toDouble(), d);

    // Building and escaping.
    Json o = Json::object();
    o.set("ctl", std::string("a\x01"
                             "b"));
    o.set("bad", std::string("ab\xff"));
    o.set("n", std::int64_t(-7));
    o.set("n", 8); // replaces
    Json arr = Json::array();
    arr.push(1).push("two");
    o.set("arr", arr);
    const std::string text = o.dump();
    QVERIFY(isValidUtf8(text));
    QVERIFY2(contains(text, "\\u0001"), text.c_str());
    const Json back = Json::parse(text);
    QCOMPARE(back["ctl"].toString(), std::string("a\x01"
                                                 "b"));
    QCOMPARE(back["bad"].toString(), std::string("ab\xef\xbf\xbd")); // U+FFFD
    QCOMPARE(back["n"].toInt(), 8);
    QCOMPARE(back.toObject().size(), std::size_t(4));
    QCOMPARE(back["arr"].toArray().size(), std::size_t(2));

    std::string esc;
    jsonEscape(esc, "q\"\\\n");
    QCOMPARE(esc, std::string("\"q\\\"\\\\\\n\""));
}

void TstStats::jsonInvalid_data() {
    QTest::addColumn<QByteArray>("text");
    const char* bad[] = {"",        " ",        "{",        "}",     "[1,]",      "{\"a\":1,}",
                         "{\"a\"}", "{\"a\":}", "tru",      "nul",   "\"abc",     "\"\\q\"",
                         "01",      "1.",       ".5",       "+1",    "[1] 2",     "{'a':1}",
                         "NaN",     "[",        "\"\x01\"", "[1 2]", "{\"a\" 1}", "-",
                         "-01",     "1.e5",     "[01]"};
    for (const char* b : bad)
        QTest::newRow(b[0] ? b : "(empty)") << QByteArray(b);
}

void TstStats::jsonInvalid() {
    QFETCH(QByteArray, text);
    LQ_EXPECT_ERROR(Json::parse(text.toStdString()), ErrorKind::InvalidArgument, "");
}

void TstStats::utf8_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("valid");
    QTest::newRow("ascii") << QByteArray("hello") << true;
    QTest::newRow("empty") << QByteArray() << true;
    QTest::newRow("2-byte") << QByteArray("\xc3\xa9") << true;
    QTest::newRow("4-byte") << QByteArray("\xf0\x9f\x98\x80") << true;
    QTest::newRow("NUL") << QByteArray("a\0b", 3) << true;
    QTest::newRow("lone 0xff") << QByteArray("\xff") << false;
    QTest::newRow("truncated") << QByteArray("\xc3") << false;
    QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80") << false;
    QTest::newRow("overlong") << QByteArray("\xc0\xaf") << false;
    QTest::newRow("above U+10FFFF") << QByteArray("\xf4\x90\x80\x80") << false;
}

void TstStats::utf8() {
    QFETCH(QByteArray, bytes);
    QFETCH(bool, valid);
    QCOMPARE(
        isValidUtf8(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size()))),
        valid);
}

QTEST_GUILESS_MAIN(TstStats)
#include "tst_stats.moc"
