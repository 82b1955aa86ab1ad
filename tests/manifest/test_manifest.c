/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Manifest layer: line parsing (coreutils rules), formatting round trips, file digests
** against OpenSSL, the check engine (threads, MD5 multi-buffer path vs EVP), the validation
** cache rules and file format. Verified reads, the directory root and audit:
** test_manifest_fs.c.
*/
#include "manifest_fixture.h"

/* ------------------------------------------------------------------ parsing */

static merkle_status parse(merkle_manifest_entry *e, merkle_manifest_parser *p, const char *line)
{
    static char buf[1024];
    size_t n = strlen(line);
    memcpy(buf, line, n + 1);
    return merkle_manifest_parse_line(e, p, buf, n, 7, NULL);
}

static void test_parse_lines(void **state)
{
    (void)state;
    merkle_manifest_parser p;
    merkle_manifest_entry e;
    const char *md5_empty = "d41d8cd98f00b204e9800998ecf8427e";
    char line[256];

    merkle_manifest_parser_init(&p, MERKLE_HASH_MD5, 0);
    snprintf(line, sizeof line, "%s  a b", md5_empty);
    assert_int_equal(parse(&e, &p, line), MERKLE_OK);
    assert_string_equal(e.name, "a b");
    assert_int_equal(e.digest_len, 16);
    assert_int_equal(e.binary, 0);
    assert_int_equal(e.line, 7);
    tu_assert_hex(e.digest, 16, md5_empty, "digest");

    snprintf(line, sizeof line, "%s *bin", md5_empty);
    assert_int_equal(parse(&e, &p, line), MERKLE_OK);
    assert_string_equal(e.name, "bin");
    assert_int_equal(e.binary, 1);

    snprintf(line, sizeof line, "\\%s  a\\\\b\\nc\\r", md5_empty);
    assert_int_equal(parse(&e, &p, line), MERKLE_OK);
    assert_string_equal(e.name, "a\\b\nc\r");
    assert_int_equal(e.name_len, 6);

    snprintf(line, sizeof line, "\\%s  bad\\x", md5_empty);
    assert_int_equal(parse(&e, &p, line), MERKLE_ERR_FORMAT);
    snprintf(line, sizeof line, "\\%s  trailing\\", md5_empty);
    assert_int_equal(parse(&e, &p, line), MERKLE_ERR_FORMAT);

    snprintf(line, sizeof line, "MD5 (x) y) = %s", md5_empty);
    assert_int_equal(parse(&e, &p, line), MERKLE_OK);
    assert_string_equal(e.name, "x) y");
    assert_int_equal(e.bsd, 1);
    snprintf(line, sizeof line, "MD5(x)=%s", "D41D8CD98F00B204E9800998ECF8427E");
    assert_int_equal(parse(&e, &p, line), MERKLE_OK);
    tu_assert_hex(e.digest, 16, md5_empty, "upper-case hex");
    snprintf(line, sizeof line, "MD5 (x) = %s ", md5_empty); /* trailing space */
    assert_int_equal(parse(&e, &p, line), MERKLE_ERR_FORMAT);
    snprintf(line, sizeof line, "SHA1 (x) = %s", md5_empty); /* wrong tag for md5 */
    assert_int_equal(parse(&e, &p, line), MERKLE_ERR_FORMAT);

    /* comments, empty and CR-only lines are skipped */
    assert_int_equal(parse(&e, &p, "# comment"), MERKLE_OK);
    assert_null(e.name);
    assert_int_equal(parse(&e, &p, ""), MERKLE_OK);
    assert_null(e.name);
    assert_int_equal(parse(&e, &p, "\r"), MERKLE_OK);
    assert_null(e.name);
    assert_int_equal(parse(&e, &p, "short"), MERKLE_ERR_FORMAT);
    assert_int_equal(parse(&e, &p, "zz1d8cd98f00b204e9800998ecf8427e  x"), MERKLE_ERR_FORMAT);

    /* "HEX NAME" (one space) is only accepted while no "HEX  NAME" line has been seen */
    merkle_manifest_parser_init(&p, MERKLE_HASH_MD5, 0);
    snprintf(line, sizeof line, "%s rev", md5_empty);
    assert_int_equal(parse(&e, &p, line), MERKLE_OK);
    assert_string_equal(e.name, "rev");
    snprintf(line, sizeof line, "%s  two", md5_empty);
    assert_int_equal(parse(&e, &p, line), MERKLE_OK);
    assert_string_equal(e.name, " two"); /* reversed mode: the rest is the name */
    merkle_manifest_parser_init(&p, MERKLE_HASH_MD5, 0);
    snprintf(line, sizeof line, "%s  two", md5_empty);
    assert_int_equal(parse(&e, &p, line), MERKLE_OK);
    snprintf(line, sizeof line, "%s rev", md5_empty);
    assert_int_equal(parse(&e, &p, line), MERKLE_ERR_FORMAT);

    /* stdin manifests reject the name "-" */
    merkle_manifest_parser_init(&p, MERKLE_HASH_MD5, 0);
    p.reject_dash = 1;
    snprintf(line, sizeof line, "%s  -", md5_empty);
    assert_int_equal(parse(&e, &p, line), MERKLE_ERR_FORMAT);

    /* BLAKE2b: tag lengths, untagged any even length */
    merkle_manifest_parser_init(&p, MERKLE_HASH_BLAKE2B, 0);
    assert_int_equal(parse(&e, &p, "BLAKE2b-16 (x) = abcd"), MERKLE_OK);
    assert_int_equal(e.digest_len, 2);
    assert_int_equal(parse(&e, &p, "BLAKE2b-0x10 (x) = abcd"), MERKLE_OK);
    assert_int_equal(parse(&e, &p, "BLAKE2b-12 (x) = abc"), MERKLE_ERR_FORMAT);
    assert_int_equal(parse(&e, &p, "BLAKE2b-520 (x) = abcd"), MERKLE_ERR_FORMAT);
    assert_int_equal(parse(&e, &p, "BLAKE2b (x) = abcd"), MERKLE_ERR_FORMAT);
    assert_int_equal(parse(&e, &p, "abcd  x"), MERKLE_OK);
    assert_int_equal(e.digest_len, 2);
    assert_int_equal(parse(&e, &p, "abc  x"), MERKLE_ERR_FORMAT);

    /* auto-detection */
    merkle_manifest_parser_init(&p, MERKLE_HASH_AUTO, 0);
    snprintf(line, sizeof line, "%s%s  x", md5_empty, md5_empty);
    assert_int_equal(parse(&e, &p, line), MERKLE_OK);
    assert_int_equal(e.alg, MERKLE_HASH_SHA256);
    snprintf(line, sizeof line, "%s12345678  x", md5_empty);
    assert_int_equal(parse(&e, &p, line), MERKLE_OK);
    assert_int_equal(e.alg, MERKLE_HASH_SHA1);
    assert_int_equal(parse(&e, &p, "BLAKE2b-8 (y) = ab"), MERKLE_OK);
    assert_int_equal(e.alg, MERKLE_HASH_BLAKE2B);
    assert_int_equal(parse(&e, &p, "abcdef  x"), MERKLE_ERR_FORMAT);

    merkle_error err;
    memcpy(line, "bad", 4);
    assert_int_equal(merkle_manifest_parse_line(&e, &p, line, 3, 42, &err), MERKLE_ERR_FORMAT);
    assert_int_equal(err.line, 42);
    assert_int_equal(merkle_manifest_parse_line(NULL, &p, line, 3, 1, NULL), MERKLE_ERR_ARG);
}

