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
** Transpose, 64 shuffles for 16 blocks: the loads put 32-byte halves of two blocks in each
** register (R[i], i < 8: the first halves of blocks P(i) and P(i + 8); R[i + 8]: their
** second halves), four-by-four 32-bit transposes inside each 128-bit quarter (unpacks) then
** gather one word's four quarters (shuffle_i32x4). That last step yields the lanes of
** quarter order 0, 2, 1, 3, which the load order P (blocks 4-7 and 8-11 swapped) undoes.
*/
static inline __attribute__((always_inline)) void
simd_load_words(V w[16], const uint8_t *const *ptrs, size_t off)
{
    const V bswap = _mm512_set4_epi32(0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203);
    static const unsigned char P[16] = { 0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15 };
    V r[16], u[16];
    for (int i = 0; i < 8; i++) {
        const uint8_t *lo = ptrs[P[i]] + off, *hi = ptrs[P[i + 8]] + off;
        V x = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)lo));
        V y = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(lo + 32)));
        x = _mm512_inserti64x4(x, _mm256_loadu_si256((const __m256i *)hi), 1);
        y = _mm512_inserti64x4(y, _mm256_loadu_si256((const __m256i *)(hi + 32)), 1);
        r[i] = _mm512_shuffle_epi8(x, bswap);
        r[i + 8] = _mm512_shuffle_epi8(y, bswap);
    }
    /* r[4g + j], quarter c: word 8(g >> 1) + 4(c & 1) + q of block 4(g & 1) + j (+ 8 when
    ** c >= 2, in the P order) in dword q. After the 4x4 in-quarter transposes, u[4g + k]
    ** quarter c holds word 8(g >> 1) + 4(c & 1) + k of four consecutive blocks. */
    for (int g = 0; g < 16; g += 4) {
        V t0 = _mm512_unpacklo_epi32(r[g], r[g + 1]), t1 = _mm512_unpackhi_epi32(r[g], r[g + 1]);
        V t2 = _mm512_unpacklo_epi32(r[g + 2], r[g + 3]);
        V t3 = _mm512_unpackhi_epi32(r[g + 2], r[g + 3]);
        u[g + 0] = _mm512_unpacklo_epi64(t0, t2);
        u[g + 1] = _mm512_unpackhi_epi64(t0, t2);
        u[g + 2] = _mm512_unpacklo_epi64(t1, t3);
        u[g + 3] = _mm512_unpackhi_epi64(t1, t3);
    }
    for (int h = 0; h < 2; h++)       /* words 8h + k and 8h + 4 + k: groups g = 2h (blocks 0-3 */
        for (int k = 0; k < 4; k++) { /* and 8-11 in P order) and g = 2h + 1 (4-7, 12-15) */
            V a = u[8 * h + k], b = u[8 * h + 4 + k];
            w[8 * h + k] = _mm512_shuffle_i32x4(a, b, 0x88);     /* a0 a2 b0 b2 */
            w[8 * h + 4 + k] = _mm512_shuffle_i32x4(a, b, 0xDD); /* a1 a3 b1 b3 */
        }
}

/*
** The k <= 16 digests of the lanes' states: byte swap, then an 8 x 16 transpose in
** registers (32-bit, 64-bit, then 256- and 512-bit interleaves), so that each register
** holds the digests of two consecutive lanes; one 64-byte store per pair of lanes (a masked
** one for a ragged end).
*/
static inline __attribute__((always_inline)) void simd_store_digests(uint8_t *out, const V st[8],
                                                                     size_t k)
{
    const V bswap = _mm512_set4_epi32(0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203);
    V r[8], t[8], u[8], z[8], o[8];
    for (int j = 0; j < 8; j++) r[j] = _mm512_shuffle_epi8(st[j], bswap);
    for (int j = 0; j < 8; j += 2) { /* per 128-bit quarter q: lanes 4q, 4q+1 | 4q+2, 4q+3 */
        t[j] = _mm512_unpacklo_epi32(r[j], r[j + 1]);
        t[j + 1] = _mm512_unpackhi_epi32(r[j], r[j + 1]);
    }
    for (int j = 0; j < 8; j += 4) { /* u[j + m]: words j..j+3 of lane 4q + m in quarter q */
        u[j + 0] = _mm512_unpacklo_epi64(t[j], t[j + 2]);
        u[j + 1] = _mm512_unpackhi_epi64(t[j], t[j + 2]);
        u[j + 2] = _mm512_unpacklo_epi64(t[j + 1], t[j + 3]);
        u[j + 3] = _mm512_unpackhi_epi64(t[j + 1], t[j + 3]);
    }
    const V lo = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
    const V hi = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
    for (int m = 0; m < 4; m++) { /* z[m]: lanes m, 4+m; z[4+m]: lanes 8+m, 12+m */
        z[m] = _mm512_permutex2var_epi64(u[m], lo, u[4 + m]);
        z[4 + m] = _mm512_permutex2var_epi64(u[m], hi, u[4 + m]);
    }
    for (int g = 0; g < 8; g += 4) { /* o[p]: lanes 2p, 2p+1 (z[g..g+4): lanes 8g/4 ..) */
        o[g + 0] = _mm512_shuffle_i32x4(z[g + 0], z[g + 1], 0x44);
        o[g + 2] = _mm512_shuffle_i32x4(z[g + 0], z[g + 1], 0xEE);
        o[g + 1] = _mm512_shuffle_i32x4(z[g + 2], z[g + 3], 0x44);
        o[g + 3] = _mm512_shuffle_i32x4(z[g + 2], z[g + 3], 0xEE);
    }
    if (k == 16) {
        for (int p = 0; p < 8; p++) _mm512_storeu_si512((void *)(out + 64 * p), o[p]);
        return;
    }
    for (size_t p = 0; 2 * p < k; p++)
        _mm512_mask_storeu_epi64(out + 64 * p, 2 * p + 1 < k ? 0xFF : 0x0F, o[p]);
}

#define S_LANES           16
#define S_TWO_GROUPS      1 /* 32 registers: two groups of 64-byte messages at once */
#define S_SCHED_IN_MEMORY 0
#define S_PREFETCH_BLOCKS 2 /* blocks ahead, per lane, in the lane driver */
#include "hash/sha256_simd.h"

static int available(void)
{
    return (merkle__cpu_features() & MERKLE_CPU_AVX512) != 0;
}

const merkle__sha256_impl merkle__sha256_avx512 = { "avx512", available,
                                                    merkle__sha256_compress_portable, simd_batch,
                                                    16 };
