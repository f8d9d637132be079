#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""plainjob under worker load while lqctl acts (issue 15).

The workers run plainjob's own statements (docs/FORMATS.md#plainjob;
justplainstuff/plainjob@e13a567dcbe7 src/queue.ts, src/worker.ts) from
Python's sqlite3, because the real library (Node, better-sqlite3 built from
source) cannot be installed without network in CI:
- add: `INSERT (type, data, created_at=now, next_run_at=now+delay)`, type
  'stress' (plainjob has no queue column; the type plays its role), a tenth
  delayed by 1 s;
- claim (getAndMarkJobAsProcessing): in BEGIN IMMEDIATE, `SELECT id ...
  WHERE status=0 AND type=? AND next_run_at <= now ORDER BY next_run_at LIMIT
  1`, then `UPDATE SET status=1 WHERE id=?`;
- done: `UPDATE SET status=2 WHERE id=?`; fail: `status=3, failed_at=now,
  error=? WHERE id=?` (plainjob has no retries).
plainjob has no claim token: the best guard is (status, next_run_at), which
the worker re-reads before writing its outcome. Its stuck rule (maintenance)
requeues `status=1 AND next_run_at < now - 30 min`: aging a dead worker's
claim moves its next_run_at two hours back. lqctl releases processing jobs
past that timeout (refused otherwise), retries failed ones, runs pending ones
now (reschedule), deletes a few ready and done ones, tries made-up tokens and
undoes.

usage: plainjob_stress.py LQCTL FIXTURE [SECONDS]
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import format_stress as fs  # noqa: E402

TIMEOUT_S = 30 * 60  # plainjob's default processing timeout (not stored)


class Plainjob(fs.Format):
    table = "plainjob_jobs"
    name = "plainjob"
    deletable = ("READY", "DONE")

    def insert(self, c, i):
        now = fs.now_ms()
        delay = 1000 if random.random() < 0.1 else 0
        return c.execute("INSERT INTO plainjob_jobs (type, data, created_at, next_run_at) VALUES "
                         "('stress', ?, ?, ?) RETURNING id",
                         (json.dumps({"n": i}), now, now + delay)).fetchone()[0]

    def claim(self, c, worker):
        row = c.execute("SELECT id FROM plainjob_jobs WHERE status = 0 AND type = 'stress' AND "
                        "next_run_at <= ? ORDER BY next_run_at LIMIT 1",
                        (fs.now_ms(),)).fetchone()
        if not row:
            return None
        c.execute("UPDATE plainjob_jobs SET status = 1 WHERE id = ?", (row[0],))
        return row[0], self.token(c, row[0])

    def token(self, c, jid):
        row = c.execute("SELECT status, next_run_at FROM plainjob_jobs WHERE id = ?",
                        (jid,)).fetchone()
        return list(row) if row else None

    def complete(self, c, jid, tok):
        c.execute("UPDATE plainjob_jobs SET status = 2 WHERE id = ?", (jid,))
        return "DONE"

    def fail(self, c, jid, tok):
        c.execute("UPDATE plainjob_jobs SET status = 3, failed_at = ?, error = ? WHERE id = ?",
                  (fs.now_ms(), "Error: stress failure\n    at worker\nstress failure", jid))
        return "FAILED"

    def age(self, c, jid, tok):
        c.execute("UPDATE plainjob_jobs SET next_run_at = ? WHERE id = ? AND status = 1 AND "
                  "next_run_at = ?", (fs.now_ms(-4 * TIMEOUT_S), jid, tok[1]))

    def plan(self, m):
        if m["status"] == "SCHEDULED" and random.random() < 0.2:
            return ("reschedule", "--delay", "0")
        return super().plan(m)


if __name__ == "__main__":
    sys.exit(fs.main(Plainjob(), os.path.abspath(__file__)))
