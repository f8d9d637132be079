// Writes tests/data/formats/river-v7.sqlite3 and river-v7-damaged-jsonb.sqlite3:
// River (riverqueue/river@fdf6cdf12567a5b70c003f5ff850273f09e7efcf, after 0.43.0)
// schema version 7 on SQLite, JSONB columns.
//
// River needs Go >= 1.25 modules, which cannot be fetched here. This script
// reproduces it faithfully instead, reading River's own SQL from a checkout at
// run time (nothing of it is copied into this repository):
//   * riverdriver/riversqlite/migration/main/00{1..7}_*.up.sql, applied in order with
//     the `/* TEMPLATE: schema */` markers removed, each in its own transaction
//     followed by River's river_migration insert (RiverMigrationInsertManyAssumingMain
//     before version 5, RiverMigrationInsertMany after);
//   * riverdriver/riversqlite/internal/dbsqlc/{river_job,river_queue,river_leader}.sql:
//     the named queries JobInsertFast, JobGetAvailable (with the driver's
//     attempted_by clause from river_sqlite_driver.go), JobSetStateIfRunning,
//     JobRescue, JobCancel, JobScheduleGetEligible/JobScheduleSetAvailable,
//     QueueCreateOrSetUpdatedAt, LeaderAttemptElect. sqlc parameters
//     (`@x`, `sqlc.arg(x)`, `sqlc.narg('x')`, `sqlc.slice('x')`) are bound by name.
// It runs on better-sqlite3 12.11.1, whose bundled SQLite 3.53.2 has jsonb().
//
// Parameter encoding follows river_sqlite_driver.go: parameters cast AS text
// (now, created_at, scheduled_at on insert, finalized_at on rescue) get
// timeString(): UTC, layout "2006-01-02 15:04:05.999" (ms, trailing zeros trimmed).
// JobSetStateIfRunning's finalized_at / scheduled_at and JobRescue's scheduled_at
// are bound as Go time.Time, which modernc.org/sqlite (the driver River's docs and
// tests use) writes with time.Time.String() unless the DSN sets _time_format:
// "2026-11-30 10:00:01.234 +0000 UTC". The script writes exactly that.
//
// Clock: fixed, as with River's Config.Test.Time stub (NowOrNil returns the stub,
// so every `now` is bound explicitly; a stubbed time has no monotonic reading).
// Facts are valid at NOW. river_migration.created_at comes from the column
// default CURRENT_TIMESTAMP, i.e. the real generation time.
//
// Usage: node make_river.js <river checkout> OUT.sqlite3 OUT-damaged.sqlite3
"use strict";
const fs = require("fs");
const path = require("path");
const Database = require("better-sqlite3");

