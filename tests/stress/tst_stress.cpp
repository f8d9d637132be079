// SPDX-License-Identifier: MIT
// Proof under load and under kill -9 (docs/BENCHMARKS.md "Reliability"): 4 producer
// processes, 4 worker processes and 1 operator process hammer one queue file,
// then the test checks the whole history they logged against the file.
//
// Duration: 10 s per run by default (CI); LQ_STRESS_SECONDS=N or --long
// (300 s) for a soak.
//
// What is checked, and why each check is sound
// --------------------------------------------
// A claim id only ever changes through pop(), which adds one, so (message,
// claim) names exactly one delivery; every other write is a compare-and-swap
// on (status, claim). Hence:
//  1. No (message, claim) is popped twice (double delivery).
//  2. For every (message, claim, status S) the logged *exits* from S never
//     outnumber the *entries* into S. An exit needs the row to be in
//     (S, claim) just before it, and only an entry puts it there, so between
//     two exits there is always an entry. Entries into LOCKED(c) are the pop
//     that created claim c (counted as 1 even when a killed worker never
//     logged it) plus undos that restored LOCKED(c); exits are successful
//     worker done/retry/fail with c and operator rows taken from LOCKED(c).
//     Likewise for FAILED(c) and DONE(c). Unlogged moves (retry_expired, or a
//     worker killed after its commit but before its log line) only make the
//     logged side smaller, never break the inequality. Two winners for one
//     delivery (a stale completion beating an operator retry, or the other
//     way round) break it.
//  3. A successful transition guarded by claim c, whose call started at s,
//     happened after s; a pop that gave claim c' > c and *returned* before s
//     happened before it. Then the row's claim was already >= c' when the
//     guard was checked, so the guard must have failed: such a pair is a
//     stale claim that won. (Timestamps are CLOCK_MONOTONIC, one clock for
//     every process on the machine.) Only pairs that are ordered for sure
//     are compared, so there are no false alarms.
//  4. DONE is terminal (no action takes a row out of DONE but prune, whose
//     undo puts it back as DONE), so a message is done successfully at most
//     once, its claim is then the last one ever given, and the row (or its
//     prune record) says DONE with that claim.
//  5. Accounting: every message put is, at the end, either in the file or
//     pruned (the operator's last prune event for it was a prune, not an
//     undo), never both, never neither; nothing else is in the file; the
//     payload is the one put. Pruned rows were DONE or FAILED and finished
//     before the cutoff.
//  6. counts() agrees with list() and with a raw GROUP BY; PRAGMA
//     integrity_check is ok; every process exited 0 and logged no error
//     (no Busy ever reached a caller); after the run retry_expired(0)
//     recovers exactly the LOCKED rows a killed worker left behind.
//
// jobs-lease (jobsLease, jobsLeaseWithKills): the same for a file of seed
// 000's "jobs with leases" pattern. 4 producers and 4 workers (lqjobstress,
// the seed's SQL on the SQLite C API; the worker's finish and retry_later
// guarded by the attempts of its claim), 1 lqcore operator (Release,
// Reschedule, Delete with the attempts it listed a moment before; undo of
// some). Leases last 1 s. Workers abandon 2% of their jobs (the lease
// lapses; always their first one), outlive their lease on 0.4% (by 1-20 ms) and
// reschedule 6% themselves. After the run the test
// releases half of the leases still live through lqcore, checks that those jobs and, once the other
// leases lapsed, every job is claimable, and a drain process claims and finishes every job left.
// `attempts` only ever changes through a claim (+1), so (job, attempts) names one lease. The oracle
// (jobsoracle.h):
//  a. No two claims with the same attempts; attempts nobody logged (a worker
//     killed between COMMIT and its log line) at most one per kill.
//  b. Claim N+1 found lease N lapsed (its `now` > lease N's locked_until),
//     unless the operator released or rescheduled N, or N's worker
//     rescheduled itself.
//  c. No operator row applied with a token other than the one it carried, or
//     after a claim with higher attempts had *returned* before the apply
//     started, or after the job had been finished: no stale action applied.
//  d. No worker finish/retry_later won after a newer claim had returned
//     before it started; every refused one is explained by a newer claim that
//     started before it ended, or an operator Delete of that lease: a finish
//     is never "stolen".
//  e. Accounting: every job put is in the file (none after the drain), or
//     was removed exactly once: finished by a worker, or deleted by the
//     operator and not restored by an undo. A job gone without either is
//     lost, unless a worker was killed right after claiming it (its finish
//     may have committed unlogged; at most one per kill). Nothing in the file
//     was never put; payloads are unchanged.
//  f. Every job a killed worker held was claimed again, or released or
//     deleted by the operator, or finished before the kill.
//  g. PRAGMA integrity_check ok before and after the drain; every process
//     exited 0 and logged no error (no Busy ever reached a worker).

#include "core/error.h"
#include "core/formats/queueformat.h"
#include "core/queue.h"
#include "fleet.h"
#include "jobsoracle.h"
#include "stressutil.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

using namespace lq::core;
using lqstress::toStd;

namespace {

int g_seconds = 10;

QString stressBin() {
    // LQSTRESS_BIN: run the processes from another build (e.g. a patched core).
    const QString over = qEnvironmentVariable("LQSTRESS_BIN");
    return over.isEmpty() ? QStringLiteral(LQ_STRESS_BIN) : over;
}

QString jobStressBin() {
    const QString over = qEnvironmentVariable("LQJOBSTRESS_BIN");
    return over.isEmpty() ? QStringLiteral(LQ_JOBSTRESS_BIN) : over;
}

std::int64_t monoNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

double wallSeconds() {
    return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count()) /
           1e9;
}

