// SPDX-License-Identifier: MIT
// lqbench formats: what a user sees on a large file of another queue format
// (issue 14: a 1,000,000-job Solid Queue file and a 1,000,000-job Laravel
// file against the SPEC §5 targets). The fixture is grown to N jobs by SQL
// that writes rows as the library does (times in its encodings, executions
// beside the jobs); then the real main window is launched on the fixture (a
// few dozen jobs) and on the grown file, alternating, and another process
// moves shown jobs between READY and SCHEDULED as the library would.
#include "formatbench.h"
#include "rawreference.h"

#include "launchbench.h"

#include "core/format.h"
#include "core/json.h"
#include "core/queue.h"

#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace lq::bench {

namespace {

/// How to grow a format's file and flip a job between READY and SCHEDULED.
/// `:n` is the number of jobs to add, `:t0` the Unix time of the first.
struct FormatProfile {
    std::vector<std::string> grow;
    std::string toScheduled; ///< "{id}": the job's id
    std::string toReady;
    /// The counts by hand: what one would type into the sqlite3 shell for
    /// the same figures as Queue::counts() (every state at now, the stuck
    /// claims by the library's rule, the stored total), the SPEC §5
    /// reference for counts. Its first column is the number of jobs stored.
    std::string rawCounts;
};

// Rails' datetime(6) text: "YYYY-MM-DD HH:MM:SS.ffffff".
#define LQ_RAILS_TIME(x)                                                                           \
    "(strftime('%Y-%m-%d %H:%M:%S', " x ", 'unixepoch') || printf('.%06d', (" x                    \
    ") * 1000000 % 1000000))"

// The statements are long literals split over lines, not lists of words.
// NOLINTBEGIN(bugprone-suspicious-missing-comma)
const std::map<std::string, FormatProfile>& profiles() {
    static const std::map<std::string, FormatProfile> p = {
        {"solid-queue",
         {{"CREATE TEMP TABLE base AS SELECT coalesce(max(id), 0) AS id FROM "
           "solid_queue_jobs",
           // 90 % finished, 5 % ready, 2 % failed, 2 % scheduled, 1 % claimed
           "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < "
           ":n) "
           "INSERT INTO solid_queue_jobs (queue_name, class_name, arguments, priority, "
           "active_job_id, scheduled_at, finished_at, created_at, updated_at) SELECT "
           "CASE i % 3 WHEN 0 THEN 'default' WHEN 1 THEN 'mailers' ELSE 'reports' END, "
           "CASE i % 4 WHEN 0 THEN 'WelcomeMailJob' WHEN 1 THEN 'ResizeImageJob' WHEN "
           "2 THEN "
           "'ChargeCardJob' ELSE 'SyncInventoryJob' END, "
           "json_object('job_class', 'BenchJob', 'job_id', printf('bench-%d', i), "
           "'arguments', "
           "json_array(i), 'executions', 0, 'exception_executions', json_object()), i "
           "% 3, "
           "printf('bench-%d', i), " LQ_RAILS_TIME(
               ":t0 + i * 0.01") ", "
                                 "CASE WHEN i % 100 < 90 THEN " LQ_RAILS_TIME(
                                     ":t0 + i "
                                     "* 0.01 "
                                     "+ 0.25") " END, " LQ_RAILS_TIME(":t0 + i * 0.01") ","
                                                                                        " " LQ_RAILS_TIME(
                                                                                            ":t0 + "
                                                                                            "i * "
                                                                                            "0.01") " FRO"
                                                                                                    "M c",
           "INSERT INTO solid_queue_ready_executions (job_id, queue_name, priority, "
           "created_at) "
           "SELECT id, queue_name, priority, created_at FROM solid_queue_jobs WHERE id "
           "> (SELECT "
           "id FROM base) AND (id - (SELECT id FROM base)) % 100 BETWEEN 90 AND 94",
           "INSERT INTO solid_queue_failed_executions (job_id, error, created_at) "
           "SELECT id, "
           "json_object('exception_class', 'RuntimeError', 'message', 'boom', "
           "'backtrace', "
           "json_array('app/jobs/bench_job.rb:3:in `perform''')), created_at FROM "
           "solid_queue_jobs WHERE id > (SELECT id FROM base) AND (id - (SELECT id "
           "FROM base)) % "
           "100 BETWEEN 95 AND 96",
           "INSERT INTO solid_queue_scheduled_executions (job_id, queue_name, "
           "priority, "
           "scheduled_at, created_at) SELECT id, queue_name, priority, " LQ_RAILS_TIME(
               ":t0 + 86400 * 365") ", created_at FROM solid_queue_jobs WHERE id > "
                                    "(SELECT id "
                                    "FROM base) AND (id - (SELECT id FROM base)) % 100 "
                                    "BETWEEN "
                                    "97 AND 98",
           "INSERT INTO solid_queue_claimed_executions (job_id, process_id, "
           "created_at) SELECT "
           "id, (SELECT max(id) FROM solid_queue_processes), created_at FROM "
           "solid_queue_jobs "
           "WHERE id > (SELECT id FROM base) AND (id - (SELECT id FROM base)) % 100 = "
           "99"},
          // What Solid Queue's own scheduling and dispatch do, one job at a time.
          "BEGIN IMMEDIATE; DELETE FROM solid_queue_ready_executions WHERE job_id = "
          "{id}; "
          "UPDATE solid_queue_jobs SET scheduled_at = strftime('%Y-%m-%d %H:%M:%f', "
          "'now', "
          "'+1 year') WHERE id = {id}; INSERT INTO solid_queue_scheduled_executions "
          "(job_id, "
          "queue_name, priority, scheduled_at, created_at) SELECT id, queue_name, "
          "priority, "
          "scheduled_at, strftime('%Y-%m-%d %H:%M:%f', 'now') FROM solid_queue_jobs "
          "WHERE id = "
          "{id}; COMMIT;",
          "BEGIN IMMEDIATE; DELETE FROM solid_queue_scheduled_executions WHERE job_id "
          "= {id}; "
          "UPDATE solid_queue_jobs SET scheduled_at = strftime('%Y-%m-%d %H:%M:%f', "
          "'now') WHERE "
          "id = {id}; INSERT INTO solid_queue_ready_executions (job_id, queue_name, "
          "priority, "
          "created_at) SELECT id, queue_name, priority, strftime('%Y-%m-%d %H:%M:%f', "
          "'now') "
          "FROM solid_queue_jobs WHERE id = {id}; COMMIT;",
          "SELECT (SELECT count(*) FROM solid_queue_jobs), "
          "(SELECT count(*) FROM solid_queue_jobs WHERE finished_at IS NOT NULL), "
          "(SELECT count(*) FROM solid_queue_ready_executions), "
          "(SELECT count(*) FROM solid_queue_scheduled_executions WHERE scheduled_at > "
          "strftime('%Y-%m-%d %H:%M:%f', 'now')), "
          "(SELECT count(*) FROM solid_queue_scheduled_executions WHERE scheduled_at <= "
          "strftime('%Y-%m-%d %H:%M:%f', 'now')), "
          "(SELECT count(*) FROM solid_queue_claimed_executions), "
          "(SELECT count(*) FROM solid_queue_claimed_executions c LEFT JOIN "
          "solid_queue_processes p ON p.id = c.process_id WHERE p.id IS NULL OR "
          "p.last_heartbeat_at <= strftime('%Y-%m-%d %H:%M:%f', 'now', '-5 minutes')), "
          "(SELECT count(*) FROM solid_queue_failed_executions), "
          "(SELECT count(*) FROM solid_queue_blocked_executions)"}},
        {"laravel-database",
         {{// Completed jobs are deleted by Laravel: a backlog of N waiting jobs,
           // 3 % delayed, 2 % reserved; and failed_jobs for 2 % of N.
           "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < "
           ":n) "
           "INSERT INTO jobs (queue, payload, attempts, reserved_at, available_at, "
           "created_at) "
           "SELECT CASE i % 3 WHEN 0 THEN 'default' WHEN 1 THEN 'mail' ELSE 'reports' "
           "END, "
           "json_object('uuid', printf('%08x-0000-4000-8000-%012x', i, i), "
           "'displayName', "
           "'App\\Jobs\\SendWelcomeEmail', 'job', "
           "'Illuminate\\Queue\\CallQueuedHandler@call', "
           "'maxTries', NULL, 'maxExceptions', NULL, 'failOnTimeout', json('false'), "
           "'backoff', "
           "NULL, 'timeout', NULL, 'retryUntil', NULL, 'data', "
           "json_object('commandName', "
           "'App\\Jobs\\SendWelcomeEmail', 'command', "
           "printf('O:26:\"App\\Jobs\\SendWelcomeEmail\""
           ":1:{s:6:\"userId\";i:%d;}', i))), CASE WHEN i % 100 < 2 THEN 1 ELSE 0 END, "
           "CASE WHEN "
           "i % 100 < 2 THEN CAST(:t0 + i * 0.01 + 1 AS INTEGER) END, CASE WHEN i % "
           "100 BETWEEN "
           "2 AND 4 THEN CAST(:t0 + 86400 * 365 AS INTEGER) ELSE CAST(:t0 + i * 0.01 "
           "AS INTEGER) "
           "END, CAST(:t0 + i * 0.01 AS INTEGER) FROM c",
           "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < "
           ":n / 50) "
           "INSERT INTO failed_jobs (uuid, connection, queue, payload, exception, "
           "failed_at) "
           "SELECT printf('%08x-1111-4000-8000-%012x', i, i), 'database', 'default', "
           "json_object('uuid', printf('%08x-1111-4000-8000-%012x', i, i), "
           "'displayName', "
           "'App\\Jobs\\ChargeCard', 'job', "
           "'Illuminate\\Queue\\CallQueuedHandler@call', 'data', "
           "json_object('commandName', 'App\\Jobs\\ChargeCard', 'command', "
           "'O:18:\"App\\Jobs\\"
           "ChargeCard\":0:{}')), 'RuntimeException: card declined in "
           "/app/Jobs/ChargeCard.php:21', strftime('%Y-%m-%d %H:%M:%S', :t0 + i * 0.5, "
           "'unixepoch') FROM c"},
          // Laravel's release with a delay, and its end (available now).
          "UPDATE jobs SET available_at = CAST(strftime('%s', 'now') AS INTEGER) + "
          "31536000 "
          "WHERE id = {id};",
          "UPDATE jobs SET available_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE "
          "id = "
          "{id};",
          "SELECT count(*) + (SELECT count(*) FROM failed_jobs), "
          "sum(reserved_at IS NULL AND available_at <= unixepoch()), "
          "sum(reserved_at IS NULL AND available_at > unixepoch()), "
          "sum(reserved_at IS NOT NULL), "
          "sum(reserved_at IS NOT NULL AND reserved_at <= unixepoch() - 90) FROM jobs"}},
    };
    return p;
}
// NOLINTEND(bugprone-suspicious-missing-comma)

#undef LQ_RAILS_TIME

void exec(sqlite3* db, const std::string& sql, long n, double t0) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
        throw std::runtime_error(std::string(sqlite3_errmsg(db)) + " in: " + sql.substr(0, 120));
    if (const int i = sqlite3_bind_parameter_index(st, ":n"))
        sqlite3_bind_int64(st, i, n);
    if (const int i = sqlite3_bind_parameter_index(st, ":t0"))
        sqlite3_bind_double(st, i, t0);
    const int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        throw std::runtime_error(std::string(sqlite3_errmsg(db)) + " in: " + sql.substr(0, 120));
}

