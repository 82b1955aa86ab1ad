/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Keccak-256 of 64-byte messages, 4 at once: one keccak-f[1600] state per 64-bit lane of
** 25 YMM registers. The 8 words of each message are gathered into the lanes, the padding
** (0x01 after them, 0x80 at the end of the 136-byte rate) is constant.
*/
#include <immintrin.h>
#include <string.h>

#include "hash/impl.h"

#define K_T                   __m256i
#define K_XOR(a, b)           _mm256_xor_si256(a, b)
#define K_XOR5(a, b, c, d, e) K_XOR(K_XOR(K_XOR(a, b), K_XOR(c, d)), e)
#define K_ROL(x, n)           _mm256_or_si256(_mm256_slli_epi64(x, n), _mm256_srli_epi64(x, 64 - (n)))
#define K_CHI(a, b, c)        _mm256_xor_si256(a, _mm256_andnot_si256(b, c))
#define LANES                 4
#define SET1(x)               _mm256_set1_epi64x((long long)(x))
#define GATHER(idx, p)        _mm256_i64gather_epi64((const long long *)(const void *)(p), idx, 1)
#define STORE(p, v)           _mm256_storeu_si256((__m256i *)(void *)(p), v)
#include "hash/keccak_round.h"

void merkle__keccak256_msg64_avx2(uint8_t *out, const uint8_t *base, size_t stride, size_t n)
{
    while (n) {
        size_t k = n < LANES ? n : LANES;
        long long off[LANES];
        for (size_t i = 0; i < LANES; i++) off[i] = (long long)((i < k ? i : 0) * stride);
        K_T idx;
        memcpy(&idx, off, sizeof idx);
        K_T a0 = GATHER(idx, base), a1 = GATHER(idx, base + 8), a2 = GATHER(idx, base + 16);
        K_T a3 = GATHER(idx, base + 24), a4 = GATHER(idx, base + 32), a5 = GATHER(idx, base + 40);
        K_T a6 = GATHER(idx, base + 48), a7 = GATHER(idx, base + 56);
        K_T a8 = SET1(0x01), a16 = SET1(0x8000000000000000ull);
        K_T z = SET1(0);
        K_T a9 = z, a10 = z, a11 = z, a12 = z, a13 = z, a14 = z, a15 = z, a17 = z, a18 = z;
        K_T a19 = z, a20 = z, a21 = z, a22 = z, a23 = z, a24 = z;
        for (int r = 0; r < 24; r++) KECCAK_ROUND(SET1(merkle__keccak_rc[r]));
        uint64_t w[4][LANES];
        STORE(w[0], a0);
        STORE(w[1], a1);
        STORE(w[2], a2);
        STORE(w[3], a3);
        for (size_t i = 0; i < k; i++)
            for (int j = 0; j < 4; j++) merkle__store_le64(out + 32 * i + 8 * j, w[j][i]);
        out += 32 * k;
        base += k * stride;
        n -= k;
    }
}
