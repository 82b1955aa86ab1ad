/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** bench_shape: roots of the shaped profiles against their peers, in one run.
**
**   bench_shape [--ssz N] [--btc N] [--oz N] [--keccak N] [--reps R] [--peers DIR]
**               [--merkle PATH [--bt MiB]] [--smoke]
**
** ours   merkle_shape_root (one thread): ssz List[Bytes32, N] of N chunks (limit N, length
**        mixed in; default N = 2^20), bitcoin root of N txids (default 1,000,000),
**        openzeppelin: the whole heap tree of N leaf hashes (sorted) and its root
**        (merkle_shape_tree_alloc; default 1,000,000), Keccak-256 of N 64-byte messages
**        (merkle_keccak256_batch_strided; default 1,000,000).
** peers  with --peers DIR (a directory whose node_modules has @chainsafe/hashtree,
**        @chainsafe/ssz, merkle-lib and bitcoinjs-lib): bench/shape_peers.js run by node on
**        the same inputs -- hashtree's hashInto over each whole level, @chainsafe/ssz
**        ListCompositeType.hashTreeRoot, merkle-lib fastRoot and bitcoinjs-lib
**        Block.calculateMerkleRoot with Node's native SHA-256, @openzeppelin/merkle-tree
**        SimpleMerkleTree.of(leaves).root, the keccak package's native binding called once per
**        64-byte message. The roots (and the last Keccak digest) must agree.
** bittorrent-v2 with --merkle PATH: a file of --bt MiB (default 1024) of pseudo-random bytes
**        in $TMPDIR (removed after), read once to be in the page cache, then whole processes
**        timed: `merkle root --profile bittorrent-v2 -j1` and `-j2` against `openssl dgst
**        -sha256` of the same file.
** Figures are medians of --reps runs (wall clock); ratios compare medians of the same run.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "merkle/shape.h"

typedef uint8_t node_t[32];

static double time_root(const merkle_shape *s, const node_t *v, uint64_t n, int reps,
                        uint8_t out[32])
{
    double *t = malloc((size_t)reps * sizeof *t);
    for (int r = 0; r < reps; r++) {
        double a = bench_now();
        if (merkle_shape_root(out, NULL, s, v, n, NULL) != MERKLE_OK) {
            fprintf(stderr, "bench_shape: root failed\n");
            exit(1);
        }
        t[r] = bench_now() - a;
    }
    double m = bench_median(t, reps);
    free(t);
    return m * 1e3;
}

typedef struct peer {
    char name[64];
    double ms;
    char root[65];
} peer;

static double time_cmd(const char *cmd, int reps)
{
    double *t = malloc((size_t)reps * sizeof *t);
    for (int r = 0; r < reps; r++) {
        double a = bench_now();
        if (system(cmd) != 0) {
            fprintf(stderr, "bench_shape: '%s' failed\n", cmd);
            free(t);
            return -1;
        }
        t[r] = bench_now() - a;
    }
    double m = bench_median(t, reps);
    free(t);
    return m * 1e3;
}

