// SPDX-License-Identifier: MIT
// `lqctl exporter`: concurrent scrapes checked against `lqctl stats --json`
// on the same files, 404 off /metrics, and a real Prometheus server
// (Debian's `prometheus`) scraping it, queried through its HTTP API.
#include <core/json.h>
#include <core/queue.h>
#include <support/net.h>
#include <support/waits.h>

#include <sqlite3.h>

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <cstdio>
#include <map>
#include <thread>

using namespace lq::core;
using lq::test::freePort;
using lq::test::httpGet;

namespace {

/// lq_messages samples: queue path -> status -> value.
std::map<std::string, std::map<std::string, double>> messagesOf(const std::string& text) {
    std::map<std::string, std::map<std::string, double>> out;
    static const QRegularExpression re(QStringLiteral(
        R"re(^lq_messages\{queue="([^"]*)",table="[^"]*",status="([a-z]+)"\} (\S+)$)re"));
    for (const auto& line : QString::fromStdString(text).split(QLatin1Char('\n'))) {
        const auto m = re.match(line);
        if (m.hasMatch())
            out[m.captured(1).toStdString()][m.captured(2).toStdString()] =
                m.captured(3).toDouble();
    }
    return out;
}

} // namespace

class TstExporter : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_folder;
    QString m_single;
    QProcess m_exporter;
    int m_port = 0;

    Json statsJson(const QString& path) {
        QProcess p;
        p.start(QStringLiteral(LQCTL_PATH),
                {QStringLiteral("stats"), path, QStringLiteral("--json")});
        p.waitForFinished();
        return Json::parse(p.readAllStandardOutput().toStdString());
    }

    /// Starts `lqctl exporter --listen=127.0.0.1:0 args...`; the port it
    /// says it listens on, 0 if it said none within 30 s.
    static int startExporter(QProcess& exporter, const QStringList& args) {
        exporter.setReadChannel(QProcess::StandardError);
        exporter.start(
            QStringLiteral(LQCTL_PATH),
            QStringList{QStringLiteral("exporter"), QStringLiteral("--listen=127.0.0.1:0")} + args);
        if (!exporter.waitForStarted())
            return 0;
        int port = 0;
        const QRegularExpression re(QStringLiteral(R"(127\.0\.0\.1:(\d+)/metrics)"));
        const bool said = lq::test::waitFor(
            [&] {
                exporter.waitForReadyRead(50);
                const auto m = re.match(QString::fromUtf8(exporter.peek(4096)));
                port = m.hasMatch() ? m.captured(1).toInt() : 0;
                return port > 0;
            },
            30000);
        return said ? port : 0;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_folder = m_dir.filePath(QStringLiteral("fleet"));
        QVERIFY(QDir().mkpath(m_folder));
        for (int f = 0; f < 3; ++f) {
            auto q =
                Queue::create(QString(m_folder + QStringLiteral("/q%1.db").arg(f)).toStdString());
            for (int i = 0; i < 20 + 7 * f; ++i)
                q->put("m" + std::to_string(i));
            for (int i = 0; i < 3 + f; ++i) {
                const auto m = q->pop();
                if (i % 2)
                    QVERIFY(q->done(m->messageId, m->claimId));
            }
        }
        QFile notQueue(m_folder + QStringLiteral("/notes.txt"));
        QVERIFY(notQueue.open(QIODevice::WriteOnly));
        notQueue.write("not a queue\n");
        notQueue.close();
        m_single = m_dir.filePath(QStringLiteral("single.db"));
        Queue::create(m_single.toStdString())->put("one");

        m_exporter.setReadChannel(QProcess::StandardError);
        m_exporter.start(QStringLiteral(LQCTL_PATH),
                         {QStringLiteral("exporter"), QStringLiteral("--listen=127.0.0.1:0"),
                          QStringLiteral("--interval=0.5"), m_folder, m_single});
        QVERIFY(m_exporter.waitForStarted());
        const QRegularExpression port(QStringLiteral(R"(127\.0\.0\.1:(\d+)/metrics)"));
        for (int i = 0; i < 100 && !m_port; ++i) {
            m_exporter.waitForReadyRead(100);
            const auto m = port.match(QString::fromUtf8(m_exporter.peek(4096)));
            if (m.hasMatch())
                m_port = m.captured(1).toInt();
        }
        QVERIFY2(m_port > 0, "the exporter did not say where it listens");
    }

