/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle sum / check / audit / dirroot: checksum manifests, coreutils-compatible output.
**
**   merkle sum  [-a md5|sha1|sha256|sha512|blake2b] [-l BITS] [--tag] [-z] [-j N] FILE...
**   merkle check [-a ALGO] [--cache FILE] [--cache-key FILE] [--quiet] [--status] [--strict]
**                [-w] [--ignore-missing] [-j N] MANIFEST...
**   merkle audit [-a ALGO] [-j N] MANIFEST DIR
**   merkle dirroot [-a ALGO] MANIFEST
**
** `sum` and `check` print what md5sum/sha1sum/sha256sum/sha512sum/b2sum print (the program
** name before the first colon of a stderr line differs). Hashing lives in src/manifest/.
*/
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "manifest_cli.h"
#include "merkle/manifest.h"
#include "mpi_check.h"

/* ------------------------------------------------------------------ shared helpers */

static void print_version(const char *sub)
{
    printf("merkle %s %s\n", sub, merkle_version());
}

/* -a ALGO: 0, or the command's usage status after the message. */
/* As in coreutils, the last of --quiet, --status and --warn wins (opt: the one just seen). */
static void last_wins(int opt, int *quiet, int *status, int *warn)
{
    *quiet = opt == OPT_QUIET;
    *status = opt == OPT_STATUS;
    *warn = opt == 'w';
}

static int parse_alg(const cli_cmd *cmd, const char *arg, merkle_hash_alg *alg)
{
    if (merkle_manifest_alg_from_name(alg, arg) != MERKLE_OK)
        return cli_cmd_usage(cmd, "unknown algorithm '%s' (md5, sha1, sha256, sha512, blake2b)",
                             arg);
    return 0;
}

/* -l/--length BITS as b2sum parses it (its messages, exit 1 from sum and check). 0 or the
** exit status. 0 bits means the algorithm's full length. */
static int parse_bits(const cli_cmd *cmd, const char *arg, uint64_t *bits)
{
    uint64_t b;
    int ok = cli_parse_u64(arg, &b) == 0;
    if (!ok || b > 512 || b % 8) {
        fflush(stdout);
        fprintf(stderr, "%s %s: invalid length: '%s'\n", cli_progname, cmd->name, arg);
        if (ok && b > 512)
            fprintf(stderr, "%s %s: maximum digest length for 'BLAKE2b' is 512 bits\n",
                    cli_progname, cmd->name);
        else if (ok)
            fprintf(stderr, "%s %s: length is not a multiple of 8\n", cli_progname, cmd->name);
        return cli_cmd_usage_rc(cmd);
    }
    *bits = b;
    return 0;
}

/* "merkle: QUOTED: message" (coreutils error(0, errno, "%s", quotef(name))). */
static void err_name(const char *name, const char *msg)
{
    fprintf(stderr, "%s: ", cli_progname);
    mcli_quotef(stderr, name);
    fprintf(stderr, ": %s\n", msg);
}

/* Print name as coreutils' print_filename: with escape, '\\' and '\n' (and '\r') become
** two-character escapes; the caller has printed the leading backslash. */
static void put_name(FILE *f, const char *name, int escape)
{
    if (escape)
        cli_fputs_escaped(f, name);
    else
        fputs(name, f);
}

typedef struct prog_ctx {
    cli_progress p;
    uint64_t files_base, bytes_base; /* windows of a long manifest already checked */
} prog_ctx;

static void on_progress(void *ctx, uint64_t files, uint64_t bytes)
{
    prog_ctx *c = ctx;
    cli_progress_update(&c->p, c->bytes_base + bytes, c->files_base + files);
}

/* Sum of the sizes of names (for the progress line only: costs a stat per file). */
static uint64_t total_size(int dirfd, const char *const *names, size_t n)
{
    uint64_t t = 0;
    struct stat st;
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], "-") != 0 && fstatat(dirfd, names[i], &st, 0) == 0 &&
            S_ISREG(st.st_mode))
            t += (uint64_t)st.st_size;
    return t;
}

/* ------------------------------------------------------------------ sum */

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
** Lines printed in list order, each as soon as its entry and every earlier one are done
** (`sum` and `check`): the library's result callback marks entries done (serialised by the
** library); the longest finished prefix is printed through print(self, i). The lines go out
** at once on a terminal, at most five times a second into a pipe or file (a write per line
** would cost a system call per file on a check of many small files).
*/
typedef struct in_order {
    uint8_t *done;
    size_t next, n;
    int tty;
    int64_t last_flush_ns;
    cli_progress *prog; /* erased before lines are printed (redrawn by its next update) */
    void (*print)(void *self, size_t i);
    void *self;
} in_order;

static void in_order_release(in_order *o)
{
    size_t before = o->next;
    while (o->next < o->n && o->done[o->next]) o->print(o->self, o->next++);
    if (o->next == before) return;
    int64_t now = mono_ns();
    if (o->tty || now - o->last_flush_ns >= 200000000) {
        fflush(stdout);
        o->last_flush_ns = now;
    }
}

