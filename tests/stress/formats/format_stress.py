# SPDX-License-Identifier: MIT
"""The loop, kills, aging and checks shared by the stress tests of the queue
formats whose clients run from Python (issues 14 and 15, Proof): Solid Queue,
Oban Lite, liteque, River, goqite, backlite, plainjob.

Each format is a small description (a `Format` subclass in its own file
beside this one) holding the library's own statements, cited from
docs/FORMATS.md and the upstream commit: insert, claim, complete, fail, the
columns that are the claim token, the SQL that plays the library's stuck rule
(aging), the rows that still exist, and which lqctl actions to try on which
listed status. The real libraries (Ruby, Elixir, Node, Go) cannot be
installed without network in CI, so the workers run those statements from
Python's sqlite3. (Laravel's stress test runs the real PHP client:
laravel/laravel_stress.py.) A format whose `worker_command` names a program
has real-client workers instead: ../node/node_stress.py runs plainjob's and
liteque's own Node libraries, which log the same lines.

Run by a format file: `python3 liteque_stress.py LQCTL FIXTURE [SECONDS]`.

- Worker processes claim, perform, then complete or fail. Inside the claim
  transaction, before COMMIT, a worker logs `CLAIM id token`; before writing
  its outcome it re-reads the row's token in the same write transaction and
  logs `LOST` if its live claim was taken (never allowed). The outcome is
  logged as `DONE?` before COMMIT and `DONE` after it, so a job deleted on
  completion (liteque, goqite) is explained by the log even if the worker
  dies between the two.
- A worker that exits by itself (a crash, "database is locked") fails the
  run, with the end of its stderr.
- Workers are killed with SIGKILL. The harness then plays the library's stuck
  rule for the dead worker only: under the write lock (so every committed
  claim is already in some log) it ages the dead worker's last outstanding
  claim, guarded by the token it logged, unless a live worker holds that row.
- lqctl meanwhile lists (`list --json`) and applies the format's actions with
  `--claim TOKEN`, repeats each applied proof action with the token it saw
  (stale by then, so it must be refused), tries made-up tokens, and undoes.

Checked at the end: no live worker found its claim taken, nothing completed
twice, nothing lost (every inserted job still exists, was completed and
deleted by the library, or was deleted by lqctl), no made-up token applied,
`PRAGMA integrity_check` ok, and what the format checks itself (`check`).
A run that killed nothing or never applied the format's proof action
(release, or retry for goqite) fails too.
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


# ---- time and JSONB helpers for the format files ---------------------------

def now_ms(delta_s=0.0):
    return int((time.time() + delta_s) * 1000)


def utc(delta_s=0.0):
    return datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=delta_s)


def jsonb(v):
    """SQLite's JSONB encoding of v (https://sqlite.org/jsonb.html), for River
    v7 columns on a system SQLite without jsonb() (Debian 12: 3.40)."""
    if v is None:
        return b"\x00"
    if v is True:
        return b"\x01"
    if v is False:
        return b"\x02"
    if isinstance(v, int):
        t, p = 3, str(v).encode()
    elif isinstance(v, str):
        t, p = 10, v.encode()  # TEXTRAW: any text, escaped on output
    elif isinstance(v, (list, tuple)):
        t, p = 11, b"".join(jsonb(x) for x in v)
    elif isinstance(v, dict):
        t, p = 12, b"".join(jsonb(str(k)) + jsonb(x) for k, x in v.items())
    else:
        raise TypeError(type(v))
    n = len(p)
    if n <= 11:
        h = bytes([n << 4 | t])
    elif n < 256:
        h = bytes([0xC0 | t, n])
    elif n < 65536:
        h = bytes([0xD0 | t]) + n.to_bytes(2, "big")
    else:
        h = bytes([0xE0 | t]) + n.to_bytes(4, "big")
    return h + p


def from_jsonb(b):
    """Decode what jsonb() above writes (and SQLite's own arrays, objects,
    strings and integers)."""
    def one(i):
        t, s = b[i] & 0x0F, b[i] >> 4
        i += 1
        if s >= 12:
            k = {12: 1, 13: 2, 14: 4, 15: 8}[s]
            s = int.from_bytes(b[i:i + k], "big")
            i += k
        p, end = b[i:i + s], i + s
        if t <= 2:
            return [None, True, False][t], end
        if t in (3, 4, 5, 6):
            return json.loads(p.decode()), end
        if t in (7, 8, 9, 10):
            return (p.decode() if t in (7, 10) else json.loads('"' + p.decode() + '"')), end
        items, j = [], i
        while j < end:
            x, j = one(j)
            items.append(x)
        if t == 11:
            return items, end
        return dict(zip(items[::2], items[1::2])), end
    return one(0)[0] if b else None


# ---- the format description -------------------------------------------------

class Format:
    """Override the statements; every method runs inside the harness's
    BEGIN IMMEDIATE transaction on connection c."""
    name = "?"
    proof = "release"  # the action a run must have applied at least once
    fail_rate = 0.2
    pragmas = ()  # run on every connection (Solid Queue: foreign_keys, as Rails does)
    # The library keeps completed rows: a job that is gone was deleted by
    # lqctl or is lost (a library that deletes them explains it by the log).
    keeps_finished = False

    def worker_command(self, path, name, log):
        """The command line of an external worker process (a real client)
        that appends the log lines `worker` below writes, or None for the
        Python worker running this description's statements."""
        return None

    def start_worker(self, path, name):
        """Once in each worker process, before its loop (Solid Queue registers
        its process row and heartbeats it); nothing by default."""

    def check(self, c):  # -> problems the format finds in the file at the end
        return []

    def insert(self, c, i):  # -> id
        raise NotImplementedError

    def claim(self, c, worker):  # -> (id, token) or None
        raise NotImplementedError

    def token(self, c, jid):  # -> the row's current token, or None if gone
        raise NotImplementedError

    def complete(self, c, jid, tok):  # -> "DONE"
        raise NotImplementedError

    def fail(self, c, jid, tok):  # -> "ERROR", "DISCARDED", ...
        raise NotImplementedError

    def age(self, c, jid, tok):
        """Move a dead worker's claim past the library's stuck threshold,
        guarded by the token it logged."""
        raise NotImplementedError

    table = None  # the jobs table, for ids()

    def ids(self, c):  # -> every job id still stored
        return [r[0] for r in c.execute("SELECT id FROM " + self.table)]

    def maintain(self, c):
        """What a library's background loop does besides the workers (River's
        scheduler); nothing by default."""

    def plan(self, m):
        """The lqctl action (verb, extra args) to try on a listed message, or
        None. Deletes are rare and added by the harness. By default: release
        what is LOCKED, retry what is FAILED."""
        return {"LOCKED": ("release",), "FAILED": ("retry",)}.get(m["status"])

    deletable = ("READY",)  # statuses the harness sometimes deletes


