/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle/proof.h: inclusion, consistency and range proofs; compact ranges; a streaming
** prover; a binary and a JSON proof encoding.
**
** Every tree here has the RFC 6962 shape (see tree.h). Formats covered:
**
**   RFC 6962 / 9162   inclusion (audit path, bottom-up) and consistency proofs, generation
**                     and verification exactly as RFC 9162 section 2.1.3-2.1.4, with the
**                     exact-length checks of transparency-dev/merkle.
**   CometBFT          Proof{Total, Index, LeafHash, Aunts}: Aunts is the RFC 6962 audit
**                     path; merkle_proof_cometbft_verify is its Verify(rootHash, leaf) rule.
**   Sia merkletree    single-leaf proof set = raw segment ++ audit path (bottom-up), and
**                     range proofs for [start, end): the roots of the subtrees left of start
**                     then right of end, in left-to-right leaf order (BuildRangeProof).
**
** The streaming prover (merkle_prover) builds any of these in one pass over a stream or a
** leaf list of any size with O(log n) memory and no allocation, batching the leaf and node
** hashing the way merkle_tree does; the leaves are not kept.
**
** Verification functions take only const inputs and never allocate. All functions are
** reentrant; none keeps global state.
*/
#ifndef MERKLE_PROOF_H
#define MERKLE_PROOF_H

#include "merkle/tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest path any proof kind can have: a range proof has at most 63 left and 64 right
** subtree roots; an audit path at most 64 hashes; a consistency proof at most 65. */
#define MERKLE_PROOF_MAX_PATH 128

/* ------------------------------------------------------------------ RFC 6962 / 9162 */

/*
** Number of hashes in the audit path of leaf index in a tree of size leaves:
** bitlen(index ^ (size-1)) + popcount(index >> that). 0 when index >= size (no such proof).
*/
MERKLE_API size_t merkle_proof_inclusion_path_len(uint64_t index, uint64_t size);

/*
** Number of hashes in the RFC 9162 consistency proof from old_size to new_size
** (0 < old_size <= new_size); 0 when old_size == new_size or the sizes are invalid.
*/
MERKLE_API size_t merkle_proof_consistency_path_len(uint64_t old_size, uint64_t new_size);

/*
** Verify an RFC 9162 inclusion proof: leaf_hash (= H(0x00 || leaf)) is leaf `index` of the
** tree of `size` leaves whose root is `root`. path[0..path_len) is the audit path, bottom-up.
** Returns MERKLE_OK, or MERKLE_ERR_VERIFY when the proof does not verify: index >= size,
** a path of the wrong length (too short or too long, even if it happens to hash right), or a
** root mismatch. MERKLE_ERR_ARG for NULL pointers or a bad hash. Allocates nothing. On failure
** err (may be NULL) says which check failed.
*/
MERKLE_API merkle_status merkle_proof_inclusion_verify(merkle_hash_alg hash,
                                                       const uint8_t root[MERKLE_HASH_LEN],
                                                       uint64_t size, uint64_t index,
                                                       const uint8_t leaf_hash[MERKLE_HASH_LEN],
                                                       const uint8_t (*path)[MERKLE_HASH_LEN],
                                                       size_t path_len, merkle_error *err);

/*
** Verify an RFC 9162 consistency proof that the tree of old_size leaves with root old_root
** is a prefix of the tree of new_size leaves with root new_root. Returns MERKLE_OK or
** MERKLE_ERR_VERIFY (old_size == 0 -- even with new_size == 0 --, old_size > new_size, a
** proof of the wrong length, a root mismatch). MERKLE_ERR_ARG for NULL pointers or a bad
** hash. Allocates nothing. On failure err (may be NULL) says which check failed.
*/
MERKLE_API merkle_status merkle_proof_consistency_verify(merkle_hash_alg hash,
                                                         const uint8_t old_root[MERKLE_HASH_LEN],
                                                         const uint8_t new_root[MERKLE_HASH_LEN],
                                                         uint64_t old_size, uint64_t new_size,
                                                         const uint8_t (*path)[MERKLE_HASH_LEN],
                                                         size_t path_len, merkle_error *err);

