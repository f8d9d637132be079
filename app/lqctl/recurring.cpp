// SPDX-License-Identifier: MIT
// `lqctl recurring FILE`: the recurring tasks the file records, with the
// last run, the next by the schedule as the library reads it, and the runs
// missed since the last (core/recurring.h, core/cron.h). `--run KEY`
// enqueues one task's job now as the library's own "run now" does
// (core::Operator::runRecurring), recorded and undoable; asks first.
#include "commands.h"
#include "output.h"

#include <core/formats/queueformat.h>
#include <core/recurring.h>
#include <core/timefmt.h>

#include <algorithm>

namespace lq::ctl {

using core::Json;
using core::TimeNs;

namespace {

Json orNull(const std::string& s) {
    return s.empty() ? Json() : Json(s);
}

/// What a task enqueues, in words: its class, or the command it runs.
std::string taskWhat(const core::RecurringTask& t) {
    return !t.className.empty() ? t.className
           : !t.command.empty() ? "command " + t.command
                                : std::string("-");
}

int runTaskNow(const Options& o) {
    auto q = openBackendFor(o, true);
    const core::Action a = core::Action::RunRecurring;
    requireOffered(*q, a);
    const core::RecurringList list = q->recurringTasks(o.tzOffset);
    const auto task =
        std::find_if(list.tasks.begin(), list.tasks.end(),
                     [&](const core::RecurringTask& t) { return t.key == o.runTask; });
    if (task == list.tasks.end())
        throw Refused("no recurring task \"" + terminalSafe(o.runTask, 80) + "\" in " +
                      terminalSafe(o.file) +
                      " (lqctl recurring FILE lists them); nothing was changed");
    confirm(o,
            "Run recurring task " + terminalSafe(task->key, 80) + " now (" +
                terminalSafe(taskWhat(*task), 80) + ") in " + terminalSafe(o.file) +
                "? Its job is enqueued as the library's own run now does.",
            "run recurring task " + terminalSafe(task->key, 80));
    const core::Report r = q->runRecurring(o.runTask);
    const core::Message* job = r.applied() > 0 ? &r.result.applied.front().after : nullptr;
    if (o.json) {
        Json j = Json::object();
        j.set("task", o.runTask);
        j.set("action", core::actionName(a));
        j.set("applied", static_cast<std::int64_t>(r.applied()));
        j.set("job_id", job ? Json(job->messageId) : Json());
        j.set("class", job && job->jobName ? Json(*job->jobName) : Json());
        j.set("queue", job && job->queueName ? Json(*job->queueName) : Json());
        j.set("record", r.recordId.empty() || !job ? Json() : Json(r.recordId));
        Json skipped = Json::array();
        for (const auto& sk : r.result.skipped) {
            Json sj = Json::object();
            sj.set("task", sk.messageId);
            sj.set("reason", sk.reason);
            sj.set("kind", core::skipKindName(sk.kind));
            skipped.push(std::move(sj));
        }
        j.set("skipped", std::move(skipped));
        j.set("error", r.result.error.empty() ? Json() : Json(r.result.error));
        printJson(j);
    } else if (job) {
        out("enqueued job " + terminalSafe(job->messageId) + " (" +
            terminalSafe(job->jobName.value_or("?"), 80) + ", queue " +
            terminalSafe(job->queueName.value_or("?"), 80) + ") for recurring task " +
            terminalSafe(o.runTask, 80) + " (record " + terminalSafe(r.recordId) +
            "; lqctl undo deletes it while no worker has claimed it)\n");
    }
    if (!r.auditError.empty() && !r.failed())
        err("lqctl: " + terminalSafe(o.file) + ": warning: " + terminalSafe(r.auditError) + "\n");
    if (r.failed())
        throw core::Error(*r.result.errorKind, o.file, r.result.error);
    if (!job) {
        const std::string why =
            r.result.skipped.empty() ? std::string("no change") : r.result.skipped.front().reason;
        throw Refused("recurring task " + terminalSafe(o.runTask, 80) + ": " + terminalSafe(why) +
                      "; nothing was changed");
    }
    return ExitOk;
}

} // namespace

int cmdRecurring(const Options& o) {
    if (!o.runTask.empty())
        return runTaskNow(o);
    auto q = openBackendFor(o, false);
    const TimeNs now = q->now();
    const core::RecurringList list = q->recurringTasks(o.tzOffset);
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

} // namespace lq::ctl
