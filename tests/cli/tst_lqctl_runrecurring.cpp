// SPDX-License-Identifier: MIT
// `lqctl recurring FILE --run KEY` on a copy of the Solid Queue fixture: it
// asks first (refused without a terminal unless --yes), enqueues the task's
// job as the library's own run now does, prints the job and the record;
// `lqctl audit` lists it as run-recurring and `lqctl undo` deletes the job
// again; an unknown task and a format without recurring tasks are refused.
#include "support/fixtures.h"
#include "support/lqctlrun.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QTemporaryDir>
#include <QTest>

using lq::test::copyFixture;
using lq::test::fileDigest;
using lq::test::FixtureLqctl;
using lq::test::sqlInt;
using lq::test::sqlText;

namespace {

QString s(const char* text) {
    return QString::fromUtf8(text);
}

const char* kTask = "clear_solid_queue_finished_jobs";

} // namespace

class TstLqctlRunRecurring : public QObject {
    Q_OBJECT

private slots:
    void runNowAndUndo() {
        const FixtureLqctl lqctl(s("formats/solid-queue.sqlite3"));
        QTemporaryDir dir;
        const QString path = copyFixture(dir, s("formats/solid-queue.sqlite3"));
        const QByteArray digest = fileDigest(path);
        QCOMPARE(sqlInt(path, "SELECT count(*) FROM solid_queue_jobs"), 22);

        // Asks first: with stdin closed and no --yes, nothing is written.
        const auto asked = lqctl.run({s("recurring"), path, s("--run"), s(kTask)});
        QCOMPARE(asked.code, 1);
        QVERIFY2(asked.err.contains("without --yes"), asked.err.constData());
        QCOMPARE(fileDigest(path), digest);

        const QJsonObject r =
            lqctl.runJson({s("recurring"), path, s("--run"), s(kTask), s("--yes")}).object();
        QCOMPARE(r.value(s("action")).toString(), s("run-recurring"));
        QCOMPARE(r.value(s("applied")).toInt(), 1);
        QCOMPARE(r.value(s("job_id")).toString(), s("23"));
        QCOMPARE(r.value(s("class")).toString(), s("SolidQueue::RecurringJob"));
        QCOMPARE(r.value(s("queue")).toString(), s("solid_queue_recurring"));
        const QString record = r.value(s("record")).toString();
        QVERIFY(!record.isEmpty());
        // The rows, at --now (the fixture's 12:00:00, a whole second as Rails
        // writes it).
        QCOMPARE(sqlInt(path, "SELECT count(*) FROM solid_queue_jobs"), 23);
        QCOMPARE(sqlText(path, "SELECT queue_name || '|' || class_name || '|' || scheduled_at || "
                               "'|' || json_extract(arguments, '$.arguments[0]') FROM "
                               "solid_queue_jobs WHERE id = 23"),
                 s("solid_queue_recurring|SolidQueue::RecurringJob|2026-11-30 12:00:00|"
                   "SolidQueue::Job.clear_finished_in_batches(sleep_between_batches: 0.3)"));
        QCOMPARE(
            sqlInt(path, "SELECT count(*) FROM solid_queue_ready_executions WHERE job_id = 23"), 1);
        QCOMPARE(sqlText(path, "SELECT task_key || '|' || run_at FROM "
                               "solid_queue_recurring_executions WHERE job_id = 23"),
                 s("clear_solid_queue_finished_jobs|2026-11-30 12:00:00"));
        // The task's last run is now this one.
        const QJsonArray tasks =
            lqctl.runJson({s("recurring"), path}).object().value(s("tasks")).toArray();
        QCOMPARE(tasks.size(), 1);
        QCOMPARE(tasks.at(0).toObject().value(s("last_run_ns")).toInteger(),
                 qint64(1'796'040'000) * 1'000'000'000);

        // The text form says what it enqueued and the record.
        const auto text = lqctl.run({s("recurring"), path, s("--run"), s(kTask), s("--yes")});
        QCOMPARE(text.code, 1); // the same instant (--now) is recorded already
        QVERIFY2(text.err.contains("already recorded"), text.err.constData());

        const QJsonArray audit = lqctl.runJson({s("audit"), path}).array();
        QCOMPARE(audit.at(0).toObject().value(s("action")).toString(), s("run-recurring"));
        QCOMPARE(audit.at(0).toObject().value(s("id")).toString(), record);
        QCOMPARE(audit.at(0).toObject().value(s("applied")).toInt(), 1);

        const auto undo = lqctl.run({s("undo"), path});
        QCOMPARE(undo.code, 0);
        QVERIFY2(undo.out.startsWith("undo of run-recurring "), undo.out.constData());
        QCOMPARE(sqlInt(path, "SELECT count(*) FROM solid_queue_jobs"), 22);
        QCOMPARE(sqlInt(path, "SELECT count(*) FROM solid_queue_recurring_executions"), 1);
    }

    void textOutput() {
        const FixtureLqctl lqctl(s("formats/solid-queue.sqlite3"));
        QTemporaryDir dir;
        const QString path = copyFixture(dir, s("formats/solid-queue.sqlite3"));
        const auto r = lqctl.run({s("recurring"), path, s("--run"), s(kTask), s("--yes")});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.startsWith("enqueued job 23 (SolidQueue::RecurringJob, queue "
                                  "solid_queue_recurring) for recurring task "
                                  "clear_solid_queue_finished_jobs (record "),
                 r.out.constData());
        const auto none = lqctl.run({s("recurring"), path, s("--run"), s("nosuch"), s("--yes")});
        QCOMPARE(none.code, 1);
        QVERIFY(none.err.contains("no recurring task \"nosuch\""));
    }

    void refusedWithoutRecurringTasks() {
        const FixtureLqctl lqctl(s("formats/laravel-database.sqlite3"));
        QTemporaryDir dir;
        const QString path = copyFixture(dir, s("formats/laravel-database.sqlite3"));
        const QByteArray digest = fileDigest(path);
        const auto r = lqctl.run({s("recurring"), path, s("--run"), s("x"), s("--yes")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("record no recurring tasks"), r.err.constData());
        QCOMPARE(fileDigest(path), digest);
        QCOMPARE(lqctl.runJson({s("audit"), path}).array().size(), 0);
    }
};

QTEST_GUILESS_MAIN(TstLqctlRunRecurring)
#include "tst_lqctl_runrecurring.moc"
