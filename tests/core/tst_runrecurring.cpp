// SPDX-License-Identifier: MIT
// Run now of a recurring task (issue 39) on copies of the Solid Queue
// fixture: the rows SolidQueue::RecurringTask#enqueue(at:) writes when
// Mission Control's Run now calls it (the job as Active Job serializes it,
// its ready execution, the recurring run), checked with SQL; the audit
// record; undo back to the file's rows; undo refused once a worker claimed
// the job; a class task's keyword arguments; the refusals.
#include "core/audit.h"
#include "core/formats/queueformat.h"
#include "core/operator.h"
#include "testutil.h"

#include <QDateTime>
#include <QObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace lqtest;
using lq::core::Action;
using lq::core::AuditLog;
using lq::core::ErrorKind;
using lq::core::Operator;
using lq::core::Queue;
using lq::core::SkipKind;

namespace {

using Rows = std::vector<std::vector<std::string>>;

/// Every row of every table but sqlite_sequence (AUTOINCREMENT's
/// high-water mark, which a deleted row never lowers).
std::string contents(const std::string& path) {
    Db db(path, true);
    std::string out;
    for (const auto& t : db.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name "
                                 "!= 'sqlite_sequence' ORDER BY name")) {
        out += "== " + t[0] + "\n";
        for (const auto& r : db.rows("SELECT * FROM \"" + t[0] + "\""))
            for (const auto& c : r)
                out += c + "|";
        out += "\n";
    }
    return out;
}

/// 2026-11-30 12:00:00.123456789 UTC: the fixture's "now", with a fraction
/// finer than Rails keeps.
TimeNs fixtureNow() {
    const QDateTime t(QDate(2026, 11, 30), QTime(12, 0), Qt::UTC);
    return TimeNs(t.toMSecsSinceEpoch()) * 1'000'000 + 123'456'789;
}

const char* kTask = "clear_solid_queue_finished_jobs";
const char* kCommand = "SolidQueue::Job.clear_finished_in_batches(sleep_between_batches: 0.3)";

} // namespace

class TstRunRecurring : public QObject {
    Q_OBJECT
private slots:
    void init() {
        QVERIFY(m_dir.isValid());
        m_clock.set(fixtureNow());
    }
    void commandTaskRunNowAndUndo();
    void undoRefusedOnceClaimed();
    void classTaskWithKeywords();
    void refusals();

private:
    std::unique_ptr<Queue> open(const std::string& path) {
        return Queue::open(path, optionsWith(m_clock.clock()));
    }
    AuditLog log() const { return AuditLog(toStd(m_dir.path() + QStringLiteral("/audit"))); }

    QTemporaryDir m_dir;
    FakeClock m_clock;
};

