// SPDX-License-Identifier: MIT
// Solid Queue through the format seam: the facts of the fixture
// (tests/data/formats/facts.json, computed with the sqlite3 shell), the
// operator actions of docs/FORMATS.md#solid-queue (Mission Control's retry, discard and
// dispatch, graceful release of an abandoned claim, prune of finished jobs)
// with their undo, the execution-row compare-and-swap, and files that are
// not (or not only) Solid Queue.
#include "core/formats/solidqueue.h"
#include "core/timefmt.h"
#include "core/timingcache.h"
#include "formatfacts.h"

#include <QObject>
#include <QTemporaryDir>

using namespace lqtest;
using namespace lq::core;

namespace {

const QString kFixture = QStringLiteral("formats/solid-queue.sqlite3");
const std::string kNowText = "2026-11-30 12:00:00"; // facts.json "now_as_stored"

std::vector<std::vector<std::string>> rows(const std::string& path, const std::string& sql) {
    Db db(path, /*readOnly=*/true);
    return db.rows(sql);
}

/// Every row of every Solid Queue table, as the sqlite3 shell shows them.
std::vector<std::vector<std::string>> everything(const std::string& path) {
    std::vector<std::vector<std::string>> out;
    for (const char* t : {"jobs", "ready_executions", "claimed_executions", "failed_executions",
                          "scheduled_executions", "blocked_executions", "recurring_executions",
                          "processes", "semaphores", "pauses"}) {
        auto r =
            rows(path, std::string("SELECT '") + t + "', * FROM solid_queue_" + t + " ORDER BY id");
        out.insert(out.end(), r.begin(), r.end());
    }
    return out;
}

/// The execution table holding job `id` ("" when none).
std::string whereIs(const std::string& path, const std::string& id) {
    std::string found;
    for (const char* t : {"ready", "claimed", "failed", "scheduled", "blocked"})
        if (!rows(path, std::string("SELECT id FROM solid_queue_") + t +
                            "_executions WHERE job_id = " + id)
                 .empty())
            found += (found.empty() ? "" : "+") + std::string(t);
    return found;
}

void checkIntegrity(const std::string& path) {
    QCOMPARE(rows(path, "PRAGMA integrity_check").front().front(), std::string("ok"));
    QVERIFY(rows(path, "PRAGMA foreign_key_check").empty());
}

} // namespace

class TstSolidQueue : public QObject {
    Q_OBJECT

private slots:
    void recognisedAndOpeningChangesNothing();
    void countsAtNowMatchTheFacts();
    void queueNamesAndPerQueueCounts();
    void samplesAndOneJobsFields();
    void timesReadAndWrittenAsRailsDoes();
    void fractionsPastHalfAMillisecondKeepTheirSecond();
    void listingFilteringSearch();
    void scansOfFinishedJobsAgreeWithTheSource();
    void capabilities();
    void releaseAbandonedClaimsAndUndo();
    void liveClaimsRefused();
    void retryFailedAsMissionControlAndUndo();
    void dispatchScheduledAndBlockedAndUndo();
    void discardAndPruneWithUndo();
    void staleExecutionRefused();
    void operatorAuditsAnActionAndUndoesFromTheRecord();
    void twoFormatsInOneFileNamed();
    void incompleteSchemaSaysWhatIsMissing();
    void inconsistentRowsAreUnknownAndLeftAlone();
    void countsTableByTableEqualTheJobByJobFigures_data();
    void countsTableByTableEqualTheJobByJobFigures();
    void aSchemaChangedWhileOpenIsCheckedAgain();
    void timingReadsAgainOnlyTheRangesThatChanged();
    void keptTimingHoldsUntilARowTurns();
};

void TstSolidQueue::recognisedAndOpeningChangesNothing() {
    checkOpeningChangesNothing(kFixture, "solid-queue", [](Queue& q) {
        QCOMPARE(q.info().table, std::string("solid_queue_jobs"));
        QCOMPARE(q.info().queueTables.size(), std::size_t(1));
        // The app's own `users` table shares the file.
        QVERIFY(!rows(q.path(), "SELECT name FROM sqlite_master WHERE name = 'users'").empty());
    });
}

void TstSolidQueue::countsAtNowMatchTheFacts() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    // Every job exactly once: canonical states plus blocked; an abandoned
    // claim (stale heartbeat, or no process row) is stuck.
    checkCounts(*q, factsOf(kFixture));
    const Counts c = q->counts();
    QCOMPARE(c.ready + c.scheduled + c.locked + c.done + c.failed + c.extra.at("blocked"),
             c.stored);
    // A minute later job 21 is still scheduled; 31 minutes later it is due.
    {
        OpenOptions o;
        o.clock = fixedClock(kFactsNow + 31LL * 60 * kNsPerSecond);
        auto later = Queue::open(q->path(), o);
        QCOMPARE(later->counts().scheduled, c.scheduled - 1);
        QCOMPARE(later->counts().ready, c.ready + 1);
    }
}

void TstSolidQueue::queueNamesAndPerQueueCounts() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    checkPerQueue(*q, factsOf(kFixture));
}

