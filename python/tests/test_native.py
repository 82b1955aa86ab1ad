# SPDX-License-Identifier: MIT OR Apache-2.0
"""merkle._native, the compiled binding (python/merkle/_native.c): merkle.root,
merkle.leaf_hash and Trie.put are its objects (nothing is patched at import); their results
agree with a from-the-definition hashlib reference and with the library through other
paths, and their exceptions and messages are those the ctypes definitions gave (the tables
below were printed by the ctypes code of 1.0 development, main at f4dd61c)."""
import hashlib
import random
import unittest

import merkle
from merkle import tree

import mtest

NATIVE = merkle._native

ROOT_ERRORS = [
    ((b'x',), {'leaf_size': 0}, (merkle.MerkleError, 'invalid argument: leaf_size must be > 0, got 0', -1)),
    ((b'x',), {'leaf_size': -3}, (merkle.MerkleError, 'invalid argument: leaf_size must be > 0, got -3', -1)),
    ((b'x',), {'leaf_size': -1180591620717411303424}, (merkle.MerkleError, 'invalid argument: leaf_size must be > 0, got -1180591620717411303424', -1)),
    ((b'x',), {'profile': 'nope'}, (merkle.MerkleError, "profile 'nope' (rfc6962 or sia): invalid argument", -1)),
    ((b'x',), {'hash': 'md5'}, (merkle.MerkleError, "hash 'md5' (sha256 or blake2b-256): invalid argument", -1)),
    ((b'x',), {'profile': 5}, (TypeError, 'profile must be a str name, got 5', None)),
    ((b'x',), {'hash': 1.5}, (TypeError, 'hash must be a str name, got 1.5', None)),
    (('text',), {}, (TypeError, 'data must be bytes-like, not str (encode it first)', None)),
    ((5,), {}, (TypeError, "memoryview: a bytes-like object is required, not 'int'", None)),
    ((None,), {}, (TypeError, "memoryview: a bytes-like object is required, not 'NoneType'", None)),
    ((b'x',), {'leaf_size': 1.5}, (TypeError, 'leaf_size must be an int', None)),
    ((b'x',), {'leaf_size': True}, (TypeError, 'leaf_size must be an int', None)),
    ((b'x',), {'threads': -1}, (TypeError, 'threads must be an int >= 0 (0 = all cores)', None)),
    ((b'x',), {'threads': '2'}, (TypeError, 'threads must be an int >= 0 (0 = all cores)', None)),
    ((b'x',), {'threads': True}, (TypeError, 'threads must be an int >= 0 (0 = all cores)', None)),
    ((b'x',), {'bogus': 1}, (TypeError, "root() got an unexpected keyword argument 'bogus'", None)),
    ((), {}, (TypeError, "root() missing 1 required positional argument: 'data'", None)),
    ((b'x', 1, 'sia', None, 1, 9), {}, (TypeError, 'root() takes from 1 to 5 positional arguments but 6 were given', None)),
    ((b'x', 4), {'leaf_size': 4}, (TypeError, "root() got multiple values for argument 'leaf_size'", None)),
    (('text',), {'profile': 'nope'}, (merkle.MerkleError, "profile 'nope' (rfc6962 or sia): invalid argument", -1)),
]
LEAF_HASH_ERRORS = [
    (('text',), {}, (TypeError, 'data must be bytes-like, not str (encode it first)', None)),
    ((b'x',), {'hash': 'md5'}, (merkle.MerkleError, "hash 'md5' (sha256 or blake2b-256): invalid argument", -1)),
    ((b'x',), {'hash': 3}, (TypeError, 'hash must be a str name, got 3', None)),
    ((), {}, (TypeError, "leaf_hash() missing 1 required positional argument: 'data'", None)),
    ((b'x', 'sha256', 1), {}, (TypeError, 'leaf_hash() takes from 1 to 2 positional arguments but 3 were given', None)),
    ((b'x',), {'data': b'y'}, (TypeError, "leaf_hash() got multiple values for argument 'data'", None)),
    ((b'x',), {'bogus': 1}, (TypeError, "leaf_hash() got an unexpected keyword argument 'bogus'", None)),
    ((7,), {}, (TypeError, "memoryview: a bytes-like object is required, not 'int'", None)),
    (('text',), {'hash': 'md5'}, (TypeError, 'data must be bytes-like, not str (encode it first)', None)),
]

