/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle/trie.h: a Merkle radix trie whose node IDs are byte-compatible with avalanchego
** x/merkledb (byte-level rules: docs/formats.md section 2), proofs for one key, and cb58.
**
** Keys are byte strings (bit strings of 8*len bits); the trie walks them in tokens of
** log2(branch factor) bits (branch factor 2, 4, 16 or 256). The trie is canonical and
** path-compressed: its shape, hence its root ID, depends only on the key/value set, never on
** insertion order or deletions. A present key with an empty value is distinct from an absent
** key. The root ID of an empty trie is 32 zero bytes.
**
** IDs are computed lazily: merkle_trie_root() hashes only the nodes changed since the last
** call, bottom-up, optionally on several threads. Nodes live in a pool owned by the trie.
**
** Thread safety: a merkle_trie is not internally locked. Any number of threads may call the
** const functions (get, foreach, size, memory) at once when no thread modifies the trie;
** put, delete, root and prove need exclusive access. merkle_trie_root() may start worker
** threads itself; none outlives the call. All other functions are reentrant.
*/
#ifndef MERKLE_TRIE_H
#define MERKLE_TRIE_H

#include "merkle/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Length of a node ID (SHA-256). */
#define MERKLE_TRIE_ID_LEN 32
/* Largest key and value accepted by put, in bytes (node key lengths are 32-bit bit counts). */
#define MERKLE_TRIE_MAX_KEY   ((size_t)1 << 28)
#define MERKLE_TRIE_MAX_VALUE ((size_t)0xffffffffu)
/* cb58 strings of an ID: 50 characters at most (plus NUL). */
#define MERKLE_TRIE_CB58_ID_MAX 51
/* Largest payload merkle_trie_cb58_decode accepts, in bytes. */
#define MERKLE_TRIE_CB58_MAX_BYTES 1024

typedef struct merkle_trie merkle_trie;

/*
** Create an empty trie with the given branch factor (2, 4, 16 or 256; 16 is merkledb's
** default). Allocates: release with merkle_trie_free(). Errors: MERKLE_ERR_ARG (bad branch
** factor or NULL out), MERKLE_ERR_NOMEM.
*/
MERKLE_API merkle_status merkle_trie_alloc(merkle_trie **out, unsigned branch_factor);

/* Release a trie and all its nodes. NULL is a no-op. */
MERKLE_API void merkle_trie_free(merkle_trie *t);

/* The branch factor the trie was created with. */
MERKLE_API unsigned merkle_trie_branch_factor(const merkle_trie *t);

/* Number of keys present. */
MERKLE_API uint64_t merkle_trie_size(const merkle_trie *t);

/* Bytes of heap the trie holds (pool slabs, large blocks and bookkeeping). */
MERKLE_API size_t merkle_trie_memory(const merkle_trie *t);

/*
** Insert or replace key -> value. value_len 0 stores a present, empty value (value may then
** be NULL), which is not the same as an absent key. The bytes are copied. Errors:
** MERKLE_ERR_ARG (NULL with a non-zero length), MERKLE_ERR_RANGE (key longer than
** MERKLE_TRIE_MAX_KEY or value longer than MERKLE_TRIE_MAX_VALUE), MERKLE_ERR_NOMEM (the trie
** is unchanged).
*/
MERKLE_API merkle_status merkle_trie_put(merkle_trie *t, const uint8_t *key, size_t key_len,
                                         const uint8_t *value, size_t value_len);

/*
** Put n pairs at once: keys[i] (key_lens[i] bytes) -> values[i] (value_lens[i] bytes), as if
** by merkle_trie_put in order (a later duplicate key wins). The batch is sorted first
** (allocating an index, freed before returning); into an EMPTY trie it is then built in one
** sorted pass that hashes every node as soon as it is complete, with good memory locality,
** so the following merkle_trie_root has nothing left to do. Into a non-empty trie the pairs
** are put in key order, each key's path fetched into cache ahead of its put: a commit of many
** changes is cheaper as one batch than as single puts. Errors: MERKLE_ERR_ARG, MERKLE_ERR_RANGE
** (checked for every item
** before anything changes), MERKLE_ERR_NOMEM (an empty trie stays empty; a non-empty trie
** may hold a key-ordered prefix of the batch).
*/
MERKLE_API merkle_status merkle_trie_put_batch(merkle_trie *t, const uint8_t *const *keys,
                                               const size_t *key_lens, const uint8_t *const *values,
                                               const size_t *value_lens, size_t n,
                                               merkle_error *err);

/*
** Remove key. *found (may be NULL) receives 1 if it was present, else 0; removing an absent
** key is not an error. Errors: MERKLE_ERR_ARG.
*/
MERKLE_API merkle_status merkle_trie_delete(int *found, merkle_trie *t, const uint8_t *key,
                                            size_t key_len);

