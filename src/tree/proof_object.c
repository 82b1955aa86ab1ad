/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Proof objects: verification with reasons, the binary encoding and its decoder, the JSON
** rendering and its parser. Decoders never trust a length or a count before checking it
** against what is left of the input.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/shape.h"
#include "tree/proof_impl.h"

#define HDR_LEN 43u
static const uint8_t k_magic[4] = { 'M', 'R', 'K', 'P' };
#define KNOWN_FLAGS                                                                                \
    (MERKLE_PROOF_HAS_ROOT | MERKLE_PROOF_HAS_OLD_ROOT | MERKLE_PROOF_HAS_LEAF_HASH |              \
     MERKLE_PROOF_HAS_LEAF)

typedef unsigned long long ull;

static const char *kind_name(merkle_proof_kind k)
{
    switch (k) {
    case MERKLE_PROOF_INCLUSION: return "inclusion";
    case MERKLE_PROOF_CONSISTENCY: return "consistency";
    case MERKLE_PROOF_RANGE: return "range";
    }
    return NULL;
}

/* The binary format's hash byte (docs/formats.md): 1 SHA-256, 2 BLAKE2b-256, 7 Keccak-256,
** fixed by the format, independent of the merkle_hash_alg values. 0 for none. */
static uint8_t hash_to_wire(merkle_hash_alg h)
{
    switch (h) {
    case MERKLE_HASH_SHA256: return 1;
    case MERKLE_HASH_BLAKE2B_256: return 2;
    case MERKLE_HASH_KECCAK256: return 7;
    }
    return 0;
}

static int hash_from_wire(uint8_t b, merkle_hash_alg *h)
{
    switch (b) {
    case 1: *h = MERKLE_HASH_SHA256; return 1;
    case 2: *h = MERKLE_HASH_BLAKE2B_256; return 1;
    case 7: *h = MERKLE_HASH_KECCAK256; return 1;
    default: return 0;
    }
}

/* ------------------------------------------------------------------ verification */

/*
** Inclusion proofs of the other shapes: bitcoin (index in a tree of tree_size txids; the
** branch length must be ceil(log2 tree_size)), ssz (index = generalized index), openzeppelin
** (index = position in the tree array; pairs are sorted, so only the hashes count),
** bittorrent-v2 (index = generalized index, as ssz).
*/
static merkle_status shaped_verify(const merkle_proof *p, const uint8_t *rt,
                                   const uint8_t *leaf_hash, merkle_error *err)
{
    merkle_shape sh;
    if (merkle_shape_init(&sh, MERKLE_SHAPE_VERSION, p->profile) != MERKLE_OK)
        return merkle__fail(err, MERKLE_ERR_UNSUPPORTED, 0, 0, "no proofs for profile %s",
                            merkle_profile_name(p->profile));
    sh.hash = p->hash;
    if (p->kind != MERKLE_PROOF_INCLUSION)
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0, "profile %s has inclusion proofs only",
                            merkle_profile_name(p->profile));
    const uint8_t *lh = leaf_hash                                 ? leaf_hash
                        : (p->flags & MERKLE_PROOF_HAS_LEAF_HASH) ? p->leaf_hash
                                                                  : NULL;
    if (!lh) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "no leaf hash to verify");
    uint64_t pos = p->index;
    if (p->profile == MERKLE_PROFILE_BITCOIN) {
        unsigned depth;
        if (p->index >= p->tree_size)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "leaf index %llu is out of range for tree size %llu", (ull)p->index,
                                (ull)p->tree_size);
        (void)merkle_shape_depth(&depth, &sh, p->tree_size);
        if (p->path_len != depth)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "branch has %zu hashes; a tree of %llu needs %u", p->path_len,
                                (ull)p->tree_size, depth);
        pos = ((uint64_t)1 << depth) + p->index;
    }
    return merkle_shape_verify(&sh, rt, pos, lh, (const uint8_t(*)[MERKLE_HASH_LEN])p->path,
                               p->path_len, err);
}

merkle_status merkle_proof_verify(const merkle_proof *p, const uint8_t *root,
                                  const uint8_t *old_root, const uint8_t *leaf_hash,
                                  const uint8_t (*leaf_hashes)[MERKLE_HASH_LEN], merkle_error *err)
{
    if (!p) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "no proof");
    if (!merkle_hash_alg_name(p->hash) || !kind_name(p->kind) ||
        p->path_len > MERKLE_PROOF_MAX_PATH)
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid proof object");
    const uint8_t *rt = root ? root : (p->flags & MERKLE_PROOF_HAS_ROOT) ? p->root : NULL;
    if (!rt) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "no root to verify against");
    const uint8_t(*path)[MERKLE_HASH_LEN] = (const uint8_t(*)[MERKLE_HASH_LEN])p->path;
    uint64_t n = p->tree_size;
    merkle_status s;
    if (!merkle__profile_classic(p->profile)) return shaped_verify(p, rt, leaf_hash, err);
    switch (p->kind) {
    case MERKLE_PROOF_INCLUSION: {
        const uint8_t *lh = leaf_hash                                 ? leaf_hash
                            : (p->flags & MERKLE_PROOF_HAS_LEAF_HASH) ? p->leaf_hash
                                                                      : NULL;
        if (!lh) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "no leaf hash to verify");
        if (p->index >= n)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "leaf index %llu is out of range for tree size %llu", (ull)p->index,
                                (ull)n);
        size_t want = merkle_proof_inclusion_path_len(p->index, n);
        if (p->path_len != want)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "path has %zu hashes; leaf %llu of a tree of %llu needs %zu",
                                p->path_len, (ull)p->index, (ull)n, want);
        s = merkle_proof_inclusion_verify(p->hash, rt, n, p->index, lh, path, p->path_len);
        if (s == MERKLE_ERR_VERIFY)
            return merkle__fail(err, s, 0, 0,
                                "root mismatch: the leaf and path do not give the root");
        return s == MERKLE_OK ? s : merkle__fail(err, s, 0, 0, "%s", merkle_strerror(s));
    }
    case MERKLE_PROOF_CONSISTENCY: {
        const uint8_t *ort = old_root                                 ? old_root
                             : (p->flags & MERKLE_PROOF_HAS_OLD_ROOT) ? p->old_root
                                                                      : NULL;
        if (!ort) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "no old root to verify against");
        uint64_t m = p->index;
        if (m == 0)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "consistency proof from an empty tree is meaningless");
        if (m > n)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "old size %llu is larger than new size %llu", (ull)m, (ull)n);
        size_t want = merkle_proof_consistency_path_len(m, n);
        if (p->path_len != want)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "path has %zu hashes; sizes %llu -> %llu need %zu", p->path_len,
                                (ull)m, (ull)n, want);
        s = merkle_proof_consistency_verify(p->hash, ort, rt, m, n, path, p->path_len);
        if (s == MERKLE_ERR_VERIFY)
            return merkle__fail(err, s, 0, 0,
                                "root mismatch: the path does not link the two roots");
        return s == MERKLE_OK ? s : merkle__fail(err, s, 0, 0, "%s", merkle_strerror(s));
    }
    case MERKLE_PROOF_RANGE: {
        if (p->index >= p->end || p->end > n)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "range [%llu, %llu) is not a non-empty range of a tree of %llu",
                                (ull)p->index, (ull)p->end, (ull)n);
        if (!leaf_hashes)
            return merkle__fail(err, MERKLE_ERR_ARG, 0, 0,
                                "a range proof needs the range's leaves");
        size_t want = merkle_proof_range_path_len(p->index, p->end, n);
        if (p->path_len != want)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "path has %zu hashes; range [%llu, %llu) of %llu needs %zu",
                                p->path_len, (ull)p->index, (ull)p->end, (ull)n, want);
        s = merkle_proof_range_verify(p->hash, rt, n, p->index, p->end, leaf_hashes, path,
                                      p->path_len);
        if (s == MERKLE_ERR_VERIFY)
            return merkle__fail(err, s, 0, 0,
                                "root mismatch: the leaves and path do not give the root");
        return s == MERKLE_OK ? s : merkle__fail(err, s, 0, 0, "%s", merkle_strerror(s));
    }
    }
    return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid proof kind");
}

