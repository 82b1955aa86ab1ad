# SPDX-License-Identifier: MIT OR Apache-2.0
"""CLVM trees: tree hash (sha256tree), canonical and back-reference serialization
(include/merkle/sexp.h).

Python form of a tree: an atom is bytes, a pair is a 2-tuple (left, right). Shared
subtrees stay shared both ways (a back-reference "bomb" becomes a small DAG of tuples, never
an exponentially large copy), and every walk is iterative (no recursion limit).
"""
import ctypes

from . import _lib
from ._lib import MerkleError, check, fn

c_int, c_uint, c_size_t, c_void_p, c_char_p, c_u32, c_u64 = (
    ctypes.c_int, ctypes.c_uint, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char_p,
    ctypes.c_uint32, ctypes.c_uint64)
_E = ctypes.POINTER(_lib.Error)
_u8pp = ctypes.POINTER(ctypes.POINTER(ctypes.c_uint8))

BACKREFS = 1
STRICT = 2

_alloc = fn("merkle_sexp_store_alloc", c_int, ctypes.POINTER(c_void_p))
_free = fn("merkle_sexp_store_free", None, c_void_p)
_count = fn("merkle_sexp_store_count", c_size_t, c_void_p)
_atom_new = fn("merkle_sexp_atom_new", c_int, ctypes.POINTER(c_u32), c_void_p, c_char_p, c_size_t)
_pair_new = fn("merkle_sexp_pair_new", c_int, ctypes.POINTER(c_u32), c_void_p, c_u32, c_u32)
_is_atom = fn("merkle_sexp_is_atom", c_int, c_u32)
_atom = fn("merkle_sexp_atom", c_int, _u8pp, ctypes.POINTER(c_size_t), c_void_p, c_u32)
_pair = fn("merkle_sexp_pair", c_int, ctypes.POINTER(c_u32), ctypes.POINTER(c_u32), c_void_p,
           c_u32)
_parse = fn("merkle_sexp_parse", c_int, ctypes.POINTER(c_u32), ctypes.POINTER(c_size_t), c_void_p,
            c_char_p, c_size_t, c_uint, c_void_p, _E)
_tree_hash = fn("merkle_sexp_tree_hash", c_int, c_void_p, c_void_p, c_u32)
_ser_len = fn("merkle_sexp_serialized_length", c_int, ctypes.POINTER(c_u64), c_void_p, c_u32)
_serialize = fn("merkle_sexp_serialize", c_int, c_void_p, c_size_t, ctypes.POINTER(c_size_t),
                c_void_p, c_u32)
_ser_br = fn("merkle_sexp_serialize_backrefs_alloc", c_int, _u8pp, ctypes.POINTER(c_size_t),
             c_void_p, c_u32, c_u64, _E)
_buf_free = fn("merkle_sexp_buffer_free", None, c_void_p)

AVAILABLE = _alloc is not None

# Largest canonical serialization serialize() will build (the C API's advice: query the
# length first, a DAG can expand exponentially).
MAX_CANONICAL = 1 << 30


