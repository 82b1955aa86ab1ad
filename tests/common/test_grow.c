/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The growth helpers of src/common/internal.h (merkle__grow, merkle__grow_cap,
** merkle__realloc_n): capacities picked, contents kept, size overflow refused, and a failed
** realloc leaving the array and its capacity as they were. The failure is injected by
** interposing realloc (not under AddressSanitizer, which owns malloc).
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"
#include "testutil.h"

#if defined(__SANITIZE_ADDRESS__)
#define MERKLE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MERKLE_ASAN 1
#endif
#endif

#ifdef MERKLE_ASAN
/* A request no allocator can meet returns NULL under ASan too (instead of aborting). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}
#else
/* realloc for the whole process (glibc exports the real one as __libc_realloc), failing
** while g_fail_realloc is set. */
static volatile int g_fail_realloc;
extern void *__libc_realloc(void *, size_t);
void *realloc(void *p, size_t n);
void *realloc(void *p, size_t n)
{
    return g_fail_realloc ? NULL : __libc_realloc(p, n);
}
#endif

static void test_grow_caps(void **state)
{
    (void)state;
    uint32_t *v = NULL;
    size_t cap = 0;
    assert_int_equal(merkle__grow(&v, &cap, 0, sizeof *v), 0); /* nothing needed */
    assert_null(v);
    assert_int_equal(cap, 0);
    assert_int_equal(merkle__grow(&v, &cap, 1, sizeof *v), 0);
    assert_non_null(v);
    assert_int_equal(cap, 8); /* the minimum */
    for (uint32_t i = 0; i < 8; i++) v[i] = i * 7;
    uint32_t *before = v;
    assert_int_equal(merkle__grow(&v, &cap, 8, sizeof *v), 0); /* fits: untouched */
    assert_ptr_equal(v, before);
    assert_int_equal(cap, 8);
    assert_int_equal(merkle__grow(&v, &cap, 9, sizeof *v), 0);
    assert_int_equal(cap, 16); /* doubled */
    assert_int_equal(merkle__grow(&v, &cap, 100, sizeof *v), 0);
    assert_int_equal(cap, 128);                                     /* doubled until it holds 100 */
    for (uint32_t i = 0; i < 8; i++) assert_int_equal(v[i], i * 7); /* contents kept */
    v[99] = 5;
    free(v);

    /* merkle__grow_cap: near the size limit doubling gives way to the exact need. */
    assert_int_equal(merkle__grow_cap(10, 5, 4), 10);
    assert_int_equal(merkle__grow_cap(0, 3, 4), 8);
    assert_int_equal(merkle__grow_cap(SIZE_MAX / 2 + 1, SIZE_MAX / 2 + 2, 1), SIZE_MAX / 2 + 2);
    assert_int_equal(merkle__grow_cap(0, 2, SIZE_MAX / 4), 2);     /* 8 huge elements: too big */
    assert_int_equal(merkle__grow_cap(0, 1, 0), 0);                /* no element size */
    assert_int_equal(merkle__grow_cap(0, SIZE_MAX / 8 + 1, 8), 0); /* need * elem overflows */

    /* merkle__realloc_n: exact sizes, 0 elements is still a valid block. */
    uint64_t *w = NULL;
    assert_int_equal(merkle__realloc_n(&w, 0, sizeof *w), 0);
    assert_non_null(w);
    assert_int_equal(merkle__realloc_n(&w, 3, sizeof *w), 0);
    w[2] = 42;
    assert_int_equal(merkle__realloc_n(&w, 5, sizeof *w), 0);
    assert_int_equal(w[2], 42);
    free(w);
}

static void test_grow_overflow(void **state)
{
    (void)state;
    uint8_t(*h)[32] = NULL;
    size_t cap = 0;
    assert_int_equal(merkle__grow(&h, &cap, 4, sizeof *h), 0);
    memset(h[3], 0xab, 32);
    uint8_t(*keep)[32] = h;
    /* need * elem does not fit in size_t: refused, nothing changed */
    assert_int_equal(merkle__grow(&h, &cap, SIZE_MAX / 16, sizeof *h), -1);
    assert_ptr_equal(h, keep);
    assert_int_equal(cap, 8);
    /* SIZE_MAX bytes: no overflow, but no allocator gives that much: realloc fails */
    uint8_t *b = NULL;
    size_t bcap = 0;
    assert_int_equal(merkle__grow(&b, &bcap, SIZE_MAX, 1), -1);
    assert_null(b);
    assert_int_equal(bcap, 0);
    assert_int_equal(merkle__realloc_n(&h, SIZE_MAX / 31, sizeof *h), -1);
    assert_ptr_equal(h, keep);
    assert_int_equal(h[3][31], 0xab);
    free(h);
}

static void test_grow_nomem(void **state)
{
    (void)state;
#ifndef MERKLE_ASAN
    uint16_t *v = NULL;
    size_t cap = 0;
    assert_int_equal(merkle__grow(&v, &cap, 8, sizeof *v), 0);
    for (uint16_t i = 0; i < 8; i++) v[i] = (uint16_t)(i + 1);
    uint16_t *keep = v;
    g_fail_realloc = 1;
    assert_int_equal(merkle__grow(&v, &cap, 9, sizeof *v), -1); /* realloc failed */
    assert_ptr_equal(v, keep);
    assert_int_equal(cap, 8);
    assert_int_equal(merkle__realloc_n(&v, 100, sizeof *v), -1);
    assert_ptr_equal(v, keep);
    g_fail_realloc = 0;
    for (uint16_t i = 0; i < 8; i++) assert_int_equal(v[i], i + 1);
    assert_int_equal(merkle__grow(&v, &cap, 9, sizeof *v), 0); /* and it recovers */
    assert_int_equal(cap, 16);
    free(v);
#else
    skip();
#endif
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grow_caps),
        cmocka_unit_test(test_grow_overflow),
        cmocka_unit_test(test_grow_nomem),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
