/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Trees described by a merkle_shape (merkle/shape.h): Bitcoin, SSZ, OpenZeppelin,
** BitTorrent v2 and anything else made of the same parts.
**
** LEVELS roots are computed like merkle_tree does: level-0 nodes are taken in chunks of CH,
** each full chunk is reduced level by level (one batch call per level) into the root of a
** perfect subtree, and these roots merge like a binary counter. The odd-node rule only
** matters at the right edge of each level, which the finish step walks the way Bitcoin
** Core's old MerkleComputation did: the last chunk is lifted to chunk height with the rule,
** then the counter is completed level by level, pairing the lone node with itself
** (DUPLICATE), a zero root (PAD) or nothing (PROMOTE).
*/
#include <stdlib.h>
#include <string.h>

#include "merkle/shape.h"
#include "shape/shape_impl.h"
#include "tree/tree_impl.h"

#define CH      2048
#define CH_LOG2 11
#define BLK     128 /* pairs hashed per batch call where a scratch copy is needed */

size_t merkle_shape_struct_size(void)
{
    return sizeof(merkle_shape);
}

size_t merkle_shape_struct_align(void)
{
    return _Alignof(merkle_shape);
}

merkle_status merkle_shape_init(merkle_shape *s, uint32_t version, merkle_profile profile)
{
    if (!s || version != MERKLE_SHAPE_VERSION) return MERKLE_ERR_ARG;
    memset(s, 0, sizeof *s);
    s->version = MERKLE_SHAPE_VERSION;
    s->profile = profile;
    s->layout = MERKLE_SHAPE_LAYOUT_LEVELS;
    switch (profile) {
    case MERKLE_PROFILE_RFC6962:
    case MERKLE_PROFILE_SIA:
        s->hash = profile == MERKLE_PROFILE_SIA ? MERKLE_HASH_BLAKE2B_256 : MERKLE_HASH_SHA256;
        s->odd = MERKLE_SHAPE_ODD_PROMOTE;
        s->node_prefix_len = 1;
        s->node_prefix[0] = 0x01;
        return MERKLE_OK;
    case MERKLE_PROFILE_BITCOIN:
        s->hash = MERKLE_HASH_SHA256;
        s->odd = MERKLE_SHAPE_ODD_DUPLICATE;
        s->flags = MERKLE_SHAPE_DOUBLE_NODE | MERKLE_SHAPE_DETECT_MUTATION;
        return MERKLE_OK;
    case MERKLE_PROFILE_SSZ:
    case MERKLE_PROFILE_BITTORRENT_V2:
        s->hash = MERKLE_HASH_SHA256;
        s->odd = MERKLE_SHAPE_ODD_PAD;
        return MERKLE_OK;
    case MERKLE_PROFILE_OPENZEPPELIN:
        s->hash = MERKLE_HASH_KECCAK256;
        s->odd = MERKLE_SHAPE_ODD_PROMOTE; /* unused by the heap layout */
        s->layout = MERKLE_SHAPE_LAYOUT_HEAP;
        s->flags = MERKLE_SHAPE_SORTED_PAIRS | MERKLE_SHAPE_SORT_LEAVES;
        return MERKLE_OK;
    }
    return MERKLE_ERR_ARG;
}

static int shape_ok(const merkle_shape *s)
{
    if (!s || s->version != MERKLE_SHAPE_VERSION || !merkle_hash_alg_name(s->hash)) return 0;
    if (s->flags & ~MERKLE_SHAPE_FLAGS_ALL) return 0;
    if (s->odd < MERKLE_SHAPE_ODD_PROMOTE || s->odd > MERKLE_SHAPE_ODD_PAD) return 0;
    if (s->layout != MERKLE_SHAPE_LAYOUT_LEVELS && s->layout != MERKLE_SHAPE_LAYOUT_HEAP) return 0;
    if (s->node_prefix_len > 1) return 0;
    if (s->layout == MERKLE_SHAPE_LAYOUT_HEAP && (s->flags & MERKLE_SHAPE_MIX_IN_LENGTH)) return 0;
    if (s->limit && s->odd != MERKLE_SHAPE_ODD_PAD) return 0;
    return 1;
}

/* ------------------------------------------------------------------ node hashing */

