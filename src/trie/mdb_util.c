/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkledb proofs: the arena, verdict names and messages, bit-string keys, node hashing.
*/
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/internal.h"
#include "merkle/hash.h"
#include "trie/mdb_impl.h"
#include "trie/trie_impl.h"

/* ------------------------------------------------------------------ arena */

void *mdb_alloc_slow(mdb_arena *a, size_t n)
{
    size_t sz = a->next ? a->next : 4096;
    while (sz < n + sizeof(mdb_chunk)) {
        if (sz > SIZE_MAX / 2) return NULL;
        sz *= 2;
    }
    mdb_chunk *c = malloc(sz);
    if (c == NULL) return NULL;
    c->next = a->head;
    c->size = sz;
    a->head = c;
    a->p = (uint8_t *)(c + 1);
    a->end = (uint8_t *)c + sz;
    if (sz < ((size_t)1 << 24)) a->next = sz * 2;
    void *r = a->p;
    a->p += n;
    return r;
}

void mdb_arena_free(mdb_arena *a)
{
    mdb_chunk *c = a->head;
    while (c) {
        mdb_chunk *nx = c->next;
        free(c);
        c = nx;
    }
    memset(a, 0, sizeof *a);
}

merkle_mdb_proof *mdb_proof_new(void)
{
    merkle_mdb_proof *p = calloc(1, sizeof *p);
    mdb_proof_mem *m = calloc(1, sizeof *m);
    if (p == NULL || m == NULL) {
        free(p);
        free(m);
        return NULL;
    }
    p->mem_ = m;
    return p;
}

void merkle_mdb_proof_free(merkle_mdb_proof *p)
{
    if (p == NULL) return;
    if (p->mem_) {
        mdb_arena_free(&((mdb_proof_mem *)p->mem_)->a);
        free(p->mem_);
    }
    free(p);
}

/* ------------------------------------------------------------------ results */

typedef struct kind_info {
    const char *name, *text;
} kind_info;

static const kind_info kinds[MERKLE_MDB_KIND_COUNT] = {
    { "ok", "ok" },
    { "ErrInvalidProof", "proof obtained an invalid root ID" },
    { "ErrInvalidMaxLength", "expected max length to be > 0" },
    { "ErrNonIncreasingValues", "keys sent are not in increasing order" },
    { "ErrStateFromOutsideOfRange", "state key falls outside of the start->end range" },
    { "ErrNonIncreasingProofNodes", "each proof node key must be a strict prefix of the next" },
    { "ErrEmptyProof", "proof is empty" },
    { "ErrNoEndProof", "no end proof" },
    { "ErrProofNodeNotForKey",
      "the provided path has a key that is not a prefix of the specified key" },
    { "ErrExclusionProofMissingEndNodes", "missing end nodes from path" },
    { "ErrExclusionProofUnexpectedValue", "exclusion proof's value should be empty" },
    { "ErrExclusionProofInvalidNode", "invalid node for exclusion proof" },
    { "ErrProofValueDoesntMatch",
      "the provided value does not match the proof node for the provided key's value" },
    { "ErrProofKeyPartialByte", "the provided key has partial byte length" },
    { "ErrProofNodeHasUnincludedValue", "the provided proof has a value for a key within the range "
                                        "that is not present in the provided key/values" },
    { "ErrUnexpectedEndProof", "end proof should be empty" },
    { "ErrUnexpectedStartProof", "start proof should be empty" },
    { "ErrPartialByteLengthWithValue", "the underlying db only supports whole number of byte keys, "
                                       "so cannot record changes with partial byte lengths" },
    { "ErrStartAfterEnd", "start key > end key" },
    { "ErrVisitPathToKey", "failed to visit expected node during insertion" },
    { "errTooManyKeys", "response contains more than requested keys" },
    { "errSameRoot", "start and end root are the same" },
    { "errNilKey", "key is nil" },
    { "errInvalidKeyLength",
      "key length doesn't match bytes length, check specified branchFactor" },
    { "errChildIndexTooLarge", "invalid child index. Must be less than branching factor" },
    { "database.ErrNotFound", "not found" },
    { "hashing.ErrInvalidHashLen", "invalid hash length" },
    { "sync.ErrInsufficientHistory", "insufficient history to generate proof" },
    { "sync.ErrNoEndRoot", "insufficient history to generate proof: end root not found" },
    { "proto", "proto: cannot parse invalid wire-format data" },
};

