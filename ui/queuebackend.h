// SPDX-License-Identifier: MIT
#pragma once

// QueueBackend: the one way the GUI's views reach an open queue.
//
// Every call blocks and runs on a worker thread (never the UI thread): the
// message loader, the detail pane, the dashboard and the action handler call
// it from runAsync() jobs. LocalQueueBackend implements it over an
// lq::core::Queue on this machine; a remote implementation (a
// `lqctl serve --stdio` JSON-lines session over ssh) implements the same
// calls over its transport, and the views do not change.
//
// Change notifications are not pushed: the loader polls dataVersion() and
// fileIdentity() (cheap on both transports) when its file watcher or its
// fallback timer says so.

#include "core/audit.h"
#include "core/dashboard.h"
#include "core/errors.h"
#include "core/filestamp.h"
#include "core/format.h"
#include "core/message.h"
#include "core/operator.h"
#include "core/processes.h"
#include "core/query.h"
#include "core/queueoverview.h"
#include "core/recurring.h"
#include "core/stats.h"

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
}

namespace lq::ui {

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
    virtual const core::FormatInfo& info() const = 0;
    virtual bool readOnly() const = 0;
    virtual core::TimeNs now() const = 0;
    virtual std::optional<std::int64_t> maxsize() const = 0;

    // ---- change detection ---------------------------------------------------
    /// The file on disk now: a different inode is a replaced file, not
    /// `exists` a deleted or moved one.
    virtual core::FileStamp fileIdentity() const = 0;
    virtual std::int64_t dataVersion() = 0;
    virtual std::int64_t walSize() const = 0;

    // ---- pages, counts, statistics ------------------------------------------
    /// The ordering (core::Queue::orderedRowids); a local read stops once
    /// `*cancel` is set (null: never), a remote one runs to its end.
    virtual std::vector<std::int64_t> orderedRowids(const core::Filter& f, const core::Sort& s,
                                                    const std::atomic_bool* cancel) = 0;
    virtual std::vector<core::Message> fetchRowids(const std::vector<std::int64_t>& rowids) = 0;
    /// The first `limit` rows in sort order, straight from the index (a few
    /// ms where one exists): shown while the whole ordering is computed.
    /// Empty when the backend cannot answer faster than the ordering.
    virtual std::vector<core::Message> firstPage(const core::Filter& f, const core::Sort& s,
                                                 int limit) {
        (void)f;
        (void)s;
        (void)limit;
        return {};
    }
    virtual std::optional<core::Message> get(const std::string& messageId) = 0;
    /// The counts of named queue `queue` ("": the whole file).
    virtual core::Counts counts(core::TimeNs stuckAfterNs, const std::string& queue) = 0;
    /// The named queues inside the file, sorted (empty for formats without
    /// named queues: QueueFormat::namedQueues()).
    virtual std::vector<std::string> queueNames() = 0;
    /// The dashboard's figures from one scan of the timing columns at the
    /// queue's clock (core::dashboardFigures); a remote queue computes them
    /// on its host.
    virtual core::DashboardFigures dashboard(const core::DashboardQuery& q) = 0;
    /// One row per named queue: counts, paused, throughput and wait over
    /// the query's range (core::queueOverview; a remote queue computes it on
    /// its host).
    virtual core::QueueOverview queueOverview(const core::DashboardQuery& q) = 0;
    /// The audit records of this file (the dashboard notes prunes).
    virtual std::vector<core::AuditEntry> auditEntries() const = 0;
    /// The failed jobs of named queue `queue` ("": the whole file) grouped
    /// by error (core::groupFailures), the largest group first.
    virtual std::vector<core::ErrorGroup> errorGroups(const std::string& queue) = 0;
    /// The worker processes the file records, alive or dead at the queue's
    /// clock by the library's rule, with the claims each holds
    /// (core::Queue::processes; a remote queue reads them on its host).
    virtual core::ProcessList processes() = 0;
    /// The named queues the file records as paused (core::Queue::pausedQueues).
    virtual std::vector<core::PausedQueue> pausedQueues() = 0;
    /// Pauses or resumes named queue `queue` as its library does, recorded
    /// and undoable (core::Operator::pause / resume). Never throws.
    virtual core::Report setPaused(const std::string& queue, bool pause) = 0;
    /// The recurring tasks the file records, with their last, next and
    /// missed runs at the queue's clock (core::Queue::recurringTasks; a
    /// remote queue reads them on its host), or why it records none.
    virtual core::RecurringList recurringTasks() = 0;
    /// Enqueues recurring task `key`'s job now as the library's own "run
    /// now" does, recorded and undoable (core::Operator::runRecurring).
    /// Never throws.
    virtual core::Report runRecurring(const std::string& key) = 0;

