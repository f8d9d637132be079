// SPDX-License-Identifier: MIT
// lqfuzz_open: libFuzzer target over what happens when an operator opens an
// arbitrary file: Queue::open (path checks, format detection), counts, a
// bounded listing in two orders, a filtered listing, and the statistics. Each
// input is written as a database file to a private temp folder (with any
// -wal/-shm/-journal of the previous input removed, so inputs do not leak
// into each other). Only lq::core::Error is an expected outcome: any other
// exception, crash, sanitizer report or leak is a finding.

#include "core/error.h"
#include "core/queue.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

const std::string& inputPath() {
    static const std::string path = [] {
        const char* tmp = std::getenv("TMPDIR");
        const std::filesystem::path dir = std::filesystem::path(tmp && *tmp ? tmp : "/tmp") /
                                          ("lqfuzz-" + std::to_string(getpid()));
        std::filesystem::create_directories(dir);
        return (dir / "input.sqlite3").string();
    }();
    return path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace lq::core;
    const std::string& path = inputPath();
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        std::remove((path + suffix).c_str());
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    try {
        OpenOptions o;
        o.busyTimeoutMs = 0;
        o.clock = fixedClock(1'700'000'000'000'000'000);
        auto q = Queue::open(path, o);
        (void)q->info().formatReadOnly();
        const Counts c = q->counts();
        (void)c.active();
        for (const auto& m : q->list(Filter{}, Sort{}, 0, 50)) {
            (void)m.waitNs();
            (void)m.processingNs();
            (void)m.totalNs();
            (void)m.ageNs(q->now());
            (void)m.isStuck(q->now(), 300 * kNsPerSecond);
            (void)refusalReason(Action::Retry, m);
        }
        (void)q->list(Filter{}, Sort{SortKey::Wait, true}, 0, 50);
        Filter f;
        f.states = {State::Locked, State::Failed, State::Unknown};
        f.search = "a%_";
        f.olderThan = std::chrono::seconds(1);
        (void)q->list(f, Sort{SortKey::Processing, false}, 0, 50);
        (void)q->stats();
        (void)q->peek();
    } catch (const Error&) {
        // The expected way to refuse a bad file.
    }
    return 0;
}
