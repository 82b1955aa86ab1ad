/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The radix trie's life cycle, canonical put/delete, lookup and ordered walk (the node
** structure is described in trie_node.h; hashing in trie_hash.c, bulk building in
** trie_bulk.c, node encoding in trie_encode.c).
*/
#include <stdlib.h>
#include <string.h>

#include "trie/trie_node.h"

/* ------------------------------------------------------------------ life cycle */

merkle_status merkle_trie_alloc(merkle_trie **out, unsigned branch_factor)
{
    if (out == NULL) return MERKLE_ERR_ARG;
    *out = NULL;
    unsigned ts;
    switch (branch_factor) {
    case 2: ts = 1; break;
    case 4: ts = 2; break;
    case 16: ts = 4; break;
    case 256: ts = 8; break;
    default: return MERKLE_ERR_ARG;
    }
    merkle_trie *t = calloc(1, sizeof *t);
    if (t == NULL) return MERKLE_ERR_NOMEM;
    t->bf = branch_factor;
    t->ts = ts;
    *out = t;
    return MERKLE_OK;
}

void merkle_trie_free(merkle_trie *t)
{
    if (t == NULL) return;
    free(t->dl.v);
    pool_release(&t->pool);
    free(t);
}

unsigned merkle_trie_branch_factor(const merkle_trie *t)
{
    return t ? t->bf : 0;
}
uint64_t merkle_trie_size(const merkle_trie *t)
{
    return t ? t->size : 0;
}
size_t merkle_trie_memory(const merkle_trie *t)
{
    return t ? t->pool.bytes + sizeof *t + t->dl.cap * sizeof(dent) : 0;
}

/* ------------------------------------------------------------------ put / get / delete */

/* Put one pair (arguments checked); digest, when not NULL, is SHA-256(value) for a value of
** 32 bytes or more. */
merkle_status merkle__trie_put_one(merkle_trie *t, const uint8_t *key, size_t key_len,
                                   const uint8_t *value, size_t value_len, const uint8_t *digest)
{
    uint32_t kbits = (uint32_t)(key_len * 8);
    tnode **slot = &t->root;
    uint32_t from = 0;
    for (;;) {
        tnode *n = *slot;
        if (n == NULL) { /* empty trie */
            tnode *leaf = node_new(t, key, kbits);
            if (leaf == NULL || node_set_value_d(t, leaf, value, value_len, digest) != 0) {
                if (leaf) node_free(t, leaf);
                return MERKLE_ERR_NOMEM;
            }
            *slot = leaf;
            t->size++;
            return MERKLE_OK;
        }
        uint32_t cp = common_bits(n->key, n->kbits, key, kbits, from);
        if (cp < n->kbits) {
            /* The key leaves n's path inside n's compressed part: a new branch at the last
            ** token boundary takes n's place, with n and the new key below it. */
            cp -= cp % t->ts;
            tnode *b = node_new(t, key, cp);
            if (b == NULL) return MERKLE_ERR_NOMEM;
            if (node_add_kid(t, b, n, token_at(n->key, cp, t->ts)) != 0) {
                node_free(t, b);
                return MERKLE_ERR_NOMEM;
            }
            if (kbits == cp) {
                if (node_set_value_d(t, b, value, value_len, digest) != 0) {
                    node_free(t, b);
                    return MERKLE_ERR_NOMEM;
                }
            } else {
                tnode *leaf = node_new(t, key, kbits);
                if (leaf == NULL || node_set_value_d(t, leaf, value, value_len, digest) != 0 ||
                    node_add_kid(t, b, leaf, token_at(key, cp, t->ts)) != 0) {
                    if (leaf) node_free(t, leaf);
                    node_free(t, b);
                    return MERKLE_ERR_NOMEM;
                }
            }
            *slot = b;
            t->size++;
            return MERKLE_OK;
        }
        /* n's key is a prefix of key: n is on the path and its ID will change. */
        make_dirty(t, n);
        if (kbits == n->kbits) {
            int had = n->hasval;
            if (node_set_value_d(t, n, value, value_len, digest) != 0) return MERKLE_ERR_NOMEM;
            if (!had) t->size++;
            return MERKLE_OK;
        }
        unsigned tok = token_at(key, n->kbits, t->ts);
        int i = find_kid(n, tok);
        if (i >= 0) {
            mark_kid(n, tok);
            slot = &n->kids[i];
            from = n->kbits + t->ts;
            continue;
        }
        tnode *leaf = node_new(t, key, kbits);
        if (leaf == NULL || node_set_value_d(t, leaf, value, value_len, digest) != 0 ||
            node_add_kid(t, n, leaf, tok) != 0) {
            if (leaf) node_free(t, leaf);
            return MERKLE_ERR_NOMEM;
        }
        t->size++;
        return MERKLE_OK;
    }
}