    // ---- operator actions (core::Operator, docs/ARCHITECTURE.md#how-a-user-action-travels)
    // -------------------------
    virtual core::Plan planTargets(core::Action a, std::vector<core::Target> targets) = 0;
    virtual core::Plan planFilter(core::Action a, core::Filter f) = 0;
    virtual core::Plan planRetryExpired(std::chrono::nanoseconds threshold) = 0;
    virtual core::Plan planPrune(bool includeFailed,
                                 std::optional<std::chrono::nanoseconds> olderThan) = 0;
    /// Never throw once started: an error is in the report.
    virtual core::Report run(const core::Plan& p, const std::atomic_bool* cancel,
                             core::Operator::Progress progress) = 0;
    virtual core::Report undo(const core::AuditEntry& record, const std::atomic_bool* cancel,
                              core::Operator::Progress progress) = 0;
    virtual core::Report enqueue(const std::string& data, std::optional<std::string> key) = 0;
    virtual core::Report vacuum(std::pair<std::int64_t, std::int64_t>* sizes) = 0;
    virtual core::Report upgrade() = 0;
    virtual std::optional<core::AuditEntry> lastUndoable() = 0;
    /// Why `a` would skip `m` as it is shown (the format's own rule, the one
    /// the run applies; "" when it applies). nullopt when this backend cannot
    /// tell here: the run reports the skip then.
    virtual std::optional<std::string> refusal(core::Action a, const core::Message& m) const {
        (void)a;
        (void)m;
        return std::nullopt;
    }

    // ---- pushed notifications (a remote queue; the local one is polled) ---
    /// True when the backend pushes changes (setChangeListener) and must not
    /// be polled on a timer.
    virtual bool pushesChanges() const { return false; }
    /// Called from a backend thread when the data changed; `force` after a
    /// reconnection (compare everything again).
    virtual void setChangeListener(const std::function<void(bool force)>& /*onChange*/) {}
    /// Called from a backend thread when the connection drops or comes back.
    virtual void setConnectionListener(
        const std::function<void(bool connected, std::string text)>& /*onConnection*/) {}
    virtual bool connected() const { return true; }
};

/// Opens `path` (blocking): a remote backend for ssh:// URLs, else a local
/// one. The one place that picks the backend. `settings`: the library
/// settings the file does not store (OpenOptions::settings).
std::shared_ptr<QueueBackend> openBackend(const std::string& path, bool readOnly,
                                          const std::string& table,
                                          const core::FormatSettings& settings = {});

/// QueueBackend over a local lq::core::Queue (thread-safe: every worker
/// reads through its own connection). Operator actions name "lqadmin" in the
/// audit record.
class LocalQueueBackend final : public QueueBackend {
public:
    explicit LocalQueueBackend(std::shared_ptr<core::Queue> queue);
    ~LocalQueueBackend() override;
    LocalQueueBackend(const LocalQueueBackend&) = delete;
    LocalQueueBackend& operator=(const LocalQueueBackend&) = delete;
    LocalQueueBackend(LocalQueueBackend&&) = delete;
    LocalQueueBackend& operator=(LocalQueueBackend&&) = delete;

    /// Opens `path` (blocking): OpenOptions::readOnly when asked or when the
    /// file is not writable. Throws lqcore's errors, which name the file.
    static std::shared_ptr<QueueBackend> open(const std::string& path, bool readOnly,
                                              const std::string& table,
                                              const core::FormatSettings& settings = {});

    std::string path() const override;
    const core::FormatInfo& info() const override;
    bool readOnly() const override;
    core::TimeNs now() const override;
    std::optional<std::int64_t> maxsize() const override;
    core::FileStamp fileIdentity() const override;
    std::int64_t dataVersion() override;
    std::int64_t walSize() const override;
    std::vector<std::int64_t> orderedRowids(const core::Filter& f, const core::Sort& s,
                                            const std::atomic_bool* cancel) override;
    std::vector<core::Message> fetchRowids(const std::vector<std::int64_t>& rowids) override;
    std::vector<core::Message> firstPage(const core::Filter& f, const core::Sort& s,
                                         int limit) override;
    std::optional<core::Message> get(const std::string& messageId) override;
    core::Counts counts(core::TimeNs stuckAfterNs, const std::string& queue) override;
    std::vector<std::string> queueNames() override;
    core::DashboardFigures dashboard(const core::DashboardQuery& q) override;
    core::QueueOverview queueOverview(const core::DashboardQuery& q) override;
    std::vector<core::AuditEntry> auditEntries() const override;
    std::vector<core::ErrorGroup> errorGroups(const std::string& queue) override;
    core::ProcessList processes() override;
    std::vector<core::PausedQueue> pausedQueues() override;
    core::Report setPaused(const std::string& queue, bool pause) override;
    core::RecurringList recurringTasks() override;
    core::Report runRecurring(const std::string& key) override;
    core::Plan planTargets(core::Action a, std::vector<core::Target> targets) override;
    core::Plan planFilter(core::Action a, core::Filter f) override;
    core::Plan planRetryExpired(std::chrono::nanoseconds threshold) override;
    core::Plan planPrune(bool includeFailed,
                         std::optional<std::chrono::nanoseconds> olderThan) override;
    core::Report run(const core::Plan& p, const std::atomic_bool* cancel,
                     core::Operator::Progress progress) override;
    core::Report undo(const core::AuditEntry& record, const std::atomic_bool* cancel,
                      core::Operator::Progress progress) override;
    core::Report enqueue(const std::string& data, std::optional<std::string> key) override;
    core::Report vacuum(std::pair<std::int64_t, std::int64_t>* sizes) override;
    core::Report upgrade() override;
    std::optional<core::AuditEntry> lastUndoable() override;
    std::optional<std::string> refusal(core::Action a, const core::Message& m) const override;

private:
    core::Operator op() const;

    std::shared_ptr<core::Queue> m_queue;
};

/// The backend of a queue already open here (tests, tools).
std::shared_ptr<QueueBackend> localBackend(std::shared_ptr<core::Queue> queue);

} // namespace lq::ui
