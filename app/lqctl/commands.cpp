// SPDX-License-Identifier: MIT
#include "commands.h"
#include "output.h"

#include <core/audit.h>
#include <core/fleet.h>
#include <core/timefmt.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace lq::ctl {

using core::Json;
using core::Message;
using core::Queue;
using core::TimeNs;

namespace {

std::string absolutePath(const std::string& path) {
    std::error_code ec;
    auto p = std::filesystem::absolute(path, ec);
    return ec ? path : p.lexically_normal().string();
}

std::string num(std::int64_t v) {
    return std::to_string(v);
}

std::string plural(std::int64_t n, const char* one, const char* many) {
    return num(n) + ' ' + (n == 1 ? one : many);
}

std::string secondsText(double s) {
    return core::humanDuration(core::secondsToNs(s));
}

void printJson(const Json& j) {
    out(j.dump(2));
    out("\n");
}

/// Asks on a terminal; without one, refuses unless --yes was given.
void confirm(const Options& o, const std::string& question, const std::string& what) {
    if (o.yes)
        return;
    if (!isatty(STDIN_FILENO)) {
        throw Refused("refusing to " + what +
                      " without --yes: stdin is not a terminal, so nobody can confirm. "
                      "Nothing was changed.");
    }
    err(question + " [y/N] ");
    std::string line;
    if (!std::getline(std::cin, line))
        throw Refused("not confirmed; nothing was changed");
    if (line != "y" && line != "Y" && line != "yes" && line != "YES")
        throw Refused("cancelled; nothing was changed");
}

core::Filter filterFrom(const Options& o) {
    core::Filter f;
    f.states = o.states;
    f.stuckOnly = o.stuckOnly;
    if (o.stuckOnly && f.states.empty())
        f.states = {core::State::Locked};
    f.stuckAfterNs = o.stuckAfterNs();
    f.search = o.search;
    f.olderThanSeconds = o.olderThan;
    f.now = o.now;
    return f;
}

std::string tokenLabel(core::Format f) {
    switch (f) {
    case core::Format::LitequeueLegacy:
        return "lock_time token";
    case core::Format::JobsLease:
        return "attempts";
    default:
        return "claim";
    }
}

std::string instantText(const std::optional<TimeNs>& t) {
    if (!t)
        return "-";
    return core::isoUtc(*t) + "  (" + num(*t) + ")";
}

void printMessagePlain(const Message& m, const core::FormatInfo& info, TimeNs now) {
    Table t({"field", "value"});
    t.addRow({"message_id", terminalSafe(m.messageId)});
    t.addRow({"status", statusText(m)});
    if (info.hasClaimId)
        t.addRow({"claim_id", num(m.claimId)});
    t.addRow({"token", num(m.token) + "  (" + tokenLabel(info.format) + ")"});
    if (info.hasIdempotencyKey) {
        t.addRow({"idempotency_key",
                  m.idempotencyKey ? terminalSafe(*m.idempotencyKey) : std::string("-")});
    }
    t.addRow({"in_time", instantText(m.inTime)});
    t.addRow({"lock_time", instantText(m.lockTime)});
    t.addRow({"done_time", instantText(m.doneTime)});
    if (info.format == core::Format::JobsLease) {
        t.addRow({"run_at", instantText(m.runAt)});
        t.addRow({"locked_until", instantText(m.lockedUntil)});
        t.addRow({"attempts", num(m.attempts)});
    }
    t.addRow({"wait", durationOrDash(m.waitNs())});
    t.addRow({"processing", durationOrDash(m.processingNs())});
    t.addRow({"age", durationOrDash(m.ageNs(now))});
    std::string r = t.render();
    // Drop the header row: a key/value listing needs none.
    r.erase(0, r.find('\n') + 1);
    out(r);
    std::string kind =
        m.dataIsBlob ? "BLOB" : (core::isValidUtf8(m.data) ? "text" : "invalid UTF-8");
    out("data (" + plural(static_cast<std::int64_t>(m.data.size()), "byte", "bytes") + ", " + kind +
        "):\n");
    out(terminalSafe(m.data, std::string_view::npos, true));
    out("\n");
}

std::string countsLine(const core::Counts& c, const core::FormatInfo& info,
                       double stuckAfterSeconds) {
    if (info.format == core::Format::JobsLease) {
        // Derived states (SPEC §3.3); finished jobs are deleted, so no history.
        return num(c.ready) + " ready, " + num(c.scheduled) + " scheduled, " + num(c.leased) +
               " leased, " + num(c.expired) + " expired (lease lapsed); " + num(c.stored) +
               " stored";
    }
    std::string s = num(c.ready) + " ready, " + num(c.locked) + " locked";
    if (c.stuck > 0)
        s += " (" + num(c.stuck) + " stuck > " + secondsText(stuckAfterSeconds) + ")";
    s += ", " + num(c.done) + " done, " + num(c.failed) + " failed";
    if (c.unknown > 0)
        s += ", " + num(c.unknown) + " unknown";
    s += "; " + num(c.stored) + " stored";
    return s;
}

/// "in 5 m 0 s" / "3 m 0 s ago" / "-".
// now - t, humanely; "?" when a damaged file's timestamp makes it overflow.
std::string ageText(TimeNs now, TimeNs t) {
    const auto d = core::diffNs(now, t);
    return d ? core::humanDuration(*d) : std::string("?");
}

std::string relativeTime(const std::optional<TimeNs>& t, TimeNs now) {
    if (!t)
        return "-";
    // Damaged files can hold any timestamp: no difference may overflow.
    const auto ahead = core::diffNs(*t, now);
    if (!ahead)
        return "?";
    if (*ahead >= 0)
        return "in " + core::humanDuration(*ahead);
    return ageText(now, *t) + " ago";
}

std::string summaryLine(const core::Summary& s) {
    if (s.count == 0)
        return "no data";
    return "n=" + num(s.count) + "  p50 " + durationOrDash(s.p50) + "  p90 " +
           durationOrDash(s.p90) + "  p99 " + durationOrDash(s.p99) + "  max " +
           durationOrDash(s.max);
}

const std::string& requireArg(const Options& o, std::size_t i) {
    if (o.args.size() <= i)
        throw UsageError(o.command + ": missing argument");
    return o.args[i];
}

/// The single-message actions: retry and fail (litequeue), release,
/// reschedule and delete (jobs-lease; retry means release there).
int singleAction(const Options& o, core::Action a, const char* verb) {
    const std::string& id = requireArg(o, 0);
    auto q = openQueue(o, true);
    const bool jobsAction =
        a == core::Action::Release || a == core::Action::Reschedule || a == core::Action::Delete;
    if (q->info().format == core::Format::JobsLease) {
        // SPEC §3.3: a lease file has release (retry now) but no FAILED state.
        if (a == core::Action::MarkFailed)
            throw Refused("jobs-lease files have no FAILED state; nothing was changed");
        if (a == core::Action::Retry)
            a = core::Action::Release;
    } else if (jobsAction) {
        throw Refused(std::string(o.command) + " applies to jobs-lease files only (this is " +
                      core::formatId(q->info().format) + "); nothing was changed");
    }
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
            out(terminalSafe(id) + ": " + statusText(*m) + ", using " +
                tokenLabel(q->info().format) + " " + num(token) +
                " (read just now; pass --claim to act only on what you saw)\n");
        }
    }
    core::ActionOptions ao;
    ao.delaySeconds = o.delay.value_or(0);
    const auto r = q->apply(a, {core::Target{id, token}}, ao);
    recordAudit(*q, a, r);

    if (o.json) {
        Json j = Json::object();
        j.set("action", core::actionName(a));
        j.set("message_id", id);
        j.set("token", token);
        j.set("applied", static_cast<std::int64_t>(r.applied.size()));
        Json skipped = Json::array();
        for (const auto& s : r.skipped) {
            Json sj = Json::object();
            sj.set("message_id", s.messageId);
            sj.set("reason", s.reason);
            skipped.push(std::move(sj));
        }
        j.set("skipped", std::move(skipped));
        if (!r.applied.empty())
            j.set("message", messageJson(r.applied.front().after, q->now(), q->info().format));
        printJson(j);
    }
    if (r.applied.empty()) {
        const std::string reason =
            r.skipped.empty() ? std::string("nothing changed") : r.skipped.front().reason;
        throw Refused(terminalSafe(id) + " not " + verb + ": " + terminalSafe(reason));
    }
    if (!o.json) {
        const auto& ar = r.applied.front();
        out(terminalSafe(id) + ": " + statusText(ar.before) + " -> " +
            (a == core::Action::Delete ? std::string("deleted") : statusText(ar.after)) + " (" +
            tokenLabel(q->info().format) + " " + num(token) + ")\n");
    }
    return ExitOk;
}

