/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Proof objects and multiproof documents out of whole shaped trees (issue 25 item 3):
** merkle_shape_tree_proof for every leaf of every profile and every size up to 33, checked by
** merkle_proof_verify (and refused after a flipped bit); merkle_shape_tree_multiproof_json
** read back by merkle_multiproof_alloc_json and verified; the size query; the error paths.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/shape.h"
#include "testutil.h"

typedef uint8_t node_t[MERKLE_HASH_LEN];

static const merkle_profile profiles[] = {
    MERKLE_PROFILE_RFC6962, MERKLE_PROFILE_SIA,          MERKLE_PROFILE_BITCOIN,
    MERKLE_PROFILE_SSZ,     MERKLE_PROFILE_OPENZEPPELIN, MERKLE_PROFILE_BITTORRENT_V2
};

static merkle_shape_tree *tree_of(merkle_profile profile, size_t n, node_t *leaves)
{
    merkle_shape s;
    assert_int_equal(merkle_shape_init(&s, MERKLE_SHAPE_VERSION, profile), MERKLE_OK);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < MERKLE_HASH_LEN; k++)
            leaves[i][k] = (uint8_t)(i * 31 + k * 7 + (size_t)profile);
    merkle_shape_tree *t = NULL;
    assert_int_equal(merkle_shape_tree_alloc(&t, NULL, &s, (const node_t *)leaves, n, NULL),
                     MERKLE_OK);
    return t;
}

static void test_tree_proof_verifies(void **state)
{
    (void)state;
    node_t leaves[33];
    for (size_t k = 0; k < sizeof profiles / sizeof profiles[0]; k++) {
        for (size_t n = 1; n <= 33; n++) {
            merkle_shape_tree *t = tree_of(profiles[k], n, leaves);
            uint8_t root[MERKLE_HASH_LEN];
            merkle_shape_tree_root(root, t);
            for (size_t i = 0; i < n; i++) {
                uint64_t pos;
                assert_int_equal(merkle_shape_tree_position(&pos, t, i), MERKLE_OK);
                merkle_proof p;
                assert_int_equal(merkle_shape_tree_proof(&p, t, pos), MERKLE_OK);
                assert_int_equal(p.profile, profiles[k]);
                assert_int_equal(p.kind, MERKLE_PROOF_INCLUSION);
                assert_int_equal(p.tree_size, n);
                assert_memory_equal(p.root, root, MERKLE_HASH_LEN);
                assert_true(p.flags & MERKLE_PROOF_HAS_LEAF_HASH);
                merkle_error err;
                assert_int_equal(merkle_proof_verify(&p, root, NULL, NULL, NULL, &err), MERKLE_OK);
                /* the tree's own leaf node is the proof's leaf hash */
                uint8_t node[MERKLE_HASH_LEN];
                assert_int_equal(merkle_shape_tree_node(node, t, pos), MERKLE_OK);
                assert_memory_equal(node, p.leaf_hash, MERKLE_HASH_LEN);
                /* a flipped bit in the leaf or a path hash no longer verifies */
                node[0] ^= 1;
                assert_int_equal(merkle_proof_verify(&p, root, NULL, node, NULL, NULL),
                                 MERKLE_ERR_VERIFY);
                if (p.path_len) {
                    p.path[p.path_len - 1][5] ^= 0x10;
                    assert_int_equal(merkle_proof_verify(&p, root, NULL, NULL, NULL, NULL),
                                     MERKLE_ERR_VERIFY);
                }
            }
            merkle_shape_tree_free(t);
        }
    }
}

