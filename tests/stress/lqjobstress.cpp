// SPDX-License-Identifier: MIT
// lqjobstress: the processes of the jobs-lease stress and crash runs.
// Producers and workers are what a real program written after seed 000 ("SQLite
// Job Queue with Leases") does, on the SQLite C API with the seed's own SQL
// and connection settings, no lqcore; the operator is lqadmin's operator layer
// (lq::core::Queue::apply/undo). Every process logs every outcome, one line
// each, line-buffered (one write(2) per line, so a line survives a kill -9),
// with CLOCK_MONOTONIC timestamps (system-wide, so lines from different
// processes compare) and the wall-clock values it wrote to the file (the
// seed's time.time() seconds, printed exactly), so tst_stress can check the
// whole history.
//
//   lqjobstress create   FILE
//   lqjobstress producer FILE --id K --log F [--stop F] [--pause-us N] [--seed N]
//   lqjobstress worker   FILE --log F [--stop F] [--lease-ms N] [--seed N] [--unguarded 1]
//   lqjobstress operator FILE --log F [--stop F] [--seed N]
//   lqjobstress drain    FILE --log F [--lease-ms N] [--deadline-ms N]
//
// Log lines (fields separated by one space; S/E: monotonic ns just before the
// call and just after it returned; wall times as %.17g seconds):
//   producer  put ID PAYLOAD RUN_AT S E
//   worker    claim ID ATTEMPTS NOW LOCKED_UNTIL S E
//             finish ID ATTEMPTS OK(0/1) SLOW(0/1) S E
//             later ID ATTEMPTS OK(0/1) RUN_AT S E
//             abandon ID ATTEMPTS
//   operator  apply ACTION APPLIED SKIPPED STALE S E
//             row ACTION ID CARRIED BEFORE_TOKEN BEFORE_STATE S E
//             skip ACTION ID CARRIED S E REASON...
//             undo ACTION APPLIED SKIPPED S E
//             unrow ACTION ID TOKEN S E
//   drain     claim/finish as a worker; stuck N (jobs left at the deadline)
//   any       error KIND MESSAGE   (then exit 2)
// Every process exits 0 when it stopped as asked.
//
// The worker's finish and retry_later are guarded by the attempts of its own
// claim (`... WHERE id = ? AND attempts = ?`): the seed's bare `WHERE id = ?`
// lets a worker whose lease lapsed delete or reschedule a job another worker
// has claimed since. `--unguarded 1` runs the seed's statements verbatim, to
// show that the oracle catches exactly that (a timing race: in about five
// 10-s runs out of six, 2026-11-30).

#include "core/actions.h"
#include "core/error.h"
#include "core/queue.h"
#include "procutil.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using lqproc::Args;
using lqproc::Log;
using lqproc::mono;
using lqproc::sleepUs;
using lqproc::stopRequested;

namespace fs = std::filesystem;

/// Python's time.time(): wall-clock seconds as a double.
double wallSeconds() {
    return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count()) /
           1e9;
}

long long ll(std::int64_t v) {
    return static_cast<long long>(v);
}

/// A failure of the SQLite C API, with SQLite's message.
struct SqlError {
    std::string kind;
    std::string message;
};

/// One connection as the seed's connect() makes it: autocommit
/// (isolation_level=None), journal_mode=WAL, busy_timeout=5000.
class SeedDb {
public:
    explicit SeedDb(const std::string& path) {
        if (sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                            nullptr) != SQLITE_OK)
            fail("open");
        sqlite3_busy_timeout(m_db, 5000); // sqlite3.connect(path, timeout=5)
        exec("PRAGMA journal_mode=WAL");
        exec("PRAGMA busy_timeout=5000");
    }
    ~SeedDb() {
        for (auto& [sql, st] : m_cache)
            sqlite3_finalize(st);
        sqlite3_close_v2(m_db);
    }
    SeedDb(const SeedDb&) = delete;
    SeedDb& operator=(const SeedDb&) = delete;

    void exec(const char* sql) {
        if (sqlite3_exec(m_db, sql, nullptr, nullptr, nullptr) != SQLITE_OK)
            fail(sql);
    }
    sqlite3_stmt* prepare(const char* sql) {
        auto it = m_cache.find(sql);
        if (it != m_cache.end())
            return it->second;
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(m_db, sql, -1, &st, nullptr) != SQLITE_OK)
            fail("prepare");
        m_cache[sql] = st;
        return st;
    }
    /// Steps a statement that returns no rows; resets it.
    void run(sqlite3_stmt* st) {
        const int rc = sqlite3_step(st);
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        if (rc != SQLITE_DONE)
            fail("step");
    }
    int changes() const { return sqlite3_changes(m_db); }
    /// The connection's last error.
    SqlError error(const char* what) const {
        const int rc = sqlite3_extended_errcode(m_db);
        const int primary = rc & 0xff;
        std::string kind = primary == SQLITE_BUSY      ? "busy"
                           : primary == SQLITE_LOCKED  ? "locked"
                           : primary == SQLITE_CORRUPT ? "damaged"
                                                       : "sqlite-" + std::to_string(rc);
        return SqlError{kind, std::string(what) + ": " + sqlite3_errmsg(m_db)};
    }
    [[noreturn]] void fail(const char* what) const { throw error(what); }