Json fleetEntryJson(const core::FleetEntry& e, TimeNs now) {
    Json j = Json::object();
    j.set("path", e.path);
    j.set("table", e.table);
    j.set("format", e.format);
    j.set("read_only", !e.readOnlyReason.empty());
    if (!e.readOnlyReason.empty())
        j.set("read_only_reason", e.readOnlyReason);
    const auto& c = e.counts;
    j.set("ready", c.ready);
    j.set("locked", c.locked);
    j.set("stuck", c.stuck);
    j.set("done", c.done);
    j.set("failed", c.failed);
    j.set("stored", c.stored);
    if (e.format == "jobs-lease") {
        j.set("scheduled", c.scheduled);
        j.set("leased", c.leased);
        j.set("expired", c.expired);
    }
    j.set("maxsize", e.maxsize);
    j.set("backlog_age_ns", e.backlogAgeNs(now));
    j.set("file_bytes", e.fileBytes);
    j.set("wal_bytes", e.walBytes);
    return j;
}

} // namespace

core::OpenOptions openOptions(const Options& o, bool write) {
    core::OpenOptions opts;
    opts.readOnly = !write;
    opts.clock = o.now ? core::fixedClock(*o.now) : core::systemClock();
    opts.busyTimeoutMs = o.busyTimeoutMs;
    opts.table = o.table;
    return opts;
}

