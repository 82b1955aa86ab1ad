/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The SHA-512 compress body, compiled twice: portable in sha512.c and with BMI2 (rorx) in
** sha512_avx2.c. Include once per translation unit after defining SHA512_COMPRESS_NAME.
*/
#include <stddef.h>
#include <stdint.h>

#include "common/internal.h"

static const uint64_t K[80] = {
    0x428a2f98d728ae22u, 0x7137449123ef65cdu, 0xb5c0fbcfec4d3b2fu, 0xe9b5dba58189dbbcu,
    0x3956c25bf348b538u, 0x59f111f1b605d019u, 0x923f82a4af194f9bu, 0xab1c5ed5da6d8118u,
    0xd807aa98a3030242u, 0x12835b0145706fbeu, 0x243185be4ee4b28cu, 0x550c7dc3d5ffb4e2u,
    0x72be5d74f27b896fu, 0x80deb1fe3b1696b1u, 0x9bdc06a725c71235u, 0xc19bf174cf692694u,
    0xe49b69c19ef14ad2u, 0xefbe4786384f25e3u, 0x0fc19dc68b8cd5b5u, 0x240ca1cc77ac9c65u,
    0x2de92c6f592b0275u, 0x4a7484aa6ea6e483u, 0x5cb0a9dcbd41fbd4u, 0x76f988da831153b5u,
    0x983e5152ee66dfabu, 0xa831c66d2db43210u, 0xb00327c898fb213fu, 0xbf597fc7beef0ee4u,
    0xc6e00bf33da88fc2u, 0xd5a79147930aa725u, 0x06ca6351e003826fu, 0x142929670a0e6e70u,
    0x27b70a8546d22ffcu, 0x2e1b21385c26c926u, 0x4d2c6dfc5ac42aedu, 0x53380d139d95b3dfu,
    0x650a73548baf63deu, 0x766a0abb3c77b2a8u, 0x81c2c92e47edaee6u, 0x92722c851482353bu,
    0xa2bfe8a14cf10364u, 0xa81a664bbc423001u, 0xc24b8b70d0f89791u, 0xc76c51a30654be30u,
    0xd192e819d6ef5218u, 0xd69906245565a910u, 0xf40e35855771202au, 0x106aa07032bbd1b8u,
    0x19a4c116b8d2d0c8u, 0x1e376c085141ab53u, 0x2748774cdf8eeb99u, 0x34b0bcb5e19b48a8u,
    0x391c0cb3c5c95a63u, 0x4ed8aa4ae3418acbu, 0x5b9cca4f7763e373u, 0x682e6ff3d6b2b8a3u,
    0x748f82ee5defb2fcu, 0x78a5636f43172f60u, 0x84c87814a1f0ab72u, 0x8cc702081a6439ecu,
    0x90befffa23631e28u, 0xa4506cebde82bde9u, 0xbef9a3f7b2c67915u, 0xc67178f2e372532bu,
    0xca273eceea26619cu, 0xd186b8c721c0c207u, 0xeada7dd6cde0eb1eu, 0xf57d4f7fee6ed178u,
    0x06f067aa72176fbau, 0x0a637dc5a2c898a6u, 0x113f9804bef90daeu, 0x1b710b35131c471bu,
    0x28db77f523047d84u, 0x32caab7b40c72493u, 0x3c9ebe0a15c9bebcu, 0x431d67c49c100d4cu,
    0x4cc5d4becb3e42b6u, 0x597f299cfc657e2au, 0x5fcb6fab3ad6faecu, 0x6c44198c4a475817u,
};

static inline uint64_t ror(uint64_t x, unsigned n)
{
    return (x >> n) | (x << (64 - n));
}

static inline uint64_t load_be64(const uint8_t *p)
{
    return ((uint64_t)merkle__load_be32(p) << 32) | merkle__load_be32(p + 4);
}

/* One round; the eight working variables are renamed by the caller instead of moved. */
#define S512_BSIG0(x) (ror(x, 28) ^ ror(x, 34) ^ ror(x, 39))
#define S512_BSIG1(x) (ror(x, 14) ^ ror(x, 18) ^ ror(x, 41))
#define S512_SSIG0(x) (ror(x, 1) ^ ror(x, 8) ^ ((x) >> 7))
#define S512_SSIG1(x) (ror(x, 19) ^ ror(x, 61) ^ ((x) >> 6))
#define S512_ROUND(a, b, c, d, e, f, g, h, j)                                                      \
    do {                                                                                           \
        uint64_t wj;                                                                               \
        if (r == 0) {                                                                              \
            wj = w[j];                                                                             \
        } else {                                                                                   \
            wj = w[j] += S512_SSIG1(w[((j) + 14) & 15]) + w[((j) + 9) & 15] +                      \
                         S512_SSIG0(w[((j) + 1) & 15]);                                            \
        }                                                                                          \
        uint64_t t1 = h + S512_BSIG1(e) + (g ^ (e & (f ^ g))) + K[r + (j)] + wj;                   \
        d += t1;                                                                                   \
        h = t1 + S512_BSIG0(a) + ((a & b) | (c & (a | b)));                                        \
    } while (0)

void SHA512_COMPRESS_NAME(uint64_t state[8], const uint8_t *blocks, size_t nblocks)
{
    const uint8_t *p = blocks;
    for (; nblocks; nblocks--, p += 128) {
        uint64_t w[16];
        for (int i = 0; i < 16; i++) w[i] = load_be64(p + 8 * i);
        uint64_t a = state[0], b = state[1], c = state[2], d = state[3];
        uint64_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (int r = 0; r < 80; r += 16) {
            S512_ROUND(a, b, c, d, e, f, g, h, 0);
            S512_ROUND(h, a, b, c, d, e, f, g, 1);
            S512_ROUND(g, h, a, b, c, d, e, f, 2);
            S512_ROUND(f, g, h, a, b, c, d, e, 3);
            S512_ROUND(e, f, g, h, a, b, c, d, 4);
            S512_ROUND(d, e, f, g, h, a, b, c, 5);
            S512_ROUND(c, d, e, f, g, h, a, b, 6);
            S512_ROUND(b, c, d, e, f, g, h, a, 7);
            S512_ROUND(a, b, c, d, e, f, g, h, 8);
            S512_ROUND(h, a, b, c, d, e, f, g, 9);
            S512_ROUND(g, h, a, b, c, d, e, f, 10);
            S512_ROUND(f, g, h, a, b, c, d, e, 11);
            S512_ROUND(e, f, g, h, a, b, c, d, 12);
            S512_ROUND(d, e, f, g, h, a, b, c, 13);
            S512_ROUND(c, d, e, f, g, h, a, b, 14);
            S512_ROUND(b, c, d, e, f, g, h, a, 15);
        }
        state[0] += a;
        state[1] += b;
        state[2] += c;
        state[3] += d;
        state[4] += e;
        state[5] += f;
        state[6] += g;
        state[7] += h;
    }
}
