/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Proof objects: the binary ("MRKP") and JSON codecs and their error paths, merkle_proof_verify
** on decoded objects, and the detail of verification errors. (Split from test_proof.c.)
*/
#include "proof_ref.h"

static void make_proof(merkle_proof *pr, merkle_proof_kind kind, uint64_t n, uint64_t a, uint64_t b)
{
    merkle_prover p;
    h32 *lh = make_leaf_hashes(MERKLE_HASH_SHA256, n);
    assert_int_equal(merkle_prover_init(&p, kind, MERKLE_HASH_SHA256, 1, a, b), MERKLE_OK);
    feed_hashes(&p, lh, n);
    assert_int_equal(merkle_prover_finish(pr, &p, MERKLE_PROFILE_RFC6962), MERKLE_OK);
    pr->leaf_size = 0;
    free(lh);
}

static void assert_same_proof(const merkle_proof *a, const merkle_proof *b)
{
    assert_int_equal(a->kind, b->kind);
    assert_int_equal(a->profile, b->profile);
    assert_int_equal(a->hash, b->hash);
    assert_int_equal(a->tree_size, b->tree_size);
    assert_int_equal(a->index, b->index);
    if (a->kind != MERKLE_PROOF_CONSISTENCY) assert_int_equal(a->end, b->end);
    assert_int_equal(a->leaf_size, b->leaf_size);
    assert_int_equal(a->flags & ~MERKLE_PROOF_HAS_LEAF, b->flags & ~MERKLE_PROOF_HAS_LEAF);
    assert_memory_equal(a->root, b->root, 32);
    if (a->flags & MERKLE_PROOF_HAS_OLD_ROOT) assert_memory_equal(a->old_root, b->old_root, 32);
    if (a->flags & MERKLE_PROOF_HAS_LEAF_HASH) assert_memory_equal(a->leaf_hash, b->leaf_hash, 32);
    assert_int_equal(a->path_len, b->path_len);
    assert_memory_equal(a->path, b->path, a->path_len * 32);
}

