/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle/sexp.h: CLVM trees (cons cells of atoms): tree hash, canonical serialization and
** back-reference ("compressed") serialization. Byte-level rules: docs/formats.md section 3.
**
** A merkle_sexp_store is an arena of atoms and pairs. A pair refers to earlier nodes only, so
** identical subtrees can be shared (the store holds a DAG) and every walk is iterative. Nodes
** are small integer handles (merkle_sexp_node) valid for the life of the store; they are
** never freed one by one. Parsing a back-reference serialization never expands a shared
** subtree: a 135-byte input that describes a 49 GB tree becomes a few dozen nodes.
**
** Memory: the store owns growable heap arrays (it is the allocating object of this module:
** merkle_sexp_store_init / merkle_sexp_store_free). Tree hashes are memoised per node inside
** the store, so each shared node is hashed once.
**
** Thread safety: a store is not synchronised. Distinct stores may be used from different
** threads. Functions taking a `const merkle_sexp_store *` may run concurrently with each
** other on one store; every other call needs exclusive access (tree hashing fills the memo).
*/
#ifndef MERKLE_SEXP_H
#define MERKLE_SEXP_H

#include <stddef.h>
#include <stdint.h>

#include "merkle/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Handle of a node in a store. Bit 31 set: an atom; clear: a pair. */
typedef uint32_t merkle_sexp_node;

/* Largest atom the serialization can express: 2^34 - 1 bytes. */
#define MERKLE_SEXP_MAX_ATOM_LEN ((uint64_t)0x3ffffffffULL)
/* Most nodes (atoms plus pairs) one store can hold. */
#define MERKLE_SEXP_MAX_NODES ((uint64_t)0x7fffffffULL)

/* Arena of atoms and pairs (opaque: merkle_sexp_store_alloc / merkle_sexp_store_free). */
typedef struct merkle_sexp_store merkle_sexp_store;

/*
** Limits for parsing. Every field must be set; merkle_sexp_limits_init() gives values fit
** for untrusted input of up to 64 MiB. A limit that is reached makes the parser stop with
** MERKLE_ERR_LIMIT (err->offset = where).
**   max_input  bytes the parser may consume
**   max_atom   largest atom length accepted (including back-reference path atoms)
**   max_nodes  nodes produced: each atom, pair and back reference counts one, and so does each
**              pair built to materialise the parse stack for a path that ends inside it
**   max_depth  largest number of pending operations (nesting of unfinished pairs)
*/
typedef struct merkle_sexp_limits {
    uint64_t max_input;
    uint64_t max_atom;
    uint64_t max_nodes;
    uint64_t max_depth;
} merkle_sexp_limits;

/* Parse flags (merkle_sexp_parse's uint32_t flags). */
typedef enum merkle_sexp_parse_flag {
    MERKLE_SEXP_BACKREFS = 1u << 0, /* accept the back-reference token fe (B.3) */
    MERKLE_SEXP_STRICT = 1u << 1    /* reject non-minimal atom encodings (8101, c001..) */
} merkle_sexp_parse_flag;

/* Fill *limits with the defaults: input 64 MiB, atom 64 MiB, 2^26 nodes, depth 2^20. */
MERKLE_API void merkle_sexp_limits_init(merkle_sexp_limits *limits);

/*
** A new empty store (ALLOCATES: merkle_sexp_store_free). Nothing more is allocated until
** nodes are added. MERKLE_ERR_ARG (out NULL), MERKLE_ERR_NOMEM.
*/
MERKLE_API merkle_status merkle_sexp_store_alloc(merkle_sexp_store **out);

/*
** Free the store and all its memory; every node handle becomes invalid. NULL is a no-op.
*/
MERKLE_API void merkle_sexp_store_free(merkle_sexp_store *store);

/*
** Drop all nodes but keep the allocated capacity (for reuse without reallocating).
*/
MERKLE_API void merkle_sexp_store_clear(merkle_sexp_store *store);

/* Number of atoms plus pairs in the store. */
MERKLE_API size_t merkle_sexp_store_count(const merkle_sexp_store *store);

/*
** Add an atom with a copy of data[0..len) (data may be NULL when len is 0).
** Errors: MERKLE_ERR_RANGE (len > MERKLE_SEXP_MAX_ATOM_LEN or the store is full),
** MERKLE_ERR_NOMEM, MERKLE_ERR_ARG (NULL out/store).
*/
MERKLE_API merkle_status merkle_sexp_atom_new(merkle_sexp_node *out, merkle_sexp_store *store,
                                              const uint8_t *data, size_t len);

/*
** Add the pair (left . right); both must be nodes of this store (they may be equal: that is
** sharing). Errors: MERKLE_ERR_ARG (bad handle), MERKLE_ERR_RANGE (store full),
** MERKLE_ERR_NOMEM.
*/
MERKLE_API merkle_status merkle_sexp_pair_new(merkle_sexp_node *out, merkle_sexp_store *store,
                                              merkle_sexp_node left, merkle_sexp_node right);

/* 1 if node is an atom, 0 if a pair. */
MERKLE_API int merkle_sexp_is_atom(merkle_sexp_node node);