/* ------------------------------------------------------------------ binary */

static uint64_t load_be64(const uint8_t *b)
{
    return ((uint64_t)merkle__load_be32(b) << 32) | merkle__load_be32(b + 4);
}

merkle_status merkle_proof_encode(uint8_t *out, size_t cap, size_t *out_len, const merkle_proof *p,
                                  const uint8_t *leaf, size_t leaf_len)
{
    if (!out_len || !p || (!out && cap) || (!leaf && leaf_len)) return MERKLE_ERR_ARG;
    if (!kind_name(p->kind) || !merkle_profile_name(p->profile) || !merkle_hash_alg_name(p->hash) ||
        p->path_len > MERKLE_PROOF_MAX_PATH || (p->flags & ~(uint32_t)KNOWN_FLAGS) ||
        leaf_len > MERKLE_PROOF_MAX_LEAF)
        return MERKLE_ERR_ARG;
    uint32_t flags = (p->flags & ~MERKLE_PROOF_HAS_LEAF) | (leaf ? MERKLE_PROOF_HAS_LEAF : 0u);
    size_t need = HDR_LEN + p->path_len * MERKLE_HASH_LEN;
    if (flags & MERKLE_PROOF_HAS_ROOT) need += MERKLE_HASH_LEN;
    if (flags & MERKLE_PROOF_HAS_OLD_ROOT) need += MERKLE_HASH_LEN;
    if (flags & MERKLE_PROOF_HAS_LEAF_HASH) need += MERKLE_HASH_LEN;
    if (flags & MERKLE_PROOF_HAS_LEAF) need += 4 + leaf_len;
    *out_len = need;
    if (cap < need) return MERKLE_ERR_BUFFER;
    MERKLE_ASSERT(out); /* cap >= need >= HDR_LEN (the lengths are bounded above) */
    uint8_t *w = out;
    memcpy(w, k_magic, 4);
    w[4] = (uint8_t)MERKLE_PROOF_VERSION;
    w[5] = (uint8_t)p->kind;
    w[6] = (uint8_t)p->profile;
    w[7] = hash_to_wire(p->hash);
    w[8] = (uint8_t)flags;
    merkle__store_be64(w + 9, p->tree_size);
    merkle__store_be64(w + 17, p->index);
    merkle__store_be64(w + 25, p->end);
    merkle__store_be64(w + 33, p->leaf_size);
    w[41] = (uint8_t)(p->path_len >> 8);
    w[42] = (uint8_t)p->path_len;
    w += HDR_LEN;
    if (flags & MERKLE_PROOF_HAS_ROOT)
        w = (uint8_t *)memcpy(w, p->root, MERKLE_HASH_LEN) + MERKLE_HASH_LEN;
    if (flags & MERKLE_PROOF_HAS_OLD_ROOT)
        w = (uint8_t *)memcpy(w, p->old_root, MERKLE_HASH_LEN) + MERKLE_HASH_LEN;
    if (flags & MERKLE_PROOF_HAS_LEAF_HASH)
        w = (uint8_t *)memcpy(w, p->leaf_hash, MERKLE_HASH_LEN) + MERKLE_HASH_LEN;
    if (p->path_len) memcpy(w, p->path, p->path_len * MERKLE_HASH_LEN);
    w += p->path_len * MERKLE_HASH_LEN;
    if (flags & MERKLE_PROOF_HAS_LEAF) {
        merkle__store_be32(w, (uint32_t)leaf_len);
        if (leaf_len) memcpy(w + 4, leaf, leaf_len);
    }
    return MERKLE_OK;
}

merkle_status merkle_proof_decode(merkle_proof *p, const uint8_t **leaf, size_t *leaf_len,
                                  const uint8_t *buf, size_t len, merkle_error *err)
{
    if (!p || (!buf && len)) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "no proof or buffer");
    if (leaf) *leaf = NULL;
    if (leaf_len) *leaf_len = 0;
    if (len < 4 || memcmp(buf, k_magic, 4) != 0)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 0,
                            "not a binary merkle proof (no MRKP magic)");
    if (len < HDR_LEN)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, len, "truncated header: %zu of %u bytes",
                            len, HDR_LEN);
    if (buf[4] != MERKLE_PROOF_VERSION)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 4, "unsupported proof version %u", buf[4]);
    memset(p, 0, offsetof(merkle_proof, path));
    p->version = MERKLE_PROOF_VERSION;
    p->kind = (merkle_proof_kind)buf[5];
    if (!kind_name(p->kind))
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 5, "unknown proof kind %u", buf[5]);
    p->profile = (merkle_profile)buf[6];
    if (!merkle_profile_name(p->profile))
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 6, "unknown profile %u", buf[6]);
    if (!hash_from_wire(buf[7], &p->hash))
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 7, "unknown hash %u", buf[7]);
    uint32_t flags = buf[8];
    if (flags & ~(uint32_t)KNOWN_FLAGS)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 8, "unknown flags 0x%02x", flags);
    p->flags = flags;
    p->tree_size = load_be64(buf + 9);
    p->index = load_be64(buf + 17);
    p->end = load_be64(buf + 25);
    p->leaf_size = load_be64(buf + 33);
    if ((p->kind == MERKLE_PROOF_INCLUSION && p->end != p->index + 1) ||
        (p->kind == MERKLE_PROOF_CONSISTENCY && p->end != 0))
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 25, "end field %llu does not fit a %s proof",
                            (ull)p->end, kind_name(p->kind));
    size_t np = ((size_t)buf[41] << 8) | buf[42];
    if (np > MERKLE_PROOF_MAX_PATH)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 41, "path of %zu hashes (at most %d)", np,
                            MERKLE_PROOF_MAX_PATH);
    size_t off = HDR_LEN;
    uint8_t *dst[3] = { p->root, p->old_root, p->leaf_hash };
    const uint32_t bits[3] = { MERKLE_PROOF_HAS_ROOT, MERKLE_PROOF_HAS_OLD_ROOT,
                               MERKLE_PROOF_HAS_LEAF_HASH };
    for (int i = 0; i < 3; i++) {
        if (!(flags & bits[i])) continue;
        if (len - off < MERKLE_HASH_LEN)
            return merkle__fail(err, MERKLE_ERR_FORMAT, 0, len, "truncated proof");
        memcpy(dst[i], buf + off, MERKLE_HASH_LEN);
        off += MERKLE_HASH_LEN;
    }
    if ((len - off) / MERKLE_HASH_LEN < np)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, len, "truncated path: %zu hashes announced",
                            np);
    if (np) memcpy(p->path, buf + off, np * MERKLE_HASH_LEN);
    p->path_len = np;
    off += np * MERKLE_HASH_LEN;
    if (flags & MERKLE_PROOF_HAS_LEAF) {
        if (len - off < 4)
            return merkle__fail(err, MERKLE_ERR_FORMAT, 0, len, "truncated leaf length");
        uint32_t ll = merkle__load_be32(buf + off);
        off += 4;
        if (ll > MERKLE_PROOF_MAX_LEAF)
            return merkle__fail(err, MERKLE_ERR_FORMAT, 0, off - 4, "leaf of %u bytes is too large",
                                ll);
        if (len - off < ll)
            return merkle__fail(err, MERKLE_ERR_FORMAT, 0, len,
                                "truncated leaf: %u bytes announced", ll);
        if (leaf) *leaf = buf + off;
        if (leaf_len) *leaf_len = ll;
        off += ll;
    }
    if (off != len)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, off, "%zu trailing bytes after the proof",
                            len - off);
    return MERKLE_OK;
}

