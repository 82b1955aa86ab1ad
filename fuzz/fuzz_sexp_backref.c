/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Fuzz the back-reference parser. Whatever parses must tree-hash; its canonical form (when
** small) must re-parse to the same hash; its back-reference encoding must decode to the same
** hash and be no longer than canonical, and the indexed path search must agree with clvm_rs's
** breadth-first search on every token.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/sexp.h"
#include "sexp/sexp_impl.h"
#include "sexp_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same_hash(const uint8_t *buf, size_t len, unsigned flags, const uint8_t want[32])
{
    merkle_sexp_store *st = NULL;
    if (merkle_sexp_store_alloc(&st) != MERKLE_OK) abort();
    merkle_sexp_node n;
    size_t used;
    uint8_t h[32];
    if (merkle_sexp_parse(&n, &used, st, buf, len, flags, NULL, NULL) != MERKLE_OK) abort();
    if (used != len) abort();
    if (merkle_sexp_tree_hash(h, st, n) != MERKLE_OK) abort();
    if (memcmp(h, want, 32) != 0) abort();
    merkle_sexp_store_free(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    merkle_sexp_limits lim;
    merkle_sexp_limits_init(&lim);
    lim.max_nodes = 1 << 16;
    lim.max_depth = 1 << 12;
    merkle_sexp_store *st = NULL;
    if (merkle_sexp_store_alloc(&st) != MERKLE_OK) abort();
    merkle_sexp_node n;
    size_t used = 0;
    merkle_status s =
        merkle_sexp_parse(&n, &used, st, data, size, MERKLE_SEXP_BACKREFS, &lim, NULL);
    if (s != MERKLE_OK) {
        if (s != MERKLE_ERR_FORMAT && s != MERKLE_ERR_LIMIT) abort();
        if (merkle_sexp_store_count(st) != 0) abort();
        merkle_sexp_store_free(st);
        return 0;
    }
    uint8_t h[32];
    if (merkle_sexp_tree_hash(h, st, n) != MERKLE_OK) abort();
    uint64_t len;
    s = merkle_sexp_serialized_length(&len, st, n);
    if (s == MERKLE_OK && len <= (1u << 20)) {
        uint8_t *buf = malloc(len ? (size_t)len : 1);
        size_t w;
        if (merkle_sexp_serialize(buf, (size_t)len, &w, st, n) != MERKLE_OK) abort();
        same_hash(buf, w, MERKLE_SEXP_STRICT, h);
        free(buf);
    } else if (s != MERKLE_OK && s != MERKLE_ERR_RANGE) {
        abort();
    }
    uint8_t *br;
    size_t blen;
    if (merkle_sexp_serialize_backrefs_alloc(&br, &blen, st, n, 1u << 24, NULL) == MERKLE_OK) {
        if (s == MERKLE_OK && blen > len) abort();
        same_hash(br, blen, MERKLE_SEXP_BACKREFS, h);
        crosscheck(st, n, br, blen);
        merkle_sexp_buffer_free(br);
    }
    merkle_sexp_store_free(st);
    return 0;
}
