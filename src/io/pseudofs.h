/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Pseudo file systems (internal): procfs, sysfs and their kin make up a file's contents when it
** is read, and give it a size (0, or a page) and times that say nothing about them. The
** validation cache never records such a file and never answers for one (docs/manifest.md,
** "What the cache never records"). Linux only: elsewhere nothing is a pseudo file system here
** (the cache's rule that the bytes read must equal st_size still holds there).
*/
#ifndef MERKLE_IO_PSEUDOFS_H
#define MERKLE_IO_PSEUDOFS_H

#include <stdint.h>

/* 1 when the open descriptor fd (O_PATH is enough) lies on a pseudo file system, 0 when it
** does not or fstatfs fails (nothing to say). */
int merkle__fd_on_pseudo_fs(int fd);

/* What a run learned about the devices it saw: a device is a file system, so one fstatfs per
** device and run, not per file. Zero-initialise; one per thread. */
#define MERKLE__PSEUDO_MEMO 4
typedef struct merkle__pseudo_memo {
    uint64_t dev[MERKLE__PSEUDO_MEMO];
    unsigned char pseudo[MERKLE__PSEUDO_MEMO];
    unsigned n, next;
} merkle__pseudo_memo;

/*
** 1 when the file `name` (relative to dirfd, symbolic links followed, as the check engine
** opens it), whose st_dev is dev, may not be vouched for by a cache: it lies on a pseudo file
** system, or it could not be looked at, or it is no longer on device dev. 0: an ordinary file
** system. Costs nothing for a device seen before (memo); else an open(O_PATH), fstat, fstatfs.
*/
int merkle__pseudo_dev(merkle__pseudo_memo *m, int dirfd, const char *name, uint64_t dev);

#endif
