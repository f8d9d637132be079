// SPDX-License-Identifier: MIT
// lqbench remote: time to first page, a page jump and an external change
// becoming visible, over ssh (LQ_SSH_OPTS / LQ_REMOTE_LQCTL as for lqctl)
// against the same file opened locally; then `lqctl exporter` on a folder
// of queues: a cold and a warm scrape and the exporter's peak RSS.
#include "remotebench.h"

#include <core/json.h>
#include <core/queue.h>
#include <core/remote/client.h>
#include <support/net.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>
#include <vector>

extern char** environ;

namespace lq::bench {

namespace {

using Clock = std::chrono::steady_clock;
using core::Json;

double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/// Starts argv[0] (a path) with this process's environment; -1 on failure.
pid_t spawn(std::vector<std::string> argv) {
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (auto& a : argv)
        args.push_back(a.data());
    args.push_back(nullptr);
    pid_t pid = -1;
    if (posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), environ) != 0)
        return -1;
    return pid;
}

int spawnWait(std::vector<std::string> argv) {
    const pid_t pid = spawn(std::move(argv));
    if (pid < 0)
        return -1;
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void ensureQueue(const RemoteOptions& o, const std::string& path, long rows) {
    if (std::filesystem::exists(path))
        return;
    if (spawnWait({o.mkqueue, path, "--rows", std::to_string(rows), "--seed", "7"}) != 0)
        throw std::runtime_error("lqmkqueue failed for " + path);
}

std::unique_ptr<core::remote::RemoteQueue> openRemote(const RemoteOptions& o,
                                                      const std::string& path) {
    if (o.urlPrefix.empty())
        return core::remote::RemoteQueue::open(
            core::remote::Session::spawn({o.lqctl, "serve", "--stdio"}, "pipe"), path);
    return core::remote::RemoteQueue::open(o.urlPrefix + path);
}

/// Kilobytes of the process's peak resident set (VmHWM).
long peakRssKb(pid_t pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(f, line);) {
        if (line.rfind("VmHWM:", 0) == 0)
            return std::atol(line.c_str() + 6);
    }
    return -1;
}

} // namespace

