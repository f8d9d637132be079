// SPDX-License-Identifier: MIT
// Counts on PostgreSQL (core/pg/counts.h). The state rules are those of the
// SQLite drivers, stated once more in SQL for PostgreSQL's types:
//
// Solid Queue (rails/solid_queue queue_schema.rb: Rails' PostgreSQL adapter
// makes `datetime` a `timestamp(6) without time zone`, in UTC). A finished
// job is DONE; an unfinished one is in the state of the one execution row
// that holds it (ready, claimed = LOCKED, failed, scheduled = SCHEDULED
// until due then READY, blocked = the format's own state); none or several:
// unknown. Stuck: a claim whose process is gone or silent for 5 minutes.
//
// Oban (`oban_job_state`, `timestamp without time zone` in UTC) and River
// (`river_job_state`, `timestamptz`): available is READY once due (else
// SCHEDULED), Oban's scheduled is READY once due, River's stays SCHEDULED
// until its scheduler moves it; executing / running is LOCKED, completed
// DONE, discarded FAILED; retryable, cancelled and Oban's suspended or
// River's pending are the format's own states; any other state is unknown.
// Stuck: running with attempted_at older than the library's rescue age
// (Oban's Lifeline 60 min, River's JobRescuer 1 h).
#include "counts.h"

#include "../error.h"
#include "../timefmt.h"
#include "catalog.h"
#include "connection.h"
#include "list.h"

#include <algorithm>
#include <map>

