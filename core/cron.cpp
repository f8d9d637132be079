// SPDX-License-Identifier: MIT
// Cron lines as Fugit reads them (floraison/fugit@efda655251c2
// lib/fugit/cron.rb): fields, ranges that wrap ("fri-mon", "22-2"), steps,
// names, "L" and negative month days, "#n" weekdays, '&', a trailing zone;
// the natural-language forms are in cron_nat.cpp. See cron.h.
#include "cron.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <sstream>

namespace lq::core::cron {

namespace {

constexpr std::int64_t kDay = 86400;
/// How far next() and previous() look: a cron that cannot match within
/// this (Feb 30th-like) has no next time.
constexpr std::int64_t kSearchDays = std::int64_t{366} * 30;

std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
}

// Days since 1970-01-01 -> proleptic Gregorian date (the era algorithm).
struct Civil {
    std::int64_t y;
    int m;
    int d;
};

Civil civilFromDays(std::int64_t z) {
    z += 719468;
    const std::int64_t era = floorDiv(z, 146097);
    const std::int64_t doe = z - era * 146097;
    const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const std::int64_t mp = (5 * doy + 2) / 153;
    const int d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
    const int m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
    return {yoe + era * 400 + (m <= 2 ? 1 : 0), m, d};
}

int daysInMonth(std::int64_t y, int m) {
    static constexpr std::array<int, 12> kDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : kDays[static_cast<std::size_t>(m - 1)];
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool allDigits(std::string_view s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// A field's bound: a number, or a name of the field (months, weekdays),
/// or L for the last month day.
enum class Kind { Second, Minute, Hour, MonthDay, Month, WeekDay };

struct Limits {
    int min;
    int max;
};

Limits limitsOf(Kind k) {
    switch (k) {
    case Kind::Second:
    case Kind::Minute:
        return {0, 59};
    case Kind::Hour:
        return {0, 23};
    case Kind::MonthDay:
        return {1, 31};
    case Kind::Month:
        return {1, 12};
    case Kind::WeekDay:
        return {0, 6};
    }
    return {0, 0};
}

std::optional<int> bound(Kind k, std::string_view t) {
    static const char* const kMonths[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                          "jul", "aug", "sep", "oct", "nov", "dec"};
    static const char* const kDays[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};
    const std::string l = lower(t);
    if (k == Kind::Month)
        for (int i = 0; i < 12; ++i)
            if (l == kMonths[i])
                return i + 1;
    if (k == Kind::WeekDay)
        for (int i = 0; i < 7; ++i)
            if (l == kDays[i])
                return i;
    if (k == Kind::MonthDay && (l == "l" || l == "last"))
        return -1;
    const bool negative = k == Kind::MonthDay && !l.empty() && l[0] == '-';
    const std::string_view digits = std::string_view(l).substr(negative ? 1 : 0);
    if (!allDigits(digits) || digits.size() > 2)
        return std::nullopt;
    const int v = std::atoi(std::string(digits).c_str());
    switch (k) {
    case Kind::Second:
    case Kind::Minute:
        return v <= 59 ? std::optional<int>(v) : std::nullopt;
    case Kind::Hour:
        return v <= 24 ? std::optional<int>(v) : std::nullopt;
    case Kind::MonthDay:
        return v >= 1 && v <= 31 ? std::optional<int>(negative ? -v : v) : std::nullopt;
    case Kind::Month:
        return v >= 1 && v <= 12 ? std::optional<int>(v) : std::nullopt;
    case Kind::WeekDay:
        return v <= 7 ? std::optional<int>(v) : std::nullopt;
    }
    return std::nullopt;
}

/// One list element split: "a", "a-b", "a-b/s", "*/s", "a/s", "/s".
struct Element {
    std::optional<int> a, z, step;
    std::string hash; ///< weekday "#n" text after '#'
};

bool splitElement(Kind k, std::string_view e, Element& out, std::string& why) {
    if (e.find('~') != std::string_view::npos) {
        why = "random ranges ('~') pick a different time on each start";
        return false;
    }
    if (k == Kind::WeekDay && e.find('%') != std::string_view::npos) {
        why = "weekday modulo ('%') is not evaluated";
        return false;
    }
    if (const auto slash = e.find('/'); slash != std::string_view::npos) {
        const std::string_view s = e.substr(slash + 1);
        if (!allDigits(s) || s.size() > 2)
            return false;
        out.step = std::atoi(std::string(s).c_str());
        e = e.substr(0, slash);
    }
    if (k == Kind::WeekDay) {
        if (const auto h = e.find('#'); h != std::string_view::npos) {
            out.hash = lower(e.substr(h + 1));
            e = e.substr(0, h);
            if (out.step)
                return false;
        }
    }
    if (e.empty() || e == "*")
        return e.empty() ? out.step.has_value() : true;
    // A '-' after the first character separates the bounds (a month day
    // may itself be negative: "-2", "-5--1").
    const auto dash = e.find('-', 1);
    out.a = bound(k, e.substr(0, dash));
    if (!out.a)
        return false;
    if (dash != std::string_view::npos) {
        out.z = bound(k, e.substr(dash + 1));
        if (!out.z)
            return false;
    }
    return true;
}

/// Fugit's range(): from a to z by one, wrapping past max to min; every
/// step-th value. nullopt = the whole field.
std::optional<std::vector<int>> expandRange(Limits lim, int a, int z, int step, std::string& why) {
    if (a == lim.min && z == lim.max && step == 1)
        return std::nullopt;
    if ((a < 0 && z > 0) || (z < 0 && a > 0)) {
        why = "a range must not mix negative and positive month days";
        return std::vector<int>{};
    }
    int min = lim.min;
    int max = lim.max;
    if (a < 0) {
        min = -lim.max;
        max = -1;
    }
    std::vector<int> all;
    int cur = a;
    for (;;) {
        all.push_back(cur);
        if (cur == z)
            break;
        if (++cur > max) {
            cur = min;
            if (z > max)
                z = z - max - 1;
        }
        if (static_cast<int>(all.size()) > 2 * lim.max + 2) {
            why = "a range that never ends";
            return std::vector<int>{};
        }
    }
    std::vector<int> out;
    for (std::size_t i = 0; i < all.size(); i += static_cast<std::size_t>(step))
        out.push_back(all[i]);
    return out;
}

/// One field's values, sorted and unique; empty = any. False: not valid.
bool parseField(Kind k, std::string_view text, std::vector<int>& out, std::string& why) {
    const Limits lim = limitsOf(k);
    bool any = false;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = text.find(',', start);
        const std::string_view e = text.substr(
            start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        start = comma == std::string_view::npos ? text.size() + 1 : comma + 1;
        if (e.empty())
            continue; // Fugit tolerates ",," and a trailing comma
        Element el;
        if (!splitElement(k, e, el, why))
            return false;
        if (el.step && *el.step < 1)
            return false;
        if (!el.a && !el.step) {
            any = true; // "*"
            continue;
        }
        int a = el.a.value_or(lim.min);
        int z = el.z ? *el.z : el.step ? lim.max : a;
        if (k == Kind::MonthDay && el.z && z < 0 && a > 0)
            z = lim.max; // "25-L": 25 to 31, days past the month's end never match
        if (k == Kind::WeekDay) {
            // Weekdays wrap by adding a week (determine_weekdays).
            if (!el.z && !el.step) {
                out.push_back(a % 7);
                continue;
            }
            if (a > z)
                z += 7;
            for (int i = a; i <= z; i += el.step.value_or(1))
                out.push_back(i % 7);
            continue;
        }
        if (!el.z && !el.step) {
            out.push_back(a);
            continue;
        }
        const auto r = expandRange(lim, a, z, el.step.value_or(1), why);
        if (!r) {
            any = true;
            continue;
        }
        if (r->empty())
            return false;
        out.insert(out.end(), r->begin(), r->end());
    }
    if (k == Kind::Hour)
        for (int& h : out)
            h = h == 24 ? 0 : h;
    if (any)
        out.clear();
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return true;
}

/// The day-of-week field with "#n" entries.
bool parseWeekdays(std::string_view text, std::vector<Weekday>& out, std::string& why) {
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = text.find(',', start);
        const std::string_view e = text.substr(
            start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        start = comma == std::string_view::npos ? text.size() + 1 : comma + 1;
        if (e.empty())
            continue;
        Element el;
        if (!splitElement(Kind::WeekDay, e, el, why))
            return false;
        if (!el.hash.empty()) {
            if (!el.a || el.z)
                return false;
            int nth = 0;
            if (el.hash == "l" || el.hash == "last")
                nth = -1;
            else if (el.hash == "-1" ||
                     (el.hash.size() == 1 && el.hash[0] >= '1' && el.hash[0] <= '5'))
                nth = std::atoi(el.hash.c_str());
            else
                return false;
            out.push_back({*el.a % 7, nth});
            continue;
        }
        std::vector<int> days;
        if (!parseField(Kind::WeekDay, e, days, why))
            return false;
        if (days.empty())
            continue; // "*": any
        for (int d : days)
            out.push_back({d, 0});
    }
    std::sort(out.begin(), out.end(), [](const Weekday& x, const Weekday& y) {
        return x.wday != y.wday ? x.wday < y.wday : x.nth < y.nth;
    });
    out.erase(std::unique(out.begin(), out.end(),
                          [](const Weekday& x, const Weekday& y) {
                              return x.wday == y.wday && x.nth == y.nth;
                          }),
              out.end());
    return true;
}

/// A zone token in the form Fugit's cron grammar takes: a name
/// ("Europe/Paris", "UTC") or an offset ("+09:00").
bool looksLikeZone(std::string_view t) {
    if (t.empty())
        return false;
    if (t[0] == '+' || t[0] == '-')
        return t.size() >= 3 && std::isdigit(static_cast<unsigned char>(t[1]));
    return std::isupper(static_cast<unsigned char>(t[0])) && t.size() >= 2;
}

std::vector<std::string> words(std::string_view s) {
    std::vector<std::string> out;
    std::istringstream in{std::string(s)};
    std::string w;
    while (in >> w)
        out.push_back(w);
    return out;
}

/// The field values as a whole list (empty = every value).
std::vector<int> orAll(const std::vector<int>& v, int min, int max) {
    if (!v.empty())
        return v;
    std::vector<int> all;
    for (int i = min; i <= max; ++i)
        all.push_back(i);
    return all;
}

std::optional<Schedule> parseCron(std::string_view text, std::string& why) {
    std::string s(text);
    // @-shorthands (Fugit::Cron::SPECIALS), a zone may follow.
    if (!s.empty() && s[0] == '@') {
        static const std::pair<const char*, const char*> kSpecials[] = {
            {"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
            {"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
            {"@noon", "0 12 * * *"},  {"@hourly", "0 * * * *"}};
        const auto sp = s.find_first_of(" \t");
        const std::string head = s.substr(0, sp);
        if (head == "@reboot") {
            why = "@reboot runs at boot, not on a schedule";
            return std::nullopt;
        }
        bool known = false;
        for (const auto& [name, cron] : kSpecials)
            if (head == name) {
                s = std::string(cron) + (sp == std::string::npos ? "" : s.substr(sp));
                known = true;
            }
        if (!known)
            return std::nullopt;
    }
    std::vector<std::string> f = words(s);
    std::string zone;
    // Seconds first when there are six fields; a seventh, or a sixth that
    // is no weekday field, is a zone.
    const auto tryFields = [&](std::vector<std::string> fields,
                               const std::string& z) -> std::optional<Schedule> {
        Schedule out;
        std::string w;
        if (fields.size() == 5)
            fields.insert(fields.begin(), "0");
        if (fields.size() != 6)
            return std::nullopt;
        // '&' after the month day or weekday field: both must match.
        for (const std::size_t i : {std::size_t(3), std::size_t(5)})
            if (!fields[i].empty() && fields[i].back() == '&') {
                out.dayAnd = true;
                fields[i].pop_back();
            }
        if (!parseField(Kind::Second, fields[0], out.seconds, w) ||
            !parseField(Kind::Minute, fields[1], out.minutes, w) ||
            !parseField(Kind::Hour, fields[2], out.hours, w) ||
            !parseField(Kind::MonthDay, fields[3], out.monthdays, w) ||
            !parseField(Kind::Month, fields[4], out.months, w) ||
            !parseWeekdays(fields[5], out.weekdays, w)) {
            if (!w.empty())
                why = w;
            return std::nullopt;
        }
        if (out.seconds.empty())
            out.seconds = orAll({}, 0, 59);
        // compact_month_days: drop the month/day pairs that cannot exist.
        if (!out.months.empty() && !out.monthdays.empty()) {
            static constexpr std::array<int, 13> kMax = {0,  31, 29, 31, 30, 31, 30,
                                                         31, 31, 30, 31, 30, 31};
            std::vector<int> ms, ds;
            for (int m : out.months)
                for (int d : out.monthdays)
                    if (d <= kMax[static_cast<std::size_t>(m)]) {
                        ms.push_back(m);
                        ds.push_back(d);
                    }
            if (ms.empty()) {
                why = "no month has that day";
                return std::nullopt;
            }
            std::sort(ms.begin(), ms.end());
            ms.erase(std::unique(ms.begin(), ms.end()), ms.end());
            std::sort(ds.begin(), ds.end());
            ds.erase(std::unique(ds.begin(), ds.end()), ds.end());
            out.months = ms;
            out.monthdays = ds;
        }
        if (!z.empty()) {
            out.zoneName = z;
            out.zoneOffset = fixedZoneOffset(z);
            if (!out.zoneOffset) {
                why = "time zone " + z +
                      " is not evaluated here: only UTC and fixed offsets (+09:00, Etc/GMT-9)";
                return std::nullopt;
            }
        }
        return out;
    };
    std::optional<Schedule> r;
    if (f.size() == 7 && looksLikeZone(f[6]))
        r = tryFields({f.begin(), f.end() - 1}, f[6]);
    else if (f.size() == 6) {
        std::string w = why;
        r = tryFields(f, "");
        if (!r && looksLikeZone(f[5])) {
            why = w;
            r = tryFields({f.begin(), f.end() - 1}, f[5]);
        }
    } else if (f.size() == 5)
        r = tryFields(f, "");
    if (r)
        r->cron = std::string(text);
    return r;
}

/// The first (h, m, s) at or after `tod` (seconds into the day) whose
/// parts are in the sets; -1 when none is left that day.
std::int64_t firstAtOrAfter(const std::vector<int>& H, const std::vector<int>& M,
                            const std::vector<int>& S, std::int64_t tod) {
    for (int h : H)
        for (int m : M) {
            const std::int64_t base = h * 3600 + m * 60;
            if (base + 59 < tod)
                continue;
            for (int s : S)
                if (base + s >= tod)
                    return base + s;
        }
    return -1;
}

std::int64_t lastAtOrBefore(const std::vector<int>& H, const std::vector<int>& M,
                            const std::vector<int>& S, std::int64_t tod) {
    // Latest first: hours, then minutes, then seconds, each descending.
    for (std::size_t h = H.size(); h-- > 0;)
        for (std::size_t m = M.size(); m-- > 0;) {
            const std::int64_t base = std::int64_t{H[h]} * 3600 + std::int64_t{M[m]} * 60;
            if (base > tod)
                continue;
            for (std::size_t s = S.size(); s-- > 0;)
                if (base + S[s] <= tod)
                    return base + S[s];
        }
    return -1;
}

/// How many (h, m, s) of the sets fall at or before `tod`.
std::int64_t countUpTo(const std::vector<int>& H, const std::vector<int>& M,
                       const std::vector<int>& S, std::int64_t tod) {
    std::int64_t n = 0;
    for (int h : H)
        for (int m : M) {
            const std::int64_t base = h * 3600 + m * 60;
            if (base > tod)
                return n;
            n += std::upper_bound(S.begin(), S.end(), static_cast<int>(tod - base)) - S.begin();
        }
    return n;
}

/// Seconds since the epoch that fit a TimeNs when made ns.
bool fitsNs(std::int64_t secs) {
    return secs < std::numeric_limits<TimeNs>::max() / kNsPerSecond &&
           secs > std::numeric_limits<TimeNs>::min() / kNsPerSecond;
}

} // namespace

std::optional<int> fixedZoneOffset(std::string_view zone) {
    static const char* const kUtc[] = {"UTC",     "Z",         "GMT",          "UCT",
                                       "Zulu",    "Etc/UTC",   "Etc/GMT",      "Etc/Zulu",
                                       "Etc/UCT", "Universal", "Etc/Universal"};
    for (const char* u : kUtc)
        if (zone == u)
            return 0;
    if (zone.rfind("Etc/GMT", 0) == 0 && zone.size() > 8 && (zone[7] == '+' || zone[7] == '-') &&
        allDigits(zone.substr(8)) && zone.size() <= 10) {
        const int h = std::atoi(std::string(zone.substr(8)).c_str());
        if (h > 14)
            return std::nullopt;
        return (zone[7] == '+' ? -1 : 1) * h * 3600; // POSIX: Etc/GMT-9 is UTC+9
    }
    if (zone.size() >= 3 && (zone[0] == '+' || zone[0] == '-')) {
        std::string d;
        for (char c : zone.substr(1))
            if (c != ':')
                d += c;
        if (!allDigits(d) || (d.size() != 2 && d.size() != 4) ||
            (zone.find(':') != std::string_view::npos && d.size() != 4))
            return std::nullopt;
        const int h = std::atoi(d.substr(0, 2).c_str());
        const int m = d.size() == 4 ? std::atoi(d.substr(2).c_str()) : 0;
        if (h > 24 || m > 59)
            return std::nullopt;
        return (zone[0] == '-' ? -1 : 1) * (h * 3600 + m * 60);
    }
    return std::nullopt;
}

bool Schedule::dayMatches(std::int64_t day) const {
    const Civil c = civilFromDays(day);
    if (!months.empty() && !std::binary_search(months.begin(), months.end(), c.m))
        return false;
    const int dim = daysInMonth(c.y, c.m);
    const auto monthday = [&] {
        return monthdays.empty() || std::any_of(monthdays.begin(), monthdays.end(), [&](int d) {
                   return (d < 1 ? dim + 1 + d : d) == c.d;
               });
    };
    const auto weekday = [&] {
        const int wday = static_cast<int>(((day % 7) + 11) % 7); // 1970-01-01: Thursday
        return weekdays.empty() ||
               std::any_of(weekdays.begin(), weekdays.end(), [&](const Weekday& w) {
                   return w.wday == wday && (w.nth == 0 || w.nth == (c.d - 1) / 7 + 1 ||
                                             w.nth == -((dim - c.d) / 7 + 1));
               });
    };
    if (!monthdays.empty() && !weekdays.empty())
        return dayAnd ? monthday() && weekday() : monthday() || weekday();
    return monthday() && weekday();
}

std::optional<TimeNs> Schedule::next(TimeNs after, int defaultOffset) const {
    const int off = zoneOffset.value_or(defaultOffset);
    const std::int64_t from = floorDiv(after, kNsPerSecond) + 1 + off;
    const auto H = orAll(hours, 0, 23), M = orAll(minutes, 0, 59);
    const std::int64_t day0 = floorDiv(from, kDay);
    for (std::int64_t k = 0; k < kSearchDays; ++k) {
        const std::int64_t day = day0 + k;
        if (!dayMatches(day))
            continue;
        const std::int64_t tod = firstAtOrAfter(H, M, seconds, k == 0 ? from - day0 * kDay : 0);
        if (tod < 0)
            continue;
        const std::int64_t secs = day * kDay + tod - off;
        return fitsNs(secs) ? std::optional<TimeNs>(secs * kNsPerSecond) : std::nullopt;
    }
    return std::nullopt;
}

std::optional<TimeNs> Schedule::previous(TimeNs before, int defaultOffset) const {
    const int off = zoneOffset.value_or(defaultOffset);
    // The last whole second strictly before `before`.
    const std::int64_t upTo = -floorDiv(-before, kNsPerSecond) - 1 + off;
    const auto H = orAll(hours, 0, 23), M = orAll(minutes, 0, 59);
    const std::int64_t day0 = floorDiv(upTo, kDay);
    for (std::int64_t k = 0; k < kSearchDays; ++k) {
        const std::int64_t day = day0 - k;
        if (!dayMatches(day))
            continue;
        const std::int64_t tod = lastAtOrBefore(H, M, seconds, k == 0 ? upTo - day0 * kDay : kDay);
        if (tod < 0)
            continue;
        const std::int64_t secs = day * kDay + tod - off;
        return fitsNs(secs) ? std::optional<TimeNs>(secs * kNsPerSecond) : std::nullopt;
    }
    return std::nullopt;
}

std::int64_t Schedule::countBetween(TimeNs from, TimeNs to, int defaultOffset) const {
    const int off = zoneOffset.value_or(defaultOffset);
    const std::int64_t first = floorDiv(from, kNsPerSecond) + 1 + off; // > from
    const std::int64_t last = floorDiv(to, kNsPerSecond) + off;        // <= to
    if (last < first)
        return 0;
    const auto H = orAll(hours, 0, 23), M = orAll(minutes, 0, 59);
    const std::int64_t perDay = static_cast<std::int64_t>(H.size() * M.size() * seconds.size());
    const std::int64_t d0 = floorDiv(first, kDay), d1 = floorDiv(last, kDay);
    const std::int64_t t0 = first - d0 * kDay, t1 = last - d1 * kDay;
    const auto inDay = [&](std::int64_t day, std::int64_t lo, std::int64_t hi) -> std::int64_t {
        if (!dayMatches(day))
            return 0;
        return countUpTo(H, M, seconds, hi) - (lo > 0 ? countUpTo(H, M, seconds, lo - 1) : 0);
    };
    if (d0 == d1)
        return inDay(d0, t0, t1);
    std::int64_t n = inDay(d0, t0, kDay - 1) + inDay(d1, 0, t1);
    for (std::int64_t d = d0 + 1; d < d1; ++d)
        if (dayMatches(d))
            n += perDay;
    return n;
}

std::optional<Schedule> parse(std::string_view text, std::string* why) {
    std::string w;
    std::string_view t = text;
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front())))
        t.remove_prefix(1);
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back())))
        t.remove_suffix(1);
    // Fugit.parse: a cron first, then a duration, then the natural forms;
    // Solid Queue accepts only what ends up a Fugit::Cron.
    std::optional<Schedule> s = parseCron(t, w);
    if (!s && w.empty()) {
        std::string natWhy;
        if (const auto cron = naturalToCron(t, &natWhy)) {
            s = parseCron(*cron, w);
            if (s)
                s->cron = *cron;
        } else
            w = natWhy;
    }
    if (!s) {
        if (why)
            *why = "schedule \"" + std::string(text) + "\": " +
                   (w.empty() ? "not a cron line or a natural-language schedule Fugit reads" : w);
        return std::nullopt;
    }
    s->original = std::string(text);
    return s;
}

} // namespace lq::core::cron
