# SPDX-License-Identifier: MIT OR Apache-2.0
"""End-to-end tests of `merkle trie root|prove|verify`: every merkledb trie_root vector
through the CLI, random operation files against an independent Python reference (the
canonical shape of docs/formats.md section 2, hashlib only) for all branch factors, proofs and their tampered forms,
the operation-file syntax, and every error path with its exit code."""
import hashlib
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import TempDirCase, run, vectors  # noqa: E402

B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def uvarint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def cb58(b):
    data = b + hashlib.sha256(b).digest()[-4:]
    n = int.from_bytes(data, "big")
    s = ""
    while n:
        n, r = divmod(n, 58)
        s = B58[r] + s
    zeros = len(data) - len(data.lstrip(b"\0"))
    return "1" * zeros + s


def bits(key):
    return "".join(format(c, "08b") for c in key)


def ref_root(kv, bf):
    """Root ID of the canonical trie of the dict kv (bytes -> bytes), docs/formats.md section 2."""
    ts = {2: 1, 4: 2, 16: 4, 256: 8}[bf]
    if not kv:
        return bytes(32)

    def build(items):  # items: list of (bitstring, value)
        p = min(len(k) for k, _ in items)
        first = items[0][0]
        for k, _ in items:
            c = 0
            while c < p and k[c] == first[c]:
                c += 1
            p = c
        p -= p % ts
        groups = {}
        value = None
        for k, v in items:
            if len(k) == p:
                value = v
            else:
                groups.setdefault(int(k[p:p + ts], 2), []).append((k, v))
        pre = uvarint(len(groups))
        for t in sorted(groups):
            pre += uvarint(t) + build(groups[t])
        if value is None:
            pre += b"\0"
        else:
            d = value if len(value) < 32 else hashlib.sha256(value).digest()
            pre += b"\1" + uvarint(len(d)) + d
        kb = first[:p] + "0" * (-p % 8)
        pre += uvarint(p) + bytes(int(kb[i:i + 8], 2) for i in range(0, len(kb), 8))
        return hashlib.sha256(pre).digest()

    return build([(bits(k), v) for k, v in kv.items()])


def hexdash(b):
    return b.hex() if b else "-"


