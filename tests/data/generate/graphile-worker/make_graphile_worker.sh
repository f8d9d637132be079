#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/data/pg/graphile-worker-npm.sql: Graphile Worker's schema as its own
# npm package creates it (graphile-worker 0.18.0, 20 migrations), with jobs
# added by its own add_job() and run by its own worker:
#   1-3  ok (two without a queue, one in "emails"): run and deleted
#   4-5  boom, max_attempts 1: failed once, permanently failed
#   6    boom, max_attempts 3: failed once, due again (last_error kept)
#   7-8  send_email in queue "emails" (no worker runs that task): ready
#   9    report, run_at one day later, job key report-2026-11: scheduled
#   10   slow: taken by a worker that was then killed (kill -9): locked
# Usage: make_graphile_worker.sh URL_OF_AN_EMPTY_DATABASE > graphile-worker-npm.sql
# Needs node, npm and the npm registry (opt-in: scripts/test never runs it)
# and psql/pg_dump from postgresql-15. Times are the wall clock's: the facts
# in tests/data/FIXTURES.md are read at the instant noted there.
set -euo pipefail
url="$1"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'pkill -9 -f "graphile-worker --connection $url" || true; rm -rf "$work"' EXIT
cp -r "$here/tasks" "$work/"
cd "$work"
npm install --no-audit --no-fund graphile-worker@0.18.0 pg >/dev/null 2>&1
bin=/usr/lib/postgresql/15/bin
npx graphile-worker --connection "$url" --schema-only >&2
"$bin/psql" -q "$url" <<'SQL' >/dev/null
SELECT graphile_worker.add_job('ok', '{"n": 1}');
SELECT graphile_worker.add_job('ok', '{"n": 2}');
SELECT graphile_worker.add_job('ok', '{"n": 3}', queue_name := 'emails');
SELECT graphile_worker.add_job('boom', '{"invoice": 41}', max_attempts := 1);
SELECT graphile_worker.add_job('boom', '{"invoice": 42}', max_attempts := 1);
SELECT graphile_worker.add_job('boom', '{"invoice": 43}', max_attempts := 3);
SQL
npx graphile-worker --connection "$url" --once >&2 || true
"$bin/psql" -q "$url" <<'SQL' >/dev/null
SELECT graphile_worker.add_job('send_email', '{"to": "ana@example.com"}', queue_name := 'emails');
SELECT graphile_worker.add_job('send_email', '{"to": "bo@example.com"}', queue_name := 'emails', priority := 5);
SELECT graphile_worker.add_job('report', '{"month": "2026-11"}', run_at := now() + interval '1 day', job_key := 'report-2026-11');
SELECT graphile_worker.add_job('slow', '{"export": 7}');
SQL
npx graphile-worker --connection "$url" >&2 &
sleep 6
pkill -9 -f "graphile-worker --connection $url"
echo "-- Graphile Worker on PostgreSQL as graphile-worker 0.18.0 (npm) creates it:"
echo "-- tests/data/generate/graphile-worker/make_graphile_worker.sh; facts in"
echo "-- tests/data/FIXTURES.md. Generated: do not edit."
# Without psql's \restrict and \unrestrict lines (pg_dump 15.14 and later):
# the file is read by libpq, not psql.
"$bin/pg_dump" "$url" --schema=graphile_worker --inserts --no-owner --no-privileges |
    grep -v -E '^\\(un)?restrict '
