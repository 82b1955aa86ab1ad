# SPDX-License-Identifier: MIT OR Apache-2.0
"""Python bindings: inclusion, consistency and range proofs against every public proof vector,
encodings round trips, tampering, and agreement with `merkle proof`."""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mtest  # noqa: E402
import merkle  # noqa: E402

HAVE = hasattr(merkle, "proof")


def leaves_of(spec):
    if spec["gen"] == "decimal":
        return mtest.decimal_leaves(spec["n"])
    return [bytes.fromhex(x) for x in spec["leaves"]]


def hx(items):
    return [x.hex() for x in items]


@unittest.skipUnless(HAVE, "this libmerkle has no proof module")
class ProofVectors(unittest.TestCase):
    def setUp(self):
        self.vs = mtest.vectors()["vectors"]

    def each(self, op, fmt=None):
        out = [v for v in self.vs if v["op"] == op and (fmt is None or v["format"] == fmt)]
        self.assertTrue(out, op)
        return out

    def test_inclusion_vectors(self):
        for v in self.each("inclusion_proof"):
            leaves = leaves_of(v["input"]["leaves"])
            i = v["input"]["index"]
            if v["expected"].get("error"):
                with self.assertRaises(merkle.MerkleError, msg=v["id"]) as cm:
                    merkle.inclusion_proof(leaves, i)
                self.assertEqual(cm.exception.status, merkle.ERR_RANGE, v["id"])
                continue
            p = merkle.inclusion_proof(leaves, i, hash=v["hash"])
            e = v["expected"]
            self.assertEqual((p.kind, p.tree_size, p.index), ("inclusion", len(leaves), i))
            self.assertEqual(hx(p.path), e["path"], v["id"])
            self.assertEqual(p.root.hex(), e["root"], v["id"])
            self.assertEqual(p.leaf_hash.hex(), e["leaf_hash"], v["id"])
            self.assertTrue(merkle.verify_inclusion(p.leaf_hash, i, len(leaves), p.path, p.root))
            self.assertTrue(p.verify(root=bytes.fromhex(e["root"]), leaf=leaves[i]))
            with self.assertRaises(merkle.MerkleError) as cm:
                p.verify(root=bytes(32), leaf=leaves[i])
            self.assertEqual(cm.exception.status, merkle.ERR_VERIFY)
            with self.assertRaises(merkle.MerkleError) as cm:
                p.verify(leaf=leaves[i] + b"x", untrusted_root=True)
            self.assertEqual(cm.exception.status, merkle.ERR_VERIFY)
            # The claim is bound (issue 23 item 6): no trusted root, another index or size.
            with self.assertRaises(merkle.MerkleError) as cm:
                p.verify(leaf=leaves[i])
            self.assertEqual(cm.exception.status, merkle.ERR_ARG)
            self.assertTrue(p.verify(root=p.root, leaf=leaves[i], index=i,
                                     tree_size=len(leaves)))
            for pin in ({"index": i + 1}, {"tree_size": len(leaves) + 1}, {"old_size": 1}):
                with self.assertRaises(merkle.MerkleError) as cm:
                    p.verify(root=p.root, leaf=leaves[i], **pin)
                self.assertEqual(cm.exception.status, merkle.ERR_VERIFY, pin)
            with self.assertRaises(merkle.MerkleError) as cm:
                p.verify(root=p.root, untrusted_root=True)
            self.assertEqual(cm.exception.status, merkle.ERR_ARG)

    def test_cometbft_vectors(self):
        for v in self.each("proof", "cometbft"):
            leaves = leaves_of(v["input"]["leaves"])
            i = v["input"]["index"]
            e = v["expected"]
            if e.get("error"):
                with self.assertRaises(merkle.MerkleError, msg=v["id"]):
                    merkle.inclusion_proof(leaves, i)
                with self.assertRaises(merkle.MerkleError, msg=v["id"]):
                    merkle.verify_cometbft(bytes.fromhex(e["root"]), len(leaves), i, bytes(32),
                                           [], b"")
                continue
            p = merkle.inclusion_proof(leaves, i)
            self.assertEqual(hx(p.path), e["aunts"], v["id"])
            self.assertTrue(merkle.verify_cometbft(bytes.fromhex(e["root"]), e["total"], i,
                                                   bytes.fromhex(e["leaf_hash"]),
                                                   [bytes.fromhex(a) for a in e["aunts"]],
                                                   leaves[i]))
            with self.assertRaises(merkle.MerkleError):
                merkle.verify_cometbft(bytes.fromhex(e["root"]), e["total"], i,
                                       bytes.fromhex(e["leaf_hash"]),
                                       [bytes.fromhex(a) for a in e["aunts"]], leaves[i] + b"!")

    def test_consistency_vectors(self):
        for v in self.each("consistency_proof"):
            leaves = leaves_of(v["input"]["leaves"])
            m = v["input"]["old_size"]
            e = v["expected"]
            if e.get("error"):
                with self.assertRaises(merkle.MerkleError, msg=v["id"]) as cm:
                    merkle.consistency_proof(leaves, m)
                self.assertEqual(cm.exception.status, merkle.ERR_RANGE, v["id"])
                continue
            p = merkle.consistency_proof(leaves, m)
            self.assertEqual((p.old_size, p.new_size), (m, len(leaves)))
            self.assertEqual(hx(p.path), e["proof"], v["id"])
            self.assertEqual(p.old_root.hex(), e["old_root"], v["id"])
            self.assertEqual(p.root.hex(), e["new_root"], v["id"])
            self.assertTrue(merkle.verify_consistency(m, len(leaves), p.old_root, p.root, p.path))
            self.assertTrue(p.verify(root=p.root, old_root=p.old_root))

    def test_sia_reader_proof_vectors(self):
        for v in self.each("reader_proof"):
            data = mtest.counter_bytes(v["input"]["stream"]["len"])
            seg, i, h = v["input"]["segment_size"], v["input"]["index"], v["hash"]
            e = v["expected"]
            if e.get("error"):
                with self.assertRaises(merkle.MerkleError, msg=v["id"]) as cm:
                    merkle.stream_proof(data, "inclusion", i, leaf_size=seg, hash=h)
                self.assertEqual(cm.exception.status, merkle.ERR_RANGE, v["id"])
                continue
            p = merkle.stream_proof(data, "inclusion", i, leaf_size=seg, hash=h)
            self.assertEqual(hx(p.path), e["proof_set"][1:], v["id"])
            self.assertEqual(p.root.hex(), e["root"], v["id"])
            self.assertEqual(p.tree_size, e["num_leaves"])
            segment = bytes.fromhex(e["proof_set"][0])
            self.assertTrue(merkle.verify_sia(p.root, segment, p.path, i, e["num_leaves"], h))
            with self.assertRaises(merkle.MerkleError):
                merkle.verify_sia(p.root, segment + b"\x00", p.path, i, e["num_leaves"], h)

    def test_sia_range_proof_vectors(self):
        for v in self.each("range_proof"):
            data = mtest.counter_bytes(v["input"]["stream"]["len"])
            seg, h = v["input"]["segment_size"], v["hash"]
            a, b = v["input"]["leaf_range"]
            p = merkle.stream_proof(data, "range", a, b, leaf_size=seg, hash=h)
            e = v["expected"]
            self.assertEqual(hx(p.path), e["proof"], v["id"])
            self.assertEqual(p.root.hex(), e["root"], v["id"])
            leaves = [data[k:k + seg] for k in range(a * seg, min(b * seg, len(data)), seg)]
            self.assertTrue(merkle.verify_range(a, b, leaves, p.path, p.root, hash=h))
            self.assertTrue(p.verify(leaves=leaves, root=p.root))
            with self.assertRaises(merkle.MerkleError) as cm:
                merkle.verify_range(a, b, [x + b"!" for x in leaves], p.path, p.root, hash=h)
            self.assertEqual(cm.exception.status, merkle.ERR_VERIFY)

    def test_verify_vectors(self):
        n = 0
        for v in self.each("verify_inclusion") + self.each("verify_consistency"):
            x = v["input"]
            # Every vector through the JSON reader of the library (which also takes the
            # transparency-dev key names and roots of any length) ...
            doc = dict(x, type="inclusion" if v["op"] == "verify_inclusion" else "consistency",
                       profile="rfc6962", hash="sha256")
            try:
                via_json = merkle.Proof.from_json(json.dumps(doc)).verify(untrusted_root=True)
            except merkle.MerkleError as e:
                self.assertIn(e.status, (merkle.ERR_VERIFY, merkle.ERR_FORMAT), v["id"])
                via_json = False
            self.assertEqual(via_json, v["expected"]["valid"], v["id"] + " (json)")
            # ... and those with 32-byte hashes through the plain verify functions.
            hashes = [x.get(k) for k in ("leaf_hash", "root", "root1", "root2") if k in x]
            if any(len(h) != 64 for h in hashes + x["proof"]):
                continue
            try:
                if v["op"] == "verify_inclusion":
                    ok = merkle.verify_inclusion(bytes.fromhex(x["leaf_hash"]), x["index"],
                                                 x["tree_size"],
                                                 [bytes.fromhex(h) for h in x["proof"]],
                                                 bytes.fromhex(x["root"]))
                else:
                    ok = merkle.verify_consistency(x["size1"], x["size2"], bytes.fromhex(x["root1"]),
                                                   bytes.fromhex(x["root2"]),
                                                   [bytes.fromhex(h) for h in x["proof"]])
            except merkle.MerkleError as e:
                self.assertIn(e.status, (merkle.ERR_VERIFY, merkle.ERR_ARG), v["id"])
                ok = False
            self.assertEqual(ok, v["expected"]["valid"], v["id"])
            n += 1
        self.assertGreater(n, 100)


