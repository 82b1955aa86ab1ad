#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Quick start 2 (and CI): install what is missing, build, run the whole test suite.
# Every step is described in README.md ("What scripts/test.sh runs"). Each build tree is
# built once and serves every step that needs it; no step runs another's tests again.
#   1. release build (gcc, -Werror) + every ctest test
#   2. static checks (scripts/lint.sh): clang-tidy over src/ and cli/, clang-format over every
#      tracked .c and .h file
#   3. ABI: RelWithDebInfo build of the shared library; its exported symbols against
#      debian/libmerkle1.symbols and abidiff against the baseline abi/libmerkle.so.1.abi
#   4. ASan+UBSan build (clang) of the library, unit tests, CLI and fuzz targets; the ctest
#      tests that run C code (unit, kernels, CLI, fuzz-corpus replay, man examples)
#   5. ThreadSanitizer build (clang, the tsan preset of CMakePresets.json) + the threaded
#      tests: the check engine, the validation cache, streamed results, parallel trees and tries
#   6. portable build (-DMERKLE_SIMD=none: every SIMD kernel compiled out, as on a non-x86
#      machine) + the unit and CLI tests
#   7. fuzz smoke: each libFuzzer target of the build of step 4 for a few seconds, in parallel
#   8. benchmark smoke: each bench binary of step 1 in its tiny mode
#   9. MPI build (-DMERKLE_MPI=ON, only the merkle binary) + tests/mpi under mpirun -np 2, 3
#  10. bindings against the library of step 1 (scripts/bindings-test.sh): the Rust crate
#      (cargo test --offline), the Node package (npm ci + npm test), the Go module (go test)
#  11. Debian packages: build, unpack into a throw-away root, check (scripts/package-test.sh);
#      nothing is installed into or removed from the system
#  12. cross builds (scripts/cross-test.sh): aarch64, s390x (big-endian), i686 (32-bit) with Debian's
#      cross compilers; a few unit tests and the CLI root suite under qemu-user
#  13. musl static build (scripts/static-test.sh): a fully static merkle with no libsodium and
#      no libcrypto, and the whole CLI suite against it
#  14. Windows (scripts/mingw-test.sh): MinGW-w64 build of the library, unit tests and
#      merkle.exe; the unit tests and a CLI smoke under wine64
# MERKLE_TEST_QUICK=1: step 1 only. MERKLE_TEST_NO_PACKAGES=1: skip step 11.
# MERKLE_TEST_NO_CROSS=1: skip steps 12, 13 and 14.
# MERKLE_FUZZ_SECONDS (default 10): seconds per fuzz target.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test
jobs=$(nproc)
[ "$jobs" -gt 2 ] || jobs=2
t0=$SECONDS
t_step=
step() {  # step "TITLE": print the time the previous step took, open the next
    [ -z "$t_step" ] || echo "   (step took $((SECONDS - t_step)) s)"
    t_step=$SECONDS
    echo "== $1"
}

step "[1/14] release build + tests"
cmake -S . -B build/test -G Ninja -DCMAKE_BUILD_TYPE=Release -DMERKLE_WERROR=ON >/dev/null
cmake --build build/test -j "$jobs"
(cd build/test && ctest --output-on-failure -j "$jobs")
if [ "${MERKLE_TEST_QUICK:-0}" = 1 ]; then step "quick run passed ($((SECONDS - t0)) s)"; exit 0; fi

step "[2/14] static checks: clang-tidy (src/, cli/), clang-format (every .c and .h)"
# Its own clang build tree (build/lint, configured only); files that passed unchanged are
# not analysed again.
scripts/lint.sh

step "[3/14] ABI: shared library (RelWithDebInfo), symbols file and abidiff against the baseline"
# Debug information is what abidiff compares types by; the library alone is built. Fails on
# a removed or changed function or public type, lists additions (docs/abi.md).
cmake -S . -B build/abi -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMERKLE_WERROR=ON \
  -DMERKLE_BUILD_STATIC=OFF -DMERKLE_BUILD_CLI=OFF -DMERKLE_BUILD_TESTS=OFF -DMERKLE_BUILD_BENCH=OFF >/dev/null
cmake --build build/abi -j "$jobs" --target merkle_shared
scripts/abi.sh symbols build/abi
scripts/abi.sh check build/abi

step "[4/14] ASan+UBSan build (clang) + the tests that run C code"
# One instrumented build serves the tests and the fuzz targets of step 7 (fuzzer-no-link
# only adds coverage counters). Static library only: the shared one serves the install and
# Python tests, which a sanitizer build skips (an ASan .so cannot load into python3).
san="-fsanitize=address,undefined"
CC=clang-14 cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMERKLE_WERROR=ON \
  -DMERKLE_BUILD_BENCH=OFF -DMERKLE_BUILD_SHARED=OFF -DMERKLE_FUZZ=ON \
  -DCMAKE_C_FLAGS="-O1 $san,fuzzer-no-link -fno-sanitize-recover=all -fno-omit-frame-pointer" \
  -DCMAKE_EXE_LINKER_FLAGS="$san" >/dev/null