/* out[i] = node(in[2i], in[2i+1]) for i < npairs. in is not modified. */
static void pair_level(const merkle_shape *s, node_t *out, const node_t *in, size_t npairs)
{
    const uint8_t *pre = s->node_prefix_len ? s->node_prefix : NULL;
    size_t pl = s->node_prefix_len;
    int sorted = (s->flags & MERKLE_SHAPE_SORTED_PAIRS) != 0;
    int dbl = (s->flags & MERKLE_SHAPE_DOUBLE_NODE) != 0;
    if (!sorted && !dbl) {
        (void)merkle_hash_batch_strided(out[0], s->hash, pre, pl, in[0], 64, 64, npairs);
        return;
    }
    node_t buf[2 * BLK], tmp[BLK];
    while (npairs) {
        size_t k = npairs < BLK ? npairs : BLK;
        const node_t *src = in;
        if (sorted) {
            for (size_t i = 0; i < k; i++) {
                size_t sw = (size_t)(memcmp(in[2 * i], in[2 * i + 1], MERKLE_HASH_LEN) > 0);
                memcpy(buf[2 * i], in[2 * i + sw], MERKLE_HASH_LEN);
                memcpy(buf[2 * i + 1], in[2 * i + 1 - sw], MERKLE_HASH_LEN);
            }
            src = (const node_t *)buf;
        }
        if (dbl) {
            (void)merkle_hash_batch_strided(tmp[0], s->hash, pre, pl, src[0], 64, 64, k);
            (void)merkle_hash_batch_strided(out[0], s->hash, NULL, 0, tmp[0], MERKLE_HASH_LEN,
                                            MERKLE_HASH_LEN, k);
        } else {
            (void)merkle_hash_batch_strided(out[0], s->hash, pre, pl, src[0], 64, 64, k);
        }
        in += 2 * k;
        out += k;
        npairs -= k;
    }
}

static void node2(const merkle_shape *s, uint8_t out[MERKLE_HASH_LEN],
                  const uint8_t l[MERKLE_HASH_LEN], const uint8_t r[MERKLE_HASH_LEN])
{
    node_t pair[2];
    memcpy(pair[0], l, MERKLE_HASH_LEN);
    memcpy(pair[1], r, MERKLE_HASH_LEN);
    pair_level(s, (node_t *)out, (const node_t *)pair, 1);
}

merkle_status merkle_shape_node(uint8_t out[MERKLE_HASH_LEN], const merkle_shape *s,
                                const uint8_t left[MERKLE_HASH_LEN],
                                const uint8_t right[MERKLE_HASH_LEN])
{
    if (!out || !left || !right || !shape_ok(s)) return MERKLE_ERR_ARG;
    node2(s, out, left, right);
    return MERKLE_OK;
}

/* Mutation: two equal nodes in one of the npairs pairs of in (Bitcoin Core's check). */
static uint32_t detect(const merkle_shape *s, const node_t *in, size_t npairs)
{
    if (!(s->flags & MERKLE_SHAPE_DETECT_MUTATION)) return 0;
    for (size_t i = 0; i < npairs; i++)
        if (memcmp(in[2 * i], in[2 * i + 1], MERKLE_HASH_LEN) == 0) return MERKLE_SHAPE_MUTATED;
    return 0;
}

/* z[h] for h <= upto: the root of an all-zero subtree of height h. */
static void zero_roots(const merkle_shape *s, node_t *z, unsigned upto)
{
    memset(z[0], 0, MERKLE_HASH_LEN);
    for (unsigned h = 0; h < upto; h++) node2(s, z[h + 1], z[h], z[h]);
}

/* The lone last node x of level h moves up one level. */
static void lift(const merkle_shape *s, uint8_t x[MERKLE_HASH_LEN], node_t *z, unsigned h)
{
    if (s->odd == MERKLE_SHAPE_ODD_DUPLICATE)
        node2(s, x, x, x);
    else if (s->odd == MERKLE_SHAPE_ODD_PAD)
        node2(s, x, x, z[h]);
}

static unsigned ceil_log2(uint64_t n)
{
    return n <= 1 ? 0 : 64u - (unsigned)__builtin_clzll(n - 1);
}

merkle_status merkle_shape_depth(unsigned *out, const merkle_shape *s, uint64_t n)
{
    if (!out || !shape_ok(s)) return MERKLE_ERR_ARG;
    if (s->layout == MERKLE_SHAPE_LAYOUT_HEAP) {
        /* Deepest leaf: position 2n-2, depth floor(log2(2n-1)). */
        *out = n <= 1 ? 0 : 63u - (unsigned)__builtin_clzll(2 * n - 1);
        return MERKLE_OK;
    }
    if (s->limit && s->limit < n) return MERKLE_ERR_RANGE;
    *out = ceil_log2(s->limit ? s->limit : n);
    return MERKLE_OK;
}

void merkle_shape_mix_in_length(uint8_t out[MERKLE_HASH_LEN], const uint8_t root[MERKLE_HASH_LEN],
                                uint64_t length)
{
    uint8_t buf[64];
    memcpy(buf, root, MERKLE_HASH_LEN);
    memset(buf + 32, 0, 32);
    merkle__store_le64(buf + 32, length);
    merkle_sha256_hash(out, buf, sizeof buf);
}

/* ------------------------------------------------------------------ LEVELS roots */

typedef struct lbuild {
    const merkle_shape *s;
    uint64_t count; /* leaves under the stack (a multiple of CH) */
    uint32_t flags;
    node_t stack[MERKLE_MAX_DEPTH];
    node_t lvl[CH + 1];
    node_t scr[CH / 2 + 1];
} lbuild;

