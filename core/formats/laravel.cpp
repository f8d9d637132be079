// SPDX-License-Identifier: MIT
// Laravel's database queue (docs/FORMATS.md#laravel-database; laravel/framework@bd71b45fbb7e
// src/Illuminate/Queue/{DatabaseQueue,Failed/DatabaseUuidFailedJobProvider,
// Console/RetryCommand,Console/PruneFailedJobsCommand}.php): what the format
// offers and how it is recognised. The SQL is in laravel_sql.cpp.
#include "laravel.h"

#include "../error.h"
#include "driver.h"
#include "schema.h"

#include <algorithm>
#include <set>

namespace lq::core {

namespace {

const std::set<std::string> kJobColumns = {"id",          "queue",        "payload",   "attempts",
                                           "reserved_at", "available_at", "created_at"};
const std::set<std::string> kFailedColumns = {"id",      "connection", "queue",
                                              "payload", "exception",  "failed_at"};

bool isFailedTable(const std::set<std::string>& cols) {
    std::set<std::string> rest = cols;
    rest.erase("uuid"); // Laravel ≤ 7 has none
    return rest == kFailedColumns;
}

} // namespace

std::vector<State> LaravelFormat::states() const {
    return {State::Ready, State::Scheduled, State::Locked, State::Failed};
}

std::vector<QueueFormat::ExtraState> LaravelFormat::extraStates() const {
    return {{"locked_expired",
             {State::Locked},
             "reserved longer than retry_after (90 s, the skeleton's config/queue.php): the "
             "next pop takes it over; counted in LOCKED and stuck too"}};
}

std::string LaravelFormat::whyNoMetric(Filter::Metric m, const FormatInfo& info) const {
    (void)info;
    switch (m) {
    case Filter::Metric::None:
    case Filter::Metric::Wait:
        return {};
    case Filter::Metric::Processing:
    case Filter::Metric::Total:
        return "Laravel deletes a job when it completes and stores no finish time, so "
               "processing and total time cannot be computed (wait is shown for reserved jobs)";
    case Filter::Metric::TimeToFailure:
        return "Laravel's failed_jobs keeps no reservation time (and 8.x payloads no createdAt), "
               "so the time to failure is not stored";
    }
    return "unknown metric";
}

std::vector<Action> LaravelFormat::rowActions() const {
    return {Action::Retry, Action::Release, Action::Delete};
}

std::vector<QueueFormat::ActionRule> LaravelFormat::actionRules(const FormatInfo& info) const {
    const bool failedTable =
        info.columns.end() !=
        std::find(info.columns.begin(), info.columns.end(), std::string("failed_table"));
    return {
        {Action::Retry, ""},
        {Action::MarkFailed,
         "Laravel fails a job only from its worker (with the exception, and batch "
         "bookkeeping in job_batches); delete it instead"},
        {Action::Release, ""},
        {Action::Reschedule,
         "Laravel has no reschedule: release a scheduled job to make it due now"},
        {Action::Delete, ""},
        {Action::Prune,
         failedTable ? "" : "no failed-jobs table: Laravel keeps no other history to prune"},
        {Action::RetryExpired,
         "Laravel has no such command: the next pop takes over a reservation older than "
         "retry_after; release the LOCKED jobs counted as stuck"},
        {Action::Enqueue,
         "Laravel jobs are dispatched by the app (a PHP-serialized command), not by this "
         "tool"},
        {Action::Vacuum, ""},
        {Action::Upgrade, "Laravel files are migrated by the app (php artisan migrate)"},
    };
}

std::optional<FormatInfo> LaravelFormat::recognise(const SchemaFacts& s,
                                                   const std::string& preferTable) const {
    std::string jobs;
    std::string failed;
    for (const auto& t : s.tables) {
        const auto& cols = s.columns.at(t);
        if (cols == kJobColumns && (jobs.empty() || t == preferTable))
            jobs = t;
        else if (isFailedTable(cols) && (failed.empty() || t == "failed_jobs"))
            failed = t;
    }
    if (jobs.empty())
        return std::nullopt;
    FormatInfo info = recognisedInfo(s, this, jobs);
    // The failed table rides in `columns` for the driver, after a marker.
    info.columns = {"failed_table"};
    if (failed.empty()) {
        info.columns.clear();
        info.warnings.push_back("no failed-jobs table: failed jobs cannot be listed");
    } else {
        info.columns.push_back(failed);
        if (s.columns.at(failed).count("uuid"))
            info.columns.emplace_back("failed_uuid");
        info.queueTables.push_back(failed);
    }
    refuseUnexpectedObjects(s, info, info.queueTables, [](const SchemaObject&) { return false; });
    return info;
}

void LaravelFormat::explainNoMatch(const SchemaFacts& s) const {
    for (const auto& t : s.tables) {
        const auto& cols = s.columns.at(t);
        if (cols.count("reserved_at") && cols.count("available_at") && cols.count("payload") &&
            cols.count("queue") && cols != kJobColumns) {
            std::vector<std::string> missing;
            for (const auto& c : kJobColumns)
                if (!cols.count(c))
                    missing.push_back(c);
            throw Unsupported(s.path, "table " + t +
                                          " looks like a Laravel jobs table but its columns "
                                          "differ (missing " +
                                          joinNames(missing) +
                                          "): not a Laravel database queue this tool can read");
        }
    }
}

std::unique_ptr<FormatDriver> LaravelFormat::driver(const FormatInfo& info,
                                                    const std::string& path) const {
    return makeLaravelDriver(info, path);
}

std::vector<QueueFormat::Setting> LaravelFormat::settings() const {
    return {{std::string(kRetryAfterKey), "Retry after", "seconds", kDefaultRetryAfterSeconds, 1,
             false,
             "retry_after of the database connection in Laravel's config/queue.php: reservation "
             "age after which the next pop takes a job over; not stored in the file",
             "--retry-after"}};
}

std::string LaravelFormat::fieldLabel(Field f) const {
    switch (f) {
    case Field::Job:
        return "Job";
    case Field::Error:
        return "Exception";
    case Field::ScheduledAt:
        return "Available at";
    case Field::LeaseExpiry:
        return "Retry after";
    case Field::Token:
        return "Reservation";
    default:
        return defaultFieldLabel(f);
    }
}

} // namespace lq::core
