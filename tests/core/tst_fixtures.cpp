// SPDX-License-Identifier: MIT
// Every fixture in tests/data against the facts of facts.json (computed with
// Python's sqlite3 and cross-checked with the sqlite3 shell), the bad files
// with their exact errors, and "opening never modifies" (docs/FORMATS.md, §3.6).

#include "formatfacts.h"
#include "testutil.h"

#include "core/statemodel.h"
#include "core/timefmt.h"

#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>

using namespace lq::core;
using namespace lqtest;

namespace {

QJsonValue at(const QJsonObject& o, const char* key) {
    return o.value(QLatin1String(key));
}
std::int64_t integerAt(const QJsonObject& o, const char* key) {
    return at(o, key).toInteger(std::numeric_limits<std::int64_t>::min());
}
std::optional<TimeNs> optAt(const QJsonObject& o, const char* key) {
    const QJsonValue v = at(o, key);
    if (v.isNull() || v.isUndefined())
        return std::nullopt;
    return v.toInteger();
}
std::optional<std::string> optString(const QJsonObject& o, const char* key) {
    const QJsonValue v = at(o, key);
    if (!v.isString())
        return std::nullopt;
    return v.toString().toStdString();
}

struct MinMax {
    std::optional<TimeNs> min, max;
    std::int64_t n = 0;
    void add(TimeNs v) {
        if (v == TimingColumns::kNoTime)
            return;
        ++n;
        min = min ? std::min(*min, v) : v;
        max = max ? std::max(*max, v) : v;
    }
};

bool nonAscii(const std::string& s) {
    return std::any_of(s.begin(), s.end(),
                       [](char c) { return static_cast<unsigned char>(c) > 127; });
}

const char* const kMixed = "litequeue-head-mixed.sqlite3";
const char* const kWal = "wal-pending/litequeue-wal-pending.sqlite3";

} // namespace

class TstFixtures : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();

    void facts_data();
    void facts();
    void jobsLease();
    void badFiles_data();
    void badFiles();
    void readOnlyObjects_data();
    void readOnlyObjects();
    void otherUserVersion_data();
    void otherUserVersion();
    void neverModifies_data();
    void neverModifies();
    void queryLayer_data();
    void queryLayer();
    void formatsCountsFromColumns_data();
    void formatsCountsFromColumns();

private:
    QJsonObject m_facts;
};

void TstFixtures::initTestCase() {
    m_facts = loadFacts();
    QVERIFY(!m_facts.isEmpty());
    // Qt keeps 64-bit integers exact (the ns values need all 19 digits).
    QCOMPARE(integerAt(at(m_facts, kMixed).toObject(), "size_bytes"), 253952);
}

static void addQueueFixtures() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("mainOnly");
    QTest::addColumn<QString>("table");
    QTest::addColumn<const QueueFormat*>("format");
    const QueueFormat* legacy = lq::core::QueueFormat::byId("litequeue-legacy");
    const auto add = [](const char* tag, const char* file, bool mainOnly, const char* table,
                        const QueueFormat* f) {
        QTest::newRow(tag) << QString::fromLatin1(file) << mainOnly << QString::fromLatin1(table)
                           << f;
    };
    add("head-empty", "litequeue-head-empty.sqlite3", false, "Queue", legacy);
    add("head-maxsize", "litequeue-head-maxsize.sqlite3", false, "Queue", legacy);
    add("head-mixed", kMixed, false, "Queue", legacy);
    add("oldmulti/emails", "litequeue-oldmulti.sqlite3", false, "emails",
        lq::core::QueueFormat::byId("litequeue-multi"));
    add("oldmulti/image-resize", "litequeue-oldmulti.sqlite3", false, "image-resize",
        lq::core::QueueFormat::byId("litequeue-multi"));
    add("wal-pending with its WAL", kWal, false, "Queue", legacy);
    add("wal-pending main file alone", kWal, true, "Queue", legacy);
}

void TstFixtures::facts_data() {
    addQueueFixtures();
}

