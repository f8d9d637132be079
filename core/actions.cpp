// SPDX-License-Identifier: MIT
// The operator layer (SPEC §3.2–3.3): batches of per-row compare-and-swaps,
// one BEGIN IMMEDIATE transaction per chunk.
#include "actions.h"

#include "queue.h"
#include "queue_p.h"
#include "sqlite.h"

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
    case Action::Enqueue:
        return "enqueue";
    case Action::Vacuum:
        return "vacuum";
    case Action::Upgrade:
        return "upgrade";
    }
    return "action";
}

namespace {

bool isJobsState(State s) {
    return s == State::Scheduled || s == State::Leased || s == State::Expired;
}

bool isJobsAction(Action a) {
    return a == Action::Release || a == Action::Reschedule || a == Action::Delete;
}

} // namespace

bool isUndoable(Action a) noexcept {
    return a != Action::Vacuum && a != Action::Upgrade;
}

std::string refusalReason(Action a, const Message& m) {
    if (a == Action::Enqueue || a == Action::Vacuum || a == Action::Upgrade)
        return std::string(actionName(a)) + " is not a per-message action";
    const bool jobsRow = isJobsState(m.state) || (m.runAt.has_value() && !m.inTime.has_value());
    if (isJobsAction(a) != jobsRow)
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
        break;
    }
    return "unknown action";
}

void Queue::applyChunk(Connection& c, Action a, const Target* begin, const Target* end,
                       const ActionOptions& o, TimeNs t, ActionResult& r) {
    const std::string tq = quoteIdent(info().table);
    const std::string& tok = sql().tokenCol;
    for (const Target* it = begin; it != end; ++it) {
        auto current = getOn(c, it->messageId);
        if (!current) {
            r.skipped.push_back({it->messageId, "not found: deleted or pruned since shown"});
            continue;
        }
        const Message& m = *current;
        if (m.token != it->token) {
            const char* what = isJobs() ? "attempts" : (info().hasClaimId ? "claim" : "lock_time");
            std::string reason = std::string("changed since shown: ") + what + " " +
                                 std::to_string(it->token) + " → " + std::to_string(m.token);
            reason += std::string(", now ") + stateName(m.state);
            r.skipped.push_back({it->messageId, reason});
            continue;
        }
        if (auto why = refusalReason(a, m); !why.empty()) {
            r.skipped.push_back({it->messageId, why});
            continue;
        }
        Message after = m;
        std::int64_t changed = 0;
        if (isJobs()) {
            if (a == Action::Delete) {
                auto st = c.cached("DELETE FROM " + tq + " WHERE rowid = ?1 AND attempts = ?2");
                st->bind(1, m.rowid).bind(2, m.token).exec();
            } else {
                const TimeNs runAt = a == Action::Reschedule ? t + secondsToNs(o.delaySeconds) : t;
                auto st = c.cached("UPDATE " + tq +
                                   " SET locked_until = NULL, run_at = ?3 WHERE rowid = ?1 AND "
                                   "attempts = ?2");
                st->bind(1, m.rowid).bind(2, m.token);
                bindTime(*st, 3, runAt);
                st->exec();
                after.lockedUntil.reset();
                after.runAt = runAt;
                classify(after, t);
            }
            changed = c.changes();
        } else if (a == Action::Prune) {
            auto st = c.cached("DELETE FROM " + tq + " WHERE rowid = ?1 AND status = ?2 AND " +
                               tok + " = ?3");
            st->bind(1, m.rowid).bind(2, m.rawStatus).bind(3, m.token).exec();
            changed = c.changes();
        } else {
            const bool fail = a == Action::MarkFailed;
            auto st = c.cached("UPDATE " + tq +
                               " SET status = ?4, done_time = " + (fail ? "?5" : "NULL") +
                               " WHERE rowid = ?1 AND status = ?2 AND " + tok + " = ?3");
            st->bind(1, m.rowid).bind(2, m.rawStatus).bind(3, m.token).bind(4, fail ? 3 : 0);
            if (fail)
                bindTime(*st, 5, t);
            st->exec();
            changed = c.changes();
            after.rawStatus = fail ? 3 : 0;
            after.state = fail ? State::Failed : State::Ready;
            after.doneTime = fail ? std::optional<TimeNs>(t) : std::nullopt;
        }
        if (changed == 1)
            r.applied.push_back({m, after});
        else
            r.skipped.push_back({it->messageId, "changed while the action ran"});
    }
}

