// SPDX-License-Identifier: MIT
#include "format.h"

#include "error.h"
#include "formats/queueformat.h"
#include "formats/schema.h"
#include "sqlite.h"

namespace lq::core {

const char* formatId(Format f) noexcept {
    switch (f) {
    case Format::Litequeue014:
        return "litequeue-0.14";
    case Format::Litequeue013:
        return "litequeue-0.13";
    case Format::LitequeueLegacy:
        return "litequeue-legacy";
    case Format::LitequeueMulti:
        return "litequeue-multi";
    case Format::LitequeueOther:
        return "litequeue-unknown";
    case Format::JobsLease:
        return "jobs-lease";
    case Format::Liteque:
        return "liteque";
    case Format::SolidQueue:
        return "solid-queue";
    case Format::Plainjob:
        return "plainjob";
    case Format::Goqite:
        return "goqite";
    case Format::Backlite:
        return "backlite";
    case Format::ObanLite:
        return "oban-lite";
    case Format::RiverSqlite:
        return "river-sqlite";
    case Format::LaravelDatabase:
        return "laravel-database";
    }
    return "unknown";
}

FormatInfo detectFormat(Connection& c, const std::string& preferTable) {
    const std::string& path = c.path();
    const SchemaFacts schema = readSchema(c);
    if (schema.tables.empty())
        throw NotAQueue(path, "empty database: no queue table (nothing to show)");

    // Every format looks at the same table and column sets; exactly one
    // must claim the file.
    std::vector<std::pair<const QueueFormat*, FormatInfo>> matches;
    for (const QueueFormat* f : QueueFormat::recognisers())
        if (auto info = f->recognise(schema, preferTable))
            matches.emplace_back(f, std::move(*info));
    if (matches.empty()) {
        for (const QueueFormat* f : QueueFormat::recognisers())
            f->explainNoMatch(schema);
        throw NotAQueue(path, "not a queue file: found tables " + joinNames(schema.tables));
    }
    if (matches.size() > 1) {
        std::vector<std::string> names;
        names.reserve(matches.size());
        for (const auto& m : matches)
            names.emplace_back(formatId(m.second.format));
        throw Unsupported(path, "matches more than one queue format (" + joinNames(names) +
                                    "): refusing to guess which one to show");
    }
    FormatInfo info = std::move(matches.front().second);
    // WITHOUT ROWID tables cannot be paged by rowid.
    {
        auto st = c.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ? AND "
                            "sql LIKE '%WITHOUT ROWID%'");
        st.bind(1, std::string_view(info.table));
        if (st.step())
            throw Unsupported(path, "table " + info.table + " is WITHOUT ROWID: unsupported");
    }
    return info;
}

} // namespace lq::core
