// SPDX-License-Identifier: MIT
#include "backend.h"

#include "client.h"

#include <algorithm>
#include <chrono>

namespace lq::core::remote {

namespace {

constexpr int kEventWaitMs = 500;
constexpr int kDeadSlackMs = 100;
constexpr int kFirstBackoffMs = 250;
constexpr int kMaxBackoffMs = 8000;

RemoteOpenOptions openOptions(const BackendOptions& b, bool readOnly) {
    RemoteOpenOptions o;
    o.readOnly = readOnly;
    o.table = b.table;
    o.settings = b.settings;
    o.busyTimeoutMs = b.busyTimeoutMs;
    o.now = b.now;
    return o;
}

} // namespace

std::shared_ptr<QueueBackend> RemoteQueueBackend::open(const std::string& url,
                                                       const BackendOptions& o) {
    std::shared_ptr<RemoteQueue> q = RemoteQueue::open(url, openOptions(o, o.readOnly));
    return std::make_shared<RemoteQueueBackend>(std::move(q), o);
}

RemoteQueueBackend::RemoteQueueBackend(std::shared_ptr<RemoteQueue> queue, BackendOptions o)
    : m_url(queue->url())
    , m_label(SshUrl::parse(queue->url()).host)
    , m_readOnly(queue->readOnly() || o.readOnly)
    , m_options(std::move(o))
    , m_info(queue->info())
    , m_queue(std::move(queue)) {
    if (m_options.watch)
        m_monitor = std::thread([this] { monitor(); });
}

RemoteQueueBackend::~RemoteQueueBackend() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    if (m_monitor.joinable())
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
        std::shared_ptr<RemoteQueue> q;
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
            std::shared_ptr<RemoteQueue> fresh =
                RemoteQueue::open(m_url, openOptions(m_options, m_readOnly));
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

std::shared_ptr<RemoteQueue> RemoteQueueBackend::queue() const {
    std::lock_guard lock(m_mutex);
    if (!m_queue) {
        throw Error(ErrorKind::Io, m_url,
                    "the connection to " + m_label + " is lost; reconnecting");
    }
    return m_queue;
}

std::string RemoteQueueBackend::path() const {
    return m_url;
}

const FormatInfo& RemoteQueueBackend::info() const {
    return m_info;
}

bool RemoteQueueBackend::readOnly() const {
    return m_readOnly;
}

TimeNs RemoteQueueBackend::now() const {
    return queue()->now();
}

std::optional<std::int64_t> RemoteQueueBackend::maxsize() const {
    return std::nullopt;
}

FileStamp RemoteQueueBackend::fileIdentity() const {
    const auto q = queue();
    FileStamp id;
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

std::vector<std::int64_t> RemoteQueueBackend::orderedRowids(const Filter& f, const Sort& s,
                                                            const std::atomic_bool* cancel) {
    (void)cancel; // the host reads to the end; the superseded reply is dropped
    return queue()->orderedRowids(f, s);
}

std::vector<Message> RemoteQueueBackend::fetchRowids(const std::vector<std::int64_t>& rowids) {
    return queue()->fetchRowids(rowids);
}

std::vector<Message> RemoteQueueBackend::list(const Filter& f, const Sort& s, std::int64_t offset,
                                              std::int64_t limit) {
    return queue()->list(f, s, offset, limit);
}

std::int64_t RemoteQueueBackend::count(const Filter& f) {
    return queue()->count(f);
}

QueueStats RemoteQueueBackend::stats(const Filter& f) {
    return queue()->stats(f);
}

std::int64_t RemoteQueueBackend::fileSize() {
    return queue()->fileSize();
}

std::vector<Message> RemoteQueueBackend::firstPage(const Filter& f, const Sort& s, int limit) {
    // Over a link the first page is one round trip, well before the ordering.
    return queue()->list(f, s, 0, limit);
}

std::optional<Message> RemoteQueueBackend::get(const std::string& messageId) {
    return queue()->get(messageId);
}

Counts RemoteQueueBackend::counts(TimeNs stuckAfterNs, const std::string& queue) {
    // The protocol's `counts` with `queue` (docs/PROTOCOL.md).
    return this->queue()->counts(queue, stuckAfterNs);
}

std::vector<std::string> RemoteQueueBackend::queueNames() {
    return queue()->queueNames(); // `queue_names`
}

DashboardFigures RemoteQueueBackend::dashboard(const DashboardQuery& q) {
    // Computed on the host (`dashboard`): figures, not a row per message.
    return queue()->dashboard(q);
}

QueueOverview RemoteQueueBackend::queueOverview(const DashboardQuery& q) {
    return queue()->queueOverview(q); // computed on the host (`queue_overview`)
}

std::vector<AuditEntry> RemoteQueueBackend::auditEntries() const {
    return AuditLog().entries(m_url);
}

std::vector<ErrorGroup> RemoteQueueBackend::errorGroups(const std::string& queue) {
    // The failed rows are read over the link in batches and grouped here,
    // by the same rule as a local file (lqctl errors over ssh does the same).
    const auto q = this->queue();
    return groupFailures(*q, queue);
}

ProcessList RemoteQueueBackend::processes() {
    return queue()->processes();
}

std::vector<PausedQueue> RemoteQueueBackend::pausedQueues() {
    return queue()->pausedQueues();
}

Report RemoteQueueBackend::setPaused(const std::string& queue, bool pause) {
    const auto q = this->queue();
    RemoteOperator op(*q, m_options.tool);
    return pause ? op.pause(queue) : op.resume(queue);
}

RecurringList RemoteQueueBackend::recurringTasks(int tzOffset) {
    return queue()->recurringTasks(std::nullopt, tzOffset); // on the host, at its clock
}

Report RemoteQueueBackend::runRecurring(const std::string& key) {
    const auto q = queue();
    return RemoteOperator(*q, m_options.tool).runRecurring(key);
}

Plan RemoteQueueBackend::planTargets(Action a, std::vector<Target> targets) {
    const auto q = queue();
    return RemoteOperator(*q, m_options.tool).planTargets(a, targets);
}

Plan RemoteQueueBackend::planFilter(Action a, Filter f) {
    const auto q = queue();
    return RemoteOperator(*q, m_options.tool).planFilter(a, f);
}

Plan RemoteQueueBackend::planRetryExpired(std::chrono::nanoseconds threshold,
                                          const std::string& queueName) {
    const auto q = queue();
    return RemoteOperator(*q, m_options.tool).planRetryExpired(threshold, {}, queueName);
}

Plan RemoteQueueBackend::planPrune(bool includeFailed,
                                   std::optional<std::chrono::nanoseconds> olderThan,
                                   const std::string& queueName) {
    const auto q = queue();
    return RemoteOperator(*q, m_options.tool).planPrune(includeFailed, olderThan, {}, queueName);
}

Report RemoteQueueBackend::run(const Plan& p, const std::atomic_bool* cancel,
                               Operator::Progress progress) {
    (void)progress; // the remote apply reports at the end
    try {
        const auto q = queue();
        return RemoteOperator(*q, m_options.tool).run(p, cancel);
    } catch (const Error& e) {
        Report r;
        r.action = p.action;
        r.result.errorKind = e.kind();
        r.result.error = e.what();
        return r;
    }
}

Report RemoteQueueBackend::undo(const AuditEntry& record, const std::atomic_bool* cancel,
                                Operator::Progress progress) {
    (void)progress;
    try {
        const auto q = queue();
        return RemoteOperator(*q, m_options.tool).undo(record, cancel);
    } catch (const Error& e) {
        Report r;
        r.undo = true;
        r.result.errorKind = e.kind();
        r.result.error = e.what();
        return r;
    }
}

Report RemoteQueueBackend::enqueue(const std::string& data, std::optional<std::string> key,
                                   Message* stored) {
    // Throws the host's refusal (full, conflict, read-only), as a local enqueue.
    const auto q = queue();
    return RemoteOperator(*q, m_options.tool).enqueue(data, key, stored);
}

Report RemoteQueueBackend::vacuum(std::pair<std::int64_t, std::int64_t>* sizes) {
    const auto q = queue();
    return RemoteOperator(*q, m_options.tool).vacuum(sizes);
}

Report RemoteQueueBackend::upgrade() {
    const auto q = queue();
    return RemoteOperator(*q, m_options.tool).upgrade(); // the window reopens after it
}

std::optional<AuditEntry> RemoteQueueBackend::lastUndoable() {
    const auto q = queue();
    return RemoteOperator(*q, m_options.tool).lastUndoable();
}

} // namespace lq::core::remote
