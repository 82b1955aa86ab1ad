/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Proof objects: verification with reasons. The binary encoding is in proof_codec.c, the
** JSON rendering and parser in proof_json.c.
*/
#include <stdlib.h>
#include <string.h>

#include "merkle/bitcoin.h"
#include "merkle/shape.h"
#include "tree/proof_impl.h"

typedef unsigned long long ull;

const char *merkle__proof_kind_name(merkle_proof_kind k)
{
    switch (k) {
    case MERKLE_PROOF_INCLUSION: return "inclusion";
    case MERKLE_PROOF_CONSISTENCY: return "consistency";
    case MERKLE_PROOF_RANGE: return "range";
    }
    return NULL;
}

/* ------------------------------------------------------------------ verification */

/*
** Inclusion proofs of the other shapes: bitcoin (index in a tree of tree_size txids; the
** branch length must be ceil(log2 tree_size)), ssz (index = generalized index), openzeppelin
** (index = position in the tree array; pairs are sorted, so only the hashes count),
** bittorrent-v2 (index = generalized index, as ssz).
*/
static merkle_status shaped_verify(const merkle_proof *p, const uint8_t *rt,
                                   const uint8_t *leaf_hash, merkle_error *err)
{
    merkle_shape sh;
    if (merkle_shape_init(&sh, MERKLE_SHAPE_VERSION, p->profile) != MERKLE_OK)
        return merkle__fail(err, MERKLE_ERR_UNSUPPORTED, 0, 0, "no proofs for profile %s",
                            merkle_profile_name(p->profile));
    sh.hash = p->hash;
    if (p->kind != MERKLE_PROOF_INCLUSION)
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0, "profile %s has inclusion proofs only",
                            merkle_profile_name(p->profile));
    const uint8_t *lh = leaf_hash                                 ? leaf_hash
                        : (p->flags & MERKLE_PROOF_HAS_LEAF_HASH) ? p->leaf_hash
                                                                  : NULL;
    if (!lh) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "no leaf hash to verify");
    uint64_t pos = p->index;
    if (p->profile == MERKLE_PROFILE_BITCOIN) {
        unsigned depth;
        if (p->index >= p->tree_size)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "leaf index %llu is out of range for tree size %llu", (ull)p->index,
                                (ull)p->tree_size);
        (void)merkle_shape_depth(&depth, &sh, p->tree_size);
        if (p->path_len != depth)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "branch has %zu hashes; a tree of %llu needs %u", p->path_len,
                                (ull)p->tree_size, depth);
        pos = ((uint64_t)1 << depth) + p->index;
    }
    return merkle_shape_verify(&sh, rt, pos, lh, (const uint8_t(*)[MERKLE_HASH_LEN])p->path,
                               p->path_len, err);
}

merkle_status merkle_proof_leaf_hash(uint8_t out[MERKLE_HASH_LEN], const merkle_proof *p,
                                     const void *leaf, size_t len)
{
    if (!out || !p || (!leaf && len)) return MERKLE_ERR_ARG;
    switch (p->profile) {
    case MERKLE_PROFILE_BITCOIN: { /* the txid: a segwit transaction's witness is left out */
        size_t used = 0;
        if (len &&
            merkle_bitcoin_tx_id(out, NULL, &used, NULL, (const uint8_t *)leaf, len, NULL) ==
                MERKLE_OK &&
            used == len)
            return MERKLE_OK;
        /* Not one whole transaction: SHA-256d of the bytes, as before. */
        merkle_sha256_hash(out, leaf, len);
        merkle_sha256_hash(out, out, MERKLE_HASH_LEN);
        return MERKLE_OK;
    }
    case MERKLE_PROFILE_BITTORRENT_V2: /* the raw 16 KiB block */
        merkle_sha256_hash(out, leaf, len);
        return MERKLE_OK;
    case MERKLE_PROFILE_SSZ:
    case MERKLE_PROFILE_OPENZEPPELIN:
        if (len != MERKLE_HASH_LEN) return MERKLE_ERR_ARG;
        memcpy(out, leaf, MERKLE_HASH_LEN);
        return MERKLE_OK;
    default: return merkle_tree_leaf_hash(out, p->hash, leaf, len);
    }
}

