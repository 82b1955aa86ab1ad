/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Internal interface of the digest backends. Never installed.
**
** A SHA-256 backend is a table of two kernels and its natural width:
**   compress  absorb nblocks consecutive 64-byte blocks into one state (streaming, one-shot)
**   batch     out[32*i..) = SHA-256(prefix || msgs[i][0..len)) for i < n: N independent
**             messages of one length, the shape of a Merkle level. Multi-lane backends
**             (AVX2, AVX-512) and interleaved SHA-NI implement it natively; others use
**             merkle__sha256_batch_generic over their compress.
** Multi-lane kernels share the lane driver in hash/lanes.h (whole blocks read in place, only
** the head and tail blocks copied). In automatic mode the batch entry is a composite chosen by
** a one-time calibration (sha256.c): per message shape the fastest measured kernel, with
** ragged remainders sent to the narrow kernel when that is cheaper than a padded group.
** Only src/hash/ files with an ISA suffix (_shani, _avx2, _avx512, ...) use intrinsics; the
** build gives each its own -m flags.
*/
#ifndef MERKLE_HASH_IMPL_H
#define MERKLE_HASH_IMPL_H

#include "common/internal.h"
#include "merkle/hash.h"

typedef void (*merkle__sha256_compress_fn)(uint32_t state[8], const uint8_t *blocks,
                                           size_t nblocks);
typedef void (*merkle__sha256_batch_fn)(uint8_t *out, const uint8_t *const *msgs, size_t n,
                                        const uint8_t *prefix, size_t prefix_len, size_t len);

typedef struct merkle__sha256_impl {
    const char *name;
    int (*available)(void); /* 1 if this CPU (and OS) can run it */
    merkle__sha256_compress_fn compress;
    merkle__sha256_batch_fn batch;
    unsigned lanes; /* messages one kernel pass takes at full width (1 = plain loop) */
} merkle__sha256_impl;

/* keccak-f[1600] on 25 little-endian lanes (src/hash/keccak.c) and its round constants. */
void merkle__keccak_f1600(uint64_t s[25]);
extern const uint64_t merkle__keccak_rc[24];

/* Keccak-256 of n 64-byte messages at base + i * stride (the tree node shape). */
typedef void (*merkle__keccak256_msg64_fn)(uint8_t *out, const uint8_t *base, size_t stride,
                                           size_t n);
void merkle__keccak256_msg64_avx2(uint8_t *out, const uint8_t *base, size_t stride, size_t n);
void merkle__keccak256_msg64_avx512(uint8_t *out, const uint8_t *base, size_t stride, size_t n);
/* The same for 32-byte messages (the same function type). */
void merkle__keccak256_msg32_avx2(uint8_t *out, const uint8_t *base, size_t stride, size_t n);
void merkle__keccak256_msg32_avx512(uint8_t *out, const uint8_t *base, size_t stride, size_t n);
/* A kernel by name ("portable", "avx2", "avx512"); NULL when this CPU or build lacks it. */
merkle__keccak256_msg64_fn merkle__keccak256_kernel(const char *name);
/* The 32-byte-message kernel of a name (tests), NULL when it does not run here. */
merkle__keccak256_msg64_fn merkle__keccak256_kernel32(const char *name);
/* Name of the kernel the batch entry uses (chosen on first call). */
const char *merkle__keccak256_backend(void);

extern const uint32_t merkle__sha256_K[64];
extern const uint32_t merkle__sha256_H0[8];

/* The backend in use (selected on first call). Never NULL. */
const merkle__sha256_impl *merkle__sha256_impl_get(void);

/*
** Hash SHA-256(prefix || msg) with the given compress function. prefix_len <= 64.
** The building block of every non-native batch kernel and of tails.
*/
void merkle__sha256_prefixed(merkle__sha256_compress_fn compress, uint8_t out[32],
                             const uint8_t *prefix, size_t prefix_len, const uint8_t *msg,
                             size_t len);

/* Batch kernel that loops merkle__sha256_prefixed with compress. */
void merkle__sha256_batch_generic(merkle__sha256_compress_fn compress, uint8_t *out,
                                  const uint8_t *const *msgs, size_t n, const uint8_t *prefix,
                                  size_t prefix_len, size_t len);

