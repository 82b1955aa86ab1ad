/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Merkle radix trie: the API's error paths, and incremental changes on key sets larger than
** the reference of test_trie.c can take, checked against fresh tries of the same pairs.
** (Split from test_trie.c.)
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/hash.h"
#include "merkle/trie.h"
#include "testutil.h"
#include "trie/trie_impl.h"

/* ------------------------------------------------------------------ API errors */

static int stop_after_one(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
    (void)k, (void)kl, (void)v, (void)vl;
    ++*(int *)ctx;
    return 1;
}

static void test_api_errors(void **state)
{
    (void)state;
    merkle_trie *t;
    assert_int_equal(merkle_trie_alloc(&t, 8), MERKLE_ERR_ARG);
    assert_int_equal(merkle_trie_alloc(&t, 0), MERKLE_ERR_ARG);
    assert_int_equal(merkle_trie_alloc(NULL, 16), MERKLE_ERR_ARG);
    assert_int_equal(merkle_trie_alloc(&t, 16), MERKLE_OK);
    assert_int_equal(merkle_trie_branch_factor(t), 16);
    assert_int_equal(merkle_trie_put(t, NULL, 1, NULL, 0), MERKLE_ERR_ARG);
    assert_int_equal(merkle_trie_put(t, (const uint8_t *)"k", 1, NULL, 1), MERKLE_ERR_ARG);
    assert_int_equal(merkle_trie_put(t, (const uint8_t *)"k", MERKLE_TRIE_MAX_KEY + 1, NULL, 0),
                     MERKLE_ERR_RANGE);
    /* Empty value is present; absent is absent. */
    assert_int_equal(merkle_trie_put(t, (const uint8_t *)"k", 1, NULL, 0), MERKLE_OK);
    assert_int_equal(merkle_trie_put(t, NULL, 0, (const uint8_t *)"root", 4), MERKLE_OK);
    int found;
    size_t vl;
    uint8_t v[8];
    assert_int_equal(merkle_trie_get(v, sizeof v, &vl, &found, t, (const uint8_t *)"k", 1),
                     MERKLE_OK);
    assert_true(found);
    assert_int_equal(vl, 0);
    assert_int_equal(merkle_trie_get(v, sizeof v, &vl, &found, t, (const uint8_t *)"x", 1),
                     MERKLE_OK);
    assert_false(found);
    assert_int_equal(merkle_trie_get(v, 2, &vl, &found, t, NULL, 0), MERKLE_ERR_BUFFER);
    assert_true(found);
    assert_int_equal(vl, 4);
    assert_int_equal(merkle_trie_get(NULL, 0, NULL, &found, t, NULL, 0), MERKLE_ERR_ARG);
    assert_int_equal(merkle_trie_delete(&found, t, (const uint8_t *)"zz", 2), MERKLE_OK);
    assert_false(found);
    assert_int_equal(merkle_trie_delete(&found, NULL, NULL, 0), MERKLE_ERR_ARG);
    int calls = 0;
    assert_int_equal(merkle_trie_foreach(t, stop_after_one, &calls), MERKLE_OK);
    assert_int_equal(calls, 1);
    assert_int_equal(merkle_trie_foreach(t, NULL, NULL), MERKLE_ERR_ARG);
    uint8_t root[32];
    assert_int_equal(merkle_trie_root(root, NULL, 1, NULL), MERKLE_ERR_ARG);
    size_t need;
    assert_int_equal(merkle_trie_prove(NULL, 0, NULL, t, NULL, 0, NULL), MERKLE_ERR_ARG);
    assert_int_equal(merkle_trie_prove(v, 4, &need, t, NULL, 0, NULL), MERKLE_ERR_BUFFER);
    assert_true(need > 4);
    merkle_trie_free(t);
    merkle_trie_free(NULL);
}

/* ------------------------------------------------------------------ incremental changes */

/* Larger key sets than the reference can take: a trie changed step by step (batches with
** new keys, updates in place and with other value sizes, duplicates, deletes, single puts;
** roots on 1-3 threads in between) must equal a fresh trie of the same pairs, put one by one
** in another order. Exercises the dirty-node list (valid and invalidated by deletes), the
** prefetching batch put (its cursors restart when nodes are freed) and the bulk build's
** pending inner nodes. */
typedef struct bigkv {
    uint8_t k[16];
    size_t klen;
    uint8_t v[40];
    size_t vlen;
} bigkv;

static long big_find(const bigkv *e, size_t n, const uint8_t *k, size_t kl)
{
    for (size_t i = 0; i < n; i++)
        if (e[i].klen == kl && memcmp(e[i].k, k, kl) == 0) return (long)i;
    return -1;
}

static void big_key(tu_rng *r, bigkv *x)
{
    x->klen = 1 + (size_t)tu_rng_below(r, 15);
    tu_rng_fill(r, x->k, x->klen);
    x->k[0] &= 0x13; /* few first bytes: deep shared prefixes */
    if (x->klen > 1 && tu_rng_below(r, 2)) x->k[1] &= 0x81;
}

static void big_fresh_root(const bigkv *e, size_t n, unsigned bf, tu_rng *r, uint8_t out[32])
{
    merkle_trie *f;
    assert_int_equal(merkle_trie_alloc(&f, bf), MERKLE_OK);
    size_t start = n ? (size_t)tu_rng_below(r, n) : 0;
    for (size_t j = 0; j < n; j++) { /* a rotated order */
        const bigkv *x = &e[(start + j) % n];
        assert_int_equal(merkle_trie_put(f, x->k, x->klen, x->v, x->vlen), MERKLE_OK);
    }
    assert_int_equal(merkle_trie_root(out, f, 1, NULL), MERKLE_OK);
    assert_int_equal(merkle_trie_size(f), n);
    merkle_trie_free(f);
}

