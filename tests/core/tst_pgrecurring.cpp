// SPDX-License-Identifier: MIT
// The recurring tasks of pg-boss and Graphile Worker on PostgreSQL (issue
// 41, core/pg/recurring.h readLibraryRecurring) against a real private
// PostgreSQL 15 server (tests/support/pgserver.h). Each library's schema as
// its npm package made it (tests/data/pg/pg-boss-npm.sql,
// graphile-worker-npm.sql), in a database of its own, with the rows the
// library writes when it schedules and fires (pg-boss-schedule-rows.sql,
// graphile-worker-crontab-rows.sql), read at a fixed clock: the key, the
// cron and its zone, the last run, the next run (UTC and a fixed offset),
// the runs missed, the reason a named zone or a crontab kept in the app gets
// no next run; and the same through the backend seam and `lqctl recurring
// URL --json`.
#include "core/backend.h"
#include "core/pg/catalog.h"
#include "core/pg/connection.h"
#include "core/pg/recurring.h"
#include "core/recurring.h"
#include "core/timefmt.h"
#include "support/fixtures.h"
#include "support/lqctlrun.h"
#include "support/pgserver.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace lq::core;
using lq::test::PgServer;

namespace {

QString readAll(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

TimeNs at(const char* iso) {
    return *parseTimeArg(iso);
}

/// One task as the test expects it.
struct Want {
    std::string key;
    std::string schedule;
    std::string queue;
    std::int64_t priority = 0;
    bool isStatic = true;
    std::optional<TimeNs> last;
    std::optional<TimeNs> next;
    std::int64_t missed = 0;
    std::string whyHas; ///< "" when there is no reason; else a part of it
};

/// pg-boss-schedule-rows.sql at 2026-12-06T15:05:20Z, by name then key.
std::vector<Want> pgBossWant() {
    return {
        // */15 in UTC, last fired 14:30: 14:45 and 15:00 missed.
        {"email:digest", "*/15 * * * *", "email", 0, false, at("2026-12-06T14:30:00Z"),
         at("2026-12-06T15:15:00Z"), 2, ""},
        // Europe/Paris: last fire read, no next run, the reason.
        {"export", "30 9 * * 1-5", "export", 0, false, at("2026-12-04T08:30:00Z"), std::nullopt, 0,
         "time zone Europe/Paris is not evaluated here"},
        // Hourly in UTC, last of three fires 15:00 (its singleton_on, not the
        // 15:00:09 it was sent at).
        {"reports", "0 * * * *", "reports", 3, false, at("2026-12-06T15:00:00Z"),
         at("2026-12-06T16:00:00Z"), 0, ""},
        // 09:00 at UTC+9 (Etc/GMT-9), never fired.
        {"reports:tokyo", "0 9 * * *", "reports", 0, false, std::nullopt,
         at("2026-12-07T00:00:00Z"), 0, ""},
    };
}

/// graphile-worker-crontab-rows.sql at 2026-12-05T21:45:00Z, by identifier.
std::vector<Want> graphileWant() {
    const std::string why = "schedule kept in the app's crontab file";
    return {
        {"new_item", "", "", 0, true, std::nullopt, std::nullopt, 0, why},
        {"nightly_cleanup", "", "", 0, true, at("2026-12-05T03:00:00Z"), std::nullopt, 0, why},
        {"send_digest", "", "", 0, true, at("2026-12-05T21:00:00Z"), std::nullopt, 0, why},
    };
}

/// good-job-cron-rows.sql: each cron key's newest run.
std::vector<Want> goodJobWant() {
    const std::string why = "config.good_job.cron";
    return {
        {"cleanup", "", "low", 5, true, at("2026-12-01T11:00:00Z"), std::nullopt, 0, why},
        {"hourly_report", "", "default", 0, true, at("2026-12-01T11:00:00Z"), std::nullopt, 0, why},
        {"legacy", "", "default", 0, true, at("2026-12-01T08:15:00Z"), std::nullopt, 0, why},
    };
}

QString shownNs(const std::optional<TimeNs>& t) {
    return t ? QString::fromStdString(isoUtc(*t)) : QStringLiteral("none");
}

void compareTasks(const RecurringList& got, const std::vector<Want>& want) {
    QVERIFY2(got.notStored.empty(), got.notStored.c_str());
    QVERIFY(!got.missedRule.empty());
    QCOMPARE(got.tasks.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        const RecurringTask& t = got.tasks[i];
        const Want& w = want[i];
        QCOMPARE(t.key, w.key);
        QCOMPARE(t.schedule, w.schedule);
        QCOMPARE(t.queue, w.queue);
        QCOMPARE(t.priority, w.priority);
        QCOMPARE(t.isStatic, w.isStatic);
        QCOMPARE(shownNs(t.lastRunNs), shownNs(w.last));
        QCOMPARE(shownNs(t.nextRunNs), shownNs(w.next));
        QCOMPARE(t.missed, w.missed);
        if (w.whyHas.empty())
            QVERIFY2(t.why.empty(), t.why.c_str());
        else
            QVERIFY2(t.why.find(w.whyHas) != std::string::npos, t.why.c_str());
    }
}

std::optional<TimeNs> nsField(const QJsonObject& o, const char* name) {
    const QJsonValue v = o.value(QLatin1String(name));
    return v.isNull() ? std::nullopt : std::optional<TimeNs>(v.toInteger());
}

void compareJson(const QJsonObject& top, const std::vector<Want>& want) {
    QVERIFY(top.value(QStringLiteral("not_stored")).isNull());
    QVERIFY(top.value(QStringLiteral("missed_rule")).isString());
    const QJsonArray tasks = top.value(QStringLiteral("tasks")).toArray();
    QCOMPARE(tasks.size(), qsizetype(want.size()));
    for (qsizetype i = 0; i < tasks.size(); ++i) {
        const QJsonObject t = tasks.at(i).toObject();
        const Want& w = want[static_cast<std::size_t>(i)];
        QCOMPARE(t.value(QStringLiteral("key")).toString().toStdString(), w.key);
        QCOMPARE(t.value(QStringLiteral("schedule")).toString().toStdString(), w.schedule);
        QCOMPARE(t.value(QStringLiteral("queue")).toString().toStdString(), w.queue);
        QCOMPARE(t.value(QStringLiteral("priority")).toInteger(), w.priority);
        QCOMPARE(t.value(QStringLiteral("static")).toBool(), w.isStatic);
        QCOMPARE(shownNs(nsField(t, "last_run_ns")), shownNs(w.last));
        QCOMPARE(shownNs(nsField(t, "next_run_ns")), shownNs(w.next));
        QCOMPARE(t.value(QStringLiteral("missed")).toInteger(), w.missed);
        const QString why = t.value(QStringLiteral("why")).toString();
        if (w.whyHas.empty())
            QVERIFY(t.value(QStringLiteral("why")).isNull());
        else
            QVERIFY2(why.contains(QString::fromStdString(w.whyHas)), qPrintable(why));
    }
}

} // namespace

class TestPgRecurring : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<PgServer> m_pg;
    QTemporaryDir m_audit;

