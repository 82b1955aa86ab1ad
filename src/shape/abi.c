/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Solidity ABI encoding of one row of values (abi.encode(types, values)), for the leaves of
** @openzeppelin/merkle-tree's StandardMerkleTree: keccak256(keccak256(abi.encode(...))).
**
** Types: address, bool, uintN / intN (N = 8..256, a multiple of 8; uint = uint256),
** bytesN (N = 1..32), and the dynamic bytes and string. Values, comma-separated: address and
** bytes as 0x-hex, bool as true/false, integers in decimal (intN with an optional '-') or
** 0x-hex, string as its UTF-8 text; a value in double quotes may hold commas (\" and \\
** escape a quote and a backslash). Static values take one 32-byte word in the head; a
** dynamic one puts its offset in the head and length || data (padded to 32) in the tail.
*/
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"
#include "common/json.h"
#include "merkle/shape.h"
#include "tree/tree_impl.h"

#define MAX_FIELDS 64

typedef struct field {
    char kind;     /* 'a' address, 'b' bool, 'u' uint, 'i' int, 'f' bytesN, 'B' bytes, 's' string */
    unsigned bits; /* u/i: N; f: N bytes */
} field;

static int parse_types(field *f, size_t *nf, const char *types)
{
    size_t n = 0;
    const char *p = types;
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        const char *a = p;
        while (*p && *p != ',') p++;
        const char *b = p;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t')) b--;
        size_t len = (size_t)(b - a);
        if (len == 0 || n == MAX_FIELDS) return -1;
        char t[16];
        if (len >= sizeof t) return -1;
        memcpy(t, a, len);
        t[len] = 0;
        field x = { 0, 0 };
        char *end;
        if (!strcmp(t, "address"))
            x.kind = 'a';
        else if (!strcmp(t, "bool"))
            x.kind = 'b';
        else if (!strcmp(t, "string"))
            x.kind = 's';
        else if (!strcmp(t, "bytes"))
            x.kind = 'B';
        else if (!strcmp(t, "uint") || !strcmp(t, "int")) {
            x.kind = t[0];
            x.bits = 256;
        } else if (!strncmp(t, "uint", 4) || !strncmp(t, "int", 3)) {
            const char *d = t + (t[0] == 'u' ? 4 : 3);
            if (!isdigit((unsigned char)*d) || *d == '0') return -1;
            unsigned long v = strtoul(d, &end, 10);
            if (*end || v == 0 || v > 256 || v % 8) return -1;
            x.kind = t[0];
            x.bits = (unsigned)v;
        } else if (!strncmp(t, "bytes", 5)) {
            const char *d = t + 5;
            if (!isdigit((unsigned char)*d) || *d == '0') return -1;
            unsigned long v = strtoul(d, &end, 10);
            if (*end || v == 0 || v > 32) return -1;
            x.kind = 'f';
            x.bits = (unsigned)v;
        } else
            return -1;
        f[n++] = x;
        if (!*p) break;
        p++;
    }
    *nf = n;
    return 0;
}

/* 0x-hex into out (exactly want bytes unless want == SIZE_MAX); returns the length or -1. */
static long parse_hex(uint8_t *out, size_t cap, const char *v, size_t len)
{
    if (len < 2 || v[0] != '0' || (v[1] != 'x' && v[1] != 'X') || (len - 2) % 2) return -1;
    size_t n = (len - 2) / 2;
    if (n > cap) return -1;
    for (size_t i = 0; i < n; i++) {
        int h = merkle__hex_digit(v[2 + 2 * i]), l = merkle__hex_digit(v[3 + 2 * i]);
        if (h < 0 || l < 0) return -1;
        out[i] = (uint8_t)(h << 4 | l);
    }
    return (long)n;
}

