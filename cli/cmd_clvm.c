/* Placeholder: this subcommand is being built (see the issues). */
#include "cli.h"

int cmd_clvm(int argc, char **argv)
{
    (void)argc;
    cli_error("%s: not implemented yet", argv[0]);
    return CLI_USAGE;
}
