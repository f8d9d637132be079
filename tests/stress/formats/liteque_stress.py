#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""liteque (Karakeep queue.db) under worker load while lqctl acts (issue 15).

The workers run liteque's own statements (docs/FORMATS.md#liteque;
karakeep-app/liteque@394fe166b03a src/queue.ts, src/runner.ts) from Python's
sqlite3, because the real library (Node, better-sqlite3 built from source)
cannot be installed without network in CI:
- enqueue: status 'pending', createdAt in s, availableAt in ms, a random
  allocationId, numRunsLeft = maxNumRuns = 3 (numRetries 2);
- attemptDequeue: the oldest due pending/pending_retry task, or a running one
  whose expireAt passed (liteque's stuck rule); numRunsLeft 0 finalizes it as
  failed, otherwise `status='running', numRunsLeft-1, allocationId=<new>,
  expireAt=now_s+60 WHERE id=? AND allocationId=<old>` (timeoutSecs 60);
- complete: `DELETE WHERE id=? AND allocationId=?` (the row is gone: the log
  is the proof it completed);
- fail: pending_retry (runs left) or failed (keepFailedJobs, as Karakeep's
  youtube_transcript_queue), both under the allocationId CAS.
Token: allocationId. Aging a dead worker's claim: expireAt 10 s in the past.
lqctl releases LOCKED tasks (refused unless expired), retries failed ones,
deletes a few pending ones, tries made-up tokens and undoes.

usage: liteque_stress.py LQCTL FIXTURE [SECONDS]
"""
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import format_stress as fs  # noqa: E402


def allocation_id():
    return "".join(random.choice("0123456789abcdefghijklmnopqrstuvwxyz") for _ in range(11))


class Liteque(fs.Format):
    table = "tasks"
    name = "liteque"

    def insert(self, c, i):
        return c.execute(
            "INSERT INTO tasks (queue, payload, createdAt, status, allocationId, numRunsLeft, "
            "maxNumRuns, idempotencyKey, priority, availableAt) VALUES ('stress', ?, ?, "
            "'pending', ?, 3, 3, NULL, ?, ?) RETURNING id",
            (json.dumps({"n": i}), int(time.time()), allocation_id(), random.randint(0, 2),
             fs.now_ms())).fetchone()[0]

    def claim(self, c, worker):
        row = c.execute(
            "SELECT id, numRunsLeft, allocationId FROM tasks WHERE queue = 'stress' AND "
            "(availableAt <= ? OR availableAt IS NULL) AND (status IN ('pending', "
            "'pending_retry') OR (status = 'running' AND expireAt < ?)) ORDER BY priority ASC, "
            "createdAt ASC LIMIT 1", (fs.now_ms(), int(time.time()))).fetchone()
        if not row:
            return None
        jid, left, old = row
        if left <= 0:  # no runs left: finalize as failed (keepFailedJobs)
            c.execute("UPDATE tasks SET status = 'failed', expireAt = NULL, availableAt = ? "
                      "WHERE id = ? AND allocationId = ?", (fs.now_ms(), jid, old))
            return None
        new = allocation_id()
        got = c.execute("UPDATE tasks SET status = 'running', numRunsLeft = numRunsLeft - 1, "
                        "allocationId = ?, expireAt = ? WHERE id = ? AND allocationId = ? "
                        "RETURNING id", (new, int(time.time()) + 60, jid, old)).fetchone()
        return (jid, ["running", new]) if got else None

    def token(self, c, jid):
        row = c.execute("SELECT status, allocationId FROM tasks WHERE id = ?", (jid,)).fetchone()
        return list(row) if row else None

    def complete(self, c, jid, tok):
        c.execute("DELETE FROM tasks WHERE id = ? AND allocationId = ?", (jid, tok[1]))
        return "DONE"

    def fail(self, c, jid, tok):
        left = c.execute("SELECT numRunsLeft FROM tasks WHERE id = ?", (jid,)).fetchone()[0]
        status = "pending_retry" if left > 0 else "failed"
        c.execute("UPDATE tasks SET status = ?, expireAt = NULL, availableAt = ? WHERE id = ? "
                  "AND allocationId = ?", (status, fs.now_ms(), jid, tok[1]))
        return "ERROR" if left > 0 else "FAILED"

    def age(self, c, jid, tok):
        c.execute("UPDATE tasks SET expireAt = ? WHERE id = ? AND status = 'running' AND "
                  "allocationId = ?", (int(time.time()) - 10, jid, tok[1]))


if __name__ == "__main__":
    sys.exit(fs.main(Liteque(), os.path.abspath(__file__)))
