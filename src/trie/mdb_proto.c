/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkledb proofs on the wire: proto3 decoding as Go's protobuf + unmarshalProto do it, and the
** deterministic encoding (docs/merkledb.md, spec section 3). The decoder makes two passes over
** the bytes: the first checks the wire format and counts, the second fills one arena.
*/
#include <string.h>

#include "common/internal.h"
#include "trie/mdb_impl.h"
#include "trie/trie_impl.h"

/* ------------------------------------------------------------------ wire reader */

typedef struct rd {
    const uint8_t *p;
    size_t n, pos;
} rd;

/* Go protowire.ConsumeVarint: up to 10 bytes, the 10th at most 1; non-minimal accepted. */
static int rd_varint(rd *r, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned i = 0; i < 10; i++) {
        if (r->pos >= r->n) return -1;
        uint8_t b = r->p[r->pos++];
        if (i == 9 && b > 1) return -1;
        x |= (uint64_t)(b & 0x7f) << (7 * i);
        if (b < 0x80) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

static int rd_len(rd *r, rd *sub)
{
    uint64_t l;
    if (rd_varint(r, &l) != 0 || l > r->n - r->pos) return -1;
    sub->p = r->p + r->pos;
    sub->n = (size_t)l;
    sub->pos = 0;
    r->pos += (size_t)l;
    return 0;
}

#define GROUP_LIMIT 10000

/* Skip the value of a field of wire type wt (field number num); groups nest up to Go's
** recursion limit. */
static int rd_skip(rd *r, uint64_t num, unsigned wt, int depth)
{
    uint64_t v;
    rd sub;
    switch (wt) {
    case 0: return rd_varint(r, &v);
    case 1:
        if (r->n - r->pos < 8) return -1;
        r->pos += 8;
        return 0;
    case 2: return rd_len(r, &sub);
    case 5:
        if (r->n - r->pos < 4) return -1;
        r->pos += 4;
        return 0;
    case 3:
        if (depth >= GROUP_LIMIT) return -1;
        for (;;) {
            uint64_t tag;
            if (rd_varint(r, &tag) != 0) return -1;
            uint64_t fn = tag >> 3;
            unsigned t = (unsigned)(tag & 7);
            if (fn == 0 || fn > 0x1fffffff) return -1;
            if (t == 4) return fn == num ? 0 : -1;
            if (rd_skip(r, fn, t, depth + 1) != 0) return -1;
        }
    default: return -1;
    }
}

/* Next field: 1 and its number/type, 0 at the end, -1 malformed. */
static int rd_tag(rd *r, uint64_t *num, unsigned *wt)
{
    if (r->pos >= r->n) return 0;
    uint64_t tag;
    if (rd_varint(r, &tag) != 0) return -1;
    *num = tag >> 3;
    *wt = (unsigned)(tag & 7);
    if (*num == 0 || *num > 0x1fffffff || *wt == 4 || *wt > 5) return -1;
    return 1;
}

/* ------------------------------------------------------------------ messages */

/* A decoded node before conversion. */
typedef struct raw_node {
    int has_key;
    uint64_t klen;
    const uint8_t *kval;
    size_t kval_len;
    int has_vh;
    const uint8_t *vh;
    size_t vh_len;
    size_t nentries; /* map entries seen */
    int bad_index;   /* an entry with index > 255 survived */
} raw_node;

/* Key message (merged occurrences: fields overwrite). */
static int parse_key(rd *r, raw_node *n)
{
    uint64_t num;
    unsigned wt;
    int t;
    while ((t = rd_tag(r, &num, &wt)) == 1) {
        if (num == 1 && wt == 0) {
            if (rd_varint(r, &n->klen) != 0) return -1;
        } else if (num == 2 && wt == 2) {
            rd s;
            if (rd_len(r, &s) != 0) return -1;
            n->kval = s.p;
            n->kval_len = s.n;
        } else if (rd_skip(r, num, wt, 0) != 0) {
            return -1;
        }
    }
    return t;
}

/* MaybeBytes message: value (field 1). */
static int parse_maybe(rd *r, const uint8_t **v, size_t *len)
{
    uint64_t num;
    unsigned wt;
    int t;
    while ((t = rd_tag(r, &num, &wt)) == 1) {
        if (num == 1 && wt == 2) {
            rd s;
            if (rd_len(r, &s) != 0) return -1;
            *v = s.p;
            *len = s.n;
        } else if (rd_skip(r, num, wt, 0) != 0) {
            return -1;
        }
    }
    return t;
}

/* Map entry: key (1, uint32 varint) and value (2, bytes). */
static int parse_entry(rd *r, uint32_t *idx, const uint8_t **v, size_t *len)
{
    uint64_t num;
    unsigned wt;
    int t;
    *idx = 0;
    *v = NULL;
    *len = 0;
    while ((t = rd_tag(r, &num, &wt)) == 1) {
        if (num == 1 && wt == 0) {
            uint64_t x;
            if (rd_varint(r, &x) != 0) return -1;
            *idx = (uint32_t)x;
        } else if (num == 2 && wt == 2) {
            rd s;
            if (rd_len(r, &s) != 0) return -1;
            *v = s.p;
            *len = s.n;
        } else if (rd_skip(r, num, wt, 0) != 0) {
            return -1;
        }
    }
    return t;
}

typedef struct slot {
    const uint8_t *id;
    size_t len;
    uint8_t set;
} slot;

/* ProofNode. With out (pass 2), fills the node; kids has room for raw->nentries children. */
static int parse_node(rd *r, raw_node *raw, merkle_mdb_node *out, merkle_mdb_child *kids,
                      int *conv_err);

/* Zero the padding bits of a decoded node's key, in the proof's own copy of the bytes. */
static void zero_padding(uint8_t *copy, const merkle_mdb_node *n)
{
    if (n->key_bits > 0 && n->key_bits % 8 && n->key_len) {
        size_t off = (size_t)(n->key - copy) + n->key_len - 1;
        copy[off] &= (uint8_t)(0xff00u >> (n->key_bits % 8));
    }
}

static int parse_node(rd *r, raw_node *raw, merkle_mdb_node *out, merkle_mdb_child *kids,
                      int *conv_err)
{
    uint64_t num;
    unsigned wt;
    int t;
    slot slots[256];
    if (out) memset(slots, 0, sizeof slots);
    memset(raw, 0, sizeof *raw);
    while ((t = rd_tag(r, &num, &wt)) == 1) {
        rd s;
        if (num >= 1 && num <= 3 && wt == 2) {
            if (rd_len(r, &s) != 0) return -1;
            if (num == 1) {
                raw->has_key = 1;
                if (parse_key(&s, raw) != 0) return -1;
            } else if (num == 2) {
                raw->has_vh = 1;
                if (parse_maybe(&s, &raw->vh, &raw->vh_len) != 0) return -1;
            } else {
                uint32_t idx;
                const uint8_t *v;
                size_t len;
                if (parse_entry(&s, &idx, &v, &len) != 0) return -1;
                raw->nentries++;
                if (out) {
                    if (idx > 255)
                        raw->bad_index = 1;
                    else
                        slots[idx] = (slot){ v, len, 1 };
                }
            }
        } else if (rd_skip(r, num, wt, 0) != 0) {
            return -1;
        }
    }
    if (t != 0 || out == NULL) return t;
    /* Conversion (unmarshalProto's order for one node). */
    *conv_err = 0;
    if (!raw->has_key) {
        *conv_err = MERKLE_MDB_ERR_NIL_KEY;
        return 0;
    }
    int64_t bits = (int64_t)raw->klen;
    if ((int64_t)raw->kval_len != mdb_bytes_needed(bits)) {
        *conv_err = MERKLE_MDB_ERR_INVALID_KEY_LENGTH;
        return 0;
    }
    if (raw->bad_index) {
        *conv_err = MERKLE_MDB_ERR_CHILD_INDEX_TOO_LARGE;
        return 0;
    }
    size_t nk = 0;
    for (unsigned i = 0; i < 256; i++) {
        if (!slots[i].set) continue;
        if (slots[i].len != MERKLE_TRIE_ID_LEN) {
            *conv_err = MERKLE_MDB_ERR_INVALID_HASH_LEN;
            out->nchildren = slots[i].len; /* for the message */
            return 0;
        }
        kids[nk].index = i;
        memcpy(kids[nk].id, slots[i].id, MERKLE_TRIE_ID_LEN);
        nk++;
    }
    out->key = raw->kval_len ? raw->kval : NULL;
    out->key_len = raw->kval_len;
    out->key_bits = bits;
    out->value_or_hash = (merkle_mdb_maybe){ raw->vh, raw->vh_len, raw->has_vh };
    out->children = kids;
    out->nchildren = nk;
    return 0;
}

/* KeyValue (range) or KeyChange (change). */
static int parse_kv(rd *r, merkle_mdb_msg msg, merkle_mdb_kv *out)
{
    uint64_t num;
    unsigned wt;
    int t;
    const uint8_t *k = NULL, *v = NULL;
    size_t kl = 0, vl = 0;
    int some = msg == MERKLE_MDB_RANGE_PROOF;
    while ((t = rd_tag(r, &num, &wt)) == 1) {
        rd s;
        if (num == 1 && wt == 2) {
            if (rd_len(r, &s) != 0) return -1;
            k = s.p;
            kl = s.n;
        } else if (num == 2 && wt == 2) {
            if (rd_len(r, &s) != 0) return -1;
            if (msg == MERKLE_MDB_RANGE_PROOF) {
                v = s.p;
                vl = s.n;
            } else {
                some = 1;
                if (parse_maybe(&s, &v, &vl) != 0) return -1;
            }
        } else if (rd_skip(r, num, wt, 0) != 0) {
            return -1;
        }
    }
    if (t != 0) return -1;
    if (out) *out = (merkle_mdb_kv){ kl ? k : NULL, kl, { vl ? v : NULL, vl, some } };
    return 0;
}

static merkle_status proto_fail(merkle_mdb_result *res)
{
    mdb_set(res, MERKLE_MDB_ERR_PROTO, NULL);
    return MERKLE_ERR_FORMAT;
}

static merkle_status conv_fail(merkle_mdb_result *res, int kind, size_t hlen)
{
    if (kind == MERKLE_MDB_ERR_INVALID_HASH_LEN)
        mdb_set(res, kind, "invalid hash length: expected 32 bytes but got %zu", hlen);
    else
        mdb_set(res, kind, NULL);
    return MERKLE_ERR_FORMAT;
}

merkle_status merkle_mdb_proof_decode(merkle_mdb_proof **out, merkle_mdb_result *res,
                                      merkle_mdb_msg msg, const uint8_t *buf, size_t len)
{
    if (out == NULL || (buf == NULL && len) ||
        (msg != MERKLE_MDB_RANGE_PROOF && msg != MERKLE_MDB_CHANGE_PROOF))
        return MERKLE_ERR_ARG;
    *out = NULL;
    if (len > MERKLE_MDB_MAX_PROOF) return MERKLE_ERR_RANGE;
    /* Pass 1: wire format and counts. */
    size_t cnt[4] = { 0, 0, 0, 0 }, entries = 0;
    rd r = { buf, len, 0 };
    uint64_t num;
    unsigned wt;
    int t;
    raw_node raw;
    while ((t = rd_tag(&r, &num, &wt)) == 1) {
        rd s;
        if (num >= 1 && num <= 3 && wt == 2) {
            if (rd_len(&r, &s) != 0) return proto_fail(res);
            if (num == 3) {
                if (parse_kv(&s, msg, NULL) != 0) return proto_fail(res);
            } else {
                if (parse_node(&s, &raw, NULL, NULL, NULL) != 0) return proto_fail(res);
                entries += raw.nentries;
            }
            cnt[num]++;
        } else if (rd_skip(&r, num, wt, 0) != 0) {
            return proto_fail(res);
        }
    }
    if (t != 0) return proto_fail(res);
    merkle_mdb_proof *p = mdb_proof_new();
    if (p == NULL) return MERKLE_ERR_NOMEM;
    mdb_arena *a = mdb_proof_arena(p);
    uint8_t *copy = len ? mdb_alloc(a, len) : NULL;
    merkle_mdb_node *nodes = mdb_zalloc(a, (cnt[1] + cnt[2]) * sizeof *nodes);
    merkle_mdb_kv *kvs = mdb_zalloc(a, cnt[3] * sizeof *kvs);
    merkle_mdb_child *kids = mdb_alloc(a, entries * sizeof *kids);
    int *errs = mdb_zalloc(a, (cnt[1] + cnt[2]) * sizeof *errs);
    size_t *hl = mdb_zalloc(a, (cnt[1] + cnt[2]) * sizeof *hl);
    if ((len && copy == NULL) || nodes == NULL || kvs == NULL || kids == NULL || errs == NULL ||
        hl == NULL) {
        merkle_mdb_proof_free(p);
        return MERKLE_ERR_NOMEM;
    }
    if (len) memcpy(copy, buf, len);
    /* Pass 2: fill. Start nodes go first in `nodes`, end nodes after them. */
    size_t ns = 0, ne = 0, nkv = 0, used = 0;
    r = (rd){ copy, len, 0 };
    while (rd_tag(&r, &num, &wt) == 1) {
        rd s;
        if (num >= 1 && num <= 3 && wt == 2) {
            (void)rd_len(&r, &s);
            if (num == 3) {
                (void)parse_kv(&s, msg, &kvs[nkv++]);
            } else {
                size_t i = num == 1 ? ns++ : cnt[1] + ne++;
                (void)parse_node(&s, &raw, &nodes[i], kids + used, &errs[i]);
                if (errs[i] == 0) zero_padding(copy, &nodes[i]);
                used += nodes[i].nchildren <= raw.nentries ? nodes[i].nchildren : 0;
                if (errs[i] == MERKLE_MDB_ERR_INVALID_HASH_LEN) hl[i] = nodes[i].nchildren;
            }
        } else {
            (void)rd_skip(&r, num, wt, 0);
        }
    }
    for (size_t i = 0; i < cnt[1] + cnt[2]; i++) {
        if (errs[i]) {
            merkle_status st = conv_fail(res, errs[i], hl[i]);
            merkle_mdb_proof_free(p);
            return st;
        }
    }
    p->start_proof = nodes;
    p->nstart = cnt[1];
    p->end_proof = nodes + cnt[1];
    p->nend = cnt[2];
    p->kvs = kvs;
    p->nkvs = cnt[3];
    *out = p;
    mdb_set(res, MERKLE_MDB_OK, NULL);
    return MERKLE_OK;
}

merkle_status merkle_mdb_path_decode(merkle_mdb_proof **out, merkle_mdb_result *res,
                                     const uint8_t *const *bufs, const size_t *lens, size_t n)
{
    if (out == NULL || (n && (bufs == NULL || lens == NULL))) return MERKLE_ERR_ARG;
    *out = NULL;
    size_t total = 0, entries = 0;
    raw_node raw;
    for (size_t i = 0; i < n; i++) {
        if (bufs[i] == NULL && lens[i]) return MERKLE_ERR_ARG;
        if (lens[i] > MERKLE_MDB_MAX_PROOF - total) return MERKLE_ERR_RANGE;
        total += lens[i];
        rd r = { bufs[i], lens[i], 0 };
        if (parse_node(&r, &raw, NULL, NULL, NULL) != 0) return proto_fail(res);
        entries += raw.nentries;
    }
    merkle_mdb_proof *p = mdb_proof_new();
    if (p == NULL) return MERKLE_ERR_NOMEM;
    mdb_arena *a = mdb_proof_arena(p);
    merkle_mdb_node *nodes = mdb_zalloc(a, n * sizeof *nodes);
    merkle_mdb_child *kids = mdb_alloc(a, entries * sizeof *kids);
    if (nodes == NULL || kids == NULL) {
        merkle_mdb_proof_free(p);
        return MERKLE_ERR_NOMEM;
    }
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t *copy = lens[i] ? mdb_alloc(a, lens[i]) : NULL;
        if (lens[i] && copy == NULL) {
            merkle_mdb_proof_free(p);
            return MERKLE_ERR_NOMEM;
        }
        if (lens[i]) memcpy(copy, bufs[i], lens[i]);
        rd r = { copy, lens[i], 0 };
        int err = 0;
        (void)parse_node(&r, &raw, &nodes[i], kids + used, &err);
        if (err == 0) zero_padding(copy, &nodes[i]);
        if (err) {
            merkle_status st = conv_fail(res, err, nodes[i].nchildren);
            merkle_mdb_proof_free(p);
            return st;
        }
        used += nodes[i].nchildren;
    }
    p->start_proof = nodes;
    p->nstart = n;
    p->end_proof = nodes + n;
    *out = p;
    mdb_set(res, MERKLE_MDB_OK, NULL);
    return MERKLE_OK;
}

