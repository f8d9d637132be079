#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# lqctl's bash completion, sourced with bash-completion into a fresh bash:
# `complete -p lqctl`, then _lqctl on scripted COMP_WORDS/COMP_CWORD for
# command names, options, status names, queue files and message ids read
# from a copy of a fixture.
#
# Usage: test-bash-completion.sh COMPLETION LQCTL FIXTURE MESSAGE_ID
# MESSAGE_ID: a LOCKED message of FIXTURE (so retry, fail and get offer it).
set -euo pipefail
completion=$(realpath "$1") lqctl=$(realpath "$2") fixture=$(realpath "$3") id=$4
framework=/usr/share/bash-completion/bash_completion
if [ ! -f "$framework" ]; then
    echo "SKIP: bash-completion is not installed (apt-get install bash-completion)"
    exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin" "$work/queues" "$work/audit"
ln -s "$lqctl" "$work/bin/lqctl"
cp "$fixture" "$work/queues/orders.sqlite3"
touch "$work/queues/jobs.db" "$work/queues/notes.txt"
mkdir "$work/queues/more"
cd "$work/queues"

PATH="$work/bin:$PATH" LQ_AUDIT_DIR="$work/audit" \
    bash --norc --noprofile -c '
source "$1"
source "$2"
id=$3
failures=0

# comp WORD...: what _lqctl offers for the last WORD.
comp() {
    COMP_WORDS=("$@")
    COMP_CWORD=$(($# - 1))
    COMP_LINE="$*"
    COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    _lqctl lqctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    printf "%s\n" "${COMPREPLY[@]}"
}
# offers WANT WORD...: WANT is among the candidates; lacks: it is not.
offers() {
    local want=$1 got
    shift
    got=$(comp "$@")
    if grep -qxF -- "$want" <<<"$got"; then
        echo "ok    $* -> $want"
    else
        echo "FAIL  $* -> wanted $want, got: $(echo $got)"
        failures=$((failures + 1))
    fi
}
lacks() {
    local unwanted=$1 got
    shift
    got=$(comp "$@")
    if grep -qxF -- "$unwanted" <<<"$got"; then
        echo "FAIL  $* -> offers $unwanted"
        failures=$((failures + 1))
    else
        echo "ok    $* -> not $unwanted"
    fi
}

registered=$(complete -p lqctl)
if [ "$registered" = "complete -F _lqctl lqctl" ]; then
    echo "ok    $registered"
else
    echo "FAIL  complete -p lqctl: $registered"
    failures=$((failures + 1))
fi

# Commands, from lqctl --help.
for c in info stats list get put retry fail prune vacuum fleet retry-expired; do
    offers "$c" lqctl ""
done
offers retry-expired lqctl re
lacks stats lqctl re
offers --version lqctl --v
offers retry lqctl help re
# Options of the command, from lqctl COMMAND --help.
offers --status lqctl list orders.sqlite3 --st
offers --stuck-after lqctl list orders.sqlite3 --st
offers --prometheus lqctl stats orders.sqlite3 --p
lacks --status lqctl stats orders.sqlite3 --st
offers --keep-failed lqctl prune --k
# Status names, after a comma too.
offers locked lqctl list orders.sqlite3 --status l
offers leased lqctl list orders.sqlite3 --status l
offers ready,failed lqctl list orders.sqlite3 --status ready,f
offers failed,blocked lqctl list orders.sqlite3 --status failed,bl
offers dead_letter lqctl list orders.sqlite3 --status dead
# --status=l: readline splits the word at "=", bash-completion joins it again.
COMP_WORDS=(lqctl list orders.sqlite3 --status = l)
COMP_CWORD=5
COMP_LINE="lqctl list orders.sqlite3 --status=l"
COMP_POINT=${#COMP_LINE}
COMPREPLY=()
_lqctl lqctl l =
if printf "%s\n" "${COMPREPLY[@]}" | grep -qx locked; then
    echo "ok    $COMP_LINE -> locked"
else
    echo "FAIL  $COMP_LINE -> wanted locked, got: ${COMPREPLY[*]}"
    failures=$((failures + 1))
fi
# Queue files (and folders), not other files; fleet takes a folder.
offers orders.sqlite3 lqctl stats ""
offers jobs.db lqctl stats ""
offers more lqctl stats ""
lacks notes.txt lqctl stats ""
offers more lqctl fleet ""
lacks orders.sqlite3 lqctl fleet ""
# Message ids read from the file; option values are skipped.
offers "$id" lqctl get orders.sqlite3 ""
offers "$id" lqctl retry orders.sqlite3 "${id:0:8}"
offers "$id" lqctl fail --claim 5 orders.sqlite3 "${id:0:8}"
lacks "$id" lqctl get missing.sqlite3 ""
# No completion for a value lqctl cannot know.
lacks orders.sqlite3 lqctl list orders.sqlite3 --limit ""

if [ "$failures" -ne 0 ]; then
    echo "$failures completion check(s) failed"
    exit 1
fi
echo "all completion checks passed"
' _ "$framework" "$completion" "$id"
