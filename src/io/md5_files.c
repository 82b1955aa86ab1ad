/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The MD5 file engine (src/io/md5_files.h): many files hashed at once, one per lane of the
** multi-buffer MD5 kernel (src/hash/md5_mb.h), each lane refilled as soon as its file ends;
** small files opened and read in batches (io/fbatch.h) when that was measured faster.
*/
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/os.h"

#include "hash/dispatch.h"
#include "hash/impl.h"
#include "hash/md5_mb.h"
#include "io/fbatch.h"
#include "io/fdbudget.h"
#include "io/md5_files.h"

/* ------------------------------------------------------------------ file engine */

#define MB_DEFAULT_LANE_BUF ((size_t)64 * 1024) /* 16 lanes: 1 MiB, stays in L2 */
#define MB_SLACK            4096 /* behind each lane buffer: room for the in-place padding (<= 72 bytes) */
#define MB_FADVISE_MIN      ((uint64_t)1 << 20)
#define MB_POOL             MERKLE_MD5_MB_MAX_LANES /* files opened ahead, largest started first */
#define MB_SLOT             ((size_t)32 * 1024) /* files up to this size may be read whole ahead */
#define MB_PRELOADED        INT_MAX /* lane fd of a file read whole ahead (no descriptor) */

typedef struct mb_lane {
    int fd;         /* -1: lane idle */
    int padded;     /* 1: the file ended and its padding is in buf */
    size_t index;   /* file index */
    uint8_t *buf;   /* cap + MB_SLACK bytes, reused for every file of this lane */
    size_t off;     /* next unhashed byte */
    size_t end;     /* end of valid bytes */
    uint64_t total; /* bytes read from the file so far */
    struct stat st;
} mb_lane;

typedef struct mb_pending {
    int fd; /* MB_PRELOADED: the contents are in slot */
    size_t index;
    struct stat st;
    unsigned slot; /* with MB_PRELOADED */
    size_t len;
} mb_pending;

struct merkle__md5_mb_engine {
    const merkle__md5_mb_impl *impl;
    size_t cap; /* bytes per lane buffer */
    uint8_t *arena;
    mb_lane lane[MERKLE_MD5_MB_MAX_LANES];
    merkle__md5_mb st;
    /* per run */
    int dirfd;
    merkle__mb_next_fn next;
    merkle__mb_done_fn done;
    merkle__mb_bytes_fn bytes; /* optional, kept across runs */
    void *ctx;
    int list_done;
    int have_retry; /* a file whose open hit EMFILE/ENFILE, to retry after a close */
    size_t retry_index;
    const char *retry_path;
    unsigned active; /* lanes with a file */
    size_t npool;
    mb_pending pool[MB_POOL];
    /* Batched opens and reads of small files (io/fbatch.h), when chosen at run time. */
    merkle__fbatch fb;
    uint8_t *slots; /* MB_POOL slots of MB_SLOT + 1 bytes, on first use */
    unsigned free_slot[MB_POOL];
    unsigned nfree;
    size_t ndeferred; /* files whose open ran out of descriptors in a batch */
    size_t deferred_index[MERKLE__FBATCH_MAX];
    const char *deferred_path[MERKLE__FBATCH_MAX];
    int regular_only; /* check: a file that is not regular is refused unread */
    size_t nlater;    /* not regular files (sum): opened one by one, blocking, once the
                      ** lanes and the pool are empty (every earlier file is done) */
    size_t later_index[MB_POOL];
    const char *later_path[MB_POOL];
};

merkle_status merkle__md5_mb_engine_alloc(merkle__md5_mb_engine **out,
                                          const merkle__md5_mb_impl *impl, size_t lane_buf)
{
    if (!out) return MERKLE_ERR_ARG;
    *out = NULL;
    if (!impl) impl = merkle__md5_mb_get();
    if (lane_buf == 0) lane_buf = MB_DEFAULT_LANE_BUF;
    if (lane_buf > ((size_t)1 << 30)) return MERKLE_ERR_ARG;
    if (lane_buf < 8192) lane_buf = 8192;
    lane_buf = (lane_buf + 4095) & ~(size_t)4095;
    merkle__md5_mb_engine *e = calloc(1, sizeof *e);
    if (!e) return MERKLE_ERR_NOMEM;
    size_t stride = lane_buf + MB_SLACK;
    e->arena = merkle__os_aligned_alloc(4096, stride * impl->lanes);
    if (!e->arena) {
        free(e);
        return MERKLE_ERR_NOMEM;
    }
    e->impl = impl;
    e->cap = lane_buf;
    /* A file read whole ahead is copied into a lane buffer: never more than one holds. */
    merkle__fbatch_init(&e->fb, lane_buf < MB_SLOT ? lane_buf : MB_SLOT, 0);
    for (unsigned l = 0; l < impl->lanes; l++) {
        e->lane[l].fd = -1;
        e->lane[l].buf = e->arena + stride * l;
    }
    *out = e;
    return MERKLE_OK;
}