/* ------------------------------------------------------------------ encoding */

static size_t uv_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static void put_uv(merkle__sink *s, uint64_t v)
{
    uint8_t b[MERKLE__UVARINT_MAX];
    merkle__sink_put(s, b, merkle__uvarint_put(b, v));
}

static void put_bytes_field(merkle__sink *s, unsigned field, const uint8_t *p, size_t n)
{
    put_uv(s, (uint64_t)field << 3 | 2);
    put_uv(s, n);
    if (n) merkle__sink_put(s, p, n);
}

static size_t key_msg_len(const merkle_mdb_node *n)
{
    size_t l = 0;
    if (n->key_bits) l += 1 + uv_len((uint64_t)n->key_bits);
    if (n->key_len) l += 1 + uv_len(n->key_len) + n->key_len;
    return l;
}

static size_t node_body_len(const merkle_mdb_node *n)
{
    size_t kl = key_msg_len(n);
    size_t l = 1 + uv_len(kl) + kl;
    if (n->value_or_hash.some) {
        size_t ml =
            n->value_or_hash.len ? 1 + uv_len(n->value_or_hash.len) + n->value_or_hash.len : 0;
        l += 1 + uv_len(ml) + ml;
    }
    for (size_t i = 0; i < n->nchildren; i++) {
        size_t el = 1 + uv_len(n->children[i].index) + 2 + MERKLE_TRIE_ID_LEN;
        l += 1 + uv_len(el) + el;
    }
    return l;
}

