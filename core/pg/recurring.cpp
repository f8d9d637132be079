// SPDX-License-Identifier: MIT
// Solid Queue's Run now on PostgreSQL (core/pg/recurring.h): the reads and
// writes of RecurringTask#enqueue(at: now) in PostgreSQL's dialect, behind
// the store whose decisions solidqueue::runRecurring() makes for both
// engines; and its undo, which deletes the job while it is still ready.
// And the recurring tasks of pg-boss and Graphile Worker, read only
// (readLibraryRecurring).
#include "recurring.h"

#include "../cron.h"
#include "../formats/solidqueue_ops.h"
#include "../json.h"
#include "../timefmt.h"
#include "actions_p.h"
#include "catalog.h"
#include "connection.h"
#include "counts.h"
#include "list.h"

#include <algorithm>

namespace lq::core::pg {

namespace {

using detail::changed;
using detail::qualifiedTable;

/// How many of a class's latest jobs are looked at for one whose arguments
/// are JSON (SQLite's json_valid() filter; PostgreSQL 15 has none, and a
/// cast of bad text to json fails the statement).
constexpr int kLatestJobs = 100;

class PgRecurring final : public solidqueue::RecurringStore {
public:
    explicit PgRecurring(const ChunkContext& x)
        : m_x(x)
        , m_jobs(qualifiedTable(x, "solid_queue_jobs"))
        , m_runs(x.lib.has("solid_queue_recurring_executions")) {}

    std::optional<Task> task(const std::string& key) const override {
        const Result r = m_x.c.exec("SELECT schedule, class_name, command, arguments, "
                                    "queue_name, priority FROM " +
                                        qualifiedTable(m_x, "solid_queue_recurring_tasks") +
                                        " WHERE key = $1 FOR UPDATE",
                                    {key});
        if (r.rows() == 0)
            return std::nullopt;
        Task t;
        t.schedule = r.text(0, 0);
        t.className = r.text(0, 1);
        t.command = r.text(0, 2);
        t.arguments = r.isNull(0, 3) ? std::string("[]") : r.text(0, 3);
        t.queue = r.text(0, 4);
        if (!r.isNull(0, 5))
            t.priority = r.int64(0, 5);
        return t;
    }

    ClassJobs latestOfClass(const std::string& className) const override {
        ClassJobs j;
        const Result r = m_x.c.exec("SELECT queue_name, arguments FROM " + m_jobs +
                                        " WHERE class_name = $1 ORDER BY id DESC LIMIT " +
                                        std::to_string(kLatestJobs),
                                    {className});
        for (int i = 0; i < r.rows() && !j.seen; ++i) {
            const auto args = parsed(r.text(i, 1));
            if (!args)
                continue;
            j.seen = true;
            j.queue = r.text(i, 0);
            if ((*args)["priority"].isNumber())
                j.priority = (*args)["priority"].toInt();
        }
        j.concurrencyKey = m_x.c
                               .exec("SELECT 1 FROM " + m_jobs +
                                         " WHERE class_name = $1 AND concurrency_key IS NOT NULL "
                                         "LIMIT 1",
                                     {className})
                               .rows() > 0;
        return j;
    }

    bool runRecorded(const std::string& key, const std::string& atText) const override {
        return m_runs && m_x.c.exec("SELECT 1 FROM " +
                                        qualifiedTable(m_x, "solid_queue_recurring_executions") +
                                        " WHERE task_key = $1 AND run_at = $2::timestamp",
                                    {key, atText})
                                 .rows() > 0;
    }

    std::pair<std::string, std::string> localeAndZone() const override {
        std::pair<std::string, std::string> out{"en", "UTC"};
        const Result r = m_x.c.exec("SELECT arguments FROM " + m_jobs + " ORDER BY id DESC LIMIT " +
                                    std::to_string(kLatestJobs));
        for (int i = 0; i < r.rows(); ++i) {
            const auto args = parsed(r.text(i, 0));
            if (!args)
                continue;
            if ((*args)["locale"].isString())
                out.first = (*args)["locale"].toString();
            if ((*args)["timezone"].isString())
                out.second = (*args)["timezone"].toString();
            break;
        }
        return out;
    }

