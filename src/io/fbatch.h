/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Many small files at once (internal): a batch of names is opened, stat'ed from the open
** file, and — when it is a regular file of at most the caller's slot size — read whole and
** closed, either with system calls or through io_uring (io/uring.h picks, at run time).
** Both engines give the same answers; the hashing engines consume them the same way.
**
** Per file, io_uring costs one fstat system call plus a share of two io_uring_enter calls
** per batch (openat ×n; then read + close ×n, each read hard-linked to its close), against
** openat + fstat + read + close with system calls. The identity a cache records (device,
** inode, size, times) comes from the fstat of the descriptor that is then read: no window
** between the stat and the read.
*/
#ifndef MERKLE_COMMON_FBATCH_H
#define MERKLE_COMMON_FBATCH_H
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "io/uring.h"
#include "os/os.h" /* struct stat: the platform layer's on Windows */

#define MERKLE__FBATCH_MAX 32

typedef struct merkle__fb_item {
    /* in */
    const char *path;
    uint8_t *slot; /* slot_cap + 1 bytes: where a small file's contents go */
    /* out */
    int err;        /* errno of open, fstat or read; 0: st is valid */
    int fd;         /* >= 0: open, not read (an empty file, larger than the slot, or
                    ** changed while read): the caller reads it and closes it */
    int later;      /* 1: not a regular file (FIFO, device, directory): nothing done, the
                    ** caller opens it itself after the batch's other files (a FIFO's open
                    ** may block until a writer comes; the files before it must not wait) */
    struct stat st; /* from fstat of the open file */
    size_t len;     /* fd < 0 && err == 0: the whole file is slot[0..len) */
} merkle__fb_item;

typedef struct merkle__fbatch {
    merkle__ring *ring; /* per thread, opened on first use */
    int ring_failed;
    size_t slot_cap;
    int oflags;        /* open flags; O_NOATIME is dropped after the first EPERM */
    int small;         /* the caller's pass is short: no measuring (see merkle__io_pick) */
    unsigned held;     /* in: descriptors of the budget (io/fdbudget.h) the caller holds */
    unsigned open_now; /* items of the current batch left open */
} merkle__fbatch;

void merkle__fbatch_init(merkle__fbatch *b, size_t slot_cap, int oflags);

void merkle__fbatch_free(merkle__fbatch *b);

/*
** Whether the next batch should go through merkle__fbatch_load: 1 while io_uring is used
** or its cost is being measured; 0 when plain per-file system calls were chosen (the caller
** then uses its own path, which needs no slots and no copy).
*/
int merkle__fbatch_wanted(merkle__fbatch *b);

/* Load n <= MERKLE__FBATCH_MAX items (see merkle__fb_item). Never fails as a whole. Opens are
** under the descriptor budget (io/fdbudget.h): an item left open counts against it until the
** caller closes it with merkle__fd_close; an item may fail with EMFILE only when b->held or
** earlier items of the batch hold descriptors (the caller retries it after closing those). */
void merkle__fbatch_load(merkle__fbatch *b, int dirfd, merkle__fb_item *it, size_t n);

#endif