static void in_order_on_result(void *ctx, size_t index, const merkle_check_result *r)
{
    in_order *o = ctx;
    (void)r;
    o->done[index] = 1;
    if (index != o->next) return;
    if (o->prog && o->prog->shown) cli_progress_end(o->prog);
    in_order_release(o);
}

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
        err_name(p->names[i], strerror(p->res[i].sys_errno));
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
            if ((rc = parse_alg(cmd, arg, &sa->alg)) != 0) return rc;
            sa->alg_arg = arg;
            break;
        case 'l':
            if ((rc = parse_bits(cmd, arg, &sa->bits)) != 0) return rc;
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
        case 'w': last_wins(c, &sa->quiet, &sa->status, &sa->warn); break;
        case OPT_STRICT: sa->strict = 1; break;
        case OPT_VERSION: print_version(cmd->name); return -1;
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
        pc.p.total_bytes = total_size(AT_FDCWD, names, n);
        o.progress = on_progress;
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
    o.on_result = in_order_on_result;
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
    in_order_release(&sp.io);
    rc = sp.rc;
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

/* ------------------------------------------------------------------ check */

/* Loading the validation cache, on a thread of its own while the first manifest is read and
** parsed (unless -j 1); cache_wait joins it and prints its warnings, before any output. */
typedef struct cache_loader {
    merkle_vcache *cache;
    const char *path;
    merkle_status status;
    merkle_error err;
    size_t loaded, rejected;
    pthread_t tid;
    int running, done;
} cache_loader;

typedef struct check_opts {
    merkle_hash_alg alg; /* AUTO unless -a */
    uint32_t digest_len; /* -l BITS / 8 (BLAKE2b), 0 = any */
    int quiet, status, strict, warn, ignore_missing;
    unsigned threads;
    merkle_vcache *cache;
    cache_loader *loader;
    int mpi; /* --mpi: files spread over the ranks of an MPI job (cli/mpi_check.c) */
} check_opts;

static void *cache_load_main(void *arg)
{
    cache_loader *l = arg;
    l->status = merkle_vcache_load(&l->loaded, &l->rejected, l->cache, l->path, &l->err);
    return NULL;
}

/* Wait for the cache to be loaded (once) and report what went wrong. */
static void cache_wait(cache_loader *l)
{
    if (!l || l->done) return;
    if (l->running) pthread_join(l->tid, NULL);
    l->running = 0;
    l->done = 1;
    if (l->status == MERKLE_ERR_UNSAFE) {
        /* Not a cache (a manifest named by mistake, a device, a symlink...): it would be
        ** overwritten. Nothing has been checked or printed yet. */
        fflush(stdout);
        fprintf(stderr,
                "%s check: refusing --cache %s (the cache is rewritten after the check; "
                "nothing was checked)\n",
                cli_progname, l->err.message);
        exit(CLI_USAGE);
    }
    if (l->status != MERKLE_OK)
        cli_error("warning: ignoring validation cache: %s; checking every file", l->err.message);
    else if (l->rejected)
        cli_error("warning: %s: %zu cache entr%s failed authentication and %s ignored", l->path,
                  l->rejected, l->rejected == 1 ? "y" : "ies", l->rejected == 1 ? "was" : "were");
}

/* Start loading the cache: on a thread unless single-threaded or that fails. */
static void cache_start(cache_loader *l, int threaded)
{
    l->running = threaded && pthread_create(&l->tid, NULL, cache_load_main, l) == 0;
    if (!l->running) cache_load_main(l);
}

/* A parsed manifest (merkle_manifest is opaque) and the parts of it the commands read. */
typedef struct mlist {
    merkle_manifest *h;
    const merkle_manifest_entry *entries;
    size_t count;
    const uint64_t *bad_lines;
    size_t bad_count;
    uint64_t lines;
} mlist;

/* Refresh the parts (after parsing or sorting). */
static void mlist_view(mlist *l)
{
    l->entries = merkle_manifest_entries(l->h);
    l->count = merkle_manifest_count(l->h);
    l->bad_lines = merkle_manifest_bad_lines(l->h, &l->bad_count);
    l->lines = merkle_manifest_lines(l->h);
}

static merkle_status mlist_parse(mlist *l, merkle_manifest_parser *p, const char *text, size_t len,
                                 uint64_t first_line, merkle_error *err)
{
    memset(l, 0, sizeof *l);
    merkle_status s = merkle_manifest_parse_alloc(&l->h, p, text, len, first_line, err);
    if (s == MERKLE_OK) mlist_view(l);
    return s;
}

static void mlist_free(mlist *l)
{
    merkle_manifest_free(l->h);
    memset(l, 0, sizeof *l);
}

/* Results of one manifest printed in manifest order, each line as soon as every earlier
** entry is done (from the library's result callback, serialised by it). */
typedef struct printer {
    in_order io;
    const check_opts *co;
    const char *shown, *tag;
    const mlist *m;
    const merkle_check_result *res;
    size_t bi;
    uint64_t n_bad, n_fail, n_mismatch;
    int properly, matched;
} printer;

/* -w warnings for the malformed lines before line number upto. */
static void print_bad_lines(printer *p, uint64_t upto)
{
    const mlist *m = p->m;
    for (; p->bi < m->bad_count && m->bad_lines[p->bi] < upto; p->bi++) {
        p->n_bad++;
        if (p->co->warn) {
            fflush(stdout);
            fprintf(stderr, "%s: ", cli_progname);
            mcli_quotef(stderr, p->shown);
            fprintf(stderr, ": %llu: improperly formatted %s checksum line\n",
                    (unsigned long long)m->bad_lines[p->bi], p->tag);
        }
    }
}

