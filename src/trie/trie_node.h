/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The trie's node structure (internal, shared by the files of src/trie/): a node stores its
** FULL key (the ID preimage hashes the full key, and keys never change once a node exists: a
** split inserts a new branch above an existing node, a merge replaces a node by its only
** child). Children are kept sorted by token in one pool block: kcap token bytes (padded to
** 8), kcap child pointers, and kcap child IDs. The parent's copy of a child's ID is what the
** parent's preimage reads, so re-hashing a node touches only its own memory and the children
** that changed, never its clean children. A node is `dirty` when its ID must be recomputed;
** put and delete mark the whole path from the root, so a clean node never has a dirty
** descendant, and hashing only descends into dirty nodes.
**
** The files: trie.c (life cycle, put/get/delete, ordered walk), trie_hash.c (lazy bottom-up
** hashing, on several threads when asked), trie_bulk.c (radix sort, bulk build, prefetching
** batch apply), trie_preimage.h (the one node-ID preimage encoder), trie_encode.c
** (merkle_trie_hash_node, proofs' path access, bench support), trie_pool.h (the allocator).
*/
#ifndef MERKLE_TRIE_NODE_H
#define MERKLE_TRIE_NODE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"
#include "merkle/hash.h"
#include "trie/trie_impl.h"
#include "trie/trie_pool.h"
#include "trie/trie_preimage.h"

typedef struct tnode {
    uint8_t id[MERKLE_TRIE_ID_LEN];
    struct tnode **kids; /* kcap pointers, preceded by the tokens and followed by the IDs */
    uint8_t *val;        /* vlen >= 32: 32-byte digest then the value; else the value */
    uint32_t vlen;
    uint32_t kbits; /* full key length in bits */
    uint16_t nkids, kcap;
    uint8_t hasval, dirty;
    /* Branch factor <= 16: bit t set when the child with token t may be dirty (valid
    ** between two hashes of this node), so that re-hashing never reads clean children. */
    uint16_t dmask;
    uint8_t key[]; /* ceil(kbits/8) bytes, unused low bits zero */
} tnode;

/* Note that the child with token tok of n may have changed. */
static inline void mark_kid(tnode *n, unsigned tok)
{
    if (tok < 16) n->dmask = (uint16_t)(n->dmask | (1u << tok));
}

/* May the i-th child of n be dirty? (Always "maybe" for branch factor 256.) */
static inline int kid_maybe_dirty(const tnode *n, const uint8_t *toks, unsigned i, int masked)
{
    return !masked || (n->dmask >> toks[i]) & 1u;
}

/*
** The nodes made dirty since the last root, each once, so that re-rooting after a small
** change needs no walk over the trie: put and delete append a node when its dirty bit goes
** from 0 to 1 (the path is in cache then). A dirty node given back to the pool (a delete that
** merges or removes nodes) would leave a dangling entry, so it marks the list `bad` and the
** next root walks the trie instead; an allocation failure does the same.
*/
typedef struct dent {
    tnode *n;
    uint32_t kbits; /* n->kbits, read while n is in cache */
} dent;

typedef struct dlist {
    dent *v;
    size_t n, cap;
    int bad;
    int off; /* bulk build in progress: nothing is recorded (everything is hashed there) */
} dlist;

struct merkle_trie {
    pool pool;
    dlist dl;
    tnode *root;
    uint64_t size;
    uint64_t gen;    /* bumped whenever a node or a children block goes back to the pool */
    unsigned bf, ts; /* branch factor, token size in bits */
};

#define KEY_BYTES(bits) (((size_t)(bits) + 7) / 8)
#define NODE_SIZE(bits) (offsetof(tnode, key) + KEY_BYTES(bits))
#define TOK_PAD(cap)    (((size_t)(cap) + 7) & ~(size_t)7)
#define KIDS_SIZE(cap)  (TOK_PAD(cap) + (size_t)(cap) * (sizeof(tnode *) + MERKLE_TRIE_ID_LEN))
#define VAL_SIZE(len)   ((size_t)(len) + ((len) >= 32 ? 32u : 0u))

/* Token bytes of n's children (NULL for a node that never had children); also the start of
** the children's pool block. */
static inline uint8_t *kid_tokens(const tnode *n)
{
    return n->kids ? (uint8_t *)n->kids - TOK_PAD(n->kcap) : NULL;
}

/* n's copies of its children's IDs (32 bytes each, in token order). */
static inline uint8_t *kid_ids(const tnode *n)
{
    return (uint8_t *)(n->kids + n->kcap);
}

/* Bring n's copies of its children's IDs up to date before n is hashed: the children whose
** dirty bit is set in n's dmask (all of them for branch factor 256), which are clean now. */
static inline void sync_kid_ids(tnode *n, int masked)
{
    const uint8_t *toks = kid_tokens(n);
    uint8_t *ids = kid_ids(n);
    for (unsigned i = 0; i < n->nkids; i++)
        if (!masked || ((n->dmask >> toks[i]) & 1u))
            memcpy(ids + (size_t)i * MERKLE_TRIE_ID_LEN, n->kids[i]->id, MERKLE_TRIE_ID_LEN);
}

static inline unsigned token_at(const uint8_t *key, uint32_t bit, unsigned ts)
{
    return ((unsigned)key[bit >> 3] >> (8 - (bit & 7) - ts)) & ((1u << ts) - 1);
}

/* Length in bits of the common prefix of a and b (not rounded to tokens), knowing that the
** first `from` bits are equal; at most min(abits, bbits). */
static inline uint32_t common_bits(const uint8_t *a, uint32_t abits, const uint8_t *b,
                                   uint32_t bbits, uint32_t from)
{
    uint32_t m = abits < bbits ? abits : bbits;
    size_t end = KEY_BYTES(m);
    for (size_t i = from >> 3; i < end; i++) {
        unsigned x = (unsigned)(a[i] ^ b[i]);
        if (x) {
            uint32_t r = (uint32_t)(i * 8) + (uint32_t)(__builtin_clz(x) - 24);
            return r < m ? r : m;
        }
    }
    return m;
}

/* Index of the child with token t, or -1. */
static inline int find_kid(const tnode *n, unsigned t)
{
    if (n->nkids == 0) return -1;
    const uint8_t *tok = kid_tokens(n);
    const void *p = memchr(tok, (int)t, n->nkids);
    return p ? (int)((const uint8_t *)p - tok) : -1;
}

static inline void dl_push(merkle_trie *t, tnode *n)
{
    dlist *d = &t->dl;
    if (d->bad || d->off) return;
    if (merkle__grow(&d->v, &d->cap, d->n + 1, sizeof *d->v) != 0) {
        d->bad = 1;
        return;
    }
    d->v[d->n++] = (dent){ n, n->kbits };
}

/* n's ID must be recomputed (its preimage is changing). */
static inline void make_dirty(merkle_trie *t, tnode *n)
{
    if (n->dirty) return;
    n->dirty = 1;
    dl_push(t, n);
}

static inline tnode *node_new(merkle_trie *t, const uint8_t *key, uint32_t kbits)
{
    tnode *n = pool_alloc(&t->pool, NODE_SIZE(kbits));
    if (n == NULL) return NULL;
    memset(n, 0, offsetof(tnode, key));
    n->kbits = kbits;
    make_dirty(t, n);
    size_t kb = KEY_BYTES(kbits);
    if (kb) {
        memcpy(n->key, key, kb);
        if (kbits & 7) n->key[kb - 1] &= (uint8_t)(0xff00u >> (kbits & 7));
    }
    return n;
}

static inline void node_free(merkle_trie *t, tnode *n)
{
    if (n->hasval) pool_free(&t->pool, n->val, VAL_SIZE(n->vlen));
    if (n->kids) pool_free(&t->pool, kid_tokens(n), KIDS_SIZE(n->kcap));
    if (n->dirty) t->dl.bad = 1; /* it may be listed */
    pool_free(&t->pool, n, NODE_SIZE(n->kbits));
    t->gen++;
}

/* Set the value of n; digest, when not NULL, is SHA-256(v) computed by the caller (values
** of 32 bytes or more). -1 on allocation failure. */
static inline int node_set_value_d(merkle_trie *t, tnode *n, const uint8_t *v, size_t vlen,
                                   const uint8_t *digest)
{
    uint8_t *blk = NULL;
    if (vlen) {
        size_t cls = (VAL_SIZE(vlen) + POOL_GRAN - 1) / POOL_GRAN;
        if (n->hasval && n->vlen && VAL_SIZE(vlen) <= POOL_MAX &&
            cls == (VAL_SIZE(n->vlen) + POOL_GRAN - 1) / POOL_GRAN)
            blk = n->val; /* same size class: overwrite in place */
        else
            blk = pool_alloc(&t->pool, VAL_SIZE(vlen));
        if (blk == NULL) return -1;
        if (vlen >= 32) {
            if (digest)
                memcpy(blk, digest, 32);
            else
                merkle_sha256_hash(blk, v, vlen);
            memcpy(blk + 32, v, vlen);
        } else {
            memcpy(blk, v, vlen);
        }
    }
    if (n->hasval && n->val != blk) pool_free(&t->pool, n->val, VAL_SIZE(n->vlen));
    n->val = blk;
    n->vlen = (uint32_t)vlen;
    n->hasval = 1;
    return 0;
}

static inline const uint8_t *node_value(const tnode *n)
{
    return n->vlen >= 32 ? n->val + 32 : n->val;
}

/* Insert child c with token tok into n (tok not present). -1 on allocation failure. */
static inline int node_add_kid(merkle_trie *t, tnode *n, tnode *c, unsigned tok)
{
    if (n->nkids == n->kcap) {
        unsigned ncap = n->kcap ? 2u * n->kcap : 2u;
        if (ncap > t->bf) ncap = t->bf;
        uint8_t *blk = pool_alloc(&t->pool, KIDS_SIZE(ncap));
        if (blk == NULL) return -1;
        tnode **nk = (tnode **)(blk + TOK_PAD(ncap));
        if (n->kids) {
            memcpy(blk, kid_tokens(n), n->nkids);
            memcpy(nk, n->kids, n->nkids * sizeof(tnode *));
            memcpy(nk + ncap, kid_ids(n), (size_t)n->nkids * MERKLE_TRIE_ID_LEN);
            pool_free(&t->pool, kid_tokens(n), KIDS_SIZE(n->kcap));
            t->gen++;
        }
        n->kids = nk;
        n->kcap = (uint16_t)ncap;
    }
    uint8_t *toks = kid_tokens(n), *ids = kid_ids(n);
    unsigned i = n->nkids;
    while (i > 0 && toks[i - 1] > tok) i--;
    memmove(toks + i + 1, toks + i, n->nkids - i);
    memmove(n->kids + i + 1, n->kids + i, (n->nkids - i) * sizeof(tnode *));
    memmove(ids + (size_t)(i + 1) * MERKLE_TRIE_ID_LEN, ids + (size_t)i * MERKLE_TRIE_ID_LEN,
            (size_t)(n->nkids - i) * MERKLE_TRIE_ID_LEN);
    toks[i] = (uint8_t)tok;
    n->kids[i] = c;
    n->nkids++;
    MERKLE_ASSERT(n->nkids <= n->kcap && (i == 0 || toks[i - 1] < tok) &&
                  (i + 1 == n->nkids || toks[i + 1] > tok));
    make_dirty(t, n);
    mark_kid(n, tok);
    return 0;
}

static inline void node_remove_kid(tnode *n, unsigned i)
{
    uint8_t *toks = kid_tokens(n), *ids = kid_ids(n);
    unsigned m = n->nkids - i - 1;
    memmove(toks + i, toks + i + 1, m);
    memmove(n->kids + i, n->kids + i + 1, m * sizeof(tnode *));
    memmove(ids + (size_t)i * MERKLE_TRIE_ID_LEN, ids + (size_t)(i + 1) * MERKLE_TRIE_ID_LEN,
            (size_t)m * MERKLE_TRIE_ID_LEN);
    n->nkids--;
}

/* An explicit stack for walks of the trie (ordered walk, hashing, preimage dump). */
typedef struct frame {
    tnode *n;
    uint32_t i;
} frame;

typedef struct wstack {
    frame *f;
    size_t cap;
} wstack;

static inline int ws_reserve(wstack *w, size_t need)
{
    return merkle__grow(&w->f, &w->cap, need, sizeof *w->f);
}

/* ------------------------------------------------------------------ across the files */

/* Put one pair (arguments checked); digest, when not NULL, is SHA-256(value) for a value of
** 32 bytes or more (trie.c). */
merkle_status merkle__trie_put_one(merkle_trie *t, const uint8_t *key, size_t key_len,
                                   const uint8_t *value, size_t value_len, const uint8_t *digest);
/* The node with exactly this key, or NULL (trie.c). */
tnode *merkle__trie_lookup(const merkle_trie *t, const uint8_t *key, uint32_t kbits);
/* The ID preimage of n (its children's IDs as n holds them) into out, or only its length
** when out is NULL (trie_encode.c, over trie_preimage.h): batched hashing, proofs and the
** bench dump. */
size_t merkle__trie_node_preimage(const tnode *n, uint8_t *out);
/* IDs of g nodes whose preimages are prefix[0..plen) || msgs[i][0..len), in SHA-256 lanes
** (trie_hash.c). */
void merkle__trie_batch_ids(tnode *const *nodes, size_t g, const uint8_t *prefix, size_t plen,
                            const uint8_t *const *msgs, size_t len);
/* Hash the m listed dirty nodes, deepest first (trie_hash.c; see there). */
void merkle__trie_hash_by_length(dent *v, size_t m, dent *tmp, tnode **nodes, int masked,
                                 unsigned threads);

#endif
