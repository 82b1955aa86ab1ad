/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Multi-buffer MD5: known answers, every kernel this CPU runs against OpenSSL MD5 on random
** lanes (random lengths, NULL lanes, restarts), the scalar lane finish, and the file engine
** on a temporary directory (many sizes, missing files, a directory, a /proc file whose size
** is 0, a read error mid-file, unreadable files when not root, n = 0/1/1000).
*/
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash/md5_mb.h"
#include "io/md5_files.h"
#include "testutil.h"

static void openssl_md5(uint8_t out[16], const void *data, size_t len)
{
    unsigned int n = 0;
    assert_int_equal(EVP_Digest(data, len, out, &n, EVP_md5(), NULL), 1);
    assert_int_equal(n, 16);
}

static const char *const g_kernels[] = { "portable", "avx2", "avx512" };

static void test_md5_kat(void **state)
{
    (void)state;
    uint8_t out[16];
    merkle__md5(out, "", 0);
    tu_assert_hex(out, 16, "d41d8cd98f00b204e9800998ecf8427e", "empty");
    merkle__md5(out, "abc", 3);
    tu_assert_hex(out, 16, "900150983cd24fb0d6963f7d28e17f72", "abc");
    const char *digits =
        "12345678901234567890123456789012345678901234567890123456789012345678901234567890";
    merkle__md5(out, digits, strlen(digits));
    tu_assert_hex(out, 16, "57edf4a22be3c955ac49da2e2107b67a", "rfc1321 digits");
    /* Scalar one-shot against OpenSSL at every length around the padding boundaries. */
    uint8_t buf[300], want[16];
    tu_counter_bytes(buf, sizeof buf);
    for (size_t len = 0; len <= sizeof buf; len++) {
        merkle__md5(out, buf, len);
        openssl_md5(want, buf, len);
        assert_memory_equal(out, want, 16);
    }
    /* The dispatcher picks something that exists and honours MERKLE_MD5_BACKEND when this
    ** CPU runs the kernel asked for (ctest runs this program once per kernel name). */
    assert_non_null(merkle__md5_mb_get());
    const char *env = getenv("MERKLE_MD5_BACKEND");
    const merkle__md5_mb_impl *forced = merkle__md5_mb_find(env);
    if (forced && forced->available()) assert_string_equal(merkle__md5_mb_get()->name, env);
    assert_int_equal(merkle__md5_mb_set("no-such-kernel"), MERKLE_ERR_ARG);
    assert_null(merkle__md5_mb_find("no-such-kernel"));
}

/* Lane finish: a state that absorbed whole blocks, then a tail of any length. */
static void test_lane_final(void **state)
{
    (void)state;
    uint8_t buf[400], out[16], want[16];
    tu_rng rng;
    tu_rng_seed(&rng, 7);
    tu_rng_fill(&rng, buf, sizeof buf);
    for (size_t len = 0; len <= sizeof buf; len++) {
        for (size_t pre = 0; pre * 64 <= len; pre++) {
            merkle__md5_mb st;
            memset(&st, 0xa5, sizeof st);
            unsigned lane = (unsigned)(len % MERKLE_MD5_MB_MAX_LANES);
            merkle__md5_mb_lane_init(&st, lane);
            const uint8_t *ptr[MERKLE_MD5_MB_MAX_LANES] = { 0 };
            ptr[lane] = buf;
            if (pre) merkle__md5_mb_portable.blocks(&st, ptr, pre);
            merkle__md5_mb_lane_final(&st, lane, buf + 64 * pre, len - 64 * pre, len, out);
            openssl_md5(want, buf, len);
            assert_memory_equal(out, want, 16);
        }
    }
}

