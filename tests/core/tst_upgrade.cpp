// SPDX-License-Identifier: MIT
// upgrade() from the legacy and 0.13 formats to 0.14 (docs/FORMATS.md, §3.1), 0.13's
// seconds, and put_many atomicity.

#include "testutil.h"

#include <QTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <thread>

using namespace lq::core;
using namespace lqtest;

namespace {

// 0.13 rows: id suffix, status, in, lock, done (seconds, as SQL literals), claim, key.
struct Row013 {
    const char* id;
    int status;
    const char* in;
    const char* lock;
    const char* done;
    int claim;
    const char* key;
};
const Row013 k013Rows[] = {
    {"00000000-0000-7000-8000-000000000001", 0, "1700000000.5", "NULL", "NULL", 0, "NULL"},
    {"00000000-0000-7000-8000-000000000002", 1, "1700000001.25", "1700000002.75", "NULL", 1,
     "NULL"},
    {"00000000-0000-7000-8000-000000000003", 2, "1700000003", "1700000004.5", "1700000005.25", 1,
     "'k3'"},
    {"00000000-0000-7000-8000-000000000004", 3, "1700000006.5", "1700000007", "1700000008.5", 2,
     "NULL"},
    {"00000000-0000-7000-8000-000000000005", 0, "1700000009.0", "NULL", "NULL", 0, "'k5'"},
};

std::optional<TimeNs> nsOf(const char* seconds) {
    if (std::string(seconds) == "NULL")
        return std::nullopt;
    // seconds * 1e9 in double, as the header's secondsToNs and SQLite's own
    // arithmetic do (1700000001.25 s is 1700000001249999872 ns then: REAL
    // seconds carry no finer precision anyway).
    return secondsToNs(std::stod(seconds));
}

void make013(const std::string& path) {
    Db db(path);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("CREATE TABLE \"Queue\" (data TEXT NOT NULL, message_id TEXT NOT NULL, status "
            "INTEGER NOT NULL, in_time INTEGER NOT NULL, lock_time INTEGER, done_time INTEGER, "
            "idempotency_key TEXT, claim_id INTEGER NOT NULL DEFAULT 0)");
    db.exec("CREATE UNIQUE INDEX \"Queue_message_id_unique_idx\" ON \"Queue\"(message_id)");
    db.exec("CREATE INDEX \"Queue_status_message_id_idx\" ON \"Queue\"(status, message_id)");
    db.exec("CREATE UNIQUE INDEX \"Queue_idempotency_key_unique_idx\" ON "
            "\"Queue\"(idempotency_key) WHERE idempotency_key IS NOT NULL");
    for (const Row013& r : k013Rows) {
        // Seconds as 0.13 wrote them: REAL, or INTEGER when whole.
        db.exec(std::string("INSERT INTO Queue VALUES ('data ") + r.id + "', '" + r.id + "', " +
                std::to_string(r.status) + ", " + r.in + ", " + r.lock + ", " + r.done + ", " +
                r.key + ", " + std::to_string(r.claim) + ")");
    }
    db.exec("PRAGMA user_version = 2");
}

} // namespace

class TstUpgrade : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void legacy();
    void legacyKeepsQueueUsable();
    void upgradeWhileOtherThreadsRead();
    void noopOn014();
    void refusedOnMulti();
    void read013();
    void write013InSeconds();
    void upgrade013();
    void thresholds013();
    void putManyAtomic_data();
    void putManyAtomic();
    void putManyOrder();

private:
    std::string path(const char* name = "q.sqlite3") const {
        return toStd(m_dir->filePath(QString::fromLatin1(name)));
    }
    std::unique_ptr<QTemporaryDir> m_dir;
    FakeClock m_clock;
};

void TstUpgrade::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_clock = FakeClock{};
}

void TstUpgrade::cleanup() {
    m_dir.reset();
}

