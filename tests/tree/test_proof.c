/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Proofs: every public proof vector of the peers; the streaming prover against the recursive
** definitions of RFC 9162 PATH / SUBPROOF and Sia BuildRangeProof (a reference written here
** with OpenSSL / libsodium, no library code); generate -> verify round trips for every
** 1 <= m <= n <= 64; single-bit flips. The codecs: test_proof_codec.c.
*/
#include <openssl/evp.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/proof.h"
#include "testutil.h"

#include "proof_ref.h"

/* ------------------------------------------------------------------ vectors */

static void hexarr(const json *arr, h32 *out, size_t *n, size_t skip)
{
    *n = 0;
    for (size_t i = skip; i < arr->len; i++) {
        size_t l;
        uint8_t *b = tu_unhex(json_at(arr, i)->str, &l);
        assert_int_equal(l, 32);
        memcpy(out[(*n)++], b, 32);
        free(b);
    }
}

static void assert_path(const uint8_t (*got)[32], size_t got_n, const json *want, size_t skip,
                        const char *id)
{
    assert_non_null(want);
    if (got_n != want->len - skip)
        fail_msg("%s: path length %zu, expected %zu", id, got_n, want->len - skip);
    for (size_t i = 0; i < got_n; i++) tu_assert_hex(got[i], 32, json_at(want, i + skip)->str, id);
}

/* Decode a hex hash of any length into out (returns the length). */
static size_t hex_any(const char *hex, uint8_t out[64])
{
    size_t l;
    uint8_t *b = tu_unhex(hex, &l);
    if (l <= 64) memcpy(out, b, l);
    free(b);
    return l;
}

