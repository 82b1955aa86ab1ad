/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Merkle radix trie: every merkledb node_id / trie_root / cb58 / uvarint vector; random key
** sets against a slow reference that rebuilds the trie from scratch with the canonical
** shape of docs/formats.md section 2 (OpenSSL SHA-256, its own preimage encoder, no library code);
** random insertion
** orders and deletions; threaded hashing; proofs for present and absent keys and every
** single-byte alteration of them; batch puts and text ops. API errors and incremental
** changes: test_trie_changes.c.
*/
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/hash.h"
#include "merkle/trie.h"
#include "testutil.h"
#include "trie/trie_impl.h"

/* ------------------------------------------------------------------ reference */

typedef struct kv {
    uint8_t k[8];
    size_t klen;
    uint8_t v[48];
    size_t vlen;
} kv;

typedef struct rbuf {
    uint8_t *p;
    size_t n, cap;
} rbuf;

static void rb_put(rbuf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    if (n) memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void rb_uvarint(rbuf *b, uint64_t v)
{
    do {
        uint8_t c = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v) c |= 0x80;
        rb_put(b, &c, 1);
    } while (v);
}

static unsigned ref_bit(const uint8_t *k, size_t i)
{
    return (k[i / 8] >> (7 - i % 8)) & 1;
}

static unsigned ref_token(const uint8_t *k, size_t bit, unsigned ts)
{
    unsigned t = 0;
    for (unsigned j = 0; j < ts; j++) t = (t << 1) | ref_bit(k, bit + j);
    return t;
}

/* build(S, depth) of docs/formats.md section 2 (the canonical shape), hashing with OpenSSL. S
 * non-empty, keys distinct. */
static void ref_build(const kv *const *s, size_t n, unsigned ts, uint8_t out[32])
{
    size_t p = s[0]->klen * 8;
    for (size_t i = 1; i < n; i++) {
        size_t m = s[i]->klen * 8, c = 0;
        if (m > p) m = p;
        while (c < m && ref_bit(s[0]->k, c) == ref_bit(s[i]->k, c)) c++;
        p = c;
    }
    p -= p % ts;
    rbuf b = { 0 };
    unsigned bf = 1u << ts;
    const kv **grp = malloc(n * sizeof *grp);
    size_t nkids = 0;
    for (unsigned t = 0; t < bf; t++)
        for (size_t i = 0; i < n; i++)
            if (s[i]->klen * 8 > p && ref_token(s[i]->k, p, ts) == t) {
                nkids++;
                break;
            }
    rb_uvarint(&b, nkids);
    for (unsigned t = 0; t < bf; t++) {
        size_t g = 0;
        for (size_t i = 0; i < n; i++)
            if (s[i]->klen * 8 > p && ref_token(s[i]->k, p, ts) == t) grp[g++] = s[i];
        if (!g) continue;
        uint8_t id[32];
        ref_build(grp, g, ts, id);
        rb_uvarint(&b, t);
        rb_put(&b, id, 32);
    }
    const kv *val = NULL;
    for (size_t i = 0; i < n; i++)
        if (s[i]->klen * 8 == p) val = s[i];
    if (val) {
        uint8_t one = 1;
        rb_put(&b, &one, 1);
        if (val->vlen >= 32) {
            uint8_t d[32];
            SHA256(val->v, val->vlen, d);
            rb_uvarint(&b, 32);
            rb_put(&b, d, 32);
        } else {
            rb_uvarint(&b, val->vlen);
            rb_put(&b, val->v, val->vlen);
        }
    } else {
        uint8_t zero = 0;
        rb_put(&b, &zero, 1);
    }
    rb_uvarint(&b, p);
    uint8_t key[8] = { 0 };
    for (size_t i = 0; i < p; i++) key[i / 8] |= (uint8_t)(ref_bit(s[0]->k, i) << (7 - i % 8));
    rb_put(&b, key, (p + 7) / 8);
    SHA256(b.p, b.n, out);
    free(b.p);
    free(grp);
}

static void ref_root(const kv *set, size_t n, unsigned ts, uint8_t out[32])
{
    if (n == 0) {
        memset(out, 0, 32);
        return;
    }
    const kv **s = malloc(n * sizeof *s);
    for (size_t i = 0; i < n; i++) s[i] = &set[i];
    ref_build(s, n, ts, out);
    free(s);
}

/* ------------------------------------------------------------------ vectors */

static void test_uvarint_vectors(void **state)
{
    (void)state;
    json *doc = tu_load_vectors("tree-public.json");
    const json *vs = json_get(json_get(doc, "merkledb"), "uvarint");
    assert_non_null(vs);
    assert_true(vs->len >= 8);
    for (size_t i = 0; i < vs->len; i++) {
        const json *v = json_at(vs, i);
        uint64_t val = (uint64_t)json_get(v, "value")->integer;
        uint8_t buf[10];
        size_t n = merkle__uvarint_put(buf, val);
        tu_assert_hex(buf, n, json_get_str(v, "hex"), "uvarint");
        uint64_t back = 0;
        size_t pos = 0;
        assert_int_equal(merkle__uvarint_get(&back, buf, n, &pos), 0);
        assert_int_equal(pos, n);
        assert_true(back == val);
        pos = 0;
        assert_int_equal(merkle__uvarint_get(&back, buf, n - 1, &pos), -1); /* truncated */
    }
    json_free(doc);
    /* Non-canonical (redundant zero group) and overflowing varints are rejected. */
    static const uint8_t redundant[] = { 0x80, 0x00 },
                         over[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 };
    uint64_t x;
    size_t pos = 0;
    assert_int_equal(merkle__uvarint_get(&x, redundant, 2, &pos), -3);
    pos = 0;
    assert_int_equal(merkle__uvarint_get(&x, over, 10, &pos), -2);
}