    void cleanupTestCase() {
        m_exporter.terminate();
        QVERIFY(m_exporter.waitForFinished(5000));
        QCOMPARE(m_exporter.exitCode(), 0);
    }

    void onlyMetrics() {
        QCOMPARE(httpGet(m_port, "/").first, 404);
        QCOMPARE(httpGet(m_port, "/metrics/x").first, 404);
        QCOMPARE(httpGet(m_port, "/metrics").first, 200);
    }

    void concurrentScrapesMatchStats() {
        constexpr int kScrapes = 16;
        std::vector<std::string> bodies(kScrapes);
        std::vector<int> codes(kScrapes);
        {
            std::vector<std::thread> threads;
            threads.reserve(kScrapes);
            for (int i = 0; i < kScrapes; ++i)
                threads.emplace_back([&, i] {
                    auto [code, body] = httpGet(m_port, "/metrics");
                    codes[static_cast<std::size_t>(i)] = code;
                    bodies[static_cast<std::size_t>(i)] = std::move(body);
                });
            for (auto& t : threads)
                t.join();
        }
        for (int i = 0; i < kScrapes; ++i) {
            QCOMPARE(codes[static_cast<std::size_t>(i)], 200);
            const auto msgs = messagesOf(bodies[static_cast<std::size_t>(i)]);
            QCOMPARE(msgs.size(), std::size_t(4)); // 3 in the folder + the single file
            for (int f = 0; f < 3; ++f) {
                const QString path = m_folder + QStringLiteral("/q%1.db").arg(f);
                const Json st = statsJson(path);
                const auto& m = msgs.at(path.toStdString());
                for (const char* s : {"ready", "locked", "done", "failed"})
                    QCOMPARE(m.at(s), static_cast<double>(st["counts"][s].toInt()));
            }
            const std::string& body = bodies[static_cast<std::size_t>(i)];
            QVERIFY(body.find("lq_up{queue=\"" + m_single.toStdString() + "\"} 1") !=
                    std::string::npos);
            QVERIFY(body.find("lq_scrape_duration_seconds{queue=") != std::string::npos);
            QVERIFY(body.find("lq_file_bytes{") != std::string::npos);
            QVERIFY(body.find("lq_latency_seconds{") != std::string::npos);
            QVERIFY2(body.find("notes.txt") == std::string::npos, "a non-queue file was exported");
        }
    }

    void aDeletedFileIsDown() {
        const QString gone = m_dir.filePath(QStringLiteral("gone.db"));
        QFile::remove(gone);
        // A file named on the command line that is missing is reported down;
        // here the single file is removed and comes back.
        QVERIFY(QFile::rename(m_single, gone));
        // Refreshed in the background within --interval (0.5 s).
        std::string body;
        const std::string down = "lq_up{queue=\"" + m_single.toStdString() + "\"} 0";
        QVERIFY2(lq::test::waitFor(
                     [&] {
                         auto [code, b] = httpGet(m_port, "/metrics");
                         body = b;
                         return code == 200 && body.find(down) != std::string::npos;
                     },
                     10000),
                 body.c_str());
        QVERIFY(QFile::rename(gone, m_single));
    }

