#!/usr/bin/env bash
# Manifest checking speed: `merkle check` against `md5sum -c` on the same files, same run,
# page cache warm, medians of several runs (hyperfine), printed as ratios.
#   dataset A: 20,000 files of 4 KiB          dataset B: 300 files, log-uniform 1 KiB..4 MiB
#   also: a second `check --cache` of the unchanged dataset against the first (cold cache).
# Usage: bench/bench_manifest.sh [--smoke] [MERKLE_BIN]   (default build/test/merkle or build/merkle)
# --smoke: tiny datasets, one run each, checks that every command succeeds (CI, < 2 s).
set -euo pipefail
smoke=0
if [ "${1:-}" = --smoke ]; then smoke=1; shift; fi
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-}
if [ -z "$bin" ]; then
  for b in "$here/build/test/merkle" "$here/build/merkle"; do [ -x "$b" ] && { bin=$b; break; }; done
fi
[ -x "$bin" ] || { echo "bench_manifest: merkle binary not found (pass it as argument)" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
work=$(mktemp -d "${TMPDIR:-/tmp}/bench_manifest.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ $smoke = 1 ]; then nA=200; nB=20; maxB=65536; runs=1; else nA=20000; nB=300; maxB=4194304; runs=${RUNS:-7}; fi

python3 - "$work" "$nA" "$nB" "$maxB" <<'PY'
import os, random, sys
work, nA, nB, maxB = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(42)
for name, files in (("A", [4096] * nA),
                    ("B", [int(round(1024 * (maxB / 1024) ** rng.random())) for _ in range(nB)])):
    d = os.path.join(work, name)
    os.makedirs(os.path.join(d, "data"))
    for i, size in enumerate(files):
        with open(os.path.join(d, "data", "f%05d.bin" % i), "wb") as f:
            f.write(rng.randbytes(size))
PY
for ds in A B; do
  (cd "$work/$ds" && find data -type f | sort | xargs md5sum > MD5SUMS)
  # Make every file older than the cache-write moment (coarse clock granularity).
done
sleep 0.05

median() { # hyperfine json -> median seconds of command index $2
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]["median"])' "$1" "$2"
}
ratio() { python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$1" "$2"; }

for ds in A B; do
  cd "$work/$ds"
  # Correctness first: identical output to md5sum -c.
  md5sum -c MD5SUMS > md5.out
  "$bin" check -j 1 MD5SUMS > merkle.out
  cmp -s md5.out merkle.out || { echo "bench_manifest: output differs from md5sum -c on $ds" >&2; exit 1; }
  if [ $smoke = 1 ]; then
    "$bin" check -j 2 --quiet MD5SUMS
    rm -f cache; "$bin" check --cache cache --status MD5SUMS; "$bin" check --cache cache --status MD5SUMS
    echo "dataset $ds: smoke ok ($(wc -l < MD5SUMS) files)"
    continue
  fi
  hyperfine -N --warmup 2 --runs "$runs" --export-json h.json \
    "md5sum -c --quiet MD5SUMS" "$bin check -j 1 --quiet MD5SUMS" "$bin check -j 2 --quiet MD5SUMS" >/dev/null
  m0=$(median h.json 0); m1=$(median h.json 1); m2=$(median h.json 2)
  # Cache: first check with an empty cache vs. second check of the unchanged dataset.
  hyperfine -N --runs "$runs" --prepare "rm -f $work/$ds/cache" --export-json c1.json \
    "$bin check -j 1 --quiet --cache $work/$ds/cache MD5SUMS" >/dev/null
  "$bin" check -j 1 --quiet --cache cache MD5SUMS
  hyperfine -N --warmup 2 --runs "$runs" --export-json c2.json \
    "$bin check -j 1 --quiet --cache $work/$ds/cache MD5SUMS" >/dev/null
  c1=$(median c1.json 0); c2=$(median c2.json 0)
  printf 'dataset %s (%s files): md5sum -c %.1f ms | merkle check -j1 %.1f ms = %sx | -j2 %.1f ms = %sx | --cache first %.1f ms, second %.1f ms = %sx\n' \
    "$ds" "$(wc -l < MD5SUMS)" "$(python3 -c "print($m0*1e3)")" "$(python3 -c "print($m1*1e3)")" "$(ratio "$m0" "$m1")" \
    "$(python3 -c "print($m2*1e3)")" "$(ratio "$m0" "$m2")" "$(python3 -c "print($c1*1e3)")" \
    "$(python3 -c "print($c2*1e3)")" "$(ratio "$c1" "$c2")"
done
