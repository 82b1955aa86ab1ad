#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Quick start 2 (and CI): install what is missing, build, run the whole test suite.
#   1. Release build (gcc), all ctest tests (unit, vectors, CLI, install, fuzz-corpus replay)
#   2. ASan+UBSan build (clang), all ctest tests again
#   3. Fuzz smoke: each libFuzzer target for a few seconds (clang)
#   4. Benchmark smoke: each bench binary in its tiny mode
#   then: an MPI build (-DMERKLE_MPI=ON), tests/mpi under mpirun -np 2 and -np 3
#   5. Debian packages: build, install, test the installed files, remove (scripts/package-test.sh;
#      MERKLE_TEST_NO_PACKAGES=1 skips it)
# Set MERKLE_TEST_QUICK=1 to run step 1 only.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test
jobs=$(nproc)

echo "== [1/4] release build + tests"
cmake -S . -B build/test -G Ninja -DCMAKE_BUILD_TYPE=Release -DMERKLE_WERROR=ON >/dev/null
cmake --build build/test -j "$jobs"
(cd build/test && ctest --output-on-failure -j "$jobs")
[ "${MERKLE_TEST_QUICK:-0}" = 1 ] && exit 0

echo "== [2/4] ASan+UBSan build + tests"
CC=clang-14 cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMERKLE_WERROR=ON \
  -DMERKLE_BUILD_BENCH=OFF \
  -DCMAKE_C_FLAGS="-O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build build/asan -j "$jobs"
(cd build/asan && ASAN_OPTIONS=detect_leaks=1 MERKLE_SANITIZE=1 ctest --output-on-failure -j "$jobs" -E 'install|bench')

echo "== [3/4] fuzz smoke"
CC=clang-14 cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMERKLE_FUZZ=ON \
  -DMERKLE_BUILD_TESTS=OFF -DMERKLE_BUILD_BENCH=OFF -DMERKLE_BUILD_CLI=OFF \
  -DCMAKE_C_FLAGS="-O1 -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer" >/dev/null
cmake --build build/fuzz -j "$jobs"
for f in build/fuzz/fuzz/fuzz_*; do
  [ -x "$f" ] || continue
  name=$(basename "$f"); short=${name#fuzz_}
  corpus=fuzz/corpus/$short; work=$(mktemp -d)
  [ -d "$corpus" ] && cp -r "$corpus"/. "$work"/ 2>/dev/null || true
  echo "-- $name (${MERKLE_FUZZ_SECONDS:-15} s)"
  "$f" -max_total_time="${MERKLE_FUZZ_SECONDS:-15}" -print_final_stats=0 "$work" 2>&1 | tail -n 2
  rm -rf "$work"
done

echo "== [4/4] benchmark smoke"
for b in build/test/bench/bench_*; do
  [ -x "$b" ] || continue
  echo "-- $(basename "$b") --smoke"
  "$b" --smoke
done
echo "-- bench_manifest.sh --smoke"
bench/bench_manifest.sh --smoke build/test/merkle
echo "-- clvm_native_bench.py --smoke"
bench/clvm_native_bench.py --smoke --merkle build/test/merkle
echo "== [mpi] MPI build: merkle root --mpi / check --mpi under mpirun -np 2 and -np 3"
cmake -S . -B build/mpi -G Ninja -DCMAKE_BUILD_TYPE=Release -DMERKLE_WERROR=ON -DMERKLE_MPI=ON \
  -DMERKLE_BUILD_BENCH=OFF >/dev/null
cmake --build build/mpi -j "$jobs" --target merkle_cli
(cd build/mpi && ctest --output-on-failure --no-tests=error -R '^mpi_')

if [ "${MERKLE_TEST_NO_PACKAGES:-0}" != 1 ]; then
  echo "== [5] Debian packages: build, install, check, remove"
  scripts/package-test.sh
fi
echo "== all test steps passed"
