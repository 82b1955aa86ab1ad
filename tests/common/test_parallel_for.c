/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The one thread fan-out (src/common/parallel.h): every share runs once, share 0 on the
** calling thread; the first error by share number is returned; and, with thread creation
** made to fail (glibc: a default thread stack no mmap can give), the two fallbacks (the
** caller runs the shares itself, or is told about them) and what the call sites built on
** them still answer: the parallel root refuses (MERKLE_ERR_UNSUPPORTED), the two-thread
** inclusion proof streams both halves on the caller and gives the same proof.
*/
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/parallel.h"
#include "merkle/proof.h"
#include "merkle/tree.h"
#include "testutil.h"
#include "tree/tree_impl.h"

#define MAX_SHARES 300

typedef struct run_log {
    atomic_uint ran[MAX_SHARES];
    atomic_uint order_next;
    unsigned order[MAX_SHARES]; /* share numbers in the order they ran (serial runs only) */
    pthread_t caller;
    int share0_on_caller;
    unsigned fail_share[2]; /* shares returning (share + 100); MAX_SHARES: none */
    atomic_uint unstarted;
    unsigned unstarted_seen_by_share0;
} run_log;

static int log_share(void *arg, unsigned share)
{
    run_log *l = arg;
    atomic_fetch_add(&l->ran[share], 1);
    unsigned k = atomic_fetch_add(&l->order_next, 1);
    if (k < MAX_SHARES) l->order[k] = share;
    if (share == 0) {
        l->share0_on_caller = pthread_equal(pthread_self(), l->caller);
        l->unstarted_seen_by_share0 = atomic_load(&l->unstarted);
    }
    if (share == l->fail_share[0] || share == l->fail_share[1]) return (int)share + 100;
    return 0;
}

static void log_unstarted(void *arg, unsigned share)
{
    run_log *l = arg;
    assert_true(share > 0 && share < MAX_SHARES);
    atomic_fetch_add(&l->unstarted, 1);
}

static void log_init(run_log *l)
{
    memset(l, 0, sizeof *l);
    l->caller = pthread_self();
    l->fail_share[0] = l->fail_share[1] = MAX_SHARES;
}

static void test_every_share_once(void **state)
{
    (void)state;
    static const unsigned ns[] = { 1, 2, 7, 64, 128, 129, 300 }; /* 129, 300: heap bookkeeping */
    for (size_t c = 0; c < sizeof ns / sizeof ns[0]; c++) {
        static run_log l;
        log_init(&l);
        assert_int_equal(merkle__parallel_for(ns[c], log_share, NULL, &l), 0);
        for (unsigned i = 0; i < MAX_SHARES; i++)
            assert_int_equal(atomic_load(&l.ran[i]), i < ns[c] ? 1u : 0u);
        assert_true(l.share0_on_caller);
        assert_int_equal(atomic_load(&l.unstarted), 0);
    }
    /* No share at all: nothing runs, nothing fails. */
    static run_log l;
    log_init(&l);
    assert_int_equal(merkle__parallel_for(0, log_share, NULL, &l), 0);
    assert_int_equal(atomic_load(&l.order_next), 0);
}

static void test_first_error_by_share(void **state)
{
    (void)state;
    static run_log l;
    log_init(&l);
    l.fail_share[0] = 5;
    l.fail_share[1] = 3;
    assert_int_equal(merkle__parallel_for(8, log_share, merkle__parallel_skip, &l), 103);
    for (unsigned i = 0; i < 8; i++) assert_int_equal(atomic_load(&l.ran[i]), 1);
    /* Share 0's error comes first whatever the others return. */
    log_init(&l);
    l.fail_share[0] = 0;
    l.fail_share[1] = 1;
    assert_int_equal(merkle__parallel_for(4, log_share, NULL, &l), 100);
}

#ifdef __GLIBC__
/* Make every pthread_create fail (a default stack no mmap can give); 0 when it does not. */
static int threads_fail(pthread_attr_t *saved)
{
    if (pthread_getattr_default_np(saved) != 0) return 0;
    pthread_attr_t huge;
    pthread_attr_init(&huge);
    int ok = pthread_attr_setstacksize(&huge, (size_t)1 << 62) == 0 &&
             pthread_setattr_default_np(&huge) == 0;
    pthread_attr_destroy(&huge);
    if (!ok) return 0;
    pthread_t t;
    if (pthread_create(&t, NULL, (void *(*)(void *))(uintptr_t)pthread_self, NULL) == 0) {
        pthread_join(t, NULL);
        pthread_setattr_default_np(saved);
        return 0;
    }
    return 1;
}
#endif

