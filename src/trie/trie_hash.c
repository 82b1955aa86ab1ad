/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Lazy bottom-up hashing of the trie's changed nodes: from the list of nodes made dirty since
** the last root, or by walking the dirty part of the trie; level by level with the multi-lane
** SHA-256 kernels, optionally on several threads.
*/
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/parallel.h"
#include "trie/trie_node.h"

/* ------------------------------------------------------------------ hashing */

/* ID of n from its children's IDs (which must be current), through the one preimage encoder
** (trie_preimage.h); nothing is allocated. */
static void node_hash(tnode *n, int masked)
{
    merkle__tpre_stream s;
    merkle__tpre_begin(&s, n->nkids);
    if (n->nkids) {
        sync_kid_ids(n, masked);
        const uint8_t *toks = kid_tokens(n), *ids = kid_ids(n);
        for (unsigned i = 0; i < n->nkids; i++)
            merkle__tpre_add_child(&s, toks[i], ids + (size_t)i * MERKLE_TRIE_ID_LEN);
    }
    merkle__tpre_finish(&s, n->id, n->hasval, n->val, n->vlen >= 32 ? 32 : n->vlen, n->key,
                        n->kbits);
    n->dirty = 0;
    n->dmask = 0;
}

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
void merkle__trie_batch_ids(tnode *const *nodes, size_t g, const uint8_t *prefix, size_t plen,
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
            len[i] = merkle__trie_node_preimage(n, NULL);
            const uint8_t *toks = kid_tokens(n);
            MERKLE_ASSERT(n->kids || n->nkids == 0);
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
                    merkle__trie_node_preimage(grp[j], buf + j * L);
                    msgs[j] = buf + j * L;
                }
                merkle__trie_batch_ids(grp, g, NULL, 0, msgs, L);
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
    w->f[sp++] = (frame){ root, 0 };
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
                w->f[sp++] = (frame){ k, 0 };
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
        if (no == h->cap) { /* parallel arrays: one capacity */
            size_t nc = merkle__grow_cap(h->cap, no + 1, sizeof(tnode *));
            if (nc == 0 || merkle__realloc_n(&h->order, nc, sizeof(tnode *)) != 0 ||
                merkle__realloc_n(&h->sorted, nc, sizeof(tnode *)) != 0)
                return -1;
            h->cap = nc;
        }
        h->order[no++] = fin;
    }
    if (merkle__grow(&h->count, &h->ccap, (size_t)maxh + 2, sizeof *h->count) != 0) return -1;
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

static int lvl_worker(void *arg, unsigned share)
{
    (void)share;
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
    return 0;
}

/* A share without a thread: the gate must not wait for it (its chunks go to the others). */
static void lvl_unstarted(void *arg, unsigned share)
{
    (void)share;
    gate_drop(&((lvl_job *)arg)->g);
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
    (void)merkle__parallel_for(want + 1, lvl_worker, lvl_unstarted, &job); /* <= 64: no NOMEM */
    pthread_cond_destroy(&job.g.cv);
    pthread_mutex_destroy(&job.g.mu);
    free(bounds);
    free(next);
    return 0;
}

void merkle__trie_hash_by_length(dent *v, size_t m, dent *tmp, tnode **nodes, int masked,
                                 unsigned threads)
{
    /* LSD radix sort on ~kbits (descending kbits), one byte per pass; a pass whose digit is
    ** the same for every entry is skipped. */
    dent *src = v, *dst = tmp;
    for (unsigned shift = 0; shift < 32 && m > 1; shift += 8) {
        size_t cnt[256] = { 0 };
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
    merkle__trie_hash_by_length(d->v, m, tmp, nodes, t->bf <= 16, threads);
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

static int par_worker(void *arg, unsigned share)
{
    (void)share;
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
    return 0;
}

typedef struct nodevec {
    tnode **v;
    size_t n, cap;
} nodevec;

static int nv_push(nodevec *a, tnode *x)
{
    if (merkle__grow(&a->v, &a->cap, a->n + 1, sizeof *a->v) != 0) return -1;
    a->v[a->n++] = x;
    return 0;
}

/* Split the dirty part of the trie into independent subtrees (the frontier) and the dirty
** nodes above them (upper, in breadth-first order); hash the frontier on `threads` threads,
** then upper in reverse order, so that children always come before their parents. */
static int hash_parallel(merkle_trie *t, unsigned threads)
{
    nodevec cur = { 0 }, next = { 0 }, upper = { 0 };
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
    unsigned want = threads - 1;
    if (want > 64) want = 64;
    if (want > cur.n) want = (unsigned)cur.n;
    /* Shares take subtrees from one counter: one without a thread leaves them to the others. */
    if (merkle__parallel_for(want + 1, par_worker, merkle__parallel_skip, &job) != 0 ||
        atomic_load(&job.failed))
        goto out;
    for (size_t i = upper.n; i-- > 0;) node_hash(upper.v[i], job.masked);
    rc = 0;
out:
    free(cur.v);
    free(next.v);
    free(upper.v);
    return rc;
}

merkle_status merkle_trie_root(uint8_t out[MERKLE_TRIE_ID_LEN], merkle_trie *t, unsigned threads,
                               merkle_error *err)
{
    if (out == NULL || t == NULL)
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid argument");
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
