/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Checking many files: threads take chunks of the file list; within a chunk, MD5 files go
** through the multi-buffer engine (16 files in flight, reused lane buffers) and the other
** algorithms are read with one reused buffer per thread. With a validation cache, a first
** pass on the same threads looks every file up and stats those the cache could vouch for;
** only the files it did not answer are read.
*/
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/os.h"

/* A directory descriptor for fstatat only: O_PATH (Linux) needs no read permission. */
#ifdef O_PATH
#define MERKLE_O_PATH O_PATH
#else
#define MERKLE_O_PATH O_RDONLY
#endif

#include "common/internal.h"
#include "common/parallel.h"
#include "hash/md5_mb.h"
#include "io/fbatch.h"
#include "io/fdbudget.h"
#include "io/md5_files.h"
#include "io/pseudofs.h"
#include "io/uring.h"
#include "manifest/manifest_impl.h"

#define READ_BUF    (256 * 1024)
#define PROBE_BATCH 64          /* cache lookups per lock */
#define CACHE_CHUNK 256         /* files a thread takes at a time in the cache pass */
#define FB_BATCH    16          /* small non-MD5 files opened and read at once */
#define FB_SLOT     (32 * 1024) /* ... when at most this large */

typedef struct job {
    const char *name;
    merkle_hash_alg alg;
    size_t dlen;
    const uint8_t *expected; /* NULL: just hash */
} job;

typedef struct engine {
    const job *jobs;
    merkle_check_result *res;
    const size_t *sel; /* the jobs of this pass: indices into jobs/res */
    size_t n, chunk;   /* n: entries of sel */
    atomic_size_t next;
    const merkle_check_opts *opts;
    int dirfd;         /* names are relative to this (AT_FDCWD, or opts->dir opened) */
    int regular_only;  /* check, audit: a listed name that is not a regular file is refused
                       ** unread (io/fdbudget.h merkle__fd_open_regular); sum reads it */
    uint8_t *answered; /* cache pass: sel[k] was answered from the cache */
    pthread_mutex_t lock;
    uint64_t files_done, bytes_done;
    merkle_file_id *ids; /* with a cache: identity of each file that verified OK ... */
    uint8_t *record;     /* ... recorded after the run, in list order (see run) */
    uint8_t *delivered;  /* with opts->on_result: res[i] was handed to it */
} engine;

/* Progress counters of one thread. */
typedef struct tally {
    uint64_t bytes, files_unreported, bytes_reported;
} tally;

/* The directory of the previous name, opened once: path walks are a good part of a stat,
** and a manifest lists a directory's files together. */
typedef struct statdir {
    char *dir;
    size_t len, cap;
    int fd;
    merkle__ring *ring; /* the statx batches, when io_uring is used */
    int ring_failed;
    merkle__pseudo_memo pm; /* devices seen: pseudo file systems are never answered for */
} statdir;

typedef struct worker {
    engine *e;
    uint8_t *buf;
    merkle__mdigest md;
    size_t *md5_idx; /* job indices of this chunk's MD5 files */
    const char **md5_paths;
    tally t;
    merkle__fbatch fb; /* batched opens and reads of small non-MD5 files */
    uint8_t *slots;    /* FB_BATCH slots of FB_SLOT + 1 bytes, on first use */
    merkle__md5_mb_engine *eng;
    size_t *later; /* pull form: non-MD5 files put off while out of descriptors */
    size_t nlater, later_cap;
} worker;

/* fstatat(dirfd, name) through sd's directory descriptor. 0 or -1 (errno). */
static int stat_rel(statdir *sd, int dirfd, const char *name, struct stat *st)
{
    const char *base = name;
    const char *slash = strrchr(name, '/');
    if (slash && slash != name) {
        size_t dl = (size_t)(slash - name);
        if (!(sd->fd >= 0 && sd->len == dl && memcmp(sd->dir, name, dl) == 0)) {
            if (sd->fd >= 0) close(sd->fd);
            sd->fd = -1;
            if (merkle__grow(&sd->dir, &sd->cap, dl + 1, 1) == 0) {
                MERKLE_ASSERT(sd->dir != NULL); /* cap >= dl + 1 > 0 */
                memcpy(sd->dir, name, dl);
                sd->dir[dl] = '\0';
                sd->len = dl;
                sd->fd = openat(dirfd, sd->dir, MERKLE_O_PATH | O_DIRECTORY | O_CLOEXEC);
            }
        }
        if (sd->fd >= 0) {
            dirfd = sd->fd;
            base = slash + 1;
        }
    }
    return fstatat(dirfd, base, st, 0);
}

