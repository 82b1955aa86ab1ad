/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkledb proof verification (spec sections 4.2, 5.2, 5.3, 6.3 and 8). The Go verifier edits
** a copy-on-write view of the verifier's database with the ordinary trie insert and remove and
** hashes the result; its verdicts on malformed proofs come from those algorithms, so they are
** replicated here over a view: view nodes (vnode) are created from the database's nodes
** (tnode) when an operation first visits them, and everything lives in one arena freed at the
** end (nothing is allocated per node on the heap). Go looks nodes up by key in its `changed`
** map and in the database's tables; here a child entry carries the view node or database node
** its key names, and the lookup rules (the hasValue table, the grafted entries that name no
** node) are applied to those.
*/
#include <string.h>

#include "common/internal.h"
#include "merkle/hash.h"
#include "trie/mdb_impl.h"
#include "trie/trie_node.h"

typedef struct vnode vnode;

typedef struct ventry {
    mkey ck;
    vnode *node;     /* the view node at this entry's key, when created */
    const tnode *db; /* the database node at this entry's key, if any */
    uint8_t id[MERKLE_TRIE_ID_LEN];
    uint8_t idx, has_value;
} ventry;

struct vnode {
    mkey key;
    merkle_mdb_maybe value, digest;
    ventry *kids; /* sorted by idx */
    uint32_t nkids, cap;
    uint8_t changed;
    uint8_t id[MERKLE_TRIE_ID_LEN];
};

typedef struct view {
    mdb_arena a;
    merkle_trie *db;
    const tnode *dbroot;
    unsigned ts;
    vnode *root;
    int panic;
} view;

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        int rc_ = (x);                                                                             \
        if (rc_) return rc_;                                                                       \
    } while (0)
#define NOMEM_IF(c)                                                                                \
    do {                                                                                           \
        if (c) return MDB_NOMEM;                                                                   \
    } while (0)
#define PANIC_IF(v)                                                                                \
    do {                                                                                           \
        if ((v)->panic) return MDB_PANIC;                                                          \
    } while (0)

static ventry *vfind(vnode *n, unsigned idx)
{
    for (uint32_t i = 0; i < n->nkids; i++)
        if (n->kids[i].idx == idx) return &n->kids[i];
    return NULL;
}

/* setChildEntry: insert or replace the entry at e->idx. */
static int vset(view *v, vnode *n, const ventry *e)
{
    uint32_t i = 0;
    while (i < n->nkids && n->kids[i].idx < e->idx) i++;
    if (i < n->nkids && n->kids[i].idx == e->idx) {
        n->kids[i] = *e;
        return 0;
    }
    if (n->nkids == n->cap) {
        uint32_t nc = n->cap ? n->cap * 2 : 4;
        if (nc > 256) nc = 256;
        ventry *k = mdb_alloc(&v->a, nc * sizeof *k);
        NOMEM_IF(k == NULL);
        if (n->nkids) memcpy(k, n->kids, n->nkids * sizeof *k);
        n->kids = k;
        n->cap = nc;
    }
    memmove(n->kids + i + 1, n->kids + i, (n->nkids - i) * sizeof *n->kids);
    n->kids[i] = *e;
    n->nkids++;
    return 0;
}

static void vremove(vnode *n, unsigned idx)
{
    for (uint32_t i = 0; i < n->nkids; i++) {
        if (n->kids[i].idx == idx) {
            memmove(n->kids + i, n->kids + i + 1, (n->nkids - i - 1) * sizeof *n->kids);
            n->nkids--;
            return;
        }
    }
}

static vnode *vnew(view *v, mkey key)
{
    vnode *n = mdb_zalloc(&v->a, sizeof *n);
    if (n) n->key = key;
    return n;
}

static mkey tkey(const tnode *t)
{
    return (mkey){ t->key, t->kbits, KEY_BYTES(t->kbits) };
}