/* Push the root x of a perfect subtree of 2^h leaves (count a multiple of 2^h). */
static void push_subtree(lbuild *b, unsigned h, const uint8_t x_in[MERKLE_HASH_LEN])
{
    node_t x;
    memcpy(x, x_in, MERKLE_HASH_LEN);
    unsigned l = h;
    while ((b->count >> l) & 1) {
        if ((b->s->flags & MERKLE_SHAPE_DETECT_MUTATION) &&
            memcmp(b->stack[l], x, MERKLE_HASH_LEN) == 0)
            b->flags |= MERKLE_SHAPE_MUTATED;
        node2(b->s, x, b->stack[l], x);
        l++;
    }
    memcpy(b->stack[l], x, MERKLE_HASH_LEN);
    b->count += (uint64_t)1 << h;
}

/* Reduce m >= 1 nodes in b->lvl with the odd rule; returns the height of the result lvl[0]. */
static unsigned reduce_chunk(lbuild *b, size_t m, node_t *z)
{
    node_t *src = b->lvl, *dst = b->scr;
    unsigned h = 0;
    while (m > 1) {
        size_t pairs = m / 2;
        b->flags |= detect(b->s, (const node_t *)src, pairs);
        if (m & 1) {
            if (b->s->odd == MERKLE_SHAPE_ODD_DUPLICATE) {
                memcpy(src[m], src[m - 1], MERKLE_HASH_LEN);
                pairs++;
            } else if (b->s->odd == MERKLE_SHAPE_ODD_PAD) {
                memcpy(src[m], z[h], MERKLE_HASH_LEN);
                pairs++;
            }
        }
        pair_level(b->s, dst, (const node_t *)src, pairs);
        if ((m & 1) && b->s->odd == MERKLE_SHAPE_ODD_PROMOTE)
            memcpy(dst[pairs], src[m - 1], MERKLE_HASH_LEN);
        m = (m + 1) / 2;
        node_t *t = src;
        src = dst;
        dst = t;
        h++;
    }
    if (src != b->lvl) memcpy(b->lvl[0], src[0], MERKLE_HASH_LEN);
    return h;
}

/* ------------------------------------------------------------------ streaming builder */

struct merkle_shape_builder {
    merkle_shape s;
    uint64_t n;     /* nodes pushed */
    size_t pending; /* nodes in b.lvl not yet reduced (< CH) */
    int finished;
    lbuild b;
};

static void builder_start(merkle_shape_builder *bd, const merkle_shape *s)
{
    bd->s = *s;
    bd->n = 0;
    bd->pending = 0;
    bd->finished = 0;
    bd->b.s = &bd->s;
    bd->b.count = 0;
    bd->b.flags = 0;
}

/* Append n nodes: full chunks straight from the caller's memory, the rest through lvl. */
static void builder_feed(merkle_shape_builder *bd, const node_t *nodes, uint64_t n)
{
    lbuild *b = &bd->b;
    const merkle_shape *s = &bd->s;
    bd->n += n;
    while (n) {
        if (bd->pending == 0 && n >= CH) {
            b->flags |= detect(s, nodes, CH / 2);
            pair_level(s, b->lvl, nodes, CH / 2);
            reduce_chunk(b, CH / 2, NULL);
            push_subtree(b, CH_LOG2, b->lvl[0]);
            nodes += CH;
            n -= CH;
            continue;
        }
        size_t take = CH - bd->pending;
        if (take > n) take = (size_t)n;
        memcpy(b->lvl[bd->pending], nodes, take * MERKLE_HASH_LEN);
        bd->pending += take;
        nodes += take;
        n -= take;
        if (bd->pending == CH) {
            reduce_chunk(b, CH, NULL);
            push_subtree(b, CH_LOG2, b->lvl[0]);
            bd->pending = 0;
        }
    }
}

/* The root (before the mix-in) of everything fed. */
static merkle_status builder_finish(merkle_shape_builder *bd, uint8_t out[MERKLE_HASH_LEN],
                                    uint32_t *flags)
{
    const merkle_shape *s = &bd->s;
    lbuild *b = &bd->b;
    uint64_t n = bd->n;
    unsigned depth;
    merkle_status st = merkle_shape_depth(&depth, s, n);
    if (st != MERKLE_OK) return st;
    node_t z[MERKLE_MAX_DEPTH + 1];
    if (s->odd == MERKLE_SHAPE_ODD_PAD) zero_roots(s, z, depth);
    if (n == 0) {
        if (s->odd == MERKLE_SHAPE_ODD_PAD)
            memcpy(out, z[depth], MERKLE_HASH_LEN);
        else if (merkle__profile_classic(s->profile))
            return merkle_tree_empty_root(out, s->profile, s->hash);
        else
            memset(out, 0, MERKLE_HASH_LEN);
        return MERKLE_OK;
    }
    node_t x;
    unsigned level;
    if (bd->pending) {
        unsigned h = reduce_chunk(b, bd->pending, z);
        memcpy(x, b->lvl[0], MERKLE_HASH_LEN);
        if (b->count == 0) {
            level = h;
            goto top;
        }
        for (; h < CH_LOG2; h++) lift(s, x, z, h);
        push_subtree(b, CH_LOG2, x);
    }
    /* Complete the counter: the lone node of each level pairs by the odd rule. */
    level = (unsigned)__builtin_ctzll(b->count);
    memcpy(x, b->stack[level], MERKLE_HASH_LEN);
    while (b->count != (uint64_t)1 << level) {
        lift(s, x, z, level);
        b->count += (uint64_t)1 << level;
        level++;
        while (!((b->count >> level) & 1)) {
            if ((s->flags & MERKLE_SHAPE_DETECT_MUTATION) &&
                memcmp(b->stack[level], x, MERKLE_HASH_LEN) == 0)
                b->flags |= MERKLE_SHAPE_MUTATED;
            node2(s, x, b->stack[level], x);
            level++;
        }
    }
top:
    if (s->odd == MERKLE_SHAPE_ODD_PAD)
        for (; level < depth; level++) lift(s, x, z, level);
    memcpy(out, x, MERKLE_HASH_LEN);
    if (flags) *flags |= b->flags;
    return MERKLE_OK;
}