@unittest.skipUnless(HAVE, "this libmerkle has no proof module")
class ProofObjects(unittest.TestCase):
    def test_encodings_round_trip(self):
        leaves = mtest.decimal_leaves(37)
        proofs = [merkle.inclusion_proof(leaves, 17), merkle.consistency_proof(leaves, 20),
                  merkle.range_proof(leaves, 3, 11),
                  merkle.inclusion_proof(leaves, 5, profile="sia"),
                  merkle.stream_proof(mtest.counter_bytes(1000), "inclusion", 3, leaf_size=64,
                                      profile="sia")]
        for p in proofs:
            b = p.encode()
            self.assertEqual(b[:4], b"MRKP")
            q = merkle.Proof.decode(b)
            self.assertEqual(q, p)
            self.assertEqual((q.kind, q.path, q.root, q.leaf), (p.kind, p.path, p.root, p.leaf))
            j = p.to_json()
            self.assertEqual(json.loads(j)["type"], p.kind)
            self.assertEqual(merkle.Proof.from_json(j).path, p.path)
            self.assertTrue(q.verify(root=p.root, old_root=p.old_root if p.kind == "consistency" else None,
                                     leaves=leaves[3:11] if p.kind == "range" else None))
        self.assertEqual(proofs[3].leaf, leaves[5])   # a Sia proof carries its segment
        with self.assertRaises(merkle.MerkleError) as cm:
            merkle.Proof.decode(proofs[0].encode()[:-1])
        self.assertEqual(cm.exception.status, merkle.ERR_FORMAT)
        with self.assertRaises(merkle.MerkleError) as cm:
            merkle.Proof.from_json("{not json")
        self.assertEqual(cm.exception.status, merkle.ERR_FORMAT)

    def test_stream_proofs_match_leaf_list_proofs(self):
        data = mtest.counter_bytes(5000)
        leaves = [data[i:i + 100] for i in range(0, len(data), 100)]
        with tempfile_path(data) as path:
            for src in (data, path, open(path, "rb")):
                p = merkle.stream_proof(src, "inclusion", 7, leaf_size=100)
                self.assertEqual(p.path, merkle.inclusion_proof(leaves, 7).path)
                self.assertEqual(p.root, merkle.root(data, leaf_size=100))
                if hasattr(src, "close"):
                    src.close()
        c = merkle.stream_proof(data, "consistency", old_size=13, leaf_size=100)
        self.assertEqual(c.path, merkle.consistency_proof(leaves, 13).path)
        with self.assertRaises(merkle.MerkleError) as cm:
            merkle.stream_proof(data, "sideways")
        self.assertEqual(cm.exception.status, merkle.ERR_ARG)

    @unittest.skipUnless(mtest.merkle_bin(), "merkle command not available")
    def test_agrees_with_cli(self):
        b = mtest.merkle_bin()
        if subprocess.run([b, "proof", "--help"], capture_output=True).returncode != 0:
            self.skipTest("merkle proof not in this binary")
        leaves = mtest.decimal_leaves(11)
        text = b"".join(x.hex().encode() + b"\n" for x in leaves)
        out = subprocess.run([b, "proof", "--leaves", "--index", "6"], input=text,
                             capture_output=True, check=True).stdout.decode()
        p = merkle.Proof.from_json(out)
        self.assertEqual(p.path, merkle.inclusion_proof(leaves, 6).path)
        self.assertEqual(p.root, merkle.root_leaves(leaves))
        binary = subprocess.run([b, "consistency", "--leaves", "--old-size", "4", "--binary"],
                                input=text, capture_output=True, check=True).stdout
        self.assertEqual(merkle.Proof.decode(binary), merkle.consistency_proof(leaves, 4))


class tempfile_path:
    def __init__(self, data):
        import tempfile
        self.f = tempfile.NamedTemporaryFile(delete=False)
        self.f.write(data)
        self.f.close()

    def __enter__(self):
        return self.f.name

    def __exit__(self, *exc):
        os.unlink(self.f.name)


if __name__ == "__main__":
    unittest.main()