/* The portable compression function (also the single-stream fallback of lane kernels). */
void merkle__sha256_compress_portable(uint32_t state[8], const uint8_t *blocks, size_t nblocks);

/* Backends (defined one per file). */
extern const merkle__sha256_impl merkle__sha256_portable;
#ifdef MERKLE_HAVE_X86
extern const merkle__sha256_impl merkle__sha256_shani;  /* 1 stream */
extern const merkle__sha256_impl merkle__sha256_shani2; /* 2 interleaved streams */
extern const merkle__sha256_impl merkle__sha256_shani4; /* 4 interleaved streams */
extern const merkle__sha256_impl merkle__sha256_avx2;   /* 8 lanes */
extern const merkle__sha256_impl merkle__sha256_avx512; /* 16 lanes */
#endif
#ifdef MERKLE_HAVE_ARM64
extern const merkle__sha256_impl merkle__sha256_armv8;   /* 1 stream */
extern const merkle__sha256_impl merkle__sha256_armv8x2; /* 2 interleaved streams */
extern const merkle__sha256_impl merkle__sha256_armv8x4; /* 4 interleaved streams */
#endif

/*
** Calibration result of the automatic choice (for benchmarks and tests): the kernel used for
** messages of at most two blocks, for longer ones, and the measured ns per message of every
** available kernel on both shapes (0 when not measured). Triggers the choice if needed; when
** a backend was forced it calibrates on the spot (not thread-safe then: tests, benchmarks).
*/
typedef struct merkle__sha256_calibration {
    const merkle__sha256_impl *shorts, *longs, *narrow;
    size_t i_shorts, i_longs, i_narrow; /* their indices in impl[] */
    size_t count;
    const merkle__sha256_impl *impl[8];
    double ns_short[8], ns_long[8];
} merkle__sha256_calibration;
void merkle__sha256_calibration_get(merkle__sha256_calibration *out);

/* Known-answer self-test the dispatch runs on a kernel before using it: 1 = passed. */
int merkle__sha256_self_test(const merkle__sha256_impl *impl);

/* Every backend compiled in (available or not), in preference order; returns the count. */
size_t merkle__sha256_all(const merkle__sha256_impl *const **list);

/*
** BLAKE2b-256 batch kernels (blake2b.c, blake2b_<isa>.c). The kernel is the fastest one
** measured once on 65-byte messages (sodium = libsodium per message, avx2 = 4 lanes,
** avx512 = 8 lanes), or the one named by MERKLE_BLAKE2B_BACKEND if usable.
** merkle__blake2b_set_backend(NULL or "auto") restores the automatic choice; an unknown name
** gives MERKLE_ERR_ARG, an unusable one MERKLE_ERR_UNSUPPORTED. Not thread-safe (tests and
** benchmarks only). merkle__blake2b_backends lists the usable ones like
** merkle_sha256_backends; merkle__blake2b_backend names the one in use.
*/
merkle_status merkle__blake2b_set_backend(const char *name);
size_t merkle__blake2b_backends(const char **names, size_t cap);
const char *merkle__blake2b_backend(void);

/* Strided BLAKE2b-256 batch, the shape of merkle_sha256_batch_strided. */
void merkle__blake2b256_batch_strided(uint8_t *out, const uint8_t *prefix, size_t prefix_len,
                                      const uint8_t *base, size_t stride, size_t len, size_t n);

/* CPU features (x86-64); 0 elsewhere. Computed once. */
enum {
    MERKLE_CPU_SSSE3 = 1 << 0,
    MERKLE_CPU_SSE41 = 1 << 1,
    MERKLE_CPU_AVX2 = 1 << 2,
    MERKLE_CPU_AVX512 = 1 << 3, /* F + BW + VL, with OS support for ZMM state */
    MERKLE_CPU_SHA = 1 << 4,
    MERKLE_CPU_BMI2 = 1 << 5,
    MERKLE_CPU_ARM_SHA2 = 1 << 6 /* aarch64: the SHA-256 instructions (HWCAP_SHA2) */
};
unsigned merkle__cpu_features(void);

#endif
