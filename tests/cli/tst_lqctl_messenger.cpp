// SPDX-License-Identifier: MIT
// lqctl end to end on a Symfony Messenger Doctrine transport table
// (tests/data/formats/symfony-messenger.sqlite3): the read commands against
// facts.json, the failure transport's errors grouped by class, and release,
// delete and prune with their refusals (retry is not offered) and undo,
// checked against the rows the sqlite3 C API sees.
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

const QString kFixture = QStringLiteral("formats/symfony-messenger.sqlite3");

QString dump(const QString& path) {
    return sqlText(path, "SELECT group_concat(json_array(t.*), '|') FROM (SELECT * FROM "
                         "messenger_messages ORDER BY id) t");
}

} // namespace

class TstLqctlMessenger : public QObject {
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
        QVERIFY(info.out.contains("symfony-messenger"));
        const QJsonObject s = runJson({QStringLiteral("stats"), path}).object();
        QCOMPARE(s.value(QStringLiteral("format")).toString(), QStringLiteral("symfony-messenger"));
        const QJsonObject c = s.value(QStringLiteral("counts")).toObject();
        const QJsonObject want = m_lqctl.facts().value(QStringLiteral("counts")).toObject();
        qint64 sum = 0;
        for (const char* k : {"ready", "scheduled", "locked", "done", "failed"}) {
            QCOMPARE(c.value(QLatin1String(k)).toInteger(),
                     want.value(QString::fromLatin1(k).toUpper()).toInteger());
            sum += c.value(QLatin1String(k)).toInteger();
        }
        QCOMPARE(sum, c.value(QStringLiteral("stored")).toInteger()); // a partition
        QCOMPARE(s.value(QStringLiteral("stuck")).toInteger(), qint64(1));
        // redeliver_timeout is the transport's option: 10 min makes the
        // 11:40 delivery stuck too.
        const QJsonObject shorter =
            runJson({QStringLiteral("stats"), path, QStringLiteral("--redeliver-timeout"),
                     QStringLiteral("600")})
                .object();
        QCOMPARE(shorter.value(QStringLiteral("stuck")).toInteger(), qint64(2));
        // Per queue (a transport's option): 6 h for `reports` keeps 07:30 live.
        const QJsonObject perQueue =
            runJson({QStringLiteral("stats"), path, QStringLiteral("--redeliver-timeout"),
                     QStringLiteral("reports=21600")})
                .object();
        QCOMPARE(perQueue.value(QStringLiteral("stuck")).toInteger(), qint64(0));
        const QString mismatch = m_lqctl.perQueueListMismatch(path);
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
        // The failure transport's messages with the message class and the error.
        const QJsonArray failed = runJson({QStringLiteral("list"), path, QStringLiteral("--queue"),
                                           QStringLiteral("failed")})
                                      .array();
        QCOMPARE(failed.size(), 2);
        const QJsonObject g = runJson({QStringLiteral("get"), path, QStringLiteral("11")}).object();
        QVERIFY(!g.isEmpty());
        const QByteArray text = run({QStringLiteral("get"), path, QStringLiteral("11")}).out;
        QVERIFY(text.contains("App\\Message\\ChargeCard"));
        QVERIFY(text.contains("App\\Exception\\PaymentDeclinedException: card declined"));
        QVERIFY(text.contains("never unserialized"));
        QCOMPARE(fileDigest(path), before);
    }

    void errorsGroupedByClass() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        const QJsonObject e = runJson({QStringLiteral("errors"), path}).object();
        const QJsonArray groups = e.value(QStringLiteral("groups")).toArray();
        QCOMPARE(groups.size(), 2);
        QStringList errors;
        for (const QJsonValue v : groups) {
            QCOMPARE(v.toObject().value(QStringLiteral("count")).toInteger(), qint64(1));
            errors << v.toObject().value(QStringLiteral("error")).toString();
        }
        QCOMPARE(errors, (QStringList{QStringLiteral("App\\Exception\\PaymentDeclinedException"),
                                      QStringLiteral("Symfony\\Component\\Messenger\\Exception\\"
                                                     "UnrecoverableMessageHandlingException")}));
        const LqctlResult t = run({QStringLiteral("errors"), path});
        QCOMPARE(t.code, 0);
        QVERIFY(t.out.contains("UnrecoverableMessageHandlingException"));
    }

    void actionsAndUndo() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        const QString before = dump(path);
        // The crashed worker's delivery: released, then undone.
        QCOMPARE(run({QStringLiteral("release"), path, QStringLiteral("1")}).code, 0);
        QCOMPARE(sqlText(path, "SELECT delivered_at IS NULL FROM messenger_messages WHERE id = 1"),
                 QStringLiteral("1"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(dump(path), before);
        QCOMPARE(run({QStringLiteral("delete"), path, QStringLiteral("5")}).code, 0);
        QCOMPARE(sqlText(path, "SELECT count(*) FROM messenger_messages WHERE id = 5"),
                 QStringLiteral("0"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(dump(path), before);
        // A live delivery is refused; a stale token is refused; retry and
        // fail are not offered (retry names the library's own command).
        QVERIFY(run({QStringLiteral("delete"), path, QStringLiteral("16")}).code != 0);
        QVERIFY(run({QStringLiteral("release"), path, QStringLiteral("16")}).code != 0);
        QVERIFY(run({QStringLiteral("delete"), path, QStringLiteral("17"),
                     QStringLiteral("--claim"), QStringLiteral("12345")})
                    .code != 0);
        const LqctlResult retry = run({QStringLiteral("retry"), path, QStringLiteral("11")});
        QVERIFY(retry.code != 0);
        QVERIFY(retry.err.contains("messenger:failed:retry"));
        QVERIFY(run({QStringLiteral("fail"), path, QStringLiteral("17")}).code != 0);
        QCOMPARE(dump(path), before);
        // Prune: the failure transport (sent there 09:05:07 and 09:10:00).
        QCOMPARE(run({QStringLiteral("prune"), path, QStringLiteral("--older-than"),
                      QStringLiteral("3600"), QStringLiteral("--yes")})
                     .code,
                 0);
        QCOMPARE(sqlText(path, "SELECT count(*) FROM messenger_messages"), QStringLiteral("8"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(dump(path), before);
        QCOMPARE(sqlText(path, "PRAGMA integrity_check"), QStringLiteral("ok"));
    }
};

QTEST_GUILESS_MAIN(TstLqctlMessenger)
#include "tst_lqctl_messenger.moc"
