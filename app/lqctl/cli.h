// SPDX-License-Identifier: MIT
#pragma once

// lqctl's command line: the parsed options every command receives, the exit
// codes of README.md#lqctl and the two exceptions a command throws besides
// lq::core::Error.

#include <core/clock.h>
#include <core/format.h>
#include <core/message.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <QStringList>

namespace lq::ctl {

/// Exit codes (README.md#lqctl).
enum Exit : int {
    ExitOk = 0,
    ExitRefused = 1,   ///< stale claim, nothing matched, queue full, read-only, ...
    ExitUsage = 2,     ///< bad command line
    ExitNotAQueue = 3, ///< not a queue / unsupported format
    ExitBusy = 4,      ///< timed out waiting for a lock
    ExitIo = 5,        ///< I/O error or damaged file
};

/// A bad command line: printed with a hint to `--help`, exit 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// The command ran but refused to do what was asked (exit 1). The message is
/// printed as "lqctl: FILE: message".
class Refused : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Everything a command may need, parsed and validated.
struct Options {
    std::string command;
    std::string file;
    std::vector<std::string> args; ///< positional arguments after FILE

    // global
    bool json = false;
    std::optional<core::TimeNs> now;
    double stuckAfterSeconds = core::kDefaultStuckAfterSeconds;
    int busyTimeoutMs = 5000;
    std::string table;
    std::string queue; ///< --queue: one named queue of the file
    /// --max-receive, --release-after: library settings the file does not store.
    core::FormatSettings settings;

    // list / prune / retry-expired
    std::vector<core::State> states;
    /// --status names of a format's own states (Oban's retryable, ...),
    /// checked against the file's format once it is open.
    std::vector<std::string> extraStates;
    bool stuckOnly = false;
    std::optional<double> olderThan;
    std::string search;
    std::string where; ///< --where: a JSON field condition (core/jsonwhere.h)
    /// --error CLASS: retry/delete act on that error group (core/errors.h).
    std::optional<std::string> errorClass;
    std::optional<std::int64_t> limit;
    bool csv = false;
    bool keepFailed = false;
    bool yes = false;

    // stats
    bool prometheus = false;

    // queues: the time range (--from, --to; --since: the last DURATION)
    std::optional<core::TimeNs> from, to;
    std::optional<core::TimeNs> since;

    // recurring
    /// --tz: seconds east of UTC at which schedules that name no zone run.
    int tzOffset = 0;
    /// --run KEY: the task to enqueue now.
    std::string runTask;

    // put / retry / fail
    std::optional<std::string> key;
    std::optional<std::int64_t> claim;
    std::optional<double> delay; ///< reschedule
    std::string record;          ///< undo: the audit record id
    bool create = false;
    std::optional<std::int64_t> maxsize;

    // watch / demo / exporter
    double interval = 0.2;
    std::string listen; ///< exporter: ADDR:PORT
    double rate = 20;
    int workers = 4;
    double failRatio = 0.05;
    double duration = 0;
    bool quiet = false;

    core::TimeNs stuckAfterNs() const { return core::secondsToNs(stuckAfterSeconds); }
};

/// Parses `args` (QCoreApplication::arguments()), runs the command and
/// returns the process exit code. Never throws.
int run(const QStringList& args);

/// SIGINT/SIGTERM set a flag that watch and demo poll.
void installStopHandlers();
bool stopRequested();

} // namespace lq::ctl
