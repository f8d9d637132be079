// SPDX-License-Identifier: MIT
// A queue on PostgreSQL behind QueueBackend (core/pg/backend.h).
#include "backend.h"

#include "../dashboard.h"
#include "../error.h"
#include "../queueoverview.h"

#include <map>

namespace lq::core::pg {

namespace {

constexpr const char* kWhy = "queues on PostgreSQL are read-only so far (issue 41)";

} // namespace

std::shared_ptr<QueueBackend> PgQueueBackend::open(const std::string& url,
                                                   const BackendOptions& o) {
    PgOpenOptions po;
    if (o.now)
        po.clock = fixedClock(*o.now);
    return std::make_shared<PgQueueBackend>(PgQueue::open(url, po));
}

PgQueueBackend::PgQueueBackend(std::unique_ptr<PgQueue> queue)
    : m_queue(std::move(queue)) {}

PgQueueBackend::~PgQueueBackend() = default;

std::string PgQueueBackend::path() const {
    return m_queue->url();
}

const FormatInfo& PgQueueBackend::info() const {
    return m_queue->info();
}

TimeNs PgQueueBackend::now() const {
    return m_queue->now();
}

std::string PgQueueBackend::storageText() const {
    const int v = m_queue->serverVersion();
    return "PostgreSQL " + std::to_string(v / 10000) + "." + std::to_string(v % 10000) +
           ", schema " + m_queue->found().schema;
}

FileStamp PgQueueBackend::fileIdentity() const {
    // A database is not replaced under its URL the way a file is: one
    // stamp for as long as it is open.
    FileStamp s;
    s.exists = true;
    return s;
}

std::int64_t PgQueueBackend::dataVersion() {
    return m_queue->changeMarker();
}

void PgQueueBackend::needList() const {
    if (!m_queue->listSupported())
        throw Unsupported(m_queue->url(), "the jobs of " + libraryName(m_queue->formatId()) +
                                              " on PostgreSQL: not yet (issue 41)");
}

std::vector<std::int64_t> PgQueueBackend::orderedRowids(const Filter& f, const Sort& s,
                                                        const std::atomic_bool* /*cancel*/) {
    needList();
    return m_queue->orderedIds(f, s);
}

std::vector<Message> PgQueueBackend::fetchRowids(const std::vector<std::int64_t>& rowids) {
    needList();
    return m_queue->jobs(rowids);
}

std::vector<Message> PgQueueBackend::firstPage(const Filter& f, const Sort& s, int limit) {
    needList();
    return m_queue->firstJobs(f, s, limit, 0);
}

std::optional<Message> PgQueueBackend::get(const std::string& messageId) {
    needList();
    return m_queue->job(messageId);
}

std::vector<Message> PgQueueBackend::list(const Filter& f, const Sort& s, std::int64_t offset,
                                          std::int64_t limit) {
    needList();
    return m_queue->firstJobs(f, s, limit, offset);
}

std::int64_t PgQueueBackend::count(const Filter& f) {
    needList();
    return m_queue->count(f);
}

QueueStats PgQueueBackend::stats(const Filter& f) {
    needList();
    if (!f.states.empty() || !f.extraStates.empty() || f.stuckOnly || !f.search.empty() ||
        !f.where.empty() || f.olderThan || f.inTimeFrom || f.inTimeTo || f.doneBefore ||
        f.expiredAt || f.metric != Filter::Metric::None)
        throw Unsupported(m_queue->url(), "statistics of a filter other than a named queue on "
                                          "PostgreSQL: not yet (issue 41)");
    const TimeNs now = f.now.value_or(m_queue->now());
    return computeStats(m_queue->timing(false, f.queue), now);
}

std::int64_t PgQueueBackend::fileSize() {
    return m_queue->sizeOnDisk();
}

Counts PgQueueBackend::counts(TimeNs stuckAfterNs, const std::string& queue) {
    return m_queue->counts(stuckAfterNs, queue);
}

std::vector<std::string> PgQueueBackend::queueNames() {
    return m_queue->queueNames();
}

DashboardFigures PgQueueBackend::dashboard(const DashboardQuery& q) {
    needList();
    const TimeNs now = m_queue->now();
    return dashboardFiguresOf(info(), m_queue->timing(false, {}), now, q, [&] {
        return m_queue->counts(q.stuckNs > 0 ? q.stuckNs : kDefaultStuckAfterNs);
    });
}

QueueOverview PgQueueBackend::queueOverview(const DashboardQuery& q) {
    needList();
    const TimeNs now = m_queue->now();
    const TimeNs stuck = q.stuckNs > 0 ? q.stuckNs : kDefaultStuckAfterNs;
    std::vector<std::pair<std::string, Counts>> counts;
    for (const std::string& name : m_queue->queueNames())
        counts.emplace_back(name, m_queue->counts(stuck, name));
    return queueOverviewOf(info(), m_queue->timing(true, {}), now, q, counts,
                           m_queue->pausedQueues());
}

std::vector<ErrorGroup> PgQueueBackend::errorGroups(const std::string& queue) {
    needList();
    // groupFailures() reads through orderedRowids() and fetchRowids().
    struct Reader {
        PgQueue& q;
        const FormatInfo& info() const { return q.info(); }
        std::vector<std::int64_t> orderedRowids(const Filter& f, const Sort& s) {
            return q.orderedIds(f, s);
        }
        std::vector<Message> fetchRowids(const std::vector<std::int64_t>& ids) {
            return q.jobs(ids);
        }
    } reader{*m_queue};
    return groupFailures(reader, queue);
}

std::vector<PausedQueue> PgQueueBackend::pausedQueues() {
    return m_queue->pausedQueues();
}

ProcessList PgQueueBackend::processes() {
    ProcessList l;
    l.notStored = "the processes of a queue on PostgreSQL: not read yet (issue 41)";
    return l;
}

RecurringList PgQueueBackend::recurringTasks(int /*tzOffset*/) {
    RecurringList l;
    l.notStored = "the recurring tasks of a queue on PostgreSQL: not read yet (issue 41)";
    return l;
}

void PgQueueBackend::refuse() const {
    throw ReadOnly(m_queue->url(), kWhy);
}

Report PgQueueBackend::refused(Action a) const {
    Report r;
    r.action = a;
    r.result.action = a;
    r.result.errorKind = ErrorKind::ReadOnly;
    r.result.error = m_queue->url() + ": " + kWhy + ". Nothing was changed.";
    return r;
}

Report PgQueueBackend::setPaused(const std::string& /*queue*/, bool pause) {
    return refused(pause ? Action::Pause : Action::Resume);
}

Report PgQueueBackend::runRecurring(const std::string& /*key*/) {
    return refused(Action::RunRecurring);
}

Plan PgQueueBackend::planTargets(Action, std::vector<core::Target>) {
    refuse();
}

Plan PgQueueBackend::planFilter(Action, Filter) {
    refuse();
}

Plan PgQueueBackend::planRetryExpired(std::chrono::nanoseconds) {
    refuse();
}

Plan PgQueueBackend::planPrune(bool, std::optional<std::chrono::nanoseconds>) {
    refuse();
}

Report PgQueueBackend::run(const Plan& p, const std::atomic_bool*, Operator::Progress) {
    return refused(p.action);
}

Report PgQueueBackend::undo(const AuditEntry& record, const std::atomic_bool*, Operator::Progress) {
    Report r = refused(record.action);
    r.undo = true;
    return r;
}

Report PgQueueBackend::enqueue(const std::string&, std::optional<std::string>) {
    return refused(Action::Enqueue);
}

Report PgQueueBackend::vacuum(std::pair<std::int64_t, std::int64_t>*) {
    return refused(Action::Vacuum);
}

Report PgQueueBackend::upgrade() {
    return refused(Action::Upgrade);
}

} // namespace lq::core::pg