static void statdir_free(statdir *sd)
{
    merkle__ring_close(sd->ring);
    free(sd->dir);
    if (sd->fd >= 0) close(sd->fd);
}

/* Hand res[i] to the result callback, once (serialised with progress). */
static void deliver(engine *e, size_t i)
{
    MERKLE_ASSERT(e->jobs && e->res);
    if (!e->opts->on_result) return;
    pthread_mutex_lock(&e->lock);
    if (!e->delivered[i]) {
        e->delivered[i] = 1;
        e->opts->on_result(e->opts->result_ctx, i, &e->res[i]);
    }
    pthread_mutex_unlock(&e->lock);
}

#define PROGRESS_BYTES (4u << 20) /* report at least every 4 MiB read by a thread */

/* Report progress now and then (serialised). */
static void progress(engine *e, tally *t, uint64_t files, int force)
{
    t->files_unreported += files;
    if (!e->opts->progress ||
        (!force && t->files_unreported < 64 && t->bytes - t->bytes_reported < PROGRESS_BYTES))
        return;
    pthread_mutex_lock(&e->lock);
    e->files_done += t->files_unreported;
    e->bytes_done += t->bytes - t->bytes_reported;
    e->opts->progress(e->opts->progress_ctx, e->files_done, e->bytes_done);
    pthread_mutex_unlock(&e->lock);
    t->files_unreported = 0;
    t->bytes_reported = t->bytes;
}

/* ------------------------------------------------------------------ cache pass */

typedef struct statx_batch {
    merkle__vprobe *pr;
    const size_t *which;
    unsigned char (*stx)[256];
    int einval;
} statx_batch;

static void on_statx(void *ctx, uint64_t tag, int32_t res)
{
    statx_batch *b = ctx;
    merkle__vprobe *p = &b->pr[b->which[tag]];
    if (res == -EINVAL) b->einval = 1;
    p->stat_ok = res == 0;
    if (res == 0) merkle__statx_to_stat(&p->st, b->stx[tag]);
}

/* stat every probe the cache found (pr[q].found): through io_uring (statx by name, the batch
** in one io_uring_enter) or fstatat, as chosen at run time. Sets stat_ok and st. */
static void stat_found(statdir *sd, int dirfd, merkle__vprobe *pr, size_t m, int small)
{
    size_t which[PROBE_BATCH], k = 0;
    for (size_t q = 0; q < m; q++) {
        pr[q].stat_ok = 0;
        if (pr[q].found) which[k++] = q;
    }
    if (k == 0) return;
    int trial;
    int uring = merkle__io_pick(MERKLE__IO_STAT, small, &trial);
    if (uring && !sd->ring && !sd->ring_failed) {
        sd->ring = merkle__ring_open(PROBE_BATCH);
        sd->ring_failed = sd->ring == NULL;
    }
    uint64_t t0 = trial ? merkle__io_now() : 0;
    int done = 0;
    if (uring && sd->ring && merkle__statx_size() <= 256) {
        unsigned char stx[PROBE_BATCH][256];
        statx_batch b = { pr, which, stx, 0 };
        for (size_t q = 0; q < k; q++)
            merkle__ring_statx(sd->ring, dirfd, pr[which[q]].name, 0, stx[q], q);
        done = merkle__ring_run(sd->ring, on_statx, &b) == 0 && !b.einval;
        if (!done) merkle__io_disable(); /* this kernel does not do it: fstatat from now on */
    }
    if (!done) {
        for (size_t q = 0; q < k; q++) {
            merkle__vprobe *p = &pr[which[q]];
            p->stat_ok = stat_rel(sd, dirfd, p->name, &p->st) == 0;
        }
    }
    if (trial && done == uring) merkle__io_report(MERKLE__IO_STAT, uring, k, merkle__io_now() - t0);
}