cmake --build build/asan -j "$jobs"
# Not here: shell completions, man-page rendering, SPDX lines, the header compile test (no C
# code of ours runs in them), and the install test (its consumers are built without the
# sanitizer runtime).
(cd build/asan && ASAN_OPTIONS=detect_leaks=1 MERKLE_SANITIZE=1 ctest --output-on-failure \
  -j "$jobs" -E '^(meta_|completion_|man_merkle|headers_|python_typecheck|cli_test_install$)')

step "[5/14] ThreadSanitizer build (clang) + the threaded tests"
# The tsan presets (CMakePresets.json) hold the flags and the list of tests, so that a
# developer's `cmake --preset tsan && ctest --preset tsan` runs exactly this. The preset sets
# MERKLE_IO=sync and leaves out the _uring suites: ThreadSanitizer does not see the files
# io_uring opens, and reports the reuse of their descriptor numbers as a race on close.
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j "$jobs"
ctest --preset tsan -j "$jobs"

step "[6/14] portable build (MERKLE_SIMD=none) + unit and CLI tests"
cmake -S . -B build/portable -G Ninja -DCMAKE_BUILD_TYPE=Release -DMERKLE_WERROR=ON \
  -DMERKLE_SIMD=none -DMERKLE_BUILD_BENCH=OFF -DMERKLE_BUILD_SHARED=OFF >/dev/null
cmake --build build/portable -j "$jobs"
# The tests of a forced SIMD backend skip (exit 77): this build has none.
(cd build/portable && ctest --output-on-failure -j "$jobs" \
  -E '^(meta_|completion_|man_merkle|headers_|python_typecheck|cli_test_install$)')

step "[7/14] fuzz smoke (${MERKLE_FUZZ_SECONDS:-10} s per target, $jobs at a time)"
fuzz_one() {  # fuzz_one BINARY: run it on a scratch copy of its corpus
    local f=$1 short work
    short=$(basename "$f"); short=${short#fuzz_}
    work=$(mktemp -d)
    [ -d "fuzz/corpus/$short" ] && cp -r "fuzz/corpus/$short"/. "$work"/
    if out=$("$f" -max_total_time="${MERKLE_FUZZ_SECONDS:-10}" -print_final_stats=0 "$work" 2>&1); then
        echo "-- $(basename "$f"): $(tail -n 1 <<<"$out")"
    else
        echo "$out" | tail -n 40; echo "-- $(basename "$f"): FAILED"; rm -rf "$work"; return 1
    fi
    rm -rf "$work"
}
export -f fuzz_one
export MERKLE_FUZZ_SECONDS
# shellcheck disable=SC2016  # "$1" is expanded by the inner bash
find build/asan/fuzz -maxdepth 1 -name 'fuzz_*' -type f -perm -u+x ! -name '*_replay' -print0 |
  sort -z | xargs -0 -n 1 -P "$jobs" bash -c 'fuzz_one "$1"' fuzz_one

step "[8/14] benchmark smoke"
for b in build/test/bench/bench_*; do
  [ -x "$b" ] || continue
  echo "-- $(basename "$b") --smoke"
  "$b" --smoke
done
echo "-- bench_manifest.sh --smoke"
bench/bench_manifest.sh --smoke build/test/merkle
echo "-- clvm_native_bench.py --smoke"
bench/clvm_native_bench.py --smoke --merkle build/test/merkle

step "[9/14] MPI build: merkle root --mpi / check --mpi under mpirun -np 2 and -np 3"
cmake -S . -B build/mpi -G Ninja -DCMAKE_BUILD_TYPE=Release -DMERKLE_WERROR=ON -DMERKLE_MPI=ON \
  -DMERKLE_BUILD_BENCH=OFF -DMERKLE_BUILD_SHARED=OFF >/dev/null
cmake --build build/mpi -j "$jobs" --target merkle_cli
(cd build/mpi && ctest --output-on-failure --no-tests=error -R '^mpi_')

step "[10/14] bindings: Rust crate, Node package, Go module against build/test"
scripts/bindings-test.sh build/test

if [ "${MERKLE_TEST_NO_PACKAGES:-0}" != 1 ]; then
  step "[11/14] Debian packages: build, unpack into a throw-away root, check"
  scripts/package-test.sh
else
  step "[11/14] Debian packages: skipped (MERKLE_TEST_NO_PACKAGES=1)"
fi
if [ "${MERKLE_TEST_NO_CROSS:-0}" != 1 ]; then
  step "[12/14] cross builds under qemu-user: aarch64, s390x, i686"
  scripts/cross-test.sh
else
  step "[12/14] cross builds: skipped (MERKLE_TEST_NO_CROSS=1)"
fi
if [ "${MERKLE_TEST_NO_CROSS:-0}" != 1 ]; then
  step "[13/14] musl static build + the CLI suite against it"
  scripts/static-test.sh
else
  step "[13/14] musl static build: skipped (MERKLE_TEST_NO_CROSS=1)"
fi
if [ "${MERKLE_TEST_NO_CROSS:-0}" != 1 ]; then
  step "[14/14] Windows: MinGW-w64 cross build + unit tests and a CLI smoke under wine64"
  scripts/mingw-test.sh
else
  step "[14/14] Windows: skipped (MERKLE_TEST_NO_CROSS=1)"
fi
step "all test steps passed ($((SECONDS - t0)) s)"
