/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Internal layout of a merkle_shape_tree (merkle/shape.h), shared by the shape code that
** builds it (shape.c) and the bulk queries over its levels (shape_levels.c).
*/
#ifndef MERKLE_SHAPE_IMPL_H
#define MERKLE_SHAPE_IMPL_H

#include "merkle/shape.h"

typedef uint8_t node_t[MERKLE_HASH_LEN];

/*
** LEVELS trees keep every level: lv[0] holds the n level-0 nodes (sorted with SORT_LEAVES),
** lv[h + 1][j] = node(lv[h][2j], lv[h][2j + 1]), and the last node of an odd level moves up by
** the odd rule (PROMOTE: unchanged, so a promoted node sits at several heights). cnt[h] is
** the number of nodes at height h; a padded tree above ceil(log2 n) has one node per level.
** All levels share one allocation, lv[0] being its start.
** HEAP trees keep the 2n-1 array instead.
*/
struct merkle_shape_tree {
    merkle_shape s;
    uint64_t n;
    uint64_t *perm; /* sorted position -> input index (SORT_LEAVES), else NULL */
    uint64_t *rank; /* input index -> sorted position */
    /* LEVELS */
    unsigned depth; /* data tree depth (with padding) */
    uint64_t cnt[MERKLE_MAX_DEPTH + 1];
    node_t *lv[MERKLE_MAX_DEPTH + 1];
    node_t z[MERKLE_MAX_DEPTH + 1];
    node_t data_root, root;
    /* HEAP */
    node_t *heap;
};

/* Writes the n level-0 nodes of a tree being built into out[0..n). */
typedef void (*merkle__shape_fill_fn)(void *ctx, node_t *out);

/*
** merkle_shape_tree_alloc whose level-0 nodes fill writes straight into the tree's level 0
** (one copy less for a LEVELS tree; sorted and heap trees take them through a buffer).
** Errors as merkle_shape_tree_alloc. (shape.c)
*/
merkle_status merkle__shape_tree_alloc_fill(merkle_shape_tree **out, const merkle_shape *s,
                                            uint64_t n, merkle__shape_fill_fn fill, void *ctx,
                                            merkle_error *err);

/*
** Branch of gindex pos in a LEVELS tree with the PROMOTE rule: the siblings that exist from
** the node up to the root (a promoted node has none at that height), which for a leaf is the
** RFC 6962 audit path. Buffer rules of merkle_shape_tree_branch. (shape_levels.c)
*/
merkle_status merkle__shape_tree_branch_promote(uint8_t (*path)[MERKLE_HASH_LEN], size_t cap,
                                                size_t *path_len, const merkle_shape_tree *t,
                                                uint64_t pos);

#endif