void TstFixtures::facts() {
    QFETCH(QString, file);
    QFETCH(bool, mainOnly);
    QFETCH(QString, table);
    QFETCH(const QueueFormat*, format);

    const QJsonObject ff = m_facts.value(file).toObject();
    QVERIFY(!ff.isEmpty());
    const QJsonObject scope = mainOnly ? at(ff, "main_file_only_without_wal").toObject() : ff;
    const QJsonObject qf = at(scope, "queues").toObject().value(table).toObject();
    QVERIFY(!qf.isEmpty());
    const QJsonObject sc = at(qf, "status_counts").toObject();
    const std::int64_t rows = integerAt(qf, "rows");
    const std::optional<TimeNs> end = optAt(qf, "fake_clock_end_ns");

    QTemporaryDir dir;
    const std::string path = copyFixture(dir, file, mainOnly);
    auto q = Queue::open(path, optionsWith(fixedClock(end.value_or(systemNowNs())), toStd(table)));

    // Format and schema facts.
    const FormatInfo& info = q->info();
    QCOMPARE(info.format, format);
    QCOMPARE(info.table, toStd(table));
    QCOMPARE(info.userVersion, integerAt(ff, "user_version"));
    QCOMPARE(info.timeUnit, TimeUnit::Nanoseconds);
    QCOMPARE(info.journalMode, at(ff, "journal_mode").toString().toStdString());
    QVERIFY(!info.hasClaimId);
    if (format == lq::core::QueueFormat::byId("litequeue-multi")) {
        QCOMPARE(std::set<std::string>(info.queueTables.begin(), info.queueTables.end()),
                 (std::set<std::string>{"emails", "image-resize"}));
        QVERIFY(q->readOnly());
        QVERIFY(info.formatReadOnly());
        LQ_EXPECT_ERROR(q->put("x"), ErrorKind::ReadOnly, "");
        LQ_EXPECT_ERROR(q->pop(), ErrorKind::ReadOnly, "");
    } else {
        QVERIFY2(!q->readOnly(), info.readOnlyReason.c_str());
    }
    const std::optional<TimeNs> maxsize = optAt(qf, "maxsize");
    QCOMPARE(q->maxsize(), maxsize);

    // Counts.
    const Counts c = q->counts();
    QCOMPARE(c.ready, integerAt(sc, "READY"));
    QCOMPARE(c.locked, integerAt(sc, "LOCKED"));
    QCOMPARE(c.done, integerAt(sc, "DONE"));
    QCOMPARE(c.failed, integerAt(sc, "FAILED"));
    QCOMPARE(c.unknown, 0);
    QCOMPARE(c.stored, rows);
    QCOMPARE(c.active(), integerAt(qf, "qsize_ready_plus_locked"));
    QCOMPARE(q->readyCount(), c.ready);
    QCOMPARE(q->lockedCount(), c.locked);
    QCOMPARE(q->doneCount(), c.done);
    QCOMPARE(q->failedCount(), c.failed);
    QCOMPARE(q->activeCount(), c.active());
    QCOMPARE(q->storedCount(), rows);
    // The same counts from the timing columns (what the dashboard uses).
    for (const TimeNs stuckAfter : {300 * kNsPerSecond, 3600 * kNsPerSecond}) {
        Filter everything;
        const Counts fromCols = countsFrom(q->timing(everything), q->now(), stuckAfter);
        const Counts direct = q->counts(stuckAfter);
        QCOMPARE(fromCols.ready, direct.ready);
        QCOMPARE(fromCols.locked, direct.locked);
        QCOMPARE(fromCols.done, direct.done);
        QCOMPARE(fromCols.failed, direct.failed);
        QCOMPARE(fromCols.stuck, direct.stuck);
        QCOMPARE(fromCols.scheduled, direct.scheduled);
        QCOMPARE(fromCols.expired, direct.expired);
        QCOMPARE(fromCols.stored, direct.stored);
    }
    QCOMPARE(q->qsize(), c.ready);
    QCOMPARE(q->empty(), c.ready == 0);
    QCOMPARE(q->full(), maxsize.has_value() && c.ready >= *maxsize);
    QCOMPARE(static_cast<std::int64_t>(q->listFailed().size()), c.failed);
    for (State s : {State::Ready, State::Locked, State::Done, State::Failed})
        QCOMPARE(q->count(stateFilter({s})), integerAt(sc, stateName(s)));

    // Next pop.
    const auto next = optString(qf, "next_pop_message_id");
    const auto peek = q->peek();
    QCOMPARE(peek.has_value(), next.has_value());
    if (peek)
        QCOMPARE(peek->messageId, *next);

    // Time ranges from the timing columns.
    const TimingColumns tc = q->timing(Filter{});
    QCOMPARE(static_cast<std::int64_t>(tc.size()), rows);
    MinMax in, lock, done;
    for (std::size_t i = 0; i < tc.size(); ++i) {
        in.add(tc.inTime[i]);
        lock.add(tc.lockTime[i]);
        done.add(tc.doneTime[i]);
    }
    QCOMPARE(in.min, optAt(qf, "min_in_time"));
    QCOMPARE(in.max, optAt(qf, "max_in_time"));
    QCOMPARE(lock.min, optAt(qf, "min_lock_time"));
    QCOMPARE(lock.max, optAt(qf, "max_lock_time"));
    QCOMPARE(done.min, optAt(qf, "min_done_time"));
    QCOMPARE(done.max, optAt(qf, "max_done_time"));
    QCOMPARE(in.n, integerAt(qf, "non_null_in_time"));
    QCOMPARE(lock.n, integerAt(qf, "non_null_lock_time"));
    QCOMPARE(done.n, integerAt(qf, "non_null_done_time"));

    // Nearest-rank percentiles, exact.
    const QueueStats st = q->stats();
    const auto checkSummary = [](const Summary& s, const QJsonObject& f) {
        QCOMPARE(s.count, integerAt(f, "n"));
        QCOMPARE(s.p50, optAt(f, "p50"));
        QCOMPARE(s.p90, optAt(f, "p90"));
        QCOMPARE(s.p99, optAt(f, "p99"));
        QCOMPARE(s.max, optAt(f, "max"));
    };
    checkSummary(st.processing, at(qf, "processing_ns_done_with_lock_time").toObject());
    if (QTest::currentTestFailed())
        return;
    checkSummary(st.wait, at(qf, "wait_ns_lock_time_not_null").toObject());
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(st.oldestReadyInTime, optAt(qf, "next_pop_in_time"));
    QCOMPARE(st.oldestLockedLockTime, optAt(qf, "oldest_locked_lock_time"));

    // Stuck = LOCKED older than the threshold at the fake clock's end.
    if (end) {
        QCOMPARE(q->counts(600 * kNsPerSecond).stuck,
                 integerAt(qf, "locked_older_than_600s_at_end"));
        QCOMPARE(q->counts(3600 * kNsPerSecond).stuck,
                 integerAt(qf, "locked_older_than_3600s_at_end"));
        QCOMPARE(static_cast<std::int64_t>(q->listLocked(std::chrono::seconds(3600)).size()),
                 integerAt(qf, "locked_older_than_3600s_at_end"));
        QCOMPARE(static_cast<std::int64_t>(q->listLocked(std::chrono::seconds(600)).size()),
                 integerAt(qf, "locked_older_than_600s_at_end"));
    }

    // Row-level facts from list().
    const auto all = allRows(*q);
    QCOMPARE(static_cast<std::int64_t>(all.size()), rows);
    std::set<std::string> ids;
    std::int64_t readyWithLock = 0, doneNoLock = 0, failedNoLock = 0, empty = 0, multi = 0,
                 ascii = 0, bytes = 0;
    const Message* largest = nullptr;
    const Message* oldestLocked = nullptr;
    for (std::size_t i = 0; i < all.size(); ++i) {
        const Message& m = all[i];
        ids.insert(m.messageId);
        if (i > 0)
            QVERIFY(all[i - 1].messageId < m.messageId); // arrival = message_id order
        QCOMPARE(m.token, m.lockTime.value_or(0));       // legacy token: lock_time
        readyWithLock += m.state == State::Ready && m.lockTime;
        doneNoLock += m.state == State::Done && !m.lockTime;
        failedNoLock += m.state == State::Failed && !m.lockTime;
        empty += m.data.empty();
        multi += m.data.find('\n') != std::string::npos;
        ascii += nonAscii(m.data);
        bytes += static_cast<std::int64_t>(m.data.size());
        if (!largest || m.data.size() > largest->data.size())
            largest = &m;
        if (m.state == State::Locked && (!oldestLocked || *m.lockTime < *oldestLocked->lockTime))
            oldestLocked = &m;
    }
    QCOMPARE(static_cast<std::int64_t>(ids.size()), rows);
    QCOMPARE(readyWithLock, integerAt(qf, "ready_with_lock_time"));
    QCOMPARE(doneNoLock, integerAt(qf, "done_without_lock_time"));
    QCOMPARE(failedNoLock, integerAt(qf, "failed_without_lock_time"));
    QCOMPARE(empty, integerAt(qf, "empty_payloads"));
    QCOMPARE(multi, integerAt(qf, "multiline_payloads"));
    QCOMPARE(ascii, integerAt(qf, "non_ascii_payloads"));
    if (at(qf, "total_payload_utf8_bytes").isDouble())
        QCOMPARE(bytes, integerAt(qf, "total_payload_utf8_bytes"));
    const QJsonObject lp = at(qf, "largest_payload").toObject();
    if (!lp.isEmpty()) { // ties possible: compare the size, and the named row's size
        QCOMPARE(static_cast<std::int64_t>(largest->data.size()), integerAt(lp, "utf8_bytes"));
        const auto named = q->get(optString(lp, "message_id").value());
        QVERIFY(named);
        QCOMPARE(static_cast<std::int64_t>(named->data.size()), integerAt(lp, "utf8_bytes"));
    }
    QCOMPARE(oldestLocked ? std::optional<std::string>(oldestLocked->messageId) : std::nullopt,
             optString(qf, "oldest_locked_message_id"));
    if (peek)
        QCOMPARE(peek->inTime, optAt(qf, "next_pop_in_time"));

    // What the newer litequeue reported for the single-table files.
    const QJsonObject view = at(ff, "litequeue_new_version_view").toObject();
    if (!mainOnly && view.contains(QLatin1String("full"))) {
        QCOMPARE(q->full(), at(view, "full").toBool());
        QCOMPARE(q->empty(), at(view, "empty").toBool());
        QCOMPARE(static_cast<std::int64_t>(q->listFailed().size()), integerAt(view, "list_failed"));
    }
}

