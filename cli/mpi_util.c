/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Helpers shared by the MPI front ends: see mpi_util.h.
*/
#include "mpi_util.h"

/* Without MERKLE_WITH_MPI this file is empty; cli/mpi_stub.c answers --mpi. */
#ifdef MERKLE_WITH_MPI

#include <errno.h>
#include <mpi.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int mpi_start(int *rank, int *nranks)
{
    int provided = 0;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        cli_error("--mpi: MPI_Init failed");
        return -1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, nranks);
    return 0;
}

int mpi_finish(int rank, int status)
{
    if (rank == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
        cli_error("write error: %s", strerror(errno));
        status = CLI_FAIL;
    }
    int st = status;
    MPI_Bcast(&st, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return st;
}

/*
** Open MPI binds each of up to 2 ranks per node to one core by default, Slurm to
** --cpus-per-task: use what the binding allows, but no more than a fair share of the node
** so that an unbound `mpirun -np <cores>` does not oversubscribe it either.
*/
unsigned mpi_default_threads(void)
{
    MPI_Comm node;
    int local = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
    }
    unsigned share = cli_num_cpus() / (unsigned)(local > 0 ? local : 1);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int allowed = CPU_COUNT(&set);
        if (allowed > 0 && (unsigned)allowed < share) share = (unsigned)allowed;
    }
    return share > 0 ? share : 1;
}

void mpi_hdr_fail(mpi_hdr *hdr, int rank, const char *fmt, ...)
{
    if (hdr->status) return;
    hdr->status = 1;
    hdr->count = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(hdr->msg, sizeof hdr->msg, fmt, ap);
    va_end(ap);
    if (rank != 0) {
        char host[MPI_MAX_PROCESSOR_NAME];
        int len = 0;
        if (MPI_Get_processor_name(host, &len) != MPI_SUCCESS) len = 0;
        host[len > 0 && len < MPI_MAX_PROCESSOR_NAME ? len : 0] = '\0';
        size_t used = strlen(hdr->msg);
        snprintf(hdr->msg + used, sizeof hdr->msg - used, " (rank %d on %s)", rank,
                 host[0] ? host : "?");
    }
}

/* Rank 0 cannot hold the results: end the whole job rather than leave ranks waiting. */
static void gather_oom(int nranks)
{
    cli_error("out of memory gathering results from %d ranks", nranks);
    MPI_Abort(MPI_COMM_WORLD, CLI_FAIL);
}

int mpi_gather_results(const mpi_hdr *hdr, const uint8_t *recs, size_t recsize, int rank,
                       int nranks, uint8_t **all, size_t *total, char *msg, size_t msg_cap)
{
    *all = NULL;
    *total = 0;
    mpi_hdr *hdrs = NULL;
    int *counts = NULL, *displs = NULL;
    if (rank == 0) {
        hdrs = calloc((size_t)nranks, sizeof *hdrs);
        counts = calloc((size_t)nranks, sizeof *counts);
        displs = calloc((size_t)nranks, sizeof *displs);
        if (!hdrs || !counts || !displs) gather_oom(nranks);
    }
    MPI_Gather(hdr, (int)sizeof *hdr, MPI_BYTE, hdrs, (int)sizeof *hdr, MPI_BYTE, 0,
               MPI_COMM_WORLD);
    int fail = 0;
    uint8_t *buf = NULL;
    if (rank == 0) {
        size_t n = 0;
        for (int r = 0; r < nranks; r++) {
            if (hdrs[r].status && !fail) {
                hdrs[r].msg[MPI_MSG_LEN - 1] = '\0';
                if (msg)
                    snprintf(msg, msg_cap, "%s", hdrs[r].msg);
                else
                    cli_error("%s", hdrs[r].msg);
                fail = 1;
            }
            /* A rank that failed sends nothing. */
            size_t c = hdrs[r].status ? 0 : (size_t)hdrs[r].count;
            if (c > (size_t)INT32_MAX / recsize || n * recsize > (size_t)INT32_MAX - c * recsize)
                gather_oom(nranks);
            counts[r] = (int)(c * recsize);
            displs[r] = (int)(n * recsize);
            n += c;
        }
        buf = malloc(n * recsize + 1);
        if (!buf) gather_oom(nranks);
        *total = n;
    }
    int send = hdr->status ? 0 : (int)((size_t)hdr->count * recsize);
    MPI_Gatherv(recs, send, MPI_BYTE, buf, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    free(hdrs);
    free(counts);
    free(displs);
    if (rank == 0) {
        if (fail) {
            free(buf);
            buf = NULL;
            *total = 0;
        }
        *all = buf;
    }
    return fail;
}

void mpi_print_root(const uint8_t root[MERKLE_HASH_LEN], const char *name)
{
    char hex[2 * MERKLE_HASH_LEN + 1];
    merkle_hex_encode(hex, root, MERKLE_HASH_LEN);
    cli_print_digest_line(stdout, hex, name, 0, 0);
}

#endif
