// SPDX-License-Identifier: MIT
// The writing commands: each presents lq::core::Operator, which fixes the
// targets, applies them chunk by chunk, records them and reports.
#include "commands.h"
#include "output.h"

#include <core/errors.h>
#include <core/formats/queueformat.h>
#include <core/operator.h>
#include <core/timefmt.h>

#include <cstdio>
#include <filesystem>

namespace lq::ctl {

using core::Json;
using core::Message;
using core::Queue;
using core::TimeNs;

namespace {

Json skippedRowsJson(const std::vector<core::SkippedRow>& rows) {
    Json a = Json::array();
    for (const auto& s : rows) {
        Json sj = Json::object();
        sj.set("message_id", s.messageId);
        sj.set("reason", s.reason);
        sj.set("kind", core::skipKindName(s.kind));
        a.push(std::move(sj));
    }
    return a;
}

Json skippedByReasonJson(const core::Report& r) {
    Json j = Json::object();
    for (const auto& [kind, n] : r.skippedByKind())
        j.set(core::skipKindName(kind), static_cast<std::int64_t>(n));
    return j;
}

/// The report's common JSON keys.
void setReportJson(Json& j, const core::Report& r) {
    j.set("record", r.recordId.empty() ? Json() : Json(r.recordId));
    j.set("skipped_by_reason", skippedByReasonJson(r));
    j.set("not_attempted", static_cast<std::int64_t>(r.notAttempted()));
    j.set("cancelled", r.result.cancelled);
    j.set("error", r.result.error.empty() ? Json() : Json(r.result.error));
    Json notes = Json::array();
    for (const auto& a : r.result.applied) {
        if (a.note.empty())
            continue;
        Json n = Json::object();
        n.set("message_id", a.after.messageId.empty() ? a.before.messageId : a.after.messageId);
        n.set("note", a.note);
        notes.push(std::move(n));
    }
    j.set("notes", std::move(notes));
}

/// After the report is printed: a run an error stopped exits with that
/// error's code; a warning about the audit log goes to stderr.
void finish(const Options& o, const core::Report& r) {
    if (!r.auditError.empty() && !r.failed())
        err("lqctl: " + terminalSafe(shownFile(o.file)) +
            ": warning: " + terminalSafe(r.auditError) + "\n");
    if (r.failed()) {
        std::string what = r.result.error;
        if (r.applied() > 0)
            what = "stopped after " + core::groupedNumber(std::int64_t(r.applied())) +
                   " applied (" + core::groupedNumber(std::int64_t(r.notAttempted())) +
                   " not attempted): " + what;
        throw core::Error(*r.result.errorKind, shownFile(o.file), what);
    }
}

void printNotes(const core::Report& r) {
    for (const auto& a : r.result.applied)
        if (!a.note.empty())
            out("  " + terminalSafe(a.after.messageId) + ": " + terminalSafe(a.note) + "\n");
}

/// `retry/delete FILE --error CLASS`: every failed job of one error group
/// (core::groupFailures, as `lqctl errors` shows it), fixed with the tokens
/// they hold now, confirmed with an exact preview, then applied as one
/// recorded, undoable action; a job that changed since is skipped.
int errorGroupAction(core::QueueBackend& q, const Options& o, core::Action a) {
    const std::string& error = *o.errorClass;
    const std::string shown = error.empty() ? std::string("(no error stored)") : error;
    auto group = core::findGroup(q.errorGroups(o.queue), error);
    if (!group)
        throw Refused("no failed job" + (o.queue.empty() ? std::string() : " in queue " + o.queue) +
                      " has error " + terminalSafe(shown) +
                      " (lqctl errors lists the classes); nothing was changed");
    // The record names the group it was made for.
    const core::Plan plan = core::planErrorGroup(q, a, *group, o.queue);
    std::string queues;
    for (const auto& n : group->queues)
        queues += (queues.empty() ? "" : ", ") + terminalSafe(n, 40);
    const std::string what =
        std::string(core::actionName(a)) + " " + core::groupedNumber(group->count) + " failed " +
        (group->count == 1 ? "job" : "jobs") + " with error " + terminalSafe(shown, 120) +
        (queues.empty() ? std::string() : " (queues: " + queues + ")");
    if (!o.json) {
        out(what + "\n");
        out("sample: " + terminalSafe(group->sample.substr(0, group->sample.find('\n')), 160) +
            "\n");
    }
    confirm(o, what + "?", what);
    const core::Report r = q.run(plan, nullptr, {});
    if (o.json) {
        Json j = Json::object();
        j.set("action", core::actionName(a));
        j.set("error_class", error);
        j.set("planned", static_cast<std::int64_t>(plan.count()));
        j.set("applied", static_cast<std::int64_t>(r.applied()));
        j.set("skipped", skippedRowsJson(r.result.skipped));
        setReportJson(j, r);
        printJson(j);
    } else {
        out(r.summary() + (r.recordId.empty() ? "" : "; record " + r.recordId) + "\n");
    }
    finish(o, r);
    return ExitOk;
}

/// The single-message actions. The format says which it offers and what
/// "retry" means (a lease queue releases: run now).
/// On the backend seam: a file, ssh:// or postgresql://.
int singleAction(const Options& o, core::Action a, const char* verb) {
    if (o.errorClass) {
        if (!o.args.empty())
            throw UsageError(std::string(verb) + ": give an ID or --error CLASS, not both");
        auto q = openBackendFor(o, true);
        if (a == core::Action::Retry)
            a = core::QueueFormat::of(q->info()).retryAction();
        requireOffered(*q, a);
        checkQueueOption(o, *q);
        return errorGroupAction(*q, o, a);
    }
    if (o.args.empty())
        throw UsageError(o.command + ": missing ID (or --error CLASS for a whole error group)");
    const std::string& id = requireArg(o, 0);
    auto q = openBackendFor(o, true);
    const core::QueueFormat& format = core::QueueFormat::of(q->info());
    if (a == core::Action::Retry)
        a = format.retryAction();
    requireOffered(*q, a);
    if (a == core::Action::Reschedule && !o.delay)
        throw UsageError("reschedule: --delay SECONDS is required");
    std::int64_t token = 0;
    if (o.claim) {
        token = *o.claim;
    } else {
        // No token from the operator: use the one stored right now. This
        // still guards against a worker finishing between here and the write.
        const auto m = q->get(id);
        if (!m)
            throw Refused("no message with id " + terminalSafe(id));
        token = m->token;
        if (!o.json) {
            out(terminalSafe(id) + ": " + statusText(*m) + ", using " + tokenLabel(q->info()) +
                " " + num(token) + " (read just now; pass --claim to act only on what you saw)\n");
        }
    }
    core::Plan plan = q->planTargets(a, {core::Target{id, token}});
    plan.delay = core::secondsDuration(o.delay.value_or(0));
    const core::Report r = q->run(plan, nullptr, {});

    if (o.json) {
        Json j = Json::object();
        j.set("action", core::actionName(a));
        j.set("message_id", id);
        j.set("token", token);
        j.set("applied", static_cast<std::int64_t>(r.applied()));
        j.set("skipped", skippedRowsJson(r.result.skipped));
        setReportJson(j, r);
        if (r.applied() > 0)
            j.set("message", messageJson(r.result.applied.front().after, q->now(), q->info()));
        printJson(j);
    }
    finish(o, r);
    if (r.applied() == 0) {
        std::string reason = r.result.skipped.empty() ? std::string("nothing changed")
                                                      : r.result.skipped.front().reason;
        // The operator's --claim is not the one the job holds: say which it
        // holds, as the file has it now.
        if (o.claim && !r.result.skipped.empty() &&
            r.result.skipped.front().kind == core::SkipKind::Changed) {
            if (const auto now = q->get(id); now && now->token != *o.claim) {
                const std::string held = now->tokenText && isPlainText(*now->tokenText)
                                             ? terminalSafe(*now->tokenText, 40)
                                             : num(now->token);
                reason = "the claim did not match: job " + id + " holds " + tokenLabel(q->info()) +
                         " " + held + ", not " + num(*o.claim) + " (now " + statusText(*now) +
                         "); nothing was changed";
            }
        }
        throw Refused(terminalSafe(id) + " not " + verb + ": " + terminalSafe(reason));
    }
    if (!o.json) {
        const auto& ar = r.result.applied.front();
        out(terminalSafe(id) + ": " + statusText(ar.before) + " -> " +
            (a == core::Action::Delete ? std::string("deleted") : statusText(ar.after)) + " (" +
            tokenLabel(q->info()) + " " + num(token) + ")\n");
    }
    return ExitOk;
}

} // namespace

int cmdRetry(const Options& o) {
    return singleAction(o, core::Action::Retry, "retried");
}
int cmdFail(const Options& o) {
    return singleAction(o, core::Action::MarkFailed, "marked failed");
}
int cmdRelease(const Options& o) {
    return singleAction(o, core::Action::Release, "released");
}
int cmdReschedule(const Options& o) {
    return singleAction(o, core::Action::Reschedule, "rescheduled");
}
int cmdDelete(const Options& o) {
    return singleAction(o, core::Action::Delete, "deleted");
}

namespace {

/// LOCKED jobs now, the whole file's, as `stats` counts them.
std::int64_t lockedNow(core::QueueBackend& q) {
    return q.counts(core::kDefaultStuckAfterNs, {}).locked;
}

} // namespace

// The commands below run on the backend seam the GUI uses (core/backend.h):
// a local file or ssh://, and a database where its backend offers the action.

int cmdRetryExpired(const Options& o) {
    if (!o.olderThan)
        throw UsageError("retry-expired needs --older-than SECONDS (the lock age that counts as "
                         "expired)");
    auto q = openBackendFor(o, true);
    requireOffered(*q, core::Action::RetryExpired);
    checkQueueOption(o, *q);
    const double threshold = *o.olderThan;
    // The set and the cutoff are fixed here (at --now where given, the
    // backend's clock), and applied in one transaction with a
    // compare-and-swap per row, as retry_expired is atomic.
    const core::Plan plan = q->planRetryExpired(core::secondsDuration(threshold), o.queue);
    core::Report r;
    r.action = core::Action::RetryExpired;
    if (!plan.targets.empty())
        r = q->run(plan, nullptr, {});
    const auto n = static_cast<std::int64_t>(r.applied());
    const std::int64_t lockedAfter = lockedNow(*q);
    if (o.json) {
        Json j = Json::object();
        j.set("older_than_s", threshold);
        j.set("cutoff_ns", plan.cutoff);
        j.set("expired_before", static_cast<std::int64_t>(plan.count()));
        j.set("retried", n);
        j.set("skipped", static_cast<std::int64_t>(r.skipped()));
        j.set("locked_after", lockedAfter);
        setReportJson(j, r);
        printJson(j);
    } else {
        out(plural(n, "message", "messages") + " locked for more than " + secondsText(threshold) +
            " set back to READY (" + num(static_cast<std::int64_t>(plan.count())) +
            " expired before, " + num(lockedAfter) + " still locked)\n");
        if (r.skipped() > 0)
            out(r.summary() + "\n");
    }
    finish(o, r);
    return ExitOk;
}

int cmdPrune(const Options& o) {
    auto q = openBackendFor(o, true);
    requireOffered(*q, core::Action::Prune);
    checkQueueOption(o, *q);
    // The cutoff and the set are fixed here: what finishes while the operator
    // reads the question is not deleted. Without --older-than, the format's
    // own pruner says what and from what age (Oban's Pruner, River's
    // JobCleaner).
    const core::Plan plan = q->planPrune(
        !o.keepFailed,
        o.olderThan ? std::optional(core::secondsDuration(*o.olderThan)) : std::nullopt, o.queue);
    const auto count = static_cast<std::int64_t>(plan.count());
    const std::string library = core::QueueFormat::of(q->info()).pruneText();
    const bool libraryRule = !library.empty() && !o.olderThan;
    std::string what = o.keepFailed ? "DONE" : "DONE and FAILED";
    if (libraryRule)
        what = library + (o.keepFailed ? ", keeping FAILED" : "");
    const std::string cutoff = plan.cutoff && !libraryRule
                                   ? " finished before " + core::isoUtc(*plan.cutoff)
                                   : std::string();

    if (count == 0) {
        if (o.json) {
            Json j = Json::object();
            j.set("matched", 0);
            j.set("pruned", 0);
            j.set("skipped", 0);
            j.set("cutoff_ns", plan.cutoff);
            printJson(j);
        } else {
            out("nothing to prune: no " + (libraryRule ? what : what + " messages" + cutoff) +
                "\n");
        }
        return ExitOk;
    }
    confirm(o,
            "Delete " + core::groupedNumber(count) + (count == 1 ? " message" : " messages") +
                " (" + what + cutoff + ") from " + shownFile(o.file) +
                (o.queue.empty() ? std::string() : ", queue " + terminalSafe(o.queue)) + "?",
            "delete " + plural(count, "message", "messages"));

    const core::Report r = q->run(plan, nullptr, {});
    const auto pruned = static_cast<std::int64_t>(r.applied());
    const auto skipped = static_cast<std::int64_t>(r.skipped());
    if (o.json) {
        Json j = Json::object();
        j.set("matched", count);
        j.set("pruned", pruned);
        j.set("skipped", skipped);
        j.set("cutoff_ns", plan.cutoff);
        setReportJson(j, r);
        printJson(j);
    } else {
        out("pruned " + core::groupedNumber(pruned) + (pruned == 1 ? " message" : " messages"));
        if (skipped > 0 || r.notAttempted() > 0)
            out(" (" + r.summary() + ")");
        out("\n");
    }
    finish(o, r);
    return ExitOk;
}

namespace {

std::string payloadOf(const Options& o) {
    const std::string& arg = requireArg(o, 0);
    if (arg != "-")
        return arg;
    std::string data;
    char buf[65536];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0)
        data.append(buf, n);
    if (std::ferror(stdin))
        throw core::Error(core::ErrorKind::Io, o.file, "could not read the payload from stdin");
    return data;
}

std::shared_ptr<core::QueueBackend> openForPut(const Options& o) {
    if (o.create) {
        if (!core::isLocalPath(o.file))
            throw UsageError("--create takes a local file: create a queue on its host");
        // A new litequeue file, then the queue as every command opens it.
        auto created = Queue::create(o.file, o.maxsize, openOptions(o, true));
        if (created->readOnly())
            throw core::ReadOnly(o.file,
                                 "the queue is read-only: " + created->info().readOnlyReason);
    }
    try {
        return openBackendFor(o, true);
    } catch (const core::Error& e) {
        std::error_code ec;
        if (e.kind() == core::ErrorKind::Io && core::isLocalPath(o.file) &&
            !std::filesystem::exists(o.file, ec)) {
            throw core::Error(core::ErrorKind::Io, o.file,
                              e.detail() + " (pass --create to create a new queue there, or "
                                           "run `lqctl demo FILE` for one with a live "
                                           "workload)");
        }
        throw;
    }
}

} // namespace

