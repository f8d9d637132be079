// SPDX-License-Identifier: MIT
#include "sqlite.h"

#include "error.h"
#include "jsonb.h"
#include "timefmt.h"

#include <cstdio>
#include <cstdlib>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <utility>

// unixepoch() (Laravel's failed_at) and the JSON functions.
static_assert(SQLITE_VERSION_NUMBER >= 3038000, "lqcore needs SQLite 3.38 or newer");

namespace lq::core {

void throwSqlite(sqlite3* db, int rc, const std::string& path, const std::string& what) {
    const int ext = db ? sqlite3_extended_errcode(db) : rc;
    const int primary = rc & 0xff;
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    if (!what.empty())
        msg = what + ": " + msg;
    switch (primary) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        throw Busy(path,
                   "the queue is locked by another process (" + msg +
                       "); try again, or raise the busy timeout",
                   rc, ext);
    case SQLITE_NOTADB:
        throw Corrupt(path, "file is not a SQLite database", rc, ext);
    case SQLITE_CORRUPT:
        throw Corrupt(path, "database disk image is malformed; restore it from a backup", rc, ext);
    case SQLITE_READONLY:
        throw ReadOnly(path, "the file cannot be written (" + msg + ")", rc, ext);
    case SQLITE_CANTOPEN:
        throw Error(ErrorKind::Io, path, "cannot open the file (" + msg + ")", rc, ext);
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_PERM:
        throw Error(ErrorKind::Io, path, "I/O error (" + msg + ")", rc, ext);
    case SQLITE_CONSTRAINT:
        if (msg.find("Max queue length reached") != std::string::npos)
            throw QueueFull(path, msg + "; wait for workers to drain the queue", rc, ext);
        break;
    default:
        break;
    }
    throw Error(ErrorKind::Sqlite, path, msg, rc, ext);
}

// ---- handles ---------------------------------------------------------------

void StatementDeleter::operator()(sqlite3_stmt* s) const noexcept {
    sqlite3_finalize(s);
}

void DatabaseDeleter::operator()(sqlite3* db) const noexcept {
    sqlite3_close_v2(db);
}

// ---- Statement -------------------------------------------------------------

Statement::Statement(sqlite3* db, std::string_view sql, const std::string& path)
    : m_db(db)
    , m_path(path) {
    const char* tail = nullptr;
    sqlite3_stmt* raw = nullptr;
    const int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()),
                                      SQLITE_PREPARE_PERSISTENT, &raw, &tail);
    m_stmt.reset(raw);
    if (rc != SQLITE_OK)
        throwSqlite(db, rc, path);
    if (tail) {
        // Reject trailing SQL: one statement per Statement.
        std::string_view rest(tail, sql.data() + sql.size() - tail);
        for (char ch : rest) {
            if (ch != ' ' && ch != '\n' && ch != '\t' && ch != '\r' && ch != ';') {
                m_stmt.reset();
                throw Error(ErrorKind::InvalidArgument, path, "trailing SQL after statement");
            }
        }
    }
}

namespace {
void checkBind(sqlite3* db, int rc, const std::string& path) {
    if (rc != SQLITE_OK)
        throwSqlite(db, rc, path, "bind");
}
} // namespace

Statement& Statement::bind(int i, std::int64_t v) {
    checkBind(m_db, sqlite3_bind_int64(m_stmt.get(), i, v), m_path);
    return *this;
}

Statement& Statement::bind(int i, double v) {
    checkBind(m_db, sqlite3_bind_double(m_stmt.get(), i, v), m_path);
    return *this;
}

Statement& Statement::bind(int i, std::string_view text) {
    checkBind(m_db,
              sqlite3_bind_text64(m_stmt.get(), i, text.data(), text.size(), SQLITE_TRANSIENT,
                                  SQLITE_UTF8),
              m_path);
    return *this;
}

Statement& Statement::bind(int i, const std::optional<std::int64_t>& v) {
    return v ? bind(i, *v) : bindNull(i);
}

Statement& Statement::bind(int i, const std::optional<std::string>& v) {
    return v ? bind(i, std::string_view(*v)) : bindNull(i);
}

Statement& Statement::bindBlob(int i, std::string_view bytes) {
    checkBind(m_db,
              sqlite3_bind_blob64(m_stmt.get(), i, bytes.data(), bytes.size(), SQLITE_TRANSIENT),
              m_path);
    return *this;
}

Statement& Statement::bindNull(int i) {
    checkBind(m_db, sqlite3_bind_null(m_stmt.get(), i), m_path);
    return *this;
}

