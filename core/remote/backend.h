// SPDX-License-Identifier: MIT
#pragma once

// RemoteQueueBackend: QueueBackend over a `lqctl serve --stdio` session
// reached through ssh (core/remote/client.h). Every call blocks on the link,
// so like every backend call it runs on a worker thread. With
// BackendOptions::watch (a window), a monitor thread
// waits for the server's pushed events (never polling over the network),
// notices a dropped connection and reconnects with a growing back-off; the
// views keep their state meanwhile. Actions run through RemoteOperator: the
// server applies each chunk with its claim tokens and the audit record is
// written on this machine, naming ssh://HOST/PATH.

#include "../backend.h"

#include <condition_variable>
#include <mutex>
#include <thread>

namespace lq::core::remote {

class RemoteQueue;

class RemoteQueueBackend final : public QueueBackend {
public:
    /// Connects to `url` (ssh://…) and opens the queue (blocking). Throws
    /// lqcore's errors, which name the URL.
    static std::shared_ptr<QueueBackend> open(const std::string& url, const BackendOptions& o);
    /// `o`: how to open it again after a dropped connection, and the tool
    /// the audit records name.
    RemoteQueueBackend(std::shared_ptr<RemoteQueue> queue, BackendOptions o);
    ~RemoteQueueBackend() override;
    RemoteQueueBackend(const RemoteQueueBackend&) = delete;
    RemoteQueueBackend& operator=(const RemoteQueueBackend&) = delete;
    RemoteQueueBackend(RemoteQueueBackend&&) = delete;
    RemoteQueueBackend& operator=(RemoteQueueBackend&&) = delete;

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

    bool pushesChanges() const override { return m_options.watch; }
    void setChangeListener(const std::function<void(bool force)>& onChange) override;
    void
    setConnectionListener(const std::function<void(bool connected, std::string text)>& f) override;
    bool connected() const override;

private:
    /// The live connection; throws a clear error while reconnecting.
    std::shared_ptr<RemoteQueue> queue() const;
    void monitor();
    void notifyChange(bool force);
    void notifyConnection(bool connected, const std::string& text);

    std::string m_url;   ///< ssh://HOST[:PORT]/PATH
    std::string m_label; ///< HOST (for the banner)
    bool m_readOnly;
    BackendOptions m_options; ///< sent again on every reconnect
    FormatInfo m_info;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::shared_ptr<RemoteQueue> m_queue; ///< null while disconnected
    std::function<void(bool)> m_onChange;
    std::function<void(bool, std::string)> m_onConnection;
    bool m_stop = false;
    std::thread m_monitor;
};

} // namespace lq::core::remote
