#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Two merkle binaries against each other and against `md5sum -c` on the same files, in one
run, interleaved (so that a slow spell of a shared machine hits all alike): wall and child CPU
medians. For "nothing got slower" checks between commits; run by hand.

    bench/compare_check.py OLD_MERKLE NEW_MERKLE [--files N] [--size BYTES] [--rounds R]

Files are written to a fresh temporary directory (N files of SIZE bytes, one directory) and
checked with -j 1 and -j 2 (--quiet), -j 2 with every OK line printed, and a second
`check -j 1 --cache` of the unchanged files."""
import argparse
import hashlib
import os
import resource
import shutil
import subprocess
import tempfile
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--files", type=int, default=20000)
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    old, new = os.path.abspath(a.old), os.path.abspath(a.new)
    work = tempfile.mkdtemp(prefix="compare_check.")
    try:
        os.mkdir(os.path.join(work, "d"))
        lines = []
        for i in range(a.files):
            data = os.urandom(a.size)
            name = "d/f%06d" % i
            with open(os.path.join(work, name), "wb") as f:
                f.write(data)
            lines.append("%s  %s\n" % (hashlib.md5(data).hexdigest(), name))
        with open(os.path.join(work, "MD5SUMS"), "w") as f:
            f.writelines(lines)
        cmds = {"md5sum -c --quiet": ["md5sum", "-c", "--quiet", "MD5SUMS"]}
        for tag, b in (("old", old), ("new", new)):
            cmds[tag + " -j 1 --quiet"] = [b, "check", "-j", "1", "--quiet", "MD5SUMS"]
            cmds[tag + " -j 2 --quiet"] = [b, "check", "-j", "2", "--quiet", "MD5SUMS"]
            cmds[tag + " -j 2 (OK lines)"] = [b, "check", "-j", "2", "MD5SUMS"]
            cmds[tag + " cached -j 1"] = [b, "check", "-j", "1", "--quiet", "--cache",
                                         "cache." + tag, "MD5SUMS"]
            subprocess.run(cmds[tag + " cached -j 1"], cwd=work, check=True)
        time.sleep(1.1)  # the files' stamps strictly older than any later verification
        for tag in ("old", "new"):
            subprocess.run(cmds[tag + " cached -j 1"], cwd=work, check=True)
        wall = {k: [] for k in cmds}
        cpu = {k: [] for k in cmds}
        for r in range(a.rounds + 2):
            for k, c in cmds.items():
                u0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.perf_counter()
                subprocess.run(c, cwd=work, check=True, stdout=subprocess.DEVNULL)
                t1 = time.perf_counter()
                u1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                if r >= 2:
                    wall[k].append(t1 - t0)
                    cpu[k].append(u1.ru_utime - u0.ru_utime + u1.ru_stime - u0.ru_stime)
        med = lambda v: sorted(v)[len(v) // 2]
        base_w, base_c = med(wall["md5sum -c --quiet"]), med(cpu["md5sum -c --quiet"])
        print("| %d files of %d bytes, one directory, medians of %d | wall | vs md5sum | CPU | vs md5sum |"
              % (a.files, a.size, a.rounds))
        print("|---|---|---|---|---|")
        for k in cmds:
            w, c = med(wall[k]), med(cpu[k])
            print("| %s | %.1f ms | %.2fx | %.1f ms | %.2fx |" % (k, w * 1e3, base_w / w, c * 1e3, base_c / c))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
