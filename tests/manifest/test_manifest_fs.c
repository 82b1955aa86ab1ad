/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Manifest layer over a directory: verified reads with their LRU, the directory root, and
** audit (every event and stage). (Split from test_manifest.c.)
*/
#include "manifest_fixture.h"

/* ------------------------------------------------------------------ verified reads */

static void test_verified_read(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 13);
    enum { N = 6 };
    static char names[N][16];
    merkle_manifest_entry *e = make_set(&r, N, MERKLE_HASH_SHA256, names);
    for (size_t i = 0; i < N; i++) age_file(names[i]);
    struct timespec nap = { 0, 30000000 };
    nanosleep(&nap, NULL);
    merkle_manifest m = { 0 };
    m.entries = e;
    m.count = N;
    int dirfd = open(g_dir, O_RDONLY | O_DIRECTORY);
    merkle_vreader *vr;
    assert_int_equal(merkle_vreader_alloc(&vr, &m, g_dir, 1u << 20, NULL), MERKLE_OK);
    const uint8_t *data;
    size_t len;
    merkle_vbuf *b, *b2;
    int hit;
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(merkle_vreader_read(&data, &len, &b, &hit, vr, names[i], NULL), MERKLE_OK);
        assert_int_equal(hit, 0);
        uint8_t d[32];
        merkle_sha256_hash(d, data, len);
        assert_memory_equal(d, e[i].digest, 32);
        merkle_vbuf_free(b);
        assert_int_equal(merkle_vreader_read(&data, &len, &b, &hit, vr, names[i], NULL), MERKLE_OK);
        merkle_sha256_hash(d, data, len);
        assert_memory_equal(d, e[i].digest, 32);
        /* cached when it fits the budget */
        assert_int_equal(hit, len > 0 && len <= (1u << 20));
        merkle_vbuf_free(b);
    }
    assert_true(merkle_vreader_cached_bytes(vr) <= (1u << 20));
    /* hold a buffer, change the file: the held bytes stay valid; the next read fails */
    assert_int_equal(merkle_vreader_read(&data, &len, &b, &hit, vr, names[0], NULL), MERKLE_OK);
    uint8_t *copy = malloc(len + 1);
    memcpy(copy, data, len);
    write_file(names[0], "tampered", 8);
    merkle_error err;
    assert_int_equal(merkle_vreader_read(&data, &len, &b2, &hit, vr, names[0], &err),
                     MERKLE_ERR_VERIFY);
    assert_null(b2);
    assert_int_equal(merkle_vreader_read(&data, &len, &b2, &hit, NULL, names[0], NULL),
                     MERKLE_ERR_ARG);
    assert_int_equal(merkle_vreader_read(&data, &len, &b2, &hit, vr, "not-listed", NULL),
                     MERKLE_ERR_ARG);
    char p1[512];
    path_of(p1, sizeof p1, names[1]);
    unlink(p1);
    assert_int_equal(merkle_vreader_read(&data, &len, &b2, &hit, vr, names[1], &err),
                     MERKLE_ERR_IO);
    assert_int_equal(err.sys_errno, ENOENT);
    merkle_vreader_free(vr);
    const merkle_vbuf *held = b;
    assert_non_null(held);
    merkle_vbuf_free(b); /* after the reader is gone */
    free(copy);

    /* budget: tiny budget keeps at most one small file; LRU order */
    write_file("s1", "aaaa", 4);
    write_file("s2", "bbbb", 4);
    age_file("s1");
    age_file("s2");
    nanosleep(&nap, NULL);
    merkle_manifest_entry se[2] = { { 0 }, { 0 } };
    se[0].name = "s1";
    se[0].name_len = 2;
    se[1].name = "s2";
    se[1].name_len = 2;
    for (int k = 0; k < 2; k++) {
        se[k].alg = MERKLE_HASH_MD5;
        se[k].digest_len = 16;
        merkle_manifest_digest(se[k].digest, MERKLE_HASH_MD5, 16, k ? "bbbb" : "aaaa", 4);
    }
    m.entries = se;
    m.count = 2;
    assert_int_equal(merkle_vreader_alloc(&vr, &m, g_dir, 6, NULL), MERKLE_OK);
    assert_int_equal(merkle_vreader_read(&data, &len, &b, &hit, vr, "s1", NULL), MERKLE_OK);
    merkle_vbuf_free(b);
    assert_int_equal(merkle_vreader_read(&data, &len, &b, &hit, vr, "s2", NULL), MERKLE_OK);
    merkle_vbuf_free(b);
    assert_int_equal(merkle_vreader_cached_bytes(vr), 4);
    assert_int_equal(merkle_vreader_read(&data, &len, &b, &hit, vr, "s2", NULL), MERKLE_OK);
    assert_int_equal(hit, 1);
    assert_memory_equal(data, "bbbb", 4);
    merkle_vbuf_free(b);
    assert_int_equal(merkle_vreader_read(&data, &len, &b, &hit, vr, "s1", NULL), MERKLE_OK);
    assert_int_equal(hit, 0); /* evicted by s2 */
    merkle_vbuf_free(b);
    merkle_vreader_free(vr);
    /* duplicate names refused */
    se[1].name = "s1";
    assert_int_equal(merkle_vreader_alloc(&vr, &m, g_dir, 6, NULL), MERKLE_ERR_FORMAT);
    free(e);
    close(dirfd);
}

