/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Internal interface of the BLAKE2b-256 batch kernels. Never installed.
** A backend hashes n messages prefix || msgs[i][0..len) of one length to 32-byte BLAKE2b-256
** digests (unkeyed, digest length 32). "portable" runs the in-tree BLAKE2b once per
** message; "avx2" (4 lanes) and "avx512" (8 lanes) run the lane driver of hash/lanes.h.
*/
#ifndef MERKLE_HASH_BLAKE2B_IMPL_H
#define MERKLE_HASH_BLAKE2B_IMPL_H

#include "hash/impl.h"

extern const uint64_t merkle__blake2b_IV[8];

typedef void (*merkle__blake2b_batch_fn)(uint8_t *out, const uint8_t *const *msgs, size_t n,
                                         const uint8_t *prefix, size_t prefix_len, size_t len);

typedef struct merkle__blake2b_impl {
    const char *name;
    int (*available)(void);
    merkle__blake2b_batch_fn batch;
    unsigned lanes;
} merkle__blake2b_impl;

extern const merkle__blake2b_impl merkle__blake2b_portable;
/* The per-message kernel every lane kernel is checked against and ragged remainders go to
** (the portable one). */
const merkle__blake2b_impl *merkle__blake2b_single(void);

/* Portable streaming BLAKE2b (blake2b_portable.c), unkeyed, digest length 1..64. */
typedef struct merkle__b2p {
    uint64_t h[8];
    uint64_t t0, t1; /* bytes compressed, 128-bit */
    uint8_t buf[128];
    size_t fill;
    size_t out_len;
} merkle__b2p;
void merkle__b2p_init(merkle__b2p *s, size_t out_len);
void merkle__b2p_update(merkle__b2p *s, const void *data, size_t n);
void merkle__b2p_final(merkle__b2p *s, uint8_t *out);
#ifdef MERKLE_HAVE_X86
extern const merkle__blake2b_impl merkle__blake2b_avx2;
extern const merkle__blake2b_impl merkle__blake2b_avx512;
#endif

/* Every kernel compiled in (usable or not), in preference order; returns the count. */
size_t merkle__blake2b_all(const merkle__blake2b_impl *const **list);
/* Agreement with the per-message kernel on ragged batches, as run before a kernel is used: 1 =
 * passed. */
int merkle__blake2b_self_test(const merkle__blake2b_impl *impl);

#endif
