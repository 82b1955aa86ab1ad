# SPDX-License-Identifier: MIT OR Apache-2.0
"""Binary Merkle tree roots (include/merkle/tree.h): bytes, files and leaf lists."""
import array
import ctypes
import itertools
import mmap
import os
import stat

from . import _lib
from ._lib import MerkleError, check, fn

try:
    # The compiled binding (python/merkle/_native.c; CMake MERKLE_BUILD_PYTHON, pip install).
    from . import _native
except ImportError:  # a tree or package built without it: the ctypes definitions below
    _native = None

c_int, c_size_t, c_void_p, c_char_p = ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char_p
_u8p = ctypes.POINTER(ctypes.c_uint8)

_profile_from_name = fn("merkle_profile_from_name", c_int, ctypes.POINTER(c_int), c_char_p)
_hash_from_name = fn("merkle_hash_alg_from_name", c_int, ctypes.POINTER(c_int), c_char_p)
_profile_defaults = fn("merkle_profile_defaults", c_int, ctypes.POINTER(c_int),
                       ctypes.POINTER(c_size_t), c_int)
_empty_root = fn("merkle_tree_empty_root", c_int, c_void_p, c_int, c_int)
_leaf_hash = fn("merkle_tree_leaf_hash", c_int, c_void_p, c_int, c_void_p, c_size_t)
_node_hash = fn("merkle_tree_node_hash", c_int, c_void_p, c_int, c_char_p, c_char_p)
_hash = fn("merkle_hash", c_int, c_void_p, c_int, c_void_p, c_size_t)
_root_bytes = fn("merkle_tree_root_bytes", c_int, c_void_p, c_int, c_int, c_size_t, c_void_p, c_size_t)
_root_list = fn("merkle_tree_root_list", c_int, c_void_p, c_int, c_int, c_void_p, c_void_p, c_size_t)
_root_bytes_parallel = fn("merkle_tree_root_bytes_parallel", c_int, c_void_p, c_int, c_int, c_size_t, c_void_p,
                    c_size_t, ctypes.c_uint)
_tree_init = fn("merkle_tree_init", c_int, c_void_p, c_int, c_int, c_size_t)
_tree_write = fn("merkle_tree_write", c_int, c_void_p, c_void_p, c_size_t)
_tree_root = fn("merkle_tree_root", c_int, c_void_p, ctypes.POINTER(c_int), c_void_p)
_tree_count = fn("merkle_tree_leaf_count", ctypes.c_uint64, c_void_p)

PROFILES = ("rfc6962", "sia")
# array typecode of a pointer-sized unsigned integer (size_t and pointers alike).
_WORD = "Q" if ctypes.sizeof(c_void_p) == 8 else "I"
HASHES = ("sha256", "blake2b-256")
_hash_alg_name = fn("merkle_hash_alg_name", c_char_p, c_int)


def hash_name(alg):
    """The name of a merkle_hash_alg value (the library's own table)."""
    name = _hash_alg_name(int(alg)) if _hash_alg_name else None
    if name is None:
        raise ValueError("unknown merkle_hash_alg value %r" % (alg,))
    return name.decode()

# A merkle_tree is plain data (about 10 KiB, 64-byte aligned): the library says how big and
# how aligned (merkle_tree_struct_size/_align), so the buffer fits exactly.
_tree_size = fn("merkle_tree_struct_size", c_size_t)
_tree_align = fn("merkle_tree_struct_align", c_size_t)
_TREE_BUFFER = int(_tree_size()) if _tree_size else 64 * 1024
_TREE_ALIGN = int(_tree_align()) if _tree_align else 64
_READ_CHUNK = 1 << 20


def _name_arg(value, what):
    if isinstance(value, bytes):
        return value
    if not isinstance(value, str):
        raise TypeError("%s must be a str name, got %r" % (what, value))
    return value.encode()


def profile_id(profile):
    """The merkle_profile value of a profile name ("rfc6962", "sia")."""
    out = c_int()
    check(_profile_from_name(ctypes.byref(out), _name_arg(profile, "profile")),
          what="profile %r (rfc6962 or sia)" % (profile,))
    return out.value


def hash_id(hash):
    """The merkle_hash_alg value of a hash name ("sha256", "blake2b-256")."""
    out = c_int()
    check(_hash_from_name(ctypes.byref(out), _name_arg(hash, "hash")),
          what="hash %r (sha256 or blake2b-256)" % (hash,))
    return out.value


