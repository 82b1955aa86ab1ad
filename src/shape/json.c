/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The JSON documents of shaped trees: multiproof documents (merkle_multiproof_alloc_json)
** and @openzeppelin/merkle-tree dump() files (merkle_shape_tree_alloc_dump), read over
** src/common/json.h. The dump writer is in abi.c, beside the ABI rows it writes.
*/
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "shape/shape_impl.h"

typedef unsigned long long ull;

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

static merkle_status mp_value_leaves(merkle__json *j, const char *types, merkle_multiproof *m);

/* types NULL: "leaves" holds leaf hashes; else @openzeppelin/merkle-tree's StandardMerkleTree
** values of those ABI types, each hashed to its leaf. */
static merkle_status mp_parse(merkle_multiproof *m, merkle__json *j, const char *types)
{
    const char *type = NULL, *prof = NULL, *hashn = NULL;
    size_t type_n = 0, prof_n = 0, hash_n = 0;
    int have_leaves = 0, have_proof = 0, have_flags = 0, have_g = 0;
    merkle_status s;
    if ((s = merkle__json_expect(j, '{', "expected a JSON object")) != MERKLE_OK) return s;
    if (merkle__json_peek(j) == '}') return merkle__json_fail(j, "empty multiproof");
    int more = 1;
    while (more) {
        const char *k;
        size_t kn;
        if ((s = merkle__json_key(j, &k, &kn)) != MERKLE_OK) return s;
        int *dup = NULL;
        int dummy = 0;
        if (merkle__json_key_is(k, kn, "type"))
            s = merkle__json_string(j, &type, &type_n);
        else if (merkle__json_key_is(k, kn, "profile"))
            s = merkle__json_string(j, &prof, &prof_n);
        else if (merkle__json_key_is(k, kn, "hash"))
            s = merkle__json_string(j, &hashn, &hash_n);
        else if (merkle__json_key_is(k, kn, "root")) {
            dup = &m->has_root;
            dummy = m->has_root;
            s = merkle__json_hash(j, m->root, "root", 1);
        } else if (merkle__json_key_is(k, kn, "gindices")) {
            dup = &have_g;
            dummy = have_g;
            s = merkle__json_array(j, 'u', (void **)&m->gindices, &m->ngindices, "gindices");
        } else if (merkle__json_key_is(k, kn, "leaves")) {
            dup = &have_leaves;
            dummy = have_leaves;
            s = types ? mp_value_leaves(j, types, m)
                      : merkle__json_array(j, 'h', (void **)&m->leaves, &m->nleaves, "leaves");
        } else if (merkle__json_key_is(k, kn, "proof")) {
            dup = &have_proof;
            dummy = have_proof;
            s = merkle__json_array(j, 'h', (void **)&m->proof, &m->nproof, "proof");
        } else if (merkle__json_key_is(k, kn, "proofFlags") ||
                   merkle__json_key_is(k, kn, "proof_flags")) {
            dup = &have_flags;
            dummy = have_flags;
            s = merkle__json_array(j, 'b', (void **)&m->flags, &m->nflags, "proofFlags");
        } else
            s = merkle__json_skip(j, 1);
        if (s != MERKLE_OK) return s;
        if (dup) {
            if (dummy) return merkle__json_fail(j, "duplicate key");
            *dup = 1;
        }
        if ((s = merkle__json_next(j, '}', &more)) != MERKLE_OK) return s;
    }
    if (merkle__json_peek(j) != -1)
        return merkle__json_fail(j, "trailing data after the JSON object");
    if (types && (have_g || (prof && !merkle__json_key_is(prof, prof_n, "openzeppelin"))))
        return merkle__fail(j->err, MERKLE_ERR_FORMAT, 1, 0,
                            "multiproof JSON: typed values are openzeppelin leaves only");
    if (type && !merkle__json_key_is(type, type_n, "multiproof"))
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

static merkle_status mp_alloc(merkle_multiproof **out, const char *types, const char *json,
                              size_t len, merkle_error *err)
{
    if (!out || (!json && len)) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "no input");
    *out = NULL;
    merkle_multiproof *m = calloc(1, sizeof *m);
    if (!m) return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    merkle__json j = MERKLE__JSON_INIT(json, len, err);
    merkle_status s = mp_parse(m, &j, types);
    if (s != MERKLE_OK) {
        merkle_multiproof_free(m);
        return s;
    }
    *out = m;
    return MERKLE_OK;
}

merkle_status merkle_multiproof_alloc_json(merkle_multiproof **out, const char *json, size_t len,
                                           merkle_error *err)
{
    return mp_alloc(out, NULL, json, len, err);
}

merkle_status merkle_multiproof_alloc_json_values(merkle_multiproof **out, const char *types,
                                                  const char *json, size_t len, merkle_error *err)
{
    if (!types) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "no leaf types");
    return mp_alloc(out, types, json, len, err);
}

