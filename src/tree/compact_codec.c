/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Compact ranges as data: getters, construction from (begin, end, hashes) -- what
** transparency-dev's compact.Range holds -- and the binary encoding "MKCR" (docs/proofs.md).
**
** The heights of the entries are not stored anywhere: the entries of [begin, end) are the
** maximal aligned blocks of the range, so begin and end alone give their number and sizes.
** The decoder recomputes them and refuses a hash count that does not match.
*/
#include <string.h>

#include "tree/proof_impl.h"

#define CR_VERSION   1u /* the struct's version, as compact.c writes it */
#define WIRE_VERSION 1u
#define HDR_LEN      23u
static const uint8_t k_magic[4] = { 'M', 'K', 'C', 'R' };

/* The wire's hash byte: the one the proof encoding uses (1 SHA-256, 2 BLAKE2b-256,
** 7 Keccak-256), fixed by the format. 0 for none. */
static uint8_t hash_to_wire(merkle_hash_alg h)
{
    switch (h) {
    case MERKLE_HASH_SHA256: return 1;
    case MERKLE_HASH_BLAKE2B_256: return 2;
    case MERKLE_HASH_KECCAK256: return 7;
    default: return 0;
    }
}

static int wire_to_hash(uint8_t w, merkle_hash_alg *h)
{
    switch (w) {
    case 1: *h = MERKLE_HASH_SHA256; return 1;
    case 2: *h = MERKLE_HASH_BLAKE2B_256; return 1;
    case 7: *h = MERKLE_HASH_KECCAK256; return 1;
    default: return 0;
    }
}

static uint64_t load_be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
    return v;
}

static int usable(const merkle_compact_range *r)
{
    return r && r->version == CR_VERSION && r->count <= MERKLE_COMPACT_MAX && r->begin <= r->end;
}

/*
** Heights of the maximal aligned blocks of [begin, end), left to right, into heights (may be
** NULL); returns their number (at most MERKLE_COMPACT_MAX). begin <= end.
*/
static size_t blocks(uint8_t *heights, uint64_t begin, uint64_t end)
{
    size_t n = 0;
    for (uint64_t pos = begin; pos < end;) {
        unsigned h = pos ? (unsigned)__builtin_ctzll(pos) : 63u;
        while (h > 0 && (((uint64_t)1 << h) > end - pos)) h--;
        if (heights) heights[n] = (uint8_t)h;
        n++;
        pos += (uint64_t)1 << h;
    }
    return n;
}

uint64_t merkle_compact_range_begin(const merkle_compact_range *r)
{
    return r ? r->begin : 0;
}

uint64_t merkle_compact_range_end(const merkle_compact_range *r)
{
    return r ? r->end : 0;
}

merkle_hash_alg merkle_compact_range_hash(const merkle_compact_range *r)
{
    return r ? r->hash : (merkle_hash_alg)0;
}

size_t merkle_compact_range_hash_count(const merkle_compact_range *r)
{
    return usable(r) ? r->count : 0;
}

size_t merkle_compact_range_hash_count_for(uint64_t begin, uint64_t end)
{
    return begin <= end ? blocks(NULL, begin, end) : 0;
}

merkle_status merkle_compact_range_hashes(uint8_t (*out)[MERKLE_HASH_LEN], size_t cap,
                                          size_t *out_len, const merkle_compact_range *r)
{
    if (!usable(r) || !out_len || (cap && !out)) return MERKLE_ERR_ARG;
    *out_len = r->count;
    if (cap < r->count) return MERKLE_ERR_BUFFER;
    if (r->count) memcpy(out, r->hashes, (size_t)r->count * MERKLE_HASH_LEN);
    return MERKLE_OK;
}

merkle_status merkle_compact_range_from_hashes(merkle_compact_range *r, merkle_hash_alg hash,
                                               uint64_t begin, uint64_t end,
                                               const uint8_t (*hashes)[MERKLE_HASH_LEN], size_t n,
                                               merkle_error *err)
{
    if (!r || (n && !hashes))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "compact range: NULL argument");
    if (begin > end)
        return merkle__fail(err, MERKLE_ERR_RANGE, 0, 0, "compact range: begin %llu > end %llu",
                            (unsigned long long)begin, (unsigned long long)end);
    merkle_compact_range tmp;
    if (merkle_compact_range_init(&tmp, hash, begin) != MERKLE_OK)
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "compact range: unsupported hash");
    size_t want = blocks(tmp.heights, begin, end);
    if (n != want)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 0,
                            "compact range [%llu, %llu) has %zu hashes, not %zu",
                            (unsigned long long)begin, (unsigned long long)end, want, n);
    if (n) memcpy(tmp.hashes, hashes, n * MERKLE_HASH_LEN);
    tmp.count = (uint32_t)n;
    tmp.end = end;
    *r = tmp;
    return MERKLE_OK;
}

merkle_status merkle_compact_range_encode(uint8_t *out, size_t cap, size_t *out_len,
                                          const merkle_compact_range *r)
{
    if (!usable(r) || !out_len || (cap && !out)) return MERKLE_ERR_ARG;
    uint8_t w = hash_to_wire(r->hash);
    if (!w) return MERKLE_ERR_ARG;
    size_t need = HDR_LEN + (size_t)r->count * MERKLE_HASH_LEN;
    *out_len = need;
    if (cap < need) return MERKLE_ERR_BUFFER;
    memcpy(out, k_magic, 4);
    out[4] = WIRE_VERSION;
    out[5] = w;
    merkle__store_be64(out + 6, r->begin);
    merkle__store_be64(out + 14, r->end);
    out[22] = (uint8_t)r->count;
    if (r->count) memcpy(out + HDR_LEN, r->hashes, (size_t)r->count * MERKLE_HASH_LEN);
    return MERKLE_OK;
}

merkle_status merkle_compact_range_decode(merkle_compact_range *r, const uint8_t *buf, size_t len,
                                          merkle_error *err)
{
    if (!r || (len && !buf))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "compact range: NULL argument");
    if (len < 4 || memcmp(buf, k_magic, 4) != 0)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 0, "not a compact range (no \"MKCR\")");
    if (len < HDR_LEN)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, len, "compact range: truncated header");
    if (buf[4] != WIRE_VERSION)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 4, "compact range: unknown version %u",
                            (unsigned)buf[4]);
    merkle_hash_alg hash;
    if (!wire_to_hash(buf[5], &hash))
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 5, "compact range: unknown hash %u",
                            (unsigned)buf[5]);
    uint64_t begin = load_be64(buf + 6), end = load_be64(buf + 14);
    if (begin > end)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 14, "compact range: begin %llu > end %llu",
                            (unsigned long long)begin, (unsigned long long)end);
    size_t n = buf[22], want = blocks(NULL, begin, end);
    if (n != want)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 22,
                            "compact range [%llu, %llu) has %zu hashes, not %zu",
                            (unsigned long long)begin, (unsigned long long)end, want, n);
    size_t body = n * MERKLE_HASH_LEN;
    if (len - HDR_LEN < body)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, len, "compact range: truncated hashes");
    if (len - HDR_LEN > body)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, HDR_LEN + body,
                            "compact range: trailing bytes");
    merkle_status s = merkle_compact_range_from_hashes(
        r, hash, begin, end, (const uint8_t(*)[MERKLE_HASH_LEN])(buf + HDR_LEN), n, err);
    if (s != MERKLE_OK && s != MERKLE_ERR_FORMAT)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 5, "compact range: unsupported hash");
    return s;
}
