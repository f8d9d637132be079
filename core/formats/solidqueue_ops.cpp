// SPDX-License-Identifier: MIT
#include "solidqueue_ops.h"

#include "../error.h"
#include "solidqueue_text.h"

#include <algorithm>
#include <map>

namespace lq::core::solidqueue {

ProcessList processes(Connection& c, TimeNs now) {
    ProcessList out;
    out.aliveRule = "a heartbeat within the last 5 minutes (process_alive_threshold)";
    // Short reads, each its own statement: the table is small (one row per
    // process), the claims are counted by the process_id index.
    std::map<std::int64_t, std::int64_t> claims;
    {
        Statement st = c.prepare("SELECT process_id, count(*) FROM solid_queue_claimed_executions "
                                 "GROUP BY process_id");
        while (st.step())
            claims[st.isNull(0) ? -1 : st.int64(0)] += st.int64(1);
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
    while (st.step()) {
        ProcessInfo p;
        const std::int64_t id = st.int64(0);
        p.id = std::to_string(id);
        p.kind = st.text(1);
        p.pid = st.int64(2);
        p.host = st.text(3);
        if (!st.isNull(4))
            p.supervisorId = std::to_string(st.int64(4));
        p.lastHeartbeat = storedRailsTime(st, 5);
        // SolidQueue::Process.prunable: last_heartbeat_at <= alive threshold ago.
        p.alive = p.lastHeartbeat && *p.lastHeartbeat > now - kAliveThreshold;
        p.metadata = st.text(6);
        p.name = st.text(7);
        if (const auto it = claims.find(id); it != claims.end()) {
            p.claimed = it->second;
            claims.erase(it);
        }
        out.processes.push_back(std::move(p));
    }
    for (const auto& [pid, n] : claims)
        out.orphanedClaims += n;
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

} // namespace lq::core::solidqueue
