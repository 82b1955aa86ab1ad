/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Shaped trees (merkle/shape.h): the peers' vectors (bitcoin.json, ssz.json, ...), the chunked
** root against a naive level-by-level reference built on OpenSSL (no library code) for every
** odd-node rule and many sizes, the whole-tree object against the chunked root, branches and
** multiproofs round-tripped and tampered with, and the error paths.
*/
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/shape.h"
#include "testutil.h"

typedef uint8_t node_t[32];

/* ------------------------------------------------------------------ helpers */

static void rev32(uint8_t *b)
{
    for (int i = 0; i < 16; i++) {
        uint8_t t = b[i];
        b[i] = b[31 - i];
        b[31 - i] = t;
    }
}

/* 32-byte hex (display order when rev) into out. */
static void hex32(uint8_t out[32], const char *hex, int rev)
{
    size_t n;
    uint8_t *b = tu_unhex(hex, &n);
    assert_int_equal(n, 32);
    memcpy(out, b, 32);
    free(b);
    if (rev) rev32(out);
}

static node_t *hex_list(const json *arr, size_t *n, int rev)
{
    assert_non_null(arr);
    *n = arr->len;
    node_t *v = malloc((arr->len ? arr->len : 1) * 32);
    for (size_t i = 0; i < arr->len; i++) hex32(v[i], json_at(arr, i)->str, rev);
    return v;
}

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

