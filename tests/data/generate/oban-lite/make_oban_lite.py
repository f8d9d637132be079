#!/usr/bin/env python3
"""Write tests/data/formats/oban-lite.sqlite3: an Oban (Oban.Engines.Lite) database.

Oban needs Elixir >= 1.15 and Hex; Debian 12 has Elixir 1.14 and no Hex access.
This script reproduces it from oban-bg/oban@2939e3134d0812195fbfcfe9a8e8d4bbd30bb23b
(2.23.0):

* table and index: `lib/oban/migrations/sqlite.ex` (version 1) as ecto_sqlite3
  renders it (bigserial PK -> INTEGER PRIMARY KEY AUTOINCREMENT, :json -> JSON,
  :utc_datetime_usec -> TEXT, the 2.20.3+ defaults
  `(strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))`), inside an app database with Ecto's
  `schema_migrations` and an app table;
* statements: `lib/oban/engines/lite.ex` - insert (Ecto inserts only non-nil fields,
  so `inserted_at` and immediate `scheduled_at` come from the column default),
  fetch_jobs (UPDATE ... SET state='executing', attempted_at, attempted_by=[node],
  attempt+1 WHERE id IN (SELECT ... ORDER BY priority, scheduled_at, id LIMIT demand)),
  stage_jobs, complete (basic.ex), error_job (retryable, scheduled_at = now + backoff,
  errors = json_insert(errors, '$[#]', ?)), discard_job, cancel_job, snooze,
  retry_job (Oban Web "Retry"); backoff from `lib/oban/worker.ex` (15 + 2^attempt s,
  jitter up to 10 %, seeded here).
* Errors are appended with json_insert and the encoded error bound as TEXT, which
  stores each entry as a JSON *string* holding the encoded object (double encoding).
* Ecto-written times: `2026-11-30T10:00:01.234567Z` (ecto_sqlite3 :iso8601).

Clock: fixed fake clock. Ecto-bound times use it directly; the column defaults use
SQLite's 'now', which this script redirects to the same fake clock by overriding
strftime() on its connection (an application-defined function replaces the
built-in), so `inserted_at` is consistent with the rest. Facts are valid at NOW.

Usage: python3 make_oban_lite.py OUT.sqlite3
"""
import datetime as dt
import json
import os
import random
import sqlite3
import sys

UTC = dt.timezone.utc
NOW = dt.datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
NODE = "app@app-1"

DDL = [
    'CREATE TABLE IF NOT EXISTS "schema_migrations" ("version" INTEGER PRIMARY KEY, "inserted_at" TEXT)',
    'CREATE TABLE "accounts" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "email" TEXT NOT NULL, "plan" TEXT DEFAULT \'free\' NOT NULL, '
    '"inserted_at" TEXT NOT NULL, "updated_at" TEXT NOT NULL)',
    'CREATE UNIQUE INDEX "accounts_email_index" ON "accounts" ("email")',
    'CREATE TABLE IF NOT EXISTS "oban_jobs" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "state" TEXT DEFAULT \'available\' NOT NULL, '
    '"queue" TEXT DEFAULT \'default\' NOT NULL, "worker" TEXT NOT NULL, "args" JSON DEFAULT (\'{}\') NOT NULL, '
    '"meta" JSON DEFAULT (\'{}\') NOT NULL, "tags" JSON DEFAULT (\'[]\') NOT NULL, "errors" JSON DEFAULT (\'[]\') NOT NULL, '
    '"attempt" INTEGER DEFAULT 0 NOT NULL, "max_attempts" INTEGER DEFAULT 20 NOT NULL, "priority" INTEGER DEFAULT 0 NOT NULL, '
    '"inserted_at" TEXT DEFAULT (strftime(\'%Y-%m-%dT%H:%M:%SZ\', \'now\')) NOT NULL, '
    '"scheduled_at" TEXT DEFAULT (strftime(\'%Y-%m-%dT%H:%M:%SZ\', \'now\')) NOT NULL, "attempted_at" TEXT, '
    '"attempted_by" JSON DEFAULT (\'[]\') NOT NULL, "cancelled_at" TEXT, "completed_at" TEXT, "discarded_at" TEXT)',
    'CREATE INDEX IF NOT EXISTS "oban_jobs_state_queue_priority_scheduled_at_id_index" ON "oban_jobs" '
    '("state", "queue", "priority", "scheduled_at", "id")',
]


