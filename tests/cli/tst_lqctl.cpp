// SPDX-License-Identifier: MIT
// End-to-end tests of lqctl: the built executable runs on copies of the
// fixtures (never on tests/data in place) and its output is checked against
// tests/data/facts.json and against independent SQLite queries.
#include <core/queue.h>
#include <support/fixtures.h>
#include <support/lqctlrun.h>

#include <pwd.h>
#include <sqlite3.h>
#include <unistd.h>

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

namespace {

const QString kDataDir = lq::test::dataDir();
using lq::test::copyFixture;
const QString kMixed = QStringLiteral("litequeue-head-mixed.sqlite3");
const QString kMaxsize = QStringLiteral("litequeue-head-maxsize.sqlite3");
const QString kEmpty = QStringLiteral("litequeue-head-empty.sqlite3");
const QString kWalPending = QStringLiteral("wal-pending/litequeue-wal-pending.sqlite3");

using lq::test::lqctlPath;

struct Result {
    int code = -1;
    QByteArray out;
    QByteArray err;
};

QByteArray sha256(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QCryptographicHash h(QCryptographicHash::Sha256);
    h.addData(&f);
    return h.result().toHex();
}

/// Runs SQL on a file through the SQLite C API (the test's independent view).
bool execSql(const QString& path, const QByteArray& sql) {
    sqlite3* db = nullptr;
    if (sqlite3_open(path.toUtf8().constData(), &db) != SQLITE_OK) {
        sqlite3_close(db);
        return false;
    }
    char* msg = nullptr;
    const int rc = sqlite3_exec(db, sql.constData(), nullptr, nullptr, &msg);
    if (rc != SQLITE_OK)
        qWarning("sqlite3_exec: %s", msg ? msg : "?");
    sqlite3_free(msg);
    sqlite3_close(db);
    return rc == SQLITE_OK;
}

/// "lqctl: FILE: ", the start of every error line.
QByteArray errorPrefix(const QString& path) {
    QByteArray r = "lqctl: ";
    r += path.toUtf8();
    r += ": ";
    return r;
}

qint64 queryInt(const QString& path, const QByteArray& sql) {
    return lq::test::sqlInt(path, sql);
}

} // namespace

class TstLqctl : public QObject {
    Q_OBJECT

private:
    QJsonObject m_facts;
    QTemporaryDir m_audit;

    Result run(const QStringList& args, const QByteArray& input = {}, int timeoutMs = 30000) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("LQ_AUDIT_DIR"), m_audit.path());
        p.setProcessEnvironment(env);
        p.start(lqctlPath(), args);
        if (!p.waitForStarted())
            return {};
        if (!input.isEmpty())
            p.write(input);
        p.closeWriteChannel(); // stdin is a pipe: never a terminal
        if (!p.waitForFinished(timeoutMs)) {
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
        const Result r = run(args);
        if (r.code != 0) {
            qWarning("lqctl %s: exit %d: %s", qPrintable(args.join(QLatin1Char(' '))), r.code,
                     r.err.constData());
            return {};
        }
        QJsonParseError e;
        const auto doc = QJsonDocument::fromJson(r.out, &e);
        if (e.error != QJsonParseError::NoError)
            qWarning("invalid JSON: %s", qPrintable(e.errorString()));
        return doc;
    }

    QJsonObject queueFacts(const QString& fixture) const {
        return m_facts.value(fixture)
            .toObject()
            .value(QStringLiteral("queues"))
            .toObject()
            .value(QStringLiteral("Queue"))
            .toObject();
    }

    qint64 fakeEnd(const QString& fixture) const {
        const auto v = queueFacts(fixture).value(QStringLiteral("fake_clock_end_ns"));
        return v.isDouble()
                   ? v.toInteger()
                   : queueFacts(kMixed).value(QStringLiteral("fake_clock_end_ns")).toInteger();
    }

    QString nowArg(const QString& fixture) const { return QString::number(fakeEnd(fixture)); }

    /// Checks the text exposition format: HELP then TYPE once per family
    /// before its samples, valid sample lines, no duplicate series. Fills
    /// `series` with "name{labels}" -> value.
    static void checkPrometheus(const QByteArray& text, QHash<QString, QString>& series) {
        QVERIFY(text.endsWith('\n'));
        static const QRegularExpression help(
            QStringLiteral(R"(^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) \S.*$)"));
        static const QRegularExpression type(QStringLiteral(
            R"(^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$)"));
        static const QRegularExpression sample(QStringLiteral(
            R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*")"
            R"((?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*")*\})? )"
            R"((NaN|[+-]Inf|[+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)$)"));

        QHash<QString, QString> types;
        QSet<QString> helps, familiesWithSamples;
        for (const QString& line :
             QString::fromUtf8(text).split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            if (const auto m = help.match(line); m.hasMatch()) {
                QVERIFY2(!helps.contains(m.captured(1)), qPrintable(line));
                QVERIFY2(!familiesWithSamples.contains(m.captured(1)), qPrintable(line));
                helps.insert(m.captured(1));
                continue;
            }
            if (const auto m = type.match(line); m.hasMatch()) {
                QVERIFY2(!types.contains(m.captured(1)), qPrintable(line));
                QVERIFY2(helps.contains(m.captured(1)), qPrintable(line));
                types.insert(m.captured(1), m.captured(2));
                continue;
            }
            const auto m = sample.match(line);
            QVERIFY2(m.hasMatch(), qPrintable(line));
            QString family = m.captured(1);
            if (!types.contains(family)) {
                for (const char* suffix : {"_sum", "_count", "_bucket"}) {
                    const QString base = family.chopped(int(qstrlen(suffix)));
                    if (family.endsWith(QLatin1String(suffix)) &&
                        (types.value(base) == QLatin1String("summary") ||
                         types.value(base) == QLatin1String("histogram")))
                        family = base;
                }
            }
            QVERIFY2(types.contains(family), qPrintable(line)); // HELP/TYPE came first
            familiesWithSamples.insert(family);
            const QString id = m.captured(1) + m.captured(2);
            QVERIFY2(!series.contains(id), qPrintable(line));
            series.insert(id, m.captured(3));
        }
        QVERIFY(types.contains(QStringLiteral("lq_messages")));
        QVERIFY(types.contains(QStringLiteral("lq_latency_seconds")));
    }

