# SPDX-License-Identifier: MIT OR Apache-2.0
"""merkle._native (the compiled binding, python/merkle/_native.c) against the ctypes
definitions it replaces: same roots, leaf hashes, Trie contents and roots, and the same
exceptions and messages for every kind of bad argument. merkle.root, merkle.leaf_hash and
Trie.put are the compiled objects themselves (nothing is patched at import).
MERKLE_EXPECT_NATIVE=1 (ctest of a build with MERKLE_BUILD_PYTHON, the pip-install test)
makes a missing module a failure instead of a skip."""
import hashlib
import os
import random
import unittest

import merkle
from merkle import tree, trie

NATIVE = merkle._native


class Presence(unittest.TestCase):
    def test_present_when_expected(self):
        if os.environ.get("MERKLE_EXPECT_NATIVE") == "1":
            self.assertIsNotNone(NATIVE, "merkle._native was not built or not found")

    @unittest.skipIf(NATIVE is None, "no merkle._native in this installation")
    def test_definitions_are_compiled(self):
        self.assertIs(merkle.root, NATIVE.root)
        self.assertIs(tree.root, NATIVE.root)
        self.assertIs(merkle.leaf_hash, NATIVE.leaf_hash)
        self.assertIs(merkle.Trie.put, NATIVE.TrieBase.put)
        self.assertIs(merkle.Trie.__setitem__, NATIVE.TrieBase.put)
        self.assertTrue(issubclass(merkle.Trie, NATIVE.TrieBase))
        self.assertFalse(hasattr(merkle.Trie(), "_t"))


def errors(f, *args, **kw):
    try:
        f(*args, **kw)
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return type(e), str(e), getattr(e, "status", None)
    return None


@unittest.skipIf(NATIVE is None, "no merkle._native in this installation")
class Native(unittest.TestCase):
    def test_root_same_as_ctypes(self):
        rng = random.Random(5)
        slow = tree._root_ctypes
        for n in (0, 1, 31, 32, 33, 63, 64, 65, 4095, 4096, 4097, 70000):
            data = rng.randbytes(n)
            for kw in ({}, {"leaf_size": 1}, {"leaf_size": 32}, {"profile": "sia"},
                       {"profile": "sia", "hash": "sha256"}, {"hash": "blake2b-256"},
                       {"profile": b"sia"}, {"hash": b"sha256"},
                       {"leaf_size": 64, "profile": "rfc6962", "hash": None, "threads": 1},
                       {"threads": None}, {"threads": 2}, {"threads": 0}, {"threads": 5000}):
                with self.subTest(n=n, kw=kw):
                    want = slow(data, **kw)
                    self.assertEqual(merkle.root(data, **kw), want)
                    self.assertEqual(merkle.root(bytearray(data), **kw), want)
                    self.assertEqual(merkle.root(memoryview(data)[::1], **kw), want)
            self.assertEqual(merkle.root(data, 16, "rfc6962", "sha256"), slow(data, 16))
        # Not contiguous: copied once, same root.
        src = rng.randbytes(300)
        self.assertEqual(merkle.root(memoryview(src)[::3], leaf_size=7),
                         slow(src[::3], leaf_size=7))
        h = hashlib.sha256
        self.assertEqual(merkle.root(b"ab", leaf_size=1),
                         h(b"\x01" + h(b"\x00a").digest() + h(b"\x00b").digest()).digest())

    def test_root_errors_same_as_ctypes(self):
        slow = tree._root_ctypes
        for args, kw in (((b"x",), {"leaf_size": 0}), ((b"x",), {"leaf_size": -3}),
                         ((b"x",), {"leaf_size": -(1 << 70)}),
                         ((b"x",), {"profile": "nope"}), ((b"x",), {"hash": "md5"}),
                         ((b"x",), {"profile": 5}), ((b"x",), {"hash": 1.5}),
                         (("text",), {}), ((5,), {}), ((None,), {}),
                         ((b"x",), {"leaf_size": 1.5}),
                         ((b"x",), {"leaf_size": True}), ((b"x",), {"threads": -1}),
                         ((b"x",), {"threads": "2"}), ((b"x",), {"threads": True}),
                         ((b"x",), {"bogus": 1}), ((), {}), ((b"x", 1, "sia", None, 1, 9), {}),
                         ((b"x", 4), {"leaf_size": 4}), (("text",), {"profile": "nope"})):
            with self.subTest(args=args, kw=kw):
                want = errors(slow, *args, **kw)
                self.assertIsNotNone(want)
                self.assertEqual(errors(merkle.root, *args, **kw), want)

    def test_leaf_hash_same_as_ctypes(self):
        rng = random.Random(9)
        slow = tree._leaf_hash_ctypes
        for n in (0, 1, 32, 4095, 4096, 100000):
            data = rng.randbytes(n)
            for kw in ({}, {"hash": "sha256"}, {"hash": "blake2b-256"}, {"hash": b"sha256"}):
                with self.subTest(n=n, kw=kw):
                    want = slow(data, **kw)
                    self.assertEqual(merkle.leaf_hash(data, **kw), want)
                    self.assertEqual(merkle.leaf_hash(bytearray(data), **kw), want)
        self.assertEqual(merkle.leaf_hash(b"a"), hashlib.sha256(b"\x00a").digest())
        for args, kw in ((("text",), {}), ((b"x",), {"hash": "md5"}), ((b"x",), {"hash": 3}),
                         ((), {}), ((b"x", "sha256", 1), {}), ((b"x",), {"data": b"y"}),
                         ((b"x",), {"bogus": 1}), ((7,), {}), (("text",), {"hash": "md5"})):
            with self.subTest(args=args, kw=kw):
                want = errors(slow, *args, **kw)
                self.assertIsNotNone(want)
                self.assertEqual(errors(merkle.leaf_hash, *args, **kw), want)

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
                fast.put(memoryview(k), value=v)
            trie._CtypesTrieBase.put(_CtypesView(slow), k, v)
        self.assertEqual(fast.items(), slow.items())
        self.assertEqual(fast.root(), slow.root())

    def test_trie_put_errors(self):
        t = merkle.Trie()
        for args, want in ((("k", b"v"), (TypeError, "key must be bytes-like, not str")),
                           ((b"k", "v"), (TypeError, "value must be bytes-like, not str")),
                           ((b"k", 5.0), (TypeError, "cannot convert 'float' object to bytes")),
                           ((None, b"v"), (TypeError,
                                           "cannot convert 'NoneType' object to bytes")),
                           ((b"k",), (TypeError,
                                      "put() missing 1 required positional argument: 'value'"))):
            with self.subTest(args=args):
                got = errors(t.put, *args)
                self.assertEqual(got[:2], want)
        t.put(b"n", 3)  # bytes(3): three zero bytes, as the ctypes code did
        self.assertEqual(t[b"n"], b"\0\0\0")
        t.close()
        t.close()
        with self.assertRaises(merkle.MerkleError) as cm:
            t.put(b"k", b"v")
        self.assertEqual(cm.exception.status, merkle.ERR_STATE)
        self.assertIn("the trie was closed", str(cm.exception))
        with self.assertRaises(merkle.MerkleError) as cm:
            merkle.Trie(branch_factor=3)
        self.assertEqual(cm.exception.status, merkle.ERR_ARG)
        with self.assertRaises(merkle.MerkleError):
            merkle.Trie(branch_factor=-1)


class _CtypesView:
    """A Trie seen through the ctypes put (the pointer it owns as a c_void_p)."""

    def __init__(self, t):
        import ctypes
        self._t = ctypes.c_void_p(t._addr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