static void test_cb58_vectors(void **state)
{
    (void)state;
    json *doc = tu_load_vectors("tree-public.json");
    const json *md = json_get(doc, "merkledb");
    const json *vs = json_get(md, "cb58");
    size_t checked = 0;
    for (size_t i = 0; i < vs->len; i++) {
        const json *v = json_at(vs, i);
        size_t n;
        uint8_t *b = tu_unhex(json_get_str(v, "bytes_hex"), &n);
        const char *want = json_get_str(v, "cb58");
        char s[200];
        size_t sl;
        assert_int_equal(merkle_trie_cb58_encode(s, sizeof s, &sl, b, n), MERKLE_OK);
        assert_string_equal(s, want);
        assert_int_equal(sl, strlen(want));
        uint8_t back[64];
        size_t bl;
        assert_int_equal(merkle_trie_cb58_decode(back, sizeof back, &bl, want, strlen(want), NULL),
                         MERKLE_OK);
        assert_int_equal(bl, n);
        assert_memory_equal(back, b, n);
        free(b);
        checked++;
    }
    /* The IDs of the node_id vectors, both ways, and through merkle_trie_id_parse. */
    const json *nodes = json_get(md, "node_id");
    for (size_t i = 0; i < nodes->len; i++) {
        const json *v = json_at(nodes, i);
        size_t n;
        uint8_t *id = tu_unhex(json_get_str(v, "expected_id_hex"), &n);
        const char *want = json_get_str(v, "expected_id_cb58");
        char s[MERKLE_TRIE_CB58_ID_MAX];
        size_t sl;
        assert_int_equal(merkle_trie_cb58_encode(s, sizeof s, &sl, id, n), MERKLE_OK);
        assert_string_equal(s, want);
        uint8_t p1[32], p2[32];
        assert_int_equal(merkle_trie_id_parse(p1, want, NULL), MERKLE_OK);
        assert_int_equal(merkle_trie_id_parse(p2, json_get_str(v, "expected_id_hex"), NULL),
                         MERKLE_OK);
        assert_memory_equal(p1, id, 32);
        assert_memory_equal(p2, id, 32);
        free(id);
        checked++;
    }
    assert_true(checked >= 14);
    json_free(doc);

    /* Errors: a changed character breaks the checksum; bad alphabet; too short; buffer. */
    char s[MERKLE_TRIE_CB58_ID_MAX];
    strcpy(s, "rbhtxoQ1DqWHvb6w66BZdVyjmPAneZUSwQq9uKj594qvFSdav");
    uint8_t out[40];
    size_t ol;
    merkle_error e;
    for (size_t i = 0; s[i]; i++) {
        char save = s[i];
        s[i] = save == 'z' ? 'y' : 'z';
        assert_int_not_equal(merkle_trie_cb58_decode(out, sizeof out, &ol, s, strlen(s), &e),
                             MERKLE_OK);
        s[i] = save;
    }
    assert_int_equal(merkle_trie_cb58_decode(out, sizeof out, &ol, "0OIl", 4, &e),
                     MERKLE_ERR_FORMAT);
    assert_int_equal(merkle_trie_cb58_decode(out, sizeof out, &ol, "1", 1, &e), MERKLE_ERR_FORMAT);
    assert_int_equal(merkle_trie_cb58_decode(out, 31, &ol, s, strlen(s), &e), MERKLE_ERR_BUFFER);
    assert_int_equal(ol, 32);
    char small[10];
    uint8_t zero32[32] = { 0 };
    assert_int_equal(merkle_trie_cb58_encode(small, sizeof small, &ol, zero32, 32),
                     MERKLE_ERR_BUFFER);
    assert_int_equal(ol, 37);
    assert_int_equal(merkle_trie_id_parse(out, "45PJLL", &e), MERKLE_ERR_FORMAT); /* 0 bytes */
    assert_int_equal(merkle_trie_id_parse(out, "xyz", &e), MERKLE_ERR_FORMAT);
}

static void test_node_id_vectors(void **state)
{
    (void)state;
    json *doc = tu_load_vectors("tree-public.json");
    const json *vs = json_get(json_get(doc, "merkledb"), "node_id");
    assert_true(vs->len >= 11);
    for (size_t i = 0; i < vs->len; i++) {
        const json *v = json_at(vs, i);
        const json *node = json_get(v, "node");
        size_t kl, vl = 0;
        uint8_t *key = tu_unhex(json_get_str(node, "key_hex"), &kl);
        const char *vh = json_get_str(node, "value_hex");
        uint8_t *val = vh ? tu_unhex(vh, &vl) : NULL;
        const json *kids = json_get(node, "children");
        merkle_trie_child ch[256];
        for (size_t k = 0; k < kids->len; k++) {
            const json *c = json_at(kids, k);
            ch[k].index = (uint32_t)json_get(c, "index")->integer;
            size_t il;
            uint8_t *id = tu_unhex(json_get_str(c, "child_id_hex"), &il);
            assert_int_equal(il, 32);
            memcpy(ch[k].id, id, 32);
            free(id);
        }
        uint8_t out[32];
        size_t bits = (size_t)json_get(node, "key_bit_length")->integer;
        assert_int_equal(merkle_trie_hash_node(out, key, bits, vh != NULL, val, vl, ch, kids->len),
                         MERKLE_OK);
        tu_assert_hex(out, 32, json_get_str(v, "expected_id_hex"), json_get_str(v, "id"));
        /* And the preimage itself is what docs/formats.md section 2 says. */
        size_t pl;
        uint8_t *pre = tu_unhex(json_get_str(v, "preimage_hex"), &pl);
        uint8_t d[32];
        SHA256(pre, pl, d);
        assert_memory_equal(d, out, 32);
        free(pre);
        free(key);
        free(val);
    }
    json_free(doc);
    /* Error paths. */
    merkle_trie_child two[2] = { { 3, { 0 } }, { 3, { 0 } } };
    uint8_t out[32], k = 0x0f;
    assert_int_equal(merkle_trie_hash_node(out, NULL, 0, 0, NULL, 0, two, 2), MERKLE_ERR_ARG);
    two[1].index = 256;
    assert_int_equal(merkle_trie_hash_node(out, NULL, 0, 0, NULL, 0, two, 2), MERKLE_ERR_ARG);
    assert_int_equal(merkle_trie_hash_node(out, &k, 4, 0, NULL, 0, NULL, 0), MERKLE_ERR_ARG);
    assert_int_equal(merkle_trie_hash_node(out, NULL, 8, 0, NULL, 0, NULL, 0), MERKLE_ERR_ARG);
}

