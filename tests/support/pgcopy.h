// SPDX-License-Identifier: MIT
#pragma once

// SQLite fixtures copied into a private PostgreSQL server (issue 41): each
// format's upstream DDL (tests/data/pg/) loaded into a schema of its own and
// the rows of its SQLite fixture (tests/data/formats/) copied into it, the
// columns both have. JSON arrays become PostgreSQL arrays, riversqlite's
// JSONB blobs JSON text (lqcore's decoder, core/jsonb.h). Header-only: the
// suites that include it link lqcore and SQLite.

#include "core/jsonb.h"
#include "core/pg/connection.h"
#include "support/fixtures.h"
#include "support/pgserver.h"

#include <QFile>
#include <QTemporaryDir>

#include <sqlite3.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace lq::test {

/// A stored time as PostgreSQL parses it (River's Go spelling
/// "... +0000 UTC" drops the zone name its offset repeats).
inline std::string pgTime(std::string s) {
    if (s.size() > 10 && s.compare(s.size() - 10, 10, " +0000 UTC") == 0)
        s.resize(s.size() - 4);
    return s;
}

inline std::string hex(const void* data, int n) {
    static const char* digits = "0123456789abcdef";
    std::string out = "\\x";
    const auto* p = static_cast<const unsigned char*>(data);
    for (int i = 0; i < n; ++i) {
        out += digits[p[i] >> 4];
        out += digits[p[i] & 15];
    }
    return out;
}

/// Copies every row of `table` from the SQLite file `db` into `schema`.`table`
/// of the server, the columns both have; JSON arrays become PostgreSQL
/// arrays, riversqlite's JSONB blobs JSON text (core/jsonb.h).
inline int copyTable(sqlite3* db, lq::core::pg::Connection& pgc, const std::string& schema,
                     const std::string& table) {
    const lq::core::pg::Result cols =
        pgc.exec("SELECT column_name, udt_name FROM information_schema.columns "
                 "WHERE table_schema = $1 AND table_name = $2",
                 {schema, table});
    std::map<std::string, std::string> pgType;
    for (int i = 0; i < cols.rows(); ++i)
        pgType[cols.text(i, 0)] = cols.text(i, 1);
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, ("SELECT * FROM \"" + table + "\"").c_str(), -1, &st, nullptr) !=
        SQLITE_OK)
        throw std::runtime_error("no table " + table + " in the fixture");
    std::vector<int> use;
    std::string names, values;
    for (int i = 0; i < sqlite3_column_count(st); ++i) {
        const std::string name = sqlite3_column_name(st, i);
        const auto it = pgType.find(name);
        if (it == pgType.end())
            continue;
        use.push_back(i);
        const std::string p = "$" + std::to_string(use.size());
        names += (names.empty() ? "" : ", ") + lq::core::pg::quoteIdent(name);
        std::string v = p;
        if (it->second == "_jsonb")
            v = "CASE WHEN " + p +
                "::jsonb IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_array_elements(" + p +
                "::jsonb)) END";
        else if (it->second == "_text" || it->second == "_varchar")
            v = "CASE WHEN " + p + "::jsonb IS NULL THEN NULL ELSE ARRAY(SELECT " +
                "jsonb_array_elements_text(" + p + "::jsonb)) END";
        else if (it->second == "bytea")
            v = p + "::bytea";
        values += (values.empty() ? "" : ", ") + v;
    }
    const std::string insert = "INSERT INTO " + lq::core::pg::quoteIdent(schema) + "." +
                               lq::core::pg::quoteIdent(table) + " (" + names + ") VALUES (" +
                               values + ")";
    int rows = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        std::vector<lq::core::pg::Param> params;
        for (const int i : use) {
            const std::string type = pgType[sqlite3_column_name(st, i)];
            switch (sqlite3_column_type(st, i)) {
            case SQLITE_NULL:
                params.emplace_back();
                break;
            case SQLITE_BLOB: {
                const void* b = sqlite3_column_blob(st, i);
                const int n = sqlite3_column_bytes(st, i);
                if (type == "bytea")
                    params.emplace_back(hex(b, n));
                else // riversqlite's JSONB
                    params.emplace_back(lq::core::jsonb::toJson(std::string_view(
                        static_cast<const char*>(b), static_cast<std::size_t>(n))));
                break;
            }
            default: {
                // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast)
                const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st, i));
                std::string s(t, static_cast<std::size_t>(sqlite3_column_bytes(st, i)));
                params.emplace_back(type.rfind("timestamp", 0) == 0 ? pgTime(s) : s);
            }
            }
        }
        pgc.exec(insert, params);
        ++rows;
    }
    sqlite3_finalize(st);
    return rows;
}

