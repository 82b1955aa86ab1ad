# SPDX-License-Identifier: MIT OR Apache-2.0
"""Python bindings: CLVM tree hash and (back-reference) serialization against the public vectors."""
import hashlib
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mtest  # noqa: E402
import merkle  # noqa: E402

HAVE = hasattr(merkle, "clvm")


def ref_tree_hash(obj):
    """sha256tree from the definition, on the Python form (memoised on object identity)."""
    memo = {}
    stack = [obj]
    while stack:
        o = stack[-1]
        if id(o) in memo:
            stack.pop()
        elif isinstance(o, bytes):
            memo[id(o)] = hashlib.sha256(b"\x01" + o).digest()
            stack.pop()
        elif id(o[0]) in memo and id(o[1]) in memo:
            memo[id(o)] = hashlib.sha256(b"\x02" + memo[id(o[0])] + memo[id(o[1])]).digest()
            stack.pop()
        else:
            stack.extend([o[1], o[0]])
    return memo[id(obj)]


def generated(v):
    g = v["tree_generator"]
    if g["kind"] == "atom_fill":
        return bytes.fromhex(g["byte_hex"]) * g["len"]
    if g["kind"] == "bomb":
        t = bytes.fromhex(g["leaf_atom_hex"])
        for _ in range(g["depth"]):
            t = (t, t)
        return t
    raise AssertionError("unknown generator " + g["kind"])


@unittest.skipUnless(HAVE, "this libmerkle has no CLVM (sexp) module")
class ClvmVectors(unittest.TestCase):
    def setUp(self):
        self.v = mtest.vectors("tree-public.json")["clvm"]

    def test_tree_hash_vectors(self):
        for v in self.v["tree_hash"]:
            if "canonical_hex" in v:
                ser = bytes.fromhex(v["canonical_hex"])
                self.assertEqual(merkle.clvm.tree_hash(ser).hex(), v["tree_hash_hex"], v["id"])
                self.assertEqual(merkle.clvm.serialize(ser), ser, v["id"])
                tree = merkle.clvm.deserialize(ser)
                self.assertEqual(ref_tree_hash(tree).hex(), v["tree_hash_hex"], v["id"])
            else:
                tree = generated(v)
                ser = merkle.clvm.serialize_of(tree)
                self.assertEqual(len(ser), int(v["canonical_len"]), v["id"])
                self.assertEqual(hashlib.sha256(ser).hexdigest(), v["canonical_sha256"], v["id"])
            self.assertEqual(merkle.clvm.tree_hash_of(tree).hex(), v["tree_hash_hex"], v["id"])

    def test_backref_decode_vectors(self):
        for v in self.v["backref_decode"]:
            data = bytes.fromhex(v["input_hex"])
            if v["expect"] == "ok":
                self.assertEqual(merkle.clvm.serialize(data).hex(), v["canonical_hex"], v["id"])
                self.assertEqual(merkle.clvm.tree_hash(data).hex(), v["tree_hash_hex"], v["id"])
            else:
                with self.assertRaises(merkle.MerkleError, msg=v["id"]) as cm:
                    merkle.clvm.tree_hash(data)
                self.assertEqual(cm.exception.status, merkle.ERR_FORMAT, v["id"])

    def test_backref_serialize_vectors(self):
        n = 0
        for v in self.v["backref_serialize"]:
            tree = (merkle.clvm.deserialize(bytes.fromhex(v["canonical_hex"]))
                    if "canonical_hex" in v else generated(v))
            out = merkle.clvm.serialize_of(tree, backrefs=True)
            self.assertLessEqual(len(out), int(v["canonical_len"]), v["id"])
            # decodes to the same tree
            self.assertEqual(merkle.clvm.tree_hash(out), merkle.clvm.tree_hash_of(tree), v["id"])
            head = v.get("backref_clvm_rs_head")
            if head and "hex" in head:
                self.assertEqual(out.hex(), head["hex"], v["id"])
                n += 1
        self.assertGreater(n, 10)


@unittest.skipUnless(HAVE, "this libmerkle has no CLVM (sexp) module")
class ClvmPython(unittest.TestCase):
    def test_python_trees(self):
        self.assertEqual(merkle.clvm.serialize_of(b""), b"\x80")
        self.assertEqual(merkle.clvm.serialize_of((b"foo", b"bar")).hex(), "ff83666f6f83626172")
        self.assertEqual(merkle.clvm.serialize_of((1, (2, 0))).hex(), "ff01ff0280")
        self.assertEqual([merkle.clvm.int_to_atom(i).hex() for i in (0, 1, 127, 128, -1, -128, 255)],
                         ["", "01", "7f", "0080", "ff", "80", "00ff"])
        self.assertEqual(merkle.clvm.deserialize(bytes.fromhex("ff01ff0280")),
                         (b"\x01", (b"\x02", b"")))
        with self.assertRaises(TypeError):
            merkle.clvm.tree_hash_of([b"a", b"b"])
        with self.assertRaises(TypeError):
            merkle.clvm.tree_hash_of((b"a", b"b", b"c"))

    def test_bomb_stays_small(self):
        t = b"leaf"
        for _ in range(60):          # 2^60 leaves when expanded
            t = (t, t)
        ser = merkle.clvm.serialize_of(t, backrefs=True)
        self.assertLess(len(ser), 1000)
        back = merkle.clvm.deserialize(ser)
        self.assertIs(back[0], back[1])      # shared, not copied
        self.assertEqual(merkle.clvm.tree_hash(ser), ref_tree_hash(t))
        with self.assertRaises(merkle.MerkleError) as cm:
            merkle.clvm.serialize(ser)       # canonical form would be ~2^64 bytes
        self.assertIn(cm.exception.status, (merkle.ERR_LIMIT, merkle.ERR_RANGE))

    def test_errors(self):
        for bad, status in ((b"", merkle.ERR_FORMAT), (b"\xff\x80", merkle.ERR_FORMAT),
                            (b"\x80\x80", merkle.ERR_FORMAT)):
            with self.assertRaises(merkle.MerkleError) as cm:
                merkle.clvm.tree_hash(bad)
            self.assertEqual(cm.exception.status, status, bad)
        with self.assertRaises(merkle.MerkleError) as cm:
            merkle.clvm.tree_hash(bytes.fromhex("ff83666f6ffe02"), backrefs=False)
        self.assertEqual(cm.exception.status, merkle.ERR_FORMAT)

    @unittest.skipUnless(mtest.merkle_bin(), "merkle command not available")
    def test_agrees_with_cli(self):
        b = mtest.merkle_bin()
        if subprocess.run([b, "clvm", "--help"], capture_output=True).returncode != 0:
            self.skipTest("merkle clvm not in this binary")
        ser = bytes.fromhex("ff02ffff01ff02ff05ff0780ffff04ffff0180ff018080")
        out = subprocess.run([b, "clvm", "hash"], input=ser.hex().encode(), capture_output=True,
                             check=True).stdout
        self.assertEqual(out.split()[0].decode(), merkle.clvm.tree_hash(ser).hex())
        out = subprocess.run([b, "clvm", "serialize", "--backrefs"], input=ser.hex().encode(),
                             capture_output=True, check=True).stdout
        self.assertEqual(out.split()[0].decode(), merkle.clvm.serialize(ser, backrefs=True).hex())


if __name__ == "__main__":
    unittest.main()
