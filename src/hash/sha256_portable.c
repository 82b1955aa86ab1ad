/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** SHA-256, portable C backend (FIPS 180-4). The reference every other backend is tested
** against, and the fallback on any CPU.
*/
#include <string.h>

#include "hash/impl.h"

const uint32_t merkle__sha256_K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

const uint32_t merkle__sha256_H0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

static inline uint32_t rotr(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

void merkle__sha256_compress_portable(uint32_t state[8], const uint8_t *blocks, size_t nblocks)
{
    uint32_t w[64];
    while (nblocks--) {
        for (int i = 0; i < 16; i++) w[i] = merkle__load_be32(blocks + 4 * i);
        for (int i = 16; i < 64; i++) {
            uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (int i = 0; i < 64; i++) {
            uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                          merkle__sha256_K[i] + w[i];
            uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        state[0] += a;
        state[1] += b;
        state[2] += c;
        state[3] += d;
        state[4] += e;
        state[5] += f;
        state[6] += g;
        state[7] += h;
        blocks += 64;
    }
}

void merkle__sha256_prefixed(merkle__sha256_compress_fn compress, uint8_t out[32],
                             const uint8_t *prefix, size_t prefix_len, const uint8_t *msg,
                             size_t len)
{
    uint32_t st[8];
    uint8_t block[128];
    memcpy(st, merkle__sha256_H0, sizeof st);
    uint64_t total = (uint64_t)prefix_len + len;
    size_t used = prefix_len;
    if (prefix_len) memcpy(block, prefix, prefix_len);
    size_t take = 64 - used;
    if (take > len) take = len;
    if (take) {
        memcpy(block + used, msg, take);
        msg += take; /* never on a NULL msg: take is 0 when len is 0 */
    }
    used += take;
    len -= take;
    if (used == 64) {
        compress(st, block, 1);
        size_t full = len / 64;
        if (full) {
            compress(st, msg, full);
            msg += full * 64;
            len -= full * 64;
        }
        if (len) memcpy(block, msg, len);
        used = len;
    }
    /* Padding: 0x80, zeros, 64-bit big-endian bit length; one or two blocks. */
    block[used++] = 0x80;
    size_t end = used <= 56 ? 64 : 128;
    memset(block + used, 0, end - 8 - used);
    merkle__store_be64(block + end - 8, total * 8);
    compress(st, block, end / 64);
    for (int i = 0; i < 8; i++) merkle__store_be32(out + 4 * i, st[i]);
}

void merkle__sha256_batch_generic(merkle__sha256_compress_fn compress, uint8_t *out,
                                  const uint8_t *const *msgs, size_t n, const uint8_t *prefix,
                                  size_t prefix_len, size_t len)
{
    for (size_t i = 0; i < n; i++)
        merkle__sha256_prefixed(compress, out + 32 * i, prefix, prefix_len, msgs[i], len);
}

static void batch_portable(uint8_t *out, const uint8_t *const *msgs, size_t n,
                           const uint8_t *prefix, size_t prefix_len, size_t len)
{
    merkle__sha256_batch_generic(merkle__sha256_compress_portable, out, msgs, n, prefix, prefix_len,
                                 len);
}

static int always(void)
{
    return 1;
}

const merkle__sha256_impl merkle__sha256_portable = { "portable", always,
                                                      merkle__sha256_compress_portable,
                                                      batch_portable, 1 };