void grow(const std::string& path, const FormatProfile& p, long n) {
    sqlite3* db = nullptr;
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK)
        throw std::runtime_error("cannot open " + path);
    // The history ends a little before now, so nothing grown is due later
    // than the scheduled rows meant to be.
    const double t0 = double(std::chrono::duration_cast<std::chrono::seconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count()) -
                      double(n) * 0.01 - 3600;
    try {
        exec(db, "BEGIN", 0, 0);
        for (const std::string& s : p.grow)
            exec(db, s, n, t0);
        exec(db, "COMMIT", 0, 0);
    } catch (...) {
        sqlite3_close(db);
        throw;
    }
    sqlite3_close(db);
}

std::string formatOf(const std::string& path) {
    core::OpenOptions o;
    o.readOnly = true;
    return core::formatId(core::Queue::open(path, o)->info().format);
}

} // namespace

int runFormats(const FormatOptions& o) {
    namespace fs = std::filesystem;
    const std::string id = formatOf(o.fixture);
    const auto it = profiles().find(id);
    if (it == profiles().end()) {
        std::fprintf(stderr, "lqbench formats: no profile for %s files (%s)\n", id.c_str(),
                     o.fixture.c_str());
        return 2;
    }
    const FormatProfile& p = it->second;
    fs::create_directories(o.dir);
    const std::string small = (fs::path(o.dir) / ("lqbench-" + id + "-fixture.sqlite3")).string();
    const std::string large =
        (fs::path(o.dir) / ("lqbench-" + id + "-" + std::to_string(o.rows) + ".sqlite3")).string();
    for (const std::string& f : {small, large})
        for (const char* suffix : {"", "-wal", "-shm", "-journal"})
            fs::remove(f + suffix);
    fs::copy_file(o.fixture, small);
    fs::copy_file(o.fixture, large);
    const auto g0 = std::chrono::steady_clock::now();
    grow(large, p, o.rows);
    const double growS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - g0).count();
    std::fprintf(stderr, "lqbench formats: %s grown by %ld jobs in %.1f s (%s)\n", id.c_str(),
                 o.rows, growS, large.c_str());

    std::vector<double> big, little, change, rss;
    std::string error;
    std::string platform;
    for (int i = 0; i < o.launches; ++i) {
        for (const std::string* f : {&small, &large}) {
            const auto j = launchOnce(o.self, *f, {}, &error);
            if (!j || (*j)["launch_to_rows_ms"].toDouble() < 0) {
                std::fprintf(stderr, "lqbench formats: %s\n",
                             j ? "no data rows painted within 30 s" : error.c_str());
                return 1;
            }
            platform = (*j)["platform"].toString();
            (f == &large ? big : little).push_back((*j)["launch_to_rows_ms"].toDouble());
            if (f == &large)
                rss.push_back((*j)["peak_rss_mb"].toDouble());
        }
    }
    const auto j = launchOnce(o.self, large,
                              {"--changes", std::to_string(o.changes), "--to-scheduled-sql",
                               p.toScheduled, "--to-ready-sql", p.toReady},
                              &error);
    if (!j) {
        std::fprintf(stderr, "lqbench formats: %s\n", error.c_str());
        return 1;
    }
    for (const core::Json& c : (*j)["changes_ms"].toArray())
        change.push_back(c.toDouble());

    // SPEC §5: counts within 1.3x of raw SQLite doing the same work, in the
    // same run, on the grown file (best of 5 each, read-only connections).
    core::OpenOptions ro;
    ro.readOnly = true;
    auto q = core::Queue::open(large, ro);
    RawReference raw(large);
    std::int64_t stored = -1;
    std::int64_t rawStored = -1;
    const double countsMs = RawReference::best(5, [&] { stored = q->counts().stored; });
    const double rawCountsMs = RawReference::best(5, [&] {
        raw.each(p.rawCounts.c_str(),
                 [&](sqlite3_stmt* st) { rawStored = sqlite3_column_int64(st, 0); });
    });
    if (stored != rawStored) {
        std::fprintf(stderr, "lqbench formats: counts say %lld jobs, the raw query %lld\n",
                     static_cast<long long>(stored), static_cast<long long>(rawStored));
        return 1;
    }

    core::Json r = core::Json::object();
    r.set("format", id);
    r.set("rows_added", static_cast<std::int64_t>(o.rows));
    r.set("platform", platform);
    r.set("launch_to_rows_ms", median(big));
    r.set("launch_to_rows_small_ms", median(little));
    r.set("launch_cost_ms", median(big) - median(little));
    r.set("launch_rounds", static_cast<std::int64_t>(o.launches));
    r.set("external_change_ms", median(change));
    r.set("external_change_p95_ms", percentile(change, 0.95));
    r.set("external_change_count", static_cast<std::int64_t>(change.size()));
    r.set("peak_rss_mb", median(rss));
    r.set("counts_ms", countsMs);
    r.set("raw_counts_ms", rawCountsMs);
    r.set("counts_ratio", countsMs / rawCountsMs);
    r.set("counts_journal", q->info().journalMode);
    std::printf("%s\n", r.dump().c_str());
    int rc = change.empty() ? 1 : 0;
    if (change.empty())
        std::fprintf(stderr, "lqbench formats: no READY or SCHEDULED job shown to change\n");
    if (o.checkFactor > 0) {
        const std::pair<const char*, double> limits[] = {{"launch_cost_ms", 50},
                                                         {"external_change_ms", 250},
                                                         {"external_change_p95_ms", 400},
                                                         {"counts_ratio", 1.3}};
        for (const auto& [key, target] : limits) {
            if (r[key].toDouble() > target * o.checkFactor) {
                std::fprintf(stderr, "lqbench formats: %s = %.1f is over %.0f x %.1f\n", key,
                             r[key].toDouble(), target, o.checkFactor);
                rc = 1;
            }
        }
    }
    if (!o.keep)
        for (const std::string& f : {small, large})
            for (const char* suffix : {"", "-wal", "-shm", "-journal"})
                fs::remove(f + suffix);
    return rc;
}

} // namespace lq::bench