private:
    sqlite3* m_db = nullptr;
    std::map<std::string, sqlite3_stmt*> m_cache;
};

// The seed's SQL, verbatim where the seed has it.
constexpr const char* kSchema = R"(
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    payload TEXT NOT NULL,
    run_at REAL NOT NULL,
    locked_until REAL,
    attempts INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS jobs_ready ON jobs (run_at);
)";
constexpr const char* kEnqueue = "INSERT INTO jobs (id, payload, run_at) VALUES (?, ?, ?)";
constexpr const char* kClaim = R"(
            UPDATE jobs SET locked_until = ?, attempts = attempts + 1
            WHERE id = (
                SELECT id FROM jobs
                WHERE run_at <= ? AND (locked_until IS NULL OR locked_until < ?)
                ORDER BY run_at LIMIT 1
            )
            RETURNING id, payload, attempts
            )";
constexpr const char* kFinishSeed = "DELETE FROM jobs WHERE id = ?";
constexpr const char* kRetryLaterSeed =
    "UPDATE jobs SET locked_until = NULL, run_at = ? WHERE id = ?";
// The same two, guarded by the worker's claim.
constexpr const char* kFinish = "DELETE FROM jobs WHERE id = ? AND attempts = ?";
constexpr const char* kRetryLater =
    "UPDATE jobs SET locked_until = NULL, run_at = ? WHERE id = ? AND attempts = ?";

int errorExit(Log& log, const SqlError& e) {
    log.line("error %s %s", e.kind.c_str(), e.message.c_str());
    return 2;
}

int create(const Args& a) {
    try {
        SeedDb db(a.file);
        db.exec(kSchema);
    } catch (const SqlError& e) {
        std::fprintf(stderr, "lqjobstress: %s: %s\n", a.file.c_str(), e.message.c_str());
        return 2;
    }
    return 0;
}

/// uuid.uuid4().hex
std::string uuid4hex(std::mt19937_64& rng) {
    std::uint64_t hi = rng(), lo = rng();
    hi = (hi & ~0xf000ULL) | 0x4000ULL;                        // version 4
    lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL; // variant 10
    char buf[33];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(hi),
                  static_cast<unsigned long long>(lo));
    return buf;
}