/*
** Look key up. *found receives 1 if present. If present, *value_len receives the value
** length and, when cap >= that length, the value is copied to value (which may be NULL when
** cap is 0); otherwise MERKLE_ERR_BUFFER is returned (with *found and *value_len set).
** Errors: MERKLE_ERR_ARG, MERKLE_ERR_BUFFER.
*/
MERKLE_API merkle_status merkle_trie_get(uint8_t *value, size_t cap, size_t *value_len, int *found,
                                         const merkle_trie *t, const uint8_t *key, size_t key_len);

/*
** Visitor for merkle_trie_foreach: key and value point into the trie and stay valid for the
** duration of the call only. Return 0 to continue, non-zero to stop the walk.
*/
typedef int (*merkle_trie_visit_fn)(void *ctx, const uint8_t *key, size_t key_len,
                                    const uint8_t *value, size_t value_len);

/*
** Call fn for every key in ascending key order (bytewise, a prefix before its extensions).
** The visitor must not modify the trie. Allocates a walk stack (freed before returning).
** Errors: MERKLE_ERR_ARG, MERKLE_ERR_NOMEM. A visitor that stops the walk is not an error.
*/
MERKLE_API merkle_status merkle_trie_foreach(const merkle_trie *t, merkle_trie_visit_fn fn,
                                             void *ctx);

/*
** Apply operations written in the text format of `merkle trie` (docs/trie.md) to t, in
** order: one per line, "put KEYHEX VALUEHEX" or "del KEYHEX", fields separated by blanks
** (space, tab, CR), a lone "-" for an empty key or an empty (present) value, blank lines and
** '#' comments (a field starting with '#' comments out the rest of the line) ignored.
** scratch (scratch_cap bytes, caller-owned) holds the decoded key and value of one line: a
** line needs (length of its hex fields) / 2 bytes; a larger scratch lets runs of consecutive
** puts be applied together with merkle_trie_put_batch (much faster for big texts; the result
** is the same as in order). *ops (may be NULL) receives the number of operations applied.
** Stops at the first bad line, with the operations before it applied.
** Errors: MERKLE_ERR_FORMAT (err->line is the 1-based line, err->offset its byte offset,
** err->message says what is wrong), MERKLE_ERR_BUFFER (scratch too small for that line),
** MERKLE_ERR_RANGE / MERKLE_ERR_NOMEM from put (after MERKLE_ERR_NOMEM in a run of puts, the
** trie may hold part of that run), MERKLE_ERR_ARG. Allocates trie nodes and, for runs of
** puts, an index and put_batch's sort arrays (freed before returning).
*/
MERKLE_API merkle_status merkle_trie_apply_text(uint64_t *ops, merkle_trie *t, const char *text,
                                                size_t len, uint8_t *scratch, size_t scratch_cap,
                                                merkle_error *err);

/*
** Root ID of the trie (32 zero bytes when empty). Hashes the nodes changed since the last
** call, children before parents, level by level; with threads > 1, each level (or, after
** deletes, independent changed subtrees) is shared out among up to `threads` threads (0 is
** taken as 1), all joined before returning. Allocates temporary lists. Errors: MERKLE_ERR_ARG,
** MERKLE_ERR_NOMEM (the trie stays consistent; call again). err may be NULL.
*/
MERKLE_API merkle_status merkle_trie_root(uint8_t out[MERKLE_TRIE_ID_LEN], merkle_trie *t,
                                          unsigned threads, merkle_error *err);

/* A child entry for merkle_trie_hash_node: token index (< 256) and the child's ID. */
typedef struct merkle_trie_child {
    uint32_t index;
    uint8_t id[MERKLE_TRIE_ID_LEN];
} merkle_trie_child;

/*
** ID of one node, as merkledb's sha256Hasher.HashNode: key is the node's full key of
** key_bits bits (ceil(key_bits/8) bytes; unused low bits of the last byte must be zero);
** has_value selects Some(value) (value_len may be 0) or Nothing; children must be in strictly
** ascending index order, n <= 256. Allocates nothing. Errors: MERKLE_ERR_ARG (NULL with a
** non-zero length, unsorted or out-of-range index, nonzero key padding).
*/
MERKLE_API merkle_status merkle_trie_hash_node(uint8_t out[MERKLE_TRIE_ID_LEN], const uint8_t *key,
                                               size_t key_bits, int has_value, const uint8_t *value,
                                               size_t value_len, const merkle_trie_child *children,
                                               size_t n);

/*
** Proof that key is present (with its value) or absent, for the trie's current root: the
** nodes on the key's lookup path, root first. Format (docs/trie.md, version 1):
**   "MTRP" 01 | token_bits(1) | present(1) | uvarint(key_len) key
**   | [present: uvarint(value_len) value] | uvarint(n) | n node preimages (root first),
** each node exactly the bytes its ID is the SHA-256 of. Computes the root first if needed.
** Writes at most cap bytes; *out_len always receives the needed size. Errors:
** MERKLE_ERR_BUFFER (cap too small; out may be NULL when cap is 0), MERKLE_ERR_ARG,
** MERKLE_ERR_RANGE, MERKLE_ERR_NOMEM.
*/
MERKLE_API merkle_status merkle_trie_prove(uint8_t *out, size_t cap, size_t *out_len,
                                           merkle_trie *t, const uint8_t *key, size_t key_len,
                                           merkle_error *err);

