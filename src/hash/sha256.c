/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** SHA-256: streaming and one-shot front ends, batch wrappers, and the run-time choice of
** backend (dispatch). The backend table is the only global mutable state of the library:
** it is set once (pthread_once) from the CPU features and MERKLE_BACKEND, after a
** known-answer self-test of the candidate, and read without locks afterwards.
*/
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hash/dispatch.h"
#include "hash/impl.h"

/* Preference order when calibration cannot decide (and the order of the backend list). */
static const merkle__sha256_impl *const g_all[] = {
#ifdef MERKLE_HAVE_X86
    &merkle__sha256_shani4,   &merkle__sha256_shani2,  &merkle__sha256_avx512,
    &merkle__sha256_shani,    &merkle__sha256_avx2,
#endif
#ifdef MERKLE_HAVE_ARM64
    &merkle__sha256_armv8x4,  &merkle__sha256_armv8x2, &merkle__sha256_armv8,
#endif
    &merkle__sha256_portable,
};
#define N_IMPLS (sizeof g_all / sizeof g_all[0])

size_t merkle__sha256_all(const merkle__sha256_impl *const **list)
{
    *list = g_all;
    return N_IMPLS;
}

static _Atomic(const merkle__sha256_impl *) g_impl;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* Automatic mode: a composite backend filled in once by calibrate(), before g_impl points
** at it (release/acquire publishes the fields). */
static merkle__sha256_calibration g_cal;
static merkle__sha256_impl g_auto;
static char g_auto_name[48];

/* Known answers: SHA-256("abc") and SHA-256("") through compress, and a batch whose every
** message is prefix "a" + "bc" (so every lane must give SHA-256("abc")), 19 lanes so that
** 8- and 16-lane kernels run a full group and a ragged tail; then a two-block batch
** (prefix + 447 bits: the 896-bit FIPS message cut after its first byte) of 17 lanes. */
static int self_test(const merkle__sha256_impl *impl)
{
    static const uint8_t abc[32] = { 0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea,
                                     0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
                                     0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c,
                                     0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad };
    static const uint8_t empty[32] = { 0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14,
                                       0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
                                       0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c,
                                       0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55 };
    static const uint8_t m896_hash[32] = { 0xcf, 0x5b, 0x16, 0xa7, 0x78, 0xaf, 0x83, 0x80,
                                           0x03, 0x6c, 0xe5, 0x9e, 0x7b, 0x04, 0x92, 0x37,
                                           0x0b, 0x24, 0x9b, 0x11, 0xe8, 0xf0, 0x7a, 0x51,
                                           0xaf, 0xac, 0x45, 0x03, 0x7a, 0xfe, 0xe9, 0xd1 };
    static const char m896[] = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                               "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    uint8_t out[19 * 32];
    merkle__sha256_prefixed(impl->compress, out, NULL, 0, (const uint8_t *)"abc", 3);
    if (memcmp(out, abc, 32) != 0) return 0;
    merkle__sha256_prefixed(impl->compress, out, NULL, 0, NULL, 0);
    if (memcmp(out, empty, 32) != 0) return 0;
    const uint8_t *msgs[19];
    for (int i = 0; i < 19; i++) msgs[i] = (const uint8_t *)"bc";
    impl->batch(out, msgs, 19, (const uint8_t *)"a", 1, 2);
    for (int i = 0; i < 19; i++)
        if (memcmp(out + 32 * i, abc, 32) != 0) return 0;
    for (int i = 0; i < 17; i++) msgs[i] = (const uint8_t *)m896 + 1;
    impl->batch(out, msgs, 17, (const uint8_t *)m896, 1, sizeof m896 - 2);
    for (int i = 0; i < 17; i++)
        if (memcmp(out + 32 * i, m896_hash, 32) != 0) return 0;
    return 1;
}

int merkle__sha256_self_test(const merkle__sha256_impl *impl)
{
    return self_test(impl);
}

