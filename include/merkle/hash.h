/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle/hash.h: the digest layer.
**
** Three call shapes for each tree digest (SHA-256, BLAKE2b-256):
**   one-shot     merkle_sha256_hash(out, data, len)
**   streaming    a caller-owned context (plain struct, no interior pointers, copyable)
**   batch        N messages of equal length at once: the shape Merkle levels need, served
**                by multi-lane / interleaved kernels chosen once at run time.
**
** BLAKE2b-256 is unkeyed BLAKE2b with the digest-length parameter set to 32 (Go
** blake2b.Sum256, Python hashlib.blake2b(digest_size=32)); it is not BLAKE2b-512 cut short.
**
** Thread safety: all functions are reentrant. The SHA-256 backend is chosen once, on first
** use, from the CPU features, a short calibration (the fastest measured kernel per message
** shape) and the MERKLE_BACKEND environment variable (portable|shani|shani2|shani4|avx2|
** avx512|auto); merkle_sha256_set_backend() changes it (tests, benchmarks; "auto" restores
** the calibrated choice) and must not race with hashing in other threads. The BLAKE2b-256
** batch kernel is chosen the same way (MERKLE_BLAKE2B_BACKEND=sodium|avx2|avx512|auto).
*/
#ifndef MERKLE_HASH_H
#define MERKLE_HASH_H

#include "merkle/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every digest of the library, in one enum (docs/library.md, rule 7). The values never change:
** they are stored in validation caches, directory-root leaves and binary proofs. Tree
** functions (tree.h, proof.h, shape.h, the generic hasher below) accept SHA256, BLAKE2B_256
** and KECCAK256 and refuse the others with MERKLE_ERR_ARG; checksum lists (manifest.h) accept
** MD5 .. BLAKE2B; AUTO means "detect" where a function says so. */
typedef enum merkle_hash_alg {
    MERKLE_HASH_AUTO = 0,        /* manifest parsing only: detect from the line */
    MERKLE_HASH_MD5 = 1,         /* checksum lists only */
    MERKLE_HASH_SHA1 = 2,        /* checksum lists only */
    MERKLE_HASH_SHA256 = 3,      /* trees and checksum lists */
    MERKLE_HASH_SHA512 = 4,      /* checksum lists only */
    MERKLE_HASH_BLAKE2B = 5,     /* checksum lists only: any length 1..64 bytes, b2sum: 64 */
    MERKLE_HASH_BLAKE2B_256 = 6, /* trees: unkeyed BLAKE2b with a 32-byte digest parameter */
    MERKLE_HASH_KECCAK256 = 7    /* trees: Keccak-256, original padding (Ethereum), not SHA3-256 */
} merkle_hash_alg;

/* Parse a tree digest name: "sha256" / "blake2b-256" (also "blake2b256") / "keccak256" (also
** "keccak-256"). MERKLE_ERR_ARG for anything else (checksum-list names:
** merkle_manifest_alg_from_name). */
MERKLE_API merkle_status merkle_hash_alg_from_name(merkle_hash_alg *out, const char *name);
/* Canonical lower-case name of any digest ("md5", "sha1", "sha256", "sha512", "blake2b",
** "blake2b-256", "keccak256"); NULL for AUTO or an invalid value. */
MERKLE_API const char *merkle_hash_alg_name(merkle_hash_alg alg);
/* Default digest length in bytes (MD5 16, SHA-1 20, SHA-512 and BLAKE2b 64, the others 32);
** 0 for AUTO or an invalid value. */
MERKLE_API size_t merkle_hash_alg_len(merkle_hash_alg alg);

/* ------------------------------------------------------------------ SHA-256 */

#define MERKLE_SHA256_LEN   32
#define MERKLE_SHA256_BLOCK 64

