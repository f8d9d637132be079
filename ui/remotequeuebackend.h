// SPDX-License-Identifier: MIT
#pragma once

// RemoteQueueBackend: QueueBackend over a `lqctl serve --stdio` session
// reached through ssh (core/remote/client.h). Every call blocks on the link,
// so like every backend call it runs on a worker thread. A monitor thread
// waits for the server's pushed events (never polling over the network),
// notices a dropped connection and reconnects with a growing back-off; the
// views keep their state meanwhile. Actions run through RemoteOperator: the
// server applies each chunk with its claim tokens and the audit record is
// written on this machine, naming ssh://HOST/PATH.

#include "ui/queuebackend.h"

#include <condition_variable>
#include <mutex>
#include <thread>

namespace lq::core::remote {
class RemoteQueue;
}

namespace lq::ui {

class RemoteQueueBackend final : public QueueBackend {
public:
    /// Connects to `url` (ssh://…) and opens the queue (blocking). Throws
    /// lqcore's errors, which name the URL.
    static std::shared_ptr<QueueBackend> open(const std::string& url, bool readOnly,
                                              const std::string& table,
                                              const core::FormatSettings& settings = {});
    RemoteQueueBackend(std::shared_ptr<core::remote::RemoteQueue> queue, bool readOnly,
                       std::string table, core::FormatSettings settings = {});
    ~RemoteQueueBackend() override;
    RemoteQueueBackend(const RemoteQueueBackend&) = delete;
    RemoteQueueBackend& operator=(const RemoteQueueBackend&) = delete;
    RemoteQueueBackend(RemoteQueueBackend&&) = delete;
    RemoteQueueBackend& operator=(RemoteQueueBackend&&) = delete;

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

    bool pushesChanges() const override { return true; }
    void setChangeListener(const std::function<void(bool force)>& onChange) override;
    void
    setConnectionListener(const std::function<void(bool connected, std::string text)>& f) override;
    bool connected() const override;

private:
    /// The live connection; throws a clear error while reconnecting.
    std::shared_ptr<core::remote::RemoteQueue> queue() const;
    void monitor();
    void notifyChange(bool force);
    void notifyConnection(bool connected, const std::string& text);

    std::string m_url;   ///< ssh://HOST[:PORT]/PATH
    std::string m_label; ///< HOST (for the banner)
    bool m_readOnly;
    std::string m_table;
    core::FormatSettings m_settings; ///< sent again on every reconnect
    core::FormatInfo m_info;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::shared_ptr<core::remote::RemoteQueue> m_queue; ///< null while disconnected
    std::function<void(bool)> m_onChange;
    std::function<void(bool, std::string)> m_onConnection;
    bool m_stop = false;
    std::thread m_monitor;
};

} // namespace lq::ui
