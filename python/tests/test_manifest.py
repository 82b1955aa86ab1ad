# SPDX-License-Identifier: MIT OR Apache-2.0
"""Python bindings: checksum manifests against hashlib and GNU coreutils (md5sum/sha256sum/b2sum),
per-file check results, and the directory root against a from-the-definition reference."""
import hashlib
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mtest  # noqa: E402
import merkle  # noqa: E402

HAVE = hasattr(merkle, "manifest")
ALG_ID = {"md5": 1, "sha1": 2, "sha256": 3, "sha512": 4, "blake2b": 5}


def ref_digest(alg, data, length=None):
    if alg == "blake2b":
        return hashlib.blake2b(data, digest_size=length or 64).digest()
    return hashlib.new(alg, data).digest()


def ref_dirroot(entries):
    leaves = []
    for name, alg, dig in sorted(entries, key=lambda e: e[0]):
        leaves.append(struct.pack(">I", len(name)) + name + bytes([ALG_ID[alg], len(dig)]) + dig)
    return mtest.ref_root_leaves(leaves)


@unittest.skipUnless(HAVE, "this libmerkle has no manifest module")
class Digests(unittest.TestCase):
    def test_against_hashlib(self):
        for data in (b"", b"abc", bytes(range(256)) * 300):
            for alg in merkle.manifest.ALGORITHMS:
                self.assertEqual(merkle.manifest.digest(data, alg), ref_digest(alg, data), alg)
            for n in (1, 20, 32, 48):
                self.assertEqual(merkle.manifest.digest(data, "blake2b", n),
                                 ref_digest("blake2b", data, n))
        with tempfile.NamedTemporaryFile() as f:
            f.write(b"file contents\n" * 1000)
            f.flush()
            self.assertEqual(merkle.manifest.file_digest(f.name, "sha512"),
                             hashlib.sha512(b"file contents\n" * 1000).digest())

    def test_errors(self):
        with self.assertRaises(merkle.MerkleError) as cm:
            merkle.manifest.digest(b"x", "crc32")
        self.assertEqual(cm.exception.status, merkle.ERR_ARG)
        with self.assertRaises(merkle.MerkleError) as cm:
            merkle.manifest.digest(b"x", "blake2b", 65)
        self.assertEqual(cm.exception.status, merkle.ERR_ARG)
        with self.assertRaises(FileNotFoundError):
            merkle.manifest.file_digest("/nonexistent/merkle-test", "md5")


