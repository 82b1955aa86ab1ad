/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle sum [-a md5|sha1|sha256|sha512|blake2b] [-l BITS] [--tag] [-z] [-j N] FILE...
**
** Prints what md5sum/sha1sum/sha256sum/sha512sum/b2sum print (the program name before the
** first colon of a stderr line differs); `sum -c` is `merkle check`. Hashing lives in
** src/manifest/.
*/
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "manifest_util.h"

/* Checksum lines of `sum`. */
typedef struct sum_printer {
    in_order io;
    const char *const *names;
    const merkle_check_result *res;
    merkle_hash_alg alg;
    size_t dlen;
    unsigned flags;
    char *line;
    size_t cap;
    int rc;
} sum_printer;

static void sum_print(void *self, size_t i)
{
    sum_printer *p = self;
    if (p->res[i].status != MERKLE_CHECK_OK) {
        fflush(stdout);
        mcli_err_name(p->names[i], strerror(p->res[i].sys_errno));
        p->rc = CLI_FAIL;
        return;
    }
    size_t need;
    merkle_manifest_format_line(NULL, 0, &need, p->alg, p->res[i].digest, p->dlen, p->names[i],
                                p->flags);
    if (need > p->cap) {
        char *nl = realloc(p->line, need);
        if (!nl) {
            fflush(stdout);
            cli_error("out of memory");
            p->rc = CLI_FAIL;
            return;
        }
        p->line = nl;
        p->cap = need;
    }
    merkle_manifest_format_line(p->line, p->cap, &need, p->alg, p->res[i].digest, p->dlen,
                                p->names[i], p->flags);
    fwrite(p->line, 1, need, stdout);
}

/* sum's options. */
typedef struct sum_args {
    merkle_hash_alg alg;
    const char *alg_arg, *bits_arg, *jobs_arg; /* as given, for sum -c */
    uint64_t bits;
    int tag, zero, binary, do_check, ignore, strict, quiet, status, warn;
    unsigned threads;
} sum_args;

/* coreutils' checks of the option combinations, in its order and words: 0 or the status. */
static int sum_check_combinations(const cli_cmd *cmd, const sum_args *sa)
{
    if (sa->bits && sa->alg != MERKLE_HASH_BLAKE2B)
        return cli_cmd_usage(cmd, "-l/--length is only valid with -a blake2b");
    if (sa->tag && sa->binary == 0) return cli_cmd_usage(cmd, "--tag does not support --text mode");
    if (sa->zero && sa->do_check)
        return cli_cmd_usage(cmd, "the --zero option is not supported when verifying checksums");
    if (sa->tag && sa->do_check)
        return cli_cmd_usage(cmd, "the --tag option is meaningless when verifying checksums");
    if (sa->binary >= 0 && sa->do_check)
        return cli_cmd_usage(
            cmd, "the --binary and --text options are meaningless when verifying checksums");
    static const char *const only_check[] = { "ignore-missing", "status", "warn", "quiet",
                                              "strict" };
    const int given[] = { sa->ignore, sa->status, sa->warn, sa->quiet, sa->strict };
    for (int i = 0; i < 5; i++)
        if (given[i] && !sa->do_check)
            return cli_cmd_usage(cmd, "the --%s option is meaningful only when verifying checksums",
                                 only_check[i]);
    return 0;
}

/* Parse sum's options: 0, -1 after --help or --version, else the usage status. */
static int sum_parse(int argc, char **argv, sum_args *sa)
{
    const cli_cmd *cmd = &sum_spec;
    memset(sa, 0, sizeof *sa);
    sa->alg = MERKLE_HASH_MD5;
    sa->binary = -1;
    cli_parser p;
    cli_parser_init(&p, cmd, argc, argv);
    const char *arg;
    int c, rc;
    while ((c = cli_opt_next(&p, &arg)) != CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_HELP: return -1;
        case CLI_OPT_ERROR: return cli_cmd_usage_rc(cmd);
        case 'a':
            if ((rc = mcli_parse_alg(cmd, arg, &sa->alg)) != 0) return rc;
            sa->alg_arg = arg;
            break;
        case 'l':
            if ((rc = mcli_parse_bits(cmd, arg, &sa->bits)) != 0) return rc;
            sa->bits_arg = arg;
            break;
        case OPT_TAG: /* as coreutils: --tag implies binary; a later -t is refused */
            sa->tag = 1;
            sa->binary = 1;
            break;
        case 'z': sa->zero = 1; break;
        case 'b': sa->binary = 1; break;
        case 't': sa->binary = 0; break;
        case 'j':
            if ((rc = cli_parse_jobs(cmd, arg, &sa->threads)) != 0) return rc;
            sa->jobs_arg = arg;
            break;
        case 'c': sa->do_check = 1; break;
        case OPT_IGNORE_MISSING: sa->ignore = 1; break;
        case OPT_QUIET:
        case OPT_STATUS:
        case 'w': mcli_last_wins(c, &sa->quiet, &sa->status, &sa->warn); break;
        case OPT_STRICT: sa->strict = 1; break;
        case OPT_VERSION: mcli_print_version(cmd->name); return -1;
        default: break;
        }
    }
    return sum_check_combinations(cmd, sa);
}