static void put_node_body(merkle__sink *s, const merkle_mdb_node *n)
{
    put_uv(s, 0x0a);
    put_uv(s, key_msg_len(n));
    if (n->key_bits) {
        put_uv(s, 0x08);
        put_uv(s, (uint64_t)n->key_bits);
    }
    if (n->key_len) put_bytes_field(s, 2, n->key, n->key_len);
    if (n->value_or_hash.some) {
        size_t vl = n->value_or_hash.len;
        put_uv(s, 0x12);
        put_uv(s, vl ? 1 + uv_len(vl) + vl : 0);
        if (vl) put_bytes_field(s, 1, n->value_or_hash.ptr, vl);
    }
    for (size_t i = 0; i < n->nchildren; i++) {
        const merkle_mdb_child *c = &n->children[i];
        put_uv(s, 0x1a);
        put_uv(s, 1 + uv_len(c->index) + 2 + MERKLE_TRIE_ID_LEN);
        put_uv(s, 0x08);
        put_uv(s, c->index);
        put_bytes_field(s, 2, c->id, MERKLE_TRIE_ID_LEN);
    }
}

static int node_ok(const merkle_mdb_node *n)
{
    return n->key_bits >= 0 && (n->key != NULL || n->key_len == 0) &&
           (n->children != NULL || n->nchildren == 0) &&
           (n->value_or_hash.ptr != NULL || n->value_or_hash.len == 0);
}

