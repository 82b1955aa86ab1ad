/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Proof verification: RFC 9162 inclusion and consistency (inner/border form with exact
** lengths, as transparency-dev/merkle), CometBFT Proof.Verify, Sia VerifyProof and
** VerifyRangeProof, and the conversion between audit-path and range-proof order.
** Everything here works on const inputs and allocates nothing.
*/
#include <string.h>

#include "tree/proof_impl.h"

void merkle__node(merkle_hash_alg hash, uint8_t out[MERKLE_HASH_LEN],
                  const uint8_t l[MERKLE_HASH_LEN], const uint8_t r[MERKLE_HASH_LEN])
{
    uint8_t pair[2][MERKLE_HASH_LEN];
    memcpy(pair[0], l, MERKLE_HASH_LEN);
    memcpy(pair[1], r, MERKLE_HASH_LEN);
    merkle__node_level(hash, (uint8_t(*)[MERKLE_HASH_LEN])out,
                       (const uint8_t(*)[MERKLE_HASH_LEN])pair, 1);
}

static int hash_ok(merkle_hash_alg hash)
{
    return merkle__tree_hash_ok(hash);
}

size_t merkle_proof_inclusion_path_len(uint64_t index, uint64_t size)
{
    if (index >= size) return 0;
    unsigned inner = merkle__bitlen(index ^ (size - 1));
    return inner + merkle__popcount(inner >= 64 ? 0 : index >> inner);
}

size_t merkle_proof_consistency_path_len(uint64_t old_size, uint64_t new_size)
{
    if (old_size == 0 || old_size >= new_size) return 0;
    unsigned inner = merkle__bitlen((old_size - 1) ^ (new_size - 1));
    unsigned border = merkle__popcount(inner >= 64 ? 0 : (old_size - 1) >> inner);
    unsigned shift = merkle__tz(old_size);
    int pow2 = (old_size & (old_size - 1)) == 0;
    return (inner - shift) + border + (pow2 ? 0u : 1u);
}

merkle_status merkle_proof_inclusion_verify(merkle_hash_alg hash,
                                            const uint8_t root[MERKLE_HASH_LEN], uint64_t size,
                                            uint64_t index,
                                            const uint8_t leaf_hash[MERKLE_HASH_LEN],
                                            const uint8_t (*path)[MERKLE_HASH_LEN], size_t path_len,
                                            merkle_error *err)
{
    if (!leaf_hash || !root || (!path && path_len) || !hash_ok(hash))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0,
                            "inclusion verify: NULL argument or bad hash");
    if (index >= size)
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "inclusion proof: leaf index out of range for the tree size");
    unsigned inner = merkle__bitlen(index ^ (size - 1));
    if (path_len != merkle_proof_inclusion_path_len(index, size))
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "inclusion proof: wrong path length for this index and tree size");
    uint8_t r[MERKLE_HASH_LEN];
    memcpy(r, leaf_hash, MERKLE_HASH_LEN);
    for (size_t i = 0; i < path_len; i++) {
        /* Inner levels follow the index bits; above them every sibling is on the left. */
        if (i < inner && !((index >> i) & 1))
            merkle__node(hash, r, r, path[i]);
        else
            merkle__node(hash, r, path[i], r);
    }
    return merkle_ct_equal(r, root, MERKLE_HASH_LEN)
               ? MERKLE_OK
               : merkle__fail(
                     err, MERKLE_ERR_VERIFY, 0, 0,
                     "inclusion proof: root mismatch: the leaf and path do not give the root");
}

