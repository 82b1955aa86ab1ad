/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** fs-verity and dm-verity Merkle trees (merkle/verity.h).
**
** Data blocks are hashed as they arrive: whole blocks in the caller's buffer go to the
** strided SHA-256 batch (16 lanes on AVX-512) with the salt as the batch prefix, so a block
** is read once and never copied; a block split across writes is gathered in `part`. A salt
** longer than the batch prefix limit (dm-verity allows 256 bytes) takes the one-message path.
** The data-block hashes are kept; finish packs them into hash blocks and hashes those the
** same way, level by level (each level one batch call), keeping every level for the
** dm-verity hash device.
*/
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"
#include "merkle/verity.h"

#define BATCH_PREFIX_MAX 64 /* merkle_sha256_batch_strided's prefix limit */
#define FS_SALT_MAX      32
#define DM_SALT_MAX      256
#define MAX_LEVELS       40

struct merkle_verity {
    merkle_verity_format format;
    size_t block_size;
    uint8_t salt[DM_SALT_MAX]; /* fs-verity: zero-padded to 64 */
    size_t salt_len;           /* as given */
    size_t prefix_len;         /* bytes of salt prepended to every hashed block */
    uint64_t data_size;
    int finished;
    uint8_t *part; /* a partial data block (block_size bytes) */
    size_t part_len;
    uint8_t (*hashes)[MERKLE_HASH_LEN]; /* the data blocks' hashes */
    size_t nhashes, cap;
    /* After finish: level 1.. as packed, zero-padded hash blocks (level[0] = lowest). */
    uint8_t *level[MAX_LEVELS];
    size_t level_blocks[MAX_LEVELS];
    unsigned nlevels;
    uint8_t root[MERKLE_HASH_LEN];
};

static int pow2_in(size_t x, size_t lo, size_t hi)
{
    return x >= lo && x <= hi && (x & (x - 1)) == 0;
}

/* out[i] = SHA-256(salt || base[i*block_size ..+block_size)) for i < n. */
static void hash_blocks(const merkle_verity *v, uint8_t (*out)[MERKLE_HASH_LEN],
                        const uint8_t *base, size_t n)
{
    if (v->prefix_len <= BATCH_PREFIX_MAX) {
        (void)merkle_sha256_batch_strided(out[0], v->prefix_len ? v->salt : NULL, v->prefix_len,
                                          base, v->block_size, v->block_size, n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        merkle_sha256 h;
        merkle_sha256_init(&h);
        merkle_sha256_update(&h, v->salt, v->prefix_len);
        merkle_sha256_update(&h, base + i * v->block_size, v->block_size);
        merkle_sha256_final(&h, out[i]);
    }
}

merkle_status merkle_verity_alloc(merkle_verity **out, merkle_verity_format format,
                                  size_t block_size, const uint8_t *salt, size_t salt_len,
                                  merkle_error *err)
{
    if (!out) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    *out = NULL;
    if (format != MERKLE_VERITY_FSVERITY && format != MERKLE_VERITY_DMVERITY)
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "unknown verity format %d", (int)format);
    int fs = format == MERKLE_VERITY_FSVERITY;
    if (!pow2_in(block_size, fs ? 1024 : 512, 65536))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0,
                            "block size %zu: a power of two from %d to 65536", block_size,
                            fs ? 1024 : 512);
    if (salt_len > (fs ? FS_SALT_MAX : DM_SALT_MAX) || (salt_len && !salt))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "salt of %zu bytes: at most %d", salt_len,
                            fs ? FS_SALT_MAX : DM_SALT_MAX);
    merkle_verity *v = calloc(1, sizeof *v);
    if (!v || !(v->part = malloc(block_size))) {
        free(v);
        return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    }
    v->format = format;
    v->block_size = block_size;
    v->salt_len = salt_len;
    if (salt_len) memcpy(v->salt, salt, salt_len);
    /* fs-verity pads the salt to the hash's block size (64 bytes for SHA-256). */
    v->prefix_len = fs && salt_len ? 64 : salt_len;
    *out = v;
    return MERKLE_OK;
}

void merkle_verity_free(merkle_verity *v)
{
    if (!v) return;
    for (unsigned i = 0; i < v->nlevels; i++) free(v->level[i]);
    free(v->part);
    free(v->hashes);
    free(v);
}