bool Statement::step() {
    const int rc = sqlite3_step(m_stmt.get());
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    sqlite3_reset(m_stmt.get());
    throwSqlite(m_db, rc, m_path);
}

void Statement::exec() {
    while (step()) {
    }
}

void Statement::reset() noexcept {
    sqlite3_reset(m_stmt.get());
    sqlite3_clear_bindings(m_stmt.get());
}

int Statement::columnCount() const {
    return sqlite3_column_count(m_stmt.get());
}
int Statement::columnType(int i) const {
    return sqlite3_column_type(m_stmt.get(), i);
}
bool Statement::isNull(int i) const {
    return columnType(i) == SQLITE_NULL;
}
std::int64_t Statement::int64(int i) const {
    return sqlite3_column_int64(m_stmt.get(), i);
}
double Statement::real(int i) const {
    return sqlite3_column_double(m_stmt.get(), i);
}

std::string_view Statement::textView(int i) const {
    if (columnType(i) != SQLITE_TEXT)
        return {};
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt.get(), i));
    const int n = sqlite3_column_bytes(m_stmt.get(), i);
    return p && n > 0 ? std::string_view(p, static_cast<std::size_t>(n)) : std::string_view();
}

std::string Statement::text(int i) const {
    const int type = columnType(i);
    if (type == SQLITE_NULL)
        return {};
    const void* p = type == SQLITE_BLOB
                        ? sqlite3_column_blob(m_stmt.get(), i)
                        : static_cast<const void*>(sqlite3_column_text(m_stmt.get(), i));
    const int n = sqlite3_column_bytes(m_stmt.get(), i);
    if (!p || n <= 0)
        return {};
    return std::string(static_cast<const char*>(p), static_cast<std::size_t>(n));
}

std::optional<std::int64_t> Statement::optInt64(int i) const {
    if (isNull(i))
        return std::nullopt;
    return int64(i);
}

std::optional<std::string> Statement::optText(int i) const {
    if (isNull(i))
        return std::nullopt;
    return text(i);
}

CachedStatement::~CachedStatement() {
    m_s->reset();
}

// ---- Connection ------------------------------------------------------------

namespace {

/// lq_text_ns(x): parseTextTime() of a TEXT value, in ns; NULL for any
/// other value or text that is no time. One parser for a time compared in
/// SQL and the same time read by C++. SQLite's own date functions differ:
/// unixepoch('...:05.9997') is 6 (the seconds are rounded to ms first),
/// so whole seconds from them plus the stored fraction were a second late
/// for one Rails time in 2000; they also cost three times as much.
void textNs(sqlite3_context* ctx, int, sqlite3_value** argv) {
    if (sqlite3_value_type(argv[0]) != SQLITE_TEXT)
        return; // NULL
    const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
    const auto t = text ? parseTextTime(std::string_view(
                              text, static_cast<std::size_t>(sqlite3_value_bytes(argv[0]))))
                        : std::nullopt;
    if (t)
        sqlite3_result_int64(ctx, *t);
}

/// lq_print(a, b, ...): an aggregate, a 64-bit print of a set of rows:
/// the sum of each row's hash of its values (their types and bytes), so
/// the order the rows come in does not count, and any row added, removed
/// or changed changes it (but for a 2^-64 chance). 0 for no rows. What a
/// cached read compares to tell whether its rows moved (TimingCache).
std::uint64_t mix(std::uint64_t h, std::uint64_t w) {
    h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
}

void printStep(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
    auto* sum = static_cast<std::uint64_t*>(sqlite3_aggregate_context(ctx, sizeof(std::uint64_t)));
    if (!sum) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    std::uint64_t h = 0x243F6A8885A308D3ULL;
    for (int i = 0; i < argc; ++i) {
        const int type = sqlite3_value_type(argv[i]);
        h = mix(h, static_cast<std::uint64_t>(type));
        if (type == SQLITE_INTEGER) {
            h = mix(h, static_cast<std::uint64_t>(sqlite3_value_int64(argv[i])));
        } else if (type == SQLITE_FLOAT) {
            const double v = sqlite3_value_double(argv[i]);
            std::uint64_t bits = 0;
            std::memcpy(&bits, &v, sizeof bits);
            h = mix(h, bits);
        } else if (type != SQLITE_NULL) {
            const auto* p = static_cast<const unsigned char*>(
                type == SQLITE_BLOB ? sqlite3_value_blob(argv[i]) : sqlite3_value_text(argv[i]));
            const auto n = static_cast<std::size_t>(sqlite3_value_bytes(argv[i]));
            h = mix(h, n);
            std::size_t k = 0;
            for (; p && k + 8 <= n; k += 8) {
                std::uint64_t w = 0;
                std::memcpy(&w, p + k, sizeof w);
                h = mix(h, w);
            }
            std::uint64_t tail = 0;
            if (p && k < n)
                std::memcpy(&tail, p + k, n - k);
            h = mix(h, tail);
        }
    }
    *sum += mix(h, 0x13198A2E03707344ULL);
}

void printFinal(sqlite3_context* ctx) {
    const auto* sum = static_cast<std::uint64_t*>(sqlite3_aggregate_context(ctx, 0));
    sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(sum ? *sum : 0));
}