static void print_entry(void *self, size_t i)
{
    printer *p = self;
    const check_opts *co = p->co;
    const merkle_manifest_entry *en = &p->m->entries[i];
    const merkle_check_result *r = &p->res[i];
    print_bad_lines(p, en->line);
    p->properly = 1;
    /* coreutils 9 -c escapes a name only when it holds a newline (then also '\\'
    ** and CR), unlike the sum output. */
    int escape = !co->status && strchr(en->name, '\n') != NULL;
    if (r->status == MERKLE_CHECK_MISSING && co->ignore_missing) return;
    if (r->status == MERKLE_CHECK_MISSING || r->status == MERKLE_CHECK_ERROR) {
        fflush(stdout);
        err_name(en->name, strerror(r->sys_errno));
        p->n_fail++;
        if (!co->status) {
            if (escape) putchar('\\');
            put_name(stdout, en->name, escape);
            fputs(": FAILED open or read\n", stdout);
        }
        return;
    }
    int ok = r->status == MERKLE_CHECK_OK;
    if (ok)
        p->matched = 1;
    else
        p->n_mismatch++;
    if (!co->status && (!ok || !co->quiet)) {
        if (escape) putchar('\\');
        put_name(stdout, en->name, escape);
        fputs(ok ? ": OK\n" : ": FAILED\n", stdout);
    }
}

/* 1 when the file of entry e (a SHA-512 line) does not match as SHA-512 but matches as
** BLAKE2b-512. */
static int is_b2sum_list(const merkle_manifest_entry *e, const check_opts *co)
{
    if (strcmp(e->name, "-") == 0) return 0;
    const char *names[1] = { e->name };
    merkle_check_result r;
    merkle_check_opts o;
    merkle_check_opts_init(&o, MERKLE_CHECK_OPTS_VERSION);
    o.threads = 1;
    (void)co;
    if (merkle_manifest_hash_files(&r, names, 1, MERKLE_HASH_SHA512, 64, &o, NULL) != MERKLE_OK ||
        r.status != MERKLE_CHECK_OK || merkle_ct_equal(r.digest, e->digest, 64))
        return 0;
    return merkle_manifest_hash_files(&r, names, 1, MERKLE_HASH_BLAKE2B, 64, &o, NULL) ==
               MERKLE_OK &&
           r.status == MERKLE_CHECK_OK && merkle_ct_equal(r.digest, e->digest, 64);
}

/* The algorithm of a manifest without -a: that of its first line that parses as any
** supported format (md5 when none does); *untagged_512 when that line is an untagged 128-hex
** digest (SHA-512 or BLAKE2b-512). */
static merkle_hash_alg detect_alg(const char *text, size_t len, const merkle_manifest_parser *gp,
                                  int is_stdin, int *untagged_512)
{
    merkle_hash_alg alg = MERKLE_HASH_MD5;
    merkle_manifest_parser probe = *gp;
    probe.alg = MERKLE_HASH_AUTO;
    probe.reject_dash = is_stdin;
    *untagged_512 = 0;
    /* Parsing writes into the line: each candidate line is copied first. */
    char *scratch = NULL;
    size_t scap = 0, pos = 0;
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t l = nl ? (size_t)(nl - (text + pos)) : len - pos;
        if (l >= scap) {
            char *ns = realloc(scratch, l + 1);
            if (!ns) break;
            scratch = ns;
            scap = l + 1;
        }
        memcpy(scratch, text + pos, l);
        merkle_manifest_entry en;
        if (merkle_manifest_parse_line(&en, &probe, scratch, l, 0, NULL) == MERKLE_OK && en.name) {
            alg = en.alg;
            *untagged_512 = alg == MERKLE_HASH_SHA512 && !en.bsd;
            break;
        }
        pos += l + 1;
    }
    free(scratch);
    return alg;
}

/* Read and parse manifest mname (shown as shown): 0 with *m and *alg_out, or -1 after a
** message. The cache loader has been waited for either way. */
/*
** A manifest is read and checked a window at a time (about CHECK_WINDOW bytes of whole
** lines): memory stays bounded whatever its length (a list of 1,000,000 files needs a few
** MiB, not hundreds), and results stream out as before. A manifest that fits one window —
** the usual case — is read, parsed and checked in one piece.
*/
#define CHECK_WINDOW ((size_t)1 << 20)

typedef struct mreader {
    int fd, eof;
    char *buf;
    size_t cap, len, cut; /* buf[0..len) read; buf[0..cut) handed out last time */
} mreader;

