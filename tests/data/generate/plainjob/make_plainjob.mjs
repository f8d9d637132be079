// Writes tests/data/formats/plainjob.sqlite3 with the REAL plainjob library
// (npm plainjob@0.0.14 = justplainstuff/plainjob@e13a567dcbe7b55b2537331ecbf448bd92cad798)
// on better-sqlite3@12.11.1 (bundled SQLite 3.53.2).
//
// Rows are written only by plainjob's Queue API (src/queue.ts): defineQueue (creates
// the tables, sets journal_mode=WAL), add / addMany, schedule,
// getAndMarkJobAsProcessing, markJobAsDone, markJobAsFailed,
// getAndMarkScheduledJobAsProcessing + markScheduledJobAsIdle, requeueTimedOutJobs,
// called in the order src/worker.ts calls them (error text `${stack}\n${message}`,
// cron next run from cron-parser, then add(type, {})). The maintenance timer
// (setInterval, 1 min) never fires in this synchronous script; its three calls are
// made explicitly where noted. Only the clock (global Date) is faked, so the rows
// are reproducible; stack traces in `error` are fixed strings for the same reason.
//
// Usage: node make_plainjob.mjs OUT.sqlite3
import fs from "node:fs";
process.env.TZ = "UTC"; // cron-parser evaluates in local time

const RealDate = Date;
const NOW = RealDate.UTC(2026, 10, 30, 12, 0, 0); // facts are valid at 2026-11-30T12:00:00Z
let clockMs = NOW - 3 * 3600 * 1000;
let tick = 0;
function readClock() { tick = (tick * 7 + 13) % 97; clockMs += 1 + tick; return clockMs; }
class FakeDate extends RealDate {
  constructor(...a) { if (a.length === 0) super(readClock()); else super(...a); }
  static now() { return readClock(); }
}
globalThis.Date = FakeDate;
const at = (ms) => { if (ms < clockMs) throw new Error("clock backwards"); clockMs = ms; };
const min = 60 * 1000;

const { default: Database } = await import("better-sqlite3");
const { defineQueue, better } = await import("plainjob");
const { default: cronParser } = await import("cron-parser"); // plainjob's own dependency (4.9.0)

const out = process.argv[2];
for (const s of ["", "-wal", "-shm", "-journal"]) if (fs.existsSync(out + s)) fs.unlinkSync(out + s);
const sqlite = new Database(out);
const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const queue = defineQueue({ connection: better(sqlite), logger: quiet });
const ids = {};

function fakeError(message, fn) {
  const e = new Error(message);
  e.stack = `Error: ${message}\n    at ${fn} (file:///srv/app/jobs.mjs:42:11)\n    at processRegularJobs (file:///srv/app/node_modules/plainjob/dist/plainjob.js:423:15)`;
  return e;
}
// worker.processRegularJobs, with the processor's outcome decided here
function work(type, outcome) {
  const got = queue.getAndMarkJobAsProcessing(type);
  if (!got) throw new Error("no job for " + type);
  queue.getJobById(got.id);
  if (outcome === "hang") return got.id;
  at(clockMs + 800);
  if (outcome === "ok") queue.markJobAsDone(got.id);
  else { const e = outcome; queue.markJobAsFailed(got.id, `${e.stack}\n${e.message}`); }
  return got.id;
}
function processScheduled() {
  const sj = queue.getAndMarkScheduledJobAsProcessing();
  if (!sj) return null;
  // cron-parser, as worker.ts: parseExpression(cron).next() from the (fake) current time
  const next = cronParser.parseExpression(sj.cronExpression).next().toDate().getTime();
  queue.markScheduledJobAsIdle(sj.id, next);
  queue.add(sj.type, {});
  return sj.id;
}

// 09:00 - recurring cleanup (every hour) and a batch of mails / thumbnails.
ids.schedule_cleanup = queue.schedule("cleanup", { cron: "0 * * * *" }).id;
ids.schedule_digest = queue.schedule("send-digest", { cron: "30 7 * * 1" }).id;
const mails = queue.addMany("send-email", [1, 2, 3, 4, 5, 6].map((i) => ({ to: `user${i}@example.com`, template: "welcome" }))).ids;
const thumbs = queue.addMany("resize-image", [1, 2, 3].map((i) => ({ key: `uploads/2026/11/img-${i}.jpg`, width: 320 }))).ids;
at(NOW - 170 * min);
for (let i = 0; i < 5; i++) work("send-email", "ok");
ids.failed = [work("send-email", fakeError("SMTP 550: mailbox unavailable", "sendEmail"))];
work("resize-image", "ok");
ids.failed.push(work("resize-image", fakeError("Input buffer contains unsupported image format", "resizeImage")));

// 09:30 - a worker claims a thumbnail and dies. Maintenance requeues it after 30 min
// (status back to 0, READY), with the same id and next_run_at.
at(NOW - 150 * min);
ids.requeued_by_maintenance = work("resize-image", "hang");
at(NOW - 110 * min);
queue.requeueTimedOutJobs(30 * min);          // maintenance: status=1 AND next_run_at < now-30min -> 0

// Cron: schedule() stores next_run_at = 0, so both schedules are due at once; a worker claims it, sets it idle
// with the next hour, and adds a regular "cleanup" job with data {}.
at(NOW - 119 * min + 30 * min);               // 10:31
queue.getScheduledJobs();
ids.cleanup_from_cron = [processScheduled()];
work("cleanup", "ok");

// 11:00 - a report job that waited 45 min in the queue is claimed at 11:45 and is still
// running at NOW; by plainjob's rule (due time, not claim time) it is already "timed out".
at(NOW - 60 * min);
const rep = queue.add("build-report", { month: "2026-11" }).id;
at(NOW - 15 * min);
ids.processing_expired_by_due_time = work("build-report", "hang");

// 11:58 - a live claim, due 1 min before.
at(NOW - 3 * min);
const m7 = queue.add("send-email", { to: "user7@example.com", template: "receipt" }).id;
at(NOW - 2 * min);
ids.processing_live = work("send-email", "hang");

// Pending now (READY) and delayed (SCHEDULED).
at(NOW - 30 * 1000);
ids.pending = queue.addMany("send-email", [8, 9].map((i) => ({ to: `user${i}@example.com`, template: "receipt" }))).ids;
ids.pending.push(queue.add("resize-image", { key: "uploads/2026/11/img-9.jpg", width: 640 }).id);
ids.delayed = [queue.add("send-email", { to: "user1@example.com", template: "trial-ending" }, { delay: 3 * 24 * 3600 * 1000 }).id,
               queue.add("build-report", { month: "2026-12" }, { delay: 20 * min }).id];
if (clockMs >= NOW) throw new Error("fake clock passed NOW");

queue.close();
const ck = new Database(out);
ck.pragma("wal_checkpoint(TRUNCATE)");
ck.close();
console.log(JSON.stringify({ now: new RealDate(NOW).toISOString(), now_ms: NOW, fake_clock_end_ms: clockMs, ids }, null, 1));
