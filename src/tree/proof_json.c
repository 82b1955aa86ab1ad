/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The JSON rendering of proof objects and its parser (over src/common/json.h).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "merkle/hash.h"
#include "tree/proof_impl.h"

typedef unsigned long long ull;

/* ------------------------------------------------------------------ JSON rendering */

/* A tree hash: bitcoin's are written in display (byte-reversed) order. */
static void put_hash(merkle__sink *b, const merkle_proof *p, const uint8_t *d)
{
    if (p->profile != MERKLE_PROFILE_BITCOIN) {
        merkle__json_hex_string(b, d, MERKLE_HASH_LEN);
        return;
    }
    uint8_t r[MERKLE_HASH_LEN];
    for (int i = 0; i < MERKLE_HASH_LEN; i++) r[i] = d[MERKLE_HASH_LEN - 1 - i];
    merkle__json_hex_string(b, r, MERKLE_HASH_LEN);
}

static void put_path(merkle__sink *b, const char *key, const merkle_proof *p, const uint8_t *leaf,
                     size_t leaf_len, int with_leaf)
{
    merkle__json_putf(b, "  \"%s\": [", key);
    size_t k = 0;
    if (with_leaf) {
        merkle__sink_puts(b, "\n    ");
        merkle__json_hex_string(b, leaf, leaf_len);
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
    const char *kn = merkle__proof_kind_name(p->kind), *pn = merkle_profile_name(p->profile),
               *hn = merkle_hash_alg_name(p->hash);
    if (!kn || !pn || !hn || p->path_len > MERKLE_PROOF_MAX_PATH) return MERKLE_ERR_ARG;
    merkle__sink b = { out, cap, 0 };
    merkle__json_putf(&b, "{\n  \"type\": \"%s\",\n  \"profile\": \"%s\",\n  \"hash\": \"%s\",\n",
                      kn, pn, hn);
    if (p->kind == MERKLE_PROOF_CONSISTENCY) {
        merkle__json_putf(&b, "  \"old_size\": %llu,\n  \"new_size\": %llu,\n", (ull)p->index,
                          (ull)p->tree_size);
        if (p->flags & MERKLE_PROOF_HAS_OLD_ROOT) {
            merkle__sink_puts(&b, "  \"old_root\": ");
            merkle__json_hex_string(&b, p->old_root, MERKLE_HASH_LEN);
            merkle__sink_puts(&b, ",\n");
        }
        if (p->flags & MERKLE_PROOF_HAS_ROOT) {
            merkle__sink_puts(&b, "  \"new_root\": ");
            merkle__json_hex_string(&b, p->root, MERKLE_HASH_LEN);
            merkle__sink_puts(&b, ",\n");
        }
        put_path(&b, "path", p, NULL, 0, 0);
        merkle__sink_puts(&b, "\n}\n");
    } else {
        merkle__json_putf(&b, "  \"tree_size\": %llu,\n", (ull)p->tree_size);
        if (p->kind == MERKLE_PROOF_INCLUSION)
            merkle__json_putf(&b, "  \"%s\": %llu,\n",
                              p->profile == MERKLE_PROFILE_SSZ ||
                                      p->profile == MERKLE_PROFILE_BITTORRENT_V2
                                  ? "gindex"
                                  : "index",
                              (ull)p->index);
        else
            merkle__json_putf(&b, "  \"start\": %llu,\n  \"end\": %llu,\n", (ull)p->index,
                              (ull)p->end);
        if (p->leaf_size) merkle__json_putf(&b, "  \"leaf_size\": %llu,\n", (ull)p->leaf_size);
        if (leaf) {
            merkle__sink_puts(&b, "  \"leaf\": ");
            merkle__json_hex_string(&b, leaf, leaf_len);
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

/* CometBFT's crypto/merkle Proof as its RPC writes it (libs/json: int64 as strings, []byte
** in base64, compact). */
merkle_status merkle_proof_to_cometbft_json(char *out, size_t cap, size_t *out_len,
                                            const merkle_proof *p)
{
    if (!out_len || !p || (!out && cap) || p->path_len > MERKLE_PROOF_MAX_PATH)
        return MERKLE_ERR_ARG;
    if (p->kind != MERKLE_PROOF_INCLUSION || p->profile != MERKLE_PROFILE_RFC6962 ||
        p->hash != MERKLE_HASH_SHA256 || !(p->flags & MERKLE_PROOF_HAS_LEAF_HASH))
        return MERKLE_ERR_UNSUPPORTED;
    merkle__sink b = { out, cap, 0 };
    merkle__json_putf(&b,
                      "{\"total\":\"%llu\",\"index\":\"%llu\",\"leaf_hash\":", (ull)p->tree_size,
                      (ull)p->index);
    merkle__json_base64_string(&b, p->leaf_hash, MERKLE_HASH_LEN);
    merkle__sink_puts(&b, ",\"aunts\":[");
    for (size_t i = 0; i < p->path_len; i++) {
        if (i) merkle__sink_puts(&b, ",");
        merkle__json_base64_string(&b, p->path[i], MERKLE_HASH_LEN);
    }
    merkle__sink_puts(&b, "]}\n");
    merkle__sink_put(&b, "", 1); /* NUL */
    *out_len = b.len;
    return b.len <= cap ? MERKLE_OK : MERKLE_ERR_BUFFER;
}

/* ------------------------------------------------------------------ JSON parsing */

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

/* The parser's state across the nested objects of a CometBFT response. */
typedef struct pj_state {
    merkle_proof *p;
    uint8_t *leaf_buf;
    size_t leaf_cap, *leaf_len;
    unsigned seen;
    const char *type, *prof, *hashn;
    size_t type_n, prof_n, hash_n;
    uint64_t index, start, end, old;
    int comet;   /* CometBFT's names (total, aunts) or a CometBFT wrapper were seen */
    int wrapped; /* inside /tx's ResultTx / TxProof */
} pj_state;

/* A value that is an object: '{' next. */
static int next_is_object(merkle__json *j)
{
    return merkle__json_peek(j) == '{';
}

/* Walk the keys of the object at the cursor, calling field() for each (the cursor on the
** value, which field() must consume). */
typedef merkle_status (*pj_field_fn)(merkle__json *j, pj_state *st, const char *k, size_t kn,
                                     int depth);

static merkle_status pj_object(merkle__json *j, pj_state *st, pj_field_fn field, int depth)
{
    merkle_status s;
    int more;
    if ((s = merkle__json_open(j, '{', "expected a JSON object", &more)) != MERKLE_OK) return s;
    while (more) {
        const char *k;
        size_t kn;
        if ((s = merkle__json_key(j, &k, &kn)) != MERKLE_OK) return s;
        if ((s = field(j, st, k, kn, depth)) != MERKLE_OK) return s;
        if ((s = merkle__json_next(j, '}', &more)) != MERKLE_OK) return s;
    }
    return MERKLE_OK;
}

/* What the object at the cursor is, from its keys alone (the cursor is restored). */
enum { PJ_PROOF, PJ_RPC, PJ_RPC_ERROR, PJ_WRAPPER };

static merkle_status pj_classify(merkle__json *j, int *kind)
{
    size_t at = j->pos;
    *kind = PJ_PROOF;
    merkle_status s;
    int more, rpc = 0, err = 0, wrapper = 0;
    if ((s = merkle__json_open(j, '{', "expected a JSON object", &more)) != MERKLE_OK) return s;
    while (more) {
        const char *k;
        size_t kn;
        if ((s = merkle__json_key(j, &k, &kn)) != MERKLE_OK) return s;
        int c = merkle__json_peek(j);
        if (merkle__json_key_is(k, kn, "result") && c == '{') rpc = 1;
        if (merkle__json_key_is(k, kn, "error") && c != 'n') err = 1;
        if (merkle__json_key_is(k, kn, "proof") && c == '{') wrapper = 1;
        if ((s = merkle__json_skip(j, 1)) != MERKLE_OK) return s;
        if ((s = merkle__json_next(j, '}', &more)) != MERKLE_OK) return s;
    }
    j->pos = at;
    *kind = err ? PJ_RPC_ERROR : rpc ? PJ_RPC : wrapper ? PJ_WRAPPER : PJ_PROOF;
    return MERKLE_OK;
}

static merkle_status pj_fields(merkle__json *j, pj_state *st, const char *k, size_t kn, int depth);

/* Any level: a proof object, or a wrapper around one (JSON-RPC envelope, ResultTx, TxProof). */
static merkle_status pj_level(merkle__json *j, pj_state *st, int depth);

/* The JSON-RPC envelope: only "result" matters. */
static merkle_status pj_rpc_field(merkle__json *j, pj_state *st, const char *k, size_t kn,
                                  int depth)
{
    if (merkle__json_key_is(k, kn, "result") && next_is_object(j)) {
        int kind;
        merkle_status s = pj_classify(j, &kind);
        if (s != MERKLE_OK) return s;
        if (kind != PJ_WRAPPER)
            return merkle__fail(j->err, MERKLE_ERR_FORMAT, 1, j->pos,
                                "proof JSON: the JSON-RPC result carries no proof (query /tx "
                                "with prove=true)");
        return pj_level(j, st, depth + 1);
    }
    return merkle__json_skip(j, depth + 1);
}

/* CometBFT's ResultTx ({hash, height, index, tx_result, tx, proof}) and TxProof ({root_hash,
** data, proof}): the root and the transaction of TxProof, and the nested proof. The leaf of a
** transaction tree is the transaction's hash, SHA-256(tx) (types.Tx.Hash). */
static merkle_status pj_wrapper_field(merkle__json *j, pj_state *st, const char *k, size_t kn,
                                      int depth)
{
    merkle_status s;
    if (merkle__json_key_is(k, kn, "proof") && next_is_object(j)) return pj_level(j, st, depth + 1);
    if (merkle__json_key_is(k, kn, "root_hash")) {
        if (st->seen & F_ROOT) return merkle__json_fail(j, "duplicate key");
        size_t at = j->pos;
        const char *a;
        size_t n;
        if ((s = merkle__json_string(j, &a, &n)) != MERKLE_OK) return s;
        if (n == 0) return MERKLE_OK; /* an empty TxProof: no root */
        j->pos = at;
        st->seen |= F_ROOT;
        return merkle__json_hash(j, st->p->root, "root_hash", 1);
    }
    if (merkle__json_key_is(k, kn, "data") && merkle__json_peek(j) == '"') {
        if (st->seen & F_LEAF) return merkle__json_fail(j, "duplicate key");
        size_t at = j->pos;
        const char *a;
        size_t n;
        if ((s = merkle__json_string(j, &a, &n)) != MERKLE_OK) return s;
        uint8_t *tx = malloc(n ? n : 1);
        if (!tx) return merkle__fail(j->err, MERKLE_ERR_NOMEM, 1, at, "out of memory");
        merkle__json sub = MERKLE__JSON_INIT(j->s + at, j->pos - at, j->err);
        size_t got = 0;
        s = merkle__json_base64(&sub, tx, n, &got, "data");
        if (s == MERKLE_OK) {
            if (st->leaf_cap < MERKLE_HASH_LEN) {
                s = merkle__fail(j->err, MERKLE_ERR_BUFFER, 1, at,
                                 "proof JSON: leaf of %d bytes does not fit", MERKLE_HASH_LEN);
            } else {
                merkle_sha256 h;
                merkle_sha256_init(&h);
                merkle_sha256_update(&h, tx, got);
                merkle_sha256_final(&h, st->leaf_buf);
                if (st->leaf_len) *st->leaf_len = MERKLE_HASH_LEN;
                st->p->flags |= MERKLE_PROOF_HAS_LEAF;
                st->seen |= F_LEAF;
            }
        }
        free(tx);
        return s;
    }
    return merkle__json_skip(j, depth + 1);
}

static merkle_status pj_level(merkle__json *j, pj_state *st, int depth)
{
    if (depth > 4) return merkle__json_fail(j, "nesting too deep");
    int kind;
    merkle_status s = pj_classify(j, &kind);
    if (s != MERKLE_OK) return s;
    switch (kind) {
    case PJ_RPC_ERROR: return merkle__json_fail(j, "a JSON-RPC error response, not a proof");
    case PJ_RPC: st->comet = 1; return pj_object(j, st, pj_rpc_field, depth);
    case PJ_WRAPPER: st->comet = st->wrapped = 1; return pj_object(j, st, pj_wrapper_field, depth);
    default: return pj_object(j, st, pj_fields, depth);
    }
}

/* A field of the proof object itself (ours, transparency-dev's or CometBFT's names). */
static merkle_status pj_fields(merkle__json *j, pj_state *st, const char *k, size_t kn, int depth)
{
    merkle_proof *p = st->p;
    merkle_status s = MERKLE_OK;
    unsigned f = 0;
    if (merkle__json_key_is(k, kn, "type"))
        f = F_TYPE;
    else if (merkle__json_key_is(k, kn, "profile"))
        f = F_PROFILE;
    else if (merkle__json_key_is(k, kn, "hash"))
        f = F_HASH;
    else if (merkle__json_key_is(k, kn, "tree_size") || merkle__json_key_is(k, kn, "new_size") ||
             merkle__json_key_is(k, kn, "size2"))
        f = F_SIZE;
    else if (merkle__json_key_is(k, kn, "total"))
        f = F_SIZE, st->comet = 1;
    else if (merkle__json_key_is(k, kn, "index") || merkle__json_key_is(k, kn, "gindex"))
        f = F_INDEX;
    else if (merkle__json_key_is(k, kn, "start"))
        f = F_START;
    else if (merkle__json_key_is(k, kn, "end"))
        f = F_END;
    else if (merkle__json_key_is(k, kn, "old_size") || merkle__json_key_is(k, kn, "size1"))
        f = F_OLD;
    else if (merkle__json_key_is(k, kn, "leaf_size"))
        f = F_LEAFSIZE;
    else if (merkle__json_key_is(k, kn, "leaf"))
        f = F_LEAF;
    else if (merkle__json_key_is(k, kn, "leaf_hash"))
        f = F_LEAFHASH;
    else if (merkle__json_key_is(k, kn, "root") || merkle__json_key_is(k, kn, "new_root") ||
             merkle__json_key_is(k, kn, "root2"))
        f = F_ROOT;
    else if (merkle__json_key_is(k, kn, "old_root") || merkle__json_key_is(k, kn, "root1"))
        f = F_OLDROOT;
    else if (merkle__json_key_is(k, kn, "path") || merkle__json_key_is(k, kn, "proof"))
        f = F_PATH;
    else if (merkle__json_key_is(k, kn, "aunts"))
        f = F_PATH, st->comet = 1;
    if (f & st->seen) return merkle__json_fail(j, "duplicate key");
    st->seen |= f;
    if (f && merkle__json_peek(j) == 'n') {
        /* null: the field is absent (a nil root, for instance). */
        if ((s = merkle__json_literal(j, "null")) != MERKLE_OK) return s;
        st->seen &= ~f;
        return MERKLE_OK;
    }
    switch (f) {
    case F_TYPE: return merkle__json_string(j, &st->type, &st->type_n);
    case F_PROFILE: return merkle__json_string(j, &st->prof, &st->prof_n);
    case F_HASH: return merkle__json_string(j, &st->hashn, &st->hash_n);
    case F_SIZE: return merkle__json_uint_or_string(j, &p->tree_size);
    case F_INDEX: return merkle__json_uint_or_string(j, &st->index);
    case F_START: return merkle__json_uint_or_string(j, &st->start);
    case F_END: return merkle__json_uint_or_string(j, &st->end);
    case F_OLD: return merkle__json_uint_or_string(j, &st->old);
    case F_LEAFSIZE: return merkle__json_uint_or_string(j, &p->leaf_size);
    case F_LEAF: {
        size_t n = 0;
        s = merkle__json_hex(j, st->leaf_buf, st->leaf_cap, &n, "leaf");
        if (s == MERKLE_ERR_BUFFER)
            return merkle__fail(j->err, MERKLE_ERR_BUFFER, 1, j->pos,
                                "proof JSON: leaf of %zu bytes does not fit", n);
        if (st->leaf_len) *st->leaf_len = n;
        p->flags |= MERKLE_PROOF_HAS_LEAF;
        return s;
    }
    case F_LEAFHASH: return merkle__json_hash(j, p->leaf_hash, "leaf_hash", 0);
    case F_ROOT: return merkle__json_hash(j, p->root, "root", 1);
    case F_OLDROOT: return merkle__json_hash(j, p->old_root, "old_root", 1);
    case F_PATH: {
        int more;
        if ((s = merkle__json_open(j, '[', "path must be an array", &more)) != MERKLE_OK) return s;
        while (more) {
            if (p->path_len >= MERKLE_PROOF_MAX_PATH)
                return merkle__json_fail(j, "path has too many hashes");
            char what[32];
            snprintf(what, sizeof what, "path[%zu]", p->path_len);
            if ((s = merkle__json_hash(j, p->path[p->path_len], what, 0)) != MERKLE_OK) return s;
            p->path_len++;
            if ((s = merkle__json_next(j, ']', &more)) != MERKLE_OK) return s;
        }
        return MERKLE_OK;
    }
    default: return merkle__json_skip(j, depth + 1);
    }
}

/* What @openzeppelin/merkle-tree's getProof() returns, ["0x<64 hex>", ...]: an openzeppelin
** inclusion proof with no position, size, root or leaf (pairs are sorted: only the hashes
** count). Each element is exactly 64 hex digits, "0x" optional, as OpenZeppelin writes them. */
static merkle_status pj_bare_oz(merkle__json *j, merkle_proof *p)
{
    p->kind = MERKLE_PROOF_INCLUSION;
    p->profile = MERKLE_PROFILE_OPENZEPPELIN;
    p->hash = MERKLE_HASH_KECCAK256;
    p->end = 1;
    int more;
    merkle_status s = merkle__json_open(j, '[', "expected a JSON array", &more);
    while (s == MERKLE_OK && more) {
        size_t at = j->pos;
        const char *a;
        size_t n;
        if (merkle__json_peek(j) != '"')
            return merkle__json_fail(j, "a proof array is [\"0x<64 hex>\", ...]");
        if ((s = merkle__json_string(j, &a, &n)) != MERKLE_OK) return s;
        if (p->path_len == MERKLE_PROOF_MAX_PATH)
            return merkle__fail(j->err, MERKLE_ERR_FORMAT, 1, at, "proof JSON: more than %d hashes",
                                MERKLE_PROOF_MAX_PATH);
        if (n >= 2 && a[0] == '0' && (a[1] == 'x' || a[1] == 'X')) a += 2, n -= 2;
        size_t got = 0;
        if (n != 2 * MERKLE_HASH_LEN ||
            merkle_hex_decode(p->path[p->path_len], MERKLE_HASH_LEN, &got, a, n, NULL) !=
                MERKLE_OK ||
            got != MERKLE_HASH_LEN)
            return merkle__fail(j->err, MERKLE_ERR_FORMAT, 1, at,
                                "proof JSON: element %zu of the proof array is not a 32-byte hex "
                                "hash",
                                p->path_len);
        p->path_len++;
        if (merkle__json_peek(j) != ',' && merkle__json_peek(j) != ']')
            return merkle__json_fail(j, "a proof array is [\"0x<64 hex>\", ...]");
        s = merkle__json_next(j, ']', &more);
    }
    if (s == MERKLE_OK && merkle__json_peek(j) != -1)
        return merkle__json_fail(j, "a proof array is [\"0x<64 hex>\", ...]: trailing data");
    return s;
}

merkle_status merkle_proof_from_json(merkle_proof *p, uint8_t *leaf_buf, size_t leaf_cap,
                                     size_t *leaf_len, const char *json, size_t len,
                                     merkle_error *err)
{
    if (!p || (!json && len) || (!leaf_buf && leaf_cap))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "no proof or input");
    if (leaf_len) *leaf_len = 0;
    merkle__json j = MERKLE__JSON_INIT(json, len, err);
    memset(p, 0, offsetof(merkle_proof, path));
    p->version = MERKLE_PROOF_VERSION;
    p->path_len = 0;
    pj_state st;
    memset(&st, 0, sizeof st);
    st.p = p;
    st.leaf_buf = leaf_buf;
    st.leaf_cap = leaf_cap;
    st.leaf_len = leaf_len;
    if (merkle__json_peek(&j) == '[') return pj_bare_oz(&j, p);
    merkle_status s = pj_level(&j, &st, 0);
    if (s != MERKLE_OK) return s;
    if (merkle__json_peek(&j) != -1)
        return merkle__json_fail(&j, "trailing data after the JSON object");
    unsigned seen = st.seen;
    const char *type = st.type, *prof = st.prof, *hashn = st.hashn;
    size_t type_n = st.type_n, prof_n = st.prof_n, hash_n = st.hash_n;
    uint64_t index = st.index, start = st.start, end = st.end, old = st.old;
    if (st.wrapped && (!(seen & F_SIZE) || p->tree_size == 0))
        return merkle__fail(err, MERKLE_ERR_FORMAT, 1, 0,
                            "proof JSON: the CometBFT response carries no proof (query /tx "
                            "with prove=true)");
    /* CometBFT omits empty aunts (encoding/json's omitempty): a one-leaf tree. */
    if (st.comet && !(seen & F_PATH)) seen |= F_PATH;

    /* Kind: explicit, or implied by the fields present. */
    if (type) {
        if (merkle__json_key_is(type, type_n, "inclusion"))
            p->kind = MERKLE_PROOF_INCLUSION;
        else if (merkle__json_key_is(type, type_n, "consistency"))
            p->kind = MERKLE_PROOF_CONSISTENCY;
        else if (merkle__json_key_is(type, type_n, "range"))
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
    if (!(seen & F_LEAF)) p->flags &= ~(uint32_t)MERKLE_PROOF_HAS_LEAF;
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
