# SPDX-License-Identifier: MIT OR Apache-2.0
"""Python bindings of the shaped profiles: the peers' vectors (bitcoin, ssz, openzeppelin,
bittorrent-v2, keccak256), proofs round-tripped and tampered with, dumps written and read."""
import hashlib
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mtest  # noqa: E402
import merkle  # noqa: E402


@unittest.skipUnless(hasattr(merkle, "ShapeTree"), "libmerkle without shapes")
class Shapes(unittest.TestCase):
    def test_keccak256(self):
        for v in mtest.vectors("keccak256.json")["vectors"]:
            n = v["len"]
            m = bytes((j * 7 + n) & 255 for j in range(n))
            self.assertEqual(merkle.keccak256(m).hex(), v["digest"])

    def test_bitcoin(self):
        v = mtest.vectors("bitcoin.json")
        for t in v["blocks"] + v["synthetic"]:
            root, mutated = merkle.bitcoin_root(t["txids"])
            self.assertEqual((root.hex(), mutated), (t["root"], t["mutated"]), t["name"])
            internal = [bytes.fromhex(x)[::-1] for x in t["txids"]]
            self.assertEqual(merkle.bitcoin_root(internal, display_order=False)[0][::-1].hex(), t["root"])
            if not t.get("proofs"):
                continue
            with merkle.ShapeTree("bitcoin", internal) as tree:
                for p in t["proofs"]:
                    pos = tree.position(p["index"])
                    branch = tree.branch(pos)
                    self.assertEqual([b[::-1].hex() for b in branch], p["branch"])
                    self.assertTrue(merkle.verify_branch("bitcoin", tree.root, pos, internal[p["index"]], branch))
                    if branch:
                        self.assertFalse(merkle.verify_branch("bitcoin", tree.root, pos, internal[p["index"]],
                                                              branch[:-1]))

    def test_ssz(self):
        for c in mtest.vectors("ssz.json")["cases"]:
            chunks = [hashlib.sha256(i.to_bytes(4, "little")).digest() for i in range(c["n"])]
            kw = dict(limit=c["limit"] or None, mix_in_length=c["mix_in_length"])
            self.assertEqual(merkle.ssz_root(chunks, **kw).hex(), c["root"])
            with merkle.ShapeTree("ssz", chunks, **kw) as t:
                for b in c.get("branches", []):
                    g = int(b["gindex"])
                    self.assertEqual(t.node(g).hex(), b["leaf"])
                    self.assertEqual([x.hex() for x in t.branch(g)], b["branch"])
                    self.assertTrue(merkle.verify_branch("ssz", t.root, g, t.node(g), t.branch(g), **kw))
                for m in c.get("multiproofs", []):
                    g = [int(x) for x in m["gindices"]]
                    leaves, proof = t.multiproof(g)
                    self.assertEqual([x.hex() for x in leaves], m["leaves"])
                    self.assertEqual([x.hex() for x in proof], m["proof"])
                    self.assertTrue(merkle.verify_multiproof("ssz", t.root, g, leaves, proof))
                    self.assertFalse(merkle.verify_multiproof("ssz", bytes(32), g, leaves, proof))

    def test_openzeppelin(self):
        v = mtest.vectors("openzeppelin.json")
        for c in v["standard"]:
            self.assertEqual(merkle.openzeppelin_root(c["types"], c["rows"]).hex(), c["root"])
            leaves = [merkle.openzeppelin_leaf(c["types"], r) for r in c["rows"]]
            self.assertEqual([x.hex() for x in leaves], c["leaf_hashes"])
            with merkle.ShapeTree("openzeppelin", leaves) as t:
                self.assertEqual(t.dump_json(c["types"], c["rows"]),
                                 json.dumps(c["dump"], indent=2, ensure_ascii=False) + "\n")
                for m in c["multi"]:
                    ls, proof, flags = t.flag_multiproof(m["indices"])
                    self.assertEqual(([x.hex() for x in proof], flags), (m["proof"], m["proofFlags"]))
                    self.assertTrue(merkle.verify_multiproof("openzeppelin", t.root, None, ls, proof, flags))
            t, types = merkle.ShapeTree.load_dump(json.dumps(c["dump"]))
            with t:
                self.assertEqual((t.root.hex(), types), (c["root"], c["types"]))
        for c in v["simple"]:
            with merkle.ShapeTree("openzeppelin", c["leaves"]) as t:
                self.assertEqual(t.root.hex(), c["root"])
                for p in c["single"]:
                    pos = t.position(p["index"])
                    self.assertEqual(pos, p["tree_index"])
                    self.assertEqual([x.hex() for x in t.branch(pos)], p["proof"])
        with self.assertRaises(merkle.MerkleError):
            merkle.openzeppelin_leaf(["uint8"], ["256"])
        with self.assertRaises(merkle.MerkleError):
            merkle.ShapeTree.load_dump('{"format": "standard-v1"}')

    def test_bittorrent_v2(self):
        for f in mtest.vectors("bittorrent-v2.json")["files"]:
            size = f["size"]
            data = bytes((k * 31 + size) % 251 for k in range(size))
            self.assertEqual(merkle.bittorrent_v2_root(data).hex(), f["pieces_root"])
        with self.assertRaises(merkle.MerkleError):
            merkle.bittorrent_v2_root(b"")

    def test_errors(self):
        with self.assertRaises(merkle.MerkleError):
            merkle.ssz_root([b"\0" * 31])
        with self.assertRaises(merkle.MerkleError):
            merkle.ssz_root([b"\0" * 32] * 3, limit=2)
        with self.assertRaises(merkle.MerkleError):
            merkle.shape_root("openzeppelin", [])
        t = merkle.ShapeTree("ssz", [b"\1" * 32])
        t.close()
        with self.assertRaises(merkle.MerkleError):
            t.root


if __name__ == "__main__":
    unittest.main()
