// SPDX-License-Identifier: MIT
// Idempotent put (docs/FORMATS.md#litequeue): a replay returns the stored message, other data
// conflicts, and prune frees the key.

#include "testutil.h"

#include <QTest>

using namespace lq::core;
using namespace lqtest;

class TstIdempotency : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void replay_data();
    void replay();
    void conflict_data();
    void conflict();
    void keysAreIndependent();
    void pruneFreesKey();
    void keptFailedKeepsKey();
    void replayOnFullQueue();
    void putManyReplay();

private:
    Message storedIn(const QString& state, const std::string& data, const std::string& key);
    std::string path() const { return toStd(m_dir->filePath(QStringLiteral("q.sqlite3"))); }

    std::unique_ptr<QTemporaryDir> m_dir;
    FakeClock m_clock;
    std::unique_ptr<Queue> m_q;
};

void TstIdempotency::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_clock = FakeClock{};
    m_q = Queue::create(path(), std::nullopt, optionsWith(m_clock.clock()));
}

void TstIdempotency::cleanup() {
    m_q.reset();
    m_dir.reset();
}

Message TstIdempotency::storedIn(const QString& state, const std::string& data,
                                 const std::string& key) {
    const Message m = m_q->put(data, key);
    m_clock.advance(kNsPerSecond);
    if (state == QLatin1String("ready"))
        return m_q->get(m.messageId).value();
    const Message p = m_q->pop().value();
    m_clock.advance(kNsPerSecond);
    if (state == QLatin1String("done"))
        m_q->done(p.messageId, p.claimId);
    else if (state == QLatin1String("failed"))
        m_q->markFailed(p.messageId, p.claimId);
    return m_q->get(m.messageId).value();
}

static void addStates() {
    QTest::addColumn<QString>("state");
    QTest::newRow("READY") << QStringLiteral("ready");
    QTest::newRow("LOCKED") << QStringLiteral("locked");
    QTest::newRow("DONE") << QStringLiteral("done");
    QTest::newRow("FAILED") << QStringLiteral("failed");
}

void TstIdempotency::replay_data() {
    addStates();
}

void TstIdempotency::replay() {
    QFETCH(QString, state);
    const Message stored = storedIn(state, "charge 10 EUR", "charge-2026-0001");
    QCOMPARE(stored.idempotencyKey, std::optional<std::string>("charge-2026-0001"));
    m_clock.advance(60 * kNsPerSecond);

    const Message again = m_q->put("charge 10 EUR", std::string("charge-2026-0001"));
    QCOMPARE(again.messageId, stored.messageId);
    QCOMPARE(again.state, stored.state);
    QCOMPARE(again.inTime, stored.inTime);
    QCOMPARE(again.claimId, stored.claimId);
    QCOMPARE(again.data, stored.data);
    QCOMPARE(m_q->storedCount(), 1);
    // The replay changed nothing in the stored row.
    const Message now = m_q->get(stored.messageId).value();
    QCOMPARE(now.state, stored.state);
    QCOMPARE(now.lockTime, stored.lockTime);
    QCOMPARE(now.doneTime, stored.doneTime);
}

void TstIdempotency::conflict_data() {
    addStates();
}

void TstIdempotency::conflict() {
    QFETCH(QString, state);
    const Message stored = storedIn(state, "charge 10 EUR", "charge-2026-0001");
    QVERIFY_THROWS_EXCEPTION(IdempotencyConflict,
                             m_q->put("charge 12 EUR", std::string("charge-2026-0001")));
    LQ_EXPECT_ERROR(m_q->put("", std::string("charge-2026-0001")), ErrorKind::IdempotencyConflict,
                    "");
    QCOMPARE(m_q->storedCount(), 1);
    QCOMPARE(m_q->get(stored.messageId).value().data, std::string("charge 10 EUR"));
}

void TstIdempotency::keysAreIndependent() {
    const Message a = m_q->put("same", std::string("k1"));
    const Message b = m_q->put("same", std::string("k2"));
    const Message c = m_q->put("same");
    const Message d = m_q->put("same");
    QVERIFY(a.messageId != b.messageId);
    QVERIFY(c.messageId != d.messageId);
    QVERIFY(!c.idempotencyKey);
    QCOMPARE(m_q->storedCount(), 4);
}

void TstIdempotency::pruneFreesKey() {
    const Message first = storedIn(QStringLiteral("done"), "v1", "key");
    // prune does not touch READY rows, so a READY key stays reserved.
    const Message other = m_q->put("w1", std::string("other"));
    QCOMPARE(m_q->prune(), 1);
    QVERIFY(!m_q->get(first.messageId));
    const Message second = m_q->put("v2", std::string("key"));
    QVERIFY(second.messageId != first.messageId);
    QCOMPARE(second.data, std::string("v2"));
    QCOMPARE(second.state, State::Ready);
    QVERIFY_THROWS_EXCEPTION(IdempotencyConflict, m_q->put("w2", std::string("other")));
    QCOMPARE(m_q->put("w1", std::string("other")).messageId, other.messageId);
}

void TstIdempotency::keptFailedKeepsKey() {
    const Message failed = storedIn(QStringLiteral("failed"), "v1", "key");
    QCOMPARE(m_q->prune(false), 0);
    QVERIFY_THROWS_EXCEPTION(IdempotencyConflict, m_q->put("v2", std::string("key")));
    QCOMPARE(m_q->prune(true), 1);
    QVERIFY(m_q->put("v2", std::string("key")).messageId != failed.messageId);
}

void TstIdempotency::replayOnFullQueue() {
    m_q.reset();
    m_q = Queue::create(toStd(m_dir->filePath(QStringLiteral("full.sqlite3"))), 1,
                        optionsWith(m_clock.clock()));
    const Message m = m_q->put("only", std::string("k"));
    QVERIFY(m_q->full());
    // A replay inserts nothing, so the limit does not refuse it.
    QCOMPARE(m_q->put("only", std::string("k")).messageId, m.messageId);
    QVERIFY_THROWS_EXCEPTION(QueueFull, m_q->put("another", std::string("k2")));
}

void TstIdempotency::putManyReplay() {
    const auto first =
        m_q->putMany({{"a", std::string("ka")}, {"b", std::string("kb")}, {"c", {}}});
    QCOMPARE(first.size(), std::size_t(3));
    const auto again = m_q->putMany({{"b", std::string("kb")}, {"d", std::string("kd")}});
    QCOMPARE(again.size(), std::size_t(2));
    QCOMPARE(again[0].messageId, first[1].messageId);
    QVERIFY(again[1].messageId > first[2].messageId);
    QCOMPARE(m_q->storedCount(), 4);
    QVERIFY_THROWS_EXCEPTION(IdempotencyConflict,
                             m_q->putMany({{"e", std::string("ke")}, {"X", std::string("ka")}}));
    QCOMPARE(m_q->storedCount(), 4); // all or nothing
}

QTEST_GUILESS_MAIN(TstIdempotency)
#include "tst_idempotency.moc"
