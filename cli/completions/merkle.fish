# SPDX-License-Identifier: MIT OR Apache-2.0
# fish completion for merkle(1).
#
# The commands and the options of each are generated from the option tables in cli/ (the
# block below; tools/gen_cli_docs.py rewrites it, a ctest checks it is current).

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

# The command line is at the options of this command ("root", "trie root").
function __merkle_using
    set -l w (__merkle_command_words)
    test "$w" = "$argv"
end

complete -c merkle -n __merkle_needs_command -f -s h -l help -d 'show the list of commands'
complete -c merkle -n __merkle_needs_command -f -s V -l version -d 'show the version'

# BEGIN GENERATED OPTIONS (tools/gen_cli_docs.py from the option tables in cli/)
set -g __merkle_commands root proof consistency verify sum check audit dirroot cat trie clvm compact
complete -c merkle -n __merkle_needs_command -f -a root -d 'Merkle root of files or leaf lists'
complete -c merkle -n __merkle_needs_command -f -a proof -d 'inclusion or range proof for leaves of a tree'
complete -c merkle -n __merkle_needs_command -f -a consistency -d 'consistency proof between two tree sizes'
complete -c merkle -n __merkle_needs_command -f -a verify -d 'verify a proof'
complete -c merkle -n __merkle_needs_command -f -a sum -d 'print checksums (md5sum/sha256sum/b2sum compatible)'
complete -c merkle -n __merkle_needs_command -f -a check -d 'check files against checksum lists'
complete -c merkle -n __merkle_needs_command -f -a audit -d 'report changed, missing, moved and new files of a directory'
complete -c merkle -n __merkle_needs_command -f -a dirroot -d 'one Merkle root over a checksum manifest'
complete -c merkle -n __merkle_needs_command -f -a cat -d 'write files to stdout only after they verified against a manifest'
complete -c merkle -n __merkle_needs_command -f -a trie -d 'Merkle radix trie (merkledb node IDs): root, prove, verify'
complete -c merkle -n __merkle_needs_command -f -a clvm -d 'CLVM tree hash and serialization'
complete -c merkle -n __merkle_needs_command -f -a compact -d 'saved compact ranges of a log: append, merge, root, show'
complete -c merkle -n '__merkle_needs_subcommand trie' -f -a root -d 'print the root ID of the trie the operations build'
complete -c merkle -n '__merkle_needs_subcommand trie' -f -a prove -d 'write a proof that a key is present, or absent'
complete -c merkle -n '__merkle_needs_subcommand trie' -f -a verify -d 'check a proof against a trusted root ID'
complete -c merkle -n '__merkle_needs_subcommand clvm' -f -a hash -d 'print the tree hash (sha256tree)'
complete -c merkle -n '__merkle_needs_subcommand clvm' -f -a serialize -d 'print the canonical or back-reference serialization'
complete -c merkle -n '__merkle_needs_subcommand compact' -f -a append -d 'append leaves or leaf hashes to a saved compact range'
complete -c merkle -n '__merkle_needs_subcommand compact' -f -a merge -d 'append the saved ranges that continue a saved compact range'
complete -c merkle -n '__merkle_needs_subcommand compact' -f -a root -d 'print the tree root of a saved compact range that begins at 0'
complete -c merkle -n '__merkle_needs_subcommand compact' -f -a show -d 'print what a saved compact range holds (JSON)'
complete -c merkle -n '__merkle_using root' -l profile -x -a 'rfc6962 sia bitcoin ssz openzeppelin bittorrent-v2 fsverity dm-verity' -d 'rfc6962 (default) or sia (Sia crypto.MerkleRoot:...'
complete -c merkle -n '__merkle_using root' -l hash -x -a 'sha256 blake2b-256 keccak256' -d 'sha256 (the rfc6962 default), blake2b-256 (the sia...'
complete -c merkle -n '__merkle_using root' -l leaf-size -x -d 'cut the byte stream into N-byte leaves, the last may be...'
complete -c merkle -n '__merkle_using root' -l leaves -d 'each input line is one leaf in hex (an empty line is an...'
complete -c merkle -n '__merkle_using root' -l leaf-hashes -d 'each input line is a 32-byte leaf hash in hex, already...'
complete -c merkle -n '__merkle_using root' -l 0x -d 'print hashes with a 0x prefix (roots, and every hash of...'
complete -c merkle -n '__merkle_using root' -s j -l threads -x -d 'hash with N threads (0 = all cores, the default)'
complete -c merkle -n '__merkle_using root' -s q -l quiet -d 'no progress line (one is shown on a terminal for large...'
complete -c merkle -n '__merkle_using root' -s h -l help -d 'show this help and exit'
complete -c merkle -n '__merkle_using root' -l internal-order -d 'bitcoin: txids and root in internal byte order (default:...'
complete -c merkle -n '__merkle_using root' -l strict -d 'bitcoin: exit 1 when the list is mutated (CVE-2012-2459)'
complete -c merkle -n '__merkle_using root' -l block -d 'bitcoin: each FILE is a raw block (binary, or hex text):...'
complete -c merkle -n '__merkle_using root' -l limit -x -d 'ssz: pad to the next power of two of N chunks (a list limit'
complete -c merkle -n '__merkle_using root' -l mix-in-length -d 'ssz: mix the number of chunks into the root (SSZ lists)'
complete -c merkle -n '__merkle_using root' -l values -x -d 'openzeppelin: each line is a row of comma-separated...'
complete -c merkle -n '__merkle_using root' -l load -d 'openzeppelin: each FILE is a dump() JSON...'
complete -c merkle -n '__merkle_using root' -l dump -r -F -d 'openzeppelin: also write the tree'\''s dump() JSON to FILE...'
complete -c merkle -n '__merkle_using root' -l piece-layer -x -d 'bittorrent-v2: print the piece layer for pieces of SIZE...'
complete -c merkle -n '__merkle_using root' -l block-size -x -d 'fsverity, dm-verity: the block size (a power of two'
complete -c merkle -n '__merkle_using root' -l salt -x -d 'fsverity, dm-verity: the salt prepended to every hashed...'
complete -c merkle -n '__merkle_using root' -l hash-tree -r -F -d 'dm-verity: also write the hash device (superblock and...'
complete -c merkle -n '__merkle_using root' -l mpi -d 'run under mpirun: the ranks share the work (only in a...'
complete -c merkle -n '__merkle_using proof' -l index -x -d 'prove leaf I (0-based)'
complete -c merkle -n '__merkle_using proof' -l range -x -d 'prove the leaves [START, END) (a Sia range proof: the...'
complete -c merkle -n '__merkle_using proof' -l all -d 'rfc6962, sia: prove every leaf, one JSON proof per line...'
complete -c merkle -n '__merkle_using proof' -l gindex -x -d 'ssz, bittorrent-v2: prove the node at generalized index...'
complete -c merkle -n '__merkle_using proof' -l binary -d 'write the binary proof encoding ("MRKP", version 1)...'
complete -c merkle -n '__merkle_using proof' -l format -x -a 'json binary cometbft' -d 'json (the default), binary (as --binary), or cometbft:...'
complete -c merkle -n '__merkle_using proof' -l profile -x -a 'rfc6962 sia bitcoin ssz openzeppelin bittorrent-v2 fsverity dm-verity' -d 'rfc6962 (default) or sia (Sia crypto.MerkleRoot:...'
complete -c merkle -n '__merkle_using proof' -l hash -x -a 'sha256 blake2b-256 keccak256' -d 'sha256 (the rfc6962 default), blake2b-256 (the sia...'
complete -c merkle -n '__merkle_using proof' -l leaf-size -x -d 'cut the byte stream into N-byte leaves, the last may be...'
complete -c merkle -n '__merkle_using proof' -l leaves -d 'each input line is one leaf in hex (an empty line is an...'
complete -c merkle -n '__merkle_using proof' -l leaf-hashes -d 'each input line is a 32-byte leaf hash in hex, already...'
complete -c merkle -n '__merkle_using proof' -l 0x -d 'print hashes with a 0x prefix (roots, and every hash of...'
complete -c merkle -n '__merkle_using proof' -s j -l threads -x -d 'hash with N threads (0 = all cores, the default)'
complete -c merkle -n '__merkle_using proof' -s q -l quiet -d 'no progress line (one is shown on a terminal for large...'
complete -c merkle -n '__merkle_using proof' -s h -l help -d 'show this help and exit'
complete -c merkle -n '__merkle_using proof' -l internal-order -d 'bitcoin: txids and root in internal byte order (default:...'
complete -c merkle -n '__merkle_using proof' -l strict -d 'bitcoin: exit 1 when the list is mutated (CVE-2012-2459)'
complete -c merkle -n '__merkle_using proof' -l block -d 'bitcoin: each FILE is a raw block (binary, or hex text):...'
complete -c merkle -n '__merkle_using proof' -l limit -x -d 'ssz: pad to the next power of two of N chunks (a list limit'
complete -c merkle -n '__merkle_using proof' -l mix-in-length -d 'ssz: mix the number of chunks into the root (SSZ lists)'
complete -c merkle -n '__merkle_using proof' -l values -x -d 'openzeppelin: each line is a row of comma-separated...'
complete -c merkle -n '__merkle_using proof' -l load -d 'openzeppelin: each FILE is a dump() JSON...'
complete -c merkle -n '__merkle_using consistency' -l old-size -x -d 'the size of the older tree (0 < M <= the number of leaves)'
complete -c merkle -n '__merkle_using consistency' -l binary -d 'write the binary proof encoding ("MRKP", version 1)...'
complete -c merkle -n '__merkle_using consistency' -l format -x -a 'json binary cometbft' -d 'json (the default), binary (as --binary), or cometbft:...'
complete -c merkle -n '__merkle_using consistency' -l profile -x -a 'rfc6962 sia bitcoin ssz openzeppelin bittorrent-v2 fsverity dm-verity' -d 'rfc6962 (default) or sia (Sia crypto.MerkleRoot:...'
complete -c merkle -n '__merkle_using consistency' -l hash -x -a 'sha256 blake2b-256 keccak256' -d 'sha256 (the rfc6962 default), blake2b-256 (the sia...'
complete -c merkle -n '__merkle_using consistency' -l leaf-size -x -d 'cut the byte stream into N-byte leaves, the last may be...'
complete -c merkle -n '__merkle_using consistency' -l leaves -d 'each input line is one leaf in hex (an empty line is an...'
complete -c merkle -n '__merkle_using consistency' -l leaf-hashes -d 'each input line is a 32-byte leaf hash in hex, already...'
complete -c merkle -n '__merkle_using consistency' -l 0x -d 'print hashes with a 0x prefix (roots, and every hash of...'
complete -c merkle -n '__merkle_using consistency' -s j -l threads -x -d 'hash with N threads (0 = all cores, the default)'
complete -c merkle -n '__merkle_using consistency' -s q -l quiet -d 'no progress line (one is shown on a terminal for large...'
complete -c merkle -n '__merkle_using consistency' -s h -l help -d 'show this help and exit'
complete -c merkle -n '__merkle_using consistency' -l internal-order -d 'bitcoin: txids and root in internal byte order (default:...'
complete -c merkle -n '__merkle_using consistency' -l strict -d 'bitcoin: exit 1 when the list is mutated (CVE-2012-2459)'
complete -c merkle -n '__merkle_using consistency' -l block -d 'bitcoin: each FILE is a raw block (binary, or hex text):...'
complete -c merkle -n '__merkle_using consistency' -l limit -x -d 'ssz: pad to the next power of two of N chunks (a list limit'
complete -c merkle -n '__merkle_using consistency' -l mix-in-length -d 'ssz: mix the number of chunks into the root (SSZ lists)'
complete -c merkle -n '__merkle_using consistency' -l values -x -d 'openzeppelin: each line is a row of comma-separated...'
complete -c merkle -n '__merkle_using consistency' -l load -d 'openzeppelin: each FILE is a dump() JSON...'
complete -c merkle -n '__merkle_using verify' -l root -x -d 'the trusted root (the new root of a consistency proof)'
complete -c merkle -n '__merkle_using verify' -l old-root -x -d 'the trusted old root of a consistency proof'
complete -c merkle -n '__merkle_using verify' -l untrusted-root -d 'check against the roots stored in the proof: this only...'
complete -c merkle -n '__merkle_using verify' -l index -x -d 'pin the claim: the proof must be for leaf I (inclusion)...'
complete -c merkle -n '__merkle_using verify' -l tree-size -x -d 'pin the claim: the proof must be for a tree of N leaves...'
complete -c merkle -n '__merkle_using verify' -l old-size -x -d 'pin the old size of a consistency proof'
complete -c merkle -n '__merkle_using verify' -l leaf -r -F -d 'the leaf'\''s raw bytes (for a range proof: the bytes of...'
complete -c merkle -n '__merkle_using verify' -l leaf-hex -x -d 'the leaf'\''s raw bytes in hex'
complete -c merkle -n '__merkle_using verify' -l leaf-hash -x -d 'the leaf hash H(0x00 || leaf)'
complete -c merkle -n '__merkle_using verify' -s h -l help -d 'show this help and exit'
complete -c merkle -n '__merkle_using sum' -s a -l algorithm -x -a 'md5 sha1 sha256 sha512 blake2b' -d 'md5 (the default), sha1, sha256, sha512 or blake2b'
complete -c merkle -n '__merkle_using sum' -s l -l length -x -d 'digest length for blake2b: a multiple of 8, at most 512...'
complete -c merkle -n '__merkle_using sum' -l tag -d 'BSD-style lines: ALGO (NAME) = HEX'
complete -c merkle -n '__merkle_using sum' -s z -l zero -d 'end each line with NUL instead of newline, do not escape...'
complete -c merkle -n '__merkle_using sum' -s b -l binary -d 'mark files as binary ('\''*'\'' before the name)'
complete -c merkle -n '__merkle_using sum' -s t -l text -d 'mark files as text (the default)'
complete -c merkle -n '__merkle_using sum' -s j -l threads -x -d 'hashing threads (0 = all cores, the default)'
complete -c merkle -n '__merkle_using sum' -s c -l check -d 'read checksum lists from the FILEs and check them, as...'
complete -c merkle -n '__merkle_using sum' -l version -d 'print the version and exit'
complete -c merkle -n '__merkle_using sum' -s h -l help -d 'show this help and exit'
complete -c merkle -n '__merkle_using sum' -l quiet -d 'do not print OK for each verified file'
complete -c merkle -n '__merkle_using sum' -l status -d 'print nothing on stdout'
complete -c merkle -n '__merkle_using sum' -l strict -d 'exit non-zero for improperly formatted lines'
complete -c merkle -n '__merkle_using sum' -s w -l warn -d 'warn about improperly formatted lines'
complete -c merkle -n '__merkle_using sum' -l ignore-missing -d 'do not fail or report for missing files'
complete -c merkle -n '__merkle_using check' -s a -l algorithm -x -a 'md5 sha1 sha256 sha512 blake2b' -d 'md5, sha1, sha256, sha512 or blake2b'
complete -c merkle -n '__merkle_using check' -s l -l length -x -d 'with -a blake2b: the digest length the lines must have...'
complete -c merkle -n '__merkle_using check' -l cache -r -F -d 'validation cache: skip files unchanged since they...'
complete -c merkle -n '__merkle_using check' -l cache-key -r -F -d 'authenticate cache entries with HMAC-SHA-256 under the...'
complete -c merkle -n '__merkle_using check' -l quiet -d 'do not print OK for each verified file'
complete -c merkle -n '__merkle_using check' -l status -d 'print nothing on stdout'
complete -c merkle -n '__merkle_using check' -l strict -d 'exit non-zero for improperly formatted lines'
complete -c merkle -n '__merkle_using check' -s w -l warn -d 'warn about improperly formatted lines'
complete -c merkle -n '__merkle_using check' -l ignore-missing -d 'do not fail or report for missing files'
complete -c merkle -n '__merkle_using check' -s j -l threads -x -d 'hashing threads (0 = all cores, the default)'
complete -c merkle -n '__merkle_using check' -l mpi -d 'run under mpirun: files spread over the ranks by size...'
complete -c merkle -n '__merkle_using check' -l version -d 'print the version and exit'
complete -c merkle -n '__merkle_using check' -s h -l help -d 'show this help and exit'
complete -c merkle -n '__merkle_using audit' -s a -l algorithm -x -a 'md5 sha1 sha256 sha512 blake2b' -d 'as for merkle check (default: detected per line)'
complete -c merkle -n '__merkle_using audit' -s j -l threads -x -d 'hashing threads (0 = all cores, the default)'
complete -c merkle -n '__merkle_using audit' -s h -l help -d 'show this help and exit'
complete -c merkle -n '__merkle_using dirroot' -s a -l algorithm -x -a 'md5 sha1 sha256 sha512 blake2b' -d 'as for merkle check (default: detected per line)'
complete -c merkle -n '__merkle_using dirroot' -l leaves -d 'print the leaves instead of the root: in hex, one per...'
complete -c merkle -n '__merkle_using dirroot' -s h -l help -d 'show this help and exit'
complete -c merkle -n '__merkle_using cat' -s m -l manifest -r -F -d 'the checksum list (md5sum/sha*sum/b2sum format, or BSD tags)'
complete -c merkle -n '__merkle_using cat' -s a -l algorithm -x -a 'md5 sha1 sha256 sha512 blake2b' -d 'md5, sha1, sha256, sha512 or blake2b (default: from the...'
complete -c merkle -n '__merkle_using cat' -s h -l help -d 'show this help and exit'
complete -c merkle -n '__merkle_using trie root' -s b -l branch-factor -x -a '2 4 16 256' -d '2, 4, 16 (the default, as merkledb) or 256'
complete -c merkle -n '__merkle_using trie root' -s j -l threads -x -d 'hash with N threads (0 = all cores, the default)'
complete -c merkle -n '__merkle_using trie root' -s h -l help -d 'show this help and exit'
complete -c merkle -n '__merkle_using trie prove' -s k -l key -x -d 'the key to prove ('\''-'\'' or '\'''\'' for the empty key)'
complete -c merkle -n '__merkle_using trie prove' -s b -l branch-factor -x -a '2 4 16 256' -d '2, 4, 16 (the default, as merkledb) or 256'
complete -c merkle -n '__merkle_using trie prove' -s j -l threads -x -d 'hash with N threads (0 = all cores, the default)'
complete -c merkle -n '__merkle_using trie prove' -s h -l help -d 'show this help and exit'
complete -c merkle -n '__merkle_using trie verify' -s r -l root -x -d 'the trusted root ID: 64 hex digits or cb58'
complete -c merkle -n '__merkle_using trie verify' -s h -l help -d 'show this help and exit'
complete -c merkle -n '__merkle_using clvm hash' -l 0x -d 'print the tree hash with a 0x prefix, as Chia tools write it'
complete -c merkle -n '__merkle_using clvm hash' -s h -l help -d 'show this help and exit'
complete -c merkle -n '__merkle_using clvm serialize' -l backrefs -d 'serialize with back references (the clvm_rs encoder...'
complete -c merkle -n '__merkle_using clvm serialize' -s h -l help -d 'show this help and exit'
complete -c merkle -n '__merkle_using compact append' -l hash -x -a 'sha256 blake2b-256 keccak256' -d 'hash of a new STATE: sha256 (the default, RFC 6962)...'
complete -c merkle -n '__merkle_using compact append' -l begin -x -d 'first leaf index of a new STATE (default 0)'
complete -c merkle -n '__merkle_using compact append' -l leaf-hashes -d 'each input line is a leaf hash (32 bytes in hex), not a leaf'
complete -c merkle -n '__merkle_using compact append' -s h -l help -d 'show this help and exit'
complete -c merkle -n '__merkle_using compact merge' -s h -l help -d 'show this help and exit'
complete -c merkle -n '__merkle_using compact root' -s h -l help -d 'show this help and exit'
complete -c merkle -n '__merkle_using compact show' -s h -l help -d 'show this help and exit'
# END GENERATED OPTIONS
