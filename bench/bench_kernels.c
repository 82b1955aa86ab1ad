/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Kernel benchmark: ns per message of every SHA-256 and BLAKE2b-256 batch kernel alone, on
** the shapes a Merkle tree produces (65-byte nodes; 1+64, 1+1024, 1+4096-byte leaves), next
** to OpenSSL (EVP, one digest per message, context reused) and libsodium (one
** crypto_generichash per message) measured in the same run. Median of several repetitions
** of thread CPU time (the machine may be shared: CPU time ignores time spent descheduled).
**   bench_kernels            full table (about 20 s)
**   bench_kernels --smoke    tiny sizes, one repetition (CI, under 2 s)
**   bench_kernels --hashtree LIB [--pairs N] [--reps R] [--only NAME]
**                            issue 30 item 2: ns per 64-byte pair of each of our SHA-256
**                            batch kernels against hashtree (github.com/prysmaticlabs/hashtree,
**                            built outside this repository as a shared library LIB and
**                            dlopened): hashtree_hash and its per-ISA entry points on the same
**                            N pairs (default 65536), then an SSZ List[Bytes32, 2^20] root
**                            (merkle_shape_root against hashtree level by level plus the
**                            length mix-in). Candidates alternate within each repetition;
**                            medians of R (default 15) of thread CPU time; outputs compared.
**                            --only NAME runs one candidate R times on the pairs alone (for
**                            valgrind or perf).
*/
#include <dlfcn.h>
#include <openssl/evp.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hash/impl.h"
#include "merkle/hash.h"
#include "merkle/shape.h"

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

/* ------------------------------------------------------------------ --hashtree */

/* hashtree's entry points: out[32*i ..) = SHA-256(in[64*i .. 64*i+64)) for i < count. */
typedef void (*ht_fn)(unsigned char *out, const unsigned char *in, uint64_t count);

typedef struct cand {
    char name[48];
    const char *ours; /* our backend name, or NULL for a hashtree function */
    ht_fn ht;
} cand;

static void ht_pairs(const cand *c, uint8_t *out, const uint8_t *in, size_t n)
{
    if (c->ours) {
        (void)merkle_sha256_set_backend(c->ours);
        (void)merkle_sha256_batch_strided(out, NULL, 0, in, 64, 64, n);
    } else {
        c->ht(out, in, n);
    }
}

/* SSZ List[Bytes32, n] root (n a power of two, full): hashtree level by level in place,
** then the length mix-in; ours is merkle_shape_root. */
static void ht_ssz(const cand *c, uint8_t root[32], const uint8_t *chunks, uint8_t *work,
                   uint8_t *work2, size_t n)
{
    if (c->ours) {
        (void)merkle_sha256_set_backend(c->ours);
        merkle_shape s;
        merkle_shape_init(&s, MERKLE_SHAPE_VERSION, MERKLE_PROFILE_SSZ);
        s.limit = n;
        s.flags |= MERKLE_SHAPE_MIX_IN_LENGTH;
        if (merkle_shape_root(root, NULL, &s, (const uint8_t(*)[32])chunks, n, NULL) != MERKLE_OK)
            exit(1);
        return;
    }
    c->ht(work, chunks, n / 2);
    for (size_t m = n / 2; m > 1; m /= 2) { /* out never overlaps in (ping-pong) */
        c->ht(work2, work, m / 2);
        uint8_t *t = work;
        work = work2;
        work2 = t;
    }
    uint8_t mix[64] = { 0 };
    memcpy(mix, work, 32);
    for (int i = 0; i < 8; i++) mix[32 + i] = (uint8_t)((uint64_t)n >> (8 * i));
    c->ht(root, mix, 1);
}

