// Writes tests/data/formats/liteque-queue.db with the REAL liteque library
// (npm liteque@0.8.0 = karakeep-app/liteque@394fe166b03a18e2aedeaf1e907c1a960b6c58a2)
// on better-sqlite3@11.3.0 (Karakeep's pin; >= 11.10 makes attemptDequeue throw,
// see docs/FORMATS.md section 3.6). Karakeep-style: one `queue.db`, several queues,
// keepFailedJobs only on youtube_transcript_queue (karakeep-app/karakeep@15baf84da5c4
// packages/shared-server/src/queues.ts), WAL (buildDBClient default).
//
// Every row is written by liteque itself: buildDBClient(runMigrations) ->
// SqliteQueue.enqueue / attemptDequeue / finalize, exactly the calls its Runner
// makes (src/runner.ts): "completed" on success, "pending_retry" or "failed" by
// numRunsLeft on error, "pending_retry" + availableAt + refund on RetryAfterError.
// Only the clock (global Date / Date.now) and Math.random (allocationId) are
// replaced, by a fake clock and a seeded PRNG, so reruns give the same rows.
//
// Usage: node make_liteque.js OUT.db   (the committed copy is tests/data/formats/liteque-queue.db)
"use strict";
const fs = require("fs");

// ---- fake clock + seeded random (installed before liteque is loaded) ----
const RealDate = Date;
const NOW = RealDate.UTC(2026, 10, 30, 12, 0, 0); // 2026-11-30T12:00:00Z: facts are valid here
let clockMs = NOW - 3 * 3600 * 1000;
let tick = 0;
function readClock() { tick = (tick * 7 + 13) % 97; clockMs += 1 + tick; return clockMs; }
class FakeDate extends RealDate {
  constructor(...a) { if (a.length === 0) super(readClock()); else super(...a); }
  static now() { return readClock(); }
}
globalThis.Date = FakeDate;
let seed = 20261130;
Math.random = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
function at(ms) { if (ms < clockMs) throw new Error("clock backwards"); clockMs = ms; }
const min = 60 * 1000;

const { buildDBClient, SqliteQueue, RetryAfterError } = require("liteque");