int runRemote(const RemoteOptions& o) {
    std::filesystem::create_directories(o.dir);
    const std::string big =
        o.file.empty() ? o.dir + "/q-" + std::to_string(o.rows) + ".sqlite3" : o.file;
    ensureQueue(o, big, o.rows);
    const std::string path = std::filesystem::absolute(big).lexically_normal().string();
    const core::Filter all;
    const core::Sort arrival;
    constexpr int kPage = 100;
    constexpr int kRounds = 5;

    // 1. Open to first page (the count the scroll bar needs, then a page).
    std::vector<double> localOpen;
    std::vector<double> remoteOpen;
    for (int i = 0; i < kRounds; ++i) {
        auto t0 = Clock::now();
        {
            core::OpenOptions ro;
            ro.readOnly = true;
            auto q = core::Queue::open(path, ro);
            (void)q->count(all);
            (void)q->list(all, arrival, 0, kPage);
        }
        localOpen.push_back(msSince(t0));
        t0 = Clock::now();
        {
            auto r = openRemote(o, path);
            (void)r->count(all);
            (void)r->list(all, arrival, 0, kPage);
        }
        remoteOpen.push_back(msSince(t0));
    }

    // 2. A page jump to the middle.
    core::OpenOptions ro;
    ro.readOnly = true;
    auto local = core::Queue::open(path, ro);
    auto remote = openRemote(o, path);
    std::vector<double> localJump;
    std::vector<double> remoteJump;
    for (int i = 0; i < kRounds; ++i) {
        const std::int64_t at = o.rows / 2 + static_cast<std::int64_t>(i) * 1000;
        auto t0 = Clock::now();
        (void)local->list(all, arrival, at, kPage);
        localJump.push_back(msSince(t0));
        t0 = Clock::now();
        (void)remote->list(all, arrival, at, kPage);
        remoteJump.push_back(msSince(t0));
    }

    // 3. An external commit becoming visible. Locally: a watcher polling
    // data_version every 100 ms on its own clock, as lqadmin's and the
    // server's do; remotely: the server's pushed notification. Both from
    // the moment the commit returned.
    auto writer = core::Queue::open(path);
    std::vector<double> localSeen;
    std::vector<double> remoteSeen;
    std::atomic<std::int64_t> localSeenAt{0};
    std::atomic_bool stop{false};
    std::thread poller([&] {
        std::int64_t v = local->dataVersion();
        while (!stop) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            const std::int64_t now = local->dataVersion();
            if (now != v)
                localSeenAt = Clock::now().time_since_epoch().count();
            v = now;
        }
    });
    for (int i = 0; i < kRounds * 2; ++i) {
        remote->session().takeEvents();
        localSeenAt = 0;
        // Commits land at a random phase of both pollers.
        std::this_thread::sleep_for(std::chrono::milliseconds(37 * (i + 1) % 100));
        writer->put("bench change " + std::to_string(i));
        const auto t0 = Clock::now();
        bool seen = false;
        while (!seen && remote->session().waitEvent(5000)) {
            for (const auto& ev : remote->session().takeEvents())
                seen = seen || ev["event"].toString() == "changed";
        }
        remoteSeen.push_back(seen ? msSince(t0) : 5000);
        while (localSeenAt == 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        localSeen.push_back(std::chrono::duration<double, std::milli>(
                                Clock::time_point(Clock::duration(localSeenAt.load())) - t0)
                                .count());
    }
    stop = true;
    poller.join();

    // 1b. The first page on a connection already open: what the ssh
    // handshake leaves out.
    std::vector<double> remotePage;
    for (int i = 0; i < kRounds; ++i) {
        const auto t0 = Clock::now();
        (void)remote->count(all);
        (void)remote->list(all, arrival, 0, kPage);
        remotePage.push_back(msSince(t0));
    }

    // 4. The exporter on a folder of queues.
    const std::string fleet =
        o.dir + "/fleet-" + std::to_string(o.queues) + "x" + std::to_string(o.queueRows);
    std::filesystem::create_directories(fleet);
    for (int i = 0; i < o.queues; ++i)
        ensureQueue(o, fleet + "/q" + std::to_string(i) + ".sqlite3", o.queueRows);
    const int port = test::freePort();
    const pid_t pid = spawn({o.lqctl, "exporter", "--listen=127.0.0.1:" + std::to_string(port),
                             "--interval=60", fleet});
    if (pid < 0)
        throw std::runtime_error("cannot start lqctl exporter");
    std::pair<int, std::string> scrape;
    for (int i = 0; i < 100 && scrape.first == 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        scrape = test::httpGet(port, "/"); // 404: listening
    }
    auto t0 = Clock::now();
    scrape = test::httpGet(port, "/metrics");
    const double cold = msSince(t0);
    t0 = Clock::now();
    const auto warmScrape = test::httpGet(port, "/metrics");
    const double warm = msSince(t0);
    const long rss = peakRssKb(pid);
    ::kill(pid, SIGTERM);
    ::waitpid(pid, nullptr, 0);
    std::size_t series = 0;
    for (std::size_t p = 0; (p = scrape.second.find("\nlq_messages{", p)) != std::string::npos; ++p)
        ++series;

    Json j = Json::object();
    j.set("transport", o.urlPrefix.empty() ? std::string("pipe") : o.urlPrefix);
    j.set("rows", static_cast<std::int64_t>(o.rows));
    j.set("first_page_local_ms", median(localOpen));
    j.set("first_page_remote_ms", median(remoteOpen));
    j.set("first_page_ratio", median(remoteOpen) / median(localOpen));
    j.set("first_page_connected_remote_ms", median(remotePage));
    j.set("first_page_connected_ratio", median(remotePage) / median(localOpen));
    j.set("page_jump_local_ms", median(localJump));
    j.set("page_jump_remote_ms", median(remoteJump));
    j.set("page_jump_ratio", median(remoteJump) / median(localJump));
    j.set("change_visible_local_ms", median(localSeen));
    j.set("change_visible_remote_ms", median(remoteSeen));
    j.set("change_visible_ratio", median(remoteSeen) / median(localSeen));
    j.set("exporter_queues", o.queues);
    j.set("exporter_rows_per_queue", static_cast<std::int64_t>(o.queueRows));
    j.set("exporter_status", scrape.first);
    j.set("exporter_lq_messages_series", static_cast<std::int64_t>(series));
    j.set("exporter_cold_scrape_ms", cold);
    j.set("exporter_warm_scrape_ms", warm);
    j.set("exporter_warm_status", warmScrape.first);
    j.set("exporter_peak_rss_kb", static_cast<std::int64_t>(rss));
    std::printf("%s\n", j.dump(o.json ? -1 : 2).c_str());
    return scrape.first == 200 ? 0 : 1;
}

} // namespace lq::bench