/* The next window of whole lines, text[0..*n) (the manifest's last line may lack its
** newline); *n == 0 at the end. 0, or an errno. */
static int mreader_next(mreader *r, const char **text, size_t *n)
{
    if (r->cut) memmove(r->buf, r->buf + r->cut, r->len - r->cut);
    r->len -= r->cut;
    r->cut = 0;
    /* Read until a window's worth of whole lines is in, or the end (a line longer than a
    ** window is read whole). */
    for (;;) {
        if (r->eof) {
            r->cut = r->len;
            break;
        }
        const char *nl = r->len >= CHECK_WINDOW ? memrchr(r->buf, '\n', r->len) : NULL;
        if (nl) {
            r->cut = (size_t)(nl - r->buf) + 1;
            break;
        }
        if (r->cap - r->len < CHECK_WINDOW) {
            if (r->cap >= SIZE_MAX / 4) return EFBIG;
            size_t nc = r->cap ? r->cap * 2 : 2 * CHECK_WINDOW;
            char *nb = realloc(r->buf, nc);
            if (!nb) return ENOMEM;
            r->buf = nb;
            r->cap = nc;
        }
        ssize_t k = read(r->fd, r->buf + r->len, r->cap - r->len);
        if (k < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (k == 0) r->eof = 1;
        r->len += (size_t)k;
    }
    *text = r->buf;
    *n = r->cut;
    return 0;
}

/* Parse a window of the manifest into *m; the first window also settles the algorithm
** (detection, the b2sum-list check). 0, or -1 after an error message. */
static int check_parse_window(const char *text, size_t len, int first, uint64_t first_line,
                              const char *shown, int is_stdin, merkle_manifest_parser *gp,
                              const check_opts *co, mlist *m_out, merkle_hash_alg *alg_io)
{
    merkle_hash_alg alg = *alg_io;
    int detected_untagged_512 = 0;
    if (first) {
        alg = co->alg;
        if (alg == MERKLE_HASH_AUTO)
            alg = detect_alg(text, len, gp, is_stdin, &detected_untagged_512);
        gp->alg = alg;
        gp->digest_len = co->digest_len;
        gp->reject_dash = is_stdin;
    }
    mlist m;
    merkle_error err;
    merkle_manifest_parser before = *gp;
    if (mlist_parse(&m, gp, text, len, first_line, &err) != MERKLE_OK) {
        cache_wait(co->loader);
        cli_error("%s", err.message);
        return -1;
    }
    /* An untagged list of 128-hex digests is SHA-512 to sha512sum and BLAKE2b-512 to b2sum.
    ** When its first file does not match as SHA-512 but does as BLAKE2b-512, it is a b2sum
    ** list: check it as one (said once), rather than report every file FAILED. */
    if (detected_untagged_512 && m.count && is_b2sum_list(&m.entries[0], co)) {
        mlist m2;
        merkle_manifest_parser p2 = before;
        p2.alg = MERKLE_HASH_BLAKE2B;
        p2.digest_len = 64;
        if (mlist_parse(&m2, &p2, text, len, first_line, &err) == MERKLE_OK) {
            mlist_free(&m);
            m = m2;
            *gp = p2;
            alg = MERKLE_HASH_BLAKE2B;
            fflush(stdout);
            fprintf(stderr, "%s: ", cli_progname);
            mcli_quotef(stderr, shown);
            fputs(": 128-hex digests match BLAKE2b-512, not SHA-512: checking as a b2sum "
                  "list (-a sha512 or -a blake2b to choose)\n",
                  stderr);
        }
    }
    *m_out = m;
    *alg_io = alg;
    return 0;
}

/* The closing warnings of a manifest, as md5sum -c prints them. */
static void check_summary(const printer *pr, const check_opts *co, const char *shown)
{
    fflush(stdout);
    if (!pr->properly) {
        fprintf(stderr, "%s: ", cli_progname);
        mcli_quotef(stderr, shown);
        fputs(": no properly formatted checksum lines found\n", stderr);
    } else if (!co->status) {
        if (pr->n_bad)
            fprintf(stderr, "%s: WARNING: %llu %s improperly formatted\n", cli_progname,
                    (unsigned long long)pr->n_bad, pr->n_bad == 1 ? "line is" : "lines are");
        if (pr->n_fail)
            fprintf(stderr, "%s: WARNING: %llu listed %s could not be read\n", cli_progname,
                    (unsigned long long)pr->n_fail, pr->n_fail == 1 ? "file" : "files");
        if (pr->n_mismatch)
            fprintf(stderr, "%s: WARNING: %llu computed %s did NOT match\n", cli_progname,
                    (unsigned long long)pr->n_mismatch,
                    pr->n_mismatch == 1 ? "checksum" : "checksums");
        if (co->ignore_missing && !pr->matched) {
            fprintf(stderr, "%s: ", cli_progname);
            mcli_quotef(stderr, shown);
            fputs(": no file was verified\n", stderr);
        }
    }
}

/* Check the entries of one window; 0, or -1 after an error message. */
static int check_window(printer *pr, prog_ctx *pc, const mlist *m, int is_stdin,
                        const check_opts *co)
{
    merkle_error err;
    /* merkle_manifest_check fills every result */
    merkle_check_result *res = malloc((m->count ? m->count : 1) * sizeof *res);
    uint8_t *done = calloc(m->count ? m->count : 1, 1);
    if (!res || !done) {
        free(res);
        free(done);
        cli_error("out of memory");
        return -1;
    }
    merkle_check_opts o;
    merkle_check_opts_init(&o, MERKLE_CHECK_OPTS_VERSION);
    o.threads = co->threads;
    o.cache = co->cache;
    o.dash_is_stdin = !is_stdin;
    if (pc->p.enabled) {
        o.progress = on_progress;
        o.progress_ctx = pc;
    }
    pr->m = m;
    pr->res = res;
    pr->bi = 0;
    pr->io.done = done;
    pr->io.n = m->count;
    pr->io.next = 0;
    /* Lines appear in manifest order as soon as every earlier file is done, as md5sum -c
    ** prints them (the MPI check reports at the end). */
    if (!co->mpi) {
        o.on_result = in_order_on_result;
        o.result_ctx = &pr->io;
    }
    merkle_status s = co->mpi ? mpi_manifest_check(res, m->entries, m->count, &o, &err)
                              : merkle_manifest_check(res, m->entries, m->count, &o, &err);
    if (s != MERKLE_OK) {
        cli_progress_end(&pc->p);
        fflush(stdout);
        cli_error("%s", err.message);
        free(res);
        free(done);
        return -1;
    }
    memset(done, 1, m->count);
    in_order_release(&pr->io);
    print_bad_lines(pr, UINT64_MAX);
    for (size_t i = 0; i < m->count; i++) pc->bytes_base += res[i].size;
    pc->files_base += m->count;
    free(res);
    free(done);
    return 0;
}

/* Check one manifest; returns 1 when it fully verified (coreutils' digest_check). */
static int check_one(const char *mname, merkle_manifest_parser *gp, const check_opts *co)
{
    int is_stdin = strcmp(mname, "-") == 0;
    const char *shown = is_stdin ? "standard input" : mname;
    int fd = is_stdin ? STDIN_FILENO : open(mname, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int oe = errno;
        cache_wait(co->loader);
        err_name(shown, strerror(oe));
        return 0;
    }
    mreader rd = { fd, 0, NULL, 0, 0, 0 };
    printer pr;
    memset(&pr, 0, sizeof pr);
    pr.co = co;
    pr.shown = shown;
    pr.io.print = print_entry;
    pr.io.self = &pr;
    pr.io.tty = isatty(STDOUT_FILENO);
    prog_ctx pc;
    memset(&pc, 0, sizeof pc);
    merkle_hash_alg alg = co->alg;
    uint64_t line_base = 0;
    int rc = 0;
    for (int first = 1;; first = 0) {
        const char *text = NULL;
        size_t len = 0;
        int e = mreader_next(&rd, &text, &len);
        if (e) {
            cache_wait(co->loader);
            cli_progress_end(&pc.p);
            fflush(stdout);
            fprintf(stderr, "%s: ", cli_progname);
            mcli_quotef(stderr, shown);
            fputs(": read error\n", stderr);
            goto out;
        }
        if (len == 0 && !first) break;
        mlist m;
        if (check_parse_window(text, len, first, line_base + 1, shown, is_stdin, gp, co, &m,
                               &alg) != 0)
            goto out;
        line_base += m.lines;
        if (first) {
            cache_wait(co->loader);
            pr.tag = alg == MERKLE_HASH_MD5      ? "MD5"
                     : alg == MERKLE_HASH_SHA1   ? "SHA1"
                     : alg == MERKLE_HASH_SHA256 ? "SHA256"
                     : alg == MERKLE_HASH_SHA512 ? "SHA512"
                                                 : "BLAKE2b";
            /* Totals for the progress line when the whole list is in this window. */
            int whole = rd.eof && rd.cut == rd.len;
            cli_progress_start(&pc.p, co->quiet || co->status, 0, whole ? m.count : 0);
            pr.io.prog = &pc.p;
            if (pc.p.enabled && whole && m.count > 1) {
                const char **names = malloc(m.count * sizeof *names);
                if (names) {
                    for (size_t i = 0; i < m.count; i++) names[i] = m.entries[i].name;
                    pc.p.total_bytes = total_size(AT_FDCWD, names, m.count);
                    free(names);
                }
            }
        }
        int w = check_window(&pr, &pc, &m, is_stdin, co);
        mlist_free(&m);
        if (w != 0) goto out;
        if (rd.eof && rd.cut == rd.len) break;
    }
    cli_progress_end(&pc.p);
    check_summary(&pr, co, shown);
    rc = pr.properly && pr.matched && pr.n_mismatch == 0 && pr.n_fail == 0 &&
         (!co->strict || pr.n_bad == 0);
out:
    if (!is_stdin) close(fd);
    free(rd.buf);
    return rc;
}

/* The key file: read at most KEY_MAX + 1 bytes (a key is short; /dev/zero or a wrong file
** must fail at once, not fill memory). A pipe (--cache-key <(...)) is fine. */
#define KEY_MAX (1u << 20)
static int load_key(const char *path, uint8_t **key, size_t *key_len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        cli_error("cache key %s: %s", path, strerror(errno));
        return -1;
    }
    uint8_t *buf = malloc(KEY_MAX + 1);
    size_t len = 0;
    int e = buf ? 0 : ENOMEM;
    while (!e && len <= KEY_MAX) {
        ssize_t r = read(fd, buf + len, KEY_MAX + 1 - len);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) e = errno;
        if (r <= 0) break;
        len += (size_t)r;
    }
    close(fd);
    if (e) {
        free(buf);
        cli_error("cache key %s: %s", path, strerror(e));
        return -1;
    }
    if (len > KEY_MAX) {
        memset(buf, 0, KEY_MAX + 1);
        free(buf);
        cli_error("cache key %s: too large (a key file holds at most %u bytes)", path, KEY_MAX);
        return -1;
    }
    if (len < 16) {
        free(buf);
        cli_error("cache key %s: a key needs at least 16 bytes, got %zu", path, len);
        return -1;
    }
    *key = buf;
    *key_len = len;
    return 0;
}