async function main() {
  const out = process.argv[2];
  for (const s of ["", "-wal", "-shm", "-journal"]) if (fs.existsSync(out + s)) fs.unlinkSync(out + s);
  const db = buildDBClient(out, { runMigrations: true });
  const mk = (name, numRetries, keepFailedJobs = false) =>
    new SqliteQueue(name, db, { defaultJobArgs: { numRetries }, keepFailedJobs });
  const crawler = mk("link_crawler_queue", 5);
  const inference = mk("openai_queue", 3);
  const search = mk("searching_indexing", 5);
  const yt = mk("youtube_transcript_queue", 1, true);
  const ids = {};
  const bm = (i) => "bm" + (1000 + i).toString(36) + "x" + (i * 7919).toString(36);

  // Runner.runOnce, minus the job function: outcome decided by the script.
  async function run(q, timeoutSecs, outcome, durMs = 1500) {
    const job = await q.attemptDequeue({ timeoutSecs });
    if (!job) throw new Error("nothing to dequeue on " + q.name());
    if (outcome === "hang") return job;               // worker died: row stays running
    at(clockMs + durMs);
    if (outcome === "ok") await q.finalize(job.id, job.allocationId, "completed");
    else if (outcome === "error")
      await q.finalize(job.id, job.allocationId, job.numRunsLeft <= 0 ? "failed" : "pending_retry");
    else if (outcome.retryAfterMs)
      await q.finalize(job.id, job.allocationId, "pending_retry", new Date(Date.now() + outcome.retryAfterMs), true);
    return job;
  }

  // 09:00 - bookmarks arrive: crawl, then inference and indexing.
  for (let i = 0; i < 10; i++) { await crawler.enqueue({ bookmarkId: bm(i), runInference: true }); at(clockMs + 20 * 1000); }
  for (let i = 0; i < 6; i++) await inference.enqueue({ bookmarkId: bm(i), type: "tag" });
  for (let i = 0; i < 6; i++) await search.enqueue({ bookmarkId: bm(i), type: "index" }, { idempotencyKey: "index:" + bm(i) });
  // A duplicate idempotency key is ignored by enqueue (ON CONFLICT DO NOTHING).
  ids.duplicate_ignored = (await search.enqueue({ bookmarkId: bm(0), type: "index" }, { idempotencyKey: "index:" + bm(0) })) === undefined;

  at(NOW - 170 * min);
  for (let i = 0; i < 5; i++) await run(crawler, 60, "ok", 4000 + 700 * i);
  ids.crawler_retry_after = (await run(crawler, 60, { retryAfterMs: 3 * 3600 * 1000 })).id; // rate-limited: SCHEDULED, run refunded
  ids.crawler_failed_once_then_claimed_again = (await run(crawler, 60, "error", 9000)).id; // pending_retry; re-claimed at 11:40
  for (let i = 0; i < 4; i++) await run(inference, 30, "ok", 2500);
  for (let i = 0; i < 6; i++) await run(search, 30, "ok", 300);

  // 09:30 - an inference job that keeps failing; openai_queue does not keep failed jobs,
  // so its final failure deletes the row (numRetries 3 -> 4 runs).
  at(NOW - 150 * min);
  const flaky = await inference.enqueue({ bookmarkId: bm(50), type: "summarize" }, { priority: -1 });
  for (let k = 0; k < 4; k++) { await run(inference, 30, "error", 1200); at(clockMs + 30 * 1000); }
  ids.inference_failed_deleted = flaky.id;

  // 10:00 - youtube transcripts (keepFailedJobs: true, numRetries 1): two fail for good (kept), one succeeds.
  at(NOW - 120 * min);
  const y = [];
  for (let i = 0; i < 3; i++) y.push(await yt.enqueue({ bookmarkId: bm(60 + i), url: "https://www.youtube.com/watch?v=vid" + i }));
  // (dequeue order is priority, createdAt; equal createdAt seconds fall back to rowid order)
  const f1 = await run(yt, 120, "error", 5000); await run(yt, 120, "error", 5000);
  ids.yt_completed_deleted = (await run(yt, 120, "ok", 40000)).id;
  at(clockMs + 60 * 1000);
  const f2 = await run(yt, 120, "error", 5000); await run(yt, 120, "error", 5000);
  ids.yt_failed = [f1.id, f2.id];
  // one more transcript job failed once: pending_retry, available now
  const y3 = await yt.enqueue({ bookmarkId: bm(63), url: "https://www.youtube.com/watch?v=vid3" });
  await run(yt, 120, "error", 3000);
  ids.yt_pending_retry = y3.id;

  // 11:40 - a crawler worker dies holding two jobs: running with an expired allocation
  // (expireAt = claim + 60 s < NOW). The second had only one run left (numRunsLeft = 0 now).
  at(NOW - 20 * min);
  const last = await crawler.enqueue({ bookmarkId: bm(80), runInference: false }, { numRetries: 0, priority: -5 });
  ids.running_expired = [(await run(crawler, 60, "hang")).id];
  ids.running_expired.push((await run(crawler, 60, "hang")).id);
  ids.running_expired_last_run = last.id;
  // Same minute, a claim with a 30 min timeout (timeoutSecs is runner config, not stored):
  // still live at NOW although claimed 20 min before it.
  ids.running_live = [(await run(crawler, 1800, "hang")).id];

  // 11:59:30 - live workers: running, expireAt in the future at NOW.
  at(NOW - 30 * 1000);
  ids.running_live.push((await run(inference, 60, "hang")).id);

  // New work: pending now, and delayed (SCHEDULED).
  at(NOW - 10 * 1000);
  ids.pending = [];
  for (let i = 0; i < 3; i++) ids.pending.push((await search.enqueue({ bookmarkId: bm(90 + i), type: "index" }, { idempotencyKey: "index:" + bm(90 + i) })).id);
  ids.pending.push((await inference.enqueue({ bookmarkId: bm(93), type: "tag" }, { priority: 10 })).id);
  ids.scheduled = [(await search.enqueue({ bookmarkId: bm(94), type: "delete" }, { delayMs: 15 * min })).id,
                   (await yt.enqueue({ bookmarkId: bm(95), url: "https://www.youtube.com/watch?v=later" }, { delayMs: 6 * 3600 * 1000 })).id];
  if (clockMs >= NOW) throw new Error("fake clock passed NOW");

  const client = db.$client ?? db.session.client; // drizzle-orm 0.33 keeps it on the session
  client.pragma("wal_checkpoint(TRUNCATE)");
  client.close();
  console.log(JSON.stringify({ now: new RealDate(NOW).toISOString(), now_ms: NOW, fake_clock_end_ms: clockMs, ids }, null, 1));
}
main().catch((e) => { console.error(e); process.exit(1); });