/*
** Generate the audit path of leaf `index` from the n leaf hashes leaf_hashes[0..n) (each
** H(0x00 || leaf)). Writes up to cap hashes to path and their number to *path_len; the root
** goes to root (may be NULL). Errors: MERKLE_ERR_RANGE for index >= n (n == 0 included),
** MERKLE_ERR_BUFFER when cap is too small (*path_len then holds the needed count),
** MERKLE_ERR_ARG for NULL pointers. Uses the streaming prover: O(n) time, no allocation.
*/
MERKLE_API merkle_status merkle_proof_inclusion_path(uint8_t (*path)[MERKLE_HASH_LEN], size_t cap,
                                                     size_t *path_len,
                                                     uint8_t root[MERKLE_HASH_LEN],
                                                     merkle_hash_alg hash,
                                                     const uint8_t (*leaf_hashes)[MERKLE_HASH_LEN],
                                                     uint64_t n, uint64_t index);

/*
** Generate the RFC 9162 consistency proof PROOF(old_size, D[0:n]) from the n leaf hashes.
** old_root / new_root (either may be NULL) receive the two roots. Errors: MERKLE_ERR_RANGE
** for old_size == 0 or old_size > n, MERKLE_ERR_BUFFER as above, MERKLE_ERR_ARG.
*/
MERKLE_API merkle_status merkle_proof_consistency_path(
    uint8_t (*path)[MERKLE_HASH_LEN], size_t cap, size_t *path_len,
    uint8_t old_root[MERKLE_HASH_LEN], uint8_t new_root[MERKLE_HASH_LEN], merkle_hash_alg hash,
    const uint8_t (*leaf_hashes)[MERKLE_HASH_LEN], uint64_t n, uint64_t old_size);

/* ------------------------------------------------------------------ CometBFT */

/*
** CometBFT Proof.Verify(rootHash, leaf), always SHA-256: fails (MERKLE_ERR_VERIFY) when
** root is NULL, total <= 0, index < 0 or >= total, H(0x00 || leaf) != leaf_hash, the number
** of aunts is wrong, more than 100 aunts (MaxAunts), or the computed root differs.
** leaf may be NULL when leaf_len is 0; aunts may be NULL when aunt_count is 0.
** Allocates nothing. On failure err (may be NULL) says which check failed.
*/
MERKLE_API merkle_status merkle_proof_cometbft_verify(const uint8_t *root, int64_t total,
                                                      int64_t index,
                                                      const uint8_t leaf_hash[MERKLE_HASH_LEN],
                                                      const void *leaf, size_t leaf_len,
                                                      const uint8_t (*aunts)[MERKLE_HASH_LEN],
                                                      size_t aunt_count, merkle_error *err);

/* ------------------------------------------------------------------ Sia merkletree */

/*
** Sia VerifyProof for a single-leaf proof set: segment[0..segment_len) is proofSet[0] (the
** raw leaf bytes), path[0..path_len) is proofSet[1:] (bottom-up), index the leaf index and
** num_leaves the tree size. Returns MERKLE_OK or MERKLE_ERR_VERIFY (index >= num_leaves,
** wrong path length, root mismatch). Allocates nothing. On failure err (may be NULL) says
** which check failed.
*/
MERKLE_API merkle_status merkle_proof_sia_verify(merkle_hash_alg hash,
                                                 const uint8_t root[MERKLE_HASH_LEN],
                                                 uint64_t num_leaves, uint64_t index,
                                                 const void *segment, size_t segment_len,
                                                 const uint8_t (*path)[MERKLE_HASH_LEN],
                                                 size_t path_len, merkle_error *err);

/*
** Number of hashes in the range proof of [start, end) in a tree of size leaves:
** popcount(start) subtree roots on the left plus the aligned blocks from end to size on the
** right. 0 when the range is invalid (start >= end or end > size).
*/
MERKLE_API size_t merkle_proof_range_path_len(uint64_t start, uint64_t end, uint64_t size);

