/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The radix trie: a size-class pool for nodes, canonical put/delete, lookup, ordered walk,
** and lazy bottom-up hashing of changed nodes (optionally on several threads).
**
** Every node stores its FULL key (the ID preimage hashes the full key, and keys never change
** once a node exists: a split inserts a new branch above an existing node, a merge replaces
** a node by its only child). Children are kept sorted by token in one pool block: kcap token
** bytes (padded to 8), kcap child pointers, and kcap child IDs. The parent's copy of a
** child's ID is what the parent's preimage reads, so re-hashing a node touches only its own
** memory and the children that changed, never its clean children. A node is `dirty` when its
** ID must be recomputed; put and delete mark the whole path from the root, so a clean node
** never has a dirty descendant, and hashing only descends into dirty nodes.
*/
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/internal.h"
#include "merkle/hash.h"
#include "trie/trie_impl.h"

/* ------------------------------------------------------------------ pool */

/* Under AddressSanitizer, free pool blocks are poisoned, so that a use after free inside the
** pool is reported like one of malloc'd memory. */
#if defined(__SANITIZE_ADDRESS__)
#define POOL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOL_ASAN 1
#endif
#endif
#ifdef POOL_ASAN
#include <sanitizer/asan_interface.h>
#define POOL_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define POOL_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POOL_POISON(p, n) ((void)(p), (void)(n))
#define POOL_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define POOL_GRAN 16
#define POOL_MAX 4096
#define POOL_CLASSES (POOL_MAX / POOL_GRAN)
#define SLAB_MIN ((size_t)1 << 16)
#define SLAB_MAX ((size_t)1 << 23)
#define HUGE_PAGE ((size_t)1 << 21)

/* Blocks larger than POOL_MAX come from malloc with this header, on a list freed at the end. */
typedef struct big_block {
    struct big_block *prev, *next;
    size_t size;
    size_t pad; /* keeps the payload 16-byte aligned */
} big_block;

typedef struct pool {
    void *free_list[POOL_CLASSES + 1]; /* class c holds blocks of c*16 bytes */
    uint8_t *bump, *bump_end;         /* unused tail of the newest slab */
    void *slabs;                      /* singly linked by their first pointer */
    big_block *big;
    size_t bytes;     /* slab and big-block bytes held */
    size_t next_slab; /* size of the next slab: doubles from SLAB_MIN to SLAB_MAX */
} pool;

static void *pool_alloc(pool *p, size_t size)
{
    if (size > POOL_MAX) {
        if (size > SIZE_MAX - sizeof(big_block)) return NULL;
        big_block *b = malloc(sizeof *b + size);
        if (b == NULL) return NULL;
        b->size = size;
        b->prev = NULL;
        b->next = p->big;
        if (p->big) p->big->prev = b;
        p->big = b;
        p->bytes += sizeof *b + size;
        return b + 1;
    }
    size_t c = (size + POOL_GRAN - 1) / POOL_GRAN;
    if (c == 0) c = 1;
    void *f = p->free_list[c];
    if (f) {
        POOL_UNPOISON(f, c * POOL_GRAN);
        memcpy(&p->free_list[c], f, sizeof(void *));
        return f;
    }
    size_t need = c * POOL_GRAN;
    if ((size_t)(p->bump_end - p->bump) < need) {
        /* Slabs grow geometrically, so that a small trie stays small; big slabs are aligned
        ** to and advised for transparent huge pages: a large trie then takes a page fault
        ** per 2 MiB instead of per 4 KiB. */
        size_t ssz = p->next_slab < SLAB_MIN ? SLAB_MIN : p->next_slab;
        void *mem = NULL;
        if (ssz >= HUGE_PAGE) {
            if (posix_memalign(&mem, HUGE_PAGE, ssz) != 0) mem = NULL;
#ifdef MADV_HUGEPAGE
            if (mem) (void)madvise(mem, ssz, MADV_HUGEPAGE);
#endif
        } else {
            mem = malloc(ssz);
        }
        if (mem == NULL) return NULL;
        uint8_t *s = mem;
        memcpy(s, &p->slabs, sizeof(void *));
        p->slabs = s;
        p->bytes += ssz;
        p->bump = s + POOL_GRAN; /* the first 16 bytes link the slab */
        p->bump_end = s + ssz;
        POOL_POISON(p->bump, ssz - POOL_GRAN);
        p->next_slab = ssz < SLAB_MAX ? 2 * ssz : SLAB_MAX;
    }
    void *r = p->bump;
    p->bump += need;
    POOL_UNPOISON(r, need);
    return r;
}

static void pool_free(pool *p, void *ptr, size_t size)
{
    if (ptr == NULL) return;
    if (size > POOL_MAX) {
        big_block *b = (big_block *)ptr - 1;
        if (b->prev)
            b->prev->next = b->next;
        else
            p->big = b->next;
        if (b->next) b->next->prev = b->prev;
        p->bytes -= sizeof *b + b->size;
        free(b);
        return;
    }
    size_t c = (size + POOL_GRAN - 1) / POOL_GRAN;
    if (c == 0) c = 1;
    memcpy(ptr, &p->free_list[c], sizeof(void *));
    p->free_list[c] = ptr;
    POOL_POISON(ptr, c * POOL_GRAN);
}

static void pool_release(pool *p)
{
    while (p->slabs) {
        void *next;
        memcpy(&next, p->slabs, sizeof next);
        free(p->slabs);
        p->slabs = next;
    }
    while (p->big) {
        big_block *n = p->big->next;
        free(p->big);
        p->big = n;
    }
    memset(p, 0, sizeof *p);
}

/* ------------------------------------------------------------------ nodes */

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
#define TOK_PAD(cap) (((size_t)(cap) + 7) & ~(size_t)7)
#define KIDS_SIZE(cap) (TOK_PAD(cap) + (size_t)(cap) * (sizeof(tnode *) + MERKLE_TRIE_ID_LEN))
#define VAL_SIZE(len) ((size_t)(len) + ((len) >= 32 ? 32u : 0u))

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
static uint32_t common_bits(const uint8_t *a, uint32_t abits, const uint8_t *b, uint32_t bbits,
                            uint32_t from)
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

static void dl_push(merkle_trie *t, tnode *n)
{
    dlist *d = &t->dl;
    if (d->bad || d->off) return;
    if (d->n == d->cap) {
        size_t nc = d->cap ? 2 * d->cap : 256;
        dent *nv = realloc(d->v, nc * sizeof *nv);
        if (nv == NULL) {
            d->bad = 1;
            return;
        }
        d->v = nv;
        d->cap = nc;
    }
    d->v[d->n++] = (dent){n, n->kbits};
}

/* n's ID must be recomputed (its preimage is changing). */
static inline void make_dirty(merkle_trie *t, tnode *n)
{
    if (n->dirty) return;
    n->dirty = 1;
    dl_push(t, n);
}

static tnode *node_new(merkle_trie *t, const uint8_t *key, uint32_t kbits)
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

static void node_free(merkle_trie *t, tnode *n)
{
    if (n->hasval) pool_free(&t->pool, n->val, VAL_SIZE(n->vlen));
    if (n->kids) pool_free(&t->pool, kid_tokens(n), KIDS_SIZE(n->kcap));
    if (n->dirty) t->dl.bad = 1; /* it may be listed */
    pool_free(&t->pool, n, NODE_SIZE(n->kbits));
    t->gen++;
}

/* Set the value of n; digest, when not NULL, is SHA-256(v) computed by the caller (values
** of 32 bytes or more). -1 on allocation failure. */
static int node_set_value_d(merkle_trie *t, tnode *n, const uint8_t *v, size_t vlen,
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
static int node_add_kid(merkle_trie *t, tnode *n, tnode *c, unsigned tok)
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
    make_dirty(t, n);
    mark_kid(n, tok);
    return 0;
}