void TstRunRecurring::commandTaskRunNowAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, QStringLiteral("formats/solid-queue.sqlite3"));
    const std::string before = contents(path);
    QCOMPARE(Db(path, true).integer("SELECT count(*) FROM solid_queue_jobs"), 22);
    auto q = open(path);
    QCOMPARE(lq::core::QueueFormat::of(q->info()).whyNot(Action::RunRecurring, q->info()),
             std::string());
    Operator op(*q, "test", log());
    const auto r = op.runRecurring(kTask);
    QVERIFY2(!r.failed(), r.result.error.c_str());
    QCOMPARE(r.applied(), std::size_t(1));
    QCOMPARE(r.result.applied[0].after.messageId, std::string("23"));

    Db db(path, true);
    // The job: SolidQueue::RecurringJob on its queue_as queue, the task's
    // priority, scheduled and created at the run's time (microseconds).
    QCOMPARE(db.rows("SELECT id, queue_name, class_name, priority, scheduled_at, finished_at, "
                     "concurrency_key, created_at, updated_at FROM solid_queue_jobs WHERE id > 22"),
             (Rows{{"23", "solid_queue_recurring", "SolidQueue::RecurringJob", "0",
                    "2026-11-30 12:00:00.123456", "NULL", "NULL", "2026-11-30 12:00:00.123456",
                    "2026-11-30 12:00:00.123456"}}));
    const std::string ajId = db.text("SELECT active_job_id FROM solid_queue_jobs WHERE id = 23");
    QVERIFY2(
        QRegularExpression(
            QStringLiteral("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"))
            .match(fromStd(ajId))
            .hasMatch(),
        ajId.c_str());
    // Active Job's serialization of the job (ActiveJob::Core#serialize).
    QCOMPARE(db.rows(std::string("SELECT json_extract(arguments, '$.job_class'), "
                                 "json_extract(arguments, '$.job_id') = active_job_id, "
                                 "json_type(arguments, '$.provider_job_id'), "
                                 "json_extract(arguments, '$.queue_name'), "
                                 "json_extract(arguments, '$.priority'), "
                                 "json_extract(arguments, '$.arguments') = json_array('") +
                     kCommand +
                     "'), json_extract(arguments, '$.executions'), "
                     "json_extract(arguments, '$.exception_executions'), "
                     "json_extract(arguments, '$.locale'), json_extract(arguments, "
                     "'$.timezone'), json_extract(arguments, '$.enqueued_at'), "
                     "json_extract(arguments, '$.scheduled_at') FROM solid_queue_jobs "
                     "WHERE id = 23"),
             (Rows{{"SolidQueue::RecurringJob", "1", "null", "solid_queue_recurring", "0", "1", "0",
                    "{}", "en", "UTC", "2026-11-30T12:00:00.123456000Z",
                    "2026-11-30T12:00:00.123456000Z"}}));
    // Ready at once, and recorded as a run of the task at that time.
    QCOMPARE(db.rows("SELECT job_id, queue_name, priority, created_at FROM "
                     "solid_queue_ready_executions WHERE job_id = 23"),
             (Rows{{"23", "solid_queue_recurring", "0", "2026-11-30 12:00:00.123456"}}));
    QCOMPARE(db.rows("SELECT job_id, task_key, run_at, created_at FROM "
                     "solid_queue_recurring_executions ORDER BY id"),
             (Rows{{"4", kTask, "2026-11-29 11:12:00", "2026-11-29 11:12:00.003965"},
                   {"23", kTask, "2026-11-30 12:00:00.123456", "2026-11-30 12:00:00.123456"}}));
    const auto tasks = q->recurringTasks();
    QCOMPARE(tasks.tasks.size(), std::size_t(1));
    QCOMPARE(tasks.tasks[0].lastRunNs, std::optional<TimeNs>(fixtureNow() - 789));
    QCOMPARE(q->get("23")->state, lq::core::State::Ready);

    // On record as "run-recurring", with the job it enqueued.
    const auto rec = op.records().back();
    QCOMPARE(rec.actionLabel(), std::string("run-recurring"));
    QCOMPARE(rec.id, r.recordId);
    QCOMPARE(rec.note, std::string("recurring task ") + kTask);
    QCOMPARE(rec.applied.size(), std::size_t(1));
    QCOMPARE(rec.applied[0].after.messageId, std::string("23"));
    QCOMPARE(rec.applied[0].note, std::string("run of recurring task ") + kTask);

    // Undo deletes the job, its execution and its run: the file's rows again.
    const auto last = op.lastUndoable();
    QVERIFY(last);
    QCOMPARE(last->id, rec.id);
    const auto u = op.undo(*last);
    QCOMPARE(u.applied(), std::size_t(1));
    QCOMPARE(u.skipped(), std::size_t(0));
    QCOMPARE(Db(path, true).integer("SELECT count(*) FROM solid_queue_jobs"), 22);
    q.reset();
    QCOMPARE(contents(path), before);
}

void TstRunRecurring::undoRefusedOnceClaimed() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, QStringLiteral("formats/solid-queue.sqlite3"));
    auto q = open(path);
    Operator op(*q, "test", log());
    QCOMPARE(op.runRecurring(kTask).applied(), std::size_t(1));
    // A worker claims it, as ReadyExecution.claim does.
    Db(path).exec("DELETE FROM solid_queue_ready_executions WHERE job_id = 23; INSERT INTO "
                  "solid_queue_claimed_executions (job_id, process_id, created_at) VALUES (23, 2, "
                  "'2026-11-30 12:00:01')");
    const auto u = op.undo(*op.lastUndoable());
    QCOMPARE(u.applied(), std::size_t(0));
    QCOMPARE(u.skipped(), std::size_t(1));
    QCOMPARE(u.result.skipped[0].kind, SkipKind::Changed);
    QVERIFY2(contains(u.result.skipped[0].reason, "claimed or changed since enqueued: now LOCKED"),
             u.result.skipped[0].reason.c_str());
    Db db(path, true);
    QCOMPARE(db.integer("SELECT count(*) FROM solid_queue_jobs"), 23);
    QCOMPARE(db.integer("SELECT count(*) FROM solid_queue_claimed_executions WHERE job_id = 23"),
             1);
    QCOMPARE(db.integer("SELECT count(*) FROM solid_queue_recurring_executions WHERE job_id = 23"),
             1);
}