/* A view node copied from the database node t whose ID is id. */
static vnode *vload(view *v, const tnode *t, const uint8_t *id)
{
    vnode *n = vnew(v, tkey(t));
    if (n == NULL) return NULL;
    memcpy(n->id, id, MERKLE_TRIE_ID_LEN);
    if (t->hasval) {
        n->value = (merkle_mdb_maybe){ node_value(t), t->vlen, 1 };
        n->digest = t->vlen >= 32 ? (merkle_mdb_maybe){ t->val, 32, 1 } : n->value;
    }
    if (t->nkids) {
        n->kids = mdb_alloc(&v->a, t->nkids * sizeof *n->kids);
        if (n->kids == NULL) return NULL;
        n->nkids = n->cap = t->nkids;
        const uint8_t *toks = kid_tokens(t), *ids = kid_ids(t);
        for (unsigned i = 0; i < t->nkids; i++) {
            ventry *e = &n->kids[i];
            const tnode *c = t->kids[i];
            e->idx = toks[i];
            e->node = NULL;
            e->db = c;
            e->has_value = c->hasval;
            memcpy(e->id, ids + (size_t)i * MERKLE_TRIE_ID_LEN, MERKLE_TRIE_ID_LEN);
            if (mkey_skip(&e->ck, &v->a, tkey(c), (int64_t)t->kbits + v->ts) != 0) return NULL;
        }
    }
    return n;
}

/* Is k the first nbits bits of key (Take(key, nbits) == k)? */
static int is_take(mkey k, mkey key, int64_t nbits)
{
    int pn = 0;
    return k.bits == nbits && key.bits >= nbits && mkey_has_prefix(key, k, &pn) && !pn;
}

/* getNode(Take(key, nbits), entry.hasValue), reached through the entry e: the view node or
** database node the entry names when its key is the one looked up; else the database's node
** with that key (Go's table lookup), or not found. */
static int vget(view *v, ventry *e, mkey key, int64_t nbits, vnode **out)
{
    if (e->node && is_take(e->node->key, key, nbits)) {
        *out = e->node;
        return 0;
    }
    const tnode *d = NULL;
    if (e->node == NULL && e->db && is_take(tkey(e->db), key, nbits)) {
        d = e->db;
    } else if (v->db && nbits >= 0 && nbits <= (int64_t)UINT32_MAX) {
        mkey k;
        NOMEM_IF(mkey_take(&k, &v->a, key, nbits) != 0);
        d = merkle__trie_lookup(v->db, k.b, (uint32_t)nbits);
    }
    if (d && (d->hasval == e->has_value || d == v->dbroot)) {
        vnode *n = vload(v, d, d->id);
        NOMEM_IF(n == NULL);
        if (e->node == NULL) e->node = n;
        *out = n;
        return 0;
    }
    return MERKLE_MDB_ERR_NOT_FOUND;
}

static int set_value(view *v, vnode *n, merkle_mdb_maybe val)
{
    n->value = val;
    if (val.some && val.len >= 32) {
        uint8_t *d = mdb_alloc(&v->a, 32);
        NOMEM_IF(d == NULL);
        merkle_sha256_hash(d, val.ptr, val.len);
        n->digest = (merkle_mdb_maybe){ d, 32, 1 };
    } else {
        n->digest = val;
    }
    return 0;
}

/* addChildWithID(child, id). */
static int add_child(view *v, vnode *n, vnode *c, const uint8_t *id)
{
    ventry e;
    memset(&e, 0, sizeof e);
    e.idx = (uint8_t)mkey_token(c->key, n->key.bits, v->ts, &v->panic);
    PANIC_IF(v);
    NOMEM_IF(mkey_skip(&e.ck, &v->a, c->key, n->key.bits + v->ts) != 0);
    e.node = c;
    e.has_value = (uint8_t)c->value.some;
    if (id) memcpy(e.id, id, MERKLE_TRIE_ID_LEN);
    return vset(v, n, &e);
}

/* Does key continue with ck, token by token, from bit off (iteratedHasPrefix)? */
static int iter_has_prefix(view *v, mkey key, mkey ck, int64_t off)
{
    if (key.bits - off < ck.bits) return 0;
    for (int64_t i = 0; i < ck.bits; i += v->ts) {
        unsigned a = mkey_token(key, off + i, v->ts, &v->panic);
        unsigned b = mkey_token(ck, i, v->ts, &v->panic);
        if (v->panic) return 0;
        if (a != b) return 0;
    }
    return 1;
}

/* ID of n as it is now (its entries' IDs as held). */
static void hash_vnode(vnode *n, uint8_t out[32])
{
    uint32_t idx[256];
    const uint8_t *ids[256];
    for (uint32_t i = 0; i < n->nkids; i++) {
        idx[i] = n->kids[i].idx;
        ids[i] = n->kids[i].id;
    }
    mdb_hash_node(out, n->key, &n->digest, idx, ids, n->nkids);
}