/* ------------------------------------------------------------------ directory root */

static void test_dirroot(void **state)
{
    (void)state;
    merkle_manifest_entry es[3];
    memset(es, 0, sizeof es);
    const char *nm[3] = { "b", "a", "ab" };
    for (int i = 0; i < 3; i++) {
        es[i].name = nm[i];
        es[i].name_len = strlen(nm[i]);
        es[i].alg = MERKLE_HASH_MD5;
        es[i].digest_len = 16;
        memset(es[i].digest, i + 1, 16);
        es[i].line = (uint64_t)i + 1;
    }
    merkle_manifest m = { 0 };
    m.entries = es;
    m.count = 3;
    uint8_t root[32];
    assert_int_equal(merkle_manifest_dirroot(root, &m, NULL), MERKLE_OK);
    assert_string_equal(m.entries[0].name, "a");
    assert_string_equal(m.entries[1].name, "ab");
    assert_string_equal(m.entries[2].name, "b");
    /* reference: leaf and node hashes by hand */
    uint8_t leaf[3][32], buf[64], n01[32], want[32];
    for (int i = 0; i < 3; i++) {
        size_t l;
        assert_int_equal(merkle_manifest_leaf_encode(buf, sizeof buf, &l, &m.entries[i]),
                         MERKLE_OK);
        assert_int_equal(l, 4 + m.entries[i].name_len + 2 + 16);
        assert_int_equal(buf[3], m.entries[i].name_len);
        assert_int_equal(buf[4 + m.entries[i].name_len], 1);
        merkle_tree_leaf_hash(leaf[i], MERKLE_HASH_SHA256, buf, l);
    }
    merkle_tree_node_hash(n01, MERKLE_HASH_SHA256, leaf[0], leaf[1]);
    merkle_tree_node_hash(want, MERKLE_HASH_SHA256, n01, leaf[2]);
    assert_memory_equal(root, want, 32);
    size_t l;
    assert_int_equal(merkle_manifest_leaf_encode(buf, 3, &l, &m.entries[0]), MERKLE_ERR_BUFFER);
    /* duplicates */
    es[2].name = "a";
    es[2].name_len = 1;
    merkle_error err;
    assert_int_equal(merkle_manifest_dirroot(root, &m, &err), MERKLE_ERR_FORMAT);
    /* empty */
    m.count = 0;
    assert_int_equal(merkle_manifest_dirroot(root, &m, NULL), MERKLE_OK);
    merkle_sha256_hash(want, "", 0);
    assert_memory_equal(root, want, 32);
}

/* ------------------------------------------------------------------ audit */

typedef struct audit_log {
    char lines[16][64];
    size_t n;
    int stages[4];
    size_t stage_files[4];
} audit_log;

