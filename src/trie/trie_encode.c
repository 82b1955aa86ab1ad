/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Node encoding: the node-ID preimage (merkledb's encoding), merkle_trie_hash_node for one
** node given by its parts, path access for proofs, and the benchmarks' preimage dump.
*/
#include <stdlib.h>
#include <string.h>

#include "trie/trie_node.h"

/* ------------------------------------------------------------------ one node, public */

const uint8_t *merkle__trie_value_digest(uint8_t d[32], const uint8_t *value, size_t len,
                                         size_t *dlen)
{
    if (len >= 32) {
        merkle_sha256_hash(d, value, len);
        *dlen = 32;
        return d;
    }
    *dlen = len;
    return value;
}

merkle_status merkle_trie_hash_node(uint8_t out[MERKLE_TRIE_ID_LEN], const uint8_t *key,
                                    size_t key_bits, int has_value, const uint8_t *value,
                                    size_t value_len, const merkle_trie_child *children, size_t n)
{
    if (out == NULL || (key == NULL && key_bits) || (value == NULL && value_len) ||
        (children == NULL && n) || n > 256)
        return MERKLE_ERR_ARG;
    size_t kb = KEY_BYTES(key_bits);
    if ((key_bits & 7) && (key[kb - 1] & (0xffu >> (key_bits & 7)))) return MERKLE_ERR_ARG;
    merkle__tpre_stream s;
    merkle__tpre_begin(&s, n);
    for (size_t i = 0; i < n; i++) {
        if (children[i].index > 255 || (i && children[i].index <= children[i - 1].index))
            return MERKLE_ERR_ARG;
        merkle__tpre_add_child(&s, children[i].index, children[i].id);
    }
    uint8_t d[32];
    size_t dl = 0;
    const uint8_t *dp = has_value ? merkle__trie_value_digest(d, value, value_len, &dl) : NULL;
    merkle__tpre_finish(&s, out, has_value, dp, dl, key, key_bits);
    return MERKLE_OK;
}

/* ------------------------------------------------------------------ proofs: path access */

size_t merkle__trie_node_preimage(const tnode *n, uint8_t *out)
{
    const uint8_t *toks = kid_tokens(n);
    size_t dl = n->vlen >= 32 ? 32 : n->vlen;
    if (!out) return merkle__tpre_len(n->nkids, toks, n->hasval, dl, n->kbits);
    size_t u = merkle__tpre_count(out, n->nkids);
    for (unsigned i = 0; i < n->nkids; i++)
        u += merkle__tpre_child(out + u, toks[i], kid_ids(n) + (size_t)i * MERKLE_TRIE_ID_LEN);
    u += merkle__tpre_value(out + u, n->hasval, n->val, dl);
    u += merkle__tpre_key_head(out + u, n->kbits);
    size_t kb = KEY_BYTES(n->kbits);
    if (kb) memcpy(out + u, n->key, kb);
    return u + kb;
}

#define PROOF_MAGIC   "MTRP"
#define PROOF_VERSION 1

merkle_status merkle_trie_prove(uint8_t *out, size_t cap, size_t *out_len, merkle_trie *t,
                                const uint8_t *key, size_t key_len, merkle_error *err)
{
    if (t == NULL || out_len == NULL || (out == NULL && cap) || (key == NULL && key_len))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid argument");
    if (key_len > MERKLE_TRIE_MAX_KEY)
        return merkle__fail(err, MERKLE_ERR_RANGE, 0, 0, "key too long");
    uint8_t rid[MERKLE_TRIE_ID_LEN];
    merkle_status st = merkle_trie_root(rid, t, 1, err);
    if (st != MERKLE_OK) return st;
    uint32_t kbits = (uint32_t)(key_len * 8);
    /* Pass 1 sizes the proof, pass 2 writes it. */
    const tnode *target = merkle__trie_lookup(t, key, kbits);
    int present = target && target->hasval;
    uint8_t hdr[4 + 3 + 2 * MERKLE__UVARINT_MAX];
    for (int pass = 0; pass < 2; pass++) {
        uint8_t *w = pass ? out : NULL;
        size_t u = 0;
        memcpy(hdr, PROOF_MAGIC, 4);
        hdr[4] = PROOF_VERSION;
        hdr[5] = (uint8_t)t->ts;
        hdr[6] = (uint8_t)present;
        size_t h = 7 + merkle__uvarint_put(hdr + 7, key_len);
        if (w) memcpy(w, hdr, h);
        u += h;
        if (w && key_len) memcpy(w + u, key, key_len);
        u += key_len;
        if (present) {
            h = merkle__uvarint_put(hdr, target->vlen);
            if (w) memcpy(w + u, hdr, h);
            u += h;
            if (w && target->vlen) memcpy(w + u, node_value(target), target->vlen);
            u += target->vlen;
        }
        /* The lookup path: count, then the nodes. */
        size_t count = 0;
        for (const tnode *n = t->root; n;) {
            count++;
            if (n->kbits > kbits || common_bits(n->key, n->kbits, key, kbits, 0) < n->kbits ||
                n->kbits == kbits)
                break;
            int i = find_kid(n, token_at(key, n->kbits, t->ts));
            n = i < 0 ? NULL : n->kids[i];
        }
        h = merkle__uvarint_put(hdr, count);
        if (w) memcpy(w + u, hdr, h);
        u += h;
        for (const tnode *n = t->root; n;) {
            u += merkle__trie_node_preimage(n, w ? w + u : NULL);
            if (n->kbits > kbits || common_bits(n->key, n->kbits, key, kbits, 0) < n->kbits ||
                n->kbits == kbits)
                break;
            int i = find_kid(n, token_at(key, n->kbits, t->ts));
            n = i < 0 ? NULL : n->kids[i];
        }
        if (!pass) {
            *out_len = u;
            if (cap < u)
                return merkle__fail(err, MERKLE_ERR_BUFFER, 0, 0,
                                    "proof needs %zu bytes, buffer has %zu", u, cap);
        }
    }
    return MERKLE_OK;
}

/* ------------------------------------------------------------------ bench support */

merkle_status merkle__trie_preimages(const merkle_trie *t, uint8_t **buf, size_t *len,
                                     size_t **offs, size_t *count)
{
    *buf = NULL;
    *offs = NULL;
    *len = *count = 0;
    if (t->root == NULL) return MERKLE_OK;
    size_t cap = 1 << 20, ocap = 1 << 16, n = 0, c = 0;
    uint8_t *b = malloc(cap);
    size_t *o = malloc(ocap * sizeof *o);
    wstack w = { NULL, 0 };
    merkle_status st = MERKLE_ERR_NOMEM;
    if (b == NULL || o == NULL || ws_reserve(&w, 1) != 0) goto fail;
    size_t sp = 0;
    w.f[sp++] = (frame){ t->root, 0 };
    while (sp) {
        frame *fr = &w.f[sp - 1];
        if (fr->i < fr->n->nkids) {
            tnode *k = fr->n->kids[fr->i++];
            if (ws_reserve(&w, sp + 1) != 0) goto fail;
            w.f[sp++] = (frame){ k, 0 };
            continue;
        }
        tnode *nd = fr->n;
        sp--;
        size_t need = merkle__trie_node_preimage(nd, NULL);
        if (merkle__grow(&b, &cap, n + need, 1) != 0 ||
            merkle__grow(&o, &ocap, c + 2, sizeof *o) != 0)
            goto fail;
        o[c++] = n;
        n += merkle__trie_node_preimage(nd, b + n);
    }
    o[c] = n;
    free(w.f);
    *buf = b;
    *offs = o;
    *len = n;
    *count = c;
    return MERKLE_OK;
fail:
    free(w.f);
    free(b);
    free(o);
    return st;
}
