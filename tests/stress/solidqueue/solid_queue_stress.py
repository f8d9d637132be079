#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Solid Queue under real-client load while lqctl acts (issue 14, Proof).

Worker processes run Solid Queue's own statements (FORMATS.md §1.6;
rails/solid_queue@29e818d9c118 app/models/solid_queue/{ready_execution,
claimed_execution,failed_execution,process}.rb): register a process row and
heartbeat it, claim (select ready by priority, job_id; insert claimed; delete
ready) in one transaction, then complete (finished_at, delete the claim) or
fail (insert a failed row, delete the claim). An enqueuer inserts jobs with
ready rows. Workers are killed with SIGKILL; the harness then deletes the dead
worker's process row (its claims are abandoned by the library's rule). lqctl
meanwhile releases stuck claims, retries failed jobs, discards ready ones,
undoes, and tries stale tokens, in a loop.

Checked at the end: no job finished twice, no worker ever found its live
claim taken from it (nothing run twice because of us), every unfinished job
in exactly one execution table, no orphan execution rows, integrity_check ok.

usage: solid_queue_stress.py LQCTL FIXTURE [SECONDS]
"""
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time


def now_text():
    t = time.time()
    us = int(round((t - int(t)) * 1e6)) % 1000000
    base = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(int(t)))
    return base if us == 0 else "%s.%06d" % (base, us)


def connect(path):
    c = sqlite3.connect(path, timeout=30, isolation_level=None)
    c.execute("PRAGMA foreign_keys=ON")  # as Rails does per connection
    c.execute("PRAGMA busy_timeout=30000")
    return c


def worker(path, name, log):
    c = connect(path)
    c.execute("INSERT INTO solid_queue_processes (kind, last_heartbeat_at, pid, hostname, "
              "created_at, name) VALUES ('Worker', ?, ?, 'stress', ?, ?)",
              (now_text(), os.getpid(), now_text(), name))
    pid = c.execute("SELECT last_insert_rowid()").fetchone()[0]

    def beat():
        h = connect(path)
        while True:
            h.execute("UPDATE solid_queue_processes SET last_heartbeat_at = ? WHERE id = ?",
                      (now_text(), pid))
            time.sleep(0.2)
    threading.Thread(target=beat, daemon=True).start()
    out = open(log, "a", buffering=1)
    while True:
        c.execute("BEGIN IMMEDIATE")
        row = c.execute("SELECT id, job_id FROM solid_queue_ready_executions WHERE queue_name "
                        "NOT IN (SELECT queue_name FROM solid_queue_pauses) ORDER BY priority, "
                        "job_id LIMIT 1").fetchone()
        if not row:
            c.execute("COMMIT")
            time.sleep(0.02)
            continue
        c.execute("INSERT INTO solid_queue_claimed_executions (job_id, process_id, created_at) "
                  "VALUES (?, ?, ?)", (row[1], pid, now_text()))
        claim = c.execute("SELECT last_insert_rowid()").fetchone()[0]
        c.execute("DELETE FROM solid_queue_ready_executions WHERE id = ?", (row[0],))
        c.execute("COMMIT")
        time.sleep(random.uniform(0, 0.03))  # perform
        c.execute("BEGIN IMMEDIATE")
        still = c.execute("SELECT 1 FROM solid_queue_claimed_executions WHERE id = ?",
                          (claim,)).fetchone()
        if not still:  # a live claim was taken away: never allowed
            c.execute("COMMIT")
            out.write("LOST %d\n" % row[1])
            continue
        if random.random() < 0.15:
            err = json.dumps({"exception_class": "RuntimeError", "message": "boom",
                              "backtrace": None})
            c.execute("INSERT INTO solid_queue_failed_executions (job_id, error, created_at) "
                      "VALUES (?, ?, ?)", (row[1], err, now_text()))
            verb = "FAILED"
        else:
            c.execute("UPDATE solid_queue_jobs SET finished_at = ?, updated_at = ? WHERE id = ?",
                      (now_text(), now_text(), row[1]))
            verb = "DONE"
        c.execute("DELETE FROM solid_queue_claimed_executions WHERE id = ?", (claim,))
        c.execute("COMMIT")
        out.write("%s %d\n" % (verb, row[1]))


def enqueuer(path, count):
    c = connect(path)
    for i in range(count):
        t = now_text()
        args = json.dumps({"job_class": "StressJob", "job_id": "stress-%d" % i,
                           "arguments": [i], "executions": 0, "exception_executions": {}})
        c.execute("BEGIN IMMEDIATE")
        c.execute("INSERT INTO solid_queue_jobs (queue_name, class_name, arguments, priority, "
                  "active_job_id, scheduled_at, created_at, updated_at) VALUES ('default', "
                  "'StressJob', ?, 0, ?, ?, ?, ?)", (args, "stress-%d" % i, t, t, t))
        jid = c.execute("SELECT last_insert_rowid()").fetchone()[0]
        c.execute("INSERT INTO solid_queue_ready_executions (job_id, queue_name, priority, "
                  "created_at) VALUES (?, 'default', 0, ?)", (jid, t))
        c.execute("COMMIT")
        time.sleep(0.005)


def lqctl(lq, *args):
    return subprocess.run([lq] + list(args), capture_output=True, text=True, timeout=60)


def main():
    lq, fixture = sys.argv[1], sys.argv[2]
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 10
    tmp = tempfile.mkdtemp(prefix="sq-stress-")
    path = os.path.join(tmp, "queue.sqlite3")
    with open(fixture, "rb") as f, open(path, "wb") as g:
        g.write(f.read())
    os.environ["LQ_AUDIT_DIR"] = os.path.join(tmp, "audit")
    logs = os.path.join(tmp, "logs")
    os.makedirs(logs)
    me = os.path.abspath(__file__)

    def spawn(i):
        return subprocess.Popen([sys.executable, me, "--worker", path, "w%d" % i,
                                 os.path.join(logs, "w%d.log" % i)])
    workers = {i: spawn(i) for i in range(4)}
    enq = threading.Thread(target=enqueuer, args=(path, 100000), daemon=True)
    enq.start()
    deadline = time.time() + seconds
    kills = actions = 0
    n = 4
    db = connect(path)
    # Past the deadline only until the run has proved something (a slow,
    # sanitized lqctl makes few rounds), for at most a minute more.
    while time.time() < deadline or (not (kills and actions) and time.time() < deadline + 60):
        if not kills or random.random() < 0.3:  # kill -9 a worker, as a crash would
            i = random.choice(list(workers))
            workers[i].send_signal(signal.SIGKILL)
            workers[i].wait()
            kills += 1
            # The supervisor's pruning, minus its failing of claims: the
            # process row is gone, its claims are abandoned.
            db.execute("DELETE FROM solid_queue_processes WHERE name = ?", ("w%d" % i,))
            del workers[i]
            workers[n] = spawn(n)
            n += 1
        listed = json.loads(lqctl(lq, "list", path, "--json").stdout or "[]")
        for m in listed:
            st, mid = m["status"], m["message_id"]
            if st == "LOCKED":
                r = lqctl(lq, "release", path, mid, "--claim", str(m["token"]))
            elif st == "FAILED":
                r = lqctl(lq, "retry", path, mid, "--claim", str(m["token"]))
            elif st == "READY" and random.random() < 0.05:
                r = lqctl(lq, "delete", path, mid, "--claim", str(m["token"]))
            elif random.random() < 0.02:
                r = lqctl(lq, "release", path, mid, "--claim", "1")  # a stale token
            else:
                continue
            actions += r.returncode == 0
        if random.random() < 0.2:
            lqctl(lq, "undo", path)
    for p in workers.values():
        p.send_signal(signal.SIGKILL)
        p.wait()

    finished, problems = {}, []
    for name in os.listdir(logs):
        for line in open(os.path.join(logs, name)):
            verb, jid = line.split()
            if verb == "LOST":
                problems.append("worker lost a live claim of job " + jid)
            if verb == "DONE":
                finished[jid] = finished.get(jid, 0) + 1
    problems += ["job %s finished %d times" % (j, k) for j, k in finished.items() if k > 1]
    c = connect(path)
    if c.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
        problems.append("integrity_check failed")
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
    print("solid-queue stress: %.0f s, %d kills, %d lqctl actions applied, %d jobs finished; %s"
          % (seconds, kills, actions, len(finished), "ok" if not problems else problems))
    c.close()
    db.close()
    if problems:
        print("kept for inspection: " + tmp)
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    return 1 if actions == 0 or kills == 0 else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(main())