const [src, out, outDamaged] = process.argv.slice(2);
const rd = (p) => fs.readFileSync(path.join(src, p), "utf8");
const noSchema = (s) => s.replace(/\/\* TEMPLATE: schema \*\//g, "");

// ---- River's queries, by name ----
function loadQueries(file) {
  const text = rd(file), q = {};
  const parts = text.split(/^-- name: /m).slice(1);
  for (const p of parts) {
    const name = p.split(/\s/)[0];
    let body = p.slice(p.indexOf("\n") + 1);
    body = body.replace(/^--.*$/gm, "").trim();         // drop comments between queries
    body = body.slice(0, body.lastIndexOf(";") + 1);
    q[name] = noSchema(body)
      .replace(/sqlc\.narg\('(\w+)'\)/g, "@$1")
      .replace(/sqlc\.arg\('?(\w+)'?\)/g, "@$1");
  }
  return q;
}
const Q = Object.assign({},
  loadQueries("riverdriver/riversqlite/internal/dbsqlc/river_job.sql"),
  loadQueries("riverdriver/riversqlite/internal/dbsqlc/river_queue.sql"),
  loadQueries("riverdriver/riversqlite/internal/dbsqlc/river_leader.sql"),
  loadQueries("riverdriver/riversqlite/internal/dbsqlc/river_migration.sql"));
const driverGo = rd("riverdriver/riversqlite/river_sqlite_driver.go");
const attemptedByClause = driverGo.split("var jobGetAvailableAttemptedBySQL = strings.TrimSpace(`")[1].split("`)")[0].trim();
Q.JobGetAvailable = Q.JobGetAvailable.replace(
  /\/\* TEMPLATE_BEGIN: attempted_by_clause \*\/[\s\S]*?\/\* TEMPLATE_END \*\//, attemptedByClause);
Q.JobScheduleSetAvailable = Q.JobScheduleSetAvailable.replace("sqlc.slice('id')", "SELECT value FROM json_each(@ids)");

// ---- time encodings ----
const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);
let clock = NOW - 4 * 3600 * 1000;
const at = (ms) => { if (ms < clock) throw new Error("clock backwards"); clock = ms; };
const tick = (ms) => (clock += ms);
function timeString(ms) {                   // "2006-01-02 15:04:05.999" on UTC, ms precision
  const d = new Date(ms), iso = d.toISOString();
  let frac = iso.slice(20, 23).replace(/0+$/, "");
  return iso.slice(0, 10) + " " + iso.slice(11, 19) + (frac ? "." + frac : "");
}
function goTimeString(ms) {                 // time.Time.String() of a UTC time (no monotonic)
  const iso = new Date(ms).toISOString();
  let frac = iso.slice(20, 23).replace(/0+$/, "");
  return iso.slice(0, 10) + " " + iso.slice(11, 19) + (frac ? "." + frac : "") + " +0000 UTC";
}
function rfc3339Nano(ms) {                  // Go JSON encoding of a UTC time.Time
  const iso = new Date(ms).toISOString();
  let frac = iso.slice(20, 23).replace(/0+$/, "");
  return iso.slice(0, 19) + (frac ? "." + frac : "") + "Z";
}

function build(file, small) {
  clock = NOW - 4 * 3600 * 1000;
  for (const s of ["", "-wal", "-shm", "-journal"]) if (fs.existsSync(file + s)) fs.unlinkSync(file + s);
  const db = new Database(file);
  // River sets no journal_mode (only its `river bench` CLI command switches a target
  // to WAL), so the file keeps SQLite's default rollback journal.
  // ---- migrations 1..7 ----
  const dir = "riverdriver/riversqlite/migration/main";
  const ups = fs.readdirSync(path.join(src, dir)).filter((f) => f.endsWith(".up.sql")).sort();
  for (const f of ups) {
    const version = parseInt(f.slice(0, 3), 10);
    db.transaction(() => {
      db.exec(noSchema(rd(path.join(dir, f))));
      if (version < 5) db.prepare(noSchema(Q.RiverMigrationInsertManyAssumingMain.replace("cast(@versions AS blob)", "@versions"))).all({ versions: JSON.stringify([version]) });
      else db.prepare(noSchema(Q.RiverMigrationInsertMany.replace("cast(@versions AS blob)", "@versions"))).all({ line: "main", versions: JSON.stringify([version]) });
    })();
  }
  const stmt = {};
  for (const k of Object.keys(Q)) { try { stmt[k] = db.prepare(Q[k]); } catch (e) { /* queries for other tables/versions */ } }
  const clientA = "app-1_2026_11_30T08_00_00_000000", clientB = "app-2_2026_11_30T08_00_00_000000";

  function insert(kind, args, o = {}) {
    tick(3);
    const sched = o.scheduledAt ?? clock;
    return stmt.JobInsertFast.get({
      id: null, args: JSON.stringify(args), created_at: timeString(clock), kind,
      max_attempts: o.maxAttempts ?? 25, metadata: JSON.stringify(o.metadata ?? {}), priority: o.priority ?? 1,
      queue: o.queue ?? "default", scheduled_at: timeString(sched),
      state: o.pending ? "pending" : sched > clock ? "scheduled" : "available",
      tags: JSON.stringify(o.tags ?? []), unique_key: null, unique_states: null,
    }).id;
  }
  function fetch(queue, n, client) {
    tick(5);
    return stmt.JobGetAvailable.all({ now: timeString(clock), queue, max_to_lock: n, attempted_by: client, max_attempted_by: 100 })
      .map((r) => r.id);
  }
  function setState(id, p) {
    // JobSetStateIfRunningMany's parameter mapping for one job
    return stmt.JobSetStateIfRunning.get({
      id, state: p.state, now: timeString(clock),
      attempt_do_update: p.attempt !== undefined ? 1 : 0, attempt: p.attempt ?? 0,
      errors_do_update: p.error ? 1 : 0, error: p.error ? JSON.stringify(p.error) : "{}",
      finalized_at_do_update: p.finalizedAt !== undefined ? 1 : 0, finalized_at: p.finalizedAt !== undefined ? goTimeString(p.finalizedAt) : null,
      metadata_do_merge: p.metadata ? 1 : 0, metadata_updates: JSON.stringify(p.metadata ?? {}),
      scheduled_at_do_update: p.scheduledAt !== undefined ? 1 : 0, scheduled_at: p.scheduledAt !== undefined ? goTimeString(p.scheduledAt) : null,
    });
  }
  const attemptOf = (id) => db.prepare("SELECT attempt FROM river_job WHERE id = ?").get(id).attempt;
  const errorsOf = (id) => db.prepare("SELECT json_array_length(errors) n FROM river_job WHERE id = ?").get(id).n ?? 0;
  const complete = (id, ms = 120) => { tick(ms); return setState(id, { state: "completed", finalizedAt: clock }); };
  function fail(id, msg, ms = 300) {                     // executor: retryable (errors^4 s) or discarded
    tick(ms);
    const a = attemptOf(id), row = db.prepare("SELECT max_attempts m FROM river_job WHERE id = ?").get(id);
    const error = { at: rfc3339Nano(clock), attempt: a, error: msg, trace: "goroutine 42 [running]:\nmain.(*Worker).Work(...)\n\t/app/worker.go:31 +0x1d" };
    if (a >= row.m) return setState(id, { state: "discarded", finalizedAt: clock, error });
    const next = clock + Math.pow(errorsOf(id) + 1, 4) * 1000;
    return setState(id, { state: "retryable", scheduledAt: next, error });
  }
  const stage = () => {                                  // JobScheduler: scheduled/retryable due -> available
    const ids = stmt.JobScheduleGetEligible.all({ now: timeString(clock), max: 10000 }).map((r) => r.id);
    if (ids.length) stmt.JobScheduleSetAvailable.all({ ids: JSON.stringify(ids) });
    return ids;
  };

  // ---- queues and leader ----
  for (const name of ["default", "email", "billing"]) stmt.QueueCreateOrSetUpdatedAt.get({ now: timeString(clock), metadata: "{}", name, paused_at: null, updated_at: null });
  stmt.LeaderAttemptElect.get({ leader_id: clientA, now: timeString(NOW - 10 * 1000), ttl: "+15 seconds" });

  const ids = {};
  if (small) {
    // the small file for the damaged-JSONB variant: three plain jobs
    at(NOW - 60 * 1000);
    ids.available = [insert("send_email", { to: "a@example.com", template: "welcome" }, { queue: "email" }),
                     insert("send_email", { to: "b@example.com", template: "welcome" }, { queue: "email" })];
    ids.completed = insert("charge_card", { invoice_id: 9001, amount_cents: 1999 }, { queue: "billing" });
    fetch("billing", 1, clientA); complete(ids.completed);
    db.pragma("wal_checkpoint(TRUNCATE)");
    db.close();
    return ids;
  }

  // 08:00 - a morning batch
  const mails = [];
  for (let i = 1; i <= 6; i++) mails.push(insert("send_email", { to: `user${i}@example.com`, template: "welcome" }, { queue: "email", tags: ["signup"] }));
  const bills = [];
  for (let i = 1; i <= 4; i++) bills.push(insert("charge_card", { invoice_id: 9000 + i, amount_cents: 1000 * i + 99 }, { queue: "billing", priority: 2, maxAttempts: 3 }));
  const crm = insert("sync_crm", { account_id: 77 });
  at(NOW - 235 * 60 * 1000);
  for (const id of fetch("email", 5, clientA)) complete(id);
  const b = fetch("billing", 4, clientB);
  complete(b[0]); complete(b[1]);
  fail(b[2], "card_declined: insufficient funds");          // retryable, 1 s
  fail(b[3], "stripe: 500 internal error");
  ids.completed = [...mails.slice(0, 5), b[0], b[1]];
  // billing b[2] exhausts its 3 attempts -> discarded
  for (let k = 0; k < 2; k++) {
    at(clock + 60 * 1000); stage();
    const got = fetch("billing", 4, clientB);
    for (const id of got) id === b[2] ? fail(id, "card_declined: insufficient funds") : complete(id);
  }
  ids.discarded = b[2];
  ids.completed.push(b[3]);

  // 08:30 - a job that ran twice and failed twice; staged back to available at 11:59
  // (READY at NOW with attempt 2 and two errors)
  at(NOW - 210 * 60 * 1000);
  const flaky = insert("sync_crm", { account_id: 78 });
  fetch("default", 2, clientA); fail(crm, "crm: timeout after 30s"); fail(flaky, "crm: timeout after 30s");
  at(clock + 30 * 1000); stage(); fetch("default", 2, clientA);
  complete(crm); fail(flaky, "crm: 429 too many requests");
  ids.available_after_two_errors = flaky;

  // 09:00 - cancellations: a scheduled job cancelled through JobCancel (not running)
  at(NOW - 180 * 60 * 1000);
  const canc = insert("send_email", { to: "unsubscribed@example.com", template: "promo" }, { queue: "email", scheduledAt: NOW + 3600 * 1000 });
  stmt.JobCancel.get({ id: canc, now: timeString(clock), cancel_attempted_at: rfc3339Nano(clock) });
  ids.cancelled = canc;

  // 09:30 - a job claimed by a client that then died; the JobRescuer (1 h) rescues it at 10:35
  at(NOW - 150 * 60 * 1000);
  const stuck1 = insert("sync_crm", { account_id: 79 }, { priority: 3 });
  fetch("default", 1, clientB);
  at(NOW - 85 * 60 * 1000);
  const nextRetry = clock + 16 * 1000 * 3600;             // rescuer's retry policy result, bound as time.Time (.UTC())
  stmt.JobRescue.run({
    id: stuck1, error: JSON.stringify({ at: rfc3339Nano(clock), attempt: 1, error: "Stuck job rescued by JobRescuer", trace: "" }),
    finalized_at: null, scheduled_at: goTimeString(nextRetry), state: "retryable",
  });
  ids.retryable_rescued = stuck1;

  // 10:40 - a job that snoozed for 3 h: state scheduled, attempt restored
  at(NOW - 80 * 60 * 1000);
  const sn = insert("sync_crm", { account_id: 80 }, { priority: 2 });
  fetch("default", 1, clientA); tick(50);
  setState(sn, { state: "scheduled", scheduledAt: clock + 3 * 3600 * 1000, attempt: attemptOf(sn) - 1, metadata: { snoozes: 1 } });
  ids.scheduled_snoozed = sn;

  // 10:40 - running for 80 min: stuck by the rescuer's 1 h rule at NOW (not rescued yet)
  const stuck2 = insert("charge_card", { invoice_id: 9100, amount_cents: 45000 }, { queue: "billing", priority: 1, maxAttempts: 3 });
  fetch("billing", 1, clientB);
  ids.running_stuck = stuck2;
  // a running job whose cancellation was requested: stays running, metadata.cancel_attempted_at
  const rc = insert("charge_card", { invoice_id: 9101, amount_cents: 500 }, { queue: "billing", maxAttempts: 3 });
  fetch("billing", 1, clientB);
  stmt.JobCancel.get({ id: rc, now: timeString(clock), cancel_attempted_at: rfc3339Nano(clock) });
  ids.running_cancel_attempted = rc;

  // 11:59 - live work
  at(NOW - 50 * 1000);
  const live = [insert("send_email", { to: "ops@example.com", template: "digest" }, { queue: "email", priority: 1 }),
                insert("sync_crm", { account_id: 81 })];
  ids.running_live = [...fetch("email", 2, clientA), ...fetch("default", 1, clientA)];
  // failed 30 s ago at attempt 3: retryable with its retry after NOW (3 errors -> 81 s)
  const r3 = insert("charge_card", { invoice_id: 9102, amount_cents: 700 }, { queue: "billing", priority: 4, maxAttempts: 5 });
  for (let k = 0; k < 3; k++) { const got = fetch("billing", 1, clientA); if (got[0] !== r3) throw new Error("unexpected " + got); fail(r3, "crm: connection reset by peer", 100); if (k < 2) { at(clock + Math.pow(k + 1, 4) * 1000 + 1); stage(); } }
  ids.retryable_future = r3;

  // available now / in the future, pending
  at(NOW - 5 * 1000);
  ids.available = [flaky, insert("send_email", { to: "user7@example.com", template: "welcome" }, { queue: "email", tags: ["signup"] }),
                   insert("charge_card", { invoice_id: 9200, amount_cents: 250 }, { queue: "billing", priority: 2, maxAttempts: 3 })];
  ids.scheduled = [insert("send_email", { to: "user1@example.com", template: "trial_ending" }, { queue: "email", scheduledAt: NOW + 3 * 86400 * 1000 }),
                   insert("charge_card", { invoice_id: 9300, amount_cents: 9900 }, { queue: "billing", scheduledAt: NOW + 86400 * 1000, maxAttempts: 3 })];
  ids.pending = [insert("sync_crm", { account_id: 83 }, { pending: true }), insert("sync_crm", { account_id: 84 }, { pending: true })];
  if (clock >= NOW) throw new Error("clock passed NOW");
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return ids;
}

const ids = build(out, false);
const idsSmall = build(outDamaged, true);
// Hostile variant: damage the JSONB args of the first available job. The new value keeps
// JSONB's header (element type 0xC = object, size in the high nibble) but claims a payload
// longer than the blob, so json(args) must fail.
const d = new Database(outDamaged);
const before = d.prepare("SELECT hex(args) h, length(args) n FROM river_job WHERE id = ?").get(idsSmall.available[0]);
d.prepare("UPDATE river_job SET args = substr(args, 1, length(args) - 6) WHERE id = ?").run(idsSmall.available[0]);
const after = d.prepare("SELECT hex(args) h, json_valid(args, 8) jsonb_ok, json_valid(args, 4) loose FROM river_job WHERE id = ?").get(idsSmall.available[0]);
d.pragma("wal_checkpoint(TRUNCATE)");
d.close();
console.log(JSON.stringify({ now: new Date(NOW).toISOString(), ids, damaged: { ids: idsSmall, job: idsSmall.available[0], before, after } }, null, 1));