static merkle_shape shape_of(merkle_profile p)
{
    merkle_shape s;
    assert_int_equal(merkle_shape_init(&s, MERKLE_SHAPE_VERSION, p), MERKLE_OK);
    return s;
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

/* ------------------------------------------------------------------ openzeppelin */

static void check_oz_tree(const merkle_shape *s, const node_t *leaves, size_t n, const json *c)
{
    uint8_t want[32], root[32];
    hex32(want, json_get_str(c, "root"), 0);
    assert_int_equal(merkle_shape_root(root, NULL, s, leaves, n, NULL), MERKLE_OK);
    assert_memory_equal(root, want, 32);
    merkle_shape_tree *t;
    assert_int_equal(merkle_shape_tree_alloc(&t, NULL, s, leaves, n, NULL), MERKLE_OK);
    merkle_shape_tree_root(root, t);
    assert_memory_equal(root, want, 32);
    /* The dump's tree array, node by node, and each value's treeIndex. */
    const json *d = json_get(c, "dump");
    if (d) {
        const json *tree = json_get(d, "tree"), *vals = json_get(d, "values");
        assert_int_equal(tree->len, 2 * n - 1);
        for (size_t i = 0; i < tree->len; i++) {
            uint8_t a[32], b[32];
            hex32(a, json_at(tree, i)->str + 2, 0);
            assert_int_equal(merkle_shape_tree_node(b, t, i), MERKLE_OK);
            assert_memory_equal(a, b, 32);
        }
        for (size_t i = 0; i < vals->len; i++) {
            uint64_t pos;
            assert_int_equal(merkle_shape_tree_position(&pos, t, i), MERKLE_OK);
            assert_int_equal(pos, (uint64_t)json_get(json_at(vals, i), "treeIndex")->integer);
        }
    }
    const json *single = json_get(c, "single");
    for (size_t k = 0; k < single->len; k++) {
        const json *p = json_at(single, k);
        uint64_t pos, idx = (uint64_t)json_get(p, "index")->integer;
        assert_int_equal(merkle_shape_tree_position(&pos, t, idx), MERKLE_OK);
        assert_int_equal(pos, (uint64_t)json_get(p, "tree_index")->integer);
        size_t pl, len;
        node_t *want_p = hex_list(json_get(p, "proof"), &pl, 0);
        node_t path[64];
        assert_int_equal(merkle_shape_tree_branch(path, 64, &len, t, pos), MERKLE_OK);
        assert_int_equal(len, pl);
        if (pl) assert_memory_equal(path, want_p, pl * 32);
        assert_int_equal(
            merkle_shape_verify(s, want, pos, leaves[idx], (const node_t *)path, len, NULL),
            MERKLE_OK);
        if (len) {
            path[len - 1][0] ^= 1;
            assert_int_equal(
                merkle_shape_verify(s, want, pos, leaves[idx], (const node_t *)path, len, NULL),
                MERKLE_ERR_VERIFY);
        }
        free(want_p);
    }
    const json *multi = json_get(c, "multi");
    for (size_t k = 0; multi && k < multi->len; k++) {
        const json *m = json_at(multi, k);
        const json *ij = json_get(m, "indices"), *fj = json_get(m, "proofFlags");
        size_t ni = ij->len;
        uint64_t *pos = malloc(ni * sizeof *pos);
        for (size_t i = 0; i < ni; i++)
            assert_int_equal(
                merkle_shape_tree_position(&pos[i], t, (uint64_t)json_at(ij, i)->integer),
                MERKLE_OK);
        size_t np, nl = 0;
        node_t *want_p = hex_list(json_get(m, "proof"), &np, 0);
        size_t cap = ni * 66 + 1, gp, gf;
        node_t *gl = malloc(cap * 32), *gpr = malloc(cap * 32);
        uint8_t *flags = malloc(cap);
        assert_int_equal(
            merkle_shape_tree_flag_multiproof(gl, gpr, &gp, flags, &gf, cap, t, pos, ni),
            MERKLE_OK);
        assert_int_equal(gp, np);
        if (np) assert_memory_equal(gpr, want_p, np * 32);
        assert_int_equal(gf, fj->len);
        for (size_t i = 0; i < gf; i++) assert_int_equal(flags[i], json_at(fj, i)->boolean);
        /* Leaves: hashes for the simple tree, values for the standard one. */
        const json *lj = json_get(m, "leaves");
        if (lj->len && json_at(lj, 0)->type == JSON_STRING) {
            node_t *wl = hex_list(lj, &nl, 0);
            assert_memory_equal(gl, wl, nl * 32);
            free(wl);
        }
        assert_int_equal(merkle_shape_flag_multiproof_verify(s, want, (const node_t *)gl, ni,
                                                             (const node_t *)gpr, gp, flags, gf,
                                                             NULL),
                         MERKLE_OK);
        if (gf) {
            flags[0] ^= 1;
            assert_int_equal(merkle_shape_flag_multiproof_verify(s, want, (const node_t *)gl, ni,
                                                                 (const node_t *)gpr, gp, flags, gf,
                                                                 NULL),
                             MERKLE_ERR_VERIFY);
            flags[0] ^= 1;
            assert_int_equal(merkle_shape_flag_multiproof_verify(s, want, (const node_t *)gl, ni,
                                                                 (const node_t *)gpr, gp, flags,
                                                                 gf - 1, NULL),
                             MERKLE_ERR_VERIFY);
        }
        free(gl);
        free(gpr);
        free(flags);
        free(want_p);
        free(pos);
    }
    merkle_shape_tree_free(t);
}

static void test_openzeppelin_vectors(void **state)
{
    (void)state;
    json *v = tu_load_vectors("openzeppelin.json");
    merkle_shape s = shape_of(MERKLE_PROFILE_OPENZEPPELIN);
    const json *simple = json_get(v, "simple"), *standard = json_get(v, "standard");
    for (size_t i = 0; i < simple->len; i++) {
        const json *c = json_at(simple, i);
        size_t n;
        node_t *leaves = hex_list(json_get(c, "leaves"), &n, 0);
        check_oz_tree(&s, (const node_t *)leaves, n, c);
        free(leaves);
    }
    for (size_t i = 0; i < standard->len; i++) {
        const json *c = json_at(standard, i);
        const json *types = json_get(c, "types"), *rows = json_get(c, "rows");
        char tl[256] = "";
        for (size_t k = 0; k < types->len; k++) {
            if (k) strcat(tl, ",");
            strcat(tl, json_at(types, k)->str);
        }
        size_t n = rows->len;
        node_t *leaves = malloc(n * 32);
        for (size_t r = 0; r < n; r++) {
            const json *row = json_at(rows, r);
            char line[2048] = "";
            for (size_t k = 0; k < row->len; k++) {
                const json *x = json_at(row, k);
                if (k) strcat(line, ",");
                if (x->type == JSON_BOOL) {
                    strcat(line, x->boolean ? "true" : "false");
                } else {
                    /* Quote everything: commas and spaces in strings survive. */
                    strcat(line, "\"");
                    strcat(line, x->str);
                    strcat(line, "\"");
                }
            }
            merkle_error e;
            assert_int_equal(merkle_shape_abi_leaf(leaves[r], tl, line, strlen(line), &e),
                             MERKLE_OK);
            uint8_t want[32];
            hex32(want, json_at(json_get(c, "leaf_hashes"), r)->str, 0);
            if (memcmp(want, leaves[r], 32) != 0)
                fail_msg("types %s row %zu: leaf hash differs", tl, r);
        }
        /* The batch call gives the same leaves (static types: the Keccak batch path;
        ** string/bytes: row by row). */
        char **rowtext = malloc(n * sizeof *rowtext);
        size_t *rowlen = malloc(n * sizeof *rowlen);
        node_t *batch = malloc(n * 32);
        for (size_t r = 0; r < n; r++) {
            const json *row = json_at(rows, r);
            rowtext[r] = calloc(1, 2048);
            for (size_t k = 0; k < row->len; k++) {
                const json *x = json_at(row, k);
                if (k) strcat(rowtext[r], ",");
                if (x->type == JSON_BOOL) {
                    strcat(rowtext[r], x->boolean ? "true" : "false");
                } else {
                    strcat(rowtext[r], "\"");
                    strcat(rowtext[r], x->str);
                    strcat(rowtext[r], "\"");
                }
            }
            rowlen[r] = strlen(rowtext[r]);
        }
        merkle_error be;
        assert_int_equal(
            merkle_shape_abi_leaves(batch, tl, (const char *const *)rowtext, rowlen, n, &be),
            MERKLE_OK);
        if (memcmp(batch, leaves, n * 32) != 0) fail_msg("types %s: batch leaves differ", tl);
        for (size_t r = 0; r < n; r++) free(rowtext[r]);
        free(rowtext);
        free(rowlen);
        free(batch);
        check_oz_tree(&s, (const node_t *)leaves, n, c);
        free(leaves);
    }
    json_free(v);
}

/* Leaf sorting: shared 8-byte prefixes and repeated leaves keep a stable bytewise order. */
static void test_sort_leaves(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 5);
    size_t n = 3000;
    node_t *v = malloc(n * 32);
    tu_rng_fill(&r, v[0], n * 32);
    for (size_t i = 0; i < n; i++) {
        if (i % 3 == 0) memset(v[i], 0xab, 8);           /* a common prefix */
        if (i % 7 == 0 && i) memcpy(v[i], v[i / 2], 32); /* repeats */
        if (i % 11 == 0) v[i][7] = (uint8_t)(i & 1);
    }
    merkle_shape s = shape_of(MERKLE_PROFILE_OPENZEPPELIN);
    merkle_shape_tree *t;
    assert_int_equal(merkle_shape_tree_alloc(&t, NULL, &s, (const node_t *)v, n, NULL), MERKLE_OK);
    /* Reference: position k holds the k-th smallest (node, index). */
    size_t *ord = malloc(n * sizeof *ord);
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        while (j > 0 && memcmp(v[ord[j - 1]], v[i], 32) > 0) {
            ord[j] = ord[j - 1];
            j--;
        }
        ord[j] = i;
    }
    for (size_t k = 0; k < n; k++) {
        uint64_t pos;
        assert_int_equal(merkle_shape_tree_position(&pos, t, ord[k]), MERKLE_OK);
        assert_int_equal(pos, 2 * n - 2 - k);
    }
    merkle_shape_tree_free(t);
    free(ord);
    free(v);
}

