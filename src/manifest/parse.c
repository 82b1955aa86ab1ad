/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Checksum-list lines: parsing with the exact rules of coreutils' md5sum/sha*sum/b2sum -c
** (GNU 9.x digest.c: split_3, bsd_split_3, filename_unescape), and formatting as they print.
*/
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/internal.h"
#include "manifest/manifest_impl.h"
#include "merkle/manifest.h"

static const struct {
    const char *name;
    const char *tag;
    size_t len;
} k_algs[] = {
    { NULL, NULL, 0 },          { "md5", "MD5", 16 },       { "sha1", "SHA1", 20 },
    { "sha256", "SHA256", 32 }, { "sha512", "SHA512", 64 }, { "blake2b", "BLAKE2b", 64 },
};

static int alg_valid(merkle_hash_alg alg)
{
    return alg >= MERKLE_HASH_MD5 && alg <= MERKLE_HASH_BLAKE2B;
}

merkle_status merkle_manifest_alg_from_name(merkle_hash_alg *out, const char *name)
{
    if (!out || !name) return MERKLE_ERR_ARG;
    for (int a = MERKLE_HASH_MD5; a <= MERKLE_HASH_BLAKE2B; a++) {
        if (strcasecmp(name, k_algs[a].name) == 0) {
            *out = (merkle_hash_alg)a;
            return MERKLE_OK;
        }
    }
    return MERKLE_ERR_ARG;
}

int merkle__manifest_alg_ok(merkle_hash_alg alg)
{
    return alg_valid(alg);
}

int merkle__manifest_len_ok(merkle_hash_alg alg, size_t len)
{
    if (!alg_valid(alg)) return 0;
    if (alg == MERKLE_HASH_BLAKE2B) return len >= 1 && len <= 64;
    return len == k_algs[alg].len;
}

void merkle_manifest_parser_init(merkle_manifest_parser *p, merkle_hash_alg alg,
                                 uint32_t digest_len)
{
    if (!p) return;
    p->alg = alg;
    p->digest_len = digest_len;
    p->bsd_reversed = -1;
    p->reject_dash = 0;
}

static int is_white(char c)
{
    return c == ' ' || c == '\t';
}

/* coreutils filename_unescape: "\\\\", "\\n", "\\r" only; a NUL or a lone trailing
** backslash is invalid. Unescapes s[0..n) in place and NUL-terminates. Returns new length or
** (size_t)-1. */
static size_t unescape(char *s, size_t n)
{
    char *dst = s;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\') {
            if (i == n - 1) return (size_t)-1;
            i++;
            if (s[i] == 'n')
                *dst++ = '\n';
            else if (s[i] == 'r')
                *dst++ = '\r';
            else if (s[i] == '\\')
                *dst++ = '\\';
            else
                return (size_t)-1;
        } else if (s[i] == '\0') {
            return (size_t)-1;
        } else {
            *dst++ = s[i];
        }
    }
    size_t len = (size_t)(dst - s);
    if (dst < s + n) *dst = '\0';
    return len;
}

/* take_hex: a digit pair decodes as k_hexhi[a] | k_hexlo[b]: the byte, plus 0x100 when a is
** a hex digit and 0x200 when b is one (non-digits are 0). */
static const uint16_t k_hexhi[256] = {
    ['0'] = 0x100, ['1'] = 0x110, ['2'] = 0x120, ['3'] = 0x130, ['4'] = 0x140, ['5'] = 0x150,
    ['6'] = 0x160, ['7'] = 0x170, ['8'] = 0x180, ['9'] = 0x190, ['a'] = 0x1a0, ['b'] = 0x1b0,
    ['c'] = 0x1c0, ['d'] = 0x1d0, ['e'] = 0x1e0, ['f'] = 0x1f0, ['A'] = 0x1a0, ['B'] = 0x1b0,
    ['C'] = 0x1c0, ['D'] = 0x1d0, ['E'] = 0x1e0, ['F'] = 0x1f0
};
static const uint16_t k_hexlo[256] = {
    ['0'] = 0x200, ['1'] = 0x201, ['2'] = 0x202, ['3'] = 0x203, ['4'] = 0x204, ['5'] = 0x205,
    ['6'] = 0x206, ['7'] = 0x207, ['8'] = 0x208, ['9'] = 0x209, ['a'] = 0x20a, ['b'] = 0x20b,
    ['c'] = 0x20c, ['d'] = 0x20d, ['e'] = 0x20e, ['f'] = 0x20f, ['A'] = 0x20a, ['B'] = 0x20b,
    ['C'] = 0x20c, ['D'] = 0x20d, ['E'] = 0x20e, ['F'] = 0x20f
};