/* One kernel against OpenSSL: each lane hashes a sequence of random messages; every round
** some lanes are NULL, and a lane whose message has fewer than one block left is finished
** with lane_final and restarted on a new message. */
static void check_kernel(const merkle__md5_mb_impl *impl, uint64_t seed)
{
    enum { MAXLEN = 5000, MSGS_PER_LANE = 6 };
    tu_rng rng;
    tu_rng_seed(&rng, seed);
    const unsigned lanes = impl->lanes;
    uint8_t *msg[MERKLE_MD5_MB_MAX_LANES];
    size_t len[MERKLE_MD5_MB_MAX_LANES], pos[MERKLE_MD5_MB_MAX_LANES];
    int left[MERKLE_MD5_MB_MAX_LANES];
    merkle__md5_mb st;
    memset(&st, 0, sizeof st);
    /* Lanes past impl->lanes must never be touched. */
    for (unsigned l = 0; l < MERKLE_MD5_MB_MAX_LANES; l++)
        for (int w = 0; w < 4; w++) st.s[w][l] = 0xdead0000u + l;
    for (unsigned l = 0; l < lanes; l++) {
        msg[l] = malloc(MAXLEN + 1);
        assert_non_null(msg[l]);
        len[l] = (size_t)tu_rng_below(&rng, MAXLEN + 1);
        tu_rng_fill(&rng, msg[l], len[l]);
        pos[l] = 0;
        left[l] = MSGS_PER_LANE;
        merkle__md5_mb_lane_init(&st, l);
    }
    size_t finished = 0;
    for (;;) {
        const uint8_t *ptr[MERKLE_MD5_MB_MAX_LANES] = { 0 };
        size_t k = SIZE_MAX;
        int any = 0;
        for (unsigned l = 0; l < lanes; l++) {
            while (left[l] > 0 && len[l] - pos[l] < 64) {
                uint8_t out[16], want[16];
                merkle__md5_mb_lane_final(&st, l, msg[l] + pos[l], len[l] - pos[l], len[l], out);
                openssl_md5(want, msg[l], len[l]);
                assert_memory_equal(out, want, 16);
                finished++;
                if (--left[l] == 0) break;
                len[l] = (size_t)tu_rng_below(&rng, MAXLEN + 1);
                tu_rng_fill(&rng, msg[l], len[l]);
                pos[l] = 0;
                merkle__md5_mb_lane_init(&st, l);
            }
            if (left[l] == 0) continue;
            any = 1;
            if (tu_rng_below(&rng, 4) == 0) continue; /* NULL this round */
            ptr[l] = msg[l] + pos[l];
            size_t b = (len[l] - pos[l]) / 64;
            if (b < k) k = b;
        }
        if (!any) break;
        if (k == SIZE_MAX) continue;
        k = 1 + (size_t)tu_rng_below(&rng, k); /* random step, at least one block */
        impl->blocks(&st, ptr, k);
        for (unsigned l = 0; l < lanes; l++)
            if (ptr[l]) pos[l] += 64 * k;
    }
    assert_int_equal(finished, (size_t)lanes * MSGS_PER_LANE);
    for (unsigned l = lanes; l < MERKLE_MD5_MB_MAX_LANES; l++)
        for (int w = 0; w < 4; w++) assert_int_equal(st.s[w][l], 0xdead0000u + l);
    for (unsigned l = 0; l < lanes; l++) free(msg[l]);
}

static void test_kernels(void **state)
{
    (void)state;
    int ran = 0;
    for (size_t i = 0; i < sizeof g_kernels / sizeof g_kernels[0]; i++) {
        const merkle__md5_mb_impl *impl = merkle__md5_mb_find(g_kernels[i]);
        if (!impl || !impl->available()) {
            if (impl) assert_int_equal(merkle__md5_mb_set(g_kernels[i]), MERKLE_ERR_UNSUPPORTED);
            printf("# md5 kernel %s: not available here\n", g_kernels[i]);
            continue;
        }
        for (uint64_t seed = 1; seed <= 4; seed++) check_kernel(impl, seed * 1000 + i);
        /* All lanes NULL, or zero blocks: nothing changes. */
        merkle__md5_mb st, before;
        memset(&st, 0x5a, sizeof st);
        before = st;
        const uint8_t *none[MERKLE_MD5_MB_MAX_LANES] = { 0 };
        impl->blocks(&st, none, 3);
        const uint8_t *one[MERKLE_MD5_MB_MAX_LANES] = { (const uint8_t *)"x" };
        impl->blocks(&st, one, 0);
        assert_memory_equal(&st, &before, sizeof st);
        assert_int_equal(merkle__md5_mb_set(g_kernels[i]), MERKLE_OK);
        assert_string_equal(merkle__md5_mb_get()->name, g_kernels[i]);
        ran++;
    }
    assert_true(ran >= 1);
}