std::unique_ptr<Queue> openQueue(const Options& o, bool write) {
    auto q = Queue::open(o.file, openOptions(o, write));
    if (write && q->readOnly()) {
        const std::string& why = q->info().readOnlyReason;
        throw core::ReadOnly(o.file, "the queue is read-only" + (why.empty() ? "" : ": " + why) +
                                         ". Nothing was changed.");
    }
    return q;
}

void recordAudit(const Queue& q, core::Action a, const core::ActionResult& r,
                 const std::string& note) {
    if (r.applied.empty() && note.empty())
        return;
    core::AuditEntry e;
    e.when = core::systemNowNs();
    e.queuePath = absolutePath(q.path());
    e.action = a;
    if (const char* user = std::getenv("USER"))
        e.user = user;
    e.tool = "lqctl";
    e.applied = r.applied;
    e.skipped = static_cast<std::int64_t>(r.skipped.size());
    e.note = note;
    try {
        core::AuditLog log;
        log.append(e);
    } catch (const std::exception& ex) {
        err("lqctl: " + q.path() +
            ": warning: the change was made but could not be recorded "
            "in the audit log: " +
            ex.what() + "\n");
    }
}

int cmdInfo(const Options& o) {
    auto q = openQueue(o, false);
    const auto& info = q->info();
    const auto c = q->counts(o.stuckAfterNs());
    const auto fileSize = q->fileSize();
    const auto walSize = q->walSize();
    if (o.json) {
        Json j = Json::object();
        j.set("path", absolutePath(q->path()));
        j.set("format", core::formatId(info.format));
        j.set("user_version", info.userVersion);
        j.set("journal_mode", info.journalMode);
        j.set("table", info.table);
        Json tables = Json::array();
        for (const auto& t : info.queueTables)
            tables.push(t);
        j.set("queue_tables", std::move(tables));
        j.set("time_unit", info.timeUnit == core::TimeUnit::Seconds ? "s" : "ns");
        j.set("maxsize", info.maxsize ? Json(*info.maxsize) : Json());
        j.set("read_only", info.formatReadOnly());
        j.set("read_only_reason", info.readOnlyReason.empty() ? Json() : Json(info.readOnlyReason));
        Json warnings = Json::array();
        for (const auto& w : info.warnings)
            warnings.push(w);
        j.set("warnings", std::move(warnings));
        j.set("file_size", fileSize);
        j.set("wal_size", walSize);
        j.set("counts", countsJson(c, info));
        j.set("stuck", c.stuck);
        printJson(j);
        return ExitOk;
    }
    Table t({"", ""});
    t.addRow({"path", terminalSafe(absolutePath(q->path()))});
    t.addRow({"format", std::string(core::formatId(info.format)) + " (user_version " +
                            num(info.userVersion) + ", times in " +
                            (info.timeUnit == core::TimeUnit::Seconds ? "seconds" : "ns") + ")"});
    t.addRow({"journal mode", terminalSafe(info.journalMode)});
    std::string table = terminalSafe(info.table);
    if (info.queueTables.size() > 1) {
        table += "  (queue tables:";
        for (const auto& qt : info.queueTables)
            table += " " + terminalSafe(qt);
        table += "; pick one with --table)";
    }
    t.addRow({"table", table});
    t.addRow({"maxsize", info.maxsize ? num(*info.maxsize) + " READY messages (trigger " +
                                            terminalSafe(info.maxsizeTrigger) + ")"
                                      : std::string("unlimited")});
    t.addRow({"writable", info.formatReadOnly() ? "no: " + terminalSafe(info.readOnlyReason)
                                                : std::string("yes")});
    t.addRow({"file size", core::humanBytes(fileSize) + " (" + num(fileSize) + " bytes)"});
    t.addRow({"WAL size", core::humanBytes(walSize) + " (" + num(walSize) + " bytes)"});
    t.addRow({"messages", countsLine(c, info, o.stuckAfterSeconds)});
    for (const auto& w : info.warnings)
        t.addRow({"warning", terminalSafe(w)});
    std::string r = t.render();
    r.erase(0, r.find('\n') + 1);
    out(r);
    return ExitOk;
}

