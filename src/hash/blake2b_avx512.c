/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** BLAKE2b-256, 8 messages at once in the 64-bit lanes of AVX-512 registers (vprorq for
** every rotation). Blocks are transposed 8x8 twice (words 0-7, 8-15) in registers.
*/
#include <immintrin.h>

#include "hash/blake2b_impl.h"
#include "hash/lanes.h"

#define V             __m512i
#define V_ADD(a, b)   _mm512_add_epi64(a, b)
#define V_XOR(a, b)   _mm512_xor_si512(a, b)
#define V_SET1(x)     _mm512_set1_epi64((long long)(x))
#define V_ROR32(x)    _mm512_ror_epi64(x, 32)
#define V_ROR24(x)    _mm512_ror_epi64(x, 24)
#define V_ROR16(x)    _mm512_ror_epi64(x, 16)
#define V_ROR63(x)    _mm512_ror_epi64(x, 63)
#define V_OR(a, b)    _mm512_or_si512(a, b)
#define V_SHL64(x, n) _mm512_slli_epi64(x, n)
#define V_SHR64(x, n) _mm512_srli_epi64(x, n)

static inline void transpose8x8(V r[8])
{
    for (int i = 0; i < 4; i++) { /* d = 4: 256-bit halves */
        V x = r[i], y = r[i + 4];
        r[i] = _mm512_shuffle_i64x2(x, y, 0x44);
        r[i + 4] = _mm512_shuffle_i64x2(x, y, 0xEE);
    }
    for (int i = 0; i < 8; i++) { /* d = 2: 128-bit quarters */
        if (i & 2) continue;
        V x = r[i], y = r[i + 2];
        r[i] = _mm512_permutex2var_epi64(x, _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), y);
        r[i + 2] = _mm512_permutex2var_epi64(x, _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2), y);
    }
    for (int i = 0; i < 8; i += 2) { /* d = 1: words */
        V x = r[i], y = r[i + 1];
        r[i] = _mm512_unpacklo_epi64(x, y);
        r[i + 1] = _mm512_unpackhi_epi64(x, y);
    }
}

static inline void b2_load_words(V m[16], const uint8_t *const *ptrs, size_t off)
{
    V lo[8], hi[8];
    for (int i = 0; i < 8; i++) {
        lo[i] = _mm512_loadu_si512((const void *)(ptrs[i] + off));
        hi[i] = _mm512_loadu_si512((const void *)(ptrs[i] + off + 64));
    }
    transpose8x8(lo);
    transpose8x8(hi);
    for (int i = 0; i < 8; i++) {
        m[i] = lo[i];
        m[i + 8] = hi[i];
    }
}

static inline void b2_load8(V w[8], const uint8_t *const *ptrs)
{
    for (int i = 0; i < 8; i++) w[i] = _mm512_loadu_si512((const void *)ptrs[i]);
    transpose8x8(w);
}

#include "hash/blake2b_simd.h"

static void blocks8(void *st, const uint8_t *const *ptrs, size_t nblocks, uint64_t counter,
                    int last)
{
    b2_blocks((V *)st, ptrs, nblocks, counter, last);
}

static void batch_avx512(uint8_t *out, const uint8_t *const *msgs, size_t n, const uint8_t *prefix,
                         size_t prefix_len, size_t len)
{
    b2_batch(8, blocks8, out, msgs, n, prefix, prefix_len, len);
}

static int available(void)
{
    return (merkle__cpu_features() & MERKLE_CPU_AVX512) != 0;
}

const merkle__blake2b_impl merkle__blake2b_avx512 = { "avx512", available, batch_avx512, 8 };