/*
** Decimal digits v[0..len) into a 32-byte big-endian word: nine digits at a time into eight
** 32-bit limbs (one 64-bit multiply-add per limb and chunk, not a 32-byte pass per digit).
** -1 for a non-digit or a value of 2^256 or more.
*/
static int parse_dec(uint8_t w[32], const char *v, size_t len)
{
    static const uint32_t pow10[10] = { 1,      10,      100,      1000,      10000,
                                        100000, 1000000, 10000000, 100000000, 1000000000 };
    uint32_t limb[8] = { 0 }; /* limb[0] least significant */
    for (size_t i = 0; i < len;) {
        size_t k = len - i < 9 ? len - i : 9;
        uint32_t chunk = 0;
        for (size_t j = 0; j < k; j++) {
            unsigned d = (unsigned)((unsigned char)v[i + j] - '0');
            if (d > 9) return -1;
            chunk = chunk * 10u + d;
        }
        uint64_t carry = chunk;
        for (int l = 0; l < 8; l++) {
            uint64_t x = (uint64_t)limb[l] * pow10[k] + carry;
            limb[l] = (uint32_t)x;
            carry = x >> 32;
        }
        if (carry) return -1; /* beyond 2^256 */
        i += k;
    }
    for (int l = 0; l < 8; l++) merkle__store_be32(w + 28 - 4 * l, limb[l]);
    return 0;
}

/* An integer value into a 32-byte big-endian two's-complement word; range-checked. */
static int parse_int(uint8_t w[32], const field *f, const char *v, size_t len)
{
    int neg = 0;
    memset(w, 0, 32);
    if (len && v[0] == '-' && f->kind == 'i') {
        neg = 1;
        v++;
        len--;
    }
    if (len == 0) return -1;
    if (len > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
        uint8_t tmp[32];
        size_t digits = len - 2;
        if (digits > 64) return -1;
        /* Left-pad odd digit counts. */
        char buf[67] = "0x";
        size_t pad = (64 - digits);
        memset(buf + 2, '0', pad);
        memcpy(buf + 2 + pad, v + 2, digits);
        if (parse_hex(tmp, 32, buf, 66) != 32) return -1;
        memcpy(w, tmp, 32);
    } else if (parse_dec(w, v, len) != 0) {
        return -1;
    }
    /* Range: magnitude < 2^N (uint), <= 2^(N-1) (negative int), < 2^(N-1) (positive int). */
    unsigned limit_bits = f->kind == 'u' ? f->bits : f->bits - 1;
    int over = 0;
    for (unsigned bit = limit_bits; bit < 256; bit++)
        if (w[31 - bit / 8] >> (bit % 8) & 1) over = 1;
    if (over) {
        /* -2^(N-1) itself is allowed. */
        int is_min = neg;
        for (unsigned bit = 0; bit < 256 && is_min; bit++) {
            int set = w[31 - bit / 8] >> (bit % 8) & 1;
            if (set != (bit == limit_bits)) is_min = 0;
        }
        if (!is_min) return -1;
    }
    if (neg) { /* two's complement */
        unsigned carry = 1;
        for (int k = 31; k >= 0; k--) {
            unsigned x = (uint8_t)~w[k] + carry;
            w[k] = (uint8_t)x;
            carry = x >> 8;
        }
    }
    return 0;
}

typedef merkle__sink obuf;

static void put_word_u64(obuf *o, uint64_t v)
{
    uint8_t w[32] = { 0 };
    merkle__store_be64(w + 24, v);
    merkle__sink_put(o, w, 32);
}

/* Split a row into its values (quoted or bare), each unescaped into a malloc'd string. */
typedef struct value {
    char *s;
    size_t n;
} value;

static int split_row_(value *vals, size_t *nv, const char *row, size_t len)
{
    size_t n = 0, i = 0;
    for (;;) {
        while (i < len && (row[i] == ' ' || row[i] == '\t')) i++;
        if (n == MAX_FIELDS) return -1;
        char *s = malloc(len + 1);
        if (!s) return -1;
        size_t k = 0;
        if (i < len && row[i] == '"') {
            i++;
            for (;;) {
                if (i >= len) {
                    free(s);
                    return -1;
                }
                char c = row[i++];
                if (c == '"') break;
                if (c == '\\') {
                    if (i >= len || (row[i] != '"' && row[i] != '\\')) {
                        free(s);
                        return -1;
                    }
                    c = row[i++];
                }
                s[k++] = c;
            }
            while (i < len && (row[i] == ' ' || row[i] == '\t')) i++;
            if (i < len && row[i] != ',') {
                free(s);
                return -1;
            }
        } else {
            size_t a = i;
            while (i < len && row[i] != ',') i++;
            size_t b = i;
            while (b > a && (row[b - 1] == ' ' || row[b - 1] == '\t')) b--;
            memcpy(s, row + a, b - a);
            k = b - a;
        }
        s[k] = 0;
        vals[n].s = s;
        vals[n].n = k;
        *nv = ++n;
        if (i >= len) break;
        i++; /* the comma */
    }
    *nv = n;
    return 0;
}

