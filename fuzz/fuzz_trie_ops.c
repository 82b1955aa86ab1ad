/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Fuzz the trie operation-text parser and the trie itself. Input: byte 0 picks the branch
** factor, the rest is an operation file. Checks: parsing never crashes; the root equals the
** root of a fresh trie built from the surviving pairs in key order (canonical shape), and the
** threaded root equals the single-threaded one; the same pairs loaded by two put_batch calls
** (a bulk build, then a batch into the non-empty trie) give that root too; every key can be
** proved and verified.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/trie.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct copy_ctx {
    merkle_trie *dst;
    merkle_trie *src;
    int bad;
    /* the pairs, for put_batch (pointers into a buffer of copies) */
    uint8_t *store;
    size_t used, cap, n;
    size_t *ko, *kl, *vo, *vl;
} copy_ctx;

static int copy_visit(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
    copy_ctx *c = ctx;
    if (merkle_trie_put(c->dst, k, kl, v, vl) != MERKLE_OK) c->bad = 1;
    if (c->used + kl + vl <= c->cap && c->n < c->cap) {
        if (kl) memcpy(c->store + c->used, k, kl);
        c->ko[c->n] = c->used;
        c->kl[c->n] = kl;
        c->used += kl;
        if (vl) memcpy(c->store + c->used, v, vl);
        c->vo[c->n] = c->used;
        c->vl[c->n] = vl;
        c->used += vl;
        c->n++;
    } else {
        c->bad = 1;
    }
    /* Every present key has a verifying inclusion proof. */
    uint8_t root[MERKLE_TRIE_ID_LEN], buf[4096];
    size_t n;
    if (merkle_trie_root(root, c->src, 1, NULL) != MERKLE_OK) abort();
    if (merkle_trie_prove(buf, sizeof buf, &n, c->src, k, kl, NULL) == MERKLE_OK) {
        merkle_trie_proof_info info;
        if (merkle_trie_proof_verify(&info, root, buf, n, NULL) != MERKLE_OK) abort();
        if (!info.present || info.key_len != kl || info.value_len != vl) abort();
        if (vl && memcmp(info.value, v, vl) != 0) abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 << 16) return 0;
    static const unsigned bfs[] = { 2, 4, 16, 256 };
    merkle_trie *t, *u;
    if (merkle_trie_alloc(&t, bfs[data[0] & 3]) != MERKLE_OK) abort();
    if (merkle_trie_alloc(&u, bfs[data[0] & 3]) != MERKLE_OK) abort();
    uint8_t *scratch = malloc(size / 2 + 1);
    merkle_error e;
    (void)merkle_trie_apply_text(NULL, t, (const char *)data + 1, size - 1, scratch, size / 2 + 1,
                                 &e);
    copy_ctx c = { u, t, 0, NULL, 0, 2 * size + 16, 0, NULL, NULL, NULL, NULL };
    c.store = malloc(c.cap);
    c.ko = malloc(c.cap * sizeof(size_t));
    c.kl = malloc(c.cap * sizeof(size_t));
    c.vo = malloc(c.cap * sizeof(size_t));
    c.vl = malloc(c.cap * sizeof(size_t));
    const uint8_t **kp = malloc(c.cap * sizeof *kp), **vp = malloc(c.cap * sizeof *vp);
    size_t *bkl = malloc(c.cap * sizeof(size_t)), *bvl = malloc(c.cap * sizeof(size_t));
    if (!c.store || !c.ko || !c.kl || !c.vo || !c.vl || !kp || !vp || !bkl || !bvl) abort();
    if (merkle_trie_foreach(t, copy_visit, &c) != MERKLE_OK || c.bad) abort();
    uint8_t r1[32], r2[32], r3[32];
    if (merkle_trie_root(r1, t, 1, NULL) != MERKLE_OK) abort();
    if (merkle_trie_root(r2, u, 3, NULL) != MERKLE_OK) abort();
    if (memcmp(r1, r2, 32) != 0) abort();
    if (merkle_trie_size(t) != merkle_trie_size(u)) abort();
    {
        /* Even-numbered pairs by a bulk put_batch, then the odd ones into the non-empty trie
        ** (in reverse key order: the batch sorts them). */
        merkle_trie *w;
        if (merkle_trie_alloc(&w, bfs[data[0] & 3]) != MERKLE_OK) abort();
        for (int half = 0; half < 2; half++) {
            size_t m = 0;
            for (size_t i = c.n; i-- > 0;) {
                if ((i & 1) != (size_t)half) continue;
                kp[m] = c.store + c.ko[i];
                bkl[m] = c.kl[i];
                vp[m] = c.store + c.vo[i];
                bvl[m] = c.vl[i];
                m++;
            }
            if (merkle_trie_put_batch(w, kp, bkl, vp, bvl, m, NULL) != MERKLE_OK) abort();
            uint8_t rw[32];
            if (merkle_trie_root(rw, w, half ? 2 : 1, NULL) != MERKLE_OK) abort();
            if (half && memcmp(rw, r1, 32) != 0) abort();
        }
        if (merkle_trie_size(w) != merkle_trie_size(t)) abort();
        merkle_trie_free(w);
    }
    free(c.store);
    free(c.ko);
    free(c.kl);
    free(c.vo);
    free(c.vl);
    free(kp);
    free(vp);
    free(bkl);
    free(bvl);
    /* An absent key's exclusion proof verifies too. */
    static const uint8_t probe[] = { 0x12, 0x34 };
    uint8_t buf[4096];
    size_t n;
    int found;
    size_t vl;
    (void)merkle_trie_get(NULL, 0, &vl, &found, t, probe, sizeof probe);
    if (merkle_trie_prove(buf, sizeof buf, &n, t, probe, sizeof probe, NULL) == MERKLE_OK) {
        merkle_trie_proof_info info;
        if (merkle_trie_root(r3, t, 1, NULL) != MERKLE_OK) abort();
        if (merkle_trie_proof_verify(&info, r3, buf, n, NULL) != MERKLE_OK) abort();
        if (info.present != found) abort();
    }
    free(scratch);
    merkle_trie_free(t);
    merkle_trie_free(u);
    return 0;
}
