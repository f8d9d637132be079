// SPDX-License-Identifier: MIT
#pragma once
// Run now of a recurring task on PostgreSQL (Solid Queue's
// RecurringTask#enqueue, as Mission Control calls it), and its undo. And
// the recurring tasks of pg-boss (its `schedule` table) and Graphile Worker
// (its `_private_known_crontabs`), read only (issue 41).

#include "../actions.h"
#include "../recurring.h"
#include "actions.h"

#include <optional>
#include <string>

namespace lq::core::pg {

/// Task `key`'s job enqueued at the chunk's instant, as the file's driver
/// decides it (solidqueue::runRecurring); into `r` as an enqueue is.
void runRecurringChunk(const ChunkContext& x, const std::string& key, ActionResult& r);
/// Undo of one run: the job deleted while it is still ready and unclaimed.
void undoRunRecurringRow(const ChunkContext& x, const AppliedRow& row, ActionResult& r);

class Connection;
struct Found;

/// pg-boss's timekeeper queue: each fire of a schedule is a job of this
/// queue (src/timekeeper.ts QUEUES.SEND_IT).
inline constexpr const char* kPgBossSendIt = "__pgboss__send-it";

/// The recurring tasks of pg-boss and Graphile Worker at `now`; nullopt for
/// the other libraries (readRecurring in list.cpp reads Solid Queue's).
///
/// pg-boss: one task per `schedule` row, keyed "name" or "name:key" (':'
/// is in neither: attorney.ts assertObjectName), into queue `name`, its
/// `data` the description. Last run: the newest `__pgboss__send-it` job
/// with the schedule's singleton key (its `singleton_on`, the minute slot
/// it fired for). Next run and missed runs by core/cron.h in the row's
/// `timezone` when that is UTC or a fixed offset (NULL: `tzOffset`, as
/// for a schedule naming no zone); a named zone gets none and a reason.
///
/// Graphile Worker: one task per `_private_known_crontabs` row, keyed by
/// its identifier, last run its `last_execution`; the crontab itself is in
/// the app's crontab file, so no schedule, no next run (the reason in
/// `why`) and no missed runs.
std::optional<RecurringList> readLibraryRecurring(Connection& c, const Found& lib, TimeNs now,
                                                  int tzOffset);

} // namespace lq::core::pg
