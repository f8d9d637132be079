#!/usr/bin/env python3
"""Write tests/data/formats/solid-queue.sqlite3: a Solid Queue database.

Solid Queue (Ruby >= 3.2, Rails >= 7.1) cannot run on Debian 12 (Rails 6.1,
no RubyGems access). This script reproduces it from rails/solid_queue@
29e818d9c1181195736ffc5d7c1d1c03757b7752 (1.5.0+):

* tables, columns, indexes and the six cascading foreign keys of
  `lib/generators/solid_queue/install/templates/db/queue_schema.rb`, rendered
  the way the Rails SQLite adapter renders them (datetime(6), varchar,
  `id integer PRIMARY KEY AUTOINCREMENT NOT NULL`, FK names
  `fk_rails_` + sha256("<table>_job_id_fk")[:10], i.e. Rails'
  foreign_key_name). Here the app follows the README's single-database
  setup: the schema is copied into an ordinary app migration, so the file also
  holds the app's `users` table and `schema_migrations` has app versions.
* rows follow the model code at the same commit:
  `app/models/solid_queue/job.rb` + `job/{executable,schedulable,concurrency_controls,retryable}.rb`
  (enqueue: job row, then ready / scheduled / semaphore -> ready or blocked),
  `ready_execution.rb` + `execution/dispatching.rb` (claim: select by priority, job_id;
  insert claimed rows; delete ready rows), `claimed_execution.rb` (finished: finished_at
  + updated_at, delete claim; failed_with: failed row with the error JSON of
  `failed_execution.rb`), `scheduled_execution.rb` (dispatch due rows), `semaphore.rb`
  (value / expires_at), `process.rb` + `processes/registrable.rb` (process rows,
  heartbeats), `recurring_execution.rb`, `pause.rb`. Active Job `retry_on`
  re-enqueues a new job row with the same active_job_id and executions + 1.
* times: UTC, Rails `quoted_date` -> `YYYY-MM-DD HH:MM:SS.ffffff`, fraction dropped
  when the microseconds are 0. Fixed fake clock: facts are valid at NOW.
* PRAGMA foreign_keys=ON on the writing connection, as Rails does.

Usage: python3 make_solid_queue.py OUT.sqlite3
"""
import datetime as dt
import hashlib
import json
import os
import random
import sqlite3
import sys
import uuid

UTC = dt.timezone.utc
NOW = dt.datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


def fk(table):
    return "fk_rails_" + hashlib.sha256((table + "_job_id_fk").encode()).hexdigest()[:10]


def exec_table(name, cols):
    return ('CREATE TABLE "%s" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, %s, CONSTRAINT "%s" FOREIGN KEY ("job_id") '
            'REFERENCES "solid_queue_jobs" ("id") ON DELETE CASCADE)' % (name, cols, fk(name)))


