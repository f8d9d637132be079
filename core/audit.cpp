// SPDX-License-Identifier: MIT
#include "audit.h"

#include "error.h"
#include "json.h"
#include "queue.h"

#include <fcntl.h>
#include <pwd.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

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
          Action::Prune, Action::RetryExpired, Action::Enqueue, Action::Vacuum, Action::Upgrade,
          Action::Pause, Action::Resume, Action::RunRecurring})
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
    if (m.attempts)
        j.set("attempts", m.attempts);
    j.set("rowid", m.rowid);
    // The fields of the formats beyond litequeue: only when the format has
    // them, so litequeue records stay as they were.
    const auto opt = [&](const char* key, const auto& v) {
        if (v)
            j.set(key, v);
    };
    opt("queue", m.queueName);
    opt("job_name", m.jobName);
    opt("priority", m.priority);
    opt("max_attempts", m.maxAttempts);
    opt("last_error", m.lastError);
    opt("token_text", m.tokenText);
    opt("scheduled_at", m.scheduledAt);
    opt("wait_from", m.waitFrom);
    opt("lease_expiry", m.leaseExpiry);
    opt("format_row", m.formatRow);
    opt("data_note", m.dataNote);
    if (!m.extraState.empty())
        j.set("extra_state", m.extraState);
    if (!m.statusText.empty())
        j.set("status_text", m.statusText);
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
    m.attempts = j["attempts"].toInt();
    m.rowid = j["rowid"].toInt();
    const auto optText = [&](const char* key) -> std::optional<std::string> {
        if (j[key].isString())
            return j[key].toString();
        return std::nullopt;
    };
    const auto optInt = [&](const char* key) -> std::optional<std::int64_t> {
        if (j[key].isNumber())
            return j[key].toInt();
        return std::nullopt;
    };
    m.queueName = optText("queue");
    m.jobName = optText("job_name");
    m.priority = optInt("priority");
    m.maxAttempts = optInt("max_attempts");
    m.lastError = optText("last_error");
    m.tokenText = optText("token_text");
    m.scheduledAt = optTime(j["scheduled_at"]);
    m.waitFrom = optTime(j["wait_from"]);
    m.leaseExpiry = optTime(j["lease_expiry"]);
    // Records written before jobs-lease declared its fields like every other
    // format kept its run_at and locked_until under their column names.
    if (!m.scheduledAt)
        m.scheduledAt = optTime(j["run_at"]);
    if (!m.leaseExpiry)
        m.leaseExpiry = optTime(j["locked_until"]);
    m.formatRow = optText("format_row");
    m.dataNote = optText("data_note");
    m.extraState = optText("extra_state").value_or("");
    m.statusText = optText("status_text").value_or("");
    return m;
}

std::string AuditEntry::actionLabel() const {
    return undone ? std::string("undo") : std::string(actionName(action));
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

std::string AuditLog::currentUser() {
    const uid_t uid = ::geteuid();
    std::vector<char> buf(16384);
    passwd pw{};
    passwd* found = nullptr;
    if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found && found->pw_name &&
        *found->pw_name)
        return found->pw_name;
    if (const char* u = std::getenv("USER"); u && *u)
        return u;
    return "uid " + std::to_string(uid);
}

std::string AuditLog::hostName() {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) == 0 && buf[0])
        return buf;
    return "localhost";
}

std::string AuditLog::newId() {
    return Queue::newMessageId(systemNowNs());
}

std::string AuditLog::logPathFor(const std::string& queuePath) const {
    // A database's URL (postgresql://...) names it wherever we run; a file's
    // path is made absolute first.
    const bool url = queuePath.find("://") != std::string::npos;
    std::error_code ec;
    std::string abs =
        url ? queuePath : fs::weakly_canonical(fs::absolute(queuePath, ec), ec).string();
    if (abs.empty())
        abs = queuePath;
    std::string name;
    for (char c : url ? abs : fs::path(abs).filename().string())
        name += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-') ? c : '_';
    if (name.size() > 80)
        name.resize(80);
    char hash[20];
    std::snprintf(hash, sizeof hash, "%016zx", std::hash<std::string>()(abs));
    return m_dir + "/" + name + "-" + hash + ".jsonl";
}

