/* Placeholder: this subcommand is being built (see the issues). */
#include "cli.h"

int cmd_sum(int argc, char **argv)
{
    (void)argc;
    cli_error("%s: not implemented yet", argv[0]);
    return CLI_USAGE;
}

int cmd_check(int argc, char **argv)
{
    (void)argc;
    cli_error("%s: not implemented yet", argv[0]);
    return CLI_USAGE;
}

int cmd_audit(int argc, char **argv)
{
    (void)argc;
    cli_error("%s: not implemented yet", argv[0]);
    return CLI_USAGE;
}

int cmd_dirroot(int argc, char **argv)
{
    (void)argc;
    cli_error("%s: not implemented yet", argv[0]);
    return CLI_USAGE;
}
