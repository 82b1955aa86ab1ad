/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkledb proof benchmarks (issue 24): over a database of N random 32-byte keys with 32-byte
** values (branch factor 16, one commit), then a second commit changing C keys:
**   1. GetRangeProof(start, Nothing, L) at the current root + its sync.RangeProof encoding;
**   2. decoding those bytes + RangeProof.Verify;
**   3. GetChangeProof(root1, root2, start, Nothing, L) + its sync.ChangeProof encoding;
**   4. decoding those bytes + VerifyChangeProof on a trie holding the root1 state;
** each the median over R rounds of P proofs from random start keys (CPU time per proof), and
** the heap allocations of one verification (the decoded proof excluded) for L and for L/10
** keys. The avalanchego side is measured outside the repository (docs/PERFORMANCE.md).
** Usage: bench_mdb [--smoke] [--keys N] [--length L] [--changes C] [--proofs P] [--reps R]
**        (defaults 1,000,000 keys, L 1000, C 100,000, P 50, R 5)
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "merkle/mdb.h"
#include "merkle/trie.h"

#include "alloc_count.h" /* counts heap allocations (tests/common) */

static bench_rng rng = { 0x2545F4914F6CDD1Dull };

static void die(const char *what, merkle_status st, const merkle_mdb_result *res)
{
    fprintf(stderr, "bench_mdb: %s: %s%s%s\n", what, merkle_strerror(st), res ? ": " : "",
            res ? res->message : "");
    exit(1);
}

/* Encode p as msg into a fresh buffer. */
static uint8_t *encode(const merkle_mdb_proof *p, merkle_mdb_msg msg, size_t *len)
{
    size_t need = 0;
    (void)merkle_mdb_proof_encode(NULL, 0, &need, p, msg);
    uint8_t *b = malloc(need ? need : 1);
    if (b == NULL) die("encode", MERKLE_ERR_NOMEM, NULL);
    merkle_status st = merkle_mdb_proof_encode(b, need, len, p, msg);
    if (st != MERKLE_OK) die("encode", st, NULL);
    return b;
}

typedef struct setup {
    merkle_mdb_db *db;
    merkle_trie *old; /* the root1 state, for change-proof verification */
    uint8_t root1[32], root2[32];
    const uint8_t *keys;
    size_t n;
} setup;

enum { RANGE, CHANGE };

/* A random start key of the database. */
static const uint8_t *pick(const setup *s)
{
    return s->keys + 32 * (size_t)(bench_rnd(&rng) % s->n);
}

/* Generate a proof of up to len keys from start: the encoded bytes (their length in *plen,
** the key count in *kvs). */
static uint8_t *make(const setup *s, int which, const uint8_t *start, size_t len, size_t *plen,
                     size_t *kvs)
{
    merkle_mdb_maybe st_k = { start, 32, 1 }, none = { NULL, 0, 0 };
    merkle_mdb_proof *p = NULL;
    merkle_mdb_result res;
    merkle_status st = which == RANGE
                           ? merkle_mdb_prove_range(&p, &res, s->db, st_k, none, (int64_t)len, NULL)
                           : merkle_mdb_prove_change(&p, &res, s->db, s->root1, s->root2, st_k,
                                                     none, (int64_t)len);
    if (st != MERKLE_OK) die(which == RANGE ? "prove_range" : "prove_change", st, &res);
    uint8_t *b = encode(p, which == RANGE ? MERKLE_MDB_RANGE_PROOF : MERKLE_MDB_CHANGE_PROOF, plen);
    *kvs = p->nkvs;
    merkle_mdb_proof_free(p);
    return b;
}

/* Decode + verify with the request's bounds; *allocs (may be NULL) receives the heap
** allocations of the verification alone. */
static void check(const setup *s, int which, const uint8_t *start, const uint8_t *b, size_t blen,
                  size_t len, size_t *allocs)
{
    merkle_mdb_proof *p = NULL;
    merkle_mdb_result res;
    merkle_status st = merkle_mdb_proof_decode(
        &p, &res, which == RANGE ? MERKLE_MDB_RANGE_PROOF : MERKLE_MDB_CHANGE_PROOF, b, blen);
    if (st != MERKLE_OK) die("decode", st, &res);
    merkle_mdb_maybe st_k = { start, 32, 1 }, none = { NULL, 0, 0 };
    size_t before = g_allocs;
    st = which == RANGE
             ? merkle_mdb_verify_range(&res, p, st_k, none, s->root2, 16, (int64_t)len)
             : merkle_mdb_verify_change(&res, p, s->old, st_k, none, s->root2, (int64_t)len);
    if (allocs) *allocs = g_allocs - before;
    if (st != MERKLE_OK) die(which == RANGE ? "verify_range" : "verify_change", st, &res);
    merkle_mdb_proof_free(p);
}