DDL = [
    'CREATE TABLE "schema_migrations" ("version" varchar NOT NULL PRIMARY KEY)',
    'CREATE TABLE "ar_internal_metadata" ("key" varchar NOT NULL PRIMARY KEY, "value" varchar, "created_at" datetime(6) NOT NULL, "updated_at" datetime(6) NOT NULL)',
    # the application's own table
    'CREATE TABLE "users" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "email_address" varchar NOT NULL, "password_digest" varchar NOT NULL, "created_at" datetime(6) NOT NULL, "updated_at" datetime(6) NOT NULL)',
    'CREATE UNIQUE INDEX "index_users_on_email_address" ON "users" ("email_address")',
    # queue_schema.rb
    'CREATE TABLE "solid_queue_jobs" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "queue_name" varchar NOT NULL, "class_name" varchar NOT NULL, "arguments" text, "priority" integer DEFAULT 0 NOT NULL, "active_job_id" varchar, "scheduled_at" datetime(6), "finished_at" datetime(6), "concurrency_key" varchar, "created_at" datetime(6) NOT NULL, "updated_at" datetime(6) NOT NULL)',
    'CREATE INDEX "index_solid_queue_jobs_on_active_job_id" ON "solid_queue_jobs" ("active_job_id")',
    'CREATE INDEX "index_solid_queue_jobs_on_class_name" ON "solid_queue_jobs" ("class_name")',
    'CREATE INDEX "index_solid_queue_jobs_on_finished_at" ON "solid_queue_jobs" ("finished_at")',
    'CREATE INDEX "index_solid_queue_jobs_for_filtering" ON "solid_queue_jobs" ("queue_name", "finished_at")',
    'CREATE INDEX "index_solid_queue_jobs_for_alerting" ON "solid_queue_jobs" ("scheduled_at", "finished_at")',
    exec_table("solid_queue_blocked_executions", '"job_id" bigint NOT NULL, "queue_name" varchar NOT NULL, "priority" integer DEFAULT 0 NOT NULL, "concurrency_key" varchar NOT NULL, "expires_at" datetime(6) NOT NULL, "created_at" datetime(6) NOT NULL'),
    'CREATE INDEX "index_solid_queue_blocked_executions_for_release" ON "solid_queue_blocked_executions" ("concurrency_key", "priority", "job_id")',
    'CREATE INDEX "index_solid_queue_blocked_executions_for_maintenance" ON "solid_queue_blocked_executions" ("expires_at", "concurrency_key")',
    'CREATE UNIQUE INDEX "index_solid_queue_blocked_executions_on_job_id" ON "solid_queue_blocked_executions" ("job_id")',
    exec_table("solid_queue_claimed_executions", '"job_id" bigint NOT NULL, "process_id" bigint, "created_at" datetime(6) NOT NULL'),
    'CREATE UNIQUE INDEX "index_solid_queue_claimed_executions_on_job_id" ON "solid_queue_claimed_executions" ("job_id")',
    'CREATE INDEX "index_solid_queue_claimed_executions_on_process_id_and_job_id" ON "solid_queue_claimed_executions" ("process_id", "job_id")',
    exec_table("solid_queue_failed_executions", '"job_id" bigint NOT NULL, "error" text, "created_at" datetime(6) NOT NULL'),
    'CREATE UNIQUE INDEX "index_solid_queue_failed_executions_on_job_id" ON "solid_queue_failed_executions" ("job_id")',
    'CREATE TABLE "solid_queue_pauses" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "queue_name" varchar NOT NULL, "created_at" datetime(6) NOT NULL)',
    'CREATE UNIQUE INDEX "index_solid_queue_pauses_on_queue_name" ON "solid_queue_pauses" ("queue_name")',
    'CREATE TABLE "solid_queue_processes" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "kind" varchar NOT NULL, "last_heartbeat_at" datetime(6) NOT NULL, "supervisor_id" bigint, "pid" integer NOT NULL, "hostname" varchar, "metadata" text, "created_at" datetime(6) NOT NULL, "name" varchar NOT NULL)',
    'CREATE INDEX "index_solid_queue_processes_on_last_heartbeat_at" ON "solid_queue_processes" ("last_heartbeat_at")',
    'CREATE UNIQUE INDEX "index_solid_queue_processes_on_name_and_supervisor_id" ON "solid_queue_processes" ("name", "supervisor_id")',
    'CREATE INDEX "index_solid_queue_processes_on_supervisor_id" ON "solid_queue_processes" ("supervisor_id")',
    exec_table("solid_queue_ready_executions", '"job_id" bigint NOT NULL, "queue_name" varchar NOT NULL, "priority" integer DEFAULT 0 NOT NULL, "created_at" datetime(6) NOT NULL'),
    'CREATE UNIQUE INDEX "index_solid_queue_ready_executions_on_job_id" ON "solid_queue_ready_executions" ("job_id")',
    'CREATE INDEX "index_solid_queue_poll_all" ON "solid_queue_ready_executions" ("priority", "job_id")',
    'CREATE INDEX "index_solid_queue_poll_by_queue" ON "solid_queue_ready_executions" ("queue_name", "priority", "job_id")',
    exec_table("solid_queue_recurring_executions", '"job_id" bigint NOT NULL, "task_key" varchar NOT NULL, "run_at" datetime(6) NOT NULL, "created_at" datetime(6) NOT NULL'),
    'CREATE UNIQUE INDEX "index_solid_queue_recurring_executions_on_job_id" ON "solid_queue_recurring_executions" ("job_id")',
    'CREATE UNIQUE INDEX "index_solid_queue_recurring_executions_on_task_key_and_run_at" ON "solid_queue_recurring_executions" ("task_key", "run_at")',
    'CREATE TABLE "solid_queue_recurring_tasks" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "key" varchar NOT NULL, "schedule" varchar NOT NULL, "command" varchar(2048), "class_name" varchar, "arguments" text, "queue_name" varchar, "priority" integer DEFAULT 0, "static" boolean DEFAULT 1 NOT NULL, "description" text, "created_at" datetime(6) NOT NULL, "updated_at" datetime(6) NOT NULL)',
    'CREATE UNIQUE INDEX "index_solid_queue_recurring_tasks_on_key" ON "solid_queue_recurring_tasks" ("key")',
    'CREATE INDEX "index_solid_queue_recurring_tasks_on_static" ON "solid_queue_recurring_tasks" ("static")',
    exec_table("solid_queue_scheduled_executions", '"job_id" bigint NOT NULL, "queue_name" varchar NOT NULL, "priority" integer DEFAULT 0 NOT NULL, "scheduled_at" datetime(6) NOT NULL, "created_at" datetime(6) NOT NULL'),
    'CREATE UNIQUE INDEX "index_solid_queue_scheduled_executions_on_job_id" ON "solid_queue_scheduled_executions" ("job_id")',
    'CREATE INDEX "index_solid_queue_dispatch_all" ON "solid_queue_scheduled_executions" ("scheduled_at", "priority", "job_id")',
    'CREATE TABLE "solid_queue_semaphores" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "key" varchar NOT NULL, "value" integer DEFAULT 1 NOT NULL, "expires_at" datetime(6) NOT NULL, "created_at" datetime(6) NOT NULL, "updated_at" datetime(6) NOT NULL)',
    'CREATE INDEX "index_solid_queue_semaphores_on_expires_at" ON "solid_queue_semaphores" ("expires_at")',
    'CREATE INDEX "index_solid_queue_semaphores_on_key_and_value" ON "solid_queue_semaphores" ("key", "value")',
    'CREATE UNIQUE INDEX "index_solid_queue_semaphores_on_key" ON "solid_queue_semaphores" ("key")',
]


