/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Feeding inputs to trees: byte streams in large reads, hex leaf lists line by line.
*/
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rootio.h"

#define READ_CHUNK (1u << 20)

static int push_leaf_cb(void *ctx, const uint8_t *leaf, size_t len)
{
    merkle_status s = merkle_tree_push_leaf((merkle_tree *)ctx, leaf, len);
    if (s != MERKLE_OK) {
        cli_error("%s", merkle_strerror(s));
        return -1;
    }
    return 0;
}

/* --leaf-hashes: each line is one 32-byte leaf hash (counted for the message). */
typedef struct leaf_hash_ctx {
    merkle_tree *t;
    const char *name;
    uint64_t line;
} leaf_hash_ctx;

static int push_leaf_hash_cb(void *ctx, const uint8_t *leaf, size_t len)
{
    leaf_hash_ctx *c = (leaf_hash_ctx *)ctx;
    c->line++;
    if (len != MERKLE_HASH_LEN) {
        cli_error("%s:%llu: expected a 32-byte leaf hash (64 hex digits), got %zu bytes", c->name,
                  (unsigned long long)c->line, len);
        return -1;
    }
    merkle_status s = merkle_tree_push_leaf_hash(c->t, leaf);
    if (s != MERKLE_OK) {
        cli_error("%s: %s", c->name, merkle_strerror(s));
        return -1;
    }
    return 0;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

int root_read_leaves(const char *name, int fd,
                     int (*fn)(void *ctx, const uint8_t *leaf, size_t len), void *ctx)
{
    size_t cap = 1 << 16, used = 0, start = 0;
    char *buf = malloc(cap);
    uint8_t *leaf = NULL;
    size_t leaf_cap = 0;
    uint64_t line = 0, total = 0;
    const size_t lim = cli_input_max(); /* the whole list: /dev/zero is not read forever */
    int eof = 0, rc = 0;
    if (!buf) {
        cli_error("%s: out of memory", name);
        return -1;
    }
    struct stat st; /* a regular file over the limit: refused before a byte is read */
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > lim) {
        cli_read_limit_error(name, EFBIG, lim, "a leaf list");
        free(buf);
        return -1;
    }
    while (rc == 0) {
        /* Find a complete line in buf[start..used), else read more. */
        char *nl = memchr(buf + start, '\n', used - start);
        if (!nl && !eof) {
            if (start > 0) {
                memmove(buf, buf + start, used - start);
                used -= start;
                start = 0;
            }
            if (used == cap) {
                char *nb = realloc(buf, cap * 2);
                if (!nb) {
                    cli_error("%s: out of memory", name);
                    rc = -1;
                    break;
                }
                buf = nb;
                cap *= 2;
            }
            size_t want = cap - used;
            if (want > lim + 1 - total) want = (size_t)(lim + 1 - total);
            ssize_t got = read(fd, buf + used, want);
            if (got < 0) {
                if (errno == EINTR) continue;
                cli_error("%s: %s", name, strerror(errno));
                rc = -1;
                break;
            }
            if (got == 0) eof = 1;
            used += (size_t)got;
            total += (uint64_t)got;
            if (total > lim) {
                cli_read_limit_error(name, EFBIG, lim, "a leaf list");
                rc = -1;
                break;
            }
            continue;
        }
        if (!nl && start == used) break; /* clean end (last line had its newline) */
        size_t end = nl ? (size_t)(nl - buf) : used;
        line++;
        /* Trim surrounding white space (a CRLF file works). */
        size_t a = start, b = end;
        /* (the analyzer takes memchr over 0 bytes for a hit: buf[a] is read, a < used) */
        while (a < b && is_space(buf[a])) a++; // NOLINT(clang-analyzer-core.CallAndMessage)
        while (b > a && is_space(buf[b - 1])) b--;
        /* 0x-hex, as Ethereum and Chia tools write it (buf[a..b) was read: a < b <= used) */
        if (b - a >= 2 &&
            buf[a] == '0' && // NOLINT(clang-analyzer-core.UndefinedBinaryOperatorResult)
            (buf[a + 1] == 'x' || buf[a + 1] == 'X'))
            a += 2;
        size_t hl = b - a;
        if (hl / 2 + 1 > leaf_cap) {
            leaf_cap = hl / 2 + 1;
            uint8_t *nl2 = realloc(leaf, leaf_cap);
            if (!nl2) {
                cli_error("%s: out of memory", name);
                rc = -1;
                break;
            }
            leaf = nl2;
        }
        size_t n;
        merkle_error err;
        if (merkle_hex_decode(leaf, leaf_cap, &n, buf + a, hl, &err) != MERKLE_OK) {
            cli_error("%s:%llu: invalid hex leaf: %s", name, (unsigned long long)line, err.message);
            rc = -1;
            break;
        }
        if (fn(ctx, leaf, n) != 0) {
            rc = -1;
            break;
        }
        start = nl ? end + 1 : used;
        if (!nl) break;
    }
    free(buf);
    free(leaf);
    return rc;
}

