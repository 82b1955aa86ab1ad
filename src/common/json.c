/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The one JSON reader and writer of the library (src/common/json.h): the proof, multiproof
** and tree-dump parsers read with it, the proof, dump and ABI-row writers write with it.
*/
#include "common/json.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "merkle/hash.h"

/* ------------------------------------------------------------------ writing */

void merkle__json_putf(merkle__sink *b, const char *fmt, ...)
{
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) merkle__sink_put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

void merkle__json_hex_string(merkle__sink *b, const uint8_t *d, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    merkle__sink_put(b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        char two[2] = { digits[d[i] >> 4], digits[d[i] & 15] };
        merkle__sink_put(b, two, 2);
    }
    merkle__sink_put(b, "\"", 1);
}

void merkle__json_base64_string(merkle__sink *b, const uint8_t *d, size_t n)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    merkle__sink_put(b, "\"", 1);
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16;
        if (i + 1 < n) v |= (uint32_t)d[i + 1] << 8;
        if (i + 2 < n) v |= d[i + 2];
        char four[4] = { a[v >> 18], a[v >> 12 & 63], i + 1 < n ? a[v >> 6 & 63] : '=',
                         i + 2 < n ? a[v & 63] : '=' };
        merkle__sink_put(b, four, 4);
    }
    merkle__sink_put(b, "\"", 1);
}

void merkle__json_string_put(merkle__sink *o, const char *s, size_t n)
{
    static const char hexd[] = "0123456789abcdef";
    merkle__sink_put(o, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            char e[2] = { '\\', (char)c };
            merkle__sink_put(o, e, 2);
        } else if (c < 0x20) {
            const char *named = c == '\n'   ? "\\n"
                                : c == '\r' ? "\\r"
                                : c == '\t' ? "\\t"
                                : c == '\b' ? "\\b"
                                : c == '\f' ? "\\f"
                                            : NULL;
            if (named) {
                merkle__sink_puts(o, named);
            } else {
                char e[6] = { '\\', 'u', '0', '0', hexd[c >> 4], hexd[c & 15] };
                merkle__sink_put(o, e, 6);
            }
        } else {
            merkle__sink_put(o, (const char *)&c, 1);
        }
    }
    merkle__sink_put(o, "\"", 1);
}

/* ------------------------------------------------------------------ reading */

/* The document named in messages: "proof JSON" unless the reader set another. */
#define JDOC(j) ((j)->doc ? (j)->doc : "proof JSON")

merkle_status merkle__json_fail(merkle__json *j, const char *what)
{
    return merkle__fail(j->err, MERKLE_ERR_FORMAT, 1, j->pos, "%s, byte %zu: %s", JDOC(j), j->pos,
                        what);
}

static void ws(merkle__json *j)
{
    while (j->pos < j->len && (j->s[j->pos] == ' ' || j->s[j->pos] == '\t' ||
                               j->s[j->pos] == '\n' || j->s[j->pos] == '\r'))
        j->pos++;
}

int merkle__json_peek(merkle__json *j)
{
    ws(j);
    return j->pos < j->len ? (unsigned char)j->s[j->pos] : -1;
}

/* The byte c (after white space), consumed; else a format error saying what was expected. */
merkle_status merkle__json_expect(merkle__json *j, int c, const char *what)
{
    if (merkle__json_peek(j) != c) return merkle__json_fail(j, what);
    j->pos++;
    return MERKLE_OK;
}

merkle_status merkle__json_open(merkle__json *j, int open, const char *what, int *more)
{
    merkle_status s = merkle__json_expect(j, open, what);
    if (s != MERKLE_OK) return s;
    int close = open == '{' ? '}' : ']';
    *more = merkle__json_peek(j) != close;
    if (!*more) j->pos++;
    return MERKLE_OK;
}

