// SPDX-License-Identifier: MIT
#pragma once

// lq::core::Operator — the one operator workflow that both front ends
// present (docs/ARCHITECTURE.md#how-a-user-action-travels): fix the targets (a selection, or
// everything a filter matches, with its cutoff) for the confirmation; apply them in chunks, one
// BEGIN IMMEDIATE transaction each, a compare-and-swap per row; write the
// audit record of every chunk inside its transaction, before COMMIT; report
// applied / skipped (by reason) / not attempted; undo a record to the end.
//
// The GUI and lqctl only ask and show. Nothing here throws once a run has
// started: an error stops the run between chunks and is in the Report.

#include "actions.h"
#include "audit.h"
#include "query.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lq::core {

class Queue;
class QueueFormat;

/// What a confirmation shows and a run then does: the targets are fixed,
/// with the tokens they had, and so are the filter and the cutoff.
struct Plan {
    Action action = Action::Retry;
    std::vector<Target> targets;
    bool wholeFilter = false;          ///< every message the filter matched
    std::string filterJson;            ///< the filter as fixed, for the record
    std::optional<TimeNs> cutoff;      ///< prune: finished before; retry-expired: locked before
    TimeNs fixedAt = 0;                ///< when the targets were taken
    std::chrono::nanoseconds delay{0}; ///< Reschedule: due this long after the run
    std::size_t chunkSize = 500;       ///< retry-expired runs as one chunk (atomic)

    std::size_t count() const noexcept { return targets.size(); }
};

/// What happened, for both front ends.
struct Report {
    Action action = Action::Retry;
    bool undo = false;
    std::string recordId; ///< the audit record written
    ActionResult result;
    /// The audit log could not be written: the chunk it concerned was rolled
    /// back (nothing unrecorded is applied), or, for the end line, a warning.
    std::string auditError;

    std::size_t applied() const noexcept { return result.applied.size(); }
    std::size_t skipped() const noexcept { return result.skipped.size(); }
    std::size_t notAttempted() const noexcept { return result.notAttempted; }
    bool failed() const noexcept { return result.errorKind.has_value(); }
    /// Skipped rows counted by kind, in a fixed order, zero kinds left out.
    std::vector<std::pair<SkipKind, std::size_t>> skippedByKind() const;
    /// Applied rows that carry a note (restored without a key, ...).
    std::size_t notes() const;
    /// "applied 3,245; skipped 12 (changed since shown 10, gone 2); not
    /// attempted 0" — counts formatted as the confirmations format them.
    std::string summary() const;
};

/// 3245 -> "3,245": one number format for confirmations and reports.
std::string groupedNumber(std::int64_t n);

/// The filter as JSON text, for the audit record.
std::string filterToJson(const Filter& f);

/// A new audit record's header: a fresh id, now, the OS account and host.
AuditEntry recordHeader(Action a, const std::string& queuePath, std::uint64_t device,
                        std::uint64_t inode, const std::string& tool);

/// The recorded run every operator action is: `body` applies the rows with
/// the options it is given, whose beforeCommit writes each chunk's audit
/// line inside its transaction (a chunk whose line cannot be written rolls
/// back); the end line follows. Refusals before the first chunk are in the
/// Report. Operator uses it on a local Queue; the remote operator
/// (core/remote/client.h) on a queue served over ssh.
Report runRecorded(AuditLog& log, AuditEntry head,
                   const std::function<ActionResult(ActionOptions&)>& body,
                   const std::atomic_bool* cancel,
                   std::function<void(std::size_t, std::size_t)> progress);

/// The records of the whole-file actions once done, written after the fact
/// (VACUUM cannot run inside a transaction); a record that cannot be written
/// is the report's auditError. recordUpgrade records nothing when `from` ==
/// `to` (already current). Operator and the remote operator share them.
Report recordVacuum(AuditLog& log, AuditEntry head, std::pair<std::int64_t, std::int64_t> sizes);
Report recordUpgrade(AuditLog& log, AuditEntry head, const std::string& from,
                     const std::string& to);

/// Builds a whole-filter plan of one action: everything a filter matches
/// now, with the tokens it has (Operator on a file, the PostgreSQL backend
/// on a database).
using FilterPlanner = std::function<Plan(Action, Filter)>;

