#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The CLI test suites (tests/cli/test_*.py) against merkle.exe under wine64 (docs/platforms.md,
# "Windows"). Hand-run, after scripts/mingw-test.sh has built build/mingw64 and its wine prefix.
# Usage: scripts/wine-cli-test.sh [SUITE...]   SUITE: test_root or root; default: every suite
# that makes sense on Windows (the POSIX-only suites below are left out, each with its reason).
# The tests see MERKLE_TEST_PLATFORM=windows: cliutil.windows() is then true and the POSIX-only
# cases skip themselves with a stated reason. Prints per suite passed/failed/skipped; exit 1 if
# any suite failed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
b=$root/build/mingw64
wine=$(command -v wine64 || command -v wine || { [ -x /usr/lib/wine/wine64 ] && echo /usr/lib/wine/wine64; } || true)
[ -n "$wine" ] || { echo "wine-cli-test: no wine64 (Debian: wine64)" >&2; exit 2; }
[ -f "$b/merkle.exe" ] || { echo "wine-cli-test: no $b/merkle.exe: run scripts/mingw-test.sh first" >&2; exit 2; }
export WINEPREFIX=$b/wineprefix WINEDEBUG=-all
w=$b/merkle-wine
printf '#!/bin/sh\nexec %s %s "$@"\n' "$wine" "$b/merkle.exe" > "$w"
chmod +x "$w"
# Suites that test what Windows does not have (left out of the default set):
#   test_io_engine: io_uring and seccomp (Linux only; the Windows build has the system-call engine)
#   test_install:   installs into a prefix and builds consumers with the host's cc/pkg-config
#   test_mpi_stub:  reads the build tree's CMakeCache for an MPI build (no MPI on Windows)
#   test_help_complete: runs the bash completion script (bash + the host's merkle)
skip_default="test_io_engine test_install test_mpi_stub test_help_complete"
if [ $# -gt 0 ]; then
  suites=()
  for s in "$@"; do s=${s%.py}; s=${s#tests/cli/}; [[ $s == test_* ]] || s=test_$s; suites+=("$s"); done
else
  suites=()
  for f in tests/cli/test_*.py; do
    s=$(basename "$f" .py)
    [[ " $skip_default " == *" $s "* ]] || suites+=("$s")
  done
fi
# One wine server for the whole run (each merkle.exe start is then ~0.1 s, not ~1 s).
ws=$(command -v wineserver || echo "$(dirname "$wine")/wineserver")
[ -x "$ws" ] && ("$ws" -p </dev/null >/dev/null 2>&1 &)
# The first program of a session starts wine's services (services.exe, winedevice.exe, ...):
# started here with /dev/null, they do not hold a test's pipes open after merkle.exe exits.
"$wine" "$b/merkle.exe" --version </dev/null >/dev/null 2>&1
log=$b/wine-cli-logs; rm -rf "$log"; mkdir -p "$log"   # kept: one log per suite
trap '[ -x "$ws" ] && "$ws" -k 2>/dev/null' EXIT
t0=$SECONDS
tp=0 tf=0 ts=0 bad=0
printf '%-26s %6s %6s %7s %5s\n' suite passed failed skipped secs
for s in "${suites[@]}"; do
  t1=$SECONDS
  MERKLE_BIN=$w MERKLE_TEST_PLATFORM=windows MERKLE_SOURCE_DIR=$root MERKLE_BUILD_DIR=$b \
    python3 "tests/cli/$s.py" -v > "$log/$s" 2>&1
  rc=$?
  ran=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\}.*/\1/p' "$log/$s" | tail -n1)
  f=$(grep -cE '\.\.\. (FAIL|ERROR)$' "$log/$s")
  k=$(grep -cE "\.\.\. skipped" "$log/$s")
  if [ "$rc" = 77 ]; then
    p=0; f=0; k=all
  else
    p=$(( ${ran:-0} - f - k ))
    # A crash before unittest's summary counts as a failure of the suite.
    [ "$rc" = 0 ] || [ "$f" -gt 0 ] || f=1
    ts=$((ts + k))
  fi
  tp=$((tp + p)); tf=$((tf + f))
  printf '%-26s %6s %6s %7s %5s\n' "$s" "$p" "$f" "$k" $((SECONDS - t1))
  if [ "$f" != 0 ]; then
    bad=1
    grep -E '\.\.\. (FAIL|ERROR)$' "$log/$s" | sed 's/^/    /'
    [ -n "${WINE_CLI_TEST_VERBOSE:-}" ] && cat "$log/$s"
  fi
done
printf '%-26s %6s %6s %7s %5s\n' total "$tp" "$tf" "$ts" $((SECONDS - t0))
exit $bad