/* visitPathToKey, recording every visited node; keeps the last three (last[2] the deepest). */
static int walk(view *v, mkey key, vnode *last[3])
{
    last[0] = last[1] = last[2] = NULL;
    if (v->root == NULL) return 0;
    int hp = mkey_has_prefix(key, v->root->key, &v->panic);
    PANIC_IF(v);
    if (!hp) return 0;
    vnode *cur = v->root;
    for (;;) {
        cur->changed = 1;
        last[0] = last[1];
        last[1] = last[2];
        last[2] = cur;
        if (cur->key.bits >= key.bits) return 0;
        unsigned tok = mkey_token(key, cur->key.bits, v->ts, &v->panic);
        PANIC_IF(v);
        ventry *e = vfind(cur, tok);
        if (e == NULL) return 0;
        int ok = iter_has_prefix(v, key, e->ck, cur->key.bits + v->ts);
        PANIC_IF(v);
        if (!ok) return 0;
        vnode *nx;
        CHECK(vget(v, e, key, cur->key.bits + v->ts + e->ck.bits, &nx));
        cur = nx;
    }
}

/* view.insert(key, value); *out the node holding the key. */
static int insert(view *v, mkey key, merkle_mdb_maybe value, vnode **out)
{
    if (v->root == NULL) {
        vnode *n = vnew(v, key);
        NOMEM_IF(n == NULL);
        CHECK(set_value(v, n, value));
        n->changed = 1;
        v->root = n;
        *out = n;
        return 0;
    }
    vnode *last[3];
    CHECK(walk(v, key, last));
    vnode *closest = last[2];
    if (closest == NULL) {
        vnode *old = v->root;
        int64_t c = mkey_common(old->key, key, 0, v->ts, &v->panic);
        PANIC_IF(v);
        mkey cp;
        NOMEM_IF(mkey_take(&cp, &v->a, old->key, c) != 0);
        vnode *nr = vnew(v, cp);
        NOMEM_IF(nr == NULL);
        uint8_t oid[32];
        hash_vnode(old, oid);
        CHECK(add_child(v, nr, old, oid));
        nr->changed = 1;
        v->root = nr;
        closest = nr;
    }
    if (mkey_eq(closest->key, key)) {
        CHECK(set_value(v, closest, value));
        *out = closest;
        return 0;
    }
    unsigned tok = mkey_token(key, closest->key.bits, v->ts, &v->panic);
    PANIC_IF(v);
    ventry *e = vfind(closest, tok);
    if (e == NULL) {
        vnode *n = vnew(v, key);
        NOMEM_IF(n == NULL);
        CHECK(set_value(v, n, value));
        CHECK(add_child(v, closest, n, NULL));
        n->changed = 1;
        *out = n;
        return 0;
    }
    ventry saved = *e;
    int64_t c = mkey_common(saved.ck, key, closest->key.bits + v->ts, v->ts, &v->panic);
    PANIC_IF(v);
    if (saved.ck.bits <= c) return mdb_set(NULL, MERKLE_MDB_ERR_VISIT_PATH_TO_KEY, NULL);
    mkey bk;
    NOMEM_IF(mkey_take(&bk, &v->a, key, closest->key.bits + v->ts + c) != 0);
    vnode *br = vnew(v, bk);
    NOMEM_IF(br == NULL);
    CHECK(add_child(v, closest, br, NULL));
    vnode *withval = br;
    if (key.bits == bk.bits) {
        CHECK(set_value(v, br, value));
    } else {
        vnode *n = vnew(v, key);
        NOMEM_IF(n == NULL);
        CHECK(set_value(v, n, value));
        CHECK(add_child(v, br, n, NULL));
        n->changed = 1;
        withval = n;
    }
    ventry moved = saved;
    moved.idx = (uint8_t)mkey_token(saved.ck, c, v->ts, &v->panic);
    PANIC_IF(v);
    NOMEM_IF(mkey_skip(&moved.ck, &v->a, saved.ck, c + v->ts) != 0);
    CHECK(vset(v, br, &moved));
    br->changed = 1;
    *out = withval;
    return 0;
}

