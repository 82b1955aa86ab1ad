# SPDX-License-Identifier: MIT OR Apache-2.0
"""End-to-end tests of `merkle clvm hash|serialize [--backrefs] [FILE]`: every clvm vector
through the CLI, the expansion bomb, white space, stdin and files, and every error path
(bad hex, truncated, back reference to nothing, trailing bytes, over a limit, usage)."""
import hashlib
import os
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import run, vectors  # noqa: E402

FOX = bytes.fromhex("74686520717569636b2062726f776e20666f78206a756d7073206f76657220746865206c617a7920646f6773")


def atom_hex(b):
    if len(b) == 0:
        return "80"
    if len(b) == 1 and b[0] < 0x80:
        return b.hex()
    n = len(b)
    if n < 0x40:
        pre = bytes([0x80 | n])
    elif n < 0x2000:
        pre = bytes([0xC0 | (n >> 8), n & 0xFF])
    elif n < 0x100000:
        pre = bytes([0xE0 | (n >> 16), (n >> 8) & 0xFF, n & 0xFF])
    else:
        raise ValueError("test atoms stay small")
    return (pre + b).hex()


def canonical_of(v):
    if "canonical_hex" in v:
        return v["canonical_hex"]
    g = v["tree_generator"]
    if g["kind"] == "atom_fill":
        h = atom_hex(bytes.fromhex(g["byte_hex"]) * g["len"])
    else:
        h = atom_hex(bytes.fromhex(g["leaf_atom_hex"]))
        for _ in range(g["depth"]):
            h = "ff" + h + h
    assert len(h) // 2 == v["canonical_len"]
    assert hashlib.sha256(bytes.fromhex(h)).hexdigest() == v["canonical_sha256"]
    return h


def bomb_hex(depth):
    return "ff" * depth + atom_hex(FOX) + "fe02" * depth


def tree_hash(b):
    """Reference sha256tree over a canonical serialization (python, iterative)."""
    pos = 0
    ops, vals = [0], []
    while ops:
        op = ops.pop()
        if op == 1:
            r, l = vals.pop(), vals.pop()
            vals.append(hashlib.sha256(b"\x02" + l + r).digest())
            continue
        c = b[pos]
        if c == 0xFF:
            pos += 1
            ops += [1, 0, 0]
            continue
        if c < 0x80:
            atom, pos = b[pos:pos + 1], pos + 1
        elif c == 0x80:
            atom, pos = b"", pos + 1
        else:
            ones = 0
            while c & (0x80 >> ones):
                ones += 1
            size = c & (0xFF >> ones)
            for i in range(1, ones):
                size = (size << 8) | b[pos + i]
            atom = b[pos + ones:pos + ones + size]
            pos += ones + size
        vals.append(hashlib.sha256(b"\x01" + atom).digest())
    return vals[0].hex()


