// SPDX-License-Identifier: MIT
#include "commands.h"
#include "output.h"

#include <core/audit.h>
#include <core/errors.h>
#include <core/fleet.h>
#include <core/formats/queueformat.h>
#include <core/statemodel.h>
#include <core/timefmt.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace lq::ctl {

using core::Json;
using core::Message;
using core::Queue;
using core::TimeNs;

std::string absolutePath(const std::string& path) {
    if (core::remote::isRemoteUrl(path))
        return core::remote::SshUrl::parse(path).display();
    if (!core::isLocalPath(path))
        return path; // a database's URL, its password already left out

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

core::Filter filterFrom(const Options& o, const core::QueueFormat& format) {
    core::Filter f;
    f.states = o.states;
    // A state the library has its own word for (goqite's dead_letter) is
    // filtered as the state it is.
    for (const std::string& name : o.extraStates) {
        if (const auto s = core::stateOfName(format, name))
            f.states.push_back(*s);
        else
            f.extraStates.push_back(name);
    }
    f.stuckOnly = o.stuckOnly;
    if (o.stuckOnly && f.states.empty())
        f.states = {core::State::Locked};
    f.stuckAfterNs = o.stuckAfterNs();
    f.search = o.search;
    f.where = o.where;
    if (o.olderThan)
        f.olderThan = core::secondsDuration(*o.olderThan);
    f.now = o.now;
    f.queue = o.queue;
    return f;
}

/// --status names a state of another format's (a usage error, before any
/// listing): the file's format says which of its own it has.
void checkOwnStates(const Options& o, const core::QueueFormat& format) {
    const auto own = format.extraStates();
    std::string names;
    for (const auto& x : own)
        names += (names.empty() ? "" : ", ") + x.name;
    for (const std::string& name : o.extraStates) {
        if (core::stateOfName(format, name))
            continue;
        if (std::none_of(own.begin(), own.end(), [&](const auto& x) { return x.name == name; }))
            throw UsageError("--status " + name + ": " + terminalSafe(o.file) + " is a " +
                             format.id() + " file, whose own states are " +
                             (names.empty() ? std::string("none") : names));
    }
}

namespace {

std::string instantText(const std::optional<TimeNs>& t) {
    if (!t)
        return "-";
    return core::isoUtc(*t) + "  (" + num(*t) + ")";
}

void printMessagePlain(const Message& m, const core::FormatInfo& info, TimeNs now) {
    Table t({"field", "value"});
    const auto text = [](const std::optional<std::string>& v) {
        return v ? terminalSafe(*v) : std::string("-");
    };
    t.addRow({"message_id", terminalSafe(m.messageId)});
    t.addRow({"status", statusLabel(m)});
    if (!m.statusText.empty())
        t.addRow({"stored status", terminalSafe(m.statusText)});
    if (m.queueName)
        t.addRow({"queue", text(m.queueName)});
    if (m.jobName)
        t.addRow({"job", text(m.jobName)});
    if (m.priority)
        t.addRow({"priority", num(*m.priority)});
    if (info.hasClaimId)
        t.addRow({"claim_id", num(m.claimId)});
    t.addRow({"token", num(m.token) + "  (" + tokenLabel(info) + ")"});
    if (m.tokenText && isPlainText(*m.tokenText))
        t.addRow({"token text", text(m.tokenText)});
    if (info.hasIdempotencyKey)
        t.addRow({"idempotency_key", text(m.idempotencyKey)});
    using Field = core::QueueFormat::Field;
    using BaseTime = core::QueueFormat::BaseTime;
    const core::QueueFormat& qf = core::QueueFormat::of(info);
    if (qf.storesTime(BaseTime::Enqueued))
        t.addRow({"in_time", instantText(m.inTime)});
    if (qf.storesTime(BaseTime::Claimed))
        t.addRow({"lock_time", instantText(m.lockTime)});
    if (qf.storesTime(BaseTime::Finished))
        t.addRow({"done_time", instantText(m.doneTime)});
    if (qf.hasField(Field::Attempts))
        t.addRow({"attempts", m.maxAttempts ? num(m.attempts) + " of " + num(*m.maxAttempts)
                                            : num(m.attempts)});
    // The format's times under its own words ("run at", "locked until").
    const auto lower = [](std::string s) {
        for (char& c : s)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return s;
    };
    if (m.scheduledAt)
        t.addRow({lower(qf.fieldLabel(Field::ScheduledAt)),
                  instantText(m.scheduledAt) + "  " + relativeTime(m.scheduledAt, now)});
    if (m.leaseExpiry)
        t.addRow({lower(qf.fieldLabel(Field::LeaseExpiry)),
                  instantText(m.leaseExpiry) + "  " + relativeTime(m.leaseExpiry, now)});
    t.addRow({"wait", durationOrDash(m.waitNs())});
    t.addRow({"processing", durationOrDash(m.processingNs())});
    t.addRow({"age", durationOrDash(m.ageNs(now))});
    std::string r = t.render();
    // Drop the header row: a key/value listing needs none.
    r.erase(0, r.find('\n') + 1);
    out(r);
    if (m.lastError) {
        // An error and its backtrace keep their lines.
        out("error:\n");
        out(terminalSafe(*m.lastError, std::string_view::npos, true));
        out("\n");
    }
    std::string kind =
        m.dataIsBlob ? "BLOB" : (core::isValidUtf8(m.data) ? "text" : "invalid UTF-8");
    out("data (" + plural(static_cast<std::int64_t>(m.data.size()), "byte", "bytes") + ", " + kind +
        "):\n");
    if (m.dataNote)
        out("note: " + terminalSafe(*m.dataNote) + "\n");
    out(terminalSafe(m.data, std::string_view::npos, true));
    out("\n");
}

} // namespace

std::string countsLine(const core::Counts& c, const core::FormatInfo& info,
                       double stuckAfterSeconds) {
    // The partition in the format's words; each sub-count in brackets after
    // the state it is part of.
    const core::QueueFormat& format = core::QueueFormat::of(info);
    const core::StateModel m = core::stateModel(format, c);
    const std::string stuckRule = !format.ownStuckRule().empty()
                                      ? std::string("by the library's own rule")
                                      : "> " + secondsText(stuckAfterSeconds);
    std::string s;
    for (const auto& e : m.partition) {
        s += (s.empty() ? "" : ", ") + num(e.count) + " " + e.state.name;
        std::string parts;
        for (const auto& sub : m.subCounts) {
            if (sub.count == 0 || sub.state.within.empty() || sub.state.within[0] != e.state.name)
                continue;
            // locked_expired is the library's own stuck rule: said once.
            if (sub.state.name == core::QueueFormat::kStuckState && !format.ownStuckRule().empty())
                continue;
            parts += (parts.empty() ? "" : ", ") + num(sub.count) + " " + sub.state.name +
                     (sub.state.name == "stuck" ? " " + stuckRule : std::string());
        }
        if (!parts.empty())
            s += " (" + parts + ")";
    }
    return s + "; " + num(c.stored) + " stored";
}

namespace {

std::string summaryLine(const core::Summary& s, const std::string& notStored = {}) {
    if (!notStored.empty())
        return "not stored: " + notStored;
    if (s.count == 0)
        return "no data";
    return "n=" + num(s.count) + "  p50 " + durationOrDash(s.p50) + "  p90 " +
           durationOrDash(s.p90) + "  p99 " + durationOrDash(s.p99) + "  max " +
           durationOrDash(s.max);
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
    // The same partition as stats --json, per file and per named queue.
    const auto counts = [&e](Json& into, const core::Counts& qc) {
        if (!e.kind) {
            into.set("stored", qc.stored);
            return;
        }
        const core::StateModel m = core::stateModel(*e.kind, qc);
        const Json partition = partitionJson(m);
        for (const auto& [k, v] : partition.toObject())
            into.set(k, v);
        into.set("stuck", qc.stuck);
        into.set("sub_counts", subCountsJson(m));
    };
    counts(j, c);
    if (e.kind && e.kind->namedQueues()) {
        // Each named queue of the file, with its counts.
        Json queues = Json::array();
        for (const auto& [name, qc] : e.queues) {
            Json qj = Json::object();
            qj.set("name", name);
            counts(qj, qc);
            queues.push(std::move(qj));
        }
        j.set("queues", std::move(queues));
    }
    // The queues workers skip, as lqctl info --json names them.
    Json paused = Json::array();
    for (const core::PausedQueue& p : e.paused)
        paused.push(Json(p.queue));
    j.set("paused_queues", std::move(paused));
    j.set("maxsize", e.maxsize);
    j.set("backlog_age_ns", e.backlogAgeNs(now));
    j.set("file_bytes", e.fileBytes);
    j.set("wal_bytes", e.walBytes);
    return j;
}

} // namespace

std::string tokenLabel(const core::FormatInfo& info) {
    return core::QueueFormat::of(info).tokenLabel(info);
}

const std::string& requireArg(const Options& o, std::size_t i) {
    if (o.args.size() <= i)
        throw UsageError(o.command + ": missing argument");
    return o.args[i];
}

core::OpenOptions openOptions(const Options& o, bool write) {
    core::OpenOptions opts;
    opts.readOnly = !write;
    opts.clock = o.now ? core::fixedClock(*o.now) : core::systemClock();
    opts.busyTimeoutMs = o.busyTimeoutMs;
    opts.table = o.table;
    opts.settings = o.settings;
    return opts;
}

void refuseReadOnly(const Options& o, const core::FormatInfo& info, const std::string& fallback) {
    const std::string& why = info.readOnlyReason.empty() ? fallback : info.readOnlyReason;
    throw core::ReadOnly(o.file, "the queue is read-only" + (why.empty() ? "" : ": " + why) +
                                     ". Nothing was changed.");
}

std::unique_ptr<Queue> openQueue(const Options& o, bool write) {
    auto q = Queue::open(o.file, openOptions(o, write));
    if (write && q->readOnly())
        refuseReadOnly(o, q->info());
    return q;
}

std::shared_ptr<core::QueueBackend> openBackendFor(const Options& o, bool write) {
    core::BackendOptions b;
    b.readOnly = !write;
    b.table = o.table;
    b.settings = o.settings;
    b.busyTimeoutMs = o.busyTimeoutMs;
    b.now = o.now;
    b.tool = "lqctl";
    b.watch = false;
    auto q = core::openBackend(o.file, b);
    if (write && q->readOnly())
        refuseReadOnly(o, q->info(), "this user cannot write it");
    if (!write)
        checkQueueOption(o, *q);
    return q;
}

void requireOffered(const core::QueueBackend& q, core::Action a) {
    if (const std::string why = q.whyNot(a); !why.empty())
        throw Refused(why + " (this is " + q.formatName() + "); nothing was changed");
}

void checkQueueName(const Options& o, const core::FormatInfo& info,
                    const std::vector<std::string>& names) {
    if (std::find(names.begin(), names.end(), o.queue) != names.end())
        return;
    if (!core::QueueFormat::of(info).namedQueues())
        throw Refused("--queue " + terminalSafe(o.queue, 60) + ": " + terminalSafe(o.file) +
                      " is a " + core::formatId(info.format) + " file, which has no named queues");
    std::string list;
    for (const auto& n : names)
        list += (list.empty() ? "" : ", ") + terminalSafe(n, 60);
    throw Refused("no queue " + terminalSafe(o.queue, 60) + " in " + terminalSafe(o.file) +
                  "; queues: " + (list.empty() ? std::string("none") : list));
}

namespace {

/// Where the queue is, as `info` names it: the local file's absolute path,
/// or the path on an ssh:// queue's host.
std::string infoPath(const Options& o) {
    return isRemote(o) ? core::remote::SshUrl::parse(o.file).path : absolutePath(o.file);
}

int cmdInfoOn(const Options& o) {
    auto q = openBackendFor(o, false);
    const auto& info = q->info();
    const auto c = q->counts(o.stuckAfterNs(), o.queue);
    const auto fileSize = q->fileSize();
    const auto walSize = q->walSize();
    if (o.json) {
        Json j = Json::object();
        j.set("path", infoPath(o));
        j.set("format", core::formatId(info.format));
        j.set("user_version", info.userVersion);
        j.set("journal_mode", info.journalMode);
        j.set("table", info.table);
        Json tables = Json::array();
        for (const auto& t : info.queueTables)
            tables.push(t);
        j.set("queue_tables", std::move(tables));
        const std::string units = core::QueueFormat::of(info).timeUnits(info);
        j.set("time_unit", units == "seconds" ? "s" : units == "ns" ? "ns" : "mixed");
        j.set("maxsize", info.maxsize ? Json(*info.maxsize) : Json());
        j.set("read_only", info.formatReadOnly());
        j.set("read_only_reason", info.readOnlyReason.empty() ? Json() : Json(info.readOnlyReason));
        Json warnings = Json::array();
        for (const auto& w : info.warnings)
            warnings.push(w);
        j.set("warnings", std::move(warnings));
        const std::string notice = core::QueueFormat::of(info).notice(info);
        j.set("notice", notice.empty() ? Json() : Json(notice));
        j.set("file_size", fileSize);
        j.set("wal_size", walSize);
        j.set("counts", countsJson(c, info));
        j.set("stuck", c.stuck);
        j.set("sub_counts", subCountsJson(core::stateModel(core::QueueFormat::of(info), c)));
        // The format's own states, with their counts (the state model's
        // exclusive states, then its nested ones), and its named queues.
        const core::QueueFormat& format = core::QueueFormat::of(info);
        const core::StateModel model = core::stateModel(format, c);
        Json extra = Json::array();
        for (const auto& p : model.partition) {
            if (p.state.canonical)
                continue;
            Json e = Json::object();
            e.set("name", p.state.name);
            e.set("within", Json::array());
            std::string description = p.state.state ? format.stateDescription(*p.state.state) : "";
            for (const auto& x : format.extraStates())
                if (x.name == p.state.name)
                    description = x.description;
            e.set("description", description);
            e.set("count", p.count);
            extra.push(std::move(e));
        }
        for (const auto& sub : model.subCounts) {
            if (sub.state.name == "stuck")
                continue;
            Json e = Json::object();
            e.set("name", sub.state.name);
            Json within = Json::array();
            for (const auto& w : sub.state.within)
                within.push(w);
            e.set("within", std::move(within));
            e.set("description", sub.state.description);
            e.set("count", sub.count);
            extra.push(std::move(e));
        }
        j.set("extra_states", std::move(extra));
        j.set("named_queues", format.namedQueues());
        Json queues = Json::array();
        if (format.namedQueues()) {
            for (const auto& name : q->queueNames()) {
                if (!o.queue.empty() && name != o.queue)
                    continue;
                Json qj = Json::object();
                qj.set("name", name);
                qj.set("counts", countsJson(q->counts(o.stuckAfterNs(), name), info));
                queues.push(std::move(qj));
            }
        }
        j.set("queues", std::move(queues));
        Json paused = Json::array();
        for (const auto& p : q->pausedQueues())
            paused.push(Json(p.queue));
        j.set("paused_queues", std::move(paused));
        printJson(j);
        return ExitOk;
    }
    Table t({"", ""});
    t.addRow({"path", terminalSafe(infoPath(o))});
    t.addRow({"format", std::string(core::formatId(info.format)) + " (user_version " +
                            num(info.userVersion) + ", times in " +
                            core::QueueFormat::of(info).timeUnits(info) + ")"});
    t.addRow({"journal mode", terminalSafe(info.journalMode)});
    std::string table = terminalSafe(info.table);
    if (info.queueTables.size() > 1) {
        table += "  (queue tables:";
        for (const auto& qt : info.queueTables) {
            // Two appends, not " " + str: GCC 12 -O3 reports a false
            // -Wrestrict on const char* + std::string&& (GCC bug 105329).
            table += ' ';
            table += terminalSafe(qt);
        }
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
    if (core::QueueFormat::of(info).namedQueues()) {
        const auto names = q->queueNames();
        std::string list;
        for (const auto& name : names)
            list += (list.empty() ? "" : ", ") + terminalSafe(name, 40);
        t.addRow({"queues", names.empty() ? std::string("-") : list});
        std::string paused;
        for (const auto& p : q->pausedQueues())
            paused += (paused.empty() ? "" : ", ") + terminalSafe(p.queue, 40) +
                      (p.since ? " (since " + core::isoUtc(*p.since) + ")" : std::string());
        if (!paused.empty())
            t.addRow({"paused", paused + ": workers skip them"});
    }
    if (const std::string notice = core::QueueFormat::of(info).notice(info); !notice.empty())
        t.addRow({"note", terminalSafe(notice)});
    for (const auto& w : info.warnings)
        t.addRow({"warning", terminalSafe(w)});
    std::string r = t.render();
    r.erase(0, r.find('\n') + 1);
    out(r);
    return ExitOk;
}

} // namespace

int cmdInfo(const Options& o) {
    if (isPostgres(o))
        return cmdInfoPostgres(o);
    return cmdInfoOn(o);
}

PromQueue promQueueOf(core::QueueBackend& q, core::CountsAndStats read) {
    PromQueue pq;
    pq.path = absolutePath(q.path());
    pq.info = q.info();
    pq.format = q.formatName();
    pq.counts = std::move(read.counts.total);
    pq.namedQueues = std::move(read.counts.queues);
    pq.stats = std::move(read.stats);
    pq.fileSize = q.fileSize();
    pq.isFile = q.isFile();
    if (pq.isFile)
        pq.walSize = q.walSize();
    return pq;
}

int cmdStats(const Options& o) {
    auto q = openBackendFor(o, false);
    const auto& info = q->info();
    // The whole file's counts and, for Prometheus, each named queue's, with
    // the statistics: one timing scan where its rows carry every state
    // (QueueBackend::countsAndStats()), so --prometheus costs about what
    // --json does (a queue name per row more).
    core::CountsAndStats read;
    if (o.queue.empty()) {
        read = q->countsAndStats(o.stuckAfterNs(), o.prometheus);
    } else {
        read.counts.total = q->counts(o.stuckAfterNs(), o.queue);
        if (o.prometheus && core::QueueFormat::of(info).namedQueues())
            read.counts.queues.emplace_back(o.queue, read.counts.total);
        core::Filter inQueue;
        inQueue.queue = o.queue;
        read.stats = q->stats(inQueue);
    }
    if (o.prometheus) {
        out(prometheusText({promQueueOf(*q, std::move(read))}, o.stuckAfterSeconds, q->now(),
                           false));
        return ExitOk;
    }
    const core::Counts& c = read.counts.total;
    const core::QueueStats& st = read.stats;
    if (o.json) {
        core::Json j = statsJson(info, c, st);
        j.set("format", q->formatName());
        // SPEC's object for a file; a database says which engine holds it.
        if (q->engine() != "sqlite")
            j.set("engine", q->engine());
        printJson(j);
        return ExitOk;
    }
    const TimeNs now = q->now();
    Table t({"", ""});
    t.addRow({"queue", terminalSafe(q->path()) + " (" + q->formatName() + ")"});
    t.addRow({"messages", countsLine(c, info, o.stuckAfterSeconds)});
    t.addRow({"maxsize", info.maxsize ? num(*info.maxsize) : std::string("unlimited")});
    const auto why = [&info](core::Filter::Metric m) {
        return core::QueueFormat::of(info).whyNoMetric(m, info);
    };
    t.addRow({"wait", summaryLine(st.wait, why(core::Filter::Metric::Wait))});
    t.addRow({"processing", summaryLine(st.processing, why(core::Filter::Metric::Processing))});
    t.addRow({"total", summaryLine(st.total, why(core::Filter::Metric::Total))});
    t.addRow({"time to failure",
              summaryLine(st.timeToFailure, why(core::Filter::Metric::TimeToFailure))});
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

int cmdGet(const Options& o) {
    const std::string& id = requireArg(o, 0);
    auto q = openBackendFor(o, false);
    const auto m = q->get(id);
    if (!m)
        throw Refused("no message with id " + terminalSafe(id));
    if (o.json)
        printJson(messageJson(*m, q->now(), q->info()));
    else
        printMessagePlain(*m, q->info(), q->now());
    return ExitOk;
}

int cmdFleet(const Options& o) {
    const TimeNs now = o.now ? *o.now : core::systemNowNs();
    // Throws Io (exit 5) when o.file is not a readable folder (or a
    // database's URL: its queue).
    auto entries = core::scanFleet(o.file, now, o.stuckAfterNs(), std::min(o.busyTimeoutMs, 2000));
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
                auto q = openBackendFor(one, false);
                pq.push_back(promQueueOf(*q, q->countsAndStats(o.stuckAfterNs())));
            } catch (const core::Error& ex) {
                // Changed between the scan and now: report it, keep the rest.
                err("lqctl: " + terminalSafe(e->path) + ": " + terminalSafe(ex.detail()) + "\n");
            }
        }
        out(prometheusText(pq, o.stuckAfterSeconds, now, true));
        return ExitOk;
    }
    for (auto& e : entries) // a database's URL printed without its password
        e.path = shownFile(e.path);
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
        // Its named queues, one line each under the file.
        for (const auto& [name, qc] : e->queues) {
            t.addRow({"  queue " + terminalSafe(name, 40), "", "", num(qc.ready), num(qc.locked),
                      num(qc.stuck), num(qc.done), num(qc.failed), "", ""});
        }
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

} // namespace lq::ctl
