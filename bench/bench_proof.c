/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** bench_proof: streaming proof construction against the plain streaming root, same run.
**
**   bench_proof [--size MiB] [--leaf N] [--reps N] [--smoke]
**
** In memory, a buffer of --size MiB (default 256) cut into --leaf byte leaves (default 64):
**   root         merkle_tree_write + merkle_tree_root (the `merkle root` engine, 1 thread)
**   inclusion    merkle_prover for the middle leaf (and for leaf 0 / the last leaf)
**   range        merkle_prover for a range of 1000 leaves in the middle
**   consistency  merkle_prover from the size two thirds in
** and the cost of one verification (RFC 9162 inclusion / consistency) at that tree size.
** Figures are medians of --reps runs; ratios are against `root` measured in the same run.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "merkle/proof.h"

/* Feed in 1 MiB writes like the CLI does. */
#define PIECE (1u << 20)

static double run_root(const uint8_t *buf, size_t len, size_t leaf, uint8_t out[32])
{
    static merkle_tree t;
    double t0 = bench_now();
    if (merkle_tree_init(&t, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, leaf) != MERKLE_OK)
        exit(1);
    for (size_t off = 0; off < len; off += PIECE)
        if (merkle_tree_write(&t, buf + off, len - off < PIECE ? len - off : PIECE) != MERKLE_OK)
            exit(1);
    if (merkle_tree_root(out, NULL, &t) != MERKLE_OK) exit(1);
    return bench_now() - t0;
}

static double run_prover(const uint8_t *buf, size_t len, size_t leaf, merkle_proof_kind kind,
                         uint64_t a, uint64_t b, merkle_proof *pr)
{
    static merkle_prover p;
    double t0 = bench_now();
    if (merkle_prover_init(&p, kind, MERKLE_HASH_SHA256, leaf, a, b) != MERKLE_OK) exit(1);
    for (size_t off = 0; off < len; off += PIECE)
        if (merkle_prover_write(&p, buf + off, len - off < PIECE ? len - off : PIECE) != MERKLE_OK)
            exit(1);
    if (merkle_prover_finish(pr, &p, MERKLE_PROFILE_RFC6962) != MERKLE_OK) exit(1);
    return bench_now() - t0;
}

int main(int argc, char **argv)
{
    size_t mib = 256, leaf = 64;
    int reps = 5, smoke = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--smoke") == 0) {
            smoke = 1;
        } else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            mib = (size_t)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--leaf") == 0 && i + 1 < argc) {
            leaf = (size_t)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: bench_proof [--size MiB] [--leaf N] [--reps N] [--smoke]\n");
            return 2;
        }
    }
    if (smoke) {
        mib = 1;
        reps = 1;
    }
    if (mib == 0 || leaf == 0 || reps < 1 || reps > 99) return 2;
    size_t len = mib << 20;
    uint8_t *buf = malloc(len);
    if (!buf) return 1;
    for (size_t i = 0; i < len; i++) buf[i] = (uint8_t)(i % 251);
    uint64_t n = (len + leaf - 1) / leaf;
    struct {
        const char *name;
        merkle_proof_kind kind;
        uint64_t a, b;
    } jobs[] = {
        { "inclusion (middle leaf)", MERKLE_PROOF_INCLUSION, n / 2 + 3, 0 },
        { "inclusion (leaf 0)", MERKLE_PROOF_INCLUSION, 0, 0 },
        { "inclusion (last leaf)", MERKLE_PROOF_INCLUSION, n - 1, 0 },
        { "range (1000 leaves)", MERKLE_PROOF_RANGE, n / 2 - 500, n / 2 + 500 },
        { "consistency (2n/3 -> n)", MERKLE_PROOF_CONSISTENCY, 2 * n / 3, 0 },
    };
    enum { NJ = sizeof jobs / sizeof *jobs };
    double troot[100], tj[NJ][100];
    uint8_t root[32];
    static merkle_proof pr;
    /* Interleave the runs so that machine noise hits all of them alike. */
    for (int r = 0; r < reps; r++) {
        troot[r] = run_root(buf, len, leaf, root);
        for (int j = 0; j < NJ; j++) {
            tj[j][r] = run_prover(buf, len, leaf, jobs[j].kind, jobs[j].a, jobs[j].b, &pr);
            if (memcmp(pr.root, root, 32) != 0) {
                fprintf(stderr, "bench_proof: root mismatch for %s\n", jobs[j].name);
                return 1;
            }
        }
    }
    double mroot = bench_median(troot, reps);
    printf("bench_proof: %zu MiB in memory, %zu-byte leaves (%llu leaves), SHA-256 backend %s, "
           "median of %d\n",
           mib, leaf, (unsigned long long)n, merkle_sha256_backend(), reps);
    printf("%-26s %10s %10s %14s\n", "", "ms", "MB/s", "vs root (1t)");
    printf("%-26s %10.1f %10.0f %14s\n", "root (merkle_tree)", mroot * 1e3,
           (double)len / mroot / 1e6, "1.00x");
    for (int j = 0; j < NJ; j++) {
        double m = bench_median(tj[j], reps);
        printf("%-26s %10.1f %10.0f %13.3fx\n", jobs[j].name, m * 1e3, (double)len / m / 1e6,
               m / mroot);
    }
    /* Verification cost at this size. */
    (void)run_prover(buf, len, leaf, MERKLE_PROOF_INCLUSION, n / 2 + 3, 0, &pr);
    merkle_proof cpr;
    (void)run_prover(buf, len, leaf, MERKLE_PROOF_CONSISTENCY, 2 * n / 3, 0, &cpr);
    int iters = smoke ? 2000 : 200000;
    double t0 = bench_now();
    for (int i = 0; i < iters; i++)
        if (merkle_proof_inclusion_verify(MERKLE_HASH_SHA256, pr.root, pr.tree_size, pr.index,
                                          pr.leaf_hash, (const uint8_t(*)[32])pr.path, pr.path_len,
                                          NULL) != MERKLE_OK)
            return 1;
    double tinc = (bench_now() - t0) / iters;
    t0 = bench_now();
    for (int i = 0; i < iters; i++)
        if (merkle_proof_consistency_verify(MERKLE_HASH_SHA256, cpr.old_root, cpr.root, cpr.index,
                                            cpr.tree_size, (const uint8_t(*)[32])cpr.path,
                                            cpr.path_len, NULL) != MERKLE_OK)
            return 1;
    double tcons = (bench_now() - t0) / iters;
    printf("verify inclusion   (%zu hashes): %8.2f us\n", pr.path_len, tinc * 1e6);
    printf("verify consistency (%zu hashes): %8.2f us\n", cpr.path_len, tcons * 1e6);
    free(buf);
    return 0;
}
