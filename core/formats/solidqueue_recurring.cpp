// SPDX-License-Identifier: MIT
// Solid Queue's recurring tasks (rails/solid_queue@29e818d9c118
// app/models/solid_queue/recurring_task.rb, recurring_execution.rb): the
// rows its scheduler keeps in solid_queue_recurring_tasks, the last run
// each recorded (RecurringTask#last_enqueued_time: the greatest run_at of
// its executions), the next by its schedule as Fugit reads it (core/cron.h)
// and the runs missed since (docs/FORMATS.md#solid-queue); and "Run now",
// the rows RecurringTask#enqueue(at: Time.now) writes when Mission Control
// (rails/mission_control-jobs@aae86ee5c4ae, lib/active_job/queue_adapters/
// solid_queue_ext/recurring_tasks.rb #enqueue_recurring_task) runs a task.
#include "solidqueue.h"
#include "solidqueue_ops.h"

#include "../cron.h"
#include "../json.h"
#include "solidqueue_text.h"

#include <algorithm>
#include <cstdio>
#include <random>

namespace lq::core::solidqueue {

namespace {

bool hasTable(const FormatInfo& info, const char* table) {
    return std::find(info.columns.begin(), info.columns.end(), table) != info.columns.end();
}

const char* const kNoTasksTable =
    "this Solid Queue file has no solid_queue_recurring_tasks table (Solid Queue before 0.5 "
    "kept recurring tasks in its configuration only)";

/// SecureRandom.uuid, Active Job's job_id: a random (version 4) UUID.
std::string randomUuid() {
    static thread_local std::mt19937_64 rng{[] {
        std::random_device rd;
        return (std::uint64_t{rd()} << 32) ^ rd();
    }()};
    const std::uint64_t hi = (rng() & ~0xf000ULL) | 0x4000ULL;       // version 4
    const std::uint64_t lo = (rng() & ~(3ULL << 62)) | (2ULL << 62); // variant 10
    char buf[40];
    std::snprintf(buf, sizeof buf, "%08llx-%04llx-%04llx-%04llx-%012llx",
                  static_cast<unsigned long long>(hi >> 32),
                  static_cast<unsigned long long>((hi >> 16) & 0xffff),
                  static_cast<unsigned long long>(hi & 0xffff),
                  static_cast<unsigned long long>(lo >> 48),
                  static_cast<unsigned long long>(lo & 0xffffffffffffULL));
    return buf;
}

/// A serialized Active Job argument that deserializes to a plain Hash
/// (not a GlobalID, an object serializer's value or a
/// HashWithIndifferentAccess, which keep their form).
bool isPlainHash(const Json& arg) {
    return arg.isObject() && !arg.contains("_aj_serialized") &&
           !arg.contains("_aj_hash_with_indifferent_access") &&
           !(arg.toObject().size() == 1 && arg.contains("_aj_globalid"));
}

/// RecurringTask#arguments_with_kwargs on the stored arguments (Active
/// Job's serialization, RecurringTask::Arguments): a last argument that is
/// a Hash is passed as keywords (Hash.ruby2_keywords_hash), which
/// ActiveJob::Arguments serializes with "_aj_ruby2_keywords" listing its
/// symbol keys in the hash's order, where the stored form has
/// "_aj_symbol_keys" (rails/rails activejob/lib/active_job/arguments.rb).
Json withKeywords(Json args) {
    if (!args.isArray() || args.toArray().empty() || !isPlainHash(args.toArray().back()))
        return args;
    const Json& last = args.toArray().back();
    std::vector<std::string> symbols;
    for (const char* marker : {"_aj_symbol_keys", "_aj_ruby2_keywords"})
        if (last[marker].isArray()) {
            for (const Json& k : last[marker].toArray())
                if (k.isString())
                    symbols.push_back(k.toString());
            break;
        }
    Json out = Json::object();
    Json keys = Json::array();
    for (const auto& [k, v] : last.toObject()) {
        if (k == "_aj_symbol_keys" || k == "_aj_ruby2_keywords")
            continue;
        out.set(k, v);
        if (std::find(symbols.begin(), symbols.end(), k) != symbols.end())
            keys.push(k);
    }
    out.set("_aj_ruby2_keywords", std::move(keys));
    args.arrayRef().back() = std::move(out);
    return args;
}

/// The app-wide values Active Job serializes with every job (I18n.locale,
/// Time.zone): as the file's latest job has them, else Rails' defaults.
std::pair<std::string, std::string> localeAndZone(Connection& c) {
    auto st = c.cached("SELECT json_extract(arguments, '$.locale'), json_extract(arguments, "
                       "'$.timezone') FROM solid_queue_jobs WHERE json_valid(arguments) ORDER BY "
                       "id DESC LIMIT 1");
    std::pair<std::string, std::string> out{"en", "UTC"};
    if (st->step()) {
        if (!st->isNull(0))
            out.first = st->text(0);
        if (!st->isNull(1))
            out.second = st->text(1);
    }
    return out;
}

} // namespace

std::string noRecurringTable(const FormatInfo& info) {
    return hasTable(info, "solid_queue_recurring_tasks") ? std::string() : kNoTasksTable;
}

RecurringList recurringTasks(Connection& c, const FormatInfo& info, TimeNs now, int tzOffset) {
    RecurringList out = recurringList(info);
    if (!out.notStored.empty())
        return out;
    // One short read: a row per task; each last run is one seek on the
    // (task_key, run_at) index. Executions go with their jobs (ON DELETE
    // CASCADE), so a cleared job takes its run with it.
    const std::string last = hasTable(info, "solid_queue_recurring_executions")
                                 ? "(SELECT max(run_at) FROM solid_queue_recurring_executions e "
                                   "WHERE e.task_key = t.key)"
                                 : "NULL";
    Statement st = c.prepare("SELECT key, schedule, class_name, command, queue_name, priority, "
                             "static, description, created_at, updated_at, " +
                             last + " FROM solid_queue_recurring_tasks t ORDER BY key");
    while (st.step()) {
        RecurringTask t;
        t.key = st.text(0);
        t.schedule = st.text(1);
        t.className = st.text(2);
        t.command = st.text(3);
        t.queue = st.text(4);
        t.priority = st.isNull(5) ? 0 : st.int64(5);
        t.isStatic = st.isNull(6) || st.int64(6) != 0;
        t.description = st.text(7);
        t.lastRunNs = storedRailsTime(st, 10);
        scheduleTask(t, storedRailsTime(st, 8), storedRailsTime(st, 9), now, tzOffset);
        out.tasks.push_back(std::move(t));
    }
    return out;
}

RecurringList recurringList(const FormatInfo& info) {
    RecurringList out;
    if (!hasTable(info, "solid_queue_recurring_tasks")) {
        out.notStored = kNoTasksTable;
        return out;
    }
    out.missedRule = "scheduled times after the later of the last run and the task's "
                     "updated_at, up to a minute before now (the scheduler does not catch up)";
    return out;
}

void scheduleTask(RecurringTask& t, std::optional<TimeNs> created, std::optional<TimeNs> updated,
                  TimeNs now, int tzOffset) {
    std::string why;
    const std::optional<cron::Schedule> s = cron::parse(t.schedule, &why);
    if (!s) {
        t.why = why;
        return;
    }
    t.nextRunNs = s->next(now, tzOffset);
    if (!t.nextRunNs)
        t.why = "schedule \"" + t.schedule + "\" has no time in the next 30 years";
    // A row rewritten at updated_at (its schedule changed, or it was
    // created) was not due under that schedule before then.
    std::optional<TimeNs> anchor = updated ? updated : created;
    if (t.lastRunNs && (!anchor || *t.lastRunNs > *anchor))
        anchor = t.lastRunNs;
    if (anchor)
        t.missed = s->countBetween(*anchor, now - kRecurringGraceNs, tzOffset);
}

namespace {

/// The statements of run-now on a file's write connection.
class FileRecurring final : public RecurringStore {
public:
    FileRecurring(Connection& c, const FormatInfo& info)
        : m_c(c)
        , m_runs(hasTable(info, "solid_queue_recurring_executions")) {}