/* The reference for decimal parsing: one 32-byte multiply-by-10 pass per digit. -1 beyond
** 2^256. */
static int ref_dec(uint8_t w[32], const char *v, size_t len)
{
    memset(w, 0, 32);
    for (size_t i = 0; i < len; i++) {
        unsigned carry = (unsigned)(v[i] - '0');
        for (int k = 31; k >= 0; k--) {
            unsigned x = w[k] * 10u + carry;
            w[k] = (uint8_t)x;
            carry = x >> 8;
        }
        if (carry) return -1;
    }
    return 0;
}

/* uint256 decimals (1..80 digits, leading zeros, around 2^256) against the reference, and
** merkle_shape_abi_leaves against merkle_shape_abi_leaf over groups and a bad row. */
static void test_abi_decimal_and_batch(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 77);
    const char *max =
        "115792089237316195423570985008687907853269984665640564039457584007913129639935";
    for (int t = 0; t < 4000; t++) {
        char d[96];
        size_t len = 1 + tu_rng_below(&r, 80);
        for (size_t i = 0; i < len; i++) d[i] = (char)('0' + tu_rng_below(&r, 10));
        if (t % 5 == 0) memcpy(d, max, len = 78); /* 2^256 - 1, then nudged */
        if (t % 5 == 0 && t % 10 == 0) d[77] = (char)('0' + tu_rng_below(&r, 10));
        d[len] = 0;
        uint8_t want[32], got[32];
        size_t n = 0;
        merkle_error e;
        int ok = ref_dec(want, d, len) == 0;
        merkle_status st = merkle_shape_abi_encode(got, sizeof got, &n, "uint256", d, len, &e);
        if (ok != (st == MERKLE_OK)) fail_msg("decimal %s: status %d, reference %d", d, st, ok);
        if (ok && memcmp(got, want, 32) != 0) fail_msg("decimal %s: wrong word", d);
    }
    /* 2,500 rows (three groups of the batch), then one bad row in the third group. */
    size_t n = 2500;
    char **rows = malloc(n * sizeof *rows);
    size_t *lens = malloc(n * sizeof *lens);
    node_t *one = malloc(n * 32), *all = malloc(n * 32);
    for (size_t i = 0; i < n; i++) {
        rows[i] = malloc(160);
        int k = snprintf(rows[i], 160, "0x%016llx%016llx%08x,%llu%llu, %s",
                         (unsigned long long)tu_rng_next(&r), (unsigned long long)tu_rng_next(&r),
                         (unsigned)i, (unsigned long long)tu_rng_next(&r),
                         (unsigned long long)tu_rng_next(&r), i % 2 ? "true" : "false");
        lens[i] = (size_t)k;
        merkle_error e;
        assert_int_equal(
            merkle_shape_abi_leaf(one[i], "address,uint256,bool", rows[i], lens[i], &e), MERKLE_OK);
    }
    merkle_error e;
    assert_int_equal(merkle_shape_abi_leaves(all, "address,uint256,bool", (const char *const *)rows,
                                             lens, n, &e),
                     MERKLE_OK);
    assert_memory_equal(all, one, n * 32);
    /* Dynamic types take the row-by-row path: same leaves as single calls. */
    assert_int_equal(
        merkle_shape_abi_leaves(all, "string,string,bool", (const char *const *)rows, lens, 7, &e),
        MERKLE_OK);
    for (size_t i = 0; i < 7; i++) {
        assert_int_equal(merkle_shape_abi_leaf(one[i], "string,string,bool", rows[i], lens[i], &e),
                         MERKLE_OK);
        assert_memory_equal(all[i], one[i], 32);
    }
    strcpy(rows[2100], "0x12,1,true");
    lens[2100] = strlen(rows[2100]);
    assert_int_equal(merkle_shape_abi_leaves(all, "address,uint256,bool", (const char *const *)rows,
                                             lens, n, &e),
                     MERKLE_ERR_FORMAT);
    assert_int_equal(e.line, 2101);
    assert_int_equal(e.offset, 0);
    assert_int_equal(merkle_shape_abi_leaves(all, "uint7", (const char *const *)rows, lens, n, &e),
                     MERKLE_ERR_ARG);
    assert_int_equal(e.line, 0);
    assert_int_equal(merkle_shape_abi_leaves(NULL, "uint8", NULL, NULL, 3, &e), MERKLE_ERR_ARG);
    assert_int_equal(merkle_shape_abi_leaves(NULL, "uint8", NULL, NULL, 0, &e), MERKLE_OK);
    for (size_t i = 0; i < n; i++) free(rows[i]);
    free(rows);
    free(lens);
    free(one);
    free(all);
}

