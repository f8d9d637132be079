// SPDX-License-Identifier: MIT
// Chunked reads (OpenOptions::scanChunkRows, walChunkRows): the long reads
// (counts, orderings, timing columns) are split into short read
// transactions, so a writer waits for one chunk only on a rollback-journal
// file and a WAL can restart between chunks. Split or not, they must give
// the same answers: every fixture of every format, as a rollback-journal
// copy and as a WAL copy, read in chunks of 2 keys (fixed, and widened as
// ChunkPace widens them) and in one read; and the timing scan's own
// classification agrees with the counts. Sparse keys (a pruned history, or a
// hostile file's rowids at both ends of int64) give the same answers too, in
// a bounded number of reads.
#include "core/formats/queueformat.h"
#include "formatfacts.h"
#include "support/fixtures.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTemporaryDir>

#include <algorithm>
#include <tuple>

using namespace lqtest;
using namespace lq::core;

namespace {

/// Every file a format reads: the litequeue and seed fixtures and the
/// format fixtures.
QStringList allFixtures() {
    QStringList out = {QStringLiteral("litequeue-head-mixed.sqlite3"),
                       QStringLiteral("litequeue-oldmulti.sqlite3"),
                       QStringLiteral("seed-jobs-leases.sqlite3")};
    for (const QString& f : lq::test::formatFixtures())
        out << QStringLiteral("formats/") + f;
    return out;
}

/// Chunks of `chunkRows` rows; with `budgetUs`, widened where they read
/// faster than that (ChunkPace).
std::unique_ptr<Queue> openChunked(const std::string& path, std::int64_t chunkRows,
                                   std::int64_t budgetUs = 0) {
    OpenOptions o;
    o.chunkBudgetUs = budgetUs;
    o.clock = fixedClock(kFactsNow);
    o.readOnly = true;
    o.scanChunkRows = chunkRows;
    o.walChunkRows = chunkRows;
    return Queue::open(path, o);
}

std::string describe(const Counts& c) {
    std::string s = std::to_string(c.ready) + "/" + std::to_string(c.locked) + "/" +
                    std::to_string(c.done) + "/" + std::to_string(c.failed) + "/" +
                    std::to_string(c.unknown) + "/" + std::to_string(c.stuck) + "/" +
                    std::to_string(c.scheduled) + "/" + std::to_string(c.leased) + "/" +
                    std::to_string(c.expired) + "/" + std::to_string(c.stored);
    for (const auto& [name, n] : c.extra)
        s += " " + name + "=" + std::to_string(n);
    return s;
}

using TimingRow = std::tuple<int, TimeNs, TimeNs, TimeNs, std::int64_t, int>;

/// The timing columns as a sorted list of rows: a chunked read visits the
/// arms of a compound source in another order.
std::vector<TimingRow> rowsOf(const TimingColumns& t) {
    std::vector<TimingRow> out;
    for (std::size_t i = 0; i < t.size(); ++i)
        out.emplace_back(t.state[i], t.inTime[i], t.lockTime[i], t.doneTime[i],
                         t.attempts.empty() ? 0 : t.attempts[i],
                         t.ownStuck.empty() ? -1 : t.ownStuck[i]);
    std::sort(out.begin(), out.end());
    return out;
}

/// orderedRowids, or the error's text when the sort is not offered: both
/// reads must agree on either.
std::string orderOf(Queue& q, const Filter& f, const Sort& s) {
    try {
        std::string out;
        for (std::int64_t id : q.orderedRowids(f, s))
            out += std::to_string(id) + ",";
        return out;
    } catch (const std::exception& e) {
        return std::string("error: ") + e.what();
    }
}

} // namespace

class TstChunkedReads : public QObject {
    Q_OBJECT

private slots:
    void sameAnswersInChunks_data();
    void sameAnswersInChunks();
    void aJobOutsideEveryNamedQueueIsCountedInTheWhole();
    void sparseKeys_data();
    void sparseKeys();
};