/* getNode(key, true) in the view: does a node with this key and a value exist? */
static int lookup_valued(view *v, mkey key)
{
    vnode *n = v->root;
    int pn = 0;
    while (n) {
        if (mkey_eq(n->key, key)) return n->value.some;
        if (n->key.bits >= key.bits || !mkey_has_prefix(key, n->key, &pn) || pn) return 0;
        unsigned tok = mkey_token(key, n->key.bits, v->ts, &pn);
        if (pn) return 0;
        ventry *e = vfind(n, tok);
        if (e == NULL) return 0;
        if (e->node) {
            n = e->node;
            continue;
        }
        if (e->db == NULL || key.bits % 8 || key.bits > (int64_t)UINT32_MAX) return 0;
        /* In the database below e->db. */
        const tnode *d = e->db;
        uint32_t kb = (uint32_t)key.bits;
        while (d) {
            if (d->kbits > kb || common_bits(d->key, d->kbits, key.b, kb, 0) < d->kbits) return 0;
            if (d->kbits == kb) return d->hasval;
            int i = find_kid(d, token_at(key.b, d->kbits, v->ts));
            if (i < 0) return 0;
            d = d->kids[i];
        }
        return 0;
    }
    return 0;
}

static int compress(view *v, vnode *p, vnode *n)
{
    if (n->nkids != 1 || n->value.some) return 0;
    ventry *e = &n->kids[0];
    mkey tk, ckey;
    NOMEM_IF(mkey_token_key(&tk, &v->a, e->idx, v->ts) != 0);
    NOMEM_IF(mkey_extend3(&ckey, &v->a, n->key, tk, e->ck) != 0);
    if (p == NULL) {
        vnode *r;
        CHECK(vget(v, e, ckey, ckey.bits, &r));
        v->root = r;
        return 0;
    }
    ventry moved = *e;
    moved.idx = (uint8_t)mkey_token(ckey, p->key.bits, v->ts, &v->panic);
    PANIC_IF(v);
    NOMEM_IF(mkey_skip(&moved.ck, &v->a, ckey, p->key.bits + v->ts) != 0);
    CHECK(vset(v, p, &moved));
    p->changed = 1;
    return 0;
}

static int vremove_key(view *v, mkey key)
{
    if (!lookup_valued(v, key)) return 0;
    vnode *last[3];
    CHECK(walk(v, key, last));
    vnode *gp = last[0], *p = last[1], *nd = last[2];
    if (nd == NULL) return MDB_PANIC;
    nd->value = (merkle_mdb_maybe){ NULL, 0, 0 };
    nd->digest = nd->value;
    if (nd->nkids == 0) {
        nd->changed = 0; /* deleted */
        if (mkey_eq(nd->key, v->root->key)) {
            v->root = NULL;
            return 0;
        }
        if (p == NULL) return MDB_PANIC;
        unsigned tok = mkey_token(nd->key, p->key.bits, v->ts, &v->panic);
        PANIC_IF(v);
        vremove(p, tok);
        return compress(v, gp, p);
    }
    return compress(v, p, nd);
}

/* Root ID of the view (hashChangedNodes), without recursion. */
static int vhash(view *v, uint8_t out[32])
{
    if (v->root == NULL) {
        memset(out, 0, 32);
        return 0;
    }
    typedef struct fr {
        vnode *n;
        uint32_t i;
    } fr;
    size_t cap = 64, sp = 0;
    fr *st = mdb_alloc(&v->a, cap * sizeof *st);
    NOMEM_IF(st == NULL);
    st[sp++] = (fr){ v->root, 0 };
    while (sp) {
        fr *f = &st[sp - 1];
        if (f->i < f->n->nkids) {
            ventry *e = &f->n->kids[f->i++];
            if (e->node && e->node->changed) {
                if (sp == cap) {
                    fr *ns = mdb_alloc(&v->a, 2 * cap * sizeof *ns);
                    NOMEM_IF(ns == NULL);
                    memcpy(ns, st, cap * sizeof *st);
                    st = ns;
                    cap *= 2;
                }
                st[sp++] = (fr){ e->node, 0 };
            }
            continue;
        }
        vnode *n = f->n;
        for (uint32_t i = 0; i < n->nkids; i++) {
            ventry *e = &n->kids[i];
            if (e->node && e->node->changed) {
                e->has_value = (uint8_t)e->node->value.some;
                memcpy(e->id, e->node->id, 32);
            }
        }
        hash_vnode(n, n->id);
        sp--;
    }
    memcpy(out, v->root->id, 32);
    return 0;
}

/* ------------------------------------------------------------------ proof checks */

static mkey node_key(const merkle_mdb_node *n)
{
    return (mkey){ n->key, n->key_bits, n->key_len };
}

static int partial(const merkle_mdb_node *n)
{
    return n->key_bits % 8 > 0;
}

