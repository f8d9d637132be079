// SPDX-License-Identifier: MIT
#pragma once

// RAII ownership of SQLite handles. Nothing here is thread-safe: a Connection
// and its statements belong to one thread at a time (see queue.h).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

struct sqlite3;
struct sqlite3_stmt;

namespace lq::core {

/// Deleters for the owned SQLite handles.
struct StatementDeleter {
    void operator()(sqlite3_stmt* s) const noexcept;
};
struct DatabaseDeleter {
    void operator()(sqlite3* db) const noexcept; ///< sqlite3_close_v2
};
using StatementHandle = std::unique_ptr<sqlite3_stmt, StatementDeleter>;
using DatabaseHandle = std::unique_ptr<sqlite3, DatabaseDeleter>;

/// Throws the lqcore Error that fits an SQLite result code.
[[noreturn]] void throwSqlite(sqlite3* db, int rc, const std::string& path,
                              const std::string& what = {});

/// A prepared statement; finalized in the destructor. Move-only.
class Statement {
public:
    Statement() = default;
    Statement(sqlite3* db, std::string_view sql, const std::string& path);
    Statement(Statement&& o) noexcept = default;
    Statement& operator=(Statement&& o) noexcept = default;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    ~Statement() = default;

    Statement& bind(int i, std::int64_t v);
    Statement& bind(int i, int v) { return bind(i, static_cast<std::int64_t>(v)); }
    Statement& bind(int i, double v);
    Statement& bind(int i, std::string_view text);
    Statement& bind(int i, const std::optional<std::int64_t>& v);
    Statement& bind(int i, const std::optional<std::string>& v);
    Statement& bindBlob(int i, std::string_view bytes);
    Statement& bindNull(int i);

    /// true while a row is available; false when done. Throws on error.
    bool step();
    /// Steps a statement that returns no rows.
    void exec();
    void reset() noexcept;

    int columnCount() const;
    int columnType(int i) const; ///< SQLITE_INTEGER, SQLITE_TEXT, ...
    bool isNull(int i) const;
    std::int64_t int64(int i) const;
    double real(int i) const;
    std::string text(int i) const; ///< bytes of TEXT or BLOB, "" for NULL
    /// A TEXT column's bytes without a copy, valid until the next step;
    /// "" for any other type.
    std::string_view textView(int i) const;
    std::optional<std::int64_t> optInt64(int i) const;
    std::optional<std::string> optText(int i) const;

    sqlite3_stmt* handle() const noexcept { return m_stmt.get(); }

private:
    StatementHandle m_stmt;
    sqlite3* m_db = nullptr;
    std::string m_path;
};

/// A cached statement checked out of a Connection; reset and unbound when it
/// goes out of scope, so no statement stays stepped (and no read transaction
/// stays pinned) past its use.
class CachedStatement {
public:
    explicit CachedStatement(Statement& s)
        : m_s(&s) {}
    CachedStatement(const CachedStatement&) = delete;
    CachedStatement& operator=(const CachedStatement&) = delete;
    ~CachedStatement();
    Statement* operator->() const { return m_s; }
    Statement& operator*() const { return *m_s; }

private:
    Statement* m_s;
};

/// Owns an sqlite3*; closed with sqlite3_close_v2. Prepared statements are
/// cached per connection.
class Connection {
public:
    enum class Mode { ReadOnly, ReadWrite, ReadWriteCreate };

    /// Opens `path` hardened for untrusted files (docs/RELIABILITY.md#hostile-files): defensive
    /// mode, trusted_schema off, cell_size_check on, no extension loading, no checkpoint on close.
    /// ReadOnly never creates a file.
    Connection(const std::string& path, Mode mode, int busyTimeoutMs);
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    ~Connection();

    void exec(std::string_view sql);
    Statement prepare(std::string_view sql);
    CachedStatement cached(const std::string& sql);
    std::int64_t changes() const;
    std::int64_t lastInsertRowid() const;
    std::int64_t pragmaInt(std::string_view pragma);
    std::string pragmaText(std::string_view pragma);
    bool inTransaction() const;

    sqlite3* handle() const noexcept { return m_db.get(); }
    const std::string& path() const noexcept { return m_path; }
    Mode mode() const noexcept { return m_mode; }

private:
    DatabaseHandle m_db;
    std::string m_path;
    Mode m_mode;
    std::unordered_map<std::string, std::unique_ptr<Statement>> m_cache;
    static int onBusy(void* self, int count);
    int m_busyTimeoutMs = 5000;
    std::chrono::steady_clock::time_point m_busySince;
    std::uint64_t m_rng = reinterpret_cast<std::uintptr_t>(this);
};

/// While alive, every statement of `c` stops with SQLITE_INTERRUPT once
/// `*cancel` is set (checked every few thousand virtual machine steps, well
/// under a millisecond): a long read the caller no longer wants ends at
/// once instead of running to its end. Does nothing for a null `cancel`.
class InterruptWhen {
public:
    InterruptWhen(Connection& c, const std::atomic_bool* cancel);
    ~InterruptWhen();
    InterruptWhen(const InterruptWhen&) = delete;
    InterruptWhen& operator=(const InterruptWhen&) = delete;

private:
    sqlite3* m_db = nullptr;
};

/// BEGIN (deferred or immediate) ... COMMIT; rolls back in the destructor
/// unless committed. The destructor never throws.
class Transaction {
public:
    enum class Kind { Deferred, Immediate };
    Transaction(Connection& c, Kind kind);
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    ~Transaction();
    void commit();

private:
    Connection& m_c;
    bool m_done = false;
};

/// Quotes an identifier for SQL ("a""b").
std::string quoteIdent(std::string_view name);
/// Quotes a string literal for SQL ('it''s'), for values that are part of
/// a cached statement's text (a setting per named queue).
std::string quoteLiteral(std::string_view text);

} // namespace lq::core
