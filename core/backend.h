// SPDX-License-Identifier: MIT
#pragma once

// QueueBackend: the one way the front ends reach an open queue, whatever
// holds it. openBackend() picks the implementation from the path:
// LocalQueueBackend over an lq::core::Queue on this machine,
// remote::RemoteQueueBackend (core/remote/backend.h) over a `lqctl serve
// --stdio` JSON-lines session reached through ssh, pg::PgQueueBackend
// (core/pg/backend.h) over a PostgreSQL database. The GUI's views and
// lqctl's commands are written against this interface and never ask which
// one they hold.
//
// Every call blocks. In the GUI it runs on a worker thread (never the UI
// thread): the message loader, the detail pane, the dashboard and the
// action handler call it from runAsync() jobs.
//
// Change notifications are not pushed: the loader polls dataVersion() and
// fileIdentity() (cheap on both transports) when its file watcher or its
// fallback timer says so.

#include "audit.h"
#include "dashboard.h"
#include "errors.h"
#include "filestamp.h"
#include "format.h"
#include "message.h"
#include "operator.h"
#include "pacing.h"
#include "processes.h"
#include "query.h"
#include "queueoverview.h"
#include "recurring.h"
#include "stats.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lq::core {

class Queue;

class QueueBackend {
public:
    virtual ~QueueBackend() = default;
    QueueBackend() = default;
    QueueBackend(const QueueBackend&) = delete;
    QueueBackend& operator=(const QueueBackend&) = delete;
    QueueBackend(QueueBackend&&) = delete;
    QueueBackend& operator=(QueueBackend&&) = delete;

    // ---- the open file ----------------------------------------------------
    virtual std::string path() const = 0;
    virtual const FormatInfo& info() const = 0;
    virtual bool readOnly() const = 0;
    virtual TimeNs now() const = 0;
    virtual std::optional<std::int64_t> maxsize() const = 0;
    /// The queue's format as lqctl names it ("solid-queue", "oban").
    virtual std::string formatName() const;
    /// What holds the queue, in a few words for a status bar ("journal:
    /// wal"; "PostgreSQL 15.18, schema jobs").
    virtual std::string storageText() const;
    /// A file with a journal: its WAL size means something.
    virtual bool isFile() const { return true; }
    /// "sqlite" or "postgresql": what lqctl's JSON says holds the queue.
    virtual std::string engine() const { return "sqlite"; }
    /// Why this queue does not offer action `a` ("" when it does): the
    /// format's reason (QueueFormat::whyNot), or the engine's where it does
    /// not write what the format offers. The one question both front ends
    /// ask before offering an action, a pause or a run now.
    virtual std::string whyNot(Action a) const;

    // ---- change detection ---------------------------------------------------
    /// The file on disk now: a different inode is a replaced file, not
    /// `exists` a deleted or moved one.
    virtual FileStamp fileIdentity() const = 0;
    virtual std::int64_t dataVersion() = 0;
    virtual std::int64_t walSize() const = 0;

