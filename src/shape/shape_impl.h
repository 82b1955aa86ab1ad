/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Internal parts of the shaped trees (merkle/shape.h), shared by src/shape/: the layout of a
** merkle_shape_tree, built by shape_tree.c and read by shape_levels.c, multiproof.c and
** json.c, and the node hashing of shape.c. Never installed.
*/
#ifndef MERKLE_SHAPE_IMPL_H
#define MERKLE_SHAPE_IMPL_H

#include "common/internal.h"
#include "merkle/shape.h"
#include "tree/tree_impl.h"

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
** Errors as merkle_shape_tree_alloc. (shape_tree.c)
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

/* A valid merkle_shape (version, hash, flags, odd rule, layout and their combinations)? */
int merkle__shape_ok(const merkle_shape *s);
/* out[i] = node(in[2i], in[2i+1]) for i < npairs. in is not modified. */
void merkle__shape_pair_level(const merkle_shape *s, node_t *out, const node_t *in, size_t npairs);
/* out = node(l, r) (out may alias l or r). */
void merkle__shape_node2(const merkle_shape *s, uint8_t out[MERKLE_HASH_LEN],
                         const uint8_t l[MERKLE_HASH_LEN], const uint8_t r[MERKLE_HASH_LEN]);
/* MERKLE_SHAPE_MUTATED when one of the npairs pairs of in has two equal nodes (and the shape
** detects mutation), else 0. */
uint32_t merkle__shape_detect(const merkle_shape *s, const node_t *in, size_t npairs);
/* z[h] for h <= upto: the root of an all-zero subtree of height h. */
void merkle__shape_zero_roots(const merkle_shape *s, node_t *z, unsigned upto);
/* The lone last node x of level h moves up one level (by the shape's odd-node rule). */
void merkle__shape_lift(const merkle_shape *s, uint8_t x[MERKLE_HASH_LEN], node_t *z, unsigned h);
static inline unsigned merkle__shape_ceil_log2(uint64_t n)
{
    return n <= 1 ? 0 : 64u - (unsigned)__builtin_clzll(n - 1);
}
/* SORT_LEAVES: a sorted copy of nodes[0..n) and (*perm) sorted position -> input index. */
node_t *merkle__shape_sorted_copy(const node_t *nodes, uint64_t n, uint64_t **perm);
/* A HEAP array of 2n-1 nodes for the leaves nodes[0..n) (sorted first when the shape says). */
merkle_status merkle__shape_heap_alloc(node_t **out, uint64_t **perm, const merkle_shape *s,
                                       const node_t *nodes, uint64_t n);

/*
** A HEAP shape tree over a given array of 2n-1 nodes (taken over: freed on failure too) and
** the array position of each input leaf (tree_index[0..n), copied), as a loaded
** @openzeppelin/merkle-tree dump describes it. Checks every interior node against its
** children and that the positions are distinct leaf positions: MERKLE_ERR_VERIFY if not.
*/
merkle_status merkle__shape_tree_from_heap(merkle_shape_tree **out, const merkle_shape *shape,
                                           uint8_t (*heap)[MERKLE_HASH_LEN], uint64_t n,
                                           const uint64_t *tree_index);

#endif
