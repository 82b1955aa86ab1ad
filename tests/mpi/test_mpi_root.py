# SPDX-License-Identifier: MIT OR Apache-2.0
"""`merkle root --mpi` under mpirun: the roots equal the single-process `merkle root` (and the
peers' stream vectors), and a failure on any rank reaches rank 0 and the exit status without a
hang. Run by ctest only in a -DMERKLE_MPI=ON build; env MERKLE_BIN (the MPI-enabled binary),
MERKLE_MPIEXEC (mpirun) and MERKLE_MPI_NP (ranks, default 2)."""
import collections
import hashlib
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from cliutil import BIN, counter_bytes, run, vectors  # noqa: E402

MPIEXEC = os.environ.get("MERKLE_MPIEXEC", "mpirun")
NP = int(os.environ.get("MERKLE_MPI_NP", "2"))
TIMEOUT = 120  # a hang is a failure, not a stuck CI

SIZES = [0, 1, 63, 64, 65, 4097, (1 << 20) + 3, (1 << 25) + 1]
LEAF_SIZES = [64, 1000, 4096]


def mpi_flags():
    """Open MPI refuses root and more ranks than cores unless told. It also waits a second
    (odls_base_sigkill_timeout) before ending a job any of whose ranks exited non-zero, which
    most of these runs do on purpose: with the wait, the MPI tests took 80 s instead of 25 s
    on 2 cores. The ranks have all returned by then, so nothing is cut short."""
    p = subprocess.run([MPIEXEC, "--version"], capture_output=True, timeout=60)
    text = p.stdout + p.stderr
    if b"Open MPI" in text or b"OpenRTE" in text or b"open-mpi.org" in text:
        return ["--allow-run-as-root", "--oversubscribe", "--mca", "odls_base_sigkill_timeout", "0"]
    return []


FLAGS = mpi_flags()


def mpirun(args, np=NP, stdin=b"", cwd=None, wrap=None):
    """Run `merkle ARGS` on np ranks; wrap, if given, is a shell command run per rank that
    ends by exec'ing "$MERKLE" "$@". Returns (rc, stdout, stderr)."""
    if wrap is None:
        cmd = [MPIEXEC] + FLAGS + ["-np", str(np), BIN] + list(args)
    else:
        cmd = [MPIEXEC] + FLAGS + ["-np", str(np), "-x", "MERKLE=" + BIN, "sh", "-c", wrap,
                                   "sh"] + list(args)
    p = subprocess.run(cmd, input=stdin, capture_output=True, cwd=cwd, timeout=TIMEOUT)
    return p.returncode, p.stdout, p.stderr


def merkle_lines(err):
    """merkle's own messages (mpirun adds its banner about the non-zero exit)."""
    return [l for l in err.decode(errors="replace").splitlines() if l.startswith("merkle")]


