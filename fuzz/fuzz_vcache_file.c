/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Fuzz the validation cache's file reader (a cache file is input: it may be corrupt, or
** written by someone else). The first byte picks: bit 0 a keyed cache (HMAC entries), bit 1
** put the right SHA-256 trailer on the rest (so that the body parser is reached), bit 2 put
** the magic "MRKLVC01" in front. The rest is written to a file and loaded. A load must end
** in MERKLE_OK, _FORMAT (nothing loaded), _UNSAFE (not a cache: nothing loaded) or _NOMEM;
** a cache that loaded must look names up without trouble, save, and load back with the same
** number of entries.
*/
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "merkle/hash.h"
#include "merkle/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_dir[64];

static void paths(char *in, char *out, size_t cap)
{
    if (!g_dir[0]) {
        snprintf(g_dir, sizeof g_dir, "/tmp/fuzz_vcache.XXXXXX");
        if (!mkdtemp(g_dir)) abort();
    }
    snprintf(in, cap, "%s/in", g_dir);
    snprintf(out, cap, "%s/out", g_dir);
}

static void write_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20)) return 0;
    unsigned mode = data[0];
    size_t n = size - 1 + ((mode & 4) ? 8 : 0);
    uint8_t *img = malloc(n ? n : 1);
    if (!img) abort();
    size_t off = 0;
    if (mode & 4) {
        memcpy(img, "MRKLVC01", 8);
        off = 8;
    }
    memcpy(img + off, data + 1, size - 1);
    if ((mode & 2) && n >= 32) merkle_sha256_hash(img + n - 32, img, n - 32);
    char in[96], out[96];
    paths(in, out, sizeof in);
    write_file(in, img, n);
    unlink(out);

    static const uint8_t key[32] = "fuzz key fuzz key fuzz key fuzz";
    merkle_vcache *c;
    if (merkle_vcache_alloc(&c, (mode & 1) ? key : NULL, (mode & 1) ? 32 : 0) != MERKLE_OK) abort();
    size_t loaded = 0, rejected = 0;
    merkle_status s = merkle_vcache_load(&loaded, &rejected, c, in, NULL);
    if (s != MERKLE_OK && s != MERKLE_ERR_FORMAT && s != MERKLE_ERR_UNSAFE && s != MERKLE_ERR_NOMEM)
        abort();
    if (s != MERKLE_OK && merkle_vcache_count(c) != 0) abort(); /* a bad file loads nothing */
    if (s == MERKLE_OK) {
        if (merkle_vcache_count(c) > loaded) abort();
        merkle_file_id id = { 1, 0, 2, 3, 4, 5, 1 };
        uint8_t d[64] = { 0 };
        (void)merkle_vcache_lookup(c, "a", &id, MERKLE_HASH_MD5, d, 16);
        (void)merkle_vcache_lookup(c, "x", &id, MERKLE_HASH_SHA256, d, 32);
        size_t count = merkle_vcache_count(c);
        if (merkle_vcache_record(c, "fuzz-new-entry", &id, MERKLE_HASH_MD5, d, 16, 10) != MERKLE_OK)
            abort();
        if (merkle_vcache_save(c, out, NULL) != MERKLE_OK) abort();
        merkle_vcache *c2;
        if (merkle_vcache_alloc(&c2, (mode & 1) ? key : NULL, (mode & 1) ? 32 : 0) != MERKLE_OK)
            abort();
        size_t l2 = 0, r2 = 0;
        if (merkle_vcache_load(&l2, &r2, c2, out, NULL) != MERKLE_OK) abort();
        if (merkle_vcache_count(c2) != count + 1 || r2 != 0) abort();
        merkle_vcache_free(c2);
    }
    merkle_vcache_free(c);
    free(img);
    return 0;
}
