#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Symfony Messenger's Doctrine transport under its real client while lqctl
acts (issue 40, Proof).

Debian's php-symfony-messenger and php-symfony-doctrine-messenger run in
several processes on one file (messenger_client.php): a producer dispatching
through a MessageBus to two transports (queue_name 'default' and 'high'; 5 %
poison messages that always throw, 3 % slow ones, 1 s of work), and three
consumers, each Symfony's Worker on both transports with the retry listener
(2 retries, 1 s) and the failure transport `failed` (the same table,
queue_name 'failed'); 15 % of runs throw. Consumers are killed with SIGKILL
now and then: their deliveries stay (delivered_at) and are delivered again
after redeliver_timeout (3 s, the same value for the consumers and for
lqctl's --redeliver-timeout). Once, if no delivery was released yet, every
consumer is killed at once while one of them handles a message. lqctl
meanwhile, in a loop, with the tokens it listed: runs expired deliveries now
(release), deletes a few messages (failed ones as messenger:failed:remove,
expired deliveries, ready ones), prunes the failure transport now and then,
tries to release live deliveries (refused within redeliver_timeout), repeats
each applied action with the token it used (stale: must be refused), tries
made-up tokens, and undoes. Messenger has no Retry to offer.

Every process appends to one log (PID TIME VERB ...); the client logs each
row a sender stores and each ack and reject. Checked at the end:
- nothing lost: every dispatched message was handled, or is still in the
  table (in its queue, a retry, or the failure transport), or lqctl deleted
  it (a delete or prune in the audit log); and every row a sender stored was
  acked or rejected by a consumer, is still there, or lqctl deleted it (a
  consumer killed after its handler ended, before it logged the ack or
  reject, may have deleted the row: counted, not failed);
- no delivery taken from a live consumer: a run of a row started while a
  consumer not killed was still handling that row;
- nothing run twice because of us: a message handled twice only if a killed
  consumer left a row behind (its delivery, redelivered after the timeout,
  or the old row of a retry it sent before it could reject it), or an
  ack/reject failed; a row acked or rejected never ran again;
- every release and delete lqctl applied to a delivery was older than
  redeliver_timeout by the stored delivered_at when lqctl returned;
- no stale or made-up token applied; undo's skipped rows are counted;
- every remaining row is consistent: a message the producer dispatched, a
  row a sender stored and nobody acked, a failed row with its
  SentToFailureTransportStamp, a delivered row not failed only a killed
  consumer's;
- PRAGMA integrity_check ok.
Runs the library itself repeats (a killed consumer's message) are counted and
printed, not failed.

usage: messenger_stress.py LQCTL CLIENT_PHP [SECONDS]   (exit 77: PHP or the library missing)
"""
import json
import math
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

REDELIVER_TIMEOUT = 3  # seconds; the transports' redeliver_timeout and lqctl's
SKIP = 77
PACKAGES = ("php8.2-cli php8.2-sqlite3 php-symfony-messenger php-symfony-doctrine-messenger "
            "php-doctrine-dbal php-symfony-event-dispatcher")


def lqctl(lq, *args):
    return subprocess.run([lq] + [str(a) for a in args], capture_output=True, text=True,
                          timeout=120)


def key_of(body):
    """The message's key from PhpSerializer's body (addslashes(serialize()))."""
    m = re.search(r'key\\*";s:\d+:\\*"(m\d+)', body or "")
    return m.group(1) if m else None


def parse(line):
    parts = line.split()
    if len(parts) < 3:
        return None  # a line cut by a kill
    try:
        return float(parts[1]), parts[0], parts[2], parts[3:]
    except ValueError:
        return None


def main():
    lq, client = sys.argv[1], sys.argv[2]
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 12
    if not shutil.which("php"):
        print("SKIP: php not found (apt-get install %s)" % PACKAGES)
        return SKIP
    r = subprocess.run(["php", client, "check"], capture_output=True, text=True)
    if r.returncode != 0:
        print("SKIP: Symfony Messenger is not installed (%s); apt-get install %s"
              % ((r.stdout + r.stderr).strip()[-300:], PACKAGES))
        return SKIP
    print("client: " + r.stdout.strip())
    started = time.time()
    tmp = tempfile.mkdtemp(prefix="messenger-stress-")
    path = os.path.join(tmp, "data.db")
    log_path = os.path.join(tmp, "events.log")
    stop = os.path.join(tmp, "stop")
    os.environ["LQ_AUDIT_DIR"] = os.path.join(tmp, "audit")
    subprocess.run(["php", client, "create", path], check=True)
    log = open(log_path, "a", buffering=1)
    errs = open(os.path.join(tmp, "clients.err"), "a")

    def note(text):
        log.write("%d %.6f %s\n" % (os.getpid(), time.time(), text))

    def spawn(role, *extra):
        return subprocess.Popen(["php", client, role, path, "--log", log_path, "--stop", stop]
                                + list(extra), stdout=subprocess.DEVNULL, stderr=errs)

    worker_args = ("--redeliver-timeout", str(REDELIVER_TIMEOUT), "--fail-percent", "15",
                   "--work-ms", "20")
    producer = spawn("producer", "--pause-ms", "30", "--poison-percent", "5",
                     "--slow-percent", "3")
    workers = [spawn("worker", *worker_args) for _ in range(3)]
    # LQ_STRESS_LQCTL_REDELIVER_TIMEOUT=1: lqctl told a shorter timeout than
    # the consumers', the broken setup that must make the run fail.
    limit = ["--redeliver-timeout",
             os.environ.get("LQ_STRESS_LQCTL_REDELIVER_TIMEOUT", REDELIVER_TIMEOUT)]
    stats = {"kills": 0, "applied": {}, "by_status": {}, "stale_tried": 0, "madeup_tried": 0,
             "live_refused": 0, "undo_applied": 0, "undo_skipped": 0, "refused": 0,
             "rounds": 0, "pool_downs": 0, "early": 0, "pruned": 0}
    stale_applied, problems = [], []
    deadline = time.time() + seconds
    pool_down = None  # when every consumer was killed at once
    next_kill = time.time() + 1
    tail = {"pos": 0, "open": {}}  # the log read so far; (pid, row) -> open run

    def kill(w):
        w.send_signal(signal.SIGKILL)
        w.wait()
        note("killed %d" % w.pid)
        stats["kills"] += 1

    def handling(ws):
        """Whether one of the consumers ws is handling a message now."""
        with open(log_path) as f:
            f.seek(tail["pos"])
            chunk = f.read()
        end = chunk.rfind("\n") + 1
        tail["pos"] += end
        for line in chunk[:end].splitlines():
            e = parse(line)
            if not e:
                continue
            _, pid, verb, rest = e
            if verb == "run":
                tail["open"][(pid, rest[1])] = True
            elif verb in ("done", "fail"):
                tail["open"].pop((pid, rest[1]), None)
        pids = {str(w.pid) for w in ws}
        return any(pid in pids for pid, _ in tail["open"])

    def proved():
        a = stats["applied"]
        return stats["kills"] and a.get("release") and \
            stats["by_status"].get("delete FAILED", 0) + stats["pruned"]

    while time.time() < deadline or (not proved() and time.time() < deadline + 60):
        now = time.time()
        if pool_down is None and workers and not stats["applied"].get("release") and \
                now > deadline - seconds * 0.6 and handling(workers):
            for w in workers:
                kill(w)
            workers = []
            pool_down = now
            stats["pool_downs"] += 1
        if pool_down is not None and not workers and \
                (stats["applied"].get("release") or now > pool_down + REDELIVER_TIMEOUT + 5):
            workers = [spawn("worker", *worker_args) for _ in range(3)]
            pool_down = None
        if workers and now > next_kill:
            # kill -9 a consumer, as a crash or an OOM kill would (about once a second)
            next_kill = now + random.uniform(0.5, 1.5)
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
                # A live delivery: refused, unless it expired since it was
                # listed (checked by its delivered_at below).
                verb = random.choice(("release", "delete"))
            elif st == "FAILED" and random.random() < 0.2:
                verb = "delete"
            elif st == "READY" and deletes < 1 and random.random() < 0.002:
                verb = "delete"
                deletes += 1
            if verb is None:
                if random.random() < 0.01:
                    stats["madeup_tried"] += 1
                    v = "release" if st == "LOCKED" else "delete"
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
            if st == "LOCKED":
                if after - lock < REDELIVER_TIMEOUT:
                    problems.append("lqctl %s of message %s (%s) applied to a delivery %.2f s old"
                                    % (verb, mid, k, after - lock))
                # Messenger compares whole seconds: delivered_at < the limit
                # 'now - redeliver_timeout' formatted without its fraction.
                if math.floor(before) - REDELIVER_TIMEOUT <= lock:
                    stats["early"] += 1
                # lqctl ran at some t in [before, after]: even at `after` the
                # library would not have taken it yet.
                if math.floor(after) - REDELIVER_TIMEOUT <= lock:
                    problems.append("lqctl %s of message %s (%s): delivered at %.0f, before "
                                    "Messenger's whole-second limit %d"
                                    % (verb, mid, k, lock, math.floor(after) - REDELIVER_TIMEOUT))
            # The operator's screen still shows the old token: the same action
            # again is stale and must be refused.
            time.sleep(random.uniform(0, 0.05))
            stats["stale_tried"] += 1
            if lqctl(lq, verb, path, mid, "--claim", token, *limit).returncode == 0:
                stale_applied.append(("stale", verb, mid))
        if random.random() < 0.02:
            # messenger:failed:remove of the whole failure transport
            r = lqctl(lq, "prune", path, "--yes", "--json", *limit)
            if r.returncode == 0:
                try:
                    stats["pruned"] += json.loads(r.stdout).get("pruned") or 0
                except ValueError:
                    pass
                stats["applied"]["prune"] = stats["applied"].get("prune", 0) + 1
            elif r.returncode not in (1, 4):
                problems.append("lqctl prune: exit %d: %s" % (r.returncode, r.stderr[-300:]))
        time.sleep(0.03)  # CPU for the consumers (CI has 2 cores)
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
    def __init__(self, pid, t, row):
        self.pid, self.t, self.row = pid, t, row
        self.outcome = None  # done, fail
        self.closed = None  # acked, rejected (the row deleted by the consumer)


def check(tmp, path, log_path, seconds, stats, stale_applied, problems, audit, started):
    put, kinds = set(), {}
    rows = {}  # row id -> (key, queue) as the sender stored it
    runs = {}  # key -> [Run]
    row_runs = {}  # row id -> [Run]
    killed = {}  # pid -> when
    closed = {}  # row id -> (verb, pid, t) of the consumer's ack or reject
    ackerr = set()  # keys whose ack or reject threw
    lq_deleted = set()  # row ids lqctl deleted (our log)
    texts = {}
    busy = repeats = takeovers = 0
    events = [e for e in map(parse, open(log_path)) if e]
    events.sort(key=lambda e: e[0])
    inf = float("inf")
    for t, pid, verb, rest in events:
        if verb == "put":
            put.add(rest[0])
            kinds[rest[0]] = rest[1]
        elif verb == "sent":
            rows[rest[1]] = (rest[0], rest[2])
        elif verb == "killed":
            killed[rest[0]] = t
        elif verb == "run":
            k, row = rest[0], rest[1]
            new = Run(pid, t, row)
            for old in row_runs.get(row, []):
                if old.outcome is None and old.pid != pid and killed.get(old.pid, inf) > t:
                    # A consumer, alive, is still handling this row.
                    if t - old.t < REDELIVER_TIMEOUT - 1:
                        problems.append("message %s (%s): run by %s %.2f s into a live delivery"
                                        " to %s" % (row, k, pid, t - old.t, old.pid))
                    else:
                        takeovers += 1
            if row in closed and row not in lq_deleted:
                problems.append("message %s (%s) ran at %.3f after %s %s it"
                                % (row, k, t, closed[row][1], closed[row][0]))
            if runs.get(k):
                repeats += any(r.pid in killed and r.closed is None for r in runs[k])
            runs.setdefault(k, []).append(new)
            row_runs.setdefault(row, []).append(new)
        elif verb in ("done", "fail"):
            for r in reversed(row_runs.get(rest[1], [])):
                if r.pid == pid and r.outcome is None:
                    r.outcome = verb
                    break
        elif verb in ("acked", "rejected"):
            closed[rest[1]] = (verb, pid, t)
            for r in reversed(row_runs.get(rest[1], [])):
                if r.pid == pid:
                    r.closed = verb
                    break
        elif verb == "ackerr":
            ackerr.add(rest[0])
            texts[" ".join(rest[2:])[:100]] = texts.get(" ".join(rest[2:])[:100], 0) + 1
        elif verb == "busy":
            busy += 1
        elif verb == "oops":
            texts[" ".join(rest)[:100]] = texts.get(" ".join(rest)[:100], 0) + 1
        elif verb == "lq" and rest[0] == "delete":
            lq_deleted.add(rest[2])
    if stale_applied:
        problems.append("a stale or made-up token was applied: %s" % stale_applied[:5])

    # lqctl's deletes and prunes as the audit log records them.
    audit_deleted = set()
    for rec in audit:
        if rec.get("action") in ("delete", "prune"):
            audit_deleted |= {str(m["message_id"]) for m in rec.get("messages") or []}
    if not lq_deleted <= audit_deleted:
        problems.append("deletes not in the audit log: %s" % sorted(lq_deleted - audit_deleted)[:5])
    deleted_keys = {rows[i][0] for i in audit_deleted if i in rows}

    # A message handled twice: only if a killed consumer left a row of it
    # behind (a delivery it never acked, or a retry's old row), or an ack or
    # reject threw.
    done = {k for k, rs in runs.items() if any(r.outcome == "done" for r in rs)}
    twice = {k for k, rs in runs.items() if sum(r.outcome == "done" for r in rs) > 1}
    for k in sorted(twice):
        if not (any(r.pid in killed and r.closed is None for r in runs[k]) or k in ackerr):
            problems.append("message %s handled %d times with no consumer killed"
                            % (k, sum(r.outcome == "done" for r in runs[k])))

    c = sqlite3.connect(path, timeout=30)
    if c.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
        problems.append("integrity_check failed")
    in_file, failed_left = {}, 0
    for rid, body, queue, delivered in c.execute(
            "SELECT id, body, queue_name, delivered_at FROM messenger_messages"):
        rid = str(rid)
        k = key_of(body)
        in_file[rid] = k
        what = "message %s (%s, %s)" % (rid, k, queue)
        if k not in put:
            problems.append("%s: not dispatched by the producer" % what)
        if rid not in rows or rows[rid][0] != k:
            problems.append("%s: not a row a sender stored" % what)
        if rid in closed and rid not in lq_deleted:
            problems.append("%s: still here after the consumer %s it" % (what, closed[rid][0]))
        if queue not in ("default", "high", "failed"):
            problems.append("%s: queue_name %r" % (what, queue))
        if queue == "failed":
            failed_left += 1
            if "SentToFailureTransportStamp" not in (body or ""):
                problems.append("%s: in the failure transport without its stamp" % what)
        elif delivered is not None:
            last = (row_runs.get(rid) or [None])[-1]
            if last and last.pid not in killed:
                problems.append("%s: delivered at %s, last handled by %s, not killed"
                                % (what, delivered, last.pid))
    c.close()
    gone = set(rows) - set(in_file) - set(closed) - audit_deleted
    # A consumer killed after its handler returned or threw, before it logged
    # the ack or reject: the DELETE may have committed with no line to say so.
    # Such a row is explained only by a run of it that ended (done or fail) in
    # a consumer that was killed and never closed it.
    cut = {row for row in gone
           if any(r.pid in killed and r.outcome is not None and r.closed is None
                  for r in row_runs.get(row, []))}
    gone -= cut
    if gone:
        problems.append("%d rows vanished (not acked, rejected or deleted by lqctl): %s"
                        % (len(gone), sorted(gone, key=int)[:5]))
    lost = put - done - set(in_file.values()) - deleted_keys
    if lost:
        problems.append("%d messages lost: %s" % (len(lost), sorted(lost)[:5]))
    a = stats["applied"]
    print("messenger stress: %.0f s loop, %.0f s in all; %d messages dispatched (%d poison),"
          " %d rows stored (retries and failures included), %d runs, %d handled (%d twice,"
          " after a kill), %d rows left (%d failed), %d kills (%d times the whole pool);"
          " lqctl applied %s (%d rows pruned), refused %d (%d live deliveries), %d stale and"
          " %d made-up tokens tried and refused, undo applied %d rows and skipped %d; %d runs"
          " Messenger repeated itself after a kill, %d takeovers of a live delivery past the"
          " timeout, %d busy; %d acks or rejects cut off by a kill before their log line;"
          " %d lqctl rounds, applied by listed status %s; %d releases or"
          " deletes of a delivery the library would not take yet (whole seconds); %s"
          % (seconds, time.time() - started, len(put),
             sum(1 for v in kinds.values() if v == "poison"), len(rows),
             sum(len(rs) for rs in runs.values()), len(done), len(twice), len(in_file),
             failed_left, stats["kills"], stats["pool_downs"], a, stats["pruned"],
             stats["refused"], stats["live_refused"], stats["stale_tried"],
             stats["madeup_tried"], stats["undo_applied"], stats["undo_skipped"], repeats,
             takeovers, busy, len(cut), stats["rounds"], stats["by_status"], stats["early"],
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
    if not a.get("release") or not stats["kills"] or not done or \
            not (stats["by_status"].get("delete FAILED") or stats["pruned"]):
        print("proved nothing: %s applied, %d rows pruned, %d kills, %d handled"
              % (a, stats["pruned"], stats["kills"], len(done)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
