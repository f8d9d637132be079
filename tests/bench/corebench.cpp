// SPDX-License-Identifier: MIT
// lqcore against raw SQLite C code doing the same statements, prepared once,
// with the same connection settings, alternating A/B over several rounds.
#include "corebench.h"

#include "core/clock.h"
#include "core/json.h"
#include "core/queue.h"

#include <sqlite3.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lq::bench {

namespace fs = std::filesystem;
using core::Queue;

namespace {

double seconds(const std::function<void()>& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void check(int rc, sqlite3* db, const char* what) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
        throw std::runtime_error(std::string(what) + ": " + sqlite3_errmsg(db));
}

/// The raw side: one connection configured like lqcore's write connection,
/// every statement prepared once.
class Raw {
public:
    explicit Raw(const std::string& path) {
        check(sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                              nullptr),
              m_db, "open");
        sqlite3_db_config(m_db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
        sqlite3_db_config(m_db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
        sqlite3_busy_timeout(m_db, 5000);
        sqlite3_exec(m_db, "PRAGMA cell_size_check = ON", nullptr, nullptr, nullptr);
        sqlite3_exec(m_db, "PRAGMA synchronous = NORMAL", nullptr, nullptr, nullptr);
        sqlite3_exec(m_db, "PRAGMA temp_store = MEMORY", nullptr, nullptr, nullptr);
        m_insert = prep("INSERT INTO \"Queue\" (data, message_id, status, in_time, lock_time, "
                        "done_time, idempotency_key, claim_id) VALUES (?1, ?2, 0, ?3, NULL, "
                        "NULL, ?4, 0)");
        m_begin = prep("BEGIN IMMEDIATE");
        m_commit = prep("COMMIT");
        m_pop = prep("UPDATE \"Queue\" SET status = 1, claim_id = claim_id + 1, lock_time = ?1, "
                     "done_time = NULL WHERE message_id = (SELECT message_id FROM \"Queue\" "
                     "WHERE status = 0 ORDER BY message_id LIMIT 1) RETURNING rowid, data, "
                     "message_id, status, in_time, lock_time, done_time, idempotency_key, "
                     "claim_id, NULL, NULL");
        m_done = prep("UPDATE \"Queue\" SET status = ?1, done_time = ?4 WHERE message_id = ?2 "
                      "AND status = 1 AND claim_id = ?3");
        m_retry = prep("UPDATE \"Queue\" SET status = ?1, done_time = NULL WHERE message_id = "
                       "?2 AND status = 1 AND claim_id = ?3");
    }
    ~Raw() {
        for (auto* s : {m_insert, m_begin, m_commit, m_pop, m_done, m_retry})
            sqlite3_finalize(s);
        sqlite3_close_v2(m_db);
    }

    void put(const std::string& data) {
        const auto now = core::systemNowNs();
        const std::string id = Queue::newMessageId(now);
        sqlite3_bind_text(m_insert, 1, data.data(), static_cast<int>(data.size()),
                          SQLITE_TRANSIENT);
        sqlite3_bind_text(m_insert, 2, id.data(), static_cast<int>(id.size()), SQLITE_TRANSIENT);
        sqlite3_bind_int64(m_insert, 3, now);
        sqlite3_bind_null(m_insert, 4);
        check(sqlite3_step(m_insert), m_db, "insert");
        sqlite3_reset(m_insert);
    }
    void begin() { run(m_begin); }
    void commit() { run(m_commit); }

    // pop, then done (toStatus 2) or retry (toStatus 0) with the claim.
    bool popThen(int toStatus) {
        begin();
        sqlite3_bind_int64(m_pop, 1, core::systemNowNs());
        const int rc = sqlite3_step(m_pop);
        if (rc != SQLITE_ROW) {
            sqlite3_reset(m_pop);
            commit();
            return false;
        }
        // Materialise the message as lqcore does.
        const std::string data(reinterpret_cast<const char*>(sqlite3_column_text(m_pop, 1)),
                               static_cast<std::size_t>(sqlite3_column_bytes(m_pop, 1)));
        const std::string id(reinterpret_cast<const char*>(sqlite3_column_text(m_pop, 2)),
                             static_cast<std::size_t>(sqlite3_column_bytes(m_pop, 2)));
        const auto claim = sqlite3_column_int64(m_pop, 8);
        sqlite3_reset(m_pop);
        commit();
        sqlite3_stmt* s = toStatus == 2 ? m_done : m_retry;
        sqlite3_bind_int(s, 1, toStatus);
        sqlite3_bind_text(s, 2, id.data(), static_cast<int>(id.size()), SQLITE_TRANSIENT);
        sqlite3_bind_int64(s, 3, claim);
        if (toStatus == 2)
            sqlite3_bind_int64(s, 4, core::systemNowNs());
        check(sqlite3_step(s), m_db, "update");
        sqlite3_reset(s);
        (void)data;
        return sqlite3_changes(m_db) == 1;
    }

private:
    sqlite3_stmt* prep(const char* sql) {
        sqlite3_stmt* s = nullptr;
        check(sqlite3_prepare_v3(m_db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr), m_db, sql);
        return s;
    }
    void run(sqlite3_stmt* s) {
        check(sqlite3_step(s), m_db, "step");
        sqlite3_reset(s);
    }
    sqlite3* m_db = nullptr;
    sqlite3_stmt *m_insert, *m_begin, *m_commit, *m_pop, *m_done, *m_retry;
};

std::string payload(int i) {
    return "{\"task\":\"resize\",\"image\":" + std::to_string(i) + ",\"size\":[640,480]}";
}

std::string freshQueue(const std::string& dir, const std::string& name, int prefill) {
    const std::string path = dir + "/" + name + ".sqlite3";
    for (const char* suffix : {"", "-wal", "-shm"})
        fs::remove(path + suffix);
    auto q = Queue::create(path);
    std::vector<core::PutItem> items;
    for (int i = 0; i < prefill; ++i) {
        items.push_back({payload(i), std::nullopt});
        if (items.size() == 1000 || i + 1 == prefill) {
            q->putMany(items);
            items.clear();
        }
    }
    return path;
}

struct Workload {
    const char* name;
    int prefill; ///< messages put before timing
    std::function<void(const std::string&, int)> lqcore;
    std::function<void(const std::string&, int)> raw;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

} // namespace

int runCore(const CoreOptions& o) {
    std::string dir = o.dir;
    if (dir.empty()) {
        dir = (fs::temp_directory_path() / ("lqbench-" + std::to_string(::getpid()))).string();
    }
    fs::create_directories(dir);
    const int batch = std::max(1, o.batch);

    const std::vector<Workload> workloads = {
        {"put", 0,
         [](const std::string& p, int n) {
             auto q = Queue::open(p);
             for (int i = 0; i < n; ++i)
                 q->put(payload(i));
         },
         [](const std::string& p, int n) {
             Raw r(p);
             for (int i = 0; i < n; ++i)
                 r.put(payload(i));
         }},
        {"pop_done", 1,
         [](const std::string& p, int n) {
             auto q = Queue::open(p);
             for (int i = 0; i < n; ++i) {
                 auto m = q->pop();
                 if (!m || !q->done(m->messageId, m->claimId))
                     throw std::runtime_error("pop_done: queue ran dry");
             }
         },
         [](const std::string& p, int n) {
             Raw r(p);
             for (int i = 0; i < n; ++i)
                 if (!r.popThen(2))
                     throw std::runtime_error("pop_done: queue ran dry");
         }},
        {"pop_retry", 1,
         [](const std::string& p, int n) {
             auto q = Queue::open(p);
             for (int i = 0; i < n; ++i) {
                 auto m = q->pop();
                 if (!m || !q->retry(m->messageId, m->claimId))
                     throw std::runtime_error("pop_retry failed");
             }
         },
         [](const std::string& p, int n) {
             Raw r(p);
             for (int i = 0; i < n; ++i)
                 if (!r.popThen(0))
                     throw std::runtime_error("pop_retry failed");
         }},
        {"put_many", 0,
         [batch](const std::string& p, int n) {
             auto q = Queue::open(p);
             std::vector<core::PutItem> items;
             items.reserve(static_cast<std::size_t>(batch));
             for (int i = 0; i < n; ++i) {
                 items.push_back({payload(i), std::nullopt});
                 if (static_cast<int>(items.size()) == batch || i + 1 == n) {
                     q->putMany(items);
                     items.clear();
                 }
             }
         },
         [batch](const std::string& p, int n) {
             Raw r(p);
             for (int i = 0; i < n; i += batch) {
                 r.begin();
                 for (int k = i; k < std::min(n, i + batch); ++k)
                     r.put(payload(k));
                 r.commit();
             }
         }},
    };

    core::Json results = core::Json::array();
    if (!o.json)
        std::printf("%-10s %14s %14s %8s   (%d ops, %d rounds, median)\n", "workload",
                    "lqcore ops/s", "raw ops/s", "ratio", o.ops, o.rounds);
    for (const auto& w : workloads) {
        std::vector<double> ratios, lq, raw;
        for (int round = 0; round < o.rounds; ++round) {
            // Alternate which side goes first so drift favours neither.
            const bool lqFirst = round % 2 == 0;
            double tl = 0, tr = 0;
            for (int side = 0; side < 2; ++side) {
                const bool doLq = (side == 0) == lqFirst;
                const int prefill = w.prefill ? o.ops : 0;
                const std::string path =
                    freshQueue(dir, std::string(w.name) + (doLq ? "-lq" : "-raw"), prefill);
                const double t = seconds([&] { (doLq ? w.lqcore : w.raw)(path, o.ops); });
                (doLq ? tl : tr) = t;
            }
            lq.push_back(o.ops / tl);
            raw.push_back(o.ops / tr);
            ratios.push_back((o.ops / tl) / (o.ops / tr));
        }
        const double lqOps = median(lq), rawOps = median(raw), ratio = median(ratios);
        core::Json r = core::Json::object();
        r.set("workload", w.name);
        r.set("lqcore_ops_s", std::round(lqOps));
        r.set("raw_ops_s", std::round(rawOps));
        r.set("ratio", std::round(ratio * 1000) / 1000);
        r.set("rounds", o.rounds);
        r.set("ops", o.ops);
        results.push(std::move(r));
        if (!o.json)
            std::printf("%-10s %14.0f %14.0f %8.3f\n", w.name, lqOps, rawOps, ratio);
    }
    if (o.json) {
        core::Json out = core::Json::object();
        out.set("results", std::move(results));
        std::printf("%s\n", out.dump().c_str());
    }
    std::error_code ec;
    if (o.dir.empty())
        fs::remove_all(dir, ec);
    return 0;
}

} // namespace lq::bench