    std::string insert(const NewJob& j) const override {
        const Result job = m_x.c.exec(
            "INSERT INTO " + m_jobs +
                " (queue_name, class_name, arguments, priority, active_job_id, scheduled_at, "
                "finished_at, concurrency_key, created_at, updated_at) VALUES ($1, $2, $3, "
                "$4::integer, $5, $6::timestamp, NULL, NULL, $6::timestamp, $6::timestamp) "
                "RETURNING id",
            {j.queue, j.className, j.arguments, std::to_string(j.priority), j.activeJobId,
             j.atText});
        std::string id = job.text(0, 0);
        m_x.c.exec("INSERT INTO " + qualifiedTable(m_x, "solid_queue_ready_executions") +
                       " (job_id, queue_name, priority, created_at) VALUES ($1::bigint, $2, "
                       "$3::integer, $4::timestamp)",
                   {id, j.queue, std::to_string(j.priority), j.atText});
        if (m_runs)
            m_x.c.exec("INSERT INTO " + qualifiedTable(m_x, "solid_queue_recurring_executions") +
                           " (job_id, task_key, run_at, created_at) VALUES ($1::bigint, $2, "
                           "$3::timestamp, $3::timestamp)",
                       {id, j.taskKey, j.atText});
        return id;
    }

private:
    static std::optional<Json> parsed(const std::string& text) {
        try {
            return Json::parse(text);
        } catch (const std::exception&) {
            return std::nullopt;
        }
    }