/// lq_seconds_ns(x): CAST(x AS INTEGER) * 1000000000 for an INTEGER or
/// REAL x, NULL for anything else; past 64 bits the product is a REAL, as
/// SQL's own * gives it (a Laravel stuck test compares that REAL). One call
/// where the CASE on typeof() cost a fifth of a Laravel sort by wait.
void secondsNs(sqlite3_context* ctx, int, sqlite3_value** argv) {
    std::int64_t s = 0;
    switch (sqlite3_value_type(argv[0])) {
    case SQLITE_INTEGER:
        s = sqlite3_value_int64(argv[0]);
        break;
    case SQLITE_FLOAT:
        s = castRealToInteger(sqlite3_value_double(argv[0]));
        break;
    default:
        return; // NULL
    }
    constexpr std::int64_t kNs = 1'000'000'000;
    if (std::int64_t ns = 0; !__builtin_mul_overflow(s, kNs, &ns))
        sqlite3_result_int64(ctx, ns);
    else
        sqlite3_result_double(ctx, static_cast<double>(s) * static_cast<double>(kNs));
}

/// SQLite counts every allocation of every connection under one process-wide
/// mutex (its memory statistics, on by default). Two scans on two threads
/// spent about 40 % of their time contending for it (a million-job Solid
/// Queue file's statistics: 3.9 s, most of it in futex waits). Nothing here
/// reads those statistics. Must come before SQLite initialises; if something
/// else in the process initialised it first, the call fails and changes
/// nothing.
void turnOffMemoryStatistics() {
    static const int rc = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    (void)rc;
}

/// lq_json(x): a JSONB blob (River's args, core/jsonb.h) as JSON text, so
/// that SQLite's JSON functions read it on an SQLite older than 3.45; NULL
/// for a blob that is not JSONB; any other value as it is.
void jsonText(sqlite3_context* ctx, int, sqlite3_value** argv) {
    if (sqlite3_value_type(argv[0]) != SQLITE_BLOB) {
        sqlite3_result_value(ctx, argv[0]);
        return;
    }
    const std::string_view blob(static_cast<const char*>(sqlite3_value_blob(argv[0])),
                                static_cast<std::size_t>(sqlite3_value_bytes(argv[0])));
    if (!jsonb::looksLikeJsonb(blob))
        return; // NULL
    try {
        const std::string text = jsonb::toJson(blob);
        sqlite3_result_text(ctx, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    } catch (const jsonb::DecodeError&) {
        // NULL: not JSONB after all
    }
}

/// json_valid(x), exactly as this SQLite's own built-in answers it, but
/// registered SQLITE_INNOCUOUS. Before 3.42 the built-in JSON functions are
/// not marked innocuous, so with trusted_schema off a schema that calls one
/// (Django's JSONField: CHECK ((JSON_VALID(col) OR col IS NULL))) cannot be
/// loaded by a writable connection ("unsafe use of JSON_VALID()"). The
/// built-in answers on a private, schema-less memory database of the calling
/// thread, so no value is judged differently from the library's own writes.
/// json_valid only reads its argument: it is innocuous whatever the input.
struct BuiltinJsonValid {
    sqlite3* db = nullptr;
    sqlite3_stmt* stmt = nullptr;
    BuiltinJsonValid() {
        if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                            nullptr) == SQLITE_OK)
            sqlite3_prepare_v3(db, "SELECT json_valid(?1)", -1, SQLITE_PREPARE_PERSISTENT, &stmt,
                               nullptr);
    }
    ~BuiltinJsonValid() {
        sqlite3_finalize(stmt);
        sqlite3_close(db);
    }
    BuiltinJsonValid(const BuiltinJsonValid&) = delete;
    BuiltinJsonValid& operator=(const BuiltinJsonValid&) = delete;
};

