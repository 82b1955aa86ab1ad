/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle/shape.h: Merkle trees of other shapes than RFC 6962, described by a small profile
** description (a merkle_shape) instead of code per format.
**
** A shape says how a tree is made from its level-0 nodes (the leaf hashes, txids or chunks):
**
**   hash         the digest (SHA-256, Keccak-256, ...)
**   node         H(node_prefix || left || right), with the options
**                  MERKLE_SHAPE_DOUBLE_NODE   H(H(...)) (Bitcoin's SHA-256d)
**                  MERKLE_SHAPE_SORTED_PAIRS  the smaller child first (OpenZeppelin)
**   odd node     what the last node of a level with an odd count pairs with:
**                  MERKLE_SHAPE_ODD_PROMOTE    nothing: it moves up unchanged (rfc6962, sia)
**                  MERKLE_SHAPE_ODD_DUPLICATE  itself (Bitcoin)
**                  MERKLE_SHAPE_ODD_PAD        the root of an all-zero subtree of its height:
**                                              the leaves are padded with 32-byte zero chunks
**                                              to the next power of two of the count, or of
**                                              `limit` when set (SSZ, BitTorrent v2)
**   layout       MERKLE_SHAPE_LAYOUT_LEVELS  leaves left to right, paired level by level
**                MERKLE_SHAPE_LAYOUT_HEAP    the complete binary tree in an array of 2n-1
**                                            nodes, leaf i at [2n-2-i], children of k at
**                                            2k+1 and 2k+2 (@openzeppelin/merkle-tree)
**   leaves       MERKLE_SHAPE_SORT_LEAVES     level-0 nodes sorted (bytewise) first
**   root         MERKLE_SHAPE_MIX_IN_LENGTH   root = H(root || uint256_le(n)) (SSZ lists)
**                MERKLE_SHAPE_DETECT_MUTATION report two equal sibling nodes (Bitcoin's
**                                             CVE-2012-2459 `mutated` flag)
**
** merkle_shape_init gives the description of a profile; callers may change it (another hash,
** a limit) or build their own. The rfc6962 and sia profiles keep their own streaming code
** (tree.h, proof.h); the functions here accept their description as well.
**
** Positions: in a LEVELS tree a node is named by its generalized index (gindex) as in the
** Ethereum consensus specs: the root is 1, the children of g are 2g and 2g+1, leaf i of a
** tree of depth d is 2^d + i. In a HEAP tree a node is named by its array index.
*/
#ifndef MERKLE_SHAPE_H
#define MERKLE_SHAPE_H

#include "merkle/proof.h"
#include "merkle/tree.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum merkle_shape_odd {
    MERKLE_SHAPE_ODD_PROMOTE = 1,
    MERKLE_SHAPE_ODD_DUPLICATE = 2,
    MERKLE_SHAPE_ODD_PAD = 3
} merkle_shape_odd;

typedef enum merkle_shape_layout {
    MERKLE_SHAPE_LAYOUT_LEVELS = 1,
    MERKLE_SHAPE_LAYOUT_HEAP = 2
} merkle_shape_layout;

typedef enum merkle_shape_flag {
    MERKLE_SHAPE_SORTED_PAIRS = 1u,
    MERKLE_SHAPE_DOUBLE_NODE = 2u,
    MERKLE_SHAPE_SORT_LEAVES = 4u,
    MERKLE_SHAPE_MIX_IN_LENGTH = 8u,
    MERKLE_SHAPE_DETECT_MUTATION = 16u
} merkle_shape_flag;
#define MERKLE_SHAPE_FLAGS_ALL 31u

/* Out flags of the root functions (uint32_t *out_flags). */
typedef enum merkle_shape_result_flag {
    MERKLE_SHAPE_MUTATED = 1u /* two equal sibling nodes were seen (with DETECT_MUTATION) */
} merkle_shape_result_flag;

#define MERKLE_SHAPE_VERSION 1u

