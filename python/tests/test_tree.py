# SPDX-License-Identifier: MIT OR Apache-2.0
"""Python bindings: tree roots against the public vectors, a hashlib reference, the CLI."""
import io
import os
import random
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mtest  # noqa: E402
import merkle  # noqa: E402


class Vectors(unittest.TestCase):
    def test_installed_when_asked(self):
        mtest.check_installed(self)

    def test_every_root_vector(self):
        n = 0
        for v in mtest.vectors()["vectors"]:
            if v["op"] == "root":
                spec = v["input"]["leaves"]
                leaves = (mtest.decimal_leaves(spec["n"]) if spec["gen"] == "decimal"
                          else [bytes.fromhex(x) for x in spec["leaves"]])
                want = v["expected"]["root"] or mtest.H(v["hash"], b"").hex()
                self.assertEqual(merkle.root_leaves(leaves, hash=v["hash"]).hex(), want, v["id"])
                n += 1
            elif v["op"] == "reader_root":
                stream = mtest.counter_bytes(v["input"]["stream"]["len"])
                seg = v["input"]["segment_size"]
                prof = "sia" if v["format"] == "sia-crypto-merkleroot" else "rfc6962"
                if v["expected"].get("error"):
                    with self.assertRaises(merkle.MerkleError) as cm:
                        merkle.root(stream, leaf_size=seg, profile=prof, hash=v["hash"])
                    self.assertEqual(cm.exception.status, merkle.ERR_ARG, v["id"])
                    continue
                want = v["expected"]["root"]
                if want is None:  # merkletree's nil root: the rfc6962 profile answers H("")
                    want = mtest.H(v["hash"], b"").hex()
                got = merkle.root(stream, leaf_size=seg, profile=prof, hash=v["hash"])
                self.assertEqual(got.hex(), want, v["id"])
                t = merkle.Tree(leaf_size=seg, profile=prof, hash=v["hash"])
                step = 7 if len(stream) < 20000 else 65521
                for i in range(0, len(stream), step):
                    t.write(stream[i:i + step])
                self.assertEqual(t.root().hex(), want, v["id"] + " streamed")
                n += 1
        self.assertGreater(n, 70)

    def test_sia_defaults_are_crypto_merkleroot(self):
        for v in mtest.vectors()["vectors"]:
            if v["format"] == "sia-crypto-merkleroot":
                data = mtest.counter_bytes(v["input"]["stream"]["len"])
                self.assertEqual(merkle.root(data, profile="sia").hex(), v["expected"]["root"])
        self.assertEqual(merkle.profile_defaults("sia"), ("blake2b-256", 64))
        self.assertEqual(merkle.profile_defaults("rfc6962"), ("sha256", 4096))


class Reference(unittest.TestCase):
    """Differential: random inputs against the hashlib reference in mtest."""

    def test_random_bytes_all_profiles_and_hashes(self):
        rng = random.Random(8)
        for profile in merkle.PROFILES:
            for hash_name in merkle.HASHES:
                for _ in range(25):
                    n = rng.choice([0, 1, 2, 3, 63, 64, 65, rng.randrange(0, 3000)])
                    leaf = rng.choice([1, 2, 3, 32, 64, 100])
                    data = bytes(rng.getrandbits(8) for _ in range(n))
                    want = mtest.ref_root_bytes(data, leaf, hash_name, profile)
                    got = merkle.root(data, leaf_size=leaf, profile=profile, hash=hash_name)
                    self.assertEqual(got, want, (profile, hash_name, n, leaf))
                    # bytearray and memoryview inputs give the same answer
                    self.assertEqual(merkle.root(bytearray(data), leaf, profile, hash_name), want)
                    self.assertEqual(merkle.root(memoryview(data), leaf, profile, hash_name), want)

    def test_random_leaf_lists(self):
        rng = random.Random(9)
        for hash_name in merkle.HASHES:
            for n in list(range(0, 20)) + [127, 128, 129, 300]:
                leaves = [bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 40)))
                          for _ in range(n)]
                self.assertEqual(merkle.root_leaves(leaves, hash=hash_name),
                                 mtest.ref_root_leaves(leaves, hash_name), (hash_name, n))
        self.assertEqual(merkle.root_leaves([], profile="sia"), bytes(32))
        self.assertEqual(merkle.root_leaves(iter([b"a", b"b"])),
                         mtest.ref_root_leaves([b"a", b"b"]))

    def test_hash_primitives(self):
        for h in merkle.HASHES:
            self.assertEqual(merkle.leaf_hash(b"x", h), mtest.H(h, b"\x00x"))
            a, b = mtest.H(h, b"a"), mtest.H(h, b"b")
            self.assertEqual(merkle.node_hash(a, b, h), mtest.H(h, b"\x01" + a + b))
            self.assertEqual(merkle.digest(b"abc", h), mtest.H(h, b"abc"))
            self.assertEqual(merkle.empty_root("rfc6962", h), mtest.H(h, b""))
            self.assertEqual(merkle.empty_root("sia", h), bytes(32))


