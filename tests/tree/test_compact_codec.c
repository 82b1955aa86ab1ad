/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Compact ranges as data: the getters describe the range that appends built (each hash is the
** RFC 6962 root of its block, checked against a recursive reference over OpenSSL), a range
** rebuilt from (begin, end, hashes) or decoded from "MKCR" bytes equals the original and keeps
** merging to the right roots, and every malformed encoding is refused with its offset.
*/
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/proof.h"
#include "merkle/tree.h"
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

#define MAXN 140

static uint8_t g_lh[MAXN][32];

/* Recursive MTH over leaf hashes [lo, hi). */
static void ref_mth(size_t lo, size_t hi, uint8_t out[32])
{
    if (hi - lo == 1) {
        memcpy(out, g_lh[lo], 32);
        return;
    }
    size_t k = 1;
    while (k * 2 < hi - lo) k *= 2;
    uint8_t l[32], r[32];
    ref_mth(lo, lo + k, l);
    ref_mth(lo + k, hi, r);
    ref_sha(out, 1, l, 32, r, 32);
}

static int setup(void **state)
{
    (void)state;
    for (size_t i = 0; i < MAXN; i++) {
        char b[16];
        int n = snprintf(b, sizeof b, "leaf %zu", i);
        ref_sha(g_lh[i], 0, (const uint8_t *)b, (size_t)n, NULL, 0);
    }
    return 0;
}

static void build(merkle_compact_range *r, size_t a, size_t b)
{
    assert_int_equal(merkle_compact_range_init(r, MERKLE_HASH_SHA256, a), MERKLE_OK);
    for (size_t i = a; i < b; i++)
        assert_int_equal(merkle_compact_range_append_leaf_hash(r, g_lh[i]), MERKLE_OK);
}

/* Every range [a, b) of up to MAXN leaves: getters, block hashes, from_hashes, encode/decode. */
static void test_every_range(void **state)
{
    (void)state;
    static uint8_t buf[MERKLE_COMPACT_ENCODED_MAX];
    for (size_t a = 0; a < MAXN; a++) {
        for (size_t b = a; b <= MAXN; b++) {
            merkle_compact_range r, back;
            build(&r, a, b);
            assert_int_equal(merkle_compact_range_begin(&r), a);
            assert_int_equal(merkle_compact_range_end(&r), b);
            assert_int_equal(merkle_compact_range_hash(&r), MERKLE_HASH_SHA256);
            size_t n = merkle_compact_range_hash_count(&r);
            assert_int_equal(n, merkle_compact_range_hash_count_for(a, b));
            uint8_t hashes[MERKLE_COMPACT_MAX][32];
            size_t got = 99;
            assert_int_equal(merkle_compact_range_hashes(hashes, MERKLE_COMPACT_MAX, &got, &r),
                             MERKLE_OK);
            assert_int_equal(got, n);
            /* Each hash is the root of the next maximal aligned block. */
            size_t pos = a;
            for (size_t i = 0; i < n; i++) {
                size_t sz = 1;
                while ((pos % (sz * 2)) == 0 && pos + sz * 2 <= b) sz *= 2;
                uint8_t want[32];
                ref_mth(pos, pos + sz, want);
                assert_memory_equal(hashes[i], want, 32);
                pos += sz;
            }
            assert_int_equal(pos, b);
            if (n) {
                got = 0;
                assert_int_equal(merkle_compact_range_hashes(hashes, n - 1, &got, &r),
                                 MERKLE_ERR_BUFFER);
                assert_int_equal(got, n);
            }
            assert_int_equal(merkle_compact_range_from_hashes(&back, MERKLE_HASH_SHA256, a, b,
                                                              (const uint8_t(*)[32])hashes, n,
                                                              NULL),
                             MERKLE_OK);
            assert_int_equal(back.begin, a);
            assert_int_equal(back.end, b);
            assert_int_equal(back.count, n);
            assert_memory_equal(back.heights, r.heights, n);
            assert_memory_equal(back.hashes, r.hashes, n * 32);
            size_t len = 0;
            assert_int_equal(merkle_compact_range_encode(buf, sizeof buf, &len, &r), MERKLE_OK);
            assert_int_equal(len, 23 + 32 * n);
            memset(&back, 0xA5, sizeof back);
            assert_int_equal(merkle_compact_range_decode(&back, buf, len, NULL), MERKLE_OK);
            assert_int_equal(back.begin, a);
            assert_int_equal(back.end, b);
            assert_int_equal(back.count, n);
            assert_memory_equal(back.heights, r.heights, n);
            assert_memory_equal(back.hashes, r.hashes, n * 32);
            /* A decoded range keeps working: extend it to MAXN and compare roots from 0. */
            if (a == 0 && b > 0) {
                for (size_t i = b; i < MAXN; i++)
                    assert_int_equal(merkle_compact_range_append_leaf_hash(&back, g_lh[i]),
                                     MERKLE_OK);
                uint8_t root[32], want[32];
                assert_int_equal(merkle_compact_range_root(root, &back), MERKLE_OK);
                ref_mth(0, MAXN, want);
                assert_memory_equal(root, want, 32);
            }
        }
    }
}

