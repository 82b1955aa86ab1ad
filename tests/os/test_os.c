/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The platform layer (src/os/os.h) with the calls the file layer makes, on whatever system
** the test runs: POSIX's own calls on Linux, src/os/os_win.c on Windows (under wine in
** scripts/mingw-test.sh). Directory descriptors, binary opens, pread at an offset, link
** without replace, rename with replace, unlinkat, flock, fdopendir, random bytes, aligned
** memory; the error paths (missing names, a closed descriptor, an existing link target).
*/
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h> /* its own block: after the headers it needs, not sorted above them */

#include "merkle/common.h"
#include "merkle/manifest.h"
#include "os/os.h"

#if defined(_WIN32)
#include <direct.h>
#include <sys/utime.h>
#define make_dir(p) _mkdir(p)
#else
#include <utime.h>
#define make_dir(p) mkdir(p, 0700)
#endif
#include <time.h>

/* Bytes text mode would change: CR LF, a lone LF, Ctrl-Z (end of file for text reads). */
static const uint8_t k_data[] = { 'a', '\r', '\n', 'b', '\n', 0x1a, 'c', 0, 0xff, 'd' };

static char g_dir[64];

static void path_of(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", g_dir, name);
}

static void write_file(const char *name, const uint8_t *p, size_t n)
{
    char path[128];
    path_of(path, sizeof path, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, p, n), (ssize_t)n);
    assert_int_equal(fsync(fd), 0);
    assert_int_equal(close(fd), 0);
}

static int setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "test_os.tmp.%ld", (long)getpid());
    return make_dir(g_dir);
}

static int teardown(void **state)
{
    (void)state;
    const char *names[] = { "a.bin",  "b.bin",  "c.bin",  "\xc3\xa9t\xc3\xa9.bin",
                            "m1.bin", "m2.bin", "m3.bin", "r1.bin" };
    int dfd = open(g_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return -1;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        (void)unlinkat(dfd, names[i], 0); /* UTF-8 names: through the layer */
    (void)close(dfd);
    return rmdir(g_dir);
}

static void test_random_and_memory(void **state)
{
    (void)state;
    uint8_t a[32], b[32], zero[32] = { 0 };
    assert_int_equal(merkle__os_random(a, sizeof a), 0);
    assert_int_equal(merkle__os_random(b, sizeof b), 0);
    assert_memory_not_equal(a, b, sizeof a);
    assert_memory_not_equal(a, zero, sizeof a);
    void *p = merkle__os_aligned_alloc(4096, 3 * 4096 + 5);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 4096, 0);
    memset(p, 0xab, 3 * 4096 + 5);
    merkle__os_aligned_free(p);
    assert_true(merkle__os_ncpu() >= 1);
}

static void test_dirfd_binary_pread(void **state)
{
    (void)state;
    write_file("a.bin", k_data, sizeof k_data);
    int dfd = open(g_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(dfd >= 0);

    struct stat st;
    assert_int_equal(fstatat(dfd, "a.bin", &st, 0), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_size, sizeof k_data);
    assert_int_equal(faccessat(dfd, "a.bin", R_OK, AT_EACCESS), 0);
    errno = 0;
    assert_int_equal(fstatat(dfd, "missing", &st, 0), -1);
    assert_int_equal(errno, ENOENT);
    assert_int_not_equal(faccessat(dfd, "missing", R_OK, AT_EACCESS), 0);
    assert_int_equal(openat(dfd, "missing", O_RDONLY | O_CLOEXEC), -1);

    int fd = openat(dfd, "a.bin", O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    assert_true(fd >= 0);
    uint8_t buf[32];
    /* pread at an offset, then a plain read still starts at 0: the position is not moved */
    assert_int_equal(pread(fd, buf, 4, 3), 4);
    assert_memory_equal(buf, k_data + 3, 4);
    assert_int_equal(read(fd, buf, sizeof buf), (ssize_t)sizeof k_data);
    assert_memory_equal(buf, k_data, sizeof k_data); /* binary: no CR LF folding, no ^Z end */
    assert_int_equal(pread(fd, buf, 4, (int64_t)sizeof k_data), 0); /* at the end */
    assert_int_equal(flock(fd, LOCK_EX), 0);
    assert_int_equal(flock(fd, LOCK_UN), 0);
    assert_int_equal(close(fd), 0);

    /* A directory of the directory descriptor: "." relative to it. */
    int d2 = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(d2 >= 0);
    assert_int_equal(fstatat(d2, "a.bin", &st, AT_SYMLINK_NOFOLLOW), 0);
    assert_int_equal(close(d2), 0);
    /* Not a directory. */
    char path[128];
    path_of(path, sizeof path, "a.bin");
    errno = 0;
    assert_int_equal(open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), -1);
    assert_int_equal(errno, ENOTDIR);

    assert_int_equal(close(dfd), 0);
    errno = 0;
    assert_int_equal(fstatat(dfd, "a.bin", &st, 0), -1); /* closed */
    assert_int_equal(errno, EBADF);
}

static void test_listing_and_names(void **state)
{
    (void)state;
    write_file("\xc3\xa9t\xc3\xa9.bin", k_data, 3); /* UTF-8 name */
    write_file("b.bin", k_data, 2);
    int dfd = open(g_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(dfd >= 0);
    DIR *d = fdopendir(dfd);
    assert_non_null(d);
    int seen_b = 0, seen_utf8 = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, "\xc3\xa9t\xc3\xa9.bin") == 0) seen_utf8 = 1; /* listed in UTF-8 */
        if (strcmp(de->d_name, "b.bin") != 0) continue;
        struct stat st; /* the descriptor stays usable while the stream is open */
        assert_int_equal(fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW), 0);
        assert_int_equal(st.st_size, 2);
        seen_b = 1;
    }
    assert_true(seen_b);
    assert_true(seen_utf8);
    assert_int_equal(closedir(d), 0); /* releases dfd too */

    struct stat st;
    char path[128];
    path_of(path, sizeof path, "\xc3\xa9t\xc3\xa9.bin");
    assert_int_equal(lstat(path, &st), 0);
    assert_int_equal(st.st_size, 3);
}

