# SPDX-License-Identifier: MIT OR Apache-2.0
"""`merkle root --profile bitcoin` on real blocks: the transactions of each block of
../shared/vectors/bitcoin-blocks.json (bitcoinjs-lib's block fixtures, raw block hex) are
parsed here, their txids (and wtxids) taken with hashlib, and the CLI's root must be the
block header's merkle root (and the witness commitment, where the block has one).

The blocks come from another project, so they are not in the repository; without the file
the test is skipped (exit 77, with a message).
"""
import hashlib
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import run, shared_vector_or_skip  # noqa: E402


def sha256d(b):
    return hashlib.sha256(hashlib.sha256(b).digest()).digest()


class Reader:
    def __init__(self, b):
        self.b, self.p = b, 0

    def take(self, n):
        if self.p + n > len(self.b):
            raise ValueError("truncated block")
        r = self.b[self.p:self.p + n]
        self.p += n
        return r

    def varint(self):
        v = self.take(1)[0]
        if v < 0xFD:
            return v
        return int.from_bytes(self.take({0xFD: 2, 0xFE: 4, 0xFF: 8}[v]), "little")


def parse_block(raw):
    """Returns (header merkle root, [(txid, wtxid, coinbase witness items)]), internal order."""
    r = Reader(raw)
    header = r.take(80)
    txs = []
    for _ in range(r.varint()):
        start = r.p
        version = r.take(4)
        segwit = r.b[r.p:r.p + 2] == b"\x00\x01"
        if segwit:
            r.take(2)
        body = r.p
        nin = r.varint()
        for _ in range(nin):
            r.take(36)
            r.take(r.varint())
            r.take(4)
        for _ in range(r.varint()):
            r.take(8)
            r.take(r.varint())
        body_end = r.p
        witness = []
        if segwit:
            for _ in range(nin):
                witness.append([r.take(r.varint()) for _ in range(r.varint())])
        locktime = r.take(4)
        stripped = version + r.b[body:body_end] + locktime
        txs.append((sha256d(stripped), sha256d(r.b[start:r.p]), witness))
    if r.p != len(raw):
        raise ValueError("trailing bytes after the last transaction")
    return header[36:68], txs


def lines(hashes):
    return b"".join(h.hex().encode() + b"\n" for h in hashes)


class BitcoinBlocks(unittest.TestCase):
    def root(self, hashes):
        rc, out, err = run(["root", "--profile", "bitcoin", "--leaves", "--internal-order"],
                           stdin=lines(hashes))
        self.assertEqual(rc, 0, err)
        return bytes.fromhex(out.split()[0].decode())

    def test_blocks(self):
        self.assertGreaterEqual(len(BLOCKS), 5)
        witnessed = 0
        for b in BLOCKS:
            with self.subTest(b["description"]):
                header_root, txs = parse_block(bytes.fromhex(b["hex"]))
                self.assertEqual(header_root.hex(), b["merkleRoot"])
                self.assertEqual(self.root([t[0] for t in txs]).hex(), b["merkleRoot"])
                # The display order (the default) is the same root reversed.
                rc, out, _ = run(["root", "--profile", "bitcoin", "--leaves"],
                                 stdin=lines(t[0][::-1] for t in txs))
                self.assertEqual(rc, 0)
                self.assertEqual(out.split()[0].decode(), header_root[::-1].hex())
                if "witnessCommit" in b:
                    # BIP 141: the coinbase's wtxid is 0; the commitment is
                    # SHA-256d(witness root || the coinbase's witness reserved value).
                    wtxids = [bytes(32)] + [t[1] for t in txs[1:]]
                    reserved = txs[0][2][0][0]
                    commit = sha256d(self.root(wtxids) + reserved)
                    self.assertEqual(commit.hex(), b["witnessCommit"])
                    witnessed += 1
        self.assertGreaterEqual(witnessed, 1)

    def test_block_input(self):
        """--block reads the raw block itself (hex text or binary, a file or stdin): the
        root is the header's, every branch verifies against it."""
        import tempfile
        for b in BLOCKS:
            with self.subTest(b["description"]), tempfile.TemporaryDirectory() as d:
                raw = bytes.fromhex(b["hex"])
                hexf, binf = os.path.join(d, "b.hex"), os.path.join(d, "b.bin")
                with open(hexf, "w") as f:
                    f.write("0x" + b["hex"][:100] + "\n" + b["hex"][100:] + "\n")
                with open(binf, "wb") as f:
                    f.write(raw)
                want = bytes.fromhex(b["merkleRoot"])[::-1].hex()
                for args, stdin in ((["--block", hexf], None), (["--block", binf], None),
                                    (["--block", "-"], raw)):
                    rc, out, err = run(["root", "--profile", "bitcoin"] + args, stdin=stdin)
                    self.assertEqual(rc, 0, err)
                    self.assertEqual(out.split()[0].decode(), want)
                rc, out, err = run(["root", "--profile", "bitcoin", "--block", "--internal-order",
                                    binf])
                self.assertEqual(out.split()[0].decode(), b["merkleRoot"])
                _, txs = parse_block(raw)
                for i in sorted({0, len(txs) // 2, len(txs) - 1}):
                    rc, proof, err = run(["proof", "--profile", "bitcoin", "--block", binf,
                                          "--index", str(i)])
                    self.assertEqual(rc, 0, err)
                    p = json.loads(proof)
                    self.assertEqual(p["leaf_hash"], txs[i][0][::-1].hex())
                    pf = os.path.join(d, "p.json")
                    with open(pf, "wb") as f:
                        f.write(proof)
                    rc, out, err = run(["verify", pf, "--root", want])
                    self.assertEqual(rc, 0, err)


BLOCKS = json.load(open(shared_vector_or_skip("bitcoin-blocks.json")))["blocks"]

if __name__ == "__main__":
    unittest.main()