Z = bytes(32)
ERRORS = {
    'node_hash': [
        ((Z, Z), {'hash': 'md5'}, (merkle.MerkleError, "hash 'md5' (sha256 or blake2b-256): invalid argument", -1)),
        (('ab', Z), {}, (TypeError, 'left must be bytes, not str (use bytes.fromhex)', None)),
        ((Z, 'ab'), {}, (TypeError, 'right must be bytes, not str (use bytes.fromhex)', None)),
        ((b'x', Z), {}, (merkle.MerkleError, 'invalid argument: left must be 32 bytes, got 1', -1)),
        ((Z, b"y" * 33), {}, (merkle.MerkleError, 'invalid argument: right must be 32 bytes, got 33', -1)),
        ((5, Z), {}, (merkle.MerkleError, 'invalid argument: left must be 32 bytes, got 5', -1)),
        ((None, Z), {}, (TypeError, "cannot convert 'NoneType' object to bytes", None)),
        ((Z,), {}, (TypeError, "node_hash() missing 1 required positional argument: 'right'", None)),
        ((Z, Z, 'sha256', 1), {}, (TypeError, 'node_hash() takes from 2 to 3 positional arguments but 4 were given', None)),
        ((Z, Z), {'hash': 2}, (TypeError, 'hash must be a str name, got 2', None)),
        ((Z, Z), {'bogus': 1}, (TypeError, "node_hash() got an unexpected keyword argument 'bogus'", None)),
        ((b'x', b'y'), {'hash': 'md5'}, (merkle.MerkleError, 'invalid argument: left must be 32 bytes, got 1', -1)),
    ],
    'digest': [
        (('s',), {}, (TypeError, 'data must be bytes-like, not str (encode it first)', None)),
        ((b'x',), {'hash': 'md5'}, (merkle.MerkleError, "hash 'md5' (sha256 or blake2b-256): invalid argument", -1)),
        ((b'x',), {'hash': None}, (TypeError, 'hash must be a str name, got None', None)),
        ((), {}, (TypeError, "digest() missing 1 required positional argument: 'data'", None)),
        ((3,), {}, (TypeError, "memoryview: a bytes-like object is required, not 'int'", None)),
        ((b'x',), {'data': 1}, (TypeError, "digest() got multiple values for argument 'data'", None)),
    ],
    'empty_root': [
        ((), {'profile': 'x'}, (merkle.MerkleError, "profile 'x' (rfc6962 or sia): invalid argument", -1)),
        ((), {'hash': 'md5'}, (merkle.MerkleError, "hash 'md5' (sha256 or blake2b-256): invalid argument", -1)),
        (('sia', 'md5'), {}, (merkle.MerkleError, "hash 'md5' (sha256 or blake2b-256): invalid argument", -1)),
        ((1,), {}, (TypeError, 'profile must be a str name, got 1', None)),
        (('sia', None, 3), {}, (TypeError, 'empty_root() takes from 0 to 2 positional arguments but 3 were given', None)),
        ((), {'leaf_size': 3}, (TypeError, "empty_root() got an unexpected keyword argument 'leaf_size'", None)),
    ],
    'root_leaves': [
        (([b'a', 'b'],), {}, (TypeError, 'leaves must be bytes-like, not str', None)),
        (([b'a', 1.5],), {}, (TypeError, "cannot convert 'float' object to bytes", None)),
        ((None,), {}, (TypeError, "'NoneType' object is not iterable", None)),
        ((5,), {}, (TypeError, "'int' object is not iterable", None)),
        (([b'a'],), {'profile': 'x'}, (merkle.MerkleError, "profile 'x' (rfc6962 or sia): invalid argument", -1)),
        (([b'a'],), {'hash': 'md5'}, (merkle.MerkleError, "hash 'md5' (sha256 or blake2b-256): invalid argument", -1)),
        ((), {}, (TypeError, "root_leaves() missing 1 required positional argument: 'leaves'", None)),
        (([b'a'], 'sia', None, 1), {}, (TypeError, 'root_leaves() takes from 1 to 3 positional arguments but 4 were given', None)),
        ((['s'],), {'profile': 'nope'}, (merkle.MerkleError, "profile 'nope' (rfc6962 or sia): invalid argument", -1)),
    ],
}