class TrieCli(TempDirCase):

    def root_of(self, ops, bf=None):
        args = ["trie", "root"] + (["--branch-factor", str(bf)] if bf else [])
        rc, out, err = run(args, ops)
        self.assertEqual(rc, 0, err)
        return out.decode()

    def test_vectors(self):
        n = 0
        for v in vectors("tree-public.json")["merkledb"]["trie_root"]:
            if "kv" in v:
                kv = [(bytes.fromhex(k), bytes.fromhex(x)) for k, x in v["kv"]]
            else:
                kv = [(uvarint(i), hashlib.sha256(uvarint(i)).digest()) for i in range(v["num_keys"])]
            ops = "".join("put %s %s\n" % (hexdash(k), hexdash(x)) for k, x in kv).encode()
            out = self.root_of(ops, v["branch_factor"])
            self.assertEqual(out, "%s  %s\n" % (v["expected_root_hex"], v["expected_root_cb58"]), v["id"])
            self.assertEqual(ref_root(dict(kv), v["branch_factor"]).hex(), v["expected_root_hex"])
            n += 1
        self.assertGreaterEqual(n, 10)

    def test_default_branch_factor_is_16(self):
        ops = b"put 6b657930 76616c756530\nput 6b657931 76616c756531\n"
        self.assertEqual(self.root_of(ops), self.root_of(ops, 16))
        self.assertNotEqual(self.root_of(ops), self.root_of(ops, 2))

    def test_random_ops_vs_reference(self):
        rnd = random.Random(42)
        alpha = [0x00, 0x01, 0x0F, 0x10, 0x7F, 0x80, 0xF0, 0xFF]
        for round_ in range(24):
            bf = [2, 4, 16, 256][round_ % 4]
            kv = {}
            lines = ["# random round %d" % round_, ""]
            for _ in range(rnd.randrange(1, 120)):
                k = bytes(rnd.choice(alpha) for _ in range(rnd.randrange(0, 5)))
                if rnd.random() < 0.3:
                    lines.append("del\t%s" % hexdash(k))
                    kv.pop(k, None)
                else:
                    v = bytes(rnd.randrange(256) for _ in range(rnd.choice([0, 1, 31, 32, 33, 40])))
                    lines.append("  put %s   %s  # set" % (hexdash(k), hexdash(v).upper()))
                    kv[k] = v
            want = ref_root(kv, bf)
            out = self.root_of(("\r\n" if round_ % 5 == 0 else "\n").join(lines).encode(), bf)
            self.assertEqual(out, "%s  %s\n" % (want.hex(), cb58(want)), "round %d" % round_)

    def test_empty_and_file_argument(self):
        z = bytes(32)
        self.assertEqual(self.root_of(b""), "%s  %s\n" % (z.hex(), "11111111111111111111111111111111LpoYY"))
        p = self.path("ops", b"put - -\n")
        rc, out, err = run(["trie", "root", p])
        self.assertEqual(rc, 0, err)
        want = ref_root({b"": b""}, 16)
        self.assertEqual(out.decode(), "%s  %s\n" % (want.hex(), cb58(want)))
        rc, out2, _ = run(["trie", "root", "-"], b"put - -\n")
        self.assertEqual(out2, out)
        # delete everything -> empty root
        self.assertEqual(self.root_of(b"put 00 01\nput 0001 02\ndel 00\ndel 0001\n"),
                         "%s  %s\n" % (z.hex(), "11111111111111111111111111111111LpoYY"))

    def prove(self, ops, key, bf=None):
        args = ["trie", "prove", "--key", key] + (["--branch-factor", str(bf)] if bf else [])
        rc, out, err = run(args, ops)
        self.assertEqual(rc, 0, err)
        return out

    def test_prove_verify(self):
        rnd = random.Random(7)
        for bf in (2, 4, 16, 256):
            kv = {}
            for i in range(40):
                kv[bytes([rnd.randrange(4) * 60 for _ in range(rnd.randrange(0, 4))])] = bytes([i] * (i % 35))
            ops = "".join("put %s %s\n" % (hexdash(k), hexdash(v)) for k, v in kv.items()).encode()
            root = ref_root(kv, bf)
            keys = list(kv)[:4] + [b"\x01\x02", b"", b"\x3c\x3c\x3c\x3c"]
            for k in keys:
                proof = self.prove(ops, hexdash(k), bf)
                p = self.path("proof", proof)
                for rstr in (root.hex(), cb58(root)):
                    rc, out, err = run(["trie", "verify", p, "--root", rstr])
                    self.assertEqual(rc, 0, err)
                    if k in kv:
                        self.assertEqual(out.decode(), "OK: key %s present, value %s\n" % (hexdash(k), hexdash(kv[k])))
                    else:
                        self.assertEqual(out.decode(), "OK: key %s absent\n" % hexdash(k))
                # via stdin
                rc, out, _ = run(["trie", "verify", "-", "--root", root.hex()], proof)
                self.assertEqual(rc, 0)
                # wrong root: FAILED, exit 1
                bad = bytearray(root)
                bad[0] ^= 1
                rc, out, _ = run(["trie", "verify", p, "--root", bytes(bad).hex()])
                self.assertEqual(rc, 1)
                self.assertTrue(out.startswith(b"FAILED: "), out)
                # tampered proofs never verify a false statement
                for i in range(0, len(proof), max(1, len(proof) // 12)):
                    t = bytearray(proof)
                    t[i] ^= 0x10
                    rc, out, err = run(["trie", "verify", "-", "--root", root.hex()], bytes(t))
                    if rc == 0:
                        line = out.decode().split()
                        kk = b"" if line[2] == "-" else bytes.fromhex(line[2])
                        self.assertEqual(line[3] == "present", kk in kv)
                    else:
                        self.assertIn(rc, (1, 2))
                        self.assertTrue(out.startswith(b"FAILED: ") if rc == 1 else b"malformed" in err, (out, err))

    def test_op_file_errors(self):
        cases = [
            (b"put 00\n", b":1: put needs"),
            (b"put 00 01 02\n", b":1: put takes"),
            (b"del\n", b":1: del needs"),
            (b"del 00 01\n", b":1: del takes"),
            (b"\n# ok\nget 00\n", b":3: unknown operation 'get'"),
            (b"put 0 01\n", b":1: invalid key"),
            (b"put 00 zz\n", b":1: invalid value"),
            (b"put 00 01\nput xx 01\n", b":2: invalid key"),
            (b"put 00 \x0001\n", b":1:"),
            (b"PUT 00 01\n", b":1: unknown operation"),
        ]
        for data, msg in cases:
            for action in (["root"], ["prove", "--key", "00"]):
                rc, out, err = run(["trie"] + action, data)
                self.assertEqual(rc, 1, (data, err))
                self.assertEqual(out, b"")
                self.assertIn(msg, err, data)
        rc, _, err = run(["trie", "root", os.path.join(self.dir, "missing")])
        self.assertEqual(rc, 1)
        self.assertIn(b"missing", err)

    def test_usage_errors(self):
        p = self.path("p", b"MTRP")
        cases = [
            ["trie"],
            ["trie", "frob"],
            ["trie", "root", "--branch-factor", "8"],
            ["trie", "root", "--branch-factor", "x"],
            ["trie", "root", "--bogus"],
            ["trie", "root", "a", "b"],
            ["trie", "root", "--key", "00"],
            ["trie", "prove"],
            ["trie", "prove", "--key", "0g"],
            ["trie", "prove", "--key"],
            ["trie", "verify", p],
            ["trie", "verify", "--root", "00" * 32],
            ["trie", "verify", p, "--root", "00" * 31],
            ["trie", "verify", p, "--root", "notanid"],
            ["trie", "verify", p, "--root", "00" * 32, "--branch-factor", "16"],
            ["trie", "verify", os.path.join(self.dir, "missing"), "--root", "00" * 32],
        ]
        for args in cases:
            rc, out, err = run(args)
            self.assertEqual(rc, 2, (args, err))
            self.assertTrue(err, args)
        rc, out, _ = run(["trie", "--help"])
        self.assertEqual(rc, 0)
        self.assertIn(b"merkle trie root", out)
        rc, out, _ = run(["trie", "root", "--help"])
        self.assertEqual(rc, 0)

    def test_malformed_proofs_exit_2(self):
        z = "00" * 32
        for data in (b"", b"MTRP", b"XTRP\x01\x04\x00\x00\x00", b"MTRP\x02\x04\x00\x00\x00",
                     b"MTRP\x01\x04\x00\x00\x00\x00", b"MTRP\x01\x04\x00\x01"):
            rc, out, err = run(["trie", "verify", "-", "--root", z], data)
            self.assertEqual(rc, 2, data)
            self.assertIn(b"malformed", err)
        # the empty trie's proof verifies against the zero root only
        rc, out, _ = run(["trie", "verify", "-", "--root", z], b"MTRP\x01\x04\x00\x00\x00")
        self.assertEqual((rc, out), (0, b"OK: key - absent\n"))
        proof = self.prove(b"", "abcd")
        self.assertEqual(proof, b"MTRP\x01\x04\x00\x02\xab\xcd\x00")

    def test_threads_option(self):
        rnd = random.Random(3)
        ops = "".join("put %s %s\n" % (rnd.randbytes(8).hex(), rnd.randbytes(4).hex()) for _ in range(3000)).encode()
        one = self.root_of(ops)
        rc, out, err = run(["trie", "root", "-j", "4"], ops)
        self.assertEqual((rc, out.decode()), (0, one))


if __name__ == "__main__":
    unittest.main()
