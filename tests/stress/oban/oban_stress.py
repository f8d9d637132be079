#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Oban Lite under worker load while lqctl acts (issue 14, Proof).

Worker processes run Oban's own Lite statements (FORMATS.md §4.6;
oban-bg/oban@2939e3134d08 lib/oban/engines/lite.ex and basic.ex): claim with
`UPDATE ... SET state='executing', attempted_at, attempted_by, attempt+1 WHERE
id IN (SELECT ... state='available' AND attempt < max_attempts ORDER BY
priority, scheduled_at, id LIMIT 1) RETURNING`, then complete, error
(retryable with a backoff, error appended with json_insert as TEXT) or discard
when exhausted, each `WHERE id = ?` only, as Oban does. A stager thread makes
due retryable jobs available (Oban's Stager), an enqueuer inserts jobs.

Workers are killed with SIGKILL. Oban Lite has no heartbeats: its Lifeline
rescues an executing job once attempted_at is 60 min old. The harness plays
that hour for the dead worker only, moving its executing rows' attempted_at
two hours back. lqctl meanwhile releases what it lists as LOCKED (refused
unless abandoned by the Lifeline's rule), retries discarded and retryable
jobs, deletes a few available ones, tries made-up tokens and undoes.

Checked at the end: no live worker ever found its claim taken (it re-reads its
row before writing its outcome), no job completed twice, no job lost (every
inserted job is in the table unless lqctl deleted it), no made-up token
applied, integrity_check ok.

usage: oban_stress.py LQCTL FIXTURE [SECONDS]
"""
import datetime
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


def iso(delta_s=0.0):
    t = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=delta_s)
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def connect(path):
    c = sqlite3.connect(path, timeout=30, isolation_level=None)
    c.execute("PRAGMA busy_timeout=30000")
    return c


def worker(path, node, log):
    c = connect(path)
    out = open(log, "a", buffering=1)
    by = json.dumps([node])
    while True:
        c.execute("BEGIN IMMEDIATE")
        row = c.execute(
            "UPDATE oban_jobs SET state = 'executing', attempted_at = ?, attempted_by = ?, "
            "attempt = attempt + 1 WHERE id IN (SELECT id FROM oban_jobs WHERE state = "
            "'available' AND queue = 'default' AND attempt < max_attempts ORDER BY priority, "
            "scheduled_at, id LIMIT 1) RETURNING id, attempt, attempted_at, max_attempts",
            (iso(), by)).fetchone()
        c.execute("COMMIT")
        if not row:
            time.sleep(0.02)
            continue
        jid, attempt, at, max_attempts = row
        time.sleep(random.uniform(0, 0.03))  # perform
        c.execute("BEGIN IMMEDIATE")
        now = c.execute("SELECT state, attempt, attempted_at FROM oban_jobs WHERE id = ?",
                        (jid,)).fetchone()
        if now != ("executing", attempt, at):  # our live claim was taken: never allowed
            c.execute("COMMIT")
            out.write("LOST %d %s\n" % (jid, now))
            continue
        if random.random() < 0.2:
            err = json.dumps({"attempt": attempt, "at": iso(),
                              "error": "** (RuntimeError) stress failure"})
            if attempt < max_attempts:
                c.execute("UPDATE oban_jobs SET state = 'retryable', scheduled_at = ?, errors = "
                          "json_insert(errors, '$[#]', ?) WHERE id = ?", (iso(0.3), err, jid))
                verb = "ERROR"
            else:
                c.execute("UPDATE oban_jobs SET state = 'discarded', discarded_at = ?, errors = "
                          "json_insert(errors, '$[#]', ?) WHERE id = ?", (iso(), err, jid))
                verb = "DISCARDED"
        else:
            c.execute("UPDATE oban_jobs SET state = 'completed', completed_at = ? WHERE id = ?",
                      (iso(), jid))
            verb = "DONE"
        c.execute("COMMIT")
        out.write("%s %d\n" % (verb, jid))


def stager(path, stop):
    c = connect(path)
    while not stop.is_set():
        c.execute("UPDATE oban_jobs SET state = 'available' WHERE id IN (SELECT id FROM oban_jobs "
                  "WHERE state IN ('scheduled', 'retryable') AND scheduled_at <= ? LIMIT 5000)",
                  (iso(),))
        time.sleep(0.2)


def enqueuer(path, ids, stop):
    c = connect(path)
    for i in range(100000):
        if stop.is_set():
            return
        # fetchall: the statement (and its autocommit) is done before the id
        # is on record.
        r = c.execute("INSERT INTO oban_jobs (state, queue, worker, args, errors, attempt, "
                      "max_attempts, priority) VALUES ('available', 'default', "
                      "'Stress.Worker', ?, '[]', 0, 3, ?) RETURNING id",
                      (json.dumps({"n": i}), random.randint(0, 3))).fetchall()[0]
        ids.append(r[0])
        time.sleep(0.005)


def lqctl(lq, *args):
    return subprocess.run([lq] + list(args), capture_output=True, text=True, timeout=60)


def main():
    lq, fixture = sys.argv[1], sys.argv[2]
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 10
    tmp = tempfile.mkdtemp(prefix="oban-stress-")
    path = os.path.join(tmp, "app.db")
    shutil.copyfile(fixture, path)
    os.environ["LQ_AUDIT_DIR"] = os.path.join(tmp, "audit")
    logs = os.path.join(tmp, "logs")
    os.makedirs(logs)
    me = os.path.abspath(__file__)
    before = {r[0] for r in connect(path).execute("SELECT id FROM oban_jobs")}

    def spawn(i):
        return subprocess.Popen([sys.executable, me, "--worker", path, "w%d" % i,
                                 os.path.join(logs, "w%d.log" % i)])
    workers = {i: spawn(i) for i in range(4)}
    inserted = []
    stop = threading.Event()
    threads = [threading.Thread(target=enqueuer, args=(path, inserted, stop), daemon=True),
               threading.Thread(target=stager, args=(path, stop), daemon=True)]
    for t in threads:
        t.start()
    deadline = time.time() + seconds
    kills = stale = 0
    applied = {}
    stale_applied, deleted = [], set()
    n = 4
    db = connect(path)
    # Past the deadline only until the run has proved something (a slow,
    # sanitized lqctl makes few rounds), for at most a minute more.
    while time.time() < deadline or (not (kills and applied.get("release"))
                                      and time.time() < deadline + 60):
        if not kills or random.random() < 0.3:  # kill -9 a worker, as a crash would
            i = random.choice(list(workers))
            workers[i].send_signal(signal.SIGKILL)
            workers[i].wait()
            kills += 1
            # The hour after which the Lifeline rescues a dead node's jobs.
            db.execute("UPDATE oban_jobs SET attempted_at = ? WHERE state = 'executing' AND "
                       "attempted_by = ?", (iso(-7200), json.dumps(["w%d" % i])))
            del workers[i]
            workers[n] = spawn(n)
            n += 1
        listed = json.loads(lqctl(lq, "list", path, "--json").stdout or "[]")
        deletes = 0
        for m in listed:
            st, mid, tok = m["status"], m["message_id"], str(m["token"])
            if st == "LOCKED":
                verb = "release"
                r = lqctl(lq, "release", path, mid, "--claim", tok)
            elif st not in ("READY", "SCHEDULED", "LOCKED", "DONE"):
                # discarded (FAILED) and Oban's own retryable and cancelled
                verb = "retry"
                r = lqctl(lq, "retry", path, mid, "--claim", tok)
                r = lqctl(lq, "retry", path, mid, "--claim", tok)
            elif st == "READY" and deletes < 2 and random.random() < 0.02:
                deletes += 1
                verb = "delete"
                r = lqctl(lq, "delete", path, mid, "--claim", tok)
                if r.returncode == 0:
                    deleted.add(int(mid))
            elif random.random() < 0.01:
                stale += 1
                if lqctl(lq, "release", path, mid, "--claim", "1").returncode == 0:
                    stale_applied.append(mid)
                continue
            else:
                continue
            if r.returncode == 0:
                applied[verb] = applied.get(verb, 0) + 1
        if random.random() < 0.1:
            lqctl(lq, "undo", path)
    # The checks below read a file nobody writes any more.
    stop.set()
    for t in threads:
        t.join()
    for p in workers.values():
        p.send_signal(signal.SIGKILL)
        p.wait()

    completed, problems = {}, []
    for name in os.listdir(logs):
        for line in open(os.path.join(logs, name)):
            verb, jid = line.split()[:2]
            if verb == "LOST":
                problems.append("a live claim was taken: " + line.strip())
            if verb == "DONE":
                completed[jid] = completed.get(jid, 0) + 1
    problems += ["job %s completed %d times" % (j, k) for j, k in completed.items() if k > 1]
    if stale_applied:
        problems.append("a made-up token was applied: %s" % stale_applied[:5])
    c = connect(path)
    if c.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
        problems.append("integrity_check failed")
    now_ids = {r[0] for r in c.execute("SELECT id FROM oban_jobs")}
    # An undone delete puts the row back, so only rows neither here nor
    # deleted by lqctl are lost.
    lost = (before | set(inserted)) - now_ids - deleted
    if lost:
        problems.append("%d jobs lost: %s" % (len(lost), sorted(lost)[:10]))
    print("oban stress: %.0f s, %d jobs inserted, %d completed, %d kills, lqctl applied %s,"
          " %d made-up tokens refused; %s"
          % (seconds, len(inserted), len(completed), kills, applied, stale - len(stale_applied),
             "ok" if not problems else problems))
    c.close()
    db.close()
    if problems:
        print("kept for inspection: " + tmp)
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    # A run that released nothing or killed nothing proves nothing.
    return 1 if not applied.get("release") or kills == 0 else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(main())
