/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** CLVM trees: every clvm vector of tree-public.json (atom prefixes, tree hashes, back-reference
** decoding with its error cases, back-reference encoding: byte equality with clvm_rs HEAD,
** round trip, length bounds), random DAGs with heavy sharing against a recursive OpenSSL
** reference, truncated and mutated inputs, every limit and the depth-30 expansion bomb. The
** hash-flooding attack on the unkeyed table versus the keyed one: test_sexp_flood.c.
*/
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "merkle/hash.h"
#include "merkle/sexp.h"
#include "sexp/sexp_impl.h"
#include "testutil.h"

/* ------------------------------------------------------------------ reference */

static void ref_sha(uint8_t out[32], uint8_t tag, const uint8_t *a, size_t alen, const uint8_t *b,
                    size_t blen)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    EVP_DigestUpdate(ctx, &tag, 1);
    EVP_DigestUpdate(ctx, a, alen);
    EVP_DigestUpdate(ctx, b, blen);
    EVP_DigestFinal_ex(ctx, out, NULL);
    EVP_MD_CTX_free(ctx);
}

/* Recursive tree hash straight from the definition, memoised per pair in memo (32*npairs,
** with done flags) so that shared DAGs stay cheap. Only for shallow test trees. */
static void ref_tree_hash(const merkle_sexp_store *st, merkle_sexp_node n, uint8_t *memo,
                          uint8_t *done, uint8_t out[32])
{
    if (merkle_sexp_is_atom(n)) {
        const uint8_t *d;
        size_t len;
        assert_int_equal(merkle_sexp_atom(&d, &len, st, n), MERKLE_OK);
        ref_sha(out, 1, d, len, NULL, 0);
        return;
    }
    if (done[n]) {
        memcpy(out, memo + 32 * (size_t)n, 32);
        return;
    }
    merkle_sexp_node l, r;
    assert_int_equal(merkle_sexp_pair(&l, &r, st, n), MERKLE_OK);
    uint8_t hl[32], hr[32];
    ref_tree_hash(st, l, memo, done, hl);
    ref_tree_hash(st, r, memo, done, hr);
    ref_sha(out, 2, hl, 32, hr, 32);
    memcpy(memo + 32 * (size_t)n, out, 32);
    done[n] = 1;
}

static void ref_hash_of(const merkle_sexp_store *st, merkle_sexp_node n, uint8_t out[32])
{
    size_t np = st->npairs + 1;
    uint8_t *memo = malloc(32 * np), *done = calloc(np, 1);
    ref_tree_hash(st, n, memo, done, out);
    free(memo);
    free(done);
}

/* ------------------------------------------------------------------ helpers */

static uint8_t *canonical_alloc(merkle_sexp_store *st, merkle_sexp_node n, size_t *len)
{
    uint64_t need;
    assert_int_equal(merkle_sexp_serialized_length(&need, st, n), MERKLE_OK);
    size_t got = 0;
    if (need > 0) {
        assert_int_equal(merkle_sexp_serialize(NULL, 0, &got, st, n), MERKLE_ERR_BUFFER);
        assert_int_equal(got, (size_t)need);
    }
    uint8_t *buf = malloc((size_t)need);
    assert_int_equal(merkle_sexp_serialize(buf, (size_t)need, &got, st, n), MERKLE_OK);
    assert_int_equal(got, (size_t)need);
    *len = got;
    return buf;
}

static merkle_sexp_node parse_ok(merkle_sexp_store *st, const uint8_t *in, size_t len,
                                 unsigned flags)
{
    merkle_sexp_node n;
    size_t used = 0;
    merkle_error err;
    merkle_status s = merkle_sexp_parse(&n, &used, st, in, len, flags, NULL, &err);
    if (s != MERKLE_OK) fail_msg("parse failed: %s", err.message);
    assert_int_equal(used, len);
    return n;
}

static merkle_sexp_node build_generated(merkle_sexp_store *st, const json *gen)
{
    const char *kind = json_get_str(gen, "kind");
    merkle_sexp_node n;
    if (strcmp(kind, "atom_fill") == 0) {
        size_t blen, len = (size_t)json_get(gen, "len")->integer;
        uint8_t *b = tu_unhex(json_get_str(gen, "byte_hex"), &blen);
        uint8_t *buf = malloc(len);
        memset(buf, b[0], len);
        assert_int_equal(merkle_sexp_atom_new(&n, st, buf, len), MERKLE_OK);
        free(buf);
        free(b);
        return n;
    }
    assert_string_equal(kind, "bomb");
    size_t alen;
    uint8_t *leaf = tu_unhex(json_get_str(gen, "leaf_atom_hex"), &alen);
    assert_int_equal(merkle_sexp_atom_new(&n, st, leaf, alen), MERKLE_OK);
    free(leaf);
    long long depth = json_get(gen, "depth")->integer;
    for (long long i = 0; i < depth; i++)
        assert_int_equal(merkle_sexp_pair_new(&n, st, n, n), MERKLE_OK);
    return n;
}

/* Tree of a tree_hash / backref_serialize vector (canonical_hex or tree_generator). */
static merkle_sexp_node vector_tree(merkle_sexp_store *st, const json *v)
{
    const char *hex = json_get_str(v, "canonical_hex");
    if (hex) {
        size_t len;
        uint8_t *in = tu_unhex(hex, &len);
        merkle_sexp_node n = parse_ok(st, in, len, MERKLE_SEXP_STRICT);
        size_t clen;
        uint8_t *c = canonical_alloc(st, n, &clen);
        tu_assert_hex(c, clen, hex, "canonical re-serialization");
        free(c);
        free(in);
        return n;
    }
    merkle_sexp_node n = build_generated(st, json_get(v, "tree_generator"));
    size_t clen;
    uint8_t *c = canonical_alloc(st, n, &clen);
    assert_int_equal((long long)clen, json_get(v, "canonical_len")->integer);
    uint8_t h[32];
    merkle_sha256_hash(h, c, clen);
    tu_assert_hex(h, 32, json_get_str(v, "canonical_sha256"), "canonical sha256");
    free(c);
    return n;
}

