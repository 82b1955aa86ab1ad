/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** In-memory trees with every level kept (merkle/shape.h, src/shape/shape_levels.c): trees of
** the promoting profiles (rfc6962, sia) built from raw leaves or a buffer, their branches --
** one at a time and all at once -- against the streaming prover's audit paths
** (merkle_proof_inclusion_path) and merkle_proof_inclusion_verify for every size up to 70
** and a few larger ones; all-branches against one-branch-at-a-time for every other shape;
** the batched leaf-list hashing against one digest per leaf; and the error paths.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/proof.h"
#include "merkle/shape.h"
#include "testutil.h"
#include "tree/tree_impl.h"

typedef uint8_t node_t[32];

static const uint64_t k_sizes[] = { 127, 128, 129, 255, 256, 257, 1000, 1025, 4097 };

/* Random leaves: lengths all `fixed` (when not SIZE_MAX) or random in [0, 200). The leaves
** are the pieces of one buffer when `contiguous`, else separate allocations. */
typedef struct leafset {
    uint64_t n;
    uint8_t **own;
    const uint8_t **ptr;
    size_t *len;
    uint8_t *buf;
} leafset;

static void leafset_make(leafset *ls, tu_rng *r, uint64_t n, size_t fixed, int contiguous)
{
    ls->n = n;
    ls->own = calloc(n + 1, sizeof *ls->own);
    ls->ptr = calloc(n + 1, sizeof *ls->ptr);
    ls->len = calloc(n + 1, sizeof *ls->len);
    ls->buf = NULL;
    size_t total = 0;
    for (uint64_t i = 0; i < n; i++) {
        ls->len[i] = fixed != SIZE_MAX ? fixed : (size_t)tu_rng_below(r, 200);
        total += ls->len[i];
    }
    if (contiguous) {
        ls->buf = malloc(total + 1);
        tu_rng_fill(r, ls->buf, total);
        size_t at = 0;
        for (uint64_t i = 0; i < n; i++) {
            ls->ptr[i] = ls->buf + at;
            at += ls->len[i];
        }
        return;
    }
    for (uint64_t i = 0; i < n; i++) {
        ls->own[i] = malloc(ls->len[i] + 1);
        tu_rng_fill(r, ls->own[i], ls->len[i]);
        ls->ptr[i] = ls->len[i] || (i & 1) ? ls->own[i] : NULL; /* NULL for some empty leaves */
    }
}

static void leafset_free(leafset *ls)
{
    for (uint64_t i = 0; i < ls->n; i++) free(ls->own[i]);
    free(ls->own);
    free(ls->ptr);
    free(ls->len);
    free(ls->buf);
}

/* Leaf hashes one at a time (the reference). */
static node_t *ref_leaf_hashes(merkle_hash_alg hash, const leafset *ls)
{
    node_t *h = malloc((ls->n + 1) * 32);
    for (uint64_t i = 0; i < ls->n; i++)
        assert_int_equal(merkle_tree_leaf_hash(h[i], hash, ls->ptr[i], ls->len[i]), MERKLE_OK);
    return h;
}

/* Fold a promoting tree's branch of the node j at height h (n leaves) to the root. */
static void fold_promote(uint8_t out[32], merkle_hash_alg hash, uint64_t n, unsigned h, uint64_t j,
                         const uint8_t node[32], const node_t *path, size_t len)
{
    node_t x;
    memcpy(x, node, 32);
    uint64_t cnt = n;
    for (unsigned k = 0; k < h; k++) cnt = (cnt + 1) / 2;
    size_t used = 0;
    while (cnt > 1) {
        if ((j ^ 1) < cnt) {
            assert_true(used < len);
            if (j & 1)
                merkle_tree_node_hash(x, hash, path[used], x);
            else
                merkle_tree_node_hash(x, hash, x, path[used]);
            used++;
        }
        j >>= 1;
        cnt = (cnt + 1) / 2;
    }
    assert_int_equal(used, len);
    memcpy(out, x, 32);
}