merkle_status merkle_trie_put(merkle_trie *t, const uint8_t *key, size_t key_len,
                              const uint8_t *value, size_t value_len)
{
    if (t == NULL || (key == NULL && key_len) || (value == NULL && value_len))
        return MERKLE_ERR_ARG;
    if (key_len > MERKLE_TRIE_MAX_KEY || value_len > MERKLE_TRIE_MAX_VALUE) return MERKLE_ERR_RANGE;
    return merkle__trie_put_one(t, key, key_len, value, value_len, NULL);
}

/* The node whose full key is key (with or without a value), or NULL. */
tnode *merkle__trie_lookup(const merkle_trie *t, const uint8_t *key, uint32_t kbits)
{
    tnode *n = t->root;
    uint32_t from = 0;
    while (n) {
        if (n->kbits > kbits || common_bits(n->key, n->kbits, key, kbits, from) < n->kbits)
            return NULL;
        if (n->kbits == kbits) return n;
        int i = find_kid(n, token_at(key, n->kbits, t->ts));
        if (i < 0) return NULL;
        from = n->kbits + t->ts;
        n = n->kids[i];
    }
    return NULL;
}

merkle_status merkle_trie_get(uint8_t *value, size_t cap, size_t *value_len, int *found,
                              const merkle_trie *t, const uint8_t *key, size_t key_len)
{
    if (t == NULL || found == NULL || value_len == NULL || (key == NULL && key_len) ||
        (value == NULL && cap))
        return MERKLE_ERR_ARG;
    *found = 0;
    *value_len = 0;
    if (key_len > MERKLE_TRIE_MAX_KEY) return MERKLE_OK;
    const tnode *n = merkle__trie_lookup(t, key, (uint32_t)(key_len * 8));
    if (n == NULL || !n->hasval) return MERKLE_OK;
    *found = 1;
    *value_len = n->vlen;
    if (cap < n->vlen) return MERKLE_ERR_BUFFER;
    if (n->vlen) memcpy(value, node_value(n), n->vlen);
    return MERKLE_OK;
}

merkle_status merkle_trie_delete(int *found, merkle_trie *t, const uint8_t *key, size_t key_len)
{
    if (t == NULL || (key == NULL && key_len)) return MERKLE_ERR_ARG;
    if (found) *found = 0;
    if (key_len > MERKLE_TRIE_MAX_KEY) return MERKLE_OK;
    uint32_t kbits = (uint32_t)(key_len * 8);
    tnode *target = merkle__trie_lookup(t, key, kbits);
    if (target == NULL || !target->hasval) return MERKLE_OK;
    /* Walk again, marking the path dirty and remembering the parent's slot. */
    tnode **pslot = NULL, **slot = &t->root;
    while (*slot != target) {
        tnode *n = *slot;
        make_dirty(t, n);
        pslot = slot;
        unsigned tok = token_at(key, n->kbits, t->ts);
        mark_kid(n, tok);
        slot = &n->kids[find_kid(n, tok)];
    }
    if (found) *found = 1;
    t->size--;
    pool_free(&t->pool, target->val, VAL_SIZE(target->vlen));
    target->val = NULL;
    target->vlen = 0;
    target->hasval = 0;
    make_dirty(t, target);
    if (target->nkids >= 2) return MERKLE_OK;
    if (target->nkids == 1) { /* a valueless node with one child merges into the child */
        *slot = target->kids[0];
        node_free(t, target);
        return MERKLE_OK;
    }
    node_free(t, target);
    if (pslot == NULL) {
        t->root = NULL;
        return MERKLE_OK;
    }
    tnode *p = *pslot;
    node_remove_kid(p, (unsigned)(slot - p->kids));
    if (!p->hasval && p->nkids == 1) {
        *pslot = p->kids[0];
        node_free(t, p);
    }
    return MERKLE_OK;
}

/* ------------------------------------------------------------------ walk */

merkle_status merkle_trie_foreach(const merkle_trie *t, merkle_trie_visit_fn fn, void *ctx)
{
    if (t == NULL || fn == NULL) return MERKLE_ERR_ARG;
    if (t->root == NULL) return MERKLE_OK;
    wstack w = { NULL, 0 };
    merkle_status st = MERKLE_OK;
    size_t sp = 0;
    if (ws_reserve(&w, 1) != 0) return MERKLE_ERR_NOMEM;
    w.f[sp++] = (frame){ t->root, 0 };
    if (t->root->hasval &&
        fn(ctx, t->root->key, t->root->kbits / 8, node_value(t->root), t->root->vlen))
        goto done;
    while (sp) {
        frame *fr = &w.f[sp - 1];
        if (fr->i == fr->n->nkids) {
            sp--;
            continue;
        }
        tnode *c = fr->n->kids[fr->i++];
        if (c->hasval && fn(ctx, c->key, c->kbits / 8, node_value(c), c->vlen)) goto done;
        if (c->nkids) {
            if (ws_reserve(&w, sp + 1) != 0) {
                st = MERKLE_ERR_NOMEM;
                goto done;
            }
            w.f[sp++] = (frame){ c, 0 };
        }
    }
done:
    free(w.f);
    return st;
}
