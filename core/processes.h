// SPDX-License-Identifier: MIT
#pragma once

// What operators look at beside the jobs (issue 39): the worker processes a
// file records, with their heartbeats, and the queues it records as paused.
// Each format reads its own tables (FormatDriver::processes(),
// pausedQueues()); one model for lqctl and the GUI.

#include "actions.h"
#include "clock.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lq::core {

/// One process row, as the library records it.
struct ProcessInfo {
    std::string id;   ///< the row's id, as text
    std::string kind; ///< "Worker", "Dispatcher", "Supervisor(fork)", ...
    std::string name; ///< the library's own name of it, if stored
    std::string host; ///< hostname, if stored
    std::int64_t pid = 0;
    std::optional<std::string> supervisorId; ///< the supervising process's id
    std::optional<TimeNs> lastHeartbeat;
    /// By the library's own rule (Solid Queue: a heartbeat within
    /// process_alive_threshold, 5 minutes).
    bool alive = false;
    std::int64_t claimed = 0; ///< jobs it holds now
    /// The message ids of the jobs it holds, where the file names them
    /// (Solid Queue's claimed executions); empty where it only counts them.
    std::vector<std::string> claimedIds;
    std::string metadata; ///< as stored (JSON text), shown as text
};

/// The processes of a file, or why there are none to show.
struct ProcessList {
    /// "" when the format records processes; else one line on why not.
    std::string notStored;
    /// The rule by which a process is alive, in words.
    std::string aliveRule;
    std::vector<ProcessInfo> processes;
    /// Claims held by a process whose row is gone (a process that died
    /// without deregistering): abandoned by the library's rule too.
    std::int64_t orphanedClaims = 0;
    /// What stops because no live process does it, in the library's words
    /// ("no live dispatcher: due scheduled jobs are not moved to ready").
    std::vector<std::string> warnings;
};

/// A queue the library will not take jobs from until it is resumed.
struct PausedQueue {
    std::string queue;
    std::optional<TimeNs> since;
};

/// The plan of releasing the claims `p` holds (a dead process's jobs given
/// back to the queue as the library's own supervisor would), each guarded by
/// the token its job holds now: a job that moved since is skipped. `b`:
/// anything with get() and planTargets() (core::Queue with its Operator
/// behind a front end's backend). The format decides, per job, whether a
/// release applies (a live process's claim is refused).
template <class Backend> auto planProcessRelease(Backend& b, const ProcessInfo& p) {
    std::vector<Target> targets;
    targets.reserve(p.claimedIds.size());
    for (const std::string& id : p.claimedIds)
        if (const auto m = b.get(id))
            targets.push_back({id, m->token});
    return b.planTargets(Action::Release, std::move(targets));
}

} // namespace lq::core
