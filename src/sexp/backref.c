/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Back-reference serialization (docs/formats.md section 3): the clvm_rs HEAD encoder, byte for
** byte, without its quadratic search. docs/clvm.md ("Back-reference serialization") has the
** full argument; in short:
**
** clvm_rs tracks the decoder's parse stack in a ReadCacheLookup (RCL): the stack seen as a
** list ("spine" T_0 = nil, T_i = (x_i . T_{i-1}), root T_m), a reference count per subtree
** and, per subtree, the list of (parent, side) entries in creation order. find_path is a
** breadth-first search upwards from the node over live parents (count > 0) with a seen-set;
** it returns the path to the root found first if it is short enough. That path is the
** shortest one, and among the shortest the lexicographically smallest sequence of entry
** indices read from the node upwards (BFS with ordered adjacency). Identities here are
** hash-consed integers (same id <=> same tree hash), so every comparison answers the same.
**
** Indexed search (default). Instead of scanning parent lists, the encoder keeps
**  - walk records: every push (atom, back reference, cons) is a node of the encoder walk;
**    a union-find with offsets over them gives the depth of any record in the current RCL
**    tree (element j from the top plus the depth inside it) in near-constant time, and each
**    id keeps its records newest first (elements are contiguous and ordered in that list,
**    so a scan stops as soon as the element alone is deeper than the best depth found);
**  - spine records: the stack index of the id on the spine, if any;
**  - "inside" marks: when an id B is pushed as a back reference, every id of B's subtree is
**    marked once (linear in total) and each marked pair is added to its children's lists
**    of parents-inside-copies. Occurrences that are not records all sit inside such copies.
** dist(x) is then the minimum, over x and its ancestors A reached through parents-inside-
** copies (a short breadth-first search pruned by the best depth so far), of the depth of
** A's shallowest record plus the distance from x up to A. The path is rebuilt greedily from
** the node upwards: the candidate parents at each step are the parents of the node's
** shallowest records and its parents-inside-copies one level closer to the root; the one
** whose first entry in clvm_rs's list comes first (the formation number of the parent, and
** the side) is taken, which is exactly the entry clvm_rs's BFS would have used.
**
** The clvm_rs BFS itself (with per-id entry lists) is kept as a reference mode for tests
** (merkle__sexp_br_opts.reference, .crosscheck).
**
** Flooding: both intern tables are open-addressing tables whose bucket is a keyed
** multiply-shift of the key with a per-process random secret (an attacker who grinds tree
** hashes cannot aim at a bucket without knowing it), probe sequences are bounded (a longer
** one re-keys and grows the table), and equality is on the full key. Total search work is
** bounded (work_base + work_per_node per node visited); no real program comes near it, and a
** search over the bound returns "no path", which keeps the output valid.
*/
#include <stdlib.h>
#include <string.h>

#include "sexp/sexp_impl.h"

#define NONE      UINT32_MAX
#define INF       UINT64_MAX
#define SIDE_BIT  0x80000000u
#define MAX_PROBE 48
#define MIN_SL    4

typedef struct table {
    uint32_t *slot; /* id + 1, 0 = empty */
    size_t mask;
    unsigned shift; /* 64 - log2(size) */
    size_t used;
    uint64_t k_mul, k_add;
} table;

typedef struct enc {
    merkle_sexp_store *st;
    merkle__sexp_br_opts *o;
    int reference; /* keep clvm_rs's parent entry lists (reference BFS) */
    uint64_t secret[4];
    unsigned rekeys;
    table atab, ptab;
    /* ids (ids_cap each) */
    size_t nids, ids_cap;
    uint32_t *idl, *idr; /* idl == NONE: atom, idr = its hash index */
    uint32_t *count;     /* RCL reference count */
    uint32_t *first;     /* number of the first formation of the pair in the RCL (NONE: never) */
    uint32_t *rec;       /* newest walk record of the id */
    uint32_t *spine_at;  /* stack index of the id's spine record, NONE */
    uint32_t *fpar;      /* head of its parents-inside-copies list (fp pool) */
    uint8_t *inside;     /* in the subtree of a copied id (marked once) */
    uint32_t *head, *tail, *seen; /* reference BFS only: entry list, seen stamp */
    uint8_t *ahash;               /* 32 bytes per distinct atom */
    size_t nahash, ahash_cap;
    /* reference BFS: parent-list entries */
    uint32_t *ent_parent, *ent_next;
    size_t nent, ent_cap, ent_cap2;
    /* walk records (w_cap each); uf_off of an element (uf_par NONE) is its stack index */
    size_t nw, w_cap;
    uint32_t *w_id, *w_par, *uf_par, *uf_off, *w_next;
    /* the stack: spine[0..m], top[1..m] = walk record of element i */
    size_t m, s_cap;
    uint32_t *spine, *top;
    uint32_t nform;
    /* parents-inside-copies pool */
    uint32_t *fp_parent, *fp_next;
    size_t nfp, fp_cap;
    uint32_t *ms; /* mark_copy's stack */
    size_t ms_cap;
    /* search scratch: the searched set U (index i: id u[i], distance up ut[i], value uval[i],
    ** parent edges udeg[i], first child edge uchild[i]) and a map id -> index */
    uint32_t stamp, rstamp;
    uint32_t *u, *ut, *udeg, *uchild, *kq;
    uint64_t *uval;
    size_t u_cap, kq_cap;
    uint32_t *qm_key, *qm_idx, *qm_st;
    size_t qm_cap;
    uint32_t *ec, *en;
    size_t ne, e_cap;
    uint32_t *ties;
    size_t nties, ties_cap;
    uint32_t tie_spine;
    uint8_t *bits;
    size_t bits_cap;
    uint32_t *bnode, *bprev; /* reference BFS */
    uint8_t *bside;
    size_t b_cap, b_cap2, b_cap3;
    uint8_t *path, *cand;
    size_t path_cap, path_cap2;
    size_t path_len;
    uint64_t budget;
    int cut, too_many;
    /* output */
    uint8_t *out;
    size_t nout, out_cap;
    uint64_t max_out;
} enc;

/* ------------------------------------------------------------------ tables */

