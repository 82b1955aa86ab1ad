# SPDX-License-Identifier: MIT OR Apache-2.0
"""Python bindings: merkledb trie roots, node IDs, proofs and cb58 against the public vectors."""
import hashlib
import os
import random
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mtest  # noqa: E402
import merkle  # noqa: E402

HAVE_TRIE = hasattr(merkle, "Trie")


def uvarint(i):
    out = bytearray()
    while True:
        b = i & 0x7F
        i >>= 7
        if i:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def vector_kv(v):
    if "kv" in v:
        return [(bytes.fromhex(k), bytes.fromhex(val)) for k, val in v["kv"]]
    assert v["kv_generator"].startswith("for i in 0..num_keys-1: key = uvarint(i)")
    return [(uvarint(i), hashlib.sha256(uvarint(i)).digest()) for i in range(v["num_keys"])]


@unittest.skipUnless(HAVE_TRIE, "this libmerkle has no trie")
class TrieVectors(unittest.TestCase):
    def setUp(self):
        self.v = mtest.vectors("tree-public.json")["merkledb"]

    def test_root_vectors(self):
        for v in self.v["trie_root"]:
            kv = vector_kv(v)
            got = merkle.trie_root(kv, branch_factor=v["branch_factor"])
            self.assertEqual(got.hex(), v["expected_root_hex"], v["id"])
            self.assertEqual(merkle.cb58_encode(got), v["expected_root_cb58"], v["id"])
            # insertion order and deletions never change the root
            with merkle.Trie(v["branch_factor"]) as t:
                rng = random.Random(v["id"])
                shuffled = kv[:]
                rng.shuffle(shuffled)
                t.update(shuffled)
                t.put(b"\xffextra", b"x")
                self.assertTrue(t.delete(b"\xffextra"))
                self.assertEqual(t.root(threads=2).hex(), v["expected_root_hex"], v["id"])
                self.assertEqual(len(t), len(dict(kv)))

    def test_node_id_vectors(self):
        for v in self.v["node_id"]:
            node = v["node"]
            value = None if node["value_hex"] is None else bytes.fromhex(node["value_hex"])
            kids = [(c["index"], bytes.fromhex(c["child_id_hex"])) for c in node["children"]]
            got = merkle.trie.hash_node(bytes.fromhex(node["key_hex"]), node["key_bit_length"],
                                        value, kids)
            self.assertEqual(got.hex(), v["expected_id_hex"], v["id"])
            self.assertEqual(got, hashlib.sha256(bytes.fromhex(v["preimage_hex"])).digest())
            self.assertEqual(merkle.cb58_encode(got), v["expected_id_cb58"], v["id"])
            self.assertEqual(merkle.parse_id(v["expected_id_cb58"]), got)
            self.assertEqual(merkle.parse_id(got.hex()), got)

    def test_cb58_vectors(self):
        for v in self.v["cb58"]:
            raw = bytes.fromhex(v["bytes_hex"])
            self.assertEqual(merkle.cb58_encode(raw), v["cb58"])
            self.assertEqual(merkle.cb58_decode(v["cb58"]), raw)


