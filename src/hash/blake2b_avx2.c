/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** BLAKE2b-256, 4 messages at once in the 64-bit lanes of AVX2 registers. Rotations by 32,
** 24 and 16 are byte shuffles, by 63 an add and a shift. Blocks are transposed 4x4 four
** times in registers.
*/
#include <immintrin.h>

#include "hash/blake2b_impl.h"
#include "hash/lanes.h"

#define V           __m256i
#define V_ADD(a, b) _mm256_add_epi64(a, b)
#define V_XOR(a, b) _mm256_xor_si256(a, b)
#define V_SET1(x)   _mm256_set1_epi64x((long long)(x))
#define V_ROR32(x)  _mm256_shuffle_epi32(x, 0xB1)
#define V_ROR24(x)                                                                                 \
    _mm256_shuffle_epi8(x, _mm256_setr_epi8(3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10,  \
                                            3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10))
#define V_ROR16(x)                                                                                 \
    _mm256_shuffle_epi8(x, _mm256_setr_epi8(2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9,  \
                                            2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9))
#define V_ROR63(x)    _mm256_or_si256(_mm256_add_epi64(x, x), _mm256_srli_epi64(x, 63))
#define V_OR(a, b)    _mm256_or_si256(a, b)
#define V_SHL64(x, n) _mm256_slli_epi64(x, n)
#define V_SHR64(x, n) _mm256_srli_epi64(x, n)

static inline void load_quarters(V *m, const uint8_t *const *ptrs, size_t off, int nq)
{
    for (int q = 0; q < nq; q++) {
        V r[4];
        for (int i = 0; i < 4; i++)
            r[i] = _mm256_loadu_si256((const __m256i *)(ptrs[i] + off + 32 * q));
        for (int i = 0; i < 2; i++) { /* d = 2: 128-bit halves */
            V x = r[i], y = r[i + 2];
            r[i] = _mm256_permute2x128_si256(x, y, 0x20);
            r[i + 2] = _mm256_permute2x128_si256(x, y, 0x31);
        }
        for (int i = 0; i < 4; i += 2) { /* d = 1: words */
            V x = r[i], y = r[i + 1];
            r[i] = _mm256_unpacklo_epi64(x, y);
            r[i + 1] = _mm256_unpackhi_epi64(x, y);
        }
        for (int i = 0; i < 4; i++) m[4 * q + i] = r[i];
    }
}

static inline void b2_load_words(V m[16], const uint8_t *const *ptrs, size_t off)
{
    load_quarters(m, ptrs, off, 4);
}

static inline void b2_load8(V w[8], const uint8_t *const *ptrs)
{
    load_quarters(w, ptrs, 0, 2);
}

#include "hash/blake2b_simd.h"

static void blocks4(void *st, const uint8_t *const *ptrs, size_t nblocks, uint64_t counter,
                    int last)
{
    b2_blocks((V *)st, ptrs, nblocks, counter, last);
}

static void batch_avx2(uint8_t *out, const uint8_t *const *msgs, size_t n, const uint8_t *prefix,
                       size_t prefix_len, size_t len)
{
    b2_batch(4, blocks4, out, msgs, n, prefix, prefix_len, len);
}

static int available(void)
{
    return (merkle__cpu_features() & MERKLE_CPU_AVX2) != 0;
}

const merkle__blake2b_impl merkle__blake2b_avx2 = { "avx2", available, batch_avx2, 4 };
