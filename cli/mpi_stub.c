/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Without MPI support (-DMERKLE_MPI=OFF, the default) `--mpi` is a usage error.
*/
#include "rootio.h"

#ifndef MERKLE_WITH_MPI
int root_run_mpi(const root_opts *o, const char *const *names, int n)
{
    (void)o;
    (void)names;
    (void)n;
    cli_error("--mpi: this merkle was built without MPI support (configure with -DMERKLE_MPI=ON)");
    return CLI_USAGE;
}
#endif

#ifndef MERKLE_WITH_MPI
#include "mpi_check.h"

int mpi_check_start(void)
{
    cli_error("--mpi: this merkle was built without MPI support (configure with -DMERKLE_MPI=ON)");
    return CLI_USAGE;
}

merkle_status mpi_manifest_check(merkle_check_result *results, const merkle_manifest_entry *entries,
                                 size_t n, const merkle_check_opts *opts, merkle_error *error)
{
    return merkle_manifest_check(results, entries, n, opts, error);
}

int mpi_check_finish(int status)
{
    return status;
}
#endif