void TstSolidQueue::samplesAndOneJobsFields() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    const QJsonObject f = factsOf(kFixture);
    checkSamples(*q, f); // a blocked job: its extra state
    for (const QJsonValue v : f.value(QStringLiteral("samples")).toArray()) {
        const QJsonObject s = v.toObject();
        const Message m = row(*q, std::to_string(s.value(QStringLiteral("id")).toInteger()));
        const QJsonObject token = s.value(QStringLiteral("token")).toObject();
        if (!token.isEmpty())
            QCOMPARE(m.tokenText.value_or(""),
                     "claimed:" +
                         std::to_string(
                             token.value(QStringLiteral("claimed_execution_id")).toInteger()) +
                         ":" +
                         std::to_string(token.value(QStringLiteral("process_id")).toInteger()));
    }
    // Job 7: failed, every field against the raw columns.
    const Message m = row(*q, "7");
    const auto job = rows(q->path(), "SELECT class_name, queue_name, priority, arguments, "
                                     "created_at FROM solid_queue_jobs WHERE id = 7")
                         .front();
    const auto failed =
        rows(q->path(), "SELECT id, error, created_at FROM solid_queue_failed_executions WHERE "
                        "job_id = 7")
            .front();
    QCOMPARE(m.state, State::Failed);
    QCOMPARE(m.jobName.value_or(""), job.at(0));
    QCOMPARE(m.queueName.value_or(""), job.at(1));
    QCOMPARE(m.priority.value_or(-1), std::stoll(job.at(2)));
    QCOMPARE(m.data, job.at(3));
    QCOMPARE(railsTime(*m.inTime), job.at(4));
    QCOMPARE(m.lastError.value_or(""), failed.at(1));
    QVERIFY(contains(*m.lastError, "\"backtrace\""));
    QCOMPARE(railsTime(*m.doneTime), failed.at(2)); // time of failure
    QCOMPARE(m.tokenText.value_or(""), "failed:" + failed.at(0));
    // Job 12: claimed by worker 5, whose heartbeat is 11 minutes old.
    const Message c = row(*q, "12");
    QCOMPARE(c.state, State::Locked);
    QCOMPARE(c.extraState, std::string("locked_expired"));
    QCOMPARE(railsTime(*c.lockTime), std::string("2026-11-30 11:49:00.005345"));
    QCOMPARE(railsTime(*c.leaseExpiry), std::string("2026-11-30 11:54:00.007289"));
    QVERIFY(c.isStuck(kFactsNow, 0) || c.extraState == "locked_expired");
    // Job 13: its process row is gone. Job 14: a live worker.
    QCOMPARE(row(*q, "13").extraState, std::string("locked_expired"));
    QVERIFY(!row(*q, "13").leaseExpiry);
    QCOMPARE(row(*q, "14").extraState, std::string());
    // Job 22: a scheduled execution already due is READY.
    const Message due = row(*q, "22");
    QCOMPARE(due.state, State::Ready);
    QCOMPARE(due.statusText, std::string("scheduled"));
    QCOMPARE(railsTime(*due.scheduledAt), std::string("2026-11-30 11:59:20.023199"));
    // Job 6: a retry_on retry (executions 1).
    QCOMPARE(row(*q, "6").attempts, std::int64_t(1));
}

