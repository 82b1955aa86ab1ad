#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Issue 30 item 5, by hand: `merkle check` on many small files and `merkle root -j2` on one
large file against what the kernel needs at the least, in one run (medians of --rounds,
every variant interleaved; CPU time from getrusage, wall time from the monotonic clock).

  bench/check_floor.py [--merkle build/test/merkle] [--files 20000] [--rounds 9] [--big-mib 512]

Floors, compiled here from the C below with cc: one fstatat per file (what a cached check
cannot do with less) and one openat+fstat+read+close per file (an uncached check's system
calls). Data: N files of 4 KiB in one directory of a fresh temporary folder, their md5sum
list, and one file of --big-mib MiB read once into the page cache.
"""
import argparse
import hashlib
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time

FLOOR_C = r"""
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    int readall = argc > 2 && strcmp(argv[2], "read") == 0;
    FILE *f = fopen(argv[1], "r");
    if (!f) return 2;
    static char line[4096], buf[65536];
    struct stat st;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        const char *name = line + 34; /* "<32 hex>  name" */
        if (!readall) {
            if (fstatat(AT_FDCWD, name, &st, 0) != 0) return 1;
            continue;
        }
        int fd = openat(AT_FDCWD, name, O_RDONLY);
        if (fd < 0 || fstat(fd, &st) != 0) return 1;
        while (read(fd, buf, sizeof buf) > 0) {}
        close(fd);
    }
    return 0;
}
"""


def timed(argv, cwd):
    u0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=cwd)
    t1 = time.monotonic()
    u1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (t1 - t0, u1.ru_utime - u0.ru_utime, u1.ru_stime - u0.ru_stime)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--merkle", default="build/test/merkle")
    ap.add_argument("--files", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--big-mib", type=int, default=512)
    a = ap.parse_args()
    merkle = os.path.abspath(a.merkle)
    tmp = tempfile.mkdtemp(prefix="check_floor.")
    try:
        floor = os.path.join(tmp, "floor")
        with open(floor + ".c", "w") as f:
            f.write(FLOOR_C)
        subprocess.run(["cc", "-O2", "-o", floor, floor + ".c"], check=True)
        os.mkdir(os.path.join(tmp, "d"))
        lines = []
        for i in range(a.files):
            name = "d/f%06d" % i
            data = os.urandom(4096)
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(data)
            lines.append("%s  %s\n" % (hashlib.md5(data).hexdigest(), name))
        with open(os.path.join(tmp, "MD5SUMS"), "w") as f:
            f.writelines(lines)
        big = os.path.join(tmp, "big")
        with open(big, "wb") as f:
            for _ in range(a.big_mib):
                f.write(os.urandom(1 << 20))
        cache = os.path.join(tmp, "cache")
        subprocess.run([merkle, "check", "-j1", "--quiet", "--cache", cache, "MD5SUMS"],
                       check=True, cwd=tmp, stdout=subprocess.DEVNULL)
        runs = {
            "root_j1": [merkle, "root", "-j1", "--leaf-size", "4096", big],
            "root_j2": [merkle, "root", "-j2", "--leaf-size", "4096", big],
            "floor_read": [floor, "MD5SUMS", "read"],
            "check_j1": [merkle, "check", "-j1", "--quiet", "MD5SUMS"],
            "check_j2": [merkle, "check", "-j2", "--quiet", "MD5SUMS"],
            "floor_stat": [floor, "MD5SUMS", "stat"],
            "cached_j1": [merkle, "check", "-j1", "--quiet", "--cache", cache, "MD5SUMS"],
        }
        got = {k: [] for k in runs}
        for k, argv in runs.items():  # warm the page cache
            timed(argv, tmp)
        for _ in range(a.rounds):
            for k, argv in runs.items():
                got[k].append(timed(argv, tmp))
        med = statistics.median

        def wall(k):
            return med(x[0] for x in got[k])

        def cpu(k):
            return med(x[1] + x[2] for x in got[k])

        print("load average %.2f; %d files of 4 KiB in one directory; %d rounds (medians)"
              % (os.getloadavg()[0], a.files, a.rounds))
        print("root %d MiB page-cached, 4 KiB leaves: -j1 %.3f s wall (%.3f s CPU: the reader "
              "thread copies while the caller hashes), -j2 %.3f s: -j2/-j1 %.2fx"
              % (a.big_mib, wall("root_j1"), cpu("root_j1"), wall("root_j2"),
                 wall("root_j1") / wall("root_j2")))
        print("check -j1: %.3f s = %.2fx one openat+fstat+read+close per file (%.3f s); "
              "-j2: %.3f s = %.2fx" % (wall("check_j1"), wall("check_j1") / wall("floor_read"),
                                       wall("floor_read"), wall("check_j2"),
                                       wall("check_j2") / wall("floor_read")))
        print("cached second check -j1: %.3f s = %.2fx one fstatat per file (%.3f s); CPU %.2fx"
              % (wall("cached_j1"), wall("cached_j1") / wall("floor_stat"), wall("floor_stat"),
                 cpu("cached_j1") / cpu("floor_stat")))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
