// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace lq::bench {

struct PgBenchOptions {
    std::string self;       ///< this lqbench, for its gui-launch children
    std::string ddl;        ///< tests/data/pg/solid-queue.sql
    int rows = 1000000;     ///< jobs in the large schema
    int smallRows = 50;     ///< jobs in the small one (what the size adds is the difference)
    int launches = 3;       ///< launches of each, alternating
    int changes = 12;       ///< another session's changes timed on the large one
    std::string explainOut; ///< where the statements' plans go (markdown); "" to skip
    bool json = false;
    bool serve = false; ///< grow, print the URLs, and serve until stdin closes (by hand)
};

/// `lqbench pg` (issue 41): Solid Queue on a private PostgreSQL 15 server,
/// grown to `rows` jobs with the mix `lqbench formats` writes on SQLite;
/// the real window launched on it and on a small schema, alternating
/// (launch -> first rows painted, from the kernel's process start), then
/// another session (psql) moving shown jobs between READY and SCHEDULED as
/// Solid Queue does, timed to the repainted row. With --explain FILE, one
/// more launch with auto_explain on: every statement lqadmin sent, with its
/// EXPLAIN (ANALYZE, BUFFERS) plan, slowest first.
int runPgBench(const PgBenchOptions& o);

} // namespace lq::bench
