// SPDX-License-Identifier: MIT
// Listing jobs on PostgreSQL (core/pg/list.h). Each library's jobs become
// one derived table of the same columns, its times as integer nanoseconds
// and its state and extra state computed by the rules of the SQLite driver
// (and of core/pg/counts.cpp), at the instant $1:
//
//   id, queue, job, data, priority, attempt, max_attempts, created_ns,
//   scheduled_ns, wait_from_ns, lock_ns, done_ns, lease_ns, error_text,
//   errors_json, status_text, state, extra, claim_key, idem_key
//
// A filter is a WHERE over those columns and a sort an ORDER BY, with
// SQLite's order of NULLs (first when ascending), so both engines list the
// same jobs in the same order.
#include "list.h"

#include "../error.h"
#include "../formats/driver.h"
#include "../formats/jobtable.h"
#include "../json.h"
#include "../timefmt.h"
#include "catalog.h"
#include "connection.h"
#include "counts.h"
#include "filtersql.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace lq::core::pg {

std::string ns(const std::string& col) {
    return "(extract(epoch FROM " + col + ") * 1000000000)::bigint";
}

namespace {

constexpr const char* kColumns =
    "id, queue, job, data, priority, attempt, max_attempts, created_ns, scheduled_ns, "
    "wait_from_ns, lock_ns, done_ns, lease_ns, error_text, errors_json, status_text, state, extra, "
    "claim_key, idem_key";
/// kColumns and the key as stored (text, or the UUID).
const std::string kSelect = std::string(kColumns) + ", uid";

/// The 60-bit integer id of a UUID column, in SQL (see uuidRowidOf()).
std::string uuidRowid(const std::string& col) {
    return "('x0' || substr(replace(" + col + "::text, '-', ''), 1, 15))::bit(64)::bigint";
}

/// The UUIDs whose integer id is `rowid`, as an inclusive range.
std::pair<std::string, std::string> uuidRange(std::int64_t rowid) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string prefix(15, '0');
    for (int i = 14; i >= 0; --i, rowid >>= 4)
        prefix[static_cast<std::size_t>(i)] = kHex[rowid & 0xf];
    const auto dashed = [](const std::string& h) {
        return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" +
               h.substr(16, 4) + "-" + h.substr(20);
    };
    return {dashed(prefix + std::string(17, '0')), dashed(prefix + std::string(17, 'f'))};
}

/// Whether `library` keys its jobs by UUID.
bool uuidKeyed(const std::string& library) {
    return library == "good-job" || library == "pg-boss";
}