void jsonValid(sqlite3_context* ctx, int, sqlite3_value** argv) {
    thread_local BuiltinJsonValid builtin;
    if (!builtin.stmt) {
        sqlite3_result_error(ctx, "json_valid: cannot open the built-in's memory database", -1);
        return;
    }
    sqlite3_bind_value(builtin.stmt, 1, argv[0]);
    if (sqlite3_step(builtin.stmt) == SQLITE_ROW)
        sqlite3_result_value(ctx, sqlite3_column_value(builtin.stmt, 0));
    else
        sqlite3_result_error(ctx, sqlite3_errmsg(builtin.db), -1);
    sqlite3_reset(builtin.stmt);
    sqlite3_clear_bindings(builtin.stmt);
}

} // namespace

Connection::Connection(const std::string& path, Mode mode, int busyTimeoutMs)
    : m_path(path)
    , m_mode(mode) {
    turnOffMemoryStatistics();
    int flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE;
    switch (mode) {
    case Mode::ReadOnly:
        flags |= SQLITE_OPEN_READONLY;
        break;
    case Mode::ReadWrite:
        flags |= SQLITE_OPEN_READWRITE;
        break;
    case Mode::ReadWriteCreate:
        flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
        break;
    }
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
    // Owned from here: every throw below closes it.
    m_db.reset(raw);
    if (rc != SQLITE_OK)
        throwSqlite(raw, rc, path);
    if (std::getenv("LQ_SQL_PROFILE"))
        sqlite3_trace_v2(
            raw, SQLITE_TRACE_PROFILE,
            [](unsigned, void*, void* p, void* x) -> int {
                const char* sql = sqlite3_sql(static_cast<sqlite3_stmt*>(p));
                std::fprintf(stderr, "SQLPROF %.3f ms %.160s\n",
                             double(*static_cast<sqlite3_int64*>(x)) / 1e6, sql ? sql : "");
                return 0;
            },
            nullptr);
    // Hardening for untrusted files (docs/RELIABILITY.md#hostile-files). A setting that does not
    // take is an error: the file must not be read without it.
    const auto harden = [&](int op, int value, const char* what) {
        int applied = -1;
        if (sqlite3_db_config(m_db.get(), op, value, &applied) != SQLITE_OK || applied != value) {
            throw Error(ErrorKind::Sqlite, path,
                        std::string("cannot set ") + what + " on the connection; not opened");
        }
    };
    harden(SQLITE_DBCONFIG_DEFENSIVE, 1, "defensive mode");
    harden(SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, "trusted_schema off");
    harden(SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, "no extension loading");
    harden(SQLITE_DBCONFIG_ENABLE_VIEW, 0, "no views");
    // A viewer must never checkpoint the WAL into the main file on close.
    if (mode == Mode::ReadOnly)
        harden(SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, "no checkpoint on close");
    m_busyTimeoutMs = busyTimeoutMs;
    sqlite3_busy_handler(m_db.get(), &Connection::onBusy, this);
    if (mode != Mode::ReadOnly) {
        // The settings litequeue itself uses on its write connection: WAL with
        // synchronous=NORMAL commits without an fsync, so a busy consumer
        // holds the write lock for microseconds, not for a disk flush.
        sqlite3_exec(m_db.get(), "PRAGMA synchronous = NORMAL", nullptr, nullptr, nullptr);
        sqlite3_exec(m_db.get(), "PRAGMA temp_store = MEMORY", nullptr, nullptr, nullptr);
    }
    if (sqlite3_exec(m_db.get(), "PRAGMA cell_size_check = ON", nullptr, nullptr, nullptr) !=
        SQLITE_OK) {
        throw Error(ErrorKind::Sqlite, path, "cannot turn on cell_size_check; not opened");
    }
    using Fn = void (*)(sqlite3_context*, int, sqlite3_value**);
    for (const auto& [name, fn] : {std::pair<const char*, Fn>{"lq_text_ns", &textNs},
                                   std::pair<const char*, Fn>{"lq_seconds_ns", &secondsNs},
                                   std::pair<const char*, Fn>{"lq_json", &jsonText},
                                   std::pair<const char*, Fn>{"json_valid", &jsonValid}}) {
        // Only a writable connection loads a table's CHECK constraints; a
        // read keeps the built-in's own speed (a JSON filter calls it per row).
        if (fn == &jsonValid && mode == Mode::ReadOnly)
            continue;
        if (sqlite3_create_function_v2(m_db.get(), name, 1,
                                       SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                       nullptr, fn, nullptr, nullptr, nullptr) != SQLITE_OK)
            throwSqlite(m_db.get(), sqlite3_errcode(m_db.get()), path, name);
    }
    if (sqlite3_create_function_v2(m_db.get(), "lq_print", -1,
                                   SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nullptr,
                                   nullptr, &printStep, &printFinal, nullptr) != SQLITE_OK)
        throwSqlite(m_db.get(), sqlite3_errcode(m_db.get()), path, "lq_print");
}