static int fail_io(const char *name, int err)
{
    cli_error("%s: %s", name, strerror(err));
    return -1;
}

/* ------------------------------------------------------------------ byte streams */

/* Reader for the threaded path: pread, plus a progress line that never makes a worker wait
** (whoever holds the display lock draws; the others skip). */
typedef struct pread_src {
    int fd;
    _Atomic uint64_t done;
    pthread_mutex_t display;
    cli_progress prog;
} pread_src;

static merkle_status pread_progress(void *ctx, void *buf, size_t len, uint64_t offset);

static merkle_status pread_all(void *ctx, void *buf, size_t len, uint64_t offset)
{
    int e = cli_pread_full(((const pread_src *)ctx)->fd, buf, len, offset);
    if (e == 0) return MERKLE_OK;
    errno = e > 0 ? e : EIO; /* -1: the file shrank under us */
    return MERKLE_ERR_IO;
}

static merkle_status pread_progress(void *ctx, void *buf, size_t len, uint64_t offset)
{
    pread_src *src = (pread_src *)ctx;
    merkle_status s = pread_all(ctx, buf, len, offset);
    uint64_t done = atomic_fetch_add(&src->done, len) + len;
    if (src->prog.enabled && pthread_mutex_trylock(&src->display) == 0) {
        cli_progress_update(&src->prog, done, 0);
        pthread_mutex_unlock(&src->display);
    }
    return s;
}

/*
** One hashing thread with reading overlapped: a reader thread fills READ_CHUNK buffers
** (whole buffers, so batches see many leaves) while the caller hashes the previous one.
*/
#define NBUF 3
typedef struct pipeline {
    int fd;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint8_t *buf[NBUF];
    size_t len[NBUF];
    int full[NBUF];
    int last[NBUF]; /* this buffer ends the stream (EOF or error) */
    int err, stop;
} pipeline;

static void *reader_main(void *arg)
{
    pipeline *pl = (pipeline *)arg;
    for (unsigned i = 0;; i = (i + 1) % NBUF) {
        pthread_mutex_lock(&pl->mu);
        while (pl->full[i] && !pl->stop) pthread_cond_wait(&pl->cv, &pl->mu);
        int stop = pl->stop;
        pthread_mutex_unlock(&pl->mu);
        if (stop) return NULL;
        size_t used = 0;
        int eof = 0, err = 0;
        while (used < READ_CHUNK) {
            ssize_t got = read(pl->fd, pl->buf[i] + used, READ_CHUNK - used);
            if (got < 0) {
                if (errno == EINTR) continue;
                err = errno;
                break;
            }
            if (got == 0) {
                eof = 1;
                break;
            }
            used += (size_t)got;
        }
        pthread_mutex_lock(&pl->mu);
        pl->len[i] = used;
        pl->full[i] = 1;
        pl->last[i] = eof || err;
        pl->err = err;
        pthread_cond_broadcast(&pl->cv);
        pthread_mutex_unlock(&pl->mu);
        if (eof || err) return NULL;
    }
}

