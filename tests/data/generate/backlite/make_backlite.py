#!/usr/bin/env python3
"""Write tests/data/formats/backlite.sqlite3: a backlite task queue file.

backlite is a Go module and cannot be built here (no Go toolchain, no module
proxy). This script reproduces it from mikestefanello/backlite@
56d2839e4c2e7507b120c969a464408145a56018:

* schema: `internal/query/schema.sql`, executed as `Client.Install()` does
  (read from a checkout with --backlite-src, else the identical embedded text);
* statements: the constants of `internal/query/query.go` (InsertTask,
  SelectScheduledTasks, ClaimTasks(n), DeleteTask, InsertCompletedTask,
  TaskFailed), bound as `internal/task/{task,tasks,completed}.go` bind them
  (times `UnixMilli()`, durations `Microseconds()`), in the transactions of
  `client.go` (save) and `dispatcher.go` (fetch, taskSuccess, taskFailure,
  taskComplete);
* ids are UUIDv7 strings (github.com/google/uuid NewV7 layout: 48-bit Unix ms,
  version 7, variant 10, random rest; seeded here), task blobs are Go
  `json.NewEncoder(buf).Encode(t)` output with its trailing newline.

backlite's clock is the package variable `now` (client.go), which its own
tests replace; this generator uses a fixed fake clock the same way, so the
file is reproducible byte for byte. Facts are valid at NOW below.

Client config used: ReleaseAfter = 10 min (required option, not stored).
Queues (config, not stored):
  emails    MaxAttempts 3, Backoff 5 min, Retention{Duration 24 h, Data: all}
  reports   MaxAttempts 1, Retention{OnlyFailed, Data{OnlyFailed}}, no Duration
  webhooks  MaxAttempts 2, Backoff 2 h, no Retention (completed rows vanish)

Usage: python3 make_backlite.py OUT.sqlite3 [--backlite-src <checkout>]
"""
import datetime as dt
import json
import os
import random
import sqlite3
import sys

SCHEMA = """CREATE TABLE IF NOT EXISTS backlite_tasks (
    id text PRIMARY KEY,
    created_at integer NOT NULL,
    queue text NOT NULL,
    task blob NOT NULL,
    wait_until integer,
    claimed_at integer,
    last_executed_at integer,
    attempts integer NOT NULL DEFAULT 0
) STRICT;

CREATE TABLE IF NOT EXISTS backlite_tasks_completed (
    id text PRIMARY KEY NOT NULL,
    created_at integer NOT NULL,
    queue text NOT NULL,
    last_executed_at integer,
    attempts integer NOT NULL,
    last_duration_micro integer,
    succeeded integer,
    task blob,
    expires_at integer,
    error text
) STRICT;

CREATE INDEX IF NOT EXISTS backlite_tasks_wait_until ON backlite_tasks (wait_until) WHERE wait_until IS NOT NULL;"""

INSERT_TASK = """
	INSERT INTO backlite_tasks 
	    (id, created_at, queue, task, wait_until)
	VALUES (?, ?, ?, ?, ?)
"""
SELECT_SCHEDULED = """
	SELECT 
	    id, queue, task, attempts, wait_until, created_at, last_executed_at, null
	FROM 
	    backlite_tasks
	WHERE
	    claimed_at IS NULL
		OR claimed_at < ?
	ORDER BY
	    wait_until ASC,
		id ASC
	LIMIT ?
	OFFSET ?
"""
DELETE_TASK = """
	DELETE FROM backlite_tasks
	WHERE id = ?
"""
INSERT_COMPLETED = """
	INSERT INTO backlite_tasks_completed
		(id, created_at, queue, last_executed_at, attempts, last_duration_micro, succeeded, task, expires_at, error)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
TASK_FAILED = """
	UPDATE backlite_tasks
	SET 
	    claimed_at = NULL, 
	    wait_until = ?,
	    last_executed_at = ?
	WHERE id = ?