/// Retry-expired, one rule for every engine: the LOCKED messages whose lock
/// is older than `threshold` at `now` (`queue`: that named queue only), in
/// one chunk, atomic as litequeue's retry_expired is.
Plan planRetryExpiredWith(const FilterPlanner& plan, std::chrono::nanoseconds threshold, TimeNs now,
                          const std::string& queue);

/// Prune, one rule for every engine: what `format`'s library prunes
/// (QueueFormat::pruneRules()), or with `olderThan` the same states finished
/// before now - olderThan; failures only if `includeFailed`.
Plan planPruneWith(const FilterPlanner& plan, const QueueFormat& format, bool includeFailed,
                   std::optional<std::chrono::nanoseconds> olderThan, TimeNs now,
                   const std::string& queue);

/// The refusal of an undo whose record was made on another file at this
/// path (device and inode differ): nothing is changed.
Report otherFileReport(const AuditEntry& record);

class Operator {
public:
    using Progress = std::function<void(std::size_t done, std::size_t total)>;

    /// `tool` names the front end in the audit record ("lqadmin", "lqctl").
    Operator(Queue& q, std::string tool, AuditLog log = AuditLog());

    // ---- plans (read only) ---------------------------------------------
    /// The selection, with the tokens the operator saw.
    Plan planTargets(Action a, std::vector<Target> targets) const;
    /// Everything `f` matches now; `f.now` is pinned if unset.
    Plan planFilter(Action a, Filter f) const;
    /// LOCKED messages whose lock is older than the threshold, at `now`.
    /// `queue`: only that named queue of the file ("" every queue).
    Plan planRetryExpired(std::chrono::nanoseconds threshold, std::optional<TimeNs> now = {},
                          const std::string& queue = {}) const;
    /// What the format's library prunes (QueueFormat::pruneRules()), or with
    /// `olderThan` the same states finished before now - olderThan; FAILED
    /// only if `includeFailed`; `queue` as for planRetryExpired().
    Plan planPrune(bool includeFailed, std::optional<std::chrono::nanoseconds> olderThan,
                   std::optional<TimeNs> now = {}, const std::string& queue = {}) const;

    // ---- runs (write; never throw once started) -------------------------
    Report run(const Plan& p, const std::atomic_bool* cancel = nullptr, Progress progress = {});
    /// Reverts a record's rows that still hold what it wrote, to the end.
    Report undo(const AuditEntry& record, const std::atomic_bool* cancel = nullptr,
                Progress progress = {});
    /// put(), recorded (undo deletes the message while it is unclaimed).
    /// Throws the queue's errors (full, conflict, read-only) before writing.
    Report enqueue(const std::string& data, std::optional<std::string> key,
                   Message* stored = nullptr);
    /// VACUUM, recorded; `sizes` gets {bytes before, bytes after}.
    Report vacuum(std::pair<std::int64_t, std::int64_t>* sizes = nullptr);
    /// The legacy / 0.13 -> 0.14 migration, recorded.
    Report upgrade();
    /// Pauses or resumes a named queue as its library does
    /// (Queue::setPaused), recorded as "pause" / "resume" before it
    /// commits; undo() reverts it. No confirmation: it is one row.
    Report pause(const std::string& queueName);
    Report resume(const std::string& queueName);
    /// Enqueues recurring task `taskKey`'s job now as the library's own
    /// "run now" does (Queue::runRecurring), recorded as "run-recurring"
    /// before it commits; undo() deletes the job while it is unclaimed.
    /// The front ends confirm first.
    Report runRecurring(const std::string& taskKey);

    // ---- the record ------------------------------------------------------
    std::vector<AuditEntry> records() const;
    std::optional<AuditEntry> lastUndoable() const;
    std::optional<AuditEntry> record(const std::string& id) const;

    const AuditLog& auditLog() const noexcept { return m_log; }
    /// The queue's path as the record names it (absolute).
    const std::string& path() const noexcept { return m_path; }

    /// The record was made on the file this Operator's queue has open
    /// (same device and inode; old records without identity count as same).
    bool sameFile(const AuditEntry& record) const;

private:
    AuditEntry header(Action a) const;
    Report runChunked(AuditEntry header, const std::function<ActionResult(ActionOptions&)>& body,
                      const std::atomic_bool* cancel, Progress progress);

    Queue& m_q;
    std::string m_tool;
    AuditLog m_log;
    std::string m_path;
};

} // namespace lq::core