/* ------------------------------------------------------------------ file engine */

typedef struct result {
    int calls;
    int err;
    int had_st;
    off_t st_size;
    uint64_t bytes;
    uint8_t digest[16];
} result;

typedef struct collect {
    size_t n;
    result *r;
} collect;

static void on_done(void *ctx, size_t index, int sys_errno, const uint8_t *digest,
                    const struct stat *st, uint64_t bytes)
{
    collect *c = ctx;
    assert_true(index < c->n);
    result *r = &c->r[index];
    r->calls++;
    r->err = sys_errno;
    r->had_st = st != NULL;
    if (st) r->st_size = st->st_size;
    r->bytes = bytes;
    if (sys_errno == 0) {
        assert_non_null(digest);
        memcpy(r->digest, digest, 16);
    } else {
        assert_null(digest);
    }
}

static char g_dir[64];
static int g_dirfd = -1;

static void write_file(const char *name, const uint8_t *data, size_t len)
{
    int fd = openat(g_dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        assert_true(w > 0);
        done += (size_t)w;
    }
    close(fd);
}

static void rm_rf(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static int setup_dir(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/merkle-md5mb-XXXXXX");
    if (!mkdtemp(g_dir)) return -1;
    g_dirfd = open(g_dir, O_RDONLY | O_DIRECTORY);
    return g_dirfd >= 0 ? 0 : -1;
}

static int teardown_dir(void **state)
{
    (void)state;
    if (g_dirfd >= 0) close(g_dirfd);
    g_dirfd = -1;
    rm_rf(g_dir);
    return 0;
}

/* Run the engine with every available kernel and two lane-buffer sizes, then check each
** index was reported exactly once with the expected outcome. want_err[i] = 0 means "a
** digest equal to want[i]"; -1 means "any errno". */
static void run_engine(const char *const *paths, size_t n, const uint8_t (*want)[16],
                       const int *want_err)
{
    static const size_t bufs[] = { 0, 8192 };
    for (size_t ki = 0; ki < sizeof g_kernels / sizeof g_kernels[0]; ki++) {
        const merkle__md5_mb_impl *impl = merkle__md5_mb_find(g_kernels[ki]);
        if (!impl || !impl->available()) continue;
        for (size_t bi = 0; bi < 2; bi++) {
            collect c = { n, calloc(n ? n : 1, sizeof(result)) };
            assert_non_null(c.r);
            assert_int_equal(
                merkle__md5_mb_files_ex(impl, bufs[bi], g_dirfd, paths, n, on_done, &c), MERKLE_OK);
            for (size_t i = 0; i < n; i++) {
                if (c.r[i].calls != 1)
                    fail_msg("%s: index %zu (%s) reported %d times", impl->name, i, paths[i],
                             c.r[i].calls);
                if (want_err[i] == 0) {
                    if (c.r[i].err != 0)
                        fail_msg("%s buf %zu: %s: unexpected error %s", impl->name, bufs[bi],
                                 paths[i], strerror(c.r[i].err));
                    assert_true(c.r[i].had_st);
                    assert_memory_equal(c.r[i].digest, want[i], 16);
                    /* the bytes hashed are reported (the cache records only files whose
                    ** bytes read equal their size); these files do not change */
                    if (strncmp(paths[i], "/proc/", 6) != 0)
                        assert_true(c.r[i].bytes == (uint64_t)c.r[i].st_size);
                } else if (want_err[i] > 0) {
                    if (c.r[i].err != want_err[i])
                        fail_msg("%s: %s: error %d, want %d", impl->name, paths[i], c.r[i].err,
                                 want_err[i]);
                } else {
                    assert_true(c.r[i].err != 0);
                }
            }
            free(c.r);
        }
    }
}

static void test_files_sizes(void **state)
{
    (void)state;
    static const size_t sizes[] = { 0,
                                    1,
                                    55,
                                    56,
                                    57,
                                    63,
                                    64,
                                    65,
                                    119,
                                    120,
                                    127,
                                    128,
                                    129,
                                    4095,
                                    4096,
                                    4097,
                                    8191,
                                    8192,
                                    8193,
                                    65536 + 17,
                                    131072,
                                    131073,
                                    (1u << 20) + 3,
                                    3u << 20 };
    enum { N = sizeof sizes / sizeof sizes[0] };
    const size_t max = 3u << 20;
    uint8_t *data = malloc(max + 64); /* file i starts at data + i */
    assert_non_null(data);
    tu_rng rng;
    tu_rng_seed(&rng, 99);
    tu_rng_fill(&rng, data, max + 64);
    char names[N][32];
    const char *paths[N + 8];
    uint8_t want[N + 8][16];
    int want_err[N + 8];
    for (size_t i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "f%zu", sizes[i]);
        write_file(names[i], data + i, sizes[i]);
        paths[i] = names[i];
        openssl_md5(want[i], data + i, sizes[i]);
        want_err[i] = 0;
    }
    size_t n = N;
    paths[n] = "missing";
    want_err[n++] = ENOENT;
    assert_int_equal(mkdirat(g_dirfd, "subdir", 0755), 0);
    paths[n] = "subdir";
    want_err[n++] = EISDIR;
    paths[n] = "missing/deeper";
    want_err[n++] = ENOENT;
    /* Absolute path: dirfd is ignored. /proc/self/mem reads EIO at address 0. */
    paths[n] = "/proc/self/mem";
    want_err[n++] = EIO;
    /* A /proc file reports st_size 0 but has content: read until EOF. */
    {
        FILE *f = fopen("/proc/version", "rb");
        if (f) {
            uint8_t tmp[4096];
            size_t got = fread(tmp, 1, sizeof tmp, f);
            fclose(f);
            paths[n] = "/proc/version";
            openssl_md5(want[n], tmp, got);
            want_err[n++] = 0;
        }
    }
    /* Unreadable file: only meaningful when not root (root may read anything). */
    write_file("noperm", data, 10);
    assert_int_equal(fchmodat(g_dirfd, "noperm", 0, 0), 0);
    paths[n] = "noperm";
    if (geteuid() != 0) {
        want_err[n++] = EACCES;
    } else {
        openssl_md5(want[n], data, 10);
        want_err[n++] = 0;
    }
    /* Same file twice in a row. */
    paths[n] = names[N - 1];
    memcpy(want[n], want[N - 1], 16);
    want_err[n++] = 0;
    run_engine(paths, n, (const uint8_t(*)[16])want, want_err);
    /* n = 1 and n = 0 (paths may be NULL then). */
    run_engine(paths + 5, 1, (const uint8_t(*)[16])want + 5, want_err + 5);
    assert_int_equal(merkle__md5_mb_files(g_dirfd, NULL, 0, on_done, NULL), MERKLE_OK);
    assert_int_equal(merkle__md5_mb_files(g_dirfd, NULL, 3, on_done, NULL), MERKLE_ERR_ARG);
    assert_int_equal(merkle__md5_mb_files(g_dirfd, paths, 3, NULL, NULL), MERKLE_ERR_ARG);
    free(data);
}

