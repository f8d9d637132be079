// SPDX-License-Identifier: MIT
// lqctl on every queue format of tests/data/formats: what list, get and
// info show of a format's own fields and states; the bulk commands asking
// the format; prune following the library's own pruner; info, stats, list,
// fleet and Prometheus agreeing on "stuck"; the named-queue series of the
// Prometheus output; the library settings the files do not store
// (--max-receive, --release-after). Expected values come from
// tests/data/formats/facts.json or from the rows read with the C API.
#include <core/formats/queueformat.h>
#include <support/fixtures.h>
#include <support/lqctlrun.h>

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

namespace {

using lq::test::copyFixture;

using lq::test::lqctlPath;

QJsonObject allFacts() {
    QFile f(lq::test::dataDir() + QStringLiteral("/formats/facts.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read formats/facts.json");
    return QJsonDocument::fromJson(f.readAll()).object();
}

/// The queue fixtures of tests/data/formats (facts with counts).
QStringList queueFixtures() {
    QStringList r;
    const QJsonObject all = allFacts();
    for (auto it = all.begin(); it != all.end(); ++it)
        if (it.value().toObject().contains(QStringLiteral("counts")))
            r << it.key();
    r.sort();
    return r;
}

const QByteArray kBackliteStored = "SELECT (SELECT count(*) FROM backlite_tasks) + (SELECT "
                                   "count(*) FROM backlite_tasks_completed)";

qint64 sampleValue(const QByteArray& text, const QByteArray& name, const QByteArray& labels) {
    for (const QByteArray& line : text.split('\n')) {
        if (line.startsWith(QByteArray(name + '{')) && line.contains(labels))
            return line.mid(line.lastIndexOf(' ') + 1).toLongLong();
    }
    return -1;
}

} // namespace

class TstLqctlFormats : public QObject {
    Q_OBJECT

    QTemporaryDir m_audit;
    const QJsonObject m_facts = allFacts();

    using Result = lq::test::LqctlResult;

    Result run(const QStringList& args) {
        return lq::test::runLqctl(lqctlPath(), args, m_audit.path());
    }

    /// The fixture's own "now" (facts.json).
    QString nowOf(const QString& fixture) const {
        return m_facts.value(fixture).toObject().value(QStringLiteral("now")).toString();
    }

    QJsonDocument json(QStringList args) {
        const Result r = run(args << QStringLiteral("--json"));
        if (r.code != 0)
            qWarning("lqctl %s: exit %d: %s", qPrintable(args.join(QLatin1Char(' '))), r.code,
                     r.err.constData());
        return QJsonDocument::fromJson(r.out);
    }

    static void fixtures() {
        QTest::addColumn<QString>("fixture");
        for (const QString& f : queueFixtures())
            QTest::newRow(qPrintable(f)) << f;
    }

private slots:
    /// list --status takes the format's own states (alone, several, with a
    /// canonical one), counted as the facts count them; a state the file's
    /// format lacks is a usage error that names the format's own.
    void listByOwnState_data() { fixtures(); }
    void listByOwnState() {
        QFETCH(QString, fixture);
        const QJsonObject facts = m_facts.value(fixture).toObject();
        const QJsonObject extra = facts.value(QStringLiteral("extra")).toObject();
        const qint64 failed = facts.value(QStringLiteral("counts"))
                                  .toObject()
                                  .value(QStringLiteral("FAILED"))
                                  .toInteger();
        const auto* format = lq::core::QueueFormat::byId(
            facts.value(QStringLiteral("format")).toString().toStdString());
        QVERIFY(format);
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/") + fixture);
        const QString now = nowOf(fixture);
        const auto listed = [&](const QString& status) {
            return json({QStringLiteral("list"), path, QStringLiteral("--now"), now,
                         QStringLiteral("--status"), status})
                .array()
                .size();
        };
        QStringList all;
        qint64 outside = 0; // in no canonical state
        for (const auto& x : format->extraStates()) {
            const QString name = QString::fromStdString(x.name);
            all << name;
            QCOMPARE(listed(name), extra.value(name).toInt());
            const bool inFailed = std::find(x.within.begin(), x.within.end(),
                                            lq::core::State::Failed) != x.within.end();
            QCOMPARE(listed(QStringLiteral("failed,") + name.toUpper()),
                     failed + (inFailed ? 0 : extra.value(name).toInt()));
            if (x.within.empty())
                outside += extra.value(name).toInt();
        }
        if (all.isEmpty())
            return;
        // Several own states: every job counts in one canonical or one own
        // state, so those in none add up.
        QStringList none;
        for (const auto& x : format->extraStates())
            if (x.within.empty())
                none << QString::fromStdString(x.name);
        if (!none.isEmpty())
            QCOMPARE(listed(none.join(u',')), outside);

        const Result stuck = run({QStringLiteral("list"), path, QStringLiteral("--status"),
                                  QStringLiteral("stuck,") + all.front()});
        QCOMPARE(stuck.code, 2);
        // A state of another format's only.
        for (const auto* other : lq::core::QueueFormat::recognisers()) {
            for (const auto& x : other->extraStates()) {
                const QString name = QString::fromStdString(x.name);
                if (all.contains(name))
                    continue;
                const Result r =
                    run({QStringLiteral("list"), path, QStringLiteral("--status"), name});
                QCOMPARE(r.code, 2);
                QVERIFY2(r.err.contains(format->id()) && r.err.contains(all.front().toUtf8()),
                         r.err.constData());
                QVERIFY(r.out.isEmpty());
                return;
            }
        }
    }

