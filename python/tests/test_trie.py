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