@unittest.skipUnless(HAVE_TRIE, "this libmerkle has no trie")
class TrieObject(unittest.TestCase):
    def test_mapping_behaviour(self):
        t = merkle.Trie()
        self.assertEqual(t.branch_factor, 16)
        self.assertEqual(t.root(), bytes(32))
        t[b"a"] = b"1"
        t[b""] = b""           # the empty key with a present, empty value
        t.put(bytearray(b"ab"), memoryview(b"2"))
        self.assertEqual(t[b"a"], b"1")
        self.assertEqual(t.get(b""), b"")
        self.assertIsNone(t.get(b"zz"))
        self.assertIn(b"ab", t)
        self.assertNotIn(b"b", t)
        self.assertEqual(t.items(), [(b"", b""), (b"a", b"1"), (b"ab", b"2")])
        with self.assertRaises(KeyError):
            t[b"nope"]
        with self.assertRaises(KeyError):
            del t[b"nope"]
        r1 = t.root()
        del t[b""]
        self.assertNotEqual(t.root(), r1)
        t.close()
        t.close()
        with self.assertRaises(merkle.MerkleError) as cm:
            len(t)
        self.assertEqual(cm.exception.status, merkle.ERR_STATE)

    def test_proofs_present_absent_and_tampered(self):
        rng = random.Random(5)
        kv = {bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 6))): bytes([i])
              for i in range(200)}
        for bf in (2, 4, 16, 256):
            with merkle.Trie(bf, kv) as t:
                root = t.root()
                for key in list(kv)[:20] + [b"\x00absent", b"\xff" * 9]:
                    proof = t.prove(key)
                    self.assertEqual(proof[:4], b"MTRP")
                    info = merkle.trie_verify(proof, root)
                    self.assertEqual(info.key, key)
                    self.assertEqual(info.branch_factor, bf)
                    self.assertEqual(info.present, key in kv)
                    self.assertEqual(info.value, kv.get(key))
                    self.assertEqual(merkle.trie_verify(proof, root.hex()), info)
                    self.assertEqual(merkle.trie_verify(proof, merkle.cb58_encode(root)), info)
                    # any other root: MERKLE_ERR_VERIFY
                    with self.assertRaises(merkle.MerkleError) as cm:
                        merkle.trie_verify(proof, bytes(32))
                    self.assertEqual(cm.exception.status, merkle.ERR_VERIFY)
                    # a truncated proof: MERKLE_ERR_FORMAT
                    with self.assertRaises(merkle.MerkleError) as cm:
                        merkle.trie_verify(proof[:-1], root)
                    self.assertEqual(cm.exception.status, merkle.ERR_FORMAT)

    def test_verify_binds_the_claim(self):
        # issue 23 item 6: key/value/absent/branch_factor pin what the proof must prove.
        kv = {b"k": b"v", b"l": b"w", b"": b"\x00", b"kk": b""}
        E = merkle.MerkleError
        for bf in (2, 16, 256):
            with merkle.Trie(bf, kv) as t:
                root = t.root()
                pk, pm, pe = t.prove(b"k"), t.prove(b"m"), t.prove(b"")
                ok = merkle.trie_verify(pk, root, key=b"k", value=b"v", branch_factor=bf)
                self.assertEqual((ok.key, ok.value, ok.present), (b"k", b"v", True))
                self.assertEqual(merkle.trie_verify(pk, root, key=b"k"), ok)
                self.assertFalse(merkle.trie_verify(pm, root, key=b"m", absent=True).present)
                self.assertEqual(merkle.trie_verify(pe, root, key=b"", value=b"\x00").key, b"")
                self.assertEqual(merkle.trie_verify(t.prove(b"kk"), root, key=bytearray(b"kk"),
                                                    value=b"").value, b"")
                for proof, kw, detail in [
                    (pk, dict(key=b"l"), "the proof is for key 6b, not 6c"),
                    (pk, dict(key=b"l", value=b"v"), "the proof is for key 6b, not 6c"),
                    (pk, dict(key=b""), "the proof is for key 6b, not -"),
                    (pe, dict(key=b"\x00", value=b"\x00"), "the proof is for key -, not 00"),
                    (pm, dict(key=b"n", absent=True), "the proof is for key 6d, not 6e"),
                    (pk, dict(key=b"k", value=b"w"), "key 6b has value 76, not 77"),
                    (pk, dict(key=b"k", value=b""), "key 6b has value 76, not -"),
                    (pk, dict(key=b"k", absent=True), "key 6b is present (value 76), not absent"),
                    (pm, dict(key=b"m", value=b"v"), "key 6d is absent, not present with value 76"),
                    (pk, dict(branch_factor=4 if bf != 4 else 2),
                     "the proof is for branch factor %d, not %d" % (bf, 4 if bf != 4 else 2)),
                ]:
                    with self.assertRaises(E) as cm:
                        merkle.trie_verify(proof, root, **kw)
                    self.assertEqual((cm.exception.status, cm.exception.detail),
                                     (merkle.ERR_VERIFY, detail), kw)
                for kw in (dict(value=b"v"), dict(absent=True),
                           dict(key=b"k", value=b"v", absent=True)):
                    with self.assertRaises(E) as cm:
                        merkle.trie_verify(pk, root, **kw)
                    self.assertEqual(cm.exception.status, merkle.ERR_ARG, kw)
                with self.assertRaises(TypeError):
                    merkle.trie_verify(pk, root, key="k")
                # the root check comes first
                with self.assertRaises(E) as cm:
                    merkle.trie_verify(pk, bytes(32), key=b"k", value=b"v")
                self.assertEqual(cm.exception.status, merkle.ERR_VERIFY)
                self.assertNotIn("the proof is for", cm.exception.detail)

    def test_apply_text_and_errors(self):
        t = merkle.Trie()
        self.assertEqual(t.apply_text("# ops\nput 6b 76\nput - -\n\ndel 6b\nput 01 02\n"), 4)
        self.assertEqual(t.items(), [(b"", b""), (b"\x01", b"\x02")])
        with self.assertRaises(merkle.MerkleError) as cm:
            t.apply_text("put 01 03\nput zz 00\n")
        e = cm.exception
        self.assertEqual(e.status, merkle.ERR_FORMAT)
        self.assertEqual(e.line, 2)
        self.assertTrue(e.detail)
        self.assertEqual(t[b"\x01"], b"\x03")   # the line before the bad one stays applied
        with self.assertRaises(merkle.MerkleError) as cm:
            merkle.Trie(branch_factor=3)
        self.assertEqual(cm.exception.status, merkle.ERR_ARG)
        with self.assertRaises(merkle.MerkleError) as cm:
            merkle.cb58_decode("45PJLM")
        self.assertEqual(cm.exception.status, merkle.ERR_FORMAT)
        with self.assertRaises(merkle.MerkleError):
            merkle.parse_id("00" * 31)
        with self.assertRaises(TypeError):
            t.put("k", b"v")

    @unittest.skipUnless(mtest.merkle_bin(), "merkle command not available")
    def test_agrees_with_cli(self):
        ops = "put 6b6579 76616c7565\nput - -\nput 00ff 01\n"
        p = subprocess.run([mtest.merkle_bin(), "trie", "root"], input=ops.encode(),
                           capture_output=True, check=True)
        t = merkle.Trie()
        t.apply_text(ops)
        root = t.root()
        self.assertEqual(p.stdout.decode(), "%s  %s\n" % (root.hex(), merkle.cb58_encode(root)))
        proof = subprocess.run([mtest.merkle_bin(), "trie", "prove", "--key", "00ff"],
                               input=ops.encode(), capture_output=True, check=True).stdout
        self.assertEqual(proof, t.prove(b"\x00\xff"))
        self.assertEqual(merkle.trie_verify(proof, root).value, b"\x01")


if __name__ == "__main__":
    unittest.main()
