/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Shaped trees (merkle/shape.h): the peers' vectors (bitcoin.json, ssz.json; openzeppelin and
** merkletreejs are in test_shape_oz.c), the chunked
** root against a naive level-by-level reference built on OpenSSL (no library code) for every
** odd-node rule and many sizes, the whole-tree object against the chunked root, branches and
** multiproofs round-tripped and tampered with, and the error paths.
*/
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/shape.h"
#include "shape_util.h"
#include "testutil.h"

/* ------------------------------------------------------------------ helpers */

static void ref_sha256(uint8_t out[32], const void *a, size_t alen, const void *b, size_t blen)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    EVP_DigestUpdate(ctx, a, alen);
    EVP_DigestUpdate(ctx, b, blen);
    EVP_DigestFinal_ex(ctx, out, NULL);
    EVP_MD_CTX_free(ctx);
}

/* Reference node for SHA-256 shapes: [0x01 prefix] H(l || r), doubled for bitcoin. */
static void ref_node(const merkle_shape *s, uint8_t out[32], const uint8_t l[32],
                     const uint8_t r[32])
{
    uint8_t buf[65];
    size_t o = 0;
    if (s->node_prefix_len) buf[o++] = s->node_prefix[0];
    memcpy(buf + o, l, 32);
    memcpy(buf + o + 32, r, 32);
    ref_sha256(out, buf, o + 64, NULL, 0);
    if (s->flags & MERKLE_SHAPE_DOUBLE_NODE) ref_sha256(out, out, 32, NULL, 0);
}

/* Naive reference root: level by level over a copy, with the odd rule. */
static void ref_root(const merkle_shape *s, uint8_t out[32], const node_t *nodes, size_t n,
                     uint32_t *mutated)
{
    *mutated = 0;
    size_t depth = 0;
    uint64_t w = s->limit ? s->limit : n;
    while (((uint64_t)1 << depth) < w) depth++;
    node_t z[65];
    memset(z[0], 0, 32);
    for (int h = 0; h < 64; h++) ref_node(s, z[h + 1], z[h], z[h]);
    if (n == 0) {
        if (s->odd == MERKLE_SHAPE_ODD_PAD)
            memcpy(out, z[depth], 32);
        else
            memset(out, 0, 32);
        return;
    }
    node_t *lv = malloc((n + 1) * 32);
    memcpy(lv, nodes, n * 32);
    size_t h = 0;
    while (n > 1 || (s->odd == MERKLE_SHAPE_ODD_PAD && h < depth)) {
        if (n & 1) {
            if (s->odd == MERKLE_SHAPE_ODD_DUPLICATE) memcpy(lv[n], lv[n - 1], 32);
            if (s->odd == MERKLE_SHAPE_ODD_PAD) memcpy(lv[n], z[h], 32);
        }
        size_t m = 0;
        for (size_t i = 0; i < n; i += 2, m++) {
            if (i + 1 < n && memcmp(lv[i], lv[i + 1], 32) == 0) *mutated = MERKLE_SHAPE_MUTATED;
            if (i + 1 == n && s->odd == MERKLE_SHAPE_ODD_PROMOTE)
                memcpy(lv[m], lv[i], 32);
            else
                ref_node(s, lv[m], lv[i], lv[i + 1]);
        }
        n = m;
        h++;
    }
    memcpy(out, lv[0], 32);
    free(lv);
}

/* ------------------------------------------------------------------ bitcoin */

