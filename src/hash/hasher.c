/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Algorithm-generic front ends over SHA-256 and BLAKE2b-256.
*/
#include <string.h>

#include "hash/impl.h"

merkle_status merkle_hash_alg_from_name(merkle_hash_alg *out, const char *name)
{
    if (!out || !name) return MERKLE_ERR_ARG;
    if (strcmp(name, "sha256") == 0 || strcmp(name, "sha-256") == 0) {
        *out = MERKLE_HASH_SHA256;
        return MERKLE_OK;
    }
    if (strcmp(name, "blake2b-256") == 0 || strcmp(name, "blake2b256") == 0) {
        *out = MERKLE_HASH_BLAKE2B_256;
        return MERKLE_OK;
    }
    if (strcmp(name, "keccak256") == 0 || strcmp(name, "keccak-256") == 0) {
        *out = MERKLE_HASH_KECCAK256;
        return MERKLE_OK;
    }
    return MERKLE_ERR_ARG;
}

const char *merkle_hash_alg_name(merkle_hash_alg alg)
{
    switch (alg) {
    case MERKLE_HASH_MD5: return "md5";
    case MERKLE_HASH_SHA1: return "sha1";
    case MERKLE_HASH_SHA256: return "sha256";
    case MERKLE_HASH_SHA512: return "sha512";
    case MERKLE_HASH_BLAKE2B: return "blake2b";
    case MERKLE_HASH_BLAKE2B_256: return "blake2b-256";
    case MERKLE_HASH_KECCAK256: return "keccak256";
    default: break;
    }
    return NULL;
}

size_t merkle_hash_alg_len(merkle_hash_alg alg)
{
    switch (alg) {
    case MERKLE_HASH_MD5: return 16;
    case MERKLE_HASH_SHA1: return 20;
    case MERKLE_HASH_SHA512:
    case MERKLE_HASH_BLAKE2B: return 64;
    case MERKLE_HASH_SHA256:
    case MERKLE_HASH_BLAKE2B_256:
    case MERKLE_HASH_KECCAK256: return 32;
    default: break;
    }
    return 0;
}

int merkle__tree_hash_ok(merkle_hash_alg alg)
{
    return alg == MERKLE_HASH_SHA256 || alg == MERKLE_HASH_BLAKE2B_256 ||
           alg == MERKLE_HASH_KECCAK256;
}

size_t merkle_hasher_struct_size(void)
{
    return sizeof(merkle_hasher);
}
size_t merkle_hasher_struct_align(void)
{
    return _Alignof(merkle_hasher);
}

merkle_status merkle_hasher_init(merkle_hasher *h, merkle_hash_alg alg)
{
    if (!h) return MERKLE_ERR_ARG;
    switch (alg) {
    case MERKLE_HASH_SHA256:
        h->alg = alg;
        merkle_sha256_init(&h->u.sha256);
        return MERKLE_OK;
    case MERKLE_HASH_BLAKE2B_256: h->alg = alg; return merkle_blake2b_init(&h->u.blake2b, 32);
    case MERKLE_HASH_KECCAK256:
        h->alg = alg;
        merkle_keccak256_init(&h->u.keccak256);
        return MERKLE_OK;
    default: break;
    }
    return MERKLE_ERR_ARG;
}

void merkle_hasher_update(merkle_hasher *h, const void *data, size_t len)
{
    if (h->alg == MERKLE_HASH_SHA256)
        merkle_sha256_update(&h->u.sha256, data, len);
    else if (h->alg == MERKLE_HASH_KECCAK256)
        merkle_keccak256_update(&h->u.keccak256, data, len);
    else
        merkle_blake2b_update(&h->u.blake2b, data, len);
}

void merkle_hasher_final(merkle_hasher *h, uint8_t out[MERKLE_HASH_LEN])
{
    if (h->alg == MERKLE_HASH_SHA256)
        merkle_sha256_final(&h->u.sha256, out);
    else if (h->alg == MERKLE_HASH_KECCAK256)
        merkle_keccak256_final(&h->u.keccak256, out);
    else
        merkle_blake2b_final(&h->u.blake2b, out);
}

merkle_status merkle_hash(uint8_t out[MERKLE_HASH_LEN], merkle_hash_alg alg, const void *data,
                          size_t len)
{
    if (!out || (!data && len)) return MERKLE_ERR_ARG;
    switch (alg) {
    case MERKLE_HASH_SHA256: merkle_sha256_hash(out, data, len); return MERKLE_OK;
    case MERKLE_HASH_BLAKE2B_256: merkle_blake2b_256(out, data, len); return MERKLE_OK;
    case MERKLE_HASH_KECCAK256: merkle_keccak256_hash(out, data, len); return MERKLE_OK;
    default: break;
    }
    return MERKLE_ERR_ARG;
}

merkle_status merkle_hash_batch_strided(uint8_t *out, merkle_hash_alg alg, const uint8_t *prefix,
                                        size_t prefix_len, const uint8_t *base, size_t stride,
                                        size_t len, size_t n)
{
    if (alg == MERKLE_HASH_SHA256)
        return merkle_sha256_batch_strided(out, prefix, prefix_len, base, stride, len, n);
    if (alg == MERKLE_HASH_KECCAK256)
        return merkle_keccak256_batch_strided(out, prefix, prefix_len, base, stride, len, n);
    if (alg != MERKLE_HASH_BLAKE2B_256) return MERKLE_ERR_ARG;
    if (n == 0) return MERKLE_OK;
    if (!out || prefix_len > 64 || (prefix_len && !prefix) || (!base && (len || stride)))
        return MERKLE_ERR_ARG;
    merkle__blake2b256_batch_strided(out, prefix, prefix_len, base, stride, len, n);
    return MERKLE_OK;
}
