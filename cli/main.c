/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle: command-line front end of libmerkle. Dispatches to one function per subcommand.
*/
#include <errno.h>
#include <stdio.h>
#include <string.h>
#if defined(__has_include)
#if __has_include(<sys/resource.h>)
#include <sys/resource.h>
#endif
#endif

#include "cli.h"

#define SPECS(...) ((const cli_cmd *const[]){ __VA_ARGS__, NULL })

static const cli_command_entry commands[] = {
    { "root", cmd_root, "Merkle root of files or leaf lists", SPECS(&root_spec) },
    { "proof", cmd_proof, "inclusion or range proof for leaves of a tree", SPECS(&proof_spec) },
    { "consistency", cmd_consistency, "consistency proof between two tree sizes",
      SPECS(&consistency_spec) },
    { "verify", cmd_verify, "verify a proof", SPECS(&verify_spec) },
    { "sum", cmd_sum, "print checksums (md5sum/sha256sum/b2sum compatible)", SPECS(&sum_spec) },
    { "check", cmd_check, "check files against checksum lists", SPECS(&check_spec) },
    { "audit", cmd_audit, "report changed, missing, moved and new files of a directory",
      SPECS(&audit_spec) },
    { "dirroot", cmd_dirroot, "one Merkle root over a checksum manifest", SPECS(&dirroot_spec) },
    { "cat", cmd_cat, "write files to stdout only after they verified against a manifest",
      SPECS(&cat_spec) },
    { "trie", cmd_trie, "Merkle radix trie (merkledb node IDs): root, prove, verify",
      SPECS(&trie_root_spec, &trie_prove_spec, &trie_verify_spec, &trie_prove_range_spec,
            &trie_prove_change_spec, &trie_verify_range_spec, &trie_verify_change_spec) },
    { "clvm", cmd_clvm, "CLVM tree hash and serialization",
      SPECS(&clvm_hash_spec, &clvm_serialize_spec) },
    { "compact", cmd_compact, "saved compact ranges of a log: append, merge, root, show",
      SPECS(&compact_append_spec, &compact_merge_spec, &compact_root_spec, &compact_show_spec) },
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out, "Usage: merkle COMMAND [OPTIONS] [ARGS]\n\nCommands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nRun 'merkle COMMAND --help' or 'merkle help COMMAND' for the options of a "
                 "command.\nOptions: --help, --version.\n");
}

static int find_command(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(name, commands[i].name) == 0) return (int)i;
    return -1;
}

/* merkle help [COMMAND [SUBCOMMAND...]] = merkle COMMAND [SUBCOMMAND...] --help. */
static int help(int argc, char **argv)
{
    if (argc < 3) {
        usage(stdout);
        return CLI_OK;
    }
    int i = find_command(argv[2]);
    if (i < 0) {
        fprintf(stderr, "merkle: help: unknown command '%s'\n", argv[2]);
        usage(stderr);
        return CLI_USAGE;
    }
    /* argv[2..] then "--help": the command sees argv[0] = its name, as when run directly. */
    char *args[16];
    int n = 0;
    for (int k = 2; k < argc && n < 14; k++) args[n++] = argv[k];
    args[n++] = (char *)"--help";
    args[n] = NULL;
    return commands[i].fn(n, args);
}

/* Raise the soft limit on open files to the hard one, as many tools do: the file engines
** keep many files open at once on many threads (the library budgets them within the soft
** limit, io/fdbudget.h). Failing to raise it is not an error. */
static void raise_nofile(void)
{
#ifndef RLIMIT_NOFILE
    return; /* Windows: the C runtime's table, nothing to raise */
#else
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= rl.rlim_max) return;
    rl.rlim_cur = rl.rlim_max;
    (void)setrlimit(RLIMIT_NOFILE, &rl);
#endif
}

/* What coreutils' close_stdout does, for every command: output that could not be written
** (a full disk, /dev/full, a closed pipe) is an error, never a silent success. The exit
** status is then at least io_rc (1, as md5sum; 2 for audit, whose 1 means "differences"). */
static int close_stdout(int rc, int io_rc)
{
    int bad = ferror(stdout) != 0;
    errno = 0;
    if (fclose(stdout) != 0) bad = 1;
    if (!bad) return rc;
    if (errno)
        cli_error("write error: %s", strerror(errno));
    else
        cli_error("write error");
    return rc > io_rc ? rc : io_rc;
}

static int run(int argc, char **argv, int *io_rc)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "help") == 0) return help(argc, argv);
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("merkle %s (SHA-256 backend: %s)\n", merkle_version(), merkle_sha256_backend());
        return CLI_OK;
    }
    /* Hidden: the option tables for tools/gen_cli_docs.py (merkle(1), completions). */
    if (strcmp(cmd, "__options") == 0) return cli_dump_options(commands, N_COMMANDS, stdout);
    int i = find_command(cmd);
    if (strcmp(cmd, "audit") == 0) *io_rc = CLI_USAGE;
    if (i >= 0) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "merkle: unknown command '%s'\n", cmd);
    usage(stderr);
    return CLI_USAGE;
}

int main(int argc, char **argv)
{
#if defined(_WIN32)
    /* Binary standard streams: text mode folds CR LF on input and writes CR LF for LF,
    ** which changes digests of standard input and binary proofs on standard output. */
    (void)_setmode(0, _O_BINARY);
    (void)_setmode(1, _O_BINARY);
    (void)_setmode(2, _O_BINARY);
#endif
    raise_nofile();
    int io_rc = CLI_FAIL;
    int rc = run(argc, argv, &io_rc);
    return close_stdout(rc, io_rc);
}