"""


def claim_tasks(count):
    return """
		UPDATE backlite_tasks
		SET
			claimed_at = ?,
			attempts = attempts + 1
		WHERE id IN (%s)
	""" % ",".join("?" * count)


UTC = dt.timezone.utc
NOW = dt.datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
RELEASE_AFTER = dt.timedelta(minutes=10)
QUEUES = {
    "emails": dict(max_attempts=3, backoff=dt.timedelta(minutes=5),
                   retention=dict(duration=dt.timedelta(hours=24), only_failed=False, data=True, data_only_failed=False)),
    "reports": dict(max_attempts=1, backoff=dt.timedelta(0),
                    retention=dict(duration=None, only_failed=True, data=True, data_only_failed=True)),
    "webhooks": dict(max_attempts=2, backoff=dt.timedelta(hours=2), retention=None),
}


def ms(t):
    return int(t.timestamp() * 1000)


class Sim:
    def __init__(self, db, rng):
        self.db, self.rng = db, rng
        self.clock = NOW - dt.timedelta(hours=3)
        self.last_v7 = 0
        self.tasks = {}  # id -> dict (the in-memory task.Task the dispatcher holds)

    def now(self):
        # every read of the clock advances it by a few hundred microseconds
        self.clock += dt.timedelta(microseconds=self.rng.randint(150, 900))
        return self.clock

    def at(self, t):
        assert t >= self.clock
        self.clock = t

    def uuid7(self, t):
        # google/uuid NewV7: 48-bit ms, then a 12-bit sub-millisecond sequence
        # ((ns within the ms) >> 8, forced monotonic), then random bits.
        nano = int(t.timestamp()) * 10**9 + t.microsecond * 1000
        milli = nano // 10**6
        now = (milli << 12) + ((nano - milli * 10**6) >> 8)
        if now <= self.last_v7:
            now = self.last_v7 + 1
        self.last_v7 = now
        milli, seq = now >> 12, now & 0xFFF
        b = bytearray(milli.to_bytes(6, "big") + seq.to_bytes(2, "big") + self.rng.getrandbits(64).to_bytes(8, "big"))
        b[6] = (b[6] & 0x0F) | 0x70
        b[8] = (b[8] & 0x3F) | 0x80
        h = b.hex()
        return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])

    def add(self, queue, payloads, wait=None):
        """Client.Add(...).Wait(wait).Save(): one transaction, InsertTask per task."""
        self.db.execute("BEGIN")
        ids = []
        for p in payloads:
            blob = (json.dumps(p, separators=(",", ":"), ensure_ascii=False) + "\n").encode()
            created = self.now()
            tid = self.uuid7(created)
            wait_until = ms(self.clock + wait) if wait is not None else None
            self.db.execute(INSERT_TASK, (tid, ms(created), queue, blob, wait_until))
            self.tasks[tid] = dict(id=tid, queue=queue, task=blob, created=created, attempts=0)
            ids.append(tid)
        self.db.execute("COMMIT")
        return ids

    def fetch(self, workers):
        """dispatcher.fetch: select workers+1, cut at the first not-yet-due task, claim the rest."""
        rows = self.db.execute(SELECT_SCHEDULED, (ms(self.now() - RELEASE_AFTER), workers + 1, 0)).fetchall()
        ready = []
        for i, r in enumerate(rows):
            if i + 1 > workers:
                break
            if r[4] is not None and r[4] > ms(self.now()):
                break
            ready.append(r[0])
        if ready:
            self.db.execute("BEGIN")
            self.db.execute(claim_tasks(len(ready)), [ms(self.now())] + ready)
            self.db.execute("COMMIT")
        for tid in ready:
            self.tasks[tid]["attempts"] += 1
        return ready

    def _complete(self, t, started, dur, err):
        ret = QUEUES[t["queue"]]["retention"]
        if ret is None or (err is None and ret["only_failed"]):
            return
        expires = ms(self.now() + ret["duration"]) if ret["duration"] else None
        blob = None
        if ret["data"] and (not ret["data_only_failed"] or err is not None):
            blob = t["task"]
        self.db.execute(INSERT_COMPLETED, (t["id"], ms(t["created"]), t["queue"], ms(started), t["attempts"],
                                           dur // dt.timedelta(microseconds=1), 1 if err is None else 0,
                                           blob, expires, err))

    def run(self, tid, dur, err=None):
        """processTask: started = now(); work for dur; taskSuccess / taskFailure."""
        t = self.tasks[tid]
        started = self.now()
        self.clock = started + dur
        if err is None:
            self.db.execute("BEGIN")
            self.db.execute(DELETE_TASK, (tid,))
            self._complete(t, started, dur, None)
            self.db.execute("COMMIT")
            return
        q = QUEUES[t["queue"]]
        if q["max_attempts"] - t["attempts"] < 1:
            self.db.execute("BEGIN")
            self.db.execute(DELETE_TASK, (tid,))
            self._complete(t, started, dur, err)
            self.db.execute("COMMIT")
        else:
            # task.Fail: database/sql autocommit statement
            self.db.execute(TASK_FAILED, (ms(self.now() + q["backoff"]), ms(started), tid))


def main():
    out = sys.argv[1]
    schema = SCHEMA
    if "--backlite-src" in sys.argv:
        with open(os.path.join(sys.argv[sys.argv.index("--backlite-src") + 1], "internal/query/schema.sql")) as f:
            schema = f.read()
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(out + suffix):
            os.remove(out + suffix)
    db = sqlite3.connect(out, isolation_level=None)
    # backlite's README opens SQLite with `_journal=WAL`; keep WAL.
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(schema)
    s = Sim(db, random.Random(20261130))
    ms_ = dt.timedelta(milliseconds=1)
    ids = {}

    # 09:00 - a batch of e-mails and webhooks.
    e = s.add("emails", [{"To": "user%d@example.com" % i, "Subject": "Welcome", "Body": "Hi"} for i in range(8)])
    w = s.add("webhooks", [{"URL": "https://hooks.example.com/%d" % i, "Event": "order.paid"} for i in range(4)])
    s.at(NOW - dt.timedelta(hours=2, minutes=55))
    # Four workers drain the queue in id order.
    for _ in range(3):
        for tid in s.fetch(4):
            if tid in (e[1],):
                s.run(tid, 850 * ms_, err="smtp: 421 service not available")
            elif tid == w[2]:
                s.run(tid, 30 * 1000 * ms_, err="Post \"https://hooks.example.com/2\": context deadline exceeded")
            else:
                s.run(tid, dt.timedelta(microseconds=s.rng.randint(30000, 900000)))
    # e[1] failed once; its retry (backoff 5 min) runs and fails again, then succeeds the third time.
    s.at(NOW - dt.timedelta(hours=2, minutes=45))
    for tid in s.fetch(4):
        s.run(tid, 900 * ms_, err="smtp: 421 service not available")
    s.at(NOW - dt.timedelta(hours=2, minutes=35))
    for tid in s.fetch(4):
        s.run(tid, 120 * ms_)
    ids["emails_succeeded_third_attempt"] = e[1]

    # 10:00 - reports: one succeeds (not retained: OnlyFailed), two fail (MaxAttempts 1).
    s.at(NOW - dt.timedelta(hours=2))
    r = s.add("reports", [{"Report": "sales", "Month": m} for m in ("2026-08", "2026-09", "2026-10")])
    for tid in s.fetch(4):
        if tid == r[0]:
            s.run(tid, dt.timedelta(seconds=12, microseconds=345678))
        else:
            s.run(tid, dt.timedelta(seconds=3, microseconds=2100), err="report: template \"%s\" not found" % tid[-4:])
    ids["reports_failed"] = r[1:]

    # An e-mail that fails three times (MaxAttempts 3): FAILED with the task kept.
    s.at(NOW - dt.timedelta(hours=1, minutes=30))
    bad = s.add("emails", [{"To": "bounce@example.invalid", "Subject": "Invoice", "Body": "…"}])[0]
    for k in range(3):
        assert s.fetch(4) == [bad]
        s.run(bad, 200 * ms_, err="smtp: 550 mailbox unavailable")
        s.at(s.clock + dt.timedelta(minutes=6))
    ids["emails_failed"] = bad

    # 11:40 - a webhook fails once; its 2 h backoff runs past NOW: SCHEDULED, attempts=1.
    s.at(NOW - dt.timedelta(minutes=20))
    sr = s.add("webhooks", [{"URL": "https://hooks.example.com/flaky", "Event": "order.paid"}])[0]
    assert s.fetch(1) == [sr]
    s.run(sr, 2 * 1000 * ms_, err="webhook: 503 Service Unavailable")
    ids["scheduled_retry"] = sr

    # 11:46 - a worker claims two tasks and dies: at NOW the claims are older
    # than ReleaseAfter (LOCKED-expired, selectable again).
    s.at(NOW - dt.timedelta(minutes=14))
    dead = s.add("webhooks", [{"URL": "https://hooks.example.com/slow", "Event": "export"},
                              {"URL": "https://hooks.example.com/slow2", "Event": "export"}])
    assert s.fetch(2) == dead
    ids["locked_expired"] = dead

    # 11:55 - tasks claimed by live workers (LOCKED at NOW: claimed 5 min ago).
    s.at(NOW - dt.timedelta(minutes=5))
    live = s.add("emails", [{"To": "ops@example.com", "Subject": "Digest %d" % i, "Body": "…"} for i in range(2)])
    live += s.add("reports", [{"Report": "inventory", "Month": "2026-11"}])
    assert s.fetch(3) == live
    ids["locked_live"] = live

    # Webhook w[2] failed once at about 09:05 with a 2 h backoff, so it became
    # due at about 11:05 and was never fetched again: READY with attempts=1.
    ids["ready_retry"] = w[2]

    # Due and never claimed (READY), and delayed ones (SCHEDULED).
    s.at(NOW - dt.timedelta(minutes=2))
    ids["ready"] = s.add("emails", [{"To": "late%d@example.com" % i, "Subject": "Hello", "Body": "…"} for i in range(3)])
    ids["ready"] += s.add("webhooks", [{"URL": "https://hooks.example.com/due", "Event": "ping"}],
                          wait=dt.timedelta(minutes=1))
    ids["scheduled"] = s.add("emails", [{"To": "tomorrow@example.com", "Subject": "Reminder", "Body": "…"}],
                             wait=dt.timedelta(hours=20))
    ids["scheduled"] += s.add("reports", [{"Report": "year-end", "Month": "2026-12"}], wait=dt.timedelta(days=31))
    assert s.clock < NOW
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    print(json.dumps({"now": NOW.isoformat(), "now_ms": ms(NOW), "fake_clock_end": s.clock.isoformat(),
                      "ids": ids}, indent=1))


if __name__ == "__main__":
    main()