/* Exactly hex_len (even) hex digits at s followed by the end of the line (NUL); avail is
** what the line holds from s on. Decodes into d (which may be written even when the digits
** are bad). Branch-free over the digits: this is the hot loop of parsing. */
static int take_hex(uint8_t *d, const char *s, size_t avail, size_t hex_len)
{
    if (avail < hex_len) return 0;
    unsigned ok = 0x300;
    for (size_t k = 0; k < hex_len; k += 2) {
        unsigned x = (unsigned)k_hexhi[(unsigned char)s[k]] | k_hexlo[(unsigned char)s[k + 1]];
        ok &= x;
        d[k / 2] = (uint8_t)x;
    }
    return ok == 0x300 && s[hex_len] == '\0';
}

static size_t count_hex(const char *s)
{
    size_t n = 0;
    while (merkle__hex_digit(s[n]) >= 0) n++;
    return n;
}

/* Parse the digits of BLAKE2b-LEN like xstrtoumax(base 0) without suffixes. */
static int parse_len(const char *s, size_t *adv, uintmax_t *val)
{
    const char *q = s;
    while (isspace((unsigned char)*q)) q++;
    if (*q == '-') return 0;
    errno = 0;
    char *end;
    uintmax_t v = strtoumax(s, &end, 0);
    if (end == s || errno == ERANGE) return 0;
    *adv = (size_t)(end - s);
    *val = v;
    return 1;
}

#define BAD()                                                                                      \
    return merkle__fail(err, MERKLE_ERR_FORMAT, line_no, 0,                                        \
                        "line %" PRIu64 ": improperly formatted checksum line", line_no)