merkle_status merkle_proof_verify(const merkle_proof *p, const uint8_t *root,
                                  const uint8_t *old_root, const uint8_t *leaf_hash,
                                  const uint8_t (*leaf_hashes)[MERKLE_HASH_LEN], merkle_error *err)
{
    if (!p) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "no proof");
    if (!merkle__tree_hash_ok(p->hash) || !merkle__proof_kind_name(p->kind) ||
        p->path_len > MERKLE_PROOF_MAX_PATH)
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid proof object");
    /* The roots are the caller's trust: a proof's own stored roots prove nothing (any
     * self-consistent proof agrees with itself), so they are never taken in place of one. */
    const uint8_t *rt = root;
    if (!rt)
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0,
                            "no trusted root to verify against (the proof's own root proves "
                            "nothing; pass p->root to check only that the proof is coherent)");
    const uint8_t(*path)[MERKLE_HASH_LEN] = (const uint8_t(*)[MERKLE_HASH_LEN])p->path;
    uint64_t n = p->tree_size;
    merkle_status s;
    if (!merkle__profile_classic(p->profile)) return shaped_verify(p, rt, leaf_hash, err);
    switch (p->kind) {
    case MERKLE_PROOF_INCLUSION: {
        const uint8_t *lh = leaf_hash                                 ? leaf_hash
                            : (p->flags & MERKLE_PROOF_HAS_LEAF_HASH) ? p->leaf_hash
                                                                      : NULL;
        if (!lh) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "no leaf hash to verify");
        if (p->index >= n)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "leaf index %llu is out of range for tree size %llu", (ull)p->index,
                                (ull)n);
        size_t want = merkle_proof_inclusion_path_len(p->index, n);
        if (p->path_len != want)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "path has %zu hashes; leaf %llu of a tree of %llu needs %zu",
                                p->path_len, (ull)p->index, (ull)n, want);
        s = merkle_proof_inclusion_verify(p->hash, rt, n, p->index, lh, path, p->path_len, NULL);
        if (s == MERKLE_ERR_VERIFY)
            return merkle__fail(err, s, 0, 0,
                                "root mismatch: the leaf and path do not give the root");
        return s == MERKLE_OK ? s : merkle__fail(err, s, 0, 0, "%s", merkle_strerror(s));
    }
    case MERKLE_PROOF_CONSISTENCY: {
        const uint8_t *ort = old_root;
        if (!ort)
            return merkle__fail(err, MERKLE_ERR_ARG, 0, 0,
                                "no trusted old root to verify against (pass p->old_root to "
                                "check only that the proof is coherent)");
        uint64_t m = p->index;
        if (m == 0)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "consistency proof from an empty tree is meaningless");
        if (m > n)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "old size %llu is larger than new size %llu", (ull)m, (ull)n);
        size_t want = merkle_proof_consistency_path_len(m, n);
        if (p->path_len != want)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "path has %zu hashes; sizes %llu -> %llu need %zu", p->path_len,
                                (ull)m, (ull)n, want);
        s = merkle_proof_consistency_verify(p->hash, ort, rt, m, n, path, p->path_len, NULL);
        if (s == MERKLE_ERR_VERIFY)
            return merkle__fail(err, s, 0, 0,
                                "root mismatch: the path does not link the two roots");
        return s == MERKLE_OK ? s : merkle__fail(err, s, 0, 0, "%s", merkle_strerror(s));
    }
    case MERKLE_PROOF_RANGE: {
        if (p->index >= p->end || p->end > n)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "range [%llu, %llu) is not a non-empty range of a tree of %llu",
                                (ull)p->index, (ull)p->end, (ull)n);
        if (!leaf_hashes)
            return merkle__fail(err, MERKLE_ERR_ARG, 0, 0,
                                "a range proof needs the range's leaves");
        size_t want = merkle_proof_range_path_len(p->index, p->end, n);
        if (p->path_len != want)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "path has %zu hashes; range [%llu, %llu) of %llu needs %zu",
                                p->path_len, (ull)p->index, (ull)p->end, (ull)n, want);
        s = merkle_proof_range_verify(p->hash, rt, n, p->index, p->end, leaf_hashes, path,
                                      p->path_len, NULL);
        if (s == MERKLE_ERR_VERIFY)
            return merkle__fail(err, s, 0, 0,
                                "root mismatch: the leaves and path do not give the root");
        return s == MERKLE_OK ? s : merkle__fail(err, s, 0, 0, "%s", merkle_strerror(s));
    }
    }
    return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid proof kind");
}