/* The whole check of one promoting tree against the streaming prover. */
static void check_promote_tree(const merkle_shape *s, const merkle_shape_tree *t, const node_t *lh,
                               uint64_t n)
{
    merkle_hash_alg hash = s->hash;
    node_t root, want;
    merkle_shape_tree_root(root, t);
    assert_int_equal(merkle_shape_tree_count(t), n);
    if (n == 0) {
        assert_int_equal(merkle_tree_empty_root(want, s->profile, hash), MERKLE_OK);
        assert_memory_equal(root, want, 32);
    }
    size_t total = 0, cap = (size_t)n * 64 + 1;
    uint64_t *off = malloc((n + 1) * sizeof *off);
    node_t *all = malloc(cap * 32);
    assert_int_equal(merkle_shape_tree_branches(all, cap, &total, off, t), MERKLE_OK);
    assert_int_equal(off[0], 0);
    assert_int_equal(off[n], total);
    node_t path[64], br[64];
    /* The streaming prover takes O(n) per path: large trees check a spread of leaves (the
    ** first and last ones always). */
    uint64_t step = n > 300 ? n / 61 : 1;
    for (uint64_t i = 0; i < n; i = i + step < n || i == n - 1 ? i + step : n - 1) {
        size_t plen = 0, blen = 0;
        assert_int_equal(merkle_proof_inclusion_path(path, 64, &plen, want, hash, lh, n, i),
                         MERKLE_OK);
        assert_memory_equal(root, want, 32);
        uint64_t pos;
        assert_int_equal(merkle_shape_tree_position(&pos, t, i), MERKLE_OK);
        node_t leaf;
        assert_int_equal(merkle_shape_tree_node(leaf, t, pos), MERKLE_OK);
        assert_memory_equal(leaf, lh[i], 32);
        assert_int_equal(merkle_shape_tree_branch(br, 64, &blen, t, pos), MERKLE_OK);
        assert_int_equal(blen, plen);
        if (plen) assert_memory_equal(br, path, plen * 32);
        assert_int_equal(off[i + 1] - off[i], plen);
        if (plen) assert_memory_equal(all[off[i]], path, plen * 32);
        assert_int_equal(
            merkle_proof_inclusion_verify(hash, root, n, i, lh[i], (const node_t *)br, blen, NULL),
            MERKLE_OK);
        if (blen) {
            /* A branch one short is refused: the buffer rule reports the length. */
            size_t need = 0;
            assert_int_equal(merkle_shape_tree_branch(br, blen - 1, &need, t, pos),
                             MERKLE_ERR_BUFFER);
            assert_int_equal(need, blen);
        }
    }
    /* Interior nodes: every gindex of the tree folds to the root with its branch. */
    unsigned depth = 0;
    assert_int_equal(merkle_shape_depth(&depth, s, n), MERKLE_OK);
    for (unsigned d = 0; n && d <= depth; d++) {
        unsigned h = depth - d;
        for (uint64_t j = 0; j < ((uint64_t)1 << d) && j < 40; j++) {
            uint64_t g = ((uint64_t)1 << d) + j;
            node_t x, top;
            size_t blen = 0;
            merkle_status st = merkle_shape_tree_node(x, t, g);
            uint64_t cnt = n;
            for (unsigned k = 0; k < h; k++) cnt = (cnt + 1) / 2;
            if (j >= cnt) {
                assert_int_equal(st, MERKLE_ERR_RANGE);
                assert_int_equal(merkle_shape_tree_branch(br, 64, &blen, t, g), MERKLE_ERR_RANGE);
                continue;
            }
            assert_int_equal(st, MERKLE_OK);
            assert_int_equal(merkle_shape_tree_branch(br, 64, &blen, t, g), MERKLE_OK);
            fold_promote(top, hash, n, h, j, x, (const node_t *)br, blen);
            assert_memory_equal(top, root, 32);
        }
    }
    /* The size query and a short buffer. */
    size_t q = 0;
    assert_int_equal(merkle_shape_tree_branches(NULL, 0, &q, NULL, t),
                     total ? MERKLE_ERR_BUFFER : MERKLE_OK);
    assert_int_equal(q, total);
    free(off);
    free(all);
}