/* split_row_ with every value freed on failure (*nv counts the values made so far). */
static int split_row(value *vals, size_t *nv, const char *row, size_t len)
{
    *nv = 0;
    if (split_row_(vals, nv, row, len) == 0) return 0;
    for (size_t i = 0; i < *nv; i++) free(vals[i].s);
    *nv = 0;
    return -1;
}

static merkle_status types_or_fail(field *f, size_t *nf, const char *types, merkle_error *err)
{
    if (parse_types(f, nf, types) == 0) return MERKLE_OK;
    return merkle__fail(err, MERKLE_ERR_ARG, 0, 0,
                        "unsupported ABI type list '%.80s' (address, bool, uintN, intN, bytesN, "
                        "bytes, string)",
                        types);
}

/* abi.encode of one row with the types already parsed. */
static merkle_status encode_row(uint8_t *out, size_t cap, size_t *out_len, const field *f,
                                size_t nf, const char *row, size_t row_len, merkle_error *err)
{
    value v[MAX_FIELDS];
    size_t nv = 0;
    if (split_row(v, &nv, row ? row : "", row_len) != 0)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 0, "malformed row (an unterminated quote?)");
    merkle_status st = MERKLE_OK;
    if (nv != nf)
        st = merkle__fail(err, MERKLE_ERR_FORMAT, 0, 0, "%zu values for %zu types", nv, nf);
    /* Head, then the tails of the dynamic values in order. */
    obuf o = { out, cap, 0 };
    uint64_t tail_off = 32 * (uint64_t)nf;
    for (size_t i = 0; i < nf && st == MERKLE_OK; i++) {
        uint8_t w[32] = { 0 };
        const char *s = v[i].s;
        size_t n = v[i].n;
        int bad = 0;
        switch (f[i].kind) {
        case 'a': bad = parse_hex(w + 12, 20, s, n) != 20; break;
        case 'b':
            /* OpenZeppelin (ethers) takes true or false only: 1/0 are refused. */
            if (!strcmp(s, "true"))
                w[31] = 1;
            else
                bad = strcmp(s, "false") != 0;
            break;
        case 'u':
        case 'i': bad = parse_int(w, &f[i], s, n) != 0; break;
        case 'f': bad = parse_hex(w, f[i].bits, s, n) != (long)f[i].bits; break;
        case 'B':
        case 's': {
            size_t dl = n;
            if (f[i].kind == 'B') {
                long r = parse_hex((uint8_t *)v[i].s, n, s, n); /* in place: shorter */
                bad = r < 0;
                dl = bad ? 0 : (size_t)r;
            }
            v[i].n = dl;
            merkle__store_be64(w + 24, tail_off);
            tail_off += 32 + (dl + 31) / 32 * 32;
            break;
        }
        }
        if (bad)
            st = merkle__fail(err, MERKLE_ERR_FORMAT, 0, i,
                              "value %zu ('%.60s') is not a valid %s%s", i + 1, s,
                              f[i].kind == 'a'   ? "address"
                              : f[i].kind == 'b' ? "bool"
                              : f[i].kind == 'u' ? "uint"
                              : f[i].kind == 'i' ? "int"
                              : f[i].kind == 'f' ? "bytesN"
                                                 : "bytes",
                              f[i].kind == 'u' || f[i].kind == 'i' ? " of this size" : "");
        else
            merkle__sink_put(&o, w, 32);
    }
    for (size_t i = 0; i < nf && st == MERKLE_OK; i++) {
        if (f[i].kind != 'B' && f[i].kind != 's') continue;
        put_word_u64(&o, v[i].n);
        merkle__sink_put(&o, (const uint8_t *)v[i].s, v[i].n);
        static const uint8_t zeros[32] = { 0 };
        if (v[i].n % 32) merkle__sink_put(&o, zeros, 32 - v[i].n % 32);
    }
    for (size_t i = 0; i < nv; i++) free(v[i].s);
    if (st != MERKLE_OK) return st;
    *out_len = o.len;
    return o.len <= cap ? MERKLE_OK : MERKLE_ERR_BUFFER;
}