METHOD_ERRORS = [
    ('Tree', (), {'leaf_size': 0}, (merkle.MerkleError, 'invalid argument: leaf_size must be > 0, got 0', -1)),
    ('Tree', (), {'leaf_size': -1}, (merkle.MerkleError, 'invalid argument: leaf_size must be > 0, got -1', -1)),
    ('Tree', (), {'leaf_size': 1.5}, (TypeError, 'leaf_size must be an int', None)),
    ('Tree', (), {'leaf_size': True}, (TypeError, 'leaf_size must be an int', None)),
    ('Tree', (), {'profile': 'x'}, (merkle.MerkleError, "profile 'x' (rfc6962 or sia): invalid argument", -1)),
    ('Tree', (), {'hash': 'md5'}, (merkle.MerkleError, "hash 'md5' (sha256 or blake2b-256): invalid argument", -1)),
    ('Tree', (3,), {'leaf_size': 4}, (TypeError, "Tree.__init__() got multiple values for argument 'leaf_size'", None)),
    ('Tree', (1, 'sia', None, 4), {}, (TypeError, 'Tree.__init__() takes from 1 to 4 positional arguments but 5 were given', None)),
    ('Tree', (), {'bogus': 1}, (TypeError, "Tree.__init__() got an unexpected keyword argument 'bogus'", None)),
    ('Tree', (), {'profile': 5}, (TypeError, 'profile must be a str name, got 5', None)),
    ('Tree', (4, 'sia', 'md5'), {}, (merkle.MerkleError, "hash 'md5' (sha256 or blake2b-256): invalid argument", -1)),
    ('write', ('s',), {}, (TypeError, 'data must be bytes-like, not str (encode it first)', None)),
    ('write', (5,), {}, (TypeError, "memoryview: a bytes-like object is required, not 'int'", None)),
    ('write', (), {}, (TypeError, "Tree.write() missing 1 required positional argument: 'data'", None)),
    ('write', (b'a', b'b'), {}, (TypeError, 'Tree.write() takes 2 positional arguments but 3 were given', None)),
    ('write', (), {'bogus': b''}, (TypeError, "Tree.write() got an unexpected keyword argument 'bogus'", None)),
    ('write', (b'a',), {}, (merkle.MerkleError, 'invalid state for this call', -10)),
    ('root', (), {}, (merkle.MerkleError, 'invalid state for this call', -10)),
    ('root', (1,), {}, (TypeError, 'Tree.root() takes 1 positional argument but 2 were given', None)),
    ('leaf_count', (1,), {}, (TypeError, 'Tree.leaf_count() takes 1 positional argument but 2 were given', None)),
    ('put', (b'k',), {}, (TypeError, "Trie.put() missing 1 required positional argument: 'value'", None)),
    ('put', (b'k', b'v', b'x'), {}, (TypeError, 'Trie.put() takes 3 positional arguments but 4 were given', None)),
    ('put', (), {'key': b'k', 'value': b'v', 'x': 1}, (TypeError, "Trie.put() got an unexpected keyword argument 'x'", None)),
]