/* A profile description: plain data, copyable. */
typedef struct merkle_shape {
    uint32_t version;       /* MERKLE_SHAPE_VERSION */
    merkle_profile profile; /* the profile it was made from (informational) */
    merkle_hash_alg hash;
    uint32_t flags; /* merkle_shape_flag bits */
    merkle_shape_odd odd;
    merkle_shape_layout layout;
    uint32_t node_prefix_len; /* 0 or 1 */
    uint8_t node_prefix[1];
    uint64_t limit; /* ODD_PAD: pad to this many leaves (0: next power of two) */
} merkle_shape;

/* sizeof(merkle_shape) and its alignment in this library (for bindings that allocate it). */
MERKLE_API size_t merkle_shape_struct_size(void);
MERKLE_API size_t merkle_shape_struct_align(void);

/*
** The description of a profile: rfc6962 / sia (prefix 0x01, promote), bitcoin (SHA-256,
** DOUBLE_NODE, DUPLICATE, DETECT_MUTATION), ssz (SHA-256, PAD), openzeppelin (Keccak-256,
** SORTED_PAIRS, SORT_LEAVES, HEAP), bittorrent-v2 (SHA-256, PAD). MERKLE_ERR_ARG for an
** unknown profile or a version other than MERKLE_SHAPE_VERSION.
*/
MERKLE_API merkle_status merkle_shape_init(merkle_shape *shape, uint32_t version,
                                           merkle_profile profile);

/* Interior node of a shape: H([prefix] || left || right), sorted / doubled as it says. */
MERKLE_API merkle_status merkle_shape_node(uint8_t out[MERKLE_HASH_LEN], const merkle_shape *shape,
                                           const uint8_t left[MERKLE_HASH_LEN],
                                           const uint8_t right[MERKLE_HASH_LEN]);

/*
** Depth of the tree of n level-0 nodes: the length of a leaf's branch (without the mix-in).
** LEVELS: ceil(log2 n), or ceil(log2 limit) when padding to a limit. HEAP: the depth of the
** deepest leaf. MERKLE_ERR_RANGE when a limit is smaller than n.
*/
MERKLE_API merkle_status merkle_shape_depth(unsigned *out, const merkle_shape *shape, uint64_t n);

/*
** Root of the tree of n level-0 nodes (leaf hashes, txids, chunks). *out_flags (may be NULL)
** receives MERKLE_SHAPE_MUTATED bits. The empty tree: bitcoin's root of no transactions is
** 32 zero bytes (Bitcoin Core's ComputeMerkleRoot), a padded tree's is the zero root of its
** depth; a HEAP tree has none (MERKLE_ERR_RANGE, as @openzeppelin/merkle-tree throws).
** LEVELS trees are built in chunks with O(log n) memory and no allocation unless
** SORT_LEAVES is set; HEAP trees allocate 2n-1 nodes. Errors: MERKLE_ERR_ARG (bad shape),
** MERKLE_ERR_RANGE (limit < n), MERKLE_ERR_NOMEM.
*/
MERKLE_API merkle_status merkle_shape_root(uint8_t out[MERKLE_HASH_LEN], uint32_t *out_flags,
                                           const merkle_shape *shape,
                                           const uint8_t (*nodes)[MERKLE_HASH_LEN], uint64_t n,
                                           merkle_error *err);

/*
** Streaming root of a LEVELS shape without SORT_LEAVES: push level-0 nodes in pieces of any
** size, then take the root (merkle_shape_root of everything pushed, mix-in included). Keeps
** O(log n) nodes plus a 2048-node chunk (about 100 KiB), whatever n. Errors: alloc --
** MERKLE_ERR_ARG (bad shape), MERKLE_ERR_UNSUPPORTED (heap layout, sorted leaves),
** MERKLE_ERR_NOMEM; push -- MERKLE_ERR_RANGE past the limit, MERKLE_ERR_STATE after root;
** root -- MERKLE_ERR_STATE when called twice.
*/
typedef struct merkle_shape_builder merkle_shape_builder;
MERKLE_API merkle_status merkle_shape_builder_alloc(merkle_shape_builder **out,
                                                    const merkle_shape *shape, merkle_error *err);
MERKLE_API merkle_status merkle_shape_builder_push(merkle_shape_builder *b,
                                                   const uint8_t (*nodes)[MERKLE_HASH_LEN],
                                                   uint64_t n);
