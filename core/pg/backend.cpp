// SPDX-License-Identifier: MIT
// A queue on PostgreSQL behind QueueBackend (core/pg/backend.h).
#include "backend.h"

#include "../dashboard.h"
#include "../error.h"
#include "../formats/queueformat.h"
#include "../queueoverview.h"
#include "list.h"

#include <map>

namespace lq::core::pg {

std::shared_ptr<QueueBackend> PgQueueBackend::open(const std::string& url,
                                                   const BackendOptions& o) {
    PgOpenOptions po;
    if (o.now)
        po.clock = fixedClock(*o.now);
    po.readOnly = o.readOnly;
    return std::make_shared<PgQueueBackend>(PgQueue::open(url, po), o.tool);
}

PgQueueBackend::PgQueueBackend(std::unique_ptr<PgQueue> queue, std::string tool)
    : m_queue(std::move(queue))
    , m_tool(std::move(tool)) {}

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
    return m_queue->changeMarker() + m_heard.load();
}

void PgQueueBackend::setChangeListener(const std::function<void(bool force)>& onChange) {
    m_listener.reset();
    std::vector<std::string> channels = m_queue->insertChannels();
    if (channels.empty() || !onChange)
        return;
    m_listener = std::make_unique<pg::ChangeListener>(m_queue->connectUrl(), std::move(channels),
                                                      [this, onChange] {
                                                          ++m_heard;
                                                          onChange(false);
                                                      });
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
    // One statement: the timing columns of the jobs the listing's WHERE
    // matches (any filter, as on SQLite).
    return computeStats(m_queue->timing(false, f), f.now.value_or(m_queue->now()));
}

std::int64_t PgQueueBackend::fileSize() {
    return m_queue->sizeOnDisk();
}

Counts PgQueueBackend::counts(TimeNs stuckAfterNs, const std::string& queue) {
    return m_queue->counts(stuckAfterNs, queue);
}

std::vector<std::string> PgQueueBackend::jsonFieldNames() const {
    return pg::jsonFieldNames(m_queue->formatId());
}

std::optional<Counts> PgQueueBackend::estimatedCounts(const std::string& queue) {
    return m_queue->estimatedCounts(queue);
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
    return m_queue->processes();
}

RecurringList PgQueueBackend::recurringTasks(int tzOffset) {
    return m_queue->recurringTasks(tzOffset);
}

Report PgQueueBackend::refused(Action a, const std::string& why) const {
    Report r;
    r.action = a;
    r.result.action = a;
    r.result.errorKind = ErrorKind::Unsupported;
    r.result.error = m_queue->url() + ": " + why + ". Nothing was changed.";
    return r;
}

Report PgQueueBackend::setPaused(const std::string& queue, bool pause) {
    const Action a = pause ? Action::Pause : Action::Resume;
    if (const std::string why = whyNot(a); !why.empty())
        return refused(a, why);
    AuditLog log;
    return runRecorded(log, recordHeader(a, path(), 0, 0, m_tool),
                       [&](ActionOptions& o) { return m_queue->setPaused(queue, pause, o); },
                       nullptr, {});
}

Report PgQueueBackend::runRecurring(const std::string& key) {
    if (const std::string why = whyNot(Action::RunRecurring); !why.empty())
        return refused(Action::RunRecurring, why);
    AuditLog log;
    AuditEntry head = recordHeader(Action::RunRecurring, path(), 0, 0, m_tool);
    head.note = "recurring task " + key; // as Operator::runRecurring records it
    return runRecorded(log, std::move(head),
                       [&](ActionOptions& o) { return m_queue->runRecurring(key, o); }, nullptr,
                       {});
}

std::string PgQueueBackend::whyNot(Action a) const {
    switch (a) {
    case Action::Vacuum:
        return "VACUUM of a PostgreSQL database is its administrator's (or autovacuum's) work, "
               "not a queue tool's";
    case Action::Enqueue:
        return "enqueue writes litequeue messages; jobs on PostgreSQL are inserted by their app";
    case Action::Upgrade:
        return "the library's migrations upgrade its PostgreSQL schema, run by the app";
    default:
        return QueueBackend::whyNot(a); // the row actions: the format's own
    }
}

