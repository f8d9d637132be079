// SPDX-License-Identifier: MIT
#pragma once

// The audit log of SPEC §3.2: every write the tool makes, kept OUTSIDE the
// queue file, one JSON-lines file per queue path, with the prior values of
// every row so "Undo last action" can revert it.

#include "actions.h"
#include "clock.h"

#include <optional>
#include <string>
#include <vector>

namespace lq::core {

class Json;

struct AuditEntry {
    TimeNs when = 0;
    std::string queuePath;
    Action action = Action::Retry;
    std::string user; ///< $USER, for the record
    std::string tool; ///< "lqadmin", "lqctl"
    std::vector<AppliedRow> applied;
    std::int64_t skipped = 0;
    bool undone = false; ///< an "undo" entry that reverted an earlier one
    std::string note;    ///< free text: "vacuum: 1.2 MiB -> 0.8 MiB", ...
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

    /// Appends one entry (creates the folder and file as needed).
    void append(const AuditEntry& e);
    /// Every entry for this queue, oldest first.
    std::vector<AuditEntry> entries(const std::string& queuePath) const;
    /// The newest undoable entry (not vacuum/upgrade) that is not an undo
    /// and has not been undone.
    std::optional<AuditEntry> lastUndoable(const std::string& queuePath) const;

    static Json toJson(const AuditEntry& e);
    static AuditEntry fromJson(const Json& j);

private:
    std::string m_dir;
};

/// Message <-> JSON with every column (times in ns, data as text or base64
/// for BLOB / invalid UTF-8). Shared by the audit log and lqctl.
Json messageToJson(const Message& m);
Message messageFromJson(const Json& j);

} // namespace lq::core