static int has_strict_prefix(mkey k, mkey p, int *panic)
{
    return !mkey_eq(k, p) && mkey_has_prefix(k, p, panic);
}

static int has_child(const merkle_mdb_node *n, unsigned idx)
{
    for (size_t i = 0; i < n->nchildren; i++)
        if (n->children[i].index == idx) return 1;
    return 0;
}

/* verifyProofPath(nodes, key). */
static int verify_path(const merkle_mdb_node *nodes, size_t n, mkey key, unsigned ts, int *panic)
{
    if (n == 0) return 0;
    for (size_t i = 0; i + 1 < n; i++) {
        mkey nk = node_key(&nodes[i]);
        if (partial(&nodes[i]) && nodes[i].value_or_hash.some)
            return MERKLE_MDB_ERR_PARTIAL_BYTE_WITH_VALUE;
        int sp = has_strict_prefix(key, nk, panic);
        if (*panic) return MDB_PANIC;
        if (!sp) return MERKLE_MDB_ERR_PROOF_NODE_NOT_FOR_KEY;
        sp = has_strict_prefix(node_key(&nodes[i + 1]), nk, panic);
        if (*panic) return MDB_PANIC;
        if (!sp) return MERKLE_MDB_ERR_NON_INCREASING_PROOF_NODES;
    }
    const merkle_mdb_node *last = &nodes[n - 1];
    mkey lk = node_key(last);
    if (partial(last) && last->value_or_hash.some) return MERKLE_MDB_ERR_PARTIAL_BYTE_WITH_VALUE;
    if (!mkey_eq(lk, key)) {
        int hp = mkey_has_prefix(key, lk, panic);
        if (*panic) return MDB_PANIC;
        if (hp) {
            unsigned tok = mkey_token(key, lk.bits, ts, panic);
            if (*panic) return MDB_PANIC;
            if (has_child(last, tok)) return MERKLE_MDB_ERR_EXCLUSION_MISSING_END_NODES;
        } else if (n >= 2) {
            mkey prev = node_key(&nodes[n - 2]);
            if (prev.bits < 0) return MDB_PANIC;
            /* Take(last, len(prev) + ts) without the arena: compare bit by bit. */
            int64_t m = prev.bits + ts;
            if (m > lk.bits) m = lk.bits;
            if (key.bits < m) return MERKLE_MDB_ERR_EXCLUSION_INVALID_NODE;
            for (int64_t b = 0; b < m; b++)
                if (mkey_bit(lk.b, b) != mkey_bit(key.b, b))
                    return MERKLE_MDB_ERR_EXCLUSION_INVALID_NODE;
        }
    }
    return 0;
}

static int vh_matches(merkle_mdb_maybe v, merkle_mdb_maybe d)
{
    if (!v.some && !d.some) return 1;
    if (!v.some || !d.some) return 0;
    if (v.len < 32) return v.len == d.len && (v.len == 0 || memcmp(v.ptr, d.ptr, v.len) == 0);
    if (d.len != 32) return 0;
    uint8_t h[32];
    merkle_sha256_hash(h, v.ptr, v.len);
    return memcmp(h, d.ptr, 32) == 0;
}

typedef struct mbound {
    mkey k;
    int some;
} mbound;

static int in_range(mkey k, mbound lo, mbound hi)
{
    return (!lo.some || mkey_cmp(k, lo.k) >= 0) && (!hi.some || mkey_cmp(k, hi.k) <= 0);
}

/* verifyChangeProofKeyValues for one proof. */
static int check_values(const merkle_mdb_node *nodes, size_t n, const merkle_mdb_proof *p,
                        merkle_trie *db, mbound lo, mbound hi)
{
    for (size_t i = 0; i < n; i++) {
        const merkle_mdb_node *nd = &nodes[i];
        mkey k = node_key(nd);
        if (partial(nd) || !in_range(k, lo, hi)) continue;
        merkle_mdb_maybe expect = { NULL, 0, 0 };
        int found = 0;
        if (k.bits >= 0 && k.bits == (int64_t)k.nb * 8) {
            size_t a = 0, b = p->nkvs;
            while (a < b) {
                size_t m = a + (b - a) / 2;
                int c = mdb_bytes_cmp(p->kvs[m].key, p->kvs[m].key_len, k.b, k.nb);
                if (c == 0) {
                    expect = p->kvs[m].value;
                    found = 1;
                    break;
                }
                if (c < 0)
                    a = m + 1;
                else
                    b = m;
            }
            if (!found && db && k.nb <= MERKLE_TRIE_MAX_KEY) {
                const tnode *t = merkle__trie_lookup(db, k.b, (uint32_t)k.bits);
                if (t && t->hasval) expect = (merkle_mdb_maybe){ node_value(t), t->vlen, 1 };
            }
        }
        if (!expect.some && nd->value_or_hash.some)
            return MERKLE_MDB_ERR_PROOF_NODE_HAS_UNINCLUDED_VAL;
        if (expect.some && !vh_matches(expect, nd->value_or_hash))
            return MERKLE_MDB_ERR_PROOF_VALUE_DOESNT_MATCH;
    }
    return 0;
}