/* Encode with back references, then check: decodes to the same tree, never longer than
** canonical, strictly a valid parse with no trailing bytes. Returns the buffer. */
static uint8_t *backref_roundtrip(merkle_sexp_store *st, merkle_sexp_node n, size_t *blen)
{
    uint8_t *br;
    merkle_error err;
    merkle_status s = merkle_sexp_serialize_backrefs_alloc(&br, blen, st, n, 0, &err);
    if (s != MERKLE_OK) fail_msg("backref serialize: %s", err.message);
    uint64_t clen;
    assert_int_equal(merkle_sexp_serialized_length(&clen, st, n), MERKLE_OK);
    assert_true((uint64_t)*blen <= clen);
    uint8_t want[32], got[32];
    assert_int_equal(merkle_sexp_tree_hash(want, st, n), MERKLE_OK);
    merkle_sexp_store *st2 = NULL;
    assert_int_equal(merkle_sexp_store_alloc(&st2), MERKLE_OK);
    merkle_sexp_node m = parse_ok(st2, br, *blen, MERKLE_SEXP_BACKREFS);
    assert_int_equal(merkle_sexp_tree_hash(got, st2, m), MERKLE_OK);
    assert_memory_equal(want, got, 32);
    merkle_sexp_store_free(st2);
    /* differential: the indexed search and clvm_rs's own BFS agree on every token */
    merkle__sexp_br_opts o;
    memset(&o, 0, sizeof o);
    o.crosscheck = 1;
    o.work_base = (uint64_t)1 << 40;
    uint8_t *br2;
    size_t blen2;
    assert_int_equal(merkle__sexp_serialize_backrefs(&br2, &blen2, st, n, 0, &o, NULL), MERKLE_OK);
    assert_int_equal(o.mismatches, 0);
    assert_int_equal(o.internal_errors, 0);
    assert_int_equal(o.budget_cuts, 0);
    assert_int_equal(blen2, *blen);
    assert_memory_equal(br2, br, *blen);
    free(br2);
    return br;
}

/* ------------------------------------------------------------------ vectors */

static void test_atom_prefix_vectors(void **state)
{
    (void)state;
    json *doc = tu_load_vectors("tree-public.json");
    const json *clvm = json_get(doc, "clvm");
    const json *ap = json_get(clvm, "atom_prefix");
    assert_true(ap->len >= 10);
    for (size_t i = 0; i < ap->len; i++) {
        const json *v = json_at(ap, i);
        uint8_t pre[5];
        size_t k = merkle_sexp_atom_prefix(pre, (uint64_t)json_get(v, "atom_len")->integer);
        tu_assert_hex(pre, k, json_get_str(v, "prefix_hex"), "atom prefix");
    }
    uint8_t pre[5];
    assert_int_equal(merkle_sexp_atom_prefix(pre, 0x400000000ULL), 0);
    const json *sa = json_get(clvm, "small_atom_encoding");
    for (size_t i = 0; i < sa->len; i++) {
        const json *v = json_at(sa, i);
        merkle_sexp_store *st = NULL;
        assert_int_equal(merkle_sexp_store_alloc(&st), MERKLE_OK);
        size_t alen;
        uint8_t *a = tu_unhex(json_get_str(v, "atom_hex"), &alen);
        merkle_sexp_node n;
        assert_int_equal(merkle_sexp_atom_new(&n, st, a, alen), MERKLE_OK);
        size_t clen;
        uint8_t *c = canonical_alloc(st, n, &clen);
        tu_assert_hex(c, clen, json_get_str(v, "serialized_hex"), "small atom");
        free(c);
        free(a);
        merkle_sexp_store_free(st);
    }
    json_free(doc);
}

static void test_tree_hash_vectors(void **state)
{
    (void)state;
    json *doc = tu_load_vectors("tree-public.json");
    const json *th = json_get(json_get(doc, "clvm"), "tree_hash");
    assert_true(th->len >= 30);
    for (size_t i = 0; i < th->len; i++) {
        const json *v = json_at(th, i);
        merkle_sexp_store *st = NULL;
        assert_int_equal(merkle_sexp_store_alloc(&st), MERKLE_OK);
        merkle_sexp_node n = vector_tree(st, v);
        uint8_t h[32], r[32];
        assert_int_equal(merkle_sexp_tree_hash(h, st, n), MERKLE_OK);
        tu_assert_hex(h, 32, json_get_str(v, "tree_hash_hex"), json_get_str(v, "id"));
        ref_hash_of(st, n, r);
        assert_memory_equal(h, r, 32);
        /* memoised second call */
        assert_int_equal(merkle_sexp_tree_hash(h, st, n), MERKLE_OK);
        assert_memory_equal(h, r, 32);
        merkle_sexp_store_free(st);
    }
    json_free(doc);
}

static void test_backref_serialize_vectors(void **state)
{
    (void)state;
    json *doc = tu_load_vectors("tree-public.json");
    const json *bs = json_get(json_get(doc, "clvm"), "backref_serialize");
    assert_true(bs->len >= 30);
    size_t equal_head = 0;
    for (size_t i = 0; i < bs->len; i++) {
        const json *v = json_at(bs, i);
        const char *id = json_get_str(v, "id");
        merkle_sexp_store *st = NULL;
        assert_int_equal(merkle_sexp_store_alloc(&st), MERKLE_OK);
        merkle_sexp_node n = vector_tree(st, v);
        uint8_t want[32];
        assert_int_equal(merkle_sexp_tree_hash(want, st, n), MERKLE_OK);
        size_t blen;
        merkle__sexp_br_opts o;
        memset(&o, 0, sizeof o);
        uint8_t *br;
        assert_int_equal(merkle__sexp_serialize_backrefs(&br, &blen, st, n, 0, &o, NULL),
                         MERKLE_OK);
        assert_int_equal(o.budget_cuts, 0);
        free(br);
        br = backref_roundtrip(st, n, &blen);
        assert_true((long long)blen <= json_get(v, "canonical_len")->integer);
        const json *head = json_get(v, "backref_clvm_rs_head");
        assert_non_null(head);
        if ((long long)blen > json_get(head, "len")->integer)
            fail_msg("%s: %zu bytes, clvm_rs HEAD %lld", id, blen, json_get(head, "len")->integer);
        /* We implement the HEAD encoder exactly: the bytes match too. */
        tu_assert_hex(br, blen, json_get_str(head, "hex"), id);
        equal_head++;
        free(br);
        /* Every variant's output decodes to the same tree (decoder differential). */
        static const char *const variants[] = { "backref_clvm_rs_head", "backref_clvm_rs_2024",
                                                "backref_clvm_python" };
        for (size_t k = 0; k < 3; k++) {
            const json *var = json_get(v, variants[k]);
            if (!var) continue;
            size_t len;
            uint8_t *in = tu_unhex(json_get_str(var, "hex"), &len);
            merkle_sexp_store *st2 = NULL;
            assert_int_equal(merkle_sexp_store_alloc(&st2), MERKLE_OK);
            merkle_sexp_node m = parse_ok(st2, in, len, MERKLE_SEXP_BACKREFS);
            uint8_t got[32];
            assert_int_equal(merkle_sexp_tree_hash(got, st2, m), MERKLE_OK);
            assert_memory_equal(want, got, 32);
            merkle_sexp_store_free(st2);
            free(in);
        }
        merkle_sexp_store_free(st);
    }
    assert_int_equal(equal_head, bs->len);
    json_free(doc);
}