static void test_tree_proof_errors(void **state)
{
    (void)state;
    node_t leaves[5];
    merkle_proof p;
    memset(&p, 0xAB, sizeof p);
    merkle_proof before = p;
    merkle_shape_tree *t = tree_of(MERKLE_PROFILE_BITCOIN, 5, leaves);
    assert_int_equal(merkle_shape_tree_proof(NULL, t, 8), MERKLE_ERR_ARG);
    assert_int_equal(merkle_shape_tree_proof(&p, NULL, 8), MERKLE_ERR_ARG);
    /* bitcoin names leaves: gindex 8..12 are the leaves of a depth-3 tree, 1..7 are not */
    assert_int_equal(merkle_shape_tree_proof(&p, t, 7), MERKLE_ERR_RANGE);
    assert_int_equal(merkle_shape_tree_proof(&p, t, 13), MERKLE_ERR_RANGE);
    assert_int_equal(merkle_shape_tree_proof(&p, t, 0), MERKLE_ERR_RANGE);
    assert_memory_equal(&p, &before, sizeof p); /* written only on success */
    assert_int_equal(merkle_shape_tree_proof(&p, t, 12), MERKLE_OK);
    assert_int_equal(p.index, 4);
    merkle_shape_tree_free(t);
    /* ssz: any node of the tree is provable, nothing outside it */
    t = tree_of(MERKLE_PROFILE_SSZ, 5, leaves);
    assert_int_equal(merkle_shape_tree_proof(&p, t, 3), MERKLE_OK);
    assert_int_equal(p.index, 3);
    assert_int_equal(merkle_shape_tree_proof(&p, t, 16), MERKLE_ERR_RANGE);
    assert_int_equal(merkle_shape_tree_proof(&p, t, 0), MERKLE_ERR_RANGE);
    merkle_shape_tree_free(t);
}

/* The document for pos[0..n) of t, verified after being read back. */
static void check_multiproof(const merkle_shape_tree *t, const uint64_t *pos, size_t n)
{
    size_t need = 0, got = 0;
    assert_int_equal(merkle_shape_tree_multiproof_json(NULL, 0, &need, t, pos, n),
                     MERKLE_ERR_BUFFER);
    char *buf = malloc(need);
    assert_non_null(buf);
    /* one byte short: still the size, nothing beyond the buffer written */
    assert_int_equal(merkle_shape_tree_multiproof_json(buf, need - 1, &got, t, pos, n),
                     MERKLE_ERR_BUFFER);
    assert_int_equal(got, need);
    assert_int_equal(merkle_shape_tree_multiproof_json(buf, need, &got, t, pos, n), MERKLE_OK);
    assert_int_equal(got, need);
    assert_int_equal(buf[need - 1], '\0');
    assert_int_equal(strlen(buf), need - 1);
    assert_string_equal(buf + need - 3, "}\n");
    merkle_multiproof *m = NULL;
    merkle_error err;
    assert_int_equal(merkle_multiproof_alloc_json(&m, buf, need - 1, &err), MERKLE_OK);
    /* The document's own root is never trusted in place of the caller's (issue 23 item 6). */
    assert_int_equal(merkle_multiproof_verify(m, NULL, &err), MERKLE_ERR_ARG);
    assert_non_null(strstr(err.message, "trusted root"));
    uint8_t root[MERKLE_HASH_LEN], own[MERKLE_HASH_LEN];
    merkle_shape_tree_root(root, t);
    assert_int_equal(merkle_multiproof_root(own, m), MERKLE_OK);
    assert_memory_equal(own, root, MERKLE_HASH_LEN);
    assert_int_equal(merkle_multiproof_root(NULL, m), MERKLE_ERR_ARG);
    assert_int_equal(merkle_multiproof_root(own, NULL), MERKLE_ERR_ARG);
    assert_int_equal(merkle_multiproof_leaf_count(m), n);
    assert_int_equal(merkle_multiproof_leaf_count(NULL), 0);
    assert_int_equal(merkle_multiproof_has_leaf(m, own), 0); /* the root is no leaf */
    assert_int_equal(merkle_multiproof_has_leaf(NULL, own), 0);
    /* Typed: hex strings still read as leaf hashes, the same document and verdict. */
    merkle_multiproof *m2 = NULL;
    assert_int_equal(merkle_multiproof_alloc_json_values(&m2, NULL, buf, need - 1, &err),
                     MERKLE_ERR_ARG);
    if (merkle_multiproof_profile(m) == MERKLE_PROFILE_OPENZEPPELIN) {
        assert_int_equal(merkle_multiproof_alloc_json_values(&m2, "bytes32", buf, need - 1, &err),
                         MERKLE_OK);
        assert_int_equal(merkle_multiproof_leaf_count(m2), n);
        assert_int_equal(merkle_multiproof_verify(m2, root, &err), MERKLE_OK);
        merkle_multiproof_free(m2);
    } else { /* typed values are OpenZeppelin's only */
        assert_int_equal(merkle_multiproof_alloc_json_values(&m2, "bytes32", buf, need - 1, &err),
                         MERKLE_ERR_FORMAT);
    }
    assert_int_equal(merkle_multiproof_verify(m, root, &err), MERKLE_OK);
    root[3] ^= 1;
    assert_int_equal(merkle_multiproof_verify(m, root, &err), MERKLE_ERR_VERIFY);
    merkle_multiproof_free(m);
    free(buf);
}

