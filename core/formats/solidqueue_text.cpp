// SPDX-License-Identifier: MIT
// Solid Queue's SQL text and execution tokens (solidqueue_text.h).
#include "solidqueue_text.h"

#include "../timefmt.h"

#include <sqlite3.h>

namespace lq::core::solidqueue {

/// A Rails datetime(6) TEXT column as integer ns, NULL when it is not a
/// text time: parseTextTime() in SQL (Connection), as storedRailsTime()
/// reads it.
std::optional<std::int64_t> storedRailsTime(const Statement& st, int col) {
    return st.columnType(col) == SQLITE_TEXT ? parseTextTime(st.textView(col)) : std::nullopt;
}

std::string ns(const std::string& col) {
    return "lq_text_ns(" + col + ")";
}

/// A value json_object() accepts (it refuses BLOBs).
std::string j(const std::string& col) {
    return "(CASE WHEN typeof(" + col + ") = 'blob' THEN NULL ELSE " + col + " END)";
}

std::string tableOf(const std::string& kind) {
    return "solid_queue_" + kind + "_executions";
}

bool isExecution(const std::string& kind) {
    return kind == "ready" || kind == "claimed" || kind == "failed" || kind == "scheduled" ||
           kind == "blocked";
}

Token parseToken(const std::string& t) {
    Token out;
    const auto a = t.find(':');
    out.kind = t.substr(0, a);
    if (a == std::string::npos || !isExecution(out.kind))
        return out;
    const auto b = t.find(':', a + 1);
    out.id = std::stoll(t.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1));
    if (b != std::string::npos && t.substr(b + 1) != "null")
        out.processId = std::stoll(t.substr(b + 1));
    return out;
}

std::string tokenOf(const std::string& kind, const Statement& st, int execCol, int pidCol,
                    int finishedCol) {
    if (kind == "finished")
        return "finished:" + st.text(finishedCol);
    if (!isExecution(kind))
        return kind;
    std::string t = kind + ":" + std::to_string(st.int64(execCol));
    if (kind == "claimed")
        t += ":" + (st.isNull(pidCol) ? std::string("null") : std::to_string(st.int64(pidCol)));
    return t;
}

} // namespace lq::core::solidqueue