static void test_format_round_trip(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 99);
    const char alphabet[] = "ab \\\n\r*()=-#\t\x01\xff";
    for (int it = 0; it < 3000; it++) {
        char name[40];
        size_t nl = 1 + (size_t)tu_rng_below(&r, sizeof name - 1);
        for (size_t k = 0; k < nl; k++) name[k] = alphabet[tu_rng_below(&r, sizeof alphabet - 1)];
        name[nl] = '\0';
        merkle_hash_alg alg = (merkle_hash_alg)(1 + tu_rng_below(&r, 5));
        size_t dl = alg == MERKLE_HASH_BLAKE2B ? 1 + (size_t)tu_rng_below(&r, 64)
                                               : merkle_hash_alg_len(alg);
        uint8_t dig[64];
        tu_rng_fill(&r, dig, dl);
        unsigned flags = (unsigned)tu_rng_below(&r, 3); /* 0, TAG, BINARY */
        char line[400];
        size_t len;
        assert_int_equal(merkle_manifest_format_line(line, 5, &len, alg, dig, dl, name, flags),
                         MERKLE_ERR_BUFFER);
        assert_int_equal(
            merkle_manifest_format_line(line, sizeof line, &len, alg, dig, dl, name, flags),
            MERKLE_OK);
        assert_true(len < sizeof line);
        assert_int_equal(line[len - 1], '\n');
        merkle_manifest_parser p;
        merkle_manifest_parser_init(&p, alg, 0);
        merkle_manifest_entry e;
        /* A line that ends in CR loses it to the CR stripping only if unescaped: names with CR
        ** are always escaped, so the round trip is exact. */
        assert_int_equal(merkle_manifest_parse_line(&e, &p, line, len - 1, 1, NULL), MERKLE_OK);
        assert_non_null(e.name);
        assert_string_equal(e.name, name);
        assert_int_equal(e.digest_len, dl);
        assert_memory_equal(e.digest, dig, dl);
        assert_int_equal(e.binary, flags == MERKLE_MANIFEST_BINARY);
    }
    /* exact coreutils shapes */
    uint8_t d[16] = { 0 };
    char line[200];
    size_t len;
    assert_int_equal(merkle_manifest_format_line(line, sizeof line, &len, MERKLE_HASH_MD5, d, 16,
                                                 "a\nb", MERKLE_MANIFEST_TAG),
                     MERKLE_OK);
    assert_memory_equal(line, "\\MD5 (a\\nb) = 00000000000000000000000000000000\n", len);
    assert_int_equal(merkle_manifest_format_line(line, sizeof line, &len, MERKLE_HASH_BLAKE2B, d, 2,
                                                 "x", MERKLE_MANIFEST_TAG | MERKLE_MANIFEST_ZERO),
                     MERKLE_OK);
    assert_memory_equal(line, "BLAKE2b-16 (x) = 0000\0", len);
    assert_int_equal(
        merkle_manifest_format_line(line, sizeof line, &len, MERKLE_HASH_MD5, d, 15, "x", 0),
        MERKLE_ERR_ARG);
}

static void test_parse_alloc(void **state)
{
    (void)state;
    const char text[] = "d41d8cd98f00b204e9800998ecf8427e  a\n"
                        "junk\n"
                        "# c\n"
                        "\n"
                        "MD5 (b) = d41d8cd98f00b204e9800998ecf8427e\r\n"
                        "d41d8cd98f00b204e9800998ecf8427e  c"; /* no final newline */
    merkle_manifest_parser p;
    merkle_manifest_parser_init(&p, MERKLE_HASH_MD5, 0);
    merkle_manifest *m;
    assert_int_equal(merkle_manifest_parse_alloc(&m, &p, text, sizeof text - 1, 1, NULL),
                     MERKLE_OK);
    assert_int_equal(merkle_manifest_count(m), 3);
    const merkle_manifest_entry *e = merkle_manifest_entries(m);
    assert_string_equal(e[0].name, "a");
    assert_string_equal(e[1].name, "b");
    assert_int_equal(e[1].line, 5);
    assert_string_equal(e[2].name, "c");
    size_t nbad = 0;
    const uint64_t *bad = merkle_manifest_bad_lines(m, &nbad);
    assert_int_equal(nbad, 1);
    assert_int_equal(bad[0], 2);
    assert_int_equal(merkle_manifest_lines(m), 6);
    merkle_manifest_free(m);
    merkle_manifest_free(NULL); /* a no-op */
    /* A later window numbers its lines from first_line. */
    merkle_manifest_parser_init(&p, MERKLE_HASH_MD5, 0);
    assert_int_equal(merkle_manifest_parse_alloc(&m, &p, text, sizeof text - 1, 101, NULL),
                     MERKLE_OK);
    e = merkle_manifest_entries(m);
    assert_int_equal(e[0].line, 101);
    assert_int_equal(e[1].line, 105);
    assert_int_equal(merkle_manifest_bad_lines(m, NULL)[0], 102);
    assert_int_equal(merkle_manifest_lines(m), 6);
    merkle_manifest_free(m);
    merkle_error err;
    m = (merkle_manifest *)1;
    assert_int_equal(merkle_manifest_parse_alloc(&m, &p, text, 1, 0, &err), MERKLE_ERR_ARG);
    assert_null(m);
    assert_int_equal(merkle_manifest_parse_alloc(&m, NULL, text, 1, 1, &err), MERKLE_ERR_ARG);
    assert_int_equal(merkle_manifest_parse_alloc(NULL, &p, text, 1, 1, &err), MERKLE_ERR_ARG);
    assert_int_equal(merkle_manifest_count(NULL), 0);
    /* unknown format flag bits are refused */
    char line[200];
    size_t ll;
    uint8_t dg[16] = { 0 };
    assert_int_equal(merkle_manifest_format_line(line, sizeof line, &ll, MERKLE_HASH_MD5, dg, 16,
                                                 "x", MERKLE_MANIFEST_TAG),
                     MERKLE_OK);
    assert_int_equal(
        merkle_manifest_format_line(line, sizeof line, &ll, MERKLE_HASH_MD5, dg, 16, "x", 8u),
        MERKLE_ERR_ARG);
    /* tree digests are not checksum-list digests */
    assert_int_equal(
        merkle_manifest_format_line(line, sizeof line, &ll, MERKLE_HASH_KECCAK256, dg, 16, "x", 0),
        MERKLE_ERR_ARG);
}