/*
** With a validation cache, the files are first looked up, PROBE_BATCH at a time under one
** lock: a file is stat'ed only when the cache holds an entry with its name, algorithm and
** the manifest's digest, and answered OK when the stat matches too (merkle__vprobe_match).
** Threads take CACHE_CHUNK files at a time; within a chunk, the cache is searched first at
** the file's own position in the list (the cache keeps list order), then after each hit.
*/
static void cache_chunk(engine *e, statdir *sd, tally *t, size_t a, size_t b)
{
    merkle__vprobe pr[PROBE_BATCH];
    size_t hint = e->sel[a];
    int foreign = merkle__vcache_foreign(e->opts->cache);
    for (size_t k = a; k < b; k += PROBE_BATCH) {
        size_t m = b - k < PROBE_BATCH ? b - k : PROBE_BATCH;
        for (size_t q = 0; q < m; q++) {
            const job *j = &e->jobs[e->sel[k + q]];
            pr[q].name = j->name;
            pr[q].name_len = strlen(j->name);
            pr[q].alg = j->alg;
            pr[q].len = j->dlen;
            pr[q].expected = j->expected;
        }
        merkle__vcache_probe(e->opts->cache, pr, m, &hint);
        stat_found(sd, e->dirfd, pr, m, e->n < MERKLE__IO_TRIAL_MIN);
        for (size_t q = 0; q < m; q++) {
            if (!pr[q].found || !pr[q].stat_ok) continue;
            const struct stat st = pr[q].st;
            if (!S_ISREG(st.st_mode)) continue;
            merkle_file_id id;
            merkle__file_id_from_stat(&id, &st);
            if (!merkle__vprobe_match(&pr[q], &id)) continue;
            /* An entry for a file of /proc or /sys (a cache written by an older version):
            ** its stat says nothing about its contents. */
            if (merkle__pseudo_dev(&sd->pm, e->dirfd, pr[q].name, id.dev)) continue;
            /* Another user's cache vouches only for files we could read ourselves. */
            if (foreign && faccessat(e->dirfd, pr[q].name, R_OK, AT_EACCESS) != 0) continue;
            size_t i = e->sel[k + q];
            merkle_check_result *r = &e->res[i];
            r->status = MERKLE_CHECK_OK;
            r->from_cache = 1;
            r->size = 0;
            memcpy(r->digest, e->jobs[i].expected, e->jobs[i].dlen);
            e->answered[k + q] = 1;
            deliver(e, i);
        }
        progress(e, t, m, 0);
    }
}

static int cache_main(void *arg, unsigned share)
{
    (void)share;
    engine *e = arg;
    statdir sd;
    memset(&sd, 0, sizeof sd);
    sd.fd = -1;
    tally t = { 0, 0, 0 };
    for (;;) {
        size_t a = atomic_fetch_add(&e->next, e->chunk);
        if (a >= e->n) break;
        cache_chunk(e, &sd, &t, a, a + e->chunk < e->n ? a + e->chunk : e->n);
    }
    progress(e, &t, 0, 1);
    statdir_free(&sd);
    return 0;
}

/* Run the cache pass over e->sel on up to t threads. 0 or -1 (allocation). */
static int cache_pass(engine *e, unsigned t)
{
    e->answered = calloc(e->n ? e->n : 1, 1);
    if (!e->answered) return -1;
    e->chunk = CACHE_CHUNK;
    atomic_store(&e->next, 0);
    size_t chunks = (e->n + CACHE_CHUNK - 1) / CACHE_CHUNK;
    /* An empty cache answers nothing and stats nothing: no threads for that. */
    if (merkle_vcache_count(e->opts->cache) == 0) t = 1;
    if (t > chunks) t = chunks ? (unsigned)chunks : 1u;
    /* Shares take chunks from one counter: one that gets no thread leaves its chunks to the
    ** others. */
    return merkle__parallel_for(t, cache_main, merkle__parallel_skip, e) == 0 ? 0 : -1;
}

/* ------------------------------------------------------------------ hash pass */

/* Settle entry i (counted: its bytes were tallied as they were read). */
static void settle(worker *w, size_t i, int sys_errno, const uint8_t *digest, const struct stat *st,
                   uint64_t size, int counted)
{
    engine *e = w->e;
    const job *j = &e->jobs[i];
    merkle_check_result *r = &e->res[i];
    r->from_cache = 0;
    MERKLE_ASSERT(sys_errno || digest); /* a failed open or read passes its (non-zero) errno */
    if (sys_errno) {
        r->status = sys_errno == ENOENT ? MERKLE_CHECK_MISSING : MERKLE_CHECK_ERROR;
        r->sys_errno = sys_errno;
        if (e->opts->cache && j->expected) merkle_vcache_forget(e->opts->cache, j->name);
        return;
    }
    memcpy(r->digest, digest, j->dlen);
    r->size = size;
    if (!counted) w->t.bytes += size;
    if (!j->expected) {
        r->status = MERKLE_CHECK_OK;
        return;
    }
    int ok = merkle_ct_equal(digest, j->expected, j->dlen);
    r->status = ok ? MERKLE_CHECK_OK : MERKLE_CHECK_MISMATCH;
    if (e->opts->cache) {
        /* Recorded only when the bytes read are the size fstat gave: a file that changed while
        ** read, or one whose size says nothing (/proc: 0; sysfs: a page), is not vouched for
        ** by its stat. (Pseudo file systems are also left out by device, at the end of run.) */
        if (ok && st && S_ISREG(st->st_mode) && size == (uint64_t)st->st_size) {
            merkle__file_id_from_stat(&e->ids[i], st);
            e->record[i] = 1;
        } else {
            merkle_vcache_forget(e->opts->cache, j->name);
        }
    }
}