static void table_key(enc *e, table *t, int which)
{
    /* Derive fresh keys on each re-key from the process secret and a counter. */
    uint64_t c = (uint64_t)e->rekeys * 0x9e3779b97f4a7c15ULL;
    t->k_mul = (e->secret[which ? 3 : 1] ^ (c * 0xbf58476d1ce4e5b9ULL)) | 1;
    t->k_add = e->secret[which ? 2 : 0] + c;
    if (e->o->unkeyed) { /* comparison mode: fixed Fibonacci hashing, no secret */
        t->k_mul = 0x9e3779b97f4a7c15ULL;
        t->k_add = 0;
    }
}

static int table_init(table *t, size_t size_log2)
{
    t->slot = calloc((size_t)1 << size_log2, sizeof *t->slot);
    if (!t->slot) return -1;
    t->mask = ((size_t)1 << size_log2) - 1;
    t->shift = 64 - (unsigned)size_log2;
    t->used = 0;
    return 0;
}

static inline size_t atom_bucket(const enc *e, const table *t, const uint8_t *h)
{
    uint64_t x = merkle__load_le64(h);
    if (e->o->unkeyed) return (size_t)(x & t->mask); /* identity hash: what grinding attacks */
    return (size_t)((x * t->k_mul + t->k_add) >> t->shift);
}

static inline size_t pair_bucket(const table *t, uint32_t l, uint32_t r)
{
    uint64_t x = ((uint64_t)l << 32) | r;
    return (size_t)((x * t->k_mul + t->k_add) >> t->shift);
}

static size_t bucket_of(enc *e, table *t, uint32_t id)
{
    if (e->idl[id] == NONE) return atom_bucket(e, t, e->ahash + 32 * (size_t)e->idr[id]);
    return pair_bucket(t, e->idl[id], e->idr[id]);
}

/* Rebuild t with 2^log2 slots and (if keyed) fresh keys. 0 or -1 (NOMEM). */
static int table_rebuild(enc *e, table *t, int which, size_t log2)
{
    table old = *t;
    if (table_init(t, log2)) {
        *t = old;
        return -1;
    }
    e->rekeys++;
    table_key(e, t, which);
    for (size_t i = 0; i <= old.mask; i++) {
        uint32_t v = old.slot[i];
        if (!v) continue;
        size_t b = bucket_of(e, t, v - 1);
        while (t->slot[b]) b = (b + 1) & t->mask;
        t->slot[b] = v;
        t->used++;
    }
    free(old.slot);
    return 0;
}

static int new_id(enc *e, uint32_t l, uint32_t r, uint32_t *out)
{
    size_t n = e->nids;
    if (n >= NONE - 1 || n >= SIDE_BIT) return -1;
    if (n == e->ids_cap) { /* parallel arrays: one capacity */
        size_t cap = merkle__grow_cap(e->ids_cap, n + 1, sizeof(uint32_t));
        uint32_t **a32[10] = { &e->idl,      &e->idr,  &e->count, &e->first, &e->rec,
                               &e->spine_at, &e->fpar, &e->head,  &e->tail,  &e->seen };
        if (cap == 0) return -1;
        for (int k = 0; k < (e->reference ? 10 : 7); k++)
            if (merkle__realloc_n(a32[k], cap, sizeof(uint32_t)) != 0) return -1;
        if (merkle__realloc_n(&e->inside, cap, 1) != 0) return -1;
        e->ids_cap = cap;
    }
    e->idl[n] = l;
    e->idr[n] = r;
    e->count[n] = 0;
    e->first[n] = NONE;
    e->rec[n] = NONE;
    e->spine_at[n] = NONE;
    e->fpar[n] = NONE;
    e->inside[n] = 0;
    if (e->reference) {
        e->head[n] = e->tail[n] = NONE;
        e->seen[n] = 0;
    }
    e->nids = n + 1;
    *out = (uint32_t)n;
    return 0;
}

/* Id of the atom with tree hash h (32 bytes), created if new. */
static merkle_status intern_atom(enc *e, const uint8_t *h, uint32_t *out)
{
    table *t = &e->atab;
    for (;;) {
        size_t b = atom_bucket(e, t, h);
        unsigned probes = 0;
        e->o->lookups++;
        for (;;) {
            e->o->probes++;
            uint32_t v = t->slot[b];
            if (!v) break;
            /* Plain memcmp: table equality on public data, not a verification decision. */
            if (memcmp(e->ahash + 32 * (size_t)e->idr[v - 1], h, 32) == 0) {
                *out = v - 1;
                return MERKLE_OK;
            }
            b = (b + 1) & t->mask;
            probes++;
            if (probes > MAX_PROBE && !e->o->unkeyed) break;
        }
        if (probes > MAX_PROBE && !e->o->unkeyed) {
            e->o->rehashes++;
            if (table_rebuild(e, t, 0, 64 - t->shift + 1)) return MERKLE_ERR_NOMEM;
            continue;
        }
        if (2 * (t->used + 1) > t->mask + 1) {
            if (table_rebuild(e, t, 0, 64 - t->shift + 1)) return MERKLE_ERR_NOMEM;
            continue;
        }
        if (merkle__grow(&e->ahash, &e->ahash_cap, e->nahash + 1, 32)) return MERKLE_ERR_NOMEM;
        memcpy(e->ahash + 32 * e->nahash, h, 32);
        uint32_t id;
        if (new_id(e, NONE, (uint32_t)e->nahash, &id)) return MERKLE_ERR_NOMEM;
        e->nahash++;
        t->slot[b] = id + 1;
        t->used++;
        *out = id;
        return MERKLE_OK;
    }
}

/* Id of the pair (l . r) of ids, created if new. */
static merkle_status intern_pair(enc *e, uint32_t l, uint32_t r, uint32_t *out)
{
    table *t = &e->ptab;
    for (;;) {
        size_t b = pair_bucket(t, l, r);
        unsigned probes = 0;
        e->o->pair_lookups++;
        for (;;) {
            e->o->pair_probes++;
            uint32_t v = t->slot[b];
            if (!v) break;
            if (e->idl[v - 1] == l && e->idr[v - 1] == r) {
                *out = v - 1;
                return MERKLE_OK;
            }
            b = (b + 1) & t->mask;
            if (++probes > MAX_PROBE && !e->o->unkeyed) break;
        }
        if (probes > MAX_PROBE || 2 * (t->used + 1) > t->mask + 1) {
            if (probes > MAX_PROBE) e->o->rehashes++;
            if (table_rebuild(e, t, 1, 64 - t->shift + 1)) return MERKLE_ERR_NOMEM;
            continue;
        }
        uint32_t id;
        if (new_id(e, l, r, &id)) return MERKLE_ERR_NOMEM;
        t->slot[b] = id + 1;
        t->used++;
        *out = id;
        return MERKLE_OK;
    }
}

