/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkledb database with history, and proof generation (spec sections 4.1, 5.1, 6.1, 6.2).
** The history keeps, per recorded commit, the root after it and each key's (before, after)
** values. A proof at an older root is generated on the live trie, reverted in place to that
** root (the trie is canonical, so its shape and IDs are exactly those of that state) and
** brought forward again afterwards: no copy of the trie is made.
*/
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"
#include "trie/mdb_impl.h"
#include "trie/trie_node.h"

typedef struct hchange {
    const uint8_t *key;
    size_t klen;
    merkle_mdb_maybe before, after;
} hchange;

typedef struct hentry {
    uint8_t root[MERKLE_TRIE_ID_LEN];
    hchange *ch;
    size_t n;
    mdb_arena a;
} hentry;

struct merkle_mdb_db {
    merkle_trie *t;
    unsigned bf;
    size_t hlen;
    hentry *h; /* oldest first */
    size_t hn, hcap;
};

static const uint8_t zero_id[MERKLE_TRIE_ID_LEN];

static int add_entry(merkle_mdb_db *db, const uint8_t root[32], hentry *e)
{
    if (db->hn == db->hlen) {
        mdb_arena_free(&db->h[0].a);
        memmove(db->h, db->h + 1, (db->hn - 1) * sizeof *db->h);
        db->hn--;
    }
    if (merkle__grow(&db->h, &db->hcap, db->hn + 1, sizeof *db->h) != 0) return -1;
    memcpy(e->root, root, 32);
    db->h[db->hn++] = *e;
    return 0;
}

merkle_status merkle_mdb_db_alloc(merkle_mdb_db **out, unsigned branch_factor, size_t history_len)
{
    if (out == NULL || mdb_ts(branch_factor) == 0) return MERKLE_ERR_ARG;
    *out = NULL;
    merkle_mdb_db *db = calloc(1, sizeof *db);
    if (db == NULL) return MERKLE_ERR_NOMEM;
    db->bf = branch_factor;
    db->hlen = history_len ? history_len : MERKLE_MDB_HISTORY_DEFAULT;
    merkle_status st = merkle_trie_alloc(&db->t, branch_factor);
    hentry e;
    memset(&e, 0, sizeof e);
    if (st != MERKLE_OK || add_entry(db, zero_id, &e) != 0) {
        merkle_mdb_db_free(db);
        return st != MERKLE_OK ? st : MERKLE_ERR_NOMEM;
    }
    *out = db;
    return MERKLE_OK;
}

void merkle_mdb_db_free(merkle_mdb_db *db)
{
    if (db == NULL) return;
    for (size_t i = 0; i < db->hn; i++) mdb_arena_free(&db->h[i].a);
    free(db->h);
    merkle_trie_free(db->t);
    free(db);
}

merkle_trie *merkle_mdb_db_trie(merkle_mdb_db *db)
{
    return db ? db->t : NULL;
}

static const merkle_mdb_op *sort_ops;
static int cmp_op_idx(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int c =
        mdb_bytes_cmp(sort_ops[i].key, sort_ops[i].key_len, sort_ops[j].key, sort_ops[j].key_len);
    if (c) return c;
    return i < j ? -1 : i > j;
}

static merkle_mdb_maybe current(merkle_trie *t, const uint8_t *k, size_t kl)
{
    const tnode *n = merkle__trie_lookup(t, k, (uint32_t)(kl * 8));
    if (n == NULL || !n->hasval) return (merkle_mdb_maybe){ NULL, 0, 0 };
    return (merkle_mdb_maybe){ node_value(n), n->vlen, 1 };
}

static int copy_maybe(mdb_arena *a, merkle_mdb_maybe *m)
{
    if (!m->some || m->len == 0) {
        m->ptr = NULL;
        return 0;
    }
    uint8_t *p = mdb_alloc(a, m->len);
    if (p == NULL) return -1;
    memcpy(p, m->ptr, m->len);
    m->ptr = p;
    return 0;
}

static merkle_status apply(merkle_trie *t, const uint8_t *k, size_t kl, merkle_mdb_maybe v)
{
    if (v.some) return merkle_trie_put(t, k, kl, v.ptr, v.len);
    return merkle_trie_delete(NULL, t, k, kl);
}

