/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Hex encoding and decoding.
*/
#include "common/internal.h"

void merkle_hex_encode(char *out, const uint8_t *in, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = '\0';
}

/* Value of each hex digit; 255 for anything else (merkle__hex_digit in internal.h). */
const uint8_t merkle__hex_tab[256] = {
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 0,   1,   2,   3,   4,   5,   6,   7,   8,
    9,   255, 255, 255, 255, 255, 255, 255, 10,  11,  12,  13,  14,  15,  255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 10,  11,  12,  13,  14,  15,  255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255,
};

merkle_status merkle_hex_decode(uint8_t *out, size_t cap, size_t *out_len, const char *hex,
                                size_t hex_len, merkle_error *error)
{
    if ((hex == NULL && hex_len != 0) || out_len == NULL)
        return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "hex: NULL argument");
    size_t n = hex_len / 2;
    *out_len = n;
    unsigned bad = 0; /* one branch-free pass; the offending offset is looked up only on error */
    for (size_t i = 0; i < hex_len; i++) bad |= merkle__hex_tab[(unsigned char)hex[i]];
    if (bad & 0xf0) {
        size_t i = 0;
        while (merkle__hex_tab[(unsigned char)hex[i]] != 255) i++;
        return merkle__fail(error, MERKLE_ERR_FORMAT, 0, i, "invalid hex character at offset %zu",
                            i);
    }
    if (hex_len % 2 != 0)
        return merkle__fail(error, MERKLE_ERR_FORMAT, 0, hex_len, "odd number of hex digits (%zu)",
                            hex_len);
    if (n > cap)
        return merkle__fail(error, MERKLE_ERR_BUFFER, 0, 0, "hex: %zu bytes do not fit in %zu", n,
                            cap);
    if (out == NULL && n != 0) return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "hex: NULL out");
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)((merkle__hex_tab[(unsigned char)hex[2 * i]] << 4) |
                           merkle__hex_tab[(unsigned char)hex[2 * i + 1]]);
    return MERKLE_OK;
}
