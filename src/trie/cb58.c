/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** cb58 strings (base58 with a 4-byte SHA-256 checksum, avalanchego utils/cb58) and the
** uvarint reader. Both work in fixed stack space: nothing here allocates.
*/
#include <string.h>

#include "common/internal.h"
#include "merkle/hash.h"
#include "trie/trie_impl.h"

static const char b58_alphabet[] = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

int merkle__uvarint_get(uint64_t *v, const uint8_t *in, size_t len, size_t *pos)
{
    uint64_t x = 0;
    unsigned shift = 0;
    size_t p = *pos;
    for (size_t i = 0;; i++) {
        if (p >= len) return -1;
        uint8_t b = in[p++];
        if (i == 9 && b > 1) return -2;
        if (b < 0x80) {
            if (b == 0 && i > 0) return -3;
            x |= (uint64_t)b << shift;
            break;
        }
        x |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
    }
    *v = x;
    *pos = p;
    return 0;
}

merkle_status merkle_trie_cb58_encode(char *out, size_t cap, size_t *out_len, const uint8_t *in,
                                      size_t n)
{
    if ((in == NULL && n > 0) || out_len == NULL || (out == NULL && cap > 0)) return MERKLE_ERR_ARG;
    if (n > MERKLE_TRIE_CB58_MAX_BYTES) return MERKLE_ERR_RANGE;
    uint8_t buf[MERKLE_TRIE_CB58_MAX_BYTES + 4];
    uint8_t h[32];
    if (n) memcpy(buf, in, n);
    merkle_sha256_hash(h, buf, n); /* buf, not in: never NULL */
    memcpy(buf + n, h + 28, 4);
    size_t total = n + 4;
    size_t zeros = 0;
    while (zeros < total && buf[zeros] == 0) zeros++;
    /* Base-58 digits, least significant first; 138/100 > log(256)/log(58). */
    uint8_t dig[(MERKLE_TRIE_CB58_MAX_BYTES + 4) * 138 / 100 + 1];
    size_t nd = 0;
    for (size_t i = zeros; i < total; i++) {
        unsigned carry = buf[i];
        for (size_t j = 0; j < nd; j++) {
            carry += (unsigned)dig[j] << 8;
            dig[j] = (uint8_t)(carry % 58);
            carry /= 58;
        }
        while (carry) {
            dig[nd++] = (uint8_t)(carry % 58);
            carry /= 58;
        }
    }
    size_t len = zeros + nd;
    *out_len = len;
    if (cap < len + 1) return MERKLE_ERR_BUFFER;
    for (size_t i = 0; i < zeros; i++) out[i] = '1';
    for (size_t i = 0; i < nd; i++) out[zeros + i] = b58_alphabet[dig[nd - 1 - i]];
    out[len] = '\0';
    return MERKLE_OK;
}

merkle_status merkle_trie_cb58_decode(uint8_t *out, size_t cap, size_t *out_len, const char *s,
                                      size_t len, merkle_error *err)
{
    if ((s == NULL && len > 0) || out_len == NULL || (out == NULL && cap > 0))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid argument");
    /* Each base-58 digit carries less than 6 bits: bound the work before decoding. */
    if (len > (MERKLE_TRIE_CB58_MAX_BYTES + 4) * 138 / 100 + 1)
        return merkle__fail(err, MERKLE_ERR_RANGE, 0, 0, "cb58 string too long");
    uint8_t num[MERKLE_TRIE_CB58_MAX_BYTES + 4]; /* big-endian, the low nb bytes at the end */
    size_t nb = 0;
    size_t ones = 0;
    while (ones < len && s[ones] == '1') ones++;
    for (size_t i = ones; i < len; i++) {
        const char *c = s[i] ? memchr(b58_alphabet, s[i], 58) : NULL;
        if (c == NULL)
            return merkle__fail(err, MERKLE_ERR_FORMAT, 0, i,
                                "invalid cb58 character at offset %zu", i);
        unsigned carry = (unsigned)(c - b58_alphabet);
        for (size_t j = 0; j < nb; j++) {
            uint8_t *b = &num[sizeof num - 1 - j];
            carry += (unsigned)*b * 58;
            *b = (uint8_t)carry;
            carry >>= 8;
        }
        while (carry) {
            if (nb + ones >= sizeof num)
                return merkle__fail(err, MERKLE_ERR_RANGE, 0, i, "cb58 payload too long");
            num[sizeof num - 1 - nb++] = (uint8_t)carry;
            carry >>= 8;
        }
    }
    size_t total = ones + nb;
    if (total > sizeof num)
        return merkle__fail(err, MERKLE_ERR_RANGE, 0, 0, "cb58 payload too long");
    if (total < 4)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 0, "cb58 string too short for a checksum");
    uint8_t *bytes = num + sizeof num - total;
    memset(bytes, 0, ones);
    size_t n = total - 4;
    uint8_t h[32];
    merkle_sha256_hash(h, bytes, n);
    if (!merkle_ct_equal(h + 28, bytes + n, 4))
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 0, "cb58 checksum mismatch");
    *out_len = n;
    if (cap < n)
        return merkle__fail(err, MERKLE_ERR_BUFFER, 0, 0, "cb58 payload is %zu bytes, room for %zu",
                            n, cap);
    if (n) memcpy(out, bytes, n);
    return MERKLE_OK;
}

merkle_status merkle_trie_id_parse(uint8_t out[MERKLE_TRIE_ID_LEN], const char *s,
                                   merkle_error *err)
{
    if (out == NULL || s == NULL)
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid argument");
    size_t len = strlen(s);
    size_t n = 0;
    if (len == 2 * MERKLE_TRIE_ID_LEN) {
        merkle_error e;
        if (merkle_hex_decode(out, MERKLE_TRIE_ID_LEN, &n, s, len, &e) == MERKLE_OK)
            return MERKLE_OK;
    }
    uint8_t tmp[MERKLE_TRIE_ID_LEN];
    merkle_error e;
    merkle_status st = merkle_trie_cb58_decode(tmp, sizeof tmp, &n, s, len, &e);
    if (st == MERKLE_OK && n == MERKLE_TRIE_ID_LEN) {
        memcpy(out, tmp, sizeof tmp);
        return MERKLE_OK;
    }
    if (st == MERKLE_OK || st == MERKLE_ERR_BUFFER)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 0,
                            "not an ID: cb58 payload is %zu bytes, expected 32", n);
    return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 0,
                        "not an ID: neither 64 hex digits nor cb58 (%s)", e.message);
}
