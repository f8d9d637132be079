// SPDX-License-Identifier: MIT
// Chunked reads: a long read (counts, orderings, timing columns) split into
// short read transactions, so a writer on a rollback-journal file waits for
// one chunk only and a WAL can restart between chunks. Internal to lqcore.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace lq::core {

class Connection;

/// hi - lo for lo <= hi, as unsigned: every pair of int64 keys fits.
std::uint64_t keySpan(std::int64_t lo, std::int64_t hi);
/// The keys in [lo, hi], or `cap` when there are at least that many.
std::int64_t keysIn(std::int64_t lo, std::int64_t hi, std::int64_t cap);
/// Calls `each(range)` on [lo, hi] as consecutive inclusive ranges, each of
/// `width()` keys (asked before each range; the last one shorter), without
/// overflow at either end of int64; `each` returns false to stop.
template <class W, class F>
void forEachKeyRange(std::int64_t lo, std::int64_t hi, W&& width, F&& each) {
    for (std::int64_t a = lo;;) {
        const std::uint64_t w = width();
        if (keySpan(a, hi) < w) {
            each(std::make_pair(a, hi));
            return;
        }
        const auto b = static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + (w - 1));
        if (!each(std::make_pair(a, b)))
            return;
        a = b + 1; // b < hi
    }
}
/// [lo, hi] as consecutive inclusive ranges of `width` keys (the last one
/// shorter), without overflow at either end of int64.
std::vector<std::pair<std::int64_t, std::int64_t>> splitKeys(std::int64_t lo, std::int64_t hi,
                                                             std::uint64_t width);

/// The pace of a chunked read, called after each chunk.
///
/// The pause: in WAL mode, when another connection committed while a chunk
/// was read (PRAGMA data_version moved), the next chunk waits as long as
/// that one took: the writer's next commit then runs its checkpoint with no
/// read of ours open, the checkpoint copies the whole WAL back and the WAL
/// restarts at its beginning instead of growing. With no writer the read
/// goes on at once. On a rollback-journal file a waiting writer's PENDING
/// lock already keeps the next chunk out: no pause.
///
/// The width: each chunk costs a read transaction and a statement's start
/// (tens of microseconds) whatever it reads, which on cheap rows (a count
/// of 512 rows) was most of the read: a million-job count took 3.3 times
/// the raw GROUP BY. So a chunk read faster than `budget` makes the next
/// one wider (at most twice, up to 64 times the first), one read slower
/// makes it narrower (never below the first). Every read transaction stays
/// within about `budget`, as it did with fixed chunks of the first width.
///
/// One file, one pace: in WAL mode every chunked read of the same file in
/// this process (the chips' counts, the fleet sidebar, the ordering, the
/// dashboard, each on its own thread) takes turns through one gate, and a
/// pause one reader owes holds the others too. Two readers pacing only
/// themselves left no moment without a read open: beside a lqadmin window on
/// a million Solid Queue jobs the worker's WAL ended 3.7 times its size
/// alone. A thread already inside the gate (a read nested in another) goes
/// on, without the checkpoint wait (its outer read may be open). Short
/// reads that are not chunked (the rows on screen, the first page) take a
/// turn too, as one chunk (Queue::Impl::readTurn()).
class ChunkPace {
public:
    using Clock = std::chrono::steady_clock;
    static constexpr std::uint64_t kMaxGrowth = 64;

    /// `width`: the first chunk's keys (or rows); `budget` zero: every
    /// chunk that wide. In WAL mode, waits for the file's gate, and with
    /// `awayFromCheckpoints` starts each chunk away from the writer's next
    /// checkpoint (awayFromCheckpoint()).
    ChunkPace(Connection& c, bool wal, std::uint64_t width, Clock::duration budget,
              bool awayFromCheckpoints = true);
    ChunkPace(const ChunkPace&) = delete;
    ChunkPace& operator=(const ChunkPace&) = delete;
    /// Leaves the file's gate, owing the pause where a writer committed
    /// during the last chunk.
    ~ChunkPace();
    /// Keys (or rows) for the next chunk.
    std::uint64_t width() const { return m_width; }
    /// After a chunk: pauses where a writer committed during it (WAL), sets
    /// the next chunk's width and starts its clock.
    void operator()();

    /// Reads [keys.first, keys.second] range by range, pacing between
    /// them; `read(range)` returns false to stop.
    template <class F> void eachRange(std::pair<std::int64_t, std::int64_t> keys, F&& read) {
        bool first = true;
        forEachKeyRange(
            keys.first, keys.second,
            [&] {
                if (!std::exchange(first, false))
                    (*this)(); // between two ranges: the pause and the next width
                return m_width;
            },
            read);
    }

    struct Gate;

private:
    std::int64_t version();
    /// After a chunk: leaves the gate, owing a pause as long as the chunk
    /// where the file changed during it.
    void endChunk();
    /// Before a chunk in WAL mode: waits (100 ms at most) until a read as
    /// long as four of `lastChunk` (2 ms at least) would end before the
    /// writers' next checkpoint, by the WAL's length and how fast it grows
    /// (read from the WAL index SQLite shares between connections). A read
    /// open when a writer's commit runs its checkpoint keeps the WAL from
    /// restarting, and every frame written until the read ends is a frame
    /// more: at 8,000 jobs/s a writer fills SQLite's default 1,000 frames in
    /// about 5 ms, so one chunk of a millisecond or two that straddled a
    /// checkpoint made the WAL 1.5 times its size alone. With no one
    /// writing (the length still for 2 ms), no wait; after a wait that ran
    /// out with no restart, none until a restart is seen.
    void awayFromCheckpoint(Clock::duration lastChunk);

    std::shared_ptr<Gate> m_gate;
    /// The WAL index as this connection maps it (WAL mode, with the
    /// checkpoint wait), else nullptr.
    const unsigned char* m_index = nullptr;
    Connection& m_c;
    bool m_wal;
    bool m_awayFromCheckpoints;
    std::uint64_t m_first;
    std::uint64_t m_width;
    Clock::duration m_budget;
    std::int64_t m_version = 0;
    Clock::time_point m_start;
};

} // namespace lq::core