/* ------------------------------------------------------------------ digests and check */

static void test_digests_vs_openssl(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 5);
    static uint8_t buf[300000];
    tu_rng_fill(&r, buf, sizeof buf);
    const size_t lens[] = { 0, 1, 55, 56, 64, 1000, 65536, 65537, 300000 };
    for (size_t k = 0; k < sizeof lens / sizeof *lens; k++) {
        uint8_t a[64], b[64];
        const EVP_MD *mds[] = { EVP_md5(), EVP_sha1(), EVP_sha256(), EVP_sha512(),
                                EVP_blake2b512() };
        for (int alg = 1; alg <= 5; alg++) {
            assert_int_equal(merkle_manifest_digest(a, (merkle_hash_alg)alg,
                                                    merkle_hash_alg_len((merkle_hash_alg)alg), buf,
                                                    lens[k]),
                             MERKLE_OK);
            evp(b, mds[alg - 1], buf, lens[k]);
            assert_memory_equal(a, b, merkle_hash_alg_len((merkle_hash_alg)alg));
        }
        write_file("d", buf, lens[k]);
        char p[512];
        path_of(p, sizeof p, "d");
        uint64_t size;
        assert_int_equal(merkle_manifest_digest_file(a, MERKLE_HASH_SHA512, 64, p, &size, NULL),
                         MERKLE_OK);
        evp(b, EVP_sha512(), buf, lens[k]);
        assert_memory_equal(a, b, 64);
        assert_int_equal(size, lens[k]);
    }
    uint8_t o[64];
    assert_int_equal(merkle_manifest_digest(o, MERKLE_HASH_MD5, 15, "", 0), MERKLE_ERR_ARG);
    assert_int_equal(merkle_manifest_digest(o, (merkle_hash_alg)9, 16, "", 0), MERKLE_ERR_ARG);
    merkle_hash_alg alg;
    assert_int_equal(merkle_manifest_alg_from_name(&alg, "SHA256"), MERKLE_OK);
    assert_int_equal(alg, MERKLE_HASH_SHA256);
    assert_int_equal(merkle_manifest_alg_from_name(&alg, "crc"), MERKLE_ERR_ARG);
    assert_string_equal(merkle_hash_alg_name(MERKLE_HASH_BLAKE2B), "blake2b");
    assert_null(merkle_hash_alg_name(MERKLE_HASH_AUTO));
}

static void test_check_engine(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 11);
    enum { N = 90 };
    static char names[N][16];
    int dirfd = open(g_dir, O_RDONLY | O_DIRECTORY);
    assert_true(dirfd >= 0);
    for (int alg = 1; alg <= 5; alg++) {
        merkle_manifest_entry *e = make_set(&r, N, (merkle_hash_alg)alg, names);
        /* damage: mismatch, missing, directory */
        e[3].digest[0] ^= 1;
        e[4].name = "nonexistent";
        e[5].name = ".";
        merkle_check_result res[N];
        for (unsigned t = 0; t <= 3; t++) {
            merkle_check_opts o;
            merkle_check_opts_init(&o, MERKLE_CHECK_OPTS_VERSION);
            o.dir = g_dir;
            o.threads = t;
            assert_int_equal(merkle_manifest_check(res, e, N, &o, NULL), MERKLE_OK);
            for (size_t i = 0; i < N; i++) {
                if (i == 3)
                    assert_int_equal(res[i].status, MERKLE_CHECK_MISMATCH);
                else if (i == 4)
                    assert_int_equal(res[i].status, MERKLE_CHECK_MISSING);
                else if (i == 5) {
                    assert_int_equal(res[i].status, MERKLE_CHECK_ERROR);
                    assert_int_equal(res[i].sys_errno, EISDIR);
                } else {
                    assert_int_equal(res[i].status, MERKLE_CHECK_OK);
                    assert_memory_equal(res[i].digest, e[i].digest, e[i].digest_len);
                    assert_int_equal(res[i].from_cache, 0);
                }
            }
        }
        /* hash_files gives the same digests */
        const char *nm[N];
        for (size_t i = 0; i < N; i++) nm[i] = names[i];
        merkle_check_opts o;
        merkle_check_opts_init(&o, MERKLE_CHECK_OPTS_VERSION);
        o.dir = g_dir;
        o.threads = 2;
        assert_int_equal(merkle_manifest_hash_files(res, nm, N, (merkle_hash_alg)alg,
                                                    merkle_hash_alg_len((merkle_hash_alg)alg), &o,
                                                    NULL),
                         MERKLE_OK);
        for (size_t i = 6; i < N; i++)
            assert_memory_equal(res[i].digest, e[i].digest, e[i].digest_len);
        free(e);
    }
    merkle_check_result one;
    merkle_manifest_entry bad = { 0 };
    bad.name = "x";
    bad.alg = MERKLE_HASH_MD5;
    bad.digest_len = 3;
    assert_int_equal(merkle_manifest_check(&one, &bad, 1, NULL, NULL), MERKLE_ERR_ARG);
    assert_int_equal(merkle_manifest_check(NULL, NULL, 0, NULL, NULL), MERKLE_OK);
    close(dirfd);
}

/* ------------------------------------------------------------------ cache */

