/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle/bitcoin.h: transaction IDs and the transaction list of a block, from raw Bitcoin
** data (the serialization of Bitcoin Core's CTransaction and CBlock, BIP 144 for witnesses).
**
** A transaction's txid is SHA-256d of its serialization without the BIP 144 marker, flag and
** witnesses; its wtxid is SHA-256d of all of it (equal to the txid for a transaction without
** witnesses). Both are in internal byte order (the reverse of what block explorers show).
** Sizes are CompactSize integers, refused when not minimally encoded (Bitcoin Core's
** "non-canonical ReadCompactSize()"). Nothing is allocated except by the _alloc function.
*/
#ifndef MERKLE_BITCOIN_H
#define MERKLE_BITCOIN_H

#include <stddef.h>
#include <stdint.h>

#include "merkle/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
** Parse the one transaction at the start of tx[0..len): txid and wtxid (either may be NULL),
** *consumed (may be NULL) its length in bytes, *segwit (may be NULL) 1 when it carries
** witness data. Trailing bytes are left alone (a block holds transactions back to back).
** Errors: MERKLE_ERR_FORMAT (truncated, a non-minimal CompactSize, a count larger than the
** bytes left could hold, a marker without the flag 1, witness marker with no inputs, a
** witness section that is all empty; err->offset: where), MERKLE_ERR_ARG.
*/
MERKLE_API merkle_status merkle_bitcoin_tx_id(uint8_t txid[MERKLE_HASH_LEN],
                                              uint8_t wtxid[MERKLE_HASH_LEN], size_t *consumed,
                                              int *segwit, const uint8_t *tx, size_t len,
                                              merkle_error *err);

/* What merkle_bitcoin_block_txids_alloc found in a block besides its txids. */
typedef struct merkle_bitcoin_block {
    uint8_t header_root[MERKLE_HASH_LEN];  /* the header's merkle root field (internal order) */
    uint64_t ntx;                          /* transactions */
    int segwit;                            /* some transaction carries witness data */
    int has_commitment;                    /* the coinbase has a BIP 141 witness commitment */
    uint8_t commitment[MERKLE_HASH_LEN];   /* that commitment (when has_commitment) */
    uint8_t witness_root[MERKLE_HASH_LEN]; /* root of the wtxids, the coinbase's as zero */
} merkle_bitcoin_block;

/*
** Parse a whole serialized block (80-byte header, CompactSize count, the transactions, nothing
** after them) into *txids, an array of info->ntx txids in block order that this function
** allocates (free it with merkle_bitcoin_free), and *info. The witness commitment is checked:
** with one (the last coinbase output whose script starts 6a24aa21a9ed), the coinbase's witness
** must be one 32-byte item and SHA-256d(witness_root || item) must equal it; without one, no
** transaction may carry witness data. The header's merkle root is only reported: compare it
** with the root of *txids (merkle_shape_root, bitcoin profile) to know the list is the block's.
** Errors: MERKLE_ERR_FORMAT (as merkle_bitcoin_tx_id; no transactions; trailing bytes; err->line
** is the 1-based transaction), MERKLE_ERR_VERIFY (the commitment does not match, or witness
** data without a commitment; *txids is still returned), MERKLE_ERR_NOMEM, MERKLE_ERR_ARG.
*/
MERKLE_API merkle_status merkle_bitcoin_block_txids_alloc(uint8_t (**txids)[MERKLE_HASH_LEN],
                                                          merkle_bitcoin_block *info,
                                                          const uint8_t *block, size_t len,
                                                          merkle_error *err);

/* Release an array returned by merkle_bitcoin_block_txids_alloc. NULL is a no-op. */
MERKLE_API void merkle_bitcoin_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