merkle_status merkle__json_next(merkle__json *j, int close, int *more)
{
    int c = merkle__json_peek(j);
    if (c == ',' || c == close) {
        j->pos++;
        *more = c == ',';
        return MERKLE_OK;
    }
    return merkle__json_fail(j, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
}

/* A string without decoding escapes (they are validated and kept as is): *a, *n. */
merkle_status merkle__json_string(merkle__json *j, const char **a, size_t *n)
{
    if (merkle__json_peek(j) != '"') return merkle__json_fail(j, "expected a string");
    size_t st = ++j->pos;
    while (j->pos < j->len) {
        unsigned char c = (unsigned char)j->s[j->pos];
        if (c == '"') {
            *a = j->s + st;
            *n = j->pos - st;
            j->pos++;
            return MERKLE_OK;
        }
        if (c < 0x20) return merkle__json_fail(j, "control character in a string");
        if (c == '\\') {
            if (j->pos + 1 >= j->len) break;
            char e = j->s[j->pos + 1];
            if (e == 'u') {
                if (j->len - j->pos < 6) break;
                for (int i = 2; i < 6; i++) {
                    char h = j->s[j->pos + (size_t)i];
                    if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') ||
                          (h >= 'A' && h <= 'F')))
                        return merkle__json_fail(j, "bad \\u escape");
                }
                j->pos += 6;
                continue;
            }
            if (!strchr("\"\\/bfnrt", e) || e == 0) return merkle__json_fail(j, "bad escape");
            j->pos += 2;
            continue;
        }
        j->pos++;
    }
    return merkle__json_fail(j, "unterminated string");
}

/* An object's key and the ':' after it. */
merkle_status merkle__json_key(merkle__json *j, const char **k, size_t *kn)
{
    merkle_status s = merkle__json_string(j, k, kn);
    return s != MERKLE_OK ? s : merkle__json_expect(j, ':', "expected ':'");
}

merkle_status merkle__json_literal(merkle__json *j, const char *lit)
{
    size_t n = strlen(lit);
    if (j->len - j->pos < n || memcmp(j->s + j->pos, lit, n) != 0)
        return merkle__json_fail(j, "bad literal");
    j->pos += n;
    return MERKLE_OK;
}

/* A non-negative integer without sign, fraction or exponent, at most 2^64 - 1. */
merkle_status merkle__json_uint(merkle__json *j, uint64_t *out)
{
    int c = merkle__json_peek(j);
    if (c == '-') return merkle__json_fail(j, "negative number");
    if (c < '0' || c > '9') return merkle__json_fail(j, "expected a non-negative integer");
    if (c == '0' && j->pos + 1 < j->len && j->s[j->pos + 1] >= '0' && j->s[j->pos + 1] <= '9')
        return merkle__json_fail(j, "leading zero in a number");
    uint64_t v = 0;
    while (j->pos < j->len && j->s[j->pos] >= '0' && j->s[j->pos] <= '9') {
        unsigned d = (unsigned)(j->s[j->pos] - '0');
        if (v > (UINT64_MAX - d) / 10) return merkle__json_fail(j, "number too large");
        v = v * 10 + d;
        j->pos++;
    }
    if (j->pos < j->len && (j->s[j->pos] == '.' || j->s[j->pos] == 'e' || j->s[j->pos] == 'E'))
        return merkle__json_fail(j, "expected an integer");
    *out = v;
    return MERKLE_OK;
}

/* CometBFT's int64 as a JSON string of decimal digits, or a plain number. */
merkle_status merkle__json_uint_or_string(merkle__json *j, uint64_t *out)
{
    if (merkle__json_peek(j) != '"') return merkle__json_uint(j, out);
    size_t at = j->pos;
    const char *a;
    size_t n;
    merkle_status s = merkle__json_string(j, &a, &n);
    if (s != MERKLE_OK) return s;
    merkle__json sub = MERKLE__JSON_INIT(a, n, NULL);
    uint64_t v = 0;
    if (n == 0 || (a[0] < '0' || a[0] > '9') || merkle__json_uint(&sub, &v) != MERKLE_OK ||
        sub.pos != n) {
        j->pos = at + 1;
        return merkle__json_fail(j, n && a[0] == '-' ? "negative number"
                                                     : "expected a non-negative integer");
    }
    *out = v;
    return MERKLE_OK;
}