static void test_link_rename_unlink(void **state)
{
    (void)state;
    char a[128], b[128], c[128];
    path_of(a, sizeof a, "a.bin");
    path_of(b, sizeof b, "b.bin");
    path_of(c, sizeof c, "c.bin");
    /* link never replaces: b.bin exists */
    errno = 0;
    assert_int_equal(link(a, b), -1);
    assert_int_equal(errno, EEXIST);
    assert_int_equal(link(a, c), 0);
    struct stat st;
    assert_int_equal(lstat(c, &st), 0);
    assert_int_equal(st.st_size, sizeof k_data);
    /* rename replaces */
    assert_int_equal(rename(c, b), 0);
    assert_int_equal(lstat(b, &st), 0);
    assert_int_equal(st.st_size, sizeof k_data);
    assert_int_equal(lstat(c, &st), -1);
    int dfd = open(g_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(dfd >= 0);
    assert_int_equal(unlinkat(dfd, "b.bin", 0), 0);
    assert_int_equal(fstatat(dfd, "b.bin", &st, 0), -1);
    assert_int_equal(unlinkat(dfd, "b.bin", 0), -1);
    assert_int_equal(linkat(AT_FDCWD, a, dfd, "c.bin", AT_SYMLINK_FOLLOW), 0);
    assert_int_equal(fstatat(dfd, "c.bin", &st, 0), 0);
    assert_int_equal(close(dfd), 0);
}

/* The manifest layer on top: check (SHA-256 through the digest layer, MD5 through the
** multi-buffer engine's batches and pread) and audit (the directory walk) in g_dir. */
static void test_manifest_check_and_audit(void **state)
{
    (void)state;
    static uint8_t big[300000];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)(i * 7 + (i >> 9));
    write_file("m1.bin", k_data, sizeof k_data);
    write_file("m2.bin", big, sizeof big);
    merkle_manifest_entry e[6];
    memset(e, 0, sizeof e);
    const char *names[6] = { "m1.bin", "m2.bin", "m1.bin", "m2.bin", "nothere.bin", "m1.bin" };
    const merkle_hash_alg algs[6] = { MERKLE_HASH_SHA256, MERKLE_HASH_SHA256, MERKLE_HASH_MD5,
                                      MERKLE_HASH_MD5,    MERKLE_HASH_SHA256, MERKLE_HASH_SHA256 };
    for (size_t i = 0; i < 6; i++) {
        e[i].name = names[i];
        e[i].name_len = strlen(names[i]);
        e[i].alg = algs[i];
        e[i].digest_len = (uint32_t)merkle_hash_alg_len(algs[i]);
        e[i].line = i + 1;
        const void *p = i % 2 ? (const void *)big : (const void *)k_data;
        size_t n = i % 2 ? sizeof big : sizeof k_data;
        assert_int_equal(merkle_manifest_digest(e[i].digest, algs[i], e[i].digest_len, p, n),
                         MERKLE_OK);
    }
    e[5].digest[0] ^= 1; /* a wrong digest */
    merkle_check_opts o;
    assert_int_equal(merkle_check_opts_init(&o, MERKLE_CHECK_OPTS_VERSION), MERKLE_OK);
    o.dir = g_dir;
    o.threads = 2;
    merkle_check_result r[6];
    merkle_error err;
    assert_int_equal(merkle_manifest_check(r, e, 6, &o, &err), MERKLE_OK);
    assert_int_equal(r[0].status, MERKLE_CHECK_OK);
    assert_int_equal(r[1].status, MERKLE_CHECK_OK);
    assert_int_equal(r[1].size, sizeof big);
    assert_int_equal(r[2].status, MERKLE_CHECK_OK);
    assert_int_equal(r[3].status, MERKLE_CHECK_OK);
    assert_int_equal(r[4].status, MERKLE_CHECK_MISSING);
    assert_int_equal(r[5].status, MERKLE_CHECK_MISMATCH);

    /* audit: m1 changed (one more byte), m2 ok, m3 new; other files of g_dir are new too */
    char hex[2 * 32 + 1], text[512];
    merkle_hex_encode(hex, e[0].digest, 32);
    int len = snprintf(text, sizeof text, "%s  m1.bin\n", hex);
    merkle_hex_encode(hex, e[1].digest, 32);
    len += snprintf(text + len, sizeof text - (size_t)len, "%s  m2.bin\n", hex);
    merkle_manifest_parser pr;
    merkle_manifest_parser_init(&pr, MERKLE_HASH_SHA256, 0);
    merkle_manifest *m = NULL;
    assert_int_equal(merkle_manifest_parse_alloc(&m, &pr, text, (size_t)len, 1, &err), MERKLE_OK);
    assert_int_equal(merkle_manifest_count(m), 2);
    char path[128];
    path_of(path, sizeof path, "m1.bin");
    int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "x", 1), 1);
    assert_int_equal(close(fd), 0);
    write_file("m3.bin", (const uint8_t *)"new", 3);
    merkle_audit_opts ao;
    assert_int_equal(merkle_audit_opts_init(&ao, MERKLE_AUDIT_OPTS_VERSION), MERKLE_OK);
    ao.threads = 2;
    merkle_audit_counts c;
    assert_int_equal(merkle_manifest_audit(&c, m, g_dir, &ao, &err), MERKLE_OK);
    assert_int_equal(c.ok, 1);
    assert_int_equal(c.changed, 1);
    assert_int_equal(c.missing, 0);
    assert_true(c.new_files >= 1); /* m3.bin and what the earlier tests left */
    assert_int_equal(c.walk_errors, 0);
    /* a directory that is not there: an error, not findings */
    assert_int_equal(merkle_manifest_audit(&c, m, "test_os.no-such-dir", &ao, &err), MERKLE_ERR_IO);
    merkle_manifest_free(m);
}