/* Root of n level-0 nodes (before the mix-in), LEVELS layout. */
static merkle_status levels_root(uint8_t out[MERKLE_HASH_LEN], uint32_t *flags,
                                 const merkle_shape *s, const node_t *nodes, uint64_t n)
{
    unsigned depth;
    merkle_status st = merkle_shape_depth(&depth, s, n);
    if (st != MERKLE_OK) return st;
    merkle_shape_builder *bd = malloc(sizeof *bd);
    if (!bd) return MERKLE_ERR_NOMEM;
    builder_start(bd, s);
    builder_feed(bd, nodes, n);
    st = builder_finish(bd, out, flags);
    free(bd);
    return st;
}

merkle_status merkle_shape_builder_alloc(merkle_shape_builder **out, const merkle_shape *s,
                                         merkle_error *err)
{
    if (!out) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    *out = NULL;
    if (!shape_ok(s)) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid tree shape");
    if (s->layout != MERKLE_SHAPE_LAYOUT_LEVELS || (s->flags & MERKLE_SHAPE_SORT_LEAVES))
        return merkle__fail(err, MERKLE_ERR_UNSUPPORTED, 0, 0,
                            "a heap layout or sorted leaves need every leaf first");
    merkle_shape_builder *bd = malloc(sizeof *bd);
    if (!bd) return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    builder_start(bd, s);
    *out = bd;
    return MERKLE_OK;
}

void merkle_shape_builder_free(merkle_shape_builder *bd)
{
    free(bd);
}

merkle_status merkle_shape_builder_push(merkle_shape_builder *bd,
                                        const uint8_t (*nodes)[MERKLE_HASH_LEN], uint64_t n)
{
    if (!bd || (n && !nodes)) return MERKLE_ERR_ARG;
    if (bd->finished) return MERKLE_ERR_STATE;
    if (n > UINT64_MAX - bd->n || (bd->s.limit && bd->n + n > bd->s.limit)) return MERKLE_ERR_RANGE;
    builder_feed(bd, (const node_t *)nodes, n);
    return MERKLE_OK;
}

uint64_t merkle_shape_builder_count(const merkle_shape_builder *bd)
{
    return bd->n;
}

merkle_status merkle_shape_builder_root(uint8_t out[MERKLE_HASH_LEN], uint32_t *out_flags,
                                        merkle_shape_builder *bd)
{
    if (out_flags) *out_flags = 0;
    if (!out || !bd) return MERKLE_ERR_ARG;
    if (bd->finished) return MERKLE_ERR_STATE;
    bd->finished = 1;
    merkle_status st = builder_finish(bd, out, out_flags);
    if (st == MERKLE_OK && (bd->s.flags & MERKLE_SHAPE_MIX_IN_LENGTH))
        merkle_shape_mix_in_length(out, out, bd->n);
    return st;
}

/* ------------------------------------------------------------------ sorting, heap */

typedef struct keyed {
    uint64_t key; /* the node's first 8 bytes, big-endian: bytewise order */
    uint64_t i;   /* input index */
} keyed;

/* The nodes the tie comparator reads: qsort has no context argument, and the comparator
** runs in the calling thread, so a thread-local pointer is safe. */
static _Thread_local const node_t *g_sort_nodes;

static int cmp_tie(const void *a, const void *b)
{
    const keyed *x = (const keyed *)a, *y = (const keyed *)b;
    int c = memcmp(g_sort_nodes[x->i], g_sort_nodes[y->i], MERKLE_HASH_LEN);
    if (c) return c;
    return x->i < y->i ? -1 : x->i > y->i;
}

