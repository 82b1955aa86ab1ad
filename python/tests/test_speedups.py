# SPDX-License-Identifier: MIT OR Apache-2.0
"""merkle._speedups (the compiled fast paths a pip install builds) against the ctypes
implementations they replace: same roots, same Trie contents and roots, and the same
exceptions for every kind of bad argument, which the fast paths hand to the ctypes code.
Skipped when the package has no _speedups (Debian package, source tree); the pip-install
test runs it and asserts the module is there."""
import os
import random
import unittest

import merkle
from merkle import tree

SP = merkle._speedups


@unittest.skipIf(SP is None, "no merkle._speedups in this installation (ctypes only)")
class Speedups(unittest.TestCase):
    def test_root_same_as_ctypes(self):
        rng = random.Random(5)
        slow = tree._root_ctypes
        for n in (0, 1, 31, 32, 33, 63, 64, 65, 4095, 4096, 4097, 70000):
            data = rng.randbytes(n)
            for kw in ({}, {"leaf_size": 1}, {"leaf_size": 32}, {"profile": "sia"},
                       {"profile": "sia", "hash": "sha256"}, {"hash": "blake2b-256"},
                       {"leaf_size": 64, "profile": "rfc6962", "hash": None, "threads": 1},
                       {"threads": None}, {"threads": 2}):
                with self.subTest(n=n, kw=kw):
                    want = slow(data, **kw)
                    self.assertEqual(merkle.root(data, **kw), want)
                    self.assertEqual(merkle.root(bytearray(data), **kw), want)
                    self.assertEqual(merkle.root(memoryview(data)[::1], **kw), want)
            self.assertEqual(merkle.root(data, 16, "rfc6962", "sha256"), slow(data, 16))

    def test_root_errors_same_as_ctypes(self):
        slow = tree._root_ctypes
        for args, kw in (((b"x",), {"leaf_size": 0}), ((b"x",), {"leaf_size": -3}),
                         ((b"x",), {"profile": "nope"}), ((b"x",), {"hash": "md5"}),
                         (("text",), {}), ((b"x",), {"leaf_size": 1.5}),
                         ((b"x",), {"leaf_size": True}), ((b"x",), {"threads": -1}),
                         ((b"x",), {"bogus": 1}), ((), {}), ((b"x", 1, "sia", None, 1, 9), {}),
                         ((b"x", 4), {"leaf_size": 4}),
                         ((memoryview(bytes(64))[::2],), {})):  # not contiguous
            with self.subTest(args=args, kw=kw):
                with self.assertRaises(Exception) as want:
                    slow(*args, **kw)
                with self.assertRaises(Exception) as got:
                    merkle.root(*args, **kw)
                self.assertIs(type(got.exception), type(want.exception))
                self.assertEqual(str(got.exception), str(want.exception))

    def test_trie_put_same_as_ctypes(self):
        rng = random.Random(7)
        fast, slow = merkle.Trie(), merkle.Trie()
        for i in range(3000):
            k = rng.randbytes(rng.randrange(0, 12))
            v = rng.randbytes(rng.randrange(0, 70))
            if i % 3 == 0:
                fast[bytearray(k)] = bytearray(v)
            elif i % 3 == 1:
                fast.put(k, v)
            else:
                fast.put(memoryview(k), v)  # not bytes: the ctypes path
            merkle.Trie._put_ctypes(slow, k, v)
        self.assertEqual(fast.items(), slow.items())
        self.assertEqual(fast.root(), slow.root())

    def test_trie_put_errors_same_as_ctypes(self):
        t = merkle.Trie()
        for args in (("k", b"v"), (b"k", "v"), (b"k", 5.0), (None, b"v")):
            with self.subTest(args=args):
                with self.assertRaises(Exception) as want:
                    merkle.Trie._put_ctypes(t, *args)
                with self.assertRaises(Exception) as got:
                    t.put(*args)
                self.assertIs(type(got.exception), type(want.exception))
                self.assertEqual(str(got.exception), str(want.exception))
        t.close()
        with self.assertRaises(merkle.MerkleError) as cm:
            t.put(b"k", b"v")
        self.assertEqual(cm.exception.status, merkle.ERR_STATE)


if __name__ == "__main__":
    unittest.main(verbosity=2)
