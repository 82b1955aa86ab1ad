/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Whole shaped trees (merkle_shape_tree): every level kept (LEVELS) or the heap array (HEAP),
** their nodes, positions and branches, and the verification of one branch.
*/
#include <stdlib.h>
#include <string.h>

#include "shape/shape_impl.h"

/* ------------------------------------------------------------------ whole trees */

void merkle_shape_tree_free(merkle_shape_tree *t)
{
    if (!t) return;
    free(t->lv[0]); /* the block of all levels */
    free(t->heap);
    free(t->perm);
    free(t->rank);
    free(t);
}

static merkle_status build_levels(merkle_shape_tree *t, uint32_t *flags, const node_t *nodes,
                                  merkle__shape_fill_fn fill, void *ctx)
{
    const merkle_shape *s = &t->s;
    uint64_t n = t->n;
    merkle_status st = merkle_shape_depth(&t->depth, s, n);
    if (st != MERKLE_OK) return st;
    if ((s->flags & MERKLE_SHAPE_MIX_IN_LENGTH) && t->depth > 62) return MERKLE_ERR_RANGE;
    if (s->odd == MERKLE_SHAPE_ODD_PAD) merkle__shape_zero_roots(s, t->z, t->depth);
    if (n == 0) {
        if (s->odd == MERKLE_SHAPE_ODD_PAD)
            memcpy(t->data_root, t->z[t->depth], MERKLE_HASH_LEN);
        else if (merkle__profile_classic(s->profile))
            return merkle_tree_empty_root(t->data_root, s->profile, s->hash);
        else
            memset(t->data_root, 0, MERKLE_HASH_LEN);
        return MERKLE_OK;
    }
    unsigned H = merkle__shape_ceil_log2(n);
    /* Every level in one block (fewer allocations and page faults than one per level). */
    uint64_t total = 0;
    t->cnt[0] = n;
    for (unsigned h = 0; h < t->depth; h++) t->cnt[h + 1] = h < H ? (t->cnt[h] + 1) / 2 : 1;
    for (unsigned h = 0; h <= t->depth; h++) total += t->cnt[h];
    if (total > (uint64_t)SIZE_MAX / MERKLE_HASH_LEN) return MERKLE_ERR_NOMEM;
    node_t *block = malloc((size_t)total * MERKLE_HASH_LEN);
    if (!block) return MERKLE_ERR_NOMEM;
    for (unsigned h = 0; h <= t->depth; block += t->cnt[h], h++) t->lv[h] = block;
    if (nodes)
        memcpy(t->lv[0], nodes, (size_t)n * MERKLE_HASH_LEN);
    else
        fill(ctx, t->lv[0]);
    for (unsigned h = 0; h < t->depth; h++) {
        uint64_t c = t->cnt[h], pairs = c / 2;
        *flags |= merkle__shape_detect(s, (const node_t *)t->lv[h], (size_t)pairs);
        merkle__shape_pair_level(s, t->lv[h + 1], (const node_t *)t->lv[h], (size_t)pairs);
        if (c & 1) {
            memcpy(t->lv[h + 1][pairs], t->lv[h][c - 1], MERKLE_HASH_LEN);
            merkle__shape_lift(s, t->lv[h + 1][pairs], t->z, h);
        }
    }
    memcpy(t->data_root, t->lv[t->depth][0], MERKLE_HASH_LEN);
    return MERKLE_OK;
}

