/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Proofs out of a whole shaped tree, in the forms `merkle proof` writes: one branch as a
** merkle_proof object (merkle_shape_tree_proof), several positions as a multiproof JSON
** document (merkle_shape_tree_multiproof_json) that merkle_multiproof_alloc_json reads back.
*/
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "merkle/proof.h"
#include "shape/shape_impl.h"

typedef unsigned long long ull;

merkle_status merkle_shape_tree_proof(merkle_proof *out, const merkle_shape_tree *t, uint64_t pos)
{
    if (!out || !t) return MERKLE_ERR_ARG;
    merkle_profile profile = t->s.profile;
    uint64_t index = pos;
    /* Bitcoin and the classic profiles name a leaf by its index (merkle_proof_verify puts it
    ** back at gindex 2^depth + index); the others by the position itself. */
    if (profile == MERKLE_PROFILE_BITCOIN || merkle__profile_classic(profile)) {
        if (t->heap || t->depth >= 64) return MERKLE_ERR_RANGE;
        uint64_t first = (uint64_t)1 << t->depth;
        if (pos < first || pos - first >= t->n) return MERKLE_ERR_RANGE;
        index = pos - first;
    }
    merkle_proof *p = calloc(1, sizeof *p);
    if (!p) return MERKLE_ERR_NOMEM;
    p->version = MERKLE_PROOF_VERSION;
    p->kind = MERKLE_PROOF_INCLUSION;
    p->profile = profile;
    p->hash = t->s.hash;
    p->tree_size = t->n;
    p->index = index;
    p->end = index + 1;
    p->flags = MERKLE_PROOF_HAS_ROOT | MERKLE_PROOF_HAS_LEAF_HASH;
    merkle_shape_tree_root(p->root, t);
    merkle_status s = merkle_shape_tree_node(p->leaf_hash, t, pos);
    if (s == MERKLE_OK)
        s = merkle_shape_tree_branch(p->path, MERKLE_PROOF_MAX_PATH, &p->path_len, t, pos);
    if (s == MERKLE_OK) memcpy(out, p, sizeof *p);
    free(p);
    return s;
}

/* "  \"key\": [\n    \"hex\",\n ...  ],\n" (or "[]"), as the proof JSON writer lays out arrays. */
static void put_hashes(merkle__sink *b, const char *key, const node_t *v, size_t n)
{
    merkle__json_putf(b, "  \"%s\": [%s", key, n ? "\n" : "");
    for (size_t i = 0; i < n; i++) {
        merkle__sink_puts(b, "    ");
        merkle__json_hex_string(b, v[i], MERKLE_HASH_LEN);
        merkle__sink_puts(b, i + 1 < n ? ",\n" : "\n");
    }
    merkle__sink_puts(b, n ? "  ],\n" : "],\n");
}

/* The document's head: type, profile, hash. */
static void put_head(merkle__sink *b, const merkle_shape_tree *t)
{
    merkle__json_putf(b, "{\n  \"type\": \"multiproof\",\n  \"profile\": \"%s\",\n",
                      merkle_profile_name(t->s.profile));
    merkle__json_putf(b, "  \"hash\": \"%s\",\n", merkle_hash_alg_name(t->s.hash));
}

static void put_root(merkle__sink *b, const merkle_shape_tree *t)
{
    node_t root;
    merkle_shape_tree_root(root, t);
    merkle__sink_puts(b, "  \"root\": ");
    merkle__json_hex_string(b, root, MERKLE_HASH_LEN);
    merkle__sink_puts(b, "\n}\n");
}

/* gindices, leaves, proof, root of a LEVELS tree's multiproof. */
static merkle_status gindex_json(merkle__sink *b, const merkle_shape_tree *t, const uint64_t *g,
                                 size_t n)
{
    size_t need = 0;
    merkle_status s = merkle_shape_tree_multiproof(NULL, 0, &need, NULL, t, g, n);
    if (s != MERKLE_OK && s != MERKLE_ERR_BUFFER) return s;
    node_t *proof = malloc((need ? need : 1) * sizeof *proof), *leaves = malloc(n * sizeof *leaves);
    s = proof && leaves ? merkle_shape_tree_multiproof(proof, need, &need, leaves, t, g, n)
                        : MERKLE_ERR_NOMEM;
    if (s == MERKLE_OK) {
        put_head(b, t);
        merkle__sink_puts(b, "  \"gindices\": [");
        for (size_t i = 0; i < n; i++) merkle__json_putf(b, "%s%llu", i ? ", " : "", (ull)g[i]);
        merkle__sink_puts(b, "],\n");
        put_hashes(b, "leaves", (const node_t *)leaves, n);
        put_hashes(b, "proof", (const node_t *)proof, need);
        put_root(b, t);
    }
    free(proof);
    free(leaves);
    return s;
}

/* leaves, proof, proofFlags, root of a HEAP tree's (OpenZeppelin) multiproof. */
static merkle_status flag_json(merkle__sink *b, const merkle_shape_tree *t, const uint64_t *pos,
                               size_t n)
{
    if (n > SIZE_MAX / 66 / sizeof(node_t)) return MERKLE_ERR_RANGE;
    size_t cap = n * 66 + 1, np = 0, nf = 0;
    node_t *leaves = malloc(cap * sizeof *leaves), *proof = malloc(cap * sizeof *proof);
    uint8_t *flags = malloc(cap);
    merkle_status s = MERKLE_ERR_NOMEM;
    if (leaves && proof && flags)
        s = merkle_shape_tree_flag_multiproof(leaves, proof, &np, flags, &nf, cap, t, pos, n);
    if (s == MERKLE_OK) {
        put_head(b, t);
        put_hashes(b, "leaves", (const node_t *)leaves, n);
        put_hashes(b, "proof", (const node_t *)proof, np);
        merkle__sink_puts(b, "  \"proofFlags\": [");
        for (size_t i = 0; i < nf; i++)
            merkle__json_putf(b, "%s%s", i ? ", " : "", flags[i] ? "true" : "false");
        merkle__sink_puts(b, "],\n");
        put_root(b, t);
    }
    free(leaves);
    free(proof);
    free(flags);
    return s;
}

merkle_status merkle_shape_tree_multiproof_json(char *out, size_t cap, size_t *out_len,
                                                const merkle_shape_tree *t, const uint64_t *pos,
                                                size_t n)
{
    if (!out_len || !t || (!out && cap) || !pos || n == 0) return MERKLE_ERR_ARG;
    merkle__sink b = { out, cap, 0 };
    merkle_status s = t->heap ? flag_json(&b, t, pos, n) : gindex_json(&b, t, pos, n);
    if (s != MERKLE_OK) return s;
    merkle__sink_put(&b, "", 1);
    *out_len = b.len;
    return b.len > cap ? MERKLE_ERR_BUFFER : MERKLE_OK;
}
