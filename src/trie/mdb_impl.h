/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Internal interface of the merkledb proof code (src/trie/mdb_*.c): an arena (every proof and
** every verification allocates from one, so nothing is allocated per node), result helpers,
** and merkledb's bit-string keys with Go's exact Token/Take/Skip/Compare rules.
*/
#ifndef MERKLE_MDB_IMPL_H
#define MERKLE_MDB_IMPL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/mdb.h"

/* ------------------------------------------------------------------ arena */

typedef struct mdb_chunk {
    struct mdb_chunk *next;
    size_t size;
    size_t pad;
} mdb_chunk;

typedef struct mdb_arena {
    mdb_chunk *head;
    uint8_t *p, *end;
    size_t next; /* size of the next chunk */
} mdb_arena;

void *mdb_alloc_slow(mdb_arena *a, size_t n);
static inline void *mdb_alloc(mdb_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (n == 0) n = 16;
    if ((size_t)(a->end - a->p) >= n) {
        void *r = a->p;
        a->p += n;
        return r;
    }
    return mdb_alloc_slow(a, n);
}
static inline void *mdb_zalloc(mdb_arena *a, size_t n)
{
    void *r = mdb_alloc(a, n);
    if (r) memset(r, 0, n);
    return r;
}
void mdb_arena_free(mdb_arena *a);

/* ------------------------------------------------------------------ results */

int mdb_set(merkle_mdb_result *res, int kind, const char *fmt, ...) MERKLE_PRINTF(3, 4);
/* Prefix res->message with "what: " (Go's fmt.Errorf("what: %w", err)). */
void mdb_wrap(merkle_mdb_result *res, const char *what);
/* Go's message of a sentinel (without detail). */
const char *mdb_kind_text(int kind);
/* An internal code: Go would panic here. */
#define MDB_PANIC (-100)
/* An internal code: out of memory. */
#define MDB_NOMEM (-101)

/* ------------------------------------------------------------------ keys */

/* A merkledb Key: bits may be negative only for keys decoded from the wire (Go's int(uint64)). */
typedef struct mkey {
    const uint8_t *b;
    int64_t bits;
    size_t nb; /* bytes at b */
} mkey;

static inline int64_t mdb_bytes_needed(int64_t bits)
{
    return bits / 8 + (bits % 8 != 0);
}

/* Key.Token (Go's formula, including its behaviour on misaligned offsets). *panic set when
** Go would index past the key bytes. */
static inline unsigned mkey_token(mkey k, int64_t i, unsigned ts, int *panic)
{
    if (i < 0 || (uint64_t)(i / 8) >= k.nb) {
        *panic = 1;
        return 0;
    }
    unsigned b = k.b[i / 8];
    unsigned r = (unsigned)(i % 8);
    b >>= (8u - (r + ts) % 8u) % 8u;
    return b & (0xffu >> ((8u - ts) % 8u));
}

/* Bit i (MSB first) of k; i < 8*nb. */
static inline unsigned mkey_bit(const uint8_t *b, int64_t i)
{
    return ((unsigned)b[i >> 3] >> (7 - (i & 7))) & 1u;
}

int mkey_eq(mkey a, mkey b);
/* Key.Compare: -1, 0, 1. */
int mkey_cmp(mkey a, mkey b);
/* HasPrefix(k, p) (equality included); *panic when Go would shift by a negative amount. */
int mkey_has_prefix(mkey k, mkey p, int *panic);
/* Bytes compare of byte-slice keys (a prefix first). */
int mdb_bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn);
/* Take/Skip/Extend into the arena (NULL b with nb 0 is the empty key); NULL on no memory. */
int mkey_take(mkey *out, mdb_arena *a, mkey k, int64_t n);
int mkey_skip(mkey *out, mdb_arena *a, mkey k, int64_t n);
int mkey_extend3(mkey *out, mdb_arena *a, mkey x, mkey y, mkey z);
/* ToToken(v, ts). */
int mkey_token_key(mkey *out, mdb_arena *a, unsigned v, unsigned ts);
/* getLengthOfCommonPrefix(first, second, off). */
int64_t mkey_common(mkey first, mkey second, int64_t off, unsigned ts, int *panic);

/* ------------------------------------------------------------------ shared helpers */

/* Token size of a branch factor, 0 if invalid. */
static inline unsigned mdb_ts(unsigned bf)
{
    return bf == 2 ? 1 : bf == 4 ? 2 : bf == 16 ? 4 : bf == 256 ? 8 : 0;
}

/* The proof's arena (mem_). */
typedef struct mdb_proof_mem {
    mdb_arena a;
} mdb_proof_mem;

/* A new proof object with its own arena; NULL on no memory. */
merkle_mdb_proof *mdb_proof_new(void);
static inline mdb_arena *mdb_proof_arena(const merkle_mdb_proof *p)
{
    return &((mdb_proof_mem *)p->mem_)->a;
}

/* ID of a node (sha256Hasher.HashNode): children (index, id) in ascending order. */
void mdb_hash_node(uint8_t out[32], mkey key, const merkle_mdb_maybe *digest, const uint32_t *idx,
                   const uint8_t *const *ids, size_t n);

/* The verification core (mdb_verify.c): change-proof verification against db (NULL: empty
** database with branch factor bf). Returns a kind (or MDB_NOMEM). */
int mdb_verify_change_core(merkle_mdb_result *res, const merkle_mdb_proof *p, merkle_trie *db,
                           unsigned bf, merkle_mdb_maybe start, merkle_mdb_maybe end,
                           const uint8_t root[32], int64_t max_length);

/* cb58 of an ID into out (MERKLE_TRIE_CB58_ID_MAX bytes). */
void mdb_cb58(char out[MERKLE_TRIE_CB58_ID_MAX], const uint8_t id[32]);

#endif
