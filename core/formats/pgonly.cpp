// SPDX-License-Identifier: MIT
// The PostgreSQL-only libraries' state models (core/formats/pgonly.h).
// GoodJob: bensheldon/good_job@81db22b7 app/models/concerns/good_job/reportable.rb
// (#status), app/models/good_job/job.rb (perform_with_advisory_lock takes
// any unfinished, due job whose advisory lock is free) and
// app/models/concerns/good_job/advisory_lockable.rb (the lock key).
// pg-boss: timgit/pg-boss@55ee32f src/plans.ts (fetchNextJob takes
// state < 'active' with start_after <= now(); failJobsByTimeout fails an
// active job past started_on + expire_seconds).
#include "pgonly.h"

#include "../error.h"

namespace lq::core {

std::unique_ptr<FormatDriver> PostgresOnlyFormat::driver(const FormatInfo&,
                                                         const std::string& path) const {
    throw Unsupported(path, std::string(libraryName()) +
                                " keeps its jobs in PostgreSQL: open the database "
                                "(postgresql://…), not a file");
}

std::vector<QueueFormat::ExtraState> GoodJobFormat::extraStates() const {
    return {{"retried",
             {State::Scheduled},
             "failed an execution and waits for its retry (GoodJob's \"retried\")"},
            {"locked_expired",
             {State::Locked},
             "running, but no session holds its advisory lock: its worker is gone and the next "
             "worker takes it again; counted in LOCKED and stuck too"}};
}

std::string GoodJobFormat::stateDescription(State s) const {
    switch (s) {
    case State::Ready:
        return "queued: scheduled_at has come";
    case State::Scheduled:
        return "scheduled, or retried after an error, for scheduled_at";
    case State::Locked:
        return "running: performed_at set, not finished";
    case State::Done:
        return "succeeded: finished without an error";
    case State::Failed:
        return "discarded: finished with an error";
    default:
        return {};
    }
}

std::string GoodJobFormat::fieldLabel(Field f) const {
    switch (f) {
    case Field::Job:
        return "Job class";
    case Field::Attempts:
        return "Executions";
    case Field::ScheduledAt:
        return "Scheduled at";
    case Field::Token:
        return "Claim";
    case Field::StatusText:
        return "GoodJob status";
    default:
        return defaultFieldLabel(f);
    }
}

std::vector<QueueFormat::ActionRule> GoodJobFormat::actionRules(const FormatInfo&) const {
    const auto notIts = [](Action a) {
        return std::string(actionName(a)) +
               " is not one of GoodJob's own job actions (retry, discard, destroy)";
    };
    return {
        {Action::Retry, ""},
        {Action::MarkFailed, ""},
        {Action::Release,
         "GoodJob releases no single running job: once its worker's advisory lock is gone, the "
         "next worker takes the job again"},
        {Action::Reschedule, notIts(Action::Reschedule)},
        {Action::Delete, ""},
        {Action::Prune,
         "GoodJob cleans up finished jobs itself (cleanup_preserved_jobs_before_seconds_ago)"},
        {Action::RetryExpired, notIts(Action::RetryExpired)},
        {Action::Enqueue, notIts(Action::Enqueue)},
        {Action::Vacuum, notIts(Action::Vacuum)},
        {Action::Upgrade, notIts(Action::Upgrade)},
    };
}

std::string GoodJobFormat::whyNoPause(const FormatInfo&) const {
    return "GoodJob's pauses (good_job_settings) on PostgreSQL: not yet (issue 41)";
}

std::string GoodJobFormat::whyNoRunRecurring(const FormatInfo&) const {
    return "GoodJob's cron entries live in the app's configuration, not in its tables";
}

std::string goodJobRefusal(Action a, const Message& m, TimeNs) {
    const bool finished = m.state == State::Done || m.state == State::Failed;
    const std::string is = "is " + std::string(stateName(m.state)) + " (" + m.statusText + ")";
    switch (a) {
    case Action::Retry:
        if (m.statusText == "discarded")
            return {};
        return is + ": GoodJob retries a discarded job (finished with an error)";
    case Action::MarkFailed:
        if (!finished)
            return {};
        return is + ": GoodJob discards an unfinished job";
    case Action::Delete:
        if (finished)
            return {};
        return is + ": GoodJob destroys a finished job (discard it first)";
    default:
        return std::string(actionName(a)) + " is not offered on GoodJob";
    }
}

std::vector<QueueFormat::ExtraState> PgBossFormat::extraStates() const {
    return {{"retry",
             {State::Ready, State::Scheduled},
             "failed and waits for its next try at start_after (pg-boss's \"retry\"); READY or "
             "SCHEDULED by start_after"},
            {"cancelled", {}, "cancelled: pg-boss leaves it until it is resumed or deleted"},
            {"locked_expired",
             {State::Locked},
             "active longer than expire_seconds: pg-boss's maintenance fails it as timed out; "
             "counted in LOCKED and stuck too"}};
}

std::string PgBossFormat::stateDescription(State s) const {
    switch (s) {
    case State::Ready:
        return "created (or retry): start_after has come";
    case State::Scheduled:
        return "created (or retry): waiting for start_after";
    case State::Locked:
        return "active: a worker fetched it";
    case State::Done:
        return "completed";
    case State::Failed:
        return "failed: no retries left";
    default:
        return {};
    }
}

std::vector<QueueFormat::ActionRule> PgBossFormat::actionRules(const FormatInfo&) const {
    const auto notIts = [](Action a) {
        return std::string(actionName(a)) +
               " is not one of pg-boss's own operations on a job (retry, resume, delete)";
    };
    return {
        {Action::Retry, ""},
        {Action::MarkFailed, notIts(Action::MarkFailed)},
        {Action::Release, "pg-boss releases no single active job: its maintenance fails one past "
                          "expire_seconds, and retries it while retries remain"},
        {Action::Reschedule, notIts(Action::Reschedule)},
        {Action::Delete, ""},
        {Action::Prune,
         "pg-boss's maintenance deletes finished jobs itself, deletion_seconds after they "
         "finished"},
        {Action::RetryExpired, notIts(Action::RetryExpired)},
        {Action::Enqueue, notIts(Action::Enqueue)},
        {Action::Vacuum, notIts(Action::Vacuum)},
        {Action::Upgrade, notIts(Action::Upgrade)},
    };
}

std::string PgBossFormat::whyNoPause(const FormatInfo&) const {
    return "pg-boss keeps no pause of a queue in its tables";
}

std::string PgBossFormat::whyNoRunRecurring(const FormatInfo&) const {
    return "pg-boss has no run now of a schedule: its timekeeper alone fires them";
}

std::string pgBossRefusal(Action a, const Message& m, TimeNs) {
    switch (a) {
    case Action::Retry:
        if (m.statusText == "failed" || m.statusText == "cancelled")
            return {};
        return "is " + std::string(stateName(m.state)) + " (" + m.statusText +
               "): pg-boss retries a failed job and resumes a cancelled one";
    case Action::Delete:
        return {};
    default:
        return std::string(actionName(a)) + " is not offered on pg-boss";
    }
}

std::string PgBossFormat::fieldLabel(Field f) const {
    switch (f) {
    case Field::Queue:
        return "Queue (name)";
    case Field::Attempts:
        return "Retries";
    case Field::ScheduledAt:
        return "Start after";
    case Field::LeaseExpiry:
        return "Expires";
    case Field::Token:
        return "Claim";
    case Field::StatusText:
        return "State";
    default:
        return defaultFieldLabel(f);
    }
}

} // namespace lq::core