static void test_multiproof_json(void **state)
{
    (void)state;
    node_t leaves[20];
    const merkle_profile mp[] = { MERKLE_PROFILE_SSZ, MERKLE_PROFILE_OPENZEPPELIN,
                                  MERKLE_PROFILE_BITTORRENT_V2 };
    for (size_t k = 0; k < 3; k++) {
        merkle_shape_tree *t = tree_of(mp[k], 20, leaves);
        uint64_t pos[4];
        const uint64_t idx[4] = { 0, 3, 11, 19 };
        for (size_t i = 0; i < 4; i++)
            assert_int_equal(merkle_shape_tree_position(&pos[i], t, idx[i]), MERKLE_OK);
        for (size_t n = 1; n <= 4; n++) check_multiproof(t, pos, n);
        size_t need;
        assert_int_equal(merkle_shape_tree_multiproof_json(NULL, 0, &need, t, pos, 0),
                         MERKLE_ERR_ARG);
        assert_int_equal(merkle_shape_tree_multiproof_json(NULL, 0, &need, t, NULL, 2),
                         MERKLE_ERR_ARG);
        assert_int_equal(merkle_shape_tree_multiproof_json(NULL, 0, NULL, t, pos, 2),
                         MERKLE_ERR_ARG);
        const uint64_t dup[2] = { pos[1], pos[1] };
        assert_int_equal(merkle_shape_tree_multiproof_json(NULL, 0, &need, t, dup, 2),
                         MERKLE_ERR_ARG);
        merkle_shape_tree_free(t);
    }
    /* ssz: an ancestor among the gindices is refused, a gindex outside the tree too */
    merkle_shape_tree *t = tree_of(MERKLE_PROFILE_SSZ, 20, leaves);
    size_t need;
    const uint64_t anc[2] = { 2, 33 }, out[2] = { 33, 1u << 20 };
    assert_int_equal(merkle_shape_tree_multiproof_json(NULL, 0, &need, t, anc, 2), MERKLE_ERR_ARG);
    assert_int_equal(merkle_shape_tree_multiproof_json(NULL, 0, &need, t, out, 2),
                     MERKLE_ERR_RANGE);
    merkle_shape_tree_free(t);
}