/* ------------------------------------------------------------------ RCL */

static int grow32(uint32_t **p, size_t *cap, size_t need)
{
    return merkle__grow(p, cap, need, sizeof **p);
}

/* Work unit of the searches; 0 when the budget is spent (the search then gives up). */
static inline int work(enc *e)
{
    if (e->budget == 0) {
        e->cut = 1;
        return 0;
    }
    e->budget--;
    e->o->search_steps++;
    return 1;
}

static merkle_status add_parent(enc *e, uint32_t child, uint32_t parent, uint32_t side)
{
    if (e->nent == e->ent_cap) {
        size_t c1 = e->ent_cap, c2 = e->ent_cap2;
        if (merkle__grow(&e->ent_parent, &c1, e->nent + 1, 4) ||
            merkle__grow(&e->ent_next, &c2, e->nent + 1, 4))
            return MERKLE_ERR_NOMEM;
        e->ent_cap = c1 < c2 ? c1 : c2;
        e->ent_cap2 = c2;
    }
    uint32_t k = (uint32_t)e->nent++;
    e->ent_parent[k] = parent | (side ? SIDE_BIT : 0);
    e->ent_next[k] = NONE;
    if (e->tail[child] == NONE)
        e->head[child] = k;
    else
        e->ent_next[e->tail[child]] = k;
    e->tail[child] = k;
    return MERKLE_OK;
}

/* The pair id p is formed in the RCL (clvm_rs adds its two parent entries, left first). */
static merkle_status formed(enc *e, uint32_t p)
{
    if (e->first[p] == NONE) e->first[p] = e->nform;
    e->nform++; /* < 2^32: two formations at most per walk record, < 2^31 of them */
    if (!e->reference) return MERKLE_OK;
    merkle_status s = add_parent(e, e->idl[p], p, 0);
    return s ? s : add_parent(e, e->idr[p], p, 1);
}

/* A new walk record of id x (not yet on the stack). */
static merkle_status new_walk(enc *e, uint32_t x, uint32_t *out)
{
    size_t n = e->nw;
    if (n >= SIDE_BIT - 1) { /* formation numbers stay below 2^32 */
        e->too_many = 1;
        return MERKLE_ERR_LIMIT;
    }
    if (n == e->w_cap) { /* parallel arrays: one capacity */
        size_t cap = merkle__grow_cap(e->w_cap, n + 1, sizeof(uint32_t));
        uint32_t **arrs[5] = { &e->w_id, &e->w_par, &e->uf_par, &e->uf_off, &e->w_next };
        if (cap == 0) return MERKLE_ERR_NOMEM;
        for (int k = 0; k < 5; k++)
            if (merkle__realloc_n(arrs[k], cap, sizeof(uint32_t)) != 0) return MERKLE_ERR_NOMEM;
        e->w_cap = cap;
    }
    e->w_id[n] = x;
    e->w_par[n] = e->uf_par[n] = NONE;
    e->uf_off[n] = 0;
    e->w_next[n] = e->rec[x];
    e->rec[x] = (uint32_t)n;
    e->nw = n + 1;
    *out = (uint32_t)n;
    return MERKLE_OK;
}

/* Push walk record w (id x): ReadCacheLookup::push. */
static merkle_status rcl_push(enc *e, uint32_t w)
{
    uint32_t x = e->w_id[w], old = e->spine[e->m], t;
    merkle_status s = intern_pair(e, x, old, &t);
    if (s) return s;
    if (e->m + 2 > e->s_cap) {
        size_t c1 = e->s_cap, c2 = e->s_cap;
        if (grow32(&e->spine, &c1, e->m + 2) || grow32(&e->top, &c2, e->m + 2))
            return MERKLE_ERR_NOMEM;
        e->s_cap = c1 < c2 ? c1 : c2;
    }
    e->m++;
    e->spine[e->m] = t;
    e->top[e->m] = w;
    e->uf_off[w] = (uint32_t)e->m; /* an element: its stack index */
    e->count[x]++;
    e->count[t]++;
    MERKLE_ASSERT(e->spine_at[t] == NONE); /* T_i is a list of i elements: one record per id */
    e->spine_at[t] = (uint32_t)e->m;
    return formed(e, t);
}

static uint32_t rcl_pop(enc *e)
{
    uint32_t w = e->top[e->m], t = e->spine[e->m];
    e->count[e->w_id[w]]--;
    e->count[t]--;
    e->spine_at[t] = NONE;
    e->m--;
    return w;
}

/* ReadCacheLookup::pop2_and_cons: the two top elements become the pair c. */
static merkle_status rcl_cons(enc *e, uint32_t c)
{
    uint32_t wr = rcl_pop(e), wl = rcl_pop(e);
    e->count[e->w_id[wl]]++;
    e->count[e->w_id[wr]]++;
    merkle_status s = formed(e, c);
    uint32_t w;
    if (s || (s = new_walk(e, c, &w))) return s;
    e->uf_par[wl] = e->uf_par[wr] = e->w_par[wl] = e->w_par[wr] = w;
    e->uf_off[wl] = e->uf_off[wr] = 1;
    return rcl_push(e, w);
}