static void check_bitcoin_tree(const json *t)
{
    merkle_shape s = shape_of(MERKLE_PROFILE_BITCOIN);
    size_t n;
    node_t *tx = hex_list(json_get(t, "txids"), &n, 1);
    uint8_t want[32], root[32];
    hex32(want, json_get_str(t, "root"), 1);
    int mutated = json_get(t, "mutated")->boolean;
    uint32_t flags = 99;
    assert_int_equal(merkle_shape_root(root, &flags, &s, (const node_t *)tx, n, NULL), MERKLE_OK);
    assert_memory_equal(root, want, 32);
    assert_int_equal(flags, mutated ? MERKLE_SHAPE_MUTATED : 0);

    merkle_shape_tree *tree;
    assert_int_equal(merkle_shape_tree_alloc(&tree, &flags, &s, (const node_t *)tx, n, NULL),
                     MERKLE_OK);
    assert_int_equal(flags, mutated ? MERKLE_SHAPE_MUTATED : 0);
    merkle_shape_tree_root(root, tree);
    assert_memory_equal(root, want, 32);

    const json *proofs = json_get(t, "proofs");
    for (size_t k = 0; proofs && k < proofs->len; k++) {
        const json *p = json_at(proofs, k);
        uint64_t index = (uint64_t)json_get(p, "index")->integer;
        size_t bl;
        node_t *branch = hex_list(json_get(p, "branch"), &bl, 1);
        uint64_t pos;
        assert_int_equal(merkle_shape_tree_position(&pos, tree, index), MERKLE_OK);
        node_t path[64];
        size_t len;
        assert_int_equal(merkle_shape_tree_branch(path, 64, &len, tree, pos), MERKLE_OK);
        assert_int_equal(len, bl);
        if (bl) assert_memory_equal(path, branch, bl * 32);
        assert_int_equal(
            merkle_shape_verify(&s, want, pos, tx[index], (const node_t *)path, len, NULL),
            MERKLE_OK);
        /* Tampering: another leaf, a flipped path byte, a short path, another position. */
        uint8_t other[32];
        memcpy(other, tx[index], 32);
        other[0] ^= 1;
        assert_int_equal(merkle_shape_verify(&s, want, pos, other, (const node_t *)path, len, NULL),
                         MERKLE_ERR_VERIFY);
        if (len) {
            path[len - 1][31] ^= 0x80;
            assert_int_equal(
                merkle_shape_verify(&s, want, pos, tx[index], (const node_t *)path, len, NULL),
                MERKLE_ERR_VERIFY);
            path[len - 1][31] ^= 0x80;
            assert_int_equal(
                merkle_shape_verify(&s, want, pos, tx[index], (const node_t *)path, len - 1, NULL),
                MERKLE_ERR_VERIFY);
            /* The neighbour's position: fails unless the sibling is the leaf itself. */
            assert_int_equal(
                merkle_shape_verify(&s, want, pos ^ 1, tx[index], (const node_t *)path, len, NULL),
                memcmp(path[0], tx[index], 32) == 0 ? MERKLE_OK : MERKLE_ERR_VERIFY);
        }
        free(branch);
    }
    merkle_shape_tree_free(tree);
    free(tx);
}

static void test_bitcoin_vectors(void **state)
{
    (void)state;
    json *v = tu_load_vectors("bitcoin.json");
    const json *blocks = json_get(v, "blocks"), *syn = json_get(v, "synthetic");
    assert_true(blocks->len >= 6);
    for (size_t i = 0; i < blocks->len; i++) {
        const json *b = json_at(blocks, i);
        check_bitcoin_tree(b);
        if (json_get_str(b, "header_root")) /* the root is the block header's */
            assert_string_equal(json_get_str(b, "root"), json_get_str(b, "header_root"));
        const json *w = json_get(b, "witness");
        if (w) {
            /* Witness root: the same tree over the wtxids (coinbase's zero). */
            merkle_shape s = shape_of(MERKLE_PROFILE_BITCOIN);
            size_t n;
            node_t *wt = hex_list(json_get(w, "wtxids"), &n, 1);
            uint8_t root[32], want[32];
            hex32(want, json_get_str(w, "root"), 1);
            assert_int_equal(merkle_shape_root(root, NULL, &s, (const node_t *)wt, n, NULL),
                             MERKLE_OK);
            assert_memory_equal(root, want, 32);
            /* commitment = SHA-256d(root || reserved), in internal order. */
            uint8_t res[32], buf[64], c[32], want_c[32];
            hex32(res, json_get_str(w, "reserved"), 0);
            memcpy(buf, root, 32);
            memcpy(buf + 32, res, 32);
            ref_sha256(c, buf, 64, NULL, 0);
            ref_sha256(c, c, 32, NULL, 0);
            hex32(want_c, json_get_str(w, "commitment"), 0);
            assert_memory_equal(c, want_c, 32);
            free(wt);
        }
    }
    for (size_t i = 0; i < syn->len; i++) check_bitcoin_tree(json_at(syn, i));
    json_free(v);
}

