// SPDX-License-Identifier: MIT
// The "jobs with leases" pattern (seed 000): one table `jobs`, a lease in
// locked_until, attempts counting claims. Its states are derived from the
// times (docs/FORMATS.md#the-state-model); finishing a job deletes it, so there is no history.
#include "jobslease.h"

namespace lq::core {

std::vector<State> JobsLeaseFormat::states() const {
    return {State::Ready, State::Scheduled, State::Leased, State::Expired};
}

std::string JobsLeaseFormat::fieldLabel(Field f) const {
    switch (f) {
    case Field::ScheduledAt:
        return "Run at";
    case Field::LeaseExpiry:
        return "Locked until";
    default:
        return defaultFieldLabel(f);
    }
}

std::string JobsLeaseFormat::fieldDescription(Field f) const {
    switch (f) {
    case Field::Attempts:
        return "attempts: how many times the job was claimed (also its claim token)";
    case Field::ScheduledAt:
        return "run_at: when the job is due";
    case Field::LeaseExpiry:
        return "locked_until: the end of the current or last lease";
    default:
        return defaultFieldDescription(f);
    }
}

std::vector<Action> JobsLeaseFormat::rowActions() const {
    return {Action::Release, Action::Reschedule, Action::Delete};
}

std::vector<QueueFormat::ActionRule> JobsLeaseFormat::actionRules(const FormatInfo&) const {
    return {
        {Action::Retry, "a lease queue retries by releasing: use release (run now)"},
        {Action::MarkFailed, "jobs-lease files have no FAILED state"},
        {Action::Release, ""},
        {Action::Reschedule, ""},
        {Action::Delete, ""},
        {Action::Prune, "jobs-lease files keep no finished history to prune"},
        {Action::RetryExpired,
         "a lapsed lease is claimable again by itself (EXPIRED); release it to run it now"},
        {Action::Enqueue,
         "enqueue writes litequeue messages; jobs-lease jobs are added by their app"},
        {Action::Vacuum, ""},
        {Action::Upgrade, "jobs-lease files have no newer format"},
    };
}

std::string JobsLeaseFormat::whyNoMetric(Filter::Metric m, const FormatInfo& info) const {
    (void)info;
    if (m == Filter::Metric::None)
        return {};
    return "jobs-lease files store no claim or finish times (finishing deletes the row), so "
           "latency metrics cannot be computed";
}

} // namespace lq::core
