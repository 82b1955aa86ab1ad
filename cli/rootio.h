/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Input side shared by `root`, `proof` and `consistency`: options, and feeding a file (a
** byte stream or a hex leaf list) into a tree consumer.
*/
#ifndef MERKLE_CLI_ROOTIO_H
#define MERKLE_CLI_ROOTIO_H

#include "cli.h"

typedef struct root_opts {
    merkle_profile profile;
    merkle_hash_alg hash;
    size_t leaf_size;
    int leaves;      /* --leaves: hex leaf per line */
    unsigned threads;
    int threads_given; /* -j N with N > 0 (else threads is the core count) */
    int quiet;
    int mpi;         /* --mpi: spread the work over the ranks of an MPI job (cli/mpi_*.c) */
} root_opts;

typedef struct root_result {
    uint64_t leaf_count;
    uint64_t bytes;
    int is_empty;
} root_result;

/*
** Parse the options common to root/proof/consistency (those commands add theirs first and
** pass the rest). Returns 0 and sets *first_arg to the first operand; -1 after printing
** help; CLI_USAGE after a usage message.
*/
int root_parse_common(int argc, char **argv, root_opts *o, const char *sub, int *first_arg);

/*
** Compute the root of the named input ("-" = stdin). On failure prints a message naming
** the input (and line for --leaves) and returns -1.
*/
int root_compute(const root_opts *o, const char *name, uint8_t root[MERKLE_HASH_LEN],
                 root_result *res);

/*
** Read a --leaves input: call fn(ctx, leaf, len) for each line's decoded leaf, in order.
** Returns 0, or -1 after printing "merkle: NAME:LINE: ..." for bad hex or a read error.
** fn returns 0 to continue, non-zero to stop with that failure (it prints its message).
*/
int root_read_leaves(const char *name, int fd, int (*fn)(void *ctx, const uint8_t *leaf, size_t len),
                     void *ctx);

/*
** `merkle root --mpi`: run under mpirun; every rank hashes an aligned range of leaves of each
** input and rank 0 prints what `merkle root` prints. Defined in cli/mpi_root.c when built
** with -DMERKLE_MPI=ON; otherwise a stub that reports the missing support (exit 2).
*/
int root_run_mpi(const root_opts *o, const char *const *names, int n);

#endif
