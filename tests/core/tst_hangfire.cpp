// SPDX-License-Identifier: MIT
// Hangfire.Storage.SQLite through the format seam: the fixture's facts
// (tests/data/formats/facts.json) with the partition summing to the jobs
// stored (deleted and awaiting as the format's own states), stuck as the
// library's invisibility timeout (a per-file setting), the fields read from
// the Job, State and JobQueue rows, recognition beside the app's own tables,
// errors grouped by exception type, and each action (requeue, delete,
// prune) with its StateName/State/JobQueue guard refusing a stale token,
// audited and undone back to the same rows.
#include "core/errors.h"
#include "core/formats/hangfire.h"
#include "core/sqlite.h"
#include "formatfacts.h"

#include <QObject>
#include <QTemporaryDir>

#include <vector>

using namespace lqtest;
using namespace lq::core;

namespace {

const QString kFixture = QStringLiteral("formats/hangfire-sqlite.sqlite3");

// The fixture's jobs (Job.Id; facts.json "samples").
const std::string kOldDone = "1";      // default, expired 11-29
const std::string kDone = "2";         // emails
const std::string kFailedHttp = "3";   // emails, after one retry
const std::string kFailedOp = "4";     // critical
const std::string kScheduled = "5";    // tomorrow 06:00
const std::string kRetrying = "6";     // critical, retry at 12:00:30
const std::string kReady = "7";        // default
const std::string kProcessing = "9";   // fetched 11:59:50
const std::string kDeadServer = "10";  // fetched 11:05 by the killed server
const std::string kFetchedOnly = "11"; // Enqueued, fetched 11:09:59
const std::string kLive15 = "12";      // fetched 11:45
const std::string kDeleted = "13";     // expires 12-01
const std::string kOldDeleted = "14";  // expired 11-28
const std::string kAwaiting = "15";
const std::string kRequeued = "16"; // Processing, requeued at shutdown

std::vector<std::vector<std::string>> rows(const std::string& path, const std::string& sql) {
    Db db(path, /*readOnly=*/true);
    return db.rows(sql);
}

std::string one(const std::string& path, const std::string& sql) {
    return rows(path, sql).at(0).at(0);
}

/// Every row of the tables the actions write, with types.
std::vector<std::vector<std::string>> snapshot(const std::string& path) {
    auto out = rows(path, "SELECT 'Job', quote(Id), quote(StateId), quote(StateName), "
                          "quote(InvocationData), quote(Arguments), quote(CreatedAt), "
                          "quote(ExpireAt) FROM Job ORDER BY Id");
    for (const char* sql :
         {"SELECT 'State', quote(Id), quote(JobId), quote(Name), quote(Reason), "
          "quote(CreatedAt), quote(Data), quote(ExpireAt) FROM State ORDER BY Id",
          "SELECT 'JobParameter', quote(Id), quote(JobId), quote(Name), quote(Value), "
          "quote(ExpireAt) FROM JobParameter ORDER BY Id",
          "SELECT 'JobQueue', quote(Id), quote(JobId), quote(Queue), quote(FetchedAt) FROM "
          "JobQueue ORDER BY Id",
          "SELECT 'Set', quote(Id), quote(Key), quote(Score), quote(Value), quote(ExpireAt) FROM "
          "\"Set\" ORDER BY Id",
          "SELECT 'Counter', count(*) FROM Counter"})
        for (auto& r : rows(path, sql))
            out.push_back(std::move(r));
    return out;
}

/// 2026-11-30 + h:m:s.us, UTC, in ns.
constexpr TimeNs at(int h, int m, int s, int us = 0) {
    return (1'796'040'000LL + (h - 12) * 3600LL + m * 60LL + s) * kNsPerSecond + us * 1000LL;
}

/// 2026-11-30 h:m:s UTC as .NET ticks.
std::string ticks(int h, int m, int s) {
    return std::to_string((at(h, m, s) / 100) + 621'355'968'000'000'000LL);
}

/// A job with StateName `state` (and a JobQueue row fetched at `fetched`
/// ticks when not empty) in queue 'odd'.
std::vector<std::string> insertJob(int id, const std::string& state, const std::string& fetched) {
    std::vector<std::string> out = {
        "INSERT INTO Job (Id, StateId, StateName, InvocationData, Arguments, CreatedAt, ExpireAt) "
        "VALUES (" +
        std::to_string(id) + ", 0, " + state +
        ", '{\"Type\":\"Odd.Job, Odd\",\"Method\":\"Run\",\"ParameterTypes\":\"[]\","
        "\"Arguments\":\"[]\",\"Queue\":\"odd\"}', '[]', " +
        ticks(10, 0, 0) + ", 0)"};
    if (!fetched.empty())
        out.push_back("INSERT INTO JobQueue (JobId, Queue, FetchedAt) VALUES (" +
                      std::to_string(id) + ", 'odd', " + fetched + ")");
    return out;
}

const std::vector<std::string> kExtras = {"deleted", "awaiting", "locked_expired"};

/// counts() as the dashboard's timing scan sees it: a timing row has no
/// room for the format's own exclusive states, so deleted and awaiting jobs
/// are UNKNOWN there (as Solid Queue's blocked ones are).
Counts asTimingScanCounts(Counts c) {
    c.unknown += c.extra["deleted"] + c.extra["awaiting"];
    return c;
}

} // namespace

class TstHangfire : public QObject {
    Q_OBJECT

private slots:
    void recognisedAndOpeningChangesNothing();
    void countsAndQueuesMatchTheFacts();
    void stuckIsTheInvisibilityTimeout();
    void countsEqualTheStateConditions();
    void fieldsFromTheRows();
    void recognisedBesideAppTablesAndRefusedWhenIncomplete();
    void errorsGroupedByExceptionType();
    void processesAreTheServers();
    void requeueAndUndo();
    void operatorRequeuesAndUndoesFromTheAuditRecord();
    void staleTokensRefused();
    void deleteAndUndo();
    void pruneAsTheExpirationManagerAndUndo();
};

void TstHangfire::recognisedAndOpeningChangesNothing() {
    checkOpeningChangesNothing(kFixture, "hangfire-sqlite", [](Queue& q) {
        QCOMPARE(q.info().table, std::string("Job"));
        QVERIFY(q.info().warnings.empty());
    });
    checkNamedAndOffersRowActions("hangfire-sqlite");
    const QueueFormat& f = *QueueFormat::byId("hangfire-sqlite");
    const FormatInfo info = infoOf("hangfire-sqlite");
    QVERIFY(f.keepsHistory());
    QVERIFY(f.namedQueues());
    QVERIFY(!f.ownStuckRule().empty());
    QCOMPARE(f.settings().size(), std::size_t(1));
    QCOMPARE(f.settings().front().key, std::string("invisibility_timeout"));
    QCOMPARE(f.settings().front().libraryDefault, std::int64_t(1800));
    for (Action a : {Action::Retry, Action::Delete, Action::Prune, Action::Vacuum})
        QVERIFY2(f.offers(a, info), actionName(a));
    for (Action a : {Action::MarkFailed, Action::Release, Action::RetryExpired, Action::Reschedule,
                     Action::Enqueue, Action::Upgrade})
        QVERIFY2(!f.offers(a, info), actionName(a));
    for (Filter::Metric m : {Filter::Metric::Wait, Filter::Metric::Processing,
                             Filter::Metric::Total, Filter::Metric::TimeToFailure})
        QVERIFY(f.storesMetric(m, info));
    QCOMPARE(f.pruneRules().size(), std::size_t(1));
    QVERIFY(f.pruneRules().front().expired);
    QVERIFY((f.pruneRules().front().states == std::vector<State>{State::Done}));
    QVERIFY((f.pruneRules().front().extraStates == std::vector<std::string>{"deleted"}));
    const auto names = partitionStates(f);
    QVERIFY(std::any_of(names.begin(), names.end(),
                        [](const PartitionState& p) { return p.name == "awaiting"; }));
}

void TstHangfire::countsAndQueuesMatchTheFacts() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    const QJsonObject f = factsOf(kFixture);
    checkCounts(*q, f);
    checkPerQueue(*q, f);
    checkSamples(*q, f);
    QCOMPARE(describeCounts(q->counts(), kExtras),
             std::string("ready 3, scheduled 2, locked 4, stuck 2, done 2, failed 2, unknown 0, "
                         "stored 16, deleted 2, awaiting 1, locked_expired 2"));
    QCOMPARE(q->queueNames(), (std::vector<std::string>{"critical", "default", "emails"}));
    QCOMPARE(row(*q, kRequeued).state, State::Ready); // Processing, its fetch given back
    QCOMPARE(row(*q, kRequeued).statusText, std::string("Processing"));
    QCOMPARE(row(*q, kFetchedOnly).state, State::Locked); // Enqueued, fetched
    QCOMPARE(row(*q, kAwaiting).extraState, std::string("awaiting"));
    // Never enqueued: the queue EnqueuedState will use.
    QCOMPARE(row(*q, kScheduled).queueName.value_or(""), std::string("default"));
}

void TstHangfire::stuckIsTheInvisibilityTimeout() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    {
        auto q = openAtFactsNow(path);
        // Fetched 11:05 and 11:09:59 (stale after 30 min), 11:45, 11:59:50.
        QCOMPARE(q->counts().stuck, std::int64_t(2));
        QCOMPARE(q->counts(1).stuck, std::int64_t(2)); // the operator's threshold is not used
        QCOMPARE(row(*q, kDeadServer).extraState, std::string("locked_expired"));
        QCOMPARE(row(*q, kFetchedOnly).extraState, std::string("locked_expired"));
        QVERIFY(row(*q, kLive15).extraState.empty());
        QCOMPARE(row(*q, kLive15).leaseExpiry, std::optional<TimeNs>(at(12, 15, 1)));
        QCOMPARE(q->listLocked(std::chrono::seconds(0)).size(), std::size_t(2));
        const TimingColumns tc = q->timing(Filter{});
        QCOMPARE(describeCounts(countsFrom(tc, q->now(), kDefaultStuckAfterNs), {}),
                 describeCounts(asTimingScanCounts(q->counts()), {}));
    }
    // InvisibilityTimeout = 10 min for this file: the 11:45 fetch is stale too.
    OpenOptions o;
    o.clock = fixedClock(kFactsNow);
    QVERIFY(o.settings.set(HangfireFormat::kInvisibilityTimeoutKey, 600));
    auto q = Queue::open(path, o);
    QCOMPARE(q->counts().stuck, std::int64_t(3));
    QCOMPARE(row(*q, kLive15).extraState, std::string("locked_expired"));
    QVERIFY(row(*q, kProcessing).extraState.empty());
}