void TstChunkedReads::sameAnswersInChunks_data() {
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QString>("journal");
    for (const QString& f : allFixtures())
        for (const char* j : {"delete", "wal"})
            QTest::newRow(qPrintable(f + QLatin1Char(' ') + QLatin1String(j)))
                << f << QString::fromLatin1(j);
}

void TstChunkedReads::sameAnswersInChunks() {
    QFETCH(QString, fixture);
    QFETCH(QString, journal);
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, fixture);
    {
        Db db(path);
        db.exec("PRAGMA journal_mode=" + journal.toStdString());
    }
    auto one = openChunked(path, 0);
    // Fixed chunks of two keys, and chunks from two keys widened as they
    // read fast (2, 4, 8, ... 128 keys: every boundary on a new row).
    for (const std::int64_t budgetUs : {0, 1000}) {
        auto chunked = openChunked(path, 2, budgetUs);
        QCOMPARE(QString::fromStdString(chunked->info().journalMode).toLower(), journal);

        QCOMPARE(describe(chunked->counts()), describe(one->counts()));
        for (const std::string& name : one->queueNames())
            QCOMPARE(describe(chunked->counts(name)), describe(one->counts(name)));
        // The whole and each named queue in one pass (the exporter's, the
        // fleet's, stats --prometheus): the same counts as read one by one.
        for (Queue* q : {one.get(), chunked.get()}) {
            const Queue::CountsWithQueues cq = q->countsWithQueues();
            QCOMPARE(describe(cq.total), describe(one->counts()));
            std::vector<std::string> names;
            for (const auto& [name, c] : cq.queues) {
                names.push_back(name);
                QCOMPARE(describe(c), describe(one->counts(name)));
            }
            QCOMPARE(names.size(), QueueFormat::of(q->info()).namedQueues()
                                       ? one->queueNames().size()
                                       : std::size_t(0));
        }

        QCOMPARE(rowsOf(chunked->timing({})).size(), rowsOf(one->timing({})).size());
        QVERIFY(rowsOf(chunked->timing({})) == rowsOf(one->timing({})));
        // The timing scan classifies rows itself (each format's timingRow, no
        // Message per row): the dashboard's cards equal the counts.
        {
            const Counts direct = one->counts();
            const Counts fromCols = countsFrom(one->timing({}), one->now(), kDefaultStuckAfterNs);
            QCOMPARE(fromCols.ready, direct.ready);
            QCOMPARE(fromCols.scheduled, direct.scheduled);
            QCOMPARE(fromCols.locked, direct.locked);
            QCOMPARE(fromCols.stuck, direct.stuck);
            QCOMPARE(fromCols.done, direct.done);
            QCOMPARE(fromCols.failed, direct.failed);
            QCOMPARE(fromCols.stored, direct.stored);
        }

        std::vector<Filter> filters(1);
        for (State s : {State::Ready, State::Locked, State::Done, State::Failed}) {
            Filter f;
            f.states = {s};
            filters.push_back(f);
        }
        for (const Filter& f : filters) {
            for (SortKey k : {SortKey::Arrival, SortKey::InTime, SortKey::LockTime,
                              SortKey::DoneTime, SortKey::Wait, SortKey::Processing, SortKey::Age,
                              SortKey::Claim, SortKey::Status}) {
                for (bool desc : {false, true}) {
                    const Sort s{k, desc};
                    QCOMPARE(orderOf(*chunked, f, s), orderOf(*one, f, s));
                }
            }
        }
    }
}