/* ------------------------------------------------------------------ JSON rendering */

typedef merkle__sink sbuf;

static void putf(sbuf *b, const char *fmt, ...) MERKLE_PRINTF(2, 3);
static void putf(sbuf *b, const char *fmt, ...)
{
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) merkle__sink_put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void put_hex(sbuf *b, const uint8_t *d, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    merkle__sink_put(b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        char two[2] = { digits[d[i] >> 4], digits[d[i] & 15] };
        merkle__sink_put(b, two, 2);
    }
    merkle__sink_put(b, "\"", 1);
}

/* A tree hash: bitcoin's are written in display (byte-reversed) order. */
static void put_hash(sbuf *b, const merkle_proof *p, const uint8_t *d)
{
    if (p->profile != MERKLE_PROFILE_BITCOIN) {
        put_hex(b, d, MERKLE_HASH_LEN);
        return;
    }
    uint8_t r[MERKLE_HASH_LEN];
    for (int i = 0; i < MERKLE_HASH_LEN; i++) r[i] = d[MERKLE_HASH_LEN - 1 - i];
    put_hex(b, r, MERKLE_HASH_LEN);
}

static void put_path(sbuf *b, const char *key, const merkle_proof *p, const uint8_t *leaf,
                     size_t leaf_len, int with_leaf)
{
    putf(b, "  \"%s\": [", key);
    size_t k = 0;
    if (with_leaf) {
        merkle__sink_puts(b, "\n    ");
        put_hex(b, leaf, leaf_len);
        k++;
    }
    for (size_t i = 0; i < p->path_len; i++, k++) {
        merkle__sink_puts(b, k ? ",\n    " : "\n    ");
        put_hash(b, p, p->path[i]);
    }
    merkle__sink_puts(b, k ? "\n  ]" : "]");
}

merkle_status merkle_proof_to_json(char *out, size_t cap, size_t *out_len, const merkle_proof *p,
                                   const uint8_t *leaf, size_t leaf_len)
{
    if (!out_len || !p || (!out && cap) || (!leaf && leaf_len)) return MERKLE_ERR_ARG;
    const char *kn = kind_name(p->kind), *pn = merkle_profile_name(p->profile),
               *hn = merkle_hash_alg_name(p->hash);
    if (!kn || !pn || !hn || p->path_len > MERKLE_PROOF_MAX_PATH) return MERKLE_ERR_ARG;
    sbuf b = { out, cap, 0 };
    putf(&b, "{\n  \"type\": \"%s\",\n  \"profile\": \"%s\",\n  \"hash\": \"%s\",\n", kn, pn, hn);
    if (p->kind == MERKLE_PROOF_CONSISTENCY) {
        putf(&b, "  \"old_size\": %llu,\n  \"new_size\": %llu,\n", (ull)p->index,
             (ull)p->tree_size);
        if (p->flags & MERKLE_PROOF_HAS_OLD_ROOT) {
            merkle__sink_puts(&b, "  \"old_root\": ");
            put_hex(&b, p->old_root, MERKLE_HASH_LEN);
            merkle__sink_puts(&b, ",\n");
        }
        if (p->flags & MERKLE_PROOF_HAS_ROOT) {
            merkle__sink_puts(&b, "  \"new_root\": ");
            put_hex(&b, p->root, MERKLE_HASH_LEN);
            merkle__sink_puts(&b, ",\n");
        }
        put_path(&b, "path", p, NULL, 0, 0);
        merkle__sink_puts(&b, "\n}\n");
    } else {
        putf(&b, "  \"tree_size\": %llu,\n", (ull)p->tree_size);
        if (p->kind == MERKLE_PROOF_INCLUSION)
            putf(&b, "  \"%s\": %llu,\n",
                 p->profile == MERKLE_PROFILE_SSZ || p->profile == MERKLE_PROFILE_BITTORRENT_V2
                     ? "gindex"
                     : "index",
                 (ull)p->index);
        else
            putf(&b, "  \"start\": %llu,\n  \"end\": %llu,\n", (ull)p->index, (ull)p->end);
        if (p->leaf_size) putf(&b, "  \"leaf_size\": %llu,\n", (ull)p->leaf_size);
        if (leaf) {
            merkle__sink_puts(&b, "  \"leaf\": ");
            put_hex(&b, leaf, leaf_len);
            merkle__sink_puts(&b, ",\n");
        }
        if (p->flags & MERKLE_PROOF_HAS_LEAF_HASH) {
            merkle__sink_puts(&b, "  \"leaf_hash\": ");
            put_hash(&b, p, p->leaf_hash);
            merkle__sink_puts(&b, ",\n");
        }
        put_path(&b, "path", p, NULL, 0, 0);
        if (p->flags & MERKLE_PROOF_HAS_ROOT) {
            merkle__sink_puts(&b, ",\n  \"root\": ");
            put_hash(&b, p, p->root);
        }
        if (p->kind == MERKLE_PROOF_INCLUSION && leaf && p->profile == MERKLE_PROFILE_SIA) {
            merkle__sink_puts(&b, ",\n");
            put_path(&b, "proof_set", p, leaf, leaf_len, 1);
        }
        merkle__sink_puts(&b, "\n}\n");
    }
    merkle__sink_put(&b, "", 1); /* NUL */
    *out_len = b.len;
    return b.len <= cap ? MERKLE_OK : MERKLE_ERR_BUFFER;
}

/* ------------------------------------------------------------------ JSON parsing */

typedef struct jp {
    const char *s;
    size_t len, pos;
    merkle_error *err;
    merkle_status bad_len; /* MERKLE_ERR_VERIFY once a hash of the wrong length was seen */
    char bad_len_msg[120];
} jp;

static merkle_status jfail(jp *j, const char *what)
{
    return merkle__fail(j->err, MERKLE_ERR_FORMAT, 1, j->pos, "proof JSON, byte %zu: %s", j->pos,
                        what);
}

static void ws(jp *j)
{
    while (j->pos < j->len && (j->s[j->pos] == ' ' || j->s[j->pos] == '\t' ||
                               j->s[j->pos] == '\n' || j->s[j->pos] == '\r'))
        j->pos++;
}

static int peek(jp *j)
{
    ws(j);
    return j->pos < j->len ? (unsigned char)j->s[j->pos] : -1;
}

/* The byte c (after white space), consumed; else a format error saying what was expected. */
static merkle_status jexpect(jp *j, int c, const char *what)
{
    if (peek(j) != c) return jfail(j, what);
    j->pos++;
    return MERKLE_OK;
}