/* ------------------------------------------------------------------ ssz */

static uint64_t u64_of(const json *j)
{
    return strtoull(j->str, NULL, 10);
}

static void test_ssz_vectors(void **state)
{
    (void)state;
    json *v = tu_load_vectors("ssz.json");
    const json *cases = json_get(v, "cases");
    assert_true(cases->len >= 15);
    for (size_t ci = 0; ci < cases->len; ci++) {
        const json *c = json_at(cases, ci);
        uint64_t n = (uint64_t)json_get(c, "n")->integer;
        merkle_shape s = shape_of(MERKLE_PROFILE_SSZ);
        s.limit = (uint64_t)json_get(c, "limit")->integer;
        if (json_get(c, "mix_in_length")->boolean) s.flags |= MERKLE_SHAPE_MIX_IN_LENGTH;
        node_t *chunks = malloc((n ? n : 1) * 32);
        for (uint64_t i = 0; i < n; i++) {
            uint8_t le[4] = { (uint8_t)i, (uint8_t)(i >> 8), (uint8_t)(i >> 16),
                              (uint8_t)(i >> 24) };
            ref_sha256(chunks[i], le, 4, NULL, 0);
        }
        uint8_t want[32], root[32];
        hex32(want, json_get_str(c, "root"), 0);
        assert_int_equal(merkle_shape_root(root, NULL, &s, (const node_t *)chunks, n, NULL),
                         MERKLE_OK);
        assert_memory_equal(root, want, 32);
        merkle_shape_tree *t;
        assert_int_equal(merkle_shape_tree_alloc(&t, NULL, &s, (const node_t *)chunks, n, NULL),
                         MERKLE_OK);
        merkle_shape_tree_root(root, t);
        assert_memory_equal(root, want, 32);
        const json *br = json_get(c, "branches");
        for (size_t k = 0; br && k < br->len; k++) {
            const json *b = json_at(br, k);
            uint64_t g = u64_of(json_get(b, "gindex"));
            uint8_t leaf[32], node[32];
            hex32(leaf, json_get_str(b, "leaf"), 0);
            assert_int_equal(merkle_shape_tree_node(node, t, g), MERKLE_OK);
            assert_memory_equal(node, leaf, 32);
            size_t bl, len;
            node_t *want_path = hex_list(json_get(b, "branch"), &bl, 0);
            node_t path[64];
            assert_int_equal(merkle_shape_tree_branch(path, 64, &len, t, g), MERKLE_OK);
            assert_int_equal(len, bl);
            if (bl) assert_memory_equal(path, want_path, bl * 32);
            assert_int_equal(
                merkle_shape_verify(&s, want, g, leaf, (const node_t *)path, len, NULL), MERKLE_OK);
            if (len) {
                assert_int_equal(
                    merkle_shape_verify(&s, want, g * 2, leaf, (const node_t *)path, len, NULL),
                    MERKLE_ERR_VERIFY);
                path[0][0] ^= 1;
                assert_int_equal(
                    merkle_shape_verify(&s, want, g, leaf, (const node_t *)path, len, NULL),
                    MERKLE_ERR_VERIFY);
            }
            free(want_path);
        }
        const json *mps = json_get(c, "multiproofs");
        for (size_t k = 0; mps && k < mps->len; k++) {
            const json *m = json_at(mps, k);
            const json *gj = json_get(m, "gindices"), *hj = json_get(m, "helpers");
            size_t ng = gj->len, nh = hj->len;
            uint64_t g[8], h[256], got[256];
            assert_true(ng <= 8 && nh <= 256);
            for (size_t i = 0; i < ng; i++) g[i] = u64_of(json_at(gj, i));
            for (size_t i = 0; i < nh; i++) h[i] = u64_of(json_at(hj, i));
            size_t len;
            assert_int_equal(merkle_shape_helpers(got, 256, &len, g, ng), MERKLE_OK);
            assert_int_equal(len, nh);
            if (nh) assert_memory_equal(got, h, nh * sizeof h[0]);
            size_t nl, np;
            node_t *leaves = hex_list(json_get(m, "leaves"), &nl, 0);
            node_t *proof = hex_list(json_get(m, "proof"), &np, 0);
            node_t mine[256], my_leaves[8];
            assert_int_equal(merkle_shape_tree_multiproof(mine, 256, &len, my_leaves, t, g, ng),
                             MERKLE_OK);
            assert_int_equal(len, np);
            if (np) assert_memory_equal(mine, proof, np * 32);
            assert_memory_equal(my_leaves, leaves, nl * 32);
            assert_int_equal(merkle_shape_multiproof_verify(&s, want, g, (const node_t *)leaves, nl,
                                                            (const node_t *)proof, np, NULL),
                             MERKLE_OK);
            /* A changed leaf, a missing helper, an extra helper: refused. */
            leaves[0][5] ^= 4;
            assert_int_equal(merkle_shape_multiproof_verify(&s, want, g, (const node_t *)leaves, nl,
                                                            (const node_t *)proof, np, NULL),
                             MERKLE_ERR_VERIFY);
            leaves[0][5] ^= 4;
            if (np) {
                assert_int_equal(merkle_shape_multiproof_verify(&s, want, g, (const node_t *)leaves,
                                                                nl, (const node_t *)proof, np - 1,
                                                                NULL),
                                 MERKLE_ERR_VERIFY);
            }
            free(leaves);
            free(proof);
        }
        merkle_shape_tree_free(t);
        free(chunks);
    }
    json_free(v);
}

