/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle/tree.h: binary Merkle trees (RFC 6962 shape) over lists of leaves and byte streams.
**
** A profile fixes the leaf prefix (0x00), node prefix (0x01) and the root of an empty tree:
**
**   MERKLE_PROFILE_RFC6962  RFC 6962/9162 Merkle Tree Hash. Empty tree: H(""). Default hash
**                           SHA-256; BLAKE2b-256 allowed. Byte-compatible with CometBFT
**                           HashFromByteSlices, go-square merkle and NebulousLabs merkletree
**                           (for a non-empty input), with transparency-dev/merkle.
**   MERKLE_PROFILE_SIA      Sia crypto.MerkleRoot: default BLAKE2b-256 and 64-byte segments;
**                           an empty stream gives 32 zero bytes.
**
** The tree shape: ROOT(n=1) = H(0x00 || d); ROOT(n) = H(0x01 || ROOT(first k) || ROOT(rest)),
** k the largest power of two < n. Odd nodes are promoted, never duplicated.
**
** The streaming builder (merkle_tree) keeps only the roots of perfect subtrees, one per set
** bit of the leaf count, plus a fixed scratch area: O(log n) memory, no heap allocation at
** all. Leaves are hashed in batches and full power-of-two chunks are reduced level by level.
** A merkle_tree is large (8,768 bytes on x86-64, merkle_tree_struct_size()): keep one per
** thread; it holds no pointers and may be copied.
*/
#ifndef MERKLE_TREE_H
#define MERKLE_TREE_H

#include "merkle/hash.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum merkle_profile {
    MERKLE_PROFILE_RFC6962 = 1,
    MERKLE_PROFILE_SIA = 2,
    /* Other shapes (merkle/shape.h): not accepted by the streaming builder below. */
    MERKLE_PROFILE_BITCOIN = 3,      /* block transaction tree: SHA-256d, odd node duplicated */
    MERKLE_PROFILE_SSZ = 4,          /* Ethereum hash_tree_root: SHA-256, zero-hash padding */
    MERKLE_PROFILE_OPENZEPPELIN = 5, /* @openzeppelin/merkle-tree: Keccak-256, sorted pairs */
    MERKLE_PROFILE_BITTORRENT_V2 = 6 /* BEP 52 pieces root: SHA-256 of 16 KiB blocks, padded */
} merkle_profile;

/* Default leaf size of a byte stream for the rfc6962 profile (sia: 64). */
#define MERKLE_RFC6962_DEFAULT_LEAF_SIZE 4096
#define MERKLE_SIA_SEGMENT_SIZE          64

/* Leaf hashes buffered before a chunk is reduced level by level (a power of two). */
#define MERKLE_TREE_CHUNK 128

/* Parse "rfc6962" / "sia" / "bitcoin" / "ssz" / "openzeppelin" / "bittorrent-v2".
** MERKLE_ERR_ARG otherwise. */
MERKLE_API merkle_status merkle_profile_from_name(merkle_profile *out, const char *name);
/* Canonical name; NULL for an invalid value. */
MERKLE_API const char *merkle_profile_name(merkle_profile profile);
/* The default hash and stream leaf size of a profile (bitcoin, ssz, openzeppelin: 32, the
** size of a level-0 node; bittorrent-v2: 16384). MERKLE_ERR_ARG for a bad profile. */
MERKLE_API merkle_status merkle_profile_defaults(merkle_hash_alg *hash, size_t *leaf_size,
                                                 merkle_profile profile);

/*
** Root of the empty tree for a profile and hash: H("") for rfc6962, 32 zero bytes for sia.
*/
MERKLE_API merkle_status merkle_tree_empty_root(uint8_t out[MERKLE_HASH_LEN],
                                                merkle_profile profile, merkle_hash_alg hash);

/* Leaf hash H(0x00 || data). */
MERKLE_API merkle_status merkle_tree_leaf_hash(uint8_t out[MERKLE_HASH_LEN], merkle_hash_alg hash,
                                               const void *data, size_t len);
/* Interior node hash H(0x01 || left || right). */
MERKLE_API merkle_status merkle_tree_node_hash(uint8_t out[MERKLE_HASH_LEN], merkle_hash_alg hash,
                                               const uint8_t left[MERKLE_HASH_LEN],
                                               const uint8_t right[MERKLE_HASH_LEN]);

/* Streaming builder. All fields are private; use the functions below. */
typedef struct merkle_tree {
    uint32_t version; /* layout version, set by init */
    merkle_profile profile;
    merkle_hash_alg hash;
    size_t leaf_size;     /* leaf size for merkle_tree_write, > 0 */
    uint64_t count;       /* leaves in `stack` (a multiple of MERKLE_TREE_CHUNK) */
    uint64_t pending;     /* leaf hashes in `level` not yet reduced */
    uint64_t partial_len; /* bytes of the current partial stream leaf absorbed in `leaf` */
    int finished;
    merkle_hasher leaf;                               /* H(0x00 || partial leaf) in progress */
    uint8_t stack[MERKLE_MAX_DEPTH][MERKLE_HASH_LEN]; /* stack[h]: root of a 2^h subtree */
    uint8_t level[MERKLE_TREE_CHUNK][MERKLE_HASH_LEN];
    uint8_t scratch[MERKLE_TREE_CHUNK / 2][MERKLE_HASH_LEN];
} merkle_tree;