/*
** Sia VerifyRangeProof: leaf_hashes[0..end-start) are H(0x00 || leaf) of the leaves in
** [start, end); path[0..path_len) the subtree roots left to right. The verifier is not
** given the tree size (as upstream); pass size != 0 to also require the exact length of a
** proof for a tree of that size. Returns MERKLE_OK or MERKLE_ERR_VERIFY (too few elements,
** an element that would break the subtree order, root mismatch); MERKLE_ERR_RANGE when
** start >= end; MERKLE_ERR_ARG for NULL pointers. Allocates nothing (about 4 KiB of stack).
** On failure err (may be NULL) says which check failed.
*/
MERKLE_API merkle_status merkle_proof_range_verify(merkle_hash_alg hash,
                                                   const uint8_t root[MERKLE_HASH_LEN],
                                                   uint64_t size, uint64_t start, uint64_t end,
                                                   const uint8_t (*leaf_hashes)[MERKLE_HASH_LEN],
                                                   const uint8_t (*path)[MERKLE_HASH_LEN],
                                                   size_t path_len, merkle_error *err);

/*
** Convert between the two orders of the same hashes for leaf `index`: the audit path
** (bottom-up) and the range proof of [index, index+1) (left to right). out may not alias
** in; n hashes are written. MERKLE_ERR_FORMAT when n is not a possible length for index.
*/
MERKLE_API merkle_status merkle_proof_path_to_range_order(uint8_t (*out)[MERKLE_HASH_LEN],
                                                          const uint8_t (*in)[MERKLE_HASH_LEN],
                                                          size_t n, uint64_t index);
MERKLE_API merkle_status merkle_proof_range_order_to_path(uint8_t (*out)[MERKLE_HASH_LEN],
                                                          const uint8_t (*in)[MERKLE_HASH_LEN],
                                                          size_t n, uint64_t index);

/* ------------------------------------------------------------------ compact ranges */

/* Largest number of subtree roots a compact range of 64-bit positions can hold. */
#define MERKLE_COMPACT_MAX 128

/*
** A compact range: the minimal list of perfect-subtree roots covering leaves [begin, end),
** left to right (sizes grow, then shrink). Ranges merge associatively, so threads or
** machines may each build one and a fold joins them; from begin == 0 the root follows.
** Plain data (about 4.2 KiB), no pointers, copyable. Fields are private.
*/
typedef struct merkle_compact_range {
    uint32_t version;
    merkle_hash_alg hash;
    uint64_t begin, end;
    uint32_t count;                      /* entries in hashes[] */
    uint8_t heights[MERKLE_COMPACT_MAX]; /* entry i covers 2^heights[i] leaves */
    uint8_t hashes[MERKLE_COMPACT_MAX][MERKLE_HASH_LEN];
} merkle_compact_range;

/* An empty range [begin, begin). MERKLE_ERR_ARG for a bad hash. */
MERKLE_API merkle_status merkle_compact_range_init(merkle_compact_range *r, merkle_hash_alg hash,
                                                   uint64_t begin);

/*
** Getters: the range is [begin, end); its hashes are the roots of the maximal aligned blocks
** of that range, left to right (transparency-dev's compact.Range holds the same three
** things). The hash getter returns 0 for NULL; the others 0 for NULL or an unusable range.
** merkle_compact_range_hash_count_for gives the number of hashes any range [begin, end)
** has (0 when begin > end).
*/
MERKLE_API uint64_t merkle_compact_range_begin(const merkle_compact_range *r);
MERKLE_API uint64_t merkle_compact_range_end(const merkle_compact_range *r);
MERKLE_API merkle_hash_alg merkle_compact_range_hash(const merkle_compact_range *r);
MERKLE_API size_t merkle_compact_range_hash_count(const merkle_compact_range *r);
MERKLE_API size_t merkle_compact_range_hash_count_for(uint64_t begin, uint64_t end);

