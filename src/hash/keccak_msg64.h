/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The bodies of the multi-buffer Keccak-256 kernels for 64-byte messages (tree nodes) and
** 32-byte messages (a hash of a hash: OpenZeppelin's leaves), shared by the AVX2 and AVX-512
** files (never installed). The including file defines, besides what keccak_round.h needs:
** LANES, SET1(x), GATHER(idx, p) (eight bytes at p + idx[i] per lane), STORE(p, v), and
** KECCAK_MSG64_FN / KECCAK_MSG32_FN, the functions' names. The eight (four) words of each
** message are gathered into the lanes; the padding (0x01 after them, 0x80 at the end of the
** 136-byte rate) is constant.
*/
#include "hash/keccak_round.h"

void KECCAK_MSG64_FN(uint8_t *out, const uint8_t *base, size_t stride, size_t n)
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

void KECCAK_MSG32_FN(uint8_t *out, const uint8_t *base, size_t stride, size_t n)
{
    while (n) {
        size_t k = n < LANES ? n : LANES;
        long long off[LANES];
        for (size_t i = 0; i < LANES; i++) off[i] = (long long)((i < k ? i : 0) * stride);
        K_T idx;
        memcpy(&idx, off, sizeof idx);
        K_T a0 = GATHER(idx, base), a1 = GATHER(idx, base + 8), a2 = GATHER(idx, base + 16);
        K_T a3 = GATHER(idx, base + 24);
        K_T a4 = SET1(0x01), a16 = SET1(0x8000000000000000ull);
        K_T z = SET1(0);
        K_T a5 = z, a6 = z, a7 = z, a8 = z, a9 = z, a10 = z, a11 = z, a12 = z, a13 = z, a14 = z;
        K_T a15 = z, a17 = z, a18 = z;
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
