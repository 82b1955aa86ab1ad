/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Kernel benchmark: ns per message of every SHA-256 and BLAKE2b-256 batch kernel alone, on
** the shapes a Merkle tree produces (65-byte nodes; 1+64, 1+1024, 1+4096-byte leaves), next
** to OpenSSL (EVP, one digest per message, context reused) and libsodium (one
** crypto_generichash per message) measured in the same run. Median of several repetitions
** of thread CPU time (the machine may be shared: CPU time ignores time spent descheduled).
**   bench_kernels            full table (about 20 s)
**   bench_kernels --smoke    tiny sizes, one repetition (CI, under 2 s)
*/
#include <openssl/evp.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hash/impl.h"
#include "merkle/hash.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct shape {
    const char *label;
    uint8_t prefix;
    size_t len;   /* bytes after the prefix */
    size_t batch; /* messages per call, as the tree makes them */
} shape;

static const shape k_shapes[] = {
    { "node 1+64", 1, 64, 64 },
    { "leaf 1+64", 0, 64, 128 },
    { "leaf 1+1024", 0, 1024, 128 },
    { "leaf 1+4096", 0, 4096, 128 },
};
#define N_SHAPES (sizeof k_shapes / sizeof k_shapes[0])

static int g_reps = 7;
static size_t g_bytes = 4u << 20; /* message bytes per repetition */

typedef void (*run_fn)(const void *ctx, uint8_t *out, const uint8_t *buf, const shape *s, size_t n);

/* ns per message of one run of fn over n messages laid out contiguously in buf. */
static double once(run_fn fn, const void *ctx, uint8_t *out, const uint8_t *buf, const shape *s,
                   size_t n)
{
    double t0 = now_s();
    fn(ctx, out, buf, s, n);
    return (now_s() - t0) * 1e9 / (double)n;
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof t[0], cmp_d);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static void run_batch(const void *ctx, uint8_t *out, const uint8_t *buf, const shape *s, size_t n)
{
    merkle_hash_alg alg = *(const merkle_hash_alg *)ctx;
    for (size_t i = 0; i < n; i += s->batch) {
        size_t k = n - i < s->batch ? n - i : s->batch;
        (void)merkle_hash_batch_strided(out + 32 * i, alg, &s->prefix, 1, buf + i * s->len, s->len,
                                        s->len, k);
    }
}

static void run_openssl(const void *ctx, uint8_t *out, const uint8_t *buf, const shape *s, size_t n)
{
    EVP_MD_CTX *md = (EVP_MD_CTX *)(uintptr_t)ctx;
    for (size_t i = 0; i < n; i++) {
        unsigned int olen;
        EVP_DigestInit_ex(md, EVP_sha256(), NULL);
        EVP_DigestUpdate(md, &s->prefix, 1);
        EVP_DigestUpdate(md, buf + i * s->len, s->len);
        EVP_DigestFinal_ex(md, out + 32 * i, &olen);
    }
}

static void run_sodium(const void *ctx, uint8_t *out, const uint8_t *buf, const shape *s, size_t n)
{
    (void)ctx;
    for (size_t i = 0; i < n; i++) {
        crypto_generichash_state st;
        crypto_generichash_init(&st, NULL, 0, 32);
        crypto_generichash_update(&st, &s->prefix, 1);
        crypto_generichash_update(&st, buf + i * s->len, s->len);
        crypto_generichash_final(&st, out + 32 * i, 32);
    }
}

