// SPDX-License-Identifier: MIT
// lqbench formats: what a user sees on a large file of another queue format
// (a 1,000,000-job Solid Queue file and a 1,000,000-job Laravel
// file against the docs/BENCHMARKS.md targets). The fixture is grown to N jobs by SQL
// that writes rows as the library does (times in its encodings, executions
// beside the jobs); then the real main window is launched on the fixture (a
// few dozen jobs) and on the grown file, alternating, and another process
// moves shown jobs between READY and SCHEDULED as the library would.
#include "formatbench.h"
#include "formatprofiles.h"
#include "growfile.h"
#include "rawreference.h"

#include "launchbench.h"

#include "core/format.h"
#include "core/json.h"
#include "core/queue.h"

#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace lq::bench {

namespace {

std::string formatOf(const std::string& path) {
    core::OpenOptions o;
    o.readOnly = true;
    return core::formatId(core::Queue::open(path, o)->info().format);
}

} // namespace

int runFormats(const FormatOptions& o) {
    namespace fs = std::filesystem;
    const std::string id = formatOf(o.fixture);
    const auto it = formatProfiles().find(id);
    if (it == formatProfiles().end()) {
        std::fprintf(stderr, "lqbench formats: no profile for %s files (%s)\n", id.c_str(),
                     o.fixture.c_str());
        return 2;
    }
    const FormatProfile& p = it->second;
    fs::create_directories(o.dir);
    const std::string small = (fs::path(o.dir) / ("lqbench-" + id + "-fixture.sqlite3")).string();
    const std::string large =
        (fs::path(o.dir) / ("lqbench-" + id + "-" + std::to_string(o.rows) + ".sqlite3")).string();
    for (const std::string& f : {small, large})
        for (const char* suffix : {"", "-wal", "-shm", "-journal"})
            fs::remove(f + suffix);
    fs::copy_file(o.fixture, small);
    fs::copy_file(o.fixture, large);
    const auto g0 = std::chrono::steady_clock::now();
    grow(large, p, o.rows);
    const double growS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - g0).count();
    std::fprintf(stderr, "lqbench formats: %s grown by %ld jobs in %.1f s (%s)\n", id.c_str(),
                 o.rows, growS, large.c_str());

    std::vector<double> big, little, change, rss;
    std::string error;
    std::string platform;
    for (int i = 0; i < o.launches; ++i) {
        for (const std::string* f : {&small, &large}) {
            const auto j = launchOnce(o.self, *f, {}, &error);
            if (!j || (*j)["launch_to_rows_ms"].toDouble() < 0) {
                std::fprintf(stderr, "lqbench formats: %s\n",
                             j ? "no data rows painted within 30 s" : error.c_str());
                return 1;
            }
            platform = (*j)["platform"].toString();
            (f == &large ? big : little).push_back((*j)["launch_to_rows_ms"].toDouble());
            if (f == &large)
                rss.push_back((*j)["peak_rss_mb"].toDouble());
        }
    }
    const auto j = launchOnce(o.self, large,
                              {"--changes", std::to_string(o.changes), "--to-scheduled-sql",
                               p.toScheduled, "--to-ready-sql", p.toReady},
                              &error);
    if (!j) {
        std::fprintf(stderr, "lqbench formats: %s\n", error.c_str());
        return 1;
    }
    for (const core::Json& c : (*j)["changes_ms"].toArray())
        change.push_back(c.toDouble());

    // docs/BENCHMARKS.md: counts within 1.3x of raw SQLite doing the same work, in the
    // same run, on the grown file (best of 5 each, read-only connections).
    core::OpenOptions ro;
    ro.readOnly = true;
    auto q = core::Queue::open(large, ro);
    RawReference raw(large);
    std::int64_t stored = -1;
    std::int64_t rawStored = -1;
    const double countsMs = RawReference::best(5, [&] { stored = q->counts().stored; });
    const double rawCountsMs = RawReference::best(5, [&] {
        raw.each(p.raw.counts.c_str(),
                 [&](sqlite3_stmt* st) { rawStored = sqlite3_column_int64(st, 0); });
    });
    if (stored != rawStored) {
        std::fprintf(stderr, "lqbench formats: counts say %lld jobs, the raw query %lld\n",
                     static_cast<long long>(stored), static_cast<long long>(rawStored));
        return 1;
    }

    core::Json r = core::Json::object();
    r.set("format", id);
    r.set("rows_added", static_cast<std::int64_t>(o.rows));
    r.set("platform", platform);
    r.set("launch_to_rows_ms", median(big));
    r.set("launch_to_rows_small_ms", median(little));
    r.set("launch_cost_ms", median(big) - median(little));
    r.set("launch_rounds", static_cast<std::int64_t>(o.launches));
    r.set("external_change_ms", median(change));
    r.set("external_change_p95_ms", percentile(change, 0.95));
    r.set("external_change_count", static_cast<std::int64_t>(change.size()));
    r.set("peak_rss_mb", median(rss));
    r.set("counts_ms", countsMs);
    r.set("raw_counts_ms", rawCountsMs);
    r.set("counts_ratio", countsMs / rawCountsMs);
    r.set("counts_journal", q->info().journalMode);
    std::printf("%s\n", r.dump().c_str());
    int rc = change.empty() ? 1 : 0;
    if (change.empty())
        std::fprintf(stderr, "lqbench formats: no READY or SCHEDULED job shown to change\n");
    if (o.checkFactor > 0) {
        const std::pair<const char*, double> limits[] = {{"launch_cost_ms", 50},
                                                         {"external_change_ms", 250},
                                                         {"external_change_p95_ms", 400},
                                                         {"counts_ratio", 1.3}};
        for (const auto& [key, target] : limits) {
            if (r[key].toDouble() > target * o.checkFactor) {
                std::fprintf(stderr, "lqbench formats: %s = %.1f is over %.0f x %.1f\n", key,
                             r[key].toDouble(), target, o.checkFactor);
                rc = 1;
            }
        }
    }
    if (!o.keep)
        for (const std::string& f : {small, large})
            for (const char* suffix : {"", "-wal", "-shm", "-journal"})
                fs::remove(f + suffix);
    return rc;
}

} // namespace lq::bench
