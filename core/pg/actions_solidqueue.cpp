// SPDX-License-Identifier: MIT
// Solid Queue's writes on PostgreSQL (core/pg/actions_p.h): the statements
// of solidqueue_sql.cpp (FailedExecution#retry, ClaimedExecution#release,
// Mission Control's Dispatch, Job#discard) in PostgreSQL's dialect, on the
// tables rails/solid_queue's schema creates there.
#include "actions_p.h"

#include "../error.h"
#include "../json.h"
#include "catalog.h"

#include <algorithm>

namespace lq::core::pg::detail {

namespace {

constexpr const char* kJobs = "solid_queue_jobs";

bool isExecutionKind(const std::string& kind) {
    return kind == "ready" || kind == "claimed" || kind == "failed" || kind == "scheduled" ||
           kind == "blocked";
}

/// The execution table of a job in state `kind` ("ready" ...).
std::string executionTable(const std::string& kind) {
    return "solid_queue_" + kind + "_executions";
}

bool hasTable(const ChunkContext& x, const char* table) {
    return x.lib.has(table);
}

/// One row_to_json of `table` for job `id`, or nullopt; `lock` takes it
/// FOR UPDATE SKIP LOCKED (nullopt also when held).
std::optional<std::string> rowOfJob(const ChunkContext& x, const std::string& table,
                                    const std::string& id, bool lock) {
    std::string sql = "SELECT row_to_json(e)::text FROM " + qualifiedTable(x, table) +
                      " e WHERE job_id = $1::bigint";
    if (lock)
        sql += " FOR UPDATE SKIP LOCKED";
    const Result r = x.c.exec(sql, {id});
    if (r.rows() == 0)
        return std::nullopt;
    return r.text(0, 0);
}

/// The stored row `part` of a before-image written by solidQueueRows(), as
/// JSON text ("" when absent or null).
std::string partOf(const Message& m, const char* part) {
    if (!m.formatRow)
        return {};
    const Json row = Json::parse(*m.formatRow);
    const Json& v = row[part];
    return v.isObject() ? v.dump() : std::string();
}

std::string execIdOf(const Message& m) {
    if (!m.formatRow)
        return {};
    const Json row = Json::parse(*m.formatRow);
    const Json& id = row["exec"]["id"];
    return id.isNumber() ? std::to_string(id.toInt()) : std::string();
}

/// A new execution row for job `id` as the library creates it (queue and
/// priority copied from the job), created now.
std::int64_t insertFromJob(const ChunkContext& x, const std::string& kind, const std::string& id) {
    const std::string jobs = qualifiedTable(x, kJobs);
    std::string sql = "INSERT INTO " + qualifiedTable(x, executionTable(kind));
    if (kind == "ready")
        sql += " (job_id, queue_name, priority, created_at) SELECT id, queue_name, priority, "
               "$2::timestamp FROM ";
    else
        sql += " (job_id, queue_name, priority, scheduled_at, created_at) SELECT id, queue_name, "
               "priority, scheduled_at, $2::timestamp FROM ";
    sql += jobs + " WHERE id = $1::bigint RETURNING id";
    return changed(x, sql, {id, pgTime(x.now)});
}

/// Writes back a row of `table` exactly as stored (its row_to_json).
void insertRow(const ChunkContext& x, const std::string& table, const std::string& rowJson) {
    const std::string t = qualifiedTable(x, table);
    x.c.exec("INSERT INTO " + t + " SELECT * FROM json_populate_record(NULL::" + t + ", $1::json)",
             {rowJson});
}

} // namespace

const char* const kSolidQueueWritten = "arguments, scheduled_at, finished_at, updated_at";

std::optional<std::string> solidQueueRows(const ChunkContext& x, const Message& m,
                                          const std::string& jobRow, bool& inUse) {
    inUse = false;
    Json row = Json::object();
    row.set("job", Json::parse(jobRow));
    if (isExecutionKind(m.statusText)) {
        const std::string table = executionTable(m.statusText);
        const auto exec = rowOfJob(x, table, m.messageId, true);
        if (!exec) {
            inUse = rowOfJob(x, table, m.messageId, false).has_value();
            return std::nullopt;
        }
        row.set("exec", Json::parse(*exec));
    } else {
        row.set("exec", Json());
    }
    const char* recurring = "solid_queue_recurring_executions";
    const auto rec =
        hasTable(x, recurring) ? rowOfJob(x, recurring, m.messageId, false) : std::nullopt;
    row.set("recurring", rec ? Json::parse(*rec) : Json());
    return row.dump();
}

std::int64_t applySolidQueue(const ChunkContext& x, Action a, const Message& m) {
    const std::string& id = m.messageId;
    const std::string exec = execIdOf(m);
    const std::string jobs = qualifiedTable(x, kJobs);
    const auto deleteExecution = [&]() {
        return changed(x,
                       "DELETE FROM " + qualifiedTable(x, executionTable(m.statusText)) +
                           " WHERE id = $1::bigint AND job_id = $2::bigint RETURNING id",
                       {exec, id});
    };
    switch (a) {
    case Action::Retry: {
        // FailedExecution#retry: the counters reset, then the job prepared
        // again: due -> ready, otherwise scheduled. (jsonb keeps the keys,
        // not their order, of the arguments it rewrites.)
        if (m.statusText != "failed" || deleteExecution() != 1)
            return 0;
        if (changed(x,
                    "UPDATE " + jobs +
                        " SET arguments = (arguments::jsonb || '{\"executions\": 0, "
                        "\"exception_executions\": {}}'::jsonb)::text, updated_at = "
                        "$2::timestamp WHERE id = $1::bigint AND finished_at IS NULL RETURNING id",
                    {id, pgTime(x.now)}) != 1)
            return 0;
        const bool due = !m.scheduledAt || *m.scheduledAt <= x.now;
        return insertFromJob(x, due ? "ready" : "scheduled", id);
    }
    case Action::Release:
        if (m.statusText == "scheduled")
            // Mission Control's Dispatch: the scheduled execution due now.
            return changed(x,
                           "UPDATE " + qualifiedTable(x, executionTable("scheduled")) +
                               " SET scheduled_at = $3::timestamp WHERE id = $1::bigint AND "
                               "job_id = $2::bigint RETURNING id",
                           {exec, id, pgTime(x.now)});
        // ClaimedExecution#release (a claim) or Dispatch (a blocked job): a
        // ready row, bypassing the concurrency limit as the library does.
        if ((m.statusText != "claimed" && m.statusText != "blocked") || deleteExecution() != 1)
            return 0;
        return insertFromJob(x, "ready", id);
    case Action::Delete:
        // Job#discard: the job row; its execution and recurring-execution
        // rows go with it (ON DELETE CASCADE), never a claimed one (the
        // refusal rule) and none a worker holds (taken above).
        return changed(x,
                       "DELETE FROM " + jobs +
                           " WHERE id = $1::bigint AND finished_at IS NULL RETURNING id",
                       {id});
    case Action::Prune:
        // clear_finished_in_batches: a finished job (its recurring-execution
        // row goes by the cascade).
        return changed(x,
                       "DELETE FROM " + jobs +
                           " WHERE id = $1::bigint AND finished_at IS NOT NULL RETURNING id",
                       {id});
    default:
        throw Unsupported(x.c.display(),
                          std::string(actionName(a)) + " is not offered on Solid Queue");
    }
}

std::int64_t restoreSolidQueue(const ChunkContext& x, const Message& now, const Message& before) {
    const std::string& id = now.messageId;
    if (isExecutionKind(now.statusText) &&
        changed(x,
                "DELETE FROM " + qualifiedTable(x, executionTable(now.statusText)) +
                    " WHERE job_id = $1::bigint RETURNING id",
                {id}) != 1)
        return 0;
    const std::string jobs = qualifiedTable(x, kJobs);
    const std::string written = kSolidQueueWritten;
    if (changed(x,
                "UPDATE " + jobs + " SET (" + written + ") = (SELECT " + written +
                    " FROM json_populate_record(NULL::" + jobs +
                    ", $2::json)) WHERE id = $1::bigint RETURNING id",
                {id, partOf(before, "job")}) != 1)
        return 0;
    if (isExecutionKind(before.statusText))
        insertRow(x, executionTable(before.statusText), partOf(before, "exec"));
    return 1;
}

void reinsertSolidQueue(const ChunkContext& x, const Message& before) {
    insertRow(x, kJobs, partOf(before, "job"));
    if (isExecutionKind(before.statusText))
        insertRow(x, executionTable(before.statusText), partOf(before, "exec"));
    if (const std::string rec = partOf(before, "recurring"); !rec.empty())
        insertRow(x, "solid_queue_recurring_executions", rec);
}

} // namespace lq::core::pg::detail