/// Solid Queue: the job's state is the one execution row that holds it
/// (solidqueue_sql.cpp); a claim is abandoned when its process is gone or
/// silent for five minutes (kAliveThreshold).
std::string solidQueueSource(const Found& f) {
    const Executions e = solidQueueExecutions(f);
    const bool blocked = e.blocked;
    const std::string& joins = e.joins;
    const std::string& n = e.held;
    const std::string blockedExpires = blocked ? ns("b.expires_at") : "NULL::bigint";
    const std::string inner =
        "SELECT jb.id, jb.queue_name AS queue, jb.class_name AS job, jb.arguments AS data, "
        "jb.priority::bigint AS priority, NULL::bigint AS attempt, NULL::bigint AS max_attempts, " +
        ns("jb.created_at") + " AS created_ns, " + ns("jb.scheduled_at") + " AS sched_ns, " +
        ns("s.scheduled_at") + " AS due_ns, " + ns("c.created_at") + " AS claim_ns, " +
        ns("p.last_heartbeat_at") + " AS hb_ns, (c.process_id IS NOT NULL AND p.id IS NOT NULL) " +
        "AS has_process, " + blockedExpires + " AS blocked_ns, CASE WHEN jb.finished_at IS NOT " +
        "NULL THEN " + ns("jb.finished_at") + " WHEN f.id IS NOT NULL THEN " + ns("f.created_at") +
        " END AS done_ns, f.error AS error_text, coalesce(" + e.ids +
        ") AS claim_key, CASE WHEN jb.finished_at IS NOT NULL THEN " + "'finished' WHEN " + n +
        " <> 1 THEN 'inconsistent' WHEN r.id IS NOT NULL THEN 'ready' " +
        "WHEN c.id IS NOT NULL THEN 'claimed' WHEN f.id IS NOT NULL THEN 'failed' WHEN s.id IS " +
        "NOT NULL THEN 'scheduled' ELSE 'blocked' END AS kind FROM " +
        qualified(f, "solid_queue_jobs") + " jb" + joins + " LEFT JOIN " +
        qualified(f, "solid_queue_processes") + " p ON p.id = c.process_id";
    const std::string lease = "CASE WHEN kind = 'claimed' AND has_process AND hb_ns IS NOT NULL "
                              "THEN hb_ns + 300000000000 WHEN kind = 'blocked' THEN blocked_ns END";
    const std::string mid =
        "SELECT id, queue, job, data, priority, attempt, max_attempts, created_ns, CASE WHEN kind "
        "= 'scheduled' THEN due_ns ELSE sched_ns END AS scheduled_ns, sched_ns AS wait_from_ns, "
        "CASE WHEN kind = 'claimed' THEN claim_ns END AS lock_ns, done_ns, " +
        lease + " AS lease_ns, error_text, NULL::text AS errors_json, kind AS status_text, " +
        "has_process, claim_key, NULL::text AS idem_key FROM (" + inner + ") x";
    return "SELECT " + std::string(kColumns) +
           ", id::text AS uid FROM (SELECT *, CASE status_text WHEN 'finished' THEN 'DONE' WHEN "
           "'ready' THEN "
           "'READY' WHEN 'scheduled' THEN CASE WHEN scheduled_ns > $1::bigint THEN 'SCHEDULED' "
           "ELSE 'READY' END WHEN 'claimed' THEN 'LOCKED' WHEN 'failed' THEN 'FAILED' ELSE "
           "'UNKNOWN' END AS state, CASE WHEN status_text = 'blocked' THEN 'blocked' WHEN "
           "status_text = 'claimed' AND (NOT has_process OR lease_ns <= $1::bigint) THEN "
           "'locked_expired' ELSE '' END AS extra FROM (" +
           mid + ") y) z";
}

struct JobTable {
    const char* table;
    const char* meta;       ///< the job's metadata column (jsonb)
    const char* kind;       ///< the job's name column
    const char* created;    ///< the enqueue time column
    const char* finish;     ///< coalesce of the finish columns, in the driver's order
    const char* running;    ///< the claimed state
    bool dueScheduledReady; ///< Oban: `scheduled` is READY once due
    const char* rescueNs;   ///< the library's rescue age (Lifeline, JobRescuer)
    const char* extras;     ///< the library's own states, as an SQL list
};

const JobTable kOban{"oban_jobs",
                     "meta",
                     "worker",
                     "inserted_at",
                     "coalesce(completed_at, discarded_at, cancelled_at)",
                     "executing",
                     true,
                     "3600000000000",
                     "'retryable', 'cancelled', 'suspended'"};
const JobTable kRiver{"river_job",
                      "metadata",
                      "kind",
                      "created_at",
                      "finalized_at",
                      "running",
                      false,
                      "3600000000000",
                      "'retryable', 'cancelled', "
                      "'pending'"};

