// SPDX-License-Identifier: MIT
#pragma once

#include "clock.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace lq::core {

/// "850 ms", "2.4 s", "3 h 12 m", "4 d 2 h" (docs/FORMATS.md#times).
std::string humanDuration(TimeNs ns);
/// ISO 8601 UTC with ns: "2025-03-14T08:00:00.137482911Z".
std::string isoUtc(TimeNs t);
/// Parses "--now" values: a number (ns since the epoch; below 10^12 it is
/// taken as seconds, fractions allowed) or ISO 8601
/// ("2025-03-14T10:05:00Z", fractional seconds and ±hh:mm offsets allowed).
std::optional<TimeNs> parseTimeArg(std::string_view s);
/// parseTimeArg()'s ISO 8601 forms only: no number is tried first (stored
/// date-time columns, where that try was a tenth of a million-row scan).
std::optional<TimeNs> parseDateTime(std::string_view s);
/// A TEXT time as stored by Rails, Oban or River ("2025-01-02T03:04:05.123456Z",
/// "2025-01-02 03:04:05.123456", "2025-01-02 03:04:05.125 +0000 UTC",
/// "...05.1-07:00"); nullopt when it is none of these. Also SQL's
/// lq_text_ns(x) on every connection (Connection), so that a sort or filter
/// in SQL and a row read here see one instant.
std::optional<TimeNs> parseTextTime(std::string_view s);
/// A REAL as SQLite's CAST(r AS INTEGER) gives it: toward zero, saturated
/// at the 64-bit range.
std::int64_t castRealToInteger(double r);
/// Size in bytes as "12.3 MiB".
std::string humanBytes(std::int64_t bytes);

} // namespace lq::core