void TstFixtures::jobsLease() {
    const QJsonObject ff = at(m_facts, "seed-jobs-leases.sqlite3").toObject();
    const QJsonObject jf = at(ff, "jobs").toObject();
    const QJsonObject atRef = at(jf, "at_reference_time").toObject();
    const double refS = at(jf, "reference_time_s").toDouble();
    const TimeNs ref = secondsToNs(refS);
    QCOMPARE(ref, TimeNs(1742126400) * kNsPerSecond);

    QTemporaryDir dir;
    const std::string path = copyFixture(dir, QStringLiteral("seed-jobs-leases.sqlite3"));
    auto q = Queue::open(path, optionsWith(fixedClock(ref)));
    QCOMPARE(q->info().format, lq::core::QueueFormat::byId("jobs-lease"));
    QCOMPARE(q->info().table, std::string("jobs"));
    QCOMPARE(q->info().timeUnit, TimeUnit::Seconds);
    QVERIFY(!q->readOnly());
    QVERIFY(!q->maxsize());

    const std::int64_t rows = integerAt(jf, "rows");
    const std::int64_t leased = integerAt(atRef, "leased_now");
    const std::int64_t expired = integerAt(atRef, "lease_expired");
    const std::int64_t scheduled = integerAt(atRef, "scheduled_future");
    QCOMPARE(leased, 3);
    QCOMPARE(expired, 3);
    QCOMPARE(scheduled, 8);
    const std::int64_t ready = rows - leased - expired - scheduled;
    QCOMPARE(ready, integerAt(atRef, "due_now_unlocked"));

    const Counts c = q->counts();
    QCOMPARE(c.stored, rows);
    QCOMPARE(c.leased, leased);
    QCOMPARE(c.expired, expired);
    QCOMPARE(c.scheduled, scheduled);
    QCOMPARE(c.ready, ready);
    QCOMPARE(c.locked, leased); // "ready/locked hold READY/LEASED"
    QCOMPARE(c.done, 0);
    QCOMPARE(c.failed, 0);
    QCOMPARE(q->storedCount(), rows);
    // The same counts from the timing columns (what the dashboard uses).
    for (const TimeNs stuckAfter : {300 * kNsPerSecond, 3600 * kNsPerSecond}) {
        Filter everything;
        const Counts fromCols = countsFrom(q->timing(everything), q->now(), stuckAfter);
        const Counts direct = q->counts(stuckAfter);
        QCOMPARE(fromCols.ready, direct.ready);
        QCOMPARE(fromCols.locked, direct.locked);
        QCOMPARE(fromCols.done, direct.done);
        QCOMPARE(fromCols.failed, direct.failed);
        QCOMPARE(fromCols.stuck, direct.stuck);
        QCOMPARE(fromCols.scheduled, direct.scheduled);
        QCOMPARE(fromCols.expired, direct.expired);
        QCOMPARE(fromCols.stored, direct.stored);
    }
    QCOMPARE(q->count(stateFilter({State::Leased})), leased);
    QCOMPARE(q->count(stateFilter({State::Expired})), expired);
    QCOMPARE(q->count(stateFilter({State::Scheduled})), scheduled);
    QCOMPARE(q->count(stateFilter({State::Ready})), ready);
    QCOMPARE(q->count(stateFilter({State::Ready, State::Expired})), integerAt(atRef, "claimable"));

    // Per-row derived states, attempts, times.
    const auto all = allRows(*q);
    QCOMPARE(static_cast<std::int64_t>(all.size()), rows);
    std::map<State, std::int64_t> byState;
    std::map<std::int64_t, std::int64_t> attempts;
    std::int64_t lockedUntil = 0, gt1 = 0, schedAfterRetry = 0;
    std::optional<TimeNs> minRun, maxRun;
    for (const Message& m : all) {
        ++byState[m.state];
        ++attempts[m.attempts];
        QCOMPARE(m.token, m.attempts);
        QVERIFY(m.scheduledAt);
        minRun = minRun ? std::min(*minRun, *m.scheduledAt) : *m.scheduledAt;
        maxRun = maxRun ? std::max(*maxRun, *m.scheduledAt) : *m.scheduledAt;
        lockedUntil += m.leaseExpiry.has_value();
        gt1 += m.attempts > 1;
        schedAfterRetry += m.state == State::Scheduled && m.attempts >= 1;
        // docs/FORMATS.md#the-state-model's order: LEASED, SCHEDULED, EXPIRED, READY.
        State expect = State::Ready;
        if (m.leaseExpiry && *m.leaseExpiry >= ref)
            expect = State::Leased;
        else if (*m.scheduledAt > ref)
            expect = State::Scheduled;
        else if (m.leaseExpiry)
            expect = State::Expired;
        QCOMPARE(m.state, expect);
    }
    QCOMPARE(byState[State::Leased], leased);
    QCOMPARE(byState[State::Expired], expired);
    QCOMPARE(byState[State::Scheduled], scheduled);
    QCOMPARE(byState[State::Ready], ready);
    QCOMPARE(schedAfterRetry, integerAt(atRef, "scheduled_future_after_retry"));
    QCOMPARE(lockedUntil, integerAt(jf, "locked_until_not_null"));
    QCOMPARE(gt1, integerAt(jf, "attempts_gt_1"));
    const QJsonObject hist = at(jf, "attempts_histogram").toObject();
    QCOMPARE(static_cast<qsizetype>(attempts.size()), hist.size());
    for (auto it = hist.begin(); it != hist.end(); ++it)
        QCOMPARE(attempts[it.key().toLongLong()], it.value().toInteger());
    // REAL seconds: equal to the conversion within the REAL's own precision.
    const TimeNs wantMin = secondsToNs(at(jf, "min_run_at").toDouble());
    const TimeNs wantMax = secondsToNs(at(jf, "max_run_at").toDouble());
    QVERIFY2(std::llabs(*minRun - wantMin) <= 1000, std::to_string(*minRun - wantMin).c_str());
    QVERIFY2(std::llabs(*maxRun - wantMax) <= 1000, std::to_string(*maxRun - wantMax).c_str());

    // The next claim.
    QCOMPARE(q->peek().value().messageId, optString(atRef, "next_claim_id").value());
}