static void test_cache_rules_and_file(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 12);
    enum { N = 40 };
    static char names[N][16];
    int dirfd = open(g_dir, O_RDONLY | O_DIRECTORY);
    merkle_manifest_entry *e = make_set(&r, N, MERKLE_HASH_MD5, names);
    for (size_t i = 0; i < N; i++) age_file(names[i]);
    struct timespec nap = { 0, 30000000 };
    nanosleep(&nap, NULL); /* ctimes strictly older than the first check */
    merkle_vcache *c;
    assert_int_equal(merkle_vcache_alloc(&c, NULL, 0), MERKLE_OK);
    merkle_check_opts o;
    merkle_check_opts_init(&o, MERKLE_CHECK_OPTS_VERSION);
    o.dir = g_dir;
    o.cache = c;
    o.threads = 2;
    merkle_check_result res[N];
    assert_int_equal(merkle_manifest_check(res, e, N, &o, NULL), MERKLE_OK);
    for (size_t i = 0; i < N; i++) assert_int_equal(res[i].from_cache, 0);
    assert_int_equal(merkle_vcache_count(c), N);
    assert_int_equal(merkle_manifest_check(res, e, N, &o, NULL), MERKLE_OK);
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(res[i].status, MERKLE_CHECK_OK);
        assert_int_equal(res[i].from_cache, 1);
    }
    /* a different expected digest is never answered from the cache */
    e[0].digest[0] ^= 0x80;
    assert_int_equal(merkle_manifest_check(res, e, N, &o, NULL), MERKLE_OK);
    assert_int_equal(res[0].status, MERKLE_CHECK_MISMATCH);
    assert_int_equal(res[0].from_cache, 0);
    e[0].digest[0] ^= 0x80;
    /* the mismatch removed the entry: re-hashed, then cached again (it is old) */
    assert_int_equal(merkle_manifest_check(res, e, N, &o, NULL), MERKLE_OK);
    assert_int_equal(res[0].status, MERKLE_CHECK_OK);
    assert_int_equal(res[0].from_cache, 0);

    /* save / load round trip */
    char cpath[512];
    path_of(cpath, sizeof cpath, "cache.bin");
    assert_int_equal(merkle_vcache_save(c, cpath, NULL), MERKLE_OK);
    merkle_vcache *c2;
    assert_int_equal(merkle_vcache_alloc(&c2, NULL, 0), MERKLE_OK);
    size_t loaded, rejected;
    assert_int_equal(merkle_vcache_load(&loaded, &rejected, c2, cpath, NULL), MERKLE_OK);
    assert_int_equal(loaded, N);
    assert_int_equal(rejected, 0);
    o.cache = c2;
    assert_int_equal(merkle_manifest_check(res, e, N, &o, NULL), MERKLE_OK);
    for (size_t i = 0; i < N; i++) assert_int_equal(res[i].from_cache, 1);

    /* a file modified now (mtime not older than the record) is re-hashed */
    write_file(names[1], "new", 3);
    assert_int_equal(merkle_manifest_check(res, e, N, &o, NULL), MERKLE_OK);
    assert_int_equal(res[1].status, MERKLE_CHECK_MISMATCH);
    assert_int_equal(res[1].from_cache, 0);

    /* lookup rules directly */
    merkle_file_id id = { 1, 0, 2, 3, 100, 100, 1 };
    uint8_t d[16] = { 7 };
    assert_int_equal(merkle_vcache_record(c2, "direct", &id, MERKLE_HASH_MD5, d, 16, 200),
                     MERKLE_OK);
    assert_int_equal(merkle_vcache_lookup(c2, "direct", &id, MERKLE_HASH_MD5, d, 16), 1);
    merkle_file_id id2 = id;
    id2.ino_lo = 9;
    assert_int_equal(merkle_vcache_lookup(c2, "direct", &id2, MERKLE_HASH_MD5, d, 16), 0);
    id2 = id;
    id2.ctime_ns = 101;
    assert_int_equal(merkle_vcache_lookup(c2, "direct", &id2, MERKLE_HASH_MD5, d, 16), 0);
    assert_int_equal(merkle_vcache_lookup(c2, "direct", &id, MERKLE_HASH_SHA1, d, 16), 0);
    uint8_t d2[16] = { 8 };
    assert_int_equal(merkle_vcache_lookup(c2, "direct", &id, MERKLE_HASH_MD5, d2, 16), 0);
    assert_int_equal(merkle_vcache_record(c2, "racy", &id, MERKLE_HASH_MD5, d, 16, 100), MERKLE_OK);
    assert_int_equal(merkle_vcache_lookup(c2, "racy", &id, MERKLE_HASH_MD5, d, 16), 0);
    merkle_vcache_forget(c2, "direct");
    assert_int_equal(merkle_vcache_lookup(c2, "direct", &id, MERKLE_HASH_MD5, d, 16), 0);
    assert_int_equal(merkle_vcache_lookup(c2, "absent", &id, MERKLE_HASH_MD5, d, 16), 0);

    /* truncated and corrupt files load nothing */
    FILE *f = fopen(cpath, "rb");
    static uint8_t img[1 << 16];
    size_t len = fread(img, 1, sizeof img, f);
    fclose(f);
    for (size_t cut = 0; cut < len; cut += 1 + len / 50) {
        f = fopen(cpath, "wb");
        fwrite(img, 1, cut, f);
        fclose(f);
        merkle_vcache *c3;
        assert_int_equal(merkle_vcache_alloc(&c3, NULL, 0), MERKLE_OK);
        merkle_error err;
        /* shorter than the magic and its version: not a cache, refused (never replaced) */
        assert_int_equal(merkle_vcache_load(&loaded, NULL, c3, cpath, &err),
                         cut < 8 ? MERKLE_ERR_UNSAFE : MERKLE_ERR_FORMAT);
        assert_int_equal(merkle_vcache_count(c3), 0);
        merkle_vcache_free(c3);
    }
    for (size_t pos = 0; pos < len; pos += 1 + len / 97) {
        img[pos] ^= 0x20;
        f = fopen(cpath, "wb");
        fwrite(img, 1, len, f);
        fclose(f);
        img[pos] ^= 0x20;
        merkle_vcache *c3;
        assert_int_equal(merkle_vcache_alloc(&c3, NULL, 0), MERKLE_OK);
        assert_int_equal(merkle_vcache_load(&loaded, NULL, c3, cpath, NULL),
                         pos < 8 ? MERKLE_ERR_UNSAFE : MERKLE_ERR_FORMAT);
        assert_int_equal(merkle_vcache_count(c3), 0);
        /* a save never writes over what is not a cache; a corrupt cache is replaced */
        merkle_vcache_record(c3, "x", &id, MERKLE_HASH_MD5, d, 16, 200);
        assert_int_equal(merkle_vcache_save(c3, cpath, NULL),
                         pos < 8 ? MERKLE_ERR_UNSAFE : MERKLE_OK);
        merkle_vcache_free(c3);
    }
    /* missing file: fine, nothing loaded */
    char missing[512];
    path_of(missing, sizeof missing, "no-such-cache");
    assert_int_equal(merkle_vcache_load(&loaded, NULL, c2, missing, NULL), MERKLE_OK);
    assert_int_equal(loaded, 0);
    /* a symbolic link is refused, by load and by save */
    char lpath[512];
    path_of(lpath, sizeof lpath, "cache.link");
    assert_int_equal(symlink(cpath, lpath), 0);
    assert_int_equal(merkle_vcache_load(&loaded, NULL, c2, lpath, NULL), MERKLE_ERR_UNSAFE);
    merkle_vcache_record(c2, "y", &id, MERKLE_HASH_MD5, d, 16, 200);
    assert_int_equal(merkle_vcache_save(c2, lpath, NULL), MERKLE_ERR_UNSAFE);
    struct stat lst;
    assert_int_equal(lstat(lpath, &lst), 0);
    assert_true(S_ISLNK(lst.st_mode));
    unlink(lpath);
    /* unwritable destination: error, nothing left behind */
    assert_int_equal(merkle_vcache_save(c2, "/nonexistent-dir/x/cache", NULL), MERKLE_ERR_IO);
    merkle_vcache_free(c);
    merkle_vcache_free(c2);
    free(e);
    close(dirfd);
}

