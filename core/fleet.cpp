// SPDX-License-Identifier: MIT
#include "fleet.h"

#include "backend.h"
#include "formats/queueformat.h"
#include "pacing.h"
#include "queue.h"
#include "remote/client.h"

#include <algorithm>
#include <filesystem>
#include <type_traits>

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

/// What every scanned queue has, read through `q` (a core::Queue of one
/// table, or the backend of a database): what it is, its counts with its
/// named queues' (one pass), its paused queues, its backlog and its size.
template <class Q>
FleetEntry entryOf(const std::string& path, Q& q, TimeNs stuckAfterNs, bool omitCounts = false) {
    FleetEntry e;
    e.path = path;
    e.table = q.info().table;
    e.format = formatId(q.info().format);
    e.kind = &QueueFormat::of(q.info());
    e.readOnlyReason = q.info().readOnlyReason;
    e.maxsize = q.maxsize();
    if (omitCounts && !e.kind->namedQueues()) {
        e.countsOmitted = true;
    } else {
        auto cq = q.countsWithQueues(stuckAfterNs);
        e.counts = std::move(cq.total);
        e.queues = std::move(cq.queues);
    }
    if (!e.queues.empty())
        e.paused = q.pausedQueues(); // workers skip these
    e.oldestReadyInTime = oldestReadyOf(q);
    e.fileBytes = q.fileSize();
    if constexpr (std::is_base_of_v<QueueBackend, Q>)
        e.readPacingFactor = q.readPacingFactor();
    else
        e.readPacingFactor = ReadPacing::factorFor(q.info().journalMode);
    return e;
}

FleetEntry skippedEntry(const std::string& path, const Error& err) {
    FleetEntry e;
    e.path = path;
    e.skipped = true;
    e.reason = err.detail();
    e.errorKind = err.kind();
    return e;
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
    return entryOf(url, *b, stuckAfterNs);
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
                                      int busyTimeoutMs, const FormatSettings& settings,
                                      const std::optional<std::string>& omitCountsOf) {
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
            // Arrival order is the (status, message_id) index: the oldest
            // READY message is one index probe, not a sort.
            FleetEntry e = entryOf(path, *use, stuckAfterNs, omitCountsOf == table);
            e.table = table;
            e.walBytes = use->walSize();
            e.journalMode = use->info().journalMode;
            out.push_back(std::move(e));
        }
    } catch (const Error& err) {
        out.push_back(skippedEntry(path, err));
    }
    return out;
}

WatchedDatabase::WatchedDatabase(std::string url, bool readOnly, std::string tool)
    : m_url(std::move(url))
    , m_readOnly(readOnly)
    , m_tool(std::move(tool)) {}

WatchedDatabase::~WatchedDatabase() = default;

bool WatchedDatabase::due(TimeNs restNs, TimeNs maxAgeNs) {
    const TimeNs since = steadyNowNs() - m_readAt;
    if (m_read && since < restNs)
        return false;
    if (!m_db) {
        BackendOptions o;
        o.readOnly = m_readOnly;
        o.watch = false;
        o.tool = m_tool;
        m_db = openBackend(m_url, o);
        m_read = false;
    }
    m_marker = m_db->dataVersion();
    return !m_read || m_marker != m_seen || since >= maxAgeNs;
}

QueueBackend& WatchedDatabase::backend() {
    if (!m_db)
        throw Error(ErrorKind::InvalidArgument, m_url, "the session is not open");
    return *m_db;
}

void WatchedDatabase::read() {
    m_read = true;
    m_seen = m_marker;
    m_readAt = steadyNowNs();
}

void WatchedDatabase::reset() {
    m_db.reset();
    m_read = false;
}

std::optional<std::vector<FleetEntry>> scanDatabase(WatchedDatabase& db, TimeNs stuckAfterNs,
                                                    TimeNs restNs, TimeNs maxAgeNs) {
    try {
        if (!db.due(restNs, maxAgeNs))
            return std::nullopt;
        std::vector<FleetEntry> out{entryOf(db.url(), db.backend(), stuckAfterNs)};
        db.read();
        return out;
    } catch (const Error& err) {
        db.reset();
        return std::vector<FleetEntry>{skippedEntry(db.url(), err)};
    }
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