int cmdStats(const Options& o) {
    auto q = openQueue(o, false);
    const auto& info = q->info();
    const auto c = q->counts(o.stuckAfterNs());
    const auto st = q->stats();
    if (o.prometheus) {
        out(prometheusText(absolutePath(q->path()), info, c, st, o.stuckAfterSeconds, q->fileSize(),
                           q->walSize(), q->now()));
        return ExitOk;
    }
    if (o.json) {
        printJson(statsJson(info, c, st));
        return ExitOk;
    }
    const TimeNs now = q->now();
    Table t({"", ""});
    t.addRow({"queue", terminalSafe(q->path()) + " (" + core::formatId(info.format) + ")"});
    t.addRow({"messages", countsLine(c, info, o.stuckAfterSeconds)});
    t.addRow({"maxsize", info.maxsize ? num(*info.maxsize) : std::string("unlimited")});
    t.addRow({"wait", summaryLine(st.wait)});
    t.addRow({"processing", summaryLine(st.processing)});
    t.addRow({"total", summaryLine(st.total)});
    t.addRow({"time to failure", summaryLine(st.timeToFailure)});
    t.addRow({"backlog age",
              st.oldestReadyInTime ? ageText(now, *st.oldestReadyInTime) : std::string("-")});
    t.addRow({"oldest lock",
              st.oldestLockedLockTime ? ageText(now, *st.oldestLockedLockTime) : std::string("-")});
    t.addRow({"last hour", num(st.doneLastHour) + " done, " + num(st.failedLastHour) + " failed"});
    std::string r = t.render();
    r.erase(0, r.find('\n') + 1);
    out(r);
    return ExitOk;
}