/* The known bytes of one encoding (so the format cannot drift silently). */
static void test_layout(void **state)
{
    (void)state;
    merkle_compact_range r;
    build(&r, 3, 9); /* blocks [3,4) [4,8) [8,9) */
    uint8_t buf[MERKLE_COMPACT_ENCODED_MAX];
    size_t len;
    assert_int_equal(merkle_compact_range_encode(buf, sizeof buf, &len, &r), MERKLE_OK);
    assert_int_equal(len, 23 + 3 * 32);
    static const uint8_t hdr[23] = { 'M', 'K', 'C', 'R', 1, 1, 0, 0, 0, 0, 0, 0,
                                     0,   3,   0,   0,   0, 0, 0, 0, 0, 9, 3 };
    assert_memory_equal(buf, hdr, 23);
    uint8_t b47[32];
    ref_mth(4, 8, b47);
    assert_memory_equal(buf + 23, g_lh[3], 32);
    assert_memory_equal(buf + 55, b47, 32);
    assert_memory_equal(buf + 87, g_lh[8], 32);
    /* Buffer too small: the size is still reported; cap 0 with NULL out is a size query. */
    size_t need = 0;
    assert_int_equal(merkle_compact_range_encode(buf, 22, &need, &r), MERKLE_ERR_BUFFER);
    assert_int_equal(need, len);
    need = 0;
    assert_int_equal(merkle_compact_range_encode(NULL, 0, &need, &r), MERKLE_ERR_BUFFER);
    assert_int_equal(need, len);
    /* BLAKE2b-256 and Keccak-256 ranges encode with their own byte. */
    merkle_compact_range k;
    assert_int_equal(merkle_compact_range_init(&k, MERKLE_HASH_KECCAK256, 0), MERKLE_OK);
    assert_int_equal(merkle_compact_range_append_leaf(&k, "x", 1), MERKLE_OK);
    assert_int_equal(merkle_compact_range_encode(buf, sizeof buf, &len, &k), MERKLE_OK);
    assert_int_equal(buf[5], 7);
    merkle_compact_range back;
    assert_int_equal(merkle_compact_range_decode(&back, buf, len, NULL), MERKLE_OK);
    assert_int_equal(merkle_compact_range_hash(&back), MERKLE_HASH_KECCAK256);
    assert_int_equal(merkle_compact_range_init(&k, MERKLE_HASH_BLAKE2B_256, 0), MERKLE_OK);
    assert_int_equal(merkle_compact_range_encode(buf, sizeof buf, &len, &k), MERKLE_OK);
    assert_int_equal(buf[5], 2);
    assert_int_equal(len, 23);
    assert_int_equal(merkle_compact_range_decode(&back, buf, len, NULL), MERKLE_OK);
    assert_int_equal(merkle_compact_range_hash(&back), MERKLE_HASH_BLAKE2B_256);
}

