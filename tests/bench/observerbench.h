// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <vector>

namespace lq::bench {

struct ObserverOptions {
    long rows = 1000000; ///< jobs added to each format's fixture
    int seconds = 30;    ///< worker + producer time per run
    std::vector<std::string> formats{"laravel", "solidqueue"};
    /// One run per entry; "a+b" runs both observers at once. `none` (the
    /// reference) always runs first and last of each format.
    std::vector<std::string> observers{"none",  "lqadmin",  "dashboard",
                                       "watch", "exporter", "fleet"};
    int busyTimeoutMs = 60000; ///< the worker's busy timeout (the writer under test)
    /// The producer's; 0: busyTimeoutMs. It shares the write lock with a
    /// worker running flat out, which starves it for a while now and then.
    int producerBusyTimeoutMs = 0;
    int producerTimeoutMs() const {
        return producerBusyTimeoutMs > 0 ? producerBusyTimeoutMs : busyTimeoutMs;
    }
    int rate = 100;     ///< producer jobs/s
    double warmupS = 3; ///< observers run this long before the workers start
    std::string dir = "/tmp/lqbench-observer";
    bool keep = false;    ///< keep each run's copy and the logs
    bool noCache = false; ///< grow anew, delete the grown files at the end
    bool json = false;    ///< one JSON document on stdout instead of the table
    bool check = false;   ///< exit 1 when a write outwaited its busy timeout, twice running
    std::string lqadmin;
    std::string lqctl;
    std::string scripts;  ///< the folder of laravel_worker.php and solidqueue_worker.py
    std::string fixtures; ///< tests/data/formats
};

/// `lqbench observer`: the real workers of a Laravel (journal DELETE) and a
/// Solid Queue (WAL) file grown to N jobs, alone and with each observer
/// (lqadmin, its dashboard, lqctl watch, the exporter, the fleet sidebar)
/// watching; their throughput, write latencies, "database is locked" count
/// and WAL size against the runs alone. Returns 77 (skip) when a format's
/// runtime is missing.
int runObserver(int argc, char** argv, const ObserverOptions& o);

} // namespace lq::bench
