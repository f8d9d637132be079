// SPDX-License-Identifier: MIT
// Graphile Worker's state model (core/formats/graphileworker.h). Its rules,
// from graphile/worker's get_job (sql/000016.sql@55603eb0d71c and later):
// a job is taken when is_available (not locked, attempts < max_attempts)
// and run_at <= now, or when it was locked more than 4 hours ago; a
// completed job is deleted; attempts count the takes.
#include "graphileworker.h"

#include "../error.h"

namespace lq::core {

namespace {

/// Why `a` is refused: this tool writes a Graphile Worker job only through
/// the library's own admin functions.
std::string notAdmin(Action a) {
    return std::string(actionName(a)) +
           " is not one of Graphile Worker's admin functions (complete_jobs, "
           "permanently_fail_jobs, reschedule_jobs)";
}

} // namespace

std::vector<QueueFormat::ExtraState> GraphileWorkerFormat::extraStates() const {
    return {{"locked_expired",
             {State::Locked},
             "locked more than 4 hours ago: any worker may take it again; counted in LOCKED and "
             "stuck too"}};
}

std::string GraphileWorkerFormat::stateDescription(State s) const {
    switch (s) {
    case State::Ready:
        return "waiting, run_at has come";
    case State::Scheduled:
        return "waiting for run_at";
    case State::Locked:
        return "locked by a worker that is running it";
    case State::Failed:
        return "permanently failed: attempts reached max_attempts";
    default:
        return {};
    }
}

std::string GraphileWorkerFormat::fieldLabel(Field f) const {
    switch (f) {
    case Field::Job:
        return "Task";
    case Field::ScheduledAt:
        return "Run at";
    case Field::LeaseExpiry:
        return "Lock expires";
    case Field::Token:
        return "Claim";
    case Field::StatusText:
        return "State";
    default:
        return defaultFieldLabel(f);
    }
}

std::string GraphileWorkerFormat::whyNoMetric(Filter::Metric m, const FormatInfo&) const {
    if (m == Filter::Metric::None || m == Filter::Metric::Wait)
        return {}; // locked_at - run_at, while a job runs
    if (m == Filter::Metric::TimeToFailure)
        return "Graphile Worker keeps a failed job's last_error but not when it failed";
    return "Graphile Worker deletes a job when it completes: its processing and total times are "
           "not kept";
}

std::vector<QueueFormat::ActionRule> GraphileWorkerFormat::actionRules(const FormatInfo&) const {
    return {
        {Action::Retry, ""},
        {Action::MarkFailed, ""},
        {Action::Release,
         "a Graphile Worker lock lapses by itself 4 hours after locked_at, when any "
         "worker takes the job again; its admin functions release no single job"},
        {Action::Reschedule, notAdmin(Action::Reschedule)},
        {Action::Delete, ""},
        {Action::Prune, notAdmin(Action::Prune)},
        {Action::RetryExpired, notAdmin(Action::RetryExpired)},
        {Action::Enqueue, notAdmin(Action::Enqueue)},
        {Action::Vacuum, notAdmin(Action::Vacuum)},
        {Action::Upgrade, notAdmin(Action::Upgrade)},
    };
}

std::string GraphileWorkerFormat::whyNoPause(const FormatInfo&) const {
    return notAdmin(Action::Pause);
}

std::string GraphileWorkerFormat::whyNoRunRecurring(const FormatInfo&) const {
    return notAdmin(Action::RunRecurring);
}

std::string graphileWorkerRefusal(Action a, const Message& m, TimeNs now) {
    const std::string is = "is " + std::string(stateName(m.state)) + " (" + m.statusText + ")";
    // The functions' own guard: not locked, or locked over 4 hours ago.
    if (m.state == State::Locked && m.leaseExpiry && *m.leaseExpiry > now)
        return is + ": a worker locked it less than 4 hours ago, and Graphile Worker's admin "
                    "functions leave a locked job alone";
    switch (a) {
    case Action::Retry:
        if (m.state != State::Failed)
            return is + ": retry applies to permanently failed jobs (attempts reached "
                        "max_attempts)";
        return {};
    case Action::MarkFailed:
        if (m.state == State::Failed)
            return "is already permanently failed";
        return {};
    case Action::Delete:
        return {};
    default:
        return std::string(actionName(a)) + " is not offered on Graphile Worker";
    }
}

} // namespace lq::core
