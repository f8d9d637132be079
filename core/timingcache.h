// SPDX-License-Identifier: MIT
#pragma once

// The timing scan's rows of the key ranges a live file did not change
// (Queue::timing): kept with the print of what was read
// (FormatDriver::rangePrint), so a scan reads again only the ranges whose
// print moved and takes the others from here. A change then costs the
// print of every range (a hash of its rows in SQL, no row handed to C++)
// plus the full read of the ranges it touched.

#include "stats.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace lq::core {

/// Appends `from`'s rows to `to`, their queues by name.
void appendTiming(TimingColumns& to, const TimingColumns& from);

/// One open queue's kept ranges; thread-safe. A range's rows are good for a
/// scan at a time from their read's to their TimingColumns::changesAt.
class TimingCache {
public:
    using Range = std::pair<std::int64_t, std::int64_t>; ///< keys, both ends in
    /// At most this many bytes of rows are kept per queue, and at most
    /// kMaxProcessBytes by every queue of the process together (an exporter
    /// watching a folder of big files); past either a range is read every
    /// time.
    static constexpr std::size_t kMaxBytes = std::size_t{64} << 20;
    static constexpr std::size_t kMaxProcessBytes = std::size_t{256} << 20;

    TimingCache() = default;
    TimingCache(const TimingCache&) = delete;
    TimingCache& operator=(const TimingCache&) = delete;
    ~TimingCache();

    /// Appends the rows kept for `range` (read with the queue column or
    /// not) to `to` when they were read under `print` and are good at
    /// `now`; false, nothing appended, otherwise.
    bool appendTo(TimingColumns& to, Range range, bool withQueue, std::uint64_t print, TimeNs now);
    /// Keeps `rows`, read at `readAt`, as `range`'s under `print`, dropping
    /// every range kept that overlaps it (the ranges of a scan move with the
    /// file's keys).
    void keep(Range range, bool withQueue, std::uint64_t print, TimeNs readAt,
              const TimingColumns& rows);
    /// Drops everything (the file's schema or contents were replaced).
    void clear();

    /// For tests and benchmarks: ranges kept, rows in them, and the ranges
    /// answered from here since the queue was opened.
    std::size_t ranges() const;
    std::size_t rows() const;
    std::uint64_t hits() const;
    /// The bytes every queue of the process keeps.
    static std::size_t processBytes();

private:
    /// A range's rows, unpacked and without slack.
    struct Rows {
        std::uint64_t print = 0;
        TimeNs readAt = 0, changesAt = 0; ///< good for scans at [readAt, changesAt)
        std::vector<std::int8_t> state, ownStuck, extra;
        std::vector<std::int64_t> in, lock, done, due, attempts;
        std::vector<std::uint32_t> queue; ///< into names, TimingColumns::kNoQueue
        std::vector<std::string> names;
        std::size_t bytes() const;
    };
    using Key = std::tuple<bool, std::int64_t, std::int64_t>; ///< withQueue, lo, hi

    void dropOverlapping(bool withQueue, Range range);
    /// Gives back `bytes` of this cache's share of the process's budget.
    void release(std::size_t bytes);

    mutable std::mutex m_mutex;
    std::map<Key, Rows> m_kept;
    std::size_t m_bytes = 0;
    std::uint64_t m_hits = 0;
};

} // namespace lq::core
