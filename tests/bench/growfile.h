// SPDX-License-Identifier: MIT
#pragma once

#include <string>

struct sqlite3;

namespace lq::bench {

struct FormatProfile;

/// Runs one statement to its end, binding `:n` and `:t0` where it has them;
/// throws std::runtime_error with SQLite's message.
void exec(sqlite3* db, const std::string& sql, long n, double t0);

/// Adds `n` jobs to the file at `path` with the profile's grow statements,
/// in one transaction; the history ends an hour before now.
void grow(const std::string& path, const FormatProfile& p, long n);

} // namespace lq::bench