    void listShowsTheFormatsStatesAndColumns_data() { fixtures(); }
    void listShowsTheFormatsStatesAndColumns() {
        QFETCH(QString, fixture);
        const QJsonObject facts = m_facts.value(fixture).toObject();
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/") + fixture);
        const QString now = nowOf(fixture);
        const QJsonArray rows =
            json({QStringLiteral("list"), path, QStringLiteral("--now"), now}).array();
        QCOMPARE(
            rows.size(),
            facts.value(QStringLiteral("stored")).toObject().value(QStringLiteral("jobs")).toInt());
        // An extra state outside the canonical ones is listed by its name,
        // as many times as the facts count it; nothing is UNKNOWN.
        QHash<QString, int> byStatus;
        bool anyJob = false;
        for (const auto& v : rows) {
            const QJsonObject m = v.toObject();
            const QString status = m.value(QStringLiteral("status")).toString();
            QVERIFY2(!status.startsWith(QLatin1String("UNKNOWN")), qPrintable(status));
            ++byStatus[status];
            anyJob = anyJob || m.contains(QStringLiteral("job"));
        }
        const auto* format = lq::core::QueueFormat::byId(
            facts.value(QStringLiteral("format")).toString().toStdString());
        QVERIFY(format);
        const QJsonObject extra = facts.value(QStringLiteral("extra")).toObject();
        for (const auto& x : format->extraStates()) {
            if (!x.within.empty())
                continue;
            const QString name = QString::fromStdString(x.name);
            QCOMPARE(byStatus.value(name), extra.value(name).toInt());
        }

        const Result plain = run({QStringLiteral("list"), path, QStringLiteral("--now"), now,
                                  QStringLiteral("--limit"), QStringLiteral("0")});
        QCOMPARE(plain.code, 0);
        QVERIFY(!plain.out.contains("UNKNOWN("));
        const QByteArray header = plain.out.left(plain.out.indexOf('\n'));
        QCOMPARE(header.contains(" QUEUE "), format->namedQueues());
        QCOMPARE(header.contains(" JOB "), anyJob);
        // Terminal-safe: no control character but the line ends.
        for (const char c : plain.out)
            QVERIFY2(c == '\n' || static_cast<unsigned char>(c) >= 0x20,
                     qPrintable(fixture + QStringLiteral(": a control byte in list output")));
        if (format->namedQueues()) {
            // The queue column holds the facts' queue names.
            const QJsonObject perQueue = facts.value(QStringLiteral("per_queue")).toObject();
            QSet<QString> seen;
            for (const auto& v : rows)
                seen.insert(v.toObject().value(QStringLiteral("queue")).toString());
            const QStringList names = perQueue.keys();
            QCOMPARE(seen, QSet<QString>(names.begin(), names.end()));
        }
    }

