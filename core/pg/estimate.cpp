// SPDX-License-Identifier: MIT
// Estimated counts from PostgreSQL's own statistics (core/pg/counts.h).
//
// The rows of a table are the statistics collector's live-tuple count
// (pg_stat_user_tables.n_live_tup: kept by every insert and delete, no
// ANALYZE needed), or pg_class.reltuples where the collector has none (a
// standby keeps no such counts of its own). A partitioned table (pg-boss's
// job, one partition per queue) is the sum of its leaf partitions.
//
// How the rows split into states:
// - Solid Queue keeps one table per unfinished state: the ready, claimed,
//   failed, scheduled and blocked execution tables are the counts, and the
//   finished jobs are the rest.
// - Oban, River and pg-boss keep a state column: the split is ANALYZE's
//   most-common-values list of that column (pg_stats), which holds every
//   value of a column with a handful of them.
// - A named queue is the queue column's share of the rows by the same
//   statistics (the planner's rule for a value outside that list: what the
//   list leaves, shared evenly by the other distinct values).
//
// What is not estimated: the stuck sub-count (the libraries' stuck rules are
// ages, which the statistics do not hold), a due job still marked scheduled,
// GoodJob (its state is a combination of columns) and Graphile Worker (it
// deletes what it finishes: its tables stay small).
#include "counts.h"

#include "catalog.h"
#include "connection.h"

#include <charconv>
#include <cmath>
#include <map>
#include <optional>

namespace lq::core::pg {

namespace {

/// A state value of the column and where it counts.
struct StateValue {
    const char* value;
    std::optional<State> state; ///< none: only the format's own state `extra`
    const char* extra;          ///< the format's own state counted apart ("" none)
};

struct StateColumn {
    const char* library;
    const char* table;
    const char* state;
    const char* queue;
    std::vector<StateValue> values;
};

const std::vector<StateColumn>& stateColumns() {
    static const std::vector<StateColumn> k{
        {"oban",
         "oban_jobs",
         "state",
         "queue",
         {{"available", State::Ready, ""},
          {"scheduled", State::Scheduled, ""},
          {"executing", State::Locked, ""},
          {"completed", State::Done, ""},
          {"discarded", State::Failed, ""},
          {"retryable", std::nullopt, "retryable"},
          {"cancelled", std::nullopt, "cancelled"},
          {"suspended", std::nullopt, "suspended"}}},
        {"river",
         "river_job",
         "state",
         "queue",
         {{"available", State::Ready, ""},
          {"scheduled", State::Scheduled, ""},
          {"running", State::Locked, ""},
          {"completed", State::Done, ""},
          {"discarded", State::Failed, ""},
          {"retryable", std::nullopt, "retryable"},
          {"cancelled", std::nullopt, "cancelled"},
          {"pending", std::nullopt, "pending"}}},
        {"pg-boss",
         "job",
         "state",
         "name",
         {{"created", State::Ready, ""},
          {"retry", State::Ready, "retry"},
          {"active", State::Locked, ""},
          {"completed", State::Done, ""},
          {"failed", State::Failed, ""},
          {"cancelled", std::nullopt, "cancelled"}}},
    };
    return k;
}

double toDouble(const std::string& s) {
    double d = 0; // from_chars: the server's '.' whatever the process's locale
    std::from_chars(s.data(), s.data() + s.size(), d);
    return d;
}

/// ANALYZE's figures for one column of one table.
struct ColumnStats {
    double nullFrac = 0;
    double nDistinct = 0; ///< negative: a fraction of the rows (pg_stats)
    std::map<std::string, double> common;