int cmdList(const Options& o) {
    auto q = openQueue(o, false);
    const auto& info = q->info();
    const core::Filter f = filterFrom(o);
    const TimeNs now = o.now ? *o.now : q->now();
    const bool plain = !o.json && !o.csv;
    const std::int64_t limit = o.limit ? *o.limit : (plain ? 100 : 0);

    // With a limit: one page and an exact count. Without: a stable snapshot
    // of every matching rowid, fetched in blocks so memory stays bounded.
    std::vector<Message> page;
    std::vector<std::int64_t> rowids;
    std::size_t total = 0;
    if (limit > 0) {
        page = q->list(f, core::Sort{}, 0, limit);
        total = static_cast<std::size_t>(q->count(f));
    } else {
        rowids = q->orderedRowids(f, core::Sort{});
        total = rowids.size();
    }

    constexpr std::size_t kBlock = 1000;
    auto forEachMessage = [&](auto&& fn) {
        for (const auto& m : page)
            fn(m);
        for (std::size_t i = 0; i < rowids.size(); i += kBlock) {
            const std::size_t end = std::min(rowids.size(), i + kBlock);
            const std::vector<std::int64_t> block(rowids.begin() + static_cast<std::ptrdiff_t>(i),
                                                  rowids.begin() +
                                                      static_cast<std::ptrdiff_t>(end));
            for (const auto& m : q->fetchRowids(block))
                fn(m);
        }
    };

    if (o.json) {
        out("[");
        bool first = true;
        forEachMessage([&](const Message& m) {
            out(first ? "\n" : ",\n");
            first = false;
            out(messageJson(m, now, info.format).dump());
        });
        out(first ? "]\n" : "\n]\n");
        return ExitOk;
    }
    if (o.csv) {
        std::vector<std::string> header = {
            "message_id", "status",    "claim_id",  "token",   "idempotency_key", "data",
            "in_time",    "lock_time", "done_time", "wait_ns", "processing_ns",   "age_ns"};
        const bool jobs = info.format == core::Format::JobsLease;
        if (jobs) {
            header.insert(header.end(), {"run_at", "locked_until", "attempts"});
        }
        out(csvRecord(header));
        forEachMessage([&](const Message& m) {
            std::vector<std::string> row = {m.messageId,
                                            statusText(m),
                                            num(m.claimId),
                                            num(m.token),
                                            m.idempotencyKey.value_or(std::string()),
                                            m.data,
                                            optionalInt(m.inTime),
                                            optionalInt(m.lockTime),
                                            optionalInt(m.doneTime),
                                            optionalInt(m.waitNs()),
                                            optionalInt(m.processingNs()),
                                            optionalInt(m.ageNs(now))};
            if (jobs) {
                row.insert(row.end(),
                           {optionalInt(m.runAt), optionalInt(m.lockedUntil), num(m.attempts)});
            }
            out(csvRecord(row));
        });
        return ExitOk;
    }

    const bool jobs = info.format == core::Format::JobsLease;
    std::vector<std::string> header;
    std::vector<bool> right;
    if (jobs) {
        header = {"ID", "STATE", "ATTEMPTS", "RUN AT", "LEASE UNTIL"};
        right = {false, false, true, true, true};
    } else {
        header = {"MESSAGE ID", "STATUS", "CLAIM", "AGE", "WAIT", "PROCESSING"};
        right = {false, false, true, true, true, true};
    }
    if (info.hasIdempotencyKey) {
        header.emplace_back("KEY");
        right.push_back(false);
    }
    header.emplace_back("DATA");
    Table t(header, right);
    forEachMessage([&](const Message& m) {
        std::vector<std::string> row;
        if (jobs) {
            row = {terminalSafe(m.messageId, 40), statusText(m), num(m.attempts),
                   relativeTime(m.runAt, now), relativeTime(m.lockedUntil, now)};
        } else {
            row = {terminalSafe(m.messageId, 40),
                   statusText(m),
                   num(m.token),
                   durationOrDash(m.ageNs(now)),
                   durationOrDash(m.waitNs()),
                   durationOrDash(m.processingNs())};
        }
        if (info.hasIdempotencyKey)
            row.push_back(m.idempotencyKey ? terminalSafe(*m.idempotencyKey, 24) : "-");
        row.push_back(terminalSafe(m.data, 48));
        t.addRow(std::move(row));
    });
    if (t.rowCount() == 0) {
        err("no messages match\n");
        return ExitOk;
    }
    out(t.render());
    if (t.rowCount() < total) {
        err("showing " + num(static_cast<std::int64_t>(t.rowCount())) + " of " +
            num(static_cast<std::int64_t>(total)) + " messages (--limit 0 shows all)\n");
    }
    return ExitOk;
}

