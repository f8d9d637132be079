// SPDX-License-Identifier: MIT
// django-tasks-db (Django's Tasks, database backend) through the format seam:
// the fixture's facts (tests/data/formats/facts.json) with the partition
// summing to the rows stored, stuck as the operator's threshold (the library
// has no heartbeat), the fields read from the row, recognition beside the
// app's own Django tables, errors grouped by exception class path, and each
// action (retry, delete, prune) with its status/started_at/finished_at guard
// refusing a stale token, audited and undone back to the same rows.
#include "core/errors.h"
#include "core/formats/djangotasks.h"
#include "core/sqlite.h"
#include "formatfacts.h"

#include <QObject>
#include <QTemporaryDir>

#include <vector>

using namespace lqtest;
using namespace lq::core;

namespace {

const QString kFixture = QStringLiteral("formats/django-tasks-db.sqlite3");

// The fixture's tasks (rowid order; facts.json "samples").
const std::string kOldDone = "21172ffaff4d4ee6b37b350134ad68c6";     // emails, 11-10
const std::string kOldFailed = "c5c6a23fa5ce4835b065a79f13ad30aa";   // emails, SMTP, 11-12
const std::string kDeadRun = "8e4b01f0e655472f9bfcd185cbcf284a";     // reports, since 11-23
const std::string kDelayedDone = "36ebf809dfd8438fab874ceb94d3de56"; // run_after 09:00
const std::string kAtSix = "0dc17fffef97404ab6ff823ebd60958d";       // run_after 18:00
const std::string kFailedSmtp = "72b234cd83d8477ba940a59adf5a5914";
const std::string kFailedValue = "8bb667875c9544d6ae7d3920c72e18c5"; // reports
const std::string kDue = "aca842df9fb34b2ea68cf90ec4bed519";         // run_after 11:50 passed
const std::string kLongRun = "b918c065820e4e58b0a30c09acf37621";     // 20 min
const std::string kLiveRun = "7cae94a3218c4610b0efce31ff1eb869";     // 1.5 s
const std::string kReady = "68c516f35fc04acdaae3203910b48ff4";       // emails

const std::string kTable = "django_tasks_database_dbtaskresult";

std::vector<std::vector<std::string>> rows(const std::string& path, const std::string& sql) {
    Db db(path, /*readOnly=*/true);
    return db.rows(sql);
}

std::string one(const std::string& path, const std::string& sql) {
    return rows(path, sql).at(0).at(0);
}

/// Every column of every task, with its type (quote()).
std::vector<std::vector<std::string>> snapshot(const std::string& path) {
    return rows(path, "SELECT quote(id), quote(status), quote(enqueued_at), quote(started_at), "
                      "quote(finished_at), quote(args_kwargs), quote(priority), quote(task_path), "
                      "quote(worker_ids), quote(queue_name), quote(backend_name), "
                      "quote(run_after), quote(return_value), quote(exception_class_path), "
                      "quote(traceback) FROM django_tasks_database_dbtaskresult ORDER BY id");
}

std::string writableCopy(const QTemporaryDir& dir) {
    return copyFixture(dir, kFixture);
}

/// 2026-11-30 + h:m:s.us, UTC, in ns.
constexpr TimeNs at(int h, int m, int s, int us = 0) {
    return (1'796'040'000LL + (h - 12) * 3600LL + m * 60LL + s) * kNsPerSecond + us * 1000LL;
}

/// A task row as DBTaskResult.objects.create() writes it, in queue 'odd'.
std::string insertTask(const std::string& id, const std::string& status,
                       const std::string& runAfter, const std::string& startedAt = "NULL") {
    return "INSERT INTO django_tasks_database_dbtaskresult (id, status, enqueued_at, started_at, "
           "finished_at, args_kwargs, priority, task_path, worker_ids, queue_name, backend_name, "
           "run_after, return_value, exception_class_path, traceback) VALUES ('" +
           id + "', '" + status + "', '2026-11-30 10:00:00', " + startedAt +
           ", NULL, '{\"args\": [], \"kwargs\": {}}', 0, 'shop.tasks.odd', '[]', 'odd', "
           "'default', '" +
           runAfter + "', NULL, '', '')";
}

} // namespace

class TstDjangoTasks : public QObject {
    Q_OBJECT

private slots:
    void recognisedAndOpeningChangesNothing();
    void writableWithItsJsonChecks();
    void readOnlyWhenTheSchemaCallsOtherJson();
    void countsAndQueuesMatchTheFacts();
    void stuckIsTheOperatorsThreshold();
    void countsEqualTheStateConditions();
    void fieldsFromTheRow();
    void recognisedBesideOtherDjangoTablesAndRefusedWhenOld();
    void errorsGroupedByExceptionClass();
    void retryFailedAndUndo();
    void operatorRetriesAndUndoesFromTheAuditRecord();
    void staleTokensRefused();
    void deleteAndPruneAndUndo();
    void olderSchemaWithMetadataAndSucceeded();
};

void TstDjangoTasks::recognisedAndOpeningChangesNothing() {
    checkOpeningChangesNothing(kFixture, "django-tasks-db", [](Queue& q) {
        QCOMPARE(q.info().table, kTable);
        QVERIFY(q.info().warnings.empty());
    });
    checkNamedAndOffersRowActions("django-tasks-db");
    const QueueFormat& f = *lq::core::QueueFormat::byId("django-tasks-db");
    const FormatInfo info = infoOf("django-tasks-db");
    QVERIFY(f.keepsHistory());
    QVERIFY(f.namedQueues());
    QVERIFY(f.ownStuckRule().empty()); // no heartbeat: the operator's threshold
    QVERIFY(f.settings().empty());
    for (Action a : {Action::Retry, Action::Delete, Action::Prune})
        QVERIFY2(f.offers(a, info), actionName(a));
    for (Action a : {Action::MarkFailed, Action::Release, Action::RetryExpired, Action::Reschedule,
                     Action::Enqueue, Action::Upgrade})
        QVERIFY2(!f.offers(a, info), actionName(a));
    for (Filter::Metric m : {Filter::Metric::Wait, Filter::Metric::Processing,
                             Filter::Metric::Total, Filter::Metric::TimeToFailure})
        QVERIFY(f.storesMetric(m, info));
    // prune_db_task_results: SUCCESSFUL and FAILED, finished 14 days ago.
    QCOMPARE(f.pruneRules().size(), std::size_t(1));
    QVERIFY((f.pruneRules().front().states == std::vector<State>{State::Done, State::Failed}));
    QVERIFY(f.pruneRules().front().olderThan == std::chrono::hours(24 * 14));
}

void TstDjangoTasks::writableWithItsJsonChecks() {
    // Django gives every JSONField column CHECK ((JSON_VALID(col) OR col IS
    // NULL)). SQLite before 3.42 takes its JSON functions in a schema for
    // unsafe on a hardened connection (trusted_schema off): a writable
    // connection could not even prepare a SELECT on such a file. lqcore's
    // connection answers json_valid() as the built-in does, marked innocuous.
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    {
        auto q = openAtFactsNow(path);
        QVERIFY2(!q->readOnly(), q->info().readOnlyReason.c_str());
        const auto r = q->apply(Action::Retry, {targetOf(*q, kFailedSmtp)}, {});
        QCOMPARE(r.applied.size(), std::size_t(1));
    }
    QCOMPARE(one(path, "SELECT status FROM " + kTable + " WHERE id = '" + kFailedSmtp + "'"),
             std::string("READY"));
    // The constraints still hold on lqcore's connection: invalid JSON refused.
    Connection c(path, Connection::Mode::ReadWrite, 1000);
    c.exec("UPDATE " + kTable + " SET args_kwargs = '{\"args\": [], \"kwargs\": {}}' WHERE id = '" +
           kReady + "'");
    LQ_EXPECT_ERROR(c.exec("UPDATE " + kTable + " SET args_kwargs = '{\"args\": [' WHERE id = '" +
                           kReady + "'"),
                    ErrorKind::Sqlite, "CHECK constraint failed");
    // Every answer equals the built-in's, on a plain (not hardened) database.
    const std::vector<std::string> values = {"NULL",
                                             "''",
                                             "' '",
                                             "'[]'",
                                             "' [1] '",
                                             "'{\"a\":1,}'",
                                             "'[1,]'",
                                             "'\"x\"'",
                                             "'1e5'",
                                             "'-0'",
                                             "'01'",
                                             "'.5'",
                                             "'nul'",
                                             "'null'",
                                             "'{\"a\":[{}]}'",
                                             "'[\"\\u00e9\"]'",
                                             "'[\"\\x\"]'",
                                             "'[\"\t\"]'",
                                             "'[NaN]'",
                                             "x'5b5d'",
                                             "x'00'",
                                             "42",
                                             "4.5",
                                             "'{\"a\" : true }'",
                                             "'[1] x'"};
    Db plain(toStd(dir.filePath(QStringLiteral("plain.sqlite3"))));
    Connection mem(":memory:", Connection::Mode::ReadWriteCreate, 0);
    for (const auto& v : values) {
        const std::string sql = "SELECT quote(json_valid(" + v + "))";
        Statement st = mem.prepare(sql);
        QVERIFY(st.step());
        QCOMPARE(st.text(0), plain.rows(sql).at(0).at(0));
    }
}

void TstDjangoTasks::readOnlyWhenTheSchemaCallsOtherJson() {
    // Only json_valid() is made safe: a CHECK constraint calling another JSON
    // function cannot be loaded by a hardened writable connection, and the
    // format says so as the file's read-only reason instead of failing every
    // action as "malformed".
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    {
        Db db(path);
        db.exec("ALTER TABLE " + kTable +
                " ADD COLUMN \"tags\" text NULL CHECK (json_array_length(\"tags\") >= 0)");
    }
    auto q = openAtFactsNow(path);
    QCOMPARE(q->counts().stored, std::int64_t(16));
    QVERIFY(q->readOnly());
    const std::string& why = q->info().readOnlyReason;
    QVERIFY2(contains(why, "other than JSON_VALID()") && contains(why, "trusted_schema off"),
             why.c_str());
    LQ_EXPECT_ERROR(q->apply(Action::Retry, {targetOf(*q, kFailedSmtp)}, {}), ErrorKind::ReadOnly,
                    "JSON function");
}

void TstDjangoTasks::countsAndQueuesMatchTheFacts() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    const QJsonObject f = factsOf(kFixture);
    const QJsonObject w = f.value(QStringLiteral("counts")).toObject();
    const Counts c = q->counts();
    QCOMPARE(c.ready, want(w, "READY"));
    QCOMPARE(c.scheduled, want(w, "SCHEDULED"));
    QCOMPARE(c.locked, want(w, "LOCKED"));
    QCOMPARE(c.done, want(w, "DONE"));
    QCOMPARE(c.failed, want(w, "FAILED"));
    QCOMPARE(c.unknown, std::int64_t(0));
    QVERIFY(c.extra.empty());
    QVERIFY(f.value(QStringLiteral("extra")).toObject().isEmpty());
    const std::int64_t stored =
        f.value(QStringLiteral("stored")).toObject().value(QStringLiteral("jobs")).toInteger();
    QCOMPARE(c.stored, stored);
    // One partition: every task in exactly one state.
    QCOMPARE(c.ready + c.scheduled + c.locked + c.done + c.failed + c.unknown, c.stored);
    QCOMPARE(describeCounts(c, {}),
             std::string("ready 4, scheduled 2, locked 3, stuck 2, done 4, failed 3, unknown 0, "
                         "stored 16"));
    // The rows, classified one by one, and each state's filter agree.
    const auto all = q->list({}, {}, 0, -1);
    QCOMPARE(std::int64_t(all.size()), stored);
    std::map<std::string, std::int64_t> byState = classify(all);
    for (auto it = w.begin(); it != w.end(); ++it)
        QCOMPARE(byState[toStd(it.key())], it.value().toInteger());
    for (State s : {State::Ready, State::Scheduled, State::Locked, State::Done, State::Failed}) {
        Filter fl;
        fl.states = {s};
        QCOMPARE(q->count(fl), byState[stateName(s)]);
        for (const Message& m : q->list(fl, {}, 0, -1))
            QCOMPARE(m.state, s);
    }
    checkPerQueue(*q, f);
    checkSamples(*q, f);
    QCOMPARE(q->queueNames(), (std::vector<std::string>{"default", "emails", "reports"}));
    QCOMPARE(describeCounts(q->counts("reports"), {}),
             std::string("ready 0, scheduled 1, locked 1, stuck 1, done 0, failed 1, unknown 0, "
                         "stored 3"));
}

