// SPDX-License-Identifier: MIT
// Solid Queue's counts read table by table (solidqueue_counts.h).
//
// On a consistent file (every unfinished job in exactly one execution
// table, nothing else in them) a job's state is the table that holds it,
// and the counts are the sizes of the tables: index-only reads, where the
// one pass over the jobs looks each unfinished job up in five tables. Each
// statement proves that first and counts in the same read (one snapshot),
// for the whole file or for the jobs of a range of ids (a chunk): on a
// million jobs a chunked count read 2.6 s of CPU job by job and 0.5 s
// table by table (docs/BENCHMARKS.md). A file, or a chunk of it, that is
// not proven is counted job by job, as before.
#include "solidqueue_counts.h"

#include "solidqueue_ops.h"
#include "solidqueue_text.h"

#include <iterator>
#include <limits>
#include <mutex>

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

/// SQL: whether the ids of jobs and of every execution table are rowids
/// (the jobs are a set; no execution row has a NULL id, which the pass
/// would count as absent). Read from the schema once per schema version
/// (TableCounts::schemaOk): its pragmas cost a millisecond, more than a
/// chunk's counts.
std::string schemaSql(const std::vector<std::string>& executions) {
    std::string sql = "SELECT " + idIsRowid("solid_queue_jobs");
    for (const std::string& t : executions)
        sql += " AND " + idIsRowid(t);
    return sql;
}

/// The proof, computed first and once (MATERIALIZED), over the jobs whose id
/// is in ?3..?4 and the execution rows whose job_id is (the whole file:
/// TableCounts::everyJob()):
///   ok            the schema is still version ?5, the one schemaSql()
///                 found good;
///   unfinished    unfinished jobs (U);
///   no_execution  unfinished jobs with no execution row, by one merge of
///                 sorted indexes (EXCEPT ... ORDER BY);
///   e0, e1 ...    execution rows per table (E), in `executions` order.
/// U within E (no_execution = 0) and |E| = |U| leave no room for an
/// execution row of a finished or missing job, a job in two tables or twice
/// in one: each unfinished job has exactly one execution row, so its table
/// is its state (`proven`). An execution row whose job_id is outside every
/// range is no job's: the pass, which starts from the jobs, never sees it.
struct Proof {
    std::string cte;
    std::string proven;
};

Proof proofOf(const std::vector<std::string>& executions) {
    const std::string unfinished =
        "SELECT id FROM solid_queue_jobs WHERE finished_at IS NULL AND id BETWEEN ?3 AND ?4";
    std::string noExecution = unfinished;
    std::string sizes;
    std::string sum = "0";
    for (std::size_t i = 0; i < executions.size(); ++i) {
        const std::string& t = executions[i];
        const std::string rows = " FROM " + t + " WHERE job_id BETWEEN ?3 AND ?4";
        noExecution += " EXCEPT SELECT job_id" + rows;
        sizes += ", (SELECT count(*)" + rows + ") AS e" + std::to_string(i);
        sum += " + e" + std::to_string(i);
    }
    return {"WITH proof AS MATERIALIZED (SELECT (SELECT schema_version FROM "
            "pragma_schema_version) = ?5 AS ok, (SELECT count(*) FROM (" +
                unfinished + ")) AS unfinished, (SELECT count(*) FROM (" + noExecution +
                " ORDER BY 1)) AS no_execution" + sizes + ")",
            "ok AND no_execution = 0 AND " + sum + " = unfinished"};
}

/// The claims joined to their process as the pass joins them (its LEFT
/// JOIN's rows, one per claim unless process ids repeat), all and those
/// stuck at ?2 (the library's rule, SolidQueueDriver::stuckSql()).
const char* const kStuck = "(x.process_id IS NULL OR p.id IS NULL OR ";

/// The statement of counts(): the proof's columns, then (NULL unless
/// proven, nothing else read) all jobs, scheduled rows due later than ?1
/// (scheduled_at converted as the pass converts it), the claims as joined,
/// and those stuck, the heartbeat converted once per process.
std::string countsSql(const std::vector<std::string>& executions) {
    const Proof proof = proofOf(executions);
    const std::string when = "CASE WHEN " + proof.proven + " THEN ";
    const std::string byProcess =
        "(SELECT process_id, count(*) AS n FROM solid_queue_claimed_executions WHERE job_id "
        "BETWEEN ?3 AND ?4 GROUP BY process_id COLLATE BINARY) x LEFT JOIN "
        "solid_queue_processes p ON p.id = x.process_id";
    return proof.cte + " SELECT proof.*, " + when +
           "(SELECT count(*) FROM solid_queue_jobs WHERE id BETWEEN ?3 AND ?4) END, " + when +
           "(SELECT count(*) FROM solid_queue_scheduled_executions WHERE " + ns("scheduled_at") +
           " > ?1 AND job_id BETWEEN ?3 AND ?4) END, " + when +
           "(SELECT coalesce(sum(x.n), 0) FROM " + byProcess + ") END, " + when +
           "(SELECT coalesce(sum(x.n), 0) FROM " + byProcess + " WHERE " + kStuck +
           ns("p.last_heartbeat_at") + " <= ?2)) END FROM proof";
}