@unittest.skipUnless(HAVE, "this libmerkle has no manifest module")
class Coreutils(unittest.TestCase):
    """Lines formatted and parsed as GNU coreutils writes them."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name
        self.files = {b"plain.txt": b"hello\n", b"sp ace": b"", b"back\\slash": b"x",
                      b"new\nline": b"y" * 5000}
        for name, data in self.files.items():
            with open(os.path.join(os.fsencode(self.d), name), "wb") as f:
                f.write(data)

    def tearDown(self):
        self.tmp.cleanup()

    def coreutils(self, tool, *args):
        if not shutil.which(tool):
            self.skipTest(tool + " not installed")
        names = sorted(self.files)
        p = subprocess.run([tool] + list(args) + ["--"] + [n.decode() for n in names],
                           cwd=self.d, capture_output=True, check=True)
        return names, p.stdout

    def test_format_line_matches_coreutils(self):
        for tool, alg, extra in (("md5sum", "md5", ()), ("sha256sum", "sha256", ()),
                                 ("sha256sum", "sha256", ("--tag",)), ("b2sum", "blake2b", ()),
                                 ("sha1sum", "sha1", ("-b",)), ("sha512sum", "sha512", ("-z",))):
            names, want = self.coreutils(tool, *extra)
            got = b"".join(merkle.manifest.format_line(alg, ref_digest(alg, self.files[n]), n,
                                                       tag="--tag" in extra, binary="-b" in extra,
                                                       zero="-z" in extra)
                           for n in names)
            self.assertEqual(got, want, (tool, extra))

    def test_parse_coreutils_output(self):
        for tool, alg, extra in (("sha256sum", "sha256", ()), ("md5sum", "md5", ("--tag",)),
                                 ("b2sum", "blake2b", ("-l", "256"))):
            names, text = self.coreutils(tool, *extra)
            # a GNU line of b2sum -l 256 looks like sha256 unless told (as b2sum -c is)
            m = merkle.manifest.parse(text.decode("utf-8", "surrogateescape") + "not a line\n",
                                      algorithm="blake2b" if tool == "b2sum" else None)
            self.assertEqual(m.bad_lines, [len(names) + 1])
            self.assertEqual([e.name for e in m.entries], names)
            for e in m.entries:
                self.assertEqual(e.algorithm, alg)
                self.assertEqual(e.digest, ref_digest(alg, self.files[e.name],
                                                      32 if "256" in extra else None))
                self.assertEqual(e.bsd, "--tag" in extra)

    def test_check_per_file_results_agree_with_md5sum_c(self):
        names, text = self.coreutils("md5sum")
        # change one file, remove another
        with open(os.path.join(self.d, "plain.txt"), "ab") as f:
            f.write(b"changed")
        os.unlink(os.path.join(self.d, "sp ace"))
        listing = os.path.join(self.d, "list.md5")
        with open(listing, "wb") as f:
            f.write(text)
        for threads in (0, 1, 3):
            results, bad = merkle.check_manifest(listing, self.d, threads=threads)
            self.assertEqual(bad, [])
            got = {r.name: r.status for r in results}
            self.assertEqual(got, {b"plain.txt": "FAILED", b"sp ace": "MISSING",
                                   b"back\\slash": "OK", b"new\nline": "OK"})
            for r in results:
                if r.status == "OK":
                    self.assertTrue(r.ok)
                    self.assertEqual(r.digest, hashlib.md5(self.files[r.name]).digest())
                    self.assertEqual(r.size, len(self.files[r.name]))
                elif r.status == "MISSING":
                    self.assertEqual(r.errno, 2)
        p = subprocess.run(["md5sum", "-c", listing], cwd=self.d, capture_output=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn(b"plain.txt: FAILED", p.stdout)
        self.assertIn(b"back\\slash: OK", p.stdout)
        # text and file objects work as well as paths
        with open(listing, "rb") as f:
            self.assertEqual(merkle.check_manifest(f, self.d), (results, []))
        self.assertEqual(merkle.check_manifest(text, self.d)[0], results)

    def test_dirroot_against_reference_and_cli(self):
        names, text = self.coreutils("sha256sum")
        want = ref_dirroot([(n, "sha256", hashlib.sha256(self.files[n]).digest()) for n in names])
        self.assertEqual(merkle.manifest.dirroot(text), want)
        mixed = text + merkle.manifest.format_line("md5", hashlib.md5(b"").digest(), "zz", tag=True)
        ents = [(n, "sha256", hashlib.sha256(self.files[n]).digest()) for n in names]
        ents.append((b"zz", "md5", hashlib.md5(b"").digest()))
        self.assertEqual(merkle.manifest.dirroot(mixed), ref_dirroot(ents))
        self.assertEqual(merkle.manifest.dirroot(b""), hashlib.sha256(b"").digest())
        with self.assertRaises(merkle.MerkleError) as cm:
            merkle.manifest.dirroot(text + text.splitlines(True)[0])
        self.assertEqual(cm.exception.status, merkle.ERR_FORMAT)
        with self.assertRaises(merkle.MerkleError) as cm:
            merkle.manifest.dirroot(text + b"junk\n")
        self.assertEqual(cm.exception.status, merkle.ERR_FORMAT)
        b = mtest.merkle_bin()
        if b and subprocess.run([b, "dirroot", "--help"], capture_output=True).returncode == 0:
            listing = os.path.join(self.d, "list")
            with open(listing, "wb") as f:
                f.write(text)
            out = subprocess.run([b, "dirroot", listing], capture_output=True, check=True).stdout
            self.assertEqual(out.split()[0].decode(), want.hex())


if __name__ == "__main__":
    unittest.main()
