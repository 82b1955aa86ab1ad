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
**   simd_store_digests(out, st, k)  the k <= S_LANES digests of the lanes' states to out
** and gets simd_blocks(V st[8], ptrs, nblocks): the lane-driver block function,
** simd_msg65(st, ptrs, prefix): the whole of a 1 + 64-byte message per lane,
** simd_msg64(st, ptrs): the whole of a 64-byte message per lane, and
** simd_batch: the kernel's merkle__sha256_batch_fn (hash/lanes.h must be included).
*/
#ifndef MERKLE_HASH_SHA256_SIMD_H
#define MERKLE_HASH_SHA256_SIMD_H

#include "hash/sha256_pad64.h"

/* Everything here is forced inline into the batch loop: the state, the 16-word schedule
** and the temporaries fit the register file of AVX-512 (32 registers), so nothing spills. */
#if S_SCHED_IN_MEMORY
#define S_INLINE static inline
#else
#define S_INLINE static inline __attribute__((always_inline))
#endif

#define S_BSIG0(x) V_XOR3(V_ROR(x, 2), V_ROR(x, 13), V_ROR(x, 22))
#define S_BSIG1(x) V_XOR3(V_ROR(x, 6), V_ROR(x, 11), V_ROR(x, 25))
#define S_SSIG0(x) V_XOR3(V_ROR(x, 7), V_ROR(x, 18), V_SHR(x, 3))
#define S_SSIG1(x) V_XOR3(V_ROR(x, 17), V_ROR(x, 19), V_SHR(x, 10))

/* One round; the caller rotates the roles of a..h instead of moving values. h + W + K is
** off the critical path (h is known three rounds ahead); e feeds Ch and Sigma1 at once. */
#if S_SCHED_IN_MEMORY /* fewer live temporaries for 16 registers */
#define S_ROUND(a, b, c, d, e, f, g, h, wk)                                                        \
    do {                                                                                           \
        V t1_ = V_ADD(V_ADD(h, S_BSIG1(e)), V_ADD(V_CH(e, f, g), wk));                             \
        d = V_ADD(d, t1_);                                                                         \
        h = V_ADD(t1_, V_ADD(S_BSIG0(a), V_MAJ(a, b, c)));                                         \
    } while (0)
#else
#define S_ROUND(a, b, c, d, e, f, g, h, wk)                                                        \
    do {                                                                                           \
        V t1_ = V_ADD(V_ADD(V_ADD(h, wk), V_CH(e, f, g)), S_BSIG1(e));                             \
        d = V_ADD(d, t1_);                                                                         \
        h = V_ADD(V_ADD(t1_, V_MAJ(a, b, c)), S_BSIG0(a));                                         \
    } while (0)
#endif

/* Sixteen rounds t0 .. t0+15; WK(t, i) is W[t] + K[t] where the schedule word W[t] lives
** in the variable w<i>, i = t mod 16 (a token, so the words stay in registers). */
#define S_SIXTEEN(t0, WK)                                                                          \
    do {                                                                                           \
        S_ROUND(a, b, c, d, e, f, g, h, WK((t0) + 0, 0));                                          \
        S_ROUND(h, a, b, c, d, e, f, g, WK((t0) + 1, 1));                                          \
        S_ROUND(g, h, a, b, c, d, e, f, WK((t0) + 2, 2));                                          \
        S_ROUND(f, g, h, a, b, c, d, e, WK((t0) + 3, 3));                                          \
        S_ROUND(e, f, g, h, a, b, c, d, WK((t0) + 4, 4));                                          \
        S_ROUND(d, e, f, g, h, a, b, c, WK((t0) + 5, 5));                                          \
        S_ROUND(c, d, e, f, g, h, a, b, WK((t0) + 6, 6));                                          \
        S_ROUND(b, c, d, e, f, g, h, a, WK((t0) + 7, 7));                                          \
        S_ROUND(a, b, c, d, e, f, g, h, WK((t0) + 8, 8));                                          \
        S_ROUND(h, a, b, c, d, e, f, g, WK((t0) + 9, 9));                                          \
        S_ROUND(g, h, a, b, c, d, e, f, WK((t0) + 10, 10));                                        \
        S_ROUND(f, g, h, a, b, c, d, e, WK((t0) + 11, 11));                                        \
        S_ROUND(e, f, g, h, a, b, c, d, WK((t0) + 12, 12));                                        \
        S_ROUND(d, e, f, g, h, a, b, c, WK((t0) + 13, 13));                                        \
        S_ROUND(c, d, e, f, g, h, a, b, WK((t0) + 14, 14));                                        \
        S_ROUND(b, c, d, e, f, g, h, a, WK((t0) + 15, 15));                                        \
    } while (0)