namespace {

Json headerJson(const AuditEntry& e, const char* kind) {
    Json j = Json::object();
    j.set("v", 2);
    j.set("id", e.id);
    j.set("kind", kind);
    j.set("when", e.when);
    j.set("queue", e.queuePath);
    j.set("dev", static_cast<std::int64_t>(e.device));
    j.set("ino", static_cast<std::int64_t>(e.inode));
    j.set("action", actionName(e.action));
    j.set("undo", e.undone);
    if (!e.undoes.empty())
        j.set("undoes", e.undoes);
    j.set("user", e.user);
    j.set("host", e.host);
    j.set("tool", e.tool);
    if (!e.filter.empty())
        j.set("filter", e.filter);
    j.set("cutoff_ns", e.cutoff);
    return j;
}

Json rowsJson(const std::vector<AppliedRow>& rows) {
    Json a = Json::array();
    for (const auto& r : rows) {
        Json row = Json::object();
        row.set("before", messageToJson(r.before));
        row.set("after", messageToJson(r.after));
        if (!r.note.empty())
            row.set("note", r.note);
        a.push(std::move(row));
    }
    return a;
}

Json skippedJson(const std::vector<SkippedRow>& rows) {
    Json a = Json::array();
    for (const auto& r : rows) {
        Json row = Json::object();
        row.set("id", r.messageId);
        row.set("reason", r.reason);
        row.set("kind", skipKindName(r.kind));
        a.push(std::move(row));
    }
    return a;
}

std::vector<AppliedRow> rowsFrom(const Json& a) {
    std::vector<AppliedRow> out;
    for (const auto& row : a.toArray())
        out.push_back({messageFromJson(row["before"]), messageFromJson(row["after"]),
                       row["note"].isString() ? row["note"].toString() : std::string()});
    return out;
}

std::vector<SkippedRow> skippedFrom(const Json& a) {
    std::vector<SkippedRow> out;
    for (const auto& row : a.toArray()) {
        SkippedRow s{row["id"].toString(), row["reason"].toString(), SkipKind::Changed};
        for (SkipKind k :
             {SkipKind::Changed, SkipKind::Gone, SkipKind::Conflict, SkipKind::NotApplicable})
            if (row["kind"].isString() && row["kind"].toString() == skipKindName(k))
                s.kind = k;
        out.push_back(std::move(s));
    }
    return out;
}

/// The header fields of any v2 line, or the whole of a v1 line.
AuditEntry headerFrom(const Json& j) {
    AuditEntry e;
    e.id = j["id"].isString() ? j["id"].toString() : std::string();
    e.when = j["when"].toInt();
    e.queuePath = j["queue"].toString();
    e.device = static_cast<std::uint64_t>(j["dev"].isNull() ? 0 : j["dev"].toInt());
    e.inode = static_cast<std::uint64_t>(j["ino"].isNull() ? 0 : j["ino"].toInt());
    e.action = parseAction(j["action"].toString()).value_or(Action::Retry);
    e.undone = j["undo"].toBool();
    e.undoes = j["undoes"].isString() ? j["undoes"].toString() : std::string();
    e.user = j["user"].toString();
    e.host = j["host"].isString() ? j["host"].toString() : std::string();
    e.tool = j["tool"].toString();
    e.filter = j["filter"].isString() ? j["filter"].toString() : std::string();
    e.cutoff = optTime(j["cutoff_ns"]);
    return e;
}

} // namespace

