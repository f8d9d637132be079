#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# lqctl's zsh completion in a real interactive zsh (driven through zsh/zpty):
# compinit registers it from its #compdef line, as from
# /usr/share/zsh/vendor-completions, and TAB completes commands, options,
# status names, queue files and a message id read from a copy of a fixture.
#
# Usage: test-zsh-completion.sh COMPLETION LQCTL FIXTURE MESSAGE_ID
set -euo pipefail
completion=$(realpath "$1") lqctl=$(realpath "$2") fixture=$(realpath "$3") id=$4
if ! command -v zsh >/dev/null 2>&1; then
    echo "SKIP: zsh is not installed (apt-get install zsh)"
    exit 77
fi
zsh -n "$completion"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/fpath" "$work/bin" "$work/queues" "$work/audit"
cp "$completion" "$work/fpath/_lqctl"
ln -s "$lqctl" "$work/bin/lqctl"
cp "$fixture" "$work/queues/orders.sqlite3"
touch "$work/queues/notes.txt"

HOME=$work PATH="$work/bin:$PATH" LQ_AUDIT_DIR="$work/audit" zsh -f -c '
work=$1 id=$2
failures=0
got=$(fpath=("$work/fpath" $fpath); autoload -U compinit; compinit -u -d "$work/zcompdump"
      print -r -- $_comps[lqctl])
if [[ $got == _lqctl ]]; then
    print "ok    compinit maps lqctl to _lqctl"
else
    print "FAIL  compinit maps lqctl to \"$got\""
    (( failures++ ))
fi

zmodload zsh/zpty
zpty -b z "TERM=dumb zsh -f -i"
zpty -w z "PS1=\"> \"; fpath=(\"$work/fpath\" \$fpath); autoload -U compinit; compinit -u -d \"$work/zcompdump\"; setopt nobeep; LISTMAX=1000; cd \"$work/queues\""

# offers LINE WANT: typing LINE and TAB shows WANT (listed or inserted) within 10 s.
offers() {
    local line=$1 want=$2 chunk seen="" i
    zpty -w -n z "$line"$'\''\t'\''
    for (( i = 0; i < 100; i++ )); do
        zpty -rt z chunk 2>/dev/null && seen+=$chunk && [[ $seen == *$want* ]] && break
        sleep 0.1
    done
    zpty -w -n z $'\''\x15'\''  # Ctrl-U: clear the line for the next case
    if [[ $seen == *$want* ]]; then
        print -r -- "ok    $line<TAB> -> $want"
    else
        print -r -- "FAIL  $line<TAB> -> wanted $want, saw: ${seen//$'\''\e'\''\[[0-9;?]#[A-Za-z]/}"
        (( failures++ ))
    fi
    sleep 0.3
    while zpty -rt z chunk 2>/dev/null; do :; done
}
offers "lqctl re" retry-expired
offers "lqctl list orders.sqlite3 --st" --stuck-after
offers "lqctl list orders.sqlite3 --status=l" leased
offers "lqctl list orders.sqlite3 --status=ret" retryable
offers "lqctl stats ord" orders.sqlite3
offers "lqctl retry orders.sqlite3 ${id[1,9]}" $id
zpty -d z
(( failures == 0 )) || { print "$failures zsh completion check(s) failed"; exit 1 }
print "all zsh completion checks passed"
' _ "$work" "$id"