int cmdPut(const Options& o) {
    const std::string data = payloadOf(o);
    if (o.maxsize && !o.create)
        throw UsageError("--maxsize only applies with --create");
    auto q = openForPut(o);
    Message m;
    q->enqueue(data, o.key, &m);
    if (o.json)
        printJson(messageJson(m, q->now(), q->info()));
    else
        out(m.messageId + "\n");
    return ExitOk;
}

int cmdVacuum(const Options& o) {
    auto q = openBackendFor(o, true);
    requireOffered(*q, core::Action::Vacuum);
    std::pair<std::int64_t, std::int64_t> sizes;
    const core::Report r = q->vacuum(&sizes);
    const auto [before, after] = sizes;
    if (o.json) {
        Json j = Json::object();
        j.set("before", before);
        j.set("after", after);
        printJson(j);
    } else {
        out(terminalSafe(shownFile(o.file)) + ": " + core::humanBytes(before) + " (" + num(before) +
            " bytes) -> " + core::humanBytes(after) + " (" + num(after) + " bytes)\n");
    }
    finish(o, r);
    return ExitOk;
}

int cmdUpgrade(const Options& o) {
    auto q = openBackendFor(o, true);
    const core::QueueFormat& format = core::QueueFormat::of(q->info());
    const std::string from = format.id();
    const std::string shown = terminalSafe(shownFile(o.file));
    if (format.upgradeState() == core::QueueFormat::UpgradeState::Current) {
        if (o.json) {
            Json j = Json::object();
            j.set("from", from);
            j.set("to", from);
            j.set("upgraded", false);
            printJson(j);
        } else {
            out(shown + ": already " + from + "; nothing to do\n");
        }
        return ExitOk;
    }
    if (const std::string why = q->whyNot(core::Action::Upgrade); !why.empty())
        throw core::Unsupported(o.file, "cannot upgrade: " + why);
    const std::int64_t locked = lockedNow(*q);
    err(std::string("Upgrading ") + shown + " from " + from + " to " + format.upgradeTarget() +
        ".\n" + format.notice(q->info()) +
        "\nStop every worker that uses this queue first: workers of the old "
        "version cannot use the upgraded file" +
        (locked > 0 ? ", and the " + plural(locked, "LOCKED message", "LOCKED messages") +
                          " will be set back to READY (their workers hold no claim id)"
                    : std::string()) +
        ".\n");
    confirm(o, "Upgrade " + shown + "?", "upgrade the file");
    const core::Report r = q->upgrade();
    q.reset();
    const std::string to = core::QueueFormat::of(openBackendFor(o, false)->info()).id();
    if (o.json) {
        Json j = Json::object();
        j.set("from", from);
        j.set("to", to);
        j.set("upgraded", true);
        printJson(j);
    } else {
        out(shown + ": upgraded from " + from + " to " + to + "\n");
    }
    finish(o, r);
    return ExitOk;
}

