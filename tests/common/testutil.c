/* SPDX-License-Identifier: MIT OR Apache-2.0 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/common.h"

/* MERKLE_TEST_FILTER=PATTERN runs only the cases whose name matches (cmocka's * and ?
** wildcards), MERKLE_TEST_SKIP=PATTERN leaves the matching ones out, in every test program:
**   MERKLE_TEST_FILTER=test_json_codec build/rel/tests/test_proof
** Run before main (every test program links this object: tests/CMakeLists.txt). */
__attribute__((constructor)) void tu_test_filter_init(void)
{
    const char *f = getenv("MERKLE_TEST_FILTER");
    const char *s = getenv("MERKLE_TEST_SKIP");
    if (f && *f) cmocka_set_test_filter(f);
    if (s && *s) cmocka_set_skip_filter(s);
}

json *tu_load_vectors(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", MERKLE_VECTOR_DIR, name);
    json *j = json_parse_file(path);
    if (!j) fail_msg("cannot load vectors %s", path);
    return j;
}

uint8_t *tu_unhex(const char *hex, size_t *len)
{
    size_t hl = strlen(hex);
    uint8_t *buf = malloc(hl / 2 + 1);
    size_t n = 0;
    merkle_status s = merkle_hex_decode(buf, hl / 2 + 1, &n, hex, hl, NULL);
    if (s != MERKLE_OK) fail_msg("bad hex in vector: %.40s", hex);
    *len = n;
    return buf;
}

void tu_assert_hex(const uint8_t *buf, size_t len, const char *expected, const char *what)
{
    char *got = malloc(2 * len + 1);
    merkle_hex_encode(got, buf, len);
    if (strcmp(got, expected) != 0) {
        print_error("%s:\n  expected %s\n  got      %s\n", what, expected, got);
        free(got);
        fail();
    }
    free(got);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void tu_rng_seed(tu_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        seed += 0x9e3779b97f4a7c15ULL;
        uint64_t z = seed;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        r->s[i] = z ^ (z >> 31);
    }
}

uint64_t tu_rng_next(tu_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t tu_rng_below(tu_rng *r, uint64_t n)
{
    return tu_rng_next(r) % n;
}

void tu_rng_fill(tu_rng *r, uint8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i++) buf[i] = (uint8_t)tu_rng_next(r);
}

void tu_counter_bytes(uint8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i++) buf[i] = (uint8_t)(i % 251);
}

merkle_status tu_mem_read_at(void *ctx, void *buf, size_t len, uint64_t offset)
{
    const tu_mem_reader *r = ctx;
    if (offset + len > r->fail_at) return MERKLE_ERR_IO;
    memcpy(buf, r->data + offset, len);
    return MERKLE_OK;
}
