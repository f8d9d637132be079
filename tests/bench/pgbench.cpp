// SPDX-License-Identifier: MIT
// lqbench pg (tests/bench/pgbench.h).
#include "pgbench.h"

#include "core/json.h"
#include "launchbench.h"
#include "support/pgserver.h"

#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

namespace lq::bench {

namespace {

/// What Solid Queue's scheduling and dispatch do to one job, in one
/// transaction ("{id}" is the job).
const char* const kToScheduled =
    "BEGIN; DELETE FROM sq.solid_queue_ready_executions WHERE job_id = {id}; UPDATE "
    "sq.solid_queue_jobs SET scheduled_at = now() AT TIME ZONE 'UTC' + interval '1 year' WHERE id "
    "= {id}; INSERT INTO sq.solid_queue_scheduled_executions (job_id, queue_name, priority, "
    "scheduled_at, created_at) SELECT id, queue_name, priority, scheduled_at, now() AT TIME ZONE "
    "'UTC' FROM sq.solid_queue_jobs WHERE id = {id}; COMMIT;";
const char* const kToReady =
    "BEGIN; DELETE FROM sq.solid_queue_scheduled_executions WHERE job_id = {id}; UPDATE "
    "sq.solid_queue_jobs SET scheduled_at = now() AT TIME ZONE 'UTC' WHERE id = {id}; INSERT INTO "
    "sq.solid_queue_ready_executions (job_id, queue_name, priority, created_at) SELECT id, "
    "queue_name, priority, now() AT TIME ZONE 'UTC' FROM sq.solid_queue_jobs WHERE id = {id}; "
    "COMMIT;";

struct Plan {
    double ms = 0;
    int calls = 0;
    std::string text; ///< the slowest call's query and plan
};

/// auto_explain's entries in the server log from sessions named lqadmin,
/// by query text: the slowest call of each, and how many there were.
std::map<std::string, Plan> plansFromLog(const QString& path) {
    std::map<std::string, Plan> out;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return out;
    const QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
    static const QRegularExpression head(
        QStringLiteral("^\\S+ \\S+ \\S+ \\[\\d+\\] (\\S*): LOG:  duration: ([0-9.]+) ms  plan:$"));
    for (int i = 0; i < lines.size(); ++i) {
        const auto m = head.match(lines[i]);
        if (!m.hasMatch() || m.captured(1) != QLatin1String("lqadmin"))
            continue;
        QString body;
        QString query;
        int j = i + 1;
        for (; j < lines.size() &&
               (lines[j].startsWith(QLatin1Char('\t')) || lines[j].startsWith(QLatin1Char(' ')));
             ++j) {
            const QString l = lines[j].trimmed();
            if (l.startsWith(QLatin1String("Query Text:")))
                query = l.mid(11).trimmed();
            body += lines[j] + QLatin1Char('\n');
        }
        i = j - 1;
        const double ms = m.captured(2).toDouble();
        Plan& p = out[query.toStdString()];
        ++p.calls;
        if (ms >= p.ms) {
            p.ms = ms;
            p.text = body.toStdString();
        }
    }
    return out;
}

std::vector<std::string> changeArgs(int changes, const std::string& psql) {
    return {"--changes",
            std::to_string(changes),
            "--to-scheduled-sql",
            kToScheduled,
            "--to-ready-sql",
            kToReady,
            "--psql",
            psql};
}

} // namespace

int runPgBench(const PgBenchOptions& o) {
    QElapsedTimer t;
    t.start();
    // auto_explain is loaded into every session but off (its default
    // log_min_duration, -1) until --explain's last launch turns it on (a
    // setting given here could not be changed by ALTER SYSTEM).
    test::PgServer pg(QStringLiteral("lqbench"),
                      {QStringLiteral("shared_buffers=256MB"), QStringLiteral("work_mem=16MB"),
                       QStringLiteral("session_preload_libraries=auto_explain"),
                       QStringLiteral("auto_explain.log_analyze=on"),
                       QStringLiteral("auto_explain.log_buffers=on"),
                       QStringLiteral("auto_explain.log_nested_statements=on"),
                       QStringLiteral("log_line_prefix='%m [%p] %a: '")});
    if (!pg.ok()) {
        std::fprintf(stderr, "lqbench pg: %s\n", qPrintable(pg.error()));
        return 1;
    }
    QFile ddlFile(QString::fromStdString(o.ddl));
    if (!ddlFile.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "lqbench pg: cannot read %s\n", o.ddl.c_str());
        return 1;
    }
    const QString ddl = QString::fromUtf8(ddlFile.readAll());
    for (const auto& [schema, rows] :
         {std::pair{"sq", o.rows}, std::pair{"sqsmall", o.smallRows}}) {
        const QString err = pg.execScript(
            ddl + QLatin1Char(';') + lq::test::solidQueueGrowSql(rows), QLatin1String(schema));
        if (!err.isEmpty()) {
            std::fprintf(stderr, "lqbench pg: growing %s: %s\n", schema, qPrintable(err));
            return 1;
        }
    }
    const double grownMs = double(t.elapsed());
    std::fprintf(stderr, "lqbench pg: %d + %d jobs written in %.1f s\n", o.rows, o.smallRows,
                 grownMs / 1000);
    const std::string base = pg.url().toStdString();
    const std::string large = base + "?schema=sq";
    const std::string small = base + "?schema=sqsmall";
    if (o.serve) {
        std::printf("%s\n%s\n", large.c_str(), small.c_str());
        std::fflush(stdout);
        while (std::getchar() != EOF) {
        }
        return 0;
    }
    const std::string psql =
        QString(test::PgServer::binDir() + QStringLiteral("/psql")).toStdString();