/*
** Stable bytewise sort of the nodes' indices: an LSD radix sort (8 passes of 8 bits) on the
** first 8 bytes, then runs of equal keys -- rare for hashes, all of them for repeated
** leaves -- sorted on the whole node and the input index.
*/
static keyed *sort_keys(const node_t *nodes, uint64_t n)
{
    keyed *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return NULL;
    }
    for (uint64_t i = 0; i < n; i++) {
        uint64_t k = 0;
        for (int j = 0; j < 8; j++) k = k << 8 | nodes[i][j];
        a[i].key = k;
        a[i].i = i;
    }
    for (unsigned shift = 0; shift < 64; shift += 8) {
        size_t count[257] = { 0 };
        for (uint64_t i = 0; i < n; i++) count[((a[i].key >> shift) & 255) + 1]++;
        if (count[((a[0].key >> shift) & 255) + 1] == n) continue; /* one bucket: nothing moves */
        for (int c = 0; c < 256; c++) count[c + 1] += count[c];
        for (uint64_t i = 0; i < n; i++) b[count[(a[i].key >> shift) & 255]++] = a[i];
        keyed *t = a;
        a = b;
        b = t;
    }
    free(b);
    for (uint64_t i = 0; i < n;) {
        uint64_t j = i + 1;
        while (j < n && a[j].key == a[i].key) j++;
        if (j - i > 1) {
            g_sort_nodes = nodes;
            qsort(a + i, (size_t)(j - i), sizeof *a, cmp_tie);
        }
        i = j;
    }
    return a;
}

/* Sorted copy of nodes (stable: equal nodes keep their input order); perm[k] = input index
** of sorted node k (perm may be NULL). */
static node_t *sorted_copy(const node_t *nodes, uint64_t n, uint64_t **perm)
{
    keyed *k = sort_keys(nodes, n);
    node_t *o = malloc((size_t)n * MERKLE_HASH_LEN);
    uint64_t *p = perm ? malloc((size_t)n * sizeof *p) : NULL;
    if (!k || !o || (perm && !p)) {
        free(k);
        free(o);
        free(p);
        return NULL;
    }
    for (uint64_t i = 0; i < n; i++) {
        memcpy(o[i], nodes[k[i].i], MERKLE_HASH_LEN);
        if (p) p[i] = k[i].i;
    }
    free(k);
    if (perm) *perm = p;
    return o;
}

/* Fill the interior of a heap array of N = 2n-1 nodes whose leaves are in place. */
static void heap_fill(const merkle_shape *s, node_t *tree, uint64_t n)
{
    if (n < 2) return;
    int64_t b = (int64_t)n - 2;
    while (b >= 0) {
        int64_t a = (b + 1) / 2;
        /* Children of [a, b] are [2a+1, 2b+2], all computed. */
        pair_level(s, tree + a, (const node_t *)tree + 2 * a + 1, (size_t)(b - a + 1));
        b = a - 1;
    }
}

static merkle_status heap_alloc(node_t **out, uint64_t **perm, const merkle_shape *s,
                                const node_t *nodes, uint64_t n)
{
    if (n == 0) return MERKLE_ERR_RANGE;
    if (n > ((uint64_t)SIZE_MAX / MERKLE_HASH_LEN) / 2) return MERKLE_ERR_NOMEM;
    uint64_t N = 2 * n - 1;
    node_t *tree = malloc((size_t)N * MERKLE_HASH_LEN);
    if (!tree) return MERKLE_ERR_NOMEM;
    const node_t *leaves = nodes;
    node_t *sorted = NULL;
    if (perm) *perm = NULL;
    if (s->flags & MERKLE_SHAPE_SORT_LEAVES) {
        sorted = sorted_copy(nodes, n, perm);
        if (!sorted) {
            free(tree);
            return MERKLE_ERR_NOMEM;
        }
        leaves = (const node_t *)sorted;
    }
    for (uint64_t i = 0; i < n; i++) memcpy(tree[N - 1 - i], leaves[i], MERKLE_HASH_LEN);
    free(sorted);
    heap_fill(s, tree, n);
    *out = tree;
    return MERKLE_OK;
}