static const char *fam_name(size_t i)
{
    return g_all[i]->name;
}
static int fam_available(size_t i)
{
    return g_all[i]->available();
}
static int fam_self_test(size_t i);
static const merkle__kernel_family g_family = { N_IMPLS, fam_name, fam_available, fam_self_test };

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ns per message of impl on n messages of (1-byte prefix || len bytes), best of reps. */
static double time_batch(const merkle__sha256_impl *impl, size_t n, size_t len, int reps)
{
    static const uint8_t zeros[1024];
    const uint8_t *msgs[32];
    uint8_t out[32 * 32];
    for (size_t i = 0; i < n; i++) msgs[i] = zeros;
    double best = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = now_ns();
        impl->batch(out, msgs, n, zeros, 1, len);
        double t = now_ns() - t0;
        if (r == 0 || t < best) best = t;
    }
    return best / (double)n;
}

/*
** Composite batch of automatic mode. Messages of at most two blocks (tree nodes, small
** leaves) go to the kernel measured fastest on 65-byte messages, longer ones to the one
** measured fastest on 1025-byte messages. A ragged remainder of a wide kernel goes to the
** narrow kernel when rem * narrow < one padded wide group, by the same measurements.
*/
static void auto_batch(uint8_t *out, const uint8_t *const *msgs, size_t n, const uint8_t *prefix,
                       size_t prefix_len, size_t len)
{
    int is_short = prefix_len + len + 9 <= 128;
    const merkle__sha256_impl *k = is_short ? g_cal.shorts : g_cal.longs;
    size_t lanes = k->lanes;
    if (lanes > 1 && g_cal.narrow && g_cal.narrow != k) {
        size_t rem = n % lanes;
        if (rem) {
            size_t w = is_short ? g_cal.i_shorts : g_cal.i_longs;
            double wide = is_short ? g_cal.ns_short[w] : g_cal.ns_long[w];
            double nar = is_short ? g_cal.ns_short[g_cal.i_narrow] : g_cal.ns_long[g_cal.i_narrow];
            if ((double)rem * nar < wide * (double)lanes) {
                size_t full = n - rem;
                if (full) k->batch(out, msgs, full, prefix, prefix_len, len);
                g_cal.narrow->batch(out + 32 * full, msgs + full, rem, prefix, prefix_len, len);
                return;
            }
        }
    }
    k->batch(out, msgs, n, prefix, prefix_len, len);
}

static int fam_self_test(size_t i)
{
    return self_test(g_all[i]);
}

/* Measure every usable kernel once (a few tens of microseconds) and fill g_auto. */
static void calibrate(void)
{
    const merkle__sha256_impl *ok[N_IMPLS];
    size_t m = 0;
    for (size_t i = 0; i < N_IMPLS; i++)
        if (g_all[i]->available() && self_test(g_all[i])) ok[m++] = g_all[i];
    /* The portable code is never the fastest when anything else passed: skip timing it. */
    if (m > 1 && ok[m - 1] == &merkle__sha256_portable) m--;
    memset(&g_cal, 0, sizeof g_cal);
    size_t bs = 0, bl = 0, bn = SIZE_MAX;
    for (size_t i = 0; i < m && i < 8; i++) {
        g_cal.impl[i] = ok[i];
        (void)time_batch(ok[i], 16, 64, 1); /* warm up code and data */
        g_cal.ns_short[i] = time_batch(ok[i], 32, 64, 3);
        g_cal.ns_long[i] = time_batch(ok[i], 16, 1024, 2);
        if (g_cal.ns_short[i] < g_cal.ns_short[bs]) bs = i;
        if (g_cal.ns_long[i] < g_cal.ns_long[bl]) bl = i;
        if (ok[i]->lanes <= 4 && (bn == SIZE_MAX || g_cal.ns_short[i] < g_cal.ns_short[bn])) bn = i;
        g_cal.count = i + 1;
    }
    g_cal.shorts = ok[bs];
    g_cal.longs = ok[bl];
    g_cal.narrow = bn == SIZE_MAX ? NULL : ok[bn];
    g_cal.i_shorts = bs;
    g_cal.i_longs = bl;
    g_cal.i_narrow = bn == SIZE_MAX ? 0 : bn;
    const merkle__sha256_impl *scalar = &merkle__sha256_portable;
    for (size_t i = 0; i < m; i++)
        if (ok[i]->compress != merkle__sha256_compress_portable) scalar = ok[i];
    if (g_cal.shorts == g_cal.longs)
        snprintf(g_auto_name, sizeof g_auto_name, "%s", g_cal.shorts->name);
    else
        snprintf(g_auto_name, sizeof g_auto_name, "%s+%s", g_cal.shorts->name, g_cal.longs->name);
    g_auto.name = g_auto_name;
    g_auto.available = g_all[N_IMPLS - 1]->available;
    g_auto.compress = scalar->compress;
    g_auto.batch = auto_batch;
    g_auto.lanes = g_cal.shorts->lanes;
}

