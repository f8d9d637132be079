// SPDX-License-Identifier: MIT
// lqhostilegen OUTDIR [--fixtures DIR]: writes the hostile-file corpus of
// tests/stress/hostilecases.h into OUTDIR, one folder per case, using the
// SQLite C API only (never lqcore: the corpus must not depend on the code it
// tests). Deterministic: the same bytes on every run, except the `fifo` and
// `locked` cases, which are made at test time. tst_hostile runs it into a
// temp folder so the corpus is always fresh; see tests/data/hostile/README.md.

#include <sqlite3.h>

#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <string>
#include <variant>
#include <vector>

namespace fs = std::filesystem;

namespace {

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "lqhostilegen: %s\n", what.c_str());
    std::exit(1);
}

struct Blob {
    std::string bytes;
};
using Value = std::variant<std::nullptr_t, std::int64_t, double, std::string, Blob>;

/// A raw connection that creates the file; closed in the destructor.
class Db {
public:
    explicit Db(const fs::path& p)
        : m_path(p.string()) {
        if (sqlite3_open_v2(m_path.c_str(), &m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                            nullptr) != SQLITE_OK)
            die("cannot create " + m_path);
    }
    ~Db() { sqlite3_close_v2(m_db); }
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;

    void exec(const std::string& sql) {
        char* err = nullptr;
        if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
            const std::string msg = err ? err : "?";
            sqlite3_free(err);
            die(m_path + ": " + msg + " in: " + sql.substr(0, 200));
        }
    }

    /// INSERT INTO table VALUES (?, ?, ...) with these values.
    void insert(const std::string& table, const std::vector<Value>& values) {
        std::string sql = "INSERT INTO \"" + table + "\" VALUES (";
        for (std::size_t i = 0; i < values.size(); ++i)
            sql += i ? ", ?" : "?";
        sql += ")";
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
            die(m_path + ": " + sqlite3_errmsg(m_db));
        for (std::size_t i = 0; i < values.size(); ++i) {
            const int k = static_cast<int>(i + 1);
            const Value& v = values[i];
            if (std::holds_alternative<std::nullptr_t>(v))
                sqlite3_bind_null(st, k);
            else if (const auto* n = std::get_if<std::int64_t>(&v))
                sqlite3_bind_int64(st, k, *n);
            else if (const auto* d = std::get_if<double>(&v))
                sqlite3_bind_double(st, k, *d);
            else if (const auto* s = std::get_if<std::string>(&v))
                sqlite3_bind_text64(st, k, s->data(), s->size(), SQLITE_TRANSIENT, SQLITE_UTF8);
            else
                sqlite3_bind_blob64(st, k, std::get<Blob>(v).bytes.data(),
                                    std::get<Blob>(v).bytes.size(), SQLITE_TRANSIENT);
        }
        if (sqlite3_step(st) != SQLITE_DONE)
            die(m_path + ": " + sqlite3_errmsg(m_db));
        sqlite3_finalize(st);
    }

    std::int64_t queryInt(const std::string& sql) {
        sqlite3_stmt* st = nullptr;
        std::int64_t v = -1;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        return v;
    }

private:
    std::string m_path;
    sqlite3* m_db = nullptr;
};

// The litequeue 0.14 schema exactly as docs/FORMATS.md gives it.
const char* kSchema014 =
    "CREATE TABLE \"Queue\" (data TEXT NOT NULL, message_id TEXT NOT NULL, status INTEGER NOT "
    "NULL, in_time INTEGER NOT NULL, lock_time INTEGER, done_time INTEGER, idempotency_key TEXT, "
    "claim_id INTEGER NOT NULL DEFAULT 0);"
    "CREATE UNIQUE INDEX \"Queue_message_id_unique_idx\" ON \"Queue\"(message_id);"
    "CREATE INDEX \"Queue_status_message_id_idx\" ON \"Queue\"(status, message_id);"
    "CREATE UNIQUE INDEX \"Queue_idempotency_key_unique_idx\" ON \"Queue\"(idempotency_key) "
    "WHERE idempotency_key IS NOT NULL;"
    "PRAGMA user_version = 3;";

