/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** serialize -> parse round trips over DAGs built from the fuzz input: each input byte is an
** instruction (new atom from the following bytes, or a pair of two earlier nodes), so the
** fuzzer controls sharing. Canonical and back-reference forms must both parse back to the
** same tree hash; the back-reference form is never longer than canonical, and encoding the
** decoded DAG again gives the same bytes, and the indexed path search agrees with clvm_rs's
** breadth-first search on every token.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/sexp.h"
#include "sexp/sexp_impl.h"
#include "sexp_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    merkle_sexp_store *st = NULL;
    if (merkle_sexp_store_alloc(&st) != MERKLE_OK) abort();
    merkle_sexp_node pool[256];
    size_t np = 0, i = 0;
    while (i < size && np < 256) {
        uint8_t op = data[i++];
        merkle_sexp_node n;
        if (np < 1 || op < 0x60) {
            size_t len = op & 0x0f;
            if (len > size - i) len = size - i;
            if (merkle_sexp_atom_new(&n, st, data + i, len) != MERKLE_OK) abort();
            i += len;
        } else {
            if (i >= size) break;
            merkle_sexp_node l = pool[(np - 1) - (op % np)];
            merkle_sexp_node r = pool[data[i++] % np];
            if (merkle_sexp_pair_new(&n, st, l, r) != MERKLE_OK) abort();
        }
        pool[np++] = n;
    }
    if (np == 0) {
        merkle_sexp_store_free(st);
        return 0;
    }
    merkle_sexp_node root = pool[np - 1];
    uint8_t h[32], h2[32];
    if (merkle_sexp_tree_hash(h, st, root) != MERKLE_OK) abort();
    uint64_t clen;
    merkle_status cs = merkle_sexp_serialized_length(&clen, st, root);
    merkle_sexp_store *s2 = NULL;
    if (merkle_sexp_store_alloc(&s2) != MERKLE_OK) abort();
    merkle_sexp_node m;
    size_t used;
    if (cs == MERKLE_OK && clen <= (1u << 20)) {
        uint8_t *buf = malloc(clen ? (size_t)clen : 1);
        size_t w;
        if (merkle_sexp_serialize(buf, (size_t)clen, &w, st, root) != MERKLE_OK) abort();
        if (merkle_sexp_parse(&m, &used, s2, buf, w, MERKLE_SEXP_STRICT, NULL, NULL) != MERKLE_OK)
            abort();
        if (used != w || merkle_sexp_tree_hash(h2, s2, m) != MERKLE_OK) abort();
        if (memcmp(h, h2, 32) != 0) abort();
        free(buf);
        merkle_sexp_store_clear(s2);
    }
    uint8_t *br, *br2;
    size_t blen, blen2;
    if (merkle_sexp_serialize_backrefs_alloc(&br, &blen, st, root, 1u << 24, NULL) == MERKLE_OK) {
        if (cs == MERKLE_OK && blen > clen) abort();
        if (merkle_sexp_parse(&m, &used, s2, br, blen, MERKLE_SEXP_BACKREFS, NULL, NULL) !=
            MERKLE_OK)
            abort();
        if (used != blen || merkle_sexp_tree_hash(h2, s2, m) != MERKLE_OK) abort();
        if (memcmp(h, h2, 32) != 0) abort();
        if (merkle_sexp_serialize_backrefs_alloc(&br2, &blen2, s2, m, 1u << 24, NULL) != MERKLE_OK)
            abort();
        if (blen2 != blen || memcmp(br, br2, blen) != 0) abort();
        crosscheck(st, root, br, blen);
        merkle_sexp_buffer_free(br2);
        merkle_sexp_buffer_free(br);
    } else if (cs == MERKLE_OK && clen <= (1u << 24)) {
        abort(); /* output fits the bound whenever canonical does */
    }
    merkle_sexp_store_free(s2);
    merkle_sexp_store_free(st);
    return 0;
}