void merkle__md5_mb_engine_free(merkle__md5_mb_engine *e)
{
    if (!e) return;
    merkle__fbatch_free(&e->fb);
    free(e->slots);
    merkle__os_aligned_free(e->arena);
    free(e);
}

/* Next file of the list: the deferred one first. 0 when the list is exhausted. */
static int mb_next(merkle__md5_mb_engine *e, size_t *index, const char **path)
{
    if (e->have_retry) {
        e->have_retry = 0;
        *index = e->retry_index;
        *path = e->retry_path;
        return 1;
    }
    if (e->ndeferred) {
        e->ndeferred--;
        *index = e->deferred_index[e->ndeferred];
        *path = e->deferred_path[e->ndeferred];
        return 1;
    }
    if (e->list_done) return 0;
    if (!e->next(e->ctx, index, path)) {
        e->list_done = 1;
        return 0;
    }
    return 1;
}

static void pool_add(merkle__md5_mb_engine *e, int fd, size_t index, const struct stat *st)
{
#ifdef POSIX_FADV_SEQUENTIAL
    if (S_ISREG(st->st_mode) && (uint64_t)st->st_size >= MB_FADVISE_MIN)
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#else
    (void)st;
#endif
    mb_pending *p = &e->pool[e->npool++];
    p->fd = fd;
    p->index = index;
    p->st = *st;
}

/* Descriptors of the budget (io/fdbudget.h) the engine holds: its pool and its lanes. */
static unsigned mb_held(const merkle__md5_mb_engine *e)
{
    unsigned n = 0;
    for (size_t k = 0; k < e->npool; k++) n += e->pool[k].fd != MB_PRELOADED;
    for (unsigned l = 0; l < e->impl->lanes; l++)
        n += e->lane[l].fd >= 0 && e->lane[l].fd != MB_PRELOADED;
    return n;
}

unsigned merkle__md5_mb_engine_held(const merkle__md5_mb_engine *eng)
{
    return mb_held(eng);
}

/* One batch of the pool's free places: opened, stat'ed and (the small ones) read whole at
** once. The number of files taken from the list, 0 when it is exhausted; *deferred is set
** when a file ran out of descriptors. */
static size_t mb_batch(merkle__md5_mb_engine *e, int *deferred)
{
    merkle__fb_item it[MB_POOL];
    size_t idx[MB_POOL];
    unsigned slot[MB_POOL];
    size_t n = 0;
    while (e->npool + n < MB_POOL && n < e->nfree && mb_next(e, &idx[n], &it[n].path)) {
        slot[n] = e->free_slot[e->nfree - 1 - n];
        it[n].slot = e->slots + (size_t)slot[n] * (MB_SLOT + 1);
        n++;
    }
    if (n == 0) return 0;
    e->nfree -= (unsigned)n;
    e->fb.held = mb_held(e);
    merkle__fbatch_load(&e->fb, e->dirfd, it, n);
    for (size_t q = 0; q < n; q++) {
        merkle__fb_item *x = &it[q];
        int preloaded = x->err == 0 && x->fd < 0 && !x->later;
        if (!preloaded) e->free_slot[e->nfree++] = slot[q];
        if ((x->err == EMFILE || x->err == ENFILE) && (e->npool > 0 || e->active > 0)) {
            /* Out of descriptors: the per-file path retries it when others have closed. */
            e->deferred_index[e->ndeferred] = idx[q];
            e->deferred_path[e->ndeferred++] = x->path;
            *deferred = 1;
            continue;
        }
        if (x->later && e->regular_only) {
            e->done(e->ctx, idx[q], merkle__not_regular_errno((unsigned)x->st.st_mode), NULL, NULL,
                    0);
            continue;
        }
        if (x->later) {
            /* Not a regular file: opened by the per-file path, as before batches existed. */
            e->later_index[e->nlater] = idx[q];
            e->later_path[e->nlater++] = x->path;
            *deferred = 1;
            continue;
        }
        if (x->err) {
            e->done(e->ctx, idx[q], x->err, NULL, NULL, 0);
            continue;
        }
        if (!preloaded) {
            pool_add(e, x->fd, idx[q], &x->st);
            continue;
        }
        mb_pending *p = &e->pool[e->npool++];
        p->fd = MB_PRELOADED;
        p->index = idx[q];
        p->st = x->st;
        p->slot = slot[q];
        p->len = x->len;
    }
    return n;
}

