// SPDX-License-Identifier: MIT
#include "folder.h"

#include "../formats/queueformat.h"
#include "client.h"
#include "codec.h"

namespace lq::core::remote {

Json toJson(const FleetEntry& e) {
    Json j = Json::object();
    j.set("path", e.path);
    j.set("table", e.table);
    j.set("skipped", e.skipped);
    if (e.skipped) {
        j.set("reason", e.reason);
        j.set("error_kind", errorKindName(e.errorKind));
        return j;
    }
    j.set("format", e.format);
    j.set("read_only_reason", e.readOnlyReason);
    j.set("counts", toJson(e.counts));
    j.set("maxsize", e.maxsize ? Json(*e.maxsize) : Json());
    j.set("oldest_ready_in_time", e.oldestReadyInTime ? Json(*e.oldestReadyInTime) : Json());
    j.set("file_bytes", e.fileBytes);
    j.set("wal_bytes", e.walBytes);
    Json queues = Json::array();
    for (const auto& [name, counts] : e.queues) {
        Json q = Json::object();
        q.set("name", name);
        q.set("counts", toJson(counts));
        queues.push(std::move(q));
    }
    j.set("queues", std::move(queues));
    j.set("paused", toJson(e.paused));
    return j;
}

FleetEntry fleetEntryFromJson(const Json& j) {
    FleetEntry e;
    e.path = j["path"].toString();
    e.table = j["table"].toString();
    e.skipped = j["skipped"].toBool();
    if (e.skipped) {
        e.reason = j["reason"].toString();
        e.errorKind = errorKindFromName(j["error_kind"].toString()).value_or(ErrorKind::Sqlite);
        return e;
    }
    e.format = j["format"].toString();
    e.kind = QueueFormat::byId(e.format);
    if (!e.kind) {
        // A format this build does not know (a newer host): listed, not opened.
        e.skipped = true;
        e.reason = "a queue format this lqadmin does not know: " + e.format;
        e.errorKind = ErrorKind::Unsupported;
        return e;
    }
    e.readOnlyReason = j["read_only_reason"].toString();
    e.counts = countsFromJson(j["counts"]);
    if (j["maxsize"].isInt())
        e.maxsize = j["maxsize"].toInt();
    if (j["oldest_ready_in_time"].isInt())
        e.oldestReadyInTime = j["oldest_ready_in_time"].toInt();
    e.fileBytes = j["file_bytes"].toInt();
    e.walBytes = j["wal_bytes"].toInt();
    for (const auto& q : j["queues"].toArray())
        e.queues.emplace_back(q["name"].toString(), countsFromJson(q["counts"]));
    if (j["paused"].isArray())
        e.paused = pausedFromJson(j["paused"]);
    return e;
}

Json fleetJson(const std::string& dir, TimeNs now, TimeNs stuckAfterNs, int busyTimeoutMs) {
    Json entries = Json::array();
    for (const auto& e : scanFleet(dir, now, stuckAfterNs, busyTimeoutMs))
        entries.push(toJson(e));
    Json r = Json::object();
    r.set("now", now);
    r.set("entries", std::move(entries));
    return r;
}

std::unique_ptr<RemoteFolder> RemoteFolder::open(const std::string& url) {
    const SshUrl u = SshUrl::parse(url);
    std::string prefix = "ssh://" + (u.user.empty() ? std::string() : u.user + "@") + u.host +
                         (u.port ? ":" + std::to_string(u.port) : std::string());
    return open(Session::spawn(sshCommand(u), u.display()), u.path, std::move(prefix));
}

std::unique_ptr<RemoteFolder> RemoteFolder::open(std::unique_ptr<Session> s, std::string dir,
                                                 std::string prefix) {
    std::unique_ptr<RemoteFolder> f(new RemoteFolder());
    f->m_session = std::move(s);
    f->m_dir = std::move(dir);
    f->m_prefix = std::move(prefix);
    return f;
}

RemoteFolder::~RemoteFolder() = default;

std::vector<FleetEntry> RemoteFolder::scan(TimeNs now, TimeNs stuckAfterNs, int busyTimeoutMs) {
    Json p = Json::object();
    p.set("dir", m_dir);
    p.set("now", now ? Json(now) : Json());
    p.set("stuck_after_ns", stuckAfterNs);
    p.set("busy_timeout_ms", busyTimeoutMs);
    const Json r = m_session->call("fleet", std::move(p));
    std::vector<FleetEntry> out;
    for (const auto& j : r["entries"].toArray()) {
        FleetEntry e = fleetEntryFromJson(j);
        e.path = m_prefix + e.path;
        out.push_back(std::move(e));
    }
    return out;
}

} // namespace lq::core::remote