void TstFixtures::badFiles_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<ErrorKind>("kind");
    QTest::addColumn<QString>("message");
    QTest::newRow("not-a-queue") << QStringLiteral("not-a-queue.sqlite3") << ErrorKind::NotAQueue
                                 << QStringLiteral("not a queue file: found tables users");
    QTest::newRow("not-sqlite") << QStringLiteral("not-sqlite.sqlite3") << ErrorKind::Corrupt
                                << QStringLiteral("file is not a SQLite database");
    QTest::newRow("truncated") << QStringLiteral("truncated.sqlite3") << ErrorKind::Corrupt
                               << QStringLiteral("malformed");
    QTest::newRow("zero-bytes") << QStringLiteral("zero-bytes.sqlite3") << ErrorKind::NotAQueue
                                << QStringLiteral("empty database");
    QTest::newRow("missing path") << QStringLiteral(":missing") << ErrorKind::Io << QString();
    QTest::newRow("a directory") << QStringLiteral(":directory") << ErrorKind::Io << QString();
    QTest::newRow("pre-0.6 schema")
        << QStringLiteral(":pre06") << ErrorKind::Unsupported << QStringLiteral("pre-0.6");
}

void TstFixtures::badFiles() {
    QFETCH(QString, source);
    QFETCH(ErrorKind, kind);
    QFETCH(QString, message);

    QTemporaryDir dir;
    std::string path;
    if (source == QLatin1String(":missing")) {
        path = toStd(dir.filePath(QStringLiteral("nothing-here.sqlite3")));
    } else if (source == QLatin1String(":directory")) {
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("folder.sqlite3")));
        path = toStd(dir.filePath(QStringLiteral("folder.sqlite3")));
    } else if (source == QLatin1String(":pre06")) {
        path = toStd(dir.filePath(QStringLiteral("old.sqlite3")));
        Db db(path);
        db.exec(
            "CREATE TABLE Queue (message TEXT NOT NULL, message_id TEXT NOT NULL, status "
            "INTEGER NOT NULL, in_time INTEGER NOT NULL, lock_time INTEGER, done_time INTEGER)");
        db.exec("INSERT INTO Queue VALUES ('hi', 'a', 0, 1, NULL, NULL)");
    } else {
        path = copyFixture(dir, source);
    }
    const bool existed = QFileInfo::exists(fromStd(path));
    const QByteArray sha = QFileInfo(fromStd(path)).isFile() ? sha256(path) : QByteArray();
    const QStringList entries = QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot);

    const auto err = catchError([&] { Queue::open(path); });
    QVERIFY2(err, "open() did not throw");
    QCOMPARE(err->kind(), kind);
    QVERIFY2(contains(err->what(), toStd(message)), err->what());
    QVERIFY2(contains(err->what(), toStd(QFileInfo(fromStd(path)).fileName())), err->what());
    QCOMPARE(err->path(), path);

    // Nothing created, nothing changed.
    QCOMPARE(QFileInfo::exists(fromStd(path)), existed);
    if (QFileInfo(fromStd(path)).isFile())
        QCOMPARE(sha256(path), sha);
    if (source == QLatin1String(":missing")) {
        QStringList now = QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot);
        QCOMPARE(now, entries);
    }
    if (source == QLatin1String("zero-bytes.sqlite3"))
        QCOMPARE(QFileInfo(fromStd(path)).size(), 0);
}