void TstChunkedReads::aJobOutsideEveryNamedQueueIsCountedInTheWhole() {
    // A Laravel job whose queue is NULL is in no named queue: the sum of the
    // queues is one short, and the whole is counted on its own.
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, QStringLiteral("formats/laravel-database.sqlite3"));
    std::int64_t before = 0;
    {
        auto q = openChunked(path, 0);
        before = q->counts().stored;
    }
    {
        Db db(path);
        db.exec("PRAGMA ignore_check_constraints=ON");
        db.exec("CREATE TABLE t AS SELECT * FROM jobs LIMIT 1");
        db.exec("UPDATE t SET id = (SELECT max(id) + 1 FROM jobs), queue = ''");
        db.exec("INSERT INTO jobs SELECT * FROM t");
        db.exec("DROP TABLE t");
    }
    auto q = openChunked(path, 0);
    const Queue::CountsWithQueues cq = q->countsWithQueues();
    QCOMPARE(cq.total.stored, before + 1);
    QCOMPARE(describe(cq.total), describe(q->counts()));
}

void TstChunkedReads::sparseKeys_data() {
    QTest::addColumn<QString>("journal");
    QTest::addColumn<bool>("large");
    for (const char* j : {"delete", "wal"}) {
        QTest::newRow(qPrintable(QStringLiteral("%1 small").arg(QLatin1String(j))))
            << QString::fromLatin1(j) << false;
        // Over 800 KB: the file could hold the 200,000 rows above which the
        // timing scan splits the keys between two threads.
        QTest::newRow(qPrintable(QStringLiteral("%1 large").arg(QLatin1String(j))))
            << QString::fromLatin1(j) << true;
    }
}

void TstChunkedReads::sparseKeys() {
    QFETCH(QString, journal);
    QFETCH(bool, large);
    QTemporaryDir plainDir, sparseDir;
    const std::string plain = copyFixture(plainDir, QStringLiteral("litequeue-head-mixed.sqlite3"));
    const std::string path = copyFixture(sparseDir, QStringLiteral("litequeue-head-mixed.sqlite3"));
    {
        // Three of the 400 rows moved to the ends of int64 and to 2^62: a
        // key range of 2^64 over a file that holds a few hundred rows.
        Db db(path);
        db.exec("PRAGMA journal_mode=" + journal.toStdString());
        db.exec("UPDATE Queue SET rowid = 9223372036854775807 WHERE rowid = 400");
        db.exec("UPDATE Queue SET rowid = 4611686018427387904 WHERE rowid = 399");
        db.exec("UPDATE Queue SET rowid = -9223372036854775808 WHERE rowid = 1");
        if (large)
            db.exec(
                "CREATE TABLE app_blobs(b BLOB); INSERT INTO app_blobs VALUES (zeroblob(1000000))");
    }
    auto reference = openChunked(plain, 0);
    QElapsedTimer clock;
    clock.start();
    auto one = openChunked(path, 0);
    auto chunked = openChunked(path, 64);
    QCOMPARE(describe(one->counts()), describe(reference->counts()));
    QCOMPARE(describe(chunked->counts()), describe(reference->counts()));
    const auto expected = rowsOf(reference->timing({}));
    QCOMPARE(rowsOf(one->timing({})).size(), expected.size());
    QVERIFY(rowsOf(one->timing({})) == expected);
    QVERIFY(rowsOf(chunked->timing({})) == expected);
    const Sort byArrival{SortKey::Arrival, false};
    const std::string order = orderOf(*one, {}, byArrival);
    QVERIFY(order.find("-9223372036854775808,") == 0);
    QVERIFY(order.find(",9223372036854775807,") != std::string::npos);
    QCOMPARE(orderOf(*chunked, {}, byArrival), order);
    QCOMPARE(QString::fromStdString(orderOf(*chunked, {}, Sort{SortKey::Wait, true})),
             QString::fromStdString(orderOf(*one, {}, Sort{SortKey::Wait, true})));
    // Reads sized by the keys' range would never end (2^57 reads of 128
    // keys); sized by what the file holds they take a moment.
    QVERIFY2(clock.elapsed() < 20'000, qPrintable(QString::number(clock.elapsed())));
}

QTEST_GUILESS_MAIN(TstChunkedReads)
#include "tst_chunkedreads.moc"
