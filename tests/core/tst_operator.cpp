// SPDX-License-Identifier: MIT
// The operator layer finishes or says exactly what it did:
// undo of a prune whose keys were reused runs to the end, a write to a file
// that was deleted or replaced is refused inside its transaction, the audit
// record is exact and written chunk by chunk before each COMMIT, and a
// nested transaction guard rolls back its own work.
#include "core/audit.h"
#include "core/json.h"
#include "core/operator.h"
#include "testutil.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>
#include <filesystem>

using namespace lqtest;
using lq::core::Action;
using lq::core::AuditEntry;
using lq::core::AuditLog;
using lq::core::ErrorKind;
using lq::core::Operator;
using lq::core::PutItem;
using lq::core::Queue;
using lq::core::SkipKind;
using lq::core::State;
using lq::core::Target;

namespace {

/// n messages with keys "key-i", each popped and done: prune's material.
void fillDone(Queue& q, int n) {
    std::vector<PutItem> items;
    for (int i = 0; i < n; ++i)
        items.push_back({"{\"n\":" + std::to_string(i) + "}", "key-" + std::to_string(i)});
    q.putMany(items);
    for (int i = 0; i < n; ++i) {
        auto m = q.pop();
        QVERIFY(m);
        QVERIFY(q.done(m->messageId, m->claimId));
    }
}

} // namespace

class TstOperator : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void undoPruneWithReusedKeysRunsToTheEnd();
    void undoSkipsWhatCannotBeRestoredAndGoesOn();
    void writesRefusedAfterDelete();
    void writesRefusedAfterReplace();
    void auditRecordIsExact();
    void chunksAreRecordedBeforeTheyCommit();
    void unwritableAuditLogAppliesNothing();
    void nestedGuardRollsBackItsOwnWork();
    void oldOneLineRecordsStillUndo();
    void groupedNumbers();
    void undoOnAFileWithTimesInSeconds();

private:
    std::string path() const { return toStd(m_dir->filePath(QStringLiteral("q.sqlite3"))); }
    std::string auditDir() const { return toStd(m_dir->filePath(QStringLiteral("audit"))); }
    std::unique_ptr<QTemporaryDir> m_dir;
};

void TstOperator::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

void TstOperator::cleanup() {
    m_dir.reset();
}

void TstOperator::undoPruneWithReusedKeysRunsToTheEnd() {
    // The fault: Prune deleted 1,300 DONE messages in three chunks, new
    // messages took some of their (free again) keys, and Undo restored one
    // chunk, then stopped on "UNIQUE constraint failed" for good.
    auto q = Queue::create(path());
    fillDone(*q, 1300);
    Operator op(*q, "test", AuditLog(auditDir()));
    const auto plan = op.planPrune(true, std::nullopt);
    QCOMPARE(plan.count(), std::size_t(1300));
    const auto pruned = op.run(plan);
    QCOMPARE(pruned.applied(), std::size_t(1300));
    QVERIFY(!pruned.failed());
    QCOMPARE(q->storedCount(), 0);

    // Keys of the second and third chunks are taken again, with other data.
    for (int i : {600, 700, 1299})
        q->put("new " + std::to_string(i), "key-" + std::to_string(i));

    const auto rec = op.lastUndoable();
    QVERIFY(rec);
    QCOMPARE(rec->id, pruned.recordId);
    QCOMPARE(rec->applied.size(), std::size_t(1300));
    const auto undone = op.undo(*rec);
    QVERIFY2(!undone.failed(), undone.result.error.c_str());
    QCOMPARE(undone.applied(), std::size_t(1300));
    QCOMPARE(undone.skipped(), std::size_t(0));
    QCOMPARE(undone.notAttempted(), std::size_t(0));
    QCOMPARE(undone.notes(), std::size_t(3));
    QCOMPARE(q->storedCount(), 1303);

    // The three restored without their key, and they say which message holds it.
    Db db(path(), true);
    QCOMPARE(db.integer("SELECT count(*) FROM Queue WHERE status = 2 AND idempotency_key IS NULL"),
             3);
    QCOMPARE(db.integer("SELECT count(*) FROM Queue WHERE status = 2"), 1300);
    for (const auto& a : undone.result.applied) {
        if (a.note.empty())
            continue;
        QVERIFY(contains(a.note, "without its idempotency key"));
        QVERIFY(!a.after.idempotencyKey);
    }
    // On record: complete, and the prune is no longer undoable.
    const auto all = op.records();
    QCOMPARE(all.size(), std::size_t(2));
    QCOMPARE(all[0].undoneBy, undone.recordId);
    QVERIFY(all[1].complete);
    QCOMPARE(all[1].applied.size(), std::size_t(1300));
    QVERIFY(!op.lastUndoable());
}

