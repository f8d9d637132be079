// SPDX-License-Identifier: MIT
// Schedules as Solid Queue reads them through Fugit (core/cron.h): cron
// lines, @-shorthands, and Fugit's natural-language forms, against Fugit's
// own examples in floraison/fugit@efda655251c2ae86780f7e472a61653b5b4b528b:
// test/_nat_single_crons.txt (every row), test/nat_test.rb (multi: and the
// rejected inputs) and test/cron_test.rb (NEXT_TIMES, PREVIOUS_TIMES; the
// rows in UTC without '%' weekdays).
#include "core/cron.h"
#include "core/timefmt.h"

#include <QTest>

using namespace lq::core;

namespace {

TimeNs at(const char* iso) {
    const auto t = parseTimeArg(iso);
    if (!t)
        qFatal("bad time %s", iso);
    return *t;
}

QByteArray iso(std::optional<TimeNs> t) {
    return t ? QByteArray::fromStdString(isoUtc(*t)) : QByteArray("none");
}

} // namespace

class TestCron : public QObject {
    Q_OBJECT
private slots:
    /// test/_nat_single_crons.txt: each natural form and the cron line
    /// Fugit::Nat.parse gives for it (its `original`).
    void natural_data() {
        QTest::addColumn<QByteArray>("nat");
        QTest::addColumn<QByteArray>("cron");
        const auto row = [](const char* nat, const char* cron) {
            QTest::newRow(nat) << QByteArray(nat) << QByteArray(cron);
        };
        row("every day at five", "0 5 * * *");
        row("every weekday", "0 0 * * 1-5");
        row("every weekday at five", "0 5 * * 1-5");
        row("every weekday at five pm", "0 17 * * 1-5");
        row("every day at 5 pm", "0 17 * * *");
        row("every monday", "0 0 * * 1");
        row("every tuesday at 5 pm", "0 17 * * 2");
        row("every wed at 5 pm", "0 17 * * 3");
        row("every day at 16:30", "30 16 * * *");
        row("every day at noon", "0 12 * * *");
        row("every day at midnight", "0 0 * * *");
        row("every day at 5 pm on America/Bogota", "0 17 * * * America/Bogota");
        row("every day at 5 pm in Asia/Tokyo", "0 17 * * * Asia/Tokyo");
        row("every day at 5 pm in Etc/GMT-11", "0 17 * * * Etc/GMT-11");
        row("every day at 5 pm in Etc/GMT+5", "0 17 * * * Etc/GMT+5");
        row("every 3h", "0 */3 * * *");
        row("every 3 hours", "0 */3 * * *");
        row("every 4M", "0 0 1 */4 *");
        row("every 4 months", "0 0 1 */4 *");
        row("every 5m", "*/5 * * * *");
        row("every 5 min", "*/5 * * * *");
        row("every 5 minutes", "*/5 * * * *");
        row("every 15s", "*/15 * * * * *");
        row("every 15 sec", "*/15 * * * * *");
        row("every 15 seconds", "*/15 * * * * *");
        row("every 1 h", "0 * * * *");
        row("every 12 hours at minute 50", "50 */12 * * *");
        row("every 12h at min 50", "50 */12 * * *");
        row("every 1st of the month at midnight", "0 0 1 * *");
        row("every first of the month at midnight", "0 0 1 * *");
        row("Every 2nd of the month at 10:00", "0 10 2 * *");
        row("Every second of the month at 10:00", "0 10 2 * *");
        row("every month on day 2 at 10:00", "0 10 2 * *");
        row("every month on day 2 and 5 at 10:00", "0 10 2,5 * *");
        row("every month on days 1,15 at 10:00", "0 10 1,15 * *");
        row("every month on the 1st at 11:00", "0 11 1 * *");
        row("every 15th of the month", "0 0 15 * *");
        row("every month on the 1st and 2nd at 12:00 pm", "0 12 1,2 * *");
        row("every month on the 1st and the 2nd at 12:00 pm", "0 12 1,2 * *");
        row("every month on the 1st and the second at 12:00 pm", "0 12 1,2 * *");
        row("every month on the 1st and last at 12:00 pm", "0 12 1,L * *");
        row("every month on the 1st and the last at 12:00 pm", "0 12 1,L * *");
        row("every day at 6pm and 8pm", "0 18,20 * * *");
        row("every day at 6pm and 8pm UTC", "0 18,20 * * * UTC");
        row("every day at 18:00 and 20:00", "0 18,20 * * *");
        row("every day at 18:00 and 20:00 UTC", "0 18,20 * * * UTC");
        row("every day at 8:30", "30 8 * * *");
        row("every day at 08:30", "30 8 * * *");
        row("every day at 8:30 am", "30 8 * * *");
        row("every day at 08:30 am", "30 8 * * *");
        row("every day at 8:30 AM", "30 8 * * *");
        row("every day at 8:30 pm", "30 20 * * *");
        row("every day at 08:30 pm", "30 20 * * *");
        row("every day at 08:30 PM", "30 20 * * *");
        row("every day at 5pm", "0 17 * * *");
        row("every day at 5:00pm", "0 17 * * *");
        row("every day at 5:00 pm", "0 17 * * *");
        row("every day at 12am", "0 0 * * *");
        row("every day at 12pm", "0 12 * * *");
        row("every day at 12:00am", "0 0 * * *");
        row("every day at 12:00pm", "0 12 * * *");
        row("every day at 12:00 am", "0 0 * * *");
        row("every day at 12:00 pm", "0 12 * * *");
        row("every day at 12:15am", "15 0 * * *");
        row("every day at 12:15pm", "15 12 * * *");
        row("every day at 12:15 am", "15 0 * * *");
        row("every day at 12:15 pm", "15 12 * * *");
        row("every day at 12 noon", "0 12 * * *");
        row("every day at 12 midnight", "0 24 * * *");
        row("every day at 12:00 noon", "0 12 * * *");
        row("every day at 12:00 midnight", "0 24 * * *");
        row("every day at 12:15 noon", "15 12 * * *");
        row("every day at 12:15 midnight", "15 24 * * *");
        row("every friday and thursday", "0 0 * * 4,5");
        row("every tuesday and monday at 5pm", "0 17 * * 1,2");
        row("every wed or Monday at 5pm and 11", "0 11,17 * * 1,3");
        row("every Mon,Tue,Wed,Thu,Fri at 18:00", "0 18 * * 1,2,3,4,5");
        row("every Mon, Tue, and Wed at 18:15", "15 18 * * 1,2,3");
        row("every Mon to Thu at 18:20", "20 18 * * 1-4");
        row("every Mon to Thu, 18:20", "20 18 * * 1-4");
        row("every mon-thu at 18:20", "20 18 * * 1-4");
        row("every Monday to Thursday at 18:20", "20 18 * * 1-4");
        row("every Monday through Friday at 19:20", "20 19 * * 1-5");
        row("from Monday through Friday at 19:21", "21 19 * * 1-5");
        row("from Monday to Friday at 19:22", "22 19 * * 1-5");
        row("every day at 18:00 and 18:15", "0,15 18 * * *");
        row("every day at 18:00, 18:15", "0,15 18 * * *");
        row("every day at 18:00, 18:15, 20:00, and 20:15", "0,15 18,20 * * *");
        row("every second", "* * * * * *");
        row("every 1 second", "* * * * * *");
        row("every minute", "* * * * *");
        row("every 1 minute", "* * * * *");
        row("every hour", "0 * * * *");
        row("every 1 hour", "0 * * * *");
        row("every day", "0 0 * * *");
        row("every 1 day", "0 0 * * *");
        row("every week", "0 0 * * 0");
        row("every 1 week", "0 0 * * 0");
        row("every month", "0 0 1 * *");
        row("every 1 month", "0 0 1 * *");
        row("every year", "0 0 1 1 *");
        row("every 1 year", "0 0 1 1 *");
        row("every minute at second 10", "10 * * * * *");
        row("every minute at second 10 and 40", "10,40 * * * * *");
        row("every minute at secs 10 and 40", "10,40 * * * * *");
        row("every hour at min 11", "11 * * * *");
        row("every day at 18:22", "22 18 * * *");
        row("every week on monday 18:23", "23 18 * * 1");
        row("every monday 18:24", "24 18 * * 1");
        row("every month at 19:10", "10 19 1 * *");
        row("every year at 20:10", "10 20 1 1 *");
        row("every day at zero dark twenty", "20 0 * * *");
        row("every day at zero dark forty", "40 0 * * *");
        row("every day at oh dark forty", "40 0 * * *");
        row("every day at one dark fifty", "50 1 * * *");
        row("every day at noon", "0 12 * * *");
        row("every day at midnight", "0 0 * * *");
        row("every 2 days", "0 0 */2 * *");
        row("every 2 days at 17:00", "0 17 */2 * *");
        row("every 2 months", "0 0 1 */2 *");
        row("every day from the 25th to the last", "0 0 25-L * *");
        row("every day at noon from the 25th to the last", "0 12 25-L * *");
        row("from the 25th to the last", "0 0 25-L * *");
        row("from the 25th to the last, at noon and midnight", "0 0,12 25-L * *");
        row("every second starting at second 10", "10/1 * * * * *");
        row("every second from second 10", "10/1 * * * * *");
        row("every 15 minutes starting at minute 1", "1/15 * * * *");
        row("every hour starting at hour 8", "0 8/1 * * *");
        row("every 5 days starting at day 3", "0 0 3/5 * *");
        row("every month starting at month 6", "0 0 1 6/1 *");
        row("every weekday 8am to 5pm", "0 8-17 * * 1-5");
        row("every weekday 8am to 5pm on the hour", "0 8-17 * * 1-5");
        row("every weekday 8am to 5pm on the minute", "* 8-16 * * 1-5");
        row("every weekday 8am to 5pm on minute 10 and 30", "10,30 8-16 * * 1-5");
        row("every hour, 8am to 5pm", "0 8-17 * * *");
        row("every hour, from 8am to 5pm", "0 8-17 * * *");
        row("every minute, 8am to 5pm", "* 8-16 * * *");
        row("every minute from 8am to 5pm", "* 8-16 * * *");
        row("at 12:00 PM", "0 12 * * *");
        row("at 12:00PM", "0 12 * * *");
        row("at 12 PM", "0 12 * * *");
        row("at 12PM", "0 12 * * *");
        row("at 12:00 pm", "0 12 * * *");
        row("at 12:00pm", "0 12 * * *");
        row("at 12 pm", "0 12 * * *");
        row("at 12pm", "0 12 * * *");
        row("at noon", "0 12 * * *");
        row("at 12 noon", "0 12 * * *");
        row("at 12 Noon", "0 12 * * *");
        row("at 12 NOON", "0 12 * * *");
        row("at 12 midday", "0 12 * * *");
        row("at 12 midnight", "0 24 * * *");
        row("every 17 hours", "0 */17 * * *");
        row("every day at midnight America/Los_Angeles", "0 0 * * * America/Los_Angeles");
        row("every 60 minutes", "*/60 * * * *");
        // test/nat_test.rb: gh-27, and multi: :fail on a single cron (gh-28).
        row("every Fri-Sun at 18:00 UTC", "0 18 * * 5-0 UTC");
        row("every 1 hour", "0 * * * *");
        // The examples, read by the same rules.
        row("at 7am every day", "0 7 * * *");
        row("every monday at 9am", "0 9 * * 1");
        row("every day at noon", "0 12 * * *");
    }
    void natural() {
        QFETCH(QByteArray, nat);
        QFETCH(QByteArray, cron);
        std::string why;
        const auto got = cron::naturalToCron(nat.toStdString(), &why);
        QVERIFY2(got, why.c_str());
        QCOMPARE(QByteArray::fromStdString(*got), cron);
        // Solid Queue takes it as its schedule unless its zone is a named
        // one with daylight saving, which this code does not evaluate.
        const auto s = cron::parse(nat.toStdString(), &why);
        if (cron.contains("America/") || cron.contains("Asia/")) {
            QVERIFY(!s);
            QVERIFY(why.find("not evaluated") != std::string::npos);
        } else {
            QVERIFY2(s, why.c_str());
            QCOMPARE(QByteArray::fromStdString(s->cron), cron);
        }
    }