void TstHangfire::countsEqualTheStateConditions() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    {
        // Edge rows: Enqueued and Processing without a JobQueue row
        // (UNKNOWN: no worker will take them), a job created but never given
        // a state (NULL StateName), a custom state name, a fetch exactly at
        // the timeout (not stale: older than it is), a FetchedAt that is no
        // time.
        Db db(path);
        for (const auto& v :
             {insertJob(101, "'Enqueued'", ""), insertJob(102, "'Processing'", ""),
              insertJob(103, "NULL", ""), insertJob(104, "'Archived'", ""),
              insertJob(105, "'Processing'", ticks(11, 30, 0)),
              insertJob(106, "'Processing'", "'soon'"), insertJob(107, "'Enqueued'", "0")})
            for (const auto& s : v)
                db.exec(s);
    }
    auto q = openAtFactsNow(path);
    QCOMPARE(describeCounts(q->counts("odd"), kExtras),
             std::string("ready 1, scheduled 0, locked 2, stuck 0, done 0, failed 0, unknown 4, "
                         "stored 7, deleted 0, awaiting 0, locked_expired 0"));
    QCOMPARE(row(*q, "103").state, State::Unknown);
    const TimingColumns tc = q->timing(Filter{});
    QCOMPARE(describeCounts(countsFrom(tc, q->now(), kDefaultStuckAfterNs), {}),
             describeCounts(asTimingScanCounts(q->counts()), {}));
    checkCountsByCondition(path, kExtras);
}

