/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** io_uring, the small part the file engines use (internal; never installed). Written against
** the kernel's own interface (<linux/io_uring.h>, system calls io_uring_setup/enter/register):
** no liburing needed at build or run time. Where the header is missing (not Linux, old
** headers) or MERKLE_NO_URING is defined, every function here reports "unavailable" and the
** callers use plain system calls.
**
** Which engine reads files is chosen at run time (docs/io.md):
**   MERKLE_IO=sync    plain system calls only;
**   MERKLE_IO=uring   io_uring whenever the kernel gives a ring with the needed operations;
**   MERKLE_IO=auto    (default, and any other value) measured: the first batches of a run
**                     alternate between the two engines, timing the same work, and the
**                     cheaper per file is kept for the rest of the process.
** A ring that cannot be set up (no io_uring, /proc/sys/kernel/io_uring_disabled, seccomp:
** ENOSYS/EPERM), lacks an operation (IORING_REGISTER_PROBE), or answers an operation with
** EINVAL on first use, turns the engine off for the process: the callers redo that work with
** system calls, with the same results.
*/
#ifndef MERKLE_COMMON_URING_H
#define MERKLE_COMMON_URING_H
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "os/os.h" /* struct stat: the platform layer's on Windows */

typedef struct merkle__ring merkle__ring;

/* Operations a caller queues (mapped to IORING_OP_* inside). */
enum { MERKLE__RING_OPENAT = 1, MERKLE__RING_READ, MERKLE__RING_CLOSE, MERKLE__RING_STATX };

/* A ring of `entries` submission slots (rounded up to a power of two by the kernel), or NULL
** when io_uring is unavailable (then it stays unavailable for the process). */
merkle__ring *merkle__ring_open(unsigned entries);
void merkle__ring_close(merkle__ring *r);
/* Free submission slots left before the next submit. */
unsigned merkle__ring_space(const merkle__ring *r);

/* Queue one operation (nothing is submitted yet). link: the next queued operation runs only
** after this one, whatever its result (IOSQE_IO_HARDLINK). 0, or -1 when the ring is full. */
int merkle__ring_openat(merkle__ring *r, int dirfd, const char *path, int flags, uint64_t tag);
int merkle__ring_read(merkle__ring *r, int fd, void *buf, unsigned len, uint64_t off, uint64_t tag,
                      int link);
int merkle__ring_close_fd(merkle__ring *r, int fd, uint64_t tag);
/* statx(dirfd, path, flags, STATX_BASIC_STATS) into *out (a struct statx). */
int merkle__ring_statx(merkle__ring *r, int dirfd, const char *path, int flags, void *out,
                       uint64_t tag);

/* Submit what is queued and wait until every submitted operation has completed; then
** each(ctx, tag, res) once per operation, in completion order (res: >= 0 result or -errno).
** 0, or -errno when the kernel refused the submission itself (nothing was done: the caller
** redoes the batch with system calls). */
int merkle__ring_run(merkle__ring *r, void (*each)(void *ctx, uint64_t tag, int32_t res),
                     void *ctx);

/* struct statx -> the struct stat fields the engines use (mode, dev, ino, size, times). */
void merkle__statx_to_stat(struct stat *st, const void *stx);
/* Size of a struct statx, for callers that keep them in arrays. */
size_t merkle__statx_size(void);

/* ------------------------------------------------------------ engine choice */

typedef enum merkle__io_kind {
    MERKLE__IO_OPEN_READ = 0, /* open + fstat + read + close of small files */
    MERKLE__IO_STAT = 1,      /* stat by name (the cache pass) */
    MERKLE__IO_KINDS = 2
} merkle__io_kind;

/* The engine for the next batch of kind k: 1 io_uring, 0 system calls. While the choice is
** being measured, *trial is set to 1 and the caller times the batch and reports it. small:
** the caller's whole pass has fewer files than a measurement is worth (MERKLE__IO_TRIAL_MIN):
** with nothing decided yet, system calls and no trial (a ring's set-up and worker threads
** would cost a small run more than it could gain). */
#define MERKLE__IO_TRIAL_MIN 4000
int merkle__io_pick(merkle__io_kind k, int small, int *trial);
/* The clock of trial batches (monotonic nanoseconds). */
uint64_t merkle__io_now(void);
/* A timed trial batch: files handled and nanoseconds spent, with engine `uring` (0/1). */
void merkle__io_report(merkle__io_kind k, int uring, size_t files, uint64_t ns);
/* The ring failed in use (EINVAL from an operation): system calls from now on. */
void merkle__io_disable(void);
/* 0 sync, 1 uring, -1 not decided yet (tests, --debug output). */
int merkle__io_decision(merkle__io_kind k);
/* Forget decisions and re-read MERKLE_IO (tests). */
void merkle__io_reset(void);

#endif
