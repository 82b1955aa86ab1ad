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

static int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

merkle_status merkle_hex_decode(uint8_t *out, size_t cap, size_t *out_len, const char *hex,
                                size_t hex_len, merkle_error *error)
{
    if ((hex == NULL && hex_len != 0) || out_len == NULL)
        return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "hex: NULL argument");
    size_t n = hex_len / 2;
    *out_len = n;
    for (size_t i = 0; i < hex_len; i++) {
        if (hex_value(hex[i]) < 0)
            return merkle__fail(error, MERKLE_ERR_FORMAT, 0, i,
                                "invalid hex character at offset %zu", i);
    }
    if (hex_len % 2 != 0)
        return merkle__fail(error, MERKLE_ERR_FORMAT, 0, hex_len,
                            "odd number of hex digits (%zu)", hex_len);
    if (n > cap)
        return merkle__fail(error, MERKLE_ERR_BUFFER, 0, 0,
                            "hex: %zu bytes do not fit in %zu", n, cap);
    if (out == NULL && n != 0) return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "hex: NULL out");
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)((hex_value(hex[2 * i]) << 4) | hex_value(hex[2 * i + 1]));
    return MERKLE_OK;
}
