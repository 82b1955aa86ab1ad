#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The ABI of libmerkle.so.1 against what this major version promised (docs/abi.md).
#   scripts/abi.sh symbols BUILD_DIR  the exported symbols of BUILD_DIR/libmerkle.so.1 are
#                                     exactly those of debian/libmerkle1.symbols
#   scripts/abi.sh check BUILD_DIR    abidiff against the baseline abi/libmerkle.so.1.abi:
#                                     fails on a removed or changed function, variable or
#                                     public type; lists additions (allowed in a MINOR release)
#   scripts/abi.sh update BUILD_DIR   write the baseline from BUILD_DIR (at a release, once
#                                     `check` passed against the previous one)
# BUILD_DIR is a CMake build tree with the shared library (MERKLE_BUILD_SHARED=ON); `check`
# and `update` need it built with debug information (RelWithDebInfo or Debug) and abidiff /
# abidw (Debian: abigail-tools). Without them `check` exits 77 (skipped) with a message.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-}
build=${2:-}
if [ -z "$mode" ] || [ -z "$build" ]; then sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; fi
build=$(cd "$build" && pwd)
# The SONAME's number is the project's MAJOR version (CMakeLists.txt).
major=$(sed -n 's/^project(merkle VERSION \([0-9]*\)\..*/\1/p' "$src/CMakeLists.txt")
lib=$build/libmerkle.so.$major
baseline=$src/abi/libmerkle.so.$major.abi
symfile=$src/debian/libmerkle$major.symbols
suppr=$src/abi/suppressions.txt
[ -f "$lib" ] || { echo "abi: no $lib (configure with MERKLE_BUILD_SHARED=ON and build merkle_shared)" >&2; exit 2; }
# Only types declared in the public headers count: the installed headers of include/merkle
# and the generated export.h and version.h. The layout of an opaque type (merkle_trie,
# merkle_sexp_store, ...) is private to the library and may change in any release.
hdrs=(--headers-dir "$src/include/merkle" --headers-dir "$build/include/merkle")

has_debug_info() {  # (not readelf | grep -q: with pipefail, SIGPIPE in readelf would fail)
    local sections; sections=$(readelf -S "$1" 2>/dev/null) && [[ $sections == *.debug_info* ]]
}

case $mode in
symbols)
    # Every defined dynamic symbol (functions, and data if any ever appears) of the library
    # against the names of the symbols file; a change in either direction fails. The file's
    # versions are checked by the package build (dpkg-gensymbols -c4 in debian/rules).
    command -v nm >/dev/null || { echo "abi: nm (binutils) not found: skipped"; exit 77; }
    got=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort)
    want=$(sed -n 's/^ \([A-Za-z0-9_]*\)@Base .*/\1/p' "$symfile" | sort)
    if [ "$got" != "$want" ]; then
        echo "abi: the exported symbols of $lib and $symfile differ"
        echo "     (< only in the symbols file, > only exported by the library):"
        diff <(echo "$want") <(echo "$got") | grep '^[<>]' || true
        echo "A new public function goes into $symfile with the version it first appears in;"
        echo "an exported symbol that is not public API is a bug (MERKLE_API on an internal"
        echo "function, or a missing static)."
        exit 1
    fi
    echo "abi: the $(wc -l <<<"$got") exported symbols of ${lib##*/} match ${symfile#"$src"/}"
    ;;
check)
    if ! command -v abidiff >/dev/null; then
        echo "abi: abidiff not found (Debian: apt-get install abigail-tools): skipped"; exit 77
    fi
    if ! has_debug_info "$lib"; then
        echo "abi: $lib has no debug information (build RelWithDebInfo or Debug): skipped"
        exit 77
    fi
    # The baseline describes the x86-64 library (type sizes and the calling convention are
    # the architecture's); elsewhere the symbols check still runs.
    header=$(readelf -h "$lib")
    if [[ $header != *Machine:*X86-64* ]]; then
        echo "abi: the baseline is for x86-64, $lib is not: skipped"; exit 77
    fi
    # Exit status of abidiff: bit 0 error, bit 1 usage error, bit 2 an ABI change, bit 3 an
    # incompatible change (a removed function or variable). Additions alone set bit 2 too,
    # so the comparison runs twice: without additions (must find nothing), then with them,
    # only to list them.
    set +e
    out=$(abidiff --no-added-syms --suppressions "$suppr" "$baseline" "$lib" 2>&1)
    rc=$?
    set -e
    if [ "$rc" -ne 0 ]; then
        echo "$out"
        if [ $((rc & 3)) -ne 0 ]; then echo "abi: abidiff failed (exit status $rc)"; exit 1; fi
        echo "abi: ${lib##*/} is not ABI-compatible with ${baseline#"$src"/} (exit status $rc):"
        echo "     a function, variable or public type above was removed or changed. Within"
        echo "     major version $major only additions are allowed (README, \"Versioning\")."
        exit 1
    fi
    set +e
    added=$(abidiff --suppressions "$suppr" "$baseline" "$lib" 2>&1)
    rc=$?
    set -e
    if [ $((rc & ~4)) -ne 0 ]; then echo "$added"; echo "abi: abidiff failed (exit status $rc)"; exit 1; fi
    if [ "$rc" -eq 4 ]; then
        echo "$added"
        echo "abi: compatible with ${baseline#"$src"/}; the additions above belong in the next"
        echo "     MINOR release (and in $(basename "$symfile") with that version)"
    else
        echo "abi: ${lib##*/} is compatible with ${baseline#"$src"/} (nothing removed, changed or added)"
    fi
    ;;
update)
    command -v abidw >/dev/null || { echo "abi: abidw not found (Debian: abigail-tools)" >&2; exit 1; }
    has_debug_info "$lib" || { echo "abi: $lib has no debug information (RelWithDebInfo)" >&2; exit 1; }
    # No paths (the build machine's directories), no DT_NEEDED (libsodium's SONAME is the
    # distribution's business), type ids by hash (a small change gives a small diff).
    mkdir -p "$(dirname "$baseline")"
    abidw "${hdrs[@]}" --suppressions "$suppr" --exported-interfaces-only --drop-private-types \
        --no-corpus-path --no-comp-dir-path --short-locs --no-elf-needed --type-id-style hash \
        --out-file "$baseline" "$lib"
    echo "abi: wrote ${baseline#"$src"/} from $lib ($(grep -c '<function-decl' "$baseline") functions)"
    ;;
*)
    echo "abi: unknown mode '$mode' (symbols, check or update)" >&2; exit 2
    ;;
esac