static merkle_status add_blocks(merkle_verity *v, const uint8_t *base, size_t n)
{
    if (merkle__grow(&v->hashes, &v->cap, v->nhashes + n, MERKLE_HASH_LEN) != 0)
        return MERKLE_ERR_NOMEM;
    hash_blocks(v, v->hashes + v->nhashes, base, n);
    v->nhashes += n;
    return MERKLE_OK;
}

merkle_status merkle_verity_write(merkle_verity *v, const void *data, size_t len)
{
    if (!v || (len && !data)) return MERKLE_ERR_ARG;
    if (v->finished) return MERKLE_ERR_STATE;
    const uint8_t *p = (const uint8_t *)data;
    size_t bs = v->block_size;
    merkle_status st;
    if (v->part_len) {
        size_t take = bs - v->part_len < len ? bs - v->part_len : len;
        memcpy(v->part + v->part_len, p, take);
        v->part_len += take;
        p += take;
        len -= take;
        v->data_size += take;
        if (v->part_len < bs) return MERKLE_OK;
        if ((st = add_blocks(v, v->part, 1)) != MERKLE_OK) return st;
        v->part_len = 0;
    }
    size_t full = len / bs;
    /* In slices, so that the hash array grows ahead of a huge write in bounded steps. */
    while (full) {
        size_t k = full < 65536 ? full : 65536;
        if ((st = add_blocks(v, p, k)) != MERKLE_OK) return st;
        p += k * bs;
        len -= k * bs;
        v->data_size += (uint64_t)k * bs;
        full -= k;
    }
    if (len) {
        memcpy(v->part, p, len);
        v->part_len = len;
        v->data_size += len;
    }
    return MERKLE_OK;
}

uint64_t merkle_verity_data_size(const merkle_verity *v)
{
    return v ? v->data_size : 0;
}

uint64_t merkle_verity_uncovered(const merkle_verity *v)
{
    return v && v->format == MERKLE_VERITY_DMVERITY ? v->part_len : 0;
}

/* The 256-byte fsverity_descriptor's SHA-256 (the file digest). */
static void fs_digest(const merkle_verity *v, uint8_t out[MERKLE_HASH_LEN])
{
    uint8_t d[256];
    memset(d, 0, sizeof d);
    d[0] = 1; /* version */
    d[1] = 1; /* FS_VERITY_HASH_ALG_SHA256 */
    d[2] = (uint8_t)__builtin_ctzll((unsigned long long)v->block_size); /* log_blocksize */
    d[3] = (uint8_t)v->salt_len;
    merkle__store_le64(d + 8, v->data_size);
    memcpy(d + 16, v->root, MERKLE_HASH_LEN);              /* root_hash[64] */
    if (v->salt_len) memcpy(d + 80, v->salt, v->salt_len); /* salt[32] */
    merkle_sha256_hash(out, d, sizeof d);
}

merkle_status merkle_verity_finish(uint8_t root[MERKLE_HASH_LEN], uint8_t digest[MERKLE_HASH_LEN],
                                   merkle_verity *v)
{
    if (!root || !v || (digest && v->format != MERKLE_VERITY_FSVERITY)) return MERKLE_ERR_ARG;
    if (v->finished) return MERKLE_ERR_STATE;
    merkle_status st;
    size_t bs = v->block_size;
    if (v->part_len && v->format == MERKLE_VERITY_FSVERITY) {
        memset(v->part + v->part_len, 0, bs - v->part_len); /* the last block, zero-padded */
        if ((st = add_blocks(v, v->part, 1)) != MERKLE_OK) return st;
        v->part_len = 0;
    }
    if (v->nhashes == 0) {
        if (v->format == MERKLE_VERITY_DMVERITY) return MERKLE_ERR_RANGE;
        memset(v->root, 0, MERKLE_HASH_LEN); /* fs-verity: an empty file has a zero root */
    } else {
        /* Pack each level into zero-padded blocks and hash them, until one hash is left. */
        const uint8_t(*cur)[MERKLE_HASH_LEN] = (const uint8_t(*)[MERKLE_HASH_LEN])v->hashes;
        size_t count = v->nhashes, per = bs / MERKLE_HASH_LEN;
        while (count > 1) {
            if (v->nlevels == MAX_LEVELS) return MERKLE_ERR_RANGE;
            size_t blocks = (count + per - 1) / per;
            uint8_t *lv = calloc(blocks, bs);
            uint8_t(*next)[MERKLE_HASH_LEN] = malloc(blocks * MERKLE_HASH_LEN);
            if (!lv || !next) {
                free(lv);
                free(next);
                if (v->nlevels) free((void *)cur);
                return MERKLE_ERR_NOMEM;
            }
            memcpy(lv, cur, count * MERKLE_HASH_LEN);
            hash_blocks(v, next, lv, blocks);
            if (v->nlevels) free((void *)cur);
            v->level[v->nlevels] = lv;
            v->level_blocks[v->nlevels] = blocks;
            v->nlevels++;
            cur = (const uint8_t(*)[MERKLE_HASH_LEN])next;
            count = blocks;
        }
        memcpy(v->root, cur[0], MERKLE_HASH_LEN);
        if (v->nlevels) free((void *)cur);
    }
    v->finished = 1;
    memcpy(root, v->root, MERKLE_HASH_LEN);
    if (digest) fs_digest(v, digest);
    return MERKLE_OK;
}

