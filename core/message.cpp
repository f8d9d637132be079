// SPDX-License-Identifier: MIT
#include "message.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace lq::core {

const char* stateName(State s) noexcept {
    switch (s) {
    case State::Ready:
        return "READY";
    case State::Locked:
        return "LOCKED";
    case State::Done:
        return "DONE";
    case State::Failed:
        return "FAILED";
    case State::Unknown:
        return "UNKNOWN";
    case State::Scheduled:
        return "SCHEDULED";
    case State::Leased:
        return "LEASED";
    case State::Expired:
        return "EXPIRED";
    }
    return "UNKNOWN";
}

std::optional<State> parseState(std::string_view name) {
    std::string up(name);
    std::transform(up.begin(), up.end(), up.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    for (int i = 0; i <= static_cast<int>(State::Expired); ++i) {
        const auto s = static_cast<State>(i);
        if (up == stateName(s))
            return s;
    }
    return std::nullopt;
}

std::optional<TimeNs> Message::waitNs() const {
    if (waitFrom)
        return lockTime && *lockTime >= *waitFrom ? std::optional(diffNs(*lockTime, *waitFrom))
                                                  : std::nullopt;
    if (!inTime || !lockTime)
        return std::nullopt;
    return diffNs(*lockTime, *inTime);
}

std::optional<TimeNs> Message::processingNs() const {
    if (state != State::Done || !lockTime || !doneTime)
        return std::nullopt;
    return diffNs(*doneTime, *lockTime);
}

std::optional<TimeNs> Message::totalNs() const {
    if (state != State::Done || !inTime || !doneTime)
        return std::nullopt;
    return diffNs(*doneTime, *inTime);
}

std::optional<TimeNs> Message::ageNs(TimeNs now) const {
    if (!inTime) {
        // A format that stores no enqueue time (jobs-lease): how long the
        // job has been due, nothing before it is due.
        if (scheduledAt && *scheduledAt <= now)
            return diffNs(now, *scheduledAt);
        return std::nullopt;
    }
    return diffNs(now, *inTime);
}

std::optional<TimeNs> Message::lockAgeNs(TimeNs now) const {
    if (state != State::Locked || !lockTime)
        return std::nullopt;
    return diffNs(now, *lockTime);
}

bool Message::isStuck(TimeNs now, TimeNs stuckAfterNs) const {
    const auto a = lockAgeNs(now);
    return a && *a > stuckAfterNs;
}

} // namespace lq::core