/* Mark the subtree of the copied id b: each newly marked pair goes into its children's
** parents-inside-copies lists. Each id is marked once over the whole encoding. */
static merkle_status mark_copy(enc *e, uint32_t b)
{
    if (e->inside[b]) return MERKLE_OK;
    e->inside[b] = 1;
    size_t n = 0;
    if (grow32(&e->ms, &e->ms_cap, 1)) return MERKLE_ERR_NOMEM;
    e->ms[n++] = b;
    while (n) {
        uint32_t p = e->ms[--n];
        if (e->idl[p] == NONE) continue;
        uint32_t ch[2] = { e->idl[p], e->idr[p] };
        for (int k = 0; k < 2; k++) {
            uint32_t c = ch[k];
            if (k == 1 && c == ch[0]) break;
            if (e->nfp == e->fp_cap) {
                size_t c1 = e->fp_cap, c2 = e->fp_cap;
                if (grow32(&e->fp_parent, &c1, e->nfp + 1) || grow32(&e->fp_next, &c2, e->nfp + 1))
                    return MERKLE_ERR_NOMEM;
                e->fp_cap = c1 < c2 ? c1 : c2;
            }
            e->fp_parent[e->nfp] = p;
            e->fp_next[e->nfp] = e->fpar[c];
            e->fpar[c] = (uint32_t)e->nfp++;
            if (!e->inside[c]) {
                e->inside[c] = 1;
                if (grow32(&e->ms, &e->ms_cap, n + 1)) return MERKLE_ERR_NOMEM;
                e->ms[n++] = c;
            }
        }
    }
    return MERKLE_OK;
}

/* Serialized length of a path atom for a path of `steps` directions. */
static uint64_t path_ser_len(uint64_t steps)
{
    uint64_t p = (steps + 1 + 7) / 8;
    if (p == 1) return steps < 7 ? 1 : 2;
    return merkle__sexp_atom_ser_len(p, 0x80);
}

static int allowed(uint64_t steps, uint64_t sl)
{
    return 1 + path_ser_len(steps) <= sl;
}

/* Largest number of steps whose path (fe + atom) is no longer than sl (>= MIN_SL). */
static uint64_t max_steps(uint64_t sl)
{
    uint64_t b = sl - 2;
    if (b > ((uint64_t)1 << 40)) b = (uint64_t)1 << 40; /* far beyond any depth */
    while (b > 1 && 1 + merkle__sexp_atom_ser_len(b, 0x80) > sl) b--;
    return 8 * b - 1;
}

/* ------------------------------------------------------------------ indexed search */

/* Depth in the current RCL tree of walk record w; *root = its element's record. */
static uint64_t w_depth(enc *e, uint32_t w, uint32_t *root)
{
    uint64_t off = 0;
    uint32_t r = w;
    while (e->uf_par[r] != NONE) {
        off += e->uf_off[r];
        r = e->uf_par[r];
    }
    uint64_t acc = off;
    for (uint32_t x = w; e->uf_par[x] != NONE && e->uf_par[x] != r;) {
        uint32_t nx = e->uf_par[x], ox = e->uf_off[x];
        e->uf_par[x] = r;
        e->uf_off[x] = (uint32_t)acc;
        acc -= ox;
        x = nx;
    }
    *root = r;
    return (uint64_t)(e->m - e->uf_off[r] + 1) + off;
}

/* Order of the parent p of x in clvm_rs's entry list of x: its first formation, then the side. */
static inline uint64_t entry_key(const enc *e, uint32_t x, uint32_t p)
{
    MERKLE_ASSERT(e->first[p] != NONE && (e->idl[p] == x || e->idr[p] == x));
    return 2 * (uint64_t)e->first[p] + (e->idl[p] == x ? 0 : 1);
}

/* Smallest depth <= bound of a current record of id x, INF if none. With want, the walk
** records at that depth go to e->ties and a spine record at that depth to e->tie_spine.
** Records of one element keep their relative depths and their parents forever, so of each
** element only one record can ever be chosen: the shallowest, and of equally shallow ones the
** one whose parent comes first in clvm_rs's list. The others are dropped from the list as the
** scan meets them (each record is dropped at most once), so a scan visits at most one record
** per element, and only elements no deeper than the answer. */
static uint64_t rec_scan(enc *e, uint32_t x, uint64_t bound, int want)
{
    uint64_t best = INF;
    if (want) {
        e->nties = 0;
        e->tie_spine = NONE;
    }
    uint32_t si = e->spine_at[x];
    if (si != NONE && e->m - si <= bound) {
        best = e->m - si;
        if (want) e->tie_spine = si;
    }
    uint32_t *link = &e->rec[x], *glink = NULL, groot = NONE;
    uint64_t gmin = 0, gkey = 0;
    int gtie = 0; /* the group's record is the last entry of e->ties */
    while (*link != NONE) {
        if (!work(e)) return INF;
        uint32_t w = *link, r;
        uint64_t d = w_depth(e, w, &r);
        uint64_t j = e->m - e->uf_off[r] + 1;
        if (j > bound || j > best) break;
        uint64_t off = d - j;
        /* off 0: the element itself, alone at that depth in its group (its parent is a spine
        ** node and changes); otherwise the parent is fixed */
        uint64_t key = off ? entry_key(e, x, e->w_id[e->w_par[w]]) : 0;
        if (r == groot) {
            if (off > gmin || (off == gmin && key >= gkey)) {
                *link = e->w_next[w];
                continue;
            }
            *glink = w; /* w beats the group's record: drop that one */
            if (gtie) e->nties--;
            gtie = 0;
        } else {
            groot = r;
            glink = link;
            gtie = 0;
        }
        gmin = off;
        gkey = key;
        if (d <= bound && d < best) {
            best = d;
            if (want) {
                e->nties = 0;
                e->tie_spine = NONE;
            }
        }
        if (want && d == best) {
            if (grow32(&e->ties, &e->ties_cap, e->nties + 1)) {
                e->cut = 1; /* out of memory: give up this search (output stays valid) */
                return INF;
            }
            e->ties[e->nties++] = w;
            gtie = 1;
        }
        link = &e->w_next[w];
    }
    return best;
}

/* Candidate parent p of n: keep it if clvm_rs's first entry for it in n's list comes first. */
static inline int consider(const enc *e, uint32_t n, uint32_t p, uint64_t *bkey, uint32_t *bp)
{
    uint64_t key = entry_key(e, n, p);
    if (key >= *bkey) return 0;
    *bkey = key;
    *bp = p;
    return 1;
}

#define Q_EXPANDED 0x80000000u

/* Slot of id x in the per-query map (keyed multiply-shift, linear probing; an empty slot is
** one whose stamp is not the query's). */
static inline size_t qm_slot(const enc *e, uint32_t x)
{
    size_t mask = e->qm_cap - 1, b = (size_t)(((uint64_t)x * (e->secret[1] | 1)) >> 40) & mask;
    while (e->qm_st[b] == e->stamp && e->qm_key[b] != x) b = (b + 1) & mask;
    return b;
}