void TstHangfire::fieldsFromTheRows() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    const Message failed = row(*q, kFailedHttp);
    QCOMPARE(failed.state, State::Failed);
    QCOMPARE(failed.statusText, std::string("Failed"));
    QCOMPARE(failed.jobName.value_or(""), std::string("Mailer.SendReceipt"));
    QCOMPARE(failed.queueName.value_or(""), std::string("emails"));
    QVERIFY(failed.lastError.value_or("").rfind(
                "System.Net.Http.HttpRequestException: Response status code does not indicate "
                "success: 503 (Service Unavailable).\n   at ",
                0) == 0);
    QCOMPARE(errorClassOf(*failed.lastError), std::string("System.Net.Http.HttpRequestException"));
    QCOMPARE(failed.data, std::string("[\"9107\"]"));
    QCOMPARE(failed.attempts, std::int64_t(1)); // RetryCount
    QCOMPARE(failed.inTime, std::optional<TimeNs>(at(10, 5, 0)));
    QCOMPARE(failed.waitFrom, std::optional<TimeNs>(at(10, 6, 2))); // the second enqueue
    QCOMPARE(failed.lockTime, std::optional<TimeNs>(at(10, 6, 3, 10000)));
    QCOMPARE(failed.doneTime, std::optional<TimeNs>(at(10, 6, 33, 250000)));
    QCOMPARE(failed.tokenText.value_or(""), std::string("no JobQueue row"));
    // A scheduled retry: EnqueueAt of its Scheduled state.
    const Message retrying = row(*q, kRetrying);
    QCOMPARE(retrying.state, State::Scheduled);
    QCOMPARE(retrying.scheduledAt, std::optional<TimeNs>(at(12, 0, 30)));
    QCOMPARE(retrying.queueName.value_or(""), std::string("critical"));
    QVERIFY(!retrying.lastError.has_value());
    // Fetched: the JobQueue row, and when.
    const Message live = row(*q, kProcessing);
    QCOMPARE(live.state, State::Locked);
    QCOMPARE(live.lockTime, std::optional<TimeNs>(at(11, 59, 50)));
    QCOMPARE(live.waitNs(), std::optional<TimeNs>(at(11, 59, 50) - at(11, 59, 49, 1000)));
    QVERIFY(contains(live.tokenText.value_or(""), "fetched at 2026-11-30T11:59:50"));
    QCOMPARE(row(*q, kReady).tokenText.value_or(""), std::string("JobQueue row 7, not fetched"));
    // Succeeded: processing and total from its states.
    const Message done = row(*q, kOldDone);
    QCOMPARE(done.state, State::Done);
    QCOMPARE(done.processingNs(), std::optional<TimeNs>(2'500'000'000));
    QCOMPARE(done.waitNs(), std::optional<TimeNs>(1'015'000'000)); // fetch 09:00:01.02 state
    const QueueStats st = q->stats();
    QCOMPARE(st.processing.count, std::int64_t(2));
    QCOMPARE(st.total.count, std::int64_t(2));
    QCOMPARE(st.timeToFailure.count, std::int64_t(2));
    Filter s;
    s.search = "monthly-churn";
    QCOMPARE(q->count(s), std::int64_t(1));
    s.search = "Unknown report";
    QCOMPARE(q->count(s), std::int64_t(1));
}

void TstHangfire::recognisedBesideAppTablesAndRefusedWhenIncomplete() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    {
        Db db(path);
        db.exec("CREATE TABLE \"Orders\"(\n\"Id\" integer primary key autoincrement not null ,\n"
                "\"Total\" float )");
        db.exec("CREATE TABLE \"Customer\"(\n\"Id\" integer primary key not null ,\n\"Name\" "
                "varchar )");
    }
    {
        auto q = openAtFactsNow(path);
        QCOMPARE(std::string(formatId(q->info().format)), std::string("hangfire-sqlite"));
        QVERIFY(!q->readOnly());
        QCOMPARE(q->counts().stored, std::int64_t(16));
    }
    checkDamagedSaysWhatIsMissing(
        kFixture,
        {"DROP INDEX IX_JobQueue_FetchedAt", "ALTER TABLE JobQueue DROP COLUMN FetchedAt"},
        "JobQueue.FetchedAt");
    checkDamagedSaysWhatIsMissing(kFixture, {"DROP TABLE State"}, "table State");
    checkTwoFormatsInOneFileNamed(kFixture, "hangfire-sqlite");
}

void TstHangfire::errorsGroupedByExceptionType() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    const auto groups = groupFailures(*q);
    QCOMPARE(groups.size(), std::size_t(2));
    QCOMPARE(groups[0].error, std::string("System.InvalidOperationException"));
    QCOMPARE(groups[0].queues, std::vector<std::string>{"critical"});
    QCOMPARE(groups[1].error, std::string("System.Net.Http.HttpRequestException"));
    QCOMPARE(groups[1].messageIds, std::vector<std::string>{kFailedHttp});
    QCOMPARE(groups[1].lastFailedAt, std::optional<TimeNs>(at(10, 6, 33, 250000)));
}

void TstHangfire::processesAreTheServers() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    const ProcessList p = q->processes();
    QCOMPARE(p.processes.size(), std::size_t(2));
    QCOMPARE(p.processes[0].host, std::string("shop-web-1"));
    QCOMPARE(p.processes[0].pid, std::int64_t(4711));
    QVERIFY(p.processes[0].alive);
    QCOMPARE(p.processes[0].claimed, std::int64_t(2)); // jobs 9 and 12
    QCOMPARE(p.processes[1].host, std::string("shop-worker-2"));
    QVERIFY(!p.processes[1].alive);
    QCOMPARE(p.processes[1].claimed, std::int64_t(1)); // job 10
}

