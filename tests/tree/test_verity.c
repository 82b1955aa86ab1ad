/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** fs-verity and dm-verity trees (merkle/verity.h) against a reference written here on
** OpenSSL (the formats as the kernel documentation and cryptsetup define them, no library
** code): many sizes, block sizes and salts, every way of splitting the writes, the dm-verity
** hash device's layout, and the error paths. The CLI tests compare with the real tools
** (fsverity digest, veritysetup format / verify).
*/
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/verity.h"
#include "testutil.h"

static void sha(uint8_t out[32], const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    EVP_DigestInit_ex(c, EVP_sha256(), NULL);
    EVP_DigestUpdate(c, a, al);
    EVP_DigestUpdate(c, b, bl);
    EVP_DigestFinal_ex(c, out, NULL);
    EVP_MD_CTX_free(c);
}

/* Reference root; levels (lowest first) appended to *tree when not NULL. */
static void ref_root(uint8_t root[32], int fs, size_t bs, const uint8_t *salt, size_t sl,
                     const uint8_t *data, size_t len, uint8_t **levels, size_t *level_len,
                     unsigned *nlevels)
{
    uint8_t pre[256];
    size_t pl = sl;
    memset(pre, 0, sizeof pre);
    memcpy(pre, salt, sl);
    if (fs && sl) pl = 64;
    size_t nb = fs ? (len + bs - 1) / bs : len / bs;
    uint8_t *hs = malloc(nb * 32 + 32), *blk = malloc(bs);
    for (size_t i = 0; i < nb; i++) {
        size_t l = len - i * bs < bs ? len - i * bs : bs;
        memset(blk, 0, bs);
        memcpy(blk, data + i * bs, l);
        sha(hs + 32 * i, pre, pl, blk, bs);
    }
    if (nlevels) *nlevels = 0;
    if (nb == 0) {
        memset(root, 0, 32);
    } else {
        size_t count = nb;
        while (count > 1) {
            size_t per = bs / 32, blocks = (count + per - 1) / per;
            uint8_t *lv = calloc(blocks, bs), *next = malloc(blocks * 32);
            memcpy(lv, hs, count * 32);
            for (size_t b = 0; b < blocks; b++) sha(next + 32 * b, pre, pl, lv + b * bs, bs);
            if (levels) {
                levels[*nlevels] = lv;
                level_len[(*nlevels)++] = blocks * bs;
            } else {
                free(lv);
            }
            free(hs);
            hs = next;
            count = blocks;
        }
        memcpy(root, hs, 32);
    }
    free(hs);
    free(blk);
}

static void ref_fs_digest(uint8_t out[32], const uint8_t root[32], size_t bs, const uint8_t *salt,
                          size_t sl, uint64_t size)
{
    uint8_t d[256];
    memset(d, 0, sizeof d);
    d[0] = 1;
    d[1] = 1;
    unsigned lg = 0;
    while (((size_t)1 << lg) < bs) lg++;
    d[2] = (uint8_t)lg;
    d[3] = (uint8_t)sl;
    for (int i = 0; i < 8; i++) d[8 + i] = (uint8_t)(size >> (8 * i));
    memcpy(d + 16, root, 32);
    memcpy(d + 80, salt, sl);
    sha(out, d, sizeof d, NULL, 0);
}

