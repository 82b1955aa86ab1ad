/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Tree hash (B.1), canonical serialized length and canonical serialization (B.2).
**
** Tree hashes are memoised per store node. Hashing a node first collects, iteratively, the
** reachable pairs that have no hash yet (each at most once: that is the DAG memo), then
** hashes them level by level: a pair's level is one more than its highest unhashed child, so
** all pairs of one level are independent and go through merkle_sha256_batch_strided as
** 65-byte messages 02 || left || right. Atoms of 0 or 1 byte come from a table.
*/
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sexp/sexp_impl.h"

/* ------------------------------------------------------------------ small atoms */

static uint8_t g_small[257][32]; /* [0..256): 1-byte atoms, [256]: nil */
static pthread_once_t g_small_once = PTHREAD_ONCE_INIT;

static void small_init(void)
{
    for (unsigned b = 0; b < 256; b++) {
        uint8_t byte = (uint8_t)b;
        merkle__sexp_sha_tagged(g_small[b], 0x01, &byte, 1);
    }
    merkle__sexp_sha_tagged(g_small[256], 0x01, NULL, 0);
}

merkle_status merkle__sexp_memo_reserve(merkle_sexp_store *st)
{
    if (st->pair_hash_cap < st->npairs) {
        size_t old = st->pair_hash_cap, cap = old;
        void *h = st->pair_hash;
        if (merkle__grow(&h, &cap, st->npairs, 32)) return MERKLE_ERR_NOMEM;
        st->pair_hash = h;
        size_t cap2 = old;
        void *d = st->pair_done;
        if (merkle__grow(&d, &cap2, cap, 1)) return MERKLE_ERR_NOMEM;
        st->pair_done = d;
        memset(st->pair_done + old, 0, cap - old);
        st->pair_hash_cap = cap;
    }
    if (st->atom_hash_cap < st->natoms) {
        size_t old = st->atom_hash_cap, cap = old;
        void *h = st->atom_hash;
        if (merkle__grow(&h, &cap, st->natoms, 32)) return MERKLE_ERR_NOMEM;
        st->atom_hash = h;
        size_t cap2 = old;
        void *d = st->atom_done;
        if (merkle__grow(&d, &cap2, cap, 1)) return MERKLE_ERR_NOMEM;
        st->atom_done = d;
        memset(st->atom_done + old, 0, cap - old);
        st->atom_hash_cap = cap;
    }
    return MERKLE_OK;
}

const uint8_t *merkle__sexp_atom_hash(merkle_sexp_store *st, size_t i)
{
    uint8_t *h = st->atom_hash + 32 * i;
    if (st->atom_done[i]) return h;
    uint64_t len = st->atoms[2 * i + 1];
    const uint8_t *data = merkle__sexp_atom_data(st, i);
    if (len <= 1) {
        pthread_once(&g_small_once, small_init);
        memcpy(h, g_small[len ? data[0] : 256], 32);
    } else {
        merkle__sexp_sha_tagged(h, 0x01, data, (size_t)len);
    }
    st->atom_done[i] = 1;
    return h;
}

