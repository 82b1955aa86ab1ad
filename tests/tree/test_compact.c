/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Compact ranges: every split of a leaf list into adjacent ranges merges to the root of the
** whole list (checked against merkle_tree_root_list and a recursive reference), random multi-way
** splits folded in random association order, and every error path.
*/
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/proof.h"
#include "testutil.h"

static void ref_sha(uint8_t out[32], uint8_t prefix, const uint8_t *a, size_t alen,
                    const uint8_t *b, size_t blen)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    EVP_DigestUpdate(ctx, &prefix, 1);
    EVP_DigestUpdate(ctx, a, alen);
    EVP_DigestUpdate(ctx, b, blen);
    EVP_DigestFinal_ex(ctx, out, NULL);
    EVP_MD_CTX_free(ctx);
}

/* Recursive MTH over leaf hashes [lo, hi). */
static void ref_mth(const uint8_t (*lh)[32], size_t lo, size_t hi, uint8_t out[32])
{
    if (hi - lo == 1) {
        memcpy(out, lh[lo], 32);
        return;
    }
    size_t k = 1;
    while (k * 2 < hi - lo) k *= 2;
    uint8_t l[32], r[32];
    ref_mth(lh, lo, lo + k, l);
    ref_mth(lh, lo + k, hi, r);
    ref_sha(out, 1, l, 32, r, 32);
}

#define MAXN 300

static uint8_t g_leaf[MAXN][8];
static size_t g_len[MAXN];
static const uint8_t *g_ptr[MAXN];
static uint8_t g_lh[MAXN][32];

static void setup_leaves(void)
{
    for (size_t i = 0; i < MAXN; i++) {
        g_len[i] = (size_t)snprintf((char *)g_leaf[i], sizeof g_leaf[i], "%zu", i);
        g_ptr[i] = g_leaf[i];
        ref_sha(g_lh[i], 0, g_leaf[i], g_len[i], NULL, 0);
    }
}

static void range_of(merkle_compact_range *r, size_t a, size_t b)
{
    assert_int_equal(
        merkle_compact_range_from_leaves(r, MERKLE_HASH_SHA256, a, g_ptr + a, g_len + a, b - a),
        MERKLE_OK);
    assert_int_equal(r->begin, a);
    assert_int_equal(r->end, b);
}

/* Every split point of every n <= 64 (and some larger n): [0,k) ++ [k,n). */
static void test_two_way_splits(void **state)
{
    (void)state;
    setup_leaves();
    for (size_t n = 1; n <= 130; n += n < 64 ? 1 : 11) {
        uint8_t want[32], alt[32];
        ref_mth((const uint8_t(*)[32])g_lh, 0, n, want);
        assert_int_equal(
            merkle_tree_root_list(alt, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, g_ptr, g_len, n),
            MERKLE_OK);
        assert_memory_equal(want, alt, 32);
        for (size_t k = 0; k <= n; k++) {
            merkle_compact_range left, right;
            range_of(&left, 0, k);
            range_of(&right, k, n);
            assert_int_equal(merkle_compact_range_merge(&left, &right), MERKLE_OK);
            uint8_t got[32];
            assert_int_equal(merkle_compact_range_root(got, &left), MERKLE_OK);
            assert_memory_equal(got, want, 32);
            /* The merged range has the canonical form of the range built in one go. */
            merkle_compact_range whole;
            range_of(&whole, 0, n);
            assert_int_equal(whole.count, left.count);
            assert_memory_equal(whole.heights, left.heights, whole.count);
            assert_memory_equal(whole.hashes, left.hashes, whole.count * 32);
        }
    }
}

/* Random splits into many pieces, each built from leaf hashes or appended subtrees, merged
** in a random association order (associativity). */
static void test_random_splits(void **state)
{
    (void)state;
    setup_leaves();
    tu_rng rng;
    tu_rng_seed(&rng, 99);
    for (int t = 0; t < 300; t++) {
        size_t n = 1 + (size_t)tu_rng_below(&rng, MAXN);
        size_t cuts[40];
        size_t nc = 0;
        cuts[nc++] = 0;
        size_t pieces = 1 + (size_t)tu_rng_below(&rng, 12);
        for (size_t p = 1; p < pieces; p++) cuts[nc++] = (size_t)tu_rng_below(&rng, n + 1);
        cuts[nc++] = n;
        /* sort */
        for (size_t i = 1; i < nc; i++)
            for (size_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
                size_t x = cuts[j];
                cuts[j] = cuts[j - 1];
                cuts[j - 1] = x;
            }
        merkle_compact_range *rs = malloc((nc - 1) * sizeof *rs);
        for (size_t i = 0; i + 1 < nc; i++) {
            assert_int_equal(merkle_compact_range_init(&rs[i], MERKLE_HASH_SHA256, cuts[i]),
                             MERKLE_OK);
            for (size_t l = cuts[i]; l < cuts[i + 1]; l++)
                assert_int_equal(merkle_compact_range_append_leaf_hash(&rs[i], g_lh[l]), MERKLE_OK);
        }
        /* Merge adjacent pairs at random positions until one range is left. */
        size_t m = nc - 1;
        while (m > 1) {
            size_t i = (size_t)tu_rng_below(&rng, m - 1);
            assert_int_equal(merkle_compact_range_merge(&rs[i], &rs[i + 1]), MERKLE_OK);
            memmove(&rs[i + 1], &rs[i + 2], (m - i - 2) * sizeof *rs);
            m--;
        }
        uint8_t want[32], got[32];
        ref_mth((const uint8_t(*)[32])g_lh, 0, n, want);
        assert_int_equal(merkle_compact_range_root(got, &rs[0]), MERKLE_OK);
        assert_memory_equal(got, want, 32);
        free(rs);
    }
}

