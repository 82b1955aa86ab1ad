# SPDX-License-Identifier: MIT OR Apache-2.0
"""merkle verify binds the claim (issue 23 item 6): exit 0 needs a trusted root (or an explicit
--untrusted-root), --index / --tree-size / --old-size pin what is proven, and the OK line
says what was verified."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import TempDirCase, run  # noqa: E402


class VerifyClaim(TempDirCase):
    def setUp(self):
        super().setUp()
        self.leaves = self.path("l", b"".join(b"%02x\n" % i for i in range(7)))

    def prove(self, *args):
        rc, out, err = run(list(args) + [self.leaves])
        self.assertEqual(rc, 0, err)
        return self.path("p.json", out), json.loads(out)

    def test_no_trusted_root_is_refused(self):
        pf, j = self.prove("proof", "--leaves", "--index", "3")
        rc, out, err = run(["verify", pf])
        self.assertEqual((rc, out), (2, b""))
        self.assertIn(b"no trusted root", err)
        self.assertIn(b"--untrusted-root", err)
        rc, out, err = run(["verify", pf, "--untrusted-root"])
        self.assertEqual(rc, 0, err)
        self.assertTrue(out.startswith(b"OK: leaf 3 "), out)
        self.assertIn(b"untrusted root", out)
        rc, out, _ = run(["verify", pf, "--untrusted-root", "--root", j["root"]])
        self.assertEqual((rc, out), (2, b""))

    def test_ok_line_says_what(self):
        pf, j = self.prove("proof", "--leaves", "--index", "3")
        rc, out, err = run(["verify", pf, "--root", j["root"]])
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.decode(), "OK: leaf 3 (hash %s) of a tree of 7 leaves with root %s "
                         "(rfc6962, sha256)\n" % (j["leaf_hash"], j["root"]))
        self.assertNotIn(b"untrusted", out)

    def test_pins(self):
        pf, j = self.prove("proof", "--leaves", "--index", "3")
        r = ["--root", j["root"]]
        self.assertEqual(run(["verify", pf, "--index", "3", "--tree-size", "7"] + r)[0], 0)
        rc, out, _ = run(["verify", pf, "--index", "4"] + r)
        self.assertEqual(rc, 1)
        self.assertEqual(out, b"FAILED: the proof is for leaf 3, not 4\n")
        rc, out, _ = run(["verify", pf, "--tree-size", "8"] + r)
        self.assertEqual(rc, 1)
        self.assertEqual(out, b"FAILED: the proof is for a tree of 7 leaves, not 8\n")
        for bad in (["--index", "x"], ["--tree-size", "-1"], ["--old-size", "2"]):
            with self.subTest(bad=bad):
                self.assertEqual(run(["verify", pf] + bad + r)[0], 2)

    def test_a_proof_of_another_leaf_is_caught(self):
        # The attack of the issue: a valid proof of leaf 5 shown for leaf 3.
        pf, j = self.prove("proof", "--leaves", "--index", "5")
        rc, out, _ = run(["verify", pf, "--root", j["root"], "--index", "3"])
        self.assertEqual(rc, 1, out)
        rc, out, _ = run(["verify", pf, "--root", j["root"], "--leaf-hex", "03"])
        self.assertEqual(rc, 1, out)

    def test_consistency_needs_both_roots(self):
        pf, j = self.prove("consistency", "--leaves", "--old-size", "3")
        rc, out, err = run(["verify", pf, "--root", j["new_root"]])
        self.assertEqual((rc, out), (2, b""))
        self.assertIn(b"--old-root", err)
        both = ["--root", j["new_root"], "--old-root", j["old_root"]]
        rc, out, err = run(["verify", pf] + both)
        self.assertEqual(rc, 0, err)
        self.assertTrue(out.startswith(b"OK: the tree of 7 leaves with root "), out)
        self.assertEqual(run(["verify", pf, "--old-size", "3", "--tree-size", "7"] + both)[0], 0)
        rc, out, _ = run(["verify", pf, "--old-size", "2"] + both)
        self.assertEqual((rc, out), (1, b"FAILED: the proof is from a tree of 3 leaves, not 2\n"))
        self.assertEqual(run(["verify", pf, "--index", "3"] + both)[0], 2)

    def test_range(self):
        pf, j = self.prove("proof", "--leaves", "--range", "2:5")
        lf = self.path("r", b"02\n03\n04\n")
        rc, out, err = run(["verify", pf, "--root", j["root"], "--leaf", lf, "--index", "2"])
        self.assertEqual(rc, 0, err)
        self.assertTrue(out.startswith(b"OK: leaves [2, 5) of a tree of 7 leaves"), out)
        rc, out, _ = run(["verify", pf, "--root", j["root"], "--leaf", lf, "--index", "1"])
        self.assertEqual(rc, 1, out)

    def test_multiproof(self):
        hashes = self.path("h", b"".join(b"%064x\n" % i for i in range(5)))
        rc, out, err = run(["proof", "--profile", "openzeppelin", "--leaves", "--index", "1,3",
                            hashes])
        self.assertEqual(rc, 0, err)
        pf = self.path("m.json", out)
        root = json.loads(out)["root"]
        self.assertEqual(run(["verify", pf])[0], 2)
        rc, out, _ = run(["verify", pf, "--root", root])
        self.assertEqual(rc, 0)
        self.assertTrue(out.startswith(b"OK: openzeppelin multiproof"), out)
        rc, out, _ = run(["verify", pf, "--untrusted-root"])
        self.assertEqual(rc, 0)
        self.assertIn(b"untrusted root", out)


if __name__ == "__main__":
    unittest.main()
