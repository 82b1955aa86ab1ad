/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Many small files at once, with system calls or io_uring (see fbatch.h). */
#include "io/fbatch.h"

#include "io/fdbudget.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "os/os.h"

#define RING_ENTRIES (2 * MERKLE__FBATCH_MAX) /* a read and a close per file */
#define TAG_CLOSE    ((uint64_t)1 << 32)

void merkle__fbatch_init(merkle__fbatch *b, size_t slot_cap, int oflags)
{
    memset(b, 0, sizeof *b);
    b->slot_cap = slot_cap;
    b->oflags = oflags;
}

void merkle__fbatch_free(merkle__fbatch *b)
{
    merkle__ring_close(b->ring);
    b->ring = NULL;
}

static merkle__ring *ring_of(merkle__fbatch *b)
{
    if (!b->ring && !b->ring_failed) {
        b->ring = merkle__ring_open(RING_ENTRIES);
        if (!b->ring) b->ring_failed = 1;
    }
    return b->ring;
}

int merkle__fbatch_wanted(merkle__fbatch *b)
{
    int d = merkle__io_decision(MERKLE__IO_OPEN_READ);
    if (d == 0 || (d < 0 && b->small)) return 0;
    return ring_of(b) != NULL; /* undecided (measuring) or io_uring chosen */
}

/* Small enough to be read whole into the slot. */
static int fits(const merkle__fbatch *b, const struct stat *st)
{
    return S_ISREG(st->st_mode) && st->st_size > 0 && (uint64_t)st->st_size <= b->slot_cap;
}

/* Batches open with O_NONBLOCK: a FIFO must not hold up the batch (see `later`). Under the
** descriptor budget: the caller's own plus the batch's open items are what it holds. */
static int open_sync(merkle__fbatch *b, int dirfd, const char *path)
{
    return merkle__fd_openat(dirfd, path, &b->oflags, O_NONBLOCK, b->held + b->open_now);
}

/* fstat the open item; 0 when it is a regular file, else the item is settled (an error, or
** `later` for other types) and its descriptor closed. A regular file that will be streamed
** by the caller gets its blocking mode back. */
static int stat_item(const merkle__fbatch *b, merkle__fb_item *x)
{
    int ok = fstat(x->fd, &x->st) == 0;
    if (ok && S_ISREG(x->st.st_mode)) {
        if (!fits(b, &x->st)) {
            int fl = fcntl(x->fd, F_GETFL);
            if (fl >= 0) (void)fcntl(x->fd, F_SETFL, fl & ~O_NONBLOCK);
        }
        return 0;
    }
    x->err = ok ? 0 : errno;
    x->later = ok;
    merkle__fd_close(x->fd);
    x->fd = -1;
    return -1;
}

/* A read that did not give exactly the size fstat reported (the file changed meanwhile):
** open it again and leave it to the caller's streaming read, as for a large file. */
static void reopen(merkle__fbatch *b, int dirfd, merkle__fb_item *x)
{
    x->len = 0;
    x->fd = open_sync(b, dirfd, x->path);
    if (x->fd < 0)
        x->err = errno;
    else
        stat_item(b, x);
}

/* Read an open, stat'ed item that fits, and close it. */
static void read_whole(merkle__fbatch *b, int dirfd, merkle__fb_item *x)
{
    size_t want = (size_t)x->st.st_size;
    ssize_t k;
    do k = pread(x->fd, x->slot, want + 1, 0);
    while (k < 0 && errno == EINTR);
    int err = errno;
    merkle__fd_close(x->fd);
    x->fd = -1;
    errno = err;
    if (k < 0)
        x->err = errno;
    else if ((size_t)k == want)
        x->len = want;
    else
        reopen(b, dirfd, x);
}

static void load_sync(merkle__fbatch *b, int dirfd, merkle__fb_item *it, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        merkle__fb_item *x = &it[i];
        x->fd = open_sync(b, dirfd, x->path);
        if (x->fd < 0) {
            x->err = errno;
            continue;
        }
        if (stat_item(b, x) == 0 && fits(b, &x->st)) read_whole(b, dirfd, x);
        if (x->fd >= 0) b->open_now++;
    }
}

typedef struct ring_ctx {
    int32_t *res; /* per item: the openat result, then the read result */
    int einval;
} ring_ctx;

static void on_open(void *p, uint64_t tag, int32_t res)
{
    ring_ctx *c = p;
    c->res[tag] = res;
    if (res == -EINVAL) c->einval = 1;
}

static void on_read(void *p, uint64_t tag, int32_t res)
{
    ring_ctx *c = p;
    if (tag & TAG_CLOSE) return; /* a read-only descriptor: nothing to learn from close */
    c->res[tag] = res;
    if (res == -EINVAL) c->einval = 1;
}

#define FB_RETRY (-2) /* err of a ring item whose open ran out of descriptors */

static void item_reset(merkle__fb_item *x);

/* The ring items whose open ran out of descriptors: with system calls, now that the batch's
** linked closes have run. */
static void retry_sync(merkle__fbatch *b, int dirfd, merkle__fb_item *it, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (it[i].err == FB_RETRY) {
            item_reset(&it[i]);
            load_sync(b, dirfd, &it[i], 1);
        }
}

