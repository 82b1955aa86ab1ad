# SPDX-License-Identifier: MIT OR Apache-2.0
"""Issue 23 item 8: inputs the reference implementations accept (or refuse) and merkle
did not: an ssz list limit of 2^62 with --mix-in-length (@chainsafe/ssz), an OpenZeppelin
dump whose keys come in any order and bools that are only true/false
(@openzeppelin/merkle-tree 1.0.8), no pieces root for an empty bittorrent-v2 leaf list
(libtorrent 2.0.8), the txid (not the wtxid) of a segwit transaction given to
`merkle verify --leaf-hex` (bitcoinjs-lib), and a dump's syntax error not called "proof
JSON"."""
import hashlib
import json
import unittest

from cliutil import TempDirCase, run


def sha(b):
    return hashlib.sha256(b).digest()


def sha256d(b):
    return sha(sha(b))


def ssz_list_root(chunks, depth):
    """SSZ merkleization of chunks padded to 2^depth, with the length mixed in."""
    zero = [bytes(32)]
    for _ in range(depth):
        zero.append(sha(zero[-1] + zero[-1]))
    level = list(chunks)
    for h in range(depth):
        if len(level) % 2:
            level.append(zero[h])
        level = [sha(level[i] + level[i + 1]) for i in range(0, len(level), 2)]
    data = level[0] if level else zero[depth]
    return sha(data + len(chunks).to_bytes(32, "little"))


class SszLimit(TempDirCase):
    CHUNKS = [bytes([i + 1]) * 32 for i in range(3)]

    def leaves(self):
        return self.path("l", "".join(c.hex() + "\n" for c in self.CHUNKS).encode())

    def test_limit_2_62_root(self):
        rc, out, err = run(["root", "--profile", "ssz", "--mix-in-length", "--limit",
                            str(1 << 62), "--leaves", self.leaves()])
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.split()[0].decode(), ssz_list_root(self.CHUNKS, 62).hex())

    def test_limit_2_62_proof_verifies(self):
        rc, out, err = run(["proof", "--profile", "ssz", "--mix-in-length", "--limit",
                            str(1 << 62), "--index", "1", "--leaves", self.leaves()])
        self.assertEqual(rc, 0, err)
        p = json.loads(out)
        self.assertEqual(p["gindex"], (1 << 63) + 1)
        f = self.path("p.json", out)
        root = ssz_list_root(self.CHUNKS, 62).hex()
        rc, vout, err = run(["verify", f, "--root", root])
        self.assertEqual(rc, 0, err)
        self.assertTrue(vout.startswith(b"OK: leaf %d " % ((1 << 63) + 1)), vout)
        # Another chunk at that index does not verify.
        rc, vout, _ = run(["verify", f, "--root", root, "--leaf-hash", "ab" * 32])
        self.assertEqual(rc, 1)

    def test_limit_above_2_62_refused(self):
        rc, out, err = run(["root", "--profile", "ssz", "--mix-in-length", "--limit",
                            str((1 << 62) + 1), "--leaves", self.leaves()])
        self.assertEqual(rc, 2)
        self.assertEqual(out, b"")
        self.assertIn(b"1..2^62", err)