void TstRunRecurring::classTaskWithKeywords() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, QStringLiteral("formats/solid-queue.sqlite3"));
    // A task of a job class (no queue or priority of its own) whose last
    // argument is a Hash with symbol keys, as RecurringTask::Arguments
    // stores it; one of a class with a concurrency limit; one of a class
    // the file has never seen.
    Db(path).exec(
        "INSERT INTO solid_queue_recurring_tasks (key, schedule, command, class_name, arguments, "
        "queue_name, priority, static, description, created_at, updated_at) VALUES "
        "('sync_inventory', 'at 7am every day', NULL, 'SyncInventoryJob', "
        "'[{\"_aj_globalid\":\"gid://shop/Warehouse/3\"},{\"full\":true,\"since\":\"yesterday\","
        "\"_aj_symbol_keys\":[\"full\"]}]', NULL, NULL, 1, NULL, '2026-11-29 10:00:00', "
        "'2026-11-29 10:00:00'), "
        "('imports', '*/5 * * * *', NULL, 'ImportContactsJob', '[]', 'default', 0, 1, NULL, "
        "'2026-11-29 10:00:00', '2026-11-29 10:00:00'), "
        "('unknown_class', '0 * * * *', NULL, 'NeverSeenJob', '[]', NULL, 0, 1, NULL, "
        "'2026-11-29 10:00:00', '2026-11-29 10:00:00')");
    auto q = open(path);
    Operator op(*q, "test", log());
    const auto r = op.runRecurring("sync_inventory");
    QVERIFY2(!r.failed(), r.result.error.c_str());
    QCOMPARE(r.applied(), std::size_t(1));
    Db db(path, true);
    // The queue and priority its class set on its latest job (queue_as
    // :default, priority 10); the last argument serialized as keywords.
    QCOMPARE(db.rows("SELECT queue_name, class_name, priority, json_extract(arguments, "
                     "'$.priority'), json_extract(arguments, '$.arguments') FROM solid_queue_jobs "
                     "WHERE id = 23"),
             (Rows{{"default", "SyncInventoryJob", "10", "10",
                    "[{\"_aj_globalid\":\"gid://shop/Warehouse/3\"},{\"full\":true,\"since\":"
                    "\"yesterday\",\"_aj_ruby2_keywords\":[\"full\"]}]"}}));
    QCOMPARE(db.rows("SELECT queue_name, priority FROM solid_queue_ready_executions WHERE job_id "
                     "= 23"),
             (Rows{{"default", "10"}}));

    const std::string digest = contents(path);
    const auto limited = op.runRecurring("imports");
    QCOMPARE(limited.applied(), std::size_t(0));
    QCOMPARE(limited.result.skipped[0].kind, SkipKind::NotApplicable);
    QVERIFY(contains(limited.result.skipped[0].reason, "concurrency key"));
    const auto unknown = op.runRecurring("unknown_class");
    QCOMPARE(unknown.applied(), std::size_t(0));
    QVERIFY(contains(unknown.result.skipped[0].reason, "names no queue"));
    QCOMPARE(contents(path), digest);
}

void TstRunRecurring::refusals() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, QStringLiteral("formats/solid-queue.sqlite3"));
    {
        auto q = open(path);
        Operator op(*q, "test", log());
        const std::string before = contents(path);
        const auto gone = op.runRecurring("nosuch");
        QCOMPARE(gone.applied(), std::size_t(0));
        QCOMPARE(gone.result.skipped[0].kind, SkipKind::Gone);
        QVERIFY(contains(gone.result.skipped[0].reason, "no recurring task \"nosuch\""));
        QCOMPARE(contents(path), before);
    }
    // A format that records no recurring tasks: refused with its reason.
    const std::string lite = copyFixture(dir, QStringLiteral("litequeue-head-mixed.sqlite3"));
    const QByteArray digest = sha256(lite);
    auto q = open(lite);
    const std::string why =
        lq::core::QueueFormat::of(q->info()).whyNot(Action::RunRecurring, q->info());
    QVERIFY2(contains(why, "record no recurring tasks"), why.c_str());
    Operator op(*q, "test", log());
    const auto r = op.runRecurring("anything");
    QVERIFY(r.failed());
    QCOMPARE(*r.result.errorKind, ErrorKind::Unsupported);
    QCOMPARE(r.result.error, why);
    q.reset();
    QCOMPARE(sha256(lite), digest);
}

QTEST_GUILESS_MAIN(TstRunRecurring)
#include "tst_runrecurring.moc"