struct FormatCase {
    const char* schema;
    const char* ddl;     ///< tests/data/pg/
    const char* fixture; ///< tests/data/formats/
    const char* library;
    std::vector<std::string> tables;
};

inline const std::vector<FormatCase>& pgFormatCases() {
    static const std::vector<FormatCase> cases = {
        {"sq",
         "solid-queue.sql",
         "solid-queue.sqlite3",
         "solid-queue",
         {"solid_queue_jobs", "solid_queue_ready_executions", "solid_queue_claimed_executions",
          "solid_queue_failed_executions", "solid_queue_scheduled_executions",
          "solid_queue_blocked_executions", "solid_queue_processes", "solid_queue_pauses",
          "solid_queue_semaphores", "solid_queue_recurring_tasks",
          "solid_queue_recurring_executions"}},
        {"oban", "oban.sql", "oban-lite.sqlite3", "oban", {"oban_jobs"}},
        {"river", "river.sql", "river-v7.sqlite3", "river", {"river_job", "river_queue"}},
    };
    return cases;
}

/// Loads `fc`'s DDL into schema fc.schema of `pg` and copies its
/// fixture's rows (via a copy in `tmp`); "" when it worked, else why not.
inline QString loadPgFormat(PgServer& pg, const FormatCase& fc, const QTemporaryDir& tmp) {
    QFile ddl(dataDir() + QStringLiteral("/pg/") + QLatin1String(fc.ddl));
    if (!ddl.open(QIODevice::ReadOnly))
        return QStringLiteral("cannot read ") + ddl.fileName();
    const QString err = pg.execScript(QString::fromUtf8(ddl.readAll()), QLatin1String(fc.schema));
    if (!err.isEmpty())
        return err;
    try {
        auto admin =
            lq::core::pg::Connection::open(pg.url().toStdString(), {false, 60000, 5000, 60000, 10});
        const QString copy =
            copyFixture(tmp, QStringLiteral("formats/") + QLatin1String(fc.fixture));
        sqlite3* db = nullptr;
        if (sqlite3_open_v2(QFile::encodeName(copy).constData(), &db, SQLITE_OPEN_READONLY,
                            nullptr) != SQLITE_OK) {
            sqlite3_close(db);
            return QStringLiteral("cannot open ") + copy;
        }
        try {
            for (const auto& t : fc.tables)
                copyTable(db, *admin, fc.schema, t);
        } catch (...) {
            sqlite3_close(db);
            throw;
        }
        sqlite3_close(db);
        // The rows came with their ids: each id sequence goes past them, as
        // the library's own inserts would have left it.
        admin->exec("DO $$ DECLARE r record; BEGIN FOR r IN SELECT n.nspname AS sch, s.relname "
                    "AS seq, t.relname AS tab, a.attname AS col FROM pg_class s JOIN "
                    "pg_namespace n ON n.oid = s.relnamespace JOIN pg_depend d ON d.objid = "
                    "s.oid AND d.refobjsubid > 0 JOIN pg_class t ON t.oid = d.refobjid JOIN "
                    "pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid WHERE "
                    "s.relkind = 'S' AND n.nspname = '" +
                    std::string(fc.schema) +
                    "' LOOP EXECUTE format('SELECT setval(%L, coalesce((SELECT max(%I) FROM "
                    "%I.%I), 0) + 1, false)', quote_ident(r.sch) || '.' || quote_ident(r.seq), "
                    "r.col, r.sch, r.tab); END LOOP; END $$");
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace lq::test
