/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** SHA-256 compression over L lanes of 32-bit words in vector registers, shared by the AVX2
** (8 lanes) and AVX-512 (16 lanes) kernels. Never installed. The including file defines:
**   V                     the vector type
**   V_ADD(a,b)            lane-wise 32-bit addition
**   V_SET1(x)             broadcast a 32-bit constant
**   V_ROR(x,n)            rotate right by constant n
**   V_SHR(x,n), V_SHL(x,n) shift right / left by constant n
**   V_OR(a,b)             bitwise or
**   V_XOR3(a,b,c)         a ^ b ^ c
**   V_CH(e,f,g)           (e & f) ^ (~e & g)
**   V_MAJ(a,b,c)          majority
**   simd_load_words(w, ptrs, off)   w[0..16) = big-endian words of the 64-byte blocks at
**                                   ptrs[lane] + off, transposed (w[t] lane i = word t)
**   S_LANES               the number of lanes
**   V_STORE_BE(p,v)       store v's lanes to the 64-byte aligned p, each word byte-swapped
** and gets simd_blocks(V st[8], ptrs, nblocks): the lane-driver block function,
** simd_msg65(st, ptrs, prefix): the whole of a 1 + 64-byte message per lane,
** simd_msg64(st, ptrs): the whole of a 64-byte message per lane, and
** simd_batch: the kernel's merkle__sha256_batch_fn (hash/lanes.h must be included).
*/
#ifndef MERKLE_HASH_SHA256_SIMD_H
#define MERKLE_HASH_SHA256_SIMD_H

#define S_BSIG0(x) V_XOR3(V_ROR(x, 2), V_ROR(x, 13), V_ROR(x, 22))
#define S_BSIG1(x) V_XOR3(V_ROR(x, 6), V_ROR(x, 11), V_ROR(x, 25))
#define S_SSIG0(x) V_XOR3(V_ROR(x, 7), V_ROR(x, 18), V_SHR(x, 3))
#define S_SSIG1(x) V_XOR3(V_ROR(x, 17), V_ROR(x, 19), V_SHR(x, 10))

/* One round; the caller rotates the roles of a..h instead of moving values. */
#define S_ROUND(a, b, c, d, e, f, g, h, wk)                                                        \
    do {                                                                                           \
        V t1_ = V_ADD(V_ADD(h, S_BSIG1(e)), V_ADD(V_CH(e, f, g), wk));                             \
        d = V_ADD(d, t1_);                                                                         \
        h = V_ADD(t1_, V_ADD(S_BSIG0(a), V_MAJ(a, b, c)));                                         \
    } while (0)

#define S_EIGHT(t0, WK)                                                                            \
    do {                                                                                           \
        S_ROUND(a, b, c, d, e, f, g, h, WK(t0 + 0));                                               \
        S_ROUND(h, a, b, c, d, e, f, g, WK(t0 + 1));                                               \
        S_ROUND(g, h, a, b, c, d, e, f, WK(t0 + 2));                                               \
        S_ROUND(f, g, h, a, b, c, d, e, WK(t0 + 3));                                               \
        S_ROUND(e, f, g, h, a, b, c, d, WK(t0 + 4));                                               \
        S_ROUND(d, e, f, g, h, a, b, c, WK(t0 + 5));                                               \
        S_ROUND(c, d, e, f, g, h, a, b, WK(t0 + 6));                                               \
        S_ROUND(b, c, d, e, f, g, h, a, WK(t0 + 7));                                               \
    } while (0)

/* W[t] + K[t] for the first 16 rounds, then with the schedule computed in place. */
#define S_WK_LOAD(t) V_ADD(w[t], V_SET1(merkle__sha256_K[t]))
#define S_WK_SCHED(t)                                                                              \
    (w[(t)&15] = V_ADD(V_ADD(w[(t)&15], S_SSIG0(w[((t) + 1) & 15])),                               \
                       V_ADD(w[((t) + 9) & 15], S_SSIG1(w[((t) + 14) & 15]))),                     \
     V_ADD(w[(t)&15], V_SET1(merkle__sha256_K[t])))

/* One compression of the block whose words are w (clobbered: the schedule runs in place). */
static inline void simd_compress(V st[8], V w[16])
{
    V a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], g = st[6], h = st[7];
    S_EIGHT(0, S_WK_LOAD);
    S_EIGHT(8, S_WK_LOAD);
    for (int t = 16; t < 64; t += 16) {
        S_EIGHT(t, S_WK_SCHED);
        S_EIGHT(t + 8, S_WK_SCHED);
    }
    st[0] = V_ADD(st[0], a);
    st[1] = V_ADD(st[1], b);
    st[2] = V_ADD(st[2], c);
    st[3] = V_ADD(st[3], d);
    st[4] = V_ADD(st[4], e);
    st[5] = V_ADD(st[5], f);
    st[6] = V_ADD(st[6], g);
    st[7] = V_ADD(st[7], h);
}

