// SPDX-License-Identifier: MIT
#pragma once

// The audit log of docs/ARCHITECTURE.md#how-a-user-action-travels: every write the tool makes, kept
// OUTSIDE the queue file, one JSON-lines file per queue path, with the prior values of every row so
// "Undo last action" can revert it.

#include "actions.h"
#include "clock.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lq::core {

class Json;

/// One record of the audit log: one operator action (or one undo), as the
/// operator chose it. On disk a record is one or more JSON lines sharing its
/// `id`: a line per committed chunk (written inside the chunk's
/// transaction, before COMMIT, so a committed chunk is always on record) and
/// an end line with the totals. entries() folds them back into one record.
struct AuditEntry {
    std::string id; ///< unique; "v1-N" for records of the old one-line format
    TimeNs when = 0;
    std::string queuePath; ///< absolute, as opened
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
    Action action = Action::Retry;
    std::string user; ///< the OS account (never empty when written by us)
    std::string host;
    std::string tool; ///< "lqadmin", "lqctl"
    std::vector<AppliedRow> applied;
    std::int64_t skipped = 0;            ///< count
    std::vector<SkippedRow> skippedRows; ///< with reasons, as far as recorded
    std::int64_t notAttempted = 0;       ///< cancelled or stopped by an error
    bool undone = false;                 ///< this record IS an undo of `undoes`
    std::string undoes;                  ///< the record an undo reverted
    std::string undoneBy;                ///< entries(): a complete undo of this record
    std::string filter;                  ///< bulk actions: the filter, as JSON text
    std::optional<TimeNs> cutoff;        ///< prune / retry-expired cutoff
    bool cancelled = false;
    std::string error;    ///< what stopped it, if anything
    bool complete = true; ///< the end line is there
    std::string note;     ///< "vacuum: 1.2 MiB -> 0.8 MiB", ...

    /// "retry", "prune", "retry-expired", ..., or "undo" for an undo record.
    std::string actionLabel() const;
};

class AuditLog {
public:
    /// `dir` holds the logs; empty: defaultDir().
    explicit AuditLog(std::string dir = {});

    /// $LQ_AUDIT_DIR, else $XDG_DATA_HOME/lqadmin/audit, else
    /// ~/.local/share/lqadmin/audit.
    static std::string defaultDir();
    /// The log file of one queue (named from its absolute path).
    std::string logPathFor(const std::string& queuePath) const;

    /// Appends one whole record (creates the folder and file as needed).
    void append(const AuditEntry& e);
    /// Appends the line of one committed chunk of record `e` (its header
    /// fields, `rows` and `skipped` of that chunk), flushed to disk.
    void appendChunk(const AuditEntry& header, std::size_t index, const ActionResult& chunk);
    /// Marks chunk `index` of record `id` as rolled back (COMMIT failed).
    void appendRollback(const AuditEntry& header, std::size_t index);
    /// Appends the end line of record `e`: its totals.
    void appendEnd(const AuditEntry& e);
    /// Every record for this queue, oldest first, chunks folded together.
    std::vector<AuditEntry> entries(const std::string& queuePath) const;
    /// The newest undoable record with applied rows that is not an undo and
    /// that no complete undo reverted.
    std::optional<AuditEntry> lastUndoable(const std::string& queuePath) const;
    /// The record with this id (an undo can name an older record).
    std::optional<AuditEntry> find(const std::string& queuePath, const std::string& id) const;

    static Json toJson(const AuditEntry& e);
    static AuditEntry fromJson(const Json& j);

    /// A fresh record id (time-ordered, unique across processes).
    static std::string newId();
    /// The OS account name (getpwuid(geteuid())), else $USER, else "uid N".
    static std::string currentUser();
    static std::string hostName();

private:
    void appendLine(const std::string& queuePath, const Json& line) const;
    std::string m_dir;
};

/// Message <-> JSON with every column (times in ns, data as text or base64
/// for BLOB / invalid UTF-8). Shared by the audit log and lqctl.
Json messageToJson(const Message& m);
Message messageFromJson(const Json& j);

} // namespace lq::core