static void test_incremental(void **state)
{
    (void)state;
    enum { BASE = 3000, MAXN = 12000, MAXB = 700 };
    tu_rng r;
    tu_rng_seed(&r, 777);
    bigkv *m = malloc(MAXN * sizeof *m), *b = malloc(MAXB * sizeof *b);
    const uint8_t **kp = malloc(MAXB * sizeof *kp), **vp = malloc(MAXB * sizeof *vp);
    size_t *kl = malloc(MAXB * sizeof *kl), *vl = malloc(MAXB * sizeof *vl);
    for (unsigned bf = 2; bf <= 256; bf *= bf == 4 ? 4 : bf == 16 ? 16 : 2) {
        size_t n = 0;
        merkle_trie *t;
        assert_int_equal(merkle_trie_alloc(&t, bf), MERKLE_OK);
        /* The base set, by one bulk put_batch (chunked through b). */
        while (n < BASE) {
            bigkv x;
            big_key(&r, &x);
            if (big_find(m, n, x.k, x.klen) >= 0) continue;
            x.vlen = (size_t)tu_rng_below(&r, 41);
            tu_rng_fill(&r, x.v, x.vlen);
            m[n++] = x;
        }
        {
            const uint8_t **bk = malloc(n * sizeof *bk), **bv = malloc(n * sizeof *bv);
            size_t *bkl = malloc(n * sizeof *bkl), *bvl = malloc(n * sizeof *bvl);
            for (size_t i = 0; i < n; i++) {
                bk[i] = m[i].k;
                bkl[i] = m[i].klen;
                bv[i] = m[i].v;
                bvl[i] = m[i].vlen;
            }
            assert_int_equal(merkle_trie_put_batch(t, bk, bkl, bv, bvl, n, NULL), MERKLE_OK);
            free(bk);
            free(bv);
            free(bkl);
            free(bvl);
        }
        for (int round = 0; round < 10; round++) {
            int kind = round % 5;
            if (kind == 1 || kind == 4) { /* deletes: the dirty list goes bad */
                size_t d = 1 + (size_t)tu_rng_below(&r, 300);
                for (size_t j = 0; j < d && n; j++) {
                    size_t i = (size_t)tu_rng_below(&r, n);
                    int found;
                    assert_int_equal(merkle_trie_delete(&found, t, m[i].k, m[i].klen), MERKLE_OK);
                    assert_true(found);
                    m[i] = m[--n];
                }
            }
            if (kind == 3) { /* single puts: a few updates and inserts */
                for (size_t j = 0; j < 200; j++) {
                    bigkv x;
                    if (n && tu_rng_below(&r, 2)) {
                        x = m[tu_rng_below(&r, n)];
                    } else {
                        big_key(&r, &x);
                    }
                    x.vlen = (size_t)tu_rng_below(&r, 41);
                    tu_rng_fill(&r, x.v, x.vlen);
                    assert_int_equal(merkle_trie_put(t, x.k, x.klen, x.v, x.vlen), MERKLE_OK);
                    long i = big_find(m, n, x.k, x.klen);
                    if (i < 0 && n < MAXN) i = (long)n++;
                    assert_true(i >= 0);
                    m[i] = x;
                }
            }
            /* A batch: updates (same and other value sizes), new keys, in-batch duplicates. */
            size_t nb = 1 + (size_t)tu_rng_below(&r, MAXB);
            for (size_t j = 0; j < nb; j++) {
                unsigned what = (unsigned)tu_rng_below(&r, 10);
                if (what < 5 && n) {
                    b[j] = m[tu_rng_below(&r, n)];
                    if (what < 3 && b[j].vlen) { /* same length: overwritten in place */
                        tu_rng_fill(&r, b[j].v, b[j].vlen);
                    } else {
                        b[j].vlen = (size_t)tu_rng_below(&r, 41);
                        tu_rng_fill(&r, b[j].v, b[j].vlen);
                    }
                } else if (what < 8 || j == 0) {
                    big_key(&r, &b[j]);
                    b[j].vlen = (size_t)tu_rng_below(&r, 41);
                    tu_rng_fill(&r, b[j].v, b[j].vlen);
                } else { /* a duplicate of an earlier item of this batch, another value */
                    b[j] = b[tu_rng_below(&r, j)];
                    b[j].vlen = (size_t)tu_rng_below(&r, 41);
                    tu_rng_fill(&r, b[j].v, b[j].vlen);
                }
                kp[j] = b[j].k;
                kl[j] = b[j].klen;
                vp[j] = b[j].v;
                vl[j] = b[j].vlen;
            }
            assert_int_equal(merkle_trie_put_batch(t, kp, kl, vp, vl, nb, NULL), MERKLE_OK);
            for (size_t j = 0; j < nb; j++) { /* in order: the later duplicate wins */
                long i = big_find(m, n, b[j].k, b[j].klen);
                if (i < 0) {
                    assert_true(n < MAXN);
                    i = (long)n++;
                }
                m[i] = b[j];
            }
            uint8_t got[32], want[32];
            assert_int_equal(merkle_trie_root(got, t, 1 + (unsigned)(round % 3), NULL), MERKLE_OK);
            big_fresh_root(m, n, bf, &r, want);
            assert_memory_equal(got, want, 32);
            assert_int_equal(merkle_trie_size(t), n);
        }
        merkle_trie_free(t);
    }
    free(m);
    free(b);
    free(kp);
    free(vp);
    free(kl);
    free(vl);
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_api_errors),
        cmocka_unit_test(test_incremental),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