/*
** Copy the hashes into out[0..cap): *out_len receives their number; MERKLE_ERR_BUFFER (with
** *out_len set) when cap is smaller. MERKLE_ERR_ARG for NULL pointers (out may be NULL when
** cap is 0).
*/
MERKLE_API merkle_status merkle_compact_range_hashes(uint8_t (*out)[MERKLE_HASH_LEN], size_t cap,
                                                     size_t *out_len,
                                                     const merkle_compact_range *r);

/*
** Rebuild a range from what its getters return: [begin, end) and its n hashes, left to right.
** MERKLE_ERR_RANGE when begin > end, MERKLE_ERR_FORMAT when n is not
** merkle_compact_range_hash_count_for(begin, end), MERKLE_ERR_ARG for a bad hash or NULL
** pointers. The hashes are taken as given (nothing can check them without the leaves). r is
** untouched on failure; err may be NULL.
*/
MERKLE_API merkle_status merkle_compact_range_from_hashes(merkle_compact_range *r,
                                                          merkle_hash_alg hash, uint64_t begin,
                                                          uint64_t end,
                                                          const uint8_t (*hashes)[MERKLE_HASH_LEN],
                                                          size_t n, merkle_error *err);

/*
** Binary encoding, so that a log can save its state and resume (integers big-endian):
**   "MKCR" | version u8 (=1) | hash u8 (1 SHA-256, 2 BLAKE2b-256, 7 Keccak-256, as in
**   "MRKP") | begin u64 | end u64 | count u8 | count * 32 hash bytes
** count must equal merkle_compact_range_hash_count_for(begin, end): at most
** MERKLE_COMPACT_ENCODED_MAX bytes in all. encode: same buffer convention as
** merkle_proof_encode (*out_len = size needed, also on MERKLE_ERR_BUFFER). decode: exact
** length (no truncation, no trailing bytes), else MERKLE_ERR_FORMAT with err->offset at the
** defect; r is untouched on failure.
*/
#define MERKLE_COMPACT_ENCODED_MAX (23 + MERKLE_COMPACT_MAX * MERKLE_HASH_LEN)
MERKLE_API merkle_status merkle_compact_range_encode(uint8_t *out, size_t cap, size_t *out_len,
                                                     const merkle_compact_range *r);
MERKLE_API merkle_status merkle_compact_range_decode(merkle_compact_range *r, const uint8_t *buf,
                                                     size_t len, merkle_error *err);

/* Append a leaf (hashed as H(0x00 || data)) or a leaf hash at the end. MERKLE_ERR_RANGE
** when end would pass 2^64 - 1. */
MERKLE_API merkle_status merkle_compact_range_append_leaf(merkle_compact_range *r, const void *data,
                                                          size_t len);
MERKLE_API merkle_status merkle_compact_range_append_leaf_hash(merkle_compact_range *r,
                                                               const uint8_t hash[MERKLE_HASH_LEN]);

/*
** Append the root of the perfect subtree of 2^height leaves starting at end. MERKLE_ERR_STATE
** when end is not a multiple of 2^height (the subtree would not be aligned), MERKLE_ERR_RANGE
** on overflow.
*/
MERKLE_API merkle_status merkle_compact_range_append_subtree(merkle_compact_range *r,
                                                             unsigned height,
                                                             const uint8_t hash[MERKLE_HASH_LEN]);

/*
** Build the range [begin, begin + n) from n leaves leaves[i] of lens[i] bytes.
*/
MERKLE_API merkle_status merkle_compact_range_from_leaves(merkle_compact_range *r,
                                                          merkle_hash_alg hash, uint64_t begin,
                                                          const uint8_t *const *leaves,
                                                          const size_t *lens, size_t n);

/*
** r := r ++ right, where right starts where r ends (right->begin == r->end, same hash;
** MERKLE_ERR_STATE otherwise). r and right may not be the same object.
*/
MERKLE_API merkle_status merkle_compact_range_merge(merkle_compact_range *r,
                                                    const merkle_compact_range *right);

