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

#include "shape/shape_impl.h"

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

int merkle__shape_ok(const merkle_shape *s)
{
    if (!s || s->version != MERKLE_SHAPE_VERSION || !merkle__tree_hash_ok(s->hash)) return 0;
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
void merkle__shape_pair_level(const merkle_shape *s, node_t *out, const node_t *in, size_t npairs)
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

void merkle__shape_node2(const merkle_shape *s, uint8_t out[MERKLE_HASH_LEN],
                         const uint8_t l[MERKLE_HASH_LEN], const uint8_t r[MERKLE_HASH_LEN])
{
    node_t pair[2];
    memcpy(pair[0], l, MERKLE_HASH_LEN);
    memcpy(pair[1], r, MERKLE_HASH_LEN);
    merkle__shape_pair_level(s, (node_t *)out, (const node_t *)pair, 1);
}

merkle_status merkle_shape_node(uint8_t out[MERKLE_HASH_LEN], const merkle_shape *s,
                                const uint8_t left[MERKLE_HASH_LEN],
                                const uint8_t right[MERKLE_HASH_LEN])
{
    if (!out || !left || !right || !merkle__shape_ok(s)) return MERKLE_ERR_ARG;
    merkle__shape_node2(s, out, left, right);
    return MERKLE_OK;
}

/* Mutation: two equal nodes in one of the npairs pairs of in (Bitcoin Core's check). */
uint32_t merkle__shape_detect(const merkle_shape *s, const node_t *in, size_t npairs)
{
    if (!(s->flags & MERKLE_SHAPE_DETECT_MUTATION)) return 0;
    for (size_t i = 0; i < npairs; i++)
        if (memcmp(in[2 * i], in[2 * i + 1], MERKLE_HASH_LEN) == 0) return MERKLE_SHAPE_MUTATED;
    return 0;
}

/* z[h] for h <= upto: the root of an all-zero subtree of height h. */
void merkle__shape_zero_roots(const merkle_shape *s, node_t *z, unsigned upto)
{
    memset(z[0], 0, MERKLE_HASH_LEN);
    for (unsigned h = 0; h < upto; h++) merkle__shape_node2(s, z[h + 1], z[h], z[h]);
}

/* The lone last node x of level h moves up one level. */
void merkle__shape_lift(const merkle_shape *s, uint8_t x[MERKLE_HASH_LEN], node_t *z, unsigned h)
{
    if (s->odd == MERKLE_SHAPE_ODD_DUPLICATE)
        merkle__shape_node2(s, x, x, x);
    else if (s->odd == MERKLE_SHAPE_ODD_PAD)
        merkle__shape_node2(s, x, x, z[h]);
}

merkle_status merkle_shape_depth(unsigned *out, const merkle_shape *s, uint64_t n)
{
    if (!out || !merkle__shape_ok(s)) return MERKLE_ERR_ARG;
    if (s->layout == MERKLE_SHAPE_LAYOUT_HEAP) {
        /* Deepest leaf: position 2n-2, depth floor(log2(2n-1)). */
        *out = n <= 1 ? 0 : 63u - (unsigned)__builtin_clzll(2 * n - 1);
        return MERKLE_OK;
    }
    if (s->limit && s->limit < n) return MERKLE_ERR_RANGE;
    *out = merkle__shape_ceil_log2(s->limit ? s->limit : n);
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
        merkle__shape_node2(b->s, x, b->stack[l], x);
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
        b->flags |= merkle__shape_detect(b->s, (const node_t *)src, pairs);
        if (m & 1) {
            if (b->s->odd == MERKLE_SHAPE_ODD_DUPLICATE) {
                memcpy(src[m], src[m - 1], MERKLE_HASH_LEN);
                pairs++;
            } else if (b->s->odd == MERKLE_SHAPE_ODD_PAD) {
                memcpy(src[m], z[h], MERKLE_HASH_LEN);
                pairs++;
            }
        }
        merkle__shape_pair_level(b->s, dst, (const node_t *)src, pairs);
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
            b->flags |= merkle__shape_detect(s, nodes, CH / 2);
            merkle__shape_pair_level(s, b->lvl, nodes, CH / 2);
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
    if (s->odd == MERKLE_SHAPE_ODD_PAD) merkle__shape_zero_roots(s, z, depth);
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
        for (; h < CH_LOG2; h++) merkle__shape_lift(s, x, z, h);
        push_subtree(b, CH_LOG2, x);
    }
    /* Complete the counter: the lone node of each level pairs by the odd rule. */
    level = (unsigned)__builtin_ctzll(b->count);
    memcpy(x, b->stack[level], MERKLE_HASH_LEN);
    while (b->count != (uint64_t)1 << level) {
        merkle__shape_lift(s, x, z, level);
        b->count += (uint64_t)1 << level;
        level++;
        while (!((b->count >> level) & 1)) {
            if ((s->flags & MERKLE_SHAPE_DETECT_MUTATION) &&
                memcmp(b->stack[level], x, MERKLE_HASH_LEN) == 0)
                b->flags |= MERKLE_SHAPE_MUTATED;
            merkle__shape_node2(s, x, b->stack[level], x);
            level++;
        }
    }
top:
    if (s->odd == MERKLE_SHAPE_ODD_PAD)
        for (; level < depth; level++) merkle__shape_lift(s, x, z, level);
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
    if (!merkle__shape_ok(s)) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid tree shape");
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
node_t *merkle__shape_sorted_copy(const node_t *nodes, uint64_t n, uint64_t **perm)
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
        merkle__shape_pair_level(s, tree + a, (const node_t *)tree + 2 * a + 1,
                                 (size_t)(b - a + 1));
        b = a - 1;
    }
}

merkle_status merkle__shape_heap_alloc(node_t **out, uint64_t **perm, const merkle_shape *s,
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
        sorted = merkle__shape_sorted_copy(nodes, n, perm);
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
    if (!merkle__shape_ok(s)) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid tree shape");
    merkle_status st;
    if (s->layout == MERKLE_SHAPE_LAYOUT_HEAP) {
        node_t *tree;
        st = merkle__shape_heap_alloc(&tree, NULL, s, nodes, n);
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
        sorted = merkle__shape_sorted_copy(nodes, n, NULL);
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
