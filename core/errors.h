// SPDX-License-Identifier: MIT
#pragma once

// Failures grouped by error (issue 39): what operators look for first. One
// rule for the GUI, lqctl and the remote protocol.

#include "actions.h"
#include "clock.h"
#include "formats/queueformat.h"
#include "message.h"
#include "query.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace lq::core {

class Queue;

/// The error a failed job's stored text names: the exception class where
/// the text stores one (Solid Queue's JSON `exception_class`; a first line
/// that starts with a class name and a colon, as Laravel's `exception` and
/// most backtraces do; the last entry of an Oban or River errors array),
/// else the text's first line (at most 200 bytes). "" for no text.
std::string errorClassOf(std::string_view errorText);

struct ErrorGroup {
    std::string error; ///< errorClassOf() of each job's error ("" : no error stored)
    std::int64_t count = 0;
    std::optional<TimeNs> firstFailedAt; ///< earliest failure time stored
    std::optional<TimeNs> lastFailedAt;  ///< latest
    std::vector<std::string> queues;     ///< named queues, sorted
    std::string sample;                  ///< one job's whole error text
    std::vector<std::string> messageIds; ///< every job in the group, in arrival order
    /// The claim token each job held when it was grouped (messageIds' order):
    /// an action on the group changes only the jobs still as they were.
    std::vector<std::int64_t> tokens;

    /// The group's jobs as the targets of one action (Operator::planTargets).
    std::vector<Target> targets() const;
};

/// The failed jobs (FAILED and the format's own failure states) of a file of
/// `info`'s format, or of its named queue `queue`.
Filter failuresFilter(const FormatInfo& info, const std::string& queue = {});

/// Builds the groups from failed jobs handed to it one by one.
class ErrorGrouper {
public:
    void add(const Message& m);
    /// The groups: the largest first, then by name.
    std::vector<ErrorGroup> take();

private:
    std::map<std::string, ErrorGroup> m_groups;
    std::map<std::string, std::set<std::string>> m_queues;
};

/// The failed jobs of `q` (a local Queue or a queue served over ssh), or of
/// its named queue `queue`, grouped by errorClassOf(); read in batches.
template <class Q> std::vector<ErrorGroup> groupFailures(Q& q, const std::string& queue = {}) {
    const std::vector<std::int64_t> rowids =
        q.orderedRowids(failuresFilter(q.info(), queue), Sort{});
    ErrorGrouper grouper;
    forEachFetched(
        rowids, [&](const std::vector<std::int64_t>& part) { return q.fetchRowids(part); },
        [&](const Message& m) { grouper.add(m); });
    return grouper.take();
}

/// The group of error class `error` ("" : the jobs with no error stored),
/// or nullopt when no failed job has it.
std::optional<ErrorGroup> findGroup(std::vector<ErrorGroup> groups, const std::string& error);

/// What an action on error group `error` (of named queue `queue`, "" : the
/// whole file) records as its filter: {"error": CLASS[, "queue": Q]}.
std::string errorGroupFilterJson(const std::string& error, const std::string& queue = {});

/// The plan of action `a` on every job of `group` as it was grouped (its
/// claim tokens: a job that changed since is skipped), recorded as made for
/// that group (errorGroupFilterJson). `op`: anything with planTargets(),
/// core::Operator, remote::RemoteOperator or a front end's backend. One
/// rule for lqctl's `--error CLASS` and lqadmin's Failures view.
template <class Op>
auto planErrorGroup(Op& op, Action a, const ErrorGroup& group, const std::string& queue = {}) {
    auto plan = op.planTargets(a, group.targets());
    plan.filterJson = errorGroupFilterJson(group.error, queue);
    return plan;
}

} // namespace lq::core