int producer(const Args& a) {
    Log log(a.str("log"), "lqjobstress");
    const std::int64_t id = a.num("id", 0);
    const std::string stop = a.str("stop");
    const std::int64_t pauseUs = a.num("pause-us", 0);
    std::random_device rd;
    std::mt19937_64 rng((static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^
                        static_cast<std::uint64_t>(a.num("seed", getpid())));
    try {
        SeedDb db(a.file);
        for (std::int64_t i = 0; !stopRequested(stop); ++i) {
            if (pauseUs > 0)
                sleepUs(static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(pauseUs + 1)));
            // One job in ten is enqueued with a delay of up to 300 ms (SCHEDULED).
            const double delay = rng() % 10 == 0 ? static_cast<double>(rng() % 300'001) / 1e6 : 0.0;
            const std::string jobId = uuid4hex(rng);
            const std::string payload = "p" + std::to_string(id) + "-" + std::to_string(i);
            const std::int64_t s = mono();
            const double runAt = wallSeconds() + delay;
            sqlite3_stmt* st = db.prepare(kEnqueue);
            sqlite3_bind_text(st, 1, jobId.c_str(), -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(st, 2, payload.c_str(), -1, SQLITE_TRANSIENT);
            sqlite3_bind_double(st, 3, runAt);
            db.run(st);
            const std::int64_t e = mono();
            log.line("put %s %s %.17g %lld %lld", jobId.c_str(), payload.c_str(), runAt, ll(s),
                     ll(e));
        }
    } catch (const SqlError& e) {
        return errorExit(log, e);
    }
    return 0;
}

struct Claimed {
    std::string id;
    std::int64_t attempts = 0;
};

/// The seed's claim(): one BEGIN IMMEDIATE transaction.
std::optional<Claimed> claim(SeedDb& db, double now, double lease) {
    // conn.execute("BEGIN IMMEDIATE") ... UPDATE ... RETURNING ... COMMIT
    db.exec("BEGIN IMMEDIATE");
    std::optional<Claimed> out;
    sqlite3_stmt* st = db.prepare(kClaim);
    sqlite3_bind_double(st, 1, now + lease);
    sqlite3_bind_double(st, 2, now);
    sqlite3_bind_double(st, 3, now);
    const int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        out = Claimed{reinterpret_cast<const char*>(sqlite3_column_text(st, 0)),
                      sqlite3_column_int64(st, 2)};
    const int reset = sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if ((rc != SQLITE_ROW && rc != SQLITE_DONE) || reset != SQLITE_OK) {
        const SqlError e = db.error("claim");
        db.exec("ROLLBACK");
        throw e;
    }
    db.exec("COMMIT");
    return out;
}

int worker(const Args& a) {
    Log log(a.str("log"), "lqjobstress");
    const std::string stop = a.str("stop");
    const double lease = static_cast<double>(a.num("lease-ms", 2000)) / 1000.0;
    const bool unguarded = a.num("unguarded", 0) != 0;
    std::random_device rd;
    std::mt19937_64 rng((static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^
                        static_cast<std::uint64_t>(a.num("seed", getpid())));
    try {
        SeedDb db(a.file);
        bool firstJob = true;
        while (!stopRequested(stop)) {
            const double now = wallSeconds();
            std::int64_t s = mono();
            const auto job = claim(db, now, lease);
            std::int64_t e = mono();
            if (!job) {
                sleepUs(1000);
                continue;
            }
            log.line("claim %s %lld %.17g %.17g %lld %lld", job->id.c_str(), ll(job->attempts), now,
                     now + lease, ll(s), ll(e));
            // Per 10,000 claims: 200 abandoned, 40 outlive their lease, 600
            // reschedule themselves, the rest finish. Each process abandons
            // its first job, so that even a slow run has leases that lapse.
            const auto dice = firstJob ? 0 : rng() % 10'000;
            firstJob = false;
            if (dice < 200) {
                // "Crashes" without dying: the lease lapses, another worker
                // claims the job again.
                log.line("abandon %s %lld", job->id.c_str(), ll(job->attempts));
                continue;
            }
            const bool slow = dice < 240;
            // "Work": 0-2 ms; a slow one outlives its lease by 1-20 ms, about
            // when another worker has claimed the lapsed job again.
            sleepUs(slow ? static_cast<std::int64_t>(lease * 1e6) + 1000 +
                               static_cast<std::int64_t>(rng() % 19'001)
                         : static_cast<std::int64_t>(rng() % 2001));
            if (dice >= 240 && dice < 840) {
                // Fails and reschedules itself (the seed's retry_later).
                const double delay = static_cast<double>(rng() % 200'001) / 1e6;
                s = mono();
                const double runAt = wallSeconds() + delay;
                sqlite3_stmt* st = db.prepare(unguarded ? kRetryLaterSeed : kRetryLater);
                sqlite3_bind_double(st, 1, runAt);
                sqlite3_bind_text(st, 2, job->id.c_str(), -1, SQLITE_TRANSIENT);
                if (!unguarded)
                    sqlite3_bind_int64(st, 3, job->attempts);
                db.run(st);
                const int ok = db.changes() == 1 ? 1 : 0;
                e = mono();
                log.line("later %s %lld %d %.17g %lld %lld", job->id.c_str(), ll(job->attempts), ok,
                         runAt, ll(s), ll(e));
                continue;
            }
            s = mono();
            sqlite3_stmt* st = db.prepare(unguarded ? kFinishSeed : kFinish);
            sqlite3_bind_text(st, 1, job->id.c_str(), -1, SQLITE_TRANSIENT);
            if (!unguarded)
                sqlite3_bind_int64(st, 2, job->attempts);
            db.run(st);
            const int ok = db.changes() == 1 ? 1 : 0;
            e = mono();
            log.line("finish %s %lld %d %d %lld %lld", job->id.c_str(), ll(job->attempts), ok,
                     slow ? 1 : 0, ll(s), ll(e));
        }
    } catch (const SqlError& e) {
        return errorExit(log, e);
    }
    return 0;
}

/// After a run: claims and finishes (guarded) every job left, waiting for
/// leases to lapse and scheduled jobs to come due, until the table is empty.
/// Logs like a worker; exits 3 (after "stuck N") if jobs are left and none
/// could be claimed for --deadline-ms.
int drain(const Args& a) {
    Log log(a.str("log"), "lqjobstress");
    const double lease = static_cast<double>(a.num("lease-ms", 2000)) / 1000.0;
    const std::int64_t deadlineNs = a.num("deadline-ms", 15'000) * 1'000'000;
    std::int64_t deadline = mono() + deadlineNs;
    try {
        SeedDb db(a.file);
        for (;;) {
            const double now = wallSeconds();
            std::int64_t s = mono();
            const auto job = claim(db, now, lease);
            std::int64_t e = mono();
            if (job)
                deadline = e + deadlineNs;
            if (!job) {
                sqlite3_stmt* st = db.prepare("SELECT count(*) FROM jobs");
                std::int64_t left = -1;
                if (sqlite3_step(st) == SQLITE_ROW)
                    left = sqlite3_column_int64(st, 0);
                sqlite3_reset(st);
                if (left == 0)
                    return 0;
                if (mono() > deadline) {
                    log.line("stuck %lld", ll(left));
                    return 3;
                }
                sleepUs(5000);
                continue;
            }
            log.line("claim %s %lld %.17g %.17g %lld %lld", job->id.c_str(), ll(job->attempts), now,
                     now + lease, ll(s), ll(e));
            s = mono();
            sqlite3_stmt* st = db.prepare(kFinish);
            sqlite3_bind_text(st, 1, job->id.c_str(), -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(st, 2, job->attempts);
            db.run(st);
            const int ok = db.changes() == 1 ? 1 : 0;
            e = mono();
            log.line("finish %s %lld %d 0 %lld %lld", job->id.c_str(), ll(job->attempts), ok, ll(s),
                     ll(e));
        }
    } catch (const SqlError& e) {
        return errorExit(log, e);
    }
}

using namespace lq::core;

const char* kindWord(ErrorKind k) {
    static thread_local std::string s;
    s = errorKindName(k);
    for (char& c : s)
        if (c == ' ')
            c = '-';
    return s.c_str();
}

bool isStale(const SkippedRow& r) {
    // Every target was shown with its token a moment before, so a skip
    // means the row moved on: another claim, or gone.
    return r.reason.find("does not apply") == std::string::npos;
}

/// The operator: lqadmin's Release, Reschedule and Delete on rows it listed
/// a moment before, and "Undo last action" on some of them. Reopens the file
/// every round, as an operator who opens it again does.
class Operator {
public:
    explicit Operator(const Args& a)
        : m_log(a.str("log"), "lqjobstress")
        , m_stop(a.str("stop"))
        , m_rng(static_cast<std::uint64_t>(a.num("seed", getpid())))
        , m_file(a.file) {}

    int run() {
        try {
            for (std::int64_t round = 0; !stopRequested(m_stop); ++round) {
                m_q = Queue::open(m_file);
                if (std::string(formatId(m_q->info().format)) != "jobs-lease") {
                    m_log.line("error format %s is not jobs-lease", m_file.c_str());
                    return 2;
                }
                step(round);
                m_q.reset();
                sleepUs(30'000 + static_cast<std::int64_t>(m_rng() % 30'000));
            }
        } catch (const Error& e) {
            m_log.line("error %s %s", kindWord(e.kind()), e.what());
            return 2;
        }
        return 0;
    }

private:
    std::vector<Target> shown(std::vector<State> states, std::size_t pick) {
        Filter f;
        f.states = std::move(states);
        auto rows = m_q->list(f, Sort{}, 0, 40);
        std::shuffle(rows.begin(), rows.end(), m_rng);
        std::vector<Target> out;
        for (const auto& m : rows) {
            if (out.size() >= pick)
                break;
            out.push_back({m.messageId, m.token});
        }
        return out;
    }

    void pause() { sleepUs(static_cast<std::int64_t>(m_rng() % 5001)); }

    void act(Action action, const std::vector<Target>& targets) {
        if (targets.empty())
            return;
        ActionOptions o;
        o.delay = std::chrono::milliseconds(200 + m_rng() % 600);
        const std::int64_t s = mono();
        ActionResult r = m_q->apply(action, targets, o);
        const std::int64_t e = mono();
        std::int64_t stale = 0;
        for (const auto& k : r.skipped)
            stale += isStale(k) ? 1 : 0;
        m_log.line("apply %s %zu %zu %lld %lld %lld", actionName(action), r.applied.size(),
                   r.skipped.size(), ll(stale), ll(s), ll(e));
        std::map<std::string, std::int64_t> carried;
        for (const auto& t : targets)
            carried[t.messageId] = t.token;
        for (const auto& row : r.applied)
            m_log.line("row %s %s %lld %lld %s %lld %lld", actionName(action),
                       row.before.messageId.c_str(), ll(carried[row.before.messageId]),
                       ll(row.before.token), stateName(row.before.state), ll(s), ll(e));
        for (const auto& k : r.skipped)
            m_log.line("skip %s %s %lld %lld %lld %s", actionName(action), k.messageId.c_str(),
                       ll(carried[k.messageId]), ll(s), ll(e), k.reason.c_str());
        if (!r.applied.empty()) {
            m_last = std::move(r.applied);
            m_lastAction = action;
        }
    }

    /// "Undo last action": Queue::undo with the rows the action changed.
    void undoLast() {
        if (m_last.empty())
            return;
        const std::int64_t s = mono();
        ActionResult r = m_q->undo(m_lastAction, m_last);
        const std::int64_t e = mono();
        m_log.line("undo %s %zu %zu %lld %lld", actionName(m_lastAction), r.applied.size(),
                   r.skipped.size(), ll(s), ll(e));
        for (const auto& row : r.applied)
            m_log.line("unrow %s %s %lld %lld %lld", actionName(m_lastAction),
                       row.after.messageId.c_str(), ll(row.after.token), ll(s), ll(e));
        m_last.clear();
    }

    /// Leases are few (one per busy worker, plus abandoned ones); an
    /// operator who touched one every round would release every lease long
    /// before it could lapse. One round in ten touches one.
    std::vector<Target> someLease() {
        return m_rng() % 10 == 0 ? shown({State::Leased, State::Expired}, 1)
                                 : std::vector<Target>{};
    }

    void step(std::int64_t round) {
        // Release: a held lease (its worker keeps working) or a lapsed one.
        auto toRelease = someLease();
        pause();
        act(Action::Release, toRelease);

        // Reschedule: due jobs (some claimed meanwhile: stale), sometimes a
        // lease.
        auto toReschedule = shown({State::Ready}, 2);
        const auto lease = someLease();
        toReschedule.insert(toReschedule.end(), lease.begin(), lease.end());
        pause();
        act(Action::Reschedule, toReschedule);

        if (round % 3 == 0) {
            auto toDelete = m_rng() % 4 == 0 ? someLease() : shown({State::Ready}, 1);
            pause();
            act(Action::Delete, toDelete);
        }

        if (m_rng() % 3 == 0)
            undoLast();
    }

    Log m_log;
    std::string m_stop;
    std::mt19937_64 m_rng;
    std::string m_file;
    std::unique_ptr<Queue> m_q;
    std::vector<AppliedRow> m_last;
    Action m_lastAction = Action::Release;
};

int usage() {
    std::fprintf(
        stderr,
        "usage: lqjobstress create|producer|worker|operator|drain FILE [--option value]...\n");
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3)
        return usage();
    Args a;
    a.role = argv[1];
    a.file = argv[2];
    for (int i = 3; i + 1 < argc; i += 2) {
        if (std::strncmp(argv[i], "--", 2) != 0)
            return usage();
        a.opts[argv[i] + 2] = argv[i + 1];
    }
    if (a.role == "create")
        return create(a);
    if (a.role == "producer")
        return producer(a);
    if (a.role == "worker")
        return worker(a);
    if (a.role == "operator")
        return Operator(a).run();
    if (a.role == "drain")
        return drain(a);
    return usage();
}
