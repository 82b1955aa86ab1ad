/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** One fan-out for the threaded passes: share 0 runs on the calling thread, shares 1..n-1 on
** threads of their own, and every thread is joined before merkle__parallel_for returns.
** Internal (never installed). POSIX threads (winpthreads on MinGW-w64). Self-contained (public
** headers only) so that the CLI, a public-API consumer otherwise, can compile it in too.
*/
#ifndef MERKLE_COMMON_PARALLEL_H
#define MERKLE_COMMON_PARALLEL_H

#include "merkle/common.h"

/* One share of a run: 0 on success, else an error (a merkle_status or the caller's own code). */
typedef int (*merkle__share_fn)(void *arg, unsigned share);

/* Told, on the calling thread, about a share that got no thread (see merkle__parallel_for). */
typedef void (*merkle__unstarted_fn)(void *arg, unsigned share);

/*
** Run fn(arg, i) for every share i < n (n >= 1). When a thread cannot be started, no further
** one is tried, and every share left without a thread is, by `unstarted`:
**   NULL      run on the calling thread right after share 0, in order (the same work, one
**             share after the other);
**   non-NULL  not run: unstarted(arg, i) is called for it before share 0 runs (shares that
**             take their work from a common queue pass merkle__parallel_skip; a barrier counts
**             the share out).
** Returns the first non-zero value a share returned, by share number; 0 when none did;
** MERKLE_ERR_NOMEM, having run nothing, when the bookkeeping for n > 128 shares cannot be had.
*/
int merkle__parallel_for(unsigned n, merkle__share_fn fn, merkle__unstarted_fn unstarted,
                         void *arg);

/* An `unstarted` that does nothing: the share's work is left to the shares that run. */
void merkle__parallel_skip(void *arg, unsigned share);

#endif
