/*
** SHA-256: streaming and one-shot front ends, batch wrappers, and the run-time choice of
** backend (dispatch). The backend table is the only global mutable state of the library:
** it is set once (pthread_once) from the CPU features and MERKLE_BACKEND, after a
** known-answer self-test of the candidate, and read without locks afterwards.
*/
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "hash/impl.h"

/* Preference order: the first available backend that passes its self-test wins. */
static const merkle__sha256_impl *const g_all[] = {
#ifdef MERKLE_HAVE_X86
    &merkle__sha256_shani,
#endif
    &merkle__sha256_portable,
};
#define N_IMPLS (sizeof g_all / sizeof g_all[0])

static _Atomic(const merkle__sha256_impl *) g_impl;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* Known answers: SHA-256("abc") and SHA-256("") through compress, and a batch whose every
** message is prefix "a" + "bc" (so every lane must give SHA-256("abc")), 19 lanes so that
** 8- and 16-lane kernels run a full group and a ragged tail. */
static int self_test(const merkle__sha256_impl *impl)
{
    static const uint8_t abc[32] = {0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea,
                                    0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
                                    0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c,
                                    0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad};
    static const uint8_t empty[32] = {0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14,
                                      0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
                                      0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c,
                                      0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55};
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
    return 1;
}

static const merkle__sha256_impl *find(const char *name)
{
    for (size_t i = 0; i < N_IMPLS; i++)
        if (strcmp(g_all[i]->name, name) == 0) return g_all[i];
    return NULL;
}

static void choose(void)
{
    const merkle__sha256_impl *pick = NULL;
    const char *env = getenv("MERKLE_BACKEND");
    if (env && *env && strcmp(env, "auto") != 0) {
        const merkle__sha256_impl *want = find(env);
        /* An unusable request falls back to automatic choice: the library never aborts. */
        if (want && want->available() && self_test(want)) pick = want;
    }
    for (size_t i = 0; !pick && i < N_IMPLS; i++)
        if (g_all[i]->available() && self_test(g_all[i])) pick = g_all[i];
    if (!pick) pick = &merkle__sha256_portable;
    atomic_store_explicit(&g_impl, pick, memory_order_release);
}

const merkle__sha256_impl *merkle__sha256_impl_get(void)
{
    const merkle__sha256_impl *impl = atomic_load_explicit(&g_impl, memory_order_acquire);
    if (MERKLE_LIKELY(impl != NULL)) return impl;
    pthread_once(&g_once, choose);
    return atomic_load_explicit(&g_impl, memory_order_acquire);
}

const char *merkle_sha256_backend(void)
{
    return merkle__sha256_impl_get()->name;
}

merkle_status merkle_sha256_set_backend(const char *name)
{
    if (name == NULL) return MERKLE_ERR_ARG;
    (void)merkle__sha256_impl_get(); /* make sure the once-init has run */
    const merkle__sha256_impl *want = find(name);
    if (!want) return MERKLE_ERR_ARG;
    if (!want->available()) return MERKLE_ERR_UNSUPPORTED;
    if (!self_test(want)) return MERKLE_ERR_VERIFY;
    atomic_store_explicit(&g_impl, want, memory_order_release);
    return MERKLE_OK;
}

size_t merkle_sha256_backends(const char **names, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < N_IMPLS; i++) {
        if (!g_all[i]->available()) continue;
        if (names && n < cap) names[n] = g_all[i]->name;
        n++;
    }
    return n;
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
    merkle__sha256_compress_fn compress = merkle__sha256_impl_get()->compress;
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
    merkle__sha256_compress_fn compress = merkle__sha256_impl_get()->compress;
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
    merkle__sha256_prefixed(merkle__sha256_impl_get()->compress, out, NULL, 0,
                            (const uint8_t *)data, len);
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
                                          const uint8_t *base, size_t stride, size_t len,
                                          size_t n)
{
    if (n == 0) return MERKLE_OK;
    if (!out || prefix_len > 64 || (prefix_len && !prefix) || (!base && (len || stride)))
        return MERKLE_ERR_ARG;
    const merkle__sha256_impl *impl = merkle__sha256_impl_get();
    /* Kernels take pointer arrays; build them 64 at a time on the stack. */
    const uint8_t *ptrs[64];
    while (n) {
        size_t k = n < 64 ? n : 64;
        for (size_t i = 0; i < k; i++) ptrs[i] = base ? base + i * stride : NULL;
        impl->batch(out, ptrs, k, prefix, prefix_len, len);
        out += 32 * k;
        if (base) base += k * stride;
        n -= k;
    }
    return MERKLE_OK;
}