static void test_backref_decode_vectors(void **state)
{
    (void)state;
    json *doc = tu_load_vectors("tree-public.json");
    const json *bd = json_get(json_get(doc, "clvm"), "backref_decode");
    assert_true(bd->len >= 10);
    size_t errors = 0;
    for (size_t i = 0; i < bd->len; i++) {
        const json *v = json_at(bd, i);
        const char *id = json_get_str(v, "id");
        size_t len;
        uint8_t *in = tu_unhex(json_get_str(v, "input_hex"), &len);
        merkle_sexp_store *st = NULL;
        assert_int_equal(merkle_sexp_store_alloc(&st), MERKLE_OK);
        merkle_sexp_node n;
        size_t used = 0;
        merkle_error err;
        memset(&err, 0, sizeof err);
        merkle_status s =
            merkle_sexp_parse(&n, &used, st, in, len, MERKLE_SEXP_BACKREFS, NULL, &err);
        if (strcmp(json_get_str(v, "expect"), "ok") == 0) {
            if (s != MERKLE_OK) fail_msg("%s: %s", id, err.message);
            assert_int_equal(used, len);
            size_t clen;
            uint8_t *c = canonical_alloc(st, n, &clen);
            tu_assert_hex(c, clen, json_get_str(v, "canonical_hex"), id);
            uint8_t h[32];
            assert_int_equal(merkle_sexp_tree_hash(h, st, n), MERKLE_OK);
            tu_assert_hex(h, 32, json_get_str(v, "tree_hash_hex"), id);
            free(c);
        } else {
            if (s != MERKLE_ERR_FORMAT) fail_msg("%s: expected a format error, got %d", id, s);
            assert_int_equal(err.status, MERKLE_ERR_FORMAT);
            assert_true(strlen(err.message) > 0);
            assert_int_equal(merkle_sexp_store_count(st), 0); /* rolled back */
            errors++;
        }
        merkle_sexp_store_free(st);
        free(in);
    }
    assert_true(errors >= 3);
    json_free(doc);
}

/* ------------------------------------------------------------------ parser details */

static merkle_status parse_hex(const char *hex, unsigned flags, const merkle_sexp_limits *lim,
                               merkle_error *err, uint8_t hash[32])
{
    size_t len;
    uint8_t *in = tu_unhex(hex, &len);
    merkle_sexp_store *st = NULL;
    assert_int_equal(merkle_sexp_store_alloc(&st), MERKLE_OK);
    merkle_sexp_node n;
    size_t used;
    merkle_status s = merkle_sexp_parse(&n, &used, st, in, len, flags, lim, err);
    if (s == MERKLE_OK && hash) assert_int_equal(merkle_sexp_tree_hash(hash, st, n), MERKLE_OK);
    merkle_sexp_store_free(st);
    free(in);
    return s;
}

static void test_parse_errors(void **state)
{
    (void)state;
    merkle_error err;
    /* back references refused without the flag, with the offset */
    assert_int_equal(parse_hex("ff83666f6ffe02", 0, NULL, &err, NULL), MERKLE_ERR_FORMAT);
    assert_int_equal(err.offset, 5);
    assert_non_null(strstr(err.message, "offset 5"));
    /* fe followed by ff / fe, or nothing */
    assert_int_equal(parse_hex("ff01feff", MERKLE_SEXP_BACKREFS, NULL, &err, NULL),
                     MERKLE_ERR_FORMAT);
    assert_int_equal(parse_hex("ff01fefe", MERKLE_SEXP_BACKREFS, NULL, &err, NULL),
                     MERKLE_ERR_FORMAT);
    assert_int_equal(parse_hex("ff01fe", MERKLE_SEXP_BACKREFS, NULL, &err, NULL),
                     MERKLE_ERR_FORMAT);
    assert_int_equal(err.offset, 3); /* where the path atom should start */
    /* bad prefixes: 6 or more leading ones */
    assert_int_equal(parse_hex("fc", 0, NULL, &err, NULL), MERKLE_ERR_FORMAT);
    assert_int_equal(parse_hex("fd", 0, NULL, &err, NULL), MERKLE_ERR_FORMAT);
    assert_int_equal(parse_hex("fe", 0, NULL, &err, NULL), MERKLE_ERR_FORMAT);
    /* sizes >= 2^34 */
    assert_int_equal(parse_hex("fc0000000000", 0, NULL, &err, NULL), MERKLE_ERR_FORMAT);
    /* truncated atom bodies and prefixes */
    assert_int_equal(parse_hex("83666f", 0, NULL, &err, NULL), MERKLE_ERR_FORMAT);
    assert_non_null(strstr(err.message, "truncated"));
    assert_int_equal(parse_hex("c0", 0, NULL, &err, NULL), MERKLE_ERR_FORMAT);
    assert_int_equal(parse_hex("", 0, NULL, &err, NULL), MERKLE_ERR_FORMAT);
    /* path walking into an atom, past the bottom of the stack */
    assert_int_equal(parse_hex("ff01fe04", MERKLE_SEXP_BACKREFS, NULL, &err, NULL),
                     MERKLE_ERR_FORMAT);
    assert_non_null(strstr(err.message, "atom"));
    assert_int_equal(parse_hex("ff01fe07", MERKLE_SEXP_BACKREFS, NULL, &err, NULL),
                     MERKLE_ERR_FORMAT);
    /* strict mode rejects non-minimal atoms; lenient accepts them with the same hash */
    uint8_t h1[32], h2[32];
    assert_int_equal(parse_hex("8101", MERKLE_SEXP_STRICT, NULL, &err, NULL), MERKLE_ERR_FORMAT);
    assert_int_equal(parse_hex("c00101", MERKLE_SEXP_STRICT, NULL, &err, NULL), MERKLE_ERR_FORMAT);
    assert_int_equal(parse_hex("c000", MERKLE_SEXP_STRICT, NULL, &err, NULL), MERKLE_ERR_FORMAT);
    assert_int_equal(parse_hex("8180", MERKLE_SEXP_STRICT, NULL, &err, h1), MERKLE_OK);
    assert_int_equal(parse_hex("c00101", 0, NULL, &err, h1), MERKLE_OK);
    assert_int_equal(parse_hex("01", 0, NULL, &err, h2), MERKLE_OK);
    assert_memory_equal(h1, h2, 32);
    /* trailing bytes are left alone */
    merkle_sexp_store *st = NULL;
    assert_int_equal(merkle_sexp_store_alloc(&st), MERKLE_OK);
    merkle_sexp_node n;
    size_t used;
    static const uint8_t two[] = { 0x01, 0x02 };
    assert_int_equal(merkle_sexp_parse(&n, &used, st, two, 2, 0, NULL, NULL), MERKLE_OK);
    assert_int_equal(used, 1);
    /* arguments */
    assert_int_equal(merkle_sexp_parse(NULL, &used, st, two, 2, 0, NULL, NULL), MERKLE_ERR_ARG);
    assert_int_equal(merkle_sexp_parse(&n, &used, st, NULL, 2, 0, NULL, NULL), MERKLE_ERR_ARG);
    uint8_t h[32];
    assert_int_equal(merkle_sexp_tree_hash(h, st, 5), MERKLE_ERR_ARG);
    assert_int_equal(merkle_sexp_tree_hash(h, st, 7u | 0x80000000u), MERKLE_ERR_ARG);
    merkle_sexp_node l, r;
    assert_int_equal(merkle_sexp_pair(&l, &r, st, n), MERKLE_ERR_ARG);
    assert_int_equal(merkle_sexp_pair_new(&l, st, n, 99), MERKLE_ERR_ARG);
    merkle_sexp_store_free(st);
}