void TstDjangoTasks::stuckIsTheOperatorsThreshold() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    // RUNNING since 2026-11-23 (its worker was killed), for 20 min, for 1.5 s.
    QCOMPARE(q->counts().stuck, std::int64_t(2)); // the default, 300 s
    QCOMPARE(q->counts(std::int64_t(3600) * kNsPerSecond).stuck, std::int64_t(1));
    QCOMPARE(q->counts(std::int64_t(8) * 86400 * kNsPerSecond).stuck, std::int64_t(0));
    QCOMPARE(q->counts(std::int64_t(1) * kNsPerSecond).stuck, std::int64_t(3));
    QCOMPARE(q->listLocked(std::chrono::hours(1)).size(), std::size_t(1));
    QCOMPARE(q->listLocked(std::chrono::hours(1)).front().messageId, kDeadRun);
    QCOMPARE(q->listLocked(std::chrono::seconds(1)).size(), std::size_t(3));
    Filter stuck;
    stuck.stuckOnly = true;
    stuck.stuckAfterNs = std::int64_t(3600) * kNsPerSecond;
    QCOMPARE(q->count(stuck), std::int64_t(1));
    QVERIFY(row(*q, kDeadRun).isStuck(kFactsNow, 3600 * kNsPerSecond));
    QVERIFY(row(*q, kLongRun).isStuck(kFactsNow, kDefaultStuckAfterNs));
    QVERIFY(!row(*q, kLongRun).isStuck(kFactsNow, 3600 * kNsPerSecond));
    QVERIFY(!row(*q, kLiveRun).isStuck(kFactsNow, kDefaultStuckAfterNs));
    // The dashboard's scan counts stuck the same way.
    const TimingColumns tc = q->timing(Filter{});
    QCOMPARE(describeCounts(countsFrom(tc, q->now(), 3600 * kNsPerSecond), {}),
             describeCounts(q->counts(3600 * kNsPerSecond), {}));
}

