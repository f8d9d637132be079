// SPDX-License-Identifier: MIT
#pragma once

// Recurring tasks (issue 39): what a file records of the tasks its
// library's scheduler enqueues on a schedule, with the last run, the next
// one (core/cron.h) and the runs missed since the last. Each format reads
// its own tables (FormatDriver::recurringTasks()); one model for lqctl and
// the GUI. The missed-run rule: docs/FORMATS.md#solid-queue.

#include "clock.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lq::core {

/// A scheduled time is counted missed only once it is this old: a live
/// scheduler records its run within moments of the time, so a run due a
/// second ago is late, not missed.
inline constexpr TimeNs kRecurringGraceNs = 60 * kNsPerSecond;

/// One recurring task, as the library records it, and what its schedule says.
struct RecurringTask {
    std::string key;
    std::string schedule;  ///< as written
    std::string className; ///< the job class; "" for a command task
    std::string command;   ///< Ruby code run by the library's default job; ""
    std::string queue;     ///< "" when the job's own queue is used
    std::int64_t priority = 0;
    bool isStatic = true; ///< from the app's configuration (else created at runtime)
    std::string description;
    /// The latest recorded run's scheduled time.
    std::optional<TimeNs> lastRunNs;
    /// The first scheduled time after `now`; nullopt when the schedule
    /// cannot be evaluated (`why` says why).
    std::optional<TimeNs> nextRunNs;
    /// Scheduled times t with anchor < t <= now - kRecurringGraceNs, where
    /// anchor is the later of the last run and the task row's updated_at.
    std::int64_t missed = 0;
    std::string why; ///< "" or why the next run is unknown
};

/// The recurring tasks of a file, or why there are none to show.
struct RecurringList {
    /// "" when the format records recurring tasks; else one line on why not.
    std::string notStored;
    /// The rule by which runs count as missed, in words.
    std::string missedRule;
    std::vector<RecurringTask> tasks;
};

} // namespace lq::core
