/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** SHA-256 with the x86 SHA extensions (SHA-NI). Compiled with -msha -msse4.1.
**
** One stream (backend "shani") is latency-bound: each sha256rnds2 waits for the previous
** one. The batch kernels "shani2" and "shani4" interleave 2 or 4 independent messages so
** that their round chains overlap in the pipeline; they run through the lane driver
** (hash/lanes.h), which reads whole blocks in place and builds only head and tail blocks.
*/
#include <immintrin.h>

#include "hash/lanes.h"
#include "hash/sha256_pad64.h"

/* The SHA-NI round instruction keeps the state as (A,B,E,F) and (C,D,G,H). */
static inline void to_abef(const uint32_t state[8], __m128i *abef, __m128i *cdgh)
{
    __m128i dcba = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i hgfe = _mm_loadu_si128((const __m128i *)&state[4]);
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    *abef = _mm_alignr_epi8(cdab, efgh, 8);
    *cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
}

static inline void from_abef(uint32_t state[8], __m128i abef, __m128i cdgh)
{
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}

static void compress_shani(uint32_t state[8], const uint8_t *blocks, size_t nblocks)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i abef, cdgh;
    to_abef(state, &abef, &cdgh);
    while (nblocks--) {
        const __m128i abef0 = abef, cdgh0 = cdgh;
        __m128i w[4];
#pragma GCC unroll 16
        for (int g = 0; g < 16; g++) {
            __m128i m;
            if (g < 4) {
                m = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 16 * g)), bswap);
            } else {
                m = _mm_sha256msg1_epu32(w[g & 3], w[(g + 1) & 3]);
                m = _mm_add_epi32(m, _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4));
                m = _mm_sha256msg2_epu32(m, w[(g + 3) & 3]);
            }
            w[g & 3] = m;
            __m128i k =
                _mm_add_epi32(m, _mm_loadu_si128((const __m128i *)&merkle__sha256_K[4 * g]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, k);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(k, 0x0E));
        }
        abef = _mm_add_epi32(abef, abef0);
        cdgh = _mm_add_epi32(cdgh, cdgh0);
        blocks += 64;
    }
    from_abef(state, abef, cdgh);
}

/*
** S interleaved streams. st holds 2*S vectors: abef of stream s at [2s], cdgh at [2s+1].
** The loops over s have a constant trip count and are unrolled by the compiler, so the S
** round chains are independent instruction streams.
*/
static inline void multi_blocks(__m128i *st, const uint8_t *const *ptrs, size_t nblocks, int S)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i abef[4], cdgh[4], abef0[4], cdgh0[4], w[4][4];
    const uint8_t *p[4];
    for (int s = 0; s < S; s++) {
        abef[s] = st[2 * s];
        cdgh[s] = st[2 * s + 1];
        p[s] = ptrs[s];
    }
    while (nblocks--) {
        for (int s = 0; s < S; s++) {
            abef0[s] = abef[s];
            cdgh0[s] = cdgh[s];
        }
#pragma GCC unroll 16
        for (int g = 0; g < 16; g++) {
            const __m128i kg = _mm_loadu_si128((const __m128i *)&merkle__sha256_K[4 * g]);
#pragma GCC unroll 4
            for (int s = 0; s < S; s++) {
                __m128i m;
                if (g < 4) {
                    m = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p[s] + 16 * g)), bswap);
                } else {
                    m = _mm_sha256msg1_epu32(w[s][g & 3], w[s][(g + 1) & 3]);
                    m = _mm_add_epi32(m, _mm_alignr_epi8(w[s][(g + 3) & 3], w[s][(g + 2) & 3], 4));
                    m = _mm_sha256msg2_epu32(m, w[s][(g + 3) & 3]);
                }
                w[s][g & 3] = m;
                __m128i k = _mm_add_epi32(m, kg);
                cdgh[s] = _mm_sha256rnds2_epu32(cdgh[s], abef[s], k);
                abef[s] = _mm_sha256rnds2_epu32(abef[s], cdgh[s], _mm_shuffle_epi32(k, 0x0E));
            }
        }
        for (int s = 0; s < S; s++) {
            abef[s] = _mm_add_epi32(abef[s], abef0[s]);
            cdgh[s] = _mm_add_epi32(cdgh[s], cdgh0[s]);
            p[s] += 64;
        }
    }
    for (int s = 0; s < S; s++) {
        st[2 * s] = abef[s];
        st[2 * s + 1] = cdgh[s];
    }
}

