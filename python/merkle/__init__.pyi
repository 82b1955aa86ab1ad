# SPDX-License-Identifier: MIT OR Apache-2.0
# Type hints of the merkle package (the implementation is __init__.py). The proof, trie,
# manifest and clvm names exist when the loaded libmerkle has those layers (it always does
# in a pip install or the Debian package).
from types import ModuleType
from typing import List

from . import clvm as clvm, manifest as manifest, mdb as mdb, proof as proof, shape as shape, \
    trie as trie
from ._lib import (ERR_ARG as ERR_ARG, ERR_BUFFER as ERR_BUFFER, ERR_FORMAT as ERR_FORMAT,
                   ERR_IO as ERR_IO, ERR_LIMIT as ERR_LIMIT, ERR_NOMEM as ERR_NOMEM,
                   ERR_RANGE as ERR_RANGE, ERR_STATE as ERR_STATE,
                   ERR_UNSUPPORTED as ERR_UNSUPPORTED, ERR_VERIFY as ERR_VERIFY,
                   HASH_LEN as HASH_LEN, OK as OK, STATUS_NAMES as STATUS_NAMES,
                   MerkleError as MerkleError, strerror as strerror)
from .manifest import check_manifest as check_manifest
from .proof import (Proof as Proof, consistency_proof as consistency_proof,
                    inclusion_proof as inclusion_proof, range_proof as range_proof,
                    stream_proof as stream_proof, verify_cometbft as verify_cometbft,
                    verify_consistency as verify_consistency,
                    verify_inclusion as verify_inclusion, verify_range as verify_range,
                    verify_sia as verify_sia)
from .shape import (SHAPE_PROFILES as SHAPE_PROFILES, ShapeTree as ShapeTree,
                    bitcoin_root as bitcoin_root, bittorrent_v2_root as bittorrent_v2_root,
                    keccak256 as keccak256, openzeppelin_leaf as openzeppelin_leaf,
                    openzeppelin_root as openzeppelin_root,
                    openzeppelin_verify as openzeppelin_verify,
                    openzeppelin_verify_multi as openzeppelin_verify_multi, shape_root as shape_root,
                    ssz_root as ssz_root, verify_branch as verify_branch,
                    verify_multiproof as verify_multiproof)
from .tree import (HASHES as HASHES, PROFILES as PROFILES, Tree as Tree, digest as digest,
                   empty_root as empty_root, leaf_hash as leaf_hash, node_hash as node_hash,
                   profile_defaults as profile_defaults, root as root,
                   root_file as root_file, root_leaves as root_leaves)
from .mdb import MerkleDB as MerkleDB, MerkleDBError as MerkleDBError
from .trie import (Trie as Trie, TrieProof as TrieProof, cb58_decode as cb58_decode,
                   cb58_encode as cb58_encode, parse_id as parse_id, trie_root as trie_root,
                   trie_verify as trie_verify)

__all__: List[str]
__version__: str
_native: ModuleType  # the compiled binding (merkle/_native.c)

def library_version() -> str: ...
def library_path() -> str: ...
def sha256_backend() -> str: ...