void TstHangfire::requeueAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    const auto before = snapshot(path);
    auto q = openAtFactsNow(path);
    const auto r = q->apply(Action::Retry, {targetOf(*q, kFailedOp), targetOf(*q, kDeleted)}, {});
    QCOMPARE(r.applied.size(), std::size_t(2));
    // The dashboard's Requeue: an Enqueued state, Job.ExpireAt 0, a JobQueue row.
    QCOMPARE(rows(path, "SELECT StateName, ExpireAt FROM Job WHERE Id = 4").front(),
             (std::vector<std::string>{"Enqueued", "0"}));
    QCOMPARE(
        one(path, "SELECT Data FROM State WHERE JobId = 4 ORDER BY Id DESC LIMIT 1"),
        std::string("{\"EnqueuedAt\":\"2026-11-30T12:00:00.0000000Z\",\"Queue\":\"critical\"}"));
    QCOMPARE(one(path, "SELECT CreatedAt FROM State WHERE JobId = 4 ORDER BY Id DESC LIMIT 1"),
             ticks(12, 0, 0));
    QCOMPARE(rows(path, "SELECT Queue, FetchedAt FROM JobQueue WHERE JobId = 13").front(),
             (std::vector<std::string>{"default", "0"}));
    QCOMPARE(row(*q, kFailedOp).state, State::Ready);
    QCOMPARE(row(*q, kDeleted).state, State::Ready);
    checkRefused(*q, Action::Retry, {kReady, kProcessing, kOldDone, kScheduled, kAwaiting},
                 SkipKind::NotApplicable);
    const auto u = q->undo(Action::Retry, r.applied);
    QCOMPARE(u.applied.size(), std::size_t(2));
    QVERIFY(snapshot(path) == before);
}

