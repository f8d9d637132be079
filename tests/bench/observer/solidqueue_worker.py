#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lqbench observer (issue 38): what a Solid Queue worker writes per job,
flat out, and an enqueuer at a fixed rate.

Solid Queue is Ruby and not in Debian, so its statements run from Python's
sqlite3, as tests/stress/formats/solidqueue_stress.py runs them
(docs/FORMATS.md#solid-queue; rails/solid_queue@29e818d9c118
app/models/solid_queue/{ready_execution,claimed_execution,job}.rb), with the
connection settings Rails 8 gives SQLite (foreign_keys on, synchronous
NORMAL, mmap_size 128 MiB, journal_size_limit 64 MiB; transactions BEGIN
IMMEDIATE; the busy timeout).

    solidqueue_worker.py worker   FILE --seconds S [--busy-timeout-ms MS]
    solidqueue_worker.py producer FILE --seconds S [--busy-timeout-ms MS] [--rate JOBS_PER_S]

worker: registers a process row (as Solid Queue's worker does), then per job
claims (one transaction: the oldest ready execution by priority, job_id;
insert the claimed execution; delete the ready one) and finishes (one
transaction: set the job's finished_at, delete the claimed execution). No job
body runs. With nothing ready it polls every 0.1 s (the worker's
polling_interval). producer: inserts a job and its ready execution in one
transaction, at a fixed rate for S seconds (on a schedule: a slow insert is
caught up; none after S).

Each write transaction is timed, failed ones too. At the end one JSON line
on stdout, the same keys as laravel_worker.php: role, jobs, elapsed_s, locked
("database is locked"), errors, first_error, empty_pops, cpu_s, writes,
locked_waits_us (how long each locked write took), waits_us (every write,
microseconds).
"""
import json
import os
import resource
import sqlite3
import sys
import time


def now_text():
    """Rails' datetime(6) text, without the fraction when it is 0."""
    t = time.time()
    us = int(round((t - int(t)) * 1e6)) % 1000000
    base = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(int(t)))
    return base if us == 0 else "%s.%06d" % (base, us)


def opt(argv, name, default):
    return argv[argv.index(name) + 1] if name in argv else default


class Bench:
    def __init__(self, path, busy_ms):
        self.c = sqlite3.connect(path, timeout=busy_ms / 1000.0, isolation_level=None)
        c = self.c
        c.execute("PRAGMA busy_timeout=%d" % busy_ms)
        for p in ("foreign_keys=ON", "synchronous=NORMAL", "mmap_size=134217728",
                  "journal_size_limit=67108864"):
            c.execute("PRAGMA " + p)
        self.waits = []
        self.locked = 0
        self.locked_waits = []
        self.errors = 0
        self.first_error = None
        self.process = None

    def write(self, body):
        """One BEGIN IMMEDIATE transaction running body(c), timed; its
        result, or None after a failure (counted)."""
        c = self.c
        t0 = time.perf_counter_ns()
        try:
            c.execute("BEGIN IMMEDIATE")
            try:
                r = body(c)
                c.execute("COMMIT")
            except BaseException:
                if c.in_transaction:
                    c.execute("ROLLBACK")
                raise
            self.waits.append((time.perf_counter_ns() - t0) // 1000)
            return r
        except sqlite3.Error as e:
            self.waits.append((time.perf_counter_ns() - t0) // 1000)
            text = "%s: %s" % (type(e).__name__, e)
            if "database is locked" in text:
                self.locked += 1
                self.locked_waits.append(self.waits[-1])
            else:
                self.errors += 1
            if self.first_error is None:
                self.first_error = text[:300]
            return None

    # ---- the worker (solidqueue_stress.py's statements) --------------------

    def register(self):
        c = self.c
        c.execute("INSERT INTO solid_queue_processes (kind, last_heartbeat_at, pid, hostname, "
                  "created_at, name, metadata) VALUES ('Worker', ?, ?, 'lqbench', ?, ?, ?)",
                  (now_text(), os.getpid(), now_text(), "worker-lqbench-%d" % os.getpid(),
                   json.dumps({"polling_interval": 0.1, "queues": "*", "thread_pool_size": 1})))
        self.process = c.execute("SELECT last_insert_rowid()").fetchone()[0]

    def deregister(self):
        try:
            self.c.execute("DELETE FROM solid_queue_processes WHERE id = ?", (self.process,))
        except sqlite3.Error:
            pass

    def heartbeat(self):
        self.c.execute("UPDATE solid_queue_processes SET last_heartbeat_at = ? WHERE id = ?",
                       (now_text(), self.process))

    def claim(self, c):
        row = c.execute("SELECT id, job_id FROM solid_queue_ready_executions WHERE queue_name "
                        "NOT IN (SELECT queue_name FROM solid_queue_pauses) ORDER BY priority, "
                        "job_id LIMIT 1").fetchone()
        if not row:
            return False
        c.execute("INSERT INTO solid_queue_claimed_executions (job_id, process_id, created_at) "
                  "VALUES (?, ?, ?)", (row[1], self.process, now_text()))
        claim = c.execute("SELECT last_insert_rowid()").fetchone()[0]
        c.execute("DELETE FROM solid_queue_ready_executions WHERE id = ?", (row[0],))
        return row[1], claim

    @staticmethod
    def finish(c, jid, claim):
        t = now_text()
        c.execute("UPDATE solid_queue_jobs SET finished_at = ?, updated_at = ? WHERE id = ?",
                  (t, t, jid))
        c.execute("DELETE FROM solid_queue_claimed_executions WHERE id = ?", (claim,))
        return True

    # ---- the enqueuer -------------------------------------------------------

    @staticmethod
    def insert(c, i):
        t = now_text()
        args = json.dumps({"job_class": "ObserverBenchJob", "job_id": "observer-%d" % i,
                           "arguments": [i], "executions": 0, "exception_executions": {}})
        c.execute("INSERT INTO solid_queue_jobs (queue_name, class_name, arguments, priority, "
                  "active_job_id, scheduled_at, created_at, updated_at) VALUES ('default', "
                  "'ObserverBenchJob', ?, 0, ?, ?, ?, ?)", (args, "observer-%d" % i, t, t, t))
        jid = c.execute("SELECT last_insert_rowid()").fetchone()[0]
        c.execute("INSERT INTO solid_queue_ready_executions (job_id, queue_name, priority, "
                  "created_at) VALUES (?, 'default', 0, ?)", (jid, t))
        return jid


def main(argv):
    if len(argv) < 3 or argv[1] not in ("worker", "producer") or not os.path.exists(argv[2]):
        sys.stderr.write("usage: solidqueue_worker.py worker|producer FILE --seconds S "
                         "[--busy-timeout-ms MS] [--rate N]\n")
        return 2
    role, path = argv[1], argv[2]
    seconds = float(opt(argv, "--seconds", 30))
    b = Bench(path, int(opt(argv, "--busy-timeout-ms", 60000)))
    rate = float(opt(argv, "--rate", 100))
    jobs = empty = 0
    if role == "worker":
        b.register()
    start = time.perf_counter_ns()
    end = start + int(seconds * 1e9)
    if role == "worker":
        beat = start
        while time.perf_counter_ns() < end:
            if time.perf_counter_ns() - beat > 60e9:  # process_heartbeat_interval
                beat = time.perf_counter_ns()
                b.heartbeat()
            claimed = b.write(b.claim)
            if claimed is None:
                continue
            if claimed is False:
                empty += 1
                time.sleep(0.1)
                continue
            if b.write(lambda c: b.finish(c, *claimed)):
                jobs += 1
    else:
        period = 1e9 / max(rate, 0.001)
        n = 0
        while True:
            due = start + int(n * period)
            now = time.perf_counter_ns()
            if due >= end or now >= end:
                break
            if due > now:
                time.sleep((due - now) / 1e9)
            if b.write(lambda c: b.insert(c, n)) is not None:
                jobs += 1
            n += 1
    elapsed = (time.perf_counter_ns() - start) / 1e9
    if role == "worker":
        b.deregister()
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"role": role, "jobs": jobs, "elapsed_s": elapsed, "locked": b.locked,
                      "errors": b.errors, "first_error": b.first_error, "empty_pops": empty,
                      "cpu_s": ru.ru_utime + ru.ru_stime, "writes": len(b.waits),
                      "locked_waits_us": b.locked_waits, "waits_us": b.waits},
                     separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