static void choose(void)
{
    const merkle__sha256_impl *pick = NULL;
    long forced = merkle__dispatch_env(&g_family, "MERKLE_BACKEND");
    if (forced >= 0) pick = g_all[forced];
    if (!pick) {
        calibrate();
        pick = &g_auto;
    }
    atomic_store_explicit(&g_impl, pick, memory_order_release);
}

const merkle__sha256_impl *merkle__sha256_impl_get(void)
{
    const merkle__sha256_impl *impl = atomic_load_explicit(&g_impl, memory_order_acquire);
    if (MERKLE_LIKELY(impl != NULL)) return impl;
    pthread_once(&g_once, choose);
    return atomic_load_explicit(&g_impl, memory_order_acquire);
}

/*
** The single-message compress function (streaming and one-shot hashing). Once a backend is
** chosen it is that backend's; before, it is picked from the CPU features and a known-answer
** test alone, without timing the batch kernels, so that a process that only hashes single
** messages (a cache file's checksum, a proof) never pays for calibration. It is the same
** function calibration would pick (the SHA-NI one when any backend has it).
*/
static _Atomic(merkle__sha256_compress_fn) g_scalar;
static pthread_once_t g_scalar_once = PTHREAD_ONCE_INIT;

static void choose_scalar(void)
{
    merkle__sha256_compress_fn f = NULL;
    if (merkle__dispatch_env(&g_family, "MERKLE_BACKEND") >= 0) {
        f = merkle__sha256_impl_get()->compress; /* a forced backend decides everything */
    } else {
        f = merkle__sha256_compress_portable;
        for (size_t i = 0; i < N_IMPLS; i++)
            if (g_all[i]->compress != merkle__sha256_compress_portable && g_all[i]->available() &&
                self_test(g_all[i])) {
                f = g_all[i]->compress;
                break;
            }
    }
    atomic_store_explicit(&g_scalar, f, memory_order_release);
}

static merkle__sha256_compress_fn scalar_compress(void)
{
    const merkle__sha256_impl *impl = atomic_load_explicit(&g_impl, memory_order_acquire);
    if (MERKLE_LIKELY(impl != NULL)) return impl->compress;
    merkle__sha256_compress_fn f = atomic_load_explicit(&g_scalar, memory_order_acquire);
    if (MERKLE_LIKELY(f != NULL)) return f;
    pthread_once(&g_scalar_once, choose_scalar);
    return atomic_load_explicit(&g_scalar, memory_order_acquire);
}

void merkle__sha256_calibration_get(merkle__sha256_calibration *out)
{
    (void)merkle__sha256_impl_get();
    if (g_auto.batch == NULL) calibrate(); /* forced by MERKLE_BACKEND: measure now */
    *out = g_cal;
}

const char *merkle_sha256_backend(void)
{
    return merkle__sha256_impl_get()->name;
}

merkle_status merkle_sha256_set_backend(const char *name)
{
    (void)merkle__sha256_impl_get(); /* make sure the once-init has run */
    size_t i = 0;
    int automatic;
    merkle_status s = merkle__dispatch_resolve(&g_family, name, &i, &automatic);
    if (s != MERKLE_OK) return s;
    if (automatic) {
        if (g_auto.batch == NULL) calibrate();
        atomic_store_explicit(&g_impl, &g_auto, memory_order_release);
        return MERKLE_OK;
    }
    atomic_store_explicit(&g_impl, g_all[i], memory_order_release);
    return MERKLE_OK;
}

