// SPDX-License-Identifier: MIT
#include "format.h"

#include "error.h"
#include "formats/queueformat.h"
#include "formats/schema.h"
#include "sqlite.h"

#include <optional>

namespace lq::core {

// formatId() and formatFromId(): core/formats/registry.cpp, the one table
// of formats.

std::int64_t FormatSettings::value(std::string_view key, const std::string& queue,
                                   bool inherit) const {
    const std::string k(key);
    if (!queue.empty()) {
        if (const auto it = m_values.find({k, queue}); it != m_values.end())
            return it->second;
        if (!inherit)
            return 0;
    }
    const auto it = m_values.find({k, std::string()});
    return it == m_values.end() ? 0 : it->second;
}

bool FormatSettings::set(std::string_view key, std::int64_t v, const std::string& queue) {
    if (v < 0)
        return false;
    // The keys are the formats' own (QueueFormat::settings()): one that no
    // format declares, or per queue where its library takes one value, is
    // refused rather than kept unread.
    std::optional<bool> perQueue;
    for (const QueueFormat* f : QueueFormat::recognisers())
        for (const QueueFormat::Setting& s : f->settings())
            if (s.key == key)
                perQueue = perQueue.value_or(false) || s.perQueue;
    if (!perQueue || (!queue.empty() && !*perQueue))
        return false;
    std::pair<std::string, std::string> k{std::string(key), queue};
    if (v == 0)
        m_values.erase(k);
    else
        m_values[std::move(k)] = v;
    return true;
}

std::map<std::string, std::int64_t> FormatSettings::byQueue(std::string_view key) const {
    std::map<std::string, std::int64_t> out;
    for (const auto& [k, v] : m_values)
        if (k.first == key && !k.second.empty())
            out.emplace(k.second, v);
    return out;
}

std::vector<FormatSettings::Entry> FormatSettings::entries() const {
    std::vector<Entry> out;
    out.reserve(m_values.size());
    for (const auto& [k, v] : m_values)
        out.push_back({k.first, k.second, v});
    return out;
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
