/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Shared by the shaped-profile sources of `merkle root` / `merkle proof` (shaped.c: reading
** hashes, roots, proofs; shaped_bt.c: BEP 52 file hashing). The entry points are in rootio.h.
*/
#ifndef MERKLE_CLI_SHAPED_H
#define MERKLE_CLI_SHAPED_H

#include <stddef.h>
#include <stdint.h>

#include "merkle/shape.h"
#include "rootio.h"

typedef uint8_t node_t[MERKLE_HASH_LEN];

/* The merkle_shape of the options (profile, hash; ssz: limit, mix-in). */
void shaped_shape_from_opts(const root_opts *o, merkle_shape *s);

/* Receives n leaf hashes in order; non-zero stops (having printed its own message). */
typedef int (*bt_window_fn)(void *ctx, const node_t *leaves, size_t n);

/* The 16 KiB block hashes of file `name` (or a stream) handed to fn a window at a time;
** *nblocks: how many. 0, or -1 after a message. */
int shaped_bt_stream(const root_opts *o, const char *name, bt_window_fn fn, void *ctx,
                     uint64_t *nblocks);

/* The BEP 52 pieces root of file `name`; res->leaf_count the block count. 0, or -1. */
int shaped_bt_root(const root_opts *o, const char *name, uint8_t root[MERKLE_HASH_LEN],
                   root_result *res);

#endif