merkle_status merkle_shape_root(uint8_t out[MERKLE_HASH_LEN], uint32_t *out_flags,
                                const merkle_shape *s, const uint8_t (*nodes)[MERKLE_HASH_LEN],
                                uint64_t n, merkle_error *err)
{
    if (out_flags) *out_flags = 0;
    if (!out || (n && !nodes)) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    if (!shape_ok(s)) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid tree shape");
    merkle_status st;
    if (s->layout == MERKLE_SHAPE_LAYOUT_HEAP) {
        node_t *tree;
        st = heap_alloc(&tree, NULL, s, nodes, n);
        if (st == MERKLE_ERR_RANGE)
            return merkle__fail(err, st, 0, 0, "a tree of this shape needs at least one leaf");
        if (st != MERKLE_OK) return merkle__fail(err, st, 0, 0, "out of memory");
        memcpy(out, tree[0], MERKLE_HASH_LEN);
        free(tree);
        return MERKLE_OK;
    }
    const node_t *src = nodes;
    node_t *sorted = NULL;
    if ((s->flags & MERKLE_SHAPE_SORT_LEAVES) && n > 1) {
        sorted = sorted_copy(nodes, n, NULL);
        if (!sorted) return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
        src = (const node_t *)sorted;
    }
    st = levels_root(out, out_flags, s, src, n);
    free(sorted);
    if (st == MERKLE_ERR_RANGE)
        return merkle__fail(err, st, 0, 0, "%llu leaves exceed the limit %llu",
                            (unsigned long long)n, (unsigned long long)s->limit);
    if (st != MERKLE_OK) return merkle__fail(err, st, 0, 0, "%s", merkle_strerror(st));
    if (s->flags & MERKLE_SHAPE_MIX_IN_LENGTH) merkle_shape_mix_in_length(out, out, n);
    return MERKLE_OK;
}

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
    if ((s->flags & MERKLE_SHAPE_MIX_IN_LENGTH) && t->depth >= 62) return MERKLE_ERR_RANGE;
    if (s->odd == MERKLE_SHAPE_ODD_PAD) zero_roots(s, t->z, t->depth);
    if (n == 0) {
        if (s->odd == MERKLE_SHAPE_ODD_PAD)
            memcpy(t->data_root, t->z[t->depth], MERKLE_HASH_LEN);
        else if (merkle__profile_classic(s->profile))
            return merkle_tree_empty_root(t->data_root, s->profile, s->hash);
        else
            memset(t->data_root, 0, MERKLE_HASH_LEN);
        return MERKLE_OK;
    }
    unsigned H = ceil_log2(n);
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
        *flags |= detect(s, (const node_t *)t->lv[h], (size_t)pairs);
        pair_level(s, t->lv[h + 1], (const node_t *)t->lv[h], (size_t)pairs);
        if (c & 1) {
            memcpy(t->lv[h + 1][pairs], t->lv[h][c - 1], MERKLE_HASH_LEN);
            lift(s, t->lv[h + 1][pairs], t->z, h);
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
    if (!shape_ok(s)) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid tree shape");
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
        st = heap_alloc(&t->heap, (s->flags & MERKLE_SHAPE_SORT_LEAVES) ? &t->perm : NULL, s,
                        (const node_t *)nodes, n);
        if (st == MERKLE_OK) memcpy(t->root, t->heap[0], MERKLE_HASH_LEN);
    } else {
        const node_t *src = (const node_t *)nodes;
        node_t *sorted = NULL;
        st = MERKLE_OK;
        if ((s->flags & MERKLE_SHAPE_SORT_LEAVES) && n) {
            sorted = sorted_copy((const node_t *)nodes, n, &t->perm);
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
        for (uint64_t i = 0; i < n - 1; i++) node2(s, check[i], heap[2 * i + 1], heap[2 * i + 2]);
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
    if (!shape_ok(s)) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid tree shape");
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
            node2(s, x, path[i], x);
        else
            node2(s, x, x, path[i]);
        pos = heap ? (pos - 1) / 2 : pos >> 1;
    }
    if (!merkle_ct_equal(x, root, MERKLE_HASH_LEN))
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0, "the branch does not lead to the root");
    return MERKLE_OK;
}

/* ------------------------------------------------------------------ gindex multiproofs */

static int cmp_u64_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x > y ? -1 : x < y;
}

/* Sorted (decreasing) helper set; *out allocated. */
static merkle_status helpers(uint64_t **out, size_t *out_len, const uint64_t *g, size_t n)
{
    if (n == 0 || !g) return MERKLE_ERR_ARG;
    size_t cap = n * 64;
    uint64_t *br = malloc(cap * sizeof *br), *pa = malloc(cap * sizeof *pa);
    uint64_t *in = malloc(n * sizeof *in);
    if (!br || !pa || !in) {
        free(br);
        free(pa);
        free(in);
        return MERKLE_ERR_NOMEM;
    }
    memcpy(in, g, n * sizeof *in);
    qsort(in, n, sizeof *in, cmp_u64_desc);
    size_t nb = 0, np = 0;
    merkle_status st = MERKLE_OK;
    for (size_t i = 0; i < n && st == MERKLE_OK; i++) {
        if (in[i] == 0 || (i && in[i] == in[i - 1])) st = MERKLE_ERR_ARG;
        for (uint64_t x = in[i]; x > 1; x >>= 1) {
            br[nb++] = x ^ 1;
            pa[np++] = x;
        }
    }
    if (st == MERKLE_OK) {
        qsort(br, nb, sizeof *br, cmp_u64_desc);
        qsort(pa, np, sizeof *pa, cmp_u64_desc);
        /* A gindex that is an ancestor of another is refused. */
        for (size_t i = 0; i < n && st == MERKLE_OK; i++)
            for (uint64_t x = in[i] >> 1; x >= 1 && st == MERKLE_OK; x >>= 1)
                if (bsearch(&x, in, n, sizeof *in, cmp_u64_desc)) st = MERKLE_ERR_ARG;
        size_t k = 0;
        /* Set difference, keeping the decreasing order and dropping duplicates. */
        size_t j = 0;
        for (size_t i = 0; i < nb && st == MERKLE_OK; i++) {
            if (i && br[i] == br[i - 1]) continue;
            while (j < np && pa[j] > br[i]) j++;
            if (j < np && pa[j] == br[i]) continue;
            br[k++] = br[i];
        }
        nb = k;
    }
    free(pa);
    free(in);
    if (st != MERKLE_OK) {
        free(br);
        return st;
    }
    *out = br;
    *out_len = nb;
    return MERKLE_OK;
}

