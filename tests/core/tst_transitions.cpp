// SPDX-License-Identifier: MIT
// Every transition and guard of the litequeue 0.14 API (docs/FORMATS.md#litequeue) on a fresh
// queue with a clock the test moves.

#include "testutil.h"

#include <QTest>

#include <set>

using namespace lq::core;
using namespace lqtest;

namespace {
constexpr TimeNs kSec = kNsPerSecond;
}

class TstTransitions : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void createdSchema();
    void putPopDone();
    void transitions_data();
    void transitions();
    void guards_data();
    void guards();
    void popAgainIncrementsClaim();
    void unknownStatus();
    void retryExpired_data();
    void retryExpired();
    void listLockedAndFailed();
    void peekIsSmallestReady();
    void counts();
    void idsAreMonotonicUuidV7();
    void transactionGuards();

private:
    /// A message brought into `setup`: "ready", "locked", "done", "failed",
    /// "relocked" (popped, retried, popped again: claim 2).
    Message messageIn(const QString& setup);
    Message row(const std::string& id);
    std::string path() const { return toStd(m_dir->filePath(QStringLiteral("q.sqlite3"))); }

    std::unique_ptr<QTemporaryDir> m_dir;
    FakeClock m_clock;
    std::unique_ptr<Queue> m_q;
};

void TstTransitions::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_clock = FakeClock{};
    m_q = Queue::create(path(), std::nullopt, optionsWith(m_clock.clock()));
    QVERIFY(m_q);
}

void TstTransitions::cleanup() {
    m_q.reset();
    m_dir.reset();
}

Message TstTransitions::row(const std::string& id) {
    auto m = m_q->get(id);
    if (!m)
        throw std::runtime_error("message vanished: " + id);
    return *m;
}

Message TstTransitions::messageIn(const QString& setup) {
    const Message m = m_q->put("payload of " + toStd(setup));
    m_clock.advance(kSec);
    if (setup == QLatin1String("ready"))
        return row(m.messageId);
    auto p = m_q->pop();
    if (!p || p->messageId != m.messageId)
        throw std::runtime_error("pop did not return the put message");
    m_clock.advance(kSec);
    if (setup == QLatin1String("done"))
        m_q->done(m.messageId, p->claimId);
    else if (setup == QLatin1String("failed"))
        m_q->markFailed(m.messageId, p->claimId);
    else if (setup == QLatin1String("relocked")) {
        m_q->retry(m.messageId, p->claimId);
        m_clock.advance(kSec);
        m_q->pop();
    }
    return row(m.messageId);
}

void TstTransitions::createdSchema() {
    m_q.reset(); // the schema as a fresh file holds it
    QCOMPARE(userVersion(path()), 3);
    const std::vector<std::string> expected{
        "data",      "message_id", "status",          "in_time",
        "lock_time", "done_time",  "idempotency_key", "claim_id"};
    QCOMPARE(columnsOf(path(), "Queue"), expected);
    Db db(path(), true);
    QCOMPARE(db.text("PRAGMA journal_mode"), std::string("wal"));
    std::set<std::string> names;
    for (const auto& r : db.rows("SELECT name FROM sqlite_master WHERE type = 'index'"))
        names.insert(r.at(0));
    QVERIFY(names.count("Queue_message_id_unique_idx"));
    QVERIFY(names.count("Queue_status_message_id_idx"));
    QVERIFY(names.count("Queue_idempotency_key_unique_idx"));
    // No maxsize: no trigger, and nothing but the queue table.
    QCOMPARE(db.integer("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'"), 0);
    QCOMPARE(db.integer("SELECT count(*) FROM sqlite_master WHERE type IN ('table', 'view')"), 1);

    auto q = Queue::open(path());
    QCOMPARE(q->info().format, lq::core::QueueFormat::byId("litequeue-0.14"));
    QCOMPARE(q->info().userVersion, 3);
    QVERIFY(q->info().hasClaimId);
    QVERIFY(q->info().hasIdempotencyKey);
    QVERIFY(!q->readOnly());
    QVERIFY(!q->maxsize());
}

