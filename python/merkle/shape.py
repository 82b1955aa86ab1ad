# SPDX-License-Identifier: MIT OR Apache-2.0
"""Trees of other shapes (include/merkle/shape.h): bitcoin, ssz, openzeppelin, bittorrent-v2.

    >>> import merkle
    >>> root, mutated = merkle.bitcoin_root(txids)    # txids in display order (hex or bytes)
    >>> root.hex()                                    # 'f3e94742...' for block 100000
    >>> merkle.ssz_root(chunks, limit=1024, mix_in_length=True)
    >>> merkle.openzeppelin_root(["address", "uint256"], [["0x11..11", "5000000000000000000"]])
    >>> t = merkle.ShapeTree("ssz", chunks); t.branch(t.position(3)); t.multiproof([9, 14])
    >>> merkle.keccak256(b"")

Level-0 nodes are 32-byte values: bytes, or hex str (with or without 0x).
"""
import ctypes

from . import _lib
from ._lib import MerkleError, Owner, check, fn
from .tree import profile_defaults, profile_id, hash_id

c_int, c_size_t, c_void_p, c_char_p = ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char_p
c_uint32, c_uint64 = ctypes.c_uint32, ctypes.c_uint64
_errp = ctypes.POINTER(_lib.Error)

# The library's size and alignment of merkle_shape (merkle_shape_struct_size/_align): the
# ctypes layout below must match them.
_shape_size = fn("merkle_shape_struct_size", c_size_t)
_shape_align = fn("merkle_shape_struct_align", c_size_t)
_shape_init = fn("merkle_shape_init", c_int, c_void_p, c_uint32, c_int)
_shape_root = fn("merkle_shape_root", c_int, c_void_p, ctypes.POINTER(c_uint32), c_void_p, c_void_p,
                 c_uint64, _errp)
_tree_alloc = fn("merkle_shape_tree_alloc", c_int, ctypes.POINTER(c_void_p), ctypes.POINTER(c_uint32),
                 c_void_p, c_void_p, c_uint64, _errp)
_tree_alloc_leaves = fn("merkle_shape_tree_alloc_leaves", c_int, ctypes.POINTER(c_void_p), c_void_p,
                       c_void_p, c_void_p, c_uint64, _errp)
_tree_alloc_bytes = fn("merkle_shape_tree_alloc_bytes", c_int, ctypes.POINTER(c_void_p), c_void_p,
                      c_size_t, c_char_p, c_size_t, _errp)
_tree_branches = fn("merkle_shape_tree_branches", c_int, c_void_p, c_size_t, ctypes.POINTER(c_size_t),
                    c_void_p, c_void_p)
_tree_free = fn("merkle_shape_tree_free", None, c_void_p)
_tree_root = fn("merkle_shape_tree_root", None, c_void_p, c_void_p)
_tree_count = fn("merkle_shape_tree_count", c_uint64, c_void_p)
_tree_node = fn("merkle_shape_tree_node", c_int, c_void_p, c_void_p, c_uint64)
_tree_position = fn("merkle_shape_tree_position", c_int, ctypes.POINTER(c_uint64), c_void_p, c_uint64)
_tree_branch = fn("merkle_shape_tree_branch", c_int, c_void_p, c_size_t, ctypes.POINTER(c_size_t),
                  c_void_p, c_uint64)
_verify = fn("merkle_shape_verify", c_int, c_void_p, c_char_p, c_uint64, c_char_p, c_void_p, c_size_t,
             _errp)
_multiproof = fn("merkle_shape_tree_multiproof", c_int, c_void_p, c_size_t, ctypes.POINTER(c_size_t),
                 c_void_p, c_void_p, c_void_p, c_size_t)
_mp_verify = fn("merkle_shape_multiproof_verify", c_int, c_void_p, c_char_p, c_void_p, c_void_p,
                c_size_t, c_void_p, c_size_t, _errp)
