// SPDX-License-Identifier: MIT
// The pace of chunked reads in WAL mode (core/chunks.h), against a real
// writer on a real file:
// - every chunked read of one file in this process takes turns with the
//   others (never two chunks at once), and a read nested in another goes on;
// - a chunk starts away from the writer's next checkpoint, so the WAL stays
//   the length it has with the writer alone. Reads that start anywhere (the
//   same test with the wait off) make it longer: the test can fail;
// - where the WAL cannot restart (another reader holds it), the wait gives
//   up after one try instead of costing every chunk.
#include "core/chunks.h"
#include "core/sqlite.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

using namespace lq::core;
using namespace std::chrono_literals;

namespace {

using Clock = std::chrono::steady_clock;

/// A WAL file with 2,000 rows to read.
std::string makeWalFile(const QTemporaryDir& dir) {
    std::string path = dir.filePath(QStringLiteral("wal.sqlite3")).toStdString();
    Connection c(path, Connection::Mode::ReadWriteCreate, 5000);
    c.exec("PRAGMA journal_mode=WAL");
    c.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
    c.exec("CREATE TABLE w(id INTEGER PRIMARY KEY, b BLOB)");
    c.exec("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) "
           "INSERT INTO t(v) SELECT printf('row %d', i) FROM n");
    c.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    return path;
}

std::int64_t walBytes(const std::string& path) {
    std::error_code ec;
    const auto n = std::filesystem::file_size(path + "-wal", ec);
    return ec ? 0 : static_cast<std::int64_t>(n);
}

/// A writer committing a page-sized row every 100 µs on its own connection,
/// checkpointing at SQLite's default 1,000 frames, until stopped.
class Writer {
public:
    explicit Writer(const std::string& path)
        : m_thread([this, path] {
            Connection c(path, Connection::Mode::ReadWrite, 5000);
            c.exec("PRAGMA synchronous=OFF");
            auto ins = c.prepare("INSERT INTO w(b) VALUES (zeroblob(3000))");
            while (!m_stop) {
                ins.exec();
                ins.reset();
                std::this_thread::sleep_for(100us);
            }
        }) {}
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;
    ~Writer() {
        m_stop = true;
        m_thread.join();
    }

private:
    std::atomic_bool m_stop{false};
    std::thread m_thread;
};

/// Chunks of a 10 ms read transaction each, for `howLong`.
void readInChunks(const std::string& path, Clock::duration howLong, bool awayFromCheckpoints) {
    Connection c(path, Connection::Mode::ReadOnly, 5000);
    ChunkPace pace(c, true, 1, Clock::duration::zero(), awayFromCheckpoints);
    const Clock::time_point end = Clock::now() + howLong;
    while (Clock::now() < end) {
        c.exec("BEGIN");
        c.cached("SELECT count(*) FROM t")->exec();
        std::this_thread::sleep_for(10ms);
        c.exec("COMMIT");
        pace();
    }
}

} // namespace

class TstWalTurns : public QObject {
    Q_OBJECT

private slots:
    void chunkedReadsOfOneFileTakeTurns();
    void theWalKeepsItsLengthAlone_data();
    void theWalKeepsItsLengthAlone();
    void aWalThatCannotRestartCostsOneWait();
};

void TstWalTurns::chunkedReadsOfOneFileTakeTurns() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = makeWalFile(dir);
    const Writer writer(path); // moves data_version: the readers owe pauses
    struct Span {
        Clock::time_point from, to;
        int reader;
    };
    std::mutex m;
    std::vector<Span> spans;
    const auto reader = [&](int who) {
        Connection c(path, Connection::Mode::ReadOnly, 5000);
        ChunkPace pace(c, true, 1, Clock::duration::zero());
        for (int i = 0; i < 20; ++i) {
            const Clock::time_point from = Clock::now();
            c.cached("SELECT count(*) FROM t")->exec();
            std::this_thread::sleep_for(1ms);
            if (i == 10) {
                // A read nested in this one, on another connection of the
                // same file (a count inside an ordering), goes on.
                Connection inner(path, Connection::Mode::ReadOnly, 5000);
                ChunkPace nested(inner, true, 1, Clock::duration::zero());
                inner.cached("SELECT count(*) FROM t")->exec();
                nested();
            }
            const Clock::time_point to = Clock::now();
            {
                const std::lock_guard lk(m);
                spans.push_back({from, to, who});
            }
            pace();
        }
    };
    std::thread a(reader, 1);
    std::thread b(reader, 2);
    a.join();
    b.join();
    QCOMPARE(spans.size(), std::size_t(40));
    for (const Span& x : spans)
        for (const Span& y : spans)
            if (x.reader != y.reader)
                QVERIFY2(x.to <= y.from || y.to <= x.from, "two readers' chunks overlapped");
}

