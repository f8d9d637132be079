// SPDX-License-Identifier: MIT
#include "ui/remotequeuebackend.h"

#include "core/remote/client.h"

#include <algorithm>
#include <chrono>

namespace lq::ui {

namespace {

constexpr const char* kTool = "lqadmin";
constexpr int kEventWaitMs = 500;
constexpr int kDeadSlackMs = 100;
constexpr int kFirstBackoffMs = 250;
constexpr int kMaxBackoffMs = 8000;

core::remote::RemoteOpenOptions openOptions(bool readOnly, const std::string& table,
                                            const core::FormatSettings& settings) {
    core::remote::RemoteOpenOptions o;
    o.readOnly = readOnly;
    o.table = table;
    o.settings = settings;
    return o;
}

} // namespace

std::shared_ptr<QueueBackend> openBackend(const std::string& path, bool readOnly,
                                          const std::string& table,
                                          const core::FormatSettings& settings) {
    if (core::remote::isRemoteUrl(path)) {
        return RemoteQueueBackend::open(path, readOnly, table, settings);
    }
    return LocalQueueBackend::open(path, readOnly, table, settings);
}

std::shared_ptr<QueueBackend> RemoteQueueBackend::open(const std::string& url, bool readOnly,
                                                       const std::string& table,
                                                       const core::FormatSettings& settings) {
    std::shared_ptr<core::remote::RemoteQueue> q =
        core::remote::RemoteQueue::open(url, openOptions(readOnly, table, settings));
    return std::make_shared<RemoteQueueBackend>(std::move(q), readOnly, table, settings);
}

RemoteQueueBackend::RemoteQueueBackend(std::shared_ptr<core::remote::RemoteQueue> queue,
                                       bool readOnly, std::string table,
                                       core::FormatSettings settings)
    : m_url(queue->url())
    , m_label(core::remote::SshUrl::parse(queue->url()).host)
    , m_readOnly(queue->readOnly() || readOnly)
    , m_table(std::move(table))
    , m_settings(std::move(settings))
    , m_info(queue->info())
    , m_queue(std::move(queue)) {
    m_monitor = std::thread([this] { monitor(); });
}

RemoteQueueBackend::~RemoteQueueBackend() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    m_monitor.join();
}

void RemoteQueueBackend::setChangeListener(const std::function<void(bool force)>& onChange) {
    std::lock_guard lock(m_mutex);
    m_onChange = onChange;
}

void RemoteQueueBackend::setConnectionListener(
    const std::function<void(bool connected, std::string text)>& f) {
    std::lock_guard lock(m_mutex);
    m_onConnection = f;
}

bool RemoteQueueBackend::connected() const {
    std::lock_guard lock(m_mutex);
    return m_queue != nullptr;
}

void RemoteQueueBackend::notifyChange(bool force) {
    std::function<void(bool)> f;
    {
        std::lock_guard lock(m_mutex);
        f = m_onChange;
    }
    if (f) {
        f(force);
    }
}

void RemoteQueueBackend::notifyConnection(bool connected, const std::string& text) {
    std::function<void(bool, std::string)> f;
    {
        std::lock_guard lock(m_mutex);
        f = m_onConnection;
    }
    if (f) {
        f(connected, text);
    }
}