size_t merkle_multiproof_leaf_count(const merkle_multiproof *m)
{
    return m ? m->nleaves : 0;
}

int merkle_multiproof_has_leaf(const merkle_multiproof *m, const uint8_t leaf[MERKLE_HASH_LEN])
{
    if (!m || !leaf) return 0;
    for (size_t i = 0; i < m->nleaves; i++)
        if (memcmp(m->leaves[i], leaf, MERKLE_HASH_LEN) == 0) return 1;
    return 0;
}

merkle_status merkle_multiproof_root(uint8_t out[MERKLE_HASH_LEN], const merkle_multiproof *m)
{
    if (!out || !m || !m->has_root) return MERKLE_ERR_ARG;
    memcpy(out, m->root, MERKLE_HASH_LEN);
    return MERKLE_OK;
}

merkle_status merkle_multiproof_verify(const merkle_multiproof *m, const uint8_t *root,
                                       merkle_error *err)
{
    if (!m) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "no multiproof");
    const uint8_t *rt = root;
    if (!rt)
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0,
                            "no trusted root to verify against (the document's own root proves "
                            "nothing)");
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

/* One value of a row, appended to the row text in the syntax of merkle_shape_abi_encode
** (an array -- an array or tuple value -- as "[v1,v2,...]", nested at most 32 deep). */
static merkle_status jrow_value_at(merkle__json *j, dstr *row, int depth)
{
    int c = merkle__json_peek(j);
    if (c == '[') {
        if (depth >= 32) return merkle__json_fail(j, "values nested too deeply");
        j->pos++;
        if (dput(row, "[", 1) != 0)
            return merkle__fail(j->err, MERKLE_ERR_NOMEM, 1, j->pos, "out of memory");
        int more = merkle__json_peek(j) != ']';
        if (!more) j->pos++;
        while (more) {
            merkle_status s = jrow_value_at(j, row, depth + 1);
            if (s == MERKLE_OK) s = merkle__json_next(j, ']', &more);
            if (s != MERKLE_OK) return s;
            if (more && dput(row, ",", 1) != 0)
                return merkle__fail(j->err, MERKLE_ERR_NOMEM, 1, j->pos, "out of memory");
        }
        return dput(row, "]", 1)
                   ? merkle__fail(j->err, MERKLE_ERR_NOMEM, 1, j->pos, "out of memory")
                   : MERKLE_OK;
    }
    if (c == '"') {
        const char *a;
        size_t n;
        merkle_status s = merkle__json_string(j, &a, &n);
        if (s != MERKLE_OK) return s;
        char *u = malloc(n + 1);
        if (!u) return merkle__fail(j->err, MERKLE_ERR_NOMEM, 1, j->pos, "out of memory");
        size_t un = merkle__json_unescape(u, a, n);
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
        merkle_status s = merkle__json_literal(j, c == 't' ? "true" : "false");
        if (s == MERKLE_OK && dput(row, c == 't' ? "true" : "false", c == 't' ? 4 : 5) != 0)
            return merkle__fail(j->err, MERKLE_ERR_NOMEM, 1, j->pos, "out of memory");
        return s;
    }
    size_t st = j->pos;
    merkle_status s = merkle__json_number_skip(j);
    if (s == MERKLE_OK && dput(row, j->s + st, j->pos - st) != 0)
        return merkle__fail(j->err, MERKLE_ERR_NOMEM, 1, j->pos, "out of memory");
    return s;
}

static merkle_status jrow_value(merkle__json *j, dstr *row)
{
    return jrow_value_at(j, row, 0);
}

/* One StandardMerkleTree value (a JSON array of its ABI values) as a row of
** merkle_shape_abi_encode's syntax, into row. */
static merkle_status jrow_of_value(merkle__json *j, dstr *row)
{
    row->len = 0;
    int more;
    merkle_status s = merkle__json_open(j, '[', "a standard-v1 value must be an array", &more);
    while (s == MERKLE_OK && more) {
        if ((s = jrow_value(j, row)) == MERKLE_OK) s = merkle__json_next(j, ']', &more);
        if (s == MERKLE_OK && more && dput(row, ",", 1))
            return merkle__fail(j->err, MERKLE_ERR_NOMEM, 1, j->pos, "out of memory");
    }
    return s;
}