static void test_vectors(void **state)
{
    (void)state;
    json *doc = tu_load_vectors("merkle-public.json");
    const json *vs = json_get(doc, "vectors");
    int checked = 0;
    for (size_t vi = 0; vi < vs->len; vi++) {
        const json *v = json_at(vs, vi);
        const char *op = json_get_str(v, "op");
        const char *id = json_get_str(v, "id");
        const json *in = json_get(v, "input");
        const json *ex = json_get(v, "expected");
        merkle_hash_alg alg;
        assert_int_equal(merkle_hash_alg_from_name(&alg, json_get_str(v, "hash")), MERKLE_OK);
        const json *errj = ex ? json_get(ex, "error") : NULL;
        int want_err = errj && errj->type == JSON_BOOL && errj->boolean;
        h32 path[130];
        size_t plen = 0;
        merkle_proof pr;
        if (strcmp(op, "inclusion_proof") == 0 || strcmp(op, "proof") == 0 ||
            strcmp(op, "consistency_proof") == 0) {
            const json *lv = json_get(in, "leaves");
            assert_string_equal(json_get_str(lv, "gen"), "decimal");
            uint64_t n = (uint64_t)json_get(lv, "n")->integer;
            h32 *lh = make_leaf_hashes(alg, n);
            int cons = strcmp(op, "consistency_proof") == 0;
            uint64_t a = (uint64_t)json_get(in, cons ? "old_size" : "index")->integer;
            merkle_status s;
            uint8_t root[32], old_root[32];
            if (cons)
                s = merkle_proof_consistency_path(path, 130, &plen, old_root, root, alg,
                                                  (const uint8_t(*)[32])lh, n, a);
            else
                s = merkle_proof_inclusion_path(path, 130, &plen, root, alg,
                                                (const uint8_t(*)[32])lh, n, a);
            if (want_err && strcmp(op, "proof") == 0) {
                /* CometBFT: no proof for this index; Verify with it fails. */
                assert_int_not_equal(s, MERKLE_OK);
                uint8_t lhash[32] = { 0 };
                if (n) memcpy(lhash, lh[0], 32);
                char leaf[24];
                int k = snprintf(leaf, sizeof leaf, "%llu", (unsigned long long)a);
                size_t rl;
                uint8_t *r = tu_unhex(json_get_str(ex, "root"), &rl);
                assert_int_equal(merkle_proof_cometbft_verify(r, (int64_t)n, (int64_t)a, lhash,
                                                              leaf, (size_t)k, NULL, 0, NULL),
                                 MERKLE_ERR_VERIFY);
                free(r);
            } else if (want_err) {
                assert_int_equal(s, MERKLE_ERR_RANGE);
            } else {
                assert_int_equal(s, MERKLE_OK);
                if (cons) {
                    assert_path((const uint8_t(*)[32])path, plen, json_get(ex, "proof"), 0, id);
                    tu_assert_hex(old_root, 32, json_get_str(ex, "old_root"), id);
                    tu_assert_hex(root, 32, json_get_str(ex, "new_root"), id);
                    assert_int_equal(merkle_proof_consistency_verify(alg, old_root, root, a, n,
                                                                     (const uint8_t(*)[32])path,
                                                                     plen, NULL),
                                     MERKLE_OK);
                } else if (strcmp(op, "proof") == 0) {
                    assert_path((const uint8_t(*)[32])path, plen, json_get(ex, "aunts"), 0, id);
                    tu_assert_hex(root, 32, json_get_str(ex, "root"), id);
                    tu_assert_hex(lh[a], 32, json_get_str(ex, "leaf_hash"), id);
                    assert_int_equal(json_get(ex, "total")->integer, (long long)n);
                    char leaf[24];
                    int k = snprintf(leaf, sizeof leaf, "%llu", (unsigned long long)a);
                    assert_int_equal(merkle_proof_cometbft_verify(
                                         root, (int64_t)n, (int64_t)a, lh[a], leaf, (size_t)k,
                                         (const uint8_t(*)[32])path, plen, NULL),
                                     MERKLE_OK);
                    /* Verify takes the raw leaf: another leaf fails. */
                    assert_int_equal(
                        merkle_proof_cometbft_verify(root, (int64_t)n, (int64_t)a, lh[a], "x", 1,
                                                     (const uint8_t(*)[32])path, plen, NULL),
                        MERKLE_ERR_VERIFY);
                    assert_int_equal(merkle_proof_cometbft_verify(
                                         NULL, (int64_t)n, (int64_t)a, lh[a], leaf, (size_t)k,
                                         (const uint8_t(*)[32])path, plen, NULL),
                                     MERKLE_ERR_VERIFY);
                } else {
                    assert_path((const uint8_t(*)[32])path, plen, json_get(ex, "path"), 0, id);
                    tu_assert_hex(root, 32, json_get_str(ex, "root"), id);
                    tu_assert_hex(lh[a], 32, json_get_str(ex, "leaf_hash"), id);
                    assert_int_equal(merkle_proof_inclusion_verify(alg, root, n, a, lh[a],
                                                                   (const uint8_t(*)[32])path, plen,
                                                                   NULL),
                                     MERKLE_OK);
                }
            }
            free(lh);
            checked++;
        } else if (strcmp(op, "reader_proof") == 0 || strcmp(op, "range_proof") == 0) {
            const json *st = json_get(in, "stream");
            size_t len = (size_t)json_get(st, "len")->integer;
            size_t seg = (size_t)json_get(in, "segment_size")->integer;
            uint8_t *data = malloc(len + 1);
            tu_counter_bytes(data, len);
            int range = strcmp(op, "range_proof") == 0;
            uint64_t a, b;
            if (range) {
                a = (uint64_t)json_at(json_get(in, "leaf_range"), 0)->integer;
                b = (uint64_t)json_at(json_get(in, "leaf_range"), 1)->integer;
            } else {
                a = (uint64_t)json_get(in, "index")->integer;
                b = a + 1;
            }
            merkle_prover p;
            assert_int_equal(merkle_prover_init(&p,
                                                range ? MERKLE_PROOF_RANGE : MERKLE_PROOF_INCLUSION,
                                                alg, seg, a, b),
                             MERKLE_OK);
            /* Feed in uneven pieces to cross leaf boundaries. */
            for (size_t off = 0; off < len;) {
                size_t take = 1 + (off * 7) % 97;
                if (take > len - off) take = len - off;
                assert_int_equal(merkle_prover_write(&p, data + off, take), MERKLE_OK);
                off += take;
            }
            merkle_status s = merkle_prover_finish(&pr, &p, MERKLE_PROFILE_SIA);
            if (want_err) {
                assert_int_equal(s, MERKLE_ERR_RANGE);
            } else {
                assert_int_equal(s, MERKLE_OK);
                tu_assert_hex(pr.root, 32, json_get_str(ex, "root"), id);
                size_t n = (len + seg - 1) / seg;
                assert_int_equal(pr.tree_size, n);
                /* Leaf hashes of the range for the verifiers. */
                h32 *lh = malloc((b - a) * sizeof *lh);
                for (uint64_t i = a; i < b; i++) {
                    size_t l = (i + 1) * seg <= len ? seg : len - i * seg;
                    ref_leaf(alg, lh[i - a], data + i * seg, l);
                }
                if (range) {
                    assert_path((const uint8_t(*)[32])pr.path, pr.path_len, json_get(ex, "proof"),
                                0, id);
                } else {
                    const json *ps = json_get(ex, "proof_set");
                    tu_assert_hex(data + a * seg, (a + 1) * seg <= len ? seg : len - a * seg,
                                  json_at(ps, 0)->str, id);
                    assert_path((const uint8_t(*)[32])pr.path, pr.path_len, ps, 1, id);
                    assert_int_equal(json_get(ex, "num_leaves")->integer, (long long)n);
                    size_t sl = (a + 1) * seg <= len ? seg : len - a * seg;
                    assert_int_equal(merkle_proof_sia_verify(alg, pr.root, n, a, data + a * seg, sl,
                                                             (const uint8_t(*)[32])pr.path,
                                                             pr.path_len, NULL),
                                     MERKLE_OK);
                    /* The range-order form. */
                    h32 ro[130];
                    assert_int_equal(merkle_proof_path_to_range_order(
                                         ro, (const uint8_t(*)[32])pr.path, pr.path_len, a),
                                     MERKLE_OK);
                    assert_path((const uint8_t(*)[32])ro, pr.path_len,
                                json_get(ex, "range_proof_order"), 0, id);
                    h32 back[130];
                    assert_int_equal(merkle_proof_range_order_to_path(
                                         back, (const uint8_t(*)[32])ro, pr.path_len, a),
                                     MERKLE_OK);
                    assert_memory_equal(back, pr.path, pr.path_len * 32);
                    assert_int_equal(merkle_proof_range_verify(
                                         alg, pr.root, n, a, a + 1, (const uint8_t(*)[32])lh,
                                         (const uint8_t(*)[32])ro, pr.path_len, NULL),
                                     MERKLE_OK);
                }
                assert_int_equal(merkle_proof_verify(&pr, pr.root, pr.old_root, NULL,
                                                     (const uint8_t(*)[32])lh, NULL),
                                 MERKLE_OK);
                if (range) {
                    /* Upstream VerifyRangeProof does not know n. */
                    assert_int_equal(
                        merkle_proof_range_verify(alg, pr.root, 0, a, b, (const uint8_t(*)[32])lh,
                                                  (const uint8_t(*)[32])pr.path, pr.path_len, NULL),
                        MERKLE_OK);
                }
                free(lh);
            }
            free(data);
            checked++;
        } else if (strcmp(op, "verify_inclusion") == 0 || strcmp(op, "verify_consistency") == 0) {
            int cons = strcmp(op, "verify_consistency") == 0;
            int valid = json_get(ex, "valid")->boolean;
            const json *pj = json_get(in, "proof");
            int lens_ok = 1;
            for (size_t i = 0; i < pj->len; i++) lens_ok &= strlen(json_at(pj, i)->str) == 64;
            uint8_t r1[64], r2[64], leaf[64];
            merkle_status s = MERKLE_ERR_VERIFY;
            if (lens_ok) hexarr(pj, path, &plen, 0);
            if (cons) {
                size_t l1 = hex_any(json_get_str(in, "root1"), r1);
                size_t l2 = hex_any(json_get_str(in, "root2"), r2);
                if (lens_ok && l1 == 32 && l2 == 32)
                    s = merkle_proof_consistency_verify(alg, r1, r2,
                                                        (uint64_t)json_get(in, "size1")->integer,
                                                        (uint64_t)json_get(in, "size2")->integer,
                                                        (const uint8_t(*)[32])path, plen, NULL);
            } else {
                size_t l1 = hex_any(json_get_str(in, "root"), r1);
                size_t l2 = hex_any(json_get_str(in, "leaf_hash"), leaf);
                if (lens_ok && l1 == 32 && l2 == 32)
                    s = merkle_proof_inclusion_verify(
                            alg, r1, (uint64_t)json_get(in, "tree_size")->integer,
                            (uint64_t)json_get(in, "index")->integer, leaf,
                            (const uint8_t(*)[32])path, plen, NULL) == MERKLE_OK
                            ? MERKLE_OK
                            : MERKLE_ERR_VERIFY;
                (void)r2;
            }
            /* Hashes that are not 32 bytes never verify, except two equal roots of equal
            ** sizes (transparency-dev compares them as byte strings). */
            if (cons && !lens_ok) s = MERKLE_ERR_VERIFY;
            if (cons && lens_ok &&
                json_get(in, "size1")->integer == json_get(in, "size2")->integer &&
                json_get(in, "size1")->integer > 0 && pj->len == 0 &&
                strcmp(json_get_str(in, "root1"), json_get_str(in, "root2")) == 0)
                s = MERKLE_OK;
            if ((s == MERKLE_OK) != valid) fail_msg("%s: expected valid=%d", id, valid);
            /* The same through the JSON proof parser and the proof object (the CLI path). */
            char *js = malloc(16384);
            int w;
            if (cons)
                w = snprintf(js, 16384,
                             "{\"size1\": %lld, \"size2\": %lld, \"root1\": \"%s\", \"root2\": "
                             "\"%s\", \"proof\": [",
                             json_get(in, "size1")->integer, json_get(in, "size2")->integer,
                             json_get_str(in, "root1"), json_get_str(in, "root2"));
            else
                w = snprintf(js, 16384,
                             "{\"index\": %lld, \"tree_size\": %lld, \"leaf_hash\": \"%s\", "
                             "\"root\": \"%s\", \"path\": [",
                             json_get(in, "index")->integer, json_get(in, "tree_size")->integer,
                             json_get_str(in, "leaf_hash"), json_get_str(in, "root"));
            for (size_t i = 0; i < pj->len; i++)
                w += snprintf(js + w, 16384 - (size_t)w, "%s\"%s\"", i ? "," : "",
                              json_at(pj, i)->str);
            snprintf(js + w, 16384 - (size_t)w, "]}");
            merkle_error e2;
            merkle_status s2 = merkle_proof_from_json(&pr, NULL, 0, NULL, js, strlen(js), &e2);
            if (s2 == MERKLE_OK)
                s2 = merkle_proof_verify(&pr, pr.root, pr.old_root, NULL, NULL, &e2);
            if (s2 != MERKLE_OK && s2 != MERKLE_ERR_VERIFY)
                fail_msg("%s: JSON path status %d", id, s2);
            if ((s2 == MERKLE_OK) != valid)
                fail_msg("%s: JSON path: expected valid=%d (%s)", id, valid, e2.message);
            free(js);
            checked++;
        }
    }
    assert_true(checked >= 14 + 11 + 10 + 16 + 12 + 98 + 98);
    json_free(doc);
}

