# SPDX-License-Identifier: MIT OR Apache-2.0
"""avalanchego merkledb range, change and single-key proofs (include/merkle/mdb.h,
docs/merkledb.md).

    db = MerkleDB(branch_factor=16)
    old = db.commit([(b"a", b"1"), (b"b", b"2")])   # one batch = one history entry
    new = db.commit([(b"c", b"3"), (b"b", None)])   # None deletes
    rp = db.prove_range(start=b"a", max_length=10)   # sync.RangeProof bytes, as Go's
    verify_range(rp, new, start=b"a", max_length=10)
    cp = db.prove_change(old, new)                   # sync.ChangeProof bytes
    verify_change(cp, Trie(16, {b"a": b"1", b"b": b"2"}), new)
    path, value = db.prove_key(b"a")                 # sync.ProofNode encodings, value b"1"
    verify_key(path, new, b"a", b"1")                # value None claims absence

Verifiers return True or raise MerkleDBError (a MerkleError): status MERKLE_ERR_VERIFY for a
proof that does not verify, MERKLE_ERR_FORMAT for one that cannot be decoded; a request Go
refuses raises status MERKLE_ERR_STATE. .kind is the Go sentinel's name as in the vectors'
error_kinds ("ErrInvalidProof", "sync.ErrInsufficientHistory", "proto", ...). start/end None
mean no bound (b"" is the empty key, a bound); max_length None means no limit.
"""
import ctypes

from . import _lib
from ._lib import MerkleError, check, fn

c_int, c_size_t, c_void_p, c_uint = ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_uint
ID_LEN = 32
INT64_MAX = (1 << 63) - 1
RANGE_PROOF, CHANGE_PROOF = 1, 2


class _Result(ctypes.Structure):
    _fields_ = [("kind", c_int), ("message", ctypes.c_char * 320)]


class _Maybe(ctypes.Structure):
    _fields_ = [("ptr", c_void_p), ("len", c_size_t), ("some", c_int)]


class _Child(ctypes.Structure):
    _fields_ = [("index", ctypes.c_uint32), ("id", ctypes.c_uint8 * ID_LEN)]


class _Node(ctypes.Structure):
    _fields_ = [("key", c_void_p), ("key_len", c_size_t), ("key_bits", ctypes.c_int64),
                ("value_or_hash", _Maybe), ("children", ctypes.POINTER(_Child)),
                ("nchildren", c_size_t)]


class _Proof(ctypes.Structure):
    _fields_ = [("start_proof", ctypes.POINTER(_Node)), ("nstart", c_size_t),
                ("end_proof", ctypes.POINTER(_Node)), ("nend", c_size_t), ("kvs", c_void_p),
                ("nkvs", c_size_t), ("mem_", c_void_p)]


class _Op(ctypes.Structure):
    _fields_ = [("key", c_void_p), ("key_len", c_size_t), ("value", c_void_p),
                ("value_len", c_size_t), ("del_", c_int)]


_P = ctypes.POINTER
_kind_name = fn("merkle_mdb_kind_name", ctypes.c_char_p, c_int)
_proof_free = fn("merkle_mdb_proof_free", None, c_void_p)
_decode = fn("merkle_mdb_proof_decode", c_int, _P(c_void_p), _P(_Result), c_int, c_void_p, c_size_t)
_encode = fn("merkle_mdb_proof_encode", c_int, c_void_p, c_size_t, _P(c_size_t), c_void_p, c_int)
_db_alloc = fn("merkle_mdb_db_alloc", c_int, _P(c_void_p), c_uint, c_size_t)
_db_free = fn("merkle_mdb_db_free", None, c_void_p)
_db_trie = fn("merkle_mdb_db_trie", c_void_p, c_void_p)
_db_commit = fn("merkle_mdb_db_commit", c_int, c_void_p, _P(_Op), c_size_t, _P(c_int),
                _P(_lib.Error))
_prove_range = fn("merkle_mdb_prove_range", c_int, _P(c_void_p), _P(_Result), c_void_p, _Maybe,
                  _Maybe, ctypes.c_int64, c_void_p)
