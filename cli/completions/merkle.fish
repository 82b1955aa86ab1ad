# SPDX-License-Identifier: MIT OR Apache-2.0
# fish completion for merkle(1).
#
# Commands are listed here; the options of each command are read from
# `merkle COMMAND --help` of the merkle being completed, so a newer merkle's options
# complete without editing this file.

set -l merkle_commands root proof consistency verify sum check audit dirroot cat trie clvm

# The command (and for trie/clvm the subcommand) on the command line so far.
function __merkle_command_words
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l out
    for t in $tokens
        string match -q -- '-*' $t; and continue
        set -a out $t
        if test (count $out) -eq 1; and not contains -- $t trie clvm
            break
        end
        test (count $out) -eq 2; and break
    end
    for t in $out
        echo $t
    end
end

function __merkle_needs_command
    test (count (__merkle_command_words)) -eq 0
end

function __merkle_needs_subcommand -a cmd
    set -l w (__merkle_command_words)
    test (count $w) -eq 1; and test "$w[1]" = $cmd
end

function __merkle_prev_is
    set -l tokens (commandline -opc)
    contains -- $tokens[-1] $argv
end

# Long options of the current command from its --help, with their description.
function __merkle_options
    set -l w (__merkle_command_words)
    test (count $w) -ge 1; or return
    set -l bin (commandline -opc)[1]
    set -l help ($bin $w --help 2>/dev/null)
    # Option lines give a description; options only named in usage lines or text come bare.
    set -l described (string replace -rf -- '^\s*(?:-\w, )?(--[\w][\w-]*)(?:[ =][A-Z][A-Z_.:]*)?\s+(.*)$' '$1\t$2' $help)
    printf '%s\n' $described
    set -l names (string replace -r -- '\t.*' '' $described)
    for o in (string match -ar -- '--[[:alnum:]][[:alnum:]-]*' $help | sort -u)
        contains -- $o $names; or echo $o
    end
end

complete -c merkle -n __merkle_needs_command -f -s h -l help -d 'show the list of commands'
complete -c merkle -n __merkle_needs_command -f -s V -l version -d 'show the version'
complete -c merkle -n __merkle_needs_command -f -a root -d 'Merkle root of files or leaf lists'
complete -c merkle -n __merkle_needs_command -f -a proof -d 'inclusion or range proof'
complete -c merkle -n __merkle_needs_command -f -a consistency -d 'consistency proof between two tree sizes'
complete -c merkle -n __merkle_needs_command -f -a verify -d 'verify a proof'
complete -c merkle -n __merkle_needs_command -f -a sum -d 'print checksums'
complete -c merkle -n __merkle_needs_command -f -a check -d 'check files against checksum lists'
complete -c merkle -n __merkle_needs_command -f -a audit -d 'report changed, missing, moved and new files'
complete -c merkle -n __merkle_needs_command -f -a dirroot -d 'one Merkle root over a checksum manifest'
complete -c merkle -n __merkle_needs_command -f -a cat -d 'write files only after they verified against a manifest'
complete -c merkle -n __merkle_needs_command -f -a trie -d 'Merkle radix trie (merkledb node IDs)'
complete -c merkle -n __merkle_needs_command -f -a clvm -d 'CLVM tree hash and serialization'

complete -c merkle -n '__merkle_needs_subcommand trie' -f -a 'root prove verify'
complete -c merkle -n '__merkle_needs_subcommand clvm' -f -a 'hash serialize'

complete -c merkle -n 'not __merkle_needs_command; and string match -q -- "-*" (commandline -ct)' -f -a '(__merkle_options)'
complete -c merkle -n '__merkle_prev_is --profile' -x -a 'rfc6962 sia bitcoin ssz openzeppelin bittorrent-v2'
complete -c merkle -n '__merkle_prev_is --hash' -x -a 'sha256 blake2b-256 keccak256'
complete -c merkle -n '__merkle_prev_is -a --algorithm' -x -a 'md5 sha1 sha256 sha512 blake2b'
complete -c merkle -n '__merkle_prev_is -b --branch-factor' -x -a '2 4 16 256'
complete -c merkle -n '__merkle_prev_is -k --key -r --root -j --threads --leaf-size --index --range --old-size --old-root --leaf-hex --leaf-hash -l --length --limit --gindex --values --piece-layer' -x