void TstUpgrade::legacy() {
    const std::string file = copyFixture(*m_dir, QStringLiteral("litequeue-head-mixed.sqlite3"));
    m_clock.set(1741946700137482911); // the fixture's fake clock end
    auto q = Queue::open(file, optionsWith(m_clock.clock()));
    QCOMPARE(q->info().format, lq::core::QueueFormat::byId("litequeue-legacy"));
    QVERIFY(!q->info().hasClaimId);
    const Counts before = q->counts();
    QCOMPARE(before.locked, 14);
    std::map<std::string, Message> rows;
    for (const Message& m : allRows(*q))
        rows.emplace(m.messageId, m);
    QCOMPARE(rows.size(), std::size_t(400));

    q->upgrade();

    QCOMPARE(userVersion(file), 3);
    const auto cols = columnsOf(file, "Queue");
    QVERIFY(std::find(cols.begin(), cols.end(), "claim_id") != cols.end());
    QVERIFY(std::find(cols.begin(), cols.end(), "idempotency_key") != cols.end());
    Db db(file, true);
    QCOMPARE(db.integer("SELECT count(*) FROM Queue WHERE status = 1"), 0);
    QCOMPARE(db.integer("SELECT count(*) FROM Queue WHERE claim_id <> 0"), 0);

    const Counts after = q->counts();
    QCOMPARE(after.ready, before.ready + before.locked);
    QCOMPARE(after.locked, 0);
    QCOMPARE(after.done, before.done);
    QCOMPARE(after.failed, before.failed);
    QCOMPARE(after.stored, before.stored);

    const auto check = [&](Queue& qq) {
        const auto now = allRows(qq);
        QCOMPARE(now.size(), rows.size());
        for (const Message& m : now) {
            const Message& b = rows.at(m.messageId);
            QCOMPARE(m.state, b.state == State::Locked ? State::Ready : b.state);
            QCOMPARE(m.inTime, b.inTime);
            QCOMPARE(m.lockTime, b.lockTime);
            QCOMPARE(m.doneTime, b.doneTime);
            QCOMPARE(m.data, b.data);
            QCOMPARE(m.claimId, 0);
            QVERIFY(!m.idempotencyKey);
        }
    };
    check(*q);
    if (QTest::currentTestFailed())
        return;
    q.reset();
    auto reopened = Queue::open(file);
    QCOMPARE(reopened->info().format, lq::core::QueueFormat::byId("litequeue-0.14"));
    QCOMPARE(reopened->info().timeUnit, TimeUnit::Nanoseconds);
    check(*reopened);
}

void TstUpgrade::legacyKeepsQueueUsable() {
    // After upgrade() the same Queue speaks 0.14: claims and keys work.
    const std::string file = copyFixture(*m_dir, QStringLiteral("litequeue-head-mixed.sqlite3"));
    m_clock.set(1741946700137482911);
    auto q = Queue::open(file, optionsWith(m_clock.clock()));
    q->upgrade();
    QCOMPARE(q->info().format, lq::core::QueueFormat::byId("litequeue-0.14"));
    QVERIFY(q->info().hasClaimId);
    const Message p = q->pop().value();
    QCOMPARE(p.messageId, std::string("019593ca-78ca-7241-b227-738b3bec0225"));
    QCOMPARE(p.claimId, 1);
    QCOMPARE(p.token, 1);
    QVERIFY(!q->done(p.messageId, 0));
    QVERIFY(q->done(p.messageId, 1));
    const Message k = q->put("x", std::string("key"));
    QCOMPARE(q->put("x", std::string("key")).messageId, k.messageId);
    QVERIFY_THROWS_EXCEPTION(IdempotencyConflict, q->put("y", std::string("key")));
}

void TstUpgrade::noopOn014() {
    auto q = Queue::create(path(), 5, optionsWith(m_clock.clock()));
    q->put("a");
    const std::string schema = schemaDump(path());
    q->upgrade();
    QCOMPARE(schemaDump(path()), schema);
    QCOMPARE(userVersion(path()), 3);
    QCOMPARE(q->storedCount(), 1);
}

void TstUpgrade::refusedOnMulti() {
    const std::string file = copyFixture(*m_dir, QStringLiteral("litequeue-oldmulti.sqlite3"));
    const QByteArray sha = sha256(file);
    {
        auto q = Queue::open(file, optionsWith(m_clock.clock(), "emails"));
        QVERIFY(q->readOnly());
        QVERIFY(catchError([&] { q->upgrade(); }).has_value());
    }
    QCOMPARE(sha256(file), sha);
}

void TstUpgrade::read013() {
    make013(path());
    auto q = Queue::open(path(), optionsWith(m_clock.clock()));
    QCOMPARE(q->info().format, lq::core::QueueFormat::byId("litequeue-0.13"));
    QCOMPARE(q->info().userVersion, 2);
    QCOMPARE(q->info().timeUnit, TimeUnit::Seconds);
    QVERIFY(!q->readOnly());
    for (const Row013& r : k013Rows) {
        const Message m = q->get(r.id).value();
        QCOMPARE(m.rawStatus, r.status);
        QCOMPARE(m.claimId, r.claim);
        QCOMPARE(m.token, r.claim);
        QCOMPARE(m.inTime, nsOf(r.in));
        QCOMPARE(m.lockTime, nsOf(r.lock));
        QCOMPARE(m.doneTime, nsOf(r.done));
    }
    const QueueStats s = q->stats();
    QCOMPARE(s.processing.count, 1);
    const Row013& d = k013Rows[2];
    QCOMPARE(s.processing.max, std::optional<TimeNs>(*nsOf(d.done) - *nsOf(d.lock)));
    QCOMPARE(s.wait.count, 3);
    TimeNs maxWait = 0;
    for (const Row013& r : k013Rows)
        if (nsOf(r.lock))
            maxWait = std::max(maxWait, *nsOf(r.lock) - *nsOf(r.in));
    QCOMPARE(s.wait.max, std::optional<TimeNs>(maxWait));
    QCOMPARE(q->counts().locked, 1);
}

