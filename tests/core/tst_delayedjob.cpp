// SPDX-License-Identifier: MIT
// Delayed::Job (Active Record backend) through the format seam: the facts of
// the real library's fixture (tests/data/formats/facts.json), the fields read
// from the row and the handler's YAML as text, recognition beside an app's
// own tables, max_run_time as a setting, and each action (retry, release,
// delete, prune) with its lock guard refusing a stale token, audited and
// undone back to the same rows.
#include "core/formats/delayedjob.h"
#include "core/sqlite.h"
#include "formatfacts.h"

#include <QObject>
#include <QTemporaryDir>

#include <vector>

using namespace lqtest;
using namespace lq::core;

namespace {

const QString kFixture = QStringLiteral("formats/delayed-job.sqlite3");

std::vector<std::vector<std::string>> rows(const std::string& path, const std::string& sql) {
    Db db(path, /*readOnly=*/true);
    return db.rows(sql);
}

/// Every column of every job, with its type (quote()).
std::vector<std::vector<std::string>> snapshot(const std::string& path) {
    return rows(path, "SELECT quote(id), quote(priority), quote(attempts), quote(handler), "
                      "quote(last_error), quote(run_at), quote(locked_at), quote(failed_at), "
                      "quote(locked_by), quote(queue), quote(created_at), quote(updated_at) FROM "
                      "delayed_jobs ORDER BY id");
}

std::string one(const std::string& path, const std::string& sql) {
    return rows(path, sql).at(0).at(0);
}

std::unique_ptr<Queue> openWithMaxRunTime(const std::string& path, std::int64_t seconds) {
    OpenOptions o;
    o.clock = fixedClock(kFactsNow);
    if (!o.settings.set(DelayedJobFormat::kMaxRunTimeKey, seconds))
        qFatal("max_run_time refused");
    return Queue::open(path, o);
}

/// 2026-11-30 + h:m:s.us, UTC, in ns.
constexpr TimeNs at(int h, int m, int s, int us = 0) {
    return (1'796'040'000LL + (h - 12) * 3600LL + m * 60LL + s) * kNsPerSecond + us * 1000LL;
}

} // namespace

class TstDelayedJob : public QObject {
    Q_OBJECT

private slots:
    void recognisedAndOpeningChangesNothing();
    void countsAndQueuesMatchTheFacts();
    void countsEqualTheStateConditions();
    void fieldsFromTheRowAndTheHandlerText();
    void recognisedBesideOtherTablesAndRefusedWhenIncomplete();
    void maxRunTimeIsAKeyedSetting();
    void retryFailedKeepsAttemptsAndUndoes();
    void operatorRetriesAndUndoesFromTheAuditRecord();
    void releaseStuckLockAndUndo();
    void staleTokensRefused();
    void deleteAndPruneAndUndo();
};

void TstDelayedJob::recognisedAndOpeningChangesNothing() {
    checkOpeningChangesNothing(kFixture, "delayed-job", [](Queue& q) {
        QCOMPARE(q.info().table, std::string("delayed_jobs"));
        QVERIFY(q.info().warnings.empty());
    });
    checkNamedAndOffersRowActions("delayed-job");
    const QueueFormat& f = *lq::core::QueueFormat::byId("delayed-job");
    QVERIFY(!f.keepsHistory());
    QVERIFY(!f.offers(Action::MarkFailed, infoOf("delayed-job")));
    QVERIFY(!f.offers(Action::Enqueue, infoOf("delayed-job")));
    QVERIFY(f.offers(Action::Prune, infoOf("delayed-job")));
    QCOMPARE(f.pruneRules().size(), std::size_t(1));
    QVERIFY(f.pruneRules().front().states == std::vector<State>{State::Failed});
    QVERIFY(!f.storesMetric(Filter::Metric::Processing, infoOf("delayed-job")));
    QVERIFY(f.storesMetric(Filter::Metric::Wait, infoOf("delayed-job")));
}

void TstDelayedJob::countsAndQueuesMatchTheFacts() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    const QJsonObject f = factsOf(kFixture);
    checkCounts(*q, f);
    checkPerQueue(*q, f);
    checkSamples(*q, f);
    // The facts, as numbers: READY 6, SCHEDULED 4, LOCKED 3 (1 stuck), FAILED 2.
    QCOMPARE(describeCounts(q->counts(), {"locked_expired"}),
             std::string("ready 6, scheduled 4, locked 3, stuck 1, done 0, failed 2, unknown 0, "
                         "stored 15, locked_expired 1"));
    QCOMPARE(q->queueNames(), (std::vector<std::string>{"(default)", "images", "mailers",
                                                        "maintenance", "reports"}));
    QCOMPARE(describeCounts(q->counts("(default)"), {}),
             std::string("ready 1, scheduled 1, locked 0, stuck 0, done 0, failed 0, unknown 0, "
                         "stored 2"));
    QCOMPARE(describeCounts(q->counts("reports"), {}),
             std::string("ready 2, scheduled 1, locked 2, stuck 1, done 0, failed 0, unknown 0, "
                         "stored 5"));
}