    void getShowsEveryField() {
        struct Want {
            const char* fixture;
            const char* id;
            std::vector<const char*> plain; ///< lines the plain output holds
            std::vector<const char*> keys;  ///< keys of the JSON object
        };
        const Want wants[] = {
            {"river-v7.sqlite3",
             "9",
             {"queue ", "billing", "charge_card", "priority", "3 of 3", "error:\n",
              "insufficient funds", "scheduled"},
             {"queue", "job", "priority", "max_attempts", "error", "scheduled_at",
              "stored_status"}},
            {"solid-queue.sqlite3",
             "7",
             {"SyncInventoryJob", "error:\n", "RecordNotFound"},
             {"queue", "job", "error"}},
            {"goqite.sqlite3",
             "m_b3ee8a40d042cc7f63930a381dc265f2",
             {"FAILED (dead_letter)", "emails", "3 of 3", "token text"},
             {"queue", "extra_state", "token_text", "max_attempts"}},
            {"oban-lite.sqlite3", "9", {"queue ", "job "}, {"queue", "job", "max_attempts"}},
        };
        for (const Want& w : wants) {
            QTemporaryDir dir;
            const QString fixture = QString::fromLatin1(w.fixture);
            const QString path = copyFixture(dir, QStringLiteral("formats/") + fixture);
            const QString now = nowOf(fixture);
            const Result r = run({QStringLiteral("get"), path, QString::fromLatin1(w.id),
                                  QStringLiteral("--now"), now});
            QCOMPARE(r.code, 0);
            for (const char* p : w.plain)
                QVERIFY2(r.out.contains(p),
                         qPrintable(fixture + QStringLiteral(": no ") + QString::fromLatin1(p) +
                                    u'\n' + QString::fromUtf8(r.out)));
            const QJsonObject j = json({QStringLiteral("get"), path, QString::fromLatin1(w.id),
                                        QStringLiteral("--now"), now})
                                      .object();
            for (const char* k : w.keys)
                QVERIFY2(
                    j.contains(QString::fromLatin1(k)),
                    qPrintable(fixture + QStringLiteral(": no key ") + QString::fromLatin1(k)));
        }
        // A damaged JSONB payload says why it is shown as bytes.
        QTemporaryDir dir;
        const QString damaged =
            copyFixture(dir, QStringLiteral("formats/river-v7-damaged-jsonb.sqlite3"));
        const QJsonArray rows = json({QStringLiteral("list"), damaged}).array();
        bool noted = false;
        for (const auto& v : rows) {
            const QJsonObject m = v.toObject();
            if (!m.contains(QStringLiteral("data_note")))
                continue;
            noted = true;
            const Result g = run(
                {QStringLiteral("get"), damaged, m.value(QStringLiteral("message_id")).toString()});
            QVERIFY(g.out.contains("note: "));
        }
        QVERIFY(noted);
    }

    void infoJsonHasExtraStatesAndQueues_data() { fixtures(); }
    void infoJsonHasExtraStatesAndQueues() {
        QFETCH(QString, fixture);
        const QJsonObject facts = m_facts.value(fixture).toObject();
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/") + fixture);
        const QJsonObject info =
            json({QStringLiteral("info"), path, QStringLiteral("--now"), nowOf(fixture)}).object();
        const QJsonObject extra = facts.value(QStringLiteral("extra")).toObject();
        QSet<QString> names;
        for (const auto& v : info.value(QStringLiteral("extra_states")).toArray()) {
            const QJsonObject x = v.toObject();
            const QString name = x.value(QStringLiteral("name")).toString();
            names.insert(name);
            QVERIFY(!x.value(QStringLiteral("description")).toString().isEmpty());
            QCOMPARE(x.value(QStringLiteral("count")).toInteger(), extra.value(name).toInteger(0));
        }
        for (auto it = extra.begin(); it != extra.end(); ++it)
            QVERIFY2(names.contains(it.key()), qPrintable(it.key()));
        const QJsonObject perQueue = facts.value(QStringLiteral("per_queue")).toObject();
        const QJsonArray queues = info.value(QStringLiteral("queues")).toArray();
        QCOMPARE(info.value(QStringLiteral("named_queues")).toBool(), !perQueue.isEmpty());
        QCOMPARE(queues.size(), perQueue.size());
        for (const auto& v : queues) {
            const QJsonObject q = v.toObject();
            const QJsonObject want =
                perQueue.value(q.value(QStringLiteral("name")).toString()).toObject();
            const QJsonObject c = lq::test::countsAsFacts(q, facts);
            for (const char* st : {"READY", "LOCKED", "DONE", "FAILED"})
                QCOMPARE(c.value(QLatin1String(st)).toInteger(),
                         want.value(QString::fromLatin1(st)).toInteger(0));
        }
    }