/*
** Two independent groups of lanes, round by round: one group's rounds form a dependency
** chain (e and a through Sigma, Ch, Maj and three adds: about four cycles a round) that
** leaves most of a wide core idle; the second group (state A..H, words x<i>) fills it.
*/
#define S_ROUND2(a, b, c, d, e, f, g, h, A, B, C, D, E, F, G, H, t, i, WK, XK)                     \
    do {                                                                                           \
        S_ROUND(a, b, c, d, e, f, g, h, WK(t, i));                                                 \
        S_ROUND(A, B, C, D, E, F, G, H, XK(t, i));                                                 \
    } while (0)
#define S_SIXTEEN2(t0, WK, XK)                                                                     \
    do {                                                                                           \
        S_ROUND2(a, b, c, d, e, f, g, h, A, B, C, D, E, F, G, H, (t0) + 0, 0, WK, XK);             \
        S_ROUND2(h, a, b, c, d, e, f, g, H, A, B, C, D, E, F, G, (t0) + 1, 1, WK, XK);             \
        S_ROUND2(g, h, a, b, c, d, e, f, G, H, A, B, C, D, E, F, (t0) + 2, 2, WK, XK);             \
        S_ROUND2(f, g, h, a, b, c, d, e, F, G, H, A, B, C, D, E, (t0) + 3, 3, WK, XK);             \
        S_ROUND2(e, f, g, h, a, b, c, d, E, F, G, H, A, B, C, D, (t0) + 4, 4, WK, XK);             \
        S_ROUND2(d, e, f, g, h, a, b, c, D, E, F, G, H, A, B, C, (t0) + 5, 5, WK, XK);             \
        S_ROUND2(c, d, e, f, g, h, a, b, C, D, E, F, G, H, A, B, (t0) + 6, 6, WK, XK);             \
        S_ROUND2(b, c, d, e, f, g, h, a, B, C, D, E, F, G, H, A, (t0) + 7, 7, WK, XK);             \
        S_ROUND2(a, b, c, d, e, f, g, h, A, B, C, D, E, F, G, H, (t0) + 8, 8, WK, XK);             \
        S_ROUND2(h, a, b, c, d, e, f, g, H, A, B, C, D, E, F, G, (t0) + 9, 9, WK, XK);             \
        S_ROUND2(g, h, a, b, c, d, e, f, G, H, A, B, C, D, E, F, (t0) + 10, 10, WK, XK);           \
        S_ROUND2(f, g, h, a, b, c, d, e, F, G, H, A, B, C, D, E, (t0) + 11, 11, WK, XK);           \
        S_ROUND2(e, f, g, h, a, b, c, d, E, F, G, H, A, B, C, D, (t0) + 12, 12, WK, XK);           \
        S_ROUND2(d, e, f, g, h, a, b, c, D, E, F, G, H, A, B, C, (t0) + 13, 13, WK, XK);           \
        S_ROUND2(c, d, e, f, g, h, a, b, C, D, E, F, G, H, A, B, (t0) + 14, 14, WK, XK);           \
        S_ROUND2(b, c, d, e, f, g, h, a, B, C, D, E, F, G, H, A, (t0) + 15, 15, WK, XK);           \
    } while (0)