void TstDelayedJob::countsEqualTheStateConditions() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    {
        // Values the library never writes: a NULL run_at (READY: the rest),
        // a run_at in ISO spelling, a lock exactly max_run_time old (not
        // stuck: the library's rule is locked_at < now - max_run_time).
        Db db(path);
        db.exec("INSERT INTO delayed_jobs (priority, attempts, handler, run_at, queue) VALUES "
                "(0, 0, '--- !ruby/object:X {}', NULL, 'odd')");
        db.exec("INSERT INTO delayed_jobs (priority, attempts, handler, run_at, queue) VALUES "
                "(0, 0, '--- !ruby/object:X {}', '2026-11-30T12:00:00.5Z', 'odd')");
        db.exec("INSERT INTO delayed_jobs (priority, attempts, handler, run_at, locked_at, "
                "locked_by, queue) VALUES (0, 0, '--- !ruby/object:X {}', '2026-11-30 07:00:00', "
                "'2026-11-30 08:00:00', 'host:x pid:1', 'odd')");
        db.exec("INSERT INTO delayed_jobs (priority, attempts, handler, run_at, locked_at, "
                "locked_by, queue) VALUES (0, 0, '--- !ruby/object:X {}', '2026-11-30 07:00:00', "
                "'2026-11-30 07:59:59.999999', 'host:x pid:1', 'odd')");
    }
    auto q = openAtFactsNow(path);
    QCOMPARE(describeCounts(q->counts("odd"), {"locked_expired"}),
             std::string("ready 1, scheduled 1, locked 2, stuck 1, done 0, failed 0, unknown 0, "
                         "stored 4, locked_expired 1"));
    // The dashboard's scan classifies as counts() does.
    const TimingColumns tc = q->timing(Filter{});
    const Counts fromCols = countsFrom(tc, q->now(), kDefaultStuckAfterNs);
    const Counts c = q->counts();
    QCOMPARE(describeCounts(fromCols, {}), describeCounts(c, {}));
    checkCountsByCondition(path, {"locked_expired"});
}