/* Parse check's options into co: 0, -1 after --help or --version, else the usage status. */
static int check_parse(int argc, char **argv, check_opts *co, const char **cache_path,
                       const char **key_path)
{
    const cli_cmd *cmd = &check_spec;
    uint64_t bits = 0;
    memset(co, 0, sizeof *co);
    cli_parser p;
    cli_parser_init(&p, cmd, argc, argv);
    const char *arg;
    int c, rc;
    while ((c = cli_opt_next(&p, &arg)) != CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_HELP: return -1;
        case CLI_OPT_ERROR: return cli_cmd_usage_rc(cmd);
        case 'a':
            if ((rc = parse_alg(cmd, arg, &co->alg)) != 0) return rc;
            break;
        case 'l':
            if ((rc = parse_bits(cmd, arg, &bits)) != 0) return rc;
            break;
        case OPT_VERSION: print_version(cmd->name); return -1;
        case OPT_CACHE: *cache_path = arg; break;
        case OPT_CACHE_KEY: *key_path = arg; break;
        case OPT_QUIET:
        case OPT_STATUS:
        case 'w': last_wins(c, &co->quiet, &co->status, &co->warn); break;
        case OPT_STRICT: co->strict = 1; break;
        case OPT_IGNORE_MISSING: co->ignore_missing = 1; break;
        case OPT_MPI: co->mpi = 1; break;
        case 'j':
            if ((rc = cli_parse_jobs(cmd, arg, &co->threads)) != 0) return rc;
            break;
        default: break; /* -c: accepted, as md5sum -c */
        }
    }
    if (bits && co->alg != MERKLE_HASH_BLAKE2B)
        return cli_cmd_usage(cmd, "-l/--length is only valid with -a blake2b");
    co->digest_len = (uint32_t)(bits / 8);
    if (*key_path && !*cache_path) return cli_cmd_usage(cmd, "--cache-key needs --cache FILE");
    return 0;
}

