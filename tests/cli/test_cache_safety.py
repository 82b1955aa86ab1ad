#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The validation cache never destroys data (issue 17): what --cache may be written over,
atomic and merged saves, racy timestamps, foreign caches, bounded reads, `merkle cat`."""
import hashlib
import os
import shutil
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import BIN, run, skip_windows  # noqa: E402

ENV = {"LC_ALL": "C", "LANG": "C"}
MAGIC = b"MRKLVC01"


def md5sums(d, names):
    lines = []
    for n in names:
        with open(os.path.join(d, n), "rb") as f:
            lines.append("%s  %s\n" % (hashlib.md5(f.read()).hexdigest(), n))
    return "".join(lines).encode()


def cache_count(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == MAGIC, head
    return struct.unpack("<Q", head[16:24])[0]


class Base(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="merkle_cachesafe_")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def p(self, name):
        return os.path.join(self.dir, name)

    def merkle(self, args, cwd=None, env=None, timeout=120):
        e = dict(os.environ, **ENV)
        if env:
            e.update(env)
        p = subprocess.run([BIN] + args, cwd=cwd or self.dir, capture_output=True, env=e,
                           timeout=timeout)
        return p.returncode, p.stdout, p.stderr

    def data(self, n=5, size=3000, d=None, prefix="f"):
        d = d or self.dir
        names = ["%s%04d" % (prefix, i) for i in range(n)]
        past = time.time() - 100
        for k in names:
            with open(os.path.join(d, k), "wb") as f:
                f.write(os.urandom(size))
            os.utime(os.path.join(d, k), (past, past))
        with open(os.path.join(d, "SUMS"), "wb") as f:
            f.write(md5sums(d, names))
        time.sleep(0.02)
        return names


class TestRefused(Base):
    """--cache paths that are not caches: refused, exit 2, untouched, nothing checked."""

    def assert_refused(self, cache, before=None):
        rc, out, err = self.merkle(["check", "--cache", cache, "SUMS"], timeout=20)
        self.assertEqual(rc, 2, err)
        self.assertEqual(out, b"", "a file was checked before the refusal")
        self.assertIn(b"merkle check: ", err)
        self.assertIn(b"refus", err)
        return err

    def test_manifest_as_cache_is_untouched(self):
        self.data()
        with open(self.p("SUMS"), "rb") as f:
            sums = f.read()
        st = os.stat(self.p("SUMS"))
        err = self.assert_refused("SUMS")
        self.assertIn(b"not a merkle validation cache", err)
        with open(self.p("SUMS"), "rb") as f:
            self.assertEqual(f.read(), sums)
        self.assertEqual(os.stat(self.p("SUMS")).st_ino, st.st_ino)
        # the usual md5sum flow still works afterwards
        self.assertEqual(self.merkle(["check", "SUMS"])[0], 0)

    def test_other_files_refused(self):
        self.data()
        for content in (b"", b"garbage" * 10, b"MRKLVC", b"#!/bin/sh\necho hi\n"):
            with open(self.p("thing"), "wb") as f:
                f.write(content)
            self.assert_refused("thing")
            with open(self.p("thing"), "rb") as f:
                self.assertEqual(f.read(), content)

    def test_newer_version_refused(self):
        self.data()
        self.assertEqual(self.merkle(["check", "--cache", "cache", "SUMS"])[0], 0)
        with open(self.p("cache"), "rb") as f:
            good = f.read()
        newer = b"MRKLVC02" + good[8:]
        with open(self.p("cache"), "wb") as f:
            f.write(newer)
        err = self.assert_refused("cache")
        self.assertIn(b"newer", err)
        with open(self.p("cache"), "rb") as f:
            self.assertEqual(f.read(), newer)

    @skip_windows("a FIFO, a socket and a symbolic link given as the cache")
    def test_directory_fifo_socket_symlink(self):
        self.data()
        os.mkdir(self.p("dir"))
        self.assert_refused("dir")
        self.assertTrue(os.path.isdir(self.p("dir")))
        os.mkfifo(self.p("fifo"))
        self.assert_refused("fifo")  # must not block in open()
        self.assertTrue(stat.S_ISFIFO(os.lstat(self.p("fifo")).st_mode))
        s = socket.socket(socket.AF_UNIX)
        s.bind(self.p("sock"))
        try:
            self.assert_refused("sock")
            self.assertTrue(stat.S_ISSOCK(os.lstat(self.p("sock")).st_mode))
        finally:
            s.close()
        # a symlink is refused even when it points at a valid cache
        self.assertEqual(self.merkle(["check", "--cache", "real", "SUMS"])[0], 0)
        with open(self.p("real"), "rb") as f:
            real = f.read()
        os.symlink("real", self.p("link"))
        err = self.assert_refused("link")
        self.assertIn(b"symbolic link", err)
        self.assertTrue(os.path.islink(self.p("link")))
        with open(self.p("real"), "rb") as f:
            self.assertEqual(f.read(), real)
        # a dangling symlink too: nothing is created at its target
        os.symlink("nowhere", self.p("dangling"))
        self.assert_refused("dangling")
        self.assertFalse(os.path.exists(self.p("nowhere")))

    @skip_windows("a device node given as the cache")
    @unittest.skipUnless(os.geteuid() == 0, "mknod needs root")
    def test_device_node(self):
        self.data()
        os.mknod(self.p("null"), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        self.assert_refused("null")
        self.assertTrue(stat.S_ISCHR(os.lstat(self.p("null")).st_mode))
        if os.path.exists("/dev/null"):
            rc, out, err = self.merkle(["check", "--cache", "/dev/null", "SUMS"], timeout=20)
            self.assertEqual(rc, 2)
            self.assertTrue(stat.S_ISCHR(os.lstat("/dev/null").st_mode))


class TestSave(Base):
    def test_corrupt_cache_is_replaced_with_warning(self):
        self.data()
        self.assertEqual(self.merkle(["check", "--cache", "cache", "SUMS"])[0], 0)
        with open(self.p("cache"), "rb") as f:
            good = f.read()
        for bad in (good[:len(good) // 2], good[:-1] + bytes([good[-1] ^ 1]), MAGIC + b"x"):
            with open(self.p("cache"), "wb") as f:
                f.write(bad)
            rc, out, err = self.merkle(["check", "--cache", "cache", "SUMS"])
            self.assertEqual(rc, 0)
            self.assertIn(b"ignoring validation cache", err)
            self.assertEqual(cache_count(self.p("cache")), 5)

    def test_no_temporaries_left_and_unique_names(self):
        self.data()
        for _ in range(3):
            self.assertEqual(self.merkle(["check", "--cache", "cache", "SUMS"])[0], 0)
            with open(self.p("f0000"), "ab") as f:
                f.write(b"x")
            with open(self.p("SUMS"), "wb") as f:
                f.write(md5sums(self.dir, ["f%04d" % i for i in range(5)]))
        left = sorted(n for n in os.listdir(self.dir) if n.startswith("f") is False)
        self.assertEqual(left, ["SUMS", "cache"])

    def test_stale_temporaries_removed(self):
        """What a writer killed mid-save (old naming or ours) left is cleaned under the lock."""
        self.data()
        self.assertEqual(self.merkle(["check", "--cache", "cache", "SUMS"])[0], 0)
        with open(self.p("cache"), "rb") as f:
            good = f.read()
        for n, content in ((".cache.merkle-tmp-AbCdEf", good[:100]), (".cache.merkle-tmp-000000", b"")):
            with open(self.p(n), "wb") as f:
                f.write(content)
        # not ours: another program's file with a similar name stays
        with open(self.p(".cache.merkle-tmp-other"), "wb") as f:
            f.write(b"user data")
        with open(self.p("f0001"), "ab") as f:
            f.write(b"x")  # something to record: the save runs
        self.merkle(["check", "--cache", "cache", "SUMS"])
        names = set(os.listdir(self.dir))
        self.assertNotIn(".cache.merkle-tmp-AbCdEf", names)
        self.assertNotIn(".cache.merkle-tmp-000000", names)
        self.assertIn(".cache.merkle-tmp-other", names)

    def test_concurrent_runs_merge(self):
        """Two checks of disjoint manifests into one cache: every verified entry survives."""
        a = self.data(750, 64, prefix="a")
        os.rename(self.p("SUMS"), self.p("SUMS.a"))
        b = self.data(750, 64, prefix="b")
        os.rename(self.p("SUMS"), self.p("SUMS.b"))
        for rnd in range(3):
            if os.path.exists(self.p("cache")):
                os.unlink(self.p("cache"))
            e = dict(os.environ, **ENV)
            procs = [subprocess.Popen([BIN, "check", "--quiet", "--cache", "cache", s], cwd=self.dir,
                                      env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                     for s in ("SUMS.a", "SUMS.b")]
            for pr in procs:
                out, err = pr.communicate(timeout=120)
                self.assertEqual(pr.returncode, 0, err)
            self.assertEqual(cache_count(self.p("cache")), 1500, "round %d" % rnd)
        # and both answer from the cache
        for s in ("SUMS.a", "SUMS.b"):
            self.assertEqual(self.merkle(["check", "--cache", "cache", s])[0], 0)
        self.assertEqual(cache_count(self.p("cache")), 1500)

    def test_kill_during_save_never_tears(self):
        """kill -9 at random moments of runs that save: the cache always loads (old or new),
        and after one clean save no temporary is left."""
        import random
        names = self.data(3000, 16)
        rng = random.Random(7)
        e = dict(os.environ, **ENV)
        for i in range(20):
            # change a few files so that every run has something to save
            for k in rng.sample(names, 5):
                with open(self.p(k), "wb") as f:
                    f.write(os.urandom(16))
            pr = subprocess.Popen([BIN, "check", "--status", "--cache", "cache", "SUMS"], cwd=self.dir,
                                  env=e, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            time.sleep(rng.uniform(0.0, 0.15))
            pr.kill()
            pr.communicate()
            if os.path.exists(self.p("cache")):
                rc, out, err = self.merkle(["check", "--status", "--cache", "cache", "SUMS"])
                self.assertNotIn(b"ignoring validation cache", err, "torn cache after a kill")
                self.assertNotIn(b"refusing", err)
        with open(self.p("SUMS"), "wb") as f:
            f.write(md5sums(self.dir, names))
        with open(self.p(names[0]), "ab") as f:
            f.write(b"x")
        self.merkle(["check", "--status", "--cache", "cache", "SUMS"])
        left = [n for n in os.listdir(self.dir) if "tmp" in n]
        self.assertEqual(left, [])

    @skip_windows("the cache's permission bits (mode 0600) kept")
    def test_mode_kept(self):
        self.data()
        self.assertEqual(self.merkle(["check", "--cache", "cache", "SUMS"])[0], 0)
        self.assertEqual(stat.S_IMODE(os.stat(self.p("cache")).st_mode), 0o600)
        os.chmod(self.p("cache"), 0o644)
        with open(self.p("f0002"), "ab") as f:
            f.write(b"x")
        with open(self.p("SUMS"), "wb") as f:
            f.write(md5sums(self.dir, ["f%04d" % i for i in range(5)]))
        ino = os.stat(self.p("cache")).st_ino
        self.assertEqual(self.merkle(["check", "--cache", "cache", "SUMS"])[0], 0)
        st = os.stat(self.p("cache"))
        self.assertNotEqual(st.st_ino, ino, "not rewritten")
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o644)

    @skip_windows("owners and a run as another user (setpriv)")
    @unittest.skipUnless(os.geteuid() == 0 and shutil.which("setpriv"), "needs root and setpriv")
    def test_owner_kept_and_foreign_cache(self):
        """A root run leaves a user's unkeyed cache alone (owner and all); a user's run trusts
        nothing a root cache says about a file the user cannot read."""
        os.chmod(self.dir, 0o777)
        self.data()
        nobody = 65534
        # The user must reach the binary and the library beside it (RUNPATH $ORIGIN): a copy of
        # both in a directory anyone may enter (the build tree may sit in a private one).
        bindir = tempfile.mkdtemp(prefix="merkle_bin_")
        self.addCleanup(shutil.rmtree, bindir, True)
        os.chmod(bindir, 0o755)
        shutil.copy2(BIN, bindir)
        lib = os.path.join(os.path.dirname(os.path.abspath(BIN)), "libmerkle.so.1")
        if os.path.exists(lib):
            shutil.copy2(os.path.realpath(lib), os.path.join(bindir, "libmerkle.so.1"))
        userbin = os.path.join(bindir, os.path.basename(BIN))
        asuser = ["setpriv", "--reuid=%d" % nobody, "--regid=%d" % nobody, "--clear-groups",
                  userbin]
        e = dict(os.environ, **ENV)
        r = subprocess.run(asuser + ["check", "--cache", "cache", "SUMS"], cwd=self.dir, env=e,
                           capture_output=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(os.stat(self.p("cache")).st_uid, nobody)
        with open(self.p("f0003"), "ab") as f:
            f.write(b"x")
        with open(self.p("SUMS"), "wb") as f:
            f.write(md5sums(self.dir, ["f%04d" % i for i in range(5)]))
        # root does not trust (nor rewrite) an unkeyed cache of another user (issue 23 item 2)
        rc, _, err = self.merkle(["check", "--cache", "cache", "SUMS"])
        self.assertEqual(rc, 0, err)
        self.assertIn(b"root does not trust it", err)
        st = os.stat(self.p("cache"))
        self.assertEqual((st.st_uid, st.st_gid), (nobody, nobody))
        # now a root-owned cache, readable by all, vouching for a file nobody cannot read
        os.unlink(self.p("cache"))
        self.assertEqual(self.merkle(["check", "--cache", "cache", "SUMS"])[0], 0)
        os.chmod(self.p("cache"), 0o644)
        os.chmod(self.p("f0004"), 0o600)
        st = os.stat(self.p("f0004"))
        os.utime(self.p("f0004"), ns=(st.st_atime_ns, st.st_mtime_ns))
        self.assertEqual(self.merkle(["check", "--cache", "cache", "SUMS"])[0], 0)
        r = subprocess.run(asuser + ["check", "--cache", "cache", "SUMS"], cwd=self.dir, env=e,
                           capture_output=True)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(b"f0004: FAILED open or read", r.stdout)
        self.assertEqual(os.stat(self.p("cache")).st_uid, 0, "a user run took over root's cache")


class TestFullDisk(Base):
    @skip_windows("a full file system mounted by root")
    @unittest.skipUnless(os.geteuid() == 0, "mounting needs root")
    def test_disk_full_keeps_result_and_old_cache(self):
        mnt = self.p("mnt")
        os.mkdir(mnt)
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", mnt],
                          capture_output=True).returncode != 0:
            self.skipTest("cannot mount tmpfs here")
        try:
            names = self.data(20, 100)
            cache = os.path.join(mnt, "cache")
            self.assertEqual(self.merkle(["check", "--cache", cache, "SUMS"])[0], 0)
            with open(cache, "rb") as f:
                old = f.read()
            # fill the file system
            fd = os.open(os.path.join(mnt, "fill"), os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                while True:
                    os.write(fd, b"\0" * 4096)
            except OSError:
                pass
            os.close(fd)
            # more entries to save (new names), and one mismatch: the status must stand
            more = self.data(200, 100, prefix="g")
            with open(self.p("SUMS"), "ab") as f:
                f.write(md5sums(self.dir, names))
            with open(self.p("g0000"), "ab") as f:
                f.write(b"x")
            rc, out, err = self.merkle(["check", "--cache", cache, "SUMS"])
            self.assertEqual(rc, 1)
            self.assertIn(b"g0000: FAILED", out)
            self.assertIn(b"could not write the validation cache", err)
            with open(cache, "rb") as f:
                self.assertEqual(f.read(), old)
            self.assertEqual(sorted(os.listdir(mnt)), ["cache", "fill"])
            del more
        finally:
            subprocess.run(["umount", mnt])

    def test_readonly_directory(self):
        if os.geteuid() == 0:
            self.skipTest("root writes anywhere")
        self.data()
        os.mkdir(self.p("ro"))
        os.chmod(self.p("ro"), 0o555)
        rc, out, err = self.merkle(["check", "--cache", "ro/cache", "SUMS"])
        self.assertEqual(rc, 0)
        self.assertIn(b"could not write the validation cache", err)


class TestRacy(Base):
    """A file rewritten, same size, within the timestamp tick in which it was verified."""

    @unittest.skipUnless(os.geteuid() == 0 and shutil.which("mkfs.ext4"), "needs root and mkfs.ext4")
    def test_one_second_timestamps_ext4(self):
        img = self.p("img")
        with open(img, "wb") as f:
            f.truncate(16 << 20)
        if subprocess.run(["mkfs.ext4", "-q", "-F", "-I", "128", img], capture_output=True).returncode:
            self.skipTest("mkfs.ext4 failed")
        mnt = self.p("mnt")
        os.mkdir(mnt)
        if subprocess.run(["mount", "-o", "loop", img, mnt], capture_output=True).returncode:
            self.skipTest("cannot loop-mount here")
        try:
            failures = 0
            for attempt in range(3):
                f = os.path.join(mnt, "data")
                # start just after a second boundary, so that verify + rewrite share the second
                t = time.time()
                time.sleep(1.02 - (t - int(t)))
                with open(f, "wb") as fh:
                    fh.write(b"A" * 1000)
                with open(os.path.join(mnt, "SUMS"), "wb") as fh:
                    fh.write(md5sums(mnt, ["data"]))
                self.assertEqual(os.stat(f).st_mtime_ns % 1000000000, 0, "not a 1-second file system")
                sec = int(time.time())
                rc, _, err = self.merkle(["check", "--cache", "cache", "SUMS"], cwd=mnt)
                self.assertEqual(rc, 0, err)
                with open(f, "r+b") as fh:
                    fh.write(b"B")
                if int(time.time()) != sec:
                    continue  # the second turned: try again
                rc, out, _ = self.merkle(["check", "--cache", "cache", "SUMS"], cwd=mnt)
                self.assertEqual(rc, 1, "false OK for a file rewritten within its verification second")
                self.assertIn(b"data: FAILED", out)
                failures += 1
                os.unlink(os.path.join(mnt, "cache"))
            if not failures:
                self.skipTest("machine too slow to stay within one second")
        finally:
            subprocess.run(["umount", mnt])

    def test_mmap_store_residual_case(self):
        """Documented residual case (docs/manifest.md, threat model): a store through a shared
        writable mapping to a page that is already dirty does not update mtime/ctime, so a cached
        OK can stand for content that changed that way. This asserts the documented behaviour."""
        import mmap
        names = self.data(1, 8192)
        path = self.p(names[0])
        fd = os.open(path, os.O_RDWR)
        try:
            m = mmap.mmap(fd, 8192, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
            m[0:1] = m[0:1]  # dirty the page: this store updates the timestamps
            m.flush()
            time.sleep(0.05)
            self.assertEqual(self.merkle(["check", "--cache", "cache", "SUMS"])[0], 0)
            st = os.stat(path)
            m[1:2] = bytes([m[1] ^ 0xFF])  # the page may still be dirty: no timestamp update
            st2 = os.stat(path)
            rc, out, _ = self.merkle(["check", "--cache", "cache", "SUMS"])
            if (st2.st_mtime_ns, st2.st_ctime_ns) == (st.st_mtime_ns, st.st_ctime_ns):
                self.assertEqual(rc, 0, "documented: cached OK stands when no timestamp moved")
                self.assertEqual(self.merkle(["check", "SUMS"])[0], 1)  # without the cache: FAILED
            else:
                self.assertEqual(rc, 1)
            m.close()
        finally:
            os.close(fd)


class TestBoundedReads(Base):
    def test_key_dev_zero_and_large(self):
        self.data()
        rc, _, err = self.merkle(["check", "--cache", "cache", "--cache-key", "/dev/zero", "SUMS"],
                                 timeout=20)
        self.assertEqual(rc, 2)
        self.assertIn(b"cache key", err)
        with open(self.p("bigkey"), "wb") as f:
            f.truncate(2 << 20)
        rc, _, err = self.merkle(["check", "--cache", "cache", "--cache-key", "bigkey", "SUMS"])
        self.assertEqual(rc, 2)
        self.assertIn(b"too large", err)
        self.assertFalse(os.path.exists(self.p("cache")))

    def test_cat_dev_zero_bounded(self):
        os.symlink("/dev/zero", self.p("z"))
        with open(self.p("SUMS"), "wb") as f:
            f.write(b"%s  z\n" % hashlib.md5(b"").hexdigest().encode())
        rc, out, err = self.merkle(["cat", "-m", "SUMS", "z"], timeout=20)
        self.assertEqual(rc, 1)
        self.assertEqual(out, b"")
        self.assertIn(b"not a regular file", err)

    def test_long_name_memory_linear(self):
        """A 50 MiB name: peak RSS stays within a small multiple of the manifest."""
        name = b"n" * (50 << 20)
        with open(self.p("SUMS"), "wb") as f:
            f.write(b"d41d8cd98f00b204e9800998ecf8427e  " + name + b"\n")
        r = subprocess.run(["/usr/bin/time", "-f", "%M", BIN, "check", "SUMS"], cwd=self.dir,
                           capture_output=True, env=dict(os.environ, **ENV), timeout=120)
        self.assertEqual(r.returncode, 1)
        peak_kib = int(r.stderr.strip().split(b"\n")[-1])
        self.assertLess(peak_kib, 512 * 1024, "peak RSS %d KiB for a 50 MiB name" % peak_kib)


class TestCat(Base):
    def test_cat_outputs_verified_bytes(self):
        names = self.data(3, 100000)
        for n in names:
            rc, out, err = self.merkle(["cat", "-m", "SUMS", n])
            self.assertEqual(rc, 0, err)
            with open(self.p(n), "rb") as f:
                self.assertEqual(out, f.read())
        # sha256 list, a file in a subdirectory, manifest given with --manifest
        os.mkdir(self.p("sub"))
        with open(self.p("sub/x"), "wb") as f:
            f.write(b"hello\n")
        with open(self.p("S256"), "wb") as f:
            f.write(b"%s  sub/x\n" % hashlib.sha256(b"hello\n").hexdigest().encode())
        self.assertEqual(self.merkle(["cat", "--manifest", "S256", "sub/x"])[:2], (0, b"hello\n"))

    def test_cat_mismatch_no_output(self):
        names = self.data(1, 300000)
        # flip the last byte: writing a fixed byte left the file unchanged 1 time in 256
        with open(self.p(names[0]), "r+b") as f:
            f.seek(299999)
            b = f.read(1)
            f.seek(299999)
            f.write(bytes([b[0] ^ 0xFF]))
        rc, out, err = self.merkle(["cat", "-m", "SUMS", names[0]])
        self.assertEqual(rc, 1)
        self.assertEqual(out, b"")
        self.assertIn(b"do not match", err)

    def test_cat_errors(self):
        self.data(1)
        self.assertEqual(self.merkle(["cat", "-m", "SUMS", "nothere"])[0], 1)
        self.assertEqual(self.merkle(["cat", "-m", "nomanifest", "f0000"])[0], 1)
        self.assertEqual(self.merkle(["cat", "f0000"])[0], 2)
        self.assertEqual(self.merkle(["cat", "-m", "SUMS"])[0], 2)
        os.unlink(self.p("f0000"))
        rc, out, err = self.merkle(["cat", "-m", "SUMS", "f0000"])
        self.assertEqual((rc, out), (1, b""))
        self.assertIn(b"No such file", err)


class TestCoreutilsContract(Base):
    def test_b2sum_length_with_check(self):
        with open(self.p("a"), "wb") as f:
            f.write(b"abc")
        s = subprocess.run(["b2sum", "-l", "256", "a"], cwd=self.dir, capture_output=True).stdout
        with open(self.p("B"), "wb") as f:
            f.write(s)
        rc, out, err = self.merkle(["check", "-a", "blake2b", "-l", "256", "B"])
        self.assertEqual((rc, out), (0, b"a: OK\n"), err)
        rc, out, err = self.merkle(["sum", "-a", "blake2b", "-l", "256", "-c", "B"])
        self.assertEqual((rc, out), (0, b"a: OK\n"), err)

    def test_version_exits_zero(self):
        for sub in ("sum", "check"):
            rc, out, err = self.merkle([sub, "--version"])
            self.assertEqual(rc, 0, err)
            self.assertIn(b"merkle", out)

    def test_usage_errors_exit_one(self):
        with open(self.p("x"), "wb") as f:
            f.write(b"x")
        cases = [(["sum", "--ignore-missing", "x"], "md5sum"), (["sum", "--tag", "-c", "x"], "md5sum"),
                 (["sum", "-c", "-z", "x"], None), (["sum", "-a", "blake2b", "-l", "12", "x"], "b2sum"),
                 (["sum", "--bogus", "x"], "md5sum"), (["check", "--bogus", "x"], None)]
        for args, peer in cases:
            rc, out, err = self.merkle(args)
            self.assertEqual(rc, 1, (args, err))
            if peer:
                targs = args[1:]
                targs = [a for i, a in enumerate(targs) if not (a == "-a" or (i and targs[i - 1] == "-a"))]
                t = subprocess.run([peer] + targs, cwd=self.dir, capture_output=True,
                                   env=dict(os.environ, **ENV))
                self.assertEqual(t.returncode, 1)
                self.assertEqual(err.split(b"\n")[0].split(b":", 1)[1],
                                 t.stderr.split(b"\n")[0].split(b":", 1)[1], args)

    def test_sum_check_hint_and_b2sum_list_autodetect(self):
        with open(self.p("a"), "wb") as f:
            f.write(b"abc")
        s = subprocess.run(["b2sum", "a"], cwd=self.dir, capture_output=True).stdout
        with open(self.p("B"), "wb") as f:
            f.write(s)
        rc, out, err = self.merkle(["check", "B"])
        self.assertEqual((rc, out), (0, b"a: OK\n"), err)
        self.assertIn(b"BLAKE2b", err)
        self.assertEqual(err.count(b"BLAKE2b"), 1)


if __name__ == "__main__":
    unittest.main()