    /// Loads the npm dump and the rows file into database `db`.
    void load(const QString& db, const char* dump, const char* rows) {
        const QString dir = lq::test::dataDir() + QStringLiteral("/pg/");
        QVERIFY(m_pg->createDatabase(db));
        for (const char* file : {dump, rows}) {
            const QString sql = readAll(dir + QLatin1String(file));
            QVERIFY2(!sql.isEmpty(), file);
            const QString err = m_pg->execScript(sql, {}, db);
            QVERIFY2(err.isEmpty(), qPrintable(QLatin1String(file) + QStringLiteral(": ") + err));
        }
    }

    /// readLibraryRecurring on database `db` for its one library.
    std::optional<RecurringList> direct(const QString& db, const std::string& library, TimeNs now,
                                        int tzOffset = 0) {
        auto c = pg::Connection::open(m_pg->url(db).toStdString());
        const pg::Catalog cat = pg::readCatalog(*c);
        for (const pg::Found& f : cat.found)
            if (f.library == library)
                return pg::readLibraryRecurring(*c, f, now, tzOffset);
        return std::nullopt;
    }

    /// Through core::openBackend and through lqctl: the same tasks. Skipped
    /// while core/pg/list.cpp's readRecurring does not hand these libraries
    /// to readLibraryRecurring.
    void throughSeams(const QString& db, const char* nowIso, const std::vector<Want>& want) {
        BackendOptions o;
        o.readOnly = true;
        o.now = at(nowIso);
        const RecurringList viaBackend =
            openBackend(m_pg->url(db).toStdString(), o)->recurringTasks(0);
        QVERIFY2(viaBackend.notStored.empty(), viaBackend.notStored.c_str());
        compareTasks(viaBackend, want);
        if (QTest::currentTestFailed())
            return;
        const auto r = lq::test::runLqctl(lq::test::lqctlPath(),
                                          {QStringLiteral("recurring"), m_pg->url(db),
                                           QStringLiteral("--json"), QStringLiteral("--now"),
                                           QLatin1String(nowIso)},
                                          m_audit.path());
        QVERIFY2(r.code == 0, r.err.constData());
        QJsonParseError pe{};
        const QJsonDocument doc = QJsonDocument::fromJson(r.out, &pe);
        QVERIFY2(pe.error == QJsonParseError::NoError, r.out.constData());
        compareJson(doc.object(), want);
    }

private slots:
    void initTestCase() {
        m_pg = std::make_unique<PgServer>();
        if (!m_pg->ok())
            QSKIP(qPrintable(m_pg->error()));
        QVERIFY(m_audit.isValid());
        load(QStringLiteral("pgbsched"), "pg-boss-npm.sql", "pg-boss-schedule-rows.sql");
        load(QStringLiteral("gwcron"), "graphile-worker-npm.sql",
             "graphile-worker-crontab-rows.sql");
        QVERIFY(m_pg->createDatabase(QStringLiteral("gjcron")));
        QVERIFY(m_pg->execScript(QStringLiteral("CREATE SCHEMA gj"), {}, QStringLiteral("gjcron"))
                    .isEmpty());
        for (const char* file : {"good-job.sql", "good-job-cron-rows.sql"}) {
            const QString err = m_pg->execScript(
                readAll(lq::test::dataDir() + QStringLiteral("/pg/") + QLatin1String(file)),
                QStringLiteral("gj"), QStringLiteral("gjcron"));
            QVERIFY2(err.isEmpty(), qPrintable(err));
        }
    }

