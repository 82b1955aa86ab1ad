/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Helpers of the shaped-tree tests (test_shape.c, test_shape_oz.c): hex nodes from the
** vectors, and a profile's shape.
*/
#ifndef MERKLE_TESTS_SHAPE_UTIL_H
#define MERKLE_TESTS_SHAPE_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "merkle/shape.h"
#include "testutil.h"

typedef uint8_t node_t[32];

static inline void rev32(uint8_t *b)
{
    for (int i = 0; i < 16; i++) {
        uint8_t t = b[i];
        b[i] = b[31 - i];
        b[31 - i] = t;
    }
}

/* 32-byte hex (display order when rev) into out. */
static inline void hex32(uint8_t out[32], const char *hex, int rev)
{
    size_t n;
    uint8_t *b = tu_unhex(hex, &n);
    assert_int_equal(n, 32);
    memcpy(out, b, 32);
    free(b);
    if (rev) rev32(out);
}

static inline node_t *hex_list(const json *arr, size_t *n, int rev)
{
    assert_non_null(arr);
    *n = arr->len;
    node_t *v = malloc((arr->len ? arr->len : 1) * 32);
    for (size_t i = 0; i < arr->len; i++) hex32(v[i], json_at(arr, i)->str, rev);
    return v;
}

static inline merkle_shape shape_of(merkle_profile p)
{
    merkle_shape s;
    assert_int_equal(merkle_shape_init(&s, MERKLE_SHAPE_VERSION, p), MERKLE_OK);
    return s;
}

#endif