// byQueue()'s parts: rows (part, queue_name, n, stuck).
constexpr int kProofPart = -1; ///< n: proven or not
constexpr int kDonePart = 0;
constexpr int kTablePart = 1; ///< + the table's index (claimed: kClaimsPart)
constexpr int kLaterPart = 10;
constexpr int kClaimsPart = 11;

/// The statement of byQueue(): the proof, then (nothing
/// unless proven) finished jobs per queue, the execution rows of each table
/// per queue of their job, scheduled rows due later than ?1, and the claims
/// as joined with those stuck at ?2.
std::string byQueueSql(const std::vector<std::string>& executions) {
    const Proof proof = proofOf(executions);
    const std::string jobOf = " x CROSS JOIN solid_queue_jobs jb ON jb.id = x.job_id";
    const std::string inRange = " WHERE (SELECT y FROM yes) AND x.job_id BETWEEN ?3 AND ?4";
    const std::string perQueue = " GROUP BY jb.queue_name";
    std::string sql = proof.cte + ", yes AS (SELECT " + proof.proven +
                      " AS y, ok FROM proof) SELECT " + std::to_string(kProofPart) +
                      ", NULL, y, ok FROM yes UNION ALL SELECT " + std::to_string(kDonePart) +
                      ", queue_name, count(*), 0 FROM solid_queue_jobs WHERE (SELECT y FROM yes) "
                      "AND id BETWEEN ?3 AND ?4 AND +finished_at IS NOT NULL GROUP BY queue_name";
    for (std::size_t i = 0; i < executions.size(); ++i)
        if (i != 1) // the claims: below, joined to their process
            sql.append(" UNION ALL SELECT ")
                .append(std::to_string(kTablePart + static_cast<int>(i)))
                .append(", jb.queue_name, count(*), 0 FROM ")
                .append(executions[i])
                .append(jobOf)
                .append(inRange)
                .append(perQueue);
    return sql + " UNION ALL SELECT " + std::to_string(kLaterPart) +
           ", jb.queue_name, count(*), 0 FROM solid_queue_scheduled_executions" + jobOf + inRange +
           " AND " + ns("x.scheduled_at") + " > ?1" + perQueue + " UNION ALL SELECT " +
           std::to_string(kClaimsPart) + ", jb.queue_name, count(*), coalesce(sum(" + kStuck +
           ns("p.last_heartbeat_at") + " <= ?2)), 0) FROM solid_queue_claimed_executions" + jobOf +
           " LEFT JOIN solid_queue_processes p ON p.id = x.process_id" + inRange + perQueue;
}

/// The statement of timing(): the proof's row first (kind NULL, then
/// whether proven), then (nothing unless proven) the columns of
/// SolidQueueDriver::timingColumns() as its one pass gives them, and the
/// job's queue_name with `withQueue`: finished jobs from the jobs table by
/// id, each execution row with its job by rowid, a claim with its process
/// as the pass joins it. Proven, every unfinished job is in exactly one
/// table, so the other tables' columns are the NULLs the pass reads.
std::string timingSql(const std::vector<std::string>& executions, bool withQueue) {
    const Proof proof = proofOf(executions);
    const std::string queue = withQueue ? ", jb.queue_name" : "";
    const std::string jobOf = " x CROSS JOIN solid_queue_jobs jb ON jb.id = x.job_id";
    const std::string inRange = " WHERE (SELECT y FROM yes) AND x.job_id BETWEEN ?3 AND ?4";
    std::string sql = proof.cte + ", yes AS (SELECT " + proof.proven +
                      " AS y, ok FROM proof) SELECT NULL, y, ok, NULL, NULL, NULL, NULL, NULL, "
                      "NULL" +
                      std::string(withQueue ? ", NULL" : "") +
                      " FROM yes UNION ALL SELECT 'finished', jb.created_at, NULL, "
                      "jb.finished_at, NULL, NULL, NULL, NULL, jb.scheduled_at" +
                      queue +
                      " FROM solid_queue_jobs jb WHERE (SELECT y FROM yes) AND jb.id BETWEEN ?3 "
                      "AND ?4 AND +jb.finished_at IS NOT NULL";
    // Per table, in `executions` order: kind, then claimed_text, done_text,
    // due_text, process_id, process_row and heartbeat_text.
    static const char* const kKinds[] = {"ready", "claimed", "failed", "scheduled", "blocked"};
    static const char* const kColumns[] = {
        "NULL, NULL, NULL, NULL, NULL, NULL",
        "x.created_at, NULL, NULL, x.process_id, p.id, p.last_heartbeat_at",
        "NULL, x.created_at, NULL, NULL, NULL, NULL",
        "NULL, NULL, x.scheduled_at, NULL, NULL, NULL", "NULL, NULL, NULL, NULL, NULL, NULL"};
    for (std::size_t i = 0; i < executions.size() && i < std::size(kColumns); ++i)
        sql.append(" UNION ALL SELECT '")
            .append(kKinds[i])
            .append("', jb.created_at, ")
            .append(kColumns[i])
            .append(", jb.scheduled_at")
            .append(queue)
            .append(" FROM ")
            .append(executions[i])
            .append(jobOf)
            .append(i == 1 ? " LEFT JOIN solid_queue_processes p ON p.id = x.process_id" : "")
            .append(inRange);
    return sql;
}

