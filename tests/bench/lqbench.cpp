// SPDX-License-Identifier: MIT
// lqbench: the project's benchmarks. `lqbench core [--ops N] [--rounds R]
// [--batch B] [--json]`.
#include "corebench.h"
#include "formatbench.h"
#include "guibench.h"
#include "launchbench.h"
#include "observerbench.h"
#include "pgbench.h"
#include "remotebench.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {
int usage() {
    std::fprintf(stderr,
                 "usage: lqbench core [--ops N] [--rounds R] [--batch B] [--dir D] "
                 "[--json]\n       lqbench gui [--rows N] [--file F] [--launches R] "
                 "[--check FACTOR] [--json]\n"
                 "       lqbench remote [--url ssh://USER@HOST[:PORT]] [--rows N] [--file F] "
                 "[--queues N] [--queue-rows N] [--dir D] [--json]\n"
                 "       lqbench pg [--rows N] [--launches R] [--changes C] [--explain FILE] "
                 "[--json] [--serve]\n"
                 "       lqbench formats --fixture F [--rows N] [--launches R] [--changes C] "
                 "[--dir D] [--check FACTOR] [--keep]\n"
                 "       lqbench observer [--rows N] [--seconds S] [--formats laravel,solidqueue] "
                 "[--observers none,lqadmin,dashboard,watch,exporter,fleet] [--busy-timeout-ms MS] "
                 "[--producer-busy-timeout-ms MS] "
                 "[--rate JOBS_PER_S] [--dir D] [--keep] [--no-cache] [--json] [--check]\n"
                 "         (observers: one run each, a+b for both at once; none, the workers "
                 "alone, always runs\n"
                 "         first and last, and where listed between two observers; the grown files "
                 "stay in --dir for the next run "
                 "unless --no-cache;\n"
                 "         --keep keeps the runs' copies and logs; --check: exit 1 when a write "
                 "said \"database is\n"
                 "         locked\" after waiting out the busy timeout, beside the observers "
                 "twice running)\n");
    return 2;
}
} // namespace