/// Oban and River (jobtable.cpp's classify()).
std::string jobTableSource(const Found& f, const JobTable& j) {
    const std::string inner =
        std::string("SELECT id, queue, ") + quoteIdent(j.kind) + " AS job, args::text AS data, " +
        "priority::bigint AS priority, attempt::bigint AS attempt, max_attempts::bigint AS " +
        "max_attempts, " + ns(quoteIdent(j.created)) + " AS created_ns, " + ns("scheduled_at") +
        " AS scheduled_ns, " + ns("attempted_at") + " AS lock_ns, " + ns(j.finish) +
        " AS done_ns, array_to_json(errors)::text AS errors_json, state::text AS status_text, " +
        quoteIdent(j.meta) + "::text AS meta_json FROM " + qualified(f, j.table);
    const std::string due = "(scheduled_ns IS NULL OR scheduled_ns <= $1::bigint)";
    const std::string running = std::string("'") + j.running + "'";
    return "SELECT id, queue, job, data, priority, attempt, max_attempts, created_ns, "
           "scheduled_ns, scheduled_ns AS wait_from_ns, lock_ns, done_ns, NULL::bigint AS "
           "lease_ns, NULL::text AS error_text, errors_json, status_text, CASE WHEN status_text "
           "= 'available' THEN CASE WHEN " +
           due + " THEN 'READY' ELSE 'SCHEDULED' END WHEN status_text = 'scheduled' THEN " +
           (j.dueScheduledReady ? "CASE WHEN " + due + " THEN 'READY' ELSE 'SCHEDULED' END"
                                : std::string("'SCHEDULED'")) +
           " WHEN status_text = " + running +
           " THEN 'LOCKED' WHEN status_text = 'completed' THEN 'DONE' WHEN status_text = "
           "'discarded' THEN 'FAILED' ELSE 'UNKNOWN' END AS state, CASE WHEN status_text = " +
           running + " AND lock_ns < $1::bigint - " + j.rescueNs +
           " THEN 'locked_expired' WHEN status_text IN (" + j.extras +
           ") THEN status_text ELSE '' END AS extra, attempt AS claim_key, NULL::text AS idem_key, "
           "id::text AS uid, meta_json FROM (" +
           inner + ") x";
}

/// Graphile Worker (core/formats/graphileworker.cpp): its job, task and
/// queue tables (_private_* since 0.16, before that without the prefix).
/// Completed jobs are deleted; a lock lapses after 4 hours.
std::string graphileSource(const Found& f) {
    const bool priv =
        std::find(f.tables.begin(), f.tables.end(), "_private_jobs") != f.tables.end();
    const std::string p = priv ? "_private_" : "";
    const std::string jobs = qualified(f, (p + "jobs").c_str());
    const std::string tasks = qualified(f, (p + "tasks").c_str());
    const std::string queues = qualified(f, (p + "job_queues").c_str());
    const std::string inner =
        "SELECT j.id, q.queue_name AS queue, t.identifier AS job, j.payload::text AS data, "
        "j.priority::bigint AS priority, j.attempts::bigint AS attempt, j.max_attempts::bigint "
        "AS max_attempts, " +
        ns("j.created_at") + " AS created_ns, " + ns("j.run_at") + " AS scheduled_ns, " +
        ns("j.locked_at") + " AS lock_ns, j.last_error AS error_text, j.revision::bigint AS " +
        "claim_key, j.key AS idem_key FROM " + jobs + " j JOIN " + tasks +
        " t ON t.id = j.task_id LEFT JOIN " + queues + " q ON q.id = j.job_queue_id";
    return "SELECT id, queue, job, data, priority, attempt, max_attempts, created_ns, "
           "scheduled_ns, scheduled_ns AS wait_from_ns, lock_ns, NULL::bigint AS done_ns, "
           "lock_ns + 14400000000000 AS lease_ns, error_text, NULL::text AS errors_json, CASE "
           "WHEN lock_ns IS NOT NULL THEN 'locked' WHEN attempt >= max_attempts THEN "
           "'permanently failed' WHEN scheduled_ns > $1::bigint THEN 'waiting for run_at' "
           "ELSE 'available' END AS status_text, CASE WHEN lock_ns IS NOT NULL THEN 'LOCKED' "
           "WHEN attempt >= max_attempts THEN 'FAILED' WHEN scheduled_ns > $1::bigint THEN "
           "'SCHEDULED' ELSE 'READY' END AS state, CASE WHEN lock_ns + 14400000000000 <= "
           "$1::bigint THEN 'locked_expired' ELSE '' END AS extra, claim_key, idem_key, id::text "
           "AS uid "
           "FROM (" +
           inner + ") x";
}

/// GoodJob (core/formats/pgonly.h): GoodJob::Reportable#status, the
/// times as UTC `timestamp`. A running job is held while a session holds
/// the advisory lock GoodJob takes on 'good_jobs-<id>' (its
/// advisory_lock_bigint_sql, md5 by default; the key's halves are
/// pg_locks' classid and objid); the lock is only looked up for running
/// jobs.

