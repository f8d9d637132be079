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

std::string JobsLeaseFormat::whyNot(Action a, const FormatInfo& info) const {
    (void)info;
    switch (a) {
    case Action::Release:
    case Action::Reschedule:
    case Action::Delete:
    case Action::Vacuum:
        return {};
    case Action::Retry:
        return "a lease queue retries by releasing: use release (run now)";
    case Action::MarkFailed:
        return "jobs-lease files have no FAILED state";
    case Action::RetryExpired:
        return "a lapsed lease is claimable again by itself (EXPIRED); release it to run it now";
    case Action::Prune:
        return "jobs-lease files keep no finished history to prune";
    case Action::Enqueue:
        return "enqueue writes litequeue messages; jobs-lease jobs are added by their app";
    case Action::Upgrade:
        return "jobs-lease files have no newer format";
    case Action::Pause:
    case Action::Resume:
        return whyNoPause(info);
    case Action::RunRecurring:
        return whyNoRunRecurring(info);
    }
    return "unknown action";
}

std::string JobsLeaseFormat::whyNoMetric(Filter::Metric m, const FormatInfo& info) const {
    (void)info;
    if (m == Filter::Metric::None)
        return {};
    return "jobs-lease files store no claim or finish times (finishing deletes the row), so "
           "latency metrics cannot be computed";
}

} // namespace lq::core