class Files(unittest.TestCase):
    def test_root_file_matches_root(self):
        rng = random.Random(10)
        with tempfile.TemporaryDirectory() as d:
            for n in (0, 1, 4095, 4096, 4097, (1 << 18) + 12345):
                data = bytes(rng.getrandbits(8) for _ in range(min(n, 5000))) * (n // 5000 + 1)
                data = data[:n]
                p = os.path.join(d, "f%d" % n)
                with open(p, "wb") as f:
                    f.write(data)
                for prof in merkle.PROFILES:
                    want = merkle.root(data, profile=prof)
                    self.assertEqual(merkle.root_file(p, profile=prof), want, (n, prof))
                with open(p, "rb") as f:
                    self.assertEqual(merkle.root_file(f, leaf_size=100), merkle.root(data, 100))
                self.assertEqual(merkle.root_file(io.BytesIO(data), leaf_size=7),
                                 merkle.root(data, leaf_size=7))
                self.assertEqual(merkle.root_file(p.encode(), leaf_size=33),
                                 mtest.ref_root_bytes(data, 33))

    def test_threads_give_the_same_root(self):
        data = mtest.counter_bytes(3 << 20) + b"tail"
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "big")
            with open(p, "wb") as f:
                f.write(data)
            for prof in merkle.PROFILES:
                want = merkle.root(data, leaf_size=1024, profile=prof)
                for th in (0, 2, 3):
                    self.assertEqual(merkle.root(data, 1024, prof, threads=th), want, (prof, th))
                    self.assertEqual(merkle.root_file(p, 1024, prof, threads=th), want, (prof, th))
            empty = os.path.join(d, "empty")
            open(empty, "wb").close()
            self.assertEqual(merkle.root_file(empty, threads=2), merkle.empty_root())
        with self.assertRaises(TypeError):
            merkle.root(b"x", threads=-1)

    def test_missing_file_is_oserror(self):
        with self.assertRaises(FileNotFoundError):
            merkle.root_file("/nonexistent/merkle-python-test")


class Errors(unittest.TestCase):
    def assertStatus(self, status, fn, *args, **kw):
        with self.assertRaises(merkle.MerkleError) as cm:
            fn(*args, **kw)
        e = cm.exception
        self.assertEqual(e.status, status)
        self.assertEqual(e.name, merkle.STATUS_NAMES[status])
        self.assertEqual(e.message, merkle.strerror(status))
        self.assertIn(e.message, str(e))
        return e

    def test_bad_arguments(self):
        e = self.assertStatus(merkle.ERR_ARG, merkle.root, b"x", profile="nope")
        self.assertIn("nope", str(e))
        self.assertStatus(merkle.ERR_ARG, merkle.root, b"x", hash="md5")
        self.assertStatus(merkle.ERR_ARG, merkle.root, b"x", leaf_size=0)
        self.assertStatus(merkle.ERR_ARG, merkle.root_file, "/dev/null", leaf_size=-1)
        self.assertStatus(merkle.ERR_ARG, merkle.root_leaves, [b"a"], hash="sha1")
        self.assertStatus(merkle.ERR_ARG, merkle.node_hash, b"short", bytes(32))
        self.assertStatus(merkle.ERR_ARG, merkle.Tree, leaf_size=0)

    def test_finished_tree_is_state_error(self):
        t = merkle.Tree(leaf_size=4)
        t.write(b"abcdefghij")
        self.assertEqual(t.leaf_count(), 3)
        self.assertEqual(t.root(), merkle.root(b"abcdefghij", leaf_size=4))
        self.assertStatus(merkle.ERR_STATE, t.root)
        self.assertStatus(merkle.ERR_STATE, t.write, b"more")

    def test_str_is_refused(self):
        with self.assertRaises(TypeError):
            merkle.root("abc")
        with self.assertRaises(TypeError):
            merkle.root_leaves(["a"])
        with self.assertRaises(TypeError):
            merkle.root(b"abc", leaf_size="1")

    def test_strerror_is_the_library_text(self):
        self.assertEqual(merkle.strerror(merkle.OK).lower() != "", True)
        self.assertNotEqual(merkle.strerror(merkle.ERR_VERIFY), merkle.strerror(merkle.ERR_ARG))
        self.assertEqual(merkle.strerror(-12345), "unknown error")


@unittest.skipUnless(mtest.merkle_bin(), "merkle command not available")
class AgreesWithCli(unittest.TestCase):
    def test_readme_example(self):
        rc, out, err = mtest.run_cli(["root", "--leaf-size", "1"], b"abc")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.decode(), merkle.root(b"abc", leaf_size=1).hex() + "  -\n")

    def test_profiles_and_leaves(self):
        data = mtest.counter_bytes(10000)
        for prof in merkle.PROFILES:
            for h in merkle.HASHES:
                rc, out, _ = mtest.run_cli(["root", "--profile", prof, "--hash", h], data)
                self.assertEqual(rc, 0)
                self.assertEqual(out.split()[0].decode(),
                                 merkle.root(data, profile=prof, hash=h).hex())
        leaves = [b"", b"a", b"\x00\xff"]
        rc, out, _ = mtest.run_cli(["root", "--leaves"],
                                   b"".join(x.hex().encode() + b"\n" for x in leaves))
        self.assertEqual(out.split()[0].decode(), merkle.root_leaves(leaves).hex())

    def test_version(self):
        rc, out, _ = mtest.run_cli(["--version"])
        self.assertEqual(rc, 0)
        self.assertIn(merkle.library_version().encode(), out)


if __name__ == "__main__":
    unittest.main()
