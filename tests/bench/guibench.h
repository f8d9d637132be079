// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace lq::bench {

struct GuiOptions {
    long rows = 1'000'000;
    std::string file;    ///< reuse this queue; default: a cached one per N in /tmp
    std::string mkqueue; ///< lqmkqueue executable
    std::string lqctl;   ///< lqctl executable (the "other process")
    std::string self;    ///< this executable (the launches run `self gui-launch`)
    /// Launch rounds on the small and the large file (0: skip the launches
    /// and the external-change runs).
    int launches = 3;
    bool json = false;
    /// Exit 1 when a figure is over its target times this factor (0: never).
    double checkFactor = 0;
};

/// Drives the real main window, table model and dashboard on the offscreen
/// platform and prints what it measured (docs/BENCHMARKS.md, issue "Scale").
int runGui(int argc, char** argv, const GuiOptions& o);

} // namespace lq::bench