/* ------------------------------------------------------------------ promoting profiles */

static void promote_case(merkle_profile profile, merkle_hash_alg hash, uint64_t n, tu_rng *r,
                         size_t fixed, int contiguous)
{
    merkle_shape s;
    assert_int_equal(merkle_shape_init(&s, MERKLE_SHAPE_VERSION, profile), MERKLE_OK);
    s.hash = hash;
    leafset ls;
    leafset_make(&ls, r, n, fixed, contiguous);
    node_t *lh = ref_leaf_hashes(hash, &ls);

    merkle_shape_tree *t = NULL, *u = NULL;
    assert_int_equal(merkle_shape_tree_alloc_leaves(&t, &s, ls.ptr, ls.len, n, NULL), MERKLE_OK);
    assert_int_equal(merkle_shape_tree_alloc(&u, NULL, &s, (const node_t *)lh, n, NULL), MERKLE_OK);
    node_t a, b, c;
    merkle_shape_tree_root(a, t);
    merkle_shape_tree_root(b, u);
    assert_memory_equal(a, b, 32);
    assert_int_equal(merkle_tree_root_list(c, profile, hash, ls.ptr, ls.len, (size_t)n), MERKLE_OK);
    assert_memory_equal(a, c, 32);
    check_promote_tree(&s, t, (const node_t *)lh, n);
    merkle_shape_tree_free(t);
    merkle_shape_tree_free(u);
    leafset_free(&ls);
    free(lh);
}

static void test_promote_lists(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 30);
    static const struct {
        merkle_profile p;
        merkle_hash_alg h;
    } prof[] = { { MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256 },
                 { MERKLE_PROFILE_RFC6962, MERKLE_HASH_BLAKE2B_256 },
                 { MERKLE_PROFILE_SIA, MERKLE_HASH_BLAKE2B_256 } };
    for (size_t p = 0; p < sizeof prof / sizeof prof[0]; p++) {
        for (uint64_t n = 0; n <= 70; n++) {
            promote_case(prof[p].p, prof[p].h, n, &r, SIZE_MAX, 0);
            promote_case(prof[p].p, prof[p].h, n, &r, 64, (int)(n & 1));
        }
        for (size_t k = 0; k < sizeof k_sizes / sizeof k_sizes[0]; k++) {
            promote_case(prof[p].p, prof[p].h, k_sizes[k], &r, SIZE_MAX, (int)(k & 1));
            promote_case(prof[p].p, prof[p].h, k_sizes[k], &r, 32, 1);
            promote_case(prof[p].p, prof[p].h, k_sizes[k], &r, 0, 0);
        }
    }
}