merkle_status merkle_mdb_db_commit(merkle_mdb_db *db, const merkle_mdb_op *ops, size_t n,
                                   int *recorded, merkle_error *err)
{
    if (recorded) *recorded = 0;
    if (db == NULL || (ops == NULL && n))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid argument");
    for (size_t i = 0; i < n; i++) {
        if ((ops[i].key == NULL && ops[i].key_len) ||
            (!ops[i].del && ops[i].value == NULL && ops[i].value_len))
            return merkle__fail(err, MERKLE_ERR_ARG, 0, i, "invalid argument");
        if (ops[i].key_len > MERKLE_TRIE_MAX_KEY ||
            (!ops[i].del && ops[i].value_len > MERKLE_TRIE_MAX_VALUE))
            return merkle__fail(err, MERKLE_ERR_RANGE, 0, i, "key or value too long");
    }
    size_t *ix = n ? malloc(n * sizeof *ix) : NULL;
    if (n && ix == NULL) return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    for (size_t i = 0; i < n; i++) ix[i] = i;
    sort_ops = ops;
    if (n) qsort(ix, n, sizeof *ix, cmp_op_idx);
    sort_ops = NULL;
    hentry e;
    memset(&e, 0, sizeof e);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (i + 1 == n || mdb_bytes_cmp(ops[ix[i]].key, ops[ix[i]].key_len, ops[ix[i + 1]].key,
                                        ops[ix[i + 1]].key_len) != 0)
            ix[m++] = ix[i]; /* the last op of each key */
    e.ch = m ? mdb_alloc(&e.a, m * sizeof *e.ch) : NULL;
    int rec = 0;
    merkle_status st = MERKLE_OK;
    if (m && e.ch == NULL) st = MERKLE_ERR_NOMEM;
    for (size_t i = 0; i < m && st == MERKLE_OK; i++) {
        const merkle_mdb_op *op = &ops[ix[i]];
        hchange *c = &e.ch[i];
        uint8_t *k = op->key_len ? mdb_alloc(&e.a, op->key_len) : NULL;
        if (op->key_len && k == NULL) {
            st = MERKLE_ERR_NOMEM;
            break;
        }
        if (op->key_len) memcpy(k, op->key, op->key_len);
        c->key = k;
        c->klen = op->key_len;
        c->before = current(db->t, op->key, op->key_len);
        c->after = op->del ? (merkle_mdb_maybe){ NULL, 0, 0 }
                           : (merkle_mdb_maybe){ op->value, op->value_len, 1 };
        if (copy_maybe(&e.a, &c->before) != 0 || copy_maybe(&e.a, &c->after) != 0) {
            st = MERKLE_ERR_NOMEM;
            break;
        }
        if (!op->del || c->before.some) rec = 1;
        e.n = i + 1;
    }
    free(ix);
    for (size_t i = 0; i < e.n && st == MERKLE_OK; i++)
        st = apply(db->t, e.ch[i].key, e.ch[i].klen, e.ch[i].after);
    uint8_t root[32];
    if (st == MERKLE_OK) st = merkle_trie_root(root, db->t, 1, err);
    if (st == MERKLE_OK && rec) {
        if (add_entry(db, root, &e) != 0)
            st = MERKLE_ERR_NOMEM;
        else if (recorded)
            *recorded = 1;
    }
    if (st != MERKLE_OK || !rec) mdb_arena_free(&e.a);
    if (st != MERKLE_OK && st != MERKLE_ERR_NOMEM) return st;
    if (st == MERKLE_ERR_NOMEM) return merkle__fail(err, st, 0, 0, "out of memory");
    return MERKLE_OK;
}

/* Revert the trie to just after entry idx (undo newer entries, newest first), or redo them. */
static merkle_status revert_to(merkle_mdb_db *db, size_t idx)
{
    for (size_t i = db->hn; i-- > idx + 1;) {
        const hentry *e = &db->h[i];
        for (size_t j = e->n; j-- > 0;) {
            merkle_status st = apply(db->t, e->ch[j].key, e->ch[j].klen, e->ch[j].before);
            if (st != MERKLE_OK) return st;
        }
    }
    uint8_t r[32];
    return merkle_trie_root(r, db->t, 1, NULL);
}