static void node_remove_kid(tnode *n, unsigned i)
{
    uint8_t *toks = kid_tokens(n), *ids = kid_ids(n);
    unsigned m = n->nkids - i - 1;
    memmove(toks + i, toks + i + 1, m);
    memmove(n->kids + i, n->kids + i + 1, m * sizeof(tnode *));
    memmove(ids + (size_t)i * MERKLE_TRIE_ID_LEN, ids + (size_t)(i + 1) * MERKLE_TRIE_ID_LEN,
            (size_t)m * MERKLE_TRIE_ID_LEN);
    n->nkids--;
}

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

unsigned merkle_trie_branch_factor(const merkle_trie *t) { return t ? t->bf : 0; }
uint64_t merkle_trie_size(const merkle_trie *t) { return t ? t->size : 0; }
size_t merkle_trie_memory(const merkle_trie *t)
{
    return t ? t->pool.bytes + sizeof *t + t->dl.cap * sizeof(dent) : 0;
}

/* ------------------------------------------------------------------ put / get / delete */

/* Put one pair (arguments checked); digest, when not NULL, is SHA-256(value) for a value of
** 32 bytes or more. */
static merkle_status put_one(merkle_trie *t, const uint8_t *key, size_t key_len,
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
    if (key_len > MERKLE_TRIE_MAX_KEY || value_len > MERKLE_TRIE_MAX_VALUE)
        return MERKLE_ERR_RANGE;
    return put_one(t, key, key_len, value, value_len, NULL);
}

/* The node whose full key is key (with or without a value), or NULL. */
static tnode *lookup(const merkle_trie *t, const uint8_t *key, uint32_t kbits)
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
    const tnode *n = lookup(t, key, (uint32_t)(key_len * 8));
    if (n == NULL || !n->hasval) return MERKLE_OK;
    *found = 1;
    *value_len = n->vlen;
    if (cap < n->vlen) return MERKLE_ERR_BUFFER;
    if (n->vlen) memcpy(value, node_value(n), n->vlen);
    return MERKLE_OK;
}

merkle_status merkle_trie_delete(merkle_trie *t, int *found, const uint8_t *key, size_t key_len)
{
    if (t == NULL || (key == NULL && key_len)) return MERKLE_ERR_ARG;
    if (found) *found = 0;
    if (key_len > MERKLE_TRIE_MAX_KEY) return MERKLE_OK;
    uint32_t kbits = (uint32_t)(key_len * 8);
    tnode *target = lookup(t, key, kbits);
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

typedef struct frame {
    tnode *n;
    uint32_t i;
} frame;

typedef struct wstack {
    frame *f;
    size_t cap;
} wstack;

static int ws_reserve(wstack *w, size_t need)
{
    if (need <= w->cap) return 0;
    size_t ncap = w->cap ? w->cap * 2 : 64;
    while (ncap < need) ncap *= 2;
    frame *nf = realloc(w->f, ncap * sizeof *nf);
    if (nf == NULL) return -1;
    w->f = nf;
    w->cap = ncap;
    return 0;
}

merkle_status merkle_trie_foreach(const merkle_trie *t, merkle_trie_visit_fn fn, void *ctx)
{
    if (t == NULL || fn == NULL) return MERKLE_ERR_ARG;
    if (t->root == NULL) return MERKLE_OK;
    wstack w = {NULL, 0};
    merkle_status st = MERKLE_OK;
    size_t sp = 0;
    if (ws_reserve(&w, 1) != 0) return MERKLE_ERR_NOMEM;
    w.f[sp++] = (frame){t->root, 0};
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
            w.f[sp++] = (frame){c, 0};
        }
    }
done:
    free(w.f);
    return st;
}

/* ------------------------------------------------------------------ hashing */

/*
** ID of n from its children's IDs (which must be current). The preimage is assembled in a
** small stack buffer and streamed into SHA-256 in large pieces; nothing is allocated.
*/
static void node_hash(tnode *n, int masked)
{
    uint8_t buf[704];
    size_t u = 0;
    merkle_sha256 c;
    merkle_sha256_init(&c);
    if (n->nkids) sync_kid_ids(n, masked);
    u += merkle__uvarint_put(buf, n->nkids);
    const uint8_t *toks = kid_tokens(n), *ids = n->nkids ? kid_ids(n) : NULL;
    for (unsigned i = 0; i < n->nkids; i++) {
        if (u > sizeof buf - 34) {
            merkle_sha256_update(&c, buf, u);
            u = 0;
        }
        unsigned tk = toks[i];
        if (tk < 128) {
            buf[u++] = (uint8_t)tk;
        } else {
            buf[u++] = (uint8_t)(tk | 0x80);
            buf[u++] = 1;
        }
        memcpy(buf + u, ids + (size_t)i * MERKLE_TRIE_ID_LEN, MERKLE_TRIE_ID_LEN);
        u += MERKLE_TRIE_ID_LEN;
    }
    if (u > sizeof buf - 34 - MERKLE__UVARINT_MAX) {
        merkle_sha256_update(&c, buf, u);
        u = 0;
    }
    if (n->hasval) {
        buf[u++] = 1;
        size_t dl = n->vlen >= 32 ? 32 : n->vlen;
        buf[u++] = (uint8_t)dl;
        if (dl) memcpy(buf + u, n->val, dl);
        u += dl;
    } else {
        buf[u++] = 0;
    }
    u += merkle__uvarint_put(buf + u, n->kbits);
    size_t kb = KEY_BYTES(n->kbits);
    if (kb <= sizeof buf - u) {
        if (kb) memcpy(buf + u, n->key, kb);
        u += kb;
        merkle_sha256_update(&c, buf, u);
    } else {
        merkle_sha256_update(&c, buf, u);
        merkle_sha256_update(&c, n->key, kb);
    }
    merkle_sha256_final(&c, n->id);
    n->dirty = 0;
    n->dmask = 0;
}

/* Size of n's ID preimage; when out is not NULL, also write it there. */
static size_t node_preimage(const tnode *n, uint8_t *out);

/* Scratch of the batched hasher (one per thread): walk stack and node lists. */
typedef struct hscratch {
    wstack w;
    tnode **order, **sorted;
    size_t cap;
    size_t *count;
    size_t ccap;
    int masked; /* branch factor <= 16: children's dirty bits are in the parent's dmask */
} hscratch;

static void hs_free(hscratch *h)
{
    free(h->w.f);
    free(h->order);
    free(h->sorted);
    free(h->count);
}

static inline uint32_t get_height(const tnode *n)
{
    uint32_t v;
    memcpy(&v, n->id, sizeof v);
    return v;
}

#define HB_CHUNK 256

/* One multi-buffer SHA-256 pass over g <= 16 preimages of one length (prefix + msgs[j]); the
** digests become the IDs of nodes[0..g), which are clean then. */
static void batch_ids(tnode *const *nodes, size_t g, const uint8_t *prefix, size_t plen,
                      const uint8_t *const *msgs, size_t len)
{
    uint8_t out[16][32];
    (void)merkle_sha256_batch(&out[0][0], prefix, plen, msgs, len, g);
    for (size_t j = 0; j < g; j++) {
        memcpy(nodes[j]->id, out[j], 32);
        nodes[j]->dirty = 0;
        nodes[j]->dmask = 0;
    }
}
#define HB_MAX_PREIMAGE 1024

