// SPDX-License-Identifier: MIT
// Concurrent consumers (docs/FORMATS.md#litequeue, §5 reliability): whatever shares the file,
// no message is claimed twice and every message is claimed.

#include "testutil.h"

#include <QProcess>
#include <QTest>

#include <atomic>
#include <latch>
#include <mutex>
#include <set>
#include <thread>

using namespace lq::core;
using namespace lqtest;

namespace {

constexpr int kMessages = 2000;

struct Drained {
    std::vector<std::string> ids;
    std::string error;
    std::int64_t refused = 0;
};

/// Pops until empty, completing each message.
void drain(Queue& q, std::latch& start, Drained& out) {
    start.arrive_and_wait();
    try {
        while (auto m = q.pop()) {
            if (!q.done(m->messageId, m->claimId))
                ++out.refused;
            out.ids.push_back(m->messageId);
        }
    } catch (const std::exception& e) {
        out.error = e.what();
    }
}

} // namespace

class TstConcurrency : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void twoQueuesTwoThreads();
    void sharedQueueTwoThreads();
    void twoProcesses();
    void fairUnderContention();
    void openingAgainKeepsOtherConnectionsLocks();

private:
    void fill();
    void checkAllClaimedOnce(const std::vector<std::vector<std::string>>& claimed);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::string m_path;
    std::set<std::string> m_ids;
};

void TstConcurrency::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_path = toStd(m_dir->filePath(QStringLiteral("q.sqlite3")));
    fill();
}

void TstConcurrency::cleanup() {
    m_dir.reset();
}

void TstConcurrency::fill() {
    auto q = Queue::create(m_path);
    std::vector<PutItem> items;
    for (int i = 0; i < kMessages; ++i)
        items.push_back({"job " + std::to_string(i), {}});
    m_ids.clear();
    for (const Message& m : q->putMany(items))
        m_ids.insert(m.messageId);
    QCOMPARE(static_cast<int>(m_ids.size()), kMessages);
}

void TstConcurrency::checkAllClaimedOnce(const std::vector<std::vector<std::string>>& claimed) {
    std::set<std::string> seen;
    std::size_t total = 0;
    for (const auto& list : claimed) {
        total += list.size();
        for (const auto& id : list)
            QVERIFY2(seen.insert(id).second, ("claimed twice: " + id).c_str());
    }
    QCOMPARE(total, std::size_t(kMessages));
    QCOMPARE(seen, m_ids);

    auto q = Queue::open(m_path);
    QCOMPARE(q->doneCount(), kMessages);
    QCOMPARE(q->readyCount(), 0);
    QCOMPARE(q->lockedCount(), 0);
    // Each message was delivered exactly once: claim 1 everywhere.
    Db db(m_path, true);
    QCOMPARE(db.integer("SELECT count(*) FROM Queue WHERE claim_id <> 1"), 0);
}

void TstConcurrency::twoQueuesTwoThreads() {
    auto a = Queue::open(m_path);
    auto b = Queue::open(m_path);
    std::latch start(2);
    Drained da, db;
    std::thread ta(drain, std::ref(*a), std::ref(start), std::ref(da));
    std::thread tb(drain, std::ref(*b), std::ref(start), std::ref(db));
    ta.join();
    tb.join();
    QVERIFY2(da.error.empty(), da.error.c_str());
    QVERIFY2(db.error.empty(), db.error.c_str());
    QCOMPARE(da.refused + db.refused, 0);
    checkAllClaimedOnce({da.ids, db.ids});
}

void TstConcurrency::sharedQueueTwoThreads() {
    auto q = Queue::open(m_path);
    std::latch start(2);
    Drained da, db;
    std::thread ta(drain, std::ref(*q), std::ref(start), std::ref(da));
    std::thread tb(drain, std::ref(*q), std::ref(start), std::ref(db));
    ta.join();
    tb.join();
    QVERIFY2(da.error.empty(), da.error.c_str());
    QVERIFY2(db.error.empty(), db.error.c_str());
    QCOMPARE(da.refused + db.refused, 0);
    checkAllClaimedOnce({da.ids, db.ids});
}