int Connection::onBusy(void* self, int count) {
    // SQLite's own busy timeout sleeps up to 100 ms between tries, which lets
    // a tight loop in another process win the lock again and again. Short,
    // jittered sleeps that grow to 2 ms keep waiting writers in the race.
    auto* c = static_cast<Connection*>(self);
    const auto now = std::chrono::steady_clock::now();
    if (count == 0)
        c->m_busySince = now;
    const auto waited =
        std::chrono::duration_cast<std::chrono::milliseconds>(now - c->m_busySince).count();
    if (waited >= c->m_busyTimeoutMs)
        return 0;
    const int base = 50 << std::min(count, 5); // 50 µs .. 1.6 ms
    c->m_rng = c->m_rng * 6364136223846793005ULL + 1442695040888963407ULL;
    const auto jitter = static_cast<int>((c->m_rng >> 33) % static_cast<unsigned>(base));
    std::this_thread::sleep_for(std::chrono::microseconds(base / 2 + jitter));
    return 1;
}

InterruptWhen::InterruptWhen(Connection& c, const std::atomic_bool* cancel) {
    if (!cancel)
        return;
    m_db = c.handle();
    sqlite3_progress_handler(
        m_db, 4000,
        [](void* p) -> int { return static_cast<const std::atomic_bool*>(p)->load() ? 1 : 0; },
        const_cast<std::atomic_bool*>(cancel)); // NOLINT(cppcoreguidelines-pro-type-const-cast)
}

InterruptWhen::~InterruptWhen() {
    if (m_db)
        sqlite3_progress_handler(m_db, 0, nullptr, nullptr);
}

Connection::~Connection() {
    m_cache.clear(); // statements before the database
}

void Connection::exec(std::string_view sql) {
    char* err = nullptr;
    const std::string s(sql);
    const int rc = sqlite3_exec(m_db.get(), s.c_str(), nullptr, nullptr, &err);
    sqlite3_free(err);
    if (rc != SQLITE_OK)
        throwSqlite(m_db.get(), rc, m_path);
}

Statement Connection::prepare(std::string_view sql) {
    return Statement(m_db.get(), sql, m_path);
}

CachedStatement Connection::cached(const std::string& sql) {
    auto it = m_cache.find(sql);
    if (it == m_cache.end())
        it = m_cache.emplace(sql, std::make_unique<Statement>(m_db.get(), sql, m_path)).first;
    return CachedStatement(*it->second);
}

std::int64_t Connection::changes() const {
    return sqlite3_changes64(m_db.get());
}
std::int64_t Connection::lastInsertRowid() const {
    return sqlite3_last_insert_rowid(m_db.get());
}

std::int64_t Connection::pragmaInt(std::string_view pragma) {
    auto st = prepare(std::string("PRAGMA ") + std::string(pragma));
    return st.step() ? st.int64(0) : 0;
}

std::string Connection::pragmaText(std::string_view pragma) {
    auto st = prepare(std::string("PRAGMA ") + std::string(pragma));
    return st.step() ? st.text(0) : std::string();
}

bool Connection::inTransaction() const {
    return sqlite3_get_autocommit(m_db.get()) == 0;
}

// ---- Transaction -------------------------------------------------------------

Transaction::Transaction(Connection& c, Kind kind)
    : m_c(c) {
    c.cached(kind == Kind::Immediate ? "BEGIN IMMEDIATE" : "BEGIN")->exec();
}

Transaction::~Transaction() {
    if (!m_done && m_c.inTransaction())
        sqlite3_exec(m_c.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
    m_c.cached("COMMIT")->exec();
    m_done = true;
}

namespace {

/// `text` between `quote`s, each `quote` inside doubled (SQL's escaping).
std::string quoted(std::string_view text, char quote) {
    std::string out(1, quote);
    for (char ch : text) {
        if (ch == quote)
            out += quote;
        out += ch;
    }
    out += quote;
    return out;
}

} // namespace

std::string quoteIdent(std::string_view name) {
    return quoted(name, '"');
}

std::string quoteLiteral(std::string_view text) {
    return quoted(text, '\'');
}

} // namespace lq::core