merkle_status merkle_manifest_parse_line(merkle_manifest_entry *out, merkle_manifest_parser *p,
                                         char *line, size_t len, uint64_t line_no,
                                         merkle_error *err)
{
    if (!out || !p || (!line && len)) return MERKLE_ERR_ARG;
    memset(out, 0, sizeof *out);
    out->line = line_no;
    if (len > 0 && line[0] == '#') return MERKLE_OK;
    if (len > 0 && line[len - 1] == '\r') len--;
    if (len == 0) return MERKLE_OK;
    line[len] = '\0';

    size_t i = 0;
    while (is_white(line[i])) i++;
    int escaped = 0;
    if (line[i] == '\\') {
        i++;
        escaped = 1;
    }

    /* BSD tag line. */
    merkle_hash_alg alg = p->alg;
    for (int a = MERKLE_HASH_MD5; a <= MERKLE_HASH_BLAKE2B; a++) {
        if (p->alg != MERKLE_HASH_AUTO && p->alg != (merkle_hash_alg)a) continue;
        size_t tl = strlen(k_algs[a].tag);
        if (strncmp(line + i, k_algs[a].tag, tl) != 0) continue;
        size_t j = i + tl;
        size_t hex_len = 2 * k_algs[a].len;
        if (a == MERKLE_HASH_BLAKE2B) {
            if (p->digest_len) hex_len = 2 * (size_t)p->digest_len;
            if (line[j] == '-') {
                size_t adv;
                uintmax_t bits;
                j++;
                if (!parse_len(line + j, &adv, &bits) || bits == 0 || bits > 512 || bits % 8) BAD();
                j += adv;
                hex_len = (size_t)bits / 4;
            }
        }
        if (line[j] == ' ') j++;
        if (line[j] != '(') BAD();
        j++;
        /* bsd_split_3: the name ends at the last ')'. */
        char *name = line + j;
        size_t nlen = len - j;
        if (nlen == 0) BAD();
        size_t k = nlen - 1;
        while (k && name[k] != ')') k--;
        if (name[k] != ')') BAD();
        if (escaped && unescape(name, k) == (size_t)-1) BAD();
        name[k++] = '\0';
        while (is_white(name[k])) k++;
        if (name[k] != '=') BAD();
        k++;
        while (is_white(name[k])) k++;
        if (!take_hex(out->digest, name + k, len - (size_t)(name + k - line), hex_len)) BAD();
        size_t name_len = strlen(name); /* a NUL inside the line ends the name, as in C */
        if (p->reject_dash && strcmp(name, "-") == 0) BAD();
        out->name = name;
        out->name_len = name_len;
        out->alg = (merkle_hash_alg)a;
        out->digest_len = (uint32_t)(hex_len / 2);
        out->bsd = 1;
        return MERKLE_OK;
    }

    /* GNU line. */
    size_t hex_len;
    if (alg == MERKLE_HASH_AUTO) {
        hex_len = count_hex(line + i);
        switch (hex_len) {
        case 32: alg = MERKLE_HASH_MD5; break;
        case 40: alg = MERKLE_HASH_SHA1; break;
        case 64: alg = MERKLE_HASH_SHA256; break;
        case 128: alg = MERKLE_HASH_SHA512; break;
        default: BAD();
        }
        if (len - i < hex_len + 2 + (line[i] == '\\')) BAD();
    } else if (alg == MERKLE_HASH_BLAKE2B) {
        if (len - i < 4 + (size_t)(line[i] == '\\')) BAD();
        hex_len = count_hex(line + i);
        if (hex_len < 2 || hex_len % 2 || hex_len > 128) BAD();
    } else {
        if (!alg_valid(alg)) return MERKLE_ERR_ARG;
        hex_len = 2 * k_algs[alg].len;
        if (len - i < hex_len + 2 + (line[i] == '\\')) BAD();
    }
    char *hex = line + i;
    i += hex_len;
    if (!is_white(line[i])) BAD();
    line[i++] = '\0';
    if (!take_hex(out->digest, hex, len - (size_t)(hex - line), hex_len)) BAD();

    if (len - i == 1 || (line[i] != ' ' && line[i] != '*')) {
        if (p->bsd_reversed == 0) BAD();
        p->bsd_reversed = 1;
    } else if (p->bsd_reversed != 1) {
        p->bsd_reversed = 0;
        out->binary = line[i++] == '*';
    }
    char *name = line + i;
    if (escaped && unescape(name, len - i) == (size_t)-1) BAD();
    if (p->reject_dash && strcmp(name, "-") == 0) BAD();
    out->name = name;
    out->name_len = strlen(name);
    out->alg = alg;
    out->digest_len = (uint32_t)(hex_len / 2);
    return MERKLE_OK;
}

merkle_status merkle_manifest_format_line(char *out, size_t cap, size_t *out_len,
                                          merkle_hash_alg alg, const uint8_t *digest,
                                          size_t digest_len, const char *name, uint32_t flags)
{
    if (!out_len || !name || (!digest && digest_len) || !merkle__manifest_len_ok(alg, digest_len) ||
        (flags & ~(uint32_t)(MERKLE_MANIFEST_TAG | MERKLE_MANIFEST_BINARY | MERKLE_MANIFEST_ZERO)))
        return MERKLE_ERR_ARG;
    int zero = (flags & MERKLE_MANIFEST_ZERO) != 0;
    int esc = !zero && strpbrk(name, "\\\n\r") != NULL;
    size_t nlen = strlen(name);
    size_t need = 0;
    char tag[32];
    if (flags & MERKLE_MANIFEST_TAG) {
        if (alg == MERKLE_HASH_BLAKE2B && digest_len != 64)
            snprintf(tag, sizeof tag, "BLAKE2b-%zu", digest_len * 8);
        else
            snprintf(tag, sizeof tag, "%s", k_algs[alg].tag);
        need = strlen(tag) + 2;
    } else {
        need = 2;
    }
    need += (size_t)esc + 2 * digest_len + 1;
    if (esc) {
        for (size_t k = 0; k < nlen; k++) need += (strchr("\\\n\r", name[k]) && name[k]) ? 2u : 1u;
    } else {
        need += nlen;
    }
    if (flags & MERKLE_MANIFEST_TAG) need += 4; /* ") = " replaces the GNU separator */
    *out_len = need;
    if (!out || cap < need) return MERKLE_ERR_BUFFER;

    char *o = out;
    if (esc) *o++ = '\\';
    char hex[2 * MERKLE_MAX_DIGEST_LEN + 1];
    merkle_hex_encode(hex, digest, digest_len);
    if (flags & MERKLE_MANIFEST_TAG) {
        size_t tl = strlen(tag);
        memcpy(o, tag, tl);
        o += tl;
        *o++ = ' ';
        *o++ = '(';
    } else {
        memcpy(o, hex, 2 * digest_len);
        o += 2 * digest_len;
        *o++ = ' ';
        *o++ = (flags & MERKLE_MANIFEST_BINARY) ? '*' : ' ';
    }
    for (size_t k = 0; k < nlen; k++) {
        char c = name[k];
        if (esc && c == '\\') {
            *o++ = '\\';
            *o++ = '\\';
        } else if (esc && c == '\n') {
            *o++ = '\\';
            *o++ = 'n';
        } else if (esc && c == '\r') {
            *o++ = '\\';
            *o++ = 'r';
        } else {
            *o++ = c;
        }
    }
    if (flags & MERKLE_MANIFEST_TAG) {
        memcpy(o, ") = ", 4);
        o += 4;
        memcpy(o, hex, 2 * digest_len);
        o += 2 * digest_len;
    }
    *o++ = zero ? '\0' : '\n';
    (void)o;
    return MERKLE_OK;
}

