// SPDX-License-Identifier: MIT
#include "client.h"

#include "codec.h"
#include "server.h"
#include "transport.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>

extern char** environ;

namespace lq::core::remote {

namespace {

/// Replies may be large (a page of big payloads); requests are capped.
constexpr std::size_t kMaxReplyBytes = std::size_t(1) << 30;

Error invalid(std::string_view url, const std::string& what) {
    return Error(ErrorKind::InvalidArgument, std::string(url), what);
}

std::string envOr(const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : std::string(fallback);
}

/// `f` for the request, refused where the server would drop its `where`
/// (an older lqctl ignores an unknown member and would match every job).
Json filterJson(const Session& s, const Filter& f) {
    if (!f.where.empty() && !s.filtersWhere())
        throw Error(ErrorKind::InvalidArgument, s.label(),
                    "the lqctl on this host cannot filter by a JSON field (" + f.where +
                        "); install the same lqadmin version on both machines");
    return toJson(f);
}

} // namespace

std::string SshUrl::display() const {
    return "ssh://" + host + (port ? ":" + std::to_string(port) : std::string()) + path;
}

bool isRemoteUrl(std::string_view path) {
    return path.starts_with("ssh://");
}

SshUrl SshUrl::parse(std::string_view url) {
    if (!isRemoteUrl(url))
        throw invalid(url, "not an ssh:// URL");
    std::string_view rest = url.substr(6);
    const auto slash = rest.find('/');
    if (slash == std::string_view::npos || slash + 1 >= rest.size())
        throw invalid(url, "expected ssh://[user@]host[:port]/absolute/path");
    SshUrl u;
    u.path = std::string(rest.substr(slash));
    std::string_view auth = rest.substr(0, slash);
    if (const auto at = auth.rfind('@'); at != std::string_view::npos) {
        u.user = std::string(auth.substr(0, at));
        auth = auth.substr(at + 1);
        if (u.user.empty())
            throw invalid(url, "empty user name before '@'");
    }
    if (const auto colon = auth.rfind(':'); colon != std::string_view::npos) {
        const std::string port(auth.substr(colon + 1));
        char* end = nullptr;
        const long p = std::strtol(port.c_str(), &end, 10);
        if (port.empty() || *end || p < 1 || p > 65535)
            throw invalid(url, "bad port \"" + port + "\"");
        u.port = static_cast<int>(p);
        auth = auth.substr(0, colon);
    }
    u.host = std::string(auth);
    if (u.host.empty() || u.host.front() == '-')
        throw invalid(url, "missing or invalid host name");
    return u;
}

std::vector<std::string> sshCommand(const SshUrl& url) {
    std::vector<std::string> argv = {envOr("LQ_SSH", "ssh"), "-T", "-o", "BatchMode=yes"};
    std::istringstream opts(envOr("LQ_SSH_OPTS", ""));
    for (std::string w; opts >> w;)
        argv.push_back(w);
    if (url.port) {
        argv.emplace_back("-p");
        argv.push_back(std::to_string(url.port));
    }
    argv.push_back(url.user.empty() ? url.host : url.user + "@" + url.host);
    // The remote shell joins the words; the remote lqctl path is one word.
    argv.push_back(envOr("LQ_REMOTE_LQCTL", "lqctl"));
    argv.emplace_back("serve");
    argv.emplace_back("--stdio");
    return argv;
}

// ---- Session -------------------------------------------------------------

std::unique_ptr<Session> Session::spawn(const std::vector<std::string>& argv, std::string label,
                                        int protocolVersion) {
    std::unique_ptr<Session> s(new Session());
    s->m_label = std::move(label);
    // stdin and stdout are one socket: writes to a dead child fail with
    // EPIPE instead of raising SIGPIPE in the caller's process.
    int io[2];
    int errp[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, io) != 0 ||
        ::pipe2(errp, O_CLOEXEC) != 0)
        throw Error(ErrorKind::Io, s->m_label,
                    std::string("cannot create pipes: ") + std::strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, io[1], 0);
    posix_spawn_file_actions_adddup2(&fa, io[1], 1);
    posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const auto& a : argv)
        args.push_back(
            const_cast<char*>(a.c_str())); // NOLINT(cppcoreguidelines-pro-type-const-cast)
    args.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(io[1]);
    ::close(errp[1]);
    if (rc != 0) {
        ::close(io[0]);
        ::close(errp[0]);
        throw Error(ErrorKind::Io, s->m_label, "cannot run " + argv[0] + ": " + std::strerror(rc));
    }
    s->m_pid = pid;
    s->m_in = io[0];
    s->m_out = io[0];
    s->m_err = errp[0];
    s->m_reader = std::make_unique<LineReader>(s->m_out, kMaxReplyBytes);
    s->m_errThread = std::thread([raw = s.get()] {
        char buf[4096];
        for (;;) {
            const ssize_t n = ::read(raw->m_err, buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            std::lock_guard lock(raw->m_errMutex);
            raw->m_stderr.append(buf, static_cast<std::size_t>(n));
            if (raw->m_stderr.size() > 8192)
                raw->m_stderr.erase(0, raw->m_stderr.size() - 4096);
        }
    });
    Json hello = Json::object();
    hello.set("protocol", protocolVersion ? protocolVersion : kProtocolVersion);
    s->m_filtersWhere = s->call("hello", std::move(hello))["filter_where"].toBool();
    return s;
}