/* What a verified proof states. Pointers point into the proof buffer passed to verify. */
typedef struct merkle_trie_proof_info {
    unsigned branch_factor;
    int present;        /* 1: key is in the trie with value; 0: key is absent */
    const uint8_t *key; /* the key the proof is about */
    size_t key_len;
    const uint8_t *value; /* present only; may be non-NULL with value_len 0 */
    size_t value_len;
    size_t nodes; /* nodes on the path */
} merkle_trie_proof_info;

/*
** Check a proof against a trusted root ID. On MERKLE_OK, *info (may be NULL) says which key
** the proof is about and whether it is present (and with what value): the caller must check
** that info->key is the key it asked about. Allocates nothing; reads only proof[0..len).
** Errors: MERKLE_ERR_FORMAT (not a well-formed version-1 proof: truncated, trailing bytes,
** non-canonical varint, bad flags, unsorted children, nonzero key padding, ...),
** MERKLE_ERR_VERIFY (well-formed, but a node does not hash to the ID its parent or the root
** names, the path is not the key's lookup path, or the value does not match). err->message
** says what and err->offset where.
*/
MERKLE_API merkle_status merkle_trie_proof_verify(merkle_trie_proof_info *info,
                                                  const uint8_t root[MERKLE_TRIE_ID_LEN],
                                                  const uint8_t *proof, size_t len,
                                                  merkle_error *err);

/* What a caller claims a trie proof proves (merkle_trie_proof_verify_claim). */
typedef enum merkle_trie_claim_kind {
    MERKLE_TRIE_CLAIM_PRESENT = 1, /* key is in the trie, with any value */
    MERKLE_TRIE_CLAIM_VALUE = 2,   /* key is in the trie with exactly value[0..value_len) */
    MERKLE_TRIE_CLAIM_ABSENT = 3   /* key is not in the trie */
} merkle_trie_claim_kind;

/*
** merkle_trie_proof_verify with the claim bound, the rule of `merkle trie verify --key
** [--value | --absent]`: MERKLE_OK only when the proof verifies against root AND states
** exactly the claim -- key[0..key_len) (a proof of another key fails), the kind (present with
** value, present, absent), and branch_factor unless it is 0. Every failure of the claim is
** MERKLE_ERR_VERIFY with err->message saying what the proof states instead; a malformed
** proof MERKLE_ERR_FORMAT; MERKLE_ERR_ARG for a NULL root/proof, a NULL key with key_len > 0,
** an unknown kind, or a NULL value with value_len > 0. Allocates nothing.
*/
MERKLE_API merkle_status merkle_trie_proof_verify_claim(const uint8_t root[MERKLE_TRIE_ID_LEN],
                                                        const uint8_t *proof, size_t len,
                                                        const uint8_t *key, size_t key_len,
                                                        merkle_trie_claim_kind kind,
                                                        const uint8_t *value, size_t value_len,
                                                        unsigned branch_factor, merkle_error *err);

/*
** cb58 (avalanchego ids.ID string form): base58 (Bitcoin alphabet) of in || the last 4 bytes
** of SHA-256(in). Writes the string and a NUL; *out_len receives the string length (without
** the NUL) in every case. n <= MERKLE_TRIE_CB58_MAX_BYTES. Errors: MERKLE_ERR_BUFFER (cap <
** length + 1), MERKLE_ERR_ARG, MERKLE_ERR_RANGE. Allocates nothing.
*/
MERKLE_API merkle_status merkle_trie_cb58_encode(char *out, size_t cap, size_t *out_len,
                                                 const uint8_t *in, size_t n);

/*
** Decode a cb58 string of len characters: checks the alphabet and the 4-byte checksum, and
** writes the payload (at most MERKLE_TRIE_CB58_MAX_BYTES). Errors: MERKLE_ERR_FORMAT (bad
** character, too short for a checksum, checksum mismatch), MERKLE_ERR_BUFFER (cap too small;
** *out_len says how much is needed), MERKLE_ERR_RANGE (payload too long), MERKLE_ERR_ARG.
** Allocates nothing.
*/
MERKLE_API merkle_status merkle_trie_cb58_decode(uint8_t *out, size_t cap, size_t *out_len,
                                                 const char *s, size_t len, merkle_error *err);

/*
** Parse an ID given as 64 hex digits or as its cb58 string (which must decode to exactly 32
** bytes). Errors: MERKLE_ERR_FORMAT (with detail in err), MERKLE_ERR_ARG.
*/
MERKLE_API merkle_status merkle_trie_id_parse(uint8_t out[MERKLE_TRIE_ID_LEN], const char *s,
                                              merkle_error *err);

#ifdef __cplusplus
}
#endif
#endif
