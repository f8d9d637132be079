// SPDX-License-Identifier: MIT
// lqctl end to end on a Laravel database queue (tests/data/formats/laravel-database.sqlite3):
// every command on a copy of the fixture, checked against facts.json and
// against the rows the sqlite3 shell sees.
#include "support/fixtures.h"
#include "support/lqctlrun.h"

#include <QFile>
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

const QString kFixture = QStringLiteral("formats/laravel-database.sqlite3");

QString dump(const QString& path) {
    return sqlText(path, "SELECT group_concat(json_array(t.*), '|') FROM (SELECT * FROM jobs "
                         "ORDER BY id) t") +
           QLatin1Char('\n') +
           sqlText(path, "SELECT group_concat(json_array(t.*), '|') FROM (SELECT * FROM "
                         "failed_jobs ORDER BY id) t");
}

} // namespace

class TstLqctlLaravel : public QObject {
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
        QVERIFY(info.out.contains("laravel-database"));
        const QJsonObject s = runJson({QStringLiteral("stats"), path}).object();
        QCOMPARE(s.value(QStringLiteral("format")).toString(), QStringLiteral("laravel-database"));
        const QJsonObject c = s.value(QStringLiteral("counts")).toObject();
        const QJsonObject want = m_lqctl.facts().value(QStringLiteral("counts")).toObject();
        QCOMPARE(c.value(QStringLiteral("ready")).toInteger(),
                 want.value(QStringLiteral("READY")).toInteger());
        QCOMPARE(c.value(QStringLiteral("scheduled")).toInteger(),
                 want.value(QStringLiteral("SCHEDULED")).toInteger());
        QCOMPARE(c.value(QStringLiteral("failed")).toInteger(),
                 want.value(QStringLiteral("FAILED")).toInteger());
        QCOMPARE(lq::test::countsAsFacts(s, m_lqctl.facts())
                     .value(QStringLiteral("extra"))
                     .toObject()
                     .value(QStringLiteral("locked_expired"))
                     .toInteger(),
                 m_lqctl.facts()
                     .value(QStringLiteral("extra"))
                     .toObject()
                     .value(QStringLiteral("locked_expired"))
                     .toInteger());
        const QString mismatch = m_lqctl.perQueueListMismatch(path);
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
        const QJsonObject g =
            runJson({QStringLiteral("get"), path, QStringLiteral("failed_jobs:1")}).object();
        QVERIFY(!g.isEmpty());
        QCOMPARE(fileDigest(path), before);
    }

    void actionsAndUndo() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        const QString before = dump(path);
        QCOMPARE(run({QStringLiteral("retry"), path, QStringLiteral("failed_jobs:1")}).code, 0);
        QCOMPARE(sqlText(path, "SELECT count(*) FROM failed_jobs"), QStringLiteral("1"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(dump(path), before);
        QCOMPARE(run({QStringLiteral("release"), path, QStringLiteral("jobs:21")}).code, 0);
        QCOMPARE(sqlText(path, "SELECT reserved_at IS NULL FROM jobs WHERE id = 21"),
                 QStringLiteral("1"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(dump(path), before);
        // A live reservation is refused; a stale token is refused.
        QVERIFY(run({QStringLiteral("delete"), path, QStringLiteral("jobs:20")}).code != 0);
        QVERIFY(run({QStringLiteral("release"), path, QStringLiteral("jobs:17"),
                     QStringLiteral("--claim"), QStringLiteral("12345")})
                    .code != 0);
        QVERIFY(run({QStringLiteral("fail"), path, QStringLiteral("jobs:22")}).code != 0);
        QCOMPARE(dump(path), before);
        // Prune failed rows older than an hour (queue:prune-failed), then undo.
        QCOMPARE(run({QStringLiteral("prune"), path, QStringLiteral("--older-than"),
                      QStringLiteral("3600"), QStringLiteral("--yes")})
                     .code,
                 0);
        QCOMPARE(sqlText(path, "SELECT count(*) FROM failed_jobs"), QStringLiteral("0"));
        QCOMPARE(sqlText(path, "SELECT count(*) FROM jobs"), QStringLiteral("10"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(dump(path), before);
        QCOMPARE(sqlText(path, "PRAGMA integrity_check"), QStringLiteral("ok"));
    }
};

QTEST_GUILESS_MAIN(TstLqctlLaravel)
#include "tst_lqctl_laravel.moc"
