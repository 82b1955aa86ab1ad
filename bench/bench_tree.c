/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** bench_tree: Merkle root throughput against named peers, measured in the same run.
**
**   bench_tree [--size MiB] [--reps N] [--merkle PATH] [--smoke]
**
** In memory (a buffer of --size MiB, default 256):
**   ours        merkle_tree_root_bytes (1 thread) / merkle_tree_root_bytes_parallel (2 threads)
**   naive-evp   the usual C code: every leaf hash and every node hash is one OpenSSL
**               EVP_Digest call, all leaf hashes held in memory, levels paired with promotion
**   flat-sha256 one OpenSSL SHA-256 over the same bytes (EVP streaming)
**   sia         ours (BLAKE2b-256, 64-byte segments) vs naive libsodium call per leaf and node
** From a file in the page cache (written to $TMPDIR, removed after):
**   merkle root -j1/-j2 --leaf-size 4096 vs `openssl dgst -sha256` vs `sha256sum`
** Figures are medians of --reps runs; ratios compare medians of the same run.
*/
#include <openssl/evp.h>
#include <sodium.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "merkle/tree.h"

extern char **environ;

/* ------------------------------------------------------------------ peers */

/* One digest call per message, the way naive code hashes a tree. */
typedef void (*digest_fn)(uint8_t out[32], const uint8_t *msg, size_t len);

static void evp_sha256(uint8_t out[32], const uint8_t *msg, size_t len)
{
    EVP_Digest(msg, len, out, NULL, EVP_sha256(), NULL);
}

static void sodium_blake2b_256(uint8_t out[32], const uint8_t *msg, size_t len)
{
    crypto_generichash(out, 32, msg, len, NULL, 0);
}

/* The usual C code: every leaf and node hash is one digest call, all leaf hashes are held
** in memory, levels are paired with the odd node promoted. */
static void naive_root(digest_fn digest, uint8_t out[32], const uint8_t *data, size_t len,
                       size_t ls)
{
    size_t n = (len + ls - 1) / ls;
    if (n == 0) {
        digest(out, (const uint8_t *)"", 0);
        return;
    }
    uint8_t *level = malloc(n * 32);
    uint8_t *msg = malloc(ls + 1);
    for (size_t i = 0; i < n; i++) {
        size_t l = i + 1 < n ? ls : len - i * ls;
        msg[0] = 0;
        memcpy(msg + 1, data + i * ls, l);
        digest(level + 32 * i, msg, l + 1);
    }
    uint8_t node[65];
    node[0] = 1;
    while (n > 1) {
        size_t m = 0;
        for (size_t i = 0; i + 1 < n; i += 2) {
            memcpy(node + 1, level + 32 * i, 64);
            digest(level + 32 * m++, node, 65);
        }
        if (n & 1) memmove(level + 32 * m++, level + 32 * (n - 1), 32);
        n = m;
    }
    memcpy(out, level, 32);
    free(level);
    free(msg);
}

static void flat_sha256(uint8_t out[32], const uint8_t *data, size_t len)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    EVP_DigestInit_ex(c, EVP_sha256(), NULL);
    EVP_DigestUpdate(c, data, len);
    EVP_DigestFinal_ex(c, out, NULL);
    EVP_MD_CTX_free(c);
}

/* ------------------------------------------------------------------ harness */

enum { K_OURS1, K_OURS2, K_NAIVE, K_FLAT, K_SIA_OURS, K_SIA_NAIVE };

static double run_case(int kind, const uint8_t *data, size_t len, size_t ls, uint8_t out[32])
{
    double t0 = bench_now();
    switch (kind) {
    case K_OURS1:
        merkle_tree_root_bytes(out, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, ls, data, len);
        break;
    case K_OURS2:
        merkle_tree_root_bytes_parallel(out, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, ls, data,
                                        len, 2);
        break;
    case K_NAIVE: naive_root(evp_sha256, out, data, len, ls); break;
    case K_FLAT: flat_sha256(out, data, len); break;
    case K_SIA_OURS:
        merkle_tree_root_bytes(out, MERKLE_PROFILE_RFC6962, MERKLE_HASH_BLAKE2B_256, ls, data, len);
        break;
    case K_SIA_NAIVE: naive_root(sodium_blake2b_256, out, data, len, ls); break;
    }
    return bench_now() - t0;
}

static double run_cmd(char *const argv[])
{
    pid_t pid;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 1 /* O_WRONLY */, 0);
    double t0 = bench_now();
    if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        return -1;
    }
    int st;
    waitpid(pid, &st, 0);
    double t = bench_now() - t0;
    posix_spawn_file_actions_destroy(&fa);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? t : -1;
}

