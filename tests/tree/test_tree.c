/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Binary trees: every root/reader_root vector of the peers, the streaming builder against a
** naive recursive reference (OpenSSL / libsodium, no library code) on random leaf counts and
** random write splits, and every error path.
*/
#include <openssl/evp.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/tree.h"
#include "testutil.h"

/* ------------------------------------------------------------------ reference */

static void ref_hash(merkle_hash_alg alg, uint8_t out[32], const uint8_t *a, size_t alen,
                     const uint8_t *b, size_t blen, const uint8_t *c, size_t clen)
{
    if (alg == MERKLE_HASH_SHA256) {
        EVP_MD_CTX *ctx = EVP_MD_CTX_new();
        EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
        EVP_DigestUpdate(ctx, a, alen);
        EVP_DigestUpdate(ctx, b, blen);
        EVP_DigestUpdate(ctx, c, clen);
        EVP_DigestFinal_ex(ctx, out, NULL);
        EVP_MD_CTX_free(ctx);
    } else {
        crypto_generichash_state st;
        crypto_generichash_init(&st, NULL, 0, 32);
        crypto_generichash_update(&st, a, alen);
        crypto_generichash_update(&st, b, blen);
        crypto_generichash_update(&st, c, clen);
        crypto_generichash_final(&st, out, 32);
    }
}

typedef struct {
    const uint8_t *const *leaves;
    const size_t *lens;
} leafset;

/* MTH(D[lo:hi]) by the recursive definition, hi > lo. */
static void ref_mth(merkle_hash_alg alg, const leafset *ls, size_t lo, size_t hi, uint8_t out[32])
{
    static const uint8_t zero = 0, one = 1;
    size_t n = hi - lo;
    if (n == 1) {
        ref_hash(alg, out, &zero, 1, ls->leaves[lo], ls->lens[lo], NULL, 0);
        return;
    }
    size_t k = 1;
    while (k * 2 < n) k *= 2;
    uint8_t l[32], r[32];
    ref_mth(alg, ls, lo, lo + k, l);
    ref_mth(alg, ls, lo + k, hi, r);
    ref_hash(alg, out, &one, 1, l, 32, r, 32);
}

/* Root of a stream cut into leaf_size leaves by the reference. */
static void ref_stream_root(merkle_hash_alg alg, merkle_profile prof, const uint8_t *data,
                            size_t len, size_t leaf_size, uint8_t out[32])
{
    size_t n = (len + leaf_size - 1) / leaf_size;
    if (n == 0) {
        if (prof == MERKLE_PROFILE_SIA)
            memset(out, 0, 32);
        else
            ref_hash(alg, out, NULL, 0, NULL, 0, NULL, 0);
        return;
    }
    const uint8_t **leaves = malloc(n * sizeof *leaves);
    size_t *lens = malloc(n * sizeof *lens);
    for (size_t i = 0; i < n; i++) {
        leaves[i] = data + i * leaf_size;
        lens[i] = i + 1 < n ? leaf_size : len - i * leaf_size;
    }
    leafset ls = { leaves, lens };
    ref_mth(alg, &ls, 0, n, out);
    free(leaves);
    free(lens);
}

/* ------------------------------------------------------------------ vectors */

static char **decimal_leaves(size_t n, size_t **lens)
{
    char **v = malloc((n + 1) * sizeof *v);
    *lens = malloc((n + 1) * sizeof **lens);
    for (size_t i = 0; i < n; i++) {
        char buf[32];
        int k = snprintf(buf, sizeof buf, "%zu", i);
        v[i] = strdup(buf);
        (*lens)[i] = (size_t)k;
    }
    return v;
}

/* Leaves of a vector input: decimal generator or explicit hex list. */
static uint8_t **vector_leaves(const json *leaves, size_t *n, size_t **lens)
{
    const char *gen = json_get_str(leaves, "gen");
    assert_non_null(gen);
    if (strcmp(gen, "decimal") == 0) {
        *n = (size_t)json_get(leaves, "n")->integer;
        return (uint8_t **)decimal_leaves(*n, lens);
    }
    assert_string_equal(gen, "hex-list");
    const json *items = json_get(leaves, "items");
    if (!items) items = json_get(leaves, "hex");
    if (!items) items = json_get(leaves, "leaves");
    assert_non_null(items);
    *n = items->len;
    uint8_t **v = malloc((*n + 1) * sizeof *v);
    *lens = malloc((*n + 1) * sizeof **lens);
    for (size_t i = 0; i < *n; i++) v[i] = tu_unhex(json_at(items, i)->str, &(*lens)[i]);
    return v;
}