void TstHangfire::operatorRequeuesAndUndoesFromTheAuditRecord() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    const auto before = snapshot(path);
    auto q = openAtFactsNow(path);
    checkOperatorRetriesFailedAndUndoes(*q, dir, "test", 2);
    QVERIFY(snapshot(path) == before);
}

void TstHangfire::staleTokensRefused() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const Target ready = targetOf(*q, kReady);
    const Target failed = targetOf(*q, kFailedOp);
    const Target done = targetOf(*q, kOldDone);
    {
        // Meanwhile: a worker fetches the ready job, the app requeues the
        // failed one, and the old succeeded job gets a history row.
        Db db(path);
        db.exec("UPDATE JobQueue SET FetchedAt = " + ticks(12, 0, 0) + " WHERE JobId = 7");
        for (const auto& s : insertJob(200, "'Enqueued'", "0"))
            db.exec(s);
        db.exec("INSERT INTO State (JobId, Name, Reason, CreatedAt, Data, ExpireAt) VALUES (4, "
                "'Failed', NULL, 1, '{}', 0)");
        db.exec("INSERT INTO State (JobId, Name, Reason, CreatedAt, Data, ExpireAt) VALUES (1, "
                "'Succeeded', NULL, 1, '{}', 0)");
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
    // Undo refuses a job that moved on since the action.
    auto q2 = openAtFactsNow(path);
    const auto r = q2->apply(Action::Retry, {targetOf(*q2, kFailedHttp)}, {});
    QCOMPARE(r.applied.size(), std::size_t(1));
    {
        Db db(path); // a worker fetches the requeued job
        db.exec("UPDATE JobQueue SET FetchedAt = " + ticks(12, 0, 1) + " WHERE JobId = 3");
    }
    const auto u = q2->undo(Action::Retry, r.applied);
    QVERIFY(u.applied.empty());
    QCOMPARE(u.skipped.size(), std::size_t(1));
    QCOMPARE(one(path, "SELECT StateName FROM Job WHERE Id = 3"), std::string("Enqueued"));
}

