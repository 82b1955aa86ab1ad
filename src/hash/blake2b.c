/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** BLAKE2b (any digest length 1..64; BLAKE2b-256 for trees) on the in-tree portable code
** (blake2b_portable.c; its state lives by value inside merkle_blake2b): 1.13-1.20x the
** throughput of Debian's libsodium 1.0.18, which it replaced in 1.0. Also the dispatch of the
** BLAKE2b-256 batch kernels (per message, or 4/8 lanes in blake2b_<isa>.c).
*/
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hash/blake2b_impl.h"
#include "hash/dispatch.h"

_Static_assert(sizeof(merkle__b2p) <= sizeof(((merkle_blake2b *)0)->opaque),
               "merkle_blake2b too small for the portable state");
#define PORTABLE_STATE(ctx) ((merkle__b2p *)(void *)(ctx)->opaque)

merkle_status merkle_blake2b_init(merkle_blake2b *ctx, size_t out_len)
{
    if (!ctx || out_len < 1 || out_len > 64) return MERKLE_ERR_ARG;
    memset(ctx, 0, sizeof *ctx);
    ctx->out_len = (uint32_t)out_len;
    merkle__b2p_init(PORTABLE_STATE(ctx), out_len);
    return MERKLE_OK;
}

void merkle_blake2b_update(merkle_blake2b *ctx, const void *data, size_t len)
{
    if (len == 0) return;
    merkle__b2p_update(PORTABLE_STATE(ctx), data, len);
}

void merkle_blake2b_final(merkle_blake2b *ctx, uint8_t *out)
{
    merkle__b2p_final(PORTABLE_STATE(ctx), out);
}

void merkle_blake2b_256(uint8_t out[MERKLE_BLAKE2B_256_LEN], const void *data, size_t len)
{
    merkle__b2p st;
    merkle__b2p_init(&st, 32);
    merkle__b2p_update(&st, data, len);
    merkle__b2p_final(&st, out);
}

/* ------------------------------------------------------------------ batch */

const uint64_t merkle__blake2b_IV[8] = { 0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL,
                                         0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
                                         0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
                                         0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL };

/* The per-message kernel: the reference of the self-tests and the home of ragged remainders. */
#define B2_SINGLE (&merkle__blake2b_portable)

const merkle__blake2b_impl *merkle__blake2b_single(void)
{
    return B2_SINGLE;
}

static const merkle__blake2b_impl *const g_b2_all[] = {
#ifdef MERKLE_HAVE_X86
    &merkle__blake2b_avx512,
    &merkle__blake2b_avx2,
#endif
    &merkle__blake2b_portable,
};
#define N_B2 (sizeof g_b2_all / sizeof g_b2_all[0])

static _Atomic(const merkle__blake2b_impl *) g_b2;
static pthread_once_t g_b2_once = PTHREAD_ONCE_INIT;
static const merkle__blake2b_impl *g_b2_auto;

/* A kernel is used only if it agrees with the per-message kernel on ragged batches of one- and
** multi-block messages (17 lanes: full groups and a remainder for 4 and 8 lanes). */
static int b2_self_test(const merkle__blake2b_impl *impl)
{
    uint8_t msg[17 * 300], got[17 * 32], want[17 * 32];
    const uint8_t *ptrs[17];
    static const size_t lens[] = { 0, 64, 127, 300 };
    for (size_t i = 0; i < sizeof msg; i++) msg[i] = (uint8_t)(i * 7 + 3);
    for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
        for (size_t i = 0; i < 17; i++) ptrs[i] = msg + i * lens[l];
        impl->batch(got, ptrs, 17, (const uint8_t *)"\x01", 1, lens[l]);
        B2_SINGLE->batch(want, ptrs, 17, (const uint8_t *)"\x01", 1, lens[l]);
        if (memcmp(got, want, sizeof got) != 0) return 0;
    }
    return 1;
}

int merkle__blake2b_self_test(const merkle__blake2b_impl *impl)
{
    return b2_self_test(impl);
}

size_t merkle__blake2b_all(const merkle__blake2b_impl *const **list)
{
    *list = g_b2_all;
    return N_B2;
}

