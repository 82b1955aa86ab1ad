#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The file engines (docs/io.md): system calls and io_uring give the same output, exit status
and cache, for check, sum, and the cache pass; every fallback to system calls is silent and
loses nothing: io_uring absent (seccomp: ENOSYS), disabled (seccomp: EPERM, as
/proc/sys/kernel/io_uring_disabled gives), an operation the kernel refuses on first use
(MERKLE_IO_FAULT=einval), and the measured choice of MERKLE_IO=auto."""
import ctypes
import os
import platform
import random
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import BIN, TempDirCase  # noqa: E402

NR_IO_URING_SETUP = 425  # the same number on every architecture since 5.1
AUDIT_ARCH_X86_64 = 0xC000003E


def deny_io_uring(errno_value):
    """A preexec_fn installing a seccomp filter: io_uring_setup fails with errno_value."""
    def install():
        libc = ctypes.CDLL(None, use_errno=True)

        class SockFilter(ctypes.Structure):
            _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte),
                        ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]

        class SockFprog(ctypes.Structure):
            _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]

        prog = [
            (0x20, 0, 0, 4),                      # A = arch
            (0x15, 1, 0, AUDIT_ARCH_X86_64),      # arch == x86-64 ? next-but-one : next
            (0x06, 0, 0, 0x7FFF0000),             # other arch: allow
            (0x20, 0, 0, 0),                      # A = syscall number
            (0x15, 0, 1, NR_IO_URING_SETUP),      # io_uring_setup ? next : skip
            (0x06, 0, 0, 0x00050000 | errno_value),  # SECCOMP_RET_ERRNO
            (0x06, 0, 0, 0x7FFF0000),             # SECCOMP_RET_ALLOW
        ]
        arr = (SockFilter * len(prog))(*[SockFilter(*p) for p in prog])
        fprog = SockFprog(len(prog), arr)
        if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
            raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS")
        if libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) != 0:  # PR_SET_SECCOMP, FILTER
            raise OSError(ctypes.get_errno(), "PR_SET_SECCOMP")
    return install


def uring_usable():
    """io_uring works here (the engine would be used when forced)."""
    p = subprocess.run([BIN, "sum", "--", os.devnull], capture_output=True,
                       env=dict(os.environ, MERKLE_IO="uring", MERKLE_IO_DEBUG="1"))
    return b"io_uring unavailable" not in p.stderr


class IoEngine(TempDirCase):
    def setUp(self):
        super().setUp()
        rng = random.Random(16)
        d = os.path.join(self.dir, "d")
        os.makedirs(os.path.join(d, "sub"))
        names = []
        # small files around the batch slot size (32 KiB), empty ones, a few large ones
        sizes = [rng.randrange(0, 5000) for _ in range(420)] + [0, 1, 63, 64, 65, 32767, 32768,
                                                                 32769, 65536, 300000, 2000000]
        for i, n in enumerate(sizes):
            name = ("sub/" if i % 7 == 0 else "") + "f%04d" % i
            with open(os.path.join(d, name), "wb") as f:
                f.write(rng.randbytes(n))
            names.append(name)
        os.symlink("f0001", os.path.join(d, "link"))
        os.symlink("nowhere", os.path.join(d, "dangling"))
        names += ["link", "dangling", "sub", "missing", "sub/missing"]
        rng.shuffle(names)
        self.d, self.names = d, names
        for tool, out in (("md5sum", "MD5SUMS"), ("sha256sum", "SHA256SUMS"), ("b2sum", "B2SUMS")):
            p = subprocess.run([tool, "--"] + names, cwd=d, capture_output=True)
            with open(os.path.join(d, out), "wb") as f:
                f.write(p.stdout)
        # one file changed after the lists were written: a FAILED line
        with open(os.path.join(d, "f0002"), "ab") as f:
            f.write(b"x")

    def merkle(self, args, engine, preexec=None, extra_env=None):
        env = dict(os.environ, MERKLE_IO=engine, LC_ALL="C")
        env.pop("MERKLE_IO_FAULT", None)
        env.pop("MERKLE_IO_DEBUG", None)
        if extra_env:
            env.update(extra_env)
        p = subprocess.run([BIN] + args, cwd=self.d, capture_output=True, env=env,
                           preexec_fn=preexec, timeout=300)
        return p.returncode, p.stdout, p.stderr

    def scenario(self, engine, preexec=None, extra_env=None):
        """Everything the engines serve, as one comparable record."""
        out = []
        for lst in ("MD5SUMS", "SHA256SUMS", "B2SUMS"):
            for j in ("1", "2"):
                out.append(self.merkle(["check", "-j", j, lst], engine, preexec, extra_env))
        for a in ("md5", "sha256"):
            out.append(self.merkle(["sum", "-a", a, "--"] + self.names, engine, preexec, extra_env))
        cache = os.path.join(self.dir, "cache-" + engine)
        for _ in range(2):  # the second run answers from the cache (the stat pass)
            out.append(self.merkle(["check", "-j", "2", "--cache", cache, "MD5SUMS"], engine,
                                   preexec, extra_env))
        os.unlink(cache)
        return out

    def test_engines_agree_with_coreutils(self):
        ref = self.scenario("sync")
        # check's output is md5sum -c's / sha256sum -c's / b2sum -c's, byte for byte
        for k, (tool, lst) in enumerate((("md5sum", "MD5SUMS"), ("sha256sum", "SHA256SUMS"),
                                         ("b2sum", "B2SUMS"))):
            p = subprocess.run([tool, "-c", lst], cwd=self.d, capture_output=True,
                               env=dict(os.environ, LC_ALL="C"))
            rc, out, err = ref[2 * k]
            if lst == "B2SUMS":  # merkle says once that it took the list as b2sum's
                self.assertIn(b"match BLAKE2b-512", err)
                err = b"\n".join(ln for ln in err.split(b"\n") if b"BLAKE2b-512" not in ln)
            self.assertEqual((rc, out), (p.returncode, p.stdout), lst)
            self.assertEqual(err.replace(b"merkle: ", b""),
                             p.stderr.replace(tool.encode() + b": ", b""), lst)
        self.assertIn(b"FAILED", ref[0][1])
        self.assertEqual(ref[-1][1], ref[-2][1])  # cached run: same output
        for engine in ("uring", "auto"):
            self.assertEqual(self.scenario(engine), ref, engine)

    def test_fallbacks_are_silent(self):
        ref = self.scenario("sync")
        self.assertEqual(self.scenario("uring", extra_env={"MERKLE_IO_FAULT": "einval"}), ref)
        if platform.machine() != "x86_64":
            self.skipTest("seccomp filter written for x86-64")
        for e in (38, 1):  # ENOSYS: no io_uring; EPERM: io_uring_disabled or a container policy
            self.assertEqual(self.scenario("uring", preexec=deny_io_uring(e)), ref, e)
        rc, _, err = self.merkle(["check", "MD5SUMS"], "uring", deny_io_uring(1),
                                 {"MERKLE_IO_DEBUG": "1"})
        self.assertIn(b"io_uring unavailable (Operation not permitted)", err)

    def test_auto_measures_then_decides(self):
        if not uring_usable():
            self.skipTest("io_uring unavailable here")
        # lists shorter than 4,000 files are not measured (system calls); enough files for the
        # trial batches of both kinds (9 timed + 1 warm-up each, of 16
        # files to open and read, of 64 files to stat)
        big = os.path.join(self.dir, "big")
        os.makedirs(big)
        for i in range(4200):
            with open(os.path.join(big, "g%04d" % i), "wb") as f:
                f.write(b"%d" % i * 50)
        names = sorted(os.listdir(big))
        lst = subprocess.run(["md5sum", "--"] + names, cwd=big, capture_output=True).stdout
        with open(os.path.join(big, "SUMS"), "wb") as f:
            f.write(lst)
        env = dict(os.environ, MERKLE_IO="auto", MERKLE_IO_DEBUG="1")
        # a short list is not measured at all
        p = subprocess.run([BIN, "check", "-j", "1", "MD5SUMS"], cwd=self.d, capture_output=True,
                           env=env)
        self.assertNotIn(b"merkle: io ", p.stderr)
        cache = os.path.join(self.dir, "c")
        for k in range(2):
            p = subprocess.run([BIN, "check", "-j", "1", "--cache", cache, "SUMS"], cwd=big,
                               capture_output=True, env=env)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stdout.count(b": OK\n"), 4200)
            kind = b"open+read" if k == 0 else b"stat"
            lines = [ln for ln in p.stderr.splitlines() if ln.startswith(b"merkle: io " + kind)]
            self.assertEqual(len(lines), 1, (k, p.stderr))
            self.assertRegex(lines[0], rb"system calls [0-9.]+ us/file, io_uring [0-9.]+ us/file: "
                                       rb"(io_uring|system calls)$")


if __name__ == "__main__":
    if not shutil.which("md5sum") or not shutil.which("b2sum"):
        print("coreutils missing: skipped")
        sys.exit(0)
    unittest.main()
