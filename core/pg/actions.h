// SPDX-License-Identifier: MIT
#pragma once

// Operator actions on a queue in PostgreSQL (issue 41), one chunk at a
// time inside the caller's transaction on a writing session
// (PgQueue::apply and PgQueue::undo open it, commit it, and write the
// audit line before COMMIT through runInChunks):
//
// 1. The chunk's job rows are taken with `SELECT ... FOR UPDATE SKIP
//    LOCKED`: a row a worker holds in its own transaction right now is
//    skipped as "in use", never waited for (one statement for the chunk;
//    FOR UPDATE NOWAIT would abort the whole chunk on the first such row).
// 2. Each taken job is read again through the same derived table the
//    browser lists (core/pg/list.h) and compared with the claim token the
//    operator saw; the format's own refusal rule (the SQLite driver's
//    refusal(), which reads only the Message) decides whether it applies.
// 3. The library's own statement writes it (Oban.retry_job, River's
//    JobRetry and JobRescuer, Oban's Lifeline, their deletes; Solid
//    Queue's FailedExecution#retry, ClaimedExecution#release, Dispatch and
//    Job#discard on the job and the execution row that holds it, that row
//    taken with SKIP LOCKED too), the state guard repeated in its WHERE.
//
// Every changed job's rows before the action are kept in
// Message::formatRow as {"<table>": [row_to_json of each row]} (Solid
// Queue: {"job", "exec", "recurring"}, actions_p.h), so undo
// writes back exactly what was stored: the columns the action wrote while
// the job still holds what the action wrote (its claim token), or the
// whole row again after a delete.

#include "../actions.h"
#include "../clock.h"
#include "../format.h"

#include <functional>
#include <string>

namespace lq::core::pg {

class Connection;
struct Found;

/// "" when lqcore writes `library`'s jobs on PostgreSQL, else why not.
std::string whyNoActions(const std::string& library);

/// "" when the session's user may write what the actions of `lib` write
/// (UPDATE, DELETE and, for undo of a delete, INSERT on its job table),
/// else why not, naming the user and the table: a window offers no action
/// the database would refuse. Also whyNoActions().
std::string whyNoWrites(Connection& c, const Found& lib);

/// Why the format would skip `m` for action `a` at `now` ("" when it
/// applies): the SQLite driver's refusal(), or Graphile Worker's own rule.
using Refusal = std::function<std::string(Action a, const Message& m, TimeNs now)>;

/// The refusal rule of `lib`, or null when lqcore does not write it.
/// `info`: the format's description as PgQueue built it.
Refusal refusalOf(const Found& lib, const FormatInfo& info, const std::string& url);

/// What one chunk needs: a writing session inside an open transaction,
/// the library, its refusal rule and the clock of the run.
struct ChunkContext {
    Connection& c;
    const Found& lib;
    const Refusal& refusal;
    TimeNs now = 0;
};

/// Action `a` on targets [begin, end) into `r` (applied and skipped rows).
/// Throws lq::core::Error for a failed statement (the chunk then rolls
/// back).
void applyChunk(const ChunkContext& x, Action a, const core::Target* begin, const core::Target* end,
                ActionResult& r);

/// Undo of rows [begin, end) of a record of action `original` into `r`.
void undoChunk(const ChunkContext& x, Action original, const AppliedRow* begin,
               const AppliedRow* end, ActionResult& r);

} // namespace lq::core::pg