/* Every JSON array and object of the multiproof and dump readers follows one rule (issue 25,
** merkle__json_next): a comma must be followed by an element, so "[x,]" is refused where the
** same document without the comma is read. */
static void test_json_trailing_commas(void **state)
{
    (void)state;
    static const char v[] =
        "\"0x1111111111111111111111111111111111111111111111111111111111111111\"";
    uint8_t leaf[MERKLE_HASH_LEN];
    merkle_error err;
    assert_int_equal(merkle_shape_abi_leaf(leaf, "bytes32", v + 1, sizeof v - 3, &err), MERKLE_OK);
    char lh[2 * MERKLE_HASH_LEN + 1];
    for (int i = 0; i < MERKLE_HASH_LEN; i++) snprintf(lh + 2 * i, 3, "%02x", leaf[i]);
    /* A one-value StandardMerkleTree dump, then the same with one trailing comma each. */
    const char *fmt[] = {
        "{\"format\":\"standard-v1\",\"leafEncoding\":[\"bytes32\"%s],\"tree\":[\"0x%s\"],"
        "\"values\":[{\"value\":[%s],\"treeIndex\":0}]}",
        "{\"format\":\"standard-v1\",\"leafEncoding\":[\"bytes32\"],\"tree\":[\"0x%s\"%s],"
        "\"values\":[{\"value\":[%s],\"treeIndex\":0}]}",
        "{\"format\":\"standard-v1\",\"leafEncoding\":[\"bytes32\"],\"tree\":[\"0x%s\"],"
        "\"values\":[{\"value\":[%s%s],\"treeIndex\":0}]}",
        "{\"format\":\"standard-v1\",\"leafEncoding\":[\"bytes32\"],\"tree\":[\"0x%s\"],"
        "\"values\":[{\"value\":[%s],\"treeIndex\":0}%s]}",
        "{\"format\":\"standard-v1\",\"leafEncoding\":[\"bytes32\"],\"tree\":[\"0x%s\"],"
        "\"values\":[{\"value\":[%s],\"treeIndex\":0%s}]}",
        "{\"format\":\"standard-v1\",\"leafEncoding\":[\"bytes32\"],\"tree\":[\"0x%s\"],"
        "\"values\":[{\"value\":[%s],\"treeIndex\":0}]%s}",
    };
    char doc[600], types[64];
    for (size_t f = 0; f < sizeof fmt / sizeof *fmt; f++) {
        for (int comma = 0; comma < 2; comma++) {
            const char *c = comma ? "," : "";
            if (f == 0)
                snprintf(doc, sizeof doc, fmt[f], c, lh, v);
            else if (f == 1)
                snprintf(doc, sizeof doc, fmt[f], lh, c, v);
            else
                snprintf(doc, sizeof doc, fmt[f], lh, v, c);
            merkle_shape_tree *t = NULL;
            memset(&err, 0, sizeof err);
            merkle_status st =
                merkle_shape_tree_alloc_dump(&t, types, sizeof types, doc, strlen(doc), &err);
            if (comma) {
                if (st != MERKLE_ERR_FORMAT) fail_msg("dump %zu with a comma: %d", f, st);
                assert_null(t);
                assert_true(err.message[0] != 0);
            } else {
                if (st != MERKLE_OK) fail_msg("dump %zu: %s", f, err.message);
                uint8_t root[MERKLE_HASH_LEN];
                merkle_shape_tree_root(root, t);
                assert_memory_equal(root, leaf, MERKLE_HASH_LEN); /* one leaf: the root */
                merkle_shape_tree_free(t);
            }
        }
    }
    /* getMultiProof() of that tree, typed: leaves, proof and proofFlags. */
    const char *mfmt[] = {
        "{\"leaves\":[[%s]%s],\"proof\":[],\"proofFlags\":[]}",
        "{\"leaves\":[[%s%s]],\"proof\":[],\"proofFlags\":[]}",
        "{\"leaves\":[[%s]],\"proof\":[]%s,\"proofFlags\":[]}",
        "{\"leaves\":[[%s]],\"proof\":[],\"proofFlags\":[]%s}",
    };
    for (size_t f = 0; f < sizeof mfmt / sizeof *mfmt; f++) {
        for (int comma = 0; comma < 2; comma++) {
            snprintf(doc, sizeof doc, mfmt[f], v, comma ? "," : "");
            merkle_multiproof *m = NULL;
            merkle_status st =
                merkle_multiproof_alloc_json_values(&m, "bytes32", doc, strlen(doc), &err);
            if (comma) { /* in f 2 the comma doubles the one before "proofFlags" */
                if (st != MERKLE_ERR_FORMAT) fail_msg("multiproof %zu with a comma: %d", f, st);
                continue;
            }
            if (st != MERKLE_OK) fail_msg("multiproof %zu: %s", f, err.message);
            assert_int_equal(merkle_multiproof_verify(m, leaf, &err), MERKLE_OK);
            merkle_multiproof_free(m);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree_proof_verifies),
        cmocka_unit_test(test_tree_proof_errors),
        cmocka_unit_test(test_multiproof_json),
        cmocka_unit_test(test_json_trailing_commas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
