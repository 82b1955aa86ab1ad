/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Internal tree helpers shared by the builder, proofs, compact ranges and threads.
*/
#ifndef MERKLE_TREE_IMPL_H
#define MERKLE_TREE_IMPL_H

#include "common/internal.h"
#include "merkle/tree.h"

#define MERKLE_TREE_VERSION    1u
#define MERKLE_TREE_CHUNK_LOG2 7
_Static_assert((1u << MERKLE_TREE_CHUNK_LOG2) == MERKLE_TREE_CHUNK, "chunk size");

/* rfc6962 or sia: the profiles the streaming builder, prover and threaded roots serve. */
static inline int merkle__profile_classic(merkle_profile p)
{
    return p == MERKLE_PROFILE_RFC6962 || p == MERKLE_PROFILE_SIA;
}

/* out[i] = H(0x01 || in[2i] || in[2i+1]) for i < npairs: one batch call per level. */
void merkle__node_level(merkle_hash_alg hash, uint8_t (*out)[MERKLE_HASH_LEN],
                        const uint8_t (*in)[MERKLE_HASH_LEN], size_t npairs);

/* out[i] = H(0x00 || base[i*leaf_size ..+leaf_size)) for i < n. */
void merkle__leaf_level(merkle_hash_alg hash, uint8_t (*out)[MERKLE_HASH_LEN], const uint8_t *base,
                        size_t leaf_size, size_t n);

/*
** out[i] = H(0x00 || leaves[i][0..lens[i])) for i < n, with the batch kernels: runs of equal
** length share one batch call, mixed lengths are grouped by length a window at a time
** (leaf_list.c). leaves[i] may be NULL when lens[i] is 0. Allocates nothing.
*/
void merkle__leaf_list(merkle_hash_alg hash, uint8_t (*out)[MERKLE_HASH_LEN],
                       const uint8_t *const *leaves, const size_t *lens, size_t n);

/*
** Reduce m >= 1 hashes in a[] to the root of the tree they are the leaves-level of (pairing
** with promotion of an odd last node, which equals the RFC 6962 split). b[] is scratch of at
** least (m + 1) / 2 entries. The root is left in a[0]. a and b are clobbered.
*/
void merkle__reduce(merkle_hash_alg hash, uint8_t (*a)[MERKLE_HASH_LEN],
                    uint8_t (*b)[MERKLE_HASH_LEN], size_t m);

/*
** Append the root of a perfect subtree of 2^height leaves. Requires no pending leaf hashes,
** no partial leaf, and a leaf count that is a multiple of 2^height (MERKLE_ERR_STATE
** otherwise); MERKLE_ERR_RANGE if the count would pass 2^64 - 1.
*/
merkle_status merkle__tree_push_subtree(merkle_tree *t, unsigned height,
                                        const uint8_t root[MERKLE_HASH_LEN]);

/*
** merkle_tree_root_parallel / merkle_tree_root_bytes_parallel with an explicit piece size (bytes; 0
*= the
** default of a few MiB): tests use tiny pieces to exercise many pieces and tails quickly.
** Exactly one of read_at and mem is used (read_at if not NULL).
*/
merkle_status merkle__root_parallel_ex(uint8_t out[MERKLE_HASH_LEN], int *is_empty,
                                       merkle_profile profile, merkle_hash_alg hash,
                                       size_t leaf_size, uint64_t total_len,
                                       merkle_read_at_fn read_at, void *ctx, const void *mem,
                                       unsigned threads, uint64_t piece_target);

#endif
