# SPDX-License-Identifier: MIT OR Apache-2.0
"""Inclusion, consistency and range proofs (include/merkle/proof.h).

Generation reads a leaf list or a byte stream once with the library's streaming prover
(constant memory); every proof is a Proof object that encodes to the library's binary
("MRKP") or JSON form. Verification functions return True or raise MerkleError with status
MERKLE_ERR_VERIFY when the proof does not verify (ERR_ARG / ERR_RANGE / ERR_FORMAT for
unusable input).
"""
import ctypes
import os

from . import _lib
from ._lib import MerkleError, check, fn
from .tree import _resolve, _threads_arg, hash_id, hash_name, HASHES, PROFILES  # noqa: F401

# merkle_profile values 1..6 (include/merkle/tree.h): a proof may be of any of them.
_PROFILE_NAMES = PROFILES + ("bitcoin", "ssz", "openzeppelin", "bittorrent-v2")

c_int, c_size_t, c_void_p, c_char_p, c_u32, c_u64, c_i64 = (
    ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint32,
    ctypes.c_uint64, ctypes.c_int64)
HL = _lib.HASH_LEN
MAX_PATH = 128
_E = ctypes.POINTER(_lib.Error)
_Hash = ctypes.c_uint8 * HL
_HashP = ctypes.POINTER(_Hash)

INCLUSION, CONSISTENCY, RANGE = 1, 2, 3
KINDS = {INCLUSION: "inclusion", CONSISTENCY: "consistency", RANGE: "range"}
HAS_ROOT, HAS_OLD_ROOT, HAS_LEAF_HASH, HAS_LEAF = 1, 2, 4, 8


class _Proof(ctypes.Structure):
    _fields_ = [("version", c_u32), ("kind", c_int), ("profile", c_int), ("hash", c_int),
                ("tree_size", c_u64), ("index", c_u64), ("end", c_u64), ("leaf_size", c_u64),
                ("flags", c_u32), ("root", _Hash), ("old_root", _Hash), ("leaf_hash", _Hash),
                ("path_len", c_size_t), ("path", _Hash * MAX_PATH)]


# Every verify function: hash, root(s), size(s), position, leaf, path, path length.
_incl_verify = fn("merkle_proof_inclusion_verify", c_int, c_int, c_char_p, c_u64, c_u64, c_char_p,
                  c_char_p, c_size_t, ctypes.POINTER(_lib.Error))
_cons_verify = fn("merkle_proof_consistency_verify", c_int, c_int, c_char_p, c_char_p, c_u64, c_u64,
                  c_char_p, c_size_t, ctypes.POINTER(_lib.Error))
_comet_verify = fn("merkle_proof_cometbft_verify", c_int, c_char_p, c_i64, c_i64, c_char_p, c_char_p,
                   c_size_t, c_char_p, c_size_t, ctypes.POINTER(_lib.Error))
_sia_verify = fn("merkle_proof_sia_verify", c_int, c_int, c_char_p, c_u64, c_u64, c_char_p, c_size_t,
                 c_char_p, c_size_t, ctypes.POINTER(_lib.Error))
_range_verify = fn("merkle_proof_range_verify", c_int, c_int, c_char_p, c_u64, c_u64, c_u64, c_char_p,
                   c_char_p, c_size_t, ctypes.POINTER(_lib.Error))
_prover_init = fn("merkle_prover_init", c_int, c_void_p, c_int, c_int, c_size_t, c_u64, c_u64)
_prover_push = fn("merkle_prover_push_leaf", c_int, c_void_p, c_char_p, c_size_t)
_prover_write = fn("merkle_prover_write", c_int, c_void_p, c_void_p, c_size_t)
_prover_finish = fn("merkle_prover_finish", c_int, ctypes.POINTER(_Proof), c_void_p, c_int)
_proof_verify = fn("merkle_proof_verify", c_int, ctypes.POINTER(_Proof), c_char_p, c_char_p,
                   c_char_p, c_char_p, _E)
_encode = fn("merkle_proof_encode", c_int, c_void_p, c_size_t, ctypes.POINTER(c_size_t),
             ctypes.POINTER(_Proof), c_char_p, c_size_t)
