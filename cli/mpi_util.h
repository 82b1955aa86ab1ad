/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Shared pieces of the MPI front ends (cli/mpi_root.c, cli/mpi_check.c): start and stop,
** the per-rank status record that travels with every gather, and printing on rank 0.
** Only built with -DMERKLE_MPI=ON (MERKLE_WITH_MPI); this header does not include <mpi.h>.
*/
#ifndef MERKLE_CLI_MPI_UTIL_H
#define MERKLE_CLI_MPI_UTIL_H

/* MinGW: the C99 printf of __USE_MINGW_ANSI_STDIO (%zu), not msvcrt's. */
#ifndef CLI_PRINTF_FORMAT
#if defined(__MINGW32__)
#define CLI_PRINTF_FORMAT gnu_printf
#else
#define CLI_PRINTF_FORMAT printf
#endif
#endif

#include <stddef.h>
#include <stdint.h>

#include "cli.h"

#define MPI_MSG_LEN 512

/* What every rank sends to rank 0 for one unit of work (a file). */
typedef struct mpi_hdr {
    int32_t status;        /* 0, or 1 when this rank failed (msg says why) */
    int32_t count;         /* records that follow in the variable part */
    char msg[MPI_MSG_LEN]; /* "NAME: reason (rank R on HOST)", without "merkle: " */
} mpi_hdr;

/* MPI_Init_thread (funneled: worker threads never call MPI). 0, or -1 after a message. */
int mpi_start(int *rank, int *nranks);

/*
** Flush stdout on rank 0 (a write error makes the status 1), broadcast rank 0's status so
** that every rank exits with it, MPI_Finalize, and return the status.
*/
int mpi_finish(int rank, int status);

/* Mark hdr failed with a formatted message; ranks other than 0 add " (rank R on HOST)". */
void mpi_hdr_fail(mpi_hdr *hdr, int rank, const char *fmt, ...)
    __attribute__((format(CLI_PRINTF_FORMAT, 3, 4)));

/*
** Collective over MPI_COMM_WORLD: every rank sends hdr and hdr->count records of recsize
** bytes (recs). On rank 0, *all (malloc'd, caller frees) receives all records in rank order
** and *total their count; the return value is 1 if any rank failed, else 0: the first
** failing rank's message is copied to msg[0..msg_cap) when msg is not NULL, else printed.
** Other ranks get *all = NULL and return 0.
*/
int mpi_gather_results(const mpi_hdr *hdr, const uint8_t *recs, size_t recsize, int rank,
                       int nranks, uint8_t **all, size_t *total, char *msg, size_t msg_cap);

/* Threads for a rank when none were asked for: the CPUs the launcher bound it to, at most
** the node's cores divided among the ranks on the node. Collective (MPI_COMM_WORLD). */
unsigned mpi_default_threads(void);

/* Rank 0: "<hex>  <name>" exactly as `merkle root` prints it. */
void mpi_print_root(const uint8_t root[MERKLE_HASH_LEN], const char *name);

#endif