void TstSolidQueue::timesReadAndWrittenAsRailsDoes() {
    QCOMPARE(railsTime(kFactsNow), kNowText); // no fraction when µs = 0
    QCOMPARE(railsTime(kFactsNow + 122'876'000), kNowText + ".122876");
    QCOMPARE(railsTime(kFactsNow + 5'000), kNowText + ".000005");
    QCOMPARE(railsTime(kFactsNow + 999), kNowText); // below a µs: not stored by Rails
    // Every stored time reads back to the same text.
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    const auto raw = rows(q->path(), "SELECT id, created_at FROM solid_queue_jobs ORDER BY id");
    for (const auto& r : raw)
        QCOMPARE(railsTime(*row(*q, r.at(0)).inTime), r.at(1));
}

// SQLite's date functions round the seconds to ms: whole seconds from
// them plus the stored fraction made '...:00.999700' a second late. The
// times compared in SQL (sort, metric filter) and the ones read are one
// parse of the stored text.
void TstSolidQueue::fractionsPastHalfAMillisecondKeepTheirSecond() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    {
        Db db(path);
        db.exec("UPDATE solid_queue_claimed_executions SET created_at = '2026-11-30 "
                "11:49:00.999700' WHERE job_id = 12");
        db.exec("UPDATE solid_queue_claimed_executions SET created_at = '2026-11-30 "
                "11:49:01.500000' WHERE job_id = 13");
    }
    auto q = openAtFactsNow(path);
    const Message m12 = row(*q, "12");
    QCOMPARE(m12.lockTime, parseTextTime("2026-11-30 11:49:00.999700"));
    QCOMPARE(m12.waitNs(), std::optional<TimeNs>(997'239'000)); // scheduled at 00.002461
    const auto byLock = q->orderedRowids({}, {SortKey::LockTime, false});
    const auto at = [&](std::int64_t id) {
        return std::find(byLock.begin(), byLock.end(), id) - byLock.begin();
    };
    QVERIFY(at(12) < at(13));
    // The wait metric's range, in SQL, finds the job by the wait it shows.
    Filter f;
    f.metric = Filter::Metric::Wait;
    f.metricLo = 997'239'000;
    f.metricHi = 997'240'000;
    const auto in = q->list(f, {}, 0, -1);
    QCOMPARE(in.size(), std::size_t(1));
    QCOMPARE(in.front().messageId, std::string("12"));
}

// A whole scan reads finished jobs from the jobs table alone: the same
// rows and order as the joined source, on the fixture and on a damaged copy
// (a finished job with leftover execution rows, executions without keys
// and a duplicate).
void TstSolidQueue::scansOfFinishedJobsAgreeWithTheSource() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    std::vector<Filter> filters(7);
    filters[1].states = {State::Ready, State::Locked};
    filters[2].states = {State::Done};
    filters[3].stuckOnly = true;
    filters[4].extraStates = {"blocked"};
    filters[5].metric = Filter::Metric::Total;
    filters[5].metricLo = 0;
    filters[5].metricHi = std::int64_t{1} << 62;
    filters[6].queue = "default";
    filters[6].states = {State::Done, State::Failed, State::Scheduled};
    {
        auto q = openAtFactsNow(path);
        QVERIFY(q->count(filters[2]) > 0 && q->count(filters[6]) > 0);
        checkScansAgreeWithTheSource(*q, filters);
    }
    const std::int64_t done = openAtFactsNow(path)->count(filters[2]);
    {
        Db db(path);
        const std::string finished =
            "(SELECT min(id) FROM solid_queue_jobs WHERE finished_at IS NOT NULL)";
        db.exec("INSERT INTO solid_queue_claimed_executions (job_id, process_id, created_at) "
                "VALUES (" +
                finished + ", 2, '2026-11-30 11:00:00')");
        for (const char* t : {"ready_executions", "claimed_executions"}) {
            const std::string n = std::string("solid_queue_") + t;
            db.exec("CREATE TABLE lq_copy AS SELECT * FROM " + n);
            db.exec("DROP TABLE " + n);
            db.exec("ALTER TABLE lq_copy RENAME TO " + n);
        }
        db.exec("INSERT INTO solid_queue_ready_executions (job_id, queue_name, priority, "
                "created_at) VALUES (" +
                finished + ", 'default', 0, '2026-11-30 11:00:00')");
        db.exec("INSERT INTO solid_queue_ready_executions (job_id, queue_name, priority, "
                "created_at) SELECT job_id, queue_name, priority, created_at FROM "
                "solid_queue_ready_executions LIMIT 1");
    }
    auto q = openAtFactsNow(path);
    QCOMPARE(q->count(filters[2]), done); // the finished job is finished, once
    checkScansAgreeWithTheSource(*q, filters);
}

void TstSolidQueue::listingFilteringSearch() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    const auto all = q->list({}, {}, 0, -1);
    QCOMPARE(all.size(), std::size_t(22));
    Filter s;
    s.search = "GenerateReportJob"; // a class name
    QCOMPARE(q->count(s), std::int64_t(4));
    s.search = "gid://shop/Warehouse/9"; // in the arguments
    QCOMPARE(q->count(s), std::int64_t(1));
    s.search = "4c9f5e6d-c1b9-4ecf-8e9d-2c57c0983b6d"; // an active_job_id
    QCOMPARE(q->list(s, {}, 0, -1).front().messageId, std::string("7"));
    const auto byIn = q->list({}, {SortKey::InTime, true}, 0, -1);
    QVERIFY(std::is_sorted(byIn.begin(), byIn.end(), [](const Message& a, const Message& b) {
        return *a.inTime > *b.inTime;
    }));
    QCOMPARE(q->orderedRowids({}, {SortKey::Status, false}).size(), std::size_t(22));
    Filter old;
    old.olderThan = std::chrono::hours(24);
    QCOMPARE(q->count(old), std::int64_t(4)); // jobs 1-4, created on the 29th
    Filter none;
    none.queue = "no_such_queue";
    QCOMPARE(q->count(none), std::int64_t(0));
    // Latency: wait for running jobs, total for finished ones; processing
    // is not stored.
    const QueueStats st = q->stats();
    QCOMPARE(st.total.count, std::int64_t(6));
    QCOMPARE(st.wait.count, std::int64_t(5));
    QCOMPARE(st.processing.count, std::int64_t(0));
}

void TstSolidQueue::capabilities() {
    checkNamedAndOffersRowActions("solid-queue");
    const QueueFormat& f = *lq::core::QueueFormat::byId("solid-queue");
    const FormatInfo info = infoOf("solid-queue");
    QVERIFY(f.offers(Action::Prune, info));
    for (Action a : {Action::MarkFailed, Action::RetryExpired, Action::Reschedule, Action::Enqueue,
                     Action::Upgrade})
        QVERIFY2(f.whyNot(a, info).size() > 20, actionName(a));
    QVERIFY(f.whyNoMetric(Filter::Metric::Wait, info).empty());
    QVERIFY(f.whyNoMetric(Filter::Metric::Total, info).empty());
    QVERIFY(contains(f.whyNoMetric(Filter::Metric::Processing, info), "claim"));
    QVERIFY(contains(f.whyNoMetric(Filter::Metric::TimeToFailure, info), "claim"));
    QVERIFY(f.namedQueues() && f.keepsHistory());
    QCOMPARE(f.extraStates().size(), std::size_t(2));
}