const char *merkle_mdb_kind_name(int kind)
{
    if (kind < 0 || kind >= MERKLE_MDB_KIND_COUNT) return "unknown";
    return kinds[kind].name;
}

const char *mdb_kind_text(int kind)
{
    if (kind < 0 || kind >= MERKLE_MDB_KIND_COUNT) return "unknown";
    return kinds[kind].text;
}

int mdb_set(merkle_mdb_result *res, int kind, const char *fmt, ...)
{
    if (res) {
        res->kind = kind;
        if (fmt) {
            va_list ap;
            va_start(ap, fmt);
            (void)vsnprintf(res->message, sizeof res->message, fmt, ap);
            va_end(ap);
        } else {
            (void)snprintf(res->message, sizeof res->message, "%s", mdb_kind_text(kind));
        }
    }
    return kind;
}

void mdb_wrap(merkle_mdb_result *res, const char *what)
{
    if (res == NULL) return;
    char tmp[2 * sizeof res->message];
    (void)snprintf(tmp, sizeof tmp, "%s: %s", what, res->message);
    memcpy(res->message, tmp, sizeof res->message - 1);
    res->message[sizeof res->message - 1] = 0;
}

void mdb_cb58(char out[MERKLE_TRIE_CB58_ID_MAX], const uint8_t id[32])
{
    size_t n = 0;
    if (merkle_trie_cb58_encode(out, MERKLE_TRIE_CB58_ID_MAX, &n, id, 32) != MERKLE_OK) out[0] = 0;
}

/* ------------------------------------------------------------------ keys */

int mkey_eq(mkey a, mkey b)
{
    return a.bits == b.bits && a.nb == b.nb && (a.nb == 0 || memcmp(a.b, b.b, a.nb) == 0);
}

int mdb_bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t m = an < bn ? an : bn;
    int c = m ? memcmp(a, b, m) : 0;
    if (c) return c < 0 ? -1 : 1;
    return an < bn ? -1 : an > bn ? 1 : 0;
}

int mkey_cmp(mkey a, mkey b)
{
    int c = mdb_bytes_cmp(a.b, a.nb, b.b, b.nb);
    if (c) return c;
    return a.bits < b.bits ? -1 : a.bits > b.bits ? 1 : 0;
}

int mkey_has_prefix(mkey k, mkey p, int *panic)
{
    if (k.bits < p.bits) return 0;
    if (p.bits < 0) {
        if (p.bits % 8 != 0) *panic = 1;
        return 0;
    }
    int64_t full = p.bits / 8;
    if (full && memcmp(k.b, p.b, (size_t)full) != 0) return 0;
    unsigned r = (unsigned)(p.bits % 8);
    if (r) {
        unsigned mask = 0xffu >> r;
        if ((p.b[full] | mask) != (k.b[full] | mask)) return 0;
    }
    return 1;
}

static uint8_t *key_buf(mdb_arena *a, int64_t bits)
{
    size_t nb = (size_t)((bits + 7) / 8);
    return mdb_zalloc(a, nb ? nb : 1);
}

/* Copy n bits of src starting at bit off into dst starting at bit doff (dst zeroed there). */
static void copy_bits(uint8_t *dst, int64_t doff, const uint8_t *src, int64_t off, int64_t n)
{
    if ((doff & 7) == 0 && (off & 7) == 0) {
        int64_t whole = n / 8;
        if (whole) memcpy(dst + doff / 8, src + off / 8, (size_t)whole);
        for (int64_t i = whole * 8; i < n; i++)
            if (mkey_bit(src, off + i))
                dst[(doff + i) >> 3] |= (uint8_t)(0x80u >> ((doff + i) & 7));
        return;
    }
    if ((doff & 7) == 0) {
        /* Whole destination bytes, each from two source bytes (the last whole byte's second
        ** source byte holds its bit off + 8 * whole - 1, which is inside src). */
        unsigned sh = (unsigned)(off & 7);
        const uint8_t *p = src + off / 8;
        uint8_t *d = dst + doff / 8;
        int64_t whole = n / 8;
        for (int64_t i = 0; i < whole; i++)
            d[i] = (uint8_t)((unsigned)p[i] << sh | (unsigned)p[i + 1] >> (8 - sh));
        for (int64_t i = whole * 8; i < n; i++)
            if (mkey_bit(src, off + i))
                dst[(doff + i) >> 3] |= (uint8_t)(0x80u >> ((doff + i) & 7));
        return;
    }
    for (int64_t i = 0; i < n; i++)
        if (mkey_bit(src, off + i)) dst[(doff + i) >> 3] |= (uint8_t)(0x80u >> ((doff + i) & 7));
}