MERKLE_API uint64_t merkle_shape_builder_count(const merkle_shape_builder *b);
MERKLE_API merkle_status merkle_shape_builder_root(uint8_t out[MERKLE_HASH_LEN],
                                                   uint32_t *out_flags, merkle_shape_builder *b);
MERKLE_API void merkle_shape_builder_free(merkle_shape_builder *b);

/* SSZ mix_in_length: out = SHA-256(root || uint256_le(length)). out may alias root. */
MERKLE_API void merkle_shape_mix_in_length(uint8_t out[MERKLE_HASH_LEN],
                                           const uint8_t root[MERKLE_HASH_LEN], uint64_t length);

/* ------------------------------------------------------------------ trees with proofs */

/* A whole tree in memory (all levels, or the heap array), for proofs. Opaque. */
typedef struct merkle_shape_tree merkle_shape_tree;

/*
** Build the tree of n level-0 nodes (copied; sorted first with SORT_LEAVES). *out_flags as
** for merkle_shape_root. Every level is kept, each hashed with one batch call: O(n) time,
** about 2n nodes allocated. All shapes, the promoting ones (rfc6962, sia: the level-0 nodes
** are the leaf hashes H(0x00 || leaf)) included; an empty rfc6962/sia tree has the profile's
** empty root. Errors as merkle_shape_root.
*/
MERKLE_API merkle_status merkle_shape_tree_alloc(merkle_shape_tree **out, uint32_t *out_flags,
                                                 const merkle_shape *shape,
                                                 const uint8_t (*nodes)[MERKLE_HASH_LEN],
                                                 uint64_t n, merkle_error *err);
MERKLE_API void merkle_shape_tree_free(merkle_shape_tree *t);

/*
** The tree of n raw leaves of a LEVELS shape whose node prefix is 0x01 (rfc6962, sia and
** their variants): level-0 node i is H(0x00 || leaves[i][0..lens[i])) with the shape's hash,
** hashed in batches (runs of equal length share a batch call; mixed lengths are grouped by
** length), then built as merkle_shape_tree_alloc. leaves[i] may be NULL when lens[i] is 0.
** This is CometBFT's ProofsFromByteSlices: build once, then merkle_shape_tree_branches.
** Errors: MERKLE_ERR_UNSUPPORTED for another shape, MERKLE_ERR_ARG, MERKLE_ERR_NOMEM.
*/
MERKLE_API merkle_status merkle_shape_tree_alloc_leaves(merkle_shape_tree **out,
                                                        const merkle_shape *shape,
                                                        const uint8_t *const *leaves,
                                                        const size_t *lens, uint64_t n,
                                                        merkle_error *err);

/*
** The same for a byte buffer cut into leaf_size leaves, the short last leaf included (the
** leaves of merkle_tree_root_bytes). MERKLE_ERR_ARG for leaf_size 0; errors as above.
*/
MERKLE_API merkle_status merkle_shape_tree_alloc_bytes(merkle_shape_tree **out,
                                                       const merkle_shape *shape, size_t leaf_size,
                                                       const void *data, size_t len,
                                                       merkle_error *err);

/* The root (with the mix-in when the shape has it). */
MERKLE_API void merkle_shape_tree_root(uint8_t out[MERKLE_HASH_LEN], const merkle_shape_tree *t);
/* Number of level-0 nodes. */
MERKLE_API uint64_t merkle_shape_tree_count(const merkle_shape_tree *t);

/*
** Node at a position: LEVELS: generalized index g >= 1 (padding nodes are zero roots; with
** MIX_IN_LENGTH, g = 3 is the length chunk and the data tree hangs under g = 2); HEAP: array
** index < 2n-1. MERKLE_ERR_RANGE for a position outside the tree.
*/
MERKLE_API merkle_status merkle_shape_tree_node(uint8_t out[MERKLE_HASH_LEN],
                                                const merkle_shape_tree *t, uint64_t pos);

/*
** Position of level-0 node `index` (input order): its gindex (LEVELS), or its array index
** (HEAP; with SORT_LEAVES the input node's place after sorting). MERKLE_ERR_RANGE when
** index >= n.
*/
MERKLE_API merkle_status merkle_shape_tree_position(uint64_t *out, const merkle_shape_tree *t,
                                                    uint64_t index);

