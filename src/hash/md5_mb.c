/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Multi-buffer MD5: the portable kernel, kernel dispatch, scalar lane finish, and the file
** engine that keeps up to 16 files in flight (see md5_mb.h for the contracts).
**
** Why a file engine: for a checksum list of many files the cost is not only hashing but the
** syscalls and memory traffic per file. Each lane owns one reused read buffer (fresh memory per
** file costs more in page faults than the hashing); a lane whose file ends is refilled with the
** next file at once, so one 4 MiB file never stalls the other lanes; the MD5 padding is written
** in place behind a file's last bytes so that the final block goes through the SIMD kernel too.
*/
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hash/dispatch.h"
#include "hash/impl.h"
#include "hash/md.h"
#include "hash/md5_mb.h"

/* ------------------------------------------------------------------ scalar MD5 */

static const uint32_t md5_iv[4] = { 0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u };

static inline uint32_t rol32(uint32_t x, unsigned n)
{
    return (x << n) | (x >> (32 - n));
}

static inline uint32_t load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

#define MD5_F(b, c, d)                   ((d) ^ ((b) & ((c) ^ (d))))
#define MD5_G(b, c, d)                   ((c) ^ ((d) & ((b) ^ (c))))
#define MD5_H(b, c, d)                   ((b) ^ (c) ^ (d))
#define MD5_I(b, c, d)                   ((c) ^ ((b) | ~(d)))
#define MD5_STEP(f, a, b, c, d, m, k, s) (a) = (b) + rol32((a) + f((b), (c), (d)) + (m) + (k), (s))