/* U index of id x in this query, NONE if x is not in U. */
static inline uint32_t qm_get(const enc *e, uint32_t x)
{
    size_t b = qm_slot(e, x);
    return e->qm_st[b] == e->stamp ? e->qm_idx[b] : NONE;
}

/* Add id x (not in U) as U index i, growing the map to keep it at most half full. */
static merkle_status qm_add(enc *e, uint32_t x, uint32_t i)
{
    if (2 * ((size_t)i + 1) > e->qm_cap) {
        size_t cap = e->qm_cap ? 2 * e->qm_cap : 64;
        uint32_t *k = malloc(cap * sizeof *k), *v = malloc(cap * sizeof *v),
                 *st = calloc(cap, sizeof *st);
        if (!k || !v || !st) {
            free(k);
            free(v);
            free(st);
            return MERKLE_ERR_NOMEM;
        }
        free(e->qm_key);
        free(e->qm_idx);
        free(e->qm_st);
        e->qm_key = k;
        e->qm_idx = v;
        e->qm_st = st;
        e->qm_cap = cap;
        for (uint32_t j = 0; j < i; j++) { /* re-insert the ids already in U */
            size_t b = qm_slot(e, e->u[j]);
            e->qm_st[b] = e->stamp;
            e->qm_key[b] = e->u[j];
            e->qm_idx[b] = j;
        }
    }
    size_t b = qm_slot(e, x);
    e->qm_st[b] = e->stamp;
    e->qm_key[b] = x;
    e->qm_idx[b] = i;
    return MERKLE_OK;
}

/* Append id x to U (up-distance t, value r). */
static merkle_status u_add(enc *e, size_t *nu, uint32_t x, uint64_t t, uint64_t r)
{
    size_t i = *nu;
    if (i >= NONE - 1) return MERKLE_ERR_NOMEM;
    if (i == e->u_cap) { /* parallel arrays: one capacity */
        size_t cap = merkle__grow_cap(e->u_cap, i + 1, sizeof(uint64_t));
        uint32_t **a32[4] = { &e->u, &e->ut, &e->udeg, &e->uchild };
        if (cap == 0) return MERKLE_ERR_NOMEM;
        for (int k = 0; k < 4; k++)
            if (merkle__realloc_n(a32[k], cap, sizeof(uint32_t)) != 0) return MERKLE_ERR_NOMEM;
        if (merkle__realloc_n(&e->uval, cap, sizeof(uint64_t)) != 0) return MERKLE_ERR_NOMEM;
        e->u_cap = cap;
    }
    e->u[i] = x;
    e->ut[i] = (uint32_t)t;
    e->uval[i] = r;
    e->udeg[i] = 0;
    e->uchild[i] = NONE;
    *nu = i + 1;
    return qm_add(e, x, (uint32_t)i);
}

/* find_path with the index: *found = 1 and e->path[0..path_len) on success. */
static merkle_status fast_find(enc *e, uint32_t h, uint64_t sl, int *found)
{
    *found = 0;
    if (sl < MIN_SL) return MERKLE_OK;
    e->cut = 0;
    uint64_t D = max_steps(sl);
    if (++e->stamp == 0) {
        if (e->qm_st) memset(e->qm_st, 0, e->qm_cap * sizeof *e->qm_st);
        e->stamp = 1;
    }
    /* 1. dist(h): records of h and of its ancestors through parents-inside-copies. */
    uint64_t best = rec_scan(e, h, D, 0);
    if (e->cut) return MERKLE_OK;
    size_t nu = 0;
    e->ne = 0;
    merkle_status s = u_add(e, &nu, h, 0, best);
    if (s) return s;
    for (size_t lo = 0; lo < nu; lo++) {
        uint32_t n = e->u[lo];
        uint64_t t = e->ut[lo];
        if (e->fpar[n] == NONE || t + 1 >= best || t + 1 > D) continue;
        e->ut[lo] |= Q_EXPANDED;
        if (lo == 0) e->o->copy_searches++;
        for (uint32_t k = e->fpar[n]; k != NONE; k = e->fp_next[k]) {
            if (!work(e)) return MERKLE_OK;
            uint32_t p = e->fp_parent[k];
            if (e->count[p] == 0) {
                e->o->dead_copy_parents++;
                continue;
            }
            uint32_t pi = qm_get(e, p);
            if (pi == NONE) {
                uint64_t cap = best < D ? best : D, r = INF;
                if (cap > t + 1) r = rec_scan(e, p, cap - (t + 1), 0);
                if (e->cut) return MERKLE_OK;
                pi = (uint32_t)nu;
                if ((s = u_add(e, &nu, p, t + 1, r)) != MERKLE_OK) return s;
                if (r != INF && t + 1 + r < best) best = t + 1 + r;
            }
            size_t c1 = e->e_cap, c2 = e->e_cap;
            if (grow32(&e->ec, &c1, e->ne + 1) || grow32(&e->en, &c2, e->ne + 1))
                return MERKLE_ERR_NOMEM;
            e->e_cap = c1 < c2 ? c1 : c2;
            e->ec[e->ne] = (uint32_t)lo;
            e->en[e->ne] = e->uchild[pi];
            e->uchild[pi] = (uint32_t)e->ne++;
            e->udeg[lo]++;
        }
    }
    if (best > D) return MERKLE_OK;
    /* 2. exact dist for the searched set: parents before children (Kahn). */
    if (nu > 1) {
        if (grow32(&e->kq, &e->kq_cap, nu)) return MERKLE_ERR_NOMEM;
        size_t qh = 0, qt = 0;
        for (size_t i = 0; i < nu; i++)
            if (e->udeg[i] == 0) e->kq[qt++] = (uint32_t)i;
        while (qh < qt) {
            uint32_t p = e->kq[qh++];
            uint64_t vp = e->uval[p];
            for (uint32_t x = e->uchild[p]; x != NONE; x = e->en[x]) {
                uint32_t ch = e->ec[x];
                if (vp != INF && vp + 1 < e->uval[ch]) e->uval[ch] = vp + 1;
                if (--e->udeg[ch] == 0) e->kq[qt++] = ch;
            }
        }
    }
    /* 3. the path, from h upwards: at each step the parent one level closer whose first
    ** entry in clvm_rs's list of the current node comes first. */
    if (best + 1 > e->bits_cap) {
        size_t c = e->bits_cap;
        if (merkle__grow(&e->bits, &c, best + 1, 1)) return MERKLE_ERR_NOMEM;
        e->bits_cap = c;
    }
    uint32_t n = h;
    for (uint64_t k = best; k > 0; k--) {
        if (!work(e)) return MERKLE_OK;
        uint64_t bkey = INF;
        uint32_t bp = NONE, from = 0; /* 1: parents-inside-copies, 2: spine record */
        uint32_t ni = qm_get(e, n);
        if (ni != NONE && (e->ut[ni] & Q_EXPANDED)) {
            for (uint32_t x = e->fpar[n]; x != NONE; x = e->fp_next[x]) {
                if (!work(e)) return MERKLE_OK;
                uint32_t p = e->fp_parent[x];
                if (!e->count[p]) continue;
                uint32_t pi = qm_get(e, p);
                if (pi != NONE && e->uval[pi] == k - 1) consider(e, n, p, &bkey, &bp);
            }
            if (bp != NONE) from = 1;
        }
        if (rec_scan(e, n, k, 1) == k) {
            for (size_t i = 0; i < e->nties; i++) {
                uint32_t w = e->ties[i];
                uint32_t p = e->w_par[w] != NONE ? e->w_id[e->w_par[w]] : e->spine[e->uf_off[w]];
                if (consider(e, n, p, &bkey, &bp)) from = 0;
            }
            if (e->tie_spine != NONE && consider(e, n, e->spine[e->tie_spine + 1], &bkey, &bp))
                from = 2;
        }
        if (e->cut) return MERKLE_OK;
        if (bp == NONE) {              /* cannot happen: every step has a parent one level closer */
            MERKLE_ASSERT(bp != NONE); /* indexed search: no parent one level closer */
            e->o->internal_errors++;
            return MERKLE_OK;
        }
        if (from == 1) e->o->copy_steps++;
        if (from == 2) e->o->spine_steps++;
        e->bits[best - k] = (uint8_t)(bkey & 1);
        n = bp;
    }
    if (n != e->spine[e->m]) {
        MERKLE_ASSERT(n == e->spine[e->m]); /* indexed search: the path ends at the root */
        e->o->internal_errors++;
        return MERKLE_OK;
    }
    /* path atom: the step into the root is bit 0, the first step from h bit best-1 */
    size_t nb = (size_t)((best + 8) / 8);
    if (nb > e->path_cap) {
        size_t c = e->path_cap;
        if (merkle__grow(&e->path, &c, nb, 1)) return MERKLE_ERR_NOMEM;
        e->path_cap = c;
    }
    memset(e->path, 0, nb);
    for (uint64_t i = 0; i < best; i++)
        if (e->bits[best - 1 - i]) e->path[nb - 1 - i / 8] |= (uint8_t)(1u << (i % 8));
    e->path[nb - 1 - best / 8] |= (uint8_t)(1u << (best % 8));
    e->path_len = nb;
    *found = 1;
    return MERKLE_OK;
}

