// SPDX-License-Identifier: MIT
#pragma once

#include "core/json.h"

#include <string>

namespace lq::bench {

struct LaunchOptions {
    std::string file;
    int changes = 0;         ///< external changes to time after the first rows
    int checkpointEvery = 0; ///< every Nth change follows a TRUNCATE checkpoint
};

/// `lqbench gui-launch FILE`: one launch of the real main window in this
/// fresh process; prints one JSON line (launch_to_rows_ms from the kernel's
/// process start, changes_ms of each external change).
int runGuiLaunch(int argc, char** argv, const LaunchOptions& o);

/// Launches `self gui-launch` `rounds` times on the small and the large file,
/// alternating, then times external changes on the large (WAL) file and on
/// `rollback` (a rollback-journal copy; "" to skip). Adds launch_to_rows_ms,
/// launch_to_rows_small_ms, external_change_ms, external_change_p95_ms, ...
/// to `r`. False (after saying why on stderr) when a launch failed.
bool measureLaunches(const std::string& self, const std::string& large, const std::string& small,
                     const std::string& rollback, int rounds, core::Json& r);

} // namespace lq::bench