static int stream_root(const root_opts *o, const char *name, int fd, uint64_t total, merkle_tree *t,
                       root_result *res)
{
    pipeline pl;
    memset(&pl, 0, sizeof pl);
    pl.fd = fd;
    int rc = 0;
    for (int i = 0; i < NBUF; i++)
        if (!(pl.buf[i] = malloc(READ_CHUNK))) rc = -1;
    if (rc) {
        for (int i = 0; i < NBUF; i++) free(pl.buf[i]);
        return fail_io(name, ENOMEM);
    }
    pthread_mutex_init(&pl.mu, NULL);
    pthread_cond_init(&pl.cv, NULL);
    pthread_t tid;
    if (pthread_create(&tid, NULL, reader_main, &pl) != 0) {
        for (int i = 0; i < NBUF; i++) free(pl.buf[i]);
        return fail_io(name, EAGAIN);
    }
    cli_progress prog;
    cli_progress_start(&prog, o->quiet, total, 0);
    for (unsigned i = 0;; i = (i + 1) % NBUF) {
        pthread_mutex_lock(&pl.mu);
        while (!pl.full[i]) pthread_cond_wait(&pl.cv, &pl.mu);
        size_t len = pl.len[i];
        int done = pl.last[i];
        int err = pl.err;
        pthread_mutex_unlock(&pl.mu);
        merkle_status s = merkle_tree_write(t, pl.buf[i], len);
        res->bytes += len;
        cli_progress_update(&prog, res->bytes, 0);
        pthread_mutex_lock(&pl.mu);
        pl.full[i] = 0;
        if (s != MERKLE_OK) pl.stop = 1;
        pthread_cond_broadcast(&pl.cv);
        pthread_mutex_unlock(&pl.mu);
        if (s != MERKLE_OK) {
            cli_error("%s: %s", name, merkle_strerror(s));
            rc = -1;
            break;
        }
        if (done) {
            if (err) rc = fail_io(name, err);
            break;
        }
    }
    pthread_join(tid, NULL);
    cli_progress_end(&prog);
    pthread_mutex_destroy(&pl.mu);
    pthread_cond_destroy(&pl.cv);
    for (int i = 0; i < NBUF; i++) free(pl.buf[i]);
    return rc;
}

int root_compute(const root_opts *o, const char *name, uint8_t root[MERKLE_HASH_LEN],
                 root_result *res)
{
    memset(res, 0, sizeof *res);
    int fd = cli_open_input(name);
    if (fd < 0) return fail_io(name, errno);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        if (fd != STDIN_FILENO) close(fd);
        return fail_io(name, e);
    }
    if (S_ISDIR(st.st_mode)) {
        if (fd != STDIN_FILENO) close(fd);
        return fail_io(name, EISDIR);
    }
    int rc = 0;
    merkle_status s;
    if (!o->leaves && S_ISREG(st.st_mode) && o->threads > 1) {
        /* Regular file, several threads: aligned pieces read with pread, joined in order. */
        uint64_t total = (uint64_t)st.st_size;
#ifdef POSIX_FADV_SEQUENTIAL
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
        errno = 0;
        pread_src src;
        src.fd = fd;
        atomic_init(&src.done, 0);
        pthread_mutex_init(&src.display, NULL);
        cli_progress_start(&src.prog, o->quiet, total, 0);
        s = merkle_tree_root_parallel(root, &res->is_empty, o->profile, o->hash, o->leaf_size,
                                      total, pread_progress, &src, o->threads);
        cli_progress_end(&src.prog);
        pthread_mutex_destroy(&src.display);
        if (s == MERKLE_ERR_IO)
            rc = fail_io(name, errno ? errno : EIO);
        else if (s != MERKLE_OK) {
            cli_error("%s: %s", name, merkle_strerror(s));
            rc = -1;
        }
        res->bytes = total;
        res->leaf_count = total / o->leaf_size + (total % o->leaf_size != 0);
        if (fd != STDIN_FILENO) close(fd);
        return rc;
    }
    merkle_tree *t = malloc(sizeof *t);
    if (!t) {
        if (fd != STDIN_FILENO) close(fd);
        return fail_io(name, ENOMEM);
    }
    s = merkle_tree_init(t, o->profile, o->hash, o->leaf_size);
    if (s != MERKLE_OK) {
        cli_error("%s: %s", name, merkle_strerror(s));
        rc = -1;
    } else if (o->leaves) {
        leaf_hash_ctx lh = { t, name, 0 };
        rc = o->leaf_hashes ? root_read_leaves(name, fd, push_leaf_hash_cb, &lh)
                            : root_read_leaves(name, fd, push_leaf_cb, t);
    } else {
#ifdef POSIX_FADV_SEQUENTIAL
        if (S_ISREG(st.st_mode)) (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
        rc = stream_root(o, name, fd, S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0, t, res);
    }
    if (fd != STDIN_FILENO) close(fd);
    if (rc == 0) {
        res->leaf_count = merkle_tree_leaf_count(t);
        s = merkle_tree_root(root, &res->is_empty, t);
        if (s != MERKLE_OK) {
            cli_error("%s: %s", name, merkle_strerror(s));
            rc = -1;
        }
    }
    free(t);
    return rc;
}