merkle_status merkle_shape_helpers(uint64_t *out, size_t cap, size_t *out_len,
                                   const uint64_t *gindices, size_t n)
{
    if (!out_len || (cap && !out)) return MERKLE_ERR_ARG;
    uint64_t *h;
    size_t nh;
    merkle_status st = helpers(&h, &nh, gindices, n);
    if (st != MERKLE_OK) return st;
    *out_len = nh;
    if (cap < nh) {
        free(h);
        return MERKLE_ERR_BUFFER;
    }
    memcpy(out, h, nh * sizeof *h);
    free(h);
    return MERKLE_OK;
}

merkle_status merkle_shape_tree_multiproof(uint8_t (*proof)[MERKLE_HASH_LEN], size_t cap,
                                           size_t *proof_len, uint8_t (*leaves)[MERKLE_HASH_LEN],
                                           const merkle_shape_tree *t, const uint64_t *gindices,
                                           size_t n)
{
    if (!proof_len || !t || (cap && !proof) || t->heap) return MERKLE_ERR_ARG;
    uint64_t *h;
    size_t nh;
    merkle_status st = helpers(&h, &nh, gindices, n);
    if (st != MERKLE_OK) return st;
    *proof_len = nh;
    for (size_t i = 0; i < n && st == MERKLE_OK; i++) {
        node_t tmp;
        st = merkle_shape_tree_node(leaves ? leaves[i] : tmp, t, gindices[i]);
    }
    if (st == MERKLE_OK && cap < nh) st = MERKLE_ERR_BUFFER;
    for (size_t i = 0; i < nh && st == MERKLE_OK; i++)
        st = merkle_shape_tree_node(proof[i], t, h[i]);
    free(h);
    return st;
}

typedef struct gnode {
    uint64_t g;
    node_t h;
} gnode;

static int cmp_gnode_desc(const void *a, const void *b)
{
    return cmp_u64_desc(&((const gnode *)a)->g, &((const gnode *)b)->g);
}

merkle_status merkle_shape_multiproof_verify(const merkle_shape *s,
                                             const uint8_t root[MERKLE_HASH_LEN],
                                             const uint64_t *gindices,
                                             const uint8_t (*leaves)[MERKLE_HASH_LEN], size_t n,
                                             const uint8_t (*proof)[MERKLE_HASH_LEN],
                                             size_t proof_len, merkle_error *err)
{
    if (!root || !gindices || !leaves || (proof_len && !proof))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    if (!shape_ok(s) || s->layout != MERKLE_SHAPE_LAYOUT_LEVELS)
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid tree shape");
    uint64_t *h;
    size_t nh;
    merkle_status st = helpers(&h, &nh, gindices, n);
    if (st == MERKLE_ERR_ARG)
        return merkle__fail(err, st, 0, 0,
                            "generalized indices must be non-zero, distinct, "
                            "and none an ancestor of another");
    if (st != MERKLE_OK) return merkle__fail(err, st, 0, 0, "out of memory");
    if (nh != proof_len) {
        free(h);
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "the proof has %zu hashes, these indices need %zu", proof_len, nh);
    }
    size_t total = n + nh;
    gnode *a = malloc(total * sizeof *a), *q = malloc(total * sizeof *q);
    if (!a || !q) {
        free(h);
        free(a);
        free(q);
        return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        a[i].g = gindices[i];
        memcpy(a[i].h, leaves[i], MERKLE_HASH_LEN);
    }
    for (size_t i = 0; i < nh; i++) {
        a[n + i].g = h[i];
        memcpy(a[n + i].h, proof[i], MERKLE_HASH_LEN);
    }
    free(h);
    qsort(a, total, sizeof *a, cmp_gnode_desc);
    /* Merge the known nodes (decreasing) with the computed ones (queue, non-increasing). */
    size_t ai = 0, qh = 0, qt = 0;
    st = MERKLE_OK;
    node_t result;
    for (;;) {
        gnode *x;
        if (ai < total && (qh == qt || a[ai].g > q[qh].g))
            x = &a[ai++];
        else if (qh < qt)
            x = &q[qh++];
        else {
            st = MERKLE_ERR_VERIFY;
            break;
        }
        if (x->g == 1) {
            memcpy(result, x->h, MERKLE_HASH_LEN);
            if (ai != total || qh != qt) st = MERKLE_ERR_VERIFY;
            break;
        }
        gnode *y;
        if (ai < total && (qh == qt || a[ai].g > q[qh].g))
            y = &a[ai++];
        else if (qh < qt)
            y = &q[qh++];
        else {
            st = MERKLE_ERR_VERIFY;
            break;
        }
        if (!(x->g & 1) || y->g != x->g - 1) {
            st = MERKLE_ERR_VERIFY;
            break;
        }
        gnode p;
        p.g = x->g >> 1;
        node2(s, p.h, y->h, x->h);
        q[qt++] = p;
    }
    free(a);
    free(q);
    if (st != MERKLE_OK) return merkle__fail(err, st, 0, 0, "the proof nodes do not form a tree");
    if (!merkle_ct_equal(result, root, MERKLE_HASH_LEN))
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "the multiproof does not lead to the root");
    return MERKLE_OK;
}