Session::~Session() {
    close();
}

void Session::close() {
    std::lock_guard lock(m_mutex);
    if (m_in >= 0) {
        ::shutdown(m_in, SHUT_WR); // end of input: the server ends its session
        m_in = -1;
    }
    if (m_pid > 0) {
        // Give the server a moment to see end of input, then stop it.
        int status = 0;
        bool gone = false;
        for (int i = 0; i < 50 && !gone; ++i) {
            gone = ::waitpid(m_pid, &status, WNOHANG) == m_pid;
            if (!gone)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        if (!gone) {
            ::kill(m_pid, SIGTERM);
            ::waitpid(m_pid, &status, 0);
        }
        m_pid = -1;
    }
    if (m_errThread.joinable())
        m_errThread.join();
    if (m_out >= 0) {
        ::close(m_out);
        m_out = -1;
    }
    if (m_err >= 0) {
        ::close(m_err);
        m_err = -1;
    }
    m_dead = true;
}

void Session::lost() {
    m_dead = true;
    std::string how = "the connection was lost";
    if (m_pid > 0) {
        int status = 0;
        pid_t r = 0;
        for (int i = 0; i < 100 && r == 0; ++i) {
            r = ::waitpid(m_pid, &status, WNOHANG);
            if (r == 0)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        if (r == m_pid) {
            m_pid = -1;
            if (WIFEXITED(status))
                how += " (the server command exited with status " +
                       std::to_string(WEXITSTATUS(status)) + ")";
            else if (WIFSIGNALED(status))
                how += " (the server command was killed by signal " +
                       std::to_string(WTERMSIG(status)) + ")";
        }
    }
    if (m_errThread.joinable() && m_pid < 0)
        m_errThread.join();
    std::string tail;
    {
        std::lock_guard lock(m_errMutex);
        tail = m_stderr;
    }
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r'))
        tail.pop_back();
    if (const auto nl = tail.rfind('\n'); nl != std::string::npos)
        tail.erase(0, nl + 1);
    if (!tail.empty())
        how += ": " + tail;
    throw Error(ErrorKind::Io, m_label, how + ". Reconnect to continue");
}

Json Session::readReply(std::int64_t id, const ChunkHandler* chunks) {
    std::string line;
    for (;;) {
        if (m_reader->next(line) != LineReader::Status::Line)
            lost();
        Json j;
        try {
            j = Json::parse(line);
        } catch (const Error& e) {
            throw Error(ErrorKind::Io, m_label,
                        "the server sent something that is not the protocol: " + e.detail() +
                            " (is the remote lqctl the right program?)");
        }
        if (j.contains("event")) {
            if (j["id"].isInt() && j["id"].toInt() == id) {
                const std::string ev = j["event"].toString();
                const auto index = static_cast<std::size_t>(j["index"].toInt());
                if (ev == "chunk") {
                    Json ack = Json::object();
                    ack.set("ack", id);
                    try {
                        if (!chunks || !chunks->beforeCommit)
                            throw Error(ErrorKind::Io, m_label, "nobody records this action");
                        chunks->beforeCommit(actionResultFromJson(j["chunk"]), index);
                        ack.set("ok", true);
                    } catch (const std::exception& e) {
                        ack.set("ok", false);
                        ack.set("error", std::string(e.what()));
                    }
                    if (!writeAll(m_in, ack.dump() + "\n"))
                        lost();
                } else if (ev == "rolled_back" && chunks && chunks->rolledBack) {
                    chunks->rolledBack(index);
                }
            } else {
                m_events.push_back(std::move(j));
            }
            continue;
        }
        if (!j["id"].isInt() || j["id"].toInt() != id) {
            if (j.contains("error"))
                throw errorFromJson(j["error"], m_label);
            continue; // a late reply to an abandoned request
        }
        if (j.contains("error"))
            throw errorFromJson(j["error"], m_label);
        return j["result"];
    }
}

Json Session::call(const std::string& method, Json params, const ChunkHandler* chunks) {
    std::lock_guard lock(m_mutex);
    if (m_dead)
        throw Error(ErrorKind::Io, m_label, "the connection is closed. Reconnect to continue");
    const std::int64_t id = m_nextId++;
    Json req = Json::object();
    req.set("id", id);
    req.set("method", method);
    req.set("params", std::move(params));
    if (!writeAll(m_in, req.dump() + "\n"))
        lost();
    return readReply(id, chunks);
}

Json Session::rawExchange(const std::string& line) {
    std::lock_guard lock(m_mutex);
    if (!writeAll(m_in, line + "\n"))
        lost();
    std::string reply;
    for (;;) {
        if (m_reader->next(reply) != LineReader::Status::Line)
            lost();
        Json j = Json::parse(reply);
        if (j.contains("event") && !j.contains("id")) {
            m_events.push_back(std::move(j));
            continue;
        }
        return j;
    }
}

std::vector<Json> Session::takeEvents() {
    std::lock_guard lock(m_mutex);
    return std::exchange(m_events, {});
}

bool Session::waitEvent(int timeoutMs) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    for (;;) {
        std::lock_guard lock(m_mutex);
        if (!m_events.empty())
            return true;
        if (m_dead)
            return false;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - std::chrono::steady_clock::now())
                              .count();
        if (left <= 0 || !m_reader->wait(static_cast<int>(std::min<long long>(left, 50)))) {
            if (left <= 0)
                return false;
            continue;
        }
        std::string line;
        if (m_reader->next(line) != LineReader::Status::Line) {
            m_dead = true;
            return false;
        }
        try {
            Json j = Json::parse(line);
            if (j.contains("event"))
                m_events.push_back(std::move(j));
        } catch (const Error&) {
        }
    }
}

