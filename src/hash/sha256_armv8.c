/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** SHA-256 with the ARMv8 Cryptography Extension (sha256h, sha256h2, sha256su0, sha256su1).
** Compiled with -march=armv8-a+crypto on aarch64 only; chosen at run time when the kernel
** reports HWCAP_SHA2 (hash/cpu.c).
**
** As on x86 (sha256_shani.c), one stream ("armv8") is latency-bound: each sha256h waits for
** the previous one. "armv8x2" and "armv8x4" interleave 2 or 4 independent messages so that
** their round chains overlap; they run through the lane driver (hash/lanes.h). The state is
** kept as (A,B,C,D) and (E,F,G,H), the instructions' own order.
*/
#include <arm_neon.h>

#include "hash/lanes.h"

static inline uint32x4_t load_be(const uint8_t *p)
{
    return vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(p)));
}

static void compress_armv8(uint32_t state[8], const uint8_t *blocks, size_t nblocks)
{
    uint32x4_t abcd = vld1q_u32(&state[0]), efgh = vld1q_u32(&state[4]);
    while (nblocks--) {
        const uint32x4_t abcd0 = abcd, efgh0 = efgh;
        uint32x4_t w[4];
#pragma GCC unroll 16
        for (int g = 0; g < 16; g++) {
            if (g < 4)
                w[g] = load_be(blocks + 16 * g);
            else /* W[4g..4g+3] from the four quads before them, oldest first */
                w[g & 3] = vsha256su1q_u32(vsha256su0q_u32(w[g & 3], w[(g + 1) & 3]),
                                           w[(g + 2) & 3], w[(g + 3) & 3]);
            uint32x4_t wk = vaddq_u32(w[g & 3], vld1q_u32(&merkle__sha256_K[4 * g]));
            uint32x4_t prev = abcd;
            abcd = vsha256hq_u32(abcd, efgh, wk);
            efgh = vsha256h2q_u32(efgh, prev, wk);
        }
        abcd = vaddq_u32(abcd, abcd0);
        efgh = vaddq_u32(efgh, efgh0);
        blocks += 64;
    }
    vst1q_u32(&state[0], abcd);
    vst1q_u32(&state[4], efgh);
}

/* S interleaved streams; st holds 2*S vectors: abcd of stream s at [2s], efgh at [2s+1]. */
static inline void multi_blocks(uint32x4_t *st, const uint8_t *const *ptrs, size_t nblocks, int S)
{
    uint32x4_t abcd[4], efgh[4], abcd0[4], efgh0[4], w[4][4];
    const uint8_t *p[4];
    for (int s = 0; s < S; s++) {
        abcd[s] = st[2 * s];
        efgh[s] = st[2 * s + 1];
        p[s] = ptrs[s];
    }
    while (nblocks--) {
        for (int s = 0; s < S; s++) {
            abcd0[s] = abcd[s];
            efgh0[s] = efgh[s];
        }
#pragma GCC unroll 16
        for (int g = 0; g < 16; g++) {
            const uint32x4_t kg = vld1q_u32(&merkle__sha256_K[4 * g]);
#pragma GCC unroll 4
            for (int s = 0; s < S; s++) {
                if (g < 4)
                    w[s][g] = load_be(p[s] + 16 * g);
                else
                    w[s][g & 3] = vsha256su1q_u32(vsha256su0q_u32(w[s][g & 3], w[s][(g + 1) & 3]),
                                                  w[s][(g + 2) & 3], w[s][(g + 3) & 3]);
                uint32x4_t wk = vaddq_u32(w[s][g & 3], kg);
                uint32x4_t prev = abcd[s];
                abcd[s] = vsha256hq_u32(abcd[s], efgh[s], wk);
                efgh[s] = vsha256h2q_u32(efgh[s], prev, wk);
            }
        }
        for (int s = 0; s < S; s++) {
            abcd[s] = vaddq_u32(abcd[s], abcd0[s]);
            efgh[s] = vaddq_u32(efgh[s], efgh0[s]);
            p[s] += 64;
        }
    }
    for (int s = 0; s < S; s++) {
        st[2 * s] = abcd[s];
        st[2 * s + 1] = efgh[s];
    }
}

static void blocks2(void *st, const uint8_t *const *ptrs, size_t nblocks)
{
    multi_blocks((uint32x4_t *)st, ptrs, nblocks, 2);
}

static void blocks4(void *st, const uint8_t *const *ptrs, size_t nblocks)
{
    multi_blocks((uint32x4_t *)st, ptrs, nblocks, 4);
}

static inline void batch_multi(uint8_t *out, const uint8_t *const *msgs, size_t n,
                               const uint8_t *prefix, size_t prefix_len, size_t len, size_t S,
                               merkle__lanes_fn fn)
{
    _Alignas(64) uint8_t scratch[4 * MERKLE__SHA256_SCRATCH];
    uint32x4_t st[8];
    const uint32x4_t iv_abcd = vld1q_u32(&merkle__sha256_H0[0]);
    const uint32x4_t iv_efgh = vld1q_u32(&merkle__sha256_H0[4]);
    while (n) {
        size_t k = n < S ? n : S;
        if (k == 1) { /* a lone message: one stream is cheaper than S with copies */
            merkle__sha256_prefixed(compress_armv8, out, prefix, prefix_len, msgs[0], len);
        } else {
            for (size_t s = 0; s < S; s++) {
                st[2 * s] = iv_abcd;
                st[2 * s + 1] = iv_efgh;
            }
            merkle__sha256_lanes_run(S, fn, st, scratch, msgs, k, prefix, prefix_len, len);
            for (size_t s = 0; s < k; s++) {
                uint32_t h[8];
                vst1q_u32(&h[0], st[2 * s]);
                vst1q_u32(&h[4], st[2 * s + 1]);
                for (int j = 0; j < 8; j++) merkle__store_be32(out + 32 * s + 4 * j, h[j]);
            }
        }
        out += 32 * k;
        msgs += k;
        n -= k;
    }
}

static void batch_armv8(uint8_t *out, const uint8_t *const *msgs, size_t n, const uint8_t *prefix,
                        size_t prefix_len, size_t len)
{
    merkle__sha256_batch_generic(compress_armv8, out, msgs, n, prefix, prefix_len, len);
}

static void batch_armv8x2(uint8_t *out, const uint8_t *const *msgs, size_t n, const uint8_t *prefix,
                          size_t prefix_len, size_t len)
{
    batch_multi(out, msgs, n, prefix, prefix_len, len, 2, blocks2);
}

static void batch_armv8x4(uint8_t *out, const uint8_t *const *msgs, size_t n, const uint8_t *prefix,
                          size_t prefix_len, size_t len)
{
    batch_multi(out, msgs, n, prefix, prefix_len, len, 4, blocks4);
}

static int available(void)
{
    return (merkle__cpu_features() & MERKLE_CPU_ARM_SHA2) != 0;
}

const merkle__sha256_impl merkle__sha256_armv8 = { "armv8", available, compress_armv8, batch_armv8,
                                                   1 };
const merkle__sha256_impl merkle__sha256_armv8x2 = { "armv8x2", available, compress_armv8,
                                                     batch_armv8x2, 2 };
const merkle__sha256_impl merkle__sha256_armv8x4 = { "armv8x4", available, compress_armv8,
                                                     batch_armv8x4, 4 };
