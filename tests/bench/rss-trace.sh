#!/bin/bash
# SPDX-License-Identifier: MIT
# Samples a command's resident set from outside the process every 20 ms:
#   tests/bench/rss-trace.sh OUT command [args...]
# OUT gets "uptime_seconds rss_kb" lines. /proc/uptime runs with
# CLOCK_MONOTONIC, the clock of lqbench gui's "phase ... ends at" lines,
# on a machine that has not been suspended: the samples cut by phase.
set -u
out=$1
shift
"$@" &
pid=$!
: >"$out"
while kill -0 "$pid" 2>/dev/null; do
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
    up=$(cut -d' ' -f1 /proc/uptime)
    [ -n "$rss" ] && echo "$up $rss" >>"$out"
    sleep 0.02
done
wait "$pid"