/* ------------------------------------------------------------------ round trips */

static void test_inclusion_all(void **state)
{
    (void)state;
    merkle_hash_alg alg = MERKLE_HASH_SHA256;
    h32 *lh = make_leaf_hashes(alg, 64);
    for (uint64_t n = 1; n <= 64; n++) {
        uint8_t root[32];
        ref_mth(alg, lh, 0, n, root);
        for (uint64_t i = 0; i < n; i++) {
            h32 want[70], got[70];
            size_t wn = 0, gn = 0;
            ref_path(alg, lh, i, 0, n, want, &wn);
            uint8_t groot[32];
            assert_int_equal(merkle_proof_inclusion_path(got, 70, &gn, groot, alg,
                                                         (const uint8_t(*)[32])lh, n, i),
                             MERKLE_OK);
            assert_int_equal(gn, wn);
            assert_int_equal(gn, merkle_proof_inclusion_path_len(i, n));
            assert_memory_equal(got, want, wn * 32);
            assert_memory_equal(groot, root, 32);
            assert_int_equal(merkle_proof_inclusion_verify(alg, root, n, i, lh[i],
                                                           (const uint8_t(*)[32])got, gn, NULL),
                             MERKLE_OK);
            /* Wrong index / size / leaf / too long / too short. */
            if (n > 1)
                assert_int_equal(merkle_proof_inclusion_verify(alg, root, n, (i + 1) % n, lh[i],
                                                               (const uint8_t(*)[32])got, gn, NULL),
                                 MERKLE_ERR_VERIFY);
            assert_int_equal(merkle_proof_inclusion_verify(alg, root, n, i, lh[(i + 1) % 64],
                                                           (const uint8_t(*)[32])got, gn, NULL),
                             MERKLE_ERR_VERIFY);
            assert_int_equal(merkle_proof_inclusion_verify(alg, root, n, n, lh[i],
                                                           (const uint8_t(*)[32])got, gn, NULL),
                             MERKLE_ERR_VERIFY);
            memcpy(got[gn], root, 32);
            assert_int_equal(merkle_proof_inclusion_verify(alg, root, n, i, lh[i],
                                                           (const uint8_t(*)[32])got, gn + 1, NULL),
                             MERKLE_ERR_VERIFY);
            if (gn)
                assert_int_equal(merkle_proof_inclusion_verify(alg, root, n, i, lh[i],
                                                               (const uint8_t(*)[32])got, gn - 1,
                                                               NULL),
                                 MERKLE_ERR_VERIFY);
            /* CometBFT Verify accepts the same path. */
            char leaf[24];
            int k = snprintf(leaf, sizeof leaf, "%llu", (unsigned long long)i);
            assert_int_equal(merkle_proof_cometbft_verify(root, (int64_t)n, (int64_t)i, lh[i], leaf,
                                                          (size_t)k, (const uint8_t(*)[32])got, gn,
                                                          NULL),
                             MERKLE_OK);
            if (gn)
                assert_int_equal(merkle_proof_cometbft_verify(
                                     root, (int64_t)n, (int64_t)i, lh[i], leaf, (size_t)k,
                                     (const uint8_t(*)[32])got, gn - 1, NULL),
                                 MERKLE_ERR_VERIFY);
        }
    }
    size_t gn;
    h32 got[8];
    assert_int_equal(
        merkle_proof_inclusion_path(got, 8, &gn, NULL, alg, (const uint8_t(*)[32])lh, 0, 0),
        MERKLE_ERR_RANGE);
    assert_int_equal(
        merkle_proof_inclusion_path(got, 8, &gn, NULL, alg, (const uint8_t(*)[32])lh, 5, 5),
        MERKLE_ERR_RANGE);
    assert_int_equal(
        merkle_proof_inclusion_path(got, 1, &gn, NULL, alg, (const uint8_t(*)[32])lh, 64, 5),
        MERKLE_ERR_BUFFER);
    assert_int_equal(gn, 6);
    assert_int_equal(merkle_proof_inclusion_verify(alg, lh[0], 0, 0, lh[0], NULL, 0, NULL),
                     MERKLE_ERR_VERIFY);
    assert_int_equal(merkle_proof_inclusion_verify(alg, lh[0], 1, 0, NULL, NULL, 0, NULL),
                     MERKLE_ERR_ARG);
    assert_int_equal(
        merkle_proof_inclusion_verify((merkle_hash_alg)9, lh[0], 1, 0, lh[0], NULL, 0, NULL),
        MERKLE_ERR_ARG);
    free(lh);
}