class ClvmVectors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.v = vectors("tree-public.json")["clvm"]

    def test_tree_hash_vectors(self):
        for v in self.v["tree_hash"]:
            h = canonical_of(v)
            rc, out, err = run(["clvm", "hash"], h.encode())
            self.assertEqual(rc, 0, err)
            self.assertEqual(out.decode(), v["tree_hash_hex"] + "\n", v["id"])
            self.assertEqual(tree_hash(bytes.fromhex(h)), v["tree_hash_hex"])
            rc, out, err = run(["clvm", "serialize"], h.encode())
            self.assertEqual(rc, 0, err)
            self.assertEqual(out.decode(), h + "\n", v["id"])

    def test_backref_serialize_vectors(self):
        for v in self.v["backref_serialize"]:
            h = canonical_of(v)
            rc, out, err = run(["clvm", "serialize", "--backrefs"], h.encode())
            self.assertEqual(rc, 0, err)
            br = out.decode().strip()
            head = v["backref_clvm_rs_head"]
            self.assertLessEqual(len(br) // 2, head["len"], v["id"])
            self.assertLessEqual(len(br) // 2, v["canonical_len"], v["id"])
            self.assertEqual(br, head["hex"], v["id"])
            # round trip: the back-reference form serializes back to the canonical one
            rc, out, err = run(["clvm", "serialize"], br.encode())
            self.assertEqual(rc, 0, err)
            self.assertEqual(out.decode().strip(), h, v["id"])
            for var in ("backref_clvm_rs_2024", "backref_clvm_python"):
                if var in v:
                    rc, out, err = run(["clvm", "serialize"], v[var]["hex"].encode())
                    self.assertEqual(rc, 0, err)
                    self.assertEqual(out.decode().strip(), h, v["id"] + " " + var)

    def test_backref_decode_vectors(self):
        for v in self.v["backref_decode"]:
            rc, out, err = run(["clvm", "hash"], v["input_hex"].encode())
            if v["expect"] == "ok":
                self.assertEqual(rc, 0, err)
                self.assertEqual(out.decode().strip(), v["tree_hash_hex"], v["id"])
                rc, out, err = run(["clvm", "serialize"], v["input_hex"].encode())
                self.assertEqual(out.decode().strip(), v["canonical_hex"], v["id"])
            else:
                self.assertEqual(rc, 1, v["id"])
                self.assertEqual(out, b"")
                self.assertIn(b"byte offset", err, v["id"])


class ClvmCli(unittest.TestCase):
    def test_bomb_within_a_second(self):
        h = bomb_hex(30)
        self.assertEqual(len(h) // 2, 135)
        t0 = time.monotonic()
        rc, out, err = run(["clvm", "hash"], h.encode())
        self.assertEqual(rc, 0, err)
        t = hashlib.sha256(b"\x01" + FOX).digest()
        for _ in range(30):
            t = hashlib.sha256(b"\x02" + t + t).digest()
        self.assertEqual(out.decode(), t.hex() + "\n")
        rc, out, err = run(["clvm", "serialize", "--backrefs"], h.encode())
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.decode(), h + "\n")
        # the canonical form (about 49 GB) is refused, not attempted
        rc, out, err = run(["clvm", "serialize"], h.encode())
        self.assertEqual(rc, 1)
        self.assertEqual(out, b"")
        self.assertIn(b"49392123903 bytes", err)
        self.assertIn(b"limit", err)
        self.assertLess(time.monotonic() - t0, 3.0)

    def test_whitespace_file_and_stdin(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "prog.hex")
            with open(p, "w") as f:
                f.write("ff 83 66 6f 6f\n\tFE02\r\n")
            rc, out, err = run(["clvm", "hash", p])
            self.assertEqual(rc, 0, err)
            want = "4a40c538671ef10c8d956e5dd3625e167c8adfb666c943f67f91ea58fd7a302c\n"
            self.assertEqual(out.decode(), want)
            rc, out2, err = run(["clvm", "hash", "-"], b"ff83666f6f83666f6f")
            self.assertEqual(out2.decode(), want)
            rc, out, err = run(["clvm", "serialize", "--backrefs", p])
            self.assertEqual(out, b"ff83666f6ffe02\n")
            rc, out, err = run(["clvm", "serialize", "--", p])
            self.assertEqual(out, b"ff83666f6f83666f6f\n")
            rc, out, err = run(["clvm", "hash", os.path.join(d, "missing")])
            self.assertEqual(rc, 1)
            self.assertIn(b"missing", err)

    def test_malformed_inputs(self):
        cases = [
            (b"ff8366zz", b"bad hex character 'z' at offset 6"),
            (b"ff83666", b"odd number of hex digits"),
            (b"ff83666f", b"truncated input: atom at byte offset 1"),
            (b"ff83666f6f", b"truncated input: value at byte offset 5"),
            (b"ff83666f6ffe", b"back-reference path at byte offset 6"),
            (b"ff01fe04", b"walks into an atom"),
            (b"fe02", b"past the bottom of the parse stack"),
            (b"ff01feff", b"path must be an atom"),
            (b"fc", b"bad atom prefix 0xfc"),
            (b"0102", b"1 trailing bytes after the serialization, at byte offset 1"),
            (b"  \n", b"empty input"),
        ]
        for data, msg in cases:
            for sub in (["hash"], ["serialize"], ["serialize", "--backrefs"]):
                rc, out, err = run(["clvm"] + sub, data)
                self.assertEqual(rc, 1, (data, sub))
                self.assertEqual(out, b"")
                self.assertIn(msg, err, (data, sub, err))

    def test_over_limits(self):
        # an atom that claims 2^33 bytes: over the 64 MiB atom limit
        rc, out, err = run(["clvm", "hash"], b"fa00000000")
        self.assertEqual(rc, 1)
        self.assertIn(b"atom size limit", err)
        # depth: 2^20 nested pairs
        rc, out, err = run(["clvm", "hash"], b"ff" * (1 << 20) + b"80" * ((1 << 20) + 1))
        self.assertEqual(rc, 1)
        self.assertIn(b"depth limit", err)

    def test_deep_tree_iterative(self):
        # 100k-deep right and left spines: no recursion anywhere
        n = 100000
        right = "ff01" * n + "80"
        rc, out, err = run(["clvm", "hash"], right.encode())
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.decode().strip(), tree_hash(bytes.fromhex(right)))
        left = "ff" * n + "80" + "01" * n
        rc, out, err = run(["clvm", "serialize", "--backrefs"], left.encode())
        self.assertEqual(rc, 0, err)
        rc, out2, err = run(["clvm", "serialize"], out)
        self.assertEqual(out2.decode().strip(), left)

    def test_usage(self):
        for args in (["clvm"], ["clvm", "frob"], ["clvm", "hash", "--backrefs"],
                     ["clvm", "serialize", "--bogus"], ["clvm", "hash", "a", "b"]):
            rc, out, err = run(args)
            self.assertEqual(rc, 2, args)
            self.assertIn(b"clvm", err)
        rc, out, err = run(["clvm", "--help"])
        self.assertEqual(rc, 0)
        self.assertIn(b"merkle clvm serialize [--backrefs] [FILE]", out)


if __name__ == "__main__":
    unittest.main()
