# SPDX-License-Identifier: MIT OR Apache-2.0
"""CometBFT's own proof JSON (issue 26 item 2): merkle verify reads crypto/merkle Proof JSON as
CometBFT writes it (libs/json: int64 as decimal strings, []byte in base64; encoding/json:
numbers, aunts omitted when empty), /tx?prove=true's JSON-RPC response and TxProof, and
merkle proof --format cometbft writes it byte for byte. The expected bytes and verdicts come
from CometBFT's code (tests/vectors/cometbft-json.json, see tests/vectors/README.md)."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import TempDirCase, run, vectors  # noqa: E402

V = vectors("cometbft-json.json")


class CometbftJson(TempDirCase):
    def verify(self, doc, root, leaf_hex=None):
        p = self.path("proof.json", doc.encode())
        args = ["verify", p, "--root", root]
        if leaf_hex is not None:
            args += ["--leaf", self.path("leaf", bytes.fromhex(leaf_hex))]
        return run(args)

    def test_verdicts_equal_cometbft(self):
        seen = set()
        for c in V["cases"]:
            if c["tamper"] == "noproof":
                continue
            with self.subTest(form=c["form"], size=c["size"], index=c["index"], tamper=c["tamper"]):
                rc, out, err = self.verify(c["doc"], c["root"],
                                           c["leaf"] if c["kind"] == "proof" else None)
                want = 0 if c["verify"] == "" else 1
                self.assertEqual(rc, want, (c["verify"], out, err, c["doc"]))
                self.assertEqual(out.decode().split(":")[0].strip(), "OK" if want == 0 else "FAILED")
                seen.add((c["form"], c["tamper"], want))
        # The vectors hold every form, and tampered proofs CometBFT accepts as well as rejects.
        for need in [("cmtjson", "", 0), ("encoding/json", "", 0), ("rpc", "", 0),
                     ("cmtjson", "aunt", 1), ("cmtjson", "leaf_hash", 1), ("cmtjson", "index", 1),
                     ("cmtjson", "total", 0), ("cmtjson", "total", 1)]:
            self.assertIn(need, seen)

    def test_wrong_trusted_root_fails(self):
        c = next(c for c in V["cases"] if c["form"] == "rpc" and c["size"] > 4)
        root = bytes.fromhex(c["root"])
        rc, out, _ = self.verify(c["doc"], bytes([root[0] ^ 1]).hex() + c["root"][2:])
        self.assertEqual(rc, 1, out)
        # The same document against the right root, and with the transaction changed.
        self.assertEqual(self.verify(c["doc"], c["root"])[0], 0)
        d = json.loads(c["doc"])
        tx = d["result"]["proof"]["data"]
        d["result"]["proof"]["data"] = ("A" if tx[0] != "A" else "B") + tx[1:]
        rc, out, _ = self.verify(json.dumps(d), c["root"])
        self.assertEqual(rc, 1, out)

    def test_tx_without_proof(self):
        c = next(c for c in V["cases"] if c["tamper"] == "noproof")
        rc, out, err = self.verify(c["doc"], c["root"])
        self.assertEqual(rc, 2, (out, err))
        self.assertIn("prove=true", err.decode())

    def test_rpc_error(self):
        doc = '{"jsonrpc":"2.0","id":-1,"error":{"code":-32603,"message":"Internal error"}}'
        rc, _, err = self.verify(doc, "00" * 32)
        self.assertEqual(rc, 2)
        self.assertIn("JSON-RPC error", err.decode())

    def test_writer_equals_cometbft(self):
        for t in V["trees"]:
            n = len(t["leaves"])
            with self.subTest(n=n):
                f = self.path("leaves", "".join(x + "\n" for x in t["leaves"]).encode())
                rc, out, err = run(["proof", "--leaves", "--all", "--format", "cometbft", f])
                self.assertEqual(rc, 0, err)
                self.assertEqual(out.decode().splitlines(), t["proofs"])
                for i in sorted({0, n // 2, n - 1}):
                    rc, out, err = run(["proof", "--leaves", "--index", str(i), "--format",
                                        "cometbft", f])
                    self.assertEqual((rc, out.decode()), (0, t["proofs"][i] + "\n"), err)
                    # And it verifies: the written proof read back.
                    rc2, out2, err2 = self.verify(out.decode(), t["root"], t["leaves"][i])
                    self.assertEqual(rc2, 0, (out2, err2))

    def test_format_usage_errors(self):
        f = self.path("leaves", b"00\n01\n02\n")
        for args in (["proof", "--leaves", "--index", "0", "--format", "yaml", f],
                     ["proof", "--leaves", "--index", "0", "--format", "cometbft", "--binary", f],
                     ["proof", "--leaves", "--index", "0", "--format", "cometbft", "--profile",
                      "sia", f],
                     ["proof", "--leaves", "--index", "0", "--format", "cometbft", "--hash",
                      "blake2b-256", f],
                     ["proof", "--leaves", "--range", "0:2", "--format", "cometbft", f],
                     ["consistency", "--leaves", "--old-size", "2", "--format", "cometbft", f],
                     ["proof", "--profile", "ssz", "--leaves", "--index", "0", "--format",
                      "cometbft", self.path("h", b"00" * 32 + b"\n")]):
            with self.subTest(args=args):
                rc, out, err = run(args)
                self.assertEqual(rc, 2, (out, err))
                self.assertEqual(out, b"")
        # --format json and binary are the existing outputs.
        self.assertEqual(run(["proof", "--leaves", "--index", "1", "--format", "json", f])[1],
                         run(["proof", "--leaves", "--index", "1", f])[1])
        self.assertEqual(run(["proof", "--leaves", "--index", "1", "--format", "binary", f])[1],
                         run(["proof", "--leaves", "--index", "1", "--binary", f])[1])

    def test_malformed_fields(self):
        c = next(c for c in V["cases"] if c["form"] == "cmtjson" and c["tamper"] == "" and
                 c["size"] == 5)
        good = json.loads(c["doc"])
        cases = {
            "negative total": dict(good, total="-1"),
            "total not a number": dict(good, total="5x"),
            "empty total": dict(good, total=""),
            "aunt neither hex nor base64": dict(good, aunts=["*not-base64*"] + good["aunts"][1:]),
            "leaf hash with a bad pad": dict(good, leaf_hash=good["leaf_hash"][:-1] + "=="),
        }
        for what, d in cases.items():
            with self.subTest(what=what):
                rc, out, err = self.verify(json.dumps(d), c["root"], c["leaf"])
                self.assertEqual(rc, 2, (out, err))
        # A base64 aunt of 20 bytes is well formed but cannot verify.
        d = dict(good, aunts=["AAECAwQFBgcICQoLDA0ODxAREhM="] + good["aunts"][1:])
        rc, out, err = self.verify(json.dumps(d), c["root"], c["leaf"])
        self.assertEqual(rc, 1, (out, err))
        # The same proof in hex (our own names and theirs mixed) still verifies.
        import base64
        h = dict(good, leaf_hash=base64.b64decode(good["leaf_hash"]).hex(),
                 aunts=[base64.b64decode(a).hex() for a in good["aunts"]])
        self.assertEqual(self.verify(json.dumps(h), c["root"], c["leaf"])[0], 0)


if __name__ == "__main__":
    unittest.main()