/* W[t] for t >= 16, in place: p<i> = W[t-16] becomes W[t] (i = t mod 16; p names the
** block's 16 word variables). */
#define S_SCHED(p, i, i1, i9, i14)                                                                 \
    (p##i = V_ADD(V_ADD(p##i, S_SSIG0(p##i1)), V_ADD(p##i9, S_SSIG1(p##i14))))
#define S_SCHED_0(p)  S_SCHED(p, 0, 1, 9, 14)
#define S_SCHED_1(p)  S_SCHED(p, 1, 2, 10, 15)
#define S_SCHED_2(p)  S_SCHED(p, 2, 3, 11, 0)
#define S_SCHED_3(p)  S_SCHED(p, 3, 4, 12, 1)
#define S_SCHED_4(p)  S_SCHED(p, 4, 5, 13, 2)
#define S_SCHED_5(p)  S_SCHED(p, 5, 6, 14, 3)
#define S_SCHED_6(p)  S_SCHED(p, 6, 7, 15, 4)
#define S_SCHED_7(p)  S_SCHED(p, 7, 8, 0, 5)
#define S_SCHED_8(p)  S_SCHED(p, 8, 9, 1, 6)
#define S_SCHED_9(p)  S_SCHED(p, 9, 10, 2, 7)
#define S_SCHED_10(p) S_SCHED(p, 10, 11, 3, 8)
#define S_SCHED_11(p) S_SCHED(p, 11, 12, 4, 9)
#define S_SCHED_12(p) S_SCHED(p, 12, 13, 5, 10)
#define S_SCHED_13(p) S_SCHED(p, 13, 14, 6, 11)
#define S_SCHED_14(p) S_SCHED(p, 14, 15, 7, 12)
#define S_SCHED_15(p) S_SCHED(p, 15, 0, 8, 13)

#define S_WK_LOAD(t, i)  V_ADD(w##i, V_SET1(k_[t]))
#define S_WK_SCHED(t, i) (S_SCHED_##i(w), V_ADD(w##i, V_SET1(k_[t])))
#define S_XK_LOAD(t, i)  V_ADD(x##i, V_SET1(k_[t]))
#define S_XK_SCHED(t, i) (S_SCHED_##i(x), V_ADD(x##i, V_SET1(k_[t])))

/* The constant tables are read through a pointer the compiler cannot see through, so that
** each round broadcasts its constant from memory (one fused operand) instead of the loop
** hoisting 64 broadcast registers out and spilling them to the stack. */
#define S_OPAQUE(p) __asm__("" : "+r"(p))

/* st += (a, ..., h): the feed-forward at the end of a compression. */
S_INLINE void simd_feed(V st[8], V a, V b, V c, V d, V e, V f, V g, V h)
{
    st[0] = V_ADD(st[0], a);
    st[1] = V_ADD(st[1], b);
    st[2] = V_ADD(st[2], c);
    st[3] = V_ADD(st[3], d);
    st[4] = V_ADD(st[4], e);
    st[5] = V_ADD(st[5], f);
    st[6] = V_ADD(st[6], g);
    st[7] = V_ADD(st[7], h);
}

#if S_SCHED_IN_MEMORY
/*
** 16 registers (AVX2) cannot hold the state and the schedule: the schedule stays in the
** array w, in place, and each round reads it as a memory operand.
*/
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
#define S_WM_LOAD(t) V_ADD(w[t], V_SET1(merkle__sha256_K[t]))
#define S_WM_SCHED(t)                                                                              \
    (w[(t)&15] = V_ADD(V_ADD(w[(t)&15], S_SSIG0(w[((t) + 1) & 15])),                               \
                       V_ADD(w[((t) + 9) & 15], S_SSIG1(w[((t) + 14) & 15]))),                     \
     V_ADD(w[(t)&15], V_SET1(merkle__sha256_K[t])))
#define S_WM_PAD64(t) V_SET1(simd_pad64_wk[t])

static inline void simd_compress(V st[8], V w[16]) /* w: clobbered */
{
    V a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], g = st[6], h = st[7];
    S_EIGHT(0, S_WM_LOAD);
    S_EIGHT(8, S_WM_LOAD);
    for (int t = 16; t < 64; t += 16) {
        S_EIGHT(t, S_WM_SCHED);
        S_EIGHT(t + 8, S_WM_SCHED);
    }
    simd_feed(st, a, b, c, d, e, f, g, h);
}
#else
/* One compression of the block whose words are w[0..16) (read once into registers). */
S_INLINE void simd_compress(V st[8], V w[16])
{
    const uint32_t *k_ = merkle__sha256_K;
    S_OPAQUE(k_);
    V a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], g = st[6], h = st[7];
    V w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6], w7 = w[7];
    V w8 = w[8], w9 = w[9], w10 = w[10], w11 = w[11], w12 = w[12], w13 = w[13], w14 = w[14];
    V w15 = w[15];
    S_SIXTEEN(0, S_WK_LOAD);
    S_SIXTEEN(16, S_WK_SCHED);
    S_SIXTEEN(32, S_WK_SCHED);
    S_SIXTEEN(48, S_WK_SCHED);
    simd_feed(st, a, b, c, d, e, f, g, h);
}

#endif

#define S_LOAD_STATE                                                                               \
    V a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], g = st[6], h = st[7];      \
    V A = su[0], B = su[1], C = su[2], D = su[3], E = su[4], F = su[5], G = su[6], H = su[7]
