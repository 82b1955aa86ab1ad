/*
** Fuzz consistency verification. Mode 0: arbitrary sizes, roots and path: never crashes, and
** accepts only paths of the exact RFC 9162 length. Mode 1: a real proof between two sizes of
** a small tree verifies, and no single flipped bit of path or roots does.
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
        uint64_t m = rd64(data), n = rd64(data + 8);
        if (data[0] & 0x80) {
            m &= 0xffff;
            n &= 0xffff;
        }
        size_t np = (size - 80) / MERKLE_HASH_LEN;
        if (np > 70) np = 70;
        merkle_status s = merkle_consistency_verify(MERKLE_HASH_SHA256, m, n, data + 16, data + 48,
                                                    (const uint8_t(*)[MERKLE_HASH_LEN])(data + 80), np);
        if (s != MERKLE_OK && s != MERKLE_ERR_VERIFY) __builtin_trap();
        if (s == MERKLE_OK && m != n && np != merkle_consistency_path_len(m, n)) __builtin_trap();
        return 0;
    }
    if (size < 4) return 0;
    uint64_t n = 1 + (((uint64_t)data[0] << 8 | data[1]) % 700);
    uint64_t m = 1 + (((uint64_t)data[2] << 8 | data[3]) % n);
    merkle_prover p;
    merkle_proof pr;
    if (merkle_prover_init(&p, MERKLE_PROOF_CONSISTENCY, MERKLE_HASH_SHA256, 1, m, 0) != MERKLE_OK)
        __builtin_trap();
    for (uint64_t i = 0; i < n; i++) {
        uint8_t leaf[9];
        memcpy(leaf, &i, 8);
        leaf[8] = size > 4 ? data[4] : 0;
        if (merkle_prover_push_leaf(&p, leaf, sizeof leaf) != MERKLE_OK) __builtin_trap();
    }
    if (merkle_prover_finish(&p, &pr, MERKLE_PROFILE_RFC6962) != MERKLE_OK) __builtin_trap();
    const uint8_t(*path)[MERKLE_HASH_LEN] = (const uint8_t(*)[MERKLE_HASH_LEN])pr.path;
    if (merkle_consistency_verify(MERKLE_HASH_SHA256, m, n, pr.old_root, pr.root, path, pr.path_len) != MERKLE_OK)
        __builtin_trap();
    size_t total_bits = (pr.path_len + 2) * MERKLE_HASH_LEN * 8;
    for (size_t k = 5; k + 1 < size; k += 2) {
        size_t bit = (((size_t)data[k] << 8) | data[k + 1]) % total_bits;
        size_t byte = bit / 8;
        uint8_t *target = byte < pr.path_len * MERKLE_HASH_LEN ? &pr.path[0][0] + byte
                          : byte < (pr.path_len + 1) * MERKLE_HASH_LEN
                              ? pr.old_root + (byte - pr.path_len * MERKLE_HASH_LEN)
                              : pr.root + (byte - (pr.path_len + 1) * MERKLE_HASH_LEN);
        *target ^= (uint8_t)(1u << (bit % 8));
        /* m == n: the two roots are compared, a flip in either breaks equality. */
        if (merkle_consistency_verify(MERKLE_HASH_SHA256, m, n, pr.old_root, pr.root, path,
                                      pr.path_len) == MERKLE_OK)
            __builtin_trap();
        *target ^= (uint8_t)(1u << (bit % 8));
    }
    return 0;
}