static void test_stack_paths(void **state)
{
    (void)state;
    merkle_error err;
    uint8_t a[32], b[32];
    /* fe01 on a deep stack materialises (1 2 3 ...): (1 . (2 . fe01)) = (1 2 (2 1)) ? compare
    ** with the explicit canonical form */
    assert_int_equal(parse_hex("ff01ff02fe01", MERKLE_SEXP_BACKREFS, NULL, &err, a), MERKLE_OK);
    assert_int_equal(parse_hex("ff01ff02ff02ff0180", 0, NULL, &err, b), MERKLE_OK);
    assert_memory_equal(a, b, 32);
    /* path 3 on the stack [1,2] (top 2) is (1); path 0b111 is nil; 0b1111 is past the bottom */
    assert_int_equal(parse_hex("ff01ff02fe03", MERKLE_SEXP_BACKREFS, NULL, &err, a), MERKLE_OK);
    assert_int_equal(parse_hex("ff01ff02ff0180", 0, NULL, &err, b), MERKLE_OK);
    assert_memory_equal(a, b, 32);
    assert_int_equal(parse_hex("ff01ff02fe07", MERKLE_SEXP_BACKREFS, NULL, &err, a), MERKLE_OK);
    assert_int_equal(parse_hex("ff01ff0280", 0, NULL, &err, b), MERKLE_OK);
    assert_memory_equal(a, b, 32);
    assert_int_equal(parse_hex("ff01ff02fe0f", MERKLE_SEXP_BACKREFS, NULL, &err, a),
                     MERKLE_ERR_FORMAT);
    /* a long run of fe01: linear work, each is the whole stack */
    size_t n = 20000;
    char *hex = malloc(6 * n + 8);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) w += (size_t)sprintf(hex + w, "ff");
    w += (size_t)sprintf(hex + w, "01");
    for (size_t i = 0; i < n; i++) w += (size_t)sprintf(hex + w, "fe01");
    hex[w] = 0;
    clock_t t0 = clock();
    assert_int_equal(parse_hex(hex, MERKLE_SEXP_BACKREFS, NULL, &err, a), MERKLE_OK);
    assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 2.0);
    free(hex);
}

static void test_limits(void **state)
{
    (void)state;
    merkle_sexp_limits lim;
    merkle_sexp_limits_init(&lim);
    merkle_error err;
    const char *list = "ff01ff02ff03ff04ff05ff0680"; /* 13 nodes, 13 bytes, depth 13 ops */
    assert_int_equal(parse_hex(list, 0, &lim, &err, NULL), MERKLE_OK);
    lim.max_nodes = 12;
    assert_int_equal(parse_hex(list, 0, &lim, &err, NULL), MERKLE_ERR_LIMIT);
    assert_int_equal(err.status, MERKLE_ERR_LIMIT);
    assert_non_null(strstr(err.message, "node limit"));
    lim.max_nodes = 13;
    assert_int_equal(parse_hex(list, 0, &lim, &err, NULL), MERKLE_OK);
    merkle_sexp_limits_init(&lim);
    lim.max_input = 12;
    assert_int_equal(parse_hex(list, 0, &lim, &err, NULL), MERKLE_ERR_LIMIT);
    assert_int_equal(err.offset, 12);
    lim.max_input = 13;
    assert_int_equal(parse_hex(list, 0, &lim, &err, NULL), MERKLE_OK);
    merkle_sexp_limits_init(&lim);
    lim.max_depth = 6;
    assert_int_equal(parse_hex(list, 0, &lim, &err, NULL), MERKLE_ERR_LIMIT);
    assert_non_null(strstr(err.message, "depth"));
    lim.max_depth = 13;
    assert_int_equal(parse_hex(list, 0, &lim, &err, NULL), MERKLE_OK);
    merkle_sexp_limits_init(&lim);
    lim.max_atom = 2;
    assert_int_equal(parse_hex("83666f6f", 0, &lim, &err, NULL), MERKLE_ERR_LIMIT);
    assert_int_equal(parse_hex("82666f", 0, &lim, &err, NULL), MERKLE_OK);
    /* a path atom counts as an atom too */
    assert_int_equal(parse_hex("ff01fe83000002", MERKLE_SEXP_BACKREFS, &lim, &err, NULL),
                     MERKLE_ERR_LIMIT);
    /* back-reference output limit */
    merkle_sexp_store *st = NULL;
    assert_int_equal(merkle_sexp_store_alloc(&st), MERKLE_OK);
    size_t len;
    uint8_t *in = tu_unhex(list, &len);
    merkle_sexp_node n = parse_ok(st, in, len, 0);
    uint8_t *out = NULL;
    size_t olen;
    assert_int_equal(merkle_sexp_serialize_backrefs_alloc(&out, &olen, st, n, 12, &err),
                     MERKLE_ERR_LIMIT);
    assert_null(out);
    assert_int_equal(merkle_sexp_serialize_backrefs_alloc(&out, &olen, st, n, 13, &err), MERKLE_OK);
    assert_int_equal(olen, 13);
    merkle_sexp_buffer_free(out);
    merkle_sexp_store_free(st);
    free(in);
}