void TstWalTurns::theWalKeepsItsLengthAlone_data() {
    QTest::addColumn<bool>("awayFromCheckpoints");
    QTest::addColumn<bool>("keepsItsLength");
    QTest::newRow("chunks start after the WAL restarted") << true << true;
    QTest::newRow("chunks start anywhere") << false << false;
}

void TstWalTurns::theWalKeepsItsLengthAlone() {
    QFETCH(bool, awayFromCheckpoints);
    QFETCH(bool, keepsItsLength);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = makeWalFile(dir);
    // The WAL never shrinks (no journal_size_limit): its size is the
    // longest it has been. Alone, the writer's checkpoint restarts it after
    // 1,000 frames.
    std::int64_t alone = 0;
    {
        const Writer writer(path);
        std::this_thread::sleep_for(600ms);
        alone = walBytes(path);
    }
    QVERIFY(alone > 0);
    // Chunks of 10 ms, a fifth of the writer's time from restart to
    // checkpoint, and a pause as long after each: beside the writer for
    // about 40 checkpoints.
    // Measured before the writer closes: the last connection to close
    // checkpoints and deletes the WAL.
    std::int64_t beside = 0;
    {
        const Writer writer(path);
        readInChunks(path, 2s, awayFromCheckpoints);
        beside = walBytes(path);
    }
    QVERIFY(beside > 0);
    const double ratio = double(beside) / double(alone);
    qInfo("WAL alone %lld bytes, beside the chunked reads %lld bytes (%.2fx)",
          static_cast<long long>(alone), static_cast<long long>(beside), ratio);
    if (keepsItsLength)
        QVERIFY2(ratio <= 1.05, "the chunked reads made the WAL longer than alone");
    else
        QVERIFY2(ratio > 1.05, "reads that start anywhere left the WAL as alone: the test "
                               "cannot tell the wait from none");
}

void TstWalTurns::aWalThatCannotRestartCostsOneWait() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = makeWalFile(dir);
    // Another reader (a backup tool, say) holds a read open from before
    // the first write: no checkpoint can copy the WAL back, so it never
    // restarts and stays past the checkpoint's length.
    Connection pin(path, Connection::Mode::ReadOnly, 5000);
    pin.exec("BEGIN");
    pin.cached("SELECT count(*) FROM t")->exec();
    const Writer writer(path);
    // Past the checkpoint's length (1,000 frames of 4 KiB): from here every
    // chunk would wait for a restart.
    const Clock::time_point grown = Clock::now() + 10s;
    while (walBytes(path) <= 4'200'000 && Clock::now() < grown)
        std::this_thread::sleep_for(10ms);
    QVERIFY2(walBytes(path) > 4'200'000, "the writer did not grow the WAL past 1,000 frames");
    // Twenty chunks: waiting for a restart that cannot come would cost each
    // 100 ms; the first wait that runs out ends the waiting.
    Connection c(path, Connection::Mode::ReadOnly, 5000);
    const Clock::time_point start = Clock::now();
    {
        ChunkPace pace(c, true, 1, Clock::duration::zero());
        for (int i = 0; i < 20; ++i) {
            c.cached("SELECT count(*) FROM t")->exec();
            pace();
        }
    }
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    qInfo("20 chunks beside a WAL that cannot restart: %lld ms",
          static_cast<long long>(ms.count()));
    QVERIFY(ms < 1000ms);
    pin.exec("COMMIT");
}

QTEST_GUILESS_MAIN(TstWalTurns)
#include "tst_walturns.moc"
