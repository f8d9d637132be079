// SPDX-License-Identifier: MIT
// The formats `lqbench formats` grows and `lqbench gui` measures against raw
// SQLite: how a library writes a million jobs, how another process moves
// one, and the statements one would type by hand for the same figures.
#include "formatprofiles.h"

namespace lq::bench {

// Rails' datetime(6) text: "YYYY-MM-DD HH:MM:SS.ffffff".
#define LQ_RAILS_TIME(x)                                                                           \
    "(strftime('%Y-%m-%d %H:%M:%S', " x ", 'unixepoch') || printf('.%06d', (" x                    \
    ") * 1000000 % 1000000))"

// The statements are long literals split over lines, not lists of words.
// NOLINTBEGIN(bugprone-suspicious-missing-comma)
const std::map<std::string, FormatProfile>& formatProfiles() {
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
          {"SELECT (SELECT count(*) FROM solid_queue_jobs), "
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
           "(SELECT count(*) FROM solid_queue_blocked_executions)",
           // wait = claim - due (running jobs), total = finished - created.
           "SELECT j.created_at, j.scheduled_at, c.created_at, j.finished_at FROM "
           "solid_queue_jobs j LEFT JOIN solid_queue_claimed_executions c ON c.job_id = j.id",
           RawTime::RailsText, RawMetrics::WaitAndTotal,
           "SELECT j.id FROM solid_queue_jobs j LEFT JOIN solid_queue_claimed_executions c ON "
           "c.job_id = j.id ORDER BY julianday(c.created_at) - julianday(j.scheduled_at) DESC, "
           "j.id DESC"}}},
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
          {"SELECT count(*) + (SELECT count(*) FROM failed_jobs), "
           "sum(reserved_at IS NULL AND available_at <= unixepoch()), "
           "sum(reserved_at IS NULL AND available_at > unixepoch()), "
           "sum(reserved_at IS NOT NULL), "
           "sum(reserved_at IS NOT NULL AND reserved_at <= unixepoch() - 90) FROM jobs",
           // wait = reserved - available; nothing else is stored.
           "SELECT created_at, available_at, reserved_at, NULL FROM jobs", RawTime::UnixSeconds,
           RawMetrics::Wait,
           "SELECT id FROM (SELECT id, reserved_at - available_at AS w FROM jobs UNION ALL "
           "SELECT -id, NULL FROM failed_jobs) ORDER BY w DESC, id DESC"}}},
    };
    return p;
}
// NOLINTEND(bugprone-suspicious-missing-comma)

#undef LQ_RAILS_TIME

const RawQueries* rawQueriesFor(const std::string& formatId) {
    static const RawQueries litequeue{
        "SELECT status, count(*) FROM Queue GROUP BY status",
        "SELECT in_time, in_time, lock_time, done_time FROM Queue", RawTime::Integer,
        RawMetrics::WaitAndProcessing,
        "SELECT rowid FROM Queue ORDER BY (lock_time - in_time) DESC, rowid DESC"};
    if (formatId.starts_with("litequeue"))
        return &litequeue;
    const auto it = formatProfiles().find(formatId);
    return it == formatProfiles().end() ? nullptr : &it->second.raw;
}

const JsonFilterProbe* jsonFilterFor(const std::string& formatId) {
    // lqmkqueue's payloads: 10 in 12 are JSON with a user_id below 100,000,
    // so about ten jobs in a million match, and every row must be read.
    static const JsonFilterProbe litequeue{"data.user_id = 4242",
                                           "SELECT rowid FROM Queue WHERE json_valid(data) AND "
                                           "json_extract(data, '$.user_id') = 4242 ORDER BY rowid"};
    return formatId.starts_with("litequeue") ? &litequeue : nullptr;
}

} // namespace lq::bench