merkle_status merkle_verity_hash_tree(uint8_t *out, size_t cap, size_t *out_len,
                                      const uint8_t *uuid, const merkle_verity *v)
{
    if (!out_len || !v || (cap && !out) || v->format != MERKLE_VERITY_DMVERITY)
        return MERKLE_ERR_ARG;
    if (!v->finished) return MERKLE_ERR_STATE;
    size_t bs = v->block_size, total = bs; /* the superblock's block */
    for (unsigned i = 0; i < v->nlevels; i++) {
        if (v->level_blocks[i] > (SIZE_MAX - total) / bs) return MERKLE_ERR_RANGE;
        total += v->level_blocks[i] * bs;
    }
    *out_len = total;
    if (cap < total) return MERKLE_ERR_BUFFER;
    /* struct verity_sb of cryptsetup (little-endian, packed, 512 bytes). */
    memset(out, 0, bs);
    memcpy(out, "verity\0\0", 8);
    out[8] = 1;  /* version (le32) */
    out[12] = 1; /* hash_type (le32): 1, the normal format */
    if (uuid) {
        memcpy(out + 16, uuid, 16);
    } else {
        uint8_t h[MERKLE_HASH_LEN];
        merkle_sha256 c;
        merkle_sha256_init(&c);
        merkle_sha256_update(&c, "merkle dm-verity uuid", 21);
        merkle_sha256_update(&c, v->root, MERKLE_HASH_LEN);
        merkle_sha256_update(&c, v->salt, v->salt_len);
        merkle_sha256_final(&c, h);
        h[6] = (uint8_t)((h[6] & 0x0f) | 0x40); /* version 4 layout */
        h[8] = (uint8_t)((h[8] & 0x3f) | 0x80); /* RFC 4122 variant */
        memcpy(out + 16, h, 16);
    }
    memcpy(out + 32, "sha256", 6);                      /* algorithm[32] */
    uint64_t sizes = (uint64_t)bs | (uint64_t)bs << 32; /* data_block_size, hash_block_size */
    merkle__store_le64(out + 64, sizes);
    merkle__store_le64(out + 72, v->nhashes); /* data_blocks */
    out[80] = (uint8_t)(v->salt_len & 0xff);  /* salt_size (le16) */
    out[81] = (uint8_t)(v->salt_len >> 8);
    if (v->salt_len) memcpy(out + 88, v->salt, v->salt_len); /* salt[256] */
    size_t at = bs;
    for (unsigned i = v->nlevels; i-- > 0;) { /* the top level first */
        memcpy(out + at, v->level[i], v->level_blocks[i] * bs);
        at += v->level_blocks[i] * bs;
    }
    return MERKLE_OK;
}

merkle_status merkle_verity_digest(uint8_t root[MERKLE_HASH_LEN], uint8_t digest[MERKLE_HASH_LEN],
                                   merkle_verity_format format, size_t block_size,
                                   const uint8_t *salt, size_t salt_len, const void *data,
                                   size_t len, merkle_error *err)
{
    if (!root || (len && !data)) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    merkle_verity *v;
    merkle_status st = merkle_verity_alloc(&v, format, block_size, salt, salt_len, err);
    if (st != MERKLE_OK) return st;
    st = merkle_verity_write(v, data, len);
    if (st == MERKLE_OK) st = merkle_verity_finish(root, digest, v);
    merkle_verity_free(v);
    if (st == MERKLE_ERR_RANGE)
        return merkle__fail(err, st, 0, 0, "dm-verity needs at least one whole block of data");
    if (st != MERKLE_OK) return merkle__fail(err, st, 0, 0, "%s", merkle_strerror(st));
    return MERKLE_OK;
}
