// SPDX-License-Identifier: MIT
// lqctl end to end on a django-tasks-db table (tests/data/formats/django-tasks-db.sqlite3):
// the read commands against facts.json, stuck by --stuck-after (the library
// has no heartbeat), `errors` grouped by exception class path, and retry,
// delete and prune with their refusals and undo, checked against the rows
// the sqlite3 C API sees.
#include "support/fixtures.h"
#include "support/lqctlrun.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

using lq::test::copyFixture;
using lq::test::fileDigest;
using lq::test::FixtureLqctl;
using lq::test::LqctlResult;
using lq::test::sqlText;

namespace {

const QString kFixture = QStringLiteral("formats/django-tasks-db.sqlite3");
const QString kFailedSmtp = QStringLiteral("72b234cd83d8477ba940a59adf5a5914");
const QString kLiveRun = QStringLiteral("7cae94a3218c4610b0efce31ff1eb869");
const QString kReady = QStringLiteral("68c516f35fc04acdaae3203910b48ff4");

QString dump(const QString& path) {
    return sqlText(path, "SELECT group_concat(json_array(t.*), '|') FROM (SELECT * FROM "
                         "django_tasks_database_dbtaskresult ORDER BY id) t");
}

} // namespace

class TstLqctlDjangoTasks : public QObject {
    Q_OBJECT

private:
    FixtureLqctl m_lqctl{kFixture};

    LqctlResult run(const QStringList& args) const { return m_lqctl.run(args); }
    QJsonDocument runJson(const QStringList& args) const { return m_lqctl.runJson(args); }

