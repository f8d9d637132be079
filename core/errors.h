// SPDX-License-Identifier: MIT
#pragma once

// Failures grouped by error (issue 39): what operators look for first. One
// rule for the GUI, lqctl and the remote protocol.

#include "clock.h"
#include "message.h"

#include <cstdint>
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
};

/// The failed jobs of `q` (FAILED and the format's own failure states), or
/// of its named queue `queue`, grouped by errorClassOf(); the largest group
/// first, then by name.
std::vector<ErrorGroup> groupFailures(Queue& q, const std::string& queue = {});

} // namespace lq::core