void TstOperator::undoSkipsWhatCannotBeRestoredAndGoesOn() {
    auto q = Queue::create(path());
    fillDone(*q, 40);
    Operator op(*q, "test", AuditLog(auditDir()));
    const auto pruned = op.run(op.planPrune(true, std::nullopt));
    QCOMPARE(pruned.applied(), std::size_t(40));
    // A message with one of the pruned ids exists again (written by hand).
    const std::string back = pruned.result.applied[5].before.messageId;
    {
        Db db(path());
        db.exec("INSERT INTO Queue (data, message_id, status, in_time, claim_id) VALUES "
                "('x', '" +
                back + "', 0, 1, 0)");
    }
    auto rec = op.lastUndoable();
    QVERIFY(rec);
    lq::core::Plan none;
    const auto undone = op.undo(*rec);
    QCOMPARE(undone.applied(), std::size_t(39));
    QCOMPARE(undone.skipped(), std::size_t(1));
    QCOMPARE(undone.result.skipped.front().messageId, back);
    QCOMPARE(undone.result.skipped.front().kind, SkipKind::Conflict);
    QVERIFY(!undone.failed());
    QVERIFY(contains(undone.summary(), "skipped 1 (conflict 1)"));
}

void TstOperator::writesRefusedAfterDelete() {
    auto q = Queue::create(path());
    const auto m = q->put("a");
    const auto popped = q->pop();
    QVERIFY(popped);
    Operator op(*q, "test", AuditLog(auditDir()));
    const auto plan = op.planTargets(Action::Retry, {Target{m.messageId, popped->claimId}});
    // Deleted while shown (its side files too, as `rm q.sqlite3*` does).
    for (const char* suffix : {"", "-wal", "-shm"})
        std::remove((path() + suffix).c_str());
    const auto r = op.run(plan);
    QVERIFY(r.failed());
    QCOMPARE(*r.result.errorKind, ErrorKind::FileChanged);
    QCOMPARE(r.applied(), std::size_t(0));
    QCOMPARE(r.notAttempted(), std::size_t(1));
    QVERIFY(!std::filesystem::exists(path()));
    const auto err = catchError([&] { op.enqueue("b", std::nullopt); });
    QVERIFY(err);
    QCOMPARE(err->kind(), ErrorKind::FileChanged);
    const auto undo = catchError([&] { q->transaction(); });
    QVERIFY(undo);
    QCOMPARE(undo->kind(), ErrorKind::FileChanged);
    QVERIFY(!std::filesystem::exists(path())); // nothing recreated it
    QVERIFY(!q->fileChange().empty());
}

void TstOperator::writesRefusedAfterReplace() {
    auto q = Queue::create(path());
    const auto m = q->put("a");
    const auto popped = q->pop();
    QVERIFY(popped);
    q->put("keep the writer connection open");
    // Another queue is moved over the path (an atomic save, a restore).
    const std::string other = toStd(m_dir->filePath(QStringLiteral("other.sqlite3")));
    {
        auto o = Queue::create(other);
        o->put("other");
    }
    for (const char* suffix : {"-wal", "-shm"})
        std::remove((path() + suffix).c_str());
    QCOMPARE(std::rename(other.c_str(), path().c_str()), 0);
    const QByteArray before = sha256(path());
    Operator op(*q, "test", AuditLog(auditDir()));
    const auto r = op.run(op.planTargets(Action::Retry, {Target{m.messageId, popped->claimId}}));
    QVERIFY(r.failed());
    QCOMPARE(*r.result.errorKind, ErrorKind::FileChanged);
    QVERIFY(contains(r.result.error, "replaced"));
    const auto err = catchError([&] { q->vacuum(); });
    QVERIFY(err);
    QCOMPARE(err->kind(), ErrorKind::FileChanged);
    QCOMPARE(sha256(path()), before);
}