/* Hash the pairs listed in todo[0..n) (all unhashed, in increasing index order). */
static merkle_status hash_pairs(merkle_sexp_store *st, const uint32_t *todo, size_t n)
{
    static const uint8_t two = 0x02;
    merkle_status s = MERKLE_ERR_NOMEM;
    uint32_t *level = malloc((n ? n : 1) * sizeof *level);
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    size_t *start = NULL;
    if (!level || !order) goto out;
    /* Levels in index order: children come before parents. pair_done holds 2 for "in this
    ** batch" and the level lives in level[] found by position; a child's position is looked
    ** up through pair_hash scratch: we store the todo position in the (unused) hash slot. */
    uint32_t maxlev = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t i = todo[k];
        uint32_t lv = 0;
        for (int side = 0; side < 2; side++) {
            merkle_sexp_node c = st->pairs[2 * (size_t)i + (size_t)side];
            if (c & MERKLE__SEXP_ATOM_BIT) continue;
            if (st->pair_done[c] == 2) {
                uint32_t pos;
                memcpy(&pos, st->pair_hash + 32 * (size_t)c, 4);
                if (level[pos] + 1 > lv) lv = level[pos] + 1;
            }
        }
        level[k] = lv;
        if (lv > maxlev) maxlev = lv;
        uint32_t pos = (uint32_t)k;
        memcpy(st->pair_hash + 32 * (size_t)i, &pos, 4);
    }
    start = calloc((size_t)maxlev + 2, sizeof *start);
    if (!start) goto out;
    for (size_t k = 0; k < n; k++) start[level[k] + 1]++;
    for (uint32_t l = 0; l <= maxlev; l++) start[l + 1] += start[l];
    for (size_t k = 0; k < n; k++) order[start[level[k]]++] = todo[k];
    /* start[l] is now the end of level l; hash each level in chunks. */
    enum { CHUNK = 64 };
    uint8_t msgs[CHUNK * 64], outs[CHUNK * 32];
    size_t begin = 0;
    for (uint32_t l = 0; l <= maxlev; l++) {
        size_t end = start[l];
        for (size_t k = begin; k < end; k += CHUNK) {
            size_t m = end - k < CHUNK ? end - k : CHUNK;
            for (size_t j = 0; j < m; j++) {
                uint32_t i = order[k + j];
                memcpy(msgs + 64 * j, merkle__sexp_hash_of(st, st->pairs[2 * (size_t)i]), 32);
                memcpy(msgs + 64 * j + 32, merkle__sexp_hash_of(st, st->pairs[2 * (size_t)i + 1]),
                       32);
            }
            merkle_sha256_batch_strided(outs, &two, 1, msgs, 64, 64, m);
            for (size_t j = 0; j < m; j++) {
                uint32_t i = order[k + j];
                memcpy(st->pair_hash + 32 * (size_t)i, outs + 32 * j, 32);
                st->pair_done[i] = 1;
            }
        }
        begin = end;
    }
    s = MERKLE_OK;
out:
    if (s != MERKLE_OK)
        for (size_t k = 0; k < n; k++) st->pair_done[todo[k]] = 0;
    free(level);
    free(order);
    free(start);
    return s;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

merkle_status merkle__sexp_hash_reachable(merkle_sexp_store *st, merkle_sexp_node node)
{
    merkle_status s = merkle__sexp_memo_reserve(st);
    if (s) return s;
    if (node & MERKLE__SEXP_ATOM_BIT) {
        merkle__sexp_atom_hash(st, node & ~MERKLE__SEXP_ATOM_BIT);
        return MERKLE_OK;
    }
    if (st->pair_done[node]) return MERKLE_OK;
    /* Collect unhashed reachable pairs (marked 2), hashing reachable atoms on the way. */
    uint32_t *stack = NULL, *todo = NULL;
    size_t nstack = 0, stack_cap = 0, ntodo = 0, todo_cap = 0;
    s = MERKLE_ERR_NOMEM;
    if (merkle__grow(&stack, &stack_cap, 64, 4)) goto out;
    stack[nstack++] = node;
    st->pair_done[node] = 2;
    while (nstack) {
        uint32_t i = stack[--nstack];
        if (merkle__grow(&todo, &todo_cap, ntodo + 1, 4)) goto out;
        todo[ntodo++] = i;
        for (int side = 0; side < 2; side++) {
            merkle_sexp_node c = st->pairs[2 * (size_t)i + (size_t)side];
            if (c & MERKLE__SEXP_ATOM_BIT) {
                merkle__sexp_atom_hash(st, c & ~MERKLE__SEXP_ATOM_BIT);
            } else if (!st->pair_done[c]) {
                st->pair_done[c] = 2;
                if (merkle__grow(&stack, &stack_cap, nstack + 1, 4)) goto out;
                stack[nstack++] = c;
            }
        }
    }
    /* Children have smaller indices than parents: index order is a topological order. */
    int sorted = 1;
    for (size_t k = 1; k < ntodo && sorted; k++) sorted = todo[k - 1] < todo[k];
    if (!sorted) qsort(todo, ntodo, sizeof *todo, cmp_u32);
    s = hash_pairs(st, todo, ntodo);
out:
    if (s != MERKLE_OK) {
        for (size_t k = 0; k < ntodo; k++) st->pair_done[todo[k]] = 0;
        for (size_t k = 0; k < nstack; k++) st->pair_done[stack[k]] = 0;
    }
    free(stack);
    free(todo);
    return s;
}

merkle_status merkle_sexp_tree_hash(uint8_t out[MERKLE_HASH_LEN], merkle_sexp_store *store,
                                    merkle_sexp_node node)
{
    if (!out || !store || !merkle__sexp_valid(store, node)) return MERKLE_ERR_ARG;
    merkle_status s = merkle__sexp_hash_reachable(store, node);
    if (s) return s;
    memcpy(out, merkle__sexp_hash_of(store, node), 32);
    return MERKLE_OK;
}

