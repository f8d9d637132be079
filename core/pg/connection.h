// SPDX-License-Identifier: MIT
#pragma once

// lq::core::pg::Connection — one libpq session to a PostgreSQL database
// (issue 41), the only code of lqcore that speaks to PostgreSQL. It opens a
// libpq URI ("postgresql://USER@HOST:PORT/DB?sslmode=require") or keyword
// string ("host=... dbname=..."; libpq itself handles PGSERVICE, ~/.pgpass
// and sslmode), and makes the session cost the database as little as a
// well-behaved read-replica client:
//
// * autocommit: every statement is its own short transaction, nothing is
//   held between calls (a long transaction holds back vacuum);
// * application_name = 'lqadmin' (seen in pg_stat_activity), a
//   statement_timeout, a short lock_timeout and an
//   idle_in_transaction_session_timeout;
// * a reading session has default_transaction_read_only = on, so a write
//   through it fails in the server, whatever the SQL says;
// * parameterised statements only (PQexecParams, text results).
//
// `?schema=NAME` in a URI (or `schema=NAME` in a keyword string) is ours,
// not libpq's: it is taken out before libpq sees the string and names the
// schema the queue's tables are in. Errors are lq::core::Error naming the
// database by redactedUrl(): never a password in a message, a log or an
// audit record.

#include "../error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct pg_conn;
struct pg_result;

namespace lq::core::pg {

/// True for a string lqcore opens with libpq: a postgresql:// or
/// postgres:// URI.
bool isPostgresUrl(std::string_view s) noexcept;

/// `url` with any password removed: the userinfo's ":secret" of a URI, a
/// `password=` query parameter, a `password=...` keyword (quoted or not).
/// What every message, log line and audit record shows.
std::string redactedUrl(std::string_view url);

/// What Connection::open() makes of the string it was given.
struct Target {
    std::string conninfo; ///< for libpq: the string without our `schema`
    std::string schema;   ///< `?schema=NAME`; empty: not given
    std::string display;  ///< redactedUrl() of the whole string
};
/// Splits `url` into what libpq reads and our own parameters. Throws
/// InvalidArgument for an empty schema name.
Target parseTarget(std::string_view url);

/// One result of a statement: text values, NULL as nullopt.
class Result {
public:
    explicit Result(pg_result* r) noexcept
        : m_r(r) {}
    ~Result();
    Result(Result&& o) noexcept
        : m_r(o.m_r) {
        o.m_r = nullptr;
    }
    Result& operator=(Result&& o) noexcept;
    Result(const Result&) = delete;
    Result& operator=(const Result&) = delete;

    int rows() const noexcept;
    int columns() const noexcept;
    bool isNull(int row, int col) const noexcept;
    /// The value as text ("" for NULL).
    std::string text(int row, int col) const;
    std::optional<std::string> optText(int row, int col) const;
    /// The value as a 64-bit integer (0 for NULL; throws for non-numbers).
    std::int64_t int64(int row, int col) const;
    bool boolean(int row, int col) const; ///< "t" is true

private:
    pg_result* m_r;
};

using Param = std::optional<std::string>; ///< a text parameter; nullopt is NULL

class Connection {
public:
    struct Options {
        /// default_transaction_read_only = on: every write fails.
        bool readOnly = true;
        int statementTimeoutMs = 15000;
        int lockTimeoutMs = 1000;
        int idleInTransactionTimeoutMs = 10000;
        int connectTimeoutSeconds = 10; ///< unless the string sets connect_timeout
    };

    /// Connects and sets up the session. Throws Io (cannot connect, with
    /// libpq's reason), InvalidArgument (a string libpq cannot parse).
    static std::unique_ptr<Connection> open(std::string_view url, Options opts);
    static std::unique_ptr<Connection> open(std::string_view url) { return open(url, Options{}); }
    ~Connection();
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    /// One statement with text parameters $1, $2, ... (autocommit). A
    /// reading session whose connection dropped (a server restart, an
    /// administrator's pg_terminate_backend) connects again and repeats the
    /// statement once. Throws lq::core::Error: ReadOnly for a write on a
    /// reading session, Busy for a lock or statement timeout, Io for
    /// anything else (a lost connection it could not make again).
    Result exec(const std::string& sql, const std::vector<Param>& params = {});

    /// The notifications that arrived on this session's LISTENed channels
    /// since the last call, without waiting (their payloads, oldest first).
    /// Throws Io when the connection is lost.
    std::vector<std::string> takeNotifications();
    /// Waits up to `ms` for the server to send something (a notification),
    /// or for `wakeFd` (when not -1) to become readable; true only when the
    /// server sent something.
    bool waitReadable(int ms, int wakeFd = -1);
    const std::string& display() const noexcept { return m_target.display; }
    const std::string& schema() const noexcept { return m_target.schema; }
    bool readOnly() const noexcept { return m_opts.readOnly; }
    /// server_version_num (150018 for 15.18).
    int serverVersion() const noexcept;

private:
    Connection(pg_conn* c, Target t, Options o)
        : m_c(c)
        , m_target(std::move(t))
        , m_opts(o) {}
    [[noreturn]] void fail(const std::string& what, pg_result* r) const;
    /// The session's limits (Options), after connecting and reconnecting.
    void setUp();

    pg_conn* m_c;
    Target m_target;
    Options m_opts;
};

/// `name` as a quoted SQL identifier ("My Schema" -> "\"My Schema\"").
std::string quoteIdent(std::string_view name);

} // namespace lq::core::pg
