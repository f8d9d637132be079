// SPDX-License-Identifier: MIT
#pragma once

#include "clock.h"

#include <cstdint>
#include <optional>
#include <string>

namespace lq::core {

/// The state of a message as the tool shows it. Litequeue rows carry
/// Ready..Failed in their `status` column (any other value is Unknown);
/// jobs-lease rows have no status column and get Scheduled, Ready, Leased or
/// Expired derived from their times at "now" (docs/FORMATS.md#the-state-model).
enum class State : int {
    Ready = 0,
    Locked = 1,
    Done = 2,
    Failed = 3,
    Unknown = 4,
    Scheduled = 5,
    Leased = 6,
    Expired = 7,
};

/// "READY", "LOCKED", ... ; for Unknown, "UNKNOWN".
const char* stateName(State s) noexcept;
/// Parse "ready", "LOCKED", ... (case-insensitive). Empty optional if unknown.
std::optional<State> parseState(std::string_view name);

/// One row of a queue, with every time normalised to integer ns whatever the
/// file stores (0.13 stores seconds).
struct Message {
    std::int64_t rowid = 0;
    std::string messageId;
    std::string data;                    ///< raw bytes as stored (may be invalid UTF-8)
    bool dataIsBlob = false;             ///< the column held a BLOB, not TEXT
    std::optional<std::string> dataNote; ///< why data is shown as bytes (damaged JSONB)
    std::int64_t rawStatus = 0;          ///< the stored status value (litequeue)
    State state = State::Ready;
    std::optional<TimeNs> inTime; ///< NULL only in damaged files
    std::optional<TimeNs> lockTime;
    std::optional<TimeNs> doneTime;
    std::optional<std::string> idempotencyKey;
    std::int64_t claimId = 0;  ///< 0.13/0.14 only
    std::int64_t attempts = 0; ///< claims or runs so far, where the format counts them

    /// The claim token actions compare against (docs/FORMATS.md#the-state-model): claim_id for
    /// 0.13/0.14, the raw lock_time for legacy files (0 when NULL), attempts
    /// for jobs-lease. A format whose token is text (liteque's allocationId)
    /// stores a 63-bit hash of it here and the text in tokenText.
    std::int64_t token = 0;

    // Fields of the formats beyond litequeue (docs/FORMATS.md#rules-for-every-format); unset where
    // the format has no such column.
    std::optional<std::string> queueName;    ///< named queue inside the file
    std::optional<std::string> jobName;      ///< job class or name
    std::optional<std::int64_t> priority;    ///< as stored (lower/higher first per format)
    std::optional<std::int64_t> maxAttempts; ///< attempts allowed in all
    std::optional<std::string> lastError;    ///< error text of a failed job
    std::string extraState;                  ///< format-specific state ("pending_retry"), or ""
    std::string statusText;                  ///< the stored status when it is text
    std::optional<std::string> tokenText;    ///< the claim token as stored, when it is text
    std::optional<TimeNs> scheduledAt;       ///< due time
    /// Where wait starts when it is not inTime: the due time of the claimed
    /// attempt, for formats whose wait is claim - due (docs/FORMATS.md: Solid
    /// Queue, Laravel, Oban, River). A claim before it belongs to an earlier
    /// attempt (the job was rescheduled since) and has no wait.
    std::optional<TimeNs> waitFrom;
    std::optional<TimeNs> leaseExpiry; ///< when the claim lapses
    /// Stored values a format needs to write the row back exactly (undo of a
    /// delete or of a move between tables), as JSON text; not shown.
    std::optional<std::string> formatRow;

    std::optional<TimeNs> waitNs() const;       ///< lock - (waitFrom or in)
    std::optional<TimeNs> processingNs() const; ///< done - lock, DONE rows
    std::optional<TimeNs> totalNs() const;      ///< done - in, DONE rows
    /// now - inTime; where the format stores no enqueue time, now - the due
    /// time once due (nullopt before).
    std::optional<TimeNs> ageNs(TimeNs now) const;
    std::optional<TimeNs> lockAgeNs(TimeNs now) const; ///< LOCKED rows
    bool isStuck(TimeNs now, TimeNs stuckAfterNs) const;
};

} // namespace lq::core