static merkle_status redo_from(merkle_mdb_db *db, size_t idx)
{
    for (size_t i = idx + 1; i < db->hn; i++) {
        const hentry *e = &db->h[i];
        for (size_t j = 0; j < e->n; j++) {
            merkle_status st = apply(db->t, e->ch[j].key, e->ch[j].klen, e->ch[j].after);
            if (st != MERKLE_OK) return st;
        }
    }
    uint8_t r[32];
    return merkle_trie_root(r, db->t, 1, NULL);
}

/* ------------------------------------------------------------------ proof paths */

static int node_of(mdb_arena *a, merkle_mdb_node *out, const tnode *n)
{
    size_t kb = KEY_BYTES(n->kbits);
    uint8_t *k = kb ? mdb_alloc(a, kb) : NULL;
    merkle_mdb_child *c = n->nkids ? mdb_alloc(a, n->nkids * sizeof *c) : NULL;
    if ((kb && k == NULL) || (n->nkids && c == NULL)) return -1;
    if (kb) memcpy(k, n->key, kb);
    if (n->nkids) {
        const uint8_t *toks = kid_tokens(n), *ids = kid_ids(n);
        for (unsigned i = 0; i < n->nkids; i++) {
            c[i].index = toks[i];
            memcpy(c[i].id, ids + (size_t)i * 32, 32);
        }
    }
    memset(out, 0, sizeof *out);
    out->key = k;
    out->key_len = kb;
    out->key_bits = n->kbits;
    out->children = c;
    out->nchildren = n->nkids;
    if (n->hasval) {
        size_t dl = n->vlen >= 32 ? 32 : n->vlen;
        uint8_t *d = dl ? mdb_alloc(a, dl) : NULL;
        if (dl && d == NULL) return -1;
        if (dl) memcpy(d, n->val, dl);
        out->value_or_hash = (merkle_mdb_maybe){ d, dl, 1 };
    }
    return 0;
}

/* getProof(key) path on t (root computed, non-empty): *nodes in the arena; *last the final tnode
** reached by the walk (for the value). */
static int key_path(mdb_arena *a, const merkle_trie *t, const uint8_t *key, size_t klen,
                    merkle_mdb_node **nodes, size_t *n, const tnode **target)
{
    uint32_t kb = (uint32_t)(klen * 8);
    /* Count first, then fill. */
    size_t cnt = 0;
    const tnode *cur = t->root, *extra = NULL;
    *target = NULL;
    int prefix = cur->kbits <= kb && common_bits(cur->key, cur->kbits, key, kb, 0) >= cur->kbits;
    if (!prefix) {
        cnt = 1;
    } else {
        for (;;) {
            cnt++;
            if (cur->kbits == kb) {
                *target = cur;
                break;
            }
            int i = find_kid(cur, token_at(key, cur->kbits, t->ts));
            if (i < 0) break;
            const tnode *c = cur->kids[i];
            if (c->kbits > kb || common_bits(c->key, c->kbits, key, kb, cur->kbits) < c->kbits) {
                extra = c;
                cnt++;
                break;
            }
            cur = c;
        }
    }
    merkle_mdb_node *v = mdb_alloc(a, cnt * sizeof *v);
    if (v == NULL) return -1;
    size_t j = 0;
    cur = t->root;
    if (!prefix) {
        if (node_of(a, &v[j++], cur) != 0) return -1;
    } else {
        for (;;) {
            if (node_of(a, &v[j++], cur) != 0) return -1;
            if (cur->kbits == kb) break;
            int i = find_kid(cur, token_at(key, cur->kbits, t->ts));
            if (i < 0) break;
            const tnode *c = cur->kids[i];
            if (c == extra) {
                if (node_of(a, &v[j++], c) != 0) return -1;
                break;
            }
            cur = c;
        }
    }
    *nodes = v;
    *n = j;
    return 0;
}