_flag_mp = fn("merkle_shape_tree_flag_multiproof", c_int, c_void_p, c_void_p, ctypes.POINTER(c_size_t),
              c_void_p, ctypes.POINTER(c_size_t), c_size_t, c_void_p, c_void_p, c_size_t)
_flag_verify = fn("merkle_shape_flag_multiproof_verify", c_int, c_void_p, c_char_p, c_void_p, c_size_t,
                  c_void_p, c_size_t, c_void_p, c_size_t, _errp)
_abi_leaf = fn("merkle_shape_abi_leaf", c_int, c_void_p, c_char_p, c_char_p, c_size_t, _errp)
_dump_json = fn("merkle_shape_tree_dump_json", c_int, c_void_p, c_size_t, ctypes.POINTER(c_size_t),
                c_void_p, c_char_p, c_void_p, c_void_p, _errp)
_alloc_dump = fn("merkle_shape_tree_alloc_dump", c_int, ctypes.POINTER(c_void_p), c_char_p, c_size_t,
                 c_char_p, c_size_t, _errp)
_keccak = fn("merkle_keccak256_hash", None, c_void_p, c_void_p, c_size_t)

SHAPE_PROFILES = ("bitcoin", "ssz", "openzeppelin", "bittorrent-v2")
_MUTATED = 1
_SHAPE_SORTED_PAIRS, _SHAPE_MIX_IN = 1, 8

# merkle_shape field offsets: version u32, profile, hash, flags u32, odd, layout (enums are
# ints), node_prefix_len u32, node_prefix[1], padding, limit u64 -- the size is exported and
# checked, the fields are written through this layout.


class _Shape(ctypes.Structure):
    _fields_ = [("version", c_uint32), ("profile", c_int), ("hash", c_int), ("flags", c_uint32),
                ("odd", c_int), ("layout", c_int), ("node_prefix_len", c_uint32),
                ("node_prefix", ctypes.c_uint8 * 1), ("limit", c_uint64)]


if _shape_size is not None and _shape_size() != ctypes.sizeof(_Shape):
    raise ImportError("merkle: merkle_shape has %d bytes, this module expects %d"
                      % (_shape_size(), ctypes.sizeof(_Shape)))
if _shape_align is not None and _shape_align() != ctypes.alignment(_Shape):
    raise ImportError("merkle: merkle_shape is aligned to %d bytes, this module expects %d"
                      % (_shape_align(), ctypes.alignment(_Shape)))


def _shape(profile, hash=None, limit=None, mix_in_length=False):
    s = _Shape()
    check(_shape_init(ctypes.byref(s), 1, profile_id(profile)), what="profile %r" % (profile,))
    if hash is not None:
        s.hash = hash_id(hash)
    if limit is not None:
        s.limit = limit
    if mix_in_length:
        s.flags |= _SHAPE_MIX_IN
    return s


def _node(x, what="node"):
    if isinstance(x, str):
        x = bytes.fromhex(x[2:] if x[:2] in ("0x", "0X") else x)
    x = bytes(x)
    if len(x) != 32:
        raise MerkleError(_lib.ERR_ARG, "%s must be 32 bytes, got %d" % (what, len(x)))
    return x


def _nodes(xs, reverse=False):
    b = b"".join(_node(x)[::-1] if reverse else _node(x) for x in xs)
    return b, len(b) // 32


def _err():
    return _lib.Error()


def keccak256(data):
    """Keccak-256 (Ethereum's, original padding) of bytes."""
    data = bytes(data)
    out = ctypes.create_string_buffer(32)
    _keccak(out, data, len(data))
    return out.raw


def shape_root(profile, nodes, hash=None, limit=None, mix_in_length=False):
    """(root, mutated) of the level-0 nodes under a profile's shape (no byte reversal)."""
    s = _shape(profile, hash, limit, mix_in_length)
    buf, n = _nodes(nodes)
    out, flags, err = ctypes.create_string_buffer(32), c_uint32(), _err()
    check(_shape_root(out, ctypes.byref(flags), ctypes.byref(s), buf, n, ctypes.byref(err)), err)
    return out.raw, bool(flags.value & _MUTATED)


