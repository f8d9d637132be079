// SPDX-License-Identifier: MIT
// Growing a small file of a queue format to a large one, with the SQL of its
// FormatProfile (lqbench formats, lqbench observer).
#include "growfile.h"
#include "formatprofiles.h"

#include <sqlite3.h>

#include <chrono>
#include <stdexcept>

namespace lq::bench {

void exec(sqlite3* db, const std::string& sql, long n, double t0) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
        throw std::runtime_error(std::string(sqlite3_errmsg(db)) + " in: " + sql.substr(0, 120));
    if (const int i = sqlite3_bind_parameter_index(st, ":n"))
        sqlite3_bind_int64(st, i, n);
    if (const int i = sqlite3_bind_parameter_index(st, ":t0"))
        sqlite3_bind_double(st, i, t0);
    const int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        throw std::runtime_error(std::string(sqlite3_errmsg(db)) + " in: " + sql.substr(0, 120));
}

void grow(const std::string& path, const FormatProfile& p, long n) {
    sqlite3* db = nullptr;
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK)
        throw std::runtime_error("cannot open " + path);
    // The history ends a little before now, so nothing grown is due later
    // than the scheduled rows meant to be.
    const double t0 = double(std::chrono::duration_cast<std::chrono::seconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count()) -
                      double(n) * 0.01 - 3600;
    try {
        exec(db, "BEGIN", 0, 0);
        for (const std::string& s : p.grow)
            exec(db, s, n, t0);
        exec(db, "COMMIT", 0, 0);
    } catch (...) {
        sqlite3_close(db);
        throw;
    }
    sqlite3_close(db);
}

} // namespace lq::bench