/* ------------------------------------------------------------------ canonical form */

static uint64_t atom_ser_len(const merkle_sexp_store *st, size_t i)
{
    uint64_t len = st->atoms[2 * i + 1];
    return merkle__sexp_atom_ser_len(len, len ? st->bytes[st->atoms[2 * i]] : 0);
}

static uint64_t sat_add3(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t s = a + b;
    if (s < a) return UINT64_MAX;
    uint64_t t = s + c;
    return t < s ? UINT64_MAX : t;
}

/* Serialized length of every pair 0..last (saturating at UINT64_MAX) into *out (malloc'd). */
merkle_status merkle__sexp_pair_lengths(uint64_t **out, const merkle_sexp_store *st, size_t last)
{
    uint64_t *sl = malloc((last + 1) * sizeof *sl);
    if (!sl) return MERKLE_ERR_NOMEM;
    for (size_t i = 0; i <= last; i++) {
        uint64_t part[2];
        for (int side = 0; side < 2; side++) {
            merkle_sexp_node c = st->pairs[2 * i + (size_t)side];
            part[side] =
                (c & MERKLE__SEXP_ATOM_BIT) ? atom_ser_len(st, c & ~MERKLE__SEXP_ATOM_BIT) : sl[c];
        }
        sl[i] = sat_add3(1, part[0], part[1]);
    }
    *out = sl;
    return MERKLE_OK;
}

merkle_status merkle_sexp_serialized_length(uint64_t *len, const merkle_sexp_store *store,
                                            merkle_sexp_node node)
{
    if (!len || !store || !merkle__sexp_valid(store, node)) return MERKLE_ERR_ARG;
    if (node & MERKLE__SEXP_ATOM_BIT) {
        *len = atom_ser_len(store, node & ~MERKLE__SEXP_ATOM_BIT);
        return MERKLE_OK;
    }
    uint64_t *sl;
    merkle_status s = merkle__sexp_pair_lengths(&sl, store, node);
    if (s) return s;
    uint64_t v = sl[node];
    free(sl);
    if (v == UINT64_MAX) return MERKLE_ERR_RANGE;
    *len = v;
    return MERKLE_OK;
}

/* Write the atom encoding of data[0..len) at out (room checked by the caller). */
size_t merkle__sexp_write_atom(uint8_t *out, const uint8_t *data, uint64_t len)
{
    if (len == 0) {
        out[0] = 0x80;
        return 1;
    }
    if (len == 1 && data[0] < 0x80) {
        out[0] = data[0];
        return 1;
    }
    size_t k = merkle_sexp_atom_prefix(out, len);
    memcpy(out + k, data, (size_t)len);
    return k + (size_t)len;
}

merkle_status merkle_sexp_serialize(uint8_t *out, size_t cap, size_t *out_len,
                                    const merkle_sexp_store *store, merkle_sexp_node node)
{
    if (!out_len || !store || (!out && cap) || !merkle__sexp_valid(store, node))
        return MERKLE_ERR_ARG;
    uint64_t need;
    merkle_status s = merkle_sexp_serialized_length(&need, store, node);
    if (s) return s;
    if (need > SIZE_MAX) return MERKLE_ERR_RANGE;
    *out_len = (size_t)need;
    if (need > cap) return MERKLE_ERR_BUFFER;
    MERKLE_ASSERT(out); /* every node takes at least one byte: cap >= need >= 1 */
    merkle_sexp_node *stack = NULL;
    size_t n = 0, scap = 0, w = 0;
    if (merkle__grow(&stack, &scap, 64, sizeof *stack)) return MERKLE_ERR_NOMEM;
    stack[n++] = node;
    while (n) {
        merkle_sexp_node x = stack[--n];
        if (x & MERKLE__SEXP_ATOM_BIT) {
            size_t i = x & ~MERKLE__SEXP_ATOM_BIT;
            w += merkle__sexp_write_atom(out + w, merkle__sexp_atom_data(store, i),
                                         store->atoms[2 * i + 1]);
            continue;
        }
        out[w++] = 0xff;
        if (merkle__grow(&stack, &scap, n + 2, sizeof *stack)) {
            free(stack);
            return MERKLE_ERR_NOMEM;
        }
        stack[n++] = store->pairs[2 * (size_t)x + 1];
        stack[n++] = store->pairs[2 * (size_t)x];
    }
    free(stack);
    return MERKLE_OK;
}