void merkle__md5_compress(uint32_t state[4], const uint8_t *p, size_t nblocks)
{
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    for (; nblocks; nblocks--, p += 64) {
        uint32_t m[16];
        for (int i = 0; i < 16; i++) m[i] = load_le32(p + 4 * i);
        uint32_t a0 = a, b0 = b, c0 = c, d0 = d;
        MD5_STEP(MD5_F, a, b, c, d, m[0], 0xd76aa478u, 7);
        MD5_STEP(MD5_F, d, a, b, c, m[1], 0xe8c7b756u, 12);
        MD5_STEP(MD5_F, c, d, a, b, m[2], 0x242070dbu, 17);
        MD5_STEP(MD5_F, b, c, d, a, m[3], 0xc1bdceeeu, 22);
        MD5_STEP(MD5_F, a, b, c, d, m[4], 0xf57c0fafu, 7);
        MD5_STEP(MD5_F, d, a, b, c, m[5], 0x4787c62au, 12);
        MD5_STEP(MD5_F, c, d, a, b, m[6], 0xa8304613u, 17);
        MD5_STEP(MD5_F, b, c, d, a, m[7], 0xfd469501u, 22);
        MD5_STEP(MD5_F, a, b, c, d, m[8], 0x698098d8u, 7);
        MD5_STEP(MD5_F, d, a, b, c, m[9], 0x8b44f7afu, 12);
        MD5_STEP(MD5_F, c, d, a, b, m[10], 0xffff5bb1u, 17);
        MD5_STEP(MD5_F, b, c, d, a, m[11], 0x895cd7beu, 22);
        MD5_STEP(MD5_F, a, b, c, d, m[12], 0x6b901122u, 7);
        MD5_STEP(MD5_F, d, a, b, c, m[13], 0xfd987193u, 12);
        MD5_STEP(MD5_F, c, d, a, b, m[14], 0xa679438eu, 17);
        MD5_STEP(MD5_F, b, c, d, a, m[15], 0x49b40821u, 22);

        MD5_STEP(MD5_G, a, b, c, d, m[1], 0xf61e2562u, 5);
        MD5_STEP(MD5_G, d, a, b, c, m[6], 0xc040b340u, 9);
        MD5_STEP(MD5_G, c, d, a, b, m[11], 0x265e5a51u, 14);
        MD5_STEP(MD5_G, b, c, d, a, m[0], 0xe9b6c7aau, 20);
        MD5_STEP(MD5_G, a, b, c, d, m[5], 0xd62f105du, 5);
        MD5_STEP(MD5_G, d, a, b, c, m[10], 0x02441453u, 9);
        MD5_STEP(MD5_G, c, d, a, b, m[15], 0xd8a1e681u, 14);
        MD5_STEP(MD5_G, b, c, d, a, m[4], 0xe7d3fbc8u, 20);
        MD5_STEP(MD5_G, a, b, c, d, m[9], 0x21e1cde6u, 5);
        MD5_STEP(MD5_G, d, a, b, c, m[14], 0xc33707d6u, 9);
        MD5_STEP(MD5_G, c, d, a, b, m[3], 0xf4d50d87u, 14);
        MD5_STEP(MD5_G, b, c, d, a, m[8], 0x455a14edu, 20);
        MD5_STEP(MD5_G, a, b, c, d, m[13], 0xa9e3e905u, 5);
        MD5_STEP(MD5_G, d, a, b, c, m[2], 0xfcefa3f8u, 9);
        MD5_STEP(MD5_G, c, d, a, b, m[7], 0x676f02d9u, 14);
        MD5_STEP(MD5_G, b, c, d, a, m[12], 0x8d2a4c8au, 20);

        MD5_STEP(MD5_H, a, b, c, d, m[5], 0xfffa3942u, 4);
        MD5_STEP(MD5_H, d, a, b, c, m[8], 0x8771f681u, 11);
        MD5_STEP(MD5_H, c, d, a, b, m[11], 0x6d9d6122u, 16);
        MD5_STEP(MD5_H, b, c, d, a, m[14], 0xfde5380cu, 23);
        MD5_STEP(MD5_H, a, b, c, d, m[1], 0xa4beea44u, 4);
        MD5_STEP(MD5_H, d, a, b, c, m[4], 0x4bdecfa9u, 11);
        MD5_STEP(MD5_H, c, d, a, b, m[7], 0xf6bb4b60u, 16);
        MD5_STEP(MD5_H, b, c, d, a, m[10], 0xbebfbc70u, 23);
        MD5_STEP(MD5_H, a, b, c, d, m[13], 0x289b7ec6u, 4);
        MD5_STEP(MD5_H, d, a, b, c, m[0], 0xeaa127fau, 11);
        MD5_STEP(MD5_H, c, d, a, b, m[3], 0xd4ef3085u, 16);
        MD5_STEP(MD5_H, b, c, d, a, m[6], 0x04881d05u, 23);
        MD5_STEP(MD5_H, a, b, c, d, m[9], 0xd9d4d039u, 4);
        MD5_STEP(MD5_H, d, a, b, c, m[12], 0xe6db99e5u, 11);
        MD5_STEP(MD5_H, c, d, a, b, m[15], 0x1fa27cf8u, 16);
        MD5_STEP(MD5_H, b, c, d, a, m[2], 0xc4ac5665u, 23);

        MD5_STEP(MD5_I, a, b, c, d, m[0], 0xf4292244u, 6);
        MD5_STEP(MD5_I, d, a, b, c, m[7], 0x432aff97u, 10);
        MD5_STEP(MD5_I, c, d, a, b, m[14], 0xab9423a7u, 15);
        MD5_STEP(MD5_I, b, c, d, a, m[5], 0xfc93a039u, 21);
        MD5_STEP(MD5_I, a, b, c, d, m[12], 0x655b59c3u, 6);
        MD5_STEP(MD5_I, d, a, b, c, m[3], 0x8f0ccc92u, 10);
        MD5_STEP(MD5_I, c, d, a, b, m[10], 0xffeff47du, 15);
        MD5_STEP(MD5_I, b, c, d, a, m[1], 0x85845dd1u, 21);
        MD5_STEP(MD5_I, a, b, c, d, m[8], 0x6fa87e4fu, 6);
        MD5_STEP(MD5_I, d, a, b, c, m[15], 0xfe2ce6e0u, 10);
        MD5_STEP(MD5_I, c, d, a, b, m[6], 0xa3014314u, 15);
        MD5_STEP(MD5_I, b, c, d, a, m[13], 0x4e0811a1u, 21);
        MD5_STEP(MD5_I, a, b, c, d, m[4], 0xf7537e82u, 6);
        MD5_STEP(MD5_I, d, a, b, c, m[11], 0xbd3af235u, 10);
        MD5_STEP(MD5_I, c, d, a, b, m[2], 0x2ad7d2bbu, 15);
        MD5_STEP(MD5_I, b, c, d, a, m[9], 0xeb86d391u, 21);

        a += a0;
        b += b0;
        c += c0;
        d += d0;
    }
    state[0] = a;
    state[1] = b;
    state[2] = c;
    state[3] = d;
}

