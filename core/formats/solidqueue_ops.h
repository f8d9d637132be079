// SPDX-License-Identifier: MIT
#pragma once

// Solid Queue's process and pause tables (solidqueue_ops.cpp), for the
// driver's processes() and pausedQueues(): what its supervisor records of
// the workers and what `SolidQueue::Queue#pause` writes.

#include "../format.h"
#include "../processes.h"
#include "../recurring.h"
#include "../sqlite.h"

namespace lq::core::solidqueue {

/// process_alive_threshold (lib/solid_queue.rb): 5 minutes.
constexpr TimeNs kAliveThreshold = 5LL * 60 * kNsPerSecond;

/// solid_queue_processes at `now`, each with the claims it holds
/// (solid_queue_claimed_executions.process_id).
ProcessList processes(Connection& c, TimeNs now);
/// solid_queue_recurring_tasks with their last run (the latest
/// solid_queue_recurring_executions.run_at), next and missed runs at `now`
/// (solidqueue_recurring.cpp); "not stored" where the table is absent.
RecurringList recurringTasks(Connection& c, const FormatInfo& info, TimeNs now, int tzOffset);
/// solid_queue_pauses, by queue name; none where the table is absent.
std::vector<PausedQueue> pausedQueues(Connection& c, const FormatInfo& info);

} // namespace lq::core::solidqueue