_prove_change = fn("merkle_mdb_prove_change", c_int, _P(c_void_p), _P(_Result), c_void_p,
                   c_void_p, c_void_p, _Maybe, _Maybe, ctypes.c_int64)
_verify_range = fn("merkle_mdb_verify_range", c_int, _P(_Result), c_void_p, _Maybe, _Maybe,
                   c_void_p, c_uint, ctypes.c_int64)
_verify_change = fn("merkle_mdb_verify_change", c_int, _P(_Result), c_void_p, c_void_p, _Maybe,
                    _Maybe, c_void_p, ctypes.c_int64)
_prove_key = fn("merkle_mdb_prove_key", c_int, _P(_P(_Proof)), _P(_Maybe), _P(_Result), c_void_p,
                ctypes.c_char_p, c_size_t)
_node_encode = fn("merkle_mdb_node_encode", c_int, c_void_p, c_size_t, _P(c_size_t), _P(_Node))
_path_decode = fn("merkle_mdb_path_decode", c_int, _P(c_void_p), _P(_Result), _P(ctypes.c_char_p),
                  _P(c_size_t), c_size_t)
_verify_key = fn("merkle_mdb_verify_key", c_int, _P(_Result), c_void_p, ctypes.c_char_p, c_size_t,
                 _Maybe, c_void_p, c_uint)
_trie_root = fn("merkle_trie_root", c_int, c_void_p, c_void_p, c_uint, _P(_lib.Error))

AVAILABLE = _db_alloc is not None


class MerkleDBError(MerkleError):
    """A merkledb verdict other than OK: .kind is the Go sentinel's name, .detail its text."""

    def __init__(self, status, kind, detail):
        MerkleError.__init__(self, status, "%s (merkledb: %s)" % (detail, kind))
        self.kind = kind


def kind_name(kind):
    """Name of a merkle_mdb_kind ("ok", "ErrInvalidProof", ...)."""
    return _kind_name(int(kind)).decode()


def _raise(status, res):
    raise MerkleDBError(status, kind_name(res.kind), res.message.decode("utf-8", "replace"))


def _bytes(x, name):
    if isinstance(x, str):
        raise TypeError("%s must be bytes-like, not str" % name)
    return x if isinstance(x, bytes) else bytes(x)


def _maybe(x, name, keep):
    if x is None:
        return _Maybe(None, 0, 0)
    b = _bytes(x, name)
    keep.append(b)
    return _Maybe(ctypes.cast(ctypes.c_char_p(b), c_void_p), len(b), 1)


def _max_length(m):
    if m is None:
        return INT64_MAX
    m = int(m)
    if not -(1 << 63) <= m <= INT64_MAX:
        raise MerkleError(_lib.ERR_ARG, "max_length out of the int64 range")
    return m


def _id(x, name):
    from .trie import parse_id
    return parse_id(x) if isinstance(x, str) else _lib.digest_arg(x, name, ID_LEN)


def _encode_proof(p, msg):
    n = c_size_t()
    s = _encode(None, 0, ctypes.byref(n), p, msg)
    if s not in (_lib.OK, _lib.ERR_BUFFER):
        check(s)
    buf = ctypes.create_string_buffer(max(n.value, 1))
    check(_encode(buf, n.value, ctypes.byref(n), p, msg))
    return buf.raw[:n.value]


