# SPDX-License-Identifier: MIT OR Apache-2.0
"""merkle: Python bindings of libmerkle (ctypes; no compiler needed).

Bytes in, bytes out: every digest and root is a 32-byte bytes object (use .hex()).
Every failure of the library raises MerkleError, which carries .status (the merkle_status
code), .name and .message (the library's merkle_strerror text).

    >>> import merkle
    >>> merkle.root(b"abc", leaf_size=1).hex()      # same as: printf abc | merkle root --leaf-size 1
    >>> merkle.root_leaves([b"a", b"b"])             # RFC 6962 / CometBFT root of a leaf list
    >>> merkle.root_file("big.iso", profile="sia")  # Sia crypto.MerkleRoot of a file
    >>> merkle.trie_root({b"k": b"v"})               # merkledb root ID (merkle.Trie for more)

The library is found via MERKLE_LIBRARY, the copy inside the package (pip install),
ctypes.util.find_library("merkle"), then libmerkle.so.1. Parts of the library that this build of libmerkle lacks are simply not
exported by this module.
"""
from ._lib import (MerkleError, STATUS_NAMES, OK, ERR_ARG, ERR_BUFFER, ERR_FORMAT, ERR_VERIFY,
                   ERR_IO, ERR_NOMEM, ERR_RANGE, ERR_LIMIT, ERR_UNSUPPORTED, ERR_STATE, ERR_UNSAFE,
                   HASH_LEN, strerror)
from . import _lib
from .tree import (PROFILES, HASHES, Tree, root, root_file, root_leaves, leaf_hash, node_hash,
                   empty_root, digest, profile_defaults)

__all__ = ["MerkleError", "STATUS_NAMES", "OK", "ERR_ARG", "ERR_BUFFER", "ERR_FORMAT",
           "ERR_VERIFY", "ERR_IO", "ERR_NOMEM", "ERR_RANGE", "ERR_LIMIT", "ERR_UNSUPPORTED",
           "ERR_STATE", "ERR_UNSAFE", "HASH_LEN", "strerror", "PROFILES", "HASHES", "Tree", "root",
           "root_file", "root_leaves", "leaf_hash", "node_hash", "empty_root", "digest",
           "profile_defaults", "library_version", "library_path", "sha256_backend"]

# Modules whose C part may be missing from an older libmerkle are exported only when present.
if _lib.has("merkle_prover_init"):
    from . import proof
    from .proof import (Proof, inclusion_proof, consistency_proof, range_proof, stream_proof,
                        verify_inclusion, verify_consistency, verify_cometbft, verify_sia,
                        verify_range)
    __all__ += ["proof", "Proof", "inclusion_proof", "consistency_proof", "range_proof",
                "stream_proof", "verify_inclusion", "verify_consistency", "verify_cometbft",
                "verify_sia", "verify_range"]

if _lib.has("merkle_trie_alloc"):
    from .trie import (Trie, TrieProof, trie_root, trie_verify, cb58_encode, cb58_decode,
                       parse_id)
    from . import trie
    __all__ += ["Trie", "TrieProof", "trie_root", "trie_verify", "cb58_encode", "cb58_decode",
                "parse_id", "trie"]

if _lib.has("merkle_mdb_db_alloc"):
    from . import mdb
    from .mdb import MerkleDB, MerkleDBError  # verifiers: merkle.mdb.verify_range/_change
    __all__ += ["mdb", "MerkleDB", "MerkleDBError"]

if _lib.has("merkle_manifest_parse_alloc"):
    from . import manifest
    from .manifest import check_manifest
    __all__ += ["manifest", "check_manifest"]

if _lib.has("merkle_shape_init"):
    from . import shape
    from .shape import (SHAPE_PROFILES, ShapeTree, shape_root, bitcoin_root, ssz_root,
                        openzeppelin_leaf, openzeppelin_root, openzeppelin_verify, openzeppelin_verify_multi,
                        bittorrent_v2_root, keccak256, verify_branch, verify_multiproof)
    __all__ += ["shape", "SHAPE_PROFILES", "ShapeTree", "shape_root", "bitcoin_root", "ssz_root",
                "openzeppelin_leaf", "openzeppelin_root", "openzeppelin_verify", "openzeppelin_verify_multi",
                "bittorrent_v2_root", "keccak256",
                "verify_branch", "verify_multiproof"]

if _lib.has("merkle_sexp_parse"):
    from . import clvm
    __all__ += ["clvm"]

_lib.lib.merkle_version.restype = __import__("ctypes").c_char_p
_lib.lib.merkle_sha256_backend.restype = __import__("ctypes").c_char_p


def library_version():
    """Version string of the libmerkle that was loaded ("MAJOR.MINOR.PATCH")."""
    return _lib.lib.merkle_version().decode()


def library_path():
    """Path or name the shared library was loaded from."""
    return _lib.lib._name


def sha256_backend():
    """Name of the SHA-256 backend libmerkle chose for this CPU ("portable", "shani", ...)."""
    return _lib.lib.merkle_sha256_backend().decode()


__version__ = library_version()

# The compiled binding (merkle/_native.c): merkle.root, merkle.leaf_hash and merkle.Trie's
# base class are defined by it.
from . import _native  # noqa: E402