static unsigned bf_of(const json *v)
{
    return (unsigned)json_get(v, "branch_factor")->integer;
}

/* Load a trie_root vector's pairs (explicit kv or the uvarint generator). */
static size_t vector_pairs(const json *v, uint8_t ***keys, size_t **klens, uint8_t ***vals,
                           size_t **vlens)
{
    const json *list = json_get(v, "kv");
    size_t n = list ? list->len : (size_t)json_get(v, "num_keys")->integer;
    *keys = calloc(n + 1, sizeof **keys);
    *vals = calloc(n + 1, sizeof **vals);
    *klens = calloc(n + 1, sizeof **klens);
    *vlens = calloc(n + 1, sizeof **vlens);
    for (size_t i = 0; i < n; i++) {
        if (list) {
            const json *p = json_at(list, i);
            (*keys)[i] = tu_unhex(json_at(p, 0)->str, &(*klens)[i]);
            (*vals)[i] = tu_unhex(json_at(p, 1)->str, &(*vlens)[i]);
        } else {
            assert_non_null(strstr(json_get_str(v, "kv_generator"), "uvarint(i)"));
            (*keys)[i] = malloc(10);
            (*klens)[i] = merkle__uvarint_put((*keys)[i], i);
            (*vals)[i] = malloc(32);
            (*vlens)[i] = 32;
            SHA256((*keys)[i], (*klens)[i], (*vals)[i]);
        }
    }
    return n;
}

static void test_trie_root_vectors(void **state)
{
    (void)state;
    json *doc = tu_load_vectors("tree-public.json");
    const json *vs = json_get(json_get(doc, "merkledb"), "trie_root");
    assert_true(vs->len >= 10);
    tu_rng rng;
    tu_rng_seed(&rng, 7);
    for (size_t i = 0; i < vs->len; i++) {
        const json *v = json_at(vs, i);
        uint8_t **keys, **vals;
        size_t *kl, *vl;
        size_t n = vector_pairs(v, &keys, &kl, &vals, &vl);
        for (int order = 0; order < 3; order++) {
            merkle_trie *t;
            assert_int_equal(merkle_trie_alloc(&t, bf_of(v)), MERKLE_OK);
            size_t *perm = malloc((n + 1) * sizeof *perm);
            for (size_t j = 0; j < n; j++) perm[j] = order == 1 ? n - 1 - j : j;
            if (order == 2)
                for (size_t j = n; j > 1; j--) {
                    size_t r = (size_t)tu_rng_below(&rng, j), tmp = perm[j - 1];
                    perm[j - 1] = perm[r];
                    perm[r] = tmp;
                }
            /* Order 2 also puts decoys, roots midway, and deletes the decoys. */
            for (size_t j = 0; j < n; j++) {
                size_t q = perm[j];
                if (order == 2) {
                    uint8_t decoy[11];
                    memcpy(decoy, keys[q], kl[q]);
                    decoy[kl[q]] = 0x5a;
                    assert_int_equal(merkle_trie_put(t, decoy, kl[q] + 1, decoy, 1), MERKLE_OK);
                    assert_int_equal(merkle_trie_put(t, keys[q], kl[q], decoy, 3), MERKLE_OK);
                    if (j % 7 == 0) {
                        uint8_t tmp[32];
                        assert_int_equal(merkle_trie_root(tmp, t, 1, NULL), MERKLE_OK);
                    }
                }
                assert_int_equal(merkle_trie_put(t, keys[q], kl[q], vals[q], vl[q]), MERKLE_OK);
            }
            if (order == 2)
                for (size_t j = 0; j < n; j++) {
                    uint8_t decoy[11];
                    memcpy(decoy, keys[j], kl[j]);
                    decoy[kl[j]] = 0x5a;
                    int found;
                    assert_int_equal(merkle_trie_delete(&found, t, decoy, kl[j] + 1), MERKLE_OK);
                    /* A decoy may coincide with a real key of the vector. */
                    (void)found;
                    assert_int_equal(merkle_trie_put(t, keys[j], kl[j], vals[j], vl[j]), MERKLE_OK);
                }
            uint8_t root[32];
            assert_int_equal(merkle_trie_root(root, t, order == 1 ? 3 : 1, NULL), MERKLE_OK);
            tu_assert_hex(root, 32, json_get_str(v, "expected_root_hex"), json_get_str(v, "id"));
            char s[MERKLE_TRIE_CB58_ID_MAX];
            size_t sl;
            assert_int_equal(merkle_trie_cb58_encode(s, sizeof s, &sl, root, 32), MERKLE_OK);
            assert_string_equal(s, json_get_str(v, "expected_root_cb58"));
            free(perm);
            merkle_trie_free(t);
        }
        { /* merkle_trie_put_batch (one sorted bulk pass) agrees */
            merkle_trie *t;
            assert_int_equal(merkle_trie_alloc(&t, bf_of(v)), MERKLE_OK);
            assert_int_equal(merkle_trie_put_batch(t, (const uint8_t *const *)keys, kl,
                                                   (const uint8_t *const *)vals, vl, n, NULL),
                             MERKLE_OK);
            uint8_t root[32];
            assert_int_equal(merkle_trie_root(root, t, 1, NULL), MERKLE_OK);
            tu_assert_hex(root, 32, json_get_str(v, "expected_root_hex"), "put_batch");
            merkle_trie_free(t);
        }
        /* The reference agrees too (keys here are at most 8 bytes). */
        int small = 1;
        for (size_t j = 0; j < n; j++) small &= kl[j] <= 8 && vl[j] <= 48;
        if (small && n <= 300) {
            kv *set = calloc(n + 1, sizeof *set);
            for (size_t j = 0; j < n; j++) {
                memcpy(set[j].k, keys[j], kl[j]);
                set[j].klen = kl[j];
                memcpy(set[j].v, vals[j], vl[j]);
                set[j].vlen = vl[j];
            }
            unsigned bf = bf_of(v), ts = bf == 2 ? 1 : bf == 4 ? 2 : bf == 16 ? 4 : 8;
            uint8_t r[32];
            ref_root(set, n, ts, r);
            tu_assert_hex(r, 32, json_get_str(v, "expected_root_hex"), "reference");
            free(set);
        }
        for (size_t j = 0; j < n; j++) {
            free(keys[j]);
            free(vals[j]);
        }
        free(keys);
        free(vals);
        free(kl);
        free(vl);
    }
    json_free(doc);
}