/* --cache and --cache-key: the cache allocated and its loading started. 0 or the status. */
static int check_open_cache(check_opts *co, cache_loader *loader, const char *cache_path,
                            const char *key_path)
{
    uint8_t *key = NULL;
    size_t key_len = 0;
    if (key_path && load_key(key_path, &key, &key_len) != 0) return CLI_USAGE;
    memset(loader, 0, sizeof *loader);
    if (cache_path) {
        if (merkle_vcache_alloc(&co->cache, key, key_len) != MERKLE_OK) {
            free(key);
            cli_error("cannot create the validation cache");
            return CLI_FAIL;
        }
        loader->cache = co->cache;
        loader->path = cache_path;
        co->loader = loader;
        cache_start(loader, co->threads != 1 && !co->mpi);
        if (co->mpi) cache_wait(loader);
    }
    if (key) {
        memset(key, 0, key_len);
        free(key);
    }
    return 0;
}

int cmd_check(int argc, char **argv)
{
    check_opts co;
    const char *cache_path = NULL, *key_path = NULL;
    int rc = check_parse(argc, argv, &co, &cache_path, &key_path);
    if (rc) return rc < 0 ? CLI_OK : rc;
    int first = optind;
    cache_loader loader;
    if ((rc = check_open_cache(&co, &loader, cache_path, key_path)) != 0) return rc;
    merkle_manifest_parser gp;
    merkle_manifest_parser_init(&gp, MERKLE_HASH_AUTO, 0);
    if (co.mpi) {
        /* Ranks other than 0 serve rank 0 until it is done, then return its status. */
        int served = mpi_check_start();
        if (served >= 0) {
            if (co.cache) merkle_vcache_free(co.cache);
            return served;
        }
    }
    int all_ok = 1;
    if (first >= argc) {
        all_ok &= check_one("-", &gp, &co);
    } else {
        for (int i = first; i < argc; i++) all_ok &= check_one(argv[i], &gp, &co);
    }
    rc = all_ok ? CLI_OK : CLI_FAIL;
    if (co.cache) {
        cache_wait(&loader);
        merkle_error err;
        if (merkle_vcache_save(co.cache, cache_path, &err) != MERKLE_OK)
            cli_error("warning: could not write the validation cache: %s", err.message);
        merkle_vcache_free(co.cache);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("write error");
        rc = CLI_FAIL;
    }
    if (co.mpi) rc = mpi_check_finish(rc);
    return rc;
}

/* ------------------------------------------------------------------ manifest loading */

/* Load a manifest file for audit/dirroot; 0 or CLI_* exit code. Malformed lines are errors. */
static int load_manifest(const char *sub, const char *path, merkle_hash_alg alg, mlist *m)
{
    int is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        err_name(path, strerror(errno));
        return CLI_USAGE;
    }
    char *text;
    size_t len;
    int e = cli_read_fd(fd, SIZE_MAX / 2, &text, &len);
    if (!is_stdin) close(fd);
    if (e) {
        err_name(path, strerror(e));
        return CLI_USAGE;
    }
    merkle_manifest_parser p;
    merkle_manifest_parser_init(&p, alg, 0);
    merkle_error err;
    if (mlist_parse(m, &p, text, len, 1, &err) != MERKLE_OK) {
        free(text);
        cli_error("%s: %s", path, err.message);
        return CLI_USAGE;
    }
    free(text);
    if (m->bad_count) {
        for (size_t i = 0; i < m->bad_count; i++)
            fprintf(stderr, "%s %s: %s:%llu: improperly formatted checksum line\n", cli_progname,
                    sub, path, (unsigned long long)m->bad_lines[i]);
        mlist_free(m);
        return CLI_USAGE;
    }
    (void)sub;
    return 0;
}