void TstDelayedJob::fieldsFromTheRowAndTheHandlerText() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    // The handler's class from its YAML tag, never deserialized.
    QCOMPARE(row(*q, "11").jobName.value_or(""), std::string("PdfJob")); // !ruby/struct:
    QCOMPARE(row(*q, "13").jobName.value_or(""), std::string("NotifyJob"));
    QCOMPARE(row(*q, "15").jobName.value_or(""), std::string("Newsletter.deliver"));
    QCOMPARE(row(*q, "20").jobName.value_or(""), std::string("CleanupJob")); // Active Job
    QVERIFY(row(*q, "20").data.rfind(
                "--- !ruby/object:ActiveJob::QueueAdapters::DelayedJobAdapter::JobWrapper", 0) ==
            0);
    QVERIFY(row(*q, "13").dataNote.value_or("").find("never deserialized") != std::string::npos);
    // A job failed for good: attempts, last_error, its lock kept by fail!.
    const Message failed = row(*q, "6");
    QCOMPARE(failed.state, State::Failed);
    QCOMPARE(failed.attempts, std::int64_t(3));
    QCOMPARE(failed.priority, std::optional<std::int64_t>(5));
    QVERIFY(failed.lastError.value_or("").rfind("image 7 is corrupt\n", 0) == 0);
    QCOMPARE(failed.queueName.value_or(""), std::string("images"));
    QCOMPARE(failed.tokenText.value_or(""), std::string("host:worker-1 pid:3100\x1f"
                                                        "2026-11-30 09:20:00.004500"));
    QCOMPARE(failed.doneTime, std::optional<TimeNs>(at(9, 20, 0, 10500)));
    QCOMPARE(failed.lockTime, std::optional<TimeNs>(at(9, 20, 0, 4500)));
    QCOMPARE(failed.scheduledAt, std::optional<TimeNs>(at(9, 10, 21, 9000)));
    QCOMPARE(failed.inTime, std::optional<TimeNs>(at(9, 0, 0, 15000)));
    // Waiting for its retry: attempts 1, run_at the job's own back-off (2 h).
    const Message webhook = row(*q, "10");
    QCOMPARE(webhook.state, State::Scheduled);
    QCOMPARE(webhook.attempts, std::int64_t(1));
    QCOMPARE(webhook.queueName.value_or(""), std::string("(default)"));
    QCOMPARE(webhook.scheduledAt, std::optional<TimeNs>(at(12, 30, 1, 9000)));
    QCOMPARE(webhook.tokenText.value_or(""), std::string("not locked"));
    // The crashed worker's lock, older than max_run_time (4 h), and a live one.
    QCOMPARE(row(*q, "1").extraState, std::string("locked_expired"));
    QCOMPARE(row(*q, "1").tokenText.value_or(""), std::string("host:batch-1 pid:4242\x1f"
                                                              "2026-11-30 07:30:12.350178"));
    QCOMPARE(row(*q, "1").lockTime, std::optional<TimeNs>(at(7, 30, 12, 350178)));
    QCOMPARE(row(*q, "9").extraState, std::string());
    QCOMPARE(row(*q, "12").state, State::Locked);
    QCOMPARE(row(*q, "12").extraState, std::string());
    // Wait is locked_at - run_at: job 12 was due 11:30:00.0015, locked 11:50:30.5045.
    QCOMPARE(row(*q, "12").waitNs(),
             std::optional<TimeNs>(at(11, 50, 30, 504500) - at(11, 30, 0, 1500)));
    // Time to failure of the last run (failed_at - locked_at) is in the stats.
    const QueueStats st = q->stats();
    QCOMPARE(st.timeToFailure.count, std::int64_t(2));
    QCOMPARE(st.processing.count, std::int64_t(0));
}

void TstDelayedJob::recognisedBesideOtherTablesAndRefusedWhenIncomplete() {
    QTemporaryDir dir;
    // The app's own database: its tables, and the jobs table under a
    // table_name_prefix with a column of its own.
    const std::string path = toStd(dir.filePath(QStringLiteral("app.sqlite3")));
    {
        Db db(path);
        db.exec("CREATE TABLE users (id integer PRIMARY KEY, email varchar)");
        db.exec("CREATE TABLE orders (id integer PRIMARY KEY, user_id integer, total integer)");
        db.exec("CREATE TABLE schema_migrations (version varchar PRIMARY KEY)");
        db.exec("CREATE TABLE \"app_delayed_jobs\" (\"id\" integer PRIMARY KEY AUTOINCREMENT NOT "
                "NULL, \"priority\" integer DEFAULT 0 NOT NULL, \"attempts\" integer DEFAULT 0 "
                "NOT NULL, \"handler\" text NOT NULL, \"last_error\" text, \"run_at\" datetime, "
                "\"locked_at\" datetime, \"failed_at\" datetime, \"locked_by\" varchar, "
                "\"queue\" varchar, \"created_at\" datetime(6), \"updated_at\" datetime(6), "
                "\"tenant\" varchar)");
        db.exec("INSERT INTO app_delayed_jobs (handler, run_at, queue, created_at, updated_at) "
                "VALUES ('--- !ruby/object:NotifyJob\nuser_id: 1\n', '2026-11-30 11:00:00', "
                "'mailers', '2026-11-30 11:00:00', '2026-11-30 11:00:00')");
    }
    {
        auto q = openAtFactsNow(path);
        QCOMPARE(std::string(formatId(q->info().format)), std::string("delayed-job"));
        QCOMPARE(q->info().table, std::string("app_delayed_jobs"));
        QVERIFY(!q->readOnly());
        QCOMPARE(q->counts().ready, std::int64_t(1));
        QCOMPARE(row(*q, "1").jobName.value_or(""), std::string("NotifyJob"));
    }
    // Without failed_at it is no Delayed::Job table this tool can read.
    checkDamagedSaysWhatIsMissing(kFixture, {"ALTER TABLE delayed_jobs DROP COLUMN failed_at"},
                                  "failed_at");
    checkTwoFormatsInOneFileNamed(kFixture, "delayed-job");
}