    std::optional<Task> task(const std::string& key) const override {
        auto st = m_c.cached("SELECT schedule, class_name, command, arguments, queue_name, "
                             "priority FROM solid_queue_recurring_tasks WHERE key = ?1");
        st->bind(1, std::string_view(key));
        if (!st->step())
            return std::nullopt;
        Task t;
        t.schedule = st->text(0);
        t.className = st->text(1);
        t.command = st->text(2);
        t.arguments = st->isNull(3) ? std::string("[]") : st->text(3);
        t.queue = st->text(4);
        t.priority = st->optInt64(5);
        return t;
    }

    ClassJobs latestOfClass(const std::string& className) const override {
        auto st = m_c.cached("SELECT queue_name, json_extract(arguments, '$.priority'), "
                             "(SELECT 1 FROM solid_queue_jobs WHERE class_name = ?1 AND "
                             "concurrency_key IS NOT NULL) FROM solid_queue_jobs WHERE class_name "
                             "= ?1 AND json_valid(arguments) ORDER BY id DESC LIMIT 1");
        st->bind(1, std::string_view(className));
        ClassJobs j;
        j.seen = st->step();
        if (j.seen) {
            j.concurrencyKey = !st->isNull(2);
            j.queue = st->text(0);
            j.priority = st->optInt64(1);
        }
        return j;
    }