static void bench_bt(const char *merkle, uint64_t mib, int reps)
{
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[512], cmd[1200];
    snprintf(path, sizeof path, "%s/bench_shape_bt.%d", tmp, (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return;
    uint8_t *buf = malloc(1 << 20);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (uint64_t m = 0; m < mib; m++) {
        for (size_t i = 0; i < (1 << 20); i += 8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            memcpy(buf + i, &x, 8);
        }
        fwrite(buf, 1, 1 << 20, f);
    }
    free(buf);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cat '%s' > /dev/null", path);
    if (system(cmd) != 0) return;
    printf("\n%-40s %10s %12s\n", "bittorrent-v2 pieces root, page cache", "ms", "vs openssl");
    snprintf(cmd, sizeof cmd, "openssl dgst -sha256 '%s' > /dev/null", path);
    double ossl = time_cmd(cmd, reps);
    for (int j = 1; j <= 2; j++) {
        snprintf(cmd, sizeof cmd, "'%s' root --profile bittorrent-v2 -j%d '%s' > /dev/null", merkle,
                 j, path);
        double ms = time_cmd(cmd, reps);
        char name[64];
        snprintf(name, sizeof name, "merkle root -j%d (%llu MiB)", j, (unsigned long long)mib);
        printf("%-40s %10.2f %11.2fx\n", name, ms, ossl / ms);
    }
    printf("%-40s %10.2f %11.2fx\n", "openssl dgst -sha256", ossl, 1.0);
    unlink(path);
}

static int run_peers(const char *dir, uint64_t nssz, uint64_t nbtc, int reps, uint64_t noz,
                     uint64_t nkec, peer *p, int cap)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "node '%s/shape_peers.js' '%s' %llu %llu %d %llu %llu",
             MERKLE_BENCH_DIR, dir, (unsigned long long)nssz, (unsigned long long)nbtc, reps,
             (unsigned long long)noz, (unsigned long long)nkec);
    FILE *f = popen(cmd, "r");
    if (!f) return 0;
    int n = 0;
    while (n < cap && fscanf(f, "%63s %lf %64s", p[n].name, &p[n].ms, p[n].root) == 3) n++;
    pclose(f);
    return n;
}