/* ------------------------------------------------------------------ cat */

int cmd_cat(int argc, char **argv)
{
    const cli_cmd *cmd = &cat_spec;
    const char *sub = cmd->name, *mpath = NULL, *arg;
    merkle_hash_alg alg = MERKLE_HASH_AUTO;
    cli_parser p;
    cli_parser_init(&p, cmd, argc, argv);
    int c, prc;
    while ((c = cli_opt_next(&p, &arg)) != CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_HELP: return CLI_OK;
        case CLI_OPT_ERROR: return cli_cmd_usage_rc(cmd);
        case 'm': mpath = arg; break;
        case 'a':
            if ((prc = parse_alg(cmd, arg, &alg)) != 0) return prc;
            break;
        default: break;
        }
    }
    if (!mpath) return cli_cmd_usage(cmd, "-m MANIFEST is required");
    if (optind >= argc) return cli_cmd_usage(cmd, "no FILE given");
    mlist m;
    if (load_manifest(sub, mpath, alg, &m) != 0) return CLI_FAIL;
    merkle_vreader *r;
    merkle_error err;
    if (merkle_vreader_alloc(&r, m.h, NULL, 0, &err) != MERKLE_OK) {
        mlist_free(&m);
        cli_error("%s: %s", mpath, err.message);
        return CLI_FAIL;
    }
    mlist_free(&m);
    size_t n = (size_t)(argc - optind);
    merkle_vbuf **bufs = calloc(n, sizeof *bufs);
    const uint8_t **data = calloc(n, sizeof *data);
    size_t *lens = calloc(n, sizeof *lens);
    int rc = CLI_OK;
    if (!bufs || !data || !lens) {
        cli_error("out of memory");
        rc = CLI_FAIL;
    }
    for (size_t i = 0; i < n && rc == CLI_OK; i++) {
        const char *name = argv[optind + (int)i];
        merkle_status s = merkle_vreader_read(&data[i], &lens[i], &bufs[i], NULL, r, name, &err);
        if (s != MERKLE_OK) {
            fprintf(stderr, "%s cat: %s\n", cli_progname, err.message);
            rc = CLI_FAIL;
        }
    }
    for (size_t i = 0; i < n && rc == CLI_OK; i++) {
        if (lens[i] && fwrite(data[i], 1, lens[i], stdout) != lens[i]) rc = CLI_FAIL;
    }
    if (rc == CLI_OK && (fflush(stdout) != 0 || ferror(stdout))) {
        cli_error("write error");
        rc = CLI_FAIL;
    }
    for (size_t i = 0; bufs && i < n; i++) merkle_vbuf_free(bufs[i]);
    free(bufs);
    free(data);
    free(lens);
    merkle_vreader_free(r);
    return rc;
}

/* ------------------------------------------------------------------ audit */

/* "WHAT: NAME" or, with to, "WHAT: NAME -> TO": when a name holds '\\', LF or CR, the line
** starts with '\\' and both names are escaped (as in sum output). */
static void audit_line(const char *what, const char *name, const char *to)
{
    int esc = strpbrk(name, "\\\n\r") != NULL || (to && strpbrk(to, "\\\n\r") != NULL);
    if (esc) putchar('\\');
    fputs(what, stdout);
    fputs(": ", stdout);
    put_name(stdout, name, esc);
    if (to) {
        fputs(" -> ", stdout);
        put_name(stdout, to, esc);
    }
    putchar('\n');
}

typedef struct audit_ctx {
    const char *dir;
    cli_progress p;
} audit_ctx;

static void audit_event(void *ctx, const merkle_audit_event *ev)
{
    const audit_ctx *a = ctx;
    switch (ev->kind) {
    case MERKLE_AUDIT_CHANGED: audit_line("changed", ev->name, NULL); break;
    case MERKLE_AUDIT_MISSING: audit_line("missing", ev->name, NULL); break;
    case MERKLE_AUDIT_MOVED: audit_line("moved", ev->name, ev->to); break;
    case MERKLE_AUDIT_NEW: audit_line("new", ev->name, NULL); break;
    case MERKLE_AUDIT_UNREADABLE:
        fflush(stdout);
        err_name(ev->name, strerror(ev->sys_errno));
        break;
    case MERKLE_AUDIT_WALK_ERROR: err_name(a->dir, strerror(ev->sys_errno)); break;
    }
}

static void audit_stage(void *ctx, merkle_audit_stage stage, uint64_t files)
{
    audit_ctx *a = ctx;
    cli_progress_end(&a->p);
    if (stage != MERKLE_AUDIT_STAGE_REPORT) cli_progress_start(&a->p, 0, 0, files);
}

