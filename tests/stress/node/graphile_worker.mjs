// SPDX-License-Identifier: MIT
// The processes of the Graphile Worker stress run (tests/stress/node/pg_stress.py,
// issue 41), each running the REAL graphile-worker library (npm graphile-worker@0.18.0,
// the version tests/data/generate/graphile-worker/make_graphile_worker.sh uses) against
// the test's private PostgreSQL server:
//
//   setup  URL            runMigrations(): its schema `graphile_worker` (20 migrations)
//   produce URL LOG       makeWorkerUtils().addJob("stress", {n}, {maxAttempts}) in a
//                         loop until SIGTERM (one job in two with maxAttempts 1, so
//                         that some fail permanently and lqctl has something to
//                         retry), logging ["ADD", id, n, t] once addJob returned
//   work URL NAME LOG     a worker: run() with concurrency 1 and the task "stress"
//                         (perform 0-30 ms, then return, or throw one time in five:
//                         Graphile Worker's failJob, retried after exp(attempts) s
//                         while attempts < max_attempts)
//
// The worker logs, one JSON array a line (t: milliseconds since the epoch, fractional):
//   ["FETCH", ms, t]                 the duration of every get_job (its events
//                                    worker:getJob:start .. job:start or
//                                    worker:getJob:empty): the claim latency the
//                                    harness reports and bounds
//   ["CLAIM", id, attempts, revision, t]   when the task starts (get_job committed);
//                                    attempts and revision are this run's attempt
//                                    marker (get_job increments both)
//   ["LOST", id, what, t]            before the outcome the job's row is not this
//                                    claim's any more (not locked by this pool, or a
//                                    new revision): someone took a live claim
//   ["DONE?", id, t] / ["FAIL?", id, t]   the task returns / throws; Graphile Worker
//                                    then deletes the job (completeJob, batched and not
//                                    awaited: no log line can follow its COMMIT) or
//                                    writes the failure
// A worker killed with SIGKILL leaves its job locked for 4 hours (Graphile Worker's
// rule): it is not taken again within the run.
//
// usage: node graphile_worker.mjs MODULES_DIR setup URL
//        node graphile_worker.mjs MODULES_DIR produce URL LOG
//        node graphile_worker.mjs MODULES_DIR work URL NAME LOG
// MODULES_DIR holds node_modules/ (build/node-stress/graphile, see scripts/node-stress).
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";

const [modules, role, url, ...rest] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modules), "node_modules", "resolve.js"));
const gw = await import(pathToFileURL(require.resolve("graphile-worker")).href);

const now = () => performance.timeOrigin + performance.now();
let out = null;
const put = (...words) => fs.writeSync(out, JSON.stringify([...words, now()]) + "\n");
// Graphile Worker's own log lines go to stderr, only the errors that are not the
// task's own "boom" (logged as failure).
const logger = new gw.Logger(() => (level, message, meta) => {
  if (level === "error" && !(meta && meta.failure))
    process.stderr.write(`graphile-worker: ${message}\n`);
});

if (role === "setup") {
  await gw.runMigrations({ connectionString: url, logger });
  process.exit(0);
}

if (role === "produce") {
  out = fs.openSync(rest[0], "a");
  const utils = await gw.makeWorkerUtils({ connectionString: url, logger });
  let stopping = false;
  process.on("SIGTERM", () => { stopping = true; });
  for (let n = 0; !stopping; ++n) {
    const job = await utils.addJob("stress", { n }, { maxAttempts: n % 2 ? 1 : 2 });
    put("ADD", String(job.id), n);
    await sleep(8);
  }
  await utils.release();
  process.exit(0);
}

if (role === "work") {
  const [, logPath] = rest;
  out = fs.openSync(logPath, "a");
  const runner = await gw.run({
    connectionString: url,
    concurrency: 1,
    maxPoolSize: 3,
    pollInterval: 100,
    noHandleSignals: true,
    logger,
    taskList: {
      async stress(payload, helpers) {
        const job = helpers.job;
        put("CLAIM", String(job.id), job.attempts, job.revision);
        await sleep(Math.random() * 30); // perform
        const row = await helpers.withPgClient((c) => c.query(
          "SELECT locked_by, revision FROM graphile_worker._private_jobs WHERE id = $1",
          [job.id]));
        const r = row.rows[0];
        if (!r || r.locked_by !== job.locked_by || Number(r.revision) !== Number(job.revision)) {
          put("LOST", String(job.id), r ? `locked_by ${r.locked_by} revision ${r.revision}`
            : "gone");
          throw new Error("lost"); // Graphile Worker's failJob then changes nothing (locked_by)
        }
        if (Math.random() < 0.2) {
          put("FAIL?", String(job.id));
          throw new Error("boom");
        }
        put("DONE?", String(job.id));
      },
    },
  });
  const started = new WeakMap();
  runner.events.on("worker:getJob:start", ({ worker }) => started.set(worker, now()));
  const fetched = ({ worker }) => {
    const t0 = started.get(worker);
    if (t0 !== undefined)
      put("FETCH", now() - t0);
  };
  runner.events.on("job:start", fetched);
  runner.events.on("worker:getJob:empty", fetched);
  await runner.promise;
  process.stderr.write("the runner stopped by itself\n");
  process.exit(3);
}

process.stderr.write(`unknown role ${role}\n`);
process.exit(2);