/* Entries of a range are exactly the perfect subtrees covering it: a range [a,b) appended
** as subtrees (from another range's entries) into an aligned position works. */
static void test_subtrees_and_errors(void **state)
{
    (void)state;
    setup_leaves();
    merkle_compact_range r, s;
    uint8_t out[32];
    assert_int_equal(merkle_compact_range_init(NULL, MERKLE_HASH_SHA256, 0), MERKLE_ERR_ARG);
    assert_int_equal(merkle_compact_range_init(&r, (merkle_hash_alg)0, 0), MERKLE_ERR_ARG);
    assert_int_equal(merkle_compact_range_init(&r, MERKLE_HASH_SHA256, 0), MERKLE_OK);
    assert_int_equal(merkle_compact_range_root(out, &r), MERKLE_ERR_STATE); /* empty */
    /* Subtree of 4 leaves at 0, then 2 at 4, then 1 at 6: root of 7 leaves. */
    uint8_t s4[32], s2[32];
    ref_mth((const uint8_t(*)[32])g_lh, 0, 4, s4);
    ref_mth((const uint8_t(*)[32])g_lh, 4, 6, s2);
    assert_int_equal(merkle_compact_range_append_subtree(&r, 2, s4), MERKLE_OK);
    assert_int_equal(merkle_compact_range_append_subtree(&r, 3, s4),
                     MERKLE_ERR_STATE); /* 8 leaves at 4 */
    assert_int_equal(merkle_compact_range_append_subtree(&r, 1, s2), MERKLE_OK);
    assert_int_equal(merkle_compact_range_append_subtree(&r, 2, s2),
                     MERKLE_ERR_STATE); /* 4 leaves at 6 */
    assert_int_equal(merkle_compact_range_append_leaf(&r, g_leaf[6], g_len[6]), MERKLE_OK);
    uint8_t want[32];
    ref_mth((const uint8_t(*)[32])g_lh, 0, 7, want);
    assert_int_equal(merkle_compact_range_root(out, &r), MERKLE_OK);
    assert_memory_equal(out, want, 32);
    assert_int_equal(r.count, 3);
    assert_int_equal(merkle_compact_range_append_subtree(&r, 64, want), MERKLE_ERR_ARG);
    assert_int_equal(merkle_compact_range_append_subtree(&r, 1, NULL), MERKLE_ERR_ARG);
    assert_int_equal(merkle_compact_range_append_leaf(&r, NULL, 1), MERKLE_ERR_ARG);
    /* A range not starting at 0 has no root. */
    range_of(&s, 3, 9);
    assert_int_equal(merkle_compact_range_root(out, &s), MERKLE_ERR_STATE);
    /* Merge: not adjacent, other hash, itself. */
    range_of(&r, 0, 3);
    range_of(&s, 4, 9);
    assert_int_equal(merkle_compact_range_merge(&r, &s), MERKLE_ERR_STATE);
    range_of(&s, 3, 9);
    s.hash = MERKLE_HASH_BLAKE2B_256;
    assert_int_equal(merkle_compact_range_merge(&r, &s), MERKLE_ERR_STATE);
    assert_int_equal(merkle_compact_range_merge(&r, &r), MERKLE_ERR_ARG);
    assert_int_equal(merkle_compact_range_merge(&r, NULL), MERKLE_ERR_ARG);
    /* A corrupt right range leaves r untouched. */
    range_of(&s, 3, 9);
    merkle_compact_range before = r;
    s.heights[0] = 5; /* claims 32 leaves at position 3: not aligned */
    assert_int_equal(merkle_compact_range_merge(&r, &s), MERKLE_ERR_STATE);
    assert_memory_equal(&before, &r, sizeof r);
    /* Near the top of the index space: overflow is refused. */
    assert_int_equal(merkle_compact_range_init(&r, MERKLE_HASH_SHA256, UINT64_MAX - 1), MERKLE_OK);
    assert_int_equal(merkle_compact_range_append_leaf_hash(&r, g_lh[0]), MERKLE_OK);
    assert_int_equal(merkle_compact_range_append_leaf_hash(&r, g_lh[0]), MERKLE_ERR_RANGE);
    /* Large aligned begin: 2^40 + leaves; entries stay few. */
    assert_int_equal(merkle_compact_range_init(&r, MERKLE_HASH_SHA256, (uint64_t)1 << 40),
                     MERKLE_OK);
    for (int i = 0; i < 100; i++)
        assert_int_equal(merkle_compact_range_append_leaf_hash(&r, g_lh[i]), MERKLE_OK);
    assert_int_equal(r.count, 3); /* 64 + 32 + 4 */
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_way_splits),
        cmocka_unit_test(test_random_splits),
        cmocka_unit_test(test_subtrees_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