void TstOperator::auditRecordIsExact() {
    FakeClock clock;
    auto q = Queue::create(path(), std::nullopt, optionsWith(clock.clock()));
    for (int i = 0; i < 5; ++i)
        q->put("m" + std::to_string(i));
    std::vector<std::string> locked;
    for (int i = 0; i < 3; ++i)
        locked.push_back(q->pop()->messageId);
    clock.advance(600 * kNsPerSecond);
    Operator op(*q, "test", AuditLog(auditDir()));
    const auto plan = op.planRetryExpired(std::chrono::seconds(300));
    QCOMPARE(plan.count(), std::size_t(3));
    const auto r = op.run(plan);
    QCOMPARE(r.applied(), std::size_t(3));

    const auto recs = op.records();
    QCOMPARE(recs.size(), std::size_t(1));
    const AuditEntry& e = recs.front();
    QCOMPARE(e.actionLabel(), std::string("retry-expired"));
    QCOMPARE(e.id, r.recordId);
    const passwd* pw = getpwuid(geteuid());
    QVERIFY(pw);
    QCOMPARE(e.user, std::string(pw->pw_name));
    QVERIFY(!e.host.empty());
    QCOMPARE(e.tool, std::string("test"));
    QVERIFY(std::filesystem::path(e.queuePath).is_absolute());
    struct stat st {};
    QCOMPARE(::stat(path().c_str(), &st), 0);
    QCOMPARE(e.device, std::uint64_t(st.st_dev));
    QCOMPARE(e.inode, std::uint64_t(st.st_ino));
    QVERIFY(e.cutoff);
    QCOMPARE(*e.cutoff, *clock.t - 300 * kNsPerSecond);
    const auto filter = lq::core::Json::parse(e.filter);
    QCOMPARE(filter["states"].toArray().size(), std::size_t(1));
    QVERIFY(filter["stuck_only"].toBool());
    QVERIFY(e.complete);
    QCOMPARE(e.applied.size(), std::size_t(3));
    for (const auto& row : e.applied) {
        QCOMPARE(row.before.state, State::Locked);
        QCOMPARE(row.after.state, State::Ready);
        QVERIFY(std::find(locked.begin(), locked.end(), row.before.messageId) != locked.end());
    }
}

void TstOperator::chunksAreRecordedBeforeTheyCommit() {
    // A run stopped after two of five chunks (as a crash between chunks
    // would): the log holds exactly the two committed chunks.
    auto q = Queue::create(path());
    fillDone(*q, 50);
    AuditLog log(auditDir());
    AuditEntry head;
    head.id = AuditLog::newId();
    head.queuePath = path();
    head.action = Action::Prune;
    head.tool = "test";
    lq::core::ActionOptions o;
    o.chunkSize = 10;
    o.beforeCommit = [&](const lq::core::ActionResult& chunk, std::size_t index) {
        if (index == 2)
            throw lq::core::Error(ErrorKind::Io, path(), "simulated crash before chunk 3");
        // The line is on disk while the chunk's transaction is still open.
        log.appendChunk(head, index, chunk);
        QCOMPARE(log.entries(path()).front().applied.size(), (index + 1) * 10);
    };
    const auto targets = q->targetsFor(stateFilter({State::Done}));
    const auto r = q->apply(Action::Prune, targets, o);
    QCOMPARE(r.applied.size(), std::size_t(20));
    QCOMPARE(r.notAttempted, std::size_t(30));
    QVERIFY(r.errorKind);
    QCOMPARE(q->storedCount(), 30);
    const auto recs = log.entries(path());
    QCOMPARE(recs.size(), std::size_t(1));
    QVERIFY(!recs.front().complete);
    QCOMPARE(recs.front().applied.size(), std::size_t(20));
    // An incomplete record is still undoable, and undo restores exactly it.
    Operator op(*q, "test", log);
    const auto last = op.lastUndoable();
    QVERIFY(last);
    QCOMPARE(op.undo(*last).applied(), std::size_t(20));
    QCOMPARE(q->storedCount(), 50);
}

void TstOperator::unwritableAuditLogAppliesNothing() {
    auto q = Queue::create(path());
    fillDone(*q, 12);
    // The audit folder's path is taken by a regular file: nothing can be recorded.
    const std::string blocked = toStd(m_dir->filePath(QStringLiteral("blocked")));
    QFile f(fromStd(blocked));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    Operator op(*q, "test", AuditLog(blocked));
    auto plan = op.planPrune(true, std::nullopt);
    plan.chunkSize = 5;
    const auto r = op.run(plan);
    QVERIFY(r.failed());
    QCOMPARE(*r.result.errorKind, ErrorKind::Io);
    QCOMPARE(r.applied(), std::size_t(0));
    QCOMPARE(r.notAttempted(), std::size_t(12));
    QVERIFY(contains(r.result.error, "audit log"));
    QCOMPARE(q->storedCount(), 12); // nothing unrecorded was applied
}