#define S_FEED_STATE                                                                               \
    do {                                                                                           \
        simd_feed(st, a, b, c, d, e, f, g, h);                                                     \
        simd_feed(su, A, B, C, D, E, F, G, H);                                                     \
    } while (0)

/* One compression each of two groups: st with the block words w, su with x. */
S_INLINE void simd_compress2(V st[8], const V w[16], V su[8], const V x[16])
{
    const uint32_t *k_ = merkle__sha256_K;
    S_OPAQUE(k_);
    S_LOAD_STATE;
    V w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6], w7 = w[7];
    V w8 = w[8], w9 = w[9], w10 = w[10], w11 = w[11], w12 = w[12], w13 = w[13], w14 = w[14];
    V w15 = w[15];
    V x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5], x6 = x[6], x7 = x[7];
    V x8 = x[8], x9 = x[9], x10 = x[10], x11 = x[11], x12 = x[12], x13 = x[13], x14 = x[14];
    V x15 = x[15];
    S_SIXTEEN2(0, S_WK_LOAD, S_XK_LOAD);
    S_SIXTEEN2(16, S_WK_SCHED, S_XK_SCHED);
    S_SIXTEEN2(32, S_WK_SCHED, S_XK_SCHED);
    S_SIXTEEN2(48, S_WK_SCHED, S_XK_SCHED);
    S_FEED_STATE;
}

#define simd_pad64_wk merkle__sha256_pad64_wk /* hash/sha256_pad64.h */

#define S_WK_PAD64(t, i) V_SET1(k_[t])

#if S_SCHED_IN_MEMORY
static inline void simd_compress_pad64(V st[8])
{
    V a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], g = st[6], h = st[7];
    for (int t = 0; t < 64; t += 8) S_EIGHT(t, S_WM_PAD64);
    simd_feed(st, a, b, c, d, e, f, g, h);
}
#else
/* The second compression of a 64-byte message: the constant padding block. */
S_INLINE void simd_compress_pad64(V st[8])
{
    const uint32_t *k_ = simd_pad64_wk;
    S_OPAQUE(k_);
    V a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], g = st[6], h = st[7];
    S_SIXTEEN(0, S_WK_PAD64);
    S_SIXTEEN(16, S_WK_PAD64);
    S_SIXTEEN(32, S_WK_PAD64);
    S_SIXTEEN(48, S_WK_PAD64);
    simd_feed(st, a, b, c, d, e, f, g, h);
}

#endif

/* The padding block of 64-byte messages for two groups. */
S_INLINE void simd_compress_pad64_2(V st[8], V su[8])
{
    const uint32_t *k_ = simd_pad64_wk;
    S_OPAQUE(k_);
    S_LOAD_STATE;
    S_SIXTEEN2(0, S_WK_PAD64, S_WK_PAD64);
    S_SIXTEEN2(16, S_WK_PAD64, S_WK_PAD64);
    S_SIXTEEN2(32, S_WK_PAD64, S_WK_PAD64);
    S_SIXTEEN2(48, S_WK_PAD64, S_WK_PAD64);
    S_FEED_STATE;
}

/* simd_msg64 for two groups of lanes (ptrs[0..2 * S_LANES)). */
S_INLINE void simd_msg64_2(V st[8], V su[8], const uint8_t *const *ptrs)
{
    V w[16], x[16];
    simd_load_words(w, ptrs, 0);
    simd_compress(st, w); /* the schedule gives this block enough independent work */
    simd_load_words(x, ptrs + S_LANES, 0);
    simd_compress(su, x);
    simd_compress_pad64_2(st, su);
}

/* A whole 64-byte message per lane (SSZ and Bitcoin nodes, BitTorrent v2 nodes): the block
** is read in place, the padding block's schedule is the constant above. */
S_INLINE void simd_msg64(V st[8], const uint8_t *const *ptrs)
{
    V w[16];
    simd_load_words(w, ptrs, 0);
    simd_compress(st, w);
    simd_compress_pad64(st);
}

S_INLINE void simd_blocks(V st[8], const uint8_t *const *ptrs, size_t nblocks)
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
S_INLINE void simd_msg65(V st[8], const uint8_t *const *ptrs, uint8_t prefix)
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

