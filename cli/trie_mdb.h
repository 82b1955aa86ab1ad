/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkledb proofs on the command line (cli/cmd_trie_mdb.c), called by cmd_trie.c.
*/
#ifndef MERKLE_CLI_TRIE_MDB_H
#define MERKLE_CLI_TRIE_MDB_H

#include <stddef.h>
#include <stdint.h>

#include "merkle/mdb.h"

/* `merkle trie prove-range|prove-change|verify-range|verify-change`: argv[0] is the action. */
int cmd_trie_mdb(const char *action, int argc, char **argv);
/* `merkle trie prove --format merkledb`: one hex sync.ProofNode per line. */
int trie_mdb_prove_key(unsigned bf, const uint8_t *key, size_t key_len, const char *file);
/* `merkle trie verify --format merkledb`. */
int trie_mdb_verify_key(const char *proof_name, const uint8_t root[32], unsigned bf,
                        const uint8_t *key, size_t key_len, merkle_mdb_maybe value);

#endif