Json AuditLog::toJson(const AuditEntry& e) {
    Json j = headerJson(e, "whole");
    j.set("rows", rowsJson(e.applied));
    j.set("skipped", e.skipped);
    j.set("skipped_rows", skippedJson(e.skippedRows));
    j.set("not_attempted", e.notAttempted);
    j.set("cancelled", e.cancelled);
    if (!e.error.empty())
        j.set("error", e.error);
    if (!e.note.empty())
        j.set("note", e.note);
    return j;
}

AuditEntry AuditLog::fromJson(const Json& j) {
    AuditEntry e = headerFrom(j);
    if (j["rows"].isArray())
        e.applied = rowsFrom(j["rows"]);
    if (j["skipped_rows"].isArray())
        e.skippedRows = skippedFrom(j["skipped_rows"]);
    e.skipped = j["skipped"].isNull() ? std::int64_t(e.skippedRows.size()) : j["skipped"].toInt();
    e.notAttempted = j["not_attempted"].isNull() ? 0 : j["not_attempted"].toInt();
    e.cancelled = j["cancelled"].toBool();
    e.error = j["error"].isString() ? j["error"].toString() : std::string();
    e.note = j["note"].isString() ? j["note"].toString() : std::string();
    e.complete = !j["kind"].isString() || j["kind"].toString() != "chunk";
    return e;
}

void AuditLog::appendLine(const std::string& queuePath, const Json& line) const {
    std::error_code ec;
    fs::create_directories(m_dir, ec);
    const std::string path = logPathFor(queuePath);
    const std::string text = line.dump() + "\n";
    // One write() per line on an O_APPEND descriptor, then fsync: a line is
    // whole or absent, and on disk before the chunk it describes commits.
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        throw Error(ErrorKind::Io, path,
                    std::string("cannot write the audit log: ") + std::strerror(errno));
    std::size_t off = 0;
    while (off < text.size()) {
        const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const int err = errno;
            ::close(fd);
            throw Error(ErrorKind::Io, path,
                        std::string("cannot write the audit log (disk full?): ") +
                            std::strerror(err));
        }
        off += static_cast<std::size_t>(n);
    }
    const bool synced = ::fsync(fd) == 0;
    ::close(fd);
    if (!synced)
        throw Error(ErrorKind::Io, path, "cannot flush the audit log to disk");
}

void AuditLog::append(const AuditEntry& e) {
    AuditEntry copy = e;
    if (copy.id.empty())
        copy.id = newId();
    if (copy.user.empty())
        copy.user = currentUser();
    if (copy.host.empty())
        copy.host = hostName();
    if (copy.skipped == 0)
        copy.skipped = static_cast<std::int64_t>(copy.skippedRows.size());
    appendLine(copy.queuePath, toJson(copy));
}

void AuditLog::appendChunk(const AuditEntry& header, std::size_t index, const ActionResult& chunk) {
    Json j = headerJson(header, "chunk");
    j.set("chunk", static_cast<std::int64_t>(index));
    j.set("rows", rowsJson(chunk.applied));
    j.set("skipped_rows", skippedJson(chunk.skipped));
    appendLine(header.queuePath, j);
}

void AuditLog::appendRollback(const AuditEntry& header, std::size_t index) {
    Json j = headerJson(header, "rollback");
    j.set("chunk", static_cast<std::int64_t>(index));
    appendLine(header.queuePath, j);
}

void AuditLog::appendEnd(const AuditEntry& e) {
    Json j = headerJson(e, "end");
    j.set("applied", static_cast<std::int64_t>(e.applied.size()));
    j.set("skipped", e.skipped);
    j.set("not_attempted", e.notAttempted);
    j.set("cancelled", e.cancelled);
    if (!e.error.empty())
        j.set("error", e.error);
    if (!e.note.empty())
        j.set("note", e.note);
    appendLine(e.queuePath, j);
}