/// The statement of print(): the schema version, then lq_print() of each
/// table's rows whose job is in ?1..?2, over every column timingSql() reads
/// of them (the jobs', each execution table's, a claim's process as
/// joined: its heartbeat decides the claim's state).
std::string printSql(const std::vector<std::string>& executions) {
    // In `executions` order, as timingSql()'s kColumns.
    static const char* const kColumns[] = {
        "", ", x.created_at, x.process_id, p.id, p.last_heartbeat_at", ", x.created_at",
        ", x.scheduled_at", ""};
    std::string sql = "SELECT (SELECT schema_version FROM pragma_schema_version), (SELECT "
                      "lq_print(id, queue_name, created_at, scheduled_at, finished_at) FROM "
                      "solid_queue_jobs WHERE id BETWEEN ?1 AND ?2)";
    for (std::size_t i = 0; i < executions.size() && i < std::size(kColumns); ++i)
        sql.append(", (SELECT lq_print(x.id, x.job_id")
            .append(kColumns[i])
            .append(") FROM ")
            .append(executions[i])
            .append(" x")
            .append(i == 1 ? " LEFT JOIN solid_queue_processes p ON p.id = x.process_id" : "")
            .append(" WHERE x.job_id BETWEEN ?1 AND ?2)");
    return sql;
}

/// What the tables say of a set of jobs.
struct Sizes {
    std::int64_t done = 0;
    std::int64_t rows[5] = {}; ///< ready, claimed, failed, scheduled, blocked
    std::int64_t later = 0;    ///< scheduled rows due after now
    std::int64_t claims = 0;   ///< the claims as joined to their process
    std::int64_t stuck = 0;
};

/// The counts the pass gives the jobs of `s`.
Counts countsOf(const Sizes& s) {
    Counts c;
    c.done = s.done;
    c.ready = s.rows[0] + s.rows[3] - s.later;
    c.scheduled = s.later;
    c.locked = s.claims; // rows[1] unless process ids repeat
    c.stuck = s.stuck;
    c.failed = s.rows[2];
    c.extra["blocked"] = s.rows[4];
    c.stored = c.done + c.ready + c.scheduled + c.locked + c.failed + s.rows[4];
    completeCounts(c);
    return c;
}

} // namespace

void completeCounts(Counts& c) {
    c.extra["blocked"] += 0; // present in every count
    c.extra["locked_expired"] = c.stuck;
    c.leased = c.locked - c.stuck;
    c.expired = c.stuck;
}

TableCounts::TableCounts(const std::vector<std::string>& executions)
    : m_schema(schemaSql(executions))
    , m_counts(countsSql(executions))
    , m_byQueue(byQueueSql(executions))
    , m_timing{timingSql(executions, false), timingSql(executions, true)}
    , m_print(printSql(executions))
    , m_tables(executions.size()) {}

std::optional<std::int64_t> TableCounts::schemaOk(Connection& r, bool fresh) const {
    if (!fresh) {
        const std::lock_guard<std::mutex> lock(m_mutex);
        if (m_checked && m_checked->second)
            return m_checked->first;
    }
    const std::int64_t version = r.pragmaInt("schema_version");
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        if (m_checked && m_checked->first == version)
            return m_checked->second ? std::optional<std::int64_t>(version) : std::nullopt;
    }
    // Read in its own statement: if the schema changes after it, the
    // counts' own check of the version refutes the proof.
    auto st =
        r.cached("SELECT (SELECT schema_version FROM pragma_schema_version), (" + m_schema + ")");
    const bool stepped = st->step();
    const std::int64_t at = stepped ? st->int64(0) : 0;
    const bool ok = stepped && !st->isNull(1) && st->int64(1) != 0;
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_checked = std::make_pair(at, ok);
    return ok ? std::optional<std::int64_t>(at) : std::nullopt;
}

