#!/usr/bin/env python3
"""Write tests/data/formats/goqite.sqlite3: a goqite queue file.

goqite is a Go module and cannot be built here (no Go toolchain, no module
proxy), so this script reproduces it faithfully:

* the schema (table, trigger, index) is executed exactly as upstream writes it
  in maragudk/goqite@23697cc78af6e99a980ebc7a7f8a07d626ff8962 `schema_sqlite.sql`
  (read from that file at run time when --goqite-src is given, else the
  identical text embedded below);
* every row change uses the statement text of `goqite.go` at the same commit
  (Send / Receive / Extend / Delete, SQLite flavour), with parameters bound as
  the Go code binds them: times are `time.Now().UTC()` formatted with
  `rfc3339Milli` = "2006-01-02T15:04:05.000Z07:00" (so `...sss` + `Z`).

The columns `created`/`updated` come from the column defaults and the trigger,
i.e. from SQLite's own clock, exactly as with the library. To make the file
reproducible, the script runs on a fixed fake clock: Go's time.Now() is replaced
by it, and SQLite's 'now' is redirected to it by overriding strftime() on the
writing connection (an application-defined function replaces the built-in, and
column defaults and triggers call it too); randomblob() is seeded the same way. State facts are valid at NOW.

The queue `jobs` holds goqite jobs-runner messages (jobs/runner.go `Create`): gob
bodies of struct{Name string; Message []byte}, produced by `gobbody.go` with Go's
standard library (Debian golang-go 1.19; `go` must be on PATH).

MaxReceive is app config (default 3, not stored); every queue here uses 3.
The per-queue Timeout (lease) is 30 min so LOCKED rows stay LOCKED for a
while after generation; the dead-letter rows were driven to received=3 with a
queue whose Timeout is 1 ms.

Usage: python3 make_goqite.py OUT.sqlite3 [--goqite-src <checkout>]
"""
import datetime as dt
import json
import os
import random
import sqlite3
import subprocess
import sys

SCHEMA = """create table goqite (
  id text primary key default ('m_' || lower(hex(randomblob(16)))),
  created text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  updated text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  queue text not null,
  body blob not null,
  timeout text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  received integer not null default 0,
  priority integer not null default 0
) strict;

create trigger goqite_updated_timestamp after update on goqite begin
  update goqite set updated = strftime('%Y-%m-%dT%H:%M:%fZ') where id = old.id;
end;

create index goqite_queue_priority_created_idx on goqite (queue, priority desc, created);
"""

SEND = "insert into goqite (queue, body, timeout, priority) values (?, ?, ?, ?) returning id"
RECEIVE = """
			update goqite
			set
				timeout = ?,
				received = received + 1
			where id = (
				select id from goqite
				where
					queue = ? and
					? >= timeout and
					received < ?
				order by priority desc, created
				limit 1
			)
			returning id, body"""
EXTEND = "update goqite set timeout = ? where queue = ? and id = ?"
DELETE = "delete from goqite where queue = ? and id = ?"


def gob_bodies(pairs):
    """jobs.Create bodies, from gobbody.go (encoding/gob, deterministic)."""
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, GOFLAGS="-mod=mod", GOPATH=os.environ.get("GOPATH", "/tmp/lqa-gopath"),
               GOCACHE=os.environ.get("GOCACHE", "/tmp/lqa-gocache"), GO111MODULE="off")
    out = subprocess.run(["go", "run", os.path.join(here, "gobbody.go")], input="".join("%s\t%s\n" % p for p in pairs),
                         capture_output=True, text=True, env=env, check=True).stdout
    return [bytes.fromhex(line) for line in out.split()]


def go_time(t):
    """Go's t.UTC().Format("2006-01-02T15:04:05.000Z07:00")."""
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)


NOW = dt.datetime(2026, 11, 30, 12, 0, 0, tzinfo=dt.timezone.utc)
_clock = [NOW - dt.timedelta(hours=2)]


def now():
    _clock[0] += dt.timedelta(microseconds=1700)
    return _clock[0]


def sleep(seconds):
    _clock[0] += dt.timedelta(seconds=seconds)