static void free_leaves(uint8_t **v, size_t *lens, size_t n)
{
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
    free(lens);
}

static void test_root_vectors(void **state)
{
    (void)state;
    json *doc = tu_load_vectors("merkle-public.json");
    const json *vs = json_get(doc, "vectors");
    int checked = 0;
    for (size_t i = 0; i < vs->len; i++) {
        const json *v = json_at(vs, i);
        const char *op = json_get_str(v, "op");
        const char *id = json_get_str(v, "id");
        const json *input = json_get(v, "input");
        const json *expected = json_get(v, "expected");
        merkle_hash_alg alg;
        assert_int_equal(merkle_hash_alg_from_name(&alg, json_get_str(v, "hash")), MERKLE_OK);
        const char *format = json_get_str(v, "format");
        uint8_t root[32];
        if (strcmp(op, "root") == 0) {
            size_t n, *lens;
            uint8_t **leaves = vector_leaves(json_get(input, "leaves"), &n, &lens);
            assert_int_equal(merkle_tree_root_list(root, MERKLE_PROFILE_RFC6962, alg,
                                                   (const uint8_t *const *)leaves, lens, n),
                             MERKLE_OK);
            const json *want = json_get(expected, "root");
            if (want->type == JSON_NULL) {
                /* "no root": our rfc6962 profile answers H("") and reports the tree empty. */
                assert_int_equal(n, 0);
                tu_assert_hex(root, 32,
                              "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                              id);
            } else {
                tu_assert_hex(root, 32, want->str, id);
            }
            /* The streaming builder agrees, and reports emptiness. */
            merkle_tree t;
            assert_int_equal(merkle_tree_init(&t, MERKLE_PROFILE_RFC6962, alg, 64), MERKLE_OK);
            for (size_t k = 0; k < n; k++)
                assert_int_equal(merkle_tree_push_leaf(&t, leaves[k], lens[k]), MERKLE_OK);
            int empty = -1;
            uint8_t root2[32];
            assert_int_equal(merkle_tree_root(root2, &empty, &t), MERKLE_OK);
            assert_int_equal(empty, n == 0);
            assert_memory_equal(root, root2, 32);
            free_leaves(leaves, lens, n);
            checked++;
        } else if (strcmp(op, "reader_root") == 0) {
            const json *stream = json_get(input, "stream");
            assert_string_equal(json_get_str(stream, "gen"), "counter-bytes");
            size_t len = (size_t)json_get(stream, "len")->integer;
            long long seg = json_get(input, "segment_size")->integer;
            uint8_t *data = malloc(len + 1);
            tu_counter_bytes(data, len);
            int sia = strcmp(format, "sia-crypto-merkleroot") == 0;
            merkle_profile prof = sia ? MERKLE_PROFILE_SIA : MERKLE_PROFILE_RFC6962;
            const json *err = json_get(expected, "error");
            if (err && err->type != JSON_NULL) {
                /* Only a bad segment size is an error: it must be refused, never loop. */
                assert_true(seg <= 0);
                merkle_tree t;
                assert_int_equal(merkle_tree_init(&t, prof, alg, seg < 0 ? 0 : (size_t)seg),
                                 MERKLE_ERR_ARG);
                assert_int_equal(merkle_tree_root_bytes(root, prof, alg, 0, data, len),
                                 MERKLE_ERR_ARG);
            } else {
                merkle_tree t;
                assert_int_equal(merkle_tree_init(&t, prof, alg, (size_t)seg), MERKLE_OK);
                assert_int_equal(merkle_tree_write(&t, data, len), MERKLE_OK);
                const json *nl = json_get(expected, "num_leaves");
                if (nl) assert_int_equal(merkle_tree_leaf_count(&t), (uint64_t)nl->integer);
                int empty = -1;
                assert_int_equal(merkle_tree_root(root, &empty, &t), MERKLE_OK);
                const json *want = json_get(expected, "root");
                if (want->type == JSON_NULL) {
                    /* merkletree's nil root: no leaves at all. */
                    assert_int_equal(empty, 1);
                    assert_int_equal(len, 0);
                } else {
                    assert_int_equal(empty, len == 0);
                    tu_assert_hex(root, 32, want->str, id);
                }
            }
            free(data);
            checked++;
        }
    }
    print_message("checked %d root vectors\n", checked);
    assert_true(checked >= 70);
    json_free(doc);
}

/* ------------------------------------------------------------------ differential */

static void test_leaves_vs_reference(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 1234);
    enum { MAXN = 5000 };
    uint8_t *pool = malloc(MAXN * 40);
    tu_rng_fill(&r, pool, MAXN * 40);
    const uint8_t **leaves = malloc(MAXN * sizeof *leaves);
    size_t *lens = malloc(MAXN * sizeof *lens);
    size_t counts[] = { 0,   1,   2,   3,   4,   5,   7,   8,    9,    127,
                        128, 129, 255, 256, 257, 383, 384, 1000, 4999, 5000 };
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0] + 30; ci++) {
        size_t n =
            ci < sizeof counts / sizeof counts[0] ? counts[ci] : (size_t)tu_rng_below(&r, MAXN + 1);
        for (size_t i = 0; i < n; i++) {
            lens[i] = (size_t)tu_rng_below(&r, 40);
            leaves[i] = pool + i * 40;
        }
        for (int a = 1; a <= 2; a++) {
            merkle_hash_alg alg = TU_TREE_HASH(a);
            uint8_t want[32], got[32];
            leafset ls = { leaves, lens };
            if (n)
                ref_mth(alg, &ls, 0, n, want);
            else
                ref_hash(alg, want, NULL, 0, NULL, 0, NULL, 0);
            assert_int_equal(
                merkle_tree_root_list(got, MERKLE_PROFILE_RFC6962, alg, leaves, lens, n),
                MERKLE_OK);
            assert_memory_equal(want, got, 32);
            /* push leaf hashes instead of leaves */
            merkle_tree t;
            assert_int_equal(merkle_tree_init(&t, MERKLE_PROFILE_RFC6962, alg, 1), MERKLE_OK);
            for (size_t i = 0; i < n; i++) {
                uint8_t lh[32];
                assert_int_equal(merkle_tree_leaf_hash(lh, alg, leaves[i], lens[i]), MERKLE_OK);
                assert_int_equal(merkle_tree_push_leaf_hash(&t, lh), MERKLE_OK);
            }
            assert_int_equal(merkle_tree_leaf_count(&t), n);
            assert_int_equal(merkle_tree_root(got, NULL, &t), MERKLE_OK);
            assert_memory_equal(want, got, 32);
        }
    }
    free(pool);
    free(leaves);
    free(lens);
}

