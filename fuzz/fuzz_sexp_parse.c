/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Fuzz the canonical CLVM parser. First byte selects strict or lenient mode; the rest is the
** serialization. Whatever parses must hash, and in strict mode re-serialize to exactly the
** bytes consumed (the canonical form is unique).
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/sexp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    unsigned flags = (data[0] & 1) ? MERKLE_SEXP_STRICT : 0;
    data++;
    size--;
    merkle_sexp_limits lim;
    merkle_sexp_limits_init(&lim);
    lim.max_nodes = 1 << 16;
    lim.max_depth = 1 << 12;
    merkle_sexp_store *st = NULL;
    if (merkle_sexp_store_alloc(&st) != MERKLE_OK) abort();
    merkle_sexp_node n;
    size_t used = 0;
    merkle_error err;
    merkle_status s = merkle_sexp_parse(&n, &used, st, data, size, flags, &lim, &err);
    if (s == MERKLE_OK) {
        if (used > size) abort();
        uint8_t h[32];
        if (merkle_sexp_tree_hash(h, st, n) != MERKLE_OK) abort();
        uint64_t len;
        if (merkle_sexp_serialized_length(&len, st, n) != MERKLE_OK) abort();
        uint8_t *buf = malloc(len ? (size_t)len : 1);
        size_t w;
        if (merkle_sexp_serialize(buf, (size_t)len, &w, st, n) != MERKLE_OK || w != len) abort();
        if (flags & MERKLE_SEXP_STRICT) {
            if (w != used || memcmp(buf, data, w) != 0) abort();
        } else if (w > used) {
            abort(); /* canonical is never longer than a lenient encoding */
        }
        free(buf);
    } else {
        if (s != MERKLE_ERR_FORMAT && s != MERKLE_ERR_LIMIT) abort();
        if (merkle_sexp_store_count(st) != 0) abort();
    }
    merkle_sexp_store_free(st);
    return 0;
}