def install_fake_sqlite_clock(db):
    helper = sqlite3.connect(":memory:")

    def strftime(fmt, *args):
        t = _clock[0]
        text = t.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (t.microsecond // 1000)
        args = [text if a == "now" else a for a in args] or [text]
        return helper.execute("SELECT strftime(?" + ",?" * len(args) + ")", [fmt, *args]).fetchone()[0]
    db.create_function("strftime", -1, strftime)
    # ... and randomblob() (the id default) from a seeded PRNG, for reproducible ids
    rng = random.Random(23697)
    db.create_function("randomblob", 1, lambda n: rng.getrandbits(8 * n).to_bytes(n, "big"))


class Queue:
    def __init__(self, db, name, timeout_s=30 * 60, max_receive=3):
        self.db, self.name, self.timeout, self.max_receive = db, name, timeout_s, max_receive

    def tx(self):
        # internalsql.InTx: BEGIN ... COMMIT (database/sql default, deferred)
        self.db.execute("BEGIN")

    def send(self, body, delay_s=0.0, priority=0):
        self.tx()
        t = now() + dt.timedelta(seconds=delay_s)
        (mid,) = self.db.execute(SEND, (self.name, body, go_time(t), priority)).fetchone()
        self.db.execute("COMMIT")
        return mid

    def receive(self):
        self.tx()
        n = now()
        row = self.db.execute(
            RECEIVE,
            (go_time(n + dt.timedelta(seconds=self.timeout)), self.name, go_time(n), self.max_receive),
        ).fetchone()
        self.db.execute("COMMIT")
        return row

    def extend(self, mid, delay_s):
        self.tx()
        self.db.execute(EXTEND, (go_time(now() + dt.timedelta(seconds=delay_s)), self.name, mid))
        self.db.execute("COMMIT")

    def delete(self, mid):
        self.tx()
        self.db.execute(DELETE, (self.name, mid))
        self.db.execute("COMMIT")


def main():
    out = sys.argv[1]
    schema = SCHEMA
    if "--goqite-src" in sys.argv:
        with open(os.path.join(sys.argv[sys.argv.index("--goqite-src") + 1], "schema_sqlite.sql")) as f:
            schema = f.read()
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(out + suffix):
            os.remove(out + suffix)
    db = sqlite3.connect(out, isolation_level=None)
    install_fake_sqlite_clock(db)
    # goqite's README/tests open SQLite with WAL (`_journal=WAL`); keep WAL.
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(schema)
    started = go_time(now())
    sleep(5 * 60)

    emails = Queue(db, "emails")
    fast_emails = Queue(db, "emails", timeout_s=0.001)
    thumbs = Queue(db, "thumbnails")
    fast_thumbs = Queue(db, "thumbnails", timeout_s=0.001)
    webhooks = Queue(db, "webhooks")

    def body(kind, i):
        return json.dumps({"kind": kind, "n": i}).encode()

    # Dead letters first (oldest `created`, so receive picks them): received
    # reaches MaxReceive=3 via three receives whose 1 ms lease each lapses.
    dead_e = emails.send(body("email", 0))
    for _ in range(3):
        sleep(0.01)
        fast_emails.receive()
    dead_t = thumbs.send(b"\x89PNG\r\n\x1a\n\x00\x00broken")
    for _ in range(3):
        sleep(0.01)
        fast_thumbs.receive()
    sleep(0.01)
    ids = {"dead_emails": dead_e, "dead_thumbnails": dead_t}
    # Normal traffic, an hour later.
    sleep(3600)
    e = [emails.send(body("email", i)) for i in range(2, 9)]         # 7
    t = [thumbs.send(body("thumb", i), priority=(1 if i == 3 else 0)) for i in range(2, 8)]  # 6
    w = [webhooks.send(body("hook", i)) for i in range(1, 5)]        # 4
    sched = [emails.send(body("email-later", 1), delay_s=3600),
             webhooks.send(body("hook-later", 1), delay_s=2 * 3600),
             webhooks.send(body("hook-later", 2), delay_s=24 * 3600, priority=5)]
    ids["scheduled"] = sched

    # jobs-runner messages (gob bodies) on queue "jobs": two due, one delayed 3 h,
    # and one whose runner died after receiving it (lease lapsed: READY, received 1).
    jobs_q = Queue(db, "jobs", timeout_s=5)
    bodies = gob_bodies([("send-newsletter", '{"issue":48}'), ("rebuild-search-index", ""),
                         ("send-newsletter", '{"issue":49}'), ("charge-subscriptions", '{"batch":7}')])
    ids["jobs_runner"] = [jobs_q.send(bodies[0]), jobs_q.send(bodies[1]),
                          jobs_q.send(bodies[2], delay_s=3 * 3600), jobs_q.send(bodies[3], priority=1)]
    jobs_q.receive()                          # the priority-1 message; its 5 s lease lapses

    # Receives: the dead-letter rows are skipped (received >= 3); rows with a
    # lapsed 1 ms lease are taken first by `created` order.
    sleep(50 * 60)   # 11:55: receives whose 30 min lease is still live at NOW
    got = []
    for _ in range(3):
        got.append(emails.receive())          # e[0], e[1], e[2]
    for _ in range(2):
        got.append(thumbs.receive())          # t[1] (priority 1), t[0]
    got.append(webhooks.receive())            # w[0]
    # Complete some (Delete = done; not stored).
    emails.delete(got[0][0])                  # e[0] done
    thumbs.delete(got[4][0])                  # t[0] done
    # Extend one in-flight message by 2 h (jobs runner style).
    emails.extend(got[1][0], 2 * 3600)
    ids["received_live"] = [g[0] for i, g in enumerate(got) if i not in (0, 4)]
    ids["extended"] = got[1][0]
    ids["deleted"] = [got[0][0], got[4][0]]

    # Failed deliveries whose lease lapsed: READY again with received 1 / 2.
    # Priority 2 makes the 1 ms-lease receive pick exactly these rows.
    sleep(0.01)
    ids["ready_received1"] = emails.send(body("email", 90), priority=2)
    fast_emails.receive()
    ids["ready_received2"] = thumbs.send(body("thumb", 90), priority=2)
    fast_thumbs.receive(); sleep(0.01); fast_thumbs.receive(); sleep(0.01)

    ended = go_time(now())
    assert _clock[0] < NOW
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    print(json.dumps({"now": go_time(NOW), "fake_clock_start": started, "fake_clock_end": ended, "ids": ids}, indent=1))


if __name__ == "__main__":
    main()
