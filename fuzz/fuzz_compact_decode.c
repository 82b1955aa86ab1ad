/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Fuzz the compact-range decoder ("MKCR"): malformed input is refused with MERKLE_ERR_FORMAT
** and never crashes; whatever decodes re-encodes to the same bytes, its getters agree with
** the header, and appending a leaf, merging and taking the root never crash.
*/
#include <stdint.h>
#include <string.h>

#include "merkle/proof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    merkle_compact_range r;
    merkle_error err;
    merkle_status s = merkle_compact_range_decode(&r, data, size, &err);
    if (s != MERKLE_OK) {
        if (s != MERKLE_ERR_FORMAT || err.status != s || err.message[0] == 0) __builtin_trap();
        return 0;
    }
    static uint8_t buf[MERKLE_COMPACT_ENCODED_MAX];
    size_t len;
    if (merkle_compact_range_encode(buf, sizeof buf, &len, &r) != MERKLE_OK) __builtin_trap();
    if (len != size || memcmp(buf, data, size) != 0) __builtin_trap();
    uint64_t b = merkle_compact_range_begin(&r), e = merkle_compact_range_end(&r);
    if (b > e || merkle_compact_range_hash_count(&r) != merkle_compact_range_hash_count_for(b, e))
        __builtin_trap();
    static uint8_t hashes[MERKLE_COMPACT_MAX][MERKLE_HASH_LEN];
    size_t n;
    if (merkle_compact_range_hashes(hashes, MERKLE_COMPACT_MAX, &n, &r) != MERKLE_OK ||
        n != merkle_compact_range_hash_count(&r) ||
        (n && memcmp(hashes, data + 23, n * MERKLE_HASH_LEN) != 0))
        __builtin_trap();
    uint8_t root[MERKLE_HASH_LEN];
    s = merkle_compact_range_root(root, &r);
    if (s != MERKLE_OK && s != MERKLE_ERR_STATE) __builtin_trap();
    merkle_compact_range left;
    if (merkle_compact_range_init(&left, merkle_compact_range_hash(&r), 0) != MERKLE_OK)
        __builtin_trap();
    s = merkle_compact_range_merge(&left, &r);
    if ((b == 0) != (s == MERKLE_OK)) __builtin_trap(); /* STATE unless r starts at 0 */
    s = merkle_compact_range_append_leaf(&r, data, size);
    if (s != MERKLE_OK && s != MERKLE_ERR_RANGE) __builtin_trap();
    if (s == MERKLE_OK && merkle_compact_range_end(&r) != e + 1) __builtin_trap();
    return 0;
}