/* The racy-file rule with faked timestamps: a file system whose stamps are whole seconds
** (or 10 ms, ...) may keep them across a write later in the same tick, so the moment of
** verification counts only from the start of its (doubled) tick. Nanosecond stamps keep the
** plain rule. */
static void test_racy_granularity(void **state)
{
    (void)state;
    const int64_t S = 1000000000LL;
    merkle_file_id id = { 1, 0, 2, 3, 100 * S, 100 * S, 1 };
    /* verified 0.3 s after a whole-second stamp: the write may be in the same second */
    assert_int_equal(merkle__racy_safe(&id, 100 * S + 300000000), 0);
    assert_int_equal(merkle__racy_safe(&id, 101 * S + 999999999), 0); /* FAT: 2 s ticks */
    assert_int_equal(merkle__racy_safe(&id, 102 * S), 1);
    /* the same through the public lookup */
    merkle_vcache *c;
    assert_int_equal(merkle_vcache_alloc(&c, NULL, 0), MERKLE_OK);
    uint8_t d[16] = { 1 };
    assert_int_equal(
        merkle_vcache_record(c, "coarse", &id, MERKLE_HASH_MD5, d, 16, 100 * S + 500000000),
        MERKLE_OK);
    assert_int_equal(merkle_vcache_lookup(c, "coarse", &id, MERKLE_HASH_MD5, d, 16), 0);
    /* 10 ms stamps: floored to 20 ms */
    merkle_file_id ms = { 1, 0, 2, 3, 100 * S + 10000000, 100 * S + 10000000, 1 };
    assert_int_equal(merkle__racy_safe(&ms, 100 * S + 15000000), 0);
    assert_int_equal(merkle__racy_safe(&ms, 100 * S + 40000000), 1);
    /* nanosecond stamps: strictly older is enough */
    merkle_file_id ns = { 1, 0, 2, 3, 100 * S + 123456789, 100 * S + 123456789, 1 };
    assert_int_equal(merkle__racy_safe(&ns, 100 * S + 123456790), 1);
    assert_int_equal(merkle__racy_safe(&ns, 100 * S + 123456789), 0);
    /* mtime or ctime alone can make it racy */
    merkle_file_id mix = { 1, 0, 2, 3, 90 * S + 5, 100 * S + 7, 1 };
    assert_int_equal(merkle__racy_safe(&mix, 100 * S + 6), 0);
    assert_int_equal(merkle__racy_safe(&mix, 100 * S + 8), 1);
    /* negative stamps (before 1970) floor downwards */
    merkle_file_id neg = { 1, 0, 2, 3, -2 * S, -2 * S, 1 };
    assert_int_equal(merkle__racy_safe(&neg, -1 * S), 0);
    assert_int_equal(merkle__racy_safe(&neg, 0), 1);
    merkle_vcache_free(c);
}

/* Two caches saved to one file one after the other, each from its own load: the second
** save merges the first's entries; a name the second forgot stays forgotten. */
/* Options carry their layout version: unknown versions are refused, not misread. */
static void test_check_opts_version(void **state)
{
    (void)state;
    merkle_check_opts o;
    assert_int_equal(merkle_check_opts_init(&o, MERKLE_CHECK_OPTS_VERSION), MERKLE_OK);
    assert_int_equal(o.version, MERKLE_CHECK_OPTS_VERSION);
    assert_null(o.dir);
    assert_int_equal(merkle_check_opts_init(&o, 0), MERKLE_ERR_ARG);
    assert_int_equal(merkle_check_opts_init(&o, MERKLE_CHECK_OPTS_VERSION + 1), MERKLE_ERR_ARG);
    assert_int_equal(merkle_check_opts_init(NULL, MERKLE_CHECK_OPTS_VERSION), MERKLE_ERR_ARG);
    merkle_check_opts s = MERKLE_CHECK_OPTS_INIT;
    assert_int_equal(s.version, MERKLE_CHECK_OPTS_VERSION);
    assert_null(s.dir);
    merkle_check_result r;
    const char *names[1] = { "/dev/null" };
    assert_int_equal(merkle_manifest_hash_files(&r, names, 1, MERKLE_HASH_MD5, 16, &s, NULL),
                     MERKLE_OK);
    s.version = MERKLE_CHECK_OPTS_VERSION + 1;
    merkle_error err;
    assert_int_equal(merkle_manifest_hash_files(&r, names, 1, MERKLE_HASH_MD5, 16, &s, &err),
                     MERKLE_ERR_ARG);
    merkle_manifest_entry e;
    memset(&e, 0, sizeof e);
    e.name = "/dev/null";
    e.alg = MERKLE_HASH_MD5;
    e.digest_len = 16;
    assert_int_equal(merkle_manifest_check(&r, &e, 1, &s, &err), MERKLE_ERR_ARG);
    s.version = 0;
    assert_int_equal(merkle_manifest_check(&r, &e, 1, &s, &err), MERKLE_ERR_ARG);
    assert_int_equal(merkle_manifest_check(&r, &e, 1, NULL, &err), MERKLE_OK);
}

static void test_cache_merge(void **state)
{
    (void)state;
    char cpath[512];
    path_of(cpath, sizeof cpath, "merge.bin");
    unlink(cpath);
    merkle_vcache *a, *b, *r;
    assert_int_equal(merkle_vcache_alloc(&a, NULL, 0), MERKLE_OK);
    assert_int_equal(merkle_vcache_alloc(&b, NULL, 0), MERKLE_OK);
    assert_int_equal(merkle_vcache_load(NULL, NULL, a, cpath, NULL), MERKLE_OK);
    assert_int_equal(merkle_vcache_load(NULL, NULL, b, cpath, NULL), MERKLE_OK);
    merkle_file_id id = { 1, 0, 2, 3, 100, 100, 1 };
    uint8_t d[16] = { 7 };
    char name[32];
    for (int i = 0; i < 100; i++) {
        snprintf(name, sizeof name, "a%d", i);
        assert_int_equal(merkle_vcache_record(a, name, &id, MERKLE_HASH_MD5, d, 16, 200),
                         MERKLE_OK);
        snprintf(name, sizeof name, "b%d", i);
        assert_int_equal(merkle_vcache_record(b, name, &id, MERKLE_HASH_MD5, d, 16, 200),
                         MERKLE_OK);
    }
    assert_int_equal(merkle_vcache_save(a, cpath, NULL), MERKLE_OK);
    assert_int_equal(merkle_vcache_save(b, cpath, NULL), MERKLE_OK);
    assert_int_equal(merkle_vcache_count(b), 200);
    assert_int_equal(merkle_vcache_alloc(&r, NULL, 0), MERKLE_OK);
    size_t loaded;
    assert_int_equal(merkle_vcache_load(&loaded, NULL, r, cpath, NULL), MERKLE_OK);
    assert_int_equal(loaded, 200);
    assert_int_equal(merkle_vcache_lookup(r, "a0", &id, MERKLE_HASH_MD5, d, 16), 1);
    assert_int_equal(merkle_vcache_lookup(r, "b99", &id, MERKLE_HASH_MD5, d, 16), 1);
    merkle_vcache_forget(r, "a7"); /* r saw a7 fail: the other writer's copy must not return */
    /* a newer record of a name by the other writer wins over a stale loaded one */
    merkle_file_id id2 = { 1, 0, 2, 4, 150, 150, 1 };
    assert_int_equal(merkle_vcache_record(a, "b5", &id2, MERKLE_HASH_MD5, d, 16, 300), MERKLE_OK);
    assert_int_equal(merkle_vcache_save(a, cpath, NULL), MERKLE_OK);
    merkle_vcache_record(r, "z", &id, MERKLE_HASH_MD5, d, 16, 200);
    assert_int_equal(merkle_vcache_save(r, cpath, NULL), MERKLE_OK);
    assert_int_equal(merkle_vcache_lookup(r, "b5", &id2, MERKLE_HASH_MD5, d, 16), 1);
    assert_int_equal(merkle_vcache_lookup(r, "b5", &id, MERKLE_HASH_MD5, d, 16), 0);
    assert_int_equal(merkle_vcache_lookup(r, "a0", &id, MERKLE_HASH_MD5, d, 16), 1);
    assert_int_equal(merkle_vcache_lookup(r, "a7", &id, MERKLE_HASH_MD5, d, 16), 0);
    merkle_vcache_free(a);
    merkle_vcache_free(b);
    merkle_vcache_free(r);
    unlink(cpath);
}