/*
** Root of the tree of leaves [0, end): the range must begin at 0 and be non-empty
** (MERKLE_ERR_STATE otherwise; the empty tree's root is the profile's, merkle_tree_empty_root).
*/
MERKLE_API merkle_status merkle_compact_range_root(uint8_t out[MERKLE_HASH_LEN],
                                                   const merkle_compact_range *r);

/* sizeof(merkle_compact_range) and its alignment in this library (for bindings). */
MERKLE_API size_t merkle_compact_range_struct_size(void);
MERKLE_API size_t merkle_compact_range_struct_align(void);

/* ------------------------------------------------------------------ streaming prover */

/* Which proof a prover builds, or a decoded proof is. */
typedef enum merkle_proof_kind {
    MERKLE_PROOF_INCLUSION = 1,   /* one leaf: audit path bottom-up (+ Sia segment) */
    MERKLE_PROOF_CONSISTENCY = 2, /* old_size -> tree_size, RFC 9162 */
    MERKLE_PROOF_RANGE = 3        /* leaves [start, end): subtree roots left to right */
} merkle_proof_kind;

/*
** Streaming prover: feed a leaf list or a byte stream once; at the end it holds the root,
** the proof and (for one leaf) the leaf hash. Keeps O(log n) hashes (about 15 KiB, no
** pointers, no heap); the leaves are hashed in batches and thrown away. Fields are private.
*/
typedef struct merkle_prover {
    uint32_t version;
    merkle_proof_kind kind;
    merkle_hash_alg hash;
    size_t leaf_size;
    uint64_t start, end; /* target range [start, end) (one leaf: end = start + 1) */
    uint64_t old_size;   /* consistency */
    uint64_t count;      /* leaves in stack (multiple of the chunk) */
    uint64_t pending;    /* leaf hashes in level[] */
    uint64_t partial_len;
    uint64_t next_right; /* start of the next right-hand block to capture */
    int finished;
    int have_left, have_inner, have_leaf;
    uint32_t nleft, nright;
    merkle_hasher leaf;
    uint8_t leaf_hash[MERKLE_HASH_LEN];
    uint8_t inner[MERKLE_HASH_LEN]; /* consistency: root of the old tree's last block */
    uint8_t left[MERKLE_MAX_DEPTH][MERKLE_HASH_LEN];
    uint8_t right[MERKLE_MAX_DEPTH + 1][MERKLE_HASH_LEN];
    uint8_t stack[MERKLE_MAX_DEPTH][MERKLE_HASH_LEN];
    uint8_t level[MERKLE_TREE_CHUNK][MERKLE_HASH_LEN];
    uint8_t scratch[MERKLE_TREE_CHUNK][MERKLE_HASH_LEN];
} merkle_prover;

/*
** Start a prover. kind INCLUSION: a = leaf index (b ignored); RANGE: [a, b) with a < b;
** CONSISTENCY: a = old size > 0 (b ignored). leaf_size is the cut of merkle_prover_write
** (> 0). Errors: MERKLE_ERR_ARG (bad hash, kind, leaf_size 0), MERKLE_ERR_RANGE (a >= b for
** a range, old size 0). Never allocates.
*/
MERKLE_API merkle_status merkle_prover_init(merkle_prover *p, merkle_proof_kind kind,
                                            merkle_hash_alg hash, size_t leaf_size, uint64_t a,
                                            uint64_t b);

/* Append one leaf / one leaf hash / stream bytes, as merkle_tree_push_leaf,
** merkle_tree_push_leaf_hash and merkle_tree_write. Errors as those. */
MERKLE_API merkle_status merkle_prover_push_leaf(merkle_prover *p, const void *data, size_t len);
MERKLE_API merkle_status merkle_prover_push_leaf_hash(merkle_prover *p,
                                                      const uint8_t hash[MERKLE_HASH_LEN]);
MERKLE_API merkle_status merkle_prover_write(merkle_prover *p, const void *data, size_t len);

