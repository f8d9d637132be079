#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""backlite under worker load while lqctl acts (issue 15).

The workers run backlite's own statements (docs/FORMATS.md#backlite;
mikestefanello/backlite@56d2839e4c2e internal/query/query.go, dispatcher.go,
internal/task/{task,tasks,completed}.go) from Python's sqlite3, because
backlite (a Go module) cannot be installed without network in CI:
- add: id UUIDv7, created_at in ms, queue 'stress', the task as JSON bytes
  with a trailing newline (Go's json.Encoder);
- fetch and claim: the first task not claimed or claimed longer ago than
  ReleaseAfter (600 s, lqctl's assumption: the setting is not stored in the
  file), due (`wait_until` NULL or past), by `wait_until, id`; then `UPDATE
  SET claimed_at=now, attempts=attempts+1 WHERE id IN (...)`. backlite
  fetches a batch and stops at the first future wait_until in Go; here one
  task at a time with that condition in SQL, in one write transaction;
- success, in one transaction: delete the task and insert its
  backlite_tasks_completed row (Retention with Data, no expiry: succeeded 1,
  last_executed_at = the claim, last_duration_micro);
- failure: with attempts left (MaxAttempts 3) `claimed_at=NULL,
  wait_until=now+0.3 s, last_executed_at=start WHERE id=?`; otherwise delete
  and a completed row with succeeded 0 and the error.
Token: (claimed_at, attempts). Aging a dead worker's claim: claimed_at
20 min back, past ReleaseAfter, after which the next fetch takes it. lqctl
releases claims past ReleaseAfter (refused otherwise), runs waiting tasks now
(reschedule), deletes a few ready and completed ones, tries made-up tokens
and undoes. Nothing is lost: every id is in one of the two tables.

usage: backlite_stress.py LQCTL FIXTURE [SECONDS]
"""
import json
import os
import random
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import format_stress as fs  # noqa: E402

RELEASE_AFTER_S = 600  # BackliteFormat::kReleaseAfterSeconds
MAX_ATTEMPTS = 3


def uuid7():
    b = bytearray(fs.now_ms().to_bytes(6, "big") + os.urandom(10))
    b[6] = 0x70 | (b[6] & 0x0F)
    b[8] = 0x80 | (b[8] & 0x3F)
    return str(uuid.UUID(bytes=bytes(b)))


class Backlite(fs.Format):
    name = "backlite"
    deletable = ("READY", "DONE", "FAILED")

    def insert(self, c, i):
        jid = uuid7()
        c.execute("INSERT INTO backlite_tasks (id, created_at, queue, task, wait_until) VALUES "
                  "(?, ?, 'stress', ?, NULL)",
                  (jid, fs.now_ms(), (json.dumps({"N": i}) + "\n").encode()))
        return jid

    def claim(self, c, worker):
        now = fs.now_ms()
        row = c.execute("SELECT id FROM backlite_tasks WHERE (claimed_at IS NULL OR claimed_at < "
                        "?) AND (wait_until IS NULL OR wait_until <= ?) AND queue = 'stress' "
                        "ORDER BY wait_until ASC, id ASC LIMIT 1",
                        (now - RELEASE_AFTER_S * 1000, now)).fetchone()
        if not row:
            return None
        got = c.execute("UPDATE backlite_tasks SET claimed_at = ?, attempts = attempts + 1 WHERE "
                        "id IN (?) RETURNING claimed_at, attempts", (now, row[0])).fetchone()
        return row[0], list(got)

    def token(self, c, jid):
        row = c.execute("SELECT claimed_at, attempts FROM backlite_tasks WHERE id = ?",
                        (jid,)).fetchone()
        return list(row) if row else None

    def finish(self, c, jid, tok, error):
        created, task = c.execute("SELECT created_at, task FROM backlite_tasks WHERE id = ?",
                                  (jid,)).fetchone()
        c.execute("DELETE FROM backlite_tasks WHERE id = ?", (jid,))
        c.execute("INSERT INTO backlite_tasks_completed (id, created_at, queue, last_executed_at, "
                  "attempts, last_duration_micro, succeeded, task, expires_at, error) VALUES "
                  "(?, ?, 'stress', ?, ?, ?, ?, ?, NULL, ?)",
                  (jid, created, tok[0], tok[1], (fs.now_ms() - tok[0]) * 1000,
                   0 if error else 1, task, error))

    def complete(self, c, jid, tok):
        self.finish(c, jid, tok, None)
        return "DONE"

    def fail(self, c, jid, tok):
        if MAX_ATTEMPTS - tok[1] >= 1:
            c.execute("UPDATE backlite_tasks SET claimed_at = NULL, wait_until = ?, "
                      "last_executed_at = ? WHERE id = ?", (fs.now_ms(0.3), tok[0], jid))
            return "ERROR"
        self.finish(c, jid, tok, "stress failure")
        return "FAILED"

    def age(self, c, jid, tok):
        c.execute("UPDATE backlite_tasks SET claimed_at = ? WHERE id = ? AND claimed_at = ? AND "
                  "attempts = ?", (fs.now_ms(-2 * RELEASE_AFTER_S), jid, tok[0], tok[1]))

    def ids(self, c):
        return [r[0] for r in c.execute("SELECT id FROM backlite_tasks UNION ALL SELECT id FROM "
                                        "backlite_tasks_completed")]

    def plan(self, m):
        st = m["status"]
        if st == "LOCKED":
            return ("release",)
        if st == "SCHEDULED" and random.random() < 0.2:
            return ("reschedule", "--delay", "0")
        return None


if __name__ == "__main__":
    sys.exit(fs.main(Backlite(), os.path.abspath(__file__)))