static void test_consistency_all(void **state)
{
    (void)state;
    merkle_hash_alg alg = MERKLE_HASH_SHA256;
    h32 *lh = make_leaf_hashes(alg, 64);
    h32 roots[65];
    for (uint64_t n = 1; n <= 64; n++) ref_mth(alg, lh, 0, n, roots[n]);
    for (uint64_t n = 1; n <= 64; n++) {
        for (uint64_t m = 1; m <= n; m++) {
            h32 want[70], got[70];
            size_t wn = 0, gn = 0;
            ref_subproof(alg, lh, m, 0, n, 1, want, &wn);
            uint8_t o[32], r[32];
            assert_int_equal(merkle_proof_consistency_path(got, 70, &gn, o, r, alg,
                                                           (const uint8_t(*)[32])lh, n, m),
                             MERKLE_OK);
            assert_int_equal(gn, wn);
            assert_int_equal(gn, merkle_proof_consistency_path_len(m, n));
            assert_memory_equal(got, want, wn * 32);
            assert_memory_equal(o, roots[m], 32);
            assert_memory_equal(r, roots[n], 32);
            assert_int_equal(merkle_proof_consistency_verify(alg, o, r, m, n,
                                                             (const uint8_t(*)[32])got, gn, NULL),
                             MERKLE_OK);
            /* Swapped roots, wrong sizes, extra or missing element. */
            if (m < n) {
                assert_int_equal(merkle_proof_consistency_verify(
                                     alg, r, o, m, n, (const uint8_t(*)[32])got, gn, NULL),
                                 MERKLE_ERR_VERIFY);
                assert_int_equal(merkle_proof_consistency_verify(
                                     alg, o, r, m, n, (const uint8_t(*)[32])got, gn - 1, NULL),
                                 MERKLE_ERR_VERIFY);
            }
            memcpy(got[gn], r, 32);
            assert_int_equal(merkle_proof_consistency_verify(
                                 alg, o, r, m, n, (const uint8_t(*)[32])got, gn + 1, NULL),
                             MERKLE_ERR_VERIFY);
        }
    }
    size_t gn;
    h32 got[8];
    assert_int_equal(
        merkle_proof_consistency_path(got, 8, &gn, NULL, NULL, alg, (const uint8_t(*)[32])lh, 3, 0),
        MERKLE_ERR_RANGE);
    assert_int_equal(
        merkle_proof_consistency_path(got, 8, &gn, NULL, NULL, alg, (const uint8_t(*)[32])lh, 3, 5),
        MERKLE_ERR_RANGE);
    assert_int_equal(merkle_proof_consistency_verify(alg, roots[1], roots[1], 0, 0, NULL, 0, NULL),
                     MERKLE_ERR_VERIFY);
    assert_int_equal(merkle_proof_consistency_verify(alg, roots[1], roots[3], 0, 3, NULL, 0, NULL),
                     MERKLE_ERR_VERIFY);
    assert_int_equal(merkle_proof_consistency_verify(alg, roots[1], roots[3], 4, 3, NULL, 0, NULL),
                     MERKLE_ERR_VERIFY);
    assert_int_equal(merkle_proof_consistency_verify(alg, roots[3], roots[3], 3, 3, NULL, 0, NULL),
                     MERKLE_OK);
    assert_int_equal(merkle_proof_consistency_verify(alg, roots[3], roots[4], 3, 3, NULL, 0, NULL),
                     MERKLE_ERR_VERIFY);
    free(lh);
}

static void flip(uint8_t *b, size_t bit)
{
    b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
}

/* Every single-bit flip of the path, the root and the leaf hash breaks verification. */
static void test_bit_flips(void **state)
{
    (void)state;
    merkle_hash_alg alg = MERKLE_HASH_SHA256;
    h32 *lh = make_leaf_hashes(alg, 64);
    tu_rng rng;
    tu_rng_seed(&rng, 7);
    for (int t = 0; t < 86; t++) {
        uint64_t n = t < 78 ? 0 : 13 + tu_rng_below(&rng, 52), i;
        if (t < 78) { /* every (n, i) with n <= 12 */
            int c = t;
            for (n = 1; c >= (int)n; n++) c -= (int)n;
            i = (uint64_t)c;
        } else {
            i = tu_rng_below(&rng, n);
        }
        h32 path[70];
        size_t pn;
        uint8_t root[32], leaf[32];
        assert_int_equal(
            merkle_proof_inclusion_path(path, 70, &pn, root, alg, (const uint8_t(*)[32])lh, n, i),
            MERKLE_OK);
        memcpy(leaf, lh[i], 32);
        uint8_t *parts[3] = { &path[0][0], root, leaf };
        size_t sizes[3] = { pn * 32, 32, 32 };
        for (int w = 0; w < 3; w++) {
            for (size_t bit = 0; bit < sizes[w] * 8; bit++) {
                flip(parts[w], bit);
                assert_int_equal(merkle_proof_inclusion_verify(
                                     alg, root, n, i, leaf, (const uint8_t(*)[32])path, pn, NULL),
                                 MERKLE_ERR_VERIFY);
                flip(parts[w], bit);
            }
        }
        assert_int_equal(merkle_proof_inclusion_verify(alg, root, n, i, leaf,
                                                       (const uint8_t(*)[32])path, pn, NULL),
                         MERKLE_OK);
        /* Consistency from m = i + 1 to n. */
        uint64_t m = i + 1;
        uint8_t o[32];
        assert_int_equal(merkle_proof_consistency_path(path, 70, &pn, o, root, alg,
                                                       (const uint8_t(*)[32])lh, n, m),
                         MERKLE_OK);
        uint8_t *cparts[3] = { &path[0][0], root, o };
        size_t csizes[3] = { pn * 32, 32, 32 };
        for (int w = 0; w < 3; w++) {
            for (size_t bit = 0; bit < csizes[w] * 8; bit++) {
                flip(cparts[w], bit);
                assert_int_equal(merkle_proof_consistency_verify(
                                     alg, o, root, m, n, (const uint8_t(*)[32])path, pn, NULL),
                                 MERKLE_ERR_VERIFY);
                flip(cparts[w], bit);
            }
        }
        assert_int_equal(merkle_proof_consistency_verify(alg, o, root, m, n,
                                                         (const uint8_t(*)[32])path, pn, NULL),
                         MERKLE_OK);
        /* Range [i, min(n, i+3)). */
        uint64_t e = i + 3 < n ? i + 3 : n;
        merkle_prover pv;
        merkle_proof pr;
        assert_int_equal(merkle_prover_init(&pv, MERKLE_PROOF_RANGE, alg, 1, i, e), MERKLE_OK);
        feed_hashes(&pv, lh, n);
        assert_int_equal(merkle_prover_finish(&pr, &pv, MERKLE_PROFILE_RFC6962), MERKLE_OK);
        h32 lv[3];
        memcpy(lv, lh[i], (e - i) * 32);
        uint8_t *rparts[3] = { &pr.path[0][0], pr.root, &lv[0][0] };
        size_t rsizes[3] = { pr.path_len * 32, 32, (e - i) * 32 };
        for (int w = 0; w < 3; w++) {
            for (size_t bit = 0; bit < rsizes[w] * 8; bit++) {
                flip(rparts[w], bit);
                assert_int_equal(
                    merkle_proof_range_verify(alg, pr.root, 0, i, e, (const uint8_t(*)[32])lv,
                                              (const uint8_t(*)[32])pr.path, pr.path_len, NULL),
                    MERKLE_ERR_VERIFY);
                flip(rparts[w], bit);
            }
        }
        assert_int_equal(merkle_proof_range_verify(alg, pr.root, n, i, e, (const uint8_t(*)[32])lv,
                                                   (const uint8_t(*)[32])pr.path, pr.path_len,
                                                   NULL),
                         MERKLE_OK);
    }
    free(lh);
}