/* getMultiProof()'s "leaves" of a StandardMerkleTree: its values, hashed to their leaves (a
** string is taken as a leaf hash already, as in merkle's own multiproof documents). */
static merkle_status mp_value_leaves(merkle__json *j, const char *types, merkle_multiproof *m)
{
    int more;
    merkle_status s = merkle__json_open(j, '[', "\"leaves\" must be an array", &more);
    if (s != MERKLE_OK) return s;
    dstr row = { 0 };
    size_t cap = 0;
    while (s == MERKLE_OK && more) {
        if (m->nleaves == cap) {
            size_t nc = cap ? 2 * cap : 16;
            void *p =
                nc > SIZE_MAX / MERKLE_HASH_LEN ? NULL : realloc(m->leaves, nc * MERKLE_HASH_LEN);
            if (!p) {
                s = merkle__fail(j->err, MERKLE_ERR_NOMEM, 1, j->pos, "out of memory");
                break;
            }
            m->leaves = p;
            cap = nc;
        }
        if (merkle__json_peek(j) == '"') { /* a leaf hash, as in merkle's own documents */
            if ((s = merkle__json_hash(j, m->leaves[m->nleaves], "leaves", 0)) != MERKLE_OK) break;
        } else if ((s = jrow_of_value(j, &row)) != MERKLE_OK) {
            break;
        } else if ((s = merkle_shape_abi_leaf(m->leaves[m->nleaves], types, row.s ? row.s : "",
                                              row.len, j->err)) != MERKLE_OK) {
            if (j->err) j->err->line = m->nleaves + 1;
            break;
        }
        m->nleaves++;
        s = merkle__json_next(j, ']', &more);
    }
    free(row.s);
    return s;
}

/* A dump's "leafEncoding" array into enc ("type,type,..."). */
static merkle_status dump_encoding(merkle__json *j, dstr *enc)
{
    int more;
    merkle_status s = merkle__json_open(j, '[', "leafEncoding must be an array", &more);
    while (s == MERKLE_OK && more) {
        const char *a;
        size_t an;
        if ((s = merkle__json_string(j, &a, &an)) != MERKLE_OK) return s;
        if ((enc->len && dput(enc, ",", 1)) || dput(enc, a, an))
            return merkle__fail(j->err, MERKLE_ERR_NOMEM, 1, j->pos, "out of memory");
        s = merkle__json_next(j, ']', &more);
    }
    return s;
}

/* OpenZeppelin reads a dump's keys in any order: find "format" and "leafEncoding" before the
** values are read. 1 when leafEncoding was found (into enc); a syntax error leaves both
** unset for the main reader to report. */
static int dump_prescan(const char *json, size_t len, int *standard, dstr *enc)
{
    merkle_error perr;
    merkle__json j = MERKLE__JSON_INIT(json, len, &perr);
    int found = 0, st = -1;
    int more;
    if (merkle__json_open(&j, '{', "", &more) != MERKLE_OK) return 0;
    while (more) {
        const char *k;
        size_t kn;
        merkle_status s = merkle__json_key(&j, &k, &kn);
        if (s == MERKLE_OK && merkle__json_key_is(k, kn, "format")) {
            const char *f;
            size_t fn;
            s = merkle__json_string(&j, &f, &fn);
            if (s == MERKLE_OK && merkle__json_key_is(f, fn, "standard-v1")) st = 1;
            if (s == MERKLE_OK && merkle__json_key_is(f, fn, "simple-v1")) st = 0;
        } else if (s == MERKLE_OK && merkle__json_key_is(k, kn, "leafEncoding") && !found) {
            s = dump_encoding(&j, enc);
            found = s == MERKLE_OK;
        } else if (s == MERKLE_OK) {
            s = merkle__json_skip(&j, 1);
        }
        if (s != MERKLE_OK || merkle__json_next(&j, '}', &more) != MERKLE_OK) break;
    }
    if (more || !found) {
        enc->len = 0;
        return 0;
    }
    if (st >= 0) *standard = st;
    return 1;
}