static void test_binary_codec(void **state)
{
    (void)state;
    merkle_proof pr, back;
    merkle_error err;
    uint8_t buf[8192];
    size_t len;
    const uint8_t *leaf;
    size_t leaf_len;
    merkle_proof_kind kinds[3] = { MERKLE_PROOF_INCLUSION, MERKLE_PROOF_CONSISTENCY,
                                   MERKLE_PROOF_RANGE };
    for (int k = 0; k < 3; k++) {
        make_proof(&pr, kinds[k], 1000, 333, 555);
        const uint8_t seg[5] = { 1, 2, 3, 4, 5 };
        int with_leaf = k == 0;
        assert_int_equal(
            merkle_proof_encode(buf, 10, &len, &pr, with_leaf ? seg : NULL, with_leaf ? 5 : 0),
            MERKLE_ERR_BUFFER);
        size_t need = len;
        assert_int_equal(merkle_proof_encode(buf, sizeof buf, &len, &pr, with_leaf ? seg : NULL,
                                             with_leaf ? 5 : 0),
                         MERKLE_OK);
        assert_int_equal(len, need);
        assert_int_equal(merkle_proof_decode(&back, &leaf, &leaf_len, buf, len, &err), MERKLE_OK);
        assert_same_proof(&pr, &back);
        if (with_leaf) {
            assert_int_equal(leaf_len, 5);
            assert_memory_equal(leaf, seg, 5);
        } else {
            assert_null(leaf);
        }
        /* Every truncation and one trailing byte are format errors. */
        for (size_t cut = 0; cut < len; cut++)
            assert_int_equal(merkle_proof_decode(&back, NULL, NULL, buf, cut, &err),
                             MERKLE_ERR_FORMAT);
        buf[len] = 0;
        assert_int_equal(merkle_proof_decode(&back, NULL, NULL, buf, len + 1, &err),
                         MERKLE_ERR_FORMAT);
        /* Each header field with a bad value. */
        const size_t at[] = { 0, 3, 4, 5, 6, 7, 8, 41 };
        const uint8_t bad[] = { 'X', 'Q', 2, 9, 0, 0, 0x80, 0xff };
        for (size_t f = 0; f < sizeof at / sizeof *at; f++) {
            uint8_t save = buf[at[f]];
            buf[at[f]] = bad[f];
            memset(&err, 0, sizeof err);
            assert_int_equal(merkle_proof_decode(&back, NULL, NULL, buf, len, &err),
                             MERKLE_ERR_FORMAT);
            assert_true(err.message[0] != 0);
            buf[at[f]] = save;
        }
        assert_int_equal(merkle_proof_decode(&back, NULL, NULL, buf, len, NULL), MERKLE_OK);
        assert_int_equal(merkle_proof_verify(&back, back.root, back.old_root, NULL, NULL, &err),
                         kinds[k] == MERKLE_PROOF_RANGE ? MERKLE_ERR_ARG : MERKLE_OK);
    }
    /* Leaf length larger than the limit, or than the data. */
    make_proof(&pr, MERKLE_PROOF_INCLUSION, 5, 1, 0);
    assert_int_equal(merkle_proof_encode(buf, sizeof buf, &len, &pr, (const uint8_t *)"abc", 3),
                     MERKLE_OK);
    buf[len - 7] = 0x7f;
    assert_int_equal(merkle_proof_decode(&back, NULL, NULL, buf, len, &err), MERKLE_ERR_FORMAT);
    buf[len - 7] = 0;
    buf[len - 4] = 4;
    assert_int_equal(merkle_proof_decode(&back, NULL, NULL, buf, len, &err), MERKLE_ERR_FORMAT);
    assert_int_equal(merkle_proof_decode(NULL, NULL, NULL, buf, len, &err), MERKLE_ERR_ARG);
    pr.kind = (merkle_proof_kind)0;
    assert_int_equal(merkle_proof_encode(buf, sizeof buf, &len, &pr, NULL, 0), MERKLE_ERR_ARG);
}

