#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Manifest checking speed: `merkle check` against `md5sum -c` on the same files, same run,
# page cache warm, medians of several runs (hyperfine), printed as ratios.
#   dataset A: 20,000 files of 4 KiB          dataset B: 300 files, log-uniform 1 KiB..4 MiB
#   also: a second `check --cache` of the unchanged dataset against the first (empty cache), with
#   -j 1 and with the default thread count (all cores), the four runs interleaved.
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

# hyperfine json -> "median_wall_s cpu_s" (cpu = mean user + system) of command index $2
stats() {
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]; print(r["median"], r["user"] + r["system"])' "$1" "$2"
}
for ds in A B; do
  cd "$work/$ds"
  # Correctness first: identical output to md5sum -c.
  md5sum -c MD5SUMS > md5.out
  "$bin" check -j 1 MD5SUMS > merkle.out
  cmp -s md5.out merkle.out || { echo "bench_manifest: output differs from md5sum -c on $ds" >&2; exit 1; }
  if [ $smoke = 1 ]; then
    "$bin" check -j 2 --quiet MD5SUMS
    rm -f cache; "$bin" check --cache cache --status MD5SUMS; "$bin" check --cache cache --status MD5SUMS
    rm -f cache; "$bin" check -j 1 --cache cache --status MD5SUMS; "$bin" check -j 1 --cache cache --status MD5SUMS
    echo "dataset $ds: smoke ok ($(wc -l < MD5SUMS) files)"
    continue
  fi
  hyperfine -N --warmup 2 --runs "$runs" --export-json h.json \
    "md5sum -c --quiet MD5SUMS" "$bin check -j 1 --quiet MD5SUMS" "$bin check -j 2 --quiet MD5SUMS" >/dev/null
  # Cache: first check with an empty cache vs. second check of the unchanged dataset, with one
  # thread and with the default (all cores). The four commands run interleaved, round after
  # round (2 warm-up rounds), so that a slow spell of a shared machine hits all of them alike;
  # medians of wall time and of CPU time (user + system of the child).
  "$bin" check -j 1 --quiet --cache cache2 MD5SUMS
  "$bin" check --quiet --cache cache4 MD5SUMS
  python3 - "$runs" c.json "$bin" <<'PY'
import json, os, resource, subprocess, sys, time
runs, out, bin_ = int(sys.argv[1]), sys.argv[2], sys.argv[3]
cmds = [(["-j", "1"], "cache1", True), (["-j", "1"], "cache2", False),
        ([], "cache3", True), ([], "cache4", False)]
res = [{"wall": [], "cpu": []} for _ in cmds]
for r in range(runs + 2):
    for k, (j, cache, fresh) in enumerate(cmds):
        if fresh and os.path.exists(cache):
            os.unlink(cache)
        argv = [bin_, "check"] + j + ["--quiet", "--cache", cache, "MD5SUMS"]
        u0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(argv, check=True)
        t1 = time.perf_counter()
        u1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        if r >= 2:
            res[k]["wall"].append(t1 - t0)
            res[k]["cpu"].append(u1.ru_utime - u0.ru_utime + u1.ru_stime - u0.ru_stime)
med = lambda v: sorted(v)[len(v) // 2]
json.dump({"results": [{"median": med(x["wall"]), "cpu_median": med(x["cpu"])} for x in res]},
          open(out, "w"))
PY
  python3 - "$ds" "$(wc -l < MD5SUMS)" h.json c.json <<'PY'
import json, sys
ds, n = sys.argv[1], sys.argv[2]
def st(f, i):
    r = json.load(open(f))["results"][i]
    return r["median"], r["cpu_median"] if "cpu_median" in r else r["user"] + r["system"]
md5, j1, j2 = st(sys.argv[3], 0), st(sys.argv[3], 1), st(sys.argv[3], 2)
c1, c2, c3, c4 = (st(sys.argv[4], i) for i in range(4))
def row(name, base, x):
    return "| %s | %s | %.1f ms | %.2fx | %.1f ms | %.2fx |" % (
        ds, name, x[0] * 1e3, base[0] / x[0], x[1] * 1e3, base[1] / x[1])
print("| dataset | command | wall (median) | wall ratio | CPU (user+sys; cache rows: median) | CPU ratio |")
print("|---|---|---|---|---|---|")
print(row("md5sum -c (%s files)" % n, md5, md5))
print(row("merkle check -j 1", md5, j1))
print(row("merkle check -j 2", md5, j2))
print(row("check -j 1 --cache, first (empty cache)", c1, c1))
print(row("check -j 1 --cache, second (unchanged)", c1, c2))
print(row("check --cache, first (empty cache)", c3, c3))
print(row("check --cache, second (unchanged)", c3, c4))
PY
done
