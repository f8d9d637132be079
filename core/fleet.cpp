// SPDX-License-Identifier: MIT
#include "fleet.h"

#include "backend.h"
#include "formats/queueformat.h"
#include "queue.h"
#include "remote/client.h"

#include <algorithm>
#include <filesystem>

namespace lq::core {

namespace fs = std::filesystem;

namespace {
bool endsWith(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
/// The oldest READY job's time in the queue (backlog age = now - this):
/// one probe of the arrival ordering.
template <class Q> std::optional<TimeNs> oldestReadyOf(Q& q) {
    Filter ready;
    ready.states = {State::Ready};
    const auto oldest = q.list(ready, Sort{SortKey::Arrival, false}, 0, 1);
    if (oldest.empty())
        return std::nullopt;
    return oldest.front().inTime ? oldest.front().inTime : oldest.front().scheduledAt;
}

/// A queue openBackend() opens by URL (a database): one entry, read
/// through its backend in one short session.
FleetEntry scanBackend(const std::string& url, TimeNs now, TimeNs stuckAfterNs,
                       const FormatSettings& settings) {
    BackendOptions o;
    // Never written by a scan (a database's writing session opens only at
    // a first write), but not opened read-only either: the entry says why
    // the queue cannot be written as the window would (the user's rights,
    // a library not written yet), not that this scan did not ask to.
    o.readOnly = false;
    o.watch = false;
    o.now = now;
    o.settings = settings;
    const auto b = openBackend(url, o);
    FleetEntry e;
    e.path = url;
    e.table = b->info().table;
    e.format = formatId(b->info().format);
    e.kind = &QueueFormat::of(b->info());
    e.readOnlyReason = b->info().readOnlyReason;
    e.maxsize = b->maxsize();
    auto cq = b->countsWithQueues(stuckAfterNs);
    e.counts = std::move(cq.total);
    e.queues = std::move(cq.queues);
    if (!e.queues.empty())
        e.paused = b->pausedQueues();
    e.oldestReadyInTime = oldestReadyOf(*b);
    e.fileBytes = b->fileSize();
    return e;
}

} // namespace

std::vector<std::string> fleetCandidates(const std::string& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw Error(ErrorKind::Io, dir, "is not a folder");
    std::vector<std::string> out;
    fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
    if (ec)
        throw Error(ErrorKind::Io, dir, "cannot list the folder: " + ec.message());
    for (const auto& e : it) {
        const std::string name = e.path().filename().string();
        if (endsWith(name, "-wal") || endsWith(name, "-shm") || endsWith(name, "-journal"))
            continue;
        if (!name.empty() && name[0] == '.')
            continue;
        std::error_code fe;
        if (!e.is_regular_file(fe))
            continue;
        out.push_back(e.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool scannedAlone(const std::string& path) {
    return !remote::isRemoteUrl(path);
}

std::vector<FleetEntry> scanQueueFile(const std::string& path, TimeNs now, TimeNs stuckAfterNs,
                                      int busyTimeoutMs, const FormatSettings& settings) {
    std::vector<FleetEntry> out;
    OpenOptions opts;
    opts.settings = settings;
    opts.readOnly = true;
    opts.clock = fixedClock(now);
    opts.busyTimeoutMs = busyTimeoutMs;
    try {
        if (!isLocalPath(path)) {
            out.push_back(scanBackend(path, now, stuckAfterNs, settings));
            return out;
        }
        auto q = Queue::open(path, opts);
        std::vector<std::string> tables = {q->info().table};
        if (QueueFormat::of(q->info()).multiTable())
            tables = q->info().queueTables;
        for (const auto& table : tables) {
            std::unique_ptr<Queue> tq;
            Queue* use = q.get();
            if (table != q->info().table) {
                OpenOptions o2 = opts;
                o2.table = table;
                tq = Queue::open(path, o2);
                use = tq.get();
            }
            FleetEntry e;
            e.path = path;
            e.table = table;
            e.format = formatId(use->info().format);
            e.kind = &QueueFormat::of(use->info());
            e.readOnlyReason = use->info().readOnlyReason;
            e.maxsize = use->info().maxsize;
            // A file of named queues: each queue's counts too (the sidebar's
            // child rows, fleet's per-queue lines), in the same pass.
            auto cq = use->countsWithQueues(stuckAfterNs);
            e.counts = std::move(cq.total);
            e.queues = std::move(cq.queues);
            if (!e.queues.empty())
                e.paused = use->pausedQueues(); // workers skip these
            // Arrival order is the (status, message_id) index: the oldest READY
            // message is one index probe, not a sort.
            e.oldestReadyInTime = oldestReadyOf(*use);
            e.fileBytes = use->fileSize();
            e.walBytes = use->walSize();
            e.journalMode = use->info().journalMode;
            out.push_back(std::move(e));
        }
    } catch (const Error& err) {
        FleetEntry e;
        e.path = path;
        e.skipped = true;
        e.reason = err.detail();
        e.errorKind = err.kind();
        out.push_back(std::move(e));
    }
    return out;
}

std::vector<FleetEntry> scanFleet(const std::string& dir, TimeNs now, TimeNs stuckAfterNs,
                                  int busyTimeoutMs) {
    if (!isLocalPath(dir) && scannedAlone(dir))
        return scanQueueFile(dir, now, stuckAfterNs, busyTimeoutMs); // a database
    std::vector<FleetEntry> out;
    for (const auto& path : fleetCandidates(dir)) {
        auto entries = scanQueueFile(path, now, stuckAfterNs, busyTimeoutMs);
        out.insert(out.end(), std::make_move_iterator(entries.begin()),
                   std::make_move_iterator(entries.end()));
    }
    return out;
}

} // namespace lq::core
