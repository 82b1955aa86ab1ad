/*
** SHA-256 with the x86 SHA extensions (SHA-NI), one stream. Compiled with -msha -msse4.1.
*/
#include <immintrin.h>

#include "hash/impl.h"

static void compress_shani(uint32_t state[8], const uint8_t *blocks, size_t nblocks)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    /* The SHA-NI round instruction keeps the state as (A,B,E,F) and (C,D,G,H). */
    __m128i dcba = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i hgfe = _mm_loadu_si128((const __m128i *)&state[4]);
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);

    while (nblocks--) {
        const __m128i abef0 = abef, cdgh0 = cdgh;
        __m128i w[4];
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
            __m128i k = _mm_add_epi32(m, _mm_loadu_si128((const __m128i *)&merkle__sha256_K[4 * g]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, k);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(k, 0x0E));
        }
        abef = _mm_add_epi32(abef, abef0);
        cdgh = _mm_add_epi32(cdgh, cdgh0);
        blocks += 64;
    }

    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    dcba = _mm_blend_epi16(feba, dchg, 0xF0);
    hgfe = _mm_alignr_epi8(dchg, feba, 8);
    _mm_storeu_si128((__m128i *)&state[0], dcba);
    _mm_storeu_si128((__m128i *)&state[4], hgfe);
}

static void batch_shani(uint8_t *out, const uint8_t *const *msgs, size_t n, const uint8_t *prefix,
                        size_t prefix_len, size_t len)
{
    merkle__sha256_batch_generic(compress_shani, out, msgs, n, prefix, prefix_len, len);
}

static int available(void)
{
    unsigned need = MERKLE_CPU_SHA | MERKLE_CPU_SSE41 | MERKLE_CPU_SSSE3;
    return (merkle__cpu_features() & need) == need;
}

const merkle__sha256_impl merkle__sha256_shani = {"shani", available, compress_shani, batch_shani};