NAME_CALLS = {
    'profile_id': [
        (('rfc6962',), ('ok', 1)),
        (('sia',), ('ok', 2)),
        ((b'sia',), ('ok', 2)),
        (('bitcoin',), ('ok', 3)),
        (('ssz',), ('ok', 4)),
        (('nope',), (merkle.MerkleError, "profile 'nope' (rfc6962 or sia): invalid argument", -1)),
        ((5,), (TypeError, 'profile must be a str name, got 5', None)),
        ((None,), (TypeError, 'profile must be a str name, got None', None)),
    ],
    'hash_id': [
        (('sha256',), ('ok', 3)),
        (('blake2b-256',), ('ok', 6)),
        ((b'sha256',), ('ok', 3)),
        (('md5',), (merkle.MerkleError, "hash 'md5' (sha256 or blake2b-256): invalid argument", -1)),
        ((1.5,), (TypeError, 'hash must be a str name, got 1.5', None)),
        ((None,), (TypeError, 'hash must be a str name, got None', None)),
    ],
    'hash_name': [
        ((0,), (ValueError, 'unknown merkle_hash_alg value 0', None)),
        ((1,), ('ok', 'md5')),
        ((99,), (ValueError, 'unknown merkle_hash_alg value 99', None)),
        ((-1,), (ValueError, 'unknown merkle_hash_alg value -1', None)),
        ((1208925819614629174706176,), (ValueError, 'unknown merkle_hash_alg value 1208925819614629174706176', None)),
        (('1',), ('ok', 'md5')),
        (('x',), (ValueError, "invalid literal for int() with base 10: 'x'", None)),
        ((None,), (TypeError, "int() argument must be a string, a bytes-like object or a real number, not 'NoneType'", None)),
        ((1.7,), ('ok', 'md5')),
    ],
    'profile_defaults': [
        ((), ('ok', ('sha256', 4096))),
        (('rfc6962',), ('ok', ('sha256', 4096))),
        (('sia',), ('ok', ('blake2b-256', 64))),
        (('bitcoin',), ('ok', ('sha256', 32))),
        (('nope',), (merkle.MerkleError, "profile 'nope' (rfc6962 or sia): invalid argument", -1)),
        ((3,), (TypeError, 'profile must be a str name, got 3', None)),
    ],
    '_resolve': [
        (('rfc6962', None, None), ('ok', (1, 3, 4096))),
        (('sia', None, 8), ('ok', (2, 6, 8))),
        (('sia', 'sha256', None), ('ok', (2, 3, 64))),
        (('x', None, None), (merkle.MerkleError, "profile 'x' (rfc6962 or sia): invalid argument", -1)),
        (('rfc6962', 'md5', None), (merkle.MerkleError, "hash 'md5' (sha256 or blake2b-256): invalid argument", -1)),
        (('rfc6962', None, 0), (merkle.MerkleError, 'invalid argument: leaf_size must be > 0, got 0', -1)),
        (('rfc6962', None, 1.5), (TypeError, 'leaf_size must be an int', None)),
        (('rfc6962', None, True), (TypeError, 'leaf_size must be an int', None)),
        (('bitcoin', None, None), ('ok', (3, 3, 32))),
        ((None, None, None), (TypeError, 'profile must be a str name, got None', None)),
    ],
}


def errors(f, *args, **kw):
    try:
        f(*args, **kw)
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return type(e), str(e), getattr(e, "status", None)
    return None


class Definitions(unittest.TestCase):
    def test_definitions_are_compiled(self):
        self.assertIs(merkle.root, NATIVE.root)
        self.assertIs(tree.root, NATIVE.root)
        self.assertIs(merkle.leaf_hash, NATIVE.leaf_hash)
        self.assertIs(merkle.Trie.put, NATIVE.TrieBase.put)
        self.assertIs(merkle.Trie.__setitem__, NATIVE.TrieBase.put)
        self.assertTrue(issubclass(merkle.Trie, NATIVE.TrieBase))
        self.assertFalse(hasattr(merkle.Trie(), "_t"))


class Root(unittest.TestCase):
    def test_root_matches_reference(self):
        rng = random.Random(5)
        for n in (0, 1, 31, 32, 33, 63, 64, 65, 4095, 4096, 4097, 70000):
            data = rng.randbytes(n)
            for ls in (1, 32, 64, 4096):
                with self.subTest(n=n, ls=ls):
                    want = mtest.ref_root_bytes(data, ls)
                    for kw in ({}, {"threads": 1}, {"threads": None}, {"threads": 2},
                               {"threads": 0}, {"threads": 5000}, {"profile": "rfc6962"},
                               {"profile": b"rfc6962", "hash": b"sha256"}):
                        self.assertEqual(merkle.root(data, ls, **kw), want)
                    self.assertEqual(merkle.root(bytearray(data), leaf_size=ls), want)
                    self.assertEqual(merkle.root(memoryview(data)[::1], leaf_size=ls), want)
            self.assertEqual(merkle.root(data), mtest.ref_root_bytes(data, 4096))
            # sia and blake2b agree with the streaming builder (a different library path)
            for kw in ({"profile": "sia"}, {"profile": "sia", "hash": "sha256"},
                       {"hash": "blake2b-256"}, {"hash": "blake2b-256", "leaf_size": 7}):
                t = merkle.Tree(**kw)
                t.write(data)
                self.assertEqual(merkle.root(data, **kw), t.root(), kw)
        src = rng.randbytes(300)  # not contiguous: copied once, same root
        self.assertEqual(merkle.root(memoryview(src)[::3], leaf_size=7),
                         mtest.ref_root_bytes(src[::3], 7))

    def test_root_errors(self):
        for args, kw, want in ROOT_ERRORS:
            with self.subTest(args=args, kw=kw):
                self.assertEqual(errors(merkle.root, *args, **kw), want)


