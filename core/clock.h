// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <functional>

namespace lq::core {

/// Nanoseconds since the Unix epoch (UTC).
using TimeNs = std::int64_t;

/// The source of "now". Injectable so thresholds (stuck, older-than, prune
/// cutoffs) are testable against the fixtures' fake clocks.
using Clock = std::function<TimeNs()>;

/// The real wall clock.
TimeNs systemNowNs();
Clock systemClock();
/// A clock frozen at `t`.
Clock fixedClock(TimeNs t);

inline constexpr TimeNs kNsPerSecond = 1'000'000'000;
inline TimeNs secondsToNs(double s) {
    return static_cast<TimeNs>(s * 1e9);
}

} // namespace lq::core
