/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** HMAC-SHA-256 (RFC 2104) with the key's pads precomputed (internal, never installed): init
** runs the key's ipad and opad blocks once and keeps the two SHA-256 states (not the key), so
** that each MAC costs the compressions of its own message and one of the outer hash, with the
** fastest SHA-256 compress of the CPU (the validation cache MACs every entry it loads and
** saves: src/manifest/cache_file.c).
*/
#ifndef MERKLE_HMAC_SHA256_H
#define MERKLE_HMAC_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "merkle/hash.h"

typedef struct merkle__hmac_sha256 {
    merkle_sha256 in, out; /* after the key's ipad and opad blocks */
} merkle__hmac_sha256;

/* Key h with key[0..key_len) (longer than 64 bytes: its SHA-256, as RFC 2104 says). */
void merkle__hmac_sha256_init(merkle__hmac_sha256 *h, const uint8_t *key, size_t key_len);
/* out = HMAC(key, a[0..alen) || b[0..blen)). h is not changed. */
void merkle__hmac_sha256_mac2(const merkle__hmac_sha256 *h, uint8_t out[32], const void *a,
                              size_t alen, const void *b, size_t blen);
/* Wipe the keyed states. */
void merkle__hmac_sha256_wipe(merkle__hmac_sha256 *h);

#endif
