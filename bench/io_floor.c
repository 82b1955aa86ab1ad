/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The kernel's floor for many small files on this machine: what one file costs with plain
** system calls and with io_uring batches, with no hashing at all. It decides whether an
** io_uring file engine can pay for itself here (issue 16; docs/io.md).
**
**   io_floor [N] [BATCH]     N files of 4 KiB in a fresh temporary directory (default 20000,
**                            batch 64); medians of 7 rounds, the variants interleaved.
**
** Variants, per file: fstatat (what a cached check costs); openat+fstat+read+close (what the
** syscall engine does); io_uring statx by path, BATCH per io_uring_enter; io_uring linked
** openat (direct descriptor) -> read (fixed file, hard link) -> close, BATCH per enter; the
** same chain with a statx in front (the identity a cache needs).
*/
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

enum { V_FSTATAT, V_SYNC, V_STATX, V_CHAIN, V_STATX_CHAIN, V_N };
static const char *vname[V_N] = { "fstatat", "openat+fstat+read+close", "io_uring statx",
                                  "io_uring open->read->close",
                                  "io_uring statx->open->read->close" };

static int n_files, batch;
static char (*names)[32];
static uint8_t *bufs;
static struct statx *sx;

/* Wait for `want` completions; count negative results. */
static int reap(struct io_uring *r, int want)
{
    int got = 0, errs = 0;
    while (got < want) {
        struct io_uring_cqe *c;
        if (io_uring_wait_cqe(r, &c) != 0) return -1;
        unsigned head, k = 0;
        io_uring_for_each_cqe(r, head, c)
        {
            k++;
            if (c->res < 0) errs++;
        }
        io_uring_cq_advance(r, k);
        got += (int)k;
    }
    return errs;
}

static double run(int v, struct io_uring *ring, int *errs)
{
    struct stat st;
    double t0 = now();
    if (v == V_FSTATAT) {
        for (int i = 0; i < n_files; i++) *errs += fstatat(AT_FDCWD, names[i], &st, 0) != 0;
    } else if (v == V_SYNC) {
        for (int i = 0; i < n_files; i++) {
            int fd = open(names[i], O_RDONLY | O_CLOEXEC);
            if (fd < 0) {
                (*errs)++;
                continue;
            }
            *errs += fstat(fd, &st) != 0 || read(fd, bufs, 65536) < 0;
            close(fd);
        }
    } else {
        for (int i = 0; i < n_files; i += batch) {
            int m = n_files - i < batch ? n_files - i : batch, per = 0;
            for (int k = 0; k < m; k++) {
                struct io_uring_sqe *s;
                if (v == V_STATX || v == V_STATX_CHAIN) {
                    s = io_uring_get_sqe(ring);
                    io_uring_prep_statx(s, AT_FDCWD, names[i + k], 0, STATX_BASIC_STATS, &sx[k]);
                    if (v == V_STATX_CHAIN) s->flags |= IOSQE_IO_LINK;
                }
                if (v != V_STATX) {
                    s = io_uring_get_sqe(ring);
                    io_uring_prep_openat_direct(s, AT_FDCWD, names[i + k], O_RDONLY, 0,
                                                (unsigned)k);
                    s->flags |= IOSQE_IO_LINK;
                    s = io_uring_get_sqe(ring);
                    io_uring_prep_read(s, k, bufs + (size_t)k * 65536, 65536, 0);
                    /* a short read would cancel a plain link: the close must run anyway */
                    s->flags |= IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;
                    s = io_uring_get_sqe(ring);
                    io_uring_prep_close_direct(s, (unsigned)k);
                }
            }
            per = v == V_STATX ? 1 : v == V_CHAIN ? 3 : 4;
            io_uring_submit(ring);
            int e = reap(ring, m * per);
            if (e < 0) return -1;
            *errs += e;
        }
    }
    return (now() - t0) / n_files * 1e6;
}

int main(int argc, char **argv)
{
    n_files = argc > 1 ? atoi(argv[1]) : 20000;
    batch = argc > 2 ? atoi(argv[2]) : 64;
    if (n_files <= 0 || batch <= 0 || batch > 1024) {
        fprintf(stderr, "usage: io_floor [N] [BATCH<=1024]\n");
        return 2;
    }
    char dir[] = "/tmp/io_floor.XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0) {
        perror("mkdtemp");
        return 1;
    }
    names = malloc((size_t)n_files * sizeof *names);
    bufs = malloc((size_t)batch * 65536);
    sx = malloc((size_t)batch * sizeof *sx);
    if (!names || !bufs || !sx) return 1;
    memset(bufs, 0x5a, 4096);
    for (int i = 0; i < n_files; i++) {
        snprintf(names[i], sizeof names[i], "f%06d", i);
        int fd = open(names[i], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || write(fd, bufs, 4096) != 4096) return 1;
        close(fd);
    }
    struct io_uring ring;
    int have_ring = io_uring_queue_init((unsigned)(4 * batch + 8), &ring, 0) == 0 &&
                    io_uring_register_files_sparse(&ring, (unsigned)batch) == 0;
    if (!have_ring) fprintf(stderr, "io_floor: io_uring not available here: syscalls only\n");
    enum { ROUNDS = 7 };
    double t[V_N][ROUNDS];
    int errs[V_N] = { 0 };
    for (int r = 0; r < ROUNDS; r++)
        for (int v = 0; v < V_N; v++)
            t[v][r] = (v >= V_STATX && !have_ring) ? 0 : run(v, &ring, &errs[v]);
    printf("| per file (%d files of 4 KiB, one directory, batch %d) | median | vs "
           "openat+fstat+read+close |\n",
           n_files, batch);
    printf("|---|---|---|\n");
    qsort(t[V_SYNC], ROUNDS, sizeof(double), cmp_d);
    double base = t[V_SYNC][ROUNDS / 2];
    for (int v = 0; v < V_N; v++) {
        if (v != V_SYNC) qsort(t[v], ROUNDS, sizeof(double), cmp_d);
        double m = t[v][ROUNDS / 2];
        if (v >= V_STATX && !have_ring) continue;
        printf("| %s | %.2f us | %.2fx%s |\n", vname[v], m, base / m, errs[v] ? " (errors!)" : "");
    }
    for (int i = 0; i < n_files; i++) unlink(names[i]);
    if (chdir("/") == 0) rmdir(dir);
    return 0;
}