/* A buffer cut into leaf_size leaves: the same tree as merkle_tree_root_bytes's. */
static void test_promote_bytes(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 31);
    uint8_t *buf = malloc(70 * 100 + 1);
    tu_rng_fill(&r, buf, 70 * 100);
    static const size_t leaf_sizes[] = { 1, 7, 64, 100, 4096 };
    for (size_t p = 0; p < 2; p++) {
        merkle_profile prof = p ? MERKLE_PROFILE_SIA : MERKLE_PROFILE_RFC6962;
        merkle_shape s;
        assert_int_equal(merkle_shape_init(&s, MERKLE_SHAPE_VERSION, prof), MERKLE_OK);
        for (size_t k = 0; k < sizeof leaf_sizes / sizeof leaf_sizes[0]; k++) {
            size_t ls = leaf_sizes[k];
            for (size_t len = 0; len <= 70 * 100; len += len < 300 ? 1 : 997) {
                merkle_shape_tree *t;
                assert_int_equal(merkle_shape_tree_alloc_bytes(&t, &s, ls, buf, len, NULL),
                                 MERKLE_OK);
                node_t a, b;
                merkle_shape_tree_root(a, t);
                assert_int_equal(merkle_tree_root_bytes(b, prof, s.hash, ls, buf, len), MERKLE_OK);
                assert_memory_equal(a, b, 32);
                uint64_t n = len / ls + (len % ls != 0);
                assert_int_equal(merkle_shape_tree_count(t), n);
                if (len % 97 == 3 || len < 20) {
                    node_t *lh = malloc((n + 1) * 32);
                    for (uint64_t i = 0; i < n; i++) {
                        size_t l = i + 1 < n || len % ls == 0 ? ls : len % ls;
                        assert_int_equal(merkle_tree_leaf_hash(lh[i], s.hash, buf + i * ls, l),
                                         MERKLE_OK);
                    }
                    check_promote_tree(&s, t, (const node_t *)lh, n);
                    free(lh);
                }
                merkle_shape_tree_free(t);
            }
        }
    }
    free(buf);
}

/* ------------------------------------------------------------------ the other shapes */

static void other_case(const merkle_shape *s, uint64_t n, tu_rng *r)
{
    node_t *v = malloc((n + 1) * 32);
    tu_rng_fill(r, (uint8_t *)v, (size_t)n * 32);
    if (n > 3) memcpy(v[n - 1], v[0], 32); /* a repeated leaf: sorted trees keep both */
    merkle_shape_tree *t = NULL;
    merkle_status st = merkle_shape_tree_alloc(&t, NULL, s, (const node_t *)v, n, NULL);
    if (s->layout == MERKLE_SHAPE_LAYOUT_HEAP && n == 0) {
        assert_int_equal(st, MERKLE_ERR_RANGE);
        free(v);
        return;
    }
    assert_int_equal(st, MERKLE_OK);
    size_t total = 0;
    merkle_status q = merkle_shape_tree_branches(NULL, 0, &total, NULL, t);
    assert_int_equal(q, total ? MERKLE_ERR_BUFFER : MERKLE_OK);
    node_t *all = malloc((total + 1) * 32);
    uint64_t *off = malloc((n + 1) * sizeof *off);
    size_t got = 0;
    assert_int_equal(merkle_shape_tree_branches(all, total, &got, off, t), MERKLE_OK);
    assert_int_equal(got, total);
    assert_int_equal(off[n], total);
    node_t root;
    merkle_shape_tree_root(root, t);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t pos;
        node_t br[70], leaf;
        size_t blen = 0;
        assert_int_equal(merkle_shape_tree_position(&pos, t, i), MERKLE_OK);
        assert_int_equal(merkle_shape_tree_branch(br, 70, &blen, t, pos), MERKLE_OK);
        assert_int_equal(off[i + 1] - off[i], blen);
        if (blen) assert_memory_equal(all[off[i]], br, blen * 32);
        assert_int_equal(merkle_shape_tree_node(leaf, t, pos), MERKLE_OK);
        assert_memory_equal(leaf, v[i], 32);
        assert_int_equal(merkle_shape_verify(s, root, pos, leaf, (const node_t *)br, blen, NULL),
                         MERKLE_OK);
    }
    merkle_shape_tree_free(t);
    free(all);
    free(off);
    free(v);
}