/* Streaming SHA-256 state. Plain data: put it on the stack, copy it to fork a hash. */
typedef struct merkle_sha256 {
    uint32_t state[8];
    uint64_t total;   /* bytes absorbed so far */
    uint8_t buf[64];  /* partial block */
    uint32_t buf_len; /* bytes in buf, < 64 */
} merkle_sha256;

MERKLE_API void merkle_sha256_init(merkle_sha256 *ctx);
/* Absorb len bytes; data may be NULL when len is 0. */
MERKLE_API void merkle_sha256_update(merkle_sha256 *ctx, const void *data, size_t len);
/* Write the digest; the context must be re-initialised before further use. */
MERKLE_API void merkle_sha256_final(merkle_sha256 *ctx, uint8_t out[MERKLE_SHA256_LEN]);
/* One-shot SHA-256 of data[0..len). */
MERKLE_API void merkle_sha256_hash(uint8_t out[MERKLE_SHA256_LEN], const void *data, size_t len);

/*
** Batch SHA-256, strided: for i < n,
**     out[32*i .. 32*i+32) = SHA-256(prefix[0..prefix_len) || base[i*stride .. i*stride+len))
** prefix may be NULL when prefix_len is 0; prefix_len must be <= 64. This is the shape of a
** Merkle level: leaves are (0x00, leaves, leaf_size, leaf_size), a level above is
** (0x01, children, 64, 64). out must not overlap the input. Allocates nothing.
** Errors: MERKLE_ERR_ARG (NULL with non-zero sizes, prefix_len > 64).
*/
MERKLE_API merkle_status merkle_sha256_batch_strided(uint8_t *out, const uint8_t *prefix,
                                                     size_t prefix_len, const uint8_t *base,
                                                     size_t stride, size_t len, size_t n);

/*
** Batch SHA-256 by pointer: out[32*i ..) = SHA-256(prefix || msgs[i][0..len)) for i < n.
** Same rules as merkle_sha256_batch_strided.
*/
MERKLE_API merkle_status merkle_sha256_batch(uint8_t *out, const uint8_t *prefix, size_t prefix_len,
                                             const uint8_t *const *msgs, size_t len, size_t n);

/*
** Name of the SHA-256 backend in use. Selects it if needed. A forced backend has its own
** name ("portable", "shani", "shani2", "shani4", "avx2", "avx512"); the automatic choice
** (default) is named after the kernels the start-up calibration picked: one name when one
** kernel won both message shapes, else "<short>+<long>" (e.g. "shani4+avx512": the first for
** messages of at most two blocks, the second for longer ones). See docs/kernels.md.
*/
MERKLE_API const char *merkle_sha256_backend(void);

/*
** Select a SHA-256 backend by name for this process (NULL or "auto": the calibrated
** automatic choice). MERKLE_ERR_UNSUPPORTED when this CPU lacks it, MERKLE_ERR_ARG for a name
** this build does not know. The same rules hold for every kernel family (src/hash/dispatch.h). The
** chosen backend is self-tested
** against known answers first; a backend that fails is refused (MERKLE_ERR_VERIFY).
** Not thread-safe with respect to concurrent hashing: call it before starting threads.
*/
MERKLE_API merkle_status merkle_sha256_set_backend(const char *name);

/*
** List the backends that this build has and this CPU supports, best first. Writes up to cap
** names into names (may be NULL when cap is 0) and returns how many there are in total.
*/
MERKLE_API size_t merkle_sha256_backends(const char **names, size_t cap);

/* ------------------------------------------------------------------ BLAKE2b-256 */

#define MERKLE_BLAKE2B_256_LEN 32

/* Streaming BLAKE2b state (digest length fixed at init). Holds libsodium's generichash state
** by value: plain data, copyable, no interior pointers. */
typedef struct merkle_blake2b {
    MERKLE_ALIGNAS(64) unsigned char opaque[384];
    uint32_t out_len;
} merkle_blake2b;