def _resolve(profile, hash, leaf_size):
    """(profile id, hash id, leaf size) with the profile's defaults filled in."""
    p = profile_id(profile)
    dh, dl = c_int(), c_size_t()
    check(_profile_defaults(ctypes.byref(dh), ctypes.byref(dl), p))
    h = dh.value if hash is None else hash_id(hash)
    if leaf_size is None:
        leaf_size = dl.value
    if not isinstance(leaf_size, int) or isinstance(leaf_size, bool):
        raise TypeError("leaf_size must be an int")
    if leaf_size <= 0:
        raise MerkleError(_lib.ERR_ARG, "leaf_size must be > 0, got %d" % leaf_size)
    return p, h, leaf_size


def profile_defaults(profile="rfc6962"):
    """(default hash name, default leaf size) of a profile: ("sha256", 4096) for rfc6962."""
    p = profile_id(profile)
    dh, dl = c_int(), c_size_t()
    check(_profile_defaults(ctypes.byref(dh), ctypes.byref(dl), p))
    return hash_name(dh.value), dl.value


def _threads_arg(threads):
    """Thread count for the library: None/1 = this thread, 0 = all cores."""
    if threads is None:
        return 1
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 0:
        raise TypeError("threads must be an int >= 0 (0 = all cores)")
    if threads == 0:
        threads = os.cpu_count() or 1
    return min(threads, 1024)


def _root_view(ptr, n, p, h, ls, threads):
    out = ctypes.create_string_buffer(_lib.HASH_LEN)
    if threads > 1 and _root_bytes_parallel is not None:
        check(_root_bytes_parallel(out, p, h, ls, ptr, n, threads))
    else:
        check(_root_bytes(out, p, h, ls, ptr, n))
    return out.raw


def root(data, leaf_size=None, profile="rfc6962", hash=None, threads=None):
    """Merkle root (32 bytes) of a byte string cut into leaf_size-byte leaves.

    The last leaf may be short; it is never padded. leaf_size defaults to the profile's
    (4096 for rfc6962, 64 for sia), hash to the profile's (sha256 for rfc6962, blake2b-256
    for sia). Empty data gives the profile's empty root: H("") for rfc6962, 32 zero bytes
    for sia. Same answer as `merkle root --profile P --hash H --leaf-size N`.
    threads: None or 1 hashes on the calling thread, N > 1 on N threads, 0 on all cores (the
    root is the same; the GIL is released while the library works).
    Raises MerkleError (status MERKLE_ERR_ARG) for an unknown profile or hash, or a
    leaf_size <= 0.
    """
    p, h, ls = _resolve(profile, hash, leaf_size)
    nthreads = _threads_arg(threads)
    ptr, n, keep = _lib.buffer(data)
    r = _root_view(ptr, n, p, h, ls, nthreads)
    del keep
    return r


def root_leaves(leaves, profile="rfc6962", hash=None):
    """Merkle root of a list of leaves (each a bytes-like object; b"" is an empty leaf).

    rfc6962 with sha256 is CometBFT's HashFromByteSlices / RFC 6962 MTH. An empty list gives
    the profile's empty root. Same answer as `merkle root --leaves`.
    """
    p, h, _ = _resolve(profile, hash, None)
    items = []
    for x in leaves:
        if isinstance(x, str):
            raise TypeError("leaves must be bytes-like, not str")
        items.append(x if isinstance(x, bytes) else bytes(x))
    n = len(items)
    # One joined buffer and two machine-word arrays built in C by the array module: much
    # cheaper than n ctypes objects for long lists of small leaves.
    lens = array.array(_WORD, map(len, items))
    blob = b"".join(items)
    base = ctypes.cast(ctypes.c_char_p(blob), c_void_p).value or 0
    ptrs = array.array(_WORD, itertools.accumulate(lens, initial=base))
    ptrs.pop()
    if n:
        pa = (c_void_p * n).from_buffer(ptrs)
        la = (c_size_t * n).from_buffer(lens)
    else:
        pa, la = None, None
    out = ctypes.create_string_buffer(_lib.HASH_LEN)
    check(_root_list(out, p, h, pa, la, n))
    del blob
    return out.raw


