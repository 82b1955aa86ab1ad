/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Fuzz the proof decoders: the binary decoder and the JSON parser must reject malformed input
** with a status and never crash; whatever decodes re-encodes to something that decodes to the
** same proof, and verifying it never crashes.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/proof.h"

static void check_round_trip(const merkle_proof *p, const uint8_t *leaf, size_t leaf_len)
{
    static uint8_t buf[2 * MERKLE_PROOF_MAX_PATH * MERKLE_HASH_LEN + 4096];
    size_t len;
    if (leaf_len > 1024) leaf_len = 1024;
    if (merkle_proof_encode(buf, sizeof buf, &len, p, leaf, leaf_len) != MERKLE_OK) {
        if (p->profile != 0) __builtin_trap(); /* a decoded proof always encodes */
        return;
    }
    merkle_proof back;
    const uint8_t *l2;
    size_t l2_len;
    if (merkle_proof_decode(&back, &l2, &l2_len, buf, len, NULL) != MERKLE_OK) __builtin_trap();
    if (back.tree_size != p->tree_size || back.index != p->index || back.path_len != p->path_len ||
        memcmp(back.path, p->path, p->path_len * MERKLE_HASH_LEN) != 0 || l2_len != leaf_len)
        __builtin_trap();
    static char js[2 * sizeof buf + 4096];
    size_t jl;
    if (merkle_proof_to_json(js, sizeof js, &jl, p, leaf, leaf_len) != MERKLE_OK) __builtin_trap();
    static uint8_t lb[2048];
    size_t lbl;
    merkle_status s = merkle_proof_from_json(&back, lb, sizeof lb, &lbl, js, jl - 1, NULL);
    if (s != MERKLE_OK || back.path_len != p->path_len || back.tree_size != p->tree_size ||
        memcmp(back.path, p->path, p->path_len * MERKLE_HASH_LEN) != 0)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    merkle_proof p;
    merkle_error err;
    const uint8_t *leaf;
    size_t leaf_len;
    if (merkle_proof_decode(&p, &leaf, &leaf_len, data, size, &err) == MERKLE_OK) {
        if (leaf && (leaf < data || leaf + leaf_len > data + size)) __builtin_trap();
        check_round_trip(&p, leaf, leaf_len);
        uint8_t zero[4][MERKLE_HASH_LEN] = { { 0 } };
        (void)merkle_proof_verify(
            &p, p.root, p.old_root, NULL,
            p.end - p.index <= 4 ? (const uint8_t(*)[MERKLE_HASH_LEN])zero : NULL, &err);
    }
    static uint8_t lb[4096];
    size_t lbl;
    merkle_status s =
        merkle_proof_from_json(&p, lb, sizeof lb, &lbl, (const char *)data, size, &err);
    if (s == MERKLE_OK) {
        check_round_trip(&p, (p.flags & MERKLE_PROOF_HAS_LEAF) ? lb : NULL, lbl);
        (void)merkle_proof_verify(&p, p.root, p.old_root, NULL, NULL, &err);
    } else if (s != MERKLE_ERR_FORMAT && s != MERKLE_ERR_VERIFY && s != MERKLE_ERR_BUFFER) {
        __builtin_trap();
    }
    return 0;
}
