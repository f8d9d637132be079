// SPDX-License-Identifier: MIT
// `lqctl info postgresql://...`: a queue kept in PostgreSQL (issue 41).
// Opened through core::PgQueue, read-only; the counts are printed by the
// same renderers as a SQLite file's (countsJson, subCountsJson,
// countsLine). stats, list, get, errors, queues, processes, recurring,
// pause and resume take a postgresql:// queue through core::QueueBackend,
// as they take a file; every other command refuses one (cli.cpp: "not on
// PostgreSQL yet").
#include "commands.h"
#include "output.h"

#include <core/pg/pgqueue.h>
#include <core/statemodel.h>

#include <algorithm>
#include <cstring>

namespace lq::ctl {

using core::Json;

namespace {

std::unique_ptr<core::PgQueue> openPostgres(const Options& o) {
    core::PgOpenOptions po;
    if (o.now)
        po.clock = core::fixedClock(*o.now);
    auto q = core::PgQueue::open(o.file, po);
    if (!o.queue.empty() && q->countsSupported()) {
        const auto names = q->queueNames();
        if (std::find(names.begin(), names.end(), o.queue) == names.end()) {
            std::string list;
            for (const auto& n : names)
                list += (list.empty() ? "" : ", ") + terminalSafe(n, 60);
            throw Refused("no queue " + terminalSafe(o.queue, 60) + " in " +
                          terminalSafe(q->url()) +
                          "; queues: " + (list.empty() ? std::string("none") : list));
        }
    }
    return q;
}

/// What a library without counts yet says instead of them.
std::string notYet(const core::PgQueue& q) {
    return "counts of " + core::pg::libraryName(q.formatId()) +
           " on PostgreSQL: not yet (issue 41)";
}

Json stringArray(const std::vector<std::string>& v) {
    Json a = Json::array();
    for (const auto& s : v)
        a.push(s);
    return a;
}

} // namespace

bool isPostgres(const Options& o) {
    return core::pg::isPostgresUrl(o.file);
}

bool takesPostgres(std::string_view command) {
    // info below; the others run on core::QueueBackend
    // (openBackendFor), which opens a postgresql:// URL as it opens a file.
    for (const char* c :
         {"info",      "stats",      "list",     "get",           "errors", "queues",
          "processes", "recurring",  "pause",    "resume",        "retry",  "fail",
          "release",   "reschedule", "prune",    "retry-expired", "delete", "undo",
          "audit",     "fleet",      "exporter", "watch"})
        if (command == c)
            return true;
    return false;
}

std::optional<core::Action> fileOnlyAction(std::string_view command) {
    if (command == "put")
        return core::Action::Enqueue;
    if (command == "vacuum")
        return core::Action::Vacuum;
    if (command == "upgrade")
        return core::Action::Upgrade;
    return std::nullopt;
}

std::string shownFile(const std::string& file) {
    return core::pg::isPostgresUrl(file) ? core::pg::redactedUrl(file) : file;
}

int cmdInfoPostgres(const Options& o) {
    auto q = openPostgres(o);
    const core::FormatInfo& info = q->info();
    std::optional<core::Counts> c;
    if (q->countsSupported())
        c = q->counts(o.stuckAfterNs(), o.queue);
    std::vector<std::pair<std::string, core::Counts>> queues;
    if (c)
        for (const auto& name : q->queueNames())
            if (o.queue.empty() || name == o.queue)
                queues.emplace_back(name, q->counts(o.stuckAfterNs(), name));
    if (o.json) {
        Json j = Json::object();
        j.set("path", q->url());
        j.set("engine", "postgresql");
        j.set("server_version", static_cast<std::int64_t>(q->serverVersion()));
        j.set("format", q->formatId());
        j.set("library", core::pg::libraryName(q->formatId()));
        j.set("schema", q->found().schema);
        j.set("table", info.table);
        j.set("queue_tables", stringArray(info.queueTables));
        // As the window would write it: the user's rights, the library's
        // functions, a library lqcore does not write yet.
        j.set("read_only", !info.readOnlyReason.empty());
        j.set("read_only_reason", info.readOnlyReason.empty() ? Json() : Json(info.readOnlyReason));
        j.set("warnings", stringArray(info.warnings));
        Json found = Json::array();
        for (const auto& f : q->catalog().found) {
            Json e = Json::object();
            e.set("schema", f.schema);
            e.set("format", f.library);
            found.push(std::move(e));
        }
        j.set("found", std::move(found));
        j.set("notice", c ? Json() : Json(notYet(*q)));
        if (c) {
            const core::StateModel m = core::stateModel(core::QueueFormat::of(info), *c);
            j.set("counts", countsJson(*c, info));
            j.set("stuck", c->stuck);
            j.set("sub_counts", subCountsJson(m));
        } else {
            j.set("counts", Json());
            j.set("stuck", Json());
            j.set("sub_counts", Json());
        }
        j.set("named_queues", c.has_value());
        Json qa = Json::array();
        for (const auto& [name, qc] : queues) {
            Json qj = Json::object();
            qj.set("name", name);
            qj.set("counts", countsJson(qc, info));
            qa.push(std::move(qj));
        }
        j.set("queues", std::move(qa));
        printJson(j);
        return ExitOk;
    }
    Table t({"", ""});
    t.addRow({"database", terminalSafe(q->url())});
    t.addRow({"format", q->formatId() + " (" + core::pg::libraryName(q->formatId()) + ", schema " +
                            terminalSafe(q->found().schema) + ")"});
    t.addRow({"server", "PostgreSQL " + num(q->serverVersion() / 10000) + "." +
                            num(q->serverVersion() % 10000)});
    std::string tables;
    for (const auto& s : q->found().tables)
        tables += (tables.empty() ? "" : ", ") + terminalSafe(s);
    t.addRow({"tables", tables});
    t.addRow({"messages", c ? countsLine(*c, info, o.stuckAfterSeconds) : notYet(*q)});
    for (const auto& [name, qc] : queues)
        t.addRow({"queue " + terminalSafe(name, 60), countsLine(qc, info, o.stuckAfterSeconds)});
    t.addRow({"writable", info.readOnlyReason.empty()
                              ? std::string("yes")
                              : "no: " + terminalSafe(info.readOnlyReason)});
    for (const auto& w : info.warnings)
        t.addRow({"note", terminalSafe(w)});
    std::string r = t.render();
    r.erase(0, r.find('\n') + 1);
    out(r);
    return ExitOk;
}

} // namespace lq::ctl