void RemoteQueueBackend::monitor() {
    using Clock = std::chrono::steady_clock;
    int backoffMs = kFirstBackoffMs;
    for (;;) {
        std::shared_ptr<core::remote::RemoteQueue> q;
        {
            std::lock_guard lock(m_mutex);
            if (m_stop) {
                return;
            }
            q = m_queue;
        }
        if (q) {
            // The server pushes "changed"/"file_changed"; a wait that ends
            // before its time without an event means the session died.
            const auto start = Clock::now();
            if (q->session().waitEvent(kEventWaitMs)) {
                if (!q->session().takeEvents().empty()) {
                    notifyChange(true); // the server said so: compare everything
                }
                continue;
            }
            // waitEvent rounds its deadline down to whole milliseconds:
            // a quiet wait may end a little early. A dead session answers
            // at once (and again at once on the next wait).
            if (Clock::now() - start >= std::chrono::milliseconds(kEventWaitMs - kDeadSlackMs)) {
                continue; // quiet
            }
            {
                std::lock_guard lock(m_mutex);
                m_queue.reset();
            }
            backoffMs = kFirstBackoffMs;
            notifyConnection(false, "Connection to " + m_label + " lost — reconnecting…");
            continue;
        }
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait_for(lock, std::chrono::milliseconds(backoffMs), [this] { return m_stop; });
            if (m_stop) {
                return;
            }
        }
        try {
            std::shared_ptr<core::remote::RemoteQueue> fresh = core::remote::RemoteQueue::open(
                m_url, openOptions(m_readOnly, m_table, m_settings));
            {
                std::lock_guard lock(m_mutex);
                m_queue = std::move(fresh);
            }
            notifyConnection(true, "Connected to " + m_label);
            notifyChange(true);
        } catch (const std::exception& e) {
            backoffMs = std::min(backoffMs * 2, kMaxBackoffMs);
            notifyConnection(false, "Connection to " + m_label + " lost — reconnecting… (" +
                                        e.what() + ")");
        }
    }
}

std::shared_ptr<core::remote::RemoteQueue> RemoteQueueBackend::queue() const {
    std::lock_guard lock(m_mutex);
    if (!m_queue) {
        throw core::Error(core::ErrorKind::Io, m_url,
                          "the connection to " + m_label + " is lost; reconnecting");
    }
    return m_queue;
}

std::string RemoteQueueBackend::path() const {
    return m_url;
}

const core::FormatInfo& RemoteQueueBackend::info() const {
    return m_info;
}

bool RemoteQueueBackend::readOnly() const {
    return m_readOnly;
}

core::TimeNs RemoteQueueBackend::now() const {
    return queue()->now();
}

std::optional<std::int64_t> RemoteQueueBackend::maxsize() const {
    return std::nullopt;
}

core::FileStamp RemoteQueueBackend::fileIdentity() const {
    const auto q = queue();
    core::FileStamp id;
    id.exists = true;
    id.inode = q->inode();
    id.size = q->fileSize();
    return id;
}

std::int64_t RemoteQueueBackend::dataVersion() {
    return queue()->dataVersion();
}

std::int64_t RemoteQueueBackend::walSize() const {
    return queue()->walSize();
}

std::vector<std::int64_t> RemoteQueueBackend::orderedRowids(const core::Filter& f,
                                                            const core::Sort& s,
                                                            const std::atomic_bool* cancel) {
    (void)cancel; // the host reads to the end; the superseded reply is dropped
    return queue()->orderedRowids(f, s);
}

std::vector<core::Message>
RemoteQueueBackend::fetchRowids(const std::vector<std::int64_t>& rowids) {
    return queue()->fetchRowids(rowids);
}

std::vector<core::Message> RemoteQueueBackend::firstPage(const core::Filter& f, const core::Sort& s,
                                                         int limit) {
    // Over a link the first page is one round trip, well before the ordering.
    return queue()->list(f, s, 0, limit);
}

std::optional<core::Message> RemoteQueueBackend::get(const std::string& messageId) {
    return queue()->get(messageId);
}

core::Counts RemoteQueueBackend::counts(core::TimeNs stuckAfterNs, const std::string& queue) {
    // The protocol's `counts` with `queue` (docs/PROTOCOL.md).
    return this->queue()->counts(queue, stuckAfterNs);
}

std::vector<std::string> RemoteQueueBackend::queueNames() {
    return queue()->queueNames(); // `queue_names`
}

core::DashboardFigures RemoteQueueBackend::dashboard(const core::DashboardQuery& q) {
    // Computed on the host (`dashboard`): figures, not a row per message.
    return queue()->dashboard(q);
}

core::QueueOverview RemoteQueueBackend::queueOverview(const core::DashboardQuery& q) {
    return queue()->queueOverview(q); // computed on the host (`queue_overview`)
}

