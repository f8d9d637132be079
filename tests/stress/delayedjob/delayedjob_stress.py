#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Delayed::Job under its real client while lqctl acts (issue 40, Proof).

Debian's ruby-delayed-job with ruby-delayed-job-active-record runs in several
processes on one file (delayedjob_client.rb): a producer enqueuing StressJobs
(5 % poison: they always raise, so DJ fails them for good after max_attempts
3 and keeps them with failed_at; 3 % slow: 1 s of work), Delayed::Worker#work_off in a loop in three
worker processes (15 % of runs raise: DJ reschedules them, 1 s back-off).
Workers are killed with SIGKILL now and then; their locks stay and expire
after max_run_time (3 s, the same value for the workers and for lqctl's
--max-run-time). Once, if no expired lock was released yet, every worker is
killed at once (a deploy, the OOM killer), while one of them holds a lock, so
that the expired locks outlive the race with the next worker's reserve. lqctl meanwhile, in a loop, with the
tokens it listed: runs expired locks now (release, as clear_locks! does),
retries failed jobs, deletes a few, tries to release live locks (refused
within max_run_time), repeats each applied action with the token it used
(stale: must be refused), tries made-up tokens, and undoes.

Every process appends to one log (PID TIME VERB ...). Checked at the end:
- nothing lost: every enqueued job ran to completion, is still in
  delayed_jobs, or was deleted by lqctl (our log and the audit log agree);
- no run took a live lock: a run started while another run of the job, by a
  worker not killed, held a lock younger than max_run_time;
- nothing run twice because of us: a job completed twice only if the first
  run's worker was killed before it destroyed the row (DJ takes the lock over
  after max_run_time) or its destroy failed (DJ reschedules it); a job failed
  for good ran again only after an lqctl retry;
- every release and delete lqctl applied to a lock was older than
  max_run_time when lqctl returned;
- no stale or made-up token applied; undo's skipped rows are counted;
- every remaining row is consistent: failed_at only with attempts >= 3 and
  last_error, locked_at and locked_by together, a lock not failed only a
  killed worker's, attempts = the failures DJ recorded (plus runs cut by a
  kill);