int cmdGet(const Options& o) {
    const std::string& id = requireArg(o, 0);
    auto q = openQueue(o, false);
    const auto m = q->get(id);
    if (!m)
        throw Refused("no message with id " + terminalSafe(id));
    if (o.json)
        printJson(messageJson(*m, q->now(), q->info().format));
    else
        printMessagePlain(*m, q->info(), q->now());
    return ExitOk;
}

int cmdPut(const Options& o) {
    const std::string& arg = requireArg(o, 0);
    std::string data;
    if (arg == "-") {
        char buf[65536];
        std::size_t n = 0;
        while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0)
            data.append(buf, n);
        if (std::ferror(stdin))
            throw core::Error(core::ErrorKind::Io, o.file, "could not read the payload from stdin");
    } else {
        data = arg;
    }
    if (o.maxsize && !o.create)
        throw UsageError("--maxsize only applies with --create");

    std::unique_ptr<Queue> q;
    if (o.create) {
        q = Queue::create(o.file, o.maxsize, openOptions(o, true));
        if (q->readOnly())
            throw core::ReadOnly(o.file, "the queue is read-only: " + q->info().readOnlyReason);
    } else {
        try {
            q = openQueue(o, true);
        } catch (const core::Error& e) {
            std::error_code ec;
            if (e.kind() == core::ErrorKind::Io && !std::filesystem::exists(o.file, ec)) {
                throw core::Error(core::ErrorKind::Io, o.file,
                                  e.detail() + " (pass --create to create a new queue there, or "
                                               "run `lqctl demo FILE` for one with a live "
                                               "workload)");
            }
            throw;
        }
    }
    bool inserted = false;
    const Message m = q->put(data, o.key, &inserted);
    if (inserted) {
        core::ActionResult r;
        r.action = core::Action::Enqueue;
        r.applied.push_back({m, m});
        recordAudit(*q, core::Action::Enqueue, r);
    }
    if (o.json)
        printJson(messageJson(m, q->now(), q->info().format));
    else
        out(m.messageId + "\n");
    return ExitOk;
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

