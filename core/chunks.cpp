// SPDX-License-Identifier: MIT
#include "chunks.h"
#include "readwaits.h"

#include "sqlite.h"

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

namespace lq::core {

std::uint64_t keySpan(std::int64_t lo, std::int64_t hi) {
    return static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
}

std::int64_t keysIn(std::int64_t lo, std::int64_t hi, std::int64_t cap) {
    const std::uint64_t span = keySpan(lo, hi);
    return span < static_cast<std::uint64_t>(cap) ? static_cast<std::int64_t>(span) + 1 : cap;
}

std::vector<std::pair<std::int64_t, std::int64_t>> splitKeys(std::int64_t lo, std::int64_t hi,
                                                             std::uint64_t width) {
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    forEachKeyRange(
        lo, hi, [width] { return width; },
        [&](const auto& range) {
            out.push_back(range);
            return true;
        });
    return out;
}

namespace {
std::atomic<std::int64_t> g_checkpointWaitNs{0};
std::atomic<std::int64_t> g_gateWaitNs{0};
std::atomic<std::uint64_t> g_walChunks{0};

void addSince(std::atomic<std::int64_t>& to, ChunkPace::Clock::time_point since) {
    to.fetch_add(
        std::chrono::duration_cast<std::chrono::nanoseconds>(ChunkPace::Clock::now() - since)
            .count(),
        std::memory_order_relaxed);
}
} // namespace

ReadWaits readWaits() {
    return {std::chrono::nanoseconds(g_checkpointWaitNs.load(std::memory_order_relaxed)),
            std::chrono::nanoseconds(g_gateWaitNs.load(std::memory_order_relaxed)),
            g_walChunks.load(std::memory_order_relaxed)};
}

struct ChunkPace::Gate {
    std::mutex m;
    std::condition_variable cv;
    std::thread::id owner;
    int depth = 0;
    Clock::time_point quietUntil{};
    /// The WAL's length (frames) at which its writers checkpoint and restart
    /// it: the longest seen before the last restart, at least SQLite's
    /// default wal_autocheckpoint.
    static constexpr std::uint32_t kDefaultCheckpoint = 1000;
    std::uint32_t checkpointAt = kDefaultCheckpoint;
    std::uint32_t lastFrames = 0;
    std::uint32_t peak = 0;
    Clock::time_point lastSeen{};
    /// When the WAL's length was last seen to change.
    Clock::time_point framesMoved{};
    /// Frames the writers add per millisecond (a moving mean; 0: not seen).
    double framesPerMs = 0;
    /// A wait ran out with no restart (a WAL that another reader pins, a
    /// writer that checkpoints on its own schedule): no more waits until a
    /// restart is seen.
    bool waitedInVain = false;
    /// Last used: an idle gate is dropped after a while.
    Clock::time_point used{};

    /// Notes the WAL's length; a shorter one than before was a restart.
    void saw(std::uint32_t frames, Clock::time_point now) {
        if (frames > lastFrames && lastSeen != Clock::time_point{}) {
            const double ms = std::chrono::duration<double, std::milli>(now - lastSeen).count();
            if (ms > 0) {
                const double rate = double(frames - lastFrames) / ms;
                framesPerMs = framesPerMs > 0 ? 0.7 * framesPerMs + 0.3 * rate : rate;
            }
        }
        if (frames < lastFrames) {
            checkpointAt = std::max(kDefaultCheckpoint, peak);
            peak = 0;
            waitedInVain = false;
        }
        if (frames != lastFrames || lastSeen == Clock::time_point{})
            framesMoved = now;
        peak = std::max(peak, frames);
        lastFrames = frames;
        lastSeen = now;
    }
    /// Whether a read of `margin` would end before the writers' next
    /// checkpoint: the WAL just restarted, or its length grows too slowly to
    /// reach the checkpoint meanwhile.
    bool farFromCheckpoint(std::uint32_t frames, Clock::duration margin) const {
        if (frames <= checkpointAt / 4)
            return true;
        if (frames >= checkpointAt || framesPerMs <= 0)
            return false;
        const double ms = std::chrono::duration<double, std::milli>(margin).count();
        return double(checkpointAt - frames) > framesPerMs * ms;
    }

