// SPDX-License-Identifier: MIT
// Solid Queue's recurring tasks (rails/solid_queue@29e818d9c118
// app/models/solid_queue/recurring_task.rb, recurring_execution.rb): the
// rows its scheduler keeps in solid_queue_recurring_tasks, the last run
// each recorded (RecurringTask#last_enqueued_time: the greatest run_at of
// its executions), the next by its schedule as Fugit reads it (core/cron.h)
// and the runs missed since (docs/FORMATS.md#solid-queue).
#include "solidqueue_ops.h"

#include "../cron.h"
#include "solidqueue_text.h"

#include <algorithm>

namespace lq::core::solidqueue {

namespace {

bool hasTable(const FormatInfo& info, const char* table) {
    return std::find(info.columns.begin(), info.columns.end(), table) != info.columns.end();
}

} // namespace

RecurringList recurringTasks(Connection& c, const FormatInfo& info, TimeNs now, int tzOffset) {
    RecurringList out;
    if (!hasTable(info, "solid_queue_recurring_tasks")) {
        out.notStored = "this Solid Queue file has no solid_queue_recurring_tasks table (Solid "
                        "Queue before 0.5 kept recurring tasks in its configuration only)";
        return out;
    }
    out.missedRule = "scheduled times after the later of the last run and the task's "
                     "updated_at, up to a minute before now (the scheduler does not catch up)";
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
        const std::optional<TimeNs> created = storedRailsTime(st, 8);
        const std::optional<TimeNs> updated = storedRailsTime(st, 9);
        t.lastRunNs = storedRailsTime(st, 10);
        std::string why;
        const std::optional<cron::Schedule> s = cron::parse(t.schedule, &why);
        if (!s) {
            t.why = why;
            out.tasks.push_back(std::move(t));
            continue;
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
        out.tasks.push_back(std::move(t));
    }
    return out;
}

} // namespace lq::core::solidqueue