/* ------------------------------------------------------------------ streaming prover */

static void check_prover(merkle_hash_alg alg, const h32 *lh, uint64_t n, merkle_proof_kind kind,
                         uint64_t a, uint64_t b)
{
    merkle_prover p;
    merkle_proof pr;
    assert_int_equal(merkle_prover_init(&p, kind, alg, 1, a, b), MERKLE_OK);
    feed_hashes(&p, lh, n);
    assert_int_equal(merkle_prover_leaf_count(&p), n);
    merkle_status s = merkle_prover_finish(&pr, &p, MERKLE_PROFILE_RFC6962);
    uint64_t need = kind == MERKLE_PROOF_RANGE ? b : kind == MERKLE_PROOF_INCLUSION ? a + 1 : a;
    if (need > n) {
        assert_int_equal(s, MERKLE_ERR_RANGE);
        return;
    }
    assert_int_equal(s, MERKLE_OK);
    uint8_t root[32];
    ref_mth(alg, lh, 0, n, root);
    assert_memory_equal(pr.root, root, 32);
    assert_int_equal(pr.tree_size, n);
    static h32 want[200];
    size_t wn = 0;
    if (kind == MERKLE_PROOF_INCLUSION) {
        ref_path(alg, lh, a, 0, n, want, &wn);
        assert_memory_equal(pr.leaf_hash, lh[a], 32);
    } else if (kind == MERKLE_PROOF_CONSISTENCY) {
        ref_subproof(alg, lh, a, 0, n, 1, want, &wn);
        uint8_t o[32];
        ref_mth(alg, lh, 0, a, o);
        assert_memory_equal(pr.old_root, o, 32);
    } else {
        ref_range(alg, lh, a, b, n, want, &wn);
    }
    if (pr.path_len != wn)
        fail_msg("kind %d n %llu a %llu b %llu: path %zu, want %zu", kind, (unsigned long long)n,
                 (unsigned long long)a, (unsigned long long)b, pr.path_len, wn);
    assert_memory_equal(pr.path, want, wn * 32);
    assert_int_equal(
        merkle_proof_verify(&pr, pr.root, pr.old_root, NULL, (const uint8_t(*)[32])(lh + a), NULL),
        MERKLE_OK);
}

static void test_prover_differential(void **state)
{
    (void)state;
    tu_rng rng;
    tu_rng_seed(&rng, 42);
    const uint64_t maxn = 4097;
    for (int alg_i = 0; alg_i < 2; alg_i++) {
        merkle_hash_alg alg = alg_i ? MERKLE_HASH_BLAKE2B_256 : MERKLE_HASH_SHA256;
        h32 *lh = make_leaf_hashes(alg, maxn);
        /* Sizes around chunk boundaries and a few large ones, targets at the edges. */
        const uint64_t sizes[] = { 1,   2,   3,   127, 128,  129,  255,  256,  257,  383, 384,
                                   511, 512, 513, 640, 1023, 1024, 1025, 1151, 2048, 4097 };
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            uint64_t n = sizes[si];
            if (alg_i && n > 600) continue; /* BLAKE2b: the small sizes suffice */
            uint64_t picks[] = { 0,   1,    63,   64,   127,  128,  129,   255,   256, 300,  511,
                                 512, 1023, 1024, 2047, 2048, 3000, n / 2, n - 1, n,   n + 1 };
            for (size_t k = 0; k < sizeof picks / sizeof *picks; k++) {
                uint64_t i = picks[k];
                if (i > n + 1 || (n > 1100 && k % 3 && k < 17)) continue;
                check_prover(alg, lh, n, MERKLE_PROOF_INCLUSION, i, 0);
                if (i >= 1) check_prover(alg, lh, n, MERKLE_PROOF_CONSISTENCY, i, 0);
                uint64_t e = i + 1 + tu_rng_below(&rng, 300);
                if (i < n) check_prover(alg, lh, n, MERKLE_PROOF_RANGE, i, e > n ? n : e);
                if (i < n) check_prover(alg, lh, n, MERKLE_PROOF_RANGE, i, n);
                if (i <= n) check_prover(alg, lh, n, MERKLE_PROOF_RANGE, i, n + 1);
            }
            for (int r = 0; r < (n > 1100 ? 2 : 5); r++) {
                uint64_t a = tu_rng_below(&rng, n), b = a + 1 + tu_rng_below(&rng, n - a);
                check_prover(alg, lh, n, MERKLE_PROOF_INCLUSION, a, 0);
                check_prover(alg, lh, n, MERKLE_PROOF_CONSISTENCY, a + 1, 0);
                check_prover(alg, lh, n, MERKLE_PROOF_RANGE, a, b);
            }
        }
        free(lh);
    }
}

