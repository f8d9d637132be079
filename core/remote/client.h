// SPDX-License-Identifier: MIT
#pragma once

// The client side of the remote protocol (docs/PROTOCOL.md): a queue on
// another machine, reached through the system's `ssh` run as a child
// process (`ssh -T -o BatchMode=yes [-p PORT] [USER@]HOST lqctl serve
// --stdio`), so the user's ssh config, agent, keys and known_hosts apply.
//
// RemoteQueue answers the read calls a Queue answers, with the same types;
// RemoteOperator runs the operator workflow of core/operator.h on it: the
// server applies each chunk with its claim tokens, this side writes the
// chunk's audit line (naming ssh://HOST/PATH) before the server commits it.
//
// Thread model: every call is synchronous and serialised by a mutex, so a
// RemoteQueue may be used from a worker thread; change notifications the
// server pushes are queued and handed out by takeEvents()/waitEvent().

#include "../actions.h"
#include "../audit.h"
#include "../dashboard.h"
#include "../error.h"
#include "../format.h"
#include "../json.h"
#include "../message.h"
#include "../operator.h"
#include "../processes.h"
#include "../query.h"
#include "../queueoverview.h"
#include "../recurring.h"
#include "../stats.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace lq::core::remote {

class LineReader;

/// ssh://[USER@]HOST[:PORT]/ABSOLUTE/PATH
struct SshUrl {
    std::string user;
    std::string host;
    int port = 0; ///< 0: ssh's default
    std::string path;
    /// "ssh://HOST[:PORT]/PATH": how the audit log and messages name it.
    std::string display() const;
    /// Throws InvalidArgument naming what is wrong with `url`.
    static SshUrl parse(std::string_view url);
};

bool isRemoteUrl(std::string_view path);

/// The ssh command line for `url`: $LQ_SSH (default "ssh"), -T, -o
/// BatchMode=yes, the words of $LQ_SSH_OPTS, -p PORT, [USER@]HOST, then
/// $LQ_REMOTE_LQCTL (default "lqctl") serve --stdio.
std::vector<std::string> sshCommand(const SshUrl& url);

/// A running server: a child process speaking the protocol on its stdin and
/// stdout. Its stderr is kept (the last few KiB) for the error message when
/// the connection drops.
class Session {
public:
    /// Starts `argv` and says hello. `label` names the connection in errors.
    static std::unique_ptr<Session> spawn(const std::vector<std::string>& argv, std::string label,
                                          int protocolVersion = 0);
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    /// Handles the chunk events of an action: writes the audit line (throws
    /// to refuse, which rolls the chunk back) or notes a rollback.
    struct ChunkHandler {
        std::function<void(const ActionResult& chunk, std::size_t index)> beforeCommit;
        std::function<void(std::size_t index)> rolledBack;
    };
    /// One request; the result, or the server's error thrown as the same
    /// lq::core::Error a local call throws (path: the label).
    Json call(const std::string& method, Json params = Json::object(),
              const ChunkHandler* chunks = nullptr);
    /// Sends a raw line (tests: malformed requests) and returns the next
    /// reply line, parsed.
    Json rawExchange(const std::string& line);
    /// Notifications received so far ({"event":"changed"}, ...), oldest first.
    std::vector<Json> takeEvents();
    /// Waits up to `timeoutMs` for a notification; true if one is queued.
    bool waitEvent(int timeoutMs);
    const std::string& label() const noexcept { return m_label; }
    /// Stops the child (closing its stdin, then SIGTERM).
    void close();
    /// The child's process id (tests kill it to cut the connection).
    int pid() const noexcept { return m_pid; }
    /// The server takes Filter::where (its hello says "filter_where"); an
    /// older one ignores the member, so a filter with one is not sent to it.
    bool filtersWhere() const noexcept { return m_filtersWhere; }

private:
    Session() = default;
    Json readReply(std::int64_t id, const ChunkHandler* chunks);
    [[noreturn]] void lost();
    std::string m_label;
    bool m_filtersWhere = false;
    int m_pid = -1;
    int m_in = -1;  ///< our end of the child's stdin and stdout (a socket)
    int m_out = -1; ///< the same socket, read side
    int m_err = -1;
    std::unique_ptr<LineReader> m_reader;
    std::thread m_errThread;
    std::mutex m_errMutex;
    std::string m_stderr;
    std::recursive_mutex m_mutex;
    std::int64_t m_nextId = 1;
    std::vector<Json> m_events;
    bool m_dead = false;
};

struct RemoteOpenOptions {
    bool readOnly = true;
    std::string table;
    int busyTimeoutMs = 5000;
    std::optional<TimeNs> now; ///< a fixed clock on the server
    /// The library settings the file does not store (goqite's maxReceive,
    /// ...): sent in `open` when any is set.
    FormatSettings settings;
};

class RemoteQueue {
public:
    /// ssh://… : spawns ssh and opens the path on the host.
    static std::unique_ptr<RemoteQueue> open(const std::string& url, RemoteOpenOptions o = {});
    /// Over an existing session (tests: `lqctl serve --stdio` over a pipe).
    static std::unique_ptr<RemoteQueue> open(std::unique_ptr<Session> s, const std::string& path,
                                             RemoteOpenOptions o = {});

    /// The absolute path on the host (what `lqctl` there prints).
    const std::string& path() const noexcept { return m_path; }
    /// ssh://HOST/PATH: the name in the audit log and in errors.
    const std::string& url() const noexcept { return m_url; }
    const FormatInfo& info() const noexcept { return m_info; }
    bool readOnly() const noexcept { return m_readOnly; }
    std::uint64_t device() const noexcept { return m_device; }
    std::uint64_t inode() const noexcept { return m_inode; }