/// GoodJob::Process.active, in SQL, for process row `p`: it holds its
/// advisory lock, or (GoodJob 4, no lock type) was updated within 5
/// minutes of $1.
std::string goodJobProcessActive(const Found& f, const std::string& p) {
    std::string active = advisoryHeld("'good_job_processes-' || " + p + ".id::text");
    if (f.hasColumn("good_job_processes.lock_type"))
        active += " OR (" + p + ".lock_type IS NULL AND " + ns(p + ".updated_at") +
                  " > $1::bigint - 300000000000)";
    return "(" + active + ")";
}

std::string goodJobSource(const Found& f) {
    std::string held = advisoryHeld("'good_jobs-' || j.id::text");
    // GoodJob 4's skiplocked and hybrid strategies: the job names its
    // process, which holds it while active.
    if (f.hasColumn("good_jobs.locked_by_id"))
        held += " OR EXISTS (SELECT 1 FROM " + qualified(f, "good_job_processes") +
                " gp WHERE gp.id = j.locked_by_id AND " + goodJobProcessActive(f, "gp") + ")";
    const std::string inner =
        "SELECT " + uuidRowid("j.id") + " AS id, j.id AS uid, j.queue_name AS queue, " +
        "coalesce(j.job_class, j.serialized_params->>'job_class') AS job, " +
        "j.serialized_params::text AS data, j.priority::bigint AS priority, " +
        "j.executions_count::bigint AS attempt, " + ns("j.created_at") + " AS created_ns, " +
        ns("coalesce(j.scheduled_at, j.created_at)") + " AS scheduled_ns, " + ns("j.performed_at") +
        " AS lock_ns, " + ns("j.finished_at") + " AS done_ns, " +
        "nullif(j.error, '') AS error_text, CASE WHEN j.performed_at IS NOT NULL AND " +
        "j.finished_at IS NULL THEN (" + held + ") END AS held FROM " + qualified(f, "good_jobs") +
        " j";
    return "SELECT id, queue, job, data, priority, attempt, NULL::bigint AS max_attempts, "
           "created_ns, scheduled_ns, scheduled_ns AS wait_from_ns, lock_ns, done_ns, NULL::bigint "
           "AS lease_ns, error_text, NULL::text AS errors_json, status_text, CASE status_text "
           "WHEN 'succeeded' THEN 'DONE' WHEN 'discarded' THEN 'FAILED' WHEN 'running' THEN "
           "'LOCKED' WHEN 'queued' THEN 'READY' ELSE 'SCHEDULED' END AS state, CASE WHEN "
           "status_text = 'running' AND NOT held THEN 'locked_expired' WHEN status_text = "
           "'retried' THEN 'retried' ELSE '' END AS extra, attempt AS claim_key, NULL::text AS "
           "idem_key, uid FROM (SELECT *, CASE WHEN done_ns IS NOT NULL THEN CASE WHEN error_text "
           "IS NOT NULL THEN 'discarded' ELSE 'succeeded' END WHEN lock_ns IS NOT NULL THEN "
           "'running' WHEN scheduled_ns <= $1::bigint THEN 'queued' WHEN error_text IS NOT NULL "
           "THEN 'retried' ELSE 'scheduled' END AS status_text FROM (" +
           inner + ") x) y";
}