/* 1000 small files of random sizes (0..9000) with a missing one every 97. */
static void test_files_many(void **state)
{
    (void)state;
    enum { N = 1000 };
    tu_rng rng;
    tu_rng_seed(&rng, 1234);
    static char names[N][16];
    static const char *paths[N];
    static uint8_t want[N][16];
    static int want_err[N];
    uint8_t buf[9000];
    assert_int_equal(mkdirat(g_dirfd, "many", 0755), 0);
    for (size_t i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "many/%zu", i);
        paths[i] = names[i];
        if (i % 97 == 13) {
            want_err[i] = ENOENT;
            continue;
        }
        size_t len = (size_t)tu_rng_below(&rng, sizeof buf + 1);
        tu_rng_fill(&rng, buf, len);
        write_file(names[i], buf, len);
        openssl_md5(want[i], buf, len);
        want_err[i] = 0;
    }
    run_engine(paths, N, (const uint8_t(*)[16])want, want_err);
}

/* Shared-cursor pull runs: two threads with their own engines, and one engine reused. */
typedef struct shared_list {
    const char *const *paths;
    size_t n;
    atomic_size_t cursor;
    collect *c;
    pthread_mutex_t lock;
} shared_list;

static int shared_next(void *ctx, size_t *index, const char **path)
{
    shared_list *s = ctx;
    size_t i = atomic_fetch_add(&s->cursor, 1);
    if (i >= s->n) return 0;
    *index = i;
    *path = s->paths[i];
    return 1;
}

