# SPDX-License-Identifier: MIT OR Apache-2.0
"""Issue 23 (trust, round 3): no false OK, no false FAILED, no lost output, verifiers that
bind the claim. One class per item; each test fails on the code before the fix."""
import hashlib
import os
import resource
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import BIN, TempDirCase, run  # noqa: E402


def run_limited(args, nofile, cwd=None, env=None):
    """merkle with RLIMIT_NOFILE soft = hard = nofile (the tool cannot raise it)."""
    e = dict(os.environ)
    if env:
        e.update(env)

    def lim():
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    p = subprocess.run([BIN] + list(args), capture_output=True, cwd=cwd, env=e, timeout=600,
                       preexec_fn=lim)
    return p.returncode, p.stdout, p.stderr


class TestDescriptorBudget(TempDirCase):
    """Item 1: with few descriptors and many threads, healthy files are never FAILED."""

    def make(self, n=1500):
        os.mkdir(os.path.join(self.dir, "d"))
        names = []
        for i in range(n):
            # small files (read whole in batches) and larger ones (kept open while hashed)
            size = 100 + (i * 7919) % 3000 if i % 3 else 40000 + (i * 131) % 90000
            data = hashlib.sha256(b"%d" % i).digest() * (size // 32 + 1)
            name = "d/f%05d" % i
            with open(os.path.join(self.dir, name), "wb") as f:
                f.write(data[:size])
            names.append(name)
        return names

    def manifest(self, names, alg):
        lines = []
        for n in names:
            with open(os.path.join(self.dir, n), "rb") as f:
                lines.append("%s  %s\n" % (hashlib.new(alg, f.read()).hexdigest(), n))
        with open(os.path.join(self.dir, alg.upper() + "SUMS"), "w") as f:
            f.writelines(lines)
        return "".join(lines).encode()

    def test_check_sum_audit_low_limit_many_threads(self):
        names = self.make()
        for alg in ("md5", "sha256"):
            expect = self.manifest(names, alg)
            sums = alg.upper() + "SUMS"
            for io in ("syscall", "uring"):
                for nofile, j in ((64, 64), (40, 16), (1024, 64)):
                    env = {"MERKLE_IO": io}
                    rc, out, err = run_limited(["check", "-a", alg, "-j", str(j), sums], nofile,
                                               cwd=self.dir, env=env)
                    what = "check %s %s nofile %d -j %d: %s" % (alg, io, nofile, j, err[-300:])
                    self.assertEqual(rc, 0, what)
                    self.assertEqual(out.count(b": OK\n"), len(names), what)
                    rc, out, err = run_limited(["sum", "-a", alg, "-j", str(j)] + names, nofile,
                                               cwd=self.dir, env=env)
                    self.assertEqual((rc, out), (0, expect), what)
                    rc, out, err = run_limited(["audit", "-a", alg, "-j", str(j), sums, "."],
                                               nofile, cwd=self.dir, env=env)
                    # clean, or only the other manifest is new
                    self.assertIn(rc, (0, 1), what)
                    self.assertEqual([l for l in out.splitlines() if not l.startswith(b"new: ")],
                                     [], what)
                    self.assertNotIn(b"Too many open files", err, what)

    def test_raises_soft_limit(self):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard == resource.RLIM_INFINITY or hard <= 256:
            self.skipTest("hard limit %s" % hard)
        names = self.make(300)
        self.manifest(names, "md5")

        def lim():
            resource.setrlimit(resource.RLIMIT_NOFILE, (48, hard))

        p = subprocess.run([BIN, "check", "-j", "64", "MD5SUMS"], capture_output=True,
                           cwd=self.dir, preexec_fn=lim, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr[-300:])


class TestLostOutput(TempDirCase):
    """Item 3: output that could not be written is an error (close_stdout, as coreutils)."""

    def full(self, args, cwd=None):
        with open("/dev/full", "wb") as out:
            p = subprocess.run([BIN] + args, stdout=out, stderr=subprocess.PIPE, cwd=cwd,
                               timeout=600)
        return p.returncode, p.stderr

    def test_dev_full(self):
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full")
        self.path("a", b"hello\n")
        with open(os.path.join(self.dir, "SUMS"), "w") as f:
            f.write("%s  a\n" % hashlib.md5(b"hello\n").hexdigest())
        for args in (["--version"], ["--help"], ["sum", "--help"], ["sum", "--version"],
                     ["verify", "--help"], ["dirroot", "SUMS"], ["sum", "a"], ["check", "SUMS"],
                     ["root", "a"]):
            rc, err = self.full(args, cwd=self.dir)
            self.assertEqual(rc, 1, args)
            self.assertIn(b"write error", err, args)
        self.path("new", b"x")  # a difference: audit writes a report line
        rc, err = self.full(["audit", "SUMS", "."], cwd=self.dir)
        self.assertEqual(rc, 2)
        self.assertIn(b"write error", err)


if __name__ == "__main__":
    unittest.main()
