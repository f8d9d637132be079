#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""River (riversqlite, schema v7) under worker load while lqctl acts (issue 15).

The workers run River's own riversqlite statements (docs/FORMATS.md#river-sqlite;
riverqueue/river@fdf6cdf12567 riverdriver/riversqlite/internal/dbsqlc/
river_job.sql, river_sqlite_driver.go) from Python's sqlite3, because River
(Go >= 1.25 modules) cannot be installed without network in CI:
- insert: state 'available', queue 'stress', max_attempts 3, every time bound
  explicitly in River's timeString layout;
- claim: `state='running', attempt+1, attempted_at=now, attempted_by=<client
  id appended>` for the first due available job (priority, scheduled_at, id);
  River does it in one UPDATE ... WHERE id IN (SELECT ...), here the SELECT
  and the UPDATE share one write transaction;
- complete: `state='completed', finalized_at=now WHERE id=? AND
  state='running'` (JobSetStateIfRunning);
- error: retryable at now + 0.3 s (a client RetryPolicy; River's default is
  errors^4 s) with the error appended, or discarded once attempt reaches
  max_attempts; a scheduler thread makes due retryable jobs available (River's
  JobScheduler, every 0.2 s here instead of 5 s).
v7 stores args, metadata, tags, errors and attempted_by as JSONB. Debian 12's
SQLite 3.40 has no jsonb(), so this harness writes the JSONB bytes itself
(format_stress.jsonb, SQLite's documented encoding, which core/jsonb.cpp
decodes); it never writes JSON text into a v7 column.
Token: (state, attempt, attempted_at). Aging a dead worker's claim:
attempted_at two hours back, past the JobRescuer's hour. lqctl releases
running jobs (the JobRescuer's rule: refused unless older than 1 h), retries
discarded, retryable and cancelled jobs, deletes a few available ones, tries
made-up tokens and undoes.

usage: river_stress.py LQCTL FIXTURE [SECONDS]
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import format_stress as fs  # noqa: E402


def rtime(delta_s=0.0):
    """River's timeString: "2006-01-02 15:04:05.999" (ms, zeros trimmed)."""
    s = fs.utc(delta_s).strftime("%Y-%m-%d %H:%M:%S.%f")[:23].rstrip("0")
    return s.rstrip(".")


def nano(delta_s=0.0):
    return fs.utc(delta_s).strftime("%Y-%m-%dT%H:%M:%S.%f000Z")


class River(fs.Format):
    table = "river_job"
    name = "river"

    def insert(self, c, i):
        now = rtime()
        return c.execute(
            "INSERT INTO river_job (args, attempt, created_at, kind, max_attempts, metadata, "
            "priority, queue, scheduled_at, state, tags) VALUES (?, 0, ?, 'stress_job', 3, ?, "
            "?, 'stress', ?, 'available', ?) RETURNING id",
            (fs.jsonb({"n": i}), now, fs.jsonb({}), random.randint(1, 4), now,
             fs.jsonb([]))).fetchone()[0]

    def claim(self, c, worker):
        row = c.execute("SELECT id, attempted_by FROM river_job WHERE priority >= 0 AND queue = "
                        "'stress' AND scheduled_at <= ? AND state = 'available' ORDER BY "
                        "priority, scheduled_at, id LIMIT 1", (rtime(),)).fetchone()
        if not row:
            return None
        by = (fs.from_jsonb(row[1]) if row[1] else None) or []
        by = (by + [worker])[-100:]
        got = c.execute("UPDATE river_job SET attempt = attempt + 1, attempted_at = ?, "
                        "attempted_by = ?, state = 'running' WHERE id = ? RETURNING state, "
                        "attempt, attempted_at", (rtime(), fs.jsonb(by), row[0])).fetchone()
        return row[0], list(got)

    def token(self, c, jid):
        row = c.execute("SELECT state, attempt, attempted_at FROM river_job WHERE id = ?",
                        (jid,)).fetchone()
        return list(row) if row else None

    def complete(self, c, jid, tok):
        c.execute("UPDATE river_job SET state = 'completed', finalized_at = ? WHERE id = ? AND "
                  "state = 'running'", (rtime(), jid))
        return "DONE"

    def fail(self, c, jid, tok):
        attempt, max_attempts, errors = c.execute(
            "SELECT attempt, max_attempts, errors FROM river_job WHERE id = ?", (jid,)).fetchone()
        errs = (fs.from_jsonb(errors) if errors else None) or []
        errs.append({"at": nano(), "attempt": attempt, "error": "stress failure", "trace": ""})
        if attempt < max_attempts:
            c.execute("UPDATE river_job SET state = 'retryable', scheduled_at = ?, errors = ? "
                      "WHERE id = ? AND state = 'running'", (rtime(0.3), fs.jsonb(errs), jid))
            return "ERROR"
        c.execute("UPDATE river_job SET state = 'discarded', finalized_at = ?, errors = ? WHERE "
                  "id = ? AND state = 'running'", (rtime(), fs.jsonb(errs), jid))
        return "DISCARDED"

    def maintain(self, c):
        c.execute("UPDATE river_job SET state = 'available' WHERE id IN (SELECT id FROM river_job "
                  "WHERE state IN ('retryable', 'scheduled') AND scheduled_at <= ? LIMIT 5000)",
                  (rtime(),))

    def age(self, c, jid, tok):
        c.execute("UPDATE river_job SET attempted_at = ? WHERE id = ? AND state = 'running' AND "
                  "attempt = ? AND attempted_at = ?", (rtime(-7200), jid, tok[1], tok[2]))

    def plan(self, m):
        if m["status"] not in ("READY", "SCHEDULED", "LOCKED", "DONE"):
            return ("retry",)  # discarded, retryable, cancelled
        return super().plan(m)


if __name__ == "__main__":
    sys.exit(fs.main(River(), os.path.abspath(__file__)))