/*
** Branch of the node at position pos: the siblings from the node up to the root (bottom-up;
** Bitcoin's merkle branch, the SSZ single proof, OpenZeppelin getProof). In a promoting tree
** (rfc6962, sia) a lone last node has no sibling at its height, so a leaf's branch is its
** RFC 6962 audit path (merkle_proof_inclusion_path; verify it with
** merkle_proof_inclusion_verify, which knows the tree size). Writes up to cap
** hashes and their number to *path_len (MERKLE_ERR_BUFFER with the needed count when cap
** is too small). MERKLE_ERR_RANGE for a bad position.
*/
MERKLE_API merkle_status merkle_shape_tree_branch(uint8_t (*path)[MERKLE_HASH_LEN], size_t cap,
                                                  size_t *path_len, const merkle_shape_tree *t,
                                                  uint64_t pos);

/*
** Every branch of the tree at once, in input order: the branch of level-0 node i (what
** merkle_shape_tree_branch gives for merkle_shape_tree_position(i)) is
** paths[offsets[i] .. offsets[i + 1]). offsets (n + 1 entries; may be NULL) is always
** filled; *paths_len receives the total, and when cap is smaller than it nothing is written
** to paths and MERKLE_ERR_BUFFER is returned (query with paths NULL and cap 0). One pass over
** the kept levels: O(n log n) copies, no hashing. MERKLE_ERR_RANGE when the total does not
** fit in memory.
*/
MERKLE_API merkle_status merkle_shape_tree_branches(uint8_t (*paths)[MERKLE_HASH_LEN], size_t cap,
                                                    size_t *paths_len, uint64_t *offsets,
                                                    const merkle_shape_tree *t);

/*
** Verify a branch: the node `leaf` at position pos (gindex for LEVELS; ignored with
** SORTED_PAIRS, where order comes from the bytes) hashes with path[0..path_len) up to root.
** LEVELS requires path_len == floor(log2 pos). Returns MERKLE_OK or MERKLE_ERR_VERIFY;
** MERKLE_ERR_ARG for a bad shape or NULL pointers. Allocates nothing.
*/
MERKLE_API merkle_status merkle_shape_verify(const merkle_shape *shape,
                                             const uint8_t root[MERKLE_HASH_LEN], uint64_t pos,
                                             const uint8_t leaf[MERKLE_HASH_LEN],
                                             const uint8_t (*path)[MERKLE_HASH_LEN],
                                             size_t path_len, merkle_error *err);

/* ------------------------------------------------------------------ multiproofs */

/*
** Generalized-index multiproofs (Ethereum consensus specs, LEVELS trees).
**
** merkle_shape_helpers: the helper gindices of a set of gindices -- every sibling on the
** paths to the root that is not itself on a path -- sorted in decreasing order (the spec's
** get_helper_indices). Writes up to cap into out, the count to *out_len (MERKLE_ERR_BUFFER
** when cap is too small). MERKLE_ERR_ARG for a gindex of 0, a duplicate, or one gindex
** being an ancestor of another. Allocates a work array.
*/
MERKLE_API merkle_status merkle_shape_helpers(uint64_t *out, size_t cap, size_t *out_len,
                                              const uint64_t *gindices, size_t n);

/*
** The proof of gindices[0..n) from a LEVELS tree: the nodes at merkle_shape_helpers' order.
** leaves (may be NULL) receives the n nodes at the gindices. Buffer rules as above.
*/
MERKLE_API merkle_status merkle_shape_tree_multiproof(uint8_t (*proof)[MERKLE_HASH_LEN], size_t cap,
                                                      size_t *proof_len,
                                                      uint8_t (*leaves)[MERKLE_HASH_LEN],
                                                      const merkle_shape_tree *t,
                                                      const uint64_t *gindices, size_t n);

/*
** The spec's verify_merkle_multiproof: the nodes leaves[i] at gindices[i] and the helper
** nodes proof[0..proof_len) (in merkle_shape_helpers order) hash up to root. MERKLE_OK,
** MERKLE_ERR_VERIFY (wrong proof length, root mismatch), MERKLE_ERR_ARG (bad gindex set).
*/
MERKLE_API merkle_status merkle_shape_multiproof_verify(
    const merkle_shape *shape, const uint8_t root[MERKLE_HASH_LEN], const uint64_t *gindices,
    const uint8_t (*leaves)[MERKLE_HASH_LEN], size_t n, const uint8_t (*proof)[MERKLE_HASH_LEN],
    size_t proof_len, merkle_error *err);

