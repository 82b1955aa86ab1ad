/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** SHA-256, 16 messages at once in the 32-bit lanes of AVX-512 registers (F + BW + VL).
** Rotations are vprord, the three-input functions (Ch, Maj, 3-way xor) one vpternlogd
** each. Input blocks are transposed 16x16 in registers (byte swap + four swap stages).
*/
#include <immintrin.h>

#include "hash/lanes.h"

#define V               __m512i
#define V_ADD(a, b)     _mm512_add_epi32(a, b)
#define V_SET1(x)       _mm512_set1_epi32((int)(x))
#define V_ROR(x, n)     _mm512_ror_epi32(x, n)
#define V_SHR(x, n)     _mm512_srli_epi32(x, n)
#define V_SHL(x, n)     _mm512_slli_epi32(x, n)
#define V_OR(a, b)      _mm512_or_si512(a, b)
#define V_XOR3(a, b, c) _mm512_ternarylogic_epi32(a, b, c, 0x96)
#define V_CH(e, f, g)   _mm512_ternarylogic_epi32(e, f, g, 0xCA)
#define V_MAJ(a, b, c)  _mm512_ternarylogic_epi32(a, b, c, 0xE8)

/*
** Transpose: after the stage with distance d, row i and row i+d (bit d of i clear) have
** exchanged the off-diagonal d x d blocks; after d = 8, 4, 2, 1, w[t] holds word t of every
** lane.
*/
static inline void simd_load_words(V w[16], const uint8_t *const *ptrs, size_t off)
{
    const V bswap = _mm512_set4_epi32(0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203);
    V r[16];
    for (int i = 0; i < 16; i++)
        r[i] = _mm512_shuffle_epi8(_mm512_loadu_si512((const void *)(ptrs[i] + off)), bswap);
    for (int i = 0; i < 8; i++) { /* d = 8: 256-bit halves */
        V x = r[i], y = r[i + 8];
        r[i] = _mm512_shuffle_i32x4(x, y, 0x44);
        r[i + 8] = _mm512_shuffle_i32x4(x, y, 0xEE);
    }
    for (int i = 0; i < 16; i++) { /* d = 4: 128-bit quarters */
        if (i & 4) continue;
        V x = r[i], y = r[i + 4];
        r[i] = _mm512_permutex2var_epi64(x, _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), y);
        r[i + 4] = _mm512_permutex2var_epi64(x, _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2), y);
    }
    for (int i = 0; i < 16; i++) { /* d = 2: 64-bit pairs */
        if (i & 2) continue;
        V x = r[i], y = r[i + 2];
        r[i] = _mm512_unpacklo_epi64(x, y);
        r[i + 2] = _mm512_unpackhi_epi64(x, y);
    }
    for (int i = 0; i < 16; i += 2) { /* d = 1: words */
        V x = r[i], y = r[i + 1];
        r[i] = _mm512_mask_blend_epi32(0xAAAA, x, _mm512_slli_epi64(y, 32));
        r[i + 1] = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(x, 32), y);
    }
    for (int i = 0; i < 16; i++) w[i] = r[i];
}

#define S_LANES 16
#define V_STORE_BE(p, v)                                                                           \
    _mm512_store_si512(                                                                            \
        (void *)(p),                                                                               \
        _mm512_shuffle_epi8(v, _mm512_set4_epi32(0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203)))
#include "hash/sha256_simd.h"

static int available(void)
{
    return (merkle__cpu_features() & MERKLE_CPU_AVX512) != 0;
}

const merkle__sha256_impl merkle__sha256_avx512 = { "avx512", available,
                                                    merkle__sha256_compress_portable, simd_batch,
                                                    16 };
