/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Multi-buffer MD5 benchmark.
**   1. Kernels: GB/s of each available kernel (all its lanes busy, data in L2) against OpenSSL's
**      MD5 (EVP, one stream) on the same bytes.
**   2. File engine (merkle__md5_mb_files) against the real `md5sum -c` on the same files, page
**      cache warm, measured in the same run (medians):
**        dataset A: 20,000 files of 4 KiB;  dataset B: 300 files log-uniform 1 KiB .. 4 MiB.
**      Engine rows: each kernel with 1 thread, the default kernel with 2 threads (list split in
**      two), and a "read whole file + OpenSSL MD5" baseline.
** Usage: bench_md5_mb [--smoke] [--reps N] [--dir PARENT]
**   --smoke  tiny datasets, one repetition (< 2 s), for CI.
*/
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "hash/md5_mb.h"
#include "io/md5_files.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this process (user + system, all threads): on a shared machine a process may
** get a fraction of a core, and wall time then measures the neighbours as much as the code. */
static double cpunow(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time (user + system) of the finished children. */
static double child_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static double g_cpu; /* CPU seconds of the last run_* call */

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

/* ------------------------------------------------------------------ kernels */

static void bench_kernels(int smoke, int reps)
{
    const size_t per_lane = 64 * 1024;
    const int inner = smoke ? 2 : 40;
    uint8_t *buf = malloc(per_lane * MERKLE_MD5_MB_MAX_LANES);
    if (!buf) return;
    for (size_t i = 0; i < per_lane * MERKLE_MD5_MB_MAX_LANES; i++) buf[i] = (uint8_t)rnd();

    /* OpenSSL reference: one stream over the same bytes. */
    double t[16];
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    uint8_t out[16];
    unsigned outlen;
    size_t total = per_lane * MERKLE_MD5_MB_MAX_LANES;
    EVP_Digest(buf, total, out, &outlen, EVP_md5(), NULL); /* warm-up: provider fetch */
    for (int r = 0; r < reps; r++) {
        double t0 = cpunow();
        for (int k = 0; k < inner; k++) {
            EVP_DigestInit_ex(ctx, EVP_md5(), NULL);
            EVP_DigestUpdate(ctx, buf, total);
            EVP_DigestFinal_ex(ctx, out, &outlen);
        }
        t[r] = cpunow() - t0;
    }
    EVP_MD_CTX_free(ctx);
    double ossl = (double)total * inner / bench_median(t, reps) / 1e9;
    printf("\n%-28s %8s %10s %12s\n", "MD5 kernel (CPU time, in L2)", "lanes", "GB/s",
           "vs OpenSSL");
    printf("%-28s %8u %10.2f %11.2fx\n", "openssl EVP_md5 (1 stream)", 1u, ossl, 1.0);
    static const char *const names[] = { "portable", "avx2", "avx512" };
    for (size_t i = 0; i < 3; i++) {
        const merkle__md5_mb_impl *impl = merkle__md5_mb_find(names[i]);
        if (!impl || !impl->available()) {
            printf("%-28s %8s %10s\n", names[i], "-", "n/a");
            continue;
        }
        const uint8_t *ptr[MERKLE_MD5_MB_MAX_LANES] = { 0 };
        for (unsigned l = 0; l < impl->lanes; l++) ptr[l] = buf + per_lane * l;
        merkle__md5_mb st;
        for (unsigned l = 0; l < MERKLE_MD5_MB_MAX_LANES; l++) merkle__md5_mb_lane_init(&st, l);
        for (int r = 0; r < reps; r++) {
            double t0 = cpunow();
            for (int k = 0; k < inner; k++) impl->blocks(&st, ptr, per_lane / 64);
            t[r] = cpunow() - t0;
        }
        double gbs = (double)per_lane * impl->lanes * inner / bench_median(t, reps) / 1e9;
        printf("%-28s %8u %10.2f %11.2fx\n", names[i], impl->lanes, gbs, gbs / ossl);
    }
    free(buf);
}

/* ------------------------------------------------------------------ datasets */

typedef struct dataset {
    const char *label;
    char dir[512];
    size_t n;
    char **names;
    uint64_t bytes;
} dataset;

static int make_dataset(dataset *ds, const char *parent, const char *label, size_t n,
                        size_t (*size_of)(size_t i))
{
    ds->label = label;
    ds->n = n;
    ds->bytes = 0;
    snprintf(ds->dir, sizeof ds->dir, "%s/merkle-bench-md5-XXXXXX", parent);
    if (!mkdtemp(ds->dir)) {
        perror("mkdtemp");
        return -1;
    }
    ds->names = calloc(n, sizeof *ds->names);
    uint8_t *buf = malloc((size_t)4 << 20);
    char path[640];
    snprintf(path, sizeof path, "%s/MD5SUMS", ds->dir);
    FILE *man = fopen(path, "w");
    if (!ds->names || !buf || !man) return -1;
    for (size_t i = 0; i < n; i++) {
        size_t len = size_of(i);
        for (size_t k = 0; k < len; k += 8) {
            uint64_t v = rnd();
            memcpy(buf + k, &v, len - k < 8 ? len - k : 8);
        }
        char name[32];
        snprintf(name, sizeof name, "d%03zu/f%06zu.dat", i / 1000, i);
        ds->names[i] = strdup(name);
        snprintf(path, sizeof path, "%s/d%03zu", ds->dir, i / 1000);
        if (i % 1000 == 0 && mkdir(path, 0755) != 0 && errno != EEXIST) return -1;
        snprintf(path, sizeof path, "%s/%s", ds->dir, name);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) return -1;
        uint8_t d[16];
        merkle__md5(d, buf, len);
        for (int k = 0; k < 16; k++) fprintf(man, "%02x", d[k]);
        fprintf(man, "  %s\n", name);
        ds->bytes += len;
    }
    fclose(man);
    free(buf);
    return 0;
}

