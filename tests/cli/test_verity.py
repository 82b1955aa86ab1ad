# SPDX-License-Identifier: MIT OR Apache-2.0
"""CLI tests for merkle root --profile fsverity / dm-verity against the real tools: the line
`fsverity digest` prints (Debian fsverity), the root hash `veritysetup format` prints and its
acceptance by `veritysetup verify` of the --hash-tree file (Debian cryptsetup-bin), for
several sizes, block sizes and salts; and the usage errors. Exits 77 when neither tool is
installed (a class whose tool is absent is skipped)."""
import os
import random
import re
import shutil
import subprocess
import sys
import unittest

from cliutil import TempDirCase, run

FSVERITY = shutil.which("fsverity")
VERITYSETUP = shutil.which("veritysetup") or (os.path.exists("/usr/sbin/veritysetup")
                                             and "/usr/sbin/veritysetup")


def data(n, seed):
    rng = random.Random(seed)
    return bytes(rng.randrange(256) for _ in range(n))


@unittest.skipUnless(FSVERITY, "fsverity (Debian package fsverity) is not installed")
class FsVerity(TempDirCase):
    def test_digest_equals_fsverity(self):
        for i, (n, bs, salt) in enumerate([(0, None, None), (1, None, None), (4096, None, None),
                                           (4097, None, None), (100000, None, "0102"),
                                           (300000, 1024, "ab" * 32), (70000, 65536, None),
                                           (5000, 2048, "00")]):
            f = self.path("f%d.bin" % i, data(n, i))
            args = ["--profile", "fsverity"]
            targs = [FSVERITY, "digest"]
            if bs:
                args += ["--block-size", str(bs)]
                targs.append("--block-size=%d" % bs)
            if salt:
                args += ["--salt", salt]
                targs.append("--salt=%s" % salt)
            rc, out, err = run(["root"] + args + [f])
            self.assertEqual(rc, 0, err)
            want = subprocess.run(targs + [f], capture_output=True, check=True).stdout
            self.assertEqual(out, want, (n, bs, salt))

    def test_errors(self):
        f = self.path("f.bin", b"abc")
        for extra, what in ((["--block-size", "512"], b"block size"),
                            (["--block-size", "3000"], b"block size"),
                            (["--salt", "00" * 33], b"salt"), (["--salt", "zz"], b"salt")):
            rc, _, err = run(["root", "--profile", "fsverity", f] + extra)
            self.assertEqual(rc, 1, extra)
            self.assertIn(what, err, extra)
        for extra in (["--hash-tree", os.path.join(self.dir, "t")], ["--leaves"],
                      ["--leaf-size", "10"], ["--hash", "blake2b-256"]):
            rc, _, err = run(["root", "--profile", "fsverity", f] + extra)
            self.assertEqual(rc, 2, extra)
        rc, _, err = run(["root", "--salt", "00", f])
        self.assertEqual(rc, 2)
        self.assertIn(b"fsverity and dm-verity", err)
        rc, _, _ = run(["proof", "--profile", "fsverity", "--index", "0", f])
        self.assertEqual(rc, 2)


@unittest.skipUnless(VERITYSETUP, "veritysetup (Debian package cryptsetup-bin) is not installed")
class DmVerity(TempDirCase):
    def format_root(self, f, bs, salt):
        h = os.path.join(self.dir, "vs.hash")
        if os.path.exists(h):
            os.unlink(h)
        out = subprocess.run([VERITYSETUP, "format", "--data-block-size=%d" % bs,
                              "--hash-block-size=%d" % bs, "--salt=%s" % salt, f, h],
                             capture_output=True, check=True).stdout.decode()
        return re.search(r"Root hash:\s*([0-9a-f]{64})", out).group(1)

    def test_root_and_hash_tree(self):
        for i, (n, bs, salt) in enumerate([(4096, 4096, "00"), (40960, 4096, "0011223344"),
                                           (10000, 4096, "ab" * 32), (512 * 300, 512, "aabb"),
                                           (512 * 5000, 512, "77" * 100), (1 << 20, 4096, "01")]):
            f = self.path("d%d.bin" % i, data(n, 100 + i))
            want = self.format_root(f, bs, salt)
            out_tree = os.path.join(self.dir, "t%d.hash" % i)
            rc, out, err = run(["root", "--profile", "dm-verity", "--block-size", str(bs), "--salt",
                                salt, "--hash-tree", out_tree, f])
            self.assertEqual(rc, 0, err)
            self.assertEqual(out.decode(), "%s  %s\n" % (want, f), (n, bs))
            self.assertEqual(b"not covered" in err, n % bs != 0)
            ok = subprocess.run([VERITYSETUP, "verify", f, out_tree, want], capture_output=True)
            self.assertEqual(ok.returncode, 0, ok.stderr)
            bad = want[:-1] + ("0" if want[-1] != "0" else "1")
            ok = subprocess.run([VERITYSETUP, "verify", f, out_tree, bad], capture_output=True)
            self.assertNotEqual(ok.returncode, 0)

    def test_errors(self):
        f = self.path("d.bin", b"x" * 100)
        rc, _, err = run(["root", "--profile", "dm-verity", f])
        self.assertEqual(rc, 1)
        self.assertIn(b"whole block", err)
        g = self.path("g.bin", b"x" * 8192)
        existing = self.path("exists", b"keep me")
        rc, _, err = run(["root", "--profile", "dm-verity", "--hash-tree", existing, g])
        self.assertEqual(rc, 1)
        self.assertIn(b"never writes over", err)
        with open(existing, "rb") as fh:
            self.assertEqual(fh.read(), b"keep me")
        rc, _, err = run(["root", "--profile", "dm-verity", "--hash-tree",
                          os.path.join(self.dir, "t"), g, g])
        self.assertEqual(rc, 2)
        rc, _, err = run(["root", "--profile", "dm-verity", "--block-size", "256", g])
        self.assertEqual(rc, 1)


if __name__ == "__main__":
    if not FSVERITY and not VERITYSETUP:
        print("SKIP: neither fsverity nor veritysetup is installed "
              "(apt-get install fsverity cryptsetup-bin)")
        sys.exit(77)
    unittest.main()