// The same columns with no constraint and no index: what a careless tool, or
// an attacker, can write.
const char* kSchemaLoose =
    "CREATE TABLE \"Queue\" (data TEXT, message_id TEXT, status INTEGER, in_time INTEGER, "
    "lock_time INTEGER, done_time INTEGER, idempotency_key TEXT, claim_id INTEGER);"
    "PRAGMA user_version = 3;";

constexpr std::int64_t kT0 = 1'700'000'000'000'000'000; // 2023-11-14T22:13:20Z
constexpr std::int64_t kS = 1'000'000'000;

std::string uuid7(std::int64_t i) {
    char buf[40];
    const auto ms = static_cast<unsigned long long>(kT0 / 1'000'000 + i);
    std::snprintf(buf, sizeof buf, "%08llx-%04llx-7000-8000-%012llx", (ms >> 16) & 0xffffffffULL,
                  ms & 0xffffULL, static_cast<unsigned long long>(i));
    return buf;
}

/// `n` ordinary rows: READY, LOCKED, DONE, FAILED in turn, with sane times.
void fillRows(Db& db, int n, int payloadBytes = 80, int first = 0) {
    db.exec("BEGIN");
    for (int i = first; i < first + n; ++i) {
        const int st = i % 4;
        const std::int64_t in = kT0 + i * kS;
        std::string payload = "payload-" + std::to_string(i) + "-";
        payload.resize(static_cast<std::size_t>(payloadBytes), 'x');
        db.insert("Queue",
                  {payload, uuid7(i), std::int64_t(st), in,
                   st ? Value(in + kS / 2) : Value(nullptr),
                   st >= 2 ? Value(in + kS) : Value(nullptr), nullptr, std::int64_t(st ? 1 : 0)});
    }
    db.exec("COMMIT");
}

/// A healthy 0.14 queue of `rows` rows (the base the damaged cases start from).
void makeQueue(const fs::path& p, int rows, const char* journal = "delete",
               const char* schema = kSchema014) {
    Db db(p);
    db.exec(schema);
    fillRows(db, rows);
    db.exec(std::string("PRAGMA journal_mode = ") + journal);
}

std::string readAll(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in)
        die("cannot read " + p.string());
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeAll(const fs::path& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out)
        die("cannot write " + p.string());
}

/// Copies `src` to `dst` and patches bytes at `offset`.
void patched(const fs::path& src, const fs::path& dst, std::size_t offset,
             const std::string& bytes) {
    std::string data = readAll(src);
    if (offset + bytes.size() > data.size())
        die("patch past the end of " + src.string());
    data.replace(offset, bytes.size(), bytes);
    writeAll(dst, data);
}

std::string be32(std::uint32_t v) {
    return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
}

std::int64_t rootPage(const fs::path& p, const std::string& name) {
    Db db(p);
    return db.queryInt("SELECT rootpage FROM sqlite_master WHERE name = '" + name + "'");
}

class Gen {
public:
    Gen(fs::path out, fs::path fixtures)
        : m_out(std::move(out))
        , m_fixtures(std::move(fixtures)) {}

    /// A fresh folder for one case; returns the queue file path inside it.
    fs::path dir(const std::string& name) {
        const fs::path d = m_out / name;
        fs::remove_all(d);
        fs::create_directories(d);
        ++m_count;
        return d / (name + ".sqlite3");
    }

    void run();
    int count() const { return m_count; }

private:
    fs::path m_out, m_fixtures;
    int m_count = 0;
};