int cmdFleet(const Options& o) {
    const TimeNs now = o.now ? *o.now : core::systemNowNs();
    // Throws Io (exit 5) when o.file is not a readable folder.
    const auto entries =
        core::scanFleet(o.file, now, o.stuckAfterNs(), std::min(o.busyTimeoutMs, 2000));
    std::vector<const core::FleetEntry*> queues;
    std::vector<const core::FleetEntry*> skipped;
    for (const auto& e : entries)
        (e.skipped ? skipped : queues).push_back(&e);

    if (o.prometheus) {
        std::vector<PromQueue> pq;
        for (const auto* e : queues) {
            Options one = o;
            one.file = e->path;
            one.table = e->table;
            try {
                auto q = openQueue(one, false);
                PromQueue p;
                p.path = absolutePath(e->path);
                p.info = q->info();
                p.counts = q->counts(o.stuckAfterNs());
                p.stats = q->stats();
                p.fileSize = q->fileSize();
                p.walSize = q->walSize();
                pq.push_back(std::move(p));
            } catch (const core::Error& ex) {
                // Changed between the scan and now: report it, keep the rest.
                err("lqctl: " + terminalSafe(e->path) + ": " + terminalSafe(ex.detail()) + "\n");
            }
        }
        out(prometheusText(pq, o.stuckAfterSeconds, now, true));
        return ExitOk;
    }
    if (o.json) {
        Json j = Json::object();
        Json qa = Json::array();
        for (const auto* e : queues)
            qa.push(fleetEntryJson(*e, now));
        Json sa = Json::array();
        for (const auto* e : skipped) {
            Json sj = Json::object();
            sj.set("path", e->path);
            sj.set("reason", e->reason);
            sa.push(std::move(sj));
        }
        j.set("queues", std::move(qa));
        j.set("skipped", std::move(sa));
        printJson(j);
        return ExitOk;
    }
    Table t({"queue", "table", "format", "ready", "locked", "stuck", "done", "failed", "backlog",
             "wal"},
            {false, false, false, true, true, true, true, true, true, true});
    for (const auto* e : queues) {
        const auto& c = e->counts;
        t.addRow({terminalSafe(e->path), terminalSafe(e->table),
                  e->format + (e->readOnlyReason.empty() ? "" : " (read-only)"), num(c.ready),
                  num(c.locked), num(c.stuck), num(c.done), num(c.failed),
                  durationOrDash(e->backlogAgeNs(now)), core::humanBytes(e->walBytes)});
    }
    std::string text = t.render();
    if (!skipped.empty()) {
        text += "\nskipped:\n";
        for (const auto* e : skipped)
            text += "  " + terminalSafe(e->path) + ": " + terminalSafe(e->reason) + "\n";
    }
    text += "\n" + plural(std::int64_t(queues.size()), "queue", "queues") + ", " +
            num(std::int64_t(skipped.size())) + " skipped\n";
    out(text);
    return ExitOk;
}

int cmdRetry(const Options& o) {
    return singleAction(o, core::Action::Retry, "retried");
}

int cmdFail(const Options& o) {
    return singleAction(o, core::Action::MarkFailed, "marked failed");
}

int cmdRetryExpired(const Options& o) {
    if (!o.olderThan)
        throw UsageError("retry-expired needs --older-than SECONDS (the lock age that counts as "
                         "expired)");
    auto q = openQueue(o, true);
    const double threshold = *o.olderThan;
    // What will change, for the audit log's prior values.
    const auto before = q->listLocked(threshold);
    const std::int64_t n = q->retryExpired(threshold);
    const std::int64_t lockedAfter = q->lockedCount();

    if (n > 0) {
        // Prior values for the audit log: the rows listed before that now
        // hold what retry_expired wrote (same token, READY).
        core::ActionResult r;
        r.action = core::Action::Retry;
        for (const auto& m : before) {
            const auto cur = q->get(m.messageId);
            if (cur && cur->state == core::State::Ready && cur->token == m.token)
                r.applied.push_back({m, *cur});
        }
        recordAudit(*q, core::Action::Retry, r);
    }

    if (o.json) {
        Json j = Json::object();
        j.set("older_than_s", threshold);
        j.set("expired_before", static_cast<std::int64_t>(before.size()));
        j.set("retried", n);
        j.set("locked_after", lockedAfter);
        printJson(j);
    } else {
        out(plural(n, "message", "messages") + " locked for more than " + secondsText(threshold) +
            " set back to READY (" + num(static_cast<std::int64_t>(before.size())) +
            " expired before, " + num(lockedAfter) + " still locked)\n");
    }
    return ExitOk;
}

