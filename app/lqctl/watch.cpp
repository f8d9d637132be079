// SPDX-License-Identifier: MIT
// `lqctl watch FILE`: one line of counts at start and whenever the queue
// changes, until SIGINT/SIGTERM; with --queue NAME, the counts of that named
// queue only (like every other command).
//
// A change is noticed from PRAGMA data_version (another connection
// committed) or from the size/mtime/inode of the file and its -wal; every 2 s
// the counts are also re-read, because "stuck" moves with the clock alone.
// Reads keep the pace of core/pacing.h: a big file under busy workers is
// re-read only after a rest of a multiple of what its last read cost.
// If the file disappears, watch prints one line saying so and keeps waiting;
// when a file appears again at the path it is reopened and watching resumes.
#include "commands.h"
#include "output.h"

#include <core/backend.h>
#include <core/filestamp.h>
#include <core/pacing.h>
#include <core/timefmt.h>

#include <chrono>
#include <ctime>
#include <thread>

namespace lq::ctl {

namespace {

std::string localTimestamp() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    localtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    return buf;
}

void printLine(const std::string& line) {
    out(line);
    out("\n");
    std::fflush(stdout);
}

/// Sleeps up to `seconds`, waking early on SIGINT/SIGTERM.
void sleepInterruptible(double seconds) {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::nanoseconds(core::secondsToNs(seconds));
    while (!stopRequested()) {
        const auto left = until - std::chrono::steady_clock::now();
        if (left <= std::chrono::nanoseconds::zero())
            return;
        std::this_thread::sleep_for(
            std::min<std::chrono::nanoseconds>(left, std::chrono::milliseconds(20)));
    }
}

} // namespace

int cmdWatch(const Options& o) {
    installStopHandlers();
    // Through the backend seam: a file, or a database (no file to stat: its
    // change marker is dataVersion()).
    const bool local = !isPostgres(o);
    auto q = openBackendFor(o, false);
    checkQueueOption(o, *q);
    const std::string walPath = o.file + "-wal";
    const auto stampOf = [&](const std::string& path) {
        if (local)
            return core::fileStamp(path);
        core::FileStamp s;
        s.exists = true;
        return s;
    };

    auto countsLine = [&]() {
        const auto c = q->counts(o.stuckAfterNs(), o.queue);
        const auto wal = q->walSize();
        // The partition of the state model, as stats --json names it.
        const core::StateModel m = core::stateModel(core::QueueFormat::of(q->info()), c);
        if (o.json) {
            core::Json j = core::Json::object();
            j.set("time", core::isoUtc(core::systemNowNs()));
            if (!o.queue.empty())
                j.set("queue", o.queue);
            const core::Json partition = partitionJson(m);
            for (const auto& [k, v] : partition.toObject())
                j.set(k, v);
            j.set("stuck", c.stuck);
            if (local)
                j.set("wal_size", wal);
            return j.dump();
        }
        std::string line;
        for (const auto& e : m.partition) {
            line += e.state.name + "=" + std::to_string(e.count) + " ";
            if (e.state.name == "locked")
                line += "stuck=" + std::to_string(c.stuck) + " ";
        }
        line += "stored=" + std::to_string(c.stored);
        if (local) // a database's write-ahead log is the server's
            line += " wal=" + core::humanBytes(wal);
        return line;
    };
    // The JSON line carries its own time; the text line gets a prefix.
    auto stamped = [&](const std::string& body) {
        return o.json ? body : localTimestamp() + "  " + body;
    };
    auto event = [&](const std::string& what) {
        if (o.json) {
            core::Json j = core::Json::object();
            j.set("time", core::isoUtc(core::systemNowNs()));
            j.set("event", what);
            printLine(j.dump());
        } else {
            printLine(localTimestamp() + "  " + shownFile(o.file) + ": " + what);
        }
    };

    core::FileStamp db = stampOf(o.file);
    core::FileStamp wal = stampOf(walPath);
    std::int64_t version = q->dataVersion();
    core::ReadPacer pacer(q->readPacingFactor());
    const core::TimeNs firstRead = core::steadyNowNs();
    std::string last = countsLine();
    pacer.ran(firstRead, core::steadyNowNs());
    printLine(stamped(last));

    auto lastRead = std::chrono::steady_clock::now();
    bool missing = false;
    std::string lastError;
    while (!stopRequested()) {
        sleepInterruptible(o.interval);
        if (stopRequested())
            break;
        try {
            const core::FileStamp db2 = stampOf(o.file);
            if (!db2.exists) {
                if (!missing)
                    event("file deleted or moved away; waiting for it to come back");
                missing = true;
                q.reset();
                continue;
            }
            bool force = false;
            if (!q || db2.inode != db.inode) {
                if (missing)
                    event("file is back; watching again");
                else if (q)
                    event("file replaced; reopening");
                q.reset();
                db = db2;
                q = openBackendFor(o, false);
                version = q->dataVersion();
                missing = false;
                force = true;
            }
            const core::FileStamp wal2 = stampOf(walPath);
            const std::int64_t v = q->dataVersion();
            const bool moved = v != version || !(db2 == db) || !(wal2 == wal);
            const auto nowSteady = std::chrono::steady_clock::now();
            const bool tick = nowSteady - lastRead >= std::chrono::seconds(2);
            if (!moved && !tick && !force)
                continue;
            // A big file under busy workers is re-read at its pace (the
            // change stays noticed: the stamps move on once it is read).
            if (!force && pacer.waitAt(core::steadyNowNs()) > 0)
                continue;
            db = db2;
            wal = wal2;
            lastRead = nowSteady;
            const bool committed = v != version;
            version = v;
            const core::TimeNs start = core::steadyNowNs();
            std::string line = countsLine();
            pacer.setFactor(q->readPacingFactor());
            pacer.ran(start, core::steadyNowNs());
            lastError.clear();
            // A commit always gets a line (even one that left the counts as
            // they were); a mere stat or clock change only when the line moved.
            if (committed || force || line != last)
                printLine(stamped(line));
            last = std::move(line);
        } catch (const core::Error& e) {
            if (e.detail() != lastError)
                event("error: " + terminalSafe(e.detail()));
            lastError = e.detail();
            q.reset();
        }
    }
    return ExitOk;
}

} // namespace lq::ctl