static void on_audit_event(void *ctx, const merkle_audit_event *ev)
{
    audit_log *l = ctx;
    static const char *kind[] = { "?", "changed", "missing", "moved", "new", "unreadable", "walk" };
    assert_true(l->n < 16);
    snprintf(l->lines[l->n++], sizeof l->lines[0], "%s %s%s%s %d", kind[ev->kind], ev->name,
             ev->to ? " -> " : "", ev->to ? ev->to : "",
             ev->entry == SIZE_MAX ? -1 : (int)ev->entry);
}

static void on_audit_stage(void *ctx, merkle_audit_stage st, uint64_t files)
{
    audit_log *l = ctx;
    l->stages[st]++;
    l->stage_files[st] = (size_t)files;
}

/* One md5sum line for text under name. */
static void md5_line(char *out, size_t cap, const char *name, const char *text)
{
    uint8_t d[16];
    assert_int_equal(merkle_manifest_digest(d, MERKLE_HASH_MD5, 16, text, strlen(text)), MERKLE_OK);
    size_t l;
    assert_int_equal(merkle_manifest_format_line(out, cap - 1, &l, MERKLE_HASH_MD5, d, 16, name, 0),
                     MERKLE_OK);
    out[l] = 0;
}

static void test_audit(void **state)
{
    (void)state;
    char sub[300], p[512];
    path_of(sub, sizeof sub, "audit");
    assert_int_equal(mkdir(sub, 0755), 0);
    assert_int_equal(mkdir(strcat(strcpy(p, sub), "/d"), 0755), 0);
    write_file("audit/same", "same", 4);
    write_file("audit/changed", "new contents", 12);
    write_file("audit/d/renamed", "moved", 5);  /* was "gone" */
    write_file("audit/d/other", "unlisted", 8); /* new */
    /* manifest: ./same, changed, gone (moved), lost (missing), dup listing of gone */
    char text[1024] = "", line[256];
    md5_line(line, sizeof line, "./same", "same");
    strcat(text, line);
    md5_line(line, sizeof line, "changed", "old contents");
    strcat(text, line);
    md5_line(line, sizeof line, "gone", "moved");
    strcat(text, line);
    md5_line(line, sizeof line, "lost", "nowhere");
    strcat(text, line);
    write_file("audit/list.md5", text, strlen(text)); /* inside the tree: skipped below */
    merkle_manifest *mh;
    merkle_manifest_parser mp;
    merkle_manifest_parser_init(&mp, MERKLE_HASH_AUTO, 0);
    assert_int_equal(merkle_manifest_parse_alloc(&mh, &mp, text, strlen(text), 1, NULL), MERKLE_OK);
    merkle_manifest m = *mh; /* the test builds variants of it (the layout is internal) */
    assert_int_equal(m.count, 4);
    int dirfd = open(sub, O_RDONLY | O_DIRECTORY);
    assert_true(dirfd >= 0);
    struct stat st;
    assert_int_equal(stat(strcat(strcpy(p, sub), "/list.md5"), &st), 0);
    merkle_file_id skip = { (uint64_t)st.st_dev, 0, (uint64_t)st.st_ino, 0, 0, 0, 0 };
    merkle_file_id fid;
    assert_int_equal(merkle_file_id_of(&fid, p, NULL), MERKLE_OK);
    assert_int_equal(fid.dev, skip.dev);
    assert_int_equal(fid.ino_hi, 0);
    assert_int_equal(fid.ino_lo, skip.ino_lo);
    assert_int_equal(fid.regular, 1);
    assert_int_equal(fid.size, (uint64_t)strlen(text));
    assert_int_equal(fid.mtime_ns, (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec);
    assert_int_equal(fid.ctime_ns, (int64_t)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec);

    for (unsigned threads = 1; threads <= 3; threads += 2) {
        audit_log log;
        memset(&log, 0, sizeof log);
        merkle_audit_opts o = MERKLE_AUDIT_OPTS_INIT;
        o.threads = threads;
        o.skip = &skip;
        o.on_event = on_audit_event;
        o.event_ctx = &log;
        o.on_stage = on_audit_stage;
        o.progress_ctx = &log;
        merkle_audit_counts c;
        assert_int_equal(merkle_manifest_audit(&c, &m, sub, &o, NULL), MERKLE_OK);
        assert_int_equal(log.n, 4);
        assert_string_equal(log.lines[0], "changed changed 1");
        assert_string_equal(log.lines[1], "missing lost 3");
        assert_string_equal(log.lines[2], "moved gone -> d/renamed 2");
        assert_string_equal(log.lines[3], "new d/other -1");
        assert_int_equal(c.ok, 1);
        assert_int_equal(c.changed, 1);
        assert_int_equal(c.missing, 1);
        assert_int_equal(c.moved, 1);
        assert_int_equal(c.new_files, 1);
        assert_int_equal(c.unreadable, 0);
        assert_int_equal(c.walk_errors, 0);
        assert_int_equal(log.stages[MERKLE_AUDIT_STAGE_CHECK], 1);
        assert_int_equal(log.stage_files[MERKLE_AUDIT_STAGE_CHECK], 4);
        assert_int_equal(log.stages[MERKLE_AUDIT_STAGE_MOVES], 1);
        assert_int_equal(log.stage_files[MERKLE_AUDIT_STAGE_MOVES], 2); /* d/other, d/renamed */
        assert_int_equal(log.stages[MERKLE_AUDIT_STAGE_REPORT], 1);
    }
    /* Without skip the manifest itself is new; without options everything still works. */
    merkle_audit_counts c;
    assert_int_equal(merkle_manifest_audit(&c, &m, sub, NULL, NULL), MERKLE_OK);
    assert_int_equal(c.new_files, 2);
    assert_int_equal(c.moved, 1);
    /* A clean tree: only the listed files (all present), nothing new. */
    merkle_manifest one = m;
    one.count = 1;
    char sp[512];
    assert_int_equal(mkdir(strcat(strcpy(sp, sub), "/clean"), 0755), 0);
    int cfd = open(sp, O_RDONLY | O_DIRECTORY);
    char clean[512];
    strcpy(clean, sp);
    assert_true(cfd >= 0);
    assert_int_equal(symlinkat("../same", cfd, "link"), 0); /* not followed, not a file */
    write_file("audit/clean/same", "same", 4);
    assert_int_equal(merkle_manifest_audit(&c, &one, clean, NULL, NULL), MERKLE_OK);
    assert_int_equal(c.ok, 1);
    assert_int_equal(c.changed + c.missing + c.moved + c.new_files + c.unreadable, 0);
    close(cfd);

    /* Unreadable files and an unlistable directory (not as root: root reads anything). */
    if (geteuid() != 0) {
        assert_int_equal(chmod(strcat(strcpy(p, sub), "/same"), 0), 0);
        assert_int_equal(chmod(strcat(strcpy(p, sub), "/d"), 0), 0);
        audit_log log;
        memset(&log, 0, sizeof log);
        merkle_audit_opts o;
        assert_int_equal(merkle_audit_opts_init(&o, MERKLE_AUDIT_OPTS_VERSION), MERKLE_OK);
        o.skip = &skip;
        o.on_event = on_audit_event;
        o.event_ctx = &log;
        assert_int_equal(merkle_manifest_audit(&c, &m, sub, &o, NULL), MERKLE_OK);
        assert_int_equal(c.walk_errors, 1);
        assert_int_equal(c.unreadable, 1);
        assert_int_equal(c.missing, 2); /* d/ cannot be listed: no move found */
        assert_true(strncmp(log.lines[0], "walk  -1", 8) == 0);
        assert_string_equal(log.lines[1], "unreadable same 0");
        chmod(strcat(strcpy(p, sub), "/same"), 0644);
        chmod(strcat(strcpy(p, sub), "/d"), 0755);
    }

    /* Errors that root meets too: a listed name that is a directory cannot be read
    ** (EISDIR), and a tree deeper than PATH_MAX cannot be walked (ENAMETOOLONG). */
    {
        merkle_manifest_entry de = m.entries[0];
        de.name = "d";
        de.name_len = 1;
        merkle_manifest dm = { 0 };
        dm.entries = &de;
        dm.count = 1;
        char deep[512];
        assert_int_equal(mkdir(strcat(strcpy(deep, sub), "/deep"), 0755), 0);
        int fd = open(deep, O_RDONLY | O_DIRECTORY);
        char comp[201];
        memset(comp, 'x', 200);
        comp[200] = 0;
        for (int lvl = 0; lvl < 24; lvl++) { /* 24 * 201 bytes > 4096 */
            assert_int_equal(mkdirat(fd, comp, 0755), 0);
            int nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY);
            assert_true(nfd >= 0);
            close(fd);
            fd = nfd;
        }
        close(fd);
        audit_log log;
        memset(&log, 0, sizeof log);
        merkle_audit_opts o = MERKLE_AUDIT_OPTS_INIT;
        o.skip = &skip;
        o.on_event = on_audit_event;
        o.event_ctx = &log;
        assert_int_equal(merkle_manifest_audit(&c, &dm, sub, &o, NULL), MERKLE_OK);
        assert_int_equal(c.walk_errors, 1);
        assert_int_equal(c.unreadable, 1);
        assert_true(log.n >= 2);
        char want[64];
        snprintf(want, sizeof want, "walk  -1");
        assert_true(strncmp(log.lines[0], want, strlen(want)) == 0);
        snprintf(want, sizeof want, "unreadable d 0");
        assert_string_equal(log.lines[1], want);
        assert_int_equal(system(strcat(strcpy(p, "rm -rf "), deep)), 0);
    }

    /* Error paths: nothing is reported, the status says why. */
    merkle_error err;
    assert_int_equal(merkle_manifest_audit(&c, NULL, sub, NULL, &err), MERKLE_ERR_ARG);
    assert_int_equal(err.status, MERKLE_ERR_ARG);
    assert_int_equal(merkle_manifest_audit(&c, &m, NULL, NULL, &err), MERKLE_ERR_ARG);
    assert_int_equal(
        merkle_manifest_audit(&c, &m, strcat(strcpy(sp, sub), "/list.md5"), NULL, &err),
        MERKLE_ERR_IO); /* not a directory */
    assert_int_equal(err.sys_errno, ENOTDIR);
    merkle_manifest broken = { 0 };
    broken.count = 2; /* entries NULL */
    assert_int_equal(merkle_manifest_audit(&c, &broken, sub, NULL, &err), MERKLE_ERR_ARG);
    merkle_audit_opts bad = MERKLE_AUDIT_OPTS_INIT;
    bad.version = MERKLE_AUDIT_OPTS_VERSION + 1;
    assert_int_equal(merkle_manifest_audit(&c, &m, sub, &bad, &err), MERKLE_ERR_ARG);
    bad.version = 0;
    assert_int_equal(merkle_manifest_audit(&c, &m, sub, &bad, &err), MERKLE_ERR_ARG);
    assert_int_equal(merkle_audit_opts_init(&bad, 0), MERKLE_ERR_ARG);
    assert_int_equal(merkle_audit_opts_init(&bad, MERKLE_AUDIT_OPTS_VERSION + 1), MERKLE_ERR_ARG);
    assert_int_equal(merkle_audit_opts_init(NULL, MERKLE_AUDIT_OPTS_VERSION), MERKLE_ERR_ARG);
    /* An empty manifest over an empty directory is clean. */
    merkle_manifest empty = { 0 };
    assert_int_equal(mkdir(strcat(strcpy(sp, sub), "/empty"), 0755), 0);
    int efd = open(sp, O_RDONLY | O_DIRECTORY);
    assert_int_equal(merkle_manifest_audit(&c, &empty, sp, NULL, &err), MERKLE_OK);
    assert_int_equal(c.ok + c.new_files, 0);
    close(efd);
    close(dirfd);
    merkle_manifest_free(mh);
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verified_read),
        cmocka_unit_test(test_dirroot),
        cmocka_unit_test(test_audit),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