    /// The share of the rows whose value is `v`.
    double share(const std::string& v, double rows) const {
        if (const auto it = common.find(v); it != common.end())
            return it->second;
        double listed = 0;
        for (const auto& [value, f] : common)
            listed += f;
        const double distinct = nDistinct < 0 ? -nDistinct * rows : nDistinct;
        const double others = distinct - double(common.size());
        return others >= 1 ? std::max(0.0, 1 - nullFrac - listed) / others : 0;
    }
};

/// A leaf table: its rows and the statistics of the columns asked for.
struct Leaf {
    double rows = 0;
    std::map<std::string, ColumnStats> columns;
};

/// The leaf tables of `schema`.`table` (itself unless partitioned) with the
/// statistics of `columns`.
std::map<std::string, Leaf> readLeaves(Connection& c, const Found& f, const char* table,
                                       const std::vector<std::string>& columns) {
    std::string names = "{";
    for (std::size_t i = 0; i < columns.size(); ++i)
        names += (i ? ",\"" : "\"") + columns[i] + "\"";
    names += "}";
    const Result r = c.exec(
        "SELECT c.relname, coalesce(nullif(s.n_live_tup, 0), greatest(c.reltuples, 0)::bigint)"
        "::bigint, x.attname, x.null_frac::text, x.n_distinct::text, u.v, u.f::text FROM "
        "(SELECT to_regclass($1) AS relid UNION SELECT relid FROM "
        "pg_partition_tree(to_regclass($1))) p JOIN pg_class c ON c.oid = p.relid JOIN "
        "pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_stat_user_tables s ON s.relid = "
        "c.oid LEFT JOIN pg_stats x ON x.schemaname = n.nspname AND x.tablename = c.relname AND "
        "x.attname = ANY($2::text[]) AND NOT x.inherited LEFT JOIN LATERAL "
        "unnest(x.most_common_vals::text::text[], x.most_common_freqs) u(v, f) ON true WHERE "
        "c.relkind = 'r'",
        {qualified(f, table), names});
    std::map<std::string, Leaf> leaves;
    for (int i = 0; i < r.rows(); ++i) {
        Leaf& leaf = leaves[r.text(i, 0)];
        leaf.rows = double(r.int64(i, 1));
        if (r.isNull(i, 2))
            continue; // no statistics for these columns yet
        ColumnStats& s = leaf.columns[r.text(i, 2)];
        s.nullFrac = toDouble(r.text(i, 3));
        s.nDistinct = toDouble(r.text(i, 4));
        if (!r.isNull(i, 5))
            s.common[r.text(i, 5)] = toDouble(r.text(i, 6));
    }
    return leaves;
}

std::int64_t rounded(double d) {
    return std::llround(d);
}

void finishEstimate(Counts& c) {
    c.estimated = true;
    c.stuck = 0; // an age rule: not in the statistics
    c.extra["locked_expired"] = 0;
    c.leased = c.locked;
    c.expired = 0;
}

std::optional<Counts> stateColumnEstimate(Connection& conn, const Found& f, const StateColumn& s,
                                          const std::string& queue) {
    const auto leaves = readLeaves(conn, f, s.table, {s.state, s.queue});
    double rows = 0;
    for (const auto& [name, leaf] : leaves)
        rows += leaf.rows;
    if (rows < double(kEstimateFromRows))
        return std::nullopt; // the exact counts are quick
    std::map<std::string, double> byValue;
    double kept = 0;
    for (const auto& [name, leaf] : leaves) {
        if (leaf.rows == 0)
            continue;
        const auto st = leaf.columns.find(s.state);
        const auto qu = leaf.columns.find(s.queue);
        if (st == leaf.columns.end() || (!queue.empty() && qu == leaf.columns.end()))
            return std::nullopt; // never analysed: no honest figure
        const double inQueue =
            queue.empty() ? leaf.rows : leaf.rows * qu->second.share(queue, leaf.rows);
        kept += inQueue;
        for (const auto& [value, share] : st->second.common)
            byValue[value] += share * inQueue;
    }
    Counts c;
    c.stored = rounded(kept);
    for (const StateValue& v : s.values) {
        const auto it = byValue.find(v.value);
        const std::int64_t n = it == byValue.end() ? 0 : rounded(it->second);
        if (*v.extra)
            c.extra[v.extra] += n;
        switch (v.state.value_or(State::Unknown)) {
        case State::Ready:
            c.ready += n;
            break;
        case State::Scheduled:
            c.scheduled += n;
            break;
        case State::Locked:
            c.locked += n;
            break;
        case State::Done:
            c.done += n;
            break;
        case State::Failed:
            c.failed += n;
            break;
        default:
            break;
        }
    }
    finishEstimate(c); // unknown stays 0: values too rare for the list are left out
    return c;
}

std::optional<Counts> solidQueueEstimate(Connection& conn, const Found& f,
                                         const std::string& queue) {
    const auto jobs = readLeaves(conn, f, "solid_queue_jobs", {"queue_name"});
    double rows = 0;
    double share = 1;
    for (const auto& [name, leaf] : jobs) {
        rows += leaf.rows;
        if (!queue.empty()) {
            const auto qu = leaf.columns.find("queue_name");
            if (qu == leaf.columns.end())
                return std::nullopt;
            share = qu->second.share(queue, leaf.rows);
        }
    }
    if (rows < double(kEstimateFromRows))
        return std::nullopt;
    const auto executions = [&](const char* table) {
        if (!f.has(table))
            return std::int64_t(0);
        double n = 0;
        for (const auto& [name, leaf] : readLeaves(conn, f, table, {}))
            n += leaf.rows;
        return rounded(n * share);
    };
    Counts c;
    c.stored = rounded(rows * share);
    c.ready = executions("solid_queue_ready_executions");
    c.locked = executions("solid_queue_claimed_executions");
    c.failed = executions("solid_queue_failed_executions");
    c.scheduled = executions("solid_queue_scheduled_executions");
    c.extra["blocked"] = executions("solid_queue_blocked_executions");
    c.done = std::max<std::int64_t>(0, c.stored - c.ready - c.locked - c.failed - c.scheduled -
                                           c.extra["blocked"]);
    finishEstimate(c);
    return c;
}

} // namespace

std::optional<Counts> estimateCounts(Connection& c, const Found& f, const std::string& queue) {
    if (f.library == "solid-queue")
        return solidQueueEstimate(c, f, queue);
    for (const StateColumn& s : stateColumns())
        if (f.library == s.library)
            return stateColumnEstimate(c, f, s, queue);
    return std::nullopt;
}

} // namespace lq::core::pg