/*
** W[t] + K[t] of the padding block of a 64-byte message (0x80, zeros, bit length 512): the
** block is the same for every such message, so its whole schedule is a constant (generated
** once from the FIPS 180-4 recurrence; a known-answer self-test covers it).
*/
static const uint32_t simd_pad64_wk[64] = {
    0xc28a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u,
    0xab1c5ed5u, 0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu,
    0x9bdc06a7u, 0xc19bf374u, 0x649b69c1u, 0xf0fe4786u, 0x0fe1edc6u, 0x240cf254u, 0x4fe9346fu,
    0x6cc984beu, 0x61b9411eu, 0x16f988fau, 0xf2c65152u, 0xa88e5a6du, 0xb019fc65u, 0xb9d99ec7u,
    0x9a1231c3u, 0xe70eeaa0u, 0xfdb1232bu, 0xc7353eb0u, 0x3069bad5u, 0xcb976d5fu, 0x5a0f118fu,
    0xdc1eeefdu, 0x0a35b689u, 0xde0b7a04u, 0x58f4ca9du, 0xe15d5b16u, 0x007f3e86u, 0x37088980u,
    0xa507ea32u, 0x6fab9537u, 0x17406110u, 0x0d8cd6f1u, 0xcdaa3b6du, 0xc0bbbe37u, 0x83613bdau,
    0xdb48a363u, 0x0b02e931u, 0x6fd15ca7u, 0x521afacau, 0x31338431u, 0x6ed41a95u, 0x6d437890u,
    0xc39c91f2u, 0x9eccabbdu, 0xb5c9a0e6u, 0x532fb63cu, 0xd2c741c6u, 0x07237ea3u, 0xa4954b68u,
    0x4c191d76u,
};

#define S_WK_PAD64(t) V_SET1(simd_pad64_wk[t])

/* The second compression of a 64-byte message: the constant padding block. */
static inline void simd_compress_pad64(V st[8])
{
    V a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], g = st[6], h = st[7];
    for (int t = 0; t < 64; t += 8) S_EIGHT(t, S_WK_PAD64);
    st[0] = V_ADD(st[0], a);
    st[1] = V_ADD(st[1], b);
    st[2] = V_ADD(st[2], c);
    st[3] = V_ADD(st[3], d);
    st[4] = V_ADD(st[4], e);
    st[5] = V_ADD(st[5], f);
    st[6] = V_ADD(st[6], g);
    st[7] = V_ADD(st[7], h);
}

/* A whole 64-byte message per lane (SSZ and Bitcoin nodes, BitTorrent v2 nodes): the block
** is read in place, the padding block's schedule is the constant above. */
static inline void simd_msg64(V st[8], const uint8_t *const *ptrs)
{
    V w[16];
    simd_load_words(w, ptrs, 0);
    simd_compress(st, w);
    simd_compress_pad64(st);
}

static inline void simd_blocks(V st[8], const uint8_t *const *ptrs, size_t nblocks)
{
    size_t off = 0;
    while (nblocks--) {
        V w[16];
        simd_load_words(w, ptrs, off);
        simd_compress(st, w);
        off += 64;
    }
}

/*
** The 65-byte shape of tree nodes and 64-byte leaves (one prefix byte + 64 bytes), with no
** copies: the 64 bytes are transposed once, block 0 is each word shifted right by one byte
** under the prefix, and block 1 is the last data byte, the 0x80 pad and the bit length 520.
*/
static inline void simd_msg65(V st[8], const uint8_t *const *ptrs, uint8_t prefix)
{
    V m[16], w[16];
    simd_load_words(m, ptrs, 0);
    w[0] = V_OR(V_SET1((uint32_t)prefix << 24), V_SHR(m[0], 8));
    for (int t = 1; t < 16; t++) w[t] = V_OR(V_SHL(m[t - 1], 24), V_SHR(m[t], 8));
    simd_compress(st, w);
    w[0] = V_OR(V_SHL(m[15], 24), V_SET1(0x00800000u));
    for (int t = 1; t < 15; t++) w[t] = V_SET1(0);
    w[15] = V_SET1(520);
    simd_compress(st, w);
}

static void simd_lanes_fn(void *st, const uint8_t *const *ptrs, size_t nblocks)
{
    simd_blocks((V *)st, ptrs, nblocks);
}

/* S_LANES messages per pass: the 65-byte shape directly, any other through the lane driver;
** the lanes' states are stored byte-swapped and scattered to 32-byte digests. */
static void simd_batch(uint8_t *out, const uint8_t *const *msgs, size_t n, const uint8_t *prefix,
                       size_t prefix_len, size_t len)
{
    _Alignas(64) uint8_t scratch[S_LANES * MERKLE__SHA256_SCRATCH];
    _Alignas(64) uint32_t words[8][S_LANES];
    V st[8];
    while (n) {
        size_t k = n < S_LANES ? n : S_LANES;
        for (int j = 0; j < 8; j++) st[j] = V_SET1(merkle__sha256_H0[j]);
        if (prefix_len == 1 && len == 64) {
            const uint8_t *ptrs[S_LANES];
            for (size_t i = 0; i < S_LANES; i++) ptrs[i] = msgs[i < k ? i : 0];
            simd_msg65(st, ptrs, prefix[0]);
        } else if (prefix_len == 0 && len == 64) {
            const uint8_t *ptrs[S_LANES];
            for (size_t i = 0; i < S_LANES; i++) ptrs[i] = msgs[i < k ? i : 0];
            simd_msg64(st, ptrs);
        } else {
            merkle__sha256_lanes_run(S_LANES, simd_lanes_fn, st, scratch, msgs, k, prefix,
                                     prefix_len, len);
        }
        for (int j = 0; j < 8; j++) V_STORE_BE(words[j], st[j]);
        for (size_t i = 0; i < k; i++)
            for (int j = 0; j < 8; j++) memcpy(out + 32 * i + 4 * j, &words[j][i], 4);
        out += 32 * k;
        msgs += k;
        n -= k;
    }
}

#endif
