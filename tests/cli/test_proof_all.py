# SPDX-License-Identifier: MIT OR Apache-2.0
"""CLI tests for merkle proof --all: one JSON proof per line, each equal to what
merkle proof --index I prints for the same input (streams and --leaves lists, rfc6962 and
sia, SHA-256 and BLAKE2b-256), every line verified by merkle verify, the public vectors'
audit paths, and the usage errors."""
import json
import os
import random
import unittest

from cliutil import TempDirCase, run, vectors, decimal_leaves


class ProofAll(TempDirCase):
    def lines(self, args, stdin=b""):
        rc, out, err = run(["proof", "--all"] + args, stdin=stdin)
        self.assertEqual(rc, 0, err)
        self.assertTrue(out == b"" or out.endswith(b"\n"))
        return [json.loads(l) for l in out.decode().split("\n")[:-1]]

    def check_against_index(self, args, stdin, n, name):
        got = self.lines(args, stdin)
        self.assertEqual(len(got), n, name)
        for i in range(n):
            rc, out, err = run(["proof", "--index", str(i)] + args, stdin=stdin)
            self.assertEqual(rc, 0, (name, i, err))
            self.assertEqual(got[i], json.loads(out), (name, i))

    def test_streams(self):
        rng = random.Random(30)
        data = bytes(rng.randrange(256) for _ in range(3000))
        for profile, hashes in (("rfc6962", ("sha256", "blake2b-256")), ("sia", ("blake2b-256",))):
            for h in hashes:
                for ls, length in ((3, 0), (3, 1), (3, 10), (64, 3000), (100, 2999), (7, 140)):
                    f = self.path("d.bin", data[:length])
                    n = (length + ls - 1) // ls
                    self.check_against_index(["--profile", profile, "--hash", h, "--leaf-size",
                                              str(ls), f], b"", n, (profile, h, ls, length))

    def test_leaves_and_verify(self):
        rng = random.Random(31)
        for n in (1, 2, 3, 5, 8, 13, 33):
            leaves = [bytes(rng.randrange(256) for _ in range(rng.randrange(40))) for _ in range(n)]
            text = "".join(l.hex() + "\n" for l in leaves).encode()
            self.check_against_index(["--leaves"], text, n, n)
            for i, j in enumerate(self.lines(["--leaves"], text)):
                self.assertEqual(bytes.fromhex(j["leaf"]), leaves[i])
                p = self.path("p.json", (json.dumps(j) + "\n").encode())
                rc, out, _ = run(["verify", p, "--root", j["root"]])
                self.assertEqual((rc, out[:3]), (0, b"OK:"), (n, i))

    def test_public_vectors(self):
        by_size = {}
        for v in vectors()["vectors"]:
            if v["op"] != "inclusion_proof" or v["expected"].get("error"):
                continue
            inp = v["input"]
            by_size.setdefault((inp["leaves"]["n"], v["hash"]), []).append(v)
        self.assertGreaterEqual(len(by_size), 5)
        for (n, h), vs in by_size.items():
            text = "".join(l.hex() + "\n" for l in decimal_leaves(n)).encode()
            got = self.lines(["--leaves", "--hash", h], text)
            self.assertEqual(len(got), n)
            for v in vs:
                j = got[v["input"]["index"]]
                self.assertEqual(j["path"], v["expected"]["path"], v["id"])
                self.assertEqual(j["root"], v["expected"]["root"], v["id"])
                self.assertEqual(j["leaf_hash"], v["expected"]["leaf_hash"], v["id"])

    def test_errors(self):
        f = self.path("d.bin", b"abc")
        for extra in (["--index", "0"], ["--range", "0:1"], ["--binary"], ["--gindex", "1"]):
            rc, _, err = run(["proof", "--all", f] + extra)
            self.assertEqual(rc, 2, extra)
            self.assertIn(b"--all", err, extra)
        rc, _, err = run(["proof", "--all", "--profile", "bitcoin", "--leaves", f])
        self.assertEqual(rc, 2)
        self.assertIn(b"rfc6962 and sia", err)
        rc, _, err = run(["proof", "--all", os.path.join(self.dir, "missing")])
        self.assertEqual(rc, 1)
        rc, _, err = run(["proof", "--all", self.dir])
        self.assertEqual(rc, 1)
        rc, _, err = run(["proof", "--all", "--leaves", "-"], stdin=b"zz\n")
        self.assertEqual(rc, 1)
        self.assertIn(b"hex", err)


if __name__ == "__main__":
    unittest.main()