    bool runRecorded(const std::string& key, const std::string& atText) const override {
        if (!m_runs)
            return false;
        auto st = m_c.cached("SELECT 1 FROM solid_queue_recurring_executions WHERE task_key = ?1 "
                             "AND run_at = ?2");
        st->bind(1, std::string_view(key)).bind(2, std::string_view(atText));
        return st->step();
    }

    std::pair<std::string, std::string> localeAndZone() const override {
        return solidqueue::localeAndZone(m_c);
    }

    std::string insert(const NewJob& j) const override {
        auto ins = m_c.cached("INSERT INTO solid_queue_jobs (queue_name, class_name, arguments, "
                              "priority, active_job_id, scheduled_at, finished_at, "
                              "concurrency_key, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, "
                              "?5, ?6, NULL, NULL, ?6, ?6)");
        ins->bind(1, std::string_view(j.queue))
            .bind(2, std::string_view(j.className))
            .bind(3, std::string_view(j.arguments))
            .bind(4, j.priority)
            .bind(5, std::string_view(j.activeJobId))
            .bind(6, std::string_view(j.atText))
            .exec();
        const std::int64_t id = m_c.lastInsertRowid();
        auto ready = m_c.cached("INSERT INTO solid_queue_ready_executions (job_id, queue_name, "
                                "priority, created_at) VALUES (?1, ?2, ?3, ?4)");
        ready->bind(1, id)
            .bind(2, std::string_view(j.queue))
            .bind(3, j.priority)
            .bind(4, std::string_view(j.atText))
            .exec();
        // RecurringExecution.record(key, at): the run, in the same transaction.
        if (m_runs) {
            auto rec = m_c.cached("INSERT INTO solid_queue_recurring_executions (job_id, "
                                  "task_key, run_at, created_at) VALUES (?1, ?2, ?3, ?3)");
            rec->bind(1, id)
                .bind(2, std::string_view(j.taskKey))
                .bind(3, std::string_view(j.atText))
                .exec();
        }
        return std::to_string(id);
    }

private:
    Connection& m_c;
    bool m_runs;
};

} // namespace

FormatDriver::RecurringRun runRecurring(Connection& c, const FormatInfo& info,
                                        const std::string& key, TimeNs now) {
    return runRecurring(FileRecurring(c, info), key, now);
}

FormatDriver::RecurringRun runRecurring(const RecurringStore& store, const std::string& key,
                                        TimeNs now) {
    FormatDriver::RecurringRun out;
    const std::optional<RecurringStore::Task> task = store.task(key);
    if (!task) {
        out.why = "no recurring task \"" + key + "\" any more: deleted since shown";
        out.kind = SkipKind::Gone;
        return out;
    }
    const std::string& className = task->className;
    const std::string& command = task->command;
    std::string queue = task->queue;
    std::optional<std::int64_t> priority = task->priority;
    // Mission Control offers Run now only for a valid task (its
    // can_enqueue_recurring_task?: RecurringTask#valid?).
    std::string why;
    if (!cron::parse(task->schedule, &why)) {
        out.why = "its schedule is not one Solid Queue accepts (" + why +
                  "): Mission Control "
                  "does not offer Run now for it";
        return out;
    }
    if (className.empty() && command.empty()) {
        out.why = "it names neither a job class nor a command";
        return out;
    }
    // A command runs through the default job class, SolidQueue::RecurringJob
    // (queue_as :solid_queue_recurring), with the command as its argument.
    const std::string jobClass = className.empty() ? "SolidQueue::RecurringJob" : className;
    Json args;
    if (className.empty()) {
        args = Json::array();
        args.push(command);
    } else {
        try {
            args = withKeywords(Json::parse(task->arguments));
        } catch (const std::exception&) {
        }
        if (!args.isArray()) {
            out.why = "its arguments are not Active Job's serialization (a JSON array)";
            return out;
        }
    }
    // What the job class declares (queue_as, queue_with_priority,
    // limits_concurrency) is in the app's code, not in the file: where the
    // task does not say, its class's latest job shows what the class set.
    if (!className.empty()) {
        const RecurringStore::ClassJobs cls = store.latestOfClass(className);
        if (cls.seen && cls.concurrencyKey) {
            out.why = "jobs of " + className +
                      " carry a concurrency key, computed by "
                      "limits_concurrency in the app's code: run it from the app (Mission Control)";
            return out;
        }
        if (queue.empty() && !cls.seen) {
            out.why = "the task names no queue and no job of " + className +
                      " is in the file to "
                      "show which queue its class uses (queue_as): run it from the app";
            return out;
        }
        if (queue.empty())
            queue = cls.queue;
        if (!priority && cls.seen && cls.priority)
            priority = cls.priority;
    } else if (queue.empty()) {
        queue = "solid_queue_recurring";
    }
    // Rails keeps microseconds: the row and the serialized times agree.
    const TimeNs at = now - ((now % 1000) + 1000) % 1000;
    const std::string atText = railsTime(at);
    if (store.runRecorded(key, atText)) { // RecurringExecution::AlreadyRecorded
        out.why = "a run of this task at " + atText + " is already recorded";
        out.kind = SkipKind::Conflict;
        return out;
    }
    // ActiveJob::Core#serialize (rails/rails@0715712d9211
    // activejob/lib/active_job/core.rb) after SolidQueue::Job.enqueue set
    // scheduled_at = Time.current.
    const auto [locale, zone] = store.localeAndZone();
    RecurringStore::NewJob j;
    j.activeJobId = randomUuid();
    Json job = Json::object();
    job.set("job_class", jobClass);
    job.set("job_id", j.activeJobId);
    job.set("provider_job_id", Json());
    job.set("queue_name", queue);
    job.set("priority", priority ? Json(*priority) : Json());
    job.set("arguments", std::move(args));
    job.set("executions", 0);
    job.set("exception_executions", Json::object());
    job.set("locale", locale);
    job.set("timezone", zone);
    job.set("enqueued_at", isoUtc(at));
    job.set("scheduled_at", isoUtc(at));
    // Job.create! (attributes_from_active_job), then after_create
    // prepare_for_execution: due, no concurrency key, so a ready execution;
    // and the run recorded.
    j.queue = queue;
    j.className = jobClass;
    j.arguments = job.dump();
    j.priority = priority.value_or(0);
    j.atText = atText;
    j.taskKey = key;
    out.jobId = store.insert(j);
    return out;
}

} // namespace lq::core::solidqueue
