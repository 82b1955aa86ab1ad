/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Threaded roots: the same root as the single-threaded builder for every thread count,
** piece size, leaf size and input length (including many pieces, ragged tails and a short
** last leaf), through both the in-memory and the read-callback paths; read errors abort
** cleanly with the reader's status and no hang.
*/
#include <stdlib.h>
#include <string.h>

#include "merkle/tree.h"
#include "testutil.h"
#include "tree/tree_impl.h"

typedef struct {
    const uint8_t *data;
    uint64_t fail_at; /* a read that covers this offset fails; UINT64_MAX = never */
} mem_src;

static merkle_status read_mem(void *ctx, void *buf, size_t len, uint64_t off)
{
    const mem_src *m = (const mem_src *)ctx;
    if (m->fail_at >= off && m->fail_at < off + len) return MERKLE_ERR_IO;
    memcpy(buf, m->data + off, len);
    return MERKLE_OK;
}

static void test_same_root_every_thread_count(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 2024);
    size_t maxlen = 600000;
    uint8_t *data = malloc(maxlen);
    tu_rng_fill(&r, data, maxlen);
    size_t leaf_sizes[] = { 1, 7, 64, 100, 4096 };
    uint64_t targets[] = { 64, 1000, 4096, 65536, 0 };
    for (int iter = 0; iter < 30; iter++) {
        size_t ls = leaf_sizes[tu_rng_below(&r, 5)];
        uint64_t target = targets[tu_rng_below(&r, 5)];
        size_t len = (size_t)tu_rng_below(&r, ls < 64 ? 60000 : maxlen);
        if (target == 64 && len > 100000) len = 100000; /* tiny pieces: keep the count sane */
        if (iter < 3) len = (size_t)iter;
        merkle_hash_alg alg = TU_TREE_HASH(1 + iter % 2);
        merkle_profile prof = iter % 5 == 0 ? MERKLE_PROFILE_SIA : MERKLE_PROFILE_RFC6962;
        uint8_t want[32], got[32];
        assert_int_equal(merkle_tree_root_bytes(want, prof, alg, ls, data, len), MERKLE_OK);
        static const unsigned thread_counts[] = { 0, 1, 2, 3, 5 };
        for (unsigned ti = 0; ti < 5; ti++) {
            unsigned threads = thread_counts[ti];
            mem_src m = { data, UINT64_MAX };
            int empty = -1;
            assert_int_equal(merkle__root_parallel_ex(got, &empty, prof, alg, ls, len, read_mem, &m,
                                                      NULL, threads, target),
                             MERKLE_OK);
            assert_memory_equal(want, got, 32);
            assert_int_equal(empty, len == 0);
            assert_int_equal(merkle__root_parallel_ex(got, NULL, prof, alg, ls, len, NULL, NULL,
                                                      data, threads, target),
                             MERKLE_OK);
            assert_memory_equal(want, got, 32);
        }
        assert_int_equal(merkle_tree_root_bytes_parallel(got, prof, alg, ls, data, len, 3),
                         MERKLE_OK);
        assert_memory_equal(want, got, 32);
    }
    free(data);
}

static void test_read_errors_abort(void **state)
{
    (void)state;
    size_t len = 1 << 20;
    uint8_t *data = calloc(1, len);
    uint8_t out[32];
    uint64_t fails[] = { 0, 4095, 300000, len - 1 };
    for (size_t f = 0; f < 4; f++) {
        for (unsigned threads = 1; threads <= 4; threads++) {
            mem_src m = { data, fails[f] };
            assert_int_equal(merkle__root_parallel_ex(out, NULL, MERKLE_PROFILE_RFC6962,
                                                      MERKLE_HASH_SHA256, 64, len, read_mem, &m,
                                                      NULL, threads, 8192),
                             MERKLE_ERR_IO);
        }
    }
    free(data);
}

static void test_argument_errors(void **state)
{
    (void)state;
    uint8_t out[32];
    mem_src m = { (const uint8_t *)"abc", UINT64_MAX };
    assert_int_equal(merkle_tree_root_parallel(out, NULL, MERKLE_PROFILE_RFC6962,
                                               MERKLE_HASH_SHA256, 0, 3, read_mem, &m, 2),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_tree_root_parallel(out, NULL, MERKLE_PROFILE_RFC6962,
                                               MERKLE_HASH_SHA256, 1, 3, NULL, &m, 2),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_tree_root_parallel(NULL, NULL, MERKLE_PROFILE_RFC6962,
                                               MERKLE_HASH_SHA256, 1, 3, read_mem, &m, 2),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_tree_root_parallel(out, NULL, (merkle_profile)0, MERKLE_HASH_SHA256, 1,
                                               3, read_mem, &m, 2),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_tree_root_parallel(out, NULL, MERKLE_PROFILE_SIA, (merkle_hash_alg)0, 1,
                                               3, read_mem, &m, 2),
                     MERKLE_ERR_ARG);
    assert_int_equal(
        merkle_tree_root_bytes_parallel(out, MERKLE_PROFILE_SIA, MERKLE_HASH_SHA256, 1, NULL, 3, 2),
        MERKLE_ERR_ARG);
    assert_int_equal(
        merkle_tree_root_bytes_parallel(out, MERKLE_PROFILE_SIA, MERKLE_HASH_SHA256, 1, NULL, 0, 2),
        MERKLE_OK);
    tu_assert_hex(out, 32, "0000000000000000000000000000000000000000000000000000000000000000",
                  "sia empty");
    /* a read callback with total 0 is never called */
    assert_int_equal(merkle_tree_root_parallel(out, NULL, MERKLE_PROFILE_RFC6962,
                                               MERKLE_HASH_SHA256, 5, 0, read_mem, NULL, 2),
                     MERKLE_OK);
    tu_assert_hex(out, 32, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                  "empty");
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_root_every_thread_count),
        cmocka_unit_test(test_read_errors_abort),
        cmocka_unit_test(test_argument_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