_decode = fn("merkle_proof_decode", c_int, ctypes.POINTER(_Proof),
             ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(c_size_t), c_char_p, c_size_t, _E)
_to_json = fn("merkle_proof_to_json", c_int, c_void_p, c_size_t, ctypes.POINTER(c_size_t),
              ctypes.POINTER(_Proof), c_char_p, c_size_t)
_to_cometbft = fn("merkle_proof_to_cometbft_json", c_int, c_void_p, c_size_t,
                  ctypes.POINTER(c_size_t), ctypes.POINTER(_Proof))
_from_json = fn("merkle_proof_from_json", c_int, ctypes.POINTER(_Proof), c_void_p, c_size_t,
                ctypes.POINTER(c_size_t), c_char_p, c_size_t, _E)

AVAILABLE = _prover_init is not None

# merkle_prover is plain data (about 22 KiB, 64-byte aligned): the library says how big and
# how aligned (merkle_prover_struct_size/_align).
_prover_size = fn("merkle_prover_struct_size", c_size_t)
_prover_align = fn("merkle_prover_struct_align", c_size_t)
_PROVER_BUFFER = int(_prover_size()) if _prover_size else 128 * 1024
_PROVER_ALIGN = int(_prover_align()) if _prover_align else 64
_READ_CHUNK = 1 << 20


def _hashes(items, name):
    """Concatenate a list of 32-byte hashes (bytes-like) for a C array argument."""
    out = []
    for i, h in enumerate(items):
        out.append(_lib.digest_arg(h, "%s[%d]" % (name, i)))
    return b"".join(out), len(out)


def _opt_hash(h, name):
    return None if h is None else _lib.digest_arg(h, name)