void TstOperator::nestedGuardRollsBackItsOwnWork() {
    // Today's fault: an inner guard destroyed without commit() rolled
    // nothing back, and the outer commit committed the inner work.
    auto q = Queue::create(path());
    {
        auto outer = q->transaction();
        q->put("outer");
        {
            auto inner = q->transaction();
            q->put("inner, abandoned");
        }
        {
            auto inner = q->transaction();
            q->put("inner, committed");
            inner->commit();
        }
        outer->commit();
    }
    Db db(path(), true);
    QCOMPARE(db.integer("SELECT count(*) FROM Queue"), 2);
    QCOMPARE(db.integer("SELECT count(*) FROM Queue WHERE data = 'inner, abandoned'"), 0);
    QCOMPARE(db.integer("SELECT count(*) FROM Queue WHERE data = 'inner, committed'"), 1);
}

void TstOperator::oldOneLineRecordsStillUndo() {
    // A log written by an earlier version: one line per action, undo
    // entries pairing with the newest open one.
    auto q = Queue::create(path());
    const auto m = q->put("a");
    const auto popped = q->pop();
    QVERIFY(q->markFailed(m.messageId, popped->claimId));
    AuditLog log(auditDir());
    const auto failed = q->get(m.messageId);
    lq::core::Message before = *popped;
    const std::string line =
        "{\"when\":1,\"queue\":\"" + path() +
        "\",\"action\":\"mark-failed\",\"undo\":false,\"user\":\"old\",\"tool\":\"lqctl\","
        "\"skipped\":0,\"rows\":[{\"before\":" +
        lq::core::messageToJson(before).dump() +
        ",\"after\":" + lq::core::messageToJson(*failed).dump() + "}]}\n";
    std::filesystem::create_directories(auditDir());
    FILE* fp = std::fopen(log.logPathFor(path()).c_str(), "w");
    QVERIFY(fp);
    std::fputs(line.c_str(), fp);
    std::fclose(fp);
    Operator op(*q, "test", log);
    const auto last = op.lastUndoable();
    QVERIFY(last);
    QCOMPARE(last->id, std::string("v1-1"));
    const auto r = op.undo(*last);
    QCOMPARE(r.applied(), std::size_t(1));
    QCOMPARE(q->get(m.messageId)->state, State::Locked);
    QVERIFY(!op.lastUndoable());
}

void TstOperator::undoOnAFileWithTimesInSeconds() {
    // Found by the jobs-lease stress run: run_at is stored as REAL seconds,
    // the ns written did not round-trip, and undo of Release / Reschedule
    // skipped every row as "moved on". The system clock, as in production.
    const std::string p = copyFixture(*m_dir, QStringLiteral("seed-jobs-leases.sqlite3"));
    auto q = Queue::open(p);
    Operator op(*q, "test", AuditLog(auditDir()));
    for (Action a : {Action::Release, Action::Reschedule}) {
        std::vector<Target> targets;
        for (const auto& m : allRows(*q))
            targets.push_back({m.messageId, m.token});
        QVERIFY(targets.size() >= 10);
        auto plan = op.planTargets(a, targets);
        plan.delay = std::chrono::nanoseconds(90'123'456'789);
        const auto applied = op.run(plan);
        QCOMPARE(applied.applied(), targets.size());
        const auto undone = op.undo(*op.lastUndoable());
        QVERIFY2(undone.skipped() == 0, undone.summary().c_str());
        QCOMPARE(undone.applied(), targets.size());
    }
}

void TstOperator::groupedNumbers() {
    using lq::core::groupedNumber;
    QCOMPARE(groupedNumber(0), std::string("0"));
    QCOMPARE(groupedNumber(84), std::string("84"));
    QCOMPARE(groupedNumber(999), std::string("999"));
    QCOMPARE(groupedNumber(1000), std::string("1,000"));
    QCOMPARE(groupedNumber(3245), std::string("3,245"));
    QCOMPARE(groupedNumber(1234567), std::string("1,234,567"));
    QCOMPARE(groupedNumber(-1234), std::string("-1,234"));
    QCOMPARE(groupedNumber(INT64_MIN), std::string("-9,223,372,036,854,775,808"));
}

QTEST_GUILESS_MAIN(TstOperator)
#include "tst_operator.moc"