/* Leaves seen so far (a started partial stream leaf counts). */
MERKLE_API uint64_t merkle_prover_leaf_count(const merkle_prover *p);

/* sizeof(merkle_prover) and its alignment in this library (for bindings that allocate it). */
MERKLE_API size_t merkle_prover_struct_size(void);
MERKLE_API size_t merkle_prover_struct_align(void);

/* A decoded or generated proof: plain data, no pointers (about 4.3 KiB). */
typedef struct merkle_proof {
    uint32_t version;
    merkle_proof_kind kind;
    merkle_profile profile;
    merkle_hash_alg hash;
    uint64_t tree_size; /* n; the new size of a consistency proof */
    uint64_t index;     /* inclusion: leaf index; range: start; consistency: old size */
    uint64_t end;       /* range: end (exclusive); inclusion: index + 1; consistency: 0 */
    uint64_t leaf_size; /* leaf size of the stream it was built from; 0 for a leaf list.
                        ** Advisory (not covered by the proof): it tells a verifier how to
                        ** cut a range's bytes into leaves. */
    uint32_t flags;     /* merkle_proof_flag bits */
    uint8_t root[MERKLE_HASH_LEN];      /* tree root (new root for consistency) */
    uint8_t old_root[MERKLE_HASH_LEN];  /* consistency */
    uint8_t leaf_hash[MERKLE_HASH_LEN]; /* inclusion */
    size_t path_len;
    uint8_t path[MERKLE_PROOF_MAX_PATH][MERKLE_HASH_LEN];
} merkle_proof;

/* What a merkle_proof carries (merkle_proof.flags). */
typedef enum merkle_proof_flag {
    MERKLE_PROOF_HAS_ROOT = 1u,
    MERKLE_PROOF_HAS_OLD_ROOT = 2u,
    MERKLE_PROOF_HAS_LEAF_HASH = 4u,
    MERKLE_PROOF_HAS_LEAF = 8u /* the encoding carried the raw leaf (see merkle_proof_encode) */
} merkle_proof_flag;
#define MERKLE_PROOF_VERSION 1u

/* sizeof(merkle_proof) and its alignment in this library (for bindings that allocate it). */
MERKLE_API size_t merkle_proof_struct_size(void);
MERKLE_API size_t merkle_proof_struct_align(void);

/*
** Finish: write the proof into *out (kind, hash, sizes, root, leaf hash, path; profile is
** set to `profile`, leaf_size to the prover's for a stream -- the caller may clear it).
** Errors: MERKLE_ERR_RANGE when the stream ended before the target was reached (leaf index
** or range end beyond the size, old size > size; "index was not reached"). After this call
** only merkle_prover_init may be used on p.
*/
MERKLE_API merkle_status merkle_prover_finish(merkle_proof *out, merkle_prover *p,
                                              merkle_profile profile);

/*
** Inclusion proof for leaf `index` of an input of total_len bytes cut into leaf_size leaves,
** read through read_at (see merkle_tree_root_parallel; called from two threads at once with
** disjoint ranges). With threads >= 2 and at least two leaves, the two subtrees under the root
** (split at the largest power of two below the leaf count, RFC 9162) are hashed at once: a
** prover streams the half that holds the leaf, a tree builder the other, whose root is the
** last path element. Otherwise the calling thread streams everything through one prover.
** Either way *out is what merkle_prover_finish gives over the whole input (profile set,
** leaf_size = the prover's). Memory: a 1 MiB read buffer and a prover or tree per thread.
** Errors: MERKLE_ERR_ARG (NULL out or read_at, leaf_size 0, bad hash, a profile other than
** rfc6962/sia), MERKLE_ERR_RANGE (index not below the leaf count), MERKLE_ERR_NOMEM, or the
** first error read_at returned. All threads are joined before the call returns.
*/
MERKLE_API merkle_status merkle_proof_inclusion_parallel(merkle_proof *out, merkle_profile profile,
                                                         merkle_hash_alg hash, size_t leaf_size,
                                                         uint64_t total_len, uint64_t index,
                                                         merkle_read_at_fn read_at, void *ctx,
                                                         unsigned threads, merkle_error *err);