class Store(_lib.Owner):
    """A merkle_sexp_store: an arena of atoms and pairs owned by this object."""

    def __init__(self):
        p = c_void_p()
        check(_alloc(ctypes.byref(p)))  # the store is opaque: the library allocates it
        self._addr = p.value
        self._open = True

    def close(self):
        if getattr(self, "_open", False):
            _free(self._addr)
            self._open = False

    def __len__(self):
        return int(_count(self._addr))

    def parse(self, data, backrefs=True, strict=False, allow_trailing=False):
        """Parse one serialized value; returns its node handle. Trailing bytes are an error
        (MERKLE_ERR_FORMAT) unless allow_trailing."""
        d = bytes(data)
        node, used = c_u32(), c_size_t()
        err = _lib.Error()
        flags = (BACKREFS if backrefs else 0) | (STRICT if strict else 0)
        check(_parse(ctypes.byref(node), ctypes.byref(used), self._addr, d, len(d), flags, None,
                     ctypes.byref(err)), err)
        if not allow_trailing and used.value != len(d):
            raise MerkleError(_lib.ERR_FORMAT, "%d trailing bytes after the value"
                              % (len(d) - used.value), offset=used.value)
        return node.value

    def atom(self, data):
        d = bytes(data)
        node = c_u32()
        check(_atom_new(ctypes.byref(node), self._addr, d, len(d)))
        return node.value

    def pair(self, left, right):
        node = c_u32()
        check(_pair_new(ctypes.byref(node), self._addr, left, right))
        return node.value

    def from_python(self, obj):
        """Add a Python tree (bytes atoms, 2-tuple pairs) and return its node. Objects that
        occur several times (the same Python object) are added once."""
        memo = {}
        stack = [(obj, False)]
        while stack:
            o, ready = stack.pop()
            if id(o) in memo:
                continue
            if isinstance(o, tuple):
                if len(o) != 2:
                    raise TypeError("a CLVM pair is a 2-tuple, got a %d-tuple" % len(o))
                if ready:
                    memo[id(o)] = (self.pair(memo[id(o[0])][0], memo[id(o[1])][0]), o)
                else:
                    stack.append((o, True))
                    stack.append((o[1], False))
                    stack.append((o[0], False))
            elif isinstance(o, (bytes, bytearray, memoryview)):
                memo[id(o)] = (self.atom(o), o)
            elif isinstance(o, int) and not isinstance(o, bool):
                memo[id(o)] = (self.atom(int_to_atom(o)), o)
            else:
                raise TypeError("a CLVM tree holds bytes, ints and 2-tuples, not %s"
                                % type(o).__name__)
        return memo[id(obj)][0]

    def to_python(self, node):
        """The Python tree of node; shared nodes become the same tuple object."""
        memo = {}
        stack = [(node, False)]
        while stack:
            n, ready = stack.pop()
            if n in memo:
                continue
            if _is_atom(n):
                p, ln = ctypes.POINTER(ctypes.c_uint8)(), c_size_t()
                check(_atom(ctypes.byref(p), ctypes.byref(ln), self._addr, n))
                memo[n] = ctypes.string_at(p, ln.value) if ln.value else b""
                continue
            left, right = c_u32(), c_u32()
            check(_pair(ctypes.byref(left), ctypes.byref(right), self._addr, n))
            if ready:
                memo[n] = (memo[left.value], memo[right.value])
            else:
                stack.append((n, True))
                stack.append((right.value, False))
                stack.append((left.value, False))
        return memo[node]

    def tree_hash(self, node):
        out = ctypes.create_string_buffer(_lib.HASH_LEN)
        check(_tree_hash(out, self._addr, node))
        return out.raw

    def serialized_length(self, node):
        n = c_u64()
        check(_ser_len(ctypes.byref(n), self._addr, node))
        return int(n.value)

    def serialize(self, node, backrefs=False, max_len=MAX_CANONICAL):
        """Canonical serialization of node, or with back references (clvm_rs-compatible
        encoder; never longer than canonical). MERKLE_ERR_LIMIT beyond max_len bytes."""
        if backrefs:
            p, n = ctypes.POINTER(ctypes.c_uint8)(), c_size_t()
            err = _lib.Error()
            check(_ser_br(ctypes.byref(p), ctypes.byref(n), self._addr, node, max_len,
                          ctypes.byref(err)), err)
            try:
                return ctypes.string_at(p, n.value)
            finally:
                _buf_free(p)
        total = self.serialized_length(node)
        if total > max_len:
            raise MerkleError(_lib.ERR_LIMIT, "canonical serialization is %d bytes, over the "
                              "limit of %d" % (total, max_len))
        buf = ctypes.create_string_buffer(max(total, 1))
        n = c_size_t()
        check(_serialize(buf, total, ctypes.byref(n), self._addr, node))
        return buf.raw[:n.value]


def int_to_atom(i):
    """CLVM atom of an integer: minimal two's-complement big-endian; 0 is the empty atom."""
    if i == 0:
        return b""
    n = (i.bit_length() + 8) // 8
    b = i.to_bytes(n, "big", signed=True)
    while len(b) > 1 and ((b[0] == 0 and b[1] < 0x80) or (b[0] == 0xff and b[1] >= 0x80)):
        b = b[1:]
    return b


def _node_of(store, tree, backrefs):
    if isinstance(tree, (bytes, bytearray, memoryview)):
        return store.parse(tree, backrefs=backrefs)
    raise TypeError("expected serialized bytes; use tree_hash_of / serialize_of for Python trees")


def tree_hash(serialized, backrefs=True):
    """sha256tree of a serialized CLVM value (canonical, or with back references unless
    backrefs=False). MerkleError MERKLE_ERR_FORMAT / MERKLE_ERR_LIMIT on bad input.
    Same as `merkle clvm hash`."""
    with Store() as s:
        return s.tree_hash(_node_of(s, serialized, backrefs))


def serialize(serialized, backrefs=False, input_backrefs=True):
    """Re-serialize a serialized value: canonical (`merkle clvm serialize`) or, with
    backrefs=True, with back references (`merkle clvm serialize --backrefs`)."""
    with Store() as s:
        return s.serialize(_node_of(s, serialized, input_backrefs), backrefs=backrefs)


def deserialize(serialized, backrefs=True):
    """Python tree (bytes atoms, 2-tuple pairs; shared subtrees shared) of a serialized value."""
    with Store() as s:
        return s.to_python(_node_of(s, serialized, backrefs))


def tree_hash_of(tree):
    """sha256tree of a Python tree (bytes or int atoms, 2-tuple pairs)."""
    with Store() as s:
        return s.tree_hash(s.from_python(tree))


def serialize_of(tree, backrefs=False):
    """Serialization of a Python tree (bytes or int atoms, 2-tuple pairs)."""
    with Store() as s:
        return s.serialize(s.from_python(tree), backrefs=backrefs)
