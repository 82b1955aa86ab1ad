# SPDX-License-Identifier: MIT OR Apache-2.0
# bash completion for merkle(1)                                   -*- shell-script -*-
#
# Commands and the values of well-known options are listed here; the options of each
# command are read from `merkle COMMAND --help` of the merkle being completed (and cached),
# so that a newer merkle's options complete without editing this file.

_merkle_commands="root proof consistency verify sum check audit dirroot cat trie clvm"
_merkle_subcommands_trie="root prove verify"
_merkle_subcommands_clvm="hash serialize"

# Print the long options that `$1 ARGS... --help` mentions (option lines, usage lines and
# text alike): one per line, "--name", or "--name=" when some mention is followed by a VALUE
# placeholder (an upper-case word).
_merkle_help_options()
{
    local bin=$1
    shift
    "$bin" "$@" --help 2>/dev/null |
        grep -oE -- '--[[:alnum:]][[:alnum:]-]*([ =][A-Z][A-Z_.:]*)?' |
        sed -E 's/[ =][A-Z][A-Z_.:]*$/=/' | sort -u |
        awk '{ n = $0; sub(/=$/, "", n); if (!(n in seen) || $0 ~ /=$/) seen[n] = $0 }
             END { for (n in seen) print seen[n] }'
}

# Cache key -> option list, so each --help runs once per shell.
declare -gA _merkle_option_cache 2>/dev/null || true

_merkle_options()
{
    local bin=$1 key
    shift
    key="$bin $*"
    if [[ -z ${_merkle_option_cache[$key]+set} ]]; then
        _merkle_option_cache[$key]=$(_merkle_help_options "$bin" "$@")
    fi
    printf '%s\n' "${_merkle_option_cache[$key]}"
}

_merkle()
{
    local cur prev bin cmd sub i
    COMPREPLY=()
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    bin=${COMP_WORDS[0]}
    command -v "$bin" >/dev/null 2>&1 || bin=merkle

    # The command is the first word after "merkle" that is not an option.
    cmd='' sub=''
    for ((i = 1; i < COMP_CWORD; i++)); do
        if [[ ${COMP_WORDS[i]} != -* ]]; then
            if [[ -z $cmd ]]; then
                cmd=${COMP_WORDS[i]}
            elif [[ -z $sub && ($cmd == trie || $cmd == clvm) ]]; then
                sub=${COMP_WORDS[i]}
            fi
        fi
    done

    if [[ -z $cmd ]]; then
        if [[ $cur == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W "--help --version" -- "$cur")
        else
            mapfile -t COMPREPLY < <(compgen -W "$_merkle_commands" -- "$cur")
        fi
        return 0
    fi

    if [[ -z $sub && $cur != -* ]]; then
        case $cmd in
            trie)
                mapfile -t COMPREPLY < <(compgen -W "$_merkle_subcommands_trie" -- "$cur")
                return 0
                ;;
            clvm)
                mapfile -t COMPREPLY < <(compgen -W "$_merkle_subcommands_clvm" -- "$cur")
                return 0
                ;;
        esac
    fi

    # Values of options.
    case $prev in
        --profile)
            mapfile -t COMPREPLY < <(compgen -W "rfc6962 sia bitcoin ssz openzeppelin bittorrent-v2" -- "$cur")
            return 0
            ;;
        --hash)
            mapfile -t COMPREPLY < <(compgen -W "sha256 blake2b-256 keccak256" -- "$cur")
            return 0
            ;;
        -a | --algorithm)
            mapfile -t COMPREPLY < <(compgen -W "md5 sha1 sha256 sha512 blake2b" -- "$cur")
            return 0
            ;;
        --format)
            mapfile -t COMPREPLY < <(compgen -W "gnu bsd hex json" -- "$cur")
            return 0
            ;;
        -b | --branch-factor)
            mapfile -t COMPREPLY < <(compgen -W "2 4 16 256" -- "$cur")
            return 0
            ;;
        --leaf-size | -j | --threads | --num-threads | --index | --size | --old-size | \
            --new-size | --start | --end | -n | --count | -k | --key | -r | --root | \
            --range | --old-root | --leaf-hex | --leaf-hash | -l | --length | --limit | --gindex | \
            --values | --piece-layer)
            return 0
            ;;
    esac

    local -a opts
    if [[ -n $sub ]]; then
        mapfile -t opts < <(_merkle_options "$bin" "$cmd" "$sub")
    else
        mapfile -t opts < <(_merkle_options "$bin" "$cmd")
    fi

    # An option listed with a VALUE placeholder and not known above: complete file names.
    local o
    for o in "${opts[@]}"; do
        if [[ $o == *= && $prev == "${o%=}" ]]; then
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            compopt -o filenames 2>/dev/null
            return 0
        fi
    done

    if [[ $cur == -* ]]; then
        local -a names=()
        for o in "${opts[@]}"; do names+=("${o%=}"); done
        [[ " ${names[*]} " == *" --help "* ]] || names+=(--help)
        mapfile -t COMPREPLY < <(compgen -W "${names[*]}" -- "$cur")
        return 0
    fi

    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    compopt -o filenames 2>/dev/null
    return 0
}

complete -F _merkle merkle