/* ------------------------------------------------------------------ random vs reference */

/* A model map: the latest put wins, delete removes. */
typedef struct model {
    kv *e;
    size_t n;
} model;

static long model_find(const model *m, const uint8_t *k, size_t kl)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->e[i].klen == kl && memcmp(m->e[i].k, k, kl) == 0) return (long)i;
    return -1;
}

static void random_key(tu_rng *r, uint8_t *k, size_t *kl)
{
    /* Short keys from a tiny alphabet: many shared prefixes, prefixes of each other. */
    static const uint8_t alpha[] = { 0x00, 0x01, 0x0f, 0x10, 0x7f, 0x80, 0xf0, 0xff };
    *kl = (size_t)tu_rng_below(r, 5);
    for (size_t i = 0; i < *kl; i++) k[i] = alpha[tu_rng_below(r, sizeof alpha)];
}

typedef struct walk_ctx {
    const model *m;
    size_t seen;
    uint8_t last[8];
    size_t last_len;
} walk_ctx;

static int walk_visit(void *ctx, const uint8_t *key, size_t kl, const uint8_t *v, size_t vl)
{
    walk_ctx *w = ctx;
    long i = model_find(w->m, key, kl);
    assert_true(i >= 0);
    assert_int_equal(w->m->e[i].vlen, vl);
    if (vl) assert_memory_equal(w->m->e[i].v, v, vl);
    if (w->seen) { /* strictly ascending */
        size_t mn = kl < w->last_len ? kl : w->last_len;
        int c = memcmp(w->last, key, mn);
        assert_true(c < 0 || (c == 0 && w->last_len < kl));
    }
    memcpy(w->last, key, kl);
    w->last_len = kl;
    w->seen++;
    return 0;
}

static void check_against_model(merkle_trie *t, const model *m, unsigned ts, unsigned threads)
{
    uint8_t want[32], got[32];
    ref_root(m->e, m->n, ts, want);
    assert_int_equal(merkle_trie_root(got, t, threads, NULL), MERKLE_OK);
    assert_memory_equal(got, want, 32);
    assert_int_equal(merkle_trie_size(t), m->n);
    walk_ctx w = { m, 0, { 0 }, 0 };
    assert_int_equal(merkle_trie_foreach(t, walk_visit, &w), MERKLE_OK);
    assert_int_equal(w.seen, m->n);
    for (size_t i = 0; i < m->n; i++) {
        uint8_t v[48];
        size_t vl;
        int found;
        assert_int_equal(merkle_trie_get(v, sizeof v, &vl, &found, t, m->e[i].k, m->e[i].klen),
                         MERKLE_OK);
        assert_true(found);
        assert_int_equal(vl, m->e[i].vlen);
        if (vl) assert_memory_equal(v, m->e[i].v, vl);
    }
}

static void test_random_vs_reference(void **state)
{
    (void)state;
    static const unsigned bfs[] = { 2, 4, 16, 256 };
    tu_rng r;
    tu_rng_seed(&r, 1234);
    for (int round = 0; round < 48; round++) {
        unsigned bf = bfs[round % 4], ts = bf == 2 ? 1 : bf == 4 ? 2 : bf == 16 ? 4 : 8;
        merkle_trie *t;
        assert_int_equal(merkle_trie_alloc(&t, bf), MERKLE_OK);
        model m = { calloc(400, sizeof(kv)), 0 };
        size_t ops = 20 + (size_t)tu_rng_below(&r, 200);
        for (size_t op = 0; op < ops; op++) {
            uint8_t k[8];
            size_t kl;
            random_key(&r, k, &kl);
            long i = model_find(&m, k, kl);
            if (tu_rng_below(&r, 3) == 0) {
                int found;
                assert_int_equal(merkle_trie_delete(&found, t, k, kl), MERKLE_OK);
                assert_int_equal(found, i >= 0);
                if (i >= 0) m.e[i] = m.e[--m.n];
            } else {
                static const size_t lens[] = { 0, 1, 5, 31, 32, 33, 47 };
                size_t vl = lens[tu_rng_below(&r, 7)];
                uint8_t v[48];
                tu_rng_fill(&r, v, vl);
                assert_int_equal(merkle_trie_put(t, k, kl, v, vl), MERKLE_OK);
                if (i < 0) i = (long)m.n++;
                memcpy(m.e[i].k, k, kl);
                m.e[i].klen = kl;
                memcpy(m.e[i].v, v, vl);
                m.e[i].vlen = vl;
            }
            if (tu_rng_below(&r, 16) == 0) check_against_model(t, &m, ts, 1 + (unsigned)(op % 3));
        }
        check_against_model(t, &m, ts, 1);
        /* Delete everything, in random order: back to the empty root. */
        while (m.n) {
            size_t i = (size_t)tu_rng_below(&r, m.n);
            int found;
            assert_int_equal(merkle_trie_delete(&found, t, m.e[i].k, m.e[i].klen), MERKLE_OK);
            assert_true(found);
            m.e[i] = m.e[--m.n];
            if (m.n % 9 == 0) check_against_model(t, &m, ts, 2);
        }
        uint8_t root[32], zero[32] = { 0 };
        assert_int_equal(merkle_trie_root(root, t, 1, NULL), MERKLE_OK);
        assert_memory_equal(root, zero, 32);
        free(m.e);
        merkle_trie_free(t);
    }
}

