/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Fuzz the shaped profiles' decoders and proofs. The first byte picks the mode:
**   0  multiproof JSON (merkle_multiproof_alloc_json, then verify against its own root)
**   1  dump() JSON (merkle_shape_tree_alloc_dump; a loaded tree must give proofs that verify)
**   2  an ABI row under one of a few type lists, arrays and tuples among them
**      (merkle_shape_abi_encode / _leaf)
**   3  proof JSON of the bitcoin/ssz/openzeppelin profiles (merkle_proof_from_json + verify)
**   4  a small ssz, bitcoin or openzeppelin tree from the input, a real branch and multiproof
**      for positions from the input: they verify, and fail after one bit is flipped
** Every call must return one of its documented statuses and never crash or leak.
*/
#include <stdlib.h>
#include <string.h>

#include "merkle/proof.h"
#include "merkle/shape.h"

typedef uint8_t node_t[32];

static void ok_or(merkle_status s, merkle_status a, merkle_status b, merkle_status c)
{
    if (s != MERKLE_OK && s != a && s != b && s != c) __builtin_trap();
}

static void mode_trees(const uint8_t *d, size_t n)
{
    if (n < 4) return;
    static const merkle_profile profs[] = { MERKLE_PROFILE_SSZ, MERKLE_PROFILE_BITCOIN,
                                            MERKLE_PROFILE_OPENZEPPELIN };
    merkle_profile prof = profs[d[0] % 3];
    size_t count = 1 + d[1] % 40, npos = 1 + d[2] % 5;
    int mix = d[3] & 1;
    d += 4;
    n -= 4;
    node_t *leaves = calloc(count, 32);
    for (size_t i = 0; i < count; i++)
        for (size_t j = 0; j < 32; j++)
            leaves[i][j] = n ? d[(i * 32 + j) % n] ^ (uint8_t)i : (uint8_t)i;
    merkle_shape s;
    merkle_shape_init(&s, MERKLE_SHAPE_VERSION, prof);
    if (prof == MERKLE_PROFILE_SSZ && mix) s.flags |= MERKLE_SHAPE_MIX_IN_LENGTH;
    merkle_shape_tree *t;
    if (merkle_shape_tree_alloc(&t, NULL, &s, (const node_t *)leaves, count, NULL) != MERKLE_OK)
        __builtin_trap();
    uint8_t root[32], r2[32];
    merkle_shape_tree_root(root, t);
    if (merkle_shape_root(r2, NULL, &s, (const node_t *)leaves, count, NULL) != MERKLE_OK ||
        memcmp(root, r2, 32) != 0)
        __builtin_trap();
    uint64_t pos[8];
    for (size_t i = 0; i < npos; i++) {
        uint64_t idx = n ? d[i % n] % count : i % count;
        if (merkle_shape_tree_position(&pos[i], t, idx) != MERKLE_OK) __builtin_trap();
        node_t path[64];
        size_t len;
        if (merkle_shape_tree_branch(path, 64, &len, t, pos[i]) != MERKLE_OK) __builtin_trap();
        if (merkle_shape_verify(&s, root, pos[i], leaves[idx], (const node_t *)path, len, NULL) !=
            MERKLE_OK)
            __builtin_trap();
        if (len) {
            size_t bit = n ? d[(i + 1) % n] % (len * 256) : 0;
            path[bit / 256][(bit % 256) / 8] ^= (uint8_t)(1u << (bit % 8));
            if (merkle_shape_verify(&s, root, pos[i], leaves[idx], (const node_t *)path, len,
                                    NULL) != MERKLE_ERR_VERIFY)
                __builtin_trap();
        }
    }
    /* Multiproofs: distinct positions only. */
    size_t k = 0;
    for (size_t i = 0; i < npos; i++) {
        int dup = 0;
        for (size_t j = 0; j < k; j++) dup |= pos[j] == pos[i];
        if (!dup) pos[k++] = pos[i];
    }
    if (prof == MERKLE_PROFILE_SSZ) {
        node_t proof[256], ls[8];
        size_t np;
        if (merkle_shape_tree_multiproof(proof, 256, &np, ls, t, pos, k) != MERKLE_OK)
            __builtin_trap();
        if (merkle_shape_multiproof_verify(&s, root, pos, (const node_t *)ls, k,
                                           (const node_t *)proof, np, NULL) != MERKLE_OK)
            __builtin_trap();
        ls[0][3] ^= 0x10;
        if (merkle_shape_multiproof_verify(&s, root, pos, (const node_t *)ls, k,
                                           (const node_t *)proof, np, NULL) != MERKLE_ERR_VERIFY)
            __builtin_trap();
    } else if (prof == MERKLE_PROFILE_OPENZEPPELIN) {
        node_t ls[8], proof[400];
        uint8_t flags[400];
        size_t np, nf;
        if (merkle_shape_tree_flag_multiproof(ls, proof, &np, flags, &nf, 400, t, pos, k) !=
            MERKLE_OK)
            __builtin_trap();
        if (merkle_shape_flag_multiproof_verify(&s, root, (const node_t *)ls, k,
                                                (const node_t *)proof, np, flags, nf,
                                                NULL) != MERKLE_OK)
            __builtin_trap();
        ls[k - 1][0] ^= 1;
        if (merkle_shape_flag_multiproof_verify(&s, root, (const node_t *)ls, k,
                                                (const node_t *)proof, np, flags, nf,
                                                NULL) != MERKLE_ERR_VERIFY)
            __builtin_trap();
    }
    merkle_shape_tree_free(t);
    free(leaves);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    uint8_t mode = data[0] % 5;
    const char *text = (const char *)data + 1;
    size_t n = size - 1;
    merkle_error err;
    switch (mode) {
    case 0: {
        merkle_multiproof *m = NULL;
        merkle_status s = merkle_multiproof_alloc_json(&m, text, n, &err);
        ok_or(s, MERKLE_ERR_FORMAT, MERKLE_ERR_VERIFY, MERKLE_ERR_NOMEM);
        if (s == MERKLE_OK) {
            uint8_t own[32];
            if (merkle_multiproof_verify(m, NULL, &err) != MERKLE_ERR_ARG) __builtin_trap();
            if (merkle_multiproof_root(own, m) == MERKLE_OK)
                ok_or(merkle_multiproof_verify(m, own, &err), MERKLE_ERR_VERIFY, MERKLE_ERR_ARG,
                      MERKLE_ERR_NOMEM);
            (void)merkle_multiproof_profile(m);
            merkle_multiproof_free(m);
        }
        /* The same text as getMultiProof()'s object of typed values. */
        m = NULL;
        s = merkle_multiproof_alloc_json_values(&m, "uint256,(string,bool[])", text, n, &err);
        ok_or(s, MERKLE_ERR_FORMAT, MERKLE_ERR_VERIFY, MERKLE_ERR_NOMEM);
        if (s == MERKLE_OK) {
            uint8_t own[32] = { 0 };
            (void)merkle_multiproof_root(own, m);
            ok_or(merkle_multiproof_verify(m, own, &err), MERKLE_ERR_VERIFY, MERKLE_ERR_ARG,
                  MERKLE_ERR_NOMEM);
            (void)merkle_multiproof_has_leaf(m, own);
            merkle_multiproof_free(m);
        }
        break;
    }
    case 1: {
        merkle_shape_tree *t = NULL;
        char types[256];
        merkle_status s = merkle_shape_tree_alloc_dump(&t, types, sizeof types, text, n, &err);
        if (s != MERKLE_OK && s != MERKLE_ERR_FORMAT && s != MERKLE_ERR_VERIFY &&
            s != MERKLE_ERR_UNSUPPORTED && s != MERKLE_ERR_BUFFER && s != MERKLE_ERR_NOMEM &&
            s != MERKLE_ERR_ARG)
            __builtin_trap();
        if (s == MERKLE_OK) {
            uint8_t root[32];
            merkle_shape_tree_root(root, t);
            merkle_shape s2;
            merkle_shape_init(&s2, MERKLE_SHAPE_VERSION, MERKLE_PROFILE_OPENZEPPELIN);
            uint64_t count = merkle_shape_tree_count(t), pos;
            for (uint64_t i = 0; i < count && i < 4; i++) {
                node_t path[64], leaf;
                size_t len;
                if (merkle_shape_tree_position(&pos, t, i) != MERKLE_OK ||
                    merkle_shape_tree_node(leaf, t, pos) != MERKLE_OK ||
                    merkle_shape_tree_branch(path, 64, &len, t, pos) != MERKLE_OK ||
                    merkle_shape_verify(&s2, root, pos, leaf, (const node_t *)path, len, NULL) !=
                        MERKLE_OK)
                    __builtin_trap();
            }
            merkle_shape_tree_free(t);
        }
        break;
    }
    case 2: {
        static const char *const lists[] = { "address,uint256", "string,bytes,uint8",
                                             "int8,bool,bytes4", "bytes,string",
                                             "uint256,int256,bytes32,address",
                                             /* arrays and tuples (issue 26 item 5) */
                                             "uint256[],(address,bool)",
                                             "(string,bytes[])[2],uint8",
                                             "bytes32[2][],(uint256,(string,bool[]))[]" };
        if (n < 1) break;
        const char *types = lists[(uint8_t)text[0] % 8];
        uint8_t buf[4096], leaf[32];
        size_t len;
        merkle_status s =
            merkle_shape_abi_encode(buf, sizeof buf, &len, types, text + 1, n - 1, &err);
        ok_or(s, MERKLE_ERR_FORMAT, MERKLE_ERR_BUFFER, MERKLE_ERR_NOMEM);
        if (s == MERKLE_OK && len % 32) __builtin_trap();
        merkle_status s2 = merkle_shape_abi_leaf(leaf, types, text + 1, n - 1, &err);
        if ((s == MERKLE_OK || s == MERKLE_ERR_BUFFER) != (s2 == MERKLE_OK)) __builtin_trap();
        break;
    }
    case 3: {
        merkle_proof *p = malloc(sizeof *p);
        uint8_t leaf[256];
        size_t ll;
        merkle_status s = merkle_proof_from_json(p, leaf, sizeof leaf, &ll, text, n, &err);
        if (s == MERKLE_OK)
            ok_or(merkle_proof_verify(p, p->root, p->old_root, NULL, NULL, &err), MERKLE_ERR_VERIFY,
                  MERKLE_ERR_ARG, MERKLE_ERR_UNSUPPORTED);
        free(p);
        break;
    }
    default: mode_trees(data + 1, size - 1); break;
    }
    return 0;
}