static void test_json_codec(void **state)
{
    (void)state;
    merkle_proof pr, back;
    merkle_error err;
    char js[16384];
    size_t len, ll;
    uint8_t leafbuf[64];
    merkle_proof_kind kinds[3] = { MERKLE_PROOF_INCLUSION, MERKLE_PROOF_CONSISTENCY,
                                   MERKLE_PROOF_RANGE };
    for (int k = 0; k < 3; k++) {
        make_proof(&pr, kinds[k], 77, 20, 33);
        pr.profile = k == 0 ? MERKLE_PROFILE_SIA : MERKLE_PROFILE_RFC6962;
        pr.hash = MERKLE_HASH_SHA256;
        assert_int_equal(merkle_proof_to_json(js, 5, &len, &pr, (const uint8_t *)"xy", 2),
                         MERKLE_ERR_BUFFER);
        assert_int_equal(merkle_proof_to_json(js, sizeof js, &len, &pr,
                                              k == 0 ? (const uint8_t *)"xy" : NULL,
                                              k == 0 ? 2 : 0),
                         MERKLE_OK);
        assert_int_equal(strlen(js) + 1, len);
        assert_int_equal(
            merkle_proof_from_json(&back, leafbuf, sizeof leafbuf, &ll, js, strlen(js), &err),
            MERKLE_OK);
        assert_same_proof(&pr, &back);
        assert_int_equal(ll, k == 0 ? 2 : 0);
        if (k == 0) assert_non_null(strstr(js, "\"proof_set\""));
        if (k == 1) assert_non_null(strstr(js, "\"old_size\": 20"));
        /* Every truncation fails cleanly. */
        for (size_t cut = 0; cut + 2 < strlen(js); cut += 3)
            assert_int_not_equal(
                merkle_proof_from_json(&back, leafbuf, sizeof leafbuf, &ll, js, cut, &err),
                MERKLE_OK);
    }
    /* Aliases (transparency-dev / CometBFT field names) and inference of the kind. */
    const char *ok1 =
        "{\"total\": 2, \"index\": 1, \"aunts\": [\"" /* n=2 i=1 */
        "db3426e878068d28d269b6c87172322ce5372b65756d0789001d34835f601c03\"],"
        "\"leaf_hash\":\"2215e8ac4e2b871c2a48189e79738c956c081e23ac2f2415bf77da199dfd920c\","
        "\"root\":\"cb00989d94a569c0a678ae042b63dcd4625db96440517f37a6eb7976ea24ed4b\","
        "\"extra\": {\"a\": [1, 2.5e3, true, null, \"s\\u00e9\"]}}";
    assert_int_equal(merkle_proof_from_json(&back, NULL, 0, NULL, ok1, strlen(ok1), &err),
                     MERKLE_OK);
    assert_int_equal(back.kind, MERKLE_PROOF_INCLUSION);
    assert_int_equal(merkle_proof_verify(&back, back.root, back.old_root, NULL, NULL, &err),
                     MERKLE_OK);
    const char *ok2 =
        "{\"size1\": 1, \"size2\": 1, \"root1\": "
        "\"6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d\","
        "\"root2\": \"6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d\", "
        "\"proof\": []}";
    assert_int_equal(merkle_proof_from_json(&back, NULL, 0, NULL, ok2, strlen(ok2), &err),
                     MERKLE_OK);
    assert_int_equal(back.kind, MERKLE_PROOF_CONSISTENCY);
    assert_int_equal(merkle_proof_verify(&back, back.root, back.old_root, NULL, NULL, &err),
                     MERKLE_OK);
    /* A hash of the wrong length: unverifiable, not malformed. */
    const char *short_root =
        "{\"tree_size\": 1, \"index\": 0, \"path\": [], \"root\": \"\","
        "\"leaf_hash\":\"6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d\"}";
    assert_int_equal(
        merkle_proof_from_json(&back, NULL, 0, NULL, short_root, strlen(short_root), &err),
        MERKLE_OK);
    assert_int_equal(merkle_proof_verify(&back, back.root, back.old_root, NULL, NULL, &err),
                     MERKLE_ERR_VERIFY);
    const char *short_leaf = "{\"tree_size\": 1, \"index\": 0, \"path\": [], \"root\": \"00\","
                             "\"leaf_hash\":\"00\"}";
    assert_int_equal(
        merkle_proof_from_json(&back, NULL, 0, NULL, short_leaf, strlen(short_leaf), &err),
        MERKLE_ERR_VERIFY);
    assert_non_null(strstr(err.message, "leaf_hash"));
    /* Malformed documents. */
    const char *bad[] = {
        "",
        "[1]",
        "{",
        "{}",
        "{\"tree_size\": 1}",
        "{\"tree_size\": -1, \"index\": 0, \"path\": []}",
        "{\"tree_size\": 1.5, \"index\": 0, \"path\": []}",
        "{\"tree_size\": 1, \"index\": 0, \"path\": []} x",
        "{\"tree_size\": 1, \"tree_size\": 1, \"index\": 0, \"path\": []}",
        "{\"tree_size\": 1, \"index\": 0, \"path\": [\"zz\"]}",
        "{\"tree_size\": 1, \"index\": 0, \"path\": [\"abc\"]}",
        "{\"tree_size\": 1, \"index\": 0, \"path\": \"x\"}",
        "{\"tree_size\": 18446744073709551616, \"index\": 0, \"path\": []}",
        "{\"tree_size\": 01, \"index\": 0, \"path\": []}",
        "{\"type\": \"bogus\", \"tree_size\": 1, \"index\": 0, \"path\": []}",
        "{\"profile\": \"bogus\", \"tree_size\": 1, \"index\": 0, \"path\": []}",
        "{\"hash\": \"md5\", \"tree_size\": 1, \"index\": 0, \"path\": []}",
        "{\"type\": \"range\", \"tree_size\": 1, \"start\": 0, \"path\": []}",
        "{\"type\": \"consistency\", \"new_size\": 1, \"path\": []}",
        "{\"tree_size\": 1, \"index\": 0, \"path\": [], \"x\": "
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
        "{\"tree_size\": 1, \"index\": 0, \"path\": [], \"x\": \"\\q\"}",
        "{\"tree_size\": 1, \"index\": 0, \"path\": [], \"x\": \"\x01\"}",
        "{\"tree_size\": 1 \"index\": 0, \"path\": []}",
        "{\"tree_size\": 1, \"index\": 0, \"path\": [], \"leaf\": "
        "\"00112233445566778899001122334455667788990011223344556677889900112233\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        memset(&err, 0, sizeof err);
        merkle_status s =
            merkle_proof_from_json(&back, leafbuf, 4, &ll, bad[i], strlen(bad[i]), &err);
        if (s != MERKLE_ERR_FORMAT && s != MERKLE_ERR_BUFFER)
            fail_msg("bad JSON %zu accepted (%d)", i, s);
        assert_true(err.message[0] != 0);
    }
}