static void test_other_shapes(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 32);
    static const merkle_profile profs[] = { MERKLE_PROFILE_BITCOIN, MERKLE_PROFILE_SSZ,
                                            MERKLE_PROFILE_OPENZEPPELIN,
                                            MERKLE_PROFILE_BITTORRENT_V2 };
    for (size_t p = 0; p < sizeof profs / sizeof profs[0]; p++) {
        for (int variant = 0; variant < 3; variant++) {
            merkle_shape s;
            assert_int_equal(merkle_shape_init(&s, MERKLE_SHAPE_VERSION, profs[p]), MERKLE_OK);
            if (variant == 1 && profs[p] == MERKLE_PROFILE_SSZ)
                s.flags |= MERKLE_SHAPE_MIX_IN_LENGTH;
            if (variant == 2 && profs[p] == MERKLE_PROFILE_SSZ) s.limit = 5000;
            if (variant == 1 && profs[p] == MERKLE_PROFILE_OPENZEPPELIN) {
                s.layout = MERKLE_SHAPE_LAYOUT_LEVELS; /* sorted leaves and pairs by levels */
                s.odd = MERKLE_SHAPE_ODD_DUPLICATE;
            }
            if (variant == 2 && profs[p] == MERKLE_PROFILE_BITCOIN)
                s.flags &= ~(uint32_t)MERKLE_SHAPE_DETECT_MUTATION;
            for (uint64_t n = 0; n <= 40; n++) other_case(&s, n, &r);
            for (size_t k = 0; k < sizeof k_sizes / sizeof k_sizes[0]; k++)
                other_case(&s, k_sizes[k], &r);
        }
    }
}

/* ------------------------------------------------------------------ leaf lists */

static void test_leaf_list(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 33);
    static const merkle_hash_alg hashes[] = { MERKLE_HASH_SHA256, MERKLE_HASH_BLAKE2B_256,
                                              MERKLE_HASH_KECCAK256 };
    for (size_t h = 0; h < 3; h++) {
        for (int shape = 0; shape < 6; shape++) {
            uint64_t n = 1 + tu_rng_below(&r, 700);
            leafset ls;
            size_t fixed = shape == 0 ? SIZE_MAX : shape == 1 ? 0 : shape == 2 ? 64 : 300;
            leafset_make(&ls, &r, n, fixed, shape == 2 || shape == 3);
            if (shape == 4) /* alternating lengths: grouped by length within a window */
                for (uint64_t i = 0; i < n; i++) ls.len[i] = i & 1 ? 0 : (i % 3 ? 5 : 70);
            if (shape == 5) /* long equal runs between mixed stretches, decreasing lengths */
                for (uint64_t i = 0; i < n; i++) ls.len[i] = i % 100 < 50 ? 64 : 199 - i % 100;
            node_t *want = malloc((n + 1) * 32), *got = malloc((n + 1) * 32);
            for (uint64_t i = 0; i < n; i++) {
                merkle_hasher hs;
                assert_int_equal(merkle_hasher_init(&hs, hashes[h]), MERKLE_OK);
                merkle_hasher_update(&hs, "", 1);
                merkle_hasher_update(&hs, ls.ptr[i], ls.len[i]);
                merkle_hasher_final(&hs, want[i]);
            }
            memset(got, 0xa5, (size_t)n * 32);
            merkle__leaf_list(hashes[h], got, ls.ptr, ls.len, (size_t)n);
            for (uint64_t i = 0; i < n; i++) assert_memory_equal(got[i], want[i], 32);
            free(want);
            free(got);
            leafset_free(&ls);
        }
    }
}