    /// pg-boss's `schedule` rows with their fires (the newest
    /// __pgboss__send-it job of each singleton key): key, cron, zone, last,
    /// next and missed runs; no next run in a named zone, with the reason.
    void pgBossSchedules() {
        const auto list = direct(QStringLiteral("pgbsched"), "pg-boss", at("2026-12-06T15:05:20Z"));
        QVERIFY(list);
        compareTasks(*list, pgBossWant());
        if (QTest::currentTestFailed())
            return;
        // The payload is the description; the zone is named in the reason.
        QCOMPARE(QString::fromStdString(list->tasks[2].description),
                 QStringLiteral("data {\"kind\": \"hourly\"}"));
        QVERIFY(list->tasks[3].description.empty()); // data NULL
        QVERIFY(list->tasks[1].why.find("IANA") != std::string::npos);
    }

    /// The fires go by the clock: a minute later the quarter-hour schedule
    /// has one more missed run only once 15:15 is a minute old.
    void pgBossMissedByClock() {
        const auto at1516 =
            direct(QStringLiteral("pgbsched"), "pg-boss", at("2026-12-06T15:16:30Z"));
        QVERIFY(at1516);
        QCOMPARE(at1516->tasks[0].missed, std::int64_t(3)); // 14:45, 15:00, 15:15
        QCOMPARE(shownNs(at1516->tasks[0].nextRunNs), shownNs(at("2026-12-06T15:30:00Z")));
        const auto at1515 =
            direct(QStringLiteral("pgbsched"), "pg-boss", at("2026-12-06T15:15:30Z"));
        QVERIFY(at1515);
        QCOMPARE(at1515->tasks[0].missed, std::int64_t(2)); // 15:15 is late, not missed
    }

    /// Graphile Worker's _private_known_crontabs: the identifiers and their
    /// last execution; the schedule is in the app's crontab file.
    void graphileCrontab() {
        const auto list =
            direct(QStringLiteral("gwcron"), "graphile-worker", at("2026-12-05T21:45:00Z"));
        QVERIFY(list);
        compareTasks(*list, graphileWant());
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(QString::fromStdString(list->tasks[1].description),
                 QStringLiteral("known to Graphile Worker since 2026-12-01T08:00:00Z"));
    }

    /// GoodJob's cron entries from the jobs its CronManager enqueued: the
    /// newest cron_at of each key (created_at where an older GoodJob wrote
    /// none), the class, queue and priority of that job; a key turned off
    /// in the dashboard says so.
    void goodJobCron() {
        const auto list = direct(QStringLiteral("gjcron"), "good-job", at("2026-12-01T12:00:00Z"));
        QVERIFY(list);
        QVERIFY(list->notStored.empty());
        compareTasks(*list, goodJobWant());
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(list->tasks[0].className, std::string("CleanupJob"));
        QCOMPARE(list->tasks[2].className, std::string("LegacyJob"));
        QVERIFY(list->tasks[0].description.empty());
        QVERIFY(list->tasks[1].description.find("disabled") != std::string::npos);
    }

    void goodJobThroughBackendAndLqctl() {
        throughSeams(QStringLiteral("gjcron"), "2026-12-01T12:00:00Z", goodJobWant());
    }

    /// Other libraries are not this reader's.
    void otherLibraries() {
        const auto c = pg::Connection::open(m_pg->url(QStringLiteral("gwcron")).toStdString());
        pg::Found solid;
        solid.library = "solid-queue";
        QVERIFY(!pg::readLibraryRecurring(*c, solid, at("2026-12-05T21:45:00Z"), 0));
    }

    void pgBossThroughBackendAndLqctl() {
        throughSeams(QStringLiteral("pgbsched"), "2026-12-06T15:05:20Z", pgBossWant());
    }

    void graphileThroughBackendAndLqctl() {
        throughSeams(QStringLiteral("gwcron"), "2026-12-05T21:45:00Z", graphileWant());
    }
};

QTEST_GUILESS_MAIN(TestPgRecurring)
#include "tst_pgrecurring.moc"