/* addPathInfo(nodes, lo, hi). */
static int add_path_info(view *v, const merkle_mdb_node *nodes, size_t n, mbound lo, mbound hi)
{
    for (size_t j = n; j-- > 0;) {
        const merkle_mdb_node *pn = &nodes[j];
        mkey key = node_key(pn);
        if (partial(pn) && pn->value_or_hash.some) return MERKLE_MDB_ERR_PARTIAL_BYTE_WITH_VALUE;
        if (key.bits < 0) return MDB_PANIC;
        vnode *nd;
        CHECK(insert(v, key, (merkle_mdb_maybe){ NULL, 0, 0 }, &nd));
        nd->digest = pn->value_or_hash;
        if (!lo.some && !hi.some) continue;
        for (size_t c = 0; c < pn->nchildren; c++) {
            unsigned idx = pn->children[c].index;
            if (idx > 255) return MERKLE_MDB_ERR_CHILD_INDEX_TOO_LARGE;
            ventry *ex = vfind(nd, idx);
            ventry e;
            memset(&e, 0, sizeof e);
            if (ex) {
                e.ck = ex->ck;
                e.node = ex->node;
                e.db = ex->db;
            }
            mkey tk, ck;
            NOMEM_IF(mkey_token_key(&tk, &v->a, idx, v->ts) != 0);
            NOMEM_IF(mkey_extend3(&ck, &v->a, key, tk, e.ck) != 0);
            if ((lo.some && mkey_cmp(ck, lo.k) < 0) || (hi.some && mkey_cmp(ck, hi.k) > 0)) {
                e.idx = (uint8_t)idx;
                memcpy(e.id, pn->children[c].id, 32);
                e.has_value = 0;
                CHECK(vset(v, nd, &e));
            }
        }
    }
    return 0;
}

static int finish(merkle_mdb_result *res, int kind, const char *wrap)
{
    if (kind == MDB_PANIC) {
        mdb_set(res, MERKLE_MDB_ERR_INVALID_PROOF,
                "proof node keys do not fit the branch factor (key lengths not whole tokens, or "
                "a negative length): avalanchego panics on this proof");
        return MERKLE_MDB_ERR_INVALID_PROOF;
    }
    if (kind == MDB_NOMEM || kind == 0) return kind;
    mdb_set(res, kind, NULL);
    if (wrap) mdb_wrap(res, wrap);
    return kind;
}

static int view_init(view *v, merkle_trie *db, unsigned ts)
{
    memset(v, 0, sizeof *v);
    v->ts = ts;
    v->db = db;
    if (db && db->root) {
        uint8_t r[32];
        if (merkle_trie_root(r, db, 1, NULL) != MERKLE_OK) return MDB_NOMEM;
        v->dbroot = db->root;
        v->root = vload(v, db->root, db->root->id);
        if (v->root == NULL) return MDB_NOMEM;
    }
    return 0;
}

static int root_mismatch(merkle_mdb_result *res, const uint8_t got[32], const uint8_t want[32])
{
    char a[MERKLE_TRIE_CB58_ID_MAX], b[MERKLE_TRIE_CB58_ID_MAX];
    mdb_cb58(a, got);
    mdb_cb58(b, want);
    return mdb_set(res, MERKLE_MDB_ERR_INVALID_PROOF, "%s:[%s], expected:[%s]",
                   mdb_kind_text(MERKLE_MDB_ERR_INVALID_PROOF), a, b);
}

