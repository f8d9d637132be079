// SPDX-License-Identifier: MIT
#pragma once

// The raw-SQLite references the benchmarks compare lqcore with (docs/BENCHMARKS.md:
// counts within 1.3x, statistics within 1.5x of raw SQLite doing the same
// work in the same run), shared by `lqbench gui` and `lqbench formats`.

#include <QElapsedTimer>

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace lq::bench {

/// How a raw pass reads a format's time columns.
enum class RawTime { Integer, UnixSeconds, RailsText };
/// The metrics a format's dashboard computes besides wait.
enum class RawMetrics { Wait, WaitAndProcessing, WaitAndTotal };

/// What one would type by hand for the figures of docs/BENCHMARKS.md, per format.
struct RawQueries {
    std::string counts; ///< every state's count (first column of SQ/Laravel's: jobs stored)
    /// One row per job: (created, due, claim, done); wait = claim - due.
    std::string timing;
    RawTime encoding = RawTime::Integer;
    RawMetrics metrics = RawMetrics::Wait;
    std::string sortByWait; ///< every job's id, longest wait first
};

/// The raw-SQLite references of docs/BENCHMARKS.md: the same work as lqcore
/// with nothing around it, on a read-only connection with the same pragmas.
class RawReference {
public:
    explicit RawReference(const std::string& file) {
        if (sqlite3_open_v2(file.c_str(), &m_db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
            throw std::runtime_error("raw reference: cannot open the file");
        sqlite3_busy_timeout(m_db, 5000);
    }
    ~RawReference() { sqlite3_close_v2(m_db); }
    RawReference(const RawReference&) = delete;
    RawReference& operator=(const RawReference&) = delete;

    /// Best of `n` runs of `f`, in ms.
    static double best(int n, const std::function<void()>& f) {
        double b = 1e18;
        for (int i = 0; i < n; ++i) {
            QElapsedTimer t;
            t.start();
            f();
            b = std::min(b, double(t.nsecsElapsed()) / 1e6);
        }
        return b;
    }
    /// Best of `n` runs each of `f` and `g`, in ms, taken in turns: whatever
    /// else the machine does in those seconds falls on both alike.
    static std::pair<double, double> bestOfAlternating(int n, const std::function<void()>& f,
                                                       const std::function<void()>& g) {
        double bf = 1e18, bg = 1e18;
        for (int i = 0; i < n; ++i) {
            bf = std::min(bf, best(1, f));
            bg = std::min(bg, best(1, g));
        }
        return {bf, bg};
    }
    /// Steps `sql` to the end; calls `row` for each row.
    void each(const char* sql, const std::function<void(sqlite3_stmt*)>& row = {}) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(m_db, sql, -1, &st, nullptr) != SQLITE_OK)
            throw std::runtime_error(std::string("raw reference: ") + sqlite3_errmsg(m_db));
        while (sqlite3_step(st) == SQLITE_ROW)
            if (row)
                row(st);
        sqlite3_finalize(st);
    }
    /// One pass over the timing columns (q.timing) with the nearest-rank
    /// percentiles (p50, p90, p95, p99) of the format's metrics, as
    /// core/stats.cpp defines them, by a full sort.
    void statsPass(const RawQueries& q) {
        std::vector<std::int64_t> wait, second;
        each(q.timing.c_str(), [&](sqlite3_stmt* st) {
            std::int64_t t[4];
            bool has[4];
            for (int i = 0; i < 4; ++i)
                has[i] = readTime(st, i, q.encoding, t[i]);
            // (created, due, claim, done): wait = claim - due.
            if (has[1] && has[2] && t[2] >= t[1])
                wait.push_back(t[2] - t[1]);
            if (q.metrics == RawMetrics::WaitAndProcessing && has[2] && has[3])
                second.push_back(t[3] - t[2]);
            else if (q.metrics == RawMetrics::WaitAndTotal && has[0] && has[3])
                second.push_back(t[3] - t[0]);
        });
        for (auto* v : {&wait, &second}) {
            std::sort(v->begin(), v->end());
            for (double p : {50.0, 90.0, 95.0, 99.0})
                if (!v->empty())
                    m_sink += (*v)[std::clamp<std::size_t>(
                                       std::size_t(std::ceil(p / 100.0 * double(v->size()))), 1,
                                       v->size()) -
                                   1];
        }
    }
    std::int64_t sink() const { return m_sink; }

private:
    /// A time column as ns (whatever its unit: only differences are used).
    static bool readTime(sqlite3_stmt* st, int col, RawTime enc, std::int64_t& out) {
        if (sqlite3_column_type(st, col) == SQLITE_NULL)
            return false;
        switch (enc) {
        case RawTime::Integer:
            out = sqlite3_column_int64(st, col);
            return true;
        case RawTime::UnixSeconds:
            out = sqlite3_column_int64(st, col) * 1'000'000'000;
            return true;
        case RawTime::RailsText:
            return railsTimeNs(sqlite3_column_text(st, col), sqlite3_column_bytes(st, col), out);
        }
        return false;
    }
    /// "YYYY-MM-DD HH:MM:SS[.ffffff]" (UTC) as ns since the epoch.
    static bool railsTimeNs(const unsigned char* s, int n, std::int64_t& out) {
        if (!s || n < 19)
            return false;
        const auto num = [s](int at, int len) {
            int v = 0;
            for (int i = at; i < at + len; ++i)
                v = v * 10 + (s[i] - '0');
            return v;
        };
        // Days from the civil date (H. Hinnant's algorithm).
        int y = num(0, 4);
        const int m = num(5, 2), d = num(8, 2);
        y -= m <= 2;
        const int era = (y >= 0 ? y : y - 399) / 400;
        const int yoe = y - era * 400;
        const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
        const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        const std::int64_t days = std::int64_t(era) * 146097 + doe - 719468;
        std::int64_t ns =
            (days * 86400 + num(11, 2) * 3600 + num(14, 2) * 60 + num(17, 2)) * 1'000'000'000;
        if (n > 20 && s[19] == '.') {
            std::int64_t frac = 0, scale = 1'000'000'000;
            for (int i = 20; i < n && s[i] >= '0' && s[i] <= '9' && scale > 1; ++i) {
                scale /= 10;
                frac += (s[i] - '0') * scale;
            }
            ns += frac;
        }
        out = ns;
        return true;
    }

    sqlite3* m_db = nullptr;
    std::int64_t m_sink = 0;
};

} // namespace lq::bench
