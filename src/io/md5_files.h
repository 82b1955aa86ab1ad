/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The MD5 file engine over the multi-buffer kernels of src/hash/md5_mb.h (internal, never
** installed): src/io/md5_files.c.
*/
#ifndef MERKLE_MD5_FILES_H
#define MERKLE_MD5_FILES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "hash/md5_mb.h"
#include "os/os.h" /* struct stat: the platform layer's on Windows */

/*
** The file engine: MD5 of n files, keeping up to `lanes` files in flight (the kernel's lane
** count), refilling a lane as soon as its file ends; each lane reads with read(2) into its
** own reused buffer. paths[i] is opened relative to dirfd (AT_FDCWD allowed) with
** O_RDONLY|O_CLOEXEC, plus O_NOATIME when the process is permitted to use it.
**
** For every file, exactly once, in any order, on the calling thread:
**     done(ctx, i, sys_errno, digest, st, bytes)
** sys_errno is 0 on success (digest points to 16 bytes) or the errno of the failed
** open/read (digest NULL; a directory gives EISDIR, from read). st is the fstat(2) of the
** opened file taken right after open (NULL if open or fstat failed). Both pointers are only
** valid during the call. A file that grows or shrinks while being read is hashed as read;
** bytes is how many were hashed (which may differ from st->st_size: a file that changed, or
** one of /proc, whose size says 0).
**
** Per file the syscalls are open, fstat, read (one read when the file fits the lane buffer:
** a short read at or past st_size ends a regular file), close; posix_fadvise(SEQUENTIAL) only
** for large files.
**
** Allocates its lane buffers once per call (16 x 64 KiB with AVX-512, freed before return):
** MERKLE_ERR_NOMEM if that fails (done is then never called); MERKLE_ERR_ARG if paths or done
** is NULL while n > 0. Per-file errors are reported through done, never as the return status.
** Single-threaded: callers split the list across threads (each call is independent).
*/
typedef void (*merkle__mb_done_fn)(void *ctx, size_t index, int sys_errno, const uint8_t *digest,
                                   const struct stat *st, uint64_t bytes);
merkle_status merkle__md5_mb_files(int dirfd, const char *const *paths, size_t n,
                                   merkle__mb_done_fn done, void *ctx);

/*
** Same, with an explicit kernel (NULL = merkle__md5_mb_get()) and per-lane buffer size in
** bytes (0 = default 64 KiB; rounded up to a multiple of 4096, at least 8192). For tests and
** benches.
*/
merkle_status merkle__md5_mb_files_ex(const merkle__md5_mb_impl *impl, size_t lane_buf, int dirfd,
                                      const char *const *paths, size_t n, merkle__mb_done_fn done,
                                      void *ctx);

/*
** Reusable engine: the lane buffers of merkle__md5_mb_files, allocated once and kept across
** runs (a thread that hashes many batches allocates once and never page-faults again).
** merkle__md5_mb_engine_alloc allocates (impl NULL = the dispatched kernel, lane_buf as
** above; MERKLE_ERR_NOMEM, MERKLE_ERR_ARG); merkle__md5_mb_engine_free(NULL) is a no-op.
** An engine is used by one thread at a time.
*/
typedef struct merkle__md5_mb_engine merkle__md5_mb_engine;
merkle_status merkle__md5_mb_engine_alloc(merkle__md5_mb_engine **out,
                                          const merkle__md5_mb_impl *impl, size_t lane_buf);
void merkle__md5_mb_engine_free(merkle__md5_mb_engine *eng);

/* merkle__md5_mb_files with a reusable engine: no allocation. */
merkle_status merkle__md5_mb_engine_files(merkle__md5_mb_engine *eng, int dirfd,
                                          const char *const *paths, size_t n,
                                          merkle__mb_done_fn done, void *ctx);

/*
** Pull form, for threads sharing one work list: the engine calls next(ctx, &index, &path)
** whenever it wants another file (it opens up to 16 files ahead of the lanes, and starts the
** largest first, so that a big file does not start last and run alone); next returns 1 with
** *index and *path set (path must stay valid until done is called for that index), or 0 when
** there are no more (next is then not called again in this run). done as above, once per
** index handed out. Give each thread its own engine and let next take from a shared atomic
** cursor: then each thread keeps its lanes full until the whole list is done, instead of
** draining them at the end of every chunk. Holds at most 32 descriptors open at once; when
** open fails with EMFILE/ENFILE while others are open, the file is retried later.
** MERKLE_ERR_ARG if eng, next or done is NULL.
*/
typedef int (*merkle__mb_next_fn)(void *ctx, size_t *index, const char **path);
/* Optional: bytes(ctx, n) after every read of n > 0 bytes by a lane of engine_run (progress
** inside large files). NULL (the default) for none. */
typedef void (*merkle__mb_bytes_fn)(void *ctx, uint64_t n);
void merkle__md5_mb_engine_set_bytes(merkle__md5_mb_engine *eng, merkle__mb_bytes_fn bytes);
/* The caller's list is short (fewer than MERKLE__IO_TRIAL_MIN files, io/uring.h): the
** file engine is not measured for it. Kept across runs. */
void merkle__md5_mb_engine_set_small(merkle__md5_mb_engine *eng, int small);
/* Every file is opened with O_NONBLOCK and fstat'ed first. A file that is not regular (FIFO,
** device, directory, socket) is, by default, opened again (blocking) and read only once every
** file taken before it is done and reported: a FIFO with no writer never holds back earlier
** results. With regular_only (check, audit) it is refused unread instead: done() with
** sys_errno EISDIR (directory) or EINVAL (io/fdbudget.h merkle__not_regular_errno). Kept
** across runs. */
void merkle__md5_mb_engine_set_regular_only(merkle__md5_mb_engine *eng, int on);
merkle_status merkle__md5_mb_engine_run(merkle__md5_mb_engine *eng, int dirfd,
                                        merkle__mb_next_fn next, merkle__mb_done_fn done,
                                        void *ctx);
/* Descriptors of the budget (io/fdbudget.h) the engine holds now (its pool and lanes): what a
** `next` callback that opens files itself passes as `held`. */
unsigned merkle__md5_mb_engine_held(const merkle__md5_mb_engine *eng);

#endif
