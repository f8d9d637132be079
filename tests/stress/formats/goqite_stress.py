#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""goqite under worker load while lqctl acts (issue 15).

The workers run goqite's own statements (docs/FORMATS.md#goqite;
maragudk/goqite@23697cc78af6 goqite.go) from Python's sqlite3, because goqite
(a Go module needing Go 1.24) cannot be installed without network in CI:
- send: `insert into goqite (queue, body, timeout, priority) values
  (?,?,?,?) returning id`, timeout = now (a tenth sent with a 1 s delay);
- receive: `update goqite set timeout=?, received=received+1 where id =
  (select id from goqite where queue=? and ? >= timeout and received < ?
  order by priority desc, created limit 1) returning ...`, with a queue
  Timeout of 2 s (goqite's default is 5 s) and maxReceive 3 (goqite's
  default; it is not stored in the file, lqctl assumes the same);
- complete: `delete from goqite where queue=? and id=?` (the row is gone: the
  log is the proof it completed);
- fail: nothing is written; the lease lapses and the next receive counts it,
  until received reaches maxReceive and the message stays as a dead letter.
Token: (received, timeout); goqite's own Delete has no CAS, so the worker
re-reads both before deleting. Aging a dead worker's claim: its timeout moved
to 1 s ago (the lease lapsed), after which the next receive takes it.
goqite has no release (a lapsed lease is READY again): lqctl retries dead
letters (the run's proof action), runs delayed messages now (reschedule),
deletes a few ready ones and tries to delete in-flight ones (refused while
the lease lives), tries made-up tokens and undoes.

usage: goqite_stress.py LQCTL FIXTURE [SECONDS]
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import format_stress as fs  # noqa: E402

LEASE_S = 2.0
MAX_RECEIVE = 3


def gtime(delta_s=0.0):
    """goqite's layout: 2006-01-02T15:04:05.000Z, UTC."""
    return fs.utc(delta_s).strftime("%Y-%m-%dT%H:%M:%S.%f")[:23] + "Z"


class Goqite(fs.Format):
    table = "goqite"
    name = "goqite"
    proof = "retry"
    fail_rate = 0.4

    def insert(self, c, i):
        delay = 1.0 if random.random() < 0.1 else 0.0
        return c.execute("insert into goqite (queue, body, timeout, priority) values ('stress', "
                         "?, ?, ?) returning id",
                         (json.dumps({"n": i}).encode(), gtime(delay),
                          random.randint(0, 2))).fetchone()[0]

    def claim(self, c, worker):
        row = c.execute("update goqite set timeout = ?, received = received + 1 where id = "
                        "(select id from goqite where queue = 'stress' and ? >= timeout and "
                        "received < ? order by priority desc, created limit 1) returning id, "
                        "received, timeout", (gtime(LEASE_S), gtime(), MAX_RECEIVE)).fetchone()
        return (row[0], [row[1], row[2]]) if row else None

    def token(self, c, jid):
        row = c.execute("select received, timeout from goqite where id = ?", (jid,)).fetchone()
        return list(row) if row else None

    def complete(self, c, jid, tok):
        c.execute("delete from goqite where queue = 'stress' and id = ?", (jid,))
        return "DONE"

    def fail(self, c, jid, tok):
        return "ERROR"  # goqite writes nothing: the lease lapses

    def age(self, c, jid, tok):
        c.execute("update goqite set timeout = ? where id = ? and received = ? and timeout = ?",
                  (gtime(-1), jid, tok[0], tok[1]))

    def plan(self, m):
        st = m["status"]
        if st == "FAILED":
            return ("retry",)
        if st == "SCHEDULED" and random.random() < 0.2:
            return ("reschedule", "--delay", "0")
        if st == "LOCKED" and random.random() < 0.05:
            return ("delete",)  # refused while the lease lives
        return None


if __name__ == "__main__":
    sys.exit(fs.main(Goqite(), os.path.abspath(__file__)))
