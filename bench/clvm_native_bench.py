#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Back-reference encoding of real Chia programs: merkle against a native clvm_rs build.

  bench/clvm_native_bench.py [--merkle BIN] [--reps N] [--peer-reps N] [--corpus FILE] [NAME ...]

Programs come from ../shared/vectors/clvm-real-chain.json.gz and clvm-real-public.json.gz
(real programs from other projects, kept outside the repository; --corpus FILE adds a corpus
of the same form, e.g. one built by tools/clvm_real_vectors.py; default: the largest). Each
is written out in canonical form, then both sides encode it from that file, as whole
processes, and process CPU time (user + system, from getrusage) is compared:

  merkle:  BIN clvm serialize --backrefs FILE            (median of --reps runs)
  peer:    $CLVM_RS_BR FILE                              (median of --peer-reps runs)

CLVM_RS_BR is a command (not part of this repository) that parses FILE (hex) with its own
parser and prints clvm_rs HEAD's node_to_bytes_backrefs of it in hex, e.g. the test oracle
of tools/clvm_real_vectors.py built natively with rustc -O. Without it only merkle is timed.
Both outputs must equal the corpus bytes. Run by hand; CI runs --smoke (one small program,
no peer; skipped with a message when the shared vectors are absent).
"""
import argparse
import gzip
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.environ.get("MERKLE_SHARED_VECTORS", os.path.join(HERE, "..", "..", "shared", "vectors"))
CORPORA = [os.path.join(SHARED, "clvm-real-chain.json.gz"),
           os.path.join(SHARED, "clvm-real-public.json.gz")]
DEFAULT = ["rs_benchmark_block-2000", "rs_benchmark_compressed-2000", "gen_block-c2a8df0d",
           "rs_0_generator", "bundle_ea1741fd_1_sol", "gen_block-834766"]


def cpu_run(cmd):
    """Run cmd; return (stdout, CPU seconds of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{cmd[0]} failed: {p.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p.stdout.strip(), cpu


def median_cpu(cmd, reps, want):
    times = []
    for _ in range(reps):
        out, t = cpu_run(cmd)
        if out != want:
            sys.exit(f"{' '.join(cmd)}: output differs from clvm_rs HEAD")
        times.append(t)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--merkle", default=os.path.join("build", "rel", "merkle"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--peer-reps", type=int, default=1)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--corpus", action="append", default=[])
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    cases = {}
    for corpus in CORPORA + a.corpus:
        if not os.path.exists(corpus):
            continue
        with gzip.open(corpus) as f:
            cases.update({c["name"]: c for c in json.load(f)["cases"]})
    if not cases:
        print(f"clvm_native_bench: skipped, no corpus ({', '.join(CORPORA)} absent)")
        return
    names = a.names or (["gen_block-834768"] if a.smoke else DEFAULT)
    peer = shlex.split(os.environ.get("CLVM_RS_BR", "")) if not a.smoke else []
    reps = 1 if a.smoke else a.reps
    print(f"{'program':40} {'canonical':>10} {'backrefs':>9} {'merkle':>10} "
          f"{'clvm_rs':>10} {'speed-up':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            c = cases[name]
            src = os.path.join(tmp, name + ".br.hex")
            with open(src, "w") as f:
                f.write(c["backrefs"])
            canon, _ = cpu_run([a.merkle, "clvm", "serialize", src])
            path = os.path.join(tmp, name + ".hex")
            with open(path, "w") as f:
                f.write(canon)
            tm = median_cpu([a.merkle, "clvm", "serialize", "--backrefs", path], reps, c["backrefs"])
            line = f"{name:40} {len(canon) // 2:>10,} {len(c['backrefs']) // 2:>9,} {tm * 1e3:>8.1f}ms"
            if peer:
                tp = median_cpu(peer + [path], a.peer_reps, c["backrefs"])
                line += f" {tp * 1e3:>8.1f}ms {tp / tm if tm else float('inf'):>8.1f}x"
            print(line, flush=True)


if __name__ == "__main__":
    main()