    /// A file replaced under its path (another inode: a restore, a copy moved
    /// in) is read afresh, not through the queue kept open on the old one.
    /// Both in rollback-journal mode: a WAL file replaced beside its old
    /// `-wal` is SQLite's own hazard.
    void aReplacedFileIsReadAfresh() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("kept.db"));
        const QString next = dir.filePath(QStringLiteral("next.db"));
        for (const QString& p : {path, next}) {
            {
                auto q = Queue::create(p.toStdString());
                for (int i = 0; i < (p == path ? 2 : 7); ++i)
                    q->put("m" + std::to_string(i));
            }
            sqlite3* db = nullptr;
            QCOMPARE(sqlite3_open(p.toUtf8().constData(), &db), SQLITE_OK);
            QCOMPARE(sqlite3_exec(db, "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr),
                     SQLITE_OK);
            sqlite3_close(db);
        }
        QProcess exporter;
        const int port = startExporter(exporter, {QStringLiteral("--interval=0.2"), path});
        QVERIFY(port > 0);
        const std::string kept = path.toStdString();
        const auto readyOf = [&] {
            auto [code, body] = httpGet(port, "/metrics");
            const auto msgs = messagesOf(body);
            const auto it = msgs.find(kept);
            return code == 200 && it != msgs.end() && it->second.count("ready")
                       ? it->second.at("ready")
                       : -1.0;
        };
        QVERIFY(lq::test::waitFor([&] { return readyOf() == 2; }, 10000));
        QCOMPARE(std::rename(next.toUtf8().constData(), path.toUtf8().constData()), 0);
        QVERIFY2(lq::test::waitFor([&] { return readyOf() == 7; }, 10000),
                 qPrintable(QString::number(readyOf())));
        exporter.terminate();
        QVERIFY(exporter.waitForFinished(5000));
    }

    /// A scrape never waits on SQLite: with one file locked by a writer
    /// (a rollback-journal file in an EXCLUSIVE transaction, so every read
    /// of it waits the exporter's busy timeout of 1 s), every scrape answers
    /// at once with the other file's values and the locked file's last ones.
    void aLockedFileDelaysNoScrape() {
        QTemporaryDir dir;
        const QString locked = dir.filePath(QStringLiteral("locked.db"));
        const QString free = dir.filePath(QStringLiteral("free.db"));
        for (const QString& path : {locked, free}) {
            auto q = Queue::create(path.toStdString());
            for (int i = 0; i < 50; ++i)
                q->put("m" + std::to_string(i));
        }
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(locked.toUtf8().constData(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db, "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr),
                 SQLITE_OK);
        QProcess exporter;
        const int port = startExporter(exporter, {QStringLiteral("--interval=0.2"), locked, free});
        QVERIFY(port > 0);
        QCOMPARE(sqlite3_exec(db, "BEGIN EXCLUSIVE; UPDATE Queue SET status = status;", nullptr,
                              nullptr, nullptr),
                 SQLITE_OK);
        const std::string freeUp = "lq_up{queue=\"" + free.toStdString() + "\"} 1";
        double slowest = 0;
        QElapsedTimer t;
        t.start();
        int scrapes = 0;
        while (t.elapsed() < 2500) { // the locked file's refreshes wait 1 s each
            QElapsedTimer one;
            one.start();
            auto [code, body] = httpGet(port, "/metrics");
            slowest = std::max(slowest, double(one.nsecsElapsed()) / 1e6);
            QCOMPARE(code, 200);
            QVERIFY(body.find(freeUp) != std::string::npos);
            QVERIFY(body.find("lq_refresh_age_seconds{queue=\"" + locked.toStdString()) !=
                    std::string::npos);
            QVERIFY(body.find("lq_refresh_duration_seconds{queue=") != std::string::npos);
            ++scrapes;
            // Paced like a busy Prometheus (40 scrapes a second), not a spin.
            std::this_thread::sleep_for(std::chrono::milliseconds(25));
        }
        QCOMPARE(sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
        exporter.terminate();
        QVERIFY(exporter.waitForFinished(5000));
        qInfo("%d scrapes beside a locked file, the slowest %.1f ms", scrapes, slowest);
        // Far below the 1 s a read of the locked file waits: no scrape read it.
        QVERIFY2(slowest < 500, qPrintable(QString::number(slowest)));
    }

    /// lq_read_wait_seconds_total: on a WAL file a writer commits to all
    /// the time, the exporter's reads give way to it (a pause after a chunk
    /// it committed during), and the counter says for how long.
    void readWaitsAreCounted() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("busy.db"));
        {
            auto q = Queue::create(path.toStdString());
            for (int i = 0; i < 200; ++i)
                q->put("m" + std::to_string(i));
        }
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
        sqlite3_busy_timeout(db, 5000);
        QCOMPARE(sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr), SQLITE_OK);
        std::atomic<bool> stop{false};
        std::thread writer([&] {
            while (!stop)
                sqlite3_exec(db, "UPDATE Queue SET message = message || '' WHERE rowid = 1",
                             nullptr, nullptr, nullptr);
        });
        QProcess exporter;
        const int port = startExporter(exporter, {QStringLiteral("--interval=0.05"), path});
        QVERIFY(port > 0);
        const auto valueOf = [](const std::string& body, const std::string& reason) {
            const std::string key = "lq_read_wait_seconds_total{reason=\"" + reason + "\"} ";
            const auto at = body.find(key);
            return at == std::string::npos ? -1.0 : std::stod(body.substr(at + key.size()));
        };
        double turn = 0, checkpoint = -1;
        const bool waited = lq::test::waitFor(
            [&] {
                const auto [code, body] = httpGet(port, "/metrics");
                turn = valueOf(body, "turn");
                checkpoint = valueOf(body, "checkpoint");
                return code == 200 && turn > 0;
            },
            10000);
        stop = true;
        writer.join();
        sqlite3_close(db);
        exporter.terminate();
        QVERIFY(exporter.waitForFinished(5000));
        QVERIFY2(waited, qPrintable(QString::number(turn)));
        QVERIFY(checkpoint >= 0);
    }

    void realPrometheusScrapesIt() {
        QVERIFY2(QFile::exists(QStringLiteral("/usr/bin/prometheus")),
                 "/usr/bin/prometheus is missing: install prometheus (scripts/test does)");
        const int promPort = freePort();
        const QString cfg = m_dir.filePath(QStringLiteral("prometheus.yml"));
        {
            QFile f(cfg);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QStringLiteral("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                                   "scrape_configs:\n  - job_name: lq\n    static_configs:\n"
                                   "      - targets: ['127.0.0.1:%1']\n")
                        .arg(m_port)
                        .toUtf8());
        }
        QProcess prom;
        prom.setProcessChannelMode(QProcess::MergedChannels);
        prom.start(QStringLiteral("/usr/bin/prometheus"),
                   {QStringLiteral("--config.file=") + cfg,
                    QStringLiteral("--storage.tsdb.path=") + m_dir.filePath(QStringLiteral("tsdb")),
                    QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(promPort)});
        QVERIFY(prom.waitForStarted());
        const std::string q0 = QString(m_folder + QStringLiteral("/q0.db")).toStdString();
        const Json st = statsJson(QString::fromStdString(q0));
        Json found;
        for (int i = 0; i < 300 && found.isNull(); ++i) {
            QTest::qWait(100);
            auto [code, body] =
                httpGet(promPort, "/api/v1/query?query=lq_messages%7Bstatus%3D%22ready%22%7D");
            if (code != 200)
                continue;
            const Json r = Json::parse(body);
            for (const auto& s : r["data"]["result"].toArray()) {
                if (s["metric"]["queue"].toString() == q0)
                    found = s;
            }
        }
        prom.terminate();
        prom.waitForFinished(10000);
        QVERIFY2(!found.isNull(), prom.readAll().right(2000).constData());
        QCOMPARE(found["metric"]["job"].toString(), std::string("lq"));
        QCOMPARE(found["value"].toArray()[1].toString(),
                 std::to_string(st["counts"]["ready"].toInt()));
    }
};

QTEST_GUILESS_MAIN(TstExporter)
#include "tst_exporter.moc"