    /// info, stats, list --status stuck, fleet and Prometheus count the same
    /// stuck jobs on every fixture, at fixed --now values.
    void everyCommandAgreesOnStuck_data() {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("now");
        for (const QString& f : queueFixtures()) {
            const QString own = nowOf(f);
            QTest::addRow("%s at its now", qPrintable(f)) << f << own;
            QTest::addRow("%s 90 min later", qPrintable(f))
                << f << QStringLiteral("2026-11-30T13:30:00Z");
        }
    }
    void everyCommandAgreesOnStuck() {
        QFETCH(QString, fixture);
        QFETCH(QString, now);
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/") + fixture);
        for (const QString& stuckAfter : {QStringLiteral("300"), QStringLiteral("7200")}) {
            const QStringList common = {QStringLiteral("--now"), now,
                                        QStringLiteral("--stuck-after"), stuckAfter};
            const qint64 info = json(QStringList{QStringLiteral("info"), path} + common)
                                    .object()
                                    .value(QStringLiteral("stuck"))
                                    .toInteger(-1);
            const qint64 stats = json(QStringList{QStringLiteral("stats"), path} + common)
                                     .object()
                                     .value(QStringLiteral("stuck"))
                                     .toInteger(-2);
            const qint64 listed =
                json(QStringList{QStringLiteral("list"), path, QStringLiteral("--status"),
                                 QStringLiteral("stuck")} +
                     common)
                    .array()
                    .size();
            const Result prom =
                run(QStringList{QStringLiteral("stats"), path, QStringLiteral("--prometheus")} +
                    common);
            const qint64 exported = sampleValue(prom.out, "lq_stuck_messages", "queue=");
            const QJsonArray fleet = json(QStringList{QStringLiteral("fleet"), dir.path()} + common)
                                         .object()
                                         .value(QStringLiteral("queues"))
                                         .toArray();
            QCOMPARE(fleet.size(), 1);
            const qint64 inFleet =
                fleet.at(0).toObject().value(QStringLiteral("stuck")).toInteger(-3);
            QCOMPARE(stats, info);
            QCOMPARE(qint64(listed), info);
            QCOMPARE(exported, info);
            QCOMPARE(inFleet, info);
            // The text of info says the same number.
            const Result text = run(QStringList{QStringLiteral("info"), path} + common);
            if (info > 0)
                QVERIFY2(text.out.contains(QByteArray(QByteArray::number(info) + " stuck")),
                         text.out.constData());
        }
    }

    void bulkCommandsAskTheFormat_data() { fixtures(); }
    void bulkCommandsAskTheFormat() {
        QFETCH(QString, fixture);
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/") + fixture);
        const QByteArray before = lq::test::fileDigest(path);
        const auto* format = lq::core::QueueFormat::byId(m_facts.value(fixture)
                                                             .toObject()
                                                             .value(QStringLiteral("format"))
                                                             .toString()
                                                             .toStdString());
        QVERIFY(format);
        lq::core::FormatInfo fi;
        const std::string why = format->whyNot(lq::core::Action::RetryExpired, fi);
        const Result r = run({QStringLiteral("retry-expired"), path, QStringLiteral("--older-than"),
                              QStringLiteral("1"), QStringLiteral("--now"), nowOf(fixture)});
        // A file its format opens read-only (readOnlyReason: a trigger, a
        // schema lqcore cannot load writable) says that first.
        const bool readOnly = json({QStringLiteral("info"), path})
                                  .object()
                                  .value(QStringLiteral("read_only"))
                                  .toBool();
        if (why.empty() && !readOnly) {
            QCOMPARE(r.code, 0);
        } else {
            QCOMPARE(r.code, 1);
            const QByteArray said =
                readOnly ? QByteArray("read-only") : QByteArray::fromStdString(why);
            QVERIFY2(r.err.contains(said), r.err.constData());
            QVERIFY(r.err.toLower().contains("nothing was changed"));
            QCOMPARE(lq::test::fileDigest(path), before);
        }
    }

