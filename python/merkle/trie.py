# SPDX-License-Identifier: MIT OR Apache-2.0
"""Merkle radix trie with avalanchego merkledb node IDs (include/merkle/trie.h)."""
import collections
import ctypes

from . import _lib
from ._lib import MerkleError, check, fn
from . import _native

c_int, c_size_t, c_void_p, c_char_p, c_uint = (ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p,
                                               ctypes.c_char_p, ctypes.c_uint)
ID_LEN = 32


class _Child(ctypes.Structure):
    _fields_ = [("index", ctypes.c_uint32), ("id", ctypes.c_uint8 * ID_LEN)]


class _ProofInfo(ctypes.Structure):
    _fields_ = [("branch_factor", c_uint), ("present", c_int), ("key", c_void_p),
                ("key_len", c_size_t), ("value", c_void_p), ("value_len", c_size_t),
                ("nodes", c_size_t)]


_VISIT = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p, c_size_t, c_void_p, c_size_t)

_alloc = fn("merkle_trie_alloc", c_int, ctypes.POINTER(c_void_p), c_uint)
_free = fn("merkle_trie_free", None, c_void_p)
_size = fn("merkle_trie_size", ctypes.c_uint64, c_void_p)
_bf = fn("merkle_trie_branch_factor", c_uint, c_void_p)
_delete = fn("merkle_trie_delete", c_int, ctypes.POINTER(c_int), c_void_p, c_char_p, c_size_t)
_get = fn("merkle_trie_get", c_int, c_void_p, c_size_t, ctypes.POINTER(c_size_t),
          ctypes.POINTER(c_int), c_void_p, c_char_p, c_size_t)
_foreach = fn("merkle_trie_foreach", c_int, c_void_p, _VISIT, c_void_p)
_apply_text = fn("merkle_trie_apply_text", c_int, ctypes.POINTER(ctypes.c_uint64), c_void_p,
                 c_char_p, c_size_t, c_void_p, c_size_t, ctypes.POINTER(_lib.Error))
_root = fn("merkle_trie_root", c_int, c_void_p, c_void_p, c_uint, ctypes.POINTER(_lib.Error))
_hash_node = fn("merkle_trie_hash_node", c_int, c_void_p, c_char_p, c_size_t, c_int, c_char_p,
                c_size_t, ctypes.POINTER(_Child), c_size_t)
_prove = fn("merkle_trie_prove", c_int, c_void_p, c_size_t, ctypes.POINTER(c_size_t), c_void_p,
            c_char_p, c_size_t, ctypes.POINTER(_lib.Error))
_verify = fn("merkle_trie_proof_verify", c_int, ctypes.POINTER(_ProofInfo), c_char_p, c_char_p,
             c_size_t, ctypes.POINTER(_lib.Error))
_cb58_encode = fn("merkle_trie_cb58_encode", c_int, c_void_p, c_size_t, ctypes.POINTER(c_size_t),
                  c_char_p, c_size_t)
_cb58_decode = fn("merkle_trie_cb58_decode", c_int, c_void_p, c_size_t, ctypes.POINTER(c_size_t),
                  c_char_p, c_size_t, ctypes.POINTER(_lib.Error))
_id_parse = fn("merkle_trie_id_parse", c_int, c_void_p, c_char_p, ctypes.POINTER(_lib.Error))

AVAILABLE = _alloc is not None

TrieProof = collections.namedtuple("TrieProof", "present key value branch_factor nodes")
TrieProof.__doc__ = """What a verified trie proof states: present (bool), key (bytes), value
(bytes, or None when absent), branch_factor, nodes (path length)."""


def _bytes(x, name):
    if isinstance(x, str):
        raise TypeError("%s must be bytes-like, not str" % name)
    return x if isinstance(x, bytes) else bytes(x)