/*
** Hash nodes[0..m), none of which is an ancestor of another and whose children are all
** clean: nodes with preimages of the same length are hashed 16 at a time with the
** multi-buffer SHA-256 (each preimage assembled in a stack buffer), the rest one by one.
*/
static void hash_level(tnode *const *nodes, size_t m, int masked)
{
    uint8_t buf[16 * HB_MAX_PREIMAGE];
    for (size_t c0 = 0; c0 < m; c0 += HB_CHUNK) {
        size_t cm = m - c0 < HB_CHUNK ? m - c0 : HB_CHUNK;
        tnode *const *v = nodes + c0;
        size_t len[HB_CHUNK];
        uint8_t done[HB_CHUNK];
        /* Nodes of a level lie anywhere in memory, and each step below reads what the one
        ** before fetched, for the whole chunk at once (many misses in flight): the nodes,
        ** their children's blocks, the children that changed, then the ID copies. */
        for (size_t i = 0; i < cm; i++) {
            __builtin_prefetch(v[i]);
            __builtin_prefetch((const uint8_t *)v[i] + 64);
        }
        for (size_t i = 0; i < cm; i++) {
            const tnode *n = v[i];
            done[i] = 0;
            if (n->kids == NULL) continue;
            const uint8_t *blk = kid_tokens(n);
            size_t sz = KIDS_SIZE(n->kcap);
            for (size_t o = 0; o < sz; o += 64) __builtin_prefetch(blk + o);
            __builtin_prefetch(blk + sz - 1);
        }
        for (size_t i = 0; i < cm; i++) {
            const tnode *n = v[i];
            len[i] = node_preimage(n, NULL);
            const uint8_t *toks = kid_tokens(n);
            for (unsigned k = 0; k < n->nkids; k++)
                if (!masked || ((n->dmask >> toks[k]) & 1u)) __builtin_prefetch(n->kids[k]);
        }
        for (size_t i = 0; i < cm; i++)
            if (v[i]->nkids) sync_kid_ids(v[i], masked);
        for (size_t a = 0; a < cm; a++) {
            if (done[a]) continue;
            size_t L = len[a];
            if (L > HB_MAX_PREIMAGE) {
                node_hash(v[a], masked);
                done[a] = 1;
                continue;
            }
            for (size_t b = a;;) {
                size_t sel[16], g = 0;
                for (; b < cm && g < 16; b++)
                    if (!done[b] && len[b] == L) {
                        sel[g++] = b;
                        done[b] = 1;
                    }
                if (g == 0) break;
                if (g == 1) {
                    node_hash(v[sel[0]], masked);
                    continue;
                }
                const uint8_t *msgs[16];
                tnode *grp[16];
                for (size_t j = 0; j < g; j++) {
                    grp[j] = v[sel[j]];
                    node_preimage(grp[j], buf + j * L);
                    msgs[j] = buf + j * L;
                }
                batch_ids(grp, g, NULL, 0, msgs, L);
            }
        }
    }
}

/*
** Hash every dirty node under (and including) root, children first, in batches: pass 1
** lists the dirty nodes in post-order with their height above the lowest dirty level (kept
** in the stale ID), pass 2 orders them by height, pass 3 hashes height by height, so that
** nodes of the same level and shape (leaves; internal nodes with as many children) share
** multi-buffer SHA-256 passes. -1 on NOMEM (the trie stays consistent: nodes hashed so far
** are clean and correct, the rest stay dirty).
*/
static int hash_subtree(tnode *root, hscratch *h)
{
    if (!root->dirty) return 0;
    if (root->nkids == 0) {
        node_hash(root, h->masked);
        return 0;
    }
    size_t sp = 0, no = 0;
    uint32_t maxh = 0;
    wstack *w = &h->w;
    if (ws_reserve(w, 1) != 0) return -1;
    w->f[sp++] = (frame){root, 0};
    int masked = h->masked;
    while (sp) {
        frame *fr = &w->f[sp - 1];
        tnode *n = fr->n;
        uint32_t i = fr->i;
        const uint8_t *toks = kid_tokens(n);
        while (i < n->nkids && !(kid_maybe_dirty(n, toks, i, masked) && n->kids[i]->dirty)) i++;
        tnode *fin;
        if (i < n->nkids) {
            tnode *k = n->kids[i];
            fr->i = i + 1;
            if (k->nkids) {
                if (ws_reserve(w, sp + 1) != 0) return -1;
                w->f[sp++] = (frame){k, 0};
                continue;
            }
            fin = k; /* a dirty leaf: finished at once */
        } else {
            fr->i = i;
            fin = n;
            sp--;
        }
        uint32_t ht = 0;
        const uint8_t *ftoks = kid_tokens(fin);
        for (unsigned k = 0; k < fin->nkids; k++)
            if (kid_maybe_dirty(fin, ftoks, k, masked) && fin->kids[k]->dirty) {
                uint32_t kh = get_height(fin->kids[k]) + 1;
                if (kh > ht) ht = kh;
            }
        memcpy(fin->id, &ht, sizeof ht);
        if (ht > maxh) maxh = ht;
        if (no == h->cap) {
            size_t nc = h->cap ? 2 * h->cap : 1024;
            tnode **o = realloc(h->order, nc * sizeof *o);
            if (o == NULL) return -1;
            h->order = o;
            tnode **q = realloc(h->sorted, nc * sizeof *q);
            if (q == NULL) return -1;
            h->sorted = q;
            h->cap = nc;
        }
        h->order[no++] = fin;
    }
    if ((size_t)maxh + 2 > h->ccap) {
        size_t *c = realloc(h->count, ((size_t)maxh + 2) * sizeof *c);
        if (c == NULL) return -1;
        h->count = c;
        h->ccap = (size_t)maxh + 2;
    }
    memset(h->count, 0, ((size_t)maxh + 2) * sizeof *h->count);
    for (size_t i = 0; i < no; i++) h->count[get_height(h->order[i]) + 1]++;
    for (uint32_t d = 1; d <= maxh + 1; d++) h->count[d] += h->count[d - 1];
    for (size_t i = 0; i < no; i++) h->sorted[h->count[get_height(h->order[i])]++] = h->order[i];
    /* count[d] is now the end of level d. */
    size_t lo = 0;
    for (uint32_t d = 0; d <= maxh; d++) {
        hash_level(h->sorted + lo, h->count[d] - lo, masked);
        lo = h->count[d];
    }
    return 0;
}

/*
** Hash the dirty nodes v[0..m) (every dirty descendant of one of them is among them too):
** ordered by key length, longest first (a child's key is longer than its parent's, so
** children come first and nodes of one length are never related), each length a level for
** hash_level. tmp and nodes: room for m entries each. v is reordered.
*/
/* A reusable barrier whose count can drop while threads are being started. */
typedef struct gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned count, waiting;
    unsigned long gen;
} gate;

static void gate_wait(gate *g)
{
    pthread_mutex_lock(&g->mu);
    unsigned long gen = g->gen;
    if (++g->waiting == g->count) {
        g->waiting = 0;
        g->gen++;
        pthread_cond_broadcast(&g->cv);
    } else {
        while (gen == g->gen) pthread_cond_wait(&g->cv, &g->mu);
    }
    pthread_mutex_unlock(&g->mu);
}

/* One fewer thread will come (it could not be started). */
static void gate_drop(gate *g)
{
    pthread_mutex_lock(&g->mu);
    g->count--;
    if (g->waiting && g->waiting == g->count) {
        g->waiting = 0;
        g->gen++;
        pthread_cond_broadcast(&g->cv);
    }
    pthread_mutex_unlock(&g->mu);
}

/* Levels hashed by several threads: each level's nodes are shared out in HB_CHUNK pieces,
** and all threads meet at the gate before the next level. */
typedef struct lvl_job {
    tnode **nodes;
    const size_t *bounds; /* level L is nodes[bounds[L], bounds[L+1]) */
    size_t nlev;
    int masked;
    gate g;
    atomic_size_t *next; /* one counter per level */
} lvl_job;