/* Whether the pool is filled by batches (io/fbatch.h, chosen at run time). */
static int mb_batch_ready(merkle__md5_mb_engine *e)
{
    if (!merkle__fbatch_wanted(&e->fb)) return 0;
    if (!e->slots) {
        e->slots = malloc(MB_POOL * (MB_SLOT + 1));
        if (!e->slots) return 0;
        for (unsigned k = 0; k < MB_POOL; k++) e->free_slot[k] = k;
        e->nfree = MB_POOL;
    }
    return 1;
}

/* Open files ahead into the pool until it is full or the list ends, reporting files that
** cannot be opened: in batches when they are in use, else one by one. Files that are not
** regular are opened one by one even then, behind the regular files of their batch.
** Running out of descriptors while others are open defers the file. */
static void mb_fill_pool(merkle__md5_mb_engine *e)
{
    int batch = mb_batch_ready(e);
    while (e->npool < MB_POOL) {
        size_t i;
        const char *path;
        int blocking = 0;
        if (e->nlater) {
            /* A FIFO's open and reads may wait for a writer: only when nothing else is in
            ** flight, so that every file before it is finished (and reported) first. */
            if (e->npool > 0 || e->active > 0) break;
            blocking = 1;
            /* In list order. */
            i = e->later_index[0];
            path = e->later_path[0];
            e->nlater--;
            memmove(e->later_index, e->later_index + 1, e->nlater * sizeof e->later_index[0]);
            memmove(e->later_path, e->later_path + 1, e->nlater * sizeof e->later_path[0]);
        } else if (batch) {
            int deferred = 0;
            if (mb_batch(e, &deferred) == 0) break; /* the list is done */
            if (deferred && !e->nlater) break;      /* out of descriptors: let lanes close */
            continue;
        } else if (!mb_next(e, &i, &path)) {
            break;
        }
        int fd =
            merkle__fd_openat(e->dirfd, path, &e->fb.oflags, blocking ? 0 : O_NONBLOCK, mb_held(e));
        if (fd < 0) {
            int err = errno;
            if ((err == EMFILE || err == ENFILE) && (e->npool > 0 || e->active > 0)) {
                e->have_retry = 1;
                e->retry_index = i;
                e->retry_path = path;
                return;
            }
            e->done(e->ctx, i, err, NULL, NULL, 0);
            continue;
        }
        struct stat st;
        if (fstat(fd, &st) != 0) {
            int err = errno;
            merkle__fd_close(fd);
            e->done(e->ctx, i, err, NULL, NULL, 0);
            continue;
        }
        if (!blocking && !S_ISREG(st.st_mode)) {
            merkle__fd_close(fd);
            if (e->regular_only) {
                e->done(e->ctx, i, merkle__not_regular_errno((unsigned)st.st_mode), NULL, NULL, 0);
            } else {
                e->later_index[e->nlater] = i;
                e->later_path[e->nlater++] = path;
            }
            continue;
        }
        if (!blocking) {
            int fl = fcntl(fd, F_GETFL);
            if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
        }
        pool_add(e, fd, i, &st);
    }
}

