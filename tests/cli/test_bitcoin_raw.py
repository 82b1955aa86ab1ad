# SPDX-License-Identifier: MIT OR Apache-2.0
"""`merkle root --profile bitcoin --block`: blocks built here (with hashlib as the reference),
and every way a block can be refused. The real blocks are in test_bitcoin_blocks.py."""
import hashlib
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import run  # noqa: E402


def sha256d(b):
    return hashlib.sha256(hashlib.sha256(b).digest()).digest()


def tx(tag, script=b"\x51", witness=None):
    """One input, one output; with witness, the BIP 144 serialization. Returns
    (serialization, txid bytes, wtxid bytes)."""
    body = (b"\x01" + bytes([tag]) * 36 + b"\x00" + b"\xff\xff\xff\xff"
            + b"\x01" + (1000).to_bytes(8, "little") + bytes([len(script)]) + script)
    plain = b"\x02\x00\x00\x00" + body + b"\x00\x00\x00\x00"
    if witness is None:
        return plain, sha256d(plain), sha256d(plain)
    wit = b"\x01" + bytes([len(witness)]) + witness
    full = b"\x02\x00\x00\x00\x00\x01" + body + wit + b"\x00\x00\x00\x00"
    return full, sha256d(plain), sha256d(full)


def root(ids):
    level = list(ids)
    while len(level) > 1:
        if len(level) % 2:
            level.append(level[-1])
        level = [sha256d(level[i] + level[i + 1]) for i in range(0, len(level), 2)]
    return level[0]


def block(n, segwit=False, bad_commitment=False, header_root=None):
    others = [tx(i + 1, witness=bytes([i]) * 20 if segwit else None) for i in range(n - 1)]
    if segwit:
        reserved = bytes(32)
        wroot = root([bytes(32)] + [t[2] for t in others])
        commit = bytearray(sha256d(wroot + reserved))
        if bad_commitment:
            commit[0] ^= 1
        cb = tx(0, script=b"\x6a\x24\xaa\x21\xa9\xed" + bytes(commit), witness=reserved)
    else:
        cb = tx(0)
    txs = [cb] + others
    r = root([t[1] for t in txs])
    header = b"\x01" * 36 + (header_root or r) + b"\x02" * 12
    return header + bytes([len(txs)]) + b"".join(t[0] for t in txs), r


class RawBlocks(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def file(self, data, name="b.bin"):
        p = os.path.join(self.dir.name, name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def root_of(self, data, *extra):
        return run(["root", "--profile", "bitcoin", "--block", *extra, self.file(data)])

    def test_roots(self):
        for n in (1, 2, 3, 7, 16):
            for segwit in (False, True):
                with self.subTest(n=n, segwit=segwit):
                    data, r = block(n, segwit)
                    rc, out, err = self.root_of(data)
                    self.assertEqual(rc, 0, err)
                    self.assertEqual(out.split()[0].decode(), r[::-1].hex())
                    rc, out, err = self.root_of(data.hex().encode(), "--internal-order")
                    self.assertEqual((rc, out.split()[0].decode()), (0, r.hex()), err)

    def refused(self, data, words, rc_want=1):
        rc, out, err = self.root_of(data)
        self.assertEqual(rc, rc_want, err)
        self.assertEqual(out, b"")
        for w in words:
            self.assertIn(w, err.decode())

    def test_refusals(self):
        data, _ = block(3, segwit=True)
        self.refused(data[:-1], ["not a Bitcoin block", "truncated"])
        self.refused(data + b"\x00", ["not a Bitcoin block", "after the last transaction"])
        self.refused(b"hello", ["not a Bitcoin block", "80 bytes"])
        self.refused(b"0x" + data.hex().encode() + b"0", ["odd number of hex digits"])
        bad, _ = block(3, segwit=True, bad_commitment=True)
        self.refused(bad, ["witness commitment does not match"])
        wrong, _ = block(3, header_root=bytes(32))
        self.refused(wrong, ["header's merkle root is not the root"])
        # A non-minimal transaction count (fd 0300 for 3).
        self.refused(data[:80] + b"\xfd\x03\x00" + data[81:], ["non-canonical"])
        # Witness data, but no commitment in the coinbase.
        cb = tx(0)
        w = tx(1, witness=b"\x01" * 20)
        r = root([cb[1], w[1]])
        self.refused(b"\x01" * 36 + r + b"\x02" * 12 + b"\x02" + cb[0] + w[0],
                     ["witness data in a block without a witness commitment"])
        rc, _, err = run(["root", "--profile", "bitcoin", "--block", os.path.join(self.dir.name, "none")])
        self.assertEqual(rc, 1)
        self.assertIn("No such file", err.decode())

    def test_usage(self):
        data, _ = block(2)
        f = self.file(data)
        rc, _, err = run(["root", "--profile", "ssz", "--block", f])
        self.assertEqual(rc, 2)
        self.assertIn("belong to the bitcoin profile", err.decode())
        rc, _, err = run(["root", "--profile", "bitcoin", "--block", "--leaves", f])
        self.assertEqual(rc, 2)
        self.assertIn("either --leaves or --block", err.decode())


if __name__ == "__main__":
    unittest.main()
