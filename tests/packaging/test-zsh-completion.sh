#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# lqctl's zsh completion: it parses, and compinit registers it for lqctl from
# its #compdef line, as it will from /usr/share/zsh/vendor-completions.
# Usage: test-zsh-completion.sh COMPLETION
set -euo pipefail
completion=$1
if ! command -v zsh >/dev/null 2>&1; then
    echo "SKIP: zsh is not installed (apt-get install zsh)"
    exit 77
fi
zsh -n "$completion"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$completion" "$work/_lqctl"
got=$(HOME=$work zsh -f -c 'fpath=("$1" $fpath); autoload -U compinit; compinit -u -d "$1/zcompdump"
      print -r -- $_comps[lqctl]' _ "$work")
if [ "$got" != "_lqctl" ]; then
    echo "FAIL: compinit maps lqctl to \"$got\", not _lqctl"
    exit 1
fi
echo "ok    zsh: compinit maps lqctl to _lqctl"