/* ------------------------------------------------------------------ flag multiproofs */

merkle_status merkle_shape_tree_flag_multiproof(uint8_t (*leaves)[MERKLE_HASH_LEN],
                                                uint8_t (*proof)[MERKLE_HASH_LEN],
                                                size_t *proof_len, uint8_t *flags,
                                                size_t *flags_len, size_t cap,
                                                const merkle_shape_tree *t, const uint64_t *pos,
                                                size_t n)
{
    if (!proof_len || !flags_len || !t || !t->heap || (n && !pos)) return MERKLE_ERR_ARG;
    if (cap && (!leaves || !proof || !flags)) return MERKLE_ERR_ARG;
    uint64_t N = 2 * t->n - 1;
    uint64_t *q = malloc((n + (size_t)N + 1) * sizeof *q);
    if (!q) return MERKLE_ERR_NOMEM;
    memcpy(q, pos, n * sizeof *q);
    qsort(q, n, sizeof *q, cmp_u64_desc);
    merkle_status st = MERKLE_OK;
    for (size_t i = 0; i < n; i++)
        if (q[i] >= N || q[i] < t->n - 1 || (i && q[i] == q[i - 1])) st = MERKLE_ERR_ARG;
    if (st != MERKLE_OK) {
        free(q);
        return st;
    }
    if (n > cap) st = MERKLE_ERR_BUFFER;
    for (size_t i = 0; i < n && st == MERKLE_OK; i++)
        memcpy(leaves[i], t->heap[q[i]], MERKLE_HASH_LEN);
    size_t head = 0, tail = n, np = 0, nf = 0;
    while (tail > head && q[head] > 0) {
        uint64_t j = q[head++];
        uint64_t sib = (j & 1) ? j + 1 : j - 1, par = (j - 1) / 2;
        if (tail > head && q[head] == sib) {
            if (nf < cap) flags[nf] = 1;
            nf++;
            head++;
        } else {
            if (nf < cap) flags[nf] = 0;
            nf++;
            if (np < cap) memcpy(proof[np], t->heap[sib], MERKLE_HASH_LEN);
            np++;
        }
        q[tail++] = par;
    }
    if (n == 0) {
        if (np < cap) memcpy(proof[np], t->heap[0], MERKLE_HASH_LEN);
        np++;
    }
    free(q);
    *proof_len = np;
    *flags_len = nf;
    if (st == MERKLE_OK && (np > cap || nf > cap)) st = MERKLE_ERR_BUFFER;
    return st;
}

merkle_status merkle_shape_flag_multiproof_verify(const merkle_shape *s,
                                                  const uint8_t root[MERKLE_HASH_LEN],
                                                  const uint8_t (*leaves)[MERKLE_HASH_LEN],
                                                  size_t n, const uint8_t (*proof)[MERKLE_HASH_LEN],
                                                  size_t proof_len, const uint8_t *flags,
                                                  size_t flags_len, merkle_error *err)
{
    if (!root || (n && !leaves) || (proof_len && !proof) || (flags_len && !flags))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    if (!shape_ok(s)) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid tree shape");
    if (n + proof_len != flags_len + 1)
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "%zu leaves and %zu proof hashes do not fit %zu flags", n, proof_len,
                            flags_len);
    node_t *q = malloc((n + flags_len + 1) * MERKLE_HASH_LEN);
    if (!q) return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    if (n) memcpy(q, leaves, n * MERKLE_HASH_LEN);
    size_t head = 0, tail = n, pi = 0;
    merkle_status st = MERKLE_OK;
    for (size_t i = 0; i < flags_len && st == MERKLE_OK; i++) {
        if (head == tail) {
            st = MERKLE_ERR_VERIFY;
            break;
        }
        const uint8_t *a = q[head++], *b;
        if (flags[i]) {
            if (head == tail) {
                st = MERKLE_ERR_VERIFY;
                break;
            }
            b = q[head++];
        } else {
            if (pi == proof_len) {
                st = MERKLE_ERR_VERIFY;
                break;
            }
            b = proof[pi++];
        }
        node2(s, q[tail++], a, b);
    }
    node_t result;
    if (st == MERKLE_OK) {
        if (tail - head + (proof_len - pi) != 1)
            st = MERKLE_ERR_VERIFY;
        else
            memcpy(result, tail > head ? q[tail - 1] : proof[pi], MERKLE_HASH_LEN);
    }
    free(q);
    if (st != MERKLE_OK)
        return merkle__fail(err, st, 0, 0, "the flags do not match the leaves and proof");
    if (!merkle_ct_equal(result, root, MERKLE_HASH_LEN))
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "the multiproof does not lead to the root");
    return MERKLE_OK;
}