merkle_status merkle_mdb_prove_key(merkle_mdb_proof **out, merkle_mdb_maybe *value,
                                   merkle_mdb_result *res, merkle_trie *t, const uint8_t *key,
                                   size_t key_len)
{
    if (out == NULL || t == NULL || (key == NULL && key_len) || key_len > MERKLE_TRIE_MAX_KEY)
        return MERKLE_ERR_ARG;
    *out = NULL;
    if (value) *value = (merkle_mdb_maybe){ NULL, 0, 0 };
    uint8_t r[32];
    merkle_status st = merkle_trie_root(r, t, 1, NULL);
    if (st != MERKLE_OK) return st;
    if (t->root == NULL) {
        mdb_set(res, MERKLE_MDB_ERR_EMPTY_PROOF, NULL);
        return MERKLE_ERR_STATE;
    }
    merkle_mdb_proof *p = mdb_proof_new();
    if (p == NULL) return MERKLE_ERR_NOMEM;
    const tnode *tg;
    if (key_path(mdb_proof_arena(p), t, key, key_len, &p->start_proof, &p->nstart, &tg) != 0) {
        merkle_mdb_proof_free(p);
        return MERKLE_ERR_NOMEM;
    }
    p->end_proof = p->start_proof + p->nstart;
    if (value && tg && tg->hasval) *value = (merkle_mdb_maybe){ node_value(tg), tg->vlen, 1 };
    *out = p;
    mdb_set(res, MERKLE_MDB_OK, NULL);
    return MERKLE_OK;
}

/* ------------------------------------------------------------------ range proofs */

typedef struct kvlist {
    merkle_mdb_kv *v;
    size_t n, cap;
} kvlist;

/* Is the subtree of node key (kbits) entirely below start (bytes)? */
static int below(const tnode *n, merkle_mdb_maybe start)
{
    if (!start.some) return 0;
    uint32_t sb = (uint32_t)(start.len * 8);
    uint32_t c = common_bits(n->key, n->kbits, start.ptr, sb, 0);
    if (c >= n->kbits) return 0; /* n's key is a prefix of start */
    if (c >= sb) return 0;       /* start is a prefix of n's key: n's keys are >= start */
    return mkey_bit(n->key, c) < mkey_bit(start.ptr, c);
}

/* The stored pairs with start <= key <= end, ascending, at most max. */
static int collect(mdb_arena *a, const merkle_trie *t, merkle_mdb_maybe start, merkle_mdb_maybe end,
                   int64_t max, kvlist *out)
{
    typedef struct fr {
        const tnode *n;
        uint32_t i;
    } fr;
    size_t cap = 64, sp = 0;
    fr *st = malloc(cap * sizeof *st);
    if (st == NULL) return -1;
    int rc = 0;
    if (t->root && !below(t->root, start)) st[sp++] = (fr){ t->root, 0 };
    while (sp) {
        fr *f = &st[sp - 1];
        const tnode *n = f->n;
        if (f->i == 0 && n->hasval && (n->kbits % 8) == 0) {
            size_t kl = n->kbits / 8;
            if (!start.some || mdb_bytes_cmp(n->key, kl, start.ptr, start.len) >= 0) {
                if (end.some && mdb_bytes_cmp(n->key, kl, end.ptr, end.len) > 0) break;
                if ((int64_t)out->n >= max) break;
                if (merkle__grow(&out->v, &out->cap, out->n + 1, sizeof *out->v) != 0) {
                    rc = -1;
                    break;
                }
                uint8_t *k = kl ? mdb_alloc(a, kl) : NULL;
                uint8_t *val = n->vlen ? mdb_alloc(a, n->vlen) : NULL;
                if ((kl && k == NULL) || (n->vlen && val == NULL)) {
                    rc = -1;
                    break;
                }
                if (kl) memcpy(k, n->key, kl);
                if (n->vlen) memcpy(val, node_value(n), n->vlen);
                out->v[out->n++] = (merkle_mdb_kv){ k, kl, { val, n->vlen, 1 } };
            }
        }
        if (f->i < n->nkids) {
            const tnode *c = n->kids[f->i++];
            if (below(c, start)) continue;
            if (sp == cap) {
                fr *ns = realloc(st, 2 * cap * sizeof *st);
                if (ns == NULL) {
                    rc = -1;
                    break;
                }
                st = ns;
                cap *= 2;
            }
            st[sp++] = (fr){ c, 0 };
            continue;
        }
        sp--;
    }
    free(st);
    return rc;
}

