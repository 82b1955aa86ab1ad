/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The in-tree security primitives (src/common/secure.h) that replaced libsodium's: SipHash-2-4
** against the reference vectors and against libsodium's crypto_shorthash on random inputs,
** random bytes from the OS, and the wipe.
*/
#include <sodium.h>
#include <string.h>

#include "common/secure.h"
#include "testutil.h"

/* SipHash-2-4 with key 00..0f over messages 00..(n-1): the paper's appendix and the reference
** implementation's vectors.h (first, 8-byte and 15-byte cases), as little-endian tags. */
static void test_siphash_vectors(void **state)
{
    (void)state;
    uint8_t key[16], msg[64];
    for (int i = 0; i < 16; i++) key[i] = (uint8_t)i;
    for (int i = 0; i < 64; i++) msg[i] = (uint8_t)i;
    assert_true(merkle__siphash24(key, msg, 0) == 0x726fdb47dd0e0e31ULL);
    assert_true(merkle__siphash24(key, msg, 1) == 0x74f839c593dc67fdULL);
    assert_true(merkle__siphash24(key, msg, 15) == 0xa129ca6149be45e5ULL);
}

static void test_siphash_vs_libsodium(void **state)
{
    (void)state;
    assert_true(sodium_init() >= 0);
    tu_rng r;
    tu_rng_seed(&r, 0x51);
    uint8_t key[16], msg[200], tag[8];
    for (int iter = 0; iter < 2000; iter++) {
        tu_rng_fill(&r, key, sizeof key);
        size_t len = (size_t)tu_rng_below(&r, sizeof msg + 1);
        tu_rng_fill(&r, msg, len);
        crypto_shorthash(tag, msg, len, key);
        uint64_t want = 0;
        for (int i = 7; i >= 0; i--) want = (want << 8) | tag[i];
        if (merkle__siphash24(key, msg, len) != want)
            fail_msg("siphash differs at length %zu", len);
    }
}

static void test_random_and_wipe(void **state)
{
    (void)state;
    uint8_t a[64], b[64], zero[64] = { 0 };
    assert_int_equal(merkle__random_bytes(a, sizeof a), 0);
    assert_int_equal(merkle__random_bytes(b, sizeof b), 0);
    /* 2^-512 chance of a false failure for each assertion */
    assert_memory_not_equal(a, zero, sizeof a);
    assert_memory_not_equal(a, b, sizeof a);
    uint8_t big[1000];
    assert_int_equal(merkle__random_bytes(big, sizeof big), 0); /* beyond one getrandom call */
    assert_int_equal(merkle__random_bytes(big, 0), 0);
    merkle__memzero(a, sizeof a);
    assert_memory_equal(a, zero, sizeof a);
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_siphash_vectors),
        cmocka_unit_test(test_siphash_vs_libsodium),
        cmocka_unit_test(test_random_and_wipe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
