/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Fuzz consistency verification. Mode 0: arbitrary sizes, roots and path: never crashes, and
** accepts only paths of the exact RFC 9162 length. Mode 1: a real proof between two sizes of
** a small tree verifies, and no single flipped bit of path or roots does.
*/
#include "proof_fuzz.h"

typedef struct cons {
    uint64_t m, n;
} cons;

static int verify_cons(const merkle_proof *pr, const void *ctx)
{
    const cons *c = ctx;
    return merkle_proof_consistency_verify(MERKLE_HASH_SHA256, pr->old_root, pr->root, c->m, c->n,
                                           (const uint8_t(*)[MERKLE_HASH_LEN])pr->path,
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
        uint64_t m = fz_rd64(data), n = fz_rd64(data + 8);
        if (data[0] & 0x80) {
            m &= 0xffff;
            n &= 0xffff;
        }
        size_t np = (size - 80) / MERKLE_HASH_LEN;
        if (np > 70) np = 70;
        merkle_status s = merkle_proof_consistency_verify(
            MERKLE_HASH_SHA256, data + 16, data + 48, m, n,
            (const uint8_t(*)[MERKLE_HASH_LEN])(data + 80), np, NULL);
        if (s != MERKLE_OK && s != MERKLE_ERR_VERIFY) __builtin_trap();
        if (s == MERKLE_OK && m != n && np != merkle_proof_consistency_path_len(m, n))
            __builtin_trap();
        return 0;
    }
    if (size < 4) return 0;
    uint64_t n = 1 + (((uint64_t)data[0] << 8 | data[1]) % 700);
    uint64_t m = 1 + (((uint64_t)data[2] << 8 | data[3]) % n);
    merkle_proof pr;
    fz_prove(&pr, MERKLE_PROOF_CONSISTENCY, m, n, size > 4 ? data[4] : 0);
    cons c = { m, n };
    if (verify_cons(&pr, &c) != MERKLE_OK) __builtin_trap();
    /* Flip the bits named by the rest of the input: path, old root, root (with m == n the
    ** two roots are compared, so a flip in either breaks equality). */
    fz_flip_each(&pr, pr.old_root, pr.root, data, size, verify_cons, &c);
    return 0;
}
