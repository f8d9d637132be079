// SPDX-License-Identifier: MIT
#pragma once

// lq::core::PgQueue — a queue kept in PostgreSQL (issue 41, first slice):
// opened from a libpq URI or keyword string, recognised from the catalog,
// counted with the same state model and the same core types as a SQLite
// queue (FormatInfo, Counts), so that both can later stand behind one
// interface. It only reads, through one read-only session
// (core/pg/connection.h); nothing is held open between calls.
//
// What this slice does: recognition of Solid Queue, Oban, River, GoodJob,
// pg-boss and Graphile Worker; counts and named queues of Solid Queue, Oban
// and River. Everything else (listing, actions, GoodJob/pg-boss/Graphile
// Worker counts, LISTEN) is issue 41's later work.

#include "../clock.h"
#include "../format.h"
#include "../query.h"
#include "catalog.h"
#include "connection.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace lq::core {

struct PgOpenOptions {
    Clock clock; ///< default: the system clock
    pg::Connection::Options connection;
};

class PgQueue {
public:
    /// Connects (read-only session) and recognises the queue. `?schema=`
    /// limits the search to one schema; otherwise `public` comes first,
    /// then the other schemas by name. Throws NotAQueue ("no queue
    /// library's tables in schemas a, b") and the errors of
    /// pg::Connection::open().
    static std::unique_ptr<PgQueue> open(const std::string& url, PgOpenOptions opts = {});

    /// The database, by its URL without any password.
    const std::string& url() const noexcept;
    /// What was recognised, as for a SQLite queue: `format` is the state
    /// model its counts fill (null for a library without counts yet),
    /// `table` its schema-qualified jobs table, `queueTables` its tables,
    /// `warnings` the other queues the database holds.
    const FormatInfo& info() const noexcept;
    /// The library as found in the catalog (schema, library id, tables).
    const pg::Found& found() const noexcept;
    /// "solid-queue", "oban", "river", "good-job", "pg-boss",
    /// "graphile-worker": the id lqctl prints for this queue.
    const std::string& formatId() const noexcept;
    /// Every schema looked at and every library found there.
    const pg::Catalog& catalog() const noexcept;
    /// counts() and queueNames() serve this library.
    bool countsSupported() const noexcept;
    int serverVersion() const;
    TimeNs now() const;

    /// One statement; each job once (docs/FORMATS.md#postgresql). The stuck
    /// sub-count is the library's own rule, as on SQLite, so
    /// `stuckAfterNs` is unused by these three formats. `queue` non-empty:
    /// that named queue only. Throws Unsupported for other libraries.
    Counts counts(TimeNs stuckAfterNs = kDefaultStuckAfterNs, const std::string& queue = {});
    /// The named queues, sorted.
    std::vector<std::string> queueNames();

    ~PgQueue();
    PgQueue(const PgQueue&) = delete;
    PgQueue& operator=(const PgQueue&) = delete;

private:
    PgQueue() = default;

    std::mutex m_mutex; ///< one libpq connection: one statement at a time
    std::unique_ptr<pg::Connection> m_conn;
    pg::Catalog m_catalog;
    pg::Found m_found;
    FormatInfo m_info;
    Clock m_clock;
};

} // namespace lq::core