template <class Run>
auto TableCounts::withSchema(Connection& r, const Run& run) const
    -> decltype(run(std::int64_t{}, std::declval<bool&>())) {
    for (const bool fresh : {false, true}) {
        const auto schema = schemaOk(r, fresh);
        if (!schema)
            return {};
        bool moved = false;
        auto out = run(*schema, moved);
        if (!moved)
            return out;
    }
    return {}; // moved again: not proven
}

std::optional<Counts> TableCounts::counts(Connection& r, TimeNs now, Range range) const {
    return withSchema(r, [&](std::int64_t schema, bool& moved) -> std::optional<Counts> {
        auto st = r.cached(m_counts);
        st->bind(1, now).bind(2, now - kAliveThreshold).bind(3, range.first).bind(4, range.second);
        st->bind(5, schema);
        const int col = 3 + static_cast<int>(m_tables); // the figures
        if (!st->step())
            return std::nullopt;
        moved = st->int64(0) == 0;
        if (st->isNull(col))
            return std::nullopt; // not proven
        Sizes s;
        for (std::size_t t = 0; t < m_tables; ++t)
            s.rows[t] = st->int64(3 + static_cast<int>(t));
        s.done = st->int64(col) - st->int64(1);
        s.later = st->int64(col + 1);
        s.claims = st->int64(col + 2);
        s.stuck = st->int64(col + 3);
        return countsOf(s);
    });
}

std::optional<FormatDriver::QueueCountsMap> TableCounts::byQueue(Connection& r, TimeNs now,
                                                                 Range range) const {
    return withSchema(
        r, [&](std::int64_t schema, bool& moved) -> std::optional<FormatDriver::QueueCountsMap> {
            auto st = r.cached(m_byQueue);
            st->bind(1, now)
                .bind(2, now - kAliveThreshold)
                .bind(3, range.first)
                .bind(4, range.second);
            st->bind(5, schema);
            bool proven = false;
            std::map<std::optional<std::string>, Sizes> sizes;
            while (st->step()) {
                const std::int64_t part = st->int64(0);
                const std::int64_t n = st->int64(2);
                if (part == kProofPart) {
                    proven = n != 0;
                    moved = st->int64(3) == 0;
                    continue;
                }
                Sizes& s =
                    sizes[st->isNull(1) ? std::nullopt : std::optional<std::string>(st->text(1))];
                if (part == kDonePart)
                    s.done = n;
                else if (part == kLaterPart)
                    s.later = n;
                else if (part == kClaimsPart)
                    s.claims = n, s.stuck = st->int64(3);
                else
                    s.rows[part - kTablePart] = n;
            }
            if (!proven)
                return std::nullopt;
            FormatDriver::QueueCountsMap out;
            for (const auto& [name, s] : sizes)
                out.emplace(name, countsOf(s));
            return out;
        });
}

bool TableCounts::timing(Connection& r, Range range, bool withQueue,
                         const FormatDriver::RowSink& row) const {
    return withSchema(r, [&](std::int64_t schema, bool& moved) {
        auto st = r.cached(m_timing[withQueue ? 1 : 0]);
        st->bind(3, range.first).bind(4, range.second).bind(5, schema);
        if (!st->step() || !st->isNull(0))
            return false;
        moved = st->int64(2) == 0;
        if (st->isNull(1) || st->int64(1) == 0)
            return false; // not proven: nothing read but the proof
        while (st->step())
            row(*st);
        return true;
    });
}

std::optional<std::uint64_t> TableCounts::print(Connection& r, Range range) const {
    const auto schema = schemaOk(r, false);
    if (!schema)
        return std::nullopt;
    auto st = r.cached(m_print);
    st->bind(1, range.first).bind(2, range.second);
    if (!st->step())
        return std::nullopt;
    const int n = st->columnCount();
    // Each table's print in its place: the same rows moved to another
    // table print differently.
    std::uint64_t h = 0;
    for (int i = 0; i < n; ++i)
        h = (h ^ static_cast<std::uint64_t>(st->int64(i))) * 0x100000001B3ULL + std::uint64_t(i);
    return h;
}

TableCounts::Range TableCounts::everyJob() {
    return {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
}

} // namespace lq::core::solidqueue