int main(int argc, char **argv)
{
    uint64_t nssz = 1u << 20, nbtc = 1000000, noz = 1000000, nkec = 1000000;
    int reps = 5;
    const char *peers = NULL, *merkle = NULL;
    uint64_t bt_mib = 1024;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ssz") && i + 1 < argc)
            nssz = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--btc") && i + 1 < argc)
            nbtc = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--oz") && i + 1 < argc)
            noz = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--keccak") && i + 1 < argc)
            nkec = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--peers") && i + 1 < argc)
            peers = argv[++i];
        else if (!strcmp(argv[i], "--merkle") && i + 1 < argc)
            merkle = argv[++i];
        else if (!strcmp(argv[i], "--bt") && i + 1 < argc)
            bt_mib = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--smoke")) {
            nssz = 1024;
            nbtc = 1000;
            noz = 1000;
            nkec = 1000;
            bt_mib = 1;
            reps = 1;
        } else {
            fprintf(stderr,
                    "usage: bench_shape [--ssz N] [--btc N] [--oz N] [--keccak N] [--reps R] "
                    "[--peers DIR] [--merkle PATH [--bt MiB]] [--smoke]\n");
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    uint64_t nmax = nssz > nbtc ? nssz : nbtc;
    if (noz > nmax) nmax = noz;
    if (2 * nkec > nmax) nmax = 2 * nkec;
    node_t *v = malloc((size_t)(nmax ? nmax : 1) * 32);
    if (!v) return 1;
    char hex[65];
    printf("bench_shape: median of %d, SHA-256 backend %s\n\n", reps, merkle_sha256_backend());
    printf("%-40s %10s %12s\n", "case", "ms", "ours faster");

    uint8_t ssz_root[32], btc_root[32], oz_root[32], kec_last[32];
    double ssz_ms = 0, btc_ms = 0, oz_ms = 0, kec_ms = 0;
    if (nssz) {
        for (uint64_t i = 0; i < nssz; i++) {
            uint8_t le[4] = { (uint8_t)i, (uint8_t)(i >> 8), (uint8_t)(i >> 16),
                              (uint8_t)(i >> 24) };
            merkle_sha256_hash(v[i], le, 4);
        }
        merkle_shape s;
        merkle_shape_init(&s, MERKLE_SHAPE_VERSION, MERKLE_PROFILE_SSZ);
        s.limit = nssz;
        s.flags |= MERKLE_SHAPE_MIX_IN_LENGTH;
        ssz_ms = time_root(&s, (const node_t *)v, nssz, reps, ssz_root);
        merkle_hex_encode(hex, ssz_root, 32);
        printf("%-40s %10.2f %12s   (root %.16s...)\n", "ours ssz List[Bytes32, N]", ssz_ms, "",
               hex);
    }
    if (nbtc) {
        for (uint64_t i = 0; i < nbtc; i++) {
            uint8_t le[4] = { (uint8_t)i, (uint8_t)(i >> 8), (uint8_t)(i >> 16),
                              (uint8_t)(i >> 24) };
            merkle_sha256_hash(v[i], le, 4);
            merkle_sha256_hash(v[i], v[i], 32);
        }
        merkle_shape s;
        merkle_shape_init(&s, MERKLE_SHAPE_VERSION, MERKLE_PROFILE_BITCOIN);
        btc_ms = time_root(&s, (const node_t *)v, nbtc, reps, btc_root);
        merkle_hex_encode(hex, btc_root, 32);
        printf("%-40s %10.2f %12s   (root %.16s...)\n", "ours bitcoin txid root", btc_ms, "", hex);
    }
    if (noz) {
        for (uint64_t i = 0; i < noz; i++) {
            uint8_t be[4] = { (uint8_t)(i >> 24), (uint8_t)(i >> 16), (uint8_t)(i >> 8),
                              (uint8_t)i };
            merkle_keccak256_hash(v[i], be, 4);
        }
        merkle_shape s;
        merkle_shape_init(&s, MERKLE_SHAPE_VERSION, MERKLE_PROFILE_OPENZEPPELIN);
        double *t = malloc((size_t)reps * sizeof *t);
        for (int r = 0; r < reps; r++) {
            double a = bench_now();
            merkle_shape_tree *tr;
            if (merkle_shape_tree_alloc(&tr, NULL, &s, (const node_t *)v, noz, NULL) != MERKLE_OK)
                return 1;
            merkle_shape_tree_root(oz_root, tr);
            t[r] = bench_now() - a;
            merkle_shape_tree_free(tr);
        }
        oz_ms = bench_median(t, reps) * 1e3;
        free(t);
        merkle_hex_encode(hex, oz_root, 32);
        printf("%-40s %10.2f %12s   (root %.16s...)\n", "ours openzeppelin tree + root", oz_ms, "",
               hex);
    }
    if (nkec) {
        uint8_t *msg = (uint8_t *)v;
        for (uint64_t i = 0; i < 64 * nkec; i++) msg[i] = (uint8_t)(i * 13);
        uint8_t *outs = malloc((size_t)nkec * 32);
        double *t = malloc((size_t)reps * sizeof *t);
        for (int r = 0; r < reps; r++) {
            double a = bench_now();
            merkle_keccak256_batch_strided(outs, NULL, 0, msg, 64, 64, (size_t)nkec);
            t[r] = bench_now() - a;
        }
        kec_ms = bench_median(t, reps) * 1e3;
        memcpy(kec_last, outs + 32 * (nkec - 1), 32);
        free(t);
        free(outs);
        printf("%-40s %10.2f %12s   (%.1f ns per message)\n", "ours keccak256 64-byte batch",
               kec_ms, "", kec_ms * 1e6 / (double)nkec);
    }
    int status = 0;
    if (peers) {
        peer p[8];
        int np = run_peers(peers, nssz, nbtc, reps, noz, nkec, p, 8);
        if (np == 0)
            fprintf(stderr, "bench_shape: no peer figures (node or %s/node_modules missing?)\n",
                    peers);
        for (int i = 0; i < np; i++) {
            int is_ssz =
                strncmp(p[i].name, "hashtree", 8) == 0 || strncmp(p[i].name, "chainsafe", 9) == 0;
            int is_oz = strncmp(p[i].name, "openzeppelin", 12) == 0;
            int is_kec = strncmp(p[i].name, "keccak", 6) == 0;
            const uint8_t *mine = is_ssz   ? ssz_root
                                  : is_oz  ? oz_root
                                  : is_kec ? kec_last
                                           : btc_root;
            double ours = is_ssz ? ssz_ms : is_oz ? oz_ms : is_kec ? kec_ms : btc_ms;
            merkle_hex_encode(hex, mine, 32);
            int same = strcmp(hex, p[i].root) == 0;
            if (!same) status = 1;
            printf("%-40s %10.2f %11.2fx%s\n", p[i].name, p[i].ms, p[i].ms / ours,
                   same ? "" : "   ROOT DIFFERS");
        }
    }
    free(v);
    if (merkle && bt_mib) bench_bt(merkle, bt_mib, reps);
    return status;
}