static void test_cache_hmac(void **state)
{
    (void)state;
    char cpath[512];
    path_of(cpath, sizeof cpath, "keyed.cache");
    const uint8_t key1[32] = "0123456789abcdef0123456789abcde";
    const uint8_t key2[32] = "0123456789abcdef0123456789abcdX";
    merkle_file_id id = { 1, 0, 2, 3, 100, 100, 1 };
    uint8_t d[20] = { 1, 2, 3 };
    merkle_vcache *c;
    assert_int_equal(merkle_vcache_alloc(&c, key1, sizeof key1), MERKLE_OK);
    assert_int_equal(merkle_vcache_record(c, "a", &id, MERKLE_HASH_SHA1, d, 20, 500), MERKLE_OK);
    assert_int_equal(merkle_vcache_record(c, "b", &id, MERKLE_HASH_SHA1, d, 20, 500), MERKLE_OK);
    assert_int_equal(merkle_vcache_save(c, cpath, NULL), MERKLE_OK);
    merkle_vcache_free(c);
    size_t loaded, rejected;
    /* right key */
    assert_int_equal(merkle_vcache_alloc(&c, key1, sizeof key1), MERKLE_OK);
    assert_int_equal(merkle_vcache_load(&loaded, &rejected, c, cpath, NULL), MERKLE_OK);
    assert_int_equal(loaded, 2);
    assert_int_equal(merkle_vcache_lookup(c, "a", &id, MERKLE_HASH_SHA1, d, 20), 1);
    merkle_vcache_free(c);
    /* wrong key: every entry rejected */
    assert_int_equal(merkle_vcache_alloc(&c, key2, sizeof key2), MERKLE_OK);
    assert_int_equal(merkle_vcache_load(&loaded, &rejected, c, cpath, NULL), MERKLE_OK);
    assert_int_equal(loaded, 0);
    assert_int_equal(rejected, 2);
    assert_int_equal(merkle_vcache_lookup(c, "a", &id, MERKLE_HASH_SHA1, d, 20), 0);
    merkle_vcache_free(c);
    /* forged entry: an attacker edits the digest and recomputes the file checksum */
    FILE *f = fopen(cpath, "rb");
    static uint8_t img[4096];
    size_t len = fread(img, 1, sizeof img, f);
    fclose(f);
    /* first entry: header 24, name_len 4 + "a" 1 + 48 stat + 2 -> digest at 79 */
    img[24 + 4 + 1 + 48 + 2] ^= 0xff;
    merkle_sha256_hash(img + len - 32, img, len - 32);
    f = fopen(cpath, "wb");
    fwrite(img, 1, len, f);
    fclose(f);
    assert_int_equal(merkle_vcache_alloc(&c, key1, sizeof key1), MERKLE_OK);
    assert_int_equal(merkle_vcache_load(&loaded, &rejected, c, cpath, NULL), MERKLE_OK);
    assert_int_equal(loaded, 1);
    assert_int_equal(rejected, 1);
    merkle_vcache_free(c);
    /* without a key the forgery is accepted: that is the documented threat model */
    assert_int_equal(merkle_vcache_alloc(&c, NULL, 0), MERKLE_OK);
    assert_int_equal(merkle_vcache_load(&loaded, &rejected, c, cpath, NULL), MERKLE_OK);
    assert_int_equal(loaded, 2);
    merkle_vcache_free(c);
    /* The stored MAC is HMAC-SHA-256(key, "merkle-vcache-v1" || record), computed here with
    ** libsodium (which wrote the MACs of earlier versions) for keys shorter than, equal to
    ** and longer than a SHA-256 block. */
    static const size_t klens[] = { 1, 31, 64, 65, 200 };
    for (size_t t = 0; t < sizeof klens / sizeof klens[0]; t++) {
        uint8_t key[200];
        for (size_t i = 0; i < klens[t]; i++) key[i] = (uint8_t)(i * 7 + t);
        assert_int_equal(merkle_vcache_alloc(&c, key, klens[t]), MERKLE_OK);
        assert_int_equal(merkle_vcache_record(c, "a", &id, MERKLE_HASH_SHA1, d, 20, 500),
                         MERKLE_OK);
        assert_int_equal(merkle_vcache_save(c, cpath, NULL), MERKLE_OK);
        merkle_vcache_free(c);
        f = fopen(cpath, "rb");
        len = fread(img, 1, sizeof img, f);
        fclose(f);
        const size_t rec = 24, rlen = 4 + 1 + 48 + 2 + 20; /* then the MAC, then the checksum */
        assert_int_equal(len, rec + rlen + 32 + 32);
        crypto_auth_hmacsha256_state st;
        uint8_t want[32];
        crypto_auth_hmacsha256_init(&st, key, klens[t]);
        crypto_auth_hmacsha256_update(&st, (const unsigned char *)"merkle-vcache-v1", 16);
        crypto_auth_hmacsha256_update(&st, img + rec, rlen);
        crypto_auth_hmacsha256_final(&st, want);
        assert_memory_equal(img + rec + rlen, want, 32);
    }
}

/* A cache file made by hand: count records of name "x", digests d[k] (MD5), and the file
** checksum. */
static void write_dup_cache(const char *path, const uint8_t d[][16], size_t count)
{
    static uint8_t img[1024];
    uint8_t *p = img;
    memcpy(p, "MRKLVC01", 8);
    p += 8;
    memset(p, 0, 8); /* flags, zero */
    p += 8;
    for (int b = 0; b < 8; b++) *p++ = (uint8_t)(count >> (8 * b));
    for (size_t k = 0; k < count; k++) {
        const uint64_t f[6] = { 1, 2, 3, 100, 100, 500 }; /* dev ino size mtime ctime verified */
        *p++ = 1;
        *p++ = 0;
        *p++ = 0;
        *p++ = 0;
        *p++ = 'x';
        for (int w = 0; w < 6; w++)
            for (int b = 0; b < 8; b++) *p++ = (uint8_t)(f[w] >> (8 * b));
        *p++ = MERKLE_HASH_MD5;
        *p++ = 16;
        memcpy(p, d[k], 16);
        p += 16;
    }
    merkle_sha256_hash(p, img, (size_t)(p - img));
    p += 32;
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(img, 1, (size_t)(p - img), f), (size_t)(p - img));
    fclose(f);
}

