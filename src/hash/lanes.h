/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Lane driver shared by the multi-message kernels (SHA-256: AVX2, AVX-512, interleaved
** SHA-NI; BLAKE2b: AVX2, AVX-512; the lane pointers of the MD5 multi-buffer kernels, at the
** end). Never installed; header-only so that each ISA file
** inlines it around its own block function.
**
** A batch hashes k messages prefix || msg[i][0..len) of one length, so every lane has the
** same block structure. The blocks of one lane fall in three runs:
**   head    block 0 when a prefix is present: prefix + the first bytes of msg, built in the
**           lane's scratch;
**   direct  blocks that lie wholly inside msg: read in place (no copy), at msg + 64*b - p;
**   tail    the last one or two blocks (the end of msg and the padding), built in scratch.
** The kernel's block function absorbs nblocks consecutive blocks from each of L pointers;
** the driver calls it once per run. Lanes beyond k reuse lane 0's pointers (their output
** is discarded), so a ragged group costs one full group and reads nothing out of bounds.
*/
#ifndef MERKLE_HASH_LANES_H
#define MERKLE_HASH_LANES_H

#include <string.h>

#include "hash/impl.h"

/* Absorb nblocks blocks from each of the kernel's lanes into the kernel's state. */
typedef void (*merkle__lanes_fn)(void *state, const uint8_t *const *ptrs, size_t nblocks);

/* Copy the bytes of prefix (p bytes) || msg (len bytes) from offset off on into t; returns
** how many. Shared by the SHA-256 and BLAKE2b tail builders. */
static inline size_t merkle__lanes_copy_tail(uint8_t *t, const uint8_t *prefix, size_t p,
                                             const uint8_t *msg, size_t len, size_t off)
{
    size_t used = 0, moff = 0;
    if (off < p) {
        memcpy(t, prefix + off, p - off);
        used = p - off;
    } else {
        moff = off - p;
    }
    if (len > moff) {
        memcpy(t + used, msg + moff, len - moff);
        used += len - moff;
    }
    return used;
}

/* ------------------------------------------------------------------ SHA-256 */

typedef struct merkle__sha256_plan {
    size_t nblocks;      /* blocks of the padded message */
    size_t head;         /* 1: block 0 is built (prefix + msg start) */
    size_t direct_first; /* direct run: blocks [direct_first, tail_first) */
    size_t tail_first;   /* first built tail block; nblocks - tail_first is 1 or 2 */
} merkle__sha256_plan;

#define MERKLE__SHA256_SCRATCH 192 /* per lane: head block + two tail blocks */

static inline void merkle__sha256_plan_make(merkle__sha256_plan *pl, size_t p, size_t len)
{
    size_t total = p + len, q = total / 64;
    pl->nblocks = (total + 8) / 64 + 1;
    if (p == 0) {
        pl->head = 0;
        pl->direct_first = 0;
        pl->tail_first = q;
    } else if (q >= 1) {
        pl->head = 1;
        pl->direct_first = 1;
        pl->tail_first = q;
    } else {
        pl->head = 0;
        pl->direct_first = 0;
        pl->tail_first = 0;
    }
}

/* Build the head and tail blocks of one lane into buf (MERKLE__SHA256_SCRATCH bytes). */
static inline void merkle__sha256_lane_build(uint8_t *buf, const merkle__sha256_plan *pl,
                                             const uint8_t *prefix, size_t p, const uint8_t *msg,
                                             size_t len)
{
    if (pl->head) {
        memcpy(buf, prefix, p);
        if (p < 64) memcpy(buf + p, msg, 64 - p);
    }
    uint8_t *t = buf + 64;
    size_t used = merkle__lanes_copy_tail(t, prefix, p, msg, len, 64 * pl->tail_first);
    t[used++] = 0x80;
    size_t end = 64 * (pl->nblocks - pl->tail_first);
    memset(t + used, 0, end - 8 - used);
    merkle__store_be64(t + end - 8, (uint64_t)(p + len) * 8);
}

/*
** Run the blocks of k <= L messages through fn (state already initialised by the caller).
** scratch: L * MERKLE__SHA256_SCRATCH bytes.
*/
static inline void merkle__sha256_lanes_run(size_t L, merkle__lanes_fn fn, void *state,
                                            uint8_t *scratch, const uint8_t *const *msgs, size_t k,
                                            const uint8_t *prefix, size_t p, size_t len)
{
    merkle__sha256_plan pl;
    const uint8_t *ptrs[32]; /* L <= 32 (AVX-512: two groups of 16) */
    merkle__sha256_plan_make(&pl, p, len);
    for (size_t i = 0; i < k; i++)
        merkle__sha256_lane_build(scratch + i * MERKLE__SHA256_SCRATCH, &pl, prefix, p, msgs[i],
                                  len);
    if (pl.head) {
        for (size_t i = 0; i < L; i++) ptrs[i] = scratch + (i < k ? i : 0) * MERKLE__SHA256_SCRATCH;
        fn(state, ptrs, 1);
    }
    if (pl.tail_first > pl.direct_first) {
        for (size_t i = 0; i < L; i++) ptrs[i] = msgs[i < k ? i : 0] + 64 * pl.direct_first - p;
        fn(state, ptrs, pl.tail_first - pl.direct_first);
    }
    for (size_t i = 0; i < L; i++)
        ptrs[i] = scratch + (i < k ? i : 0) * MERKLE__SHA256_SCRATCH + 64;
    fn(state, ptrs, pl.nblocks - pl.tail_first);
}