void TstFixtures::readOnlyObjects_data() {
    QTest::addColumn<QString>("base");
    QTest::addColumn<QString>("sql");
    QTest::addColumn<QString>("name");
    for (const char* base : {"0.14", "legacy"}) {
        QTest::addRow("%s + trigger", base)
            << QString::fromLatin1(base)
            << QStringLiteral("CREATE TRIGGER audit_status AFTER UPDATE ON \"Queue\" BEGIN "
                              "SELECT 1; END")
            << QStringLiteral("audit_status");
        QTest::addRow("%s + view", base)
            << QString::fromLatin1(base)
            << QStringLiteral("CREATE VIEW ready_jobs AS SELECT * FROM \"Queue\" WHERE status = 0")
            << QStringLiteral("ready_jobs");
        // litequeue refuses a file with another table; the tool shows it read-only.
        QTest::addRow("%s + table", base)
            << QString::fromLatin1(base) << QStringLiteral("CREATE TABLE orders (id INTEGER)")
            << QStringLiteral("orders");
    }
}

void TstFixtures::readOnlyObjects() {
    QFETCH(QString, base);
    QFETCH(QString, sql);
    QFETCH(QString, name);

    QTemporaryDir dir;
    std::string path;
    if (base == QLatin1String("0.14")) {
        path = toStd(dir.filePath(QStringLiteral("q.sqlite3")));
        auto q = Queue::create(path, 10);
        q->put("a");
        q->pop();
        q->put("b");
    } else {
        path = copyFixture(dir, QString::fromLatin1(kMixed));
    }
    Db(path).exec(toStd(sql));
    const QByteArray sha = sha256(path);

    auto q = Queue::open(path);
    QVERIFY(q->readOnly());
    QVERIFY(q->info().formatReadOnly());
    QVERIFY2(contains(q->info().readOnlyReason, toStd(name)), q->info().readOnlyReason.c_str());
    QVERIFY(q->counts().stored > 0); // reading works
    QVERIFY(!allRows(*q).empty());
    const Message locked = q->list(stateFilter({State::Locked}), Sort{}, 0, 1).at(0);
    LQ_EXPECT_ERROR(q->put("x"), ErrorKind::ReadOnly, "");
    LQ_EXPECT_ERROR(q->pop(), ErrorKind::ReadOnly, "");
    LQ_EXPECT_ERROR(q->done(locked.messageId, locked.token), ErrorKind::ReadOnly, "");
    LQ_EXPECT_ERROR(q->retryExpired(std::chrono::seconds(0)), ErrorKind::ReadOnly, "");
    LQ_EXPECT_ERROR(q->prune(), ErrorKind::ReadOnly, "");
    if (base == QLatin1String("legacy")) // on 0.14 upgrade() is a no-op
        LQ_EXPECT_ERROR(q->upgrade(), ErrorKind::ReadOnly, "");
    LQ_EXPECT_ERROR(q->apply(Action::Retry, {Target{locked.messageId, locked.token}}),
                    ErrorKind::ReadOnly, "");
    q.reset();
    QCOMPARE(sha256(path), sha);
}

void TstFixtures::otherUserVersion_data() {
    QTest::addColumn<QString>("unit");
    QTest::addColumn<QString>("inTime");
    QTest::newRow("ns") << QStringLiteral("ns") << QStringLiteral("1700000000123456789");
    QTest::newRow("seconds") << QStringLiteral("s") << QStringLiteral("1700000000.5");
}

