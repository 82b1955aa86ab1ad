# SPDX-License-Identifier: MIT OR Apache-2.0
"""0x-hex in (issue 26 item 1): Ethereum and Chia users paste 0x...; every list line and hex
option that these commands read takes an optional 0x/0X and means the same bytes."""
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


if __name__ == "__main__":
    unittest.main()
