/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The node-ID preimage (merkledb's encoding; docs/trie.md), written in this one place:
**
**   uvarint(number of children)
**   per child, in token order:  uvarint(token) || the child's ID (32 bytes)
**   the value:                  0x00 (none)  or  0x01 || u8 dl || digest[dl]
**                               (dl <= 32: a value shorter than 32 bytes is its own digest)
**   uvarint(key length in bits) || the key's ceil(bits / 8) bytes
**
** The part writers below return the bytes they wrote; merkle__tpre_len sizes a whole
** preimage; merkle__tpre_begin/_add_child/_finish stream one through SHA-256 from a stack
** buffer (no heap). Every
** producer of a preimage goes through them: node hashing (trie_hash.c), the bulk build's
** batched leaf IDs (trie_bulk.c: shared prefix + per-leaf payload), merkle_trie_hash_node and
** the preimages of proofs and of the benchmark dump (trie_encode.c). All inline: node hashing
** is the trie's hot loop. Tokens are below 256 (branch factors up to 256).
*/
#ifndef MERKLE_TRIE_PREIMAGE_H
#define MERKLE_TRIE_PREIMAGE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "merkle/hash.h"
#include "trie/trie_impl.h"

/* Largest child entry: a 2-byte token uvarint and an ID. */
#define MERKLE__TPRE_CHILD_MAX (2 + MERKLE_TRIE_ID_LEN)
/* Largest value part: 0x01, the length, a 32-byte digest. */
#define MERKLE__TPRE_VALUE_MAX (2 + 32)

static inline size_t merkle__uvarint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* uvarint(number of children). */
static inline size_t merkle__tpre_count(uint8_t *out, size_t nkids)
{
    return merkle__uvarint_put(out, nkids);
}

/* One child: uvarint(tok) || id (tok < 256). */
static inline size_t merkle__tpre_child(uint8_t *out, unsigned tok, const uint8_t *id)
{
    size_t u;
    if (tok < 128) {
        out[0] = (uint8_t)tok;
        u = 1;
    } else {
        out[0] = (uint8_t)(tok | 0x80);
        out[1] = 1;
        u = 2;
    }
    memcpy(out + u, id, MERKLE_TRIE_ID_LEN);
    return u + MERKLE_TRIE_ID_LEN;
}

/* The value part without its digest bytes: 0x00, or 0x01 || dl. */
static inline size_t merkle__tpre_value_head(uint8_t *out, int has_value, size_t dl)
{
    if (!has_value) {
        out[0] = 0;
        return 1;
    }
    out[0] = 1;
    out[1] = (uint8_t)dl;
    return 2;
}

/* The whole value part. */
static inline size_t merkle__tpre_value(uint8_t *out, int has_value, const uint8_t *digest,
                                        size_t dl)
{
    size_t u = merkle__tpre_value_head(out, has_value, dl);
    if (has_value && dl) memcpy(out + u, digest, dl);
    return has_value ? u + dl : u;
}

/* uvarint(key bits); the key bytes follow. */
static inline size_t merkle__tpre_key_head(uint8_t *out, uint64_t kbits)
{
    return merkle__uvarint_put(out, kbits);
}

/* Length of a whole preimage (toks[0..nkids) the children's tokens). */
static inline size_t merkle__tpre_len(size_t nkids, const uint8_t *toks, int has_value, size_t dl,
                                      uint64_t kbits)
{
    size_t u = merkle__uvarint_len(nkids);
    for (size_t i = 0; i < nkids; i++) u += (toks[i] < 128 ? 1u : 2u) + MERKLE_TRIE_ID_LEN;
    u += has_value ? 2 + dl : 1;
    return u + merkle__uvarint_len(kbits) + (size_t)((kbits + 7) / 8);
}

/*
** Streaming a preimage into SHA-256: merkle__tpre_begin, merkle__tpre_add_child per child in
** token order, merkle__tpre_finish with the value and key. The bytes are assembled in a stack
** buffer and fed to SHA-256 in large pieces; nothing is allocated.
*/
typedef struct merkle__tpre_stream {
    merkle_sha256 c;
    size_t u;
    uint8_t buf[704];
} merkle__tpre_stream;

static inline void merkle__tpre_begin(merkle__tpre_stream *s, size_t nkids)
{
    merkle_sha256_init(&s->c);
    s->u = merkle__tpre_count(s->buf, nkids);
}

static inline void merkle__tpre_add_child(merkle__tpre_stream *s, unsigned tok, const uint8_t *id)
{
    if (s->u > sizeof s->buf - MERKLE__TPRE_CHILD_MAX) {
        merkle_sha256_update(&s->c, s->buf, s->u);
        s->u = 0;
    }
    s->u += merkle__tpre_child(s->buf + s->u, tok, id);
}

static inline void merkle__tpre_finish(merkle__tpre_stream *s, uint8_t out[MERKLE_TRIE_ID_LEN],
                                       int has_value, const uint8_t *digest, size_t dl,
                                       const uint8_t *key, uint64_t kbits)
{
    size_t u = s->u;
    if (u > sizeof s->buf - MERKLE__TPRE_VALUE_MAX - MERKLE__UVARINT_MAX) {
        merkle_sha256_update(&s->c, s->buf, u);
        u = 0;
    }
    u += merkle__tpre_value(s->buf + u, has_value, digest, dl);
    u += merkle__tpre_key_head(s->buf + u, kbits);
    size_t kb = (size_t)((kbits + 7) / 8);
    if (kb <= sizeof s->buf - u) { /* short keys: one update for the whole tail */
        if (kb) memcpy(s->buf + u, key, kb);
        merkle_sha256_update(&s->c, s->buf, u + kb);
    } else {
        merkle_sha256_update(&s->c, s->buf, u);
        merkle_sha256_update(&s->c, key, kb);
    }
    merkle_sha256_final(&s->c, out);
}

#endif
