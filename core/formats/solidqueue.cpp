// SPDX-License-Identifier: MIT
// Solid Queue (docs/FORMATS.md#solid-queue; rails/solid_queue@29e818d9c118
// lib/generators/solid_queue/install/templates/db/queue_schema.rb,
// app/models/solid_queue/*; Mission Control rails/mission_control-jobs@
// aae86ee5c4ae): what the format offers and how it is recognised. The SQL
// is in solidqueue_sql.cpp.
#include "solidqueue.h"

#include "../error.h"
#include "driver.h"
#include "schema.h"
#include "solidqueue_ops.h"

#include <algorithm>
#include <ctime>
#include <set>

namespace lq::core {

namespace {

const std::set<std::string> kJobColumns = {
    "id",           "queue_name",  "class_name",      "arguments",  "priority",  "active_job_id",
    "scheduled_at", "finished_at", "concurrency_key", "created_at", "updated_at"};

struct Required {
    const char* table;
    std::set<std::string> columns;
};

/// The signature: these tables with (at least) these columns.
const std::vector<Required>& signature() {
    static const std::vector<Required> kSig = {
        {"solid_queue_jobs", kJobColumns},
        {"solid_queue_ready_executions", {"id", "job_id", "queue_name", "priority", "created_at"}},
        {"solid_queue_claimed_executions", {"id", "job_id", "process_id", "created_at"}},
        {"solid_queue_failed_executions", {"id", "job_id", "error", "created_at"}},
        {"solid_queue_scheduled_executions",
         {"id", "job_id", "queue_name", "priority", "scheduled_at", "created_at"}},
        {"solid_queue_processes", {"id", "last_heartbeat_at"}},
    };
    return kSig;
}

/// Tables the driver uses when present (older versions lack them).
const std::vector<Required>& optionalTables() {
    static const std::vector<Required> kOpt = {
        {"solid_queue_blocked_executions",
         {"id", "job_id", "queue_name", "priority", "concurrency_key", "expires_at", "created_at"}},
        {"solid_queue_recurring_executions", {"id", "job_id", "task_key", "run_at", "created_at"}},
        {"solid_queue_pauses", {"queue_name", "created_at"}},
        {"solid_queue_recurring_tasks", {"key", "schedule", "created_at", "updated_at"}},
    };
    return kOpt;
}

} // namespace

std::string railsTime(TimeNs t) {
    const std::int64_t us = t / 1000 - ((t % 1000 < 0) ? 1 : 0);
    std::int64_t secs = us / 1'000'000;
    std::int64_t frac = us % 1'000'000;
    if (frac < 0) {
        frac += 1'000'000;
        --secs;
    }
    const auto tt = static_cast<std::time_t>(secs);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    char buf[40];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    std::string out(buf);
    if (frac != 0) {
        char f[8];
        std::snprintf(f, sizeof f, ".%06lld", static_cast<long long>(frac));
        out += f;
    }
    return out;
}

std::vector<State> SolidQueueFormat::states() const {
    return {State::Ready, State::Scheduled, State::Locked,
            State::Done,  State::Failed,    State::Unknown};
}

std::vector<QueueFormat::ExtraState> SolidQueueFormat::extraStates() const {
    return {{"blocked",
             {},
             "waiting for a concurrency semaphore (solid_queue_blocked_executions); released "
             "when a job with the same key finishes or the block expires; not in any canonical "
             "state"},
            {"locked_expired",
             {State::Locked},
             "claimed by a process whose row is gone or whose heartbeat is older than 5 minutes "
             "(the library's process_alive_threshold): an abandoned claim; counted in LOCKED "
             "and stuck too"}};
}

std::string SolidQueueFormat::whyNoMetric(Filter::Metric m, const FormatInfo& info) const {
    (void)info;
    switch (m) {
    case Filter::Metric::None:
    case Filter::Metric::Wait:
    case Filter::Metric::Total:
        return {};
    case Filter::Metric::Processing:
        return "Solid Queue deletes the claim row when a job finishes or fails and does not "
               "touch the job row at claim time, so processing time cannot be computed "
               "(wait is shown for running jobs, total for finished ones)";
    case Filter::Metric::TimeToFailure:
        return "Solid Queue deletes the claim row when a job fails, so the time from claim to "
               "failure is not stored";
    }
    return "unknown metric";
}

std::vector<Action> SolidQueueFormat::rowActions() const {
    return {Action::Retry, Action::Release, Action::Delete};
}

std::vector<QueueFormat::ActionRule> SolidQueueFormat::actionRules(const FormatInfo&) const {
    return {
        {Action::Retry, ""},
        {Action::MarkFailed,
         "Solid Queue fails a job only from its worker (with the exception it raised); "
         "discard it instead"},
        {Action::Release, ""},
        {Action::Reschedule,
         "Solid Queue has no reschedule: release a scheduled job to dispatch it now, as "
         "Mission Control's Dispatch does"},
        {Action::Delete, ""},
        {Action::Prune, ""},
        {Action::RetryExpired,
         "Solid Queue decides abandoned claims by process heartbeat, not by lock age: "
         "release the LOCKED jobs counted as stuck"},
        {Action::Enqueue,
         "Solid Queue jobs are enqueued by the Rails app (Active Job), not by this tool"},
        {Action::Vacuum, ""},
        {Action::Upgrade,
         "Solid Queue files are migrated by the app (bin/rails solid_queue:update)"},
    };
}

std::string SolidQueueFormat::whyNoPause(const FormatInfo& info) const {
    // SolidQueue::Queue#pause writes solid_queue_pauses (Solid Queue 0.2+).
    if (std::find(info.columns.begin(), info.columns.end(), "solid_queue_pauses") !=
        info.columns.end())
        return {};
    return "this Solid Queue file has no solid_queue_pauses table, where Solid Queue keeps its "
           "pauses";
}

std::string SolidQueueFormat::whyNoRunRecurring(const FormatInfo& info) const {
    // RecurringTask#enqueue, as Mission Control's Run now calls it.
    return solidqueue::noRecurringTable(info);
}

std::optional<FormatInfo> SolidQueueFormat::recognise(const SchemaFacts& s,
                                                      const std::string& preferTable) const {
    (void)preferTable;
    for (const auto& r : signature())
        if (!s.hasColumns(r.table, r.columns))
            return std::nullopt;
    FormatInfo info = recognisedInfo(s, this, "solid_queue_jobs");
    // One queue (the jobs table, named queues inside it). The optional
    // tables present are listed after the job columns, by table name, for
    // the driver (no job column is named like a table).
    info.queueTables = {info.table};
    for (const auto& r : optionalTables()) {
        if (s.hasColumns(r.table, r.columns))
            info.columns.emplace_back(r.table);
        else if (std::string(r.table) == "solid_queue_blocked_executions")
            info.warnings.push_back("no solid_queue_blocked_executions table: concurrency "
                                    "limits were never installed in this file");
    }
    if (!s.hasColumns("solid_queue_processes", {"name"}))
        info.warnings.push_back("solid_queue_processes has no name column: the file predates "
                                "Solid Queue 0.6");
    // Rails creates no triggers or views on Solid Queue's tables.
    std::vector<std::string> ours;
    for (const auto& t : s.tables)
        if (t.rfind("solid_queue_", 0) == 0)
            ours.push_back(t);
    refuseUnexpectedObjects(s, info, ours, [](const SchemaObject&) { return false; });
    return info;
}

void SolidQueueFormat::explainNoMatch(const SchemaFacts& s) const {
    if (!s.hasTable("solid_queue_jobs"))
        return;
    std::vector<std::string> missing;
    for (const auto& r : signature()) {
        if (!s.hasTable(r.table)) {
            missing.push_back("table " + std::string(r.table));
            continue;
        }
        const auto& cols = s.columns.at(r.table);
        for (const auto& c : r.columns)
            if (!cols.count(c))
                missing.push_back(std::string(r.table) + "." + c);
    }
    throw Unsupported(s.path, "solid_queue_jobs is here but Solid Queue's schema is incomplete "
                              "(missing " +
                                  joinNames(missing) +
                                  "): not a Solid Queue file this tool can read");
}

std::unique_ptr<FormatDriver> SolidQueueFormat::driver(const FormatInfo& info,
                                                       const std::string& path) const {
    return makeSolidQueueDriver(info, path);
}

std::string SolidQueueFormat::fieldLabel(Field f) const {
    switch (f) {
    case Field::Job:
        return "Class";
    case Field::Attempts:
        return "Executions";
    case Field::Error:
        return "Error";
    case Field::ScheduledAt:
        return "Scheduled at";
    case Field::LeaseExpiry:
        return "Claim lapses";
    case Field::Token:
        return "Execution";
    case Field::StatusText:
        return "Execution table";
    default:
        return defaultFieldLabel(f);
    }
}

} // namespace lq::core