/* merkle_shape_tree_alloc, with the level-0 nodes either given (nodes) or written by fill
** into the tree's own level 0 (nodes NULL: no copy for a LEVELS tree without sorting). */
static merkle_status tree_alloc(merkle_shape_tree **out, uint32_t *out_flags, const merkle_shape *s,
                                const uint8_t (*nodes)[MERKLE_HASH_LEN], uint64_t n,
                                merkle__shape_fill_fn fill, void *ctx, merkle_error *err)
{
    if (out_flags) *out_flags = 0;
    *out = NULL;
    if (!merkle__shape_ok(s)) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid tree shape");
    node_t *filled = NULL;
    if (!nodes && n &&
        (s->layout == MERKLE_SHAPE_LAYOUT_HEAP || (s->flags & MERKLE_SHAPE_SORT_LEAVES))) {
        if (n > (uint64_t)SIZE_MAX / MERKLE_HASH_LEN)
            return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
        filled = malloc((size_t)n * MERKLE_HASH_LEN);
        if (!filled) return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
        fill(ctx, filled);
        nodes = (const node_t *)filled;
    }
    merkle_shape_tree *t = calloc(1, sizeof *t);
    if (!t) {
        free(filled);
        return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    }
    t->s = *s;
    t->n = n;
    merkle_status st;
    uint32_t flags = 0;
    if (s->layout == MERKLE_SHAPE_LAYOUT_HEAP) {
        st = merkle__shape_heap_alloc(&t->heap,
                                      (s->flags & MERKLE_SHAPE_SORT_LEAVES) ? &t->perm : NULL, s,
                                      (const node_t *)nodes, n);
        if (st == MERKLE_OK) memcpy(t->root, t->heap[0], MERKLE_HASH_LEN);
    } else {
        const node_t *src = (const node_t *)nodes;
        node_t *sorted = NULL;
        st = MERKLE_OK;
        if ((s->flags & MERKLE_SHAPE_SORT_LEAVES) && n) {
            sorted = merkle__shape_sorted_copy((const node_t *)nodes, n, &t->perm);
            if (!sorted) st = MERKLE_ERR_NOMEM;
            src = (const node_t *)sorted;
        }
        if (st == MERKLE_OK) st = build_levels(t, &flags, src, fill, ctx);
        free(sorted);
        memcpy(t->root, t->data_root, MERKLE_HASH_LEN);
        if (st == MERKLE_OK && (s->flags & MERKLE_SHAPE_MIX_IN_LENGTH))
            merkle_shape_mix_in_length(t->root, t->data_root, n);
    }
    if (st == MERKLE_OK && t->perm) {
        t->rank = malloc((size_t)n * sizeof *t->rank);
        if (!t->rank)
            st = MERKLE_ERR_NOMEM;
        else
            for (uint64_t k = 0; k < n; k++) t->rank[t->perm[k]] = k;
    }
    free(filled);
    if (st != MERKLE_OK) {
        merkle_shape_tree_free(t);
        if (st == MERKLE_ERR_RANGE)
            return merkle__fail(err, st, 0, 0,
                                n && s->limit ? "more leaves than the limit"
                                              : "no leaves or a tree too deep");
        return merkle__fail(err, st, 0, 0, "out of memory");
    }
    if (out_flags) *out_flags = flags;
    *out = t;
    return MERKLE_OK;
}

merkle_status merkle_shape_tree_alloc(merkle_shape_tree **out, uint32_t *out_flags,
                                      const merkle_shape *s,
                                      const uint8_t (*nodes)[MERKLE_HASH_LEN], uint64_t n,
                                      merkle_error *err)
{
    if (out_flags) *out_flags = 0;
    if (!out || (n && !nodes)) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    static const node_t none;
    return tree_alloc(out, out_flags, s, n ? nodes : &none, n, NULL, NULL, err);
}

merkle_status merkle__shape_tree_alloc_fill(merkle_shape_tree **out, const merkle_shape *s,
                                            uint64_t n, merkle__shape_fill_fn fill, void *ctx,
                                            merkle_error *err)
{
    return tree_alloc(out, NULL, s, NULL, n, fill, ctx, err);
}