static void one_case(tu_rng *r, int fs, size_t bs, size_t sl, size_t len)
{
    uint8_t salt[256];
    tu_rng_fill(r, salt, sl);
    uint8_t *data = malloc(len + 1);
    tu_rng_fill(r, data, len);
    uint8_t want[32], got[32], wd[32], gd[32];
    uint8_t *levels[64];
    size_t level_len[64];
    unsigned nl = 0;
    ref_root(want, fs, bs, salt, sl, data, len, levels, level_len, &nl);
    merkle_verity_format f = fs ? MERKLE_VERITY_FSVERITY : MERKLE_VERITY_DMVERITY;
    merkle_status st = merkle_verity_digest(got, fs ? gd : NULL, f, bs, salt, sl, data, len, NULL);
    if (!fs && len < bs) {
        assert_int_equal(st, MERKLE_ERR_RANGE);
    } else {
        assert_int_equal(st, MERKLE_OK);
        assert_memory_equal(got, want, 32);
        if (fs) {
            ref_fs_digest(wd, want, bs, salt, sl, len);
            assert_memory_equal(gd, wd, 32);
        }
        /* Streamed in random pieces: the same root. */
        merkle_verity *v;
        assert_int_equal(merkle_verity_alloc(&v, f, bs, salt, sl, NULL), MERKLE_OK);
        for (size_t at = 0; at < len;) {
            size_t k = (size_t)tu_rng_below(r, 3 * bs + 2);
            if (k > len - at) k = len - at;
            assert_int_equal(merkle_verity_write(v, data + at, k), MERKLE_OK);
            at += k;
        }
        assert_int_equal(merkle_verity_data_size(v), len);
        assert_int_equal(merkle_verity_uncovered(v), fs ? 0 : len % bs);
        assert_int_equal(merkle_verity_finish(got, fs ? gd : NULL, v), MERKLE_OK);
        assert_memory_equal(got, want, 32);
        if (fs) assert_memory_equal(gd, wd, 32);
        assert_int_equal(merkle_verity_finish(got, NULL, v), MERKLE_ERR_STATE);
        assert_int_equal(merkle_verity_write(v, data, 1), MERKLE_ERR_STATE);
        size_t need = 0;
        if (!fs) {
            /* The hash device: superblock block, then the levels top first. */
            assert_int_equal(merkle_verity_hash_tree(NULL, 0, &need, NULL, v), MERKLE_ERR_BUFFER);
            size_t expect = bs;
            for (unsigned i = 0; i < nl; i++) expect += level_len[i];
            assert_int_equal(need, expect);
            uint8_t *img = malloc(need), uuid[16];
            memset(uuid, 0x5a, 16);
            assert_int_equal(merkle_verity_hash_tree(img, need - 1, &need, uuid, v),
                             MERKLE_ERR_BUFFER);
            assert_int_equal(merkle_verity_hash_tree(img, need, &need, uuid, v), MERKLE_OK);
            assert_memory_equal(img, "verity\0\0\1\0\0\0\1\0\0\0", 16);
            assert_memory_equal(img + 16, uuid, 16);
            assert_string_equal((const char *)img + 32, "sha256");
            assert_int_equal(img[64] | img[65] << 8 | img[66] << 16, bs);
            assert_int_equal(img[68] | img[69] << 8 | img[70] << 16, bs);
            uint64_t blocks = 0;
            for (int i = 0; i < 8; i++) blocks |= (uint64_t)img[72 + i] << (8 * i);
            assert_int_equal(blocks, len / bs);
            assert_int_equal(img[80] | img[81] << 8, sl);
            if (sl) assert_memory_equal(img + 88, salt, sl);
            for (size_t i = 88 + sl; i < bs; i++) assert_int_equal(img[i], 0);
            size_t at = bs;
            for (unsigned i = nl; i-- > 0;) {
                assert_memory_equal(img + at, levels[i], level_len[i]);
                at += level_len[i];
            }
            free(img);
        } else {
            assert_int_equal(merkle_verity_hash_tree(NULL, 0, &need, NULL, v), MERKLE_ERR_ARG);
        }
        merkle_verity_free(v);
    }
    for (unsigned i = 0; i < nl; i++) free(levels[i]);
    free(data);
}