static void test_gindex_sets(void **state)
{
    (void)state;
    uint64_t out[16];
    size_t n;
    uint64_t dup[2] = { 9, 9 }, anc[2] = { 9, 4 }, zero[1] = { 0 };
    assert_int_equal(merkle_shape_helpers(out, 16, &n, dup, 2), MERKLE_ERR_ARG);
    assert_int_equal(merkle_shape_helpers(out, 16, &n, anc, 2), MERKLE_ERR_ARG);
    assert_int_equal(merkle_shape_helpers(out, 16, &n, zero, 1), MERKLE_ERR_ARG);
    assert_int_equal(merkle_shape_helpers(out, 16, &n, NULL, 0), MERKLE_ERR_ARG);
    uint64_t two[2] = { 8, 11 };
    assert_int_equal(merkle_shape_helpers(out, 1, &n, two, 2), MERKLE_ERR_BUFFER);
    assert_int_equal(n, 3);
    assert_int_equal(merkle_shape_helpers(out, 16, &n, two, 2), MERKLE_OK);
    /* Spec: helpers of {8, 11} in a depth-3 tree are 10, 9, 3 (decreasing). */
    assert_int_equal(n, 3);
    assert_int_equal(out[0], 10);
    assert_int_equal(out[1], 9);
    assert_int_equal(out[2], 3);
}

/* ------------------------------------------------------------------ differential */

static void diff_one(const merkle_shape *s, const node_t *nodes, size_t n)
{
    uint8_t a[32], b[32], c[32];
    uint32_t fa, fb = 0, fc;
    assert_int_equal(merkle_shape_root(a, &fa, s, nodes, n, NULL), MERKLE_OK);
    ref_root(s, b, nodes, n, &fb);
    if (!(s->flags & MERKLE_SHAPE_DETECT_MUTATION)) fb = 0;
    if (memcmp(a, b, 32) != 0)
        fail_msg("odd rule %d, n = %zu: chunked root differs from reference", s->odd, n);
    assert_int_equal(fa, fb);
    if (s->odd == MERKLE_SHAPE_ODD_PROMOTE) return;
    merkle_shape_tree *t;
    assert_int_equal(merkle_shape_tree_alloc(&t, &fc, s, nodes, n, NULL), MERKLE_OK);
    merkle_shape_tree_root(c, t);
    assert_memory_equal(a, c, 32);
    assert_int_equal(fa, fc);
    /* Every branch of a few leaves verifies. */
    for (size_t i = 0; i < n; i += 1 + n / 5) {
        uint64_t pos;
        node_t path[64];
        size_t len;
        assert_int_equal(merkle_shape_tree_position(&pos, t, i), MERKLE_OK);
        assert_int_equal(merkle_shape_tree_branch(path, 64, &len, t, pos), MERKLE_OK);
        assert_int_equal(merkle_shape_verify(s, a, pos, nodes[i], (const node_t *)path, len, NULL),
                         MERKLE_OK);
    }
    merkle_shape_tree_free(t);
}

