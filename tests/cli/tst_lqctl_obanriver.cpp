// SPDX-License-Identifier: MIT
// lqctl end to end on Oban Lite and River files: every command on copies of
// the fixtures, checked against tests/data/formats/facts.json and against
// the rows read back with the SQLite C API.
#include <support/fixtures.h>
#include <support/lqctlrun.h>

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

namespace {

using lq::test::copyFixture;

using lq::test::lqctlPath;

QJsonObject factsOf(const QString& file) {
    QFile f(lq::test::dataDir() + QStringLiteral("/formats/facts.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read formats/facts.json");
    return QJsonDocument::fromJson(f.readAll()).object().value(file).toObject();
}

QByteArray digest(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly)
               ? QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex()
               : QByteArray();
}

/// One text value read with the C API ("NULL" for NULL).
QString value(const QString& path, const QByteArray& sql) {
    sqlite3* db = nullptr;
    QString v = QStringLiteral("<none>");
    if (sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr) ==
        SQLITE_OK) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, sql.constData(), -1, &st, nullptr) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_type(st, 0) == SQLITE_NULL
                    ? QStringLiteral("NULL")
                    : QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return v;
}

struct Case {
    const char* fixture; ///< under tests/data/formats
    const char* format;
    const char* table;
    const char* queue;       ///< a queue of per_queue
    const char* failed;      ///< a FAILED job: retry
    const char* stale;       ///< a running job past the library's rescue rule
    const char* live;        ///< a running job with a live claim
    const char* finished;    ///< a finished job: delete
    const char* rowSnapshot; ///< the columns compared before/after undo
};

const Case kCases[] = {
    {"oban-lite.sqlite3", "oban-lite", "oban_jobs", "media", "9", "12", "5", "10",
     "state || max_attempts || scheduled_at || coalesce(discarded_at, '') || errors"},
    {"river-v7.sqlite3", "river-sqlite", "river_job", "billing", "9", "16", "6", "13",
     "state || max_attempts || scheduled_at || coalesce(finalized_at, '') || hex(coalesce(errors, "
     "'')) || hex(metadata)"},
};

} // namespace

class TstLqctlObanRiver : public QObject {
    Q_OBJECT

    QTemporaryDir m_audit;

    struct Result {
        int code = -1;
        QByteArray out, err;
    };

    Result run(QStringList args) {
        args << QStringLiteral("--now") << QStringLiteral("2026-11-30T12:00:00Z");
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("LQ_AUDIT_DIR"), m_audit.path());
        p.setProcessEnvironment(env);
        p.start(lqctlPath(), args);
        p.closeWriteChannel();
        if (!p.waitForFinished(60000)) {
            p.kill();
            p.waitForFinished();
            return {};
        }
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                p.readAllStandardOutput(), p.readAllStandardError()};
    }

    QJsonDocument json(const QStringList& args) {
        const Result r = run(QStringList(args) << QStringLiteral("--json"));
        if (r.code != 0)
            qWarning("lqctl %s: exit %d: %s", qPrintable(args.join(QLatin1Char(' '))), r.code,
                     r.err.constData());
        return QJsonDocument::fromJson(r.out);
    }

