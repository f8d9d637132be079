// SPDX-License-Identifier: MIT
#include "pacing.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace lq::core {

namespace {
/// LQ_WAL_READ_FACTOR=n in the environment: WAL files' factor is n, for
/// comparing paces in one build (lqbench observer); unset: kWalFactor.
std::int64_t walFactor() {
    static const std::int64_t factor = [] {
        const char* v = std::getenv("LQ_WAL_READ_FACTOR");
        std::int64_t n = 0;
        if (v && std::from_chars(v, v + std::strlen(v), n).ec == std::errc() && n >= 0)
            return n;
        return ReadPacing::kWalFactor;
    }();
    return factor;
}
} // namespace

std::int64_t ReadPacing::factorFor(const std::string& journalMode) {
    return journalMode == "wal" || journalMode == "wal2" ? walFactor() : kRollbackFactor;
}

TimeNs ReadPacing::restAfter(TimeNs costNs, std::int64_t factor, TimeNs minNs, TimeNs maxNs) {
    TimeNs rest = 0;
    if (__builtin_mul_overflow(std::max<TimeNs>(costNs, 0), std::max<std::int64_t>(factor, 0),
                               &rest))
        rest = INT64_MAX;
    return std::clamp(rest, std::min(minNs, maxNs), maxNs);
}

TimeNs ReadPacer::waitAt(TimeNs nowNs) const {
    if (m_end == 0)
        return 0;
    const TimeNs rest = ReadPacing::restAfter(m_cost, m_factor, 0, m_maxRest);
    const auto since = diffNs(nowNs, m_end);
    if (!since || *since >= rest)
        return 0;
    return rest - std::max<TimeNs>(*since, 0);
}

void ReadPacer::ran(TimeNs startNs, TimeNs endNs) {
    m_end = endNs;
    m_cost = diffNs(endNs, startNs).value_or(0);
}

TimeNs steadyNowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace lq::core
