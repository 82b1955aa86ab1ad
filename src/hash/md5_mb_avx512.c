/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** 16-lane MD5 with AVX-512 (F + BW + VL): one message per 32-bit lane of a ZMM register.
** Each block, the 16 lanes' 64-byte blocks are loaded as rows and transposed 16x16 so that
** vector j holds message word j of every lane. The boolean functions are one vpternlogd each
** and the rotations one vprold, so a step is about five instructions; the dependency chain
** through b (function, add, rotate, add) bounds the speed.
*/
#include <immintrin.h>

#include "hash/impl.h"
#include "hash/lanes.h"
#include "hash/md5_mb.h"

/* vpternlogd truth tables for f(b, c, d) with b = 0xF0, c = 0xCC, d = 0xAA. */
#define TL_F 0xCA /* (b & c) | (~b & d) */
#define TL_G 0xE4 /* (b & d) | (c & ~d) */
#define TL_H 0x96 /* b ^ c ^ d */
#define TL_I 0x39 /* c ^ (b | ~d) */

/* r[i] = 16 words of row i  ->  r[j] = word j of rows 0..15. */
static inline void transpose16(__m512i r[16])
{
    __m512i t[16], u[16];
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
    }
    /* Per 128-bit lane k of u[4q + m]: word 4k + m of rows 4q .. 4q + 3. */
    for (int q = 0; q < 4; q++) {
        u[4 * q + 0] = _mm512_unpacklo_epi64(t[4 * q], t[4 * q + 2]);
        u[4 * q + 1] = _mm512_unpackhi_epi64(t[4 * q], t[4 * q + 2]);
        u[4 * q + 2] = _mm512_unpacklo_epi64(t[4 * q + 1], t[4 * q + 3]);
        u[4 * q + 3] = _mm512_unpackhi_epi64(t[4 * q + 1], t[4 * q + 3]);
    }
    for (int m = 0; m < 4; m++) {
        __m512i a0 = _mm512_shuffle_i32x4(u[m], u[4 + m], 0x88);
        __m512i a1 = _mm512_shuffle_i32x4(u[8 + m], u[12 + m], 0x88);
        __m512i b0 = _mm512_shuffle_i32x4(u[m], u[4 + m], 0xDD);
        __m512i b1 = _mm512_shuffle_i32x4(u[8 + m], u[12 + m], 0xDD);
        r[m] = _mm512_shuffle_i32x4(a0, a1, 0x88);      /* 128-bit lane 0 */
        r[4 + m] = _mm512_shuffle_i32x4(b0, b1, 0x88);  /* lane 1 */
        r[8 + m] = _mm512_shuffle_i32x4(a0, a1, 0xDD);  /* lane 2 */
        r[12 + m] = _mm512_shuffle_i32x4(b0, b1, 0xDD); /* lane 3 */
    }
}

/* K comes from memory (loaded once per call), not an immediate: see md5_mb.h. The empty asm
** pins the association a + (M + K) before the function value is added: left alone, the
** compiler adds M to f(b, c, d) first, which puts one more add on the b -> a critical path
** (five cycles per step instead of four). */
#define STEP(f, a, b, c, d, g, k, s, i)                                                            \
    {                                                                                              \
        __m512i x_ = _mm512_add_epi32(a, _mm512_add_epi32(m[g], K[i]));                            \
        __asm__("" : "+v"(x_));                                                                    \
        x_ = _mm512_add_epi32(x_, _mm512_ternarylogic_epi32(b, c, d, TL_##f));                     \
        a = _mm512_add_epi32(b, _mm512_rol_epi32(x_, s));                                          \
    }

static void avx512_blocks(merkle__md5_mb *st, const uint8_t *const data[MERKLE_MD5_MB_MAX_LANES],
                          size_t nblocks)
{
    const uint8_t *p[16];
    size_t step[16];
    unsigned live = merkle__md5_lanes_setup(16, data, p, step);
    if (!live || !nblocks) return;
    __m512i K[64];
    for (int i = 0; i < 64; i++) K[i] = _mm512_set1_epi32((int)merkle__md5_K[i]);
    __m512i a = _mm512_loadu_si512(st->s[0]);
    __m512i b = _mm512_loadu_si512(st->s[1]);
    __m512i c = _mm512_loadu_si512(st->s[2]);
    __m512i d = _mm512_loadu_si512(st->s[3]);
    for (size_t blk = 0; blk < nblocks; blk++) {
        __m512i m[16];
        for (unsigned l = 0; l < 16; l++) {
            m[l] = _mm512_loadu_si512(p[l]);
            p[l] += step[l];
        }
        transpose16(m);
        __m512i a0 = a, b0 = b, c0 = c, d0 = d;
        MERKLE__MD5_STEPS(STEP)
        a = _mm512_add_epi32(a, a0);
        b = _mm512_add_epi32(b, b0);
        c = _mm512_add_epi32(c, c0);
        d = _mm512_add_epi32(d, d0);
    }
    __mmask16 k = (__mmask16)live;
    _mm512_mask_storeu_epi32(st->s[0], k, a);
    _mm512_mask_storeu_epi32(st->s[1], k, b);
    _mm512_mask_storeu_epi32(st->s[2], k, c);
    _mm512_mask_storeu_epi32(st->s[3], k, d);
}

static int avx512_available(void)
{
    return (merkle__cpu_features() & MERKLE_CPU_AVX512) != 0;
}

const merkle__md5_mb_impl merkle__md5_mb_avx512 = { "avx512", 16, avx512_available, avx512_blocks };