/* The cache pass of merkle_manifest_check: files in subdirectories (several probe batches and
** chunks), every thread count, a manifest in another order than the cache, a changed and a
** deleted file; entries replaced by ones of another digest length; a name twice in a file. */
static void test_cache_pass(void **state)
{
    (void)state;
    enum { N = 700 };
    tu_rng r;
    tu_rng_seed(&r, 13);
    char p[512];
    path_of(p, sizeof p, "cp");
    assert_int_equal(mkdir(p, 0755), 0);
    for (int d = 0; d < 4; d++) {
        char sub[32];
        snprintf(sub, sizeof sub, "cp/d%d", d);
        path_of(p, sizeof p, sub);
        assert_int_equal(mkdir(p, 0755), 0);
    }
    static char names[N][24];
    static uint8_t content[N][300];
    size_t lens[N];
    merkle_manifest_entry *e = calloc(N, sizeof *e);
    merkle_manifest_entry *rev = calloc(N, sizeof *rev);
    assert_non_null(e);
    assert_non_null(rev);
    for (size_t i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "cp/d%zu/g%03zu", i / 175, i);
        lens[i] = (size_t)tu_rng_below(&r, 300);
        tu_rng_fill(&r, content[i], lens[i]);
        write_file(names[i], content[i], lens[i]);
        age_file(names[i]);
        e[i].name = names[i];
        e[i].name_len = strlen(names[i]);
        e[i].alg = i % 3 ? MERKLE_HASH_MD5 : MERKLE_HASH_SHA256;
        e[i].digest_len = (uint32_t)merkle_hash_alg_len(e[i].alg);
        assert_int_equal(
            merkle_manifest_digest(e[i].digest, e[i].alg, e[i].digest_len, content[i], lens[i]),
            MERKLE_OK);
        e[i].line = i + 1;
    }
    for (size_t i = 0; i < N; i++) rev[i] = e[N - 1 - i];
    struct timespec nap = { 0, 30000000 };
    nanosleep(&nap, NULL);
    int dirfd = open(g_dir, O_RDONLY | O_DIRECTORY);
    merkle_vcache *c;
    assert_int_equal(merkle_vcache_alloc(&c, NULL, 0), MERKLE_OK);
    merkle_check_opts o;
    merkle_check_opts_init(&o, MERKLE_CHECK_OPTS_VERSION);
    o.dir = g_dir;
    o.cache = c;
    o.threads = 1;
    static merkle_check_result res[N];
    assert_int_equal(merkle_manifest_check(res, e, N, &o, NULL), MERKLE_OK);
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(res[i].status, MERKLE_CHECK_OK);
        assert_int_equal(res[i].from_cache, 0);
        assert_int_equal(res[i].size, lens[i]);
    }
    assert_int_equal(merkle_vcache_count(c), N);
    for (unsigned t = 0; t <= 3; t++) {
        o.threads = t;
        assert_int_equal(merkle_manifest_check(res, e, N, &o, NULL), MERKLE_OK);
        for (size_t i = 0; i < N; i++) {
            assert_int_equal(res[i].status, MERKLE_CHECK_OK);
            assert_int_equal(res[i].from_cache, 1);
            assert_int_equal(res[i].size, 0);
            assert_memory_equal(res[i].digest, e[i].digest, e[i].digest_len);
        }
        /* the other order: found through the table */
        assert_int_equal(merkle_manifest_check(res, rev, N, &o, NULL), MERKLE_OK);
        for (size_t i = 0; i < N; i++) {
            assert_int_equal(res[i].status, MERKLE_CHECK_OK);
            assert_int_equal(res[i].from_cache, 1);
        }
    }
    /* a changed file (new content, stat changed now) and a deleted one */
    write_file(names[10], "changed", 7);
    path_of(p, sizeof p, names[500]);
    assert_int_equal(unlink(p), 0);
    o.threads = 2;
    assert_int_equal(merkle_manifest_check(res, e, N, &o, NULL), MERKLE_OK);
    for (size_t i = 0; i < N; i++) {
        if (i == 10) {
            assert_int_equal(res[i].status, MERKLE_CHECK_MISMATCH);
            assert_int_equal(res[i].from_cache, 0);
            assert_int_equal(res[i].size, 7);
        } else if (i == 500) {
            assert_int_equal(res[i].status, MERKLE_CHECK_MISSING);
            assert_int_equal(res[i].sys_errno, ENOENT);
        } else {
            assert_int_equal(res[i].status, MERKLE_CHECK_OK);
            assert_int_equal(res[i].from_cache, 1);
        }
    }
    assert_int_equal(merkle_vcache_count(c), N - 2);
    /* the same after a save and a load, on three threads */
    char cpath[512];
    path_of(cpath, sizeof cpath, "cp.cache");
    assert_int_equal(merkle_vcache_save(c, cpath, NULL), MERKLE_OK);
    merkle_vcache *c2;
    assert_int_equal(merkle_vcache_alloc(&c2, NULL, 0), MERKLE_OK);
    size_t loaded;
    assert_int_equal(merkle_vcache_load(&loaded, NULL, c2, cpath, NULL), MERKLE_OK);
    assert_int_equal(loaded, N - 2);
    o.cache = c2;
    o.threads = 3;
    assert_int_equal(merkle_manifest_check(res, e, N, &o, NULL), MERKLE_OK);
    for (size_t i = 0; i < N; i++) {
        if (i == 10 || i == 500)
            assert_int_not_equal(res[i].status, MERKLE_CHECK_OK);
        else
            assert_int_equal(res[i].from_cache, 1);
    }

    /* an entry replaced by one of another digest length, before and after a save */
    merkle_file_id id = { 1, 0, 2, 3, 100, 100, 1 };
    uint8_t d64[64], d32[32];
    memset(d64, 0x64, sizeof d64);
    memset(d32, 0x32, sizeof d32);
    for (int round = 0; round < 2; round++) {
        assert_int_equal(merkle_vcache_record(c2, "len", &id, MERKLE_HASH_BLAKE2B, d64, 64, 500),
                         MERKLE_OK);
        assert_int_equal(merkle_vcache_lookup(c2, "len", &id, MERKLE_HASH_BLAKE2B, d64, 64), 1);
        assert_int_equal(merkle_vcache_record(c2, "len", &id, MERKLE_HASH_BLAKE2B, d32, 32, 500),
                         MERKLE_OK);
        assert_int_equal(merkle_vcache_lookup(c2, "len", &id, MERKLE_HASH_BLAKE2B, d64, 64), 0);
        assert_int_equal(merkle_vcache_lookup(c2, "len", &id, MERKLE_HASH_BLAKE2B, d32, 32), 1);
        assert_int_equal(merkle_vcache_count(c2), N - 1);
        assert_int_equal(merkle_vcache_save(c2, cpath, NULL), MERKLE_OK);
        merkle_vcache_free(c2);
        assert_int_equal(merkle_vcache_alloc(&c2, NULL, 0), MERKLE_OK);
        assert_int_equal(merkle_vcache_load(&loaded, NULL, c2, cpath, NULL), MERKLE_OK);
        assert_int_equal(loaded, N - 1);
        assert_int_equal(merkle_vcache_lookup(c2, "len", &id, MERKLE_HASH_BLAKE2B, d32, 32), 1);
    }
    assert_int_equal(merkle_vcache_record(c2, "", &id, MERKLE_HASH_MD5, d32, 16, 500),
                     MERKLE_ERR_ARG);

    /* a name twice in a file: the later entry is found, and forget drops both */
    const uint8_t dd[2][16] = { { 0xaa }, { 0xbb } };
    write_dup_cache(cpath, dd, 2);
    merkle_vcache *c3;
    assert_int_equal(merkle_vcache_alloc(&c3, NULL, 0), MERKLE_OK);
    assert_int_equal(merkle_vcache_load(&loaded, NULL, c3, cpath, NULL), MERKLE_OK);
    assert_int_equal(loaded, 2);
    assert_int_equal(merkle_vcache_lookup(c3, "x", &id, MERKLE_HASH_MD5, dd[1], 16), 1);
    merkle_vcache_forget(c3, "x");
    assert_int_equal(merkle_vcache_lookup(c3, "x", &id, MERKLE_HASH_MD5, dd[0], 16), 0);
    assert_int_equal(merkle_vcache_lookup(c3, "x", &id, MERKLE_HASH_MD5, dd[1], 16), 0);
    assert_int_equal(merkle_vcache_count(c3), 0);
    merkle_vcache_free(c3);

    merkle_vcache_free(c);
    merkle_vcache_free(c2);
    free(e);
    free(rev);
    close(dirfd);
}