/// The jobs table as the raw C API reads it: id -> (payload, attempts).
std::unordered_map<std::string, lqstress::jobs::FileRow> readJobs(const QString& path) {
    std::unordered_map<std::string, lqstress::jobs::FileRow> rows;
    const QString all = lqstress::rawRows(path, "SELECT id, payload, attempts FROM jobs");
    for (const QString& line : all.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        const QStringList f = line.split(QLatin1Char('|'));
        if (f.size() == 3)
            rows[toStd(f[0])] = {toStd(f[1]), f[2].toLongLong()};
        else
            rows["<unreadable> " + toStd(line)] = {{}, -1};
    }
    return rows;
}

/// The ids the seed's claim() could pick at `now`.
QStringList claimable(const QString& path, double now) {
    const QByteArray sql = QStringLiteral("SELECT id FROM jobs WHERE run_at <= %1 AND "
                                          "(locked_until IS NULL OR locked_until < %1) ORDER BY id")
                               .arg(now, 0, 'f', 6)
                               .toUtf8();
    return lqstress::rawRows(path, sql.constData()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

struct Pop {
    std::int64_t claim, s, e;
};

/// A write guarded by (status, claim) that succeeded.
struct Win {
    std::string who; ///< "worker done", "operator retry", ...
    std::int64_t claim, s;
};

struct History {
    std::unordered_map<std::string, std::string> puts; ///< id -> payload
    std::int64_t duplicatePuts = 0;
    std::unordered_map<std::string, std::vector<Pop>> pops;
    std::unordered_map<std::string, std::vector<Win>> wins;
    /// (id, claim, status) -> entries - exits, for check 2.
    std::map<std::tuple<std::string, std::int64_t, int>, std::int64_t> balance;
    std::unordered_map<std::string, std::int64_t> doneClaim; ///< successful worker done
    std::int64_t doubleDone = 0;
    /// The operator's prune history in log order: true = pruned, false = restored.
    std::unordered_map<std::string, bool> pruned;
    std::unordered_map<std::string, std::pair<int, std::int64_t>> prunedAs; ///< status, claim
    std::vector<std::string> badPrunes;
    /// (id, claim) whose worker was killed right after logging the claim:
    /// its completion may have committed without a log line.
    std::set<std::pair<std::string, std::int64_t>> maybeCompleted;
    std::vector<std::string> errors;
    std::int64_t workerDone = 0, workerRetry = 0, workerFail = 0, workerLost = 0;
    std::int64_t opApplied = 0, opSkipped = 0, opStale = 0, opCalls = 0;
    std::int64_t undoApplied = 0, undoSkipped = 0, expired = 0, vacuums = 0;
    std::int64_t lines = 0;
};

std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < line.size()) {
        const std::size_t j = line.find(' ', i);
        out.push_back(line.substr(i, j == std::string::npos ? std::string::npos : j - i));
        if (j == std::string::npos)
            break;
        i = j + 1;
    }
    return out;
}

std::int64_t num(const std::string& s) {
    return std::stoll(s);
}

void parseLog(const QString& path, bool killed, History& h) {
    QFile f(path);
    if (killed && !f.exists())
        return; // killed before it had even opened its log: no history
    if (!f.open(QIODevice::ReadOnly)) {
        h.errors.push_back("cannot read " + toStd(path));
        return;
    }
    const QList<QByteArray> lines = f.readAll().split('\n');
    if (killed) {
        for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
            if (it->isEmpty())
                continue;
            const auto w = split(it->toStdString());
            if (w[0] == "claim" && w.size() == 5)
                h.maybeCompleted.insert({w[1], num(w[2])});
            break;
        }
    }
    for (const QByteArray& raw : lines) {
        if (raw.isEmpty())
            continue;
        ++h.lines;
        const std::string line = raw.toStdString();
        const auto w = split(line);
        const std::string& k = w[0];
        if (k == "error") {
            h.errors.push_back(toStd(QFileInfo(path).fileName()) + ": " + line);
        } else if (k == "put" && w.size() == 3) {
            if (!h.puts.emplace(w[1], w[2]).second)
                ++h.duplicatePuts;
        } else if (k == "claim" && w.size() == 5) {
            const std::int64_t c = num(w[2]);
            h.pops[w[1]].push_back({c, num(w[3]), num(w[4])});
        } else if ((k == "done" || k == "retry" || k == "fail") && w.size() == 6) {
            if (w[3] != "1") {
                ++h.workerLost;
                continue;
            }
            const std::int64_t c = num(w[2]);
            h.wins[w[1]].push_back({"worker " + k, c, num(w[4])});
            --h.balance[{w[1], c, 1}];
            if (k == "done") {
                ++h.workerDone;
                ++h.balance[{w[1], c, 2}];
                if (!h.doneClaim.emplace(w[1], c).second)
                    ++h.doubleDone;
            } else if (k == "fail") {
                ++h.workerFail;
                ++h.balance[{w[1], c, 3}];
            } else {
                ++h.workerRetry;
            }
        } else if (k == "apply" && w.size() == 8) {
            ++h.opCalls;
            h.opApplied += num(w[2]);
            h.opSkipped += num(w[3]);
            h.opStale += num(w[4]);
        } else if (k == "row" && w.size() == 9) {
            const std::string& action = w[1];
            const std::string& id = w[2];
            const int before = static_cast<int>(num(w[3]));
            const std::int64_t c = num(w[4]);
            const int after = static_cast<int>(num(w[5]));
            h.wins[id].push_back({"operator " + action, c, num(w[7])});
            --h.balance[{id, c, before}];
            if (action == "prune") {
                h.pruned[id] = true;
                h.prunedAs[id] = {before, c};
                if (before != 2 && before != 3)
                    h.badPrunes.push_back(id + " pruned while in status " + w[3]);
            } else {
                ++h.balance[{id, c, after}];
            }
        } else if (k == "undo" && w.size() == 6) {
            h.undoApplied += num(w[2]);
            h.undoSkipped += num(w[3]);
        } else if (k == "unrow" && w.size() == 7) {
            const std::string& id = w[2];
            const int restored = static_cast<int>(num(w[3]));
            const std::int64_t c = num(w[4]);
            h.wins[id].push_back({"undo of " + w[1], c, num(w[5])});
            ++h.balance[{id, c, restored}];
            if (w[1] == "prune") {
                h.pruned[id] = false;
            } else {
                // The undo took the row out of what the action wrote.
                const int wrote = w[1] == "retry" ? 0 : 3;
                --h.balance[{id, c, wrote}];
            }
        } else if (k == "expired" && w.size() == 2) {
            h.expired += num(w[1]);
        } else if (k == "vacuum") {
            ++h.vacuums;
        } else if (k == "apply" || k == "row" || k == "unrow" || k == "undo" || k == "put" ||
                   k == "claim") {
            h.errors.push_back("malformed log line in " + toStd(path) + ": " + line);
        }
    }
}