/* @openzeppelin/merkle-tree's getProof() array: an openzeppelin proof without position. */
static void test_bare_oz_array(void **state)
{
    (void)state;
    uint8_t a[32], b[32], root[32], wrong[32];
    memset(a, 0x11, 32);
    memset(b, 0xab, 32);
    merkle_keccak256 k; /* OZ's node: keccak256 of the sorted pair */
    merkle_keccak256_init(&k);
    merkle_keccak256_update(&k, a, 32);
    merkle_keccak256_update(&k, b, 32);
    merkle_keccak256_final(&k, root);
    memcpy(wrong, root, 32);
    wrong[31] ^= 1;
    char json[200];
    snprintf(json, sizeof json, " [ \"0x%s\" ]\n",
             "abababababababababababababababababababababababababababababababab");
    merkle_proof p;
    merkle_error err;
    uint8_t leafbuf[4];
    size_t ll = 9;
    memset(&p, 0x5a, sizeof p);
    assert_int_equal(
        merkle_proof_from_json(&p, leafbuf, sizeof leafbuf, &ll, json, strlen(json), &err),
        MERKLE_OK);
    assert_int_equal(p.kind, MERKLE_PROOF_INCLUSION);
    assert_int_equal(p.profile, MERKLE_PROFILE_OPENZEPPELIN);
    assert_int_equal(p.hash, MERKLE_HASH_KECCAK256);
    assert_int_equal(p.flags, 0);
    assert_int_equal(ll, 0);
    assert_int_equal(p.path_len, 1);
    assert_memory_equal(p.path[0], b, 32);
    assert_int_equal(merkle_proof_verify(&p, root, NULL, a, NULL, &err), MERKLE_OK);
    assert_int_equal(merkle_proof_verify(&p, wrong, NULL, a, NULL, &err), MERKLE_ERR_VERIFY);
    assert_int_equal(merkle_proof_verify(&p, root, NULL, b, NULL, &err), MERKLE_ERR_VERIFY);
    /* Without the 0x, upper-case hex, and [] (a one-leaf tree: the root is the leaf). */
    const char *ok2 = "[\"ABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABAB\"]";
    assert_int_equal(merkle_proof_from_json(&p, NULL, 0, NULL, ok2, strlen(ok2), &err), MERKLE_OK);
    assert_memory_equal(p.path[0], b, 32);
    assert_int_equal(merkle_proof_from_json(&p, NULL, 0, NULL, "[]", 2, &err), MERKLE_OK);
    assert_int_equal(p.path_len, 0);
    assert_int_equal(merkle_proof_verify(&p, a, NULL, a, NULL, &err), MERKLE_OK);
    /* Malformed arrays, each with its message. */
    static const char h64[] =
        "\"0xabababababababababababababababababababababababababababababababab\"";
    char many[129 * (sizeof h64) + 4];
    size_t m = 0;
    many[m++] = '[';
    for (int i = 0; i < 129; i++) {
        if (i) many[m++] = ',';
        memcpy(many + m, h64, sizeof h64 - 1);
        m += sizeof h64 - 1;
    }
    many[m++] = ']';
    many[m] = 0;
    char t1[160], t2[160], t3[160], t4[160];
    snprintf(t1, sizeof t1, "[%s,]", h64);
    snprintf(t2, sizeof t2, "[%s %s]", h64, h64);
    snprintf(t3, sizeof t3, "[%s] x", h64);
    snprintf(t4, sizeof t4, "[%s", h64);
    const struct {
        const char *doc, *msg;
    } bad[] = {
        { "[1]", "a proof array is" },
        { "[", "a proof array is" },
        { t1, "a proof array is" },
        { t2, "a proof array is" },
        { t3, "trailing data" },
        { t4, "a proof array is" },
        { "[\"0x12\"]", "element 0 of the proof array is not a 32-byte hex hash" },
        { "[\"0xzzabababababababababababababababababababababababababababababab\"]", "element 0" },
        { "[\"\\u0030xabababababababababababababababababababababababababababababababab\"]",
          "element 0" },
        { many, "more than 128 hashes" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        memset(&err, 0, sizeof err);
        assert_int_equal(
            merkle_proof_from_json(&p, NULL, 0, NULL, bad[i].doc, strlen(bad[i].doc), &err),
            MERKLE_ERR_FORMAT);
        if (!strstr(err.message, bad[i].msg)) fail_msg("case %zu: %s", i, err.message);
    }
}

static void test_proof_verify_object(void **state)
{
    (void)state;
    merkle_proof pr;
    merkle_error err;
    make_proof(&pr, MERKLE_PROOF_INCLUSION, 10, 3, 0);
    assert_int_equal(merkle_proof_verify(&pr, pr.root, pr.old_root, NULL, NULL, &err), MERKLE_OK);
    /* The proof's own root is never taken in place of the caller's (issue 23 item 6). */
    memset(&err, 0, sizeof err);
    assert_int_equal(merkle_proof_verify(&pr, NULL, NULL, NULL, NULL, &err), MERKLE_ERR_ARG);
    assert_non_null(strstr(err.message, "trusted root"));
    merkle_proof bad = pr;
    bad.index = 10;
    assert_int_equal(merkle_proof_verify(&bad, bad.root, bad.old_root, NULL, NULL, &err),
                     MERKLE_ERR_VERIFY);
    assert_non_null(strstr(err.message, "out of range"));
    bad = pr;
    bad.path_len--;
    assert_int_equal(merkle_proof_verify(&bad, bad.root, bad.old_root, NULL, NULL, &err),
                     MERKLE_ERR_VERIFY);
    assert_non_null(strstr(err.message, "hashes"));
    bad = pr;
    bad.root[0] ^= 1;
    assert_int_equal(merkle_proof_verify(&bad, bad.root, bad.old_root, NULL, NULL, &err),
                     MERKLE_ERR_VERIFY);
    assert_non_null(strstr(err.message, "mismatch"));
    assert_int_equal(merkle_proof_verify(&bad, pr.root, NULL, NULL, NULL, &err), MERKLE_OK);
    bad = pr;
    bad.flags = 0;
    assert_int_equal(merkle_proof_verify(&bad, bad.root, NULL, NULL, NULL, &err), MERKLE_ERR_ARG);
    assert_non_null(strstr(err.message, "leaf hash"));
    assert_int_equal(merkle_proof_verify(&bad, pr.root, NULL, NULL, NULL, &err), MERKLE_ERR_ARG);
    assert_int_equal(merkle_proof_verify(&bad, pr.root, NULL, pr.leaf_hash, NULL, &err), MERKLE_OK);
    make_proof(&pr, MERKLE_PROOF_CONSISTENCY, 10, 3, 0);
    assert_int_equal(merkle_proof_verify(&pr, pr.root, pr.old_root, NULL, NULL, &err), MERKLE_OK);
    assert_int_equal(merkle_proof_verify(&pr, pr.root, NULL, NULL, NULL, &err), MERKLE_ERR_ARG);
    assert_non_null(strstr(err.message, "trusted old root"));
    assert_int_equal(merkle_proof_verify(&pr, NULL, pr.old_root, NULL, NULL, &err), MERKLE_ERR_ARG);
    bad = pr;
    bad.index = 0;
    assert_int_equal(merkle_proof_verify(&bad, bad.root, bad.old_root, NULL, NULL, &err),
                     MERKLE_ERR_VERIFY);
    assert_non_null(strstr(err.message, "empty tree"));
    bad.index = 11;
    assert_int_equal(merkle_proof_verify(&bad, bad.root, bad.old_root, NULL, NULL, &err),
                     MERKLE_ERR_VERIFY);
    bad = pr;
    bad.old_root[5] ^= 4;
    assert_int_equal(merkle_proof_verify(&bad, bad.root, bad.old_root, NULL, NULL, &err),
                     MERKLE_ERR_VERIFY);
    assert_int_equal(merkle_proof_verify(&bad, bad.root, pr.old_root, NULL, NULL, &err), MERKLE_OK);
    make_proof(&pr, MERKLE_PROOF_RANGE, 10, 3, 7);
    h32 *lh = make_leaf_hashes(MERKLE_HASH_SHA256, 10);
    assert_int_equal(
        merkle_proof_verify(&pr, NULL, NULL, NULL, (const uint8_t(*)[32])(lh + 3), &err),
        MERKLE_ERR_ARG);
    assert_int_equal(
        merkle_proof_verify(&pr, pr.root, pr.old_root, NULL, (const uint8_t(*)[32])(lh + 3), &err),
        MERKLE_OK);
    assert_int_equal(
        merkle_proof_verify(&pr, pr.root, pr.old_root, NULL, (const uint8_t(*)[32])(lh + 2), &err),
        MERKLE_ERR_VERIFY);
    bad = pr;
    bad.end = 11;
    assert_int_equal(merkle_proof_verify(&bad, bad.root, bad.old_root, NULL,
                                         (const uint8_t(*)[32])(lh + 3), &err),
                     MERKLE_ERR_VERIFY);
    free(lh);
    assert_int_equal(merkle_proof_verify(NULL, NULL, NULL, NULL, NULL, &err), MERKLE_ERR_ARG);
}

/* The RFC 6962, CometBFT and Sia verifiers say in err why a proof failed; struct sizes. */
static void test_verify_err_detail(void **state)
{
    (void)state;
    uint8_t leaves[5][MERKLE_HASH_LEN], path[8][MERKLE_HASH_LEN], root[MERKLE_HASH_LEN];
    for (int i = 0; i < 5; i++) {
        char c = (char)('a' + i);
        assert_int_equal(merkle_tree_leaf_hash(leaves[i], MERKLE_HASH_SHA256, &c, 1), MERKLE_OK);
    }
    size_t n = 0;
    assert_int_equal(merkle_proof_inclusion_path(path, 8, &n, root, MERKLE_HASH_SHA256,
                                                 (const uint8_t(*)[MERKLE_HASH_LEN])leaves, 5, 2),
                     MERKLE_OK);
    merkle_error err;
    memset(&err, 0, sizeof err);
    const uint8_t(*cp)[MERKLE_HASH_LEN] = (const uint8_t(*)[MERKLE_HASH_LEN])path;
    assert_int_equal(
        merkle_proof_inclusion_verify(MERKLE_HASH_SHA256, root, 5, 2, leaves[2], cp, n, &err),
        MERKLE_OK);
    assert_int_equal(
        merkle_proof_inclusion_verify(MERKLE_HASH_SHA256, root, 5, 5, leaves[2], cp, n, &err),
        MERKLE_ERR_VERIFY);
    assert_int_equal(err.status, MERKLE_ERR_VERIFY);
    assert_non_null(strstr(err.message, "out of range"));
    assert_int_equal(
        merkle_proof_inclusion_verify(MERKLE_HASH_SHA256, root, 5, 2, leaves[2], cp, n - 1, &err),
        MERKLE_ERR_VERIFY);
    assert_non_null(strstr(err.message, "path length"));
    assert_int_equal(
        merkle_proof_inclusion_verify(MERKLE_HASH_SHA256, root, 5, 2, leaves[3], cp, n, &err),
        MERKLE_ERR_VERIFY);
    assert_non_null(strstr(err.message, "root mismatch"));
    assert_int_equal(
        merkle_proof_inclusion_verify(MERKLE_HASH_MD5, root, 5, 2, leaves[2], cp, n, &err),
        MERKLE_ERR_ARG);
    assert_int_equal(err.status, MERKLE_ERR_ARG);
    assert_int_equal(
        merkle_proof_consistency_verify(MERKLE_HASH_SHA256, root, root, 0, 5, cp, 0, &err),
        MERKLE_ERR_VERIFY);
    assert_non_null(strstr(err.message, "empty tree"));
    assert_int_equal(
        merkle_proof_consistency_verify(MERKLE_HASH_SHA256, root, root, 5, 5, cp, 0, &err),
        MERKLE_OK);
    assert_int_equal(merkle_proof_cometbft_verify(root, 5, 2, leaves[2], "c", 1, cp, n, &err),
                     MERKLE_OK);
    assert_int_equal(merkle_proof_cometbft_verify(root, 5, 2, leaves[2], "x", 1, cp, n, &err),
                     MERKLE_ERR_VERIFY);
    assert_non_null(strstr(err.message, "leaf hash"));
    assert_int_equal(merkle_proof_cometbft_verify(NULL, 5, 2, leaves[2], "c", 1, cp, n, &err),
                     MERKLE_ERR_VERIFY);
    assert_non_null(strstr(err.message, "nil"));
    assert_int_equal(merkle_proof_sia_verify(MERKLE_HASH_SHA256, root, 5, 2, "c", 1, cp, n, &err),
                     MERKLE_OK);
    assert_int_equal(merkle_proof_sia_verify(MERKLE_HASH_SHA256, root, 5, 2, "d", 1, cp, n, &err),
                     MERKLE_ERR_VERIFY);
    assert_non_null(strstr(err.message, "root mismatch"));
    assert_int_equal(merkle_proof_range_verify(MERKLE_HASH_SHA256, root, 5, 3, 2,
                                               (const uint8_t(*)[MERKLE_HASH_LEN])leaves, cp, n,
                                               &err),
                     MERKLE_ERR_RANGE);
    assert_int_equal(err.status, MERKLE_ERR_RANGE);
    /* NULL err is allowed everywhere */
    assert_int_equal(
        merkle_proof_inclusion_verify(MERKLE_HASH_SHA256, root, 5, 5, leaves[2], cp, n, NULL),
        MERKLE_ERR_VERIFY);
    assert_int_equal(merkle_proof_struct_size(), sizeof(merkle_proof));
    assert_int_equal(merkle_proof_struct_align(), _Alignof(merkle_proof));
    assert_int_equal(merkle_compact_range_struct_size(), sizeof(merkle_compact_range));
    assert_int_equal(merkle_compact_range_struct_align(), _Alignof(merkle_compact_range));
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_binary_codec),      cmocka_unit_test(test_json_codec),
        cmocka_unit_test(test_bare_oz_array),     cmocka_unit_test(test_proof_verify_object),
        cmocka_unit_test(test_verify_err_detail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
