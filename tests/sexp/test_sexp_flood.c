/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** CLVM stores under hash flooding: lists of atoms whose tree hashes collide in the low bits of
** an unkeyed bucket are serialized with back-references in near-linear time by the keyed
** (SipHash) index. (Split from test_sexp.c.)
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "merkle/hash.h"
#include "merkle/sexp.h"
#include "sexp/sexp_impl.h"
#include "testutil.h"

/* ------------------------------------------------------------------ hash flooding */

/* Build a list of n distinct 4-byte atoms whose tree hashes all have their low `bits` bits
** (of the first 8 bytes, little-endian: the unkeyed bucket) equal to zero. */
static merkle_sexp_node ground_list(merkle_sexp_store *st, size_t n, unsigned bits, uint32_t *ctr)
{
    merkle_sexp_node list;
    assert_int_equal(merkle_sexp_atom_new(&list, st, NULL, 0), MERKLE_OK);
    uint64_t mask = ((uint64_t)1 << bits) - 1;
    for (size_t i = 0; i < n; i++) {
        uint8_t msg[5] = { 0x01 };
        uint8_t h[32];
        for (;;) {
            (*ctr)++;
            msg[1] = (uint8_t)(0x80 | (*ctr >> 24));
            msg[2] = (uint8_t)(*ctr >> 16);
            msg[3] = (uint8_t)(*ctr >> 8);
            msg[4] = (uint8_t)*ctr;
            merkle_sha256_hash(h, msg, 5);
            if ((merkle__load_le64(h) & mask) == 0) break;
        }
        merkle_sexp_node a;
        assert_int_equal(merkle_sexp_atom_new(&a, st, msg + 1, 4), MERKLE_OK);
        assert_int_equal(merkle_sexp_pair_new(&list, st, a, list), MERKLE_OK);
    }
    return list;
}

static void flood_run(size_t n, unsigned bits, double *keyed, double *unkeyed)
{
    merkle_sexp_store *st = NULL;
    assert_int_equal(merkle_sexp_store_alloc(&st), MERKLE_OK);
    uint32_t ctr = 0;
    merkle_sexp_node list = ground_list(st, n, bits, &ctr);
    uint8_t *o1, *o2;
    size_t l1, l2;
    merkle__sexp_br_opts k, u;
    memset(&k, 0, sizeof k);
    memset(&u, 0, sizeof u);
    u.unkeyed = 1;
    assert_int_equal(merkle__sexp_serialize_backrefs(&o1, &l1, st, list, 0, &k, NULL), MERKLE_OK);
    assert_int_equal(merkle__sexp_serialize_backrefs(&o2, &l2, st, list, 0, &u, NULL), MERKLE_OK);
    assert_int_equal(l1, l2); /* the table only changes speed, never bytes */
    assert_memory_equal(o1, o2, l1);
    assert_int_equal(k.lookups, u.lookups);
    *keyed = (double)k.probes / (double)k.lookups;
    *unkeyed = (double)u.probes / (double)u.lookups;
    free(o1);
    free(o2);
    merkle_sexp_store_free(st);
}

static void test_hash_flooding(void **state)
{
    (void)state;
    /* 11 ground bits: with up to 2^11 slots every atom lands in unkeyed bucket 0 (about 2^11
    ** SHA-256 per atom to grind). */
    double k1, u1, k2, u2;
    flood_run(500, 11, &k1, &u1);
    flood_run(1000, 11, &k2, &u2);
    printf("probes per lookup: n=500 keyed %.2f unkeyed %.1f; n=1000 keyed %.2f unkeyed %.1f\n", k1,
           u1, k2, u2);
    /* keyed: constant per lookup (linear total), whatever n */
    assert_true(k1 < 3.0);
    assert_true(k2 < 3.0);
    /* unkeyed: per-lookup cost grows with n (quadratic total) and dwarfs the keyed one */
    assert_true(u1 > 10.0 * k1);
    assert_true(u2 > 1.5 * u1);
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash_flooding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