/*
** OpenZeppelin multiproofs (HEAP trees; the format of MerkleProof.multiProofVerify):
** for array positions pos[0..n), writes the leaves (in the order the verifier consumes them:
** decreasing position) to leaves, the proof nodes to proof (*proof_len) and the flags (1 =
** take the next hash from the leaves/computed queue, 0 = from the proof) to flags
** (*flags_len = n + proof_len - 1). Each of the three arrays holds at most `cap` entries;
** n * (depth + 1) is always enough.
** MERKLE_ERR_ARG for a duplicate or non-leaf position, MERKLE_ERR_BUFFER when cap is small.
*/
MERKLE_API merkle_status merkle_shape_tree_flag_multiproof(uint8_t (*leaves)[MERKLE_HASH_LEN],
                                                           uint8_t (*proof)[MERKLE_HASH_LEN],
                                                           size_t *proof_len, uint8_t *flags,
                                                           size_t *flags_len, size_t cap,
                                                           const merkle_shape_tree *t,
                                                           const uint64_t *pos, size_t n);

/*
** processMultiProof of OpenZeppelin: leaves[0..n), proof[0..proof_len), flags[0..flags_len)
** hash to root with the shape's node function. MERKLE_ERR_VERIFY when the counts do not
** fit (n + proof_len != flags_len + 1), a queue runs dry, or the root differs.
** Allocates a queue of n + flags_len nodes.
*/
MERKLE_API merkle_status merkle_shape_flag_multiproof_verify(
    const merkle_shape *shape, const uint8_t root[MERKLE_HASH_LEN],
    const uint8_t (*leaves)[MERKLE_HASH_LEN], size_t n, const uint8_t (*proof)[MERKLE_HASH_LEN],
    size_t proof_len, const uint8_t *flags, size_t flags_len, merkle_error *err);

/* ------------------------------------------------------------------ ABI rows */

/*
** abi.encode(types, values) of one row, as @openzeppelin/merkle-tree's StandardMerkleTree
** (through @metamask/abi-utils) encodes a leaf. types: comma-separated "address", "bool",
** "uintN", "intN" (N = 8..256 by 8; "uint"/"int" = 256), "bytesN" (1..32), "bytes",
** "string", and arrays "T[]" / "T[k]" and tuples "(T1,T2,...)" of any of them, nested (32
** levels at most). row[0..row_len): comma-separated values -- 0x-hex for address and bytes,
** true / false for bool, decimal (intN: optional '-') or 0x-hex for integers, the text of a
** string; a value in double quotes may contain commas (\" and \\ inside); an array or tuple
** value in brackets, "[v1,v2]" or "(v1,v2)", nested as its type (at most 4,096 values each).
*Range-checked: a value
** that does not fit its type is MERKLE_ERR_FORMAT (err->offset = the field number - 1).
** Writes up to cap bytes, *out_len the encoded size (MERKLE_ERR_BUFFER when cap is small).
** MERKLE_ERR_ARG for an unsupported type list.
*/
MERKLE_API merkle_status merkle_shape_abi_encode(uint8_t *out, size_t cap, size_t *out_len,
                                                 const char *types, const char *row, size_t row_len,
                                                 merkle_error *err);

/* StandardMerkleTree leaf hash: keccak256(keccak256(abi.encode(types, row))). */
MERKLE_API merkle_status merkle_shape_abi_leaf(uint8_t out[MERKLE_HASH_LEN], const char *types,
                                               const char *row, size_t row_len, merkle_error *err);