static void *lvl_worker(void *arg)
{
    lvl_job *j = arg;
    for (size_t L = 0; L < j->nlev; L++) {
        size_t lo = j->bounds[L], hi = j->bounds[L + 1];
        for (;;) {
            size_t c = atomic_fetch_add(&j->next[L], HB_CHUNK);
            if (c >= hi - lo) break;
            size_t e = hi - lo - c < HB_CHUNK ? hi - lo : c + HB_CHUNK;
            hash_level(j->nodes + lo + c, e - c, j->masked);
        }
        gate_wait(&j->g); /* the level is done before its parents start */
    }
    return NULL;
}

/* The levels of the sorted nodes[0..m) (kbits in srt) on `threads` threads; -1 when the
** threads or their bookkeeping cannot be had (nothing hashed then). */
static int hash_levels_mt(const dent *srt, tnode **nodes, size_t m, int masked, unsigned threads)
{
    size_t nlev = 0;
    for (size_t i = 0; i < m; i++)
        if (i == 0 || srt[i].kbits != srt[i - 1].kbits) nlev++;
    size_t *bounds = malloc((nlev + 1) * sizeof *bounds);
    atomic_size_t *next = malloc(nlev * sizeof *next);
    if (bounds == NULL || next == NULL) {
        free(bounds);
        free(next);
        return -1;
    }
    size_t L = 0;
    for (size_t i = 0; i < m; i++)
        if (i == 0 || srt[i].kbits != srt[i - 1].kbits) bounds[L++] = i;
    bounds[nlev] = m;
    for (size_t i = 0; i < nlev; i++) atomic_init(&next[i], 0);
    lvl_job job;
    job.nodes = nodes;
    job.bounds = bounds;
    job.nlev = nlev;
    job.masked = masked;
    job.next = next;
    pthread_mutex_init(&job.g.mu, NULL);
    pthread_cond_init(&job.g.cv, NULL);
    unsigned want = threads - 1 > 63 ? 63 : threads - 1;
    job.g.count = want + 1;
    job.g.waiting = 0;
    job.g.gen = 0;
    pthread_t tid[63];
    unsigned started = 0;
    for (unsigned i = 0; i < want; i++) {
        if (pthread_create(&tid[started], NULL, lvl_worker, &job) == 0)
            started++;
        else
            gate_drop(&job.g);
    }
    lvl_worker(&job);
    for (unsigned i = 0; i < started; i++) pthread_join(tid[i], NULL);
    pthread_cond_destroy(&job.g.cv);
    pthread_mutex_destroy(&job.g.mu);
    free(bounds);
    free(next);
    return 0;
}

static void hash_by_length(dent *v, size_t m, dent *tmp, tnode **nodes, int masked,
                           unsigned threads)
{
    /* LSD radix sort on ~kbits (descending kbits), one byte per pass; a pass whose digit is
    ** the same for every entry is skipped. */
    dent *src = v, *dst = tmp;
    for (unsigned shift = 0; shift < 32 && m > 1; shift += 8) {
        size_t cnt[256] = {0};
        for (size_t i = 0; i < m; i++) cnt[(~src[i].kbits >> shift) & 0xff]++;
        if (cnt[(~src[0].kbits >> shift) & 0xff] == m) continue;
        size_t acc = 0;
        for (unsigned b = 0; b < 256; b++) {
            size_t c = cnt[b];
            cnt[b] = acc;
            acc += c;
        }
        for (size_t i = 0; i < m; i++) dst[cnt[(~src[i].kbits >> shift) & 0xff]++] = src[i];
        dent *x = src;
        src = dst;
        dst = x;
    }
    for (size_t i = 0; i < m; i++) nodes[i] = src[i].n;
    if (threads > 1 && m >= 4 * HB_CHUNK && hash_levels_mt(src, nodes, m, masked, threads) == 0)
        return;
    for (size_t lo = 0; lo < m;) {
        size_t hi = lo + 1;
        while (hi < m && src[hi].kbits == src[lo].kbits) hi++;
        hash_level(nodes + lo, hi - lo, masked);
        lo = hi;
    }
}

/* Hash the listed dirty nodes (t->dl, valid). -1 on NOMEM (nothing hashed). */
static int hash_listed(merkle_trie *t, unsigned threads)
{
    dlist *d = &t->dl;
    size_t m = d->n;
    dent *tmp = malloc(m * sizeof *tmp);
    tnode **nodes = malloc(m * sizeof *nodes);
    if (tmp == NULL || nodes == NULL) {
        free(tmp);
        free(nodes);
        return -1;
    }
    hash_by_length(d->v, m, tmp, nodes, t->bf <= 16, threads);
    free(tmp);
    free(nodes);
    return 0;
}

typedef struct par_job {
    int masked;
    tnode **tasks;
    size_t ntasks;
    atomic_size_t next;
    atomic_int failed;
} par_job;

static void *par_worker(void *arg)
{
    par_job *job = arg;
    hscratch h;
    memset(&h, 0, sizeof h);
    h.masked = job->masked;
    for (;;) {
        size_t i = atomic_fetch_add(&job->next, 1);
        if (i >= job->ntasks) break;
        if (hash_subtree(job->tasks[i], &h) != 0) atomic_store(&job->failed, 1);
    }
    hs_free(&h);
    return NULL;
}

typedef struct nodevec {
    tnode **v;
    size_t n, cap;
} nodevec;

static int nv_push(nodevec *a, tnode *x)
{
    if (a->n == a->cap) {
        size_t nc = a->cap ? a->cap * 2 : 64;
        tnode **nv = realloc(a->v, nc * sizeof *nv);
        if (nv == NULL) return -1;
        a->v = nv;
        a->cap = nc;
    }
    a->v[a->n++] = x;
    return 0;
}

/* Split the dirty part of the trie into independent subtrees (the frontier) and the dirty
** nodes above them (upper, in breadth-first order); hash the frontier on `threads` threads,
** then upper in reverse order, so that children always come before their parents. */
static int hash_parallel(merkle_trie *t, unsigned threads)
{
    nodevec cur = {0}, next = {0}, upper = {0};
    int rc = -1;
    if (nv_push(&cur, t->root) != 0) goto out;
    for (int round = 0; round < 16 && cur.n < 8u * threads; round++) {
        int expanded = 0;
        next.n = 0;
        for (size_t i = 0; i < cur.n; i++) {
            tnode *n = cur.v[i];
            size_t before = next.n;
            for (unsigned k = 0; k < n->nkids; k++)
                if (n->kids[k]->dirty && nv_push(&next, n->kids[k]) != 0) goto out;
            if (next.n > before) {
                expanded = 1;
                if (nv_push(&upper, n) != 0) goto out;
            } else if (nv_push(&next, n) != 0) {
                goto out;
            }
        }
        nodevec tmp = cur;
        cur = next;
        next = tmp;
        if (!expanded) break;
    }
    par_job job;
    job.masked = t->bf <= 16;
    job.tasks = cur.v;
    job.ntasks = cur.n;
    atomic_init(&job.next, 0);
    atomic_init(&job.failed, 0);
    pthread_t tid[64];
    unsigned started = 0;
    unsigned want = threads - 1;
    if (want > 64) want = 64;
    if (want > cur.n) want = (unsigned)cur.n;
    for (unsigned i = 0; i < want; i++) {
        if (pthread_create(&tid[started], NULL, par_worker, &job) != 0) break;
        started++;
    }
    par_worker(&job);
    for (unsigned i = 0; i < started; i++) pthread_join(tid[i], NULL);
    if (atomic_load(&job.failed)) goto out;
    for (size_t i = upper.n; i-- > 0;) node_hash(upper.v[i], job.masked);
    rc = 0;
out:
    free(cur.v);
    free(next.v);
    free(upper.v);
    return rc;
}