merkle_status merkle_proof_consistency_verify(merkle_hash_alg hash,
                                              const uint8_t old_root[MERKLE_HASH_LEN],
                                              const uint8_t new_root[MERKLE_HASH_LEN],
                                              uint64_t old_size, uint64_t new_size,
                                              const uint8_t (*path)[MERKLE_HASH_LEN],
                                              size_t path_len, merkle_error *err)
{
    if (!old_root || !new_root || (!path && path_len) || !hash_ok(hash))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0,
                            "consistency verify: NULL argument or bad hash");
    if (old_size == 0)
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "consistency proof: from an empty tree (old size 0)");
    if (old_size > new_size)
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "consistency proof: old size is larger than new size");
    if (old_size == new_size) {
        if (path_len != 0)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "consistency proof: equal sizes need an empty path");
        return merkle_ct_equal(old_root, new_root, MERKLE_HASH_LEN)
                   ? MERKLE_OK
                   : merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                  "consistency proof: equal sizes with different roots");
    }
    if (path_len == 0 || path_len != merkle_proof_consistency_path_len(old_size, new_size))
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "consistency proof: wrong path length for these sizes");
    unsigned shift = merkle__tz(old_size);
    unsigned inner = merkle__bitlen((old_size - 1) ^ (new_size - 1)) - shift;
    int pow2 = (old_size & (old_size - 1)) == 0;
    /* The seed is the root of the old tree's last perfect subtree: the old root itself when
    ** the old size is a power of two (the proof leaves it out), else the first element. */
    const uint8_t *seed = pow2 ? old_root : path[0];
    size_t first = pow2 ? 0 : 1;
    uint64_t mask = (old_size - 1) >> shift;
    uint8_t h1[MERKLE_HASH_LEN], h2[MERKLE_HASH_LEN];
    memcpy(h1, seed, MERKLE_HASH_LEN);
    memcpy(h2, seed, MERKLE_HASH_LEN);
    for (size_t i = first; i < path_len; i++) {
        size_t lvl = i - first;
        if (lvl < inner && !((mask >> lvl) & 1)) {
            /* A right sibling: part of the new tree only. */
            merkle__node(hash, h2, h2, path[i]);
        } else {
            merkle__node(hash, h1, path[i], h1);
            merkle__node(hash, h2, path[i], h2);
        }
    }
    int ok1 = merkle_ct_equal(h1, old_root, MERKLE_HASH_LEN);
    int ok2 = merkle_ct_equal(h2, new_root, MERKLE_HASH_LEN);
    return (ok1 & ok2) ? MERKLE_OK
                       : merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                      "consistency proof: root mismatch: the path does not link "
                                      "the two roots");
}

merkle_status merkle_proof_cometbft_verify(const uint8_t *root, int64_t total, int64_t index,
                                           const uint8_t leaf_hash[MERKLE_HASH_LEN],
                                           const void *leaf, size_t leaf_len,
                                           const uint8_t (*aunts)[MERKLE_HASH_LEN],
                                           size_t aunt_count, merkle_error *err)
{
    if (!leaf_hash || (!aunts && aunt_count) || (!leaf && leaf_len))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "cometbft verify: NULL argument");
    if (!root)
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "cometbft proof: invalid root hash: cannot be nil");
    if (total <= 0)
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "cometbft proof: proof total must be positive");
    if (index < 0)
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "cometbft proof: proof index cannot be negative");
    if (index >= total)
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "cometbft proof: proof index is not below the total");
    if (aunt_count > 100)
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0, "cometbft proof: more than 100 aunts");
    uint8_t h[MERKLE_HASH_LEN];
    merkle_status s = merkle_tree_leaf_hash(h, MERKLE_HASH_SHA256, leaf, leaf_len);
    if (s != MERKLE_OK)
        return merkle__fail(err, s, 0, 0, "cometbft verify: %s", merkle_strerror(s));
    if (!merkle_ct_equal(h, leaf_hash, MERKLE_HASH_LEN))
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "cometbft proof: invalid leaf hash: the leaf does not hash to it");
    /* computeHashFromAunts walks down from the root, splitting at k(n); record the turns. */
    uint64_t i = (uint64_t)index, n = (uint64_t)total, went_right = 0;
    size_t depth = 0;
    while (n > 1) {
        uint64_t k = (uint64_t)1 << (merkle__bitlen(n - 1) - 1);
        if (depth >= 64)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "cometbft proof: tree deeper than 64");
        if (i >= k) {
            went_right |= (uint64_t)1 << depth;
            i -= k;
            n -= k;
        } else {
            n = k;
        }
        depth++;
    }
    if (depth != aunt_count)
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "cometbft proof: wrong number of aunts for this index and total");
    for (size_t a = 0; a < aunt_count; a++) {
        size_t lvl = depth - 1 - a; /* aunts[0] belongs to the deepest turn */
        if ((went_right >> lvl) & 1)
            merkle__node(MERKLE_HASH_SHA256, h, aunts[a], h);
        else
            merkle__node(MERKLE_HASH_SHA256, h, h, aunts[a]);
    }
    return merkle_ct_equal(h, root, MERKLE_HASH_LEN)
               ? MERKLE_OK
               : merkle__fail(
                     err, MERKLE_ERR_VERIFY, 0, 0,
                     "cometbft proof: invalid root hash: the leaf and aunts do not give it");
}

