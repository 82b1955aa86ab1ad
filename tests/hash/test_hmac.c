/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** HMAC-SHA-256 with precomputed pads (src/hash/hmac_sha256.h, the validation cache's entry
** MAC): RFC 4231's test cases 1, 2, 4, 6 and 7 (keys of 20, 4, 25 and 131 bytes: one longer
** than the block, hashed first), and random keys, messages and splits against OpenSSL's HMAC.
*/
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdlib.h>
#include <string.h>

#include "hash/hmac_sha256.h"
#include "testutil.h"

static void check(const uint8_t *key, size_t klen, const uint8_t *msg, size_t mlen, size_t split)
{
    merkle__hmac_sha256 h;
    merkle__hmac_sha256_init(&h, key, klen);
    uint8_t ours[32], want[32];
    unsigned wl = 0;
    merkle__hmac_sha256_mac2(&h, ours, msg, split, msg + split, mlen - split);
    assert_non_null(HMAC(EVP_sha256(), key, (int)klen, msg, mlen, want, &wl));
    assert_int_equal(wl, 32);
    assert_memory_equal(ours, want, 32);
    /* The keyed state is reusable: the same MAC again. */
    merkle__hmac_sha256_mac2(&h, ours, msg, mlen, NULL, 0);
    assert_memory_equal(ours, want, 32);
    merkle__hmac_sha256_wipe(&h);
}

static void test_rfc4231(void **state)
{
    (void)state;
    static const struct {
        const char *key, *msg, *mac; /* key NULL: 131 x 0xaa */
    } v[] = {
        { "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "4869205468657265",
          "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7" },
        { "4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
          "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" },
        { "0102030405060708090a0b0c0d0e0f10111213141516171819",
          "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd"
          "cdcdcdcdcdcd",
          "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b" },
        { NULL,
          "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368"
          "204b"
          "6579204669727374",
          "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54" },
        { NULL,
          "5468697320697320612074657374207573696e672061206c6172676572207468616e20626c6f636b2d73697a"
          "65"
          "206b657920616e642061206c6172676572207468616e20626c6f636b2d73697a6520646174612e2054686520"
          "6b"
          "6579206e6565647320746f20626520686173686564206265666f7265206265696e6720757365642062792074"
          "686520"
          "484d414320616c676f726974686d2e",
          "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2" },
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        size_t kl = 131, ml;
        uint8_t *k, *m = tu_unhex(v[i].msg, &ml);
        if (v[i].key) {
            k = tu_unhex(v[i].key, &kl);
        } else { /* cases 6 and 7: 131 bytes of 0xaa */
            k = malloc(kl);
            assert_non_null(k);
            memset(k, 0xaa, kl);
        }
        merkle__hmac_sha256 h;
        merkle__hmac_sha256_init(&h, k, kl);
        uint8_t mac[32];
        merkle__hmac_sha256_mac2(&h, mac, m, ml / 2, m + ml / 2, ml - ml / 2);
        tu_assert_hex(mac, 32, v[i].mac, "RFC 4231");
        check(k, kl, m, ml, 0);
        free(k);
        free(m);
    }
}

static void test_random_against_openssl(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 4231);
    uint8_t key[200], msg[600];
    for (int it = 0; it < 2000; it++) {
        size_t kl = (size_t)tu_rng_below(&r, sizeof key + 1);
        size_t ml = (size_t)tu_rng_below(&r, sizeof msg + 1);
        tu_rng_fill(&r, key, kl);
        tu_rng_fill(&r, msg, ml);
        check(key, kl, msg, ml, (size_t)tu_rng_below(&r, ml + 1));
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc4231),
        cmocka_unit_test(test_random_against_openssl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