/* A file rewritten in place with its modification time set back is another file to the
** validation cache: on Linux its ctime moved; on Windows its ChangeTime did, which the
** runtime's stat does not give (st_ctime is the creation time there), so the layer reads it
** from the file's handle. */
static void test_identity_after_rewrite(void **state)
{
    (void)state;
    write_file("r1.bin", (const uint8_t *)"aaaa", 4);
    char path[128];
    path_of(path, sizeof path, "r1.bin");
    struct utimbuf old = { time(NULL) - 100, time(NULL) - 100 };
    assert_int_equal(utime(path, &old), 0);
    merkle_file_id a, b;
    merkle_error err;
    assert_int_equal(merkle_file_id_of(&a, path, &err), MERKLE_OK);
    assert_int_equal(a.regular, 1);
    assert_int_equal(a.size, 4);
    assert_true(a.ino_lo != 0 || a.ino_hi != 0); /* a file id, not the runtime's 0 */
    merkle_vcache *c;
    assert_int_equal(merkle_vcache_alloc(&c, NULL, 0), MERKLE_OK);
    uint8_t d[16] = { 1, 2, 3 };
    int64_t later = ((int64_t)time(NULL) + 5) * 1000000000LL; /* verified after every stamp */
    assert_int_equal(merkle_vcache_record(c, path, &a, MERKLE_HASH_MD5, d, 16, later), MERKLE_OK);
    assert_int_equal(merkle_vcache_lookup(c, path, &a, MERKLE_HASH_MD5, d, 16), 1);
    /* Same size, same mtime, other bytes. */
    struct timespec nap = { 0, 50000000 };
    nanosleep(&nap, NULL);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "bbbb", 4), 4);
    assert_int_equal(close(fd), 0);
    assert_int_equal(utime(path, &old), 0);
    assert_int_equal(merkle_file_id_of(&b, path, &err), MERKLE_OK);
    assert_int_equal(b.size, a.size);
    assert_int_equal(b.mtime_ns, a.mtime_ns);
    assert_true(b.ctime_ns != a.ctime_ns);
    assert_int_equal(merkle_vcache_lookup(c, path, &b, MERKLE_HASH_MD5, d, 16), 0);
    /* The same file: the same id, whatever was written. */
    assert_int_equal(b.dev, a.dev);
    assert_true(b.ino_lo == a.ino_lo && b.ino_hi == a.ino_hi);
    /* A file with no readable identity (file id 0) is never vouched for. */
    merkle_file_id z = a;
    z.ino_lo = z.ino_hi = 0;
    assert_int_equal(merkle_vcache_record(c, "zero", &z, MERKLE_HASH_MD5, d, 16, later), MERKLE_OK);
    assert_int_equal(merkle_vcache_lookup(c, "zero", &z, MERKLE_HASH_MD5, d, 16), 0);
    merkle_vcache_free(c);
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_and_memory),
        cmocka_unit_test(test_dirfd_binary_pread),
        cmocka_unit_test(test_listing_and_names),
        cmocka_unit_test(test_link_rename_unlink),
        cmocka_unit_test(test_manifest_check_and_audit),
        cmocka_unit_test(test_identity_after_rewrite),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
