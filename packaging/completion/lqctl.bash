# bash completion for lqctl                                -*- shell-script -*-
# SPDX-License-Identifier: MIT
#
# Installed as /usr/share/bash-completion/completions/lqctl. Commands and
# options are read from `lqctl --help` and `lqctl COMMAND --help`, so they
# follow the lqctl that is installed; message ids come from the file itself
# (`lqctl list FILE --json --limit 200`).

# The commands of `lqctl --help`, one per line.
_lqctl_commands()
{
    "$1" --help 2>/dev/null |
        awk '/^Commands:/ { on = 1; next } /^$/ { on = 0 } on && /^  [a-z]/ { print $1 }'
}

# The options of `lqctl COMMAND --help`, one per line; an option that takes
# a value ends in "=" (--status=, --json).
_lqctl_options()
{
    "$1" "$2" --help 2>/dev/null |
        sed -nE 's/^  (--[a-z][a-z-]*)( [A-Z][A-Z|-]*)?  .*/\1\2/p' |
        sed -E 's/ .*/=/'
}

# Message ids of FILE in arrival order, at most 200; only those COMMAND
# can act on for retry (LOCKED, FAILED) and fail (READY, LOCKED).
_lqctl_message_ids()
{
    local status=()
    case $3 in
        retry) status=(--status locked,failed) ;;
        fail) status=(--status ready,locked) ;;
    esac
    "$1" list "$2" "${status[@]}" --json --limit 200 2>/dev/null |
        sed -nE 's/^\{"message_id":"([^"\\]*)".*/\1/p'
}

_lqctl()
{
    local cur prev words cword split
    _init_completion -s || return

    local lqctl=${words[0]} i cmd="" cmdi=0
    for ((i = 1; i < cword; i++)); do
        if [[ ${words[i]} != -* ]]; then
            cmd=${words[i]} cmdi=$i
            break
        fi
    done

    if [[ -z $cmd || $cmd == help ]]; then
        if [[ $cur == -* ]]; then
            [[ -z $cmd ]] && COMPREPLY=($(compgen -W '--help --version' -- "$cur"))
        elif [[ -z $cmd || $cmdi -eq $((cword - 1)) ]]; then
            COMPREPLY=($(compgen -W "$(_lqctl_commands "$lqctl")" -- "$cur"))
        fi
        return
    fi

    local opts
    opts=$(_lqctl_options "$lqctl" "$cmd")

    case $prev in
        --status)
            # A comma-separated list: complete the name after the last comma.
            local done=""
            [[ $cur == *,* ]] && done=${cur%,*},
            # The names the installed lqctl takes (the "States:" line of
            # `lqctl COMMAND --help`, made from its formats).
            COMPREPLY=($(compgen -P "$done" -W "$("$lqctl" "$cmd" --help 2>/dev/null |
                sed -n 's/^States: //p')" -- "${cur##*,}"))
            return
            ;;
        --*)
            # Any other option that takes a value: a number, a time, a text.
            grep -qxF -- "$prev=" <<<"$opts" && return
            ;;
    esac
    $split && return

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "${opts//=/} --help" -- "$cur"))
        return
    fi

    # The positional arguments before the cursor, option values skipped.
    local word positional=()
    for ((i = cmdi + 1; i < cword; i++)); do
        word=${words[i]}
        if [[ $word == --?* ]]; then
            [[ $word != *=* ]] && grep -qxF -- "$word=" <<<"$opts" && ((i++))
            continue
        fi
        positional+=("$word")
    done

    case ${#positional[@]} in
        0)
            if [[ $cmd == fleet ]]; then
                _filedir -d
            else
                _filedir '@(sqlite3|db|sqlite)'
            fi
            ;;
        1)
            case $cmd in
                get | retry | fail | release | reschedule | delete)
                    # The file as lqctl will see it: unquoted, ~ expanded (no eval).
                    local file=${positional[0]}
                    case $file in
                        \'*\' | \"*\") file=${file:1:${#file}-2} ;;
                        *) file=${file//\\/} ;;
                    esac
                    [[ $file == \~/* ]] && file=$HOME/${file:2}
                    [[ -f $file ]] &&
                        COMPREPLY=($(compgen -W "$(_lqctl_message_ids "$lqctl" "$file" "$cmd")" -- "$cur"))
                    ;;
            esac
            ;;
    esac
} &&
    complete -F _lqctl lqctl

# ex: filetype=sh
