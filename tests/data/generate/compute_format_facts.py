#!/usr/bin/env python3
"""Compute the facts of tests/data/formats/*.sqlite3 with the sqlite3 SHELL.

Every number comes from running the SQL shown next to it through the `sqlite3`
command-line shell (Debian 12: 3.40.1) on a temporary copy of the file (never
in place: WAL files would grow -wal/-shm side files). Facts that need JSONB
(River v7 args/errors/metadata) are computed with better-sqlite3 12.11.1's
bundled SQLite 3.53.2 instead, through Node, and are marked so.

Writes tests/data/formats/facts.json and prints the Markdown section that goes
into tests/data/FIXTURES.md.

Usage: python3 compute_format_facts.py <tests/data/formats> [--node-modules <dir with better-sqlite3>]
           [--splice <tests/data/FIXTURES.md>]   (replace the generated block in place)
           [--only <file>]   (recompute one file's facts: its entry of facts.json and, with
                              --splice, its section of the block; the others are kept as they are)
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

FORMATS_DIR = sys.argv[1]
NODE_MODULES = sys.argv[sys.argv.index("--node-modules") + 1] if "--node-modules" in sys.argv else None
ONLY = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
TMP = tempfile.mkdtemp(prefix="lqa-facts-")
SHELL_VERSION = subprocess.run(["sqlite3", "--version"], capture_output=True, text=True).stdout.split()[0]


def copy(file):
    dst = os.path.join(TMP, file)
    shutil.copyfile(os.path.join(FORMATS_DIR, file), dst)
    return dst


def shell(file, sql):
    """Run SQL with the sqlite3 shell on a temp copy; return rows as dicts."""
    r = subprocess.run(["sqlite3", "-json", copy(file), sql], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s: %s\n%s" % (file, r.stderr, sql))
    return json.loads(r.stdout) if r.stdout.strip() else []


def shell_raw(file, sql):
    r = subprocess.run(["sqlite3", copy(file), sql], capture_output=True, text=True)
    return (r.returncode, r.stdout.strip(), r.stderr.strip())


def node_sql(file, sql):
    """The same, through better-sqlite3's bundled SQLite (for JSONB)."""
    js = ("const D=require('better-sqlite3');const d=new D(process.argv[1],{readonly:true});"
          "console.log(JSON.stringify({v:d.prepare('select sqlite_version() v').get().v,rows:d.prepare(process.argv[2]).all()}))")
    env = dict(os.environ, NODE_PATH=NODE_MODULES)
    r = subprocess.run(["node", "-e", js, copy(file), sql], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(r.stderr)
    return json.loads(r.stdout)


CANON = ["READY", "SCHEDULED", "LOCKED", "DONE", "FAILED"]
# Extra states that are sub-counts of a canonical state (the rest are disjoint from it):
OVERLAPS = {"locked_expired": "LOCKED", "pending_retry": "READY+SCHEDULED", "dead_letter": "FAILED"}

SPECS = []

# ---------------------------------------------------------------- solid queue
SQ_NOW = "2026-11-30 12:00:00"
SPECS.append(dict(
    file="solid-queue.sqlite3", format="solid-queue",
    library="Solid Queue 1.5.0+ (rails/solid_queue@29e818d9c1181195736ffc5d7c1d1c03757b7752), reproduced: queue_schema.rb + model statements",
    real_library=False, now="2026-11-30T12:00:00Z", now_stored=SQ_NOW,
    queue_tables=["solid_queue_jobs", "solid_queue_ready_executions", "solid_queue_claimed_executions",
                  "solid_queue_failed_executions", "solid_queue_scheduled_executions", "solid_queue_blocked_executions",
                  "solid_queue_processes", "solid_queue_semaphores", "solid_queue_pauses",
                  "solid_queue_recurring_executions", "solid_queue_recurring_tasks"],
    state_sql=f"""SELECT j.id AS id, j.queue_name AS queue,
  CASE WHEN j.finished_at IS NOT NULL THEN 'DONE'
       WHEN r.id IS NOT NULL THEN 'READY'
       WHEN c.id IS NOT NULL THEN 'LOCKED'
       WHEN f.id IS NOT NULL THEN 'FAILED'
       WHEN s.id IS NOT NULL AND s.scheduled_at <= '{SQ_NOW}' THEN 'READY'
       WHEN s.id IS NOT NULL THEN 'SCHEDULED'
       WHEN b.id IS NOT NULL THEN 'blocked'
       ELSE 'UNKNOWN' END AS state
FROM solid_queue_jobs j
LEFT JOIN solid_queue_ready_executions r ON r.job_id = j.id
LEFT JOIN solid_queue_claimed_executions c ON c.job_id = j.id
LEFT JOIN solid_queue_failed_executions f ON f.job_id = j.id
LEFT JOIN solid_queue_scheduled_executions s ON s.job_id = j.id
LEFT JOIN solid_queue_blocked_executions b ON b.job_id = j.id""",
    extra_states=["blocked", "locked_expired"],
    extra_sql={"locked_expired": f"SELECT count(*) AS n FROM solid_queue_claimed_executions c LEFT JOIN solid_queue_processes p ON p.id = c.process_id WHERE c.process_id IS NULL OR p.id IS NULL OR p.last_heartbeat_at <= datetime('{SQ_NOW}', '-5 minutes')"},
    stored={"done_kept": True, "failed_kept": True},
    facts=[
        ("execution rows per table", "SELECT (SELECT count(*) FROM solid_queue_ready_executions) AS ready, (SELECT count(*) FROM solid_queue_scheduled_executions) AS scheduled, (SELECT count(*) FROM solid_queue_claimed_executions) AS claimed, (SELECT count(*) FROM solid_queue_failed_executions) AS failed, (SELECT count(*) FROM solid_queue_blocked_executions) AS blocked, (SELECT count(*) FROM solid_queue_jobs WHERE finished_at IS NOT NULL) AS finished"),
        ("scheduled rows already due (shown READY; the dispatcher has not moved them)", f"SELECT job_id, scheduled_at FROM solid_queue_scheduled_executions WHERE scheduled_at <= '{SQ_NOW}'"),
        ("ready rows in a paused queue (READY, not claimable)", "SELECT r.job_id, r.queue_name FROM solid_queue_ready_executions r JOIN solid_queue_pauses p ON p.queue_name = r.queue_name"),
        ("claims with their process and heartbeat; stuck = no process row or last_heartbeat_at <= now - 5 min",
         f"SELECT c.id AS claim_id, c.job_id, c.process_id, p.kind, p.last_heartbeat_at, CASE WHEN p.id IS NULL THEN 'missing process' WHEN p.last_heartbeat_at <= datetime('{SQ_NOW}', '-5 minutes') THEN 'stale process' ELSE 'live' END AS claim_status FROM solid_queue_claimed_executions c LEFT JOIN solid_queue_processes p ON p.id = c.process_id ORDER BY c.id"),
        ("processes", "SELECT id, kind, name, supervisor_id, last_heartbeat_at FROM solid_queue_processes ORDER BY id"),
        ("semaphores", "SELECT key, value, expires_at FROM solid_queue_semaphores"),
        ("blocked executions", "SELECT job_id, concurrency_key, expires_at FROM solid_queue_blocked_executions ORDER BY job_id"),
        ("jobs sharing an active_job_id (retry_on history)", "SELECT active_job_id, group_concat(id) AS job_ids, count(*) AS n FROM solid_queue_jobs GROUP BY active_job_id HAVING n > 1"),
        ("failed executions", "SELECT job_id, json_extract(error, '$.exception_class') AS exception_class, created_at FROM solid_queue_failed_executions ORDER BY job_id"),
        ("recurring", "SELECT task_key, job_id, run_at FROM solid_queue_recurring_executions"),
        ("application tables", "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'solid_queue_%' AND name NOT LIKE 'sqlite_%' ORDER BY name"),
        ("timestamps with and without fraction (fraction omitted when microseconds are 0)", "SELECT sum(created_at LIKE '%.%') AS with_fraction, sum(created_at NOT LIKE '%.%') AS without_fraction FROM (SELECT created_at FROM solid_queue_jobs UNION ALL SELECT scheduled_at FROM solid_queue_jobs)"),
    ],
    samples_sql="""SELECT j.id, j.queue_name AS queue, c.id AS claim_id, c.process_id, c.created_at AS claimed_at
FROM solid_queue_jobs j JOIN solid_queue_claimed_executions c ON c.job_id = j.id ORDER BY j.id""",
    sample_token=lambda r: {"claimed_execution_id": r["claim_id"], "process_id": r["process_id"]},
    other_samples_sql="SELECT j.id, j.queue_name AS queue FROM solid_queue_jobs j WHERE j.id IN (1, 7, 10, 20, 22) ORDER BY j.id",
    timing=[("solid_queue_jobs", "created_at"), ("solid_queue_jobs", "scheduled_at"), ("solid_queue_jobs", "finished_at"),
            ("solid_queue_ready_executions", "created_at"), ("solid_queue_claimed_executions", "created_at"),
            ("solid_queue_failed_executions", "created_at"), ("solid_queue_scheduled_executions", "scheduled_at"),
            ("solid_queue_blocked_executions", "expires_at"), ("solid_queue_processes", "last_heartbeat_at")],
))

# ---------------------------------------------------------------- laravel
LV_NOW = 1796040000
SPECS.append(dict(
    file="laravel-database.sqlite3", format="laravel-database",
    library="Laravel illuminate/queue 8.83.26 (Debian php-illuminate-queue 8.83.26+dfsg-2, laravel/framework v8.83.26 = 7411d9fa71c1), REAL library",
    real_library=True, now="2026-11-30T12:00:00Z", now_stored=str(LV_NOW),
    queue_tables=["jobs", "failed_jobs", "job_batches"],
    state_sql=f"""SELECT 'jobs:' || id AS id, queue,
  CASE WHEN reserved_at IS NOT NULL THEN 'LOCKED'
       WHEN available_at <= {LV_NOW} THEN 'READY' ELSE 'SCHEDULED' END AS state FROM jobs
UNION ALL
SELECT 'failed_jobs:' || id, queue, 'FAILED' FROM failed_jobs""",
    extra_states=["locked_expired"],
    extra_sql={"locked_expired": f"SELECT count(*) AS n FROM jobs WHERE reserved_at IS NOT NULL AND reserved_at <= {LV_NOW} - 90"},
    stored={"done_kept": False, "failed_kept": True},
    facts=[
        ("reserved rows; LOCKED-expired = reserved_at <= now - retry_after (90 s)",
         f"SELECT id, queue, attempts, reserved_at, available_at, CASE WHEN reserved_at <= {LV_NOW} - 90 THEN 'expired' ELSE 'live' END AS reservation FROM jobs WHERE reserved_at IS NOT NULL ORDER BY id"),
        ("released rows (attempts > 0, not reserved): new id, created_at reset", "SELECT id, queue, attempts, available_at, created_at FROM jobs WHERE attempts > 0 AND reserved_at IS NULL ORDER BY id"),
        ("failed_jobs", "SELECT id, uuid, connection, queue, failed_at, substr(exception, 1, instr(exception, ':') - 1) AS exception_class FROM failed_jobs ORDER BY id"),
        ("payload uuid equals failed_jobs.uuid", "SELECT count(*) AS n, sum(uuid = json_extract(payload, '$.uuid')) AS equal FROM failed_jobs"),
        ("payload job handler and display names", "SELECT json_extract(payload, '$.job') AS job, json_extract(payload, '$.displayName') AS display_name, count(*) AS n FROM jobs GROUP BY 1, 2 ORDER BY 2"),
        ("job_batches rows", "SELECT count(*) AS n FROM job_batches"),
        ("application tables", "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('jobs', 'failed_jobs', 'job_batches') AND name NOT LIKE 'sqlite_%' ORDER BY name"),
        ("migrations", "SELECT migration, batch FROM migrations ORDER BY id"),
        ("users", "SELECT count(*) AS n FROM users"),
        ("DDL of jobs (Laravel 8 modifier order)", "SELECT sql FROM sqlite_master WHERE name = 'jobs'"),
    ],
    samples_sql="SELECT 'jobs:' || id AS id, queue, reserved_at, attempts, available_at FROM jobs WHERE id IN (SELECT min(id) FROM jobs WHERE reserved_at IS NULL AND available_at <= %d UNION SELECT id FROM jobs WHERE reserved_at IS NOT NULL UNION SELECT min(id) FROM jobs WHERE available_at > %d) ORDER BY 1" % (LV_NOW, LV_NOW),
    sample_token=lambda r: {"id": int(r["id"].split(":")[1]), "reserved_at": r["reserved_at"], "attempts": r["attempts"]},
    other_samples_sql="SELECT 'failed_jobs:' || id AS id, queue FROM failed_jobs ORDER BY id",
    timing=[("jobs", "created_at"), ("jobs", "available_at"), ("jobs", "reserved_at"), ("failed_jobs", "failed_at")],
))

# ---------------------------------------------------------------- oban
OB_NOW = "2026-11-30T12:00:00Z"
SPECS.append(dict(
    file="oban-lite.sqlite3", format="oban-lite",
    library="Oban 2.23.0 Oban.Engines.Lite (oban-bg/oban@2939e3134d0812195fbfcfe9a8e8d4bbd30bb23b), reproduced: migrations/sqlite.ex + engines/lite.ex statements",
    real_library=False, now=OB_NOW, now_stored=OB_NOW,
    queue_tables=["oban_jobs"],
    state_sql=f"""SELECT id, queue,
  CASE state WHEN 'available' THEN CASE WHEN scheduled_at <= '{OB_NOW}' THEN 'READY' ELSE 'SCHEDULED' END
             WHEN 'scheduled' THEN CASE WHEN scheduled_at <= '{OB_NOW}' THEN 'READY' ELSE 'SCHEDULED' END
             WHEN 'executing' THEN 'LOCKED'
             WHEN 'completed' THEN 'DONE'
             WHEN 'discarded' THEN 'FAILED'
             ELSE state END AS state
FROM oban_jobs""",
    extra_states=["retryable", "cancelled", "locked_expired"],
    extra_sql={"locked_expired": f"SELECT count(*) AS n FROM oban_jobs WHERE state = 'executing' AND attempted_at < strftime('%Y-%m-%dT%H:%M:%fZ', '{OB_NOW}', '-60 minutes')"},
    stored={"done_kept": True, "failed_kept": True},
    facts=[
        ("rows per Oban state", "SELECT state, count(*) AS n FROM oban_jobs GROUP BY state ORDER BY state"),
        ("retryable rows by due time (docs/FORMATS.md 4.3 shows them SCHEDULED, or READY once due)", f"SELECT id, scheduled_at, CASE WHEN scheduled_at <= '{OB_NOW}' THEN 'due' ELSE 'future' END AS due FROM oban_jobs WHERE state = 'retryable' ORDER BY id"),
        ("executing rows; Lifeline rule attempted_at < now - 60 min", f"SELECT id, queue, attempt, attempted_at, attempted_by, CASE WHEN attempted_at < strftime('%Y-%m-%dT%H:%M:%fZ', '{OB_NOW}', '-60 minutes') THEN 'stale' ELSE 'live' END AS lifeline FROM oban_jobs WHERE state = 'executing' ORDER BY id"),
        ("errors entries are JSON strings (double encoded)", "SELECT json_each.type AS entry_type, count(*) AS n FROM oban_jobs, json_each(oban_jobs.errors) GROUP BY 1"),
        ("decoded first error of job 9", "SELECT json_extract(json_extract(errors, '$[0]'), '$.attempt') AS attempt, json_extract(json_extract(errors, '$[0]'), '$.error') AS error FROM oban_jobs WHERE id = 9"),
        ("jobs with errors", "SELECT id, state, attempt, json_array_length(errors) AS errors FROM oban_jobs WHERE json_array_length(errors) > 0 ORDER BY id"),
        ("timestamp shapes: DB default (second precision) vs Ecto (6 digits)", "SELECT sum(length(inserted_at) = 20) AS inserted_at_default_shape, sum(length(scheduled_at) = 20) AS scheduled_at_default_shape, sum(length(scheduled_at) = 27) AS scheduled_at_ecto_shape FROM oban_jobs"),
        ("snoozed", "SELECT id, state, attempt, meta FROM oban_jobs WHERE json_extract(meta, '$.snoozed') IS NOT NULL"),
        ("application tables", "SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'oban_jobs' AND name NOT LIKE 'sqlite_%' ORDER BY name"),
        ("default text of inserted_at (2.20.3+ variant)", "SELECT dflt_value FROM pragma_table_info('oban_jobs') WHERE name = 'inserted_at'"),
    ],
    samples_sql="SELECT id, queue, attempt, attempted_at FROM oban_jobs WHERE id IN (5, 12, 17, 19, 9, 10) ORDER BY id",
    sample_token=lambda r: {"id": r["id"], "attempt": r["attempt"], "attempted_at": r["attempted_at"]},
    other_samples_sql=None,
    timing=[("oban_jobs", c) for c in ("inserted_at", "scheduled_at", "attempted_at", "completed_at", "discarded_at", "cancelled_at")],
))

# ---------------------------------------------------------------- liteque
LQ_MS, LQ_S = 1796040000000, 1796040000
SPECS.append(dict(
    file="liteque-queue.db", format="liteque",
    library="liteque 0.8.0 (karakeep-app/liteque@394fe166b03a) on better-sqlite3 11.3.0 and drizzle-orm 0.33.0, REAL library",
    real_library=True, now="2026-11-30T12:00:00Z", now_stored="%d ms / %d s" % (LQ_MS, LQ_S),
    queue_tables=["tasks", "__drizzle_migrations"],
    state_sql=f"""SELECT id, queue,
  CASE WHEN status IN ('pending', 'pending_retry') AND (availableAt IS NULL OR availableAt <= {LQ_MS}) THEN 'READY'
       WHEN status IN ('pending', 'pending_retry') THEN 'SCHEDULED'
       WHEN status = 'running' THEN 'LOCKED'
       WHEN status = 'failed' THEN 'FAILED'
       ELSE 'UNKNOWN' END AS state
FROM tasks""",
    extra_states=["pending_retry", "locked_expired"],
    stored={"done_kept": False, "failed_kept": "only queues with keepFailedJobs (here youtube_transcript_queue)"},
    extra_sql={"pending_retry": "SELECT count(*) AS n FROM tasks WHERE status = 'pending_retry'",
               "locked_expired": f"SELECT count(*) AS n FROM tasks WHERE status = 'running' AND expireAt < {LQ_S}"},
    facts=[
        ("rows per status", "SELECT status, count(*) AS n FROM tasks GROUP BY status ORDER BY status"),
        ("running rows; expired when expireAt < now (seconds)", f"SELECT id, queue, allocationId, expireAt, numRunsLeft, maxNumRuns, CASE WHEN expireAt < {LQ_S} THEN 'expired' ELSE 'live' END AS allocation FROM tasks WHERE status = 'running' ORDER BY id"),
        ("pending_retry rows", f"SELECT id, queue, availableAt, numRunsLeft, maxNumRuns, CASE WHEN availableAt <= {LQ_MS} THEN 'due' ELSE 'later' END AS due FROM tasks WHERE status = 'pending_retry' ORDER BY id"),
        ("failed rows (only the keepFailedJobs queue keeps them)", "SELECT id, queue, numRunsLeft, availableAt, createdAt FROM tasks WHERE status = 'failed' ORDER BY id"),
        ("units: createdAt/expireAt seconds, availableAt milliseconds", "SELECT min(length(createdAt)) AS createdAt_digits, min(length(availableAt)) AS availableAt_digits, max(length(expireAt)) AS expireAt_digits FROM tasks"),
        ("idempotency keys", "SELECT queue, idempotencyKey FROM tasks WHERE idempotencyKey IS NOT NULL ORDER BY id"),
        ("ids deleted (completed, or failed without keepFailedJobs)", "SELECT group_concat(value) AS missing_ids FROM generate_series(1, (SELECT max(id) FROM tasks)) WHERE value NOT IN (SELECT id FROM tasks)"),
        ("__drizzle_migrations (id is NULL: SERIAL is no rowid alias)", "SELECT id, created_at FROM __drizzle_migrations ORDER BY created_at"),
    ],
    samples_sql="SELECT id, queue, allocationId FROM tasks WHERE id IN (6, 7, 8, 25, 28, 29, 30) ORDER BY id",
    sample_token=lambda r: {"allocationId": r["allocationId"]},
    other_samples_sql=None,
    timing=[("tasks", "createdAt"), ("tasks", "availableAt"), ("tasks", "expireAt")],
))

# ---------------------------------------------------------------- river
RV_NOW = "2026-11-30 12:00:00"
SPECS.append(dict(
    file="river-v7.sqlite3", format="river-sqlite",
    library="River riversqlite, schema version 7 (riverqueue/river@fdf6cdf12567a5b70c003f5ff850273f09e7efcf), reproduced: River's migrations and named queries read from the checkout, run on better-sqlite3 12.11.1 (SQLite 3.53.2)",
    real_library=False, now="2026-11-30T12:00:00Z", now_stored=RV_NOW,
    queue_tables=["river_job", "river_migration", "river_queue", "river_leader", "river_notification"],
    state_sql=f"""SELECT id, queue,
  CASE state WHEN 'available' THEN CASE WHEN scheduled_at <= '{RV_NOW}' THEN 'READY' ELSE 'SCHEDULED' END
             WHEN 'scheduled' THEN 'SCHEDULED'
             WHEN 'running' THEN 'LOCKED'
             WHEN 'completed' THEN 'DONE'
             WHEN 'discarded' THEN 'FAILED'
             ELSE state END AS state
FROM river_job""",
    extra_states=["retryable", "cancelled", "pending", "locked_expired"],
    extra_sql={"locked_expired": f"SELECT count(*) AS n FROM river_job WHERE state = 'running' AND attempted_at < datetime('{RV_NOW}', '-1 hour')"},
    stored={"done_kept": True, "failed_kept": True},
    facts=[
        ("rows per River state (plain text column: the 3.40 shell can count them)", "SELECT state, count(*) AS n FROM river_job GROUP BY state ORDER BY state"),
        ("schema version", "SELECT max(version) AS version FROM river_migration WHERE line = 'main'"),
        ("running rows; JobRescuer rule attempted_at < now - 1 h", f"SELECT id, queue, attempt, attempted_at, CASE WHEN attempted_at < datetime('{RV_NOW}', '-1 hour') THEN 'stuck' ELSE 'live' END AS rescuer FROM river_job WHERE state = 'running' ORDER BY id"),
        ("retryable rows", f"SELECT id, attempt, max_attempts, scheduled_at, CASE WHEN scheduled_at <= '{RV_NOW}' THEN 'due' ELSE 'future' END AS due FROM river_job WHERE state = 'retryable' ORDER BY id"),
        ("JSON columns are JSONB blobs", "SELECT typeof(args) AS args, typeof(metadata) AS metadata, typeof(tags) AS tags, count(*) AS n FROM river_job GROUP BY 1, 2, 3"),
        ("json(args) with the Debian 3.40 shell", "SELECT json(args) FROM river_job WHERE id = 1"),
        ("timestamp shapes in scheduled_at / finalized_at", "SELECT sum(scheduled_at LIKE '% +0000 UTC') AS scheduled_at_go_string, sum(finalized_at LIKE '% +0000 UTC') AS finalized_at_go_string, sum(finalized_at IS NOT NULL AND finalized_at NOT LIKE '% +0000 UTC') AS finalized_at_timestring FROM river_job"),
        ("finalized_at set exactly for cancelled/completed/discarded", "SELECT state, count(*) AS n, sum(finalized_at IS NOT NULL) AS finalized FROM river_job GROUP BY state ORDER BY state"),
        ("queues", "SELECT name, created_at, paused_at FROM river_queue ORDER BY name"),
        ("leader", "SELECT leader_id, elected_at, expires_at FROM river_leader"),
        ("max_attempts is the last column (v7 re-adds it)", "SELECT name FROM pragma_table_info('river_job') ORDER BY cid DESC LIMIT 1"),
    ],
    node_facts=[
        ("args, metadata, error count (JSONB, read with SQLite 3.53.2)", "SELECT id, state, json(args) AS args, json(metadata) AS metadata, json_array_length(errors) AS errors, json(attempted_by) AS attempted_by FROM river_job ORDER BY id"),
        ("last error of each job with errors", "SELECT id, json_extract(errors, '$[#-1].attempt') AS attempt, json_extract(errors, '$[#-1].error') AS error, json_extract(errors, '$[#-1].at') AS at FROM river_job WHERE errors IS NOT NULL ORDER BY id"),
    ],
    samples_sql="SELECT id, queue, attempt, attempted_at, created_at FROM river_job WHERE id IN (6, 9, 12, 14, 16, 20, 25) ORDER BY id",
    sample_token=lambda r: {"id": r["id"], "attempt": r["attempt"], "attempted_at": r["attempted_at"], "created_at": r["created_at"]},
    other_samples_sql=None,
    timing=[("river_job", c) for c in ("created_at", "scheduled_at", "attempted_at", "finalized_at")],
))
SPECS.append(dict(
    file="river-v7-damaged-jsonb.sqlite3", format="river-sqlite",
    library="as river-v7.sqlite3 (small variant); then args of job 1 truncated by 6 bytes with a plain UPDATE (hostile)",
    real_library=False, now="2026-11-30T12:00:00Z", now_stored=RV_NOW, hostile=True,
    queue_tables=["river_job", "river_migration", "river_queue", "river_leader", "river_notification"],
    state_sql=SPECS[-1]["state_sql"], extra_states=["retryable", "cancelled", "pending"],
    stored={"done_kept": True, "failed_kept": True},
    facts=[
        ("rows per River state", "SELECT state, count(*) AS n FROM river_job GROUP BY state ORDER BY state"),
        ("damaged args blob", "SELECT id, length(args) AS bytes, hex(args) AS args_hex FROM river_job ORDER BY id"),
    ],
    node_facts=[
        ("JSONB validity with SQLite 3.53.2 (json_valid(x, 8) = strictly valid JSONB)", "SELECT id, json_valid(args, 8) AS args_valid_jsonb FROM river_job ORDER BY id"),
    ],
    samples_sql="SELECT id, queue, attempt, attempted_at, created_at FROM river_job ORDER BY id",
    sample_token=lambda r: {"id": r["id"], "attempt": r["attempt"], "attempted_at": r["attempted_at"], "created_at": r["created_at"]},
    other_samples_sql=None, timing=[("river_job", "created_at"), ("river_job", "finalized_at")],
))

# ---------------------------------------------------------------- goqite
GQ_NOW = "2026-11-30T12:00:00.000Z"
SPECS.append(dict(
    file="goqite.sqlite3", format="goqite",
    library="goqite >= 0.4 (maragudk/goqite@23697cc78af6e99a980ebc7a7f8a07d626ff8962), reproduced: schema_sqlite.sql + goqite.go statements",
    real_library=False, now=GQ_NOW, now_stored=GQ_NOW,
    queue_tables=["goqite"],
    state_sql=f"""SELECT id, queue,
  CASE WHEN received >= 3 THEN 'FAILED'
       WHEN timeout <= '{GQ_NOW}' THEN 'READY'
       WHEN received = 0 THEN 'SCHEDULED'
       ELSE 'LOCKED' END AS state
FROM goqite""",
    extra_states=["dead_letter"],
    stored={"done_kept": False, "failed_kept": True},
    extra_sql={"dead_letter": "SELECT count(*) AS n FROM goqite WHERE received >= 3"},
    facts=[
        ("dead letters (received >= MaxReceive 3)", "SELECT id, queue, received, timeout FROM goqite WHERE received >= 3 ORDER BY created"),
        ("in flight (received > 0, lease live)", f"SELECT id, queue, received, timeout FROM goqite WHERE received BETWEEN 1 AND 2 AND timeout > '{GQ_NOW}' ORDER BY created"),
        ("READY after a lapsed lease (received > 0)", f"SELECT id, queue, received, timeout FROM goqite WHERE received BETWEEN 1 AND 2 AND timeout <= '{GQ_NOW}' ORDER BY created"),
        ("delayed sends", f"SELECT id, queue, priority, timeout FROM goqite WHERE received = 0 AND timeout > '{GQ_NOW}' ORDER BY timeout"),
        ("next receive per queue (order: priority desc, created)", f"SELECT queue, (SELECT id FROM goqite g2 WHERE g2.queue = g.queue AND '{GQ_NOW}' >= timeout AND received < 3 ORDER BY priority DESC, created LIMIT 1) AS next_id FROM goqite g GROUP BY queue ORDER BY queue"),
        ("trigger", "SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger'"),
        ("STRICT table", "SELECT strict FROM pragma_table_list WHERE name = 'goqite'"),
        ("bodies: JSON text vs other bytes", "SELECT sum(json_valid(CAST(body AS TEXT))) AS json_bodies, sum(NOT json_valid(CAST(body AS TEXT))) AS other_bodies FROM goqite"),
        ("jobs-runner gob bodies (start with the gob type definition of `message`)", "SELECT id, received, length(body) AS bytes, instr(body, CAST('send-newsletter' AS BLOB)) > 0 AS newsletter FROM goqite WHERE queue = 'jobs' ORDER BY created"),
    ],
    samples_sql="SELECT id, queue, received, timeout FROM goqite ORDER BY created",
    sample_token=lambda r: {"id": r["id"], "received": r["received"], "timeout": r["timeout"]},
    sample_limit=8, other_samples_sql=None,
    timing=[("goqite", "created"), ("goqite", "updated"), ("goqite", "timeout")],
))

# ---------------------------------------------------------------- backlite
BL_MS = 1796040000000
SPECS.append(dict(
    file="backlite.sqlite3", format="backlite",
    library="backlite (mikestefanello/backlite@56d2839e4c2e7507b120c969a464408145a56018), reproduced: internal/query/schema.sql + query.go statements",
    real_library=False, now="2026-11-30T12:00:00Z", now_stored=str(BL_MS),
    queue_tables=["backlite_tasks", "backlite_tasks_completed"],
    state_sql=f"""SELECT id, queue,
  CASE WHEN claimed_at IS NOT NULL THEN 'LOCKED'
       WHEN wait_until IS NULL OR wait_until <= {BL_MS} THEN 'READY'
       ELSE 'SCHEDULED' END AS state FROM backlite_tasks
UNION ALL
SELECT id, queue, CASE WHEN succeeded = 1 THEN 'DONE' ELSE 'FAILED' END FROM backlite_tasks_completed""",
    extra_states=["locked_expired"],
    stored={"done_kept": "queues with Retention (here emails)", "failed_kept": "queues with Retention (here emails, reports)"},
    extra_sql={"locked_expired": f"SELECT count(*) AS n FROM backlite_tasks WHERE claimed_at < {BL_MS} - 600000"},
    facts=[
        ("claimed rows; expired when claimed_at < now - ReleaseAfter (10 min, client config)", f"SELECT id, queue, claimed_at, attempts, CASE WHEN claimed_at < {BL_MS} - 600000 THEN 'expired' ELSE 'live' END AS claim FROM backlite_tasks WHERE claimed_at IS NOT NULL ORDER BY id"),
        ("retries waiting (attempts > 0, not claimed)", f"SELECT id, queue, attempts, wait_until, last_executed_at, CASE WHEN wait_until <= {BL_MS} THEN 'due' ELSE 'later' END AS due FROM backlite_tasks WHERE attempts > 0 AND claimed_at IS NULL ORDER BY id"),
        ("completed rows", "SELECT id, queue, attempts, succeeded, last_duration_micro, task IS NOT NULL AS task_kept, expires_at, error FROM backlite_tasks_completed ORDER BY id"),
        ("next fetch order (wait_until ASC, id ASC; NULL first)", f"SELECT id FROM backlite_tasks WHERE claimed_at IS NULL OR claimed_at < {BL_MS} - 600000 ORDER BY wait_until ASC, id ASC LIMIT 5"),
        ("task blobs end with a newline (Go json.Encoder)", "SELECT count(*) AS n, sum(hex(substr(task, -1)) = '0A') AS newline FROM backlite_tasks"),
        ("STRICT tables", "SELECT name, strict FROM pragma_table_list WHERE name LIKE 'backlite%' ORDER BY name"),
    ],
    samples_sql="SELECT id, queue, claimed_at, attempts FROM backlite_tasks ORDER BY id",
    sample_token=lambda r: {"id": r["id"], "claimed_at": r["claimed_at"], "attempts": r["attempts"]},
    sample_limit=8, other_samples_sql="SELECT id, queue FROM backlite_tasks_completed WHERE succeeded = 0 ORDER BY id",
    timing=[("backlite_tasks", c) for c in ("created_at", "wait_until", "claimed_at", "last_executed_at")] +
           [("backlite_tasks_completed", c) for c in ("created_at", "last_executed_at", "last_duration_micro", "expires_at")],
))

# ---------------------------------------------------------------- plainjob
PJ_MS = 1796040000000
SPECS.append(dict(
    file="plainjob.sqlite3", format="plainjob",
    library="plainjob 0.0.14 (justplainstuff/plainjob@e13a567dcbe7) on better-sqlite3 12.11.1, REAL library",
    real_library=True, now="2026-11-30T12:00:00Z", now_stored=str(PJ_MS),
    queue_tables=["plainjob_jobs", "plainjob_scheduled_jobs"],
    state_sql=f"""SELECT id, type AS queue,
  CASE status WHEN 0 THEN CASE WHEN next_run_at <= {PJ_MS} THEN 'READY' ELSE 'SCHEDULED' END
              WHEN 1 THEN 'LOCKED' WHEN 2 THEN 'DONE' WHEN 3 THEN 'FAILED' ELSE 'UNKNOWN' END AS state
FROM plainjob_jobs""",
    extra_states=["locked_expired"],
    stored={"done_kept": "7 days", "failed_kept": "30 days"},
    extra_sql={"locked_expired": f"SELECT count(*) AS n FROM plainjob_jobs WHERE status = 1 AND next_run_at < {PJ_MS} - 1800000"},
    facts=[
        ("processing rows; expired when next_run_at < now - 30 min (uses the DUE time)", f"SELECT id, type, next_run_at, CASE WHEN next_run_at < {PJ_MS} - 1800000 THEN 'expired' ELSE 'live' END AS timeout FROM plainjob_jobs WHERE status = 1 ORDER BY id"),
        ("failed rows", "SELECT id, type, failed_at, substr(error, 1, instr(error, char(10)) - 1) AS first_line FROM plainjob_jobs WHERE status = 3 ORDER BY id"),
        ("scheduled (cron) jobs; next_run_at 0 = never run since schedule()", "SELECT id, type, status, cron_expression, next_run_at FROM plainjob_scheduled_jobs ORDER BY id"),
        ("job types", "SELECT type, count(*) AS n FROM plainjob_jobs GROUP BY type ORDER BY type"),
        ("a cron-created job has data {}", "SELECT id, type, data FROM plainjob_jobs WHERE type = 'cleanup'"),
    ],
    samples_sql="SELECT id, type AS queue, status, next_run_at FROM plainjob_jobs WHERE id IN (6, 9, 11, 12, 13, 16) ORDER BY id",
    sample_token=lambda r: {"id": r["id"], "status": r["status"], "next_run_at": r["next_run_at"]},
    other_samples_sql=None,
    timing=[("plainjob_jobs", "created_at"), ("plainjob_jobs", "next_run_at"), ("plainjob_jobs", "failed_at"),
            ("plainjob_scheduled_jobs", "next_run_at"), ("plainjob_scheduled_jobs", "created_at")],
))

# ---------------------------------------------------------------- delayed job
DJ_NOW = "2026-11-30 12:00:00"
SPECS.append(dict(
    file="delayed-job.sqlite3", format="delayed-job",
    library="delayed_job 4.1.9 + delayed_job_active_record 4.1.6 on Active Record 6.1.7.10, Active Job 6.1.7.10, sqlite3 1.4.2, Ruby 3.1.2 (Debian 12 ruby-delayed-job 4.1.9-1.1, ruby-delayed-job-active-record 4.1.6-3.1), REAL library",
    real_library=True, now="2026-11-30T12:00:00Z", now_stored=DJ_NOW,
    queue_tables=["delayed_jobs"],
    state_sql=f"""SELECT id, coalesce(queue, '(default)') AS queue,
  CASE WHEN failed_at IS NOT NULL THEN 'FAILED'
       WHEN locked_at IS NOT NULL THEN 'LOCKED'
       WHEN run_at > '{DJ_NOW}' THEN 'SCHEDULED'
       ELSE 'READY' END AS state
FROM delayed_jobs""",
    extra_states=["locked_expired"],
    extra_sql={"locked_expired": f"SELECT count(*) AS n FROM delayed_jobs WHERE failed_at IS NULL AND locked_at IS NOT NULL AND locked_at < datetime('{DJ_NOW}', '-4 hours')"},
    stored={"done_kept": False, "failed_kept": True},
    facts=[
        ("locks; stuck (the library takes the job again) = locked_at < now - max_run_time (4 h)",
         f"SELECT id, queue, locked_by, locked_at, failed_at IS NOT NULL AS failed, CASE WHEN failed_at IS NOT NULL THEN 'failed (lock kept by fail!)' WHEN locked_at < datetime('{DJ_NOW}', '-4 hours') THEN 'expired' ELSE 'live' END AS lock FROM delayed_jobs WHERE locked_at IS NOT NULL ORDER BY id"),
        ("failed rows (destroy_failed_jobs = false, max_attempts 3)", "SELECT id, queue, attempts, failed_at, substr(last_error, 1, instr(last_error, char(10)) - 1) AS error_line FROM delayed_jobs WHERE failed_at IS NOT NULL ORDER BY id"),
        ("waiting for a retry (attempts > 0, not failed)", "SELECT id, coalesce(queue, '(default)') AS queue, attempts, run_at, substr(last_error, 1, instr(last_error, char(10)) - 1) AS error_line FROM delayed_jobs WHERE attempts > 0 AND failed_at IS NULL ORDER BY id"),
        ("handler YAML tags (first line)", "SELECT substr(handler, 1, instr(handler, char(10)) - 1) AS first_line, count(*) AS n FROM delayed_jobs GROUP BY 1 ORDER BY 1"),
        ("Active Job wrapper job_class (as text)", "SELECT id, trim(substr(handler, instr(handler, 'job_class: ') + 11, instr(substr(handler, instr(handler, 'job_class: ') + 11), char(10)) - 1)) AS job_class FROM delayed_jobs WHERE handler LIKE '%DelayedJobAdapter::JobWrapper%' ORDER BY id"),
        ("priorities", "SELECT priority, count(*) AS n FROM delayed_jobs GROUP BY priority ORDER BY priority"),
        ("application tables", "SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'delayed_jobs' AND name NOT LIKE 'sqlite_%' ORDER BY name"),
        ("DDL of delayed_jobs (the gem's migration through Active Record 6.1)", "SELECT sql FROM sqlite_master WHERE name IN ('delayed_jobs', 'delayed_jobs_priority') ORDER BY type DESC"),
    ],
    samples_sql="SELECT id, coalesce(queue, '(default)') AS queue, locked_at, locked_by, attempts, failed_at FROM delayed_jobs WHERE id IN (1, 6, 9, 10, 11, 12, 13, 17, 18) ORDER BY id",
    sample_token=lambda r: {"locked_at": r["locked_at"], "locked_by": r["locked_by"], "attempts": r["attempts"], "failed_at": r["failed_at"]},
    other_samples_sql=None,
    timing=[("delayed_jobs", c) for c in ("created_at", "run_at", "locked_at", "failed_at", "updated_at")],
))

# ---------------------------------------------------------------- symfony messenger
MS_NOW = "2026-11-30 12:00:00"


def ms_text(after, alias):
    """A serialize()d string value stored after `after` in the addslashes'd body, as text:
    the characters between the `:\"` that opens it and the `\"` that closes it, with the
    doubled backslashes undone. Plain SQL on the stored text: nothing is unserialized."""
    rest = "substr(body, instr(body, '%s') + %d)" % (after, len(after))
    val = "substr(%s, instr(%s, ':\\\"') + 3)" % (rest, rest)
    return ("CASE WHEN instr(body, '%s') = 0 THEN NULL ELSE replace(substr(%s, 1, instr(%s, '\\\"') - 1), '\\\\', '\\') END AS %s"
            % (after, val, val, alias))


SPECS.append(dict(
    file="symfony-messenger.sqlite3", format="symfony-messenger",
    library="symfony/messenger + symfony/doctrine-messenger 5.4.53 (Debian 12 php-symfony-messenger, php-symfony-doctrine-messenger 5.4.53+dfsg-0+deb12u1) on doctrine/dbal 3.6.1 (php-doctrine-dbal 3.6.1+dfsg-1, pdo_sqlite), PHP 8.2, REAL library",
    real_library=True, now="2026-11-30T12:00:00Z", now_stored=MS_NOW,
    queue_tables=["messenger_messages"],
    state_sql=f"""SELECT id, queue_name AS queue,
  CASE WHEN queue_name = 'failed' THEN 'FAILED'
       WHEN delivered_at IS NOT NULL THEN 'LOCKED'
       WHEN available_at > '{MS_NOW}' THEN 'SCHEDULED'
       ELSE 'READY' END AS state
FROM messenger_messages""",
    extra_states=["locked_expired"],
    extra_sql={"locked_expired": f"SELECT count(*) AS n FROM messenger_messages WHERE queue_name <> 'failed' AND delivered_at IS NOT NULL AND delivered_at < datetime('{MS_NOW}', '-3600 seconds')"},
    stored={"done_kept": False, "failed_kept": True},
    facts=[
        ("deliveries; stuck (the next get() delivers it again) = delivered_at < now - redeliver_timeout (3600 s)",
         f"SELECT id, queue_name, available_at, delivered_at, CASE WHEN delivered_at < datetime('{MS_NOW}', '-3600 seconds') THEN 'redelivered by the next get()' ELSE 'live' END AS delivery FROM messenger_messages WHERE delivered_at IS NOT NULL ORDER BY id"),
        ("message class per row (the envelope's message, read as text)",
         "SELECT id, queue_name, " + ms_text("Envelope\\0message\\\";O:", "message_class") + " FROM messenger_messages ORDER BY id"),
        ("errors (the last ErrorDetailsStamp; one per row here) and the transport a failed message came from (SentToFailureTransportStamp)",
         "SELECT id, queue_name, " + ms_text("ErrorDetailsStamp\\0exceptionClass\\\";s:", "exception_class") + ", "
         + ms_text("ErrorDetailsStamp\\0exceptionMessage\\\";s:", "exception_message") + ", "
         + ms_text("originalReceiverName\\\";s:", "failed_on_transport")
         + " FROM messenger_messages WHERE body LIKE '%ErrorDetailsStamp%' ORDER BY id"),
        ("stamps per row: RedeliveryStamp and ErrorDetailsStamp objects (retry history; the failure transport adds RedeliveryStamp(0))",
         "SELECT id, (length(body) - length(replace(body, 'RedeliveryStamp\\0retryCount', ''))) / length('RedeliveryStamp\\0retryCount') AS redelivery_stamps, (length(body) - length(replace(body, 'ErrorDetailsStamp\\0exceptionClass', ''))) / length('ErrorDetailsStamp\\0exceptionClass') AS error_stamps FROM messenger_messages ORDER BY id"),
        ("delays: available_at - created_at in seconds (DelayStamp, retry delay)",
         "SELECT id, queue_name, CAST(strftime('%s', available_at) AS INTEGER) - CAST(strftime('%s', created_at) AS INTEGER) AS delay_s FROM messenger_messages WHERE available_at <> created_at ORDER BY id"),
        ("encodings: headers and the start of the body (PhpSerializer: addslashes(serialize()))",
         "SELECT headers, substr(body, 1, 44) AS body_start, count(*) AS n FROM messenger_messages GROUP BY 1, 2"),
        ("body sizes (FlattenException traces make failures large)", "SELECT id, length(body) AS bytes FROM messenger_messages ORDER BY id"),
        ("ids consumed (acked or rejected: deleted) — sqlite_sequence", "SELECT name, seq FROM sqlite_sequence"),
        ("DDL of messenger_messages (Connection::setup() through DBAL 3.6's SQLite platform)", "SELECT sql FROM sqlite_master WHERE tbl_name = 'messenger_messages' ORDER BY type DESC, name"),
    ],
    samples_sql="SELECT id, queue_name AS queue, delivered_at, available_at FROM messenger_messages ORDER BY id",
    sample_token=lambda r: {"delivered_at": r["delivered_at"], "available_at": r["available_at"], "queue_name": r["queue"]},
    other_samples_sql=None,
    timing=[("messenger_messages", c) for c in ("created_at", "available_at", "delivered_at")],
))

# ---------------------------------------------------------------- django-tasks-db
DT_NOW = "2026-11-30 12:00:00"
DT_T = "django_tasks_database_dbtaskresult"
SPECS.append(dict(
    file="django-tasks-db.sqlite3", format="django-tasks-db",
    library="django-tasks-db (RealOrangeOne/django-tasks-db@c7230a36520a, 0.12.0+) on django-tasks (RealOrangeOne/django-tasks@e8520fe85de9): migrations 0001-0020 and the enqueue / db_worker statements as Django 5.2's SQLite backend emits them, Python 3.11 sqlite3, reproduced",
    real_library=False, now="2026-11-30T12:00:00Z", now_stored=DT_NOW,
    queue_tables=[DT_T],
    state_sql=f"""SELECT id, queue_name AS queue,
  CASE WHEN status = 'RUNNING' THEN 'LOCKED'
       WHEN status IN ('SUCCESSFUL', 'SUCCEEDED') THEN 'DONE'
       WHEN status = 'FAILED' THEN 'FAILED'
       WHEN status = 'READY' AND run_after > '{DT_NOW}' AND run_after < '9998-12-31' THEN 'SCHEDULED'
       WHEN status = 'READY' THEN 'READY'
       ELSE status END AS state
FROM {DT_T}""",
    extra_states=[],
    stored={"done_kept": True, "failed_kept": True},
    facts=[
        ("statuses as stored", f"SELECT status, count(*) AS n FROM {DT_T} GROUP BY status ORDER BY status"),
        ("RUNNING tasks (no heartbeat): claimed by, started_at, whole seconds since, and stuck at the operator's threshold of 300 s (the default) and of 3600 s",
         f"SELECT id, queue_name, worker_ids, started_at, CAST(strftime('%s', '{DT_NOW}') AS INTEGER) - CAST(strftime('%s', started_at) AS INTEGER) AS age_s, started_at < datetime('{DT_NOW}', '-300 seconds') AS stuck_300, started_at < datetime('{DT_NOW}', '-3600 seconds') AS stuck_3600 FROM {DT_T} WHERE status = 'RUNNING' ORDER BY rowid"),
        ("run_after set (not 9999-01-01 00:00:00, the library's \"none\")",
         f"SELECT id, status, queue_name, enqueued_at, run_after FROM {DT_T} WHERE run_after < '9998-12-31' ORDER BY rowid"),
        ("wait in ms of every claimed task: started_at - max(enqueued_at, run_after) (julianday: ms resolution)",
         f"SELECT id, status, CAST(round((julianday(started_at) - julianday(CASE WHEN run_after < '9998-12-31' AND run_after > enqueued_at THEN run_after ELSE enqueued_at END)) * 86400000) AS INTEGER) AS wait_ms FROM {DT_T} WHERE started_at IS NOT NULL ORDER BY rowid"),
        ("failed tasks: exception class path and the traceback's last line",
         f"SELECT id, queue_name, task_path, exception_class_path, finished_at, replace(rtrim(traceback, char(10)), rtrim(rtrim(traceback, char(10)), replace(rtrim(traceback, char(10)), char(10), '')), '') AS last_line FROM {DT_T} WHERE status = 'FAILED' ORDER BY rowid"),
        ("errors by exception_class_path (what lqctl errors groups by)",
         f"SELECT exception_class_path, count(*) AS n, min(finished_at) AS first, max(finished_at) AS last FROM {DT_T} WHERE status = 'FAILED' GROUP BY 1 ORDER BY n DESC, 1"),
        ("finished 14 days or more before now (prune_db_task_results' default --min-age-days)",
         f"SELECT id, status, queue_name, finished_at FROM {DT_T} WHERE status IN ('SUCCESSFUL', 'FAILED') AND finished_at <= datetime('{DT_NOW}', '-14 days') ORDER BY rowid"),
        ("return values (SUCCESSFUL; NULL when the task returned None)", f"SELECT id, task_path, return_value FROM {DT_T} WHERE status = 'SUCCESSFUL' ORDER BY rowid"),
        ("priorities", f"SELECT priority, count(*) AS n FROM {DT_T} GROUP BY priority ORDER BY priority"),
        ("worker ids (db_worker --worker-id, get_random_string(32))", f"SELECT worker_ids, count(*) AS n FROM {DT_T} GROUP BY 1 ORDER BY 1"),
        ("applied migrations (django_migrations)", "SELECT app, count(*) AS n, min(name) AS first, max(name) AS last FROM django_migrations GROUP BY app"),
        ("DDL of the table and its indexes (after migrations 0001-0020: status, remade last at 0018, is the last column)",
         f"SELECT sql FROM sqlite_master WHERE tbl_name = '{DT_T}' ORDER BY type DESC, name"),
    ],
    samples_sql=f"SELECT id, queue_name AS queue, status, started_at, finished_at FROM {DT_T} ORDER BY rowid",
    sample_limit=16,
    sample_token=lambda r: {"status": r["status"], "started_at": r["started_at"], "finished_at": r["finished_at"]},
    other_samples_sql=None,
    timing=[(DT_T, c) for c in ("enqueued_at", "run_after", "started_at", "finished_at")],
))

# ---------------------------------------------------------------- hangfire-sqlite
HF_NOW_TICKS = 639316368000000000  # 2026-11-30 12:00:00 UTC as DateTime.Ticks
HF_TIMEOUT_TICKS = 30 * 60 * 10_000_000  # InvisibilityTimeout, 30 min
HF_QUEUE = """coalesce(q.Queue, CASE WHEN json_valid(e.Data) THEN json_extract(e.Data, '$.Queue') END,
    CASE WHEN json_valid(j.InvocationData) THEN json_extract(j.InvocationData, '$.Queue') END, 'default')"""
HF_FROM = """FROM Job j
LEFT JOIN JobQueue q ON q.Id = (SELECT max(Id) FROM JobQueue WHERE JobId = j.Id)
LEFT JOIN State e ON e.Id = (SELECT max(Id) FROM State WHERE JobId = j.Id AND Name = 'Enqueued')"""
SPECS.append(dict(
    file="hangfire-sqlite.sqlite3", format="hangfire-sqlite",
    library="Hangfire.Storage.SQLite 0.4.2 (raisedapp/Hangfire.Storage.SQLite@a07234959f401f166211aedf1ba42a71462dc753) on sqlite-net-pcl 1.8.116 (praeclarum/sqlite-net@0b23275b085f) and Hangfire.Core 1.8.0 (HangfireIO/Hangfire@858f19dfa5fd): the CreateTable DDL and the storage's statements, Python 3.11 sqlite3, reproduced",
    real_library=False, now="2026-11-30T12:00:00Z", now_stored=str(HF_NOW_TICKS),
    queue_tables=["Job", "JobParameter", "JobQueue", "Set", "State"],
    state_sql=f"""SELECT j.Id AS id, {HF_QUEUE} AS queue,
  CASE WHEN j.StateName IN ('Enqueued', 'Processing') AND q.Id IS NULL THEN 'UNKNOWN'
       WHEN j.StateName IN ('Enqueued', 'Processing') AND q.FetchedAt = 0 THEN 'READY'
       WHEN j.StateName IN ('Enqueued', 'Processing') THEN 'LOCKED'
       WHEN j.StateName = 'Scheduled' THEN 'SCHEDULED'
       WHEN j.StateName = 'Succeeded' THEN 'DONE'
       WHEN j.StateName = 'Failed' THEN 'FAILED'
       WHEN j.StateName = 'Deleted' THEN 'deleted'
       WHEN j.StateName = 'Awaiting' THEN 'awaiting'
       ELSE 'UNKNOWN' END AS state
{HF_FROM}""",
    extra_states=["deleted", "awaiting", "locked_expired"],
    extra_sql={"locked_expired": f"SELECT count(*) AS n FROM Job j JOIN JobQueue q ON q.Id = (SELECT max(Id) FROM JobQueue WHERE JobId = j.Id) WHERE j.StateName IN ('Enqueued', 'Processing') AND q.FetchedAt <> 0 AND q.FetchedAt < {HF_NOW_TICKS} - {HF_TIMEOUT_TICKS}"},
    stored={"done_kept": True, "failed_kept": True},
    facts=[
        ("StateName as stored", "SELECT StateName, count(*) AS n FROM Job GROUP BY StateName ORDER BY StateName"),
        ("JobQueue rows; FetchedAt 0 = not fetched; stale (fetched again by the next worker) = FetchedAt < now - InvisibilityTimeout (30 min)",
         f"SELECT q.Id, q.JobId, q.Queue, q.FetchedAt, j.StateName, CASE WHEN q.FetchedAt = 0 THEN 'not fetched' WHEN q.FetchedAt < {HF_NOW_TICKS} - {HF_TIMEOUT_TICKS} THEN 'stale' ELSE 'live' END AS fetch FROM JobQueue q JOIN Job j ON j.Id = q.JobId ORDER BY q.Id"),
        ("Job.StateId (never written by this storage: the current state is the last State row of StateName)", "SELECT StateId, count(*) AS n FROM Job GROUP BY StateId"),
        ("state history rows per name", "SELECT Name, count(*) AS n FROM State GROUP BY Name ORDER BY Name"),
        ("failed jobs: the exception of the current Failed state (what lqctl errors groups by)",
         "SELECT j.Id, json_extract(s.Data, '$.ExceptionType') AS exception_type, json_extract(s.Data, '$.ExceptionMessage') AS message, s.CreatedAt FROM Job j JOIN State s ON s.Id = (SELECT max(Id) FROM State WHERE JobId = j.Id AND Name = j.StateName) WHERE j.StateName = 'Failed' ORDER BY j.Id"),
        ("scheduled jobs: EnqueueAt of the Scheduled state and the 'schedule' set (score: Unix seconds; value: [Job.Queue:]Id)",
         "SELECT j.Id, json_extract(s.Data, '$.EnqueueAt') AS enqueue_at, s.Reason, (SELECT Value || ' @ ' || Score FROM \"Set\" WHERE Key = 'schedule' AND (Value = CAST(j.Id AS TEXT) OR Value GLOB '*:' || j.Id)) AS schedule_set FROM Job j JOIN State s ON s.Id = (SELECT max(Id) FROM State WHERE JobId = j.Id AND Name = j.StateName) WHERE j.StateName = 'Scheduled' ORDER BY j.Id"),
        ("RetryCount job parameters (AutomaticRetry)", "SELECT JobId, Value FROM JobParameter WHERE Name = 'RetryCount' ORDER BY JobId"),
        ("Job.ExpireAt set (a day after Succeeded or Deleted) and expired at now (what the ExpirationManager deletes: ExpireAt > 0 AND ExpireAt < now)",
         f"SELECT Id, StateName, ExpireAt, ExpireAt < {HF_NOW_TICKS} AS expired FROM Job WHERE ExpireAt > 0 ORDER BY Id"),
        ("servers (heartbeat ticks; alive = within 5 min, ServerTimeout)",
         f"SELECT Id, LastHeartbeat, LastHeartbeat > {HF_NOW_TICKS} - 3000000000 AS alive FROM Server ORDER BY Id"),
        ("rows per table", "SELECT (SELECT count(*) FROM Job) AS job, (SELECT count(*) FROM State) AS state, (SELECT count(*) FROM JobParameter) AS job_parameter, (SELECT count(*) FROM JobQueue) AS job_queue, (SELECT count(*) FROM \"Set\") AS \"set\", (SELECT count(*) FROM Hash) AS hash, (SELECT count(*) FROM List) AS list, (SELECT count(*) FROM Counter) AS counter, (SELECT count(*) FROM AggregatedCounter) AS aggregated_counter, (SELECT count(*) FROM Server) AS server, (SELECT count(*) FROM DistributedLock) AS distributed_lock"),
        ("DDL of Job and JobQueue and their indexes (sqlite-net 1.8 CreateTable)",
         "SELECT sql FROM sqlite_master WHERE tbl_name IN ('Job', 'JobQueue') ORDER BY tbl_name, type DESC, name"),
    ],
    samples_sql=f"SELECT j.Id AS id, {HF_QUEUE} AS queue, j.StateName, q.Id AS queue_id, q.FetchedAt {HF_FROM} ORDER BY j.Id",
    sample_limit=16,
    sample_token=lambda r: {"state": r["StateName"], "queue_id": r["queue_id"], "fetched_at": r["FetchedAt"]},
    other_samples_sql=None,
    timing=[("Job", "CreatedAt"), ("Job", "ExpireAt"), ("State", "CreatedAt"), ("JobQueue", "FetchedAt"), ("Server", "LastHeartbeat")],
))

# ---------------------------------------------------------------- hostile
SPECS.append(dict(
    file="not-liteque-tasks.sqlite3", format=None,
    library="plain SQL (to-do app); hostile: a `tasks` table that is not liteque's",
    real_library=False, hostile=True, now=None, now_stored=None, queue_tables=[],
    state_sql=None, extra_states=[],
    facts=[
        ("tables", "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"),
        ("tasks columns (no allocationId / numRunsLeft / maxNumRuns)", "SELECT group_concat(name, ', ') AS columns FROM pragma_table_info('tasks')"),
        ("liteque signature columns present", "SELECT count(*) AS n FROM pragma_table_info('tasks') WHERE name IN ('allocationId', 'numRunsLeft', 'maxNumRuns')"),
        ("rows", "SELECT status, count(*) AS n FROM tasks GROUP BY status ORDER BY status"),
    ],
    samples_sql=None, other_samples_sql=None, timing=[],
))


def md_rows(rows):
    if not rows:
        return "(no rows)"
    if len(rows) == 1 and len(rows[0]) == 1:
        return "`%s`" % json.dumps(list(rows[0].values())[0], ensure_ascii=False)
    return "`%s`" % json.dumps(rows, ensure_ascii=False, separators=(", ", ": "))


def main():
    facts, md = {}, []
    for sp in SPECS:
        f = sp["file"]
        if ONLY and f != ONLY:
            continue
        path = os.path.join(FORMATS_DIR, f)
        raw = open(path, "rb").read()
        header_jm = {1: "rollback", 2: "wal"}[raw[18]]
        entry = {"file": f, "format": sp["format"], "library": sp["library"], "written_by_real_library": sp["real_library"],
                 "hostile": sp.get("hostile", False), "size_bytes": len(raw), "sha256": hashlib.sha256(raw).hexdigest(),
                 "now": sp["now"], "now_as_stored": sp["now_stored"]}
        jm = shell(f, "PRAGMA journal_mode")[0]["journal_mode"]
        pi = shell(f, "SELECT (SELECT page_size FROM pragma_page_size) AS page_size, (SELECT page_count FROM pragma_page_count) AS page_count, (SELECT integrity_check FROM pragma_integrity_check) AS integrity")[0]
        tables = [r["name"] for r in shell(f, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        entry.update({"journal_mode": jm, "header_journal": header_jm, "page_size": pi["page_size"], "page_count": pi["page_count"],
                      "integrity_check": pi["integrity"], "tables": tables, "queue_tables": sp["queue_tables"]})
        md.append("### `formats/%s`" % f)
        md.append("")
        md.append("- format id: `%s`%s" % (sp["format"], " (hostile variant)" if sp.get("hostile") and sp["format"] else ""))
        md.append("- written by: %s" % sp["library"])
        md.append("- size %d bytes, sha256 `%s`; page_size %d, page_count %d, integrity_check `%s`"
                  % (len(raw), entry["sha256"], pi["page_size"], pi["page_count"], pi["integrity"]))
        md.append("- journal mode: `%s` (header bytes 18/19 = %d: %s) — `PRAGMA journal_mode`" % (jm, raw[18], header_jm))
        md.append("- tables: %s — `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`" % ", ".join("`%s`" % t for t in tables))
        if sp["now"]:
            md.append("- facts valid at **now = %s** (as stored: `%s`)" % (sp["now"], sp["now_stored"]))
        if sp["state_sql"]:
            st = "WITH s AS (%s)\n" % sp["state_sql"]
            q_counts = st + "SELECT state, count(*) AS n FROM s GROUP BY state ORDER BY state"
            q_queue = st + "SELECT queue, state, count(*) AS n FROM s GROUP BY queue, state ORDER BY queue, state"
            counts = {r["state"]: r["n"] for r in shell(f, q_counts)}
            per_q = {}
            for r in shell(f, q_queue):
                per_q.setdefault(r["queue"], {})[r["state"]] = r["n"]
            canon = {k: counts.get(k, 0) for k in CANON}
            extra = {k: counts.get(k, 0) for k in sp["extra_states"]}
            for k, q in sp.get("extra_sql", {}).items():
                extra[k] = shell(f, q)[0]["n"]
            unknown = {k: v for k, v in counts.items() if k not in CANON and k not in sp["extra_states"]}
            entry.update({"counts": canon, "extra": extra,
                          "extra_subset_of": {k: OVERLAPS[k] for k in extra if k in OVERLAPS},
                          "stored": dict(sp.get("stored", {}), jobs=sum(counts.values())),
                          "per_queue": per_q})
            if unknown:
                entry["unmapped"] = unknown
            md.append("- state per job (the mapping used for every count below; run it with `WITH s AS (…)`):")
            md.append("")
            md.append("  ```sql")
            md.extend("  " + line for line in sp["state_sql"].splitlines())
            md.append("  ```")
            md.append("- counts: " + ", ".join("%s **%d**" % (k, v) for k, v in canon.items())
                      + "; extra: " + (", ".join("%s **%d**" % (k, v) for k, v in extra.items()) or "none")
                      + "; jobs stored %d — `SELECT state, count(*) FROM s GROUP BY state`" % entry["stored"]["jobs"])
            subs = ["`%s` ⊂ %s" % (k, v) for k, v in entry["extra_subset_of"].items()]
            md.append("  - extras %s are sub-counts of a canonical state; the other extras are states outside the five canonical ones. History kept: done %s, failed %s."
                      % (", ".join(subs) or "(none)", json.dumps(entry["stored"].get("done_kept")), json.dumps(entry["stored"].get("failed_kept"))))
            for k, q in sp.get("extra_sql", {}).items():
                md.append("  - extra `%s`: `%s`" % (k, q))
            md.append("- per queue — `SELECT queue, state, count(*) FROM s GROUP BY queue, state`:")
            for qn, d in per_q.items():
                md.append("  - `%s`: %s" % (qn, ", ".join("%s %d" % (k, v) for k, v in sorted(d.items()))))
        if sp.get("samples_sql"):
            st = "WITH s AS (%s)\n" % sp["state_sql"]
            rows = shell(f, sp["samples_sql"])[: sp.get("sample_limit", 12)]
            states = {str(r["id"]): r["state"] for r in shell(f, st + "SELECT id, state FROM s")}
            samples = [{"id": r["id"], "queue": r["queue"], "state": states[str(r["id"])], "token": sp["sample_token"](r)} for r in rows]
            if sp.get("other_samples_sql"):
                for r in shell(f, sp["other_samples_sql"]):
                    samples.append({"id": r["id"], "queue": r["queue"], "state": states[str(r["id"])], "token": None})
            entry["samples"] = samples
            md.append("- sample jobs (state from `s`, token columns) — `%s`%s:" % (sp["samples_sql"].replace("\n", " "),
                      ("; and `%s`" % sp["other_samples_sql"]) if sp.get("other_samples_sql") else ""))
            for smp in samples:
                md.append("  - `%s` (%s): %s, token `%s`" % (smp["id"], smp["queue"], smp["state"], json.dumps(smp["token"])))
        timing = {}
        if sp["timing"]:
            md.append("- timing columns (min / max / non-NULL) — `SELECT min(c), max(c), count(c) FROM t`:")
            for t, c in sp["timing"]:
                r = shell(f, 'SELECT min("%s") AS min, max("%s") AS max, count("%s") AS n FROM "%s"' % (c, c, c, t))[0]
                timing["%s.%s" % (t, c)] = r
                md.append("  - `%s.%s`: %s / %s / %d" % (t, c, json.dumps(r["min"]), json.dumps(r["max"]), r["n"]))
        entry["timing"] = timing
        entry["facts"] = []
        for label, q in sp["facts"]:
            if sp["format"] == "river-sqlite" and q.startswith("SELECT json(args)"):
                rc, out, err = shell_raw(f, q)
                entry["facts"].append({"fact": label, "sql": q, "engine": "sqlite3 shell " + SHELL_VERSION, "error": err})
                md.append("- %s: fails, `%s` — `%s`" % (label, err, q))
                continue
            rows = shell(f, q)
            entry["facts"].append({"fact": label, "sql": q, "engine": "sqlite3 shell " + SHELL_VERSION, "rows": rows})
            md.append("- %s: %s — `%s`" % (label, md_rows(rows), q))
        for label, q in sp.get("node_facts", []):
            res = node_sql(f, q)
            entry["facts"].append({"fact": label, "sql": q, "engine": "better-sqlite3 12.11.1, SQLite " + res["v"], "rows": res["rows"]})
            md.append("- %s [**computed with better-sqlite3 12.11.1, SQLite %s**, not the 3.40 shell]: %s — `%s`" % (label, res["v"], md_rows(res["rows"]), q))
        md.append("")
        facts[f] = entry
    if ONLY:
        with open(os.path.join(FORMATS_DIR, "facts.json")) as fh:
            kept = json.load(fh)
        kept[ONLY] = facts[ONLY]
        order = [sp["file"] for sp in SPECS]
        facts = {k: kept[k] for k in sorted(kept, key=lambda k: order.index(k) if k in order else len(order))}
    with open(os.path.join(FORMATS_DIR, "facts.json"), "w") as fh:
        json.dump(facts, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
    text = "\n".join(md)
    if ONLY and "--splice" in sys.argv:
        target = sys.argv[sys.argv.index("--splice") + 1]
        doc = open(target).read()
        end = doc.index("<!-- END generated by generate/compute_format_facts.py")
        head = "### `formats/%s`" % ONLY
        if head in doc:
            b = doc.index(head)
            e = doc.find("\n### ", b + 1)
            e = end if e < 0 or e > end else e + 1
        else:  # before the next file's section in SPECS order, or at the end
            order = [sp["file"] for sp in SPECS]
            later = [doc.index("### `formats/%s`" % f) for f in order[order.index(ONLY) + 1:]
                     if "### `formats/%s`" % f in doc]
            b = e = min(later) if later else end
        with open(target, "w") as fh:
            fh.write(doc[:b] + text + "\n" + doc[e:])
    elif "--splice" in sys.argv:
        target = sys.argv[sys.argv.index("--splice") + 1]
        doc = open(target).read()
        begin = doc.index("<!-- BEGIN generated by generate/compute_format_facts.py")
        begin = doc.index("\n", begin) + 1
        end = doc.index("<!-- END generated by generate/compute_format_facts.py")
        with open(target, "w") as fh:
            fh.write(doc[:begin] + "\n" + text + "\n" + doc[end:])
    else:
        print(text)
    shutil.rmtree(TMP)


if __name__ == "__main__":
    main()
