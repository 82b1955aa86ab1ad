/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** BLAKE2b compression over L lanes of 64-bit words, shared by the AVX2 (4 lanes) and
** AVX-512 (8 lanes) batch kernels. Never installed. The including file defines V, V_ADD,
** V_XOR, V_SET1 (64-bit broadcast), V_ROR32/24/16/63, and
**   b2_load_words(m, ptrs, off)   m[0..16) = little-endian 64-bit words of the 128-byte
**                                 blocks at ptrs[lane] + off, transposed
**   b2_load8(w, ptrs)             w[0..8) = the same for the first 64 bytes at ptrs[lane]
**   V_OR, V_SHL64(x,n), V_SHR64(x,n)
** and gets b2_blocks(V h[8], ptrs, nblocks, counter, last): the lane-driver block function
** (every lane has the same byte counter, since all messages have one length).
*/
#ifndef MERKLE_HASH_BLAKE2B_SIMD_H
#define MERKLE_HASH_BLAKE2B_SIMD_H

#include "hash/blake2b_sigma.h"

#define B2_G(a, b, c, d, x, y)                                                                     \
    do {                                                                                           \
        a = V_ADD(V_ADD(a, b), x);                                                                 \
        d = V_ROR32(V_XOR(d, a));                                                                  \
        c = V_ADD(c, d);                                                                           \
        b = V_ROR24(V_XOR(b, c));                                                                  \
        a = V_ADD(V_ADD(a, b), y);                                                                 \
        d = V_ROR16(V_XOR(d, a));                                                                  \
        c = V_ADD(c, d);                                                                           \
        b = V_ROR63(V_XOR(b, c));                                                                  \
    } while (0)

/* One compression of the block whose words are m; counter = bytes so far including it. */
static inline void b2_compress(V h[8], const V m[16], uint64_t counter, int last)
{
    V v0 = h[0], v1 = h[1], v2 = h[2], v3 = h[3], v4 = h[4], v5 = h[5], v6 = h[6], v7 = h[7];
    V v8 = V_SET1(merkle__blake2b_IV[0]), v9 = V_SET1(merkle__blake2b_IV[1]);
    V v10 = V_SET1(merkle__blake2b_IV[2]), v11 = V_SET1(merkle__blake2b_IV[3]);
    V v12 = V_SET1(merkle__blake2b_IV[4] ^ counter), v13 = V_SET1(merkle__blake2b_IV[5]);
    V v14 = V_SET1(merkle__blake2b_IV[6] ^ (last ? ~(uint64_t)0 : 0));
    V v15 = V_SET1(merkle__blake2b_IV[7]);
    for (int r = 0; r < 12; r++) {
        const uint8_t *s = b2_sigma[r];
        B2_G(v0, v4, v8, v12, m[s[0]], m[s[1]]);
        B2_G(v1, v5, v9, v13, m[s[2]], m[s[3]]);
        B2_G(v2, v6, v10, v14, m[s[4]], m[s[5]]);
        B2_G(v3, v7, v11, v15, m[s[6]], m[s[7]]);
        B2_G(v0, v5, v10, v15, m[s[8]], m[s[9]]);
        B2_G(v1, v6, v11, v12, m[s[10]], m[s[11]]);
        B2_G(v2, v7, v8, v13, m[s[12]], m[s[13]]);
        B2_G(v3, v4, v9, v14, m[s[14]], m[s[15]]);
    }
    h[0] = V_XOR(h[0], V_XOR(v0, v8));
    h[1] = V_XOR(h[1], V_XOR(v1, v9));
    h[2] = V_XOR(h[2], V_XOR(v2, v10));
    h[3] = V_XOR(h[3], V_XOR(v3, v11));
    h[4] = V_XOR(h[4], V_XOR(v4, v12));
    h[5] = V_XOR(h[5], V_XOR(v5, v13));
    h[6] = V_XOR(h[6], V_XOR(v6, v14));
    h[7] = V_XOR(h[7], V_XOR(v7, v15));
}

static inline void b2_blocks(V h[8], const uint8_t *const *ptrs, size_t nblocks, uint64_t counter,
                             int last)
{
    size_t off = 0;
    while (nblocks--) {
        V m[16];
        b2_load_words(m, ptrs, off);
        b2_compress(h, m, counter, last && nblocks == 0);
        off += 128;
        counter += 128;
    }
}

/*
** The 65-byte shape of Sia leaves and nodes (one prefix byte + 64 bytes) in one block with
** no copies: the 64 bytes are transposed once and every word shifted up by one byte under
** the prefix; words 9..15 are zero padding.
*/
static inline void b2_msg65(V h[8], const uint8_t *const *ptrs, uint8_t prefix)
{
    V w[8], m[16];
    b2_load8(w, ptrs);
    m[0] = V_OR(V_SET1(prefix), V_SHL64(w[0], 8));
    for (int t = 1; t < 8; t++) m[t] = V_OR(V_SHR64(w[t - 1], 56), V_SHL64(w[t], 8));
    m[8] = V_SHR64(w[7], 56);
    for (int t = 9; t < 16; t++) m[t] = V_SET1(0);
    b2_compress(h, m, 65, 1);
}

/* The lane-driver batch: groups of L messages, digests written as little-endian words. */
static inline void b2_batch(size_t L, merkle__b2_lanes_fn fn, uint8_t *out,
                            const uint8_t *const *msgs, size_t n, const uint8_t *prefix,
                            size_t prefix_len, size_t len)
{
    _Alignas(64) uint8_t scratch[8 * MERKLE__B2_SCRATCH];
    _Alignas(64) uint64_t words[4][8];
    V h[8];
    while (n) {
        size_t k = n < L ? n : L;
        for (int j = 0; j < 8; j++)
            h[j] = V_SET1(merkle__blake2b_IV[j] ^ (j == 0 ? 0x01010020u : 0u));
        if (prefix_len == 1 && len == 64) {
            const uint8_t *ptrs[8];
            for (size_t i = 0; i < L; i++) ptrs[i] = msgs[i < k ? i : 0];
            b2_msg65(h, ptrs, prefix[0]);
        } else {
            merkle__b2_lanes_run(L, fn, h, scratch, msgs, k, prefix, prefix_len, len);
        }
        for (int j = 0; j < 4; j++) memcpy(words[j], &h[j], sizeof(V));
        for (size_t i = 0; i < k; i++)
            for (int j = 0; j < 4; j++) memcpy(out + 32 * i + 8 * j, &words[j][i], 8);
        out += 32 * k;
        msgs += k;
        n -= k;
    }
}

#endif