- PRAGMA integrity_check ok.
Runs the library itself repeats (a killed worker's job after max_run_time)
are counted and printed, not failed.

usage: delayedjob_stress.py LQCTL CLIENT_RB [SECONDS]   (exit 77: Ruby or the gems missing)
"""
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

MAX_RUN_TIME = 3  # seconds; Delayed::Worker.max_run_time and lqctl --max-run-time
MAX_ATTEMPTS = 3
SKIP = 77


def lqctl(lq, *args):
    return subprocess.run([lq] + [str(a) for a in args], capture_output=True, text=True,
                          timeout=120)


def key_of(handler):
    m = re.search(r"^key: (\S+)$", handler or "", re.M)
    return m.group(1) if m else None


def main():
    lq, client = sys.argv[1], sys.argv[2]
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 12
    if not shutil.which("ruby"):
        print("SKIP: ruby not found (apt-get install ruby ruby-delayed-job "
              "ruby-delayed-job-active-record ruby-activerecord ruby-sqlite3)")
        return SKIP
    r = subprocess.run(["ruby", client, "check"], capture_output=True, text=True)
    if r.returncode != 0:
        print("SKIP: Delayed::Job is not installed (%s); apt-get install ruby-delayed-job "
              "ruby-delayed-job-active-record ruby-activerecord ruby-sqlite3"
              % (r.stdout + r.stderr).strip()[-300:])
        return SKIP
    print("client: " + r.stdout.strip())
    started = time.time()
    tmp = tempfile.mkdtemp(prefix="delayedjob-stress-")
    path = os.path.join(tmp, "development.sqlite3")
    log_path = os.path.join(tmp, "events.log")
    stop = os.path.join(tmp, "stop")
    os.environ["LQ_AUDIT_DIR"] = os.path.join(tmp, "audit")
    subprocess.run(["ruby", client, "create", path], check=True)
    log = open(log_path, "a", buffering=1)
    errs = open(os.path.join(tmp, "clients.err"), "a")

    def note(text):
        log.write("%d %.6f %s\n" % (os.getpid(), time.time(), text))

    def spawn(role, *extra):
        return subprocess.Popen(["ruby", client, role, path, "--log", log_path, "--stop", stop]
                                + list(extra), stdout=subprocess.DEVNULL, stderr=errs)

    worker_args = ("--max-run-time", str(MAX_RUN_TIME), "--fail-percent", "15",
                   "--work-ms", "20")
    producer = spawn("producer", "--pause-ms", "50", "--poison-percent", "5",
                     "--slow-percent", "3")
    workers = [spawn("worker", *worker_args) for _ in range(3)]
    # LQ_STRESS_LQCTL_MAX_RUN_TIME=1: lqctl told a shorter max_run_time than
    # the workers', the broken setup that must make the run report live
    # locks taken.
    limit = ["--max-run-time", os.environ.get("LQ_STRESS_LQCTL_MAX_RUN_TIME", MAX_RUN_TIME)]
    stats = {"kills": 0, "applied": {}, "stale_tried": 0, "madeup_tried": 0,
             "live_refused": 0, "by_status": {}, "rounds": 0, "pool_downs": 0, "undo_applied": 0, "undo_skipped": 0, "refused": 0}
    stale_applied, problems = [], []
    deadline = time.time() + seconds
    pool_down = None  # when every worker was killed at once

    def held_by(ws):
        c = sqlite3.connect(path, timeout=30)
        held = [b for (b,) in c.execute("SELECT locked_by FROM delayed_jobs WHERE"
                                        " locked_at IS NOT NULL AND failed_at IS NULL")]
        c.close()
        pids = {"pid:%d" % w.pid for w in ws}
        return any(b and b.split()[-1] in pids for b in held)
    next_kill = time.time() + 1

    def kill(w):
        w.send_signal(signal.SIGKILL)
        w.wait()
        note("killed %d" % w.pid)
        stats["kills"] += 1

    def proved():
        a = stats["applied"]
        return stats["kills"] and a.get("release") and a.get("retry")

    while time.time() < deadline or (not proved() and time.time() < deadline + 60):
        now = time.time()
        if pool_down is None and workers and not stats["applied"].get("release") and \
                now > deadline - seconds * 0.6 and held_by(workers):
            # Only a kill in the middle of a run leaves a lock: the pool goes
            # down while one of them holds one (a slow job: 1 s).
            for w in workers:
                kill(w)
            workers = []
            pool_down = now
            stats["pool_downs"] += 1
        if pool_down is not None and not workers and \
                (stats["applied"].get("release") or now > pool_down + MAX_RUN_TIME + 4):
            workers = [spawn("worker", *worker_args) for _ in range(3)]
            pool_down = None
        if workers and now > next_kill:
            # kill -9 a worker, as a crash or an OOM kill would (every 1 to 2 s)
            next_kill = now + random.uniform(1, 2)
            w = random.choice(workers)
            kill(w)
            workers.remove(w)
            workers.append(spawn("worker", *worker_args))
        r = lqctl(lq, "list", path, "--json", "--limit", "0", *limit)
        stats["rounds"] += 1
        try:
            listed = json.loads(r.stdout or "[]")
        except ValueError:
            problems.append("lqctl list printed no JSON: %s" % r.stderr[-300:])
            break
        deletes = 0
        for m in listed:
            st, mid, token = m["status"], m["message_id"], str(m["token"])
            k = key_of(m.get("data"))
            expired = m.get("extra_state") == "locked_expired"
            verb = None
            if st == "LOCKED" and expired:
                verb = "delete" if random.random() < 0.1 else "release"
            elif st == "LOCKED" and random.random() < 0.05:
                # A live lock (younger than max_run_time): refused, unless it
                # expired since it was listed (checked by its lock time below).
                verb = "release"
            elif st == "FAILED":
                p = random.random()
                verb = "retry" if p < 0.3 else "delete" if p < 0.35 else None
            elif st == "READY" and deletes < 1 and random.random() < 0.002:
                verb = "delete"
                deletes += 1
            if verb is None:
                if random.random() < 0.01:
                    stats["madeup_tried"] += 1
                    v = {"FAILED": "retry", "LOCKED": "release"}.get(st, "delete")
                    if lqctl(lq, v, path, mid, "--claim", "1", *limit).returncode == 0:
                        stale_applied.append(("made-up", v, mid))
                continue
            before = time.time()
            r = lqctl(lq, verb, path, mid, "--claim", token, *limit)
            after = time.time()
            if r.returncode == 1:
                stats["refused"] += 1
                if st == "LOCKED" and not expired:
                    stats["live_refused"] += 1
                continue
            if r.returncode != 0:
                if r.returncode != 4:  # busy: another process held the file
                    problems.append("lqctl %s %s: exit %d: %s"
                                    % (verb, mid, r.returncode, r.stderr.strip()[-300:]))
                continue
            stats["applied"][verb] = stats["applied"].get(verb, 0) + 1
            vs = "%s %s" % (verb, st)
            stats["by_status"][vs] = stats["by_status"].get(vs, 0) + 1
            lock = (m.get("lock_time") or 0) / 1e9
            note("lq %s %s %s %s %.6f %.6f %.6f" % (verb, k, mid, st, lock, before, after))
            if st == "LOCKED" and after - lock < MAX_RUN_TIME:
                problems.append("lqctl %s of job %s (%s) applied to a lock %.2f s old"
                                % (verb, mid, k, after - lock))
            # The operator's screen still shows the old token: the same action
            # again is stale and must be refused.
            time.sleep(random.uniform(0, 0.05))
            stats["stale_tried"] += 1
            if lqctl(lq, verb, path, mid, "--claim", token, *limit).returncode == 0:
                stale_applied.append(("stale", verb, mid))
        time.sleep(0.03)  # CPU for the workers (CI has 2 cores)
        if random.random() < 0.1:
            r = lqctl(lq, "undo", path, "--json", *limit)
            if r.returncode in (0, 1) and r.stdout.strip():
                try:
                    u = json.loads(r.stdout)
                    stats["undo_applied"] += u.get("applied") or 0
                    stats["undo_skipped"] += len(u.get("skipped") or [])
                    note("lq undo %s %s %d %d" % (u.get("action"), u.get("undoes"),
                                                  u.get("applied") or 0,
                                                  len(u.get("skipped") or [])))
                except ValueError:
                    pass

    with open(stop, "w"):
        pass
    for p in workers + [producer]:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    log.close()
    errs.close()
    audit = json.loads(lqctl(lq, "audit", path, "--json").stdout or "[]")
    return check(tmp, path, log_path, seconds, stats, stale_applied, problems, audit, started)


class Run:
    def __init__(self, pid, t, jid, attempts, locked_at):
        self.pid, self.t, self.jid = pid, t, jid
        self.attempts, self.locked_at = attempts, locked_at
        self.outcome = None  # done, fail
        self.end = None
        self.destroy_failed = False


def check(tmp, path, log_path, seconds, stats, stale_applied, problems, audit, started):
    put, kinds = set(), {}
    runs = {}  # key -> [Run]
    killed = {}  # pid -> when
    deleted = {}  # key -> ids lqctl deleted
    retried_after = {}  # key -> [times lqctl retried it]
    dead_at = {}  # key -> when DJ failed it for good (last time)
    errors_of = {}  # key -> error lines (DJ's reschedule / fail!)
    texts = {}
    busy = oops = 0
    takeovers = repeats = 0
    events = []
    for line in open(log_path):
        parts = line.split()
        if len(parts) < 3:
            continue  # a line cut by a kill
        try:
            events.append((float(parts[1]), parts[0], parts[2], parts[3:]))
        except ValueError:
            pass
    events.sort(key=lambda e: e[0])
    for t, pid, verb, rest in events:
        if verb == "lq" and rest[0] == "retry":
            # When lqctl was called (it committed before it returned).
            retried_after.setdefault(rest[1], []).append(float(rest[5]))
    for t, pid, verb, rest in events:
        if verb == "put":
            put.add(rest[0])
            kinds[rest[0]] = rest[2]
        elif verb == "killed":
            killed[rest[0]] = t
        elif verb == "run":
            k = rest[0]
            new = Run(pid, t, rest[1], int(rest[2]), float(rest[3]))
            for old in runs.get(k, []):
                live = killed.get(old.pid, float("inf")) > t
                if old.outcome is None and old.pid != pid and live:
                    # Another worker, alive, is still running it.
                    if t - old.locked_at < MAX_RUN_TIME:
                        problems.append("job %s: run by %s started %.2f s into a live lock of %s"
                                        % (k, pid, t - old.locked_at, old.pid))
                    else:
                        takeovers += 1  # DJ's own rule: a live lock past max_run_time
                elif old.outcome == "done":
                    # Completed before: the row should be gone, unless that
                    # worker died before its destroy or the destroy failed.
                    if old.destroy_failed or killed.get(old.pid, float("inf")) <= t:
                        repeats += 1
                    else:
                        problems.append("job %s ran again at %.3f after %s completed it at %.3f"
                                        % (k, t, old.pid, old.end))
            if k in dead_at and not any(dead_at[k] < r < t for r in retried_after.get(k, [])):
                problems.append("job %s failed for good ran again without a retry" % k)
            dead_at.pop(k, None)
            if runs.get(k) and runs[k][-1].outcome is None:
                repeats += 1  # the last run was cut by a kill (or is a takeover)
            runs.setdefault(k, []).append(new)
        elif verb in ("done", "fail"):
            for r in reversed(runs.get(rest[0], [])):
                if r.pid == pid and r.outcome is None:
                    r.outcome, r.end = verb, t
                    break
        elif verb == "error":
            k = rest[0]
            errors_of[k] = errors_of.get(k, 0) + 1
            text = " ".join(rest[3:])
            if not text.startswith("stress failure"):
                texts[text[:100]] = texts.get(text[:100], 0) + 1
                for r in reversed(runs.get(k, [])):
                    if r.pid == pid:
                        r.destroy_failed = r.outcome == "done"
                        break
        elif verb == "dead":
            dead_at[rest[0]] = t
        elif verb == "busy":
            busy += 1
        elif verb == "oops":
            oops += 1
            texts[" ".join(rest)[:100]] = texts.get(" ".join(rest)[:100], 0) + 1
        elif verb == "lq" and rest[0] == "delete":
            deleted.setdefault(rest[1], set()).add(rest[2])
    if stale_applied:
        problems.append("a stale or made-up token was applied: %s" % stale_applied[:5])

    # lqctl's deletes as the audit log records them.
    audit_deleted = set()
    for rec in audit:
        if rec.get("action") == "delete":
            audit_deleted |= {str(m["message_id"]) for m in rec.get("messages") or []}
    for k, ids in deleted.items():
        if not ids <= audit_deleted:
            problems.append("delete of %s (%s) not in the audit log" % (k, sorted(ids)))

    c = sqlite3.connect(path, timeout=30)
    if c.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
        problems.append("integrity_check failed")
    in_file = {}
    for jid, handler, attempts, last_error, locked_at, locked_by, failed_at in c.execute(
            "SELECT id, handler, attempts, last_error, locked_at, locked_by, failed_at "
            "FROM delayed_jobs"):
        k = key_of(handler)
        in_file[k] = jid
        what = "job %s (%s)" % (jid, k)
        if k not in put:
            problems.append("%s: not enqueued by the producer" % what)
            continue
        if failed_at is not None and (attempts < MAX_ATTEMPTS or not last_error):
            problems.append("%s: failed_at with attempts %d, last_error %r"
                            % (what, attempts, (last_error or "")[:40]))
        if (locked_at is None) != (locked_by is None):
            problems.append("%s: locked_at %r but locked_by %r" % (what, locked_at, locked_by))
        if locked_by and failed_at is None:
            m = re.search(r"pid:(\d+)", locked_by)
            if not m or m.group(1) not in killed:
                problems.append("%s: locked by %s, a worker that was not killed"
                                % (what, locked_by))
        cut = sum(1 for r in runs.get(k, []) if r.pid in killed and r.outcome != "done")
        if not errors_of.get(k, 0) <= attempts <= errors_of.get(k, 0) + cut:
            problems.append("%s: attempts %d, but DJ recorded %d failures (%d runs cut by kills)"
                            % (what, attempts, errors_of.get(k, 0), cut))
        if attempts and not last_error:
            problems.append("%s: attempts %d without last_error" % (what, attempts))
    done = {k for k, rs in runs.items() if any(r.outcome == "done" for r in rs)}
    twice = {k for k, rs in runs.items() if sum(r.outcome == "done" for r in rs) > 1}
    lost = put - done - set(in_file) - set(deleted)
    if lost:
        problems.append("%d jobs lost: %s" % (len(lost), sorted(lost)[:5]))
    failed_kept = c.execute("SELECT count(*) FROM delayed_jobs WHERE failed_at IS NOT NULL") \
        .fetchone()[0]
    c.close()
    a = stats["applied"]
    print("delayedjob stress: %.0f s loop, %.0f s in all; %d jobs enqueued (%d poison), %d runs,"
          " %d completed (%d twice, by DJ after a kill), %d left (%d failed for good), %d kills (%d times the whole pool);"
          " lqctl applied %s, refused %d (%d live locks), %d stale and %d made-up tokens tried"
          " and refused, undo applied %d rows and skipped %d; %d runs DJ repeated itself"
          " (%d takeovers of a live lock past max_run_time), %d busy; %d lqctl rounds, applied"
          " by listed status %s; %s"
          % (seconds, time.time() - started, len(put),
             sum(1 for v in kinds.values() if v == "poison"),
             sum(len(rs) for rs in runs.values()), len(done), len(twice), len(in_file),
             failed_kept, stats["kills"], stats["pool_downs"], a, stats["refused"], stats["live_refused"],
             stats["stale_tried"], stats["madeup_tried"], stats["undo_applied"],
             stats["undo_skipped"], repeats, takeovers, busy, stats["rounds"], stats["by_status"],
             "ok" if not problems else problems[:10]))
    for text, n in sorted(texts.items()):
        print("  client reported %d x %s" % (n, text))
    if problems:
        print("kept for inspection: " + tmp)
        return 1
    if not os.environ.get("LQ_KEEP"):
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print("kept: " + tmp)
    # A run that did nothing proves nothing.
    if not a.get("release") or not a.get("retry") or not stats["kills"] or not done:
        print("proved nothing: %s applied, %d kills, %d completed"
              % (a, stats["kills"], len(done)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
