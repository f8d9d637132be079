// SPDX-License-Identifier: MIT
// lqctl end to end on a Laravel database queue (tests/data/formats/laravel-database.sqlite3):
// every command on a copy of the fixture, checked against facts.json and
// against the rows the sqlite3 shell sees.
#include "support/fixtures.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

using lq::test::copyFixture;

namespace {

const QString kFixture = QStringLiteral("formats/laravel-database.sqlite3");

struct Result {
    int code = -1;
    QByteArray out;
    QByteArray err;
};

QByteArray sha256(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return "<missing>";
    QCryptographicHash h(QCryptographicHash::Sha256);
    h.addData(&f);
    return h.result().toHex();
}

/// One value the sqlite3 shell would print for `sql` ("" when no row).
QString scalar(const QString& path, const QByteArray& sql) {
    sqlite3* db = nullptr;
    QString v;
    if (sqlite3_open_v2(QFile::encodeName(path).constData(), &db, SQLITE_OPEN_READONLY, nullptr) ==
        SQLITE_OK) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, sql.constData(), -1, &st, nullptr) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
            v = QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return v;
}

QString dump(const QString& path) {
    return scalar(path, "SELECT group_concat(json_array(t.*), '|') FROM (SELECT * FROM jobs "
                        "ORDER BY id) t") +
           QLatin1Char('\n') +
           scalar(path, "SELECT group_concat(json_array(t.*), '|') FROM (SELECT * FROM "
                        "failed_jobs ORDER BY id) t");
}

} // namespace

class TstLqctlLaravel : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_audit;
    QJsonObject m_facts;
    QString m_now;

    Result run(QStringList args) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("LQ_AUDIT_DIR"), m_audit.path());
        p.setProcessEnvironment(env);
        args << QStringLiteral("--now") << m_now;
        p.start(QStringLiteral(LQCTL_PATH), args);
        if (!p.waitForStarted())
            return {};
        p.closeWriteChannel();
        if (!p.waitForFinished(30000)) {
            p.kill();
            p.waitForFinished();
            return {};
        }
        Result r;
        r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        r.out = p.readAllStandardOutput();
        r.err = p.readAllStandardError();
        return r;
    }

    QJsonDocument runJson(const QStringList& args) {
        const Result r = run(args + QStringList{QStringLiteral("--json")});
        if (r.code != 0)
            qWarning("lqctl %s: exit %d: %s", qPrintable(args.join(QLatin1Char(' '))), r.code,
                     r.err.constData());
        return QJsonDocument::fromJson(r.out);
    }

    /// The token lqctl shows for job `id` right now.
    QString tokenOf(const QString& path, const QString& id) {
        return QString::number(runJson({QStringLiteral("get"), path, id})
                                   .object()
                                   .value(QStringLiteral("token"))
                                   .toInteger());
    }

private slots:
    void initTestCase() {
        QFile f(lq::test::dataDir() + QStringLiteral("/formats/facts.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        m_facts = QJsonDocument::fromJson(f.readAll())
                      .object()
                      .value(QStringLiteral("laravel-database.sqlite3"))
                      .toObject();
        m_now = QStringLiteral("2026-11-30T12:00:00Z");
    }

    void readCommands() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        const QByteArray before = sha256(path);
        const Result info = run({QStringLiteral("info"), path});
        QCOMPARE(info.code, 0);
        QVERIFY(info.out.contains("laravel-database"));
        const QJsonObject s = runJson({QStringLiteral("stats"), path}).object();
        QCOMPARE(s.value(QStringLiteral("format")).toString(), QStringLiteral("laravel-database"));
        const QJsonObject c = s.value(QStringLiteral("counts")).toObject();
        const QJsonObject want = m_facts.value(QStringLiteral("counts")).toObject();
        QCOMPARE(c.value(QStringLiteral("ready")).toInteger(),
                 want.value(QStringLiteral("READY")).toInteger());
        QCOMPARE(c.value(QStringLiteral("scheduled")).toInteger(),
                 want.value(QStringLiteral("SCHEDULED")).toInteger());
        QCOMPARE(c.value(QStringLiteral("failed")).toInteger(),
                 want.value(QStringLiteral("FAILED")).toInteger());
        QCOMPARE(c.value(QStringLiteral("extra"))
                     .toObject()
                     .value(QStringLiteral("locked_expired"))
                     .toInteger(),
                 m_facts.value(QStringLiteral("extra"))
                     .toObject()
                     .value(QStringLiteral("locked_expired"))
                     .toInteger());
        const QJsonObject perQueue = m_facts.value(QStringLiteral("per_queue")).toObject();
        for (auto it = perQueue.begin(); it != perQueue.end(); ++it) {
            std::int64_t n = 0;
            const QJsonObject w = it.value().toObject();
            for (auto j = w.begin(); j != w.end(); ++j)
                n += j.value().toInteger();
            const QJsonDocument l =
                runJson({QStringLiteral("list"), path, QStringLiteral("--queue"), it.key()});
            QCOMPARE(std::int64_t(l.array().size()), n);
        }
        const QJsonObject g =
            runJson({QStringLiteral("get"), path, QStringLiteral("failed_jobs:1")}).object();
        QVERIFY(!g.isEmpty());
        QCOMPARE(sha256(path), before);
    }

    void actionsAndUndo() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        const QString before = dump(path);
        QCOMPARE(run({QStringLiteral("retry"), path, QStringLiteral("failed_jobs:1")}).code, 0);
        QCOMPARE(scalar(path, "SELECT count(*) FROM failed_jobs"), QStringLiteral("1"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(dump(path), before);
        QCOMPARE(run({QStringLiteral("release"), path, QStringLiteral("jobs:21")}).code, 0);
        QCOMPARE(scalar(path, "SELECT reserved_at IS NULL FROM jobs WHERE id = 21"),
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
        QCOMPARE(scalar(path, "SELECT count(*) FROM failed_jobs"), QStringLiteral("0"));
        QCOMPARE(scalar(path, "SELECT count(*) FROM jobs"), QStringLiteral("10"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(dump(path), before);
        QCOMPARE(scalar(path, "PRAGMA integrity_check"), QStringLiteral("ok"));
    }
};

QTEST_GUILESS_MAIN(TstLqctlLaravel)
#include "tst_lqctl_laravel.moc"