    TimeNs now();
    Counts counts(TimeNs stuckAfterNs = kDefaultStuckAfterNs);
    /// The counts of one named queue ("": the whole file).
    Counts counts(const std::string& queueName, TimeNs stuckAfterNs = kDefaultStuckAfterNs);
    std::vector<std::string> queueNames();
    /// Queue::processes() and pausedQueues() of the served file.
    ProcessList processes(std::optional<TimeNs> now = {});
    std::vector<PausedQueue> pausedQueues();
    /// Queue::recurringTasks() of the served file.
    RecurringList recurringTasks(std::optional<TimeNs> now = {}, int tzOffset = 0);
    std::int64_t count(const Filter& f);
    std::vector<Message> list(const Filter& f, const Sort& s, std::int64_t offset,
                              std::int64_t limit);
    std::vector<std::int64_t> orderedRowids(const Filter& f, const Sort& s);
    std::vector<Message> fetchRowids(const std::vector<std::int64_t>& rowids);
    std::optional<Message> get(std::string_view messageId);
    QueueStats stats(const Filter& f = {});
    std::vector<TimeBucket> series(const Filter& f, TimeNs from, TimeNs to, TimeNs bucket);
    /// The dashboard's figures, computed on the host (`dashboard`).
    DashboardFigures dashboard(const DashboardQuery& q);
    /// The per-queue overview, computed on the host (`queue_overview`).
    QueueOverview queueOverview(const DashboardQuery& q);
    std::int64_t fileSize();
    std::int64_t walSize();
    std::int64_t lockedCount() { return counts().locked; }
    std::int64_t dataVersion();

    /// Asks the server for a plan (see Operator::plan*): kind "targets",
    /// "filter", "retry-expired" or "prune" with that call's parameters.
    Plan plan(Json request);
    /// Applies a plan on the server; each chunk passes through `chunks`.
    ActionResult apply(const Plan& p, const Session::ChunkHandler& chunks);
    ActionResult undo(Action a, const std::vector<AppliedRow>& applied,
                      const Session::ChunkHandler& chunks);
    /// put() on the server in one transaction that commits only after
    /// `chunks` recorded the inserted row (none when the idempotency key
    /// already holds the same data). Throws the queue's errors (full,
    /// conflict, read-only) before writing. `stored`: the message as stored.
    ActionResult enqueue(const std::string& data, const std::optional<std::string>& key,
                         const Session::ChunkHandler& chunks, Message* stored = nullptr);
    /// VACUUM on the server: {bytes before, bytes after}.
    std::pair<std::int64_t, std::int64_t> vacuum();
    /// The format migration on the server: {format id before, after};
    /// info() is the upgraded file's afterwards.
    std::pair<std::string, std::string> upgrade();
    /// Queue::setPaused() on the server; `chunks` records it before it
    /// commits.
    ActionResult setPaused(const std::string& queueName, bool pause,
                           const Session::ChunkHandler& chunks);
    /// Queue::runRecurring() on the server; `chunks` records the job before
    /// it commits.
    ActionResult runRecurring(const std::string& taskKey, const Session::ChunkHandler& chunks);

    Session& session() { return *m_session; }

private:
    RemoteQueue() = default;
    Json info(const char* key);
    std::unique_ptr<Session> m_session;
    std::string m_path;
    std::string m_url;
    FormatInfo m_info;
    bool m_readOnly = true;
    std::uint64_t m_device = 0;
    std::uint64_t m_inode = 0;
};

/// core/operator.h's Operator for a RemoteQueue: the same plans, runs,
/// reports and records; the audit log is this machine's, naming url().
class RemoteOperator {
public:
    RemoteOperator(RemoteQueue& q, std::string tool, AuditLog log = AuditLog());

    Plan planTargets(Action a, const std::vector<Target>& targets) const;
    Plan planFilter(Action a, const Filter& f) const;
    Plan planRetryExpired(std::chrono::nanoseconds threshold, std::optional<TimeNs> now = {},
                          const std::string& queue = {}) const;
    Plan planPrune(bool includeFailed, std::optional<std::chrono::nanoseconds> olderThan,
                   std::optional<TimeNs> now = {}, const std::string& queue = {}) const;

    Report run(const Plan& p, const std::atomic_bool* cancel = nullptr);
    Report undo(const AuditEntry& record, const std::atomic_bool* cancel = nullptr);
    /// Operator::enqueue on the host: the record is on this machine's log
    /// before the host commits the insert.
    Report enqueue(const std::string& data, const std::optional<std::string>& key,
                   Message* stored = nullptr);
    /// Operator::vacuum / upgrade on the host, recorded here afterwards.
    Report vacuum(std::pair<std::int64_t, std::int64_t>* sizes = nullptr);
    Report upgrade();
    /// Operator::pause / resume on the host, recorded here before it commits.
    Report pause(const std::string& queueName);
    Report resume(const std::string& queueName);
    /// Operator::runRecurring on the host, recorded here before it commits.
    Report runRecurring(const std::string& taskKey);

    std::vector<AuditEntry> records() const { return m_log.entries(m_q.url()); }
    std::optional<AuditEntry> lastUndoable() const;
    std::optional<AuditEntry> record(const std::string& id) const {
        return m_log.find(m_q.url(), id);
    }
    bool sameFile(const AuditEntry& record) const;
    const std::string& path() const noexcept { return m_q.url(); }

private:
    Report recorded(AuditEntry head, const std::function<ActionResult(ActionOptions&)>& body,
                    const std::atomic_bool* cancel);
    RemoteQueue& m_q;
    std::string m_tool;
    AuditLog m_log;
};

} // namespace lq::core::remote