/*
** Initialise a builder. leaf_size is the leaf size used by merkle_tree_write (must be > 0
** even when only whole leaves are pushed; merkle_profile_defaults gives the profile's).
** Only the rfc6962 and sia profiles (see merkle/shape.h for the others).
** Errors: MERKLE_ERR_ARG for a bad profile or hash, or leaf_size == 0 (a stream cut into
** empty leaves never ends). Never allocates.
*/
MERKLE_API merkle_status merkle_tree_init(merkle_tree *t, merkle_profile profile,
                                          merkle_hash_alg hash, size_t leaf_size);

/*
** Append one leaf of any length (data may be NULL when len is 0): hashes H(0x00 || data).
** Errors: MERKLE_ERR_STATE after finish or while a partial stream leaf is pending,
** MERKLE_ERR_RANGE when the tree already holds 2^64 - 1 leaves.
*/
MERKLE_API merkle_status merkle_tree_push_leaf(merkle_tree *t, const void *data, size_t len);

/* Append a leaf whose hash H(0x00 || data) the caller already has. Errors as push_leaf. */
MERKLE_API merkle_status merkle_tree_push_leaf_hash(merkle_tree *t,
                                                    const uint8_t hash[MERKLE_HASH_LEN]);

/*
** Append bytes of a stream that is cut into leaves of leaf_size bytes. Pieces may have any
** size; a leaf may span calls. Full leaves that lie in `data` are hashed in place in batches
** (no copy). The last, short leaf is completed by merkle_tree_root.
** Errors: MERKLE_ERR_STATE after finish, MERKLE_ERR_RANGE on leaf-count overflow.
*/
MERKLE_API merkle_status merkle_tree_write(merkle_tree *t, const void *data, size_t len);

/* Number of leaves so far, counting a started partial stream leaf. */
MERKLE_API uint64_t merkle_tree_leaf_count(const merkle_tree *t);

/* sizeof(merkle_tree) and its alignment in this library (for bindings that allocate it). */
MERKLE_API size_t merkle_tree_struct_size(void);
MERKLE_API size_t merkle_tree_struct_align(void);

/*
** Finish and write the root. A started partial stream leaf becomes the last leaf. With no
** leaves at all, the profile's empty root is written and *is_empty (if not NULL) is set to
** 1 (0 otherwise). After this call only merkle_tree_init may be used on t.
*/
MERKLE_API merkle_status merkle_tree_root(uint8_t out[MERKLE_HASH_LEN], int *is_empty,
                                          merkle_tree *t);

/*
** Root of a list of n byte strings leaves[i] of lens[i] bytes in one call (CometBFT
** HashFromByteSlices for rfc6962 + SHA-256). leaves/lens may be NULL when n is 0.
*/
MERKLE_API merkle_status merkle_tree_root_list(uint8_t out[MERKLE_HASH_LEN], merkle_profile profile,
                                               merkle_hash_alg hash, const uint8_t *const *leaves,
                                               const size_t *lens, size_t n);

/*
** Root of a byte buffer cut into leaf_size leaves, the short last leaf included. An empty
** buffer gives the profile's empty root. MERKLE_ERR_ARG for leaf_size == 0.
*/
MERKLE_API merkle_status merkle_tree_root_bytes(uint8_t out[MERKLE_HASH_LEN],
                                                merkle_profile profile, merkle_hash_alg hash,
                                                size_t leaf_size, const void *data, size_t len);

/* ------------------------------------------------------------------ threads */

/*
** Reader for merkle_tree_root_parallel: fill buf with exactly len bytes of the input starting at
** offset. Called concurrently from several threads with disjoint ranges. Return MERKLE_OK, or
** an error status (MERKLE_ERR_IO for a short or failed read) which aborts the computation.
*/
typedef merkle_status (*merkle_read_at_fn)(void *ctx, void *buf, size_t len, uint64_t offset);

/*
** Root of an input of total_len bytes cut into leaf_size leaves, hashed on `threads` threads
** (0 or 1 = the calling thread only). The input is split into aligned pieces of 2^k leaves
** (a few MiB each); each thread hashes whole pieces into perfect-subtree roots, which the
** calling thread joins in order (a compact-range merge), so the root is the same for every
** thread count. All threads are joined before the call returns.
** Memory: allocates one read buffer per thread (1 MiB) and a window of piece roots; nothing
** grows with the input. read_at is called with disjoint ranges from several threads.
** Errors: MERKLE_ERR_ARG (bad profile/hash, leaf_size 0, NULL read_at), MERKLE_ERR_NOMEM,
** MERKLE_ERR_UNSUPPORTED if threads cannot be created, or the first error read_at returned.
** is_empty (may be NULL) is set as for merkle_tree_root.
*/
MERKLE_API merkle_status merkle_tree_root_parallel(uint8_t out[MERKLE_HASH_LEN], int *is_empty,
                                                   merkle_profile profile, merkle_hash_alg hash,
                                                   size_t leaf_size, uint64_t total_len,
                                                   merkle_read_at_fn read_at, void *ctx,
                                                   unsigned threads);

/*
** merkle_tree_root_bytes on `threads` threads: workers hash straight from data (no copy). Same
** root as merkle_tree_root_bytes for every thread count. Allocates only thread bookkeeping.
*/
MERKLE_API merkle_status merkle_tree_root_bytes_parallel(uint8_t out[MERKLE_HASH_LEN],
                                                         merkle_profile profile,
                                                         merkle_hash_alg hash, size_t leaf_size,
                                                         const void *data, size_t len,
                                                         unsigned threads);

#ifdef __cplusplus
}
#endif
#endif