int mkey_take(mkey *out, mdb_arena *a, mkey k, int64_t n)
{
    if (k.bits <= n) {
        *out = k;
        return 0;
    }
    if (n < 0) n = 0;
    if (n % 8 == 0) {
        *out = (mkey){ k.b, n, (size_t)(n / 8) };
        return 0;
    }
    uint8_t *b = key_buf(a, n);
    if (b == NULL) return -1;
    copy_bits(b, 0, k.b, 0, n);
    *out = (mkey){ b, n, (size_t)((n + 7) / 8) };
    return 0;
}

int mkey_skip(mkey *out, mdb_arena *a, mkey k, int64_t n)
{
    if (k.bits <= n) {
        *out = (mkey){ NULL, 0, 0 };
        return 0;
    }
    if (n <= 0) {
        *out = k;
        return 0;
    }
    int64_t bits = k.bits - n;
    if (n % 8 == 0) {
        *out = (mkey){ k.b + n / 8, bits, (size_t)((bits + 7) / 8) };
        return 0;
    }
    uint8_t *b = key_buf(a, bits);
    if (b == NULL) return -1;
    copy_bits(b, 0, k.b, n, bits);
    *out = (mkey){ b, bits, (size_t)((bits + 7) / 8) };
    return 0;
}

int mkey_extend3(mkey *out, mdb_arena *a, mkey x, mkey y, mkey z)
{
    int64_t bits = x.bits + y.bits + z.bits;
    uint8_t *b = key_buf(a, bits);
    if (b == NULL) return -1;
    copy_bits(b, 0, x.b, 0, x.bits);
    copy_bits(b, x.bits, y.b, 0, y.bits);
    copy_bits(b, x.bits + y.bits, z.b, 0, z.bits);
    *out = (mkey){ b, bits, (size_t)((bits + 7) / 8) };
    return 0;
}

int mkey_token_key(mkey *out, mdb_arena *a, unsigned v, unsigned ts)
{
    uint8_t *b = mdb_alloc(a, 1);
    if (b == NULL) return -1;
    b[0] = (uint8_t)(v << (8 - ts));
    *out = (mkey){ b, ts, 1 };
    return 0;
}

int64_t mkey_common(mkey first, mkey second, int64_t off, unsigned ts, int *panic)
{
    int64_t c = 0;
    while (first.bits > c && second.bits > c + off &&
           mkey_token(first, c, ts, panic) == mkey_token(second, off + c, ts, panic) && !*panic)
        c += ts;
    return c;
}

/* ------------------------------------------------------------------ hashing */

void mdb_hash_node(uint8_t out[32], mkey key, const merkle_mdb_maybe *digest, const uint32_t *idx,
                   const uint8_t *const *ids, size_t n)
{
    merkle_sha256 h;
    uint8_t buf[MERKLE__UVARINT_MAX + 1];
    merkle_sha256_init(&h);
    merkle_sha256_update(&h, buf, merkle__uvarint_put(buf, n));
    for (size_t i = 0; i < n; i++) {
        merkle_sha256_update(&h, buf, merkle__uvarint_put(buf, idx[i]));
        merkle_sha256_update(&h, ids[i], 32);
    }
    if (digest->some) {
        buf[0] = 1;
        size_t l = 1 + merkle__uvarint_put(buf + 1, digest->len);
        merkle_sha256_update(&h, buf, l);
        if (digest->len) merkle_sha256_update(&h, digest->ptr, digest->len);
    } else {
        buf[0] = 0;
        merkle_sha256_update(&h, buf, 1);
    }
    merkle_sha256_update(&h, buf, merkle__uvarint_put(buf, (uint64_t)key.bits));
    if (key.nb) merkle_sha256_update(&h, key.b, key.nb);
    merkle_sha256_final(&h, out);
}