int main(int argc, char **argv)
{
    int smoke = 0, reps = 5;
    size_t n = 1000000, len = 1000, nchg = 100000, nproofs = 50;
    for (int i = 1; i < argc; i++) {
        size_t *arg = NULL;
        if (strcmp(argv[i], "--smoke") == 0) {
            smoke = 1;
            continue;
        }
        if (i + 1 < argc && strcmp(argv[i], "--keys") == 0) arg = &n;
        if (i + 1 < argc && strcmp(argv[i], "--length") == 0) arg = &len;
        if (i + 1 < argc && strcmp(argv[i], "--changes") == 0) arg = &nchg;
        if (i + 1 < argc && strcmp(argv[i], "--proofs") == 0) arg = &nproofs;
        if (i + 1 < argc && strcmp(argv[i], "--reps") == 0) {
            reps = atoi(argv[++i]);
            continue;
        }
        if (arg == NULL) {
            fprintf(stderr, "usage: bench_mdb [--smoke] [--keys N] [--length L] [--changes C] "
                            "[--proofs P] [--reps R]\n");
            return 2;
        }
        *arg = (size_t)strtoull(argv[++i], NULL, 10);
    }
    if (smoke) {
        n = 5000;
        len = 100;
        nchg = 500;
        nproofs = 2;
        reps = 1;
    }
    if (reps < 1) reps = 1;
    if (reps > 9) reps = 9;
    if (n < 2 || len < 10 || nproofs < 1) {
        fprintf(stderr, "bench_mdb: need --keys >= 2, --length >= 10, --proofs >= 1\n");
        return 2;
    }
    if (nchg > n) nchg = n;

    /* The database: N keys in one commit, then C of them get new values in a second. */
    uint8_t *keys = malloc(32 * n), *vals = malloc(32 * n), *newv = malloc(32 * nchg);
    merkle_mdb_op *ops = malloc(n * sizeof *ops);
    const uint8_t **kp = malloc(n * sizeof *kp), **vp = malloc(n * sizeof *vp);
    size_t *kl = malloc(n * sizeof *kl);
    if (!keys || !vals || !newv || !ops || !kp || !vp || !kl) die("setup", MERKLE_ERR_NOMEM, NULL);
    bench_fill(&rng, keys, 32 * n);
    bench_fill(&rng, vals, 32 * n);
    bench_fill(&rng, newv, 32 * nchg);
    setup s;
    memset(&s, 0, sizeof s);
    s.keys = keys;
    s.n = n;
    merkle_status st = merkle_mdb_db_alloc(&s.db, 16, 0);
    if (st != MERKLE_OK) die("db_alloc", st, NULL);
    for (size_t i = 0; i < n; i++) {
        ops[i] = (merkle_mdb_op){ keys + 32 * i, 32, vals + 32 * i, 32, 0 };
        kp[i] = keys + 32 * i;
        vp[i] = vals + 32 * i;
        kl[i] = 32;
    }
    double t0 = bench_cpu_now();
    if ((st = merkle_mdb_db_commit(s.db, ops, n, NULL, NULL)) != MERKLE_OK) die("commit", st, NULL);
    double t1 = bench_cpu_now();
    if ((st = merkle_trie_root(s.root1, merkle_mdb_db_trie(s.db), 1, NULL)) != MERKLE_OK)
        die("root", st, NULL);
    for (size_t i = 0; i < nchg; i++) {
        size_t k = (size_t)(bench_rnd(&rng) % n);
        ops[i] = (merkle_mdb_op){ keys + 32 * k, 32, newv + 32 * i, 32, 0 };
    }
    if ((st = merkle_mdb_db_commit(s.db, ops, nchg, NULL, NULL)) != MERKLE_OK)
        die("commit", st, NULL);
    if ((st = merkle_trie_root(s.root2, merkle_mdb_db_trie(s.db), 1, NULL)) != MERKLE_OK)
        die("root", st, NULL);
    if ((st = merkle_trie_alloc(&s.old, 16)) != MERKLE_OK ||
        (st = merkle_trie_put_batch(s.old, kp, kl, vp, kl, n, NULL)) != MERKLE_OK)
        die("verifier trie", st, NULL);
    uint8_t check_root[32];
    if ((st = merkle_trie_root(check_root, s.old, 1, NULL)) != MERKLE_OK) die("root", st, NULL);
    if (memcmp(check_root, s.root1, 32) != 0) {
        fprintf(stderr, "bench_mdb: the verifier trie's root differs\n");
        return 1;
    }
    printf("merkledb proofs over %zu random 32-byte keys, 32-byte values, branch factor 16\n"
           "(first commit %.2f s; a second commit changed %zu keys), %zu proofs of up to %zu "
           "keys per round from random start keys, CPU time per proof, median of %d rounds:\n",
           n, t1 - t0, nchg, nproofs, len, reps);

    double tm[2][9], tv[2][9];
    size_t bytes[2] = { 0, 0 }, kvs[2] = { 0, 0 };
    uint8_t **bufs = malloc(nproofs * sizeof *bufs);
    const uint8_t **starts = malloc(nproofs * sizeof *starts);
    size_t *blen = malloc(nproofs * sizeof *blen);
    if (!bufs || !starts || !blen) die("setup", MERKLE_ERR_NOMEM, NULL);
    for (int which = RANGE; which <= CHANGE; which++) {
        for (int rep = 0; rep < reps; rep++) {
            size_t kv_sum = 0, byte_sum = 0;
            for (size_t i = 0; i < nproofs; i++) starts[i] = pick(&s);
            double u0 = bench_cpu_now();
            for (size_t i = 0; i < nproofs; i++) {
                size_t k;
                bufs[i] = make(&s, which, starts[i], len, &blen[i], &k);
                kv_sum += k;
                byte_sum += blen[i];
            }
            double u1 = bench_cpu_now();
            for (size_t i = 0; i < nproofs; i++)
                check(&s, which, starts[i], bufs[i], blen[i], len, NULL);
            double u2 = bench_cpu_now();
            for (size_t i = 0; i < nproofs; i++) free(bufs[i]);
            tm[which][rep] = (u1 - u0) / (double)nproofs;
            tv[which][rep] = (u2 - u1) / (double)nproofs;
            bytes[which] = byte_sum / nproofs;
            kvs[which] = kv_sum / nproofs;
        }
    }
    const char *name[2] = { "range", "change" };
    for (int which = RANGE; which <= CHANGE; which++) {
        printf("   %-6s proof: %5zu keys, %7zu bytes: generate + encode %8.3f ms, decode + "
               "verify %8.3f ms\n",
               name[which], kvs[which], bytes[which], 1e3 * bench_median(tm[which], reps),
               1e3 * bench_median(tv[which], reps));
    }
    /* Allocations of one verification, at L and at L/10 keys: they must not grow with it. */
    for (int which = RANGE; which <= CHANGE; which++) {
        size_t a_full, a_tenth, b1, b2, k1, k2;
        const uint8_t *s1 = pick(&s), *s2 = pick(&s);
        uint8_t *p1 = make(&s, which, s1, len, &b1, &k1);
        uint8_t *p2 = make(&s, which, s2, len / 10, &b2, &k2);
        check(&s, which, s1, p1, b1, len, &a_full);
        check(&s, which, s2, p2, b2, len / 10, &a_tenth);
        printf("   %-6s verify: %zu heap allocations for %zu keys, %zu for %zu" BENCH_ALLOCS_NOTE
               "\n",
               name[which], a_full, k1, a_tenth, k2);
        free(p1);
        free(p2);
    }
    free(bufs);
    free(starts);
    free(blen);
    merkle_trie_free(s.old);
    merkle_mdb_db_free(s.db);
    free(keys);
    free(vals);
    free(newv);
    free(ops);
    free(kp);
    free(vp);
    free(kl);
    return 0;
}
