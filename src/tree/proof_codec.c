/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The binary encoding of proof objects (docs/formats.md) and its decoder. The decoder never
** trusts a length or a count before checking it against what is left of the input.
*/
#include <stdlib.h>
#include <string.h>

#include "tree/proof_impl.h"

#define HDR_LEN 43u
static const uint8_t k_magic[4] = { 'M', 'R', 'K', 'P' };
#define KNOWN_FLAGS                                                                                \
    (MERKLE_PROOF_HAS_ROOT | MERKLE_PROOF_HAS_OLD_ROOT | MERKLE_PROOF_HAS_LEAF_HASH |              \
     MERKLE_PROOF_HAS_LEAF)

typedef unsigned long long ull;

/* The binary format's hash byte (docs/formats.md): 1 SHA-256, 2 BLAKE2b-256, 7 Keccak-256,
** fixed by the format, independent of the merkle_hash_alg values. 0 for none. */
static uint8_t hash_to_wire(merkle_hash_alg h)
{
    switch (h) {
    case MERKLE_HASH_SHA256: return 1;
    case MERKLE_HASH_BLAKE2B_256: return 2;
    case MERKLE_HASH_KECCAK256: return 7;
    default: break;
    }
    return 0;
}

static int hash_from_wire(uint8_t b, merkle_hash_alg *h)
{
    switch (b) {
    case 1: *h = MERKLE_HASH_SHA256; return 1;
    case 2: *h = MERKLE_HASH_BLAKE2B_256; return 1;
    case 7: *h = MERKLE_HASH_KECCAK256; return 1;
    default: return 0;
    }
}

/* ------------------------------------------------------------------ binary */

static uint64_t load_be64(const uint8_t *b)
{
    return ((uint64_t)merkle__load_be32(b) << 32) | merkle__load_be32(b + 4);
}

merkle_status merkle_proof_encode(uint8_t *out, size_t cap, size_t *out_len, const merkle_proof *p,
                                  const uint8_t *leaf, size_t leaf_len)
{
    if (!out_len || !p || (!out && cap) || (!leaf && leaf_len)) return MERKLE_ERR_ARG;
    if (!merkle__proof_kind_name(p->kind) || !merkle_profile_name(p->profile) ||
        !merkle__tree_hash_ok(p->hash) || p->path_len > MERKLE_PROOF_MAX_PATH ||
        (p->flags & ~(uint32_t)KNOWN_FLAGS) || leaf_len > MERKLE_PROOF_MAX_LEAF)
        return MERKLE_ERR_ARG;
    uint32_t flags =
        (p->flags & ~(uint32_t)MERKLE_PROOF_HAS_LEAF) | (leaf ? MERKLE_PROOF_HAS_LEAF : 0u);
    size_t need = HDR_LEN + p->path_len * MERKLE_HASH_LEN;
    if (flags & MERKLE_PROOF_HAS_ROOT) need += MERKLE_HASH_LEN;
    if (flags & MERKLE_PROOF_HAS_OLD_ROOT) need += MERKLE_HASH_LEN;
    if (flags & MERKLE_PROOF_HAS_LEAF_HASH) need += MERKLE_HASH_LEN;
    if (flags & MERKLE_PROOF_HAS_LEAF) need += 4 + leaf_len;
    *out_len = need;
    if (cap < need) return MERKLE_ERR_BUFFER;
    MERKLE_ASSERT(out); /* cap >= need >= HDR_LEN (the lengths are bounded above) */
    uint8_t *w = out;
    memcpy(w, k_magic, 4);
    w[4] = (uint8_t)MERKLE_PROOF_VERSION;
    w[5] = (uint8_t)p->kind;
    w[6] = (uint8_t)p->profile;
    w[7] = hash_to_wire(p->hash);
    w[8] = (uint8_t)flags;
    merkle__store_be64(w + 9, p->tree_size);
    merkle__store_be64(w + 17, p->index);
    merkle__store_be64(w + 25, p->end);
    merkle__store_be64(w + 33, p->leaf_size);
    w[41] = (uint8_t)(p->path_len >> 8);
    w[42] = (uint8_t)p->path_len;
    w += HDR_LEN;
    if (flags & MERKLE_PROOF_HAS_ROOT)
        w = (uint8_t *)memcpy(w, p->root, MERKLE_HASH_LEN) + MERKLE_HASH_LEN;
    if (flags & MERKLE_PROOF_HAS_OLD_ROOT)
        w = (uint8_t *)memcpy(w, p->old_root, MERKLE_HASH_LEN) + MERKLE_HASH_LEN;
    if (flags & MERKLE_PROOF_HAS_LEAF_HASH)
        w = (uint8_t *)memcpy(w, p->leaf_hash, MERKLE_HASH_LEN) + MERKLE_HASH_LEN;
    if (p->path_len) memcpy(w, p->path, p->path_len * MERKLE_HASH_LEN);
    w += p->path_len * MERKLE_HASH_LEN;
    if (flags & MERKLE_PROOF_HAS_LEAF) {
        merkle__store_be32(w, (uint32_t)leaf_len);
        if (leaf_len) memcpy(w + 4, leaf, leaf_len);
    }
    return MERKLE_OK;
}