merkle_status merkle_proof_sia_verify(merkle_hash_alg hash, const uint8_t root[MERKLE_HASH_LEN],
                                      uint64_t num_leaves, uint64_t index, const void *segment,
                                      size_t segment_len, const uint8_t (*path)[MERKLE_HASH_LEN],
                                      size_t path_len, merkle_error *err)
{
    if (!root || (!segment && segment_len) || (!path && path_len) || !hash_ok(hash))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "sia verify: NULL argument or bad hash");
    if (index >= num_leaves)
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "sia proof: leaf index out of range for the tree size");
    uint8_t sum[MERKLE_HASH_LEN];
    merkle_status s = merkle_tree_leaf_hash(sum, hash, segment, segment_len);
    if (s != MERKLE_OK) return merkle__fail(err, s, 0, 0, "sia verify: %s", merkle_strerror(s));
    /* Literal transcription of merkletree VerifyProof; proofSet[h] is path[h - 1]. */
    size_t height = 1;
    uint64_t stable_end = index;
    for (; height < 64; height++) {
        uint64_t size = (uint64_t)1 << height;
        uint64_t start = (index >> height) << height;
        if (size - 1 > UINT64_MAX - start) break;
        uint64_t end = start + size - 1;
        if (end >= num_leaves) break;
        stable_end = end;
        if (height - 1 >= path_len)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0, "sia proof: proof set too short");
        if (index - start < size / 2)
            merkle__node(hash, sum, sum, path[height - 1]);
        else
            merkle__node(hash, sum, path[height - 1], sum);
    }
    if (stable_end != num_leaves - 1) {
        if (height - 1 >= path_len)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0, "sia proof: proof set too short");
        merkle__node(hash, sum, sum, path[height - 1]);
        height++;
    }
    for (; height - 1 < path_len; height++) merkle__node(hash, sum, path[height - 1], sum);
    return merkle_ct_equal(sum, root, MERKLE_HASH_LEN)
               ? MERKLE_OK
               : merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                              "sia proof: root mismatch: the segment and proof set do not give it");
}

size_t merkle_proof_range_path_len(uint64_t start, uint64_t end, uint64_t size)
{
    if (start >= end || end > size) return 0;
    size_t n = merkle__popcount(start);
    uint64_t i = end;
    while (i < size) {
        MERKLE_ASSERT(i != 0); /* i >= end > start, and i + sz below never wraps (sz < size - i) */
        uint64_t sz = (uint64_t)1 << merkle__tz(i);
        n++;
        if (sz >= size - i) break; /* the last block, possibly partial */
        i += sz;
    }
    return n;
}

/* The Sia verifier's subtree stack (PushSubTree + fold), on the C stack. */
typedef struct vstack {
    size_t n;
    uint8_t height[MERKLE_COMPACT_MAX];
    uint8_t hash[MERKLE_COMPACT_MAX][MERKLE_HASH_LEN];
} vstack;

static int vpush(vstack *st, merkle_hash_alg alg, unsigned height, const uint8_t h[MERKLE_HASH_LEN])
{
    /* A taller subtree may not be pushed on a shorter one (upstream: error, not panic). */
    if (st->n && st->height[st->n - 1] < height) return -1;
    if (st->n == MERKLE_COMPACT_MAX) return -1;
    memcpy(st->hash[st->n], h, MERKLE_HASH_LEN);
    st->height[st->n++] = (uint8_t)height;
    while (st->n >= 2 && st->height[st->n - 1] == st->height[st->n - 2]) {
        merkle__node(alg, st->hash[st->n - 2], st->hash[st->n - 2], st->hash[st->n - 1]);
        st->height[st->n - 2]++;
        st->n--;
    }
    return 0;
}

