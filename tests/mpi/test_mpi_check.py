# SPDX-License-Identifier: MIT OR Apache-2.0
"""`merkle check --mpi` under mpirun: stdout, merkle's stderr lines and the exit status equal
single-process `merkle check` for the same manifests and directory state (awkward names,
modified, missing and malformed entries, every reporting option, a manifest on stdin, the
validation cache), and a file missing on one rank only is reported without a hang. Env as
test_mpi_root.py."""
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from cliutil import BIN, run  # noqa: E402
from test_mpi_root import NP, merkle_lines, mpirun  # noqa: E402

NAMES = ["plain", "with space", "back\\slash", "new\nline", "*star", "sub/deep/x.bin",
         "sub/caf\xe9", "empty"]


class MpiCheck(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = cls.tmp.name
        rng = random.Random(9)
        names = list(NAMES) + ["f%03d" % i for i in range(60)]
        cls.names = names
        for n in names:
            path = os.path.join(cls.dir, n)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            size = 0 if n == "empty" else int(2 ** rng.uniform(0, 21))
            with open(path, "wb") as f:
                f.write(rng.randbytes(size))
        for tool, man in (("md5sum", "all.md5"), ("sha256sum", "all.sha256"),
                          ("b2sum", "all.b2")):
            out = subprocess.run([tool, "--"] + names, cwd=cls.dir, capture_output=True,
                                 check=True).stdout
            with open(os.path.join(cls.dir, man), "wb") as f:
                f.write(out)
        # A broken manifest: a malformed line, a missing file, then a modified file.
        with open(os.path.join(cls.dir, "all.md5"), "rb") as f:
            text = f.read()
        with open(os.path.join(cls.dir, "broken.md5"), "wb") as f:
            f.write(text + b"not a checksum line\n" +
                    b"0123456789abcdef0123456789abcdef  gone\n")
        with open(os.path.join(cls.dir, "f007"), "ab") as f:
            f.write(b"!")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def same(self, args, stdin=b"", np=NP):
        rc1, out1, err1 = run(["check"] + args, stdin, cwd=self.dir)
        rc, out, err = mpirun(["check", "--mpi"] + args, np=np, stdin=stdin, cwd=self.dir)
        self.assertEqual(out.decode(errors="replace"), out1.decode(errors="replace"), args)
        self.assertEqual(merkle_lines(err), merkle_lines(err1), args)
        self.assertEqual(rc, rc1, (args, err))
        return rc, out

    def test_good_manifests(self):
        rc, out = self.same(["all.sha256", "all.b2"])
        self.assertEqual(rc, 1)  # f007 was modified after the sums
        self.assertIn(b"f007: FAILED", out)
        self.assertIn(b"\\new\\nline: OK", out)

    def test_options_and_broken_manifest(self):
        for opts in ([], ["--quiet"], ["--status"], ["-w"], ["--strict"], ["--ignore-missing"],
                     ["-w", "--strict", "--ignore-missing"], ["-j", "2"], ["-a", "md5"]):
            self.same(opts + ["broken.md5"])

    def test_stdin_and_missing_manifest(self):
        with open(os.path.join(self.dir, "all.md5"), "rb") as f:
            text = f.read()
        self.same([], stdin=text)
        self.same(["-", "all.sha256"], stdin=text)
        rc, _ = self.same(["no-such.md5", "all.b2"])
        self.assertEqual(rc, 1)

    def test_more_ranks_than_files(self):
        small = os.path.join(self.dir, "one.md5")
        with open(small, "wb") as f:
            f.write(subprocess.run(["md5sum", "plain"], cwd=self.dir, capture_output=True,
                                   check=True).stdout)
        rc, out = self.same(["one.md5"], np=NP + 2)
        self.assertEqual((rc, out), (0, b"plain: OK\n"))

    def test_cache(self):
        cache = os.path.join(self.dir, "mpi.cache")
        single = os.path.join(self.dir, "single.cache")
        args = ["--cache", cache, "all.sha256"]
        rc, out, err = mpirun(["check", "--mpi"] + args, cwd=self.dir)
        first = (rc, out)
        rc1, out1, err1 = run(["check", "--cache", single, "all.sha256"], cwd=self.dir)
        self.assertEqual(first, (rc1, out1))
        self.assertEqual(merkle_lines(err), merkle_lines(err1))
        # Files verified by other ranks are recorded as well as rank 0's: the cache that
        # the MPI run wrote holds as many entries (bytes) as the single-process one.
        self.assertEqual(os.path.getsize(cache), os.path.getsize(single))
        # A second run answers from the cache with the same output.
        rc, out, err = mpirun(["check", "--mpi"] + args, cwd=self.dir)
        self.assertEqual((rc, out), first, err)
        # A file changed after it was cached is re-hashed: FAILED, not a stale OK.
        path = os.path.join(self.dir, "f011")
        st = os.stat(path)
        with open(path, "r+b") as f:
            b = f.read(1)
            f.seek(0)
            f.write(bytes([b[0] ^ 1]) if b else b"")
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        rc, out, err = mpirun(["check", "--mpi"] + args, cwd=self.dir)
        self.assertEqual(rc, 1, err)
        self.assertIn(b"f011: FAILED", out)
        with open(path, "r+b") as f:  # restore for the other tests
            f.seek(0)
            f.write(b)

    def test_file_missing_on_one_rank(self):
        """Per-rank directories: the last rank lacks every file, so whatever it was given
        reads as missing there; rank 0 still prints in manifest order and exits 1."""
        work = tempfile.mkdtemp(dir=self.dir)
        last = NP - 1
        for r in range(NP):
            d = os.path.join(work, "r%d" % r)
            if r != last:
                shutil.copytree(self.dir, d, ignore=shutil.ignore_patterns("tmp*"))
            else:
                os.mkdir(d)
        man = os.path.join(self.dir, "all.sha256")
        wrap = 'cd "r${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}" && exec "$MERKLE" "$@"'
        rc, out, err = mpirun(["check", "--mpi", man], cwd=work, wrap=wrap)
        self.assertEqual(rc, 1, err)
        lines = out.decode(errors="replace").splitlines()
        self.assertEqual(len(lines), len(self.names))
        self.assertTrue(any(l.endswith(": FAILED open or read") for l in lines), out)
        self.assertTrue(any(l.endswith(": OK") for l in lines), out)
        self.assertIn("listed files could not be read", err.decode())


if __name__ == "__main__":
    unittest.main(verbosity=2)