static double b2_time(const merkle__blake2b_impl *impl)
{
    static const uint8_t zeros[64];
    const uint8_t *ptrs[32];
    uint8_t out[32 * 32];
    for (int i = 0; i < 32; i++) ptrs[i] = zeros;
    double best = 0;
    for (int r = 0; r < 3; r++) {
        struct timespec a, b;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
        impl->batch(out, ptrs, 32, zeros, 1, 64);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
        double t = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
        if (r == 0 || t < best) best = t;
    }
    return best;
}

static const char *fam_name(size_t i)
{
    return g_b2_all[i]->name;
}
static int fam_available(size_t i)
{
    return g_b2_all[i]->available();
}
static int fam_self_test(size_t i)
{
    return b2_self_test(g_b2_all[i]);
}
static const merkle__kernel_family g_family = { N_B2, fam_name, fam_available, fam_self_test };

/* Per-message costs measured at the choice: a ragged remainder of a wide kernel goes to the
** per-message kernel when rem * its cost < one padded group of the wide kernel. */
static double g_b2_ns_single, g_b2_ns_auto;

static void b2_choose(void)
{
    const merkle__blake2b_impl *best = B2_SINGLE;
    double best_t = b2_time(best);
    g_b2_ns_single = best_t;
    for (size_t i = 0; i < N_B2; i++) {
        const merkle__blake2b_impl *c = g_b2_all[i];
        if (c == B2_SINGLE || !c->available() || !b2_self_test(c)) continue;
        double t = b2_time(c);
        if (t < best_t) {
            best = c;
            best_t = t;
        }
    }
    g_b2_auto = best;
    g_b2_ns_auto = best_t;
    const merkle__blake2b_impl *pick = best;
    long forced = merkle__dispatch_env(&g_family, "MERKLE_BLAKE2B_BACKEND");
    if (forced >= 0) pick = g_b2_all[forced];
    atomic_store_explicit(&g_b2, pick, memory_order_release);
}

/* The automatic kernel's batch with the remainder rule; a forced kernel runs alone. */
static void b2_run(const merkle__blake2b_impl *impl, uint8_t *out, const uint8_t *const *msgs,
                   size_t n, const uint8_t *prefix, size_t prefix_len, size_t len)
{
    size_t rem = impl->lanes > 1 ? n % impl->lanes : 0;
    if (impl == g_b2_auto && rem &&
        (double)rem * g_b2_ns_single < (double)impl->lanes * g_b2_ns_auto) {
        size_t full = n - rem;
        if (full) impl->batch(out, msgs, full, prefix, prefix_len, len);
        B2_SINGLE->batch(out + 32 * full, msgs + full, rem, prefix, prefix_len, len);
        return;
    }
    impl->batch(out, msgs, n, prefix, prefix_len, len);
}

static const merkle__blake2b_impl *b2_get(void)
{
    const merkle__blake2b_impl *impl = atomic_load_explicit(&g_b2, memory_order_acquire);
    if (MERKLE_LIKELY(impl != NULL)) return impl;
    pthread_once(&g_b2_once, b2_choose);
    return atomic_load_explicit(&g_b2, memory_order_acquire);
}

const char *merkle__blake2b_backend(void)
{
    return b2_get()->name;
}

merkle_status merkle__blake2b_set_backend(const char *name)
{
    (void)b2_get();
    size_t i = 0;
    int automatic;
    merkle_status s = merkle__dispatch_resolve(&g_family, name, &i, &automatic);
    if (s != MERKLE_OK) return s;
    atomic_store_explicit(&g_b2, automatic ? g_b2_auto : g_b2_all[i], memory_order_release);
    return MERKLE_OK;
}

size_t merkle__blake2b_backends(const char **names, size_t cap)
{
    return merkle__dispatch_list(&g_family, names, cap);
}

void merkle__blake2b256_batch_strided(uint8_t *out, const uint8_t *prefix, size_t prefix_len,
                                      const uint8_t *base, size_t stride, size_t len, size_t n)
{
    const merkle__blake2b_impl *impl = b2_get();
    const uint8_t *ptrs[128];
    while (n) {
        size_t k = n < 128 ? n : 128;
        for (size_t i = 0; i < k; i++) ptrs[i] = base ? base + i * stride : NULL;
        b2_run(impl, out, ptrs, k, prefix, prefix_len, len);
        out += 32 * k;
        if (base) base += k * stride;
        n -= k;
    }
}