static void finish(worker *w, size_t i, int sys_errno, const uint8_t *digest, const struct stat *st,
                   uint64_t size, int counted)
{
    settle(w, i, sys_errno, digest, st, size, counted);
    deliver(w->e, i);
}

/* Hash open file i with the reusable buffer, and close it. st: its fstat, or NULL. */
static void hash_fd(worker *w, size_t i, int fd, const struct stat *st)
{
    engine *e = w->e;
    const job *j = &e->jobs[i];
    uint8_t out[MERKLE_MAX_DIGEST_LEN];
    uint64_t size = 0;
    int err = 0;
    if (merkle__mdigest_init(&w->md, j->alg, j->dlen) != MERKLE_OK) err = EINVAL;
    while (!err) {
        ssize_t r = read(fd, w->buf, READ_BUF);
        if (r < 0) {
            if (errno != EINTR) err = errno;
            continue;
        }
        if (r == 0) break;
        merkle__mdigest_update(&w->md, w->buf, (size_t)r);
        size += (uint64_t)r;
        w->t.bytes += (uint64_t)r; /* the progress line moves inside large files */
        if (w->t.bytes - w->t.bytes_reported >= PROGRESS_BYTES) progress(e, &w->t, 0, 0);
    }
    merkle__fd_close(fd);
    if (!err) merkle__mdigest_final(&w->md, out);
    finish(w, i, err, out, st, size, 1);
}

/* Hash one file with the reusable buffer, the caller holding `held` descriptors of the budget.
** -1 (nothing settled) when it holds some and the budget is spent: retry after closing them. */
static int hash_one_held(worker *w, size_t i, unsigned held)
{
    engine *e = w->e;
    int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY;
    struct stat st;
    int fd = e->regular_only ? merkle__fd_open_regular(e->dirfd, e->jobs[i].name, &flags, held, &st)
                             : merkle__fd_openat(e->dirfd, e->jobs[i].name, &flags, 0, held);
    if (fd < 0) {
        if (held > 0 && (errno == EMFILE || errno == ENFILE)) return -1;
        finish(w, i, errno, NULL, NULL, 0, 1);
        return 0;
    }
    int have_st = e->regular_only || fstat(fd, &st) == 0;
    hash_fd(w, i, fd, have_st ? &st : NULL);
    return 0;
}

/* Hash one file, holding no descriptor: out of descriptors, it waits (io/fdbudget.h). */
static void hash_one(worker *w, size_t i)
{
    (void)hash_one_held(w, i, 0);
}

/* Hash k <= FB_BATCH files (job indices idx) opened, stat'ed and read in one batch
** (io/fbatch.h); files too large for a slot are streamed by hash_fd. */
static void hash_batch(worker *w, const size_t *idx, size_t k)
{
    engine *e = w->e;
    merkle__fb_item it[FB_BATCH];
    for (size_t q = 0; q < k; q++) {
        it[q].path = e->jobs[idx[q]].name;
        it[q].slot = w->slots + q * (FB_SLOT + 1);
    }
    merkle__fbatch_load(&w->fb, e->dirfd, it, k);
    for (size_t q = 0; q < k; q++) {
        merkle__fb_item *x = &it[q];
        size_t i = idx[q];
        /* Not a regular file, or out of descriptors while earlier files of the batch held
        ** some: below, one by one, after the others are closed. */
        if (x->later && e->regular_only) {
            finish(w, i, merkle__not_regular_errno((unsigned)x->st.st_mode), NULL, NULL, 0, 1);
            continue;
        }
        if (x->later || x->err == EMFILE || x->err == ENFILE) continue;
        if (x->err) {
            finish(w, i, x->err, NULL, NULL, 0, 1);
        } else if (x->fd >= 0) {
            hash_fd(w, i, x->fd, &x->st);
        } else {
            const job *j = &e->jobs[i];
            uint8_t out[MERKLE_MAX_DIGEST_LEN];
            int err = merkle__mdigest_init(&w->md, j->alg, j->dlen) != MERKLE_OK ? EINVAL : 0;
            if (!err) {
                merkle__mdigest_update(&w->md, x->slot, x->len);
                merkle__mdigest_final(&w->md, out);
            }
            finish(w, i, err, out, &x->st, x->len, 0);
        }
    }
    for (size_t q = 0; q < k; q++)
        if ((it[q].later && !e->regular_only) || it[q].err == EMFILE || it[q].err == ENFILE)
            hash_one(w, idx[q]);
}

