#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Oban Lite under worker load while lqctl acts (issue 14, Proof).

Worker processes run Oban's own Lite statements (docs/FORMATS.md#oban-lite;
oban-bg/oban@2939e3134d08 lib/oban/engines/lite.ex and basic.ex): claim with
`UPDATE ... SET state='executing', attempted_at, attempted_by, attempt+1 WHERE
id IN (SELECT ... state='available' AND attempt < max_attempts ORDER BY
priority, scheduled_at, id LIMIT 1) RETURNING`, then complete, error
(retryable with a backoff, error appended with json_insert as TEXT) or discard
when exhausted, each `WHERE id = ?` only, as Oban does. The maintainer makes
due retryable jobs available (Oban's Stager), the enqueuer inserts jobs.

Workers are killed with SIGKILL. Oban Lite has no heartbeats: its Lifeline
rescues an executing job once attempted_at is 60 min old. The harness plays
that hour for the dead worker's claim only, moving its attempted_at two hours
back. lqctl meanwhile releases what it lists as LOCKED (refused unless
abandoned by the Lifeline's rule), retries discarded, retryable and cancelled
jobs, deletes a few available ones, tries made-up tokens and undoes.

The loop and the checks are format_stress.py's; Oban keeps completed jobs, so
every inserted job must still be in the table unless lqctl deleted it.

usage: oban_stress.py LQCTL FIXTURE [SECONDS]
"""
import datetime
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import format_stress as fs  # noqa: E402

LIFELINE_S = 60 * 60  # Oban's Lifeline rescues after an hour (not stored)


def iso(delta_s=0.0):
    t = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=delta_s)
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Oban(fs.Format):
    table = "oban_jobs"
    name = "oban"
    keeps_finished = True

    def insert(self, c, i):
        return c.execute("INSERT INTO oban_jobs (state, queue, worker, args, errors, attempt, "
                         "max_attempts, priority) VALUES ('available', 'default', "
                         "'Stress.Worker', ?, '[]', 0, 3, ?) RETURNING id",
                         (json.dumps({"n": i}), random.randint(0, 3))).fetchone()[0]

    def claim(self, c, worker):
        row = c.execute(
            "UPDATE oban_jobs SET state = 'executing', attempted_at = ?, attempted_by = ?, "
            "attempt = attempt + 1 WHERE id IN (SELECT id FROM oban_jobs WHERE state = "
            "'available' AND queue = 'default' AND attempt < max_attempts ORDER BY priority, "
            "scheduled_at, id LIMIT 1) RETURNING id",
            (iso(), json.dumps([worker]))).fetchone()
        return (row[0], self.token(c, row[0])) if row else None

    def token(self, c, jid):
        """(attempt, attempted_at) while executing: what the Lifeline and a
        retry change."""
        row = c.execute("SELECT attempt, attempted_at FROM oban_jobs WHERE id = ? AND "
                        "state = 'executing'", (jid,)).fetchone()
        return list(row) if row else None

    def complete(self, c, jid, tok):
        c.execute("UPDATE oban_jobs SET state = 'completed', completed_at = ? WHERE id = ?",
                  (iso(), jid))
        return "DONE"

    def fail(self, c, jid, tok):
        attempt, max_attempts = c.execute("SELECT attempt, max_attempts FROM oban_jobs WHERE "
                                          "id = ?", (jid,)).fetchone()
        err = json.dumps({"attempt": attempt, "at": iso(),
                          "error": "** (RuntimeError) stress failure"})
        if attempt < max_attempts:
            c.execute("UPDATE oban_jobs SET state = 'retryable', scheduled_at = ?, errors = "
                      "json_insert(errors, '$[#]', ?) WHERE id = ?", (iso(0.3), err, jid))
            return "ERROR"
        c.execute("UPDATE oban_jobs SET state = 'discarded', discarded_at = ?, errors = "
                  "json_insert(errors, '$[#]', ?) WHERE id = ?", (iso(), err, jid))
        return "DISCARDED"

    def age(self, c, jid, tok):
        # The hour after which the Lifeline rescues a dead node's job.
        c.execute("UPDATE oban_jobs SET attempted_at = ? WHERE id = ? AND state = 'executing' "
                  "AND attempt = ? AND attempted_at = ?",
                  (iso(-2 * LIFELINE_S), jid, tok[0], tok[1]))

    def maintain(self, c):
        # Oban's Stager.
        c.execute("UPDATE oban_jobs SET state = 'available' WHERE id IN (SELECT id FROM oban_jobs "
                  "WHERE state IN ('scheduled', 'retryable') AND scheduled_at <= ? LIMIT 5000)",
                  (iso(),))

    def plan(self, m):
        if m["status"] not in ("READY", "SCHEDULED", "LOCKED", "DONE"):
            return ("retry",)  # discarded (FAILED) and Oban's own retryable and cancelled
        return super().plan(m)


if __name__ == "__main__":
    sys.exit(fs.main(Oban(), os.path.abspath(__file__)))