int cmdUndo(const Options& o) {
    // On the backend seam: a file, ssh:// or postgresql://.
    auto q = openBackendFor(o, true);
    std::optional<core::AuditEntry> rec;
    if (!o.record.empty()) {
        for (auto& e : q->auditEntries())
            if (e.id == o.record)
                rec = std::move(e);
        if (!rec)
            throw Refused("no audit record " + terminalSafe(o.record) +
                          " for this file (see `lqctl audit`); nothing was changed");
        if (rec->undone)
            throw Refused("record " + terminalSafe(o.record) +
                          " is itself an undo; nothing was changed");
        if (!core::isUndoable(rec->action))
            throw Refused(std::string(core::actionName(rec->action)) +
                          " cannot be undone; nothing was changed");
        if (!rec->undoneBy.empty())
            throw Refused("record " + terminalSafe(o.record) + " was already undone by " +
                          terminalSafe(rec->undoneBy) + "; nothing was changed");
    } else {
        rec = q->lastUndoable();
        if (!rec)
            throw Refused("nothing to undo: no undoable action in the audit log of this file");
    }
    const core::Report r = q->undo(*rec, nullptr, {});
    if (o.json) {
        Json j = Json::object();
        j.set("undoes", rec->id);
        j.set("action", core::actionName(rec->action));
        j.set("applied", static_cast<std::int64_t>(r.applied()));
        j.set("skipped", skippedRowsJson(r.result.skipped));
        setReportJson(j, r);
        printJson(j);
    } else {
        out("undo of " + std::string(core::actionName(rec->action)) + " " + terminalSafe(rec->id) +
            " (" + core::isoUtc(rec->when) + "): " + r.summary() + "\n");
        printNotes(r);
        for (const auto& s : r.result.skipped)
            out("  " + terminalSafe(s.messageId) + ": " + terminalSafe(s.reason) + "\n");
    }
    finish(o, r);
    if (r.applied() == 0)
        throw Refused("nothing was restored: every row moved on since the action");
    return ExitOk;
}

