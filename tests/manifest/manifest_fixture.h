/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The fixture of the manifest tests (tests/manifest/test_manifest*.c): a scratch directory
** per program (setup/teardown), files written and aged in it, and an OpenSSL digest. Never
** installed.
*/
#ifndef MERKLE_TESTS_MANIFEST_FIXTURE_H
#define MERKLE_TESTS_MANIFEST_FIXTURE_H
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "manifest/manifest_impl.h"
#include "merkle/manifest.h"
#include "merkle/tree.h"
#include "testutil.h"

static char g_dir[256];

static inline void path_of(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", g_dir, name);
}

static inline void write_file(const char *name, const void *data, size_t len)
{
    char p[512];
    path_of(p, sizeof p, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    if (len) assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* Set mtime 100 s into the past so that the racy-file rule does not hide cache hits. */
static inline void age_file(const char *name)
{
    char p[512];
    path_of(p, sizeof p, name);
    struct timespec ts[2];
    clock_gettime(CLOCK_REALTIME, &ts[0]);
    ts[0].tv_sec -= 100;
    ts[1] = ts[0];
    assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
}

static inline int setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/test_manifest.XXXXXX");
    assert_non_null(mkdtemp(g_dir));
    return 0;
}

static inline int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : 0;
}

static inline void evp(uint8_t *out, const EVP_MD *md, const void *p, size_t n)
{
    unsigned int l;
    EVP_Digest(p, n, out, &l, md, NULL);
}

/* Make n files f000.. of random sizes in g_dir and entries (with dirfd names) for alg. */
static inline merkle_manifest_entry *make_set(tu_rng *r, size_t n, merkle_hash_alg alg,
                                              char names[][16])
{
    merkle_manifest_entry *e = calloc(n, sizeof *e);
    static uint8_t buf[200000];
    for (size_t i = 0; i < n; i++) {
        snprintf(names[i], 16, "f%03zu", i);
        size_t len = (size_t)tu_rng_below(r, 4) == 0 ? (size_t)tu_rng_below(r, sizeof buf)
                                                     : (size_t)tu_rng_below(r, 9000);
        tu_rng_fill(r, buf, len);
        write_file(names[i], buf, len);
        e[i].name = names[i];
        e[i].name_len = strlen(names[i]);
        e[i].alg = alg;
        e[i].digest_len = (uint32_t)merkle_hash_alg_len(alg);
        assert_int_equal(merkle_manifest_digest(e[i].digest, alg, e[i].digest_len, buf, len),
                         MERKLE_OK);
        e[i].line = i + 1;
    }
    return e;
}

#endif