struct Row {
    std::string data;
    int status;
    std::int64_t claim;
};

/// Every row of the file, read with the raw C API (not through lqcore).
std::unordered_map<std::string, Row> readRows(const QString& path, std::int64_t& duplicates) {
    std::unordered_map<std::string, Row> rows;
    duplicates = 0;
    sqlite3* db = nullptr;
    const std::string p = toStd(path);
    if (sqlite3_open_v2(p.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(db, "SELECT message_id, data, status, claim_id FROM Queue", -1, &st,
                           nullptr);
        while (st && sqlite3_step(st) == SQLITE_ROW) {
            const auto text = [&](int i) {
                const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st, i));
                return std::string(t ? t : "");
            };
            const std::string id = text(0);
            Row r{text(1), sqlite3_column_int(st, 2), sqlite3_column_int64(st, 3)};
            if (!rows.emplace(id, r).second)
                ++duplicates;
        }
        sqlite3_finalize(st);
    }
    sqlite3_close_v2(db);
    return rows;
}

} // namespace

class TestStress : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void load();
    void loadWithKills();
    void killBatchMidTransaction_data();
    void killBatchMidTransaction();
    void jobsLease();
    void jobsLeaseWithKills();

private:
    void runWorkload(int seconds, int kills);
    void runJobsLease(int seconds, int kills);
};

void TestStress::initTestCase() {
    if (!QFileInfo(stressBin()).isExecutable())
        QFAIL(qPrintable(QStringLiteral("lqstress not built at ") + stressBin()));
    if (!QFileInfo(jobStressBin()).isExecutable())
        QFAIL(qPrintable(QStringLiteral("lqjobstress not built at ") + jobStressBin()));
    qInfo("stress runs of %d s each (LQ_STRESS_SECONDS or --long for a soak)", g_seconds);
}

void TestStress::load() {
    runWorkload(g_seconds, 0);
}

void TestStress::loadWithKills() {
    runWorkload(g_seconds, 20);
}