/* A string without decoding escapes (they are validated and kept as is): *a, *n. */
static merkle_status jstring(jp *j, const char **a, size_t *n)
{
    if (peek(j) != '"') return jfail(j, "expected a string");
    size_t st = ++j->pos;
    while (j->pos < j->len) {
        unsigned char c = (unsigned char)j->s[j->pos];
        if (c == '"') {
            *a = j->s + st;
            *n = j->pos - st;
            j->pos++;
            return MERKLE_OK;
        }
        if (c < 0x20) return jfail(j, "control character in a string");
        if (c == '\\') {
            if (j->pos + 1 >= j->len) break;
            char e = j->s[j->pos + 1];
            if (e == 'u') {
                if (j->len - j->pos < 6) break;
                for (int i = 2; i < 6; i++) {
                    char h = j->s[j->pos + (size_t)i];
                    if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') ||
                          (h >= 'A' && h <= 'F')))
                        return jfail(j, "bad \\u escape");
                }
                j->pos += 6;
                continue;
            }
            if (!strchr("\"\\/bfnrt", e) || e == 0) return jfail(j, "bad escape");
            j->pos += 2;
            continue;
        }
        j->pos++;
    }
    return jfail(j, "unterminated string");
}

/* An object's key and the ':' after it. */
static merkle_status jkey(jp *j, const char **k, size_t *kn)
{
    merkle_status s = jstring(j, k, kn);
    return s != MERKLE_OK ? s : jexpect(j, ':', "expected ':'");
}

static merkle_status jskip(jp *j, int depth);

static merkle_status jliteral(jp *j, const char *lit)
{
    size_t n = strlen(lit);
    if (j->len - j->pos < n || memcmp(j->s + j->pos, lit, n) != 0) return jfail(j, "bad literal");
    j->pos += n;
    return MERKLE_OK;
}

/* A non-negative integer without sign, fraction or exponent, at most 2^64 - 1. */
static merkle_status juint(jp *j, uint64_t *out)
{
    int c = peek(j);
    if (c == '-') return jfail(j, "negative number");
    if (c < '0' || c > '9') return jfail(j, "expected a non-negative integer");
    if (c == '0' && j->pos + 1 < j->len && j->s[j->pos + 1] >= '0' && j->s[j->pos + 1] <= '9')
        return jfail(j, "leading zero in a number");
    uint64_t v = 0;
    while (j->pos < j->len && j->s[j->pos] >= '0' && j->s[j->pos] <= '9') {
        unsigned d = (unsigned)(j->s[j->pos] - '0');
        if (v > (UINT64_MAX - d) / 10) return jfail(j, "number too large");
        v = v * 10 + d;
        j->pos++;
    }
    if (j->pos < j->len && (j->s[j->pos] == '.' || j->s[j->pos] == 'e' || j->s[j->pos] == 'E'))
        return jfail(j, "expected an integer");
    *out = v;
    return MERKLE_OK;
}

static merkle_status jnumber_skip(jp *j)
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
        return jfail(j, "bad value");
    }
    return MERKLE_OK;
}