void TstTransitions::putPopDone() {
    const TimeNs t0 = m_clock.now();
    const Message m = m_q->put("hello");
    QCOMPARE(m.state, State::Ready);
    QCOMPARE(m.data, std::string("hello"));
    QCOMPARE(m.inTime, std::optional<TimeNs>(t0));
    QVERIFY(!m.lockTime);
    QVERIFY(!m.doneTime);
    QCOMPARE(m.claimId, 0);
    QVERIFY(!m.idempotencyKey);
    QCOMPARE(m.messageId.size(), std::size_t(36));

    m_clock.advance(5 * kSec);
    const auto p = m_q->pop();
    QVERIFY(p);
    QCOMPARE(p->messageId, m.messageId);
    QCOMPARE(p->state, State::Locked);
    QCOMPARE(p->claimId, 1);
    QCOMPARE(p->token, 1);
    QCOMPARE(p->inTime, std::optional<TimeNs>(t0));
    QCOMPARE(p->lockTime, std::optional<TimeNs>(t0 + 5 * kSec));
    QVERIFY(!p->doneTime);
    QVERIFY(!m_q->pop()); // nothing else is READY

    m_clock.advance(2 * kSec);
    QVERIFY(m_q->done(m.messageId, 1));
    const Message d = row(m.messageId);
    QCOMPARE(d.state, State::Done);
    QCOMPARE(d.claimId, 1);
    QCOMPARE(d.inTime, std::optional<TimeNs>(t0));
    QCOMPARE(d.lockTime, std::optional<TimeNs>(t0 + 5 * kSec));
    QCOMPARE(d.doneTime, std::optional<TimeNs>(t0 + 7 * kSec));
    QCOMPARE(d.processingNs(), std::optional<TimeNs>(2 * kSec));
    QCOMPARE(d.waitNs(), std::optional<TimeNs>(5 * kSec));

    // The file holds integer ns and the litequeue status codes.
    Db db(path(), true);
    const auto r = db.rows("SELECT status, typeof(in_time), in_time, lock_time, done_time, claim_id"
                           " FROM Queue WHERE message_id = '" +
                           m.messageId + "'");
    QCOMPARE(r.size(), std::size_t(1));
    QCOMPARE(r[0][0], std::string("2"));
    QCOMPARE(r[0][1], std::string("integer"));
    QCOMPARE(r[0][2], std::to_string(t0));
    QCOMPARE(r[0][3], std::to_string(t0 + 5 * kSec));
    QCOMPARE(r[0][4], std::to_string(t0 + 7 * kSec));
    QCOMPARE(r[0][5], std::string("1"));
}

void TstTransitions::transitions_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<State>("to");
    QTest::addColumn<bool>("doneTimeSet");
    QTest::newRow("done: LOCKED -> DONE") << QStringLiteral("done") << State::Done << true;
    QTest::newRow("mark_failed: LOCKED -> FAILED")
        << QStringLiteral("markFailed") << State::Failed << true;
    QTest::newRow("retry: LOCKED -> READY") << QStringLiteral("retry") << State::Ready << false;
}

void TstTransitions::transitions() {
    QFETCH(QString, op);
    QFETCH(State, to);
    QFETCH(bool, doneTimeSet);

    const Message locked = messageIn(QStringLiteral("locked"));
    QCOMPARE(locked.state, State::Locked);
    m_clock.advance(3 * kSec);
    const TimeNs now = m_clock.now();
    bool ok = false;
    if (op == QLatin1String("done"))
        ok = m_q->done(locked.messageId, locked.claimId);
    else if (op == QLatin1String("markFailed"))
        ok = m_q->markFailed(locked.messageId, locked.claimId);
    else
        ok = m_q->retry(locked.messageId, locked.claimId);
    QVERIFY(ok);

    const Message after = row(locked.messageId);
    QCOMPARE(after.state, to);
    QCOMPARE(after.rawStatus, static_cast<std::int64_t>(to));
    QCOMPARE(after.doneTime, doneTimeSet ? std::optional<TimeNs>(now) : std::nullopt);
    // lock_time and the claim are kept in every case (retry included).
    QCOMPARE(after.lockTime, locked.lockTime);
    QCOMPARE(after.claimId, locked.claimId);
    QCOMPARE(after.inTime, locked.inTime);
    QCOMPARE(after.data, locked.data);
    // The same call again finds another state: refused.
    if (op == QLatin1String("done"))
        QVERIFY(!m_q->done(locked.messageId, locked.claimId));
    else if (op == QLatin1String("markFailed"))
        QVERIFY(!m_q->markFailed(locked.messageId, locked.claimId));
    else
        QVERIFY(!m_q->retry(locked.messageId, locked.claimId));
}

