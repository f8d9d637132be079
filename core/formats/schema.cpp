// SPDX-License-Identifier: MIT
#include "schema.h"

#include "../sqlite.h"

#include <algorithm>

namespace lq::core {

bool SchemaFacts::hasColumns(const std::string& t, const std::set<std::string>& want) const {
    const auto it = columns.find(t);
    return it != columns.end() &&
           std::includes(it->second.begin(), it->second.end(), want.begin(), want.end());
}

SchemaFacts readSchema(Connection& c) {
    SchemaFacts s;
    s.conn = &c;
    s.path = c.path();
    {
        auto st = c.prepare("SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master");
        while (st.step())
            s.objects.push_back({st.text(0), st.text(1), st.text(2), st.text(3)});
    }
    for (const auto& o : s.objects) {
        if (o.type != "table" || o.name.rfind("sqlite_", 0) == 0)
            continue;
        s.tables.push_back(o.name);
        auto& cols = s.columns[o.name];
        auto st = c.prepare("PRAGMA table_info(" + quoteIdent(o.name) + ")");
        while (st.step())
            cols.insert(st.text(1));
    }
    s.userVersion = c.pragmaInt("user_version");
    s.journalMode = c.pragmaText("journal_mode");
    return s;
}

std::string joinNames(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) {
        if (!out.empty())
            out += ", ";
        out += n;
    }
    return out;
}

FormatInfo recognisedInfo(const SchemaFacts& s, const QueueFormat* format, const std::string& table,
                          std::vector<std::string> queueTables) {
    FormatInfo info;
    info.format = format;
    info.table = table;
    info.queueTables =
        queueTables.empty() ? std::vector<std::string>{table} : std::move(queueTables);
    info.userVersion = s.userVersion;
    info.journalMode = s.journalMode;
    if (const auto it = s.columns.find(table); it != s.columns.end())
        info.columns.assign(it->second.begin(), it->second.end());
    return info;
}

} // namespace lq::core