static void test_differential(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 14);
    size_t cap = 7000;
    node_t *nodes = malloc(cap * 32);
    tu_rng_fill(&r, nodes[0], cap * 32);
    static const size_t sizes[] = { 0,    1,    2,    3,    4,    5,    7,    8,
                                    9,    127,  128,  129,  255,  256,  257,  383,
                                    511,  512,  513,  767,  1023, 1024, 1025, 2047,
                                    2048, 2049, 2999, 4095, 4096, 4097, 6149, 6999 };
    merkle_profile profiles[] = { MERKLE_PROFILE_BITCOIN, MERKLE_PROFILE_SSZ,
                                  MERKLE_PROFILE_RFC6962 };
    for (size_t p = 0; p < 3; p++) {
        merkle_shape s = shape_of(profiles[p]);
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            if (sizes[i] == 0 && s.odd == MERKLE_SHAPE_ODD_PROMOTE) continue;
            diff_one(&s, (const node_t *)nodes, sizes[i]);
        }
        for (int k = 0; k < 20; k++)
            diff_one(&s, (const node_t *)nodes, 1 + (size_t)tu_rng_below(&r, cap - 1));
    }
    /* A limit pads further; a repeated chunk marks bitcoin trees mutated at any chunk. */
    merkle_shape s = shape_of(MERKLE_PROFILE_SSZ);
    s.limit = 4096;
    diff_one(&s, (const node_t *)nodes, 1000);
    diff_one(&s, (const node_t *)nodes, 0);
    s.limit = 1000;
    diff_one(&s, (const node_t *)nodes, 1000);
    merkle_shape b = shape_of(MERKLE_PROFILE_BITCOIN);
    memcpy(nodes[701], nodes[700], 32);
    diff_one(&b, (const node_t *)nodes, 1500);
    memcpy(nodes[1499], nodes[1498], 32); /* equal pair at the end */
    diff_one(&b, (const node_t *)nodes, 1500);
    tu_rng_fill(&r, nodes[0], cap * 32);
    memcpy(nodes[4097], nodes[4096], 32); /* inside a later full chunk */
    diff_one(&b, (const node_t *)nodes, 6999);
    tu_rng_fill(&r, nodes[0], cap * 32);
    memcpy(nodes[6145], nodes[6144], 32); /* in the partial chunk after three full ones */
    diff_one(&b, (const node_t *)nodes, 6149);
    free(nodes);
}

