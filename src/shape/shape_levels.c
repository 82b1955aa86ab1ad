/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Bulk queries over the kept levels of a merkle_shape_tree (merkle/shape.h): trees built
** from raw leaves (the RFC 6962 family hashes them itself, in batches), every branch of a
** tree in one pass, and the branches of promoting trees (rfc6962, sia), whose lone last node
** of an odd level moves up without a sibling.
**
** One branch at a time through merkle_shape_tree_branch costs a few function calls per
** hash; every branch at once is one walk per leaf over the levels, copying a sibling per
** height: O(n log n) copies, no hashing, which is what an all-proofs caller (CometBFT's
** ProofsFromByteSlices) needs after the O(n) build.
*/
#include <stdlib.h>
#include <string.h>

#include "shape/shape_impl.h"
#include "tree/tree_impl.h"

#define LEAF_CHUNK 4096 /* leaves hashed per merkle__leaf_list call */

static unsigned floor_log2(uint64_t g)
{
    return 63u - (unsigned)__builtin_clzll(g);
}

static int mix_in(const merkle_shape_tree *t)
{
    return (t->s.flags & MERKLE_SHAPE_MIX_IN_LENGTH) != 0;
}

/* The length chunk of a mixed-in tree: uint256_le(n). */
static void length_chunk(uint8_t out[MERKLE_HASH_LEN], uint64_t n)
{
    memset(out, 0, MERKLE_HASH_LEN);
    merkle__store_le64(out, n);
}

/* Siblings of node j at height h of a PROMOTE tree's data levels, up to the data root. */
static size_t promote_len(const merkle_shape_tree *t, unsigned h, uint64_t j)
{
    size_t len = 0;
    for (; h < t->depth; h++, j >>= 1)
        if ((j ^ 1) < t->cnt[h]) len++;
    return len;
}

merkle_status merkle__shape_tree_branch_promote(uint8_t (*path)[MERKLE_HASH_LEN], size_t cap,
                                                size_t *path_len, const merkle_shape_tree *t,
                                                uint64_t pos)
{
    node_t tmp;
    merkle_status st = merkle_shape_tree_node(tmp, t, pos);
    if (st != MERKLE_OK) return st;
    if (pos == 1) {
        *path_len = 0;
        return MERKLE_OK;
    }
    uint64_t g = pos;
    int mix = mix_in(t);
    if (mix) {
        if (pos == 3) {
            *path_len = 1;
            if (cap < 1) return MERKLE_ERR_BUFFER;
            memcpy(path[0], t->data_root, MERKLE_HASH_LEN);
            return MERKLE_OK;
        }
        unsigned d = floor_log2(pos); /* pos lies under gindex 2 (checked by node) */
        g = pos - ((uint64_t)1 << d) + ((uint64_t)1 << (d - 1));
    }
    unsigned d = floor_log2(g), h0 = t->depth - d;
    uint64_t j0 = g - ((uint64_t)1 << d);
    size_t len = (g == 1 ? 0 : promote_len(t, h0, j0)) + (size_t)mix;
    *path_len = len;
    if (cap < len) return MERKLE_ERR_BUFFER;
    size_t k = 0;
    if (g != 1) {
        uint64_t j = j0;
        for (unsigned h = h0; h < t->depth; h++, j >>= 1)
            if ((j ^ 1) < t->cnt[h]) memcpy(path[k++], t->lv[h][j ^ 1], MERKLE_HASH_LEN);
    }
    if (mix) length_chunk(path[k], t->n);
    return MERKLE_OK;
}

merkle_status merkle_shape_tree_branches(uint8_t (*paths)[MERKLE_HASH_LEN], size_t cap,
                                         size_t *paths_len, uint64_t *offsets,
                                         const merkle_shape_tree *t)
{
    if (!paths_len || !t || (cap && !paths)) return MERKLE_ERR_ARG;
    uint64_t n = t->n;
    if (n > (uint64_t)SIZE_MAX / MERKLE_HASH_LEN) return MERKLE_ERR_RANGE;
    merkle_status st;
    if (t->heap) {
        /* Branch lengths differ by leaf (the heap's last level is partial): one call each. */
        size_t total = 0;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t pos = 2 * n - 2 - (t->rank ? t->rank[i] : i);
            size_t len = floor_log2(pos + 1);
            if (offsets) offsets[i] = total;
            total += len;
        }
        if (offsets) offsets[n] = total;
        *paths_len = total;
        if (cap < total) return MERKLE_ERR_BUFFER;
        size_t at = 0;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t pos = 2 * n - 2 - (t->rank ? t->rank[i] : i);
            size_t len;
            st = merkle_shape_tree_branch(paths ? paths + at : NULL, cap - at, &len, t, pos);
            if (st != MERKLE_OK) return st;
            at += len;
        }
        return MERKLE_OK;
    }
    int promote = t->s.odd == MERKLE_SHAPE_ODD_PROMOTE;
    int pad = t->s.odd == MERKLE_SHAPE_ODD_PAD;
    size_t mix = mix_in(t) ? 1 : 0;
    size_t total = 0;
    if (!promote) {
        size_t per = t->depth + mix;
        if (n && per > SIZE_MAX / n) return MERKLE_ERR_RANGE;
        total = (size_t)n * per;
        if (offsets)
            for (uint64_t i = 0; i <= n; i++) offsets[i] = i * per;
    } else {
        for (uint64_t i = 0; i < n; i++) {
            uint64_t k = t->rank ? t->rank[i] : i;
            if (offsets) offsets[i] = total;
            total += promote_len(t, 0, k) + mix;
        }
        if (offsets) offsets[n] = total;
    }
    *paths_len = total;
    if (cap < total) return MERKLE_ERR_BUFFER;
    node_t len_chunk;
    if (mix) length_chunk(len_chunk, n);
    uint8_t(*o)[MERKLE_HASH_LEN] = paths;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t j = t->rank ? t->rank[i] : i;
        for (unsigned h = 0; h < t->depth; h++, j >>= 1) {
            uint64_t sib = j ^ 1;
            if (sib < t->cnt[h])
                memcpy(*o++, t->lv[h][sib], MERKLE_HASH_LEN);
            else if (pad)
                memcpy(*o++, t->z[h], MERKLE_HASH_LEN);
            else if (!promote)
                memcpy(*o++, t->lv[h][j], MERKLE_HASH_LEN); /* DUPLICATE: itself */
        }
        if (mix) memcpy(*o++, len_chunk, MERKLE_HASH_LEN);
    }
    return MERKLE_OK;
}