typedef struct mb_ctx {
    worker *w;
    const size_t *idx;
} mb_ctx;

static void mb_done(void *ctx, size_t k, int sys_errno, const uint8_t *digest,
                    const struct stat *st, uint64_t bytes)
{
    mb_ctx *c = ctx;
    size_t i = c->idx[k];
    finish(c->w, i, sys_errno, digest, st, sys_errno ? 0 : bytes, 0);
}

static void hash_md5_batch(worker *w, size_t k)
{
    mb_ctx c = { w, w->md5_idx };
    /* (that engine would read a FIFO: the rare fallback of check goes file by file) */
    if (!w->e->regular_only &&
        merkle__md5_mb_files(w->e->dirfd, w->md5_paths, k, mb_done, &c) == MERKLE_OK)
        return;
    /* The engine refused the batch as a whole (allocation): fall back per file. Files it
    ** already reported are reported again with the same outcome, which is harmless. */
    for (size_t q = 0; q < k; q++) hash_one(w, w->md5_idx[q]);
}

/* Pull form of the MD5 engine: each thread's lanes take files from the shared cursor until
** the whole list is done; non-MD5 files are settled here without a lane. */
static int pull_next(void *ctx, size_t *index, const char **path)
{
    worker *w = ctx;
    engine *e = w->e;
    for (;;) {
        size_t k = atomic_fetch_add(&e->next, 1);
        if (k >= e->n) return 0;
        size_t i = e->sel[k];
        if (e->jobs[i].alg != MERKLE_HASH_MD5) {
            if (hash_one_held(w, i, merkle__md5_mb_engine_held(w->eng)) != 0) {
                /* Out of descriptors while the lanes hold some: after the run. */
                if (w->nlater == w->later_cap) {
                    size_t cap = w->later_cap ? 2 * w->later_cap : 64;
                    size_t *nl = realloc(w->later, cap * sizeof *nl);
                    if (!nl) {
                        hash_one(w, i); /* waits for a descriptor instead */
                        progress(e, &w->t, 1, 0);
                        continue;
                    }
                    w->later = nl;
                    w->later_cap = cap;
                }
                w->later[w->nlater++] = i;
                continue;
            }
            progress(e, &w->t, 1, 0);
            continue;
        }
        *index = i;
        *path = e->jobs[i].name;
        return 1;
    }
}

static void pull_done(void *ctx, size_t i, int sys_errno, const uint8_t *digest,
                      const struct stat *st, uint64_t bytes)
{
    worker *w = ctx;
    finish(w, i, sys_errno, digest, st, sys_errno ? 0 : bytes, 1);
    progress(w->e, &w->t, 1, 0);
}

/* Bytes read by the MD5 engine's lanes: the progress line moves inside large files. */
static void pull_bytes(void *ctx, uint64_t n)
{
    worker *w = ctx;
    w->t.bytes += n;
    if (w->t.bytes - w->t.bytes_reported >= PROGRESS_BYTES) progress(w->e, &w->t, 0, 0);
}

/* The non-MD5 file i of a chunk: batched when the batch engine is in use. */
static void hash_other(worker *w, size_t i, size_t *pending, size_t *np)
{
    if (!w->slots && merkle__fbatch_wanted(&w->fb)) w->slots = malloc(FB_BATCH * (FB_SLOT + 1));
    if (!w->slots || !merkle__fbatch_wanted(&w->fb)) {
        hash_one(w, i);
        return;
    }
    pending[(*np)++] = i;
    if (*np == FB_BATCH) {
        hash_batch(w, pending, *np);
        *np = 0;
    }
}

static void run_chunk(worker *w, size_t a, size_t b)
{
    engine *e = w->e;
    size_t k = 0, pending[FB_BATCH], np = 0;
    for (size_t q = a; q < b; q++) {
        size_t i = e->sel[q];
        const job *j = &e->jobs[i];
        if (j->alg == MERKLE_HASH_MD5) {
            w->md5_idx[k] = i;
            w->md5_paths[k] = j->name;
            k++;
        } else {
            hash_other(w, i, pending, &np);
        }
    }
    if (np) hash_batch(w, pending, np);
    if (k) hash_md5_batch(w, k);
    progress(e, &w->t, b - a, 0);
}

