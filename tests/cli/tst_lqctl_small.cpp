// SPDX-License-Identifier: MIT
// lqctl end to end on the goqite, backlite and plainjob fixtures: every command on a
// copy, counts against tests/data/formats/facts.json and the rows against
// independent SQLite queries.
#include <support/fixtures.h>
#include <support/lqctlrun.h>

#include <sqlite3.h>

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Result {
    int code = -1;
    QByteArray out, err;
};

QJsonObject factsOf(const QString& fixture) {
    QFile f(lq::test::dataDir() + QStringLiteral("/formats/facts.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read formats/facts.json");
    return QJsonDocument::fromJson(f.readAll()).object().value(fixture).toObject();
}

QByteArray sha256(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex();
}

/// One value by plain SQL ("" when no row, "NULL" for NULL).
QString scalar(const QString& path, const QString& sql) {
    sqlite3* db = nullptr;
    QString out;
    if (sqlite3_open_v2(QFile::encodeName(path).constData(), &db, SQLITE_OPEN_READONLY, nullptr) ==
        SQLITE_OK) {
        sqlite3_stmt* st = nullptr;
        const QByteArray q = sql.toUtf8();
        if (sqlite3_prepare_v2(db, q.constData(), -1, &st, nullptr) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            out =
                sqlite3_column_type(st, 0) == SQLITE_NULL
                    ? QStringLiteral("NULL")
                    : QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
        sqlite3_finalize(st);
    }
    sqlite3_close_v2(db);
    return out;
}

} // namespace

class TstLqctlSmall : public QObject {
    Q_OBJECT

    QTemporaryDir m_audit;

    Result run(const QStringList& args) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("LQ_AUDIT_DIR"), m_audit.path());
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(LQCTL_PATH), args);
        Result r;
        if (!p.waitForStarted())
            return r;
        p.closeWriteChannel();
        if (!p.waitForFinished(30000)) {
            p.kill();
            p.waitForFinished();
            return r;
        }
        r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        r.out = p.readAllStandardOutput();
        r.err = p.readAllStandardError();
        return r;
    }

    QJsonDocument runJson(const QStringList& args) {
        const Result r = run(args);
        if (r.code != 0)
            qWarning("lqctl %s: exit %d: %s", qPrintable(args.join(QLatin1Char(' '))), r.code,
                     r.err.constData());
        return QJsonDocument::fromJson(r.out);
    }

    /// info, stats --json (format, counts, extra), --queue, list and get,
    /// none of which changes the file.
    void readCommands(const QString& fixture, const QString& format, const QString& queue,
                      const QString& id) {
        QTemporaryDir dir;
        const QString path = lq::test::copyFixture(dir, QStringLiteral("formats/") + fixture);
        const QByteArray before = sha256(path);
        const QJsonObject facts = factsOf(fixture);
        const QString now = facts.value(QStringLiteral("now")).toString();
        const QJsonObject info =
            runJson({QStringLiteral("info"), path, QStringLiteral("--json")}).object();
        QCOMPARE(info.value(QStringLiteral("format")).toString(), format);
        const QJsonObject s = runJson({QStringLiteral("stats"), path, QStringLiteral("--json"),
                                       QStringLiteral("--now"), now})
                                  .object();
        QCOMPARE(s.value(QStringLiteral("format")).toString(), format);
        const QJsonObject c = s.value(QStringLiteral("counts")).toObject();
        const QJsonObject want = facts.value(QStringLiteral("counts")).toObject();
        const QJsonObject got = lq::test::countsAsFacts(s, facts);
        for (const char* st : {"READY", "SCHEDULED", "LOCKED", "DONE", "FAILED"})
            QCOMPARE(got.value(QLatin1String(st)).toInteger(),
                     want.value(QLatin1String(st)).toInteger());
        QCOMPARE(c.value(QStringLiteral("stored")).toInteger(),
                 facts.value(QStringLiteral("stored"))
                     .toObject()
                     .value(QStringLiteral("jobs"))
                     .toInteger());
        QCOMPARE(got.value(QStringLiteral("extra")).toObject(),
                 facts.value(QStringLiteral("extra")).toObject());
        const QJsonObject pq =
            facts.value(QStringLiteral("per_queue")).toObject().value(queue).toObject();
        const QJsonObject qc = lq::test::countsAsFacts(
            runJson({QStringLiteral("stats"), path, QStringLiteral("--json"),
                     QStringLiteral("--now"), now, QStringLiteral("--queue"), queue})
                .object(),
            facts);
        std::int64_t inQueue = 0;
        for (const char* st : {"READY", "SCHEDULED", "LOCKED", "DONE", "FAILED"}) {
            const auto n = pq.value(QLatin1String(st)).toInteger();
            QCOMPARE(qc.value(QLatin1String(st)).toInteger(), n);
            inQueue += n;
        }
        const QJsonArray listed =
            runJson({QStringLiteral("list"), path, QStringLiteral("--json"),
                     QStringLiteral("--now"), now, QStringLiteral("--queue"), queue})
                .array();
        QCOMPARE(listed.size(), qsizetype(inQueue));
        const QJsonObject m = runJson({QStringLiteral("get"), path, id, QStringLiteral("--json"),
                                       QStringLiteral("--now"), now})
                                  .object();
        QCOMPARE(m.value(QStringLiteral("message_id")).toString(), id);
        QCOMPARE(run({QStringLiteral("get"), path, QStringLiteral("no-such-id")}).code, 1);
        QCOMPARE(sha256(path), before);
    }

