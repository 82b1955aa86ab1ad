/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The proof helpers the command uses (issue 25 item 3): merkle_proof_leaf_hash under every
** profile against OpenSSL / libsodium, and its error paths; CometBFT's proof JSON (issue 26
** item 2).
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

/* merkle_proof_to_cometbft_json: CometBFT's own bytes for leaf 1 of a 3-leaf tree
** (tests/vectors/cometbft-json.json, written by CometBFT's libs/json), read back by
** merkle_proof_from_json, and what it refuses. */
static void test_cometbft_json(void **state)
{
    (void)state;
    static const char *leaves[3] = {
        "5503af82",
        "0f1e00a7f382cfa6770a8f33e3c8f3c71feed0e28c2b0b022eb8afdcdf645f76bc808dd5ee41868ad021449c"
        "632c817ab8ecc677c4e935b72f4a4bf5d77d83abd21b4a26e19e6cc50da41a8d4882",
        "aaba8cf797f3c5f6f804593a99dc0dc741d5974bb2e436f2bf3a",
    };
    static const char want[] =
        "{\"total\":\"3\",\"index\":\"1\",\"leaf_hash\":\"e0d+C2COPcmVxG2J/"
        "ZRHEd7ZuUrecHDnnC5KrOmQUxs=\",\"aunts\":[\"SnY7KF8bIvANuc48R5buxQo2u6FMqzv00rC9mu+u4JI="
        "\",\"EoLgeSj01cYzwR43rybvlYnZEcs2BA0b85hk2hdBxp8=\"]}\n";
    uint8_t *lv[3];
    size_t ll[3];
    for (int i = 0; i < 3; i++) lv[i] = tu_unhex(leaves[i], &ll[i]);
    merkle_proof *p = calloc(1, sizeof *p);
    assert_non_null(p);
    *p = proof_of(MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256);
    uint8_t lh[3][32];
    for (int i = 0; i < 3; i++)
        assert_int_equal(merkle_proof_leaf_hash(lh[i], p, lv[i], ll[i]), MERKLE_OK);
    p->kind = MERKLE_PROOF_INCLUSION;
    p->tree_size = 3;
    p->index = 1;
    p->end = 2;
    p->flags = MERKLE_PROOF_HAS_LEAF_HASH;
    memcpy(p->leaf_hash, lh[1], 32);
    assert_int_equal(merkle_proof_inclusion_path(p->path, MERKLE_PROOF_MAX_PATH, &p->path_len,
                                                 p->root, MERKLE_HASH_SHA256,
                                                 (const uint8_t(*)[32])lh, 3, 1),
                     MERKLE_OK);
    merkle_error err;
    size_t need = 0, got = 0;
    assert_int_equal(merkle_proof_to_cometbft_json(NULL, 0, &need, p), MERKLE_ERR_BUFFER);
    assert_int_equal(need, sizeof want); /* with the NUL */
    char out[sizeof want];
    assert_int_equal(merkle_proof_to_cometbft_json(out, need - 1, &got, p), MERKLE_ERR_BUFFER);
    assert_int_equal(merkle_proof_to_cometbft_json(out, need, &got, p), MERKLE_OK);
    assert_int_equal(got, need);
    assert_string_equal(out, want);
    /* Read back: the same proof (no root, no leaf in CometBFT's Proof). */
    merkle_proof *q = calloc(1, sizeof *q);
    assert_non_null(q);
    uint8_t leaf[8];
    size_t leaf_len = 99;
    assert_int_equal(merkle_proof_from_json(q, leaf, sizeof leaf, &leaf_len, out, got - 1, &err),
                     MERKLE_OK);
    assert_int_equal(leaf_len, 0);
    assert_int_equal(q->kind, MERKLE_PROOF_INCLUSION);
    assert_int_equal(q->tree_size, 3);
    assert_int_equal(q->index, 1);
    assert_int_equal(q->path_len, p->path_len);
    assert_memory_equal(q->leaf_hash, p->leaf_hash, 32);
    assert_memory_equal(q->path, p->path, p->path_len * 32);
    /* Only CometBFT's tree: rfc6962, SHA-256, inclusion, with a leaf hash. */
    merkle_proof saved = *p;
    p->profile = MERKLE_PROFILE_SIA;
    assert_int_equal(merkle_proof_to_cometbft_json(out, need, &got, p), MERKLE_ERR_UNSUPPORTED);
    *p = saved;
    p->hash = MERKLE_HASH_BLAKE2B_256;
    assert_int_equal(merkle_proof_to_cometbft_json(out, need, &got, p), MERKLE_ERR_UNSUPPORTED);
    *p = saved;
    p->kind = MERKLE_PROOF_RANGE;
    assert_int_equal(merkle_proof_to_cometbft_json(out, need, &got, p), MERKLE_ERR_UNSUPPORTED);
    *p = saved;
    p->flags &= ~(uint32_t)MERKLE_PROOF_HAS_LEAF_HASH;
    assert_int_equal(merkle_proof_to_cometbft_json(out, need, &got, p), MERKLE_ERR_UNSUPPORTED);
    *p = saved;
    assert_int_equal(merkle_proof_to_cometbft_json(out, need, NULL, p), MERKLE_ERR_ARG);
    assert_int_equal(merkle_proof_to_cometbft_json(NULL, 5, &got, p), MERKLE_ERR_ARG);
    assert_int_equal(merkle_proof_to_cometbft_json(out, need, &got, NULL), MERKLE_ERR_ARG);
    for (int i = 0; i < 3; i++) free(lv[i]);
    free(p);
    free(q);
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_leaf_hash_profiles),
        cmocka_unit_test(test_leaf_hash_errors),
        cmocka_unit_test(test_cometbft_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
