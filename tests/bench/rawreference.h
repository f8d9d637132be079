// SPDX-License-Identifier: MIT
#pragma once

// The raw-SQLite references the benchmarks compare lqcore with (SPEC §5:
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
#include <vector>

namespace lq::bench {

/// The raw-SQLite references of issue 13, target 4: the same work as lqcore
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
    /// One pass over the timing columns with the nearest-rank percentiles
    /// (p50, p90, p95, p99) of wait and processing, as core/stats.cpp defines
    /// them, by a full sort.
    void statsPass() {
        std::vector<std::int64_t> wait, proc;
        each("SELECT in_time, lock_time, done_time FROM Queue", [&](sqlite3_stmt* st) {
            if (sqlite3_column_type(st, 1) == SQLITE_NULL)
                return;
            wait.push_back(sqlite3_column_int64(st, 1) - sqlite3_column_int64(st, 0));
            if (sqlite3_column_type(st, 2) != SQLITE_NULL)
                proc.push_back(sqlite3_column_int64(st, 2) - sqlite3_column_int64(st, 1));
        });
        for (auto* v : {&wait, &proc}) {
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
    sqlite3* m_db = nullptr;
    std::int64_t m_sink = 0;
};

} // namespace lq::bench
