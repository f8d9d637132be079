// SPDX-License-Identifier: MIT
// What the reads of this process gave way to the workers (WAL mode): the
// exporter's lq_read_wait_seconds_total, the benchmarks' diagnostic.
#pragma once

#include <chrono>
#include <cstdint>

namespace lq::core {

/// Since the process started, over every WAL-mode file it read in chunks
/// (core/chunks.h): the time spent before a chunk waiting for the WAL to
/// move away from the writers' next checkpoint, and waiting for the file's
/// turn (another reader of this process, or the pause a chunk owed a writer
/// that committed during it); and the chunks begun.
struct ReadWaits {
    std::chrono::nanoseconds checkpoint{};
    std::chrono::nanoseconds turn{};
    std::uint64_t chunks = 0;
};
ReadWaits readWaits();

} // namespace lq::core
