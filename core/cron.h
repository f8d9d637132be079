// SPDX-License-Identifier: MIT
#pragma once

// Recurring schedules as Solid Queue reads them: `Fugit.parse(schedule,
// multi: :fail)` must give a Fugit::Cron (rails/solid_queue@29e818d9c118
// app/models/solid_queue/recurring_task.rb). That is a five-field cron, a
// six-field one with seconds first, an @-shorthand (@hourly, @daily, ...),
// or one of Fugit's natural-language forms ("every hour at minute 12", "at
// 7am every day"), which Fugit turns into a cron string first. Behaviour
// read in floraison/fugit@efda655251c2 (lib/fugit/cron.rb, lib/fugit/nat.rb,
// test/_nat_single_crons.txt); no Fugit code is used.
//
// Times are whole seconds in UTC, or in the fixed UTC offset the schedule
// names ("UTC", "+09:00", "Etc/GMT-9") or the caller sets as default.
// Named IANA zones with daylight saving ("Europe/Paris") are not evaluated:
// parse() refuses them with the reason.

#include "clock.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lq::core::cron {

/// One weekday entry of the day-of-week field: `wday` (0 = Sunday) alone,
/// or its `nth` occurrence in the month ("1#2": the second Monday; negative
/// from the end, "5#L" = -1: the last Friday).
struct Weekday {
    int wday = 0;
    int nth = 0; ///< 0: every such weekday
};

/// A parsed schedule: the sets of a cron line, each empty for "any".
class Schedule {
public:
    /// The text as written (stored in the file).
    std::string original;
    /// The cron line it denotes: the text itself for a cron, Fugit's cron for
    /// a natural-language form ("every hour at minute 12" -> "12 * * * *").
    std::string cron;

    std::vector<int> seconds; ///< never empty ({0} for a five-field cron)
    std::vector<int> minutes;
    std::vector<int> hours;
    std::vector<int> monthdays; ///< 1..31, or -1 = last day, -2 = the one before, ...
    std::vector<int> months;    ///< 1..12
    std::vector<Weekday> weekdays;
    /// Both day fields restricted: either matches (cron's rule) unless the
    /// line asks for both with '&' (a Fugit extension).
    bool dayAnd = false;
    /// The UTC offset (seconds east) the schedule names, if it names one.
    std::optional<int> zoneOffset;
    std::string zoneName; ///< as written, "" when none

    /// The first scheduled time strictly after `after`; nullopt when none
    /// comes within the next 30 years (e.g. "0 0 31 2,4 *" cannot happen).
    /// Evaluated in the schedule's zone, else in `defaultOffset` (seconds
    /// east of UTC; 0 = UTC).
    std::optional<TimeNs> next(TimeNs after, int defaultOffset = 0) const;
    /// The last scheduled time strictly before `before`.
    std::optional<TimeNs> previous(TimeNs before, int defaultOffset = 0) const;
    /// How many scheduled times t satisfy from < t <= to (0 when to <= from).
    /// Exact, also over years of a per-second schedule: whole days are
    /// counted from the field sets.
    std::int64_t countBetween(TimeNs from, TimeNs to, int defaultOffset = 0) const;

    /// The day (days since the epoch, in the schedule's local time) matches
    /// the month and day fields.
    bool dayMatches(std::int64_t day) const;
};

/// Parses `text` as Solid Queue does; nullopt with the reason in `why` when
/// Solid Queue would refuse it or it names a zone this code does not
/// evaluate.
std::optional<Schedule> parse(std::string_view text, std::string* why = nullptr);

/// The cron line of one of Fugit's natural-language forms, as Fugit::Nat
/// writes it ("every day at 5 pm" -> "0 17 * * *"); nullopt when Fugit would
/// not read it as one cron (with Solid Queue's `multi: :fail`, a form that
/// needs two crons is refused too).
std::optional<std::string> naturalToCron(std::string_view text, std::string* why = nullptr);

/// A zone given as a fixed offset: "UTC", "Z", "GMT", "Etc/UTC",
/// "Etc/GMT-9" (UTC+9, POSIX's inverted sign), "+09:00", "-0530". Seconds
/// east of UTC; nullopt for anything else.
std::optional<int> fixedZoneOffset(std::string_view zone);

} // namespace lq::core::cron
