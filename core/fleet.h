// SPDX-License-Identifier: MIT
#pragma once

// A folder of queues (litequeue keeps one queue per file): what each file
// holds, read-only, cheaply enough to repeat every few seconds for 50 files.

#include "clock.h"
#include "error.h"
#include "format.h"
#include "pacing.h"
#include "processes.h"
#include "query.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lq::core {

class QueueFormat;

/// One queue found in a folder (a multi-table file gives one entry per table),
/// or one file skipped with the reason.
struct FleetEntry {
    std::string path;
    std::string table; ///< the queue table (multi files: which one)
    /// A sidebar child row: one named queue of the file, whose counts are
    /// `counts` ("" for the file itself; FleetModel makes these rows).
    std::string queueName;
    bool skipped = false;
    std::string reason; ///< why skipped: "not a queue file: found tables users"
    ErrorKind errorKind = ErrorKind::Sqlite;
    std::string format;                ///< formatId()
    const QueueFormat* kind = nullptr; ///< what the format offers (null when skipped)
    std::string readOnlyReason;
    Counts counts;
    /// Not counted: the caller shows this queue's counts already
    /// (scanQueueFile()'s `omitCountsOf`); `counts` is empty.
    bool countsOmitted = false;
    std::optional<std::int64_t> maxsize;
    std::optional<TimeNs> oldestReadyInTime; ///< backlog age = now - this
    std::int64_t fileBytes = 0;
    std::int64_t walBytes = 0;
    /// PRAGMA journal_mode of the file ("wal", "delete", ...).
    std::string journalMode;
    /// How long a watcher rests after reading this queue, as a multiple of
    /// what the read cost (QueueBackend::readPacingFactor: by the journal
    /// mode for a file; a database's readers never block its writers).
    std::int64_t readPacingFactor = ReadPacing::kRollbackFactor;
    /// Formats with named queues: the counts of each queue of the file, by
    /// name (the entry's own counts are the file's total).
    std::vector<std::pair<std::string, Counts>> queues;
    /// The named queues the file records as paused (Queue::pausedQueues);
    /// a child row: its own queue's pause, if it is paused.
    std::vector<PausedQueue> paused;

    std::optional<TimeNs> backlogAgeNs(TimeNs now) const {
        if (!oldestReadyInTime)
            return std::nullopt;
        return now - *oldestReadyInTime;
    }
};

/// Files in `dir` (not recursive) that could be queues: regular files that
/// are not SQLite side files (-wal, -shm, -journal). Sorted by name.
std::vector<std::string> fleetCandidates(const std::string& dir);

/// True when scanQueueFile() reads `path` by itself at each scan: a local
/// file or a database URL (one short session). False for an ssh:// file,
/// which a sidebar reads with its folder over one kept connection.
bool scannedAlone(const std::string& path);

/// Reads one file (every queue table of a multi file), or the queue of a
/// database URL through its backend. Never writes, never
/// throws for the file itself: failures become skipped entries. `settings`:
/// the library settings the file does not store (OpenOptions::settings).
/// `omitCountsOf`: a table whose counts the caller has already (the window
/// showing it counted it): not counted again where the format has no named
/// queues (whose rows need the file's grouped counts); its entry says
/// countsOmitted.
std::vector<FleetEntry> scanQueueFile(const std::string& path, TimeNs now, TimeNs stuckAfterNs,
                                      int busyTimeoutMs = 1000, const FormatSettings& settings = {},
                                      const std::optional<std::string>& omitCountsOf = {});

class QueueBackend;

/// A database the fleet sidebar or the exporter keeps watching (issue 41:
/// costing the database as little as a well-behaved client): one session
/// kept open and idle between reads (no transaction held), the queue read
/// again only when its change marker moved (QueueBackend::dataVersion(),
/// one catalog query) and `restNs` passed since the last read, or once
/// `maxAgeNs` passed; a failed session is opened again at the next call.
/// One thread at a time.
class WatchedDatabase {
public:
    /// `readOnly`: the session never writes (the exporter); else it is
    /// opened as the window opens it, so the entry says why the queue
    /// cannot be written (a scan itself never writes).
    WatchedDatabase(std::string url, bool readOnly, std::string tool);
    ~WatchedDatabase();
    WatchedDatabase(const WatchedDatabase&) = delete;
    WatchedDatabase& operator=(const WatchedDatabase&) = delete;

    /// Whether the queue is to be read now; opens the session if needed
    /// (throws core::Error when it cannot).
    bool due(TimeNs restNs, TimeNs maxAgeNs);
    /// The session, once due() opened it.
    QueueBackend& backend();
    /// The read due() asked for was made.
    void read();
    /// The session failed: closed; the next due() opens a new one.
    void reset();
    const std::string& url() const noexcept { return m_url; }

private:
    std::string m_url;
    bool m_readOnly;
    std::string m_tool;
    std::shared_ptr<QueueBackend> m_db;
    bool m_read = false; ///< since the session opened
    std::int64_t m_marker = 0;
    std::int64_t m_seen = 0;
    TimeNs m_readAt = 0; ///< steady clock
};

/// The sidebar's entry of a watched database, when due (`restNs`,
/// `maxAgeNs` as for WatchedDatabase::due()): read through its session,
/// or one skipped entry saying why it failed (the session is then reset);
/// nullopt when nothing changed and the last entries stand.
std::optional<std::vector<FleetEntry>> scanDatabase(WatchedDatabase& db, TimeNs stuckAfterNs,
                                                    TimeNs restNs, TimeNs maxAgeNs);

/// Every candidate of `dir`; for a database URL, its queue. Throws Io when
/// `dir` is not a readable folder.
std::vector<FleetEntry> scanFleet(const std::string& dir, TimeNs now, TimeNs stuckAfterNs,
                                  int busyTimeoutMs = 1000);

} // namespace lq::core