/* The streaming builder, fed in random pieces, gives merkle_shape_root's root and flags. */
static void test_builder(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 52);
    size_t cap = 9000;
    node_t *v = malloc(cap * 32);
    tu_rng_fill(&r, v[0], cap * 32);
    memcpy(v[5001], v[5000], 32); /* a mutation for the bitcoin trees that reach it */
    merkle_shape shapes[4];
    shapes[0] = shape_of(MERKLE_PROFILE_BITCOIN);
    shapes[1] = shape_of(MERKLE_PROFILE_SSZ);
    shapes[2] = shape_of(MERKLE_PROFILE_SSZ);
    shapes[2].limit = 1u << 14;
    shapes[2].flags |= MERKLE_SHAPE_MIX_IN_LENGTH;
    shapes[3] = shape_of(MERKLE_PROFILE_RFC6962);
    static const size_t sizes[] = { 0, 1, 2, 3, 2047, 2048, 2049, 4096, 5002, 8999 };
    for (size_t k = 0; k < 4; k++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            size_t n = sizes[i];
            if (n == 0 && k == 3) continue;
            uint8_t a[32], b[32];
            uint32_t fa, fb;
            assert_int_equal(merkle_shape_root(a, &fa, &shapes[k], (const node_t *)v, n, NULL),
                             MERKLE_OK);
            merkle_shape_builder *bd;
            assert_int_equal(merkle_shape_builder_alloc(&bd, &shapes[k], NULL), MERKLE_OK);
            for (size_t off = 0; off < n;) {
                size_t take = 1 + (size_t)tu_rng_below(&r, 3000);
                if (take > n - off) take = n - off;
                assert_int_equal(merkle_shape_builder_push(bd, (const node_t *)v + off, take),
                                 MERKLE_OK);
                off += take;
            }
            assert_int_equal(merkle_shape_builder_count(bd), n);
            assert_int_equal(merkle_shape_builder_root(b, &fb, bd), MERKLE_OK);
            assert_memory_equal(a, b, 32);
            assert_int_equal(fa, fb);
            assert_int_equal(merkle_shape_builder_root(b, &fb, bd), MERKLE_ERR_STATE);
            assert_int_equal(merkle_shape_builder_push(bd, (const node_t *)v, 1), MERKLE_ERR_STATE);
            merkle_shape_builder_free(bd);
        }
    merkle_shape_builder *bd;
    merkle_shape oz = shape_of(MERKLE_PROFILE_OPENZEPPELIN);
    assert_int_equal(merkle_shape_builder_alloc(&bd, &oz, NULL), MERKLE_ERR_UNSUPPORTED);
    merkle_shape lim = shape_of(MERKLE_PROFILE_SSZ);
    lim.limit = 4;
    assert_int_equal(merkle_shape_builder_alloc(&bd, &lim, NULL), MERKLE_OK);
    assert_int_equal(merkle_shape_builder_push(bd, (const node_t *)v, 5), MERKLE_ERR_RANGE);
    assert_int_equal(merkle_shape_builder_push(bd, (const node_t *)v, 4), MERKLE_OK);
    merkle_shape_builder_free(bd);
    merkle_shape_builder_free(NULL);
    free(v);
}

/* The rfc6962 description gives the classic builder's root over leaf hashes. */
static void test_promote_matches_rfc6962(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 6962);
    node_t *nodes = malloc(1000 * 32);
    tu_rng_fill(&r, nodes[0], 1000 * 32);
    merkle_shape s = shape_of(MERKLE_PROFILE_RFC6962);
    for (size_t n = 1; n < 1000; n += 37) {
        merkle_tree t;
        assert_int_equal(merkle_tree_init(&t, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, 32),
                         MERKLE_OK);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(merkle_tree_push_leaf_hash(&t, nodes[i]), MERKLE_OK);
        uint8_t a[32], b[32];
        assert_int_equal(merkle_tree_root(a, NULL, &t), MERKLE_OK);
        assert_int_equal(merkle_shape_root(b, NULL, &s, (const node_t *)nodes, n, NULL), MERKLE_OK);
        assert_memory_equal(a, b, 32);
    }
    free(nodes);
}

/* ------------------------------------------------------------------ errors */

