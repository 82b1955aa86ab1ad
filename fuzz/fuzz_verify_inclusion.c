/*
** Fuzz inclusion verification. Mode 0: arbitrary index, size, leaf hash, path and root; the
** RFC 9162 verifier, the Sia range verifier (on the converted path) and CometBFT's rule must
** agree and never crash. Mode 1: a real proof for a small tree, then one bit flipped somewhere
** in path, leaf or root: it verifies before the flip and never after.
*/
#include <stdint.h>
#include <string.h>

#include "merkle/proof.h"

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    uint8_t mode = data[0] & 1;
    data++;
    size--;
    if (mode == 0) {
        if (size < 16 + 64) return 0;
        uint64_t index = rd64(data), tsize = rd64(data + 8);
        if (data[0] & 0x80) { /* keep sizes small half of the time: reachable proofs */
            tsize &= 0xffff;
            index &= 0xffff;
        }
        const uint8_t *leaf = data + 16, *root = data + 48;
        size_t np = (size - 80) / MERKLE_HASH_LEN;
        if (np > 70) np = 70;
        const uint8_t(*path)[MERKLE_HASH_LEN] = (const uint8_t(*)[MERKLE_HASH_LEN])(data + 80);
        merkle_status a = merkle_inclusion_verify(MERKLE_HASH_SHA256, index, tsize, leaf, path, np, root);
        if (a != MERKLE_OK && a != MERKLE_ERR_VERIFY) __builtin_trap();
        if (index < tsize && np <= 64) {
            uint8_t ro[70][MERKLE_HASH_LEN];
            if (merkle_path_to_range_order(ro, path, np, index) == MERKLE_OK) {
                merkle_status b = merkle_range_verify(MERKLE_HASH_SHA256, index, index + 1,
                                                      (const uint8_t(*)[MERKLE_HASH_LEN])leaf,
                                                      (const uint8_t(*)[MERKLE_HASH_LEN])ro, np, tsize, root);
                if ((a == MERKLE_OK) != (b == MERKLE_OK)) __builtin_trap();
            } else if (a == MERKLE_OK) {
                __builtin_trap();
            }
        }
        return 0;
    }
    if (size < 4) return 0;
    uint64_t n = 1 + (((uint64_t)data[0] << 8 | data[1]) % 700);
    uint64_t index = ((uint64_t)data[2] << 8 | data[3]) % n;
    merkle_prover p;
    merkle_proof pr;
    if (merkle_prover_init(&p, MERKLE_PROOF_INCLUSION, MERKLE_HASH_SHA256, 1, index, 0) != MERKLE_OK)
        __builtin_trap();
    for (uint64_t i = 0; i < n; i++) {
        uint8_t leaf[9];
        memcpy(leaf, &i, 8);
        leaf[8] = size > 4 ? data[4] : 0;
        if (merkle_prover_push_leaf(&p, leaf, sizeof leaf) != MERKLE_OK) __builtin_trap();
    }
    if (merkle_prover_finish(&p, &pr, MERKLE_PROFILE_RFC6962) != MERKLE_OK) __builtin_trap();
    const uint8_t(*path)[MERKLE_HASH_LEN] = (const uint8_t(*)[MERKLE_HASH_LEN])pr.path;
    if (merkle_inclusion_verify(MERKLE_HASH_SHA256, index, n, pr.leaf_hash, path, pr.path_len, pr.root) != MERKLE_OK)
        __builtin_trap();
    /* Flip the bits named by the rest of the input. */
    size_t total_bits = (pr.path_len + 2) * MERKLE_HASH_LEN * 8;
    for (size_t k = 5; k + 1 < size; k += 2) {
        size_t bit = (((size_t)data[k] << 8) | data[k + 1]) % total_bits;
        size_t byte = bit / 8;
        uint8_t *target = byte < pr.path_len * MERKLE_HASH_LEN ? &pr.path[0][0] + byte
                          : byte < (pr.path_len + 1) * MERKLE_HASH_LEN
                              ? pr.leaf_hash + (byte - pr.path_len * MERKLE_HASH_LEN)
                              : pr.root + (byte - (pr.path_len + 1) * MERKLE_HASH_LEN);
        *target ^= (uint8_t)(1u << (bit % 8));
        if (merkle_inclusion_verify(MERKLE_HASH_SHA256, index, n, pr.leaf_hash, path, pr.path_len,
                                    pr.root) == MERKLE_OK)
            __builtin_trap();
        *target ^= (uint8_t)(1u << (bit % 8));
    }
    return 0;
}