merkle_status merkle__shape_tree_from_heap(merkle_shape_tree **out, const merkle_shape *s,
                                           uint8_t (*heap)[MERKLE_HASH_LEN], uint64_t n,
                                           const uint64_t *tree_index)
{
    *out = NULL;
    merkle_shape_tree *t = calloc(1, sizeof *t);
    if (!t || n == 0) {
        free(t);
        free(heap);
        return n ? MERKLE_ERR_NOMEM : MERKLE_ERR_VERIFY;
    }
    t->s = *s;
    t->n = n;
    t->heap = heap;
    memcpy(t->root, heap[0], MERKLE_HASH_LEN);
    t->rank = malloc((size_t)n * sizeof *t->rank);
    t->perm = malloc((size_t)n * sizeof *t->perm);
    node_t *check = n > 1 ? malloc((size_t)(n - 1) * MERKLE_HASH_LEN) : NULL;
    if (!t->rank || !t->perm || (n > 1 && !check)) {
        free(check);
        merkle_shape_tree_free(t);
        return MERKLE_ERR_NOMEM;
    }
    merkle_status st = MERKLE_OK;
    for (uint64_t k = 0; k < n; k++) t->perm[k] = UINT64_MAX;
    for (uint64_t i = 0; i < n && st == MERKLE_OK; i++) {
        uint64_t ti = tree_index[i];
        if (ti < n - 1 || ti > 2 * n - 2 || t->perm[2 * n - 2 - ti] != UINT64_MAX) {
            st = MERKLE_ERR_VERIFY;
            break;
        }
        t->rank[i] = 2 * n - 2 - ti;
        t->perm[2 * n - 2 - ti] = i;
    }
    /* Every interior node from its children, compared with the stored one. */
    if (st == MERKLE_OK && n > 1) {
        for (uint64_t i = 0; i < n - 1; i++)
            merkle__shape_node2(s, check[i], heap[2 * i + 1], heap[2 * i + 2]);
        if (memcmp(check, heap, (size_t)(n - 1) * MERKLE_HASH_LEN) != 0) st = MERKLE_ERR_VERIFY;
    }
    free(check);
    if (st != MERKLE_OK) {
        merkle_shape_tree_free(t);
        return st;
    }
    *out = t;
    return MERKLE_OK;
}

void merkle_shape_tree_root(uint8_t out[MERKLE_HASH_LEN], const merkle_shape_tree *t)
{
    memcpy(out, t->root, MERKLE_HASH_LEN);
}

uint64_t merkle_shape_tree_count(const merkle_shape_tree *t)
{
    return t->n;
}

static unsigned floor_log2(uint64_t g)
{
    return 63u - (unsigned)__builtin_clzll(g);
}

/* Node at gindex g of the data tree (no mix-in level). */
static merkle_status data_node(uint8_t out[MERKLE_HASH_LEN], const merkle_shape_tree *t, uint64_t g)
{
    unsigned d = floor_log2(g);
    if (d > t->depth) return MERKLE_ERR_RANGE;
    unsigned h = t->depth - d;
    uint64_t j = g - ((uint64_t)1 << d);
    if (t->n && j < t->cnt[h]) {
        memcpy(out, t->lv[h][j], MERKLE_HASH_LEN);
        return MERKLE_OK;
    }
    if (t->s.odd == MERKLE_SHAPE_ODD_PAD) {
        memcpy(out, t->z[h], MERKLE_HASH_LEN);
        return MERKLE_OK;
    }
    /* DUPLICATE: the missing right sibling at the end of an odd level is its left one. */
    if (t->s.odd == MERKLE_SHAPE_ODD_DUPLICATE && t->n && j == t->cnt[h] && (j & 1)) {
        memcpy(out, t->lv[h][j - 1], MERKLE_HASH_LEN);
        return MERKLE_OK;
    }
    return MERKLE_ERR_RANGE;
}

merkle_status merkle_shape_tree_node(uint8_t out[MERKLE_HASH_LEN], const merkle_shape_tree *t,
                                     uint64_t pos)
{
    if (!out || !t) return MERKLE_ERR_ARG;
    if (t->heap) {
        if (pos >= 2 * t->n - 1) return MERKLE_ERR_RANGE;
        memcpy(out, t->heap[pos], MERKLE_HASH_LEN);
        return MERKLE_OK;
    }
    if (pos == 0) return MERKLE_ERR_RANGE;
    if (pos == 1) {
        memcpy(out, t->root, MERKLE_HASH_LEN);
        return MERKLE_OK;
    }
    if (!(t->s.flags & MERKLE_SHAPE_MIX_IN_LENGTH)) return data_node(out, t, pos);
    if (pos == 3) {
        memset(out, 0, MERKLE_HASH_LEN);
        merkle__store_le64(out, t->n);
        return MERKLE_OK;
    }
    unsigned d = floor_log2(pos);
    if ((pos >> (d - 1)) != 2) return MERKLE_ERR_RANGE; /* not under gindex 2 */
    return data_node(out, t, pos - ((uint64_t)1 << d) + ((uint64_t)1 << (d - 1)));
}

