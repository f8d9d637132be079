// SPDX-License-Identifier: MIT
// Operator actions on a queue in PostgreSQL (core/pg/actions.h).
#include "actions.h"
#include "actions_p.h"

#include "../error.h"
#include "../formats/driver.h"
#include "../formats/graphileworker.h"
#include "../formats/pgonly.h"
#include "../formats/river.h"
#include "../json.h"
#include "../timefmt.h"
#include "catalog.h"
#include "connection.h"
#include "list.h"

#include <cctype>
#include <charconv>
#include <memory>
#include <set>
#include <string_view>
#include <unordered_map>

namespace lq::core::pg {

namespace detail {

std::string qualifiedTable(const ChunkContext& x, const std::string& table) {
    return quoteIdent(x.lib.schema) + "." + quoteIdent(table);
}

std::string pgTime(TimeNs now) {
    return isoUtc(now).substr(0, 26) + "Z";
}

std::int64_t changed(const ChunkContext& x, const std::string& sql,
                     const std::vector<Param>& params) {
    return x.c.exec(sql, params).rows();
}

const char* const kInUse =
    "in use: a worker's transaction holds the row right now (not waited for)";

} // namespace detail

namespace {

using namespace detail;

/// A library's jobs table (Oban, River: the whole job; Solid Queue: the
/// job without its execution row): that table, the state its workers run
/// in, and the columns an action writes (what undo writes back).
struct JobTable {
    const char* table;
    const char* running;
    const char* written;
    const char* idType = "bigint"; ///< the type of its `id` column
    /// The key (SQL text, $1 the job's id) of the advisory lock a worker
    /// holds the job by (GoodJob's, goodJobLockKey); nullptr where the row
    /// lock is the claim.
    const char* workerLock = nullptr;
    /// Rows of another table that go with the job when it is deleted
    /// (GoodJob's executions), by the column that names the job.
    const char* children = nullptr;
    const char* childKey = nullptr;
};

constexpr JobTable kOban{"oban_jobs", "executing",
                         "state, max_attempts, scheduled_at, completed_at, cancelled_at, "
                         "discarded_at"};
constexpr JobTable kRiver{"river_job", "running",
                          "state, max_attempts, scheduled_at, finalized_at, errors, metadata"};
/// Solid Queue: the jobs table is taken here; a job's state is one
/// execution row beside it (actions_solidqueue.cpp).
const JobTable kSolidQueue{"solid_queue_jobs", "claimed", kSolidQueueWritten};
/// Graphile Worker (0.16 and later): written only through its admin
/// functions; undo writes back what they change.
constexpr JobTable kGraphileWorker{"_private_jobs", "locked",
                                   "run_at, priority, attempts, max_attempts, last_error, "
                                   "updated_at"};
/// pg-boss: its statements from src/plans.ts (retryJobs, resumeJobs,
/// deleteJobsById), keyed by UUID.
constexpr JobTable kPgBoss{"job", "active", "state, retry_limit, completed_on", "uuid"};
/// GoodJob: its own job actions, the job's advisory lock taken for the
/// transaction first, as GoodJob::Job#with_advisory_lock takes it (its
/// md5 key, app/models/concerns/good_job/advisory_lockable.rb); destroy
/// deletes the job's executions with it (has_many dependent: :delete_all).
constexpr JobTable kGoodJob{
    "good_jobs",
    "running",
    "scheduled_at, performed_at, finished_at, error, error_event, serialized_params, updated_at",
    "uuid",
    "'good_jobs-' || $1::uuid::text",
    "good_job_executions",
    "active_job_id"};

const JobTable* jobTableOf(const std::string& library) {
    if (library == "oban")
        return &kOban;
    if (library == "river")
        return &kRiver;
    if (library == "solid-queue")
        return &kSolidQueue;
    if (library == "graphile-worker")
        return &kGraphileWorker;
    if (library == "pg-boss")
        return &kPgBoss;
    if (library == "good-job")
        return &kGoodJob;
    return nullptr;
}

const JobTable& jobTable(const ChunkContext& x) {
    const JobTable* t = jobTableOf(x.lib.library);
    if (!t)
        throw Unsupported(x.c.display(), whyNoActions(x.lib.library));
    return *t;
}

std::string qualified(const ChunkContext& x, const JobTable& t) {
    return qualifiedTable(x, t.table);
}

/// Job ids as an SQL array literal (each one checked by keyOf()).
std::string idArray(const std::vector<std::string>& ids) {
    std::string a = "{";
    for (std::size_t i = 0; i < ids.size(); ++i)
        a += (i ? "," : "") + ids[i];
    return a + "}";
}

std::optional<std::int64_t> parseId(const std::string& s) {
    std::int64_t v = 0;
    const auto* end = s.data() + s.size();
    const auto [p, ec] = std::from_chars(s.data(), end, v);
    if (ec != std::errc() || p != end)
        return std::nullopt;
    return v;
}

/// A job id as the server prints the table's `id` (`id::text`): an
/// integer, or a UUID in lower case; no value for text that is neither.
std::optional<std::string> keyOf(const JobTable& t, const std::string& messageId) {
    if (std::string_view(t.idType) == "uuid") {
        if (!uuidRowidOf(messageId))
            return std::nullopt;
        std::string k = messageId;
        for (char& ch : k)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        return k;
    }
    if (auto id = parseId(messageId))
        return std::to_string(*id);
    return std::nullopt;
}

/// The integer id the listing keys job `key` by (core/pg/list.h).
std::int64_t rowidOf(const JobTable& t, const std::string& key) {
    return std::string_view(t.idType) == "uuid" ? uuidRowidOf(key).value_or(-1)
                                                : parseId(key).value_or(-1);
}

/// The jobs of `ids` this transaction now holds (FOR UPDATE SKIP LOCKED),
/// and those that exist at all (a row held by a worker's transaction is
/// visible, just not taken), by keyOf().
struct Taken {
    std::set<std::string> held;
    std::set<std::string> exist;
    std::unordered_map<std::string, std::string> rows; ///< row_to_json of each held row
};

Taken take(const ChunkContext& x, const JobTable& t, const std::vector<std::string>& ids) {
    Taken out;
    if (ids.empty())
        return out;
    const std::string table = qualified(x, t);
    const Param arr = idArray(ids);
    const std::string any = std::string(" = ANY($1::") + t.idType + "[])";
    const Result held = x.c.exec("SELECT t.id::text, row_to_json(t)::text FROM " + table +
                                     " t WHERE t.id" + any + " FOR UPDATE SKIP LOCKED",
                                 {arr});
    for (int i = 0; i < held.rows(); ++i) {
        out.held.insert(held.text(i, 0));
        out.rows.emplace(held.text(i, 0), held.text(i, 1));
    }
    const Result exist = x.c.exec("SELECT id::text FROM " + table + " WHERE id" + any, {arr});
    for (int i = 0; i < exist.rows(); ++i)
        out.exist.insert(exist.text(i, 0));
    return out;
}

/// The job ids among [begin, end), as `idOf` names each, by keyOf().
template <class It, class IdOf>
std::vector<std::string> idsOf(const JobTable& t, It begin, It end, IdOf idOf) {
    std::vector<std::string> ids;
    for (It it = begin; it != end; ++it)
        if (auto id = keyOf(t, idOf(*it)))
            ids.push_back(*id);
    return ids;
}

/// The columns of `table` a row is stored in (not the generated ones, such
/// as Graphile Worker's is_available), quoted and in order.
std::string storedColumns(const ChunkContext& x, const std::string& table) {
    const Result r = x.c.exec(
        "SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) FROM pg_attribute WHERE "
        "attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = ''",
        {table});
    return r.text(0, 0);
}

/// The rows the action is about to change, as undo writes them back: the
/// job's, and `children` (a JSON array) of t.children when given.
std::string formatRowOf(const JobTable& t, const std::string& rowJson,
                        const std::string& children = {}) {
    std::string out = std::string("{\"") + t.table + "\": [" + rowJson + "]";
    if (!children.empty() && t.children)
        out += std::string(", \"") + t.children + "\": " + children;
    return out + "}";
}

/// The stored row of `t` in a before-image written by formatRowOf().
std::string rowOf(const JobTable& t, const Message& before) {
    if (!before.formatRow)
        return {};
    // As formatRowOf() wrote it: the row's text itself, so that a json
    // column (Graphile Worker's payload) goes back byte for byte.
    const std::string& f = *before.formatRow;
    const std::string head = std::string("{\"") + t.table + "\": [";
    if (!t.children && f.size() > head.size() + 2 && f.compare(0, head.size(), head) == 0 &&
        f.compare(f.size() - 2, 2, "]}") == 0)
        return f.substr(head.size(), f.size() - head.size() - 2);
    const Json j = Json::parse(f);
    const Json& rows = j[t.table];
    if (!rows.isArray() || rows.toArray().empty())
        return {};
    return rows.toArray().front().dump();
}

std::int64_t applyOban(const ChunkContext& x, Action a, const Message& m) {
    const std::string t = qualified(x, kOban);
    const std::vector<Param> p{m.messageId, pgTime(x.now)};
    switch (a) {
    case Action::Retry:
        // Oban.retry_job (Engines.Basic): attempt and errors kept.
        return changed(x,
                       "UPDATE " + t +
                           " SET state = 'available', max_attempts = greatest(max_attempts, "
                           "attempt + 1), scheduled_at = $2::timestamptz, completed_at = NULL, "
                           "cancelled_at = NULL, discarded_at = NULL WHERE id = $1::bigint AND "
                           "state NOT IN ('available', 'executing') RETURNING id",
                       p);
    case Action::Release:
        // The Lifeline's rescue: available while attempts are left, else
        // discarded (the refusal rule checked rescue_after).
        return changed(x,
                       "UPDATE " + t +
                           " SET state = CASE WHEN attempt < max_attempts THEN "
                           "'available'::text ELSE 'discarded'::text END::" +
                           quoteIdent(x.lib.schema) +
                           ".oban_job_state, discarded_at = CASE WHEN attempt < max_attempts "
                           "THEN discarded_at ELSE $2::timestamptz END WHERE id = $1::bigint AND "
                           "state = 'executing' RETURNING id",
                       p);
    case Action::Delete:
    case Action::Prune:
        return changed(
            x, "DELETE FROM " + t + " WHERE id = $1::bigint AND state <> 'executing' RETURNING id",
            {m.messageId});
    default:
        throw Unsupported(x.c.display(), std::string(actionName(a)) + " is not offered on Oban");
    }
}

std::int64_t applyRiver(const ChunkContext& x, Action a, const Message& m) {
    const std::string t = qualified(x, kRiver);
    const std::vector<Param> p{m.messageId, pgTime(x.now)};
    switch (a) {
    case Action::Retry:
        // JobRetry: attempt and errors kept, one more attempt when exhausted;
        // an available job already due is left as it is.
        return changed(x,
                       "UPDATE " + t +
                           " SET state = 'available', scheduled_at = $2::timestamptz, "
                           "finalized_at = NULL, max_attempts = CASE WHEN attempt = max_attempts "
                           "THEN max_attempts + 1 ELSE max_attempts END WHERE id = $1::bigint AND "
                           "state <> 'running' AND (state <> 'available' OR scheduled_at > "
                           "$2::timestamptz) RETURNING id",
                       p);
    case Action::Release: {
        // The JobRescuer: cancelled when a cancel was attempted; retryable
        // with its error appended, river:rescue_count + 1 and the default
        // retry policy's (number of errors)^4 s while attempts are left;
        // else discarded. One of the three matches.
        const std::string running = " WHERE id = $1::bigint AND state = 'running' AND ";
        std::int64_t n =
            changed(x,
                    "UPDATE " + t + " SET state = 'cancelled', finalized_at = $2::timestamptz" +
                        running + "metadata ? 'cancel_attempted_at' RETURNING id",
                    p);
        n += changed(
            x,
            "UPDATE " + t +
                " SET state = 'retryable', errors = array_append(coalesce(errors, '{}'), "
                "$3::jsonb), scheduled_at = $2::timestamptz + (coalesce(cardinality(errors), 0) "
                "+ 1)::float8 ^ 4 * interval '1 second', metadata = jsonb_set(coalesce(metadata, "
                "'{}'), '{river:rescue_count}', to_jsonb(coalesce((metadata ->> "
                "'river:rescue_count')::bigint, 0) + 1))" +
                running +
                "NOT coalesce(metadata ? 'cancel_attempted_at', false) AND attempt < max_attempts "
                "RETURNING id",
            {m.messageId, pgTime(x.now), riverRescueError(x.now, m.attempts).dump()});
        n += changed(x,
                     "UPDATE " + t + " SET state = 'discarded', finalized_at = $2::timestamptz" +
                         running +
                         "NOT coalesce(metadata ? 'cancel_attempted_at', false) AND attempt >= "
                         "max_attempts RETURNING id",
                     p);
        return n;
    }
    case Action::Delete:
    case Action::Prune:
        // JobDelete: never a running job.
        return changed(
            x, "DELETE FROM " + t + " WHERE id = $1::bigint AND state <> 'running' RETURNING id",
            {m.messageId});
    default:
        throw Unsupported(x.c.display(), std::string(actionName(a)) + " is not offered on River");
    }
}

/// Graphile Worker's admin functions, one job each (their own guard: not
/// locked, or locked over 4 hours ago, is checked again inside them).
std::int64_t applyGraphileWorker(const ChunkContext& x, Action a, const Message& m) {
    const std::string fn = quoteIdent(x.lib.schema) + ".";
    switch (a) {
    case Action::Retry:
        // A permanently failed job due now with its attempts back at 0
        // (its last_error kept, as the function keeps it).
        return changed(x,
                       "SELECT id FROM " + fn +
                           "reschedule_jobs(ARRAY[$1::bigint], run_at := $2::timestamptz, "
                           "attempts := 0)",
                       {m.messageId, pgTime(x.now)});
    case Action::MarkFailed:
        return changed(x, "SELECT id FROM " + fn + "permanently_fail_jobs(ARRAY[$1::bigint])",
                       {m.messageId});
    case Action::Delete:
        return changed(x, "SELECT id FROM " + fn + "complete_jobs(ARRAY[$1::bigint])",
                       {m.messageId});
    default:
        throw Unsupported(x.c.display(),
                          std::string(actionName(a)) + " is not offered on Graphile Worker");
    }
}

/// pg-boss's own statements (src/plans.ts): retryJobs gives a failed job
/// one more try (state retry, retry_limit + 1), resumeJobs takes a
/// cancelled one back to created; deleteJobsById deletes in any state.
std::int64_t applyPgBoss(const ChunkContext& x, Action a, const Message& m) {
    const std::string t = qualified(x, kPgBoss);
    switch (a) {
    case Action::Retry:
        return changed(x,
                       "UPDATE " + t +
                           " SET state = 'retry', retry_limit = retry_limit + 1, completed_on = "
                           "NULL WHERE id = $1::uuid AND state = 'failed' RETURNING id",
                       {m.messageId}) +
               changed(x,
                       "UPDATE " + t +
                           " SET state = 'created', completed_on = NULL WHERE id = $1::uuid AND "
                           "state = 'cancelled' RETURNING id",
                       {m.messageId});
    case Action::Delete:
        return changed(x, "DELETE FROM " + t + " WHERE id = $1::uuid RETURNING id", {m.messageId});
    default:
        throw Unsupported(x.c.display(), std::string(actionName(a)) + " is not offered on pg-boss");
    }
}

/// GoodJob's own job actions (app/models/good_job/job.rb@81db22b7), its
/// advisory lock already taken: retry_job re-enqueues a discarded job in
/// its own row (GoodJob::Job.enqueue with the current job: performed_at
/// and finished_at cleared, scheduled now, Active Job's executions + 1,
/// error kept, error_event retried); discard_job finishes an unfinished one
/// with a DiscardJobError; destroy_job deletes a finished one and its
/// executions.
std::int64_t applyGoodJob(const ChunkContext& x, Action a, const Message& m) {
    const std::string t = qualified(x, kGoodJob);
    const std::vector<Param> p{m.messageId, pgTime(x.now)};
    switch (a) {
    case Action::Retry:
        return changed(x,
                       "UPDATE " + t +
                           " SET performed_at = NULL, finished_at = NULL, scheduled_at = "
                           "$2::timestamp, error_event = 3, serialized_params = "
                           "jsonb_set(coalesce(serialized_params, '{}'), '{executions}', "
                           "to_jsonb(coalesce((serialized_params ->> 'executions')::int, 0) + 1)), "
                           "updated_at = $2::timestamp WHERE id = $1::uuid AND finished_at IS NOT "
                           "NULL AND coalesce(error, '') <> '' RETURNING id",
                       p);
    case Action::MarkFailed:
        return changed(x,
                       "UPDATE " + t +
                           " SET finished_at = $2::timestamp, error = 'GoodJob::Job::"
                           "DiscardJobError: Discarded by an operator with LiteQueue Admin', "
                           "error_event = 5, updated_at = $2::timestamp WHERE id = $1::uuid AND "
                           "finished_at IS NULL RETURNING id",
                       p);
    case Action::Delete:
        x.c.exec("DELETE FROM " + qualifiedTable(x, kGoodJob.children) + " WHERE " +
                     quoteIdent(kGoodJob.childKey) + " = $1::uuid",
                 {m.messageId});
        return changed(
            x, "DELETE FROM " + t + " WHERE id = $1::uuid AND finished_at IS NOT NULL RETURNING id",
            {m.messageId});
    default:
        throw Unsupported(x.c.display(), std::string(actionName(a)) + " is not offered on GoodJob");
    }
}

/// Whether this transaction now holds the lock a worker would hold job
/// `key` by (JobTable::workerLock); true where the row lock is the claim.
bool takeWorkerLock(const ChunkContext& x, const JobTable& t, const std::string& key) {
    return !t.workerLock || x.c.exec("SELECT pg_try_advisory_xact_lock(" +
                                         goodJobLockKey(t.workerLock) + "::bigint)",
                                     {key})
                                .boolean(0, 0);
}

const char* const kWorkerHolds =
    "in use: a worker holds the job's advisory lock right now (not waited for)";

/// The rows of t.children that go with job `key`, as a JSON array (taken
/// FOR UPDATE), or "" where the table has none.
std::string childRows(const ChunkContext& x, const JobTable& t, const std::string& key) {
    if (!t.children)
        return {};
    return x.c
        .exec("SELECT coalesce(json_agg(row_to_json(c)), '[]')::text FROM (SELECT * FROM " +
                  qualifiedTable(x, t.children) + " WHERE " + quoteIdent(t.childKey) +
                  " = $1::" + t.idType + " ORDER BY id FOR UPDATE) c",
              {key})
        .text(0, 0);
}

const char* const kChangedWhileRunning = "changed while the action ran";

/// One job's statements, all or none: a guard that fails halfway leaves
/// nothing of the row behind (the chunk's other rows stay).
template <class Write> std::int64_t allOrNone(const ChunkContext& x, Write write) {
    x.c.exec("SAVEPOINT lq_row");
    const std::int64_t n = write();
    x.c.exec(n == 1 ? "RELEASE SAVEPOINT lq_row" : "ROLLBACK TO SAVEPOINT lq_row");
    return n;
}

bool isSolidQueue(const ChunkContext& x) {
    return x.lib.library == "solid-queue";
}

std::int64_t applyRow(const ChunkContext& x, Action a, const Message& m) {
    if (isSolidQueue(x))
        return allOrNone(x, [&] { return applySolidQueue(x, a, m); });
    if (x.lib.library == "graphile-worker")
        return applyGraphileWorker(x, a, m);
    if (x.lib.library == "pg-boss")
        return applyPgBoss(x, a, m);
    if (x.lib.library == "good-job")
        return allOrNone(x, [&] { return applyGoodJob(x, a, m); });
    return x.lib.library == "oban" ? applyOban(x, a, m) : applyRiver(x, a, m);
}

/// Job `key` (keyOf()) as the listing reads it now.
std::optional<Message> readOne(const ChunkContext& x, const JobTable& t, const std::string& key) {
    for (Message& m : readJobs(x.c, x.lib, {rowidOf(t, key)}, x.now))
        if (m.messageId == key)
            return std::move(m);
    return std::nullopt;
}

} // namespace

std::string whyNoActions(const std::string& library) {
    if (jobTableOf(library))
        return {};
    return "actions on " + libraryName(library) + " on PostgreSQL: not yet (issue 41)";
}

std::string whyNoWrites(Connection& c, const Found& lib) {
    const JobTable* t = jobTableOf(lib.library);
    if (!t)
        return whyNoActions(lib.library);
    if (lib.library == "graphile-worker") {
        // Written only through its admin functions, on the 0.16+ tables.
        const std::string s = quoteIdent(lib.schema) + ".";
        const Result f =
            c.exec("SELECT to_regprocedure($1) IS NOT NULL AND to_regprocedure($2) IS NOT NULL AND "
                   "to_regprocedure($3) IS NOT NULL AND to_regclass($4) IS NOT NULL",
                   {s + "reschedule_jobs(bigint[], timestamptz, integer, integer, integer)",
                    s + "permanently_fail_jobs(bigint[], text)", s + "complete_jobs(bigint[])",
                    s + "_private_jobs"});
        if (!f.boolean(0, 0))
            return "Graphile Worker's admin functions (complete_jobs, permanently_fail_jobs, "
                   "reschedule_jobs) or its _private_jobs table are not in schema " +
                   lib.schema + ": its jobs are written only through them (0.16 or later)";
    }
    const std::string table = quoteIdent(lib.schema) + "." + quoteIdent(t->table);
    const Result r = c.exec("SELECT current_user, has_table_privilege($1, 'UPDATE'), "
                            "has_table_privilege($1, 'DELETE'), has_table_privilege($1, 'INSERT')",
                            {table});
    if (r.boolean(0, 1) && r.boolean(0, 2) && r.boolean(0, 3))
        return {};
    return "user " + r.text(0, 0) + " may not update, delete and insert rows of " + lib.schema +
           "." + t->table + " (GRANT them to write): opened read-only";
}

Refusal refusalOf(const Found& lib, const FormatInfo& info, const std::string& url) {
    if (lib.library == "graphile-worker")
        return graphileWorkerRefusal;
    if (lib.library == "pg-boss")
        return pgBossRefusal;
    if (lib.library == "good-job")
        return goodJobRefusal;
    if (!info.format)
        return nullptr;
    std::shared_ptr<const FormatDriver> d = info.format->driver(info, url);
    return [d](Action a, const Message& m, TimeNs now) { return d->refusal(a, m, now); };
}

void applyChunk(const ChunkContext& x, Action a, const core::Target* begin, const core::Target* end,
                ActionResult& r) {
    const JobTable& t = jobTable(x);
    const Taken taken =
        take(x, t, idsOf(t, begin, end, [](const core::Target& g) { return g.messageId; }));
    std::vector<std::int64_t> rowids;
    rowids.reserve(taken.held.size());
    for (const std::string& key : taken.held)
        rowids.push_back(rowidOf(t, key));
    std::unordered_map<std::string, Message> current;
    for (Message& m : readJobs(x.c, x.lib, rowids, x.now))
        if (taken.held.count(m.messageId))
            current.emplace(m.messageId, m);
    for (const core::Target* it = begin; it != end; ++it) {
        const auto id = keyOf(t, it->messageId);
        if (!id || !taken.exist.count(*id)) {
            r.skipped.push_back(goneSinceShown(it->messageId));
            continue;
        }
        const auto found = current.find(*id);
        if (!taken.held.count(*id) || found == current.end()) {
            r.skipped.push_back({it->messageId, kInUse, SkipKind::Changed});
            continue;
        }
        Message m = found->second;
        if (m.token != it->token) {
            r.skipped.push_back(changedSinceShown(*it, m, "claim", m.tokenText.value_or("")));
            continue;
        }
        if (isSolidQueue(x)) {
            // Its execution row taken too; the refusal rule reads both rows.
            bool inUse = false;
            auto rows = solidQueueRows(x, m, taken.rows.at(*id), inUse);
            if (!rows) {
                r.skipped.push_back(
                    {it->messageId, inUse ? kInUse : kChangedWhileRunning, SkipKind::Changed});
                continue;
            }
            m.formatRow = std::move(rows);
        }
        if (auto why = x.refusal(a, m, x.now); !why.empty()) {
            r.skipped.push_back({it->messageId, why, SkipKind::NotApplicable});
            continue;
        }
        if (!takeWorkerLock(x, t, *id)) {
            r.skipped.push_back({it->messageId, kWorkerHolds, SkipKind::Changed});
            continue;
        }
        if (!isSolidQueue(x))
            m.formatRow = formatRowOf(t, taken.rows.at(*id),
                                      a == Action::Delete ? childRows(x, t, *id) : std::string());
        if (applyRow(x, a, m) != 1) {
            r.skipped.push_back({it->messageId, kChangedWhileRunning, SkipKind::Changed});
            continue;
        }
        Message after = m;
        if (a != Action::Delete && a != Action::Prune)
            if (auto back = readOne(x, t, *id))
                after = *back;
        r.applied.push_back({m, after, {}});
    }
}

void undoChunk(const ChunkContext& x, Action original, const AppliedRow* begin,
               const AppliedRow* end, ActionResult& r) {
    const JobTable& t = jobTable(x);
    const std::string table = qualified(x, t);
    if (original != Action::Retry && original != Action::Release && original != Action::Delete &&
        original != Action::Prune && original != Action::MarkFailed)
        throw Unsupported(x.c.display(), std::string("undo of ") + actionName(original) +
                                             " on PostgreSQL: not offered");
    const Taken taken = take(
        x, t, idsOf(t, begin, end, [](const AppliedRow& row) { return row.before.messageId; }));
    const bool deleted = original == Action::Delete || original == Action::Prune;
    // The stored row back from its row_to_json: whole after a delete, the
    // columns the action wrote otherwise.
    const std::string record = "json_populate_record(NULL::" + table + ", $2::json)";
    // Every stored column (not a generated one), the id as it was.
    const std::string cols = storedColumns(x, table);
    std::string reinsert = "INSERT INTO " + table + " (" + cols + ") OVERRIDING SYSTEM VALUE ";
    reinsert += "SELECT " + cols + " FROM " + record;
    reinsert += " WHERE NOT EXISTS (SELECT 1 FROM " + table + " WHERE id = $1::" + t.idType + ")";
    std::string restore = "UPDATE " + table + " SET (";
    restore += t.written;
    restore += ") = (SELECT ";
    restore += t.written;
    restore += " FROM " + record + ") WHERE id = $1::" + t.idType + " RETURNING id";
    for (const AppliedRow* it = begin; it != end; ++it) {
        const std::string& jobId = it->before.messageId;
        const auto id = keyOf(t, jobId);
        const std::string row =
            isSolidQueue(x) ? it->before.formatRow.value_or("") : rowOf(t, it->before);
        if (!id || row.empty()) {
            r.skipped.push_back(
                {jobId, "the record holds no stored row to write back", SkipKind::NotApplicable});
            continue;
        }
        if (deleted) {
            if (taken.exist.count(*id)) {
                r.skipped.push_back({jobId, "a job with this id exists again", SkipKind::Conflict});
                continue;
            }
            if (isSolidQueue(x))
                reinsertSolidQueue(x, it->before);
            else
                x.c.exec(reinsert, {jobId, row});
            if (t.children) {
                // The rows that went with it (GoodJob's executions).
                const Json all = Json::parse(*it->before.formatRow);
                const Json& rows = all[t.children];
                const std::string child = qualifiedTable(x, t.children);
                const std::string childCols = storedColumns(x, child);
                std::string insert = "INSERT INTO " + child;
                insert.append(" (").append(childCols).append(") SELECT ").append(childCols);
                insert.append(" FROM json_populate_recordset(NULL::").append(child);
                insert.append(", $1::json)");
                if (rows.isArray() && !rows.toArray().empty())
                    x.c.exec(insert, {rows.dump()});
            }
            Message restored = it->before;
            if (auto back = readOne(x, t, *id))
                restored = *back;
            r.applied.push_back({Message{}, restored, {}});
            continue;
        }
        if (!taken.exist.count(*id)) {
            r.skipped.push_back({jobId, "deleted since the action", SkipKind::Gone});
            continue;
        }
        const auto m = taken.held.count(*id) ? readOne(x, t, *id) : std::nullopt;
        if (!m) {
            r.skipped.push_back({jobId, kInUse, SkipKind::Changed});
            continue;
        }
        if (m->token != it->after.token) {
            r.skipped.push_back({jobId,
                                 std::string("moved on since the action: now ") +
                                     stateName(m->state) + ", token " + m->tokenText.value_or(""),
                                 SkipKind::Changed});
            continue;
        }
        if (isSolidQueue(x)) {
            // The execution the action made, taken as the action took its own.
            bool inUse = false;
            if (!solidQueueRows(x, *m, taken.rows.at(*id), inUse)) {
                r.skipped.push_back(
                    {jobId, inUse ? kInUse : "changed while undoing", SkipKind::Changed});
                continue;
            }
        }
        if (!takeWorkerLock(x, t, *id)) {
            r.skipped.push_back({jobId, kWorkerHolds, SkipKind::Changed});
            continue;
        }
        const std::int64_t n =
            isSolidQueue(x) ? allOrNone(x, [&] { return restoreSolidQueue(x, *m, it->before); })
                            : changed(x, restore, {jobId, row});
        if (n != 1) {
            r.skipped.push_back({jobId, "changed while undoing", SkipKind::Changed});
            continue;
        }
        Message restored = it->before;
        if (auto back = readOne(x, t, *id))
            restored = *back;
        r.applied.push_back({*m, restored, {}});
    }
}

} // namespace lq::core::pg
