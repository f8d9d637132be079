// SPDX-License-Identifier: MIT
// lqctl end to end on a Solid Queue file (tests/data/formats/solid-queue.sqlite3):
// every command on a copy of the fixture, checked against facts.json and
// against the rows the sqlite3 shell sees.
#include "support/fixtures.h"
#include "support/lqctlrun.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

using lq::test::copyFixture;
using lq::test::fileDigest;
using lq::test::FixtureLqctl;
using lq::test::LqctlResult;
using lq::test::sqlInt;
using lq::test::sqlText;

namespace {

const QString kFixture = QStringLiteral("formats/solid-queue.sqlite3");

/// Every row of the Solid Queue tables, as text: equal before and after an
/// action and its undo.
QString dump(const QString& path) {
    QString out;
    for (const char* t : {"jobs", "ready_executions", "claimed_executions", "failed_executions",
                          "scheduled_executions", "blocked_executions", "recurring_executions",
                          "processes", "semaphores"})
        out += sqlText(path, QByteArray("SELECT group_concat(quote(id) || ':' || "
                                        "json_array(t.*), '|') FROM (SELECT * FROM solid_queue_") +
                                 t + " ORDER BY id) t") +
               QLatin1Char('\n');
    return out;
}

/// Runs `sql` on the copy at `path` (the tests' own rows beside the fixture's).
void exec(const QString& path, const QByteArray& sql) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(QFile::encodeName(path).constData(), &db, SQLITE_OPEN_READWRITE, nullptr) !=
        SQLITE_OK)
        qFatal("cannot open %s", qPrintable(path));
    char* msg = nullptr;
    if (sqlite3_exec(db, sql.constData(), nullptr, nullptr, &msg) != SQLITE_OK)
        qFatal("%s: %s", sql.constData(), msg ? msg : "?");
    sqlite3_close(db);
}

/// ns since the epoch of an ISO 8601 UTC time, by the sqlite3 shell's own
/// strftime (whole seconds).
qint64 nsOf(const QString& path, const char* iso) {
    return sqlInt(path, QByteArray("SELECT strftime('%s', '") + iso + "')") * 1000000000LL;
}

} // namespace

class TstLqctlSolidQueue : public QObject {
    Q_OBJECT

private:
    FixtureLqctl m_lqctl{kFixture};