class LeafHash(unittest.TestCase):
    def test_leaf_hash(self):
        rng = random.Random(9)
        for n in (0, 1, 32, 4095, 4096, 100000):
            data = rng.randbytes(n)
            want = hashlib.sha256(b"\0" + data).digest()
            self.assertEqual(merkle.leaf_hash(data), want)
            self.assertEqual(merkle.leaf_hash(bytearray(data), "sha256"), want)
            self.assertEqual(merkle.leaf_hash(data, hash=b"sha256"), want)
            self.assertEqual(merkle.leaf_hash(memoryview(data), hash="blake2b-256"),
                             hashlib.blake2b(b"\0" + data, digest_size=32).digest())

    def test_leaf_hash_errors(self):
        for args, kw, want in LEAF_HASH_ERRORS:
            with self.subTest(args=args, kw=kw):
                self.assertEqual(errors(merkle.leaf_hash, *args, **kw), want)


class TreeFunctions(unittest.TestCase):
    def test_values(self):
        h = hashlib.sha256
        b2 = lambda d: hashlib.blake2b(d, digest_size=32).digest()  # noqa: E731
        rng = random.Random(3)
        l, r = rng.randbytes(32), rng.randbytes(32)
        self.assertEqual(merkle.node_hash(l, r), h(b"\1" + l + r).digest())
        self.assertEqual(merkle.node_hash(bytearray(l), memoryview(r), hash="blake2b-256"),
                         b2(b"\1" + l + r))
        for n in (0, 5, 5000):
            d = rng.randbytes(n)
            self.assertEqual(merkle.digest(d), h(d).digest())
            self.assertEqual(merkle.digest(bytearray(d), "blake2b-256"), b2(d))
        self.assertEqual(merkle.empty_root(), h(b"").digest())
        self.assertEqual(merkle.empty_root("sia"), bytes(32))
        self.assertEqual(merkle.empty_root(hash="blake2b-256"), b2(b""))
        for n in (0, 1, 2, 3, 4, 5, 63, 64, 65, 1000):
            leaves = [rng.randbytes(rng.randrange(0, 40)) for _ in range(n)]
            want = mtest.ref_root_leaves(leaves)
            self.assertEqual(merkle.root_leaves(leaves), want)
            self.assertEqual(merkle.root_leaves(iter([bytearray(x) for x in leaves])), want)
            self.assertEqual(merkle.root_leaves(tuple(memoryview(x) for x in leaves),
                                                profile="rfc6962", hash="sha256"), want)
            t = merkle.ShapeTree.from_leaves(leaves, profile="sia") if n else None
            if t is not None:
                self.assertEqual(merkle.root_leaves(leaves, "sia"), t.root)

    def test_errors(self):
        for name, cases in ERRORS.items():
            for args, kw, want in cases:
                with self.subTest(name=name, args=args, kw=kw):
                    self.assertIs(getattr(merkle, name), getattr(NATIVE, name))
                    self.assertEqual(errors(getattr(merkle, name), *args, **kw), want)


