// SPDX-License-Identifier: MIT
#include "errors.h"

#include "formats/queueformat.h"
#include "json.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace lq::core {

namespace {

constexpr std::size_t kMaxKey = 200;

std::string firstLine(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    s = s.substr(0, s.find('\n'));
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return std::string(s.substr(0, kMaxKey));
}

/// "Foo::Bar: message" / "App\\Jobs\\X: message" / "x.y.Error: message":
/// the class before the colon, when it looks like one.
std::string classPrefix(const std::string& line) {
    std::size_t n = 0;
    while (n < line.size()) {
        const auto c = static_cast<unsigned char>(line[n]);
        if (std::isalnum(c) || c == '_' || c == ':' || c == '\\' || c == '.')
            ++n;
        else
            break;
    }
    // The class ends at ": " (a "::" inside it is a namespace separator).
    std::size_t end = line.find(": ");
    if (end == std::string::npos || end == 0 || end > n ||
        !std::isalpha(static_cast<unsigned char>(line[0])))
        return {};
    return line.substr(0, end);
}

std::string fromText(std::string_view text) {
    std::string line = firstLine(text);
    // An Oban or River errors entry as the job-table formats render it
    // (core/formats/jobtable.cpp): "attempt N at TIME: ERROR".
    if (line.rfind("attempt ", 0) == 0)
        if (const auto at = line.find(" at "), colon = line.find(": ");
            at != std::string::npos && colon != std::string::npos && at < colon)
            line = firstLine(std::string_view(line).substr(colon + 2));
    // Elixir's exception banner: "** (KeyError) key :id not found".
    if (line.rfind("** (", 0) == 0)
        if (const auto close = line.find(')'); close != std::string::npos && close > 4)
            return line.substr(4, close - 4);
    const std::string cls = classPrefix(line);
    return cls.empty() ? line : cls;
}

} // namespace

std::string errorClassOf(std::string_view text) {
    std::string_view t = text;
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front())))
        t.remove_prefix(1);
    if (t.empty())
        return {};
    if (t.front() == '{' || t.front() == '[') {
        try {
            const Json j = Json::parse(t);
            if (j.isObject()) {
                if (const Json& c = j["exception_class"]; c.isString() && !c.toString().empty())
                    return c.toString().substr(0, kMaxKey);
                for (const char* k : {"error", "message", "kind"})
                    if (const Json& m = j[k]; m.isString())
                        return fromText(m.toString());
            } else if (j.isArray() && !j.toArray().empty()) {
                // Oban's and River's errors: one entry per attempt, the last
                // one is the failure that counts.
                const Json& last = j.toArray().back();
                if (last.isObject())
                    for (const char* k : {"error", "message", "kind"})
                        if (const Json& m = last[k]; m.isString())
                            return fromText(m.toString());
                if (last.isString())
                    return fromText(last.toString());
            }
        } catch (const std::exception&) {
            // Not JSON: read as text.
        }
    }
    return fromText(t);
}

std::vector<Target> ErrorGroup::targets() const {
    std::vector<Target> out;
    out.reserve(messageIds.size());
    for (std::size_t i = 0; i < messageIds.size(); ++i)
        out.push_back({messageIds[i], i < tokens.size() ? tokens[i] : 0});
    return out;
}

Filter failuresFilter(const FormatInfo& info, const std::string& queue) {
    Filter f;
    f.states = {State::Failed};
    f.extraStates = QueueFormat::of(info).failureStates();
    f.queue = queue;
    return f;
}

void ErrorGrouper::add(const Message& m) {
    const std::string key = m.lastError ? errorClassOf(*m.lastError) : std::string();
    ErrorGroup& g = m_groups[key];
    if (g.count == 0) {
        g.error = key;
        g.sample = m.lastError.value_or(std::string());
    }
    ++g.count;
    if (m.doneTime) {
        if (!g.firstFailedAt || *m.doneTime < *g.firstFailedAt)
            g.firstFailedAt = m.doneTime;
        if (!g.lastFailedAt || *m.doneTime > *g.lastFailedAt)
            g.lastFailedAt = m.doneTime;
    }
    if (m.queueName)
        m_queues[key].insert(*m.queueName);
    g.messageIds.push_back(m.messageId);
    g.tokens.push_back(m.token);
}

std::vector<ErrorGroup> ErrorGrouper::take() {
    std::vector<ErrorGroup> out;
    for (auto& [key, g] : m_groups) {
        g.queues.assign(m_queues[key].begin(), m_queues[key].end());
        out.push_back(std::move(g));
    }
    m_groups.clear();
    m_queues.clear();
    std::stable_sort(out.begin(), out.end(),
                     [](const ErrorGroup& a, const ErrorGroup& b) { return a.count > b.count; });
    return out;
}

std::optional<ErrorGroup> findGroup(std::vector<ErrorGroup> groups, const std::string& error) {
    for (ErrorGroup& g : groups)
        if (g.error == error)
            return std::move(g);
    return std::nullopt;
}

std::string errorGroupFilterJson(const std::string& error, const std::string& queue) {
    Json why = Json::object();
    why.set("error", error);
    if (!queue.empty())
        why.set("queue", queue);
    return why.dump();
}

} // namespace lq::core