void TstTransitions::guards_data() {
    QTest::addColumn<QString>("setup");
    QTest::addColumn<QString>("op");
    QTest::addColumn<int>("claimDelta"); // added to the current claim
    QTest::addColumn<bool>("missing");

    const QString ops[] = {QStringLiteral("done"), QStringLiteral("markFailed"),
                           QStringLiteral("retry")};
    for (const QString& op : ops) {
        const QByteArray o = op.toLatin1();
        QTest::addRow("%s on READY", o.constData()) << QStringLiteral("ready") << op << 0 << false;
        QTest::addRow("%s on DONE", o.constData()) << QStringLiteral("done") << op << 0 << false;
        QTest::addRow("%s on FAILED", o.constData())
            << QStringLiteral("failed") << op << 0 << false;
        QTest::addRow("%s with stale claim", o.constData())
            << QStringLiteral("relocked") << op << -1 << false;
        QTest::addRow("%s with future claim", o.constData())
            << QStringLiteral("locked") << op << 1 << false;
        QTest::addRow("%s with claim 0 on LOCKED", o.constData())
            << QStringLiteral("locked") << op << -1 << false;
        QTest::addRow("%s on missing id", o.constData())
            << QStringLiteral("locked") << op << 0 << true;
    }
}

void TstTransitions::guards() {
    QFETCH(QString, setup);
    QFETCH(QString, op);
    QFETCH(int, claimDelta);
    QFETCH(bool, missing);

    const Message before = messageIn(setup);
    m_clock.advance(10 * kSec); // a wrongful write would show this time
    const std::string id =
        missing ? std::string("01900000-0000-7000-8000-000000000000") : before.messageId;
    const std::int64_t claim = before.claimId + claimDelta;
    bool ok = true;
    if (op == QLatin1String("done"))
        ok = m_q->done(id, claim);
    else if (op == QLatin1String("markFailed"))
        ok = m_q->markFailed(id, claim);
    else
        ok = m_q->retry(id, claim);
    QVERIFY(!ok);

    const Message after = row(before.messageId);
    QCOMPARE(after.state, before.state);
    QCOMPARE(after.claimId, before.claimId);
    QCOMPARE(after.lockTime, before.lockTime);
    QCOMPARE(after.doneTime, before.doneTime);
    QCOMPARE(after.inTime, before.inTime);
    QCOMPARE(m_q->storedCount(), 1);
}

void TstTransitions::popAgainIncrementsClaim() {
    const Message m = m_q->put("x");
    for (std::int64_t claim = 1; claim <= 4; ++claim) {
        m_clock.advance(kSec);
        const auto p = m_q->pop();
        QVERIFY(p);
        QCOMPARE(p->messageId, m.messageId);
        QCOMPARE(p->claimId, claim);
        QCOMPARE(p->lockTime, std::optional<TimeNs>(m_clock.now()));
        QVERIFY(!p->doneTime);
        // The previous delivery's claim is stale now.
        if (claim > 1)
            QVERIFY(!m_q->done(m.messageId, claim - 1));
        QVERIFY(m_q->retry(m.messageId, claim));
        const Message r = row(m.messageId);
        QCOMPARE(r.state, State::Ready);
        QCOMPARE(r.claimId, claim);
        QCOMPARE(r.lockTime, p->lockTime);
        QVERIFY(!r.doneTime);
    }
}

void TstTransitions::unknownStatus() {
    const Message a = m_q->put("odd one");
    const Message b = m_q->put("normal");
    QVERIFY(a.messageId < b.messageId);
    {
        Db db(path());
        db.exec("UPDATE Queue SET status = 7 WHERE message_id = '" + a.messageId + "'");
    }
    const Message odd = row(a.messageId);
    QCOMPARE(odd.state, State::Unknown);
    QCOMPARE(odd.rawStatus, 7);
    QCOMPARE(QByteArray(stateName(State::Unknown)), QByteArray("UNKNOWN"));

    const Counts c = m_q->counts();
    QCOMPARE(c.unknown, 1);
    QCOMPARE(c.ready, 1);
    QCOMPARE(c.stored, 2);
    QCOMPARE(m_q->readyCount(), 1);

    // Actions skip it with a reason; the library calls refuse it.
    QVERIFY(!refusalReason(Action::Retry, odd).empty());
    QVERIFY(!refusalReason(Action::MarkFailed, odd).empty());
    for (Action act : {Action::Retry, Action::MarkFailed, Action::Prune}) {
        const ActionResult r = m_q->apply(act, {Target{a.messageId, odd.token}});
        QVERIFY2(r.applied.empty(), actionName(act));
        QCOMPARE(r.skipped.size(), std::size_t(1));
        QCOMPARE(r.skipped[0].messageId, a.messageId);
        QVERIFY(!r.skipped[0].reason.empty());
    }
    QVERIFY(!m_q->done(a.messageId, 0));
    QVERIFY(!m_q->markFailed(a.messageId, 0));
    QVERIFY(!m_q->retry(a.messageId, 0));
    m_clock.advance(3600 * kSec);
    QCOMPARE(m_q->retryExpired(std::chrono::seconds(0)), 0);
    QCOMPARE(m_q->prune(), 0);

    // pop and peek skip it.
    QCOMPARE(m_q->peek().value().messageId, b.messageId);
    const auto p = m_q->pop();
    QVERIFY(p);
    QCOMPARE(p->messageId, b.messageId);
    QVERIFY(!m_q->pop());
    QVERIFY(!m_q->peek());

    Db db(path(), true);
    QCOMPARE(db.integer("SELECT status FROM Queue WHERE message_id = '" + a.messageId + "'"), 7);
}

