/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkledb range, change and key proofs (merkle/mdb.h) against the cases produced by the real
** avalanchego x/merkledb code (../shared/vectors/merkledb-proofs-public.json.gz, read through
** gzip; the test skips when it is absent): every request must give Go's proof bytes or Go's
** refusal, every verification of honest and mutated proofs Go's verdict (one of Go's outcomes
** where Go's depends on map order; any error where Go panics). Then round trips of the
** encoder, decoder edge cases (merged Key messages, duplicate map keys, unknown fields, groups,
** truncations) and the argument checks.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/mdb.h"
#include "merkle/trie.h"
#include "testutil.h"

/* ------------------------------------------------------------------ vector loading */

static json *load_gz(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fclose(f);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "gzip -dc '%s'", path);
    FILE *p = popen(cmd, "r");
    if (p == NULL) return NULL;
    size_t cap = 1 << 22, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n, p)) > 0) {
        n += r;
        if (n == cap) {
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    int rc = pclose(p);
    if (buf == NULL || rc != 0) {
        free(buf);
        return NULL;
    }
    json *j = json_parse(buf, n);
    free(buf);
    return j;
}

static json *V;

static const char *vectors_path(void)
{
    const char *e = getenv("MERKLE_SHARED_VECTORS");
    static char path[4096];
    if (e && *e)
        snprintf(path, sizeof path, "%s/merkledb-proofs-public.json.gz", e);
    else
        snprintf(path, sizeof path, "%s/../../../shared/vectors/merkledb-proofs-public.json.gz",
                 MERKLE_VECTOR_DIR);
    return path;
}

typedef struct bytes {
    uint8_t *p;
    size_t n;
    int some;
} bytes;

static bytes hexm(const json *j)
{
    bytes b = { NULL, 0, 0 };
    if (j == NULL || j->type == JSON_NULL) return b;
    assert_int_equal(j->type, JSON_STRING);
    b.p = tu_unhex(j->str, &b.n);
    b.some = 1;
    return b;
}

static merkle_mdb_maybe mb(bytes b)
{
    return (merkle_mdb_maybe){ b.p, b.n, b.some };
}

static void id_of(uint8_t out[32], const char *hex)
{
    size_t n;
    uint8_t *p = tu_unhex(hex, &n);
    assert_int_equal(n, 32);
    memcpy(out, p, 32);
    free(p);
}

static const json *find_id(const char *section, const char *id)
{
    const json *arr = json_get(V, section);
    for (size_t i = 0; i < arr->len; i++)
        if (strcmp(json_get_str(json_at(arr, i), "id"), id) == 0) return json_at(arr, i);
    fail_msg("no %s %s", section, id);
    return NULL;
}

/* A database holding a state's key/values (one commit), cached by state id and branch factor. */
typedef struct cached {
    char id[32];
    unsigned bf;
    merkle_mdb_db *db;
} cached;
static cached cache[512];
static size_t ncache;

static merkle_mdb_db *state_db(const char *id, unsigned bf)
{
    for (size_t i = 0; i < ncache; i++)
        if (cache[i].bf == bf && strcmp(cache[i].id, id) == 0) return cache[i].db;
    const json *s = find_id("states", id);
    const json *kvs = json_get(s, "kvs");
    merkle_mdb_db *db;
    assert_int_equal(merkle_mdb_db_alloc(&db, bf, 0), MERKLE_OK);
    merkle_mdb_op *ops = calloc(kvs->len + 1, sizeof *ops);
    bytes *keep = calloc(2 * kvs->len + 1, sizeof *keep);
    for (size_t i = 0; i < kvs->len; i++) {
        keep[2 * i] = hexm(json_at(json_at(kvs, i), 0));
        keep[2 * i + 1] = hexm(json_at(json_at(kvs, i), 1));
        ops[i] = (merkle_mdb_op){ keep[2 * i].p, keep[2 * i].n, keep[2 * i + 1].p,
                                  keep[2 * i + 1].n, 0 };
    }
    assert_int_equal(merkle_mdb_db_commit(db, ops, kvs->len, NULL, NULL), MERKLE_OK);
    for (size_t i = 0; i < 2 * kvs->len; i++) free(keep[i].p);
    free(keep);
    free(ops);
    if ((unsigned)json_get(s, "branch_factor")->integer == bf) {
        uint8_t want[32], got[32];
        id_of(want, json_get_str(s, "root"));
        assert_int_equal(merkle_trie_root(got, merkle_mdb_db_trie(db), 1, NULL), MERKLE_OK);
        assert_memory_equal(got, want, 32);
    }
    assert_true(ncache < sizeof cache / sizeof cache[0]);
    snprintf(cache[ncache].id, sizeof cache[ncache].id, "%s", id);
    cache[ncache].bf = bf;
    cache[ncache].db = db;
    ncache++;
    return db;
}

/* A history database after all its steps (checks each step's recorded flag and root). */
static merkle_mdb_db *hist_db(const char *id)
{
    static cached hc[64];
    static size_t nh;
    for (size_t i = 0; i < nh; i++)
        if (strcmp(hc[i].id, id) == 0) return hc[i].db;
    const json *h = find_id("histories", id);
    merkle_mdb_db *db;
    assert_int_equal(merkle_mdb_db_alloc(&db, (unsigned)json_get(h, "branch_factor")->integer,
                                         (size_t)json_get(h, "history_length")->integer),
                     MERKLE_OK);
    const json *steps = json_get(h, "steps");
    for (size_t s = 1; s < steps->len; s++) {
        const json *ops = json_get(json_at(steps, s), "ops");
        merkle_mdb_op *o = calloc(ops->len + 1, sizeof *o);
        bytes *keep = calloc(2 * ops->len + 1, sizeof *keep);
        for (size_t i = 0; i < ops->len; i++) {
            keep[2 * i] = hexm(json_get(json_at(ops, i), "key"));
            keep[2 * i + 1] = hexm(json_get(json_at(ops, i), "value"));
            o[i] = (merkle_mdb_op){ keep[2 * i].p, keep[2 * i].n, keep[2 * i + 1].p,
                                    keep[2 * i + 1].n, !keep[2 * i + 1].some };
        }
        int rec;
        assert_int_equal(merkle_mdb_db_commit(db, o, ops->len, &rec, NULL), MERKLE_OK);
        assert_int_equal(rec, json_get(json_at(steps, s), "recorded")->boolean);
        uint8_t want[32], got[32];
        id_of(want, json_get_str(json_at(steps, s), "root"));
        assert_int_equal(merkle_trie_root(got, merkle_mdb_db_trie(db), 1, NULL), MERKLE_OK);
        assert_memory_equal(got, want, 32);
        for (size_t i = 0; i < 2 * ops->len; i++) free(keep[i].p);
        free(keep);
        free(o);
    }
    assert_true(nh < 64);
    snprintf(hc[nh].id, sizeof hc[nh].id, "%s", id);
    hc[nh].db = db;
    nh++;
    return db;
}

/* ------------------------------------------------------------------ verdict comparison */

static size_t n_checked, n_bad, n_msg_same, n_msg_checked;

/* Does our outcome (kind; "ok" for success) agree with the verdict (or one of the others)? */
static int verdict_ok(const json *v, const char *kind, const char *msg, const char *what)
{
    const json *vd = json_get(v, "verdict");
    const json *others = json_get(v, "other_verdicts");
    size_t n = others ? others->len : 0;
    for (size_t i = 0; i <= n; i++) {
        const json *x = i == 0 ? vd : json_at(others, i - 1);
        if (x == vd && i > 0) continue;
        if (json_get(x, "ok")->boolean) {
            if (strcmp(kind, "ok") == 0) return 1;
            continue;
        }
        const char *stage = json_get_str(x, "stage");
        if (strcmp(stage, "panic") == 0 && strcmp(kind, "ok") != 0) return 1;
        if (strcmp(json_get_str(x, "kind"), kind) == 0) {
            if (i == 0 && strcmp(kind, "proto") != 0) {
                n_msg_checked++;
                if (strcmp(json_get_str(x, "error"), msg) == 0)
                    n_msg_same++;
                else if (getenv("MDB_VERBOSE"))
                    printf("message %s: go \"%s\"\n          ours \"%s\"\n", what,
                           json_get_str(x, "error"), msg);
            }
            return 1;
        }
    }
    if (n_bad++ < 30)
        printf("MISMATCH %s: ours %s (%s), go %s %s (%s)\n", what, kind, msg,
               json_get(vd, "ok")->boolean ? "ok" : json_get_str(vd, "stage"),
               json_get(vd, "ok")->boolean ? "" : json_get_str(vd, "kind"),
               json_get(vd, "ok")->boolean ? "" : json_get_str(vd, "error"));
    return 0;
}

static void result_ok(const json *r, merkle_status st, const merkle_mdb_result *res,
                      const char *what, int *proceed)
{
    const json *go = json_get(r, "result");
    int gook = json_get(go, "ok")->boolean;
    *proceed = 0;
    n_checked++;
    if (gook && st == MERKLE_OK) {
        *proceed = 1;
        return;
    }
    if (!gook && st == MERKLE_ERR_STATE &&
        strcmp(json_get_str(go, "kind"), merkle_mdb_kind_name(res->kind)) == 0) {
        n_msg_checked++;
        if (strcmp(json_get_str(go, "error"), res->message) == 0)
            n_msg_same++;
        else if (getenv("MDB_VERBOSE"))
            printf("message %s: go \"%s\"\n          ours \"%s\"\n", what,
                   json_get_str(go, "error"), res->message);
        return;
    }
    if (n_bad++ < 30)
        printf("MISMATCH %s request: ours %d %s (%s), go %s\n", what, st,
               merkle_mdb_kind_name(res->kind), res->message,
               gook ? "ok" : json_get_str(go, "kind"));
}

static void check_encoding(const merkle_mdb_proof *p, merkle_mdb_msg msg, const char *hex,
                           const char *what)
{
    size_t need;
    merkle_status st = merkle_mdb_proof_encode(NULL, 0, &need, p, msg);
    assert_true(st == MERKLE_ERR_BUFFER || (st == MERKLE_OK && need == 0));
    uint8_t *buf = malloc(need + 1);
    size_t got;
    assert_int_equal(merkle_mdb_proof_encode(buf, need, &got, p, msg), MERKLE_OK);
    assert_int_equal(got, need);
    size_t wn;
    uint8_t *want = tu_unhex(hex, &wn);
    if (wn != got || memcmp(want, buf, got) != 0) {
        if (n_bad++ < 30) printf("MISMATCH %s: proof bytes differ\n", what);
    }
    free(want);
    free(buf);
}

/* Decode then verify one range/change verification; returns our kind name and message. */
static void run_verification(const json *req, const json *v, merkle_mdb_msg msg, const char *what)
{
    bytes proof = hexm(json_get(v, "proof"));
    bytes start = hexm(json_get(v, "start")), end = hexm(json_get(v, "end"));
    uint8_t root[32];
    id_of(root, json_get_str(v, "root"));
    int64_t maxl = json_get(v, "max_length")->integer;
    const json *bfj = json_get(v, "branch_factor");
    unsigned bf = (unsigned)(bfj ? bfj->integer : json_get(req, "branch_factor")->integer);
    merkle_mdb_result res;
    merkle_mdb_proof *p = NULL;
    merkle_status st = merkle_mdb_proof_decode(&p, &res, msg, proof.p, proof.n);
    const char *kind;
    if (st == MERKLE_OK) {
        if (msg == MERKLE_MDB_RANGE_PROOF) {
            st = merkle_mdb_verify_range(&res, p, mb(start), mb(end), root, bf, maxl);
        } else {
            merkle_mdb_db *vdb = state_db(json_get_str(v, "verifier_state"), bf);
            st = merkle_mdb_verify_change(&res, p, merkle_mdb_db_trie(vdb), mb(start), mb(end),
                                          root, maxl);
        }
        assert_true(st == MERKLE_OK || st == MERKLE_ERR_VERIFY);
        /* Re-encoding a decoded proof and decoding it again gives the same proof. */
        size_t need;
        (void)merkle_mdb_proof_encode(NULL, 0, &need, p, msg);
        uint8_t *buf = malloc(need + 1);
        int neg = 0;
        for (size_t i = 0; i < p->nstart + p->nend; i++)
            neg |= (i < p->nstart ? p->start_proof[i] : p->end_proof[i - p->nstart]).key_bits < 0;
        if (!neg) {
            assert_int_equal(merkle_mdb_proof_encode(buf, need, &need, p, msg), MERKLE_OK);
            merkle_mdb_proof *q;
            merkle_mdb_result r2;
            assert_int_equal(merkle_mdb_proof_decode(&q, &r2, msg, buf, need), MERKLE_OK);
            assert_int_equal(q->nstart, p->nstart);
            assert_int_equal(q->nend, p->nend);
            assert_int_equal(q->nkvs, p->nkvs);
            merkle_mdb_proof_free(q);
        }
        free(buf);
    } else {
        assert_int_equal(st, MERKLE_ERR_FORMAT);
    }
    kind = st == MERKLE_OK ? "ok" : merkle_mdb_kind_name(res.kind);
    n_checked++;
    char w[200];
    snprintf(w, sizeof w, "%s %s", what, json_get_str(v, "mutation"));
    (void)verdict_ok(v, kind, st == MERKLE_OK ? "" : res.message, w);
    merkle_mdb_proof_free(p);
    free(proof.p);
    free(start.p);
    free(end.p);
}

/* ------------------------------------------------------------------ the vector tests */

static int setup(void **state)
{
    (void)state;
    if (V == NULL) V = load_gz(vectors_path());
    return 0;
}

static void skip_without_vectors(void)
{
    if (V == NULL) skip();
}

static void test_range_vectors(void **state)
{
    (void)state;
    skip_without_vectors();
    n_bad = 0;
    const json *arr = json_get(V, "range_proofs");
    for (size_t i = 0; i < arr->len; i++) {
        const json *r = json_at(arr, i);
        const char *id = json_get_str(r, "id");
        unsigned bf = (unsigned)json_get(r, "branch_factor")->integer;
        const char *hist = json_get_str(r, "history");
        merkle_mdb_db *db = hist ? hist_db(hist) : state_db(json_get_str(r, "state"), bf);
        bytes start = hexm(json_get(r, "start")), end = hexm(json_get(r, "end"));
        uint8_t at[32];
        const char *ah = json_get_str(r, "at_root");
        if (ah) id_of(at, ah);
        merkle_mdb_result res;
        merkle_mdb_proof *p = NULL;
        merkle_status st = merkle_mdb_prove_range(
            &p, &res, db, mb(start), mb(end), json_get(r, "max_length")->integer, ah ? at : NULL);
        int go_on;
        result_ok(r, st, &res, id, &go_on);
        if (go_on)
            check_encoding(p, MERKLE_MDB_RANGE_PROOF, json_get_str(json_get(r, "result"), "proof"),
                           id);
        merkle_mdb_proof_free(p);
        free(start.p);
        free(end.p);
        const json *vs = json_get(r, "verifications");
        for (size_t k = 0; k < vs->len; k++)
            run_verification(r, json_at(vs, k), MERKLE_MDB_RANGE_PROOF, id);
    }
    printf("range: %zu checked, %zu mismatches; messages %zu/%zu identical\n", n_checked, n_bad,
           n_msg_same, n_msg_checked);
    assert_int_equal(n_bad, 0);
}

static void test_change_vectors(void **state)
{
    (void)state;
    skip_without_vectors();
    n_bad = n_checked = n_msg_same = n_msg_checked = 0;
    const json *arr = json_get(V, "change_proofs");
    for (size_t i = 0; i < arr->len; i++) {
        const json *r = json_at(arr, i);
        const char *id = json_get_str(r, "id");
        merkle_mdb_db *db = hist_db(json_get_str(r, "history"));
        bytes start = hexm(json_get(r, "start")), end = hexm(json_get(r, "end"));
        uint8_t a[32], b[32];
        id_of(a, json_get_str(r, "start_root"));
        id_of(b, json_get_str(r, "end_root"));
        merkle_mdb_result res;
        merkle_mdb_proof *p = NULL;
        merkle_status st = merkle_mdb_prove_change(&p, &res, db, a, b, mb(start), mb(end),
                                                   json_get(r, "max_length")->integer);
        int go_on;
        result_ok(r, st, &res, id, &go_on);
        if (go_on)
            check_encoding(p, MERKLE_MDB_CHANGE_PROOF, json_get_str(json_get(r, "result"), "proof"),
                           id);
        merkle_mdb_proof_free(p);
        free(start.p);
        free(end.p);
        const json *vs = json_get(r, "verifications");
        for (size_t k = 0; k < vs->len; k++)
            run_verification(r, json_at(vs, k), MERKLE_MDB_CHANGE_PROOF, id);
    }
    printf("change: %zu checked, %zu mismatches; messages %zu/%zu identical\n", n_checked, n_bad,
           n_msg_same, n_msg_checked);
    assert_int_equal(n_bad, 0);
}

static void decode_path(const json *path, merkle_mdb_proof **p, merkle_status *st,
                        merkle_mdb_result *res)
{
    size_t n = path->len;
    uint8_t **bufs = calloc(n + 1, sizeof *bufs);
    size_t *lens = calloc(n + 1, sizeof *lens);
    for (size_t i = 0; i < n; i++) bufs[i] = tu_unhex(json_at(path, i)->str, &lens[i]);
    *st = merkle_mdb_path_decode(p, res, (const uint8_t *const *)bufs, lens, n);
    for (size_t i = 0; i < n; i++) free(bufs[i]);
    free(bufs);
    free(lens);
}

static void test_key_vectors(void **state)
{
    (void)state;
    skip_without_vectors();
    n_bad = n_checked = n_msg_same = n_msg_checked = 0;
    const json *arr = json_get(V, "key_proofs");
    for (size_t i = 0; i < arr->len; i++) {
        const json *r = json_at(arr, i);
        const char *id = json_get_str(r, "id");
        unsigned bf = (unsigned)json_get(r, "branch_factor")->integer;
        merkle_mdb_db *db = state_db(json_get_str(r, "state"), bf);
        bytes key = hexm(json_get(r, "key"));
        merkle_mdb_result res;
        merkle_mdb_proof *p = NULL;
        merkle_mdb_maybe val;
        merkle_status st =
            merkle_mdb_prove_key(&p, &val, &res, merkle_mdb_db_trie(db), key.p, key.n);
        int go_on;
        result_ok(r, st, &res, id, &go_on);
        if (go_on) {
            const json *go = json_get(r, "result");
            const json *path = json_get(go, "path");
            int same = path->len == p->nstart;
            for (size_t k = 0; same && k < p->nstart; k++) {
                uint8_t buf[4096];
                size_t n;
                assert_int_equal(merkle_mdb_node_encode(buf, sizeof buf, &n, &p->start_proof[k]),
                                 MERKLE_OK);
                size_t wn;
                uint8_t *w = tu_unhex(json_at(path, k)->str, &wn);
                same = wn == n && memcmp(w, buf, n) == 0;
                free(w);
            }
            bytes gv = hexm(json_get(go, "value"));
            same = same && gv.some == val.some &&
                   (!gv.some || (gv.n == val.len && (gv.n == 0 || !memcmp(gv.p, val.ptr, gv.n))));
            free(gv.p);
            if (!same && n_bad++ < 30) printf("MISMATCH %s: key proof differs\n", id);
        }
        merkle_mdb_proof_free(p);
        free(key.p);
        const json *vs = json_get(r, "verifications");
        for (size_t k = 0; k < vs->len; k++) {
            const json *v = json_at(vs, k);
            merkle_mdb_proof *q = NULL;
            decode_path(json_get(v, "path"), &q, &st, &res);
            const json *bfj = json_get(v, "branch_factor");
            unsigned vbf = bfj ? (unsigned)bfj->integer : bf;
            if (st == MERKLE_OK) {
                bytes k2 = hexm(json_get(v, "key")), v2 = hexm(json_get(v, "value"));
                uint8_t root[32];
                id_of(root, json_get_str(v, "root"));
                st = merkle_mdb_verify_key(&res, q, k2.p, k2.n, mb(v2), root, vbf);
                assert_true(st == MERKLE_OK || st == MERKLE_ERR_VERIFY);
                free(k2.p);
                free(v2.p);
            }
            n_checked++;
            char w[200];
            snprintf(w, sizeof w, "%s %s", id, json_get_str(v, "mutation"));
            (void)verdict_ok(v, st == MERKLE_OK ? "ok" : merkle_mdb_kind_name(res.kind),
                             st == MERKLE_OK ? "" : res.message, w);
            merkle_mdb_proof_free(q);
        }
    }
    printf("key: %zu checked, %zu mismatches; messages %zu/%zu identical\n", n_checked, n_bad,
           n_msg_same, n_msg_checked);
    assert_int_equal(n_bad, 0);
}

/* ------------------------------------------------------------------ without the vectors */

/* Protobuf writer for hand-made messages. */
typedef struct pb {
    uint8_t b[4096];
    size_t n;
} pb;

static void pb_raw(pb *p, const void *d, size_t n)
{
    assert_true(p->n + n <= sizeof p->b);
    memcpy(p->b + p->n, d, n);
    p->n += n;
}

static void pb_uv(pb *p, uint64_t v)
{
    while (v >= 0x80) {
        uint8_t c = (uint8_t)(v | 0x80);
        pb_raw(p, &c, 1);
        v >>= 7;
    }
    uint8_t c = (uint8_t)v;
    pb_raw(p, &c, 1);
}

static void pb_msg(pb *p, unsigned field, const pb *m)
{
    pb_uv(p, (uint64_t)field << 3 | 2);
    pb_uv(p, m->n);
    pb_raw(p, m->b, m->n);
}

static void pb_bytes(pb *p, unsigned field, const void *d, size_t n)
{
    pb_uv(p, (uint64_t)field << 3 | 2);
    pb_uv(p, n);
    pb_raw(p, d, n);
}

static int decode_kind(const pb *m, merkle_mdb_proof **out)
{
    merkle_mdb_result res;
    merkle_mdb_proof *p = NULL;
    merkle_status st = merkle_mdb_proof_decode(&p, &res, MERKLE_MDB_RANGE_PROOF, m->b, m->n);
    if (st == MERKLE_OK) {
        if (out)
            *out = p;
        else
            merkle_mdb_proof_free(p);
        return 0;
    }
    assert_int_equal(st, MERKLE_ERR_FORMAT);
    assert_null(p);
    return res.kind;
}

static void test_decode_edges(void **state)
{
    (void)state;
    uint8_t id_a[32], id_b[32];
    memset(id_a, 0xaa, 32);
    memset(id_b, 0xbb, 32);
    /* A node: Key given twice (merged: length from the first, value from the second), a
    ** non-minimal varint, a duplicate map key (the last wins), an entry without key (index 0),
    ** an unknown varint field and a group, all skipped. */
    pb k1 = { .n = 0 }, k2 = { .n = 0 }, node = { .n = 0 }, e1 = { .n = 0 }, e2 = { .n = 0 },
       e3 = { .n = 0 }, top = { .n = 0 };
    pb_raw(&k1, "\x08\x8c\x00", 3); /* length 12, non-minimal */
    pb_bytes(&k1, 2, "\x00\x00", 2);
    pb_bytes(&k2, 2, "\xab\xcf", 2); /* padding bits set: zeroed */
    pb_uv(&e1, 0x08);
    pb_uv(&e1, 3);
    pb_bytes(&e1, 2, id_a, 32);
    pb_uv(&e2, 0x08);
    pb_uv(&e2, 3);
    pb_bytes(&e2, 2, id_b, 32);
    pb_bytes(&e3, 2, id_a, 32);
    pb_msg(&node, 1, &k1);
    pb_msg(&node, 3, &e1);
    pb_raw(&node, "\x48\x05", 2);         /* field 9, varint */
    pb_raw(&node, "\x53\x08\x01\x54", 4); /* field 10 group holding a varint */
    pb_msg(&node, 1, &k2);
    pb_msg(&node, 3, &e2);
    pb_msg(&node, 3, &e3);
    pb_msg(&top, 2, &node);
    pb_raw(&top, "\x25\x01\x02\x03\x04", 5); /* field 4, fixed32 */
    merkle_mdb_proof *p = NULL;
    assert_int_equal(decode_kind(&top, &p), 0);
    assert_int_equal(p->nstart, 0);
    assert_int_equal(p->nend, 1);
    const merkle_mdb_node *n = &p->end_proof[0];
    assert_int_equal(n->key_bits, 12);
    assert_int_equal(n->key_len, 2);
    assert_int_equal(n->key[0], 0xab);
    assert_int_equal(n->key[1], 0xc0);
    assert_false(n->value_or_hash.some);
    assert_int_equal(n->nchildren, 2);
    assert_int_equal(n->children[0].index, 0);
    assert_memory_equal(n->children[0].id, id_a, 32);
    assert_int_equal(n->children[1].index, 3);
    assert_memory_equal(n->children[1].id, id_b, 32);
    /* Deterministic re-encoding. */
    uint8_t buf[512];
    size_t len;
    assert_int_equal(merkle_mdb_proof_encode(buf, sizeof buf, &len, p, MERKLE_MDB_RANGE_PROOF),
                     MERKLE_OK);
    static const uint8_t want_head[] = { 0x12, 0x54, 0x0a, 0x06, 0x08, 0x0c, 0x12, 0x02,
                                         0xab, 0xc0, 0x1a, 0x24, 0x08, 0x00, 0x12, 0x20 };
    assert_int_equal(len, 2 + 0x54);
    assert_memory_equal(buf, want_head, sizeof want_head);
    assert_int_equal(merkle_mdb_proof_encode(buf, 10, &len, p, MERKLE_MDB_RANGE_PROOF),
                     MERKLE_ERR_BUFFER);
    assert_int_equal(len, 2 + 0x54);
    merkle_mdb_proof_free(p);

    /* Conversion errors, in unmarshalProto's order. */
    pb m = { .n = 0 }, nd = { .n = 0 }, kk = { .n = 0 }, ee = { .n = 0 };
    pb_raw(&nd, "\x48\x05", 2);
    pb_msg(&m, 1, &nd);
    assert_int_equal(decode_kind(&m, NULL), MERKLE_MDB_ERR_NIL_KEY);
    m.n = nd.n = 0;
    pb_raw(&kk, "\x08\x09", 2); /* 9 bits need 2 bytes */
    pb_bytes(&kk, 2, "\x01", 1);
    pb_msg(&nd, 1, &kk);
    pb_msg(&m, 2, &nd);
    assert_int_equal(decode_kind(&m, NULL), MERKLE_MDB_ERR_INVALID_KEY_LENGTH);
    m.n = nd.n = kk.n = 0;
    pb_msg(&nd, 1, &kk);            /* empty Key: the empty key */
    pb_raw(&ee, "\x08\x80\x02", 3); /* index 256 */
    pb_bytes(&ee, 2, id_a, 32);
    pb_msg(&nd, 3, &ee);
    pb_msg(&m, 1, &nd);
    assert_int_equal(decode_kind(&m, NULL), MERKLE_MDB_ERR_CHILD_INDEX_TOO_LARGE);
    m.n = nd.n = ee.n = 0;
    pb_msg(&nd, 1, &kk);
    pb_raw(&ee, "\x08\x01", 2);
    pb_bytes(&ee, 2, id_a, 31);
    pb_msg(&nd, 3, &ee);
    pb_msg(&m, 1, &nd);
    assert_int_equal(decode_kind(&m, NULL), MERKLE_MDB_ERR_INVALID_HASH_LEN);
    /* Wire-format errors: truncation anywhere, a bad wire type, an unmatched end group. */
    for (size_t cut = 1; cut < m.n; cut++) {
        pb t = m;
        t.n = cut;
        assert_int_equal(decode_kind(&t, NULL), MERKLE_MDB_ERR_PROTO);
    }
    pb bad = { .n = 0 };
    pb_raw(&bad, "\x0e", 1);
    assert_int_equal(decode_kind(&bad, NULL), MERKLE_MDB_ERR_PROTO);
    bad.n = 0;
    pb_raw(&bad, "\x0c", 1);
    assert_int_equal(decode_kind(&bad, NULL), MERKLE_MDB_ERR_PROTO);
    bad.n = 0;
    pb_raw(&bad, "\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 11); /* varint > 64 bits */
    assert_int_equal(decode_kind(&bad, NULL), MERKLE_MDB_ERR_PROTO);
    /* Key length 2^64-1 with one byte decodes (as -1, like Go) and then fails cleanly. */
    m.n = nd.n = kk.n = 0;
    pb_raw(&kk, "\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
    pb_bytes(&kk, 2, "\x00", 1);
    pb_msg(&nd, 1, &kk);
    pb empty = { .n = 0 }, kempty = { .n = 0 };
    pb_msg(&empty, 1, &kempty);
    pb_msg(&m, 2, &empty);
    pb_msg(&m, 2, &nd);
    p = NULL;
    assert_int_equal(decode_kind(&m, &p), 0);
    assert_int_equal(p->end_proof[1].key_bits, -1);
    assert_int_equal(merkle_mdb_proof_encode(buf, sizeof buf, &len, p, MERKLE_MDB_RANGE_PROOF),
                     MERKLE_ERR_ARG);
    uint8_t root[32] = { 1 };
    merkle_mdb_result res;
    assert_int_equal(merkle_mdb_verify_range(&res, p, (merkle_mdb_maybe){ NULL, 0, 0 },
                                             (merkle_mdb_maybe){ (const uint8_t *)"a", 1, 1 }, root,
                                             16, 10),
                     MERKLE_ERR_VERIFY);
    assert_int_equal(res.kind, MERKLE_MDB_ERR_NON_INCREASING_PROOF_NODES);
    p->end_proof++;
    p->nend = 1;
    assert_int_equal(merkle_mdb_verify_range(&res, p, (merkle_mdb_maybe){ NULL, 0, 0 },
                                             (merkle_mdb_maybe){ (const uint8_t *)"a", 1, 1 }, root,
                                             16, 10),
                     MERKLE_ERR_VERIFY);
    assert_int_equal(res.kind, MERKLE_MDB_ERR_INVALID_PROOF); /* Go panics here */
    p->end_proof--;
    merkle_mdb_proof_free(p);
}

/* A random database of n keys (short keys from a small alphabet: shared prefixes). */
static void random_ops(tu_rng *r, merkle_mdb_op *ops, uint8_t (*keys)[6], uint8_t (*vals)[40],
                       size_t n, int deletes)
{
    for (size_t i = 0; i < n; i++) {
        size_t kl = 1 + tu_rng_below(r, 5);
        for (size_t j = 0; j < kl; j++) keys[i][j] = (uint8_t)(tu_rng_below(r, 4) * 0x31);
        size_t vl = tu_rng_below(r, 40);
        tu_rng_fill(r, vals[i], vl);
        ops[i] = (merkle_mdb_op){ keys[i], kl, vals[i], vl, deletes && tu_rng_below(r, 3) == 0 };
    }
}

static void test_round_trips(void **state)
{
    (void)state;
    static const unsigned bfs[] = { 2, 4, 16, 256 };
    tu_rng r;
    tu_rng_seed(&r, 24);
    uint8_t keys[64][6], vals[64][40];
    merkle_mdb_op ops[64];
    for (unsigned b = 0; b < 4; b++) {
        merkle_mdb_db *db;
        assert_int_equal(merkle_mdb_db_alloc(&db, bfs[b], 4), MERKLE_OK);
        uint8_t roots[8][32];
        for (unsigned step = 0; step < 6; step++) {
            random_ops(&r, ops, keys, vals, 64, step > 0);
            int rec;
            assert_int_equal(merkle_mdb_db_commit(db, ops, 64, &rec, NULL), MERKLE_OK);
            assert_true(rec);
            assert_int_equal(merkle_trie_root(roots[step], merkle_mdb_db_trie(db), 1, NULL),
                             MERKLE_OK);
        }
        merkle_trie *t = merkle_mdb_db_trie(db);
        for (unsigned q = 0; q < 40; q++) {
            uint8_t s[2] = { (uint8_t)tu_rng_below(&r, 256), 0 }, e[2] = { 0xff, 0xff };
            merkle_mdb_maybe ms = { s, 1, q % 3 != 0 }, me = { e, 2, q % 4 != 0 };
            int64_t maxl = 1 + (int64_t)tu_rng_below(&r, 20);
            merkle_mdb_result res;
            merkle_mdb_proof *p;
            /* At the current root and at the two previous ones. */
            for (unsigned back = 0; back < 3; back++) {
                const uint8_t *at = back ? roots[5 - back] : NULL;
                assert_int_equal(merkle_mdb_prove_range(&p, &res, db, ms, me, maxl, at), MERKLE_OK);
                size_t len;
                (void)merkle_mdb_proof_encode(NULL, 0, &len, p, MERKLE_MDB_RANGE_PROOF);
                uint8_t *buf = malloc(len + 1), *buf2 = malloc(len + 1);
                assert_int_equal(merkle_mdb_proof_encode(buf, len, &len, p, MERKLE_MDB_RANGE_PROOF),
                                 MERKLE_OK);
                merkle_mdb_proof *d;
                assert_int_equal(
                    merkle_mdb_proof_decode(&d, &res, MERKLE_MDB_RANGE_PROOF, buf, len), MERKLE_OK);
                size_t len2;
                assert_int_equal(
                    merkle_mdb_proof_encode(buf2, len, &len2, d, MERKLE_MDB_RANGE_PROOF),
                    MERKLE_OK);
                assert_int_equal(len2, len);
                assert_memory_equal(buf, buf2, len);
                assert_int_equal(
                    merkle_mdb_verify_range(&res, d, ms, me, roots[5 - back], bfs[b], maxl),
                    MERKLE_OK);
                /* Every byte changed: never a crash; a changed root never verifies. */
                for (size_t i = 0; i < len; i++) {
                    buf2[i] ^= 0x41;
                    merkle_mdb_proof *m = NULL;
                    if (merkle_mdb_proof_decode(&m, &res, MERKLE_MDB_RANGE_PROOF, buf2, len) ==
                        MERKLE_OK)
                        (void)merkle_mdb_verify_range(&res, m, ms, me, roots[5 - back], bfs[b],
                                                      maxl);
                    merkle_mdb_proof_free(m);
                    buf2[i] ^= 0x41;
                }
                uint8_t wrong[32];
                memcpy(wrong, roots[5 - back], 32);
                wrong[7] ^= 1;
                assert_int_equal(merkle_mdb_verify_range(&res, d, ms, me, wrong, bfs[b], maxl),
                                 MERKLE_ERR_VERIFY);
                assert_int_equal(res.kind, MERKLE_MDB_ERR_INVALID_PROOF);
                merkle_mdb_proof_free(d);
                merkle_mdb_proof_free(p);
                free(buf);
                free(buf2);
            }
            /* Key proofs of present and absent keys. */
            merkle_mdb_maybe v;
            assert_int_equal(merkle_mdb_prove_key(&p, &v, &res, t, s, 1 + q % 2), MERKLE_OK);
            assert_int_equal(merkle_mdb_verify_key(&res, p, s, 1 + q % 2, v, roots[5], bfs[b]),
                             MERKLE_OK);
            merkle_mdb_proof_free(p);
            /* A change proof over the last two commits verifies against a database holding
            ** the end state (nothing outside the range differs from it). */
            assert_int_equal(
                merkle_mdb_prove_change(&p, &res, db, roots[3], roots[5], ms, me, 1000), MERKLE_OK);
            assert_int_equal(merkle_mdb_verify_change(&res, p, t, ms, me, roots[5], 1000),
                             MERKLE_OK);
            merkle_mdb_proof_free(p);
        }
        /* History of 4: the root of step 0 is gone (and the empty root with it). */
        merkle_mdb_result res;
        merkle_mdb_proof *p;
        merkle_mdb_maybe none = { NULL, 0, 0 };
        assert_int_equal(merkle_mdb_prove_change(&p, &res, db, roots[0], roots[5], none, none, 10),
                         MERKLE_ERR_STATE);
        assert_int_equal(res.kind, MERKLE_MDB_ERR_INSUFFICIENT_HISTORY);
        assert_int_equal(merkle_mdb_prove_range(&p, &res, db, none, none, 10, roots[0]),
                         MERKLE_ERR_STATE);
        assert_int_equal(res.kind, MERKLE_MDB_ERR_INSUFFICIENT_HISTORY);
        assert_int_equal(merkle_mdb_prove_change(&p, &res, db, roots[5], roots[5], none, none, 10),
                         MERKLE_ERR_STATE);
        assert_int_equal(res.kind, MERKLE_MDB_ERR_SAME_ROOT);
        assert_int_equal(merkle_mdb_prove_change(&p, &res, db, roots[4], roots[5], none, none, 0),
                         MERKLE_ERR_STATE);
        assert_int_equal(res.kind, MERKLE_MDB_ERR_INVALID_MAX_LENGTH);
        uint8_t other[32] = { 9 };
        assert_int_equal(merkle_mdb_prove_change(&p, &res, db, roots[4], other, none, none, 5),
                         MERKLE_ERR_STATE);
        assert_int_equal(res.kind, MERKLE_MDB_ERR_NO_END_ROOT);
        /* A batch deleting only absent keys is not recorded. */
        merkle_mdb_op del = { (const uint8_t *)"zzzzzzz", 7, NULL, 0, 1 };
        int rec = 1;
        assert_int_equal(merkle_mdb_db_commit(db, &del, 1, &rec, NULL), MERKLE_OK);
        assert_false(rec);
        merkle_mdb_db_free(db);
    }
}

static void test_api_errors(void **state)
{
    (void)state;
    merkle_mdb_db *db = NULL;
    merkle_mdb_result res;
    merkle_mdb_proof *p = NULL;
    merkle_mdb_maybe none = { NULL, 0, 0 };
    uint8_t root[32] = { 0 };
    assert_int_equal(merkle_mdb_db_alloc(&db, 8, 0), MERKLE_ERR_ARG);
    assert_int_equal(merkle_mdb_db_alloc(NULL, 16, 0), MERKLE_ERR_ARG);
    assert_int_equal(merkle_mdb_db_alloc(&db, 16, 0), MERKLE_OK);
    assert_int_equal(merkle_mdb_prove_range(&p, &res, db, none, none, 5, NULL), MERKLE_ERR_STATE);
    assert_int_equal(res.kind, MERKLE_MDB_ERR_EMPTY_PROOF);
    assert_int_equal(merkle_mdb_prove_key(&p, NULL, &res, merkle_mdb_db_trie(db), NULL, 0),
                     MERKLE_ERR_STATE);
    assert_int_equal(res.kind, MERKLE_MDB_ERR_EMPTY_PROOF);
    merkle_mdb_maybe a = { (const uint8_t *)"b", 1, 1 }, b = { (const uint8_t *)"a", 1, 1 };
    assert_int_equal(merkle_mdb_prove_range(&p, &res, db, a, b, 5, NULL), MERKLE_ERR_STATE);
    assert_int_equal(res.kind, MERKLE_MDB_ERR_START_AFTER_END);
    assert_int_equal(merkle_mdb_prove_range(NULL, &res, db, none, none, 5, NULL), MERKLE_ERR_ARG);
    assert_int_equal(merkle_mdb_db_commit(NULL, NULL, 0, NULL, NULL), MERKLE_ERR_ARG);
    merkle_mdb_op bad = { NULL, 3, NULL, 0, 0 };
    assert_int_equal(merkle_mdb_db_commit(db, &bad, 1, NULL, NULL), MERKLE_ERR_ARG);
    assert_int_equal(merkle_mdb_verify_range(&res, NULL, none, none, root, 16, 5),
                     MERKLE_ERR_VERIFY);
    assert_int_equal(res.kind, MERKLE_MDB_ERR_EMPTY_PROOF);
    assert_int_equal(merkle_mdb_verify_range(&res, NULL, none, none, root, 3, 5), MERKLE_ERR_ARG);
    assert_int_equal(merkle_mdb_verify_range(&res, NULL, none, none, NULL, 16, 5), MERKLE_ERR_ARG);
    assert_int_equal(merkle_mdb_proof_decode(&p, &res, 7, NULL, 0), MERKLE_ERR_ARG);
    assert_int_equal(merkle_mdb_proof_decode(&p, &res, MERKLE_MDB_CHANGE_PROOF, NULL, 0),
                     MERKLE_OK);
    assert_int_equal(merkle_mdb_verify_change(&res, p, merkle_mdb_db_trie(db), none, none, root, 5),
                     MERKLE_ERR_VERIFY);
    assert_int_equal(res.kind, MERKLE_MDB_ERR_EMPTY_PROOF);
    merkle_mdb_proof_free(p);
    merkle_mdb_proof_free(NULL);
    merkle_mdb_db_free(db);
    merkle_mdb_db_free(NULL);
    assert_string_equal(merkle_mdb_kind_name(MERKLE_MDB_OK), "ok");
    assert_string_equal(merkle_mdb_kind_name(MERKLE_MDB_ERR_NO_END_ROOT), "sync.ErrNoEndRoot");
    assert_string_equal(merkle_mdb_kind_name(-1), "unknown");
    assert_string_equal(merkle_mdb_kind_name(MERKLE_MDB_KIND_COUNT), "unknown");
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_edges),   cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_api_errors),     cmocka_unit_test(test_range_vectors),
        cmocka_unit_test(test_change_vectors), cmocka_unit_test(test_key_vectors),
    };
    V = load_gz(vectors_path());
    int rc = cmocka_run_group_tests(tests, setup, NULL);
    if (V == NULL && rc == 0) {
        printf("SKIP: %s not found (peer vectors are not committed; set MERKLE_SHARED_VECTORS): "
               "only the tests without them ran\n",
               vectors_path());
        return 77;
    }
    json_free(V);
    return rc;
}