def q(t):
    """Rails quoted_date for a UTC time: microseconds only when non-zero."""
    s = t.strftime("%Y-%m-%d %H:%M:%S")
    return s + (".%06d" % t.microsecond if t.microsecond else "")


def iso9(t):
    """Active Job's Time#iso8601(9) for enqueued_at / scheduled_at."""
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%06d000Z" % t.microsecond


class SQ:
    def __init__(self, db, rng):
        self.db, self.rng = db, rng
        self.clock = NOW - dt.timedelta(hours=26)

    def now(self):
        self.clock += dt.timedelta(microseconds=self.rng.randint(200, 4000))
        return self.clock

    def at(self, t):
        assert t >= self.clock, (t, self.clock)
        self.clock = t

    def uuid(self):
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    # --- Active Job + Job.enqueue (job.rb, executable.rb) ---
    def enqueue(self, job_class, queue, args, wait=None, priority=0, concurrency=None,
                active_job_id=None, executions=0, exception_executions=None, class_name=None):
        t = self.now()
        sched = t + wait if wait else None
        aj_id = active_job_id or self.uuid()
        arguments = {"job_class": job_class, "job_id": aj_id, "provider_job_id": None, "queue_name": queue,
                     "priority": priority or None, "arguments": args, "executions": executions,
                     "exception_executions": exception_executions or {}, "locale": "en", "timezone": "UTC",
                     "enqueued_at": iso9(t), "scheduled_at": iso9(sched) if sched else None}
        ck = concurrency[0] if concurrency else None
        self.db.execute("BEGIN")
        cur = self.db.execute(
            'INSERT INTO "solid_queue_jobs" ("queue_name", "class_name", "arguments", "priority", "active_job_id", '
            '"scheduled_at", "finished_at", "concurrency_key", "created_at", "updated_at") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
            (queue, class_name or job_class, json.dumps(arguments, separators=(",", ":")), priority, aj_id,
             q(sched or t), None, ck, q(t), q(t)))
        jid = cur.lastrowid
        if sched and sched > t:
            self.db.execute('INSERT INTO "solid_queue_scheduled_executions" ("job_id", "queue_name", "priority", '
                            '"scheduled_at", "created_at") VALUES (?, ?, ?, ?, ?)', (jid, queue, priority, q(sched), q(t)))
        else:
            self._dispatch(jid, queue, priority, ck, concurrency, t)
        self.db.execute("COMMIT")
        return jid

    def _dispatch(self, jid, queue, priority, ck, concurrency, t):
        """Job#dispatch -> acquire_concurrency_lock (Semaphore.wait) -> ready, else block."""
        if ck:
            limit, duration = concurrency[1], concurrency[2]
            row = self.db.execute('SELECT "id", "value" FROM "solid_queue_semaphores" WHERE "key" = ?', (ck,)).fetchone()
            if row is None:
                self.db.execute('INSERT INTO "solid_queue_semaphores" ("key", "value", "expires_at", "created_at", "updated_at") '
                                'VALUES (?, ?, ?, ?, ?)', (ck, limit - 1, q(t + duration), q(t), q(t)))
            elif row[1] > 0:
                self.db.execute('UPDATE "solid_queue_semaphores" SET "value" = "value" - 1, "expires_at" = ?, "updated_at" = ? '
                                'WHERE "key" = ? AND "value" > 0', (q(t + duration), q(t), ck))
            else:
                self.db.execute('INSERT INTO "solid_queue_blocked_executions" ("job_id", "queue_name", "priority", '
                                '"concurrency_key", "expires_at", "created_at") VALUES (?, ?, ?, ?, ?, ?)',
                                (jid, queue, priority, ck, q(t + duration), q(t)))
                return
        self.db.execute('INSERT INTO "solid_queue_ready_executions" ("job_id", "queue_name", "priority", "created_at") '
                        'VALUES (?, ?, ?, ?)', (jid, queue, priority, q(t)))

    # --- Dispatcher: ScheduledExecution.dispatch_next_batch ---
    def dispatch_due(self):
        t = self.now()
        self.db.execute("BEGIN")
        rows = self.db.execute('SELECT "job_id", "queue_name", "priority" FROM "solid_queue_scheduled_executions" '
                               'WHERE "scheduled_at" <= ? ORDER BY "scheduled_at", "priority", "job_id" LIMIT 500', (q(t),)).fetchall()
        for jid, queue, prio in rows:
            self.db.execute('INSERT INTO "solid_queue_ready_executions" ("job_id", "queue_name", "priority", "created_at") '
                            'VALUES (?, ?, ?, ?)', (jid, queue, prio, q(t)))
            self.db.execute('DELETE FROM "solid_queue_scheduled_executions" WHERE "job_id" = ?', (jid,))
        self.db.execute("COMMIT")
        return [r[0] for r in rows]

    # --- Worker: ReadyExecution.claim ---
    def claim(self, queues, limit, process_id):
        t = self.now()
        self.db.execute("BEGIN")
        ph = ",".join("?" * len(queues))
        paused = [r[0] for r in self.db.execute('SELECT "queue_name" FROM "solid_queue_pauses"')]
        qs = [x for x in queues if x not in paused]
        rows = self.db.execute('SELECT "id", "job_id" FROM "solid_queue_ready_executions" WHERE "queue_name" IN (%s) '
                               'ORDER BY "priority" ASC, "job_id" ASC LIMIT ?' % ",".join("?" * len(qs)),
                               (*qs, limit)).fetchall() if qs else []
        for _, jid in rows:
            self.db.execute('INSERT INTO "solid_queue_claimed_executions" ("job_id", "process_id", "created_at") '
                            'VALUES (?, ?, ?)', (jid, process_id, q(t)))
        if rows:
            self.db.execute('DELETE FROM "solid_queue_ready_executions" WHERE "id" IN (%s)' % ",".join("?" * len(rows)),
                            [r[0] for r in rows])
        self.db.execute("COMMIT")
        return [r[1] for r in rows]

    def _unblock(self, ck, concurrency):
        """Semaphore.signal + BlockedExecution.release_one after a finished/failed claim."""
        if not ck:
            return
        t = self.now()
        limit, duration = concurrency[1], concurrency[2]
        self.db.execute('UPDATE "solid_queue_semaphores" SET "value" = "value" + 1, "expires_at" = ?, "updated_at" = ? '
                        'WHERE "key" = ? AND "value" < ?', (q(t + duration), q(t), ck, limit))
        row = self.db.execute('SELECT "job_id", "queue_name", "priority" FROM "solid_queue_blocked_executions" '
                              'WHERE "concurrency_key" = ? ORDER BY "priority", "job_id" LIMIT 1', (ck,)).fetchone()
        if row:
            self.db.execute("BEGIN")
            self.db.execute('UPDATE "solid_queue_semaphores" SET "value" = "value" - 1, "expires_at" = ?, "updated_at" = ? '
                            'WHERE "key" = ? AND "value" > 0', (q(t + duration), q(t), ck))
            self.db.execute('INSERT INTO "solid_queue_ready_executions" ("job_id", "queue_name", "priority", "created_at") '
                            'VALUES (?, ?, ?, ?)', (row[0], row[1], row[2], q(t)))
            self.db.execute('DELETE FROM "solid_queue_blocked_executions" WHERE "job_id" = ?', (row[0],))
            self.db.execute("COMMIT")

    # --- ClaimedExecution#perform -> finished / failed_with ---
    def finish(self, jid, took, concurrency=None):
        self.clock += took
        t = self.now()
        self.db.execute("BEGIN")
        self.db.execute('UPDATE "solid_queue_jobs" SET "finished_at" = ?, "updated_at" = ? WHERE "id" = ?', (q(t), q(t), jid))
        self.db.execute('DELETE FROM "solid_queue_claimed_executions" WHERE "job_id" = ?', (jid,))
        self.db.execute("COMMIT")
        ck = self.db.execute('SELECT "concurrency_key" FROM "solid_queue_jobs" WHERE "id" = ?', (jid,)).fetchone()[0]
        self._unblock(ck, concurrency)

    def fail(self, jid, took, exc_class, message, backtrace, concurrency=None):
        self.clock += took
        t = self.now()
        err = json.dumps({"exception_class": exc_class, "message": message, "backtrace": backtrace}, separators=(",", ":"))
        self.db.execute("BEGIN")
        self.db.execute('INSERT INTO "solid_queue_failed_executions" ("job_id", "error", "created_at") VALUES (?, ?, ?)',
                        (jid, err, q(t)))
        self.db.execute('DELETE FROM "solid_queue_claimed_executions" WHERE "job_id" = ?', (jid,))
        self.db.execute("COMMIT")
        ck = self.db.execute('SELECT "concurrency_key" FROM "solid_queue_jobs" WHERE "id" = ?', (jid,)).fetchone()[0]
        self._unblock(ck, concurrency)

    def process(self, kind, name, pid, metadata, supervisor_id=None):
        t = self.now()
        cur = self.db.execute('INSERT INTO "solid_queue_processes" ("kind", "last_heartbeat_at", "supervisor_id", "pid", '
                              '"hostname", "metadata", "created_at", "name") VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
                              (kind, q(t), supervisor_id, pid, "app-1.internal", json.dumps(metadata, separators=(",", ":")), q(t), name))
        return cur.lastrowid

    def heartbeat(self, pids):
        t = self.now()
        for p in pids:
            self.db.execute('UPDATE "solid_queue_processes" SET "last_heartbeat_at" = ? WHERE "id" = ?', (q(t), p))

    def job_args(self, jid):
        return json.loads(self.db.execute('SELECT "arguments" FROM "solid_queue_jobs" WHERE "id" = ?', (jid,)).fetchone()[0])