/// pg-boss (core/formats/pgonly.h): its `job` table; a failed job's error
/// is the `output` failJobs wrote: an Error's {"message", "stack"}, any
/// other value as {"value": …} ({"value": {"message": "job timed out"}}
/// from its maintenance).
std::string pgBossSource(const Found& f) {
    const std::string inner =
        "SELECT " + uuidRowid("j.id") + " AS id, j.id AS uid, j.name AS queue, " +
        "j.data::text AS data, j.priority::bigint AS priority, j.retry_count::bigint AS attempt, " +
        "j.retry_limit::bigint AS max_attempts, " + ns("j.created_on") + " AS created_ns, " +
        ns("j.start_after") + " AS scheduled_ns, " + ns("j.started_on") + " AS lock_ns, " +
        ns("j.completed_on") + " AS done_ns, " +
        ns("j.started_on + j.expire_seconds * interval '1 second'") + " AS expire_ns, " +
        "CASE WHEN j.state IN ('failed', 'retry') THEN coalesce(j.output->>'message', " +
        "j.output->'value'->>'message', j.output->>'value', j.output::text) END AS error_text, "
        "j.state::text AS " +
        "status_text, j.singleton_key AS idem_key FROM " + qualified(f, "job") + " j";
    return "SELECT id, queue, NULL::text AS job, data, priority, attempt, max_attempts, "
           "created_ns, scheduled_ns, scheduled_ns AS wait_from_ns, lock_ns, done_ns, CASE WHEN "
           "status_text = 'active' THEN expire_ns END AS lease_ns, error_text, NULL::text AS "
           "errors_json, status_text, CASE WHEN status_text IN ('created', 'retry') THEN CASE "
           "WHEN scheduled_ns <= $1::bigint THEN 'READY' ELSE 'SCHEDULED' END WHEN status_text = "
           "'active' THEN 'LOCKED' WHEN status_text = 'completed' THEN 'DONE' WHEN status_text = "
           "'failed' THEN 'FAILED' ELSE 'UNKNOWN' END AS state, CASE WHEN status_text = 'active' "
           "AND expire_ns < $1::bigint THEN 'locked_expired' WHEN status_text IN ('retry', "
           "'cancelled') THEN status_text ELSE '' END AS extra, attempt AS claim_key, idem_key, "
           "uid "
           "FROM (" +
           inner + ") x";
}

std::string source(Connection& c, const Found& f) {
    if (f.library == "solid-queue")
        return solidQueueSource(f);
    if (f.library == "oban")
        return jobTableSource(f, kOban);
    if (f.library == "river")
        return jobTableSource(f, kRiver);
    if (f.library == "graphile-worker")
        return graphileSource(f);
    if (f.library == "good-job")
        return goodJobSource(f);
    if (f.library == "pg-boss")
        return pgBossSource(f);
    throw Unsupported(c.display(), "the jobs of " + libraryName(f.library) +
                                       " on PostgreSQL: not yet (issue 41)");
}

/// A WHERE clause (" WHERE ...", or "") for `f`, its parameters appended
/// to `params` ($1 is the instant).
std::string whereOf(Connection& c, const Found& lib, const Filter& f, TimeNs now,
                    std::vector<Param>& params) {
    const ParamOf param = [&](std::string v) {
        params.emplace_back(std::move(v));
        return "$" + std::to_string(params.size());
    };
    std::vector<std::string> parts;
    if (!f.states.empty() || !f.extraStates.empty()) {
        std::string any;
        for (State s : f.states) {
            any += (any.empty() ? "" : " OR ") + ("state = " + param(stateName(s)));
            // As on SQLite: Solid Queue's UNKNOWN is an inconsistent job,
            // not a blocked one (that has a chip of its own).
            if (s == State::Unknown)
                any += " AND status_text <> 'blocked'";
        }
        for (const auto& x : f.extraStates)
            any += (any.empty() ? "" : " OR ") + ("extra = " + param(x));
        parts.push_back("(" + any + ")");
    }
    if (f.stuckOnly)
        parts.emplace_back("extra = 'locked_expired'");
    if (!f.queue.empty())
        parts.push_back("queue = " + param(f.queue));
    if (!f.search.empty())
        // The SQLite drivers' search columns: Oban's and River's
        // (JobTableDriver::searchColumns) include the queue.
        parts.push_back(std::string("strpos(lower(concat_ws(chr(31), uid, job, data, error_text, "
                                    "idem_key, errors_json") +
                        (lib.library == "oban" || lib.library == "river" ? ", queue" : "") +
                        ")), lower(" + param(f.search) + ")) > 0");
    const TimeNs t = f.now.value_or(now);
    if (f.olderThan)
        parts.push_back("created_ns < " + param(std::to_string(t - f.olderThan->count())) +
                        "::bigint");
    if (f.inTimeFrom)
        parts.push_back("created_ns >= " + param(std::to_string(*f.inTimeFrom)) + "::bigint");
    if (f.inTimeTo)
        parts.push_back("created_ns < " + param(std::to_string(*f.inTimeTo)) + "::bigint");
    // Prune's horizons, as on SQLite: finished before the cutoff; no
    // library here stores an expiry of its own.
    if (f.doneBefore)
        parts.push_back("done_ns < " + param(std::to_string(*f.doneBefore)) + "::bigint");
    if (f.expiredAt)
        parts.emplace_back("false");
    if (!f.where.empty())
        parts.push_back(jsonWhere(c.display(), lib.library, f.where, param));
    if (f.metric != Filter::Metric::None)
        parts.push_back(metricWhere(f, param));
    std::string out;
    for (const auto& p : parts)
        out += (out.empty() ? " WHERE " : " AND ") + p;
    return out;
}

