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