static void test_errors(void **state)
{
    (void)state;
    merkle_shape s;
    uint8_t out[32], leaf[32] = { 0 };
    assert_int_equal(merkle_shape_init(&s, 2, MERKLE_PROFILE_BITCOIN), MERKLE_ERR_ARG);
    assert_int_equal(merkle_shape_init(&s, MERKLE_SHAPE_VERSION, (merkle_profile)99),
                     MERKLE_ERR_ARG);
    /* what bindings allocate: the library's size and alignment are this header's */
    assert_int_equal(merkle_shape_struct_size(), sizeof(merkle_shape));
    assert_int_equal(merkle_shape_struct_align(), _Alignof(merkle_shape));
    /* a shape of an unknown version is refused by the functions that take it */
    s = shape_of(MERKLE_PROFILE_BITCOIN);
    s.version = MERKLE_SHAPE_VERSION + 1;
    assert_int_equal(merkle_shape_node(out, &s, leaf, leaf), MERKLE_ERR_ARG);
    s = shape_of(MERKLE_PROFILE_BITCOIN);
    merkle_error e;
    /* 32 zero bytes for no transactions, as Bitcoin Core. */
    assert_int_equal(merkle_shape_root(out, NULL, &s, NULL, 0, &e), MERKLE_OK);
    assert_memory_equal(out, leaf, 32);
    assert_int_equal(merkle_shape_root(out, NULL, &s, NULL, 3, &e), MERKLE_ERR_ARG);
    merkle_shape bad = s;
    bad.flags |= 1u << 20;
    assert_int_equal(merkle_shape_root(out, NULL, &bad, NULL, 0, &e), MERKLE_ERR_ARG);
    bad = s;
    bad.odd = (merkle_shape_odd)7;
    assert_int_equal(merkle_shape_root(out, NULL, &bad, NULL, 0, &e), MERKLE_ERR_ARG);
    bad = s;
    bad.limit = 8; /* a limit only with padding */
    assert_int_equal(merkle_shape_root(out, NULL, &bad, NULL, 0, &e), MERKLE_ERR_ARG);
    merkle_shape z = shape_of(MERKLE_PROFILE_SSZ);
    z.limit = 2;
    node_t three[3] = { { 1 }, { 2 }, { 3 } };
    assert_int_equal(merkle_shape_root(out, NULL, &z, (const node_t *)three, 3, &e),
                     MERKLE_ERR_RANGE);
    merkle_shape_tree *t;
    assert_int_equal(merkle_shape_tree_alloc(&t, NULL, &z, (const node_t *)three, 3, &e),
                     MERKLE_ERR_RANGE);
    assert_null(t);
    /* Positions outside the tree. */
    s = shape_of(MERKLE_PROFILE_BITCOIN);
    assert_int_equal(merkle_shape_tree_alloc(&t, NULL, &s, (const node_t *)three, 3, &e),
                     MERKLE_OK);
    uint64_t pos;
    assert_int_equal(merkle_shape_tree_position(&pos, t, 3), MERKLE_ERR_RANGE);
    assert_int_equal(merkle_shape_tree_node(out, t, 0), MERKLE_ERR_RANGE);
    assert_int_equal(merkle_shape_tree_node(out, t, 8), MERKLE_ERR_RANGE);
    assert_int_equal(merkle_shape_tree_node(out, t, 7), MERKLE_OK); /* the duplicate of 6 */
    assert_int_equal(merkle_shape_tree_node(leaf, t, 6), MERKLE_OK);
    assert_memory_equal(out, leaf, 32);
    node_t path[4];
    size_t len;
    assert_int_equal(merkle_shape_tree_branch(path, 1, &len, t, 4), MERKLE_ERR_BUFFER);
    assert_int_equal(len, 2);
    merkle_shape_tree_free(t);
    merkle_shape_tree_free(NULL);
    assert_int_equal(merkle_shape_verify(&s, out, 0, leaf, NULL, 0, &e), MERKLE_ERR_VERIFY);
    assert_int_equal(merkle_shape_verify(&s, NULL, 1, leaf, NULL, 0, &e), MERKLE_ERR_ARG);
    /* The classic builder refuses the new profiles. */
    merkle_tree mt;
    assert_int_equal(merkle_tree_init(&mt, MERKLE_PROFILE_BITCOIN, MERKLE_HASH_SHA256, 32),
                     MERKLE_ERR_ARG);
    merkle_profile p;
    assert_int_equal(merkle_profile_from_name(&p, "bitcoin"), MERKLE_OK);
    assert_int_equal(p, MERKLE_PROFILE_BITCOIN);
    assert_string_equal(merkle_profile_name(MERKLE_PROFILE_BITTORRENT_V2), "bittorrent-v2");
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const char *need = getenv("MERKLE_REQUIRE_BACKEND");
    if (need && strcmp(merkle_sha256_backend(), need) != 0) {
        printf("backend %s not available on this CPU: skipped\n", need);
        return 77;
    }
    printf("SHA-256 backend: %s\n", merkle_sha256_backend());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bitcoin_vectors), cmocka_unit_test(test_ssz_vectors),
        cmocka_unit_test(test_gindex_sets),     cmocka_unit_test(test_differential),
        cmocka_unit_test(test_builder),         cmocka_unit_test(test_promote_matches_rfc6962),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