/*
** The bytes of an atom: *data points into the store (valid until the store is next modified)
** and *len is its length. Errors: MERKLE_ERR_ARG (not an atom of this store).
*/
MERKLE_API merkle_status merkle_sexp_atom(const uint8_t **data, size_t *len,
                                          const merkle_sexp_store *store, merkle_sexp_node node);

/* Children of a pair. Errors: MERKLE_ERR_ARG (not a pair of this store). */
MERKLE_API merkle_status merkle_sexp_pair(merkle_sexp_node *left, merkle_sexp_node *right,
                                          const merkle_sexp_store *store, merkle_sexp_node node);

/*
** Parse one serialized value from in[0..len) into the store. *out receives the root,
** *consumed (may be NULL) the number of bytes read; trailing bytes are left alone (checking
** for them is the caller's job). flags: MERKLE_SEXP_BACKREFS to accept back references,
** MERKLE_SEXP_STRICT to reject non-minimal atom encodings. limits may be NULL for the
** defaults. Iterative; shared subtrees are never expanded.
** Errors (err->offset = byte offset of the offending token): MERKLE_ERR_FORMAT (truncated
** input, bad atom prefix, fe without back references, a path into an atom or past the parse
** stack, non-minimal atom in strict mode), MERKLE_ERR_LIMIT (a limit was reached),
** MERKLE_ERR_NOMEM. On failure the store is left as it was before the call.
*/
MERKLE_API merkle_status merkle_sexp_parse(merkle_sexp_node *out, size_t *consumed,
                                           merkle_sexp_store *store, const uint8_t *in, size_t len,
                                           uint32_t flags, const merkle_sexp_limits *limits,
                                           merkle_error *err);

/*
** Tree hash (sha256tree) of node: H(01 || atom), H(02 || left || right). Each node reachable
** from `node` is hashed at most once over the life of the store (memoised; shared nodes are
** hashed once), iteratively, with independent pairs hashed in SHA-256 batches.
** Errors: MERKLE_ERR_ARG (bad handle), MERKLE_ERR_NOMEM (memo arrays).
*/
MERKLE_API merkle_status merkle_sexp_tree_hash(uint8_t out[MERKLE_HASH_LEN],
                                               merkle_sexp_store *store, merkle_sexp_node node);

/*
** Length in bytes of the canonical serialization of node (the expanded tree; a DAG can be
** exponentially larger than the store). Time is linear in the number of distinct nodes.
** Errors: MERKLE_ERR_ARG, MERKLE_ERR_RANGE (larger than UINT64_MAX), MERKLE_ERR_NOMEM.
*/
MERKLE_API merkle_status merkle_sexp_serialized_length(uint64_t *len,
                                                       const merkle_sexp_store *store,
                                                       merkle_sexp_node node);

/*
** Canonical serialization of node into out[0..cap). *out_len receives the length written, or
** the length needed when the buffer is too small (MERKLE_ERR_BUFFER; nothing useful is
** written). Query the size first with merkle_sexp_serialized_length so that a DAG bomb cannot
** exhaust memory. Allocates only a walk stack.
** Errors: MERKLE_ERR_BUFFER, MERKLE_ERR_RANGE, MERKLE_ERR_ARG, MERKLE_ERR_NOMEM.
*/
MERKLE_API merkle_status merkle_sexp_serialize(uint8_t *out, size_t cap, size_t *out_len,
                                               const merkle_sexp_store *store,
                                               merkle_sexp_node node);

/*
** Back-reference serialization of node, in a buffer this function allocates (*out, release it
** with merkle_sexp_buffer_free) of length *out_len. Deterministic; decodes (B.3) to the same
** tree; never longer than the canonical serialization. It is the clvm_rs HEAD encoder
** (ReadCacheLookup, docs/formats.md section 3) over hash-consed node identities: its output equals
** clvm_rs HEAD's byte for byte, except that the total path-search work is bounded (256 steps per
** node plus 2^22): inputs built to make that search quadratic get fewer back references
** past the bound instead of quadratic time. All tables are keyed with a per-process random
** secret and use full 32-byte equality. max_out bounds the output (0: no bound besides
** SIZE_MAX). Also fills the store's tree-hash memo.
** Errors: MERKLE_ERR_LIMIT (output would exceed max_out), MERKLE_ERR_ARG, MERKLE_ERR_NOMEM.
*/
MERKLE_API merkle_status merkle_sexp_serialize_backrefs_alloc(uint8_t **out, size_t *out_len,
                                                              merkle_sexp_store *store,
                                                              merkle_sexp_node node,
                                                              uint64_t max_out, merkle_error *err);

/* Release a buffer returned by a merkle_sexp_*_alloc function. NULL is a no-op. */
MERKLE_API void merkle_sexp_buffer_free(uint8_t *buf);

/*
** Length prefix for an atom of len bytes that needs one (B.2): writes 1..5 bytes to
** prefix[0..5) and returns how many, or 0 when len > MERKLE_SEXP_MAX_ATOM_LEN.
*/
MERKLE_API size_t merkle_sexp_atom_prefix(uint8_t prefix[5], uint64_t len);

#ifdef __cplusplus
}
#endif
#endif
