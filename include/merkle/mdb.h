/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle/mdb.h: avalanchego x/merkledb proofs over a merkle_trie: range proofs, change proofs
** (with a history of committed batches) and single-key proofs, encoded as the protobuf
** messages of avalanchego's proto/sync/sync.proto and verified verdict for verdict as the Go
** code does (docs/merkledb.md; the rules, quirks included, are ../shared/spec/merkledb-proofs.md).
**
** Verdicts. Every verifying or generating function fills a merkle_mdb_result: kind is
** MERKLE_MDB_OK or the merkledb sentinel Go reports (merkle_mdb_kind_name gives its name, e.g.
** "ErrInvalidProof", "sync.ErrInsufficientHistory"), message a readable reason (Go's text
** where it has one). Where Go panics on untrusted input (key lengths that are not whole tokens,
** a verifier branch factor other than the prover's, a key length of 2^64-1), these functions
** return MERKLE_MDB_ERR_INVALID_PROOF with a message saying so. Where Go's verdict depends on
** map order (change proofs whose deletions merge grafted nodes), key changes are applied in
** ascending key order, deterministically.
**
** Thread safety: none of these objects is locked; a proof may be read by several threads.
*/
#ifndef MERKLE_MDB_H
#define MERKLE_MDB_H

#include "merkle/common.h"
#include "merkle/trie.h"

#ifdef __cplusplus
extern "C" {
#endif

/* merkledb's default number of retained history entries. */
#define MERKLE_MDB_HISTORY_DEFAULT 300
/* Largest encoded proof the decoders accept, in bytes. */
#define MERKLE_MDB_MAX_PROOF ((size_t)1 << 30)

/* Verdict kinds: the Go sentinels (names in merkle_mdb_kind_name). */
typedef enum merkle_mdb_kind {
    MERKLE_MDB_OK = 0,
    MERKLE_MDB_ERR_INVALID_PROOF,                 /* ErrInvalidProof */
    MERKLE_MDB_ERR_INVALID_MAX_LENGTH,            /* ErrInvalidMaxLength */
    MERKLE_MDB_ERR_NON_INCREASING_VALUES,         /* ErrNonIncreasingValues */
    MERKLE_MDB_ERR_STATE_FROM_OUTSIDE_OF_RANGE,   /* ErrStateFromOutsideOfRange */
    MERKLE_MDB_ERR_NON_INCREASING_PROOF_NODES,    /* ErrNonIncreasingProofNodes */
    MERKLE_MDB_ERR_EMPTY_PROOF,                   /* ErrEmptyProof */
    MERKLE_MDB_ERR_NO_END_PROOF,                  /* ErrNoEndProof */
    MERKLE_MDB_ERR_PROOF_NODE_NOT_FOR_KEY,        /* ErrProofNodeNotForKey */
    MERKLE_MDB_ERR_EXCLUSION_MISSING_END_NODES,   /* ErrExclusionProofMissingEndNodes */
    MERKLE_MDB_ERR_EXCLUSION_UNEXPECTED_VALUE,    /* ErrExclusionProofUnexpectedValue */
    MERKLE_MDB_ERR_EXCLUSION_INVALID_NODE,        /* ErrExclusionProofInvalidNode */
    MERKLE_MDB_ERR_PROOF_VALUE_DOESNT_MATCH,      /* ErrProofValueDoesntMatch */
    MERKLE_MDB_ERR_PROOF_KEY_PARTIAL_BYTE,        /* ErrProofKeyPartialByte */
    MERKLE_MDB_ERR_PROOF_NODE_HAS_UNINCLUDED_VAL, /* ErrProofNodeHasUnincludedValue */
    MERKLE_MDB_ERR_UNEXPECTED_END_PROOF,          /* ErrUnexpectedEndProof */
    MERKLE_MDB_ERR_UNEXPECTED_START_PROOF,        /* ErrUnexpectedStartProof */
    MERKLE_MDB_ERR_PARTIAL_BYTE_WITH_VALUE,       /* ErrPartialByteLengthWithValue */
    MERKLE_MDB_ERR_START_AFTER_END,               /* ErrStartAfterEnd */
    MERKLE_MDB_ERR_VISIT_PATH_TO_KEY,             /* ErrVisitPathToKey */
    MERKLE_MDB_ERR_TOO_MANY_KEYS,                 /* errTooManyKeys */
    MERKLE_MDB_ERR_SAME_ROOT,                     /* errSameRoot */
    MERKLE_MDB_ERR_NIL_KEY,                       /* errNilKey */
    MERKLE_MDB_ERR_INVALID_KEY_LENGTH,            /* errInvalidKeyLength */
    MERKLE_MDB_ERR_CHILD_INDEX_TOO_LARGE,         /* errChildIndexTooLarge */
    MERKLE_MDB_ERR_NOT_FOUND,                     /* database.ErrNotFound */
    MERKLE_MDB_ERR_INVALID_HASH_LEN,              /* hashing.ErrInvalidHashLen */
    MERKLE_MDB_ERR_INSUFFICIENT_HISTORY,          /* sync.ErrInsufficientHistory */
    MERKLE_MDB_ERR_NO_END_ROOT,                   /* sync.ErrNoEndRoot */
    MERKLE_MDB_ERR_PROTO,                         /* proto: malformed protobuf */
    MERKLE_MDB_KIND_COUNT
} merkle_mdb_kind;

/* What a verification or a request came to. */
typedef struct merkle_mdb_result {
    int kind; /* a merkle_mdb_kind */
    char message[320];
} merkle_mdb_result;

/* Name of a kind: "ok", the Go sentinel's name ("ErrInvalidProof", "database.ErrNotFound",
** "proto", ...), or "unknown". Never NULL. */
MERKLE_API const char *merkle_mdb_kind_name(int kind);

/* A byte string that may be absent (Go's maybe.Maybe[[]byte]); some = 0 is Nothing. */
typedef struct merkle_mdb_maybe {
    const uint8_t *ptr;
    size_t len;
    int some;
} merkle_mdb_maybe;

/* One (index, ID) child of a proof node. */
typedef struct merkle_mdb_child {
    uint32_t index;
    uint8_t id[MERKLE_TRIE_ID_LEN];
} merkle_mdb_child;

/* A sync.ProofNode: key of key_bits bits (a decoded length of 2^64-k arrives as -k, as in
** Go), value digest (Maybe), children in ascending index (one per index). */
typedef struct merkle_mdb_node {
    const uint8_t *key; /* (key_bits + 7) / 8 bytes when key_bits >= 0; padding zero */
    size_t key_len;     /* bytes at key */
    int64_t key_bits;
    merkle_mdb_maybe value_or_hash;
    const merkle_mdb_child *children;
    size_t nchildren;
} merkle_mdb_node;

/* A key change (range proofs: value always Some; change proofs: Nothing = deleted). */
typedef struct merkle_mdb_kv {
    const uint8_t *key;
    size_t key_len;
    merkle_mdb_maybe value;
} merkle_mdb_kv;

/* A range or change proof (or, with only start_proof, a single-key proof path). Owns all the
** memory it points to; release with merkle_mdb_proof_free. */
typedef struct merkle_mdb_proof {
    merkle_mdb_node *start_proof;
    size_t nstart;
    merkle_mdb_node *end_proof;
    size_t nend;
    merkle_mdb_kv *kvs;
    size_t nkvs;
    void *mem_; /* private */
} merkle_mdb_proof;

/* Which message a proof is encoded as. */
typedef enum merkle_mdb_msg {
    MERKLE_MDB_RANGE_PROOF = 1, /* sync.RangeProof */
    MERKLE_MDB_CHANGE_PROOF = 2 /* sync.ChangeProof */
} merkle_mdb_msg;

/* Release a proof. NULL is a no-op. */
MERKLE_API void merkle_mdb_proof_free(merkle_mdb_proof *p);

/*
** Decode len bytes of a sync.RangeProof or sync.ChangeProof as Go's unmarshalProto does
** (unknown fields skipped, repeated map keys last-wins, merged Key messages, ...). Allocates
** *out. Errors: MERKLE_ERR_FORMAT with res->kind one of MERKLE_MDB_ERR_PROTO, _NIL_KEY,
** _INVALID_KEY_LENGTH, _CHILD_INDEX_TOO_LARGE, _INVALID_HASH_LEN; MERKLE_ERR_RANGE (len >
** MERKLE_MDB_MAX_PROOF); MERKLE_ERR_NOMEM; MERKLE_ERR_ARG.
*/
MERKLE_API merkle_status merkle_mdb_proof_decode(merkle_mdb_proof **out, merkle_mdb_result *res,
                                                 merkle_mdb_msg msg, const uint8_t *buf,
                                                 size_t len);

/*
** Deterministic proto3 encoding of p as msg (children ascending; for a range proof the kvs'
** values are written as bytes, Nothing as empty). Writes at most cap bytes; *out_len always
** receives the size needed. Errors: MERKLE_ERR_BUFFER, MERKLE_ERR_ARG (a negative key_bits).
*/
MERKLE_API merkle_status merkle_mdb_proof_encode(uint8_t *out, size_t cap, size_t *out_len,
                                                 const merkle_mdb_proof *p, merkle_mdb_msg msg);

/* Deterministic proto3 encoding of one sync.ProofNode (the lines of a key proof). Same
** contract as merkle_mdb_proof_encode. */
MERKLE_API merkle_status merkle_mdb_node_encode(uint8_t *out, size_t cap, size_t *out_len,
                                                const merkle_mdb_node *n);

/*
** Decode a single-key proof path: n encoded sync.ProofNode messages (bufs[i], lens[i] bytes)
** into *out->start_proof (nstart = n). Errors as merkle_mdb_proof_decode.
*/
MERKLE_API merkle_status merkle_mdb_path_decode(merkle_mdb_proof **out, merkle_mdb_result *res,
                                                const uint8_t *const *bufs, const size_t *lens,
                                                size_t n);

/* ------------------------------------------------------------------ database and history */

/* A merkle_trie plus merkledb's history of committed batches. */
typedef struct merkle_mdb_db merkle_mdb_db;

/*
** Create an empty database (branch factor 2, 4, 16 or 256) keeping the last history_len
** recorded commits (0 means MERKLE_MDB_HISTORY_DEFAULT); the empty root is recorded first, as
** merkledb does. Errors: MERKLE_ERR_ARG, MERKLE_ERR_NOMEM.
*/
MERKLE_API merkle_status merkle_mdb_db_alloc(merkle_mdb_db **out, unsigned branch_factor,
                                             size_t history_len);

/* Release a database. NULL is a no-op. */
MERKLE_API void merkle_mdb_db_free(merkle_mdb_db *db);

/* The database's current trie, for reading (get, foreach, root, merkle_mdb_prove_key). Change
** it only through merkle_mdb_db_commit. */
MERKLE_API merkle_trie *merkle_mdb_db_trie(merkle_mdb_db *db);

/* One operation of a batch: put key -> value (value may be NULL when value_len is 0) or,
** with del set, delete key. */
typedef struct merkle_mdb_op {
    const uint8_t *key;
    size_t key_len;
    const uint8_t *value;
    size_t value_len;
    int del;
} merkle_mdb_op;

/*
** Commit one batch (db.NewBatch, Put/Delete in order, Write): the last operation on a key
** wins; the commit is recorded in the history iff it puts a key or deletes a present one.
** *recorded (may be NULL) says whether it was. Errors: MERKLE_ERR_ARG, MERKLE_ERR_RANGE,
** MERKLE_ERR_NOMEM (the database may hold part of the batch and is then unusable for proofs).
*/
MERKLE_API merkle_status merkle_mdb_db_commit(merkle_mdb_db *db, const merkle_mdb_op *ops, size_t n,
                                              int *recorded, merkle_error *err);

/*
** GetRangeProof(start, end, max_length), or with at_root (not NULL) GetRangeProofAtRoot(at_root,
** ...): allocates *out. A request Go refuses returns MERKLE_ERR_STATE with res->kind
** (ErrStartAfterEnd, ErrInvalidMaxLength, ErrEmptyProof, sync.ErrInsufficientHistory).
** Errors: MERKLE_ERR_STATE, MERKLE_ERR_ARG, MERKLE_ERR_NOMEM.
*/
MERKLE_API merkle_status merkle_mdb_prove_range(merkle_mdb_proof **out, merkle_mdb_result *res,
                                                merkle_mdb_db *db, merkle_mdb_maybe start,
                                                merkle_mdb_maybe end, int64_t max_length,
                                                const uint8_t *at_root);

/*
** GetChangeProof(from_root, to_root, start, end, max_length) over the history; allocates *out.
** Refusals (MERKLE_ERR_STATE, res->kind): ErrStartAfterEnd, errSameRoot, ErrEmptyProof,
** ErrInvalidMaxLength, sync.ErrNoEndRoot, sync.ErrInsufficientHistory. Errors as above.
*/
MERKLE_API merkle_status merkle_mdb_prove_change(merkle_mdb_proof **out, merkle_mdb_result *res,
                                                 merkle_mdb_db *db, const uint8_t *from_root,
                                                 const uint8_t *to_root, merkle_mdb_maybe start,
                                                 merkle_mdb_maybe end, int64_t max_length);

/*
** getProof(key) on t: the path in out->start_proof (merkledb's order, root first) and, in
** *value, the key's value (Nothing for an exclusion proof; it points into t and is valid until
** t changes). Refusal: empty trie (MERKLE_ERR_STATE, ErrEmptyProof). Errors: MERKLE_ERR_ARG,
** MERKLE_ERR_NOMEM.
*/
MERKLE_API merkle_status merkle_mdb_prove_key(merkle_mdb_proof **out, merkle_mdb_maybe *value,
                                              merkle_mdb_result *res, merkle_trie *t,
                                              const uint8_t *key, size_t key_len);

/* ------------------------------------------------------------------ verification */

/*
** RangeProof.Verify(start, end, root, tokenSize(branch_factor), max_length): MERKLE_OK, or
** MERKLE_ERR_VERIFY with res->kind and message. Allocates scratch (freed before returning).
** Errors: MERKLE_ERR_VERIFY, MERKLE_ERR_ARG, MERKLE_ERR_NOMEM.
*/
MERKLE_API merkle_status merkle_mdb_verify_range(merkle_mdb_result *res, const merkle_mdb_proof *p,
                                                 merkle_mdb_maybe start, merkle_mdb_maybe end,
                                                 const uint8_t root[MERKLE_TRIE_ID_LEN],
                                                 unsigned branch_factor, int64_t max_length);

/*
** MerkleDB.VerifyChangeProof(proof, start, end, root, max_length) on a database holding db's
** key/values (db is not changed; its root is computed if needed). Same results as above.
*/
MERKLE_API merkle_status merkle_mdb_verify_change(merkle_mdb_result *res, const merkle_mdb_proof *p,
                                                  merkle_trie *db, merkle_mdb_maybe start,
                                                  merkle_mdb_maybe end,
                                                  const uint8_t root[MERKLE_TRIE_ID_LEN],
                                                  int64_t max_length);

/*
** Proof{Path: p->start_proof, Key: key, Value: value}.Verify(root, tokenSize(branch_factor)).
** Same results as above.
*/
MERKLE_API merkle_status merkle_mdb_verify_key(merkle_mdb_result *res, const merkle_mdb_proof *p,
                                               const uint8_t *key, size_t key_len,
                                               merkle_mdb_maybe value,
                                               const uint8_t root[MERKLE_TRIE_ID_LEN],
                                               unsigned branch_factor);

#ifdef __cplusplus
}
#endif
#endif
