// SPDX-License-Identifier: MIT
// The timing scan read by prints (Queue::Impl::timingByPrint): a live file's
// ranges that did not change come from the queue's TimingCache.
#include "formats/queueformat.h"
#include "queue_p.h"
#include "statemodel.h"

#include <sqlite3.h>

#include <utility>

namespace lq::core {

namespace {
/// The range of the grid of `width` keys that holds `at`, from `at` to its
/// end or `hi`. The grid is the same for every scan (keys 0 .. width - 1,
/// width .. 2 width - 1, ...), so a range read once is the same range next
/// time unless the file's first or last key cut it.
std::pair<std::int64_t, std::int64_t> gridRange(std::int64_t at, std::int64_t hi,
                                                std::uint64_t width) {
    constexpr std::uint64_t kSign = std::uint64_t{1} << 63; // keeps the order
    const std::uint64_t u = static_cast<std::uint64_t>(at) ^ kSign;
    const std::uint64_t base = u - u % width;
    std::uint64_t end = base + (width - 1);
    if (end < base)
        end = UINT64_MAX; // the grid's last range, at the top of int64
    const auto last = static_cast<std::int64_t>(end ^ kSign);
    return {at, last < hi ? last : hi};
}
} // namespace

void Queue::Impl::takeTimingRow(const Statement& st, TimeNs t, bool queueColumn,
                                TimingColumns& cols) const {
    driver().timingRow(st, t, cols);
    if (const int qc = st.columnCount() - 1; queueColumn)
        appendQueueName(cols, st.columnType(qc) == SQLITE_NULL ? std::nullopt
                                                               : std::optional(st.textView(qc)));
    // The optional columns: reserved once the format shows it fills them.
    if (cols.state.size() == 1) {
        if (cols.attempts.size() == 1)
            cols.attempts.reserve(cols.state.capacity());
        if (cols.ownStuck.size() == 1)
            cols.ownStuck.reserve(cols.state.capacity());
        if (cols.extra.size() == 1)
            cols.extra.reserve(cols.state.capacity());
    }
}

std::optional<std::pair<std::int64_t, std::int64_t>>
Queue::Impl::timingByPrint(std::pair<std::int64_t, std::int64_t> keys, bool withQueue, TimeNs t,
                           TimingColumns& cols) {
    const FormatDriver& drv = driver();
    const bool queueColumn = withQueue && !drv.queueColumn().empty();
    const std::uint64_t width = keysPerRange(keys.first, keys.second, chunkRows());
    ChunkPace pace = chunkPace(width);
    for (std::int64_t at = keys.first;;) {
        if (at != keys.first)
            pace(); // between two ranges
        const auto range = gridRange(at, keys.second, width);
        Connection& r = reader();
        // The print and the rows it vouches for, from one snapshot.
        r.cached("BEGIN")->exec();
        bool read = false;
        try {
            const auto print = drv.rangePrint(r, range.first, range.second);
            if (print && timingCache.appendTo(cols, range, queueColumn, *print, t)) {
                read = true;
            } else if (print) {
                TimingColumns rows;
                read = drv.rangeTiming(
                    r, range.first, range.second, queueColumn,
                    [&](const Statement& st) { takeTimingRow(st, t, queueColumn, rows); });
                if (read) {
                    appendTiming(cols, rows);
                    timingCache.keep(range, queueColumn, *print, t, rows);
                }
            }
        } catch (...) {
            sqlite3_exec(r.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
        r.cached("COMMIT")->exec();
        if (!read)
            return std::make_pair(at, keys.second);
        if (range.second == keys.second)
            return std::nullopt;
        at = range.second + 1;
    }
}

CountsWithQueues Queue::countsOf(const TimingColumns& cols, TimeNs now, TimeNs stuckAfterNs,
                                 bool byQueue) {
    if (auto c = countsOfScan(QueueFormat::of(info()), cols, now, stuckAfterNs, byQueue))
        return std::move(*c);
    if (byQueue)
        return countsWithQueues(stuckAfterNs);
    return {counts(stuckAfterNs), {}};
}

CountsAndStats Queue::countsAndStats(TimeNs stuckAfterNs, bool byQueue) {
    const bool named = byQueue && QueueFormat::of(info()).namedQueues();
    Filter all;
    all.now = now();
    const TimingColumns cols = timing(all, named);
    CountsAndStats r;
    r.counts = countsOf(cols, *all.now, stuckAfterNs, named);
    r.stats = computeStats(cols, *all.now);
    return r;
}

Queue::TimingReuse Queue::timingReuse() const {
    return {d->timingCache.ranges(), d->timingCache.rows(), d->timingCache.hits()};
}

} // namespace lq::core
