// SPDX-License-Identifier: MIT
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

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
/// A LOCKED message whose lock is older than this is stuck (docs/FORMATS.md#times), unless
/// the operator sets another threshold. The one definition of the default.
inline constexpr int kDefaultStuckAfterSeconds = 300;
inline constexpr TimeNs kDefaultStuckAfterNs = kDefaultStuckAfterSeconds * kNsPerSecond;

/// a - b, or nothing when it does not fit in 64 bits (timestamps in a damaged
/// or hostile file can be anything).
inline std::optional<TimeNs> diffNs(TimeNs a, TimeNs b) {
    TimeNs d;
    if (__builtin_sub_overflow(a, b, &d))
        return std::nullopt;
    return d;
}
inline TimeNs secondsToNs(double s) {
    return static_cast<TimeNs>(s * 1e9);
}
/// A duration typed by a person in (fractional) seconds, as the API takes it.
inline std::chrono::nanoseconds secondsDuration(double s) {
    return std::chrono::nanoseconds(secondsToNs(s));
}

} // namespace lq::core
