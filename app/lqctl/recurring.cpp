// SPDX-License-Identifier: MIT
// `lqctl recurring FILE`: the recurring tasks the file records, with the
// last run, the next by the schedule as the library reads it, and the runs
// missed since the last (core/recurring.h, core/cron.h).
#include "commands.h"
#include "output.h"

#include <core/recurring.h>
#include <core/timefmt.h>

namespace lq::ctl {

using core::Json;
using core::Queue;
using core::TimeNs;

namespace {

Json orNull(const std::string& s) {
    return s.empty() ? Json() : Json(s);
}

} // namespace

template <class Q> int cmdRecurringOn(const Options& o) {
    auto q = openAs<Q>(o, false);
    const TimeNs now = o.now ? *o.now : q->now();
    const core::RecurringList list = q->recurringTasks(now, o.tzOffset);
    if (o.json) {
        Json arr = Json::array();
        for (const auto& t : list.tasks) {
            Json j = Json::object();
            j.set("key", t.key);
            j.set("schedule", t.schedule);
            j.set("class", orNull(t.className));
            j.set("command", orNull(t.command));
            j.set("queue", orNull(t.queue));
            j.set("priority", t.priority);
            j.set("static", t.isStatic);
            j.set("last_run_ns", t.lastRunNs ? Json(*t.lastRunNs) : Json());
            j.set("next_run_ns", t.nextRunNs ? Json(*t.nextRunNs) : Json());
            j.set("missed", t.missed);
            j.set("why", orNull(t.why));
            arr.push(std::move(j));
        }
        Json top = Json::object();
        top.set("tasks", std::move(arr));
        top.set("missed_rule", orNull(list.missedRule));
        top.set("not_stored", orNull(list.notStored));
        printJson(top);
        return ExitOk;
    }
    if (!list.notStored.empty()) {
        out(terminalSafe(list.notStored) + "\n");
        return ExitOk;
    }
    if (list.tasks.empty()) {
        out("no recurring tasks recorded\n");
        return ExitOk;
    }
    Table t({"KEY", "SCHEDULE", "CLASS", "QUEUE", "LAST RUN", "NEXT RUN", "MISSED"},
            {false, false, false, false, true, true, true});
    for (const auto& task : list.tasks) {
        const std::string what = !task.className.empty() ? task.className
                                 : !task.command.empty() ? task.command
                                                         : std::string("-");
        t.addRow({terminalSafe(task.key, 40), terminalSafe(task.schedule, 40),
                  terminalSafe(what, 40),
                  task.queue.empty() ? std::string("-") : terminalSafe(task.queue, 30),
                  relativeTime(task.lastRunNs, now),
                  task.nextRunNs ? relativeTime(task.nextRunNs, now) : std::string("?"),
                  num(task.missed)});
    }
    out(t.render());
    out("missed: " + terminalSafe(list.missedRule) + "\n");
    for (const auto& task : list.tasks)
        if (!task.why.empty())
            out("warning: " + terminalSafe(task.key, 40) + ": " + terminalSafe(task.why) + "\n");
    return ExitOk;
}

int cmdRecurring(const Options& o) {
    return isRemote(o) ? cmdRecurringOn<core::remote::RemoteQueue>(o) : cmdRecurringOn<Queue>(o);
}

} // namespace lq::ctl
