// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>

namespace lq::ui {

/// Moves the page faults of a big table reset off the UI thread.
///
/// A reset of the message table to N rows makes QHeaderView allocate about
/// 12 bytes per row on the UI thread and write them all: at a million rows
/// 12 MB of fresh pages, whose first touch costs the UI thread 25-30 ms on a
/// 2-core VM (each page fault ~10 us) — the whole reset is 1.5 ms once the
/// pages are there. warmHeapForRows() takes that memory from the UI
/// thread's heap (a malloc, not touched: microseconds), lets a worker touch
/// every page and free it; the header's allocation then reuses those pages.
/// For that, the first warm-up keeps allocations up to 32 MB on the heap
/// instead of private mappings and lets the heap keep 32 MB free at its top
/// (mallopt). glibc only; elsewhere it does nothing. Past 32 MB (about 2.7
/// million rows) the header's memory is a mapping of its own and this cannot
/// help.
///
/// Called on the UI thread when a reset to about `rows` rows is coming.
/// Returns at once.
void warmHeapForRows(std::size_t rows);

/// Waits until the warm-ups started so far are done (tests).
void waitForHeapWarmups();

} // namespace lq::ui