class StreamingTree(unittest.TestCase):
    def test_tree_is_compiled(self):
        self.assertIs(merkle.Tree, NATIVE.Tree)
        self.assertIs(tree.Tree, NATIVE.Tree)

    def test_tree_matches_reference(self):
        rng = random.Random(11)
        data = rng.randbytes(20000)
        for ls in (1, 7, 64, 4096):
            t = merkle.Tree(ls)
            pos = 0
            while pos < len(data):
                n = rng.randrange(0, 5000)
                t.write(data[pos:pos + n] if pos % 2 else bytearray(data[pos:pos + n]))
                pos += n
            self.assertEqual(t.leaf_count(), (len(data) + ls - 1) // ls)
            self.assertEqual(t.root(), mtest.ref_root_bytes(data, ls))
        t = merkle.Tree(profile="sia")
        t.write(memoryview(data)[::2])
        self.assertEqual(t.root(), merkle.root(data[::2], profile="sia"))
        self.assertEqual(merkle.Tree().root(), merkle.empty_root())
        # root_file: read path and the mapped, threaded path agree with root()
        import tempfile
        with tempfile.NamedTemporaryFile() as f:
            f.write(data)
            f.flush()
            want = merkle.root(data, 64)
            self.assertEqual(merkle.root_file(f.name, 64), want)
            self.assertEqual(merkle.root_file(f.name, 64, threads=2), want)
            with open(f.name, "rb") as fo:
                self.assertEqual(merkle.root_file(fo, 64), want)
            with self.assertRaises(merkle.MerkleError):
                merkle.root_file(f.name, 0, threads=2)

    def test_method_errors(self):
        def finished():
            t = merkle.Tree()
            t.root()
            return t
        calls = {"Tree": lambda: merkle.Tree, "write": lambda: merkle.Tree().write,
                 "root": lambda: merkle.Tree().root, "leaf_count": lambda: merkle.Tree().leaf_count,
                 "put": lambda: merkle.Trie().put}
        for name, args, kw, want in METHOD_ERRORS:
            with self.subTest(name=name, args=args, kw=kw):
                f = calls[name]()
                if want[2] == merkle.ERR_STATE:  # calls on a finished builder
                    f = getattr(finished(), name)
                self.assertEqual(errors(f, *args, **kw), want)


class NameLookups(unittest.TestCase):
    def test_name_calls(self):
        for name, cases in NAME_CALLS.items():
            for args, want in cases:
                with self.subTest(name=name, args=args):
                    f = getattr(tree, name)
                    self.assertIs(f, getattr(NATIVE, name))
                    got = errors(f, *args)
                    if got is None:
                        got = ("ok", f(*args))
                    self.assertEqual(got, want)

    def test_tree_module_has_no_ctypes(self):
        self.assertNotIn("ctypes", vars(tree))
        self.assertNotIn("fn", vars(tree))


class TriePut(unittest.TestCase):
    def test_put_same_as_apply_text(self):
        rng = random.Random(7)
        fast, ref = merkle.Trie(), merkle.Trie()
        want = {}
        ops = []
        for i in range(3000):
            k = rng.randbytes(rng.randrange(0, 12))
            v = rng.randbytes(rng.randrange(0, 70))
            if i % 3 == 0:
                fast[bytearray(k)] = bytearray(v)
            elif i % 3 == 1:
                fast.put(k, v)
            else:
                fast.put(memoryview(k), value=v)
            want[k] = v
            ops.append("put %s %s" % (k.hex() or "-", v.hex() or "-"))
        ref.apply_text("\n".join(ops) + "\n")
        self.assertEqual(fast.items(), sorted(want.items()))
        self.assertEqual(fast.items(), ref.items())
        self.assertEqual(fast.root(), ref.root())

    def test_put_errors(self):
        t = merkle.Trie()
        for args, want in ((("k", b"v"), (TypeError, "key must be bytes-like, not str")),
                           ((b"k", "v"), (TypeError, "value must be bytes-like, not str")),
                           ((b"k", 5.0), (TypeError, "cannot convert 'float' object to bytes")),
                           ((None, b"v"), (TypeError,
                                           "cannot convert 'NoneType' object to bytes")),
                           ((b"k",), (TypeError,
                                      "Trie.put() missing 1 required positional argument: 'value'"))):
            with self.subTest(args=args):
                self.assertEqual(errors(t.put, *args)[:2], want)
        t.put(b"n", 3)  # bytes(3): three zero bytes, as the ctypes code did
        self.assertEqual(t[b"n"], b"\0\0\0")
        t.close()
        t.close()
        with self.assertRaises(merkle.MerkleError) as cm:
            t.put(b"k", b"v")
        self.assertEqual(cm.exception.status, merkle.ERR_STATE)
        self.assertIn("the trie was closed", str(cm.exception))
        for bf in (3, -1, 1 << 40):
            with self.assertRaises(merkle.MerkleError) as cm:
                merkle.Trie(branch_factor=bf)
            self.assertEqual(cm.exception.status, merkle.ERR_ARG)
        with self.assertRaises(TypeError):
            merkle.Trie(branch_factor="16")


if __name__ == "__main__":
    unittest.main(verbosity=2)