static void test_abi_errors(void **state)
{
    (void)state;
    uint8_t out[32], buf[256];
    size_t n;
    merkle_error e;
    static const struct {
        const char *types, *row;
        merkle_status st;
    } bad[] = {
        { "uint7", "1", MERKLE_ERR_ARG },
        { "bytes33", "0x00", MERKLE_ERR_ARG },
        { "tuple", "1", MERKLE_ERR_ARG },
        { "uint256,", "1", MERKLE_ERR_ARG },
        { "uint8", "256", MERKLE_ERR_FORMAT },
        { "int8", "128", MERKLE_ERR_FORMAT },
        { "int8", "-129", MERKLE_ERR_FORMAT },
        { "uint256", "-1", MERKLE_ERR_FORMAT },
        { "address", "0x12", MERKLE_ERR_FORMAT },
        { "bool", "yes", MERKLE_ERR_FORMAT },
        { "bytes4", "0x0102", MERKLE_ERR_FORMAT },
        { "bytes", "0x1", MERKLE_ERR_FORMAT },
        { "uint256,uint256", "1", MERKLE_ERR_FORMAT },
        { "string", "\"open", MERKLE_ERR_FORMAT },
        { "uint256",
          "115792089237316195423570985008687907853269984665640564039457584007913129639936",
          MERKLE_ERR_FORMAT },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        merkle_status st =
            merkle_shape_abi_leaf(out, bad[i].types, bad[i].row, strlen(bad[i].row), &e);
        if (st != bad[i].st) fail_msg("%s / %s: status %d", bad[i].types, bad[i].row, st);
    }
    /* -128 fits int8; a quoted comma stays in the string; the buffer size is reported. */
    assert_int_equal(merkle_shape_abi_leaf(out, "int8", "-128", 4, &e), MERKLE_OK);
    assert_int_equal(merkle_shape_abi_encode(buf, 8, &n, "string", "\"a,b\"", 5, &e),
                     MERKLE_ERR_BUFFER);
    assert_int_equal(n, 96);
    assert_int_equal(merkle_shape_abi_encode(buf, sizeof buf, &n, "string", "\"a,b\"", 5, &e),
                     MERKLE_OK);
    assert_int_equal(buf[63], 3);
    assert_memory_equal(buf + 64, "a,b", 3);
    /* A heap tree has no empty form. */
    merkle_shape s = shape_of(MERKLE_PROFILE_OPENZEPPELIN);
    assert_int_equal(merkle_shape_root(out, NULL, &s, NULL, 0, &e), MERKLE_ERR_RANGE);
}