/* Many random 8-byte keys: single-threaded and multi-threaded roots agree, also after
** partial updates, and against a fresh trie built in another order. */
static void test_threads_and_orders(void **state)
{
    (void)state;
    enum { N = 5000 };
    uint8_t(*keys)[8] = malloc(N * 8);
    tu_rng r;
    tu_rng_seed(&r, 99);
    tu_rng_fill(&r, (uint8_t *)keys, N * 8);
    for (unsigned bf = 2; bf <= 256; bf *= bf == 4 ? 4 : bf == 16 ? 16 : 2) {
        merkle_trie *a, *b;
        assert_int_equal(merkle_trie_alloc(&a, bf), MERKLE_OK);
        assert_int_equal(merkle_trie_alloc(&b, bf), MERKLE_OK);
        for (size_t i = 0; i < N; i++)
            assert_int_equal(merkle_trie_put(a, keys[i], 8, keys[i], 8), MERKLE_OK);
        for (size_t i = N; i-- > 0;)
            assert_int_equal(merkle_trie_put(b, keys[i], 8, keys[i], 8), MERKLE_OK);
        uint8_t ra[32], rb[32];
        assert_int_equal(merkle_trie_root(ra, a, 4, NULL), MERKLE_OK);
        assert_int_equal(merkle_trie_root(rb, b, 1, NULL), MERKLE_OK);
        assert_memory_equal(ra, rb, 32);
        for (size_t i = 0; i < N; i += 50) {
            uint8_t v = (uint8_t)i;
            assert_int_equal(merkle_trie_put(a, keys[i], 8, &v, 1), MERKLE_OK);
            assert_int_equal(merkle_trie_put(b, keys[i], 8, &v, 1), MERKLE_OK);
        }
        assert_int_equal(merkle_trie_root(ra, a, 3, NULL), MERKLE_OK);
        assert_int_equal(merkle_trie_root(rb, b, 1, NULL), MERKLE_OK);
        assert_memory_equal(ra, rb, 32);
        assert_true(merkle_trie_memory(a) > N * 8);
        merkle_trie_free(a);
        merkle_trie_free(b);
    }
    free(keys);
}

/* ------------------------------------------------------------------ proofs */

static void check_proof(merkle_trie *t, const model *m, const uint8_t *k, size_t kl,
                        size_t *accepted_altered, size_t *altered)
{
    uint8_t root[32];
    assert_int_equal(merkle_trie_root(root, t, 1, NULL), MERKLE_OK);
    size_t need;
    assert_int_equal(merkle_trie_prove(NULL, 0, &need, t, k, kl, NULL), MERKLE_ERR_BUFFER);
    uint8_t *p = malloc(need);
    size_t len;
    assert_int_equal(merkle_trie_prove(p, need, &len, t, k, kl, NULL), MERKLE_OK);
    assert_int_equal(len, need);
    merkle_trie_proof_info info;
    merkle_error e;
    assert_int_equal(merkle_trie_proof_verify(&info, root, p, len, &e), MERKLE_OK);
    long i = model_find(m, k, kl);
    assert_int_equal(info.present, i >= 0);
    assert_int_equal(info.key_len, kl);
    if (kl) assert_memory_equal(info.key, k, kl);
    if (i >= 0) {
        assert_int_equal(info.value_len, m->e[i].vlen);
        if (info.value_len) assert_memory_equal(info.value, m->e[i].v, info.value_len);
    }
    /* Any other root fails. */
    uint8_t other[32];
    memcpy(other, root, 32);
    other[31] ^= 1;
    assert_int_equal(merkle_trie_proof_verify(NULL, other, p, len, &e), MERKLE_ERR_VERIFY);
    /* Every single-bit alteration and every truncation is rejected, or states only the
    ** truth (an altered key byte may turn it into a valid proof about another key). */
    for (size_t b = 0; b < len; b++) {
        for (unsigned bit = 0; bit < 8; bit += 3) {
            p[b] ^= (uint8_t)(1u << bit);
            (*altered)++;
            if (merkle_trie_proof_verify(&info, root, p, len, &e) == MERKLE_OK) {
                (*accepted_altered)++;
                long j = model_find(m, info.key, info.key_len);
                assert_int_equal(info.present, j >= 0);
                if (j >= 0) {
                    assert_int_equal(info.value_len, m->e[j].vlen);
                    if (info.value_len) assert_memory_equal(info.value, m->e[j].v, info.value_len);
                }
            }
            p[b] ^= (uint8_t)(1u << bit);
        }
        assert_int_not_equal(merkle_trie_proof_verify(&info, root, p, b, &e), MERKLE_OK);
    }
    uint8_t *longer = malloc(len + 1);
    memcpy(longer, p, len);
    longer[len] = 0;
    assert_int_equal(merkle_trie_proof_verify(&info, root, longer, len + 1, &e), MERKLE_ERR_FORMAT);
    free(longer);
    free(p);
}