    /// False for a read nested in one of this thread's (already inside).
    bool enter() {
        std::unique_lock lk(m);
        const std::thread::id me = std::this_thread::get_id();
        if (owner == me) {
            ++depth;
            return false;
        }
        g_walChunks.fetch_add(1, std::memory_order_relaxed);
        const Clock::time_point start = Clock::now();
        for (;;) {
            if (owner != std::thread::id{})
                cv.wait(lk);
            else if (Clock::now() < quietUntil)
                cv.wait_until(lk, quietUntil);
            else
                break;
        }
        addSince(g_gateWaitNs, start);
        owner = me;
        depth = 1;
        return true;
    }
    void leave(Clock::duration pause) {
        {
            const std::lock_guard lk(m);
            if (pause > Clock::duration::zero())
                quietUntil = std::max(quietUntil, Clock::now() + pause);
            if (--depth > 0)
                return;
            owner = std::thread::id{};
        }
        cv.notify_all();
    }
};

namespace {
// The gate of a file, by its full name as SQLite opened it; shared by every
// ChunkPace on it in this process.
std::shared_ptr<ChunkPace::Gate> gateOf(const std::string& file) {
    struct Registry {
        std::mutex m;
        std::unordered_map<std::string, std::shared_ptr<ChunkPace::Gate>> gates;
    };
    static Registry r;
    const std::lock_guard lk(r.m);
    const ChunkPace::Clock::time_point now = ChunkPace::Clock::now();
    if (r.gates.size() > 64) {
        // Kept while in use, and a while after: what a gate learnt of the
        // writers (their checkpoint length, their pace) serves the next read.
        std::erase_if(r.gates, [now](const auto& kv) {
            return kv.second.use_count() == 1 && now - kv.second->used > std::chrono::minutes(5);
        });
    }
    std::shared_ptr<ChunkPace::Gate>& g = r.gates[file];
    if (!g)
        g = std::make_shared<ChunkPace::Gate>();
    g->used = now;
    return g;
}

// The WAL-index header SQLite keeps in the -shm file, as this connection
// maps it (sqlite.org/walformat.html: the header's mxFrame at byte 16, the
// checkpoint's nBackfill at byte 96), or nullptr where there is none (no
// WAL, a heap-memory index, a VFS without shared memory). Asked of SQLite's
// own VFS: mapping the region again is a no-op, and a second descriptor of
// the -shm file would drop SQLite's locks on it when closed.
const unsigned char* walIndexOf(Connection& c) {
    sqlite3_file* f = nullptr;
    if (sqlite3_file_control(c.handle(), "main", SQLITE_FCNTL_FILE_POINTER, &f) != SQLITE_OK ||
        !f || !f->pMethods || f->pMethods->iVersion < 2 || !f->pMethods->xShmMap)
        return nullptr;
    void volatile* region = nullptr;
    if (f->pMethods->xShmMap(f, 0, 32 * 1024, 0, &region) != SQLITE_OK || !region)
        return nullptr;
    const auto* bytes = static_cast<const unsigned char*>(const_cast<const void*>(region));
    constexpr std::uint32_t kWalIndexVersion = 3007000;
    std::uint32_t version = 0;
    std::memcpy(&version, bytes, sizeof version);
    return version == kWalIndexVersion ? bytes : nullptr;
}

std::uint32_t loadU32(const unsigned char* at) {
    std::uint32_t v = 0;
    __atomic_load(reinterpret_cast<const std::uint32_t*>(at), &v, __ATOMIC_ACQUIRE);
    return v;
}
} // namespace

void ChunkPace::awayFromCheckpoint(Clock::duration lastChunk) {
    using namespace std::chrono_literals;
    if (!m_index)
        return;
    // Room for four chunks like the last one (a 2-core machine running the
    // workers preempts a read now and then, for milliseconds).
    const Clock::duration margin = std::max<Clock::duration>(2ms, 4 * lastChunk);
    const Clock::time_point start = Clock::now();
    struct Tally {
        Clock::time_point start;
        ~Tally() { addSince(g_checkpointWaitNs, start); }
    } const tally{start};
    for (;;) {
        const std::uint32_t frames = loadU32(m_index + 16); // mxFrame
        const Clock::time_point now = Clock::now();
        m_gate->saw(frames, now);
        if (m_gate->farFromCheckpoint(frames, margin) || m_gate->waitedInVain)
            return;
        // No one writing: no checkpoint coming. Near the checkpoint's length
        // a still WAL is more likely a checkpoint at work (a writer's commit
        // copying the WAL back, seconds on a slow disk): a read begun then
        // keeps the WAL from restarting after it.
        const bool nearCheckpoint = frames >= m_gate->checkpointAt / 4 * 3;
        if (now - m_gate->framesMoved >= (nearCheckpoint ? 50ms : 2ms))
            return;
        if (now - start >= 100ms) {
            // A WAL that does not restart (another reader holds it, the
            // writers checkpoint on their own schedule): waiting is no help.
            m_gate->waitedInVain = true;
            return;
        }
        std::this_thread::sleep_for(100us);
    }
}

ChunkPace::ChunkPace(Connection& c, bool wal, std::uint64_t width, Clock::duration budget,
                     bool awayFromCheckpoints)
    : m_c(c)
    , m_wal(wal)
    , m_awayFromCheckpoints(awayFromCheckpoints)
    , m_first(std::max<std::uint64_t>(1, width))
    , m_width(m_first)
    , m_budget(budget) {
    if (m_wal) {
        const char* file = sqlite3_db_filename(c.handle(), "main");
        m_gate = gateOf(file && *file ? std::string(file) : c.path());
        // Nested in a read of this thread: that read may be open, so a wait
        // would only hold it longer.
        const bool outer = m_gate->enter();
        try {
            if (m_awayFromCheckpoints) {
                m_index = walIndexOf(c);
                if (!m_index) {
                    // A connection maps the index at its first read.
                    m_c.cached("PRAGMA data_version")->exec();
                    m_index = walIndexOf(c);
                }
            }
            m_version = version();
            if (outer)
                awayFromCheckpoint(Clock::duration::zero());
        } catch (...) {
            m_gate->leave(Clock::duration::zero());
            throw;
        }
    }
    m_start = Clock::now();
}

ChunkPace::~ChunkPace() {
    if (!m_gate)
        return;
    try {
        endChunk();
    } catch (...) {
        // The connection failed: leave without a pause; the read throws.
        m_gate->leave(Clock::duration::zero());
    }
}

void ChunkPace::endChunk() {
    using std::chrono::microseconds;
    const Clock::duration took = Clock::now() - m_start;
    const bool moved = version() != m_version;
    m_gate->leave(
        moved ? std::clamp<Clock::duration>(took, microseconds(200), std::chrono::milliseconds(50))
              : Clock::duration::zero());
}

void ChunkPace::operator()() {
    using std::chrono::microseconds;
    const Clock::duration took = Clock::now() - m_start;
    if (m_gate) {
        endChunk();
        // After the pause owed by this chunk or another reader's.
        const bool outer = m_gate->enter();
        m_version = version();
        if (outer)
            awayFromCheckpoint(took);
    }
    if (m_budget > Clock::duration::zero()) {
        // Scaled by budget / took, at most doubled; a preempted chunk (a
        // 2-core machine running the workers) narrows the next one.
        const double ratio = double(m_budget.count()) /
                             double(std::max<Clock::duration>(took, microseconds(10)).count());
        const double next =
            std::min(double(m_width) * std::min(ratio, 2.0), double(m_first) * double(kMaxGrowth));
        // A sparse key range's first width may be near 2^64 already.
        m_width = next >= 1.8e19 ? m_width : std::max(m_first, static_cast<std::uint64_t>(next));
    }
    m_start = Clock::now();
}

std::int64_t ChunkPace::version() {
    // The WAL index's commit counter (iChange, byte 8) moves with every
    // commit, as data_version does, but asks for no read transaction: the
    // pragma's own, twice per chunk, were reads a preempted thread could
    // hold across a checkpoint too.
    if (m_index)
        return loadU32(m_index + 8);
    auto st = m_c.cached("PRAGMA data_version");
    return st->step() ? st->int64(0) : 0;
}

} // namespace lq::core