    /// A copy lqctl writes: with Django's JSONField CHECK constraints, which
    /// lqctl's hardened connection loads (core/sqlite.cpp's json_valid).
    QString writableCopy(const QTemporaryDir& dir) const {
        const QString path = copyFixture(dir, kFixture);
        const QJsonObject info = runJson({QStringLiteral("info"), path}).object();
        if (info.value(QStringLiteral("read_only")).toBool())
            qFatal("lqctl opens %s read-only", qPrintable(path));
        return path;
    }

private slots:
    void readCommands() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        const QByteArray before = fileDigest(path);
        const LqctlResult info = run({QStringLiteral("info"), path});
        QCOMPARE(info.code, 0);
        QVERIFY(info.out.contains("django-tasks-db"));
        const QJsonObject s = runJson({QStringLiteral("stats"), path}).object();
        QCOMPARE(s.value(QStringLiteral("format")).toString(), QStringLiteral("django-tasks-db"));
        const QJsonObject c = s.value(QStringLiteral("counts")).toObject();
        const QJsonObject want = m_lqctl.facts().value(QStringLiteral("counts")).toObject();
        for (const char* k : {"ready", "scheduled", "locked", "done", "failed"})
            QCOMPARE(c.value(QLatin1String(k)).toInteger(),
                     want.value(QString::fromLatin1(k).toUpper()).toInteger());
        // No heartbeat: stuck is RUNNING longer than --stuck-after (300 s by default).
        QCOMPARE(s.value(QStringLiteral("stuck")).toInteger(), qint64(2));
        const QJsonObject hour = runJson({QStringLiteral("stats"), path,
                                          QStringLiteral("--stuck-after"), QStringLiteral("3600")})
                                     .object();
        QCOMPARE(hour.value(QStringLiteral("stuck")).toInteger(), qint64(1));
        const QString mismatch = m_lqctl.perQueueListMismatch(path);
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
        const QJsonObject g = runJson({QStringLiteral("get"), path, kFailedSmtp}).object();
        QCOMPARE(g.value(QStringLiteral("queue")).toString(), QStringLiteral("emails"));
        QCOMPARE(g.value(QStringLiteral("job")).toString(),
                 QStringLiteral("shop.tasks.send_receipt"));
        QVERIFY(g.value(QStringLiteral("error"))
                    .toString()
                    .startsWith(QStringLiteral("smtplib.SMTPServerDisconnected\nTraceback")));
        QCOMPARE(fileDigest(path), before);
    }

    void errorsGroupedByExceptionClass() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        const QJsonArray groups = runJson({QStringLiteral("errors"), path})
                                      .object()
                                      .value(QStringLiteral("groups"))
                                      .toArray();
        // The facts: 2 smtplib.SMTPServerDisconnected (emails), 1 builtins.ValueError (reports).
        QCOMPARE(groups.size(), 2);
        const QJsonObject first = groups.at(0).toObject();
        QCOMPARE(first.value(QStringLiteral("error")).toString(),
                 QStringLiteral("smtplib.SMTPServerDisconnected"));
        QCOMPARE(first.value(QStringLiteral("count")).toInteger(), qint64(2));
        QCOMPARE(first.value(QStringLiteral("queues")).toArray(),
                 QJsonArray{QStringLiteral("emails")});
        const QJsonObject second = groups.at(1).toObject();
        QCOMPARE(second.value(QStringLiteral("error")).toString(),
                 QStringLiteral("builtins.ValueError"));
        QCOMPARE(second.value(QStringLiteral("queues")).toArray(),
                 QJsonArray{QStringLiteral("reports")});
        const LqctlResult plain = run({QStringLiteral("errors"), path});
        QCOMPARE(plain.code, 0);
        QVERIFY(plain.out.contains("smtplib.SMTPServerDisconnected"));
    }

    void actionsAndUndo() {
        QTemporaryDir dir;
        const QString path = writableCopy(dir);
        const QString before = dump(path);
        QCOMPARE(run({QStringLiteral("retry"), path, kFailedSmtp}).code, 0);
        QCOMPARE(sqlText(path, "SELECT status || '|' || enqueued_at || '|' || run_after || '|' || "
                               "(started_at IS NULL) || (finished_at IS NULL) || "
                               "exception_class_path || traceback FROM "
                               "django_tasks_database_dbtaskresult WHERE id = "
                               "'72b234cd83d8477ba940a59adf5a5914'"),
                 QStringLiteral("READY|2026-11-30 12:00:00|9999-01-01 00:00:00|11"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(dump(path), before);
        QCOMPARE(run({QStringLiteral("delete"), path, kReady}).code, 0);
        QCOMPARE(sqlText(path, "SELECT count(*) FROM django_tasks_database_dbtaskresult"),
                 QStringLiteral("15"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(dump(path), before);
        // A running task is not deleted; a stale token is refused; fail and
        // release are not offered; retry takes FAILED tasks only.
        QVERIFY(run({QStringLiteral("delete"), path, kLiveRun}).code != 0);
        QVERIFY(run({QStringLiteral("delete"), path, kReady, QStringLiteral("--claim"),
                     QStringLiteral("12345")})
                    .code != 0);
        QVERIFY(run({QStringLiteral("fail"), path, kLiveRun}).code != 0);
        QVERIFY(run({QStringLiteral("release"), path, kLiveRun}).code != 0);
        QVERIFY(run({QStringLiteral("retry"), path, kReady}).code != 0);
        QCOMPARE(dump(path), before);
        // Prune as prune_db_task_results: finished 14 days before now (2), then undo.
        QCOMPARE(run({QStringLiteral("prune"), path, QStringLiteral("--yes")}).code, 0);
        QCOMPARE(sqlText(path, "SELECT count(*) FROM django_tasks_database_dbtaskresult"),
                 QStringLiteral("14"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(dump(path), before);
        QCOMPARE(sqlText(path, "PRAGMA integrity_check"), QStringLiteral("ok"));
    }

    void readOnlyFileSaysWhy() {
        // A schema calling a JSON function other than json_valid() (a CHECK
        // on json_array_length()) cannot be loaded by a hardened writable
        // connection: lqctl says so, not "malformed", and changes nothing.
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open_v2(QFile::encodeName(path).constData(), &db, SQLITE_OPEN_READWRITE,
                                 nullptr),
                 SQLITE_OK);
        const int rc = sqlite3_exec(db,
                                    "ALTER TABLE django_tasks_database_dbtaskresult ADD COLUMN "
                                    "\"tags\" text NULL CHECK (json_array_length(\"tags\") >= 0)",
                                    nullptr, nullptr, nullptr);
        sqlite3_close(db);
        QCOMPARE(rc, SQLITE_OK);
        QVERIFY(runJson({QStringLiteral("info"), path})
                    .object()
                    .value(QStringLiteral("read_only"))
                    .toBool());
        const QString before = dump(path);
        const LqctlResult r = run({QStringLiteral("retry"), path, kFailedSmtp});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("other than JSON_VALID()"), r.err.constData());
        QVERIFY2(!r.err.contains("malformed"), r.err.constData());
        QCOMPARE(dump(path), before);
    }
};

QTEST_GUILESS_MAIN(TstLqctlDjangoTasks)
#include "tst_lqctl_djangotasks.moc"