merkle_status merkle__json_number_skip(merkle__json *j)
{
    size_t st = j->pos;
    if (j->pos < j->len && j->s[j->pos] == '-') j->pos++;
    size_t digits = 0;
    while (j->pos < j->len && ((j->s[j->pos] >= '0' && j->s[j->pos] <= '9') ||
                               j->s[j->pos] == '.' || j->s[j->pos] == 'e' || j->s[j->pos] == 'E' ||
                               j->s[j->pos] == '+' || j->s[j->pos] == '-')) {
        j->pos++;
        digits++;
    }
    if (!digits) {
        j->pos = st;
        return merkle__json_fail(j, "bad value");
    }
    return MERKLE_OK;
}

merkle_status merkle__json_skip(merkle__json *j, int depth)
{
    if (depth > 32) return merkle__json_fail(j, "nesting too deep");
    int c = merkle__json_peek(j);
    merkle_status s;
    const char *a;
    size_t n;
    switch (c) {
    case '"': return merkle__json_string(j, &a, &n);
    case 't': return merkle__json_literal(j, "true");
    case 'f': return merkle__json_literal(j, "false");
    case 'n': return merkle__json_literal(j, "null");
    case '[':
    case '{': {
        int obj = c == '{', more;
        if ((s = merkle__json_open(j, c, "expected a value", &more)) != MERKLE_OK) return s;
        while (more) {
            if (obj && (s = merkle__json_key(j, &a, &n)) != MERKLE_OK) return s;
            if ((s = merkle__json_skip(j, depth + 1)) != MERKLE_OK) return s;
            if ((s = merkle__json_next(j, obj ? '}' : ']', &more)) != MERKLE_OK) return s;
        }
        return MERKLE_OK;
    }
    default: return merkle__json_number_skip(j);
    }
}

/* A hex string into out[0..cap); *n = decoded length. */
merkle_status merkle__json_hex(merkle__json *j, uint8_t *out, size_t cap, size_t *n,
                               const char *what)
{
    const char *a = NULL;
    size_t len = 0;
    size_t at = j->pos;
    merkle_status s = merkle__json_string(j, &a, &len);
    if (s != MERKLE_OK) return s;
    if (len >= 2 && a[0] == '0' && (a[1] == 'x' || a[1] == 'X')) {
        a += 2;
        len -= 2;
    }
    if (len % 2) {
        j->pos = at;
        return merkle__fail(j->err, MERKLE_ERR_FORMAT, 1, at, "%s: %s is not hex (odd length)",
                            JDOC(j), what);
    }
    if (len / 2 > cap) {
        /* Valid hex that does not fit: verify it still is hex, then report the length. */
        for (size_t i = 0; i < len; i++) {
            char c = a[i];
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
                return merkle__fail(j->err, MERKLE_ERR_FORMAT, 1, at, "%s: %s is not hex", JDOC(j),
                                    what);
        }
        *n = len / 2;
        return MERKLE_ERR_BUFFER;
    }
    if (merkle_hex_decode(out, cap, n, a, len, NULL) != MERKLE_OK)
        return merkle__fail(j->err, MERKLE_ERR_FORMAT, 1, at, "%s: %s is not hex", JDOC(j), what);
    return MERKLE_OK;
}

