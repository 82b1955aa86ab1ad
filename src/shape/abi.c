/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Solidity ABI encoding of one row of values (abi.encode(types, values)), for the leaves of
** @openzeppelin/merkle-tree's StandardMerkleTree: keccak256(keccak256(abi.encode(...))).
**
** Types: address, bool, uintN / intN (N = 8..256, a multiple of 8; uint = uint256),
** bytesN (N = 1..32), and the dynamic bytes and string; arrays and tuples of them are
** encoded by the recursive code further down ("arrays and tuples"). Values, comma-separated:
*address and
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

static int split_row_(value *vals, size_t cap, size_t *nv, const char *row, size_t len)
{
    size_t n = 0, i = 0;
    for (;;) {
        while (i < len && (row[i] == ' ' || row[i] == '\t')) i++;
        if (n == cap) return -1;
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

/* split_row_ into vals[0..cap) with every value freed on failure (*nv counts the values made so
 * far); more than cap values is a failure. */
static int split_row(value *vals, size_t cap, size_t *nv, const char *row, size_t len)
{
    *nv = 0;
    if (split_row_(vals, cap, nv, row, len) == 0) return 0;
    for (size_t i = 0; i < *nv; i++) free(vals[i].s);
    *nv = 0;
    return -1;
}

/* Parse a flat type list into f (f NULL: only the failure). */
static merkle_status types_or_fail(field *f, size_t *nf, const char *types, merkle_error *err)
{
    if (f && parse_types(f, nf, types) == 0) return MERKLE_OK;
    return merkle__fail(err, MERKLE_ERR_ARG, 0, 0,
                        "unsupported ABI type list '%.80s' (address, bool, uintN, intN, bytesN, "
                        "bytes, string; arrays T[] and T[k], tuples (T1,T2,...))",
                        types);
}

/* abi.encode of one row with the types already parsed. */
static merkle_status encode_row(uint8_t *out, size_t cap, size_t *out_len, const field *f,
                                size_t nf, const char *row, size_t row_len, merkle_error *err)
{
    value v[MAX_FIELDS];
    size_t nv = 0;
    if (split_row(v, MAX_FIELDS, &nv, row ? row : "", row_len) != 0)
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

/* ------------------------------------------------------------------ arrays and tuples */

/*
** Type lists with arrays (T[], T[k]) and tuples ((T1,T2,...)), nested to any depth, as
** @metamask/abi-utils encodes them for StandardMerkleTree (issue 26 item 5). The list is
** parsed into a tree of nodes; a row's values for an array or tuple are written in brackets,
** "[v1,v2]" or "(v1,v2)" (either bracket for either), nested as the types are. Encoding
** follows the Solidity ABI: a tuple (the row itself, a T[k], the elements of a T[]) puts
** each static member in its head and an offset in the head for each dynamic member, whose
** encoding follows in the tail; a T[] is its length word, then its elements as a tuple.
*/
#define MAX_NODES 256
#define MAX_ITEMS 4096 /* values of one array or tuple */

typedef struct anode {
    field f;      /* elementary: the field; f.kind 'T' tuple, 'A' array */
    int elem;     /* 'A': the element node */
    long count;   /* 'A': the fixed length, or -1 for T[] */
    int kids[64]; /* 'T': the member nodes */
    int nkids;
    int dynamic;  /* needs an offset in its parent's head */
    size_t ssize; /* a static node's encoded size */
} anode;

typedef struct atypes {
    anode n[MAX_NODES];
    int nn;
} atypes;

static int nested_types(const char *types)
{
    return types && (strchr(types, '[') || strchr(types, '('));
}

static int elem_field(field *x, const char *a, size_t len)
{
    char t[16];
    if (len == 0 || len >= sizeof t) return -1;
    memcpy(t, a, len);
    t[len] = 0;
    size_t one = 0;
    return parse_types(x, &one, t) == 0 && one == 1 ? 0 : -1;
}

/* One type at *p (advanced): its node index, or -1. */
static int atype_parse(atypes *T, const char **p, int depth)
{
    while (**p == ' ' || **p == '\t') (*p)++;
    if (depth > 32 || T->nn >= MAX_NODES) return -1;
    int me = T->nn++;
    anode *x = &T->n[me];
    memset(x, 0, sizeof *x);
    if (**p == '(') {
        (*p)++;
        x->f.kind = 'T';
        for (;;) {
            if (x->nkids == 64) return -1;
            int k = atype_parse(T, p, depth + 1);
            if (k < 0) return -1;
            x = &T->n[me];
            x->kids[x->nkids++] = k;
            while (**p == ' ' || **p == '\t') (*p)++;
            if (**p == ',') {
                (*p)++;
                continue;
            }
            if (**p != ')') return -1;
            (*p)++;
            break;
        }
    } else {
        const char *a = *p;
        while (isalnum((unsigned char)**p)) (*p)++;
        if (elem_field(&x->f, a, (size_t)(*p - a)) != 0) return -1;
    }
    while (**p == ' ' || **p == '\t') (*p)++;
    while (**p == '[') { /* T[] or T[k]: wraps what came before */
        (*p)++;
        long count = -1;
        if (isdigit((unsigned char)**p)) {
            char *end;
            unsigned long v = strtoul(*p, &end, 10);
            if (v == 0 || v > MAX_ITEMS) return -1;
            count = (long)v;
            *p = end;
        }
        if (**p != ']' || T->nn >= MAX_NODES) return -1;
        (*p)++;
        int inner = T->nn++;
        T->n[inner] = T->n[me]; /* the element moves; me becomes the array */
        memset(&T->n[me], 0, sizeof T->n[me]);
        T->n[me].f.kind = 'A';
        T->n[me].elem = inner;
        T->n[me].count = count;
        while (**p == ' ' || **p == '\t') (*p)++;
    }
    return me;
}

static void atype_sizes(atypes *T, int k)
{
    anode *x = &T->n[k];
    if (x->f.kind == 'T') {
        x->dynamic = 0;
        x->ssize = 0;
        for (int i = 0; i < x->nkids; i++) {
            atype_sizes(T, x->kids[i]);
            x->dynamic |= T->n[x->kids[i]].dynamic;
            x->ssize += T->n[x->kids[i]].ssize;
        }
    } else if (x->f.kind == 'A') {
        atype_sizes(T, x->elem);
        x->dynamic = x->count < 0 || T->n[x->elem].dynamic;
        x->ssize = x->count > 0 ? (size_t)x->count * T->n[x->elem].ssize : 0;
    } else {
        x->dynamic = x->f.kind == 'B' || x->f.kind == 's';
        x->ssize = 32;
    }
}

/* The whole list "T1,T2,..." as a tuple node (index 0). 0 or -1. */
static int atypes_parse(atypes *T, const char *types)
{
    T->nn = 1;
    anode *root = &T->n[0];
    memset(root, 0, sizeof *root);
    root->f.kind = 'T';
    const char *p = types;
    for (;;) {
        if (T->n[0].nkids == 64) return -1;
        int k = atype_parse(T, &p, 0);
        if (k < 0) return -1;
        T->n[0].kids[T->n[0].nkids++] = k;
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p) return -1;
        break;
    }
    atype_sizes(T, 0);
    return 0;
}

/* A growing byte buffer. */
typedef struct gbuf {
    uint8_t *p;
    size_t n, cap;
    int oom;
} gbuf;

static void gput(gbuf *b, const void *d, size_t n)
{
    if (b->oom || n == 0) return;
    if (b->n + n > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->n + n) nc *= 2;
        uint8_t *np = realloc(b->p, nc);
        if (!np) {
            b->oom = 1;
            return;
        }
        b->p = np;
        b->cap = nc;
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void gword(gbuf *b, uint64_t v)
{
    uint8_t w[32] = { 0 };
    merkle__store_be64(w + 24, v);
    gput(b, w, 32);
}

/* The items of a bracketed or bare list s[0..len) split at top-level commas (quotes and
** brackets respected), each trimmed. 0 or -1. */
static int split_items(const char **item, size_t *ilen, size_t *n, const char *s, size_t len)
{
    *n = 0;
    size_t i = 0, a = 0;
    int depth = 0, q = 0;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
    while (a < len && (s[a] == ' ' || s[a] == '\t')) a++;
    if (a == len) return 0; /* no items */
    for (i = a;; i++) {
        if (i == len || (!q && depth == 0 && s[i] == ',')) {
            size_t x = a, y = i;
            while (x < y && (s[x] == ' ' || s[x] == '\t')) x++;
            while (y > x && (s[y - 1] == ' ' || s[y - 1] == '\t')) y--;
            if (*n == MAX_ITEMS || x == y) return -1;
            item[*n] = s + x;
            ilen[(*n)++] = y - x;
            if (i == len) break;
            a = i + 1;
            continue;
        }
        char c = s[i];
        if (q) {
            if (c == '\\')
                i++;
            else if (c == '"')
                q = 0;
        } else if (c == '"') {
            q = 1;
        } else if (c == '[' || c == '(') {
            depth++;
        } else if (c == ']' || c == ')') {
            if (--depth < 0) return -1;
        }
        if (i >= len) return -1;
    }
    return q || depth ? -1 : 0;
}

static merkle_status anode_enc(const atypes *T, int k, const char *s, size_t len, gbuf *out,
                               merkle_error *err, int depth);

/* The members kids[0..nk) with values item[0..nk) as a tuple: heads, then tails. */
static merkle_status tuple_enc(const atypes *T, const int *kids, int same, size_t nk,
                               const char **item, const size_t *ilen, gbuf *out, merkle_error *err,
                               int depth)
{
    size_t head = 0;
    for (size_t i = 0; i < nk; i++) {
        const anode *x = &T->n[same >= 0 ? same : kids[i]];
        head += x->dynamic ? 32 : x->ssize;
    }
    gbuf tail = { 0 };
    merkle_status st = MERKLE_OK;
    for (size_t i = 0; i < nk && st == MERKLE_OK; i++) {
        int kk = same >= 0 ? same : kids[i];
        if (T->n[kk].dynamic) {
            gword(out, head + tail.n);
            st = anode_enc(T, kk, item[i], ilen[i], &tail, err, depth + 1);
        } else {
            st = anode_enc(T, kk, item[i], ilen[i], out, err, depth + 1);
        }
    }
    if (st == MERKLE_OK) gput(out, tail.p, tail.n);
    if (tail.oom) out->oom = 1;
    free(tail.p);
    return st;
}

static merkle_status anode_enc(const atypes *T, int k, const char *s, size_t len, gbuf *out,
                               merkle_error *err, int depth)
{
    const anode *x = &T->n[k];
    if (x->f.kind == 'T' || x->f.kind == 'A') {
        if (depth > 0) { /* a nested value is bracketed */
            if (len < 2 || (s[0] != '[' && s[0] != '(') || (s[len - 1] != ']' && s[len - 1] != ')'))
                return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 0,
                                    "'%.*s': an array or tuple value is written [v1,v2,...]",
                                    (int)(len < 60 ? len : 60), s);
            s++;
            len -= 2;
        }
        const char **item = malloc(MAX_ITEMS * sizeof *item);
        size_t *ilen = malloc(MAX_ITEMS * sizeof *ilen), n = 0;
        merkle_status st = MERKLE_OK;
        if (!item || !ilen)
            st = merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
        else if (split_items(item, ilen, &n, s, len) != 0)
            st = merkle__fail(err, MERKLE_ERR_FORMAT, 0, 0, "malformed value list '%.*s'",
                              (int)(len < 60 ? len : 60), s);
        else if (x->f.kind == 'T' && n != (size_t)x->nkids)
            st = merkle__fail(err, MERKLE_ERR_FORMAT, 0, 0, "%zu values for %d types", n, x->nkids);
        else if (x->f.kind == 'A' && x->count >= 0 && n != (size_t)x->count)
            st = merkle__fail(err, MERKLE_ERR_FORMAT, 0, 0, "%zu values for an array of %ld", n,
                              x->count);
        if (st == MERKLE_OK) {
            if (x->f.kind == 'A' && x->count < 0) gword(out, n);
            st = tuple_enc(T, x->kids, x->f.kind == 'A' ? x->elem : -1, n, item, ilen, out, err,
                           depth);
        }
        free(item);
        free(ilen);
        return st;
    }
    /* An elementary value: unquote, then as encode_row does. */
    value v[1];
    size_t nv = 0;
    if (split_row(v, 1, &nv, s, len) != 0 || nv != 1) {
        for (size_t i = 0; i < nv; i++) free(v[i].s);
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 0, "malformed value '%.*s'",
                            (int)(len < 60 ? len : 60), s);
    }
    field f1 = x->f;
    uint8_t enc[1024];
    size_t el = 0;
    char *row = malloc(v[0].n * 2 + 3);
    merkle_status st = MERKLE_OK;
    if (!row) {
        st = merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    } else {
        /* Re-quote so that encode_row sees one value whatever it holds. */
        size_t m = 0;
        row[m++] = '"';
        for (size_t i = 0; i < v[0].n; i++) {
            if (v[0].s[i] == '"' || v[0].s[i] == '\\') row[m++] = '\\';
            row[m++] = v[0].s[i];
        }
        row[m++] = '"';
        st = encode_row(enc, sizeof enc, &el, &f1, 1, row, m, err);
        uint8_t *big = NULL;
        if (st == MERKLE_ERR_BUFFER) {
            big = malloc(el);
            st = big ? encode_row(big, el, &el, &f1, 1, row, m, err)
                     : merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
        }
        if (st == MERKLE_OK) {
            const uint8_t *e = big ? big : enc;
            /* encode_row wrote a one-member tuple: a dynamic value's offset word first. */
            if (x->dynamic)
                gput(out, e + 32, el - 32);
            else
                gput(out, e, el);
        }
        free(big);
        free(row);
    }
    free(v[0].s);
    return st;
}

/* abi.encode of a row under nested types into a malloc'd buffer. */
static merkle_status nested_encode(uint8_t **out, size_t *out_len, const char *types,
                                   const char *row, size_t row_len, merkle_error *err)
{
    atypes *T = malloc(sizeof *T);
    if (!T) return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    merkle_status st = MERKLE_OK;
    if (atypes_parse(T, types) != 0) st = types_or_fail(NULL, NULL, types, err);
    gbuf b = { 0 };
    if (st == MERKLE_OK) st = anode_enc(T, 0, row ? row : "", row_len, &b, err, 0);
    if (st == MERKLE_OK && b.oom) st = merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    free(T);
    if (st != MERKLE_OK) {
        free(b.p);
        return st;
    }
    *out = b.p ? b.p : malloc(1);
    *out_len = b.n;
    return *out ? MERKLE_OK : MERKLE_ERR_NOMEM;
}

/* A value of node k as JSON.stringify(value, null, 2) writes it at this indentation: bools
** as true/false, other elementary values as strings, arrays and tuples as arrays. */
static merkle_status nested_json(merkle__sink *o, const atypes *T, int k, const char *s, size_t len,
                                 unsigned indent, int depth, merkle_error *err)
{
    const anode *x = &T->n[k];
    if (x->f.kind == 'T' || x->f.kind == 'A') {
        if (depth > 0) {
            if (len < 2) return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 0, "malformed value");
            s++;
            len -= 2;
        }
        const char **item = malloc(MAX_ITEMS * sizeof *item);
        size_t *ilen = malloc(MAX_ITEMS * sizeof *ilen), n = 0;
        merkle_status st = MERKLE_OK;
        if (!item || !ilen)
            st = merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
        else if (split_items(item, ilen, &n, s, len) != 0)
            st = merkle__fail(err, MERKLE_ERR_FORMAT, 0, 0, "malformed value list");
        if (st == MERKLE_OK && n == 0) merkle__sink_puts(o, "[]");
        for (size_t i = 0; st == MERKLE_OK && i < n; i++) {
            merkle__sink_puts(o, i ? ",\n" : "[\n");
            for (unsigned sp = 0; sp < indent + 2; sp++) merkle__sink_put(o, " ", 1);
            int kk = x->f.kind == 'A' ? x->elem : x->kids[i < (size_t)x->nkids ? i : 0];
            st = nested_json(o, T, kk, item[i], ilen[i], indent + 2, depth + 1, err);
        }
        if (st == MERKLE_OK && n) {
            merkle__sink_puts(o, "\n");
            for (unsigned sp = 0; sp < indent; sp++) merkle__sink_put(o, " ", 1);
            merkle__sink_puts(o, "]");
        }
        free(item);
        free(ilen);
        return st;
    }
    value v[1];
    size_t nv = 0;
    if (split_row(v, 1, &nv, s, len) != 0 || nv != 1) {
        for (size_t i = 0; i < nv; i++) free(v[i].s);
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 0, "malformed value");
    }
    if (x->f.kind == 'b')
        merkle__sink_puts(o, !strcmp(v[0].s, "true") ? "true" : "false");
    else
        merkle__json_string_put(o, v[0].s, v[0].n);
    free(v[0].s);
    return MERKLE_OK;
}

