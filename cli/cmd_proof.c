/* Placeholder: this subcommand is being built (see the issues). */
#include "cli.h"

int cmd_proof(int argc, char **argv)
{
    (void)argc;
    cli_error("%s: not implemented yet", argv[0]);
    return CLI_USAGE;
}

int cmd_consistency(int argc, char **argv)
{
    (void)argc;
    cli_error("%s: not implemented yet", argv[0]);
    return CLI_USAGE;
}

int cmd_verify(int argc, char **argv)
{
    (void)argc;
    cli_error("%s: not implemented yet", argv[0]);
    return CLI_USAGE;
}