static void audit_progress(void *ctx, uint64_t files, uint64_t bytes)
{
    audit_ctx *a = ctx;
    cli_progress_update(&a->p, bytes, files);
}

int cmd_audit(int argc, char **argv)
{
    const cli_cmd *cmd = &audit_spec;
    const char *sub = cmd->name, *arg;
    merkle_hash_alg alg = MERKLE_HASH_AUTO;
    unsigned threads = 0;
    cli_parser p;
    cli_parser_init(&p, cmd, argc, argv);
    int c, prc;
    while ((c = cli_opt_next(&p, &arg)) != CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_HELP: return CLI_OK;
        case CLI_OPT_ERROR: return cli_cmd_usage_rc(cmd);
        case 'a':
            if ((prc = parse_alg(cmd, arg, &alg)) != 0) return prc;
            break;
        case 'j':
            if ((prc = cli_parse_jobs(cmd, arg, &threads)) != 0) return prc;
            break;
        default: break;
        }
    }
    if (argc - optind != 2) return cli_cmd_usage(cmd, "expected MANIFEST DIR");
    const char *mpath = argv[optind], *dir = argv[optind + 1];
    mlist m;
    int rc = load_manifest(sub, mpath, alg, &m);
    if (rc) return rc;
    merkle_audit_opts o;
    merkle_audit_opts_init(&o, MERKLE_AUDIT_OPTS_VERSION);
    merkle_file_id skip;
    if (strcmp(mpath, "-") != 0 && merkle_file_id_of(&skip, mpath, NULL) == MERKLE_OK)
        o.skip = &skip;
    audit_ctx ac = { dir, { 0 } };
    cli_progress_start(&ac.p, 0, 0, m.count); /* is there a terminal to show progress on? */
    o.threads = threads;
    o.on_event = audit_event;
    o.event_ctx = &ac;
    if (ac.p.enabled) {
        o.on_stage = audit_stage;
        o.progress = audit_progress;
        o.progress_ctx = &ac;
    }
    merkle_audit_counts n;
    merkle_error err;
    merkle_status s = merkle_manifest_audit(&n, m.h, dir, &o, &err);
    cli_progress_end(&ac.p);
    mlist_free(&m);
    if (s == MERKLE_ERR_IO) {
        err_name(dir, strerror(err.sys_errno));
        return CLI_USAGE;
    }
    if (s != MERKLE_OK) {
        cli_error("%s", s == MERKLE_ERR_NOMEM ? "out of memory" : err.message);
        return CLI_USAGE;
    }
    fflush(stdout);
    fprintf(stderr,
            "%s audit: %llu ok, %llu changed, %llu missing, %llu moved, %llu new, "
            "%llu unreadable\n",
            cli_progname, (unsigned long long)n.ok, (unsigned long long)n.changed,
            (unsigned long long)n.missing, (unsigned long long)n.moved,
            (unsigned long long)n.new_files, (unsigned long long)n.unreadable);
    if (n.walk_errors || n.unreadable) return CLI_USAGE;
    return (n.changed || n.missing || n.moved || n.new_files) ? CLI_FAIL : CLI_OK;
}

/* ------------------------------------------------------------------ dirroot */

int cmd_dirroot(int argc, char **argv)
{
    const cli_cmd *cmd = &dirroot_spec;
    const char *sub = cmd->name, *arg;
    merkle_hash_alg alg = MERKLE_HASH_AUTO;
    int leaves = 0;
    cli_parser p;
    cli_parser_init(&p, cmd, argc, argv);
    int c, prc;
    while ((c = cli_opt_next(&p, &arg)) != CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_HELP: return CLI_OK;
        case CLI_OPT_ERROR: return cli_cmd_usage_rc(cmd);
        case 'a':
            if ((prc = parse_alg(cmd, arg, &alg)) != 0) return prc;
            break;
        case OPT_LEAVES: leaves = 1; break;
        default: break;
        }
    }
    if (argc - optind != 1) return cli_cmd_usage(cmd, "expected one MANIFEST");
    mlist m;
    int rc = load_manifest(sub, argv[optind], alg, &m);
    if (rc) return rc == CLI_USAGE ? CLI_FAIL : rc;
    uint8_t root[MERKLE_HASH_LEN];
    merkle_error err;
    if (merkle_manifest_dirroot(root, m.h, &err) != MERKLE_OK) {
        cli_error("%s: %s", argv[optind], err.message);
        mlist_free(&m);
        return CLI_FAIL;
    }
    if (leaves) {
        uint8_t buf[4 + 4096 + 2 + 64];
        for (size_t i = 0; i < m.count; i++) {
            size_t need;
            merkle_manifest_leaf_encode(NULL, 0, &need, &m.entries[i]);
            uint8_t *b = need <= sizeof buf ? buf : malloc(need);
            if (!b) continue;
            merkle_manifest_leaf_encode(b, need, &need, &m.entries[i]);
            char *hex = malloc(2 * need + 1);
            if (hex) {
                merkle_hex_encode(hex, b, need);
                puts(hex);
                free(hex);
            }
            if (b != buf) free(b);
        }
    } else {
        char hex[2 * MERKLE_HASH_LEN + 1];
        merkle_hex_encode(hex, root, sizeof root);
        puts(hex);
    }
    mlist_free(&m);
    return CLI_OK;
}
