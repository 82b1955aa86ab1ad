/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Multi-buffer MD5: up to 16 independent messages advance together, one per SIMD lane.
** Internal interface (never installed). Used by the checksum-manifest engine (src/manifest/)
** through merkle__md5_mb_files, which keeps up to `lanes` files in flight.
**
** Kernels, one per file: md5_mb.c (portable, 1 lane), md5_mb_avx2.c (8 lanes),
** md5_mb_avx512.c (16 lanes). Dispatch picks the widest the CPU runs, after a self-test.
*/
#ifndef MERKLE_HASH_MD5_MB_H
#define MERKLE_HASH_MD5_MB_H

#include <stddef.h>
#include <stdint.h>

#include "merkle/common.h"

#define MERKLE_MD5_MB_MAX_LANES 16
#define MERKLE_MD5_LEN          16

/*
** The 64 MD5 steps as an X-macro for the SIMD kernels: S(f, a, b, c, d, g, k, s, i) means
** a = b + rol(a + f(b, c, d) + M[g] + k, s) with f one of F, G, H, I (RFC 1321); i is the step
** number and k == merkle__md5_K[i].
*/
#define MERKLE__MD5_STEPS(S)                                                                       \
    S(F, a, b, c, d, 0, 0xd76aa478u, 7, 0)                                                         \
    S(F, d, a, b, c, 1, 0xe8c7b756u, 12, 1)                                                        \
    S(F, c, d, a, b, 2, 0x242070dbu, 17, 2)                                                        \
    S(F, b, c, d, a, 3, 0xc1bdceeeu, 22, 3)                                                        \
    S(F, a, b, c, d, 4, 0xf57c0fafu, 7, 4)                                                         \
    S(F, d, a, b, c, 5, 0x4787c62au, 12, 5)                                                        \
    S(F, c, d, a, b, 6, 0xa8304613u, 17, 6)                                                        \
    S(F, b, c, d, a, 7, 0xfd469501u, 22, 7)                                                        \
    S(F, a, b, c, d, 8, 0x698098d8u, 7, 8)                                                         \
    S(F, d, a, b, c, 9, 0x8b44f7afu, 12, 9)                                                        \
    S(F, c, d, a, b, 10, 0xffff5bb1u, 17, 10)                                                      \
    S(F, b, c, d, a, 11, 0x895cd7beu, 22, 11)                                                      \
    S(F, a, b, c, d, 12, 0x6b901122u, 7, 12)                                                       \
    S(F, d, a, b, c, 13, 0xfd987193u, 12, 13)                                                      \
    S(F, c, d, a, b, 14, 0xa679438eu, 17, 14)                                                      \
    S(F, b, c, d, a, 15, 0x49b40821u, 22, 15)                                                      \
    S(G, a, b, c, d, 1, 0xf61e2562u, 5, 16)                                                        \
    S(G, d, a, b, c, 6, 0xc040b340u, 9, 17)                                                        \
    S(G, c, d, a, b, 11, 0x265e5a51u, 14, 18)                                                      \
    S(G, b, c, d, a, 0, 0xe9b6c7aau, 20, 19)                                                       \
    S(G, a, b, c, d, 5, 0xd62f105du, 5, 20)                                                        \
    S(G, d, a, b, c, 10, 0x02441453u, 9, 21)                                                       \
    S(G, c, d, a, b, 15, 0xd8a1e681u, 14, 22)                                                      \
    S(G, b, c, d, a, 4, 0xe7d3fbc8u, 20, 23)                                                       \
    S(G, a, b, c, d, 9, 0x21e1cde6u, 5, 24)                                                        \
    S(G, d, a, b, c, 14, 0xc33707d6u, 9, 25)                                                       \
    S(G, c, d, a, b, 3, 0xf4d50d87u, 14, 26)                                                       \
    S(G, b, c, d, a, 8, 0x455a14edu, 20, 27)                                                       \
    S(G, a, b, c, d, 13, 0xa9e3e905u, 5, 28)                                                       \
    S(G, d, a, b, c, 2, 0xfcefa3f8u, 9, 29)                                                        \
    S(G, c, d, a, b, 7, 0x676f02d9u, 14, 30)                                                       \
    S(G, b, c, d, a, 12, 0x8d2a4c8au, 20, 31)                                                      \
    S(H, a, b, c, d, 5, 0xfffa3942u, 4, 32)                                                        \
    S(H, d, a, b, c, 8, 0x8771f681u, 11, 33)                                                       \
    S(H, c, d, a, b, 11, 0x6d9d6122u, 16, 34)                                                      \
    S(H, b, c, d, a, 14, 0xfde5380cu, 23, 35)                                                      \
    S(H, a, b, c, d, 1, 0xa4beea44u, 4, 36)                                                        \
    S(H, d, a, b, c, 4, 0x4bdecfa9u, 11, 37)                                                       \
    S(H, c, d, a, b, 7, 0xf6bb4b60u, 16, 38)                                                       \
    S(H, b, c, d, a, 10, 0xbebfbc70u, 23, 39)                                                      \
    S(H, a, b, c, d, 13, 0x289b7ec6u, 4, 40)                                                       \
    S(H, d, a, b, c, 0, 0xeaa127fau, 11, 41)                                                       \
    S(H, c, d, a, b, 3, 0xd4ef3085u, 16, 42)                                                       \
    S(H, b, c, d, a, 6, 0x04881d05u, 23, 43)                                                       \
    S(H, a, b, c, d, 9, 0xd9d4d039u, 4, 44)                                                        \
    S(H, d, a, b, c, 12, 0xe6db99e5u, 11, 45)                                                      \
    S(H, c, d, a, b, 15, 0x1fa27cf8u, 16, 46)                                                      \
    S(H, b, c, d, a, 2, 0xc4ac5665u, 23, 47)                                                       \
    S(I, a, b, c, d, 0, 0xf4292244u, 6, 48)                                                        \
    S(I, d, a, b, c, 7, 0x432aff97u, 10, 49)                                                       \
    S(I, c, d, a, b, 14, 0xab9423a7u, 15, 50)                                                      \
    S(I, b, c, d, a, 5, 0xfc93a039u, 21, 51)                                                       \
    S(I, a, b, c, d, 12, 0x655b59c3u, 6, 52)                                                       \
    S(I, d, a, b, c, 3, 0x8f0ccc92u, 10, 53)                                                       \
    S(I, c, d, a, b, 10, 0xffeff47du, 15, 54)                                                      \
    S(I, b, c, d, a, 1, 0x85845dd1u, 21, 55)                                                       \
    S(I, a, b, c, d, 8, 0x6fa87e4fu, 6, 56)                                                        \
    S(I, d, a, b, c, 15, 0xfe2ce6e0u, 10, 57)                                                      \
    S(I, c, d, a, b, 6, 0xa3014314u, 15, 58)                                                       \
    S(I, b, c, d, a, 13, 0x4e0811a1u, 21, 59)                                                      \
    S(I, a, b, c, d, 4, 0xf7537e82u, 6, 60)                                                        \
    S(I, d, a, b, c, 11, 0xbd3af235u, 10, 61)                                                      \
    S(I, c, d, a, b, 2, 0x2ad7d2bbu, 15, 62)                                                       \
    S(I, b, c, d, a, 9, 0xeb86d391u, 21, 63)