// ---- RemoteQueue -----------------------------------------------------------

std::unique_ptr<RemoteQueue> RemoteQueue::open(const std::string& url, RemoteOpenOptions o) {
    const SshUrl u = SshUrl::parse(url);
    return open(Session::spawn(sshCommand(u), u.display()), u.path, std::move(o));
}

std::unique_ptr<RemoteQueue> RemoteQueue::open(std::unique_ptr<Session> s, const std::string& path,
                                               RemoteOpenOptions o) {
    std::unique_ptr<RemoteQueue> q(new RemoteQueue());
    q->m_session = std::move(s);
    q->m_url = q->m_session->label();
    Json p = Json::object();
    p.set("path", path);
    p.set("read_only", o.readOnly);
    p.set("table", o.table);
    p.set("busy_timeout_ms", o.busyTimeoutMs);
    p.set("now", o.now ? Json(*o.now) : Json());
    if (!o.settings.empty()) // absent: the library defaults, as a v1 server assumes
        p.set("settings", toJson(o.settings));
    const Json r = q->m_session->call("open", std::move(p));
    q->m_path = r["path"].toString();
    q->m_info = formatInfoFromJson(r["info"]);
    q->m_readOnly = r["read_only"].toBool();
    q->m_device = static_cast<std::uint64_t>(r["device"].toInt());
    q->m_inode = static_cast<std::uint64_t>(r["inode"].toInt());
    return q;
}

Json RemoteQueue::info(const char* key) {
    return m_session->call("info")[key];
}

TimeNs RemoteQueue::now() {
    return m_session->call("now").toInt();
}

Counts RemoteQueue::counts(TimeNs stuckAfterNs) {
    return counts(std::string(), stuckAfterNs);
}