/* Initialise for an out_len-byte digest, 1 <= out_len <= 64 (32 for BLAKE2b-256).
** MERKLE_ERR_ARG for any other length. */
MERKLE_API merkle_status merkle_blake2b_init(merkle_blake2b *ctx, size_t out_len);
MERKLE_API void merkle_blake2b_update(merkle_blake2b *ctx, const void *data, size_t len);
/* Writes ctx->out_len bytes. */
MERKLE_API void merkle_blake2b_final(merkle_blake2b *ctx, uint8_t *out);
/* One-shot BLAKE2b-256. */
MERKLE_API void merkle_blake2b_256(uint8_t out[MERKLE_BLAKE2B_256_LEN], const void *data,
                                   size_t len);

/* ------------------------------------------------------------------ Keccak-256 */

/*
** Keccak-256 as Ethereum uses it (Solidity keccak256, web3 sha3): Keccak with rate 136 and
** the original padding 0x01 ... 0x80, not FIPS 202 SHA3-256 (0x06 ... 0x80) -- the two differ
** on every input. keccak256("") = c5d24601...5d85a470.
*/
#define MERKLE_KECCAK256_LEN 32

/* Streaming state: plain data, copyable. */
typedef struct merkle_keccak256 {
    uint64_t s[25]; /* the sponge, little-endian lanes */
    uint32_t pos;   /* bytes absorbed into the current block, < 136 */
} merkle_keccak256;

MERKLE_API void merkle_keccak256_init(merkle_keccak256 *ctx);
MERKLE_API void merkle_keccak256_update(merkle_keccak256 *ctx, const void *data, size_t len);
/* Write the digest; re-initialise before further use. */
MERKLE_API void merkle_keccak256_final(merkle_keccak256 *ctx, uint8_t out[MERKLE_KECCAK256_LEN]);
MERKLE_API void merkle_keccak256_hash(uint8_t out[MERKLE_KECCAK256_LEN], const void *data,
                                      size_t len);
/* Batch Keccak-256, strided, with the rules of merkle_sha256_batch_strided. */
MERKLE_API merkle_status merkle_keccak256_batch_strided(uint8_t *out, const uint8_t *prefix,
                                                        size_t prefix_len, const uint8_t *base,
                                                        size_t stride, size_t len, size_t n);

/* ------------------------------------------------------------------ generic */

/* A streaming context for any tree digest. Plain data, copyable. */
typedef struct merkle_hasher {
    merkle_hash_alg alg;
    union {
        merkle_sha256 sha256;
        merkle_blake2b blake2b;
        merkle_keccak256 keccak256;
    } u;
} merkle_hasher;

/* sizeof(merkle_hasher) and its alignment in this library (for bindings that allocate it). */
MERKLE_API size_t merkle_hasher_struct_size(void);
MERKLE_API size_t merkle_hasher_struct_align(void);

/* MERKLE_ERR_ARG for an algorithm that is not a tree digest. */
MERKLE_API merkle_status merkle_hasher_init(merkle_hasher *h, merkle_hash_alg alg);
MERKLE_API void merkle_hasher_update(merkle_hasher *h, const void *data, size_t len);
/* Writes MERKLE_HASH_LEN bytes. */
MERKLE_API void merkle_hasher_final(merkle_hasher *h, uint8_t out[MERKLE_HASH_LEN]);

/* One-shot digest with alg. MERKLE_ERR_ARG for an unknown algorithm. */
MERKLE_API merkle_status merkle_hash(uint8_t out[MERKLE_HASH_LEN], merkle_hash_alg alg,
                                     const void *data, size_t len);

/* Batch digest with alg (strided), as merkle_sha256_batch_strided. */
MERKLE_API merkle_status merkle_hash_batch_strided(uint8_t *out, merkle_hash_alg alg,
                                                   const uint8_t *prefix, size_t prefix_len,
                                                   const uint8_t *base, size_t stride, size_t len,
                                                   size_t n);

#ifdef __cplusplus
}
#endif
#endif