int mdb_verify_change_core(merkle_mdb_result *res, const merkle_mdb_proof *p, merkle_trie *db,
                           unsigned bf, merkle_mdb_maybe start, merkle_mdb_maybe end,
                           const uint8_t root[32], int64_t max_length)
{
    unsigned ts = mdb_ts(bf);
    int panic = 0, k;
    if (max_length < 0 || (uint64_t)p->nkvs > (uint64_t)max_length) /* no type-limits trap */
        return mdb_set(res, MERKLE_MDB_ERR_TOO_MANY_KEYS, "%s: [%zu], max: [%lld]",
                       mdb_kind_text(MERKLE_MDB_ERR_TOO_MANY_KEYS), p->nkvs, (long long)max_length);
    mbound lo = { { start.ptr, (int64_t)start.len * 8, start.len }, start.some };
    mbound hi = { { end.ptr, (int64_t)end.len * 8, end.len }, end.some };
    if (p->nkvs) {
        const merkle_mdb_kv *l = &p->kvs[p->nkvs - 1];
        hi = (mbound){ { l->key, (int64_t)l->key_len * 8, l->key_len }, 1 };
    }
    if (start.some && end.some && mdb_bytes_cmp(start.ptr, start.len, end.ptr, end.len) > 0)
        return finish(res, MERKLE_MDB_ERR_START_AFTER_END, NULL);
    if (p->nkvs == 0 && p->nstart == 0 && p->nend == 0)
        return finish(res, MERKLE_MDB_ERR_EMPTY_PROOF, NULL);
    if (!end.some && p->nkvs == 0 && p->nend)
        return finish(res, MERKLE_MDB_ERR_UNEXPECTED_END_PROOF, NULL);
    if (!start.some && p->nstart) return finish(res, MERKLE_MDB_ERR_UNEXPECTED_START_PROOF, NULL);
    if (p->nend == 0 && (end.some || p->nkvs))
        return finish(res, MERKLE_MDB_ERR_NO_END_PROOF, NULL);
    for (size_t i = 0; i < p->nkvs; i++) {
        const merkle_mdb_kv *kv = &p->kvs[i];
        if (i + 1 < p->nkvs &&
            mdb_bytes_cmp(kv->key, kv->key_len, p->kvs[i + 1].key, p->kvs[i + 1].key_len) >= 0)
            return finish(res, MERKLE_MDB_ERR_NON_INCREASING_VALUES, NULL);
        if ((start.some && mdb_bytes_cmp(kv->key, kv->key_len, start.ptr, start.len) < 0) ||
            (end.some && mdb_bytes_cmp(kv->key, kv->key_len, end.ptr, end.len) > 0))
            return finish(res, MERKLE_MDB_ERR_STATE_FROM_OUTSIDE_OF_RANGE, NULL);
    }
    mkey sk = start.some ? lo.k : (mkey){ NULL, 0, 0 };
    mkey ek = hi.some ? hi.k : (mkey){ NULL, 0, 0 };
    if ((k = verify_path(p->start_proof, p->nstart, sk, ts, &panic)) != 0)
        return finish(res, k, "failed to verify start proof path");
    if ((k = verify_path(p->end_proof, p->nend, ek, ts, &panic)) != 0)
        return finish(res, k, "failed to verify end proof path");
    if ((k = check_values(p->start_proof, p->nstart, p, db, lo, hi)) != 0)
        return finish(res, k, "failed to verify start proof nodes");
    if ((k = check_values(p->end_proof, p->nend, p, db, lo, hi)) != 0)
        return finish(res, k, "failed to validate end proof nodes");
    view v;
    if (view_init(&v, db, ts) != 0) {
        mdb_arena_free(&v.a);
        return MDB_NOMEM;
    }
    uint8_t got[32];
    if ((k = add_path_info(&v, p->start_proof, p->nstart, lo, hi)) != 0) {
        k = finish(res, k, "failed to add start proof path info");
    } else if ((k = add_path_info(&v, p->end_proof, p->nend, lo, hi)) != 0) {
        k = finish(res, k, "failed to add end proof path info");
    } else {
        for (size_t i = 0; i < p->nkvs && k == 0; i++) {
            const merkle_mdb_kv *kv = &p->kvs[i];
            mkey key = { kv->key, (int64_t)kv->key_len * 8, kv->key_len };
            vnode *nd;
            k = kv->value.some ? insert(&v, key, kv->value, &nd) : vremove_key(&v, key);
        }
        if (k == 0) k = vhash(&v, got);
        if (k != 0)
            k = finish(res, k, NULL);
        else if (memcmp(got, root, 32) != 0)
            k = root_mismatch(res, got, root);
    }
    mdb_arena_free(&v.a);
    if (k == 0) mdb_set(res, MERKLE_MDB_OK, NULL);
    return k;
}