/*
** The leaf hashes of n rows at once, out[i] = merkle_shape_abi_leaf(types, rows[i]): the types
** are parsed once and, when every type is static (all encodings 32 bytes per field), the rows
** are encoded in groups of 1,024 and each group's two Keccak-256 rounds are batch calls.
** Allocates scratch (freed before returning). On a bad row, err->line is its 1-based index in
** rows and err->offset its field number - 1 (MERKLE_ERR_FORMAT; out[0..line-1) are set).
** MERKLE_ERR_ARG for an unsupported type list or NULL pointers; MERKLE_ERR_NOMEM.
*/
MERKLE_API merkle_status merkle_shape_abi_leaves(uint8_t (*out)[MERKLE_HASH_LEN], const char *types,
                                                 const char *const *rows, const size_t *lens,
                                                 size_t n, merkle_error *err);

/*
** The dump() JSON of @openzeppelin/merkle-tree for a HEAP tree, formatted as
** JSON.stringify(tree.dump(), null, 2) writes it: StandardMerkleTree ("standard-v1",
** leafEncoding = types, values = the rows' values, bools as true/false, everything else as
** strings) when types is given -- rows[i][0..row_lens[i]) being the row of input leaf i --,
** SimpleMerkleTree ("simple-v1", values = the leaf hashes) when types is NULL. Tree nodes
** and hashes as 0x-hex. NUL-terminated; buffer rules as merkle_proof_to_json.
*/
MERKLE_API merkle_status merkle_shape_tree_dump_json(char *out, size_t cap, size_t *out_len,
                                                     const merkle_shape_tree *t, const char *types,
                                                     const char *const *rows,
                                                     const size_t *row_lens, merkle_error *err);

/*
** Load a dump (StandardMerkleTree.load / SimpleMerkleTree.load with validate()): every value
** must hash to the node at its treeIndex (standard: the leafEncoding's ABI leaf hash; simple:
** the bytes32 itself), every interior node must be the sorted-pair Keccak-256 of its
** children. The tree keeps the dump's leaf order (no re-sorting). types[0..types_cap)
** receives the leafEncoding as "t1,t2,..." ("" for simple-v1; may be NULL with cap 0).
** MERKLE_ERR_FORMAT (malformed), MERKLE_ERR_VERIFY (inconsistent), MERKLE_ERR_UNSUPPORTED
** (a custom node hash), MERKLE_ERR_BUFFER (types_cap too small).
*/
MERKLE_API merkle_status merkle_shape_tree_alloc_dump(merkle_shape_tree **out, char *types,
                                                      size_t types_cap, const char *json,
                                                      size_t len, merkle_error *err);

/*
** The branch of the node at position pos (as merkle_shape_tree_branch) as a proof object, what
** `merkle proof --index I` writes for the shaped profiles: kind MERKLE_PROOF_INCLUSION, the
** tree's profile and hash, tree_size = merkle_shape_tree_count, flags HAS_ROOT |
** HAS_LEAF_HASH (root = merkle_shape_tree_root, leaf_hash = the node), path = the branch,
** end = index + 1. index is the position itself (ssz and bittorrent-v2: a generalized index;
** openzeppelin: the array index), except for bitcoin and the classic profiles (rfc6962,
** sia), whose proofs name a leaf: there pos must be a leaf's gindex 2^depth + i and index = i.
** merkle_proof_verify checks the result. Writes *out only on success.
** Errors: MERKLE_ERR_ARG (NULL out or t), MERKLE_ERR_RANGE (pos not a node of the tree, or
** not a leaf where a leaf is needed), MERKLE_ERR_BUFFER (a branch longer than
** MERKLE_PROOF_MAX_PATH), MERKLE_ERR_NOMEM (a proof-sized work copy is allocated).
*/
MERKLE_API merkle_status merkle_shape_tree_proof(merkle_proof *out, const merkle_shape_tree *t,
                                                 uint64_t pos);

/*
** The multiproof of positions pos[0..n) as the JSON document `merkle proof` writes and
** merkle_multiproof_alloc_json reads (see below): LEVELS trees (ssz, bittorrent-v2) give
** gindices, leaves, proof (merkle_shape_tree_multiproof) and root; HEAP trees (openzeppelin)
** give leaves, proof, proofFlags (merkle_shape_tree_flag_multiproof) and root; profile and
** hash are the tree's. Two-space indentation, one hash per line, a newline at the end;
** NUL-terminated, buffer rules as merkle_proof_to_json (*out_len counts the NUL). Allocates
** work arrays per call. Errors: MERKLE_ERR_ARG (NULL arguments, n == 0, and as the two
** multiproof functions: duplicates, an ancestor among the gindices, a non-leaf openzeppelin
** position), MERKLE_ERR_RANGE (a gindex outside the tree), MERKLE_ERR_NOMEM.
*/
MERKLE_API merkle_status merkle_shape_tree_multiproof_json(char *out, size_t cap, size_t *out_len,
                                                           const merkle_shape_tree *t,
                                                           const uint64_t *pos, size_t n);

