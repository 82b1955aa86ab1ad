# SPDX-License-Identifier: MIT OR Apache-2.0
"""--leaf-hashes (issue 26 item 3): a transparency log keeps H(0x00 || leaf), not the leaves.
`merkle root`, `proof` (one, --all) and `consistency` over the leaf hashes (made here with
hashlib, the reference) give what they give over the leaves themselves; every bad line is an
error naming it; with a shaped profile the option is --leaves (its lines are level 0)."""
import hashlib
import json
import os
import random
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import run  # noqa: E402

HASH = {"rfc6962": lambda b: hashlib.sha256(b).digest(),
        "sia": lambda b: hashlib.blake2b(b, digest_size=32).digest()}


class LeafHashes(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        rnd = random.Random(26)
        self.leaves = [bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 70)))
                       for _ in range(37)]

    def tearDown(self):
        self.dir.cleanup()

    def file(self, name, lines):
        p = os.path.join(self.dir.name, name)
        with open(p, "w") as f:
            f.write("".join(x + "\n" for x in lines))
        return p

    def pair(self, profile):
        h = HASH[profile]
        return (self.file("leaves", [x.hex() for x in self.leaves]),
                self.file("hashes", [h(b"\x00" + x).hex() for x in self.leaves]))

    def same(self, args, leaves, hashes, drop_leaf=False):
        rc1, o1, e1 = run(args + ["--leaves", leaves])
        rc2, o2, e2 = run(args + ["--leaf-hashes", hashes])
        self.assertEqual((rc1, rc2), (0, 0), (e1, e2))
        if drop_leaf:  # a proof over leaf hashes has no leaf bytes
            o1 = [{k: v for k, v in json.loads(x).items() if k not in ("leaf", "proof_set")} for x in o1.splitlines()]
            o2 = [json.loads(x) for x in o2.splitlines()]
        else:
            o1, o2 = o1.split()[0], o2.split()[0]
        self.assertEqual(o1, o2)
        return o2

    def test_same_results(self):
        for profile in ("rfc6962", "sia"):
            with self.subTest(profile=profile):
                leaves, hashes = self.pair(profile)
                p = ["--profile", profile]
                root = self.same(["root"] + p, leaves, hashes).decode()
                self.same(["proof", "--all"] + p, leaves, hashes, drop_leaf=True)
                for old in (1, 13, 36):
                    rc1, o1, _ = run(["consistency", "--old-size", str(old)] + p + ["--leaves", leaves])
                    rc2, o2, _ = run(["consistency", "--old-size", str(old)] + p + ["--leaf-hashes", hashes])
                    self.assertEqual((rc1, rc2, o1), (0, 0, o2))
                for i in (0, 17, 36):
                    rc, proof, err = run(["proof", "--index", str(i)] + p + ["--leaf-hashes", hashes])
                    self.assertEqual(rc, 0, err)
                    d = json.loads(proof)
                    self.assertNotIn("leaf", d)
                    self.assertEqual(d["leaf_hash"], HASH[profile](b"\x00" + self.leaves[i]).hex())
                    pf = self.file("p.json", [proof.decode()])
                    rc, out, err = run(["verify", pf, "--root", root])
                    self.assertEqual(rc, 0, (out, err))

    def test_bad_lines(self):
        good = HASH["rfc6962"](b"\x00a").hex()
        for lines, words in (([good, good[:-2]], ["hashes:2", "32-byte leaf hash"]),
                             ([good, ""], ["hashes:2", "32-byte"]),
                             ([good, "zz" * 32], ["hashes:2"])):
            f = self.file("hashes", lines)
            for cmd in (["root"], ["proof", "--index", "0"], ["proof", "--all"],
                        ["consistency", "--old-size", "1"]):
                with self.subTest(lines=lines, cmd=cmd):
                    rc, out, err = run(cmd + ["--leaf-hashes", f])
                    self.assertEqual(rc, 1, err)
                    self.assertEqual(out, b"")
                    for w in words:
                        self.assertIn(w, err.decode())

    def test_shaped_profile_is_leaves(self):
        rnd = random.Random(5)
        txids = self.file("txids", [bytes(rnd.randrange(256) for _ in range(32)).hex() for _ in range(9)])
        a = run(["root", "--profile", "bitcoin", "--leaves", txids])
        b = run(["root", "--profile", "bitcoin", "--leaf-hashes", txids])
        self.assertEqual(a[0], 0)
        self.assertEqual(a[1], b[1])


if __name__ == "__main__":
    unittest.main()