merkle_status merkle_shape_tree_position(uint64_t *out, const merkle_shape_tree *t, uint64_t index)
{
    if (!out || !t) return MERKLE_ERR_ARG;
    if (index >= t->n) return MERKLE_ERR_RANGE;
    uint64_t k = t->rank ? t->rank[index] : index;
    if (t->heap) {
        *out = 2 * t->n - 2 - k;
        return MERKLE_OK;
    }
    unsigned d = t->depth + ((t->s.flags & MERKLE_SHAPE_MIX_IN_LENGTH) ? 1 : 0);
    if (d >= 64) return MERKLE_ERR_RANGE;
    *out = ((uint64_t)1 << d) + k;
    return MERKLE_OK;
}

merkle_status merkle_shape_tree_branch(uint8_t (*path)[MERKLE_HASH_LEN], size_t cap,
                                       size_t *path_len, const merkle_shape_tree *t, uint64_t pos)
{
    if (!path_len || !t || (cap && !path)) return MERKLE_ERR_ARG;
    if (!t->heap && t->s.odd == MERKLE_SHAPE_ODD_PROMOTE)
        return merkle__shape_tree_branch_promote(path, cap, path_len, t, pos);
    node_t tmp;
    merkle_status st = merkle_shape_tree_node(tmp, t, pos);
    if (st != MERKLE_OK) return st;
    size_t len = t->heap ? floor_log2(pos + 1) : floor_log2(pos);
    *path_len = len;
    if (cap < len) return MERKLE_ERR_BUFFER;
    for (size_t i = 0; i < len; i++) {
        if (t->heap) {
            st = merkle_shape_tree_node(path[i], t, (pos & 1) ? pos + 1 : pos - 1);
            pos = (pos - 1) / 2;
        } else {
            st = merkle_shape_tree_node(path[i], t, pos ^ 1);
            pos >>= 1;
        }
        if (st != MERKLE_OK) return st;
    }
    return MERKLE_OK;
}

merkle_status merkle_shape_verify(const merkle_shape *s, const uint8_t root[MERKLE_HASH_LEN],
                                  uint64_t pos, const uint8_t leaf[MERKLE_HASH_LEN],
                                  const uint8_t (*path)[MERKLE_HASH_LEN], size_t path_len,
                                  merkle_error *err)
{
    if (!root || !leaf || (path_len && !path))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    if (!merkle__shape_ok(s)) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid tree shape");
    int heap = s->layout == MERKLE_SHAPE_LAYOUT_HEAP;
    int sorted = (s->flags & MERKLE_SHAPE_SORTED_PAIRS) != 0;
    if (!sorted) {
        if (!heap && pos == 0)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0, "generalized index 0");
        size_t want = heap ? (pos == UINT64_MAX ? 64 : floor_log2(pos + 1)) : floor_log2(pos);
        if (path_len != want)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "the branch has %zu hashes, position %llu needs %zu", path_len,
                                (unsigned long long)pos, want);
    }
    node_t x;
    memcpy(x, leaf, MERKLE_HASH_LEN);
    for (size_t i = 0; i < path_len; i++) {
        int x_is_right = heap ? !(pos & 1) : (int)(pos & 1);
        if (x_is_right)
            merkle__shape_node2(s, x, path[i], x);
        else
            merkle__shape_node2(s, x, x, path[i]);
        pos = heap ? (pos - 1) / 2 : pos >> 1;
    }
    if (!merkle_ct_equal(x, root, MERKLE_HASH_LEN))
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0, "the branch does not lead to the root");
    return MERKLE_OK;
}