/* root_list and compact_range_from_leaves (batched) against leaves pushed one at a time. */
static void test_list_roots(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 34);
    static const uint64_t begins[] = {
        0, 1, 3, 64, 127, 128, 1000, 4096, 5 << 20, UINT64_MAX - 5000
    };
    for (int round = 0; round < 60; round++) {
        uint64_t n = round < 20 ? (uint64_t)round : 1 + tu_rng_below(&r, 3000);
        merkle_hash_alg hash = round & 1 ? MERKLE_HASH_BLAKE2B_256 : MERKLE_HASH_SHA256;
        merkle_profile prof = round % 4 == 3 ? MERKLE_PROFILE_SIA : MERKLE_PROFILE_RFC6962;
        leafset ls;
        leafset_make(&ls, &r, n, round % 3 ? 64 : SIZE_MAX, round % 5 == 0);
        merkle_tree t;
        assert_int_equal(merkle_tree_init(&t, prof, hash, 1), MERKLE_OK);
        for (uint64_t i = 0; i < n; i++)
            assert_int_equal(merkle_tree_push_leaf(&t, ls.ptr[i], ls.len[i]), MERKLE_OK);
        node_t want, got;
        assert_int_equal(merkle_tree_root(want, NULL, &t), MERKLE_OK);
        assert_int_equal(merkle_tree_root_list(got, prof, hash, ls.ptr, ls.len, (size_t)n),
                         MERKLE_OK);
        assert_memory_equal(got, want, 32);
        for (size_t b = 0; b < sizeof begins / sizeof begins[0]; b++) {
            merkle_compact_range one, all;
            assert_int_equal(merkle_compact_range_init(&one, hash, begins[b]), MERKLE_OK);
            for (uint64_t i = 0; i < n; i++)
                assert_int_equal(merkle_compact_range_append_leaf(&one, ls.ptr[i], ls.len[i]),
                                 MERKLE_OK);
            assert_int_equal(
                merkle_compact_range_from_leaves(&all, hash, begins[b], ls.ptr, ls.len, (size_t)n),
                MERKLE_OK);
            assert_int_equal(all.begin, one.begin);
            assert_int_equal(all.end, one.end);
            assert_int_equal(all.count, one.count);
            for (uint32_t k = 0; k < one.count; k++) {
                assert_int_equal(all.heights[k], one.heights[k]);
                assert_memory_equal(all.hashes[k], one.hashes[k], 32);
            }
        }
        leafset_free(&ls);
    }
    /* Errors: a NULL leaf with a length, a range past 2^64 - 1. */
    const uint8_t *bad[2] = { (const uint8_t *)"x", NULL };
    size_t lens[2] = { 1, 1 };
    node_t out;
    merkle_compact_range cr;
    assert_int_equal(
        merkle_tree_root_list(out, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, bad, lens, 2),
        MERKLE_ERR_ARG);
    assert_int_equal(merkle_compact_range_from_leaves(&cr, MERKLE_HASH_SHA256, 0, bad, lens, 2),
                     MERKLE_ERR_ARG);
    assert_int_equal(
        merkle_compact_range_from_leaves(&cr, MERKLE_HASH_SHA256, UINT64_MAX - 1, bad, lens, 2),
        MERKLE_ERR_RANGE);
    assert_int_equal(
        merkle_tree_root_list(out, (merkle_profile)99, MERKLE_HASH_SHA256, bad, lens, 1),
        MERKLE_ERR_ARG);
}

/* ------------------------------------------------------------------ errors */