void TstFixtures::otherUserVersion() {
    QFETCH(QString, unit);
    QFETCH(QString, inTime);
    QTemporaryDir dir;
    const std::string path = toStd(dir.filePath(QStringLiteral("v9.sqlite3")));
    {
        Db db(path);
        db.exec("CREATE TABLE \"Queue\" (data TEXT NOT NULL, message_id TEXT NOT NULL, status "
                "INTEGER NOT NULL, in_time INTEGER NOT NULL, lock_time INTEGER, done_time INTEGER, "
                "idempotency_key TEXT, claim_id INTEGER NOT NULL DEFAULT 0)");
        db.exec("INSERT INTO Queue VALUES ('x', 'id-1', 0, " + toStd(inTime) +
                ", NULL, NULL, NULL, 0)");
        db.exec("PRAGMA user_version = 9");
    }
    const QByteArray sha = sha256(path);
    {
        auto q = Queue::open(path);
        QCOMPARE(q->info().format, lq::core::QueueFormat::byId("litequeue-unknown"));
        QCOMPARE(q->info().userVersion, 9);
        QVERIFY(q->readOnly());
        QVERIFY(!q->info().readOnlyReason.empty());
        const bool seconds = unit == QLatin1String("s");
        QCOMPARE(q->info().timeUnit, seconds ? TimeUnit::Seconds : TimeUnit::Nanoseconds);
        QCOMPARE(q->get("id-1").value().inTime,
                 std::optional<TimeNs>(seconds ? TimeNs(1'700'000'000'500'000'000)
                                               : TimeNs(1'700'000'000'123'456'789)));
        LQ_EXPECT_ERROR(q->put("y"), ErrorKind::ReadOnly, "");
    }
    QCOMPARE(sha256(path), sha);
}

void TstFixtures::neverModifies_data() {
    addQueueFixtures();
    QTest::newRow("seed-jobs-leases") << QStringLiteral("seed-jobs-leases.sqlite3") << false
                                      << QString() << lq::core::QueueFormat::byId("jobs-lease");
}

void TstFixtures::neverModifies() {
    QFETCH(QString, file);
    QFETCH(bool, mainOnly);
    QFETCH(QString, table);

    QTemporaryDir dir;
    const std::string path = copyFixture(dir, file, mainOnly);
    const std::string wal = path + "-wal";
    const QByteArray shaMain = sha256(path);
    const QByteArray shaWal = sha256(wal);
    const std::string schema = schemaDump(path);
    const std::int64_t version = userVersion(path);
    const std::string journal = Db(path, true).text("PRAGMA journal_mode");

    {
        auto q = Queue::open(path, optionsWith(fixedClock(1741946700137482911), toStd(table)));
        const Counts c = q->counts();
        const auto all = allRows(*q);
        QCOMPARE(static_cast<std::int64_t>(all.size()), c.stored);
        (void)q->stats();
        (void)q->timing(Filter{});
        (void)q->peek();
        (void)q->listLocked(std::chrono::seconds(0));
        (void)q->listFailed();
        Filter f;
        f.search = "a";
        (void)q->count(f);
        (void)q->targetsFor(f);
        Sort s;
        s.key = SortKey::Wait;
        s.descending = true;
        const auto order = q->orderedRowids(Filter{}, s);
        QCOMPARE(static_cast<std::int64_t>(order.size()), c.stored);
        QCOMPARE(q->fetchRowids(order).size(), order.size());
        if (!all.empty())
            QVERIFY(q->get(all.front().messageId));
        (void)q->dataVersion();
        QCOMPARE(q->fileSize(), QFileInfo(fromStd(path)).size());
        (void)q->walSize();
        (void)q->full();
    }

    QCOMPARE(sha256(path), shaMain);
    if (QFileInfo::exists(fromStd(wal)) && shaWal != QByteArray("<missing>"))
        QCOMPARE(sha256(wal), shaWal);
    QCOMPARE(schemaDump(path), schema);
    QCOMPARE(userVersion(path), version);
    QCOMPARE(Db(path, true).text("PRAGMA journal_mode"), journal);
    // Nothing but the SQLite side files appeared.
    const QString base = QFileInfo(fromStd(path)).fileName();
    const QStringList allowed{base, base + QStringLiteral("-wal"), base + QStringLiteral("-shm")};
    for (const QString& e : QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot))
        QVERIFY2(allowed.contains(e), qPrintable(e));
}

namespace {

/// The mixed fixture rewritten as a litequeue 0.13 file (REAL seconds), so
/// the query layer's unit conversions are exercised too.
std::string mixedAs013(const QTemporaryDir& dir) {
    const std::string src = copyFixture(dir, QString::fromLatin1(kMixed));
    const std::string dst = toStd(dir.filePath(QStringLiteral("mixed-013.sqlite3")));
    Db out(dst);
    out.exec("CREATE TABLE \"Queue\" (data TEXT NOT NULL, message_id TEXT NOT NULL, status "
             "INTEGER NOT NULL, in_time INTEGER NOT NULL, lock_time INTEGER, done_time INTEGER, "
             "idempotency_key TEXT, claim_id INTEGER NOT NULL DEFAULT 0)");
    out.exec("CREATE UNIQUE INDEX \"Queue_message_id_unique_idx\" ON \"Queue\"(message_id)");
    out.exec("ATTACH DATABASE '" + src + "' AS src");
    out.exec("INSERT INTO Queue SELECT data, message_id, status, in_time / 1e9, lock_time / 1e9, "
             "done_time / 1e9, NULL, CASE WHEN lock_time IS NULL THEN 0 ELSE 1 END "
             "FROM src.Queue ORDER BY rowid");
    out.exec("DETACH DATABASE src");
    out.exec("PRAGMA user_version = 2");
    return dst;
}

bool matches(const Message& m, const Filter& f, TimeNs now) {
    if (!f.states.empty() && std::find(f.states.begin(), f.states.end(), m.state) == f.states.end())
        return false;
    if (f.stuckOnly && !(m.state == State::Locked && *m.lockTime < now - f.stuckAfterNs))
        return false;
    if (!f.search.empty() && !contains(m.data, f.search) && !contains(m.messageId, f.search) &&
        !contains(m.idempotencyKey.value_or(std::string()), f.search))
        return false;
    if (f.olderThan && !(*m.inTime < now - f.olderThan->count()))
        return false;
    if (f.inTimeFrom && !(*m.inTime >= *f.inTimeFrom))
        return false;
    if (f.inTimeTo && !(*m.inTime < *f.inTimeTo))
        return false;
    if (f.doneBefore && !(m.doneTime && *m.doneTime < *f.doneBefore))
        return false;
    if (f.metric != Filter::Metric::None) {
        std::optional<TimeNs> v;
        switch (f.metric) {
        case Filter::Metric::Wait:
            v = m.waitNs();
            break;
        case Filter::Metric::Processing:
            v = m.processingNs();
            break;
        case Filter::Metric::Total:
            v = m.totalNs();
            break;
        case Filter::Metric::TimeToFailure:
            if (m.state == State::Failed && m.lockTime && m.doneTime)
                v = *m.doneTime - *m.lockTime;
            break;
        case Filter::Metric::None:
            break;
        }
        if (!v || *v < f.metricLo || *v >= f.metricHi)
            return false;
    }
    return true;
}

} // namespace

