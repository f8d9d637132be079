// SPDX-License-Identifier: MIT
#pragma once

#include "core/json.h"

#include <optional>
#include <string>
#include <vector>

namespace lq::bench {

struct LaunchOptions {
    std::string file;
    int changes = 0;         ///< external changes to time after the first rows
    int checkpointEvery = 0; ///< every Nth change follows a TRUNCATE checkpoint
    /// Formats other than litequeue: the external change moves a shown job
    /// between READY and SCHEDULED with these statements ("{id}" is the
    /// number at the end of its message id). Empty: litequeue's status flip.
    std::string toScheduledSql;
    std::string toReadySql;
    /// Where `file` is a postgresql:// URL, the change is made by this psql.
    std::string psql = "psql";
};

/// `lqbench gui-launch FILE`: one launch of the real main window in this
/// fresh process; prints one JSON line (launch_to_rows_ms from the kernel's
/// process start, changes_ms of each external change).
int runGuiLaunch(int argc, char** argv, const LaunchOptions& o);

/// One `self gui-launch FILE ARGS...` child; its JSON line, or nullopt with
/// `error` set.
std::optional<core::Json> launchOnce(const std::string& self, const std::string& file,
                                     const std::vector<std::string>& args, std::string* error);

double median(std::vector<double> v);
/// Nearest rank, as core/stats.cpp defines it (p in 0..1).
double percentile(std::vector<double> v, double p);

/// Launches `self gui-launch` `rounds` times on the small and the large file,
/// alternating, then times external changes on the large (WAL) file and on
/// `rollback` (a rollback-journal copy; "" to skip). Adds launch_to_rows_ms,
/// launch_to_rows_small_ms, external_change_ms, external_change_p95_ms, ...
/// to `r`. False (after saying why on stderr) when a launch failed.
bool measureLaunches(const std::string& self, const std::string& large, const std::string& small,
                     const std::string& rollback, int rounds, core::Json& r);

} // namespace lq::bench
