#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Solid Queue under real-client load while lqctl acts (issue 14, Proof).

Worker processes run Solid Queue's own statements (docs/FORMATS.md#solid-queue;
rails/solid_queue@29e818d9c118 app/models/solid_queue/{ready_execution,
claimed_execution,failed_execution,process}.rb): register a process row and
heartbeat it, claim (select ready by priority, job_id; insert claimed; delete
ready) in one transaction, then complete (finished_at, delete the claim) or
fail (insert a failed row, delete the claim). The enqueuer inserts jobs with
ready rows. Workers are killed with SIGKILL; the harness then plays the
supervisor's pruning, minus its failing of claims, for the dead worker's
claim: its process row is deleted, so the claim is abandoned by the
library's rule. lqctl meanwhile releases abandoned claims (a live process's
are refused), retries failed jobs, discards ready ones, undoes, and tries
stale tokens, in a loop.

The loop and the checks are format_stress.py's; Solid Queue keeps finished
jobs, so every inserted job must still be there unless lqctl discarded it.
Also checked: every unfinished job in exactly one execution table, no orphan
execution rows (foreign_key_check; foreign keys on, as Rails has them).

usage: solidqueue_stress.py LQCTL FIXTURE [SECONDS]
"""
import json
import os
import random
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import format_stress as fs  # noqa: E402


def now_text():
    t = time.time()
    us = int(round((t - int(t)) * 1e6)) % 1000000
    base = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(int(t)))
    return base if us == 0 else "%s.%06d" % (base, us)


class SolidQueue(fs.Format):
    table = "solid_queue_jobs"
    name = "solid-queue"
    fail_rate = 0.15
    pragmas = ("foreign_keys=ON",)  # as Rails does per connection
    keeps_finished = True
    process = None  # this worker's solid_queue_processes row

    def start_worker(self, path, name):
        c = fs.connect(path, self)
        c.execute("INSERT INTO solid_queue_processes (kind, last_heartbeat_at, pid, hostname, "
                  "created_at, name) VALUES ('Worker', ?, ?, 'stress', ?, ?)",
                  (now_text(), os.getpid(), now_text(), name))
        self.process = c.execute("SELECT last_insert_rowid()").fetchone()[0]

        def beat():
            h = fs.connect(path, self)  # a connection of its own thread
            while True:
                h.execute("UPDATE solid_queue_processes SET last_heartbeat_at = ? WHERE id = ?",
                          (now_text(), self.process))
                time.sleep(0.2)
        threading.Thread(target=beat, daemon=True).start()

    def insert(self, c, i):
        t = now_text()
        args = json.dumps({"job_class": "StressJob", "job_id": "stress-%d" % i,
                           "arguments": [i], "executions": 0, "exception_executions": {}})
        c.execute("INSERT INTO solid_queue_jobs (queue_name, class_name, arguments, priority, "
                  "active_job_id, scheduled_at, created_at, updated_at) VALUES ('default', "
                  "'StressJob', ?, 0, ?, ?, ?, ?)", (args, "stress-%d" % i, t, t, t))
        jid = c.execute("SELECT last_insert_rowid()").fetchone()[0]
        c.execute("INSERT INTO solid_queue_ready_executions (job_id, queue_name, priority, "
                  "created_at) VALUES (?, 'default', 0, ?)", (jid, t))
        return jid

    def claim(self, c, worker):
        row = c.execute("SELECT id, job_id FROM solid_queue_ready_executions WHERE queue_name "
                        "NOT IN (SELECT queue_name FROM solid_queue_pauses) ORDER BY priority, "
                        "job_id LIMIT 1").fetchone()
        if not row:
            return None
        c.execute("INSERT INTO solid_queue_claimed_executions (job_id, process_id, created_at) "
                  "VALUES (?, ?, ?)", (row[1], self.process, now_text()))
        claim = c.execute("SELECT last_insert_rowid()").fetchone()[0]
        c.execute("DELETE FROM solid_queue_ready_executions WHERE id = ?", (row[0],))
        return row[1], claim

    def token(self, c, jid):
        """The job's claimed execution: gone or another one once taken."""
        row = c.execute("SELECT id FROM solid_queue_claimed_executions WHERE job_id = ?",
                        (jid,)).fetchone()
        return row[0] if row else None

    def complete(self, c, jid, tok):
        c.execute("UPDATE solid_queue_jobs SET finished_at = ?, updated_at = ? WHERE id = ?",
                  (now_text(), now_text(), jid))
        c.execute("DELETE FROM solid_queue_claimed_executions WHERE id = ?", (tok,))
        return "DONE"

    def fail(self, c, jid, tok):
        err = json.dumps({"exception_class": "RuntimeError", "message": "boom",
                          "backtrace": None})
        c.execute("INSERT INTO solid_queue_failed_executions (job_id, error, created_at) "
                  "VALUES (?, ?, ?)", (jid, err, now_text()))
        c.execute("DELETE FROM solid_queue_claimed_executions WHERE id = ?", (tok,))
        return "FAILED"

    def age(self, c, jid, tok):
        # The supervisor prunes the dead process: the row of the process that
        # holds this claim goes, and with it the claim's owner.
        c.execute("DELETE FROM solid_queue_processes WHERE id = (SELECT process_id FROM "
                  "solid_queue_claimed_executions WHERE id = ? AND job_id = ?)", (tok, jid))

    def plan(self, m):
        if m["status"] == "READY" and random.random() < 0.05:
            return ("delete",)
        return super().plan(m)

    def check(self, c):
        problems = []
        if c.execute("PRAGMA foreign_key_check").fetchall():
            problems.append("orphan execution rows")
        bad = c.execute(
            "SELECT id FROM solid_queue_jobs j WHERE finished_at IS NULL AND "
            "(SELECT count(*) FROM solid_queue_ready_executions WHERE job_id = j.id) + "
            "(SELECT count(*) FROM solid_queue_claimed_executions WHERE job_id = j.id) + "
            "(SELECT count(*) FROM solid_queue_failed_executions WHERE job_id = j.id) + "
            "(SELECT count(*) FROM solid_queue_scheduled_executions WHERE job_id = j.id) + "
            "(SELECT count(*) FROM solid_queue_blocked_executions WHERE job_id = j.id) <> 1"
        ).fetchall()
        if bad:
            problems.append("jobs not in exactly one execution table: %s" % bad[:10])
        return problems


if __name__ == "__main__":
    sys.exit(fs.main(SolidQueue(), os.path.abspath(__file__)))
