#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The one whole-file reader of the CLI (cli_read_file): a regular file, a pipe that grows
the buffer, and the size limits with their messages."""
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import TempDirCase, run  # noqa: E402


class ReadWhole(TempDirCase):
    def test_pipe_and_file_read_the_same(self):
        """A trie operation list larger than the first buffer: from a pipe (grown buffer)
        and from a regular file (one buffer of its size) the root is the same."""
        rnd = random.Random(7)
        ops = "".join("put %s %s\n" % (rnd.randbytes(16).hex(), rnd.randbytes(8).hex())
                      for _ in range(20000)).encode()
        self.assertGreater(len(ops), 4 << 16)
        p = self.path("ops", ops)
        rc1, out1, err1 = run(["trie", "root", p])
        rc2, out2, err2 = run(["trie", "root", "-"], stdin=ops)
        self.assertEqual((rc1, rc2), (0, 0), (err1, err2))
        self.assertEqual(out1, out2)
        # an empty file and an empty pipe: the empty trie
        e = self.path("empty")
        self.assertEqual(run(["trie", "root", e])[1], run(["trie", "root"], stdin=b"")[1])

    @unittest.skipUnless(os.path.exists("/dev/zero"), "no /dev/zero")
    def test_limits(self):
        # a proof file is at most 64 MiB: an endless input stops there
        rc, out, err = run(["verify", "/dev/zero", "--untrusted-root"])
        self.assertEqual(rc, 2)
        self.assertEqual(err, b"merkle: /dev/zero: larger than 67108864 bytes\n")
        # CLVM hex text is at most 256 MiB
        rc, out, err = run(["clvm", "hash", "/dev/zero"])
        self.assertEqual(rc, 1)
        self.assertIn(b"clvm: /dev/zero: input larger than 268435456 bytes of hex text", err)

    def test_missing_file(self):
        missing = os.path.join(self.dir, "nope")
        rc, _, err = run(["verify", missing, "--untrusted-root"])
        self.assertEqual((rc, err), (2, b"merkle: %s: No such file or directory\n"
                                     % missing.encode()))
        rc, _, err = run(["trie", "root", missing])
        self.assertEqual((rc, err), (1, b"merkle: trie: %s: No such file or directory\n"
                                     % missing.encode()))


if __name__ == "__main__":
    unittest.main(verbosity=2)
