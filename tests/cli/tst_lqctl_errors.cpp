// SPDX-License-Identifier: MIT
// `lqctl errors` and the ERROR column of `lqctl list` on a Solid Queue file
// (tests/data/formats/solid-queue.sqlite3): the groups against SQL on the
// file, --queue, a queue the file does not hold, and the file untouched.
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
using lq::test::LqctlResult;
using lq::test::sqlInt;
using lq::test::sqlText;

namespace {
const QString kFixture = QStringLiteral("formats/solid-queue.sqlite3");
} // namespace

class TstLqctlErrors : public QObject {
    Q_OBJECT

private:
    FixtureLqctl m_lqctl{kFixture};
    FixtureLqctl m_laravel{QStringLiteral("formats/laravel-database.sqlite3")};

    static qint64 groupCount(const QJsonDocument& errors, const QString& cls) {
        for (const QJsonValue& v : errors.object().value(QLatin1String("groups")).toArray())
            if (v.toObject().value(QLatin1String("error")).toString() == cls)
                return v.toObject().value(QLatin1String("count")).toInteger();
        return 0;
    }

private slots:
    void groupsByExceptionClass() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        const QByteArray before = fileDigest(path);
        const QJsonArray groups = m_lqctl.runJson({QStringLiteral("errors"), path})
                                      .object()
                                      .value(QLatin1String("groups"))
                                      .toArray();
        QCOMPARE(qint64(groups.size()),
                 sqlInt(path, "SELECT count(DISTINCT json_extract(error, '$.exception_class')) "
                              "FROM solid_queue_failed_executions"));
        qint64 total = 0;
        for (const QJsonValue& v : groups) {
            const QJsonObject g = v.toObject();
            const QString cls = g.value(QLatin1String("error")).toString();
            const QByteArray where =
                "WHERE json_extract(f.error, '$.exception_class') = '" + cls.toUtf8() + "'";
            QCOMPARE(g.value(QLatin1String("count")).toInteger(),
                     sqlInt(path, "SELECT count(*) FROM solid_queue_failed_executions f " + where));
            QCOMPARE(g.value(QLatin1String("queues")).toArray().at(0).toString(),
                     sqlText(path, "SELECT min(j.queue_name) FROM solid_queue_failed_executions f "
                                   "JOIN solid_queue_jobs j ON j.id = f.job_id " +
                                       where));
            QVERIFY(g.value(QLatin1String("sample")).toString().contains(cls));
            QVERIFY(g.value(QLatin1String("last_failed_at_ns")).toInteger() >=
                    g.value(QLatin1String("first_failed_at_ns")).toInteger());
            total += g.value(QLatin1String("count")).toInteger();
        }
        QCOMPARE(total, sqlInt(path, "SELECT count(*) FROM solid_queue_failed_executions"));
        // One named queue: only its failures.
        const QString queue =
            sqlText(path, "SELECT j.queue_name FROM solid_queue_failed_executions f JOIN "
                          "solid_queue_jobs j ON j.id = f.job_id ORDER BY f.id LIMIT 1");
        const QJsonArray one =
            m_lqctl.runJson({QStringLiteral("errors"), path, QStringLiteral("--queue"), queue})
                .object()
                .value(QLatin1String("groups"))
                .toArray();
        qint64 inQueue = 0;
        for (const QJsonValue& v : one)
            inQueue += v.toObject().value(QLatin1String("count")).toInteger();
        QCOMPARE(inQueue, sqlInt(path, "SELECT count(*) FROM solid_queue_failed_executions f "
                                       "JOIN solid_queue_jobs j ON j.id = f.job_id WHERE "
                                       "j.queue_name = '" +
                                           queue.toUtf8() + "'"));
        const LqctlResult nosuch = m_lqctl.run(
            {QStringLiteral("errors"), path, QStringLiteral("--queue"), QStringLiteral("nosuch")});
        QCOMPARE(nosuch.code, 1);
        QVERIFY(nosuch.err.contains("no queue nosuch"));
        QCOMPARE(fileDigest(path), before);
    }

    /// retry FILE --error CLASS on a Laravel file (two RuntimeException
    /// failures in two queues): refused without --yes, file untouched; with
    /// it, exactly the group moves back to `jobs`, in one recorded action that
    /// undo reverts; an unknown class is refused.
    void retryAnErrorGroupAndUndo() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/laravel-database.sqlite3"));
        const QString cls = QStringLiteral("RuntimeException");
        const QByteArray digest = fileDigest(path);
        const qint64 group = groupCount(m_laravel.runJson({QStringLiteral("errors"), path}), cls);
        const QByteArray like = "WHERE exception LIKE 'RuntimeException:%'";
        QCOMPARE(group, sqlInt(path, "SELECT count(*) FROM failed_jobs " + like));
        QVERIFY(group >= 2);
        const qint64 failed = sqlInt(path, "SELECT count(*) FROM failed_jobs");
        const qint64 jobs = sqlInt(path, "SELECT count(*) FROM jobs");

        const LqctlResult asked =
            m_laravel.run({QStringLiteral("retry"), path, QStringLiteral("--error"), cls});
        QCOMPARE(asked.code, 1);
        QVERIFY2(
            asked.out.contains(QByteArray("retry " + QByteArray::number(group) + " failed jobs")),
            asked.out.constData());
        QVERIFY(asked.err.contains("without --yes"));
        QCOMPARE(fileDigest(path), digest);

        const QJsonObject done =
            m_laravel
                .runJson({QStringLiteral("retry"), path, QStringLiteral("--error"), cls,
                          QStringLiteral("--yes")})
                .object();
        QCOMPARE(done.value(QLatin1String("applied")).toInteger(), group);
        QCOMPARE(sqlInt(path, "SELECT count(*) FROM failed_jobs " + like), qint64(0));
        QCOMPARE(sqlInt(path, "SELECT count(*) FROM failed_jobs"), failed - group);
        QCOMPARE(sqlInt(path, "SELECT count(*) FROM jobs"), jobs + group);
        QCOMPARE(groupCount(m_laravel.runJson({QStringLiteral("errors"), path}), cls), qint64(0));

        QCOMPARE(m_laravel.run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(sqlInt(path, "SELECT count(*) FROM failed_jobs " + like), group);
        QCOMPARE(sqlInt(path, "SELECT count(*) FROM jobs"), jobs);
        QCOMPARE(groupCount(m_laravel.runJson({QStringLiteral("errors"), path}), cls), group);

        const LqctlResult none =
            m_laravel.run({QStringLiteral("delete"), path, QStringLiteral("--error"),
                           QStringLiteral("NoSuchError"), QStringLiteral("--yes")});
        QCOMPARE(none.code, 1);
        QVERIFY(none.err.contains("no failed job has error NoSuchError"));
    }

    void listShowsTheErrorClass() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        const LqctlResult r = m_lqctl.run(
            {QStringLiteral("list"), path, QStringLiteral("--status"), QStringLiteral("failed")});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("ERROR"));
        const QString cls = sqlText(path, "SELECT json_extract(error, '$.exception_class') FROM "
                                          "solid_queue_failed_executions ORDER BY id LIMIT 1");
        QVERIFY2(r.out.contains(cls.toUtf8()), r.out.constData());
        // No error column where no listed job has an error.
        const LqctlResult ready = m_lqctl.run(
            {QStringLiteral("list"), path, QStringLiteral("--status"), QStringLiteral("ready")});
        QCOMPARE(ready.code, 0);
        QVERIFY(!ready.out.contains("ERROR"));
    }
};

QTEST_GUILESS_MAIN(TstLqctlErrors)
#include "tst_lqctl_errors.moc"