merkle_status merkle_manifest_parse_alloc(merkle_manifest **out, merkle_manifest_parser *p,
                                          const void *text, size_t len, uint64_t first_line,
                                          merkle_error *error)
{
    if (!out) return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "NULL manifest");
    *out = NULL;
    if (!p || (!text && len) || first_line == 0)
        return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "NULL parser or text, or line 0");
    if (len > SIZE_MAX - 1) return merkle__fail(error, MERKLE_ERR_RANGE, 0, 0, "text too long");
    merkle_manifest *m = calloc(1, sizeof *m);
    char *st = m ? malloc(len + 1) : NULL;
    if (!st) {
        free(m);
        return merkle__fail(error, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    }
    if (len) memcpy(st, text, len);
    st[len] = '\0';
    m->storage = st;
    size_t cap = 0, bcap = 0;
    size_t pos = 0;
    uint64_t lines = 0;
    while (pos < len) {
        char *nl = memchr(st + pos, '\n', len - pos);
        size_t l = nl ? (size_t)(nl - (st + pos)) : len - pos;
        uint64_t line_no = first_line + lines++;
        merkle_manifest_entry e;
        merkle_status s = merkle_manifest_parse_line(&e, p, st + pos, l, line_no, NULL);
        pos += l + (nl != NULL);
        if (s == MERKLE_OK && !e.name) continue;
        if (s == MERKLE_OK) {
            if (merkle__grow(&m->entries, &cap, m->count + 1, sizeof *m->entries) != 0) goto nomem;
            m->entries[m->count++] = e;
        } else {
            if (merkle__grow(&m->bad_lines, &bcap, m->bad_count + 1, sizeof *m->bad_lines) != 0)
                goto nomem;
            m->bad_lines[m->bad_count++] = line_no;
        }
    }
    m->lines = lines;
    *out = m;
    return MERKLE_OK;
nomem:
    merkle_manifest_free(m);
    return merkle__fail(error, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
}

void merkle_manifest_free(merkle_manifest *m)
{
    if (!m) return;
    free(m->entries);
    free(m->bad_lines);
    free(m->storage);
    free(m);
}

size_t merkle_manifest_count(const merkle_manifest *m)
{
    return m ? m->count : 0;
}

const merkle_manifest_entry *merkle_manifest_entries(const merkle_manifest *m)
{
    return m ? m->entries : NULL;
}

const uint64_t *merkle_manifest_bad_lines(const merkle_manifest *m, size_t *count)
{
    if (count) *count = m ? m->bad_count : 0;
    return m ? m->bad_lines : NULL;
}

uint64_t merkle_manifest_lines(const merkle_manifest *m)
{
    return m ? m->lines : 0;
}