/* Near 2^64: the largest ranges encode in MERKLE_COMPACT_ENCODED_MAX bytes and decode. */
static void test_extremes(void **state)
{
    (void)state;
    assert_int_equal(merkle_compact_range_hash_count_for(0, UINT64_MAX), 64);
    assert_int_equal(merkle_compact_range_hash_count_for(1, UINT64_MAX), 126);
    assert_int_equal(merkle_compact_range_hash_count_for(5, 5), 0);
    assert_int_equal(merkle_compact_range_hash_count_for(6, 5), 0);
    assert_int_equal(merkle_compact_range_hash_count_for(0, (uint64_t)1 << 63), 1);
    static uint8_t hashes[MERKLE_COMPACT_MAX][32];
    for (size_t i = 0; i < MERKLE_COMPACT_MAX; i++) memset(hashes[i], (int)i, 32);
    merkle_compact_range r, back;
    assert_int_equal(merkle_compact_range_from_hashes(&r, MERKLE_HASH_SHA256, 1, UINT64_MAX,
                                                      (const uint8_t(*)[32])hashes, 126, NULL),
                     MERKLE_OK);
    assert_int_equal(r.heights[0], 0);
    assert_int_equal(r.heights[62], 62);
    assert_int_equal(r.heights[63], 62);
    assert_int_equal(r.heights[125], 0);
    static uint8_t buf[MERKLE_COMPACT_ENCODED_MAX];
    size_t len;
    assert_int_equal(merkle_compact_range_encode(buf, sizeof buf, &len, &r), MERKLE_OK);
    assert_true(len <= MERKLE_COMPACT_ENCODED_MAX);
    assert_int_equal(merkle_compact_range_decode(&back, buf, len, NULL), MERKLE_OK);
    assert_memory_equal(back.hashes, r.hashes, 126 * 32);
    /* One more leaf than the index space holds is refused after a decode too. */
    assert_int_equal(merkle_compact_range_append_leaf_hash(&back, g_lh[0]), MERKLE_ERR_RANGE);
    /* A decoded range merges with an appended one exactly as the original would. */
    merkle_compact_range left, right, whole;
    build(&left, 0, 77);
    build(&right, 77, 130);
    build(&whole, 0, 130);
    assert_int_equal(merkle_compact_range_encode(buf, sizeof buf, &len, &right), MERKLE_OK);
    assert_int_equal(merkle_compact_range_decode(&back, buf, len, NULL), MERKLE_OK);
    assert_int_equal(merkle_compact_range_merge(&left, &back), MERKLE_OK);
    uint8_t x[32], y[32];
    assert_int_equal(merkle_compact_range_root(x, &left), MERKLE_OK);
    assert_int_equal(merkle_compact_range_root(y, &whole), MERKLE_OK);
    assert_memory_equal(x, y, 32);
}

static void expect_decode_fail(const uint8_t *buf, size_t len, uint64_t offset)
{
    merkle_compact_range r;
    memset(&r, 0x5A, sizeof r);
    merkle_compact_range before = r;
    merkle_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(merkle_compact_range_decode(&r, buf, len, &err), MERKLE_ERR_FORMAT);
    assert_int_equal(err.status, MERKLE_ERR_FORMAT);
    assert_true(err.message[0] != 0);
    if (offset != UINT64_MAX) assert_int_equal(err.offset, offset);
    assert_memory_equal(&r, &before, sizeof r);
}

static void test_decode_errors(void **state)
{
    (void)state;
    merkle_compact_range r;
    build(&r, 3, 9);
    uint8_t good[MERKLE_COMPACT_ENCODED_MAX + 1], bad[MERKLE_COMPACT_ENCODED_MAX + 1];
    size_t len;
    assert_int_equal(merkle_compact_range_encode(good, sizeof good, &len, &r), MERKLE_OK);
    /* Every truncation. */
    for (size_t l = 0; l < len; l++) expect_decode_fail(good, l, UINT64_MAX);
    /* Trailing byte. */
    memcpy(bad, good, len);
    bad[len] = 0;
    expect_decode_fail(bad, len + 1, len);
    /* Magic, version, hash. */
    memcpy(bad, good, len);
    bad[3] = 'P';
    expect_decode_fail(bad, len, 0);
    memcpy(bad, good, len);
    bad[4] = 2;
    expect_decode_fail(bad, len, 4);
    static const uint8_t bad_hash[] = { 0, 3, 4, 5, 6, 8, 255 };
    for (size_t i = 0; i < sizeof bad_hash; i++) {
        memcpy(bad, good, len);
        bad[5] = bad_hash[i];
        expect_decode_fail(bad, len, 5);
    }
    /* begin > end. */
    memcpy(bad, good, len);
    bad[13] = 10;
    expect_decode_fail(bad, len, 14);
    /* A count that does not belong to [begin, end), with the bytes to match it. */
    memcpy(bad, good, len);
    bad[22] = 2;
    expect_decode_fail(bad, len - 32, 22);
    memcpy(bad, good, len);
    bad[21] = 13; /* [3, 13) has four blocks: [3,4) [4,8) [8,12) [12,13) */
    expect_decode_fail(bad, len, 22);
    /* Arguments. */
    assert_int_equal(merkle_compact_range_decode(NULL, good, len, NULL), MERKLE_ERR_ARG);
    assert_int_equal(merkle_compact_range_decode(&r, NULL, 5, NULL), MERKLE_ERR_ARG);
    assert_int_equal(merkle_compact_range_decode(&r, NULL, 0, NULL), MERKLE_ERR_FORMAT);
}