class MerkleDB(_lib.Owner):
    """A merkledb database (merkle_mdb_db): a trie plus the history of committed batches
    (the last history_length, default 300 as merkledb; the empty root recorded first)."""

    def __init__(self, branch_factor=16, history_length=0):
        ptr = c_void_p()
        check(_db_alloc(ctypes.byref(ptr), branch_factor, history_length),
              what="branch factor %r" % branch_factor)
        self._db = ptr
        self.branch_factor = branch_factor

    def close(self):
        """Free the C database now (idempotent)."""
        if getattr(self, "_db", None):
            _db_free(self._db)
            self._db = None

    def _ptr(self):
        if not self._db:
            raise MerkleError(_lib.ERR_STATE, "the database was closed")
        return self._db

    def commit(self, ops):
        """Commit one batch of (key, value) pairs (value None deletes the key; the last
        operation on a key wins). Returns the new root ID (32 bytes)."""
        items = [(_bytes(k, "key"), None if v is None else _bytes(v, "value")) for k, v in ops]
        arr = (_Op * max(len(items), 1))()
        for i, (k, v) in enumerate(items):
            arr[i].key = ctypes.cast(ctypes.c_char_p(k), c_void_p)
            arr[i].key_len = len(k)
            if v is None:
                arr[i].del_ = 1
            else:
                arr[i].value = ctypes.cast(ctypes.c_char_p(v), c_void_p)
                arr[i].value_len = len(v)
        err = _lib.Error()
        check(_db_commit(self._ptr(), arr, len(items), None, ctypes.byref(err)), err)
        return self.root()

    def root(self):
        """The current root ID (32 bytes)."""
        out = ctypes.create_string_buffer(ID_LEN)
        err = _lib.Error()
        check(_trie_root(out, _db_trie(self._ptr()), 1, ctypes.byref(err)), err)
        return out.raw

    def prove_range(self, start=None, end=None, max_length=None, at_root=None):
        """GetRangeProof (or GetRangeProofAtRoot with at_root): sync.RangeProof bytes."""
        keep = []
        s, e = _maybe(start, "start", keep), _maybe(end, "end", keep)
        at = None if at_root is None else _id(at_root, "at_root")
        p, res = c_void_p(), _Result()
        st = _prove_range(ctypes.byref(p), ctypes.byref(res), self._ptr(), s, e,
                          _max_length(max_length), at)
        return self._finish(st, p, res, RANGE_PROOF)

    def prove_change(self, from_root, to_root, start=None, end=None, max_length=None):
        """GetChangeProof over the history: sync.ChangeProof bytes."""
        keep = []
        s, e = _maybe(start, "start", keep), _maybe(end, "end", keep)
        f, t = _id(from_root, "from_root"), _id(to_root, "to_root")
        p, res = c_void_p(), _Result()
        st = _prove_change(ctypes.byref(p), ctypes.byref(res), self._ptr(), f, t, s, e,
                           _max_length(max_length))
        return self._finish(st, p, res, CHANGE_PROOF)

    def prove_key(self, key):
        """merkledb's getProof(key) on the current state: (path, value), as
        merkle.mdb.prove_key."""
        return prove_key(self, key)

    @staticmethod
    def _finish(st, p, res, msg):
        try:
            if st == _lib.ERR_STATE:
                _raise(st, res)
            check(st)
            return _encode_proof(p, msg)
        finally:
            if p.value:
                _proof_free(p)


def _decoded(proof, msg):
    b = _bytes(proof, "proof")
    p, res = c_void_p(), _Result()
    st = _decode(ctypes.byref(p), ctypes.byref(res), msg, b, len(b))
    if st == _lib.ERR_FORMAT:
        _raise(st, res)
    check(st)
    return p


def _verdict(st, p, res):
    try:
        if st == _lib.ERR_VERIFY:
            _raise(st, res)
        check(st)
        return True
    finally:
        _proof_free(p)


def verify_range(proof, root, start=None, end=None, max_length=None, branch_factor=16):
    """RangeProof.Verify(start, end, root, tokenSize(branch_factor), max_length) on
    sync.RangeProof bytes: True, or MerkleDBError (ERR_VERIFY, ERR_FORMAT)."""
    keep = []
    s, e = _maybe(start, "start", keep), _maybe(end, "end", keep)
    r, m = _id(root, "root"), _max_length(max_length)
    p = _decoded(proof, RANGE_PROOF)
    res = _Result()
    return _verdict(_verify_range(ctypes.byref(res), p, s, e, r, branch_factor, m), p, res)