void TestStress::runWorkload(int seconds, int kills) {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString file = dir.filePath(QStringLiteral("queue.sqlite3"));
    const QString stop = dir.filePath(QStringLiteral("stop"));
    // With kills, the operator stops at 70% of the run, so the workers killed
    // after that leave LOCKED rows for the final retry_expired(0) to recover.
    const QString stopOperator = dir.filePath(QStringLiteral("stop-operator"));
    const QString audit = dir.filePath(QStringLiteral("audit"));
    Queue::create(toStd(file)); // then closed: the test holds no connection during the run

    bool operatorStopped = false;
    lqstress::Fleet fleet(stressBin()); // no process outlives the test
    const auto start = [&](const QString& role, const QStringList& extra) {
        return fleet.start(role,
                           QStringList{role, file, QStringLiteral("--stop"),
                                       role == QLatin1String("operator") ? stopOperator : stop} +
                               extra);
    };
    const auto logPath = [&](const QString& name) {
        return dir.filePath(name + QStringLiteral(".log"));
    };

    start(QStringLiteral("operator"), {QStringLiteral("--log"), logPath(QStringLiteral("operator")),
                                       QStringLiteral("--audit"), audit});
    std::vector<std::size_t> workers;
    std::vector<int> generation(4, 0);
    for (int w = 0; w < 4; ++w)
        workers.push_back(
            start(QStringLiteral("worker"),
                  {QStringLiteral("--log"), logPath(QStringLiteral("worker-%1-0").arg(w))}));
    for (int k = 0; k < 4; ++k)
        start(QStringLiteral("producer"),
              {QStringLiteral("--id"), QString::number(k), QStringLiteral("--log"),
               logPath(QStringLiteral("producer-%1").arg(k)), QStringLiteral("--pause-us"),
               QStringLiteral("2000")});
    const QString started = fleet.waitStarted();
    QVERIFY2(started.isEmpty(), qPrintable(started));

    // Kill a random worker at jittered, evenly spread moments, and restart it.
    auto* rng = QRandomGenerator::global();
    std::vector<qint64> killAt;
    for (int i = 0; i < kills; ++i)
        killAt.push_back(qint64(seconds) * 1000 * (i + 1) / (kills + 2) +
                         rng->bounded(qint64(seconds) * 1000 / (kills + 2) / 2 + 1));
    int killed = 0;
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < qint64(seconds) * 1000) {
        QTest::qWait(20);
        if (kills > 0 && !operatorStopped && clock.elapsed() > qint64(seconds) * 700) {
            QVERIFY(QFile(stopOperator).open(QIODevice::WriteOnly));
            QVERIFY(fleet.procs()[0].p->waitForFinished(30000));
            operatorStopped = true;
        }
        while (killed < kills && clock.elapsed() >= killAt[std::size_t(killed)]) {
            const auto w = std::size_t(rng->bounded(4));
            const QString k = fleet.killAndRestart(
                workers[w], logPath(QStringLiteral("worker-%1-%2").arg(w).arg(++generation[w])),
                &workers[w]);
            QVERIFY2(k.isEmpty(), qPrintable(k));
            ++killed;
        }
        const QString running = fleet.checkRunning([&](const lqstress::Fleet::Proc& pr) {
            return operatorStopped && pr.role == QLatin1String("operator");
        });
        QVERIFY2(running.isEmpty(), qPrintable(running));
    }
    QVERIFY(QFile(stop).open(QIODevice::WriteOnly));
    QVERIFY(QFile(stopOperator).open(QIODevice::WriteOnly));
    const QString stopped = fleet.waitStopped();
    QVERIFY2(stopped.isEmpty(), qPrintable(stopped));
    QCOMPARE(killed, kills);

    // ---- the history ----------------------------------------------------
    History h;
    for (const auto& pr : fleet.procs())
        parseLog(pr.log, pr.killed, h);
    for (const auto& e : h.errors)
        qWarning("%s", e.c_str());
    QVERIFY2(h.errors.empty(), "a process logged an error (busy, or worse): see the warnings");
    QCOMPARE(h.duplicatePuts, std::int64_t(0));
    QVERIFY2(h.puts.size() > 100, "too few messages for a meaningful run");

    std::vector<std::string> violations;
    const auto violate = [&](std::string s) {
        if (violations.size() < 20)
            qWarning("violation: %s", s.c_str());
        violations.push_back(std::move(s));
    };
    std::int64_t duplicated = 0;

    // 1. One pop per (message, claim).
    std::unordered_map<std::string, std::int64_t> maxClaim;
    for (auto& [id, pops] : h.pops) {
        if (!h.puts.count(id))
            violate("popped a message nobody put: " + id);
        std::set<std::int64_t> seen;
        for (const auto& p : pops) {
            if (!seen.insert(p.claim).second) {
                ++duplicated;
                violate("double delivery: " + id + " claim " + std::to_string(p.claim));
            }
            maxClaim[id] = std::max(maxClaim[id], p.claim);
        }
    }
    // 2. Exits never outnumber entries per (message, claim, status). READY
    // is left out: retry_expired enters it without a log line.
    for (const auto& [key, bal] : h.balance) {
        const auto& [id, claim, status] = key;
        if (status == 0)
            continue;
        // LOCKED(c): the pop that made the claim. DONE/FAILED(c): the
        // completion a killed worker may have committed without logging.
        const bool unlogged = h.maybeCompleted.count({id, claim}) > 0;
        const std::int64_t entries = bal + (status == 1 || unlogged ? 1 : 0);
        if (entries < 0)
            violate("two winners for " + id + " claim " + std::to_string(claim) + " in status " +
                    std::to_string(status));
    }
    // 3. No guarded write won after a newer claim had surely been given out.
    for (const auto& [id, wins] : h.wins) {
        auto it = h.pops.find(id);
        if (it == h.pops.end())
            continue;
        for (const auto& w : wins)
            for (const auto& p : it->second)
                if (p.claim > w.claim && p.e < w.s)
                    violate(w.who + " of " + id + " won with claim " + std::to_string(w.claim) +
                            " after claim " + std::to_string(p.claim) + " was given out");
    }
    QCOMPARE(h.doubleDone, std::int64_t(0));
    duplicated += h.doubleDone;
    for (const auto& b : h.badPrunes)
        violate(b);

    // 5. Accounting against the file.
    std::int64_t dupRows = 0;
    const auto rows = readRows(file, dupRows);
    QCOMPARE(dupRows, std::int64_t(0));
    std::int64_t lost = 0, prunedCount = 0, unloggedDone = 0;
    for (const auto& [id, payload] : h.puts) {
        const auto r = rows.find(id);
        const auto pr = h.pruned.find(id);
        const bool isPruned = pr != h.pruned.end() && pr->second;
        prunedCount += isPruned ? 1 : 0;
        if (r == rows.end() && !isPruned) {
            ++lost;
            violate("lost: " + id + " (" + payload + ")");
        } else if (r != rows.end() && isPruned) {
            ++duplicated;
            violate("pruned yet still in the file: " + id);
        } else if (r != rows.end() && r->second.data != payload) {
            violate("payload changed: " + id + ": " + r->second.data + " != " + payload);
        }
        // 4. DONE is terminal.
        const auto d = h.doneClaim.find(id);
        if (d != h.doneClaim.end()) {
            if (maxClaim[id] != d->second)
                violate("done with claim " + std::to_string(d->second) + " but claim " +
                        std::to_string(maxClaim[id]) + " was given out: " + id);
            if (r != rows.end() && (r->second.status != 2 || r->second.claim != d->second))
                violate("done with claim " + std::to_string(d->second) + " but the row is " +
                        std::to_string(r->second.status) + "/" + std::to_string(r->second.claim) +
                        ": " + id);
            if (isPruned && h.prunedAs[id] != std::pair<int, std::int64_t>(2, d->second))
                violate("done, but pruned as something else: " + id);
        } else if (r != rows.end() && r->second.status == 2) {
            // Only a worker killed between its commit and its log line.
            ++unloggedDone;
            if (!h.maybeCompleted.count({id, r->second.claim}))
                violate("DONE without a successful done by the claim's worker: " + id);
        }
        if (r != rows.end() && r->second.claim < maxClaim[id])
            violate("claim went backwards: " + id);
    }
    for (const auto& [id, row] : rows)
        if (!h.puts.count(id))
            violate("in the file but never put: " + id);
    QVERIFY2(unloggedDone <= kills,
             qPrintable(QStringLiteral("%1 DONE rows without a logged done, only %2 kills")
                            .arg(unloggedDone)
                            .arg(kills)));

    // 6. The file and the query layer.
    QCOMPARE(lqstress::integrityCheck(file), QStringLiteral("ok"));
    auto q = Queue::open(toStd(file));
    const Counts c = q->counts();
    std::int64_t byList[5] = {0, 0, 0, 0, 0};
    const auto all = q->list(Filter{}, Sort{}, 0, -1);
    for (const auto& m : all)
        ++byList[std::min(int(m.state), 4)];
    QCOMPARE(c.stored, std::int64_t(all.size()));
    QCOMPARE(c.stored, std::int64_t(rows.size()));
    QCOMPARE(c.ready, byList[0]);
    QCOMPARE(c.locked, byList[1]);
    QCOMPARE(c.done, byList[2]);
    QCOMPARE(c.failed, byList[3]);
    QCOMPARE(c.unknown, std::int64_t(0));
    QCOMPARE(lqstress::rawRows(file, "SELECT sum(status = 0), sum(status = 1), sum(status = 2), "
                                     "sum(status = 3), count(*) FROM Queue"),
             QStringLiteral("%1|%2|%3|%4|%5\n")
                 .arg(c.ready)
                 .arg(c.locked)
                 .arg(c.done)
                 .arg(c.failed)
                 .arg(c.stored));

    // Recovery: retry_expired(0) gives back every LOCKED row (docs/BENCHMARKS.md).
    const std::int64_t lockedBefore = c.locked;
    const std::int64_t recovered = q->retryExpired(std::chrono::nanoseconds(0));
    QCOMPARE(recovered, lockedBefore);
    QCOMPARE(q->counts().locked, std::int64_t(0));
    q.reset();
    QCOMPARE(lqstress::integrityCheck(file), QStringLiteral("ok"));

    const QString summary =
        QStringLiteral("stress%1: %2 s, %3 messages put, %4 done, %5 failed, %6 retried by "
                       "workers, %7 pops, %8 worker completions refused (stale), %9 operator "
                       "actions applied, %10 stale skipped (of %11 skipped, %12 calls), %13 undone "
                       "(%14 moved on), %15 pruned, %16 expired-retried, %17 vacuums, %18 kills, "
                       "%19 locked recovered, %20 lost, %21 duplicated")
            .arg(kills ? QStringLiteral(" (kill -9)") : QString())
            .arg(seconds)
            .arg(h.puts.size())
            .arg(h.workerDone)
            .arg(h.workerFail)
            .arg(h.workerRetry)
            .arg(std::accumulate(
                h.pops.begin(), h.pops.end(), std::int64_t(0),
                [](std::int64_t n, const auto& kv) { return n + std::int64_t(kv.second.size()); }))
            .arg(h.workerLost)
            .arg(h.opApplied)
            .arg(h.opStale)
            .arg(h.opSkipped)
            .arg(h.opCalls)
            .arg(h.undoApplied)
            .arg(h.undoSkipped)
            .arg(prunedCount)
            .arg(h.expired)
            .arg(h.vacuums)
            .arg(killed)
            .arg(recovered)
            .arg(lost)
            .arg(duplicated);
    qInfo("%s", qPrintable(summary));
    std::printf("%s\n", qPrintable(summary));
    std::fflush(stdout);
    QVERIFY2(violations.empty(),
             qPrintable(QString::number(violations.size()) + QStringLiteral(" violations")));
    QCOMPARE(lost, std::int64_t(0));
    QCOMPARE(duplicated, std::int64_t(0));
    QVERIFY2(h.opApplied > 0, "the operator never won a race: the run proves little");
    if (h.opStale == 0)
        qWarning("no operator action went stale in this run: the races were not exercised");
}

