/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Fuzz inclusion verification. Mode 0: arbitrary index, size, leaf hash, path and root; the
** RFC 9162 verifier, the Sia range verifier (on the converted path) and CometBFT's rule must
** agree and never crash. Mode 1: a real proof for a small tree, then one bit flipped somewhere
** in path, leaf or root: it verifies before the flip and never after.
*/
#include "proof_fuzz.h"

typedef struct incl {
    uint64_t index, n;
} incl;

static int verify_incl(const merkle_proof *pr, const void *ctx)
{
    const incl *c = ctx;
    return merkle_proof_inclusion_verify(MERKLE_HASH_SHA256, pr->root, c->n, c->index,
                                         pr->leaf_hash, (const uint8_t(*)[MERKLE_HASH_LEN])pr->path,
                                         pr->path_len, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    uint8_t mode = data[0] & 1;
    data++;
    size--;
    if (mode == 0) {
        if (size < 16 + 64) return 0;
        uint64_t index = fz_rd64(data), tsize = fz_rd64(data + 8);
        if (data[0] & 0x80) { /* keep sizes small half of the time: reachable proofs */
            tsize &= 0xffff;
            index &= 0xffff;
        }
        const uint8_t *leaf = data + 16, *root = data + 48;
        size_t np = (size - 80) / MERKLE_HASH_LEN;
        if (np > 70) np = 70;
        const uint8_t(*path)[MERKLE_HASH_LEN] = (const uint8_t(*)[MERKLE_HASH_LEN])(data + 80);
        merkle_status a = merkle_proof_inclusion_verify(MERKLE_HASH_SHA256, root, tsize, index,
                                                        leaf, path, np, NULL);
        if (a != MERKLE_OK && a != MERKLE_ERR_VERIFY) __builtin_trap();
        if (index < tsize && np <= 64) {
            uint8_t ro[70][MERKLE_HASH_LEN];
            if (merkle_proof_path_to_range_order(ro, path, np, index) == MERKLE_OK) {
                merkle_status b =
                    merkle_proof_range_verify(MERKLE_HASH_SHA256, root, tsize, index, index + 1,
                                              (const uint8_t(*)[MERKLE_HASH_LEN])leaf,
                                              (const uint8_t(*)[MERKLE_HASH_LEN])ro, np, NULL);
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
    merkle_proof pr;
    fz_prove(&pr, MERKLE_PROOF_INCLUSION, index, n, size > 4 ? data[4] : 0);
    incl c = { index, n };
    if (verify_incl(&pr, &c) != MERKLE_OK) __builtin_trap();
    /* Flip the bits named by the rest of the input: path, leaf hash, root. */
    fz_flip_each(&pr, pr.leaf_hash, pr.root, data, size, verify_incl, &c);
    return 0;
}