/* ------------------------------------------------------------------ reference search */

/* Path bytes of BFS entry i at depth `steps` into buf (length (steps+8)/8). */
static void encode_path(const enc *e, size_t i, size_t steps, uint8_t *buf)
{
    size_t nb = (steps + 1 + 7) / 8;
    memset(buf, 0, nb);
    size_t k = 0;
    while (k < steps) {
        if (e->bside[i]) buf[nb - 1 - k / 8] |= (uint8_t)(1u << (k % 8));
        i = e->bprev[i];
        k++;
    }
    buf[nb - 1 - steps / 8] |= (uint8_t)(1u << (steps % 8));
}

static merkle_status bfs_reserve(enc *e, size_t need)
{
    if (need <= e->b_cap) return MERKLE_OK;
    size_t c1 = e->b_cap, c2 = e->b_cap2, c3 = e->b_cap3;
    if (merkle__grow(&e->bnode, &c1, need, 4) || merkle__grow(&e->bprev, &c2, need, 4) ||
        merkle__grow(&e->bside, &c3, need, 1))
        return MERKLE_ERR_NOMEM;
    e->b_cap = c1 < c2 ? (c1 < c3 ? c1 : c3) : (c2 < c3 ? c2 : c3);
    e->b_cap2 = c2;
    e->b_cap3 = c3;
    return MERKLE_OK;
}

/* clvm_rs find_path itself (breadth-first over the entry lists): reference mode. */
static merkle_status ref_find(enc *e, uint32_t h, uint64_t sl, int *found)
{
    *found = 0;
    e->cut = 0;
    if (sl < MIN_SL) return MERKLE_OK;
    if (++e->rstamp == 0) { /* wrapped: clear the stamps */
        memset(e->seen, 0, e->nids * sizeof *e->seen);
        e->rstamp = 1;
    }
    merkle_status s = bfs_reserve(e, 1);
    if (s) return s;
    uint32_t root = e->spine[e->m];
    e->seen[h] = e->rstamp;
    e->bnode[0] = h;
    e->bprev[0] = NONE;
    e->bside[0] = 0;
    size_t n = 1, lo = 0, hi = 1, steps = 0;
    while (lo < hi) {
        /* Expanding a level is useless once its children could not be referenced (clvm_rs
        ** goes deeper but accepts nothing there); the level itself is scanned to its end
        ** for the root. */
        int expand = allowed(steps + 1, sl);
        for (size_t i = lo; i < hi; i++) {
            uint32_t node = e->bnode[i];
            if (node == root) { /* the root is one node: found once per search */
                size_t nb = (steps + 8) / 8;
                if (nb > e->path_cap) {
                    size_t c = e->path_cap;
                    if (merkle__grow(&e->path, &c, nb, 1)) return MERKLE_ERR_NOMEM;
                    e->path_cap = c;
                }
                encode_path(e, i, steps, e->path);
                e->path_len = nb;
                *found = 1;
                return MERKLE_OK;
            }
            if (!expand) continue;
            for (uint32_t k = e->head[node]; k != NONE; k = e->ent_next[k]) {
                if (!work(e)) return MERKLE_OK;
                uint32_t parent = e->ent_parent[k] & ~SIDE_BIT;
                if (e->count[parent] == 0 || e->seen[parent] == e->rstamp) continue;
                if ((s = bfs_reserve(e, n + 1)) != MERKLE_OK) return s;
                e->bnode[n] = parent;
                e->bprev[n] = (uint32_t)i;
                e->bside[n] = (uint8_t)(e->ent_parent[k] >> 31);
                n++;
                e->seen[parent] = e->rstamp;
            }
        }
        if (!expand) return MERKLE_OK;
        lo = hi;
        hi = n;
        steps++;
    }
    return MERKLE_OK;
}

