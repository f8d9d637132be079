// SPDX-License-Identifier: MIT
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lq::core {

class Connection;
class QueueFormat;

/// The file's one time unit (litequeue, jobs-lease); formats that mix units
/// per column say so in their own code (core/formats/).
enum class TimeUnit { Nanoseconds, Seconds };

/// Settings of a queue's library that its file does not store, which the
/// state rules depend on (docs/FORMATS.md#goqite, §7), as keyed data: each
/// format declares its keys (QueueFormat::settings()) and reads its own;
/// nothing here knows a library. 0 or unset: the library's default.
class FormatSettings {
public:
    bool operator==(const FormatSettings&) const = default;
    bool empty() const { return m_values.empty(); }

    /// The value of setting `key` (QueueFormat::Setting::key: "max_receive",
    /// "retry_after", ...) for named queue `queue` ("": the file-wide
    /// value); 0 when not set (the library's default applies). A queue
    /// without a value of its own has the file-wide one, unless `inherit`
    /// is false (then 0).
    std::int64_t value(std::string_view key, const std::string& queue = {},
                       bool inherit = true) const;
    /// value() as seconds, for the settings whose unit is seconds.
    std::chrono::seconds seconds(std::string_view key) const {
        return std::chrono::seconds(value(key));
    }
    /// The values of `key` set for single named queues, by queue.
    std::map<std::string, std::int64_t> byQueue(std::string_view key) const;
    /// Sets setting `key` (0: back to the default); `queue` non-empty: that
    /// named queue only. False for a key no format declares, a per-queue
    /// value of a setting its library takes file-wide, or a negative value.
    bool set(std::string_view key, std::int64_t v, const std::string& queue = {});
    /// Every value set, as (key, queue, value); queue "" for file-wide ones.
    struct Entry {
        std::string key;
        std::string queue;
        std::int64_t value = 0;
    };
    std::vector<Entry> entries() const;

private:
    /// (key, queue) -> value; queue "" for the file-wide value. Only
    /// values > 0 are kept, so equal settings compare equal.
    std::map<std::pair<std::string, std::string>, std::int64_t> m_values;
};

/// Everything known about a queue file after reading its schema (read-only).
struct FormatInfo {
    /// The recognised format: one object of core/formats/registry.cpp's
    /// table (its id(), states, actions, driver). Null only in a FormatInfo
    /// that no recogniser made.
    const QueueFormat* format = nullptr;
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

/// The id of format `f` ("litequeue-0.14", "solid-queue", ...: the name on
/// the wire, in --json and in settings); "none" for null.
const char* formatId(const QueueFormat* f) noexcept;

/// Reads the schema through `c` and recognises the format. Throws NotAQueue
/// ("not a queue file: found tables users, orders", "empty database"),
/// Unsupported ("pre-0.6 litequeue schema (column `message`): unsupported"),
/// Corrupt ("file is not a SQLite database", "database disk image is
/// malformed"), Busy. `preferTable` picks one table of a multi file.
FormatInfo detectFormat(Connection& c, const std::string& preferTable = {});

} // namespace lq::core
