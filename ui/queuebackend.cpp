// SPDX-License-Identifier: MIT
#include "ui/queuebackend.h"

#include "core/filestamp.h"
#include "core/queue.h"

#include <unistd.h>

namespace lq::ui {

namespace {

constexpr const char* kTool = "lqadmin";

} // namespace

LocalQueueBackend::LocalQueueBackend(std::shared_ptr<core::Queue> queue)
    : m_queue(std::move(queue)) {}

LocalQueueBackend::~LocalQueueBackend() = default;

std::shared_ptr<QueueBackend> LocalQueueBackend::open(const std::string& path, bool readOnly,
                                                      const std::string& table,
                                                      const core::FormatSettings& settings) {
    core::OpenOptions o;
    o.settings = settings;
    // Read-only when asked, and by default when we could not write the file
    // anyway.
    o.readOnly = readOnly || ::access(path.c_str(), W_OK) != 0;
    o.table = table;
    return localBackend(std::shared_ptr<core::Queue>(core::Queue::open(path, o)));
}

std::shared_ptr<QueueBackend> localBackend(std::shared_ptr<core::Queue> queue) {
    if (!queue) {
        return nullptr;
    }
    return std::make_shared<LocalQueueBackend>(std::move(queue));
}

core::Operator LocalQueueBackend::op() const {
    return {*m_queue, kTool};
}

std::string LocalQueueBackend::path() const {
    return m_queue->path();
}

const core::FormatInfo& LocalQueueBackend::info() const {
    return m_queue->info();
}

bool LocalQueueBackend::readOnly() const {
    return m_queue->readOnly();
}

core::TimeNs LocalQueueBackend::now() const {
    return m_queue->now();
}

std::optional<std::int64_t> LocalQueueBackend::maxsize() const {
    return m_queue->maxsize();
}

core::FileStamp LocalQueueBackend::fileIdentity() const {
    return core::fileStamp(m_queue->path());
}

std::int64_t LocalQueueBackend::dataVersion() {
    return m_queue->dataVersion();
}

std::int64_t LocalQueueBackend::walSize() const {
    return m_queue->walSize();
}

std::vector<std::int64_t> LocalQueueBackend::orderedRowids(const core::Filter& f,
                                                           const core::Sort& s,
                                                           const std::atomic_bool* cancel) {
    return m_queue->orderedRowids(f, s, cancel);
}

std::vector<core::Message> LocalQueueBackend::firstPage(const core::Filter& f, const core::Sort& s,
                                                        int limit) {
    // Without an index the first page costs the full scan the ordering does:
    // then it would only delay the ordering.
    if (!m_queue->sortIsIndexed(f, s)) {
        return {};
    }
    return m_queue->list(f, s, 0, limit);
}

std::vector<core::Message> LocalQueueBackend::fetchRowids(const std::vector<std::int64_t>& rowids) {
    return m_queue->fetchRowids(rowids);
}

std::optional<core::Message> LocalQueueBackend::get(const std::string& messageId) {
    return m_queue->get(messageId);
}

core::Counts LocalQueueBackend::counts(core::TimeNs stuckAfterNs, const std::string& queue) {
    return m_queue->counts(queue, stuckAfterNs);
}

std::vector<std::string> LocalQueueBackend::queueNames() {
    return m_queue->queueNames();
}

core::DashboardFigures LocalQueueBackend::dashboard(const core::DashboardQuery& q) {
    return core::dashboardFigures(*m_queue, q);
}

core::QueueOverview LocalQueueBackend::queueOverview(const core::DashboardQuery& q) {
    return core::queueOverview(*m_queue, q);
}

std::vector<core::AuditEntry> LocalQueueBackend::auditEntries() const {
    return core::AuditLog().entries(m_queue->path());
}

std::vector<core::ErrorGroup> LocalQueueBackend::errorGroups(const std::string& queue) {
    return core::groupFailures(*m_queue, queue);
}

core::ProcessList LocalQueueBackend::processes() {
    return m_queue->processes();
}

std::vector<core::PausedQueue> LocalQueueBackend::pausedQueues() {
    return m_queue->pausedQueues();
}

core::Report LocalQueueBackend::setPaused(const std::string& queue, bool pause) {
    return pause ? op().pause(queue) : op().resume(queue);
}

core::RecurringList LocalQueueBackend::recurringTasks() {
    return m_queue->recurringTasks();
}

core::Report LocalQueueBackend::runRecurring(const std::string& key) {
    return op().runRecurring(key);
}

core::Plan LocalQueueBackend::planTargets(core::Action a, std::vector<core::Target> targets) {
    return op().planTargets(a, std::move(targets));
}

core::Plan LocalQueueBackend::planFilter(core::Action a, core::Filter f) {
    return op().planFilter(a, std::move(f));
}

core::Plan LocalQueueBackend::planRetryExpired(std::chrono::nanoseconds threshold) {
    return op().planRetryExpired(threshold);
}

core::Plan LocalQueueBackend::planPrune(bool includeFailed,
                                        std::optional<std::chrono::nanoseconds> olderThan) {
    return op().planPrune(includeFailed, olderThan);
}

core::Report LocalQueueBackend::run(const core::Plan& p, const std::atomic_bool* cancel,
                                    core::Operator::Progress progress) {
    return op().run(p, cancel, std::move(progress));
}

core::Report LocalQueueBackend::undo(const core::AuditEntry& record, const std::atomic_bool* cancel,
                                     core::Operator::Progress progress) {
    return op().undo(record, cancel, std::move(progress));
}

core::Report LocalQueueBackend::enqueue(const std::string& data, std::optional<std::string> key) {
    return op().enqueue(data, std::move(key));
}

core::Report LocalQueueBackend::vacuum(std::pair<std::int64_t, std::int64_t>* sizes) {
    return op().vacuum(sizes);
}

core::Report LocalQueueBackend::upgrade() {
    return op().upgrade();
}

std::optional<core::AuditEntry> LocalQueueBackend::lastUndoable() {
    return op().lastUndoable();
}

std::optional<std::string> LocalQueueBackend::refusal(core::Action a,
                                                      const core::Message& m) const {
    return m_queue->refusal(a, m); // pure: the format's rule, no SQL
}

} // namespace lq::ui
