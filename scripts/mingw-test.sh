#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Windows x86-64 cross build with MinGW-w64 and its unit tests under wine (docs/platforms.md,
# "Windows"): the library (static and DLL) and every unit-test program that needs no oracle
# library (MERKLE_TEST_ORACLES=OFF: Debian builds neither libcrypto nor libsodium for
# Windows), built in build/mingw64 with cmake/toolchains/x86_64-w64-mingw32.cmake, then run
# by ctest through CMAKE_CROSSCOMPILING_EMULATOR (wine64). cmocka for Windows is built once
# from Debian's source package into build/mingw-deps (apt-get source: needs a deb-src line).
# Usage: scripts/mingw-test.sh   Skips (exit 0, says so) without the MinGW compiler or wine;
# scripts/deps.sh test installs both.
set -euo pipefail
cd "$(dirname "$0")/.."
cc=x86_64-w64-mingw32-gcc-posix
command -v "$cc" >/dev/null || cc=x86_64-w64-mingw32-gcc
if ! command -v "$cc" >/dev/null; then
  echo "mingw-test: SKIPPED: no x86_64-w64-mingw32-gcc (Debian: gcc-mingw-w64-x86-64)"; exit 0
fi
# Debian's wine64 package puts the loader in /usr/lib/wine (the `wine` package links it).
wine=$(command -v wine64 || command -v wine || { [ -x /usr/lib/wine/wine64 ] && echo /usr/lib/wine/wine64; } || true)
if [ -z "$wine" ]; then
  echo "mingw-test: SKIPPED: no wine64 (Debian: wine64)"; exit 0
fi
t0=$SECONDS
root=$PWD
deps=$root/build/mingw-deps
if [ ! -f "$deps/lib/libcmocka.a" ]; then
  # cmocka from Debian's source package, built static for Windows (nothing installed on the
  # system; the toolchain file finds it in build/mingw-deps).
  mkdir -p "$deps/src"
  (cd "$deps/src" && { ls cmocka_*.orig.tar.xz >/dev/null 2>&1 || apt-get source --download-only cmocka >/dev/null 2>&1; }) || {
    # A dependency we cannot get, like a missing compiler: skipped, said so, no test ran.
    echo "mingw-test: SKIPPED: cannot fetch cmocka's source package (apt-get source cmocka needs a deb-src line)"
    exit 0
  }
  rm -rf "$deps/src/cmocka" && mkdir -p "$deps/src/cmocka"
  tar -xf "$(ls "$deps"/src/cmocka_*.orig.tar.* | grep -v "\.asc$" | head -n1)" -C "$deps/src/cmocka" --strip-components=1
  cmake -S "$deps/src/cmocka" -B "$deps/src/cmocka-build" -G Ninja \
    -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/x86_64-w64-mingw32.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DWITH_STATIC_LIB=ON -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF \
    -DCMAKE_INSTALL_PREFIX="$deps" >/dev/null
  ninja -C "$deps/src/cmocka-build" -j2 install >/dev/null
  # The static library under the plain name, so that find_library(cmocka) takes it.
  mv "$deps/lib/libcmocka-static.a" "$deps/lib/libcmocka.a"
  rm -f "$deps/lib/libcmocka.dll.a" "$deps/bin/cmocka.dll"
fi
b=build/mingw64
cmake -S . -B "$b" -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/x86_64-w64-mingw32.cmake \
  -DCMAKE_BUILD_TYPE=Release -DMERKLE_WERROR=ON -DMERKLE_BUILD_BENCH=OFF -DMERKLE_BUILD_CLI=ON \
  -DMERKLE_BUILD_TESTS=ON -DMERKLE_TEST_ORACLES=OFF >/dev/null
ninja -C "$b" -j2 >/dev/null
# A wine prefix of our own (the first start makes it: some seconds), no debug chatter.
export WINEPREFIX=$root/$b/wineprefix WINEDEBUG=-all
(cd "$b" && ctest -j2 --output-on-failure -R '^test_')
# The CLI: a few known answers against coreutils (binary standard streams: CR LF kept).
w="$wine $b/merkle.exe"
tmp=$(mktemp -d "$root/$b/cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
printf 'a\r\nb\x1a\n' > "$tmp/f.bin"
fail=0
want=$(sha256sum < "$tmp/f.bin" | cut -c1-64)
got=$($w sum -a sha256 - < "$tmp/f.bin" | cut -c1-64)
[ "$got" = "$want" ] || { echo "mingw-test: merkle.exe sum of stdin: $got, want $want" >&2; fail=1; }
got=$(cd "$tmp" && $wine "$root/$b/merkle.exe" sum -a md5 f.bin | od -An -c | tr -d ' \n')
want=$(cd "$tmp" && md5sum f.bin | od -An -c | tr -d ' \n')
[ "$got" = "$want" ] || { echo "mingw-test: merkle.exe sum -a md5 output differs from md5sum's: $got" >&2; fail=1; }
(cd "$tmp" && sha256sum f.bin > f.sum && $wine "$root/$b/merkle.exe" check f.sum >/dev/null) ||
  { echo "mingw-test: merkle.exe check of sha256sum's list failed" >&2; fail=1; }
(cd "$tmp" && printf 'x' >> f.bin && ! $wine "$root/$b/merkle.exe" check f.sum >/dev/null 2>&1) ||
  { echo "mingw-test: merkle.exe check passed a changed file" >&2; fail=1; }
[ "$fail" = 0 ] && echo "   merkle.exe under wine: sum (stdin, md5 format), check (OK, FAILED): 4 passed, 0 failed"
[ "$fail" = 0 ] || exit 1
echo "   (mingw64 under wine: $((SECONDS - t0)) s)"
