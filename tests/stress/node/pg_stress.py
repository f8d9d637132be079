#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pg-boss and Graphile Worker on PostgreSQL under their REAL Node libraries
while lqctl acts (issue 41, Proof: "stress with the real clients ... nothing
lost, nothing run twice because of us, no stale action applied; and a test
that a worker's claim is never blocked by us for more than lock_timeout").

The run, in a private PostgreSQL 15 server this script starts (Debian's
postgresql-15 in /usr/lib/postgresql/15/bin, or LQ_PG_BINDIR; initdb and
pg_ctl run as the `postgres` account when we are root; the settings of
tests/support/pgserver.cpp: trust on 127.0.0.1, a free port, fsync off):

- the library creates its own schema (pgboss_worker.mjs / graphile_worker.mjs
  `setup`: pg-boss's start() and createQueue, Graphile Worker's
  runMigrations());
- one producer process adds jobs with the library's API (pg-boss send,
  Graphile Worker addJob) and logs each id once it is committed; the pg-boss
  producer is also the instance that supervises (times out the active jobs
  of killed workers after expire_seconds 3, pg-boss's at-least-once);
- 4 worker processes claim, perform 0-30 ms, and complete or (one in five)
  fail, logging CLAIM with this run's attempt marker, LOST if the row is not
  their claim's any more before the outcome, DONE?/FAIL? before the outcome
  and (pg-boss) DONE/FAIL with the rows it changed after it, and the
  duration of every claim statement (FETCH);
- the harness kills a worker with SIGKILL now and then and starts a new one;
- in the same loop lqctl lists (`list URL --json --status ...`) and acts with
  the claim token it saw: retry what is FAILED (the proof action), sometimes
  delete (pg-boss, Graphile Worker) or fail (Graphile Worker) what is READY,
  tries actions on LOCKED jobs (every one must be refused: a worker holds
  them), repeats every applied action with its now stale token and tries a
  made-up token (both must be refused), and undoes now and then. Every
  lqctl call is logged with its time window and its JSON outcome;
- a sampler watches pg_stat_activity: any session blocked by an lqctl
  session (application_name lqadmin), and for how long.

Checked at the end, a problem each:
- a worker logged LOST, or (pg-boss) its complete/fail changed no row;
- a job completed twice (pg-boss: two DONE that changed a row; Graphile
  Worker: two DONE?), or claimed again after a completion that committed;
- a job claimed again while a live worker still held it (its claim logged,
  no outcome yet, the worker not killed);
- an lqctl action applied while a live worker held the job for the whole of
  lqctl's call, or applied to a job lqctl had listed LOCKED;
- a stale or made-up token applied. This run found lqctl's Graphile Worker
  token, then (state, attempts, locked_at), coming back: a retried job
  (reschedule_jobs, attempts 0) that a worker ran and failed for good again
  held the very token it had before the retry, and a repeated retry
  applied once more (about one retry in five). The token now holds run_at
  too (core/pg/list.cpp readMessage), which each failure moves; such a
  repeat is a problem again (the count of them is still printed as "ABA");
- a job lost: produced, and neither still stored, nor completed by a worker
  (Graphile Worker deletes completed jobs), nor deleted by an applied lqctl
  delete;
- a worker exiting by itself;
- a worker's claim slower than lqctl's lock_timeout (1000 ms,
  core/pg/connection.h) plus a margin (LQ_PG_STRESS_CLAIM_MARGIN_MS, default
  1500 ms for a loaded 2-core machine), or a session blocked by lqctl that
  long;
- a run that killed nothing or applied no retry proves nothing.
LQ_PG_STRESS_DELETE_LOCKED=1 (pg-boss) makes lqctl delete LOCKED jobs, which
it applies, as pg-boss's own deleteJob deletes in any state: the broken
variant that must make the run report an action applied to a held job.

Every re-run of a job is classified and counted: after the library's own
failure (its retry), after a kill (pg-boss's at-least-once: the dead
worker's job timed out; a DONE? whose complete never committed), after an
applied lqctl retry of a failed job (asked for); anything else is a problem.

The libraries come from npm (package.json and package-lock.json in
pgboss/ and graphile/ beside this file), which a CI machine may not reach:
`scripts/node-stress` installs them into build/node-stress/{pgboss,graphile}.
Without them, or without the PostgreSQL 15 server, this exits 77 (ctest's
SKIP) saying why.

usage: pg_stress.py pgboss|graphile MODULES_DIR LQCTL [SECONDS]
"""
import json
import os
import pwd
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77  # SKIP_RETURN_CODE of the ctest tests
BIN = os.environ.get("LQ_PG_BINDIR", "/usr/lib/postgresql/15/bin")
LOCK_TIMEOUT_MS = 1000  # lqctl's lock_timeout: core/pg/connection.h, Options::lockTimeoutMs
MARGIN_MS = float(os.environ.get("LQ_PG_STRESS_CLAIM_MARGIN_MS", "1500"))
WORKERS = 4
DELETE_LOCKED = os.environ.get("LQ_PG_STRESS_DELETE_LOCKED") == "1"


class Lib:
    def __init__(self, name, package, script, schema, proof, plan, stored_sql):
        self.name, self.package, self.script = name, package, script
        self.schema, self.proof, self.plan, self.stored_sql = schema, proof, plan, stored_sql


def plan_pgboss(m):
    """lqctl's step for a listed pg-boss job, or None. pg-boss retries a
    failed job (retryJobs) and deletes in any state (deleteJobsById): an
    active one is never deleted here, only retried, which must be refused."""
    st = m["status"]
    if st == "FAILED":
        return "delete" if random.random() < 0.1 else "retry"
    if st in ("READY", "SCHEDULED") and random.random() < 0.05:
        return "delete"
    if st == "LOCKED" and random.random() < 0.3:
        # LQ_PG_STRESS_DELETE_LOCKED=1: delete it instead, which lqctl applies
        # (pg-boss deletes in any state): the broken variant the checks must
        # report (applied to a LOCKED job, LOST in the worker).
        return "delete" if DELETE_LOCKED else "retry"
    return None


def plan_graphile(m):
    """Graphile Worker's admin functions: reschedule_jobs (retry of a
    permanently failed job), permanently_fail_jobs, complete_jobs (delete);
    on a LOCKED job every one must be refused (locked less than 4 hours)."""
    st = m["status"]
    if st == "FAILED":
        return "delete" if random.random() < 0.1 else "retry"
    if st in ("READY", "SCHEDULED"):
        r = random.random()
        return "fail" if r < 0.03 else "delete" if r < 0.06 else None
    if st == "LOCKED" and random.random() < 0.3:
        return random.choice(["retry", "fail", "delete"])
    return None


LIBS = {
    "pgboss": Lib("pgboss", "pg-boss", "pgboss_worker.mjs", "pgboss", "retry", plan_pgboss,
                  "SELECT id FROM pgboss.job"),
    "graphile": Lib("graphile", "graphile-worker", "graphile_worker.mjs", "graphile_worker",
                    "retry", plan_graphile, "SELECT id FROM graphile_worker._private_jobs"),
}


def missing(lib, modules):
    """Why the run cannot happen here, or None."""
    if not shutil.which("node"):
        return "node is not installed"
    nm = os.path.join(modules, "node_modules")
    for pkg in (lib.package, "pg"):
        if not os.path.isfile(os.path.join(nm, pkg, "package.json")):
            return "%s is not installed in %s (it comes from the npm registry, which needs the " \
                   "network; install it and run both with: scripts/node-stress)" % (pkg, nm)
    for tool in ("initdb", "pg_ctl", "postgres", "psql"):
        if not os.access(os.path.join(BIN, tool), os.X_OK):
            return "PostgreSQL 15 server not installed (no %s/%s): apt-get install " \
                   "postgresql-15" % (BIN, tool)
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and no `postgres` account to run the server as " \
                   "(postgresql-15 creates it)"
    return None


# ---- the private server (tests/support/pgserver.cpp's settings) ------------

class PgServer:
    def __init__(self, tmp, db):
        self.dir = os.path.join(tmp, "pg")
        os.makedirs(self.dir)
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:  # initdb refuses root: Debian's postgres account runs it
            pw = pwd.getpwnam("postgres")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            os.chmod(tmp, 0o755)
        self.data = os.path.join(self.dir, "data")
        self.log = os.path.join(self.dir, "server.log")
        self.running = False
        self.run([BIN + "/initdb", "-D", self.data, "-U", "postgres", "-A", "trust", "-E",
                  "UTF8", "--locale=C", "--no-sync", "--no-instructions"], 60)
        why = ""
        # A free port can be taken between the probe and the start: try again.
        for _ in range(3):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
            s.close()
            opts = ("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c "
                    "full_page_writes=off -c synchronous_commit=off -c max_connections=60 -c "
                    "shared_buffers=16MB" % (self.port, self.dir))
            r = self.run([BIN + "/pg_ctl", "-D", self.data, "-l", self.log, "-w", "-t", "30",
                          "-o", opts, "start"], 40, check=False)
            if r.returncode == 0:
                self.running = True
                break
            why = r.stdout + r.stderr
        if not self.running:
            raise RuntimeError("the PostgreSQL server did not start: %s %s"
                               % (why, self.tail()))
        self.db = db
        self.sql("CREATE DATABASE " + db, db="postgres")

    def tail(self):
        try:
            with open(self.log) as f:
                return f.read()[-600:]
        except OSError:
            return ""

    def run(self, cmd, timeout, check=True):
        if self.as_postgres:
            cmd = ["runuser", "-u", "postgres", "--"] + cmd
        r = subprocess.run(cmd, cwd=self.dir, capture_output=True, text=True, timeout=timeout)
        if check and r.returncode:
            raise RuntimeError("%s failed: %s %s" % (cmd[-1], r.stdout, r.stderr))
        return r

    def url(self, db=None):
        return "postgresql://postgres@127.0.0.1:%d/%s" % (self.port, db or self.db)

    def sql(self, text, db=None):
        """The rows of `text` (psql, unaligned, tab-separated)."""
        r = subprocess.run([BIN + "/psql", "-X", "-q", "-A", "-t", "-F", "\t", "-v",
                            "ON_ERROR_STOP=1", "-d", self.url(db), "-c", text],
                           capture_output=True, text=True, timeout=60)
        if r.returncode:
            raise RuntimeError("psql: " + r.stderr.strip())
        return [line.split("\t") for line in r.stdout.splitlines() if line]

    def stop(self):
        if self.running:
            self.run([BIN + "/pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop"], 30,
                     check=False)
            self.running = False


class BlockSampler(threading.Thread):
    """Every 50 ms, through one psql session: the sessions that wait for a
    lock an lqctl session (application_name lqadmin) holds, and how long
    their statement has run. Keeps the worst wait and how many samples saw
    one, and how many samples saw an lqctl session at all."""
    QUERY = ("SELECT coalesce(max(extract(epoch FROM clock_timestamp() - w.query_start) * 1000), "
             "-1)::int, count(*), (SELECT count(*) FROM pg_stat_activity WHERE application_name "
             "= 'lqadmin'), coalesce(max(left(w.query, 80)), '') FROM pg_stat_activity w WHERE "
             "w.application_name IS DISTINCT FROM 'lqadmin' AND EXISTS (SELECT 1 FROM "
             "pg_stat_activity b WHERE b.pid = ANY (pg_blocking_pids(w.pid)) AND "
             "b.application_name = 'lqadmin');\n\\echo @@\n")

    def __init__(self, url):
        super().__init__(daemon=True)
        self.p = subprocess.Popen([BIN + "/psql", "-X", "-q", "-A", "-t", "-F", "\t", "-d", url],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.stop = threading.Event()
        self.max_ms, self.max_query, self.blocked, self.samples, self.seen_lq = -1, "", 0, 0, 0

    def run(self):
        try:
            while not self.stop.is_set():
                self.p.stdin.write(self.QUERY)
                self.p.stdin.flush()
                rows = []
                while True:
                    line = self.p.stdout.readline()
                    if not line or line.strip() == "@@":
                        break
                    rows.append(line.rstrip("\n").split("\t"))
                if not line:
                    return
                self.samples += 1
                if rows and len(rows[0]) >= 3:
                    ms, n, lq = int(rows[0][0]), int(rows[0][1]), int(rows[0][2])
                    self.seen_lq += lq > 0
                    if n:
                        self.blocked += 1
                        if ms > self.max_ms:
                            self.max_ms, self.max_query = ms, rows[0][3] if len(rows[0]) > 3 else ""
                time.sleep(0.05)
        except (OSError, ValueError):
            pass

    def close(self):
        self.stop.set()
        self.join(5)
        try:
            self.p.stdin.close()
        except OSError:
            pass
        self.p.kill()
        self.p.wait()


# ---- logs ---------------------------------------------------------------------

def read_log(p):
    lines = []
    if not os.path.exists(p):
        return lines
    with open(p) as f:
        for line in f:
            try:
                lines.append(json.loads(line))
            except ValueError:  # a line cut by the kill
                pass
    return lines


def percentile(xs, q):
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in LIBS:
        print(__doc__.strip().splitlines()[-1])
        return 2
    lib = LIBS[sys.argv[1]]
    modules, lq = os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 30
    why = missing(lib, modules)
    if why:
        print("SKIP: %s stress on PostgreSQL with the real Node library: %s" % (lib.package, why))
        return SKIP
    tmp = tempfile.mkdtemp(prefix="lq-%s-pg-stress-" % lib.name)
    server = None
    try:
        server = PgServer(tmp, "stress")
        ok = run(lib, modules, lq, seconds, tmp, server)
    finally:
        if server:
            server.stop()
    if ok and os.environ.get("LQ_PG_STRESS_KEEP") != "1":
        shutil.rmtree(tmp, ignore_errors=True)
    if ok:
        return 0
    print("kept for inspection: " + tmp)
    return 1


def run(lib, modules, lq, seconds, tmp, server):
    script = os.path.join(HERE, lib.script)
    url = server.url()
    target = url + "?schema=" + lib.schema
    os.environ["LQ_AUDIT_DIR"] = os.path.join(tmp, "audit")
    logs = os.path.join(tmp, "logs")
    errs = os.path.join(tmp, "stderr")
    os.makedirs(logs)
    os.makedirs(errs)
    r = subprocess.run(["node", script, modules, "setup", url], capture_output=True, text=True,
                       timeout=120)
    if r.returncode:
        print("FAIL: %s could not create its schema: %s" % (lib.package, r.stderr[-800:]))
        return False

    def node(role, name, *args):
        with open(os.path.join(errs, name + ".err"), "w") as err:
            return subprocess.Popen(["node", script, modules, role, url] + list(args),
                                    stdout=subprocess.DEVNULL, stderr=err)

    def spawn(n):
        name = "w%d" % n
        return name, node("work", name, name, os.path.join(logs, name + ".log"))

    def err_tail(name):
        with open(os.path.join(errs, name + ".err")) as f:
            return f.read()[-600:]

    producer = node("produce", "producer", os.path.join(tmp, "produced.log"))
    workers = dict(spawn(n) for n in range(WORKERS))
    n_next = WORKERS
    killed_at = {}  # worker name -> ms since the epoch of its SIGKILL
    sampler = BlockSampler(url)
    sampler.start()
    actions = []  # every lqctl call: dict(kind, verb, id, status, token, t0, t1, rc, out)
    crashed = []

    def lqctl(kind, verb, *args, jid=None, status=None, token=None):
        t0 = time.time() * 1000
        p = subprocess.run([lq] + [verb, target] + [str(a) for a in args] + ["--json"],
                           capture_output=True, text=True, timeout=120)
        t1 = time.time() * 1000
        try:
            out = json.loads(p.stdout) if p.stdout.strip() else None
        except ValueError:
            out = None
        a = dict(kind=kind, verb=verb, id=jid, status=status, token=token, t0=t0, t1=t1,
                 rc=p.returncode, out=out, stderr=p.stderr.strip()[-300:])
        a["applied"] = bool(isinstance(out, dict) and out.get("applied"))
        actions.append(a)
        return a, p

    def kill(name):
        p = workers.pop(name)
        p.send_signal(signal.SIGKILL)
        p.wait()
        killed_at[name] = time.time() * 1000

    kills = 0
    applied = {}
    try:
        deadline = time.time() + seconds
        time.sleep(1.0)  # the workers' start
        while time.time() < deadline or (not (kills and applied.get(lib.proof))
                                         and time.time() < deadline + 60):
            for name, p in list(workers.items()):
                if p.poll() is not None:
                    crashed.append("worker %s exited by itself (code %s): %s"
                                   % (name, p.returncode, err_tail(name)))
                    del workers[name]
                    name, p = spawn(n_next)
                    workers[name] = p
                    n_next += 1
            if producer.poll() is not None:
                crashed.append("the producer exited by itself (code %s): %s"
                               % (producer.returncode, err_tail("producer")))
                break
            if not kills or random.random() < 0.3:  # kill -9 a worker, as a crash would
                kill(random.choice(list(workers)))
                kills += 1
                name, p = spawn(n_next)
                workers[name] = p
                n_next += 1
            a, p = lqctl("list", "list", "--status", "ready,scheduled,locked,failed")
            if p.returncode != 0 or not isinstance(a["out"], list):
                crashed.append("lqctl list failed (%s): %s" % (p.returncode, p.stderr[-400:]))
                break
            a["out"] = None  # not kept: large
            listed = json.loads(p.stdout)
            random.shuffle(listed)
            steps = 0
            for m in listed:
                if steps >= 6:
                    break
                verb = lib.plan(m)
                mid, tok, st = m["message_id"], str(m["token"]), m["status"]
                if verb is None:
                    if random.random() < 0.005:  # a made-up token
                        lqctl("madeup", lib.proof, mid, "--claim", "1", *yes(lib.proof),
                              jid=mid, status=st, token="1")
                    continue
                steps += 1
                a, _ = lqctl("plan", verb, mid, "--claim", tok, *yes(verb), jid=mid, status=st,
                             token=tok)
                if a["applied"]:
                    applied[verb] = applied.get(verb, 0) + 1
                    # The operator's screen still shows the old token: the same
                    # action again is stale and must be refused, also once a
                    # worker claimed the job again.
                    time.sleep(random.uniform(0, 0.06))
                    lqctl("stale", verb, mid, "--claim", tok, *yes(verb), jid=mid, status=st,
                          token=tok)
                    if random.random() < 0.2:  # undo it (or what is newest) at once
                        a, _ = lqctl("undo", "undo")
                        if a["applied"]:
                            applied["undo"] = applied.get("undo", 0) + 1
            if random.random() < 0.15:
                a, _ = lqctl("undo", "undo")
                if a["applied"]:
                    applied["undo"] = applied.get("undo", 0) + 1
    finally:
        producer.send_signal(signal.SIGTERM)
        try:
            producer.wait(20)
        except subprocess.TimeoutExpired:
            crashed.append("the producer did not stop on SIGTERM: " + err_tail("producer"))
            producer.kill()
            producer.wait()
        time.sleep(0.5)
        for name in list(workers):
            if workers[name].poll() is not None:
                crashed.append("worker %s exited by itself (code %s): %s"
                               % (name, workers[name].returncode, err_tail(name)))
            kill(name)
        sampler.close()

    return check(lib, server, tmp, logs, seconds, kills, killed_at, actions, applied, crashed,
                 sampler)


def check(lib, server, tmp, logs, seconds, kills, killed_at, actions, applied, crashed, sampler):
    problems = list(crashed)
    produced = [w[1] for w in read_log(os.path.join(tmp, "produced.log")) if w[0] == "ADD"]
    stored = {row[0] for row in server.sql(lib.stored_sql)}
    pgboss = lib.name == "pgboss"

    # Per job: its runs in time order, each {worker, t, marker, end, outcome}.
    runs, fetch_ms = {}, []
    done, lost_lines = {}, []
    for fn in sorted(os.listdir(logs)):
        name = fn[:-4]
        cur = {}
        for w in read_log(os.path.join(logs, fn)):
            kind = w[0]
            if kind == "FETCH":
                fetch_ms.append(w[1])
            elif kind == "CLAIM":
                r = dict(worker=name, t=w[-1], marker=w[2:-1], end=None, outcome=None)
                runs.setdefault(w[1], []).append(r)
                cur[w[1]] = r
            elif kind == "LOST":
                lost_lines.append((name, w))
                if w[1] in cur:
                    cur[w[1]]["outcome"] = "LOST"
            elif kind in ("DONE?", "FAIL?"):
                if w[1] in cur:
                    cur[w[1]].update(end=w[-1], outcome=kind)
                if kind == "DONE?" and not pgboss:
                    done[w[1]] = done.get(w[1], 0) + 1
            elif kind in ("DONE", "FAIL"):
                if w[1] in cur:
                    cur[w[1]]["committed"] = (kind, w[2])
                if kind == "DONE" and w[2] == 1:
                    done[w[1]] = done.get(w[1], 0) + 1
    for r in (r for rs in runs.values() for r in rs):
        if r["end"] is None and r["outcome"] is None:
            r["end"] = killed_at.get(r["worker"])  # held until the worker died
    for rs in runs.values():
        rs.sort(key=lambda r: r["t"])

    for name, w in lost_lines:
        problems.append("a live claim was taken (%s): %s; lqctl on it: %s"
                        % (name, w[1:], on_job(actions, w[1])))
    problems += ["job %s completed %d times; lqctl on it: %s" % (j, k, on_job(actions, j))
                 for j, k in done.items() if k > 1]

    # Re-runs, classified.
    retried = {}  # job -> times of applied lqctl retries and undos... of retries
    for a in actions:
        if a["applied"] and a["verb"] == "retry" and a["kind"] in ("plan", "stale"):
            retried.setdefault(a["id"], []).append(a["t0"])
    reruns = {"library retry": 0, "after a kill": 0, "lqctl retry of a failed job": 0}
    for jid, rs in runs.items():
        for prev, r in zip(rs, rs[1:]):
            why = None
            if prev["outcome"] == "FAIL?":
                why = "library retry"
                if any(prev["end"] < t < r["t"] for t in retried.get(jid, [])):
                    why = "lqctl retry of a failed job"
            elif prev["outcome"] is None and prev["worker"] in killed_at \
                    and killed_at[prev["worker"]] < r["t"]:
                why = "after a kill"
            elif prev["outcome"] == "DONE?" and prev.get("committed") is None \
                    and prev["worker"] in killed_at and killed_at[prev["worker"]] < r["t"]:
                why = "after a kill"
            if why:
                reruns[why] += 1
            else:
                problems.append("job %s ran again (%s at %.0f, marker %s) after %s's run "
                                "(marker %s, outcome %s%s); lqctl on it: %s"
                                % (jid, r["worker"], r["t"], r["marker"], prev["worker"],
                                   prev["marker"], prev["outcome"],
                                   ", committed %s" % (prev.get("committed"),)
                                   if prev.get("committed") else "", on_job(actions, jid)))

    # lqctl's actions against the workers' claims.
    stale_refused = madeup_refused = locked_refused = aba = 0
    deleted = set()
    for i, a in enumerate(actions):
        if a["kind"] in ("plan", "stale", "madeup") and a["rc"] not in (0, 1):
            problems.append("lqctl %s %s exited %s: %s" % (a["verb"], a["id"], a["rc"],
                                                          a["stderr"]))
        if a["kind"] == "undo" and a["rc"] not in (0, 1):
            problems.append("lqctl undo exited %s: %s" % (a["rc"], a["stderr"]))
        if not a["applied"]:
            if a["kind"] == "stale":
                stale_refused += 1
            elif a["kind"] == "madeup":
                madeup_refused += 1
            elif a["kind"] == "plan" and a["status"] == "LOCKED":
                locked_refused += 1
            continue
        if a["verb"] == "delete":
            deleted.add(a["id"])
        if a["kind"] == "madeup":
            problems.append("a made-up token was applied: %s %s" % (a["verb"], a["id"]))
        if a["kind"] == "stale":
            # Graphile Worker's ABA: the job ran and failed again in between,
            # so it holds the same (state, attempts, locked_at) as first shown.
            # (A run claimed once the first call had started, failed before the
            # repeat ended.)
            first = next(b for b in reversed(actions[:i]) if b["id"] == a["id"]
                         and b["kind"] == "plan")
            between = [r for r in runs.get(a["id"], []) if first["t0"] < r["t"]
                       and r["outcome"] == "FAIL?" and r["end"] < a["t1"]]
            if not pgboss and a["verb"] == "retry" and between:
                aba += 1  # the token came back: still a problem
            problems.append("a stale token was applied: %s %s token %s (listed %s); "
                            "lqctl on it: %s" % (a["verb"], a["id"], a["token"],
                                                 a["status"], on_job(actions, a["id"])))
        if a["kind"] == "plan" and a["status"] == "LOCKED":
            problems.append("lqctl %s applied to job %s it listed LOCKED: %s"
                            % (a["verb"], a["id"], json.dumps(a["out"])[:400]))
        if a["kind"] in ("plan", "stale"):
            for r in runs.get(a["id"], []):
                if r["t"] < a["t0"] and r["end"] is not None and r["end"] > a["t1"]:
                    problems.append("lqctl %s applied to job %s while %s held it (claimed at "
                                    "%.0f, outcome %s at %.0f; lqctl %.0f..%.0f)"
                                    % (a["verb"], a["id"], r["worker"], r["t"], r["outcome"],
                                       r["end"], a["t0"], a["t1"]))
                elif r["t"] < a["t0"] and r["end"] is None and r["outcome"] is None:
                    problems.append("lqctl %s applied to job %s while %s held it (claimed at "
                                    "%.0f, never finished)" % (a["verb"], a["id"], r["worker"],
                                                               r["t"]))

    finished = set(done) if not pgboss else set()
    lost = set(produced) - stored - deleted - finished
    if lost:
        problems.append("%d jobs lost: %s" % (len(lost), sorted(lost)[:10]))

    bound = LOCK_TIMEOUT_MS + MARGIN_MS
    fmax, f99 = (max(fetch_ms) if fetch_ms else 0.0), percentile(fetch_ms, 0.99)
    if fmax > bound:
        problems.append("a worker's claim took %.0f ms: over lock_timeout %d ms + %d ms"
                        % (fmax, LOCK_TIMEOUT_MS, MARGIN_MS))
    if sampler.max_ms > bound:
        problems.append("a session waited %d ms for a lock lqctl held (%s)"
                        % (sampler.max_ms, sampler.max_query))

    plan_skipped = sum(1 for a in actions if a["kind"] == "plan" and not a["applied"])
    claimed = sum(len(rs) for rs in runs.values())
    print("%s on PostgreSQL stress: %.0f s, %d jobs produced, %d claims (%d jobs), %d completed, "
          "%d still stored, %d kills; lqctl calls %d: applied %s, %d planned skipped (%d on "
          "LOCKED jobs refused), %d stale and %d made-up tokens refused, %d stale retries "
          "applied on a token that came back (ABA); re-runs %s; worker claim latency: %d claims, p99 %.1f ms, "
          "max %.1f ms (bound %d ms); sessions blocked by lqctl: %d of %d samples (lqctl "
          "seen in %d), longest %d ms; %s"
          % (lib.package, seconds, len(produced), claimed, len(runs), len(done),
             len(stored), kills, len(actions), applied, plan_skipped, locked_refused,
             stale_refused, madeup_refused, aba, reruns, len(fetch_ms), f99, fmax, bound,
             sampler.blocked, sampler.samples, sampler.seen_lq, max(sampler.max_ms, 0),
             "ok" if not problems else "PROBLEMS:\n  " + "\n  ".join(problems[:30])))
    with open(os.path.join(tmp, "actions.json"), "w") as f:
        json.dump(actions, f, indent=1)
    if problems:
        return False
    if not kills or not applied.get(lib.proof):
        print("FAIL: the run proves nothing (no %s applied or no worker killed)" % lib.proof)
        return False
    return True


def yes(verb):
    """retry and delete ask first (they also take --error CLASS); fail does not."""
    return ["--yes"] if verb in ("retry", "delete") else []


def on_job(actions, jid):
    """lqctl's calls on job `jid`, short."""
    return ["%s %s %s@%.0f..%.0f rc %s" % (a["kind"], a["verb"], a["status"], a["t0"], a["t1"],
                                          a["rc"]) for a in actions if a["id"] == jid][:8]


if __name__ == "__main__":
    sys.exit(main())