merkle_status merkle_proof_range_verify(merkle_hash_alg hash, const uint8_t root[MERKLE_HASH_LEN],
                                        uint64_t size, uint64_t start, uint64_t end,
                                        const uint8_t (*leaf_hashes)[MERKLE_HASH_LEN],
                                        const uint8_t (*path)[MERKLE_HASH_LEN], size_t path_len,
                                        merkle_error *err)
{
    if (!root || !leaf_hashes || (!path && path_len) || !hash_ok(hash))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "range verify: NULL argument or bad hash");
    if (start >= end)
        return merkle__fail(err, MERKLE_ERR_RANGE, 0, 0, "range verify: start >= end");
    if (size && path_len != merkle_proof_range_path_len(start, end, size))
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "range proof: wrong path length for this range and tree size");
    vstack st;
    st.n = 0;
    size_t k = 0;
    uint64_t i = 0;
    while (i < start) {
        if (k >= path_len)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "range proof: too few subtree roots left of the range");
        unsigned h = merkle__tz(i);
        unsigned hmax = merkle__bitlen(start - i) - 1;
        if (h > hmax) h = hmax;
        MERKLE_ASSERT(h < 64); /* start - i >= 1, so hmax <= 63 */
        if (vpush(&st, hash, h, path[k++]) != 0)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "range proof: a subtree root breaks the subtree order");
        i += (uint64_t)1 << h;
    }
    for (uint64_t j = 0; j < end - start; j++)
        if (vpush(&st, hash, 0, leaf_hashes[j]) != 0)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "range proof: a leaf breaks the subtree order");
    i = end;
    while (k < path_len) {
        unsigned h = merkle__tz(i);
        if (h >= 64)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0, "range proof: past 2^64 leaves");
        if (vpush(&st, hash, h, path[k++]) != 0)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "range proof: a subtree root breaks the subtree order");
        uint64_t sz = (uint64_t)1 << h;
        i = sz > UINT64_MAX - i ? 0 : i + sz; /* 0: no further element can follow */
    }
    uint8_t acc[MERKLE_HASH_LEN];
    memcpy(acc, st.hash[st.n - 1], MERKLE_HASH_LEN);
    for (size_t e = st.n - 1; e-- > 0;) merkle__node(hash, acc, st.hash[e], acc);
    return merkle_ct_equal(acc, root, MERKLE_HASH_LEN)
               ? MERKLE_OK
               : merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                              "range proof: root mismatch: the leaves and path do not give it");
}

size_t merkle__lr_to_path(uint8_t (*out)[MERKLE_HASH_LEN], const uint8_t (*left)[MERKLE_HASH_LEN],
                          size_t nleft, const uint8_t (*right)[MERKLE_HASH_LEN], size_t nright,
                          uint64_t start, unsigned base)
{
    MERKLE_ASSERT((left || !nleft) && (right || !nright));
    if (base < 64 && merkle__popcount(start >> base) != nleft) return (size_t)-1;
    if (base >= 64 && nleft) return (size_t)-1;
    size_t li = nleft, ri = 0, n = 0;
    for (unsigned h = base; h < 64 && (li > 0 || ri < nright); h++) {
        if ((start >> h) & 1)
            memcpy(out[n++], left[--li], MERKLE_HASH_LEN);
        else if (ri < nright)
            memcpy(out[n++], right[ri++], MERKLE_HASH_LEN);
    }
    if (li != 0 || ri != nright) return (size_t)-1;
    return n;
}

merkle_status merkle_proof_range_order_to_path(uint8_t (*out)[MERKLE_HASH_LEN],
                                               const uint8_t (*in)[MERKLE_HASH_LEN], size_t n,
                                               uint64_t index)
{
    if (!out || (!in && n)) return MERKLE_ERR_ARG;
    size_t nleft = merkle__popcount(index);
    if (n < nleft) return MERKLE_ERR_FORMAT;
    size_t got = merkle__lr_to_path(out, in, nleft, in + nleft, n - nleft, index, 0);
    return got == n ? MERKLE_OK : MERKLE_ERR_FORMAT;
}

merkle_status merkle_proof_path_to_range_order(uint8_t (*out)[MERKLE_HASH_LEN],
                                               const uint8_t (*in)[MERKLE_HASH_LEN], size_t n,
                                               uint64_t index)
{
    if (!out || (!in && n)) return MERKLE_ERR_ARG;
    size_t nleft = merkle__popcount(index);
    if (n < nleft) return MERKLE_ERR_FORMAT;
    size_t nright = n - nleft, li = nleft, ri = 0, k = 0;
    for (unsigned h = 0; h < 64 && k < n; h++) {
        if ((index >> h) & 1)
            memcpy(out[--li], in[k++], MERKLE_HASH_LEN); /* lowest left sibling goes last */
        else if (ri < nright)
            memcpy(out[nleft + ri++], in[k++], MERKLE_HASH_LEN);
    }
    return (k == n && li == 0 && ri == nright) ? MERKLE_OK : MERKLE_ERR_FORMAT;
}
