// SPDX-License-Identifier: MIT
// Hangfire.Storage.SQLite (docs/FORMATS.md#hangfire-sqlite;
// raisedapp/Hangfire.Storage.SQLite@a07234959f40 Entities/*.cs,
// HangfireDbContext.cs, SQLiteJobQueue.cs, SQLiteFetchedJob.cs,
// SQLiteWriteOnlyTransaction.cs, ExpirationManager.cs, on
// HangfireIO/Hangfire@858f19dfa5fd (v1.8.0) States/*.cs): what the format
// offers and how it is recognised. The SQL is in hangfire_sql.cpp.
#include "hangfire.h"

#include "../error.h"
#include "driver.h"
#include "schema.h"

#include <map>
#include <set>

namespace lq::core {

namespace {

/// The tables sqlite-net creates from the entity classes that the job view
/// reads or writes, with their columns (Entities/*.cs). The storage's other
/// tables (Hash, List, Counter, AggregatedCounter, Server, DistributedLock)
/// are Hangfire's own bookkeeping: not required.
const std::map<std::string, std::set<std::string>>& tables() {
    static const std::map<std::string, std::set<std::string>> t = {
        {"Job",
         {"Id", "StateId", "StateName", "InvocationData", "Arguments", "CreatedAt", "ExpireAt"}},
        {"State", {"Id", "JobId", "Name", "Reason", "CreatedAt", "Data", "ExpireAt"}},
        {"JobQueue", {"Id", "JobId", "Queue", "FetchedAt"}},
        {"JobParameter", {"Id", "JobId", "Name", "Value", "ExpireAt"}},
        {"Set", {"Id", "Key", "Score", "Value", "ExpireAt"}},
    };
    return t;
}

bool hasTable(const SchemaFacts& s, const std::string& t) {
    return s.columns.count(t) != 0;
}

} // namespace

std::vector<State> HangfireFormat::states() const {
    return {State::Ready, State::Scheduled, State::Locked,
            State::Done,  State::Failed,    State::Unknown};
}

std::vector<QueueFormat::ExtraState> HangfireFormat::extraStates() const {
    return {{kDeleted,
             {},
             "StateName Deleted: deleted from the dashboard or by the app (BackgroundJob.Delete); "
             "kept until it expires (a day later) and the ExpirationManager removes it"},
            {kAwaiting,
             {},
             "StateName Awaiting: a continuation waiting for its parent job "
             "(BackgroundJob.ContinueJobWith); enqueued when the parent finishes"},
            {kStuckState,
             {State::Locked},
             "fetched longer ago than the invisibility timeout (30 min by default): the next "
             "worker's fetch takes the job again; counted in LOCKED and stuck too"}};
}

std::string HangfireFormat::stateDescription(State s) const {
    switch (s) {
    case State::Ready:
        return "StateName Enqueued (or Processing, requeued by a worker that shut down) with a "
               "JobQueue row not fetched (FetchedAt 0): the next worker of its queue fetches it";
    case State::Scheduled:
        return "StateName Scheduled: BackgroundJob.Schedule, or a retry after a failure "
               "(AutomaticRetry); the scheduler enqueues it at EnqueueAt";
    case State::Locked:
        return "StateName Enqueued or Processing with its JobQueue row fetched (FetchedAt set): a "
               "worker holds it (running, or its server died)";
    case State::Done:
        return "StateName Succeeded: finished; kept until it expires (a day later)";
    case State::Failed:
        return "StateName Failed: failed after its retries (AutomaticRetry, 10 by default), with "
               "the exception in its Failed state; kept until requeued or deleted";
    default:
        return {};
    }
}

std::vector<Action> HangfireFormat::rowActions() const {
    return {Action::Retry, Action::Delete};
}

std::vector<QueueFormat::ActionRule> HangfireFormat::actionRules(const FormatInfo&) const {
    const char* noRelease =
        "Hangfire takes a fetched job again by itself once the fetch is older than the "
        "invisibility timeout; nothing to release";
    return {
        {Action::Retry, ""},
        {Action::MarkFailed,
         "Hangfire fails a job only from its worker (a Failed state with the exception it "
         "threw); delete it instead"},
        {Action::Release, noRelease},
        {Action::Reschedule,
         "Hangfire has no reschedule in its storage: a Scheduled job is enqueued by its "
         "scheduler at EnqueueAt (the dashboard's \"Enqueue now\" is requeue)"},
        {Action::Delete, ""},
        {Action::Prune, ""},
        {Action::RetryExpired, noRelease},
        {Action::Enqueue,
         "Hangfire jobs are created by the app (BackgroundJob.Enqueue: a .NET method call "
         "serialized as InvocationData), not by this tool"},
        {Action::Vacuum, ""},
        {Action::Upgrade,
         "sqlite-net creates and migrates these tables itself when the storage starts"},
    };
}

std::vector<QueueFormat::PruneRule> HangfireFormat::pruneRules() const {
    PruneRule r;
    r.states = {State::Done};
    r.extraStates = {kDeleted};
    r.expired = true;
    return {r};
}

std::string HangfireFormat::pruneText() const {
    return "as Hangfire's ExpirationManager: Succeeded and Deleted jobs whose ExpireAt has passed "
           "(a day after they finished), with their State and JobParameter rows";
}

std::vector<QueueFormat::Setting> HangfireFormat::settings() const {
    return {{std::string(kInvisibilityTimeoutKey), "Invisibility timeout", "seconds",
             kDefaultInvisibilityTimeoutSeconds, 1, false,
             "SQLiteStorageOptions.InvisibilityTimeout (the app's UseSQLiteStorage options; 30 "
             "minutes by default): a job fetched longer ago is fetched again by the next worker; "
             "not stored in the file",
             "--invisibility-timeout"}};
}

std::optional<FormatInfo> HangfireFormat::recognise(const SchemaFacts& s,
                                                    const std::string& preferTable) const {
    (void)preferTable;
    for (const auto& [t, cols] : tables())
        if (!hasTable(s, t) || !s.hasColumns(t, cols))
            return std::nullopt;
    std::vector<std::string> queueTables;
    for (const auto& [t, cols] : tables())
        queueTables.push_back(t);
    FormatInfo info = recognisedInfo(s, this, "Job", std::move(queueTables));
    // sqlite-net creates no triggers.
    refuseUnexpectedObjects(s, info, info.queueTables, [](const SchemaObject&) { return false; });
    return info;
}

void HangfireFormat::explainNoMatch(const SchemaFacts& s) const {
    if (!hasTable(s, "Job") || !s.columns.at("Job").count("InvocationData") ||
        !s.columns.at("Job").count("StateName"))
        return;
    std::vector<std::string> missing;
    for (const auto& [t, cols] : tables()) {
        if (!hasTable(s, t)) {
            missing.push_back("table " + t);
            continue;
        }
        for (const auto& c : cols)
            if (!s.columns.at(t).count(c))
                missing.push_back(std::string(t).append(".").append(c));
    }
    if (missing.empty())
        return;
    throw Unsupported(s.path, "table Job looks like Hangfire.Storage.SQLite's but the file lacks " +
                                  joinNames(missing) +
                                  ": not a Hangfire storage this tool can read");
}

std::unique_ptr<FormatDriver> HangfireFormat::driver(const FormatInfo& info,
                                                     const std::string& path) const {
    return makeHangfireDriver(info, path);
}

std::string HangfireFormat::fieldLabel(Field f) const {
    switch (f) {
    case Field::Job:
        return "Method";
    case Field::Attempts:
        return "Retries";
    case Field::Error:
        return "Exception";
    case Field::ScheduledAt:
        return "Enqueue at";
    case Field::Token:
        return "Fetch";
    case Field::LeaseExpiry:
        return "Fetched again at";
    case Field::StatusText:
        return "State";
    default:
        return defaultFieldLabel(f);
    }
}

std::string HangfireFormat::fieldDescription(Field f) const {
    switch (f) {
    case Field::Queue:
        return "the JobQueue row's Queue; else the queue of the job's last Enqueued state, or of "
               "its InvocationData; else \"default\", where EnqueuedState puts a job unless its "
               "[Queue] attribute (code, not the file) names another";
    case Field::Job:
        return "the InvocationData's Type (class name, no namespace or assembly) and Method, as "
               "the dashboard shows them; read as text, never deserialized";
    case Field::Attempts:
        return "the RetryCount job parameter: retries AutomaticRetry has scheduled so far";
    case Field::Error:
        return "the Failed state's ExceptionType and ExceptionMessage, then ExceptionDetails "
               "(the stack trace as the worker formatted it)";
    case Field::ScheduledAt:
        return "the Scheduled state's EnqueueAt: when the scheduler enqueues the job";
    case Field::Token:
        return "the JobQueue row and its FetchedAt: the worker's fetch, and when";
    case Field::LeaseExpiry:
        return "the JobQueue row's FetchedAt plus the invisibility timeout (30 min unless set): "
               "from then on another worker fetches the job again";
    case Field::StatusText:
        return "Job.StateName as stored: Enqueued, Scheduled, Processing, Succeeded, Failed, "
               "Deleted or Awaiting";
    default:
        return defaultFieldDescription(f);
    }
}

} // namespace lq::core
