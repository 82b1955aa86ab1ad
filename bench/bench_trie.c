/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Trie benchmarks, each a ratio against SHA-256 itself measured in the same run:
**   1. one node with 16 children: merkle_trie_hash_node vs merkle_sha256_hash over the same
**      preimage bytes (and the number of heap allocations per node: must be 0);
**   2. N random 32-byte keys with 32-byte values, branch factor 16: build + root vs hashing
**      every node's preimage once (single thread), and the root on 2 threads;
**   3. changing 1% of the keys and re-rooting vs the full build;
**   4. proof verification (allocations: must be 0); bytes of memory per key.
** Usage: bench_trie [--smoke] [--keys N] [--reps R]   (default 1,000,000 keys, 3 reps)
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "merkle/hash.h"
#include "merkle/trie.h"
#include "trie/trie_impl.h"

#include "alloc_count.h" /* counts heap allocations (tests/common) */

/* Timing: the machine is shared, so single-threaded sections are compared by the CPU they
** use (bench_cpu_now); wall time (bench_now) is used for the 2-thread root only. */

static bench_rng rng = { 0x9E3779B97F4A7C15ull };

static volatile uint8_t sink;

static void bench_node(int smoke, int reps)
{
    merkle_trie_child kids[16];
    for (unsigned i = 0; i < 16; i++) {
        kids[i].index = i;
        bench_fill(&rng, kids[i].id, 32);
    }
    uint8_t key[3] = { 0xab, 0xcd, 0xe0 }; /* a 20-bit internal-node key */
    uint8_t pre[700];
    size_t pl = 0;
    pl += merkle__uvarint_put(pre, 16);
    for (unsigned i = 0; i < 16; i++) {
        pre[pl++] = (uint8_t)i;
        memcpy(pre + pl, kids[i].id, 32);
        pl += 32;
    }
    pre[pl++] = 0;
    pl += merkle__uvarint_put(pre + pl, 20);
    memcpy(pre + pl, key, 3);
    pl += 3;
    uint8_t a[32], b[32];
    merkle_trie_hash_node(a, key, 20, 0, NULL, 0, kids, 16);
    merkle_sha256_hash(b, pre, pl);
    if (memcmp(a, b, 32) != 0) {
        fprintf(stderr, "bench_trie: node hash mismatch\n");
        exit(1);
    }
    /* Interleave short batches of both and take medians: robust on a shared machine. */
    long iters = smoke ? 2000 : 20000;
    enum { ROUNDS = 21 };
    double tn[ROUNDS], ts[ROUNDS], ratio[ROUNDS];
    int r = smoke ? 5 : ROUNDS;
    (void)reps;
    size_t allocs = 0;
    for (int rep = 0; rep < r; rep++) {
        double t0 = bench_cpu_now();
        for (long i = 0; i < iters; i++) {
            kids[0].id[0] = (uint8_t)i;
            merkle_trie_hash_node(a, key, 20, 0, NULL, 0, kids, 16);
            sink ^= a[0];
        }
        double t1 = bench_cpu_now();
        for (long i = 0; i < iters; i++) {
            pre[2] = (uint8_t)i;
            merkle_sha256_hash(b, pre, pl);
            sink ^= b[0];
        }
        double t2 = bench_cpu_now();
        tn[rep] = (t1 - t0) / (double)iters;
        ts[rep] = (t2 - t1) / (double)iters;
        ratio[rep] = tn[rep] / ts[rep];
    }
    size_t before = g_allocs;
    merkle_trie_hash_node(a, key, 20, 0, NULL, 0, kids, 16);
    allocs = g_allocs - before;
    double mn = bench_median(tn, r), ms = bench_median(ts, r), mr = bench_median(ratio, r);
    printf("1. node with 16 children (%zu-byte preimage), SHA-256 backend %s, median of %d:\n", pl,
           merkle_sha256_backend(), r);
    printf("   %-36s %9.1f ns/node\n", "merkle_trie_hash_node", mn * 1e9);
    printf("   %-36s %9.1f ns/node\n", "merkle_sha256_hash(preimage) [peer]", ms * 1e9);
    printf("   ratio node/sha256 %.3fx (median of per-round ratios; target <= 1.15x); heap "
           "allocations per node: %zu" BENCH_ALLOCS_NOTE "\n\n",
           mr, allocs);
}

static void build(merkle_trie **out, const uint8_t *keys, const uint8_t *vals, size_t n)
{
    if (merkle_trie_alloc(out, 16) != MERKLE_OK) exit(1);
    for (size_t i = 0; i < n; i++)
        if (merkle_trie_put(*out, keys + 32 * i, 32, vals + 32 * i, 32) != MERKLE_OK) exit(1);
}