static void test_stream_vs_reference(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 99);
    size_t maxlen = 300000;
    uint8_t *data = malloc(maxlen);
    tu_rng_fill(&r, data, maxlen);
    size_t leaf_sizes[] = { 1, 2, 3, 31, 32, 63, 64, 65, 100, 1024, 4096, 5000 };
    for (int iter = 0; iter < 60; iter++) {
        size_t ls = leaf_sizes[tu_rng_below(&r, sizeof leaf_sizes / sizeof leaf_sizes[0])];
        size_t max_leaves = ls == 1 ? 5000 : 5000;
        size_t len =
            (size_t)tu_rng_below(&r, (ls * max_leaves < maxlen ? ls * max_leaves : maxlen) + 1);
        if (iter < 4) len = (size_t)iter; /* 0..3 bytes */
        merkle_hash_alg alg = TU_TREE_HASH(1 + iter % 2);
        merkle_profile prof = iter % 3 == 0 ? MERKLE_PROFILE_SIA : MERKLE_PROFILE_RFC6962;
        uint8_t want[32], got[32];
        ref_stream_root(alg, prof, data, len, ls, want);
        assert_int_equal(merkle_tree_root_bytes(got, prof, alg, ls, data, len), MERKLE_OK);
        assert_memory_equal(want, got, 32);
        /* the same stream split into random writes, twice */
        for (int split = 0; split < 2; split++) {
            merkle_tree t;
            assert_int_equal(merkle_tree_init(&t, prof, alg, ls), MERKLE_OK);
            size_t off = 0;
            while (off < len) {
                size_t k;
                switch (tu_rng_below(&r, 4)) {
                case 0: k = 1 + (size_t)tu_rng_below(&r, 7); break;
                case 1: k = 1 + (size_t)tu_rng_below(&r, 2 * ls + 1); break;
                case 2: k = ls * (1 + (size_t)tu_rng_below(&r, 300)); break;
                default: k = 1 + (size_t)tu_rng_below(&r, 70000); break;
                }
                if (k > len - off) k = len - off;
                assert_int_equal(merkle_tree_write(&t, data + off, k), MERKLE_OK);
                if (tu_rng_below(&r, 8) == 0)
                    assert_int_equal(merkle_tree_write(&t, NULL, 0), MERKLE_OK);
                off += k;
            }
            assert_int_equal(merkle_tree_leaf_count(&t), (len + ls - 1) / ls);
            assert_int_equal(merkle_tree_root(got, NULL, &t), MERKLE_OK);
            assert_memory_equal(want, got, 32);
        }
    }
    free(data);
}