static void test_proofs(void **state)
{
    (void)state;
    static const unsigned bfs[] = { 2, 4, 16, 256 };
    tu_rng r;
    tu_rng_seed(&r, 555);
    size_t accepted = 0, altered = 0, proofs = 0;
    for (int round = 0; round < 16; round++) {
        unsigned bf = bfs[round % 4];
        merkle_trie *t;
        assert_int_equal(merkle_trie_alloc(&t, bf), MERKLE_OK);
        model m = { calloc(64, sizeof(kv)), 0 };
        for (int j = 0; j < 3 + round * 3; j++) {
            uint8_t k[8];
            size_t kl;
            random_key(&r, k, &kl);
            size_t vl = (size_t)tu_rng_below(&r, 40);
            uint8_t v[48];
            tu_rng_fill(&r, v, vl);
            assert_int_equal(merkle_trie_put(t, k, kl, v, vl), MERKLE_OK);
            long i = model_find(&m, k, kl);
            if (i < 0) i = (long)m.n++;
            memcpy(m.e[i].k, k, kl);
            m.e[i].klen = kl;
            memcpy(m.e[i].v, v, vl);
            m.e[i].vlen = vl;
        }
        if (round == 0) { /* the empty trie: every key is absent */
            merkle_trie *empty;
            assert_int_equal(merkle_trie_alloc(&empty, bf), MERKLE_OK);
            model none = { NULL, 0 };
            check_proof(empty, &none, (const uint8_t *)"ab", 2, &accepted, &altered);
            merkle_trie_free(empty);
        }
        for (int j = 0; j < 6; j++) {
            uint8_t k[8];
            size_t kl;
            if (j < 3 && m.n) {
                size_t i = (size_t)tu_rng_below(&r, m.n);
                kl = m.e[i].klen;
                memcpy(k, m.e[i].k, kl);
            } else {
                random_key(&r, k, &kl);
            }
            check_proof(t, &m, k, kl, &accepted, &altered);
            proofs++;
        }
        free(m.e);
        merkle_trie_free(t);
    }
    printf("proofs: %zu, altered proofs: %zu, altered but true statements accepted: %zu\n", proofs,
           altered, accepted);
    assert_true(accepted * 20 < altered);
}

static void test_proof_format_errors(void **state)
{
    (void)state;
    uint8_t zero[32] = { 0 };
    merkle_error e;
    static const uint8_t bad_magic[] = "XTRP\x01\x04\x00\x00\x00";
    assert_int_equal(merkle_trie_proof_verify(NULL, zero, bad_magic, 9, &e), MERKLE_ERR_FORMAT);
    static const uint8_t bad_ver[] = "MTRP\x02\x04\x00\x00\x00";
    assert_int_equal(merkle_trie_proof_verify(NULL, zero, bad_ver, 9, &e), MERKLE_ERR_FORMAT);
    static const uint8_t bad_ts[] = "MTRP\x01\x03\x00\x00\x00";
    assert_int_equal(merkle_trie_proof_verify(NULL, zero, bad_ts, 9, &e), MERKLE_ERR_FORMAT);
    static const uint8_t bad_flag[] = "MTRP\x01\x04\x02\x00\x00";
    assert_int_equal(merkle_trie_proof_verify(NULL, zero, bad_flag, 9, &e), MERKLE_ERR_FORMAT);
    /* The empty-trie proof of the empty key: valid for the zero root only. */
    static const uint8_t empty[] = "MTRP\x01\x04\x00\x00\x00";
    merkle_trie_proof_info info;
    assert_int_equal(merkle_trie_proof_verify(&info, zero, empty, 9, &e), MERKLE_OK);
    assert_int_equal(info.present, 0);
    assert_int_equal(info.branch_factor, 16);
    uint8_t one[32] = { 1 };
    assert_int_equal(merkle_trie_proof_verify(&info, one, empty, 9, &e), MERKLE_ERR_VERIFY);
    /* Present in an empty trie. */
    static const uint8_t liar[] = "MTRP\x01\x04\x01\x00\x00\x00";
    assert_int_equal(merkle_trie_proof_verify(&info, zero, liar, 10, &e), MERKLE_ERR_VERIFY);
    /* Node count above what the key allows. */
    static const uint8_t many[] = "MTRP\x01\x04\x00\x00\x02";
    assert_int_equal(merkle_trie_proof_verify(&info, zero, many, 9, &e), MERKLE_ERR_FORMAT);
    assert_int_equal(merkle_trie_proof_verify(&info, zero, NULL, 5, &e), MERKLE_ERR_ARG);
}

/* ------------------------------------------------------------------ batch put, text ops */

