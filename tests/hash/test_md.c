/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The in-tree streaming MD5, SHA-1 and SHA-512 (src/hash/md.h) that replaced libcrypto in the
** library, and the portable BLAKE2b of builds without libsodium: FIPS 180-4 / RFC 1321 known
*answers, every length around the padding boundaries
** and random splits of random messages against OpenSSL (the oracle), each SHA-1 kernel this
** CPU runs against the portable one, and the manifest digest entry point for every
** algorithm.
*/
#include <openssl/evp.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "hash/blake2b_impl.h"
#include "hash/md.h"
#include "merkle/manifest.h"
#include "testutil.h"

static void oracle(const EVP_MD *md, uint8_t *out, const void *data, size_t len)
{
    unsigned int n = 0;
    assert_int_equal(EVP_Digest(data, len, out, &n, md, NULL), 1);
}

typedef struct {
    const char *name;
    size_t len;
    const EVP_MD *(*md)(void);
} alg_t;

static void digest_split(const alg_t *a, uint8_t *out, const uint8_t *p, size_t n,
                         const size_t *cuts, size_t ncuts)
{
    merkle__md5s m5;
    merkle__sha1 s1;
    merkle__sha512 s5;
    if (a->len == 16) merkle__md5s_init(&m5);
    if (a->len == 20) merkle__sha1_init(&s1);
    if (a->len == 64) merkle__sha512_init(&s5);
    size_t at = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t end = i < ncuts ? cuts[i] : n;
        if (a->len == 16) merkle__md5s_update(&m5, p + at, end - at);
        if (a->len == 20) merkle__sha1_update(&s1, p + at, end - at);
        if (a->len == 64) merkle__sha512_update(&s5, p + at, end - at);
        at = end;
    }
    if (a->len == 16) merkle__md5s_final(&m5, out);
    if (a->len == 20) merkle__sha1_final(&s1, out);
    if (a->len == 64) merkle__sha512_final(&s5, out);
}

static const alg_t g_algs[] = { { "md5", 16, EVP_md5 },
                                { "sha1", 20, EVP_sha1 },
                                { "sha512", 64, EVP_sha512 } };

static void test_known_answers(void **state)
{
    (void)state;
    uint8_t out[64];
    const char *abc = "abc";
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    digest_split(&g_algs[1], out, (const uint8_t *)abc, 3, NULL, 0);
    tu_assert_hex(out, 20, "a9993e364706816aba3e25717850c26c9cd0d89d", "sha1 abc");
    digest_split(&g_algs[1], out, (const uint8_t *)two, strlen(two), NULL, 0);
    tu_assert_hex(out, 20, "84983e441c3bd26ebaae4aa1f95129e5e54670f1", "sha1 448 bits");
    digest_split(&g_algs[1], out, (const uint8_t *)"", 0, NULL, 0);
    tu_assert_hex(out, 20, "da39a3ee5e6b4b0d3255bfef95601890afd80709", "sha1 empty");
    digest_split(&g_algs[2], out, (const uint8_t *)abc, 3, NULL, 0);
    tu_assert_hex(out, 64,
                  "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                  "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
                  "sha512 abc");
    digest_split(&g_algs[2], out, (const uint8_t *)"", 0, NULL, 0);
    tu_assert_hex(out, 64,
                  "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
                  "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
                  "sha512 empty");
    digest_split(&g_algs[0], out, (const uint8_t *)abc, 3, NULL, 0);
    tu_assert_hex(out, 16, "900150983cd24fb0d6963f7d28e17f72", "md5 abc");
    /* A million 'a's (FIPS 180 long message), fed in uneven pieces. */
    size_t n = 1000000;
    uint8_t *a = malloc(n);
    assert_non_null(a);
    memset(a, 'a', n);
    size_t cuts[] = { 1, 63, 64, 200, 999999 };
    digest_split(&g_algs[1], out, a, n, cuts, 5);
    tu_assert_hex(out, 20, "34aa973cd4c4daa4f61eeb2bdbad27316534016f", "sha1 million a");
    digest_split(&g_algs[2], out, a, n, cuts, 5);
    tu_assert_hex(out, 64,
                  "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
                  "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b",
                  "sha512 million a");
    free(a);
}