/* Give lane l the largest file of the pool (so that big files do not start last and finish
** alone), or leave it idle when there is none. */
static void lane_start(merkle__md5_mb_engine *e, unsigned l)
{
    mb_lane *ln = &e->lane[l];
    ln->fd = -1;
    mb_fill_pool(e);
    if (e->npool == 0) return;
    size_t best = 0;
    for (size_t k = 1; k < e->npool; k++)
        if (e->pool[k].st.st_size > e->pool[best].st.st_size) best = k;
    mb_pending p = e->pool[best];
    e->pool[best] = e->pool[--e->npool];
    ln->fd = p.fd;
    ln->index = p.index;
    ln->st = p.st;
    ln->padded = 0;
    ln->off = ln->end = 0;
    ln->total = 0;
    e->active++;
    merkle__md5_mb_lane_init(&e->st, l);
    if (p.fd == MB_PRELOADED) {
        /* Read whole ahead: copy it in and pad it; lane_prepare only finishes it. */
        memcpy(ln->buf, e->slots + (size_t)p.slot * (MB_SLOT + 1), p.len);
        e->free_slot[e->nfree++] = p.slot;
        ln->end = p.len;
        ln->total = p.len;
        if (p.len && e->bytes) e->bytes(e->ctx, (uint64_t)p.len);
        size_t tail = p.len % 64;
        ln->end += merkle__md5_pad(ln->buf + p.len - tail, tail, p.len);
        ln->padded = 1;
    }
}

static void lane_stop(merkle__md5_mb_engine *e, mb_lane *ln)
{
    if (ln->fd != MB_PRELOADED) merkle__fd_close(ln->fd);
    ln->fd = -1;
    e->active--;
}

/* Make lane l ready: at least one whole block buffered at buf+off, or idle. Finishes files
** (digest or error) and refills the lane as needed. */
static void lane_prepare(merkle__md5_mb_engine *e, unsigned l)
{
    mb_lane *ln = &e->lane[l];
    while (ln->fd >= 0) {
        size_t avail = ln->end - ln->off;
        if (avail >= 64) return;
        if (ln->padded) { /* avail == 0: the padding block went through the kernel */
            uint32_t v[4] = { e->st.s[0][l], e->st.s[1][l], e->st.s[2][l], e->st.s[3][l] };
            uint8_t digest[16];
            merkle__md5_store_digest(digest, v);
            lane_stop(e, ln);
            e->done(e->ctx, ln->index, 0, digest, &ln->st, ln->total);
            lane_start(e, l);
            continue;
        }
        /* Fewer than 64 bytes left: move them to the front and read more. */
        if (avail && ln->off) memmove(ln->buf, ln->buf + ln->off, avail);
        ln->off = 0;
        ln->end = avail;
        size_t want = e->cap - avail;
        ssize_t got = read(ln->fd, ln->buf + avail, want);
        if (got < 0) {
            if (errno == EINTR) continue;
            int err = errno;
            lane_stop(e, ln);
            e->done(e->ctx, ln->index, err, NULL, &ln->st, 0);
            lane_start(e, l);
            continue;
        }
        ln->end += (size_t)got;
        ln->total += (uint64_t)got;
        if (got > 0 && e->bytes) e->bytes(e->ctx, (uint64_t)got);
        /* End of file: read returned 0, or a regular file with a known size gave a short read
        ** at or past that size (one read per small file instead of two). */
        int eof = got == 0 || (S_ISREG(ln->st.st_mode) && ln->st.st_size > 0 &&
                               (size_t)got < want && ln->total >= (uint64_t)ln->st.st_size);
        if (eof) {
            size_t tail = ln->end % 64;
            ln->end += merkle__md5_pad(ln->buf + ln->end - tail, tail, ln->total);
            ln->padded = 1;
        }
    }
}

void merkle__md5_mb_engine_set_bytes(merkle__md5_mb_engine *eng, merkle__mb_bytes_fn bytes)
{
    if (eng) eng->bytes = bytes;
}

void merkle__md5_mb_engine_set_regular_only(merkle__md5_mb_engine *eng, int on)
{
    if (eng) eng->regular_only = on != 0;
}

void merkle__md5_mb_engine_set_small(merkle__md5_mb_engine *eng, int small)
{
    if (eng) eng->fb.small = small != 0;
}

