/*
** BLAKE2b (any digest length 1..64; BLAKE2b-256 for trees) on libsodium's generichash,
** whose state is plain data: it lives by value inside merkle_blake2b.
*/
#include <pthread.h>
#include <sodium.h>
#include <string.h>

#include "hash/impl.h"

_Static_assert(sizeof(crypto_generichash_state) <= sizeof(((merkle_blake2b *)0)->opaque),
               "merkle_blake2b too small for libsodium's state");
_Static_assert(_Alignof(crypto_generichash_state) <= 64, "libsodium state alignment");

static pthread_once_t g_sodium_once = PTHREAD_ONCE_INIT;
static void sodium_setup(void)
{
    /* Picks libsodium's fastest BLAKE2b compression for this CPU; -1 only if /dev/urandom is
    ** missing, which does not affect hashing. */
    if (sodium_init() < 0) return;
}

merkle_status merkle_blake2b_init(merkle_blake2b *ctx, size_t out_len)
{
    if (!ctx || out_len < 1 || out_len > 64) return MERKLE_ERR_ARG;
    pthread_once(&g_sodium_once, sodium_setup);
    memset(ctx, 0, sizeof *ctx);
    ctx->out_len = (uint32_t)out_len;
    if (crypto_generichash_init((crypto_generichash_state *)(void *)ctx->opaque, NULL, 0, out_len) != 0)
        return MERKLE_ERR_ARG;
    return MERKLE_OK;
}

void merkle_blake2b_update(merkle_blake2b *ctx, const void *data, size_t len)
{
    if (len == 0) return;
    crypto_generichash_update((crypto_generichash_state *)(void *)ctx->opaque,
                              (const unsigned char *)data, len);
}

void merkle_blake2b_final(merkle_blake2b *ctx, uint8_t *out)
{
    crypto_generichash_final((crypto_generichash_state *)(void *)ctx->opaque, out, ctx->out_len);
}

void merkle_blake2b_256(uint8_t out[MERKLE_BLAKE2B_256_LEN], const void *data, size_t len)
{
    pthread_once(&g_sodium_once, sodium_setup);
    crypto_generichash(out, 32, (const unsigned char *)data, len, NULL, 0);
}
