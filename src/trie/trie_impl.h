/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Internal interface of the trie module (never installed): uvarint codec shared by hashing,
** proofs and tests, and the node-preimage helpers.
*/
#ifndef MERKLE_TRIE_IMPL_H
#define MERKLE_TRIE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "merkle/trie.h"

/* Maximum length of a uvarint of a 64-bit value. */
#define MERKLE__UVARINT_MAX 10

/* Write v as unsigned LEB128 (Go binary.AppendUvarint) to out; returns the byte count. */
static inline size_t merkle__uvarint_put(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

/*
** Read a canonical uvarint from in[*pos..len) into *v and advance *pos. Returns 0 on
** success, -1 when truncated, -2 on overflow (> 64 bits), -3 when not canonical (a redundant
** trailing zero group, Go's errLeadingZeroes).
*/
int merkle__uvarint_get(uint64_t *v, const uint8_t *in, size_t len, size_t *pos);

/* Value digest (A.2): values shorter than 32 bytes are used as is, others are hashed.
** Writes to d (32 bytes) when hashed and returns the digest pointer and length. */
const uint8_t *merkle__trie_value_digest(uint8_t d[32], const uint8_t *value, size_t len,
                                         size_t *dlen);

/*
** Benchmark support: the ID preimage of every node of t, children before parents, in one
** malloc'd buffer; offs[i]..offs[i+1] delimit node i (offs has count + 1 entries). Both
** buffers are the caller's to free. Errors: MERKLE_ERR_NOMEM.
*/
merkle_status merkle__trie_preimages(const merkle_trie *t, uint8_t **buf, size_t *len,
                                     size_t **offs, size_t *count);

#endif
