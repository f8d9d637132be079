// SPDX-License-Identifier: MIT
#pragma once

// Solid Queue's process and pause tables (solidqueue_ops.cpp), for the
// driver's processes() and pausedQueues(): what its supervisor records of
// the workers and what `SolidQueue::Queue#pause` writes.

#include "../format.h"
#include "../processes.h"
#include "../recurring.h"
#include "../sqlite.h"
#include "driver.h"

#include <map>
#include <string>
#include <vector>

namespace lq::core::solidqueue {

/// process_alive_threshold (lib/solid_queue.rb): 5 minutes.
constexpr TimeNs kAliveThreshold = 5LL * 60 * kNsPerSecond;

/// solid_queue_processes at `now`, each with the claims it holds
/// (solid_queue_claimed_executions.process_id).
ProcessList processes(Connection& c, TimeNs now);
/// The process list of solid_queue_processes rows as read (id, kind, pid,
/// host, supervisor, heartbeat, metadata, name) and the claimed executions
/// by process id (their job ids; "" for claims without a process): alive
/// by process_alive_threshold at `now`, each process's claims, the
/// warnings. One rule for the file and the PostgreSQL database.
ProcessList processList(std::vector<ProcessInfo> rows,
                        std::map<std::string, std::vector<std::string>> claims, TimeNs now);
/// solid_queue_recurring_tasks with their last run (the latest
/// solid_queue_recurring_executions.run_at), next and missed runs at `now`
/// (solidqueue_recurring.cpp); "not stored" where the table is absent.
RecurringList recurringTasks(Connection& c, const FormatInfo& info, TimeNs now, int tzOffset);
/// The list recurringTasks() fills: its missed-runs rule, or why the
/// file (or database) has no tasks.
RecurringList recurringList(const FormatInfo& info);
/// A task row as read (its last run set): its next run and the runs missed
/// at `now` by its schedule, anchored at the row's updated_at (else
/// created_at) or its last run, whichever is later. One rule for the file
/// and the PostgreSQL database.
void scheduleTask(RecurringTask& t, std::optional<TimeNs> created, std::optional<TimeNs> updated,
                  TimeNs now, int tzOffset);
/// Why the file has no recurring tasks to run ("" when it has the table).
std::string noRecurringTable(const FormatInfo& info);
/// RecurringTask#enqueue(at: now) of task `key`, as Mission Control's Run
/// now calls it: the job, its ready execution and the recurring run
/// (solidqueue_recurring.cpp, docs/FORMATS.md#solid-queue).
FormatDriver::RecurringRun runRecurring(Connection& c, const FormatInfo& info,
                                        const std::string& key, TimeNs now);

/// What Run now reads and writes, on a file's write connection or in a
/// PostgreSQL transaction: runRecurring() below decides, once for both.
class RecurringStore {
public:
    struct Task {
        std::string schedule, className, command;
        std::string arguments; ///< as stored ("[]" when NULL)
        std::string queue;
        std::optional<std::int64_t> priority;
    };
    /// The latest job of a class whose arguments are JSON.
    struct ClassJobs {
        bool seen = false;
        bool concurrencyKey = false; ///< some job of the class has one
        std::string queue;
        std::optional<std::int64_t> priority; ///< its serialized priority
    };
    /// The job Run now enqueues (Job.create!, its ready execution and the
    /// recorded run).
    struct NewJob {
        std::string queue, className, arguments, activeJobId;
        std::int64_t priority = 0;
        std::string atText; ///< the run's time as Rails writes it
        std::string taskKey;
    };
    virtual ~RecurringStore() = default;
    virtual std::optional<Task> task(const std::string& key) const = 0;
    virtual ClassJobs latestOfClass(const std::string& className) const = 0;
    /// A run of `key` at `atText` is recorded (false where runs are not).
    virtual bool runRecorded(const std::string& key, const std::string& atText) const = 0;
    /// I18n.locale and Time.zone as the latest job has them ("en", "UTC").
    virtual std::pair<std::string, std::string> localeAndZone() const = 0;
    /// Writes the job's rows; its id.
    virtual std::string insert(const NewJob& j) const = 0;
};
FormatDriver::RecurringRun runRecurring(const RecurringStore& store, const std::string& key,
                                        TimeNs now);
/// solid_queue_pauses, by queue name; none where the table is absent.
std::vector<PausedQueue> pausedQueues(Connection& c, const FormatInfo& info);

/// The pause of one queue: its solid_queue_pauses row (id, created_at).
/// A queue no job names and no pause row names cannot take one (a misspelt
/// name would pause nothing).
FormatDriver::PauseRow readPause(Connection& c, const std::string& queue);
/// SolidQueue::Queue#pause (Pause.create_or_find_by!(queue_name:)) and
/// #resume (Pause.where(queue_name:).delete_all).
std::int64_t writePause(Connection& c, const std::string& queue, bool pause, TimeNs now);
/// Undo: deletes the row a pause inserted, or inserts the row a resume
/// deleted with its id and created_at, while no other row took its place.
std::int64_t restorePause(Connection& c, const std::string& queue,
                          const FormatDriver::PauseRow& wrote,
                          const FormatDriver::PauseRow& before);

} // namespace lq::core::solidqueue