int main(int argc, char** argv) {
    if (argc < 2)
        return usage();
    const std::string cmd = argv[1];
    if (cmd == "core") {
        lq::bench::CoreOptions o;
        for (int i = 2; i < argc; ++i) {
            const std::string a = argv[i];
            const auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
            if (a == "--json") {
                o.json = true;
            } else if (a == "--ops" || a == "--rounds" || a == "--batch" || a == "--dir") {
                const char* v = next();
                if (!v)
                    return usage();
                if (a == "--dir")
                    o.dir = v;
                else
                    (a == "--ops" ? o.ops : a == "--rounds" ? o.rounds : o.batch) = std::atoi(v);
            } else {
                return usage();
            }
        }
        if (o.ops <= 0 || o.rounds <= 0)
            return usage();
        try {
            return lq::bench::runCore(o);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "lqbench: %s\n", e.what());
            return 1;
        }
    }
    if (cmd == "gui-launch" && argc >= 3) {
        lq::bench::LaunchOptions o;
        o.file = argv[2];
        for (int i = 3; i + 1 < argc; i += 2) {
            const std::string a = argv[i];
            if (a == "--changes")
                o.changes = std::atoi(argv[i + 1]);
            else if (a == "--checkpoint-every")
                o.checkpointEvery = std::atoi(argv[i + 1]);
            else if (a == "--to-scheduled-sql")
                o.toScheduledSql = argv[i + 1];
            else if (a == "--to-ready-sql")
                o.toReadySql = argv[i + 1];
            else if (a == "--psql")
                o.psql = argv[i + 1];
            else
                return usage();
        }
        int qargc = 1;
        return lq::bench::runGuiLaunch(qargc, argv, o);
    }
    if (cmd == "gui") {
        lq::bench::GuiOptions o;
        o.mkqueue = LQ_MKQUEUE;
        o.lqctl = LQ_LQCTL;
        o.self = argv[0];
        for (int i = 2; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--json")
                o.json = true;
            else if (a == "--rows" && i + 1 < argc)
                o.rows = std::atol(argv[++i]);
            else if (a == "--check" && i + 1 < argc)
                o.checkFactor = std::atof(argv[++i]);
            else if (a == "--file" && i + 1 < argc)
                o.file = argv[++i];
            else if (a == "--launches" && i + 1 < argc)
                o.launches = std::atoi(argv[++i]);
            else
                return usage();
        }
        if (o.rows <= 0)
            return usage();
        int qargc = 1;
        return lq::bench::runGui(qargc, argv, o);
    }
    if (cmd == "formats") {
        lq::bench::FormatOptions o;
        o.self = argv[0];
        for (int i = 2; i < argc; ++i) {
            const std::string a = argv[i];
            const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
            if (a == "--keep") {
                o.keep = true;
                continue;
            }
            if (!v)
                return usage();
            ++i;
            if (a == "--fixture")
                o.fixture = v;
            else if (a == "--rows")
                o.rows = std::atol(v);
            else if (a == "--launches")
                o.launches = std::atoi(v);
            else if (a == "--changes")
                o.changes = std::atoi(v);
            else if (a == "--dir")
                o.dir = v;
            else if (a == "--check")
                o.checkFactor = std::atof(v);
            else
                return usage();
        }
        if (o.fixture.empty() || o.rows <= 0 || o.launches <= 0)
            return usage();
        try {
            return lq::bench::runFormats(o);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "lqbench: %s\n", e.what());
            return 1;
        }
    }
    if (cmd == "observer") {
        lq::bench::ObserverOptions o;
        o.lqadmin = LQ_LQADMIN;
        o.lqctl = LQ_LQCTL;
        o.scripts = LQ_OBSERVER_SCRIPTS;
        o.fixtures = LQ_FORMAT_FIXTURES;
        const auto list = [](const char* v) {
            std::vector<std::string> out;
            std::string s = v;
            for (std::size_t at = 0; at <= s.size();) {
                const std::size_t comma = std::min(s.find(',', at), s.size());
                if (comma > at)
                    out.push_back(s.substr(at, comma - at));
                at = comma + 1;
            }
            return out;
        };
        for (int i = 2; i < argc; ++i) {
            const std::string a = argv[i];
            const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
            if (a == "--keep" || a == "--json" || a == "--check" || a == "--no-cache") {
                (a == "--keep"    ? o.keep
                 : a == "--json"  ? o.json
                 : a == "--check" ? o.check
                                  : o.noCache) = true;
                continue;
            }
            if (!v)
                return usage();
            ++i;
            if (a == "--rows")
                o.rows = std::atol(v);
            else if (a == "--seconds")
                o.seconds = std::atoi(v);
            else if (a == "--formats")
                o.formats = list(v);
            else if (a == "--observers")
                o.observers = list(v);
            else if (a == "--busy-timeout-ms")
                o.busyTimeoutMs = std::atoi(v);
            else if (a == "--producer-busy-timeout-ms")
                o.producerBusyTimeoutMs = std::atoi(v);
            else if (a == "--rate")
                o.rate = std::atoi(v);
            else if (a == "--dir")
                o.dir = v;
            else
                return usage();
        }
        if (o.rows <= 0 || o.seconds <= 0 || o.busyTimeoutMs < 0 || o.producerBusyTimeoutMs < 0 ||
            o.rate <= 0 || o.formats.empty())
            return usage();
        try {
            int qargc = 1;
            return lq::bench::runObserver(qargc, argv, o);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "lqbench: %s\n", e.what());
            return 1;
        }
    }
    if (cmd == "pg") {
        lq::bench::PgBenchOptions o;
        o.self = argv[0];
        o.ddl = LQ_PG_DATA "/solid-queue.sql";
        for (int i = 2; i < argc; ++i) {
            const std::string a = argv[i];
            const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
            if (a == "--json")
                o.json = true;
            else if (a == "--rows" && v)
                o.rows = std::atoi(argv[++i]);
            else if (a == "--launches" && v)
                o.launches = std::atoi(argv[++i]);
            else if (a == "--changes" && v)
                o.changes = std::atoi(argv[++i]);
            else if (a == "--explain" && v)
                o.explainOut = argv[++i];
            else if (a == "--serve")
                o.serve = true;
            else
                return usage();
        }
        return lq::bench::runPgBench(o);
    }
    if (cmd == "remote") {
        lq::bench::RemoteOptions o;
        o.mkqueue = LQ_MKQUEUE;
        o.lqctl = LQ_LQCTL;
        for (int i = 2; i < argc; ++i) {
            const std::string a = argv[i];
            const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
            if (a == "--json") {
                o.json = true;
                continue;
            }
            if (!v)
                return usage();
            ++i;
            if (a == "--rows")
                o.rows = std::atol(v);
            else if (a == "--file")
                o.file = v;
            else if (a == "--url")
                o.urlPrefix = v;
            else if (a == "--queues")
                o.queues = std::atoi(v);
            else if (a == "--queue-rows")
                o.queueRows = std::atol(v);
            else if (a == "--dir")
                o.dir = v;
            else
                return usage();
        }
        if (o.rows <= 0 || o.queues <= 0 || o.queueRows <= 0)
            return usage();
        try {
            return lq::bench::runRemote(o);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "lqbench: %s\n", e.what());
            return 1;
        }
    }
    return usage();
}
