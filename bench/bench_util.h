/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Timing helpers shared by the benchmarks (not part of the library).
*/
#ifndef MERKLE_BENCH_UTIL_H
#define MERKLE_BENCH_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Monotonic wall-clock time in seconds. */
static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU time of this process in seconds: on a shared machine, descheduled time is not ours. */
static inline double bench_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of v[0..n) (sorts v in place). */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A benchmark's data: splitmix64 from a fixed seed (each bench keeps its own, so its inputs
** stay those its figures in docs/PERFORMANCE.md were measured on). */
typedef struct bench_rng {
    uint64_t s;
} bench_rng;

static inline uint64_t bench_rnd(bench_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* p[0..n) from r. */
static inline void bench_fill(bench_rng *r, uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = bench_rnd(r);
        memcpy(p + i, &v, n - i < 8 ? n - i : 8);
    }
}

/* Heap allocations are counted by tests/common/alloc_count.h, but not under ASan. */
#ifdef MERKLE_ASAN
#define BENCH_ALLOCS_NOTE " (not counted under ASan)"
#else
#define BENCH_ALLOCS_NOTE ""
#endif

#endif