/* keccak256(keccak256(abi.encode(row))) under nested types. */
static merkle_status nested_leaf(uint8_t out[MERKLE_HASH_LEN], const char *types, const char *row,
                                 size_t row_len, merkle_error *err)
{
    uint8_t *b = NULL;
    size_t bl = 0;
    merkle_status st = nested_encode(&b, &bl, types, row, row_len, err);
    if (st == MERKLE_OK) {
        uint8_t h[32];
        merkle_keccak256_hash(h, b, bl);
        merkle_keccak256_hash(out, h, 32);
    }
    free(b);
    return st;
}

merkle_status merkle_shape_abi_encode(uint8_t *out, size_t cap, size_t *out_len, const char *types,
                                      const char *row, size_t row_len, merkle_error *err)
{
    if (!out_len || !types || (!row && row_len) || (!out && cap))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    if (nested_types(types)) {
        uint8_t *b = NULL;
        size_t bl = 0;
        merkle_status ns = nested_encode(&b, &bl, types, row, row_len, err);
        if (ns == MERKLE_OK) {
            if (bl && bl <= cap) memcpy(out, b, bl);
            *out_len = bl;
            ns = bl <= cap ? MERKLE_OK : MERKLE_ERR_BUFFER;
        }
        free(b);
        return ns;
    }
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
    if (nested_types(types)) return nested_leaf(out, types, row, row_len, err);
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
    if (nested_types(types)) { /* one row at a time, the list checked first */
        atypes *T = malloc(sizeof *T);
        int nomem = !T, bad = nomem || atypes_parse(T, types) != 0;
        free(T);
        if (bad)
            return nomem ? merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory")
                         : types_or_fail(NULL, NULL, types, err);
        for (size_t i = 0; i < n; i++) {
            merkle_status ns =
                !rows[i] && lens[i]
                    ? merkle__fail(err, MERKLE_ERR_ARG, i + 1, 0, "NULL row")
                    : nested_leaf(out[i], types, rows[i] ? rows[i] : "", lens[i], err);
            if (ns != MERKLE_OK) {
                if (err) err->line = i + 1;
                return ns;
            }
        }
        return MERKLE_OK;
    }
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
    atypes *T = NULL;
    if (types && nested_types(types)) {
        T = malloc(sizeof *T);
        if (!T) return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
        if (atypes_parse(T, types) != 0) {
            free(T);
            return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "unsupported ABI type list");
        }
        nf = (size_t)T->n[0].nkids;
    } else if (types && parse_types(f, &nf, types) != 0) {
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "unsupported ABI type list");
    }
    sout o = { out, cap, 0 };
    merkle__sink_puts(&o, types ? "{\n  \"format\": \"standard-v1\",\n  \"leafEncoding\": ["
                                : "{\n  \"format\": \"simple-v1\",\n");
    if (types) {
        /* The type names as given, trimmed. */
        const char *p = types;
        for (size_t i = 0; i < nf; i++) {
            while (*p == ' ' || *p == '\t') p++;
            const char *a = p;
            int depth = 0; /* a tuple type holds commas */
            while (*p && (*p != ',' || depth > 0)) {
                depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
                p++;
            }
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
        } else if (T) {
            st = nested_json(&o, T, 0, rows[i], row_lens[i], 6, 0, err);
            if (st != MERKLE_OK && err) err->line = i + 1;
        } else {
            value v[MAX_FIELDS];
            size_t nv;
            if (split_row(v, MAX_FIELDS, &nv, rows[i], row_lens[i]) != 0 || nv != nf) {
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
    free(T);
    if (st != MERKLE_OK) return st;
    merkle__sink_puts(&o, "\n  ]\n}\n");
    merkle__sink_put(&o, "", 1);
    *out_len = o.len;
    return o.len <= cap ? MERKLE_OK : MERKLE_ERR_BUFFER;
}