void TstDjangoTasks::countsEqualTheStateConditions() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    {
        // Values at the edges: run_after exactly now (READY: the worker's
        // run_after <= now), the library's "none" written in another time
        // zone (READY), an ISO spelling half a second after now (SCHEDULED),
        // a status of migrations 0016-0017 (SUCCEEDED: DONE), one no
        // migration writes (UNKNOWN), a claim exactly 300 s old (not stuck:
        // older than the threshold is), a started_at that is no time.
        Db db(path);
        db.exec(insertTask("0000000000000000000000000000000a", "READY", "2026-11-30 12:00:00"));
        db.exec(insertTask("0000000000000000000000000000000b", "READY", "9998-12-31 19:00:00"));
        db.exec(insertTask("0000000000000000000000000000000c", "READY", "2026-11-30T12:00:00.5Z"));
        db.exec(insertTask("0000000000000000000000000000000d", "SUCCEEDED", "9999-01-01 00:00:00"));
        db.exec(insertTask("0000000000000000000000000000000e", "NEW", "9999-01-01 00:00:00"));
        db.exec(insertTask("0000000000000000000000000000000f", "RUNNING", "9999-01-01 00:00:00",
                           "'2026-11-30 11:55:00'"));
        db.exec(insertTask("00000000000000000000000000000010", "RUNNING", "9999-01-01 00:00:00",
                           "'2026-11-30 11:54:59.999999'"));
        db.exec(insertTask("00000000000000000000000000000011", "RUNNING", "9999-01-01 00:00:00",
                           "'soon'"));
    }
    auto q = openAtFactsNow(path);
    QCOMPARE(describeCounts(q->counts("odd"), {}),
             std::string("ready 2, scheduled 1, locked 3, stuck 1, done 1, failed 0, unknown 1, "
                         "stored 8"));
    QCOMPARE(row(*q, "0000000000000000000000000000000e").state, State::Unknown);
    QCOMPARE(row(*q, "0000000000000000000000000000000d").statusText, std::string("SUCCEEDED"));
    QVERIFY(!row(*q, "0000000000000000000000000000000b").scheduledAt.has_value());
    // The dashboard's scan classifies as counts() does.
    const TimingColumns tc = q->timing(Filter{});
    QCOMPARE(describeCounts(countsFrom(tc, q->now(), kDefaultStuckAfterNs), {}),
             describeCounts(q->counts(), {}));
    checkCountsByCondition(path, {});
}