def ecto(t):
    """ecto_sqlite3 :utc_datetime_usec -> ISO 8601 with 6 digits and Z."""
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Oban:
    def __init__(self, db, rng):
        self.db, self.rng = db, rng
        self.clock = NOW - dt.timedelta(hours=4)
        helper = sqlite3.connect(":memory:")

        def sqlite_now():
            t = self.clock
            return t.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (t.microsecond // 1000)

        def strftime(fmt, *args):
            args = [sqlite_now() if a == "now" else a for a in args] or [sqlite_now()]
            return helper.execute("SELECT strftime(?" + ",?" * len(args) + ")", [fmt, *args]).fetchone()[0]
        db.create_function("strftime", -1, strftime)

    def now(self):
        self.clock += dt.timedelta(microseconds=self.rng.randint(150, 3000))
        return self.clock

    def at(self, t):
        assert t >= self.clock
        self.clock = t

    def insert(self, worker, args, queue="default", scheduled_in=None, max_attempts=None, priority=None, tags=None, meta=None):
        cols = {"state": "scheduled" if scheduled_in else "available", "queue": queue, "worker": worker,
                "args": json.dumps(args, separators=(",", ":")), "meta": json.dumps(meta or {}, separators=(",", ":")),
                "tags": json.dumps(tags or [], separators=(",", ":")), "errors": "[]", "attempt": 0,
                "max_attempts": max_attempts or 20}
        if priority is not None:
            cols["priority"] = priority
        t = self.now()
        if scheduled_in:
            cols["scheduled_at"] = ecto(t + scheduled_in)
        sql = 'INSERT INTO "oban_jobs" (%s) VALUES (%s) RETURNING "id"' % (
            ",".join('"%s"' % c for c in cols), ",".join("?" * len(cols)))
        return self.db.execute(sql, list(cols.values())).fetchone()[0]

    def fetch(self, queue, demand):
        t = self.now()
        rows = self.db.execute(
            'UPDATE "oban_jobs" AS o0 SET "state" = ?, "attempted_at" = ?, "attempted_by" = ?, "attempt" = o0."attempt" + ? '
            'WHERE (o0."id" IN (SELECT ss0."id" AS "id" FROM "oban_jobs" AS ss0 WHERE (ss0."state" = \'available\') '
            'AND (ss0."queue" = ?) AND (ss0."attempt" < ss0."max_attempts") '
            'ORDER BY ss0."priority", ss0."scheduled_at", ss0."id" LIMIT ?)) RETURNING "id"',
            ("executing", ecto(t), json.dumps([NODE]), 1, queue, demand)).fetchall()
        return sorted(r[0] for r in rows)

    def stage(self):
        t = self.now()
        ids = [r[0] for r in self.db.execute(
            'SELECT o0."id" FROM "oban_jobs" AS o0 WHERE (o0."state" IN (\'scheduled\',\'retryable\')) '
            'AND (o0."scheduled_at" <= ?) LIMIT ?', (ecto(t), 5000))]
        if ids:
            self.db.execute('UPDATE "oban_jobs" AS o0 SET "state" = ? WHERE (o0."id" IN (SELECT value FROM json_each(?)))',
                            ("available", json.dumps(ids)))
        return ids

    def complete(self, jid, took):
        self.clock += took
        self.db.execute('UPDATE "oban_jobs" AS o0 SET "state" = ?, "completed_at" = ? WHERE (o0."id" = ?)',
                        ("completed", ecto(self.now()), jid))

    def _err(self, jid, message):
        attempt, worker = self.db.execute('SELECT "attempt", "worker" FROM "oban_jobs" WHERE "id" = ?', (jid,)).fetchone()
        # Job.format_attempt: error = Exception.format(kind, blamed, stacktrace), i.e. the
        # "** (Exception) message" line followed by the formatted stack trace
        mod = worker.split(".")[-1].lower()
        message += ("\n    (my_app 0.1.0) lib/my_app/workers/%s.ex:%d: %s.perform/1"
                    "\n    (oban 2.23.0) lib/oban/queue/executor.ex:145: Oban.Queue.Executor.perform/1"
                    "\n    (oban 2.23.0) lib/oban/queue/executor.ex:77: Oban.Queue.Executor.call/1" % (mod, 10 + jid, worker))
        # Job.format_attempt -> %{attempt, at, error}; the JSON encoder writes small maps in key order
        return json.dumps({"at": ecto(self.clock), "attempt": attempt, "error": message}, separators=(",", ":")), attempt

    def error(self, jid, took, message):
        """Executor: attempt < max_attempts -> retryable with backoff, else discarded."""
        self.clock += took
        self.now()
        enc, attempt = self._err(jid, message)
        maxa = self.db.execute('SELECT "max_attempts" FROM "oban_jobs" WHERE "id" = ?', (jid,)).fetchone()[0]
        if attempt >= maxa:
            self.db.execute('UPDATE "oban_jobs" AS o0 SET "state" = ?, "discarded_at" = ?, '
                            '"errors" = json_insert(o0."errors", \'$[#]\', ?) WHERE (o0."id" = ?)',
                            ("discarded", ecto(self.clock), enc, jid))
            return "discarded"
        backoff = 15 + 2 ** attempt
        backoff += self.rng.randint(0, backoff // 10)          # Worker.backoff jitter (up to 10 %)
        self.db.execute('UPDATE "oban_jobs" AS o0 SET "state" = ?, "scheduled_at" = ?, '
                        '"errors" = json_insert(o0."errors", \'$[#]\', ?) WHERE (o0."id" = ?)',
                        ("retryable", ecto(self.clock + dt.timedelta(seconds=backoff)), enc, jid))
        return "retryable"

    def cancel_returned(self, jid, took, reason):
        """perform/1 returned {:cancel, reason}: cancelled with the error appended."""
        self.clock += took
        self.now()
        enc, _ = self._err(jid, reason)
        self.db.execute('UPDATE "oban_jobs" AS o0 SET "state" = ?, "cancelled_at" = ?, '
                        '"errors" = json_insert(o0."errors", \'$[#]\', ?) WHERE (o0."id" = ?)',
                        ("cancelled", ecto(self.clock), enc, jid))

    def web_cancel(self, jid):
        self.db.execute('UPDATE "oban_jobs" AS o0 SET "state" = ?, "cancelled_at" = ? WHERE (o0."id" = ?) '
                        'AND (o0."state" NOT IN (\'cancelled\',\'completed\',\'discarded\'))',
                        ("cancelled", ecto(self.now()), jid))

    def snooze(self, jid, took, seconds):
        self.clock += took
        t = self.now()
        self.db.execute('UPDATE "oban_jobs" AS o0 SET "state" = ?, "scheduled_at" = ?, "attempt" = o0."attempt" - 1, '
                        '"meta" = json_set(o0."meta", \'$.snoozed\', coalesce(json_extract(o0."meta", \'$.snoozed\'), 0) + 1) '
                        'WHERE (o0."id" = ?)', ("scheduled", ecto(t + dt.timedelta(seconds=seconds)), jid))

    def web_retry(self, jid):
        t = self.now()
        self.db.execute('UPDATE "oban_jobs" AS o0 SET "state" = ?, "max_attempts" = max(o0."max_attempts", o0."attempt" + 1), '
                        '"scheduled_at" = ?, "completed_at" = NULL, "cancelled_at" = NULL, "discarded_at" = NULL '
                        'WHERE (o0."id" = ?) AND (o0."state" NOT IN (\'available\',\'executing\'))', ("available", ecto(t), jid))


def main():
    out = sys.argv[1]
    for s in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(out + s):
            os.remove(out + s)
    db = sqlite3.connect(out, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")   # ecto_sqlite3's default journal_mode is :wal
    o = Oban(db, random.Random(223))
    for d in DDL:
        db.execute(d)
    db.execute('INSERT INTO "schema_migrations" ("version", "inserted_at") VALUES (?, ?), (?, ?)',
               (20261001120000, "2026-10-01T12:00:05", 20261102091500, "2026-11-02T09:15:03"))
    for i, em in enumerate(["ana@example.com", "bo@example.com", "chen@example.com"], 1):
        t = ecto(NOW - dt.timedelta(days=30 - i))
        db.execute('INSERT INTO "accounts" ("email", "plan", "inserted_at", "updated_at") VALUES (?, ?, ?, ?)',
                   (em, "pro" if i == 2 else "free", t, t))
    ids = {}
    ms = lambda n: dt.timedelta(milliseconds=n)

    # 08:00 - welcome mails and thumbnails
    mails = [o.insert("MyApp.Workers.Mailer", {"account_id": i, "template": "welcome"}, queue="mailers", tags=["signup"])
             for i in range(1, 7)]
    thumbs = [o.insert("MyApp.Workers.Thumbnail", {"upload_id": 500 + i, "size": "320x240"}, queue="media", max_attempts=3)
              for i in range(1, 5)]
    o.at(NOW - dt.timedelta(hours=3, minutes=55))
    got = o.fetch("mailers", 5)
    for j in got[:4]:
        o.complete(j, ms(90 + j))
    ids["discarded"] = [got[4]]
    o.error(got[4], ms(40), "** (RuntimeError) smtp: 550 mailbox unavailable")          # retryable
    tg = o.fetch("media", 4)
    o.complete(tg[0], ms(800)); o.complete(tg[1], ms(650))
    o.error(tg[2], ms(120), "** (File.Error) could not read file \"/uploads/503.png\": no such file or directory")
    o.cancel_returned(tg[3], ms(30), "** (Oban.PerformError) MyApp.Workers.Thumbnail failed with {:cancel, :upload_deleted}")
    ids["cancelled_by_worker"] = tg[3]
    # thumbnail tg[2] exhausts max_attempts 3 -> discarded
    for _ in range(2):
        o.at(o.clock + dt.timedelta(minutes=1)); o.stage()
        for j in o.fetch("media", 1):
            o.error(j, ms(110), "** (File.Error) could not read file \"/uploads/503.png\": no such file or directory")
    ids["discarded"] = [tg[2]]
    # staging makes the failed mail available again; the next fetch takes the older
    # welcome mail first (order: priority, scheduled_at, id), so it stays available
    o.stage()
    assert o.fetch("mailers", 1) == [mails[5]]
    o.complete(mails[5], ms(95))
    ids["retried_then_executing_live"] = got[4]

    # 09:00 - a job discarded at 2/2 attempts, retried from Oban Web (available again, errors kept)
    o.at(NOW - dt.timedelta(hours=3))
    bad = o.insert("MyApp.Workers.BillingSync", {"account_id": 2}, max_attempts=2, priority=1)
    for k in range(2):
        if k:
            o.at(o.clock + dt.timedelta(seconds=20)); o.stage()
        assert o.fetch("default", 1) == [bad]
        o.error(bad, ms(250), "** (Req.TransportError) connection refused")
    # 10:30 - executing on a node that died: attempted_at 90 min before NOW (Lifeline would rescue after 60 min)
    o.at(NOW - dt.timedelta(minutes=90))
    stuck = o.insert("MyApp.Workers.Thumbnail", {"upload_id": 600, "size": "1024x768"}, queue="media", max_attempts=3)
    assert o.fetch("media", 1) == [stuck]
    ids["executing_stale"] = stuck

    o.at(NOW - dt.timedelta(hours=1))
    o.web_retry(bad)
    ids["available_after_web_retry"] = bad
    # another one discarded and left discarded
    bad2 = o.insert("MyApp.Workers.BillingSync", {"account_id": 3}, max_attempts=1, priority=1)
    assert o.fetch("default", 5) == [bad, bad2]
    o.complete(bad, ms(300))
    o.error(bad2, ms(180), "** (KeyError) key :stripe_id not found in: %{}")
    ids["discarded"].append(bad2)
    ids["completed_after_web_retry"] = bad
    ids.pop("available_after_web_retry")

    # 11:10 - a snoozed job (scheduled, attempt back to 0, meta.snoozed 1) and a scheduled job cancelled in Oban Web
    o.at(NOW - dt.timedelta(minutes=50))
    sn = o.insert("MyApp.Workers.BillingSync", {"account_id": 1})
    assert o.fetch("default", 1) == [sn]
    o.snooze(sn, ms(20), 7200)
    ids["scheduled_snoozed"] = sn
    wc = o.insert("MyApp.Workers.Mailer", {"account_id": 3, "template": "promo"}, queue="mailers", scheduled_in=dt.timedelta(hours=5))
    o.web_cancel(wc)
    ids["cancelled_in_web"] = wc

    # 11:59 - live executing, a fresh retryable (retry after NOW), available and scheduled
    o.at(NOW - dt.timedelta(seconds=40))
    live = [o.insert("MyApp.Workers.Mailer", {"account_id": 4, "template": "receipt"}, queue="mailers", priority=0),
            o.insert("MyApp.Workers.Thumbnail", {"upload_id": 700, "size": "320x240"}, queue="media", max_attempts=3)]
    # (the mailers fetch also takes job got[4], available since its retry was staged)
    ids["executing_live"] = o.fetch("mailers", 2) + o.fetch("media", 1)
    rt = o.insert("MyApp.Workers.BillingSync", {"account_id": 5}, priority=2)
    assert o.fetch("default", 1) == [rt]
    o.error(rt, ms(500), "** (Req.TransportError) timeout")       # backoff 17-18 s: due before NOW, not staged yet
    ids["retryable_due"] = rt
    o.at(NOW - dt.timedelta(seconds=10))
    rf = o.insert("MyApp.Workers.BillingSync", {"account_id": 7}, priority=2)
    assert o.fetch("default", 1) == [rf]
    o.error(rf, ms(200), "** (Req.TransportError) timeout")       # due after NOW
    ids["retryable_future"] = rf
    o.at(NOW - dt.timedelta(seconds=5))
    ids["available"] = [o.insert("MyApp.Workers.Mailer", {"account_id": 5, "template": "welcome"}, queue="mailers", tags=["signup"]),
                        o.insert("MyApp.Workers.BillingSync", {"account_id": 6}, priority=3)]
    ids["scheduled"] = [o.insert("MyApp.Workers.Mailer", {"account_id": 1, "template": "trial_ending"}, queue="mailers",
                                 scheduled_in=dt.timedelta(days=3)),
                        o.insert("MyApp.Workers.Thumbnail", {"upload_id": 800, "size": "320x240"}, queue="media",
                                 scheduled_in=dt.timedelta(minutes=10), max_attempts=3)]
    assert o.clock < NOW
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    print(json.dumps({"now": NOW.isoformat(), "fake_clock_end": o.clock.isoformat(), "ids": ids}, indent=1))


if __name__ == "__main__":
    main()
