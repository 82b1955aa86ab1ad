/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Multiproofs of shaped trees: SSZ generalized-index multiproofs (helper sets, proof,
** verification) and @openzeppelin/merkle-tree flag multiproofs (proof, verification).
*/
#include <stdlib.h>
#include <string.h>

#include "shape/shape_impl.h"

/* ------------------------------------------------------------------ gindex multiproofs */

static int cmp_u64_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x > y ? -1 : x < y;
}

/* Sorted (decreasing) helper set; *out allocated. */
static merkle_status helpers(uint64_t **out, size_t *out_len, const uint64_t *g, size_t n)
{
    if (n == 0 || !g) return MERKLE_ERR_ARG;
    size_t cap = n * 64;
    uint64_t *br = malloc(cap * sizeof *br), *pa = malloc(cap * sizeof *pa);
    uint64_t *in = malloc(n * sizeof *in);
    if (!br || !pa || !in) {
        free(br);
        free(pa);
        free(in);
        return MERKLE_ERR_NOMEM;
    }
    memcpy(in, g, n * sizeof *in);
    qsort(in, n, sizeof *in, cmp_u64_desc);
    size_t nb = 0, np = 0;
    merkle_status st = MERKLE_OK;
    for (size_t i = 0; i < n && st == MERKLE_OK; i++) {
        if (in[i] == 0 || (i && in[i] == in[i - 1])) st = MERKLE_ERR_ARG;
        for (uint64_t x = in[i]; x > 1; x >>= 1) {
            br[nb++] = x ^ 1;
            pa[np++] = x;
        }
    }
    if (st == MERKLE_OK) {
        qsort(br, nb, sizeof *br, cmp_u64_desc);
        qsort(pa, np, sizeof *pa, cmp_u64_desc);
        /* A gindex that is an ancestor of another is refused. */
        for (size_t i = 0; i < n && st == MERKLE_OK; i++)
            for (uint64_t x = in[i] >> 1; x >= 1 && st == MERKLE_OK; x >>= 1)
                if (bsearch(&x, in, n, sizeof *in, cmp_u64_desc)) st = MERKLE_ERR_ARG;
        size_t k = 0;
        /* Set difference, keeping the decreasing order and dropping duplicates. */
        size_t j = 0;
        for (size_t i = 0; i < nb && st == MERKLE_OK; i++) {
            if (i && br[i] == br[i - 1]) continue;
            while (j < np && pa[j] > br[i]) j++;
            if (j < np && pa[j] == br[i]) continue;
            br[k++] = br[i];
        }
        nb = k;
    }
    free(pa);
    free(in);
    if (st != MERKLE_OK) {
        free(br);
        return st;
    }
    *out = br;
    *out_len = nb;
    return MERKLE_OK;
}

merkle_status merkle_shape_helpers(uint64_t *out, size_t cap, size_t *out_len,
                                   const uint64_t *gindices, size_t n)
{
    if (!out_len || (cap && !out)) return MERKLE_ERR_ARG;
    uint64_t *h;
    size_t nh;
    merkle_status st = helpers(&h, &nh, gindices, n);
    if (st != MERKLE_OK) return st;
    *out_len = nh;
    if (cap < nh) {
        free(h);
        return MERKLE_ERR_BUFFER;
    }
    memcpy(out, h, nh * sizeof *h);
    free(h);
    return MERKLE_OK;
}

merkle_status merkle_shape_tree_multiproof(uint8_t (*proof)[MERKLE_HASH_LEN], size_t cap,
                                           size_t *proof_len, uint8_t (*leaves)[MERKLE_HASH_LEN],
                                           const merkle_shape_tree *t, const uint64_t *gindices,
                                           size_t n)
{
    if (!proof_len || !t || (cap && !proof) || t->heap) return MERKLE_ERR_ARG;
    uint64_t *h;
    size_t nh;
    merkle_status st = helpers(&h, &nh, gindices, n);
    if (st != MERKLE_OK) return st;
    *proof_len = nh;
    for (size_t i = 0; i < n && st == MERKLE_OK; i++) {
        node_t tmp;
        st = merkle_shape_tree_node(leaves ? leaves[i] : tmp, t, gindices[i]);
    }
    if (st == MERKLE_OK && cap < nh) st = MERKLE_ERR_BUFFER;
    for (size_t i = 0; i < nh && st == MERKLE_OK; i++)
        st = merkle_shape_tree_node(proof[i], t, h[i]);
    free(h);
    return st;
}