static void free_dataset(dataset *ds)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", ds->dir);
    if (system(cmd) != 0) fprintf(stderr, "warning: could not remove %s\n", ds->dir);
    for (size_t i = 0; i < ds->n; i++) free(ds->names[i]);
    free(ds->names);
}

static size_t size_a(size_t i)
{
    (void)i;
    return 4096;
}
static size_t g_bmax = (size_t)4 << 20;
static size_t size_b(size_t i)
{
    (void)i;
    /* log-uniform in [1 KiB, g_bmax] */
    double u = (double)(rnd() >> 11) / 9007199254740992.0;
    return (size_t)(1024.0 * exp(u * log((double)g_bmax / 1024.0)));
}

/* ------------------------------------------------------------------ engine runs */

typedef struct job {
    const merkle__md5_mb_impl *impl;
    size_t lane_buf;
    int dirfd;
    const char *const *paths;
    size_t n;
    atomic_size_t *cursor; /* shared by the threads of one run */
    size_t errors;
} job;

static void count_done(void *ctx, size_t index, int sys_errno, const uint8_t *digest,
                       const struct stat *st, uint64_t bytes)
{
    (void)index;
    (void)digest;
    (void)st;
    (void)bytes;
    if (sys_errno) ((job *)ctx)->errors++;
}

static int job_next(void *ctx, size_t *index, const char **path)
{
    job *j = ctx;
    size_t i = atomic_fetch_add(j->cursor, 1);
    if (i >= j->n) return 0;
    *index = i;
    *path = j->paths[i];
    return 1;
}

/* One thread: its own engine, files from the shared cursor (the pull form). */
static void *job_run(void *arg)
{
    job *j = arg;
    merkle__md5_mb_engine *e;
    if (merkle__md5_mb_engine_alloc(&e, j->impl, j->lane_buf) != MERKLE_OK ||
        merkle__md5_mb_engine_run(e, j->dirfd, job_next, count_done, j) != MERKLE_OK)
        j->errors = j->n;
    merkle__md5_mb_engine_free(e);
    return NULL;
}

static double run_engine(const dataset *ds, int dirfd, const merkle__md5_mb_impl *impl,
                         size_t lane_buf, int threads)
{
    atomic_size_t cursor;
    atomic_init(&cursor, 0);
    job j[2];
    pthread_t th;
    double c0 = cpunow();
    double t0 = now();
    for (int k = 0; k < 2; k++)
        j[k] = (job){ impl, lane_buf, dirfd, (const char *const *)ds->names, ds->n, &cursor, 0 };
    if (threads > 1) {
        if (pthread_create(&th, NULL, job_run, &j[1]) != 0) return -1;
        job_run(&j[0]);
        pthread_join(th, NULL);
    } else {
        job_run(&j[0]);
    }
    double t = now() - t0;
    g_cpu = cpunow() - c0;
    if (j[0].errors || j[1].errors) fprintf(stderr, "engine: file errors!\n");
    return t;
}

/* Baseline: read each whole file into fresh memory, then OpenSSL MD5. */
static double run_whole(const dataset *ds, int dirfd)
{
    double c0 = cpunow();
    double t0 = now();
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    for (size_t i = 0; i < ds->n; i++) {
        int fd = openat(dirfd, ds->names[i], O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0) continue;
        size_t len = (size_t)st.st_size, got = 0;
        uint8_t *buf = malloc(len ? len : 1);
        while (got < len) {
            ssize_t r = read(fd, buf + got, len - got);
            if (r <= 0) break;
            got += (size_t)r;
        }
        close(fd);
        uint8_t out[16];
        unsigned outlen;
        EVP_DigestInit_ex(ctx, EVP_md5(), NULL);
        EVP_DigestUpdate(ctx, buf, got);
        EVP_DigestFinal_ex(ctx, out, &outlen);
        free(buf);
    }
    EVP_MD_CTX_free(ctx);
    double t = now() - t0;
    g_cpu = cpunow() - c0;
    return t;
}

