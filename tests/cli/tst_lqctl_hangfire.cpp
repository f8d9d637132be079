// SPDX-License-Identifier: MIT
// lqctl end to end on a Hangfire.Storage.SQLite file
// (tests/data/formats/hangfire-sqlite.sqlite3): the read commands against
// facts.json, stuck by the invisibility timeout (--invisibility-timeout),
// `errors` grouped by exception type, `processes` from the Server table, and
// requeue, delete and prune with their refusals and undo, checked against
// the rows the sqlite3 C API sees.
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

const QString kFixture = QStringLiteral("formats/hangfire-sqlite.sqlite3");
const QString kFailedOp = QStringLiteral("4");
const QString kReady = QStringLiteral("7");
const QString kProcessing = QStringLiteral("9");

QString dump(const QString& path) {
    QString out;
    for (const char* t : {"Job", "State", "JobParameter", "JobQueue", "Set"})
        out += sqlText(path, QByteArray("SELECT group_concat(json_array(t.*), '|') FROM (SELECT * "
                                        "FROM \"") +
                                 t + "\" ORDER BY Id) t") +
               QLatin1Char('\n');
    return out;
}

} // namespace

class TstLqctlHangfire : public QObject {
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
        QVERIFY(info.out.contains("hangfire-sqlite"));
        const QJsonObject s = runJson({QStringLiteral("stats"), path}).object();
        QCOMPARE(s.value(QStringLiteral("format")).toString(), QStringLiteral("hangfire-sqlite"));
        const QJsonObject c = s.value(QStringLiteral("counts")).toObject();
        const QJsonObject want = m_lqctl.facts().value(QStringLiteral("counts")).toObject();
        for (const char* k : {"ready", "scheduled", "locked", "done", "failed"})
            QCOMPARE(c.value(QLatin1String(k)).toInteger(),
                     want.value(QString::fromLatin1(k).toUpper()).toInteger());
        // Stale fetches: older than InvisibilityTimeout (30 min), not --stuck-after.
        QCOMPARE(s.value(QStringLiteral("stuck")).toInteger(), qint64(2));
        const QJsonObject ten =
            runJson({QStringLiteral("stats"), path, QStringLiteral("--invisibility-timeout"),
                     QStringLiteral("600")})
                .object();
        QCOMPARE(ten.value(QStringLiteral("stuck")).toInteger(), qint64(3));
        const QString mismatch = m_lqctl.perQueueListMismatch(path);
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
        const QJsonObject g = runJson({QStringLiteral("get"), path, kFailedOp}).object();
        QCOMPARE(g.value(QStringLiteral("queue")).toString(), QStringLiteral("critical"));
        QCOMPARE(g.value(QStringLiteral("job")).toString(), QStringLiteral("ReportBuilder.Build"));
        QVERIFY(g.value(QStringLiteral("error"))
                    .toString()
                    .startsWith(QStringLiteral("System.InvalidOperationException: Unknown")));
        const LqctlResult p = run({QStringLiteral("processes"), path});
        QCOMPARE(p.code, 0);
        QVERIFY(p.out.contains("shop-worker-2"));
        QCOMPARE(fileDigest(path), before);
    }

    void errorsGroupedByExceptionType() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        const QJsonArray groups = runJson({QStringLiteral("errors"), path})
                                      .object()
                                      .value(QStringLiteral("groups"))
                                      .toArray();
        QCOMPARE(groups.size(), 2);
        QCOMPARE(groups.at(0).toObject().value(QStringLiteral("error")).toString(),
                 QStringLiteral("System.InvalidOperationException"));
        QCOMPARE(groups.at(1).toObject().value(QStringLiteral("error")).toString(),
                 QStringLiteral("System.Net.Http.HttpRequestException"));
        QCOMPARE(groups.at(1).toObject().value(QStringLiteral("queues")).toArray(),
                 QJsonArray{QStringLiteral("emails")});
    }

    void actionsAndUndo() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        const QString before = dump(path);
        QCOMPARE(run({QStringLiteral("retry"), path, kFailedOp}).code, 0);
        QCOMPARE(sqlText(path, "SELECT StateName || '|' || ExpireAt || '|' || (SELECT Queue || "
                               "FetchedAt FROM JobQueue WHERE JobId = 4) FROM Job WHERE Id = 4"),
                 QStringLiteral("Enqueued|0|critical0"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(dump(path), before);
        QCOMPARE(run({QStringLiteral("delete"), path, kReady}).code, 0);
        QCOMPARE(sqlText(path, "SELECT (SELECT count(*) FROM Job) || '|' || (SELECT count(*) "
                               "FROM JobQueue WHERE JobId = 7)"),
                 QStringLiteral("15|0"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(dump(path), before);
        // A job a worker holds is not deleted; a stale token is refused; fail
        // and release are not offered; requeue takes Failed and Deleted jobs.
        QVERIFY(run({QStringLiteral("delete"), path, kProcessing}).code != 0);
        QVERIFY(run({QStringLiteral("delete"), path, kReady, QStringLiteral("--claim"),
                     QStringLiteral("12345")})
                    .code != 0);
        QVERIFY(run({QStringLiteral("fail"), path, kProcessing}).code != 0);
        QVERIFY(run({QStringLiteral("release"), path, kProcessing}).code != 0);
        QVERIFY(run({QStringLiteral("retry"), path, kReady}).code != 0);
        QCOMPARE(dump(path), before);
        // Prune as the ExpirationManager: jobs 1 and 14 expired; then undo.
        QCOMPARE(run({QStringLiteral("prune"), path, QStringLiteral("--yes")}).code, 0);
        QCOMPARE(sqlText(path, "SELECT count(*) FROM Job"), QStringLiteral("14"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(dump(path), before);
        QCOMPARE(sqlText(path, "PRAGMA integrity_check"), QStringLiteral("ok"));
    }
};

QTEST_GUILESS_MAIN(TstLqctlHangfire)
#include "tst_lqctl_hangfire.moc"