merkle_status merkle_trie_root(uint8_t out[MERKLE_TRIE_ID_LEN], merkle_trie *t,
                               unsigned threads, merkle_error *err)
{
    if (out == NULL || t == NULL) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid argument");
    if (t->root == NULL) {
        t->dl.n = 0;
        t->dl.bad = 0;
        memset(out, 0, MERKLE_TRIE_ID_LEN);
        return MERKLE_OK;
    }
    if (t->root->dirty) {
        int rc = -1;
        /* From the list of dirty nodes when it is valid, else by walking the trie; both on
        ** several threads when asked. */
        if (!t->dl.bad && t->dl.n) rc = hash_listed(t, threads);
        if (rc != 0 && threads > 1 && t->root->nkids > 0) {
            rc = hash_parallel(t, threads);
        } else if (rc != 0) {
            hscratch h;
            memset(&h, 0, sizeof h);
            h.masked = t->bf <= 16;
            rc = hash_subtree(t->root, &h);
            hs_free(&h);
        }
        if (rc != 0) {
            t->dl.bad = 1; /* some listed nodes may be clean now */
            return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory while hashing");
        }
    }
    t->dl.n = 0; /* everything is clean */
    t->dl.bad = 0;
    if (t->dl.cap > 65536) { /* a big build's list: do not keep it */
        free(t->dl.v);
        t->dl.v = NULL;
        t->dl.cap = 0;
    }
    memcpy(out, t->root->id, MERKLE_TRIE_ID_LEN);
    return MERKLE_OK;
}

/* ------------------------------------------------------------------ batch put */

/* Key a sorts before key b, comparing from byte `depth` on (the bytes before are equal). */
static int key_before(const uint8_t *a, size_t al, const uint8_t *b, size_t bl, size_t depth)
{
    size_t m = al < bl ? al : bl;
    int c = m > depth ? memcmp(a + depth, b + depth, m - depth) : 0;
    return c < 0 || (c == 0 && al < bl);
}

typedef struct sort_item {
    uint64_t pfx; /* the key's first 8 bytes, big-endian, zero-padded */
    const uint8_t *key;
    const uint8_t *val; /* the pair, read in input order while the batch is sorted */
    uint32_t klen;      /* <= MERKLE_TRIE_MAX_KEY */
    uint32_t vlen;      /* <= MERKLE_TRIE_MAX_VALUE */
    size_t idx;         /* position in the batch */
} sort_item;

/* Stable LSD radix sort of it[0..m) on prefix bits [0, top) (16-bit digits), via tmp. */
static void lsd_sort(sort_item *it, sort_item *tmp, size_t m, unsigned top, size_t *count)
{
    sort_item *src = it, *dst = tmp;
    for (unsigned shift = 0; shift < top; shift += 16) {
        memset(count, 0, 65536 * sizeof *count);
        for (size_t i = 0; i < m; i++) count[(src[i].pfx >> shift) & 0xffff]++;
        if (count[(src[0].pfx >> shift) & 0xffff] == m) continue; /* one digit value */
        size_t acc = 0;
        for (size_t d = 0; d < 65536; d++) {
            size_t c = count[d];
            count[d] = acc;
            acc += c;
        }
        for (size_t i = 0; i < m; i++) dst[count[(src[i].pfx >> shift) & 0xffff]++] = src[i];
        sort_item *t = src;
        src = dst;
        dst = t;
    }
    if (src != it) memcpy(it, src, m * sizeof *it);
}