void TstUpgrade::write013InSeconds() {
    make013(path());
    m_clock.set(1'700'000'100'500'000'000);
    auto q = Queue::open(path(), optionsWith(m_clock.clock()));
    const Message m = q->put("new");
    QCOMPARE(m.inTime, std::optional<TimeNs>(1'700'000'100'500'000'000));
    const Message p = q->pop().value(); // the oldest READY row
    QCOMPARE(p.messageId, std::string(k013Rows[0].id));
    QCOMPARE(p.lockTime, std::optional<TimeNs>(1'700'000'100'500'000'000));
    m_clock.advance(250'000'000);
    QVERIFY(q->done(p.messageId, p.claimId));

    Db db(path(), true);
    const double in = db.real("SELECT in_time FROM Queue WHERE message_id = '" + m.messageId + "'");
    QVERIFY2(in < 1e12, std::to_string(in).c_str());
    QVERIFY2(std::fabs(in - 1700000100.5) < 1e-3, std::to_string(in).c_str());
    const double lock =
        db.real("SELECT lock_time FROM Queue WHERE message_id = '" + p.messageId + "'");
    QVERIFY2(std::fabs(lock - 1700000100.5) < 1e-3, std::to_string(lock).c_str());
    const double done =
        db.real("SELECT done_time FROM Queue WHERE message_id = '" + p.messageId + "'");
    QVERIFY2(std::fabs(done - 1700000100.75) < 1e-3, std::to_string(done).c_str());
    QCOMPARE(db.integer("SELECT count(*) FROM Queue WHERE in_time > 1e12 OR lock_time > 1e12 OR "
                        "done_time > 1e12"),
             0);
    QCOMPARE(db.integer("PRAGMA user_version"), 2); // a write is not a migration
}

void TstUpgrade::upgrade013() {
    make013(path());
    m_clock.set(1'700'000'100'500'000'000);
    std::string putId;
    {
        auto q = Queue::open(path(), optionsWith(m_clock.clock()));
        putId = q->put("new").messageId;
        q->upgrade();
        QCOMPARE(q->info().format, lq::core::QueueFormat::byId("litequeue-0.14"));
    }
    QCOMPARE(userVersion(path()), 3);
    Db db(path(), true);
    QCOMPARE(db.integer("SELECT count(*) FROM Queue WHERE in_time < 1e12"), 0);
    QCOMPARE(db.text("SELECT DISTINCT typeof(in_time) FROM Queue"), std::string("integer"));
    for (const Row013& r : k013Rows) {
        const auto raw =
            db.rows(std::string("SELECT in_time, lock_time, done_time, status, claim_id "
                                "FROM Queue WHERE message_id = '") +
                    r.id + "'");
        QCOMPARE(raw.size(), std::size_t(1));
        QCOMPARE(raw[0][0], std::to_string(nsOf(r.in).value()));
        QCOMPARE(raw[0][1], nsOf(r.lock) ? std::to_string(*nsOf(r.lock)) : std::string("NULL"));
        QCOMPARE(raw[0][2], nsOf(r.done) ? std::to_string(*nsOf(r.done)) : std::string("NULL"));
        // 0.13 workers hold claim ids: LOCKED rows stay LOCKED with their claim.
        QCOMPARE(raw[0][3], std::to_string(r.status));
        QCOMPARE(raw[0][4], std::to_string(r.claim));
    }
    auto q = Queue::open(path(), optionsWith(m_clock.clock()));
    QCOMPARE(q->info().format, lq::core::QueueFormat::byId("litequeue-0.14"));
    QCOMPARE(q->get(putId).value().inTime, std::optional<TimeNs>(1'700'000'100'500'000'000));
    QCOMPARE(q->get(k013Rows[2].id).value().doneTime, nsOf(k013Rows[2].done));
    // The LOCKED worker's claim still works after the upgrade.
    QVERIFY(q->done(k013Rows[1].id, 1));
}