/* The byte-stream path (batched in-place leaves, split writes) agrees with leaf hashes. */
static void test_prover_stream(void **state)
{
    (void)state;
    tu_rng rng;
    tu_rng_seed(&rng, 3);
    size_t len = 200000;
    uint8_t *data = malloc(len);
    tu_counter_bytes(data, len);
    for (int t = 0; t < 16; t++) {
        size_t seg = 1 + (size_t)tu_rng_below(&rng, t < 8 ? 64 : 700);
        size_t L = (size_t)tu_rng_below(&rng, len) + 1;
        uint64_t n = (L + seg - 1) / seg;
        h32 *lh = malloc(n * sizeof *lh);
        for (uint64_t i = 0; i < n; i++)
            ref_leaf(MERKLE_HASH_SHA256, lh[i], data + i * seg,
                     (i + 1) * seg <= L ? seg : L - i * seg);
        uint64_t a = tu_rng_below(&rng, n), b = a + 1 + tu_rng_below(&rng, n - a);
        merkle_proof_kind kinds[3] = { MERKLE_PROOF_INCLUSION, MERKLE_PROOF_RANGE,
                                       MERKLE_PROOF_CONSISTENCY };
        for (int k = 0; k < 3; k++) {
            merkle_prover p1, p2;
            merkle_proof r1, r2;
            uint64_t x = kinds[k] == MERKLE_PROOF_CONSISTENCY ? a + 1 : a;
            assert_int_equal(merkle_prover_init(&p1, kinds[k], MERKLE_HASH_SHA256, seg, x, b),
                             MERKLE_OK);
            assert_int_equal(merkle_prover_init(&p2, kinds[k], MERKLE_HASH_SHA256, seg, x, b),
                             MERKLE_OK);
            for (size_t off = 0; off < L;) {
                size_t take = 1 + (size_t)tu_rng_below(&rng, 5000);
                if (take > L - off) take = L - off;
                assert_int_equal(merkle_prover_write(&p1, data + off, take), MERKLE_OK);
                off += take;
            }
            feed_hashes(&p2, lh, n);
            assert_int_equal(merkle_prover_finish(&r1, &p1, MERKLE_PROFILE_RFC6962), MERKLE_OK);
            assert_int_equal(merkle_prover_finish(&r2, &p2, MERKLE_PROFILE_RFC6962), MERKLE_OK);
            assert_memory_equal(r1.root, r2.root, 32);
            assert_int_equal(r1.path_len, r2.path_len);
            assert_memory_equal(r1.path, r2.path, r1.path_len * 32);
            assert_memory_equal(r1.leaf_hash, r2.leaf_hash, 32);
            assert_memory_equal(r1.old_root, r2.old_root, 32);
            uint8_t root[32];
            assert_int_equal(merkle_tree_root_bytes(root, MERKLE_PROFILE_RFC6962,
                                                    MERKLE_HASH_SHA256, seg, data, L),
                             MERKLE_OK);
            assert_memory_equal(root, r1.root, 32);
        }
        free(lh);
    }
    /* push_leaf agrees with push_leaf_hash. */
    merkle_prover p;
    merkle_proof pr;
    assert_int_equal(merkle_prover_init(&p, MERKLE_PROOF_INCLUSION, MERKLE_HASH_SHA256, 1, 200, 0),
                     MERKLE_OK);
    for (int i = 0; i < 300; i++) {
        char b[8];
        int k = snprintf(b, sizeof b, "%d", i);
        assert_int_equal(merkle_prover_push_leaf(&p, b, (size_t)k), MERKLE_OK);
    }
    assert_int_equal(merkle_prover_finish(&pr, &p, MERKLE_PROFILE_RFC6962), MERKLE_OK);
    h32 *lh = make_leaf_hashes(MERKLE_HASH_SHA256, 300);
    assert_memory_equal(pr.leaf_hash, lh[200], 32);
    assert_int_equal(merkle_proof_verify(&pr, pr.root, pr.old_root, NULL, NULL, NULL), MERKLE_OK);
    free(lh);
    free(data);
}