/* The search the encoder uses; crosscheck runs both and counts disagreements. */
static merkle_status find_path(enc *e, uint32_t h, uint64_t sl, int *found)
{
    merkle_status s;
    if (!e->o->crosscheck) {
        s = e->reference ? ref_find(e, h, sl, found) : fast_find(e, h, sl, found);
        if (s == MERKLE_OK && e->cut) e->o->budget_cuts++;
        return s;
    }
    int f1, f2;
    if ((s = fast_find(e, h, sl, &f1)) != MERKLE_OK) return s;
    int cut1 = e->cut;
    size_t l1 = f1 ? e->path_len : 0;
    if (l1 > e->path_cap2) {
        size_t c = e->path_cap2;
        if (merkle__grow(&e->cand, &c, l1, 1)) return MERKLE_ERR_NOMEM;
        e->path_cap2 = c;
    }
    if (f1) memcpy(e->cand, e->path, l1);
    if ((s = ref_find(e, h, sl, &f2)) != MERKLE_OK) return s;
    if (cut1 || e->cut) e->o->budget_cuts++;
    if (f1 != f2 || (f1 && (l1 != e->path_len || memcmp(e->cand, e->path, l1) != 0)))
        e->o->mismatches++;
    *found = f2;
    return MERKLE_OK;
}

/* ------------------------------------------------------------------ output */

static merkle_status emit(enc *e, const uint8_t *data, size_t n, merkle_error *error)
{
    if ((uint64_t)e->nout + n > e->max_out)
        return merkle__fail(error, MERKLE_ERR_LIMIT, 0, e->nout,
                            "back-reference serialization exceeds the output limit (%llu "
                            "bytes)",
                            (unsigned long long)e->max_out);
    if (merkle__grow(&e->out, &e->out_cap, e->nout + n, 1)) return MERKLE_ERR_NOMEM;
    memcpy(e->out + e->nout, data, n);
    e->nout += n;
    return MERKLE_OK;
}

static merkle_status emit_atom(enc *e, const uint8_t *data, uint64_t len, merkle_error *error)
{
    uint8_t pre[6];
    if (len == 0 || (len == 1 && data[0] < 0x80)) {
        pre[0] = (uint8_t)(len ? data[0] : 0x80);
        return emit(e, pre, 1, error);
    }
    size_t k = merkle_sexp_atom_prefix(pre, len);
    merkle_status s = emit(e, pre, k, error);
    return s ? s : emit(e, data, (size_t)len, error);
}

static void enc_free(enc *e)
{
    void *ps[] = { e->count,      e->head,     e->tail,      e->seen,      e->idl,    e->idr,
                   e->rec,        e->spine_at, e->fpar,      e->first,     e->inside, e->ahash,
                   e->ent_parent, e->ent_next, e->atab.slot, e->ptab.slot, e->w_id,   e->w_par,
                   e->uf_par,     e->uf_off,   e->w_next,    e->spine,     e->top,    e->fp_parent,
                   e->fp_next,    e->u,        e->ut,        e->udeg,      e->uchild, e->uval,
                   e->kq,         e->qm_key,   e->qm_idx,    e->qm_st,     e->ec,     e->en,
                   e->ms,         e->ties,     e->bits,      e->bnode,     e->bprev,  e->bside,
                   e->path,       e->cand };
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) free(ps[i]);
}

static size_t log2_for(size_t n)
{
    size_t l = 10;
    while (((size_t)1 << l) < 2 * n + 2 && l < 40) l++;
    return l;
}