/// " ORDER BY ..." with SQLite's NULL order and ties by id. Arrival is
/// the id where ids count up, else the enqueue time.
std::string orderOf(const Found& lib, const Sort& s) {
    bool desc = s.descending;
    std::string key;
    switch (s.key) {
    case SortKey::Arrival:
        key = uuidKeyed(lib.library) ? "created_ns" : "id";
        break;
    case SortKey::InTime:
        key = "created_ns";
        break;
    case SortKey::Age:
        desc = !desc;
        key = "created_ns";
        break;
    case SortKey::LockTime:
        key = "lock_ns";
        break;
    case SortKey::Wait:
        key = "lock_ns - wait_from_ns";
        break;
    case SortKey::DoneTime:
    case SortKey::Processing: // as on SQLite: by the finish time
        key = "done_ns";
        break;
    case SortKey::Claim:
        key = "claim_key";
        break;
    case SortKey::Status:
        key = "status_text";
        break;
    }
    // An id is never NULL: ordered by it alone, as the primary key's index
    // is (a NULLS clause the index does not have would make the server sort
    // every job for the first page).
    if (key == "id")
        return std::string(" ORDER BY id") + (desc ? " DESC" : " ASC");
    const std::string dir = desc ? " DESC NULLS LAST" : " ASC NULLS FIRST";
    return " ORDER BY " + key + dir + ", id" + (desc ? " DESC" : " ASC");
}

std::optional<std::int64_t> optInt(const Result& r, int row, int col) {
    if (r.isNull(row, col))
        return std::nullopt;
    return r.int64(row, col);
}

Message readMessage(const Result& r, int i) {
    Message m;
    m.rowid = r.int64(i, 0);
    m.messageId = r.text(i, 0);
    m.queueName = r.optText(i, 1);
    m.jobName = r.optText(i, 2);
    m.data = r.text(i, 3);
    m.priority = optInt(r, i, 4);
    if (const auto a = optInt(r, i, 5)) {
        m.attempts = *a;
    } else {
        // Solid Queue: Active Job's own count in the arguments, as on SQLite.
        try {
            const Json args = Json::parse(m.data);
            if (args.isObject() && args["executions"].isNumber())
                m.attempts = args["executions"].toInt();
        } catch (const std::exception&) {
            // arguments that are not JSON: no count, as on SQLite
        }
    }
    m.maxAttempts = optInt(r, i, 6);
    m.inTime = optInt(r, i, 7);
    m.scheduledAt = optInt(r, i, 8);
    m.waitFrom = optInt(r, i, 9);
    m.lockTime = optInt(r, i, 10);
    m.doneTime = optInt(r, i, 11);
    m.leaseExpiry = optInt(r, i, 12);
    m.lastError = r.optText(i, 13);
    if (const auto errors = r.optText(i, 14)) {
        try {
            m.lastError = jobErrorText(*errors);
        } catch (const std::exception& e) {
            m.lastError = std::string("errors column unreadable (") + e.what() + ")";
        }
    }
    m.rawStatus = -1; // a text state
    m.statusText = r.text(i, 15);
    m.state = parseState(r.text(i, 16)).value_or(State::Unknown);
    m.extraState = r.text(i, 17);
    // The claim as this engine reads it: what a PostgreSQL action will
    // compare (Oban, River, GoodJob, pg-boss and Graphile Worker: state,
    // attempt, claim time and due time; Solid Queue: the execution row that
    // holds the job). The due time is there because a retry that fails
    // for good again can bring back the other three (Graphile Worker:
    // reschedule_jobs sets attempts 0, the next failure makes them what
    // they were), and each failure moves run_at.
    std::string token = m.statusText;
    if (!r.isNull(i, 5))
        token += ", attempt " + std::to_string(m.attempts) + ", " +
                 (m.lockTime ? isoUtc(*m.lockTime) : std::string("no claim time")) + ", due " +
                 (m.scheduledAt ? isoUtc(*m.scheduledAt) : std::string("-"));
    else if (!r.isNull(i, 18))
        token += " execution " + r.text(i, 18);
    m.tokenText = token;
    m.token = textTokenHash(token);
    m.idempotencyKey = r.optText(i, 19);
    m.messageId = r.text(i, 20);
    return m;
}