merkle_status merkle_shape_abi_encode(uint8_t *out, size_t cap, size_t *out_len, const char *types,
                                      const char *row, size_t row_len, merkle_error *err)
{
    if (!out_len || !types || (!row && row_len) || (!out && cap))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    field f[MAX_FIELDS];
    size_t nf;
    merkle_status st = types_or_fail(f, &nf, types, err);
    if (st != MERKLE_OK) return st;
    return encode_row(out, cap, out_len, f, nf, row, row_len, err);
}

/* keccak256(keccak256(abi.encode(row))) of one row, encoded once (a stack buffer unless the
** row's dynamic values need more). */
static merkle_status leaf_of_row(uint8_t out[MERKLE_HASH_LEN], const field *f, size_t nf,
                                 const char *row, size_t row_len, merkle_error *err)
{
    uint8_t small[1024];
    size_t need = 0;
    merkle_status st = encode_row(small, sizeof small, &need, f, nf, row, row_len, err);
    uint8_t *buf = small;
    if (st == MERKLE_ERR_BUFFER) {
        if (!(buf = malloc(need)))
            return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
        st = encode_row(buf, need, &need, f, nf, row, row_len, err);
    }
    if (st == MERKLE_OK) {
        uint8_t h[32];
        merkle_keccak256_hash(h, buf, need);
        merkle_keccak256_hash(out, h, 32);
    }
    if (buf != small) free(buf);
    return st;
}

merkle_status merkle_shape_abi_leaf(uint8_t out[MERKLE_HASH_LEN], const char *types,
                                    const char *row, size_t row_len, merkle_error *err)
{
    if (!out || !types || (!row && row_len))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    field f[MAX_FIELDS];
    size_t nf;
    merkle_status st = types_or_fail(f, &nf, types, err);
    if (st != MERKLE_OK) return st;
    return leaf_of_row(out, f, nf, row ? row : "", row_len, err);
}

/* Rows encoded, then hashed, per group of this many (bounds the scratch to 64 KiB per field). */
#define LEAVES_GROUP 1024

merkle_status merkle_shape_abi_leaves(uint8_t (*out)[MERKLE_HASH_LEN], const char *types,
                                      const char *const *rows, const size_t *lens, size_t n,
                                      merkle_error *err)
{
    if ((!out || !rows || !lens) && n)
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    if (!types) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    field f[MAX_FIELDS];
    size_t nf;
    merkle_status st = types_or_fail(f, &nf, types, err);
    if (st != MERKLE_OK) return st;
    int dynamic = 0;
    for (size_t i = 0; i < nf; i++) dynamic |= f[i].kind == 'B' || f[i].kind == 's';
    if (dynamic) { /* encodings of different lengths: one row at a time */
        for (size_t i = 0; i < n; i++) {
            if (!rows[i] && lens[i]) return merkle__fail(err, MERKLE_ERR_ARG, i + 1, 0, "NULL row");
            st = leaf_of_row(out[i], f, nf, rows[i] ? rows[i] : "", lens[i], err);
            if (st != MERKLE_OK) {
                if (err) err->line = i + 1;
                return st;
            }
        }
        return MERKLE_OK;
    }
    /* Every encoding is 32 * nf bytes: encode a group, then two Keccak batch calls. */
    size_t elen = 32 * nf;
    uint8_t *buf = malloc(elen * (n < LEAVES_GROUP ? (n ? n : 1) : LEAVES_GROUP));
    uint8_t(*mid)[MERKLE_HASH_LEN] =
        malloc(MERKLE_HASH_LEN * (n < LEAVES_GROUP ? (n ? n : 1) : LEAVES_GROUP));
    if (!buf || !mid) {
        free(buf);
        free(mid);
        return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    }
    for (size_t g = 0; g < n && st == MERKLE_OK; g += LEAVES_GROUP) {
        size_t m = n - g < LEAVES_GROUP ? n - g : LEAVES_GROUP;
        for (size_t i = 0; i < m && st == MERKLE_OK; i++) {
            size_t got = 0;
            if (!rows[g + i] && lens[g + i])
                st = merkle__fail(err, MERKLE_ERR_ARG, g + i + 1, 0, "NULL row");
            else
                st = encode_row(buf + i * elen, elen, &got, f, nf, rows[g + i] ? rows[g + i] : "",
                                lens[g + i], err);
            if (st != MERKLE_OK && err) err->line = g + i + 1;
        }
        if (st == MERKLE_OK)
            st = merkle_keccak256_batch_strided(mid[0], NULL, 0, buf, elen, elen, m);
        if (st == MERKLE_OK)
            st = merkle_keccak256_batch_strided(out[g], NULL, 0, mid[0], MERKLE_HASH_LEN,
                                                MERKLE_HASH_LEN, m);
    }
    free(buf);
    free(mid);
    return st;
}

