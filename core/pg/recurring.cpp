// SPDX-License-Identifier: MIT
// Solid Queue's Run now on PostgreSQL (core/pg/recurring.h): the reads and
// writes of RecurringTask#enqueue(at: now) in PostgreSQL's dialect, behind
// the store whose decisions solidqueue::runRecurring() makes for both
// engines; and its undo, which deletes the job while it is still ready.
#include "recurring.h"

#include "../formats/solidqueue_ops.h"
#include "../json.h"
#include "actions_p.h"
#include "catalog.h"
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

} // namespace

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

} // namespace lq::core::pg
