/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** SHA-256, 8 messages at once in the 32-bit lanes of AVX2 registers. Rotations are two
** shifts and an or; blocks are transposed 8x8 twice (words 0-7 and 8-15) in registers.
*/
#include <immintrin.h>

#include "hash/lanes.h"

#define V               __m256i
#define V_ADD(a, b)     _mm256_add_epi32(a, b)
#define V_SET1(x)       _mm256_set1_epi32((int)(x))
#define V_ROR(x, n)     _mm256_or_si256(_mm256_srli_epi32(x, n), _mm256_slli_epi32(x, 32 - (n)))
#define V_SHR(x, n)     _mm256_srli_epi32(x, n)
#define V_SHL(x, n)     _mm256_slli_epi32(x, n)
#define V_OR(a, b)      _mm256_or_si256(a, b)
#define V_XOR3(a, b, c) _mm256_xor_si256(_mm256_xor_si256(a, b), c)
#define V_CH(e, f, g)   _mm256_xor_si256(_mm256_and_si256(e, _mm256_xor_si256(f, g)), g)
#define V_MAJ(a, b, c)                                                                             \
    _mm256_or_si256(_mm256_and_si256(a, b), _mm256_and_si256(c, _mm256_or_si256(a, b)))

/* 8x8 transpose of 32-bit words by swap stages d = 4, 2, 1 (see sha256_avx512.c). */
static inline __attribute__((always_inline)) void transpose8(V r[8])
{
    for (int i = 0; i < 4; i++) {
        V x = r[i], y = r[i + 4];
        r[i] = _mm256_permute2x128_si256(x, y, 0x20);
        r[i + 4] = _mm256_permute2x128_si256(x, y, 0x31);
    }
    for (int i = 0; i < 8; i++) {
        if (i & 2) continue;
        V x = r[i], y = r[i + 2];
        r[i] = _mm256_unpacklo_epi64(x, y);
        r[i + 2] = _mm256_unpackhi_epi64(x, y);
    }
    for (int i = 0; i < 8; i += 2) {
        V x = r[i], y = r[i + 1];
        r[i] = _mm256_blend_epi32(x, _mm256_slli_epi64(y, 32), 0xAA);
        r[i + 1] = _mm256_blend_epi32(_mm256_srli_epi64(x, 32), y, 0xAA);
    }
}

static inline __attribute__((always_inline)) void
simd_load_words(V w[16], const uint8_t *const *ptrs, size_t off)
{
    const V bswap = _mm256_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13,
                                    14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
    V lo[8], hi[8];
    for (int i = 0; i < 8; i++) {
        lo[i] = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(ptrs[i] + off)), bswap);
        hi[i] =
            _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(ptrs[i] + off + 32)), bswap);
    }
    transpose8(lo);
    transpose8(hi);
    for (int i = 0; i < 8; i++) {
        w[i] = lo[i];
        w[i + 8] = hi[i];
    }
}

/* The k <= 8 digests of the lanes' states: byte swap, an 8 x 8 transpose in registers, one
** 32-byte store per lane. */
static inline __attribute__((always_inline)) void simd_store_digests(uint8_t *out, const V st[8],
                                                                     size_t k)
{
    const V bswap = _mm256_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13,
                                    14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
    V r[8];
    for (int j = 0; j < 8; j++) r[j] = _mm256_shuffle_epi8(st[j], bswap);
    transpose8(r);
    for (size_t i = 0; i < k; i++) _mm256_storeu_si256((__m256i *)(out + 32 * i), r[i]);
}

#define S_LANES           8
#define S_TWO_GROUPS      0 /* 16 registers: one group */
#define S_SCHED_IN_MEMORY 1
#include "hash/sha256_simd.h"

static int available(void)
{
    return (merkle__cpu_features() & MERKLE_CPU_AVX2) != 0;
}

const merkle__sha256_impl merkle__sha256_avx2 = { "avx2", available,
                                                  merkle__sha256_compress_portable, simd_batch, 8 };
