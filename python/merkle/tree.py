# SPDX-License-Identifier: MIT OR Apache-2.0
"""Binary Merkle tree roots (include/merkle/tree.h): bytes, files and leaf lists."""
import ctypes
import mmap
import os
import stat

from . import _lib
from ._lib import MerkleError, check, fn
# The compiled binding (python/merkle/_native.c; CMake MERKLE_BUILD_PYTHON, pip install, the
# Debian package): the functions it defines are its objects, bound below.
from . import _native

c_int, c_size_t, c_void_p, c_char_p = ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char_p
_u8p = ctypes.POINTER(ctypes.c_uint8)

_profile_from_name = fn("merkle_profile_from_name", c_int, ctypes.POINTER(c_int), c_char_p)
_hash_from_name = fn("merkle_hash_alg_from_name", c_int, ctypes.POINTER(c_int), c_char_p)
_profile_defaults = fn("merkle_profile_defaults", c_int, ctypes.POINTER(c_int),
                       ctypes.POINTER(c_size_t), c_int)

PROFILES = ("rfc6962", "sia")
HASHES = ("sha256", "blake2b-256")
_hash_alg_name = fn("merkle_hash_alg_name", c_char_p, c_int)


def hash_name(alg):
    """The name of a merkle_hash_alg value (the library's own table)."""
    name = _hash_alg_name(int(alg)) if _hash_alg_name else None
    if name is None:
        raise ValueError("unknown merkle_hash_alg value %r" % (alg,))
    return name.decode()

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


# root(data, leaf_size=None, profile="rfc6962", hash=None, threads=None): merkle._native.
root = _native.root


# root_leaves(leaves, profile="rfc6962", hash=None): merkle._native.
root_leaves = _native.root_leaves


# Tree(leaf_size=None, profile="rfc6962", hash=None): write(data), leaf_count(), root();
# merkle._native.Tree (the merkle_tree it owns is allocated with the struct's own alignment).
Tree = _native.Tree


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
            _resolve(profile, hash, leaf_size)  # bad names fail before the file is mapped
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                return root(mm, leaf_size, profile, hash, nthreads)
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


# leaf_hash(data, hash="sha256"): merkle._native.
leaf_hash = _native.leaf_hash


# node_hash(left, right, hash="sha256"): merkle._native.
node_hash = _native.node_hash


# empty_root(profile="rfc6962", hash=None): merkle._native.
empty_root = _native.empty_root


# digest(data, hash="sha256"): merkle._native.
digest = _native.digest
