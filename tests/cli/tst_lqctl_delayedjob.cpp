// SPDX-License-Identifier: MIT
// lqctl end to end on a Delayed::Job table (tests/data/formats/delayed-job.sqlite3):
// the read commands against facts.json, the default (NULL) queue by its
// name, --max-run-time, and retry, release, delete and prune with their
// refusals and undo, checked against the rows the sqlite3 C API sees.
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
using lq::test::sqlText;

namespace {

const QString kFixture = QStringLiteral("formats/delayed-job.sqlite3");

QString dump(const QString& path) {
    return sqlText(path, "SELECT group_concat(json_array(t.*), '|') FROM (SELECT * FROM "
                         "delayed_jobs ORDER BY id) t");
}

} // namespace

class TstLqctlDelayedJob : public QObject {
    Q_OBJECT

private:
    FixtureLqctl m_lqctl{kFixture};

    LqctlResult run(const QStringList& args) const { return m_lqctl.run(args); }
    QJsonDocument runJson(const QStringList& args) const { return m_lqctl.runJson(args); }

private slots:
    void readCommands() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        const QByteArray before = fileDigest(path);
        const LqctlResult info = run({QStringLiteral("info"), path});
        QCOMPARE(info.code, 0);
        QVERIFY(info.out.contains("delayed-job"));
        const QJsonObject s = runJson({QStringLiteral("stats"), path}).object();
        QCOMPARE(s.value(QStringLiteral("format")).toString(), QStringLiteral("delayed-job"));
        const QJsonObject c = s.value(QStringLiteral("counts")).toObject();
        const QJsonObject want = m_lqctl.facts().value(QStringLiteral("counts")).toObject();
        for (const char* k : {"ready", "scheduled", "locked", "failed"})
            QCOMPARE(c.value(QLatin1String(k)).toInteger(),
                     want.value(QString::fromLatin1(k).toUpper()).toInteger());
        QCOMPARE(s.value(QStringLiteral("stuck")).toInteger(), qint64(1));
        QVERIFY(m_lqctl.facts()
                    .value(QStringLiteral("per_queue"))
                    .toObject()
                    .contains(QStringLiteral("(default)")));
        const QString mismatch = m_lqctl.perQueueListMismatch(path);
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
        // max_run_time is the worker's setting: 10 min makes the 09:30 lock stuck too.
        const QJsonObject shorter =
            runJson({QStringLiteral("stats"), path, QStringLiteral("--max-run-time"),
                     QStringLiteral("600")})
                .object();
        QCOMPARE(shorter.value(QStringLiteral("stuck")).toInteger(), qint64(2));
        const QJsonObject g = runJson({QStringLiteral("get"), path, QStringLiteral("20")}).object();
        QVERIFY(!g.isEmpty());
        QCOMPARE(fileDigest(path), before);
    }

    void actionsAndUndo() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        const QString before = dump(path);
        QCOMPARE(run({QStringLiteral("retry"), path, QStringLiteral("6")}).code, 0);
        QCOMPARE(sqlText(path, "SELECT failed_at IS NULL AND locked_at IS NULL AND locked_by IS "
                               "NULL AND attempts = 3 FROM delayed_jobs WHERE id = 6"),
                 QStringLiteral("1"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(dump(path), before);
        QCOMPARE(run({QStringLiteral("release"), path, QStringLiteral("1")}).code, 0);
        QCOMPARE(sqlText(path, "SELECT locked_at IS NULL AND locked_by IS NULL FROM delayed_jobs "
                               "WHERE id = 1"),
                 QStringLiteral("1"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(dump(path), before);
        // A live lock is refused; a stale token is refused; fail is not offered.
        QVERIFY(run({QStringLiteral("delete"), path, QStringLiteral("12")}).code != 0);
        QVERIFY(run({QStringLiteral("release"), path, QStringLiteral("9")}).code != 0);
        QVERIFY(run({QStringLiteral("delete"), path, QStringLiteral("13"),
                     QStringLiteral("--claim"), QStringLiteral("12345")})
                    .code != 0);
        QVERIFY(run({QStringLiteral("fail"), path, QStringLiteral("13")}).code != 0);
        QCOMPARE(dump(path), before);
        // Prune: the failed jobs (09:20, older than an hour), then undo.
        QCOMPARE(run({QStringLiteral("prune"), path, QStringLiteral("--older-than"),
                      QStringLiteral("3600"), QStringLiteral("--yes")})
                     .code,
                 0);
        QCOMPARE(sqlText(path, "SELECT count(*) FROM delayed_jobs"), QStringLiteral("13"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(dump(path), before);
        QCOMPARE(sqlText(path, "PRAGMA integrity_check"), QStringLiteral("ok"));
    }
};

QTEST_GUILESS_MAIN(TstLqctlDelayedJob)
#include "tst_lqctl_delayedjob.moc"
