// SPDX-License-Identifier: MIT
// The optional message fields a format declares (QueueFormat::fields()):
// their keys, neutral labels and what each holds.
#include "queueformat.h"

#include <algorithm>

namespace lq::core {

bool QueueFormat::hasField(Field f) const {
    const auto all = fields();
    return std::find(all.begin(), all.end(), f) != all.end();
}

const char* QueueFormat::fieldKey(Field f) noexcept {
    switch (f) {
    case Field::Queue:
        return "queue";
    case Field::Job:
        return "job";
    case Field::Priority:
        return "priority";
    case Field::Attempts:
        return "attempts";
    case Field::Error:
        return "error";
    case Field::ScheduledAt:
        return "scheduled";
    case Field::LeaseExpiry:
        return "lease";
    case Field::Token:
        return "token";
    case Field::StatusText:
        return "stored_status";
    }
    return "";
}

std::string QueueFormat::defaultFieldLabel(Field f) {
    switch (f) {
    case Field::Queue:
        return "Queue";
    case Field::Job:
        return "Job";
    case Field::Priority:
        return "Priority";
    case Field::Attempts:
        return "Attempts";
    case Field::Error:
        return "Error";
    case Field::ScheduledAt:
        return "Scheduled at";
    case Field::LeaseExpiry:
        return "Lease expiry";
    case Field::Token:
        return "Claim";
    case Field::StatusText:
        return "Stored state";
    }
    return {};
}

std::string QueueFormat::defaultFieldDescription(Field f) {
    switch (f) {
    case Field::Queue:
        return "The named queue inside the file";
    case Field::Job:
        return "The job's class or name";
    case Field::Priority:
        return "The stored priority";
    case Field::Attempts:
        return "Attempts made / attempts allowed";
    case Field::Error:
        return "The last error of the job";
    case Field::ScheduledAt:
        return "When the job is due";
    case Field::LeaseExpiry:
        return "When the current claim lapses";
    case Field::Token:
        return "The claim token as stored (what actions compare against)";
    case Field::StatusText:
        return "The state as the library stores it";
    }
    return {};
}

bool QueueFormat::messageHas(const Message& m, Field f) noexcept {
    switch (f) {
    case Field::Queue:
        return m.queueName.has_value();
    case Field::Job:
        return m.jobName.has_value();
    case Field::Priority:
        return m.priority.has_value();
    case Field::Attempts:
        return m.attempts != 0 || m.maxAttempts.has_value();
    case Field::Error:
        return m.lastError.has_value();
    case Field::ScheduledAt:
        return m.scheduledAt.has_value();
    case Field::LeaseExpiry:
        return m.leaseExpiry.has_value();
    case Field::Token:
        return m.tokenText.has_value();
    case Field::StatusText:
        return !m.statusText.empty();
    }
    return false;
}

} // namespace lq::core