std::vector<AuditEntry> AuditLog::entries(const std::string& queuePath) const {
    std::vector<AuditEntry> out;
    std::map<std::string, std::size_t> index; // id -> position in out
    struct Chunk {
        std::vector<AppliedRow> rows;
        std::vector<SkippedRow> skipped;
    };
    std::map<std::string, std::map<std::int64_t, Chunk>> chunks;
    std::vector<std::size_t> v1Stack; // the old format's undo pairs by order
    std::ifstream in(logPathFor(queuePath), std::ios::binary);
    std::string line;
    std::int64_t lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.empty())
            continue;
        Json j;
        try {
            j = Json::parse(line);
        } catch (const Error&) {
            continue; // a torn last line (crash mid-write) is skipped, not fatal
        }
        if (!j.isObject())
            continue;
        if (!j.contains("v")) {
            // The one-line format of earlier versions: undo entries pair
            // with the newest open record, as they did then.
            AuditEntry e = fromJson(j);
            e.id = "v1-" + std::to_string(lineNo);
            e.complete = true;
            if (e.undone) {
                if (!v1Stack.empty()) {
                    e.undoes = out[v1Stack.back()].id;
                    v1Stack.pop_back();
                }
            } else if (isUndoable(e.action)) {
                v1Stack.push_back(out.size());
            }
            index[e.id] = out.size();
            out.push_back(std::move(e));
            continue;
        }
        const std::string kind = j["kind"].isString() ? j["kind"].toString() : std::string();
        const std::string id = j["id"].isString() ? j["id"].toString() : std::string();
        if (id.empty())
            continue;
        auto it = index.find(id);
        if (it == index.end()) {
            AuditEntry e = headerFrom(j);
            e.complete = false;
            it = index.emplace(id, out.size()).first;
            out.push_back(std::move(e));
        }
        AuditEntry& e = out[it->second];
        if (kind == "chunk") {
            Chunk& c = chunks[id][j["chunk"].toInt()];
            c.rows = rowsFrom(j["rows"]);
            c.skipped = skippedFrom(j["skipped_rows"]);
        } else if (kind == "rollback") {
            chunks[id].erase(j["chunk"].toInt());
        } else if (kind == "whole") {
            AuditEntry whole = fromJson(j);
            whole.complete = true;
            e = std::move(whole);
        } else if (kind == "end") {
            e.skipped = j["skipped"].toInt();
            e.notAttempted = j["not_attempted"].toInt();
            e.cancelled = j["cancelled"].toBool();
            e.error = j["error"].isString() ? j["error"].toString() : std::string();
            e.note = j["note"].isString() ? j["note"].toString() : std::string();
            e.complete = true;
        }
    }
    for (auto& [id, byIndex] : chunks) {
        AuditEntry& e = out[index[id]];
        std::int64_t skipped = 0;
        for (auto& [i, c] : byIndex) {
            e.applied.insert(e.applied.end(), std::make_move_iterator(c.rows.begin()),
                             std::make_move_iterator(c.rows.end()));
            skipped += static_cast<std::int64_t>(c.skipped.size());
            e.skippedRows.insert(e.skippedRows.end(), std::make_move_iterator(c.skipped.begin()),
                                 std::make_move_iterator(c.skipped.end()));
        }
        if (!e.complete)
            e.skipped = skipped;
    }
    for (const AuditEntry& e : out) {
        if (!e.undone || !e.complete || e.undoes.empty())
            continue;
        if (auto t = index.find(e.undoes); t != index.end())
            out[t->second].undoneBy = e.id;
    }
    return out;
}

std::optional<AuditEntry> AuditLog::lastUndoable(const std::string& queuePath) const {
    auto all = entries(queuePath);
    // Newest first. NOLINTNEXTLINE(modernize-loop-convert)
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
        if (it->undone || !isUndoable(it->action) || it->applied.empty() || !it->undoneBy.empty())
            continue;
        return std::move(*it);
    }
    return std::nullopt;
}

std::optional<AuditEntry> AuditLog::find(const std::string& queuePath,
                                         const std::string& id) const {
    for (auto& e : entries(queuePath))
        if (e.id == id)
            return std::move(e);
    return std::nullopt;
}

} // namespace lq::core
