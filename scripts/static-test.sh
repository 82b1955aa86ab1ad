#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# A fully static merkle binary on musl (Debian musl-tools), and the whole CLI test suite
# (tests/cli/test_*.py) against it (docs/platforms.md). The library needs nothing but libc
# (in-tree digests, SipHash and random bytes), so a static link is one linker flag.
# Usage: scripts/static-test.sh   (needs musl-gcc: scripts/deps.sh test installs it)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v musl-gcc >/dev/null || { echo "static-test: musl-gcc missing (apt-get install musl-tools)" >&2; exit 2; }
b=build/musl-static
mkdir -p "$b/kernel-headers"
# musl-gcc searches only musl's headers; the kernel's (io_uring, statx) are libc-independent.
arch_inc=/usr/include/$(gcc -dumpmachine)
for d in /usr/include/linux /usr/include/asm-generic "$arch_inc/asm"; do
  [ -d "$d" ] && ln -sfn "$d" "$b/kernel-headers/$(basename "$d")"
done
CC=musl-gcc cmake -S . -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMERKLE_WERROR=ON \
  -DMERKLE_BUILD_SHARED=OFF -DMERKLE_CLI_STATIC=ON -DMERKLE_BUILD_TESTS=OFF \
  -DMERKLE_BUILD_BENCH=OFF -DCMAKE_EXE_LINKER_FLAGS=-static \
  -DCMAKE_C_FLAGS="-isystem $PWD/$b/kernel-headers" >/dev/null
ninja -C "$b" -j2 merkle_cli >/dev/null
bin=$PWD/$b/merkle
if ldd "$bin" >/dev/null 2>&1 && ! ldd "$bin" 2>&1 | grep -q "not a dynamic"; then
  echo "static-test: $bin is not static" >&2; exit 1
fi
logs=$b/cli-logs
rm -rf "$logs"; mkdir -p "$logs"
export MERKLE_BIN=$bin MERKLE_SOURCE_DIR=$PWD MERKLE_BUILD_DIR=$PWD/$b
# Two suites at a time (ctest's -j2 in the other steps); 77 = skipped (absent data).
# test_install is not a test of the binary: it installs the build tree and compiles C and C++
# consumers against it with the system (glibc) compiler, which a musl libmerkle.a cannot serve.
ls tests/cli/test_*.py | grep -v '/test_install\.py$' | xargs -P2 -I{} sh -c \
  'n=$(basename {} .py); timeout 900 python3 {} >"'"$logs"'/$n.log" 2>&1; echo "$? $n"' \
  > "$logs/summary"
failed=$(awk '$1 != 0 && $1 != 77 {print $2}' "$logs/summary" | sort)
echo "static-test: $(wc -l < "$logs/summary") CLI suites against the musl static binary"
if [ -n "$failed" ]; then
  for n in $failed; do echo "--- $n"; tail -30 "$logs/$n.log"; done
  echo "static-test: FAILED: $failed" >&2
  exit 1
fi
echo "static-test: all passed"