    void pruneFollowsTheLibrary_data() {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("now");
        QTest::addColumn<QByteArray>("expected"); ///< SQL counting what the library prunes
        QTest::addColumn<QByteArray>("stored");
        // Oban's Pruner: completed, cancelled, discarded older than 60 s.
        const QByteArray oban =
            "SELECT count(*) FROM oban_jobs WHERE (state = 'completed' AND "
            "julianday(substr(completed_at, 1, 19)) < julianday('2026-11-30 11:59:00')) OR (state "
            "= "
            "'cancelled' AND julianday(substr(cancelled_at, 1, 19)) < julianday('2026-11-30 "
            "11:59:00')) OR (state = 'discarded' AND julianday(substr(discarded_at, 1, 19)) < "
            "julianday('2026-11-30 11:59:00'))";
        QTest::newRow("oban-lite")
            << QStringLiteral("oban-lite.sqlite3") << QStringLiteral("2026-11-30T12:00:00Z") << oban
            << QByteArray("SELECT count(*) FROM oban_jobs");
        // River's JobCleaner: completed and cancelled after 24 h, discarded
        // after 7 days, by finalized_at; a day later only the first apply.
        const QByteArray river =
            "SELECT count(*) FROM river_job WHERE (state IN ('completed', 'cancelled') AND "
            "julianday(substr(finalized_at, 1, 19)) < julianday('2026-12-01 06:00:00', '-1 day')) "
            "OR (state = 'discarded' AND julianday(substr(finalized_at, 1, 19)) < "
            "julianday('2026-12-01 06:00:00', '-7 days'))";
        QTest::newRow("river a day later")
            << QStringLiteral("river-v7.sqlite3") << QStringLiteral("2026-12-01T06:00:00Z") << river
            << QByteArray("SELECT count(*) FROM river_job");
        QByteArray riverWeek = river;
        riverWeek.replace("2026-12-01 06:00:00", "2026-12-08 06:00:00");
        QTest::newRow("river a week later")
            << QStringLiteral("river-v7.sqlite3") << QStringLiteral("2026-12-08T06:00:00Z")
            << riverWeek << QByteArray("SELECT count(*) FROM river_job");
        // backlite's cleaner: completed rows whose expires_at has passed
        // (NULL: kept for ever); at the fixture's now none has, 22 h later
        // most have.
        const QByteArray backlite =
            "SELECT count(*) FROM backlite_tasks_completed WHERE expires_at IS NOT NULL AND "
            "expires_at <= CAST(strftime('%s', '2026-12-01 10:00:00') AS INTEGER) * 1000";
        QTest::newRow("backlite at its expiry")
            << QStringLiteral("backlite.sqlite3") << QStringLiteral("2026-12-01T10:00:00Z")
            << backlite << kBackliteStored;
        QByteArray backliteEarly = backlite;
        backliteEarly.replace("2026-12-01 10:00:00", "2026-11-30 12:00:00");
        QTest::newRow("backlite before any expiry")
            << QStringLiteral("backlite.sqlite3") << QStringLiteral("2026-11-30T12:00:00Z")
            << backliteEarly << kBackliteStored;
    }
    void pruneFollowsTheLibrary() {
        QFETCH(QString, fixture);
        QFETCH(QString, now);
        QFETCH(QByteArray, expected);
        QFETCH(QByteArray, stored);
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/") + fixture);
        const qint64 want = lq::test::sqlInt(path, expected);
        const qint64 before = lq::test::sqlInt(path, stored);
        QVERIFY(want >= 0);
        const QJsonObject r = json({QStringLiteral("prune"), path, QStringLiteral("--yes"),
                                    QStringLiteral("--now"), now})
                                  .object();
        QCOMPARE(r.value(QStringLiteral("pruned")).toInteger(), want);
        QCOMPARE(lq::test::sqlInt(path, stored), before - want);
        if (want > 0) {
            QCOMPARE(run({QStringLiteral("undo"), path}).code, 0);
            QCOMPARE(lq::test::sqlInt(path, stored), before);
        }
        const Result help = run({QStringLiteral("prune"), QStringLiteral("--help")});
        QVERIFY(help.out.contains("Oban's Pruner"));
        QVERIFY(help.out.contains("River's JobCleaner"));
    }