static merkle_status jskip(jp *j, int depth)
{
    if (depth > 32) return jfail(j, "nesting too deep");
    int c = peek(j);
    merkle_status s;
    const char *a;
    size_t n;
    switch (c) {
    case '"': return jstring(j, &a, &n);
    case 't': return jliteral(j, "true");
    case 'f': return jliteral(j, "false");
    case 'n': return jliteral(j, "null");
    case '[':
    case '{': {
        int obj = c == '{';
        j->pos++;
        if (peek(j) == (obj ? '}' : ']')) {
            j->pos++;
            return MERKLE_OK;
        }
        for (;;) {
            if (obj) {
                if ((s = jkey(j, &a, &n)) != MERKLE_OK) return s;
            }
            if ((s = jskip(j, depth + 1)) != MERKLE_OK) return s;
            c = peek(j);
            if (c == ',') {
                j->pos++;
                continue;
            }
            if (c == (obj ? '}' : ']')) {
                j->pos++;
                return MERKLE_OK;
            }
            return jfail(j, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        }
    }
    default: return jnumber_skip(j);
    }
}

/* A hex string into out[0..cap); *n = decoded length. */
static merkle_status jhex(jp *j, uint8_t *out, size_t cap, size_t *n, const char *what)
{
    const char *a;
    size_t len;
    size_t at = j->pos;
    merkle_status s = jstring(j, &a, &len);
    if (s != MERKLE_OK) return s;
    if (len >= 2 && a[0] == '0' && (a[1] == 'x' || a[1] == 'X')) {
        a += 2;
        len -= 2;
    }
    if (len % 2) {
        j->pos = at;
        return merkle__fail(j->err, MERKLE_ERR_FORMAT, 1, at,
                            "proof JSON: %s is not hex (odd length)", what);
    }
    if (len / 2 > cap) {
        /* Valid hex that does not fit: verify it still is hex, then report the length. */
        for (size_t i = 0; i < len; i++) {
            char c = a[i];
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
                return merkle__fail(j->err, MERKLE_ERR_FORMAT, 1, at, "proof JSON: %s is not hex",
                                    what);
        }
        *n = len / 2;
        return MERKLE_ERR_BUFFER;
    }
    if (merkle_hex_decode(out, cap, n, a, len, NULL) != MERKLE_OK)
        return merkle__fail(j->err, MERKLE_ERR_FORMAT, 1, at, "proof JSON: %s is not hex", what);
    return MERKLE_OK;
}

/*
** A 32-byte hash; another length marks the proof unverifiable (not malformed). For a root
** (substitute != 0), a value of another length stands for itself: it becomes
** SHA-256(0x02 || bytes), which no leaf or node hash can equal, so it verifies only against
** the very same bytes -- transparency-dev compares two roots of equal sizes as byte strings.
*/
static merkle_status jhash(jp *j, uint8_t out[MERKLE_HASH_LEN], const char *what, int substitute)
{
    uint8_t raw[512];
    size_t n = 0;
    merkle_status s = jhex(j, raw, sizeof raw, &n, what);
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

enum {
    F_TYPE = 1 << 0,
    F_PROFILE = 1 << 1,
    F_HASH = 1 << 2,
    F_SIZE = 1 << 3,
    F_INDEX = 1 << 4,
    F_START = 1 << 5,
    F_END = 1 << 6,
    F_OLD = 1 << 7,
    F_LEAFSIZE = 1 << 8,
    F_LEAF = 1 << 9,
    F_LEAFHASH = 1 << 10,
    F_ROOT = 1 << 11,
    F_OLDROOT = 1 << 12,
    F_PATH = 1 << 13
};

static int key_is(const char *a, size_t n, const char *k)
{
    return strlen(k) == n && memcmp(a, k, n) == 0;
}

merkle_status merkle_proof_from_json(merkle_proof *p, uint8_t *leaf_buf, size_t leaf_cap,
                                     size_t *leaf_len, const char *json, size_t len,
                                     merkle_error *err)
{
    if (!p || (!json && len) || (!leaf_buf && leaf_cap))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "no proof or input");
    if (leaf_len) *leaf_len = 0;
    jp j = { json, len, 0, err, MERKLE_OK, { 0 } };
    memset(p, 0, offsetof(merkle_proof, path));
    p->version = MERKLE_PROOF_VERSION;
    p->path_len = 0;
    unsigned seen = 0;
    const char *type = NULL, *prof = NULL, *hashn = NULL;
    size_t type_n = 0, prof_n = 0, hash_n = 0;
    uint64_t index = 0, start = 0, end = 0, old = 0;
    merkle_status s;
    if ((s = jexpect(&j, '{', "expected a JSON object")) != MERKLE_OK) return s;
    if (peek(&j) == '}') {
        j.pos++;
    } else {
        for (;;) {
            const char *k;
            size_t kn;
            if ((s = jkey(&j, &k, &kn)) != MERKLE_OK) return s;
            unsigned f = 0;
            if (key_is(k, kn, "type"))
                f = F_TYPE;
            else if (key_is(k, kn, "profile"))
                f = F_PROFILE;
            else if (key_is(k, kn, "hash"))
                f = F_HASH;
            else if (key_is(k, kn, "tree_size") || key_is(k, kn, "total") ||
                     key_is(k, kn, "new_size") || key_is(k, kn, "size2"))
                f = F_SIZE;
            else if (key_is(k, kn, "index") || key_is(k, kn, "gindex"))
                f = F_INDEX;
            else if (key_is(k, kn, "start"))
                f = F_START;
            else if (key_is(k, kn, "end"))
                f = F_END;
            else if (key_is(k, kn, "old_size") || key_is(k, kn, "size1"))
                f = F_OLD;
            else if (key_is(k, kn, "leaf_size"))
                f = F_LEAFSIZE;
            else if (key_is(k, kn, "leaf"))
                f = F_LEAF;
            else if (key_is(k, kn, "leaf_hash"))
                f = F_LEAFHASH;
            else if (key_is(k, kn, "root") || key_is(k, kn, "new_root") || key_is(k, kn, "root2"))
                f = F_ROOT;
            else if (key_is(k, kn, "old_root") || key_is(k, kn, "root1"))
                f = F_OLDROOT;
            else if (key_is(k, kn, "path") || key_is(k, kn, "proof") || key_is(k, kn, "aunts"))
                f = F_PATH;
            if (f & seen) return jfail(&j, "duplicate key");
            seen |= f;
            if (f && peek(&j) == 'n') {
                /* null: the field is absent (a nil root, for instance). */
                if ((s = jliteral(&j, "null")) != MERKLE_OK) return s;
                seen &= ~f;
            } else {
                switch (f) {
                case F_TYPE: s = jstring(&j, &type, &type_n); break;
                case F_PROFILE: s = jstring(&j, &prof, &prof_n); break;
                case F_HASH: s = jstring(&j, &hashn, &hash_n); break;
                case F_SIZE: s = juint(&j, &p->tree_size); break;
                case F_INDEX: s = juint(&j, &index); break;
                case F_START: s = juint(&j, &start); break;
                case F_END: s = juint(&j, &end); break;
                case F_OLD: s = juint(&j, &old); break;
                case F_LEAFSIZE: s = juint(&j, &p->leaf_size); break;
                case F_LEAF: {
                    size_t n = 0;
                    s = jhex(&j, leaf_buf, leaf_cap, &n, "leaf");
                    if (s == MERKLE_ERR_BUFFER)
                        return merkle__fail(err, MERKLE_ERR_BUFFER, 1, j.pos,
                                            "proof JSON: leaf of %zu bytes does not fit", n);
                    if (leaf_len) *leaf_len = n;
                    p->flags |= MERKLE_PROOF_HAS_LEAF;
                    break;
                }
                case F_LEAFHASH: s = jhash(&j, p->leaf_hash, "leaf_hash", 0); break;
                case F_ROOT: s = jhash(&j, p->root, "root", 1); break;
                case F_OLDROOT: s = jhash(&j, p->old_root, "old_root", 1); break;
                case F_PATH: {
                    if ((s = jexpect(&j, '[', "path must be an array")) != MERKLE_OK) return s;
                    if (peek(&j) == ']') {
                        j.pos++;
                        break;
                    }
                    for (;;) {
                        if (p->path_len >= MERKLE_PROOF_MAX_PATH)
                            return jfail(&j, "path has too many hashes");
                        char what[32];
                        snprintf(what, sizeof what, "path[%zu]", p->path_len);
                        if ((s = jhash(&j, p->path[p->path_len], what, 0)) != MERKLE_OK) return s;
                        p->path_len++;
                        int c = peek(&j);
                        if (c == ',') {
                            j.pos++;
                            continue;
                        }
                        if (c == ']') {
                            j.pos++;
                            break;
                        }
                        return jfail(&j, "expected ',' or ']' in path");
                    }
                    break;
                }
                default: s = jskip(&j, 1); break;
                }
                if (s != MERKLE_OK) return s;
            }
            int c = peek(&j);
            if (c == ',') {
                j.pos++;
                continue;
            }
            if (c == '}') {
                j.pos++;
                break;
            }
            return jfail(&j, "expected ',' or '}'");
        }
    }
    if (peek(&j) != -1) return jfail(&j, "trailing data after the JSON object");

    /* Kind: explicit, or implied by the fields present. */
    if (type) {
        if (key_is(type, type_n, "inclusion"))
            p->kind = MERKLE_PROOF_INCLUSION;
        else if (key_is(type, type_n, "consistency"))
            p->kind = MERKLE_PROOF_CONSISTENCY;
        else if (key_is(type, type_n, "range"))
            p->kind = MERKLE_PROOF_RANGE;
        else
            return merkle__fail(err, MERKLE_ERR_FORMAT, 1, 0, "proof JSON: unknown type");
    } else if (seen & F_OLD) {
        p->kind = MERKLE_PROOF_CONSISTENCY;
    } else if (seen & (F_START | F_END)) {
        p->kind = MERKLE_PROOF_RANGE;
    } else {
        p->kind = MERKLE_PROOF_INCLUSION;
    }
    p->profile = MERKLE_PROFILE_RFC6962;
    if (prof) {
        char name[16];
        if (prof_n >= sizeof name)
            return merkle__fail(err, MERKLE_ERR_FORMAT, 1, 0, "proof JSON: unknown profile");
        memcpy(name, prof, prof_n);
        name[prof_n] = 0;
        if (merkle_profile_from_name(&p->profile, name) != MERKLE_OK)
            return merkle__fail(err, MERKLE_ERR_FORMAT, 1, 0, "proof JSON: unknown profile '%s'",
                                name);
    }
    (void)merkle_profile_defaults(&p->hash, NULL, p->profile);
    if (hashn) {
        char name[16];
        if (hash_n >= sizeof name)
            return merkle__fail(err, MERKLE_ERR_FORMAT, 1, 0, "proof JSON: unknown hash");
        memcpy(name, hashn, hash_n);
        name[hash_n] = 0;
        if (merkle_hash_alg_from_name(&p->hash, name) != MERKLE_OK)
            return merkle__fail(err, MERKLE_ERR_FORMAT, 1, 0, "proof JSON: unknown hash '%s'",
                                name);
    }
    unsigned need = F_SIZE | F_PATH;
    switch (p->kind) {
    case MERKLE_PROOF_INCLUSION:
        need |= F_INDEX;
        p->index = index;
        p->end = index + 1;
        break;
    case MERKLE_PROOF_RANGE:
        need |= F_START | F_END;
        p->index = start;
        p->end = end;
        break;
    case MERKLE_PROOF_CONSISTENCY:
        need |= F_OLD;
        p->index = old;
        break;
    }
    if ((seen & need) != need) {
        const char *miss = !(seen & F_SIZE)
                               ? (p->kind == MERKLE_PROOF_CONSISTENCY ? "new_size" : "tree_size")
                           : !(seen & F_PATH)                      ? "path"
                           : !(seen & F_INDEX) && (need & F_INDEX) ? "index"
                           : !(seen & F_OLD) && (need & F_OLD)     ? "old_size"
                                                                   : "start/end";
        return merkle__fail(err, MERKLE_ERR_FORMAT, 1, 0, "proof JSON: missing \"%s\"", miss);
    }
    if (!(seen & F_LEAF)) p->flags &= ~MERKLE_PROOF_HAS_LEAF;
    if (p->profile == MERKLE_PROFILE_BITCOIN) {
        /* Display order in JSON, internal order in the object. */
        uint8_t *hs[MERKLE_PROOF_MAX_PATH + 3];
        size_t nh = 0;
        hs[nh++] = p->root;
        hs[nh++] = p->old_root;
        hs[nh++] = p->leaf_hash;
        for (size_t i = 0; i < p->path_len; i++) hs[nh++] = p->path[i];
        for (size_t k = 0; k < nh; k++)
            for (int i = 0; i < MERKLE_HASH_LEN / 2; i++) {
                uint8_t t = hs[k][i];
                hs[k][i] = hs[k][MERKLE_HASH_LEN - 1 - i];
                hs[k][MERKLE_HASH_LEN - 1 - i] = t;
            }
    }
    if (seen & F_ROOT) p->flags |= MERKLE_PROOF_HAS_ROOT;
    if (seen & F_OLDROOT) p->flags |= MERKLE_PROOF_HAS_OLD_ROOT;
    if (seen & F_LEAFHASH) p->flags |= MERKLE_PROOF_HAS_LEAF_HASH;
    if (j.bad_len) return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0, "%s", j.bad_len_msg);
    return MERKLE_OK;
}

