// SPDX-License-Identifier: MIT
// Wait time where a format stores a due time (docs/FORMATS.md#solid-queue, §2.4, §4.4,
// §5.4): wait = claim - due, not claim - enqueue. A job delayed or
// rescheduled before its claim waited only from its due time; a claim from
// before the due time is an earlier attempt's and has no wait. The same
// definition holds for the row (Message::waitNs), the statistics, the sort
// by wait and the histogram band filter.
//
// The expected figures were computed from the fixtures with the sqlite3
// shell, e.g. for Oban:
//   SELECT id, (julianday(attempted_at) - julianday(scheduled_at)) * 86400
//   FROM oban_jobs WHERE attempted_at IS NOT NULL ORDER BY 2 DESC
#include "core/queue.h"
#include "core/stats.h"
#include "testutil.h"

#include <QObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace lq::core;

namespace {

constexpr TimeNs kMs = 1'000'000;

} // namespace

class TstWaitTime : public QObject {
    Q_OBJECT

private slots:
    /// The dashboard's wait over time and its wait histogram are one
    /// measure: over one bucket that spans every claim, the chart's p50 and
    /// p99 are the histogram's (both from the due time where it is stored).
    void waitOverTimeIsTheHistogramsWait_data() {
        QTest::addColumn<QString>("fixture");
        for (const char* f : {"formats/solid-queue.sqlite3", "formats/laravel-database.sqlite3",
                              "formats/oban-lite.sqlite3", "formats/river-v7.sqlite3",
                              "formats/delayed-job.sqlite3", "formats/symfony-messenger.sqlite3",
                              "formats/django-tasks-db.sqlite3", "formats/hangfire-sqlite.sqlite3",
                              "litequeue-head-mixed.sqlite3"})
            QTest::newRow(f) << QString::fromLatin1(f);
    }
    void waitOverTimeIsTheHistogramsWait() {
        QFETCH(QString, fixture);
        QTemporaryDir dir;
        const std::string path = lqtest::copyFixture(dir, fixture);
        OpenOptions o;
        o.readOnly = true;
        auto q = Queue::open(path, o);
        const TimingColumns cols = q->timing({});
        const QueueStats st = computeStats(cols, q->now());
        QVERIFY(st.wait.count > 0);
        QVERIFY(st.firstTime && st.lastTime);
        const TimeNs from = *st.firstTime, to = *st.lastTime + 1;
        const auto series = computeSeries(cols, from, to, to - from);
        QCOMPARE(series.size(), std::size_t(1));
        QCOMPARE(series.front().waitP50, st.wait.p50);
        QCOMPARE(series.front().waitP99, st.wait.p99);
    }