void TstSolidQueue::releaseAbandonedClaimsAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const auto before = everything(path);
    const ActionResult r = q->apply(Action::Release, {targetOf(*q, "12"), targetOf(*q, "13")});
    QCOMPARE(r.applied.size(), std::size_t(2));
    QVERIFY(r.skipped.empty());
    // ClaimedExecution#release: a ready row (queue and priority from the
    // job, created now), the claim deleted; the process rows untouched.
    for (const char* id : {"12", "13"}) {
        QCOMPARE(whereIs(path, id), std::string("ready"));
        QCOMPARE(rows(path, std::string("SELECT queue_name, priority, created_at FROM "
                                        "solid_queue_ready_executions WHERE job_id = ") +
                                id)
                     .front(),
                 (std::vector<std::string>{"reports", "5", kNowText}));
        QCOMPARE(row(*q, id).state, State::Ready);
    }
    QCOMPARE(rows(path, "SELECT count(*) FROM solid_queue_processes").front().front(),
             std::string("5"));
    QCOMPARE(q->counts().stuck, std::int64_t(0));
    checkIntegrity(path);

    const ActionResult u = q->undo(Action::Release, r.applied);
    QCOMPARE(u.applied.size(), std::size_t(2));
    QCOMPARE(everything(path), before);
}

void TstSolidQueue::liveClaimsRefused() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const auto before = everything(path);
    // Jobs 9, 14, 15: claimed by worker 2, heartbeat a minute ago.
    for (Action a : {Action::Release, Action::Delete, Action::Retry, Action::Prune})
        checkRefused(*q, a, {"9", "14", "15"}, SkipKind::NotApplicable);
    QCOMPARE(everything(path), before);
    const ActionResult d = q->apply(Action::Delete, {targetOf(*q, "14")});
    QVERIFY2(contains(d.skipped.front().reason, "UndiscardableError"),
             d.skipped.front().reason.c_str());
    // Not offered at all: the format says why, and core skips every row.
    const QueueFormat& f = QueueFormat::of(q->info());
    QVERIFY(contains(f.whyNot(Action::MarkFailed, q->info()), "worker"));
    const ActionResult mf = q->apply(Action::MarkFailed, {targetOf(*q, "16")});
    QVERIFY(mf.applied.empty());
    QCOMPARE(mf.skipped.front().kind, SkipKind::NotApplicable);
    QCOMPARE(everything(path), before);
}

void TstSolidQueue::retryFailedAsMissionControlAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    {
        // As if retry_on had run it twice before it failed for good.
        Db db(path);
        db.exec("UPDATE solid_queue_jobs SET arguments = json_set(arguments, '$.executions', 2, "
                "'$.exception_executions', json('{\"[Errno::ENOSPC]\":2}')) WHERE id = 8");
    }
    const auto before = everything(path);
    QCOMPARE(row(*q, "8").attempts, std::int64_t(2));
    const ActionResult r =
        q->apply(Action::Retry, {targetOf(*q, "7"), targetOf(*q, "8"), targetOf(*q, "16")});
    QCOMPARE(r.applied.size(), std::size_t(2));
    QCOMPARE(r.skipped.size(), std::size_t(1)); // 16 is ready
    QCOMPARE(whereIs(path, "8"), std::string("ready"));
    QCOMPARE(rows(path, "SELECT json_extract(arguments, '$.executions'), "
                        "json_extract(arguments, '$.exception_executions'), updated_at FROM "
                        "solid_queue_jobs WHERE id = 8")
                 .front(),
             (std::vector<std::string>{"0", "{}", kNowText}));
    QCOMPARE(row(*q, "8").attempts, std::int64_t(0));
    QCOMPARE(q->counts().failed, std::int64_t(0));
    checkIntegrity(path);

    const ActionResult u = q->undo(Action::Retry, r.applied);
    QCOMPARE(u.applied.size(), std::size_t(2));
    QCOMPARE(everything(path), before);
}

void TstSolidQueue::dispatchScheduledAndBlockedAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const auto before = everything(path);
    // 20: due in three days; 10: blocked; 22: already due (the dispatcher's).
    const ActionResult r =
        q->apply(Action::Release, {targetOf(*q, "20"), targetOf(*q, "10"), targetOf(*q, "22")});
    QCOMPARE(r.applied.size(), std::size_t(2));
    QCOMPARE(r.skipped.size(), std::size_t(1));
    QVERIFY(contains(r.skipped.front().reason, "already due"));
    QCOMPARE(rows(path, "SELECT scheduled_at FROM solid_queue_scheduled_executions WHERE job_id "
                        "= 20")
                 .front()
                 .front(),
             kNowText);
    QCOMPARE(row(*q, "20").state, State::Ready);
    QCOMPARE(whereIs(path, "10"), std::string("ready"));
    QCOMPARE(q->counts().extra.at("blocked"), std::int64_t(1));

    const ActionResult u = q->undo(Action::Release, r.applied);
    QCOMPARE(u.applied.size(), std::size_t(2));
    QCOMPARE(everything(path), before);
}

