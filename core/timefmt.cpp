// SPDX-License-Identifier: MIT
#include "timefmt.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>

namespace lq::core {

std::string humanDuration(TimeNs ns) {
    const bool neg = ns < 0;
    const long double a = std::fabs(static_cast<long double>(ns));
    char buf[64];
    const char* sign = neg ? "-" : "";
    if (a < 1e3L) {
        std::snprintf(buf, sizeof buf, "%s%lld ns", sign, static_cast<long long>(a));
    } else if (a < 1e6L) {
        std::snprintf(buf, sizeof buf, "%s%.0f µs", sign, static_cast<double>(a / 1e3L));
    } else if (a < 1e9L) {
        std::snprintf(buf, sizeof buf, "%s%.0f ms", sign, static_cast<double>(a / 1e6L));
    } else if (a < 60e9L) {
        std::snprintf(buf, sizeof buf, "%s%.1f s", sign, static_cast<double>(a / 1e9L));
    } else {
        const auto s = static_cast<long long>(a / 1e9L);
        const long long d = s / 86400, h = (s % 86400) / 3600, m = (s % 3600) / 60, sec = s % 60;
        if (d > 0)
            std::snprintf(buf, sizeof buf, "%s%lld d %lld h", sign, d, h);
        else if (h > 0)
            std::snprintf(buf, sizeof buf, "%s%lld h %lld m", sign, h, m);
        else
            std::snprintf(buf, sizeof buf, "%s%lld m %lld s", sign, m, sec);
    }
    return buf;
}

std::string isoUtc(TimeNs t) {
    TimeNs secs = t / kNsPerSecond;
    TimeNs frac = t % kNsPerSecond;
    if (frac < 0) {
        frac += kNsPerSecond;
        --secs;
    }
    const std::time_t tt = static_cast<std::time_t>(secs);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%09lldZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<long long>(frac));
    return buf;
}

namespace {
// Days from 1970-01-01 to y-m-d (proleptic Gregorian).
long long daysFromCivil(long long y, unsigned m, unsigned d) {
    y -= m <= 2;
    const long long era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<long long>(doe) - 719468;
}

bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
    if (pos + n > s.size())
        return false;
    out = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const char c = s[pos + i];
        if (c < '0' || c > '9')
            return false;
        out = out * 10 + (c - '0');
    }
    return true;
}
} // namespace

std::optional<TimeNs> parseTimeArg(std::string_view s) {
    if (s.empty())
        return std::nullopt;
    {
        // A bare number: ns since the epoch, or seconds when it is below 10^12
        // (the same magnitude rule as docs/FORMATS.md uses for 0.13 files).
        std::int64_t v = 0;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec == std::errc() && p == s.data() + s.size())
            return (v < 1'000'000'000'000 && v > -1'000'000'000'000) ? v * kNsPerSecond : v;
        double d = 0;
        auto [pd, ecd] = std::from_chars(s.data(), s.data() + s.size(), d);
        if (ecd == std::errc() && pd == s.data() + s.size() && std::isfinite(d) && d < 1e12 &&
            d > -1e12)
            return static_cast<TimeNs>(std::llround(d * 1e9));
    }
    return parseDateTime(s);
}

std::optional<TimeNs> parseDateTime(std::string_view s) {
    int y, mo, d, h = 0, mi = 0, sec = 0;
    if (!digits(s, 0, 4, y) || s.size() < 10 || s[4] != '-' || !digits(s, 5, 2, mo) ||
        s[7] != '-' || !digits(s, 8, 2, d))
        return std::nullopt;
    std::size_t i = 10;
    TimeNs frac = 0;
    if (i < s.size() && (s[i] == 'T' || s[i] == ' ')) {
        if (!digits(s, i + 1, 2, h) || s.size() < i + 6 || s[i + 3] != ':' ||
            !digits(s, i + 4, 2, mi))
            return std::nullopt;
        i += 6;
        if (i < s.size() && s[i] == ':') {
            if (!digits(s, i + 1, 2, sec))
                return std::nullopt;
            i += 3;
            if (i < s.size() && (s[i] == '.' || s[i] == ',')) {
                ++i;
                TimeNs scale = 100'000'000;
                while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
                    frac += (s[i] - '0') * scale;
                    scale /= 10;
                    ++i;
                }
            }
        }
    }
    TimeNs offset = 0;
    if (i < s.size()) {
        if (s[i] == 'Z' && i + 1 == s.size()) {
            ++i;
        } else if ((s[i] == '+' || s[i] == '-') && s.size() >= i + 6) {
            int oh, om;
            if (!digits(s, i + 1, 2, oh) || s[i + 3] != ':' || !digits(s, i + 4, 2, om))
                return std::nullopt;
            offset = (oh * 3600LL + om * 60LL) * kNsPerSecond * (s[i] == '+' ? 1 : -1);
            i += 6;
        }
    }
    if (i != s.size() || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
        return std::nullopt;
    const long long days = daysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
    const TimeNs t = ((days * 86400LL + h * 3600LL + mi * 60LL + sec) * kNsPerSecond) + frac;
    return t - offset;
}

std::optional<TimeNs> parseTextTime(std::string_view s) {
    if (s.size() < 19 || s[4] != '-' || s[13] != ':')
        return std::nullopt; // not a date-time (a bare number is not a stored time)
    // Go's time.String(): "2006-01-02 15:04:05.999999999 -0700 MST" (and a
    // monotonic " m=+..." part): keep the numeric offset, as "-07:00".
    if (const auto sp = s.find(' ', 11); sp != std::string_view::npos && sp + 5 < s.size() &&
                                         (s[sp + 1] == '+' || s[sp + 1] == '-')) {
        const std::string t = std::string(s.substr(0, sp)) + std::string(s.substr(sp + 1, 3)) +
                              ":" + std::string(s.substr(sp + 4, 2));
        return parseDateTime(t);
    }
    return parseDateTime(s); // every other spelling, without a copy
}

std::int64_t castRealToInteger(double r) {
    constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
    constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
    if (std::isnan(r))
        return 0;
    if (r <= static_cast<double>(kMin))
        return kMin;
    if (r >= static_cast<double>(kMax))
        return kMax;
    return static_cast<std::int64_t>(r);
}

std::string humanBytes(std::int64_t bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    char buf[32];
    if (u == 0)
        std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
    else
        std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
    return buf;
}

} // namespace lq::core