/* ------------------------------------------------------------------ multiproof documents */

struct merkle_multiproof {
    merkle_profile profile;
    merkle_hash_alg hash;
    int has_root;
    uint8_t root[MERKLE_HASH_LEN];
    uint64_t *gindices;
    size_t ngindices;
    uint8_t (*leaves)[MERKLE_HASH_LEN];
    size_t nleaves;
    uint8_t (*proof)[MERKLE_HASH_LEN];
    size_t nproof;
    uint8_t *flags;
    size_t nflags;
};

void merkle_multiproof_free(merkle_multiproof *m)
{
    if (!m) return;
    free(m->gindices);
    free(m->leaves);
    free(m->proof);
    free(m->flags);
    free(m);
}

merkle_profile merkle_multiproof_profile(const merkle_multiproof *m)
{
    return m->profile;
}

/* An array of hashes (kind 'h'), unsigned integers ('u') or booleans ('b'). */
static merkle_status jarray(jp *j, char kind, void **buf, size_t *n, const char *what)
{
    size_t cap = 0;
    merkle_status s = jexpect(j, '[', "expected an array");
    if (s != MERKLE_OK) return s;
    if (peek(j) == ']') {
        j->pos++;
        return MERKLE_OK;
    }
    size_t el = kind == 'h' ? MERKLE_HASH_LEN : kind == 'u' ? sizeof(uint64_t) : 1;
    for (;;) {
        if (merkle__grow(buf, &cap, *n + 1, el) != 0)
            return merkle__fail(j->err, MERKLE_ERR_NOMEM, 1, j->pos, "out of memory");
        uint8_t *slot = (uint8_t *)*buf + *n * el;
        if (kind == 'h') {
            char w[48];
            snprintf(w, sizeof w, "%s[%zu]", what, *n);
            s = jhash(j, slot, w, 0);
        } else if (kind == 'u') {
            uint64_t v;
            s = juint(j, &v);
            memcpy(slot, &v, sizeof v);
        } else if (peek(j) == 't') {
            s = jliteral(j, "true");
            *slot = 1;
        } else {
            s = jliteral(j, "false");
            *slot = 0;
        }
        if (s != MERKLE_OK) return s;
        (*n)++;
        int c = peek(j);
        if (c == ',') {
            j->pos++;
            continue;
        }
        if (c == ']') {
            j->pos++;
            return MERKLE_OK;
        }
        return jfail(j, "expected ',' or ']'");
    }
}

static merkle_status mp_parse(merkle_multiproof *m, jp *j)
{
    const char *type = NULL, *prof = NULL, *hashn = NULL;
    size_t type_n = 0, prof_n = 0, hash_n = 0;
    int have_leaves = 0, have_proof = 0, have_flags = 0, have_g = 0;
    merkle_status s;
    if ((s = jexpect(j, '{', "expected a JSON object")) != MERKLE_OK) return s;
    if (peek(j) == '}') return jfail(j, "empty multiproof");
    for (;;) {
        const char *k;
        size_t kn;
        if ((s = jkey(j, &k, &kn)) != MERKLE_OK) return s;
        int *dup = NULL;
        int dummy = 0;
        if (key_is(k, kn, "type"))
            s = jstring(j, &type, &type_n);
        else if (key_is(k, kn, "profile"))
            s = jstring(j, &prof, &prof_n);
        else if (key_is(k, kn, "hash"))
            s = jstring(j, &hashn, &hash_n);
        else if (key_is(k, kn, "root")) {
            dup = &m->has_root;
            dummy = m->has_root;
            s = jhash(j, m->root, "root", 1);
        } else if (key_is(k, kn, "gindices")) {
            dup = &have_g;
            dummy = have_g;
            s = jarray(j, 'u', (void **)&m->gindices, &m->ngindices, "gindices");
        } else if (key_is(k, kn, "leaves")) {
            dup = &have_leaves;
            dummy = have_leaves;
            s = jarray(j, 'h', (void **)&m->leaves, &m->nleaves, "leaves");
        } else if (key_is(k, kn, "proof")) {
            dup = &have_proof;
            dummy = have_proof;
            s = jarray(j, 'h', (void **)&m->proof, &m->nproof, "proof");
        } else if (key_is(k, kn, "proofFlags") || key_is(k, kn, "proof_flags")) {
            dup = &have_flags;
            dummy = have_flags;
            s = jarray(j, 'b', (void **)&m->flags, &m->nflags, "proofFlags");
        } else
            s = jskip(j, 1);
        if (s != MERKLE_OK) return s;
        if (dup) {
            if (dummy) return jfail(j, "duplicate key");
            *dup = 1;
        }
        int c = peek(j);
        if (c == ',') {
            j->pos++;
            continue;
        }
        if (c == '}') {
            j->pos++;
            break;
        }
        return jfail(j, "expected ',' or '}'");
    }
    if (peek(j) != -1) return jfail(j, "trailing data after the JSON object");
    if (type && !key_is(type, type_n, "multiproof"))
        return merkle__fail(j->err, MERKLE_ERR_FORMAT, 1, 0,
                            "multiproof JSON: type is not \"multiproof\"");
    char name[16];
    m->profile = have_g ? MERKLE_PROFILE_SSZ : MERKLE_PROFILE_OPENZEPPELIN;
    if (prof) {
        if (prof_n >= sizeof name)
            return merkle__fail(j->err, MERKLE_ERR_FORMAT, 1, 0,
                                "multiproof JSON: unknown profile");
        memcpy(name, prof, prof_n);
        name[prof_n] = 0;
        if (merkle_profile_from_name(&m->profile, name) != MERKLE_OK ||
            (m->profile != MERKLE_PROFILE_SSZ && m->profile != MERKLE_PROFILE_OPENZEPPELIN &&
             m->profile != MERKLE_PROFILE_BITTORRENT_V2))
            return merkle__fail(j->err, MERKLE_ERR_FORMAT, 1, 0,
                                "multiproof JSON: no multiproofs for profile '%s'", name);
    }
    (void)merkle_profile_defaults(&m->hash, NULL, m->profile);
    if (hashn) {
        if (hash_n >= sizeof name)
            return merkle__fail(j->err, MERKLE_ERR_FORMAT, 1, 0, "multiproof JSON: unknown hash");
        memcpy(name, hashn, hash_n);
        name[hash_n] = 0;
        if (merkle_hash_alg_from_name(&m->hash, name) != MERKLE_OK)
            return merkle__fail(j->err, MERKLE_ERR_FORMAT, 1, 0,
                                "multiproof JSON: unknown hash '%s'", name);
    }
    const char *miss = !have_leaves ? "leaves" : !have_proof ? "proof" : NULL;
    if (!miss && m->profile != MERKLE_PROFILE_OPENZEPPELIN && !have_g) miss = "gindices";
    if (!miss && m->profile == MERKLE_PROFILE_OPENZEPPELIN && !have_flags) miss = "proofFlags";
    if (miss)
        return merkle__fail(j->err, MERKLE_ERR_FORMAT, 1, 0, "multiproof JSON: missing \"%s\"",
                            miss);
    if (m->profile != MERKLE_PROFILE_OPENZEPPELIN && m->ngindices != m->nleaves)
        return merkle__fail(j->err, MERKLE_ERR_FORMAT, 1, 0,
                            "multiproof JSON: %zu gindices for %zu leaves", m->ngindices,
                            m->nleaves);
    if (j->bad_len) return merkle__fail(j->err, MERKLE_ERR_VERIFY, 0, 0, "%s", j->bad_len_msg);
    return MERKLE_OK;
}

