/*
** Internal interface of the digest backends. Never installed.
**
** A SHA-256 backend is a table of two kernels:
**   compress  absorb nblocks consecutive 64-byte blocks into one state (streaming, one-shot)
**   batch     out[32*i..) = SHA-256(prefix || msgs[i][0..len)) for i < n: N independent
**             messages of one length, the shape of a Merkle level. Multi-lane backends
**             (AVX2, AVX-512) and interleaved SHA-NI implement it natively; others use
**             merkle__sha256_batch_generic over their compress.
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
} merkle__sha256_impl;

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

/* Backends (defined one per file). */
extern const merkle__sha256_impl merkle__sha256_portable;
#ifdef MERKLE_HAVE_X86
extern const merkle__sha256_impl merkle__sha256_shani;
#endif

/* CPU features (x86-64); 0 elsewhere. Computed once. */
enum {
    MERKLE_CPU_SSSE3 = 1 << 0,
    MERKLE_CPU_SSE41 = 1 << 1,
    MERKLE_CPU_AVX2 = 1 << 2,
    MERKLE_CPU_AVX512 = 1 << 3, /* F + BW + VL, with OS support for ZMM state */
    MERKLE_CPU_SHA = 1 << 4,
    MERKLE_CPU_BMI2 = 1 << 5
};
unsigned merkle__cpu_features(void);

#endif
