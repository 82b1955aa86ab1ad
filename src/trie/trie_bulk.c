/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Batch put: keys radix-sorted, then either a bulk build of an empty trie (children before
** parents, leaf IDs in lanes) or a prefetching apply of the sorted keys to an existing trie.
*/
#include <stdlib.h>
#include <string.h>

#include "trie/trie_node.h"

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
#ifdef MADV_HUGEPAGE
    void *mem = NULL;
    if (size < 2 * HUGE_PAGE) return malloc(size);
    if (posix_memalign(&mem, HUGE_PAGE, size) != 0) return NULL;
    (void)madvise(mem, size, MADV_HUGEPAGE);
    return mem;
#else
    return malloc(size);
#endif
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
    size_t pos[256] = { 0 };
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
        uint8_t tmp[8] = { 0 };
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
        a[i] = (sort_item){ v, k, val, (uint32_t)lens[i], (uint32_t)vlens[i], i };
    }
    *arena = ar;
    size_t s1[257], s2[257];
    byte_pass(b, a, n, 56, s1);          /* a -> b on the first byte */
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

#define BULK_WIN     64
#define BULK_PAYLOAD (32 + MERKLE__UVARINT_MAX + 64) /* leaves with keys up to 64 bytes */

/*
** Multi-buffer hashing for one window of the bulk build: the value digests of win[0..m) (in
** groups of equal value length) into dig, then the IDs of the new leaves lf[0..m) (NULL
** entries skipped) whose preimage is short enough, in groups of equal preimage shape, with
** merkle_sha256_batch (several messages per SIMD/SHA-NI pass). A leaf hashed here is clean.
*/
static void bulk_value_digests(const sort_item *win, size_t m, uint8_t dig[][32])
{
    uint8_t done[BULK_WIN] = { 0 };
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
        /* A leaf's preimage (trie_preimage.h) is count 0 || 01 dl || digest || key part: the
        ** first three bytes are the batch prefix (below), the rest the payload. */
        size_t d = n->vlen >= 32 ? 32 : n->vlen;
        if (d) memcpy(pay[i], n->val, d);
        size_t u = d + merkle__tpre_key_head(pay[i] + d, n->kbits);
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
        uint8_t prefix[3];
        size_t pl = merkle__tpre_count(prefix, 0);
        pl += merkle__tpre_value_head(prefix + pl, 1, dl[a]);
        size_t len = plen[a];
        for (size_t b = a; b < m; b++) {
            if (ok[b] && plen[b] == len && dl[b] == dl[a]) {
                ok[b] = 0;
                msgs[g] = pay[b];
                grp[g++] = lf[b];
            }
            if (g == 16 || (g && b + 1 == m)) { /* a full group, or the rest at the end */
                merkle__trie_batch_ids(grp, g, prefix, pl, msgs, len);
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
    tnode **st;   /* open nodes, root first */
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
    merkle__trie_hash_by_length(b->pend, b->np, b->ptmp, b->pnodes, b->masked, 1);
    b->np = 0;
}

static int bulk_open(bulk *b, tnode *n)
{
    if (b->sp == b->scap) { /* parallel arrays: one capacity */
        size_t nc = merkle__grow_cap(b->scap, b->sp + 1, sizeof(size_t));
        if (nc == 0 || merkle__realloc_n(&b->st, nc, sizeof *b->st) != 0 ||
            merkle__realloc_n(&b->mark, nc, sizeof *b->mark) != 0)
            return -1;
        b->scap = nc;
    }
    b->st[b->sp] = n;
    b->mark[b->sp] = b->kt;
    b->sp++;
    return 0;
}

static int bulk_kid(bulk *b, tnode *c, unsigned tok)
{
    if (merkle__grow(&b->ks, &b->kcap, b->kt + 1, sizeof *b->ks) != 0) return -1;
    b->ks[b->kt++] = (kent){ c, tok };
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
        b->pend[b->np++] = (dent){ c, c->kbits };
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
            if (node_set_value_d(t, leaf, it[i].val, it[i].vlen,
                                 it[i].vlen >= 32 ? dig[j] : NULL) != 0)
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
                        if (bulk_kid(&b, c, token_at(c->key, d, t->ts)) != 0 ||
                            bulk_open(&b, br) != 0) {
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
        if (c == NULL || bulk_kid(&b, c, token_at(c->key, b.st[b.sp - 1]->kbits, t->ts)) != 0)
            goto fail;
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
    default: return;
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
            for (size_t k = i + 1; k < ahead; k++) pcur_step(&cur[k % PF_LANES], t);
            size_t q = it[i].idx;
            merkle_status st = merkle__trie_put_one(t, it[i].key, it[i].klen, it[i].val, it[i].vlen,
                                                    it[i].vlen >= 32 ? dig[j] : NULL);
            if (st != MERKLE_OK)
                return merkle__fail(err, st, 0, q, "item %zu: %s", q, merkle_strerror(st));
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
    if (t == NULL ||
        (n && (keys == NULL || key_lens == NULL || values == NULL || value_lens == NULL)))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid argument");
    for (size_t i = 0; i < n; i++) {
        if ((keys[i] == NULL && key_lens[i]) || (values[i] == NULL && value_lens[i]))
            return merkle__fail(err, MERKLE_ERR_ARG, 0, i, "item %zu: NULL with a non-zero length",
                                i);
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
        if (rc != 0) st = merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    } else {
        st = batch_apply(t, it, n, err);
    }
    free(it);
    free(arena);
    return st;
}
