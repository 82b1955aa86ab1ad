# SPDX-License-Identifier: MIT OR Apache-2.0
"""Issue 23 (trust, round 3): no false OK, no false FAILED, no lost output, verifiers that
bind the claim. One class per item; each test fails on the code before the fix."""
import hashlib
import os
import resource
import shutil
import stat
import struct
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


MAGIC = b"MRKLVC01"
ALG = {"md5": 1, "sha256": 3}


def cache_count(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == MAGIC, head
    return struct.unpack("<Q", head[16:24])[0]


def forge_cache(path, entries):
    """An unkeyed cache file (format in src/manifest/cache.c) vouching for each (name, stat,
    alg, digest): what anyone who can write the cache file can make."""
    body = MAGIC + struct.pack("<QQ", 0, len(entries))
    for name, st, alg, digest in entries:
        n = name.encode()
        body += struct.pack("<I", len(n)) + n
        body += struct.pack("<QQQqqq", st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns,
                            st.st_ctime_ns, st.st_mtime_ns + 10 ** 12)
        body += bytes([ALG[alg], len(digest)]) + digest
    with open(path, "wb") as f:
        f.write(body + hashlib.sha256(body).digest())


class TestCacheTrust(TempDirCase):
    """Item 2: no false OK from the cache: pseudo files, and root with another user's cache."""

    PSEUDO = ["/proc/sys/kernel/ostype", "/proc/version", "/sys/kernel/mm/transparent_hugepage/enabled",
              "/sys/devices/system/cpu/online"]

    def pseudo(self):
        names = [p for p in self.PSEUDO if os.access(p, os.R_OK)]
        if not names:
            self.skipTest("no /proc or /sys here")
        return names

    def test_pseudo_files_never_recorded(self):
        names = self.pseudo()
        self.path("real", b"a real file\n")
        names = names + ["real"]
        for alg in ("md5", "sha256"):
            for io in ("sync", "uring"):
                lines = ""
                for n in names:
                    with open(os.path.join(self.dir, n), "rb") as f:
                        lines += "%s  %s\n" % (hashlib.new(alg, f.read()).hexdigest(), n)
                self.path("SUMS", lines.encode())
                cache = os.path.join(self.dir, "cache")
                if os.path.exists(cache):
                    os.unlink(cache)
                for _ in range(2):
                    rc, out, err = run(["check", "--cache", "cache", "SUMS"], cwd=self.dir,
                                       env={"MERKLE_IO": io})
                    self.assertEqual(rc, 0, err)
                # only the real file is vouched for by its stat
                self.assertEqual(cache_count(cache), 1, (alg, io))

    def test_old_pseudo_entry_not_answered(self):
        """A cache (of an older version, or forged) that vouches for a /proc file: the file is
        read again, and its new contents decide."""
        names = [p for p in self.pseudo() if p.startswith("/proc/")]
        if not names:
            self.skipTest("no /proc")
        p = names[0]
        st = os.stat(p)
        wrong = hashlib.md5(b"what it said long ago\n").digest()
        forge_cache(os.path.join(self.dir, "cache"), [(p, st, "md5", wrong)])
        self.path("SUMS", ("%s  %s\n" % (wrong.hex(), p)).encode())
        rc, out, err = run(["check", "--cache", "cache", "SUMS"], cwd=self.dir)
        self.assertEqual((rc, out), (1, ("%s: FAILED\n" % p).encode()), err)

    @unittest.skipUnless(os.geteuid() == 0, "needs root")
    def test_root_refuses_foreign_or_writable_unkeyed_cache(self):
        """Root must not trust an unkeyed cache that another user owns or may write: such a user
        forges an entry, and root's check says OK for changed content."""
        f = self.path("f", b"changed content\n")
        good = hashlib.md5(b"the original content\n").digest()
        self.path("SUMS", ("%s  f\n" % good.hex()).encode())
        cache = os.path.join(self.dir, "cache")
        for owner, mode in ((65534, 0o600), (0, 0o666), (0, 0o620), (65534, 0o644)):
            forge_cache(cache, [("f", os.stat(f), "md5", good)])
            os.chown(cache, owner, 0)
            os.chmod(cache, mode)
            with open(cache, "rb") as fh:
                before = fh.read()
            ino = os.stat(cache).st_ino
            rc, out, err = run(["check", "--cache", "cache", "SUMS"], cwd=self.dir)
            what = (owner, oct(mode), err)
            self.assertEqual((rc, out), (1, b"f: FAILED\n"), what)
            self.assertEqual(err.count(b"root does not trust it"), 1, what)
            st = os.stat(cache)
            with open(cache, "rb") as fh:
                self.assertEqual(fh.read(), before, what)
            self.assertEqual((st.st_ino, st.st_uid, stat.S_IMODE(st.st_mode)), (ino, owner, mode),
                             what)
        # root's own cache, not writable by others, is trusted and rewritten as before
        os.unlink(cache)
        self.path("f", b"the original content\n")
        self.assertEqual(run(["check", "--cache", "cache", "SUMS"], cwd=self.dir)[0], 0)
        self.assertEqual(cache_count(cache), 1)
        rc, out, err = run(["check", "--cache", "cache", "SUMS"], cwd=self.dir)
        self.assertEqual((rc, err), (0, b""))
        # a keyed cache of another user: entries are authenticated, it is used and kept
        self.path("key", b"k" * 32)
        os.unlink(cache)
        self.assertEqual(run(["check", "--cache", "cache", "--cache-key", "key", "SUMS"],
                             cwd=self.dir)[0], 0)
        os.chown(cache, 65534, 65534)
        with open(os.path.join(self.dir, "f"), "ab") as fh:
            fh.write(b"x")
        rc, out, err = run(["check", "--cache", "cache", "--cache-key", "key", "SUMS"],
                           cwd=self.dir)
        self.assertEqual(rc, 1, err)
        self.assertNotIn(b"trust", err)
        self.assertEqual(os.stat(cache).st_uid, 65534)


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
