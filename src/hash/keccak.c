/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Keccak-256 as Ethereum uses it: Keccak[c = 512] (rate 136 bytes) with the original
** multi-rate padding 0x01 .. 0x80 -- not FIPS 202 SHA3-256, whose domain byte is 0x06.
** Portable keccak-f[1600] on 25 64-bit lanes (FIPS 202 section 3.2: theta, rho, pi, chi,
** iota; the unrolled round is hash/keccak_round.h), and the 64-byte message shape of tree
** nodes on 4 (AVX2) or 8 (AVX-512) states at once (keccak_avx2.c, keccak_avx512.c), chosen
** once by the rules of hash/dispatch.h (self-tested, then timed; MERKLE_KECCAK_BACKEND
** forces one). tests/hash/test_hash.c checks every kernel against
** known answers from @noble/hashes and the keccak npm package.
*/
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hash/dispatch.h"
#include "hash/impl.h"

#define RATE 136

const uint64_t merkle__keccak_rc[24] = {
    0x0000000000000001ull, 0x0000000000008082ull, 0x800000000000808aull, 0x8000000080008000ull,
    0x000000000000808bull, 0x0000000080000001ull, 0x8000000080008081ull, 0x8000000000008009ull,
    0x000000000000008aull, 0x0000000000000088ull, 0x0000000080008009ull, 0x000000008000000aull,
    0x000000008000808bull, 0x800000000000008bull, 0x8000000000008089ull, 0x8000000000008003ull,
    0x8000000000008002ull, 0x8000000000000080ull, 0x000000000000800aull, 0x800000008000000aull,
    0x8000000080008081ull, 0x8000000000008080ull, 0x0000000080000001ull, 0x8000000080008008ull
};

#define K_T                   uint64_t
#define K_XOR(a, b)           ((a) ^ (b))
#define K_XOR5(a, b, c, d, e) ((a) ^ (b) ^ (c) ^ (d) ^ (e))
#define K_ROL(x, n)           (((x) << (n)) | ((x) >> (64 - (n))))
#define K_CHI(a, b, c)        ((a) ^ (~(b) & (c)))
#include "hash/keccak_round.h"

void merkle__keccak_f1600(uint64_t s[25])
{
    uint64_t a0 = s[0], a1 = s[1], a2 = s[2], a3 = s[3], a4 = s[4];
    uint64_t a5 = s[5], a6 = s[6], a7 = s[7], a8 = s[8], a9 = s[9];
    uint64_t a10 = s[10], a11 = s[11], a12 = s[12], a13 = s[13], a14 = s[14];
    uint64_t a15 = s[15], a16 = s[16], a17 = s[17], a18 = s[18], a19 = s[19];
    uint64_t a20 = s[20], a21 = s[21], a22 = s[22], a23 = s[23], a24 = s[24];
    for (int r = 0; r < 24; r++) KECCAK_ROUND(merkle__keccak_rc[r]);
    s[0] = a0;
    s[1] = a1;
    s[2] = a2;
    s[3] = a3;
    s[4] = a4;
    s[5] = a5;
    s[6] = a6;
    s[7] = a7;
    s[8] = a8;
    s[9] = a9;
    s[10] = a10;
    s[11] = a11;
    s[12] = a12;
    s[13] = a13;
    s[14] = a14;
    s[15] = a15;
    s[16] = a16;
    s[17] = a17;
    s[18] = a18;
    s[19] = a19;
    s[20] = a20;
    s[21] = a21;
    s[22] = a22;
    s[23] = a23;
    s[24] = a24;
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
    uint64_t s[25] = { 0 };
    for (int i = 0; i < 8; i++) s[i] = merkle__load_le64(m + 8 * i);
    s[8] = 0x01;
    s[RATE / 8 - 1] = 0x8000000000000000ull;
    merkle__keccak_f1600(s);
    for (int i = 0; i < 4; i++) merkle__store_le64(out + 8 * i, s[i]);
}

/* ------------------------------------------------------------------ kernels */

static void msg64_portable(uint8_t *out, const uint8_t *base, size_t stride, size_t n)
{
    for (size_t i = 0; i < n; i++) keccak_msg64(out + 32 * i, base + i * stride);
}

/* The 32-byte shape (a hash of a hash) in one permutation: 4 words, 0x01, the 0x80. */
static void msg32_portable(uint8_t *out, const uint8_t *base, size_t stride, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t st[25] = { 0 };
        for (int j = 0; j < 4; j++) st[j] = merkle__load_le64(base + i * stride + 8 * j);
        st[4] = 0x01;
        st[RATE / 8 - 1] = 0x8000000000000000ull;
        merkle__keccak_f1600(st);
        for (int j = 0; j < 4; j++) merkle__store_le64(out + 32 * i + 8 * j, st[j]);
    }
}

/* The family, in preference order (dispatch.h): name, kernel, CPU feature it needs. */
typedef struct kimpl {
    const char *name;
    merkle__keccak256_msg64_fn fn;   /* 64-byte messages */
    merkle__keccak256_msg64_fn fn32; /* 32-byte messages */
    unsigned need;
} kimpl;

