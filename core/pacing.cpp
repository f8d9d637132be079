// SPDX-License-Identifier: MIT
#include "pacing.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <unordered_map>

namespace lq::core {

std::int64_t ReadPacing::factorFor(const std::string& journalMode) {
    return journalMode == "wal" || journalMode == "wal2" ? kWalFactor : kRollbackFactor;
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

std::shared_ptr<SharedReadPace> SharedReadPace::ofFile(const std::string& path) {
    struct Registry {
        std::mutex m;
        std::unordered_map<std::string, std::weak_ptr<SharedReadPace>> paces;
    };
    static Registry r;
    std::error_code ec;
    std::string key = std::filesystem::weakly_canonical(path, ec).string();
    if (ec || key.empty())
        key = path;
    const std::lock_guard lock(r.m);
    if (r.paces.size() > 64) // a long fleet session: forget the files no one reads
        std::erase_if(r.paces, [](const auto& kv) { return kv.second.expired(); });
    std::weak_ptr<SharedReadPace>& slot = r.paces[key];
    std::shared_ptr<SharedReadPace> pace = slot.lock();
    if (!pace) {
        pace = std::make_shared<SharedReadPace>();
        slot = pace;
    }
    return pace;
}

TimeNs SharedReadPace::waitAt(TimeNs nowNs) const {
    const std::lock_guard lock(m_mutex);
    if (m_freeAt == 0)
        return 0;
    return std::max<TimeNs>(diffNs(m_freeAt, nowNs).value_or(0), 0);
}

void SharedReadPace::ran(TimeNs startNs, TimeNs endNs, std::int64_t factor) {
    const TimeNs rest =
        ReadPacing::restAfter(diffNs(endNs, startNs).value_or(0), factor, 0, INT64_MAX / 8);
    const std::lock_guard lock(m_mutex);
    // After what is owed, but never more than four rests of this read ahead.
    const TimeNs from = std::max(m_freeAt, endNs);
    const TimeNs owed = from > INT64_MAX - rest ? INT64_MAX : from + rest;
    const TimeNs cap = endNs > INT64_MAX - 4 * rest ? INT64_MAX : endNs + 4 * rest;
    m_freeAt = std::max(m_freeAt, std::min(owed, cap));
}

TimeNs steadyNowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace lq::core
