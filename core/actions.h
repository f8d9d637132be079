// SPDX-License-Identifier: MIT
#pragma once

#include "error.h"
#include "message.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace lq::core {

/// Operator actions of docs/ARCHITECTURE.md#how-a-user-action-travels–3.3. Each is a per-row
/// compare-and-swap on (state, claim token).
enum class Action {
    Retry,      ///< LOCKED/FAILED -> READY (litequeue); done_time = NULL
    MarkFailed, ///< LOCKED/READY -> FAILED; done_time = now
    Release,    ///< jobs-lease: locked_until = NULL, run_at = now
    Reschedule, ///< jobs-lease: run_at = now + delay
    Delete,     ///< jobs-lease: the seed's finish()
    Prune,      ///< DONE (+FAILED) -> deleted (litequeue)
    /// LOCKED past a lock-age threshold -> READY: Retry's row semantics, as
    /// the operator chose it (the audit log records "retry-expired").
    RetryExpired,
    // Writes that are not row compare-and-swaps; recorded in the audit log.
    Enqueue, ///< put(): undo deletes the message while it is still unclaimed
    Vacuum,  ///< not undoable
    Upgrade, ///< not undoable
    /// A named queue, as the library pauses it (Solid Queue's
    /// solid_queue_pauses row, River's river_queue.paused_at): its workers
    /// skip the queue. Undo resumes it, restoring the row as it was.
    Pause,
    Resume, ///< the library's resume; undo writes the pause back as it was
    /// A recurring task's job enqueued now, as the library's own "run now"
    /// does (Solid Queue: RecurringTask#enqueue(at: now), what Mission
    /// Control's Run now calls). Undo deletes the job while it is still
    /// unclaimed, as for Enqueue.
    RunRecurring,
};

/// Whether Queue::undo() can revert an action of this kind.
bool isUndoable(Action a) noexcept;

const char* actionName(Action a) noexcept;

/// One message an action should change, with the token the operator saw.
struct Target {
    std::string messageId;
    std::int64_t token = 0;
};

/// A row the action changed, with its values before and after.
struct AppliedRow {
    Message before;
    Message after;         ///< for Prune/Delete: same as before (the row is gone)
    std::string note = {}; ///< how it was applied differently, e.g. restored without its key
};

/// Why a row was not written. A row that cannot be written as it was shown
/// is skipped with its reason; it never aborts the rest of the action.
enum class SkipKind {
    Changed,       ///< its state or claim token moved since it was shown
    Gone,          ///< deleted (or pruned) since it was shown
    Conflict,      ///< a unique key or the maxsize trigger refuses it now
    NotApplicable, ///< the action does not apply to its state
};

/// "changed since shown", "gone", "conflict", "not applicable".
const char* skipKindName(SkipKind k) noexcept;

struct SkippedRow {
    std::string messageId;
    std::string reason; ///< "changed since shown: claim 3 → 4", "not found", ...
    SkipKind kind = SkipKind::Changed;
};

/// The skip of a row that is no longer there: every engine says it alike.
SkippedRow goneSinceShown(const std::string& messageId);

/// The skip of a row whose claim token moved since it was shown: "changed
/// since shown: claim 3 → 4, now locked", the token named in the format's
/// word and shown as the format shows it (`nowShown`); a token kept as text
/// is only said to have changed.
SkippedRow changedSinceShown(const Target& shown, const Message& now, const std::string& tokenWord,
                             const std::string& nowShown);

struct ActionResult {
    Action action = Action::Retry;
    std::vector<AppliedRow> applied;
    std::vector<SkippedRow> skipped;
    bool cancelled = false; ///< stopped between chunks; applied chunks stay
    std::int64_t chunksDone = 0;
    /// Rows never looked at: the action was cancelled or stopped by an error.
    std::size_t notAttempted = 0;
    /// Set when a chunk failed (busy, I/O, the file replaced, the audit log
    /// not writable): that chunk left nothing behind, earlier chunks stay.
    std::optional<ErrorKind> errorKind;
    std::string error;
};

struct ActionOptions {
    std::size_t chunkSize = 500;
    std::chrono::nanoseconds delay{0}; ///< Reschedule: due this long after now
    /// Checked between chunks; never inside one.
    const std::atomic_bool* cancel = nullptr;
    /// Called after each chunk with (rows done, rows total).
    std::function<void(std::size_t, std::size_t)> progress;
    /// Called inside each chunk's transaction, after its rows were written
    /// and before COMMIT, with that chunk's result and index. The audit log
    /// is written here, so a committed chunk is always on record. Throwing
    /// rolls the chunk back and stops the action.
    std::function<void(const ActionResult& chunk, std::size_t index)> beforeCommit;
    /// Called when COMMIT failed after beforeCommit ran for that chunk.
    std::function<void(std::size_t index)> rolledBack;
};

/// One chunk of an action (runInChunks): items [first, first + n) applied
/// in one transaction of its own into `part`, o.beforeCommit(part, index)
/// called before COMMIT and `hookRan` set once it was. Throwing rolls the
/// chunk back and stops the action.
using ChunkBody = std::function<void(std::size_t first, std::size_t n, std::size_t index,
                                     ActionResult& part, bool& hookRan)>;

/// The chunk loop every engine's actions share: chunks of o.chunkSize
/// until `total` items are done, cancel checked between chunks, only
/// committed chunks counted, o.rolledBack told of a chunk whose hook ran
/// but that did not commit, the first error ending the run (in the result,
/// never thrown), o.progress after each chunk.
ActionResult runInChunks(Action a, std::size_t total, const ActionOptions& o,
                         const ChunkBody& body);

/// Why `m` cannot take `a` (empty when it can). Used for the skip reasons and
/// to grey out actions in the GUI.
std::string refusalReason(Action a, const Message& m);

} // namespace lq::core
