# SPDX-License-Identifier: MIT OR Apache-2.0
# bash completion for merkle(1)                                   -*- shell-script -*-
#
# The commands and the options of each are generated from the option tables in cli/ (the
# block below; tools/gen_cli_docs.py rewrites it, a ctest checks it is current).

# BEGIN GENERATED OPTIONS (tools/gen_cli_docs.py from the option tables in cli/)
_merkle_commands='root proof consistency verify sum check audit dirroot cat trie clvm compact'
_merkle_subcommands_trie='root prove verify prove-range prove-change verify-range verify-change'
_merkle_subcommands_clvm='hash serialize'
_merkle_subcommands_compact='append merge root show'

# The options of a command ("root", "trie root"): "-x" or "--name" for a flag,
# "-x=" or "--name=" for an option that takes a value.
_merkle_command_options()
{
    case $1 in
        'root') echo '--profile= --hash= --leaf-size= --leaves --leaf-hashes --0x -j= --threads= -q --quiet -h --help --internal-order --strict --block --limit= --mix-in-length --values= --load --dump= --render --piece-layer= --block-size= --salt= --hash-tree= --mpi' ;;
        'proof') echo '--index= --range= --all --gindex= --value= --binary --format= --profile= --hash= --leaf-size= --leaves --leaf-hashes --0x -j= --threads= -q --quiet -h --help --internal-order --strict --block --limit= --mix-in-length --values= --load' ;;
        'consistency') echo '--old-size= --binary --format= --profile= --hash= --leaf-size= --leaves --leaf-hashes --0x -j= --threads= -q --quiet -h --help --internal-order --strict --block --limit= --mix-in-length --values= --load' ;;
        'verify') echo '--root= --old-root= --untrusted-root --index= --tree-size= --old-size= --leaf= --leaf-hex= --leaf-hash= --value= --values= -h --help' ;;
        'sum') echo '-a= --algorithm= -l= --length= --tag -z --zero -b --binary -t --text -j= --threads= -c --check --version -h --help --quiet --status --strict -w --warn --ignore-missing' ;;
        'check') echo '-a= --algorithm= -l= --length= --cache= --cache-key= --quiet --status --strict -w --warn --ignore-missing -j= --threads= --mpi --version -h --help' ;;
        'audit') echo '-a= --algorithm= -j= --threads= -h --help' ;;
        'dirroot') echo '-a= --algorithm= --leaves -h --help' ;;
        'cat') echo '-m= --manifest= -a= --algorithm= -h --help' ;;
        'trie root') echo '-b= --branch-factor= -j= --threads= -h --help' ;;
        'trie prove') echo '-k= --key= --format= -b= --branch-factor= -j= --threads= -h --help' ;;
        'trie verify') echo '-r= --root= --format= -k= --key= --value= --absent -b= --branch-factor= -h --help' ;;
        'trie prove-range') echo '--at-root= -b= --branch-factor= --start= --end= --max-length= --history-length= -h --help' ;;
        'trie prove-change') echo '--from-root= --to-root= -b= --branch-factor= --start= --end= --max-length= --history-length= -h --help' ;;
        'trie verify-range') echo '-r= --root= -b= --branch-factor= --start= --end= --max-length= -h --help' ;;
        'trie verify-change') echo '--db= -r= --root= -b= --branch-factor= --start= --end= --max-length= -h --help' ;;
        'clvm hash') echo '--0x -h --help' ;;
        'clvm serialize') echo '--backrefs -h --help' ;;
        'compact append') echo '--hash= --begin= --leaf-hashes -h --help' ;;
        'compact merge') echo '-h --help' ;;
        'compact root') echo '-h --help' ;;
        'compact show') echo '-h --help' ;;
    esac
}

# The values of an option ("COMMAND OPTION"): words, or <file> for a file name.
_merkle_option_values()
{
    case $1 in
        'root --profile' | 'proof --profile' | 'consistency --profile')
            echo 'rfc6962 sia bitcoin ssz openzeppelin bittorrent-v2 fsverity dm-verity' ;;
        'root --hash' | 'proof --hash' | 'consistency --hash' | 'compact append --hash')
            echo 'sha256 blake2b-256 keccak256' ;;
        'root --dump' | 'root --hash-tree' | 'verify --leaf' | 'check --cache' | 'check --cache-key' | 'cat -m' | 'cat --manifest' | 'trie verify-change --db')
            echo '<file>' ;;
        'proof --format' | 'consistency --format')
            echo 'json binary cometbft' ;;
        'sum -a' | 'sum --algorithm' | 'check -a' | 'check --algorithm' | 'audit -a' | 'audit --algorithm' | 'dirroot -a' | 'dirroot --algorithm' | 'cat -a' | 'cat --algorithm')
            echo 'md5 sha1 sha256 sha512 blake2b' ;;
        'trie root -b' | 'trie root --branch-factor' | 'trie prove -b' | 'trie prove --branch-factor' | 'trie verify -b' | 'trie verify --branch-factor' | 'trie prove-range -b' | 'trie prove-range --branch-factor' | 'trie prove-change -b' | 'trie prove-change --branch-factor' | 'trie verify-range -b' | 'trie verify-range --branch-factor' | 'trie verify-change -b' | 'trie verify-change --branch-factor')
            echo '2 4 16 256' ;;
        'trie prove --format' | 'trie verify --format')
            echo 'mtrp merkledb' ;;
    esac
}
# END GENERATED OPTIONS

_merkle()
{
    local cur prev cmd sub i key
    COMPREPLY=()
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}

    # The command is the first word after "merkle" that is not an option; trie and clvm
    # take a subcommand after it.
    cmd='' sub=''
    for ((i = 1; i < COMP_CWORD; i++)); do
        if [[ ${COMP_WORDS[i]} != -* ]]; then
            if [[ -z $cmd ]]; then
                cmd=${COMP_WORDS[i]}
            elif [[ -z $sub && -n $(_merkle_subcommands "$cmd") ]]; then
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
    if [[ -z $sub && -n $(_merkle_subcommands "$cmd") ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_merkle_subcommands "$cmd")" -- "$cur")
        return 0
    fi
    key=$cmd${sub:+ $sub}

    local -a opts
    read -r -a opts <<<"$(_merkle_command_options "$key")"

    # The value of an option: its words, a file name, or nothing to offer (a number...).
    local o values
    for o in "${opts[@]}"; do
        if [[ $o == *= && $prev == "${o%=}" ]]; then
            values=$(_merkle_option_values "$key $prev")
            if [[ $values == "<file>" ]]; then
                mapfile -t COMPREPLY < <(compgen -f -- "$cur")
                compopt -o filenames 2>/dev/null
            elif [[ -n $values ]]; then
                mapfile -t COMPREPLY < <(compgen -W "$values" -- "$cur")
            fi
            return 0
        fi
    done

    if [[ $cur == -* ]]; then
        local -a names=()
        for o in "${opts[@]}"; do names+=("${o%=}"); done
        mapfile -t COMPREPLY < <(compgen -W "${names[*]}" -- "$cur")
        return 0
    fi

    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    compopt -o filenames 2>/dev/null
    return 0
}

# The subcommands of a command (trie, clvm), or nothing.
_merkle_subcommands()
{
    local var=_merkle_subcommands_$1
    [[ $1 =~ ^[a-z]+$ ]] && printf '%s' "${!var-}"
}

complete -F _merkle merkle
