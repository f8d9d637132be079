// SPDX-License-Identifier: MIT
#pragma once
// Run now of a recurring task on PostgreSQL (Solid Queue's
// RecurringTask#enqueue, as Mission Control calls it), and its undo.

#include "../actions.h"
#include "actions.h"

#include <string>

namespace lq::core::pg {

/// Task `key`'s job enqueued at the chunk's instant, as the file's driver
/// decides it (solidqueue::runRecurring); into `r` as an enqueue is.
void runRecurringChunk(const ChunkContext& x, const std::string& key, ActionResult& r);
/// Undo of one run: the job deleted while it is still ready and unclaimed.
void undoRunRecurringRow(const ChunkContext& x, const AppliedRow& row, ActionResult& r);

} // namespace lq::core::pg