static merkle_status verdict(int k)
{
    return k == 0 ? MERKLE_OK : k == MDB_NOMEM ? MERKLE_ERR_NOMEM : MERKLE_ERR_VERIFY;
}

static int proof_ok(const merkle_mdb_proof *p)
{
    if (p == NULL || (p->nstart && p->start_proof == NULL) || (p->nend && p->end_proof == NULL) ||
        (p->nkvs && p->kvs == NULL))
        return 0;
    for (size_t i = 0; i < p->nkvs; i++)
        if ((p->kvs[i].key == NULL && p->kvs[i].key_len) ||
            (p->kvs[i].value.ptr == NULL && p->kvs[i].value.len) ||
            p->kvs[i].key_len > MERKLE_TRIE_MAX_KEY)
            return 0;
    return 1;
}

merkle_status merkle_mdb_verify_range(merkle_mdb_result *res, const merkle_mdb_proof *p,
                                      merkle_mdb_maybe start, merkle_mdb_maybe end,
                                      const uint8_t root[MERKLE_TRIE_ID_LEN],
                                      unsigned branch_factor, int64_t max_length)
{
    if (root == NULL || mdb_ts(branch_factor) == 0 || (p && !proof_ok(p)) ||
        (start.some && start.ptr == NULL && start.len) || (end.some && end.ptr == NULL && end.len))
        return MERKLE_ERR_ARG;
    if (p == NULL) return verdict(finish(res, MERKLE_MDB_ERR_EMPTY_PROOF, NULL));
    return verdict(
        mdb_verify_change_core(res, p, NULL, branch_factor, start, end, root, max_length));
}

merkle_status merkle_mdb_verify_change(merkle_mdb_result *res, const merkle_mdb_proof *p,
                                       merkle_trie *db, merkle_mdb_maybe start,
                                       merkle_mdb_maybe end, const uint8_t root[MERKLE_TRIE_ID_LEN],
                                       int64_t max_length)
{
    if (root == NULL || db == NULL || (p && !proof_ok(p)) ||
        (start.some && start.ptr == NULL && start.len) || (end.some && end.ptr == NULL && end.len))
        return MERKLE_ERR_ARG;
    if (p == NULL) return verdict(finish(res, MERKLE_MDB_ERR_EMPTY_PROOF, NULL));
    return verdict(mdb_verify_change_core(res, p, db, merkle_trie_branch_factor(db), start, end,
                                          root, max_length));
}

merkle_status merkle_mdb_verify_key(merkle_mdb_result *res, const merkle_mdb_proof *p,
                                    const uint8_t *key, size_t key_len, merkle_mdb_maybe value,
                                    const uint8_t root[MERKLE_TRIE_ID_LEN], unsigned branch_factor)
{
    unsigned ts = mdb_ts(branch_factor);
    if (p == NULL || root == NULL || ts == 0 || (key == NULL && key_len) ||
        (value.some && value.ptr == NULL && value.len) || (p->nstart && p->start_proof == NULL))
        return MERKLE_ERR_ARG;
    if (p->nstart == 0) return verdict(finish(res, MERKLE_MDB_ERR_EMPTY_PROOF, NULL));
    mkey k = { key, (int64_t)key_len * 8, key_len };
    const merkle_mdb_node *last = &p->start_proof[p->nstart - 1];
    mkey lk = node_key(last);
    int incl = mkey_eq(lk, k);
    if (incl && !vh_matches(value, last->value_or_hash))
        return verdict(finish(res, MERKLE_MDB_ERR_PROOF_VALUE_DOESNT_MATCH, NULL));
    if (!incl && value.some)
        return verdict(finish(res, MERKLE_MDB_ERR_EXCLUSION_UNEXPECTED_VALUE, NULL));
    int panic = 0;
    int r = verify_path(p->start_proof, p->nstart, k, ts, &panic);
    if (r) return verdict(finish(res, r, NULL));
    view v;
    (void)view_init(&v, NULL, ts);
    mbound b = { lk, 1 };
    uint8_t got[32];
    r = add_path_info(&v, p->start_proof, p->nstart, b, b);
    if (r == 0) r = vhash(&v, got);
    if (r)
        r = finish(res, r, NULL);
    else if (memcmp(got, root, 32) != 0)
        r = root_mismatch(res, got, root);
    mdb_arena_free(&v.a);
    if (r == 0) mdb_set(res, MERKLE_MDB_OK, NULL);
    return verdict(r);
}