def connect(path, fmt=None):
    c = sqlite3.connect(path, timeout=30, isolation_level=None)
    for pragma in fmt.pragmas if fmt else ():
        c.execute("PRAGMA " + pragma)
    c.execute("PRAGMA busy_timeout=30000")
    return c


def tx(c, fn, *a):
    c.execute("BEGIN IMMEDIATE")
    try:
        r = fn(c, *a)
    except BaseException:
        c.execute("ROLLBACK")
        raise
    c.execute("COMMIT")
    return r


def worker(fmt, path, name, log):
    c = connect(path, fmt)
    fmt.start_worker(path, name)
    out = open(log, "a", buffering=1)

    def put(*words):
        out.write(json.dumps(words) + "\n")
        out.flush()

    while True:
        c.execute("BEGIN IMMEDIATE")
        got = fmt.claim(c, name)
        if got:  # logged before COMMIT: a committed claim is always in the log
            put("CLAIM", got[0], got[1])
        c.execute("COMMIT")
        if not got:
            time.sleep(0.02)
            continue
        jid, tok = got
        time.sleep(random.uniform(0, 0.03))  # perform
        c.execute("BEGIN IMMEDIATE")
        now = fmt.token(c, jid)
        if now != tok:  # our live claim was taken: never allowed
            c.execute("COMMIT")
            put("LOST", jid, tok, now)
            continue
        verb = fmt.fail(c, jid, tok) if random.random() < fmt.fail_rate else \
            fmt.complete(c, jid, tok)
        put(verb + "?", jid)
        c.execute("COMMIT")
        put(verb, jid)


