# SPDX-License-Identifier: MIT OR Apache-2.0
"""OpenZeppelin by value in Python (issue 26 item 5): ShapeTree.leaf_lookup / get_proof /
get_multi_proof / validate / render and merkle.openzeppelin_verify against what
@openzeppelin/merkle-tree 1.0.8 answers (tests/vectors/openzeppelin-parity.json)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mtest  # noqa: E402
import merkle  # noqa: E402


def hx(b):
    return "0x" + b.hex()


@unittest.skipUnless(hasattr(merkle, "ShapeTree"), "libmerkle without shapes")
class OzParity(unittest.TestCase):
    def setUp(self):
        self.cases = mtest.vectors("openzeppelin-parity.json")["cases"]

    def trees(self, c):
        """(tree, types, values) built from the values, and from the peer's dump."""
        if c["kind"] == "standard":
            types = merkle.shape._split_types(c["types"])
            leaves = [merkle.openzeppelin_leaf(types, v) for v in c["values"]]
            values = c["values"]
        else:
            types, values = None, c["leaves"]
            leaves = [bytes.fromhex(v[2:]) for v in values]
        built = merkle.ShapeTree("openzeppelin", leaves)
        loaded, ltypes = merkle.ShapeTree.load_dump(c["dump"])
        self.assertEqual(ltypes, types)
        return [(built, types, values), (loaded, ltypes, values)]

    def test_render_lookup_proof_verify(self):
        for k, c in enumerate(self.cases):
            for t, types, values in self.trees(c):
                with t, self.subTest(case=k):
                    self.assertEqual(hx(t.root), c["root"])
                    self.assertEqual(t.render(), c["render"])
                    t.validate()
                    for lk in c["lookups"]:
                        v = values[lk["value"]]
                        self.assertEqual(t.leaf_lookup(types, v), lk["lookup"])
                        proof = t.get_proof(types, v)
                        self.assertEqual([hx(h) for h in proof], lk["proof"])
                        self.assertTrue(merkle.openzeppelin_verify(t.root, types, v, proof))
                        if "other_value" in lk:
                            self.assertEqual(
                                merkle.openzeppelin_verify(t.root, types, lk["other_value"], proof),
                                lk["verify_other"])
                    with self.assertRaises(merkle.MerkleError) as cm:
                        t.get_proof(types, c["missing"].get("value", c["missing"]["row"]))
                    self.assertIn(c["missing"]["error"], str(cm.exception))

    def test_multiproof_of_values(self):
        for k, c in enumerate(self.cases):
            if c["kind"] != "standard":
                continue
            for t, types, _ in self.trees(c):
                with t, self.subTest(case=k):
                    leaves, proof, flags = t.get_multi_proof(types, c["multi"]["values"])
                    self.assertEqual([hx(h) for h in proof], c["multi"]["proof"])
                    self.assertEqual(flags, c["multi"]["proofFlags"])
                    self.assertEqual([hx(h) for h in leaves], c["multi"]["leaves"])
                    # verifyMultiProof of getMultiProof()'s own object (OZ: true), and of it
                    # with a value not in the tree (false).
                    oz = c["multi"]["oz"]
                    self.assertEqual(merkle.openzeppelin_verify_multi(t.root, types, oz),
                                     c["multi"]["verify"])
                    self.assertTrue(c["multi"]["verify"])
                    bad = dict(oz, leaves=[c["missing"]["value"]] + oz["leaves"][1:])
                    self.assertFalse(merkle.openzeppelin_verify_multi(t.root, types, bad))

    def test_render_empty_and_tampered(self):
        # Tampered dumps are refused by load_dump (validate() runs there), as by the peer.
        for c in self.cases:
            for tp in c.get("tampered", []):
                with self.assertRaises(merkle.MerkleError):
                    merkle.ShapeTree.load_dump(tp["dump"])

    def test_bare_proof_array(self):
        # getProof()'s own output, JSON ["0x..", ...], is a Proof (merkle_proof_from_json).
        import json
        n = 0
        for k, c in enumerate(self.cases):
            root = bytes.fromhex(c["root"][2:])
            for lk in c["lookups"]:
                with self.subTest(case=k, value=lk["value"]):
                    p = merkle.Proof.from_json(json.dumps(lk["proof"]))
                    self.assertEqual(p.profile, "openzeppelin")
                    if c["kind"] == "standard":
                        lh = merkle.openzeppelin_leaf(merkle.shape._split_types(c["types"]),
                                                      c["values"][lk["value"]])
                    else:
                        lh = bytes.fromhex(c["leaves"][lk["value"]][2:])
                    self.assertTrue(p.verify(root=root, leaf_hash=lh))
                    with self.assertRaises(merkle.MerkleError):
                        p.verify(root=root, leaf_hash=bytes(32))
                    n += 1
        self.assertGreater(n, 10)
        with self.assertRaises(merkle.MerkleError) as cm:
            merkle.Proof.from_json('["0x12"]')
        self.assertIn("element 0 of the proof array", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