static void shared_done(void *ctx, size_t index, int sys_errno, const uint8_t *digest,
                        const struct stat *st, uint64_t bytes)
{
    shared_list *s = ctx;
    pthread_mutex_lock(&s->lock);
    on_done(s->c, index, sys_errno, digest, st, bytes);
    pthread_mutex_unlock(&s->lock);
}

static void *shared_worker(void *arg)
{
    shared_list *s = arg;
    merkle__md5_mb_engine *e = NULL;
    if (merkle__md5_mb_engine_alloc(&e, NULL, 16384) != MERKLE_OK) return (void *)1;
    merkle_status st = merkle__md5_mb_engine_run(e, g_dirfd, shared_next, shared_done, s);
    merkle__md5_mb_engine_free(e);
    return st == MERKLE_OK ? NULL : (void *)1;
}

static void make_many(const char *dir, size_t n, size_t maxlen, char (*names)[32],
                      const char **paths, uint8_t (*want)[16], int *want_err, uint64_t seed)
{
    tu_rng rng;
    tu_rng_seed(&rng, seed);
    uint8_t *buf = malloc(maxlen + 1);
    assert_non_null(buf);
    assert_int_equal(mkdirat(g_dirfd, dir, 0755), 0);
    for (size_t i = 0; i < n; i++) {
        snprintf(names[i], 32, "%s/%zu", dir, i);
        paths[i] = names[i];
        if (i % 41 == 7) {
            want_err[i] = ENOENT;
            continue;
        }
        /* mostly small, some large: sizes spread over 0..maxlen */
        size_t len = (size_t)tu_rng_below(&rng, (i % 5 == 0 ? maxlen : 3000) + 1);
        tu_rng_fill(&rng, buf, len);
        write_file(names[i], buf, len);
        openssl_md5(want[i], buf, len);
        want_err[i] = 0;
    }
    free(buf);
}

static void check_results(const collect *c, const char *const *paths, const uint8_t (*want)[16],
                          const int *want_err)
{
    for (size_t i = 0; i < c->n; i++) {
        if (c->r[i].calls != 1)
            fail_msg("index %zu (%s) reported %d times", i, paths[i], c->r[i].calls);
        if (c->r[i].err != want_err[i])
            fail_msg("%s: error %d, want %d", paths[i], c->r[i].err, want_err[i]);
        if (!want_err[i]) assert_memory_equal(c->r[i].digest, want[i], 16);
    }
}

static void test_engine_pull_threads(void **state)
{
    (void)state;
    enum { N = 300 };
    static char names[N][32];
    static const char *paths[N];
    static uint8_t want[N][16];
    static int want_err[N];
    make_many("pull", N, 200000, names, paths, want, want_err, 77);
    collect c = { N, calloc(N, sizeof(result)) };
    assert_non_null(c.r);
    shared_list s = { paths, N, 0, &c, PTHREAD_MUTEX_INITIALIZER };
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, shared_worker, &s), 0);
    void *r1 = shared_worker(&s), *r2 = NULL;
    pthread_join(th, &r2);
    assert_null(r1);
    assert_null(r2);
    check_results(&c, paths, (const uint8_t(*)[16])want, want_err);

    /* One engine reused for several runs (list form), including an empty one. */
    merkle__md5_mb_engine *e = NULL;
    assert_int_equal(merkle__md5_mb_engine_alloc(&e, NULL, 0), MERKLE_OK);
    for (int round = 0; round < 3; round++) {
        memset(c.r, 0, N * sizeof(result));
        assert_int_equal(merkle__md5_mb_engine_files(e, g_dirfd, paths, N, on_done, &c), MERKLE_OK);
        check_results(&c, paths, (const uint8_t(*)[16])want, want_err);
        assert_int_equal(merkle__md5_mb_engine_files(e, g_dirfd, paths, 0, on_done, &c), MERKLE_OK);
    }
    assert_int_equal(merkle__md5_mb_engine_run(e, g_dirfd, NULL, on_done, &c), MERKLE_ERR_ARG);
    assert_int_equal(merkle__md5_mb_engine_run(NULL, g_dirfd, shared_next, on_done, &c),
                     MERKLE_ERR_ARG);
    merkle__md5_mb_engine_free(e);
    merkle__md5_mb_engine_free(NULL);
    assert_int_equal(merkle__md5_mb_engine_alloc(NULL, NULL, 0), MERKLE_ERR_ARG);
    assert_int_equal(merkle__md5_mb_engine_alloc(&e, NULL, (size_t)1 << 31), MERKLE_ERR_ARG);
    assert_null(e);
    free(c.r);
}