void TstDjangoTasks::fieldsFromTheRow() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    // A failed task: the exception's class path, then its traceback.
    const Message failed = row(*q, kFailedSmtp);
    QCOMPARE(failed.state, State::Failed);
    QCOMPARE(failed.statusText, std::string("FAILED"));
    QCOMPARE(failed.jobName.value_or(""), std::string("shop.tasks.send_receipt"));
    QCOMPARE(failed.queueName.value_or(""), std::string("emails"));
    QVERIFY(failed.lastError.value_or("").rfind(
                "smtplib.SMTPServerDisconnected\nTraceback (most recent call last):\n", 0) == 0);
    QVERIFY(failed.lastError->find("smtplib.SMTPServerDisconnected: Connection unexpectedly "
                                   "closed\n") != std::string::npos);
    QCOMPARE(errorClassOf(*failed.lastError), std::string("smtplib.SMTPServerDisconnected"));
    QCOMPARE(failed.data, std::string("{\"args\": [], \"kwargs\": {\"order_id\": 9107}}"));
    QVERIFY(!failed.dataNote.has_value());      // JSON, shown as JSON
    QCOMPARE(failed.attempts, std::int64_t(1)); // one worker id: one claim
    QCOMPARE(failed.inTime, std::optional<TimeNs>(at(10, 5, 0, 300000)));
    QCOMPARE(failed.lockTime, std::optional<TimeNs>(at(10, 5, 1)));
    QCOMPARE(failed.doneTime, std::optional<TimeNs>(at(10, 5, 31, 4000)));
    QVERIFY(!failed.scheduledAt.has_value()); // run_after 9999-01-01: none
    QCOMPARE(failed.tokenText.value_or(""), std::string("bmnneWeXjj4mmClgdocMktxtwcnid0gb\x1f"
                                                        "2026-11-30 10:05:01"));
    QCOMPARE(row(*q, kFailedValue).priority, std::optional<std::int64_t>(5));
    QCOMPARE(errorClassOf(row(*q, kFailedValue).lastError.value_or("")),
             std::string("builtins.ValueError"));
    // Never claimed; and a task enqueued with a run_after.
    QCOMPARE(row(*q, kReady).tokenText.value_or(""), std::string("not claimed"));
    QCOMPARE(row(*q, kReady).attempts, std::int64_t(0));
    QVERIFY(!row(*q, kReady).lastError.has_value());
    QCOMPARE(row(*q, kAtSix).state, State::Scheduled);
    QCOMPARE(row(*q, kAtSix).scheduledAt, std::optional<TimeNs>(at(18, 0, 0)));
    QCOMPARE(row(*q, kAtSix).inTime, std::optional<TimeNs>(at(9, 0, 0, 1)));
    QCOMPARE(row(*q, kDue).state, State::Ready);
    // Wait = started_at - max(enqueued_at, run_after): enqueued 08:00 for 09:00,
    // claimed 09:00:01.5; the others from enqueued_at.
    const Message delayed = row(*q, kDelayedDone);
    QCOMPARE(delayed.state, State::Done);
    QCOMPARE(delayed.waitNs(), std::optional<TimeNs>(1'500'000'000));
    QCOMPARE(delayed.processingNs(), std::optional<TimeNs>(2'750'000'000));
    QCOMPARE(delayed.totalNs(), std::optional<TimeNs>(at(9, 0, 4, 250000) - at(8, 0, 0)));
    QCOMPARE(row(*q, kLiveRun).waitNs(), std::optional<TimeNs>(8'500'000'000));
    const QueueStats st = q->stats();
    QCOMPARE(st.wait.count, std::int64_t(10));
    QCOMPARE(st.processing.count, std::int64_t(4));
    QCOMPARE(st.total.count, std::int64_t(4));
    QCOMPARE(st.timeToFailure.count, std::int64_t(3));
    // Search looks into the traceback and the arguments.
    Filter s;
    s.search = "unknown report";
    QCOMPARE(q->count(s), std::int64_t(1));
    s.search = "\"warehouse\": \"munich\"";
    QCOMPARE(q->count(s), std::int64_t(1));
}

void TstDjangoTasks::recognisedBesideOtherDjangoTablesAndRefusedWhenOld() {
    QTemporaryDir dir;
    // The app's own database: Django's tables, and the task table as the
    // migrations left it (its DDL taken from the fixture).
    const std::string fixture = copyFixture(dir, kFixture);
    const auto ddl = rows(fixture, "SELECT sql FROM sqlite_master WHERE tbl_name = '" + kTable +
                                       "' AND sql IS NOT NULL ORDER BY type DESC");
    const std::string path = toStd(dir.filePath(QStringLiteral("app.sqlite3")));
    {
        Db db(path);
        db.exec("CREATE TABLE \"django_migrations\" (\"id\" integer NOT NULL PRIMARY KEY "
                "AUTOINCREMENT, \"app\" varchar(255) NOT NULL, \"name\" varchar(255) NOT NULL, "
                "\"applied\" datetime NOT NULL)");
        db.exec("CREATE TABLE \"django_content_type\" (\"id\" integer NOT NULL PRIMARY KEY "
                "AUTOINCREMENT, \"app_label\" varchar(100) NOT NULL, \"model\" varchar(100) NOT "
                "NULL)");
        db.exec("CREATE TABLE \"auth_user\" (\"id\" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "
                "\"password\" varchar(128) NOT NULL, \"last_login\" datetime NULL, "
                "\"is_superuser\" bool NOT NULL, \"username\" varchar(150) NOT NULL UNIQUE)");
        db.exec("CREATE TABLE \"django_session\" (\"session_key\" varchar(40) NOT NULL PRIMARY "
                "KEY, \"session_data\" text NOT NULL, \"expire_date\" datetime NOT NULL)");
        db.exec("CREATE TABLE \"shop_order\" (\"id\" integer NOT NULL PRIMARY KEY "
                "AUTOINCREMENT, \"total\" integer NOT NULL, \"status\" varchar(10) NOT NULL, "
                "\"created_at\" datetime NOT NULL)");
        for (const auto& r : ddl)
            db.exec(r.at(0));
        db.exec(insertTask("0000000000000000000000000000000a", "READY", "9999-01-01 00:00:00"));
    }
    {
        auto q = openAtFactsNow(path);
        QCOMPARE(std::string(formatId(q->info().format)), std::string("django-tasks-db"));
        QCOMPARE(q->info().table, kTable);
        QVERIFY(!q->readOnly());
        QCOMPARE(q->counts().ready, std::int64_t(1));
        QCOMPARE(q->queueNames(), std::vector<std::string>{"odd"});
    }
    // A db_table of the app's choosing, with a column of its own.
    {
        Db db(path);
        db.exec("ALTER TABLE " + kTable + " RENAME TO shop_tasks");
        db.exec("ALTER TABLE shop_tasks ADD COLUMN tenant varchar(20) NULL");
    }
    {
        auto q = openAtFactsNow(path);
        QCOMPARE(std::string(formatId(q->info().format)), std::string("django-tasks-db"));
        QCOMPARE(q->info().table, std::string("shop_tasks"));
        QCOMPARE(row(*q, "0000000000000000000000000000000a").jobName.value_or(""),
                 std::string("shop.tasks.odd"));
    }
    // Migrated only to 0015 (no worker_ids): said so, never guessed at.
    checkDamagedSaysWhatIsMissing(kFixture, {"ALTER TABLE " + kTable + " DROP COLUMN worker_ids"},
                                  "worker_ids");
    checkTwoFormatsInOneFileNamed(kFixture, "django-tasks-db");
}

void TstDjangoTasks::errorsGroupedByExceptionClass() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    const auto groups = groupFailures(*q);
    QCOMPARE(groups.size(), std::size_t(2));
    QCOMPARE(groups[0].error, std::string("smtplib.SMTPServerDisconnected"));
    QCOMPARE(groups[0].count, std::int64_t(2));
    QCOMPARE(groups[0].queues, std::vector<std::string>{"emails"});
    QCOMPARE(groups[0].messageIds, (std::vector<std::string>{kOldFailed, kFailedSmtp}));
    QCOMPARE(groups[0].lastFailedAt, std::optional<TimeNs>(at(10, 5, 31, 4000)));
    QCOMPARE(groups[1].error, std::string("builtins.ValueError"));
    QCOMPARE(groups[1].queues, std::vector<std::string>{"reports"});
    QVERIFY(groups[1].sample.find("ValueError: unknown report: 'monthly-churn'") !=
            std::string::npos);
}

void TstDjangoTasks::retryFailedAndUndo() {
    QTemporaryDir dir;
    const std::string path = writableCopy(dir);
    const auto before = snapshot(path);
    auto q = openAtFactsNow(path);
    const auto r = q->apply(Action::Retry, {targetOf(*q, kFailedSmtp)}, {});
    QCOMPARE(r.applied.size(), std::size_t(1));
    // As the app's enqueue writes a task: READY, enqueued now, no run_after,
    // no result; worker_ids keeps the claim of the failed run.
    QCOMPARE(rows(path, "SELECT status, enqueued_at, started_at, finished_at, run_after, "
                        "return_value, exception_class_path, traceback, worker_ids FROM " +
                            kTable + " WHERE id = '" + kFailedSmtp + "'")
                 .front(),
             (std::vector<std::string>{"READY", "2026-11-30 12:00:00", "NULL", "NULL",
                                       "9999-01-01 00:00:00", "NULL", "", "",
                                       "[\"bmnneWeXjj4mmClgdocMktxtwcnid0gb\"]"}));
    QCOMPARE(row(*q, kFailedSmtp).state, State::Ready);
    QCOMPARE(q->counts().failed, std::int64_t(2));
    // Not a failed task: refused, nothing written.
    checkRefused(*q, Action::Retry, {kReady, kLiveRun, kOldDone, kAtSix}, SkipKind::NotApplicable);
    const auto u = q->undo(Action::Retry, r.applied);
    QCOMPARE(u.applied.size(), std::size_t(1));
    QVERIFY(snapshot(path) == before);
}

void TstDjangoTasks::operatorRetriesAndUndoesFromTheAuditRecord() {
    QTemporaryDir dir;
    const std::string path = writableCopy(dir);
    const auto before = snapshot(path);
    auto q = openAtFactsNow(path);
    checkOperatorRetriesFailedAndUndoes(*q, dir, "test", 3);
    QVERIFY(snapshot(path) == before);
}

void TstDjangoTasks::staleTokensRefused() {
    QTemporaryDir dir;
    const std::string path = writableCopy(dir);
    auto q = openAtFactsNow(path);
    const Target ready = targetOf(*q, kReady);
    const Target failed = targetOf(*q, kFailedSmtp);
    const Target done = targetOf(*q, kOldDone);
    {
        // Meanwhile: a worker claims the READY task, the app re-runs the
        // failed one by hand, and a finished task is saved again.
        Db db(path);
        db.exec("UPDATE " + kTable +
                " SET status = 'RUNNING', started_at = '2026-11-30 "
                "11:59:59.9', worker_ids = '[\"w\"]' WHERE id = '" +
                kReady + "'");
        db.exec("UPDATE " + kTable + " SET started_at = '2026-11-30 11:59:00' WHERE id = '" +
                kFailedSmtp + "'");
        db.exec("UPDATE " + kTable + " SET finished_at = '2026-11-10 08:00:02' WHERE id = '" +
                kOldDone + "'");
    }
    const auto snap = snapshot(path);
    for (const auto& [a, t] : {std::pair{Action::Delete, ready}, std::pair{Action::Retry, failed},
                               std::pair{Action::Prune, done}}) {
        const auto r = q->apply(a, {t}, {});
        QVERIFY(r.applied.empty());
        QCOMPARE(r.skipped.size(), std::size_t(1));
        QCOMPARE(r.skipped.front().kind, SkipKind::Changed);
    }
    QVERIFY(snapshot(path) == snap);
    // Undo refuses a row that moved on since the action.
    auto q2 = openAtFactsNow(path);
    const auto r = q2->apply(Action::Retry, {targetOf(*q2, kFailedValue)}, {});
    QCOMPARE(r.applied.size(), std::size_t(1));
    {
        Db db(path); // a worker claims the retried task
        db.exec("UPDATE " + kTable +
                " SET status = 'RUNNING', started_at = '2026-11-30 "
                "12:00:01', worker_ids = '[\"a\", \"b\"]' WHERE id = '" +
                kFailedValue + "'");
    }
    const auto u = q2->undo(Action::Retry, r.applied);
    QVERIFY(u.applied.empty());
    QCOMPARE(u.skipped.size(), std::size_t(1));
    QCOMPARE(one(path, "SELECT status FROM " + kTable + " WHERE id = '" + kFailedValue + "'"),
             std::string("RUNNING"));
}

void TstDjangoTasks::deleteAndPruneAndUndo() {
    QTemporaryDir dir;
    const std::string path = writableCopy(dir);
    const auto before = snapshot(path);
    auto q = openAtFactsNow(path);
    // Delete: any task but a RUNNING one, stuck or not (its worker would
    // fail saving the result).
    checkRefused(*q, Action::Delete, {kLiveRun, kDeadRun}, SkipKind::NotApplicable);
    const auto d =
        q->apply(Action::Delete,
                 {targetOf(*q, kReady), targetOf(*q, kOldFailed), targetOf(*q, kDelayedDone)}, {});
    QCOMPARE(d.applied.size(), std::size_t(3));
    QCOMPARE(one(path, "SELECT count(*) FROM " + kTable), std::string("13"));
    QCOMPARE(q->undo(Action::Delete, d.applied).applied.size(), std::size_t(3));
    QVERIFY(snapshot(path) == before);
    // Prune: as prune_db_task_results, finished 14 days ago (one SUCCESSFUL,
    // one FAILED); --older-than picks its own age.
    Operator op(*q, "test", AuditLog(toStd(dir.filePath(QStringLiteral("audit")))));
    QCOMPARE(op.planPrune(false, std::nullopt, kFactsNow).targets.size(), std::size_t(1));
    QCOMPARE(op.planPrune(true, std::chrono::hours(1), kFactsNow).targets.size(), std::size_t(6));
    const Plan plan = op.planPrune(true, std::nullopt, kFactsNow);
    QCOMPARE(plan.targets.size(), std::size_t(2));
    QCOMPARE(op.run(plan).applied(), std::size_t(2));
    QCOMPARE(one(path, "SELECT count(*) FROM " + kTable), std::string("14"));
    QCOMPARE(one(path, "SELECT count(*) FROM " + kTable + " WHERE id IN ('" + kOldDone + "', '" +
                           kOldFailed + "')"),
             std::string("0"));
    checkRefused(*q, Action::Prune, {kReady, kLongRun, kAtSix}, SkipKind::NotApplicable);
    const auto record = op.lastUndoable();
    QVERIFY(record.has_value());
    QCOMPARE(op.undo(*record).applied(), std::size_t(2));
    QVERIFY(snapshot(path) == before);
    QCOMPARE(one(path, "PRAGMA integrity_check"), std::string("ok"));
}

void TstDjangoTasks::olderSchemaWithMetadataAndSucceeded() {
    // A file at migrations 0017-0018: a NOT NULL `metadata` column and the
    // status SUCCEEDED. Read as DONE; a deleted task comes back with it.
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    {
        Db db(path);
        db.exec("ALTER TABLE " + kTable +
                " ADD COLUMN \"metadata\" text NOT NULL DEFAULT '{}' "
                "CHECK ((JSON_VALID(\"metadata\") OR \"metadata\" IS NULL))");
        db.exec("UPDATE " + kTable +
                " SET status = 'SUCCEEDED', metadata = '{\"k\": 1}' WHERE "
                "status = 'SUCCESSFUL'");
    }
    const auto before = rows(path, "SELECT quote(id), quote(status), quote(metadata) FROM " +
                                       kTable + " ORDER BY id");
    auto q = openAtFactsNow(path);
    QCOMPARE(q->counts().done, std::int64_t(4));
    QCOMPARE(row(*q, kDelayedDone).state, State::Done);
    const auto d = q->apply(Action::Delete, {targetOf(*q, kDelayedDone)}, {});
    QCOMPARE(d.applied.size(), std::size_t(1));
    QCOMPARE(q->undo(Action::Delete, d.applied).applied.size(), std::size_t(1));
    QVERIFY(rows(path, "SELECT quote(id), quote(status), quote(metadata) FROM " + kTable +
                           " ORDER BY id") == before);
}

QTEST_GUILESS_MAIN(TstDjangoTasks)
#include "tst_djangotasks.moc"