/* Every length 0..600 in one piece, and random messages in random pieces, against OpenSSL. */
static void test_against_openssl(void **state)
{
    (void)state;
    uint8_t buf[2048], out[64], want[64];
    tu_rng r;
    tu_rng_seed(&r, 0x5eed1);
    tu_rng_fill(&r, buf, sizeof buf);
    for (size_t ai = 0; ai < 3; ai++) {
        const alg_t *a = &g_algs[ai];
        for (size_t len = 0; len <= 600; len++) {
            digest_split(a, out, buf, len, NULL, 0);
            oracle(a->md(), want, buf, len);
            if (memcmp(out, want, a->len) != 0) fail_msg("%s differs at length %zu", a->name, len);
        }
        for (int iter = 0; iter < 400; iter++) {
            size_t len = (size_t)tu_rng_below(&r, sizeof buf + 1);
            size_t cuts[6], nc = (size_t)tu_rng_below(&r, 7);
            for (size_t i = 0; i < nc; i++) cuts[i] = (size_t)tu_rng_below(&r, len + 1);
            for (size_t i = 1; i < nc; i++) /* sorted */
                for (size_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
                    size_t t = cuts[j];
                    cuts[j] = cuts[j - 1];
                    cuts[j - 1] = t;
                }
            digest_split(a, out, buf, len, cuts, nc);
            oracle(a->md(), want, buf, len);
            if (memcmp(out, want, a->len) != 0)
                fail_msg("%s differs at length %zu split %zu ways", a->name, len, nc + 1);
        }
    }
}

/* Each SHA-1 kernel this CPU runs equals the portable one on runs of 1..9 random blocks. */
static void test_sha1_kernels(void **state)
{
    (void)state;
    merkle__sha1_compress_fn port = merkle__sha1_kernel("portable");
    assert_true(port == merkle__sha1_compress_portable);
    assert_null(merkle__sha1_kernel("no-such-kernel"));
    assert_null(merkle__sha1_kernel(NULL));
    const char *be = merkle__sha1_backend();
    assert_true(strcmp(be, "portable") == 0 || strcmp(be, "shani") == 0);
    merkle__sha1_compress_fn k = merkle__sha1_kernel("shani");
    if (!k) {
        print_message("sha1: no SHA-NI on this CPU; only the portable kernel runs\n");
        assert_string_equal(be, "portable");
        return;
    }
    assert_string_equal(be, "shani");
    tu_rng r;
    tu_rng_seed(&r, 77);
    uint8_t blocks[64 * 9];
    for (int iter = 0; iter < 500; iter++) {
        tu_rng_fill(&r, blocks, sizeof blocks);
        size_t nb = 1 + (size_t)tu_rng_below(&r, 9);
        uint32_t a[5], b[5];
        for (int i = 0; i < 5; i++) a[i] = b[i] = (uint32_t)tu_rng_next(&r);
        port(a, blocks, nb);
        k(b, blocks, nb);
        assert_memory_equal(a, b, sizeof a);
    }
}

/* The BMI2 build of the SHA-512 compress equals the portable one (when this CPU runs it). */
static void test_sha512_kernels(void **state)
{
    (void)state;
    merkle__sha512_compress_fn port = merkle__sha512_kernel("portable");
    assert_true(port == merkle__sha512_compress_portable);
    assert_null(merkle__sha512_kernel("no-such-kernel"));
    merkle__sha512_compress_fn k = merkle__sha512_kernel("bmi2");
    if (!k) {
        print_message("sha512: no BMI2 kernel on this CPU or build; only the portable one\n");
        return;
    }
    tu_rng r;
    tu_rng_seed(&r, 78);
    uint8_t blocks[128 * 5];
    for (int iter = 0; iter < 300; iter++) {
        tu_rng_fill(&r, blocks, sizeof blocks);
        size_t nb = 1 + (size_t)tu_rng_below(&r, 5);
        uint64_t a[8], b[8];
        for (int i = 0; i < 8; i++) a[i] = b[i] = tu_rng_next(&r);
        port(a, blocks, nb);
        k(b, blocks, nb);
        assert_memory_equal(a, b, sizeof a);
    }
}