/* Few descriptors left: files are deferred while others are open, never lost or failed; with
** none at all, every file reports EMFILE. */
static void test_engine_fd_limit(void **state)
{
    (void)state;
    enum { N = 120 };
    static char names[N][32];
    static const char *paths[N];
    static uint8_t want[N][16];
    static int want_err[N];
    make_many("fdlim", N, 50000, names, paths, want, want_err, 5);
    struct rlimit old, low;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    /* Highest descriptor in use now, so that only a few remain. */
    int probe = open("/dev/null", O_RDONLY);
    assert_true(probe >= 0);
    close(probe);
    low = old;
    low.rlim_cur = (rlim_t)probe + 5;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    collect c = { N, calloc(N, sizeof(result)) };
    merkle_status s1 =
        c.r ? merkle__md5_mb_files(g_dirfd, paths, N, on_done, &c) : MERKLE_ERR_NOMEM;
    low.rlim_cur = (rlim_t)probe;
    setrlimit(RLIMIT_NOFILE, &low);
    collect c2 = { N, calloc(N, sizeof(result)) };
    merkle_status s2 =
        c2.r ? merkle__md5_mb_files(g_dirfd, paths, N, on_done, &c2) : MERKLE_ERR_NOMEM;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
    assert_int_equal(s1, MERKLE_OK);
    check_results(&c, paths, (const uint8_t(*)[16])want, want_err);
    assert_int_equal(s2, MERKLE_OK);
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(c2.r[i].calls, 1);
        assert_int_equal(c2.r[i].err, EMFILE); /* even a missing file: no fd to try */
    }
    free(c.r);
    free(c2.r);
}

/* A file whose size says nothing (/proc: 0): the bytes hashed are reported as read, so that a
** cache can refuse to vouch for it by its stat (issue 23 item 2). */
static void test_engine_bytes_of_proc(void **state)
{
    (void)state;
    static const char *paths[1] = { "/proc/version" };
    int fd = open(paths[0], O_RDONLY);
    if (fd < 0) skip();
    uint8_t buf[4096];
    ssize_t len = read(fd, buf, sizeof buf);
    close(fd);
    assert_true(len > 0);
    uint8_t want[16];
    openssl_md5(want, buf, (size_t)len);
    collect c = { 1, calloc(1, sizeof(result)) };
    assert_non_null(c.r);
    assert_int_equal(merkle__md5_mb_files(AT_FDCWD, paths, 1, on_done, &c), MERKLE_OK);
    assert_int_equal(c.r[0].calls, 1);
    assert_int_equal(c.r[0].err, 0);
    assert_int_equal((int)c.r[0].st_size, 0);
    assert_true(c.r[0].bytes == (uint64_t)len);
    assert_memory_equal(c.r[0].digest, want, 16);
    free(c.r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_md5_kat),
        cmocka_unit_test(test_lane_final),
        cmocka_unit_test(test_kernels),
        cmocka_unit_test_setup_teardown(test_files_sizes, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_files_many, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_engine_pull_threads, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_engine_fd_limit, setup_dir, teardown_dir),
        cmocka_unit_test(test_engine_bytes_of_proc),
    };
    /* The per-kernel ctest variants only check the dispatch (the full run covers every
    ** kernel explicitly). */
    if (getenv("MERKLE_MD5_BACKEND")) cmocka_set_test_filter("test_md5_kat");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