    LqctlResult run(const QStringList& args) const { return m_lqctl.run(args); }
    QJsonDocument runJson(const QStringList& args) const { return m_lqctl.runJson(args); }
    QString tokenOf(const QString& path, const QString& id) const {
        return m_lqctl.tokenOf(path, id);
    }

private slots:
    /// `lqctl processes` and the paused queues of `info` against SQL on the
    /// file at its facts' now: alive = a heartbeat within 5 minutes
    /// (process_alive_threshold), the claims each holds, the claims of a
    /// process whose row is gone; the file untouched.
    void processesAndPausedQueues() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        const QByteArray digest = fileDigest(path);
        const QJsonObject top = runJson({QStringLiteral("processes"), path}).object();
        const QJsonArray procs = top.value(QLatin1String("processes")).toArray();
        QCOMPARE(qint64(procs.size()), sqlInt(path, "SELECT count(*) FROM solid_queue_processes"));
        // Seconds from the fixture's now to the heartbeat (julianday: the
        // system SQLite may predate unixepoch()'s 'subsec').
        const QByteArray age =
            "(julianday(last_heartbeat_at) - julianday('2026-11-30 12:00:00')) * 86400.0";
        qint64 alive = 0;
        for (const QJsonValue& v : procs) {
            const QJsonObject p = v.toObject();
            const QByteArray id = p.value(QLatin1String("id")).toString().toUtf8();
            alive += p.value(QLatin1String("alive")).toBool();
            QCOMPARE(p.value(QLatin1String("alive")).toBool(),
                     sqlInt(path, "SELECT " + age +
                                      " > -300 FROM solid_queue_processes WHERE id = " + id) == 1);
            QCOMPARE(p.value(QLatin1String("claimed")).toInteger(),
                     sqlInt(path, "SELECT count(*) FROM solid_queue_claimed_executions WHERE "
                                  "process_id = " +
                                      id));
        }
        QCOMPARE(alive, sqlInt(path, "SELECT count(*) FROM solid_queue_processes WHERE " + age +
                                         " > -300"));
        QVERIFY(alive > 0 && alive < procs.size()); // the fixture has both
        QCOMPARE(top.value(QLatin1String("orphaned_claims")).toInteger(),
                 sqlInt(path, "SELECT count(*) FROM solid_queue_claimed_executions WHERE "
                              "process_id NOT IN (SELECT id FROM solid_queue_processes)"));
        const QJsonArray paused = runJson({QStringLiteral("info"), path})
                                      .object()
                                      .value(QLatin1String("paused_queues"))
                                      .toArray();
        QCOMPARE(qint64(paused.size()), sqlInt(path, "SELECT count(*) FROM solid_queue_pauses"));
        QCOMPARE(paused.at(0).toString(),
                 sqlText(path, "SELECT min(queue_name) FROM solid_queue_pauses"));
        QCOMPARE(fileDigest(path), digest);
    }

    /// `lqctl recurring` at the fixture's now (2026-11-30 12:00:00 UTC, a
    /// Monday): its one task ("every hour at minute 12", last run 24 h 48 m
    /// ago) and five added with SQL, for cron and natural-language schedules,
    /// a run never recorded, the minute of grace, and the schedules Solid
    /// Queue refuses or this code does not evaluate. Missed = scheduled times
    /// after the later of the last run and updated_at, up to now - 60 s.
    void recurringTasks() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        exec(path,
             "INSERT INTO solid_queue_recurring_tasks (key, schedule, command, class_name, "
             "queue_name, priority, static, created_at, updated_at) VALUES "
             "('nightly_report', 'at 7am every day', NULL, 'NightlyReportJob', 'reports', 0, 1, "
             "'2026-11-20 00:00:00', '2026-11-20 00:00:00'),"
             "('every_five', '*/5 * * * *', NULL, 'PingJob', NULL, 0, 1, "
             "'2026-11-30 11:40:00', '2026-11-30 11:40:00'),"
             "('weekly_digest', 'every monday at 9am', NULL, 'DigestJob', NULL, 0, 0, "
             "'2026-11-01 00:00:00', '2026-11-01 00:00:00'),"
             "('half_past', '30 59 11 * * *', NULL, 'LateJob', NULL, 0, 1, "
             "'2026-11-01 00:00:00', '2026-11-01 00:00:00'),"
             "('fortnightly', 'every 2 weeks', NULL, 'NeverJob', NULL, 0, 1, "
             "'2026-11-01 00:00:00', '2026-11-01 00:00:00'),"
             "('tokyo', 'every day at 5 pm in Asia/Tokyo', NULL, 'TokyoJob', NULL, 0, 1, "
             "'2026-11-01 00:00:00', '2026-11-01 00:00:00');"
             "INSERT INTO solid_queue_recurring_executions (job_id, task_key, run_at, created_at) "
             "VALUES (9001, 'nightly_report', '2026-11-27 07:00:00', '2026-11-27 07:00:00.01'),"
             "(9002, 'nightly_report', '2026-11-28 07:00:00', '2026-11-28 07:00:00.01'),"
             "(9003, 'weekly_digest', '2026-11-23 09:00:00', '2026-11-23 09:00:00.01'),"
             "(9004, 'half_past', '2026-11-29 11:59:30', '2026-11-29 11:59:30.01');");
        const QByteArray digest = fileDigest(path);
        const QJsonObject top = runJson({QStringLiteral("recurring"), path}).object();
        QVERIFY(top.value(QLatin1String("not_stored")).isNull());
        QMap<QString, QJsonObject> tasks;
        for (const QJsonValue& v : top.value(QLatin1String("tasks")).toArray())
            tasks.insert(v.toObject().value(QLatin1String("key")).toString(), v.toObject());
        QCOMPARE(qint64(tasks.size()),
                 sqlInt(path, "SELECT count(*) FROM solid_queue_recurring_tasks"));
        const auto ns = [](const QJsonObject& t, const char* k) {
            return t.value(QLatin1String(k)).isNull() ? qint64(-1)
                                                      : t.value(QLatin1String(k)).toInteger();
        };
        const auto missed = [](const QJsonObject& t) {
            return t.value(QLatin1String("missed")).toInteger();
        };
        // Each last run is the greatest run_at, as RecurringTask#last_enqueued_time.
        for (auto it = tasks.begin(); it != tasks.end(); ++it)
            QCOMPARE(ns(it.value(), "last_run_ns"),
                     sqlInt(path, "SELECT coalesce(strftime('%s', max(run_at)) * 1000000000, -1) "
                                  "FROM solid_queue_recurring_executions WHERE task_key = '" +
                                      it.key().toUtf8() + "'"));

        // The fixture's task, hourly at :12: every hour from its last run to
        // a minute before now, by SQL.
        const QJsonObject clear = tasks.value(QStringLiteral("clear_solid_queue_finished_jobs"));
        QCOMPARE(clear.value(QLatin1String("class")), QJsonValue());
        QCOMPARE(clear.value(QLatin1String("command")).toString(),
                 sqlText(path, "SELECT command FROM solid_queue_recurring_tasks WHERE key = "
                               "'clear_solid_queue_finished_jobs'"));
        QCOMPARE(missed(clear),
                 sqlInt(path, "SELECT (strftime('%s', '2026-11-30 11:59:00') - strftime('%s', "
                              "max(run_at))) / 3600 FROM solid_queue_recurring_executions "
                              "WHERE task_key = 'clear_solid_queue_finished_jobs'"));
        QCOMPARE(missed(clear), 24);
        QCOMPARE(ns(clear, "next_run_ns"), nsOf(path, "2026-11-30 12:12:00"));

        // "at 7am every day", last run on the 28th: the 29th and 30th missed.
        const QJsonObject nightly = tasks.value(QStringLiteral("nightly_report"));
        QCOMPARE(nightly.value(QLatin1String("class")).toString(),
                 QStringLiteral("NightlyReportJob"));
        QCOMPARE(nightly.value(QLatin1String("queue")).toString(), QStringLiteral("reports"));
        QCOMPARE(ns(nightly, "next_run_ns"), nsOf(path, "2026-12-01 07:00:00"));
        QCOMPARE(missed(nightly), 2);
        // Never ran, created 11:40: 11:45, 11:50, 11:55 (12:00 is not yet).
        const QJsonObject five = tasks.value(QStringLiteral("every_five"));
        QCOMPARE(ns(five, "last_run_ns"), qint64(-1));
        QCOMPARE(ns(five, "next_run_ns"), nsOf(path, "2026-11-30 12:05:00"));
        QCOMPARE(missed(five), 3);
        // Mondays at 9: today's 09:00 was missed, next week's is next.
        const QJsonObject weekly = tasks.value(QStringLiteral("weekly_digest"));
        QCOMPARE(ns(weekly, "next_run_ns"), nsOf(path, "2026-12-07 09:00:00"));
        QCOMPARE(missed(weekly), 1);
        // Due 30 s ago: within the minute of grace, not missed.
        const QJsonObject late = tasks.value(QStringLiteral("half_past"));
        QCOMPARE(ns(late, "next_run_ns"), nsOf(path, "2026-12-01 11:59:30"));
        QCOMPARE(missed(late), 0);
        // Listed with no next run and the reason.
        for (const char* key : {"fortnightly", "tokyo"}) {
            const QJsonObject t = tasks.value(QString::fromLatin1(key));
            QVERIFY(t.value(QLatin1String("next_run_ns")).isNull());
            QCOMPARE(missed(t), 0);
            QVERIFY(!t.value(QLatin1String("why")).toString().isEmpty());
        }
        QVERIFY(tasks.value(QStringLiteral("tokyo"))
                    .value(QLatin1String("why"))
                    .toString()
                    .contains(QLatin1String("Asia/Tokyo")));

        // --tz +02:00: 7am is 05:00 UTC; the 29th and 30th still missed.
        const QJsonArray shifted = runJson({QStringLiteral("recurring"), path,
                                            QStringLiteral("--tz"), QStringLiteral("+02:00")})
                                       .object()
                                       .value(QLatin1String("tasks"))
                                       .toArray();
        for (const QJsonValue& v : shifted)
            if (v.toObject().value(QLatin1String("key")).toString() ==
                QLatin1String("nightly_report")) {
                QCOMPARE(ns(v.toObject(), "next_run_ns"), nsOf(path, "2026-12-01 05:00:00"));
                QCOMPARE(missed(v.toObject()), 2);
            }
        QCOMPARE(run({QStringLiteral("recurring"), path, QStringLiteral("--tz"),
                      QStringLiteral("Europe/Paris")})
                     .code,
                 2);
        const LqctlResult table = run({QStringLiteral("recurring"), path});
        QCOMPARE(table.code, 0);
        QVERIFY(table.out.contains("nightly_report") && table.out.contains("MISSED"));
        QVERIFY(table.out.contains("warning: tokyo"));
        QCOMPARE(fileDigest(path), digest);
    }

    void readCommandsChangeNothing() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        const QByteArray before = fileDigest(path);
        const LqctlResult info = run({QStringLiteral("info"), path});
        QCOMPARE(info.code, 0);
        QVERIFY(info.out.contains("solid-queue"));
        const QJsonObject i = runJson({QStringLiteral("info"), path}).object();
        QCOMPARE(i.value(QStringLiteral("format")).toString(), QStringLiteral("solid-queue"));
        QCOMPARE(i.value(QStringLiteral("read_only")).toBool(), false);

        const QJsonObject s = runJson({QStringLiteral("stats"), path}).object();
        QCOMPARE(s.value(QStringLiteral("format")).toString(), QStringLiteral("solid-queue"));
        const QJsonObject c = s.value(QStringLiteral("counts")).toObject();
        const QJsonObject want = m_lqctl.facts().value(QStringLiteral("counts")).toObject();
        for (const char* k : {"ready", "scheduled", "locked", "done", "failed"})
            QCOMPARE(c.value(QLatin1String(k)).toInteger(),
                     want.value(QString::fromLatin1(k).toUpper()).toInteger());
        QCOMPARE(c.value(QStringLiteral("stored")).toInteger(), m_lqctl.facts()
                                                                    .value(QStringLiteral("stored"))
                                                                    .toObject()
                                                                    .value(QStringLiteral("jobs"))
                                                                    .toInteger());
        QCOMPARE(
            lq::test::countsAsFacts(s, m_lqctl.facts()).value(QStringLiteral("extra")).toObject(),
            m_lqctl.facts().value(QStringLiteral("extra")).toObject());
        QCOMPARE(s.value(QStringLiteral("stuck")).toInteger(),
                 m_lqctl.facts()
                     .value(QStringLiteral("extra"))
                     .toObject()
                     .value(QStringLiteral("locked_expired"))
                     .toInteger());

        // What Solid Queue does not store is said in the text (the JSON keeps
        // README.md#lqctl's shape: its processing summary has count 0).
        QCOMPARE(s.value(QStringLiteral("latency_ns"))
                     .toObject()
                     .value(QStringLiteral("processing"))
                     .toObject()
                     .value(QStringLiteral("count"))
                     .toInteger(),
                 0);
        const LqctlResult text = run({QStringLiteral("stats"), path});
        QCOMPARE(text.code, 0);
        QVERIFY2(text.out.contains("processing       not stored: Solid Queue deletes"),
                 text.out.constData());
        QVERIFY2(text.out.contains("total            n=6"), text.out.constData());

        // --queue narrows stats and list.
        const QJsonObject perQueue = m_lqctl.facts().value(QStringLiteral("per_queue")).toObject();
        for (auto it = perQueue.begin(); it != perQueue.end(); ++it) {
            const QJsonObject w = it.value().toObject();
            const QJsonObject qc =
                runJson({QStringLiteral("stats"), path, QStringLiteral("--queue"), it.key()})
                    .object()
                    .value(QStringLiteral("counts"))
                    .toObject();
            std::int64_t total = 0;
            for (auto v = w.begin(); v != w.end(); ++v)
                total += v.value().toInteger();
            QCOMPARE(qc.value(QStringLiteral("stored")).toInteger(), total);
            QCOMPARE(qc.value(QStringLiteral("locked")).toInteger(),
                     w.value(QStringLiteral("LOCKED")).toInteger());
            QCOMPARE(qc.value(QStringLiteral("extra"))
                         .toObject()
                         .value(QStringLiteral("blocked"))
                         .toInteger(),
                     w.value(QStringLiteral("blocked")).toInteger());
            const QJsonArray listed =
                runJson({QStringLiteral("list"), path, QStringLiteral("--queue"), it.key()})
                    .array();
            QCOMPARE(listed.size(), int(total));
        }
        const QJsonArray all = runJson({QStringLiteral("list"), path}).array();
        QCOMPARE(all.size(), 22);

        const QJsonObject m = runJson({QStringLiteral("get"), path, QStringLiteral("7")}).object();
        QCOMPARE(m.value(QStringLiteral("status")).toString(), QStringLiteral("FAILED"));
        QCOMPARE(m.value(QStringLiteral("data")).toString(),
                 sqlText(path, "SELECT arguments FROM solid_queue_jobs WHERE id = 7"));
        const LqctlResult missing = run({QStringLiteral("get"), path, QStringLiteral("999")});
        QCOMPARE(missing.code, 1);
        QVERIFY(missing.err.contains(QFile::encodeName(path)));
        QCOMPARE(fileDigest(path), before);
    }

    void actionsAndUndo() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        const QString before = dump(path);
        // retry a failed job: Mission Control's retry, a ready row.
        const LqctlResult retry =
            run({QStringLiteral("retry"), path, QStringLiteral("7"), QStringLiteral("--claim"),
                 tokenOf(path, QStringLiteral("7"))});
        QCOMPARE(retry.code, 0);
        QCOMPARE(
            sqlText(path, "SELECT count(*) FROM solid_queue_ready_executions WHERE job_id = 7"),
            QStringLiteral("1"));
        QCOMPARE(
            sqlText(path, "SELECT count(*) FROM solid_queue_failed_executions WHERE job_id = 7"),
            QStringLiteral("0"));
        // release a claim whose process is gone (13) and one whose
        // heartbeat is stale (12); a live one (14) is refused.
        for (const char* id : {"12", "13"}) {
            const LqctlResult r = run({QStringLiteral("release"), path, QLatin1String(id)});
            QCOMPARE(r.code, 0);
        }
        const LqctlResult live = run({QStringLiteral("release"), path, QStringLiteral("14")});
        QCOMPARE(live.code, 1);
        QVERIFY(live.err.contains("process is alive"));
        // run a scheduled job now (Dispatch), and discard a ready one.
        QCOMPARE(run({QStringLiteral("release"), path, QStringLiteral("20")}).code, 0);
        QCOMPARE(
            sqlText(path,
                    "SELECT scheduled_at FROM solid_queue_scheduled_executions WHERE job_id = 20"),
            m_lqctl.facts().value(QStringLiteral("now_as_stored")).toString());
        QCOMPARE(run({QStringLiteral("delete"), path, QStringLiteral("16")}).code, 0);
        QCOMPARE(sqlText(path, "SELECT count(*) FROM solid_queue_jobs WHERE id = 16"),
                 QStringLiteral("0"));
        const QJsonObject s = runJson({QStringLiteral("stats"), path}).object();
        QCOMPARE(s.value(QStringLiteral("stuck")).toInteger(), 0);
        QCOMPARE(sqlText(path, "PRAGMA foreign_key_check"), QString());

        // The audit log has them; undo each, newest first, back to the fixture.
        const LqctlResult audit = run({QStringLiteral("audit"), path});
        QCOMPARE(audit.code, 0);
        QCOMPARE(audit.out.count("release"), 4); // the refused one is on record too
        for (int i = 0; i < 5; ++i)
            QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(dump(path), before);
        QCOMPARE(sqlText(path, "PRAGMA integrity_check"), QStringLiteral("ok"));
    }

    void staleTokenAndUnofferedActionsRefused() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        const QString token = tokenOf(path, QStringLiteral("12"));
        const QByteArray before = fileDigest(path);
        const LqctlResult stale = run({QStringLiteral("release"), path, QStringLiteral("12"),
                                       QStringLiteral("--claim"), QStringLiteral("12345")});
        QCOMPARE(stale.code, 1);
        QVERIFY2(stale.err.contains("the claim did not match: job 12 holds execution claimed:"),
                 stale.err.constData());
        QVERIFY(token != QStringLiteral("12345"));
        for (const QStringList& args :
             {QStringList{QStringLiteral("fail"), path, QStringLiteral("16")},
              QStringList{QStringLiteral("reschedule"), path, QStringLiteral("20"),
                          QStringLiteral("--delay"), QStringLiteral("5")},
              QStringList{QStringLiteral("put"), path, QStringLiteral("x")}}) {
            const LqctlResult r = run(args);
            QVERIFY2(r.code != 0, qPrintable(args.join(QLatin1Char(' '))));
            QVERIFY(r.err.contains(QFile::encodeName(path).split('/').last()) ||
                    r.err.contains(QFile::encodeName(path)));
        }
        QCOMPARE(fileDigest(path), before);
    }

    void pruneFinishedHistory() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        const QString before = dump(path);
        // Without --yes and no terminal: refused, nothing changed.
        QVERIFY(run({QStringLiteral("prune"), path, QStringLiteral("--older-than"),
                     QStringLiteral("86400")})
                    .code != 0);
        QCOMPARE(dump(path), before);
        const QJsonObject p = runJson({QStringLiteral("prune"), path,
                                       QStringLiteral("--older-than"), QStringLiteral("86400"),
                                       QStringLiteral("--yes"), QStringLiteral("--keep-failed")})
                                  .object();
        QCOMPARE(
            sqlText(path, "SELECT count(*) FROM solid_queue_jobs WHERE finished_at IS NOT NULL"),
            QStringLiteral("2")); // jobs 1-4 finished on the 29th
        QCOMPARE(sqlText(path, "SELECT count(*) FROM solid_queue_recurring_executions"),
                 QStringLiteral("0"));
        QVERIFY(!p.isEmpty());
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(dump(path), before);
    }
};

QTEST_GUILESS_MAIN(TstLqctlSolidQueue)
#include "tst_lqctl_solidqueue.moc"