static void test_errors(void **state)
{
    (void)state;
    merkle_shape s, btc;
    assert_int_equal(merkle_shape_init(&s, MERKLE_SHAPE_VERSION, MERKLE_PROFILE_RFC6962),
                     MERKLE_OK);
    assert_int_equal(merkle_shape_init(&btc, MERKLE_SHAPE_VERSION, MERKLE_PROFILE_BITCOIN),
                     MERKLE_OK);
    const uint8_t *leaves[1] = { (const uint8_t *)"a" };
    size_t lens[1] = { 1 };
    merkle_shape_tree *t = (merkle_shape_tree *)&s;
    merkle_error e;
    assert_int_equal(merkle_shape_tree_alloc_leaves(&t, &btc, leaves, lens, 1, &e),
                     MERKLE_ERR_UNSUPPORTED);
    assert_null(t);
    assert_int_equal(merkle_shape_tree_alloc_bytes(&t, &btc, 1, "a", 1, &e),
                     MERKLE_ERR_UNSUPPORTED);
    assert_int_equal(merkle_shape_tree_alloc_leaves(NULL, &s, leaves, lens, 1, &e), MERKLE_ERR_ARG);
    assert_int_equal(merkle_shape_tree_alloc_leaves(&t, &s, NULL, lens, 1, &e), MERKLE_ERR_ARG);
    assert_int_equal(merkle_shape_tree_alloc_leaves(&t, &s, leaves, NULL, 1, &e), MERKLE_ERR_ARG);
    assert_int_equal(merkle_shape_tree_alloc_bytes(&t, &s, 0, "a", 1, &e), MERKLE_ERR_ARG);
    assert_int_equal(merkle_shape_tree_alloc_bytes(&t, &s, 1, NULL, 1, &e), MERKLE_ERR_ARG);
    merkle_shape bad = s;
    bad.version = 99;
    assert_int_equal(merkle_shape_tree_alloc_leaves(&t, &bad, leaves, lens, 1, &e), MERKLE_ERR_ARG);
    bad = s;
    bad.flags = 1u << 30; /* an unknown flag: refused by the tree builder */
    assert_int_equal(merkle_shape_tree_alloc_leaves(&t, &bad, leaves, lens, 1, &e), MERKLE_ERR_ARG);
    assert_null(t);

    assert_int_equal(merkle_shape_tree_alloc_leaves(&t, &s, leaves, lens, 1, &e), MERKLE_OK);
    size_t len = 7;
    uint64_t off[2];
    node_t out[1];
    assert_int_equal(merkle_shape_tree_branches(out, 1, NULL, off, t), MERKLE_ERR_ARG);
    assert_int_equal(merkle_shape_tree_branches(NULL, 1, &len, off, t), MERKLE_ERR_ARG);
    assert_int_equal(merkle_shape_tree_branches(out, 1, &len, off, NULL), MERKLE_ERR_ARG);
    assert_int_equal(merkle_shape_tree_branches(out, 1, &len, off, t), MERKLE_OK);
    assert_int_equal(len, 0); /* one leaf: the root itself, an empty branch */
    assert_int_equal(off[0], 0);
    assert_int_equal(off[1], 0);
    node_t br[2];
    assert_int_equal(merkle_shape_tree_branch(br, 2, &len, t, 0), MERKLE_ERR_RANGE);
    assert_int_equal(merkle_shape_tree_branch(br, 2, &len, t, 2), MERKLE_ERR_RANGE);
    assert_int_equal(merkle_shape_tree_branch(br, 2, &len, t, 1), MERKLE_OK);
    assert_int_equal(len, 0);
    merkle_shape_tree_free(t);

    /* The empty tree of each promoting profile has its profile's empty root. */
    for (int p = 0; p < 2; p++) {
        merkle_shape z;
        merkle_profile prof = p ? MERKLE_PROFILE_SIA : MERKLE_PROFILE_RFC6962;
        assert_int_equal(merkle_shape_init(&z, MERKLE_SHAPE_VERSION, prof), MERKLE_OK);
        assert_int_equal(merkle_shape_tree_alloc_leaves(&t, &z, NULL, NULL, 0, &e), MERKLE_OK);
        node_t a, b;
        merkle_shape_tree_root(a, t);
        assert_int_equal(merkle_tree_empty_root(b, prof, z.hash), MERKLE_OK);
        assert_memory_equal(a, b, 32);
        assert_int_equal(merkle_shape_tree_branches(NULL, 0, &len, off, t), MERKLE_OK);
        assert_int_equal(len, 0);
        uint64_t pos;
        assert_int_equal(merkle_shape_tree_position(&pos, t, 0), MERKLE_ERR_RANGE);
        merkle_shape_tree_free(t);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_promote_lists), cmocka_unit_test(test_promote_bytes),
        cmocka_unit_test(test_other_shapes),  cmocka_unit_test(test_leaf_list),
        cmocka_unit_test(test_list_roots),    cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