void TstDelayedJob::maxRunTimeIsAKeyedSetting() {
    const QueueFormat& f = *lq::core::QueueFormat::byId("delayed-job");
    const auto s = f.settings();
    QCOMPARE(s.size(), std::size_t(1));
    QCOMPARE(s.front().key, std::string(DelayedJobFormat::kMaxRunTimeKey));
    QCOMPARE(s.front().option, std::string("--max-run-time"));
    QCOMPARE(s.front().libraryDefault, std::int64_t(4 * 3600));
    FormatSettings fs;
    QVERIFY(fs.set(DelayedJobFormat::kMaxRunTimeKey, 600));
    QCOMPARE(fs.value(DelayedJobFormat::kMaxRunTimeKey), std::int64_t(600));
    QCOMPARE(fs.entries().size(), std::size_t(1));
    QVERIFY(!fs.set(DelayedJobFormat::kMaxRunTimeKey, 600, "mailers")); // file-wide only
    // With max_run_time 10 min, the 09:30 lock is stuck too; 11:50:30 is not.
    QTemporaryDir dir;
    auto q = openWithMaxRunTime(copyFixture(dir, kFixture), 600);
    QCOMPARE(q->counts().stuck, std::int64_t(2));
    QCOMPARE(row(*q, "9").extraState, std::string("locked_expired"));
    QCOMPARE(row(*q, "12").extraState, std::string());
    auto q2 = openWithMaxRunTime(copyFixture(dir, kFixture), 60);
    QCOMPARE(q2->counts().stuck, std::int64_t(3));
}

void TstDelayedJob::retryFailedKeepsAttemptsAndUndoes() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    const auto before = snapshot(path);
    auto q = openAtFactsNow(path);
    const auto r = q->apply(Action::Retry, {targetOf(*q, "6")}, {});
    QCOMPARE(r.applied.size(), std::size_t(1));
    QCOMPARE(rows(path, "SELECT failed_at, locked_at, locked_by, run_at, attempts, updated_at, "
                        "last_error IS NOT NULL FROM delayed_jobs WHERE id = 6")
                 .front(),
             (std::vector<std::string>{"NULL", "NULL", "NULL", "2026-11-30 12:00:00", "3",
                                       "2026-11-30 12:00:00", "1"}));
    QCOMPARE(row(*q, "6").state, State::Ready);
    // Not a failed job: refused, nothing written.
    checkRefused(*q, Action::Retry, {"13", "12"}, SkipKind::NotApplicable);
    const auto u = q->undo(Action::Retry, r.applied);
    QCOMPARE(u.applied.size(), std::size_t(1));
    QVERIFY(snapshot(path) == before);
}

void TstDelayedJob::operatorRetriesAndUndoesFromTheAuditRecord() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    const auto before = snapshot(path);
    auto q = openAtFactsNow(path);
    checkOperatorRetriesFailedAndUndoes(*q, dir, "test", 2);
    QVERIFY(snapshot(path) == before);
}

void TstDelayedJob::releaseStuckLockAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    const auto before = snapshot(path);
    auto q = openAtFactsNow(path);
    // A live lock (within max_run_time) is not released.
    checkRefused(*q, Action::Release, {"9", "12", "13", "6"}, SkipKind::NotApplicable);
    const auto r = q->apply(Action::Release, {targetOf(*q, "1")}, {});
    QCOMPARE(r.applied.size(), std::size_t(1));
    // As clear_locks! does: locked_at and locked_by only.
    QCOMPARE(rows(path, "SELECT locked_at IS NULL, locked_by IS NULL, attempts, run_at, "
                        "updated_at FROM delayed_jobs WHERE id = 1")
                 .front(),
             (std::vector<std::string>{"1", "1", "0", "2026-11-30 07:00:00.001500",
                                       "2026-11-30 07:00:00.003000"}));
    QCOMPARE(row(*q, "1").state, State::Ready);
    QCOMPARE(q->counts().stuck, std::int64_t(0));
    const auto u = q->undo(Action::Release, r.applied);
    QCOMPARE(u.applied.size(), std::size_t(1));
    QVERIFY(snapshot(path) == before);
}

