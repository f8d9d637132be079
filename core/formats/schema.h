// SPDX-License-Identifier: MIT
#pragma once

// The schema of a file as recognition sees it: tables and their column sets
// (never DDL text), plus the other schema objects. Read once by
// detectFormat(); every format's recogniser looks at the same facts.

#include "../format.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace lq::core {

class Connection;

struct SchemaObject {
    std::string type, name, table, sql;
};

struct SchemaFacts {
    Connection* conn = nullptr; ///< for a recogniser that must look at a value
    std::string path;
    std::vector<SchemaObject> objects;
    std::vector<std::string> tables; ///< user tables (no sqlite_*)
    std::map<std::string, std::set<std::string>> columns;
    std::int64_t userVersion = 0;
    std::string journalMode;

    bool hasTable(const std::string& t) const { return columns.count(t) > 0; }
    /// Table `t` exists and has every column of `want`.
    bool hasColumns(const std::string& t, const std::set<std::string>& want) const;
};

SchemaFacts readSchema(Connection& c);

std::string joinNames(const std::vector<std::string>& names);

/// Where every recogniser starts: `format`'s info for a queue whose main
/// table is `table` (with its columns as the file has them), kept in
/// `queueTables` (empty: `table` alone), with the file's user_version and
/// journal mode.
FormatInfo recognisedInfo(const SchemaFacts& s, const QueueFormat* format, const std::string& table,
                          std::vector<std::string> queueTables = {});

/// Marks `info` read-only for triggers and views the format does not expect
/// (`expected(trigger)` says which are its own) on `tables`, or anywhere
/// when `tables` is empty.
template <class Expected>
void refuseUnexpectedObjects(const SchemaFacts& s, FormatInfo& info,
                             const std::vector<std::string>& tables, Expected expected) {
    std::vector<std::string> unexpected;
    for (const auto& o : s.objects) {
        bool onOurs = tables.empty();
        for (const auto& t : tables)
            onOurs = onOurs || o.table == t;
        if (o.type == "view" && tables.empty())
            unexpected.push_back("view `" + o.name + "`");
        else if (o.type == "trigger" && onOurs && !expected(o))
            unexpected.push_back("trigger `" + o.name + "`");
    }
    if (unexpected.empty())
        return;
    const std::string reason = "unexpected " + joinNames(unexpected) +
                               " in the file: writes are disabled so it cannot run";
    info.readOnlyReason =
        info.readOnlyReason.empty() ? reason : info.readOnlyReason + "; " + reason;
}

} // namespace lq::core
