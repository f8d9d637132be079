// SPDX-License-Identifier: MIT
// Django's Tasks framework with the database backend, django-tasks-db
// (docs/FORMATS.md#django-tasks-db; RealOrangeOne/django-tasks-db@c7230a36520a
// django_tasks_db/models.py, migrations 0001-0020, management/commands/
// db_worker.py and prune_db_task_results.py): what the format offers and how
// it is recognised. The SQL is in djangotasks_sql.cpp.
#include "djangotasks.h"

#include "../error.h"
#include "../sqlite.h"
#include "driver.h"
#include "schema.h"

#include <sqlite3.h>

#include <cctype>
#include <set>

namespace lq::core {

namespace {

/// DBTaskResult's columns since migration 0016 (worker_ids; 0017 added
/// `metadata` and 0019 removed it again). A file migrated before 0016 has
/// no worker_ids and NEW/COMPLETE statuses: explainNoMatch() says so.
const std::set<std::string> kColumns = {
    "id",           "status",    "enqueued_at",  "started_at",           "finished_at",
    "args_kwargs",  "priority",  "task_path",    "worker_ids",           "queue_name",
    "backend_name", "run_after", "return_value", "exception_class_path", "traceback"};

/// Whether a hardened connection of this build (Connection: trusted_schema
/// off) can write a table whose CHECK constraint calls JSON_VALID(), as
/// every Django JSONField column's does. SQLite before 3.42 takes its own
/// JSON functions in a schema for unsafe, and on a writable connection such
/// a schema fails every statement ("malformed database schema ... unsafe use
/// of JSON_VALID()"); Connection registers an innocuous json_valid that
/// answers as the built-in does (core/sqlite.cpp). Tried once, on a memory
/// database, so a build where that fails still opens the file, read-only.
bool hardenedWritesTakeJsonChecks() {
    static const bool ok = [] {
        try {
            Connection c(":memory:", Connection::Mode::ReadWriteCreate, 0);
            c.exec("CREATE TABLE t (x text CHECK ((JSON_VALID(x) OR x IS NULL)))");
            c.exec("INSERT INTO t VALUES ('[]'), (NULL)");
            try {
                c.exec("INSERT INTO t VALUES ('[')");
                return false; // a check that passes invalid JSON is no check
            } catch (const std::exception&) {
                return true;
            }
        } catch (const std::exception&) {
            return false;
        }
    }();
    return ok;
}

/// Whether `sql` calls a JSON function (json(, json_extract(, ...) other
/// than json_valid(), which Connection makes safe; `valid`: whether it calls
/// json_valid().
bool callsJson(const std::string& sql, bool valid) {
    for (std::size_t i = sql.find_first_of("jJ"); i != std::string::npos;
         i = sql.find_first_of("jJ", i + 1)) {
        std::size_t k = 0;
        while (k < 4 && i + k < sql.size() &&
               std::tolower(static_cast<unsigned char>(sql[i + k])) == "json"[k])
            ++k;
        if (k < 4)
            continue;
        std::size_t e = i + 4;
        while (e < sql.size() &&
               (std::isalnum(static_cast<unsigned char>(sql[e])) || sql[e] == '_'))
            ++e;
        if (e >= sql.size() || sql[e] != '(')
            continue;
        std::string name = sql.substr(i, e - i);
        for (char& ch : name)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if ((name == "json_valid") == valid)
            return true;
    }
    return false;
}

} // namespace

std::vector<State> DjangoTasksFormat::states() const {
    return {State::Ready, State::Scheduled, State::Locked,
            State::Done,  State::Failed,    State::Unknown};
}

std::string DjangoTasksFormat::stateDescription(State s) const {
    switch (s) {
    case State::Ready:
        return "status READY and run_after due (or none): the next db_worker of its backend and "
               "queue takes it (priority, then run_after, then enqueued_at)";
    case State::Scheduled:
        return "status READY with run_after in the future (enqueued with Task.using(run_after=))";
    case State::Locked:
        return "status RUNNING: claimed by a db_worker (started_at, its id appended to "
               "worker_ids); no heartbeat, so a task whose worker died stays RUNNING";
    case State::Done:
        return "status SUCCESSFUL (SUCCEEDED before migration 0018): finished, with its return "
               "value; kept until prune_db_task_results deletes it";
    case State::Failed:
        return "status FAILED: the task raised (or could not be imported); the exception's class "
               "path and traceback are kept, the library never retries it";
    default:
        return {};
    }
}

std::vector<Action> DjangoTasksFormat::rowActions() const {
    return {Action::Retry, Action::Delete};
}

std::vector<QueueFormat::ActionRule> DjangoTasksFormat::actionRules(const FormatInfo&) const {
    const char* noLock =
        "django-tasks-db has no lock that expires: a RUNNING task is its worker's until "
        "it saves the result, and the library never takes it again";
    return {
        {Action::Retry, ""},
        {Action::MarkFailed,
         "django-tasks-db marks a task FAILED only from its worker (set_failed, with the "
         "exception it raised)"},
        {Action::Release, noLock},
        {Action::Reschedule,
         "django-tasks-db has no reschedule: run_after is set by the app when it enqueues "
         "(Task.using(run_after=...))"},
        {Action::Delete, ""},
        {Action::Prune, ""},
        {Action::RetryExpired, noLock},
        {Action::Enqueue,
         "Django tasks are enqueued by the app (Task.enqueue: the task's import path and "
         "JSON arguments), not by this tool"},
        {Action::Vacuum, ""},
        {Action::Upgrade,
         "the table is migrated by the app (manage.py migrate django_tasks_database)"},
    };
}

std::vector<QueueFormat::PruneRule> DjangoTasksFormat::pruneRules() const {
    return {{{State::Done, State::Failed}, {}, std::chrono::hours(24 * kPruneMinAgeDays)}};
}

std::string DjangoTasksFormat::pruneText() const {
    return "as manage.py prune_db_task_results: SUCCESSFUL and FAILED tasks finished more than "
           "--min-age-days (14) ago";
}

std::optional<FormatInfo> DjangoTasksFormat::recognise(const SchemaFacts& s,
                                                       const std::string& preferTable) const {
    std::string table;
    for (const auto& t : s.tables) {
        if (!s.hasColumns(t, kColumns))
            continue;
        // db_table may be overridden; prefer the one asked for, then the model's own.
        if (table.empty() || t == preferTable || (t == kTable && table != preferTable))
            table = t;
    }
    if (table.empty())
        return std::nullopt;
    FormatInfo info = recognisedInfo(s, this, table);
    // The migrations create no triggers.
    refuseUnexpectedObjects(s, info, info.queueTables, [](const SchemaObject&) { return false; });
    // Every JSONField column has CHECK ((JSON_VALID(col) OR col IS NULL)):
    // a writable connection must be able to load that schema.
    bool valid = false, other = false;
    for (const auto& o : s.objects) {
        valid = valid || callsJson(o.sql, true);
        other = other || callsJson(o.sql, false);
    }
    std::string reason;
    if (other)
        reason = std::string("the file's schema calls a JSON function other than JSON_VALID(), "
                             "and SQLite ") +
                 sqlite3_libversion() +
                 " refuses it in a schema on a hardened (trusted_schema off) connection: writes "
                 "are disabled, reading is complete";
    else if (valid && !hardenedWritesTakeJsonChecks())
        reason = std::string("the file's schema calls JSON_VALID() (Django's JSONField CHECK "
                             "constraints) and SQLite ") +
                 sqlite3_libversion() +
                 " refuses a JSON function in a schema on a hardened (trusted_schema off) "
                 "connection: writes are disabled, reading is complete";
    if (!reason.empty())
        info.readOnlyReason =
            info.readOnlyReason.empty() ? reason : info.readOnlyReason + "; " + reason;
    return info;
}

void DjangoTasksFormat::explainNoMatch(const SchemaFacts& s) const {
    for (const auto& t : s.tables) {
        const auto& cols = s.columns.at(t);
        if (!(cols.count("task_path") && cols.count("args_kwargs") && cols.count("backend_name")))
            continue;
        std::vector<std::string> missing;
        for (const auto& c : kColumns)
            if (!cols.count(c))
                missing.push_back(c);
        throw Unsupported(s.path, "table " + t +
                                      " looks like django-tasks' database backend but lacks " +
                                      joinNames(missing) +
                                      " (migrations before 0016: run manage.py migrate "
                                      "django_tasks_database): not a table this tool can read");
    }
}

std::unique_ptr<FormatDriver> DjangoTasksFormat::driver(const FormatInfo& info,
                                                        const std::string& path) const {
    return makeDjangoTasksDriver(info, path);
}

std::string DjangoTasksFormat::fieldLabel(Field f) const {
    switch (f) {
    case Field::Job:
        return "Task";
    case Field::Attempts:
        return "Claims";
    case Field::Error:
        return "Exception";
    case Field::ScheduledAt:
        return "Run after";
    case Field::Token:
        return "Claim";
    case Field::StatusText:
        return "Status";
    default:
        return defaultFieldLabel(f);
    }
}

std::string DjangoTasksFormat::fieldDescription(Field f) const {
    switch (f) {
    case Field::Queue:
        return "queue_name: the queue a db_worker --queue-name serves (\"default\" unless the "
               "task says otherwise)";
    case Field::Job:
        return "task_path: the task function's import path (module.function)";
    case Field::Priority:
        return "higher runs first, -100 to 100 (the worker orders by priority, then run_after, "
               "then enqueued_at)";
    case Field::Attempts:
        return "entries in worker_ids: each claim appends its worker's id (the library never "
               "retries, so 1 once run)";
    case Field::Error:
        return "exception_class_path (module.Class of the exception the task raised), then the "
               "traceback as the worker formatted it";
    case Field::ScheduledAt:
        return "run_after: the earliest time a worker takes the task; empty when the task has "
               "none (stored as 9999-01-01 00:00:00)";
    case Field::Token:
        return "the last worker id of worker_ids and started_at: the db_worker that claimed the "
               "task, and when";
    case Field::StatusText:
        return "status as stored: READY, RUNNING, FAILED or SUCCESSFUL (SUCCEEDED in files "
               "migrated before 0018)";
    default:
        return defaultFieldDescription(f);
    }
}

} // namespace lq::core