void Gen::run() {
    const fs::path mixed = m_fixtures / "litequeue-head-mixed.sqlite3";
    const fs::path walPending = m_fixtures / "wal-pending" / "litequeue-wal-pending.sqlite3-wal";
    if (!fs::exists(mixed) || !fs::exists(walPending))
        die("fixtures not found in " + m_fixtures.string() + " (use --fixtures DIR)");

    // A healthy base (rollback journal, 4 KiB pages, 300 rows over many pages)
    // for the damaged cases, kept beside the corpus as a case of its own.
    const fs::path base = dir("healthy");
    makeQueue(base, 300);
    const std::string baseBytes = readAll(base);

    // ---- damaged: truncated copies of a real litequeue fixture ------------
    const std::string mixedBytes = readAll(mixed);
    for (std::size_t cut : {100u, 1000u, 5000u, 8192u, 20000u}) {
        const std::string name = "truncated-" + std::to_string(cut);
        writeAll(dir(name), mixedBytes.substr(0, cut));
    }
    // The whole fixture minus its last page: the header's page count lies.
    writeAll(dir("truncated-last-page"), mixedBytes.substr(0, mixedBytes.size() - 4096));

    // ---- damaged: flipped bytes in the 100-byte header ---------------------
    const auto header = [&](const std::string& name, std::size_t off, const std::string& b) {
        patched(base, dir(name), off, b);
    };
    header("header-magic", 0, "s");                                 // "sQLite format 3"
    header("header-page-size", 16, std::string("\x00\x03", 2));     // not a power of two
    header("header-page-size-64k", 16, std::string("\x00\x01", 2)); // 65536 on a 4 KiB file
    header("header-write-version", 18, "\x03");                     // > 2: SQLite opens read-only
    header("header-read-version", 19, "\x03");                      // > 2: SQLite cannot read it
    header("header-payload-fraction", 21, "\x41");                  // must be 64
    header("header-page-count", 28, be32(0x7fffff00));              // in-header size far past EOF
    header("header-freelist", 32, be32(99999));                     // freelist trunk past EOF
    header("header-schema-format", 44, be32(9));                    // unknown schema format
    header("header-encoding", 56, be32(3));                         // UTF-16be on a UTF-8 file
    header("header-reserved-bytes", 20, "\xff");                    // 255 reserved bytes per page

    // ---- damaged: b-tree pages ---------------------------------------------
    const std::size_t page = 4096;
    const auto queueRoot = static_cast<std::size_t>(rootPage(base, "Queue"));
    const auto idxRoot = static_cast<std::size_t>(rootPage(base, "Queue_message_id_unique_idx"));
    const std::string zero(1, '\0');
    patched(base, dir("btree-schema-page-type"), 100, zero);
    patched(base, dir("btree-queue-root-type"), (queueRoot - 1) * page, "\xff");
    patched(base, dir("btree-queue-cell-pointer"), (queueRoot - 1) * page + 12, "\xff\xf0");
    patched(base, dir("btree-queue-cell-count"), (queueRoot - 1) * page + 3, "\x7f\xff");
    patched(base, dir("btree-index-root-type"), (idxRoot - 1) * page, zero);
    {
        // Garbage over the middle of a leaf page of the table.
        std::string bytes = baseBytes;
        std::uint32_t x = 12345;
        // The first table leaf (type 0x0d) after page 1 holds Queue rows.
        std::size_t leaf = 0;
        for (std::size_t pg = 1; (pg + 1) * page <= bytes.size() && !leaf; ++pg)
            if (bytes[pg * page] == '\x0d')
                leaf = pg * page;
        if (!leaf)
            die("no table leaf page found");
        for (std::size_t i = 200; i < 1200; ++i) {
            x = x * 1103515245u + 12345u;
            bytes[leaf + i] = static_cast<char>(x >> 16);
        }
        writeAll(dir("btree-leaf-garbage"), bytes);
    }
    {
        // A row whose payload spills to overflow pages, then a broken chain.
        const fs::path tmp = m_out / "overflow-base.tmp";
        fs::remove(tmp);
        {
            Db db(tmp);
            db.exec(kSchema014);
            db.insert("Queue", {std::string(20000, 'o'), uuid7(0), std::int64_t(0), kT0, nullptr,
                                nullptr, nullptr, std::int64_t(0)});
            fillRows(db, 10, 80, 1);
        }
        // The first overflow page follows the root leaf; point its "next"
        // pointer somewhere absurd.
        std::string bytes = readAll(tmp);
        const auto root = static_cast<std::size_t>(rootPage(tmp, "Queue"));
        // Find the overflow page: the first page after the root that holds 'o's.
        std::size_t ovfl = 0;
        for (std::size_t pg = root; pg * page < bytes.size(); ++pg)
            if (bytes.compare(pg * page + 4, 16, std::string(16, 'o')) == 0) {
                ovfl = pg;
                break;
            }
        if (!ovfl)
            die("no overflow page found");
        bytes.replace(ovfl * page, 4, be32(0x00ffffff));
        writeAll(dir("btree-overflow-chain"), bytes);
        fs::remove(tmp);
    }

    // ---- bad values ------------------------------------------------------
    {
        Db db(dir("status-unknown"));
        db.exec(kSchemaLoose);
        fillRows(db, 8);
        int i = 100;
        for (const Value& st :
             {Value(std::int64_t(7)), Value(std::int64_t(-1)), Value(std::string("x")),
              Value(nullptr), Value(2.5), Value(std::int64_t(INT64_MAX)), Value(Blob{"\x01"})})
            db.insert("Queue", {std::string("odd status"), uuid7(i++), st, kT0, nullptr, nullptr,
                                nullptr, std::int64_t(1)});
    }
    const auto timesCase = [&](const std::string& name, const std::vector<Value>& in,
                               const std::vector<Value>& lock, const std::vector<Value>& done) {
        Db db(dir(name));
        db.exec(kSchemaLoose);
        fillRows(db, 4);
        for (std::size_t i = 0; i < in.size(); ++i)
            for (std::int64_t st = 0; st < 4; ++st)
                db.insert("Queue", {std::string("t"), uuid7(100 + std::int64_t(i) * 4 + st), st,
                                    in[i], lock[i], done[i], nullptr, std::int64_t(1)});
    };
    timesCase("times-null", {Value(nullptr), Value(kT0)}, {Value(nullptr), Value(nullptr)},
              {Value(kT0), Value(nullptr)});
    timesCase("times-text", {Value(std::string("yesterday")), Value(std::string("2024-01-01"))},
              {Value(std::string("")), Value(std::string("1700000000000000000"))},
              {Value(std::string("soon")), Value(Blob{std::string(8, '\xff')})});
    timesCase("times-real", {Value(1.7e18), Value(1.7e9)}, {Value(1.7e18 + 5e8), Value(1e308)},
              {Value(1.7e18 + 9e8), Value(-1e308)});
    timesCase("times-negative", {Value(std::int64_t(-5)), Value(kT0)},
              {Value(std::int64_t(-1)), Value(kT0 - 1000 * kS)},
              {Value(std::int64_t(-9)), Value(std::int64_t(0))});
    // Differences that overflow int64 (lock - in, done - lock, done - in),
    // the last pair exactly as the fuzzer found it.
    timesCase("times-extreme",
              {Value(std::int64_t(INT64_MIN + 1)), Value(std::int64_t(INT64_MAX)),
               Value(std::int64_t(6125183591156588433))},
              {Value(std::int64_t(INT64_MAX)), Value(std::int64_t(INT64_MIN + 1)),
               Value(std::int64_t(-6205255989447388485))},
              {Value(std::int64_t(INT64_MIN + 1)), Value(std::int64_t(INT64_MAX)),
               Value(std::int64_t(6125183591156588433))});
    timesCase("times-far-future", {Value(kT0 * 5), Value(std::int64_t(9'000'000'000'000'000'000))},
              {Value(kT0 * 5 + kS), Value(std::int64_t(9'100'000'000'000'000'000))},
              {Value(kT0 * 5 + 2 * kS), Value(std::int64_t(9'200'000'000'000'000'000))});
    {
        Db db(dir("ids-not-uuid"));
        db.exec(kSchemaLoose);
        int st = 0;
        for (const Value& id :
             {Value(std::string("")), Value(std::string("hello")),
              Value(std::string("../../../etc/passwd")), Value(std::string("<b>bold</b>&amp;")),
              Value(std::string("line\nbreak\ttab")), Value(std::string(5000, 'i')),
              Value(std::string("%s%n%x")), Value(std::string("'; DROP TABLE Queue; --")),
              Value(nullptr), Value(std::int64_t(42)), Value(Blob{std::string("\0id", 3)})})
            db.insert("Queue", {std::string("odd id"), id, std::int64_t(st++ % 4), kT0, kT0 + kS,
                                kT0 + 2 * kS, nullptr, std::int64_t(1)});
    }
    {
        Db db(dir("ids-duplicate"));
        db.exec(kSchemaLoose);
        fillRows(db, 6);
        for (int k = 0; k < 4; ++k)
            db.insert("Queue", {std::string("twin ") + std::to_string(k), uuid7(2), std::int64_t(k),
                                kT0, kT0 + kS, kT0 + 2 * kS, nullptr, std::int64_t(k)});
    }
    {
        Db db(dir("payload-20mb"));
        db.exec(kSchema014);
        fillRows(db, 3);
        std::string big(20 * 1024 * 1024, 'z');
        for (std::size_t i = 0; i < big.size(); i += 1000)
            big[i] = '\n';
        db.insert("Queue", {big, uuid7(99), std::int64_t(0), kT0 + 99 * kS, nullptr, nullptr,
                            nullptr, std::int64_t(0)});
        db.insert("Queue", {big, uuid7(100), std::int64_t(2), kT0 + 100 * kS, kT0 + 101 * kS,
                            kT0 + 102 * kS, nullptr, std::int64_t(1)});
    }
    {
        Db db(dir("payload-blob"));
        db.exec(kSchemaLoose);
        fillRows(db, 2);
        std::string bytes;
        for (int i = 0; i < 512; ++i)
            bytes += static_cast<char>(i & 0xff);
        db.insert("Queue", {Blob{bytes}, uuid7(50), std::int64_t(0), kT0, nullptr, nullptr, nullptr,
                            std::int64_t(0)});
        db.insert("Queue",
                  {Blob{""}, uuid7(51), std::int64_t(2), kT0, kT0, kT0, nullptr, std::int64_t(1)});
        db.insert("Queue",
                  {nullptr, uuid7(52), std::int64_t(3), kT0, kT0, kT0, nullptr, std::int64_t(1)});
    }
    {
        Db db(dir("payload-invalid-utf8"));
        db.exec(kSchema014);
        int i = 60;
        for (const char* s : {"\xff\xfe\xfd", "\xc0\xaf overlong", "\xed\xa0\x80 surrogate",
                              "trunc \xe2\x82", "\xf4\x90\x80\x80 > U+10FFFF", "nul\x00inside",
                              "<script>alert(1)</script>", "\x1b[31mred\x1b[0m"}) {
            std::string v(s, std::strlen(s) + (std::strncmp(s, "nul", 3) == 0 ? 7 : 0));
            db.insert("Queue", {v, uuid7(i), std::int64_t(i % 4), kT0 + i * kS, kT0 + i * kS + 1,
                                kT0 + i * kS + 2, v, std::int64_t(1)});
            ++i;
        }
    }
    {
        Db db(dir("claims-odd"));
        db.exec(kSchemaLoose);
        int i = 0;
        for (const Value& c : {Value(nullptr), Value(std::string("seven")), Value(std::int64_t(-3)),
                               Value(std::int64_t(INT64_MAX)), Value(1.5), Value(Blob{"\x07"})})
            db.insert("Queue", {std::string("claim"), uuid7(i++), std::int64_t(1), kT0, kT0 + kS,
                                nullptr, nullptr, c});
    }
    {
        // jobs-lease (seed 000) with nonsense in every column.
        Db db(dir("jobs-bad-values"));
        db.exec("CREATE TABLE jobs (id TEXT PRIMARY KEY, payload TEXT, run_at REAL, "
                "locked_until REAL, attempts INTEGER)");
        int i = 0;
        for (const Value& v : {Value(nullptr), Value(std::string("soon")), Value(-1.0),
                               Value(1e300), Value(std::int64_t(INT64_MIN)), Value(Blob{"\x00"})})
            db.insert("jobs",
                      {std::string("job") + std::to_string(i++), std::string("p"), v, v, v});
    }

    // ---- bad schema --------------------------------------------------------
    {
        Db db(dir("trigger-delete-on-update"));
        db.exec(kSchema014);
        fillRows(db, 8);
        db.exec("CREATE TRIGGER wipe AFTER UPDATE ON \"Queue\" BEGIN DELETE FROM \"Queue\"; END");
    }
    {
        // A trigger with the maxsize trigger's name and its message, whose
        // body deletes every row on every insert.
        Db db(dir("trigger-disguised-maxsize"));
        db.exec(kSchema014);
        fillRows(db, 8);
        db.exec("CREATE TRIGGER \"maxsize_control_Queue\" BEFORE INSERT ON \"Queue\" BEGIN "
                "DELETE FROM \"Queue\"; SELECT 'Max queue length reached: 5'; END");
    }
    {
        Db db(dir("view"));
        db.exec(kSchema014);
        fillRows(db, 8);
        db.exec("CREATE VIEW everything AS SELECT * FROM \"Queue\"");
    }
    {
        Db db(dir("extra-table"));
        db.exec(kSchema014);
        fillRows(db, 8);
        db.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)");
    }
    {
        Db db(dir("missing-columns"));
        db.exec("CREATE TABLE \"Queue\" (data TEXT, message_id TEXT, status INTEGER)");
        db.exec("INSERT INTO \"Queue\" VALUES ('d', 'id', 0)");
    }
    {
        Db db(dir("pre06-message-column"));
        db.exec("CREATE TABLE \"Queue\" (message TEXT, message_id TEXT, status INTEGER, in_time "
                "INTEGER, lock_time INTEGER, done_time INTEGER)");
    }
    {
        Db db(dir("without-rowid"));
        db.exec("CREATE TABLE \"Queue\" (data TEXT, message_id TEXT PRIMARY KEY, status INTEGER, "
                "in_time INTEGER, lock_time INTEGER, done_time INTEGER, idempotency_key TEXT, "
                "claim_id INTEGER) WITHOUT ROWID; PRAGMA user_version = 3");
        fillRows(db, 4);
    }
    {
        Db db(dir("user-version-99"));
        db.exec(kSchema014);
        fillRows(db, 8);
        db.exec("PRAGMA user_version = 99");
    }
    {
        // A generated column whose value raises "integer overflow" on read
        // (written benign, then edited: SQLite computes it on insert too).
        Db db(dir("generated-column-overflow"));
        db.exec("CREATE TABLE \"Queue\" (data TEXT, message_id TEXT, in_time INTEGER, lock_time "
                "INTEGER, done_time INTEGER, idempotency_key TEXT, claim_id INTEGER, status "
                "INTEGER GENERATED ALWAYS AS (0) VIRTUAL); PRAGMA user_version = 3");
        db.exec("INSERT INTO \"Queue\" (data, message_id, in_time, claim_id) VALUES ('d', "
                "'id', 1700000000000000000, 0)");
        db.exec("PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, "
                "'AS (0)', 'AS (abs(-9223372036854775807 - 1))') WHERE name = 'Queue'; PRAGMA "
                "writable_schema = OFF");
    }
    {
        // Schema text edited behind SQLite's back: an unknown collation, and
        // a schema that does not parse.
        Db db(dir("unknown-collation"));
        db.exec(kSchema014);
        fillRows(db, 4);
        db.exec("PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, "
                "'message_id TEXT NOT NULL', 'message_id TEXT NOT NULL COLLATE nosuch') WHERE "
                "name = 'Queue'; PRAGMA writable_schema = OFF");
    }
    {
        Db db(dir("schema-syntax-error"));
        db.exec(kSchema014);
        fillRows(db, 4);
        db.exec("PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = 'CREATE TABLE "
                "\"Queue\" (data TEXT,' WHERE name = 'Queue'; PRAGMA writable_schema = OFF");
    }
    {
        Db db(dir("empty-schema"));
        db.exec("PRAGMA user_version = 3"); // writes page 1: a valid, empty database
    }
    {
        Db db(dir("many-queue-tables"));
        for (int t = 0; t < 200; ++t)
            db.exec("CREATE TABLE \"q" + std::to_string(t) +
                    "\" (data TEXT, message_id TEXT, status INTEGER, in_time INTEGER, lock_time "
                    "INTEGER, done_time INTEGER)");
    }

    // ---- bad surroundings --------------------------------------------------
    {
        // A -wal left without its main file.
        const fs::path p = dir("wal-orphan");
        fs::copy_file(walPending, p.string() + "-wal");
    }
    {
        const fs::path p = dir("wal-garbage");
        makeQueue(p, 20, "wal");
        std::string junk(33000, '\0');
        std::uint32_t x = 99;
        for (auto& c : junk) {
            x = x * 1103515245u + 12345u;
            c = static_cast<char>(x >> 16);
        }
        writeAll(p.string() + "-wal", junk);
    }
    {
        // A valid -wal that belongs to another database (same page size).
        const fs::path p = dir("wal-foreign");
        makeQueue(p, 20, "wal");
        fs::copy_file(walPending, p.string() + "-wal");
    }
    {
        // A hot rollback journal: a writer died mid-transaction after some of
        // its pages reached the main file (tiny cache, so they spill).
        const fs::path p = dir("hot-journal");
        makeQueue(p, 300);
        {
            Db db(p);
            db.exec("PRAGMA cache_size = 2; BEGIN; UPDATE \"Queue\" SET status = 3, data = "
                    "data || 'CHANGED'");
            fs::copy_file(p, p.string() + ".snap");
            fs::copy_file(p.string() + "-journal", p.string() + "-journal.snap");
            db.exec("ROLLBACK");
        }
        // Replace the closed files with the mid-transaction snapshot.
        fs::rename(p.string() + ".snap", p);
        fs::rename(p.string() + "-journal.snap", p.string() + "-journal");
    }
    {
        // Held under BEGIN EXCLUSIVE by another process at test time
        // (rollback journal: in WAL mode readers are never locked out).
        makeQueue(dir("locked-exclusive"), 20);
    }
    fs::create_directory(dir("directory"));
    {
        const fs::path a = dir("symlink-loop");
        const fs::path b = a.parent_path() / "other.sqlite3";
        fs::create_symlink(b.filename(), a);
        fs::create_symlink(a.filename(), b);
    }
    fs::create_symlink("nowhere.sqlite3", dir("symlink-dangling"));
    fs::create_symlink("/dev/zero", dir("symlink-dev-zero"));
    {
        const fs::path p = dir("symlink-to-queue");
        makeQueue(p.parent_path() / "real.sqlite3", 12);
        fs::create_symlink("real.sqlite3", p);
    }
    dir("missing"); // the folder only: the file does not exist
    writeAll(dir("zero-bytes"), "");
    writeAll(dir("not-sqlite"), "this is a text file, not a database\n");
    writeAll(dir("header-only"), baseBytes.substr(0, 100));
    {
        const fs::path p = dir("fifo");
        if (mkfifo(p.c_str(), 0600) != 0)
            die("mkfifo failed");
    }
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: lqhostilegen OUTDIR [--fixtures DIR]\n");
        return 2;
    }
    fs::path fixtures = LQ_TEST_DATA_DIR;
    for (int i = 2; i + 1 < argc; i += 2)
        if (std::string(argv[i]) == "--fixtures")
            fixtures = argv[i + 1];
    const fs::path out = argv[1];
    fs::create_directories(out);
    Gen g(out, fixtures);
    try {
        g.run();
    } catch (const std::exception& e) {
        die(e.what());
    }
    std::printf("lqhostilegen: %d cases in %s\n", g.count(), out.c_str());
    return 0;
}