void TstSolidQueue::discardAndPruneWithUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const auto before = everything(path);
    // Discard: a ready, a scheduled, a failed and a blocked job.
    const ActionResult d = q->apply(Action::Delete, {targetOf(*q, "16"), targetOf(*q, "21"),
                                                     targetOf(*q, "7"), targetOf(*q, "11")});
    QCOMPARE(d.applied.size(), std::size_t(4));
    for (const char* id : {"16", "21", "7", "11"}) {
        QVERIFY(!q->get(id));
        QCOMPARE(whereIs(path, id), std::string());
    }
    checkIntegrity(path);
    // Prune finished jobs older than a day (clear_finished_in_batches): the
    // recurring execution of job 4 goes with it, as the cascade would.
    Operator op(*q, "tst_solidqueue", AuditLog(toStd(dir.filePath(QStringLiteral("audit")))));
    const Plan plan = op.planPrune(true, std::chrono::hours(24), kFactsNow);
    const Report pr = op.run(plan);
    QCOMPARE(pr.applied(), std::size_t(4)); // jobs 1-4; failed jobs are skipped
    QCOMPARE(rows(path, "SELECT count(*) FROM solid_queue_recurring_executions").front().front(),
             std::string("0"));
    QCOMPARE(q->counts().done, std::int64_t(2));
    checkIntegrity(path);

    QCOMPARE(op.undo(*op.lastUndoable()).applied(), std::size_t(4));
    QCOMPARE(q->undo(Action::Delete, d.applied).applied.size(), std::size_t(4));
    QCOMPARE(everything(path), before);
    checkIntegrity(path);
}

void TstSolidQueue::staleExecutionRefused() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const Target shown = targetOf(*q, "13"); // claim of a process that is gone
    // Meanwhile the supervisor fails it (ProcessMissingError) and a retry
    // makes it ready, then a live worker claims it: a new claimed row.
    {
        Db db(path);
        db.exec("DELETE FROM solid_queue_claimed_executions WHERE job_id = 13");
        db.exec("INSERT INTO solid_queue_claimed_executions (job_id, process_id, created_at) "
                "VALUES (13, 2, '2026-11-30 11:59:30.5')");
    }
    const auto now = everything(path);
    const ActionResult r = q->apply(Action::Release, {shown});
    QVERIFY(r.applied.empty());
    QCOMPARE(r.skipped.size(), std::size_t(1));
    QCOMPARE(r.skipped.front().kind, SkipKind::Changed);
    QVERIFY2(contains(r.skipped.front().reason, "execution"), r.skipped.front().reason.c_str());
    QCOMPARE(everything(path), now);

    // An undo whose row moved on is refused the same way.
    const ActionResult ok = q->apply(Action::Release, {targetOf(*q, "12")});
    QCOMPARE(ok.applied.size(), std::size_t(1));
    {
        Db db(path); // a worker claims the released job
        db.exec("DELETE FROM solid_queue_ready_executions WHERE job_id = 12");
        db.exec("INSERT INTO solid_queue_claimed_executions (job_id, process_id, created_at) "
                "VALUES (12, 2, '2026-11-30 12:00:01')");
    }
    const auto claimed = everything(path);
    const ActionResult u = q->undo(Action::Release, ok.applied);
    QVERIFY(u.applied.empty());
    QCOMPARE(u.skipped.front().kind, SkipKind::Changed);
    QCOMPARE(everything(path), claimed);
}

void TstSolidQueue::operatorAuditsAnActionAndUndoesFromTheRecord() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const auto before = everything(path);
    // Undo from the audit record as written to disk: the stored rows
    // (Message::formatRow) survive the round trip.
    checkOperatorRetriesFailedAndUndoes(*q, dir, "tst_solidqueue", 2);
    QCOMPARE(everything(path), before);
}

void TstSolidQueue::twoFormatsInOneFileNamed() {
    checkTwoFormatsInOneFileNamed(kFixture, "solid-queue");
}

void TstSolidQueue::incompleteSchemaSaysWhatIsMissing() {
    checkDamagedSaysWhatIsMissing(kFixture, {"DROP TABLE solid_queue_failed_executions"},
                                  "solid_queue_failed_executions");
}