#define MD5_K_ENTRY(f, a, b, c, d, g, k, s, i) k,
const uint32_t merkle__md5_K[64] = { MERKLE__MD5_STEPS(MD5_K_ENTRY) };

/* Write the MD5 padding for a message of total_len bytes whose last tail_len = total_len % 64
** bytes are already at p[0..tail_len); returns the number of bytes written after them
** (so that tail_len + result is 64 or 128). p must have room for 128 bytes. */
size_t merkle__md5_pad(uint8_t *p, size_t tail_len, uint64_t total_len)
{
    return merkle__md_pad(p, tail_len, 64, 8, total_len, 1) - tail_len;
}

void merkle__md5_store_digest(uint8_t out[16], const uint32_t v[4])
{
    for (int w = 0; w < 4; w++) {
        out[4 * w] = (uint8_t)v[w];
        out[4 * w + 1] = (uint8_t)(v[w] >> 8);
        out[4 * w + 2] = (uint8_t)(v[w] >> 16);
        out[4 * w + 3] = (uint8_t)(v[w] >> 24);
    }
}

void merkle__md5(uint8_t out[16], const void *data, size_t len)
{
    uint32_t v[4] = { md5_iv[0], md5_iv[1], md5_iv[2], md5_iv[3] };
    const uint8_t *p = data;
    size_t full = len / 64;
    if (full) merkle__md5_compress(v, p, full);
    uint8_t last[128];
    size_t tail = len % 64;
    if (tail) memcpy(last, p + 64 * full, tail);
    size_t padlen = merkle__md5_pad(last, tail, (uint64_t)len);
    merkle__md5_compress(v, last, (tail + padlen) / 64);
    merkle__md5_store_digest(out, v);
}

void merkle__md5_mb_lane_init(merkle__md5_mb *st, unsigned lane)
{
    for (int w = 0; w < 4; w++) st->s[w][lane] = md5_iv[w];
}

void merkle__md5_mb_lane_final(merkle__md5_mb *st, unsigned lane, const uint8_t *tail,
                               size_t tail_len, uint64_t total_len, uint8_t out[16])
{
    uint32_t v[4];
    for (int w = 0; w < 4; w++) v[w] = st->s[w][lane];
    size_t full = tail_len / 64;
    if (full) merkle__md5_compress(v, tail, full);
    uint8_t last[128] = { 0 };
    size_t rest = tail_len % 64;
    if (rest) memcpy(last, tail + 64 * full, rest);
    /* rest == total_len % 64 when the caller keeps the contract (whole blocks before the
    ** tail); padding at total_len % 64 keeps the write bounded even when it does not. */
    size_t at = (size_t)(total_len % 64);
    size_t padlen = merkle__md5_pad(last, at, total_len);
    merkle__md5_compress(v, last, (at + padlen) / 64);
    merkle__md5_store_digest(out, v);
    for (int w = 0; w < 4; w++) st->s[w][lane] = v[w];
}

/* ------------------------------------------------------------------ portable kernel */

static void portable_blocks(merkle__md5_mb *st, const uint8_t *const data[MERKLE_MD5_MB_MAX_LANES],
                            size_t nblocks)
{
    for (unsigned l = 0; l < MERKLE_MD5_MB_MAX_LANES; l++) {
        if (!data[l]) continue;
        uint32_t v[4] = { st->s[0][l], st->s[1][l], st->s[2][l], st->s[3][l] };
        merkle__md5_compress(v, data[l], nblocks);
        for (int w = 0; w < 4; w++) st->s[w][l] = v[w];
    }
}

