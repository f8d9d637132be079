// SPDX-License-Identifier: MIT
// Pause and resume of a named queue where the library reads a pause from the
// file (Solid Queue's solid_queue_pauses, River's river_queue.paused_at):
// the exact rows written, the audit record, undo back to the same rows, the
// refusal of an undo whose row moved on, and the refusal on a format that
// stores no pause.
#include "core/audit.h"
#include "core/operator.h"
#include "testutil.h"

#include <QObject>
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

/// Every row of every table, in rowid order: the file's contents as SQL
/// sees them. `skipSequence` leaves out sqlite_sequence (AUTOINCREMENT's
/// high-water mark, which a deleted row never lowers).
std::string contents(const std::string& path, bool skipSequence = false) {
    Db db(path, true);
    std::string out;
    for (const auto& t : db.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY "
                                 "name")) {
        if (skipSequence && t[0] == "sqlite_sequence")
            continue;
        out += "== " + t[0] + "\n";
        for (const auto& r : db.rows("SELECT * FROM \"" + t[0] + "\""))
            for (const auto& c : r)
                out += c + "|";
        out += "\n";
    }
    return out;
}

const char* kSqPauses = "SELECT id, queue_name, created_at FROM solid_queue_pauses ORDER BY id";
const char* kRiverQueues = "SELECT name, paused_at, updated_at FROM river_queue ORDER BY name";

} // namespace

class TstPause : public QObject {
    Q_OBJECT
private slots:
    void init() { QVERIFY(m_dir.isValid()); }
    void solidQueueResumeAndUndo();
    void solidQueuePauseAndUndo();
    void solidQueueUndoRefusedOnceChanged();
    void riverPauseResumeAndUndo();
    void riverUndoRefusedOnceChanged();
    void refusedWithoutPauses();

private:
    std::unique_ptr<Queue> open(const std::string& path) {
        return Queue::open(path, optionsWith(m_clock.clock()));
    }
    AuditLog log() const { return AuditLog(toStd(m_dir.path() + QStringLiteral("/audit"))); }

    QTemporaryDir m_dir;
    FakeClock m_clock;
};

void TstPause::solidQueueResumeAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, QStringLiteral("formats/solid-queue.sqlite3"));
    const std::string before = contents(path);
    auto q = open(path);
    QCOMPARE(lq::core::QueueFormat::of(q->info()).whyNoPause(q->info()), std::string());
    QCOMPARE(q->pausedQueues().size(), std::size_t(1));
    QCOMPARE(q->pausedQueues()[0].queue, std::string("reports"));
    Operator op(*q, "test", log());

    const auto r = op.resume("reports");
    QCOMPARE(r.applied(), std::size_t(1));
    QVERIFY(!r.failed());
    QVERIFY(Db(path, true).rows(kSqPauses).empty());
    QVERIFY(q->pausedQueues().empty());
    // On record as "resume", with the row it deleted.
    const auto rec = op.records().back();
    QCOMPARE(rec.actionLabel(), std::string("resume"));
    QCOMPARE(rec.applied.size(), std::size_t(1));
    QCOMPARE(rec.applied[0].before.messageId, std::string("reports"));
    QCOMPARE(rec.applied[0].before.statusText, std::string("paused"));
    QCOMPARE(rec.applied[0].after.statusText, std::string("running"));
    QVERIFY(rec.applied[0].before.formatRow->find("2026-11-30 11:59:00.012171") !=
            std::string::npos);

    // Resuming a running queue changes nothing and says why.
    const auto again = op.resume("reports");
    QCOMPARE(again.applied(), std::size_t(0));
    QCOMPARE(again.skipped(), std::size_t(1));
    QCOMPARE(again.result.skipped[0].reason, std::string("already not paused"));

    // Undo puts the very row back: same id, same created_at.
    const auto last = op.lastUndoable();
    QVERIFY(last);
    QCOMPARE(last->id, rec.id);
    const auto u = op.undo(*last);
    QCOMPARE(u.applied(), std::size_t(1));
    QCOMPARE(Db(path, true).rows(kSqPauses),
             (Rows{{"1", "reports", "2026-11-30 11:59:00.012171"}}));
    q.reset();
    QCOMPARE(contents(path), before);
}

void TstPause::solidQueuePauseAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, QStringLiteral("formats/solid-queue.sqlite3"));
    const std::string before = contents(path, true);
    auto q = open(path);
    Operator op(*q, "test", log());
    // SolidQueue::Queue#pause: a solid_queue_pauses row, created_at as Rails
    // writes a datetime(6) (no fraction at whole seconds).
    const auto r = op.pause("default");
    QCOMPARE(r.applied(), std::size_t(1));
    QCOMPARE(Db(path, true).rows(kSqPauses), (Rows{{"1", "reports", "2026-11-30 11:59:00.012171"},
                                                   {"2", "default", "2023-11-14 22:13:20"}}));
    const auto paused = q->pausedQueues();
    QCOMPARE(paused.size(), std::size_t(2));
    QCOMPARE(paused[0].queue, std::string("default"));
    QCOMPARE(paused[0].since, std::optional<TimeNs>(kT0));
    QCOMPARE(op.records().back().actionLabel(), std::string("pause"));

    const auto twice = op.pause("default");
    QCOMPARE(twice.applied(), std::size_t(0));
    QCOMPARE(twice.result.skipped[0].kind, SkipKind::NotApplicable);
    QCOMPARE(twice.result.skipped[0].reason,
             std::string("already paused since 2023-11-14T22:13:20.000000000Z"));
    // A name no job carries is not paused (a typo would pause nothing).
    const auto typo = op.pause("defualt");
    QCOMPARE(typo.applied(), std::size_t(0));
    QCOMPARE(typo.result.skipped[0].kind, SkipKind::NotApplicable);

    const auto u = op.undo(*op.lastUndoable());
    QCOMPARE(u.applied(), std::size_t(1));
    QCOMPARE(op.records().back().actionLabel(), std::string("undo"));
    QVERIFY(!op.lastUndoable()); // the pause was undone; nothing else to undo
    q.reset();
    // Every row as it was; only AUTOINCREMENT's high-water mark stays at 2.
    QCOMPARE(contents(path, true), before);
}

