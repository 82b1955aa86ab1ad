/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle/verity.h: the Merkle trees of Linux fs-verity and dm-verity (SHA-256).
**
** Both cut the data into blocks of block_size bytes, hash each block as
** SHA-256(salt || block), pack the 32-byte hashes into blocks of the same size (the last one
** of a level zero-padded) and hash those the same way, level by level, until one hash is
** left: the root hash. One block of data: its hash is the root.
**
**   MERKLE_VERITY_FSVERITY  fs-verity (Documentation/filesystems/fsverity.rst): the salt is
**                           zero-padded to 64 bytes (the SHA-256 block) before it is
**                           prepended; a short last data block is zero-padded; an empty file
**                           has a zero root. The *file digest* `fsverity digest` prints is
**                           SHA-256 of the 256-byte fsverity_descriptor (version 1, hash
**                           algorithm 1, log2 block size, salt size, data size, root, salt).
**                           Block sizes: powers of two from 1024 to 65536; salt <= 32 bytes.
**   MERKLE_VERITY_DMVERITY  dm-verity hash format 1 (veritysetup format): the salt is
**                           prepended as it is; the data is floor(len / block_size) whole
**                           blocks (veritysetup ignores a partial tail, and so does this);
**                           no whole block is an error. Block sizes: powers of two from 512
**                           to 65536 (data and hash blocks of one size); salt <= 256 bytes.
**                           merkle_verity_hash_tree writes the hash device veritysetup
**                           verify reads: a superblock, then the levels, the top one first.
**
** The data is streamed: full blocks are hashed in batches by the multi-lane SHA-256 kernels,
** straight from the caller's buffer. The hashes of the data blocks are kept (32 bytes per
** block: 8 MiB per GiB of 4 KiB blocks) and the upper levels built at the end.
*/
#ifndef MERKLE_VERITY_H
#define MERKLE_VERITY_H

#include "merkle/hash.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum merkle_verity_format {
    MERKLE_VERITY_FSVERITY = 1,
    MERKLE_VERITY_DMVERITY = 2
} merkle_verity_format;

/* Size of a dm-verity superblock on the hash device (padded to the block size there). */
#define MERKLE_VERITY_SUPERBLOCK_SIZE 512

/* A streaming verity tree. Opaque; merkle_verity_free releases it. */
typedef struct merkle_verity merkle_verity;

/*
** Start a tree. salt may be NULL when salt_len is 0. Errors: MERKLE_ERR_ARG (bad format,
** block size or salt length, NULL out), MERKLE_ERR_NOMEM.
*/
MERKLE_API merkle_status merkle_verity_alloc(merkle_verity **out, merkle_verity_format format,
                                             size_t block_size, const uint8_t *salt,
                                             size_t salt_len, merkle_error *err);
MERKLE_API void merkle_verity_free(merkle_verity *v);

/*
** Append data; pieces of any size. Errors: MERKLE_ERR_STATE after finish, MERKLE_ERR_NOMEM
** (the block hashes grow), MERKLE_ERR_ARG (NULL with a length).
*/
MERKLE_API merkle_status merkle_verity_write(merkle_verity *v, const void *data, size_t len);

/*
** Finish: the root hash, and for fs-verity the file digest (digest may be NULL; it is
** MERKLE_ERR_ARG to ask for one from a dm-verity tree). Errors: MERKLE_ERR_STATE when called
** twice, MERKLE_ERR_RANGE (dm-verity without one whole block), MERKLE_ERR_NOMEM.
*/
MERKLE_API merkle_status merkle_verity_finish(uint8_t root[MERKLE_HASH_LEN],
                                              uint8_t digest[MERKLE_HASH_LEN], merkle_verity *v);

/* Bytes written so far, and the bytes at the end that no block covers (dm-verity's tail). */
MERKLE_API uint64_t merkle_verity_data_size(const merkle_verity *v);
MERKLE_API uint64_t merkle_verity_uncovered(const merkle_verity *v);

/*
** After finish, dm-verity only: the hash device image -- one block holding the superblock
** (hash type 1, "sha256", the block sizes, data block count, salt and uuid; uuid NULL: one
** derived from the root and salt), then every level of hash blocks from the top down -- as
** `veritysetup format` writes it. Writes up to cap bytes, *out_len the size
** (MERKLE_ERR_BUFFER when cap is small; query with out NULL and cap 0). Errors:
** MERKLE_ERR_STATE before finish, MERKLE_ERR_ARG for an fs-verity tree.
*/
MERKLE_API merkle_status merkle_verity_hash_tree(uint8_t *out, size_t cap, size_t *out_len,
                                                 const uint8_t *uuid, const merkle_verity *v);

/*
** One call over a buffer: the root and (fs-verity) the file digest. Errors as above.
*/
MERKLE_API merkle_status merkle_verity_digest(uint8_t root[MERKLE_HASH_LEN],
                                              uint8_t digest[MERKLE_HASH_LEN],
                                              merkle_verity_format format, size_t block_size,
                                              const uint8_t *salt, size_t salt_len,
                                              const void *data, size_t len, merkle_error *err);

#ifdef __cplusplus
}
#endif
#endif