def bitcoin_root(txids, display_order=True):
    """(merkle root, mutated) of a block's txids. With display_order (the default) the txids
    are taken and the root returned byte-reversed, as block explorers show them; mutated is
    Bitcoin Core's CVE-2012-2459 flag."""
    txids = [_node(t, "txid")[::-1] if display_order else _node(t, "txid") for t in txids]
    root, mutated = shape_root("bitcoin", txids)
    return (root[::-1] if display_order else root), mutated


def ssz_root(chunks, limit=None, mix_in_length=False):
    """SSZ hash_tree_root merkleisation of 32-byte chunks (zero-padded to the next power of
    two of their count or of limit; the count mixed in with mix_in_length)."""
    return shape_root("ssz", chunks, limit=limit, mix_in_length=mix_in_length)[0]


def _value_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, (list, tuple)):  # an array or tuple value
        return "[" + ",".join(_value_text(x) for x in v) + "]"
    if isinstance(v, (bytes, bytearray)):
        v = "0x" + bytes(v).hex()
    return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _row_text(row):
    return ",".join(_value_text(v) for v in row).encode()


def _split_types(text):
    """A type list "a,(b,c)[],d" into its top-level types (a tuple type holds commas)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return out


def _types_text(types):
    return (types if isinstance(types, str) else ",".join(types)).encode()


def openzeppelin_leaf(types, row):
    """StandardMerkleTree leaf hash keccak256(keccak256(abi.encode(types, row)))."""
    text, out, err = _row_text(row), ctypes.create_string_buffer(32), _err()
    check(_abi_leaf(out, _types_text(types), text, len(text), ctypes.byref(err)), err)
    return out.raw


def openzeppelin_root(types, rows):
    """StandardMerkleTree.of(rows, types).root (as bytes)."""
    return shape_root("openzeppelin", [openzeppelin_leaf(types, r) for r in rows])[0]


def bittorrent_v2_root(data):
    """BEP 52 pieces root of bytes (SHA-256 of 16 KiB blocks, zero-padded tree)."""
    import hashlib
    data = bytes(data)
    if not data:
        raise MerkleError(_lib.ERR_RANGE, "an empty file has no pieces root")
    leaves = [hashlib.sha256(data[i:i + 16384]).digest() for i in range(0, len(data), 16384)]
    return shape_root("bittorrent-v2", leaves)[0]


class ShapeTree(Owner):
    """A whole tree in memory for proofs, every level kept: positions are generalized indices
    (rfc6962, sia, bitcoin, ssz, bittorrent-v2) or heap array indices (openzeppelin). For
    rfc6962 and sia the nodes are leaf hashes (or use from_leaves / from_bytes)."""

    def __init__(self, profile, nodes, hash=None, limit=None, mix_in_length=False, _ptr=None):
        self._ptr = None
        self.profile = profile
        self._shape = _shape(profile, hash, limit, mix_in_length)
        if _ptr is not None:
            self._ptr = _ptr
            self.mutated = False
            return
        buf, n = _nodes(nodes)
        p, flags, err = c_void_p(), c_uint32(), _err()
        check(_tree_alloc(ctypes.byref(p), ctypes.byref(flags), ctypes.byref(self._shape), buf, n,
                          ctypes.byref(err)), err)
        self._ptr = p.value
        self.mutated = bool(flags.value & _MUTATED)

    @classmethod
    def from_leaves(cls, leaves, profile="rfc6962", hash=None):
        """The tree of raw leaves (bytes) of rfc6962 or sia: leaf i's node is H(0x00 || leaf),
        hashed in batches. Its branches are the RFC 6962 audit paths (CometBFT's aunts)."""
        s = _shape(profile, hash)
        data = [bytes(x) for x in leaves]
        n = len(data)
        ptrs = (c_char_p * max(n, 1))(*data)
        lens = (c_size_t * max(n, 1))(*[len(x) for x in data])
        p, err = c_void_p(), _err()
        check(_tree_alloc_leaves(ctypes.byref(p), ctypes.byref(s), ptrs, lens, n, ctypes.byref(err)),
              err)
        t = cls(profile, None, hash=hash, _ptr=p.value)
        return t

    @classmethod
    def from_bytes(cls, data, leaf_size=None, profile="rfc6962", hash=None):
        """The tree of bytes cut into leaf_size leaves (the profile's default when None), the
        short last leaf included: the tree whose root merkle.root_bytes gives."""
        s = _shape(profile, hash)
        if leaf_size is None:
            leaf_size = profile_defaults(profile)[1]
        data = bytes(data)
        p, err = c_void_p(), _err()
        check(_tree_alloc_bytes(ctypes.byref(p), ctypes.byref(s), leaf_size, data, len(data),
                                ctypes.byref(err)), err)
        return cls(profile, None, hash=hash, _ptr=p.value)

    def branches(self):
        """Every level-0 node's branch (what branch(position(i)) gives), in input order, built
        in one pass: a list of lists of 32-byte hashes."""
        n = len(self)
        total = c_size_t()
        off = (c_uint64 * (n + 1))()
        st = _tree_branches(None, 0, ctypes.byref(total), off, self._live())
        if st not in (_lib.OK, _lib.ERR_BUFFER):
            check(st)
        buf = ctypes.create_string_buffer(32 * max(total.value, 1))
        check(_tree_branches(buf, total.value, ctypes.byref(total), off, self._live()))
        raw = buf.raw
        return [[raw[32 * k:32 * k + 32] for k in range(off[i], off[i + 1])] for i in range(n)]

    @classmethod
    def load_dump(cls, text):
        """A tree from an @openzeppelin/merkle-tree dump() JSON (validated); returns
        (tree, leaf encoding types or None for a SimpleMerkleTree)."""
        if isinstance(text, str):
            text = text.encode()
        p, err = c_void_p(), _err()
        types = ctypes.create_string_buffer(4096)
        check(_alloc_dump(ctypes.byref(p), types, len(types), text, len(text), ctypes.byref(err)), err)
        t = cls("openzeppelin", None, _ptr=p.value)
        return t, (_split_types(types.value.decode()) if types.value else None)

    def close(self):
        if getattr(self, "_ptr", None):
            _tree_free(self._ptr)
            self._ptr = None

    def _live(self):
        if not self._ptr:
            raise MerkleError(_lib.ERR_STATE, "the tree is closed")
        return self._ptr

    @property
    def root(self):
        out = ctypes.create_string_buffer(32)
        _tree_root(out, self._live())
        return out.raw

    def __len__(self):
        return _tree_count(self._live())

    def node(self, pos):
        out = ctypes.create_string_buffer(32)
        check(_tree_node(out, self._live(), pos), what="position %d" % pos)
        return out.raw

    def position(self, index):
        out = c_uint64()
        check(_tree_position(ctypes.byref(out), self._live(), index), what="index %d" % index)
        return out.value

    def branch(self, pos):
        """Siblings of the node at pos, bottom-up."""
        buf, n = ctypes.create_string_buffer(32 * 64), c_size_t()
        check(_tree_branch(buf, 64, ctypes.byref(n), self._live(), pos))
        return [buf.raw[32 * i:32 * i + 32] for i in range(n.value)]

    def multiproof(self, gindices):
        """(leaves, helper nodes) of an SSZ multiproof for the generalized indices."""
        g = (c_uint64 * len(gindices))(*gindices)
        need = c_size_t()
        st = _multiproof(None, 0, ctypes.byref(need), None, self._live(), g, len(gindices))
        if st not in (_lib.OK, _lib.ERR_BUFFER):
            check(st)
        proof = ctypes.create_string_buffer(32 * max(need.value, 1))
        leaves = ctypes.create_string_buffer(32 * len(gindices))
        check(_multiproof(proof, need.value, ctypes.byref(need), leaves, self._live(), g, len(gindices)))
        return ([leaves.raw[32 * i:32 * i + 32] for i in range(len(gindices))],
                [proof.raw[32 * i:32 * i + 32] for i in range(need.value)])

    def flag_multiproof(self, indices):
        """OpenZeppelin getMultiProof of input indices: (leaves, proof, proofFlags)."""
        pos = (c_uint64 * len(indices))(*[self.position(i) for i in indices])
        cap = len(indices) * 66 + 1
        leaves, proof = ctypes.create_string_buffer(32 * cap), ctypes.create_string_buffer(32 * cap)
        flags = ctypes.create_string_buffer(cap)
        np_, nf = c_size_t(), c_size_t()
        check(_flag_mp(leaves, proof, ctypes.byref(np_), flags, ctypes.byref(nf), cap, self._live(),
                       pos, len(indices)))
        return ([leaves.raw[32 * i:32 * i + 32] for i in range(len(indices))],
                [proof.raw[32 * i:32 * i + 32] for i in range(np_.value)],
                [bool(flags.raw[i]) for i in range(nf.value)])

    # ---- @openzeppelin/merkle-tree by value (issue 26 item 5); types None: SimpleMerkleTree

    def leaf_lookup(self, types, value):
        """leafLookup(value): the input index of the value (a row of types, or with types None
        the 32-byte leaf). A value present more than once is found at its last occurrence, as
        the peer's hash lookup keeps the last index. MerkleError (ERR_ARG, "Leaf is not in
        tree") when no leaf has its hash."""
        h = _oz_leaf(types, value)
        for i in range(len(self) - 1, -1, -1):
            if self.node(self.position(i)) == h:
                return i
        raise MerkleError(_lib.ERR_ARG, "Leaf is not in tree")

    def get_proof(self, types, value):
        """getProof(value): the branch (list of 32-byte hashes) of the value."""
        return self.branch(self.position(self.leaf_lookup(types, value)))

    def get_multi_proof(self, types, values):
        """getMultiProof(values): (leaves, proof, proofFlags) of the values."""
        return self.flag_multiproof([self.leaf_lookup(types, v) for v in values])

    def validate(self):
        """validate() of an openzeppelin tree: every interior node is the sorted-pair
        Keccak-256 of its children (a tree from load_dump was checked when loaded; this walks
        it again). MerkleError (ERR_VERIFY, "Merkle tree is invalid") otherwise."""
        n = 2 * len(self) - 1
        for i in range(n - 1, -1, -1):
            if 2 * i + 2 < n:
                a, b = self.node(2 * i + 1), self.node(2 * i + 2)
                if keccak256(min(a, b) + max(a, b)) != self.node(i):
                    raise MerkleError(_lib.ERR_VERIFY, "Merkle tree is invalid")

    def render(self):
        """render(): the tree array drawn as @openzeppelin/merkle-tree 1.0.8 draws it (str,
        no trailing newline), e.g. "0) 0x..\n├─ 1) 0x..\n│  ├─ 3) 0x..."."""
        n = 2 * len(self) - 1
        if n <= 0:
            raise MerkleError(_lib.ERR_ARG, "Expected non-zero number of nodes")
        stack, lines = [(0, [])], []
        while stack:
            i, path = stack.pop()
            rails = "".join("│  " if p else "   " for p in path[:-1])
            branch = ("├─ " if path[-1] else "└─ ") if path else ""
            lines.append("%s%s%d) 0x%s" % (rails, branch, i, self.node(i).hex()))
            if 2 * i + 2 < n:
                stack.append((2 * i + 2, path + [0]))
                stack.append((2 * i + 1, path + [1]))
        return "\n".join(lines)

    def dump_json(self, types=None, rows=None):
        """The tree's dump() JSON (str), as JSON.stringify(dump, null, 2) + newline writes it:
        standard-v1 with types and the rows of the input leaves, else simple-v1."""
        tt = _types_text(types) if types is not None else None
        texts = [_row_text(r) for r in rows] if rows is not None else []
        arr = (c_char_p * max(len(texts), 1))(*texts)
        lens = (c_size_t * max(len(texts), 1))(*[len(x) for x in texts])
        need, err = c_size_t(), _err()
        st = _dump_json(None, 0, ctypes.byref(need), self._live(), tt, arr if tt else None,
                        lens if tt else None, ctypes.byref(err))
        if st != _lib.ERR_BUFFER:
            check(st, err)
        out = ctypes.create_string_buffer(need.value)
        check(_dump_json(out, need.value, ctypes.byref(need), self._live(), tt, arr if tt else None,
                         lens if tt else None, ctypes.byref(err)), err)
        return out.value.decode("utf-8")


def _oz_leaf(types, value):
    """The leaf hash of an openzeppelin value: the StandardMerkleTree leaf of a row of types,
    or (types None) the SimpleMerkleTree leaf: the 32-byte value itself (bytes or hex)."""
    if types is not None:
        return openzeppelin_leaf(types, value)
    if isinstance(value, str):
        value = bytes.fromhex(value[2:] if value[:2] in ("0x", "0X") else value)
    return _node(value, "leaf")


def openzeppelin_verify(root, types, value, proof):
    """StandardMerkleTree.verify(root, types, value, proof) (types None:
    SimpleMerkleTree.verify(root, leaf, proof)): True when the value's leaf hashes with proof
    (sorted pairs, Keccak-256) to root."""
    return verify_branch("openzeppelin", root, 0, _oz_leaf(types, value), proof)


def openzeppelin_verify_multi(root, types, multiproof):
    """StandardMerkleTree.verifyMultiProof(root, types, multiproof) (types None:
    SimpleMerkleTree's): multiproof is what getMultiProof() returns, a dict with "leaves" (the
    values, in the proof's order), "proof" and "proofFlags" (get_multi_proof's triple also
    works). True when they hash to root."""
    if isinstance(multiproof, dict):
        values, proof, flags = multiproof["leaves"], multiproof["proof"], multiproof["proofFlags"]
    else:
        values, proof, flags = multiproof
    leaves = [_oz_leaf(types, v) for v in values]
    return verify_multiproof("openzeppelin", root, None, leaves, proof, flags)


def verify_branch(profile, root, pos, leaf, path, hash=None, limit=None, mix_in_length=False):
    """True when leaf at position pos hashes with path (bottom-up) to root."""
    s = _shape(profile, hash, limit, mix_in_length)
    buf, n = _nodes(path)
    st = _verify(ctypes.byref(s), _node(root, "root"), pos, _node(leaf, "leaf"), buf, n, None)
    if st == _lib.ERR_VERIFY:
        return False
    check(st)
    return True


def verify_multiproof(profile, root, positions, leaves, proof, proof_flags=None, hash=None):
    """SSZ (positions = gindices, proof_flags None) or OpenZeppelin (positions ignored,
    proof_flags given) multiproof verification; True or False."""
    s = _shape(profile, hash)
    lb, nl = _nodes(leaves)
    pb, np_ = _nodes(proof)
    if proof_flags is None:
        g = (c_uint64 * max(len(positions), 1))(*positions)
        st = _mp_verify(ctypes.byref(s), _node(root, "root"), g, lb, nl, pb, np_, None)
    else:
        fl = bytes(1 if f else 0 for f in proof_flags)
        st = _flag_verify(ctypes.byref(s), _node(root, "root"), lb, nl, pb, np_, fl, len(fl), None)
    if st == _lib.ERR_VERIFY:
        return False
    check(st)
    return True