void TstPause::solidQueueUndoRefusedOnceChanged() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, QStringLiteral("formats/solid-queue.sqlite3"));
    auto q = open(path);
    Operator op(*q, "test", log());
    QCOMPARE(op.pause("mailers").applied(), std::size_t(1));
    // The app resumed and paused it again meanwhile: another row.
    Db(path).exec("DELETE FROM solid_queue_pauses WHERE queue_name = 'mailers';"
                  "INSERT INTO solid_queue_pauses (queue_name, created_at) VALUES ('mailers', "
                  "'2023-11-15 08:00:00')");
    const auto u = op.undo(*op.lastUndoable());
    QCOMPARE(u.applied(), std::size_t(0));
    QCOMPARE(u.skipped(), std::size_t(1));
    QCOMPARE(u.result.skipped[0].kind, SkipKind::Changed);
    QCOMPARE(
        u.result.skipped[0].reason,
        std::string("changed since the action: now paused since 2023-11-15T08:00:00.000000000Z"));
    QCOMPARE(Db(path, true)
                 .integer("SELECT count(*) FROM solid_queue_pauses WHERE queue_name = "
                          "'mailers'"),
             1);
}

void TstPause::riverPauseResumeAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, QStringLiteral("formats/river-v7.sqlite3"));
    const std::string before = contents(path);
    auto q = open(path);
    QCOMPARE(lq::core::QueueFormat::of(q->info()).whyNoPause(q->info()), std::string());
    QVERIFY(q->pausedQueues().empty());
    Operator op(*q, "test", log());
    m_clock.advance(123'000'000); // River writes milliseconds
    // QueuePause: paused_at and updated_at to now, as River's timeString.
    QCOMPARE(op.pause("email").applied(), std::size_t(1));
    QCOMPARE(Db(path, true).rows(kRiverQueues),
             (Rows{{"billing", "NULL", "2026-11-30 08:00:00"},
                   {"default", "NULL", "2026-11-30 08:00:00"},
                   {"email", "2023-11-14 22:13:20.123", "2023-11-14 22:13:20.123"}}));
    QCOMPARE(q->pausedQueues().size(), std::size_t(1));
    QCOMPARE(q->pausedQueues()[0].since, std::optional<TimeNs>(kT0 + 123'000'000));
    // QueueResume a second later: paused_at NULL, updated_at now.
    m_clock.advance(kNsPerSecond);
    QCOMPARE(op.resume("email").applied(), std::size_t(1));
    QCOMPARE(Db(path, true).rows(kRiverQueues)[2],
             (std::vector<std::string>{"email", "NULL", "2023-11-14 22:13:21.123"}));
    // Undo of the resume: paused as it was; then undo of the pause.
    QCOMPARE(op.undo(*op.lastUndoable()).applied(), std::size_t(1));
    QCOMPARE(
        Db(path, true).rows(kRiverQueues)[2],
        (std::vector<std::string>{"email", "2023-11-14 22:13:20.123", "2023-11-14 22:13:20.123"}));
    QCOMPARE(op.undo(*op.lastUndoable()).applied(), std::size_t(1));
    // A queue River has no row for is not River's to pause.
    const auto none = op.pause("nosuch");
    QCOMPARE(none.applied(), std::size_t(0));
    QVERIFY(none.result.skipped[0].reason.find("no river_queue row") != std::string::npos);
    q.reset();
    QCOMPARE(contents(path), before);
}

void TstPause::riverUndoRefusedOnceChanged() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, QStringLiteral("formats/river-v7.sqlite3"));
    auto q = open(path);
    Operator op(*q, "test", log());
    QCOMPARE(op.pause("billing").applied(), std::size_t(1));
    Db(path).exec("UPDATE river_queue SET paused_at = NULL WHERE name = 'billing'");
    const auto u = op.undo(*op.lastUndoable());
    QCOMPARE(u.applied(), std::size_t(0));
    QCOMPARE(u.result.skipped[0].reason, std::string("changed since the action: now not paused"));
}

void TstPause::refusedWithoutPauses() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, QStringLiteral("formats/laravel-database.sqlite3"));
    const QByteArray sum = sha256(path);
    auto q = open(path);
    const auto& format = lq::core::QueueFormat::of(q->info());
    QVERIFY(!format.whyNot(Action::Pause, q->info()).empty());
    QCOMPARE(format.whyNot(Action::Resume, q->info()), format.whyNoPause(q->info()));
    Operator op(*q, "test", log());
    const auto r = op.pause("default");
    QVERIFY(r.failed());
    QCOMPARE(*r.result.errorKind, ErrorKind::Unsupported);
    QCOMPARE(r.applied(), std::size_t(0));
    QVERIFY(op.records().empty());
    q.reset();
    QCOMPARE(sha256(path), sum);
}

QTEST_GUILESS_MAIN(TstPause)
#include "tst_pause.moc"
