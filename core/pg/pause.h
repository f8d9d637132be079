// SPDX-License-Identifier: MIT
#pragma once
// Where a library keeps a named queue's pause on PostgreSQL: Solid Queue's
// solid_queue_pauses, River's river_queue.paused_at (core/pause.h has the
// flow both engines share).

#include "../pause.h"
#include "actions.h"

#include <memory>

namespace lq::core::pg {

/// The pause store of the chunk's library, used inside its transaction;
/// null for a library that stores no pause (the format's whyNoPause() says
/// why).
std::unique_ptr<PauseStore> pauseStoreOf(const ChunkContext& x);

} // namespace lq::core::pg
