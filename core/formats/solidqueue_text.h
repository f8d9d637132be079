// SPDX-License-Identifier: MIT
#pragma once

// Solid Queue's SQL text and execution tokens, shared by the driver
// (solidqueue_sql.cpp) and defined in solidqueue_text.cpp: the pieces that
// build statements and name execution rows, apart from reading and writing.

#include "../sqlite.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lq::core::solidqueue {

/// A Rails datetime(6) TEXT column as integer ns (NULL when it is not a
/// parseable text time): whole seconds by strftime, the fraction padded to
/// microseconds.
std::string ns(const std::string& col);
/// The same as ns() of a column read as stored: TEXT only, parsed here.
std::optional<std::int64_t> storedRailsTime(const Statement& st, int col);

/// A value json_object() accepts (it refuses BLOBs).
std::string j(const std::string& col);

/// "solid_queue_<kind>_executions".
std::string tableOf(const std::string& kind);
bool isExecution(const std::string& kind);

/// The execution row a token names: "claimed:11:2", "ready:4", "finished:<time>".
struct Token {
    std::string kind;
    std::int64_t id = 0;
    std::optional<std::int64_t> processId;
};
Token parseToken(const std::string& t);
/// The token of the row `st` reads (its kind, execution id, process id and
/// finished_at at those columns).
std::string tokenOf(const std::string& kind, const Statement& st, int execCol, int pidCol,
                    int finishedCol);

} // namespace lq::core::solidqueue