/* The two-thread inclusion proof equals the single-thread one (and the plain prover's) for
** leaves on both sides of the split, odd sizes, short last leaves, both hashes. */
static void test_inclusion_parallel(void **state)
{
    (void)state;
    tu_rng rng;
    tu_rng_seed(&rng, 11);
    size_t len = 3u << 20; /* more than one 1 MiB read per half */
    uint8_t *data = malloc(len);
    tu_counter_bytes(data, len);
    tu_mem_reader rd = { data, UINT64_MAX };
    merkle_hash_alg algs[2] = { MERKLE_HASH_SHA256, MERKLE_HASH_BLAKE2B_256 };
    for (int t = 0; t < 12; t++) {
        size_t seg = t < 4 ? (size_t)1 << (t * 3) : 1 + (size_t)tu_rng_below(&rng, 9000);
        size_t L = t % 4 == 0 ? len : 1 + (size_t)tu_rng_below(&rng, len);
        if (seg < 64 && L > (64u << 10)) L = (64u << 10) + t; /* keep tiny leaves cheap */
        uint64_t n = (L + seg - 1) / seg;
        merkle_hash_alg alg = algs[t & 1];
        merkle_profile prof = t % 5 == 4 ? MERKLE_PROFILE_SIA : MERKLE_PROFILE_RFC6962;
        uint64_t idx[3] = { 0, n - 1, tu_rng_below(&rng, n) };
        for (int q = 0; q < 3; q++) {
            merkle_proof one, two, ref;
            merkle_prover pv;
            assert_int_equal(merkle_proof_inclusion_parallel(&one, prof, alg, seg, L, idx[q],
                                                             tu_mem_read_at, &rd, 1, NULL),
                             MERKLE_OK);
            assert_int_equal(merkle_proof_inclusion_parallel(&two, prof, alg, seg, L, idx[q],
                                                             tu_mem_read_at, &rd, 2, NULL),
                             MERKLE_OK);
            assert_int_equal(merkle_prover_init(&pv, MERKLE_PROOF_INCLUSION, alg, seg, idx[q], 0),
                             MERKLE_OK);
            assert_int_equal(merkle_prover_write(&pv, data, L), MERKLE_OK);
            assert_int_equal(merkle_prover_finish(&ref, &pv, prof), MERKLE_OK);
            const merkle_proof *ps[2] = { &one, &two };
            for (int k = 0; k < 2; k++) {
                const merkle_proof *p = ps[k];
                assert_int_equal(p->kind, ref.kind);
                assert_int_equal(p->profile, ref.profile);
                assert_int_equal(p->hash, ref.hash);
                assert_int_equal(p->tree_size, n);
                assert_int_equal(p->tree_size, ref.tree_size);
                assert_int_equal(p->index, ref.index);
                assert_int_equal(p->end, ref.end);
                assert_int_equal(p->leaf_size, ref.leaf_size);
                assert_int_equal(p->flags, ref.flags);
                assert_memory_equal(p->root, ref.root, 32);
                assert_memory_equal(p->leaf_hash, ref.leaf_hash, 32);
                assert_int_equal(p->path_len, ref.path_len);
                assert_memory_equal(p->path, ref.path, ref.path_len * 32);
                assert_int_equal(merkle_proof_verify(p, p->root, p->old_root, NULL, NULL, NULL),
                                 MERKLE_OK);
            }
        }
    }
    /* Errors: a read that fails in either half, on one thread or two; bad arguments; an
    ** index beyond the end; an empty input. */
    merkle_error err;
    merkle_proof pr;
    for (unsigned th = 1; th <= 2; th++) {
        tu_mem_reader bad = { data, 100 }; /* the left half fails */
        assert_int_equal(merkle_proof_inclusion_parallel(&pr, MERKLE_PROFILE_RFC6962,
                                                         MERKLE_HASH_SHA256, 1024, len, 5,
                                                         tu_mem_read_at, &bad, th, &err),
                         MERKLE_ERR_IO);
        assert_int_equal(err.status, MERKLE_ERR_IO);
        bad.fail_at = len - 10; /* the right half fails */
        assert_int_equal(merkle_proof_inclusion_parallel(&pr, MERKLE_PROFILE_RFC6962,
                                                         MERKLE_HASH_SHA256, 1024, len, 5,
                                                         tu_mem_read_at, &bad, th, &err),
                         MERKLE_ERR_IO);
        assert_int_equal(merkle_proof_inclusion_parallel(&pr, MERKLE_PROFILE_RFC6962,
                                                         MERKLE_HASH_SHA256, 1024, 4096, 4,
                                                         tu_mem_read_at, &rd, th, &err),
                         MERKLE_ERR_RANGE);
        assert_int_equal(merkle_proof_inclusion_parallel(&pr, MERKLE_PROFILE_RFC6962,
                                                         MERKLE_HASH_SHA256, 1024, 0, 0,
                                                         tu_mem_read_at, &rd, th, &err),
                         MERKLE_ERR_RANGE);
    }
    assert_int_equal(merkle_proof_inclusion_parallel(NULL, MERKLE_PROFILE_RFC6962,
                                                     MERKLE_HASH_SHA256, 1024, len, 0,
                                                     tu_mem_read_at, &rd, 2, &err),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_proof_inclusion_parallel(&pr, MERKLE_PROFILE_RFC6962,
                                                     MERKLE_HASH_SHA256, 1024, len, 0, NULL, &rd, 2,
                                                     &err),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_proof_inclusion_parallel(&pr, MERKLE_PROFILE_RFC6962,
                                                     MERKLE_HASH_SHA256, 0, len, 0, tu_mem_read_at,
                                                     &rd, 2, &err),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_proof_inclusion_parallel(&pr, MERKLE_PROFILE_BITCOIN,
                                                     MERKLE_HASH_SHA256, 1024, len, 0,
                                                     tu_mem_read_at, &rd, 2, &err),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_proof_inclusion_parallel(&pr, MERKLE_PROFILE_RFC6962,
                                                     (merkle_hash_alg)99, 1024, len, 0,
                                                     tu_mem_read_at, &rd, 2, &err),
                     MERKLE_ERR_ARG);
    free(data);
}

static void test_prover_errors(void **state)
{
    (void)state;
    merkle_prover p;
    merkle_proof pr;
    assert_int_equal(merkle_prover_init(NULL, MERKLE_PROOF_INCLUSION, MERKLE_HASH_SHA256, 1, 0, 0),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_prover_init(&p, MERKLE_PROOF_INCLUSION, MERKLE_HASH_SHA256, 0, 0, 0),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_prover_init(&p, MERKLE_PROOF_INCLUSION, (merkle_hash_alg)0, 1, 0, 0),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_prover_init(&p, (merkle_proof_kind)7, MERKLE_HASH_SHA256, 1, 0, 0),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_prover_init(&p, MERKLE_PROOF_RANGE, MERKLE_HASH_SHA256, 1, 5, 5),
                     MERKLE_ERR_RANGE);
    assert_int_equal(merkle_prover_init(&p, MERKLE_PROOF_CONSISTENCY, MERKLE_HASH_SHA256, 1, 0, 0),
                     MERKLE_ERR_RANGE);
    assert_int_equal(merkle_prover_init(&p, MERKLE_PROOF_INCLUSION, MERKLE_HASH_SHA256, 4, 0, 0),
                     MERKLE_OK);
    /* Empty stream: index 0 not reached. */
    assert_int_equal(merkle_prover_finish(&pr, &p, MERKLE_PROFILE_RFC6962), MERKLE_ERR_RANGE);
    assert_int_equal(merkle_prover_write(&p, "ab", 2), MERKLE_ERR_STATE);
    assert_int_equal(merkle_prover_init(&p, MERKLE_PROOF_INCLUSION, MERKLE_HASH_SHA256, 4, 0, 0),
                     MERKLE_OK);
    assert_int_equal(merkle_prover_write(&p, "ab", 2), MERKLE_OK);
    assert_int_equal(merkle_prover_push_leaf(&p, "x", 1),
                     MERKLE_ERR_STATE); /* partial leaf pending */
    assert_int_equal(merkle_prover_write(&p, NULL, 3), MERKLE_ERR_ARG);
    assert_int_equal(merkle_prover_finish(&pr, &p, (merkle_profile)0), MERKLE_ERR_ARG);
    assert_int_equal(merkle_prover_finish(&pr, &p, MERKLE_PROFILE_SIA), MERKLE_OK);
    assert_int_equal(pr.tree_size, 1);
    assert_int_equal(pr.path_len, 0);
    assert_memory_equal(pr.root, pr.leaf_hash, 32);
    assert_int_equal(merkle_prover_finish(&pr, &p, MERKLE_PROFILE_SIA), MERKLE_ERR_STATE);
    /* Range end and old size beyond the stream. */
    assert_int_equal(merkle_prover_init(&p, MERKLE_PROOF_RANGE, MERKLE_HASH_SHA256, 1, 1, 4),
                     MERKLE_OK);
    for (int i = 0; i < 3; i++) assert_int_equal(merkle_prover_push_leaf(&p, "a", 1), MERKLE_OK);
    assert_int_equal(merkle_prover_finish(&pr, &p, MERKLE_PROFILE_RFC6962), MERKLE_ERR_RANGE);
    assert_int_equal(merkle_prover_init(&p, MERKLE_PROOF_CONSISTENCY, MERKLE_HASH_SHA256, 1, 4, 0),
                     MERKLE_OK);
    for (int i = 0; i < 3; i++) assert_int_equal(merkle_prover_push_leaf(&p, "a", 1), MERKLE_OK);
    assert_int_equal(merkle_prover_finish(&pr, &p, MERKLE_PROFILE_RFC6962), MERKLE_ERR_RANGE);
}