    /// test/nat_test.rb: inputs Fugit::Nat rejects, and "multi: :fail"
    /// (Solid Queue's option) on a form that needs two crons.
    void refused_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QByteArray>("reason");
        QTest::newRow("nada") << QByteArray("nada") << QByteArray("not a cron");
        QTest::newRow("2 years") << QByteArray("every 2 years") << QByteArray("not a cron");
        QTest::newRow("2 weeks") << QByteArray("every 2 weeks") << QByteArray("not a cron");
        QTest::newRow("100 minutes") << QByteArray("every 100 minutes") << QByteArray("not a cron");
        QTest::newRow("multi") << QByteArray("every day at 18:15 and 20:45")
                               << QByteArray("more than one cron");
        QTest::newRow("too long") << QByteArray(5000, 'a') << QByteArray("256");
        QTest::newRow("reboot") << QByteArray("@reboot") << QByteArray("boot");
        QTest::newRow("random") << QByteArray("0~30 * * * *") << QByteArray("random");
        QTest::newRow("modulo") << QByteArray("0 9 * * sun%2") << QByteArray("modulo");
        QTest::newRow("named zone")
            << QByteArray("0 9 * * * Europe/Paris") << QByteArray("Europe/Paris is not evaluated");
        QTest::newRow("feb 30") << QByteArray("0 0 30 2 *") << QByteArray("no month");
        QTest::newRow("minute 60") << QByteArray("60 * * * *") << QByteArray("not a cron");
        QTest::newRow("four fields") << QByteArray("* * * *") << QByteArray("not a cron");
    }
    void refused() {
        QFETCH(QByteArray, text);
        QFETCH(QByteArray, reason);
        std::string why;
        QVERIFY(!cron::parse(text.toStdString(), &why));
        QVERIFY2(why.find(reason.toStdString()) != std::string::npos, why.c_str());
    }

    /// test/cron_test.rb NEXT_TIMES (now 2017-01-02 12:00:00 unless given).
    void nextTime_data() {
        QTest::addColumn<QByteArray>("cron");
        QTest::addColumn<QByteArray>("now");
        QTest::addColumn<QByteArray>("next");
        const auto row = [](const char* c, const char* next, const char* now) {
            QTest::newRow(QByteArray(c).append(" after ").append(now).constData())
                << QByteArray(c) << QByteArray(now) << QByteArray(next);
        };
        const char* const kNow = "2017-01-02T12:00:00Z";
        row("* * * * *", "2017-01-02T12:01:00Z", kNow);
        row("5 0 * * *", "2017-01-03T00:05:00Z", kNow);
        row("15 14 1 * *", "2017-02-01T14:15:00Z", kNow);
        row("0 0 1 1 *", "2018-01-01T00:00:00Z", kNow);
        row("* * 29 * *", "2017-01-29T00:00:00Z", kNow);
        row("* * 29 * *", "2016-02-29T00:00:00Z", "2016-02-01T00:00:00Z");
        row("* * L * *", "2016-02-29T00:00:00Z", "2016-02-01T00:00:00Z");
        row("* * last * *", "2016-02-29T00:00:00Z", "2016-02-01T00:00:00Z");
        row("* * -1 * *", "2016-02-29T00:00:00Z", "2016-02-01T00:00:00Z");
        row("0 0 -4,-3 * *", "2016-02-26T00:00:00Z", "2016-02-01T00:00:00Z");
        row("0 0 -4,-3 * *", "2016-02-27T00:00:00Z", "2016-02-26T12:00:00Z");
        row("* * * * sun", "2017-01-08T00:00:00Z", kNow);
        row("* * -2 * *", "2017-01-30T00:00:00Z", kNow);
        row("* * * * mon#2", "2017-01-09T00:00:00Z", kNow);
        row("* * * * mon#-1", "2017-01-30T00:00:00Z", kNow);
        row("* * * * tue#L", "2017-01-31T00:00:00Z", kNow);
        row("* * * * mon#2,tue", "2016-12-06T00:00:00Z", "2016-12-01T00:00:00Z");
        row("0 0 * * mon#2,tue", "2017-01-31T00:00:00Z", "2017-01-30T00:00:00Z");
        row("00 24 * * *", "2017-01-02T00:00:00Z", "2017-01-01T12:00:00Z");
        row("30 04 1,15 * 5", "2017-01-06T04:30:00Z", "2017-01-03T00:00:00Z");
        row("30 04 1,15 * 5", "2017-01-15T04:30:00Z", "2017-01-14T00:00:00Z");
        row("0 9 29 feb *", "2016-02-29T09:00:00Z", "2016-01-23T00:00:00Z");
        row("59 6 1-7 * 2", "2020-03-17T06:59:00Z", "2020-03-15T07:29:00Z");
        row("59 6 1-7 * 2", "2020-03-01T06:59:00Z", "2020-02-29T07:29:00Z");
        row("0 0 29 2 sat,sun", "2022-02-05T00:00:00Z", "2021-12-27T09:47:00Z");
        row("0 0 11 * 3-6", "2021-12-29T00:00:00Z", "2021-12-27T09:47:00Z");
        row("15/30 * * * *", "2021-02-09T19:15:00Z", "2021-02-09T19:00:00Z");
        row("15-40/30 * * * *", "2021-02-09T20:15:00Z", "2021-02-09T19:30:00Z");
        row("30 18 * * 2#5", "2022-03-29T18:30:00Z", "2022-03-08T00:00:00Z");
        row("0 0 */2 * 1-5", "2022-08-10T00:00:00Z", "2022-08-09T00:00:00Z");
        row("0 0 */2 * 1-5&", "2022-08-11T00:00:00Z", "2022-08-09T00:00:00Z");
        row("59 6 1-7& * 2", "2020-04-07T06:59:00Z", "2020-03-15T00:00:00Z");
        // Beside Fugit's table: seconds, shorthands, a wrapping range, a
        // fixed offset, and the fixture's schedule.
        row("*/15 * * * * *", "2017-01-02T12:00:15Z", kNow);
        row("@hourly", "2017-01-02T13:00:00Z", kNow);
        row("@daily", "2017-01-03T00:00:00Z", kNow);
        row("@weekly", "2017-01-08T00:00:00Z", kNow);
        row("0 22-2/2 * * *", "2017-01-02T22:00:00Z", kNow);
        row("0 9 * * * +09:00", "2017-01-03T00:00:00Z", kNow);
        row("0 9 * * * Etc/GMT-9", "2017-01-03T00:00:00Z", kNow);
        row("every hour at minute 12", "2026-11-30T12:12:00Z", "2026-11-30T12:00:00Z");
        row("every hour at minute 12", "2026-11-30T13:12:00Z", "2026-11-30T12:12:00Z");
    }
    void nextTime() {
        QFETCH(QByteArray, cron);
        QFETCH(QByteArray, now);
        QFETCH(QByteArray, next);
        std::string why;
        const auto s = cron::parse(cron.toStdString(), &why);
        QVERIFY2(s, why.c_str());
        QCOMPARE(iso(s->next(at(now.constData()))), iso(at(next.constData())));
    }

    /// test/cron_test.rb PREVIOUS_TIMES.
    void previousTime_data() {
        QTest::addColumn<QByteArray>("cron");
        QTest::addColumn<QByteArray>("now");
        QTest::addColumn<QByteArray>("previous");
        const auto row = [](const char* c, const char* prev, const char* now) {
            QTest::newRow(QByteArray(c).append(" before ").append(now).constData())
                << QByteArray(c) << QByteArray(now) << QByteArray(prev);
        };
        row("5 0 * * *", "2016-12-31T00:05:00Z", "2017-01-01T00:00:00Z");
        row("0 0 1 1 *", "2017-01-01T00:00:00Z", "2017-03-15T00:00:00Z");
        row("0 12 1 1 *", "2016-01-01T12:00:00Z", "2017-01-01T00:00:00Z");
        row("* * 29 * *", "2016-02-29T23:59:00Z", "2016-03-15T00:00:00Z");
        row("* * L * *", "2017-02-28T23:59:00Z", "2017-03-15T00:00:00Z");
        row("0 0 -4,-3 * *", "2017-02-25T00:00:00Z", "2017-02-25T23:00:00Z");
        row("* * * * mon#-1", "2017-01-30T23:59:00Z", "2017-01-31T00:00:00Z");
        row("* * * * wed#L", "2017-01-25T23:59:00Z", "2017-01-31T00:00:00Z");
        row("* * * * mon#2,wed", "2017-01-09T23:59:00Z", "2017-01-10T00:00:00Z");
        row("30 04 1,15 * 5", "2017-01-13T04:30:00Z", "2017-01-15T00:00:00Z");
        row("00 24 * * *", "2017-01-02T00:00:00Z", "2017-01-02T12:00:00Z");
        row("0 0 * * mon#2,tue", "2017-01-03T00:00:00Z", "2017-01-04T00:00:00Z");
        row("0 20 31 oct *", "2019-10-31T20:00:00Z", "2019-11-01T00:00:00Z");
        row("0 9 29 feb *", "2016-02-29T09:00:00Z", "2019-03-23T00:00:00Z");
        row("59 6 1-7 * 2", "2020-03-10T06:59:00Z", "2020-03-15T07:47:00Z");
        row("59 6 1-7 * 2", "2020-02-25T06:59:00Z", "2020-03-01T06:00:00Z");
        // Strictly before: a time on the schedule is not its own previous.
        row("every hour at minute 12", "2026-11-30T11:12:00Z", "2026-11-30T12:12:00Z");
    }
    void previousTime() {
        QFETCH(QByteArray, cron);
        QFETCH(QByteArray, now);
        QFETCH(QByteArray, previous);
        std::string why;
        const auto s = cron::parse(cron.toStdString(), &why);
        QVERIFY2(s, why.c_str());
        QCOMPARE(iso(s->previous(at(now.constData()))), iso(at(previous.constData())));
    }

    /// countBetween() is the number of next() steps from `from` up to `to`.
    void countMatchesStepping_data() {
        QTest::addColumn<QByteArray>("cron");
        for (const char* c : {"every hour at minute 12", "*/7 * * * *", "0 0 -4,-3 * *",
                              "30 04 1,15 * 5", "*/20 * * * * *", "0 9 * * mon#2,tue",
                              "every weekday 8am to 5pm on minute 10 and 30"})
            QTest::newRow(c) << QByteArray(c);
    }
    void countMatchesStepping() {
        QFETCH(QByteArray, cron);
        const auto s = cron::parse(cron.toStdString());
        QVERIFY(s);
        const TimeNs from = at("2026-11-29T11:12:00Z");
        const TimeNs to = at("2026-12-03T07:30:00.5Z");
        std::int64_t n = 0;
        for (auto t = s->next(from); t && *t <= to; t = s->next(*t))
            ++n;
        QCOMPARE(s->countBetween(from, to), n);
        QCOMPARE(s->countBetween(to, from), std::int64_t(0));
    }

    /// A year of a per-second schedule is counted, not stepped.
    void countWholeYear() {
        const auto s = cron::parse("* * * * * *");
        QVERIFY(s);
        QCOMPARE(s->countBetween(at("2023-01-01T00:00:00Z"), at("2024-01-01T00:00:00Z")),
                 std::int64_t(365) * 86400);
        const auto m = cron::parse("0 0 29 2 *");
        QVERIFY(m);
        QCOMPARE(m->countBetween(at("2000-01-01T00:00:00Z"), at("2100-01-01T00:00:00Z")),
                 std::int64_t(25)); // 2000..2096 every fourth year
    }

    /// A schedule without a zone runs in the default offset (--tz); one
    /// that names its zone keeps it.
    void defaultOffset() {
        const auto local = cron::parse("at 7am every day");
        QVERIFY(local);
        QCOMPARE(iso(local->next(at("2026-11-30T12:00:00Z"), 2 * 3600)),
                 iso(at("2026-12-01T05:00:00Z")));
        const auto zoned = cron::parse("every day at 7am UTC");
        QVERIFY(zoned);
        QCOMPARE(iso(zoned->next(at("2026-11-30T12:00:00Z"), 2 * 3600)),
                 iso(at("2026-12-01T07:00:00Z")));
        QCOMPARE(cron::fixedZoneOffset("-05:30"), std::optional<int>(-(5 * 3600 + 30 * 60)));
        QCOMPARE(cron::fixedZoneOffset("Etc/GMT+5"), std::optional<int>(-5 * 3600));
        QVERIFY(!cron::fixedZoneOffset("Europe/Paris"));
    }
};

QTEST_GUILESS_MAIN(TestCron)
#include "tst_cron.moc"