    // ---- pages, counts, statistics ------------------------------------------
    /// The ordering (Queue::orderedRowids); a local read stops once
    /// `*cancel` is set (null: never), a remote one runs to its end.
    virtual std::vector<std::int64_t> orderedRowids(const Filter& f, const Sort& s,
                                                    const std::atomic_bool* cancel) = 0;
    virtual std::vector<Message> fetchRowids(const std::vector<std::int64_t>& rowids) = 0;
    /// The first `limit` rows in sort order, straight from the index (a few
    /// ms where one exists): shown while the whole ordering is computed.
    /// Empty when the backend cannot answer faster than the ordering.
    virtual std::vector<Message> firstPage(const Filter& f, const Sort& s, int limit) {
        (void)f;
        (void)s;
        (void)limit;
        return {};
    }
    virtual std::optional<Message> get(const std::string& messageId) = 0;
    /// Page [offset, offset + limit) of what `f` matches, in `s`'s order
    /// (lqctl list --limit), and how many it matches.
    virtual std::vector<Message> list(const Filter& f, const Sort& s, std::int64_t offset,
                                      std::int64_t limit) = 0;
    virtual std::int64_t count(const Filter& f) = 0;
    /// The latency statistics of what `f` matches (lqctl stats; only
    /// Filter::queue on PostgreSQL so far).
    virtual QueueStats stats(const Filter& f) = 0;
    /// Bytes the queue takes: the file, or the library's tables with their
    /// indexes and TOAST in PostgreSQL.
    virtual std::int64_t fileSize() = 0;
    /// The counts of the whole queue and of each named queue (Prometheus'
    /// per-queue series): one pass on a local file, else one count each.
    virtual CountsWithQueues countsWithQueues(TimeNs stuckAfterNs);
    /// countsWithQueues() (`byQueue`; else the whole queue's counts only)
    /// and stats() of the whole queue, in one timing scan where the scan
    /// carries every state (Queue::countsAndStats()).
    virtual CountsAndStats countsAndStats(TimeNs stuckAfterNs, bool byQueue = true);
    /// The counts of named queue `queue` ("": the whole file).
    virtual Counts counts(TimeNs stuckAfterNs, const std::string& queue) = 0;
    /// The JSON fields of its jobs a Filter::where may name (core/jsonwhere.h),
    /// in the library's words; none: the payload is not JSON.
    virtual std::vector<std::string> jsonFieldNames() const;
    /// Counts at once from the engine's statistics, where the exact ones
    /// would take long (a huge table on a server): shown as an estimate
    /// until counts() answers. Nullopt where counts() is quick enough or no
    /// statistics say.
    virtual std::optional<Counts> estimatedCounts(const std::string& queue) {
        (void)queue;
        return std::nullopt;
    }
    /// The named queues inside the file, sorted (empty for formats without
    /// named queues: QueueFormat::namedQueues()).
    virtual std::vector<std::string> queueNames() = 0;
    /// The dashboard's figures from one scan of the timing columns at the
    /// queue's clock (dashboardFigures); a remote queue computes them
    /// on its host.
    virtual DashboardFigures dashboard(const DashboardQuery& q) = 0;
    /// One row per named queue: counts, paused, throughput and wait over
    /// the query's range (queueOverview; a remote queue computes it on
    /// its host).
    virtual QueueOverview queueOverview(const DashboardQuery& q) = 0;
    /// The audit records of this file (the dashboard notes prunes).
    virtual std::vector<AuditEntry> auditEntries() const = 0;
    /// The failed jobs of named queue `queue` ("": the whole file) grouped
    /// by error (groupFailures), the largest group first.
    virtual std::vector<ErrorGroup> errorGroups(const std::string& queue) = 0;
    /// The worker processes the file records, alive or dead at the queue's
    /// clock by the library's rule, with the claims each holds
    /// (Queue::processes; a remote queue reads them on its host).
    virtual ProcessList processes() = 0;
    /// The named queues the file records as paused (Queue::pausedQueues).
    virtual std::vector<PausedQueue> pausedQueues() = 0;
    /// Pauses or resumes named queue `queue` as its library does, recorded
    /// and undoable (Operator::pause / resume). Never throws.
    virtual Report setPaused(const std::string& queue, bool pause) = 0;
    /// The recurring tasks the file records, with their last, next and
    /// missed runs at the queue's clock (Queue::recurringTasks; a
    /// remote queue reads them on its host), or why it records none.
    /// `tzOffset`: as core::Queue::recurringTasks (the zone a schedule
    /// without one is read in).
    virtual RecurringList recurringTasks(int tzOffset) = 0;
    /// Enqueues recurring task `key`'s job now as the library's own "run
    /// now" does, recorded and undoable (Operator::runRecurring).
    /// Never throws.
    virtual Report runRecurring(const std::string& key) = 0;

