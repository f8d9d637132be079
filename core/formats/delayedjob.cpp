// SPDX-License-Identifier: MIT
// Delayed::Job with Active Record (docs/FORMATS.md#delayed-job; delayed_job 4.1.9
// lib/delayed/{worker,backend/base}.rb and delayed_job_active_record 4.1.6
// lib/delayed/backend/active_record.rb and its migration template): what the
// format offers and how it is recognised. The SQL is in delayedjob_sql.cpp.
#include "delayedjob.h"

#include "../error.h"
#include "driver.h"
#include "schema.h"

#include <set>

namespace lq::core {

namespace {

/// The columns of the gem's migration (templates/migration.rb): `timestamps`
/// adds created_at and updated_at. An app may add columns of its own.
const std::set<std::string> kColumns = {"id",         "priority", "attempts",   "handler",
                                        "last_error", "run_at",   "locked_at",  "failed_at",
                                        "locked_by",  "queue",    "created_at", "updated_at"};

} // namespace

std::vector<State> DelayedJobFormat::states() const {
    return {State::Ready, State::Scheduled, State::Locked, State::Failed};
}

std::vector<QueueFormat::ExtraState> DelayedJobFormat::extraStates() const {
    return {{kStuckState,
             {State::Locked},
             "locked longer than Delayed::Worker.max_run_time (4 h by default): the next "
             "worker's reserve takes the job again (ready_to_run); counted in LOCKED and stuck "
             "too"}};
}

std::string DelayedJobFormat::stateDescription(State s) const {
    switch (s) {
    case State::Ready:
        return "not locked, not failed, run_at due: the next worker reserves it (priority, then "
               "run_at)";
    case State::Scheduled:
        return "run_at in the future: enqueued with run_at, or waiting for a retry "
               "(reschedule: attempts**4 + 5 s, or the job's own reschedule_at)";
    case State::Locked:
        return "locked_at and locked_by set by a worker's reserve (running, or its worker died)";
    case State::Failed:
        return "failed_at set: failed max_attempts times (25 by default) or could not be "
               "deserialized, kept because destroy_failed_jobs is false";
    default:
        return {};
    }
}

std::string DelayedJobFormat::whyNoMetric(Filter::Metric m, const FormatInfo& info) const {
    (void)info;
    switch (m) {
    case Filter::Metric::None:
    case Filter::Metric::Wait:
    case Filter::Metric::TimeToFailure:
        return {};
    case Filter::Metric::Processing:
    case Filter::Metric::Total:
        return "Delayed::Job deletes a job when it succeeds and stores no finish time, so "
               "processing and total time cannot be computed (wait is shown for locked and "
               "failed jobs, time to failure for failed ones)";
    }
    return "unknown metric";
}

std::vector<Action> DelayedJobFormat::rowActions() const {
    return {Action::Retry, Action::Release, Action::Delete};
}

std::vector<QueueFormat::ActionRule> DelayedJobFormat::actionRules(const FormatInfo&) const {
    return {
        {Action::Retry, ""},
        {Action::MarkFailed,
         "Delayed::Job fails a job only from its worker (fail! after max_attempts, with "
         "last_error); delete it instead"},
        {Action::Release, ""},
        {Action::Reschedule,
         "Delayed::Job has no reschedule command: a job's run_at is set by its app or by "
         "the worker's back-off"},
        {Action::Delete, ""},
        {Action::Prune, ""},
        {Action::RetryExpired,
         "Delayed::Job has no such command: a worker takes a job again once its lock is "
         "older than max_run_time; release the LOCKED jobs counted as stuck"},
        {Action::Enqueue,
         "Delayed::Job jobs are enqueued by the app (a Ruby object serialized as YAML), "
         "not by this tool"},
        {Action::Vacuum, ""},
        {Action::Upgrade, "Delayed::Job tables are migrated by the app (rails generate "
                          "delayed_job:upgrade)"},
    };
}

std::string DelayedJobFormat::pruneText() const {
    return "Delayed::Job has no pruner: it deletes a job that succeeds, and one that fails for "
           "good unless destroy_failed_jobs is false; prune deletes those kept failed jobs";
}

std::optional<FormatInfo> DelayedJobFormat::recognise(const SchemaFacts& s,
                                                      const std::string& preferTable) const {
    std::string table;
    for (const auto& t : s.tables) {
        if (!s.hasColumns(t, kColumns))
            continue;
        // table_name_prefix may rename it; prefer the one asked for, then the gem's name.
        if (table.empty() || t == preferTable || (t == "delayed_jobs" && table != preferTable))
            table = t;
    }
    if (table.empty())
        return std::nullopt;
    FormatInfo info = recognisedInfo(s, this, table);
    // The gem creates no triggers.
    refuseUnexpectedObjects(s, info, info.queueTables, [](const SchemaObject&) { return false; });
    return info;
}

void DelayedJobFormat::explainNoMatch(const SchemaFacts& s) const {
    for (const auto& t : s.tables) {
        const auto& cols = s.columns.at(t);
        if (!(cols.count("handler") && cols.count("run_at") && cols.count("locked_by")))
            continue;
        std::vector<std::string> missing;
        for (const auto& c : kColumns)
            if (!cols.count(c))
                missing.push_back(c);
        throw Unsupported(s.path, "table " + t + " looks like a Delayed::Job table but lacks " +
                                      joinNames(missing) +
                                      ": not a Delayed::Job queue this tool can read");
    }
}

std::unique_ptr<FormatDriver> DelayedJobFormat::driver(const FormatInfo& info,
                                                       const std::string& path) const {
    return makeDelayedJobDriver(info, path);
}

std::vector<QueueFormat::Setting> DelayedJobFormat::settings() const {
    return {{std::string(kMaxRunTimeKey), "Max run time", "seconds", kDefaultMaxRunTimeSeconds, 1,
             false,
             "Delayed::Worker.max_run_time (the app's initializer; 4 hours by default): a lock "
             "older than this is taken again by the next worker; not stored in the file",
             "--max-run-time"}};
}

std::string DelayedJobFormat::fieldLabel(Field f) const {
    switch (f) {
    case Field::Job:
        return "Job";
    case Field::Error:
        return "Last error";
    case Field::ScheduledAt:
        return "Run at";
    case Field::Token:
        return "Lock";
    default:
        return defaultFieldLabel(f);
    }
}

std::string DelayedJobFormat::fieldDescription(Field f) const {
    switch (f) {
    case Field::Queue:
        return "the queue column; NULL is the default queue, shown as \"(default)\"";
    case Field::Job:
        return "the handler's class, read as text from its YAML tag (an Active Job's "
               "job_class, a delayed method's Class#method); never deserialized";
    case Field::Priority:
        return "lower runs first (reserve orders by priority, then run_at)";
    case Field::Attempts:
        return "failed runs so far; the job fails for good at max_attempts (25 by default)";
    case Field::Error:
        return "last_error: the message and backtrace of the last failed run";
    case Field::ScheduledAt:
        return "run_at: when the job is due (the next retry after a failure)";
    case Field::Token:
        return "locked_by and locked_at as stored: the worker holding the job (\"host:NAME "
               "pid:N\") and since when; a failed job keeps the lock of its last run";
    default:
        return defaultFieldDescription(f);
    }
}

} // namespace lq::core