typedef struct gnode {
    uint64_t g;
    node_t h;
} gnode;

static int cmp_gnode_desc(const void *a, const void *b)
{
    return cmp_u64_desc(&((const gnode *)a)->g, &((const gnode *)b)->g);
}

merkle_status merkle_shape_multiproof_verify(const merkle_shape *s,
                                             const uint8_t root[MERKLE_HASH_LEN],
                                             const uint64_t *gindices,
                                             const uint8_t (*leaves)[MERKLE_HASH_LEN], size_t n,
                                             const uint8_t (*proof)[MERKLE_HASH_LEN],
                                             size_t proof_len, merkle_error *err)
{
    if (!root || !gindices || !leaves || (proof_len && !proof))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    if (!merkle__shape_ok(s) || s->layout != MERKLE_SHAPE_LAYOUT_LEVELS)
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid tree shape");
    uint64_t *h;
    size_t nh;
    merkle_status st = helpers(&h, &nh, gindices, n);
    if (st == MERKLE_ERR_ARG)
        return merkle__fail(err, st, 0, 0,
                            "generalized indices must be non-zero, distinct, "
                            "and none an ancestor of another");
    if (st != MERKLE_OK) return merkle__fail(err, st, 0, 0, "out of memory");
    if (nh != proof_len) {
        free(h);
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "the proof has %zu hashes, these indices need %zu", proof_len, nh);
    }
    size_t total = n + nh;
    gnode *a = malloc(total * sizeof *a), *q = malloc(total * sizeof *q);
    if (!a || !q) {
        free(h);
        free(a);
        free(q);
        return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        a[i].g = gindices[i];
        memcpy(a[i].h, leaves[i], MERKLE_HASH_LEN);
    }
    for (size_t i = 0; i < nh; i++) {
        a[n + i].g = h[i];
        memcpy(a[n + i].h, proof[i], MERKLE_HASH_LEN);
    }
    free(h);
    qsort(a, total, sizeof *a, cmp_gnode_desc);
    /* Merge the known nodes (decreasing) with the computed ones (queue, non-increasing). */
    size_t ai = 0, qh = 0, qt = 0;
    st = MERKLE_OK;
    node_t result;
    for (;;) {
        gnode *x;
        if (ai < total && (qh == qt || a[ai].g > q[qh].g))
            x = &a[ai++];
        else if (qh < qt)
            x = &q[qh++];
        else {
            st = MERKLE_ERR_VERIFY;
            break;
        }
        if (x->g == 1) {
            memcpy(result, x->h, MERKLE_HASH_LEN);
            if (ai != total || qh != qt) st = MERKLE_ERR_VERIFY;
            break;
        }
        gnode *y;
        if (ai < total && (qh == qt || a[ai].g > q[qh].g))
            y = &a[ai++];
        else if (qh < qt)
            y = &q[qh++];
        else {
            st = MERKLE_ERR_VERIFY;
            break;
        }
        if (!(x->g & 1) || y->g != x->g - 1) {
            st = MERKLE_ERR_VERIFY;
            break;
        }
        gnode p;
        p.g = x->g >> 1;
        merkle__shape_node2(s, p.h, y->h, x->h);
        q[qt++] = p;
    }
    free(a);
    free(q);
    if (st != MERKLE_OK) return merkle__fail(err, st, 0, 0, "the proof nodes do not form a tree");
    if (!merkle_ct_equal(result, root, MERKLE_HASH_LEN))
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "the multiproof does not lead to the root");
    return MERKLE_OK;
}

/* ------------------------------------------------------------------ flag multiproofs */