int cmdPrune(const Options& o) {
    auto q = openQueue(o, true);
    const TimeNs now = q->now();
    core::Filter f;
    f.states = {core::State::Done};
    if (!o.keepFailed)
        f.states.push_back(core::State::Failed);
    f.now = now;
    if (o.olderThan)
        f.doneBefore = now - core::secondsToNs(*o.olderThan);
    // The cutoff and the set are fixed here: what finishes while the operator
    // reads the question is not deleted.
    const auto targets = q->targetsFor(f);
    const auto count = static_cast<std::int64_t>(targets.size());
    const std::string what = o.keepFailed ? "DONE" : "DONE and FAILED";
    const std::string cutoff =
        f.doneBefore ? " finished before " + core::isoUtc(*f.doneBefore) : std::string();

    if (count == 0) {
        if (o.json) {
            Json j = Json::object();
            j.set("matched", 0);
            j.set("pruned", 0);
            j.set("skipped", 0);
            printJson(j);
        } else {
            out("nothing to prune: no " + what + " messages" + cutoff + "\n");
        }
        return ExitOk;
    }
    confirm(o,
            "Delete " + plural(count, "message", "messages") + " (" + what + cutoff + ") from " +
                q->path() + "?",
            "delete " + plural(count, "message", "messages"));

    const auto r = q->apply(core::Action::Prune, targets);
    recordAudit(*q, core::Action::Prune, r);
    const auto pruned = static_cast<std::int64_t>(r.applied.size());
    const auto skipped = static_cast<std::int64_t>(r.skipped.size());
    if (o.json) {
        Json j = Json::object();
        j.set("matched", count);
        j.set("pruned", pruned);
        j.set("skipped", skipped);
        j.set("cutoff_ns", f.doneBefore ? Json(*f.doneBefore) : Json());
        printJson(j);
    } else {
        out("pruned " + plural(pruned, "message", "messages"));
        if (skipped > 0)
            out(" (" + num(skipped) + " skipped: changed since they were counted)");
        out("\n");
    }
    return ExitOk;
}

int cmdVacuum(const Options& o) {
    auto q = openQueue(o, true);
    const auto [before, after] = q->vacuum();
    recordAudit(*q, core::Action::Vacuum, {},
                "vacuum: " + std::to_string(before) + " -> " + std::to_string(after) + " bytes");
    if (o.json) {
        Json j = Json::object();
        j.set("before", before);
        j.set("after", after);
        printJson(j);
    } else {
        out(q->path() + ": " + core::humanBytes(before) + " (" + num(before) + " bytes) -> " +
            core::humanBytes(after) + " (" + num(after) + " bytes)\n");
    }
    return ExitOk;
}

int cmdUpgrade(const Options& o) {
    auto q = openQueue(o, true);
    const auto from = q->info().format;
    if (from == core::Format::Litequeue014) {
        if (o.json) {
            Json j = Json::object();
            j.set("from", core::formatId(from));
            j.set("to", core::formatId(from));
            j.set("upgraded", false);
            printJson(j);
        } else {
            out(q->path() + ": already litequeue-0.14; nothing to do\n");
        }
        return ExitOk;
    }
    if (from != core::Format::LitequeueLegacy && from != core::Format::Litequeue013) {
        throw core::Unsupported(o.file, std::string("cannot upgrade a ") + core::formatId(from) +
                                            " file: only litequeue-legacy and litequeue-0.13 "
                                            "files can be upgraded");
    }
    const std::int64_t locked = q->lockedCount();
    err(std::string("Upgrading ") + q->path() + " from " + core::formatId(from) +
        " to litequeue-0.14.\nStop every worker that uses this queue first: workers of the old "
        "version cannot use the upgraded file" +
        (locked > 0 ? ", and the " + plural(locked, "LOCKED message", "LOCKED messages") +
                          " will be set back to READY (their workers hold no claim id)"
                    : std::string()) +
        ".\n");
    confirm(o, "Upgrade " + q->path() + "?", "upgrade the file");
    q->upgrade();
    recordAudit(*q, core::Action::Upgrade, {},
                std::string("upgrade: ") + core::formatId(from) + " -> litequeue-0.14");
    q.reset();
    auto after = Queue::open(o.file, openOptions(o, false));
    if (o.json) {
        Json j = Json::object();
        j.set("from", core::formatId(from));
        j.set("to", core::formatId(after->info().format));
        j.set("upgraded", true);
        printJson(j);
    } else {
        out(o.file + ": upgraded from " + core::formatId(from) + " to " +
            core::formatId(after->info().format) + "\n");
    }
    return ExitOk;
}

} // namespace lq::ctl