namespace lq::core::pg {

namespace {

struct JobTable {
    const char* table;
    const char* running;
    bool withTimeZone;       ///< timestamptz (River) or UTC timestamp (Oban)
    bool dueScheduledReady;  ///< Oban: `scheduled` is READY once due
    const char* rescueAfter; ///< the library's stuck age, as an interval
    std::vector<std::string> extras;
};

const JobTable kOban{"oban_jobs", "executing",  false,
                     true,        "60 minutes", {"retryable", "cancelled", "suspended"}};
const JobTable kRiver{"river_job", "running", true,
                      false,       "1 hour",  {"retryable", "cancelled", "pending"}};

/// `$1` (an ISO UTC instant) as the type of the library's time columns.
std::string nowAs(bool withTimeZone) {
    return withTimeZone ? "$1::timestamptz" : "($1::timestamptz AT TIME ZONE 'UTC')";
}

void finish(Counts& c) {
    c.extra["locked_expired"] = c.stuck;
    c.leased = c.locked - c.stuck;
    c.expired = c.stuck;
}

Counts solidQueueCounts(Connection& conn, const Found& f, TimeNs now, const Param& queue) {
    const std::string t = nowAs(false);
    const Executions e = solidQueueExecutions(f);
    const std::string& joins = e.joins;
    const std::string& n = e.held;
    // Unfinished jobs through the finished_at index (or, for one queue,
    // index_solid_queue_jobs_for_filtering), each joined to its executions
    // by their unique job_id indexes; finished ones counted from the index.
    const std::string inQueue = "($2::text IS NULL OR queue_name = $2::text)";
    const std::string sql =
        "WITH u AS (SELECT " + n +
        " AS n, r.id IS NOT NULL AS is_r, c.id IS NOT NULL AS is_c, f.id IS NOT NULL AS is_f, "
        "s.id IS NOT NULL AS is_s, s.scheduled_at AS due, c.process_id, p.id AS p, "
        "p.last_heartbeat_at AS hb FROM " +
        qualified(f, "solid_queue_jobs") + " jb" + joins + " LEFT JOIN " +
        qualified(f, "solid_queue_processes") +
        " p ON p.id = c.process_id WHERE jb.finished_at IS NULL AND (jb.queue_name = $2::text "
        "OR $2::text IS NULL)) SELECT (SELECT count(*) FROM " +
        qualified(f, "solid_queue_jobs") + " WHERE finished_at IS NOT NULL AND " + inQueue +
        "), count(*), count(*) FILTER (WHERE n = 1 AND (is_r OR (is_s AND (due IS NULL OR due "
        "<= " +
        t + ")))), count(*) FILTER (WHERE n = 1 AND is_s AND due > " + t +
        "), count(*) FILTER (WHERE n = 1 AND is_c), count(*) FILTER (WHERE n = 1 AND is_c AND "
        "(process_id IS NULL OR p IS NULL OR hb <= " +
        t +
        " - interval '5 minutes')), count(*) FILTER (WHERE n = 1 AND is_f), count(*) FILTER "
        "(WHERE n = 1 AND NOT (is_r OR is_c OR is_f OR is_s)), count(*) FILTER (WHERE n <> 1) "
        "FROM u";
    const Result r = conn.exec(sql, {timestampText(now), queue});
    Counts c;
    c.done = r.int64(0, 0);
    c.stored = c.done + r.int64(0, 1);
    c.ready = r.int64(0, 2);
    c.scheduled = r.int64(0, 3);
    c.locked = r.int64(0, 4);
    c.stuck = r.int64(0, 5);
    c.failed = r.int64(0, 6);
    c.extra["blocked"] = r.int64(0, 7);
    c.unknown = r.int64(0, 8);
    finish(c);
    return c;
}

Counts jobTableCounts(Connection& conn, const Found& f, const JobTable& j, TimeNs now,
                      const Param& queue) {
    const std::string t = nowAs(j.withTimeZone);
    // One pass grouped by state: the library's (state, queue, priority,
    // scheduled_at, id) index holds every column but attempted_at.
    const Result r =
        conn.exec("SELECT state::text, count(*), count(*) FILTER (WHERE scheduled_at IS NULL OR "
                  "scheduled_at <= " +
                      t + "), count(*) FILTER (WHERE attempted_at < " + t + " - interval '" +
                      j.rescueAfter + "') FROM " + qualified(f, j.table) +
                      " WHERE ($2::text IS NULL OR queue = $2::text) GROUP BY state",
                  {timestampText(now), queue});
    Counts c;
    for (const auto& x : j.extras)
        c.extra[x] = 0;
    for (int i = 0; i < r.rows(); ++i) {
        const std::string state = r.text(i, 0);
        const std::int64_t rows = r.int64(i, 1);
        const std::int64_t due = r.int64(i, 2);
        c.stored += rows;
        if (state == "available" || (state == "scheduled" && j.dueScheduledReady)) {
            c.ready += due;
            c.scheduled += rows - due;
        } else if (state == "scheduled") {
            c.scheduled += rows;
        } else if (state == j.running) {
            c.locked += rows;
            c.stuck += r.int64(i, 3);
        } else if (state == "completed") {
            c.done += rows;
        } else if (state == "discarded") {
            c.failed += rows;
        } else if (std::find(j.extras.begin(), j.extras.end(), state) != j.extras.end()) {
            c.extra[state] += rows;
        } else {
            c.unknown += rows;
        }
    }
    finish(c);
    return c;
}

/// The first column of `r`, sorted by bytes as on SQLite, whatever the
/// database's collation.
std::vector<std::string> sortedTexts(const Result& r) {
    std::vector<std::string> out;
    out.reserve(static_cast<std::size_t>(r.rows()));
    for (int i = 0; i < r.rows(); ++i)
        out.push_back(r.text(i, 0));
    std::sort(out.begin(), out.end());
    return out;
}

/// The sorted distinct values of `column` of `table`: a skip scan, one
/// index probe per value where an index leads with the column.
std::vector<std::string> distinctValues(Connection& conn, const Found& f, const char* table,
                                        const char* column) {
    const std::string t = qualified(f, table);
    const std::string col = quoteIdent(column);
    const Result r =
        conn.exec("WITH RECURSIVE q(v) AS ((SELECT " + col + " FROM " + t + " WHERE " + col +
                  " IS NOT NULL ORDER BY 1 LIMIT 1) UNION ALL "
                  "SELECT (SELECT x." +
                  col + " FROM " + t + " x WHERE x." + col + " > q.v ORDER BY 1 " +
                  "LIMIT 1) FROM q WHERE q.v IS NOT NULL) SELECT v FROM q WHERE v "
                  "IS NOT NULL");
    return sortedTexts(r);
}

} // namespace

std::string qualified(const Found& f, const char* table) {
    return quoteIdent(f.schema) + "." + quoteIdent(table);
}

Executions solidQueueExecutions(const Found& f) {
    Executions e;
    e.blocked = std::find(f.tables.begin(), f.tables.end(), "solid_queue_blocked_executions") !=
                f.tables.end();
    for (const auto& [table, alias] :
         {std::pair<const char*, const char*>{"solid_queue_ready_executions", "r"},
          {"solid_queue_claimed_executions", "c"},
          {"solid_queue_failed_executions", "f"},
          {"solid_queue_scheduled_executions", "s"},
          {"solid_queue_blocked_executions", "b"}}) {
        if (std::string_view(alias) == "b" && !e.blocked)
            continue;
        e.joins += " LEFT JOIN " + qualified(f, table) + " " + alias + " ON " + alias +
                   ".job_id = jb.id AND jb.finished_at IS NULL";
        e.held += std::string(e.held.empty() ? "" : " + ") + "(" + alias + ".id IS NOT NULL)::int";
        e.ids += std::string(e.ids.empty() ? "" : ", ") + alias + ".id";
    }
    return e;
}

bool countsSupported(const std::string& library) {
    return library == "solid-queue" || library == "oban" || library == "river" ||
           library == "graphile-worker" || library == "good-job" || library == "pg-boss";
}

std::string stateModelFormatId(const std::string& library) {
    if (library == "solid-queue")
        return "solid-queue";
    if (library == "oban")
        return "oban-lite"; // the same states as Oban Lite's
    if (library == "river")
        return "river-sqlite"; // the same states as riversqlite's
    if (library == "graphile-worker" || library == "good-job" || library == "pg-boss")
        return library; // PostgreSQL only: core/formats/pgonly.h
    return {};
}

Counts readCounts(Connection& c, const Found& f, TimeNs now, const std::string& queue) {
    const Param q = queue.empty() ? Param() : Param(queue);
    if (f.library == "solid-queue")
        return solidQueueCounts(c, f, now, q);
    if (f.library == "oban")
        return jobTableCounts(c, f, kOban, now, q);
    if (f.library == "river")
        return jobTableCounts(c, f, kRiver, now, q);
    if (f.library == "graphile-worker" || f.library == "good-job" || f.library == "pg-boss")
        return countByState(c, f, now, queue);
    throw Unsupported(c.display(),
                      "counts of " + libraryName(f.library) + " on PostgreSQL: not yet (issue 41)");
}

std::vector<std::string> readQueueNames(Connection& c, const Found& f) {
    if (f.library == "solid-queue")
        return distinctValues(c, f, "solid_queue_jobs", "queue_name");
    if (f.library == "oban")
        return distinctValues(c, f, "oban_jobs", "queue");
    if (f.library == "river")
        return distinctValues(c, f, "river_job", "queue");
    if (f.library == "good-job")
        return distinctValues(c, f, "good_jobs", "queue_name");
    if (f.library == "pg-boss")
        return distinctValues(c, f, "job", "name");
    if (f.library == "graphile-worker") {
        // The queues jobs are in (a queue row outlives its last job).
        const bool priv =
            std::find(f.tables.begin(), f.tables.end(), "_private_jobs") != f.tables.end();
        const std::string p = priv ? "_private_" : "";
        const Result r =
            c.exec("SELECT DISTINCT q.queue_name FROM " + qualified(f, (p + "job_queues").c_str()) +
                   " q JOIN " + qualified(f, (p + "jobs").c_str()) + " j ON j.job_queue_id = q.id");
        return sortedTexts(r);
    }
    throw Unsupported(c.display(),
                      "queues of " + libraryName(f.library) + " on PostgreSQL: not yet (issue 41)");
}

std::string timestampText(TimeNs t) {
    const std::string iso = isoUtc(t); // "YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ"
    return iso.substr(0, 26) + "Z";
}

} // namespace lq::core::pg
