/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The process-wide descriptor budget of the file engines (see fdbudget.h). */
#include "io/fdbudget.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#if defined(__has_include)
#if __has_include(<sys/resource.h>)
#include <sys/resource.h>
#define MERKLE_HAVE_RLIMIT 1
#endif
#endif
#include <time.h>
#include <unistd.h>

#include "os/os.h"

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static unsigned g_limit;
static atomic_uint g_held;
static atomic_uint g_waiters;
static atomic_ulong g_released; /* units given back so far: a waiter sees progress */
static atomic_ulong g_starved;  /* 1 + g_released when an open last gave up alone */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;

/* The soft limit less a reserve: an eighth, at least 32 (the caller's own descriptors, the
** cache and manifest files, io_uring rings, a library or two), and at least 4 for us. */
static void limit_init(void)
{
#ifdef MERKLE_HAVE_RLIMIT
    struct rlimit rl;
    rlim_t soft = 1024;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
        soft = rl.rlim_cur == RLIM_INFINITY ? (rlim_t)1 << 20 : rl.rlim_cur;
#else
    typedef unsigned long rlim_t;
    rlim_t soft = 2048; /* the C runtime's descriptor table on Windows (_setmaxstdio) */
#endif
    if (soft > (1u << 20)) soft = 1u << 20;
    rlim_t reserve = soft / 8 < 32 ? 32 : soft / 8;
    g_limit = soft > reserve + 4 ? (unsigned)(soft - reserve) : 4;
}

unsigned merkle__fd_limit(void)
{
    pthread_once(&g_once, limit_init);
    return g_limit;
}

unsigned merkle__fd_held(void)
{
    return atomic_load(&g_held);
}

unsigned merkle__fd_take(unsigned n)
{
    unsigned lim = merkle__fd_limit();
    unsigned cur = atomic_load(&g_held);
    for (;;) {
        if (cur >= lim) return 0;
        unsigned k = lim - cur < n ? lim - cur : n;
        if (atomic_compare_exchange_weak(&g_held, &cur, cur + k)) return k;
    }
}

void merkle__fd_put(unsigned n)
{
    if (n == 0) return;
    atomic_fetch_sub(&g_held, n);
    atomic_fetch_add(&g_released, n);
    if (atomic_load(&g_waiters)) {
        pthread_mutex_lock(&g_lock);
        pthread_cond_broadcast(&g_cond);
        pthread_mutex_unlock(&g_lock);
    }
}

/* A unit taken for an open that failed: back, without counting as a release (a release
** means a descriptor of ours came free: see g_starved). */
static void unreserve(void)
{
    atomic_fetch_sub(&g_held, 1);
    if (atomic_load(&g_waiters)) {
        pthread_mutex_lock(&g_lock);
        pthread_cond_broadcast(&g_cond);
        pthread_mutex_unlock(&g_lock);
    }
}

void merkle__fd_close(int fd)
{
    close(fd);
    merkle__fd_put(1);
}

/* Wait up to ms for a unit to come back (a put from another thread). */
static void wait_release(unsigned ms, unsigned long seen)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += (long)(ms % 1000) * 1000000L;
    ts.tv_sec += (time_t)(ms / 1000) + ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    atomic_fetch_add(&g_waiters, 1);
    pthread_mutex_lock(&g_lock);
    while (atomic_load(&g_released) == seen)
        if (pthread_cond_timedwait(&g_cond, &g_lock, &ts) != 0) break;
    pthread_mutex_unlock(&g_lock);
    atomic_fetch_sub(&g_waiters, 1);
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* One unit for a caller holding none: wait while the budget is spent. The wait is bounded
** (a unit counted but never given back must not stop the process): after the give-up time
** without any release the open is simply tried. */
static void take_waiting(void)
{
    uint64_t last = 0;
    while (merkle__fd_take(1) == 0) {
        unsigned long seen = atomic_load(&g_released);
        uint64_t t = now_ms();
        if (!last) last = t;
        if (t - last >= MERKLE__FD_GIVE_UP_MS) {
            atomic_fetch_add(&g_held, 1); /* over the budget: the kernel decides */
            return;
        }
        wait_release(50, seen);
        if (atomic_load(&g_released) != seen) last = 0;
    }
}

int merkle__fd_openat(int dirfd, const char *path, int *oflags, int extra, unsigned held)
{
    if (merkle__fd_take(1) == 0) {
        if (held > 0) {
            errno = EMFILE;
            return -1;
        }
        take_waiting();
    }
    uint64_t last = 0;
    unsigned nap = 1;
    for (;;) {
        unsigned long seen = atomic_load(&g_released);
        int fd = openat(dirfd, path, *oflags | extra);
        if (fd < 0 && errno == EPERM && (*oflags & O_NOATIME)) {
            *oflags &= ~O_NOATIME; /* stop asking */
            fd = openat(dirfd, path, *oflags | extra);
        }
        if (fd >= 0) return fd;
        int err = errno;
        if ((err != EMFILE && err != ENFILE) || held > 0) {
            unreserve();
            errno = err;
            return -1;
        }
        /* The kernel is out of descriptors although the budget was not: held outside the
        ** engines or by other processes. While other threads of ours hold some, wait for a
        ** release (they make progress); when none of ours is held, only others can give
        ** some back: back off for a short while, and once that failed, fail at once until
        ** a descriptor of ours comes free again. */
        int ours = atomic_load(&g_held) > 1;
        if (!ours && atomic_load(&g_starved) == seen + 1) { /* no release since */
            unreserve();
            errno = err;
            return -1;
        }
        uint64_t t = now_ms();
        if (!last) last = t;
        if (t - last >= (ours ? MERKLE__FD_GIVE_UP_MS : MERKLE__FD_GIVE_UP_ALONE_MS)) {
            if (!ours) atomic_store(&g_starved, atomic_load(&g_released) + 1);
            unreserve();
            errno = err;
            return -1;
        }
        if (ours) {
            wait_release(50, seen);
        } else {
            struct timespec ts = { 0, (long)nap * 1000000L };
            nanosleep(&ts, NULL);
            if (nap < 64) nap *= 2;
        }
        if (atomic_load(&g_released) != seen) last = 0;
    }
}

int merkle__not_regular_errno(unsigned mode)
{
    return S_ISDIR((mode_t)mode) ? EISDIR : EINVAL;
}

int merkle__fd_open_regular(int dirfd, const char *path, int *oflags, unsigned held,
                            struct stat *st)
{
    int fd = merkle__fd_openat(dirfd, path, oflags, O_NONBLOCK, held);
    if (fd < 0) return -1;
    int err = 0;
    if (fstat(fd, st) != 0)
        err = errno;
    else if (!S_ISREG(st->st_mode))
        err = merkle__not_regular_errno((unsigned)st->st_mode);
    if (err) {
        merkle__fd_close(fd);
        errno = err;
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}
