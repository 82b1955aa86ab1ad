/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Compact ranges: the perfect-subtree roots that cover leaves [begin, end), left to right.
**
** The entries are exactly the maximal aligned blocks of the range: going right from begin
** the blocks grow (each as large as its start's alignment allows), then shrink towards end.
** Appending a subtree at the end and merging it with its left neighbour whenever the two are
** siblings (same height, the left one aligned to twice the size) keeps that form, which is
** why merging two adjacent ranges is just appending the right one's entries in order.
*/
#include <string.h>

#include "tree/proof_impl.h"
#include "tree/tree_impl.h"

#define COMPACT_VERSION 1u

merkle_status merkle_compact_range_init(merkle_compact_range *r, merkle_hash_alg hash,
                                        uint64_t begin)
{
    if (!r || !merkle__tree_hash_ok(hash)) return MERKLE_ERR_ARG;
    r->version = COMPACT_VERSION;
    r->hash = hash;
    r->begin = begin;
    r->end = begin;
    r->count = 0;
    return MERKLE_OK;
}

static int valid(const merkle_compact_range *r)
{
    return r && r->version == COMPACT_VERSION && r->count <= MERKLE_COMPACT_MAX &&
           r->begin <= r->end;
}

merkle_status merkle_compact_range_append_subtree(merkle_compact_range *r, unsigned height,
                                                  const uint8_t hash[MERKLE_HASH_LEN])
{
    if (!valid(r) || !hash || height >= 64) return MERKLE_ERR_ARG;
    uint64_t size = (uint64_t)1 << height;
    if (r->end & (size - 1)) return MERKLE_ERR_STATE;
    if (size > UINT64_MAX - r->end) return MERKLE_ERR_RANGE;
    /* The canonical form never holds more than two entries per height. */
    if (r->count == MERKLE_COMPACT_MAX) return MERKLE_ERR_STATE;
    uint32_t n = r->count;
    memcpy(r->hashes[n], hash, MERKLE_HASH_LEN);
    r->heights[n] = (uint8_t)height;
    n++;
    uint64_t end = r->end + size;
    /* Merge with the left neighbour while it is the sibling: same height, and the pair's
    ** start (end - 2 * size) is aligned to the doubled size and inside the range. */
    while (n >= 2 && r->heights[n - 2] == r->heights[n - 1]) {
        unsigned h = r->heights[n - 1];
        if (h + 1 >= 64) break;
        uint64_t pair = (uint64_t)1 << (h + 1);
        uint64_t pstart = end - ((end - 1) & (pair - 1)) - 1; /* start of the block holding end-1 */
        if (end - pstart != pair || pstart < r->begin) break;
        merkle__node(r->hash, r->hashes[n - 2], r->hashes[n - 2], r->hashes[n - 1]);
        r->heights[n - 2] = (uint8_t)(h + 1);
        n--;
    }
    r->count = n;
    r->end = end;
    return MERKLE_OK;
}

merkle_status merkle_compact_range_append_leaf_hash(merkle_compact_range *r,
                                                    const uint8_t hash[MERKLE_HASH_LEN])
{
    return merkle_compact_range_append_subtree(r, 0, hash);
}

merkle_status merkle_compact_range_append_leaf(merkle_compact_range *r, const void *data,
                                               size_t len)
{
    if (!valid(r) || (!data && len)) return MERKLE_ERR_ARG;
    uint8_t h[MERKLE_HASH_LEN];
    merkle_status s = merkle_tree_leaf_hash(h, r->hash, data, len);
    if (s != MERKLE_OK) return s;
    return merkle_compact_range_append_subtree(r, 0, h);
}

merkle_status merkle_compact_range_from_leaves(merkle_compact_range *r, merkle_hash_alg hash,
                                               uint64_t begin, const uint8_t *const *leaves,
                                               const size_t *lens, size_t n)
{
    if (!r || (n && (!leaves || !lens))) return MERKLE_ERR_ARG;
    merkle_status s = merkle_compact_range_init(r, hash, begin);
    if (s != MERKLE_OK) return s;
    if (n > UINT64_MAX - begin) return MERKLE_ERR_RANGE;
    for (size_t i = 0; i < n; i++)
        if (!leaves[i] && lens[i]) return MERKLE_ERR_ARG;
    /* Aligned blocks of up to a chunk of leaves: each one's leaves hashed in one batch and
    ** reduced level by level (one batch call per level), then appended as a subtree, which
    ** merges it with its left siblings as the leaves one by one would have been. */
    uint8_t a[MERKLE_TREE_CHUNK][MERKLE_HASH_LEN], b[MERKLE_TREE_CHUNK / 2][MERKLE_HASH_LEN];
    uint64_t pos = begin;
    for (size_t i = 0; i < n;) {
        unsigned h = MERKLE_TREE_CHUNK_LOG2;
        if (pos) {
            unsigned align = (unsigned)__builtin_ctzll(pos);
            if (align < h) h = align;
        }
        while (((size_t)1 << h) > n - i) h--;
        size_t k = (size_t)1 << h;
        merkle__leaf_list(hash, a, leaves + i, lens + i, k);
        merkle__reduce(hash, a, b, k);
        s = merkle_compact_range_append_subtree(r, h, a[0]);
        if (s != MERKLE_OK) return s;
        i += k;
        pos += k;
    }
    return MERKLE_OK;
}

merkle_status merkle_compact_range_merge(merkle_compact_range *r, const merkle_compact_range *right)
{
    if (!valid(r) || !valid(right) || r == right) return MERKLE_ERR_ARG;
    if (right->begin != r->end || right->hash != r->hash) return MERKLE_ERR_STATE;
    /* Work on a copy so that a failure leaves r untouched. */
    merkle_compact_range tmp = *r;
    for (uint32_t i = 0; i < right->count; i++) {
        merkle_status s =
            merkle_compact_range_append_subtree(&tmp, right->heights[i], right->hashes[i]);
        if (s != MERKLE_OK) return s;
    }
    if (tmp.end != right->end) return MERKLE_ERR_STATE; /* right was not in canonical form */
    *r = tmp;
    return MERKLE_OK;
}

merkle_status merkle_compact_range_root(uint8_t out[MERKLE_HASH_LEN], const merkle_compact_range *r)
{
    if (!out || !valid(r)) return MERKLE_ERR_ARG;
    if (r->begin != 0 || r->count == 0) return MERKLE_ERR_STATE;
    /* From 0 the entries shrink left to right: the root is their right-nested fold. */
    uint8_t acc[MERKLE_HASH_LEN];
    memcpy(acc, r->hashes[r->count - 1], MERKLE_HASH_LEN);
    for (uint32_t i = r->count - 1; i-- > 0;) merkle__node(r->hash, acc, r->hashes[i], acc);
    memcpy(out, acc, MERKLE_HASH_LEN);
    return MERKLE_OK;
}

size_t merkle_compact_range_struct_size(void)
{
    return sizeof(merkle_compact_range);
}

size_t merkle_compact_range_struct_align(void)
{
    return _Alignof(merkle_compact_range);
}
