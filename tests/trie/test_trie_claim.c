/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle_trie_proof_verify_claim (issue 23 item 6, the library's side of `merkle trie verify
** --key [--value | --absent]`): a proof verifies only for the claim it states -- its key,
** presence, value and branch factor -- and every other claim is MERKLE_ERR_VERIFY.
*/
#include <stdlib.h>
#include <string.h>

#include "merkle/trie.h"
#include "testutil.h"

#define CLAIM merkle_trie_proof_verify_claim

/* A proof of key k in t, malloc'd into *p (*len bytes). */
static void prove(uint8_t **p, size_t *len, merkle_trie *t, const char *k)
{
    size_t need = 0;
    assert_int_equal(merkle_trie_prove(NULL, 0, &need, t, (const uint8_t *)k, strlen(k), NULL),
                     MERKLE_ERR_BUFFER);
    *p = malloc(need);
    assert_non_null(*p);
    assert_int_equal(merkle_trie_prove(*p, need, len, t, (const uint8_t *)k, strlen(k), NULL),
                     MERKLE_OK);
}

static void test_claims(void **state)
{
    (void)state;
    static const unsigned bfs[] = { 2, 16, 256 };
    for (size_t b = 0; b < sizeof bfs / sizeof *bfs; b++) {
        merkle_trie *t;
        assert_int_equal(merkle_trie_alloc(&t, bfs[b]), MERKLE_OK);
        assert_int_equal(merkle_trie_put(t, (const uint8_t *)"alpha", 5, (const uint8_t *)"1", 1),
                         MERKLE_OK);
        assert_int_equal(merkle_trie_put(t, (const uint8_t *)"beta", 4, (const uint8_t *)"", 0),
                         MERKLE_OK);
        assert_int_equal(merkle_trie_put(t, (const uint8_t *)"gamma", 5, (const uint8_t *)"33", 2),
                         MERKLE_OK);
        uint8_t root[MERKLE_TRIE_ID_LEN];
        assert_int_equal(merkle_trie_root(root, t, 1, NULL), MERKLE_OK);
        const uint8_t *a = (const uint8_t *)"alpha", *one = (const uint8_t *)"1";
        merkle_error e;
        uint8_t *p, *q;
        size_t n, qn;
        /* A proof that alpha = "1". */
        prove(&p, &n, t, "alpha");
        assert_int_equal(CLAIM(root, p, n, a, 5, MERKLE_TRIE_CLAIM_VALUE, one, 1, 0, &e),
                         MERKLE_OK);
        assert_int_equal(CLAIM(root, p, n, a, 5, MERKLE_TRIE_CLAIM_PRESENT, NULL, 0, bfs[b], &e),
                         MERKLE_OK);
        memset(&e, 0, sizeof e);
        assert_int_equal(
            CLAIM(root, p, n, a, 5, MERKLE_TRIE_CLAIM_VALUE, (const uint8_t *)"2", 1, 0, &e),
            MERKLE_ERR_VERIFY);
        assert_non_null(strstr(e.message, "another value"));
        assert_int_equal(CLAIM(root, p, n, a, 5, MERKLE_TRIE_CLAIM_VALUE, NULL, 0, 0, &e),
                         MERKLE_ERR_VERIFY); /* the empty value is a value too */
        assert_int_equal(CLAIM(root, p, n, a, 5, MERKLE_TRIE_CLAIM_ABSENT, NULL, 0, 0, &e),
                         MERKLE_ERR_VERIFY);
        assert_non_null(strstr(e.message, "present, not absent"));
        /* The same proof for another key (gamma, or a prefix of alpha): FAILED. */
        assert_int_equal(CLAIM(root, p, n, (const uint8_t *)"gamma", 5, MERKLE_TRIE_CLAIM_PRESENT,
                               NULL, 0, 0, &e),
                         MERKLE_ERR_VERIFY);
        assert_non_null(strstr(e.message, "another key"));
        assert_int_equal(CLAIM(root, p, n, a, 4, MERKLE_TRIE_CLAIM_PRESENT, NULL, 0, 0, &e),
                         MERKLE_ERR_VERIFY);
        /* Another branch factor, or another root: FAILED. */
        assert_int_equal(
            CLAIM(root, p, n, a, 5, MERKLE_TRIE_CLAIM_PRESENT, NULL, 0, bfs[b] == 2 ? 16 : 2, &e),
            MERKLE_ERR_VERIFY);
        assert_non_null(strstr(e.message, "branch factor"));
        uint8_t other[MERKLE_TRIE_ID_LEN];
        memcpy(other, root, sizeof other);
        other[0] ^= 1;
        assert_int_equal(CLAIM(other, p, n, a, 5, MERKLE_TRIE_CLAIM_VALUE, one, 1, 0, &e),
                         MERKLE_ERR_VERIFY);
        /* beta is present with the empty value: VALUE of "" holds, ABSENT does not. */
        prove(&q, &qn, t, "beta");
        assert_int_equal(
            CLAIM(root, q, qn, (const uint8_t *)"beta", 4, MERKLE_TRIE_CLAIM_VALUE, NULL, 0, 0, &e),
            MERKLE_OK);
        assert_int_equal(CLAIM(root, q, qn, (const uint8_t *)"beta", 4, MERKLE_TRIE_CLAIM_ABSENT,
                               NULL, 0, 0, &e),
                         MERKLE_ERR_VERIFY);
        free(q);
        /* An exclusion proof of delta: ABSENT holds; PRESENT and VALUE do not. */
        prove(&q, &qn, t, "delta");
        const uint8_t *d = (const uint8_t *)"delta";
        assert_int_equal(CLAIM(root, q, qn, d, 5, MERKLE_TRIE_CLAIM_ABSENT, NULL, 0, 0, &e),
                         MERKLE_OK);
        assert_int_equal(CLAIM(root, q, qn, d, 5, MERKLE_TRIE_CLAIM_PRESENT, NULL, 0, 0, &e),
                         MERKLE_ERR_VERIFY);
        assert_non_null(strstr(e.message, "absent, not present"));
        assert_int_equal(CLAIM(root, q, qn, d, 5, MERKLE_TRIE_CLAIM_VALUE, one, 1, 0, &e),
                         MERKLE_ERR_VERIFY);
        assert_int_equal(CLAIM(root, q, qn, a, 5, MERKLE_TRIE_CLAIM_ABSENT, NULL, 0, 0, &e),
                         MERKLE_ERR_VERIFY); /* it is not an exclusion proof of alpha */
        free(q);
        /* A malformed proof stays MERKLE_ERR_FORMAT; bad arguments MERKLE_ERR_ARG. */
        assert_int_equal(CLAIM(root, p, n - 1, a, 5, MERKLE_TRIE_CLAIM_PRESENT, NULL, 0, 0, &e),
                         MERKLE_ERR_FORMAT);
        assert_int_equal(CLAIM(NULL, p, n, a, 5, MERKLE_TRIE_CLAIM_PRESENT, NULL, 0, 0, &e),
                         MERKLE_ERR_ARG);
        assert_int_equal(CLAIM(root, NULL, n, a, 5, MERKLE_TRIE_CLAIM_PRESENT, NULL, 0, 0, &e),
                         MERKLE_ERR_ARG);
        assert_int_equal(CLAIM(root, p, n, NULL, 5, MERKLE_TRIE_CLAIM_PRESENT, NULL, 0, 0, &e),
                         MERKLE_ERR_ARG);
        assert_int_equal(CLAIM(root, p, n, a, 5, MERKLE_TRIE_CLAIM_VALUE, NULL, 1, 0, &e),
                         MERKLE_ERR_ARG);
        assert_int_equal(CLAIM(root, p, n, a, 5, (merkle_trie_claim_kind)0, NULL, 0, 0, &e),
                         MERKLE_ERR_ARG);
        free(p);
        merkle_trie_free(t);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_claims),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