void TstHangfire::deleteAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    const auto before = snapshot(path);
    auto q = openAtFactsNow(path);
    // A worker holds jobs 9 and 12 (fetched within 30 min): refused.
    checkRefused(*q, Action::Delete, {kProcessing, kLive15}, SkipKind::NotApplicable);
    const auto d =
        q->apply(Action::Delete,
                 {targetOf(*q, kReady), targetOf(*q, kScheduled), targetOf(*q, kAwaiting),
                  targetOf(*q, kDeadServer), targetOf(*q, kDeleted)},
                 {});
    QCOMPARE(d.applied.size(), std::size_t(5));
    // Every row of each job: the Job, its states, parameters, queue row and
    // its 'schedule' / 'awaiting' entry.
    for (const char* sql :
         {"SELECT count(*) FROM Job WHERE Id IN (7, 5, 15, 10, 13)",
          "SELECT count(*) FROM State WHERE JobId IN (7, 5, 15, 10, 13)",
          "SELECT count(*) FROM JobParameter WHERE JobId IN (7, 5, 15, 10, 13)",
          "SELECT count(*) FROM JobQueue WHERE JobId IN (7, 5, 15, 10, 13)",
          "SELECT count(*) FROM \"Set\" WHERE Key IN ('schedule', 'awaiting') AND Value IN "
          "('5', '15')"})
        QCOMPARE(one(path, sql), std::string("0"));
    QCOMPARE(q->counts().stored, std::int64_t(11));
    const auto ud = q->undo(Action::Delete, d.applied);
    QCOMPARE(ud.applied.size(), std::size_t(5));
    QVERIFY(snapshot(path) == before);
    QCOMPARE(one(path, "PRAGMA integrity_check"), std::string("ok"));
}

void TstHangfire::pruneAsTheExpirationManagerAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    const auto before = snapshot(path);
    auto q = openAtFactsNow(path);
    Operator op(*q, "test", AuditLog(toStd(dir.filePath(QStringLiteral("audit")))));
    // Expired: job 1 (Succeeded 11-28) and job 14 (Deleted 11-27).
    const Plan plan = op.planPrune(true, std::nullopt, kFactsNow);
    QCOMPARE(plan.targets.size(), std::size_t(2));
    QCOMPARE(op.run(plan).applied(), std::size_t(2));
    QCOMPARE(one(path, "SELECT count(*) FROM Job WHERE Id IN (1, 14)"), std::string("0"));
    QCOMPARE(one(path, "SELECT count(*) FROM State WHERE JobId IN (1, 14)"), std::string("0"));
    QCOMPARE(one(path, "SELECT count(*) FROM JobParameter WHERE JobId IN (1, 14)"),
             std::string("0"));
    QCOMPARE(one(path, "SELECT count(*) FROM Job"), std::string("14"));
    checkRefused(*q, Action::Prune, {kReady, kScheduled}, SkipKind::NotApplicable);
    const auto record = op.lastUndoable();
    QVERIFY(record.has_value());
    QCOMPARE(op.undo(*record).applied(), std::size_t(2));
    QVERIFY(snapshot(path) == before);
    QCOMPARE(one(path, "PRAGMA integrity_check"), std::string("ok"));
}

QTEST_GUILESS_MAIN(TstHangfire)
#include "tst_hangfire.moc"