void TstSolidQueue::inconsistentRowsAreUnknownAndLeftAlone() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    {
        Db db(path);
        // 19: ready and failed at once; 17: no execution row at all; 8: its
        // arguments are not JSON; worker 2's heartbeat is not a time.
        db.exec("INSERT INTO solid_queue_failed_executions (job_id, error, created_at) VALUES "
                "(19, '{}', '2026-11-30 11:59:30')");
        db.exec("DELETE FROM solid_queue_ready_executions WHERE job_id = 17");
        db.exec("UPDATE solid_queue_jobs SET arguments = x'00ff' WHERE id = 8");
        db.exec("UPDATE solid_queue_processes SET last_heartbeat_at = 'soon' WHERE id = 2");
    }
    auto q = openAtFactsNow(path);
    const Counts c = q->counts();
    QCOMPARE(c.unknown, std::int64_t(2));
    QCOMPARE(c.stored, std::int64_t(22));
    QCOMPARE(row(*q, "19").state, State::Unknown);
    QCOMPARE(row(*q, "17").state, State::Unknown);
    Filter unknown;
    unknown.states = {State::Unknown};
    QCOMPARE(q->count(unknown), std::int64_t(2));
    // A heartbeat that is not a time never makes a claim abandoned.
    QCOMPARE(c.stuck, std::int64_t(2));
    QCOMPARE(row(*q, "14").extraState, std::string());
    QVERIFY(row(*q, "8").dataIsBlob);
    const auto before = everything(path);
    for (Action a : {Action::Retry, Action::Release, Action::Delete, Action::Prune}) {
        const ActionResult r =
            q->apply(a, {targetOf(*q, "19"), targetOf(*q, "17"), targetOf(*q, "14")});
        QVERIFY2(r.applied.empty(), actionName(a));
    }
    // Retry would rewrite the arguments: refused when they are not JSON
    // (discarding the job stays possible).
    const ActionResult r = q->apply(Action::Retry, {targetOf(*q, "8")});
    QVERIFY(r.applied.empty());
    QVERIFY2(contains(r.skipped.front().reason, "not JSON"), r.skipped.front().reason.c_str());
    QCOMPARE(everything(path), before);
}

void TstSolidQueue::countsTableByTableEqualTheJobByJobFigures_data() {
    QTest::addColumn<QStringList>("sql");
    // A job scheduled at `at` (an SQL value), due as its execution says.
    const auto scheduledAt = [](const char* at) {
        return QStringList{
            QStringLiteral("INSERT INTO solid_queue_jobs (queue_name, class_name, arguments, "
                           "created_at, updated_at) VALUES ('default', 'X', '{}', '2026-11-30 "
                           "11:00:00', '2026-11-30 11:00:00')"),
            QStringLiteral("INSERT INTO solid_queue_scheduled_executions (job_id, queue_name, "
                           "priority, scheduled_at, created_at) VALUES (last_insert_rowid(), "
                           "'default', 0, %1, '2026-11-30 11:00:00')")
                .arg(QLatin1String(at))};
    };
    // solid_queue_`table` rebuilt without its primary key and indexes.
    const auto withoutKeys = [](const char* table) {
        const QString t = QStringLiteral("solid_queue_") + QLatin1String(table);
        return QStringList{QStringLiteral("CREATE TABLE lq_copy AS SELECT * FROM ") + t,
                           QStringLiteral("DROP TABLE ") + t,
                           QStringLiteral("ALTER TABLE lq_copy RENAME TO ") + t};
    };
    const QString readyRow =
        QStringLiteral("INSERT INTO solid_queue_ready_executions (job_id, queue_name, priority, "
                       "created_at) VALUES (%1, 'mailers', 0, '2026-11-30 11:59:30')");
    const QString failedRow =
        QStringLiteral("INSERT INTO solid_queue_failed_executions (job_id, error, created_at) "
                       "VALUES (%1, '{}', '2026-11-30 11:59:30')");
    const QString noReady =
        QStringLiteral("DELETE FROM solid_queue_ready_executions WHERE job_id = 17");

    QTest::newRow("consistent") << QStringList();
    QTest::newRow("a job in two tables") << QStringList{failedRow.arg(19)};
    QTest::newRow("a job in three tables") << QStringList{
        failedRow.arg(19), QStringLiteral("INSERT INTO solid_queue_claimed_executions (job_id, "
                                          "process_id, created_at) VALUES (19, 2, '2026-11-30 "
                                          "11:59:40')")};
    QTest::newRow("an unfinished job in none") << QStringList{noReady};
    // As many execution rows as unfinished jobs, yet not one each.
    QTest::newRow("one in two tables, one in none") << QStringList{failedRow.arg(19), noReady};
    QTest::newRow("an execution of a finished job") << QStringList{readyRow.arg(5)};
    QTest::newRow("an execution of a finished job, a job in none")
        << QStringList{readyRow.arg(5), noReady};
    QTest::newRow("an execution of no job, a job in none")
        << QStringList{readyRow.arg(999), noReady};
    QTest::newRow("a job twice in one table, a job in none")
        << QStringList{QStringLiteral("DROP INDEX index_solid_queue_ready_executions_on_job_id"),
                       readyRow.arg(16), noReady};
    QStringList nullId = withoutKeys("ready_executions");
    nullId << QStringLiteral("UPDATE solid_queue_ready_executions SET id = NULL WHERE job_id = 16");
    QTest::newRow("an execution row without an id") << nullId;
    QTest::newRow("claims whose process row is missing")
        << QStringList{QStringLiteral("DELETE FROM solid_queue_processes WHERE id = 2")};
    QTest::newRow("a claim without a process") << QStringList{QStringLiteral(
        "UPDATE solid_queue_claimed_executions SET process_id = NULL WHERE job_id = 9")};
    QTest::newRow("a heartbeat that is not a time") << QStringList{
        QStringLiteral("UPDATE solid_queue_processes SET last_heartbeat_at = 'soon' WHERE id = 2")};
    QStringList twice = withoutKeys("processes");
    twice << QStringLiteral(
        "INSERT INTO solid_queue_processes SELECT * FROM solid_queue_processes WHERE id IN (2, 5)");
    QTest::newRow("process ids that repeat") << twice;
    QStringList times;
    for (const char* at :
         {"'2026-11-30 12:00:00'", "'2026-11-30 12:00:00.000001'", "'2026-11-30 11:59:59.999999'",
          "'2026-11-30T12:00:01Z'", "'2026-11-30 12:00:00.9999'", "'2026-02-31 00:00:00'",
          "'2027-13-01 00:00:00'", "'soon'", "x'32303237'", "1796040001", "'2026-11-30 12:00'"})
        times << scheduledAt(at);
    QTest::newRow("scheduled times around now, and not times") << times;
}