/* ------------------------------------------------------------------ BLAKE2b */

/*
** BLAKE2b blocks are 128 bytes, zero-padded, and the last one carries the final flag, so
** the block function also takes the byte counter after the run and whether the run ends
** the message: fn(state, ptrs, nblocks, counter_after_first_block, last).
*/
typedef void (*merkle__b2_lanes_fn)(void *state, const uint8_t *const *ptrs, size_t nblocks,
                                    uint64_t counter, int last);

typedef struct merkle__b2_plan {
    size_t nblocks;      /* >= 1 */
    size_t head;         /* 1: block 0 is built (prefix + msg start), and is not the last */
    size_t direct_first; /* direct run [direct_first, nblocks - 1) */
} merkle__b2_plan;

#define MERKLE__B2_SCRATCH 256 /* per lane: head block + last block */

static inline void merkle__b2_plan_make(merkle__b2_plan *pl, size_t p, size_t len)
{
    size_t total = p + len;
    pl->nblocks = total == 0 ? 1 : (total + 127) / 128;
    pl->head = (p > 0 && pl->nblocks > 1) ? 1 : 0;
    pl->direct_first = pl->head;
}

static inline void merkle__b2_lane_build(uint8_t *buf, const merkle__b2_plan *pl,
                                         const uint8_t *prefix, size_t p, const uint8_t *msg,
                                         size_t len)
{
    if (pl->head) {
        memcpy(buf, prefix, p);
        memcpy(buf + p, msg, 128 - p);
    }
    uint8_t *t = buf + 128;
    size_t used = merkle__lanes_copy_tail(t, prefix, p, msg, len, 128 * (pl->nblocks - 1));
    memset(t + used, 0, 128 - used);
}

static inline void merkle__b2_lanes_run(size_t L, merkle__b2_lanes_fn fn, void *state,
                                        uint8_t *scratch, const uint8_t *const *msgs, size_t k,
                                        const uint8_t *prefix, size_t p, size_t len)
{
    merkle__b2_plan pl;
    const uint8_t *ptrs[16];
    merkle__b2_plan_make(&pl, p, len);
    for (size_t i = 0; i < k; i++)
        merkle__b2_lane_build(scratch + i * MERKLE__B2_SCRATCH, &pl, prefix, p, msgs[i], len);
    uint64_t done = 0;
    if (pl.head) {
        for (size_t i = 0; i < L; i++) ptrs[i] = scratch + (i < k ? i : 0) * MERKLE__B2_SCRATCH;
        fn(state, ptrs, 1, 128, 0);
        done = 128;
    }
    size_t ndirect = pl.nblocks - 1 - pl.direct_first;
    if (ndirect) {
        for (size_t i = 0; i < L; i++) ptrs[i] = msgs[i < k ? i : 0] + 128 * pl.direct_first - p;
        fn(state, ptrs, ndirect, done + 128, 0);
    }
    for (size_t i = 0; i < L; i++) ptrs[i] = scratch + (i < k ? i : 0) * MERKLE__B2_SCRATCH + 128;
    fn(state, ptrs, 1, (uint64_t)(p + len), 1);
}

/* ------------------------------------------------------------------ MD5 multi-buffer */

/*
** The lane pointers of an L-lane MD5 multi-buffer kernel (md5_mb_avx2.c, md5_mb_avx512.c):
** lane l reads data[l] and moves 64 bytes a block; a NULL lane reads a zero block that does
** not move, and is left out of the returned mask of live lanes (its state is not stored).
*/
static inline unsigned merkle__md5_lanes_setup(unsigned L, const uint8_t *const *data,
                                               const uint8_t **p, size_t *step)
{
    static const uint8_t zero[64] __attribute__((aligned(64))) = { 0 };
    unsigned live = 0;
    for (unsigned l = 0; l < L; l++) {
        if (data[l]) {
            p[l] = data[l];
            step[l] = 64;
            live |= 1u << l;
        } else {
            p[l] = zero;
            step[l] = 0;
        }
    }
    return live;
}

#endif
