/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The tree builder allocates nothing: the number of heap allocations made while computing a
** root does not grow with the number of leaves (it is zero for the caller-owned builder).
** Allocations are counted by interposing malloc/calloc/realloc (tests/common/alloc_count.h).
** Skipped (77) under AddressSanitizer, which owns malloc.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/tree.h"
#include "testutil.h"

#include "alloc_count.h"

#ifndef MERKLE_ASAN
static size_t allocs_for_root(merkle_hash_alg alg, const uint8_t *data, size_t len, size_t ls,
                              int by_leaf)
{
    static merkle_tree t; /* not on the test's stack: 8,768 bytes */
    uint8_t root[32];
    size_t before = g_allocs;
    assert_int_equal(merkle_tree_init(&t, MERKLE_PROFILE_RFC6962, alg, ls), MERKLE_OK);
    if (by_leaf) {
        for (size_t off = 0; off < len; off += ls)
            assert_int_equal(merkle_tree_push_leaf(&t, data + off, ls), MERKLE_OK);
    } else {
        for (size_t off = 0; off < len; off += 1000)
            assert_int_equal(merkle_tree_write(&t, data + off, len - off < 1000 ? len - off : 1000),
                             MERKLE_OK);
    }
    assert_int_equal(merkle_tree_root(root, NULL, &t), MERKLE_OK);
    return g_allocs - before;
}
#endif

static void test_allocations_do_not_grow(void **state)
{
    (void)state;
#ifndef MERKLE_ASAN
    size_t len = 64 * 100000;
    uint8_t *data = __libc_calloc(1, len);
    for (int a = 1; a <= 2; a++) {
        for (int by_leaf = 0; by_leaf <= 1; by_leaf++) {
            /* warm up one-time initialisation (backend choice, libsodium init) */
            (void)allocs_for_root(TU_TREE_HASH(a), data, 64 * 10, 64, by_leaf);
            size_t small = allocs_for_root(TU_TREE_HASH(a), data, 64 * 10, 64, by_leaf);
            size_t big = allocs_for_root(TU_TREE_HASH(a), data, len, 64, by_leaf);
            print_message("alg %d by_leaf %d: %zu allocations for 10 leaves, %zu for 100000\n", a,
                          by_leaf, small, big);
            assert_int_equal(small, big);
            assert_int_equal(big, 0);
        }
    }
    /* the threaded root allocates per call, never per leaf or per piece */
    uint8_t root[32];
    size_t b0 = g_allocs;
    assert_int_equal(merkle_tree_root_bytes_parallel(root, MERKLE_PROFILE_RFC6962,
                                                     MERKLE_HASH_SHA256, 64, data, 64 * 10, 2),
                     MERKLE_OK);
    size_t small = g_allocs - b0;
    b0 = g_allocs;
    assert_int_equal(merkle_tree_root_bytes_parallel(root, MERKLE_PROFILE_RFC6962,
                                                     MERKLE_HASH_SHA256, 64, data, len, 2),
                     MERKLE_OK);
    size_t big = g_allocs - b0;
    print_message("threaded: %zu allocations for 10 leaves, %zu for 100000 (6.4 MB)\n", small, big);
    assert_true(big <= small + 8);
    free(data);
#endif
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
#ifdef MERKLE_ASAN
    printf("allocation counting is not possible under AddressSanitizer: skipped\n");
    return 77;
#else
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_allocations_do_not_grow) };
    return cmocka_run_group_tests(tests, NULL, NULL);
#endif
}
