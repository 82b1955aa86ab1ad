/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Streaming MD5, SHA-1 and SHA-512 (internal): the digests of checksum lists (md5sum,
** sha1sum, sha512sum) that are not tree hashes. In-tree, so that a static or Windows build
** needs no libcrypto. Each is init / update (any split) / final, over a compress kernel:
** MD5 shares md5_mb.c's scalar one; SHA-1 runs on SHA-NI where the CPU has it
** (sha1_shani.c), else portable C; SHA-512 is portable C, built with BMI2 too (sha512_avx2.c).
*/
#ifndef MERKLE_HASH_MD_H
#define MERKLE_HASH_MD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/internal.h"

/* A compress kernel seen through its state's address (each digest adapts its own). */
typedef void (*merkle__md_compress_fn)(void *state, const uint8_t *blocks, size_t nblocks);

/*
** The buffered absorb every streaming digest here shares: bytes in[0..n) join the partial
** block buf (bs bytes a block, *total bytes absorbed before), whole blocks go to compress
** straight from the input, the rest waits in buf.
*/
static inline void merkle__md_update(void *state, uint8_t *buf, size_t bs, uint64_t *total,
                                     const void *in, size_t n, merkle__md_compress_fn compress)
{
    const uint8_t *p = in;
    size_t fill = (size_t)(*total % bs);
    *total += n;
    if (fill) {
        size_t take = bs - fill < n ? bs - fill : n;
        memcpy(buf + fill, p, take);
        p += take;
        n -= take;
        if (fill + take < bs) return;
        compress(state, buf, 1);
    }
    if (n >= bs) {
        compress(state, p, n / bs);
        p += n - n % bs;
        n %= bs;
    }
    if (n) memcpy(buf, p, n);
}

/*
** The Merkle-Damgard padding of the last tail bytes of last[] (room for two blocks of bs):
** 0x80, zeros, then the bit length of total bytes in lenbytes bytes (8 or 16), little-endian
** for MD5 (le), else big-endian. Returns the padded length, one or two blocks.
*/
static inline size_t merkle__md_pad(uint8_t *last, size_t tail, size_t bs, size_t lenbytes,
                                    uint64_t total, int le)
{
    size_t padded = tail < bs - lenbytes ? bs : 2 * bs;
    last[tail] = 0x80;
    memset(last + tail + 1, 0, padded - 8 - tail - 1);
    if (le) {
        merkle__store_le64(last + padded - 8, total << 3);
    } else {
        if (lenbytes == 16) merkle__store_be64(last + padded - 16, total >> 61);
        merkle__store_be64(last + padded - 8, total << 3);
    }
    return padded;
}

typedef struct merkle__md5s {
    uint32_t h[4];
    uint64_t total; /* bytes absorbed */
    uint8_t buf[64];
} merkle__md5s;

typedef struct merkle__sha1 {
    uint32_t h[5];
    uint64_t total;
    uint8_t buf[64];
} merkle__sha1;

typedef struct merkle__sha512 {
    uint64_t h[8];
    uint64_t total; /* bytes; the 128-bit length field's high half is total >> 61 */
    uint8_t buf[128];
} merkle__sha512;

void merkle__md5s_init(merkle__md5s *c);
void merkle__md5s_update(merkle__md5s *c, const void *p, size_t n);
void merkle__md5s_final(merkle__md5s *c, uint8_t out[16]);

void merkle__sha1_init(merkle__sha1 *c);
void merkle__sha1_update(merkle__sha1 *c, const void *p, size_t n);
void merkle__sha1_final(merkle__sha1 *c, uint8_t out[20]);

void merkle__sha512_init(merkle__sha512 *c);
void merkle__sha512_update(merkle__sha512 *c, const void *p, size_t n);
void merkle__sha512_final(merkle__sha512 *c, uint8_t out[64]);

/* SHA-1 compress kernels: absorb nblocks 64-byte blocks into state. */
typedef void (*merkle__sha1_compress_fn)(uint32_t state[5], const uint8_t *blocks, size_t nblocks);
void merkle__sha1_compress_portable(uint32_t state[5], const uint8_t *blocks, size_t nblocks);
#if MERKLE_HAVE_X86
void merkle__sha1_compress_shani(uint32_t state[5], const uint8_t *blocks, size_t nblocks);
#endif
/* A SHA-1 kernel by name ("portable", "shani"), NULL when absent or not runnable here; the
** one in use ("shani" when the CPU has SHA-NI and SSE4.1, else "portable"). */
merkle__sha1_compress_fn merkle__sha1_kernel(const char *name);
const char *merkle__sha1_backend(void);

typedef void (*merkle__sha512_compress_fn)(uint64_t state[8], const uint8_t *blocks,
                                           size_t nblocks);
void merkle__sha512_compress(uint64_t state[8], const uint8_t *blocks, size_t nblocks);
void merkle__sha512_compress_portable(uint64_t state[8], const uint8_t *blocks, size_t nblocks);
#if MERKLE_HAVE_X86
void merkle__sha512_compress_bmi2(uint64_t state[8], const uint8_t *blocks, size_t nblocks);
#endif
/* A SHA-512 kernel by name ("portable", "bmi2"), NULL when absent or not runnable here. */
merkle__sha512_compress_fn merkle__sha512_kernel(const char *name);

#endif