static double run_md5sum(const dataset *ds)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "cd '%s' && md5sum -c MD5SUMS >/dev/null", ds->dir);
    double c0 = child_cpu();
    double t0 = now();
    int rc = system(cmd);
    double t = now() - t0;
    g_cpu = child_cpu() - c0;
    if (rc != 0) fprintf(stderr, "md5sum -c failed (%d)\n", rc);
    return t;
}

static void bench_dataset(dataset *ds, int reps)
{
    int dirfd = open(ds->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) return;
    enum { MAXROWS = 12 };
    const char *label[MAXROWS];
    double t[MAXROWS][16], cpu[MAXROWS][16];
    int rows = 0;
    /* Warm the page cache and the code paths. */
    run_md5sum(ds);
    run_engine(ds, dirfd, merkle__md5_mb_get(), 0, 1);
    const merkle__md5_mb_impl *best = merkle__md5_mb_get();
    static const char *const names[] = { "avx512", "avx2", "portable" };
    static char labels[MAXROWS][64];
    for (int r = 0; r < reps; r++) {
        int row = 0;
        label[row] = "md5sum -c";
        cpu[row][r] = (t[row][r] = run_md5sum(ds), g_cpu);
        row++;
        for (size_t k = 0; k < 3; k++) {
            const merkle__md5_mb_impl *impl = merkle__md5_mb_find(names[k]);
            if (!impl || !impl->available()) continue;
            snprintf(labels[row], sizeof labels[row], "engine %s -j1", names[k]);
            label[row] = labels[row];
            cpu[row][r] = (t[row][r] = run_engine(ds, dirfd, impl, 0, 1), g_cpu);
            row++;
        }
        static const size_t bufs[] = { 32 * 1024, 128 * 1024, 256 * 1024 };
        for (size_t k = 0; k < 3; k++) {
            snprintf(labels[row], sizeof labels[row], "engine %s -j1 buf %zuK", best->name,
                     bufs[k] / 1024);
            label[row] = labels[row];
            cpu[row][r] = (t[row][r] = run_engine(ds, dirfd, best, bufs[k], 1), g_cpu);
            row++;
        }
        snprintf(labels[row], sizeof labels[row], "engine %s -j2", best->name);
        label[row] = labels[row];
        cpu[row][r] = (t[row][r] = run_engine(ds, dirfd, best, 0, 2), g_cpu);
        row++;
        label[row] = "read whole + OpenSSL -j1";
        cpu[row][r] = (t[row][r] = run_whole(ds, dirfd), g_cpu);
        row++;
        rows = row;
    }
    close(dirfd);
    printf("\n%s: %zu files, %.1f MB, median of %d\n", ds->label, ds->n, (double)ds->bytes / 1e6,
           reps);
    printf("%-34s %9s %9s %9s %9s %10s %10s\n", "", "wall ms", "us/file", "MB/s", "cpu ms",
           "vs md5sum", "(cpu time)");
    double base = 0, cbase = 0;
    for (int row = 0; row < rows; row++) {
        double m = bench_median(t[row], reps), c = bench_median(cpu[row], reps);
        if (row == 0) base = m, cbase = c;
        printf("%-34s %9.1f %9.2f %9.0f %9.1f %9.2fx %9.2fx\n", label[row], m * 1e3,
               m * 1e6 / (double)ds->n, (double)ds->bytes / m / 1e6, c * 1e3, base / m, cbase / c);
    }
}

int main(int argc, char **argv)
{
    int smoke = 0, reps = 5;
    const char *parent = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--smoke") == 0)
            smoke = 1;
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            parent = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--smoke] [--reps N] [--dir PARENT]\n", argv[0]);
            return 2;
        }
    }
    if (smoke) reps = 1;
    if (reps < 1) reps = 1;
    if (reps > 16) reps = 16;
    printf("md5 multi-buffer kernel in use: %s (%u lanes)\n", merkle__md5_mb_get()->name,
           merkle__md5_mb_get()->lanes);
    bench_kernels(smoke, reps);

    dataset a, b;
    size_t na = smoke ? 300 : 20000, nb = smoke ? 20 : 300;
    if (smoke) g_bmax = 256 * 1024;
    if (make_dataset(&a, parent, "dataset A (4 KiB files)", na, size_a) != 0) {
        fprintf(stderr, "cannot create dataset A under %s\n", parent);
        return 1;
    }
    bench_dataset(&a, reps);
    free_dataset(&a);
    if (make_dataset(&b, parent, "dataset B (log-uniform 1 KiB..4 MiB)", nb, size_b) != 0) {
        fprintf(stderr, "cannot create dataset B under %s\n", parent);
        return 1;
    }
    bench_dataset(&b, reps);
    free_dataset(&b);
    return 0;
}