static int run_hashtree(const char *lib, size_t npairs, int reps, const char *only)
{
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "bench_kernels: %s\n", dlerror());
        return 2;
    }
    cand c[16];
    size_t nc = 0;
    const char *kn[10];
    size_t nk = merkle_sha256_backends(kn, 10);
    for (size_t i = 0; i < nk && i < 10; i++) {
        if (strcmp(kn[i], "portable") == 0) continue;
        snprintf(c[nc].name, sizeof c[nc].name, "ours %s", kn[i]);
        c[nc].ours = kn[i];
        c[nc++].ht = NULL;
    }
    snprintf(c[nc].name, sizeof c[nc].name, "ours auto");
    c[nc].ours = "auto";
    c[nc++].ht = NULL;
    static const char *const ht_names[] = { "hashtree_hash", "hashtree_sha256_avx512_x16",
                                            "hashtree_sha256_avx2_x8", "hashtree_sha256_shani_x2" };
    /* hashtree_hash dispatches on the CPU; the per-ISA functions exist in every x86-64
    ** build but need the ISA: skip the ones this CPU lacks. */
    unsigned feat = merkle__cpu_features();
    for (size_t i = 0; i < 4; i++) {
        ht_fn f = (ht_fn)(uintptr_t)dlsym(h, ht_names[i]);
        if (!f) continue;
        if (i == 1 && !(feat & MERKLE_CPU_AVX512)) continue;
        if (i == 2 && !(feat & MERKLE_CPU_AVX2)) continue;
        if (i == 3 && !(feat & MERKLE_CPU_SHA)) continue;
        snprintf(c[nc].name, sizeof c[nc].name, "%s", ht_names[i]);
        c[nc].ours = NULL;
        c[nc++].ht = f;
    }
    const size_t nssz = (size_t)1 << 20;
    uint8_t *in = malloc(64 * npairs + 64), *out = malloc(32 * npairs), *ref = malloc(32 * npairs);
    uint8_t *chunks = malloc(32 * nssz), *work = malloc(16 * nssz), *work2 = malloc(16 * nssz);
    if (!in || !out || !ref || !chunks || !work || !work2) return 1;
    uint8_t *pairs = in + 1; /* deliberately unaligned, as a level inside a buffer may be */
    for (size_t i = 0; i < 64 * npairs; i++) pairs[i] = (uint8_t)(i * 167 + (i >> 11));
    for (size_t i = 0; i < npairs; i++) merkle_sha256_hash(ref + 32 * i, pairs + 64 * i, 64);
    int bad = 0;
    if (only) {
        for (size_t k = 0; k < nc; k++) {
            if (strcmp(c[k].name, only) != 0) continue;
            for (int r = 0; r < reps; r++) ht_pairs(&c[k], out, pairs, npairs);
            if (memcmp(out, ref, 32 * npairs) != 0) bad = 1;
            printf("%s: %zu pairs%s\n", c[k].name, npairs, bad ? " WRONG" : "");
            return bad;
        }
        fprintf(stderr, "bench_kernels: no candidate %s\n", only);
        return 2;
    }
    for (size_t i = 0; i < nssz; i++) {
        uint8_t le[4] = { (uint8_t)i, (uint8_t)(i >> 8), (uint8_t)(i >> 16), (uint8_t)(i >> 24) };
        merkle_sha256_hash(chunks + 32 * i, le, 4);
    }
    uint8_t ssz_ref[32], root[32];
    (void)merkle_sha256_set_backend("portable");
    {
        cand p = { "portable", "portable", NULL };
        ht_ssz(&p, ssz_ref, chunks, work, work2, nssz);
    }
    static double tp[16][64], ts[16][64];
    if (reps > 64) reps = 64;
    for (int r = -1; r < reps; r++) {
        for (size_t k = 0; k < nc; k++) {
            double t0 = now_s();
            ht_pairs(&c[k], out, pairs, npairs);
            double t1 = now_s();
            if (memcmp(out, ref, 32 * npairs) != 0) bad = 1;
            ht_ssz(&c[k], root, chunks, work, work2, nssz);
            double t2 = now_s();
            if (memcmp(root, ssz_ref, 32) != 0) bad = 1;
            if (r >= 0) {
                tp[k][r] = (t1 - t0) * 1e9 / (double)npairs;
                ts[k][r] = (t2 - t1) * 1e3;
            }
        }
    }
    double mp[16], ms[16], ht_p = 0, ht_s = 0;
    for (size_t k = 0; k < nc; k++) {
        mp[k] = median(tp[k], reps);
        ms[k] = median(ts[k], reps);
        if (strcmp(c[k].name, "hashtree_sha256_avx512_x16") == 0) {
            ht_p = mp[k];
            ht_s = ms[k];
        }
    }
    printf("SHA-256 of 64-byte pairs (%zu, unaligned) and SSZ List[Bytes32, 2^20] root; median "
           "of %d, thread CPU time;\nratio = hashtree_sha256_avx512_x16 / candidate (> 1: "
           "faster than hashtree's AVX-512 kernel)\n",
           npairs, reps);
    printf("%-28s %12s %7s %12s %7s\n", "candidate", "ns/pair", "ratio", "ssz root ms", "ratio");
    for (size_t k = 0; k < nc; k++)
        printf("%-28s %12.2f %6.2fx %12.2f %6.2fx\n", c[k].name, mp[k], ht_p ? ht_p / mp[k] : 0,
               ms[k], ht_s ? ht_s / ms[k] : 0);
    (void)merkle_sha256_set_backend("auto");
    free(in);
    free(out);
    free(ref);
    free(chunks);
    free(work);
    free(work2);
    dlclose(h);
    if (bad) fprintf(stderr, "bench_kernels: a candidate disagreed with the reference\n");
    return bad;
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--hashtree") == 0) {
        size_t npairs = 65536;
        int reps = 15;
        const char *only = NULL;
        for (int i = 3; i + 1 < argc; i += 2) {
            if (strcmp(argv[i], "--pairs") == 0)
                npairs = (size_t)strtoull(argv[i + 1], NULL, 10);
            else if (strcmp(argv[i], "--reps") == 0)
                reps = atoi(argv[i + 1]);
            else if (strcmp(argv[i], "--only") == 0)
                only = argv[i + 1];
        }
        if (npairs == 0 || reps < 1) return 2;
        return run_hashtree(argv[2], npairs, reps, only);
    }
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