private slots:
    void initTestCase() {
        QVERIFY2(QFileInfo(lqctlPath()).isExecutable(), qPrintable(lqctlPath()));
        QVERIFY(m_audit.isValid());
        QFile f(kDataDir + QStringLiteral("/facts.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        m_facts = QJsonDocument::fromJson(f.readAll()).object();
        QVERIFY(!m_facts.isEmpty());
    }

    // ---- stats and info against the fixture facts ----------------------

    void statsMatchFacts_data() {
        QTest::addColumn<QString>("fixture");
        for (const QString& f : {kEmpty, kMaxsize, kMixed, kWalPending})
            QTest::newRow(qPrintable(f)) << f;
    }

    void statsMatchFacts() {
        QFETCH(QString, fixture);
        QTemporaryDir dir;
        const QString path = copyFixture(dir, fixture);
        QVERIFY(!path.isEmpty());
        const QJsonObject facts = queueFacts(fixture);
        QVERIFY(!facts.isEmpty());

        const auto doc = runJson({QStringLiteral("stats"), path, QStringLiteral("--json"),
                                  QStringLiteral("--now"), nowArg(fixture),
                                  QStringLiteral("--stuck-after"), QStringLiteral("3600")});
        const QJsonObject s = doc.object();
        QVERIFY(!s.isEmpty());
        // The five keys of README.md#lqctl, and the state model's sub-counts.
        QCOMPARE(s.keys().size(), 6);
        QVERIFY(s.value(QStringLiteral("sub_counts")).isObject());
        QCOMPARE(s.value(QStringLiteral("format")).toString(), QStringLiteral("litequeue-legacy"));

        const QJsonObject sc = facts.value(QStringLiteral("status_counts")).toObject();
        const QJsonObject c = s.value(QStringLiteral("counts")).toObject();
        const auto count = [&](const char* k) { return c.value(QLatin1String(k)).toInteger(); };
        QCOMPARE(count("ready"), sc.value(QStringLiteral("READY")).toInteger());
        QCOMPARE(count("locked"), sc.value(QStringLiteral("LOCKED")).toInteger());
        QCOMPARE(count("done"), sc.value(QStringLiteral("DONE")).toInteger());
        QCOMPARE(count("failed"), sc.value(QStringLiteral("FAILED")).toInteger());
        QCOMPARE(count("stored"), facts.value(QStringLiteral("rows")).toInteger());
        QCOMPARE(count("active"), count("ready") + count("locked"));
        QCOMPARE(s.value(QStringLiteral("stuck")).toInteger(),
                 facts.value(QStringLiteral("locked_older_than_3600s_at_end")).toInteger(0));
        QCOMPARE(s.value(QStringLiteral("maxsize")), facts.value(QStringLiteral("maxsize")));

        const QJsonObject lat = s.value(QStringLiteral("latency_ns")).toObject();
        const auto compareSummary = [](const QJsonObject& got, const QJsonObject& want,
                                       const QStringList& keys) {
            QCOMPARE(got.value(QStringLiteral("count")).toInteger(),
                     want.value(QStringLiteral("n")).toInteger());
            for (const QString& k : keys) {
                const QJsonValue g = got.value(k), w = want.value(k);
                QVERIFY2(g.isNull() == w.isNull(), qPrintable(k));
                QCOMPARE(g.toInteger(), w.toInteger());
            }
        };
        compareSummary(lat.value(QStringLiteral("processing")).toObject(),
                       facts.value(QStringLiteral("processing_ns_done_with_lock_time")).toObject(),
                       {QStringLiteral("p50"), QStringLiteral("p90"), QStringLiteral("p99"),
                        QStringLiteral("max")});
        if (QTest::currentTestFailed())
            return;
        compareSummary(lat.value(QStringLiteral("wait")).toObject(),
                       facts.value(QStringLiteral("wait_ns_lock_time_not_null")).toObject(),
                       {QStringLiteral("p50"), QStringLiteral("p90"), QStringLiteral("p99"),
                        QStringLiteral("max")});
        if (QTest::currentTestFailed())
            return;
        const QJsonObject total = lat.value(QStringLiteral("total")).toObject();
        QCOMPARE(total.value(QStringLiteral("count")).toInteger(), count("done"));
        if (total.value(QStringLiteral("count")).toInteger() == 0)
            QVERIFY(total.value(QStringLiteral("p50")).isNull());
    }

    void infoJson() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kMaxsize);
        const QByteArray before = sha256(path);
        const QJsonObject i =
            runJson({QStringLiteral("info"), path, QStringLiteral("--json")}).object();
        QCOMPARE(i.value(QStringLiteral("format")).toString(), QStringLiteral("litequeue-legacy"));
        QCOMPARE(i.value(QStringLiteral("journal_mode")).toString(), QStringLiteral("wal"));
        QCOMPARE(i.value(QStringLiteral("table")).toString(), QStringLiteral("Queue"));
        QCOMPARE(i.value(QStringLiteral("maxsize")).toInteger(), 25);
        QCOMPARE(i.value(QStringLiteral("user_version")).toInteger(), 0);
        QCOMPARE(i.value(QStringLiteral("file_size")).toInteger(), 16384);
        QCOMPARE(i.value(QStringLiteral("read_only")).toBool(), false);
        QCOMPARE(
            i.value(QStringLiteral("counts")).toObject().value(QStringLiteral("ready")).toInteger(),
            25);
        // Reading never changes the file.
        QCOMPARE(sha256(path), before);

        const Result plain = run({QStringLiteral("info"), path});
        QCOMPARE(plain.code, 0);
        QVERIFY(plain.out.contains("litequeue-legacy"));
        QVERIFY(plain.out.contains("25 ready"));
    }

    // A format beyond litequeue, through the same commands: liteque
    // (Karakeep's queue.db, tests/data/formats/facts.json).
    void statsOnLiteque() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/liteque-queue.db"));
        const QByteArray before = sha256(path);
        QFile ff(kDataDir + QStringLiteral("/formats/facts.json"));
        QVERIFY(ff.open(QIODevice::ReadOnly));
        const QJsonObject facts = QJsonDocument::fromJson(ff.readAll())
                                      .object()
                                      .value(QStringLiteral("liteque-queue.db"))
                                      .toObject();
        const QString now = facts.value(QStringLiteral("now")).toString();
        const QJsonObject want = facts.value(QStringLiteral("counts")).toObject();
        const QJsonObject s = runJson({QStringLiteral("stats"), path, QStringLiteral("--json"),
                                       QStringLiteral("--now"), now})
                                  .object();
        QCOMPARE(s.value(QStringLiteral("format")).toString(), QStringLiteral("liteque"));
        const QJsonObject c = s.value(QStringLiteral("counts")).toObject();
        QCOMPARE(c.value(QStringLiteral("ready")).toInteger(),
                 want.value(QStringLiteral("READY")).toInteger());
        QCOMPARE(c.value(QStringLiteral("scheduled")).toInteger(),
                 want.value(QStringLiteral("SCHEDULED")).toInteger());
        QCOMPARE(c.value(QStringLiteral("locked")).toInteger(),
                 want.value(QStringLiteral("LOCKED")).toInteger());
        QCOMPARE(c.value(QStringLiteral("failed")).toInteger(),
                 want.value(QStringLiteral("FAILED")).toInteger());
        QCOMPARE(c.value(QStringLiteral("stored")).toInteger(),
                 facts.value(QStringLiteral("stored"))
                     .toObject()
                     .value(QStringLiteral("jobs"))
                     .toInteger());
        QCOMPARE(lq::test::countsAsFacts(s, facts).value(QStringLiteral("extra")).toObject(),
                 facts.value(QStringLiteral("extra")).toObject());

        // --queue narrows stats and list to one named queue.
        const QJsonObject perQueue = facts.value(QStringLiteral("per_queue"))
                                         .toObject()
                                         .value(QStringLiteral("link_crawler_queue"))
                                         .toObject();
        const QJsonObject q = runJson({QStringLiteral("stats"), path, QStringLiteral("--json"),
                                       QStringLiteral("--now"), now, QStringLiteral("--queue"),
                                       QStringLiteral("link_crawler_queue")})
                                  .object()
                                  .value(QStringLiteral("counts"))
                                  .toObject();
        QCOMPARE(q.value(QStringLiteral("locked")).toInteger(),
                 perQueue.value(QStringLiteral("LOCKED")).toInteger());
        QCOMPARE(q.value(QStringLiteral("ready")).toInteger(),
                 perQueue.value(QStringLiteral("READY")).toInteger());
        QCOMPARE(q.value(QStringLiteral("scheduled")).toInteger(),
                 perQueue.value(QStringLiteral("SCHEDULED")).toInteger());
        const QJsonArray listed = runJson({QStringLiteral("list"), path, QStringLiteral("--json"),
                                           QStringLiteral("--now"), now, QStringLiteral("--queue"),
                                           QStringLiteral("openai_queue")})
                                      .array();
        QCOMPARE(listed.size(), 3);
        QCOMPARE(sha256(path), before);
    }

    void getMessage() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kMixed);
        const QJsonObject facts = queueFacts(kMixed);
        const QString id = facts.value(QStringLiteral("next_pop_message_id")).toString();
        const QJsonObject m =
            runJson({QStringLiteral("get"), path, id, QStringLiteral("--json")}).object();
        QCOMPARE(m.value(QStringLiteral("message_id")).toString(), id);
        QCOMPARE(m.value(QStringLiteral("status")).toString(), QStringLiteral("READY"));
        QCOMPARE(m.value(QStringLiteral("in_time")).toInteger(),
                 facts.value(QStringLiteral("next_pop_in_time")).toInteger());

        const Result plain = run({QStringLiteral("get"), path, id});
        QCOMPARE(plain.code, 0);
        QVERIFY(plain.out.contains(id.toUtf8()));

        const Result missing = run({QStringLiteral("get"), path, QStringLiteral("no-such-id")});
        QCOMPARE(missing.code, 1);
        QVERIFY(missing.err.startsWith(errorPrefix(path)));
    }

    // ---- bad files -----------------------------------------------------

    void badFiles_data() {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        QTest::newRow("not-a-queue") << QStringLiteral("not-a-queue.sqlite3") << 3
                                     << QStringLiteral("not a queue file: found tables users");
        QTest::newRow("not-sqlite") << QStringLiteral("not-sqlite.sqlite3") << 3
                                    << QStringLiteral("file is not a SQLite database");
        QTest::newRow("truncated")
            << QStringLiteral("truncated.sqlite3") << 5 << QStringLiteral("malformed");
        QTest::newRow("zero-bytes")
            << QStringLiteral("zero-bytes.sqlite3") << 3 << QStringLiteral("empty database");
    }

    void badFiles() {
        QFETCH(QString, fixture);
        QFETCH(int, code);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString path = copyFixture(dir, fixture);
        const QByteArray before = sha256(path);
        for (const QStringList& args :
             {QStringList{QStringLiteral("info"), path},
              QStringList{QStringLiteral("stats"), path, QStringLiteral("--json")},
              QStringList{QStringLiteral("put"), path, QStringLiteral("x")},
              QStringList{QStringLiteral("prune"), path, QStringLiteral("--yes")}}) {
            const Result r = run(args);
            QCOMPARE(r.code, code);
            QVERIFY2(r.err.startsWith(errorPrefix(path)), r.err.constData());
            QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
            QVERIFY(r.out.isEmpty());
        }
        QCOMPARE(sha256(path), before);
    }

    void missingPathIsNotCreated() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("nope.sqlite3"));
        for (const QStringList& args :
             {QStringList{QStringLiteral("info"), path},
              QStringList{QStringLiteral("put"), path, QStringLiteral("x")},
              QStringList{QStringLiteral("watch"), path}}) {
            const Result r = run(args);
            QCOMPARE(r.code, 5);
            QVERIFY(r.err.startsWith(errorPrefix(path)));
        }
        QVERIFY(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries).isEmpty());

        const Result d = run({QStringLiteral("stats"), dir.path()});
        QCOMPARE(d.code, 5);
    }

    // ---- writes --------------------------------------------------------

    void unexpectedTriggerRefusesWrites() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kMixed);
        QVERIFY(execSql(path, "CREATE TRIGGER evil AFTER UPDATE ON Queue BEGIN DELETE FROM Queue; "
                              "END;"));
        const QByteArray before = sha256(path);
        const QString id =
            queueFacts(kMixed).value(QStringLiteral("oldest_locked_message_id")).toString();
        for (const QStringList& args :
             {QStringList{QStringLiteral("retry"), path, id},
              QStringList{QStringLiteral("fail"), path, id},
              QStringList{QStringLiteral("prune"), path, QStringLiteral("--yes")},
              QStringList{QStringLiteral("put"), path, QStringLiteral("x")},
              QStringList{QStringLiteral("retry-expired"), path, QStringLiteral("--older-than"),
                          QStringLiteral("0")}}) {
            const Result r = run(args);
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.contains("evil"), r.err.constData());
        }
        QCOMPARE(sha256(path), before);
        QCOMPARE(queryInt(path, "SELECT COUNT(*) FROM Queue"), 400);
        // Reading still works, and says why writes are refused.
        const QJsonObject i =
            runJson({QStringLiteral("info"), path, QStringLiteral("--json")}).object();
        QCOMPARE(i.value(QStringLiteral("read_only")).toBool(), true);
        QVERIFY(i.value(QStringLiteral("read_only_reason"))
                    .toString()
                    .contains(QStringLiteral("evil")));
    }

    void retryAndFailCompareClaims() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("q.sqlite3"));
        std::string id;
        {
            auto q = lq::core::Queue::create(path.toStdString());
            id = q->put("job-1").messageId;
            q->put("job-2");
            const auto m = q->pop();
            QVERIFY(m);
            QCOMPARE(m->messageId, id);
            QCOMPARE(m->claimId, 1);
        }
        const QString qid = QString::fromStdString(id);
        const auto get = [&]() {
            return runJson({QStringLiteral("get"), path, qid, QStringLiteral("--json")}).object();
        };

        Result r = run(
            {QStringLiteral("retry"), path, qid, QStringLiteral("--claim"), QStringLiteral("7")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(qid.toUtf8()), r.err.constData());
        QCOMPARE(get().value(QStringLiteral("status")).toString(), QStringLiteral("LOCKED"));

        r = run(
            {QStringLiteral("retry"), path, qid, QStringLiteral("--claim"), QStringLiteral("1")});
        QCOMPARE(r.code, 0);
        QJsonObject m = get();
        QCOMPARE(m.value(QStringLiteral("status")).toString(), QStringLiteral("READY"));
        QCOMPARE(m.value(QStringLiteral("claim_id")).toInteger(), 1);

        {
            auto q = lq::core::Queue::open(path.toStdString());
            const auto again = q->pop();
            QVERIFY(again);
            QCOMPARE(again->claimId, 2);
        }
        r = run(
            {QStringLiteral("fail"), path, qid, QStringLiteral("--claim"), QStringLiteral("1")});
        QCOMPARE(r.code, 1);
        QCOMPARE(get().value(QStringLiteral("status")).toString(), QStringLiteral("LOCKED"));
        r = run({QStringLiteral("fail"), path, qid, QStringLiteral("--claim"), QStringLiteral("2"),
                 QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        QCOMPARE(
            QJsonDocument::fromJson(r.out).object().value(QStringLiteral("applied")).toInteger(),
            1);
        m = get();
        QCOMPARE(m.value(QStringLiteral("status")).toString(), QStringLiteral("FAILED"));
        QCOMPARE(m.value(QStringLiteral("claim_id")).toInteger(), 2);

        // Without --claim: the token read just now is used and printed.
        r = run({QStringLiteral("retry"), path, qid});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("claim 2"));
        QCOMPARE(get().value(QStringLiteral("status")).toString(), QStringLiteral("READY"));
        r = run({QStringLiteral("retry"), path, QStringLiteral("no-such-id")});
        QCOMPARE(r.code, 1);

        // Every write went to the audit log, marked as lqctl's.
        const QStringList logs = QDir(m_audit.path()).entryList(QDir::Files);
        QVERIFY(!logs.isEmpty());
        QByteArray all;
        for (const QString& l : logs) {
            QFile f(m_audit.filePath(l));
            QVERIFY(f.open(QIODevice::ReadOnly));
            all += f.readAll();
        }
        QVERIFY(all.contains("\"lqctl\""));
        QVERIFY(all.contains(id.c_str()));
    }

    void legacyClaimIsLockTime() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kMixed);
        const QString id =
            queueFacts(kMixed).value(QStringLiteral("oldest_locked_message_id")).toString();
        const QJsonObject m =
            runJson({QStringLiteral("get"), path, id, QStringLiteral("--json")}).object();
        QCOMPARE(m.value(QStringLiteral("status")).toString(), QStringLiteral("LOCKED"));
        const qint64 token = m.value(QStringLiteral("token")).toInteger();
        QCOMPARE(token, m.value(QStringLiteral("lock_time")).toInteger());
        Result r = run({QStringLiteral("retry"), path, id, QStringLiteral("--claim"),
                        QString::number(token + 1)});
        QCOMPARE(r.code, 1);
        r = run(
            {QStringLiteral("retry"), path, id, QStringLiteral("--claim"), QString::number(token)});
        QCOMPARE(r.code, 0);
        QCOMPARE(
            queryInt(path, "SELECT status FROM Queue WHERE message_id = '" + id.toUtf8() + "'"), 0);
    }

    void putGetRoundTrip() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("new.sqlite3"));
        Result r =
            run({QStringLiteral("put"), path, QStringLiteral("hello"), QStringLiteral("--create")});
        QCOMPARE(r.code, 0);
        const QString id = QString::fromUtf8(r.out).trimmed();
        QVERIFY(!id.isEmpty());
        QJsonObject m =
            runJson({QStringLiteral("get"), path, id, QStringLiteral("--json")}).object();
        QCOMPARE(m.value(QStringLiteral("data")).toString(), QStringLiteral("hello"));
        QCOMPARE(m.value(QStringLiteral("status")).toString(), QStringLiteral("READY"));

        // stdin, bytes exactly as given
        const QByteArray payload("line 1\n\tline 2 \xc3\xa9\n");
        r = run({QStringLiteral("put"), path, QStringLiteral("-"), QStringLiteral("--json")},
                payload);
        QCOMPARE(r.code, 0);
        const QString id2 =
            QJsonDocument::fromJson(r.out).object().value(QStringLiteral("message_id")).toString();
        m = runJson({QStringLiteral("get"), path, id2, QStringLiteral("--json")}).object();
        QCOMPARE(m.value(QStringLiteral("data")).toString().toUtf8(), payload);

        // idempotency: replay -> same id; other data -> refused
        r = run({QStringLiteral("put"), path, QStringLiteral("A"), QStringLiteral("--key"),
                 QStringLiteral("k1")});
        QCOMPARE(r.code, 0);
        const QByteArray keyed = r.out.trimmed();
        r = run({QStringLiteral("put"), path, QStringLiteral("A"), QStringLiteral("--key"),
                 QStringLiteral("k1")});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out.trimmed(), keyed);
        r = run({QStringLiteral("put"), path, QStringLiteral("B"), QStringLiteral("--key"),
                 QStringLiteral("k1")});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("k1"));
        QCOMPARE(queryInt(path, "SELECT COUNT(*) FROM Queue"), 3);
        QCOMPARE(queryInt(path, "PRAGMA user_version"), 3);

        // a full queue refuses (exit 1)
        const QString small = dir.filePath(QStringLiteral("small.sqlite3"));
        QCOMPARE(run({QStringLiteral("put"), small, QStringLiteral("1"), QStringLiteral("--create"),
                      QStringLiteral("--maxsize"), QStringLiteral("1")})
                     .code,
                 0);
        r = run({QStringLiteral("put"), small, QStringLiteral("2")});
        QCOMPARE(r.code, 1);
    }

    void prune_data() {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QByteArray>("where");
        QTest::newRow("done+failed") << QStringList{} << QByteArray("status IN (2, 3)");
        QTest::newRow("keep-failed")
            << QStringList{QStringLiteral("--keep-failed")} << QByteArray("status = 2");
        const qint64 end =
            queueFacts(kMixed).value(QStringLiteral("fake_clock_end_ns")).toInteger();
        QTest::newRow("older-than 1h")
            << QStringList{QStringLiteral("--older-than"), QStringLiteral("3600"),
                           QStringLiteral("--now"), QString::number(end)}
            << QByteArray("status IN (2, 3) AND done_time < " +
                          QByteArray::number(end - 3600LL * 1000000000LL));
        QTest::newRow("older-than 1800.5 s keep-failed")
            << QStringList{QStringLiteral("--older-than"), QStringLiteral("1800.5"),
                           QStringLiteral("--keep-failed"), QStringLiteral("--now"),
                           QString::number(end)}
            << QByteArray("status = 2 AND done_time < " +
                          QByteArray::number(end - 1800500000000LL));
    }

    void prune() {
        QFETCH(QStringList, extra);
        QFETCH(QByteArray, where);
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kMixed);
        const qint64 expected = queryInt(path, "SELECT COUNT(*) FROM Queue WHERE " + where);
        QVERIFY(expected > 0);
        if (extra.isEmpty())
            QCOMPARE(expected, 328);
        if (extra == QStringList{QStringLiteral("--keep-failed")})
            QCOMPARE(expected, 308);

        // Not a terminal and no --yes: refused, nothing deleted.
        const QByteArray before = sha256(path);
        Result r = run(QStringList{QStringLiteral("prune"), path} + extra);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("--yes"), r.err.constData());
        QVERIFY(r.err.contains(QByteArray::number(expected)));
        QCOMPARE(sha256(path), before);
        QCOMPARE(queryInt(path, "SELECT COUNT(*) FROM Queue"), 400);

        r = run(QStringList{QStringLiteral("prune"), path, QStringLiteral("--yes"),
                            QStringLiteral("--json")} +
                extra);
        QCOMPARE(r.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o.value(QStringLiteral("pruned")).toInteger(), expected);
        QCOMPARE(queryInt(path, "SELECT COUNT(*) FROM Queue"), 400 - expected);
        QCOMPARE(queryInt(path, "SELECT COUNT(*) FROM Queue WHERE " + where), 0);
    }

    void retryExpired() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kMixed);
        const QString now = nowArg(kMixed);
        QCOMPARE(run({QStringLiteral("retry-expired"), path}).code, 2); // threshold required
        const QJsonObject o = runJson({QStringLiteral("retry-expired"), path,
                                       QStringLiteral("--older-than"), QStringLiteral("3600"),
                                       QStringLiteral("--now"), now, QStringLiteral("--json")})
                                  .object();
        const qint64 expired =
            queueFacts(kMixed).value(QStringLiteral("locked_older_than_3600s_at_end")).toInteger();
        QCOMPARE(o.value(QStringLiteral("retried")).toInteger(), expired);
        QCOMPARE(queryInt(path, "SELECT COUNT(*) FROM Queue WHERE status = 1"), 14 - expired);
    }

    void upgradeAndVacuum() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kMaxsize);
        const QByteArray before = sha256(path);
        Result r = run({QStringLiteral("upgrade"), path});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("workers"));
        QCOMPARE(sha256(path), before);
        r = run({QStringLiteral("upgrade"), path, QStringLiteral("--yes")});
        QCOMPARE(r.code, 0);
        const QJsonObject s =
            runJson({QStringLiteral("stats"), path, QStringLiteral("--json")}).object();
        QCOMPARE(s.value(QStringLiteral("format")).toString(), QStringLiteral("litequeue-0.14"));
        const QJsonObject c = s.value(QStringLiteral("counts")).toObject();
        QCOMPARE(c.value(QStringLiteral("locked")).toInteger(), 0);
        QCOMPARE(c.value(QStringLiteral("ready")).toInteger(), 27);
        QCOMPARE(s.value(QStringLiteral("maxsize")).toInteger(), 25);

        const QJsonObject v =
            runJson({QStringLiteral("vacuum"), path, QStringLiteral("--json")}).object();
        QVERIFY(v.value(QStringLiteral("before")).toInteger() > 0);
        QVERIFY(v.value(QStringLiteral("after")).toInteger() > 0);
    }

    void busyFileExitsFour() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kMixed);
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db, "BEGIN IMMEDIATE; UPDATE Queue SET status = status WHERE 0;",
                              nullptr, nullptr, nullptr),
                 SQLITE_OK);
        const QString id =
            queueFacts(kMixed).value(QStringLiteral("next_pop_message_id")).toString();
        const Result r = run({QStringLiteral("fail"), path, id, QStringLiteral("--busy-timeout"),
                              QStringLiteral("0.2")});
        sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
        sqlite3_close(db);
        QCOMPARE(r.code, 4);
        QVERIFY(r.err.startsWith(errorPrefix(path)));
    }

    // ---- list ------------------------------------------------------------

    void listJsonFailed() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kMixed);
        const QJsonArray a = runJson({QStringLiteral("list"), path, QStringLiteral("--status"),
                                      QStringLiteral("failed"), QStringLiteral("--json")})
                                 .array();
        QCOMPARE(a.size(), 20);
        const QStringList keys = {QStringLiteral("message_id"), QStringLiteral("status"),
                                  QStringLiteral("claim_id"),   QStringLiteral("idempotency_key"),
                                  QStringLiteral("data"),       QStringLiteral("in_time"),
                                  QStringLiteral("lock_time"),  QStringLiteral("done_time"),
                                  QStringLiteral("wait_ns"),    QStringLiteral("processing_ns"),
                                  QStringLiteral("age_ns")};
        for (const QJsonValue& v : a) {
            const QJsonObject o = v.toObject();
            for (const QString& k : keys)
                QVERIFY2(o.contains(k), qPrintable(k));
            QCOMPARE(o.value(QStringLiteral("status")).toString(), QStringLiteral("FAILED"));
            QVERIFY(o.value(QStringLiteral("done_time")).isDouble());
            QVERIFY(o.value(QStringLiteral("processing_ns")).isNull()); // DONE rows only
        }

        // every row, every payload (100 kB, empty, emoji, control characters)
        const QJsonArray all =
            runJson({QStringLiteral("list"), path, QStringLiteral("--json")}).array();
        QCOMPARE(all.size(), 400);

        // stuck uses --stuck-after at --now
        const QJsonArray stuck = runJson({QStringLiteral("list"), path, QStringLiteral("--status"),
                                          QStringLiteral("stuck"), QStringLiteral("--stuck-after"),
                                          QStringLiteral("3600"), QStringLiteral("--now"),
                                          nowArg(kMixed), QStringLiteral("--json")})
                                     .array();
        QCOMPARE(stuck.size(), 10);

        // plain: a table with a default limit of 100
        const Result plain = run({QStringLiteral("list"), path});
        QCOMPARE(plain.code, 0);
        QCOMPARE(plain.out.count('\n'), 101);
        const Result limited =
            run({QStringLiteral("list"), path, QStringLiteral("--limit"), QStringLiteral("0"),
                 QStringLiteral("--status"), QStringLiteral("done")});
        QCOMPARE(limited.out.count('\n'), 309);
    }

    void listInvalidUtf8StillValidJson() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kMixed);
        QVERIFY(execSql(path,
                        "INSERT INTO Queue(data, message_id, status, in_time) VALUES "
                        "(CAST(x'61ff62c3' AS TEXT), 'ffff-bad-utf8', 0, 1741946700137482911),"
                        "(x'00ff1b5b3331', 'ffff-blob', 0, 1741946700137482912);"));
        const Result r = run({QStringLiteral("list"), path, QStringLiteral("--json"),
                              QStringLiteral("--search"), QStringLiteral("ffff-")});
        QCOMPARE(r.code, 0);
        QJsonParseError e;
        const QJsonArray a = QJsonDocument::fromJson(r.out, &e).array();
        QCOMPARE(e.error, QJsonParseError::NoError);
        QCOMPARE(a.size(), 2);
        QCOMPARE(a.at(0).toObject().value(QStringLiteral("data_base64")).toString(),
                 QStringLiteral("Yf9iww=="));
        QCOMPARE(a.at(1).toObject().value(QStringLiteral("data_base64")).toString(),
                 QStringLiteral("AP8bWzMx"));

        // The plain table escapes control characters (no raw ESC on a terminal).
        const Result plain = run(
            {QStringLiteral("list"), path, QStringLiteral("--search"), QStringLiteral("ffff-")});
        QCOMPARE(plain.code, 0);
        QVERIFY(!plain.out.contains('\x1b'));
    }

    void listCsv() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kMixed);
        const Result r = run({QStringLiteral("list"), path, QStringLiteral("--csv")});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.startsWith("message_id,status,"));
        // RFC 4180: count records with a small state machine (quoted fields may
        // hold CR, LF and doubled quotes).
        int records = 0;
        bool quoted = false;
        for (qsizetype i = 0; i < r.out.size(); ++i) {
            const char c = r.out.at(i);
            if (c == '"')
                quoted = !quoted;
            else if (!quoted && c == '\r') {
                QCOMPARE(r.out.at(i + 1), '\n');
                ++records;
                ++i;
            } else if (!quoted) {
                QVERIFY(c != '\n');
            }
        }
        QVERIFY(!quoted);
        QCOMPARE(records, 401);
    }

    // ---- prometheus --------------------------------------------------------

    void prometheusFormat() {
        QTemporaryDir dir;
        // A path that needs label escaping: quote, backslash and newline.
        const QString sub = dir.filePath(QStringLiteral("we\"ird\\dir\nname"));
        QVERIFY(QDir().mkpath(sub));
        QTemporaryDir tmp;
        const QString copy = copyFixture(tmp, kMixed);
        const QString path = sub + QStringLiteral("/mixed.sqlite3");
        QVERIFY(QFile::copy(copy, path));

        const Result r = run({QStringLiteral("stats"), path, QStringLiteral("--prometheus"),
                              QStringLiteral("--now"), nowArg(kMixed),
                              QStringLiteral("--stuck-after"), QStringLiteral("3600")});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.endsWith('\n'));

        QHash<QString, QString> series;
        checkPrometheus(r.out, series);
        if (QTest::currentTestFailed())
            return;
        const QString expectedQueue = QStringLiteral("queue=\"") +
                                      QString(path)
                                          .replace(QLatin1Char('\\'), QStringLiteral("\\\\"))
                                          .replace(QLatin1Char('"'), QStringLiteral("\\\""))
                                          .replace(QLatin1Char('\n'), QStringLiteral("\\n")) +
                                      QLatin1Char('"');
        qint64 ready = -1, stuck = -1;
        for (auto it = series.cbegin(); it != series.cend(); ++it) {
            QVERIFY2(it.key().contains(expectedQueue), qPrintable(it.key()));
            if (it.key().startsWith(QLatin1String("lq_messages{")) &&
                it.key().contains(QLatin1String("status=\"ready\"")))
                ready = it.value().toLongLong();
            if (it.key().startsWith(QLatin1String("lq_stuck_messages{")))
                stuck = it.value().toLongLong();
        }
        QCOMPARE(ready, 58);
        QCOMPARE(stuck, 10);
        QVERIFY(series.contains(QStringLiteral("lq_latency_seconds{") + expectedQueue +
                                QStringLiteral(",metric=\"processing\",quantile=\"0.5\"}")));
    }

    // ---- fleet ---------------------------------------------------------------

    /// Every fixture copied into one folder (wal-pending with its side files).
    static void fillFleetFolder(const QTemporaryDir& dir) {
        for (const char* f :
             {"litequeue-head-empty.sqlite3", "litequeue-head-maxsize.sqlite3",
              "litequeue-head-mixed.sqlite3", "litequeue-oldmulti.sqlite3", "not-a-queue.sqlite3",
              "not-sqlite.sqlite3", "seed-jobs-leases.sqlite3", "truncated.sqlite3",
              "zero-bytes.sqlite3", "wal-pending/litequeue-wal-pending.sqlite3"})
            QVERIFY(!copyFixture(dir, QString::fromLatin1(f)).isEmpty());
    }

    void fleetJson() {
        QTemporaryDir dir;
        fillFleetFolder(dir);
        const QJsonObject o =
            runJson({QStringLiteral("fleet"), dir.path(), QStringLiteral("--json"),
                     QStringLiteral("--now"), nowArg(kMixed)})
                .object();
        const QJsonArray queues = o.value(QStringLiteral("queues")).toArray();
        const QJsonArray skipped = o.value(QStringLiteral("skipped")).toArray();
        QCOMPARE(queues.size(), 7); // 5 single-queue files + the 2 tables of the multi file
        QCOMPARE(skipped.size(), 4);

        QHash<QString, QJsonObject> byKey;
        for (const auto& v : queues) {
            const QJsonObject q = v.toObject();
            byKey.insert(QFileInfo(q.value(QStringLiteral("path")).toString()).fileName() +
                             QLatin1Char('/') + q.value(QStringLiteral("table")).toString(),
                         q);
        }
        const struct {
            QString key;
            QString facts;
            QString table;
        } expected[] = {
            {QStringLiteral("litequeue-head-mixed.sqlite3/Queue"), kMixed, QStringLiteral("Queue")},
            {QStringLiteral("litequeue-head-maxsize.sqlite3/Queue"), kMaxsize,
             QStringLiteral("Queue")},
            {QStringLiteral("litequeue-head-empty.sqlite3/Queue"), kEmpty, QStringLiteral("Queue")},
            {QStringLiteral("litequeue-wal-pending.sqlite3/Queue"), kWalPending,
             QStringLiteral("Queue")},
            {QStringLiteral("litequeue-oldmulti.sqlite3/emails"),
             QStringLiteral("litequeue-oldmulti.sqlite3"), QStringLiteral("emails")},
            {QStringLiteral("litequeue-oldmulti.sqlite3/image-resize"),
             QStringLiteral("litequeue-oldmulti.sqlite3"), QStringLiteral("image-resize")},
        };
        for (const auto& e : expected) {
            QVERIFY2(byKey.contains(e.key), qPrintable(e.key));
            const QJsonObject q = byKey.value(e.key);
            const QJsonObject c = m_facts.value(e.facts)
                                      .toObject()
                                      .value(QStringLiteral("queues"))
                                      .toObject()
                                      .value(e.table)
                                      .toObject()
                                      .value(QStringLiteral("status_counts"))
                                      .toObject();
            for (const char* st : {"READY", "LOCKED", "DONE", "FAILED"})
                QCOMPARE(q.value(QString::fromLatin1(st).toLower()).toInteger(),
                         c.value(QString::fromLatin1(st)).toInteger());
        }
        const QJsonObject mixed = byKey.value(QStringLiteral("litequeue-head-mixed.sqlite3/Queue"));
        QCOMPARE(mixed.value(QStringLiteral("stuck")).toInteger(), 14);
        QVERIFY(mixed.value(QStringLiteral("backlog_age_ns")).toDouble() > 0);
        QVERIFY(byKey.value(QStringLiteral("litequeue-oldmulti.sqlite3/emails"))
                    .value(QStringLiteral("read_only"))
                    .toBool());
        const QJsonObject jobs = byKey.value(QStringLiteral("seed-jobs-leases.sqlite3/jobs"));
        QCOMPARE(jobs.value(QStringLiteral("format")).toString(), QStringLiteral("jobs-lease"));
        QCOMPARE(jobs.value(QStringLiteral("stored")).toInteger(), 16);
        QVERIFY(byKey.value(QStringLiteral("litequeue-wal-pending.sqlite3/Queue"))
                    .value(QStringLiteral("wal_bytes"))
                    .toInteger() > 0);

        QHash<QString, QString> reasons;
        for (const auto& v : skipped) {
            const QJsonObject sk = v.toObject();
            reasons.insert(QFileInfo(sk.value(QStringLiteral("path")).toString()).fileName(),
                           sk.value(QStringLiteral("reason")).toString());
        }
        QVERIFY(reasons.value(QStringLiteral("not-a-queue.sqlite3"))
                    .contains(QStringLiteral("not a queue file: found tables users")));
        QVERIFY(reasons.value(QStringLiteral("not-sqlite.sqlite3"))
                    .contains(QStringLiteral("file is not a SQLite database")));
        QVERIFY(reasons.value(QStringLiteral("truncated.sqlite3"))
                    .contains(QStringLiteral("malformed")));
        QVERIFY(reasons.value(QStringLiteral("zero-bytes.sqlite3"))
                    .contains(QStringLiteral("empty database")));

        // The scan never wrote: the copies are unchanged, the pending WAL too.
        QCOMPARE(sha256(dir.filePath(kMixed)), sha256(kDataDir + QLatin1Char('/') + kMixed));
        QCOMPARE(
            sha256(dir.filePath(QStringLiteral("litequeue-wal-pending.sqlite3-wal"))),
            sha256(kDataDir + QStringLiteral("/wal-pending/litequeue-wal-pending.sqlite3-wal")));

        // Plain text: one line per queue, the skipped files with their reasons.
        const Result text = run({QStringLiteral("fleet"), dir.path()});
        QCOMPARE(text.code, 0);
        QVERIFY(text.out.contains("litequeue-head-mixed.sqlite3"));
        QVERIFY(text.out.contains("not a queue file: found tables users"));

        // Not a folder: exit 5.
        const Result bad = run({QStringLiteral("fleet"), dir.filePath(kMixed)});
        QCOMPARE(bad.code, 5);
        QCOMPARE(run({QStringLiteral("fleet"), dir.filePath(QStringLiteral("missing"))}).code, 5);
    }

    void fleetPrometheus() {
        QTemporaryDir dir;
        fillFleetFolder(dir);
        const Result r = run({QStringLiteral("fleet"), dir.path(), QStringLiteral("--prometheus"),
                              QStringLiteral("--now"), nowArg(kMixed)});
        QCOMPARE(r.code, 0);
        QHash<QString, QString> series;
        checkPrometheus(r.out, series);
        if (QTest::currentTestFailed())
            return;
        // One lq_stored_messages series per queue (7), each with its queue label.
        int stored = 0;
        for (auto it = series.cbegin(); it != series.cend(); ++it) {
            QVERIFY2(it.key().contains(QLatin1String("{queue=\"")), qPrintable(it.key()));
            stored += it.key().startsWith(QLatin1String("lq_stored_messages{")) ? 1 : 0;
        }
        QCOMPARE(stored, 7);
        const QString mixed = QStringLiteral("lq_messages{queue=\"") +
                              QFileInfo(dir.filePath(kMixed)).absoluteFilePath() +
                              QStringLiteral("\",table=\"Queue\",status=\"ready\"}");
        QCOMPARE(series.value(mixed), QStringLiteral("58"));
    }

    void jobsLeaseCommands() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("seed-jobs-leases.sqlite3"));
        const QString now = QStringLiteral("1742126400"); // the seed's reference_time_s
        const QJsonObject stats = runJson({QStringLiteral("stats"), path, QStringLiteral("--json"),
                                           QStringLiteral("--now"), now})
                                      .object();
        QCOMPARE(stats.value(QStringLiteral("format")).toString(), QStringLiteral("jobs-lease"));
        QCOMPARE(stats.value(QStringLiteral("counts"))
                     .toObject()
                     .value(QStringLiteral("stored"))
                     .toInteger(),
                 16);
        // facts: 3 leased, 3 expired at the reference time.
        const QJsonArray expired = runJson({QStringLiteral("list"), path, QStringLiteral("--json"),
                                            QStringLiteral("--now"), now,
                                            QStringLiteral("--status"), QStringLiteral("expired")})
                                       .array();
        QCOMPARE(expired.size(), 3);
        const QString id = expired.at(0).toObject().value(QStringLiteral("message_id")).toString();
        const QString token =
            QString::number(expired.at(0).toObject().value(QStringLiteral("token")).toInteger());

        // fail: refused, no FAILED state.
        QCOMPARE(run({QStringLiteral("fail"), path, id, QStringLiteral("--now"), now}).code, 1);
        // release with a stale attempts count: refused.
        QCOMPARE(run({QStringLiteral("release"), path, id, QStringLiteral("--now"), now,
                      QStringLiteral("--claim"), QStringLiteral("999")})
                     .code,
                 1);
        // reschedule needs --delay.
        QCOMPARE(run({QStringLiteral("reschedule"), path, id, QStringLiteral("--now"), now}).code,
                 2);
        QCOMPARE(run({QStringLiteral("reschedule"), path, id, QStringLiteral("--now"), now,
                      QStringLiteral("--delay"), QStringLiteral("600"), QStringLiteral("--claim"),
                      token})
                     .code,
                 0);
        const QJsonObject got = runJson({QStringLiteral("get"), path, id, QStringLiteral("--json"),
                                         QStringLiteral("--now"), now})
                                    .object();
        QCOMPARE(got.value(QStringLiteral("status")).toString(), QStringLiteral("SCHEDULED"));
        // retry on a lease file is release.
        QCOMPARE(run({QStringLiteral("retry"), path, id, QStringLiteral("--now"), now,
                      QStringLiteral("--claim"), token})
                     .code,
                 0);
        QCOMPARE(run({QStringLiteral("delete"), path, id, QStringLiteral("--now"), now,
                      QStringLiteral("--claim"), token})
                     .code,
                 0);
        QCOMPARE(run({QStringLiteral("get"), path, id}).code, 1);
        // jobs-lease commands refuse litequeue files.
        const QString mixed = copyFixture(dir, kMixed);
        QCOMPARE(run({QStringLiteral("release"), mixed, QStringLiteral("x")}).code, 1);
    }

    // ---- watch and demo ----------------------------------------------------

    void watchSeesExternalChange() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kMixed);
        QProcess watch;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("LQ_AUDIT_DIR"), m_audit.path());
        watch.setProcessEnvironment(env);
        watch.start(lqctlPath(), {QStringLiteral("watch"), path, QStringLiteral("--interval"),
                                  QStringLiteral("0.1")});
        QVERIFY(watch.waitForStarted());
        QByteArray output;
        QTRY_VERIFY_WITH_TIMEOUT((output += watch.readAllStandardOutput()).count('\n') >= 1, 5000);
        QVERIFY2(output.contains("ready=58"), output.constData());

        QCOMPARE(run({QStringLiteral("put"), path, QStringLiteral("from outside")}).code, 0);
        // A line for the change; a line between (the WAL's size moved
        // before the counts did) may come first.
        QTRY_VERIFY2_WITH_TIMEOUT((output += watch.readAllStandardOutput()).contains("ready=59"),
                                  output.constData(), 5000);
        QVERIFY2(!output.split('\n').at(0).contains("ready=59"), output.constData());

        watch.terminate();
        QVERIFY(watch.waitForFinished(5000));
        QCOMPARE(watch.exitStatus(), QProcess::NormalExit);
        QCOMPARE(watch.exitCode(), 0);
    }

    void demoProducesDoneMessages() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("demo.sqlite3"));
        const Result r =
            run({QStringLiteral("demo"), path, QStringLiteral("--duration"), QStringLiteral("3"),
                 QStringLiteral("--rate"), QStringLiteral("40"), QStringLiteral("--quiet")},
                {}, 20000);
        QCOMPARE(r.code, 0);
        const QJsonObject s =
            runJson({QStringLiteral("stats"), path, QStringLiteral("--json")}).object();
        QCOMPARE(s.value(QStringLiteral("format")).toString(), QStringLiteral("litequeue-0.14"));
        const QJsonObject c = s.value(QStringLiteral("counts")).toObject();
        QVERIFY(c.value(QStringLiteral("done")).toInteger() > 0);
        QVERIFY(s.value(QStringLiteral("latency_ns"))
                    .toObject()
                    .value(QStringLiteral("processing"))
                    .toObject()
                    .value(QStringLiteral("count"))
                    .toInteger() > 0);
    }

    void demoStopsOnSigterm() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("demo.sqlite3"));
        QProcess demo;
        demo.start(lqctlPath(), {QStringLiteral("demo"), path});
        QVERIFY(demo.waitForStarted());
        QByteArray output;
        // First line of counts after about a second.
        QTRY_VERIFY_WITH_TIMEOUT((output += demo.readAllStandardOutput()).count('\n') >= 2, 5000);
        demo.terminate();
        QVERIFY(demo.waitForFinished(5000));
        QCOMPARE(demo.exitStatus(), QProcess::NormalExit);
        QCOMPARE(demo.exitCode(), 0);
        output += demo.readAllStandardOutput();
        QVERIFY2(output.contains("demo stopped"), output.constData());
    }

    // ---- usage -------------------------------------------------------------

    void usageErrors_data() {
        QTest::addColumn<QStringList>("args");
        const QString f = QStringLiteral("/nonexistent/q.sqlite3");
        QTest::newRow("no args") << QStringList{};
        QTest::newRow("unknown command") << QStringList{QStringLiteral("frobnicate"), f};
        QTest::newRow("missing file") << QStringList{QStringLiteral("list")};
        QTest::newRow("unknown option")
            << QStringList{QStringLiteral("list"), f, QStringLiteral("--bogus")};
        QTest::newRow("bad limit") << QStringList{QStringLiteral("list"), f,
                                                  QStringLiteral("--limit"), QStringLiteral("x")};
        QTest::newRow("bad status") << QStringList{
            QStringLiteral("list"), f, QStringLiteral("--status"), QStringLiteral("sleepy")};
        QTest::newRow("bad now") << QStringList{QStringLiteral("stats"), f, QStringLiteral("--now"),
                                                QStringLiteral("yesterday")};
        QTest::newRow("get without id") << QStringList{QStringLiteral("get"), f};
        QTest::newRow("option of another command") << QStringList{
            QStringLiteral("stats"), f, QStringLiteral("--claim"), QStringLiteral("3")};
    }

    void usageErrors() {
        QFETCH(QStringList, args);
        const Result r = run(args);
        QCOMPARE(r.code, 2);
        QVERIFY(!r.err.isEmpty());
    }

    void helpAndVersion() {
        Result r = run({QStringLiteral("--help")});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("retry-expired"));
        r = run({QStringLiteral("prune"), QStringLiteral("--help")});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("--keep-failed"));
    }

    // ---- undo and audit --------------------------------------

    /// `lqctl ARGS --json` with USER unset: the record must name the OS account.
    QJsonDocument runJsonNoUser(const QStringList& args, int expectCode = 0) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("LQ_AUDIT_DIR"), m_audit.path());
        env.remove(QStringLiteral("USER"));
        env.remove(QStringLiteral("LOGNAME"));
        p.setProcessEnvironment(env);
        p.start(lqctlPath(), args);
        p.closeWriteChannel();
        if (!p.waitForFinished(30000))
            return {};
        const int code = p.exitCode();
        if (code != expectCode) {
            qWarning("lqctl %s: exit %d: %s", qPrintable(args.join(QLatin1Char(' '))), code,
                     p.readAllStandardError().constData());
            return {};
        }
        return QJsonDocument::fromJson(p.readAllStandardOutput());
    }

    void undoAndAuditOfRetryExpired() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kMixed);
        QVERIFY(!path.isEmpty());
        const qint64 lockedBefore = queryInt(path, "SELECT count(*) FROM Queue WHERE status = 1");
        QVERIFY(lockedBefore > 0);
        const QJsonObject re =
            runJsonNoUser({QStringLiteral("retry-expired"), path, QStringLiteral("--older-than"),
                           QStringLiteral("1"), QStringLiteral("--json")})
                .object();
        QCOMPARE(re.value(QStringLiteral("retried")).toInteger(), lockedBefore);
        const QString recordId = re.value(QStringLiteral("record")).toString();
        QVERIFY(!recordId.isEmpty());

        QJsonArray recs =
            runJsonNoUser({QStringLiteral("audit"), path, QStringLiteral("--json")}).array();
        QCOMPARE(recs.size(), 1);
        QJsonObject r0 = recs.at(0).toObject();
        QCOMPARE(r0.value(QStringLiteral("id")).toString(), recordId);
        QCOMPARE(r0.value(QStringLiteral("action")).toString(), QStringLiteral("retry-expired"));
        QCOMPARE(r0.value(QStringLiteral("user")).toString(),
                 QString::fromLocal8Bit(getpwuid(geteuid())->pw_name));
        QVERIFY(!r0.value(QStringLiteral("host")).toString().isEmpty());
        QCOMPARE(r0.value(QStringLiteral("applied")).toInteger(), lockedBefore);
        QCOMPARE(r0.value(QStringLiteral("skipped")).toInteger(), 0);
        QVERIFY(r0.value(QStringLiteral("undone_by")).isNull());
        QVERIFY(r0.value(QStringLiteral("cutoff_ns")).toInteger() > 0);
        QVERIFY(r0.value(QStringLiteral("filter")).isObject());
        QCOMPARE(r0.value(QStringLiteral("messages")).toArray().size(), lockedBefore);
        QCOMPARE(r0.value(QStringLiteral("messages"))
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(QStringLiteral("before")),
                 QJsonValue(QStringLiteral("LOCKED")));

        const QJsonObject u =
            runJsonNoUser({QStringLiteral("undo"), path, QStringLiteral("--json")}).object();
        QCOMPARE(u.value(QStringLiteral("undoes")).toString(), recordId);
        QCOMPARE(u.value(QStringLiteral("applied")).toInteger(), lockedBefore);
        QCOMPARE(queryInt(path, "SELECT count(*) FROM Queue WHERE status = 1"), lockedBefore);

        recs = runJsonNoUser({QStringLiteral("audit"), path, QStringLiteral("--json")}).array();
        QCOMPARE(recs.size(), 2);
        r0 = recs.at(0).toObject();
        const QJsonObject r1 = recs.at(1).toObject();
        QCOMPARE(r1.value(QStringLiteral("action")).toString(), QStringLiteral("undo"));
        QCOMPARE(r1.value(QStringLiteral("undoes")).toString(), recordId);
        QCOMPARE(r0.value(QStringLiteral("undone_by")).toString(),
                 r1.value(QStringLiteral("id")).toString());

        // Nothing left: refused (exit 1), and undoing the same record again too.
        QCOMPARE(run({QStringLiteral("undo"), path}).code, 1);
        const Result again =
            run({QStringLiteral("undo"), path, QStringLiteral("--record"), recordId});
        QCOMPARE(again.code, 1);
        QVERIFY(again.err.contains("already undone"));
        QCOMPARE(run({QStringLiteral("undo"), path, QStringLiteral("--record"),
                      QStringLiteral("no-such-record")})
                     .code,
                 1);
    }

    void undoPruneRestoresMessagesWhoseKeyWasReused() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("keys.sqlite3"));
        for (int i = 0; i < 6; ++i) {
            QCOMPARE(run({QStringLiteral("put"), path, QStringLiteral("job %1").arg(i),
                          QStringLiteral("--key"), QStringLiteral("k%1").arg(i),
                          QStringLiteral("--create")})
                         .code,
                     0);
        }
        // Finished by a worker (written by hand, as the library would).
        QVERIFY(execSql(path, "UPDATE Queue SET status = 2, claim_id = 1, lock_time = in_time, "
                              "done_time = in_time + 1000"));
        const QJsonObject pr = runJsonNoUser({QStringLiteral("prune"), path,
                                              QStringLiteral("--yes"), QStringLiteral("--json")})
                                   .object();
        QCOMPARE(pr.value(QStringLiteral("pruned")).toInteger(), 6);
        // Two keys are taken again by new messages (allowed: they are free).
        for (int i : {1, 4}) {
            QCOMPARE(run({QStringLiteral("put"), path, QStringLiteral("new %1").arg(i),
                          QStringLiteral("--key"), QStringLiteral("k%1").arg(i)})
                         .code,
                     0);
        }
        // The newest undoable record is the last put: name the prune's record.
        const Result u =
            run({QStringLiteral("undo"), path, QStringLiteral("--record"),
                 pr.value(QStringLiteral("record")).toString(), QStringLiteral("--json")});
        QCOMPARE(u.code, 0);
        const QJsonObject uj = QJsonDocument::fromJson(u.out).object();
        QCOMPARE(uj.value(QStringLiteral("applied")).toInteger(), 6);
        QCOMPARE(uj.value(QStringLiteral("not_attempted")).toInteger(), 0);
        QCOMPARE(uj.value(QStringLiteral("notes")).toArray().size(), 2);
        QCOMPARE(queryInt(path, "SELECT count(*) FROM Queue WHERE status = 2"), 6);
        QCOMPARE(queryInt(path, "SELECT count(*) FROM Queue WHERE status = 2 AND "
                                "idempotency_key IS NULL"),
                 2);
        QCOMPARE(queryInt(path, "SELECT count(*) FROM Queue WHERE status = 0"), 2);
    }

    void auditOfAnUnknownFileIsEmpty() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("never.sqlite3"));
        const Result r = run({QStringLiteral("audit"), path, QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        QCOMPARE(QJsonDocument::fromJson(r.out).array().size(), 0);
    }
};

QTEST_GUILESS_MAIN(TstLqctl)
#include "tst_lqctl.moc"