void TstFixtures::queryLayer_data() {
    QTest::addColumn<bool>("seconds");
    QTest::newRow("litequeue-legacy (ns)") << false;
    QTest::newRow("litequeue-0.13 (seconds)") << true;
}

void TstFixtures::queryLayer() {
    QFETCH(bool, seconds);
    const TimeNs end = 1741946700137482911;
    QTemporaryDir dir;
    const std::string path =
        seconds ? mixedAs013(dir) : copyFixture(dir, QString::fromLatin1(kMixed));
    auto q = Queue::open(path, optionsWith(fixedClock(end)));
    QCOMPARE(q->info().format, seconds ? lq::core::QueueFormat::byId("litequeue-0.13")
                                       : lq::core::QueueFormat::byId("litequeue-legacy"));
    const auto all = allRows(*q);
    QCOMPARE(all.size(), std::size_t(400));
    const Counts c = q->counts(600 * kNsPerSecond);
    QCOMPARE(c.ready, 58);
    QCOMPARE(c.locked, 14);
    QCOMPARE(c.stuck, 14);
    QCOMPARE(q->listLocked(std::chrono::seconds(3600)).size(), std::size_t(10));

    std::vector<std::pair<const char*, Filter>> filters;
    const auto add = [&](const char* name, auto&& tweak) {
        Filter f;
        tweak(f);
        filters.emplace_back(name, f);
    };
    for (State s : {State::Ready, State::Locked, State::Done, State::Failed})
        add(stateName(s), [s](Filter& f) { f.states = {s}; });
    add("stuck 600 s", [](Filter& f) {
        f.stuckOnly = true;
        f.stuckAfterNs = 600 * kNsPerSecond;
    });
    add("stuck 3600 s", [](Filter& f) {
        f.stuckOnly = true;
        f.stuckAfterNs = 3600 * kNsPerSecond;
    });
    for (const char* needle : {"_", "%", "task", "{", "019593d", "\xc3\xa9", "'", "\\"})
        add(needle, [needle](Filter& f) { f.search = needle; });
    add("older than 1 h", [](Filter& f) { f.olderThan = std::chrono::milliseconds(3600123); });
    add("in window", [&](Filter& f) {
        f.inTimeFrom = end - 5000 * kNsPerSecond + 123456;
        f.inTimeTo = end - 2000 * kNsPerSecond + 654321;
    });
    add("done before", [&](Filter& f) { f.doneBefore = end - 4000 * kNsPerSecond + 777; });
    add("wait band", [](Filter& f) {
        f.metric = Filter::Metric::Wait;
        f.metricLo = 2 * kNsPerSecond + 1234;
        f.metricHi = 300 * kNsPerSecond + 4321;
    });
    add("processing band", [](Filter& f) {
        f.metric = Filter::Metric::Processing;
        f.metricLo = 500'001'234;
        f.metricHi = 10 * kNsPerSecond + 4321;
    });
    add("total band", [](Filter& f) {
        f.metric = Filter::Metric::Total;
        f.metricLo = 0;
        f.metricHi = 60 * kNsPerSecond + 4321;
    });
    add("time to failure band", [](Filter& f) {
        f.metric = Filter::Metric::TimeToFailure;
        f.metricLo = 0;
        f.metricHi = 3600 * kNsPerSecond;
    });
    add("READY+LOCKED, 'a', older than 10 min", [](Filter& f) {
        f.states = {State::Ready, State::Locked};
        f.search = "a";
        f.olderThan = std::chrono::milliseconds(600500);
    });
    add("pinned now", [&](Filter& f) {
        f.now = end - 3600 * kNsPerSecond;
        f.olderThan = std::chrono::milliseconds(1800250);
    });

    for (const auto& [name, f] : filters) {
        const TimeNs now = f.now.value_or(end);
        std::int64_t expected = 0;
        for (const Message& m : all)
            expected += matches(m, f, now);
        const std::int64_t n = q->count(f);
        QVERIFY2(n == expected, (std::string(name) + ": count " + std::to_string(n) +
                                 ", expected " + std::to_string(expected))
                                    .c_str());
        QCOMPARE(static_cast<std::int64_t>(q->targetsFor(f).size()), expected);
        const auto listed = q->list(f, Sort{}, 0, 1000);
        QCOMPARE(static_cast<std::int64_t>(listed.size()), expected);
        for (const Message& m : listed)
            QVERIFY2(matches(m, f, now), (std::string(name) + ": " + m.messageId).c_str());
        // Stats over a filter cover exactly its rows.
        QCOMPARE(static_cast<std::int64_t>(q->timing(f).size()), expected);
    }

    // Every sort key, both directions: ordered by key, ties by rowid; pages
    // of list() agree with orderedRowids() + fetchRowids().
    using Key = std::optional<std::int64_t>;
    const auto keyOf = [](SortKey k, const Message& m) -> Key {
        const auto diff = [](const std::optional<TimeNs>& a, const std::optional<TimeNs>& b) {
            return a && b ? Key(*a - *b) : std::nullopt;
        };
        switch (k) {
        case SortKey::InTime:
        case SortKey::Age:
            return m.inTime;
        case SortKey::LockTime:
            return m.lockTime;
        case SortKey::DoneTime:
            return m.doneTime;
        case SortKey::Wait:
            return diff(m.lockTime, m.inTime);
        case SortKey::Processing:
            return diff(m.doneTime, m.lockTime);
        case SortKey::Claim:
            return m.token;
        case SortKey::Status:
            return m.rawStatus;
        case SortKey::Arrival:
            break;
        }
        return std::nullopt;
    };
    for (SortKey k :
         {SortKey::Arrival, SortKey::InTime, SortKey::LockTime, SortKey::DoneTime, SortKey::Wait,
          SortKey::Processing, SortKey::Age, SortKey::Claim, SortKey::Status}) {
        for (bool desc : {false, true}) {
            const Sort s{k, desc};
            const auto ids = q->orderedRowids(Filter{}, s);
            QCOMPARE(ids.size(), all.size());
            const auto rows = q->fetchRowids(ids);
            QCOMPARE(rows.size(), ids.size());
            // Age ascending is the youngest first.
            const bool down = k == SortKey::Age ? !desc : desc;
            for (std::size_t i = 0; i < rows.size(); ++i) {
                QCOMPARE(rows[i].rowid, ids[i]);
                if (i == 0)
                    continue;
                const Message& a = rows[i - 1];
                const Message& b = rows[i];
                bool ordered;
                if (k == SortKey::Arrival) {
                    ordered = down ? a.messageId > b.messageId : a.messageId < b.messageId;
                } else {
                    const Key ka = keyOf(k, a), kb = keyOf(k, b);
                    ordered = down ? !(ka < kb) : !(kb < ka); // nullopt sorts lowest
                    if (ka == kb)
                        ordered = down ? a.rowid > b.rowid : a.rowid < b.rowid;
                }
                QVERIFY2(ordered, (std::to_string(static_cast<int>(k)) + (desc ? " desc" : " asc") +
                                   " at " + std::to_string(i))
                                      .c_str());
            }
            const auto page = q->list(Filter{}, s, 100, 50);
            QCOMPARE(page.size(), std::size_t(50));
            for (std::size_t i = 0; i < page.size(); ++i)
                QCOMPARE(page[i].rowid, ids[100 + i]);
        }
    }
}