    /// An explicit --older-than still prunes every completed backlite task
    /// by its finish time, expiry or not (--keep-failed keeps the failed).
    void backlitePruneOlderThan() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/backlite.sqlite3"));
        const QByteArray done = "SELECT count(*) FROM backlite_tasks_completed WHERE succeeded = 1";
        const QByteArray failed =
            "SELECT count(*) FROM backlite_tasks_completed WHERE succeeded = 0";
        const qint64 doneBefore = lq::test::sqlInt(path, done);
        const qint64 failedBefore = lq::test::sqlInt(path, failed);
        QVERIFY(doneBefore > 0 && failedBefore > 0);
        const QString now = nowOf(QStringLiteral("backlite.sqlite3"));
        const QJsonObject keep =
            json({QStringLiteral("prune"), path, QStringLiteral("--yes"),
                  QStringLiteral("--older-than"), QStringLiteral("0"),
                  QStringLiteral("--keep-failed"), QStringLiteral("--now"), now})
                .object();
        QCOMPARE(keep.value(QStringLiteral("pruned")).toInteger(), doneBefore);
        QCOMPARE(lq::test::sqlInt(path, failed), failedBefore);
        const QJsonObject all = json({QStringLiteral("prune"), path, QStringLiteral("--yes"),
                                      QStringLiteral("--older-than"), QStringLiteral("0"),
                                      QStringLiteral("--now"), now})
                                    .object();
        QCOMPARE(all.value(QStringLiteral("pruned")).toInteger(), failedBefore);
        QCOMPARE(lq::test::sqlInt(path, "SELECT count(*) FROM backlite_tasks_completed"),
                 qint64(0));
    }

