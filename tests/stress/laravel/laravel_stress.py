#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Laravel database queue under its real client while lqctl acts (issue 14, Proof).

Debian's php-illuminate-queue runs in several processes on one file
(laravel_client.php: a producer pushing, workers popping through Worker with
DatabaseQueue::pop, deleting, releasing with backoff and failing into
failed_jobs). Workers are killed with SIGKILL now and then, leaving expired
reservations behind. lqctl meanwhile, in a loop, with the tokens it listed:
releases expired reservations, retries failed jobs (queue:retry), deletes a few
ready ones, tries stale tokens, and undoes.

Every process appends to one log (PID TIME VERB ...), so the order of events
is known. Checked at the end:
- no job lost: every pushed job finished, is still in `jobs` or `failed_jobs`,
  or was deleted by lqctl;
- nothing run twice because of us: lqctl released a job only when its
  reservation was older than retry_after, never a live one;
- no stale token applied (every release with a made-up token refused);
- PRAGMA integrity_check ok.
Runs that Laravel itself repeats (at-least-once after a kill) are counted and
printed, not failed.

usage: laravel_stress.py LQCTL CLIENT_PHP [SECONDS]
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
import time

RETRY_AFTER = 3  # seconds; workers and lqctl (--retry-after) use the same value


def lqctl(lq, *args):
    return subprocess.run([lq] + list(args), capture_output=True, text=True, timeout=120)


def uuid_of(message):
    try:
        return json.loads(message.get("data") or "{}").get("uuid")
    except (ValueError, AttributeError):
        return None


def main():
    lq, client = sys.argv[1], sys.argv[2]
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 12
    tmp = tempfile.mkdtemp(prefix="laravel-stress-")
    path = os.path.join(tmp, "database.sqlite")
    log_path = os.path.join(tmp, "events.log")
    stop = os.path.join(tmp, "stop")
    os.environ["LQ_AUDIT_DIR"] = os.path.join(tmp, "audit")
    subprocess.run(["php", client, "create", path], check=True)
    log = open(log_path, "a", buffering=1)

    def note(text):
        log.write("%d %.6f %s\n" % (os.getpid(), time.time(), text))

    def spawn(role, *extra):
        return subprocess.Popen(["php", client, role, path, "--log", log_path, "--stop", stop]
                                + list(extra), stdout=subprocess.DEVNULL)

    producer = spawn("producer", "--pause-ms", "15")
    worker_args = ("--retry-after", str(RETRY_AFTER), "--fail-percent", "15", "--work-ms", "20")
    workers = [spawn("worker", *worker_args) for _ in range(3)]
    limit = ["--retry-after", str(RETRY_AFTER)]
    deadline = time.time() + seconds
    kills = applied = released = stale_tried = 0
    stale_applied = []
    # Past the deadline only until the run has proved something (a slow,
    # sanitized lqctl makes few rounds), for at most a minute more.
    pool_down = None  # when every worker was killed at once
    while time.time() < deadline or (not (kills and released) and time.time() < deadline + 60):
        if time.time() >= deadline and not released and pool_down is None:
            # Laravel's own workers take an expired reservation over within
            # milliseconds, so a slow (sanitized) lqctl may never win the race
            # in the time given. The whole pool crashing (a deploy, the OOM
            # killer) leaves reservations nobody takes over: lqctl releases
            # them once they are older than retry_after, then workers return.
            for w in workers:
                w.send_signal(signal.SIGKILL)
                w.wait()
                note("killed %d" % w.pid)
                kills += 1
            workers = []
            pool_down = time.time()
        if pool_down is not None and workers == [] and \
                (released or time.time() > pool_down + RETRY_AFTER + 30):
            workers = [spawn("worker", *worker_args) for _ in range(3)]
        if workers and (not kills or random.random() < 0.15):
            # kill -9 a worker, as a crash or an OOM kill would
            w = random.choice(workers)
            w.send_signal(signal.SIGKILL)
            w.wait()
            note("killed %d" % w.pid)
            kills += 1
            workers.remove(w)
            workers.append(spawn("worker", *worker_args))
        r = lqctl(lq, "list", path, "--json", "--limit", "400", *limit)
        listed = json.loads(r.stdout or "[]")
        deletes = 0
        for m in listed:
            st, mid, token, u = m["status"], m["message_id"], str(m["token"]), uuid_of(m)
            if st == "LOCKED":
                verb = "release"
            elif st == "FAILED":
                verb = "retry"
            elif st == "READY" and deletes < 2 and random.random() < 0.02:
                verb = "delete"
                deletes += 1
            elif random.random() < 0.01:
                stale_tried += 1
                r = lqctl(lq, "release", path, mid, "--claim", "1", *limit)
                if r.returncode == 0:
                    stale_applied.append(mid)
                continue
            else:
                continue
            r = lqctl(lq, verb, path, mid, "--claim", token, *limit)
            if r.returncode == 0:
                applied += 1
                released += verb == "release"
                # The reservation it released: attempts and reserved_at as listed.
                note("lq %s %s %s %s %.0f" % (verb, u, mid, m.get("attempts"),
                                              (m.get("lock_time") or 0) / 1e9))
        if random.random() < 0.1:
            r = lqctl(lq, "undo", path, "--json")
            if r.returncode == 0:
                note("lq undo")

    with open(stop, "w"):
        pass
    for p in workers + [producer]:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    log.close()
    return check(tmp, path, log_path, seconds, kills, applied, released, stale_tried,
                 stale_applied)