static int portable_available(void)
{
    return 1;
}

const merkle__md5_mb_impl merkle__md5_mb_portable = { "portable", 1, portable_available,
                                                      portable_blocks };

/* ------------------------------------------------------------------ dispatch */

/* Preference order: widest first. */
static const merkle__md5_mb_impl *const g_all[] = {
#ifdef MERKLE_HAVE_X86
    &merkle__md5_mb_avx512,
    &merkle__md5_mb_avx2,
#endif
    &merkle__md5_mb_portable,
};
#define N_IMPLS (sizeof g_all / sizeof g_all[0])

static _Atomic(const merkle__md5_mb_impl *) g_impl;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* Every lane of the kernel hashes its own 2-block message (lane-dependent bytes), one lane is
** left NULL; the results must equal the scalar compression. */
static int self_test(const merkle__md5_mb_impl *impl)
{
    uint8_t msg[MERKLE_MD5_MB_MAX_LANES][128];
    const uint8_t *ptr[MERKLE_MD5_MB_MAX_LANES] = { 0 };
    merkle__md5_mb st;
    for (unsigned l = 0; l < MERKLE_MD5_MB_MAX_LANES; l++) {
        for (unsigned i = 0; i < 128; i++) msg[l][i] = (uint8_t)(i * 13u + l * 71u + 1u);
        merkle__md5_mb_lane_init(&st, l);
        if (l < impl->lanes && l != 3) ptr[l] = msg[l];
    }
    impl->blocks(&st, ptr, 2);
    for (unsigned l = 0; l < impl->lanes; l++) {
        uint32_t v[4] = { md5_iv[0], md5_iv[1], md5_iv[2], md5_iv[3] };
        if (l != 3) merkle__md5_compress(v, msg[l], 2);
        for (int w = 0; w < 4; w++)
            if (st.s[w][l] != v[w]) return 0;
    }
    return 1;
}

const merkle__md5_mb_impl *merkle__md5_mb_find(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; i < N_IMPLS; i++)
        if (strcmp(g_all[i]->name, name) == 0) return g_all[i];
    return NULL;
}

static const char *fam_name(size_t i)
{
    return g_all[i]->name;
}
static int fam_available(size_t i)
{
    return g_all[i]->available();
}
static int fam_self_test(size_t i)
{
    return self_test(g_all[i]);
}
static const merkle__kernel_family g_family = { N_IMPLS, fam_name, fam_available, fam_self_test };

/* Automatic choice: the widest kernel that runs here and passes its self-test. */
static const merkle__md5_mb_impl *automatic(void)
{
    for (size_t i = 0; i < N_IMPLS; i++)
        if (g_all[i]->available() && self_test(g_all[i])) return g_all[i];
    return &merkle__md5_mb_portable;
}

static void choose(void)
{
    long forced = merkle__dispatch_env(&g_family, "MERKLE_MD5_BACKEND");
    atomic_store_explicit(&g_impl, forced >= 0 ? g_all[forced] : automatic(), memory_order_release);
}

const merkle__md5_mb_impl *merkle__md5_mb_get(void)
{
    const merkle__md5_mb_impl *impl = atomic_load_explicit(&g_impl, memory_order_acquire);
    if (MERKLE_LIKELY(impl != NULL)) return impl;
    pthread_once(&g_once, choose);
    return atomic_load_explicit(&g_impl, memory_order_acquire);
}

merkle_status merkle__md5_mb_set(const char *name)
{
    (void)merkle__md5_mb_get();
    size_t i = 0;
    int autom;
    merkle_status s = merkle__dispatch_resolve(&g_family, name, &i, &autom);
    if (s != MERKLE_OK) return s;
    atomic_store_explicit(&g_impl, autom ? automatic() : g_all[i], memory_order_release);
    return MERKLE_OK;
}