def verify_change(proof, db, root, start=None, end=None, max_length=None):
    """MerkleDB.VerifyChangeProof on a database holding db's key/values (a merkle.Trie or a
    MerkleDB; not changed): True, or MerkleDBError (ERR_VERIFY, ERR_FORMAT)."""
    keep = []
    s, e = _maybe(start, "start", keep), _maybe(end, "end", keep)
    r, m = _id(root, "root"), _max_length(max_length)
    trie = _db_trie(db._ptr()) if isinstance(db, MerkleDB) else db._ptr()
    p = _decoded(proof, CHANGE_PROOF)
    res = _Result()
    return _verdict(_verify_change(ctypes.byref(res), p, trie, s, e, r, m), p, res)


def _trie_of(db):
    return _db_trie(db._ptr()) if isinstance(db, MerkleDB) else db._ptr()


def _encode_node(node):
    n = c_size_t()
    s = _node_encode(None, 0, ctypes.byref(n), ctypes.byref(node))
    if s not in (_lib.OK, _lib.ERR_BUFFER):
        check(s)
    buf = ctypes.create_string_buffer(max(n.value, 1))
    check(_node_encode(buf, n.value, ctypes.byref(n), ctypes.byref(node)))
    return buf.raw[:n.value]


def prove_key(db, key):
    """merkledb's getProof(key) on db (a merkle.Trie or a MerkleDB's current state): returns
    (path, value). path is the list of sync.ProofNode encodings in merkledb's order, root
    first (the lines of `merkle trie prove --format merkledb`, as bytes); value is the key's
    value, or None for an exclusion proof. An empty trie raises MerkleDBError (ERR_STATE,
    "ErrEmptyProof")."""
    k = _bytes(key, "key")
    t = _trie_of(db)
    p, v, res = _P(_Proof)(), _Maybe(), _Result()
    st = _prove_key(ctypes.byref(p), ctypes.byref(v), ctypes.byref(res), t, k, len(k))
    try:
        if st == _lib.ERR_STATE:
            _raise(st, res)
        check(st)
        path = [_encode_node(p.contents.start_proof[i]) for i in range(p.contents.nstart)]
        if not v.some:
            return path, None
        return path, ctypes.string_at(v.ptr, v.len) if v.len else b""
    finally:
        if p:
            _proof_free(ctypes.cast(p, c_void_p))


def _path(path):
    if isinstance(path, (str, bytes, bytearray, memoryview)):
        raise TypeError("path must be a sequence of encoded proof nodes, not one byte string")
    out = []
    for x in path:
        if not isinstance(x, (bytes, bytearray, memoryview)):
            raise TypeError("path nodes must be bytes-like, not %s" % type(x).__name__)
        out.append(bytes(x))
    return out


def verify_key(path, root, key, value, branch_factor=16):
    """Proof{Path: path, Key: key, Value: value}.Verify(root, tokenSize(branch_factor)) of
    merkledb (`merkle trie verify --format merkledb`): path as prove_key returns it, value the
    claimed value (None claims the key is absent; b"" is a present empty value). True, or
    MerkleDBError: ERR_VERIFY for a proof that does not verify (another key, value, presence
    or root included), ERR_FORMAT for a node that cannot be decoded."""
    nodes = _path(path)
    k = _bytes(key, "key")
    keep = []
    vm = _maybe(value, "value", keep)
    r = _id(root, "root")
    n = len(nodes)
    bufs = (ctypes.c_char_p * max(n, 1))(*nodes)
    lens = (c_size_t * max(n, 1))(*[len(x) for x in nodes])
    p, res = c_void_p(), _Result()
    st = _path_decode(ctypes.byref(p), ctypes.byref(res), bufs, lens, n)
    if st == _lib.ERR_RANGE:
        raise MerkleDBError(_lib.ERR_FORMAT, "proto", "proof too large")
    if st == _lib.ERR_FORMAT:
        _raise(st, res)
    check(st)
    res = _Result()
    return _verdict(_verify_key(ctypes.byref(res), p, k, len(k), vm, r, branch_factor), p, res)