def check(tmp, path, log_path, seconds, kills, applied, released, stale_tried, stale_applied):
    problems, put, done, deleted = [], set(), {}, set()
    open_runs = {}  # uuid -> (pid, time) of a run not finished yet
    killed = set()
    repeats = busy = 0
    errors = {}
    for line in open(log_path):
        parts = line.split()
        if len(parts) < 3:
            continue
        pid, t, verb, rest = parts[0], float(parts[1]), parts[2], parts[3:]
        if verb == "put":
            put.add(rest[0])
        elif verb == "killed":
            killed.add(rest[0])
        elif verb == "run":
            u = rest[0]
            if u in done or (u in open_runs and open_runs[u][0] not in killed):
                # Laravel ran it again by itself: its delete after a run failed
                # (busy), or it took over a reservation older than retry_after.
                repeats += 1
            open_runs[u] = (pid, t, rest[2])  # attempts after the pop
        elif verb in ("done", "fail"):
            if verb == "done":
                done[rest[0]] = done.get(rest[0], 0) + 1
            open_runs.pop(rest[0], None)
        elif verb == "lq" and rest[0] == "release":
            u, attempts, reserved = rest[1], rest[3], float(rest[4])
            run = open_runs.get(u)
            # It released that live run's own reservation (same attempts) while
            # it was younger than retry_after: ours. Laravel and lqctl compare
            # whole seconds, so a reservation may be up to 1 s younger.
            if run and run[0] not in killed and run[2] == attempts and \
                    t - reserved < RETRY_AFTER - 1:
                problems.append("released job %s %.2f s into a live run by %s"
                                % (u, t - reserved, run[0]))
        elif verb == "lq" and rest[0] == "delete":
            deleted.add(rest[1])
        elif verb == "busy":
            busy += 1
        elif verb == "error":
            # Laravel's own outcomes (MaxAttemptsExceededException after a
            # repeated run, ...) are printed; damage is caught below.
            errors[" ".join(rest)[:120]] = errors.get(" ".join(rest)[:120], 0) + 1
    if stale_applied:
        problems.append("a made-up token was applied: %s" % stale_applied[:5])

    c = sqlite3.connect(path, timeout=30)
    if c.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
        problems.append("integrity_check failed")
    queued = set()
    for (payload,) in c.execute("SELECT payload FROM jobs"):
        queued.add(json.loads(payload).get("uuid"))
    failed = {u for (u,) in c.execute("SELECT uuid FROM failed_jobs")}
    lost = put - set(done) - queued - failed - deleted
    if lost:
        problems.append("%d jobs lost: %s" % (len(lost), sorted(lost)[:5]))
    print("laravel stress: %.0f s, %d jobs pushed, %d finished, %d kills, %d lqctl actions applied"
          " (%d releases of expired reservations), %d stale tokens refused, %d runs Laravel"
          " repeated itself, %d busy; %s"
          % (seconds, len(put), len(done), kills, applied, released,
             stale_tried - len(stale_applied),
             repeats, busy, "ok" if not problems else problems))
    for text, n in sorted(errors.items()):
        print("  client reported %d x %s" % (n, text))
    c.close()
    if problems:
        print("kept for inspection: " + tmp)
        return 1
    if not os.environ.get("LQ_KEEP"):
        shutil.rmtree(tmp, ignore_errors=True)
    # A run that did nothing proves nothing.
    if not released or kills == 0 or not done:
        print("proved nothing: %d releases of expired reservations, %d kills, %d finished"
              % (released, kills, len(done)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
