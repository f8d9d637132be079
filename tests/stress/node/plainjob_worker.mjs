// SPDX-License-Identifier: MIT
// One stress worker process running the REAL plainjob library (npm plainjob@0.0.14
// = justplainstuff/plainjob@e13a567dcbe7, on better-sqlite3@12.11.1): defineQueue on a
// better-sqlite3 connection to the test file, defineWorker("stress", processor).start().
// The library's worker loop claims (getAndMarkJobAsProcessing, one BEGIN IMMEDIATE),
// runs the processor, then calls markJobAsDone or, when it throws, markJobAsFailed; it
// also runs plainjob's scheduled jobs and its maintenance timer (requeueTimedOutJobs).
//
// What this file adds only observes, for the harness's checks (format_stress.py):
// - the connection handed to defineQueue is plainjob's own better() adapter whose
//   transaction() also writes `["CLAIM", id, [status, next_run_at]]` to the log inside
//   the claim transaction, before its COMMIT (the claim is never unlogged);
// - the queue handed to defineWorker wraps markJobAsDone / markJobAsFailed in one
//   BEGIN IMMEDIATE that first re-reads (status, next_run_at): if it is not the claim's
//   any more, the worker logs LOST and skips its write (plainjob itself would write
//   unguarded; a live claim taken by lqctl is what the run must never see); otherwise
//   the library's own call runs, `DONE?`/`FAILED?` is logged before COMMIT and
//   `DONE`/`FAILED` after it.
//
// usage: node plainjob_worker.mjs MODULES_DIR DB NAME LOG
// MODULES_DIR holds node_modules/ (build/node-stress/plainjob, see scripts/node-stress).
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const [modules, file, , logPath] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modules), "node_modules", "resolve.js"));
const Database = require("better-sqlite3");
const { defineQueue, defineWorker, better } = await import(
  pathToFileURL(require.resolve("plainjob")).href);

const out = fs.openSync(logPath, "a");
const put = (...words) => fs.writeSync(out, JSON.stringify(words) + "\n");
const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const year = 365 * 24 * 3600 * 1000;

const sqlite = new Database(file);
const connection = better(sqlite);
let claiming = false;
let claimToken = null; // the token logged inside the last claim transaction
let tokenStmt;
const token = (id) => tokenStmt.raw().get(id) ?? null;
connection.transaction = (fn) => sqlite.transaction((...a) => {
  const r = fn(...a);
  if (claiming && r && r.id) { // before COMMIT
    claimToken = token(r.id);
    put("CLAIM", r.id, claimToken);
  }
  return r;
});
const queue = defineQueue({
  connection,
  logger: quiet,
  // plainjob's default processing timeout (30 min): only the harness's aging of a dead
  // worker's claim makes a job time out. Its maintenance timer (default every minute)
  // is kept out of the run unless LQ_PLAINJOB_MAINTENANCE_MS asks for it: its requeue
  // keeps the old next_run_at, so the job's next claim is past the timeout at once and
  // a tick while it runs requeues it again (plainjob's own double run, which the
  // harness would report as a live claim taken). See node_stress.py.
  timeout: 30 * 60 * 1000,
  maintenanceInterval: Number(process.env.LQ_PLAINJOB_MAINTENANCE_MS) || 3600 * 1000,
  // Its cleanup would delete the fixture's done and failed rows once the clock is a
  // week past them, which the run would count as lost: kept out of the run.
  removeDoneJobsOlderThan: 100 * year,
  removeFailedJobsOlderThan: 100 * year,
});
tokenStmt = sqlite.prepare("SELECT status, next_run_at FROM plainjob_jobs WHERE id = ?");

const claimed = new Map();
function outcome(id, verb, write) {
  const mine = claimed.get(id);
  claimed.delete(id);
  let wrote = false;
  sqlite.transaction(() => {
    const now = token(id);
    if (JSON.stringify(now) !== JSON.stringify(mine)) {
      put("LOST", id, mine, now);
      return;
    }
    write();
    put(verb + "?", id);
    wrote = true;
  }).immediate();
  if (wrote) put(verb, id);
}
const observed = {
  ...queue,
  getAndMarkJobAsProcessing(type) {
    claiming = true;
    try {
      const got = queue.getAndMarkJobAsProcessing(type);
      if (got) claimed.set(got.id, claimToken);
      return got;
    } finally {
      claiming = false;
    }
  },
  markJobAsDone: (id) => outcome(id, "DONE", () => queue.markJobAsDone(id)),
  markJobAsFailed: (id, error) => outcome(id, "FAILED", () => queue.markJobAsFailed(id, error)),
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const worker = defineWorker("stress", async () => {
  await sleep(Math.random() * 30); // perform
  if (Math.random() < 0.2) throw new Error("stress failure");
}, { queue: observed, logger: quiet, pollIntervall: 20 });
await worker.start();
