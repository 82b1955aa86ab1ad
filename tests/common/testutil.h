/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Shared helpers for the cmocka test programs (tests only).
*/
#ifndef MERKLE_TESTUTIL_H
#define MERKLE_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* its own block: after the headers it needs, not sorted above them */

#include "json.h"
#include "merkle/common.h"

/* Every test program runs only the cases matching MERKLE_TEST_FILTER (and not matching
** MERKLE_TEST_SKIP) when set: cmocka patterns, e.g. MERKLE_TEST_FILTER='test_json*'. */
void tu_test_filter_init(void);

/* Directory of the KAT vector files (tests/vectors), set by CMake. */
#ifndef MERKLE_VECTOR_DIR
#error "MERKLE_VECTOR_DIR must be defined by the build"
#endif

/* Load tests/vectors/<name>; fails the current test if it cannot. Caller json_free()s. */
json *tu_load_vectors(const char *name);

/* Decode hex into a fresh malloc'd buffer (never NULL, even for ""); fails the test on bad
** hex. *len receives the length. */
uint8_t *tu_unhex(const char *hex, size_t *len);

/* assert that buf[0..len) is the bytes written in hex `expected`. */
void tu_assert_hex(const uint8_t *buf, size_t len, const char *expected, const char *what);

/* Deterministic PRNG (xoshiro256**) for reproducible random tests. */
typedef struct {
    uint64_t s[4];
} tu_rng;
void tu_rng_seed(tu_rng *r, uint64_t seed);
uint64_t tu_rng_next(tu_rng *r);
uint64_t tu_rng_below(tu_rng *r, uint64_t n); /* uniform in [0, n), n > 0 */
void tu_rng_fill(tu_rng *r, uint8_t *buf, size_t len);

/* Vector generators of tests/vectors (see their schema key): leaf i = ASCII decimal of i; stream
 * byte k = k mod 251. */
void tu_counter_bytes(uint8_t *buf, size_t len);

/* The tree hashes by a small number, for loops over both: 1 SHA-256, 2 BLAKE2b-256 (the
** merkle_hash_alg values themselves are 3 and 6). */
#define TU_TREE_HASH(a) ((a) == 1 ? MERKLE_HASH_SHA256 : MERKLE_HASH_BLAKE2B_256)

/* A merkle_read_at_fn over memory (ctx: a tu_mem_reader); MERKLE_ERR_IO for a read that
** reaches past fail_at (UINT64_MAX: never; for the error paths). */
typedef struct tu_mem_reader {
    const uint8_t *data;
    uint64_t fail_at;
} tu_mem_reader;
merkle_status tu_mem_read_at(void *ctx, void *buf, size_t len, uint64_t offset);

#endif
