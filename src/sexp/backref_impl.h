/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The back-reference encoder's state (internal, never installed), shared by backref.c (the
** encoder and its indexed search) and backref_reference.c (clvm_rs's own breadth-first
** search, kept for tests: merkle__sexp_br_opts.reference and .crosscheck).
*/
#ifndef MERKLE_BACKREF_IMPL_H
#define MERKLE_BACKREF_IMPL_H

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

/* The ids: hash-consed subtrees (ids_cap entries each). */
typedef struct br_ids {
    size_t nids, ids_cap;
    uint32_t *idl, *idr; /* idl == NONE: atom, idr = its hash index */
    uint32_t *count;     /* RCL reference count */
    uint32_t *first;     /* number of the first formation of the pair in the RCL (NONE: never) */
    uint32_t *rec;       /* newest walk record of the id */
    uint32_t *spine_at;  /* stack index of the id's spine record, NONE */
    uint32_t *fpar;      /* head of its parents-inside-copies list (fp pool) */
    uint8_t *inside;     /* in the subtree of a copied id (marked once) */
    uint8_t *ahash;      /* 32 bytes per distinct atom */
    size_t nahash, ahash_cap;
} br_ids;

/* The reference BFS only (backref_reference.c): clvm_rs's parent-entry lists per id, its
** seen stamps, and the BFS queue. */
typedef struct br_ref {
    uint32_t *head, *tail, *seen; /* per id: entry list, seen stamp */
    uint32_t rstamp;
    uint32_t *ent_parent, *ent_next; /* parent-list entries */
    size_t nent, ent_cap, ent_cap2;
    uint32_t *bnode, *bprev; /* the BFS queue */
    uint8_t *bside;
    size_t b_cap, b_cap2, b_cap3;
} br_ref;

/* The encoder walk and the stack. */
typedef struct br_walk {
    /* walk records (w_cap each); uf_off of an element (uf_par NONE) is its stack index */
    size_t nw, w_cap;
    uint32_t *w_id, *w_par, *uf_par, *uf_off, *w_next;
    /* the stack: spine[0..m], top[1..m] = walk record of element i */
    size_t m, s_cap;
    uint32_t *spine, *top;
    uint32_t nform;
} br_walk;

/* Copies: the parents-inside-copies pool and mark_copy's stack. */
typedef struct br_copies {
    uint32_t *fp_parent, *fp_next;
    size_t nfp, fp_cap;
    uint32_t *ms;
    size_t ms_cap;
} br_copies;

/* Search scratch: the searched set U (index i: id u[i], distance up ut[i], value uval[i],
** parent edges udeg[i], first child edge uchild[i]) and a map id -> index, the found path
** and the work budget. */
typedef struct br_search {
    uint32_t stamp;
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
    uint8_t *path, *cand;
    size_t path_cap, path_cap2;
    size_t path_len;
    uint64_t budget;
    int cut, too_many;
} br_search;

/* The output. */
typedef struct br_out {
    uint8_t *out;
    size_t nout, out_cap;
    uint64_t max_out;
} br_out;

typedef struct enc {
    merkle_sexp_store *st;
    merkle__sexp_br_opts *o;
    int reference; /* keep clvm_rs's parent entry lists (reference BFS) */
    uint64_t secret[4];
    unsigned rekeys;
    table atab, ptab;
    br_ids ids;
    br_ref ref;
    br_walk walk;
    br_copies cp;
    br_search sr;
    br_out out;
} enc;

/* Work unit of the searches; 0 when the budget is spent (the search then gives up). */
static inline int work(enc *e)
{
    if (e->sr.budget == 0) {
        e->sr.cut = 1;
        return 0;
    }
    e->sr.budget--;
    e->o->search_steps++;
    return 1;
}

/* Serialized length of a path atom for a path of `steps` directions. */
static inline uint64_t path_ser_len(uint64_t steps)
{
    uint64_t p = (steps + 1 + 7) / 8;
    if (p == 1) return steps < 7 ? 1 : 2;
    return merkle__sexp_atom_ser_len(p, 0x80);
}

static inline int allowed(uint64_t steps, uint64_t sl)
{
    return 1 + path_ser_len(steps) <= sl;
}

/* clvm_rs find_path itself (breadth-first over the entry lists): the path from id h to the
** root, if one of at most sl serialized bytes exists, into e->sr.path (*found). */
merkle_status merkle__br_ref_find(enc *e, uint32_t h, uint64_t sl, int *found);

#endif
