/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Minimal recursive-descent JSON parser for test vectors.
*/
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *p, *end;
    int err;
} parser;

static void ws(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static int parse_value(parser *ps, json *out, int depth);

static void put_utf8(char *buf, size_t *n, unsigned cp)
{
    if (cp < 0x80) {
        buf[(*n)++] = (char)cp;
    } else if (cp < 0x800) {
        buf[(*n)++] = (char)(0xC0 | (cp >> 6));
        buf[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        buf[(*n)++] = (char)(0xE0 | (cp >> 12));
        buf[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        buf[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        buf[(*n)++] = (char)(0xF0 | (cp >> 18));
        buf[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        buf[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        buf[(*n)++] = (char)(0x80 | (cp & 0x3F));
    }
}

static int hex4(const char *p, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return 0;
        *v = *v * 16 + d;
    }
    return 1;
}

static int parse_string(parser *ps, char **out, size_t *out_len)
{
    if (ps->p >= ps->end || *ps->p != '"') return 0;
    ps->p++;
    const char *start = ps->p;
    size_t cap = 0;
    while (ps->p < ps->end && *ps->p != '"') {
        if (*ps->p == '\\') ps->p++;
        ps->p++;
        cap++;
    }
    if (ps->p >= ps->end) return 0;
    char *buf = malloc(cap * 4 + 1);
    size_t n = 0;
    for (const char *q = start; q < ps->p; q++) {
        if (*q != '\\') {
            buf[n++] = *q;
            continue;
        }
        q++;
        switch (*q) {
        case 'n': buf[n++] = '\n'; break;
        case 't': buf[n++] = '\t'; break;
        case 'r': buf[n++] = '\r'; break;
        case 'b': buf[n++] = '\b'; break;
        case 'f': buf[n++] = '\f'; break;
        case 'u': {
            unsigned cp;
            if (q + 4 >= ps->p || !hex4(q + 1, &cp)) {
                free(buf);
                return 0;
            }
            q += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && q + 6 < ps->p && q[1] == '\\' && q[2] == 'u') {
                unsigned lo;
                if (hex4(q + 3, &lo) && lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    q += 6;
                }
            }
            put_utf8(buf, &n, cp);
            break;
        }
        default: buf[n++] = *q; break;
        }
    }
    buf[n] = '\0';
    ps->p++; /* closing quote */
    *out = buf;
    *out_len = n;
    return 1;
}

static int parse_container(parser *ps, json *out, int depth, int is_obj)
{
    ps->p++; /* [ or { */
    size_t cap = 8, n = 0;
    out->items = calloc(cap, sizeof(json));
    if (is_obj) out->keys = calloc(cap, sizeof(char *));
    ws(ps);
    char close = is_obj ? '}' : ']';
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return 1;
    }
    for (;;) {
        if (n == cap) {
            cap *= 2;
            out->items = realloc(out->items, cap * sizeof(json));
            if (is_obj) out->keys = realloc(out->keys, cap * sizeof(char *));
        }
        memset(&out->items[n], 0, sizeof(json));
        ws(ps);
        if (is_obj) {
            size_t kl;
            if (!parse_string(ps, &out->keys[n], &kl)) return 0;
            ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') {
                free(out->keys[n]);
                return 0;
            }
            ps->p++;
        }
        if (!parse_value(ps, &out->items[n], depth + 1)) {
            if (is_obj) free(out->keys[n]);
        json_free_items:
            out->len = n;
            return 0;
        }
        n++;
        out->len = n;
        ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
            return 1;
        }
        goto json_free_items;
    }
}

static int parse_value(parser *ps, json *out, int depth)
{
    if (depth > 200) return 0;
    ws(ps);
    if (ps->p >= ps->end) return 0;
    char c = *ps->p;
    if (c == '{' || c == '[') {
        out->type = c == '{' ? JSON_OBJECT : JSON_ARRAY;
        return parse_container(ps, out, depth, c == '{');
    }
    if (c == '"') {
        out->type = JSON_STRING;
        return parse_string(ps, &out->str, &out->len);
    }
    if ((size_t)(ps->end - ps->p) >= 4 && memcmp(ps->p, "null", 4) == 0) {
        out->type = JSON_NULL;
        ps->p += 4;
        return 1;
    }
    if ((size_t)(ps->end - ps->p) >= 4 && memcmp(ps->p, "true", 4) == 0) {
        out->type = JSON_BOOL;
        out->boolean = 1;
        ps->p += 4;
        return 1;
    }
    if ((size_t)(ps->end - ps->p) >= 5 && memcmp(ps->p, "false", 5) == 0) {
        out->type = JSON_BOOL;
        ps->p += 5;
        return 1;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        char tmp[64];
        size_t n = 0;
        int frac = 0;
        while (ps->p < ps->end && n < sizeof tmp - 1 && strchr("+-0123456789.eE", *ps->p) != NULL) {
            if (*ps->p == '.' || *ps->p == 'e' || *ps->p == 'E') frac = 1;
            tmp[n++] = *ps->p++;
        }
        tmp[n] = '\0';
        out->type = JSON_NUMBER;
        out->number = strtod(tmp, NULL);
        out->integer = frac ? (long long)out->number : strtoll(tmp, NULL, 10);
        return 1;
    }
    return 0;
}

void json_free_inner(json *j);
void json_free_inner(json *j)
{
    if (!j) return;
    free(j->str);
    for (size_t i = 0; i < j->len && (j->type == JSON_ARRAY || j->type == JSON_OBJECT); i++) {
        json_free_inner(&j->items[i]);
        if (j->keys) free(j->keys[i]);
    }
    if (j->type == JSON_ARRAY || j->type == JSON_OBJECT) {
        free(j->items);
        free(j->keys);
    }
}

void json_free(json *j)
{
    json_free_inner(j);
    free(j);
}

json *json_parse(const char *text, size_t len)
{
    parser ps = { text, text + len, 0 };
    json *j = calloc(1, sizeof *j);
    if (!parse_value(&ps, j, 0)) {
        fprintf(stderr, "json: parse error at offset %zu\n", (size_t)(ps.p - text));
        json_free(j);
        return NULL;
    }
    return j;
}

json *json_parse_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "json: cannot open %s\n", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)sz + 1);
    size_t got = fread(buf, 1, (size_t)sz, f);
    fclose(f);
    json *j = json_parse(buf, got);
    free(buf);
    return j;
}

const json *json_get(const json *j, const char *key)
{
    if (!j || j->type != JSON_OBJECT) return NULL;
    for (size_t i = 0; i < j->len; i++)
        if (strcmp(j->keys[i], key) == 0) return &j->items[i];
    return NULL;
}

const char *json_get_str(const json *j, const char *key)
{
    const json *v = json_get(j, key);
    return v && v->type == JSON_STRING ? v->str : NULL;
}

const json *json_at(const json *j, size_t i)
{
    if (!j || j->type != JSON_ARRAY || i >= j->len) return NULL;
    return &j->items[i];
}