/* ------------------------------------------------------------------ merkletreejs */

/* merkletreejs options as shape flags: sortPairs -> SORTED_PAIRS, sortLeaves -> SORT_LEAVES,
** duplicateOdd -> ODD_DUPLICATE, the default -> ODD_PROMOTE without prefixes, isBitcoinTree ->
** the bitcoin profile over display-order hashes. ("complete" is not a shape of ours: the
** generator records that it differs from @openzeppelin/merkle-tree.) */
static void test_merkletreejs_vectors(void **state)
{
    (void)state;
    json *v = tu_load_vectors("merkletreejs.json");
    const json *trees = json_get(v, "trees");
    size_t checked = 0;
    for (size_t i = 0; i < trees->len; i++) {
        const json *t = json_at(trees, i), *o = json_get(t, "options");
        if (json_get(o, "complete")) continue;
        size_t n = (size_t)json_get(t, "n")->integer;
        node_t *leaves = malloc(n * 32);
        for (size_t k = 0; k < n; k++) {
            uint8_t be[4] = { (uint8_t)(k >> 24), (uint8_t)(k >> 16), (uint8_t)(k >> 8),
                              (uint8_t)k };
            merkle_keccak256_hash(leaves[k], be, 4);
        }
        merkle_shape s;
        uint8_t root[32], want[32];
        int bitcoin = json_get(o, "isBitcoinTree") != NULL;
        if (bitcoin) {
            s = shape_of(MERKLE_PROFILE_BITCOIN);
            for (size_t k = 0; k < n; k++) rev32(leaves[k]);
        } else {
            s = shape_of(MERKLE_PROFILE_SSZ); /* SHA-256, no prefix */
            s.odd =
                json_get(o, "duplicateOdd") ? MERKLE_SHAPE_ODD_DUPLICATE : MERKLE_SHAPE_ODD_PROMOTE;
            if (json_get(o, "sortPairs")) s.flags |= MERKLE_SHAPE_SORTED_PAIRS;
            if (json_get(o, "sortLeaves")) s.flags |= MERKLE_SHAPE_SORT_LEAVES;
            if (!strcmp(json_get_str(t, "hash"), "keccak256")) s.hash = MERKLE_HASH_KECCAK256;
        }
        assert_int_equal(merkle_shape_root(root, NULL, &s, (const node_t *)leaves, n, NULL),
                         MERKLE_OK);
        if (bitcoin) rev32(root);
        hex32(want, json_get_str(t, "root"), 0);
        if (memcmp(root, want, 32) != 0)
            fail_msg("merkletreejs %s, n = %zu", json_get_str(t, "name"), n);
        checked++;
        free(leaves);
    }
    assert_true(checked >= 40);
    json_free(v);
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

int main(void)
{
    const char *need = getenv("MERKLE_REQUIRE_BACKEND");
    if (need && strcmp(merkle_sha256_backend(), need) != 0) {
        printf("backend %s not available on this CPU: skipped\n", need);
        return 77;
    }
    printf("SHA-256 backend: %s\n", merkle_sha256_backend());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bitcoin_vectors),
        cmocka_unit_test(test_ssz_vectors),
        cmocka_unit_test(test_gindex_sets),
        cmocka_unit_test(test_openzeppelin_vectors),
        cmocka_unit_test(test_abi_errors),
        cmocka_unit_test(test_abi_decimal_and_batch),
        cmocka_unit_test(test_sort_leaves),
        cmocka_unit_test(test_merkletreejs_vectors),
        cmocka_unit_test(test_differential),
        cmocka_unit_test(test_builder),
        cmocka_unit_test(test_promote_matches_rfc6962),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