merkle_status merkle_shape_tree_alloc_dump(merkle_shape_tree **out, char *types, size_t types_cap,
                                           const char *json, size_t len, merkle_error *err)
{
    if (!out || (!json && len) || (!types && types_cap))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    *out = NULL;
    if (types_cap) types[0] = 0;
    merkle__json j = MERKLE__JSON_INIT(json, len, err);
    merkle_status s = MERKLE_OK;
    dstr enc = { 0 }, row = { 0 };
    uint8_t(*tree)[MERKLE_HASH_LEN] = NULL;
    size_t ntree = 0, tcap = 0, nvals = 0, vcap = 0;
    uint64_t *tidx = NULL;
    uint8_t(*lh)[MERKLE_HASH_LEN] = NULL; /* leaf hash of each value */
    int standard = -1, have_tree = 0, have_values = 0, have_enc = 0;
    j.doc = "dump JSON";
    have_enc = dump_prescan(json, len, &standard, &enc);
    int more;
    if ((s = merkle__json_open(&j, '{', "expected a JSON object", &more)) != MERKLE_OK) goto done;
    while (more) {
        const char *k;
        size_t kn;
        if ((s = merkle__json_key(&j, &k, &kn)) != MERKLE_OK) goto done;
        if (merkle__json_key_is(k, kn, "format")) {
            const char *f;
            size_t fn;
            if ((s = merkle__json_string(&j, &f, &fn)) != MERKLE_OK) goto done;
            if (merkle__json_key_is(f, fn, "standard-v1"))
                standard = 1;
            else if (merkle__json_key_is(f, fn, "simple-v1"))
                standard = 0;
            else {
                s = merkle__fail(err, MERKLE_ERR_FORMAT, 1, j.pos, "dump: unknown format '%.*s'",
                                 (int)(fn < 40 ? fn : 40), f);
                goto done;
            }
        } else if (merkle__json_key_is(k, kn, "hash")) {
            s = merkle__fail(err, MERKLE_ERR_UNSUPPORTED, 1, j.pos,
                             "dump: a tree with a custom node hash cannot be checked");
            goto done;
        } else if (merkle__json_key_is(k, kn, "leafEncoding")) {
            if (have_enc) { /* read by dump_prescan */
                if ((s = merkle__json_skip(&j, 1)) != MERKLE_OK) goto done;
            } else {
                have_enc = 1;
                if ((s = dump_encoding(&j, &enc)) != MERKLE_OK) goto done;
            }
        } else if (merkle__json_key_is(k, kn, "tree")) {
            have_tree = 1;
            s = merkle__json_array(&j, 'h', (void **)&tree, &ntree, "tree");
            if (s != MERKLE_OK) goto done;
            (void)tcap;
        } else if (merkle__json_key_is(k, kn, "values")) {
            have_values = 1;
            int vmore;
            if ((s = merkle__json_open(&j, '[', "values must be an array", &vmore)) != MERKLE_OK)
                goto done;
            while (vmore) {
                if (nvals == vcap) { /* parallel arrays: one capacity */
                    size_t nc = merkle__grow_cap(vcap, nvals + 1, MERKLE_HASH_LEN);
                    if (nc == 0 || merkle__realloc_n(&tidx, nc, sizeof *tidx) != 0 ||
                        merkle__realloc_n(&lh, nc, MERKLE_HASH_LEN) != 0)
                        goto nomem;
                    vcap = nc;
                }
                int have_v = 0, have_i = 0, fmore;
                if ((s = merkle__json_open(&j, '{', "a value must be an object", &fmore)) !=
                    MERKLE_OK)
                    goto done;
                while (fmore) {
                    const char *vk;
                    size_t vkn;
                    if ((s = merkle__json_key(&j, &vk, &vkn)) != MERKLE_OK) goto done;
                    if (merkle__json_key_is(vk, vkn, "treeIndex")) {
                        have_i = 1;
                        if ((s = merkle__json_uint(&j, &tidx[nvals])) != MERKLE_OK) goto done;
                    } else if (merkle__json_key_is(vk, vkn, "value")) {
                        have_v = 1;
                        if (standard != 1) {
                            /* simple-v1 (or format not seen yet: decided below) */
                            if (standard == -1 && merkle__json_peek(&j) == '[') standard = 1;
                        }
                        if (standard == 1) {
                            if (!have_enc) {
                                s = merkle__fail(err, MERKLE_ERR_FORMAT, 1, j.pos,
                                                 "dump: missing \"leafEncoding\"");
                                goto done;
                            }
                            if ((s = jrow_of_value(&j, &row)) != MERKLE_OK) goto done;
                            s = merkle_shape_abi_leaf(lh[nvals], enc.s ? enc.s : "",
                                                      row.s ? row.s : "", row.len, err);
                            if (s != MERKLE_OK) goto done;
                        } else {
                            /* formatLeaf: the value is a bytes32, the leaf is itself. */
                            if ((s = merkle__json_hash(&j, lh[nvals], "value", 0)) != MERKLE_OK)
                                goto done;
                        }
                    } else if ((s = merkle__json_skip(&j, 2)) != MERKLE_OK)
                        goto done;
                    if ((s = merkle__json_next(&j, '}', &fmore)) != MERKLE_OK) goto done;
                }
                if (!have_v || !have_i) {
                    s = merkle__fail(err, MERKLE_ERR_FORMAT, 1, j.pos,
                                     "dump: value %zu needs \"value\" and \"treeIndex\"", nvals);
                    goto done;
                }
                nvals++;
                if ((s = merkle__json_next(&j, ']', &vmore)) != MERKLE_OK) goto done;
            }
        } else if ((s = merkle__json_skip(&j, 1)) != MERKLE_OK)
            goto done;
        if ((s = merkle__json_next(&j, '}', &more)) != MERKLE_OK) goto done;
    }
    if (merkle__json_peek(&j) != -1) {
        s = merkle__json_fail(&j, "trailing data after the JSON object");
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