// counts() reads a consistent file table by table (one merge proves each
// unfinished job is in exactly one execution table) and any other, or a
// narrowed count, job by job: both give the figures of the state
// conditions on the joined rows, whatever the file holds.
void TstSolidQueue::countsTableByTableEqualTheJobByJobFigures() {
    QFETCH(QStringList, sql);
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    {
        Db db(path);
        for (const QString& s : sql)
            db.exec(toStd(s));
    }
    checkCountsByCondition(path, {"blocked"});
    // Those figures came from the timing scan's rows too (blocked among
    // them), not from the counts read on their own.
    auto q = openAtFactsNow(path);
    Filter all;
    all.now = q->now();
    QVERIFY(countsOfScan(QueueFormat::of(q->info()), q->timing(all, true), *all.now,
                         kDefaultStuckAfterNs, true));
}

// The schema's part of the proof (every id a rowid) is read once per schema
// version: changed under an open queue, it is read again. Here an execution
// row loses its id, which the job-by-job figures count as in no table.
void TstSolidQueue::aSchemaChangedWhileOpenIsCheckedAgain() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const std::string before = describeCounts(q->counts(), {"blocked"});
    QCOMPARE(before, describeCounts(countsByCondition(*q, {"blocked"}), {"blocked"}));
    {
        Db db(path);
        for (const char* sql :
             {"CREATE TABLE lq_copy AS SELECT * FROM solid_queue_ready_executions",
              "DROP TABLE solid_queue_ready_executions",
              "ALTER TABLE lq_copy RENAME TO solid_queue_ready_executions",
              "UPDATE solid_queue_ready_executions SET id = NULL WHERE job_id = 16"})
            db.exec(sql);
    }
    const std::string after = describeCounts(q->counts(), {"blocked"});
    QVERIFY(after != before);
    QCOMPARE(after, describeCounts(countsByCondition(*q, {"blocked"}), {"blocked"}));
    QCOMPARE(describeCounts(q->countsWithQueues().total, {"blocked"}), after);
}