void TstTransitions::retryExpired_data() {
    QTest::addColumn<double>("threshold");
    QTest::addColumn<int>("expected");
    // Locks at t0, t0+1000 s, t0+1900 s; now = t0+2000 s. Rule: lock_time < now - t.
    QTest::newRow("3000 s: none") << 3000.0 << 0;
    QTest::newRow("1500 s: oldest") << 1500.0 << 1;
    QTest::newRow("1000 s: boundary is not expired") << 1000.0 << 1;
    QTest::newRow("999.5 s") << 999.5 << 2;
    QTest::newRow("50 s") << 50.0 << 3;
    QTest::newRow("0 s") << 0.0 << 3;
}

void TstTransitions::retryExpired() {
    QFETCH(double, threshold);
    QFETCH(int, expected);

    const TimeNs t0 = m_clock.now();
    std::vector<Message> popped;
    for (int i = 0; i < 4; ++i)
        m_q->put("m" + std::to_string(i));
    for (TimeNs at : {t0, t0 + 1000 * kSec, t0 + 1900 * kSec}) {
        m_clock.set(at);
        popped.push_back(m_q->pop().value());
    }
    m_clock.set(t0 + 2000 * kSec);

    QCOMPARE(
        static_cast<int>(m_q->listLocked(std::chrono::nanoseconds(secondsToNs(threshold))).size()),
        expected);
    QCOMPARE(m_q->retryExpired(std::chrono::nanoseconds(secondsToNs(threshold))), expected);
    QCOMPARE(m_q->lockedCount(), 3 - expected);
    QCOMPARE(m_q->readyCount(), 1 + expected);
    for (int i = 0; i < 3; ++i) {
        const Message r = row(popped[static_cast<std::size_t>(i)].messageId);
        QCOMPARE(r.state, i < expected ? State::Ready : State::Locked);
        QCOMPARE(r.claimId, 1);
        QVERIFY(!r.doneTime);
    }
    // A retried delivery is stale: its worker can no longer finish it.
    if (expected > 0)
        QVERIFY(!m_q->done(popped[0].messageId, 1));
    QCOMPARE(m_q->retryExpired(std::chrono::nanoseconds(secondsToNs(threshold))), 0);
}

void TstTransitions::listLockedAndFailed() {
    std::vector<Message> ms;
    for (int i = 0; i < 5; ++i)
        ms.push_back(m_q->put("m" + std::to_string(i)));
    std::vector<Message> popped;
    for (int i = 0; i < 4; ++i) {
        popped.push_back(m_q->pop().value());
        m_clock.advance(100 * kSec);
    }
    QVERIFY(m_q->markFailed(popped[1].messageId, popped[1].claimId));
    QVERIFY(m_q->done(popped[2].messageId, popped[2].claimId));

    const auto failed = m_q->listFailed();
    QCOMPARE(failed.size(), std::size_t(1));
    QCOMPARE(failed[0].messageId, popped[1].messageId);
    QCOMPARE(failed[0].state, State::Failed);

    // popped[0] locked at t0, popped[3] at t0+300 s; now t0+400 s.
    auto locked = m_q->listLocked(std::chrono::seconds(0));
    QCOMPARE(locked.size(), std::size_t(2));
    std::set<std::string> ids;
    for (const auto& m : locked) {
        QCOMPARE(m.state, State::Locked);
        ids.insert(m.messageId);
    }
    QVERIFY(ids.count(popped[0].messageId));
    QVERIFY(ids.count(popped[3].messageId));
    locked = m_q->listLocked(std::chrono::seconds(200));
    QCOMPARE(locked.size(), std::size_t(1));
    QCOMPARE(locked[0].messageId, popped[0].messageId);
    QVERIFY(m_q->listLocked(std::chrono::seconds(400)).empty());
}