#if S_TWO_GROUPS
/* simd_blocks for two groups of lanes (ptrs[0..2 * S_LANES)); the next blocks of every
** lane are prefetched (32 streams a few hundred bytes apart defeat the hardware prefetcher). */
S_INLINE void simd_blocks2(V st[8], V su[8], const uint8_t *const *ptrs, size_t nblocks)
{
    size_t off = 0;
    while (nblocks--) {
        V w[16], x[16];
        if (nblocks)
            for (int i = 0; i < 2 * S_LANES; i++)
                __builtin_prefetch(ptrs[i] + off + 64 * S_PREFETCH_BLOCKS);
        simd_load_words(w, ptrs, off);
        simd_load_words(x, ptrs + S_LANES, off);
        simd_compress2(st, w, su, x);
        off += 64;
    }
}

static void simd_lanes_fn2(void *st, const uint8_t *const *ptrs, size_t nblocks)
{
    simd_blocks2((V *)st, (V *)st + 8, ptrs, nblocks);
}

#endif

/* simd_msg65 for two groups of lanes. */
S_INLINE void simd_msg65_2(V st[8], V su[8], const uint8_t *const *ptrs, uint8_t prefix)
{
    V m[16], n[16], w[16], x[16];
    simd_load_words(m, ptrs, 0);
    simd_load_words(n, ptrs + S_LANES, 0);
    w[0] = V_OR(V_SET1((uint32_t)prefix << 24), V_SHR(m[0], 8));
    x[0] = V_OR(V_SET1((uint32_t)prefix << 24), V_SHR(n[0], 8));
    for (int t = 1; t < 16; t++) {
        w[t] = V_OR(V_SHL(m[t - 1], 24), V_SHR(m[t], 8));
        x[t] = V_OR(V_SHL(n[t - 1], 24), V_SHR(n[t], 8));
    }
    simd_compress2(st, w, su, x);
    w[0] = V_OR(V_SHL(m[15], 24), V_SET1(0x00800000u));
    x[0] = V_OR(V_SHL(n[15], 24), V_SET1(0x00800000u));
    for (int t = 1; t < 15; t++) w[t] = x[t] = V_SET1(0);
    w[15] = x[15] = V_SET1(520);
    simd_compress2(st, w, su, x);
}

static void simd_lanes_fn(void *st, const uint8_t *const *ptrs, size_t nblocks)
{
    simd_blocks((V *)st, ptrs, nblocks);
}

/* S_LANES messages per pass: the 64- and 65-byte shapes directly, any other through the
** lane driver; the lanes' states are transposed in registers into k digests
** (simd_store_digests, full-width stores). */
static void simd_batch(uint8_t *out, const uint8_t *const *msgs, size_t n, const uint8_t *prefix,
                       size_t prefix_len, size_t len)
{
    _Alignas(64) uint8_t scratch[S_LANES * MERKLE__SHA256_SCRATCH];
    V st[8];
    while (n) {
#if S_TWO_GROUPS
        if (n > S_LANES && len == 64 && prefix_len <= 1) {
            /* 64- and 65-byte messages: two groups at once (see S_ROUND2) */
            size_t k = n < 2 * S_LANES ? n : 2 * S_LANES;
            const uint8_t *ptrs[2 * S_LANES];
            V su[8];
            for (size_t i = 0; i < 2 * S_LANES; i++) ptrs[i] = msgs[i < k ? i : 0];
            for (int j = 0; j < 8; j++) st[j] = su[j] = V_SET1(merkle__sha256_H0[j]);
            if (prefix_len)
                simd_msg65_2(st, su, ptrs, prefix[0]);
            else
                simd_msg64_2(st, su, ptrs);
            simd_store_digests(out, st, S_LANES);
            simd_store_digests(out + 32 * S_LANES, su, k - S_LANES);
            out += 32 * k;
            msgs += k;
            n -= k;
            continue;
        }
        if (n > S_LANES) { /* any other length: two groups through the lane driver */
            _Alignas(64) uint8_t scratch2[2 * S_LANES * MERKLE__SHA256_SCRATCH];
            size_t k = n < 2 * S_LANES ? n : 2 * S_LANES;
            V s2[16];
            for (int j = 0; j < 8; j++) s2[j] = s2[8 + j] = V_SET1(merkle__sha256_H0[j]);
            merkle__sha256_lanes_run(2 * S_LANES, simd_lanes_fn2, s2, scratch2, msgs, k, prefix,
                                     prefix_len, len);
            simd_store_digests(out, s2, S_LANES);
            simd_store_digests(out + 32 * S_LANES, s2 + 8, k - S_LANES);
            out += 32 * k;
            msgs += k;
            n -= k;
            continue;
        }
#endif
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
        simd_store_digests(out, st, k);
        out += 32 * k;
        msgs += k;
        n -= k;
    }
}

#endif