bool PgQueueBackend::readOnly() const {
    return !m_queue->whyReadOnly().empty();
}

std::optional<std::string> PgQueueBackend::refusal(Action a, const Message& m) const {
    return m_queue->refusal(a, m);
}

std::vector<AuditEntry> PgQueueBackend::auditEntries() const {
    return AuditLog().entries(path());
}

std::optional<AuditEntry> PgQueueBackend::lastUndoable() {
    return AuditLog().lastUndoable(path());
}

Plan PgQueueBackend::planTargets(Action a, std::vector<core::Target> targets) {
    Plan p;
    p.action = a;
    p.targets = std::move(targets);
    p.fixedAt = m_queue->now();
    return p;
}

Plan PgQueueBackend::planFilter(Action a, Filter f) {
    needList();
    if (!f.now)
        f.now = m_queue->now();
    Plan p;
    p.action = a;
    p.fixedAt = *f.now;
    p.wholeFilter = true;
    p.filterJson = filterToJson(f);
    p.cutoff = f.doneBefore;
    // The targets with the tokens they have now, read a batch at a time.
    forEachFetched(
        m_queue->orderedIds(f, Sort{}),
        [&](const std::vector<std::int64_t>& part) { return m_queue->jobs(part); },
        [&](const Message& m) {
            p.targets.push_back({m.messageId, m.token});
        });
    return p;
}

FilterPlanner PgQueueBackend::planner() {
    return [this](Action a, Filter f) { return planFilter(a, std::move(f)); };
}

Plan PgQueueBackend::planRetryExpired(std::chrono::nanoseconds threshold,
                                      const std::string& queue) {
    if (const std::string why = whyNot(Action::RetryExpired); !why.empty())
        throw Unsupported(m_queue->url(), why);
    return planRetryExpiredWith(planner(), threshold, m_queue->now(), queue);
}

Plan PgQueueBackend::planPrune(bool includeFailed,
                               std::optional<std::chrono::nanoseconds> olderThan,
                               const std::string& queue) {
    if (const std::string why = whyNot(Action::Prune); !why.empty())
        throw Unsupported(m_queue->url(), why);
    return planPruneWith(planner(), QueueFormat::of(info()), includeFailed, olderThan,
                         m_queue->now(), queue);
}

Report PgQueueBackend::run(const Plan& p, const std::atomic_bool* cancel,
                           Operator::Progress progress) {
    AuditLog log;
    AuditEntry head = recordHeader(p.action, path(), 0, 0, m_tool);
    head.filter = p.filterJson;
    head.cutoff = p.cutoff;
    return runRecorded(
        log, std::move(head),
        [&](ActionOptions& o) {
            o.chunkSize = p.chunkSize;
            return m_queue->apply(p.action, p.targets, o);
        },
        cancel, std::move(progress));
}

Report PgQueueBackend::undo(const AuditEntry& record, const std::atomic_bool* cancel,
                            Operator::Progress progress) {
    AuditLog log;
    AuditEntry head = recordHeader(record.action, path(), 0, 0, m_tool);
    head.undone = true;
    head.undoes = record.id;
    return runRecorded(
        log, std::move(head),
        [&](ActionOptions& o) { return m_queue->undo(record.action, record.applied, o); }, cancel,
        std::move(progress));
}

Report PgQueueBackend::enqueue(const std::string&, std::optional<std::string>, Message*) {
    return refused(Action::Enqueue, whyNot(Action::Enqueue));
}

Report PgQueueBackend::vacuum(std::pair<std::int64_t, std::int64_t>*) {
    return refused(Action::Vacuum, whyNot(Action::Vacuum));
}

Report PgQueueBackend::upgrade() {
    return refused(Action::Upgrade, whyNot(Action::Upgrade));
}

} // namespace lq::core::pg
