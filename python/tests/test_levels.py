# SPDX-License-Identifier: MIT OR Apache-2.0
"""Python bindings of the trees with every level kept (ShapeTree.from_leaves / from_bytes /
branches): rfc6962 and sia trees against the streaming proofs (merkle.inclusion_proof),
merkle.root_leaves / merkle.root, merkle.verify_inclusion and verify_cometbft; all branches
against branch(position(i)) for the other shapes; the errors."""
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import merkle  # noqa: E402


@unittest.skipUnless(hasattr(merkle.ShapeTree, "from_leaves"), "libmerkle without level trees")
class Levels(unittest.TestCase):
    def test_from_leaves(self):
        rng = random.Random(30)
        for profile, hashes in (("rfc6962", ("sha256", "blake2b-256")), ("sia", (None,))):
            for h in hashes:
                for n in list(range(0, 20)) + [31, 64, 65, 100]:
                    leaves = [bytes(rng.randrange(256) for _ in range(rng.randrange(70)))
                              for _ in range(n)]
                    t = merkle.ShapeTree.from_leaves(leaves, profile=profile, hash=h)
                    self.assertEqual(len(t), n)
                    self.assertEqual(t.root, merkle.root_leaves(leaves, profile=profile, hash=h))
                    all_ = t.branches()
                    self.assertEqual(len(all_), n)
                    for i in range(n):
                        p = merkle.inclusion_proof(leaves, i, profile=profile, hash=h)
                        self.assertEqual(all_[i], list(p.path), (profile, h, n, i))
                        self.assertEqual(t.branch(t.position(i)), all_[i])
                        alg = h or "blake2b-256"
                        lh = merkle.leaf_hash(leaves[i], hash=alg)
                        self.assertEqual(t.node(t.position(i)), lh)
                        self.assertTrue(merkle.verify_inclusion(lh, i, n, all_[i], t.root, hash=alg))
                        if profile == "rfc6962" and h == "sha256":
                            self.assertTrue(merkle.verify_cometbft(t.root, n, i, lh, all_[i],
                                                                   leaves[i]))

    def test_from_bytes(self):
        data = bytes(range(256)) * 20
        for profile in ("rfc6962", "sia"):
            for ls in (1, 7, 64, 100, None):
                for length in (0, 1, 63, 64, 65, 1000, 5120):
                    t = merkle.ShapeTree.from_bytes(data[:length], leaf_size=ls, profile=profile)
                    self.assertEqual(t.root, merkle.root(data[:length], leaf_size=ls, profile=profile))
                    b = t.branches()
                    self.assertEqual(len(b), len(t))
                    for i in range(0, len(t), max(1, len(t) // 7)):
                        self.assertEqual(b[i], t.branch(t.position(i)))

    def test_other_shapes(self):
        rng = random.Random(31)
        for profile in ("bitcoin", "ssz", "openzeppelin", "bittorrent-v2"):
            for n in (1, 2, 3, 5, 17, 64):
                nodes = [bytes(rng.randrange(256) for _ in range(32)) for _ in range(n)]
                t = merkle.ShapeTree(profile, nodes)
                b = t.branches()
                for i in range(n):
                    self.assertEqual(b[i], t.branch(t.position(i)), (profile, n, i))

    def test_errors(self):
        with self.assertRaises(merkle.MerkleError) as e:
            merkle.ShapeTree.from_leaves([b"a"], profile="bitcoin")
        self.assertEqual(e.exception.status, merkle.ERR_UNSUPPORTED)
        with self.assertRaises(merkle.MerkleError):
            merkle.ShapeTree.from_bytes(b"abc", leaf_size=0)
        with self.assertRaises(merkle.MerkleError):
            merkle.ShapeTree.from_leaves([b"a"], profile="nope")


if __name__ == "__main__":
    unittest.main()
