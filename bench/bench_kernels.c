/*
** Kernel benchmark: ns per message of every SHA-256 and BLAKE2b-256 batch kernel alone, on
** the shapes a Merkle tree produces (65-byte nodes; 1+64, 1+1024, 1+4096-byte leaves), next
** to OpenSSL (EVP, one digest per message, context reused) and libsodium (one
** crypto_generichash per message) measured in the same run. Median of several repetitions.
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
    clock_gettime(CLOCK_MONOTONIC, &ts);
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
    {"node 1+64", 1, 64, 64},
    {"leaf 1+64", 0, 64, 128},
    {"leaf 1+1024", 0, 1024, 128},
    {"leaf 1+4096", 0, 4096, 128},
};
#define N_SHAPES (sizeof k_shapes / sizeof k_shapes[0])

static int g_reps = 7;
static size_t g_bytes = 4u << 20; /* message bytes per repetition */

typedef void (*run_fn)(const void *ctx, uint8_t *out, const uint8_t *buf, const shape *s, size_t n);

/* Median ns per message of fn over n messages laid out contiguously in buf. */
static double measure(run_fn fn, const void *ctx, uint8_t *out, const uint8_t *buf, const shape *s,
                      size_t n)
{
    double t[32];
    fn(ctx, out, buf, s, n); /* warm up */
    for (int r = 0; r < g_reps; r++) {
        double t0 = now_s();
        fn(ctx, out, buf, s, n);
        t[r] = (now_s() - t0) * 1e9 / (double)n;
    }
    qsort(t, (size_t)g_reps, sizeof t[0], cmp_d);
    return t[g_reps / 2];
}

static void run_batch(const void *ctx, uint8_t *out, const uint8_t *buf, const shape *s, size_t n)
{
    merkle_hash_alg alg = *(const merkle_hash_alg *)ctx;
    for (size_t i = 0; i < n; i += s->batch) {
        size_t k = n - i < s->batch ? n - i : s->batch;
        (void)merkle_hash_batch_strided(out + 32 * i, alg, &s->prefix, 1, buf + i * s->len,
                                        s->len, s->len, k);
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

    const char *names[16];
    size_t nb = merkle_sha256_backends(names, 16);
    const char *initial = merkle_sha256_backend();
    char initial_name[64];
    snprintf(initial_name, sizeof initial_name, "%s", initial);

    printf("SHA-256, ns per message (median of %d), ratio = OpenSSL EVP per message / kernel\n",
           g_reps);
    printf("%-14s %12s", "kernel", "");
    for (size_t s = 0; s < N_SHAPES; s++) printf(" %17s", k_shapes[s].label);
    printf("\n");
    merkle_hash_alg sha = MERKLE_HASH_SHA256, b2 = MERKLE_HASH_BLAKE2B_256;
    double ossl[N_SHAPES];
    printf("%-27s", "openssl EVP");
    for (size_t s = 0; s < N_SHAPES; s++) {
        size_t n = g_bytes / k_shapes[s].len;
        ossl[s] = measure(run_openssl, md, ref, buf, &k_shapes[s], n);
        printf(" %9.1f ns      ", ossl[s]);
    }
    printf("\n");
    int bad = 0;
    for (size_t b = 0; b <= nb; b++) {
        const char *name = b < nb ? names[b] : "auto";
        if (merkle_sha256_set_backend(name) != MERKLE_OK) continue;
        printf("%-27s", b < nb ? name : initial_name);
        for (size_t s = 0; s < N_SHAPES; s++) {
            size_t n = g_bytes / k_shapes[s].len;
            double ns = measure(run_batch, &sha, out, buf, &k_shapes[s], n);
            run_openssl(md, ref, buf, &k_shapes[s], n);
            if (memcmp(out, ref, 32 * n) != 0) bad = 1;
            printf(" %6.1f ns %5.2fx", ns, ossl[s] / ns);
        }
        printf("%s\n", b < nb ? "" : "  (auto)");
    }
    (void)merkle_sha256_set_backend("auto");

    printf("\nBLAKE2b-256, ns per message, ratio = libsodium per message / ours\n");
    double sod[N_SHAPES];
    printf("%-27s", "libsodium generichash");
    for (size_t s = 0; s < N_SHAPES; s++) {
        size_t n = g_bytes / k_shapes[s].len;
        sod[s] = measure(run_sodium, NULL, ref, buf, &k_shapes[s], n);
        printf(" %9.1f ns      ", sod[s]);
    }
    printf("\n");
    const char *bnames[8];
    size_t nbb = merkle__blake2b_backends(bnames, 8);
    for (size_t b = 0; b < nbb; b++) {
        if (merkle__blake2b_set_backend(bnames[b]) != MERKLE_OK) continue;
        printf("%-27s", bnames[b]);
        for (size_t s = 0; s < N_SHAPES; s++) {
            size_t n = g_bytes / k_shapes[s].len;
            double ns = measure(run_batch, &b2, out, buf, &k_shapes[s], n);
            run_sodium(NULL, ref, buf, &k_shapes[s], n);
            if (memcmp(out, ref, 32 * n) != 0) bad = 1;
            printf(" %6.1f ns %5.2fx", ns, sod[s] / ns);
        }
        printf("\n");
    }
    (void)merkle__blake2b_set_backend(NULL);
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