void TstTransitions::peekIsSmallestReady() {
    QVERIFY(!m_q->peek());
    const Message a = m_q->put("a");
    const Message b = m_q->put("b");
    const Message c = m_q->put("c");
    QCOMPARE(m_q->peek().value().messageId, a.messageId);
    QCOMPARE(m_q->peek().value().messageId, a.messageId); // peek changes nothing
    QCOMPARE(row(a.messageId).state, State::Ready);
    QCOMPARE(row(a.messageId).claimId, 0);
    QCOMPARE(m_q->pop().value().messageId, a.messageId);
    QCOMPARE(m_q->peek().value().messageId, b.messageId);
    QCOMPARE(m_q->pop().value().messageId, b.messageId);
    // a retried message goes back to its place in message_id order.
    QVERIFY(m_q->retry(a.messageId, 1));
    QCOMPARE(m_q->peek().value().messageId, a.messageId);
    QCOMPARE(m_q->pop().value().messageId, a.messageId);
    QCOMPARE(m_q->pop().value().messageId, c.messageId);
    QVERIFY(!m_q->peek());
}

void TstTransitions::counts() {
    for (int i = 0; i < 6; ++i)
        m_q->put("m" + std::to_string(i));
    std::vector<Message> popped;
    for (int i = 0; i < 4; ++i)
        popped.push_back(m_q->pop().value());
    QVERIFY(m_q->done(popped[0].messageId, 1));
    QVERIFY(m_q->markFailed(popped[1].messageId, 1));
    // ready 2, locked 2, done 1, failed 1
    QCOMPARE(m_q->readyCount(), 2);
    QCOMPARE(m_q->lockedCount(), 2);
    QCOMPARE(m_q->doneCount(), 1);
    QCOMPARE(m_q->failedCount(), 1);
    QCOMPARE(m_q->activeCount(), 4);
    QCOMPARE(m_q->storedCount(), 6);
    QCOMPARE(m_q->qsize(), 2);
    QVERIFY(!m_q->empty());
    QVERIFY(!m_q->full());

    Counts c = m_q->counts();
    QCOMPARE(c.ready, 2);
    QCOMPARE(c.locked, 2);
    QCOMPARE(c.done, 1);
    QCOMPARE(c.failed, 1);
    QCOMPARE(c.unknown, 0);
    QCOMPARE(c.active(), 4);
    QCOMPARE(c.stored, 6);
    QCOMPARE(c.stuck, 0);
    m_clock.advance(301 * kSec);
    QCOMPARE(m_q->counts().stuck, 2);
    QCOMPARE(m_q->counts(400 * kSec).stuck, 0);

    m_q->pop();
    m_q->pop();
    QVERIFY(m_q->empty());
    QCOMPARE(m_q->qsize(), 0);
    QCOMPARE(m_q->activeCount(), 4); // locked work is active, not ready
}

void TstTransitions::idsAreMonotonicUuidV7() {
    const TimeNs now = m_clock.now();
    std::string prev;
    for (int i = 0; i < 2000; ++i) {
        const std::string id = Queue::newMessageId(now);
        QCOMPARE(id.size(), std::size_t(36));
        QCOMPARE(id[8], '-');
        QCOMPARE(id[13], '-');
        QCOMPARE(id[14], '7');
        QVERIFY2(std::string("89ab").find(id[19]) != std::string::npos, id.c_str());
        QVERIFY2(id > prev, id.c_str());
        // RFC 9562: the first 48 bits are Unix milliseconds.
        const std::string hex = id.substr(0, 8) + id.substr(9, 4);
        QCOMPARE(static_cast<TimeNs>(std::stoll(hex, nullptr, 16)), now / 1'000'000);
        prev = id;
    }
    // Puts in the same ns still pop in put order.
    std::vector<std::string> ids;
    for (int i = 0; i < 50; ++i)
        ids.push_back(m_q->put(std::to_string(i)).messageId);
    for (const auto& id : ids)
        QCOMPARE(m_q->pop().value().messageId, id);
}

// One transaction per batch: `tx = q->transaction()` after a commit must begin
// a new transaction, a rolled-back guard must leave nothing behind.
void TstTransitions::transactionGuards() {
    std::unique_ptr<Queue::TransactionGuard> tx;
    for (int batch = 0; batch < 3; ++batch) {
        tx = m_q->transaction();
        m_q->put("b" + std::to_string(batch));
        tx->commit();
        tx = m_q->transaction(); // replaced while the committed one still lives
        tx->commit();
    }
    tx.reset();
    QCOMPARE(m_q->storedCount(), 3);
    {
        auto rollback = m_q->transaction();
        m_q->put("gone");
        QCOMPARE(m_q->storedCount(), 4); // visible inside the transaction
    }
    QCOMPARE(m_q->storedCount(), 3);
}

QTEST_GUILESS_MAIN(TstTransitions)
#include "tst_transitions.moc"
