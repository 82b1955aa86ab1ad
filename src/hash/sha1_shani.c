/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** SHA-1 compress on the x86 SHA extensions (sha1rnds4, sha1nexte, sha1msg1, sha1msg2): twenty
** groups of four rounds, the message schedule kept in four registers that rotate. Checked
** against the portable compress by tests/hash/test_md.c.
*/
#include <immintrin.h>

#include "hash/md.h"

/*
** Group g (0..19) runs rounds 4g..4g+3. W[g % 4] holds the schedule words of group g: loaded
** (byte-swapped) for g < 4, else finished by sha1msg2 in group g-1. Group g also starts the
** words of later groups: sha1msg2 for group g+1 (3 <= g <= 18), the xor for group g+2
** (2 <= g <= 17) and sha1msg1 for group g+3 (1 <= g <= 16). E alternates between two registers.
*/
#define GROUP(g, ecur, enext)                                                                      \
    do {                                                                                           \
        if ((g) < 4)                                                                               \
            W[(g) % 4] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * (g))), bs);   \
        if ((g) == 0)                                                                              \
            ecur = _mm_add_epi32(ecur, W[0]);                                                      \
        else                                                                                       \
            ecur = _mm_sha1nexte_epu32(ecur, W[(g) % 4]);                                          \
        enext = abcd;                                                                              \
        if ((g) >= 3 && (g) <= 18)                                                                 \
            W[((g) + 1) % 4] = _mm_sha1msg2_epu32(W[((g) + 1) % 4], W[(g) % 4]);                   \
        abcd = _mm_sha1rnds4_epu32(abcd, ecur, (g) / 5);                                           \
        if ((g) >= 1 && (g) <= 16)                                                                 \
            W[((g) + 3) % 4] = _mm_sha1msg1_epu32(W[((g) + 3) % 4], W[(g) % 4]);                   \
        if ((g) >= 2 && (g) <= 17) W[((g) + 2) % 4] = _mm_xor_si128(W[((g) + 2) % 4], W[(g) % 4]); \
    } while (0)

void merkle__sha1_compress_shani(uint32_t state[5], const uint8_t *blocks, size_t nblocks)
{
    const uint8_t *p = blocks;
    const __m128i bs = _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);
    __m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)state), 0x1b);
    __m128i e0 = _mm_set_epi32((int)state[4], 0, 0, 0);
    for (; nblocks; nblocks--, p += 64) {
        __m128i W[4], e1;
        const __m128i abcd_save = abcd, e0_save = e0;
        GROUP(0, e0, e1);
        GROUP(1, e1, e0);
        GROUP(2, e0, e1);
        GROUP(3, e1, e0);
        GROUP(4, e0, e1);
        GROUP(5, e1, e0);
        GROUP(6, e0, e1);
        GROUP(7, e1, e0);
        GROUP(8, e0, e1);
        GROUP(9, e1, e0);
        GROUP(10, e0, e1);
        GROUP(11, e1, e0);
        GROUP(12, e0, e1);
        GROUP(13, e1, e0);
        GROUP(14, e0, e1);
        GROUP(15, e1, e0);
        GROUP(16, e0, e1);
        GROUP(17, e1, e0);
        GROUP(18, e0, e1);
        GROUP(19, e1, e0);
        e0 = _mm_sha1nexte_epu32(e0, e0_save);
        abcd = _mm_add_epi32(abcd, abcd_save);
    }
    abcd = _mm_shuffle_epi32(abcd, 0x1b);
    _mm_storeu_si128((__m128i *)state, abcd);
    state[4] = (uint32_t)_mm_extract_epi32(e0, 3);
}