size_t merkle_sha256_backends(const char **names, size_t cap)
{
    return merkle__dispatch_list(&g_family, names, cap);
}

/* ------------------------------------------------------------------ streaming */

void merkle_sha256_init(merkle_sha256 *ctx)
{
    memcpy(ctx->state, merkle__sha256_H0, sizeof ctx->state);
    ctx->total = 0;
    ctx->buf_len = 0;
}

void merkle_sha256_update(merkle_sha256 *ctx, const void *data, size_t len)
{
    const uint8_t *p = (const uint8_t *)data;
    if (len == 0) return;
    merkle__sha256_compress_fn compress = scalar_compress();
    ctx->total += len;
    if (ctx->buf_len) {
        size_t take = 64 - ctx->buf_len;
        if (take > len) take = len;
        memcpy(ctx->buf + ctx->buf_len, p, take);
        ctx->buf_len += (uint32_t)take;
        p += take;
        len -= take;
        if (ctx->buf_len < 64) return;
        compress(ctx->state, ctx->buf, 1);
        ctx->buf_len = 0;
    }
    size_t full = len / 64;
    if (full) {
        compress(ctx->state, p, full);
        p += full * 64;
        len -= full * 64;
    }
    if (len) {
        memcpy(ctx->buf, p, len);
        ctx->buf_len = (uint32_t)len;
    }
}

void merkle_sha256_final(merkle_sha256 *ctx, uint8_t out[MERKLE_SHA256_LEN])
{
    merkle__sha256_compress_fn compress = scalar_compress();
    uint8_t block[128];
    size_t used = ctx->buf_len;
    memcpy(block, ctx->buf, used);
    block[used++] = 0x80;
    size_t end = used <= 56 ? 64 : 128;
    memset(block + used, 0, end - 8 - used);
    merkle__store_be64(block + end - 8, ctx->total * 8);
    compress(ctx->state, block, end / 64);
    for (int i = 0; i < 8; i++) merkle__store_be32(out + 4 * i, ctx->state[i]);
    memset(ctx, 0, sizeof *ctx);
}

void merkle_sha256_hash(uint8_t out[MERKLE_SHA256_LEN], const void *data, size_t len)
{
    merkle__sha256_prefixed(scalar_compress(), out, NULL, 0, (const uint8_t *)data, len);
}

/* ------------------------------------------------------------------ batch */

merkle_status merkle_sha256_batch(uint8_t *out, const uint8_t *prefix, size_t prefix_len,
                                  const uint8_t *const *msgs, size_t len, size_t n)
{
    if (n == 0) return MERKLE_OK;
    if (!out || !msgs || prefix_len > 64 || (prefix_len && !prefix)) return MERKLE_ERR_ARG;
    merkle__sha256_impl_get()->batch(out, msgs, n, prefix, prefix_len, len);
    return MERKLE_OK;
}

merkle_status merkle_sha256_batch_strided(uint8_t *out, const uint8_t *prefix, size_t prefix_len,
                                          const uint8_t *base, size_t stride, size_t len, size_t n)
{
    if (n == 0) return MERKLE_OK;
    if (!out || prefix_len > 64 || (prefix_len && !prefix) || (!base && (len || stride)))
        return MERKLE_ERR_ARG;
    const merkle__sha256_impl *impl = merkle__sha256_impl_get();
    /* Kernels take pointer arrays; build them 128 (a tree chunk) at a time on the stack. */
    const uint8_t *ptrs[128];
    while (n) {
        size_t k = n < 128 ? n : 128;
        for (size_t i = 0; i < k; i++) ptrs[i] = base ? base + i * stride : NULL;
        impl->batch(out, ptrs, k, prefix, prefix_len, len);
        out += 32 * k;
        if (base) base += k * stride;
        n -= k;
    }
    return MERKLE_OK;
}