/* Share k of the hash pass runs worker k (of the array at arg). */
static int worker_main(void *arg, unsigned share)
{
    worker *w = (worker *)arg + share;
    engine *e = w->e;
    if (w->eng) {
        merkle__md5_mb_engine_set_bytes(w->eng, pull_bytes);
        if (merkle__md5_mb_engine_run(w->eng, e->dirfd, pull_next, pull_done, w) == MERKLE_OK) {
            for (size_t k = 0; k < w->nlater; k++) {
                hash_one(w, w->later[k]);
                progress(e, &w->t, 1, 0);
            }
            w->nlater = 0;
            progress(e, &w->t, 0, 1);
            return 0;
        }
        /* Not expected (arguments are valid); the chunked path below picks up the rest. */
    }
    for (;;) {
        size_t a = atomic_fetch_add(&e->next, e->chunk);
        if (a >= e->n) break;
        size_t b = a + e->chunk < e->n ? a + e->chunk : e->n;
        run_chunk(w, a, b);
    }
    progress(e, &w->t, 0, 1);
    return 0;
}

static int worker_init(worker *w, engine *e, int use_mb)
{
    memset(w, 0, sizeof *w);
    w->e = e;
    merkle__mdigest_zero(&w->md);
    w->buf = malloc(READ_BUF);
    merkle__fbatch_init(&w->fb, FB_SLOT, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    w->fb.small = e->n < MERKLE__IO_TRIAL_MIN;
    w->md5_idx = malloc(e->chunk * sizeof *w->md5_idx);
    w->md5_paths = malloc(e->chunk * sizeof *w->md5_paths);
    if (use_mb && merkle__md5_mb_engine_alloc(&w->eng, NULL, 0) != MERKLE_OK) w->eng = NULL;
    if (w->eng) merkle__md5_mb_engine_set_regular_only(w->eng, e->regular_only);
    if (w->eng) merkle__md5_mb_engine_set_small(w->eng, e->n < MERKLE__IO_TRIAL_MIN);
    return (w->buf && w->md5_idx && w->md5_paths) ? 0 : -1;
}

static void worker_free(worker *w)
{
    merkle__fbatch_free(&w->fb);
    free(w->slots);
    free(w->buf);
    free(w->md5_idx);
    free(w->md5_paths);
    free(w->later);
    merkle__md5_mb_engine_free(w->eng);
    merkle__mdigest_free(&w->md);
}

/* Hash the e->n jobs of e->sel on up to t threads. */
static merkle_status hash_pass(engine *e, unsigned t)
{
    size_t n = e->n;
    if (t == 1 || n < 32) {
        t = 1;
        e->chunk = n ? n : 1;
    } else {
        size_t c = n / ((size_t)t * 4);
        e->chunk = c < 16 ? 16 : c > 4096 ? 4096 : c;
        size_t chunks = (n + e->chunk - 1) / e->chunk;
        if (t > chunks) t = (unsigned)chunks;
    }
    atomic_store(&e->next, 0);
    worker *ws = calloc(t, sizeof *ws);
    if (!ws) return MERKLE_ERR_NOMEM;
    int use_mb = 0;
    for (size_t q = 0; q < n && !use_mb; q++) use_mb = e->jobs[e->sel[q]].alg == MERKLE_HASH_MD5;
    for (unsigned k = 0; k < t; k++) {
        if (worker_init(&ws[k], e, use_mb) != 0) {
            worker_free(&ws[k]);
            if (k == 0) {
                free(ws);
                return MERKLE_ERR_NOMEM;
            }
            t = k;
            break;
        }
    }
    /* Workers take chunks from one counter: one that gets no thread leaves them to the
    ** others. */
    merkle_status s = merkle__parallel_for(t, worker_main, merkle__parallel_skip, ws) == 0
                          ? MERKLE_OK
                          : MERKLE_ERR_NOMEM;
    for (unsigned k = 0; k < t; k++) worker_free(&ws[k]);
    free(ws);
    return s;
}

/* The name "-" is standard input (coreutils): hashed here, before the workers start. */
static void hash_stdin(const job *j, merkle_check_result *r)
{
    uint64_t size = 0;
    merkle_error err;
    memset(r, 0, sizeof *r);
    if (merkle__manifest_digest_fd(r->digest, j->alg, j->dlen, STDIN_FILENO, &size, &err) !=
        MERKLE_OK) {
        r->status = MERKLE_CHECK_ERROR;
        r->sys_errno = err.sys_errno ? err.sys_errno : EIO;
        return;
    }
    r->size = size;
    r->status = (!j->expected || merkle_ct_equal(r->digest, j->expected, j->dlen))
                    ? MERKLE_CHECK_OK
                    : MERKLE_CHECK_MISMATCH;
}

/*
** Check or hash n jobs: names "-" from standard input first (when opts->dash_is_stdin), then,
** with a cache, the cache pass, then the hash pass over what is left; files that verified OK
** are recorded in the cache at the end, in list order, so that the cache file keeps the
** manifest's order and the next check finds each entry right after the previous one.
*/
static merkle_status run(const job *jobs, merkle_check_result *res, size_t n,
                         const merkle_check_opts *opts, int dirfd, int regular_only,
                         merkle_error *error)
{
    engine e;
    memset(&e, 0, sizeof e);
    e.jobs = jobs;
    e.res = res;
    e.opts = opts;
    e.dirfd = dirfd;
    e.regular_only = regular_only;
    atomic_init(&e.next, 0);
    pthread_mutex_init(&e.lock, NULL);
    /* The moment of verification for the cache: before any file is opened. */
    int64_t start_ns = merkle_vcache_now();

    unsigned t = opts->threads;
    if (t == 0) {
        long c = merkle__os_ncpu();
        t = c > 0 ? (unsigned)c : 1u;
    }
    if (t > 256) t = 256;

    merkle_status st = MERKLE_OK;
    size_t *sel = malloc((n ? n : 1) * sizeof *sel);
    if (!sel) {
        st = MERKLE_ERR_NOMEM;
        goto out;
    }
    size_t m = 0;
    if (opts->on_result) {
        e.delivered = calloc(n ? n : 1, 1);
        if (!e.delivered) {
            st = MERKLE_ERR_NOMEM;
            goto out;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (opts->dash_is_stdin && jobs[i].name[0] == '-' && jobs[i].name[1] == '\0') {
            hash_stdin(&jobs[i], &res[i]);
            deliver(&e, i);
        } else {
            sel[m++] = i;
        }
    }
    e.sel = sel;
    e.n = m;
    if (opts->cache && m) {
        if (cache_pass(&e, t) != 0) {
            st = MERKLE_ERR_NOMEM;
            goto out;
        }
        size_t left = 0;
        for (size_t k = 0; k < m; k++)
            if (!e.answered[k]) sel[left++] = sel[k];
        e.n = m = left;
        if (m) {
            e.ids = malloc(n * sizeof *e.ids);
            e.record = calloc(n, 1);
            if (!e.ids || !e.record) {
                st = MERKLE_ERR_NOMEM;
                goto out;
            }
        }
    }
    if (m) st = hash_pass(&e, t);
#ifdef MERKLE_CHECKS
    if (st == MERKLE_OK && e.delivered)
        for (size_t i = 0; i < n; i++) MERKLE_ASSERT(e.delivered[i]); /* every result handed out */
#endif
    if (st == MERKLE_OK && e.record) {
        /* Files of pseudo file systems (procfs, sysfs, ...) are never recorded: one look per
        ** device (io/pseudofs.h). */
        merkle__pseudo_memo pm;
        memset(&pm, 0, sizeof pm);
        for (size_t i = 0; i < n; i++)
            if (e.record[i] && merkle__pseudo_dev(&pm, dirfd, jobs[i].name, e.ids[i].dev)) {
                e.record[i] = 0;
                merkle_vcache_forget(opts->cache, jobs[i].name);
            }
        size_t k = 0;
        for (size_t i = 0; i < n; i++) k += e.record[i];
        merkle__vcache_lock(opts->cache);
        merkle__vcache_reserve_locked(opts->cache, k);
        for (size_t i = 0; i < n; i++)
            if (e.record[i] &&
                merkle__vcache_record_locked(opts->cache, jobs[i].name, &e.ids[i], jobs[i].alg,
                                             res[i].digest, jobs[i].dlen, start_ns) != MERKLE_OK) {
                st = MERKLE_ERR_NOMEM;
                break;
            }
        merkle__vcache_unlock(opts->cache);
    }
out:
    free(sel);
    free(e.delivered);
    free(e.answered);
    free(e.ids);
    free(e.record);
    pthread_mutex_destroy(&e.lock);
    if (st != MERKLE_OK) return merkle__fail(error, st, 0, 0, "out of memory");
    return MERKLE_OK;
}

merkle_status merkle_check_opts_init(merkle_check_opts *o, uint32_t version)
{
    if (!o || version == 0 || version > MERKLE_CHECK_OPTS_VERSION) return MERKLE_ERR_ARG;
    memset(o, 0, sizeof *o);
    o->version = version;
    return MERKLE_OK;
}

/* The caller's options as this library's layout (one version so far), or -1 when their
** version is unknown. */
static int take_opts(merkle_check_opts *dst, const merkle_check_opts *src)
{
    if (!src) return merkle_check_opts_init(dst, MERKLE_CHECK_OPTS_VERSION) == MERKLE_OK ? 0 : -1;
    if (src->version == 0 || src->version > MERKLE_CHECK_OPTS_VERSION) return -1;
    *dst = *src;
    return 0;
}

/* opts->dir opened as a directory into *fd (AT_FDCWD when NULL); MERKLE_OK or MERKLE_ERR_IO. */
static merkle_status open_dir(int *fd, const char *dir, merkle_error *error)
{
    *fd = AT_FDCWD;
    if (!dir) return MERKLE_OK;
    *fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (*fd >= 0) return MERKLE_OK;
    int e = errno;
    return merkle__fail_errno(error, e, "%s: %s", dir, strerror(e));
}

static void close_dir(int fd)
{
    if (fd >= 0) close(fd);
}

merkle_status merkle_manifest_check(merkle_check_result *results,
                                    const merkle_manifest_entry *entries, size_t n,
                                    const merkle_check_opts *opts, merkle_error *error)
{
    int fd;
    if ((!results || !entries) && n) return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "NULL");
    if (opts && opts->version >= 1 && opts->version <= MERKLE_CHECK_OPTS_VERSION &&
        open_dir(&fd, opts->dir, error) != MERKLE_OK)
        return MERKLE_ERR_IO;
    if (!opts || opts->version == 0 || opts->version > MERKLE_CHECK_OPTS_VERSION) fd = AT_FDCWD;
    merkle_status s = merkle__manifest_check_at(results, entries, n, opts, fd, error);
    close_dir(fd);
    return s;
}

merkle_status merkle__manifest_check_at(merkle_check_result *results,
                                        const merkle_manifest_entry *entries, size_t n,
                                        const merkle_check_opts *opts, int dirfd,
                                        merkle_error *error)
{
    if ((!results || !entries) && n) return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "NULL");
    merkle_check_opts o;
    if (take_opts(&o, opts) != 0)
        return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "unknown merkle_check_opts version");
    opts = &o;
    job *jobs = malloc((n ? n : 1) * sizeof *jobs);
    if (!jobs) return merkle__fail(error, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    for (size_t i = 0; i < n; i++) {
        if (!entries[i].name || !merkle__manifest_len_ok(entries[i].alg, entries[i].digest_len)) {
            free(jobs);
            return merkle__fail(error, MERKLE_ERR_ARG, entries[i].line, 0,
                                "entry %zu: bad name, algorithm or length", i);
        }
        jobs[i].name = entries[i].name;
        jobs[i].alg = entries[i].alg;
        jobs[i].dlen = entries[i].digest_len;
        jobs[i].expected = entries[i].digest;
    }
    if (n) memset(results, 0, n * sizeof *results);
    merkle_status s = run(jobs, results, n, opts, dirfd, 1, error);
    free(jobs);
    return s;
}

