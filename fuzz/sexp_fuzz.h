/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Shared by the CLVM fuzz targets (fuzz_sexp_backref.c, fuzz_sexp_roundtrip.c).
*/
#ifndef MERKLE_SEXP_FUZZ_H
#define MERKLE_SEXP_FUZZ_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/sexp.h"
#include "sexp/sexp_impl.h"

/* The indexed path search and clvm_rs's own breadth-first search must agree on every token:
** same bytes, no disagreement (unless the work bound cut a search in). Aborts otherwise. */
static inline void crosscheck(merkle_sexp_store *st, merkle_sexp_node root, const uint8_t *br,
                              size_t blen)
{
    merkle__sexp_br_opts o;
    memset(&o, 0, sizeof o);
    o.crosscheck = 1;
    uint8_t *out;
    size_t len;
    if (merkle__sexp_serialize_backrefs(&out, &len, st, root, 1u << 24, &o, NULL) != MERKLE_OK)
        abort();
    if (o.internal_errors) abort();
    if (o.budget_cuts == 0 && (o.mismatches || len != blen || memcmp(out, br, len) != 0)) abort();
    free(out);
}

#endif
