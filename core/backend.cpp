// SPDX-License-Identifier: MIT
#include "backend.h"

#include "filestamp.h"
#include "formats/queueformat.h"
#include "jsonwhere.h"
#include "pg/backend.h"
#include "queue.h"
#include "remote/backend.h"
#include "remote/client.h"

#include <unistd.h>

namespace lq::core {

std::shared_ptr<QueueBackend> openBackend(const std::string& path, const BackendOptions& o) {
    if (remote::isRemoteUrl(path))
        return remote::RemoteQueueBackend::open(path, o);
    if (pg::isPostgresUrl(path))
        return pg::PgQueueBackend::open(path, o);
    return LocalQueueBackend::open(path, o);
}

CountsWithQueues QueueBackend::countsWithQueues(TimeNs stuckAfterNs) {
    CountsWithQueues r;
    r.total = counts(stuckAfterNs, {});
    if (QueueFormat::of(info()).namedQueues())
        for (const auto& name : queueNames())
            r.queues.emplace_back(name, counts(stuckAfterNs, name));
    return r;
}

CountsAndStats QueueBackend::countsAndStats(TimeNs stuckAfterNs, bool byQueue) {
    CountsAndStats r;
    if (byQueue)
        r.counts = countsWithQueues(stuckAfterNs);
    else
        r.counts.total = counts(stuckAfterNs, {});
    r.stats = stats(Filter{});
    return r;
}

std::vector<std::string> QueueBackend::jsonFieldNames() const {
    return core::jsonFieldNames(info());
}

std::string QueueBackend::whyNot(Action a) const {
    return QueueFormat::of(info()).whyNot(a, info());
}

std::string QueueBackend::formatName() const {
    return formatId(info().format);
}

std::string QueueBackend::storageText() const {
    return "journal: " + info().journalMode;
}

std::string shortName(const std::string& path) {
    if (!pg::isPostgresUrl(path)) {
        const auto slash = path.find_last_of('/');
        return slash == std::string::npos ? path : path.substr(slash + 1);
    }
    const pg::Target t = pg::parseTarget(path);
    std::string db = t.conninfo;
    db = db.substr(0, db.find('?'));
    const auto slash = db.find_last_of('/');
    db = slash == std::string::npos || slash + 1 == db.size() ? pg::redactedUrl(path)
                                                              : db.substr(slash + 1);
    return t.schema.empty() ? db : db + " \u00b7 " + t.schema;
}

bool isLocalPath(const std::string& path) {
    return !remote::isRemoteUrl(path) && !pg::isPostgresUrl(path);
}

LocalQueueBackend::LocalQueueBackend(std::shared_ptr<Queue> queue, std::string tool)
    : m_queue(std::move(queue))
    , m_tool(std::move(tool)) {}

LocalQueueBackend::~LocalQueueBackend() = default;

std::shared_ptr<QueueBackend> LocalQueueBackend::open(const std::string& path,
                                                      const BackendOptions& b) {
    OpenOptions o;
    o.settings = b.settings;
    // Read-only when asked, and by default when we could not write the file
    // anyway.
    o.readOnly = b.readOnly || ::access(path.c_str(), W_OK) != 0;
    o.table = b.table;
    o.busyTimeoutMs = b.busyTimeoutMs;
    if (b.now)
        o.clock = fixedClock(*b.now);
    return localBackend(std::shared_ptr<Queue>(Queue::open(path, o)), b.tool);
}

std::shared_ptr<QueueBackend> localBackend(std::shared_ptr<Queue> queue, std::string tool) {
    if (!queue) {
        return nullptr;
    }
    return std::make_shared<LocalQueueBackend>(std::move(queue), std::move(tool));
}

Operator LocalQueueBackend::op() const {
    return {*m_queue, m_tool};
}

std::string LocalQueueBackend::path() const {
    return m_queue->path();
}

const FormatInfo& LocalQueueBackend::info() const {
    return m_queue->info();
}

bool LocalQueueBackend::readOnly() const {
    return m_queue->readOnly();
}

TimeNs LocalQueueBackend::now() const {
    return m_queue->now();
}

std::optional<std::int64_t> LocalQueueBackend::maxsize() const {
    return m_queue->maxsize();
}

FileStamp LocalQueueBackend::fileIdentity() const {
    return fileStamp(m_queue->path());
}

std::int64_t LocalQueueBackend::dataVersion() {
    return m_queue->dataVersion();
}

std::int64_t LocalQueueBackend::walSize() const {
    return m_queue->walSize();
}

std::vector<std::int64_t> LocalQueueBackend::orderedRowids(const Filter& f, const Sort& s,
                                                           const std::atomic_bool* cancel) {
    return m_queue->orderedRowids(f, s, cancel);
}

std::vector<Message> LocalQueueBackend::list(const Filter& f, const Sort& s, std::int64_t offset,
                                             std::int64_t limit) {
    return m_queue->list(f, s, offset, limit);
}

std::int64_t LocalQueueBackend::count(const Filter& f) {
    return m_queue->count(f);
}

QueueStats LocalQueueBackend::stats(const Filter& f) {
    return m_queue->stats(f);
}

std::int64_t LocalQueueBackend::fileSize() {
    return m_queue->fileSize();
}

CountsWithQueues LocalQueueBackend::countsWithQueues(TimeNs stuckAfterNs) {
    return m_queue->countsWithQueues(stuckAfterNs);
}

CountsAndStats LocalQueueBackend::countsAndStats(TimeNs stuckAfterNs, bool byQueue) {
    return m_queue->countsAndStats(stuckAfterNs, byQueue);
}

std::vector<Message> LocalQueueBackend::firstPage(const Filter& f, const Sort& s, int limit) {
    // Without an index the first page costs the full scan the ordering does:
    // then it would only delay the ordering.
    if (!m_queue->sortIsIndexed(f, s)) {
        return {};
    }
    return m_queue->list(f, s, 0, limit);
}

std::vector<Message> LocalQueueBackend::fetchRowids(const std::vector<std::int64_t>& rowids) {
    return m_queue->fetchRowids(rowids);
}

std::optional<Message> LocalQueueBackend::get(const std::string& messageId) {
    return m_queue->get(messageId);
}

Counts LocalQueueBackend::counts(TimeNs stuckAfterNs, const std::string& queue) {
    return m_queue->counts(queue, stuckAfterNs);
}

std::vector<std::string> LocalQueueBackend::queueNames() {
    return m_queue->queueNames();
}

DashboardFigures LocalQueueBackend::dashboard(const DashboardQuery& q) {
    return dashboardFigures(*m_queue, q);
}

QueueOverview LocalQueueBackend::queueOverview(const DashboardQuery& q) {
    return core::queueOverview(*m_queue, q);
}

std::vector<AuditEntry> LocalQueueBackend::auditEntries() const {
    return AuditLog().entries(m_queue->path());
}

std::vector<ErrorGroup> LocalQueueBackend::errorGroups(const std::string& queue) {
    return groupFailures(*m_queue, queue);
}

ProcessList LocalQueueBackend::processes() {
    return m_queue->processes();
}

std::vector<PausedQueue> LocalQueueBackend::pausedQueues() {
    return m_queue->pausedQueues();
}

Report LocalQueueBackend::setPaused(const std::string& queue, bool pause) {
    return pause ? op().pause(queue) : op().resume(queue);
}

RecurringList LocalQueueBackend::recurringTasks(int tzOffset) {
    return m_queue->recurringTasks(std::nullopt, tzOffset);
}

Report LocalQueueBackend::runRecurring(const std::string& key) {
    return op().runRecurring(key);
}

Plan LocalQueueBackend::planTargets(Action a, std::vector<Target> targets) {
    return op().planTargets(a, std::move(targets));
}

Plan LocalQueueBackend::planFilter(Action a, Filter f) {
    return op().planFilter(a, std::move(f));
}

Plan LocalQueueBackend::planRetryExpired(std::chrono::nanoseconds threshold,
                                         const std::string& queueName) {
    return op().planRetryExpired(threshold, {}, queueName);
}

Plan LocalQueueBackend::planPrune(bool includeFailed,
                                  std::optional<std::chrono::nanoseconds> olderThan,
                                  const std::string& queueName) {
    return op().planPrune(includeFailed, olderThan, {}, queueName);
}

Report LocalQueueBackend::run(const Plan& p, const std::atomic_bool* cancel,
                              Operator::Progress progress) {
    return op().run(p, cancel, std::move(progress));
}

Report LocalQueueBackend::undo(const AuditEntry& record, const std::atomic_bool* cancel,
                               Operator::Progress progress) {
    return op().undo(record, cancel, std::move(progress));
}

Report LocalQueueBackend::enqueue(const std::string& data, std::optional<std::string> key,
                                  Message* stored) {
    return op().enqueue(data, std::move(key), stored);
}

Report LocalQueueBackend::vacuum(std::pair<std::int64_t, std::int64_t>* sizes) {
    return op().vacuum(sizes);
}

Report LocalQueueBackend::upgrade() {
    return op().upgrade();
}

std::optional<AuditEntry> LocalQueueBackend::lastUndoable() {
    return op().lastUndoable();
}

std::optional<std::string> LocalQueueBackend::refusal(Action a, const Message& m) const {
    return m_queue->refusal(a, m); // pure: the format's rule, no SQL
}

} // namespace lq::core
