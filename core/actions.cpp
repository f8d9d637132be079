// SPDX-License-Identifier: MIT
// The operator layer (docs/ARCHITECTURE.md#how-a-user-action-travels–3.3): batches of per-row
// compare-and-swaps, one BEGIN IMMEDIATE transaction per chunk.
#include "actions.h"

#include "formats/queueformat.h"
#include "pause.h"
#include "queue.h"
#include "queue_p.h"
#include "sqlite.h"
#include "timefmt.h"

#include <sqlite3.h>

namespace lq::core {

const char* actionName(Action a) noexcept {
    switch (a) {
    case Action::Retry:
        return "retry";
    case Action::MarkFailed:
        return "mark-failed";
    case Action::Release:
        return "release";
    case Action::Reschedule:
        return "reschedule";
    case Action::Delete:
        return "delete";
    case Action::Prune:
        return "prune";
    case Action::RetryExpired:
        return "retry-expired";
    case Action::Enqueue:
        return "enqueue";
    case Action::Vacuum:
        return "vacuum";
    case Action::Upgrade:
        return "upgrade";
    case Action::Pause:
        return "pause";
    case Action::Resume:
        return "resume";
    case Action::RunRecurring:
        return "run-recurring";
    }
    return "action";
}

SkippedRow goneSinceShown(const std::string& messageId) {
    return {messageId, "not found: deleted or pruned since shown", SkipKind::Gone};
}

SkippedRow changedSinceShown(const Target& shown, const Message& now, const std::string& tokenWord,
                             const std::string& nowShown) {
    std::string reason = "changed since shown: " + tokenWord + " ";
    reason += now.tokenText ? std::string("changed") : std::to_string(shown.token);
    reason += " → " + nowShown;
    reason += std::string(", now ") + stateName(now.state);
    return {shown.messageId, reason, SkipKind::Changed};
}

const char* skipKindName(SkipKind k) noexcept {
    switch (k) {
    case SkipKind::Changed:
        return "changed since shown";
    case SkipKind::Gone:
        return "gone";
    case SkipKind::Conflict:
        return "conflict";
    case SkipKind::NotApplicable:
        return "not applicable";
    }
    return "skipped";
}

namespace {

bool isLeaseState(State s) {
    return s == State::Scheduled || s == State::Leased || s == State::Expired;
}

bool isLeaseAction(Action a) {
    return a == Action::Release || a == Action::Reschedule || a == Action::Delete;
}

} // namespace

bool isUndoable(Action a) noexcept {
    return a != Action::Vacuum && a != Action::Upgrade;
}

std::string refusalReason(Action a, const Message& m) {
    if (a == Action::Enqueue || a == Action::Vacuum || a == Action::Upgrade || a == Action::Pause ||
        a == Action::Resume || a == Action::RunRecurring)
        return std::string(actionName(a)) + " is not a per-message action";
    const bool leaseRow =
        isLeaseState(m.state) || (m.scheduledAt.has_value() && !m.inTime.has_value());
    if (isLeaseAction(a) != leaseRow)
        return std::string(actionName(a)) + " does not apply to this queue format";
    if (m.state == State::Unknown)
        return "unknown status " + std::to_string(m.rawStatus) + ": no action applies";
    const auto is = [&](State s) { return m.state == s; };
    switch (a) {
    case Action::Retry:
        if (is(State::Locked) || is(State::Failed))
            return {};
        return std::string("is ") + stateName(m.state) +
               ": retry applies to LOCKED or FAILED messages";
    case Action::RetryExpired:
        if (is(State::Locked))
            return {};
        return std::string("is ") + stateName(m.state) +
               ": retry expired applies to LOCKED messages";
    case Action::MarkFailed:
        if (is(State::Locked) || is(State::Ready))
            return {};
        return std::string("is ") + stateName(m.state) +
               ": mark failed applies to LOCKED or READY messages";
    case Action::Prune:
        if (is(State::Done) || is(State::Failed))
            return {};
        return std::string("is ") + stateName(m.state) +
               ": prune deletes only DONE or FAILED messages";
    case Action::Release:
    case Action::Reschedule:
    case Action::Delete:
        return {};
    case Action::Enqueue:
    case Action::Vacuum:
    case Action::Upgrade:
    case Action::Pause:
    case Action::Resume:
    case Action::RunRecurring:
        break;
    }
    return "unknown action";
}

namespace {

/// A per-row write that SQLite refuses for a reason of the row itself (a
/// unique key, the maxsize trigger): the row is skipped, the chunk goes on.
/// SQLite aborts only the failing statement, so the transaction stays valid.
bool isRowConflict(const Error& e) {
    return e.kind() == ErrorKind::QueueFull || (e.sqliteCode() & 0xff) == SQLITE_CONSTRAINT;
}

/// The pause as a file's driver stores it, on the write connection.
class DriverPauses final : public PauseStore {
public:
    DriverPauses(const FormatDriver& drv, Connection& c)
        : m_drv(drv)
        , m_c(c) {}
    Row read(const std::string& queue) const override { return m_drv.readPause(m_c, queue); }
    std::int64_t write(const std::string& queue, bool pause, TimeNs now) const override {
        return m_drv.writePause(m_c, queue, pause, now);
    }
    std::int64_t restore(const std::string& queue, const Row& wrote,
                         const Row& before) const override {
        return m_drv.restorePause(m_c, queue, wrote, before);
    }

private:
    const FormatDriver& m_drv;
    Connection& m_c;
};

} // namespace

void Queue::Impl::applyChunk(Connection& c, Action a, const Target* begin, const Target* end,
                             const ActionOptions& o, TimeNs t, ActionResult& r) {
    const FormatDriver& drv = driver();
    for (const Target* it = begin; it != end; ++it) {
        auto current = getOn(c, it->messageId);
        if (!current) {
            r.skipped.push_back(goneSinceShown(it->messageId));
            continue;
        }
        const Message& m = *current;
        if (m.token != it->token) {
            r.skipped.push_back(changedSinceShown(*it, m, drv.tokenWord(), drv.tokenShown(m)));
            continue;
        }
        if (auto why = drv.refusal(a, m, t); !why.empty()) {
            r.skipped.push_back({it->messageId, why, SkipKind::NotApplicable});
            continue;
        }
        Message after = m;
        std::int64_t changed = 0;
        try {
            changed = drv.applyRow(c, a, m, t, o);
        } catch (const Error& e) {
            if (!isRowConflict(e))
                throw;
            r.skipped.push_back(
                {it->messageId, "refused by the file: " + e.detail(), SkipKind::Conflict});
            continue;
        }
        if (changed == 1 && a != Action::Prune && a != Action::Delete) {
            // What the file holds now, read back: times stored as REAL
            // seconds do not round-trip to the exact ns written, and undo
            // compares with what is stored.
            if (auto back = getOn(c, it->messageId))
                after = *back;
            else if (auto moved = driver().movedTo(c, a, m)) // a new row (Laravel's retry)
                if (auto back2 = getOn(c, *moved))
                    after = *back2;
        }
        if (changed == 1)
            r.applied.push_back({m, after, {}});
        else
            r.skipped.push_back({it->messageId, "changed while the action ran", SkipKind::Changed});
    }
}

ActionResult runInChunks(Action a, std::size_t total, const ActionOptions& o,
                         const ChunkBody& body) {
    ActionResult r;
    r.action = a;
    const std::size_t chunk = o.chunkSize ? o.chunkSize : 500;
    std::size_t done = 0;
    std::size_t index = 0;
    while (done < total) {
        if (o.cancel && o.cancel->load()) {
            r.cancelled = true;
            break;
        }
        const std::size_t n = std::min(chunk, total - done);
        ActionResult part;
        part.action = a;
        bool hookRan = false;
        try {
            body(done, n, index, part, hookRan);
        } catch (const Error& e) {
            if (hookRan && o.rolledBack)
                o.rolledBack(index);
            r.errorKind = e.kind();
            r.error = e.detail();
            break;
        } catch (const std::exception& e) {
            if (hookRan && o.rolledBack)
                o.rolledBack(index);
            r.errorKind = ErrorKind::Io;
            r.error = e.what();
            break;
        }
        // Only a committed chunk counts.
        r.applied.insert(r.applied.end(), std::make_move_iterator(part.applied.begin()),
                         std::make_move_iterator(part.applied.end()));
        r.skipped.insert(r.skipped.end(), std::make_move_iterator(part.skipped.begin()),
                         std::make_move_iterator(part.skipped.end()));
        done += n;
        ++index;
        ++r.chunksDone;
        if (o.progress)
            o.progress(done, total);
    }
    r.notAttempted = total - done;
    return r;
}

template <class Item, class ChunkFn>
ActionResult Queue::Impl::runChunks(Action a, const std::vector<Item>& items,
                                    const ActionOptions& o, ChunkFn&& chunkFn) {
    return runInChunks(a, items.size(), o,
                       [&](std::size_t first, std::size_t n, std::size_t index, ActionResult& part,
                           bool& hookRan) {
                           std::lock_guard lock(writeMutex);
                           Connection& c = writer();
                           const bool own = inOwnTransaction();
                           std::optional<Transaction> tx;
                           if (!own)
                               tx.emplace(c, Transaction::Kind::Immediate);
                           // Inside the write lock: the path must still name
                           // the file that was opened.
                           requireSameFile();
                           chunkFn(c, items.data() + first, items.data() + first + n, part);
                           if (o.beforeCommit) {
                               o.beforeCommit(part, index);
                               hookRan = true;
                           }
                           if (tx)
                               tx->commit();
                       });
}

ActionResult Queue::apply(Action a, const std::vector<Target>& targets, const ActionOptions& o) {
    d->requireWritable(actionName(a));
    if (a == Action::Enqueue || a == Action::Vacuum || a == Action::Upgrade || a == Action::Pause ||
        a == Action::Resume || a == Action::RunRecurring)
        throw Error(ErrorKind::InvalidArgument, d->path,
                    std::string(actionName(a)) + " is not a per-message action");
    return d->runChunks(a, targets, o,
                        [&](Connection& c, const Target* b, const Target* e, ActionResult& part) {
                            d->applyChunk(c, a, b, e, o, now(), part);
                        });
}

ActionResult Queue::setPaused(const std::string& queueName, bool pause, const ActionOptions& o) {
    const Action a = pause ? Action::Pause : Action::Resume;
    d->requireWritable(actionName(a));
    if (auto why = QueueFormat::of(info()).whyNoPause(info()); !why.empty())
        throw Error(ErrorKind::Unsupported, d->path, why);
    const std::vector<std::string> queues{queueName};
    return d->runChunks(
        a, queues, o,
        [&](Connection& c, const std::string* b, const std::string* e, ActionResult& part) {
            for (const std::string* it = b; it != e; ++it)
                pauseQueue(DriverPauses(d->driver(), c), a, *it, now(), part);
        });
}

ActionResult Queue::runRecurring(const std::string& taskKey, const ActionOptions& o) {
    const Action a = Action::RunRecurring;
    d->requireWritable(actionName(a));
    if (auto why = QueueFormat::of(info()).whyNot(a, info()); !why.empty())
        throw Error(ErrorKind::Unsupported, d->path, why);
    const std::vector<std::string> keys{taskKey};
    return d->runChunks(
        a, keys, o,
        [&](Connection& c, const std::string* b, const std::string* e, ActionResult& part) {
            for (const std::string* it = b; it != e; ++it) {
                const FormatDriver::RecurringRun run = d->driver().runRecurring(c, *it, now());
                if (!run.why.empty()) {
                    part.skipped.push_back({*it, run.why, run.kind});
                    continue;
                }
                const std::optional<Message> job = d->getOn(c, run.jobId);
                if (!job) // rolls the chunk back: nothing unread is committed
                    throw Error(ErrorKind::Io, d->path,
                                "job " + run.jobId + " was written but cannot be read back");
                // As an enqueue: the job as written, before and after; the
                // note names the task for the record.
                part.applied.push_back({*job, *job, "run of recurring task " + *it});
            }
        });
}

std::vector<Target> Queue::targetsFor(const Filter& f) {
    const FormatDriver& drv = d->driver();
    const Impl::Where w = d->buildWhere(f);
    auto st = d->reader().cached("SELECT " + drv.targetColumns() + " FROM " + drv.source() + w.sql +
                                 " ORDER BY rowid");
    bindValues(*st, w.binds);
    std::vector<Target> out;
    while (st->step())
        out.push_back(drv.readTarget(*st));
    return out;
}

void Queue::Impl::undoChunk(Connection& c, Action a, const AppliedRow* begin, const AppliedRow* end,
                            ActionResult& r) {
    const TimeNs t = now();
    for (const AppliedRow* it = begin; it != end; ++it) {
        try {
            undoRow(c, a, *it, t, r);
        } catch (const Error& e) {
            if (!isRowConflict(e))
                throw;
            r.skipped.push_back(
                {it->before.messageId, "refused by the file: " + e.detail(), SkipKind::Conflict});
        }
    }
}

void Queue::Impl::undoRow(Connection& c, Action a, const AppliedRow& row, TimeNs t,
                          ActionResult& r) {
    const FormatDriver& drv = driver();
    const Message& before = row.before;
    const Message& wrote = row.after;
    if (a == Action::Pause || a == Action::Resume) {
        unpauseQueue(DriverPauses(drv, c), row, r);
        return;
    }
    auto current = getOn(c, before.messageId);
    if (a == Action::Enqueue || a == Action::RunRecurring) {
        // Undoing an enqueue deletes the message while nobody claimed it.
        if (!current) {
            r.skipped.push_back({before.messageId, "deleted since enqueued", SkipKind::Gone});
            return;
        }
        if (current->token != wrote.token ||
            (current->state != State::Ready && current->state != State::Scheduled)) {
            r.skipped.push_back(
                {before.messageId,
                 std::string("claimed or changed since enqueued: now ") + stateName(current->state),
                 SkipKind::Changed});
            return;
        }
        if (drv.deleteRow(c, *current) == 1)
            r.applied.push_back({*current, *current, {}});
        else
            r.skipped.push_back({before.messageId, "changed while undoing", SkipKind::Changed});
        return;
    }
    if (a == Action::Prune || a == Action::Delete) {
        if (current) {
            r.skipped.push_back(
                {before.messageId, "a message with this id exists again", SkipKind::Conflict});
            return;
        }
        Message restored = before;
        std::string note = drv.reinsert(c, before, t);
        restored.rowid = c.lastInsertRowid();
        if (auto back = getOn(c, before.messageId))
            restored = *back;
        r.applied.push_back({Message{}, restored, std::move(note)});
        return;
    }
    if (wrote.messageId != before.messageId) // the action moved it to a new row
        current = getOn(c, wrote.messageId);
    if (!current) {
        r.skipped.push_back({before.messageId, "deleted since the action", SkipKind::Gone});
        return;
    }
    const Message& m = *current;
    if (!drv.holdsWritten(m, wrote)) {
        r.skipped.push_back({before.messageId,
                             std::string("moved on since the action: now ") + stateName(m.state) +
                                 ", token " + drv.tokenShown(m),
                             SkipKind::Changed});
        return;
    }
    if (drv.restoreRow(c, m, before, t) == 1) {
        // What the row holds now, read back: the undo wrote only the state
        // columns, and the others (a key dropped by a keyless restore, a
        // payload rewritten since) are what they are, not what 'before' says.
        Message restored = before;
        restored.token = m.token;
        if (auto back = getOn(c, before.messageId))
            restored = *back;
        r.applied.push_back({m, restored, {}});
    } else {
        r.skipped.push_back({before.messageId, "changed while undoing", SkipKind::Changed});
    }
}

ActionResult Queue::undo(Action original, const std::vector<AppliedRow>& applied,
                         const ActionOptions& o) {
    d->requireWritable("undo");
    if (!isUndoable(original))
        throw Error(ErrorKind::InvalidArgument, d->path,
                    std::string(actionName(original)) + " cannot be undone");
    return d->runChunks(original, applied, o,
                        [&](Connection& c, const AppliedRow* b, const AppliedRow* e,
                            ActionResult& part) { d->undoChunk(c, original, b, e, part); });
}

} // namespace lq::core
