# SPDX-License-Identifier: MIT OR Apache-2.0
"""`merkle clvm serialize --backrefs` on real Chia programs must give exactly the bytes of the
clvm_rs HEAD encoder (node_to_bytes_backrefs).

The programs come from other projects (chia_rs, clvm_rs, the Chia chain), so they are not in
the repository: they are read from ../shared/vectors/ and the test is skipped (exit 77, with
a message) when they are absent.

* clvm-real-public.json.gz: 7 programs (canonical hex, clvm_rs HEAD output, tree hash).
* clvm-real-chain.json.gz: 18 programs (block generators, spend bundles, clvm_rs's benchmark
  blocks), same fields, up to 950 KB canonical.

Every program of both files: encoding, hashing both forms, decoding, and re-encoding the
compressed form (the "re-encoding a compressed generator" rule: it must give the same bytes).
"""
import gzip
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import run, shared_vector_or_skip  # noqa: E402


def load(name):
    with gzip.open(shared_vector_or_skip(name)) as f:
        return json.load(f)["cases"]


def cli(args, hexstr):
    rc, out, err = run(["clvm"] + args, hexstr.encode())
    if rc != 0:
        raise AssertionError(f"merkle clvm {' '.join(args)}: exit {rc}: {err.decode()}")
    return out.decode().strip()


class ClvmReal(unittest.TestCase):
    def check(self, cases):
        for c in cases:
            with self.subTest(c["name"]):
                self.assertEqual(cli(["serialize", "--backrefs"], c["canonical"]), c["backrefs"])
                self.assertEqual(cli(["hash"], c["canonical"]), c["tree_hash"])
                self.assertEqual(cli(["hash"], c["backrefs"]), c["tree_hash"])
                self.assertEqual(cli(["serialize"], c["backrefs"]), c["canonical"])
                self.assertEqual(cli(["serialize", "--backrefs"], c["backrefs"]), c["backrefs"])
                self.assertLessEqual(len(c["backrefs"]), len(c["canonical"]))

    def test_public_programs(self):
        cases = PUBLIC
        self.assertEqual(len(cases), 7)
        self.check(cases)

    def test_chain_programs(self):
        cases = CHAIN
        self.assertEqual(len(cases), 18)
        self.check(cases)


# Loaded before unittest runs, so that an absent file exits 77 (skip) rather than failing.
PUBLIC = load("clvm-real-public.json.gz")
CHAIN = load("clvm-real-chain.json.gz")

if __name__ == "__main__":
    unittest.main()