/* malloc for large temporary arrays, advised for transparent huge pages (fewer faults). */
static void *big_alloc(size_t size)
{
    void *mem = NULL;
    if (size < 2 * HUGE_PAGE) return malloc(size);
    if (posix_memalign(&mem, HUGE_PAGE, size) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(mem, size, MADV_HUGEPAGE);
#endif
    return mem;
}

/* Stable insertion sort of v[0..m) by prefix (m small). */
static void isort_pfx(sort_item *v, size_t m)
{
    for (size_t i = 1; i < m; i++) {
        sort_item x = v[i];
        size_t j = i;
        while (j > 0 && v[j - 1].pfx > x.pfx) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* Stable distribution of src[0..m) into dst by prefix byte (pfx >> shift) & 0xff; start[]
** receives the 257 bucket boundaries. */
static void byte_pass(sort_item *dst, const sort_item *src, size_t m, unsigned shift,
                      size_t start[257])
{
    size_t pos[256] = {0};
    for (size_t i = 0; i < m; i++) pos[(src[i].pfx >> shift) & 0xff]++;
    size_t acc = 0;
    for (unsigned d = 0; d < 256; d++) {
        start[d] = acc;
        acc += pos[d];
        pos[d] = start[d];
    }
    start[256] = m;
    for (size_t i = 0; i < m; i++) dst[pos[(src[i].pfx >> shift) & 0xff]++] = src[i];
}

/*
** Stable sort of the batch by key (bytewise, a prefix first) into a malloc'd array of items
** (NULL on allocation failure). The first 8 bytes of every key are read once, in input
** order; zero-padded prefixes order keys consistently. Two most-significant-byte passes with
** 256 buckets each (cache- and TLB-friendly), then insertion sort for small buckets and an
** LSD radix sort on the remaining 48 bits for large ones; runs of equal prefixes are finally
** ordered by a stable insertion sort on the full keys. Equal keys keep their input order.
**
** The pairs are read again later in sorted order, that is at random places in the caller's
** memory, where nearly every read is a TLB miss as well as a cache miss. So, when they add up
** to between 256 KiB and ARENA_MAX bytes, they are first copied, in input order, into one
** arena advised for huge pages (*arena, to be freed by the caller after the batch), and the
** items point there (about 8% off a 1,000,000-pair bulk build).
*/
#define ARENA_MAX ((size_t)1 << 30)

static sort_item *sort_keys(size_t n, const uint8_t *const *keys, const size_t *lens,
                            const uint8_t *const *vals, const size_t *vlens, uint8_t **arena)
{
    *arena = NULL;
    sort_item *a = big_alloc(n * sizeof *a), *b = big_alloc(n * sizeof *b);
    size_t *count = malloc(65536 * sizeof *count);
    if (a == NULL || b == NULL || count == NULL) {
        free(a);
        free(b);
        free(count);
        return NULL;
    }
    size_t total = 0;
    for (size_t i = 0; i < n && total <= ARENA_MAX; i++) total += lens[i] + vlens[i];
    uint8_t *ar = total <= ARENA_MAX && total >= ((size_t)1 << 18) ? big_alloc(total) : NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t tmp[8] = {0};
        if (lens[i]) memcpy(tmp, keys[i], lens[i] < 8 ? lens[i] : 8);
        uint64_t v = 0;
        for (int j = 0; j < 8; j++) v = (v << 8) | tmp[j];
        const uint8_t *k = keys[i], *val = vals[i];
        if (ar) {
            if (lens[i]) memcpy(ar + o, k, lens[i]);
            k = ar + o;
            o += lens[i];
            if (vlens[i]) memcpy(ar + o, val, vlens[i]);
            val = ar + o;
            o += vlens[i];
        }
        a[i] = (sort_item){v, k, val, (uint32_t)lens[i], (uint32_t)vlens[i], i};
    }
    *arena = ar;
    size_t s1[257], s2[257];
    byte_pass(b, a, n, 56, s1); /* a -> b on the first byte */
    for (unsigned d = 0; d < 256; d++) { /* the result ends up in a */
        size_t lo = s1[d], m = s1[d + 1] - lo;
        if (m <= 32) {
            memcpy(a + lo, b + lo, m * sizeof *a);
            isort_pfx(a + lo, m);
            continue;
        }
        byte_pass(a + lo, b + lo, m, 48, s2); /* b -> a on the second byte */
        for (unsigned e = 0; e < 256; e++) {
            size_t l2 = lo + s2[e], m2 = s2[e + 1] - s2[e];
            if (m2 <= 32)
                isort_pfx(a + l2, m2);
            else
                lsd_sort(a + l2, b + l2, m2, 48, count);
        }
    }
    /* Runs of equal prefixes: stable insertion sort on the whole key. */
    for (size_t lo = 0; lo < n;) {
        size_t hi = lo + 1;
        while (hi < n && a[hi].pfx == a[lo].pfx) hi++;
        for (size_t i = lo + 1; i < hi; i++) {
            sort_item x = a[i];
            size_t j = i;
            while (j > lo && key_before(x.key, x.klen, a[j - 1].key, a[j - 1].klen, 0)) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = x;
        }
        lo = hi;
    }
    free(b);
    free(count);
    return a;
}

/* Items i and i+1 of a sorted batch have the same key. */
static inline int same_key(const sort_item *x, const sort_item *y)
{
    return x->pfx == y->pfx && x->klen == y->klen &&
           (x->klen <= 8 || memcmp(x->key + 8, y->key + 8, x->klen - 8) == 0);
}

#define BULK_WIN 64
#define BULK_PAYLOAD (32 + MERKLE__UVARINT_MAX + 64) /* leaves with keys up to 64 bytes */

/*
** Multi-buffer hashing for one window of the bulk build: the value digests of win[0..m) (in
** groups of equal value length) into dig, then the IDs of the new leaves lf[0..m) (NULL
** entries skipped) whose preimage is short enough, in groups of equal preimage shape, with
** merkle_sha256_batch (several messages per SIMD/SHA-NI pass). A leaf hashed here is clean.
*/
static void bulk_value_digests(const sort_item *win, size_t m, uint8_t dig[][32])
{
    uint8_t done[BULK_WIN] = {0};
    for (size_t a = 0; a < m; a++) {
        size_t len = win[a].vlen;
        if (done[a] || len < 32) continue;
        const uint8_t *msgs[16];
        size_t at[16], g = 0;
        for (size_t b = a; b < m; b++) {
            if (!done[b] && win[b].vlen == len) {
                done[b] = 1;
                msgs[g] = win[b].val;
                at[g++] = b;
            }
            if (g == 16 || (g && b + 1 == m)) { /* a full group, or the rest at the end */
                uint8_t out[16][32];
                (void)merkle_sha256_batch(&out[0][0], NULL, 0, msgs, len, g);
                for (size_t j = 0; j < g; j++) memcpy(dig[at[j]], out[j], 32);
                g = 0;
            }
        }
    }
}

static void bulk_leaf_ids(tnode *const *lf, size_t m)
{
    uint8_t pay[BULK_WIN][BULK_PAYLOAD];
    size_t plen[BULK_WIN];
    uint8_t dl[BULK_WIN], ok[BULK_WIN];
    for (size_t i = 0; i < m; i++) {
        tnode *n = lf[i];
        ok[i] = 0;
        if (n == NULL || KEY_BYTES(n->kbits) > 64) continue;
        /* preimage = 00 (no children) | 01 dl | digest | uvarint(kbits) key: the first three
        ** bytes are the batch prefix, the rest the payload. */
        size_t d = n->vlen >= 32 ? 32 : n->vlen, u = 0;
        if (d) memcpy(pay[i], n->val, d);
        u = d + merkle__uvarint_put(pay[i] + d, n->kbits);
        size_t kb = KEY_BYTES(n->kbits);
        if (kb) memcpy(pay[i] + u, n->key, kb);
        plen[i] = u + kb;
        dl[i] = (uint8_t)d;
        ok[i] = 1;
    }
    for (size_t a = 0; a < m; a++) {
        if (!ok[a]) continue;
        const uint8_t *msgs[16];
        tnode *grp[16];
        size_t g = 0;
        uint8_t prefix[3] = {0, 1, dl[a]};
        size_t len = plen[a];
        for (size_t b = a; b < m; b++) {
            if (ok[b] && plen[b] == len && dl[b] == dl[a]) {
                ok[b] = 0;
                msgs[g] = pay[b];
                grp[g++] = lf[b];
            }
            if (g == 16 || (g && b + 1 == m)) { /* a full group, or the rest at the end */
                batch_ids(grp, g, prefix, 3, msgs, len);
                g = 0;
            }
        }
    }
}

/* Is key a (al bytes) a proper prefix of key b? */
static inline int is_prefix(const sort_item *a, const sort_item *b)
{
    return a->klen < b->klen && (a->klen == 0 || memcmp(a->key, b->key, a->klen) == 0);
}

/*
** Build the whole trie of an empty t from the sorted batch (duplicates adjacent, the last one
** wins) with a stack of open nodes on the path to the latest key. The children of the open
** nodes wait on a second stack; when a node closes it gets a children block of exactly its
** size. The batch is taken in windows of BULK_WIN pairs: their value digests and the IDs of
** their leaves are computed first with the multi-buffer SHA-256 (a leaf that a later key
** extends is left for later). Closed inner nodes wait in a short list and are hashed
** BULK_PEND at a time, level by level (hash_by_length: multi-buffer again), while they and
** their children are still in cache.
*/
#define BULK_PEND 1024

typedef struct kent {
    tnode *n;
    unsigned tok;
} kent;

typedef struct bulk {
    merkle_trie *t;
    tnode **st;  /* open nodes, root first */
    size_t *mark; /* mark[i]: kid-stack height when st[i] was opened */
    size_t sp, scap;
    kent *ks; /* children of open nodes */
    size_t kt, kcap;
    dent *pend, *ptmp; /* closed inner nodes, not hashed yet */
    tnode **pnodes;
    size_t np;
    int masked;
} bulk;

static void bulk_free(bulk *b)
{
    free(b->st);
    free(b->mark);
    free(b->ks);
    free(b->pend);
    free(b->ptmp);
    free(b->pnodes);
}

static void bulk_flush(bulk *b)
{
    hash_by_length(b->pend, b->np, b->ptmp, b->pnodes, b->masked, 1);
    b->np = 0;
}

static int bulk_open(bulk *b, tnode *n)
{
    if (b->sp == b->scap) {
        size_t nc = 2 * b->scap;
        tnode **ns = realloc(b->st, nc * sizeof *ns);
        if (ns == NULL) return -1;
        b->st = ns;
        size_t *nm = realloc(b->mark, nc * sizeof *nm);
        if (nm == NULL) return -1;
        b->mark = nm;
        b->scap = nc;
    }
    b->st[b->sp] = n;
    b->mark[b->sp] = b->kt;
    b->sp++;
    return 0;
}

static int bulk_kid(bulk *b, tnode *c, unsigned tok)
{
    if (b->kt == b->kcap) {
        size_t nc = 2 * b->kcap;
        kent *nk = realloc(b->ks, nc * sizeof *nk);
        if (nk == NULL) return -1;
        b->ks = nk;
        b->kcap = nc;
    }
    b->ks[b->kt++] = (kent){c, tok};
    return 0;
}

/* Close the top open node: give it its children, queue it for hashing; returns it (NULL on
** allocation failure, the node then still open). */
static tnode *bulk_close(bulk *b)
{
    tnode *c = b->st[b->sp - 1];
    size_t m0 = b->mark[b->sp - 1], k = b->kt - m0;
    if (k) {
        uint8_t *blk = pool_alloc(&b->t->pool, KIDS_SIZE(k));
        if (blk == NULL) return NULL;
        c->kids = (tnode **)(blk + TOK_PAD(k));
        c->kcap = (uint16_t)k;
        c->nkids = (uint16_t)k;
        for (size_t i = 0; i < k; i++) {
            blk[i] = (uint8_t)b->ks[m0 + i].tok;
            c->kids[i] = b->ks[m0 + i].n;
            mark_kid(c, b->ks[m0 + i].tok);
        }
        b->kt = m0;
        c->dirty = 1;
    }
    b->sp--;
    if (c->dirty) {
        b->pend[b->np++] = (dent){c, c->kbits};
        if (b->np == BULK_PEND) bulk_flush(b);
    }
    return c;
}

static int bulk_build(merkle_trie *t, const sort_item *it, size_t n)
{
    bulk b;
    memset(&b, 0, sizeof b);
    b.t = t;
    b.masked = t->bf <= 16;
    b.scap = 64;
    b.kcap = 256;
    b.st = malloc(b.scap * sizeof *b.st);
    b.mark = malloc(b.scap * sizeof *b.mark);
    b.ks = malloc(b.kcap * sizeof *b.ks);
    b.pend = malloc(BULK_PEND * sizeof *b.pend);
    b.ptmp = malloc(BULK_PEND * sizeof *b.ptmp);
    b.pnodes = malloc(BULK_PEND * sizeof *b.pnodes);
    const uint8_t *pk = NULL;
    uint32_t pbits = 0;
    uint64_t count = 0;
    uint8_t dig[BULK_WIN][32];
    tnode *lf[BULK_WIN];
    if (!b.st || !b.mark || !b.ks || !b.pend || !b.ptmp || !b.pnodes) goto fail;
    for (size_t w0 = 0; w0 < n; w0 += BULK_WIN) {
        size_t m = n - w0 < BULK_WIN ? n - w0 : BULK_WIN;
        const sort_item *win = it + w0;
        /* Sorted order is random order in the input: fetch the next window's keys and
        ** values while this one is worked on. */
        for (size_t j = w0 + BULK_WIN; j < w0 + 2 * BULK_WIN && j < n; j++) {
            __builtin_prefetch(it[j].key);
            __builtin_prefetch(it[j].val);
        }
        bulk_value_digests(win, m, dig);
        for (size_t j = 0; j < m; j++) {
            size_t i = w0 + j;
            lf[j] = NULL;
            if (i + 1 < n && same_key(&it[i], &it[i + 1])) continue; /* a later duplicate wins */
            tnode *leaf = node_new(t, it[i].key, (uint32_t)(it[i].klen * 8));
            if (leaf == NULL) goto fail;
            lf[j] = leaf;
            if (node_set_value_d(t, leaf, it[i].val, it[i].vlen, it[i].vlen >= 32 ? dig[j] : NULL) != 0)
                goto fail;
        }
        {
            tnode *batch[BULK_WIN];
            for (size_t j = 0; j < m; j++) {
                size_t i = w0 + j;
                /* A key that the next one extends gets children: hash it when it closes. */
                batch[j] = lf[j] && !(i + 1 < n && is_prefix(&it[i], &it[i + 1])) ? lf[j] : NULL;
            }
            bulk_leaf_ids(batch, m);
        }
        for (size_t j = 0; j < m; j++) {
            tnode *leaf = lf[j];
            if (leaf == NULL) continue;
            const uint8_t *k = leaf->key;
            uint32_t kbits = leaf->kbits;
            if (b.sp) {
                uint32_t d = common_bits(pk, pbits, k, kbits, 0);
                d -= d % t->ts;
                while (b.st[b.sp - 1]->kbits > d) {
                    tnode *c = bulk_close(&b);
                    if (c == NULL) goto fail;
                    if (b.sp && b.st[b.sp - 1]->kbits >= d) {
                        if (bulk_kid(&b, c, token_at(c->key, b.st[b.sp - 1]->kbits, t->ts)) != 0)
                            goto fail;
                    } else {
                        /* A new branch at d takes c as its first child. */
                        tnode *br = node_new(t, k, d);
                        if (br == NULL) goto fail;
                        size_t mk = b.kt;
                        if (bulk_kid(&b, c, token_at(c->key, d, t->ts)) != 0 || bulk_open(&b, br) != 0) {
                            node_free(t, br);
                            goto fail;
                        }
                        b.mark[b.sp - 1] = mk;
                        break;
                    }
                }
            }
            if (bulk_open(&b, leaf) != 0) goto fail;
            lf[j] = NULL; /* linked: owned by the stack now */
            pk = leaf->key;
            pbits = kbits;
            count++;
        }
    }
    while (b.sp > 1) {
        tnode *c = bulk_close(&b);
        if (c == NULL || bulk_kid(&b, c, token_at(c->key, b.st[b.sp - 1]->kbits, t->ts)) != 0) goto fail;
    }
    if (b.sp) {
        tnode *r = bulk_close(&b);
        if (r == NULL) goto fail;
        t->root = r;
    }
    bulk_flush(&b);
    t->size = count;
    bulk_free(&b);
    return 0;
fail: /* the trie was empty: drop everything built so far (all of it lives in the pool) */
    bulk_free(&b);
    pool_release(&t->pool);
    t->root = NULL;
    t->size = 0;
    return -1;
}

/*
** Batch put into a non-empty trie. A big trie is mostly cache misses: every put walks a path
** of nodes that lie anywhere in memory. So read-only cursors run PF_LANES keys ahead of the
** puts, one step each per put: a step reads what the previous step prefetched (a node, its
** tokens, a child pointer) and prefetches what the next one reads, and by the time a key's
** put comes its path is in cache. Cursors hold node pointers and re-read n->kids at every
** step; a put never frees a node (a children block may move), but whenever the trie gives
** memory back to its pool (t->gen moves) the cursors restart from the root all the same, so
** that they never depend on that. Value digests are computed 16 at a time with the
** multi-buffer SHA-256.
*/
#define PF_LANES 32
#define PF_STEPS 1

typedef struct pcur {
    const tnode *n;
    const uint8_t *key;
    uint32_t kbits;
    unsigned state; /* 0: at n; 1: n's tokens fetched; 2: the child pointer fetched; 3: done */
    unsigned idx;   /* child index, for state 2 */
} pcur;

static void pcur_start(pcur *c, const merkle_trie *t, const sort_item *x)
{
    c->n = t->root;
    c->key = x->key;
    c->kbits = (uint32_t)(x->klen * 8);
    c->state = 0;
    __builtin_prefetch(t->root);
}

static void pcur_step(pcur *c, const merkle_trie *t)
{
    const tnode *n = c->n;
    switch (c->state) {
    case 0:
        if (n->kbits >= c->kbits || n->nkids == 0) { /* the end: the put reads key and value */
            __builtin_prefetch((const uint8_t *)n + 64);
            if (n->hasval) __builtin_prefetch(n->val);
            c->state = 3;
            return;
        }
        __builtin_prefetch(kid_tokens(n));
        c->state = 1;
        return;
    case 1: {
        int i = find_kid(n, token_at(c->key, n->kbits, t->ts));
        if (i < 0) {
            c->state = 3;
            return;
        }
        c->idx = (unsigned)i;
        __builtin_prefetch(&n->kids[i]);
        c->state = 2;
        return;
    }
    case 2: {
        const tnode *k = n->kids[c->idx];
        __builtin_prefetch(k);
        __builtin_prefetch((const uint8_t *)k + 64);
        c->n = k;
        c->state = 0;
        return;
    }
    default:
        return;
    }
}

static merkle_status batch_apply(merkle_trie *t, const sort_item *it, size_t n, merkle_error *err)
{
    pcur cur[PF_LANES];
    uint64_t gen = t->gen;
    size_t ahead = 1; /* items (i, ahead) have cursors; item k's is cur[k % PF_LANES] */
    uint8_t dig[BULK_WIN][32];
    for (size_t w0 = 0; w0 < n; w0 += BULK_WIN) {
        size_t m = n - w0 < BULK_WIN ? n - w0 : BULK_WIN;
        for (size_t j = w0 + BULK_WIN; j < w0 + 2 * BULK_WIN && j < n; j++)
            __builtin_prefetch(it[j].val);
        bulk_value_digests(it + w0, m, dig);
        for (size_t j = 0; j < m; j++) {
            size_t i = w0 + j;
            if (ahead <= i) ahead = i + 1;
            for (; ahead < n && ahead <= i + PF_LANES; ahead++) {
                __builtin_prefetch(it[ahead].key);
                pcur_start(&cur[ahead % PF_LANES], t, &it[ahead]);
            }
            for (size_t k = i + 1; k < ahead; k++)
                for (int r = 0; r < PF_STEPS; r++) pcur_step(&cur[k % PF_LANES], t);
            size_t q = it[i].idx;
            merkle_status st = put_one(t, it[i].key, it[i].klen, it[i].val, it[i].vlen,
                                       it[i].vlen >= 32 ? dig[j] : NULL);
            if (st != MERKLE_OK) return merkle__fail(err, st, 0, q, "item %zu: %s", q, merkle_strerror(st));
            if (t->gen != gen) {
                gen = t->gen;
                for (size_t k = i + 1; k < ahead; k++) pcur_start(&cur[k % PF_LANES], t, &it[k]);
            }
        }
    }
    return MERKLE_OK;
}

merkle_status merkle_trie_put_batch(merkle_trie *t, const uint8_t *const *keys,
                                    const size_t *key_lens, const uint8_t *const *values,
                                    const size_t *value_lens, size_t n, merkle_error *err)
{
    if (t == NULL || (n && (keys == NULL || key_lens == NULL || values == NULL || value_lens == NULL)))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid argument");
    for (size_t i = 0; i < n; i++) {
        if ((keys[i] == NULL && key_lens[i]) || (values[i] == NULL && value_lens[i]))
            return merkle__fail(err, MERKLE_ERR_ARG, 0, i, "item %zu: NULL with a non-zero length", i);
        if (key_lens[i] > MERKLE_TRIE_MAX_KEY || value_lens[i] > MERKLE_TRIE_MAX_VALUE)
            return merkle__fail(err, MERKLE_ERR_RANGE, 0, i, "item %zu: key or value too long", i);
    }
    if (n == 0) return MERKLE_OK;
    if (n > SIZE_MAX / sizeof(sort_item))
        return merkle__fail(err, MERKLE_ERR_RANGE, 0, 0, "batch too large");
    uint8_t *arena;
    sort_item *it = sort_keys(n, keys, key_lens, values, value_lens, &arena);
    if (it == NULL) return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    merkle_status st = MERKLE_OK;
    if (t->root == NULL) {
        t->dl.n = 0; /* no nodes: nothing listed is live */
        t->dl.bad = 0;
        t->dl.off = 1;
        int rc = bulk_build(t, it, n);
        t->dl.off = 0;
        if (rc != 0)
            st = merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    } else {
        st = batch_apply(t, it, n, err);
    }
    free(it);
    free(arena);
    return st;
}

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
    uint8_t buf[704];
    size_t u = 0;
    merkle_sha256 c;
    merkle_sha256_init(&c);
    u += merkle__uvarint_put(buf, n);
    for (size_t i = 0; i < n; i++) {
        if (children[i].index > 255 || (i && children[i].index <= children[i - 1].index))
            return MERKLE_ERR_ARG;
        if (u > sizeof buf - 34) {
            merkle_sha256_update(&c, buf, u);
            u = 0;
        }
        u += merkle__uvarint_put(buf + u, children[i].index);
        memcpy(buf + u, children[i].id, MERKLE_TRIE_ID_LEN);
        u += MERKLE_TRIE_ID_LEN;
    }
    if (u > sizeof buf - 34 - MERKLE__UVARINT_MAX) {
        merkle_sha256_update(&c, buf, u);
        u = 0;
    }
    if (has_value) {
        uint8_t d[32];
        size_t dl;
        const uint8_t *dp = merkle__trie_value_digest(d, value, value_len, &dl);
        buf[u++] = 1;
        buf[u++] = (uint8_t)dl;
        if (dl) memcpy(buf + u, dp, dl);
        u += dl;
    } else {
        buf[u++] = 0;
    }
    u += merkle__uvarint_put(buf + u, key_bits);
    merkle_sha256_update(&c, buf, u);
    if (kb) merkle_sha256_update(&c, key, kb);
    merkle_sha256_final(&c, out);
    return MERKLE_OK;
}

/* ------------------------------------------------------------------ proofs: path access */

static size_t node_preimage(const tnode *n, uint8_t *out)
{
    uint8_t tmp[MERKLE__UVARINT_MAX];
    size_t u = merkle__uvarint_put(out ? out : tmp, n->nkids);
    const uint8_t *toks = kid_tokens(n);
    for (unsigned i = 0; i < n->nkids; i++) {
        u += merkle__uvarint_put(out ? out + u : tmp, toks[i]);
        if (out) memcpy(out + u, kid_ids(n) + (size_t)i * MERKLE_TRIE_ID_LEN, MERKLE_TRIE_ID_LEN);
        u += MERKLE_TRIE_ID_LEN;
    }
    if (n->hasval) {
        size_t dl = n->vlen >= 32 ? 32 : n->vlen;
        if (out) {
            out[u] = 1;
            out[u + 1] = (uint8_t)dl;
            if (dl) memcpy(out + u + 2, n->val, dl);
        }
        u += 2 + dl;
    } else {
        if (out) out[u] = 0;
        u += 1;
    }
    u += merkle__uvarint_put(out ? out + u : tmp, n->kbits);
    size_t kb = KEY_BYTES(n->kbits);
    if (out && kb) memcpy(out + u, n->key, kb);
    return u + kb;
}

#define PROOF_MAGIC "MTRP"
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
    const tnode *target = lookup(t, key, kbits);
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
            u += node_preimage(n, w ? w + u : NULL);
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
    wstack w = {NULL, 0};
    merkle_status st = MERKLE_ERR_NOMEM;
    if (b == NULL || o == NULL || ws_reserve(&w, 1) != 0) goto fail;
    size_t sp = 0;
    w.f[sp++] = (frame){t->root, 0};
    while (sp) {
        frame *fr = &w.f[sp - 1];
        if (fr->i < fr->n->nkids) {
            tnode *k = fr->n->kids[fr->i++];
            if (ws_reserve(&w, sp + 1) != 0) goto fail;
            w.f[sp++] = (frame){k, 0};
            continue;
        }
        tnode *nd = fr->n;
        sp--;
        size_t need = node_preimage(nd, NULL);
        while (n + need > cap) {
            uint8_t *nb = realloc(b, cap * 2);
            if (nb == NULL) goto fail;
            b = nb;
            cap *= 2;
        }
        if (c + 1 >= ocap) {
            size_t *no = realloc(o, ocap * 2 * sizeof *o);
            if (no == NULL) goto fail;
            o = no;
            ocap *= 2;
        }
        o[c++] = n;
        n += node_preimage(nd, b + n);
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