merkle_status merkle__md5_mb_engine_run(merkle__md5_mb_engine *e, int dirfd,
                                        merkle__mb_next_fn next, merkle__mb_done_fn done, void *ctx)
{
    if (!e || !next || !done) return MERKLE_ERR_ARG;
    const merkle__md5_mb_impl *impl = e->impl;
    const unsigned lanes = impl->lanes;
    e->dirfd = dirfd;
    e->fb.oflags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOATIME; /* the batches' and ours */
    e->next = next;
    e->done = done;
    e->ctx = ctx;
    e->list_done = 0;
    e->have_retry = 0;
    e->ndeferred = 0;
    e->nlater = 0;
    e->active = 0;
    e->npool = 0;
    for (unsigned l = 0; l < lanes; l++) lane_start(e, l);
    for (;;) {
        const uint8_t *ptr[MERKLE_MD5_MB_MAX_LANES] = { 0 };
        size_t k = SIZE_MAX;
        unsigned live = 0;
        for (unsigned l = 0; l < lanes; l++) {
            mb_lane *ln = &e->lane[l];
            if (ln->fd < 0) {
                /* An idle lane picks up work deferred for lack of descriptors. */
                if (!e->have_retry && !e->ndeferred && !e->nlater && e->npool == 0) continue;
                lane_start(e, l);
            }
            lane_prepare(e, l);
            if (ln->fd < 0) continue;
            ptr[l] = ln->buf + ln->off;
            size_t b = (ln->end - ln->off) / 64;
            if (b < k) k = b;
            live++;
        }
        if (live == 0) {
            if (e->have_retry || e->ndeferred || e->nlater || e->npool)
                continue; /* cannot loop forever: see mb_fill_pool */
            break;
        }
        /* One stream left: the scalar code beats a SIMD kernel running one lane. */
        if (live == 1 && lanes > 1)
            merkle__md5_mb_portable.blocks(&e->st, ptr, k);
        else
            impl->blocks(&e->st, ptr, k);
        for (unsigned l = 0; l < lanes; l++)
            if (ptr[l]) e->lane[l].off += 64 * k;
    }
    return MERKLE_OK;
}

typedef struct mb_list {
    const char *const *paths;
    size_t n, next;
} mb_list;

static int list_next(void *ctx, size_t *index, const char **path)
{
    mb_list *li = ctx;
    if (li->next >= li->n) return 0;
    *index = li->next;
    *path = li->paths[li->next++];
    return 1;
}

typedef struct mb_list_run {
    mb_list list;
    merkle__mb_done_fn done;
    void *ctx;
} mb_list_run;

static int list_run_next(void *ctx, size_t *index, const char **path)
{
    return list_next(&((mb_list_run *)ctx)->list, index, path);
}

static void list_run_done(void *ctx, size_t index, int sys_errno, const uint8_t *digest,
                          const struct stat *st, uint64_t bytes)
{
    mb_list_run *r = ctx;
    r->done(r->ctx, index, sys_errno, digest, st, bytes);
}

merkle_status merkle__md5_mb_engine_files(merkle__md5_mb_engine *e, int dirfd,
                                          const char *const *paths, size_t n,
                                          merkle__mb_done_fn done, void *ctx)
{
    if (!e) return MERKLE_ERR_ARG;
    if (n == 0) return MERKLE_OK;
    if (!paths || !done) return MERKLE_ERR_ARG;
    mb_list_run r = { { paths, n, 0 }, done, ctx };
    merkle__mb_bytes_fn bytes = e->bytes; /* its ctx would be ours, not the caller's */
    e->bytes = NULL;
    merkle_status s = merkle__md5_mb_engine_run(e, dirfd, list_run_next, list_run_done, &r);
    e->bytes = bytes;
    return s;
}

merkle_status merkle__md5_mb_files_ex(const merkle__md5_mb_impl *impl, size_t lane_buf, int dirfd,
                                      const char *const *paths, size_t n, merkle__mb_done_fn done,
                                      void *ctx)
{
    if (n == 0) return MERKLE_OK;
    if (!paths || !done) return MERKLE_ERR_ARG;
    merkle__md5_mb_engine *e;
    merkle_status s = merkle__md5_mb_engine_alloc(&e, impl, lane_buf);
    if (s != MERKLE_OK) return s;
    s = merkle__md5_mb_engine_files(e, dirfd, paths, n, done, ctx);
    merkle__md5_mb_engine_free(e);
    return s;
}

merkle_status merkle__md5_mb_files(int dirfd, const char *const *paths, size_t n,
                                   merkle__mb_done_fn done, void *ctx)
{
    return merkle__md5_mb_files_ex(NULL, 0, dirfd, paths, n, done, ctx);
}
