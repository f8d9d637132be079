// SPDX-License-Identifier: MIT
// maxsize (docs/FORMATS.md, §3.1): immutable, counts READY rows only, enforced by the
// trigger litequeue writes.

#include "testutil.h"

#include <QTest>

using namespace lq::core;
using namespace lqtest;

class TstMaxsize : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void fourthPutThrows();
    void popFreesReadySlot();
    void zeroAcceptsNothing();
    void reopen_data();
    void reopen();
    void triggerText();
    void fixtureLimit();

private:
    std::string path(const char* name = "q.sqlite3") const {
        return toStd(m_dir->filePath(QString::fromLatin1(name)));
    }
    std::unique_ptr<QTemporaryDir> m_dir;
    FakeClock m_clock;
};

void TstMaxsize::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_clock = FakeClock{};
}

void TstMaxsize::cleanup() {
    m_dir.reset();
}

void TstMaxsize::fourthPutThrows() {
    auto q = Queue::create(path(), 3, optionsWith(m_clock.clock()));
    QCOMPARE(q->maxsize(), std::optional<std::int64_t>(3));
    for (int i = 0; i < 3; ++i) {
        QVERIFY(!q->full());
        q->put("m" + std::to_string(i));
    }
    QVERIFY(q->full());
    QCOMPARE(q->qsize(), 3);
    QVERIFY_THROWS_EXCEPTION(QueueFull, q->put("m3"));
    LQ_EXPECT_ERROR(q->put("m3"), ErrorKind::QueueFull, "");
    QCOMPARE(q->storedCount(), 3);
}

void TstMaxsize::popFreesReadySlot() {
    auto q = Queue::create(path(), 3, optionsWith(m_clock.clock()));
    for (int i = 0; i < 3; ++i)
        q->put("m" + std::to_string(i));
    const Message p = q->pop().value();
    QVERIFY(!q->full());
    q->put("m3"); // LOCKED rows do not count
    QVERIFY(q->full());
    QVERIFY_THROWS_EXCEPTION(QueueFull, q->put("m4"));
    QVERIFY(q->done(p.messageId, p.claimId));
    QVERIFY(q->full()); // neither do DONE rows
    QCOMPARE(q->readyCount(), 3);
    QCOMPARE(q->storedCount(), 4);
    // A retry may take READY above the limit, like litequeue.
    const Message p2 = q->pop().value();
    q->put("m5");
    QVERIFY(q->retry(p2.messageId, p2.claimId));
    QCOMPARE(q->readyCount(), 4);
    QVERIFY(q->full());
}

void TstMaxsize::zeroAcceptsNothing() {
    auto q = Queue::create(path(), 0, optionsWith(m_clock.clock()));
    QCOMPARE(q->maxsize(), std::optional<std::int64_t>(0));
    QVERIFY(q->full());
    QVERIFY_THROWS_EXCEPTION(QueueFull, q->put("x"));
    QVERIFY_THROWS_EXCEPTION(QueueFull, q->putMany({{"x", {}}}));
    QCOMPARE(q->storedCount(), 0);
    q.reset();
    QCOMPARE(Queue::open(path())->maxsize(), std::optional<std::int64_t>(0));
}

void TstMaxsize::reopen_data() {
    QTest::addColumn<int>("created");   // -1: no limit
    QTest::addColumn<int>("requested"); // -1: nullopt
    QTest::addColumn<bool>("throws");
    QTest::addColumn<int>("expected"); // maxsize after reopen, -1: none
    QTest::newRow("3 then 5") << 3 << 5 << true << 3;
    QTest::newRow("3 then 2") << 3 << 2 << true << 3;
    QTest::newRow("3 then 0") << 3 << 0 << true << 3;
    QTest::newRow("3 then nullopt") << 3 << -1 << false << 3;
    QTest::newRow("3 then 3") << 3 << 3 << false << 3;
    QTest::newRow("none then 5") << -1 << 5 << true << -1;
    QTest::newRow("none then nullopt") << -1 << -1 << false << -1;
}

void TstMaxsize::reopen() {
    QFETCH(int, created);
    QFETCH(int, requested);
    QFETCH(bool, throws);
    QFETCH(int, expected);
    const auto opt = [](int v) { return v < 0 ? std::nullopt : std::optional<std::int64_t>(v); };
    {
        auto q = Queue::create(path(), opt(created), optionsWith(m_clock.clock()));
        for (int i = 0; i < 3; ++i)
            q->put("m" + std::to_string(i));
    }
    const std::string schema = schemaDump(path());
    if (throws) {
        LQ_EXPECT_ERROR(Queue::create(path(), opt(requested)), ErrorKind::InvalidArgument, "");
    } else {
        auto q = Queue::create(path(), opt(requested));
        QCOMPARE(q->maxsize(), opt(expected));
        QCOMPARE(q->storedCount(), 3);
    }
    QCOMPARE(schemaDump(path()), schema); // the limit is immutable
    QCOMPARE(Queue::open(path())->maxsize(), opt(expected));
}

void TstMaxsize::triggerText() {
    Queue::create(path(), 3).reset();
    Db db(path(), true);
    const auto r = db.rows("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger'");
    QCOMPARE(r.size(), std::size_t(1));
    QCOMPARE(r[0][0], std::string("maxsize_control_Queue"));
    QCOMPARE(r[0][1], std::string("Queue"));
    const std::string sql = r[0][2];
    QVERIFY2(contains(sql, "Max queue length reached: 3"), sql.c_str());
    // The shape litequeue writes (tests/data/litequeue-head-maxsize.sqlite3),
    // whitespace aside.
    QCOMPARE(squeeze(sql),
             std::string("CREATE TRIGGER \"maxsize_control_Queue\" BEFORE INSERT ON \"Queue\" "
                         "WHEN (SELECT COUNT(*) FROM \"Queue\" WHERE status = 0) >= 3 BEGIN "
                         "SELECT RAISE (ABORT,'Max queue length reached: 3'); END"));
    // The same text as the real library's trigger with its number changed.
    QTemporaryDir fx;
    const std::string fixture = copyFixture(fx, QStringLiteral("litequeue-head-maxsize.sqlite3"));
    std::string theirs =
        Db(fixture, true)
            .text("SELECT sql FROM sqlite_master WHERE name = 'maxsize_control_Queue'");
    for (std::size_t pos; (pos = theirs.find("25")) != std::string::npos;)
        theirs.replace(pos, 2, "3");
    QCOMPARE(squeeze(sql), squeeze(theirs));
}

void TstMaxsize::fixtureLimit() {
    QTemporaryDir fx;
    const std::string file = copyFixture(fx, QStringLiteral("litequeue-head-maxsize.sqlite3"));
    auto q = Queue::open(file, optionsWith(m_clock.clock()));
    QCOMPARE(q->info().format, lq::core::QueueFormat::byId("litequeue-legacy"));
    QCOMPARE(q->maxsize(), std::optional<std::int64_t>(25));
    QVERIFY(q->full());
    QCOMPARE(q->qsize(), 25);
    QCOMPARE(q->activeCount(), 27);
    QVERIFY_THROWS_EXCEPTION(QueueFull, q->put("one more"));
    QCOMPARE(q->storedCount(), 37);
}

QTEST_GUILESS_MAIN(TstMaxsize)
#include "tst_maxsize.moc"