/* `merkle sum -c` is md5sum -c: the same as merkle check with these options. The algorithm
** is md5 unless -a names another, as md5sum -c reads only MD5 lines. */
static int sum_as_check(const sum_args *sa, int argc, char **argv, int first)
{
    char **cv = malloc(((size_t)argc + 16) * sizeof *cv);
    if (!cv) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    int n = 0;
    cv[n++] = "check";
    cv[n++] = "-a";
    cv[n++] = (char *)(sa->alg_arg ? sa->alg_arg : "md5");
    if (sa->bits_arg) {
        cv[n++] = "-l";
        cv[n++] = (char *)sa->bits_arg;
    }
    if (sa->jobs_arg) {
        cv[n++] = "-j";
        cv[n++] = (char *)sa->jobs_arg;
    }
    if (sa->quiet) cv[n++] = "--quiet";
    if (sa->status) cv[n++] = "--status";
    if (sa->warn) cv[n++] = "--warn";
    if (sa->strict) cv[n++] = "--strict";
    if (sa->ignore) cv[n++] = "--ignore-missing";
    cv[n++] = "--";
    for (int i = first; i < argc; i++) cv[n++] = argv[i];
    cv[n] = NULL;
    int rc = cmd_check(n, cv);
    free(cv);
    return rc;
}

/* Hash names[0..n) and print their lines in order as they complete: the exit status. */
static int sum_files(const sum_args *sa, const char *const *names, size_t n)
{
    merkle_hash_alg alg = sa->alg;
    size_t dlen = sa->bits ? (size_t)(sa->bits / 8) : merkle_hash_alg_len(alg);
    int rc;
    merkle_check_result *res = calloc(n, sizeof *res);
    if (!res) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    uint8_t *done = calloc(n, 1);
    if (!done) {
        free(res);
        cli_error("out of memory");
        return CLI_FAIL;
    }
    merkle_check_opts o;
    merkle_check_opts_init(&o, MERKLE_CHECK_OPTS_VERSION);
    o.threads = sa->threads;
    o.dash_is_stdin = 1;
    prog_ctx pc;
    cli_progress_start(&pc.p, 0, 0, n);
    if (pc.p.enabled && n > 1) {
        pc.p.total_bytes = mcli_total_size(AT_FDCWD, names, n);
        o.progress = mcli_on_progress;
        o.progress_ctx = &pc;
    }
    sum_printer sp;
    memset(&sp, 0, sizeof sp);
    sp.names = names;
    sp.res = res;
    sp.io.done = done;
    sp.io.n = n;
    sp.io.print = sum_print;
    sp.io.self = &sp;
    sp.alg = alg;
    sp.dlen = dlen;
    sp.flags = sa->tag ? MERKLE_MANIFEST_TAG : (sa->binary == 1 ? MERKLE_MANIFEST_BINARY : 0);
    sp.flags |= sa->zero ? MERKLE_MANIFEST_ZERO : 0;
    sp.io.tty = isatty(STDOUT_FILENO);
    sp.io.prog = &pc.p;
    o.on_result = mcli_in_order_on_result;
    o.result_ctx = &sp.io;
    merkle_error err;
    merkle_status s = merkle_manifest_hash_files(res, names, n, alg, dlen, &o, &err);
    cli_progress_end(&pc.p);
    if (s != MERKLE_OK) {
        fflush(stdout);
        cli_error("%s", err.message);
        free(sp.line);
        free(res);
        free(done);
        return CLI_FAIL;
    }
    memset(done, 1, n);
    mcli_in_order_release(&sp.io);
    rc = sp.rc;
    mcli_flusher_stop();
    free(sp.line);
    free(res);
    free(done);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("write error");
        rc = CLI_FAIL;
    }
    return rc;
}

int cmd_sum(int argc, char **argv)
{
    sum_args sa;
    int rc = sum_parse(argc, argv, &sa);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if (sa.do_check) return sum_as_check(&sa, argc, argv, optind);
    static const char *const stdin_only[] = { "-" };
    if (optind >= argc) return sum_files(&sa, stdin_only, 1);
    return sum_files(&sa, (const char *const *)argv + optind, (size_t)(argc - optind));
}