static void test_put_batch(void **state)
{
    (void)state;
    static const unsigned bfs[] = { 2, 4, 16, 256 };
    tu_rng r;
    tu_rng_seed(&r, 4242);
    for (int round = 0; round < 40; round++) {
        unsigned bf = bfs[round % 4], ts = bf == 2 ? 1 : bf == 4 ? 2 : bf == 16 ? 4 : 8;
        size_t n = (size_t)tu_rng_below(&r, 300);
        kv *items = calloc(n + 1, sizeof *items);
        const uint8_t **kp = calloc(n + 1, sizeof *kp), **vp = calloc(n + 1, sizeof *vp);
        size_t *kl = calloc(n + 1, sizeof *kl), *vl = calloc(n + 1, sizeof *vl);
        model m = { calloc(n + 1, sizeof(kv)), 0 };
        for (size_t i = 0; i < n; i++) {
            if (round % 2) { /* long random keys: the radix sort's deep buckets */
                items[i].klen = 1 + (size_t)tu_rng_below(&r, 8);
                tu_rng_fill(&r, items[i].k, items[i].klen);
                items[i].k[0] &= 0x3;
            } else {
                random_key(&r, items[i].k, &items[i].klen);
            }
            items[i].vlen = (size_t)tu_rng_below(&r, 48);
            tu_rng_fill(&r, items[i].v, items[i].vlen);
            kp[i] = items[i].k;
            kl[i] = items[i].klen;
            vp[i] = items[i].vlen ? items[i].v : NULL;
            vl[i] = items[i].vlen;
            long j = model_find(&m, items[i].k, items[i].klen);
            if (j < 0) j = (long)m.n++;
            m.e[j] = items[i]; /* the later duplicate wins */
        }
        merkle_trie *t;
        assert_int_equal(merkle_trie_alloc(&t, bf), MERKLE_OK);
        assert_int_equal(merkle_trie_put_batch(t, kp, kl, vp, vl, n, NULL), MERKLE_OK);
        check_against_model(t, &m, ts, 1);
        /* Then modify a bit and batch again into the non-empty trie. */
        for (size_t i = 0; i < n; i += 3) {
            items[i].v[0] ^= 0x55;
            if (!items[i].vlen) {
                items[i].vlen = 1;
                vp[i] = items[i].v;
                vl[i] = 1;
            }
        }
        model m2 = { calloc(n + 1, sizeof(kv)), 0 };
        for (size_t i = 0; i < n; i++) {
            long j = model_find(&m2, items[i].k, items[i].klen);
            if (j < 0) j = (long)m2.n++;
            m2.e[j] = items[i];
        }
        assert_int_equal(merkle_trie_put_batch(t, kp, kl, vp, vl, n, NULL), MERKLE_OK);
        check_against_model(t, &m2, ts, 2);
        /* Deleting from a batch-built trie keeps it canonical. */
        while (m2.n > n / 2) {
            int found;
            assert_int_equal(merkle_trie_delete(&found, t, m2.e[0].k, m2.e[0].klen), MERKLE_OK);
            assert_true(found);
            m2.e[0] = m2.e[--m2.n];
        }
        check_against_model(t, &m2, ts, 1);
        merkle_trie_free(t);
        free(items);
        free(kp);
        free(vp);
        free(kl);
        free(vl);
        free(m.e);
        free(m2.e);
    }
    /* Large buckets (shared 6-byte prefixes, all sort paths), duplicates, mixed lengths:
    ** put_batch equals a put loop. */
    {
        enum { N = 20000 };
        uint8_t(*kb)[12] = malloc(N * 12);
        const uint8_t **kp = malloc(N * sizeof *kp), **vp = malloc(N * sizeof *vp);
        size_t *kl = malloc(N * sizeof *kl), *vl = malloc(N * sizeof *vl);
        tu_rng_fill(&r, (uint8_t *)kb, N * 12);
        for (size_t i = 0; i < N; i++) {
            memcpy(kb[i], "prefix", i % 3 ? 6 : 2);
            if (i % 7 == 0) kb[i][6] = 0;
            kp[i] = kb[i];
            kl[i] = 5 + i % 8;
            vp[i] = kb[i] + 1; /* a distinct value even for a duplicate key */
            vl[i] = 11 - i % 5;
            if (i % 11 == 0 && i) {
                kp[i] = kb[i - 1]; /* duplicate key, another value */
                kl[i] = kl[i - 1];
            }
        }
        for (unsigned bf = 2; bf <= 256; bf *= bf == 4 ? 4 : bf == 16 ? 16 : 2) {
            merkle_trie *a, *b;
            assert_int_equal(merkle_trie_alloc(&a, bf), MERKLE_OK);
            assert_int_equal(merkle_trie_alloc(&b, bf), MERKLE_OK);
            assert_int_equal(merkle_trie_put_batch(a, kp, kl, vp, vl, N, NULL), MERKLE_OK);
            for (size_t i = 0; i < N; i++)
                assert_int_equal(merkle_trie_put(b, kp[i], kl[i], vp[i], vl[i]), MERKLE_OK);
            uint8_t ra[32], rb[32];
            assert_int_equal(merkle_trie_root(ra, a, 1, NULL), MERKLE_OK);
            assert_int_equal(merkle_trie_root(rb, b, 2, NULL), MERKLE_OK);
            assert_memory_equal(ra, rb, 32);
            assert_int_equal(merkle_trie_size(a), merkle_trie_size(b));
            merkle_trie_free(a);
            merkle_trie_free(b);
        }
        free(kb);
        free(kp);
        free(kl);
        free(vp);
        free(vl);
    }
    merkle_trie *t;
    assert_int_equal(merkle_trie_alloc(&t, 16), MERKLE_OK);
    const uint8_t *k1[1] = { NULL };
    size_t l1[1] = { 1 }, z[1] = { 0 };
    assert_int_equal(merkle_trie_put_batch(t, k1, l1, k1, z, 1, NULL), MERKLE_ERR_ARG);
    assert_int_equal(merkle_trie_put_batch(t, NULL, NULL, NULL, NULL, 1, NULL), MERKLE_ERR_ARG);
    assert_int_equal(merkle_trie_put_batch(t, NULL, NULL, NULL, NULL, 0, NULL), MERKLE_OK);
    assert_int_equal(merkle_trie_size(t), 0);
    merkle_trie_free(t);
}

