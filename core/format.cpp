// SPDX-License-Identifier: MIT
#include "format.h"

#include "error.h"
#include "formats/queueformat.h"
#include "formats/schema.h"
#include "sqlite.h"

namespace lq::core {

// formatId() and formatFromId(): core/formats/registry.cpp, the one table
// of formats.

std::int64_t FormatSettings::value(std::string_view key, const std::string& queue,
                                   bool inherit) const {
    if (key == kMaxReceive) {
        const auto it = queue.empty() ? maxReceiveByQueue.end() : maxReceiveByQueue.find(queue);
        if (it != maxReceiveByQueue.end())
            return it->second;
        return queue.empty() || inherit ? maxReceive : 0;
    }
    if (!queue.empty() && !inherit)
        return 0;
    if (key == kReleaseAfter)
        return releaseAfter.count();
    if (key == kRetryAfter)
        return retryAfter.count();
    if (key == kMaxRunTime)
        return maxRunTime.count();
    return 0;
}

bool FormatSettings::set(std::string_view key, std::int64_t v, const std::string& queue) {
    if (v < 0)
        return false;
    if (key == kMaxReceive) {
        if (queue.empty())
            maxReceive = v;
        else if (v == 0)
            maxReceiveByQueue.erase(queue);
        else
            maxReceiveByQueue[queue] = v;
        return true;
    }
    if (!queue.empty())
        return false;
    if (key == kReleaseAfter)
        releaseAfter = std::chrono::seconds(v);
    else if (key == kRetryAfter)
        retryAfter = std::chrono::seconds(v);
    else if (key == kMaxRunTime)
        maxRunTime = std::chrono::seconds(v);
    else
        return false;
    return true;
}

std::vector<FormatSettings::Entry> FormatSettings::entries() const {
    std::vector<Entry> out;
    if (maxReceive > 0)
        out.push_back({std::string(kMaxReceive), {}, maxReceive});
    for (const auto& [queue, v] : maxReceiveByQueue)
        if (v > 0)
            out.push_back({std::string(kMaxReceive), queue, v});
    if (releaseAfter.count() > 0)
        out.push_back({std::string(kReleaseAfter), {}, releaseAfter.count()});
    if (retryAfter.count() > 0)
        out.push_back({std::string(kRetryAfter), {}, retryAfter.count()});
    if (maxRunTime.count() > 0)
        out.push_back({std::string(kMaxRunTime), {}, maxRunTime.count()});
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