int main(int argc, char **argv)
{
    size_t mib = 256;
    int reps = 5;
    const char *merkle_bin = NULL;
    int smoke = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--smoke")) {
            smoke = 1;
            mib = 4;
            reps = 1;
        } else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            mib = (size_t)atol(argv[++i]);
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--merkle") && i + 1 < argc) {
            merkle_bin = argv[++i];
        } else {
            fprintf(stderr,
                    "usage: bench_tree [--size MiB] [--reps N] [--merkle PATH] [--smoke]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > 99 || mib == 0) return 2;
    if (sodium_init() < 0) return 1;
    size_t len = mib << 20;
    uint8_t *data = malloc(len);
    for (size_t i = 0; i < len; i++) data[i] = (uint8_t)(i * 2654435761u >> 13);
    printf("bench_tree: %zu MiB in memory, median of %d, SHA-256 backend %s\n", mib, reps,
           merkle_sha256_backend());

    size_t leaf_sizes[] = { 64, 1024, 4096 };
    printf("\n%-34s %10s %10s\n", "case (rfc6962, sha256)", "MB/s", "vs naive");
    for (int li = 0; li < 3; li++) {
        size_t ls = leaf_sizes[li];
        int kinds[] = { K_NAIVE, K_OURS1, K_OURS2, K_FLAT };
        const char *names[] = { "naive-evp (1 EVP_Digest/node)", "ours -j1", "ours -j2",
                                "flat OpenSSL SHA-256" };
        double t[4][99];
        uint8_t roots[4][32];
        for (int r = 0; r < reps; r++)
            for (int k = 0; k < 4; k++) t[k][r] = run_case(kinds[k], data, len, ls, roots[k]);
        if (memcmp(roots[0], roots[1], 32) || memcmp(roots[0], roots[2], 32)) {
            fprintf(stderr, "ROOT MISMATCH at leaf size %zu\n", ls);
            return 1;
        }
        double med[4];
        for (int k = 0; k < 4; k++) med[k] = bench_median(t[k], reps);
        printf("-- leaf size %zu\n", ls);
        for (int k = 0; k < 4; k++)
            printf("  %-32s %10.0f %9.2fx\n", names[k], (double)len / med[k] / 1e6,
                   med[0] / med[k]);
        printf("  %-32s %21.2fx\n", "ours -j1 vs flat SHA-256", med[3] / med[1]);
        printf("  %-32s %21.2fx\n", "ours -j2 vs ours -j1", med[1] / med[2]);
    }

    {
        double t[2][99];
        uint8_t roots[2][32];
        size_t slen = smoke ? len : len / 4; /* the naive BLAKE2b root is slow */
        for (int r = 0; r < reps; r++) {
            t[0][r] = run_case(K_SIA_NAIVE, data, slen, 64, roots[0]);
            t[1][r] = run_case(K_SIA_OURS, data, slen, 64, roots[1]);
        }
        if (memcmp(roots[0], roots[1], 32)) {
            fprintf(stderr, "SIA ROOT MISMATCH\n");
            return 1;
        }
        double a = bench_median(t[0], reps), b = bench_median(t[1], reps);
        printf("\n%-34s %10s %10s\n", "case (sia: blake2b-256, 64 B)", "MB/s", "vs naive");
        printf("  %-32s %10.0f %9.2fx\n", "naive libsodium per node", (double)slen / a / 1e6, 1.0);
        printf("  %-32s %10.0f %9.2fx\n", "ours -j1", (double)slen / b / 1e6, a / b);
    }

    if (merkle_bin) {
        char path[] = "/tmp/bench_tree_XXXXXX";
        int fd = mkstemp(path);
        if (fd < 0 || write(fd, data, len) != (ssize_t)len) {
            perror("temp file");
            return 1;
        }
        close(fd);
        char *cmds[5][8] = {
            { (char *)merkle_bin, "root", "-j", "1", "--leaf-size", "4096", path, NULL },
            { (char *)merkle_bin, "root", "-j", "2", "--leaf-size", "4096", path, NULL },
            { (char *)merkle_bin, "root", "-j", "1", "--leaf-size", "64", path, NULL },
            { "openssl", "dgst", "-sha256", path, NULL },
            { "sha256sum", path, NULL },
        };
        const char *names[] = { "merkle root -j1 --leaf-size 4096",
                                "merkle root -j2 --leaf-size 4096",
                                "merkle root -j1 --leaf-size 64", "openssl dgst -sha256",
                                "sha256sum" };
        double t[5][99];
        run_cmd(cmds[4]); /* warm the page cache */
        for (int r = 0; r < reps; r++)
            for (int k = 0; k < 5; k++) t[k][r] = run_cmd(cmds[k]);
        double med[5];
        for (int k = 0; k < 5; k++) med[k] = bench_median(t[k], reps);
        printf("\n%-34s %10s %14s\n", "file in page cache (whole process)", "MB/s",
               "vs openssl dgst");
        for (int k = 0; k < 5; k++)
            printf("  %-32s %10.0f %13.2fx\n", names[k],
                   med[k] > 0 ? (double)len / med[k] / 1e6 : 0.0,
                   med[k] > 0 ? med[3] / med[k] : 0.0);
        unlink(path);
    }
    free(data);
    return 0;
}