void TestStress::killBatchMidTransaction_data() {
    QTest::addColumn<QString>("journal");
    QTest::newRow("wal") << QStringLiteral("wal");
    QTest::newRow("rollback journal") << QStringLiteral("delete");
}

/// kill -9 of an operator batch inside its transaction: none of it may show.
void TestStress::killBatchMidTransaction() {
    QFETCH(QString, journal);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString file = dir.filePath(QStringLiteral("queue.sqlite3"));
    {
        auto q = Queue::create(toStd(file));
        std::vector<PutItem> items;
        for (int i = 0; i < 600; ++i)
            items.push_back({"m" + std::to_string(i), {}});
        q->putMany(items);
        for (int i = 0; i < 250; ++i) {
            auto m = q->pop();
            QVERIFY(m);
            if (i % 5 == 0)
                QVERIFY(q->done(m->messageId, m->claimId));
            else if (i % 7 == 0)
                QVERIFY(q->markFailed(m->messageId, m->claimId));
        }
    }
    if (journal == QLatin1String("delete")) {
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open_v2(toStd(file).c_str(), &db, SQLITE_OPEN_READWRITE, nullptr),
                 SQLITE_OK);
        QCOMPARE(sqlite3_exec(db, "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr),
                 SQLITE_OK);
        sqlite3_close_v2(db);
    }
    std::int64_t lockedBefore = 0, readyBefore = 0, failedBefore = 0;
    {
        auto q = Queue::open(toStd(file));
        const Counts c = q->counts();
        lockedBefore = c.locked;
        readyBefore = c.ready;
        failedBefore = c.failed;
        QCOMPARE(c.done, std::int64_t(50));
        QVERIFY(lockedBefore > 100 && readyBefore > 300);
    }
    const char* dump = "SELECT rowid, message_id, status, claim_id, lock_time, done_time FROM "
                       "Queue ORDER BY rowid";
    const QString before = lqstress::rawRows(file, dump);
    QVERIFY(!before.startsWith(QLatin1String("error")));

    QProcess batch;
    batch.start(stressBin(), {QStringLiteral("batch"), file, QStringLiteral("--hold-ms"),
                              QStringLiteral("60000")});
    QVERIFY(batch.waitForStarted(10000));
    QByteArray out;
    QElapsedTimer t;
    t.start();
    while (!out.contains('\n') && t.elapsed() < 30000 && batch.state() == QProcess::Running) {
        batch.waitForReadyRead(200);
        out += batch.readAllStandardOutput();
    }
    QVERIFY2(out.startsWith("inside "), out.constData());
    const int changed = out.mid(7).trimmed().toInt();
    // LOCKED -> READY, then every READY (those too) -> FAILED.
    QCOMPARE(changed, int(lockedBefore + lockedBefore + readyBefore));

    // While the batch holds its transaction, readers still see the old rows.
    QCOMPARE(lqstress::rawRows(file, dump), before);

    batch.kill();
    QVERIFY(batch.waitForFinished(10000));
    QCOMPARE(batch.exitStatus(), QProcess::CrashExit);
    if (journal == QLatin1String("delete"))
        QVERIFY2(QFileInfo::exists(file + QStringLiteral("-journal")),
                 "expected a hot journal after killing a writer mid-transaction");

    // A writer (any worker) rolls a hot journal back; WAL needs nothing.
    {
        auto q = Queue::open(toStd(file));
        QCOMPARE(q->counts().stored, std::int64_t(600));
    }
    if (journal == QLatin1String("delete")) {
        auto q = Queue::open(toStd(file));
        auto m = q->pop();
        QVERIFY(m);
        QVERIFY(q->retry(m->messageId, m->claimId));
    }
    QCOMPARE(lqstress::integrityCheck(file), QStringLiteral("ok"));
    const QString after = lqstress::rawRows(file, dump);
    if (journal == QLatin1String("delete")) {
        // The pop+retry above moved one READY row's claim and lock time:
        // compare every other column of every row.
        const auto cut = [](const QString& rows) {
            QStringList cols;
            for (const auto& r : rows.split(QLatin1Char('\n')))
                cols << r.section(QLatin1Char('|'), 0, 2);
            return cols;
        };
        QCOMPARE(cut(after), cut(before));
    } else {
        QCOMPARE(after, before);
    }

    // Control: the same batch allowed to commit changes every row it said.
    QProcess commit;
    commit.start(stressBin(), {QStringLiteral("batch"), file, QStringLiteral("--hold-ms"),
                               QStringLiteral("10")});
    QVERIFY(commit.waitForFinished(30000));
    QCOMPARE(commit.exitCode(), 0);
    QVERIFY(commit.readAllStandardOutput().contains("committed"));
    auto q = Queue::open(toStd(file));
    const Counts c = q->counts();
    QCOMPARE(c.locked, std::int64_t(0));
    QCOMPARE(c.ready, std::int64_t(0));
    QCOMPARE(c.done, std::int64_t(50));
    QCOMPARE(c.failed, failedBefore + lockedBefore + readyBefore);
}