void TstUpgrade::thresholds013() {
    // Thresholds in seconds against a file in seconds: the LOCKED row was
    // locked at 1700000002.75 s, the DONE row finished at 1700000005.25 s and
    // the FAILED one at 1700000008.5 s.
    make013(path());
    m_clock.set(secondsToNs(1700000002.75) + 100 * kNsPerSecond);
    auto q = Queue::open(path(), optionsWith(m_clock.clock()));
    QCOMPARE(q->listLocked(std::chrono::milliseconds(100500)).size(), std::size_t(0));
    QCOMPARE(q->listLocked(std::chrono::milliseconds(99500)).size(), std::size_t(1));
    QCOMPARE(q->counts(101 * kNsPerSecond).stuck, 0);
    QCOMPARE(q->counts(99 * kNsPerSecond).stuck, 1);
    QCOMPARE(q->retryExpired(std::chrono::milliseconds(100500)), 0);
    QCOMPARE(q->retryExpired(std::chrono::milliseconds(99500)), 1);
    QCOMPARE(q->get(k013Rows[1].id).value().state, State::Ready);
    // now - 95 s = 1700000007.75 s: only the DONE row finished before that.
    QCOMPARE(q->prune(true, std::chrono::seconds(95)), 1);
    QVERIFY(!q->get(k013Rows[2].id));
    QVERIFY(q->get(k013Rows[3].id));
    QCOMPARE(q->prune(true, std::chrono::seconds(90)), 1);
    QCOMPARE(Db(path(), true).integer("SELECT count(*) FROM Queue WHERE in_time > 1e12"), 0);
}

void TstUpgrade::putManyAtomic_data() {
    QTest::addColumn<QString>("why");
    QTest::newRow("3rd item conflicts") << QStringLiteral("conflict");
    QTest::newRow("3rd item overflows maxsize") << QStringLiteral("overflow");
}

void TstUpgrade::putManyAtomic() {
    QFETCH(QString, why);
    const bool conflict = why == QLatin1String("conflict");
    auto q = Queue::create(path(), conflict ? std::nullopt : std::optional<std::int64_t>(3),
                           optionsWith(m_clock.clock()));
    q->put("stored", std::string("k"));
    const std::int64_t stored = q->storedCount();
    const std::vector<PutItem> items{
        {"one", {}},
        {"two", std::string("k2")},
        {conflict ? "other" : "three", conflict ? std::optional<std::string>("k") : std::nullopt},
        {"four", {}}};
    const auto err = catchError([&] { q->putMany(items); });
    QVERIFY(err);
    QCOMPARE(err->kind(), conflict ? ErrorKind::IdempotencyConflict : ErrorKind::QueueFull);
    QCOMPARE(q->storedCount(), stored);
    QCOMPARE(Db(path(), true).integer("SELECT count(*) FROM Queue"), stored);
    // Nothing half-written: k2 is still free.
    QCOMPARE(q->put("two", std::string("k2")).data, std::string("two"));
}

void TstUpgrade::putManyOrder() {
    auto q = Queue::create(path(), std::nullopt, optionsWith(m_clock.clock()));
    std::vector<PutItem> items;
    for (int i = 0; i < 100; ++i)
        items.push_back({"item " + std::to_string(i), {}});
    const auto out = q->putMany(items);
    QCOMPARE(out.size(), items.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        QCOMPARE(out[i].data, items[i].data);
        QCOMPARE(out[i].state, State::Ready);
        QCOMPARE(out[i].inTime, std::optional<TimeNs>(m_clock.now()));
        if (i > 0)
            QVERIFY(out[i].messageId > out[i - 1].messageId);
    }
    QCOMPARE(q->storedCount(), 100);
    QCOMPARE(q->pop().value().messageId, out[0].messageId);
    QVERIFY(q->putMany({}).empty());
}

// upgrade() while other threads read through the same Queue (the GUI's block
// loads): their read connections and the schema they use must stay valid
// (this crashed with a double free when upgrade() closed their connections).
void TstUpgrade::upgradeWhileOtherThreadsRead() {
    const std::string file = copyFixture(*m_dir, QStringLiteral("litequeue-head-mixed.sqlite3"));
    auto q = Queue::open(file, optionsWith(m_clock.clock()));
    std::atomic_bool stop{false};
    std::atomic<int> reads{0};
    std::atomic<int> failures{0};
    std::vector<std::thread> readers;
    for (int t = 0; t < 3; ++t) {
        readers.emplace_back([&] {
            while (!stop) {
                try {
                    const auto ids = q->orderedRowids(Filter{}, Sort{});
                    const std::vector<std::int64_t> block(
                        ids.begin(), ids.begin() + std::min<std::size_t>(64, ids.size()));
                    if (q->fetchRowids(block).size() != block.size())
                        ++failures;
                    q->counts();
                    ++reads;
                } catch (const lq::core::Error&) {
                    ++failures; // a read may see the schema change; it must not crash
                }
            }
        });
    }
    QTRY_VERIFY(reads > 10);
    q->upgrade();
    const int after = reads + 20;
    QTRY_VERIFY(reads > after);
    stop = true;
    for (auto& t : readers)
        t.join();
    QCOMPARE(q->info().format, lq::core::QueueFormat::byId("litequeue-0.14"));
    QCOMPARE(q->storedCount(), 400);
    QCOMPARE(failures.load(), 0);
}

QTEST_GUILESS_MAIN(TstUpgrade)
#include "tst_upgrade.moc"