// A queue left open keeps, from its second scan on, the timing rows of the
// ranges that cannot change with the time (no claim, no scheduled row) with
// their print, and reads
// again only the ranges another connection changed: after each change, in
// place or not, it gives what a queue opened afresh gives, and the ranges
// no change touched are not read.
void TstSolidQueue::timingReadsAgainOnlyTheRangesThatChanged() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    {
        Db db(path);
        db.exec("PRAGMA journal_mode = DELETE");
        // Two more ranges of finished jobs, past the fixture's.
        for (int i = 0; i < 8; ++i)
            db.exec("INSERT INTO solid_queue_jobs (queue_name, class_name, arguments, created_at, "
                    "updated_at, finished_at) VALUES ('default', 'X', '{}', '2026-11-30 "
                    "11:00:0" +
                    std::to_string(i) + "', '2026-11-30 11:00:00', '2026-11-30 11:30:00')");
    }
    OpenOptions o;
    o.clock = fixedClock(kFactsNow);
    o.scanChunkRows = 4;
    auto q = Queue::open(path, o);
    const auto fresh = [&] {
        auto other = Queue::open(path, o);
        return describeTiming(other->timing(Filter{}, true));
    };
    const std::vector<std::string> first = describeTiming(q->timing(Filter{}, true));
    QCOMPARE(first, fresh());
    // A queue's first scan reads no print: it may be its only one.
    QCOMPARE(q->timingReuse().ranges, std::size_t(0));
    QCOMPARE(describeTiming(q->timing(Filter{}, true)), first);
    const Queue::TimingReuse kept = q->timingReuse();
    QVERIFY(kept.ranges >= 2);
    QVERIFY(kept.rows >= 8);
    QCOMPARE(kept.hits, std::uint64_t(0));
    QCOMPARE(describeTiming(q->timing(Filter{}, true)), first);
    QCOMPARE(q->timingReuse().hits, std::uint64_t(kept.ranges));

    const auto finished =
        rows(path, "SELECT id FROM solid_queue_jobs WHERE finished_at IS NOT NULL ORDER BY id");
    QVERIFY(finished.size() >= 10);
    const std::string a = finished.front().front(), b = finished.back().front();
    const std::string ready =
        rows(path, "SELECT min(job_id) FROM solid_queue_ready_executions").front().front();
    for (const std::vector<std::string>& change : std::vector<std::vector<std::string>>{
             {"UPDATE solid_queue_jobs SET created_at = '2026-11-30 10:00:00' WHERE id = " + a},
             {"UPDATE solid_queue_jobs SET queue_name = 'elsewhere' WHERE id = " + a},
             {"UPDATE solid_queue_jobs SET finished_at = '2026-11-30 11:59:00' WHERE id = " + b},
             {"DELETE FROM solid_queue_ready_executions WHERE job_id = " + ready,
              "UPDATE solid_queue_jobs SET finished_at = '2026-11-30 11:59:59' WHERE id = " +
                  ready},
             {"DELETE FROM solid_queue_jobs WHERE id = " + b},
             {"INSERT INTO solid_queue_jobs (queue_name, class_name, arguments, created_at, "
              "updated_at, finished_at) VALUES ('default', 'X', '{}', '2026-11-30 11:10:00', "
              "'2026-11-30 11:10:00', '2026-11-30 11:40:00')"}}) {
        const std::vector<std::string> before = describeTiming(q->timing(Filter{}, true));
        {
            Db db(path);
            for (const std::string& sql : change)
                db.exec(sql);
        }
        const std::uint64_t hits = q->timingReuse().hits;
        const std::vector<std::string> after = describeTiming(q->timing(Filter{}, true));
        QVERIFY2(after != before, change.front().c_str());
        QCOMPARE(after, fresh());
        // One range changed; the others came from the cache.
        QVERIFY2(q->timingReuse().hits > hits, change.front().c_str());
    }
}

// A kept range holds a scheduled job (21, due 12:30) and a live claim (job
// 14, whose lease runs out 5 minutes after its process's heartbeat): the
// kept rows serve scans until one of them turns, and a heartbeat resets it.
void TstSolidQueue::keptTimingHoldsUntilARowTurns() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    {
        Db db(path);
        db.exec("PRAGMA journal_mode = DELETE");
    }
    OpenOptions o;
    o.clock = fixedClock(kFactsNow);
    o.scanChunkRows = 4;
    const std::size_t processBefore = TimingCache::processBytes();
    auto q = Queue::open(path, o);
    const auto at = [](TimeNs t) {
        Filter f;
        f.now = t;
        return f;
    };
    const auto scan = [&](Queue& queue, TimeNs t) {
        return describeTiming(queue.timing(at(t), true));
    };
    const auto fresh = [&](TimeNs t) { return scan(*Queue::open(path, o), t); };
    const TimeNs minute = 60 * kNsPerSecond;
    const std::vector<std::string> noon = scan(*q, kFactsNow);
    QCOMPARE(scan(*q, kFactsNow), noon); // now kept, job 21 and 14 with the rest
    const std::size_t kept = q->timingReuse().ranges;
    QVERIFY(kept >= 3);
    QVERIFY(TimingCache::processBytes() > processBefore); // on the process's budget
    // A minute on, nothing turned: every range from the cache.
    std::uint64_t hits = q->timingReuse().hits;
    QCOMPARE(scan(*q, kFactsNow + minute), noon);
    QCOMPARE(q->timingReuse().hits, hits + kept);
    // 31 minutes on, job 21 is due and job 14's lease ran out: their ranges
    // are read again, the others still kept.
    hits = q->timingReuse().hits;
    const std::vector<std::string> later = scan(*q, kFactsNow + 31 * minute);
    QVERIFY(later != noon);
    QCOMPARE(later, fresh(kFactsNow + 31 * minute));
    QVERIFY(q->timingReuse().hits > hits);
    QVERIFY(q->timingReuse().hits < hits + kept);
    // Back before the read: nothing kept at 12:31 serves noon.
    QCOMPARE(scan(*q, kFactsNow), noon);
    // Job 14's process beats at 12:30: at 12:31 its claim is alive again.
    QCOMPARE(scan(*q, kFactsNow + 31 * minute), later);
    {
        Db db(path);
        db.exec("UPDATE solid_queue_processes SET last_heartbeat_at = '2026-11-30 12:30:00' "
                "WHERE id = (SELECT process_id FROM solid_queue_claimed_executions WHERE job_id "
                "= 14)");
    }
    const std::vector<std::string> beat = scan(*q, kFactsNow + 31 * minute);
    QVERIFY(beat != later);
    QCOMPARE(beat, fresh(kFactsNow + 31 * minute));
    q.reset(); // gives its share back
    QCOMPARE(TimingCache::processBytes(), processBefore);
}

QTEST_GUILESS_MAIN(TstSolidQueue)
#include "tst_solidqueue.moc"
