// SPDX-License-Identifier: MIT
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lq::core {

class Connection;

/// The queue formats of SPEC §2.
enum class Format {
    Litequeue014,    ///< "litequeue-0.14": user_version 3, ns, claim_id
    Litequeue013,    ///< "litequeue-0.13": user_version 2, seconds, claim_id
    LitequeueLegacy, ///< "litequeue-legacy": 0.6–0.12, six columns, ns, lock_time token
    LitequeueMulti,  ///< "litequeue-multi": ≤ 0.9, several queue tables; read-only
    LitequeueOther,  ///< eight columns, unknown user_version; read-only
    JobsLease,       ///< "jobs-lease": seed 000, REAL seconds, attempts token
    Liteque,         ///< "liteque": Karakeep's queue.db (core/formats/liteque.*)
    SolidQueue,      ///< "solid-queue": Rails Solid Queue (core/formats/solidqueue.*)
    Plainjob,        ///< "plainjob": core/formats/plainjob.*
    Goqite,          ///< "goqite": core/formats/goqite.*
    Backlite,        ///< "backlite": core/formats/backlite.*
    ObanLite,        ///< "oban-lite": Oban.Engines.Lite (core/formats/oban.*)
    RiverSqlite,     ///< "river-sqlite": River's riversqlite (core/formats/river.*)
    LaravelDatabase, ///< "laravel-database": Laravel's database queue (core/formats/laravel.*)
};

/// The file's one time unit (litequeue, jobs-lease); formats that mix units
/// per column say so in their own code (core/formats/).
enum class TimeUnit { Nanoseconds, Seconds };

/// Settings of a queue's library that its file does not store, which the
/// state rules depend on (FORMATS.md §6, §7). 0: the library's default.
struct FormatSettings {
    /// goqite's maxReceive: deliveries after which a message is a dead letter.
    std::int64_t maxReceive = 0;
    /// backlite's ReleaseAfter: claim age after which a task is fetched again.
    std::chrono::seconds releaseAfter{0};
    /// Laravel's retry_after (config/queue.php): reservation age after which
    /// the next pop takes a job over.
    std::chrono::seconds retryAfter{0};
};

/// Everything known about a queue file after reading its schema (read-only).
struct FormatInfo {
    Format format = Format::Litequeue014;
    std::int64_t userVersion = 0;
    TimeUnit timeUnit = TimeUnit::Nanoseconds;
    std::string table; ///< the queue table in use ("Queue", "jobs", or a multi table)
    /// The queue table's columns, for formats whose columns vary by version.
    std::vector<std::string> columns;
    std::vector<std::string> queueTables; ///< every queue-shaped table (multi: several)
    std::optional<std::int64_t> maxsize;  ///< from the maxsize trigger, if any
    std::string maxsizeTrigger;
    bool hasClaimId = false;
    bool hasIdempotencyKey = false;
    bool hasIdempotencyIndex = false;
    std::string journalMode; ///< "wal", "delete", ...
    /// Why writes are refused whatever the caller asks (multi, unknown
    /// version, unexpected trigger or view). Empty when writable.
    std::string readOnlyReason;
    /// Things to show the operator (legacy format: upgrade offered, ...).
    std::vector<std::string> warnings;
    /// The unstored library settings in use (OpenOptions::settings).
    FormatSettings settings;

    bool formatReadOnly() const { return !readOnlyReason.empty(); }
};

/// "litequeue-0.14", "litequeue-0.13", "litequeue-legacy", "litequeue-multi",
/// "litequeue-unknown", "jobs-lease".
const char* formatId(Format f) noexcept;

/// Reads the schema through `c` and recognises the format. Throws NotAQueue
/// ("not a queue file: found tables users, orders", "empty database"),
/// Unsupported ("pre-0.6 litequeue schema (column `message`): unsupported"),
/// Corrupt ("file is not a SQLite database", "database disk image is
/// malformed"), Busy. `preferTable` picks one table of a multi file.
FormatInfo detectFormat(Connection& c, const std::string& preferTable = {});

} // namespace lq::core
