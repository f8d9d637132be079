#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds lqfuzz_open with clang + libFuzzer (its own build folder) and fuzzes
# for SECONDS (default 60), seeded from tests/data/*.sqlite3.
#
#   tests/stress/fuzz/run-fuzz.sh            # the 60 s smoke
#   tests/stress/fuzz/run-fuzz.sh 3600       # an hour; the corpus grows in
#                                            # build-fuzz/fuzz-corpus and is
#                                            # reused by the next run
#   LQ_FUZZ_JOBS=2 tests/stress/fuzz/run-fuzz.sh 28800   # overnight, 2 workers
#
# Needs clang and libclang-rt-14-dev (Debian). Crashes land in
# build-fuzz/fuzz-artifacts/; reproduce one with
#   build-fuzz/bin/lqfuzz_open build-fuzz/fuzz-artifacts/crash-...
# and add it to the hostile corpus (tests/data/hostile/fuzz-found/).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
seconds="${1:-60}"
build="${LQ_FUZZ_BUILD:-$root/build-fuzz}"
jobs="${LQ_FUZZ_JOBS:-1}"

if ! command -v clang++ >/dev/null 2>&1; then
    echo "run-fuzz: clang++ not found (apt-get install clang libclang-rt-14-dev)" >&2
    exit 2
fi
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DLQ_FUZZ=ON >"$build.configure.log" 2>&1 ||
    { cat "$build.configure.log" >&2; exit 1; }
cmake --build "$build" --target lqfuzz_open lqfuzz_jsonb -j2

fuzzer="$build/bin/lqfuzz_open"
corpus="$build/fuzz-corpus"
seeds="$build/fuzz-seeds"
artifacts="$build/fuzz-artifacts"
mkdir -p "$corpus" "$seeds" "$artifacts"
cp "$root"/tests/data/*.sqlite3 "$root"/tests/data/wal-pending/*.sqlite3 "$seeds"/
if [ -d "$root/tests/data/hostile/fuzz-found" ]; then
    cp "$root"/tests/data/hostile/fuzz-found/* "$seeds"/ 2>/dev/null || true
fi

log="$build/fuzz.log"
start=$(date +%s)
set +e
# Fork mode with -ignore_crashes: a finding is saved to $artifacts and the
# run goes on, so one known bug does not end the smoke after a few seconds.
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 -fork="$jobs" -ignore_crashes=1 \
    "$corpus" "$seeds" >"$log" 2>&1
status=$?
set -e
elapsed=$(( $(date +%s) - start ))
tail -n 25 "$log"
runs=$(grep -Eo 'stat::number_of_executed_units: [0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1 || true)
[ -n "$runs" ] || runs=$(grep -Eo '#[0-9]+' "$log" | tail -1 | tr -d '#' || true)
cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || true)
crashes=$(grep -Eo 'oom/timeout/crash: [0-9]+/[0-9]+/[0-9]+' "$log" | tail -1 | cut -d' ' -f2 || true)
echo "fuzz: ${runs:-?} executions in ${elapsed} s (exit ${status}), coverage ${cov:-?} edges, corpus $(ls "$corpus" | wc -l) inputs, oom/timeout/crash ${crashes:-?}, artifacts in $artifacts: $(ls "$artifacts" | wc -l)"

# The JSONB decoder, seeded with the blobs a real SQLite wrote
# (tests/data/jsonb/vectors.json): a quarter of the time, at least 15 s.
jseconds=$(( seconds / 4 > 15 ? seconds / 4 : 15 ))
jcorpus="$build/fuzz-corpus-jsonb"
jseeds="$build/fuzz-seeds-jsonb"
mkdir -p "$jcorpus" "$jseeds"
python3 - "$root/tests/data/jsonb/vectors.json" "$jseeds" <<'PY'
import json, sys, os
v = json.load(open(sys.argv[1]))
blobs = [x["jsonb_hex"] for x in v["vectors"]]
for j in v["river_jobs"]:
    blobs += [j[k] for k in ("args_hex", "errors_hex", "metadata_hex") if j.get(k)]
for i, h in enumerate(blobs):
    open(os.path.join(sys.argv[2], "v%03d" % i), "wb").write(bytes.fromhex(h))
PY
set +e
"$build/bin/lqfuzz_jsonb" -max_total_time="$jseconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$artifacts/jsonb-" -print_final_stats=1 "$jcorpus" "$jseeds" >"$build/fuzz-jsonb.log" 2>&1
jstatus=$?
set -e
jruns=$(grep -Eo 'stat::number_of_executed_units: [0-9]+' "$build/fuzz-jsonb.log" | grep -Eo '[0-9]+$' | tail -1 || true)
echo "fuzz jsonb: ${jruns:-?} executions in ${jseconds} s (exit ${jstatus}), artifacts: $(ls "$artifacts" | wc -l)"
[ "$jstatus" -eq 0 ] || tail -n 30 "$build/fuzz-jsonb.log"

# A finding on a CI machine is gone with the machine: print what it takes to
# reproduce it here. Each artifact runs once more on its own (its stack trace
# or, for a timeout, the stack libFuzzer prints when it fires), then the bytes
# themselves, gzipped and base64-encoded, when they are small enough:
#   base64 -d <<'B64' | gunzip > input.sqlite3   (the lines between the markers)
for a in "$artifacts"/*; do
    [ -f "$a" ] || continue
    name=$(basename "$a")
    echo "== fuzz finding $name ($(stat -c %s "$a") bytes, sha256 $(sha256sum "$a" | cut -c1-16))"
    bin="$fuzzer"
    case "$name" in jsonb-*) bin="$build/bin/lqfuzz_jsonb" ;; esac
    timeout 60 "$bin" -timeout=10 -rss_limit_mb=2048 "$a" 2>&1 | grep -E "ERROR|ALARM|SUMMARY|^ +#[0-9]+ " | head -n 40 || true
    packed=$(gzip -9c "$a" | base64 -w 120)
    if [ "${#packed}" -le 200000 ]; then
        echo "-- $name, gzip | base64 (between the markers):"
        echo "B64-BEGIN"
        echo "$packed"
        echo "B64-END"
    else
        echo "-- $name: ${#packed} base64 characters gzipped; not printed"
    fi
done
[ "$status" -eq 0 ] || exit "$status"
exit "$jstatus"