static void test_no_threads(void **state)
{
    (void)state;
#ifdef __GLIBC__
    /* What the call sites answer with threads, for comparison afterwards. */
    enum { LEN = 100000, LEAF = 1024 };
    uint8_t *data = malloc(LEN);
    assert_non_null(data);
    for (size_t i = 0; i < LEN; i++) data[i] = (uint8_t)(i * 7 + (i >> 9));
    tu_mem_reader in = { data, UINT64_MAX };
    merkle_proof *want = malloc(sizeof *want), *got = malloc(sizeof *got);
    assert_non_null(want);
    assert_non_null(got);
    assert_int_equal(merkle_proof_inclusion_parallel(want, MERKLE_PROFILE_RFC6962,
                                                     MERKLE_HASH_SHA256, LEAF, LEN, 70,
                                                     tu_mem_read_at, &in, 1, NULL),
                     MERKLE_OK);
    uint8_t root_mt[MERKLE_HASH_LEN], root_one[MERKLE_HASH_LEN];
    assert_int_equal(merkle__root_parallel_ex(root_mt, NULL, MERKLE_PROFILE_RFC6962,
                                              MERKLE_HASH_SHA256, LEAF, LEN, NULL, NULL, data, 4,
                                              4 * LEAF),
                     MERKLE_OK);
    assert_int_equal(merkle_tree_root_bytes_parallel(root_one, MERKLE_PROFILE_RFC6962,
                                                     MERKLE_HASH_SHA256, LEAF, data, LEN, 1),
                     MERKLE_OK);
    assert_memory_equal(root_mt, root_one, MERKLE_HASH_LEN);

    pthread_attr_t saved;
    if (!threads_fail(&saved)) {
        free(data);
        free(want);
        free(got);
        skip(); /* thread creation cannot be made to fail here */
    }
    /* The caller runs every share itself, 0 first, then the others in order. */
    static run_log l;
    log_init(&l);
    l.fail_share[0] = 4;
    l.fail_share[1] = 2;
    int rc_serial = merkle__parallel_for(6, log_share, NULL, &l);
    unsigned serial_n = atomic_load(&l.order_next);
    unsigned serial_order[6];
    memcpy(serial_order, l.order, sizeof serial_order);
    /* Told: share 0 runs alone, after being told about the other five. */
    static run_log u;
    log_init(&u);
    int rc_told = merkle__parallel_for(6, log_share, log_unstarted, &u);
    /* The call sites. */
    merkle_status s_proof =
        merkle_proof_inclusion_parallel(got, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, LEAF, LEN,
                                        70, tu_mem_read_at, &in, 2, NULL);
    uint8_t root_none[MERKLE_HASH_LEN];
    merkle_status s_root =
        merkle__root_parallel_ex(root_none, NULL, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, LEAF,
                                 LEN, NULL, NULL, data, 4, 4 * LEAF);
    pthread_setattr_default_np(&saved);
    pthread_attr_destroy(&saved);

    assert_int_equal(rc_serial, 102);
    assert_int_equal(serial_n, 6);
    for (unsigned i = 0; i < 6; i++) assert_int_equal(serial_order[i], i);
    assert_true(l.share0_on_caller);
    assert_int_equal(rc_told, 0);
    assert_int_equal(atomic_load(&u.order_next), 1);
    assert_int_equal(atomic_load(&u.ran[0]), 1);
    assert_int_equal(atomic_load(&u.unstarted), 5);
    assert_int_equal(u.unstarted_seen_by_share0, 5);
    assert_int_equal(s_proof, MERKLE_OK);
    assert_memory_equal(got->root, want->root, MERKLE_HASH_LEN);
    assert_int_equal(got->path_len, want->path_len);
    assert_memory_equal(got->path, want->path, (size_t)want->path_len * MERKLE_HASH_LEN);
    assert_int_equal(s_root, MERKLE_ERR_UNSUPPORTED); /* no worker: refused, as before */
    free(data);
    free(want);
    free(got);
#else
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_share_once),
        cmocka_unit_test(test_first_error_by_share),
        cmocka_unit_test(test_no_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
