/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** What the manifest commands (cli/cmd_sum.c, cmd_check.c, cmd_cat.c, cmd_audit.c,
** cmd_dirroot.c) share: option parsing (-a, -l, --quiet/--status/--warn), coreutils-style
** messages and names, the progress line, lines printed in list order, and a parsed manifest.
*/
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "manifest_util.h"

void mcli_print_version(const char *sub)
{
    printf("merkle %s %s\n", sub, merkle_version());
}

/* As in coreutils, the last of --quiet, --status and --warn wins (opt: the one just seen). */
void mcli_last_wins(int opt, int *quiet, int *status, int *warn)
{
    *quiet = opt == OPT_QUIET;
    *status = opt == OPT_STATUS;
    *warn = opt == 'w';
}

/* -a ALGO: 0, or the command's usage status after the message. */
int mcli_parse_alg(const cli_cmd *cmd, const char *arg, merkle_hash_alg *alg)
{
    if (merkle_manifest_alg_from_name(alg, arg) != MERKLE_OK)
        return cli_cmd_usage(cmd, "unknown algorithm '%s' (md5, sha1, sha256, sha512, blake2b)",
                             arg);
    return 0;
}

/* -l/--length BITS as b2sum parses it (its messages, exit 1 from sum and check). 0 or the
** exit status. 0 bits means the algorithm's full length. */
int mcli_parse_bits(const cli_cmd *cmd, const char *arg, uint64_t *bits)
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
void mcli_err_name(const char *name, const char *msg)
{
    fprintf(stderr, "%s: ", cli_progname);
    mcli_quotef(stderr, name);
    fprintf(stderr, ": %s\n", msg);
}

const char *mcli_list_errstr(int sys_errno)
{
    return sys_errno == EINVAL ? "not a regular file" : strerror(sys_errno);
}

/* Print name as coreutils' print_filename: with escape, '\\' and '\n' (and '\r') become
** two-character escapes; the caller has printed the leading backslash. */
void mcli_put_name(FILE *f, const char *name, int escape)
{
    if (escape)
        cli_fputs_escaped(f, name);
    else
        fputs(name, f);
}

void mcli_on_progress(void *ctx, uint64_t files, uint64_t bytes)
{
    prog_ctx *c = ctx;
    cli_progress_update(&c->p, c->bytes_base + bytes, c->files_base + files);
}

/* Sum of the sizes of names (for the progress line only: costs a stat per file). */
uint64_t mcli_total_size(int dirfd, const char *const *names, size_t n)
{
    uint64_t t = 0;
    struct stat st;
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], "-") != 0 && fstatat(dirfd, names[i], &st, 0) == 0 &&
            S_ISREG(st.st_mode))
            t += (uint64_t)st.st_size;
    return t;
}

static int64_t mono_ns(void)
{
    struct timespec ts;
#ifdef CLOCK_MONOTONIC_COARSE
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts); /* Linux: no system call, tick resolution */
#else
    clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Lines left in stdout's buffer are flushed by a thread within 200 ms (started on the first
** such line): the next file may take long or never end (a FIFO `sum` reads). */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    pthread_t tid;
    int started, stop;
    atomic_int dirty;
} g_flusher = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0 };

static void *flusher_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&g_flusher.lock);
    while (!g_flusher.stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 200000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        (void)pthread_cond_timedwait(&g_flusher.cond, &g_flusher.lock, &ts);
        if (atomic_exchange(&g_flusher.dirty, 0)) fflush(stdout); /* stdio locks stdout */
    }
    pthread_mutex_unlock(&g_flusher.lock);
    return NULL;
}

void mcli_flusher_stop(void)
{
    pthread_mutex_lock(&g_flusher.lock);
    int started = g_flusher.started;
    g_flusher.stop = 1;
    pthread_cond_signal(&g_flusher.cond);
    pthread_mutex_unlock(&g_flusher.lock);
    if (started) pthread_join(g_flusher.tid, NULL);
    g_flusher.started = 0;
    g_flusher.stop = 0;
}

void mcli_in_order_release(in_order *o)
{
    size_t before = o->next;
    while (o->next < o->n && o->done[o->next]) o->print(o->self, o->next++);
    if (o->next == before) return;
    int64_t now = mono_ns();
    if (o->tty || now - o->last_flush_ns >= 200000000) {
        fflush(stdout);
        o->last_flush_ns = now;
        return;
    }
    atomic_store(&g_flusher.dirty, 1);
    if (!g_flusher.started) /* without the thread, the lines wait for the next release */
        g_flusher.started = pthread_create(&g_flusher.tid, NULL, flusher_main, NULL) == 0;
}

void mcli_in_order_on_result(void *ctx, size_t index, const merkle_check_result *r)
{
    in_order *o = ctx;
    (void)r;
    o->done[index] = 1;
    if (index != o->next) return;
    if (o->prog && o->prog->shown) cli_progress_end(o->prog);
    mcli_in_order_release(o);
}

/* Refresh the parts (after parsing or sorting). */
static void mlist_view(mlist *l)
{
    l->entries = merkle_manifest_entries(l->h);
    l->count = merkle_manifest_count(l->h);
    l->bad_lines = merkle_manifest_bad_lines(l->h, &l->bad_count);
    l->lines = merkle_manifest_lines(l->h);
}

merkle_status mcli_list_parse(mlist *l, merkle_manifest_parser *p, const char *text, size_t len,
                              uint64_t first_line, merkle_error *err)
{
    memset(l, 0, sizeof *l);
    merkle_status s = merkle_manifest_parse_alloc(&l->h, p, text, len, first_line, err);
    if (s == MERKLE_OK) mlist_view(l);
    return s;
}

void mcli_list_free(mlist *l)
{
    merkle_manifest_free(l->h);
    memset(l, 0, sizeof *l);
}

/* Load a manifest file for audit/dirroot; 0 or CLI_* exit code. Malformed lines are errors. */
int mcli_load_manifest(const char *sub, const char *path, merkle_hash_alg alg, mlist *m)
{
    int is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        mcli_err_name(path, strerror(errno));
        return CLI_USAGE;
    }
    char *text;
    size_t len;
    int e = cli_read_fd(fd, cli_input_max(), &text, &len);
    if (!is_stdin) close(fd);
    if (e == EFBIG) {
        cli_read_limit_error(path, e, cli_input_max(), "a manifest");
        return CLI_USAGE;
    }
    if (e) {
        mcli_err_name(path, strerror(e));
        return CLI_USAGE;
    }
    merkle_manifest_parser p;
    merkle_manifest_parser_init(&p, alg, 0);
    merkle_error err;
    if (mcli_list_parse(m, &p, text, len, 1, &err) != MERKLE_OK) {
        free(text);
        cli_error("%s: %s", path, err.message);
        return CLI_USAGE;
    }
    free(text);
    if (m->bad_count) {
        for (size_t i = 0; i < m->bad_count; i++)
            fprintf(stderr, "%s %s: %s:%llu: improperly formatted checksum line\n", cli_progname,
                    sub, path, (unsigned long long)m->bad_lines[i]);
        mcli_list_free(m);
        return CLI_USAGE;
    }
    (void)sub;
    return 0;
}
