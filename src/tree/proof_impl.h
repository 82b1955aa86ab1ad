/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Internal helpers of the proof code (src/tree/proof*.c, compact*.c). Never installed.
*/
#ifndef MERKLE_PROOF_IMPL_H
#define MERKLE_PROOF_IMPL_H

#include "merkle/proof.h"
#include "tree/tree_impl.h"

/* Number of bits needed to write x (bitlen(0) = 0). */
static inline unsigned merkle__bitlen(uint64_t x)
{
    return x ? 64u - (unsigned)__builtin_clzll(x) : 0u;
}
/* Trailing zero bits of x; 64 for x == 0. */
static inline unsigned merkle__tz(uint64_t x)
{
    return x ? (unsigned)__builtin_ctzll(x) : 64u;
}
static inline unsigned merkle__popcount(uint64_t x)
{
    return (unsigned)__builtin_popcountll(x);
}

/* "inclusion", "consistency", "range"; NULL for a value that is no merkle_proof_kind. */
const char *merkle__proof_kind_name(merkle_proof_kind k);

/* H(0x01 || l || r) into out (out may alias l or r). */
void merkle__node(merkle_hash_alg hash, uint8_t out[MERKLE_HASH_LEN],
                  const uint8_t l[MERKLE_HASH_LEN], const uint8_t r[MERKLE_HASH_LEN]);

/*
** Interleave the left subtree roots (left[0..nleft): largest first, one per set bit of
** `start` at or above level `base`) and the right-hand block roots (right[0..nright), left
** to right) of the range that starts at `start` into the bottom-up audit path of the node at
** level `base` that begins at `start`. Writes the path to out and returns its length, or
** (size_t)-1 when the counts cannot belong to such a path.
*/
size_t merkle__lr_to_path(uint8_t (*out)[MERKLE_HASH_LEN], const uint8_t (*left)[MERKLE_HASH_LEN],
                          size_t nleft, const uint8_t (*right)[MERKLE_HASH_LEN], size_t nright,
                          uint64_t start, unsigned base);

#endif
