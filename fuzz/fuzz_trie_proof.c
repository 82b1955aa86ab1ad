/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Fuzz the trie proof decoder/verifier. Input byte 0 selects the mode:
**   even: bytes 1..33 are a root ID, the rest a proof: verify must not crash, and on success
**         its statement must be self-consistent.
**   odd:  the rest is an operation file; for a key taken from the input, prove, check the
**         proof verifies, then flip one input-chosen bit: the altered proof must be rejected
**         or state the truth about the trie.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/trie.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 << 16) return 0;
    merkle_trie_proof_info info;
    merkle_error e;
    if ((data[0] & 1) == 0) {
        if (size < 33) return 0;
        if (merkle_trie_proof_verify(&info, data + 1, data + 33, size - 33, &e) == MERKLE_OK) {
            if (info.key_len && (info.key < data || info.key + info.key_len > data + size)) abort();
            if (!info.present && info.value_len) abort();
        }
        return 0;
    }
    if (size < 4) return 0;
    static const unsigned bfs[] = { 2, 4, 16, 256 };
    merkle_trie *t;
    if (merkle_trie_alloc(&t, bfs[(data[0] >> 1) & 3]) != MERKLE_OK) abort();
    size_t klen = data[1] % 4;
    if (klen > size - 4) klen = 0;
    const uint8_t *key = data + 4;
    size_t bitpos = data[2] * 8u + data[3] % 8u;
    uint8_t *scratch = malloc(size / 2 + 1);
    (void)merkle_trie_apply_text(NULL, t, (const char *)data + 4, size - 4, scratch, size / 2 + 1,
                                 &e);
    uint8_t root[32];
    if (merkle_trie_root(root, t, 1, NULL) != MERKLE_OK) abort();
    size_t need;
    if (merkle_trie_prove(NULL, 0, &need, t, key, klen, NULL) != MERKLE_ERR_BUFFER) abort();
    uint8_t *p = malloc(need);
    if (merkle_trie_prove(p, need, &need, t, key, klen, NULL) != MERKLE_OK) abort();
    if (merkle_trie_proof_verify(&info, root, p, need, &e) != MERKLE_OK) abort();
    size_t vl;
    int found;
    (void)merkle_trie_get(NULL, 0, &vl, &found, t, key, klen);
    if (info.present != found) abort();
    if (bitpos / 8 < need) {
        p[bitpos / 8] ^= (uint8_t)(1u << (bitpos % 8));
        if (merkle_trie_proof_verify(&info, root, p, need, &e) == MERKLE_OK) {
            uint8_t *v = malloc(info.value_len + 1);
            merkle_status st =
                merkle_trie_get(v, info.value_len + 1, &vl, &found, t, info.key, info.key_len);
            if (st != MERKLE_OK && st != MERKLE_ERR_BUFFER) abort();
            if (found != info.present) abort();
            if (found && (vl != info.value_len || (vl && memcmp(v, info.value, vl) != 0))) abort();
            free(v);
        }
    }
    free(p);
    free(scratch);
    merkle_trie_free(t);
    return 0;
}
