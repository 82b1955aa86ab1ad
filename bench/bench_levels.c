/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** bench_levels [N [SIZE [REPS]]]: every inclusion proof of a list of N items of SIZE bytes
** (default 10,000 x 64 B, the shape of CometBFT's ProofsFromByteSlices benchmark), and the
** batched list roots (issue 30, items 1 and 3). One thread; CPU time, median of REPS.
**
**   levels    merkle_shape_tree_alloc_leaves + merkle_shape_tree_branches: the tree with its
**             levels kept, then every branch in one pass
**   per-leaf  merkle_proof_inclusion_path once per item over the leaf hashes (the only route
**             before: the streaming prover re-reads all n leaf hashes per proof; timed on 50
**             items and scaled to N)
**   root_list merkle_tree_root_list of the N items, against merkle_tree_root_bytes of the
**             same bytes as one buffer, and merkle_compact_range_from_leaves
** Prints one line per figure; compare with CometBFT's crypto/merkle (docs/PERFORMANCE.md).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "merkle/proof.h"
#include "merkle/shape.h"

typedef uint8_t node_t[32];

static double median_of(double *v, int n)
{
    return bench_median(v, n);
}

int main(int argc, char **argv)
{
    /* --smoke (scripts/test.sh step 8): a tiny size, one repetition */
    int smoke = argc > 1 && strcmp(argv[1], "--smoke") == 0;
    size_t n = smoke ? 100 : argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 10000;
    size_t size = !smoke && argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : 64;
    int reps = smoke ? 1 : argc > 3 ? atoi(argv[3]) : 21;
    if (n == 0 || reps < 1 || reps > 1000) {
        fprintf(stderr, "usage: bench_levels [--smoke | N [SIZE [REPS]]]\n");
        return 2;
    }
    uint8_t *buf = malloc(n * size + 1);
    const uint8_t **ptr = malloc(n * sizeof *ptr);
    size_t *lens = malloc(n * sizeof *lens);
    node_t *lh = malloc(n * 32);
    double *t = malloc((size_t)reps * sizeof *t);
    if (!buf || !ptr || !lens || !lh || !t) return 1;
    for (size_t i = 0; i < n * size; i++) buf[i] = (uint8_t)(i * 131 + 7);
    /* Separate allocations, as a list of byte strings usually is (not one strided buffer). */
    uint8_t **own = malloc(n * sizeof *own);
    for (size_t i = 0; i < n; i++) {
        own[i] = malloc(size ? size : 1);
        memcpy(own[i], buf + i * size, size);
        ptr[i] = own[i];
        lens[i] = size;
    }
    merkle_shape s;
    merkle_shape_init(&s, MERKLE_SHAPE_VERSION, MERKLE_PROFILE_RFC6962);
    size_t total = 0;
    node_t *paths = NULL;
    uint64_t *off = malloc((n + 1) * sizeof *off);
    uint8_t root[32], root2[32];
    for (int r = 0; r < reps; r++) {
        double t0 = bench_cpu_now();
        merkle_shape_tree *tr;
        if (merkle_shape_tree_alloc_leaves(&tr, &s, ptr, lens, n, NULL) != MERKLE_OK) return 1;
        if (!paths) {
            (void)merkle_shape_tree_branches(NULL, 0, &total, off, tr);
            paths = malloc((total + 1) * 32);
        }
        if (merkle_shape_tree_branches(paths, total, &total, off, tr) != MERKLE_OK) return 1;
        merkle_shape_tree_root(root, tr);
        merkle_shape_tree_free(tr);
        t[r] = bench_cpu_now() - t0;
    }
    double lev = median_of(t, reps);
    printf("levels    all %zu proofs of %zu x %zu B: %.3f ms (%zu hashes)\n", n, n, size, lev * 1e3,
           total);
    /* The root and a digest of every branch, bottom-up, leaf by leaf: the same two lines as
    ** the CometBFT peer's (ProofsFromByteSlices' aunts) when the bytes agree. */
    uint8_t dig[32];
    merkle_sha256_hash(dig, paths, total * 32);
    printf("root ");
    for (int i = 0; i < 32; i++) printf("%02x", root[i]);
    printf(" aunts-digest ");
    for (int i = 0; i < 32; i++) printf("%02x", dig[i]);
    printf("\n");

    /* The streaming prover, once per item, on a sample. */
    for (size_t i = 0; i < n; i++) merkle_tree_leaf_hash(lh[i], MERKLE_HASH_SHA256, ptr[i], size);
    size_t sample = n < 50 ? n : 50;
    node_t path[64];
    double t0 = bench_cpu_now();
    for (size_t k = 0; k < sample; k++) {
        size_t len;
        uint64_t i = (uint64_t)(k * (n / sample));
        if (merkle_proof_inclusion_path(path, 64, &len, root2, MERKLE_HASH_SHA256,
                                        (const node_t *)lh, n, i) != MERKLE_OK)
            return 1;
        if (len != off[i + 1] - off[i] || memcmp(path, paths[off[i]], len * 32) != 0) {
            fprintf(stderr, "proof %llu differs\n", (unsigned long long)i);
            return 1;
        }
    }
    double per = (bench_cpu_now() - t0) / (double)sample * (double)n;
    printf("per-leaf  all %zu proofs by merkle_proof_inclusion_path: %.1f ms (scaled from %zu); "
           "levels are %.0fx faster\n",
           n, per * 1e3, sample, per / lev);

    /* Item 3: list roots against the buffer root. */
    double tb[1000], tl[1000], tc[1000];
    for (int r = 0; r < reps; r++) {
        double a = bench_cpu_now();
        merkle_tree_root_bytes(root2, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, size ? size : 1,
                               buf, n * size);
        double b = bench_cpu_now();
        merkle_tree_root_list(root2, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, ptr, lens, n);
        double c = bench_cpu_now();
        merkle_compact_range cr;
        merkle_compact_range_from_leaves(&cr, MERKLE_HASH_SHA256, 0, ptr, lens, n);
        double d = bench_cpu_now();
        tb[r] = b - a;
        tl[r] = c - b;
        tc[r] = d - c;
    }
    if (memcmp(root, root2, 32) != 0) {
        fprintf(stderr, "roots differ\n");
        return 1;
    }
    double mb = median_of(tb, reps), ml = median_of(tl, reps), mc = median_of(tc, reps);
    printf("root_bytes %.3f ms, root_list %.3f ms (%.2fx root_bytes), "
           "compact_range_from_leaves %.3f ms (%.2fx)\n",
           mb * 1e3, ml * 1e3, ml / mb, mc * 1e3, mc / mb);
    for (size_t i = 0; i < n; i++) free(own[i]);
    free(own);
    free(buf);
    free(ptr);
    free(lens);
    free(lh);
    free(t);
    free(paths);
    free(off);
    return 0;
}