    std::vector<double> big, little, changes, estimated, counted;
    std::string error;
    for (int i = 0; i < o.launches; ++i)
        for (const std::string* u : {&small, &large}) {
            const auto j = launchOnce(o.self, *u, {}, &error);
            if (!j || (*j)["launch_to_rows_ms"].toDouble() < 0) {
                std::fprintf(stderr, "lqbench pg: launch on %s failed %s\n", u->c_str(),
                             error.c_str());
                return 1;
            }
            (u == &large ? big : little).push_back((*j)["launch_to_rows_ms"].toDouble());
            if (u == &large) {
                estimated.push_back((*j)["launch_to_estimated_counts_ms"].toDouble());
                counted.push_back((*j)["launch_to_counts_ms"].toDouble());
            }
        }
    if (o.changes > 0) {
        const auto j = launchOnce(o.self, large, changeArgs(o.changes, psql), &error);
        if (!j) {
            std::fprintf(stderr, "lqbench pg: %s\n", error.c_str());
            return 1;
        }
        for (const core::Json& c : (*j)["changes_ms"].toArray())
            changes.push_back(c.toDouble());
    }

    core::Json r = core::Json::object();
    r.set("rows", o.rows);
    r.set("launch_to_rows_ms", median(big));
    r.set("launch_to_rows_small_ms", median(little));
    r.set("launch_cost_ms", median(big) - median(little));
    // -1: never painted (no estimate where the exact counts are quick).
    r.set("launch_to_estimated_counts_ms", median(estimated));
    r.set("launch_to_counts_ms", median(counted));
    if (!changes.empty()) {
        r.set("external_change_ms", median(changes));
        r.set("external_change_p95_ms", percentile(changes, 0.95));
    }

    if (!o.explainOut.empty()) {
        // auto_explain for lqadmin's new sessions, then one more launch.
        // ALTER SYSTEM runs outside a transaction: a statement of its own.
        QString why;
        for (const char* set : {"auto_explain.log_min_duration = 0"})
            if (why.isEmpty())
                why = pg.execScript(QStringLiteral("ALTER SYSTEM SET ") + QLatin1String(set));
        if (why.isEmpty())
            why = pg.execScript(QStringLiteral("SELECT pg_reload_conf()"));
        if (!why.isEmpty()) {
            std::fprintf(stderr, "lqbench pg: auto_explain: %s\n", qPrintable(why));
            return 1;
        }
        if (!launchOnce(o.self, large, changeArgs(2, psql), &error)) {
            std::fprintf(stderr, "lqbench pg: %s\n", error.c_str());
            return 1;
        }
        if (qEnvironmentVariableIsSet("LQBENCH_PG_LOG"))
            QFile::copy(pg.logPath(), qEnvironmentVariable("LQBENCH_PG_LOG"));
        std::vector<std::pair<std::string, Plan>> plans;
        for (auto& [q, p] : plansFromLog(pg.logPath()))
            plans.emplace_back(q, std::move(p));
        std::sort(plans.begin(), plans.end(),
                  [](const auto& a, const auto& b) { return a.second.ms > b.second.ms; });
        QFile out(QString::fromStdString(o.explainOut));
        if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            std::fprintf(stderr, "lqbench pg: cannot write %s\n", o.explainOut.c_str());
            return 1;
        }
        std::string md = "Statements lqadmin sent in one launch on " + std::to_string(o.rows) +
                         " Solid Queue jobs (and two changes), slowest call first; " +
                         "auto_explain, ANALYZE and BUFFERS.\n\n";
        for (const auto& [q, p] : plans) {
            char line[96];
            std::snprintf(line, sizeof line, "### %.1f ms (slowest of %d call(s))\n\n", p.ms,
                          p.calls);
            md += line;
            md += "```\n" + p.text + "```\n\n";
        }
        out.write(md.data(), static_cast<qint64>(md.size()));
        r.set("statements", static_cast<std::int64_t>(plans.size()));
        r.set("slowest_statement_ms", plans.empty() ? 0.0 : plans.front().second.ms);
    }

    if (o.json) {
        std::printf("%s\n", r.dump().c_str());
    } else {
        std::printf("lqbench pg, Solid Queue on PostgreSQL 15, %d jobs (written in %.1f s)\n",
                    o.rows, grownMs / 1000);
        std::printf("  launch -> first rows: %.1f ms (%d jobs: %.1f ms; the size adds %.1f ms, "
                    "target 50)\n",
                    median(big), o.smallRows, median(little), median(big) - median(little));
        std::printf("  launch -> counts on the chips: estimated %.1f ms, exact %.1f ms (-1: none "
                    "painted)\n",
                    median(estimated), median(counted));
        if (!changes.empty())
            std::printf("  another session's change -> row repainted: median %.0f ms, p95 %.0f "
                        "ms (targets 250 / 400)\n",
                        median(changes), percentile(changes, 0.95));
    }
    return 0;
}

} // namespace lq::bench