    /// watch --queue prints the counts of that named queue, as stats does.
    void watchNarrowedToOneQueue() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/goqite.sqlite3"));
        const QString now = nowOf(QStringLiteral("goqite.sqlite3"));
        const QJsonObject perQueue = m_facts.value(QStringLiteral("goqite.sqlite3"))
                                         .toObject()
                                         .value(QStringLiteral("per_queue"))
                                         .toObject();
        for (const QString& queue : perQueue.keys()) {
            QProcess watch;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("LQ_AUDIT_DIR"), m_audit.path());
            watch.setProcessEnvironment(env);
            watch.start(lqctlPath(), {QStringLiteral("watch"), path, QStringLiteral("--queue"),
                                      queue, QStringLiteral("--now"), now, QStringLiteral("--json"),
                                      QStringLiteral("--interval"), QStringLiteral("0.1")});
            QVERIFY(watch.waitForStarted());
            QByteArray output;
            QTRY_VERIFY_WITH_TIMEOUT((output += watch.readAllStandardOutput()).contains('\n'),
                                     5000);
            watch.terminate();
            QVERIFY(watch.waitForFinished(5000));
            QCOMPARE(watch.exitCode(), 0);
            const QJsonObject line = QJsonDocument::fromJson(output.split('\n').front()).object();
            QCOMPARE(line.value(QStringLiteral("queue")).toString(), queue);
            const QJsonObject want = perQueue.value(queue).toObject();
            const QJsonObject got =
                lq::test::countsAsFacts(QJsonObject{{QStringLiteral("counts"), line}},
                                        m_facts.value(QStringLiteral("goqite.sqlite3")).toObject());
            for (const char* state : {"READY", "LOCKED", "FAILED"})
                QCOMPARE(got.value(QLatin1String(state)).toInteger(),
                         want.value(QLatin1String(state)).toInteger());
        }
        // A format without named queues: the same refusal as every command.
        const QString plain = copyFixture(dir, QStringLiteral("litequeue-head-mixed.sqlite3"));
        const Result bad = run(
            {QStringLiteral("watch"), plain, QStringLiteral("--queue"), QStringLiteral("emails")});
        QVERIFY2(bad.code != 0 && bad.err.contains("no named queues"), bad.err.constData());
    }

    /// --queue narrows the bulk commands too: prune in one named queue
    /// deletes only that queue's finished jobs.
    void pruneNarrowedToOneQueue() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/oban-lite.sqlite3"));
        const QByteArray finished =
            "SELECT count(*) FROM oban_jobs WHERE state IN ('completed', 'cancelled', "
            "'discarded')";
        const qint64 inMailers = lq::test::sqlInt(path, finished + " AND queue = 'mailers'");
        const qint64 elsewhere = lq::test::sqlInt(path, finished + " AND queue <> 'mailers'");
        QVERIFY(inMailers > 0 && elsewhere > 0);
        const QJsonObject r =
            json({QStringLiteral("prune"), path, QStringLiteral("--yes"), QStringLiteral("--queue"),
                  QStringLiteral("mailers"), QStringLiteral("--older-than"), QStringLiteral("0"),
                  QStringLiteral("--now"), nowOf(QStringLiteral("oban-lite.sqlite3"))})
                .object();
        QCOMPARE(r.value(QStringLiteral("pruned")).toInteger(), inMailers);
        QCOMPARE(lq::test::sqlInt(path, finished + " AND queue = 'mailers'"), qint64(0));
        QCOMPARE(lq::test::sqlInt(path, finished + " AND queue <> 'mailers'"), elsewhere);
    }

    void prometheusHasNamedQueues_data() { fixtures(); }
    void prometheusHasNamedQueues() {
        QFETCH(QString, fixture);
        const QJsonObject facts = m_facts.value(fixture).toObject();
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/") + fixture);
        const Result r = run({QStringLiteral("stats"), path, QStringLiteral("--prometheus"),
                              QStringLiteral("--now"), nowOf(fixture)});
        QCOMPARE(r.code, 0);
        const QJsonObject perQueue = facts.value(QStringLiteral("per_queue")).toObject();
        QCOMPARE(r.out.contains("lq_named_queue_messages{"), !perQueue.isEmpty());
        for (auto it = perQueue.begin(); it != perQueue.end(); ++it) {
            const QJsonObject want = it.value().toObject();
            const QByteArray label = "queue_name=\"" + it.key().toUtf8() + '"';
            // A format's word for a state (goqite's dead_letter) is that
            // state's series, as the facts' extra_subset_of says.
            const QJsonObject subsetOf = facts.value(QStringLiteral("extra_subset_of")).toObject();
            const auto sample = [&](const QByteArray& status) {
                return sampleValue(r.out, "lq_named_queue_messages",
                                   label + ",status=\"" + status + '"');
            };
            for (const char* st : {"READY", "SCHEDULED", "LOCKED", "DONE", "FAILED"}) {
                qint64 n = sample(QByteArray(st).toLower());
                for (auto x = subsetOf.begin(); x != subsetOf.end(); ++x) {
                    if (x.value().toString() == QLatin1String(st) &&
                        r.out.contains(QByteArray(label + ",status=\"" + x.key().toUtf8() + '"')))
                        n += sample(x.key().toUtf8());
                }
                QCOMPARE(n, want.value(QString::fromLatin1(st)).toInteger(0));
            }
        }
        // The file's LOCKED jobs are all in the exposition, leased or expired.
        const QJsonObject counts = facts.value(QStringLiteral("counts")).toObject();
        const qint64 leased = sampleValue(r.out, "lq_messages", "status=\"leased\"");
        const qint64 expired = sampleValue(r.out, "lq_messages", "status=\"expired\"");
        const qint64 locked = sampleValue(r.out, "lq_messages", "status=\"locked\"");
        QCOMPARE(locked >= 0 ? locked : leased + expired,
                 counts.value(QStringLiteral("LOCKED")).toInteger());
    }

    /// A queue the file does not hold is said, with the names it holds; a
    /// --claim that is not the job's says which claim the job holds.
    void unknownQueueAndWrongClaimAreSaid() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/solid-queue.sqlite3"));
        const QByteArray before = lq::test::fileDigest(path);
        for (const char* cmd : {"stats", "list", "info"}) {
            const Result r = run({QString::fromLatin1(cmd), path, QStringLiteral("--queue"),
                                  QStringLiteral("nosuch")});
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.contains("no queue nosuch in "), r.err.constData());
            QVERIFY2(r.err.contains("; queues: default, mailers, reports, solid_queue_recurring"),
                     r.err.constData());
        }
        const Result wrong = run({QStringLiteral("retry"), path, QStringLiteral("7"),
                                  QStringLiteral("--claim"), QStringLiteral("123")});
        QCOMPARE(wrong.code, 1);
        QVERIFY2(wrong.err.contains("the claim did not match: job 7 holds execution failed:1, "
                                    "not 123 (now FAILED)"),
                 wrong.err.constData());
        QCOMPARE(lq::test::fileDigest(path), before);
    }

    void unstoredSettings() {
        QTemporaryDir dir;
        const QString goqite = copyFixture(dir, QStringLiteral("formats/goqite.sqlite3"));
        const QString now = nowOf(QStringLiteral("goqite.sqlite3"));
        for (const int n : {1, 2, 3, 5}) {
            const QByteArray sql =
                "SELECT count(*) FROM goqite WHERE received >= " + QByteArray::number(n) +
                " AND timeout <= '" + now.toUtf8() + "'";
            QStringList args = {QStringLiteral("stats"), goqite, QStringLiteral("--now"), now};
            if (n != 3) // 3 is goqite's default
                args << QStringLiteral("--max-receive") << QString::number(n);
            const QJsonObject c = json(args).object().value(QStringLiteral("counts")).toObject();
            QCOMPARE(c.value(QStringLiteral("extra"))
                         .toObject()
                         .value(QStringLiteral("dead_letter"))
                         .toInteger(),
                     lq::test::sqlInt(goqite, sql));
            QCOMPARE(c.value(QStringLiteral("failed")).toInteger(), 0); // goqite: dead letters
        }
        const QString backlite = copyFixture(dir, QStringLiteral("formats/backlite.sqlite3"));
        const QString bnow = nowOf(QStringLiteral("backlite.sqlite3"));
        const qint64 nowMs = QDateTime::fromString(bnow, Qt::ISODate).toMSecsSinceEpoch();
        for (const int s : {60, 600, 3600}) {
            const QByteArray sql = "SELECT count(*) FROM backlite_tasks WHERE claimed_at < " +
                                   QByteArray::number(nowMs - qint64(s) * 1000);
            QStringList args = {QStringLiteral("stats"), backlite, QStringLiteral("--now"), bnow};
            if (s != 600) // the default
                args << QStringLiteral("--release-after") << QString::number(s);
            QCOMPARE(json(args).object().value(QStringLiteral("stuck")).toInteger(),
                     lq::test::sqlInt(backlite, sql));
        }
        const Result bad = run({QStringLiteral("stats"), goqite, QStringLiteral("--max-receive"),
                                QStringLiteral("0")});
        QCOMPARE(bad.code, 2);
        const Result badQueue = run({QStringLiteral("stats"), goqite,
                                     QStringLiteral("--max-receive"), QStringLiteral("=4")});
        QCOMPARE(badQueue.code, 2);
    }

    /// --max-receive QUEUE=N sets one goqite queue's maxReceive (goqite's is
    /// per queue name); N alone stays the default of the others.
    void maxReceivePerQueue() {
        QTemporaryDir dir;
        const QString goqite = copyFixture(dir, QStringLiteral("formats/goqite.sqlite3"));
        const QString now = nowOf(QStringLiteral("goqite.sqlite3"));
        const auto deadIn = [&](const QString& where, int n) {
            return lq::test::sqlInt(goqite, "SELECT count(*) FROM goqite WHERE " + where.toUtf8() +
                                                " AND received >= " + QByteArray::number(n) +
                                                " AND timeout <= '" + now.toUtf8() + "'");
        };
        const auto dead = [&](const QStringList& extra, const QString& queue = {}) {
            QStringList args = {QStringLiteral("stats"), goqite, QStringLiteral("--now"), now};
            if (!queue.isEmpty())
                args << QStringLiteral("--queue") << queue;
            return json(args + extra)
                .object()
                .value(QStringLiteral("counts"))
                .toObject()
                .value(QStringLiteral("extra"))
                .toObject()
                .value(QStringLiteral("dead_letter"))
                .toInteger();
        };
        const QString thumbs = QStringLiteral("queue = 'thumbnails'");
        const QString others = QStringLiteral("queue <> 'thumbnails'");
        // thumbnails at 2, the others at goqite's default 3.
        const QStringList one = {QStringLiteral("--max-receive"), QStringLiteral("thumbnails=2")};
        QVERIFY(deadIn(thumbs, 2) != deadIn(thumbs, 3));
        QCOMPARE(dead(one), deadIn(thumbs, 2) + deadIn(others, 3));
        QCOMPARE(dead(one, QStringLiteral("thumbnails")), deadIn(thumbs, 2));
        QCOMPARE(dead(one, QStringLiteral("emails")),
                 deadIn(QStringLiteral("queue = 'emails'"), 3));
        // A default of 1 for the others, thumbnails still 2.
        const QStringList both =
            one + QStringList{QStringLiteral("--max-receive"), QStringLiteral("1")};
        QCOMPARE(dead(both), deadIn(thumbs, 2) + deadIn(others, 1));
        // list --status failed agrees with the count.
        const QJsonArray rows =
            json({QStringLiteral("list"), goqite, QStringLiteral("--now"), now,
                  QStringLiteral("--status"), QStringLiteral("failed"),
                  QStringLiteral("--max-receive"), QStringLiteral("thumbnails=2")})
                .array();
        QCOMPARE(qint64(rows.size()), dead(one));
    }
};

QTEST_GUILESS_MAIN(TstLqctlFormats)
#include "tst_lqctl_formats.moc"