    // ---- operator actions (Operator, docs/ARCHITECTURE.md#how-a-user-action-travels)
    // -------------------------
    virtual Plan planTargets(Action a, std::vector<Target> targets) = 0;
    virtual Plan planFilter(Action a, Filter f) = 0;
    /// `queueName`: only that named queue ("" the whole file), as Operator's.
    virtual Plan planRetryExpired(std::chrono::nanoseconds threshold,
                                  const std::string& queueName) = 0;
    virtual Plan planPrune(bool includeFailed, std::optional<std::chrono::nanoseconds> olderThan,
                           const std::string& queueName) = 0;
    /// Never throw once started: an error is in the report.
    virtual Report run(const Plan& p, const std::atomic_bool* cancel,
                       Operator::Progress progress) = 0;
    virtual Report undo(const AuditEntry& record, const std::atomic_bool* cancel,
                        Operator::Progress progress) = 0;
    /// `stored` (may be null) gets the message as written.
    virtual Report enqueue(const std::string& data, std::optional<std::string> key,
                           Message* stored) = 0;
    virtual Report vacuum(std::pair<std::int64_t, std::int64_t>* sizes) = 0;
    virtual Report upgrade() = 0;
    virtual std::optional<AuditEntry> lastUndoable() = 0;
    /// Why `a` would skip `m` as it is shown (the format's own rule, the one
    /// the run applies; "" when it applies). nullopt when this backend cannot
    /// tell here: the run reports the skip then.
    virtual std::optional<std::string> refusal(Action a, const Message& m) const {
        (void)a;
        (void)m;
        return std::nullopt;
    }

    // ---- pushed notifications (a remote queue; the local one is polled) ---
    /// True when the backend pushes changes (setChangeListener) and must not
    /// be polled on a timer.
    virtual bool pushesChanges() const { return false; }
    /// How often, in ms, a front end that is not told of changes asks
    /// dataVersion() while nothing else wakes it: a local file also has its
    /// file watcher, so this is only its safety net; a database has no such
    /// watcher, and its change marker is one cheap catalog read.
    virtual int changePollMs() const { return 2000; }
    /// How long a watcher rests after a read, as a multiple of what the
    /// read cost (core/pacing.h): by the file's journal mode here.
    virtual std::int64_t readPacingFactor() const {
        return ReadPacing::factorFor(info().journalMode);
    }
    /// Called from a backend thread when the data changed; `force` after a
    /// reconnection (compare everything again).
    virtual void setChangeListener(const std::function<void(bool force)>& /*onChange*/) {}
    /// Called from a backend thread when the connection drops or comes back.
    virtual void setConnectionListener(
        const std::function<void(bool connected, std::string text)>& /*onConnection*/) {}
    virtual bool connected() const { return true; }
};

/// How openBackend() opens a queue, the same for every backend.
struct BackendOptions {
    /// Never write. A local file this process cannot write is opened
    /// read-only anyway.
    bool readOnly = false;
    std::string table;            ///< a multi file: which queue table
    FormatSettings settings;      ///< the library settings the file does not store
    int busyTimeoutMs = 5000;     ///< how long to wait for a locked file
    std::optional<TimeNs> now;    ///< a fixed clock (lqctl --now); default the system's
    std::string tool = "lqadmin"; ///< who the audit records name
    /// Keep watching: a remote backend waits for the host's pushed changes
    /// and reconnects after a drop (a window). Off for one command (lqctl):
    /// no thread, and a dropped link is that command's error.
    bool watch = true;
};

/// Opens `path` (blocking): a remote backend for ssh:// URLs, a PostgreSQL
/// one (core/pg/backend.h) for postgresql:// URLs, else a local file. The
/// one place that picks the backend. Throws lqcore's errors, which name the
/// file or the database.
std::shared_ptr<QueueBackend> openBackend(const std::string& path, const BackendOptions& o = {});

/// What a window title or a message calls the queue at `path`: a file's
/// name ("queue.db", also over ssh), a database's name and schema
/// ("app_production · jobs"), never a password.
std::string shortName(const std::string& path);

/// True when openBackend() reads `path` as a file on this machine (not an
/// ssh:// or postgresql:// URL): the front ends resolve, stat and watch it.
bool isLocalPath(const std::string& path);