/* ------------------------------------------------------------------ proof objects */

/*
** Verify a proof object against the caller's trusted root (required: the roots stored in a
** proof are never used in its place, since any self-consistent proof agrees with its own
** root; pass p->root explicitly to check only that a proof is coherent) and, for an
** inclusion proof, leaf_hash (NULL: the one stored in the proof; compare p->leaf_hash and
** p->index with what you meant to prove); for a range proof leaf_hashes[0..end-start) are
** required (NULL otherwise); for a consistency proof the trusted old_root is required too.
** What is proven is the proof's p->index, p->end and p->tree_size: check them against the
** claim. Returns MERKLE_OK, MERKLE_ERR_VERIFY, or MERKLE_ERR_ARG when a needed input (a root,
** an old root, a leaf hash) is missing. Allocates nothing. The Sia profile verifies exactly like
*rfc6962
** (the leaf hash being H(0x00 || segment)).
*/
MERKLE_API merkle_status merkle_proof_verify(const merkle_proof *p, const uint8_t *root,
                                             const uint8_t *old_root, const uint8_t *leaf_hash,
                                             const uint8_t (*leaf_hashes)[MERKLE_HASH_LEN],
                                             merkle_error *err);

/*
** The leaf hash of raw leaf bytes under a proof's profile, as merkle proof / merkle verify
** take a leaf: H(0x00 || leaf) for rfc6962, sia and the other classic profiles (p->hash),
** the txid for bitcoin (SHA-256d of the transaction without its witness, as
** merkle_bitcoin_tx_id; bytes that are not one whole transaction: SHA-256d of them), SHA-256
** of the raw 16 KiB block for bittorrent-v2, and the leaf itself for ssz and openzeppelin (a leaf
*there is a 32-byte chunk or hash). Only
** p->profile and p->hash are read. Errors: MERKLE_ERR_ARG (NULL out or p, NULL leaf with
** len > 0, a bad hash, an ssz or openzeppelin leaf that is not 32 bytes). Allocates nothing;
** thread-safe.
*/
MERKLE_API merkle_status merkle_proof_leaf_hash(uint8_t out[MERKLE_HASH_LEN], const merkle_proof *p,
                                                const void *leaf, size_t len);

/*
** Binary encoding (all integers big-endian):
**   "MRKP" | version u8 (=1) | kind u8 | profile u8 | hash u8 | flags u8 |
**   tree_size u64 | index u64 | end u64 | leaf_size u64 | path_len u16 |
**   [root 32 if HAS_ROOT] [old_root 32 if HAS_OLD_ROOT] [leaf_hash 32 if HAS_LEAF_HASH] |
**   path_len * 32 | [leaf_len u32 | leaf bytes]  (the raw leaf, flag 0x08)
** Writes at most cap bytes; *out_len receives the size needed (also on MERKLE_ERR_BUFFER).
** leaf/leaf_len: optional raw leaf bytes (Sia proof set element 0), NULL/0 for none; the
** HAS_LEAF flag is set from them (p->flags' own HAS_LEAF bit is ignored). Decoders set
** HAS_LEAF in p->flags when the input carried a leaf.
*/
#define MERKLE_PROOF_MAX_LEAF (1u << 30)
MERKLE_API merkle_status merkle_proof_encode(uint8_t *out, size_t cap, size_t *out_len,
                                             const merkle_proof *p, const uint8_t *leaf,
                                             size_t leaf_len);

