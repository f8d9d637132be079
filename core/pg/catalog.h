// SPDX-License-Identifier: MIT
#pragma once

// Which queue libraries' tables a PostgreSQL database holds, per schema,
// read from pg_catalog alone (two read-only statements, no table of a
// library is read). docs/FORMATS.md#postgresql cites the upstream DDL each
// signature comes from.
//
//   solid-queue      solid_queue_jobs + its ready, claimed, failed and
//                    scheduled executions + solid_queue_processes
//                    (rails/solid_queue queue_schema.rb)
//   oban             oban_jobs + enum oban_job_state (oban Postgres migrations)
//   river            river_job + enum river_job_state (riverpgxv5 migrations)
//   good-job         good_jobs, good_job_executions, good_job_processes
//   pg-boss          job + version + enum job_state (its `pgboss` schema)
//   graphile-worker  _private_jobs + _private_tasks (v0.16+), or jobs +
//                    tasks + job_queues in a schema named graphile_worker

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace lq::core::pg {

class Connection;

/// One library's tables found in one schema.
struct Found {
    std::string schema;
    std::string library;              ///< "solid-queue", "oban", "river", ...
    std::vector<std::string> tables;  ///< its tables present, sorted
    std::vector<std::string> missing; ///< optional tables it lacks (SQ blocked executions)
    /// Columns a later version of the library added, as "table.column",
    /// where they are there (GoodJob 4's good_jobs.locked_by_id and
    /// good_job_processes.lock_type).
    std::vector<std::string> columns;

    /// `table` is among its tables.
    bool has(std::string_view table) const {
        return std::find(tables.begin(), tables.end(), table) != tables.end();
    }
    /// `column` ("table.column") is among columns.
    bool hasColumn(std::string_view column) const {
        return std::find(columns.begin(), columns.end(), column) != columns.end();
    }
};

struct Catalog {
    std::vector<Found> found;          ///< public first, then by schema name
    std::vector<std::string> searched; ///< every schema looked at, sorted
};

/// Reads the catalog through `c`; `onlySchema` (non-empty) looks at that
/// schema only. Never throws for a database without queues (found is then
/// empty); throws lq::core::Error for a failed query.
Catalog readCatalog(Connection& c, const std::string& onlySchema = {});

/// The library's name as its authors write it ("Solid Queue", "pg-boss").
std::string libraryName(const std::string& library);

} // namespace lq::core::pg