    void waitStartsAtTheDueTime_data() {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<qint64>("count");    // claims at or after their due time
        QTest::addColumn<QString>("longest"); // the job with the longest wait
        QTest::addColumn<qint64>("maxMs");    // its wait
        QTest::addColumn<QString>("delayed"); // a job due after it was enqueued
        QTest::addColumn<qint64>("delayedMs");
        // jobs 20 (created 1796038200, available 1796038800, reserved
        // 1796039970) and 21 (1796039760, 1796039760, 1796039820).
        QTest::newRow("laravel") << "formats/laravel-database.sqlite3" << qint64(2) << "jobs:20"
                                 << qint64(1170'000) << "jobs:20" << qint64(1170'000);
        // 15 of 18 attempted jobs; 14, 18 and 19 are waiting for a retry
        // (scheduled_at after attempted_at). Job 11: enqueued 09:00, due
        // 11:00:00.001590, attempted 11:00:00.004514.
        QTest::newRow("oban") << "formats/oban-lite.sqlite3" << qint64(15) << "5"
                              << qint64(14042'583) << "11" << qint64(2);
        // 15 of 19 attempted; 12, 14, 15 and 20 are due again later. Job 10:
        // due 08:05:02.45, attempted 08:06:01.455.
        QTest::newRow("river") << "formats/river-v7.sqlite3" << qint64(15) << "6"
                               << qint64(14349'993) << "10" << qint64(59'005);
        // Delayed::Job: wait = locked_at - run_at of the 3 locked and the 2
        // failed jobs (fail! keeps the lock of the last run). Job 1: due
        // 07:00:00.0015, locked 07:30:12.350178 by the crashed worker; job 6
        // due for its retry 09:10:21.009, locked 09:20:00.0045.
        QTest::newRow("delayed-job") << "formats/delayed-job.sqlite3" << qint64(5) << "1"
                                     << qint64(1812'348) << "6" << qint64(578'995);
        // Symfony Messenger: wait = delivered_at - available_at of the 2
        // delivered messages. Message 1: due 07:00, delivered 07:30 to the
        // worker that died; message 16: due 11:30, delivered 11:40.
        QTest::newRow("symfony-messenger") << "formats/symfony-messenger.sqlite3" << qint64(2)
                                           << "1" << qint64(1800'000) << "16" << qint64(600'000);
        // django-tasks-db: wait = started_at - max(enqueued_at, run_after) of
        // the 10 claimed tasks. 7cae94a3...: enqueued 11:59:50, started
        // 11:59:58.5; 36ebf809...: enqueued 08:00 for run_after 09:00,
        // started 09:00:01.5.
        QTest::newRow("django-tasks-db")
            << "formats/django-tasks-db.sqlite3" << qint64(10) << "7cae94a3218c4610b0efce31ff1eb869"
            << qint64(8'500) << "36ebf809dfd8438fab874ceb94d3de56" << qint64(1'500);
    }
    void waitStartsAtTheDueTime() {
        QFETCH(QString, fixture);
        QFETCH(qint64, count);
        QFETCH(QString, longest);
        QFETCH(qint64, maxMs);
        QFETCH(QString, delayed);
        QFETCH(qint64, delayedMs);
        QTemporaryDir dir;
        OpenOptions o;
        o.readOnly = true;
        auto q = Queue::open(lqtest::copyFixture(dir, fixture), o);

        const QueueStats st = q->stats();
        QCOMPARE(st.wait.count, count);
        QVERIFY(st.wait.max);
        QCOMPARE(*st.wait.max / kMs, maxMs);

        const auto row = [&](const QString& id) {
            for (const Message& m : q->list({}, {}, 0, -1))
                if (m.messageId == id.toStdString() ||
                    m.messageId.ends_with(":" + id.toStdString()))
                    return m;
            throw std::runtime_error("no job " + id.toStdString());
        };
        QCOMPARE(*row(longest).waitNs(), *st.wait.max);
        QCOMPARE(*row(delayed).waitNs() / kMs, delayedMs);

        // Every row's wait agrees with the statistics.
        qint64 rows = 0;
        for (const Message& m : q->list({}, {}, 0, -1))
            if (const auto w = m.waitNs()) {
                QVERIFY2(*w >= 0, m.messageId.c_str());
                ++rows;
            }
        QCOMPARE(rows, count);

        // The sort by wait puts the longest first.
        const auto byWait = q->list({}, {SortKey::Wait, true}, 0, 1);
        QCOMPARE(byWait.size(), std::size_t(1));
        QCOMPARE(byWait.front().messageId, row(longest).messageId);

        // The histogram band filter counts the same waits (its SQL computes
        // in floating-point seconds: bands of a millisecond here).
        Filter band;
        band.metric = Filter::Metric::Wait;
        band.metricLo = 0;
        band.metricHi = *st.wait.max + kMs;
        QCOMPARE(q->count(band), count);
        band.metricLo = *st.wait.max - kMs;
        QCOMPARE(q->count(band), qint64(1));
    }
};

QTEST_GUILESS_MAIN(TstWaitTime)
#include "tst_waittime.moc"
