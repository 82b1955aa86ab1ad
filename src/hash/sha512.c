/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Streaming SHA-512 (FIPS 180-4) for sha512sum-style lists: the compress of sha512_body.h,
** portable or built with BMI2 (sha512_avx2.c: rorx, about 10 % faster) when the CPU has it.
*/
#include <stdatomic.h>
#include <string.h>

#include "common/internal.h"
#include "hash/impl.h"
#include "hash/md.h"

#define SHA512_COMPRESS_NAME merkle__sha512_compress_portable
#include "hash/sha512_body.h"

#if MERKLE_HAVE_X86
static int bmi2_ok(void)
{
    return (merkle__cpu_features() & MERKLE_CPU_BMI2) != 0;
}
#endif

merkle__sha512_compress_fn merkle__sha512_kernel(const char *name)
{
    if (name == NULL) return NULL;
    if (strcmp(name, "portable") == 0) return merkle__sha512_compress_portable;
#if MERKLE_HAVE_X86
    if (strcmp(name, "bmi2") == 0 && bmi2_ok()) return merkle__sha512_compress_bmi2;
#endif
    return NULL;
}

static _Atomic(merkle__sha512_compress_fn) g_kernel;

void merkle__sha512_compress(uint64_t state[8], const uint8_t *blocks, size_t nblocks)
{
    merkle__sha512_compress_fn f = atomic_load_explicit(&g_kernel, memory_order_relaxed);
    if (!f) {
        f = merkle__sha512_compress_portable;
#if MERKLE_HAVE_X86
        if (bmi2_ok()) f = merkle__sha512_compress_bmi2;
#endif
        atomic_store_explicit(&g_kernel, f, memory_order_relaxed);
    }
    f(state, blocks, nblocks);
}

void merkle__sha512_init(merkle__sha512 *c)
{
    static const uint64_t iv[8] = { 0x6a09e667f3bcc908u, 0xbb67ae8584caa73bu, 0x3c6ef372fe94f82bu,
                                    0xa54ff53a5f1d36f1u, 0x510e527fade682d1u, 0x9b05688c2b3e6c1fu,
                                    0x1f83d9abfb41bd6bu, 0x5be0cd19137e2179u };
    memcpy(c->h, iv, sizeof iv);
    c->total = 0;
}

static void sha512_blocks(void *h, const uint8_t *blocks, size_t n)
{
    merkle__sha512_compress((uint64_t *)h, blocks, n);
}

void merkle__sha512_update(merkle__sha512 *c, const void *p, size_t n)
{
    merkle__md_update(c->h, c->buf, 128, &c->total, p, n, sha512_blocks);
}

void merkle__sha512_final(merkle__sha512 *c, uint8_t out[64])
{
    uint8_t last[256];
    size_t tail = (size_t)(c->total % 128);
    memcpy(last, c->buf, tail);
    merkle__sha512_compress(c->h, last, merkle__md_pad(last, tail, 128, 16, c->total, 0) / 128);
    for (int i = 0; i < 8; i++) merkle__store_be64(out + 8 * i, c->h[i]);
}
