// SPDX-License-Identifier: MIT
#include "operator.h"

#include "formats/queueformat.h"
#include "json.h"
#include "queue.h"

#include <filesystem>

namespace lq::core {

namespace {

std::string absolute(const std::string& path) {
    std::error_code ec;
    auto p = std::filesystem::absolute(path, ec);
    return ec ? path : p.lexically_normal().string();
}

} // namespace

std::string groupedNumber(std::int64_t n) {
    const unsigned long long mag =
        n < 0 ? 0ULL - static_cast<unsigned long long>(n) : static_cast<unsigned long long>(n);
    const std::string digits = std::to_string(mag);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return n < 0 ? "-" + out : out;
}

std::string filterToJson(const Filter& f) {
    Json j = Json::object();
    if (!f.states.empty()) {
        Json states = Json::array();
        for (State s : f.states)
            states.push(stateName(s));
        j.set("states", std::move(states));
    }
    if (!f.extraStates.empty()) {
        Json extra = Json::array();
        for (const auto& x : f.extraStates)
            extra.push(x);
        j.set("extra_states", std::move(extra));
    }
    if (!f.queue.empty())
        j.set("queue", f.queue);
    if (f.stuckOnly) {
        j.set("stuck_only", true);
        j.set("stuck_after_ns", f.stuckAfterNs);
    }
    if (!f.search.empty())
        j.set("search", f.search);
    if (!f.where.empty())
        j.set("where", f.where);
    if (f.olderThan)
        j.set("older_than_s", std::chrono::duration<double>(*f.olderThan).count());
    if (f.inTimeFrom)
        j.set("in_time_from", *f.inTimeFrom);
    if (f.inTimeTo)
        j.set("in_time_to", *f.inTimeTo);
    if (f.doneBefore)
        j.set("done_before", *f.doneBefore);
    if (f.expiredAt)
        j.set("expired_at", *f.expiredAt);
    if (f.metric != Filter::Metric::None) {
        static const char* names[] = {"", "wait", "processing", "total", "time_to_failure"};
        j.set("metric", names[static_cast<int>(f.metric)]);
        j.set("metric_lo_ns", f.metricLo);
        j.set("metric_hi_ns", f.metricHi);
    }
    if (f.now)
        j.set("now", *f.now);
    return j.dump();
}

std::vector<std::pair<SkipKind, std::size_t>> Report::skippedByKind() const {
    std::vector<std::pair<SkipKind, std::size_t>> out;
    for (SkipKind k :
         {SkipKind::Changed, SkipKind::Gone, SkipKind::Conflict, SkipKind::NotApplicable}) {
        std::size_t n = 0;
        for (const auto& s : result.skipped)
            n += s.kind == k;
        if (n)
            out.emplace_back(k, n);
    }
    return out;
}

std::size_t Report::notes() const {
    std::size_t n = 0;
    for (const auto& a : result.applied)
        n += !a.note.empty();
    return n;
}

std::string Report::summary() const {
    std::string s = "applied " + groupedNumber(static_cast<std::int64_t>(applied()));
    if (const std::size_t n = notes())
        s += " (" + groupedNumber(static_cast<std::int64_t>(n)) + " with a note)";
    s += "; skipped " + groupedNumber(static_cast<std::int64_t>(skipped()));
    const auto kinds = skippedByKind();
    if (!kinds.empty()) {
        s += " (";
        for (std::size_t i = 0; i < kinds.size(); ++i) {
            if (i)
                s += ", ";
            s += std::string(skipKindName(kinds[i].first)) + " " +
                 groupedNumber(static_cast<std::int64_t>(kinds[i].second));
        }
        s += ")";
    }
    s += "; not attempted " + groupedNumber(static_cast<std::int64_t>(notAttempted()));
    if (result.cancelled)
        s += "; cancelled";
    if (!result.error.empty())
        s += "; stopped: " + result.error;
    return s;
}

Operator::Operator(Queue& q, std::string tool, AuditLog log)
    : m_q(q)
    , m_tool(std::move(tool))
    , m_log(std::move(log))
    , m_path(absolute(q.path())) {}

AuditEntry recordHeader(Action a, const std::string& queuePath, std::uint64_t device,
                        std::uint64_t inode, const std::string& tool) {
    AuditEntry e;
    e.id = AuditLog::newId();
    e.when = systemNowNs();
    e.queuePath = queuePath;
    e.device = device;
    e.inode = inode;
    e.action = a;
    e.user = AuditLog::currentUser();
    e.host = AuditLog::hostName();
    e.tool = tool;
    return e;
}

AuditEntry Operator::header(Action a) const {
    return recordHeader(a, m_path, m_q.identity().device, m_q.identity().inode, m_tool);
}

Plan Operator::planTargets(Action a, std::vector<Target> targets) const {
    Plan p;
    p.action = a;
    p.targets = std::move(targets);
    p.fixedAt = m_q.now();
    return p;
}

Plan Operator::planFilter(Action a, Filter f) const {
    if (!f.now)
        f.now = m_q.now();
    Plan p;
    p.action = a;
    p.fixedAt = *f.now;
    p.targets = m_q.targetsFor(f);
    p.wholeFilter = true;
    p.filterJson = filterToJson(f);
    p.cutoff = f.doneBefore;
    return p;
}

Plan planRetryExpiredWith(const FilterPlanner& plan, std::chrono::nanoseconds threshold, TimeNs now,
                          const std::string& queue) {
    Filter f;
    f.queue = queue;
    f.states = {State::Locked};
    f.stuckOnly = true;
    f.stuckAfterNs = threshold.count();
    f.now = now;
    Plan p = plan(Action::RetryExpired, f);
    p.cutoff = now - f.stuckAfterNs;
    // Atomic, as litequeue's retry_expired is.
    p.chunkSize = std::max<std::size_t>(1, p.targets.size());
    return p;
}

Plan planPruneWith(const FilterPlanner& plan, const QueueFormat& format, bool includeFailed,
                   std::optional<std::chrono::nanoseconds> olderThan, TimeNs now,
                   const std::string& queue) {
    // The format's own pruner says what is pruned and, without
    // --older-than, from what age (Oban's Pruner, River's JobCleaner, ...).
    auto rules = format.pruneRules();
    if (olderThan) {
        // One cutoff for everything the rules cover.
        QueueFormat::PruneRule all;
        for (const auto& r : rules) {
            all.states.insert(all.states.end(), r.states.begin(), r.states.end());
            all.extraStates.insert(all.extraStates.end(), r.extraStates.begin(),
                                   r.extraStates.end());
        }
        all.olderThan = olderThan;
        rules = {std::move(all)};
    }
    Plan p;
    std::string filters;
    const auto failures = format.failureStates();
    for (auto& r : rules) {
        if (!includeFailed) {
            std::erase(r.states, State::Failed);
            std::erase_if(r.extraStates, [&](const std::string& x) {
                return std::find(failures.begin(), failures.end(), x) != failures.end();
            });
        }
        if (r.states.empty() && r.extraStates.empty())
            continue;
        Filter f;
        f.queue = queue;
        f.states = r.states;
        f.extraStates = r.extraStates;
        f.now = now;
        if (r.olderThan)
            f.doneBefore = now - r.olderThan->count();
        if (r.expired)
            f.expiredAt = now;
        Plan part = plan(Action::Prune, f);
        if (filters.empty()) {
            p = std::move(part);
        } else {
            p.targets.insert(p.targets.end(), part.targets.begin(), part.targets.end());
            // Several horizons: the cutoff shown is the newest one.
            if (part.cutoff && (!p.cutoff || *part.cutoff > *p.cutoff))
                p.cutoff = part.cutoff;
        }
        filters += (filters.empty() ? "" : ",") + filterToJson(f);
    }
    if (filters.empty()) {
        p.action = Action::Prune;
        p.fixedAt = now;
        p.wholeFilter = true;
        return p;
    }
    // Several rules: the record keeps every filter, as a JSON array.
    if (rules.size() > 1)
        p.filterJson = "[" + filters + "]";
    return p;
}

Plan Operator::planRetryExpired(std::chrono::nanoseconds threshold, std::optional<TimeNs> now,
                                const std::string& queue) const {
    return planRetryExpiredWith([this](Action a, Filter f) { return planFilter(a, std::move(f)); },
                                threshold, now ? *now : m_q.now(), queue);
}

Plan Operator::planPrune(bool includeFailed, std::optional<std::chrono::nanoseconds> olderThan,
                         std::optional<TimeNs> now, const std::string& queue) const {
    return planPruneWith([this](Action a, Filter f) { return planFilter(a, std::move(f)); },
                         QueueFormat::of(m_q.info()), includeFailed, olderThan,
                         now ? *now : m_q.now(), queue);
}

Report runRecorded(AuditLog& log, AuditEntry head,
                   const std::function<ActionResult(ActionOptions&)>& body,
                   const std::atomic_bool* cancel,
                   std::function<void(std::size_t, std::size_t)> progress) {
    Report rep;
    rep.action = head.action;
    rep.undo = head.undone;
    rep.recordId = head.id;
    ActionOptions o;
    o.cancel = cancel;
    o.progress = std::move(progress);
    std::string auditError;
    o.beforeCommit = [&](const ActionResult& chunk, std::size_t index) {
        if (chunk.applied.empty() && chunk.skipped.empty())
            return;
        try {
            log.appendChunk(head, index, chunk);
        } catch (const Error& e) {
            // Nothing unrecorded is applied: the chunk rolls back.
            auditError = e.what();
            throw Error(ErrorKind::Io, e.path(),
                        "the audit log could not be written, so this chunk was rolled back: " +
                            e.detail());
        }
    };
    o.rolledBack = [&](std::size_t index) {
        try {
            log.appendRollback(head, index);
        } catch (const Error&) {
            // The chunk line then claims rows that did not commit; undo
            // finds them not holding what was written and skips them.
        }
    };
    try {
        rep.result = body(o);
    } catch (const Error& e) {
        // A refusal before the first chunk (read-only, not undoable): the
        // file is unchanged; say so in the report, nothing to record.
        rep.result.action = head.action;
        rep.result.errorKind = e.kind();
        rep.result.error = e.detail();
        return rep;
    }
    rep.auditError = auditError;
    head.applied = rep.result.applied;
    head.skipped = static_cast<std::int64_t>(rep.result.skipped.size());
    head.notAttempted = static_cast<std::int64_t>(rep.result.notAttempted);
    head.cancelled = rep.result.cancelled;
    head.error = rep.result.error;
    try {
        log.appendEnd(head);
    } catch (const Error& e) {
        if (rep.auditError.empty())
            rep.auditError = std::string("the changes are on record chunk by chunk, but the "
                                         "closing line could not be written: ") +
                             e.what();
    }
    return rep;
}

Report Operator::runChunked(AuditEntry head,
                            const std::function<ActionResult(ActionOptions&)>& body,
                            const std::atomic_bool* cancel, Progress progress) {
    return runRecorded(m_log, std::move(head), body, cancel, std::move(progress));
}

Report Operator::run(const Plan& p, const std::atomic_bool* cancel, Progress progress) {
    AuditEntry head = header(p.action);
    head.filter = p.filterJson;
    head.cutoff = p.cutoff;
    return runChunked(
        std::move(head),
        [&](ActionOptions& o) {
            o.chunkSize = p.chunkSize;
            o.delay = p.delay;
            return m_q.apply(p.action, p.targets, o);
        },
        cancel, std::move(progress));
}

bool Operator::sameFile(const AuditEntry& record) const {
    // Records of the old one-line format carry no identity.
    if (record.device == 0 && record.inode == 0)
        return true;
    const auto id = m_q.identity();
    return record.device == id.device && record.inode == id.inode;
}

Report otherFileReport(const AuditEntry& record) {
    Report rep;
    rep.action = record.action;
    rep.undo = true;
    rep.result.action = record.action;
    rep.result.errorKind = ErrorKind::FileChanged;
    rep.result.error = "record " + record.id +
                       " was made on another file at this path (device and inode differ); "
                       "nothing was changed";
    return rep;
}

Report Operator::undo(const AuditEntry& record, const std::atomic_bool* cancel, Progress progress) {
    if (!sameFile(record)) {
        // The path names another file now (replaced, restored): the record's
        // rows are not this file's to restore.
        return otherFileReport(record);
    }
    AuditEntry head = header(record.action);
    head.undone = true;
    head.undoes = record.id;
    return runChunked(
        std::move(head),
        [&](ActionOptions& o) { return m_q.undo(record.action, record.applied, o); }, cancel,
        std::move(progress));
}

Report Operator::enqueue(const std::string& data, std::optional<std::string> key, Message* stored) {
    AuditEntry head = header(Action::Enqueue);
    Report rep;
    rep.action = Action::Enqueue;
    rep.recordId = head.id;
    bool inserted = false;
    // The record is written inside the insert's transaction: no enqueue
    // commits without it.
    auto tx = m_q.transaction();
    const Message m = m_q.put(data, std::move(key), &inserted);
    if (stored)
        *stored = m;
    if (inserted) {
        head.applied.push_back({m, m, {}});
        m_log.append(head); // throws: the insert rolls back with tx
        rep.result.applied.push_back({m, m, {}});
    }
    tx->commit();
    rep.result.action = Action::Enqueue;
    return rep;
}

Report Operator::vacuum(std::pair<std::int64_t, std::int64_t>* sizes) {
    AuditEntry head = header(Action::Vacuum);
    const auto s = m_q.vacuum();
    if (sizes)
        *sizes = s;
    return recordVacuum(m_log, std::move(head), s);
}

Report Operator::upgrade() {
    AuditEntry head = header(Action::Upgrade);
    const std::string from = formatId(m_q.info().format);
    m_q.upgrade();
    return recordUpgrade(m_log, std::move(head), from, formatId(m_q.info().format));
}

Report Operator::pause(const std::string& queueName) {
    return runChunked(header(Action::Pause),
                      [&](ActionOptions& o) { return m_q.setPaused(queueName, true, o); }, nullptr,
                      {});
}

Report Operator::resume(const std::string& queueName) {
    return runChunked(header(Action::Resume),
                      [&](ActionOptions& o) { return m_q.setPaused(queueName, false, o); }, nullptr,
                      {});
}

Report Operator::runRecurring(const std::string& taskKey) {
    AuditEntry head = header(Action::RunRecurring);
    head.note = "recurring task " + taskKey;
    return runChunked(std::move(head),
                      [&](ActionOptions& o) { return m_q.runRecurring(taskKey, o); }, nullptr, {});
}

namespace {

Report recordDone(AuditLog& log, AuditEntry head, std::string note, const std::string& done) {
    Report rep;
    rep.action = head.action;
    rep.recordId = head.id;
    head.note = std::move(note);
    try {
        log.append(head);
    } catch (const Error& e) {
        rep.auditError = done + ", but the audit log could not be written: " + e.what();
    }
    return rep;
}

} // namespace

Report recordVacuum(AuditLog& log, AuditEntry head, std::pair<std::int64_t, std::int64_t> sizes) {
    return recordDone(log, std::move(head),
                      "vacuum: " + std::to_string(sizes.first) + " -> " +
                          std::to_string(sizes.second) + " bytes",
                      "vacuumed");
}

Report recordUpgrade(AuditLog& log, AuditEntry head, const std::string& from,
                     const std::string& to) {
    if (to == from) {
        Report rep; // already current: nothing written, nothing to record
        rep.action = Action::Upgrade;
        rep.recordId = head.id;
        return rep;
    }
    return recordDone(log, std::move(head), "upgrade: " + from + " -> " + to, "upgraded");
}

std::vector<AuditEntry> Operator::records() const {
    return m_log.entries(m_path);
}

std::optional<AuditEntry> Operator::lastUndoable() const {
    // The newest undoable record of THIS file: records of a file that was
    // replaced at the same path are not offered.
    auto all = m_log.entries(m_path);
    // Newest first. NOLINTNEXTLINE(modernize-loop-convert)
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
        if (it->undone || !isUndoable(it->action) || it->applied.empty() || !it->undoneBy.empty() ||
            !sameFile(*it))
            continue;
        return std::move(*it);
    }
    return std::nullopt;
}

std::optional<AuditEntry> Operator::record(const std::string& id) const {
    return m_log.find(m_path, id);
}

} // namespace lq::core
