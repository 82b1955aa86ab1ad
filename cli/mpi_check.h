/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** `merkle check --mpi`: the files of each manifest spread over the ranks of an MPI job.
** Rank 0 runs `merkle check` as usual (parsing, output, summaries, cache); only the
** checking of the entries is distributed. Defined in cli/mpi_check.c with -DMERKLE_MPI=ON;
** cli/mpi_stub.c answers --mpi otherwise.
*/
#ifndef MERKLE_CLI_MPI_CHECK_H
#define MERKLE_CLI_MPI_CHECK_H

#include <stddef.h>

#include "cli.h"
#include "merkle/manifest.h"

/*
** Join the MPI job. Rank 0 gets -1 and goes on with `merkle check`; every other rank serves
** rank 0's requests until mpi_check_finish and then returns the exit status to return from
** cmd_check (>= 0). Without MPI support: a message and CLI_USAGE.
*/
int mpi_check_start(void);

/*
** Rank 0: merkle_manifest_check over all ranks, same contract and results (in entry order).
** Entries are assigned to ranks by file size (largest first, to the least loaded rank);
** with opts->cache, rank 0 answers unchanged files from the cache itself and records the
** files other ranks verified. opts->progress is not called.
*/
merkle_status mpi_manifest_check(merkle_check_result *results, const merkle_manifest_entry *entries,
                                 size_t n, const merkle_check_opts *opts, merkle_error *error);

/* Rank 0: release the other ranks with status, MPI_Finalize; returns status. */
int mpi_check_finish(int status);

#endif