ActionResult Queue::apply(Action a, const std::vector<Target>& targets, const ActionOptions& o) {
    requireWritable(actionName(a));
    if (a == Action::Enqueue || a == Action::Vacuum || a == Action::Upgrade)
        throw Error(ErrorKind::InvalidArgument, m_path,
                    std::string(actionName(a)) + " is not a per-message action");
    ActionResult r;
    r.action = a;
    const std::size_t chunk = o.chunkSize ? o.chunkSize : 500;
    std::size_t done = 0;
    while (done < targets.size()) {
        if (o.cancel && o.cancel->load()) {
            r.cancelled = true;
            break;
        }
        const std::size_t n = std::min(chunk, targets.size() - done);
        const TimeNs t = now();
        {
            std::lock_guard lock(m_writeMutex);
            Connection& c = writer();
            ActionResult part;
            if (inOwnTransaction()) {
                applyChunk(c, a, targets.data() + done, targets.data() + done + n, o, t, part);
            } else {
                Transaction tx(c, Transaction::Kind::Immediate);
                applyChunk(c, a, targets.data() + done, targets.data() + done + n, o, t, part);
                tx.commit();
            }
            // Only a committed chunk counts.
            r.applied.insert(r.applied.end(), std::make_move_iterator(part.applied.begin()),
                             std::make_move_iterator(part.applied.end()));
            r.skipped.insert(r.skipped.end(), std::make_move_iterator(part.skipped.begin()),
                             std::make_move_iterator(part.skipped.end()));
        }
        done += n;
        ++r.chunksDone;
        if (o.progress)
            o.progress(done, targets.size());
    }
    return r;
}

std::vector<Target> Queue::targetsFor(const Filter& f) {
    const Where w = buildWhere(f);
    const std::string idCol = isJobs() ? "id" : "message_id";
    auto st = reader().cached("SELECT " + idCol + ", " + sql().tokenCol + " FROM " +
                              quoteIdent(info().table) + w.sql + " ORDER BY rowid");
    bindAll(*st, w);
    std::vector<Target> out;
    while (st->step())
        out.push_back(Target{st->text(0), st->int64(1)});
    return out;
}