merkle_status merkle__sexp_serialize_backrefs(uint8_t **out, size_t *out_len, merkle_sexp_store *st,
                                              merkle_sexp_node node, uint64_t max_out,
                                              merkle__sexp_br_opts *opts, merkle_error *error)
{
    if (!out || !out_len || !st || !merkle__sexp_valid(st, node))
        return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "serialize: bad argument");
    merkle__sexp_br_opts local;
    if (!opts) {
        memset(&local, 0, sizeof local);
        opts = &local;
    }
    enc e;
    memset(&e, 0, sizeof e);
    e.st = st;
    e.o = opts;
    e.reference = opts->reference || opts->crosscheck;
    e.max_out = max_out ? max_out : (uint64_t)SIZE_MAX;
    merkle__sexp_secret(e.secret);
    uint64_t per = opts->work_per_node ? opts->work_per_node : MERKLE__SEXP_BR_WORK_PER_NODE;
    e.budget = opts->work_base ? opts->work_base : MERKLE__SEXP_BR_WORK_BASE;

    merkle_status s = merkle__sexp_memo_reserve(st);
    uint32_t *pid = NULL; /* id of each reachable pair */
    uint64_t *psl = NULL; /* serialized length of each pair */
    uint8_t *mark = NULL; /* reachable pairs */
    uint32_t *wstack = NULL, *ops = NULL;
    size_t nw = 0, w_cap = 0, nops = 0, ops_cap = 0;
    if (s) goto out;
    s = MERKLE_ERR_NOMEM;
    size_t npairs = (node & MERKLE__SEXP_ATOM_BIT) ? 0 : (size_t)node + 1;
    size_t reach = 0;
    if (npairs) {
        mark = calloc(npairs, 1);
        pid = malloc(npairs * sizeof *pid);
        if (!mark || !pid) goto out;
        if (merkle__grow(&wstack, &w_cap, 64, 4)) goto out;
        wstack[nw++] = node;
        mark[node] = 1;
        while (nw) {
            uint32_t i = wstack[--nw];
            reach++;
            for (int side = 0; side < 2; side++) {
                merkle_sexp_node c = st->pairs[2 * (size_t)i + (size_t)side];
                if (!(c & MERKLE__SEXP_ATOM_BIT) && !mark[c]) {
                    mark[c] = 1;
                    if (merkle__grow(&wstack, &w_cap, nw + 1, 4)) goto out;
                    wstack[nw++] = c;
                }
            }
        }
        if ((s = merkle__sexp_pair_lengths(&psl, st, node)) != MERKLE_OK) goto out;
        s = MERKLE_ERR_NOMEM;
    }
    if (table_init(&e.atab, log2_for(reach / 2 + 16)) ||
        table_init(&e.ptab, log2_for(2 * reach + 16)))
        goto out;
    table_key(&e, &e.atab, 0);
    table_key(&e, &e.ptab, 1);
    {
        uint8_t nil_hash[32];
        uint32_t nil;
        merkle__sexp_sha_tagged(nil_hash, 0x01, NULL, 0);
        if ((s = intern_atom(&e, nil_hash, &nil)) != MERKLE_OK) goto out;
        s = MERKLE_ERR_NOMEM;
        if (grow32(&e.spine, &e.s_cap, 2)) goto out;
        size_t c2 = 0;
        if (grow32(&e.top, &c2, 2)) goto out;
        e.s_cap = e.s_cap < c2 ? e.s_cap : c2;
        e.m = 0;
        e.spine[0] = nil; /* ReadCacheLookup::new: the empty stack is nil, count 1 */
        e.spine_at[nil] = 0;
        e.count[nil] = 1;
    }
    /* Ids bottom-up (index order is topological). */
    for (size_t i = 0; i < npairs; i++) {
        if (!mark[i]) continue;
        uint32_t cid[2];
        for (int side = 0; side < 2; side++) {
            merkle_sexp_node c = st->pairs[2 * i + (size_t)side];
            if (c & MERKLE__SEXP_ATOM_BIT) {
                const uint8_t *h = merkle__sexp_atom_hash(st, c & ~MERKLE__SEXP_ATOM_BIT);
                if ((s = intern_atom(&e, h, &cid[side])) != MERKLE_OK) goto out;
            } else {
                cid[side] = pid[c];
            }
        }
        if ((s = intern_pair(&e, cid[0], cid[1], &pid[i])) != MERKLE_OK) goto out;
    }
    /* The encoder walk (ser_br.rs node_to_stream_backrefs). ops: NONE = Parse, else Cons of
    ** the pair with that id. */
    s = MERKLE_ERR_NOMEM;
    if (merkle__grow(&wstack, &w_cap, 64, 4) || merkle__grow(&ops, &ops_cap, 64, 4)) goto out;
    nw = 0;
    wstack[nw++] = node;
    ops[nops++] = NONE;
    while (nw) {
        merkle_sexp_node x = wstack[--nw];
        nops--; /* the Parse for x */
        uint32_t id;
        uint64_t sl;
        const uint8_t *adata = NULL;
        uint64_t alen = 0;
        if (x & MERKLE__SEXP_ATOM_BIT) {
            size_t ai = x & ~MERKLE__SEXP_ATOM_BIT;
            alen = st->atoms[2 * ai + 1];
            adata = merkle__sexp_atom_data(st, ai);
            sl = merkle__sexp_atom_ser_len(alen, alen ? adata[0] : 0);
            if ((s = intern_atom(&e, merkle__sexp_atom_hash(st, ai), &id)) != MERKLE_OK) goto out;
        } else {
            /* pid[] is set for every marked pair, and the walk only reaches marked ones */
            id = pid[x]; // NOLINT(clang-analyzer-core.uninitialized.Assign)
            sl = psl[x];
        }
        e.budget = e.budget + per < e.budget ? INF : e.budget + per;
        opts->nodes++;
        int found;
        if ((s = find_path(&e, id, sl, &found)) != MERKLE_OK) goto out;
        uint32_t w;
        if (found) {
            static const uint8_t fe = 0xfe;
            if ((s = emit(&e, &fe, 1, error)) || (s = emit_atom(&e, e.path, e.path_len, error)) ||
                (s = new_walk(&e, id, &w)) || (s = rcl_push(&e, w)) || (s = mark_copy(&e, id)))
                goto out;
        } else if (!(x & MERKLE__SEXP_ATOM_BIT)) {
            static const uint8_t ff = 0xff;
            if ((s = emit(&e, &ff, 1, error)) != MERKLE_OK) goto out;
            s = MERKLE_ERR_NOMEM;
            if (merkle__grow(&wstack, &w_cap, nw + 2, 4) ||
                merkle__grow(&ops, &ops_cap, nops + 3, 4))
                goto out;
            wstack[nw++] = st->pairs[2 * (size_t)x + 1];
            wstack[nw++] = st->pairs[2 * (size_t)x];
            ops[nops++] = id;
            ops[nops++] = NONE;
            ops[nops++] = NONE;
        } else {
            if ((s = emit_atom(&e, adata, alen, error)) || (s = new_walk(&e, id, &w)) ||
                (s = rcl_push(&e, w)))
                goto out;
        }
        while (nops && ops[nops - 1] != NONE) {
            uint32_t c = ops[--nops];
            if ((s = rcl_cons(&e, c)) != MERKLE_OK) goto out;
        }
    }
    s = MERKLE_OK;
out:
    if (s == MERKLE_OK) {
        *out = e.out;
        *out_len = e.nout;
        e.out = NULL;
    } else {
        free(e.out);
        if (s == MERKLE_ERR_NOMEM) merkle__fail(error, s, 0, 0, "out of memory");
        if (e.too_many)
            merkle__fail(error, s, 0, e.nout,
                         "back-reference serialization: more than 2^31 - 2 nodes to encode");
    }
    enc_free(&e);
    free(pid);
    free(psl);
    free(mark);
    free(wstack);
    free(ops);
    return s;
}

merkle_status merkle_sexp_serialize_backrefs_alloc(uint8_t **out, size_t *out_len,
                                                   merkle_sexp_store *store, merkle_sexp_node node,
                                                   uint64_t max_out, merkle_error *error)
{
    return merkle__sexp_serialize_backrefs(out, out_len, store, node, max_out, NULL, error);
}