static void test_against_reference(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 36);
    static const size_t fs_bs[] = { 1024, 4096, 65536 }, dm_bs[] = { 512, 1024, 4096 };
    static const size_t salts[] = { 0, 1, 2, 31, 32 }, dm_salts[] = { 0, 5, 32, 64, 65, 256 };
    for (int fs = 0; fs < 2; fs++) {
        for (size_t b = 0; b < 3; b++) {
            size_t bs = fs ? fs_bs[b] : dm_bs[b];
            for (size_t s = 0; s < (fs ? 5u : 6u); s++) {
                size_t sl = fs ? salts[s] : dm_salts[s];
                static const size_t mult[] = { 0, 1, 2, 3, 127, 128, 129, 300 };
                for (size_t m = 0; m < sizeof mult / sizeof mult[0]; m++) {
                    if (bs == 65536 && mult[m] > 3) continue;
                    size_t len = mult[m] * bs;
                    one_case(&r, fs, bs, sl, len);
                    one_case(&r, fs, bs, sl, len + 1 + (size_t)tu_rng_below(&r, bs - 1));
                }
            }
        }
    }
    /* Deeper trees: 512-byte dm-verity blocks hold 16 hashes, so 5000 blocks make 4 levels. */
    one_case(&r, 0, 512, 7, 5000 * 512);
    one_case(&r, 1, 1024, 3, 40000 * 1024 + 5);
}

static void test_errors(void **state)
{
    (void)state;
    merkle_verity *v = (merkle_verity *)&v;
    uint8_t salt[300] = { 0 }, root[32], dig[32];
    assert_int_equal(merkle_verity_alloc(NULL, MERKLE_VERITY_FSVERITY, 4096, NULL, 0, NULL),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_verity_alloc(&v, (merkle_verity_format)9, 4096, NULL, 0, NULL),
                     MERKLE_ERR_ARG);
    assert_null(v);
    static const size_t bad_fs[] = { 0, 512, 1000, 3000, 131072 };
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(merkle_verity_alloc(&v, MERKLE_VERITY_FSVERITY, bad_fs[i], NULL, 0, NULL),
                         MERKLE_ERR_ARG);
    assert_int_equal(merkle_verity_alloc(&v, MERKLE_VERITY_DMVERITY, 256, NULL, 0, NULL),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_verity_alloc(&v, MERKLE_VERITY_FSVERITY, 4096, salt, 33, NULL),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_verity_alloc(&v, MERKLE_VERITY_DMVERITY, 4096, salt, 257, NULL),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_verity_alloc(&v, MERKLE_VERITY_DMVERITY, 4096, NULL, 4, NULL),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_verity_alloc(&v, MERKLE_VERITY_DMVERITY, 4096, NULL, 0, NULL),
                     MERKLE_OK);
    assert_int_equal(merkle_verity_write(v, NULL, 1), MERKLE_ERR_ARG);
    assert_int_equal(merkle_verity_write(NULL, salt, 1), MERKLE_ERR_ARG);
    size_t need;
    assert_int_equal(merkle_verity_hash_tree(NULL, 0, &need, NULL, v), MERKLE_ERR_STATE);
    assert_int_equal(merkle_verity_finish(root, dig, v), MERKLE_ERR_ARG); /* no dm digest */
    assert_int_equal(merkle_verity_finish(root, NULL, v), MERKLE_ERR_RANGE);
    merkle_verity_free(v);
    merkle_verity_free(NULL);
    merkle_error e;
    assert_int_equal(
        merkle_verity_digest(root, NULL, MERKLE_VERITY_DMVERITY, 4096, NULL, 0, salt, 100, &e),
        MERKLE_ERR_RANGE);
    assert_int_equal(
        merkle_verity_digest(NULL, NULL, MERKLE_VERITY_DMVERITY, 4096, NULL, 0, salt, 100, &e),
        MERKLE_ERR_ARG);
    /* An empty fs-verity file: zero root, and the digest of a descriptor with it. */
    assert_int_equal(
        merkle_verity_digest(root, dig, MERKLE_VERITY_FSVERITY, 4096, NULL, 0, NULL, 0, &e),
        MERKLE_OK);
    uint8_t zero[32] = { 0 };
    assert_memory_equal(root, zero, 32);
    tu_assert_hex(dig, 32, "3d248ca542a24fc62d1c43b916eae5016878e2533c88238480b26128a1f1af95",
                  "fsverity digest of an empty file");
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_reference),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
