// SPDX-License-Identifier: MIT
#pragma once

// PgQueueBackend: a queue kept in PostgreSQL behind the front ends' one seam
// (core/backend.h), so lqadmin's table, chips, dashboard, queue overview and
// Failures view, and lqctl's commands written against QueueBackend, serve a
// postgresql:// URL as they serve a file. It reads through one read-only
// libpq session (core/pg/pgqueue.h); row actions on Oban and River (retry,
// release, delete) run on a second, writing session, recorded in the audit
// log under the URL without its password and undoable, as on a file
// (core/pg/actions.h). Pause, recurring runs and the other libraries'
// actions refuse with the reason.
//
// The change check is PgQueue::changeMarker() (the tables' write counters);
// the backend does not push changes yet (LISTEN is issue 41's later work),
// so the loader polls it like a local file's data_version.

#include "../backend.h"
#include "listen.h"
#include "pgqueue.h"

#include <atomic>
#include <memory>

namespace lq::core::pg {

class PgQueueBackend final : public QueueBackend {
public:
    /// Connects to `url` and recognises the queue (blocking). Throws
    /// lqcore's errors, which name the database without its password.
    static std::shared_ptr<QueueBackend> open(const std::string& url, const BackendOptions& o);
    /// `tool` names the front end in the audit records ("lqadmin", "lqctl").
    PgQueueBackend(std::unique_ptr<PgQueue> queue, std::string tool);
    ~PgQueueBackend() override;
    PgQueueBackend(const PgQueueBackend&) = delete;
    PgQueueBackend& operator=(const PgQueueBackend&) = delete;
    PgQueueBackend(PgQueueBackend&&) = delete;
    PgQueueBackend& operator=(PgQueueBackend&&) = delete;

    PgQueue& queue() const { return *m_queue; }

    std::string path() const override;
    const FormatInfo& info() const override;
    bool readOnly() const override;
    TimeNs now() const override;
    std::optional<std::int64_t> maxsize() const override { return std::nullopt; }
    std::string formatName() const override { return m_queue->formatId(); }
    std::string storageText() const override;
    bool isFile() const override { return false; }
    std::string engine() const override { return "postgresql"; }
    std::string whyNot(Action a) const override;
    FileStamp fileIdentity() const override;
    /// The tables' write counters (PgQueue::changeMarker) plus the
    /// library's insert notifications heard (setChangeListener).
    std::int64_t dataVersion() override;
    /// Starts a LISTEN on the library's insert channels
    /// (core/pg/listen.h), where it has any: `onChange` is called from its
    /// thread at each notification. The marker is still polled: not every
    /// change is notified.
    void setChangeListener(const std::function<void(bool force)>& onChange) override;
    /// The marker (a sum over pg_stat_user_tables: well under a ms on the
    /// server) five times a second: a change the library does not notify
    /// reaches the screen within a fifth of a second of being published.
    int changePollMs() const override { return 200; }
    /// MVCC: a read never blocks a writer (the cost is the server's CPU and
    /// a snapshot held for one statement), as in a WAL file.
    std::int64_t readPacingFactor() const override { return ReadPacing::kWalFactor; }
    std::int64_t walSize() const override { return 0; }
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
    Counts counts(TimeNs stuckAfterNs, const std::string& queue) override;
    std::optional<Counts> estimatedCounts(const std::string& queue) override;
    std::vector<std::string> jsonFieldNames() const override;
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
    Plan planTargets(Action a, std::vector<core::Target> targets) override;
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
    /// What a write lqcore does not make on PostgreSQL answers: nothing
    /// sent, `why` in the report.
    Report refused(Action a, const std::string& why) const;
    /// The reads a library without a browser yet cannot serve.
    void needList() const;
    /// planFilter(), for the rules every engine shares (planPruneWith, ...).
    FilterPlanner planner();

    std::unique_ptr<PgQueue> m_queue;
    std::atomic<std::int64_t> m_heard{0};           ///< insert notifications heard
    std::unique_ptr<pg::ChangeListener> m_listener; ///< destroyed first: it calls back
    std::string m_tool;
};

} // namespace lq::core::pg
