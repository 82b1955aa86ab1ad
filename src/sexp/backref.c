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

#include "sexp/backref_impl.h"

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
    if (e->ids.idl[id] == NONE)
        return atom_bucket(e, t, e->ids.ahash + 32 * (size_t)e->ids.idr[id]);
    return pair_bucket(t, e->ids.idl[id], e->ids.idr[id]);
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
    size_t n = e->ids.nids;
    if (n >= NONE - 1 || n >= SIDE_BIT) return -1;
    if (n == e->ids.ids_cap) { /* parallel arrays: one capacity */
        size_t cap = merkle__grow_cap(e->ids.ids_cap, n + 1, sizeof(uint32_t));
        uint32_t **a32[10] = { &e->ids.idl,  &e->ids.idr,      &e->ids.count, &e->ids.first,
                               &e->ids.rec,  &e->ids.spine_at, &e->ids.fpar,  &e->ref.head,
                               &e->ref.tail, &e->ref.seen };
        if (cap == 0) return -1;
        for (int k = 0; k < (e->reference ? 10 : 7); k++)
            if (merkle__realloc_n(a32[k], cap, sizeof(uint32_t)) != 0) return -1;
        if (merkle__realloc_n(&e->ids.inside, cap, 1) != 0) return -1;
        e->ids.ids_cap = cap;
    }
    e->ids.idl[n] = l;
    e->ids.idr[n] = r;
    e->ids.count[n] = 0;
    e->ids.first[n] = NONE;
    e->ids.rec[n] = NONE;
    e->ids.spine_at[n] = NONE;
    e->ids.fpar[n] = NONE;
    e->ids.inside[n] = 0;
    if (e->reference) {
        e->ref.head[n] = e->ref.tail[n] = NONE;
        e->ref.seen[n] = 0;
    }
    e->ids.nids = n + 1;
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
            if (memcmp(e->ids.ahash + 32 * (size_t)e->ids.idr[v - 1], h, 32) == 0) {
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
        if (merkle__grow(&e->ids.ahash, &e->ids.ahash_cap, e->ids.nahash + 1, 32))
            return MERKLE_ERR_NOMEM;
        memcpy(e->ids.ahash + 32 * e->ids.nahash, h, 32);
        uint32_t id;
        if (new_id(e, NONE, (uint32_t)e->ids.nahash, &id)) return MERKLE_ERR_NOMEM;
        e->ids.nahash++;
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
            if (e->ids.idl[v - 1] == l && e->ids.idr[v - 1] == r) {
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

static merkle_status add_parent(enc *e, uint32_t child, uint32_t parent, uint32_t side)
{
    if (e->ref.nent == e->ref.ent_cap) {
        size_t c1 = e->ref.ent_cap, c2 = e->ref.ent_cap2;
        if (merkle__grow(&e->ref.ent_parent, &c1, e->ref.nent + 1, 4) ||
            merkle__grow(&e->ref.ent_next, &c2, e->ref.nent + 1, 4))
            return MERKLE_ERR_NOMEM;
        e->ref.ent_cap = c1 < c2 ? c1 : c2;
        e->ref.ent_cap2 = c2;
    }
    uint32_t k = (uint32_t)e->ref.nent++;
    e->ref.ent_parent[k] = parent | (side ? SIDE_BIT : 0);
    e->ref.ent_next[k] = NONE;
    if (e->ref.tail[child] == NONE)
        e->ref.head[child] = k;
    else
        e->ref.ent_next[e->ref.tail[child]] = k;
    e->ref.tail[child] = k;
    return MERKLE_OK;
}

/* The pair id p is formed in the RCL (clvm_rs adds its two parent entries, left first). */
static merkle_status formed(enc *e, uint32_t p)
{
    if (e->ids.first[p] == NONE) e->ids.first[p] = e->walk.nform;
    e->walk.nform++; /* < 2^32: two formations at most per walk record, < 2^31 of them */
    if (!e->reference) return MERKLE_OK;
    merkle_status s = add_parent(e, e->ids.idl[p], p, 0);
    return s ? s : add_parent(e, e->ids.idr[p], p, 1);
}

/* A new walk record of id x (not yet on the stack). */
static merkle_status new_walk(enc *e, uint32_t x, uint32_t *out)
{
    size_t n = e->walk.nw;
    if (n >= SIDE_BIT - 1) { /* formation numbers stay below 2^32 */
        e->sr.too_many = 1;
        return MERKLE_ERR_LIMIT;
    }
    if (n == e->walk.w_cap) { /* parallel arrays: one capacity */
        size_t cap = merkle__grow_cap(e->walk.w_cap, n + 1, sizeof(uint32_t));
        uint32_t **arrs[5] = { &e->walk.w_id, &e->walk.w_par, &e->walk.uf_par, &e->walk.uf_off,
                               &e->walk.w_next };
        if (cap == 0) return MERKLE_ERR_NOMEM;
        for (int k = 0; k < 5; k++)
            if (merkle__realloc_n(arrs[k], cap, sizeof(uint32_t)) != 0) return MERKLE_ERR_NOMEM;
        e->walk.w_cap = cap;
    }
    e->walk.w_id[n] = x;
    e->walk.w_par[n] = e->walk.uf_par[n] = NONE;
    e->walk.uf_off[n] = 0;
    e->walk.w_next[n] = e->ids.rec[x];
    e->ids.rec[x] = (uint32_t)n;
    e->walk.nw = n + 1;
    *out = (uint32_t)n;
    return MERKLE_OK;
}

/* Push walk record w (id x): ReadCacheLookup::push. */
static merkle_status rcl_push(enc *e, uint32_t w)
{
    uint32_t x = e->walk.w_id[w], old = e->walk.spine[e->walk.m], t;
    merkle_status s = intern_pair(e, x, old, &t);
    if (s) return s;
    if (e->walk.m + 2 > e->walk.s_cap) {
        size_t c1 = e->walk.s_cap, c2 = e->walk.s_cap;
        if (grow32(&e->walk.spine, &c1, e->walk.m + 2) || grow32(&e->walk.top, &c2, e->walk.m + 2))
            return MERKLE_ERR_NOMEM;
        e->walk.s_cap = c1 < c2 ? c1 : c2;
    }
    e->walk.m++;
    e->walk.spine[e->walk.m] = t;
    e->walk.top[e->walk.m] = w;
    e->walk.uf_off[w] = (uint32_t)e->walk.m; /* an element: its stack index */
    e->ids.count[x]++;
    e->ids.count[t]++;
    MERKLE_ASSERT(e->ids.spine_at[t] == NONE); /* T_i is a list of i elements: one record per id */
    e->ids.spine_at[t] = (uint32_t)e->walk.m;
    return formed(e, t);
}

static uint32_t rcl_pop(enc *e)
{
    uint32_t w = e->walk.top[e->walk.m], t = e->walk.spine[e->walk.m];
    e->ids.count[e->walk.w_id[w]]--;
    e->ids.count[t]--;
    e->ids.spine_at[t] = NONE;
    e->walk.m--;
    return w;
}

/* ReadCacheLookup::pop2_and_cons: the two top elements become the pair c. */
static merkle_status rcl_cons(enc *e, uint32_t c)
{
    uint32_t wr = rcl_pop(e), wl = rcl_pop(e);
    e->ids.count[e->walk.w_id[wl]]++;
    e->ids.count[e->walk.w_id[wr]]++;
    merkle_status s = formed(e, c);
    uint32_t w;
    if (s || (s = new_walk(e, c, &w))) return s;
    e->walk.uf_par[wl] = e->walk.uf_par[wr] = e->walk.w_par[wl] = e->walk.w_par[wr] = w;
    e->walk.uf_off[wl] = e->walk.uf_off[wr] = 1;
    return rcl_push(e, w);
}

/* Mark the subtree of the copied id b: each newly marked pair goes into its children's
** parents-inside-copies lists. Each id is marked once over the whole encoding. */
static merkle_status mark_copy(enc *e, uint32_t b)
{
    if (e->ids.inside[b]) return MERKLE_OK;
    e->ids.inside[b] = 1;
    size_t n = 0;
    if (grow32(&e->cp.ms, &e->cp.ms_cap, 1)) return MERKLE_ERR_NOMEM;
    e->cp.ms[n++] = b;
    while (n) {
        uint32_t p = e->cp.ms[--n];
        if (e->ids.idl[p] == NONE) continue;
        uint32_t ch[2] = { e->ids.idl[p], e->ids.idr[p] };
        for (int k = 0; k < 2; k++) {
            uint32_t c = ch[k];
            if (k == 1 && c == ch[0]) break;
            if (e->cp.nfp == e->cp.fp_cap) {
                size_t c1 = e->cp.fp_cap, c2 = e->cp.fp_cap;
                if (grow32(&e->cp.fp_parent, &c1, e->cp.nfp + 1) ||
                    grow32(&e->cp.fp_next, &c2, e->cp.nfp + 1))
                    return MERKLE_ERR_NOMEM;
                e->cp.fp_cap = c1 < c2 ? c1 : c2;
            }
            e->cp.fp_parent[e->cp.nfp] = p;
            e->cp.fp_next[e->cp.nfp] = e->ids.fpar[c];
            e->ids.fpar[c] = (uint32_t)e->cp.nfp++;
            if (!e->ids.inside[c]) {
                e->ids.inside[c] = 1;
                if (grow32(&e->cp.ms, &e->cp.ms_cap, n + 1)) return MERKLE_ERR_NOMEM;
                e->cp.ms[n++] = c;
            }
        }
    }
    return MERKLE_OK;
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
    while (e->walk.uf_par[r] != NONE) {
        off += e->walk.uf_off[r];
        r = e->walk.uf_par[r];
    }
    uint64_t acc = off;
    for (uint32_t x = w; e->walk.uf_par[x] != NONE && e->walk.uf_par[x] != r;) {
        uint32_t nx = e->walk.uf_par[x], ox = e->walk.uf_off[x];
        e->walk.uf_par[x] = r;
        e->walk.uf_off[x] = (uint32_t)acc;
        acc -= ox;
        x = nx;
    }
    *root = r;
    return (uint64_t)(e->walk.m - e->walk.uf_off[r] + 1) + off;
}

/* Order of the parent p of x in clvm_rs's entry list of x: its first formation, then the side. */
static inline uint64_t entry_key(const enc *e, uint32_t x, uint32_t p)
{
    MERKLE_ASSERT(e->ids.first[p] != NONE && (e->ids.idl[p] == x || e->ids.idr[p] == x));
    return 2 * (uint64_t)e->ids.first[p] + (e->ids.idl[p] == x ? 0 : 1);
}

/* Smallest depth <= bound of a current record of id x, INF if none. With want, the walk
** records at that depth go to e->sr.ties and a spine record at that depth to e->sr.tie_spine.
** Records of one element keep their relative depths and their parents forever, so of each
** element only one record can ever be chosen: the shallowest, and of equally shallow ones the
** one whose parent comes first in clvm_rs's list. The others are dropped from the list as the
** scan meets them (each record is dropped at most once), so a scan visits at most one record
** per element, and only elements no deeper than the answer. */
static uint64_t rec_scan(enc *e, uint32_t x, uint64_t bound, int want)
{
    uint64_t best = INF;
    if (want) {
        e->sr.nties = 0;
        e->sr.tie_spine = NONE;
    }
    uint32_t si = e->ids.spine_at[x];
    if (si != NONE && e->walk.m - si <= bound) {
        best = e->walk.m - si;
        if (want) e->sr.tie_spine = si;
    }
    uint32_t *link = &e->ids.rec[x], *glink = NULL, groot = NONE;
    uint64_t gmin = 0, gkey = 0;
    int gtie = 0; /* the group's record is the last entry of e->sr.ties */
    while (*link != NONE) {
        if (!work(e)) return INF;
        uint32_t w = *link, r;
        uint64_t d = w_depth(e, w, &r);
        uint64_t j = e->walk.m - e->walk.uf_off[r] + 1;
        if (j > bound || j > best) break;
        uint64_t off = d - j;
        /* off 0: the element itself, alone at that depth in its group (its parent is a spine
        ** node and changes); otherwise the parent is fixed */
        uint64_t key = off ? entry_key(e, x, e->walk.w_id[e->walk.w_par[w]]) : 0;
        if (r == groot) {
            if (off > gmin || (off == gmin && key >= gkey)) {
                *link = e->walk.w_next[w];
                continue;
            }
            *glink = w; /* w beats the group's record: drop that one */
            if (gtie) e->sr.nties--;
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
                e->sr.nties = 0;
                e->sr.tie_spine = NONE;
            }
        }
        if (want && d == best) {
            if (grow32(&e->sr.ties, &e->sr.ties_cap, e->sr.nties + 1)) {
                e->sr.cut = 1; /* out of memory: give up this search (output stays valid) */
                return INF;
            }
            e->sr.ties[e->sr.nties++] = w;
            gtie = 1;
        }
        link = &e->walk.w_next[w];
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
    size_t mask = e->sr.qm_cap - 1, b = (size_t)(((uint64_t)x * (e->secret[1] | 1)) >> 40) & mask;
    while (e->sr.qm_st[b] == e->sr.stamp && e->sr.qm_key[b] != x) b = (b + 1) & mask;
    return b;
}

/* U index of id x in this query, NONE if x is not in U. */
static inline uint32_t qm_get(const enc *e, uint32_t x)
{
    size_t b = qm_slot(e, x);
    return e->sr.qm_st[b] == e->sr.stamp ? e->sr.qm_idx[b] : NONE;
}

/* Add id x (not in U) as U index i, growing the map to keep it at most half full. */
static merkle_status qm_add(enc *e, uint32_t x, uint32_t i)
{
    if (2 * ((size_t)i + 1) > e->sr.qm_cap) {
        size_t cap = e->sr.qm_cap ? 2 * e->sr.qm_cap : 64;
        uint32_t *k = malloc(cap * sizeof *k), *v = malloc(cap * sizeof *v),
                 *st = calloc(cap, sizeof *st);
        if (!k || !v || !st) {
            free(k);
            free(v);
            free(st);
            return MERKLE_ERR_NOMEM;
        }
        free(e->sr.qm_key);
        free(e->sr.qm_idx);
        free(e->sr.qm_st);
        e->sr.qm_key = k;
        e->sr.qm_idx = v;
        e->sr.qm_st = st;
        e->sr.qm_cap = cap;
        for (uint32_t j = 0; j < i; j++) { /* re-insert the ids already in U */
            size_t b = qm_slot(e, e->sr.u[j]);
            e->sr.qm_st[b] = e->sr.stamp;
            e->sr.qm_key[b] = e->sr.u[j];
            e->sr.qm_idx[b] = j;
        }
    }
    size_t b = qm_slot(e, x);
    e->sr.qm_st[b] = e->sr.stamp;
    e->sr.qm_key[b] = x;
    e->sr.qm_idx[b] = i;
    return MERKLE_OK;
}

/* Append id x to U (up-distance t, value r). */
static merkle_status u_add(enc *e, size_t *nu, uint32_t x, uint64_t t, uint64_t r)
{
    size_t i = *nu;
    if (i >= NONE - 1) return MERKLE_ERR_NOMEM;
    if (i == e->sr.u_cap) { /* parallel arrays: one capacity */
        size_t cap = merkle__grow_cap(e->sr.u_cap, i + 1, sizeof(uint64_t));
        uint32_t **a32[4] = { &e->sr.u, &e->sr.ut, &e->sr.udeg, &e->sr.uchild };
        if (cap == 0) return MERKLE_ERR_NOMEM;
        for (int k = 0; k < 4; k++)
            if (merkle__realloc_n(a32[k], cap, sizeof(uint32_t)) != 0) return MERKLE_ERR_NOMEM;
        if (merkle__realloc_n(&e->sr.uval, cap, sizeof(uint64_t)) != 0) return MERKLE_ERR_NOMEM;
        e->sr.u_cap = cap;
    }
    e->sr.u[i] = x;
    e->sr.ut[i] = (uint32_t)t;
    e->sr.uval[i] = r;
    e->sr.udeg[i] = 0;
    e->sr.uchild[i] = NONE;
    *nu = i + 1;
    return qm_add(e, x, (uint32_t)i);
}

/* find_path with the index: *found = 1 and e->sr.path[0..path_len) on success. */
static merkle_status fast_find(enc *e, uint32_t h, uint64_t sl, int *found)
{
    *found = 0;
    if (sl < MIN_SL) return MERKLE_OK;
    e->sr.cut = 0;
    uint64_t D = max_steps(sl);
    if (++e->sr.stamp == 0) {
        if (e->sr.qm_st) memset(e->sr.qm_st, 0, e->sr.qm_cap * sizeof *e->sr.qm_st);
        e->sr.stamp = 1;
    }
    /* 1. dist(h): records of h and of its ancestors through parents-inside-copies. */
    uint64_t best = rec_scan(e, h, D, 0);
    if (e->sr.cut) return MERKLE_OK;
    size_t nu = 0;
    e->sr.ne = 0;
    merkle_status s = u_add(e, &nu, h, 0, best);
    if (s) return s;
    for (size_t lo = 0; lo < nu; lo++) {
        uint32_t n = e->sr.u[lo];
        uint64_t t = e->sr.ut[lo];
        if (e->ids.fpar[n] == NONE || t + 1 >= best || t + 1 > D) continue;
        e->sr.ut[lo] |= Q_EXPANDED;
        if (lo == 0) e->o->copy_searches++;
        for (uint32_t k = e->ids.fpar[n]; k != NONE; k = e->cp.fp_next[k]) {
            if (!work(e)) return MERKLE_OK;
            uint32_t p = e->cp.fp_parent[k];
            if (e->ids.count[p] == 0) {
                e->o->dead_copy_parents++;
                continue;
            }
            uint32_t pi = qm_get(e, p);
            if (pi == NONE) {
                uint64_t cap = best < D ? best : D, r = INF;
                if (cap > t + 1) r = rec_scan(e, p, cap - (t + 1), 0);
                if (e->sr.cut) return MERKLE_OK;
                pi = (uint32_t)nu;
                if ((s = u_add(e, &nu, p, t + 1, r)) != MERKLE_OK) return s;
                if (r != INF && t + 1 + r < best) best = t + 1 + r;
            }
            size_t c1 = e->sr.e_cap, c2 = e->sr.e_cap;
            if (grow32(&e->sr.ec, &c1, e->sr.ne + 1) || grow32(&e->sr.en, &c2, e->sr.ne + 1))
                return MERKLE_ERR_NOMEM;
            e->sr.e_cap = c1 < c2 ? c1 : c2;
            e->sr.ec[e->sr.ne] = (uint32_t)lo;
            e->sr.en[e->sr.ne] = e->sr.uchild[pi];
            e->sr.uchild[pi] = (uint32_t)e->sr.ne++;
            e->sr.udeg[lo]++;
        }
    }
    if (best > D) return MERKLE_OK;
    /* 2. exact dist for the searched set: parents before children (Kahn). */
    if (nu > 1) {
        if (grow32(&e->sr.kq, &e->sr.kq_cap, nu)) return MERKLE_ERR_NOMEM;
        size_t qh = 0, qt = 0;
        for (size_t i = 0; i < nu; i++)
            if (e->sr.udeg[i] == 0) e->sr.kq[qt++] = (uint32_t)i;
        while (qh < qt) {
            uint32_t p = e->sr.kq[qh++];
            uint64_t vp = e->sr.uval[p];
            for (uint32_t x = e->sr.uchild[p]; x != NONE; x = e->sr.en[x]) {
                uint32_t ch = e->sr.ec[x];
                if (vp != INF && vp + 1 < e->sr.uval[ch]) e->sr.uval[ch] = vp + 1;
                if (--e->sr.udeg[ch] == 0) e->sr.kq[qt++] = ch;
            }
        }
    }
    /* 3. the path, from h upwards: at each step the parent one level closer whose first
    ** entry in clvm_rs's list of the current node comes first. */
    if (best + 1 > e->sr.bits_cap) {
        size_t c = e->sr.bits_cap;
        if (best >= SIZE_MAX) return MERKLE_ERR_NOMEM; /* 32-bit size_t */
        if (merkle__grow(&e->sr.bits, &c, (size_t)best + 1, 1)) return MERKLE_ERR_NOMEM;
        e->sr.bits_cap = c;
    }
    uint32_t n = h;
    for (uint64_t k = best; k > 0; k--) {
        if (!work(e)) return MERKLE_OK;
        uint64_t bkey = INF;
        uint32_t bp = NONE, from = 0; /* 1: parents-inside-copies, 2: spine record */
        uint32_t ni = qm_get(e, n);
        if (ni != NONE && (e->sr.ut[ni] & Q_EXPANDED)) {
            for (uint32_t x = e->ids.fpar[n]; x != NONE; x = e->cp.fp_next[x]) {
                if (!work(e)) return MERKLE_OK;
                uint32_t p = e->cp.fp_parent[x];
                if (!e->ids.count[p]) continue;
                uint32_t pi = qm_get(e, p);
                if (pi != NONE && e->sr.uval[pi] == k - 1) consider(e, n, p, &bkey, &bp);
            }
            if (bp != NONE) from = 1;
        }
        if (rec_scan(e, n, k, 1) == k) {
            for (size_t i = 0; i < e->sr.nties; i++) {
                uint32_t w = e->sr.ties[i];
                uint32_t p = e->walk.w_par[w] != NONE ? e->walk.w_id[e->walk.w_par[w]]
                                                      : e->walk.spine[e->walk.uf_off[w]];
                if (consider(e, n, p, &bkey, &bp)) from = 0;
            }
            if (e->sr.tie_spine != NONE &&
                consider(e, n, e->walk.spine[e->sr.tie_spine + 1], &bkey, &bp))
                from = 2;
        }
        if (e->sr.cut) return MERKLE_OK;
        if (bp == NONE) {              /* cannot happen: every step has a parent one level closer */
            MERKLE_ASSERT(bp != NONE); /* indexed search: no parent one level closer */
            e->o->internal_errors++;
            return MERKLE_OK;
        }
        if (from == 1) e->o->copy_steps++;
        if (from == 2) e->o->spine_steps++;
        e->sr.bits[best - k] = (uint8_t)(bkey & 1);
        n = bp;
    }
    if (n != e->walk.spine[e->walk.m]) {
        MERKLE_ASSERT(n ==
                      e->walk.spine[e->walk.m]); /* indexed search: the path ends at the root */
        e->o->internal_errors++;
        return MERKLE_OK;
    }
    /* path atom: the step into the root is bit 0, the first step from h bit best-1 */
    size_t nb = (size_t)((best + 8) / 8);
    if (nb > e->sr.path_cap) {
        size_t c = e->sr.path_cap;
        if (merkle__grow(&e->sr.path, &c, nb, 1)) return MERKLE_ERR_NOMEM;
        e->sr.path_cap = c;
    }
    memset(e->sr.path, 0, nb);
    for (uint64_t i = 0; i < best; i++)
        if (e->sr.bits[best - 1 - i]) e->sr.path[nb - 1 - i / 8] |= (uint8_t)(1u << (i % 8));
    e->sr.path[nb - 1 - best / 8] |= (uint8_t)(1u << (best % 8));
    e->sr.path_len = nb;
    *found = 1;
    return MERKLE_OK;
}

/* The search the encoder uses; crosscheck runs both and counts disagreements. */
static merkle_status find_path(enc *e, uint32_t h, uint64_t sl, int *found)
{
    merkle_status s;
    if (!e->o->crosscheck) {
        s = e->reference ? merkle__br_ref_find(e, h, sl, found) : fast_find(e, h, sl, found);
        if (s == MERKLE_OK && e->sr.cut) e->o->budget_cuts++;
        return s;
    }
    int f1, f2;
    if ((s = fast_find(e, h, sl, &f1)) != MERKLE_OK) return s;
    int cut1 = e->sr.cut;
    size_t l1 = f1 ? e->sr.path_len : 0;
    if (l1 > e->sr.path_cap2) {
        size_t c = e->sr.path_cap2;
        if (merkle__grow(&e->sr.cand, &c, l1, 1)) return MERKLE_ERR_NOMEM;
        e->sr.path_cap2 = c;
    }
    if (f1) memcpy(e->sr.cand, e->sr.path, l1);
    if ((s = merkle__br_ref_find(e, h, sl, &f2)) != MERKLE_OK) return s;
    if (cut1 || e->sr.cut) e->o->budget_cuts++;
    if (f1 != f2 || (f1 && (l1 != e->sr.path_len || memcmp(e->sr.cand, e->sr.path, l1) != 0)))
        e->o->mismatches++;
    *found = f2;
    return MERKLE_OK;
}

/* ------------------------------------------------------------------ output */

static merkle_status emit(enc *e, const uint8_t *data, size_t n, merkle_error *error)
{
    if ((uint64_t)e->out.nout + n > e->out.max_out)
        return merkle__fail(error, MERKLE_ERR_LIMIT, 0, e->out.nout,
                            "back-reference serialization exceeds the output limit (%llu "
                            "bytes)",
                            (unsigned long long)e->out.max_out);
    if (merkle__grow(&e->out.out, &e->out.out_cap, e->out.nout + n, 1)) return MERKLE_ERR_NOMEM;
    memcpy(e->out.out + e->out.nout, data, n);
    e->out.nout += n;
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
    void *ps[] = { e->ids.count,      e->ref.head,     e->ref.tail,    e->ref.seen,
                   e->ids.idl,        e->ids.idr,      e->ids.rec,     e->ids.spine_at,
                   e->ids.fpar,       e->ids.first,    e->ids.inside,  e->ids.ahash,
                   e->ref.ent_parent, e->ref.ent_next, e->atab.slot,   e->ptab.slot,
                   e->walk.w_id,      e->walk.w_par,   e->walk.uf_par, e->walk.uf_off,
                   e->walk.w_next,    e->walk.spine,   e->walk.top,    e->cp.fp_parent,
                   e->cp.fp_next,     e->sr.u,         e->sr.ut,       e->sr.udeg,
                   e->sr.uchild,      e->sr.uval,      e->sr.kq,       e->sr.qm_key,
                   e->sr.qm_idx,      e->sr.qm_st,     e->sr.ec,       e->sr.en,
                   e->cp.ms,          e->sr.ties,      e->sr.bits,     e->ref.bnode,
                   e->ref.bprev,      e->ref.bside,    e->sr.path,     e->sr.cand };
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
    e.out.max_out = max_out ? max_out : (uint64_t)SIZE_MAX;
    merkle__sexp_secret(e.secret);
    uint64_t per = opts->work_per_node ? opts->work_per_node : MERKLE__SEXP_BR_WORK_PER_NODE;
    e.sr.budget = opts->work_base ? opts->work_base : MERKLE__SEXP_BR_WORK_BASE;

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
        if (grow32(&e.walk.spine, &e.walk.s_cap, 2)) goto out;
        size_t c2 = 0;
        if (grow32(&e.walk.top, &c2, 2)) goto out;
        e.walk.s_cap = e.walk.s_cap < c2 ? e.walk.s_cap : c2;
        e.walk.m = 0;
        e.walk.spine[0] = nil; /* ReadCacheLookup::new: the empty stack is nil, count 1 */
        e.ids.spine_at[nil] = 0;
        e.ids.count[nil] = 1;
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
        e.sr.budget = e.sr.budget + per < e.sr.budget ? INF : e.sr.budget + per;
        opts->nodes++;
        int found;
        if ((s = find_path(&e, id, sl, &found)) != MERKLE_OK) goto out;
        uint32_t w;
        if (found) {
            static const uint8_t fe = 0xfe;
            if ((s = emit(&e, &fe, 1, error)) ||
                (s = emit_atom(&e, e.sr.path, e.sr.path_len, error)) ||
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
        *out = e.out.out;
        *out_len = e.out.nout;
        e.out.out = NULL;
    } else {
        free(e.out.out);
        if (s == MERKLE_ERR_NOMEM) merkle__fail(error, s, 0, 0, "out of memory");
        if (e.sr.too_many)
            merkle__fail(error, s, 0, e.out.nout,
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