static void test_argument_errors(void **state)
{
    (void)state;
    merkle_compact_range r, before;
    build(&r, 2, 5);
    before = r;
    uint8_t h[3][32] = { { 0 } };
    merkle_error err;
    assert_int_equal(merkle_compact_range_from_hashes(&r, MERKLE_HASH_SHA256, 5, 4,
                                                      (const uint8_t(*)[32])h, 0, &err),
                     MERKLE_ERR_RANGE);
    assert_int_equal(merkle_compact_range_from_hashes(&r, MERKLE_HASH_SHA256, 2, 5,
                                                      (const uint8_t(*)[32])h, 3, &err),
                     MERKLE_ERR_FORMAT); /* [2,4) [4,5): two hashes */
    assert_non_null(strstr(err.message, "2 hashes"));
    assert_int_equal(merkle_compact_range_from_hashes(&r, MERKLE_HASH_SHA256, 2, 5, NULL, 2, &err),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_compact_range_from_hashes(&r, (merkle_hash_alg)99, 2, 5,
                                                      (const uint8_t(*)[32])h, 2, &err),
                     MERKLE_ERR_ARG);
    assert_memory_equal(&r, &before, sizeof r);
    assert_int_equal(
        merkle_compact_range_from_hashes(NULL, MERKLE_HASH_SHA256, 0, 0, NULL, 0, NULL),
        MERKLE_ERR_ARG);
    /* An empty range from nothing. */
    assert_int_equal(merkle_compact_range_from_hashes(&r, MERKLE_HASH_SHA256, 7, 7, NULL, 0, NULL),
                     MERKLE_OK);
    assert_int_equal(merkle_compact_range_hash_count(&r), 0);
    size_t n = 5;
    assert_int_equal(merkle_compact_range_hashes(NULL, 0, &n, &r), MERKLE_OK);
    assert_int_equal(n, 0);
    /* Getters on NULL and on a corrupt struct. */
    assert_int_equal(merkle_compact_range_begin(NULL), 0);
    assert_int_equal(merkle_compact_range_end(NULL), 0);
    assert_int_equal(merkle_compact_range_hash(NULL), 0);
    assert_int_equal(merkle_compact_range_hash_count(NULL), 0);
    uint8_t buf[64];
    assert_int_equal(merkle_compact_range_hashes(h, 3, NULL, &r), MERKLE_ERR_ARG);
    assert_int_equal(merkle_compact_range_hashes(NULL, 3, &n, &r), MERKLE_ERR_ARG);
    assert_int_equal(merkle_compact_range_encode(buf, sizeof buf, NULL, &r), MERKLE_ERR_ARG);
    assert_int_equal(merkle_compact_range_encode(buf, sizeof buf, &n, NULL), MERKLE_ERR_ARG);
    r.version = 77;
    assert_int_equal(merkle_compact_range_hash_count(&r), 0);
    assert_int_equal(merkle_compact_range_hashes(h, 3, &n, &r), MERKLE_ERR_ARG);
    assert_int_equal(merkle_compact_range_encode(buf, sizeof buf, &n, &r), MERKLE_ERR_ARG);
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_range),     cmocka_unit_test(test_layout),
        cmocka_unit_test(test_extremes),        cmocka_unit_test(test_decode_errors),
        cmocka_unit_test(test_argument_errors),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
