// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace lq::bench {

struct CoreOptions {
    int ops = 20000;
    int rounds = 5;
    int batch = 100;
    bool json = false;
    std::string dir; ///< where the scratch queues go (default: a temp folder)
};

/// Runs the lqcore-vs-raw-SQLite workloads and prints the results.
int runCore(const CoreOptions& o);

} // namespace lq::bench
