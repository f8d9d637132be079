// SPDX-License-Identifier: MIT
#include "chunks.h"

#include "sqlite.h"

#include <algorithm>
#include <thread>

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

ChunkPace::ChunkPace(Connection& c, bool wal, std::uint64_t width, Clock::duration budget)
    : m_c(c)
    , m_wal(wal)
    , m_first(std::max<std::uint64_t>(1, width))
    , m_width(m_first)
    , m_budget(budget) {
    if (m_wal)
        m_version = version();
    m_start = Clock::now();
}

void ChunkPace::operator()() {
    using std::chrono::microseconds;
    const Clock::duration took = Clock::now() - m_start;
    if (m_wal) {
        if (const std::int64_t v = version(); v != m_version) {
            std::this_thread::sleep_for(std::clamp<Clock::duration>(took, microseconds(200),
                                                                    std::chrono::milliseconds(50)));
            m_version = version();
        }
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
    auto st = m_c.cached("PRAGMA data_version");
    return st->step() ? st->int64(0) : 0;
}

} // namespace lq::core
