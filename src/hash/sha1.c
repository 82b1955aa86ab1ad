/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Streaming SHA-1 (FIPS 180-4) for sha1sum-style lists: portable compress and the kernel
** choice (SHA-NI in sha1_shani.c when the CPU has it). SHA-1 is broken for collisions; it is
** here because users' existing checksum lists use it, never for a tree.
*/
#include <stdatomic.h>
#include <string.h>

#include "common/internal.h"
#include "hash/impl.h"
#include "hash/md.h"

static inline uint32_t rol(uint32_t x, unsigned n)
{
    return (x << n) | (x >> (32 - n));
}

void merkle__sha1_compress_portable(uint32_t state[5], const uint8_t *blocks, size_t nblocks)
{
    const uint8_t *p = blocks;
    for (; nblocks; nblocks--, p += 64) {
        uint32_t w[16];
        for (int i = 0; i < 16; i++) w[i] = merkle__load_be32(p + 4 * i);
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
        for (int i = 0; i < 80; i++) {
            uint32_t wi;
            if (i < 16) {
                wi = w[i];
            } else {
                wi = rol(w[(i + 13) & 15] ^ w[(i + 8) & 15] ^ w[(i + 2) & 15] ^ w[i & 15], 1);
                w[i & 15] = wi;
            }
            uint32_t f, k;
            if (i < 20) {
                f = d ^ (b & (c ^ d));
                k = 0x5a827999u;
            } else if (i < 40) {
                f = b ^ c ^ d;
                k = 0x6ed9eba1u;
            } else if (i < 60) {
                f = (b & c) | (d & (b | c));
                k = 0x8f1bbcdcu;
            } else {
                f = b ^ c ^ d;
                k = 0xca62c1d6u;
            }
            uint32_t t = rol(a, 5) + f + e + k + wi;
            e = d;
            d = c;
            c = rol(b, 30);
            b = a;
            a = t;
        }
        state[0] += a;
        state[1] += b;
        state[2] += c;
        state[3] += d;
        state[4] += e;
    }
}

#if MERKLE_HAVE_X86
static int shani_ok(void)
{
    unsigned need = MERKLE_CPU_SHA | MERKLE_CPU_SSE41 | MERKLE_CPU_SSSE3;
    return (merkle__cpu_features() & need) == need;
}
#endif

/* Known answer of the kernel before it is trusted: SHA-1("abc"), FIPS 180-4 appendix. */
static int self_test(merkle__sha1_compress_fn f)
{
    static const uint8_t want[20] = { 0xa9, 0x99, 0x3e, 0x36, 0x47, 0x06, 0x81, 0x6a, 0xba, 0x3e,
                                      0x25, 0x71, 0x78, 0x50, 0xc2, 0x6c, 0x9c, 0xd0, 0xd8, 0x9d };
    uint8_t block[64] = { 'a', 'b', 'c', 0x80 };
    block[63] = 24;
    uint32_t h[5] = { 0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u, 0xc3d2e1f0u };
    f(h, block, 1);
    uint8_t got[20];
    for (int i = 0; i < 5; i++) merkle__store_be32(got + 4 * i, h[i]);
    return memcmp(got, want, 20) == 0;
}

merkle__sha1_compress_fn merkle__sha1_kernel(const char *name)
{
    if (name == NULL) return NULL;
    if (strcmp(name, "portable") == 0) return merkle__sha1_compress_portable;
#if MERKLE_HAVE_X86
    if (strcmp(name, "shani") == 0 && shani_ok()) return merkle__sha1_compress_shani;
#endif
    return NULL;
}

static _Atomic(merkle__sha1_compress_fn) g_kernel;

static merkle__sha1_compress_fn kernel(void)
{
    merkle__sha1_compress_fn f = atomic_load_explicit(&g_kernel, memory_order_acquire);
    if (f) return f;
    f = merkle__sha1_compress_portable;
    merkle__sha1_compress_fn fast = merkle__sha1_kernel("shani");
    if (fast && self_test(fast)) f = fast;
    atomic_store_explicit(&g_kernel, f, memory_order_release);
    return f;
}

const char *merkle__sha1_backend(void)
{
    return kernel() == merkle__sha1_compress_portable ? "portable" : "shani";
}

void merkle__sha1_init(merkle__sha1 *c)
{
    c->h[0] = 0x67452301u;
    c->h[1] = 0xefcdab89u;
    c->h[2] = 0x98badcfeu;
    c->h[3] = 0x10325476u;
    c->h[4] = 0xc3d2e1f0u;
    c->total = 0;
}

static void sha1_blocks(void *h, const uint8_t *blocks, size_t n)
{
    kernel()((uint32_t *)h, blocks, n);
}

void merkle__sha1_update(merkle__sha1 *c, const void *p, size_t n)
{
    merkle__md_update(c->h, c->buf, 64, &c->total, p, n, sha1_blocks);
}

void merkle__sha1_final(merkle__sha1 *c, uint8_t out[20])
{
    uint8_t last[128];
    size_t tail = (size_t)(c->total % 64);
    memcpy(last, c->buf, tail);
    kernel()(c->h, last, merkle__md_pad(last, tail, 64, 8, c->total, 0) / 64);
    for (int i = 0; i < 5; i++) merkle__store_be32(out + 4 * i, c->h[i]);
}
