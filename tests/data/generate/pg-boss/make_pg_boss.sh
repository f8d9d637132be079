#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/data/pg/pg-boss-npm.sql: pg-boss's schema as its own npm package
# creates it (pg-boss 12.27.0, `new PgBoss(url).start()`, schema version 37),
# with jobs sent by its own send() and run by its own workers
# (pg_boss_jobs.mjs beside this script), ids b1… to b9…:
#   b1  email: completed by a worker ({"sent": true})
#   b2  email, retryLimit 1: thrown twice, failed ("SMTP 550 mailbox unavailable")
#   b3  email, retryLimit 2, retryDelay 1 h: thrown once, retry ("connection reset")
#   b4  email, priority 5 (no worker left): created, ready
#   b5  reports, singletonKey report-2026-11: created, ready
#   b6  reports, startAfter one day later: created, scheduled
#   b7  reports: cancelled by boss.cancel()
#   b8  export, expireInSeconds 10: taken by a worker then killed (kill -9):
#       active, expired 10 s after it started (stuck)
#   b9  export, expireInSeconds 21600: taken by the same worker: active
# No supervisor, maintenance or cron runs (supervise: false, schedule:
# false), so nothing moves a row after its call.
# Usage: make_pg_boss.sh URL_OF_AN_EMPTY_DATABASE > pg-boss-npm.sql
# Needs node, npm and the npm registry (opt-in: scripts/test never runs it)
# and psql/pg_dump from postgresql-15. Times are the wall clock's: the facts
# in tests/data/FIXTURES.md are read at the instant noted there.
set -euo pipefail
url="$1"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
holder=""
trap '[ -z "$holder" ] || kill -9 "$holder" 2>/dev/null || true; rm -rf "$work"' EXIT
cp "$here/pg_boss_jobs.mjs" "$work/"
cd "$work"
npm install --no-audit --no-fund pg-boss@12.27.0 >/dev/null 2>&1
bin=/usr/lib/postgresql/15/bin
node pg_boss_jobs.mjs "$url" jobs >&2
node pg_boss_jobs.mjs "$url" hold >&2 &
holder=$!
# Both export jobs active, then the worker dies without a word to pg-boss.
for _ in $(seq 1 100); do
    n="$("$bin/psql" -qtA "$url" -c "SELECT count(*) FROM pgboss.job WHERE name = 'export' AND state = 'active'")"
    [ "$n" = 2 ] && break
    sleep 0.1
done
kill -9 "$holder"
wait "$holder" 2>/dev/null || true
holder=""
[ "$n" = 2 ] || { echo "the export jobs were not taken" >&2; exit 1; }
echo "-- pg-boss on PostgreSQL as pg-boss 12.27.0 (npm) creates it:"
echo "-- tests/data/generate/pg-boss/make_pg_boss.sh; facts in"
echo "-- tests/data/FIXTURES.md. Generated: do not edit."
# Without psql's \restrict and \unrestrict lines (pg_dump 15.14 and later):
# the file is read by libpq, not psql.
"$bin/pg_dump" "$url" --schema=pgboss --inserts --no-owner --no-privileges |
    grep -v -E '^\\(un)?restrict '