/// QueueBackend over a local lq::core::Queue (thread-safe: every worker
/// reads through its own connection). Operator actions name `tool` in the
/// audit record.
class LocalQueueBackend final : public QueueBackend {
public:
    explicit LocalQueueBackend(std::shared_ptr<Queue> queue, std::string tool = "lqadmin");
    ~LocalQueueBackend() override;
    LocalQueueBackend(const LocalQueueBackend&) = delete;
    LocalQueueBackend& operator=(const LocalQueueBackend&) = delete;
    LocalQueueBackend(LocalQueueBackend&&) = delete;
    LocalQueueBackend& operator=(LocalQueueBackend&&) = delete;

    /// Opens `path` (blocking): OpenOptions::readOnly when asked or when the
    /// file is not writable. Throws lqcore's errors, which name the file.
    static std::shared_ptr<QueueBackend> open(const std::string& path, const BackendOptions& o);
    /// The queue itself, for what only a local file offers (lqctl's
    /// put, vacuum and upgrade).
    Queue& queue() const { return *m_queue; }

    std::string path() const override;
    const FormatInfo& info() const override;
    bool readOnly() const override;
    TimeNs now() const override;
    std::optional<std::int64_t> maxsize() const override;
    FileStamp fileIdentity() const override;
    std::int64_t dataVersion() override;
    std::int64_t walSize() const override;
    std::vector<std::int64_t> orderedRowids(const Filter& f, const Sort& s,
                                            const std::atomic_bool* cancel) override;
    std::vector<Message> fetchRowids(const std::vector<std::int64_t>& rowids) override;
    std::vector<Message> firstPage(const Filter& f, const Sort& s, int limit) override;
    std::optional<Message> get(const std::string& messageId) override;
    std::vector<Message> list(const Filter& f, const Sort& s, std::int64_t offset,
                              std::int64_t limit) override;
    std::int64_t count(const Filter& f) override;
    QueueStats stats(const Filter& f) override;
    std::int64_t fileSize() override;
    CountsWithQueues countsWithQueues(TimeNs stuckAfterNs) override;
    CountsAndStats countsAndStats(TimeNs stuckAfterNs, bool byQueue = true) override;
    Counts counts(TimeNs stuckAfterNs, const std::string& queue) override;
    std::vector<std::string> queueNames() override;
    DashboardFigures dashboard(const DashboardQuery& q) override;
    QueueOverview queueOverview(const DashboardQuery& q) override;
    std::vector<AuditEntry> auditEntries() const override;
    std::vector<ErrorGroup> errorGroups(const std::string& queue) override;
    ProcessList processes() override;
    std::vector<PausedQueue> pausedQueues() override;
    Report setPaused(const std::string& queue, bool pause) override;
    RecurringList recurringTasks(int tzOffset) override;
    Report runRecurring(const std::string& key) override;
    Plan planTargets(Action a, std::vector<Target> targets) override;
    Plan planFilter(Action a, Filter f) override;
    Plan planRetryExpired(std::chrono::nanoseconds threshold,
                          const std::string& queueName) override;
    Plan planPrune(bool includeFailed, std::optional<std::chrono::nanoseconds> olderThan,
                   const std::string& queueName) override;
    Report run(const Plan& p, const std::atomic_bool* cancel, Operator::Progress progress) override;
    Report undo(const AuditEntry& record, const std::atomic_bool* cancel,
                Operator::Progress progress) override;
    Report enqueue(const std::string& data, std::optional<std::string> key,
                   Message* stored) override;
    Report vacuum(std::pair<std::int64_t, std::int64_t>* sizes) override;
    Report upgrade() override;
    std::optional<AuditEntry> lastUndoable() override;
    std::optional<std::string> refusal(Action a, const Message& m) const override;

private:
    Operator op() const;

    std::shared_ptr<Queue> m_queue;
    std::string m_tool;
};

/// The backend of a queue already open here (tests, tools).
std::shared_ptr<QueueBackend> localBackend(std::shared_ptr<Queue> queue,
                                           std::string tool = "lqadmin");

} // namespace lq::core
