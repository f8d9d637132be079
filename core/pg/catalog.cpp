// SPDX-License-Identifier: MIT
// Recognition from the catalog (core/pg/catalog.h). Signatures from:
// rails/solid_queue@217047565327 lib/generators/solid_queue/install/templates/db/queue_schema.rb;
// oban-bg/oban lib/oban/migrations/postgres/v01.ex@89ae114b5c55 (oban_job_state);
// riverqueue/river riverdriver/riverpgxv5/migration/main/002_initial_schema.up.sql@62ce779744c2;
// bensheldon/good_job@02b954e7c043 .../install/migrations/create_good_jobs.rb.erb;
// timgit/pg-boss@014854319b95 src/plans.ts (createTableVersion, createTableJob);
// graphile/worker sql/000011.sql@05c3695cc279 and sql/000016.sql@55603eb0d71c.
#include "catalog.h"

#include "connection.h"

#include <algorithm>
#include <map>
#include <set>

namespace lq::core::pg {

namespace {

struct Schema {
    std::set<std::string> tables;
    std::set<std::string> enums;
};

bool hasAll(const Schema& s, std::initializer_list<const char*> names) {
    return std::all_of(names.begin(), names.end(),
                       [&](const char* n) { return s.tables.count(n) > 0; });
}

std::vector<std::string> present(const Schema& s, std::initializer_list<const char*> names) {
    std::vector<std::string> out;
    for (const char* n : names)
        if (s.tables.count(n))
            out.emplace_back(n);
    std::sort(out.begin(), out.end());
    return out;
}

void recognise(const std::string& name, const Schema& s, std::vector<Found>& out) {
    if (hasAll(s, {"solid_queue_jobs", "solid_queue_ready_executions",
                   "solid_queue_claimed_executions", "solid_queue_failed_executions",
                   "solid_queue_scheduled_executions", "solid_queue_processes"})) {
        Found f{name,
                "solid-queue",
                present(s, {"solid_queue_jobs", "solid_queue_ready_executions",
                            "solid_queue_claimed_executions", "solid_queue_failed_executions",
                            "solid_queue_scheduled_executions", "solid_queue_blocked_executions",
                            "solid_queue_processes", "solid_queue_pauses", "solid_queue_semaphores",
                            "solid_queue_recurring_executions", "solid_queue_recurring_tasks"}),
                {},
                {}};
        if (!s.tables.count("solid_queue_blocked_executions"))
            f.missing.emplace_back("solid_queue_blocked_executions");
        out.push_back(std::move(f));
    }
    if (s.tables.count("oban_jobs") && s.enums.count("oban_job_state"))
        out.push_back(
            {name, "oban", present(s, {"oban_jobs", "oban_peers", "oban_producers"}), {}, {}});
    if (s.tables.count("river_job") && s.enums.count("river_job_state"))
        out.push_back({name,
                       "river",
                       present(s, {"river_job", "river_queue", "river_leader", "river_migration",
                                   "river_client", "river_client_queue"}),
                       {},
                       {}});
    if (hasAll(s, {"good_jobs", "good_job_executions", "good_job_processes"}))
        out.push_back({name,
                       "good-job",
                       present(s, {"good_jobs", "good_job_executions", "good_job_processes",
                                   "good_job_batches", "good_job_settings"}),
                       {},
                       {}});
    if (hasAll(s, {"job", "version"}) && s.enums.count("job_state"))
        out.push_back(
            {name,
             "pg-boss",
             present(s, {"job", "version", "queue", "schedule", "subscription", "archive"}),
             {},
             {}});
    if (hasAll(s, {"_private_jobs", "_private_tasks"}) ||
        (name == "graphile_worker" && hasAll(s, {"jobs", "tasks", "job_queues"})))
        out.push_back(
            {name,
             "graphile-worker",
             present(s, {"_private_jobs", "_private_tasks", "_private_job_queues",
                         "_private_known_crontabs", "jobs", "tasks", "job_queues", "migrations"}),
             {},
             {}});
}

} // namespace

Catalog readCatalog(Connection& c, const std::string& onlySchema) {
    // Every relation (table, partitioned table, view) of a user schema and
    // every enum type: pg_catalog only, one statement each.
    const std::string schemaFilter =
        "n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE "
        "'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%' AND ($1::text IS NULL OR "
        "n.nspname = $1::text)";
    const Param only = onlySchema.empty() ? Param() : Param(onlySchema);
    std::map<std::string, Schema> schemas;
    const Result ns = c.exec("SELECT n.nspname FROM pg_catalog.pg_namespace n WHERE " +
                                 schemaFilter + " ORDER BY 1",
                             {only});
    for (int i = 0; i < ns.rows(); ++i)
        schemas[ns.text(i, 0)];
    const Result rel = c.exec("SELECT n.nspname, c.relname FROM pg_catalog.pg_class c JOIN "
                              "pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE "
                              "c.relkind IN ('r', 'p', 'v', 'm', 'f') AND " +
                                  schemaFilter,
                              {only});
    for (int i = 0; i < rel.rows(); ++i)
        schemas[rel.text(i, 0)].tables.insert(rel.text(i, 1));
    const Result en = c.exec("SELECT n.nspname, t.typname FROM pg_catalog.pg_type t JOIN "
                             "pg_catalog.pg_namespace n ON n.oid = t.typnamespace WHERE "
                             "t.typtype = 'e' AND " +
                                 schemaFilter,
                             {only});
    for (int i = 0; i < en.rows(); ++i)
        schemas[en.text(i, 0)].enums.insert(en.text(i, 1));

    Catalog cat;
    for (const auto& [name, s] : schemas)
        cat.searched.push_back(name);
    if (const auto pub = schemas.find("public"); pub != schemas.end())
        recognise(pub->first, pub->second, cat.found);
    for (const auto& [name, s] : schemas)
        if (name != "public")
            recognise(name, s, cat.found);
    // GoodJob 4's lock columns, where its migration added them.
    for (Found& f : cat.found) {
        if (f.library != "good-job")
            continue;
        const Result cols = c.exec(
            "SELECT c.relname || '.' || a.attname FROM pg_catalog.pg_attribute a JOIN "
            "pg_catalog.pg_class c ON c.oid = a.attrelid JOIN pg_catalog.pg_namespace n ON n.oid "
            "= c.relnamespace WHERE n.nspname = $1 AND ((c.relname = 'good_jobs' AND a.attname = "
            "'locked_by_id') OR (c.relname = 'good_job_processes' AND a.attname = 'lock_type')) "
            "AND NOT a.attisdropped ORDER BY 1",
            {f.schema});
        for (int i = 0; i < cols.rows(); ++i)
            f.columns.push_back(cols.text(i, 0));
    }
    return cat;
}

std::string libraryName(const std::string& library) {
    static const std::map<std::string, std::string> names = {
        {"solid-queue", "Solid Queue"},
        {"oban", "Oban"},
        {"river", "River"},
        {"good-job", "GoodJob"},
        {"pg-boss", "pg-boss"},
        {"graphile-worker", "Graphile Worker"}};
    const auto it = names.find(library);
    return it == names.end() ? library : it->second;
}

} // namespace lq::core::pg
