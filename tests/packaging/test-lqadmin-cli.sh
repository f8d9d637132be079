#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# lqadmin --help and --version answer without a display (no DISPLAY,
# WAYLAND_DISPLAY or QT_QPA_PLATFORM), exit 0 and print the usage and the
# version with its commit; so do lqctl --version and --help-all, which the man
# pages are generated from.
# Usage: test-lqadmin-cli.sh LQADMIN LQCTL VERSION
set -uo pipefail
lqadmin=$1 lqctl=$2 version=$3
failures=0
check() { # check NAME EXPECTED-REGEX COMMAND...
    local name=$1 want=$2 out rc
    shift 2
    out=$(env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$@" 2>&1)
    rc=$?
    if [ "$rc" -eq 0 ] && grep -qE -- "$want" <<<"$out"; then
        echo "ok    $name"
    else
        echo "FAIL  $name: exit $rc, wanted /$want/ in:"
        echo "$out" | head -20
        failures=$((failures + 1))
    fi
}
check "lqadmin --help" "^Usage: .*lqadmin \[options\] \[FILE\.\.\.\]" "$lqadmin" --help
check "lqadmin --help lists --watch" "--watch <DIR>" "$lqadmin" --help
check "lqadmin -h" "^Usage: " "$lqadmin" -h
check "lqadmin --version" "^lqadmin $version \(commit [^)]+\)$" "$lqadmin" --version
check "lqadmin --version after a file" "^lqadmin $version " "$lqadmin" some.sqlite3 --version
check "lqctl --version" "^lqctl $version \(commit [^)]+\)$" "$lqctl" --version
# Every command of lqctl --help has its entry in --help-all (the man page).
commands=$("$lqctl" --help | awk '/^Commands:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }')
if [ -z "$commands" ]; then
    echo "FAIL  lqctl --help lists no commands"
    failures=$((failures + 1))
fi
for c in $commands; do
    check "lqctl --help-all: $c" "^lqctl $c (FILE|DIR)" "$lqctl" --help-all
done
[ "$failures" -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "all checks passed"