merkle_status merkle_multiproof_alloc_json(merkle_multiproof **out, const char *json, size_t len,
                                           merkle_error *err)
{
    if (!out || (!json && len)) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "no input");
    *out = NULL;
    merkle_multiproof *m = calloc(1, sizeof *m);
    if (!m) return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    jp j = { json, len, 0, err, MERKLE_OK, { 0 } };
    merkle_status s = mp_parse(m, &j);
    if (s != MERKLE_OK) {
        merkle_multiproof_free(m);
        return s;
    }
    *out = m;
    return MERKLE_OK;
}

merkle_status merkle_multiproof_verify(const merkle_multiproof *m, const uint8_t *root,
                                       merkle_error *err)
{
    if (!m) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "no multiproof");
    const uint8_t *rt = root ? root : m->has_root ? m->root : NULL;
    if (!rt) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "no root to verify against");
    merkle_shape sh;
    merkle_status s = merkle_shape_init(&sh, MERKLE_SHAPE_VERSION, m->profile);
    if (s != MERKLE_OK) return merkle__fail(err, s, 0, 0, "bad profile");
    sh.hash = m->hash;
    if (m->profile != MERKLE_PROFILE_OPENZEPPELIN)
        return merkle_shape_multiproof_verify(
            &sh, rt, m->gindices, (const uint8_t(*)[MERKLE_HASH_LEN])m->leaves, m->nleaves,
            (const uint8_t(*)[MERKLE_HASH_LEN])m->proof, m->nproof, err);
    return merkle_shape_flag_multiproof_verify(
        &sh, rt, (const uint8_t(*)[MERKLE_HASH_LEN])m->leaves, m->nleaves,
        (const uint8_t(*)[MERKLE_HASH_LEN])m->proof, m->nproof, m->flags, m->nflags, err);
}

/* ------------------------------------------------------------------ tree dumps */

/* Unescape a JSON string's raw content a[0..n) into out (which has room for n bytes). */
static size_t junescape(char *out, const char *a, size_t n)
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

typedef struct dstr {
    char *s;
    size_t len, cap;
} dstr;

static int dput(dstr *d, const char *s, size_t n)
{
    if (n > SIZE_MAX - 1 - d->len || merkle__grow(&d->s, &d->cap, d->len + n + 1, 1) != 0)
        return -1;
    memcpy(d->s + d->len, s, n);
    d->len += n;
    d->s[d->len] = 0;
    return 0;
}

/* One value of a row, appended to the row text in the syntax of merkle_shape_abi_encode. */
static merkle_status jrow_value(jp *j, dstr *row)
{
    int c = peek(j);
    if (c == '"') {
        const char *a;
        size_t n;
        merkle_status s = jstring(j, &a, &n);
        if (s != MERKLE_OK) return s;
        char *u = malloc(n + 1);
        if (!u) return merkle__fail(j->err, MERKLE_ERR_NOMEM, 1, j->pos, "out of memory");
        size_t un = junescape(u, a, n);
        int bad = dput(row, "\"", 1);
        for (size_t i = 0; i < un && !bad; i++) {
            if (u[i] == '"' || u[i] == '\\') bad |= dput(row, "\\", 1);
            bad |= dput(row, u + i, 1);
        }
        bad |= dput(row, "\"", 1);
        free(u);
        return bad ? merkle__fail(j->err, MERKLE_ERR_NOMEM, 1, j->pos, "out of memory") : MERKLE_OK;
    }
    if (c == 't' || c == 'f') {
        merkle_status s = jliteral(j, c == 't' ? "true" : "false");
        if (s == MERKLE_OK && dput(row, c == 't' ? "true" : "false", c == 't' ? 4 : 5) != 0)
            return merkle__fail(j->err, MERKLE_ERR_NOMEM, 1, j->pos, "out of memory");
        return s;
    }
    size_t st = j->pos;
    merkle_status s = jnumber_skip(j);
    if (s == MERKLE_OK && dput(row, j->s + st, j->pos - st) != 0)
        return merkle__fail(j->err, MERKLE_ERR_NOMEM, 1, j->pos, "out of memory");
    return s;
}

