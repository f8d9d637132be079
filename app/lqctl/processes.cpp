// SPDX-License-Identifier: MIT
// `lqctl processes FILE`: the worker processes the file records, alive or
// dead by the library's rule, and the claims each holds (core/processes.h).
#include "commands.h"
#include "output.h"

#include <core/processes.h>

namespace lq::ctl {

using core::Json;
using core::TimeNs;

int cmdProcesses(const Options& o) {
    auto q = openBackendFor(o, false);
    const TimeNs now = q->now();
    const core::ProcessList list = q->processes();
    if (o.json) {
        Json arr = Json::array();
        for (const auto& p : list.processes) {
            Json j = Json::object();
            j.set("id", p.id);
            j.set("kind", p.kind);
            j.set("name", p.name);
            j.set("host", p.host);
            j.set("pid", p.pid);
            j.set("supervisor_id", p.supervisorId ? Json(*p.supervisorId) : Json());
            j.set("last_heartbeat_at_ns", p.lastHeartbeat);
            j.set("alive", p.alive);
            j.set("claimed", p.claimed);
            Json ids = Json::array();
            for (const auto& id : p.claimedIds)
                ids.push(Json(id));
            j.set("claimed_ids", std::move(ids));
            arr.push(std::move(j));
        }
        Json top = Json::object();
        top.set("processes", std::move(arr));
        top.set("orphaned_claims", list.orphanedClaims);
        top.set("alive_rule", list.aliveRule.empty() ? Json() : Json(list.aliveRule));
        top.set("not_stored", list.notStored.empty() ? Json() : Json(list.notStored));
        Json warnings = Json::array();
        for (const auto& w : list.warnings)
            warnings.push(Json(w));
        top.set("warnings", std::move(warnings));
        printJson(top);
        return ExitOk;
    }
    if (!list.notStored.empty()) {
        out(terminalSafe(list.notStored) + "\n");
        return ExitOk;
    }
    if (list.processes.empty()) {
        out("no processes recorded\n");
        return ExitOk;
    }
    Table t({"ID", "KIND", "HOST", "PID", "SUPERVISOR", "HEARTBEAT", "ALIVE", "CLAIMED"},
            {false, false, false, true, false, true, false, true});
    for (const auto& p : list.processes)
        t.addRow({terminalSafe(p.id, 20), terminalSafe(p.kind, 24),
                  p.host.empty() ? std::string("-") : terminalSafe(p.host, 40), num(p.pid),
                  p.supervisorId ? terminalSafe(*p.supervisorId, 20) : std::string("-"),
                  relativeTime(p.lastHeartbeat, now), p.alive ? "alive" : "DEAD", num(p.claimed)});
    out(t.render());
    out("alive: " + terminalSafe(list.aliveRule) + "\n");
    if (list.orphanedClaims > 0)
        out(num(list.orphanedClaims) + " claimed " +
            (list.orphanedClaims == 1 ? "job is" : "jobs are") +
            " held by a process whose row is gone (abandoned)\n");
    for (const auto& w : list.warnings)
        out("warning: " + terminalSafe(w) + "\n");
    return ExitOk;
}

} // namespace lq::ctl
