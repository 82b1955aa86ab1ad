/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Back-reference serialization (spec B.4), the clvm_rs HEAD encoder, in linear time.
**
** The encoder tracks the decoder's parse stack in a ReadCacheLookup (RCL): reference counts
** and "parents" lists of every subtree identity, and a breadth-first search from a node up to
** the current stack root finds the shortest path to reference it. clvm_rs names identities by
** tree hash and hashes a new 65-byte message for every push (the stack-as-list node
** H(02 || x || root)). Here identities are hash-consed integers instead: atoms are interned by
** their tree hash (full 32-byte equality), pairs by the ids of their two children. Two
** subtrees get the same id exactly when they have the same tree hash (barring SHA-256
** collisions), so every comparison of the algorithm gives the same answer and the output is
** byte-identical, but a push costs one table lookup and no SHA-256.
**
** Flooding: both intern tables are open-addressing tables whose bucket is a keyed
** multiply-shift of the key with a per-process random secret (an attacker who grinds tree
** hashes cannot aim at a bucket without knowing it), probe sequences are bounded (a longer
** one re-keys and grows the table), and equality is on the full key. The path search itself
** can be made quadratic by an input that repeats one subtree n times (n parent entries that
** every later lookup scans); its total work is bounded (work_per_node per node visited), and
** a search over the bound returns "no path", which keeps the output valid and no longer than
** canonical.
*/
#include <stdlib.h>
#include <string.h>

#include "sexp/sexp_impl.h"