class MpiRoot(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = cls.tmp.name
        rng = random.Random(6)
        cls.files = []
        for size in SIZES:
            path = os.path.join(cls.dir, "f%d" % size)
            with open(path, "wb") as f:
                f.write(rng.randbytes(size))
            cls.files.append(path)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def check_same(self, opts, files, np=NP):
        rc1, want, err1 = run(["root"] + opts + files)
        self.assertEqual(rc1, 0, err1)
        rc, out, err = mpirun(["root", "--mpi"] + opts + files, np=np)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.decode(), want.decode(), opts)
        self.assertEqual(merkle_lines(err), [])
        return out

    def test_sizes_leaf_sizes_profiles(self):
        for prof in ["rfc6962", "sia"]:
            for ls in LEAF_SIZES:
                self.check_same(["--profile", prof, "--leaf-size", str(ls)], self.files)

    def test_default_leaf_sizes_and_blake2b(self):
        small = self.files[:6]
        out = self.check_same([], small)
        # The empty file gives the profile's empty root.
        self.assertIn(hashlib.sha256(b"").hexdigest() + "  " + self.files[0], out.decode())
        out = self.check_same(["--profile", "sia"], small)
        self.assertIn("0" * 64 + "  " + self.files[0], out.decode())
        self.check_same(["--hash", "blake2b-256", "--leaf-size", "1"], small)

    def test_threads_per_rank(self):
        # Pieces of a few MiB: -j 3 really hashes the 32 MiB file on several threads per rank.
        self.check_same(["-j", "3", "--leaf-size", "1000"], self.files[6:])

    def test_more_ranks_than_leaves(self):
        self.check_same(["--leaf-size", "64"], self.files[:5], np=NP + 2)

    def test_peer_stream_vectors(self):
        """Sia merkletree / crypto.MerkleRoot ReaderRoot vectors, as files, through MPI."""
        groups = collections.defaultdict(list)
        for v in vectors()["vectors"]:
            if v["op"] != "reader_root" or v["expected"].get("error"):
                continue
            prof = "sia" if v["format"] == "sia-crypto-merkleroot" else "rfc6962"
            want = v["expected"]["root"]
            if want is None:  # merkletree's nil: our rfc6962 profile answers H("")
                want = hashlib.new("sha256" if v["hash"] == "sha256" else "blake2b", b"",
                                   **({} if v["hash"] == "sha256" else {"digest_size": 32})).hexdigest()
            groups[(prof, v["hash"], v["input"]["segment_size"])].append(
                (v["input"]["stream"]["len"], want))
        n = 0
        for (prof, hname, seg), cases in groups.items():
            names, wants = [], []
            for i, (length, want) in enumerate(cases):
                path = os.path.join(self.dir, "vec-%s-%s-%d-%d" % (prof, hname, seg, i))
                with open(path, "wb") as f:
                    f.write(counter_bytes(length))
                names.append(path)
                wants.append(want + "  " + path + "\n")
            rc, out, err = mpirun(["root", "--mpi", "--profile", prof, "--hash", hname,
                                   "--leaf-size", str(seg)] + names)
            self.assertEqual(rc, 0, err)
            self.assertEqual(out.decode(), "".join(wants), (prof, hname, seg))
            n += len(cases)
        self.assertGreater(n, 30)

    def test_stdin_and_leaves(self):
        data = random.Random(7).randbytes(100000)
        rc1, want, _ = run(["root", "--leaf-size", "1000"], data)
        rc, out, err = mpirun(["root", "--mpi", "--leaf-size", "1000"], stdin=data)
        self.assertEqual((rc, out), (0, want), err)
        rc, out, err = mpirun(["root", "--mpi", "--leaf-size", "1000", "-"], stdin=data)
        self.assertEqual((rc, out), (0, want), err)
        leaves = b"".join(("%x\n" % (i * 977)).rjust(9, "0").encode() for i in range(5000))
        path = os.path.join(self.dir, "leaves.txt")
        with open(path, "wb") as f:
            f.write(leaves)
        rc1, want, _ = run(["root", "--leaves", path])
        self.assertEqual(rc1, 0)
        rc, out, err = mpirun(["root", "--mpi", "--leaves", path])
        self.assertEqual((rc, out), (0, want), err)
        # A bad line in a leaf list: the same message and exit status as single-process.
        bad = os.path.join(self.dir, "bad.txt")
        with open(bad, "wb") as f:
            f.write(b"00\nzz\n")
        rc1, _, err1 = run(["root", "--leaves", bad])
        rc, out, err = mpirun(["root", "--mpi", "--leaves", bad])
        self.assertEqual((rc, out), (rc1, b""))
        self.assertEqual(merkle_lines(err), merkle_lines(err1))

    def test_escaped_names(self):
        path = os.path.join(self.dir, "we\\ird\nname")
        with open(path, "wb") as f:
            f.write(b"x" * 9000)
        out = self.check_same([], [path])
        self.assertTrue(out.startswith(b"\\"))

    def test_missing_file_and_directory(self):
        missing = os.path.join(self.dir, "missing")
        args = ["root", missing, self.files[5], self.dir]
        rc1, want, err1 = run(args)
        self.assertEqual(rc1, 1)
        rc, out, err = mpirun(["root", "--mpi"] + args[1:])
        self.assertEqual(rc, 1)
        self.assertEqual(out, want)  # the readable file is still printed
        self.assertEqual(merkle_lines(err), merkle_lines(err1))
        self.assertIn("No such file or directory", err.decode())

    def test_unreadable_file(self):
        if os.geteuid() == 0:
            self.skipTest("root reads any file")
        path = os.path.join(self.dir, "noread")
        with open(path, "wb") as f:
            f.write(b"a" * 100000)
        os.chmod(path, 0)
        rc, out, err = mpirun(["root", "--mpi", path])
        self.assertEqual((rc, out), (1, b""))
        self.assertIn("Permission denied", err.decode())

    def test_file_missing_on_one_rank(self):
        """Ranks run in per-rank directories: the last rank lacks the file, or has a short
        copy. Rank 0 reports the failing rank's error; every rank exits 1; no hang."""
        work = tempfile.mkdtemp(dir=self.dir)
        last = NP - 1
        src = self.files[6]  # 2^20 + 3 bytes: every rank has leaves at leaf size 64
        for r in range(NP):
            os.mkdir(os.path.join(work, "r%d" % r))
            if r != last:
                shutil.copy(src, os.path.join(work, "r%d" % r, "data"))
            shutil.copy(self.files[5], os.path.join(work, "r%d" % r, "ok"))
        wrap = 'cd "r${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}" && exec "$MERKLE" "$@"'
        args = ["root", "--mpi", "--leaf-size", "64", "ok", "data", "ok"]
        rc, out, err = mpirun(args, cwd=work, wrap=wrap)
        _, want_ok, _ = run(["root", "--leaf-size", "64", self.files[5]])
        line = want_ok.decode().split()[0] + "  ok\n"
        self.assertEqual(rc, 1, err)
        self.assertEqual(out.decode(), line + line)
        msgs = merkle_lines(err)
        self.assertEqual(len(msgs), 1, err)
        self.assertRegex(msgs[0], r"^merkle: data: No such file or directory \(rank %d on .+\)$"
                         % last)
        # A copy that is shorter on the last rank than rank 0 saw.
        with open(src, "rb") as f:
            head = f.read(1000)
        with open(os.path.join(work, "r%d" % last, "data"), "wb") as f:
            f.write(head)
        rc, out, err = mpirun(args, cwd=work, wrap=wrap)
        self.assertEqual(rc, 1, err)
        self.assertEqual(out.decode(), line + line)
        msgs = merkle_lines(err)
        self.assertEqual(len(msgs), 1, err)
        self.assertIn("data: file shrank while it was being read", msgs[0])
        self.assertIn("(rank %d on " % last, msgs[0])

    def test_usage_error(self):
        rc, out, err = mpirun(["root", "--mpi", "--profile", "nope", self.files[1]])
        self.assertEqual((rc, out), (2, b""))
        self.assertIn("unknown profile", err.decode())


if __name__ == "__main__":
    unittest.main(verbosity=2)