class Trie(_native.TrieBase, _lib.Owner):
    """A merkledb-compatible Merkle radix trie (merkle_trie), owned by this object.

        t = Trie(branch_factor=16)
        t[b"key"] = b"value"            # or t.put(key, value)
        t.root().hex()                  # root ID; 32 zero bytes when empty
        proof = t.prove(b"key")         # "MTRP" v1 proof bytes
        trie_verify(proof, t.root())    # -> TrieProof(present=True, ...)

    The root depends only on the key/value set. A present key with an empty value differs
    from an absent key. Not thread-safe for writers (put/delete/root/prove); use close()
    or a with-block to free the C memory early.
    """

    def __init__(self, branch_factor=16, items=None):
        check(self._alloc(branch_factor), what="branch factor %r" % branch_factor)
        if items is not None:
            self.update(items)

    def close(self):
        """Free the C trie now (idempotent)."""
        self._free()

    def _ptr(self):
        addr = self._addr
        if not addr:
            raise MerkleError(_lib.ERR_STATE, "the trie was closed")
        return addr

    @property
    def branch_factor(self):
        return int(_bf(self._ptr()))

    def __len__(self):
        return int(_size(self._ptr()))

    # put(key, value) is _native.TrieBase.put: insert or replace key -> value (both
    # bytes-like; b"" is a present, empty value).
    __setitem__ = _native.TrieBase.put

    def update(self, items):
        """put() every (key, value) of a mapping or an iterable of pairs."""
        if hasattr(items, "items"):
            items = items.items()
        for k, v in items:
            self.put(k, v)

    def delete(self, key):
        """Remove key; True if it was present (an absent key is not an error)."""
        k = _bytes(key, "key")
        found = c_int()
        check(_delete(ctypes.byref(found), self._ptr(), k, len(k)))
        return bool(found.value)

    def __delitem__(self, key):
        if not self.delete(key):
            raise KeyError(key)

    def get(self, key, default=None):
        """The value of key (bytes), or default when absent."""
        k = _bytes(key, "key")
        n, found = c_size_t(), c_int()
        s = _get(None, 0, ctypes.byref(n), ctypes.byref(found), self._ptr(), k, len(k))
        if s not in (_lib.OK, _lib.ERR_BUFFER):
            check(s)
        if not found.value:
            return default
        buf = ctypes.create_string_buffer(max(n.value, 1))
        check(_get(buf, n.value, ctypes.byref(n), ctypes.byref(found), self._ptr(), k, len(k)))
        return buf.raw[:n.value]

    def __getitem__(self, key):
        v = self.get(key)
        if v is None:
            raise KeyError(key)
        return v

    def __contains__(self, key):
        return self.get(key) is not None

    def items(self):
        """List of (key, value) in ascending key order."""
        out = []

        def visit(_ctx, key, key_len, value, value_len):
            out.append((ctypes.string_at(key, key_len) if key_len else b"",
                        ctypes.string_at(value, value_len) if value_len else b""))
            return 0

        cb = _VISIT(visit)
        check(_foreach(self._ptr(), cb, None))
        return out

    def keys(self):
        return [k for k, _ in self.items()]

    def apply_text(self, text):
        """Apply operations in the `merkle trie` text format ("put KEYHEX VALUEHEX",
        "del KEYHEX", "-" for empty, '#' comments); returns how many were applied.
        MerkleError MERKLE_ERR_FORMAT names the bad line (.line) on malformed input; the
        operations before it stay applied."""
        data = text.encode() if isinstance(text, str) else bytes(text)
        scratch = ctypes.create_string_buffer(len(data) // 2 + 1)
        ops = ctypes.c_uint64()
        err = _lib.Error()
        check(_apply_text(ctypes.byref(ops), self._ptr(), data, len(data), scratch,
                          len(scratch), ctypes.byref(err)), err)
        return int(ops.value)

    def root(self, threads=1):
        """Root ID (32 bytes; 32 zero bytes when empty). Hashes only what changed since the
        last call, on up to `threads` threads."""
        out = ctypes.create_string_buffer(ID_LEN)
        err = _lib.Error()
        check(_root(out, self._ptr(), max(int(threads), 1), ctypes.byref(err)), err)
        return out.raw

    def prove(self, key):
        """Proof (bytes, format "MTRP" version 1) that key is present with its value, or
        absent, for the current root."""
        k = _bytes(key, "key")
        n = c_size_t()
        err = _lib.Error()
        s = _prove(None, 0, ctypes.byref(n), self._ptr(), k, len(k), ctypes.byref(err))
        if s != _lib.ERR_BUFFER:
            check(s, err)
        buf = ctypes.create_string_buffer(max(n.value, 1))
        check(_prove(buf, n.value, ctypes.byref(n), self._ptr(), k, len(k), ctypes.byref(err)),
              err)
        return buf.raw[:n.value]


def trie_root(items, branch_factor=16):
    """Root ID of the trie holding items (a mapping or an iterable of (key, value) pairs)."""
    with Trie(branch_factor, items) as t:
        return t.root()


def trie_verify(proof, root, key=None, value=None, absent=False, branch_factor=None):
    """Check a trie proof against a trusted root ID (32 bytes, or hex / cb58 text).

    key, value and absent bind the claim, as `merkle trie verify --key/--value/--absent`:
    with key the proof must be about that key, with value (bytes) the key must be present
    with that value, with absent=True it must be absent; branch_factor pins the proof's
    branch factor. Without key any proof that verifies is accepted: the returned TrieProof
    says which key it is about (compare .key). Returns a TrieProof; raises MerkleError with
    MERKLE_ERR_FORMAT (malformed proof), MERKLE_ERR_VERIFY (does not match the root, or
    proves something other than the claim) or MERKLE_ERR_ARG (value or absent without key,
    both value and absent).
    """
    p = _bytes(proof, "proof")
    r = parse_id(root) if isinstance(root, str) else _lib.digest_arg(root, "root", ID_LEN)
    if value is not None and absent:
        raise MerkleError(_lib.ERR_ARG, "value and absent contradict each other")
    if (value is not None or absent) and key is None:
        raise MerkleError(_lib.ERR_ARG, "%s needs key" % ("absent" if absent else "value"))
    k = None if key is None else _bytes(key, "key")
    v = None if value is None else _bytes(value, "value")
    info = _ProofInfo()
    err = _lib.Error()
    check(_verify(ctypes.byref(info), r, p, len(p), ctypes.byref(err)), err)
    got_key = ctypes.string_at(info.key, info.key_len) if info.key_len else b""
    got = None
    if info.present:
        got = ctypes.string_at(info.value, info.value_len) if info.value_len else b""
    res = TrieProof(bool(info.present), got_key, got, int(info.branch_factor), int(info.nodes))
    if branch_factor is not None and res.branch_factor != branch_factor:
        raise MerkleError(_lib.ERR_VERIFY, "the proof is for branch factor %d, not %d"
                          % (res.branch_factor, branch_factor))
    if k is not None and got_key != k:
        raise MerkleError(_lib.ERR_VERIFY, "the proof is for key %s, not %s"
                          % (got_key.hex() or "-", k.hex() or "-"))
    if absent and res.present:
        raise MerkleError(_lib.ERR_VERIFY, "key %s is present (value %s), not absent"
                          % (got_key.hex() or "-", got.hex() or "-"))
    if v is not None and not res.present:
        raise MerkleError(_lib.ERR_VERIFY, "key %s is absent, not present with value %s"
                          % (got_key.hex() or "-", v.hex() or "-"))
    if v is not None and got != v:
        raise MerkleError(_lib.ERR_VERIFY, "key %s has value %s, not %s"
                          % (got_key.hex() or "-", got.hex() or "-", v.hex() or "-"))
    return res


def hash_node(key=b"", key_bits=None, value=None, children=()):
    """ID of one node as merkledb's HashNode: key of key_bits bits (default 8*len(key)),
    value None (Nothing) or bytes, children a list of (index, 32-byte id) in ascending index
    order."""
    k = _bytes(key, "key")
    bits = 8 * len(k) if key_bits is None else key_bits
    has_value = value is not None
    v = _bytes(value, "value") if has_value else b""
    kids = list(children)
    arr = (_Child * max(len(kids), 1))()
    for i, (index, cid) in enumerate(kids):
        arr[i].index = index
        ctypes.memmove(arr[i].id, _lib.digest_arg(cid, "child id", ID_LEN), ID_LEN)
    out = ctypes.create_string_buffer(ID_LEN)
    check(_hash_node(out, k, bits, int(has_value), v, len(v), arr, len(kids)))
    return out.raw


def cb58_encode(data):
    """cb58 string (avalanchego ids.ID form) of bytes: base58 of data || 4 checksum bytes."""
    d = _bytes(data, "data")
    n = c_size_t()
    buf = ctypes.create_string_buffer(2 * len(d) + 16)
    check(_cb58_encode(buf, len(buf), ctypes.byref(n), d, len(d)))
    return buf.raw[:n.value].decode("ascii")


def cb58_decode(text):
    """Bytes of a cb58 string; MerkleError MERKLE_ERR_FORMAT on a bad character or checksum."""
    s = text.encode("ascii") if isinstance(text, str) else bytes(text)
    n = c_size_t()
    err = _lib.Error()
    buf = ctypes.create_string_buffer(max(len(s), 1))
    check(_cb58_decode(buf, len(buf), ctypes.byref(n), s, len(s), ctypes.byref(err)), err)
    return buf.raw[:n.value]


def parse_id(text):
    """A 32-byte ID from 64 hex digits or its cb58 string."""
    s = text.encode("ascii") if isinstance(text, str) else bytes(text)
    out = ctypes.create_string_buffer(ID_LEN)
    err = _lib.Error()
    check(_id_parse(out, s, ctypes.byref(err)), err)
    return out.raw
