/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The proof helpers the command uses (issue 25 item 3): merkle_proof_leaf_hash under every
** profile against OpenSSL / libsodium, and its error paths.
*/
#include <openssl/evp.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/proof.h"
#include "testutil.h"

static void sha256(uint8_t out[32], const void *a, size_t alen, const void *b, size_t blen)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    EVP_DigestUpdate(ctx, a, alen);
    EVP_DigestUpdate(ctx, b, blen);
    EVP_DigestFinal_ex(ctx, out, NULL);
    EVP_MD_CTX_free(ctx);
}

static merkle_proof proof_of(merkle_profile profile, merkle_hash_alg hash)
{
    merkle_proof p;
    memset(&p, 0, sizeof p);
    p.version = MERKLE_PROOF_VERSION;
    p.profile = profile;
    p.hash = hash;
    return p;
}

static void test_leaf_hash_profiles(void **state)
{
    (void)state;
    uint8_t leaf[100], want[32], got[32];
    for (size_t i = 0; i < sizeof leaf; i++) leaf[i] = (uint8_t)(i * 7 + 1);
    const uint8_t zero = 0;
    for (size_t len = 0; len <= sizeof leaf; len += 33) {
        /* rfc6962: H(0x00 || leaf) */
        merkle_proof p = proof_of(MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256);
        sha256(want, &zero, 1, leaf, len);
        assert_int_equal(merkle_proof_leaf_hash(got, &p, leaf, len), MERKLE_OK);
        assert_memory_equal(got, want, 32);
        /* sia: BLAKE2b-256(0x00 || segment) */
        p = proof_of(MERKLE_PROFILE_SIA, MERKLE_HASH_BLAKE2B_256);
        crypto_generichash_state st;
        crypto_generichash_init(&st, NULL, 0, 32);
        crypto_generichash_update(&st, &zero, 1);
        crypto_generichash_update(&st, leaf, len);
        crypto_generichash_final(&st, want, 32);
        assert_int_equal(merkle_proof_leaf_hash(got, &p, leaf, len), MERKLE_OK);
        assert_memory_equal(got, want, 32);
        /* bitcoin: the txid SHA-256d(tx) */
        p = proof_of(MERKLE_PROFILE_BITCOIN, MERKLE_HASH_SHA256);
        uint8_t once[32];
        sha256(once, leaf, len, NULL, 0);
        sha256(want, once, 32, NULL, 0);
        assert_int_equal(merkle_proof_leaf_hash(got, &p, leaf, len), MERKLE_OK);
        assert_memory_equal(got, want, 32);
        /* bittorrent-v2: SHA-256 of the block, no prefix */
        p = proof_of(MERKLE_PROFILE_BITTORRENT_V2, MERKLE_HASH_SHA256);
        sha256(want, leaf, len, NULL, 0);
        assert_int_equal(merkle_proof_leaf_hash(got, &p, leaf, len), MERKLE_OK);
        assert_memory_equal(got, want, 32);
    }
    /* ssz and openzeppelin: the 32-byte leaf itself, any other length refused */
    const merkle_profile as_is[] = { MERKLE_PROFILE_SSZ, MERKLE_PROFILE_OPENZEPPELIN };
    for (size_t k = 0; k < 2; k++) {
        merkle_proof p = proof_of(as_is[k], k ? MERKLE_HASH_KECCAK256 : MERKLE_HASH_SHA256);
        assert_int_equal(merkle_proof_leaf_hash(got, &p, leaf, 32), MERKLE_OK);
        assert_memory_equal(got, leaf, 32);
        assert_int_equal(merkle_proof_leaf_hash(got, &p, leaf, 31), MERKLE_ERR_ARG);
        assert_int_equal(merkle_proof_leaf_hash(got, &p, leaf, 33), MERKLE_ERR_ARG);
        assert_int_equal(merkle_proof_leaf_hash(got, &p, NULL, 0), MERKLE_ERR_ARG);
    }
}

static void test_leaf_hash_errors(void **state)
{
    (void)state;
    uint8_t got[32], leaf[4] = { 1, 2, 3, 4 };
    merkle_proof p = proof_of(MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256);
    assert_int_equal(merkle_proof_leaf_hash(NULL, &p, leaf, 4), MERKLE_ERR_ARG);
    assert_int_equal(merkle_proof_leaf_hash(got, NULL, leaf, 4), MERKLE_ERR_ARG);
    assert_int_equal(merkle_proof_leaf_hash(got, &p, NULL, 4), MERKLE_ERR_ARG);
    /* NULL with length 0 is the empty leaf */
    uint8_t want[32];
    const uint8_t zero = 0;
    sha256(want, &zero, 1, NULL, 0);
    assert_int_equal(merkle_proof_leaf_hash(got, &p, NULL, 0), MERKLE_OK);
    assert_memory_equal(got, want, 32);
    /* a hash the tree functions do not take */
    p.hash = MERKLE_HASH_MD5;
    assert_int_equal(merkle_proof_leaf_hash(got, &p, leaf, 4), MERKLE_ERR_ARG);
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_leaf_hash_profiles),
        cmocka_unit_test(test_leaf_hash_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