class Proof:
    """A proof as the library represents it (struct merkle_proof), plus the raw leaf of a
    Sia-style inclusion proof when there is one.

    Attributes: kind ("inclusion", "consistency", "range"), profile, hash, tree_size, index
    (inclusion: leaf index; range: start; consistency: old size), end, old_size, new_size,
    leaf_size (advisory; 0 for a leaf list), root, old_root, leaf_hash (bytes or None),
    path (list of 32-byte bytes), leaf (raw leaf bytes or None).
    """

    def __init__(self, raw, leaf=None):
        self._p = raw
        self.leaf = leaf

    # -- fields
    kind = property(lambda s: KINDS.get(s._p.kind, str(s._p.kind)))
    profile = property(lambda s: _PROFILE_NAMES[s._p.profile - 1])
    hash = property(lambda s: hash_name(s._p.hash))
    tree_size = property(lambda s: int(s._p.tree_size))
    index = property(lambda s: int(s._p.index))
    start = index
    end = property(lambda s: int(s._p.end))
    old_size = property(lambda s: int(s._p.index) if s._p.kind == CONSISTENCY else None)
    new_size = tree_size
    leaf_size = property(lambda s: int(s._p.leaf_size))
    root = property(lambda s: bytes(s._p.root) if s._p.flags & HAS_ROOT else None)
    old_root = property(lambda s: bytes(s._p.old_root) if s._p.flags & HAS_OLD_ROOT else None)
    leaf_hash = property(lambda s: bytes(s._p.leaf_hash) if s._p.flags & HAS_LEAF_HASH else None)

    @property
    def path(self):
        return [bytes(self._p.path[i]) for i in range(self._p.path_len)]

    def __repr__(self):
        return "<merkle.Proof %s size=%d index=%d path=%d>" % (
            self.kind, self.tree_size, self.index, self._p.path_len)

    def __eq__(self, other):
        return (isinstance(other, Proof) and self.encode() == other.encode())

    # -- encodings
    def _leaf_args(self):
        return (self.leaf, len(self.leaf)) if self.leaf is not None else (None, 0)

    def encode(self):
        """The binary encoding ("MRKP" version 1), raw leaf included when present."""
        leaf, n = self._leaf_args()
        need = c_size_t()
        s = _encode(None, 0, ctypes.byref(need), ctypes.byref(self._p), leaf, n)
        if s != _lib.ERR_BUFFER:
            check(s)
        buf = ctypes.create_string_buffer(need.value)
        check(_encode(buf, need.value, ctypes.byref(need), ctypes.byref(self._p), leaf, n))
        return buf.raw[:need.value]

    def to_json(self):
        """The JSON form `merkle proof` prints (str, final newline included)."""
        leaf, n = self._leaf_args()
        need = c_size_t()
        s = _to_json(None, 0, ctypes.byref(need), ctypes.byref(self._p), leaf, n)
        if s != _lib.ERR_BUFFER:
            check(s)
        buf = ctypes.create_string_buffer(need.value + 1)
        check(_to_json(buf, need.value + 1, ctypes.byref(need), ctypes.byref(self._p), leaf, n))
        return buf.value.decode()  # JSON holds no NUL; the size reported may count one

    def to_cometbft_json(self):
        """CometBFT's crypto/merkle Proof JSON, as its RPC writes it ({"total":"N","index":"I",
        "leaf_hash":base64,"aunts":[base64,...]} and a newline): rfc6962 inclusion proofs with
        SHA-256 only (MerkleError MERKLE_ERR_UNSUPPORTED otherwise). from_json reads it back,
        and also /tx?prove=true responses."""
        if _to_cometbft is None:
            raise NotImplementedError("this libmerkle has no merkle_proof_to_cometbft_json")
        need = c_size_t()
        s = _to_cometbft(None, 0, ctypes.byref(need), ctypes.byref(self._p))
        if s != _lib.ERR_BUFFER:
            check(s)
        buf = ctypes.create_string_buffer(need.value)
        check(_to_cometbft(buf, need.value, ctypes.byref(need), ctypes.byref(self._p)))
        return buf.value.decode()

    @classmethod
    def decode(cls, data):
        """Parse the binary encoding. MerkleError MERKLE_ERR_FORMAT (with .offset) when it is
        not a well-formed proof; whether it verifies is verify()'s business."""
        d = bytes(data)
        p = _Proof()
        leaf_ptr, leaf_len = c_void_p(), c_size_t()
        err = _lib.Error()
        check(_decode(ctypes.byref(p), ctypes.byref(leaf_ptr), ctypes.byref(leaf_len), d,
                      len(d), ctypes.byref(err)), err)
        leaf = None
        if p.flags & HAS_LEAF:
            leaf = ctypes.string_at(leaf_ptr.value, leaf_len.value) if leaf_len.value else b""
        return cls(p, leaf)

    @classmethod
    def from_json(cls, text):
        """Parse the JSON form (also transparency-dev / CometBFT key names)."""
        d = text.encode() if isinstance(text, str) else bytes(text)
        p = _Proof()
        cap = len(d) // 2 + 1
        leaf_buf = ctypes.create_string_buffer(cap)
        leaf_len = c_size_t()
        err = _lib.Error()
        check(_from_json(ctypes.byref(p), leaf_buf, cap, ctypes.byref(leaf_len), d, len(d),
                         ctypes.byref(err)), err)
        leaf = leaf_buf.raw[:leaf_len.value] if b'"leaf"' in d else None
        return cls(p, leaf)

    # -- verification
    def verify(self, root=None, leaf=None, leaf_hash=None, leaves=None, old_root=None,
               index=None, tree_size=None, old_size=None, untrusted_root=False):
        """Verify against a trusted root, as merkle verify does (issue 23 item 6): root (and
        old_root for a consistency proof) is required, unless untrusted_root=True asks only
        whether the proof is coherent with its own stored roots (MerkleError MERKLE_ERR_ARG
        otherwise). index, tree_size, old_size pin what is proven. Inclusion: leaf (raw
        bytes) or leaf_hash (default: the stored leaf, else leaf hash). Range: leaves (the
        raw leaves of [start, end)). Returns True, or raises MerkleError (MERKLE_ERR_VERIFY
        when it does not verify -- one rule for every failure of the claim)."""
        from .tree import leaf_hash as _lh
        cons = self._p.kind == CONSISTENCY
        if untrusted_root and (root is not None or old_root is not None):
            raise MerkleError(_lib.ERR_ARG, "untrusted_root and root/old_root contradict")
        if not untrusted_root and (root is None or (cons and old_root is None)):
            raise MerkleError(_lib.ERR_ARG, "no trusted root: pass root=%s (the proof's own "
                              "roots prove nothing), or untrusted_root=True"
                              % ("..., old_root=..." if cons else "..."))
        if index is not None and (cons or self._p.index != index):
            raise MerkleError(_lib.ERR_VERIFY, "the proof is for %s, not %d" % (
                "a consistency proof" if cons else "index %d" % self._p.index, index))
        if tree_size is not None and self._p.tree_size != tree_size:
            raise MerkleError(_lib.ERR_VERIFY, "the proof is for a tree of %d leaves, not %d"
                              % (self._p.tree_size, tree_size))
        if old_size is not None and (not cons or self._p.index != old_size):
            raise MerkleError(_lib.ERR_VERIFY, "the proof is not from a tree of %d leaves"
                              % old_size)
        r = _opt_hash(root, "root")
        o = _opt_hash(old_root, "old_root")
        if untrusted_root:  # the library takes no root as given: name the proof's own
            r = bytes(self._p.root) if self._p.flags & HAS_ROOT else None
            o = bytes(self._p.old_root) if self._p.flags & HAS_OLD_ROOT else None
        lh = _opt_hash(leaf_hash, "leaf_hash")
        if leaf is not None:
            lh = _lh(leaf, self.hash)
        elif lh is None and self.leaf is not None and self._p.kind == INCLUSION:
            lh = _lh(self.leaf, self.hash)
        # CometBFT's rule, as merkle verify applies it: a leaf must match the proof's own
        # leaf hash when the proof carries one.
        if lh is not None and self._p.kind == INCLUSION and self._p.flags & HAS_LEAF_HASH and \
                bytes(self._p.leaf_hash) != lh:
            raise MerkleError(_lib.ERR_VERIFY, "the leaf does not match the proof's leaf_hash")
        lhs = None
        if leaves is not None:
            lhs, _ = _hashes([_lh(x, self.hash) for x in leaves], "leaves")
        err = _lib.Error()
        check(_proof_verify(ctypes.byref(self._p), r, o, lh, lhs, ctypes.byref(err)), err)
        return True