merkle_status merkle_shape_tree_alloc_dump(merkle_shape_tree **out, char *types, size_t types_cap,
                                           const char *json, size_t len, merkle_error *err)
{
    if (!out || (!json && len) || (!types && types_cap))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    *out = NULL;
    if (types_cap) types[0] = 0;
    jp j = { json, len, 0, err, MERKLE_OK, { 0 } };
    merkle_status s = MERKLE_OK;
    dstr enc = { 0 }, row = { 0 };
    uint8_t(*tree)[MERKLE_HASH_LEN] = NULL;
    size_t ntree = 0, tcap = 0, nvals = 0, vcap = 0;
    uint64_t *tidx = NULL;
    uint8_t(*lh)[MERKLE_HASH_LEN] = NULL; /* leaf hash of each value */
    int standard = -1, have_tree = 0, have_values = 0, have_enc = 0;
    if ((s = jexpect(&j, '{', "expected a JSON object")) != MERKLE_OK) return s;
    for (;;) {
        const char *k;
        size_t kn;
        if ((s = jkey(&j, &k, &kn)) != MERKLE_OK) goto done;
        if (key_is(k, kn, "format")) {
            const char *f;
            size_t fn;
            if ((s = jstring(&j, &f, &fn)) != MERKLE_OK) goto done;
            if (key_is(f, fn, "standard-v1"))
                standard = 1;
            else if (key_is(f, fn, "simple-v1"))
                standard = 0;
            else {
                s = merkle__fail(err, MERKLE_ERR_FORMAT, 1, j.pos, "dump: unknown format '%.*s'",
                                 (int)(fn < 40 ? fn : 40), f);
                goto done;
            }
        } else if (key_is(k, kn, "hash")) {
            s = merkle__fail(err, MERKLE_ERR_UNSUPPORTED, 1, j.pos,
                             "dump: a tree with a custom node hash cannot be checked");
            goto done;
        } else if (key_is(k, kn, "leafEncoding")) {
            have_enc = 1;
            if ((s = jexpect(&j, '[', "leafEncoding must be an array")) != MERKLE_OK) goto done;
            while (peek(&j) != ']') {
                const char *a;
                size_t an;
                if ((s = jstring(&j, &a, &an)) != MERKLE_OK) goto done;
                if ((enc.len && dput(&enc, ",", 1)) || dput(&enc, a, an)) goto nomem;
                if (peek(&j) == ',')
                    j.pos++;
                else if (peek(&j) != ']') {
                    s = jfail(&j, "expected ',' or ']'");
                    goto done;
                }
            }
            j.pos++;
        } else if (key_is(k, kn, "tree")) {
            have_tree = 1;
            s = jarray(&j, 'h', (void **)&tree, &ntree, "tree");
            if (s != MERKLE_OK) goto done;
            (void)tcap;
        } else if (key_is(k, kn, "values")) {
            have_values = 1;
            if ((s = jexpect(&j, '[', "values must be an array")) != MERKLE_OK) goto done;
            while (peek(&j) != ']') {
                if (nvals == vcap) { /* parallel arrays: one capacity */
                    size_t nc = merkle__grow_cap(vcap, nvals + 1, MERKLE_HASH_LEN);
                    if (nc == 0 || merkle__realloc_n(&tidx, nc, sizeof *tidx) != 0 ||
                        merkle__realloc_n(&lh, nc, MERKLE_HASH_LEN) != 0)
                        goto nomem;
                    vcap = nc;
                }
                if ((s = jexpect(&j, '{', "a value must be an object")) != MERKLE_OK) goto done;
                int have_v = 0, have_i = 0;
                while (peek(&j) != '}') {
                    const char *vk;
                    size_t vkn;
                    if ((s = jkey(&j, &vk, &vkn)) != MERKLE_OK) goto done;
                    if (key_is(vk, vkn, "treeIndex")) {
                        have_i = 1;
                        if ((s = juint(&j, &tidx[nvals])) != MERKLE_OK) goto done;
                    } else if (key_is(vk, vkn, "value")) {
                        have_v = 1;
                        if (standard != 1) {
                            /* simple-v1 (or format not seen yet: decided below) */
                            if (standard == -1 && peek(&j) == '[') standard = 1;
                        }
                        if (standard == 1) {
                            if (!have_enc) {
                                s = merkle__fail(err, MERKLE_ERR_FORMAT, 1, j.pos,
                                                 "dump: leafEncoding must come before values");
                                goto done;
                            }
                            row.len = 0;
                            if ((s = jexpect(&j, '[', "a standard-v1 value must be an array")) !=
                                MERKLE_OK)
                                goto done;
                            int first = 1;
                            while (peek(&j) != ']') {
                                if (!first && dput(&row, ",", 1)) goto nomem;
                                first = 0;
                                if ((s = jrow_value(&j, &row)) != MERKLE_OK) goto done;
                                if (peek(&j) == ',')
                                    j.pos++;
                                else if (peek(&j) != ']') {
                                    s = jfail(&j, "expected ',' or ']'");
                                    goto done;
                                }
                            }
                            j.pos++;
                            s = merkle_shape_abi_leaf(lh[nvals], enc.s ? enc.s : "",
                                                      row.s ? row.s : "", row.len, err);
                            if (s != MERKLE_OK) goto done;
                        } else {
                            /* formatLeaf: the value is a bytes32, the leaf is itself. */
                            if ((s = jhash(&j, lh[nvals], "value", 0)) != MERKLE_OK) goto done;
                        }
                    } else if ((s = jskip(&j, 2)) != MERKLE_OK)
                        goto done;
                    if (peek(&j) == ',')
                        j.pos++;
                    else if (peek(&j) != '}') {
                        s = jfail(&j, "expected ',' or '}'");
                        goto done;
                    }
                }
                j.pos++;
                if (!have_v || !have_i) {
                    s = merkle__fail(err, MERKLE_ERR_FORMAT, 1, j.pos,
                                     "dump: value %zu needs \"value\" and \"treeIndex\"", nvals);
                    goto done;
                }
                nvals++;
                if (peek(&j) == ',')
                    j.pos++;
                else if (peek(&j) != ']') {
                    s = jfail(&j, "expected ',' or ']'");
                    goto done;
                }
            }
            j.pos++;
        } else if ((s = jskip(&j, 1)) != MERKLE_OK)
            goto done;
        int c = peek(&j);
        if (c == ',') {
            j.pos++;
            continue;
        }
        if (c == '}') {
            j.pos++;
            break;
        }
        s = jfail(&j, "expected ',' or '}'");
        goto done;
    }
    if (peek(&j) != -1) {
        s = jfail(&j, "trailing data after the JSON object");
        goto done;
    }
    if (standard == -1 || !have_tree || !have_values || (standard == 1 && !have_enc)) {
        s = merkle__fail(err, MERKLE_ERR_FORMAT, 1, 0, "dump: missing %s",
                         standard == -1 ? "\"format\""
                         : !have_tree   ? "\"tree\""
                         : !have_values ? "\"values\""
                                        : "\"leafEncoding\"");
        goto done;
    }
    if (j.bad_len) {
        s = merkle__fail(err, MERKLE_ERR_FORMAT, 1, 0, "dump: %s", j.bad_len_msg);
        goto done;
    }
    if (nvals == 0 || ntree != 2 * nvals - 1) {
        s = merkle__fail(err, MERKLE_ERR_VERIFY, 1, 0, "dump: %zu tree nodes for %zu values", ntree,
                         nvals);
        goto done;
    }
    for (size_t i = 0; i < nvals; i++) {
        if (tidx[i] >= ntree || memcmp(tree[tidx[i]], lh[i], MERKLE_HASH_LEN) != 0) {
            s = merkle__fail(err, MERKLE_ERR_VERIFY, 1, 0,
                             "dump: value %zu does not hash to tree node %llu", i, (ull)tidx[i]);
            goto done;
        }
    }
    {
        merkle_shape sh;
        (void)merkle_shape_init(&sh, MERKLE_SHAPE_VERSION, MERKLE_PROFILE_OPENZEPPELIN);
        s = merkle__shape_tree_from_heap(out, &sh, tree, nvals, tidx);
        tree = NULL; /* taken over */
        if (s == MERKLE_ERR_VERIFY)
            s = merkle__fail(err, s, 1, 0,
                             "dump: the tree is not a valid Merkle tree of its leaves");
        else if (s != MERKLE_OK)
            s = merkle__fail(err, s, 1, 0, "%s", merkle_strerror(s));
    }
    if (s == MERKLE_OK && standard == 1 && types_cap) {
        if (enc.len + 1 > types_cap) {
            merkle_shape_tree_free(*out);
            *out = NULL;
            s = merkle__fail(err, MERKLE_ERR_BUFFER, 1, 0, "leafEncoding does not fit");
        } else {
            memcpy(types, enc.s, enc.len + 1);
        }
    }
    goto done;
nomem:
    s = merkle__fail(err, MERKLE_ERR_NOMEM, 1, j.pos, "out of memory");
done:
    free(tree);
    free(tidx);
    free(lh);
    free(enc.s);
    free(row.s);
    return s;
}