merkle_status merkle_mdb_node_encode(uint8_t *out, size_t cap, size_t *out_len,
                                     const merkle_mdb_node *n)
{
    if (out_len == NULL || n == NULL || (out == NULL && cap) || !node_ok(n)) return MERKLE_ERR_ARG;
    merkle__sink s = { out, cap, 0 };
    put_node_body(&s, n);
    *out_len = s.len;
    return s.len > cap ? MERKLE_ERR_BUFFER : MERKLE_OK;
}

merkle_status merkle_mdb_proof_encode(uint8_t *out, size_t cap, size_t *out_len,
                                      const merkle_mdb_proof *p, merkle_mdb_msg msg)
{
    if (out_len == NULL || p == NULL || (out == NULL && cap) ||
        (msg != MERKLE_MDB_RANGE_PROOF && msg != MERKLE_MDB_CHANGE_PROOF))
        return MERKLE_ERR_ARG;
    for (size_t i = 0; i < p->nstart; i++)
        if (!node_ok(&p->start_proof[i])) return MERKLE_ERR_ARG;
    for (size_t i = 0; i < p->nend; i++)
        if (!node_ok(&p->end_proof[i])) return MERKLE_ERR_ARG;
    merkle__sink s = { out, cap, 0 };
    for (unsigned f = 1; f <= 2; f++) {
        const merkle_mdb_node *v = f == 1 ? p->start_proof : p->end_proof;
        size_t n = f == 1 ? p->nstart : p->nend;
        for (size_t i = 0; i < n; i++) {
            put_uv(&s, (uint64_t)f << 3 | 2);
            put_uv(&s, node_body_len(&v[i]));
            put_node_body(&s, &v[i]);
        }
    }
    for (size_t i = 0; i < p->nkvs; i++) {
        const merkle_mdb_kv *kv = &p->kvs[i];
        size_t vl = kv->value.some ? kv->value.len : 0;
        size_t l = kv->key_len ? 1 + uv_len(kv->key_len) + kv->key_len : 0;
        size_t ml = vl ? 1 + uv_len(vl) + vl : 0;
        if (msg == MERKLE_MDB_RANGE_PROOF)
            l += ml;
        else if (kv->value.some)
            l += 1 + uv_len(ml) + ml;
        put_uv(&s, 0x1a);
        put_uv(&s, l);
        if (kv->key_len) put_bytes_field(&s, 1, kv->key, kv->key_len);
        if (msg == MERKLE_MDB_RANGE_PROOF) {
            if (vl) put_bytes_field(&s, 2, kv->value.ptr, vl);
        } else if (kv->value.some) {
            put_uv(&s, 0x12);
            put_uv(&s, ml);
            if (vl) put_bytes_field(&s, 1, kv->value.ptr, vl);
        }
    }
    *out_len = s.len;
    return s.len > cap ? MERKLE_ERR_BUFFER : MERKLE_OK;
}