merkle_status merkle_proof_decode(merkle_proof *p, const uint8_t **leaf, size_t *leaf_len,
                                  const uint8_t *buf, size_t len, merkle_error *err)
{
    if (!p || (!buf && len)) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "no proof or buffer");
    if (leaf) *leaf = NULL;
    if (leaf_len) *leaf_len = 0;
    if (len < 4 || memcmp(buf, k_magic, 4) != 0)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 0,
                            "not a binary merkle proof (no MRKP magic)");
    if (len < HDR_LEN)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, len, "truncated header: %zu of %u bytes",
                            len, HDR_LEN);
    if (buf[4] != MERKLE_PROOF_VERSION)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 4, "unsupported proof version %u", buf[4]);
    memset(p, 0, offsetof(merkle_proof, path));
    p->version = MERKLE_PROOF_VERSION;
    p->kind = (merkle_proof_kind)buf[5];
    if (!merkle__proof_kind_name(p->kind))
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 5, "unknown proof kind %u", buf[5]);
    p->profile = (merkle_profile)buf[6];
    if (!merkle_profile_name(p->profile))
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 6, "unknown profile %u", buf[6]);
    if (!hash_from_wire(buf[7], &p->hash))
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 7, "unknown hash %u", buf[7]);
    uint32_t flags = buf[8];
    if (flags & ~(uint32_t)KNOWN_FLAGS)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 8, "unknown flags 0x%02x", flags);
    p->flags = flags;
    p->tree_size = load_be64(buf + 9);
    p->index = load_be64(buf + 17);
    p->end = load_be64(buf + 25);
    p->leaf_size = load_be64(buf + 33);
    if ((p->kind == MERKLE_PROOF_INCLUSION && p->end != p->index + 1) ||
        (p->kind == MERKLE_PROOF_CONSISTENCY && p->end != 0))
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 25, "end field %llu does not fit a %s proof",
                            (ull)p->end, merkle__proof_kind_name(p->kind));
    size_t np = ((size_t)buf[41] << 8) | buf[42];
    if (np > MERKLE_PROOF_MAX_PATH)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 41, "path of %zu hashes (at most %d)", np,
                            MERKLE_PROOF_MAX_PATH);
    size_t off = HDR_LEN;
    uint8_t *dst[3] = { p->root, p->old_root, p->leaf_hash };
    const uint32_t bits[3] = { MERKLE_PROOF_HAS_ROOT, MERKLE_PROOF_HAS_OLD_ROOT,
                               MERKLE_PROOF_HAS_LEAF_HASH };
    for (int i = 0; i < 3; i++) {
        if (!(flags & bits[i])) continue;
        if (len - off < MERKLE_HASH_LEN)
            return merkle__fail(err, MERKLE_ERR_FORMAT, 0, len, "truncated proof");
        memcpy(dst[i], buf + off, MERKLE_HASH_LEN);
        off += MERKLE_HASH_LEN;
    }
    if ((len - off) / MERKLE_HASH_LEN < np)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, len, "truncated path: %zu hashes announced",
                            np);
    if (np) memcpy(p->path, buf + off, np * MERKLE_HASH_LEN);
    p->path_len = np;
    off += np * MERKLE_HASH_LEN;
    if (flags & MERKLE_PROOF_HAS_LEAF) {
        if (len - off < 4)
            return merkle__fail(err, MERKLE_ERR_FORMAT, 0, len, "truncated leaf length");
        uint32_t ll = merkle__load_be32(buf + off);
        off += 4;
        if (ll > MERKLE_PROOF_MAX_LEAF)
            return merkle__fail(err, MERKLE_ERR_FORMAT, 0, off - 4, "leaf of %u bytes is too large",
                                ll);
        if (len - off < ll)
            return merkle__fail(err, MERKLE_ERR_FORMAT, 0, len,
                                "truncated leaf: %u bytes announced", ll);
        if (leaf) *leaf = buf + off;
        if (leaf_len) *leaf_len = ll;
        off += ll;
    }
    if (off != len)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, off, "%zu trailing bytes after the proof",
                            len - off);
    return MERKLE_OK;
}