    const ChunkContext& m_x;
    std::string m_jobs;
    bool m_runs;
};

std::optional<Message> readOne(const ChunkContext& x, const std::string& id) {
    const auto n = std::stoll(id);
    auto v = readJobs(x.c, x.lib, {n}, x.now);
    if (v.empty())
        return std::nullopt;
    return std::move(v.front());
}

// pg-boss's schedules. Read in timgit/pg-boss@55ee32f66f0b (12.27.0):
// src/timekeeper.ts:178-200 (cron, shouldSendIt): every cron monitor tick
// (30 s by default) the timekeeper fires each schedule whose latest time by
// cron-parser in its `timezone` is less than 60 s old, as one job of the
// queue `__pgboss__send-it` (:11-13) with data {name, data, options},
// singletonKey `${name}__${key}` and singletonSeconds 60; :202-211
// (onSendIt) then sends that data into queue `name`, untagged (the job in
// `name` cannot be told from the app's own sends). So the record of a fire
// is the send-it job: its singleton_on is the 60-second slot it fired in
// (src/plans.ts:1703-1706, insertJobs: floor(now / 60) * 60), which for a
// five-field cron is the scheduled minute itself. pg-boss 10 to 11.1.0 set
// singletonKey to `name` alone (eaec51e4036, 11.1.1), read here for the
// schedule without a key; pg-boss 10 had no `key` column. A missed time is
// not caught up (prevDiff < 60). The send-it jobs go with the queue's
// deletion_seconds (7 days by default) after they finish: past that, and
// when no timekeeper ever ran, there is no last run. `timezone` defaults to
// 'UTC' (timekeeper.ts:230-248, schedule()), which rewrites updated_on on
// each call (plans.ts:903-914).

/// The missed-runs rule of pg-boss's schedules, in words.
constexpr const char* kPgBossMissedRule =
    "scheduled times after the later of the last fire (the newest __pgboss__send-it job of the "
    "schedule) and the schedule's updated_on, up to a minute before now (pg-boss's timekeeper "
    "fires a time only within 60 s of it and does not catch up)";

/// `cron "CRON" WHAT`.
std::string quotedCron(const std::string& cron, const char* what) {
    std::string s = "cron \"";
    s += cron;
    s += "\" ";
    s += what;
    return s;
}

/// One schedule row's next run and missed runs, by core/cron.h in the
/// zone pg-boss evaluates it in.
void schedulePgBoss(RecurringTask& t, const std::optional<std::string>& zone,
                    std::optional<TimeNs> updated, TimeNs now, int tzOffset) {
    std::optional<int> offset;
    if (!zone)
        offset = tzOffset; // as a schedule that names no zone
    else if (!(offset = cron::fixedZoneOffset(*zone))) {
        t.why = "time zone ";
        t.why += *zone;
        t.why += " is not evaluated here (only UTC and fixed offsets such as +09:00 or "
                 "Etc/GMT-9; pg-boss reads it from the IANA time zone database)";
        return;
    }
    std::string why;
    const std::optional<cron::Schedule> s = cron::parse(t.schedule, &why);
    if (!s) {
        t.why = why.empty() ? quotedCron(t.schedule, "is not read here") : why;
        return;
    }
    t.nextRunNs = s->next(now, *offset);
    if (!t.nextRunNs)
        t.why = quotedCron(t.schedule, "has no time in the next 30 years");
    std::optional<TimeNs> anchor = updated;
    if (t.lastRunNs && (!anchor || *t.lastRunNs > *anchor))
        anchor = t.lastRunNs;
    if (anchor)
        t.missed = s->countBetween(*anchor, now - kRecurringGraceNs, *offset);
}

RecurringList pgBossSchedules(Connection& c, const Found& lib, TimeNs now, int tzOffset) {
    RecurringList out;
    if (!lib.has("schedule")) {
        out.notStored = "this pg-boss schema has no schedule table: no schedules are stored";
        return out;
    }
    out.missedRule = kPgBossMissedRule;
    const auto query = [&](const std::string& key) {
        std::string sql = "SELECT s.name, ";
        sql += key;
        sql += ", s.cron, s.timezone, s.data::text, s.options::text, ";
        sql += ns("s.updated_on");
        sql += ", (SELECT max(coalesce(";
        sql += ns("j.singleton_on");
        sql += ", ";
        sql += ns("j.created_on");
        sql += ")) FROM ";
        sql += qualified(lib, "job");
        sql += " j WHERE j.name = $1 AND (j.singleton_key = s.name || '__' || ";
        sql += key;
        sql += " OR (";
        sql += key;
        sql += " = '' AND j.singleton_key = s.name))) FROM ";
        sql += qualified(lib, "schedule");
        sql += " s ORDER BY s.name COLLATE \"C\", ";
        sql += key;
        sql += " COLLATE \"C\"";
        return c.exec(sql, {std::string(kPgBossSendIt)});
    };
    const Result r = [&] {
        try {
            return query("s.key");
        } catch (const Error&) {
            return query("''::text"); // before pg-boss 11: one schedule per queue
        }
    }();
    for (int i = 0; i < r.rows(); ++i) {
        RecurringTask t;
        const std::string name = r.text(i, 0);
        const std::string key = r.text(i, 1);
        t.key = name;
        if (!key.empty()) {
            t.key += ':';
            t.key += key;
        }
        t.schedule = r.text(i, 2);
        t.queue = name;
        t.isStatic = false; // boss.schedule() at runtime
        if (!r.isNull(i, 4)) {
            t.description = "data ";
            t.description += r.text(i, 4);
        }
        if (!r.isNull(i, 5)) {
            try {
                const Json options = Json::parse(r.text(i, 5));
                if (options.isObject() && options["priority"].isInt())
                    t.priority = options["priority"].toInt();
            } catch (const std::exception&) {
                // jsonb is JSON; nothing else to read
            }
        }
        if (!r.isNull(i, 7))
            t.lastRunNs = r.int64(i, 7);
        schedulePgBoss(t, r.optText(i, 3),
                       r.isNull(i, 6) ? std::nullopt : std::optional(r.int64(i, 6)), now, tzOffset);
        out.tasks.push_back(std::move(t));
    }
    return out;
}

// Graphile Worker's crontab. Read in graphile/worker@abfb4cff3074
// src/cron.ts: the crontab items come from the app's crontab file or
// options, never the database; the database keeps one
// `_private_known_crontabs` row per item identifier (:225-236, known_since
// when first seen) whose last_execution is set to `ts` each time the item
// fires (:122-188, scheduleCronJobs; the same statement adds its job), `ts`
// being the scheduled minute (:413, :438-441; backfills :250-298 too).

/// Why a Graphile Worker crontab item has no next run.
constexpr const char* kGraphileWhy =
    "schedule kept in the app's crontab file, not in the database: no next run";

RecurringList graphileCrontabs(Connection& c, const Found& lib) {
    RecurringList out;
    std::string table;
    if (lib.has("_private_known_crontabs")) {
        table = qualified(lib, "_private_known_crontabs");
    } else { // before the tables were made _private_
        std::string legacy = quoteIdent(lib.schema);
        legacy += ".known_crontabs";
        if (c.exec("SELECT to_regclass($1) IS NOT NULL", {legacy}).boolean(0, 0))
            table = std::move(legacy);
    }
    if (table.empty()) {
        out.notStored = "this Graphile Worker schema has no known_crontabs table: its worker has "
                        "not run a crontab";
        return out;
    }
    out.missedRule = "not counted: Graphile Worker's crontab is kept in the app's crontab file, "
                     "not in the database";
    std::string sql = "SELECT identifier, ";
    sql += ns("known_since");
    sql += ", ";
    sql += ns("last_execution");
    sql += " FROM ";
    sql += table;
    sql += " ORDER BY identifier COLLATE \"C\"";
    const Result r = c.exec(sql);
    for (int i = 0; i < r.rows(); ++i) {
        RecurringTask t;
        t.key = r.text(i, 0);
        t.isStatic = true; // the app's crontab
        std::string since = isoUtc(r.int64(i, 1));
        if (const auto frac = since.find(".000000000Z"); frac != std::string::npos)
            since.replace(frac, std::string::npos, "Z"); // a whole second
        t.description = "known to Graphile Worker since ";
        t.description += since;
        if (!r.isNull(i, 2))
            t.lastRunNs = r.int64(i, 2);
        t.why = kGraphileWhy;
        out.tasks.push_back(std::move(t));
    }
    return out;
}

/// GoodJob's cron entries as its jobs record them: each job its
/// CronManager enqueued carries the entry's `cron_key` and the scheduled
/// `cron_at`; the entry's last run is its newest job's cron_at (else its
/// created_at), as GoodJob::CronEntry#last_job_at reads it, and an entry
/// turned off in the dashboard is in the `cron_keys_disabled` setting
/// (bensheldon/good_job@81db22b7 app/models/good_job/cron_entry.rb,
/// app/models/good_job/setting.rb). The schedule itself is the app's
/// config.good_job.cron: no next run, no missed count.
RecurringList goodJobCron(Connection& c, const Found& lib) {
    RecurringList out;
    out.missedRule = "not counted: GoodJob's cron schedule is kept in the app's configuration "
                     "(config.good_job.cron), not in the database";
    std::string sql = "SELECT DISTINCT ON (cron_key) cron_key, ";
    sql += ns("coalesce(cron_at, created_at)");
    sql += ", coalesce(job_class, serialized_params->>'job_class'), queue_name, "
           "coalesce(priority, 0)::bigint, ";
    if (lib.has("good_job_settings")) {
        sql += "EXISTS (SELECT 1 FROM ";
        sql += qualified(lib, "good_job_settings");
        sql += " s WHERE s.key = 'cron_keys_disabled' AND s.value ? j.cron_key)";
    } else {
        sql += "false";
    }
    sql += " FROM ";
    sql += qualified(lib, "good_jobs");
    sql += " j WHERE cron_key IS NOT NULL ORDER BY cron_key, cron_at DESC NULLS LAST, created_at "
           "DESC";
    const Result r = c.exec(sql);
    for (int i = 0; i < r.rows(); ++i) {
        RecurringTask t;
        t.key = r.text(i, 0);
        t.lastRunNs = r.int64(i, 1);
        t.className = r.text(i, 2);
        t.queue = r.text(i, 3);
        t.priority = r.int64(i, 4);
        t.isStatic = true; // the app's configuration
        if (r.boolean(i, 5))
            t.description = "disabled in GoodJob's dashboard (the cron_keys_disabled setting)";
        t.why = "schedule kept in the app's configuration (config.good_job.cron), not in the "
                "database: no next run";
        out.tasks.push_back(std::move(t));
    }
    // By bytes, as on SQLite, whatever the database's collation.
    std::sort(out.tasks.begin(), out.tasks.end(),
              [](const RecurringTask& a, const RecurringTask& b) { return a.key < b.key; });
    return out;
}

} // namespace

std::optional<RecurringList> readLibraryRecurring(Connection& c, const Found& lib, TimeNs now,
                                                  int tzOffset) {
    if (lib.library == "good-job")
        return goodJobCron(c, lib);
    if (lib.library == "pg-boss")
        return pgBossSchedules(c, lib, now, tzOffset);
    if (lib.library == "graphile-worker")
        return graphileCrontabs(c, lib);
    return std::nullopt;
}

void runRecurringChunk(const ChunkContext& x, const std::string& key, ActionResult& r) {
    if (x.lib.library != "solid-queue")
        throw Unsupported(x.c.display(), "run now of " + libraryName(x.lib.library) +
                                             " recurring tasks on PostgreSQL: not yet (issue 41)");
    const FormatDriver::RecurringRun run = solidqueue::runRecurring(PgRecurring(x), key, x.now);
    if (!run.why.empty()) {
        r.skipped.push_back({key, run.why, run.kind});
        return;
    }
    const std::optional<Message> job = readOne(x, run.jobId);
    if (!job) // rolls the chunk back: nothing unread is committed
        throw Error(ErrorKind::Io, x.c.display(),
                    "job " + run.jobId + " was written but cannot be read back");
    r.applied.push_back({*job, *job, "run of recurring task " + key});
}

void undoRunRecurringRow(const ChunkContext& x, const AppliedRow& row, ActionResult& r) {
    const std::string& id = row.after.messageId;
    const std::optional<Message> current = readOne(x, id);
    if (!current) {
        r.skipped.push_back({id, "deleted since enqueued", SkipKind::Gone});
        return;
    }
    if (current->token != row.after.token || current->state != State::Ready) {
        r.skipped.push_back(
            {id, std::string("claimed or changed since enqueued: now ") + stateName(current->state),
             SkipKind::Changed});
        return;
    }
    // Its ready execution taken, never waited for: a worker claiming it
    // right now wins. The job's recurring run goes with it (ON DELETE
    // CASCADE), as Job#discard takes it.
    x.c.exec("SAVEPOINT lq_row");
    const std::string ready = qualifiedTable(x, "solid_queue_ready_executions");
    const bool taken = changed(x,
                               "DELETE FROM " + ready + " WHERE id IN (SELECT id FROM " + ready +
                                   " WHERE job_id = $1::bigint FOR UPDATE SKIP LOCKED) "
                                   "RETURNING id",
                               {id}) == 1 &&
                       changed(x,
                               "DELETE FROM " + qualifiedTable(x, "solid_queue_jobs") +
                                   " WHERE id = $1::bigint AND finished_at IS NULL RETURNING id",
                               {id}) == 1;
    x.c.exec(taken ? "RELEASE SAVEPOINT lq_row" : "ROLLBACK TO SAVEPOINT lq_row");
    if (taken)
        r.applied.push_back({*current, *current, {}});
    else
        r.skipped.push_back({id, std::string(detail::kInUse), SkipKind::Changed});
}

RecurringList readRecurring(Connection& c, const Found& lib, const FormatInfo& info, TimeNs now,
                            int tzOffset) {
    if (auto other = readLibraryRecurring(c, lib, now, tzOffset))
        return std::move(*other); // pg-boss's schedules, Graphile Worker's crontab
    if (lib.library != "solid-queue") {
        RecurringList l;
        l.notStored = "the recurring tasks of " + libraryName(lib.library) +
                      " on PostgreSQL: not read yet (issue 41)";
        return l;
    }
    RecurringList out = solidqueue::recurringList(info);
    if (!out.notStored.empty())
        return out;
    const bool runs = lib.has("solid_queue_recurring_executions");
    const std::string last = runs ? "(SELECT " + ns("max(run_at)") + " FROM " +
                                        qualified(lib, "solid_queue_recurring_executions") +
                                        " e WHERE e.task_key = t.key)"
                                  : std::string("NULL");
    const Result r =
        c.exec("SELECT key, schedule, class_name, command, queue_name, priority, "
               "static, description, " +
               ns("created_at") + ", " + ns("updated_at") + ", " + last + " FROM " +
               qualified(lib, "solid_queue_recurring_tasks") + " t ORDER BY key COLLATE \"C\"");
    const auto opt = [&](int i, int col) {
        return r.isNull(i, col) ? std::nullopt : std::optional<TimeNs>(r.int64(i, col));
    };
    for (int i = 0; i < r.rows(); ++i) {
        RecurringTask t;
        t.key = r.text(i, 0);
        t.schedule = r.text(i, 1);
        t.className = r.text(i, 2);
        t.command = r.text(i, 3);
        t.queue = r.text(i, 4);
        t.priority = r.isNull(i, 5) ? 0 : r.int64(i, 5);
        t.isStatic = r.isNull(i, 6) || r.boolean(i, 6);
        t.description = r.text(i, 7);
        t.lastRunNs = opt(i, 10);
        solidqueue::scheduleTask(t, opt(i, 8), opt(i, 9), now, tzOffset);
        out.tasks.push_back(std::move(t));
    }
    return out;
}

} // namespace lq::core::pg