/* A cache file larger than the reader's first step (1 MiB) loads whole; one whose entries stop
** being entries is not read on, whatever its header's count says (issue 23 item 5: a sparse
** file of gigabytes behind a forged count was read whole). */
static void test_cache_large_and_forged(void **state)
{
    (void)state;
    enum { N = 30000 };
    merkle_vcache *c;
    assert_int_equal(merkle_vcache_alloc(&c, NULL, 0), MERKLE_OK);
    merkle_file_id id = { 1, 0, 2, 3, 100, 100, 1 };
    uint8_t d[16] = { 7 };
    char name[128];
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "dir/sub/%08d-a-long-enough-file-name-for-the-test.dat", i);
        d[1] = (uint8_t)i;
        assert_int_equal(merkle_vcache_record(c, name, &id, MERKLE_HASH_MD5, d, 16, 200),
                         MERKLE_OK);
    }
    char longname[4097];
    memset(longname, 'n', sizeof longname - 1);
    longname[4096] = 0; /* 4,096 bytes: longer than any name a check opens */
    assert_int_equal(merkle_vcache_record(c, longname, &id, MERKLE_HASH_MD5, d, 16, 200),
                     MERKLE_ERR_ARG);
    longname[4095] = 0;
    assert_int_equal(merkle_vcache_record(c, longname, &id, MERKLE_HASH_MD5, d, 16, 200),
                     MERKLE_OK);
    char cpath[512];
    path_of(cpath, sizeof cpath, "large.cache");
    unlink(cpath);
    assert_int_equal(merkle_vcache_save(c, cpath, NULL), MERKLE_OK);
    merkle_vcache_free(c);
    struct stat st;
    assert_int_equal(stat(cpath, &st), 0);
    assert_true(st.st_size > 3 * (1 << 20)); /* read in three growing steps at least */
    merkle_vcache *c2;
    assert_int_equal(merkle_vcache_alloc(&c2, NULL, 0), MERKLE_OK);
    size_t loaded = 0, rejected = 9;
    assert_int_equal(merkle_vcache_load(&loaded, &rejected, c2, cpath, NULL), MERKLE_OK);
    assert_int_equal(loaded, N + 1);
    assert_int_equal(rejected, 0);
    for (int i = 0; i < N; i += 997) {
        snprintf(name, sizeof name, "dir/sub/%08d-a-long-enough-file-name-for-the-test.dat", i);
        d[1] = (uint8_t)i;
        assert_int_equal(merkle_vcache_lookup(c2, name, &id, MERKLE_HASH_MD5, d, 16), 1);
    }
    d[1] = (uint8_t)(N - 1); /* as it was when longname was recorded */
    assert_int_equal(merkle_vcache_lookup(c2, longname, &id, MERKLE_HASH_MD5, d, 16), 1);
    merkle_vcache_free(c2);

    /* The same header with a count of 2^24 (so a size bound on the count allows 70 GB), then
    ** 2 MiB of the real entries, then zeros to 256 MiB (sparse): refused at the first bad
    ** entry, a few MiB into the file, not read whole. */
    int fd = open(cpath, O_RDWR);
    assert_true(fd >= 0);
    uint8_t cnt[8] = { 0, 0, 0, 1, 0, 0, 0, 0 };
    assert_int_equal(pwrite(fd, cnt, 8, 16), 8);
    assert_int_equal(ftruncate(fd, 2 << 20), 0);
    assert_int_equal(ftruncate(fd, 256 << 20), 0);
    close(fd);
    merkle_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(merkle_vcache_alloc(&c2, NULL, 0), MERKLE_OK);
    assert_int_equal(merkle_vcache_load(&loaded, NULL, c2, cpath, &err), MERKLE_ERR_FORMAT);
    assert_non_null(strstr(err.message, "bad entry"));
    assert_int_equal(merkle_vcache_count(c2), 0);
    /* a corrupt cache (not another file) is still replaced by a save */
    assert_int_equal(merkle_vcache_record(c2, "x", &id, MERKLE_HASH_MD5, d, 16, 200), MERKLE_OK);
    assert_int_equal(merkle_vcache_save(c2, cpath, NULL), MERKLE_OK);
    merkle_vcache_free(c2);
    assert_int_equal(stat(cpath, &st), 0);
    assert_true(st.st_size < 4096);
    unlink(cpath);
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_lines),        cmocka_unit_test(test_format_round_trip),
        cmocka_unit_test(test_parse_alloc),        cmocka_unit_test(test_digests_vs_openssl),
        cmocka_unit_test(test_check_engine),       cmocka_unit_test(test_cache_rules_and_file),
        cmocka_unit_test(test_racy_granularity),   cmocka_unit_test(test_cache_merge),
        cmocka_unit_test(test_check_opts_version), cmocka_unit_test(test_cache_hmac),
        cmocka_unit_test(test_cache_pass),         cmocka_unit_test(test_cache_large_and_forged),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