Counts RemoteQueue::counts(const std::string& queueName, TimeNs stuckAfterNs) {
    Json p = Json::object();
    p.set("stuck_after_ns", stuckAfterNs);
    if (!queueName.empty())
        p.set("queue", queueName);
    return countsFromJson(m_session->call("counts", std::move(p)));
}

std::vector<std::string> RemoteQueue::queueNames() {
    std::vector<std::string> names;
    // The reply held by name: a range-for keeps only toArray()'s reference,
    // not the temporary it refers into.
    const Json reply = m_session->call("queue_names");
    for (const auto& n : reply.toArray())
        names.push_back(n.toString());
    return names;
}

ProcessList RemoteQueue::processes(std::optional<TimeNs> now) {
    Json p = Json::object();
    if (now)
        p.set("now", *now);
    return processesFromJson(m_session->call("processes", p));
}

RecurringList RemoteQueue::recurringTasks(std::optional<TimeNs> now, int tzOffset) {
    Json p = Json::object();
    if (now)
        p.set("now", *now);
    p.set("tz_offset", static_cast<std::int64_t>(tzOffset));
    return recurringFromJson(m_session->call("recurring_tasks", p));
}

std::vector<PausedQueue> RemoteQueue::pausedQueues() {
    return pausedFromJson(m_session->call("paused_queues"));
}

std::int64_t RemoteQueue::count(const Filter& f) {
    Json p = Json::object();
    p.set("filter", filterJson(*m_session, f));
    return m_session->call("count", std::move(p)).toInt();
}

std::vector<Message> RemoteQueue::list(const Filter& f, const Sort& s, std::int64_t offset,
                                       std::int64_t limit) {
    Json p = Json::object();
    p.set("filter", filterJson(*m_session, f));
    p.set("sort", toJson(s));
    p.set("offset", offset);
    p.set("limit", limit);
    return messagesFromJson(m_session->call("list", std::move(p)));
}

std::vector<std::int64_t> RemoteQueue::orderedRowids(const Filter& f, const Sort& s) {
    Json p = Json::object();
    p.set("filter", filterJson(*m_session, f));
    p.set("sort", toJson(s));
    std::vector<std::int64_t> out;
    const Json r = m_session->call("rowids", std::move(p));
    out.reserve(r.toArray().size());
    for (const auto& x : r.toArray())
        out.push_back(x.toInt());
    return out;
}

std::vector<Message> RemoteQueue::fetchRowids(const std::vector<std::int64_t>& rowids) {
    Json p = Json::object();
    Json a = Json::array();
    for (auto r : rowids)
        a.push(r);
    p.set("rowids", std::move(a));
    return messagesFromJson(m_session->call("fetch", std::move(p)));
}

std::optional<Message> RemoteQueue::get(std::string_view messageId) {
    Json p = Json::object();
    p.set("message_id", messageId);
    const Json r = m_session->call("get", std::move(p));
    if (r.isNull())
        return std::nullopt;
    return messageFromJson(r);
}

QueueStats RemoteQueue::stats(const Filter& f) {
    Json p = Json::object();
    p.set("filter", filterJson(*m_session, f));
    return statsFromJson(m_session->call("stats", std::move(p)));
}

std::vector<TimeBucket> RemoteQueue::series(const Filter& f, TimeNs from, TimeNs to,
                                            TimeNs bucket) {
    Json p = Json::object();
    p.set("filter", filterJson(*m_session, f));
    p.set("from", from);
    p.set("to", to);
    p.set("bucket", bucket);
    return seriesFromJson(m_session->call("series", std::move(p)));
}

DashboardFigures RemoteQueue::dashboard(const DashboardQuery& q) {
    return dashboardFromJson(m_session->call("dashboard", toJson(q)));
}

QueueOverview RemoteQueue::queueOverview(const DashboardQuery& q) {
    return queueOverviewFromJson(m_session->call("queue_overview", toJson(q)));
}

std::int64_t RemoteQueue::fileSize() {
    return info("file_size").toInt();
}

std::int64_t RemoteQueue::walSize() {
    return info("wal_size").toInt();
}

std::int64_t RemoteQueue::dataVersion() {
    return info("data_version").toInt();
}