/* Drop StartProof[i] while it equals EndProof[i] (by key). */
static void trim_start(merkle_mdb_proof *p)
{
    size_t i = 0;
    while (i < p->nstart && i < p->nend && p->start_proof[i].key_bits == p->end_proof[i].key_bits &&
           (p->start_proof[i].key_len == 0 ||
            memcmp(p->start_proof[i].key, p->end_proof[i].key, p->start_proof[i].key_len) == 0))
        i++;
    p->start_proof += i;
    p->nstart -= i;
}

/* Range proof on the trie as it is now (root computed, non-empty). */
static merkle_status range_now(merkle_mdb_proof **out, merkle_trie *t, merkle_mdb_maybe start,
                               merkle_mdb_maybe end, int64_t max)
{
    merkle_mdb_proof *p = mdb_proof_new();
    if (p == NULL) return MERKLE_ERR_NOMEM;
    mdb_arena *a = mdb_proof_arena(p);
    kvlist kv = { NULL, 0, 0 };
    const tnode *tg;
    int rc = collect(a, t, start, end, max, &kv);
    if (rc == 0 && kv.n) {
        merkle_mdb_kv *v = mdb_alloc(a, kv.n * sizeof *v);
        if (v == NULL) {
            rc = -1;
        } else {
            memcpy(v, kv.v, kv.n * sizeof *v);
            p->kvs = v;
            p->nkvs = kv.n;
        }
    }
    free(kv.v);
    if (rc == 0 && p->nkvs)
        rc = key_path(a, t, p->kvs[p->nkvs - 1].key, p->kvs[p->nkvs - 1].key_len, &p->end_proof,
                      &p->nend, &tg);
    else if (rc == 0 && end.some)
        rc = key_path(a, t, end.ptr, end.len, &p->end_proof, &p->nend, &tg);
    if (rc == 0 && start.some) {
        rc = key_path(a, t, start.ptr, start.len, &p->start_proof, &p->nstart, &tg);
        if (rc == 0) trim_start(p);
    }
    if (rc != 0) {
        merkle_mdb_proof_free(p);
        return MERKLE_ERR_NOMEM;
    }
    *out = p;
    return MERKLE_OK;
}

static int find_root(const merkle_mdb_db *db, const uint8_t *root, size_t below_idx, size_t *idx)
{
    for (size_t i = below_idx; i-- > 0;)
        if (memcmp(db->h[i].root, root, 32) == 0) {
            *idx = i;
            return 1;
        }
    return 0;
}

static int bad_maybe(merkle_mdb_maybe m)
{
    return (m.some && m.ptr == NULL && m.len) || (m.some && m.len > MERKLE_TRIE_MAX_KEY);
}

static merkle_status refuse(merkle_mdb_result *res, int kind)
{
    mdb_set(res, kind, NULL);
    return MERKLE_ERR_STATE;
}

merkle_status merkle_mdb_prove_range(merkle_mdb_proof **out, merkle_mdb_result *res,
                                     merkle_mdb_db *db, merkle_mdb_maybe start,
                                     merkle_mdb_maybe end, int64_t max_length,
                                     const uint8_t *at_root)
{
    if (out == NULL || db == NULL || bad_maybe(start) || bad_maybe(end)) return MERKLE_ERR_ARG;
    *out = NULL;
    size_t idx = db->hn - 1;
    if (at_root) {
        if (max_length <= 0) {
            mdb_set(res, MERKLE_MDB_ERR_INVALID_MAX_LENGTH, "%s but was %lld",
                    mdb_kind_text(MERKLE_MDB_ERR_INVALID_MAX_LENGTH), (long long)max_length);
            return MERKLE_ERR_STATE;
        }
        if (memcmp(at_root, zero_id, 32) == 0) return refuse(res, MERKLE_MDB_ERR_EMPTY_PROOF);
        if (!find_root(db, at_root, db->hn, &idx))
            return refuse(res, MERKLE_MDB_ERR_INSUFFICIENT_HISTORY);
    }
    if (start.some && end.some && mdb_bytes_cmp(start.ptr, start.len, end.ptr, end.len) > 0)
        return refuse(res, MERKLE_MDB_ERR_START_AFTER_END);
    if (max_length <= 0) {
        mdb_set(res, MERKLE_MDB_ERR_INVALID_MAX_LENGTH, "%s but was %lld",
                mdb_kind_text(MERKLE_MDB_ERR_INVALID_MAX_LENGTH), (long long)max_length);
        return MERKLE_ERR_STATE;
    }
    merkle_status st = MERKLE_OK;
    if (idx != db->hn - 1) st = revert_to(db, idx);
    if (st == MERKLE_OK) {
        uint8_t r[32];
        st = merkle_trie_root(r, db->t, 1, NULL);
    }
    if (st == MERKLE_OK && db->t->root == NULL) {
        st = refuse(res, MERKLE_MDB_ERR_EMPTY_PROOF);
    } else if (st == MERKLE_OK) {
        st = range_now(out, db->t, start, end, max_length);
        if (st == MERKLE_OK) mdb_set(res, MERKLE_MDB_OK, NULL);
    }
    if (idx != db->hn - 1) {
        merkle_status s2 = redo_from(db, idx);
        if (st == MERKLE_OK && s2 != MERKLE_OK) {
            merkle_mdb_proof_free(*out);
            *out = NULL;
            st = s2;
        }
    }
    return st;
}

