/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The reference the proof tests check the library against (tests/tree/test_proof*.c): RFC 9162
** MTH / PATH / SUBPROOF and Sia's range proof written recursively over OpenSSL (SHA-256) and
** libsodium (BLAKE2b-256), no library code; and leaf-hash helpers. Never installed.
*/
#ifndef MERKLE_TESTS_PROOF_REF_H
#define MERKLE_TESTS_PROOF_REF_H

#include <openssl/evp.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/proof.h"
#include "testutil.h"

typedef uint8_t h32[32];

/* ------------------------------------------------------------------ reference */

static inline void ref_hash(merkle_hash_alg alg, uint8_t out[32], uint8_t prefix, const uint8_t *a,
                            size_t alen, const uint8_t *b, size_t blen)
{
    if (alg == MERKLE_HASH_SHA256) {
        EVP_MD_CTX *ctx = EVP_MD_CTX_new();
        EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
        EVP_DigestUpdate(ctx, &prefix, 1);
        EVP_DigestUpdate(ctx, a, alen);
        EVP_DigestUpdate(ctx, b, blen);
        EVP_DigestFinal_ex(ctx, out, NULL);
        EVP_MD_CTX_free(ctx);
    } else {
        crypto_generichash_state st;
        crypto_generichash_init(&st, NULL, 0, 32);
        crypto_generichash_update(&st, &prefix, 1);
        crypto_generichash_update(&st, a, alen);
        crypto_generichash_update(&st, b, blen);
        crypto_generichash_final(&st, out, 32);
    }
}

static inline void ref_leaf(merkle_hash_alg alg, uint8_t out[32], const void *d, size_t n)
{
    ref_hash(alg, out, 0, d, n, NULL, 0);
}

static inline void ref_node(merkle_hash_alg alg, uint8_t out[32], const uint8_t l[32],
                            const uint8_t r[32])
{
    ref_hash(alg, out, 1, l, 32, r, 32);
}

static inline uint64_t ref_k(uint64_t n)
{
    uint64_t k = 1;
    while (k * 2 < n) k *= 2;
    return k;
}

/* MTH(D[lo:hi]) over leaf hashes, hi > lo. */
static inline void ref_mth(merkle_hash_alg alg, const h32 *lh, uint64_t lo, uint64_t hi,
                           uint8_t out[32])
{
    if (hi - lo == 1) {
        memcpy(out, lh[lo], 32);
        return;
    }
    uint64_t k = ref_k(hi - lo);
    uint8_t l[32], r[32];
    ref_mth(alg, lh, lo, lo + k, l);
    ref_mth(alg, lh, lo + k, hi, r);
    ref_node(alg, out, l, r);
}

/* RFC 9162 PATH(m, D[lo:hi]), appended to out[*n]. */
static inline void ref_path(merkle_hash_alg alg, const h32 *lh, uint64_t m, uint64_t lo,
                            uint64_t hi, h32 *out, size_t *n)
{
    if (hi - lo == 1) return;
    uint64_t k = ref_k(hi - lo);
    if (m < k) {
        ref_path(alg, lh, m, lo, lo + k, out, n);
        ref_mth(alg, lh, lo + k, hi, out[(*n)++]);
    } else {
        ref_path(alg, lh, m - k, lo + k, hi, out, n);
        ref_mth(alg, lh, lo, lo + k, out[(*n)++]);
    }
}

/* RFC 9162 SUBPROOF(m, D[lo:hi], b). */
static inline void ref_subproof(merkle_hash_alg alg, const h32 *lh, uint64_t m, uint64_t lo,
                                uint64_t hi, int b, h32 *out, size_t *n)
{
    if (m == hi - lo) {
        if (!b) ref_mth(alg, lh, lo, hi, out[(*n)++]);
        return;
    }
    uint64_t k = ref_k(hi - lo);
    if (m <= k) {
        ref_subproof(alg, lh, m, lo, lo + k, b, out, n);
        ref_mth(alg, lh, lo + k, hi, out[(*n)++]);
    } else {
        ref_subproof(alg, lh, m - k, lo + k, hi, 0, out, n);
        ref_mth(alg, lh, lo, lo + k, out[(*n)++]);
    }
}

static inline uint64_t ref_next(uint64_t start, uint64_t limit)
{
    unsigned ideal = start ? (unsigned)__builtin_ctzll(start) : 64;
    unsigned max = 63 - (unsigned)__builtin_clzll(limit - start);
    return (uint64_t)1 << (ideal < max ? ideal : max);
}

/* Sia BuildRangeProof(s, e) over n leaf hashes. */
static inline void ref_range(merkle_hash_alg alg, const h32 *lh, uint64_t s, uint64_t e, uint64_t n,
                             h32 *out, size_t *cnt)
{
    uint64_t i = 0;
    while (i < s) {
        uint64_t sz = ref_next(i, s);
        ref_mth(alg, lh, i, i + sz, out[(*cnt)++]);
        i += sz;
    }
    i = e;
    while (i < n) {
        uint64_t sz = ref_next(i, UINT64_MAX);
        ref_mth(alg, lh, i, i + sz < n ? i + sz : n, out[(*cnt)++]);
        i += sz;
    }
}

/* Deterministic leaf hashes: LEAF(decimal i). */
static inline h32 *make_leaf_hashes(merkle_hash_alg alg, uint64_t n)
{
    h32 *lh = malloc((n + 1) * sizeof *lh);
    for (uint64_t i = 0; i < n; i++) {
        char b[24];
        int k = snprintf(b, sizeof b, "%llu", (unsigned long long)i);
        ref_leaf(alg, lh[i], b, (size_t)k);
    }
    return lh;
}

static inline void feed_hashes(merkle_prover *p, const h32 *lh, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(merkle_prover_push_leaf_hash(p, lh[i]), MERKLE_OK);
}

#endif
