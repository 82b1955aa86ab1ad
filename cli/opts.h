/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Declarative command-line options. Every command (and subcommand) has one cli_cmd whose
** option tables are the single source of truth for
**   - parsing: the getopt_long table and short-option string, built at run time
**     (cli_parser_init: a copy of a few dozen entries, no allocation);
**   - the option section of `merkle COMMAND --help` (cli_help);
**   - the option lists of merkle(1) and of the bash, zsh and fish completions, which
**     `merkle __options` dumps and tools/gen_cli_docs.py writes between marker comments
**     (a ctest fails when the committed files differ from the tables).
** docs/cli-options.md says where a newcomer adds an option.
*/
#ifndef MERKLE_CLI_OPTS_H
#define MERKLE_CLI_OPTS_H

/* MinGW: the C99 printf of __USE_MINGW_ANSI_STDIO (%zu), not msvcrt's. */
#ifndef CLI_PRINTF_FORMAT
#if defined(__MINGW32__)
#define CLI_PRINTF_FORMAT gnu_printf
#else
#define CLI_PRINTF_FORMAT printf
#endif
#endif

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/*
** Parser ids of the options without a short letter (an option with a short letter has
** the letter as its id). One list for all commands: tables are combined (the input
** options of `merkle root` serve `proof` and `consistency` too), so ids must not clash.
*/
enum cli_opt_id {
    OPT_PROFILE = 256,
    OPT_HASH,
    OPT_LEAF_SIZE,
    OPT_LEAVES,
    OPT_MPI,
    OPT_INTERNAL_ORDER,
    OPT_STRICT,
    OPT_LIMIT,
    OPT_MIX_IN_LENGTH,
    OPT_VALUES,
    OPT_DUMP,
    OPT_LOAD,
    OPT_ROW_VALUE, /* openzeppelin: --value ROW (proof, verify) */
    OPT_RENDER,    /* openzeppelin: merkle root --render */
    OPT_BLOCK,
    OPT_PIECE_LAYER,
    OPT_INDEX,
    OPT_RANGE,
    OPT_OLD_SIZE,
    OPT_GINDEX,
    OPT_BINARY,
    OPT_ROOT,
    OPT_OLD_ROOT,
    OPT_LEAF,
    OPT_LEAF_HEX,
    OPT_LEAF_HASH,
    OPT_TAG,
    OPT_IGNORE_MISSING,
    OPT_QUIET,
    OPT_STATUS,
    OPT_CACHE,
    OPT_CACHE_KEY,
    OPT_VERSION,
    OPT_BACKREFS,
    OPT_ALL,
    OPT_BLOCK_SIZE,
    OPT_SALT,
    OPT_HASH_TREE,
    OPT_BEGIN,
    OPT_LEAF_HASHES,
    OPT_FORMAT,
    OPT_0X,
    OPT_UNTRUSTED_ROOT,
    OPT_TREE_SIZE,
    OPT_START,
    OPT_END,
    OPT_MAX_LENGTH,
    OPT_AT_ROOT,
    OPT_HISTORY_LENGTH,
    OPT_FROM_ROOT,
    OPT_TO_ROOT,
    OPT_DB,
    OPT_VALUE,
    OPT_ABSENT,
};

/*
** One option. A row with id 0 and only help set is a heading printed above the rows that
** follow it; the table ends with a row of all zeros.
*/
typedef struct cli_opt {
    int id;             /* the short letter ('a' is -a), or an OPT_* id (long only) */
    const char *lng;    /* long name without "--" */
    const char *arg;    /* metavariable of a required argument ("N", "FILE"); NULL: none */
    const char *values; /* completion of the argument: space-separated words, "<file>" for a
                           file name; NULL: nothing to offer (a number, hex...) */
    const char *help;   /* shown by --help and merkle(1); NULL: accepted, never shown */
    const char *more;   /* further sentences for merkle(1) only, or NULL */
} cli_opt;

/* Argument completions shared by several tables. */
#define CLI_VALUES_FILE         "<file>"
#define CLI_VALUES_MANIFEST_ALG "md5 sha1 sha256 sha512 blake2b"

/* -h/--help: in every table; cli_opt_next prints the help itself. */
#define CLI_OPT_HELP_ROW                                                                           \
    {                                                                                              \
        'h', "help", NULL, NULL, "show this help and exit", NULL                                   \
    }
#define CLI_OPT_END_ROW                                                                            \
    {                                                                                              \
        0, NULL, NULL, NULL, NULL, NULL                                                            \
    }

#define CLI_MAX_GROUPS 6
#define CLI_MAX_OPTS   48

typedef struct cli_cmd {
    /* As typed after "merkle": "sum", "trie root". */
    const char *name;
    /* One line (of a subcommand: for the completions). */
    const char *summary;
    /* "Usage: ..." and the description, printed before the options. */
    const char *usage;
    /* The option tables, in help order. */
    const cli_opt *groups[CLI_MAX_GROUPS];
    /* Printed after the options (exit status), or NULL. */
    const char *epilog;
    /* Exit status of a usage error: 0 means CLI_USAGE (2); sum and check use 1, as md5sum. */
    int usage_rc;
} cli_cmd;

/* The exit status of a usage error of cmd. */
int cli_cmd_usage_rc(const cli_cmd *cmd);

/*
** "merkle NAME: <message>\nTry 'merkle NAME --help' for more information.\n" on stderr
** (standard output flushed first); returns cli_cmd_usage_rc(cmd), so that a command ends
** with `return cli_cmd_usage(cmd, "...")`.
*/
int cli_cmd_usage(const cli_cmd *cmd, const char *fmt, ...)
    __attribute__((format(CLI_PRINTF_FORMAT, 2, 3)));

/* Print the help of cmd: usage text, the options of its tables, epilog. */
void cli_help(const cli_cmd *cmd, FILE *out);
/* Only the option rows (for the help of a command with subcommands). */
void cli_help_options(const cli_cmd *cmd, FILE *out);

typedef struct cli_parser {
    const cli_cmd *cmd;
    int argc;
    char **argv;
    char prog[48];
    char shorts[2 * CLI_MAX_OPTS + 2];
    struct option lo[CLI_MAX_OPTS + 1];
} cli_parser;

enum { CLI_OPT_END = -1, CLI_OPT_HELP = -2, CLI_OPT_ERROR = -3 };

/* Parse argv (argv[0] is the command name) against cmd's tables with getopt_long. */
void cli_parser_init(cli_parser *p, const cli_cmd *cmd, int argc, char **argv);
/*
** The id of the next option (its argument in *arg), or
**   CLI_OPT_END   no more options: the operands are argv[optind..argc);
**   CLI_OPT_HELP  -h/--help: the help was printed (exit CLI_OK);
**   CLI_OPT_ERROR an unknown option or a missing argument: the message, in GNU getopt's
**                 words ("merkle sum: invalid option -- 'x'") and a "Try" line, was
**                 printed (exit cli_cmd_usage_rc).
*/
int cli_opt_next(cli_parser *p, const char **arg);

/* `merkle __options`: every command's tables as tab-separated rows (tools/gen_cli_docs.py). */
typedef struct cli_command_entry {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
    const cli_cmd *const *specs; /* the command's own cli_cmd, or its subcommands', NULL-ended */
} cli_command_entry;
int cli_dump_options(const cli_command_entry *cmds, size_t n, FILE *out);

#endif
