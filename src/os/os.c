/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The platform layer's POSIX side (os.h): aligned allocation, the processor count, random
** bytes. Windows: os_win.c.
*/
#include "os/os.h"

#if !defined(_WIN32)
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/random.h>
#endif

void *merkle__os_aligned_alloc(size_t align, size_t size)
{
    void *p = NULL;
    if (posix_memalign(&p, align, size) != 0) return NULL;
    return p;
}

void merkle__os_aligned_free(void *p)
{
    free(p);
}

long merkle__os_ncpu(void)
{
#if defined(_SC_NPROCESSORS_ONLN)
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c > 0 ? c : 1;
#else
    return 1;
#endif
}

int merkle__os_random(void *buf, size_t n)
{
    uint8_t *p = buf;
#if defined(__linux__)
    while (n) {
        ssize_t r = getrandom(p, n > 256 ? 256 : n, 0);
        if (r < 0) {
            if (errno == EINTR) continue;
            break; /* ENOSYS (old kernel) or seccomp: try the device */
        }
        p += r;
        n -= (size_t)r;
    }
    if (n == 0) return 0;
#endif
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return -1;
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            close(fd);
            return -1;
        }
        p += r;
        n -= (size_t)r;
    }
    close(fd);
    return 0;
}
#else
typedef int merkle__os_posix_unused; /* ISO C: no empty translation unit */
#endif
