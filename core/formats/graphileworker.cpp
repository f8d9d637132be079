// SPDX-License-Identifier: MIT
// Graphile Worker's state model (core/formats/graphileworker.h). Its rules,
// from graphile/worker's get_job (sql/000016.sql@55603eb0d71c and later):
// a job is taken when is_available (not locked, attempts < max_attempts)
// and run_at <= now, or when it was locked more than 4 hours ago; a
// completed job is deleted; attempts count the takes.
#include "graphileworker.h"

#include "../error.h"

namespace lq::core {

std::unique_ptr<FormatDriver> GraphileWorkerFormat::driver(const FormatInfo&,
                                                           const std::string& path) const {
    throw Unsupported(path, "Graphile Worker keeps its jobs in PostgreSQL: open the database "
                            "(postgresql://…), not a file");
}

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

std::string GraphileWorkerFormat::whyNot(Action a, const FormatInfo&) const {
    (void)a;
    return "queues on PostgreSQL are read-only so far (issue 41)";
}

} // namespace lq::core