private slots:
    void plainjobReads() {
        readCommands(QStringLiteral("plainjob.sqlite3"), QStringLiteral("plainjob"),
                     QStringLiteral("send-email"), QStringLiteral("6"));
    }
    void goqiteReads() {
        readCommands(QStringLiteral("goqite.sqlite3"), QStringLiteral("goqite"),
                     QStringLiteral("emails"),
                     QStringLiteral("m_b3ee8a40d042cc7f63930a381dc265f2"));
    }

    void backliteReads() {
        readCommands(QStringLiteral("backlite.sqlite3"), QStringLiteral("backlite"),
                     QStringLiteral("emails"),
                     QStringLiteral("01a22bae-b680-7474-b768-064f958507ad"));
    }

    void backliteActionsAndUndo() {
        QTemporaryDir dir;
        const QString path = lq::test::copyFixture(dir, QStringLiteral("formats/backlite.sqlite3"));
        const QString now =
            factsOf(QStringLiteral("backlite.sqlite3")).value(QStringLiteral("now")).toString();
        const QString expired = QStringLiteral("01a22c46-b0c0-7c40-bb7c-c97d5d8d14b8");
        const QString sql =
            QStringLiteral("SELECT claimed_at FROM backlite_tasks WHERE id = '%1'").arg(expired);
        const QString claimed = scalar(path, sql);
        QCOMPARE(run({QStringLiteral("release"), path, expired, QStringLiteral("--now"), now}).code,
                 0);
        QCOMPARE(scalar(path, sql), QStringLiteral("NULL"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(scalar(path, sql), claimed);
        // At the fixture's now no expires_at has passed: backlite's cleaner
        // (prune's default) deletes nothing; --older-than 0 every completed task.
        QCOMPARE(run({QStringLiteral("prune"), path, QStringLiteral("--yes"),
                      QStringLiteral("--now"), now})
                     .code,
                 0);
        QCOMPARE(scalar(path, QStringLiteral("SELECT count(*) FROM backlite_tasks_completed")),
                 QStringLiteral("11"));
        QCOMPARE(
            run({QStringLiteral("prune"), path, QStringLiteral("--yes"),
                 QStringLiteral("--older-than"), QStringLiteral("0"), QStringLiteral("--now"), now})
                .code,
            0);
        QCOMPARE(scalar(path, QStringLiteral("SELECT count(*) FROM backlite_tasks_completed")),
                 QStringLiteral("0"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(scalar(path, QStringLiteral("SELECT count(*) FROM backlite_tasks_completed")),
                 QStringLiteral("11"));
        const Result r = run({QStringLiteral("retry"), path,
                              QStringLiteral("01a22be5-a500-7bcf-9f5c-066a7a206c4d")});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("backlite"), r.err.constData());
    }

    void plainjobActionsAndUndo() {
        QTemporaryDir dir;
        const QString path = lq::test::copyFixture(dir, QStringLiteral("formats/plainjob.sqlite3"));
        const QString now =
            factsOf(QStringLiteral("plainjob.sqlite3")).value(QStringLiteral("now")).toString();
        const auto col = [&](const char* c, int id) {
            return scalar(path, QStringLiteral("SELECT %1 FROM plainjob_jobs WHERE id = %2")
                                    .arg(QLatin1String(c))
                                    .arg(id));
        };
        // retry a failed job, then undo it.
        const QString err6 = col("error", 6);
        QCOMPARE(
            run({QStringLiteral("retry"), path, QStringLiteral("6"), QStringLiteral("--now"), now})
                .code,
            0);
        QCOMPARE(col("status", 6), QStringLiteral("0"));
        QCOMPARE(col("next_run_at", 6), QStringLiteral("1796040000000"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(col("status", 6), QStringLiteral("3"));
        QCOMPARE(col("error", 6), err6);
        // release: only past the timeout.
        QVERIFY(run({QStringLiteral("release"), path, QStringLiteral("12"), QStringLiteral("--now"),
                     now})
                    .code != 0);
        QCOMPARE(col("status", 12), QStringLiteral("1"));
        QCOMPARE(run({QStringLiteral("release"), path, QStringLiteral("11"),
                      QStringLiteral("--now"), now})
                     .code,
                 0);
        QCOMPARE(col("status", 11), QStringLiteral("0"));
        // run a scheduled job now.
        QCOMPARE(run({QStringLiteral("reschedule"), path, QStringLiteral("16"),
                      QStringLiteral("--delay"), QStringLiteral("0"), QStringLiteral("--now"), now})
                     .code,
                 0);
        QCOMPARE(col("next_run_at", 16), QStringLiteral("1796040000000"));
        // delete, prune.
        QCOMPARE(
            run({QStringLiteral("delete"), path, QStringLiteral("9"), QStringLiteral("--now"), now})
                .code,
            0);
        QCOMPARE(col("id", 9), QString());
        QCOMPARE(run({QStringLiteral("prune"), path, QStringLiteral("--yes"),
                      QStringLiteral("--now"), now})
                     .code,
                 0);
        QCOMPARE(scalar(path, QStringLiteral("SELECT count(*) FROM plainjob_jobs WHERE status IN "
                                             "(2, 3)")),
                 QStringLiteral("0"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(scalar(path, QStringLiteral("SELECT count(*) FROM plainjob_jobs WHERE status IN "
                                             "(2, 3)")),
                 QStringLiteral("9"));
        // not offered: the reason, nothing written.
        const Result f = run({QStringLiteral("fail"), path, QStringLiteral("13")});
        QVERIFY(f.code != 0);
        QVERIFY2(f.err.contains("plainjob"), f.err.constData());
        QCOMPARE(col("status", 13), QStringLiteral("0"));
    }

    void goqiteActionsAndUndo() {
        QTemporaryDir dir;
        const QString path = lq::test::copyFixture(dir, QStringLiteral("formats/goqite.sqlite3"));
        const QString now =
            factsOf(QStringLiteral("goqite.sqlite3")).value(QStringLiteral("now")).toString();
        const QString dead = QStringLiteral("m_b3ee8a40d042cc7f63930a381dc265f2");
        const auto col = [&](const char* c, const QString& id) {
            return scalar(
                path,
                QStringLiteral("SELECT %1 FROM goqite WHERE id = '%2'").arg(QLatin1String(c), id));
        };
        const QString timeout = col("timeout", dead);
        QCOMPARE(run({QStringLiteral("retry"), path, dead, QStringLiteral("--now"), now}).code, 0);
        QCOMPARE(col("received", dead), QStringLiteral("0"));
        QCOMPARE(col("timeout", dead), QStringLiteral("2026-11-30T12:00:00.000Z"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(col("received", dead), QStringLiteral("3"));
        QCOMPARE(col("timeout", dead), timeout);
        // A message in flight is refused.
        const QString inFlight = QStringLiteral("m_05a6bb34ef7dcca23f712b26a62b040d");
        QVERIFY(
            run({QStringLiteral("delete"), path, inFlight, QStringLiteral("--now"), now}).code !=
            0);
        QCOMPARE(col("received", inFlight), QStringLiteral("1"));
        const Result rel = run({QStringLiteral("release"), path, inFlight});
        QVERIFY(rel.code != 0);
        QVERIFY2(rel.err.contains("lease"), rel.err.constData());
        // prune removes the dead letters only.
        QCOMPARE(run({QStringLiteral("prune"), path, QStringLiteral("--yes"),
                      QStringLiteral("--now"), now})
                     .code,
                 0);
        QCOMPARE(scalar(path, QStringLiteral("SELECT count(*) FROM goqite")), QStringLiteral("24"));
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(scalar(path, QStringLiteral("SELECT count(*) FROM goqite")), QStringLiteral("26"));
    }
};

QTEST_GUILESS_MAIN(TstLqctlSmall)
#include "tst_lqctl_small.moc"
