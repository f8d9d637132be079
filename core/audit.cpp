// SPDX-License-Identifier: MIT
#include "audit.h"

#include "error.h"
#include "json.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

namespace lq::core {

namespace fs = std::filesystem;

namespace {

const char* kB64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64(std::string_view in) {
    std::string out;
    out.reserve((in.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
        const auto n = (static_cast<unsigned char>(in[i]) << 16) |
                       (static_cast<unsigned char>(in[i + 1]) << 8) |
                       static_cast<unsigned char>(in[i + 2]);
        out += kB64[(n >> 18) & 63];
        out += kB64[(n >> 12) & 63];
        out += kB64[(n >> 6) & 63];
        out += kB64[n & 63];
    }
    if (i < in.size()) {
        unsigned n = static_cast<unsigned char>(in[i]) << 16;
        if (i + 1 < in.size())
            n |= static_cast<unsigned char>(in[i + 1]) << 8;
        out += kB64[(n >> 18) & 63];
        out += kB64[(n >> 12) & 63];
        out += i + 1 < in.size() ? kB64[(n >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

std::string unbase64(std::string_view in) {
    std::string out;
    unsigned buf = 0;
    int bits = 0;
    for (char c : in) {
        const char* p = std::strchr(kB64, c);
        if (c == '=' || !p || !*p)
            continue;
        buf = (buf << 6) | static_cast<unsigned>(p - kB64);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((buf >> bits) & 0xff);
        }
    }
    return out;
}

std::optional<TimeNs> optTime(const Json& j) {
    if (j.isNull())
        return std::nullopt;
    return j.toInt();
}

std::optional<Action> parseAction(const std::string& s) {
    for (Action a :
         {Action::Retry, Action::MarkFailed, Action::Release, Action::Reschedule, Action::Delete,
          Action::Prune, Action::Enqueue, Action::Vacuum, Action::Upgrade})
        if (s == actionName(a))
            return a;
    return std::nullopt;
}

} // namespace

Json messageToJson(const Message& m) {
    Json j = Json::object();
    j.set("message_id", m.messageId);
    j.set("status", stateName(m.state));
    j.set("raw_status", m.rawStatus);
    j.set("claim_id", m.claimId);
    j.set("token", m.token);
    j.set("idempotency_key", m.idempotencyKey);
    if (!m.dataIsBlob && isValidUtf8(m.data)) {
        j.set("data", m.data);
    } else {
        j.set("data", Json());
        j.set("data_base64", base64(m.data));
        j.set("data_is_blob", m.dataIsBlob);
    }
    j.set("in_time", m.inTime);
    j.set("lock_time", m.lockTime);
    j.set("done_time", m.doneTime);
    if (m.runAt || m.lockedUntil || m.attempts) {
        j.set("run_at", m.runAt);
        j.set("locked_until", m.lockedUntil);
        j.set("attempts", m.attempts);
    }
    j.set("rowid", m.rowid);
    return j;
}

Message messageFromJson(const Json& j) {
    Message m;
    m.messageId = j["message_id"].toString();
    m.state = parseState(j["status"].toString()).value_or(State::Unknown);
    m.rawStatus = j["raw_status"].toInt();
    m.claimId = j["claim_id"].toInt();
    m.token = j["token"].toInt();
    if (j["idempotency_key"].isString())
        m.idempotencyKey = j["idempotency_key"].toString();
    if (j.contains("data_base64")) {
        m.data = unbase64(j["data_base64"].toString());
        m.dataIsBlob = j["data_is_blob"].toBool();
    } else {
        m.data = j["data"].toString();
    }
    m.inTime = optTime(j["in_time"]);
    m.lockTime = optTime(j["lock_time"]);
    m.doneTime = optTime(j["done_time"]);
    m.runAt = optTime(j["run_at"]);
    m.lockedUntil = optTime(j["locked_until"]);
    m.attempts = j["attempts"].toInt();
    m.rowid = j["rowid"].toInt();
    return m;
}

AuditLog::AuditLog(std::string dir)
    : m_dir(dir.empty() ? defaultDir() : std::move(dir)) {}

std::string AuditLog::defaultDir() {
    if (const char* d = std::getenv("LQ_AUDIT_DIR"); d && *d)
        return d;
    if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x)
        return std::string(x) + "/lqadmin/audit";
    if (const char* h = std::getenv("HOME"); h && *h)
        return std::string(h) + "/.local/share/lqadmin/audit";
    return "/tmp/lqadmin-audit";
}

std::string AuditLog::logPathFor(const std::string& queuePath) const {
    std::error_code ec;
    std::string abs = fs::weakly_canonical(fs::absolute(queuePath, ec), ec).string();
    if (abs.empty())
        abs = queuePath;
    std::string name;
    for (char c : fs::path(abs).filename().string())
        name += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-') ? c : '_';
    if (name.size() > 80)
        name.resize(80);
    char hash[20];
    std::snprintf(hash, sizeof hash, "%016zx", std::hash<std::string>()(abs));
    return m_dir + "/" + name + "-" + hash + ".jsonl";
}

Json AuditLog::toJson(const AuditEntry& e) {
    Json j = Json::object();
    j.set("when", e.when);
    j.set("queue", e.queuePath);
    j.set("action", actionName(e.action));
    j.set("undo", e.undone);
    j.set("user", e.user);
    j.set("tool", e.tool);
    j.set("skipped", e.skipped);
    if (!e.note.empty())
        j.set("note", e.note);
    Json rows = Json::array();
    for (const auto& r : e.applied) {
        Json row = Json::object();
        row.set("before", messageToJson(r.before));
        row.set("after", messageToJson(r.after));
        rows.push(std::move(row));
    }
    j.set("rows", std::move(rows));
    return j;
}

AuditEntry AuditLog::fromJson(const Json& j) {
    AuditEntry e;
    e.when = j["when"].toInt();
    e.queuePath = j["queue"].toString();
    e.action = parseAction(j["action"].toString()).value_or(Action::Retry);
    e.undone = j["undo"].toBool();
    e.user = j["user"].toString();
    e.tool = j["tool"].toString();
    e.skipped = j["skipped"].toInt();
    e.note = j["note"].toString();
    for (const auto& row : j["rows"].toArray())
        e.applied.push_back({messageFromJson(row["before"]), messageFromJson(row["after"])});
    return e;
}

void AuditLog::append(const AuditEntry& e) {
    std::error_code ec;
    fs::create_directories(m_dir, ec);
    const std::string path = logPathFor(e.queuePath);
    std::ofstream out(path, std::ios::app | std::ios::binary);
    if (!out)
        throw Error(ErrorKind::Io, path, "cannot write the audit log");
    AuditEntry copy = e;
    if (copy.user.empty())
        if (const char* u = std::getenv("USER"))
            copy.user = u;
    out << toJson(copy).dump() << '\n';
    out.flush();
    if (!out)
        throw Error(ErrorKind::Io, path, "cannot write the audit log (disk full?)");
}

std::vector<AuditEntry> AuditLog::entries(const std::string& queuePath) const {
    std::vector<AuditEntry> out;
    std::ifstream in(logPathFor(queuePath), std::ios::binary);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty())
            continue;
        try {
            out.push_back(fromJson(Json::parse(line)));
        } catch (const Error&) {
            // A torn last line (crash mid-write) is skipped, not fatal.
        }
    }
    return out;
}

std::optional<AuditEntry> AuditLog::lastUndoable(const std::string& queuePath) const {
    std::vector<AuditEntry> stack;
    for (auto& e : entries(queuePath)) {
        if (e.undone) {
            if (!stack.empty())
                stack.pop_back();
        } else if (isUndoable(e.action)) {
            stack.push_back(std::move(e));
        }
    }
    if (stack.empty())
        return std::nullopt;
    return stack.back();
}

} // namespace lq::core