#define NONE UINT32_MAX
#define SIDE_BIT 0x80000000u
#define MAX_PROBE 48
#define MIN_SL 4

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
    uint64_t secret[4];
    unsigned rekeys;
    /* ids */
    size_t nids, ids_cap;
    uint32_t *count, *head, *tail, *seen, *idl, *idr; /* idl == NONE: atom, idr = hash index */
    uint8_t *ahash;                                   /* 32 bytes per distinct atom */
    size_t nahash, ahash_cap;
    /* parent-list entries */
    uint32_t *ent_parent, *ent_next;
    size_t nent, ent_cap, ent_cap2;
    table atab, ptab;
    /* RCL stack */
    uint32_t *rx, *rprev;
    size_t nr, r_cap, r_cap2;
    uint32_t root, stamp;
    /* search scratch */
    uint32_t *bnode, *bprev;
    uint8_t *bside;
    size_t b_cap, b_cap2, b_cap3;
    uint8_t *path, *cand;
    size_t path_cap, path_cap2;
    size_t path_len;
    uint64_t budget;
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
    if (n == e->ids_cap) {
        size_t cap = e->ids_cap ? 2 * e->ids_cap : 1024;
        uint32_t **arrs[6] = {&e->count, &e->head, &e->tail, &e->seen, &e->idl, &e->idr};
        for (int k = 0; k < 6; k++) {
            uint32_t *p = realloc(*arrs[k], cap * sizeof *p);
            if (!p) return -1;
            *arrs[k] = p;
        }
        e->ids_cap = cap;
    }
    e->count[n] = 0;
    e->head[n] = e->tail[n] = NONE;
    e->seen[n] = 0;
    e->idl[n] = l;
    e->idr[n] = r;
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
        if (merkle__sexp_grow((void **)&e->ahash, &e->ahash_cap, e->nahash + 1, 32))
            return MERKLE_ERR_NOMEM;
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
        for (;;) {
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

static merkle_status add_parent(enc *e, uint32_t child, uint32_t parent, uint32_t side)
{
    if (e->nent == e->ent_cap) {
        size_t c1 = e->ent_cap, c2 = e->ent_cap2;
        if (merkle__sexp_grow((void **)&e->ent_parent, &c1, e->nent + 1, 4) ||
            merkle__sexp_grow((void **)&e->ent_next, &c2, e->nent + 1, 4))
            return MERKLE_ERR_NOMEM;
        e->ent_cap = c1 < c2 ? c1 : c2;
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

static merkle_status rcl_push(enc *e, uint32_t x)
{
    uint32_t nw;
    merkle_status s = intern_pair(e, x, e->root, &nw);
    if (s) return s;
    if (e->nr == e->r_cap) {
        size_t c1 = e->r_cap, c2 = e->r_cap2;
        if (merkle__sexp_grow((void **)&e->rx, &c1, e->nr + 1, 4) ||
            merkle__sexp_grow((void **)&e->rprev, &c2, e->nr + 1, 4))
            return MERKLE_ERR_NOMEM;
        e->r_cap = c1 < c2 ? c1 : c2;
    }
    e->rx[e->nr] = x;
    e->rprev[e->nr] = e->root;
    e->nr++;
    e->count[x]++;
    e->count[nw]++;
    if ((s = add_parent(e, x, nw, 0)) || (s = add_parent(e, e->root, nw, 1))) return s;
    e->root = nw;
    return MERKLE_OK;
}

static uint32_t rcl_pop(enc *e)
{
    e->nr--;
    uint32_t x = e->rx[e->nr];
    e->count[x]--;
    e->count[e->root]--;
    e->root = e->rprev[e->nr];
    return x;
}

static merkle_status rcl_pop2_and_cons(enc *e, uint32_t c)
{
    uint32_t r = rcl_pop(e);
    uint32_t l = rcl_pop(e);
    e->count[l]++;
    e->count[r]++;
    merkle_status s;
    if ((s = add_parent(e, l, c, 0)) || (s = add_parent(e, r, c, 1))) return s;
    return rcl_push(e, c);
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
    if (merkle__sexp_grow((void **)&e->bnode, &c1, need, 4) ||
        merkle__sexp_grow((void **)&e->bprev, &c2, need, 4) ||
        merkle__sexp_grow((void **)&e->bside, &c3, need, 1))
        return MERKLE_ERR_NOMEM;
    e->b_cap = c1 < c2 ? (c1 < c3 ? c1 : c3) : (c2 < c3 ? c2 : c3);
    e->b_cap2 = c2;
    e->b_cap3 = c3;
    return MERKLE_OK;
}

/* find_path of B.4 (clvm_rs HEAD rules): *found = 1 and e->path[0..path_len) on success. */
static merkle_status find_path(enc *e, uint32_t h, uint64_t sl, int *found)
{
    *found = 0;
    if (sl < MIN_SL) return MERKLE_OK;
    if (++e->stamp == 0) { /* wrapped: clear the stamps */
        memset(e->seen, 0, e->nids * sizeof *e->seen);
        e->stamp = 1;
    }
    merkle_status s = bfs_reserve(e, 1);
    if (s) return s;
    e->seen[h] = e->stamp;
    e->bnode[0] = h;
    e->bprev[0] = NONE;
    e->bside[0] = 0;
    size_t n = 1, lo = 0, hi = 1, steps = 0;
    while (lo < hi) {
        for (size_t i = lo; i < hi; i++) {
            uint32_t node = e->bnode[i];
            if (node == e->root) {
                size_t nb = (steps + 8) / 8;
                uint8_t *dst = *found ? e->cand : e->path;
                size_t need = nb;
                if (need > e->path_cap || need > e->path_cap2) {
                    size_t c1 = e->path_cap, c2 = e->path_cap2;
                    if (merkle__sexp_grow((void **)&e->path, &c1, need, 1) ||
                        merkle__sexp_grow((void **)&e->cand, &c2, need, 1))
                        return MERKLE_ERR_NOMEM;
                    e->path_cap = c1;
                    e->path_cap2 = c2;
                    dst = *found ? e->cand : e->path;
                }
                encode_path(e, i, steps, dst);
                if (*found && memcmp(e->cand, e->path, nb) < 0) memcpy(e->path, e->cand, nb);
                e->path_len = nb;
                *found = 1;
                continue;
            }
            for (uint32_t k = e->head[node]; k != NONE; k = e->ent_next[k]) {
                if (e->budget == 0) {
                    e->o->budget_cuts++;
                    *found = 0;
                    return MERKLE_OK;
                }
                e->budget--;
                e->o->search_steps++;
                uint32_t parent = e->ent_parent[k] & ~SIDE_BIT;
                if (e->count[parent] == 0 || e->seen[parent] == e->stamp) continue;
                if (!allowed(steps + 1, sl)) return MERKLE_OK; /* keep paths already found */
                if ((s = bfs_reserve(e, n + 1)) != MERKLE_OK) return s;
                e->bnode[n] = parent;
                e->bprev[n] = (uint32_t)i;
                e->bside[n] = (uint8_t)(e->ent_parent[k] >> 31);
                n++;
                e->seen[parent] = e->stamp;
            }
        }
        if (*found) return MERKLE_OK;
        lo = hi;
        hi = n;
        steps++;
    }
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
    if (merkle__sexp_grow((void **)&e->out, &e->out_cap, e->nout + n, 1))
        return MERKLE_ERR_NOMEM;
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
    free(e->count);
    free(e->head);
    free(e->tail);
    free(e->seen);
    free(e->idl);
    free(e->idr);
    free(e->ahash);
    free(e->ent_parent);
    free(e->ent_next);
    free(e->atab.slot);
    free(e->ptab.slot);
    free(e->rx);
    free(e->rprev);
    free(e->bnode);
    free(e->bprev);
    free(e->bside);
    free(e->path);
    free(e->cand);
}

static size_t log2_for(size_t n)
{
    size_t l = 10;
    while (((size_t)1 << l) < 2 * n + 2 && l < 40) l++;
    return l;
}

merkle_status merkle__sexp_serialize_backrefs(uint8_t **out, size_t *out_len,
                                              merkle_sexp_store *st, merkle_sexp_node node,
                                              uint64_t max_out, merkle__sexp_br_opts *opts,
                                              merkle_error *error)
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
    e.max_out = max_out ? max_out : (uint64_t)SIZE_MAX;
    merkle__sexp_secret(e.secret);
    uint64_t per = opts->work_per_node ? opts->work_per_node : 256;
    e.budget = opts->work_base ? opts->work_base : ((uint64_t)1 << 22);

    merkle_status s = merkle__sexp_memo_reserve(st);
    uint32_t *pid = NULL;  /* id of each reachable pair */
    uint64_t *psl = NULL;  /* serialized length of each pair */
    uint8_t *mark = NULL;  /* reachable pairs */
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
        if (merkle__sexp_grow((void **)&wstack, &w_cap, 64, 4)) goto out;
        wstack[nw++] = node;
        mark[node] = 1;
        while (nw) {
            uint32_t i = wstack[--nw];
            reach++;
            for (int side = 0; side < 2; side++) {
                merkle_sexp_node c = st->pairs[2 * (size_t)i + (size_t)side];
                if (!(c & MERKLE__SEXP_ATOM_BIT) && !mark[c]) {
                    mark[c] = 1;
                    if (merkle__sexp_grow((void **)&wstack, &w_cap, nw + 1, 4)) goto out;
                    wstack[nw++] = c;
                }
            }
        }
        if ((s = merkle__sexp_pair_lengths(&psl, st, node)) != MERKLE_OK) goto out;
        s = MERKLE_ERR_NOMEM;
    }
    if (table_init(&e.atab, log2_for(reach / 2 + 16)) || table_init(&e.ptab, log2_for(2 * reach + 16)))
        goto out;
    table_key(&e, &e.atab, 0);
    table_key(&e, &e.ptab, 1);
    {
        uint8_t nil_hash[32];
        merkle__sexp_sha_tagged(nil_hash, 0x01, NULL, 0);
        if ((s = intern_atom(&e, nil_hash, &e.root)) != MERKLE_OK) goto out;
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
    if (merkle__sexp_grow((void **)&wstack, &w_cap, 64, 4) ||
        merkle__sexp_grow((void **)&ops, &ops_cap, 64, 4))
        goto out;
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
            if ((s = intern_atom(&e, merkle__sexp_atom_hash(st, ai), &id)) != MERKLE_OK)
                goto out;
        } else {
            id = pid[x];
            sl = psl[x];
        }
        e.budget += per;
        int found;
        if ((s = find_path(&e, id, sl, &found)) != MERKLE_OK) goto out;
        if (found) {
            static const uint8_t fe = 0xfe;
            if ((s = emit(&e, &fe, 1, error)) || (s = emit_atom(&e, e.path, e.path_len, error)) ||
                (s = rcl_push(&e, id)))
                goto out;
        } else if (!(x & MERKLE__SEXP_ATOM_BIT)) {
            static const uint8_t ff = 0xff;
            if ((s = emit(&e, &ff, 1, error)) != MERKLE_OK) goto out;
            s = MERKLE_ERR_NOMEM;
            if (merkle__sexp_grow((void **)&wstack, &w_cap, nw + 2, 4) ||
                merkle__sexp_grow((void **)&ops, &ops_cap, nops + 3, 4))
                goto out;
            wstack[nw++] = st->pairs[2 * (size_t)x + 1];
            wstack[nw++] = st->pairs[2 * (size_t)x];
            ops[nops++] = id;
            ops[nops++] = NONE;
            ops[nops++] = NONE;
        } else {
            if ((s = emit_atom(&e, adata, alen, error)) || (s = rcl_push(&e, id))) goto out;
        }
        while (nops && ops[nops - 1] != NONE) {
            uint32_t c = ops[--nops];
            if ((s = rcl_pop2_and_cons(&e, c)) != MERKLE_OK) goto out;
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
                                                   merkle_sexp_store *store,
                                                   merkle_sexp_node node, uint64_t max_out,
                                                   merkle_error *error)
{
    return merkle__sexp_serialize_backrefs(out, out_len, store, node, max_out, NULL, error);
}