void TstConcurrency::twoProcesses() {
    const QString popper = QStringLiteral(LQPOPPER);
    if (!QFileInfo::exists(popper))
        QFAIL("lqpopper was not built next to the test: the build is broken");
    QProcess p1, p2;
    const QStringList args{fromStd(m_path)};
    p1.start(popper, args);
    p2.start(popper, args);
    QVERIFY(p1.waitForStarted());
    QVERIFY(p2.waitForStarted());
    QVERIFY(p1.waitForFinished(60000));
    QVERIFY(p2.waitForFinished(60000));

    std::vector<std::vector<std::string>> claimed;
    for (QProcess* p : {&p1, &p2}) {
        const QByteArray err = p->readAllStandardError();
        QVERIFY2(p->exitStatus() == QProcess::NormalExit, err.constData());
        QVERIFY2(p->exitCode() == 0, err.constData());
        std::vector<std::string> ids;
        for (const QByteArray& line : p->readAllStandardOutput().split('\n'))
            if (!line.isEmpty())
                ids.push_back(line.toStdString());
        claimed.push_back(std::move(ids));
    }
    checkAllClaimedOnce(claimed);
}

void TstConcurrency::openingAgainKeepsOtherConnectionsLocks() {
    // Found driving the GUI: the fleet sidebar opened the file again in the
    // same process, Queue::open read its header through a file descriptor of
    // its own, and closing that descriptor dropped every POSIX lock the
    // process held on the file (how POSIX locks work). Another process then
    // took itself for the last connection, checkpointed and deleted the WAL,
    // and the writes that followed went to a deleted -wal file: lost.
    const QString popper = QStringLiteral(LQPOPPER);
    if (!QFileInfo::exists(popper))
        QFAIL("lqpopper was not built next to the test: the build is broken");
    const std::string path = toStd(m_dir->filePath(QStringLiteral("locks.sqlite3")));
    auto q1 = Queue::create(path);
    q1->put("first");
    QCOMPARE(q1->storedCount(), 1); // a read connection, too
    for (int i = 0; i < 3; ++i) {
        auto again = Queue::open(path); // what a fleet poll does
        QCOMPARE(again->storedCount(), 1);
    }
    // Another process writes with the plain sqlite3 shell, which (unlike
    // lqcore) checkpoints and removes the WAL when it is the last connection.
    QProcess p;
    p.start(QStringLiteral("sqlite3"),
            {fromStd(path), QStringLiteral("UPDATE Queue SET status = 2, done_time = in_time, "
                                           "lock_time = in_time, claim_id = 1")});
    QVERIFY2(p.waitForFinished(30000), "the sqlite3 shell (Debian package sqlite3) is missing");
    QCOMPARE(p.exitCode(), 0);
    try {
        for (int i = 0; i < 10; ++i)
            q1->put("after " + std::to_string(i));
        auto fresh = Queue::open(path);
        QCOMPARE(fresh->storedCount(), 11);
        QCOMPARE(fresh->doneCount(), 1);
    } catch (const Error& e) {
        QFAIL(e.what());
    }
}

void TstConcurrency::fairUnderContention() {
    // Each transaction holds the write lock for about a millisecond, so a
    // 500 ms busy timeout is ample if waiting writers get their turn. With
    // SQLite's default busy_timeout back-off (sleeps growing to 100 ms) one
    // consumer can hold the lock for the whole run and starve the other
    // into Busy (docs/BENCHMARKS.md: consumers must not fail because they share a file).
    OpenOptions o;
    o.busyTimeoutMs = 500;
    auto a = Queue::open(m_path, o);
    auto b = Queue::open(m_path, o);
    std::latch start(2);
    Drained da, db;
    std::thread ta(drain, std::ref(*a), std::ref(start), std::ref(da));
    std::thread tb(drain, std::ref(*b), std::ref(start), std::ref(db));
    ta.join();
    tb.join();
    QVERIFY2(da.error.empty(), da.error.c_str());
    QVERIFY2(db.error.empty(), db.error.c_str());
    checkAllClaimedOnce({da.ids, db.ids});
}

QTEST_GUILESS_MAIN(TstConcurrency)
#include "tst_concurrency.moc"
