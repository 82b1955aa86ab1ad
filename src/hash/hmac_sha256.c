/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** HMAC-SHA-256 with precomputed pads (src/hash/hmac_sha256.h).
*/
#include "hash/hmac_sha256.h"

#include <string.h>

#include "common/secure.h"

void merkle__hmac_sha256_init(merkle__hmac_sha256 *h, const uint8_t *key, size_t key_len)
{
    uint8_t k[64] = { 0 }, pad[64];
    if (key_len > 64)
        merkle_sha256_hash(k, key, key_len);
    else if (key_len)
        memcpy(k, key, key_len);
    for (int i = 0; i < 64; i++) pad[i] = (uint8_t)(k[i] ^ 0x36);
    merkle_sha256_init(&h->in);
    merkle_sha256_update(&h->in, pad, 64);
    for (int i = 0; i < 64; i++) pad[i] = (uint8_t)(k[i] ^ 0x5c);
    merkle_sha256_init(&h->out);
    merkle_sha256_update(&h->out, pad, 64);
    merkle__memzero(k, sizeof k);
    merkle__memzero(pad, sizeof pad);
}

void merkle__hmac_sha256_mac2(const merkle__hmac_sha256 *h, uint8_t out[32], const void *a,
                              size_t alen, const void *b, size_t blen)
{
    merkle_sha256 st = h->in;
    uint8_t inner[32];
    merkle_sha256_update(&st, a, alen);
    merkle_sha256_update(&st, b, blen);
    merkle_sha256_final(&st, inner);
    st = h->out;
    merkle_sha256_update(&st, inner, 32);
    merkle_sha256_final(&st, out);
}

void merkle__hmac_sha256_wipe(merkle__hmac_sha256 *h)
{
    merkle__memzero(h, sizeof *h);
}
