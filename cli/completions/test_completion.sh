#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Test the shell completions of merkle the way the shells ask for them.
#   test_completion.sh bash|fish|zsh COMPLETION_FILE MERKLE_BIN
# bash: sources the file, checks `complete -p merkle`, then fills COMP_WORDS/COMP_CWORD and
# calls the completion function, as bash does on <TAB>. fish: `complete -C`. zsh: syntax,
# and the generated _arguments specs (interactive zsh completion needs a terminal).
# Exit 0 pass, 1 fail, 77 skipped (shell missing).
set -u
shell=$1 file=$2 bin=$3
PATH=$(cd "$(dirname "$bin")" && pwd):$PATH
export PATH
fails=0

fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}

# expect "WORDS..." "EXPECTED REPLIES (space separated, sorted)" -- bash
expect_bash() {
    local line=$1 want=$2 got
    read -r -a COMP_WORDS <<<"$line"
    [[ $line == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMP_LINE=$line
    COMP_POINT=${#line}
    COMPREPLY=()
    "$func" merkle "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
    got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')
    got=${got% }
    if [[ $got != "$want" ]]; then
        fail "bash: '$line<TAB>' gave '$got', want '$want'"
    else
        echo "ok   bash: '$line<TAB>' -> $got"
    fi
}

case $shell in
bash)
    # shellcheck source=/dev/null
    source "$file" || { echo "FAIL: cannot source $file" >&2; exit 1; }
    spec=$(complete -p merkle 2>/dev/null) || { echo "FAIL: no completion registered for merkle" >&2; exit 1; }
    echo "ok   $spec"
    func=$(sed -nE 's/.*-F ([^ ]+).*/\1/p' <<<"$spec")
    [[ -n $func ]] || { echo "FAIL: completion is not a function: $spec" >&2; exit 1; }
    expect_bash "merkle ro" "root"
    expect_bash "merkle root --pro" "--profile"
    expect_bash "merkle root --profile " "bitcoin bittorrent-v2 dm-verity fsverity openzeppelin rfc6962 sia ssz"
    expect_bash "merkle root --str" "--strict"
    expect_bash "merkle root --mix" "--mix-in-length"
    expect_bash "merkle proof --gi" "--gindex"
    expect_bash "merkle root --limit " ""
    expect_bash "merkle root --hash k" "keccak256"
    expect_bash "merkle root --lo" "--load"
    expect_bash "merkle root --piece" "--piece-layer"
    expect_bash "merkle root --piece-layer " ""
    expect_bash "merkle root --hash b" "blake2b-256"
    expect_bash "merkle root --le" "--leaf-hashes --leaf-size --leaves"
    expect_bash "merkle --v" "--version"
    expect_bash "merkle c" "cat check clvm compact consistency"
    expect_bash "merkle trie " "prove prove-change prove-range root verify verify-change verify-range"
    expect_bash "merkle trie prove-range --h" "--help --history-length"
    expect_bash "merkle trie verify-change --d" "--db"
    expect_bash "merkle trie prove --format " "merkledb mtrp"
    expect_bash "merkle clvm s" "serialize"
    expect_bash "merkle compact " "append merge root show"
    expect_bash "merkle compact append --h" "--hash --help"
    expect_bash "merkle trie root --branch-factor " "16 2 256 4"
    expect_bash "merkle trie prove --k" "--key"
    expect_bash "merkle trie verify --root " ""
    expect_bash "merkle proof --in" "--index --internal-order"
    expect_bash "merkle consistency --old" "--old-size"
    expect_bash "merkle verify --leaf" "--leaf --leaf-hash --leaf-hex"
    expect_bash "merkle proof --index " ""
    expect_bash "merkle sum -a " "blake2b md5 sha1 sha256 sha512"
    expect_bash "merkle sum --ta" "--tag"
    expect_bash "merkle check --ca" "--cache --cache-key"
    expect_bash "merkle dirroot --le" "--leaves"
    # The same letter is a flag in one command and takes a value in another.
    expect_bash "merkle trie root -b " "16 2 256 4"
    expect_bash "merkle trie verify --r" "--root"
    expect_bash "merkle clvm serialize --b" "--backrefs"
    expect_bash "merkle check --mp" "--mpi"
    # Every command of `merkle --help` completes, and nothing else does.
    cmds=$("$bin" --help | sed -nE 's/^  ([a-z][a-z-]*) .*/\1/p' | sort | tr '\n' ' ')
    expect_bash "merkle " "${cmds% }"
    # Every long option of `merkle root --help` completes.
    opts=$("$bin" root --help | grep -oE -- '--[a-z0-9][a-z0-9-]*' | sort -u | tr '\n' ' ')
    expect_bash "merkle root --" "${opts% }"
    # File names after the options.
    tmp=$(mktemp -d)
    touch "$tmp/leafdata.bin"
    expect_bash "merkle root --leaf-size 1 $tmp/leafd" "$tmp/leafdata.bin"
    rm -rf "$tmp"
    ;;
fish)
    command -v fish >/dev/null || { echo "fish not installed: skipped"; exit 77; }
    fish -n "$file" || fail "fish -n $file"
    check_fish() {
        local line=$1 want=$2 got
        got=$(fish -c "source '$file'; complete -C'$line'" | cut -f1 | sort | tr '\n' ' ')
        got=${got% }
        if [[ $got != "$want" ]]; then fail "fish: '$line<TAB>' gave '$got', want '$want'"
        else echo "ok   fish: '$line<TAB>' -> $got"; fi
    }
    check_fish "merkle ro" "root"
    check_fish "merkle root --pro" "--profile"
    check_fish "merkle root --profile " "bitcoin bittorrent-v2 dm-verity fsverity openzeppelin rfc6962 sia ssz"
    check_fish "merkle root --inter" "--internal-order"
    check_fish "merkle trie " "prove prove-change prove-range root verify verify-change verify-range"
    check_fish "merkle trie prove-change --from" "--from-root"
    check_fish "merkle trie root --branch-factor " "16 2 256 4"
    check_fish "merkle check --algorithm " "blake2b md5 sha1 sha256 sha512"
    check_fish "merkle --vers" "--version"
    check_fish "merkle trie prove -b " "16 2 256 4"
    check_fish "merkle proof --gin" "--gindex"
    check_fish "merkle clvm " "hash serialize"
    ;;
zsh)
    command -v zsh >/dev/null || { echo "zsh not installed: skipped"; exit 77; }
    zsh -n "$file" || fail "zsh -n $file"
    head -n1 "$file" | grep -qx '#compdef merkle' || fail "zsh: first line is not '#compdef merkle'"
    # The generated specs: every long option of `merkle root --help` has one, with its values.
    specs=$(zsh -fc "eval \"\$(sed -n '/^# BEGIN GENERATED/,/^# END GENERATED/p' '$file')\"
                     _merkle_option_specs root; print -l -- \$reply
                     print -l -- \$_merkle_subcommands_trie")
    for o in $("$bin" root --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
        grep -qE -- "^(\([^)]*\))?${o}[=\[]" <<<"$specs" || fail "zsh: no spec for root $o"
    done
    grep -qF -- '--profile=[' <<<"$specs" || fail "zsh: --profile spec"
    grep -qF -- '(rfc6962 sia bitcoin ssz openzeppelin bittorrent-v2 fsverity dm-verity)' <<<"$specs" ||
        fail "zsh: --profile values"
    grep -q '^prove:' <<<"$specs" || fail "zsh: trie subcommands"
    [[ $fails -eq 0 ]] && echo "ok   zsh: generated specs"
    ;;
*)
    echo "usage: $0 bash|fish|zsh FILE MERKLE_BIN" >&2
    exit 2
    ;;
esac
[[ $fails -eq 0 ]] || { echo "$fails completion check(s) failed" >&2; exit 1; }
echo "all $shell completion checks passed"
