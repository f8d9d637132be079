// SPDX-License-Identifier: MIT
// Solid Queue's SQL text and execution tokens (solidqueue_text.h).
#include "solidqueue_text.h"

#include "../timefmt.h"

#include <sqlite3.h>

namespace lq::core::solidqueue {

namespace {

/// SQL: whether `id` is the rowid of `table` (its INTEGER PRIMARY KEY, in
/// a rowid table): unique, never NULL and an integer. From the schema.
std::string idIsRowid(const std::string& table) {
    const std::string t = "('" + table + "')";
    return "((SELECT count(*) FROM pragma_table_info" + t +
           " WHERE pk > 0) = 1 AND EXISTS (SELECT 1 FROM pragma_table_info" + t +
           " WHERE name = 'id' AND pk = 1 AND upper(type) = 'INTEGER') AND NOT EXISTS (SELECT 1 "
           "FROM pragma_index_list" +
           t + " WHERE origin = 'pk'))";
}

} // namespace

/// The whole file's counts in one statement (one read, so one snapshot),
/// table by table, without classifying each job. They are the figures of
/// the one pass over the jobs only when the file is consistent, which the
/// first columns prove or refute (computed first, once: MATERIALIZED):
///   0  the ids of jobs and of every execution table are rowids (the jobs
///      are a set; no execution row has a NULL id, which the pass would
///      count as absent);
///   1  unfinished jobs (U);
///   2  unfinished jobs with no execution row, by one merge of sorted
///      indexes (EXCEPT ... ORDER BY);
///   3.. execution rows per table (E), in `executions` order.
/// U within E (column 2 = 0) and |E| = |U| leave no room for an execution
/// row of a finished or missing job, a job in two tables or twice in one:
/// each unfinished job has exactly one execution row, so its table is its
/// state. Only then (NULL otherwise, nothing read) the figures: all jobs,
/// scheduled rows due later than ?1 (scheduled_at converted as the pass
/// converts it: a Rails text compares with a text "now" only when
/// well-formed, and checking that costs as much), and the claim rows joined
/// to their process as the pass joins them (its LEFT JOIN's rows, one per
/// claim unless process ids repeat), all and those stuck at ?2 (the
/// library's rule, stuckSql()), the heartbeat converted once per process.
std::string consistentCountsSql(const std::vector<std::string>& executions) {
    std::string schema = idIsRowid("solid_queue_jobs");
    std::string noExecution = "SELECT id FROM solid_queue_jobs WHERE finished_at IS NULL";
    std::string sizes;
    std::string sum = "0";
    for (std::size_t i = 0; i < executions.size(); ++i) {
        const std::string& t = executions[i];
        schema += " AND " + idIsRowid(t);
        noExecution += " EXCEPT SELECT job_id FROM " + t;
        sizes += ", (SELECT count(*) FROM " + t + ") AS e" + std::to_string(i);
        sum += " + e" + std::to_string(i);
    }
    const std::string proven =
        "CASE WHEN ok AND no_execution = 0 AND " + sum + " = unfinished THEN ";
    const std::string byProcess =
        "(SELECT process_id, count(*) AS n FROM solid_queue_claimed_executions GROUP BY "
        "process_id COLLATE BINARY) g LEFT JOIN solid_queue_processes p ON p.id = g.process_id";
    return "WITH proof AS MATERIALIZED (SELECT " + schema +
           " AS ok, (SELECT count(*) FROM solid_queue_jobs WHERE finished_at IS NULL) AS "
           "unfinished, (SELECT count(*) FROM (" +
           noExecution + " ORDER BY 1)) AS no_execution" + sizes + ") SELECT proof.*, " + proven +
           "(SELECT count(*) FROM solid_queue_jobs) END, " + proven +
           "(SELECT count(*) FROM solid_queue_scheduled_executions WHERE " + ns("scheduled_at") +
           " > ?1) END, " + proven + "(SELECT coalesce(sum(g.n), 0) FROM " + byProcess + ") END, " +
           proven + "(SELECT coalesce(sum(g.n), 0) FROM " + byProcess +
           " WHERE g.process_id IS NULL OR p.id IS NULL OR " + ns("p.last_heartbeat_at") +
           " <= ?2) END FROM proof";
}

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
