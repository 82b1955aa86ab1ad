# SPDX-License-Identifier: MIT OR Apache-2.0
"""End-to-end tests of `merkle root`: vectors through the CLI, output format, stdin,
escaping, exit codes, and a streamed multi-GiB-class input in bounded memory."""
import hashlib
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import BIN, TempDirCase, counter_bytes, decimal_leaves, run, skip_windows, vectors  # noqa: E402

EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
# Under ASan/UBSan (scripts/test.sh sets MERKLE_SANITIZE=1) big inputs are scaled down.
SANITIZE = os.environ.get("MERKLE_SANITIZE") == "1"


def leaves_input(vec_leaves):
    if vec_leaves["gen"] == "decimal":
        items = decimal_leaves(vec_leaves["n"])
    else:
        items = [bytes.fromhex(h) for h in vec_leaves["leaves"]]
    return b"".join(x.hex().encode() + b"\n" for x in items)


class RootVectors(unittest.TestCase):
    def test_every_root_vector_through_cli(self):
        n = 0
        for v in vectors()["vectors"]:
            if v["op"] == "root":
                data = leaves_input(v["input"]["leaves"])
                rc, out, err = run(["root", "--leaves", "--hash", v["hash"]], data)
                self.assertEqual(rc, 0, err)
                want = v["expected"]["root"] or EMPTY_SHA256
                self.assertEqual(out.decode(), want + "  -\n", v["id"])
                n += 1
            elif v["op"] == "reader_root":
                stream = counter_bytes(v["input"]["stream"]["len"])
                seg = v["input"]["segment_size"]
                prof = "sia" if v["format"] == "sia-crypto-merkleroot" else "rfc6962"
                rc, out, err = run(["root", "--profile", prof, "--hash", v["hash"],
                                    "--leaf-size", str(seg)], stream)
                if v["expected"].get("error"):
                    self.assertEqual(rc, 2, v["id"])
                    self.assertIn(b"leaf-size", err)
                    continue
                self.assertEqual(rc, 0, err)
                want = v["expected"]["root"]
                if want is None:  # merkletree's nil: our rfc6962 profile answers H("")
                    want = hashlib.new("sha256" if v["hash"] == "sha256" else "blake2b",
                                       b"", **({} if v["hash"] == "sha256" else {"digest_size": 32})).hexdigest()
                self.assertEqual(out.decode(), want + "  -\n", v["id"])
                n += 1
        self.assertGreater(n, 70)


