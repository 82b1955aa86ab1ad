/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Descriptor budget (internal): the file engines of every thread and batch of the process
** (check, sum, audit, dirroot, the MD5 engine, io/fbatch) together hold at most
** merkle__fd_limit() descriptors, the soft RLIMIT_NOFILE less a reserve for the caller's own
** (the manifest, the cache, stdout). Running out is never an answer about a file:
**
**  - a caller that already holds descriptors of its own is told "not now" (EMFILE) and
**    retries after closing one of them (it makes progress meanwhile);
**  - a caller that holds none waits for one, and when the kernel still says EMFILE/ENFILE
**    (descriptors held outside the engines, other processes), waits and retries: only after
**    MERKLE__FD_GIVE_UP_MS without any descriptor coming free (1 s when the engines hold
**    none: then only others can free one; later opens fail at once until one of ours comes
**    free) does the error stand.
**
** Every descriptor opened by merkle__fd_openat is closed with merkle__fd_close.
*/
#ifndef MERKLE_IO_FDBUDGET_H
#define MERKLE_IO_FDBUDGET_H

#include <sys/stat.h>

#include "os/os.h" /* struct stat: the platform layer's on Windows */

#define MERKLE__FD_GIVE_UP_MS       20000 /* while other threads of ours hold descriptors */
#define MERKLE__FD_GIVE_UP_ALONE_MS 1000  /* none of ours held: only others can free one */

/* The budget: descriptors the engines may hold at once (at least 4). */
unsigned merkle__fd_limit(void);

/* Descriptors the engines hold now (for tests and diagnostics). */
unsigned merkle__fd_held(void);

/*
** openat(dirfd, path, *oflags | extra) under the budget, for a caller holding `held`
** descriptors of the budget already. When *oflags has O_NOATIME and it is refused (EPERM),
** it is dropped from *oflags for this and every later open. Returns the descriptor, or -1
** with errno; EMFILE/ENFILE only when held > 0 (retry after a close) or after
** MERKLE__FD_GIVE_UP_MS without progress.
*/
int merkle__fd_openat(int dirfd, const char *path, int *oflags, int extra, unsigned held);

/*
** The open of a file named by a checksum list (check, audit): merkle__fd_openat with
** O_NONBLOCK, so that a FIFO never blocks the open, then fstat(2) of the descriptor into *st.
** Only a regular file is kept: its blocking mode is restored and the descriptor returned.
** Anything else (directory, FIFO, character or block device, socket) is closed unread and
** refused: -1 with errno = merkle__not_regular_errno(st->st_mode). Other failures: -1 and
** open's or fstat's errno (EMFILE/ENFILE as for merkle__fd_openat).
*/
int merkle__fd_open_regular(int dirfd, const char *path, int *oflags, unsigned held,
                            struct stat *st);

/* The errno of a listed name that is not a regular file: EISDIR for a directory, EINVAL for
** a FIFO, device or socket (docs/io.md). */
int merkle__not_regular_errno(unsigned mode);

/* Take up to n units of the budget without waiting: how many were taken. */
unsigned merkle__fd_take(unsigned n);

/* Give back n units (descriptors closed by other means, e.g. a linked io_uring close). */
void merkle__fd_put(unsigned n);

/* close(fd) and give its unit back. */
void merkle__fd_close(int fd);

#endif
