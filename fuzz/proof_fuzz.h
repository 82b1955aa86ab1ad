/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Shared by the proof-verification fuzz targets (fuzz_verify_inclusion.c,
** fuzz_verify_consistency.c): input decoding, a real proof over a small tree, and the walk
** that flips one bit of the proof at a time.
*/
#ifndef MERKLE_PROOF_FUZZ_H
#define MERKLE_PROOF_FUZZ_H

#include <stdint.h>
#include <string.h>

#include "merkle/proof.h"

/* Big-endian u64 at p. */
static inline uint64_t fz_rd64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
    return v;
}

/* A real proof of `kind` for `target` (leaf index or old size) over n leaves, leaf i being the
** 8 bytes of i then `extra`, from the streaming prover; traps on any failure. */
static inline void fz_prove(merkle_proof *pr, merkle_proof_kind kind, uint64_t target, uint64_t n,
                            uint8_t extra)
{
    merkle_prover p;
    if (merkle_prover_init(&p, kind, MERKLE_HASH_SHA256, 1, target, 0) != MERKLE_OK)
        __builtin_trap();
    for (uint64_t i = 0; i < n; i++) {
        uint8_t leaf[9];
        memcpy(leaf, &i, 8);
        leaf[8] = extra;
        if (merkle_prover_push_leaf(&p, leaf, sizeof leaf) != MERKLE_OK) __builtin_trap();
    }
    if (merkle_prover_finish(pr, &p, MERKLE_PROFILE_RFC6962) != MERKLE_OK) __builtin_trap();
}

/* For every pair of bytes data[k], data[k+1] (k from 5): flip the bit they name in
** path || a || b (a and b 32-byte hashes of the proof), call verify(ctx), which must now fail
** (trap otherwise), and flip it back. */
static inline void fz_flip_each(merkle_proof *pr, uint8_t *a, uint8_t *b, const uint8_t *data,
                                size_t size, int (*verify)(const merkle_proof *, const void *),
                                const void *ctx)
{
    size_t total_bits = (pr->path_len + 2) * MERKLE_HASH_LEN * 8;
    for (size_t k = 5; k + 1 < size; k += 2) {
        size_t bit = (((size_t)data[k] << 8) | data[k + 1]) % total_bits;
        size_t byte = bit / 8;
        uint8_t *t = byte < pr->path_len * MERKLE_HASH_LEN ? &pr->path[0][0] + byte
                     : byte < (pr->path_len + 1) * MERKLE_HASH_LEN
                         ? a + (byte - pr->path_len * MERKLE_HASH_LEN)
                         : b + (byte - (pr->path_len + 1) * MERKLE_HASH_LEN);
        *t ^= (uint8_t)(1u << (bit % 8));
        if (verify(pr, ctx) == MERKLE_OK) __builtin_trap();
        *t ^= (uint8_t)(1u << (bit % 8));
    }
}

#endif
