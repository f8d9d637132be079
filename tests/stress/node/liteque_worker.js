// SPDX-License-Identifier: MIT
// One stress worker process running the REAL liteque library (npm liteque@0.8.0 =
// karakeep-app/liteque@394fe166b03a, on better-sqlite3@11.3.0, Karakeep's pin):
// buildDBClient(file) -> new SqliteQueue("stress", db, {numRetries 2, keepFailedJobs})
// -> new Runner(queue, {run}, {concurrency 1, timeoutSecs}).run(). The Runner claims
// (attemptDequeue: the oldest due pending / pending_retry task, or a running one whose
// expireAt passed, CAS on allocationId with a fresh one), calls run, then finalizes:
// "completed" deletes the row, an error gives pending_retry or failed by numRunsLeft.
//
// What this file adds only observes, for the harness's checks (format_stress.py):
// - CLAIM: liteque's claim cannot be logged inside its transaction. attemptDequeue is
//   an async drizzle transaction on better-sqlite3 11.3.0: the BEGIN..COMMIT closes
//   at the function's first await and its SELECT and CAS UPDATE then run as two
//   autocommit statements (the CAS on allocationId is what makes it safe). So the
//   worker logs `["CLAIM", id, ["running", allocationId]]` when attemptDequeue returns
//   the row, just after its commit; a kill in between leaves a claim in no log (see
//   node_stress.py for what that weakens).
// - the queue's finalize runs in one BEGIN IMMEDIATE that first re-reads
//   (status, allocationId): if it is not the claim's any more, the worker logs LOST and
//   skips the call (liteque's own CAS would make it a no-op); otherwise liteque's
//   finalize runs, `DONE?`/`ERROR?`/`FAILED?` is logged before COMMIT and the verb
//   after it. With concurrency 1 nothing else of this process touches the connection
//   between BEGIN and COMMIT (finalize's statements are awaited thenables).
//
// usage: node liteque_worker.js MODULES_DIR DB NAME LOG
// MODULES_DIR holds node_modules/ (build/node-stress/liteque, see scripts/node-stress).
"use strict";
const fs = require("fs");
const path = require("path");
const { createRequire } = require("module");

const [modules, file, , logPath] = process.argv.slice(2);
const req = createRequire(path.join(path.resolve(modules), "node_modules", "resolve.js"));
const { buildDBClient, SqliteQueue, Runner } = req("liteque");

const out = fs.openSync(logPath, "a");
const put = (...words) => fs.writeSync(out, JSON.stringify(words) + "\n");
// liteque's timeout: long, so that only the harness's aging of a dead worker's claim
// (expireAt moved into the past) makes a running task expire within the run.
const TIMEOUT_SECS = 600;

async function main() {
  const db = buildDBClient(file); // WAL, as Karakeep; the fixture is migrated already
  const sqlite = db.$client ?? db.session.client;
  const tokenStmt = sqlite.prepare("SELECT status, allocationId FROM tasks WHERE id = ?").raw();
  const token = (id) => tokenStmt.get(id) ?? null;
  const queue = new SqliteQueue("stress", db, {
    defaultJobArgs: { numRetries: 2 },
    keepFailedJobs: true,
  });
  const claimed = new Map();
  const dequeue = queue.attemptDequeue.bind(queue);
  queue.attemptDequeue = async (opts) => {
    const job = await dequeue(opts);
    if (job) {
      claimed.set(job.id, ["running", job.allocationId]);
      put("CLAIM", job.id, ["running", job.allocationId]);
    }
    return job;
  };
  const finalize = queue.finalize.bind(queue);
  queue.finalize = async (id, allocationId, status, ...rest) => {
    const mine = claimed.get(id);
    claimed.delete(id);
    const verb = { completed: "DONE", pending_retry: "ERROR", failed: "FAILED" }[status];
    sqlite.exec("BEGIN IMMEDIATE");
    let wrote = false;
    try {
      const now = token(id);
      if (mine && JSON.stringify(now) !== JSON.stringify(mine)) {
        put("LOST", id, mine, now);
      } else {
        await finalize(id, allocationId, status, ...rest);
        if (mine) put(verb + "?", id);
        wrote = true;
      }
    } catch (e) {
      sqlite.exec("ROLLBACK");
      throw e;
    }
    sqlite.exec("COMMIT");
    if (wrote && mine) put(verb, id);
  };
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const runner = new Runner(queue, {
    run: async () => {
      await sleep(Math.random() * 30); // perform
      if (Math.random() < 0.2) throw new Error("stress failure");
    },
  }, { concurrency: 1, pollIntervalMs: 20, timeoutSecs: TIMEOUT_SECS });
  await runner.run();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