def _prover(kind, hash_alg, leaf_size, a, b):
    addr, keep = _lib.aligned(_PROVER_BUFFER, _PROVER_ALIGN)
    check(_prover_init(addr, kind, hash_alg, leaf_size, a, b))
    return addr, keep


def _finish(addr, profile_id):
    p = _Proof()
    check(_prover_finish(ctypes.byref(p), addr, profile_id))
    return p


def _from_leaves(kind, leaves, a, b, profile, hash):
    p, h, _ = _resolve(profile, hash, None)
    addr, keep = _prover(kind, h, 1, a, b)
    target = None
    for i, x in enumerate(leaves):
        if isinstance(x, str):
            raise TypeError("leaves must be bytes-like, not str")
        d = x if isinstance(x, bytes) else bytes(x)
        if kind == INCLUSION and i == a:
            target = d
        check(_prover_push(addr, d, len(d)))
    raw = _finish(addr, p)
    raw.leaf_size = 0
    del keep
    return Proof(raw, target if p == 2 else None)


def _from_stream(kind, data, a, b, leaf_size, profile, hash):
    p, h, ls = _resolve(profile, hash, leaf_size)
    addr, keep = _prover(kind, h, ls, a, b)
    if hasattr(data, "read"):
        while True:
            chunk = data.read(_READ_CHUNK)
            if not chunk:
                break
            check(_prover_write(addr, chunk, len(chunk)))
    elif isinstance(data, (str, os.PathLike)):
        with open(data, "rb") as f:
            return _from_stream(kind, f, a, b, leaf_size, profile, hash)
    else:
        ptr, n, k2 = _lib.buffer(data)
        check(_prover_write(addr, ptr, n))
        del k2
    raw = _finish(addr, p)
    del keep
    return Proof(raw, None)


def inclusion_proof(leaves, index, profile="rfc6962", hash=None):
    """Inclusion proof of leaves[index] in the tree of the leaf list (RFC 9162 audit path,
    bottom-up; CometBFT aunts). MerkleError MERKLE_ERR_RANGE when index >= len(leaves)."""
    return _from_leaves(INCLUSION, leaves, index, 0, profile, hash)