std::vector<core::AuditEntry> RemoteQueueBackend::auditEntries() const {
    return core::AuditLog().entries(m_url);
}

std::vector<core::ErrorGroup> RemoteQueueBackend::errorGroups(const std::string& queue) {
    // The failed rows are read over the link in batches and grouped here,
    // by the same rule as a local file (lqctl errors over ssh does the same).
    const auto q = this->queue();
    return core::groupFailures(*q, queue);
}

core::ProcessList RemoteQueueBackend::processes() {
    return queue()->processes();
}

std::vector<core::PausedQueue> RemoteQueueBackend::pausedQueues() {
    return queue()->pausedQueues();
}

core::Report RemoteQueueBackend::setPaused(const std::string& queue, bool pause) {
    const auto q = this->queue();
    core::remote::RemoteOperator op(*q, kTool);
    return pause ? op.pause(queue) : op.resume(queue);
}

core::RecurringList RemoteQueueBackend::recurringTasks() {
    return queue()->recurringTasks(); // evaluated on the host, at its clock
}

core::Report RemoteQueueBackend::runRecurring(const std::string& key) {
    const auto q = queue();
    return core::remote::RemoteOperator(*q, kTool).runRecurring(key);
}

core::Plan RemoteQueueBackend::planTargets(core::Action a, std::vector<core::Target> targets) {
    const auto q = queue();
    return core::remote::RemoteOperator(*q, kTool).planTargets(a, targets);
}

core::Plan RemoteQueueBackend::planFilter(core::Action a, core::Filter f) {
    const auto q = queue();
    return core::remote::RemoteOperator(*q, kTool).planFilter(a, f);
}

core::Plan RemoteQueueBackend::planRetryExpired(std::chrono::nanoseconds threshold) {
    const auto q = queue();
    return core::remote::RemoteOperator(*q, kTool).planRetryExpired(threshold);
}

core::Plan RemoteQueueBackend::planPrune(bool includeFailed,
                                         std::optional<std::chrono::nanoseconds> olderThan) {
    const auto q = queue();
    return core::remote::RemoteOperator(*q, kTool).planPrune(includeFailed, olderThan);
}

core::Report RemoteQueueBackend::run(const core::Plan& p, const std::atomic_bool* cancel,
                                     core::Operator::Progress progress) {
    (void)progress; // the remote apply reports at the end
    try {
        const auto q = queue();
        return core::remote::RemoteOperator(*q, kTool).run(p, cancel);
    } catch (const core::Error& e) {
        core::Report r;
        r.action = p.action;
        r.result.errorKind = e.kind();
        r.result.error = e.what();
        return r;
    }
}

core::Report RemoteQueueBackend::undo(const core::AuditEntry& record,
                                      const std::atomic_bool* cancel,
                                      core::Operator::Progress progress) {
    (void)progress;
    try {
        const auto q = queue();
        return core::remote::RemoteOperator(*q, kTool).undo(record, cancel);
    } catch (const core::Error& e) {
        core::Report r;
        r.undo = true;
        r.result.errorKind = e.kind();
        r.result.error = e.what();
        return r;
    }
}

core::Report RemoteQueueBackend::enqueue(const std::string& data, std::optional<std::string> key) {
    // Throws the host's refusal (full, conflict, read-only), as a local enqueue.
    const auto q = queue();
    return core::remote::RemoteOperator(*q, kTool).enqueue(data, key);
}

core::Report RemoteQueueBackend::vacuum(std::pair<std::int64_t, std::int64_t>* sizes) {
    const auto q = queue();
    return core::remote::RemoteOperator(*q, kTool).vacuum(sizes);
}

core::Report RemoteQueueBackend::upgrade() {
    const auto q = queue();
    return core::remote::RemoteOperator(*q, kTool).upgrade(); // the window reopens after it
}

std::optional<core::AuditEntry> RemoteQueueBackend::lastUndoable() {
    const auto q = queue();
    return core::remote::RemoteOperator(*q, kTool).lastUndoable();
}

} // namespace lq::ui