std::string limitOf(std::optional<std::int64_t> limit) {
    return limit ? " LIMIT " + std::to_string(std::max<std::int64_t>(0, *limit)) : std::string();
}

} // namespace

bool listSupported(const std::string& library) {
    return library == "solid-queue" || library == "oban" || library == "river" ||
           library == "graphile-worker" || uuidKeyed(library);
}

std::optional<std::int64_t> uuidRowidOf(const std::string& uuid) {
    std::string hex;
    for (char ch : uuid)
        if (ch != '-')
            hex += ch;
    if (uuid.size() != 36 || hex.size() != 32 ||
        hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
        return std::nullopt;
    return std::stoll(hex.substr(0, 15), nullptr, 16);
}

bool keyedByUuid(const std::string& library) {
    return uuidKeyed(library);
}

std::string goodJobLockKey(const std::string& keyText) {
    return "('x' || substr(md5(" + keyText + "), 1, 16))::bit(64)";
}

std::string advisoryHeld(const std::string& keyText) {
    const std::string key = goodJobLockKey(keyText);
    return "EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.objsubid = 1 "
           "AND l.granted AND l.classid = substring(" +
           key + " FROM 1 FOR 32)::bit(32)::int AND l.objid = substring(" + key +
           " FROM 33 FOR 32)::bit(32)::int)";
}

Counts countByState(Connection& c, const Found& lib, TimeNs now, const std::string& queue) {
    const Result r =
        c.exec("SELECT state, extra, count(*) FROM (" + source(c, lib) +
                   ") j WHERE $2::text IS NULL OR queue = $2::text GROUP BY state, extra",
               {std::to_string(now), queue.empty() ? Param() : Param(queue)});
    Counts out;
    for (int i = 0; i < r.rows(); ++i) {
        const std::int64_t n = r.int64(i, 2);
        const std::string extra = r.text(i, 1);
        out.stored += n;
        // The format's own states inside a canonical one (GoodJob's
        // retried, pg-boss's retry) are counted apart too.
        if (!extra.empty() && extra != "locked_expired")
            out.extra[extra] += n;
        switch (parseState(r.text(i, 0)).value_or(State::Unknown)) {
        case State::Ready:
            out.ready += n;
            break;
        case State::Scheduled:
            out.scheduled += n;
            break;
        case State::Locked:
            out.locked += n;
            if (extra == "locked_expired")
                out.stuck += n;
            break;
        case State::Done:
            out.done += n;
            break;
        case State::Failed:
            out.failed += n;
            break;
        default:
            if (extra.empty())
                out.unknown += n;
        }
    }
    out.extra["locked_expired"] = out.stuck;
    out.leased = out.locked - out.stuck;
    out.expired = out.stuck;
    return out;
}

std::vector<std::int64_t> orderedIds(Connection& c, const Found& lib, const Filter& f,
                                     const Sort& s, TimeNs now, std::optional<std::int64_t> limit) {
    std::vector<Param> params{std::to_string(f.now.value_or(now))};
    const std::string src = source(c, lib);
    const std::string where = whereOf(c, lib, f, now, params);
    const Result r =
        c.exec("SELECT id FROM (" + src + ") j" + where + orderOf(lib, s) + limitOf(limit), params);
    std::vector<std::int64_t> out;
    out.reserve(static_cast<std::size_t>(r.rows()));
    for (int i = 0; i < r.rows(); ++i)
        out.push_back(r.int64(i, 0));
    return out;
}

std::vector<Message> readJobs(Connection& c, const Found& lib, const std::vector<std::int64_t>& ids,
                              TimeNs now) {
    if (ids.empty())
        return {};
    std::string array = "{";
    for (std::size_t i = 0; i < ids.size(); ++i)
        array += (i ? "," : "") + std::to_string(ids[i]);
    array += "}";
    // A UUID's integer id is found through the primary key's index: each
    // id is a range of UUIDs.
    std::string ranges;
    if (uuidKeyed(lib.library))
        for (std::int64_t id : ids) {
            const auto [lo, hi] = uuidRange(id);
            ranges += ranges.empty() ? " AND (" : " OR ";
            ranges.append("uid BETWEEN '").append(lo).append("'::uuid AND '");
            ranges.append(hi).append("'::uuid");
        }
    if (!ranges.empty())
        ranges += ")";
    const Result r = c.exec("SELECT " + kSelect + " FROM (" + source(c, lib) +
                                ") j WHERE id = ANY($2::bigint[])" + ranges,
                            {std::to_string(now), array});
    std::unordered_map<std::int64_t, Message> byId;
    for (int i = 0; i < r.rows(); ++i) {
        Message m = readMessage(r, i);
        const std::int64_t id = m.rowid;
        byId.emplace(id, std::move(m));
    }
    std::vector<Message> out;
    out.reserve(byId.size());
    for (std::int64_t id : ids)
        if (auto it = byId.find(id); it != byId.end())
            out.push_back(it->second);
    return out;
}

std::vector<Message> firstJobs(Connection& c, const Found& lib, const Filter& f, const Sort& s,
                               TimeNs now, std::int64_t limit, std::int64_t offset) {
    std::vector<Param> params{std::to_string(f.now.value_or(now))};
    const std::string src = source(c, lib);
    const std::string where = whereOf(c, lib, f, now, params);
    const Result r = c.exec("SELECT " + kSelect + " FROM (" + src + ") j" + where +
                                orderOf(lib, s) + limitOf(limit) +
                                (offset > 0 ? " OFFSET " + std::to_string(offset) : std::string()),
                            params);
    std::vector<Message> out;
    out.reserve(static_cast<std::size_t>(r.rows()));
    for (int i = 0; i < r.rows(); ++i)
        out.push_back(readMessage(r, i));
    return out;
}

std::int64_t countJobs(Connection& c, const Found& lib, const Filter& f, TimeNs now) {
    std::vector<Param> params{std::to_string(f.now.value_or(now))};
    const std::string src = source(c, lib);
    const std::string where = whereOf(c, lib, f, now, params);
    return c.exec("SELECT count(*) FROM (" + src + ") j" + where, params).int64(0, 0);
}

TimingColumns readTiming(Connection& c, const Found& lib, TimeNs now, bool withQueues,
                         const Filter& f) {
    std::vector<Param> params{std::to_string(f.now.value_or(now))};
    const std::string where = whereOf(c, lib, f, now, params);
    const Result r = c.exec("SELECT state, extra = 'locked_expired', created_ns, lock_ns, done_ns, "
                            "wait_from_ns, queue FROM (" +
                                source(c, lib) + ") j" + where,
                            params);
    constexpr TimeNs none = TimingColumns::kNoTime;
    const auto time = [&](int i, int col) { return r.isNull(i, col) ? none : r.int64(i, col); };
    TimingColumns cols;
    for (int i = 0; i < r.rows(); ++i) {
        const State s = parseState(r.text(i, 0)).value_or(State::Unknown);
        cols.state.push_back(static_cast<std::int8_t>(s));
        cols.ownStuck.push_back(r.boolean(i, 1) ? 1 : 0);
        cols.inTime.push_back(time(i, 2));
        cols.lockTime.push_back(time(i, 3));
        cols.doneTime.push_back(time(i, 4));
        cols.dueTime.push_back(time(i, 5));
        if (withQueues) {
            const auto q = r.optText(i, 6);
            appendQueueName(cols, q ? std::optional<std::string_view>(*q) : std::nullopt);
        }
    }
    return cols;
}

} // namespace lq::core::pg
