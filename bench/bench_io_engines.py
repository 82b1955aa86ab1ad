#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The file engines against `md5sum -c` (issue 16, docs/io.md), in one run, interleaved round
after round so that a slow spell of a shared machine hits every command alike: medians of wall
time and of the child's CPU time (user + system), as ratios against md5sum -c.

    bench/bench_io_engines.py [MERKLE] [--rounds R] [--files N] [--dataset A,A50,B]

Datasets (page cache warm): A = N files of 4 KiB in one directory; A50 = the same spread over
50 subdirectories; B = 300 files, log-uniform 1 KiB..4 MiB. Per dataset and engine
(MERKLE_IO=sync, uring, auto): check -j 1, check -j 2, and the second check -j 1 --cache of the
unchanged files against the first (empty cache). Also: all installed packages' md5sums
(/var/lib/dpkg/info/*.md5sums, run from /) with --pkg: identical output required."""
import argparse
import glob
import hashlib
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ENGINES = ("sync", "uring", "auto")


def make(root, name, n):
    d = os.path.join(root, name)
    rng = random.Random(16)
    if name == "B":
        sizes = [int(round(1024 * 4096 ** rng.random())) for _ in range(300)]
    else:
        sizes = [4096] * n
    lines = []
    for i, size in enumerate(sizes):
        rel = ("d%02d/" % (i % 50) if name == "A50" else "") + "f%05d" % i
        os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
        data = rng.randbytes(size)
        with open(os.path.join(d, rel), "wb") as f:
            f.write(data)
        lines.append("%s  %s\n" % (hashlib.md5(data).hexdigest(), rel))
    with open(os.path.join(d, "MD5SUMS"), "w") as f:
        f.writelines(lines)
    return d


def timed(argv, cwd, env, allow_fail=False):
    u0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t1 = time.perf_counter()
    u1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0 and not allow_fail:
        sys.exit("failed: %s: %s" % (" ".join(argv), p.stderr.decode(errors="replace")))
    return t1 - t0, u1.ru_utime - u0.ru_utime + u1.ru_stime - u0.ru_stime


def med(v):
    return sorted(v)[len(v) // 2]


def bench(binary, d, rounds):
    cmds = [("md5sum -c", ["md5sum", "-c", "--quiet", "MD5SUMS"], None, None)]
    for e in ENGINES:
        cmds += [("%s check -j 1" % e, [binary, "check", "-j", "1", "--quiet", "MD5SUMS"], e, None),
                 ("%s check -j 2" % e, [binary, "check", "-j", "2", "--quiet", "MD5SUMS"], e, None),
                 ("%s --cache first -j 1" % e, None, e, "first"),
                 ("%s --cache second -j 1" % e, None, e, "second")]
    res = {c[0]: ([], []) for c in cmds}
    cache = os.path.join(d, "..", "cache-%s" % os.path.basename(d))
    for r in range(rounds + 1):  # round 0 warms up
        for name, argv, engine, kind in cmds:
            env = dict(os.environ)
            env.pop("MERKLE_IO_DEBUG", None)
            if engine:
                env["MERKLE_IO"] = engine
            if kind:
                if kind == "first" and os.path.exists(cache):
                    os.unlink(cache)
                argv = [binary, "check", "-j", "1", "--quiet", "--cache", cache, "MD5SUMS"]
            w, c = timed(argv, d, env)
            if r:
                res[name][0].append(w)
                res[name][1].append(c)
    return cmds, res


def report(title, cmds, res):
    print("\n### %s\n" % title)
    print("| command | wall (median) | vs md5sum -c | CPU (median) | vs md5sum -c |")
    print("|---|---|---|---|---|")
    bw, bc = med(res["md5sum -c"][0]), med(res["md5sum -c"][1])
    for name, *_ in cmds:
        w, c = med(res[name][0]), med(res[name][1])
        if "second" in name:  # the cache rows: against the first run of the same engine
            fw = med(res[name.replace("second", "first")][0])
            fc = med(res[name.replace("second", "first")][1])
            print("| %s | %.1f ms | %.2fx its first | %.1f ms | %.2fx its first |"
                  % (name, w * 1e3, fw / w, c * 1e3, fc / c))
        else:
            print("| %s | %.1f ms | %.2fx | %.1f ms | %.2fx |" % (name, w * 1e3, bw / w, c * 1e3, bc / c))


def packages(binary, rounds):
    files = sorted(glob.glob("/var/lib/dpkg/info/*.md5sums"))
    with tempfile.NamedTemporaryFile("wb", delete=False, suffix=".md5sums") as t:
        for f in files:
            with open(f, "rb") as s:
                t.write(s.read())
        lst = t.name
    ref = subprocess.run(["md5sum", "-c", lst], cwd="/", capture_output=True)
    for e in ENGINES:
        for j in ("1", "2"):
            p = subprocess.run([binary, "check", "-j", j, lst], cwd="/", capture_output=True,
                               env=dict(os.environ, MERKLE_IO=e))
            same = (p.returncode, p.stdout, p.stderr.replace(b"merkle: ", b"")) == \
                (ref.returncode, ref.stdout, ref.stderr.replace(b"md5sum: ", b""))
            print("packages, MERKLE_IO=%s -j %s: output %s md5sum -c" % (e, j, "identical to" if same else "DIFFERS from"))
    cmds = [("md5sum -c", ["md5sum", "-c", "--quiet", lst], None, None)]
    cmds += [("%s check -j 1" % e, [binary, "check", "-j", "1", "--quiet", lst], e, None) for e in ENGINES]
    res = {c[0]: ([], []) for c in cmds}
    for r in range(rounds + 1):
        for name, argv, engine, _ in cmds:
            env = dict(os.environ, **({"MERKLE_IO": engine} if engine else {}))
            w, c = timed(argv, "/", env, allow_fail=True)  # some packages' files differ
            if r:
                res[name][0].append(w)
                res[name][1].append(c)
    report("every installed package's md5sums (%d lines), run from /" % sum(1 for _ in open(lst)),
           cmds, res)
    os.unlink(lst)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("merkle", nargs="?", default=os.path.join(os.path.dirname(__file__), "..",
                                                             "build", "release", "merkle"))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--files", type=int, default=20000)
    ap.add_argument("--dataset", default="A,A50,B")
    ap.add_argument("--pkg", action="store_true")
    a = ap.parse_args()
    binary = os.path.abspath(a.merkle)
    print("load: %s" % open("/proc/loadavg").read().strip())
    root = tempfile.mkdtemp(prefix="bench_io.")
    try:
        for ds in filter(None, a.dataset.split(",")):
            d = make(root, ds, a.files)
            cmds, res = bench(binary, d, a.rounds)
            report("dataset %s" % ds, cmds, res)
        if a.pkg:
            packages(binary, a.rounds)
    finally:
        shutil.rmtree(root)
    print("\nload: %s" % open("/proc/loadavg").read().strip())


if __name__ == "__main__":
    main()
