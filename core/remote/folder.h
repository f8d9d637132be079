// SPDX-License-Identifier: MIT
#pragma once

// A folder of queues on another host (`lqadmin --watch ssh://HOST/DIR`): the
// protocol's `fleet` method runs core::scanFleet on the host (the same
// recognition and the same read-only scan as a local folder) and sends the
// entries, so one round trip lists every queue file with its counts.

#include "../fleet.h"
#include "../json.h"

#include <memory>
#include <string>
#include <vector>

namespace lq::core::remote {

class Session;

/// A FleetEntry on the wire; `kind` travels as its format id.
Json toJson(const FleetEntry& e);
FleetEntry fleetEntryFromJson(const Json& j);

/// The `fleet` method's result for `dir` on this machine (the server side).
Json fleetJson(const std::string& dir, TimeNs now, TimeNs stuckAfterNs, int busyTimeoutMs);

class RemoteFolder {
public:
    /// ssh://[USER@]HOST[:PORT]/DIR: spawns ssh (as RemoteQueue::open does).
    static std::unique_ptr<RemoteFolder> open(const std::string& url);
    /// Over an existing session (tests: `lqctl serve --stdio` over a pipe);
    /// entries are named `prefix` + the path on the host.
    static std::unique_ptr<RemoteFolder> open(std::unique_ptr<Session> s, std::string dir,
                                              std::string prefix);
    ~RemoteFolder();
    RemoteFolder(const RemoteFolder&) = delete;
    RemoteFolder& operator=(const RemoteFolder&) = delete;

    /// Every queue file of the folder with its counts, read on the host at
    /// `now` (0: the host's clock). Paths are URLs (ssh://[USER@]HOST[:PORT]/…)
    /// that open the queue. Throws lqcore's errors (a lost connection: Io).
    std::vector<FleetEntry> scan(TimeNs now, TimeNs stuckAfterNs, int busyTimeoutMs = 200);
    Session& session() { return *m_session; }

private:
    RemoteFolder() = default;
    std::unique_ptr<Session> m_session;
    std::string m_dir;    ///< the folder on the host
    std::string m_prefix; ///< ssh://[USER@]HOST[:PORT]
};

} // namespace lq::core::remote
