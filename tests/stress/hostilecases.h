// SPDX-License-Identifier: MIT
#pragma once

// The hostile-file corpus (docs/RELIABILITY.md#hostile-files): every file `lqhostilegen OUTDIR`
// writes, with the outcome lqcore and lqctl must give for it. tst_hostile
// checks lqcore and `lqctl info/stats --json`; the GUI suite can reuse the
// same table (run lqhostilegen into a temp folder, then open each `file`).
//
// Common to every case: no crash, no hang past a timeout, no byte of any
// existing file changed, and no new file but SQLite's -wal/-shm side files.

#include "core/error.h"

#include <cstdint>
#include <iterator>

namespace lqhostile {

enum class Expect {
    Works,     ///< opens writable; counts, list, stats and targets all work
    ReadOnly,  ///< opens; reads work; readOnly() with a reason containing `text`
    OpenError, ///< Queue::open throws `kind` with `text` in its detail
    ReadError, ///< opens, but reading the rows throws `kind` with `text`
};

struct Case {
    const char* name; ///< the folder in OUTDIR, and the test row's name
    const char* file; ///< what to open, relative to OUTDIR
    Expect expect;
    lq::core::ErrorKind kind; ///< for OpenError/ReadError
    const char* text;         ///< substring of the error detail or read-only reason
    std::int64_t stored;      ///< rows counts() must report; -1: not checked
    int infoExit;             ///< `lqctl info FILE --json` exit code (README.md#lqctl)
    int statsExit;            ///< `lqctl stats FILE --json`
    /// A helper process holds the file under BEGIN EXCLUSIVE during the case.
    bool needsLockHolder;
    /// A known defect, reported and expected to fail until fixed (nullptr: none).
    const char* knownBug;
    const char* what; ///< what the file is
};

using K = lq::core::ErrorKind;
using E = Expect;

// clang-format off
inline constexpr Case kCases[] = {
    // name, file, expect, kind, text, stored, info, stats, lock, bug, what
    {"healthy", "healthy/healthy.sqlite3", E::Works, K::Sqlite, "", 300, 0, 0, false, nullptr,
     "the undamaged base of the damaged cases (300 rows, 4 KiB pages)"},

    // ---- damaged ---------------------------------------------------------
    {"truncated-100", "truncated-100/truncated-100.sqlite3", E::OpenError, K::Corrupt, "malformed", -1, 5, 5, false, nullptr,
     "a real litequeue file cut at 100 bytes (the header only)"},
    {"truncated-1000", "truncated-1000/truncated-1000.sqlite3", E::OpenError, K::Corrupt, "malformed", -1, 5, 5, false, nullptr,
     "cut at 1000 bytes, inside page 1"},
    {"truncated-5000", "truncated-5000/truncated-5000.sqlite3", E::OpenError, K::Corrupt, "malformed", -1, 5, 5, false, nullptr,
     "cut at 5000 bytes, inside page 2"},
    {"truncated-8192", "truncated-8192/truncated-8192.sqlite3", E::OpenError, K::Corrupt, "malformed", -1, 5, 5, false, nullptr,
     "cut at a page boundary"},
    {"truncated-20000", "truncated-20000/truncated-20000.sqlite3", E::OpenError, K::Corrupt, "malformed", -1, 5, 5, false, nullptr,
     "cut at 20000 bytes"},
    {"truncated-last-page", "truncated-last-page/truncated-last-page.sqlite3", E::OpenError, K::Corrupt, "malformed", -1, 5, 5, false, nullptr,
     "the last page missing: the header's page count lies"},
    {"header-only", "header-only/header-only.sqlite3", E::OpenError, K::Corrupt, "malformed", -1, 5, 5, false, nullptr,
     "exactly the 100-byte header of a healthy file"},
    {"header-magic", "header-magic/header-magic.sqlite3", E::OpenError, K::Corrupt, "not a SQLite database", -1, 3, 3, false, nullptr,
     "first byte of the magic string flipped"},
    {"header-page-size", "header-page-size/header-page-size.sqlite3", E::OpenError, K::Corrupt, "not a SQLite database", -1, 5, 5, false, nullptr,
     "page size 3 (not a power of two)"},
    {"header-page-size-64k", "header-page-size-64k/header-page-size-64k.sqlite3", E::OpenError, K::Corrupt, "malformed", -1, 5, 5, false, nullptr,
     "page size 65536 on a file of 4 KiB pages"},
    {"header-write-version", "header-write-version/header-write-version.sqlite3", E::Works, K::Sqlite, "", 300, 0, 0, false, nullptr,
     "write version 3: SQLite reads it (writes fail with ReadOnly)"},
    {"header-read-version", "header-read-version/header-read-version.sqlite3", E::OpenError, K::Corrupt, "not a SQLite database", -1, 5, 5, false, nullptr,
     "read version 3: SQLite cannot read it"},
    {"header-payload-fraction", "header-payload-fraction/header-payload-fraction.sqlite3", E::OpenError, K::Corrupt, "not a SQLite database", -1, 5, 5, false, nullptr,
     "max embedded payload fraction 65 (must be 64)"},
    {"header-reserved-bytes", "header-reserved-bytes/header-reserved-bytes.sqlite3", E::OpenError, K::Corrupt, "malformed", -1, 5, 5, false, nullptr,
     "255 reserved bytes per page that the cells overlap"},
    {"header-page-count", "header-page-count/header-page-count.sqlite3", E::OpenError, K::Corrupt, "malformed", -1, 5, 5, false, nullptr,
     "in-header page count far past the end of the file"},
    {"header-freelist", "header-freelist/header-freelist.sqlite3", E::Works, K::Sqlite, "", 300, 0, 0, false, nullptr,
     "freelist trunk page past the end (only writes would notice)"},
    {"header-schema-format", "header-schema-format/header-schema-format.sqlite3", E::OpenError, K::Sqlite, "unsupported file format", -1, 5, 5, false, nullptr,
     "schema format number 9"},
    {"header-encoding", "header-encoding/header-encoding.sqlite3", E::OpenError, K::Corrupt, "malformed", -1, 5, 5, false, nullptr,
     "text encoding UTF-16be on a UTF-8 file"},
    {"btree-schema-page-type", "btree-schema-page-type/btree-schema-page-type.sqlite3", E::OpenError, K::Corrupt, "malformed", -1, 5, 5, false, nullptr,
     "page 1 b-tree type byte zeroed: the schema cannot be read"},
    {"btree-queue-root-type", "btree-queue-root-type/btree-queue-root-type.sqlite3", E::ReadError, K::Corrupt, "malformed", -1, 5, 5, false, nullptr,
     "the Queue table's root page type byte flipped"},
    {"btree-queue-cell-pointer", "btree-queue-cell-pointer/btree-queue-cell-pointer.sqlite3", E::ReadError, K::Corrupt, "malformed", -1, 5, 5, false, nullptr,
     "a cell pointer of the Queue root pointing past the page"},
    {"btree-queue-cell-count", "btree-queue-cell-count/btree-queue-cell-count.sqlite3", E::ReadError, K::Corrupt, "malformed", -1, 5, 5, false, nullptr,
     "the Queue root claims 32767 cells"},
    {"btree-index-root-type", "btree-index-root-type/btree-index-root-type.sqlite3", E::ReadError, K::Corrupt, "malformed", -1, 0, 0, false, nullptr,
     "the message_id index root page type zeroed (counts and statistics, which read the table "
     "by rowid, still work; a listing by message_id fails)"},
    {"btree-leaf-garbage", "btree-leaf-garbage/btree-leaf-garbage.sqlite3", E::ReadError, K::Corrupt, "malformed", -1, 5, 5, false, nullptr,
     "1000 random bytes over a table leaf page"},
    {"btree-overflow-chain", "btree-overflow-chain/btree-overflow-chain.sqlite3", E::ReadError, K::Corrupt, "malformed", -1, 0, 5, false, nullptr,
     "a 20 kB payload whose overflow chain points past the file"},

    // ---- bad values --------------------------------------------------------
    {"status-unknown", "status-unknown/status-unknown.sqlite3", E::Works, K::Sqlite, "", 15, 0, 0, false, nullptr,
     "status 7, -1, 'x', NULL, 2.5, INT64_MAX and a BLOB (shown as UNKNOWN)"},
    {"times-null", "times-null/times-null.sqlite3", E::Works, K::Sqlite, "", 12, 0, 0, false, nullptr,
     "NULL in_time, done without lock"},
    {"times-text", "times-text/times-text.sqlite3", E::Works, K::Sqlite, "", 12, 0, 0, false, nullptr,
     "TEXT and BLOB timestamps"},
    {"times-real", "times-real/times-real.sqlite3", E::Works, K::Sqlite, "", 12, 0, 0, false, nullptr,
     "REAL timestamps, ±1e308"},
    {"times-negative", "times-negative/times-negative.sqlite3", E::Works, K::Sqlite, "", 12, 0, 0, false, nullptr,
     "negative timestamps, done before in"},
    {"times-extreme", "times-extreme/times-extreme.sqlite3", E::Works, K::Sqlite, "", 16, 0, 0, false, nullptr,
     "timestamps near INT64_MIN/INT64_MAX whose differences overflow (found by lqfuzz_open)"},
    {"times-far-future", "times-far-future/times-far-future.sqlite3", E::Works, K::Sqlite, "", 12, 0, 0, false, nullptr,
     "timestamps centuries ahead"},
    {"ids-not-uuid", "ids-not-uuid/ids-not-uuid.sqlite3", E::Works, K::Sqlite, "", 11, 0, 0, false, nullptr,
     "empty, path, HTML, format-string, SQL, NULL, integer and BLOB message ids"},
    {"ids-duplicate", "ids-duplicate/ids-duplicate.sqlite3", E::Works, K::Sqlite, "", 10, 0, 0, false, nullptr,
     "one message id five times (no unique index)"},
    {"payload-20mb", "payload-20mb/payload-20mb.sqlite3", E::Works, K::Sqlite, "", 5, 0, 0, false, nullptr,
     "two 20 MiB payloads (made at test time, never committed)"},
    {"payload-blob", "payload-blob/payload-blob.sqlite3", E::Works, K::Sqlite, "", 5, 0, 0, false, nullptr,
     "BLOB payloads with NULs, an empty BLOB and a NULL payload"},
    {"payload-invalid-utf8", "payload-invalid-utf8/payload-invalid-utf8.sqlite3", E::Works, K::Sqlite, "", 8, 0, 0, false, nullptr,
     "invalid UTF-8, NUL, HTML and terminal escapes in payloads and keys"},
    {"claims-odd", "claims-odd/claims-odd.sqlite3", E::Works, K::Sqlite, "", 6, 0, 0, false, nullptr,
     "claim_id NULL, TEXT, negative, INT64_MAX, REAL, BLOB"},
    {"jobs-bad-values", "jobs-bad-values/jobs-bad-values.sqlite3", E::Works, K::Sqlite, "", 6, 0, 0, false, nullptr,
     "a jobs-lease table with nonsense in every column"},

    // ---- bad schema --------------------------------------------------------
    {"trigger-delete-on-update", "trigger-delete-on-update/trigger-delete-on-update.sqlite3", E::ReadOnly, K::Sqlite, "trigger `wipe`", 8, 0, 0, false, nullptr,
     "a trigger that deletes every row on UPDATE"},
    {"trigger-disguised-maxsize", "trigger-disguised-maxsize/trigger-disguised-maxsize.sqlite3", E::ReadOnly, K::Sqlite, "trigger `maxsize_control_Queue`", 8, 0, 0, false, nullptr,
     "the maxsize trigger's name and message around a DELETE of every row"},
    {"view", "view/view.sqlite3", E::ReadOnly, K::Sqlite, "view `everything`", 8, 0, 0, false, nullptr,
     "a view beside Queue"},
    {"extra-table", "extra-table/extra-table.sqlite3", E::ReadOnly, K::Sqlite, "unexpected table(s) users", 8, 0, 0, false, nullptr,
     "a users table beside Queue"},
    {"user-version-99", "user-version-99/user-version-99.sqlite3", E::ReadOnly, K::Sqlite, "user_version 99", 8, 0, 0, false, nullptr,
     "the eight columns with an unknown user_version"},
    {"many-queue-tables", "many-queue-tables/many-queue-tables.sqlite3", E::ReadOnly, K::Sqlite, "several queue tables", 0, 0, 0, false, nullptr,
     "200 queue-shaped tables"},
    {"missing-columns", "missing-columns/missing-columns.sqlite3", E::OpenError, K::Unsupported, "missing columns", -1, 3, 3, false, nullptr,
     "a Queue table with three of the columns"},
    {"pre06-message-column", "pre06-message-column/pre06-message-column.sqlite3", E::OpenError, K::Unsupported, "pre-0.6", -1, 3, 3, false, nullptr,
     "the pre-0.6 schema (column `message`)"},
    {"without-rowid", "without-rowid/without-rowid.sqlite3", E::OpenError, K::Unsupported, "WITHOUT ROWID", -1, 3, 3, false, nullptr,
     "a WITHOUT ROWID Queue table"},
    {"generated-column-overflow", "generated-column-overflow/generated-column-overflow.sqlite3", E::OpenError, K::Unsupported, "missing columns status", -1, 3, 3, false, nullptr,
     "status as a generated column that overflows when read"},
    {"unknown-collation", "unknown-collation/unknown-collation.sqlite3", E::ReadError, K::Sqlite, "no such collation sequence", -1, 0, 0, false, nullptr,
     "message_id declared with a collation that does not exist"},
    {"schema-syntax-error", "schema-syntax-error/schema-syntax-error.sqlite3", E::OpenError, K::Corrupt, "malformed", -1, 5, 5, false, nullptr,
     "schema text that does not parse"},
    {"empty-schema", "empty-schema/empty-schema.sqlite3", E::OpenError, K::NotAQueue, "empty database", -1, 3, 3, false, nullptr,
     "a valid SQLite file with no table"},

    // ---- bad surroundings --------------------------------------------------
    {"wal-orphan", "wal-orphan/wal-orphan.sqlite3", E::OpenError, K::Io, "no such file", -1, 5, 5, false, nullptr,
     "a -wal file without its main file (which must stay missing)"},
    {"wal-garbage", "wal-garbage/wal-garbage.sqlite3", E::Works, K::Sqlite, "", 20, 0, 0, false, nullptr,
     "a WAL-mode queue whose -wal is random bytes"},
    {"wal-foreign", "wal-foreign/wal-foreign.sqlite3", E::OpenError, K::Corrupt, "malformed", -1, 5, 5, false, nullptr,
     "a valid -wal that belongs to another database"},
    {"hot-journal", "hot-journal/hot-journal.sqlite3", E::OpenError, K::ReadOnly, "cannot be written", -1, 1, 1, false, nullptr,
     "a hot rollback journal left by a writer that died mid-transaction"},
    {"locked-exclusive", "locked-exclusive/locked-exclusive.sqlite3", E::OpenError, K::Busy, "locked by another process", -1, 4, 4, true, nullptr,
     "held under BEGIN EXCLUSIVE by another process (busy timeout 0.3 s)"},
    {"directory", "directory/directory.sqlite3", E::OpenError, K::Io, "is a directory", -1, 5, 5, false, nullptr,
     "a directory with a queue file's name"},
    {"symlink-loop", "symlink-loop/symlink-loop.sqlite3", E::OpenError, K::Io, "looping symbolic link", -1, 5, 5, false, nullptr,
     "two symbolic links pointing at each other"},
    {"symlink-dangling", "symlink-dangling/symlink-dangling.sqlite3", E::OpenError, K::Io, "broken or looping", -1, 5, 5, false, nullptr,
     "a symbolic link to nothing"},
    {"symlink-dev-zero", "symlink-dev-zero/symlink-dev-zero.sqlite3", E::OpenError, K::Io, "not a regular file", -1, 5, 5, false, nullptr,
     "a symbolic link to /dev/zero (endless)"},
    {"symlink-to-queue", "symlink-to-queue/symlink-to-queue.sqlite3", E::Works, K::Sqlite, "", 12, 0, 0, false, nullptr,
     "a symbolic link to a healthy queue"},
    {"fifo", "fifo/fifo.sqlite3", E::OpenError, K::Io, "not a regular file", -1, 5, 5, false, nullptr,
     "a named pipe (reading it would block forever)"},
    {"missing", "missing/missing.sqlite3", E::OpenError, K::Io, "no such file", -1, 5, 5, false, nullptr,
     "a path that does not exist (and must not be created)"},
    {"zero-bytes", "zero-bytes/zero-bytes.sqlite3", E::OpenError, K::NotAQueue, "empty database", -1, 3, 3, false, nullptr,
     "an empty file"},
    {"not-sqlite", "not-sqlite/not-sqlite.sqlite3", E::OpenError, K::Corrupt, "not a SQLite database", -1, 3, 3, false, nullptr,
     "a text file"},
};
// clang-format on

inline constexpr std::size_t kCaseCount = std::size(kCases);

} // namespace lqhostile
