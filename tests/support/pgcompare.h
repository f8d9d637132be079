// SPDX-License-Identifier: MIT
#pragma once

// One comparable line per job (issue 41): the fields both engines read, so
// that a suite can compare a job on PostgreSQL with the same job in its
// SQLite fixture. JSON payloads are compared with their keys sorted (jsonb
// keeps its own key order). Header-only, lqcore types only.

#include "core/json.h"
#include "core/message.h"

#include <algorithm>
#include <exception>
#include <string>

namespace lq::test {

/// `j` with every object's keys sorted: jsonb keeps its own key order.
inline lq::core::Json canonical(const lq::core::Json& j) {
    if (j.isArray()) {
        lq::core::Json a = lq::core::Json::array();
        for (const lq::core::Json& x : j.toArray())
            a.push(canonical(x));
        return a;
    }
    if (!j.isObject())
        return j;
    lq::core::Json::Object o = j.toObject();
    std::sort(o.begin(), o.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    lq::core::Json out = lq::core::Json::object();
    for (const auto& [k, v] : o)
        out.set(k, canonical(v));
    return out;
}

inline std::string sameJson(const std::string& text) {
    try {
        return canonical(lq::core::Json::parse(text)).dump();
    } catch (const std::exception&) {
        return text;
    }
}

inline std::string opt(const std::optional<lq::core::TimeNs>& t) {
    return t ? std::to_string(*t) : std::string("-");
}

/// The fields of a job both engines read, as one comparable line.
inline std::string shown(const lq::core::Message& m) {
    return m.messageId + " | " + lq::core::stateName(m.state) + " " + m.extraState + " " +
           m.statusText + " | " + m.queueName.value_or("-") + " " + m.jobName.value_or("-") +
           " | p" + (m.priority ? std::to_string(*m.priority) : "-") + " a" +
           std::to_string(m.attempts) + "/" +
           (m.maxAttempts ? std::to_string(*m.maxAttempts) : "-") + " | in " + opt(m.inTime) +
           " due " + opt(m.scheduledAt) + " wait " + opt(m.waitFrom) + " lock " + opt(m.lockTime) +
           " done " + opt(m.doneTime) + " lease " + opt(m.leaseExpiry) + " | " +
           m.lastError.value_or("-") + " | " + sameJson(m.data);
}

} // namespace lq::test
