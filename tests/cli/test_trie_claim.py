# SPDX-License-Identifier: MIT OR Apache-2.0
"""`merkle trie verify PROOF --root ID --key KEY (--value HEX | --absent)` on native MTRP proofs
(issue 23 item 6): the options bind the claim, so that a valid proof of another key, of
another value, of presence when absence was claimed (or the reverse), or for another branch
factor FAILS with exit 1 and a reason; without --key the OK line names the proven key, as
before. Every usage error exits 2 with nothing on stdout."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import TempDirCase, run  # noqa: E402

OPS = b"put 6b 76\nput 6c 77\nput - 00\nput 6b6b -\n"


class TestTrieVerifyClaim(TempDirCase):
    def setUp(self):
        super().setUp()
        self.ops = self.path("ops", OPS)
        self.proofs = {}
        self.roots = {}
        for bf in ("2", "16", "256"):
            rc, out, _ = run(["trie", "root", "-b", bf, self.ops])
            self.assertEqual(rc, 0)
            self.roots[bf] = out.split()[0].decode()
            for key in ("6b", "6c", "6d", "-", "6b6b"):
                rc, proof, _ = run(["trie", "prove", "-b", bf, "--key", key, self.ops])
                self.assertEqual(rc, 0)
                self.proofs[bf, key] = self.path("p%s_%s" % (bf, key.replace("-", "e")), proof)

    def verify(self, key, *args, bf="16"):
        return run(["trie", "verify", self.proofs[bf, key], "--root", self.roots[bf]] +
                   list(args))

    def test_claims_that_hold(self):
        for bf in ("2", "16", "256"):
            for key, args, line in [
                ("6b", [], b"OK: key 6b present, value 76\n"),
                ("6b", ["--key", "6b"], b"OK: key 6b present, value 76\n"),
                ("6b", ["--key", "0x6B", "--value", "76"], b"OK: key 6b present, value 76\n"),
                ("6b", ["--key", "6b", "--value", "0x76", "-b", bf],
                 b"OK: key 6b present, value 76\n"),
                ("6d", ["--key", "6d", "--absent"], b"OK: key 6d absent\n"),
                ("-", ["--key", "-", "--value", "00"], b"OK: key - present, value 00\n"),
                ("-", ["--key", "", "--value", "00"], b"OK: key - present, value 00\n"),
                ("6b6b", ["--key", "6b6b", "--value", "-"], b"OK: key 6b6b present, value -\n"),
                ("6b6b", ["--key", "6b6b", "--value", ""], b"OK: key 6b6b present, value -\n"),
            ]:
                self.assertEqual(self.verify(key, *args, bf=bf), (0, line, b""), (bf, key, args))

    def test_claims_that_fail(self):
        for key, args, line in [
            # a valid proof of another key
            ("6c", ["--key", "6b"], b"FAILED: the proof is for key 6c, not 6b\n"),
            ("6c", ["--key", "6b", "--value", "77"], b"FAILED: the proof is for key 6c, not 6b\n"),
            ("6d", ["--key", "6e", "--absent"], b"FAILED: the proof is for key 6d, not 6e\n"),
            ("6b6b", ["--key", "6b", "--value", "-"],
             b"FAILED: the proof is for key 6b6b, not 6b\n"),
            ("6b", ["--key", "-", "--value", "00"], b"FAILED: the proof is for key 6b, not -\n"),
            ("-", ["--key", "00", "--value", "00"], b"FAILED: the proof is for key -, not 00\n"),
            # another value
            ("6b", ["--key", "6b", "--value", "77"], b"FAILED: key 6b has value 76, not 77\n"),
            ("6b", ["--key", "6b", "--value", "-"], b"FAILED: key 6b has value 76, not -\n"),
            ("6b", ["--key", "6b", "--value", "7600"], b"FAILED: key 6b has value 76, not 7600\n"),
            ("6b6b", ["--key", "6b6b", "--value", "00"],
             b"FAILED: key 6b6b has value -, not 00\n"),
            # presence when absence was claimed, and the reverse
            ("6b", ["--key", "6b", "--absent"],
             b"FAILED: key 6b is present (value 76), not absent\n"),
            ("6b6b", ["--key", "6b6b", "--absent"],
             b"FAILED: key 6b6b is present (value -), not absent\n"),
            ("6d", ["--key", "6d", "--value", "76"],
             b"FAILED: key 6d is absent, not present with value 76\n"),
            # another branch factor
            ("6b", ["-b", "2"], b"FAILED: the proof is for branch factor 16, not 2\n"),
            ("6b", ["--key", "6b", "--value", "76", "--branch-factor", "256"],
             b"FAILED: the proof is for branch factor 16, not 256\n"),
        ]:
            self.assertEqual(self.verify(key, *args), (1, line, b""), (key, args))

    def test_proof_failures_come_first(self):
        # A proof that does not verify against the root fails as before, whatever the claim.
        rc, out, _ = run(["trie", "verify", self.proofs["16", "6b"], "--root", self.roots["2"],
                          "--key", "6b", "--value", "76"])
        self.assertEqual(rc, 1)
        self.assertTrue(out.startswith(b"FAILED: "), out)
        self.assertNotIn(b"the proof is for", out)

    def test_stdin_and_cb58(self):
        with open(self.proofs["16", "6c"], "rb") as f:
            proof = f.read()
        cb = run(["trie", "root", self.ops])[1].split()[1].decode()
        self.assertEqual(run(["trie", "verify", "-", "--root", cb, "--key", "6c", "--value",
                              "77"], proof), (0, b"OK: key 6c present, value 77\n", b""))
        self.assertEqual(run(["trie", "verify", "-", "--root", cb, "--key", "6b"], proof)[:2],
                         (1, b"FAILED: the proof is for key 6c, not 6b\n"))

    def test_usage_errors(self):
        p = self.proofs["16", "6b"]
        r = self.roots["16"]
        for args, msg in [
            (["--key", "6b", "--value", "76", "--absent"], b"--value and --absent contradict"),
            (["--value", "76"], b"--value needs --key"),
            (["--absent"], b"--absent needs --key"),
            (["--key", "zz"], b"--key: "),
            (["--key", "6"], b"--key: "),
            (["--key", "6b", "--value", "7"], b"--value: "),
            (["--key", "6b", "--value", "0xzz"], b"--value: "),
            (["--key", "6b", "-b", "3"], b"--branch-factor"),
        ]:
            rc, out, err = run(["trie", "verify", p, "--root", r] + args)
            self.assertEqual((rc, out), (2, b""), args)
            self.assertIn(msg, err, args)

    def test_help_documents_the_binding(self):
        rc, out, _ = run(["trie", "verify", "--help"])
        self.assertEqual(rc, 0)
        self.assertIn(b"--absent", out)
        self.assertIn(b"Without --key any", out)


if __name__ == "__main__":
    unittest.main()