class Tree:
    """A streaming tree builder (merkle_tree) for data that arrives in pieces.

        t = Tree(leaf_size=4096); t.write(b"..."); t.write(b"..."); r = t.root()

    Memory stays constant whatever the input size. After root() the builder is finished.
    """

    def __init__(self, leaf_size=None, profile="rfc6962", hash=None):
        p, h, ls = _resolve(profile, hash, leaf_size)
        self._addr, self._keep = _lib.aligned(_TREE_BUFFER, _TREE_ALIGN)
        check(_tree_init(self._addr, p, h, ls))

    def write(self, data):
        """Append bytes of the stream (any size; a leaf may span calls)."""
        ptr, n, keep = _lib.buffer(data)
        check(_tree_write(self._addr, ptr, n))
        del keep

    def leaf_count(self):
        """Leaves so far, a started short leaf included."""
        return int(_tree_count(self._addr))

    def root(self):
        """Finish and return the 32-byte root (MerkleError MERKLE_ERR_STATE when called twice)."""
        out = ctypes.create_string_buffer(_lib.HASH_LEN)
        check(_tree_root(out, None, self._addr))
        return out.raw


def root_file(path, leaf_size=None, profile="rfc6962", hash=None, threads=None):
    """Merkle root of a file's bytes, in constant memory.

    path is a path (str, bytes, os.PathLike) or a binary file object (read from its current
    position to EOF). Same answer as `merkle root FILE`. With threads (see root()) a
    non-empty regular file named by path is mapped into memory and hashed on that many
    threads; otherwise it is read in 1 MiB pieces. OSError when the file cannot be read;
    MerkleError as root().
    """
    nthreads = _threads_arg(threads)
    if hasattr(path, "readinto") or hasattr(path, "read"):
        t = Tree(leaf_size, profile, hash)
        _feed(t, path)
        return t.root()
    with open(os.fspath(path), "rb") as f:
        st = os.fstat(f.fileno())
        if nthreads > 1 and stat.S_ISREG(st.st_mode) and st.st_size > 0:
            p, h, ls = _resolve(profile, hash, leaf_size)
            # ACCESS_COPY is a private mapping: writable for ctypes, never written.
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY) as mm:
                arr = (ctypes.c_char * len(mm)).from_buffer(mm)
                try:
                    return _root_view(ctypes.addressof(arr), len(mm), p, h, ls, nthreads)
                finally:
                    del arr
        t = Tree(leaf_size, profile, hash)
        _feed(t, f)
        return t.root()


def _feed(t, f):
    if hasattr(f, "readinto"):
        buf = bytearray(_READ_CHUNK)
        view = memoryview(buf)
        while True:
            n = f.readinto(buf)
            if not n:
                break
            t.write(view[:n])
    else:
        while True:
            chunk = f.read(_READ_CHUNK)
            if not chunk:
                break
            t.write(chunk)


def leaf_hash(data, hash="sha256"):
    """Leaf hash H(0x00 || data)."""
    ptr, n, keep = _lib.buffer(data)
    out = ctypes.create_string_buffer(_lib.HASH_LEN)
    check(_leaf_hash(out, hash_id(hash), ptr, n))
    return out.raw


def node_hash(left, right, hash="sha256"):
    """Interior node hash H(0x01 || left || right) of two 32-byte child hashes."""
    l = _lib.digest_arg(left, "left")
    r = _lib.digest_arg(right, "right")
    out = ctypes.create_string_buffer(_lib.HASH_LEN)
    check(_node_hash(out, hash_id(hash), l, r))
    return out.raw


def empty_root(profile="rfc6962", hash=None):
    """Root of the empty tree: H("") for rfc6962, 32 zero bytes for sia."""
    p, h, _ = _resolve(profile, hash, None)
    out = ctypes.create_string_buffer(_lib.HASH_LEN)
    check(_empty_root(out, p, h))
    return out.raw


def digest(data, hash="sha256"):
    """Plain digest (32 bytes) of data with a tree hash: sha256 or blake2b-256."""
    ptr, n, keep = _lib.buffer(data)
    out = ctypes.create_string_buffer(_lib.HASH_LEN)
    check(_hash(out, hash_id(hash), ptr, n))
    return out.raw


# The ctypes definitions stay reachable for python/tests/test_native.py's differential checks
# until every module is ported to merkle._native.
_root_ctypes, _leaf_hash_ctypes = root, leaf_hash
if _native is not None:
    # The compiled definitions of these two (same arguments, results and exceptions).
    root = _native.root  # noqa: F811
    leaf_hash = _native.leaf_hash  # noqa: F811