/* The padding block of a 64-byte message in each of S streams: its W + K schedule is the
** constant table, so there is nothing to load, build or schedule. */
static inline void multi_pad64(__m128i *st, int S)
{
    __m128i abef[4], cdgh[4];
    for (int s = 0; s < S; s++) {
        abef[s] = st[2 * s];
        cdgh[s] = st[2 * s + 1];
    }
#pragma GCC unroll 16
    for (int g = 0; g < 16; g++) {
        const __m128i k = _mm_loadu_si128((const __m128i *)&merkle__sha256_pad64_wk[4 * g]);
        const __m128i k2 = _mm_shuffle_epi32(k, 0x0E);
#pragma GCC unroll 4
        for (int s = 0; s < S; s++) {
            cdgh[s] = _mm_sha256rnds2_epu32(cdgh[s], abef[s], k);
            abef[s] = _mm_sha256rnds2_epu32(abef[s], cdgh[s], k2);
        }
    }
    for (int s = 0; s < S; s++) {
        st[2 * s] = _mm_add_epi32(st[2 * s], abef[s]);
        st[2 * s + 1] = _mm_add_epi32(st[2 * s + 1], cdgh[s]);
    }
}

static void blocks2(void *st, const uint8_t *const *ptrs, size_t nblocks)
{
    multi_blocks((__m128i *)st, ptrs, nblocks, 2);
}

static void blocks4(void *st, const uint8_t *const *ptrs, size_t nblocks)
{
    multi_blocks((__m128i *)st, ptrs, nblocks, 4);
}

static inline void batch_multi(uint8_t *out, const uint8_t *const *msgs, size_t n,
                               const uint8_t *prefix, size_t prefix_len, size_t len, size_t S,
                               merkle__lanes_fn fn)
{
    _Alignas(64) uint8_t scratch[4 * MERKLE__SHA256_SCRATCH];
    __m128i st[8], iv_abef, iv_cdgh;
    to_abef(merkle__sha256_H0, &iv_abef, &iv_cdgh);
    while (n) {
        size_t k = n < S ? n : S;
        if (k == 1) { /* a lone message: one stream is cheaper than S with copies */
            merkle__sha256_prefixed(compress_shani, out, prefix, prefix_len, msgs[0], len);
        } else {
            for (size_t s = 0; s < S; s++) {
                st[2 * s] = iv_abef;
                st[2 * s + 1] = iv_cdgh;
            }
            if (prefix_len == 0 && len == 64) { /* SSZ/Bitcoin nodes: block 1 in place */
                const uint8_t *ptrs[4];
                for (size_t s = 0; s < S; s++) ptrs[s] = msgs[s < k ? s : 0];
                fn(st, ptrs, 1);
                multi_pad64(st, (int)S);
            } else {
                merkle__sha256_lanes_run(S, fn, st, scratch, msgs, k, prefix, prefix_len, len);
            }
            for (size_t s = 0; s < k; s++) {
                uint32_t h[8];
                from_abef(h, st[2 * s], st[2 * s + 1]);
                for (int j = 0; j < 8; j++) merkle__store_be32(out + 32 * s + 4 * j, h[j]);
            }
        }
        out += 32 * k;
        msgs += k;
        n -= k;
    }
}

static void batch_shani(uint8_t *out, const uint8_t *const *msgs, size_t n, const uint8_t *prefix,
                        size_t prefix_len, size_t len)
{
    merkle__sha256_batch_generic(compress_shani, out, msgs, n, prefix, prefix_len, len);
}

static void batch_shani2(uint8_t *out, const uint8_t *const *msgs, size_t n, const uint8_t *prefix,
                         size_t prefix_len, size_t len)
{
    batch_multi(out, msgs, n, prefix, prefix_len, len, 2, blocks2);
}

static void batch_shani4(uint8_t *out, const uint8_t *const *msgs, size_t n, const uint8_t *prefix,
                         size_t prefix_len, size_t len)
{
    batch_multi(out, msgs, n, prefix, prefix_len, len, 4, blocks4);
}

static int available(void)
{
    unsigned need = MERKLE_CPU_SHA | MERKLE_CPU_SSE41 | MERKLE_CPU_SSSE3;
    return (merkle__cpu_features() & need) == need;
}

const merkle__sha256_impl merkle__sha256_shani = { "shani", available, compress_shani, batch_shani,
                                                   1 };
const merkle__sha256_impl merkle__sha256_shani2 = { "shani2", available, compress_shani,
                                                    batch_shani2, 2 };
const merkle__sha256_impl merkle__sha256_shani4 = { "shani4", available, compress_shani,
                                                    batch_shani4, 4 };