int cmdAudit(const Options& o) {
    // The log is kept by path, so a deleted or replaced file's record still reads.
    const core::AuditLog log;
    // A database's records are under its URL without the password.
    const auto records = log.entries(isPostgres(o) ? shownFile(o.file) : absolutePath(o.file));
    if (o.json) {
        Json a = Json::array();
        for (const auto& e : records) {
            Json j = Json::object();
            j.set("id", e.id);
            j.set("time", e.when);
            j.set("time_utc", core::isoUtc(e.when));
            j.set("action", e.actionLabel());
            if (e.undone) {
                j.set("undoes", e.undoes);
                j.set("undone_action", core::actionName(e.action));
            }
            j.set("user", e.user);
            j.set("host", e.host);
            j.set("tool", e.tool);
            j.set("path", e.queuePath);
            j.set("device", static_cast<std::int64_t>(e.device));
            j.set("inode", static_cast<std::int64_t>(e.inode));
            j.set("applied", static_cast<std::int64_t>(e.applied.size()));
            j.set("skipped", e.skipped);
            j.set("not_attempted", e.notAttempted);
            j.set("complete", e.complete);
            j.set("undone_by", e.undoneBy.empty() ? Json() : Json(e.undoneBy));
            j.set("filter", e.filter.empty() ? Json() : Json::parse(e.filter));
            j.set("cutoff_ns", e.cutoff);
            if (!e.note.empty())
                j.set("note", e.note);
            if (!e.error.empty())
                j.set("error", e.error);
            Json ids = Json::array();
            for (const auto& r : e.applied) {
                Json row = Json::object();
                row.set("message_id",
                        r.after.messageId.empty() ? r.before.messageId : r.after.messageId);
                row.set("before", r.before.messageId.empty()
                                      ? Json()
                                      : Json(core::stateName(r.before.state)));
                row.set("after", core::stateName(r.after.state));
                if (e.action == core::Action::Pause || e.action == core::Action::Resume) {
                    // A queue's pause: "paused" or "running", not a job state.
                    row.set("before", r.before.statusText);
                    row.set("after", r.after.statusText);
                }
                ids.push(std::move(row));
            }
            j.set("messages", std::move(ids));
            a.push(std::move(j));
        }
        printJson(a);
        return ExitOk;
    }
    if (records.empty()) {
        out("no audit records for " + terminalSafe(absolutePath(o.file)) + "\n");
        return ExitOk;
    }
    Table t({"time (UTC)", "action", "user@host", "tool", "applied", "skipped", "undone by", "id"},
            {false, false, false, false, true, true, false, false});
    for (const auto& e : records) {
        std::string action = e.actionLabel();
        if (e.undone)
            action += " " + std::string(core::actionName(e.action));
        if (!e.complete)
            action += " (incomplete)";
        t.addRow({core::isoUtc(e.when), action, terminalSafe(e.user + "@" + e.host),
                  terminalSafe(e.tool), core::groupedNumber(std::int64_t(e.applied.size())),
                  core::groupedNumber(e.skipped),
                  terminalSafe(e.undoneBy.empty() ? "-" : e.undoneBy), terminalSafe(e.id)});
    }
    out(t.render());
    return ExitOk;
}

} // namespace lq::ctl