static void test_apply_text(void **state)
{
    (void)state;
    merkle_trie *t, *u;
    assert_int_equal(merkle_trie_alloc(&t, 16), MERKLE_OK);
    assert_int_equal(merkle_trie_alloc(&u, 16), MERKLE_OK);
    uint8_t scratch[64];
    uint64_t ops;
    merkle_error e;
    static const char text[] = "# header\n\n  put 6b657930\t76616C756530 # trailing\r\n"
                               "put - -\nput 00 -\ndel 6b657931\ndel 00\nput 01 78";
    assert_int_equal(
        merkle_trie_apply_text(&ops, t, text, sizeof text - 1, scratch, sizeof scratch, &e),
        MERKLE_OK);
    assert_int_equal(ops, 6);
    assert_int_equal(merkle_trie_put(u, (const uint8_t *)"key0", 4, (const uint8_t *)"value0", 6),
                     MERKLE_OK);
    assert_int_equal(merkle_trie_put(u, NULL, 0, NULL, 0), MERKLE_OK);
    assert_int_equal(merkle_trie_put(u, (const uint8_t *)"\x01", 1, (const uint8_t *)"x", 1),
                     MERKLE_OK);
    uint8_t a[32], b[32];
    assert_int_equal(merkle_trie_root(a, t, 1, NULL), MERKLE_OK);
    assert_int_equal(merkle_trie_root(b, u, 1, NULL), MERKLE_OK);
    assert_memory_equal(a, b, 32);
    static const struct {
        const char *text;
        merkle_status st;
        uint64_t line;
        const char *msg;
    } bad[] = {
        { "put 00 01\nfrob 00\n", MERKLE_ERR_FORMAT, 2, "unknown operation 'frob'" },
        { "put 00\n", MERKLE_ERR_FORMAT, 1, "put needs" },
        { "\n\nput 00 01 02\n", MERKLE_ERR_FORMAT, 3, "put takes" },
        { "del\n", MERKLE_ERR_FORMAT, 1, "del needs" },
        { "del 00 01", MERKLE_ERR_FORMAT, 1, "del takes" },
        { "put 0 01\n", MERKLE_ERR_FORMAT, 1, "invalid key" },
        { "put 00 0x\n", MERKLE_ERR_FORMAT, 1, "invalid value" },
        { "put 00 "
          "0000000000000000000000000000000000000000000000000000000000000000"
          "0000000000000000000000000000000000000000000000000000000000000000\n",
          MERKLE_ERR_BUFFER, 1, "scratch" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(merkle_trie_apply_text(&ops, t, bad[i].text, strlen(bad[i].text), scratch,
                                                sizeof scratch, &e),
                         bad[i].st);
        assert_int_equal(e.line, bad[i].line);
        assert_non_null(strstr(e.message, bad[i].msg));
    }
    assert_int_equal(merkle_trie_apply_text(NULL, NULL, "", 0, NULL, 0, &e), MERKLE_ERR_ARG);
    merkle_trie_free(t);
    merkle_trie_free(u);

    /* Long texts: runs of puts go through put_batch (duplicates, deletes between runs), with
    ** a scratch big enough for whole runs and with one just big enough for a line; both equal
    ** the operations done one by one, also when a bad line stops the text. */
    enum { LINES = 3000 };
    char *big = malloc(LINES * 48 + 64);
    tu_rng r;
    tu_rng_seed(&r, 31337);
    size_t bl = 0;
    merkle_trie *ref;
    assert_int_equal(merkle_trie_alloc(&ref, 16), MERKLE_OK);
    for (int i = 0; i < LINES; i++) {
        uint8_t k[3], v[4];
        tu_rng_fill(&r, k, 3);
        k[0] &= 0x07; /* shared prefixes and repeated keys */
        size_t vlen = (size_t)tu_rng_below(&r, 5);
        tu_rng_fill(&r, v, vlen);
        if (tu_rng_below(&r, 40) == 0) {
            bl += (size_t)sprintf(big + bl, "del %02x%02x%02x\n", k[0], k[1], k[2]);
            assert_int_equal(merkle_trie_delete(NULL, ref, k, 3), MERKLE_OK);
        } else {
            bl += (size_t)sprintf(big + bl, "put %02x%02x%02x ", k[0], k[1], k[2]);
            if (vlen == 0) bl += (size_t)sprintf(big + bl, "-");
            for (size_t j = 0; j < vlen; j++) bl += (size_t)sprintf(big + bl, "%02x", v[j]);
            big[bl++] = '\n';
            assert_int_equal(merkle_trie_put(ref, k, 3, v, vlen), MERKLE_OK);
        }
    }
    uint8_t want[32], got[32];
    assert_int_equal(merkle_trie_root(want, ref, 1, NULL), MERKLE_OK);
    uint8_t *bigscratch = malloc(bl);
    for (int pass = 0; pass < 2; pass++) {
        size_t cap = pass ? 7 : bl; /* 7: one line's key (3) and value (<= 4) */
        for (int broken = 0; broken < 2; broken++) {
            merkle_trie *x;
            assert_int_equal(merkle_trie_alloc(&x, 16), MERKLE_OK);
            size_t tl = bl;
            if (broken) tl += (size_t)sprintf(big + bl, "put 00\nput 01 02\n");
            merkle_status want_st = broken ? MERKLE_ERR_FORMAT : MERKLE_OK;
            assert_int_equal(merkle_trie_apply_text(&ops, x, big, tl, bigscratch, cap, &e),
                             want_st);
            assert_int_equal(ops, LINES);
            if (broken) assert_int_equal(e.line, LINES + 1);
            assert_int_equal(merkle_trie_root(got, x, 1, NULL), MERKLE_OK);
            assert_memory_equal(got, want, 32);
            assert_int_equal(merkle_trie_size(x), merkle_trie_size(ref));
            merkle_trie_free(x);
        }
    }
    free(bigscratch);
    free(big);
    merkle_trie_free(ref);
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uvarint_vectors),
        cmocka_unit_test(test_cb58_vectors),
        cmocka_unit_test(test_node_id_vectors),
        cmocka_unit_test(test_trie_root_vectors),
        cmocka_unit_test(test_random_vs_reference),
        cmocka_unit_test(test_threads_and_orders),
        cmocka_unit_test(test_proofs),
        cmocka_unit_test(test_proof_format_errors),
        cmocka_unit_test(test_put_batch),
        cmocka_unit_test(test_apply_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
