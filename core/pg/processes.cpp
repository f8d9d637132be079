// SPDX-License-Identifier: MIT
// What the libraries record beside their jobs on PostgreSQL
// (core/pg/list.h): paused named queues and worker processes.
#include "list.h"

#include "../formats/solidqueue_ops.h"
#include "catalog.h"
#include "connection.h"
#include "counts.h"

#include <algorithm>
#include <map>

namespace lq::core::pg {

std::vector<PausedQueue> readPausedQueues(Connection& c, const Found& lib) {
    std::string sql;
    if (lib.library == "solid-queue" && lib.has("solid_queue_pauses"))
        sql = "SELECT queue_name, " + ns("created_at") + " FROM " +
              qualified(lib, "solid_queue_pauses");
    else if (lib.library == "river" && lib.has("river_queue"))
        sql = "SELECT name, " + ns("paused_at") + " FROM " + qualified(lib, "river_queue") +
              " WHERE paused_at IS NOT NULL";
    else if (lib.library == "good-job" && lib.has("good_job_settings"))
        // GoodJob 4's pauses (GoodJob::Setting.pause, bensheldon/good_job@81db22b7
        // app/models/good_job/setting.rb): the "pauses" setting's queues. It
        // keeps no time per queue (the setting's updated_at is any pause's);
        // its job-class and label pauses name no queue.
        sql = "SELECT q, NULL::bigint FROM " + qualified(lib, "good_job_settings") +
              " s CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN "
              "jsonb_typeof(s.value -> 'queues') = 'array' THEN s.value -> 'queues' ELSE "
              "'[]'::jsonb END) q WHERE s.key = 'pauses'";
    std::vector<PausedQueue> out;
    if (sql.empty())
        return out;
    const Result r = c.exec(sql);
    for (int i = 0; i < r.rows(); ++i) {
        PausedQueue p;
        p.queue = r.text(i, 0);
        if (!r.isNull(i, 1))
            p.since = r.int64(i, 1);
        out.push_back(std::move(p));
    }
    // By name as SQLite orders it (bytes), whatever the database's collation.
    std::sort(out.begin(), out.end(),
              [](const PausedQueue& a, const PausedQueue& b) { return a.queue < b.queue; });
    return out;
}

namespace {

/// GoodJob's processes (bensheldon/good_job@81db22b7
/// app/models/good_job/process.rb): a process holds the advisory lock on
/// 'good_job_processes-<id>' while it runs (looked up in pg_locks, never
/// taken); GoodJob 4's processes without a lock type are active while
/// updated within EXPIRED_INTERVAL (5 minutes). Its jobs are counted where
/// GoodJob 4 records them (locked_by_id); before that a job names no
/// process.
ProcessList goodJobProcesses(Connection& c, const Found& lib, TimeNs now) {
    // lock_type and locked_by_id came with GoodJob 4.
    const std::string sql =
        "SELECT p.id::text, coalesce(p.state ->> 'hostname', ''), coalesce((p.state ->> "
        "'pid')::bigint, 0), " +
        ns("p.updated_at") + ", coalesce(p.state::text, ''), " +
        advisoryHeld("'good_job_processes-' || p.id::text") +
        ", coalesce(p.state ->> 'proctitle', ''), " +
        (lib.hasColumn("good_job_processes.lock_type") ? "p.lock_type IS NULL" : "false") + ", " +
        (lib.hasColumn("good_jobs.locked_by_id")
             ? "(SELECT count(*) FROM " + qualified(lib, "good_jobs") +
                   " j WHERE j.locked_by_id = p.id AND j.finished_at IS NULL)"
             : std::string("0::bigint")) +
        " FROM " + qualified(lib, "good_job_processes") + " p ORDER BY p.created_at, p.id";
    const Result r = c.exec(sql);
    constexpr TimeNs kExpired = 5LL * 60 * 1'000'000'000;
    ProcessList out;
    out.aliveRule = "holds its advisory lock on 'good_job_processes-<id>'; GoodJob 4's "
                    "processes without a lock type: updated within 5 minutes";
    for (int i = 0; i < r.rows(); ++i) {
        ProcessInfo p;
        p.id = r.text(i, 0);
        p.kind = "Process";
        p.host = r.text(i, 1);
        p.pid = r.int64(i, 2);
        if (!r.isNull(i, 3))
            p.lastHeartbeat = r.int64(i, 3);
        p.metadata = r.text(i, 4);
        p.name = r.text(i, 6);
        p.alive = r.boolean(i, 5) ||
                  (r.boolean(i, 7) && p.lastHeartbeat && *p.lastHeartbeat > now - kExpired);
        p.claimed = r.int64(i, 8);
        out.processes.push_back(std::move(p));
    }
    if (std::none_of(out.processes.begin(), out.processes.end(),
                     [](const ProcessInfo& p) { return p.alive; }))
        out.warnings.emplace_back("no live GoodJob process: no job is being taken");
    return out;
}

} // namespace

ProcessList readProcesses(Connection& c, const Found& lib, TimeNs now) {
    if (lib.library == "good-job" && lib.has("good_job_processes"))
        return goodJobProcesses(c, lib, now);
    if (lib.library != "solid-queue" || !lib.has("solid_queue_processes")) {
        ProcessList l;
        l.notStored = "the processes of " + libraryName(lib.library) +
                      " on PostgreSQL: not read yet (issue 41)";
        return l;
    }
    std::map<std::string, std::vector<std::string>> claims;
    const Result cl =
        c.exec("SELECT process_id, job_id FROM " +
               qualified(lib, "solid_queue_claimed_executions") + " ORDER BY process_id, job_id");
    for (int i = 0; i < cl.rows(); ++i)
        claims[cl.text(i, 0)].push_back(cl.text(i, 1)); // "" for NULL, as on SQLite
    const std::string cols =
        "id, kind, pid, hostname, supervisor_id, " + ns("last_heartbeat_at") + ", metadata, ";
    const std::string from = " FROM " + qualified(lib, "solid_queue_processes") + " ORDER BY id";
    // `name` came in a later Solid Queue.
    const Result r = [&] {
        try {
            return c.exec("SELECT " + cols + "name" + from);
        } catch (const Error&) {
            return c.exec("SELECT " + cols + "NULL" + from);
        }
    }();
    std::vector<ProcessInfo> rows;
    for (int i = 0; i < r.rows(); ++i) {
        ProcessInfo p;
        p.id = r.text(i, 0);
        p.kind = r.text(i, 1);
        p.pid = r.int64(i, 2);
        p.host = r.text(i, 3);
        if (!r.isNull(i, 4))
            p.supervisorId = r.text(i, 4);
        if (!r.isNull(i, 5))
            p.lastHeartbeat = r.int64(i, 5);
        p.metadata = r.text(i, 6);
        p.name = r.text(i, 7);
        rows.push_back(std::move(p));
    }
    return solidqueue::processList(std::move(rows), std::move(claims), now);
}

} // namespace lq::core::pg