class OzDump(TempDirCase):
    def dump(self):
        rows = self.path("rows", b"true,5\nfalse,7\n")
        d = self.dir + "/d.json"
        rc, out, err = run(["root", "--profile", "openzeppelin", "--values", "bool,uint256",
                            "--dump", d, rows])
        self.assertEqual(rc, 0, err)
        with open(d, encoding="utf-8") as f:
            return json.load(f), out.split()[0]

    def load(self, obj, name="x.json"):
        return run(["root", "--profile", "openzeppelin", "--load",
                    self.path(name, json.dumps(obj).encode())])

    def test_any_key_order(self):
        d, root = self.dump()
        orders = [["values", "leafEncoding", "tree", "format"],
                  ["tree", "values", "format", "leafEncoding"],
                  ["values", "format", "tree", "leafEncoding"]]
        for keys in orders:
            with self.subTest(keys=keys):
                rc, out, err = self.load({k: d[k] for k in keys})
                self.assertEqual(rc, 0, err)
                self.assertEqual(out.split()[0], root)

    def test_reordered_dump_still_checked(self):
        d, _ = self.dump()
        d["values"][0]["value"][1] = "6"  # no longer hashes to its tree node
        rc, out, err = self.load({k: d[k] for k in ["values", "leafEncoding", "tree", "format"]})
        self.assertEqual(rc, 1)
        self.assertEqual(out, b"")
        self.assertIn(b"does not hash to tree node", err)

    def test_missing_leaf_encoding(self):
        d, _ = self.dump()
        del d["leafEncoding"]
        rc, out, err = self.load({k: d[k] for k in ["values", "tree", "format"]})
        self.assertNotEqual(rc, 0)
        self.assertEqual(out, b"")
        self.assertIn(b'missing "leafEncoding"', err)

    def test_string_tree_index_named_dump(self):
        d, _ = self.dump()
        d["values"][0]["treeIndex"] = "2"
        rc, out, err = self.load(d)
        self.assertNotEqual(rc, 0)
        self.assertEqual(out, b"")
        self.assertIn(b"dump JSON", err)
        self.assertNotIn(b"proof JSON", err)

    def test_bool_only_true_false(self):
        for bad in (b"1,5\n", b"0,5\n", b"True,5\n"):
            with self.subTest(row=bad):
                rc, out, err = run(["root", "--profile", "openzeppelin", "--values",
                                    "bool,uint256", self.path("r", bad)])
                self.assertEqual(rc, 1)
                self.assertEqual(out, b"")
                self.assertIn(b"not a valid bool", err)
        rc, out, err = run(["root", "--profile", "openzeppelin", "--values", "bool,uint256",
                            self.path("r", b"true,5\nfalse,5\n")])
        self.assertEqual(rc, 0, err)


class BittorrentEmpty(TempDirCase):
    def test_empty_leaves_no_root(self):
        for cmd in (["root"], ["proof", "--index", "0"]):
            with self.subTest(cmd=cmd):
                rc, out, err = run(cmd + ["--profile", "bittorrent-v2", "--leaves",
                                          self.path("empty")])
                self.assertEqual(rc, 1)
                self.assertEqual(out, b"")
                self.assertIn(b"pieces root" if cmd == ["root"] else b"0 leaves", err)

    def test_one_leaf_still_a_root(self):
        rc, out, err = run(["root", "--profile", "bittorrent-v2", "--leaves",
                            self.path("one", b"ab" * 32 + b"\n")])
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.split()[0], b"ab" * 32)


def tx(tag, witness=None):
    body = (b"\x01" + bytes([tag]) * 36 + b"\x00" + b"\xff\xff\xff\xff"
            + b"\x01" + (1000).to_bytes(8, "little") + b"\x01\x51")
    plain = b"\x02\x00\x00\x00" + body + b"\x00\x00\x00\x00"
    if witness is None:
        return plain, sha256d(plain)
    full = (b"\x02\x00\x00\x00\x00\x01" + body + b"\x01" + bytes([len(witness)]) + witness
            + b"\x00\x00\x00\x00")
    return full, sha256d(plain)


class SegwitLeaf(TempDirCase):
    def test_verify_leaf_hex_segwit_is_txid(self):
        txs = [tx(1), tx(2, witness=b"\x07" * 20), tx(3), tx(4, witness=b"\x08" * 30)]
        leaves = self.path("ids", b"".join(t[1][::-1].hex().encode() + b"\n" for t in txs))
        rc, root, err = run(["root", "--profile", "bitcoin", "--leaves", leaves])
        self.assertEqual(rc, 0, err)
        root = root.split()[0].decode()
        for i, (raw, _) in enumerate(txs):
            with self.subTest(i=i):
                rc, out, err = run(["proof", "--profile", "bitcoin", "--index", str(i),
                                    "--leaves", leaves])
                self.assertEqual(rc, 0, err)
                f = self.path("p%d.json" % i, out)
                rc, vout, err = run(["verify", f, "--root", root, "--leaf-hex", raw.hex()])
                self.assertEqual(rc, 0, (vout, err))
                self.assertTrue(vout.startswith(b"OK: leaf %d " % i), vout)
                # The transaction at another index is refused.
                other = txs[(i + 1) % len(txs)][0]
                rc, vout, _ = run(["verify", f, "--root", root, "--leaf-hex", other.hex()])
                self.assertEqual(rc, 1)
                self.assertTrue(vout.startswith(b"FAILED"))


if __name__ == "__main__":
    unittest.main()