/* A shape whose level-0 nodes are RFC 6962 leaf hashes H(0x00 || leaf): node prefix 0x01. */
static int leaf_hashing_shape(const merkle_shape *s)
{
    return s->layout == MERKLE_SHAPE_LAYOUT_LEVELS && s->node_prefix_len == 1 &&
           s->node_prefix[0] == 0x01;
}

/* Check a shape for raw leaves: MERKLE_OK, or the error (with its message). */
static merkle_status check_leaf_shape(const merkle_shape *s, uint64_t n, merkle_error *err)
{
    if (!s || s->version != MERKLE_SHAPE_VERSION || !merkle_hash_alg_name(s->hash))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid tree shape");
    if (!leaf_hashing_shape(s))
        return merkle__fail(err, MERKLE_ERR_UNSUPPORTED, 0, 0,
                            "hashing raw leaves needs a levels shape with node prefix 0x01 "
                            "(rfc6962, sia)");
    if (n > ((uint64_t)SIZE_MAX / MERKLE_HASH_LEN) / 2)
        return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    return MERKLE_OK;
}

typedef struct list_src {
    merkle_hash_alg hash;
    const uint8_t *const *leaves;
    const size_t *lens;
    uint64_t n;
} list_src;

static void fill_list(void *ctx, node_t *out)
{
    const list_src *l = (const list_src *)ctx;
    for (uint64_t i = 0; i < l->n; i += LEAF_CHUNK) {
        size_t k = l->n - i < LEAF_CHUNK ? (size_t)(l->n - i) : LEAF_CHUNK;
        merkle__leaf_list(l->hash, out + i, l->leaves + i, l->lens + i, k);
    }
}

merkle_status merkle_shape_tree_alloc_leaves(merkle_shape_tree **out, const merkle_shape *s,
                                             const uint8_t *const *leaves, const size_t *lens,
                                             uint64_t n, merkle_error *err)
{
    if (!out || (n && (!leaves || !lens)))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    *out = NULL;
    merkle_status st = check_leaf_shape(s, n, err);
    if (st != MERKLE_OK) return st;
    list_src l = { s->hash, leaves, lens, n };
    return merkle__shape_tree_alloc_fill(out, s, n, fill_list, &l, err);
}

typedef struct bytes_src {
    merkle_hash_alg hash;
    const uint8_t *data;
    size_t len, leaf_size;
} bytes_src;

static void fill_bytes(void *ctx, node_t *out)
{
    const bytes_src *b = (const bytes_src *)ctx;
    size_t full = b->len / b->leaf_size, rest = b->len % b->leaf_size;
    if (full) merkle__leaf_level(b->hash, out, b->data, b->leaf_size, full);
    if (rest) {
        const uint8_t *last = b->data + full * b->leaf_size;
        merkle__leaf_list(b->hash, out + full, &last, &rest, 1);
    }
}

merkle_status merkle_shape_tree_alloc_bytes(merkle_shape_tree **out, const merkle_shape *s,
                                            size_t leaf_size, const void *data, size_t len,
                                            merkle_error *err)
{
    if (!out || (len && !data)) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    *out = NULL;
    if (leaf_size == 0) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "leaf size 0");
    uint64_t n = len / leaf_size + (len % leaf_size != 0);
    merkle_status st = check_leaf_shape(s, n, err);
    if (st != MERKLE_OK) return st;
    bytes_src b = { s->hash, (const uint8_t *)data, len, leaf_size };
    return merkle__shape_tree_alloc_fill(out, s, n, fill_bytes, &b, err);
}
