// SPDX-License-Identifier: MIT
#include "solidqueue_ops.h"

#include "../error.h"
#include "../json.h"
#include "solidqueue.h"
#include "solidqueue_text.h"

#include <algorithm>
#include <map>

namespace lq::core::solidqueue {

ProcessList processes(Connection& c, TimeNs now) {
    // Short reads, each its own statement: the table is small (one row per
    // process), the claims are counted by the process_id index.
    // A process holds at most its threads' claims: the ids are few.
    std::map<std::string, std::vector<std::string>> claims;
    {
        Statement st = c.prepare("SELECT process_id, job_id FROM solid_queue_claimed_executions "
                                 "ORDER BY process_id, job_id");
        while (st.step())
            claims[st.isNull(0) ? std::string() : std::to_string(st.int64(0))].push_back(
                std::to_string(st.int64(1)));
    }
    // Every Solid Queue version has these columns beside id and
    // last_heartbeat_at (the recogniser's signature); `name` came later.
    Statement st = [&] {
        try {
            return c.prepare("SELECT id, kind, pid, hostname, supervisor_id, last_heartbeat_at, "
                             "metadata, name FROM solid_queue_processes ORDER BY id");
        } catch (const Error&) {
            return c.prepare("SELECT id, kind, pid, hostname, supervisor_id, last_heartbeat_at, "
                             "metadata, NULL FROM solid_queue_processes ORDER BY id");
        }
    }();
    std::vector<ProcessInfo> rows;
    while (st.step()) {
        ProcessInfo p;
        p.id = std::to_string(st.int64(0));
        p.kind = st.text(1);
        p.pid = st.int64(2);
        p.host = st.text(3);
        if (!st.isNull(4))
            p.supervisorId = std::to_string(st.int64(4));
        p.lastHeartbeat = storedRailsTime(st, 5);
        p.metadata = st.text(6);
        p.name = st.text(7);
        rows.push_back(std::move(p));
    }
    return processList(std::move(rows), std::move(claims), now);
}

ProcessList processList(std::vector<ProcessInfo> rows,
                        std::map<std::string, std::vector<std::string>> claims, TimeNs now) {
    ProcessList out;
    out.aliveRule = "a heartbeat within the last 5 minutes (process_alive_threshold)";
    for (ProcessInfo& p : rows) {
        // SolidQueue::Process.prunable: last_heartbeat_at <= alive threshold ago.
        p.alive = p.lastHeartbeat && *p.lastHeartbeat > now - kAliveThreshold;
        if (const auto it = claims.find(p.id); it != claims.end()) {
            p.claimed = static_cast<std::int64_t>(it->second.size());
            p.claimedIds = std::move(it->second);
            claims.erase(it);
        }
        out.processes.push_back(std::move(p));
    }
    for (const auto& [pid, ids] : claims)
        out.orphanedClaims += static_cast<std::int64_t>(ids.size());
    if (out.processes.empty())
        return out;
    // The processes whose work nobody else does: a dispatcher moves due
    // scheduled jobs to ready, a scheduler enqueues the recurring tasks.
    // Only for a kind the file records: one whose every process is dead
    // (a scheduler the app never ran is no news).
    const auto noneAlive = [&](const char* kind) {
        const auto of = [&](const ProcessInfo& p) { return p.kind == kind; };
        return std::any_of(out.processes.begin(), out.processes.end(), of) &&
               std::none_of(out.processes.begin(), out.processes.end(),
                            [&](const ProcessInfo& p) { return of(p) && p.alive; });
    };
    if (noneAlive("Dispatcher"))
        out.warnings.emplace_back("no live dispatcher: due scheduled jobs are not moved to ready");
    if (noneAlive("Scheduler"))
        out.warnings.emplace_back("no live scheduler: recurring tasks are not enqueued");
    if (noneAlive("Worker"))
        out.warnings.emplace_back("no live worker: ready jobs are not run");
    return out;
}

std::vector<PausedQueue> pausedQueues(Connection& c, const FormatInfo& info) {
    std::vector<PausedQueue> out;
    if (std::find(info.columns.begin(), info.columns.end(), "solid_queue_pauses") ==
        info.columns.end())
        return out;
    Statement st = c.prepare("SELECT queue_name, created_at FROM solid_queue_pauses ORDER BY "
                             "queue_name");
    while (st.step())
        out.push_back({st.text(0), storedRailsTime(st, 1)});
    return out;
}

FormatDriver::PauseRow readPause(Connection& c, const std::string& queue) {
    FormatDriver::PauseRow r;
    {
        Statement st =
            c.prepare("SELECT id, created_at FROM solid_queue_pauses WHERE queue_name = ?");
        st.bind(1, std::string_view(queue));
        if (st.step()) {
            r.exists = r.paused = true;
            r.since = storedRailsTime(st, 1);
            Json j = Json::object();
            j.set("id", st.int64(0));
            j.set("created_at", st.optText(1));
            r.stored = j.dump();
            return r;
        }
    }
    Statement st = c.prepare("SELECT 1 FROM solid_queue_jobs WHERE queue_name = ? LIMIT 1");
    st.bind(1, std::string_view(queue));
    r.exists = st.step();
    if (!r.exists)
        r.missing = "no job of this file names queue \"" + queue + "\"";
    return r;
}

std::int64_t writePause(Connection& c, const std::string& queue, bool pause, TimeNs now) {
    if (pause) {
        Statement st =
            c.prepare("INSERT INTO solid_queue_pauses (queue_name, created_at) VALUES (?, ?)");
        st.bind(1, std::string_view(queue)).bind(2, std::string_view(railsTime(now))).exec();
    } else {
        Statement st = c.prepare("DELETE FROM solid_queue_pauses WHERE queue_name = ?");
        st.bind(1, std::string_view(queue)).exec();
    }
    return c.changes();
}

std::int64_t restorePause(Connection& c, const std::string& queue,
                          const FormatDriver::PauseRow& wrote,
                          const FormatDriver::PauseRow& before) {
    if (wrote.paused) {
        // Undo of a pause: the row it inserted, if it is still that row.
        const Json w = Json::parse(wrote.stored);
        std::optional<std::string> created;
        if (w["created_at"].isString())
            created = w["created_at"].toString();
        Statement st = c.prepare(
            "DELETE FROM solid_queue_pauses WHERE queue_name = ? AND id = ? AND created_at IS ?");
        st.bind(1, std::string_view(queue)).bind(2, w["id"].toInt()).bind(3, created).exec();
        return c.changes();
    }
    // Undo of a resume: the row it deleted, while the queue is not paused.
    const Json b = Json::parse(before.stored);
    std::optional<std::string> created;
    if (b["created_at"].isString())
        created = b["created_at"].toString();
    Statement st = c.prepare("INSERT INTO solid_queue_pauses (id, queue_name, created_at) "
                             "SELECT ?1, ?2, ?3 WHERE NOT EXISTS (SELECT 1 FROM "
                             "solid_queue_pauses WHERE queue_name = ?2 OR id = ?1)");
    st.bind(1, b["id"].toInt()).bind(2, std::string_view(queue)).bind(3, created).exec();
    return c.changes();
}

} // namespace lq::core::solidqueue
