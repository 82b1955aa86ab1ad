/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** 8-lane MD5 with AVX2: one message per 32-bit lane of a YMM register. Each block, the 8
** lanes' blocks are loaded in two 32-byte halves and each half transposed 8x8 so that vector
** j holds message word j of every lane.
*/
#include <immintrin.h>

#include "hash/impl.h"
#include "hash/lanes.h"
#include "hash/md5_mb.h"

/* r[i] = 8 words of row i  ->  r[j] = word j of rows 0..7. */
static inline void transpose8(__m256i r[8])
{
    __m256i t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_epi32(r[i], r[i + 1]);
    }
    /* Per 128-bit lane k of u[4q + m]: word 4k + m of rows 4q .. 4q + 3. */
    for (int q = 0; q < 2; q++) {
        u[4 * q + 0] = _mm256_unpacklo_epi64(t[4 * q], t[4 * q + 2]);
        u[4 * q + 1] = _mm256_unpackhi_epi64(t[4 * q], t[4 * q + 2]);
        u[4 * q + 2] = _mm256_unpacklo_epi64(t[4 * q + 1], t[4 * q + 3]);
        u[4 * q + 3] = _mm256_unpackhi_epi64(t[4 * q + 1], t[4 * q + 3]);
    }
    for (int m = 0; m < 4; m++) {
        r[m] = _mm256_permute2x128_si256(u[m], u[4 + m], 0x20);
        r[4 + m] = _mm256_permute2x128_si256(u[m], u[4 + m], 0x31);
    }
}

/*
** Each step splits f(b, c, d) into a part that does not depend on b, added to a + M + K off
** the critical path, and the part that does, so that the b -> a chain is short:
**   F = d ^ (b & (c ^ d))          (c ^ d off the chain: and, xor)
**   G = (b & d) + (c & ~d)         (the two terms share no bits, so | is +; c & ~d off)
**   H = b ^ (c ^ d)                (c ^ d off)
**   I = c ^ (b | ~d)               (~d off)
*/
#define OFF_F(x, c, d) (x)
#define OFF_G(x, c, d) _mm256_add_epi32(x, _mm256_andnot_si256(d, c))
#define OFF_H(x, c, d) (x)
#define OFF_I(x, c, d) (x)
#define ON_F(b, c, d)  _mm256_xor_si256(d, _mm256_and_si256(b, _mm256_xor_si256(c, d)))
#define ON_G(b, c, d)  _mm256_and_si256(b, d)
#define ON_H(b, c, d)  _mm256_xor_si256(b, _mm256_xor_si256(c, d))
#define ON_I(b, c, d)  _mm256_xor_si256(c, _mm256_or_si256(b, _mm256_xor_si256(d, ones)))
#define V_ROL(x, s)    _mm256_or_si256(_mm256_slli_epi32(x, s), _mm256_srli_epi32(x, 32 - (s)))

/* K from memory, and the off-chain sum pinned before the on-chain part is added (see
** md5_mb_avx512.c: the compiler would otherwise reassociate the adds). */
#define STEP(f, a, b, c, d, g, k, s, i)                                                            \
    {                                                                                              \
        __m256i x_ = _mm256_add_epi32(a, _mm256_add_epi32(m[g], K[i]));                            \
        x_ = OFF_##f(x_, c, d);                                                                    \
        __asm__("" : "+x"(x_));                                                                    \
        x_ = _mm256_add_epi32(x_, ON_##f(b, c, d));                                                \
        a = _mm256_add_epi32(b, V_ROL(x_, s));                                                     \
    }

static void avx2_blocks(merkle__md5_mb *st, const uint8_t *const data[MERKLE_MD5_MB_MAX_LANES],
                        size_t nblocks)
{
    const uint8_t *p[8];
    size_t step[8];
    unsigned live = merkle__md5_lanes_setup(8, data, p, step);
    if (!live || !nblocks) return;
    const __m256i ones = _mm256_set1_epi32(-1);
    __m256i K[64];
    for (int i = 0; i < 64; i++) K[i] = _mm256_set1_epi32((int)merkle__md5_K[i]);
    __m256i a = _mm256_loadu_si256((const __m256i *)st->s[0]);
    __m256i b = _mm256_loadu_si256((const __m256i *)st->s[1]);
    __m256i c = _mm256_loadu_si256((const __m256i *)st->s[2]);
    __m256i d = _mm256_loadu_si256((const __m256i *)st->s[3]);
    for (size_t blk = 0; blk < nblocks; blk++) {
        __m256i m[16], h[8];
        for (unsigned l = 0; l < 8; l++) {
            m[l] = _mm256_loadu_si256((const __m256i *)p[l]);
            h[l] = _mm256_loadu_si256((const __m256i *)(p[l] + 32));
            p[l] += step[l];
        }
        transpose8(m);
        transpose8(h);
        for (int j = 0; j < 8; j++) m[8 + j] = h[j];
        __m256i a0 = a, b0 = b, c0 = c, d0 = d;
        MERKLE__MD5_STEPS(STEP)
        a = _mm256_add_epi32(a, a0);
        b = _mm256_add_epi32(b, b0);
        c = _mm256_add_epi32(c, c0);
        d = _mm256_add_epi32(d, d0);
    }
    /* Store back only the live lanes. */
    uint32_t out[4][8];
    _mm256_storeu_si256((__m256i *)out[0], a);
    _mm256_storeu_si256((__m256i *)out[1], b);
    _mm256_storeu_si256((__m256i *)out[2], c);
    _mm256_storeu_si256((__m256i *)out[3], d);
    for (unsigned l = 0; l < 8; l++)
        if (live & (1u << l))
            for (int w = 0; w < 4; w++) st->s[w][l] = out[w][l];
}

static int avx2_available(void)
{
    return (merkle__cpu_features() & MERKLE_CPU_AVX2) != 0;
}

const merkle__md5_mb_impl merkle__md5_mb_avx2 = { "avx2", 8, avx2_available, avx2_blocks };
