// SPDX-License-Identifier: MIT
// The processes of the pg-boss stress run (tests/stress/node/pg_stress.py, issue 41),
// each running the REAL pg-boss library (npm pg-boss@12.27.0, on pg 8) against the
// test's private PostgreSQL server:
//
//   setup  URL            new PgBoss().start() creates its schema `pgboss` (its own
//                         migrations); createQueue("stress") with retryLimit 1,
//                         retryDelay 0 and expireInSeconds 3 (a killed worker's job
//                         times out within the run), then stop.
//   produce URL LOG       boss.send("stress", {n}) in a loop until SIGTERM, logging
//                         ["ADD", id, n, t] once send() has returned (committed). This
//                         instance also supervises (superviseIntervalSeconds and
//                         monitorIntervalSeconds 1): it is
//                         the one that fails active jobs past expire_seconds
//                         ("job timed out"), which pg-boss then retries while retries
//                         remain: its at-least-once after a worker was killed.
//   work URL NAME LOG     a worker: boss.fetch("stress") (one job, includeMetadata),
//                         then perform (0-30 ms), then boss.complete or, one time in
//                         five, boss.fail(new Error("boom")): pg-boss's own statements.
//
// The worker logs, one JSON array a line (t: milliseconds since the epoch, fractional):
//   ["FETCH", ms, t]                     the duration of every fetch() (the claim
//                                        latency the harness reports and bounds)
//   ["CLAIM", id, retryCount, startedOn, t]   after fetch() returned the job (its claim
//                                        committed); retryCount and startedOn are this
//                                        run's attempt marker (pg-boss sets started_on
//                                        on every claim)
//   ["LOST", id, what, t]                the job's row is no longer this claim's
//                                        (state/started_on changed, or gone) before the
//                                        outcome: someone took a live claim
//   ["DONE?", id, t] / ["FAIL?", id, t]  before complete() / fail()
//   ["DONE", id, affected, ms, t] / ["FAIL", id, affected, ms, t]   after it returned;
//                                        affected 0 means the row was not active any
//                                        more (also logged as LOST); ms is its duration
//
// usage: node pgboss_worker.mjs MODULES_DIR setup URL
//        node pgboss_worker.mjs MODULES_DIR produce URL LOG
//        node pgboss_worker.mjs MODULES_DIR work URL NAME LOG
// MODULES_DIR holds node_modules/ (build/node-stress/pgboss, see scripts/node-stress).
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";

const [modules, role, url, ...rest] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modules), "node_modules", "resolve.js"));
const { PgBoss } = await import(pathToFileURL(require.resolve("pg-boss")).href);

const QUEUE = "stress";
const now = () => performance.timeOrigin + performance.now();
let out = null;
const put = (...words) => fs.writeSync(out, JSON.stringify([...words, now()]) + "\n");

function boss(options) {
  const b = new PgBoss({
    connectionString: url,
    schedule: false,
    max: 3,
    ...options,
  });
  b.on("error", (e) => process.stderr.write(`pg-boss error: ${e && e.stack || e}\n`));
  return b;
}

if (role === "setup") {
  const b = boss({ supervise: false });
  await b.start();
  await b.createQueue(QUEUE, { retryLimit: 1, retryDelay: 0, expireInSeconds: 3 });
  await b.stop({ graceful: false, wait: true });
  process.exit(0);
}

if (role === "produce") {
  out = fs.openSync(rest[0], "a");
  const b = boss({ supervise: true, superviseIntervalSeconds: 1, monitorIntervalSeconds: 1 });
  await b.start();
  let stopping = false;
  process.on("SIGTERM", () => { stopping = true; });
  for (let n = 0; !stopping; ++n) {
    const id = await b.send(QUEUE, { n });
    put("ADD", id, n);
    await sleep(8);
  }
  await b.stop({ graceful: false, wait: true });
  process.exit(0);
}

if (role === "work") {
  const [, logPath] = rest;
  out = fs.openSync(logPath, "a");
  const b = boss({ supervise: false });
  await b.start();
  for (;;) {
    const t0 = now();
    const jobs = await b.fetch(QUEUE, { batchSize: 1, includeMetadata: true });
    put("FETCH", now() - t0);
    if (!jobs || jobs.length === 0) {
      await sleep(20);
      continue;
    }
    const job = jobs[0];
    const startedOn = job.startedOn.toISOString();
    put("CLAIM", job.id, job.retryCount, startedOn);
    await sleep(Math.random() * 30); // perform
    const row = await b.getJobById(QUEUE, job.id);
    if (!row || row.state !== "active" || row.startedOn.toISOString() !== startedOn) {
      put("LOST", job.id, row ? `${row.state} ${row.startedOn && row.startedOn.toISOString()}`
        : "gone");
      continue;
    }
    const fail = Math.random() < 0.2;
    put(fail ? "FAIL?" : "DONE?", job.id);
    const t1 = now();
    const r = fail ? await b.fail(QUEUE, job.id, new Error("boom"))
      : await b.complete(QUEUE, job.id);
    put(fail ? "FAIL" : "DONE", job.id, r.affected, now() - t1);
    if (r.affected !== 1)
      put("LOST", job.id, `${fail ? "fail" : "complete"} changed ${r.affected} rows`);
  }
}

process.stderr.write(`unknown role ${role}\n`);
process.exit(2);