def read_log(p):
    lines = []
    if not os.path.exists(p):  # a worker that has not started yet
        return lines
    with open(p) as f:
        for line in f:
            try:
                lines.append(json.loads(line))
            except ValueError:  # a line cut by the kill
                pass
    return lines


def outstanding(lines):
    """The last claim not followed by an outcome for its id, or None."""
    last = None
    for w in lines:
        if w[0] == "CLAIM":
            last = (w[1], w[2])
        elif last and w[1] == last[0]:
            last = None
    return last


def lqctl(lq, *args):
    return subprocess.run([lq] + [str(a) for a in args], capture_output=True, text=True,
                          timeout=60)


def main(fmt, script):
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(fmt, sys.argv[2], sys.argv[3], sys.argv[4])
        return 0
    lq, fixture = sys.argv[1], sys.argv[2]
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 10
    # LQ_STRESS_AGE_ALL=1 ages every worker's claims, not only the dead one's:
    # the broken variant that must make the run report a live claim taken.
    age_all = os.environ.get("LQ_STRESS_AGE_ALL") == "1"
    tmp = tempfile.mkdtemp(prefix=fmt.name + "-stress-")
    path = os.path.join(tmp, os.path.basename(fixture))
    shutil.copyfile(fixture, path)
    os.environ["LQ_AUDIT_DIR"] = os.path.join(tmp, "audit")
    logs = os.path.join(tmp, "logs")
    os.makedirs(logs)
    errs = os.path.join(tmp, "stderr")
    os.makedirs(errs)
    db = connect(path, fmt)
    before = set(fmt.ids(db))

    def spawn(i):
        name, log = "w%d" % i, os.path.join(logs, "w%d.log" % i)
        cmd = fmt.worker_command(path, name, log) or \
            [sys.executable, script, "--worker", path, name, log]
        with open(os.path.join(errs, name + ".err"), "w") as err:
            return subprocess.Popen(cmd, stderr=err)

    def exited(i, p):
        with open(os.path.join(errs, "w%d.err" % i)) as f:
            tail = f.read()[-600:]
        return "worker w%d exited by itself (code %s): %s" % (i, p.returncode, tail)
    workers = {i: spawn(i) for i in range(4)}
    inserted = []
    stop = threading.Event()

    def enqueuer():
        c = connect(path, fmt)
        i = 0
        while not stop.is_set():
            inserted.append(tx(c, fmt.insert, i))
            i += 1
            time.sleep(0.005)

    def maintainer():
        c = connect(path, fmt)
        while not stop.is_set():
            tx(c, fmt.maintain)
            time.sleep(0.2)
    threads = [threading.Thread(target=enqueuer, daemon=True),
               threading.Thread(target=maintainer, daemon=True)]
    for t in threads:
        t.start()

    def age_dead(dead):
        """Under the write lock: age the dead worker's outstanding claim unless
        a live worker holds that row (every committed claim is logged)."""
        def run(c):
            held = {}
            for name in ["w%d.log" % k for k in list(workers) + [dead]]:
                o = outstanding(read_log(os.path.join(logs, name)))
                if o:
                    held.setdefault(o[0], []).append((name, o[1]))
            n = 0
            for jid, holders in held.items():
                for name, tok in holders:
                    mine = name == "w%d.log" % dead
                    if age_all or (mine and len(holders) == 1):
                        fmt.age(c, jid, tok)
                        n += c.execute("SELECT changes()").fetchone()[0]
            return n
        return tx(db, run)

    kills = aged = stale = own = 0
    applied = {}
    stale_applied, deleted, crashed = [], set(), []
    try:
        deadline = time.time() + seconds
        n = 4
        # Past the deadline only until the run has proved something (a slow,
        # sanitized lqctl makes few rounds), for at most a minute more.
        while time.time() < deadline or (not (kills and applied.get(fmt.proof))
                                          and time.time() < deadline + 60):
            for i, p in list(workers.items()):
                if p.poll() is not None:
                    crashed.append(exited(i, p))
                    del workers[i]
                    workers[n] = spawn(n)
                    n += 1
            if not kills or random.random() < 0.3:  # kill -9 a worker, as a crash would
                i = random.choice(list(workers))
                workers[i].send_signal(signal.SIGKILL)
                workers[i].wait()
                kills += 1
                del workers[i]
                aged += age_dead(i)
                workers[n] = spawn(n)
                n += 1
            listed = json.loads(lqctl(lq, "list", path, "--json").stdout or "[]")
            ours = {str(x) for x in inserted}
            deletes = 0
            for m in listed:
                st, mid, tok = m["status"], m["message_id"], str(m["token"])
                step = fmt.plan(m)
                if step is None and st in fmt.deletable and deletes < 2 and random.random() < 0.02:
                    deletes += 1
                    step = ("delete",)
                if step is None:
                    if random.random() < 0.01:
                        stale += 1
                        if lqctl(lq, fmt.proof, path, mid, "--claim", "1").returncode == 0:
                            stale_applied.append(mid)
                    continue
                r = lqctl(lq, step[0], path, mid, "--claim", tok, *step[1:])
                if r.returncode == 0:
                    applied[step[0]] = applied.get(step[0], 0) + 1
                    if step[0] == fmt.proof and mid in ours:
                        own += 1
                    if step[0] == "delete":
                        deleted.add(str(mid))
                    if step[0] == fmt.proof:
                        # The operator's screen still shows the old token: the
                        # same action again is stale and must be refused, also
                        # once a worker claimed the job again.
                        time.sleep(random.uniform(0, 0.06))
                        stale += 1
                        if lqctl(lq, step[0], path, mid, "--claim", tok).returncode == 0:
                            stale_applied.append(mid)
            if random.random() < 0.1:
                if lqctl(lq, "undo", path).returncode == 0:
                    applied["undo"] = applied.get("undo", 0) + 1
    finally:
        stop.set()
        for t in threads:
            t.join()
        for i, p in workers.items():
            if p.poll() is not None:
                crashed.append(exited(i, p))
            p.send_signal(signal.SIGKILL)
            p.wait()

    completed, finished, problems = {}, set(), list(crashed)
    for name in os.listdir(logs):
        for w in read_log(os.path.join(logs, name)):
            if w[0] == "LOST":
                problems.append("a live claim was taken (%s): %s" % (name, w[1:]))
            elif w[0] == "DONE":
                completed[w[1]] = completed.get(w[1], 0) + 1
            if w[0] in ("DONE?", "DONE"):  # maybe deleted by the library
                finished.add(str(w[1]))
    problems += ["job %s completed %d times" % (j, k) for j, k in completed.items() if k > 1]
    if stale_applied:
        problems.append("a made-up or stale token was applied: %s" % stale_applied[:5])
    c = connect(path, fmt)
    if c.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
        problems.append("integrity_check failed")
    problems += fmt.check(c)
    now_ids = {str(x) for x in fmt.ids(c)}
    # An undone delete puts the row back, so only rows neither here, nor
    # finished by a worker (when the library deletes completed rows), nor
    # deleted by lqctl are lost.
    lost = {str(x) for x in before | set(inserted)} - now_ids - deleted
    if not fmt.keeps_finished:
        lost -= finished
    if lost:
        problems.append("%d jobs lost: %s" % (len(lost), sorted(lost)[:10]))
    print("%s stress: %.0f s, %d jobs inserted, %d completed, %d kills, %d dead claims aged, "
          "lqctl applied %s (%s on this run's jobs: %d), %d made-up or stale tokens refused; %s"
          % (fmt.name, seconds, len(inserted), len(completed), kills, aged, applied, fmt.proof,
             own, stale - len(stale_applied), "ok" if not problems else problems))
    c.close()
    db.close()
    if problems:
        print("kept for inspection: " + tmp)
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    # A run that applied no proof action or killed nothing proves nothing.
    if not applied.get(fmt.proof) or kills == 0:
        print("FAIL: the run proves nothing (no %s applied or no worker killed)" % fmt.proof)
        return 1
    return 0