/* CPU time of putting nchg random keys (of n) with new values one by one and re-rooting. */
static double change_one_by_one(merkle_trie *t, const uint8_t *keys, const uint8_t *vals, size_t n,
                                size_t nchg)
{
    uint8_t root[32];
    double t0 = bench_cpu_now();
    for (size_t i = 0; i < nchg; i++) {
        size_t k = (size_t)(bench_rnd(&rng) % n);
        merkle_trie_put(t, keys + 32 * k, 32, vals + 32 * k, 32);
    }
    merkle_trie_root(root, t, 1, NULL);
    return bench_cpu_now() - t0;
}

int main(int argc, char **argv)
{
    int smoke = 0, reps = 3;
    size_t n = 1000000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--smoke") == 0) {
            smoke = 1;
        } else if (strcmp(argv[i], "--keys") == 0 && i + 1 < argc) {
            n = (size_t)strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: bench_trie [--smoke] [--keys N] [--reps R]\n");
            return 2;
        }
    }
    if (smoke) {
        n = 10000;
        reps = 1;
    }
    if (reps < 1) reps = 1;
    if (reps > 9) reps = 9;
    bench_node(smoke, reps);

    uint8_t *keys = malloc(32 * n), *vals = malloc(32 * n), *newv = malloc(32 * n);
    bench_fill(&rng, keys, 32 * n);
    bench_fill(&rng, vals, 32 * n);
    bench_fill(&rng, newv, 32 * n);
    size_t nchg = n / 100 ? n / 100 : 1;
    double tb[9], tr[9], tbase[9], tbase_v[9], tchg[9], tmt[9], trw[9], tbatch[9], tchg_b[9],
        tchg_bl[9];
    const uint8_t **kptr = malloc(n * sizeof *kptr), **vptr = malloc(n * sizeof *vptr);
    size_t *klen = malloc(n * sizeof *klen);
    const uint8_t **ckp = malloc(nchg * sizeof *ckp), **cvp = malloc(nchg * sizeof *cvp);
    for (size_t i = 0; i < n; i++) {
        kptr[i] = keys + 32 * i;
        vptr[i] = vals + 32 * i;
        klen[i] = 32;
    }
    size_t nodes = 0, mem = 0, mem_b = 0, prelen = 0;
    for (int rep = 0; rep < reps; rep++) {
        merkle_trie *t;
        uint8_t root[32], root2[32];
        double t0 = bench_cpu_now();
        build(&t, keys, vals, n);
        double t1 = bench_cpu_now();
        merkle_trie_root(root, t, 1, NULL);
        double t2 = bench_cpu_now();
        tb[rep] = t2 - t0;
        tr[rep] = t2 - t1;
        mem = merkle_trie_memory(t);
        /* Peer: SHA-256 of every node's preimage once (and, separately, of every value). */
        uint8_t *buf;
        size_t *offs, len, cnt;
        if (merkle__trie_preimages(t, &buf, &len, &offs, &cnt) != MERKLE_OK) return 1;
        nodes = cnt;
        prelen = len;
        uint8_t d[32];
        double t3 = bench_cpu_now();
        for (size_t i = 0; i < cnt; i++) {
            merkle_sha256_hash(d, buf + offs[i], offs[i + 1] - offs[i]);
            sink ^= d[0];
        }
        double t4 = bench_cpu_now();
        for (size_t i = 0; i < n; i++) {
            merkle_sha256_hash(d, vals + 32 * i, 32);
            sink ^= d[0];
        }
        double t5 = bench_cpu_now();
        tbase[rep] = t4 - t3;
        tbase_v[rep] = (t4 - t3) + (t5 - t4);
        free(buf);
        free(offs);
        /* The same pairs through merkle_trie_put_batch (sorted bulk build). */
        {
            merkle_trie *tb2;
            if (merkle_trie_alloc(&tb2, 16) != MERKLE_OK) return 1;
            double u0 = bench_cpu_now();
            if (merkle_trie_put_batch(tb2, kptr, klen, vptr, klen, n, NULL) != MERKLE_OK) return 1;
            merkle_trie_root(root2, tb2, 1, NULL);
            double u1 = bench_cpu_now();
            tbatch[rep] = u1 - u0;
            mem_b = merkle_trie_memory(tb2);
            if (memcmp(root, root2, 32) != 0) {
                fprintf(stderr, "bench_trie: batch root differs\n");
                return 1;
            }
            /* 1% of the keys get new values as one batch (a commit), then re-root. */
            for (size_t i = 0; i < nchg; i++) {
                size_t k = (size_t)(bench_rnd(&rng) % n);
                ckp[i] = keys + 32 * k;
                cvp[i] = newv + 32 * k;
            }
            double u2 = bench_cpu_now();
            if (merkle_trie_put_batch(tb2, ckp, klen, cvp, klen, nchg, NULL) != MERKLE_OK) return 1;
            merkle_trie_root(root2, tb2, 1, NULL);
            double u3 = bench_cpu_now();
            tchg_b[rep] = u3 - u2;
            /* The same change put by put, on the same trie (other new values). */
            tchg_bl[rep] = change_one_by_one(tb2, keys, vals, n, nchg);
            merkle_trie_free(tb2);
        }
        /* 1% of the keys get new values, then re-root. */
        tchg[rep] = change_one_by_one(t, keys, newv, n, nchg);
        merkle_trie_free(t);
        /* Root on 2 threads (fresh build, root timed alone). */
        build(&t, keys, vals, n);
        double t8 = bench_now(), c8 = bench_cpu_now();
        merkle_trie_root(root2, t, 1, NULL);
        double t9 = bench_now(), c9 = bench_cpu_now();
        trw[rep] = t9 - t8;
        (void)c8, (void)c9;
        merkle_trie_free(t);
        build(&t, keys, vals, n);
        t8 = bench_now();
        merkle_trie_root(root2, t, 2, NULL);
        t9 = bench_now();
        tmt[rep] = t9 - t8;
        if (memcmp(root, root2, 32) != 0) {
            fprintf(stderr, "bench_trie: threaded root differs\n");
            return 1;
        }
        merkle_trie_free(t);
    }
    double b = bench_median(tb, reps), r = bench_median(tr, reps), base = bench_median(tbase, reps),
           basev = bench_median(tbase_v, reps), chg = bench_median(tchg, reps),
           mt = bench_median(tmt, reps), rw = bench_median(trw, reps),
           bt = bench_median(tbatch, reps), chb = bench_median(tchg_b, reps),
           chbl = bench_median(tchg_bl, reps);
    printf("2. %zu random 32-byte keys (CPU time), 32-byte values, branch factor 16 (%zu nodes, "
           "%.1f MB of "
           "preimages), median of %d:\n",
           n, nodes, (double)prelen / 1e6, reps);
    printf("   %-44s %8.3f s\n", "build (put every key) + root, 1 thread", b);
    printf("   %-44s %8.3f s\n", "  of which root (hash every node)", r);
    printf("   %-44s %8.3f s\n", "put_batch (sorted bulk build) + root", bt);
    printf("   %-44s %8.3f s\n", "root on 1 thread (wall clock)", rw);
    printf("   %-44s %8.3f s\n", "root on 2 threads (wall clock)", mt);
    printf("   %-44s %8.3f s\n", "SHA-256 of every node preimage once [peer]", base);
    printf("   %-44s %8.3f s\n", "  + SHA-256 of every value", basev);
    printf("   ratio build+root / preimage hashing: %.2fx (target <= 2.5x); / preimages+values: "
           "%.2fx\n",
           b / base, b / basev);
    printf(
        "   ratio put_batch+root / preimage hashing: %.2fx (target <= 2.5x); / preimages+values: "
        "%.2fx\n",
        bt / base, bt / basev);
    printf("   ratio root alone / preimage hashing: %.2fx; 2-thread root speed-up %.2fx\n",
           r / base, rw / mt);
    printf("   memory: %.1f bytes per key (%.1f MB) built by put_batch, %.1f bytes per key built "
           "put by put\n\n",
           (double)mem_b / (double)n, (double)mem_b / 1e6, (double)mem / (double)n);
    printf("3. change %zu keys (1%%) and re-root (target <= 5%% of the full build):\n", nchg);
    printf(
        "   one put_batch + root, put_batch-built trie: %.4f s = %.2f%% of the put_batch build\n",
        chb, 100.0 * chb / bt);
    printf(
        "   put by put + root, same trie:               %.4f s = %.2f%% of the put_batch build\n",
        chbl, 100.0 * chbl / bt);
    printf(
        "   put by put + root, put-loop-built trie:     %.4f s = %.2f%% of the put-loop build\n\n",
        chg, 100.0 * chg / b);

    /* 4. verify allocates nothing. */
    merkle_trie *t;
    build(&t, keys, vals, n < 1000 ? n : 1000);
    uint8_t root[32], proof[8192];
    size_t plen;
    merkle_trie_root(root, t, 1, NULL);
    merkle_trie_prove(proof, sizeof proof, &plen, t, keys, 32, NULL);
    size_t before = g_allocs;
    merkle_trie_proof_info info;
    merkle_status st = merkle_trie_proof_verify(&info, root, proof, plen, NULL);
    printf("4. proof of a present key: %zu bytes, %zu nodes, verify %s with %zu heap "
           "allocations" BENCH_ALLOCS_NOTE "\n",
           plen, info.nodes, st == MERKLE_OK ? "OK" : "FAILED", g_allocs - before);
    merkle_trie_free(t);
    free(keys);
    free(vals);
    free(newv);
    free(kptr);
    free(vptr);
    free(klen);
    free(ckp);
    free(cvp);
    return st == MERKLE_OK ? 0 : 1;
}