private slots:
    void everyCommand_data() {
        QTest::addColumn<int>("i");
        for (int i = 0; i < int(std::size(kCases)); ++i)
            QTest::newRow(kCases[i].format) << i;
    }

    void everyCommand() {
        QFETCH(int, i);
        const Case& k = kCases[i];
        const QString fixture = QString::fromLatin1(k.fixture);
        const QJsonObject facts = factsOf(fixture);
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/") + fixture);
        const QByteArray pristine = digest(path);
        const auto cell = [&](const char* id) {
            return value(path, QByteArray("SELECT ") + k.rowSnapshot + " FROM " + k.table +
                                   " WHERE id = " + id);
        };

        // info and stats: the format, the counts and extras of the facts.
        const QJsonObject info = json({QStringLiteral("info"), path}).object();
        QCOMPARE(info.value(QStringLiteral("format")).toString(), QString::fromLatin1(k.format));
        const QJsonObject s = json({QStringLiteral("stats"), path}).object();
        QCOMPARE(s.value(QStringLiteral("format")).toString(), QString::fromLatin1(k.format));
        const QJsonObject c = s.value(QStringLiteral("counts")).toObject();
        const QJsonObject want = facts.value(QStringLiteral("counts")).toObject();
        for (const char* st : {"READY", "SCHEDULED", "LOCKED", "DONE", "FAILED"})
            QCOMPARE(c.value(QString::fromLatin1(st).toLower()).toInteger(),
                     want.value(QString::fromLatin1(st)).toInteger());
        QCOMPARE(c.value(QStringLiteral("stored")).toInteger(),
                 facts.value(QStringLiteral("stored"))
                     .toObject()
                     .value(QStringLiteral("jobs"))
                     .toInteger());
        const QJsonObject extra = c.value(QStringLiteral("extra")).toObject();
        const QJsonObject wantExtra = facts.value(QStringLiteral("extra")).toObject();
        for (auto it = extra.begin(); it != extra.end(); ++it)
            QCOMPARE(it.value().toInteger(), wantExtra.value(it.key()).toInteger(0));
        QCOMPARE(s.value(QStringLiteral("stuck")).toInteger(),
                 wantExtra.value(QStringLiteral("locked_expired")).toInteger());

        // --queue narrows stats and list to the facts' per_queue.
        const QString queue = QString::fromLatin1(k.queue);
        const QJsonObject perQueue =
            facts.value(QStringLiteral("per_queue")).toObject().value(queue).toObject();
        qint64 total = 0;
        for (auto it = perQueue.begin(); it != perQueue.end(); ++it)
            total += it.value().toInteger();
        const QJsonObject sq =
            json({QStringLiteral("stats"), path, QStringLiteral("--queue"), queue}).object();
        QCOMPARE(sq.value(QStringLiteral("counts"))
                     .toObject()
                     .value(QStringLiteral("stored"))
                     .toInteger(),
                 total);
        QCOMPARE(sq.value(QStringLiteral("counts"))
                     .toObject()
                     .value(QStringLiteral("locked"))
                     .toInteger(),
                 perQueue.value(QStringLiteral("LOCKED")).toInteger(0));
        const QJsonArray listed =
            json({QStringLiteral("list"), path, QStringLiteral("--queue"), queue}).array();
        QCOMPARE(listed.size(), qsizetype(total));
        QCOMPARE(json({QStringLiteral("list"), path}).array().size(),
                 qsizetype(c.value(QStringLiteral("stored")).toInteger()));

        // get: the job's args and attempts.
        const QJsonObject got =
            json({QStringLiteral("get"), path, QString::fromLatin1(k.failed)}).object();
        QCOMPARE(got.value(QStringLiteral("status")).toString(), QStringLiteral("FAILED"));
        QVERIFY(got.value(QStringLiteral("data")).toString().startsWith(QLatin1Char('{')));
        QCOMPARE(digest(path), pristine); // reading changed nothing

        // retry, release (stale, then a live claim refused), delete; undo each.
        const QString failedBefore = cell(k.failed), staleBefore = cell(k.stale),
                      liveBefore = cell(k.live), finishedBefore = cell(k.finished);
        QCOMPARE(run({QStringLiteral("retry"), path, QString::fromLatin1(k.failed)}).code, 0);
        QVERIFY(cell(k.failed).startsWith(QLatin1String("available")));
        QCOMPARE(run({QStringLiteral("release"), path, QString::fromLatin1(k.stale)}).code, 0);
        QVERIFY(cell(k.stale) != staleBefore);
        const Result live = run({QStringLiteral("release"), path, QString::fromLatin1(k.live)});
        QVERIFY(live.code != 0);
        QVERIFY2(live.err.contains("live"), live.err.constData());
        QCOMPARE(cell(k.live), liveBefore);
        QVERIFY(run({QStringLiteral("delete"), path, QString::fromLatin1(k.live)}).code != 0);
        QCOMPARE(run({QStringLiteral("delete"), path, QString::fromLatin1(k.finished)}).code, 0);
        QCOMPARE(cell(k.finished), QStringLiteral("<none>"));
        // A stale claim: the token shown before the retry no longer holds.
        const QString oldToken = QString::number(got.value(QStringLiteral("token")).toInteger());
        const Result stale = run({QStringLiteral("delete"), path, QString::fromLatin1(k.failed),
                                  QStringLiteral("--claim"), oldToken});
        QVERIFY(stale.code != 0);
        QVERIFY(cell(k.failed).startsWith(QLatin1String("available")));
        // Not offered: mark failed, with the reason.
        const Result fail = run({QStringLiteral("fail"), path, QString::fromLatin1(k.failed)});
        QVERIFY(fail.code != 0);
        QVERIFY(!fail.err.isEmpty());

        for (int u = 0; u < 3; ++u)
            QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(cell(k.failed), failedBefore);
        QCOMPARE(cell(k.stale), staleBefore);
        QCOMPARE(cell(k.finished), finishedBefore);
        const Result audit = run({QStringLiteral("audit"), path});
        QCOMPARE(audit.code, 0);
        QVERIFY(audit.out.contains("release"));

        // prune: finished (completed and discarded) more than 2 h ago.
        const Result pr = run({QStringLiteral("prune"), path, QStringLiteral("--older-than"),
                               QStringLiteral("7200"), QStringLiteral("--yes")});
        QCOMPARE(pr.code, 0);
        const QJsonObject after = json({QStringLiteral("stats"), path}).object();
        QVERIFY(after.value(QStringLiteral("counts"))
                    .toObject()
                    .value(QStringLiteral("done"))
                    .toInteger() < want.value(QStringLiteral("DONE")).toInteger());
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
        QCOMPARE(json({QStringLiteral("stats"), path})
                     .object()
                     .value(QStringLiteral("counts"))
                     .toObject()
                     .value(QStringLiteral("stored"))
                     .toInteger(),
                 c.value(QStringLiteral("stored")).toInteger());
    }

    void listWhereJsonField() {
        // --where on Oban's JSON args and River's JSONB args, against the rows
        // read with the C API.
        QTemporaryDir dir;
        const QString oban = copyFixture(dir, QStringLiteral("formats/oban-lite.sqlite3"));
        const QString over3 = value(oban, "SELECT count(*) FROM oban_jobs WHERE "
                                          "json_extract(args, '$.account_id') > 3");
        const QJsonArray rows = json({QStringLiteral("list"), oban, QStringLiteral("--where"),
                                      QStringLiteral("args.account_id > 3")})
                                    .array();
        QCOMPARE(QString::number(rows.size()), over3);
        for (const auto& r : rows)
            QVERIFY(QJsonDocument::fromJson(
                        r.toObject().value(QStringLiteral("data")).toString().toUtf8())
                        .object()
                        .value(QStringLiteral("account_id"))
                        .toInt() > 3);
        // River stores args as JSONB; this SQLite cannot read it, lqctl can.
        // JSONB keeps a string's text as it is, so the blob holds it.
        const QString river = copyFixture(dir, QStringLiteral("formats/river-v7.sqlite3"));
        const QString user1 = value(river, "SELECT count(*) FROM river_job WHERE instr(args, "
                                           "CAST('user1@example.com' AS BLOB)) > 0");
        QVERIFY(user1.toInt() > 0);
        QCOMPARE(QString::number(json({QStringLiteral("list"), river, QStringLiteral("--where"),
                                       QStringLiteral("args.to = user1@example.com")})
                                     .array()
                                     .size()),
                 user1);
        // Wrong: a usage error naming what is wrong, nothing listed.
        const Result bad = run({QStringLiteral("list"), oban, QStringLiteral("--where"),
                                QStringLiteral("args.account_id >")});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains("expected a value after the operator"), bad.err.constData());
        const Result field = run({QStringLiteral("list"), oban, QStringLiteral("--where"),
                                  QStringLiteral("payload.x = 1")});
        QCOMPARE(field.code, 2);
        QVERIFY2(
            field.err.contains("no JSON field payload in oban-lite jobs; JSON fields: args, meta"),
            field.err.constData());
    }

    void damagedJsonbListsAsBytes() {
        QTemporaryDir dir;
        const QString path =
            copyFixture(dir, QStringLiteral("formats/river-v7-damaged-jsonb.sqlite3"));
        const QByteArray before = digest(path);
        const Result l = run({QStringLiteral("list"), path});
        QCOMPARE(l.code, 0);
        const QJsonObject g = json({QStringLiteral("get"), path, QStringLiteral("1")}).object();
        QCOMPARE(g.value(QStringLiteral("message_id")).toString(), QStringLiteral("1"));
        QCOMPARE(digest(path), before);
    }
};

QTEST_GUILESS_MAIN(TstLqctlObanRiver)
#include "tst_lqctl_obanriver.moc"