/* ------------------------------------------------------------------ tree dumps */

typedef merkle__sink sout;

static void sput_node(sout *o, const uint8_t h[32])
{
    char hex[67] = "0x";
    merkle_hex_encode(hex + 2, h, 32);
    merkle__json_string_put(o, hex, 66);
}

merkle_status merkle_shape_tree_dump_json(char *out, size_t cap, size_t *out_len,
                                          const merkle_shape_tree *t, const char *types,
                                          const char *const *rows, const size_t *row_lens,
                                          merkle_error *err)
{
    if (!out_len || !t || (!out && cap) || (types && !rows))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    uint64_t n = merkle_shape_tree_count(t);
    uint8_t h[32];
    if (merkle_shape_tree_node(h, t, 0) != MERKLE_OK || n == 0 ||
        merkle_shape_tree_node(h, t, 2 * n - 2) != MERKLE_OK)
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "not a heap-layout tree");
    field f[MAX_FIELDS];
    size_t nf = 0;
    if (types && parse_types(f, &nf, types) != 0)
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "unsupported ABI type list");
    sout o = { out, cap, 0 };
    merkle__sink_puts(&o, types ? "{\n  \"format\": \"standard-v1\",\n  \"leafEncoding\": ["
                                : "{\n  \"format\": \"simple-v1\",\n");
    if (types) {
        /* The type names as given, trimmed. */
        const char *p = types;
        for (size_t i = 0; i < nf; i++) {
            while (*p == ' ' || *p == '\t') p++;
            const char *a = p;
            while (*p && *p != ',') p++;
            const char *b = p;
            while (b > a && (b[-1] == ' ' || b[-1] == '\t')) b--;
            merkle__sink_puts(&o, i ? ",\n    " : "\n    ");
            merkle__json_string_put(&o, a, (size_t)(b - a));
            if (*p) p++;
        }
        merkle__sink_puts(&o, "\n  ],\n");
    }
    merkle__sink_puts(&o, "  \"tree\": [");
    for (uint64_t i = 0; i < 2 * n - 1; i++) {
        (void)merkle_shape_tree_node(h, t, i);
        merkle__sink_puts(&o, i ? ",\n    " : "\n    ");
        sput_node(&o, h);
    }
    merkle__sink_puts(&o, "\n  ],\n  \"values\": [");
    merkle_status st = MERKLE_OK;
    for (uint64_t i = 0; i < n && st == MERKLE_OK; i++) {
        uint64_t pos;
        (void)merkle_shape_tree_position(&pos, t, i);
        merkle__sink_puts(&o, i ? ",\n    {\n      \"value\": " : "\n    {\n      \"value\": ");
        if (!types) {
            (void)merkle_shape_tree_node(h, t, pos);
            sput_node(&o, h);
        } else {
            value v[MAX_FIELDS];
            size_t nv;
            if (split_row(v, &nv, rows[i], row_lens[i]) != 0 || nv != nf) {
                for (size_t k = 0; k < nv; k++) free(v[k].s);
                st = merkle__fail(err, MERKLE_ERR_FORMAT, i + 1, 0,
                                  "row %llu does not fit the types", (unsigned long long)i + 1);
                break;
            }
            merkle__sink_puts(&o, "[");
            for (size_t k = 0; k < nv; k++) {
                merkle__sink_puts(&o, k ? ",\n        " : "\n        ");
                if (f[k].kind == 'b')
                    merkle__sink_puts(&o, !strcmp(v[k].s, "true") ? "true" : "false");
                else
                    merkle__json_string_put(&o, v[k].s, v[k].n);
                free(v[k].s);
            }
            merkle__sink_puts(&o, "\n      ]");
        }
        char tail[64];
        snprintf(tail, sizeof tail, ",\n      \"treeIndex\": %llu\n    }", (unsigned long long)pos);
        merkle__sink_puts(&o, tail);
    }
    if (st != MERKLE_OK) return st;
    merkle__sink_puts(&o, "\n  ]\n}\n");
    merkle__sink_put(&o, "", 1);
    *out_len = o.len;
    return o.len <= cap ? MERKLE_OK : MERKLE_ERR_BUFFER;
}
