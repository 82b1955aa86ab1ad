/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Keccak-256 as Ethereum uses it: Keccak[c = 512] (rate 136 bytes) with the original
** multi-rate padding 0x01 .. 0x80 -- not FIPS 202 SHA3-256, whose domain byte is 0x06.
** Portable keccak-f[1600] on 25 64-bit lanes (FIPS 202 section 3.2: theta, rho, pi, chi,
** iota), written from the specification; tests/test_hash.c checks it against known answers
** from @noble/hashes and the keccak npm package.
*/
#include <string.h>

#include "hash/impl.h"

#define RATE 136

static const uint64_t k_rc[24] = {
    0x0000000000000001ull, 0x0000000000008082ull, 0x800000000000808aull, 0x8000000080008000ull,
    0x000000000000808bull, 0x0000000080000001ull, 0x8000000080008081ull, 0x8000000000008009ull,
    0x000000000000008aull, 0x0000000000000088ull, 0x0000000080008009ull, 0x000000008000000aull,
    0x000000008000808bull, 0x800000000000008bull, 0x8000000000008089ull, 0x8000000000008003ull,
    0x8000000000008002ull, 0x8000000000000080ull, 0x000000000000800aull, 0x800000008000000aull,
    0x8000000080008081ull, 0x8000000000008080ull, 0x0000000080000001ull, 0x8000000080008008ull};

/* rho offsets r[x + 5y] (FIPS 202 table 2). */
static const unsigned k_rho[25] = {0,  1,  62, 28, 27, 36, 44, 6,  55, 20, 3,  10, 43,
                                   25, 39, 41, 45, 15, 21, 8,  18, 2,  61, 56, 14};

static inline uint64_t rol(uint64_t x, unsigned n)
{
    return n ? (x << n) | (x >> (64 - n)) : x;
}

void merkle__keccak_f1600(uint64_t a[25])
{
    for (int round = 0; round < 24; round++) {
        uint64_t c[5], d[5], b[25];
        for (int x = 0; x < 5; x++) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
        for (int x = 0; x < 5; x++) d[x] = c[(x + 4) % 5] ^ rol(c[(x + 1) % 5], 1);
        for (int i = 0; i < 25; i++) a[i] ^= d[i % 5];
        /* rho and pi: B[y, 2x + 3y] = rot(A[x, y], r[x, y]). */
        for (int x = 0; x < 5; x++)
            for (int y = 0; y < 5; y++)
                b[y + 5 * ((2 * x + 3 * y) % 5)] = rol(a[x + 5 * y], k_rho[x + 5 * y]);
        for (int y = 0; y < 5; y++)
            for (int x = 0; x < 5; x++)
                a[x + 5 * y] = b[x + 5 * y] ^ (~b[(x + 1) % 5 + 5 * y] & b[(x + 2) % 5 + 5 * y]);
        a[0] ^= k_rc[round];
    }
}

void merkle_keccak256_init(merkle_keccak256 *ctx)
{
    memset(ctx, 0, sizeof *ctx);
}

/* XOR byte v into the state at byte position pos (little-endian lanes). */
static inline void xor_byte(uint64_t *s, size_t pos, uint8_t v)
{
    s[pos / 8] ^= (uint64_t)v << (8 * (pos % 8));
}

void merkle_keccak256_update(merkle_keccak256 *ctx, const void *data, size_t len)
{
    const uint8_t *p = (const uint8_t *)data;
    size_t pos = ctx->pos;
    if (pos == 0) {
        /* Whole blocks straight from the input. */
        while (len >= RATE) {
            for (int i = 0; i < RATE / 8; i++) ctx->s[i] ^= merkle__load_le64(p + 8 * i);
            merkle__keccak_f1600(ctx->s);
            p += RATE;
            len -= RATE;
        }
    }
    while (len) {
        xor_byte(ctx->s, pos++, *p++);
        len--;
        if (pos == RATE) {
            merkle__keccak_f1600(ctx->s);
            pos = 0;
            if (len >= RATE) {
                ctx->pos = 0;
                merkle_keccak256_update(ctx, p, len);
                return;
            }
        }
    }
    ctx->pos = (uint32_t)pos;
}

void merkle_keccak256_final(merkle_keccak256 *ctx, uint8_t out[MERKLE_KECCAK256_LEN])
{
    xor_byte(ctx->s, ctx->pos, 0x01);
    xor_byte(ctx->s, RATE - 1, 0x80);
    merkle__keccak_f1600(ctx->s);
    for (int i = 0; i < 4; i++) merkle__store_le64(out + 8 * i, ctx->s[i]);
}

void merkle_keccak256_hash(uint8_t out[MERKLE_KECCAK256_LEN], const void *data, size_t len)
{
    merkle_keccak256 ctx;
    merkle_keccak256_init(&ctx);
    merkle_keccak256_update(&ctx, data, len);
    merkle_keccak256_final(&ctx, out);
}

/*
** The 64-byte shape (a tree node: two hashes, no prefix) in one permutation: the message
** fits in the rate, so the block is the 8 words, the 0x01 after them and the 0x80 at the end.
*/
static void keccak_msg64(uint8_t out[32], const uint8_t *m)
{
    uint64_t s[25] = {0};
    for (int i = 0; i < 8; i++) s[i] = merkle__load_le64(m + 8 * i);
    s[8] = 0x01;
    s[RATE / 8 - 1] = 0x8000000000000000ull;
    merkle__keccak_f1600(s);
    for (int i = 0; i < 4; i++) merkle__store_le64(out + 8 * i, s[i]);
}

merkle_status merkle_keccak256_batch_strided(uint8_t *out, const uint8_t *prefix, size_t prefix_len,
                                             const uint8_t *base, size_t stride, size_t len,
                                             size_t n)
{
    if (n == 0) return MERKLE_OK;
    if (!out || prefix_len > 64 || (prefix_len && !prefix) || (!base && (len || stride)))
        return MERKLE_ERR_ARG;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *m = base ? base + i * stride : NULL;
        if (prefix_len == 0 && len == 64) {
            keccak_msg64(out + 32 * i, m);
            continue;
        }
        merkle_keccak256 ctx;
        merkle_keccak256_init(&ctx);
        merkle_keccak256_update(&ctx, prefix, prefix_len);
        merkle_keccak256_update(&ctx, m, len);
        merkle_keccak256_final(&ctx, out + 32 * i);
    }
    return MERKLE_OK;
}