void TstDelayedJob::staleTokensRefused() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const Target ready = targetOf(*q, "13");
    const Target stuck = targetOf(*q, "1");
    const Target failed = targetOf(*q, "7");
    {
        Db db(path); // meanwhile: a worker locks 13, another takes 1 again, 7 is retried by hand
        db.exec("UPDATE delayed_jobs SET locked_at = '2026-11-30 11:59:59.5', locked_by = "
                "'host:web-3 pid:1' WHERE id = 13");
        db.exec("UPDATE delayed_jobs SET locked_at = '2026-11-30 11:59:58', locked_by = "
                "'host:web-3 pid:1' WHERE id = 1");
        db.exec("UPDATE delayed_jobs SET attempts = 0 WHERE id = 7");
    }
    const auto snap = snapshot(path);
    for (const auto& [a, t] :
         {std::pair{Action::Delete, ready}, std::pair{Action::Release, stuck},
          std::pair{Action::Retry, failed}, std::pair{Action::Prune, failed}}) {
        const auto r = q->apply(a, {t}, {});
        QVERIFY(r.applied.empty());
        QCOMPARE(r.skipped.size(), std::size_t(1));
        QCOMPARE(r.skipped.front().kind, SkipKind::Changed);
    }
    QVERIFY(snapshot(path) == snap);
    // Undo refuses a row that moved on since the action.
    auto q2 = openAtFactsNow(path);
    const auto r = q2->apply(Action::Retry, {targetOf(*q2, "6")}, {});
    QCOMPARE(r.applied.size(), std::size_t(1));
    {
        Db db(path); // a worker reserves the retried job
        db.exec("UPDATE delayed_jobs SET locked_at = '2026-11-30 12:00:01', locked_by = "
                "'host:web-3 pid:1' WHERE id = 6");
    }
    const auto u = q2->undo(Action::Retry, r.applied);
    QVERIFY(u.applied.empty());
    QCOMPARE(u.skipped.size(), std::size_t(1));
    QCOMPARE(one(path, "SELECT failed_at IS NULL FROM delayed_jobs WHERE id = 6"),
             std::string("1"));
}

void TstDelayedJob::deleteAndPruneAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    const auto before = snapshot(path);
    auto q = openAtFactsNow(path);
    // Delete: any job but one a live worker holds.
    checkRefused(*q, Action::Delete, {"12"}, SkipKind::NotApplicable);
    const auto d = q->apply(Action::Delete, {targetOf(*q, "13"), targetOf(*q, "1")}, {});
    QCOMPARE(d.applied.size(), std::size_t(2));
    QCOMPARE(one(path, "SELECT count(*) FROM delayed_jobs WHERE id IN (1, 13)"), std::string("0"));
    QCOMPARE(q->undo(Action::Delete, d.applied).applied.size(), std::size_t(2));
    QVERIFY(snapshot(path) == before);
    // Prune: the failed jobs only (the library keeps no other history).
    Operator op(*q, "test", AuditLog(toStd(dir.filePath(QStringLiteral("audit")))));
    // --older-than by failed_at (09:20:00.01 and .02: 2 h 40 min before now).
    QCOMPARE(op.planPrune(true, std::chrono::hours(3), kFactsNow).targets.size(), std::size_t(0));
    QCOMPARE(op.planPrune(true, std::chrono::hours(2), kFactsNow).targets.size(), std::size_t(2));
    QCOMPARE(op.planPrune(false, std::nullopt, kFactsNow).targets.size(), std::size_t(0));
    const Plan plan = op.planPrune(true, std::nullopt, kFactsNow);
    QCOMPARE(plan.targets.size(), std::size_t(2));
    QCOMPARE(op.run(plan).applied(), std::size_t(2));
    QCOMPARE(one(path, "SELECT count(*) FROM delayed_jobs"), std::string("13"));
    QCOMPARE(one(path, "SELECT count(*) FROM delayed_jobs WHERE failed_at IS NOT NULL"),
             std::string("0"));
    checkRefused(*q, Action::Prune, {"13"}, SkipKind::NotApplicable);
    const auto record = op.lastUndoable();
    QVERIFY(record.has_value());
    QCOMPARE(op.undo(*record).applied(), std::size_t(2));
    QVERIFY(snapshot(path) == before);
}

QTEST_GUILESS_MAIN(TstDelayedJob)
#include "tst_delayedjob.moc"