void Queue::undoChunk(Connection& c, Action a, const AppliedRow* begin, const AppliedRow* end,
                      ActionResult& r) {
    const std::string tq = quoteIdent(info().table);
    const TimeNs t = now();
    for (const AppliedRow* it = begin; it != end; ++it) {
        const Message& before = it->before;
        const Message& wrote = it->after;
        auto current = getOn(c, before.messageId);
        if (a == Action::Enqueue) {
            // Undoing an enqueue deletes the message while nobody claimed it.
            if (!current || current->token != wrote.token ||
                (current->state != State::Ready && current->state != State::Scheduled)) {
                r.skipped.push_back({before.messageId,
                                     current
                                         ? std::string("claimed or changed since enqueued: now ") +
                                               stateName(current->state)
                                         : std::string("deleted since enqueued")});
                continue;
            }
            auto st =
                c.cached("DELETE FROM " + tq + " WHERE rowid = ?1 AND " + sql().tokenCol + " = ?2");
            st->bind(1, current->rowid).bind(2, current->token).exec();
            if (c.changes() == 1)
                r.applied.push_back({*current, *current});
            else
                r.skipped.push_back({before.messageId, "changed while undoing"});
            continue;
        }
        if (a == Action::Prune || a == Action::Delete) {
            if (current) {
                r.skipped.push_back({before.messageId, "a message with this id exists again"});
                continue;
            }
            if (isJobs()) {
                auto st = c.cached("INSERT INTO " + tq +
                                   " (id, payload, run_at, locked_until, attempts) VALUES (?1, "
                                   "?2, ?3, ?4, ?5)");
                st->bind(1, std::string_view(before.messageId))
                    .bind(2, std::string_view(before.data));
                bindTime(*st, 3, before.runAt.value_or(t));
                if (before.lockedUntil)
                    bindTime(*st, 4, *before.lockedUntil);
                st->bind(5, before.attempts).exec();
            } else {
                const bool claims = info().hasClaimId;
                auto st = c.cached(
                    "INSERT INTO " + tq +
                    (claims ? " (data, message_id, status, in_time, lock_time, done_time, "
                              "idempotency_key, claim_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
                            : " (data, message_id, status, in_time, lock_time, done_time) "
                              "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
                if (before.dataIsBlob)
                    st->bindBlob(1, before.data);
                else
                    st->bind(1, std::string_view(before.data));
                st->bind(2, std::string_view(before.messageId)).bind(3, before.rawStatus);
                const auto bindOpt = [&](int i, const std::optional<TimeNs>& v) {
                    if (v)
                        bindTime(*st, i, *v);
                    else
                        st->bindNull(i);
                };
                bindOpt(4, before.inTime);
                bindOpt(5, before.lockTime);
                bindOpt(6, before.doneTime);
                if (claims)
                    st->bind(7, before.idempotencyKey).bind(8, before.claimId);
                st->exec();
            }
            Message restored = before;
            r.applied.push_back({Message{}, restored});
            continue;
        }
        if (!current) {
            r.skipped.push_back({before.messageId, "deleted since the action"});
            continue;
        }
        const Message& m = *current;
        const bool same = isJobs() ? (m.token == wrote.token && m.runAt == wrote.runAt &&
                                      m.lockedUntil == wrote.lockedUntil)
                                   : (m.rawStatus == wrote.rawStatus && m.token == wrote.token &&
                                      m.doneTime == wrote.doneTime);
        if (!same) {
            r.skipped.push_back({before.messageId, std::string("moved on since the action: now ") +
                                                       stateName(m.state) + ", token " +
                                                       std::to_string(m.token)});
            continue;
        }
        if (isJobs()) {
            auto st = c.cached("UPDATE " + tq +
                               " SET run_at = ?3, locked_until = ?4 WHERE rowid = ?1 AND "
                               "attempts = ?2");
            st->bind(1, m.rowid).bind(2, m.token);
            bindTime(*st, 3, before.runAt.value_or(t));
            if (before.lockedUntil)
                bindTime(*st, 4, *before.lockedUntil);
            else
                st->bindNull(4);
            st->exec();
        } else {
            auto st = c.cached("UPDATE " + tq +
                               " SET status = ?4, done_time = ?5 WHERE rowid = "
                               "?1 AND status = ?2 AND " +
                               sql().tokenCol + " = ?3");
            st->bind(1, m.rowid).bind(2, m.rawStatus).bind(3, m.token).bind(4, before.rawStatus);
            if (before.doneTime)
                bindTime(*st, 5, *before.doneTime);
            else
                st->bindNull(5);
            st->exec();
        }
        if (c.changes() == 1) {
            Message restored = before;
            restored.token = m.token;
            r.applied.push_back({m, restored});
        } else {
            r.skipped.push_back({before.messageId, "changed while undoing"});
        }
    }
}

ActionResult Queue::undo(Action original, const std::vector<AppliedRow>& applied) {
    requireWritable("undo");
    if (!isUndoable(original))
        throw Error(ErrorKind::InvalidArgument, m_path,
                    std::string(actionName(original)) + " cannot be undone");
    ActionResult r;
    r.action = original;
    const std::size_t chunk = 500;
    for (std::size_t done = 0; done < applied.size(); done += chunk) {
        const std::size_t n = std::min(chunk, applied.size() - done);
        std::lock_guard lock(m_writeMutex);
        Connection& c = writer();
        ActionResult part;
        if (inOwnTransaction()) {
            undoChunk(c, original, applied.data() + done, applied.data() + done + n, part);
        } else {
            Transaction tx(c, Transaction::Kind::Immediate);
            undoChunk(c, original, applied.data() + done, applied.data() + done + n, part);
            tx.commit();
        }
        r.applied.insert(r.applied.end(), part.applied.begin(), part.applied.end());
        r.skipped.insert(r.skipped.end(), part.skipped.begin(), part.skipped.end());
        ++r.chunksDone;
    }
    return r;
}

} // namespace lq::core