int main(int argc, char **argv)
{
    int smoke = argc > 1 && strcmp(argv[1], "--smoke") == 0;
    if (smoke) {
        g_reps = 1;
        g_bytes = 64u << 10;
    }
    if (sodium_init() < 0) return 1;
    size_t max_n = g_bytes / 64 + 128;
    uint8_t *buf = malloc(g_bytes + 4096 * 2);
    uint8_t *out = malloc(32 * max_n);
    uint8_t *ref = malloc(32 * max_n);
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    if (!buf || !out || !ref || !md) return 1;
    for (size_t i = 0; i < g_bytes + 8192; i++) buf[i] = (uint8_t)(i * 131 + (i >> 9));

    merkle__sha256_calibration cal;
    merkle__sha256_calibration_get(&cal);
    printf("SHA-256 automatic choice: %s (short messages: %s, long: %s, narrow: %s)\n",
           merkle_sha256_backend(), cal.shorts->name, cal.longs->name,
           cal.narrow ? cal.narrow->name : "-");
    printf("calibration ns/msg (65 B, 1025 B):");
    for (size_t i = 0; i < cal.count; i++)
        printf(" %s %.0f/%.0f", cal.impl[i]->name, cal.ns_short[i], cal.ns_long[i]);
    printf("\n\n");

    const char *initial = merkle_sha256_backend();
    char initial_name[64];
    snprintf(initial_name, sizeof initial_name, "%s", initial);

    merkle_hash_alg sha = MERKLE_HASH_SHA256, b2 = MERKLE_HASH_BLAKE2B_256;
    int bad = 0;
    for (int alg = 0; alg < 2; alg++) {
        /* Candidates: the reference, every kernel, and (SHA-256) the automatic choice. Each
        ** repetition runs all of them in turn, so that they share the machine's noise. */
        const char *kn[12];
        size_t nk = alg ? merkle__blake2b_backends(kn, 10) : merkle_sha256_backends(kn, 10);
        if (!alg) kn[nk++] = "auto";
        double med[12][N_SHAPES];
        for (size_t sh = 0; sh < N_SHAPES; sh++) {
            const shape *s = &k_shapes[sh];
            size_t n = g_bytes / s->len;
            double t[12][32];
            for (int r = -1; r < g_reps; r++) { /* r = -1: warm-up */
                for (size_t k = 0; k <= nk; k++) {
                    double ns;
                    if (k == 0) {
                        ns = once(alg ? run_sodium : run_openssl, md, ref, buf, s, n);
                    } else {
                        if (alg)
                            (void)merkle__blake2b_set_backend(kn[k - 1]);
                        else
                            (void)merkle_sha256_set_backend(kn[k - 1]);
                        ns = once(run_batch, alg ? &b2 : &sha, out, buf, s, n);
                        if (memcmp(out, ref, 32 * n) != 0) bad = 1;
                    }
                    if (r >= 0) t[k][r] = ns;
                }
            }
            for (size_t k = 0; k <= nk; k++) med[k][sh] = median(t[k], g_reps);
        }
        if (alg)
            printf("\nBLAKE2b-256, ns per message (median of %d), ratio = libsodium generichash "
                   "per message / kernel\n",
                   g_reps);
        else
            printf("SHA-256, ns per message (median of %d), ratio = OpenSSL EVP per message / "
                   "kernel\n",
                   g_reps);
        printf("%-22s", "kernel");
        for (size_t sh = 0; sh < N_SHAPES; sh++) printf(" %17s", k_shapes[sh].label);
        printf("\n");
        for (size_t k = 0; k <= nk; k++) {
            printf("%-22s", k == 0 ? (alg ? "libsodium" : "openssl EVP")
                                   : (alg || k < nk ? kn[k - 1] : initial_name));
            for (size_t sh = 0; sh < N_SHAPES; sh++)
                printf(" %7.1f ns %5.2fx", med[k][sh], med[0][sh] / med[k][sh]);
            printf("%s\n", !alg && k == nk ? "  (auto)" : "");
        }
        if (alg)
            (void)merkle__blake2b_set_backend(NULL);
        else
            (void)merkle_sha256_set_backend("auto");
    }
    EVP_MD_CTX_free(md);
    free(buf);
    free(out);
    free(ref);
    if (bad) {
        fprintf(stderr, "bench_kernels: a kernel disagreed with the reference\n");
        return 1;
    }
    return 0;
}
