// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace lq::bench {

struct RemoteOptions {
    long rows = 1000000;    ///< the big queue
    std::string file;       ///< reuse this queue file (made with lqmkqueue if missing)
    std::string urlPrefix;  ///< ssh://USER@HOST[:PORT]; empty: lqctl serve over a pipe
    int queues = 100;       ///< exporter: files in the folder
    long queueRows = 10000; ///< exporter: rows per file
    std::string dir = "/tmp/lqbench-remote";
    std::string mkqueue;
    std::string lqctl;
    bool json = false;
};

/// `lqbench remote`: a queue over ssh (or a pipe) against the same queue
/// opened locally, as ratios; and one exporter scrape of a folder of queues.
int runRemote(const RemoteOptions& o);

} // namespace lq::bench