/* ------------------------------------------------------------------ errors and edges */

static void test_errors(void **state)
{
    (void)state;
    merkle_tree t;
    uint8_t out[32], h[32] = { 0 };
    assert_int_equal(merkle_tree_init(&t, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, 0),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_tree_init(&t, (merkle_profile)0, MERKLE_HASH_SHA256, 64),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_tree_init(&t, MERKLE_PROFILE_SIA, (merkle_hash_alg)99, 64),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_tree_init(NULL, MERKLE_PROFILE_SIA, MERKLE_HASH_SHA256, 64),
                     MERKLE_ERR_ARG);
    assert_int_equal(
        merkle_tree_root_bytes(out, MERKLE_PROFILE_SIA, MERKLE_HASH_BLAKE2B_256, 0, "abc", 3),
        MERKLE_ERR_ARG);
    assert_int_equal(
        merkle_tree_root_bytes(NULL, MERKLE_PROFILE_SIA, MERKLE_HASH_BLAKE2B_256, 1, "abc", 3),
        MERKLE_ERR_ARG);
    assert_int_equal(
        merkle_tree_root_list(out, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, NULL, NULL, 2),
        MERKLE_ERR_ARG);
    assert_int_equal(
        merkle_tree_root_list(out, MERKLE_PROFILE_RFC6962, (merkle_hash_alg)9, NULL, NULL, 0),
        MERKLE_ERR_ARG);

    /* A partial stream leaf blocks whole-leaf pushes; finish blocks everything. */
    assert_int_equal(merkle_tree_init(&t, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, 4),
                     MERKLE_OK);
    assert_int_equal(merkle_tree_write(&t, "ab", 2), MERKLE_OK);
    assert_int_equal(merkle_tree_leaf_count(&t), 1);
    assert_int_equal(merkle_tree_push_leaf(&t, "x", 1), MERKLE_ERR_STATE);
    assert_int_equal(merkle_tree_push_leaf_hash(&t, h), MERKLE_ERR_STATE);
    assert_int_equal(merkle_tree_write(&t, NULL, 3), MERKLE_ERR_ARG);
    assert_int_equal(merkle_tree_root(out, NULL, &t), MERKLE_OK);
    uint8_t want[32];
    assert_int_equal(merkle_tree_leaf_hash(want, MERKLE_HASH_SHA256, "ab", 2), MERKLE_OK);
    assert_memory_equal(out, want, 32); /* one short leaf */
    assert_int_equal(merkle_tree_root(out, NULL, &t), MERKLE_ERR_STATE);
    assert_int_equal(merkle_tree_write(&t, "a", 1), MERKLE_ERR_STATE);
    assert_int_equal(merkle_tree_push_leaf(&t, "a", 1), MERKLE_ERR_STATE);
    assert_int_equal(merkle_tree_push_leaf(NULL, "a", 1), MERKLE_ERR_ARG);
    assert_int_equal(merkle_tree_push_leaf_hash(&t, NULL), MERKLE_ERR_ARG);

    /* Empty roots. */
    assert_int_equal(merkle_tree_empty_root(out, MERKLE_PROFILE_SIA, MERKLE_HASH_BLAKE2B_256),
                     MERKLE_OK);
    tu_assert_hex(out, 32, "0000000000000000000000000000000000000000000000000000000000000000",
                  "sia empty");
    assert_int_equal(merkle_tree_empty_root(out, MERKLE_PROFILE_RFC6962, MERKLE_HASH_BLAKE2B_256),
                     MERKLE_OK);
    tu_assert_hex(out, 32, "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8",
                  "b2b empty");
    assert_int_equal(merkle_tree_empty_root(out, (merkle_profile)5, MERKLE_HASH_SHA256),
                     MERKLE_ERR_ARG);

    /* Profiles by name and defaults. */
    merkle_profile p;
    assert_int_equal(merkle_profile_from_name(&p, "sia"), MERKLE_OK);
    assert_int_equal(p, MERKLE_PROFILE_SIA);
    assert_int_equal(merkle_profile_from_name(&p, "rfc6962"), MERKLE_OK);
    assert_int_equal(merkle_profile_from_name(&p, "bitcoin-cash"), MERKLE_ERR_ARG);
    assert_int_equal(merkle_profile_from_name(&p, "bitcoin"), MERKLE_OK); /* a shaped profile */
    merkle_hash_alg a;
    size_t ls;
    assert_int_equal(merkle_profile_defaults(&a, &ls, MERKLE_PROFILE_SIA), MERKLE_OK);
    assert_int_equal(a, MERKLE_HASH_BLAKE2B_256);
    assert_int_equal(ls, 64);
    assert_int_equal(merkle_profile_defaults(&a, &ls, MERKLE_PROFILE_RFC6962), MERKLE_OK);
    assert_int_equal(ls, MERKLE_RFC6962_DEFAULT_LEAF_SIZE);
    assert_int_equal(merkle_profile_defaults(&a, &ls, (merkle_profile)0), MERKLE_ERR_ARG);
    assert_string_equal(merkle_profile_name(MERKLE_PROFILE_SIA), "sia");
    assert_null(merkle_profile_name((merkle_profile)0));
}