/* ------------------------------------------------------------------ change proofs */

static int maybe_eq(merkle_mdb_maybe a, merkle_mdb_maybe b)
{
    if (a.some != b.some) return 0;
    return !a.some || (a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0));
}

merkle_status merkle_mdb_prove_change(merkle_mdb_proof **out, merkle_mdb_result *res,
                                      merkle_mdb_db *db, const uint8_t *from_root,
                                      const uint8_t *to_root, merkle_mdb_maybe start,
                                      merkle_mdb_maybe end, int64_t max_length)
{
    if (out == NULL || db == NULL || from_root == NULL || to_root == NULL || bad_maybe(start) ||
        bad_maybe(end))
        return MERKLE_ERR_ARG;
    *out = NULL;
    char a58[MERKLE_TRIE_CB58_ID_MAX], b58[MERKLE_TRIE_CB58_ID_MAX];
    if (start.some && end.some && mdb_bytes_cmp(start.ptr, start.len, end.ptr, end.len) > 0)
        return refuse(res, MERKLE_MDB_ERR_START_AFTER_END);
    if (memcmp(from_root, to_root, 32) == 0) return refuse(res, MERKLE_MDB_ERR_SAME_ROOT);
    if (memcmp(to_root, zero_id, 32) == 0) return refuse(res, MERKLE_MDB_ERR_EMPTY_PROOF);
    if (max_length <= 0) {
        mdb_set(res, MERKLE_MDB_ERR_INVALID_MAX_LENGTH, "%s but was %lld",
                mdb_kind_text(MERKLE_MDB_ERR_INVALID_MAX_LENGTH), (long long)max_length);
        return MERKLE_ERR_STATE;
    }
    size_t e, s;
    mdb_cb58(a58, from_root);
    mdb_cb58(b58, to_root);
    if (!find_root(db, to_root, db->hn, &e)) {
        mdb_set(res, MERKLE_MDB_ERR_NO_END_ROOT, "%s: %s",
                mdb_kind_text(MERKLE_MDB_ERR_NO_END_ROOT), b58);
        return MERKLE_ERR_STATE;
    }
    if (!find_root(db, from_root, db->hn, &s)) {
        mdb_set(res, MERKLE_MDB_ERR_INSUFFICIENT_HISTORY, "%s: start root %s not found",
                mdb_kind_text(MERKLE_MDB_ERR_INSUFFICIENT_HISTORY), a58);
        return MERKLE_ERR_STATE;
    }
    int none = 0;
    if (s > e) {
        if (e == 0) {
            none = 1; /* Go's quirk: nothing combined, no error */
        } else if (!find_root(db, from_root, e, &s)) {
            mdb_set(res, MERKLE_MDB_ERR_INSUFFICIENT_HISTORY,
                    "%s: start root %s not found before end root %s",
                    mdb_kind_text(MERKLE_MDB_ERR_INSUFFICIENT_HISTORY), a58, b58);
            return MERKLE_ERR_STATE;
        }
    }
    /* Combine the entries s+1..e. Each entry's changes are sorted by key, one per key
    ** (merkle_mdb_db_commit), so they are merged from the first key >= start, stopping at
    ** end or after max_length changes, rather than sorted whole on every request. */
    size_t ne = none ? 0 : e - s, total = 0;
    size_t *pos = malloc((ne ? ne : 1) * sizeof *pos);
    if (pos == NULL) return MERKLE_ERR_NOMEM;
    for (size_t q = 0; q < ne; q++) {
        const hentry *h = &db->h[s + 1 + q];
        size_t lo = 0, hi = h->n;
        while (start.some && lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (mdb_bytes_cmp(h->ch[mid].key, h->ch[mid].klen, start.ptr, start.len) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        pos[q] = lo;
        total += h->n - lo;
    }
    merkle_mdb_proof *p = mdb_proof_new();
    if (p == NULL) {
        free(pos);
        return MERKLE_ERR_NOMEM;
    }
    mdb_arena *ar = mdb_proof_arena(p);
    size_t cap = (uint64_t)max_length < (uint64_t)total ? (size_t)max_length : total;
    p->kvs = mdb_alloc(ar, (cap ? cap : 1) * sizeof *p->kvs);
    merkle_status st = p->kvs == NULL ? MERKLE_ERR_NOMEM : MERKLE_OK;
    while (st == MERKLE_OK) {
        /* The smallest next key over the entries: its first (oldest) and last change. */
        const hchange *first = NULL, *last = NULL;
        for (size_t q = 0; q < ne; q++) {
            const hentry *h = &db->h[s + 1 + q];
            if (pos[q] == h->n) continue;
            const hchange *c = &h->ch[pos[q]];
            int cmp = first ? mdb_bytes_cmp(c->key, c->klen, first->key, first->klen) : -1;
            if (cmp < 0) first = c;
            if (cmp <= 0) last = c;
        }
        if (first == NULL) break;
        for (size_t q = 0; q < ne; q++) {
            const hentry *h = &db->h[s + 1 + q];
            if (pos[q] < h->n &&
                mdb_bytes_cmp(h->ch[pos[q]].key, h->ch[pos[q]].klen, first->key, first->klen) == 0)
                pos[q]++;
        }
        if (maybe_eq(first->before, last->after)) continue;
        if (end.some && mdb_bytes_cmp(first->key, first->klen, end.ptr, end.len) > 0) break;
        if ((int64_t)p->nkvs >= max_length) break;
        p->kvs[p->nkvs++] = (merkle_mdb_kv){ first->key, first->klen, last->after };
    }
    free(pos);
    /* The history's bytes may go when entries are dropped: copy the kvs into the proof. */
    for (size_t i = 0; i < p->nkvs && st == MERKLE_OK; i++) {
        merkle_mdb_kv *kv = &p->kvs[i];
        merkle_mdb_maybe k = { kv->key, kv->key_len, 1 };
        if (copy_maybe(ar, &k) != 0 || copy_maybe(ar, &kv->value) != 0) st = MERKLE_ERR_NOMEM;
        kv->key = k.ptr;
    }
    int moved = e != db->hn - 1;
    if (st == MERKLE_OK && moved) st = revert_to(db, e);
    const tnode *tg;
    if (st == MERKLE_OK && db->t->root) {
        int rc = 0;
        if (p->nkvs)
            rc = key_path(ar, db->t, p->kvs[p->nkvs - 1].key, p->kvs[p->nkvs - 1].key_len,
                          &p->end_proof, &p->nend, &tg);
        else if (end.some)
            rc = key_path(ar, db->t, end.ptr, end.len, &p->end_proof, &p->nend, &tg);
        if (rc == 0 && start.some) {
            rc = key_path(ar, db->t, start.ptr, start.len, &p->start_proof, &p->nstart, &tg);
            if (rc == 0) trim_start(p);
        }
        if (rc != 0) st = MERKLE_ERR_NOMEM;
    }
    if (moved) {
        merkle_status s2 = redo_from(db, e);
        if (st == MERKLE_OK) st = s2;
    }
    if (st != MERKLE_OK) {
        merkle_mdb_proof_free(p);
        return st;
    }
    *out = p;
    mdb_set(res, MERKLE_MDB_OK, NULL);
    return MERKLE_OK;
}