/* The batch through the ring; 0, or -1 when the ring must not be used any more (the items
** not settled yet are then left with err == -1 for the system-call path). The caller took
** one unit of the descriptor budget per item; each is given back as its descriptor closes or
** its open fails. */
static int load_ring(merkle__fbatch *b, merkle__ring *r, int dirfd, merkle__fb_item *it, size_t n)
{
    int32_t res[MERKLE__FBATCH_MAX];
    ring_ctx c = { res, 0 };
    const int used = b->oflags; /* open_sync may drop O_NOATIME for the next batches */
    for (size_t i = 0; i < n; i++) {
        it[i].err = -1;
        merkle__ring_openat(r, dirfd, it[i].path, b->oflags | O_NONBLOCK, i);
    }
    if (merkle__ring_run(r, on_open, &c) != 0) {
        merkle__fd_put((unsigned)n);
        return -1;
    }
    int bad = c.einval;
    for (size_t i = 0; i < n; i++) {
        merkle__fb_item *x = &it[i];
        int32_t k = res[i];
        if (k < 0) merkle__fd_put(1); /* no descriptor */
        if (k == -EINVAL) {           /* the kernel refuses the operation itself: system calls */
            continue;
        }
        if (k == -EMFILE || k == -ENFILE) {
            /* Out of descriptors: once this batch's reads and closes have run (those
            ** descriptors are ours too), one by one under the budget. */
            x->err = FB_RETRY;
            continue;
        }
        if (k == -EPERM && (used & O_NOATIME)) {
            /* O_NOATIME refused: open_sync drops it for the next ones. */
            x->fd = open_sync(b, dirfd, x->path);
            if (x->fd < 0) {
                x->err = errno;
                continue;
            }
        } else if (k < 0) {
            x->err = -k;
            continue;
        } else {
            x->fd = k;
        }
        x->err = 0;
        if (stat_item(b, x) != 0) continue;
        if (!fits(b, &x->st)) {
            b->open_now++;
            continue;
        }
        if (merkle__ring_space(r) < 2) { /* not expected: two entries per file fit */
            read_whole(b, dirfd, x);
            if (x->fd >= 0) b->open_now++;
            continue;
        }
        merkle__ring_read(r, x->fd, x->slot, (unsigned)x->st.st_size + 1, 0, i, 1);
        merkle__ring_close_fd(r, x->fd, TAG_CLOSE | i);
        res[i] = INT32_MIN; /* not read yet */
    }
    if (merkle__ring_run(r, on_read, &c) != 0) {
        /* Not expected (the first submission went through): nothing of this one ran, the
        ** descriptors are still open. Read them here; the ring is not used again. */
        for (size_t i = 0; i < n; i++)
            if (res[i] == INT32_MIN) {
                read_whole(b, dirfd, &it[i]);
                if (it[i].fd >= 0) b->open_now++;
            }
        retry_sync(b, dirfd, it, n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        merkle__fb_item *x = &it[i];
        if (x->err != 0 || x->fd < 0 || !fits(b, &x->st) || res[i] == INT32_MIN) continue;
        int32_t k = res[i];
        x->fd = -1; /* closed by the linked close (hard link: whatever the read gave) */
        merkle__fd_put(1);
        if (k == -EINVAL || k == -EAGAIN) {
            x->err = -1; /* redo with system calls */
            bad = 1;
        } else if (k < 0) {
            x->err = -k;
        } else if ((size_t)k == (size_t)x->st.st_size) {
            x->len = (size_t)k;
        } else {
            reopen(b, dirfd, x);
            if (x->fd >= 0) b->open_now++;
        }
    }
    retry_sync(b, dirfd, it, n);
    return bad ? -1 : 0;
}

static void item_reset(merkle__fb_item *x)
{
    x->err = 0;
    x->fd = -1;
    x->len = 0;
    x->later = 0;
}

void merkle__fbatch_load(merkle__fbatch *b, int dirfd, merkle__fb_item *it, size_t n)
{
    for (size_t i = 0; i < n; i++) item_reset(&it[i]);
    if (n > MERKLE__FBATCH_MAX) n = MERKLE__FBATCH_MAX;
    b->open_now = 0;
    int trial;
    int uring = merkle__io_pick(MERKLE__IO_OPEN_READ, b->small, &trial);
    merkle__ring *r = uring ? ring_of(b) : NULL;
    /* The ring opens what the budget allows now; the rest go one by one under it. */
    size_t m = r ? merkle__fd_take((unsigned)n) : 0;
    if (r && m < n) trial = 0; /* not a fair measure of either engine */
    if (r && m == 0) r = NULL;
    uint64_t t0 = trial ? merkle__io_now() : 0;
    if (r && load_ring(b, r, dirfd, it, m) != 0) {
        /* EINVAL from an operation: this kernel (or a filter in front of it) does not do
        ** what we asked. Everything not settled is redone with system calls, and the ring
        ** is not used again in this process. */
        merkle__io_disable();
        trial = 0;
        for (size_t i = 0; i < m; i++)
            if (it[i].err == -1) {
                item_reset(&it[i]);
                load_sync(b, dirfd, &it[i], 1);
            }
    }
    if (m < n) load_sync(b, dirfd, it + m, n - m);
    if (trial) merkle__io_report(MERKLE__IO_OPEN_READ, r != NULL, n, merkle__io_now() - t0);
}