merkle_status merkle_manifest_hash_files(merkle_check_result *results, const char *const *names,
                                         size_t n, merkle_hash_alg alg, size_t digest_len,
                                         const merkle_check_opts *opts, merkle_error *error)
{
    int fd;
    if ((!results || !names) && n) return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "NULL");
    if (opts && opts->version >= 1 && opts->version <= MERKLE_CHECK_OPTS_VERSION &&
        open_dir(&fd, opts->dir, error) != MERKLE_OK)
        return MERKLE_ERR_IO;
    if (!opts || opts->version == 0 || opts->version > MERKLE_CHECK_OPTS_VERSION) fd = AT_FDCWD;
    merkle_status s =
        merkle__manifest_hash_files_at(results, names, n, alg, digest_len, opts, fd, 0, error);
    close_dir(fd);
    return s;
}

merkle_status merkle__manifest_hash_files_at(merkle_check_result *results, const char *const *names,
                                             size_t n, merkle_hash_alg alg, size_t digest_len,
                                             const merkle_check_opts *opts, int dirfd,
                                             int regular_only, merkle_error *error)
{
    if ((!results || !names) && n) return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "NULL");
    if (!merkle__manifest_len_ok(alg, digest_len))
        return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "bad algorithm or digest length");
    merkle_check_opts o;
    if (take_opts(&o, opts) != 0)
        return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "unknown merkle_check_opts version");
    o.cache = NULL;
    job *jobs = malloc((n ? n : 1) * sizeof *jobs);
    if (!jobs) return merkle__fail(error, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    for (size_t i = 0; i < n; i++) {
        jobs[i].name = names[i];
        jobs[i].alg = alg;
        jobs[i].dlen = digest_len;
        jobs[i].expected = NULL;
    }
    if (n) memset(results, 0, n * sizeof *results);
    merkle_status s = run(jobs, results, n, &o, dirfd, regular_only, error);
    free(jobs);
    return s;
}
