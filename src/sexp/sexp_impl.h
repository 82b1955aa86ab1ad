/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Internal interface of the CLVM tree module (src/sexp/). Never installed.
*/
#ifndef MERKLE_SEXP_IMPL_H
#define MERKLE_SEXP_IMPL_H

#include "common/internal.h"
#include "merkle/hash.h"
#include "merkle/sexp.h"

/* The store behind the opaque merkle_sexp_store handle. */
struct merkle_sexp_store {
    uint32_t *pairs;                /* 2 per pair: left, right */
    uint64_t *atoms;                /* 2 per atom: offset into bytes, length */
    uint8_t *bytes;                 /* atom contents */
    uint8_t *pair_hash, *atom_hash; /* memoised tree hashes, 32 bytes per node */
    uint8_t *pair_done, *atom_done; /* 1 when the memo slot is filled */
    size_t npairs, pairs_cap, natoms, atoms_cap, nbytes, bytes_cap;
    size_t pair_hash_cap, atom_hash_cap;
};

#define MERKLE__SEXP_ATOM_BIT 0x80000000u

static inline int merkle__sexp_valid(const merkle_sexp_store *st, merkle_sexp_node n)
{
    if (n & MERKLE__SEXP_ATOM_BIT) return (size_t)(n & ~MERKLE__SEXP_ATOM_BIT) < st->natoms;
    return (size_t)n < st->npairs;
}

/* Contents of atom index i (never NULL, also for an empty store arena). */
static inline const uint8_t *merkle__sexp_atom_data(const merkle_sexp_store *st, size_t i)
{
    static const uint8_t empty = 0;
    return st->bytes ? st->bytes + st->atoms[2 * i] : &empty;
}

/* out = SHA-256(tag || data[0..len)); data may be NULL when len is 0. */
static inline void merkle__sexp_sha_tagged(uint8_t out[32], uint8_t tag, const uint8_t *data,
                                           size_t len)
{
    static const uint8_t empty = 0;
    merkle_sha256_batch_strided(out, &tag, 1, data ? data : &empty, 0, len, 1);
}

/* Canonical serialized length of an atom of len bytes whose first byte is first. */
static inline uint64_t merkle__sexp_atom_ser_len(uint64_t len, uint8_t first)
{
    if (len == 0) return 1;
    if (len == 1 && first < 0x80) return 1;
    if (len < 0x40) return 1 + len;
    if (len < 0x2000) return 2 + len;
    if (len < 0x100000) return 3 + len;
    if (len < 0x8000000) return 4 + len;
    return 5 + len;
}

/* Per-process random 64-bit words for keyed tables (getrandom, once). */
void merkle__sexp_secret(uint64_t out[4]);

/* Fill the tree-hash memo for every node reachable from node. */
merkle_status merkle__sexp_hash_reachable(merkle_sexp_store *st, merkle_sexp_node node);

/* Size the memo arrays for every node of the store (new slots not done). 0 or NOMEM. */
merkle_status merkle__sexp_memo_reserve(merkle_sexp_store *st);

/* Tree hash of atom index i (memoised); merkle__sexp_memo_reserve must have run. */
const uint8_t *merkle__sexp_atom_hash(merkle_sexp_store *st, size_t i);

/* Pointer to the memoised tree hash of node (merkle__sexp_hash_reachable must have run). */
static inline const uint8_t *merkle__sexp_hash_of(const merkle_sexp_store *st, merkle_sexp_node n)
{
    if (n & MERKLE__SEXP_ATOM_BIT) return st->atom_hash + 32 * (size_t)(n & ~MERKLE__SEXP_ATOM_BIT);
    return st->pair_hash + 32 * (size_t)n;
}

/* Serialized length of every pair 0..last, saturating at UINT64_MAX (malloc'd array). */
merkle_status merkle__sexp_pair_lengths(uint64_t **out, const merkle_sexp_store *st, size_t last);

/* Write the canonical atom encoding of data[0..len) at out; returns the bytes written. */
size_t merkle__sexp_write_atom(uint8_t *out, const uint8_t *data, uint64_t len);

/* Search work bound of the back-reference encoder: base + per node visited. The real
** programs of tests/vectors use at most 361,620 units in all and 6.9 per node (docs/clvm.md). */
#define MERKLE__SEXP_BR_WORK_BASE     ((uint64_t)1 << 22)
#define MERKLE__SEXP_BR_WORK_PER_NODE 64

/* Options and counters of the back-reference encoder (tests and benchmarks). */
typedef struct merkle__sexp_br_opts {
    int unkeyed;            /* 1: no secret: atom bucket = low bits of the first 8 hash bytes
                               (clvm_rs style), pair bucket = fixed Fibonacci hashing, no probe
                               bound. ONLY for benchmarks and for demonstrating attacks */
    int reference;          /* 1: clvm_rs's own breadth-first find_path (tests) */
    int crosscheck;         /* 1: run both searches on every token, count disagreements in
                               mismatches, emit the reference's choice (tests, fuzzing) */
    uint64_t work_per_node; /* search budget per node (0: MERKLE__SEXP_BR_WORK_PER_NODE) */
    uint64_t work_base;     /* initial search budget (0: MERKLE__SEXP_BR_WORK_BASE) */
    /* outputs */
    uint64_t probes;                    /* hash-table slots inspected in the atom-hash table */
    uint64_t lookups;                   /* atom-hash table lookups */
    uint64_t pair_probes, pair_lookups; /* the same for the pair table */
    uint64_t nodes;           /* nodes visited by the encoder walk (one path search each) */
    uint64_t search_steps;    /* work units spent by path searches */
    uint64_t budget_cuts;     /* searches stopped by the work bound */
    uint64_t mismatches;      /* crosscheck: tokens where the two searches disagree */
    uint64_t internal_errors; /* indexed search found no parent on a step (never expected) */
    /* coverage of the indexed search (tests): searches that went up through copies, steps
    ** whose parent came from a parents-inside-copies list, dead such parents skipped, and
    ** steps taken from a spine record (the reference reaches into the stack itself) */
    uint64_t copy_searches, copy_steps, dead_copy_parents, spine_steps;
    uint64_t rehashes; /* tables re-keyed because a probe sequence got too long */
} merkle__sexp_br_opts;

merkle_status merkle__sexp_serialize_backrefs(uint8_t **out, size_t *out_len, merkle_sexp_store *st,
                                              merkle_sexp_node node, uint64_t max_out,
                                              merkle__sexp_br_opts *opts, merkle_error *error);

#endif