/* The depth-30 bomb: 135 bytes, ~49 GB expanded. */
static void test_bomb(void **state)
{
    (void)state;
    const char *fox =
        "74686520717569636b2062726f776e20666f78206a756d7073206f76657220746865206c617a7920646f6773";
    size_t fox_len = strlen(fox) / 2;
    size_t depth = 30;
    char hex[400];
    size_t w = 0;
    for (size_t i = 0; i < depth; i++) w += (size_t)sprintf(hex + w, "ff");
    w += (size_t)sprintf(hex + w, "%02x%s", (unsigned)(0x80 | fox_len), fox);
    for (size_t i = 0; i < depth; i++) w += (size_t)sprintf(hex + w, "fe02");
    size_t len;
    uint8_t *in = tu_unhex(hex, &len);
    assert_int_equal(len, 135);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    merkle_sexp_store *st = NULL;
    assert_int_equal(merkle_sexp_store_alloc(&st), MERKLE_OK);
    merkle_sexp_node n = parse_ok(st, in, len, MERKLE_SEXP_BACKREFS);
    uint8_t h[32];
    assert_int_equal(merkle_sexp_tree_hash(h, st, n), MERKLE_OK);
    uint64_t clen;
    assert_int_equal(merkle_sexp_serialized_length(&clen, st, n), MERKLE_OK);
    uint8_t *br;
    size_t blen;
    assert_int_equal(merkle_sexp_serialize_backrefs_alloc(&br, &blen, st, n, 0, NULL), MERKLE_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    assert_true(secs < 0.5);
    assert_true(merkle_sexp_store_count(st) <= 64);
    /* expanded size: 2^30 leaves of 45 bytes and 2^30 - 1 pair markers */
    assert_int_equal(clen, ((uint64_t)1 << 30) * 45 + ((uint64_t)1 << 30) - 1);
    size_t got;
    /* A 32-bit size_t cannot hold the length: out of range rather than a buffer to grow. */
    assert_int_equal(merkle_sexp_serialize(NULL, 0, &got, st, n),
                     clen <= SIZE_MAX ? MERKLE_ERR_BUFFER : MERKLE_ERR_RANGE);
    /* independent hash: t0 = H(01||fox), t(i+1) = H(02||t(i)||t(i)) */
    uint8_t ref[32];
    ref_sha(ref, 1, in + depth + 1, fox_len, NULL, 0);
    for (size_t i = 0; i < depth; i++) ref_sha(ref, 2, ref, 32, ref, 32);
    assert_memory_equal(h, ref, 32);
    /* the encoder gives the bomb back in its compact form */
    tu_assert_hex(br, blen, hex, "bomb re-encoded");
    free(br);
    /* and a 64-level bomb's length saturates: RANGE, not a wrong number */
    for (size_t i = 0; i < 40; i++) assert_int_equal(merkle_sexp_pair_new(&n, st, n, n), MERKLE_OK);
    assert_int_equal(merkle_sexp_serialized_length(&clen, st, n), MERKLE_ERR_RANGE);
    assert_int_equal(merkle_sexp_tree_hash(h, st, n), MERKLE_OK);
    merkle_sexp_store_free(st);
    free(in);
}

/* ------------------------------------------------------------------ random DAGs */

/* Random DAG: pool of nodes; new pairs pick children among recent nodes, so subtrees are
** shared heavily; atoms come from a small alphabet so equal atoms repeat as separate nodes. */
static merkle_sexp_node random_dag(merkle_sexp_store *st, tu_rng *rng, size_t n_ops)
{
    merkle_sexp_node *pool = malloc((n_ops + 1) * sizeof *pool);
    size_t np = 0;
    for (size_t i = 0; i < n_ops; i++) {
        uint64_t r = tu_rng_below(rng, 10);
        if (np < 2 || r < 3) {
            uint8_t buf[80];
            size_t len;
            uint64_t kind = tu_rng_below(rng, 6);
            if (kind == 0)
                len = 0;
            else if (kind == 1)
                len = 1;
            else if (kind == 2)
                len = 2 + (size_t)tu_rng_below(rng, 4);
            else if (kind == 3)
                len = 32;
            else
                len = (size_t)tu_rng_below(rng, 80);
            for (size_t k = 0; k < len; k++)
                buf[k] = (uint8_t)tu_rng_below(rng, kind == 5 ? 256 : 3);
            assert_int_equal(merkle_sexp_atom_new(&pool[np], st, buf, len), MERKLE_OK);
            np++;
        } else {
            size_t window = np < 12 ? np : 12;
            merkle_sexp_node l = pool[np - 1 - (size_t)tu_rng_below(rng, window)];
            merkle_sexp_node r2 = pool[(size_t)tu_rng_below(rng, np)];
            if (tu_rng_below(rng, 2)) {
                merkle_sexp_node t = l;
                l = r2;
                r2 = t;
            }
            assert_int_equal(merkle_sexp_pair_new(&pool[np], st, l, r2), MERKLE_OK);
            np++;
        }
    }
    merkle_sexp_node root = pool[np - 1];
    free(pool);
    return root;
}

static void test_random_dags(void **state)
{
    (void)state;
    tu_rng rng;
    tu_rng_seed(&rng, 5);
    for (int iter = 0; iter < 300; iter++) {
        merkle_sexp_store *st = NULL;
        assert_int_equal(merkle_sexp_store_alloc(&st), MERKLE_OK);
        size_t ops = 2 + (size_t)tu_rng_below(&rng, iter < 250 ? 40 : 400);
        merkle_sexp_node n = random_dag(st, &rng, ops);
        uint64_t clen;
        assert_int_equal(merkle_sexp_serialized_length(&clen, st, n), MERKLE_OK);
        uint8_t h[32], r[32];
        ref_hash_of(st, n, r);
        assert_int_equal(merkle_sexp_tree_hash(h, st, n), MERKLE_OK);
        assert_memory_equal(h, r, 32);
        if (clen < ((uint64_t)1 << 22)) {
            size_t len;
            uint8_t *c = canonical_alloc(st, n, &len);
            merkle_sexp_store *st2 = NULL;
            assert_int_equal(merkle_sexp_store_alloc(&st2), MERKLE_OK);
            merkle_sexp_node m = parse_ok(st2, c, len, MERKLE_SEXP_STRICT);
            assert_int_equal(merkle_sexp_tree_hash(r, st2, m), MERKLE_OK);
            assert_memory_equal(h, r, 32);
            merkle_sexp_store_free(st2);
            free(c);
        }
        size_t blen;
        uint8_t *br = backref_roundtrip(st, n, &blen);
        /* re-encoding the decoded DAG gives the same bytes (determinism over sharing) */
        merkle_sexp_store *st3 = NULL;
        assert_int_equal(merkle_sexp_store_alloc(&st3), MERKLE_OK);
        merkle_sexp_node m = parse_ok(st3, br, blen, MERKLE_SEXP_BACKREFS);
        uint8_t *br2;
        size_t blen2;
        assert_int_equal(merkle_sexp_serialize_backrefs_alloc(&br2, &blen2, st3, m, 0, NULL),
                         MERKLE_OK);
        assert_int_equal(blen, blen2);
        assert_memory_equal(br, br2, blen);
        free(br2);
        merkle_sexp_store_free(st3);
        free(br);
        merkle_sexp_store_free(st);
    }
}

/* Every strict prefix of a valid serialization is a clean FORMAT error that leaves the store
** as it was; random byte mutations parse or fail cleanly, and what parses re-serializes. */
static void test_truncated_and_mutated(void **state)
{
    (void)state;
    tu_rng rng;
    tu_rng_seed(&rng, 77);
    for (int iter = 0; iter < 60; iter++) {
        merkle_sexp_store *st = NULL;
        assert_int_equal(merkle_sexp_store_alloc(&st), MERKLE_OK);
        merkle_sexp_node n = random_dag(st, &rng, 2 + (size_t)tu_rng_below(&rng, 30));
        size_t blen;
        uint8_t *br = backref_roundtrip(st, n, &blen);
        size_t before = merkle_sexp_store_count(st);
        for (size_t cut = 0; cut < blen; cut++) {
            merkle_sexp_node m;
            merkle_error err;
            merkle_status s =
                merkle_sexp_parse(&m, NULL, st, br, cut, MERKLE_SEXP_BACKREFS, NULL, &err);
            assert_int_equal(s, MERKLE_ERR_FORMAT);
            assert_true(err.offset <= cut);
            assert_int_equal(merkle_sexp_store_count(st), before);
        }
        for (int k = 0; k < 40; k++) {
            uint8_t *mut = malloc(blen);
            memcpy(mut, br, blen);
            mut[tu_rng_below(&rng, blen)] ^= (uint8_t)(1u << tu_rng_below(&rng, 8));
            merkle_sexp_store *s2 = NULL;
            assert_int_equal(merkle_sexp_store_alloc(&s2), MERKLE_OK);
            merkle_sexp_node m;
            size_t used;
            merkle_status s =
                merkle_sexp_parse(&m, &used, s2, mut, blen, MERKLE_SEXP_BACKREFS, NULL, NULL);
            assert_true(s == MERKLE_OK || s == MERKLE_ERR_FORMAT || s == MERKLE_ERR_LIMIT);
            if (s == MERKLE_OK) {
                uint8_t h1[32], h2[32];
                assert_int_equal(merkle_sexp_tree_hash(h1, s2, m), MERKLE_OK);
                size_t b2len;
                uint8_t *b2 = backref_roundtrip(s2, m, &b2len);
                free(b2);
                ref_hash_of(s2, m, h2);
                assert_memory_equal(h1, h2, 32);
            } else {
                assert_int_equal(merkle_sexp_store_count(s2), 0);
            }
            merkle_sexp_store_free(s2);
            free(mut);
        }
        free(br);
        merkle_sexp_store_free(st);
    }
}

static void test_store_clear_and_reuse(void **state)
{
    (void)state;
    merkle_sexp_store *st = NULL;
    assert_int_equal(merkle_sexp_store_alloc(&st), MERKLE_OK);
    uint8_t h1[32], h2[32];
    static const uint8_t a[] = { 0xff, 0x83, 'f', 'o', 'o', 0x80 };
    static const uint8_t b[] = { 0xff, 0x83, 'b', 'a', 'r', 0x80 };
    merkle_sexp_node n = parse_ok(st, a, sizeof a, 0);
    assert_int_equal(merkle_sexp_tree_hash(h1, st, n), MERKLE_OK);
    merkle_sexp_store_clear(st);
    assert_int_equal(merkle_sexp_store_count(st), 0);
    n = parse_ok(st, b, sizeof b, 0);
    assert_int_equal(merkle_sexp_tree_hash(h2, st, n), MERKLE_OK);
    assert_memory_not_equal(h1, h2, 32); /* no stale memo */
    ref_hash_of(st, n, h1);
    assert_memory_equal(h1, h2, 32);
    merkle_sexp_store_free(st);
    merkle_sexp_store_free(NULL);
}

/* A wide, shallow tree of many independent pairs exercises the batched level hashing. */
static void test_batched_levels(void **state)
{
    (void)state;
    merkle_sexp_store *st = NULL;
    assert_int_equal(merkle_sexp_store_alloc(&st), MERKLE_OK);
    tu_rng rng;
    tu_rng_seed(&rng, 9);
    merkle_sexp_node list;
    assert_int_equal(merkle_sexp_atom_new(&list, st, NULL, 0), MERKLE_OK);
    for (int i = 0; i < 3000; i++) {
        uint8_t buf[8];
        tu_rng_fill(&rng, buf, sizeof buf);
        merkle_sexp_node a, b, p, q;
        assert_int_equal(merkle_sexp_atom_new(&a, st, buf, 1 + (size_t)(buf[0] % 8)), MERKLE_OK);
        assert_int_equal(merkle_sexp_atom_new(&b, st, buf, 2), MERKLE_OK);
        assert_int_equal(merkle_sexp_pair_new(&p, st, a, b), MERKLE_OK);
        assert_int_equal(merkle_sexp_pair_new(&q, st, p, b), MERKLE_OK);
        assert_int_equal(merkle_sexp_pair_new(&list, st, q, list), MERKLE_OK);
    }
    uint8_t h[32], r[32];
    ref_hash_of(st, list, r);
    assert_int_equal(merkle_sexp_tree_hash(h, st, list), MERKLE_OK);
    assert_memory_equal(h, r, 32);
    merkle_sexp_store_free(st);
}

/* Issue 18, cause 1: "abc" at list positions 1, 17 and 32. At the third one clvm_rs's BFS
** meets, in level 15, first the spine node above the first "abc" (whose parent would be a
** 16th step, too long for a 4-byte node) and then the root: it keeps scanning and writes the
** 15-step reference fe82bfff, exactly as long as the atom. The old encoder returned at the
** first node and wrote the atom. Expected bytes: clvm_rs HEAD node_to_bytes_backrefs. */
static void test_backref_equal_size_reference(void **state)
{
    (void)state;
    char hex[200] = { 0 }, *p = hex;
    for (int pos = 1, f = 1; pos <= 33; pos++)
        p += (pos == 1 || pos == 17 || pos == 32) ? sprintf(p, "ff83616263")
                                                  : sprintf(p, "ff%02x", f++);
    strcat(hex, "80");
    size_t len;
    uint8_t *in = tu_unhex(hex, &len);
    assert_int_equal(len, 76);
    merkle_sexp_store *st = NULL;
    assert_int_equal(merkle_sexp_store_alloc(&st), MERKLE_OK);
    merkle_sexp_node n = parse_ok(st, in, len, MERKLE_SEXP_STRICT);
    size_t blen;
    uint8_t *br = backref_roundtrip(st, n, &blen);
    tu_assert_hex(br, blen,
                  "ff83616263ff01ff02ff03ff04ff05ff06ff07ff08ff09ff0aff0bff0cff0dff0eff0fff83616263"
                  "ff10ff11ff12ff13ff14ff15ff16ff17ff18ff19ff1aff1bff1cff1dfffe82bfffff1e80",
                  "equal-size reference");
    free(br);
    free(in);
    merkle_sexp_store_free(st);
}

/* Random trees shaped to hit the rare cases of the indexed search: tiny alphabets (many
** repeats), lists of recent nodes (sub-trees equal to the parse stack, so references into
** the stack itself, copies of stack nodes whose insides later die), deep sharing. Every token
** is checked against clvm_rs's BFS, and the run must reach each rare branch. */
static void test_backref_crosscheck_random(void **state)
{
    (void)state;
    tu_rng rng;
    tu_rng_seed(&rng, 18);
    static const uint8_t words[6][3] = {
        { 0 }, { 1 }, { 'a', 'b', 'c' }, { 'x', 'y', 'z' }, { 0x80 }, { 'q', 'q', 'q' }
    };
    static const size_t wl[6] = { 0, 1, 3, 3, 1, 3 };
    merkle__sexp_br_opts tot;
    memset(&tot, 0, sizeof tot);
    for (int it = 0; it < 1500; it++) {
        merkle_sexp_store *st = NULL;
        assert_int_equal(merkle_sexp_store_alloc(&st), MERKLE_OK);
        merkle_sexp_node pool[600];
        size_t np = 0;
        size_t natoms = 1 + (size_t)tu_rng_below(&rng, 6);
        size_t nops = 4 + (size_t)tu_rng_below(&rng, tu_rng_below(&rng, 2) ? 60 : 300);
        for (size_t i = 0; i < natoms; i++)
            assert_int_equal(merkle_sexp_atom_new(&pool[np++], st, words[i], wl[i]), MERKLE_OK);
        for (size_t i = 0; i < nops && np < 590; i++) {
            uint64_t kind = tu_rng_below(&rng, 10);
            merkle_sexp_node x = pool[0]; /* pool[0] is nil */
            if (kind < 6) {
                merkle_sexp_node l = pool[tu_rng_below(&rng, np)], r = pool[tu_rng_below(&rng, np)];
                if (tu_rng_below(&rng, 3) == 0)
                    l = pool[np - 1 - tu_rng_below(&rng, np < 4 ? np : 4)];
                assert_int_equal(merkle_sexp_pair_new(&x, st, l, r), MERKLE_OK);
            } else if (kind < 8) { /* a short list of random nodes */
                for (uint64_t k = 1 + tu_rng_below(&rng, 5); k; k--)
                    assert_int_equal(merkle_sexp_pair_new(&x, st, pool[tu_rng_below(&rng, np)], x),
                                     MERKLE_OK);
            } else { /* the last k nodes as a list, newest first: what a parse stack looks like */
                size_t k = 1 + (size_t)tu_rng_below(&rng, 6), start = np > k ? np - k : 0;
                for (size_t j = start; j < np; j++)
                    assert_int_equal(merkle_sexp_pair_new(&x, st, pool[j], x), MERKLE_OK);
            }
            pool[np++] = x;
        }
        merkle_sexp_node root = pool[np - 1];
        if (tu_rng_below(&rng, 2)) { /* a long top list: a deep stack */
            root = pool[0];
            for (uint64_t k = 2 + tu_rng_below(&rng, 20); k; k--)
                assert_int_equal(
                    merkle_sexp_pair_new(&root, st, pool[tu_rng_below(&rng, np)], root), MERKLE_OK);
        }
        merkle__sexp_br_opts o;
        memset(&o, 0, sizeof o);
        o.crosscheck = 1;
        o.work_base = (uint64_t)1 << 40;
        uint8_t *out;
        size_t len;
        assert_int_equal(merkle__sexp_serialize_backrefs(&out, &len, st, root, 0, &o, NULL),
                         MERKLE_OK);
        if (o.mismatches || o.internal_errors)
            fail_msg("tree %d: %llu mismatches, %llu internal errors", it,
                     (unsigned long long)o.mismatches, (unsigned long long)o.internal_errors);
        assert_int_equal(o.budget_cuts, 0);
        tot.copy_searches += o.copy_searches;
        tot.copy_steps += o.copy_steps;
        tot.dead_copy_parents += o.dead_copy_parents;
        free(out);
        merkle_sexp_store_free(st);
    }
    printf("crosscheck: searches through copies %llu, steps from copies %llu, dead copy parents "
           "%llu\n",
           (unsigned long long)tot.copy_searches, (unsigned long long)tot.copy_steps,
           (unsigned long long)tot.dead_copy_parents);
    assert_true(tot.copy_searches > 1000);
    assert_true(tot.copy_steps > 1000);
    assert_true(tot.dead_copy_parents > 10);
}

/* Encode with opts; the output must decode to the same tree and be no longer than canonical. */
static uint8_t *br_checked(merkle_sexp_store *st, merkle_sexp_node n, merkle__sexp_br_opts *o,
                           size_t *len)
{
    uint8_t *out;
    assert_int_equal(merkle__sexp_serialize_backrefs(&out, len, st, n, 0, o, NULL), MERKLE_OK);
    uint64_t clen;
    assert_int_equal(merkle_sexp_serialized_length(&clen, st, n), MERKLE_OK);
    assert_true(*len <= clen);
    merkle_sexp_store *st2 = NULL;
    assert_int_equal(merkle_sexp_store_alloc(&st2), MERKLE_OK);
    merkle_sexp_node m = parse_ok(st2, out, *len, MERKLE_SEXP_BACKREFS);
    uint8_t h1[32], h2[32];
    assert_int_equal(merkle_sexp_tree_hash(h1, st, n), MERKLE_OK);
    assert_int_equal(merkle_sexp_tree_hash(h2, st2, m), MERKLE_OK);
    assert_memory_equal(h1, h2, 32);
    merkle_sexp_store_free(st2);
    return out;
}

/* One subtree repeated n times makes clvm_rs's breadth-first search quadratic (every lookup
** scans the n entries of the repeated atom and the n contexts above them). The indexed search
** makes the same choices in linear work; a small budget cuts either one in, and the output
** stays valid and no longer than canonical. */
static void test_search_budget(void **state)
{
    (void)state;
    merkle_sexp_store *st = NULL;
    assert_int_equal(merkle_sexp_store_alloc(&st), MERKLE_OK);
    static const uint8_t foo[] = { 'f', 'o', 'o', 'o', 'o' };
    merkle_sexp_node a, list;
    const int n = 3000;
    assert_int_equal(merkle_sexp_atom_new(&list, st, NULL, 0), MERKLE_OK);
    for (int i = 0; i < n; i++) {
        uint8_t b = (uint8_t)i;
        merkle_sexp_node x, p;
        assert_int_equal(merkle_sexp_atom_new(&a, st, foo, sizeof foo), MERKLE_OK);
        assert_int_equal(merkle_sexp_atom_new(&x, st, &b, 1), MERKLE_OK);
        assert_int_equal(merkle_sexp_pair_new(&p, st, a, x), MERKLE_OK);
        assert_int_equal(merkle_sexp_pair_new(&list, st, p, list), MERKLE_OK);
    }
    merkle__sexp_br_opts r, f, rc, fc;
    memset(&r, 0, sizeof r);
    memset(&f, 0, sizeof f);
    r.reference = 1;
    r.work_base = (uint64_t)1 << 32; /* the default bound would cut the quadratic search in */
    size_t rlen, flen, len;
    uint8_t *rout = br_checked(st, list, &r, &rlen);
    uint8_t *fout = br_checked(st, list, &f, &flen);
    printf("search work, %d repeats: clvm_rs BFS %llu, indexed %llu\n", n,
           (unsigned long long)r.search_steps, (unsigned long long)f.search_steps);
    assert_int_equal(r.budget_cuts, 0);
    assert_int_equal(f.budget_cuts, 0);
    assert_int_equal(f.internal_errors, 0);
    assert_int_equal(rlen, flen);
    assert_memory_equal(rout, fout, rlen);
    assert_true(r.search_steps > (uint64_t)n * n / 2);  /* quadratic */
    assert_true(f.search_steps < (uint64_t)16 * 5 * n); /* linear: 5 tokens per repeat */
    free(rout);
    free(fout);
    /* tiny budgets: cut in, output still valid */
    memset(&rc, 0, sizeof rc);
    rc.reference = 1;
    rc.work_per_node = 4;
    rc.work_base = 1000;
    uint8_t *out = br_checked(st, list, &rc, &len);
    assert_true(rc.budget_cuts > 0);
    assert_true(rc.search_steps <= 1000 + 4 * 5 * (uint64_t)n + 4);
    free(out);
    memset(&fc, 0, sizeof fc);
    fc.work_per_node = 1;
    fc.work_base = 1;
    out = br_checked(st, list, &fc, &len);
    assert_true(fc.budget_cuts > 0);
    assert_true(fc.search_steps <= 1 + 5 * (uint64_t)n + 1);
    free(out);
    merkle_sexp_store_free(st);
}

/* Unknown parse flag bits are refused (docs/library.md rule 6). */
static void test_unknown_flags(void **state)
{
    (void)state;
    merkle_sexp_store *st;
    assert_int_equal(merkle_sexp_store_alloc(&st), MERKLE_OK);
    merkle_sexp_node n;
    size_t used;
    merkle_error err;
    const uint8_t in[1] = { 0x80 };
    assert_int_equal(merkle_sexp_parse(&n, &used, st, in, 1, MERKLE_SEXP_STRICT, NULL, &err),
                     MERKLE_OK);
    assert_int_equal(merkle_sexp_parse(&n, &used, st, in, 1, 4u, NULL, &err), MERKLE_ERR_ARG);
    assert_int_equal(err.status, MERKLE_ERR_ARG);
    merkle_sexp_store_free(st);
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_atom_prefix_vectors),
        cmocka_unit_test(test_tree_hash_vectors),
        cmocka_unit_test(test_backref_serialize_vectors),
        cmocka_unit_test(test_backref_equal_size_reference),
        cmocka_unit_test(test_backref_crosscheck_random),
        cmocka_unit_test(test_backref_decode_vectors),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_stack_paths),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_bomb),
        cmocka_unit_test(test_random_dags),
        cmocka_unit_test(test_truncated_and_mutated),
        cmocka_unit_test(test_store_clear_and_reuse),
        cmocka_unit_test(test_batched_levels),
        cmocka_unit_test(test_search_budget),
        cmocka_unit_test(test_unknown_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