class RootCli(TempDirCase):

    def test_sia_defaults_and_empty(self):
        rc, out, _ = run(["root", "--profile", "sia"], b"")
        self.assertEqual((rc, out), (0, b"0" * 64 + b"  -\n"))
        # one short segment: LEAF(data) with BLAKE2b-256
        want = hashlib.blake2b(b"\x00abc", digest_size=32).hexdigest()
        rc, out, _ = run(["root", "--profile", "sia"], b"abc")
        self.assertEqual(out.decode(), want + "  -\n")

    def test_leaf_size_and_files(self):
        a = self.path("a.bin", b"abc")
        b = self.path("b.bin", b"")
        rc, out, err = run(["root", "--leaf-size", "1", a, b])
        self.assertEqual(rc, 0, err)
        l = [hashlib.sha256(b"\x00" + bytes([c])).digest() for c in b"abc"]
        n01 = hashlib.sha256(b"\x01" + l[0] + l[1]).digest()
        root = hashlib.sha256(b"\x01" + n01 + l[2]).hexdigest()
        self.assertEqual(out.decode(), f"{root}  {a}\n{EMPTY_SHA256}  {b}\n")
        # '-' is stdin among files
        rc, out, _ = run(["root", "--leaf-size", "1", "-", b], b"abc")
        self.assertEqual(out.decode(), f"{root}  -\n{EMPTY_SHA256}  {b}\n")
        # size suffixes
        rc, out1, _ = run(["root", "--leaf-size", "1K", a])
        rc, out2, _ = run(["root", "--leaf-size", "1024", a])
        self.assertEqual(out1, out2)

    @skip_windows("a file name holding a backslash and a newline (Windows names cannot)")
    def test_escaped_names(self):
        name = self.path("x\\y\nz", b"data")
        rc, out, _ = run(["root", name])
        self.assertEqual(rc, 0)
        self.assertTrue(out.startswith(b"\\"))
        self.assertIn(b"x\\\\y\\nz\n", out)

    def test_errors(self):
        rc, out, err = run(["root", "--leaf-size", "0"], b"abc")
        self.assertEqual(rc, 2)
        self.assertIn(b"--leaf-size", err)
        for bad in (["root", "--profile", "bitcoin"], ["root", "--hash", "md5"],
                    ["root", "--bogus"], ["root", "--leaf-size", "-5"], ["root", "-j", "x"],
                    ["root", "--leaves", "--leaf-size", "4"], ["nosuchcommand"], []):
            rc, out, err = run(bad, b"")
            self.assertEqual(rc, 2, bad)
            self.assertTrue(err, bad)
            self.assertEqual(out, b"", bad)
        good = self.path("good", b"abc")
        rc, out, err = run(["root", os.path.join(self.dir, "missing"), good, self.dir])
        self.assertEqual(rc, 1)
        self.assertIn(b"missing: No such file or directory", err)
        self.assertIn(b"Is a directory", err)
        self.assertEqual(out.count(b"\n"), 1)
        self.assertTrue(out.endswith(b"  " + good.encode() + b"\n"))
        # bad hex names the file and the line
        bad = self.path("bad.txt", b"00\n\n0g\n")
        okleaves = self.path("ok.txt", b"00\n01\n")
        rc, out, err = run(["root", "--leaves", bad, okleaves])
        self.assertEqual(rc, 1)
        self.assertIn(f"{bad}:3:".encode(), err)
        self.assertTrue(out.endswith(b"  " + okleaves.encode() + b"\n"))
        self.assertEqual(out.count(b"\n"), 1)
        rc, out, err = run(["root", "--leaves"], b"abc\n")  # odd length
        self.assertEqual(rc, 1)
        self.assertIn(b"-:1:", err)

    def test_leaves_format(self):
        # empty line = empty leaf; no trailing newline; CRLF; surrounding blanks
        l = [hashlib.sha256(b"\x00" + x).digest() for x in (b"", b"\xab")]
        root = hashlib.sha256(b"\x01" + l[0] + l[1]).hexdigest()
        for data in (b"\nab\n", b"\nab", b"\r\nAB\r\n", b"\n  ab \n"):
            rc, out, err = run(["root", "--leaves"], data)
            self.assertEqual((rc, out.decode()), (0, root + "  -\n"), data)
        rc, out, _ = run(["root", "--leaves"], b"")
        self.assertEqual(out.decode(), EMPTY_SHA256 + "  -\n")

    def test_threads_same_root(self):
        # sizes around the 4 MiB piece size, leaf sizes that do and do not divide it
        data = os.urandom((9 << 20) + 12345)
        sizes = (0, 1, 4095, (4 << 20) + 1) if SANITIZE else \
            (0, 1, 4095, (4 << 20) - 1, 4 << 20, (4 << 20) + 1, len(data))
        for size in sizes:
            p = self.path("f%d" % size, data[:size])
            for ls in ("64", "1000", "4096"):
                outs = set()
                for j in ("1", "2", "3", "0"):
                    rc, out, err = run(["root", "-j", j, "--leaf-size", ls, p])
                    self.assertEqual(rc, 0, err)
                    outs.add(out)
                rc, out, err = run(["root", "-j", "2", "--leaf-size", ls], data[:size])  # pipe
                outs.add(out.replace(b"  -\n", b"  " + p.encode() + b"\n"))
                self.assertEqual(len(outs), 1, (size, ls, outs))

    def test_options_after_operands(self):
        # GNU-style: options may follow FILE operands; "--" ends the options.
        data = os.urandom(100000)
        p = self.path("opts.bin", data)
        dash = self.path("-j", data[:10])
        rc, want, err = run(["root", "--leaf-size", "64", "-j", "2", p])
        self.assertEqual(rc, 0, err)
        rc, got, err = run(["root", p, "--leaf-size", "64", "-j", "2"])
        self.assertEqual((rc, got), (0, want), err)
        rc, got, err = run(["root", p, "--leaf-size"])
        self.assertEqual(rc, 2)
        cwd = os.path.dirname(dash)
        r = subprocess.run([BIN, "root", "--leaf-size", "64", "--", "-j"], cwd=cwd,
                           capture_output=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.endswith(b"  -j\n"), r.stdout)

    def test_help_version(self):
        rc, out, _ = run(["--version"])
        self.assertEqual(rc, 0)
        self.assertTrue(out.startswith(b"merkle "))
        rc, out, _ = run(["--help"])
        self.assertEqual(rc, 0)
        self.assertIn(b"root", out)
        rc, out, _ = run(["root", "--help"])
        self.assertEqual(rc, 0)
        self.assertIn(b"--leaf-size", out)

    def test_large_stream_bounded_memory(self):
        # 512 MiB from a pipe: peak RSS must stay far below the input size.
        log2 = 20 if SANITIZE else 23
        size = 64 << log2
        gen = subprocess.Popen(["head", "-c", str(size), "/dev/zero"], stdout=subprocess.PIPE)
        try:
            p = subprocess.run(["/usr/bin/time", "-f", "%M", BIN, "root", "--leaf-size", "64", "-j", "1"],
                               stdin=gen.stdout, capture_output=True, timeout=600)
        finally:
            gen.stdout.close()  # a consumer that died must not leave `head` blocked on our copy
            gen.wait()
        self.assertEqual(p.returncode, 0, p.stderr)
        peak_kib = int(p.stderr.decode().strip().splitlines()[-1])
        if not SANITIZE:
            self.assertLess(peak_kib, 16 * 1024, "peak RSS %d KiB" % peak_kib)
        # 2^log2 identical leaves: a perfect tree of equal subtrees
        leaf = hashlib.sha256(b"\x00" + bytes(64)).digest()
        h = leaf
        for _ in range(log2):
            h = hashlib.sha256(b"\x01" + h + h).digest()
        self.assertEqual(p.stdout.decode(), h.hex() + "  -\n")


if __name__ == "__main__":
    unittest.main(verbosity=2)