/* The step constants, from memory: a kernel that uses them as immediates spends three
** instructions per step rebuilding each broadcast. */
extern const uint32_t merkle__md5_K[64];

/* Lane states, structure of arrays: state word w of lane l is s[w][l]. Copyable. */
typedef struct merkle__md5_mb {
    uint32_t s[4][MERKLE_MD5_MB_MAX_LANES];
} merkle__md5_mb;

typedef struct merkle__md5_mb_impl {
    const char *name; /* "portable", "avx2", "avx512" */
    unsigned lanes;   /* lanes this kernel runs at once (1, 8, 16) */
    int (*available)(void);
    /*
    ** For every lane l < lanes with data[l] != NULL: absorb nblocks 64-byte blocks from
    ** data[l] into lane l. Lanes with data[l] == NULL are left unchanged (the portable kernel
    ** serves every lane < MERKLE_MD5_MB_MAX_LANES). Reads exactly 64*nblocks bytes per lane.
    */
    void (*blocks)(merkle__md5_mb *st, const uint8_t *const data[MERKLE_MD5_MB_MAX_LANES],
                   size_t nblocks);
} merkle__md5_mb_impl;

/* Kernel tables (the SIMD ones exist only on x86-64 builds with MERKLE_HAVE_X86). */
extern const merkle__md5_mb_impl merkle__md5_mb_portable;
#ifdef MERKLE_HAVE_X86
extern const merkle__md5_mb_impl merkle__md5_mb_avx2;
extern const merkle__md5_mb_impl merkle__md5_mb_avx512;
#endif

/*
** The kernel in use: the widest one this CPU runs that passes its self-test, chosen on first
** call; env MERKLE_MD5_BACKEND=portable|avx2|avx512 overrides (ignored if unavailable).
** Never NULL. Thread-safe.
*/
const merkle__md5_mb_impl *merkle__md5_mb_get(void);

/*
** Force a kernel by name (tests, benchmarks); NULL or "auto" restores the automatic choice
** (the widest kernel that passes its self-test). MERKLE_ERR_UNSUPPORTED if this CPU lacks it,
** MERKLE_ERR_ARG for an unknown name, MERKLE_ERR_VERIFY if it fails its self-test (the rules
** of src/hash/dispatch.h). Not thread-safe against concurrent hashing.
*/
merkle_status merkle__md5_mb_set(const char *name);

/* Look up a kernel by name without selecting it; NULL if unknown or not built. */
const merkle__md5_mb_impl *merkle__md5_mb_find(const char *name);

/* Set lane `lane` to the MD5 initial state. */
void merkle__md5_mb_lane_init(merkle__md5_mb *st, unsigned lane);

/*
** Finish lane `lane`: absorb tail[0..tail_len) (any length; full blocks go through the scalar
** compression) then MD5 padding for a message of total_len bytes in all; writes the 16-byte
** digest to out. The lane state is left consumed (re-init before reuse).
*/
void merkle__md5_mb_lane_final(merkle__md5_mb *st, unsigned lane, const uint8_t *tail,
                               size_t tail_len, uint64_t total_len, uint8_t out[16]);

/* Scalar MD5 compression of nblocks 64-byte blocks into state[4] (portable C). */
void merkle__md5_compress(uint32_t state[4], const uint8_t *p, size_t nblocks);

/* One-shot scalar MD5 (portable C), for tests and small inputs. */
void merkle__md5(uint8_t out[16], const void *data, size_t len);

/* The MD5 padding for a message of total_len bytes whose last tail_len = total_len % 64 bytes
** are already at p[0..tail_len); returns the number of bytes written after them (so that
** tail_len + result is 64 or 128). p must have room for 128 bytes. */
size_t merkle__md5_pad(uint8_t *p, size_t tail_len, uint64_t total_len);
/* The 16-byte digest of the state words v[0..4). */
void merkle__md5_store_digest(uint8_t out[16], const uint32_t v[4]);

/* The file engine built on these kernels is in src/io/md5_files.h. */

#endif