def range_proof(leaves, start, end, profile="rfc6962", hash=None):
    """Range proof of leaves [start, end): the subtree roots left of start and right of end,
    left to right (Sia BuildRangeProof)."""
    return _from_leaves(RANGE, leaves, start, end, profile, hash)


def consistency_proof(leaves, old_size, profile="rfc6962", hash=None):
    """RFC 9162 consistency proof from the first old_size leaves to all of them."""
    return _from_leaves(CONSISTENCY, leaves, old_size, 0, profile, hash)


def stream_proof(data, kind="inclusion", index=0, end=None, old_size=None, leaf_size=None,
                 profile="rfc6962", hash=None):
    """A proof over a byte stream cut into leaf_size leaves (`merkle proof FILE`): data is
    bytes, a path or a binary file object, read once in constant memory. kind "inclusion"
    (index), "range" ([index, end)) or "consistency" (old_size)."""
    k = {"inclusion": INCLUSION, "range": RANGE, "consistency": CONSISTENCY}.get(kind)
    if k is None:
        raise MerkleError(_lib.ERR_ARG, "kind must be inclusion, range or consistency")
    a = old_size if k == CONSISTENCY else index
    b = end if k == RANGE else 0
    if a is None or b is None:
        raise MerkleError(_lib.ERR_ARG, "missing index, end or old_size for a %s proof" % kind)
    return _from_stream(k, data, a, b, leaf_size, profile, hash)


def verify_inclusion(leaf_hash, index, tree_size, path, root, hash="sha256"):
    """RFC 9162 inclusion check of a leaf hash H(0x00 || leaf). True or MerkleError."""
    p, n = _hashes(path, "path")
    err = _lib.Error()
    check(_incl_verify(hash_id(hash), _lib.digest_arg(root, "root"), tree_size, index,
                       _lib.digest_arg(leaf_hash, "leaf_hash"), p, n, ctypes.byref(err)), err)
    return True


def verify_consistency(old_size, new_size, old_root, new_root, path, hash="sha256"):
    """RFC 9162 consistency check. True or MerkleError (MERKLE_ERR_VERIFY)."""
    p, n = _hashes(path, "path")
    err = _lib.Error()
    check(_cons_verify(hash_id(hash), _lib.digest_arg(old_root, "old_root"),
                       _lib.digest_arg(new_root, "new_root"), old_size, new_size, p, n, ctypes.byref(err)), err)
    return True


def verify_cometbft(root, total, index, leaf_hash, aunts, leaf):
    """CometBFT Proof.Verify(root, leaf) (SHA-256). True or MerkleError."""
    a, n = _hashes(aunts, "aunts")
    lf = bytes(leaf)
    err = _lib.Error()
    check(_comet_verify(_lib.digest_arg(root, "root"), total, index,
                        _lib.digest_arg(leaf_hash, "leaf_hash"), lf, len(lf), a, n, ctypes.byref(err)), err)
    return True


def verify_sia(root, segment, path, index, num_leaves, hash="blake2b-256"):
    """Sia VerifyProof of a single-leaf proof set (segment = proofSet[0], path the rest)."""
    p, n = _hashes(path, "path")
    seg = bytes(segment)
    err = _lib.Error()
    check(_sia_verify(hash_id(hash), _lib.digest_arg(root, "root"), num_leaves, index, seg,
                      len(seg), p, n, ctypes.byref(err)), err)
    return True


def verify_range(start, end, leaves, path, root, size=0, hash="sha256", leaf_hashes=None):
    """Sia VerifyRangeProof of leaves [start, end) (raw leaves, or leaf_hashes instead);
    size != 0 also requires the exact proof length for that tree size."""
    from .tree import leaf_hash as _lh
    if leaf_hashes is None:
        leaf_hashes = [_lh(x, hash) for x in leaves]
    lh, _ = _hashes(leaf_hashes, "leaf_hashes")
    p, n = _hashes(path, "path")
    err = _lib.Error()
    check(_range_verify(hash_id(hash), _lib.digest_arg(root, "root"), size, start, end, lh, p,
                        n, ctypes.byref(err)), err)
    return True