merkle_status merkle_shape_tree_flag_multiproof(uint8_t (*leaves)[MERKLE_HASH_LEN],
                                                uint8_t (*proof)[MERKLE_HASH_LEN],
                                                size_t *proof_len, uint8_t *flags,
                                                size_t *flags_len, size_t cap,
                                                const merkle_shape_tree *t, const uint64_t *pos,
                                                size_t n)
{
    if (!proof_len || !flags_len || !t || !t->heap || (n && !pos)) return MERKLE_ERR_ARG;
    if (cap && (!leaves || !proof || !flags)) return MERKLE_ERR_ARG;
    uint64_t N = 2 * t->n - 1;
    uint64_t *q = malloc((n + (size_t)N + 1) * sizeof *q);
    if (!q) return MERKLE_ERR_NOMEM;
    memcpy(q, pos, n * sizeof *q);
    qsort(q, n, sizeof *q, cmp_u64_desc);
    merkle_status st = MERKLE_OK;
    for (size_t i = 0; i < n; i++)
        if (q[i] >= N || q[i] < t->n - 1 || (i && q[i] == q[i - 1])) st = MERKLE_ERR_ARG;
    if (st != MERKLE_OK) {
        free(q);
        return st;
    }
    if (n > cap) st = MERKLE_ERR_BUFFER;
    for (size_t i = 0; i < n && st == MERKLE_OK; i++)
        memcpy(leaves[i], t->heap[q[i]], MERKLE_HASH_LEN);
    size_t head = 0, tail = n, np = 0, nf = 0;
    while (tail > head && q[head] > 0) {
        uint64_t j = q[head++];
        uint64_t sib = (j & 1) ? j + 1 : j - 1, par = (j - 1) / 2;
        if (tail > head && q[head] == sib) {
            if (nf < cap) flags[nf] = 1;
            nf++;
            head++;
        } else {
            if (nf < cap) flags[nf] = 0;
            nf++;
            if (np < cap) memcpy(proof[np], t->heap[sib], MERKLE_HASH_LEN);
            np++;
        }
        q[tail++] = par;
    }
    if (n == 0) {
        if (np < cap) memcpy(proof[np], t->heap[0], MERKLE_HASH_LEN);
        np++;
    }
    free(q);
    *proof_len = np;
    *flags_len = nf;
    if (st == MERKLE_OK && (np > cap || nf > cap)) st = MERKLE_ERR_BUFFER;
    return st;
}

merkle_status merkle_shape_flag_multiproof_verify(const merkle_shape *s,
                                                  const uint8_t root[MERKLE_HASH_LEN],
                                                  const uint8_t (*leaves)[MERKLE_HASH_LEN],
                                                  size_t n, const uint8_t (*proof)[MERKLE_HASH_LEN],
                                                  size_t proof_len, const uint8_t *flags,
                                                  size_t flags_len, merkle_error *err)
{
    if (!root || (n && !leaves) || (proof_len && !proof) || (flags_len && !flags))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    if (!merkle__shape_ok(s)) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid tree shape");
    if (n + proof_len != flags_len + 1)
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "%zu leaves and %zu proof hashes do not fit %zu flags", n, proof_len,
                            flags_len);
    node_t *q = malloc((n + flags_len + 1) * MERKLE_HASH_LEN);
    if (!q) return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    if (n) memcpy(q, leaves, n * MERKLE_HASH_LEN);
    size_t head = 0, tail = n, pi = 0;
    merkle_status st = MERKLE_OK;
    for (size_t i = 0; i < flags_len && st == MERKLE_OK; i++) {
        if (head == tail) {
            st = MERKLE_ERR_VERIFY;
            break;
        }
        const uint8_t *a = q[head++], *b;
        if (flags[i]) {
            if (head == tail) {
                st = MERKLE_ERR_VERIFY;
                break;
            }
            b = q[head++];
        } else {
            if (pi == proof_len) {
                st = MERKLE_ERR_VERIFY;
                break;
            }
            b = proof[pi++];
        }
        merkle__shape_node2(s, q[tail++], a, b);
    }
    node_t result;
    if (st == MERKLE_OK) {
        if (tail - head + (proof_len - pi) != 1)
            st = MERKLE_ERR_VERIFY;
        else
            memcpy(result, tail > head ? q[tail - 1] : proof[pi], MERKLE_HASH_LEN);
    }
    free(q);
    if (st != MERKLE_OK)
        return merkle__fail(err, st, 0, 0, "the flags do not match the leaves and proof");
    if (!merkle_ct_equal(result, root, MERKLE_HASH_LEN))
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "the multiproof does not lead to the root");
    return MERKLE_OK;
}