void TestStress::jobsLease() {
    runJobsLease(g_seconds, 0);
}

void TestStress::jobsLeaseWithKills() {
    runJobsLease(g_seconds, 20);
}

void TestStress::runJobsLease(int seconds, int kills) {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    if (qEnvironmentVariableIntValue("LQ_STRESS_KEEP")) {
        dir.setAutoRemove(false);
        qInfo("logs and file kept in %s", qPrintable(dir.path()));
    }
    const QString file = dir.filePath(QStringLiteral("jobs.sqlite3"));
    const QString stop = dir.filePath(QStringLiteral("stop"));
    // Short enough that leases lapse and are claimed again during the run,
    // long enough that a killed worker's lease is often still live at the end.
    const QString leaseMs = QStringLiteral("1000");
    const auto logPath = [&](const QString& name) {
        return dir.filePath(name + QStringLiteral(".log"));
    };
    {
        // The seed's SCHEMA through its connect(), by the helper.
        QProcess create;
        create.start(jobStressBin(), {QStringLiteral("create"), file});
        QVERIFY(create.waitForFinished(30000));
        QCOMPARE(create.exitCode(), 0);
        auto q = Queue::open(toStd(file));
        QCOMPARE(q->info().format, lq::core::QueueFormat::byId("jobs-lease"));
        // The same schema as the seed's own file (a copy: fixtures are never
        // opened in place).
        const QString seed = dir.filePath(QStringLiteral("seed.sqlite3"));
        QVERIFY(QFile::copy(QStringLiteral(LQ_TEST_DATA_DIR "/seed-jobs-leases.sqlite3"), seed));
        const char* schema = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name";
        QCOMPARE(lqstress::rawRows(file, schema), lqstress::rawRows(seed, schema));
    }

    lqstress::Fleet fleet(jobStressBin()); // no process outlives the test
    // LQ_JOBSTRESS_UNGUARDED=1: workers run the seed's bare `WHERE id = ?`
    // finish and retry_later; the oracle must then fail the run.
    const bool unguarded = qEnvironmentVariableIntValue("LQ_JOBSTRESS_UNGUARDED") != 0;
    const auto start = [&](const QString& role, const QString& log, QStringList extra = {}) {
        if (role == QLatin1String("worker")) {
            extra << QStringLiteral("--lease-ms") << leaseMs;
            if (unguarded)
                extra << QStringLiteral("--unguarded") << QStringLiteral("1");
        }
        return fleet.start(role, QStringList{role, file, QStringLiteral("--stop"), stop,
                                             QStringLiteral("--log"), log} +
                                     extra);
    };

    start(QStringLiteral("operator"), logPath(QStringLiteral("operator")));
    std::vector<std::size_t> workers;
    std::vector<int> generation(4, 0);
    for (int w = 0; w < 4; ++w)
        workers.push_back(
            start(QStringLiteral("worker"), logPath(QStringLiteral("worker-%1-0").arg(w))));
    for (int k = 0; k < 4; ++k)
        start(QStringLiteral("producer"), logPath(QStringLiteral("producer-%1").arg(k)),
              {QStringLiteral("--id"), QString::number(k), QStringLiteral("--pause-us"),
               QStringLiteral("8000")});
    const QString started = fleet.waitStarted();
    QVERIFY2(started.isEmpty(), qPrintable(started));

    // Kill a random worker at jittered, evenly spread moments, and restart it.
    // The last kill lands in the run's final quarter-interval, so a killed
    // worker's lease is usually still live when the run stops.
    auto* rng = QRandomGenerator::global();
    std::vector<qint64> killAt;
    for (int i = 0; i < kills; ++i)
        killAt.push_back(qint64(seconds) * 1000 * (i + 1) / kills -
                         rng->bounded(qint64(seconds) * 1000 / kills / 4 + 1) - 20);
    int killed = 0;
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < qint64(seconds) * 1000) {
        QTest::qWait(20);
        while (killed < kills && clock.elapsed() >= killAt[std::size_t(killed)]) {
            const auto w = std::size_t(rng->bounded(4));
            const QString k = fleet.killAndRestart(
                workers[w], logPath(QStringLiteral("worker-%1-%2").arg(w).arg(++generation[w])),
                &workers[w]);
            QVERIFY2(k.isEmpty(), qPrintable(k));
            ++killed;
        }
        const QString running = fleet.checkRunning();
        QVERIFY2(running.isEmpty(), qPrintable(running));
    }
    QVERIFY(QFile(stop).open(QIODevice::WriteOnly));
    const QString stopped = fleet.waitStopped();
    QVERIFY2(stopped.isEmpty(), qPrintable(stopped));
    QCOMPARE(killed, kills);

    // ---- after the run: the file, then every job claimable -------------
    QCOMPARE(lqstress::integrityCheck(file), QStringLiteral("ok"));
    const auto leftRows = readJobs(file);
    std::int64_t releasedAtEnd = 0, leasedAtEnd = 0;
    {
        auto q = Queue::open(toStd(file));
        QCOMPARE(q->info().format, lq::core::QueueFormat::byId("jobs-lease"));
        const Counts c = q->counts();
        QCOMPARE(c.stored, std::int64_t(leftRows.size()));
        QCOMPARE(c.ready + c.scheduled + c.leased + c.expired, c.stored);
        // Half of the leases still live (a killed worker's, an abandoned
        // one's) are released through lqcore, with the attempts seen: each
        // is claimable at once. Logged like the operator's rows.
        Filter leased;
        leased.states = {State::Leased};
        const auto live = q->list(leased, Sort{}, 0, -1);
        leasedAtEnd = std::int64_t(live.size());
        std::vector<Target> targets;
        for (std::size_t i = 0; i < live.size(); i += 2)
            targets.push_back({live[i].messageId, live[i].token});
        const std::int64_t s = monoNs();
        const ActionResult r = q->apply(Action::Release, targets);
        const std::int64_t e = monoNs();
        QCOMPARE(r.applied.size(), targets.size());
        releasedAtEnd = std::int64_t(r.applied.size());
        QFile log(logPath(QStringLiteral("final-release")));
        QVERIFY(log.open(QIODevice::WriteOnly));
        log.write(QStringLiteral("apply release %1 0 0 %2 %3\n")
                      .arg(r.applied.size())
                      .arg(s)
                      .arg(e)
                      .toUtf8());
        for (const auto& row : r.applied)
            log.write(QStringLiteral("row release %1 %2 %2 %3 %4 %5\n")
                          .arg(QString::fromStdString(row.before.messageId))
                          .arg(row.before.token)
                          .arg(QString::fromLatin1(stateName(row.before.state)))
                          .arg(s)
                          .arg(e)
                          .toUtf8());
        log.close();
        const QStringList now = claimable(file, wallSeconds());
        for (const auto& t : targets)
            QVERIFY2(now.contains(QString::fromStdString(t.messageId)),
                     qPrintable(QStringLiteral("released, yet not claimable: ") +
                                QString::fromStdString(t.messageId)));
    }
    // Once the other leases lapsed (and rescheduled jobs came due), every
    // job is claimable.
    {
        QElapsedTimer wait;
        wait.start();
        QStringList ids;
        while ((ids = claimable(file, wallSeconds())).size() != qsizetype(leftRows.size()) &&
               wait.elapsed() < 10000)
            QTest::qWait(50);
        QCOMPARE(ids.size(), qsizetype(leftRows.size()));
    }
    {
        QProcess drain;
        drain.start(jobStressBin(),
                    {QStringLiteral("drain"), file, QStringLiteral("--log"),
                     logPath(QStringLiteral("drain")), QStringLiteral("--lease-ms"), leaseMs});
        QVERIFY(drain.waitForFinished(-1)); // it stops by itself when it makes no progress
        QVERIFY2(drain.exitCode() == 0,
                 qPrintable(QStringLiteral("drain: ") +
                            lqstress::lastLine(logPath(QStringLiteral("drain")))));
    }
    const auto rows = readJobs(file);
    QCOMPARE(rows.size(), std::size_t(0));
    QCOMPARE(lqstress::integrityCheck(file), QStringLiteral("ok"));

    // ---- the history ----------------------------------------------------
    lqstress::jobs::Logs h;
    for (const auto& pr : fleet.procs())
        lqstress::jobs::parse(pr.log, pr.killed, h);
    lqstress::jobs::parse(logPath(QStringLiteral("final-release")), false, h);
    lqstress::jobs::parse(logPath(QStringLiteral("drain")), false, h);
    for (const auto& e : h.errors)
        qWarning("%s", e.c_str());
    QVERIFY2(h.errors.empty(), "a process logged an error (busy, or worse): see the warnings");
    QCOMPARE(h.duplicatePuts, std::int64_t(0));
    QVERIFY2(h.puts.size() > 100, "too few jobs for a meaningful run");

    const auto v = lqstress::jobs::check(h, rows, kills);
    for (std::size_t i = 0; i < v.violations.size() && i < 20; ++i)
        qWarning("violation: %s", v.violations[i].c_str());
    std::int64_t drained = 0;
    for (const auto& [id, cl] : h.claims)
        for (const auto& c : cl)
            drained += c.who == "drain.log" ? 1 : 0;
    const auto by = [&](const char* a) {
        const auto it = h.appliedBy.find(a);
        return it == h.appliedBy.end() ? std::int64_t(0) : it->second;
    };
    const auto undone = [&](const char* a) {
        const auto it = h.undoneBy.find(a);
        return it == h.undoneBy.end() ? std::int64_t(0) : it->second;
    };
    const auto moved = [&](const char* a) {
        const auto it = h.undoSkippedBy.find(a);
        return it == h.undoSkippedBy.end() ? std::int64_t(0) : it->second;
    };
    const QString summary =
        QStringLiteral(
            "jobs-lease%1: %2 s, %3 jobs put, %4 claims (%5 after a lapsed lease), %6 finished, "
            "%7 rescheduled by workers, %8 abandoned, %9 worker writes refused (%10 after "
            "outliving the lease), operator: %11 rows applied (%12 release, %13 of them on a "
            "live lease, %14 reschedule, %15 delete) in %16 calls, %17 stale skipped (of %18), "
            "%19 undone (%20 moved on; delete %35/%36, release %37/%38, reschedule %39/%40), %21 "
            "kills, %22 jobs held by killed workers (%23 claimed "
            "again during the run, %24 released, rescheduled or deleted by the operator, %25 "
            "claimed by the final drain, %26 finished before the "
            "kill), %27 attempts unlogged, %28 leases live at the end (%29 released), %30 "
            "drained, %31 lost, %32 finished twice, %33 stale applied, %34 stolen")
            .arg(kills ? QStringLiteral(" (kill -9)") : QString())
            .arg(seconds)
            .arg(h.puts.size())
            .arg(v.claims)
            .arg(v.lapsedReclaimed)
            .arg(v.finished)
            .arg(v.later)
            .arg(h.abandoned)
            .arg(v.refused)
            .arg(v.slowRefused)
            .arg(h.opApplied)
            .arg(by("release"))
            .arg(v.releasedLive)
            .arg(by("reschedule"))
            .arg(by("delete"))
            .arg(h.opCalls)
            .arg(h.opStale)
            .arg(h.opSkipped)
            .arg(h.undoApplied)
            .arg(h.undoSkipped)
            .arg(killed)
            .arg(v.killedHeld)
            .arg(v.killedHeldReclaimed)
            .arg(v.killedHeldOperator)
            .arg(v.killedHeldDrained)
            .arg(v.killedHeldWritten)
            .arg(v.unloggedClaims)
            .arg(leasedAtEnd)
            .arg(releasedAtEnd)
            .arg(drained)
            .arg(v.lost)
            .arg(v.finishedTwice)
            .arg(v.staleApplied)
            .arg(v.stolen)
            .arg(undone("delete"))
            .arg(undone("delete") + moved("delete"))
            .arg(undone("release"))
            .arg(undone("release") + moved("release"))
            .arg(undone("reschedule"))
            .arg(undone("reschedule") + moved("reschedule"));
    qInfo("%s", qPrintable(summary));
    std::printf("%s\n", qPrintable(summary));
    std::fflush(stdout);
    QVERIFY2(v.violations.empty(),
             qPrintable(QString::number(v.violations.size()) + QStringLiteral(" violations")));
    QCOMPARE(v.lost, std::int64_t(0));
    QCOMPARE(v.finishedTwice, std::int64_t(0));
    QCOMPARE(v.staleApplied, std::int64_t(0));
    QCOMPARE(v.stolen, std::int64_t(0));
    // The run exercised what it claims to.
    QVERIFY2(v.lapsedReclaimed > 0, "no lease lapsed and was claimed again");
    QVERIFY2(h.opApplied > 0, "the operator never won a race: the run proves little");
    if (h.opStale == 0)
        qWarning("no operator action went stale in this run: the races were not exercised");
    if (kills > 0)
        QVERIFY2(v.killedHeld > 0, "no worker was killed while it held a job");
}

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments();
    if (args.removeAll(QStringLiteral("--long")) > 0)
        g_seconds = 300;
    bool ok = false;
    const int env = qEnvironmentVariableIntValue("LQ_STRESS_SECONDS", &ok);
    if (ok && env > 0)
        g_seconds = env;
    TestStress t;
    return QTest::qExec(&t, args);
}

#include "tst_stress.moc"