/* Leaf counts near 2^64 - 1: the builder refuses the leaf that would overflow. The test
** places the builder's counter near the end directly (no one can push 2^64 leaves). */
static void test_count_overflow(void **state)
{
    (void)state;
    merkle_tree t;
    uint8_t h[32] = { 1 }, out[32];
    assert_int_equal(merkle_tree_init(&t, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, 8),
                     MERKLE_OK);
    memset(t.stack, 0xab, sizeof t.stack);
    t.count = UINT64_MAX - (MERKLE_TREE_CHUNK - 1); /* multiple of the chunk: 2^64 - 128 */
    for (int i = 0; i < MERKLE_TREE_CHUNK - 2; i++)
        assert_int_equal(merkle_tree_push_leaf_hash(&t, h), MERKLE_OK);
    assert_int_equal(merkle_tree_leaf_count(&t), UINT64_MAX - 1);
    /* one more leaf fits (as a partial stream leaf), then nothing */
    assert_int_equal(merkle_tree_write(&t, "abc", 3), MERKLE_OK);
    assert_int_equal(merkle_tree_leaf_count(&t), UINT64_MAX);
    assert_int_equal(merkle_tree_write(&t, "abcdefghijk", 11), MERKLE_ERR_RANGE);
    /* the root of a tree with 2^64 - 1 leaves is computable */
    assert_int_equal(merkle_tree_root(out, NULL, &t), MERKLE_OK);

    assert_int_equal(merkle_tree_init(&t, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, 8),
                     MERKLE_OK);
    t.count = UINT64_MAX - (MERKLE_TREE_CHUNK - 1);
    for (int i = 0; i < MERKLE_TREE_CHUNK - 1; i++)
        assert_int_equal(merkle_tree_push_leaf(&t, "x", 1), MERKLE_OK);
    assert_int_equal(merkle_tree_push_leaf(&t, "x", 1), MERKLE_ERR_RANGE);
    assert_int_equal(merkle_tree_push_leaf_hash(&t, h), MERKLE_ERR_RANGE);
    assert_int_equal(merkle_tree_write(&t, "12345678", 8), MERKLE_ERR_RANGE);
}

/* merkle_tree.version is checked: a builder that was never initialised is refused. */
static void test_version_checked(void **state)
{
    (void)state;
    static merkle_tree t; /* zero: never initialised */
    uint8_t out[MERKLE_HASH_LEN];
    assert_int_equal(merkle_tree_push_leaf(&t, "a", 1), MERKLE_ERR_STATE);
    assert_int_equal(merkle_tree_push_leaf_hash(&t, out), MERKLE_ERR_STATE);
    assert_int_equal(merkle_tree_write(&t, "a", 1), MERKLE_ERR_STATE);
    assert_int_equal(merkle_tree_root(out, NULL, &t), MERKLE_ERR_STATE);
    assert_int_equal(merkle_tree_init(&t, MERKLE_PROFILE_RFC6962, MERKLE_HASH_MD5, 64),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_tree_init(&t, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, 64),
                     MERKLE_OK);
    assert_int_equal(merkle_tree_push_leaf(&t, "a", 1), MERKLE_OK);
    t.version = 99; /* a layout this library does not know */
    assert_int_equal(merkle_tree_push_leaf(&t, "a", 1), MERKLE_ERR_STATE);
    assert_int_equal(merkle_tree_root(out, NULL, &t), MERKLE_ERR_STATE);
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
        cmocka_unit_test(test_root_vectors),        cmocka_unit_test(test_leaves_vs_reference),
        cmocka_unit_test(test_stream_vs_reference), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_count_overflow),      cmocka_unit_test(test_version_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