def mail(user_id, mailer="UserMailer", action="welcome"):
    return [mailer, action, "deliver_now", {"args": [{"_aj_globalid": "gid://shop/User/%d" % user_id}], "_aj_ruby2_keywords": ["args"]}]


BT = ["app/jobs/sync_inventory_job.rb:14:in 'SyncInventoryJob#perform'",
      "activejob (8.1.1) lib/active_job/execution.rb:68:in 'block in ActiveJob::Execution#_perform_job'",
      "solid_queue (1.5.0) app/models/solid_queue/claimed_execution.rb:94:in 'SolidQueue::ClaimedExecution#execute'"]


def main():
    out = sys.argv[1]
    for s in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(out + s):
            os.remove(out + s)
    db = sqlite3.connect(out, isolation_level=None)
    # The schema has 45 tables and indexes, one page each at least; with SQLite's
    # default 4096-byte pages the file would exceed the 200 KB fixture budget, so
    # this file uses 2048-byte pages (page size is not part of the format).
    db.execute("PRAGMA page_size=2048")
    # Rails 8's SQLite adapter defaults: WAL, foreign keys on.
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA foreign_keys=ON")
    for d in DDL:
        db.execute(d)
    s = SQ(db, random.Random(29))
    t0 = s.clock
    db.execute('INSERT INTO "schema_migrations" ("version") VALUES (?), (?)', ("20261001120000", "20261102091500"))
    db.execute('INSERT INTO "ar_internal_metadata" ("key", "value", "created_at", "updated_at") VALUES (?, ?, ?, ?)',
               ("environment", "production", q(t0 - dt.timedelta(days=60)), q(t0 - dt.timedelta(days=60))))
    for i, em in enumerate(["ana@example.com", "bo@example.com", "chen@example.com", "dara@example.com"], 1):
        tt = t0 - dt.timedelta(days=40 - i, seconds=i * 37)
        db.execute('INSERT INTO "users" ("email_address", "password_digest", "created_at", "updated_at") VALUES (?, ?, ?, ?)',
                   (em, "$2a$12$" + "k" * 53, q(tt), q(tt)))
    db.execute('INSERT INTO "solid_queue_recurring_tasks" ("key", "schedule", "command", "class_name", "arguments", "queue_name", '
               '"priority", "static", "description", "created_at", "updated_at") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
               ("clear_solid_queue_finished_jobs", "every hour at minute 12",
                "SolidQueue::Job.clear_finished_in_batches(sleep_between_batches: 0.3)", None, None, None, 0, 1, None, q(t0), q(t0)))

    ids = {}
    # Processes: the live supervisor with a worker and a dispatcher; plus a worker of a
    # crashed supervisor whose heartbeat stopped 10 min before NOW (stale > 5 min).
    sup = s.process("Supervisor(fork)", "supervisor-" + "%020x" % s.rng.getrandbits(80), 4101, {})
    worker = s.process("Worker", "worker-" + "%020x" % s.rng.getrandbits(80), 4107,
                       {"polling_interval": 0.1, "queues": "*", "thread_pool_size": 3}, sup)
    disp = s.process("Dispatcher", "dispatcher-" + "%020x" % s.rng.getrandbits(80), 4104,
                     {"polling_interval": 1, "batch_size": 500, "concurrency_maintenance_interval": 600}, sup)
    old_sup = s.process("Supervisor(fork)", "supervisor-" + "%020x" % s.rng.getrandbits(80), 3990, {})
    stale = s.process("Worker", "worker-" + "%020x" % s.rng.getrandbits(80), 3995,
                      {"polling_interval": 0.1, "queues": "reports", "thread_pool_size": 1}, old_sup)
    ids["process_live_worker"], ids["process_stale_worker"] = worker, stale

    # Yesterday: finished jobs (kept: preserve_finished_jobs), one recurring run.
    for u in (1, 2, 3):
        j = s.enqueue("ActionMailer::MailDeliveryJob", "mailers", mail(u))
        assert s.claim(["mailers"], 1, worker) == [j]
        s.finish(j, dt.timedelta(milliseconds=180 + 40 * u))
    run_at = dt.datetime(2026, 11, 29, 11, 12, 0, tzinfo=UTC)
    s.at(run_at)
    # RecurringTask#enqueue_and_record: SolidQueue::RecurringJob (queue_as :solid_queue_recurring)
    # with the command as its argument, then the recurring_executions row
    rj = s.enqueue("SolidQueue::RecurringJob", "solid_queue_recurring",
                   ["SolidQueue::Job.clear_finished_in_batches(sleep_between_batches: 0.3)"])
    db.execute('INSERT INTO "solid_queue_recurring_executions" ("job_id", "task_key", "run_at", "created_at") VALUES (?, ?, ?, ?)',
               (rj, "clear_solid_queue_finished_jobs", q(run_at), q(s.now())))
    assert s.claim(["solid_queue_recurring"], 1, worker) == [rj]
    s.finish(rj, dt.timedelta(milliseconds=35))
    ids["finished_recurring"] = rj

    # Today 09:00: retry_on - first execution raises, Active Job enqueues a new row
    # (same active_job_id, executions 1, wait 3 s), the first claim completes normally.
    s.at(NOW - dt.timedelta(hours=3))
    a1 = s.enqueue("SyncInventoryJob", "default", [{"_aj_globalid": "gid://shop/Warehouse/7"}])
    assert s.claim(["default"], 1, worker) == [a1]
    aj = s.job_args(a1)["job_id"]
    a2 = s.enqueue("SyncInventoryJob", "default", [{"_aj_globalid": "gid://shop/Warehouse/7"}], wait=dt.timedelta(seconds=3),
                   active_job_id=aj, executions=1, exception_executions={"[Net::ReadTimeout]": 1})
    s.finish(a1, dt.timedelta(seconds=2))
    s.at(s.clock + dt.timedelta(seconds=4))
    assert s.dispatch_due() == [a2]
    assert s.claim(["default"], 1, worker) == [a2]
    s.finish(a2, dt.timedelta(seconds=1, microseconds=250000))
    ids["retry_on_pair_same_active_job_id"] = [a1, a2]

    # 09:30 failed jobs (unhandled error -> failed_executions; finished_at stays NULL).
    s.at(NOW - dt.timedelta(hours=2, minutes=30))
    f1 = s.enqueue("SyncInventoryJob", "default", [{"_aj_globalid": "gid://shop/Warehouse/9"}])
    f2 = s.enqueue("GenerateReportJob", "reports", ["monthly", "2026-10"], priority=5)
    assert s.claim(["default", "reports"], 2, worker) == [f1, f2]
    s.fail(f1, dt.timedelta(seconds=1), "ActiveRecord::RecordNotFound", "Couldn't find Warehouse with 'id'=9", BT)
    s.fail(f2, dt.timedelta(seconds=3), "Errno::ENOSPC", "No space left on device @ rb_sysopen - /tmp/report-2026-10.pdf",
           ["app/jobs/generate_report_job.rb:22:in 'File.open'"])
    ids["failed"] = [f1, f2]

    # 10:00 concurrency-limited jobs (limits_concurrency to: 1, key: account, duration: 3 h):
    # the first is claimed and keeps running on the live worker, two others are BLOCKED.
    s.at(NOW - dt.timedelta(hours=2))
    conc = ("ImportContactsJob/account-42", 1, dt.timedelta(hours=3))
    c1 = s.enqueue("ImportContactsJob", "default", [{"_aj_globalid": "gid://shop/Account/42"}], concurrency=conc)
    c2 = s.enqueue("ImportContactsJob", "default", [{"_aj_globalid": "gid://shop/Account/42"}, {"file": "b.csv"}], concurrency=conc)
    c3 = s.enqueue("ImportContactsJob", "default", [{"_aj_globalid": "gid://shop/Account/42"}, {"file": "c.csv"}], concurrency=conc)
    ids["blocked"] = [c2, c3]

    # 11:50 the stale worker claimed a report shortly before its heartbeat stopped.
    s.at(NOW - dt.timedelta(minutes=11))
    r1 = s.enqueue("GenerateReportJob", "reports", ["weekly", "2026-W48"], priority=5)
    assert s.claim(["reports"], 1, stale) == [r1]
    s.heartbeat([stale])                                      # last heartbeat: NOW - ~11 min
    ids["claimed_stale_process"] = r1
    # A claim whose process row is gone (the supervisor fails it with ProcessMissingError at
    # its next boot): a second worker of the crashed supervisor claims, then its process row
    # disappears without its claims being handled (simulated with a plain DELETE).
    gone = s.process("Worker", "worker-" + "%020x" % s.rng.getrandbits(80), 3996,
                     {"polling_interval": 0.1, "queues": "reports", "thread_pool_size": 1}, old_sup)
    r2 = s.enqueue("GenerateReportJob", "reports", ["weekly", "2026-W47"], priority=5)
    assert s.claim(["reports"], 1, gone) == [r2]
    db.execute('DELETE FROM "solid_queue_processes" WHERE "id" = ?', (gone,))
    ids["claimed_missing_process"] = r2
    ids["missing_process_id"] = gone

    # 11:59 live claims on the live worker (plus c1 from 10:00).
    s.at(NOW - dt.timedelta(minutes=1))
    m = [s.enqueue("ActionMailer::MailDeliveryJob", "mailers", mail(u, action="receipt")) for u in (1, 2, 3, 4)]
    claimed = s.claim(["default", "mailers"], 3, worker)
    assert claimed[0] == c1, claimed
    ids["claimed_live"] = claimed
    # Pause the reports queue (its ready job is READY but not claimed), then new ready + scheduled work.
    db.execute('INSERT INTO "solid_queue_pauses" ("queue_name", "created_at") VALUES (?, ?)', ("reports", q(s.now())))
    ids["ready"] = [x for x in m if x not in claimed]
    ids["ready"].append(s.enqueue("GenerateReportJob", "reports", ["daily", "2026-11-29"], priority=5))
    ids["ready"].append(s.enqueue("SyncInventoryJob", "default", [{"_aj_globalid": "gid://shop/Warehouse/3"}]))
    ids["scheduled"] = [
        s.enqueue("ActionMailer::MailDeliveryJob", "mailers", mail(2, action="trial_ending"), wait=dt.timedelta(days=3)),
        s.enqueue("SyncInventoryJob", "default", [{"_aj_globalid": "gid://shop/Warehouse/3"}], wait=dt.timedelta(minutes=30), priority=10),
    ]
    # Due but not yet moved by the dispatcher (scheduled_at <= NOW): FORMATS shows it as READY.
    ids["scheduled_but_due"] = s.enqueue("ActionMailer::MailDeliveryJob", "mailers", mail(4, action="reminder"),
                                         wait=dt.timedelta(seconds=20))
    s.heartbeat([sup, worker, disp])
    assert s.clock < NOW, s.clock
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    print(json.dumps({"now": NOW.isoformat(), "fake_clock_end": s.clock.isoformat(), "ids": ids}, indent=1))


if __name__ == "__main__":
    main()
