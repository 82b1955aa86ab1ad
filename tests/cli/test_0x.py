# SPDX-License-Identifier: MIT OR Apache-2.0
"""0x-hex in and out (issue 26 item 1): Ethereum and Chia users paste 0x...; every list line and
hex option that these commands read takes an optional 0x/0X and means the same bytes; --0x
prints every hash with a 0x prefix (roots, JSON proofs, clvm tree hashes)."""
import json
import os
import random
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import run  # noqa: E402


class ZeroX(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.rnd = random.Random(1)

    def tearDown(self):
        self.dir.cleanup()

    def file(self, name, text):
        p = os.path.join(self.dir.name, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def both(self, args_plain, args_0x):
        a = run(args_plain)
        b = run(args_0x)
        self.assertEqual(a[0], 0, a[2])
        self.assertEqual(b[0], 0, b[2])
        self.assertEqual(a[1].split()[0], b[1].split()[0])

    def test_list_lines(self):
        hashes = [bytes(self.rnd.randrange(256) for _ in range(32)).hex() for _ in range(11)]
        plain = self.file("plain", "".join(h + "\n" for h in hashes))
        zx = self.file("zx", "".join(("0x" if i % 2 else "0X") + h + "\n" for i, h in enumerate(hashes)))
        for prof in (["--leaves"], ["--leaf-hashes"], ["--profile", "ssz", "--leaves"],
                     ["--profile", "openzeppelin", "--leaves"], ["--profile", "bitcoin", "--leaves"]):
            with self.subTest(prof=prof):
                self.both(["root"] + prof + [plain], ["root"] + prof + [zx])
                self.both(["proof", "--index", "3"] + prof + [plain], ["proof", "--index", "3"] + prof + [zx])

    def test_clvm(self):
        prog = "ff8568656c6c6fff80ff8080"
        self.both(["clvm", "hash", self.file("p", prog + "\n")],
                  ["clvm", "hash", self.file("q", "  0x" + prog + "\n")])
        rc, _, err = run(["clvm", "hash", self.file("r", "x0" + prog)])
        self.assertEqual(rc, 1)
        self.assertIn("bad hex", err.decode())

    def test_trie_key_and_salt(self):
        ops = self.file("ops", "put 6b6579 76616c7565\nput 6b6570 78\n")
        a = run(["trie", "prove", "--key", "6b6579", ops])
        b = run(["trie", "prove", "--key", "0x6b6579", ops])
        self.assertEqual((a[0], b[0]), (0, 0), (a[2], b[2]))
        self.assertEqual(a[1], b[1])
        data = self.file("d", "x" * 10000)
        self.both(["root", "--profile", "fsverity", "--salt", "00ff", data],
                  ["root", "--profile", "fsverity", "--salt", "0x00ff", data])


def strip0x(v):
    if isinstance(v, str):
        return v[2:] if v.startswith("0x") else v
    if isinstance(v, list):
        return [strip0x(x) for x in v]
    if isinstance(v, dict):
        return {k: strip0x(x) for k, x in v.items()}
    return v


def hex_strings(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, list):
        for x in v:
            yield from hex_strings(x)
    elif isinstance(v, dict):
        for x in v.values():
            yield from hex_strings(x)


class ZeroXOut(ZeroX):
    """--0x on output: the same bytes with a 0x prefix on every hash, nothing else changed."""

    def hashes(self, n):
        return [bytes(self.rnd.randrange(256) for _ in range(32)).hex() for _ in range(n)]

    def test_root_every_profile(self):
        lst = self.file("l", "".join(h + "\n" for h in self.hashes(9)))
        data = self.file("d", "y" * 70000)
        for args in (["--leaves", lst], ["--leaf-hashes", lst], [data], ["--profile", "sia", data],
                     ["--profile", "ssz", "--leaves", lst],
                     ["--profile", "openzeppelin", "--leaves", lst],
                     ["--profile", "bitcoin", "--leaves", lst],
                     ["--profile", "bittorrent-v2", data]):
            with self.subTest(args=args):
                a = run(["root"] + args)
                b = run(["root", "--0x"] + args)
                self.assertEqual((a[0], b[0]), (0, 0), (a[2], b[2]))
                self.assertEqual(b[1], b"0x" + a[1])

    def test_proofs(self):
        hs = self.hashes(7)
        lst = self.file("l", "".join(h + "\n" for h in hs))
        rng = ["--leaf", self.file("r", "".join(h + "\n" for h in hs[2:5]))]
        for args in (["proof", "--leaves", "--index", "3"], ["proof", "--leaves", "--range", "2:5"],
                     ["consistency", "--leaves", "--old-size", "3"],
                     ["proof", "--profile", "openzeppelin", "--leaves", "--index", "1"],
                     ["proof", "--profile", "openzeppelin", "--leaves", "--index", "1,4"],
                     ["proof", "--profile", "ssz", "--leaves", "--index", "2"],
                     ["proof", "--profile", "ssz", "--leaves", "--gindex", "9,10"],
                     ["proof", "--profile", "bitcoin", "--leaves", "--index", "5"]):
            with self.subTest(args=args):
                a = run(args + [lst])
                b = run(args + ["--0x", lst])
                self.assertEqual((a[0], b[0]), (0, 0), (a[2], b[2]))
                ja, jb = json.loads(a[1]), json.loads(b[1])
                self.assertEqual(strip0x(jb), ja)
                # Every hex value has its prefix; names and numbers do not.
                for v in hex_strings(jb):
                    if v in ("inclusion", "range", "consistency", "multiproof") or \
                            v == jb.get("profile") or v == jb.get("hash"):
                        continue
                    self.assertTrue(v.startswith("0x"), v)
                self.assertEqual(jb["type"], ja["type"])
                # And the 0x proof verifies as the plain one does.
                pa = self.file("pa.json", a[1].decode())
                pb = self.file("pb.json", b[1].decode())
                extra = (rng if "--range" in args else []) + \
                    ["--root", jb.get("root") or jb.get("new_root")] + \
                    (["--old-root", jb["old_root"]] if "old_root" in jb else [])
                ra, rb = run(["verify", pa] + extra), run(["verify", pb] + extra)
                self.assertEqual((ra[0], rb[0]), (0, 0), (ra, rb))

    def test_all_lines(self):
        lst = self.file("l", "".join(h + "\n" for h in self.hashes(5)))
        a = run(["proof", "--leaves", "--all", lst])
        b = run(["proof", "--leaves", "--all", "--0x", lst])
        self.assertEqual((a[0], b[0]), (0, 0))
        la, lb = a[1].decode().splitlines(), b[1].decode().splitlines()
        self.assertEqual(len(la), 5)
        self.assertEqual([strip0x(json.loads(x)) for x in lb], [json.loads(x) for x in la])
        self.assertIn('"root": "0x', lb[0])

    def test_clvm_hash(self):
        p = self.file("p", "ff8568656c6c6fff80ff8080\n")
        a, b = run(["clvm", "hash", p]), run(["clvm", "hash", "--0x", p])
        self.assertEqual((a[0], b[0]), (0, 0))
        self.assertEqual(b[1], b"0x" + a[1])

    def test_verify_hex_options(self):
        hs = self.hashes(6)
        lst = self.file("l", "".join(h + "\n" for h in hs))
        rc, out, _ = run(["proof", "--leaves", "--index", "2", lst])
        self.assertEqual(rc, 0)
        j = json.loads(out)
        p = self.file("p.json", out.decode())
        for pre in ("0x", "0X"):
            for leaf in (["--leaf-hex", pre + hs[2]], ["--leaf-hash", pre + j["leaf_hash"]]):
                with self.subTest(pre=pre, leaf=leaf[0]):
                    rc, out, err = run(["verify", p, "--root", pre + j["root"]] + leaf)
                    self.assertEqual((rc, out[:3]), (0, b"OK:"), err)
        # A wrong root with the prefix still fails; a bare 0x is an empty root.
        bad = ("%02x" % (int(j["root"][:2], 16) ^ 1)) + j["root"][2:]
        self.assertEqual(run(["verify", p, "--root", "0x" + bad])[0], 1)
        self.assertEqual(run(["verify", p, "--root", "0x"])[0], 1)

    def test_refused_with_binary_and_base64(self):
        lst = self.file("l", "00\n01\n")
        for extra in (["--binary"], ["--format", "binary"], ["--format", "cometbft"]):
            with self.subTest(extra=extra):
                rc, out, err = run(["proof", "--leaves", "--index", "0", "--0x", lst] + extra)
                self.assertEqual(rc, 2, err)
                self.assertEqual(out, b"")
                self.assertIn("--0x", err.decode())


if __name__ == "__main__":
    unittest.main()