/* Standard base64 (RFC 4648, padded, as Go's encoding/json writes []byte): the decoded length
** into *n, the bytes into out[0..cap) when they fit. 0, or -1 when a is not base64. */
static int base64_decode(uint8_t *out, size_t cap, size_t *n, const char *a, size_t len)
{
    if (len % 4) return -1;
    size_t k = 0;
    for (size_t i = 0; i < len; i += 4) {
        uint32_t v = 0;
        int pad = 0;
        for (int q = 0; q < 4; q++) {
            char c = a[i + (size_t)q];
            int d = c >= 'A' && c <= 'Z'   ? c - 'A'
                    : c >= 'a' && c <= 'z' ? c - 'a' + 26
                    : c >= '0' && c <= '9' ? c - '0' + 52
                    : c == '+'             ? 62
                    : c == '/'             ? 63
                                           : -1;
            if (c == '=' && i + 4 == len && q >= 2) {
                pad++;
                d = 0;
            } else if (d < 0 || pad) {
                return -1;
            }
            v = v << 6 | (uint32_t)d;
        }
        /* Non-canonical padding bits (Go's StdEncoding accepts them; so do we, as it does). */
        uint8_t three[3] = { (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
        for (int q = 0; q < 3 - pad; q++, k++)
            if (k < cap) out[k] = three[q];
    }
    *n = k;
    return 0;
}

merkle_status merkle__json_base64(merkle__json *j, uint8_t *out, size_t cap, size_t *n,
                                  const char *what)
{
    size_t at = j->pos;
    const char *a;
    size_t len;
    merkle_status s = merkle__json_string(j, &a, &len);
    if (s != MERKLE_OK) return s;
    if (base64_decode(out, cap, n, a, len) != 0)
        return merkle__fail(j->err, MERKLE_ERR_FORMAT, 1, at, "%s: %s is not base64", JDOC(j),
                            what);
    return *n > cap ? MERKLE_ERR_BUFFER : MERKLE_OK;
}

/* Hex (optional 0x) or, when it is not hex, standard base64 (CometBFT's []byte). */
static merkle_status json_hex_or_base64(merkle__json *j, uint8_t *out, size_t cap, size_t *n,
                                        const char *what)
{
    size_t at = j->pos;
    merkle_error saved = { 0 };
    if (j->err) saved = *j->err;
    merkle_status s = merkle__json_hex(j, out, cap, n, what);
    if (s != MERKLE_ERR_FORMAT) return s;
    /* Not hex: a base64 string? */
    j->pos = at;
    if (j->err) *j->err = saved;
    const char *a;
    size_t len;
    if ((s = merkle__json_string(j, &a, &len)) != MERKLE_OK) return s;
    if (len == 0 || base64_decode(out, cap, n, a, len) != 0)
        return merkle__fail(j->err, MERKLE_ERR_FORMAT, 1, at, "%s: %s is neither hex nor base64",
                            JDOC(j), what);
    return *n > cap ? MERKLE_ERR_BUFFER : MERKLE_OK;
}

/*
** A 32-byte hash; another length marks the proof unverifiable (not malformed). For a root
** (substitute != 0), a value of another length stands for itself: it becomes
** SHA-256(0x02 || bytes), which no leaf or node hash can equal, so it verifies only against
** the very same bytes -- transparency-dev compares two roots of equal sizes as byte strings.
*/
merkle_status merkle__json_hash(merkle__json *j, uint8_t out[MERKLE_HASH_LEN], const char *what,
                                int substitute)
{
    uint8_t raw[512];
    size_t n = 0;
    merkle_status s = json_hex_or_base64(j, raw, sizeof raw, &n, what);
    if (s == MERKLE_OK && n == MERKLE_HASH_LEN) {
        memcpy(out, raw, MERKLE_HASH_LEN);
        return MERKLE_OK;
    }
    if (s == MERKLE_OK && substitute) {
        static const uint8_t mark = 0x02;
        merkle_sha256 h;
        merkle_sha256_init(&h);
        merkle_sha256_update(&h, &mark, 1);
        merkle_sha256_update(&h, raw, n);
        merkle_sha256_final(&h, out);
        return MERKLE_OK;
    }
    if (s == MERKLE_ERR_BUFFER || s == MERKLE_OK) {
        if (!j->bad_len) {
            j->bad_len = MERKLE_ERR_VERIFY;
            snprintf(j->bad_len_msg, sizeof j->bad_len_msg, "%s has %zu bytes, not %d", what, n,
                     MERKLE_HASH_LEN);
        }
        memset(out, 0, MERKLE_HASH_LEN);
        return MERKLE_OK;
    }
    return s;
}

int merkle__json_key_is(const char *a, size_t n, const char *k)
{
    return strlen(k) == n && memcmp(a, k, n) == 0;
}

/* An array of hashes (kind 'h'), unsigned integers ('u') or booleans ('b'). */
merkle_status merkle__json_array(merkle__json *j, char kind, void **buf, size_t *n,
                                 const char *what)
{
    size_t cap = 0;
    int more;
    merkle_status s = merkle__json_open(j, '[', "expected an array", &more);
    if (s != MERKLE_OK) return s;
    size_t el = kind == 'h' ? MERKLE_HASH_LEN : kind == 'u' ? sizeof(uint64_t) : 1;
    while (more) {
        if (merkle__grow(buf, &cap, *n + 1, el) != 0)
            return merkle__fail(j->err, MERKLE_ERR_NOMEM, 1, j->pos, "out of memory");
        uint8_t *slot = (uint8_t *)*buf + *n * el;
        if (kind == 'h') {
            char w[48];
            snprintf(w, sizeof w, "%s[%zu]", what, *n);
            s = merkle__json_hash(j, slot, w, 0);
        } else if (kind == 'u') {
            uint64_t v;
            s = merkle__json_uint(j, &v);
            memcpy(slot, &v, sizeof v);
        } else if (merkle__json_peek(j) == 't') {
            s = merkle__json_literal(j, "true");
            *slot = 1;
        } else {
            s = merkle__json_literal(j, "false");
            *slot = 0;
        }
        if (s != MERKLE_OK) return s;
        (*n)++;
        if ((s = merkle__json_next(j, ']', &more)) != MERKLE_OK) return s;
    }
    return MERKLE_OK;
}

/* Unescape a JSON string's raw content a[0..n) into out (which has room for n bytes). */
size_t merkle__json_unescape(char *out, const char *a, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (a[i] != '\\') {
            out[k++] = a[i];
            continue;
        }
        char e = a[++i];
        switch (e) {
        case 'b': out[k++] = '\b'; break;
        case 'f': out[k++] = '\f'; break;
        case 'n': out[k++] = '\n'; break;
        case 'r': out[k++] = '\r'; break;
        case 't': out[k++] = '\t'; break;
        case 'u': {
            unsigned cp = 0;
            for (int d = 1; d <= 4; d++) {
                char h = a[i + (size_t)d];
                cp = cp * 16 + (unsigned)(h <= '9' ? h - '0' : (h | 32) - 'a' + 10);
            }
            i += 4;
            /* A surrogate pair. */
            if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < n && a[i + 1] == '\\' && a[i + 2] == 'u') {
                unsigned lo = 0;
                for (int d = 3; d <= 6; d++) {
                    char h = a[i + (size_t)d];
                    lo = lo * 16 + (unsigned)(h <= '9' ? h - '0' : (h | 32) - 'a' + 10);
                }
                if (lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                }
            }
            if (cp < 0x80)
                out[k++] = (char)cp;
            else if (cp < 0x800) {
                out[k++] = (char)(0xC0 | cp >> 6);
                out[k++] = (char)(0x80 | (cp & 63));
            } else if (cp < 0x10000) {
                out[k++] = (char)(0xE0 | cp >> 12);
                out[k++] = (char)(0x80 | (cp >> 6 & 63));
                out[k++] = (char)(0x80 | (cp & 63));
            } else {
                out[k++] = (char)(0xF0 | cp >> 18);
                out[k++] = (char)(0x80 | (cp >> 12 & 63));
                out[k++] = (char)(0x80 | (cp >> 6 & 63));
                out[k++] = (char)(0x80 | (cp & 63));
            }
            break;
        }
        default: out[k++] = e; break; /* " \ / */
        }
    }
    return k;
}
