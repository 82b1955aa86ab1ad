/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle check [-a ALGO] [--cache FILE] [--cache-key FILE] [--quiet] [--status] [--strict]
**              [-w] [--ignore-missing] [-j N] MANIFEST...
**
** Prints what md5sum -c (sha1sum, sha256sum, sha512sum, b2sum -c) prints (the program name
** before the first colon of a stderr line differs). Checking lives in src/manifest/.
*/
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "manifest_util.h"
#include "mpi_check.h"

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
        mcli_err_name(en->name, mcli_list_errstr(r->sys_errno));
        p->n_fail++;
        if (!co->status) {
            if (escape) putchar('\\');
            mcli_put_name(stdout, en->name, escape);
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
        mcli_put_name(stdout, en->name, escape);
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
/* The last '\n' of p[0..n): memrchr where the C library has it (CMake check_symbol_exists). */
static const char *last_newline(const char *p, size_t n)
{
#ifdef MERKLE_HAVE_MEMRCHR
    return memrchr(p, '\n', n);
#else
    while (n > 0)
        if (p[--n] == '\n') return p + n;
    return NULL;
#endif
}

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
        size_t lim = cli_input_max();
        const char *nl =
            r->len >= CHECK_WINDOW || r->len > lim ? last_newline(r->buf, r->len) : NULL;
        if (nl) {
            r->cut = (size_t)(nl - r->buf) + 1;
            break;
        }
        /* A line is at most the CLI's input limit (cli.h): /dev/zero is not read forever. */
        if (r->len > lim) return EFBIG;
        if (r->cap - r->len < CHECK_WINDOW) {
            if (r->cap >= SIZE_MAX / 4) return EFBIG;
            size_t nc = r->cap ? r->cap * 2 : 2 * CHECK_WINDOW;
            char *nb = realloc(r->buf, nc);
            if (!nb) return ENOMEM;
            r->buf = nb;
            r->cap = nc;
        }
        size_t want = r->cap - r->len;
        if (want > lim + 1 - r->len) want = lim + 1 - r->len; /* the byte that passes it */
        ssize_t k = read(r->fd, r->buf + r->len, want);
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
    if (mcli_list_parse(&m, gp, text, len, first_line, &err) != MERKLE_OK) {
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
        if (mcli_list_parse(&m2, &p2, text, len, first_line, &err) == MERKLE_OK) {
            mcli_list_free(&m);
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
        o.progress = mcli_on_progress;
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
        o.on_result = mcli_in_order_on_result;
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
    mcli_in_order_release(&pr->io);
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
        mcli_err_name(shown, strerror(oe));
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
        if (e == EFBIG) {
            cache_wait(co->loader);
            cli_progress_end(&pc.p);
            fflush(stdout);
            fprintf(stderr, "%s: ", cli_progname);
            mcli_quotef(stderr, shown);
            fprintf(stderr,
                    ": a line larger than the %zu-byte limit for a manifest line "
                    "(MERKLE_INPUT_MAX raises it)\n",
                    cli_input_max());
            goto out;
        }
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
                    pc.p.total_bytes = mcli_total_size(AT_FDCWD, names, m.count);
                    free(names);
                }
            }
        }
        int w = check_window(&pr, &pc, &m, is_stdin, co);
        mcli_list_free(&m);
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
            if ((rc = mcli_parse_alg(cmd, arg, &co->alg)) != 0) return rc;
            break;
        case 'l':
            if ((rc = mcli_parse_bits(cmd, arg, &bits)) != 0) return rc;
            break;
        case OPT_VERSION: mcli_print_version(cmd->name); return -1;
        case OPT_CACHE: *cache_path = arg; break;
        case OPT_CACHE_KEY: *key_path = arg; break;
        case OPT_QUIET:
        case OPT_STATUS:
        case 'w': mcli_last_wins(c, &co->quiet, &co->status, &co->warn); break;
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
    mcli_flusher_stop();
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
