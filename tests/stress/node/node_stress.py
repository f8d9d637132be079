#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""plainjob and liteque under their REAL Node libraries while lqctl acts
(issue 15, "stress with real clients").

The loop, kills, aging and checks are format_stress.py's, unchanged; the
format descriptions are plainjob_stress.py's and liteque_stress.py's (their
insert, token and aging statements); only the workers differ: each worker is
a Node process running the library itself (plainjob_worker.mjs: plainjob
0.0.14's defineQueue + defineWorker on better-sqlite3 12.11.1;
liteque_worker.js: liteque 0.8.0's SqliteQueue + Runner on better-sqlite3
11.3.0), killed with SIGKILL by the harness. The workers log the same lines
as the Python workers (CLAIM id token, LOST, DONE?/DONE, FAILED, ERROR), so
every check of format_stress.py applies: no live claim taken, nothing
completed twice, nothing lost, no made-up or stale token applied,
integrity_check ok, at least one kill and one release applied, no worker
exiting by itself.

The libraries come from npm, which a CI machine may not reach: they are
installed by `scripts/node-stress` into build/node-stress/{plainjob,liteque}
(package.json and package-lock.json beside this file; better-sqlite3 built
from source against /usr/include/node). Without them this exits 77 (ctest's
SKIP) saying so.

Weaker than, or different from, the Python version, and why:
- liteque's claim is logged just AFTER it commits, not inside it.
  attemptDequeue is an async drizzle transaction on better-sqlite3 11.3.0: the
  BEGIN..COMMIT closes at its first await, and the SELECT and the CAS UPDATE
  (new allocationId) run as two autocommit statements. A worker killed
  between that UPDATE and the log line leaves a claim in no log: the harness
  never ages it (the task stays running until its 600 s expireAt, past the
  run; it still exists, so nothing is counted lost), and the harness's rule
  "age the dead worker's claim unless a live worker holds the row" no longer
  sees every committed claim. The aging stays safe because it is guarded by
  the dead worker's allocationId, which every liteque claim replaces with a
  fresh random one: an unlogged live claim cannot match it.
- The producer is still the harness's Python thread running the library's
  insert statement (plainjob add, liteque enqueue; the format files cite
  them), because the harness needs every inserted id the moment it commits.
- The workers' outcome check (re-read the token in the write transaction,
  log LOST and skip the write if it changed) wraps the library's own
  markJobAsDone / markJobAsFailed / finalize in a BEGIN IMMEDIATE; plainjob
  itself writes those unguarded (liteque's finalize has its own CAS).
- Timeouts are the libraries' and long: plainjob 30 min, liteque 600 s, so
  only the harness's aging of a dead worker's claim makes a claim
  abandoned. liteque's workers then race lqctl for it (attemptDequeue also
  takes expired running tasks: liteque's own stuck rule), and lqctl's
  release loses some of those races (refused: new allocationId).
  plainjob's maintenance timer (requeueTimedOutJobs, every minute by
  default) is kept out of the run (LQ_PLAINJOB_MAINTENANCE_MS=2000 puts it
  back): its requeue keeps the old next_run_at, so the job's next claim is
  already past the timeout, and a tick that falls while a worker runs it
  requeues it again -- plainjob's own double run, which this run would
  report as a live claim taken without lqctl having done anything (with
  jobs of at most 30 ms, 12 s runs with a 2 s tick did not hit it).
- plainjob's worker also runs the fixture's cron schedules (jobs of other
  types that no worker here takes); they are not this run's jobs.

usage: node_stress.py plainjob|liteque MODULES_DIR LQCTL FIXTURE [SECONDS]
"""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "formats"))
import format_stress as fs  # noqa: E402
import liteque_stress  # noqa: E402
import plainjob_stress  # noqa: E402

SKIP = 77  # SKIP_RETURN_CODE of the ctest tests
WORKERS = {"plainjob": "plainjob_worker.mjs", "liteque": "liteque_worker.js"}
BASES = {"plainjob": plainjob_stress.Plainjob, "liteque": liteque_stress.Liteque}


def missing(lib, modules):
    """Why the real library cannot run here, or None."""
    if not shutil.which("node"):
        return "node is not installed"
    nm = os.path.join(modules, "node_modules")
    for pkg in (lib, "better-sqlite3"):
        if not os.path.isfile(os.path.join(nm, pkg, "package.json")):
            return "%s is not installed in %s" % (pkg, nm)
    if not os.path.isfile(os.path.join(nm, "better-sqlite3", "build", "Release",
                                       "better_sqlite3.node")):
        return "better-sqlite3 in %s was not built" % nm
    return None


def node_format(lib, modules):
    class Node(BASES[lib]):
        name = lib + "-node"

        def worker_command(self, path, name, log):
            return ["node", os.path.join(HERE, WORKERS[lib]), modules, path, name, log]
    return Node()


def main():
    if len(sys.argv) < 5 or sys.argv[1] not in WORKERS:
        print(__doc__.strip().splitlines()[-1])
        return 2
    lib, modules = sys.argv[1], os.path.abspath(sys.argv[2])
    why = missing(lib, modules)
    if why:
        print("SKIP: %s stress with the real Node library: %s (it comes from the npm "
              "registry, which needs the network). Install it and run both with: "
              "scripts/node-stress" % (lib, why))
        return SKIP
    sys.argv = [sys.argv[0]] + sys.argv[3:]
    return fs.main(node_format(lib, modules), os.path.abspath(__file__))


if __name__ == "__main__":
    sys.exit(main())