static const kimpl g_impls[] = {
#ifdef MERKLE_HAVE_X86
    { "avx512", merkle__keccak256_msg64_avx512, merkle__keccak256_msg32_avx512, MERKLE_CPU_AVX512 },
    { "avx2", merkle__keccak256_msg64_avx2, merkle__keccak256_msg32_avx2, MERKLE_CPU_AVX2 },
#endif
    { "portable", msg64_portable, msg32_portable, 0 },
};
#define N_IMPLS (sizeof g_impls / sizeof g_impls[0])

/* A kernel agrees with the streaming code on 19 messages (two groups and a ragged one) of
** len bytes. */
static int kernel_self_test_len(merkle__keccak256_msg64_fn fn, size_t len)
{
    uint8_t msgs[19 * 64], got[19 * 32], want[32];
    for (size_t i = 0; i < sizeof msgs; i++) msgs[i] = (uint8_t)(i * 37 + 11);
    fn(got, msgs, 64, 19);
    for (size_t i = 0; i < 19; i++) {
        merkle_keccak256 c;
        merkle_keccak256_init(&c);
        merkle_keccak256_update(&c, msgs + 64 * i, len);
        merkle_keccak256_final(&c, want);
        if (memcmp(got + 32 * i, want, 32) != 0) return 0;
    }
    return 1;
}

static const char *fam_name(size_t i)
{
    return g_impls[i].name;
}
static int fam_available(size_t i)
{
    return (merkle__cpu_features() & g_impls[i].need) == g_impls[i].need;
}
static int fam_self_test(size_t i)
{
    return kernel_self_test_len(g_impls[i].fn, 64) && kernel_self_test_len(g_impls[i].fn32, 32);
}
static const merkle__kernel_family g_family = { N_IMPLS, fam_name, fam_available, fam_self_test };

merkle__keccak256_msg64_fn merkle__keccak256_kernel(const char *name)
{
    for (size_t i = 0; i < N_IMPLS; i++)
        if (!strcmp(name, g_impls[i].name)) return fam_available(i) ? g_impls[i].fn : NULL;
    return NULL;
}

merkle__keccak256_msg64_fn merkle__keccak256_kernel32(const char *name)
{
    for (size_t i = 0; i < N_IMPLS; i++)
        if (!strcmp(name, g_impls[i].name)) return fam_available(i) ? g_impls[i].fn32 : NULL;
    return NULL;
}

/* Thread CPU time of 64 messages, best of 3 (ns). */
static uint64_t kernel_time(merkle__keccak256_msg64_fn fn)
{
    static _Thread_local uint8_t msgs[64 * 64], out[64 * 32];
    uint64_t best = UINT64_MAX;
    for (int r = 0; r < 3; r++) {
        struct timespec a, b;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
        fn(out, msgs, 64, 64);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
        uint64_t t =
            (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u + (uint64_t)(b.tv_nsec - a.tv_nsec);
        if (t < best) best = t;
    }
    return best;
}

/* The dispatch rules of dispatch.h: MERKLE_KECCAK_BACKEND forces a usable kernel; otherwise
** every kernel that runs here and passes its self-test is timed and the fastest is used. */
static _Atomic(size_t) g_choice = SIZE_MAX;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void choose(void)
{
    long forced = merkle__dispatch_env(&g_family, "MERKLE_KECCAK_BACKEND");
    size_t pick = N_IMPLS - 1; /* portable */
    if (forced >= 0) {
        pick = (size_t)forced;
    } else {
        uint64_t best = UINT64_MAX;
        for (size_t i = 0; i < N_IMPLS; i++) {
            if (!fam_available(i) || !fam_self_test(i)) continue;
            uint64_t t = kernel_time(g_impls[i].fn);
            if (t < best) {
                best = t;
                pick = i;
            }
        }
    }
    atomic_store_explicit(&g_choice, pick, memory_order_release);
}

static const kimpl *chosen(void)
{
    size_t i = atomic_load_explicit(&g_choice, memory_order_acquire);
    if (MERKLE_UNLIKELY(i == SIZE_MAX)) {
        pthread_once(&g_once, choose);
        i = atomic_load_explicit(&g_choice, memory_order_acquire);
    }
    return &g_impls[i];
}

const char *merkle__keccak256_backend(void)
{
    return chosen()->name;
}

merkle_status merkle_keccak256_batch_strided(uint8_t *out, const uint8_t *prefix, size_t prefix_len,
                                             const uint8_t *base, size_t stride, size_t len,
                                             size_t n)
{
    if (n == 0) return MERKLE_OK;
    if (!out || prefix_len > 64 || (prefix_len && !prefix) || (!base && (len || stride)))
        return MERKLE_ERR_ARG;
    if (prefix_len == 0 && len == 64) {
        chosen()->fn(out, base, stride, n);
        return MERKLE_OK;
    }
    if (prefix_len == 0 && len == 32) {
        chosen()->fn32(out, base, stride, n);
        return MERKLE_OK;
    }
    for (size_t i = 0; i < n; i++) {
        const uint8_t *m = base ? base + i * stride : NULL;
        merkle_keccak256 ctx;
        merkle_keccak256_init(&ctx);
        merkle_keccak256_update(&ctx, prefix, prefix_len);
        merkle_keccak256_update(&ctx, m, len);
        merkle_keccak256_final(&ctx, out + 32 * i);
    }
    return MERKLE_OK;
}
