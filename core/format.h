// SPDX-License-Identifier: MIT
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lq::core {

class Connection;

/// The queue formats of docs/FORMATS.md.
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
    DelayedJob,      ///< "delayed-job": Delayed::Job, Active Record (core/formats/delayedjob*)
};

/// The file's one time unit (litequeue, jobs-lease); formats that mix units
/// per column say so in their own code (core/formats/).
enum class TimeUnit { Nanoseconds, Seconds };

/// Settings of a queue's library that its file does not store, which the
/// state rules depend on (docs/FORMATS.md#goqite, §7). 0: the library's default.
struct FormatSettings {
    /// The settings' keys (QueueFormat::Setting::key, lqadmin's stored
    /// settings, the remote protocol).
    static constexpr std::string_view kMaxReceive = "max_receive";
    static constexpr std::string_view kReleaseAfter = "release_after";
    static constexpr std::string_view kRetryAfter = "retry_after";
    static constexpr std::string_view kMaxRunTime = "max_run_time";

    /// goqite's maxReceive: deliveries after which a message is a dead letter.
    std::int64_t maxReceive = 0;
    /// goqite's maxReceive of one named queue (goqite.New(NewOpts{Name,
    /// MaxReceive}) is per queue name): overrides maxReceive for that queue.
    std::map<std::string, std::int64_t> maxReceiveByQueue;
    /// backlite's ReleaseAfter: claim age after which a task is fetched again.
    std::chrono::seconds releaseAfter{0};
    /// Laravel's retry_after (config/queue.php): reservation age after which
    /// the next pop takes a job over.
    std::chrono::seconds retryAfter{0};
    /// Delayed::Worker.max_run_time: lock age after which a worker takes the
    /// job again.
    std::chrono::seconds maxRunTime{0};

    bool operator==(const FormatSettings&) const = default;
    bool empty() const { return *this == FormatSettings{}; }

    /// The value of setting `key` (QueueFormat::Setting::key: "max_receive",
    /// "release_after", "retry_after", "max_run_time") for named queue `queue` ("": the
    /// file-wide value); 0 when not set (the library's default applies).
    /// A queue without a value of its own has the file-wide one, unless
    /// `inherit` is false (then 0).
    std::int64_t value(std::string_view key, const std::string& queue = {},
                       bool inherit = true) const;
    /// Sets setting `key` (0: back to the default); `queue` non-empty: that
    /// named queue only (only max_receive is per queue). False for an
    /// unknown key, a per-queue value of a file-wide setting or a negative
    /// value.
    bool set(std::string_view key, std::int64_t v, const std::string& queue = {});
    /// Every value set, as (key, queue, value); queue "" for file-wide ones.
    struct Entry {
        std::string key;
        std::string queue;
        std::int64_t value = 0;
    };
    std::vector<Entry> entries() const;
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
/// The format of id `id` (formatId()'s inverse); nullopt for an unknown id.
std::optional<Format> formatFromId(std::string_view id) noexcept;

/// Reads the schema through `c` and recognises the format. Throws NotAQueue
/// ("not a queue file: found tables users, orders", "empty database"),
/// Unsupported ("pre-0.6 litequeue schema (column `message`): unsupported"),
/// Corrupt ("file is not a SQLite database", "database disk image is
/// malformed"), Busy. `preferTable` picks one table of a multi file.
FormatInfo detectFormat(Connection& c, const std::string& preferTable = {});

} // namespace lq::core
