# SPDX-License-Identifier: MIT OR Apache-2.0
"""Binary Merkle tree roots (include/merkle/tree.h): bytes, files and leaf lists. Every call
into the library here is merkle._native (no ctypes)."""
import mmap
import os
import stat

# The compiled binding (python/merkle/_native.c; CMake MERKLE_BUILD_PYTHON, pip install, the
# Debian package): the functions it defines are its objects, bound below.
from . import _native

PROFILES = ("rfc6962", "sia")
HASHES = ("sha256", "blake2b-256")

# Name lookups (merkle._native): profile_id(profile), hash_id(hash) -> the C enum values;
# hash_name(alg) -> the library's name; profile_defaults(profile="rfc6962") -> (hash name,
# leaf size); _resolve(profile, hash, leaf_size) -> (profile id, hash id, leaf size).
profile_id = _native.profile_id
hash_id = _native.hash_id
hash_name = _native.hash_name
profile_defaults = _native.profile_defaults
_resolve = _native._resolve

_READ_CHUNK = 1 << 20


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