void TstFixtures::formatsCountsFromColumns_data() {
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<qint64>("now");
    QFile f(dataDir() + QStringLiteral("/formats/facts.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject all = QJsonDocument::fromJson(f.readAll()).object();
    for (auto it = all.begin(); it != all.end(); ++it) {
        const QJsonObject o = it.value().toObject();
        if (!o.contains(QStringLiteral("counts")))
            continue;
        const auto t = parseTimeArg(toStd(o.value(QStringLiteral("now")).toString()));
        QVERIFY(t);
        for (const TimeNs later : {TimeNs(0), 90 * 60 * kNsPerSecond})
            QTest::addRow("%s +%lld min", qPrintable(it.key()),
                          static_cast<long long>(later / kNsPerSecond / 60))
                << it.key() << qint64(*t + later);
    }
}

// The dashboard counts from the timing columns: stuck there follows each
// format's own rule (a lease, a heartbeat, the library's rescue age), as
// Queue::counts() and so lqctl info and stats do, whatever the threshold.
void TstFixtures::formatsCountsFromColumns() {
    QFETCH(QString, fixture);
    QFETCH(qint64, now);
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, QStringLiteral("formats/") + fixture);
    auto q = Queue::open(path, optionsWith(fixedClock(now)));
    Filter everything;
    everything.now = now;
    const TimingColumns cols = q->timing(everything);
    for (const TimeNs stuckAfter : {300 * kNsPerSecond, 7200 * kNsPerSecond}) {
        const Counts direct = q->counts(stuckAfter);
        const Counts fromCols = countsFrom(cols, now, stuckAfter);
        QCOMPARE(fromCols.stuck, direct.stuck);
        QCOMPARE(fromCols.locked, direct.locked);
        QCOMPARE(fromCols.ready, direct.ready);
        QCOMPARE(fromCols.stored, direct.stored);
        // Every field, the format's own states included, where the scan
        // carries them all (the exporter's and the dashboard's one pass).
        const QueueFormat& format = QueueFormat::of(q->info());
        if (const auto scanned = countsOfScan(format, cols, now, stuckAfter, false))
            QCOMPARE(describeEveryCount(scanned->total), describeEveryCount(direct));
        else
            QVERIFY2(!format.extraStates().empty(), "a format without states of its own");
    }
}

QTEST_GUILESS_MAIN(TstFixtures)
#include "tst_fixtures.moc"
