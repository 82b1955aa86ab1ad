/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** One rule set for every kernel family's run-time choice (src/hash/dispatch.h): NULL and
** "auto" select the automatic choice, an unknown name is MERKLE_ERR_ARG, every listed kernel
** can be selected and computes the same digests, and the automatic choice comes back.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h> /* its own block: after the headers it needs, not sorted above them */

#include "hash/impl.h"
#include "hash/md5_mb.h"
#include "merkle/hash.h"

static void test_sha256_rules(void **state)
{
    (void)state;
    const char *names[16];
    size_t n = merkle_sha256_backends(names, 16);
    assert_true(n >= 1);
    assert_string_equal(names[n - 1], "portable"); /* the portable code is always last */
    /* the automatic choice (the process may have started on one MERKLE_BACKEND forces) */
    assert_int_equal(merkle_sha256_set_backend("auto"), MERKLE_OK);
    const char *autoname = merkle_sha256_backend();
    uint8_t want[32], got[32];
    merkle_sha256_hash(want, "abc", 3);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(merkle_sha256_set_backend(names[i]), MERKLE_OK);
        assert_string_equal(merkle_sha256_backend(), names[i]);
        merkle_sha256_hash(got, "abc", 3);
        assert_memory_equal(got, want, 32);
    }
    assert_int_equal(merkle_sha256_set_backend("no-such-kernel"), MERKLE_ERR_ARG);
    assert_int_equal(merkle_sha256_set_backend(NULL), MERKLE_OK);
    assert_string_equal(merkle_sha256_backend(), autoname);
    assert_int_equal(merkle_sha256_set_backend(names[0]), MERKLE_OK);
    assert_int_equal(merkle_sha256_set_backend("auto"), MERKLE_OK);
    assert_string_equal(merkle_sha256_backend(), autoname);
}

static void test_blake2b_rules(void **state)
{
    (void)state;
    const char *names[8];
    size_t n = merkle__blake2b_backends(names, 8);
    assert_true(n >= 1);
    assert_int_equal(merkle__blake2b_set_backend("auto"), MERKLE_OK);
    const char *autoname = merkle__blake2b_backend();
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(merkle__blake2b_set_backend(names[i]), MERKLE_OK);
        assert_string_equal(merkle__blake2b_backend(), names[i]);
    }
    assert_int_equal(merkle__blake2b_set_backend("no-such-kernel"), MERKLE_ERR_ARG);
    assert_int_equal(merkle__blake2b_set_backend(NULL), MERKLE_OK);
    assert_string_equal(merkle__blake2b_backend(), autoname);
    assert_int_equal(merkle__blake2b_set_backend("auto"), MERKLE_OK);
    assert_string_equal(merkle__blake2b_backend(), autoname);
}

static void test_md5_rules(void **state)
{
    (void)state;
    assert_int_equal(merkle__md5_mb_set("auto"), MERKLE_OK);
    const merkle__md5_mb_impl *autok = merkle__md5_mb_get();
    assert_int_equal(merkle__md5_mb_set("portable"), MERKLE_OK);
    assert_string_equal(merkle__md5_mb_get()->name, "portable");
    assert_int_equal(merkle__md5_mb_set("no-such-kernel"), MERKLE_ERR_ARG);
    assert_string_equal(merkle__md5_mb_get()->name, "portable"); /* unchanged by a refusal */
    /* MD5 has an automatic choice too now: NULL and "auto" bring it back */
    assert_int_equal(merkle__md5_mb_set(NULL), MERKLE_OK);
    assert_ptr_equal(merkle__md5_mb_get(), autok);
    assert_int_equal(merkle__md5_mb_set("portable"), MERKLE_OK);
    assert_int_equal(merkle__md5_mb_set("auto"), MERKLE_OK);
    assert_ptr_equal(merkle__md5_mb_get(), autok);
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256_rules),
        cmocka_unit_test(test_blake2b_rules),
        cmocka_unit_test(test_md5_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