/* ------------------------------------------------------------------ multiproof documents */

/*
** A multiproof read from JSON (what `merkle proof` writes for several positions):
**   ssz:          {"type": "multiproof", "profile": "ssz", "hash": "sha256",
**                  "gindices": [...], "leaves": [hex...], "proof": [hex...], "root": hex}
**   openzeppelin: {"type": "multiproof", "profile": "openzeppelin", "hash": "keccak256",
**                  "leaves": [...], "proof": [...], "proofFlags": [true, ...], "root": hex}
** Keys in any order, unknown keys ignored, hex with or without 0x (the proof/proofFlags/leaves
** triple of @openzeppelin/merkle-tree's getMultiProof reads as it is, with a "root" added).
** Opaque; merkle_multiproof_free releases it.
*/
typedef struct merkle_multiproof merkle_multiproof;

/* Parse. MERKLE_ERR_FORMAT (detail in err) for a malformed document, MERKLE_ERR_NOMEM. */
MERKLE_API merkle_status merkle_multiproof_alloc_json(merkle_multiproof **out, const char *json,
                                                      size_t len, merkle_error *err);
/*
** Parse what @openzeppelin/merkle-tree's StandardMerkleTree getMultiProof() returns,
** {"leaves": [values], "proof": [...], "proofFlags": [...]}: each value (a JSON array of
** values of the ABI types, as merkle_shape_abi_leaf takes them: "address,uint256") is hashed
** to its leaf (a hex string is taken as a leaf hash, as merkle_multiproof_alloc_json reads
** one, so that merkle's own documents read the same). With merkle_multiproof_verify this is
*StandardMerkleTree.verifyMultiProof(root,
** types, multiproof). Errors: MERKLE_ERR_ARG (NULL types), MERKLE_ERR_FORMAT (malformed, a
** value that does not fit the types, err->line its 1-based number), MERKLE_ERR_NOMEM.
*/
MERKLE_API merkle_status merkle_multiproof_alloc_json_values(merkle_multiproof **out,
                                                             const char *types, const char *json,
                                                             size_t len, merkle_error *err);
MERKLE_API void merkle_multiproof_free(merkle_multiproof *m);
/* The profile the document names. */
MERKLE_API merkle_profile merkle_multiproof_profile(const merkle_multiproof *m);
/* The number of leaves the document proves (0 for NULL). */
MERKLE_API size_t merkle_multiproof_leaf_count(const merkle_multiproof *m);
/* 1 when leaf (a leaf hash) is among them, else 0: what a caller checks to bind its claim
** (a verified multiproof proves its own leaves, whatever they are). */
MERKLE_API int merkle_multiproof_has_leaf(const merkle_multiproof *m,
                                          const uint8_t leaf[MERKLE_HASH_LEN]);
/*
** The root the document states, into out (MERKLE_ERR_ARG when it states none or an argument
** is NULL). Untrusted: only the caller's own root binds a proof (merkle_multiproof_verify).
*/
MERKLE_API merkle_status merkle_multiproof_root(uint8_t out[MERKLE_HASH_LEN],
                                                const merkle_multiproof *m);
/*
** Verify against the caller's trusted root (required, MERKLE_ERR_ARG for NULL: the root the
** document states is never used in its place; pass merkle_multiproof_root's to check only
** that the document is coherent). MERKLE_OK or MERKLE_ERR_VERIFY, as
** merkle_shape_multiproof_verify and merkle_shape_flag_multiproof_verify.
*/
MERKLE_API merkle_status merkle_multiproof_verify(const merkle_multiproof *m, const uint8_t *root,
                                                  merkle_error *err);

#ifdef __cplusplus
}
#endif
#endif