/* ------------------------------------------------------------------ other verifiers */

static void test_sia_and_range_verify(void **state)
{
    (void)state;
    merkle_hash_alg alg = MERKLE_HASH_BLAKE2B_256;
    h32 *lh = make_leaf_hashes(alg, 100);
    for (uint64_t n = 1; n <= 40; n++) {
        uint8_t root[32];
        ref_mth(alg, lh, 0, n, root);
        for (uint64_t i = 0; i < n; i++) {
            h32 path[20];
            size_t pn = 0;
            ref_path(alg, lh, i, 0, n, path, &pn);
            char leaf[8];
            int k = snprintf(leaf, sizeof leaf, "%llu", (unsigned long long)i);
            assert_int_equal(merkle_proof_sia_verify(alg, root, n, i, leaf, (size_t)k,
                                                     (const uint8_t(*)[32])path, pn, NULL),
                             MERKLE_OK);
            assert_int_equal(merkle_proof_sia_verify(alg, root, n, n, leaf, (size_t)k,
                                                     (const uint8_t(*)[32])path, pn, NULL),
                             MERKLE_ERR_VERIFY);
            memcpy(path[pn], root, 32);
            assert_int_equal(merkle_proof_sia_verify(alg, root, n, i, leaf, (size_t)k,
                                                     (const uint8_t(*)[32])path, pn + 1, NULL),
                             MERKLE_ERR_VERIFY);
            if (pn)
                assert_int_equal(merkle_proof_sia_verify(alg, root, n, i, leaf, (size_t)k,
                                                         (const uint8_t(*)[32])path, pn - 1, NULL),
                                 MERKLE_ERR_VERIFY);
            /* Every range [i, e) verifies, with and without n; a short proof fails. */
            for (uint64_t e = i + 1; e <= n; e++) {
                h32 rp[40];
                size_t rn = 0;
                ref_range(alg, lh, i, e, n, rp, &rn);
                assert_int_equal(rn, merkle_proof_range_path_len(i, e, n));
                assert_int_equal(merkle_proof_range_verify(alg, root, 0, i, e,
                                                           (const uint8_t(*)[32])(lh + i),
                                                           (const uint8_t(*)[32])rp, rn, NULL),
                                 MERKLE_OK);
                assert_int_equal(merkle_proof_range_verify(alg, root, n, i, e,
                                                           (const uint8_t(*)[32])(lh + i),
                                                           (const uint8_t(*)[32])rp, rn, NULL),
                                 MERKLE_OK);
                if (rn) {
                    assert_int_equal(merkle_proof_range_verify(
                                         alg, root, 0, i, e, (const uint8_t(*)[32])(lh + i),
                                         (const uint8_t(*)[32])rp, rn - 1, NULL),
                                     MERKLE_ERR_VERIFY);
                }
            }
        }
    }
    uint8_t z[32] = { 0 };
    assert_int_equal(
        merkle_proof_range_verify(alg, z, 0, 3, 3, (const uint8_t(*)[32])lh, NULL, 0, NULL),
        MERKLE_ERR_RANGE);
    assert_int_equal(
        merkle_proof_range_verify(alg, z, 0, 4, 3, (const uint8_t(*)[32])lh, NULL, 0, NULL),
        MERKLE_ERR_RANGE);
    assert_int_equal(merkle_proof_range_verify(alg, z, 0, 0, 1, NULL, NULL, 0, NULL),
                     MERKLE_ERR_ARG);
    /* A taller subtree pushed after a shorter one is an error, not a crash: range [1,2) with
    ** a left element then right elements whose nominal heights are fine, but [3,4): left
    ** elements sizes 2,1 -- fine; craft [0,1) with far too many right elements instead. */
    h32 many[70];
    memset(many, 7, sizeof many);
    assert_int_equal(merkle_proof_range_verify(alg, z, 0, 0, 1, (const uint8_t(*)[32])lh,
                                               (const uint8_t(*)[32])many, 70, NULL),
                     MERKLE_ERR_VERIFY);
    assert_int_equal(merkle_proof_sia_verify(alg, z, 0, 0, NULL, 0, NULL, 0, NULL),
                     MERKLE_ERR_VERIFY);
    /* CometBFT argument rules. */
    assert_int_equal(merkle_proof_cometbft_verify(z, -1, 0, z, NULL, 0, NULL, 0, NULL),
                     MERKLE_ERR_VERIFY);
    assert_int_equal(merkle_proof_cometbft_verify(z, 1, -1, z, NULL, 0, NULL, 0, NULL),
                     MERKLE_ERR_VERIFY);
    assert_int_equal(
        merkle_proof_cometbft_verify(z, 1, 0, z, NULL, 0, (const uint8_t(*)[32])many, 101, NULL),
        MERKLE_ERR_VERIFY);
    /* Conversion rejects impossible lengths. */
    h32 out[70];
    assert_int_equal(merkle_proof_path_to_range_order(out, (const uint8_t(*)[32])many, 1, 3),
                     MERKLE_ERR_FORMAT);
    assert_int_equal(merkle_proof_range_order_to_path(out, (const uint8_t(*)[32])many, 1, 3),
                     MERKLE_ERR_FORMAT);
    assert_int_equal(merkle_proof_path_to_range_order(out, (const uint8_t(*)[32])many, 66, 0),
                     MERKLE_ERR_FORMAT);
    free(lh);
}

/* ------------------------------------------------------------------ codecs */

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_inclusion_all),
        cmocka_unit_test(test_consistency_all),
        cmocka_unit_test(test_bit_flips),
        cmocka_unit_test(test_prover_differential),
        cmocka_unit_test(test_prover_stream),
        cmocka_unit_test(test_prover_errors),
        cmocka_unit_test(test_inclusion_parallel),
        cmocka_unit_test(test_sia_and_range_verify),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