Plan RemoteQueue::plan(Json request) {
    return planFromJson(m_session->call("plan", std::move(request)));
}

ActionResult RemoteQueue::apply(const Plan& p, const Session::ChunkHandler& chunks) {
    Json params = Json::object();
    params.set("plan", toJson(p));
    return actionResultFromJson(m_session->call("apply", std::move(params), &chunks));
}

ActionResult RemoteQueue::undo(Action a, const std::vector<AppliedRow>& applied,
                               const Session::ChunkHandler& chunks) {
    Json params = Json::object();
    params.set("action", actionName(a));
    params.set("applied", toJson(applied));
    return actionResultFromJson(m_session->call("undo", std::move(params), &chunks));
}

// ---- RemoteOperator --------------------------------------------------------

RemoteOperator::RemoteOperator(RemoteQueue& q, std::string tool, AuditLog log)
    : m_q(q)
    , m_tool(std::move(tool))
    , m_log(std::move(log)) {}

Plan RemoteOperator::planTargets(Action a, const std::vector<Target>& targets) const {
    Json p = Json::object();
    p.set("kind", "targets");
    p.set("action", actionName(a));
    p.set("targets", toJson(targets));
    return m_q.plan(std::move(p));
}

Plan RemoteOperator::planFilter(Action a, const Filter& f) const {
    Json p = Json::object();
    p.set("kind", "filter");
    p.set("action", actionName(a));
    p.set("filter", filterJson(m_q.session(), f));
    return m_q.plan(std::move(p));
}

Plan RemoteOperator::planRetryExpired(std::chrono::nanoseconds threshold, std::optional<TimeNs> now,
                                      const std::string& queue) const {
    Json p = Json::object();
    p.set("kind", "retry-expired");
    if (!queue.empty())
        p.set("queue", queue);
    p.set("threshold_s", secondsJson(threshold));
    p.set("now", now ? Json(*now) : Json());
    return m_q.plan(std::move(p));
}

Plan RemoteOperator::planPrune(bool includeFailed,
                               std::optional<std::chrono::nanoseconds> olderThan,
                               std::optional<TimeNs> now, const std::string& queue) const {
    Json p = Json::object();
    p.set("kind", "prune");
    if (!queue.empty())
        p.set("queue", queue);
    p.set("include_failed", includeFailed);
    p.set("older_than_s", secondsJson(olderThan));
    p.set("now", now ? Json(*now) : Json());
    return m_q.plan(std::move(p));
}

Report RemoteOperator::recorded(AuditEntry head,
                                const std::function<ActionResult(ActionOptions&)>& body,
                                const std::atomic_bool* cancel) {
    return runRecorded(m_log, std::move(head), body, cancel, {});
}

Report RemoteOperator::run(const Plan& p, const std::atomic_bool* cancel) {
    AuditEntry head = recordHeader(p.action, m_q.url(), m_q.device(), m_q.inode(), m_tool);
    head.filter = p.filterJson;
    head.cutoff = p.cutoff;
    return recorded(
        std::move(head),
        [&](ActionOptions& o) {
            // The server checks the claims; this side records each chunk
            // before the server commits it.
            const Session::ChunkHandler chunks{o.beforeCommit, o.rolledBack};
            return m_q.apply(p, chunks);
        },
        cancel);
}

bool RemoteOperator::sameFile(const AuditEntry& record) const {
    if (record.device == 0 && record.inode == 0)
        return true;
    return record.device == m_q.device() && record.inode == m_q.inode();
}

std::optional<AuditEntry> RemoteOperator::lastUndoable() const {
    auto rec = m_log.lastUndoable(m_q.url());
    if (rec && !sameFile(*rec))
        return std::nullopt;
    return rec;
}

Report RemoteOperator::undo(const AuditEntry& record, const std::atomic_bool* cancel) {
    if (!sameFile(record))
        return otherFileReport(record);
    AuditEntry head = recordHeader(record.action, m_q.url(), m_q.device(), m_q.inode(), m_tool);
    head.undone = true;
    head.undoes = record.id;
    return recorded(
        std::move(head),
        [&](ActionOptions& o) {
            const Session::ChunkHandler chunks{o.beforeCommit, o.rolledBack};
            return m_q.undo(record.action, record.applied, chunks);
        },
        cancel);
}

} // namespace lq::core::remote