/*
** Decode a binary proof. Structural checks only: magic, version, known kind/profile/hash,
** known flags only, end == index + 1 for an inclusion proof and 0 for a consistency proof, path_len
*<= MERKLE_PROOF_MAX_PATH, leaf length <= MERKLE_PROOF_MAX_LEAF,
** no truncation and no trailing bytes. Whether the sizes, index and path length fit
** together is the verifier's business (merkle_proof_verify fails such a proof), so that a
** wrong proof is reported as "does not verify" rather than "unreadable". *leaf / *leaf_len
** (may be NULL) point into buf at the raw leaf, or NULL/0. Returns MERKLE_OK or
** MERKLE_ERR_FORMAT (detail in error, offset = byte position).
*/
MERKLE_API merkle_status merkle_proof_decode(merkle_proof *p, const uint8_t **leaf,
                                             size_t *leaf_len, const uint8_t *buf, size_t len,
                                             merkle_error *err);

/*
** JSON rendering (one object, keys in a fixed order, lowercase hex, a final newline):
** inclusion: type, profile, hash, tree_size, index, [leaf_size], [leaf], leaf_hash, path,
** root [, proof_set for the sia profile with a leaf]; range: type, profile, hash, tree_size,
** start, end, [leaf_size], path, root; consistency: type, profile, hash, old_size, new_size,
** old_root, new_root, path. Same buffer convention as merkle_proof_encode.
*/
MERKLE_API merkle_status merkle_proof_to_json(char *out, size_t cap, size_t *out_len,
                                              const merkle_proof *p, const uint8_t *leaf,
                                              size_t leaf_len);

/*
** CometBFT's JSON of a crypto/merkle Proof, byte for byte as its RPC (libs/json) writes it:
** {"total":"N","index":"I","leaf_hash":"<base64>","aunts":["<base64>",...]} and a newline
** (the aunts are path[], bottom-up). Only an inclusion proof of the rfc6962 profile with
** SHA-256 and a leaf hash -- CometBFT's tree -- has one: else MERKLE_ERR_UNSUPPORTED. Same
** buffer convention as merkle_proof_encode. merkle_proof_from_json reads it back.
*/
MERKLE_API merkle_status merkle_proof_to_cometbft_json(char *out, size_t cap, size_t *out_len,
                                                       const merkle_proof *p);

/*
** Parse the JSON form above (keys in any order, unknown keys ignored; "proof" and "aunts"
** are accepted for "path", "total" for "tree_size", "size1"/"size2"/"root1"/"root2" for
** the consistency fields). leaf_buf[0..leaf_cap) receives a "leaf" field's bytes
** (*leaf_len, 0 when absent; MERKLE_ERR_BUFFER when it does not fit).
** CometBFT's JSON is read as it comes: sizes and indexes as numbers or decimal strings,
** hashes in hex or base64 (a string that is not hex is read as standard base64), "aunts"
** absent for a one-leaf tree, and the proof inside its wrappers: a JSON-RPC response
** ({"result": ...}), /tx?prove=true's ResultTx ({..., "proof": TxProof}) and TxProof
** ({"root_hash": HEX, "data": BASE64, "proof": Proof}), whose root_hash is the root and
** whose leaf is the transaction's hash SHA-256(data) (put in leaf_buf: 32 bytes).
** A leaf hash or path
** element that is valid hex of a length other than 32 bytes makes the proof unverifiable:
** reported as MERKLE_ERR_VERIFY (err->message says which). A root of another length
** stands for itself (stored as SHA-256(0x02 || bytes), which no tree hash equals): it only
** matches the same bytes, as when transparency-dev compares the roots of two equal sizes.
** A top-level array is what @openzeppelin/merkle-tree's getProof() returns,
** ["0x<64 hex>", ...] (each element exactly 64 hex digits, "0x" optional): an openzeppelin
** inclusion proof (Keccak-256, sorted pairs) with index 0 and tree_size 0, no root and no
** leaf hash -- OpenZeppelin's proofs state no position, and none is needed to verify them.
** Every other defect is MERKLE_ERR_FORMAT. As for merkle_proof_decode, sizes and lengths are
** checked by the verifier, not here.
*/
MERKLE_API merkle_status merkle_proof_from_json(merkle_proof *p, uint8_t *leaf_buf, size_t leaf_cap,
                                                size_t *leaf_len, const char *json, size_t len,
                                                merkle_error *err);

#ifdef __cplusplus
}
#endif
#endif