/* The portable BLAKE2b (the streaming state of builds without libsodium, and the "portable"
** batch kernel) equals libsodium for every digest length, lengths around the block size and
** random splits. */
static void test_blake2b_portable(void **state)
{
    (void)state;
    assert_true(sodium_init() >= 0);
    uint8_t buf[1200], out[64], want[64];
    tu_rng r;
    tu_rng_seed(&r, 0xb2);
    tu_rng_fill(&r, buf, sizeof buf);
    for (size_t out_len = 1; out_len <= 64; out_len++) {
        for (size_t len = 0; len <= 400; len += (len < 260 ? 1 : 37)) {
            merkle__b2p st;
            merkle__b2p_init(&st, out_len);
            merkle__b2p_update(&st, buf, len);
            merkle__b2p_final(&st, out);
            crypto_generichash(want, out_len, buf, len, NULL, 0);
            if (memcmp(out, want, out_len) != 0)
                fail_msg("blake2b-%zu differs at length %zu", out_len * 8, len);
        }
    }
    for (int iter = 0; iter < 300; iter++) {
        size_t len = (size_t)tu_rng_below(&r, sizeof buf + 1),
               out_len = 1 + (size_t)tu_rng_below(&r, 64);
        merkle__b2p st;
        merkle__b2p_init(&st, out_len);
        size_t at = 0;
        while (at < len) {
            size_t k = (size_t)tu_rng_below(&r, 300);
            if (k > len - at) k = len - at;
            merkle__b2p_update(&st, buf + at, k);
            at += k;
        }
        merkle__b2p_final(&st, out);
        crypto_generichash(want, out_len, buf, len, NULL, 0);
        assert_memory_equal(out, want, out_len);
    }
    /* The batch kernel, with a prefix, against libsodium per message. */
    const uint8_t *ptrs[5];
    uint8_t got[5 * 32];
    for (size_t i = 0; i < 5; i++) ptrs[i] = buf + 100 * i;
    merkle__blake2b_portable.batch(got, ptrs, 5, (const uint8_t *)"\x01", 1, 200);
    for (size_t i = 0; i < 5; i++) {
        crypto_generichash_state st;
        crypto_generichash_init(&st, NULL, 0, 32);
        crypto_generichash_update(&st, (const uint8_t *)"\x01", 1);
        crypto_generichash_update(&st, ptrs[i], 200);
        crypto_generichash_final(&st, want, 32);
        assert_memory_equal(got + 32 * i, want, 32);
    }
}

/* The public entry point computes every manifest algorithm with no libcrypto behind it. */
static void test_manifest_digest_all(void **state)
{
    (void)state;
    uint8_t out[64], want[64];
    const char *msg = "merkle\n";
    static const struct {
        merkle_hash_alg alg;
        size_t len;
        const char *hex;
    } k[] = {
        { MERKLE_HASH_MD5, 16, NULL },
        { MERKLE_HASH_SHA1, 20, NULL },
        { MERKLE_HASH_SHA512, 64, NULL },
    };
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(merkle_manifest_digest(out, k[i].alg, k[i].len, msg, strlen(msg)),
                         MERKLE_OK);
        oracle(g_algs[i].md(), want, msg, strlen(msg));
        assert_memory_equal(out, want, k[i].len);
        /* a wrong digest length is refused, not truncated */
        assert_int_equal(merkle_manifest_digest(out, k[i].alg, k[i].len - 1, msg, 1),
                         MERKLE_ERR_ARG);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_answers),    cmocka_unit_test(test_against_openssl),
        cmocka_unit_test(test_sha1_kernels),     cmocka_unit_test(test_sha512_kernels),
        cmocka_unit_test(test_blake2b_portable), cmocka_unit_test(test_manifest_digest_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
