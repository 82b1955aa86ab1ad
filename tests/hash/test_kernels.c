/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Batch kernels of the digest layer, each called directly (not only through dispatch):
**   - every SHA-256 kernel this CPU supports against OpenSSL, every BLAKE2b-256 kernel
**     against libsodium, on random batches: every count 1..64 at a sample of lengths, every
**     length 0..1100 at a few counts, prefixes of 0, 1 and up to 64 bytes, messages at
**     random (unaligned, overlapping) addresses and in exact-size heap blocks (so that the
**     sanitizer build catches any read past a message);
**   - the full cross product (every count x every length) with MERKLE_KERNELS_FULL=1;
**   - dispatch: MERKLE_BACKEND forcing (in a child process, since the choice is made once
**     per process), unknown names falling back to the automatic choice, set_backend errors,
**     the self-test refusing a wrong kernel, and the calibration result.
*/
#include <errno.h>
#include <openssl/evp.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hash/blake2b_impl.h"
#include "merkle/hash.h"
#include "testutil.h"

#define POOL   (1u << 17)
#define MAXLEN 1100
#define MAXN   64

static uint8_t *g_pool; /* random bytes messages and prefixes are taken from */
static const char *g_self;

/* ------------------------------------------------------------------ references */

static void ref_sha256(uint8_t out[32], const uint8_t *prefix, size_t p, const uint8_t *msg,
                       size_t len)
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    unsigned int n = 0;
    assert_non_null(md);
    assert_int_equal(EVP_DigestInit_ex(md, EVP_sha256(), NULL), 1);
    assert_int_equal(EVP_DigestUpdate(md, prefix, p), 1);
    assert_int_equal(EVP_DigestUpdate(md, msg, len), 1);
    assert_int_equal(EVP_DigestFinal_ex(md, out, &n), 1);
    assert_int_equal(n, 32);
    EVP_MD_CTX_free(md);
}

static void ref_blake2b(uint8_t out[32], const uint8_t *prefix, size_t p, const uint8_t *msg,
                        size_t len)
{
    crypto_generichash_state st;
    assert_int_equal(crypto_generichash_init(&st, NULL, 0, 32), 0);
    if (p) crypto_generichash_update(&st, prefix, p);
    if (len) crypto_generichash_update(&st, msg, len);
    assert_int_equal(crypto_generichash_final(&st, out, 32), 0);
}

/* A kernel under test: SHA-256 or BLAKE2b batch entry with its name. */
typedef struct kernel {
    const char *name;
    void (*batch)(uint8_t *out, const uint8_t *const *msgs, size_t n, const uint8_t *prefix,
                  size_t prefix_len, size_t len);
    int blake2b;
    unsigned lanes;
} kernel;

static size_t usable_kernels(kernel *out, size_t cap)
{
    const merkle__sha256_impl *const *s;
    const merkle__blake2b_impl *const *b;
    size_t ns = merkle__sha256_all(&s), nb = merkle__blake2b_all(&b), k = 0;
    for (size_t i = 0; i < ns && k < cap; i++)
        if (s[i]->available()) out[k++] = (kernel){ s[i]->name, s[i]->batch, 0, s[i]->lanes };
    for (size_t i = 0; i < nb && k < cap; i++)
        if (b[i]->available()) out[k++] = (kernel){ b[i]->name, b[i]->batch, 1, b[i]->lanes };
    return k;
}

/* A random batch description: prefix and message pointers into the pool. */
typedef struct batch {
    const uint8_t *prefix;
    size_t p;
    const uint8_t *msgs[MAXN];
    uint8_t want[MAXN][32];
} batch;

static size_t pick_prefix_len(tu_rng *r)
{
    static const size_t common[] = { 0, 1, 0, 1, 2, 31, 32, 55, 56, 63, 64 };
    uint64_t c = tu_rng_below(r, 16);
    return c < 11 ? common[c] : (size_t)tu_rng_below(r, 65);
}

static void make_batch(batch *b, tu_rng *r, size_t len, int blake2b)
{
    b->p = pick_prefix_len(r);
    b->prefix = g_pool + tu_rng_below(r, POOL - 64);
    for (size_t i = 0; i < MAXN; i++) {
        b->msgs[i] = g_pool + tu_rng_below(r, POOL - MAXLEN);
        if (blake2b)
            ref_blake2b(b->want[i], b->prefix, b->p, b->msgs[i], len);
        else
            ref_sha256(b->want[i], b->prefix, b->p, b->msgs[i], len);
    }
}

static void check_kernel(const kernel *k, const batch *b, size_t n, size_t len)
{
    uint8_t out[MAXN * 32 + 1];
    uint8_t *o = out + (len & 1);  /* the output need not be aligned either */
    memset(out, 0xA5, sizeof out); /* no stale digest of an earlier call can pass for one */
    k->batch(o, b->msgs, n, b->prefix, b->p, len);
    for (size_t i = 0; i < n; i++) {
        if (memcmp(o + 32 * i, b->want[i], 32) != 0)
            fail_msg("%s %s: count %zu, length %zu, prefix %zu: message %zu differs",
                     k->blake2b ? "blake2b" : "sha256", k->name, n, len, b->p, i);
    }
}

static const size_t k_sample_lens[] = { 0,   1,   3,   31,  32,   54,   55,   56,   57,  63,  64,
                                        65,  119, 120, 127, 128,  129,  191,  192,  255, 256, 447,
                                        448, 511, 512, 513, 1000, 1023, 1024, 1099, 1100 };
static const size_t k_few_counts[] = { 1, 2, 5, 8, 16, 17, 33, 64 };

/* Every count 1..64 at the sample lengths. */
static void test_all_counts(void **state)
{
    (void)state;
    kernel ks[16];
    size_t nk = usable_kernels(ks, 16);
    tu_rng r;
    tu_rng_seed(&r, 1);
    batch *b = malloc(sizeof *b);
    assert_non_null(b);
    for (int alg = 0; alg < 2; alg++) {
        for (size_t l = 0; l < sizeof k_sample_lens / sizeof k_sample_lens[0]; l++) {
            size_t len = k_sample_lens[l];
            make_batch(b, &r, len, alg);
            for (size_t k = 0; k < nk; k++) {
                if (ks[k].blake2b != alg) continue;
                for (size_t n = 1; n <= MAXN; n++) check_kernel(&ks[k], b, n, len);
            }
        }
    }
    free(b);
}

/*
** The tree-node shapes the wide kernels special-case (issue 30 item 2): 64-byte messages
** with no prefix (SSZ, Bitcoin) and with a one-byte prefix (RFC 6962 nodes), which AVX-512
** hashes two groups of 16 at a time with a register transpose of the digests. Every count
** 1..64 (ragged first and second groups, several passes), many random batches, unaligned
** messages and output, and the digests of a batch must not depend on its neighbours.
*/
static void test_node_shapes(void **state)
{
    (void)state;
    kernel ks[16];
    size_t nk = usable_kernels(ks, 16);
    tu_rng r;
    tu_rng_seed(&r, 30);
    batch *b = malloc(sizeof *b);
    assert_non_null(b);
    size_t checked = 0;
    for (int rep = 0; rep < 8; rep++) {
        for (size_t p = 0; p <= 1; p++) {
            make_batch(b, &r, 64, 0);
            b->p = p; /* make_batch picked a random prefix length: redo the answers */
            for (size_t i = 0; i < MAXN; i++) ref_sha256(b->want[i], b->prefix, p, b->msgs[i], 64);
            for (size_t k = 0; k < nk; k++) {
                if (ks[k].blake2b) continue;
                for (size_t n = 1; n <= MAXN; n++) {
                    check_kernel(&ks[k], b, n, 64);
                    checked++;
                }
            }
        }
    }
    assert_true(checked >= 2 * 8 * MAXN); /* at least the portable kernel ran */
    free(b);
}

/* Every length 0..1100 at a few counts; a fresh random batch (and prefix) per length. */
static void test_all_lengths(void **state)
{
    (void)state;
    kernel ks[16];
    size_t nk = usable_kernels(ks, 16);
    tu_rng r;
    tu_rng_seed(&r, 2);
    batch *b = malloc(sizeof *b);
    assert_non_null(b);
    for (int alg = 0; alg < 2; alg++) {
        for (size_t len = 0; len <= MAXLEN; len++) {
            make_batch(b, &r, len, alg);
            for (size_t k = 0; k < nk; k++) {
                if (ks[k].blake2b != alg) continue;
                size_t n =
                    k_few_counts[tu_rng_below(&r, sizeof k_few_counts / sizeof k_few_counts[0])];
                check_kernel(&ks[k], b, n, len);
            }
        }
    }
    free(b);
}

/* Messages and prefix in exact-size heap blocks: any over-read is caught under ASan. */
static void test_exact_blocks(void **state)
{
    (void)state;
    kernel ks[16];
    size_t nk = usable_kernels(ks, 16);
    static const size_t lens[] = { 0, 1, 55, 63, 64, 65, 127, 128, 191, 300, 1024, 1100 };
    static const size_t prefixes[] = { 0, 1, 7, 63, 64 };
    tu_rng r;
    tu_rng_seed(&r, 3);
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        for (size_t pi = 0; pi < sizeof prefixes / sizeof prefixes[0]; pi++) {
            size_t len = lens[li], p = prefixes[pi], n = 19;
            uint8_t *pre = p ? malloc(p) : NULL;
            uint8_t *m[19];
            uint8_t want_s[19][32], want_b[19][32];
            if (p) tu_rng_fill(&r, pre, p);
            for (size_t i = 0; i < n; i++) {
                m[i] = malloc(len ? len : 1);
                assert_non_null(m[i]);
                tu_rng_fill(&r, m[i], len);
                ref_sha256(want_s[i], pre, p, m[i], len);
                ref_blake2b(want_b[i], pre, p, m[i], len);
            }
            for (size_t k = 0; k < nk; k++) {
                uint8_t out[19 * 32];
                ks[k].batch(out, (const uint8_t *const *)m, n, pre, p, len);
                for (size_t i = 0; i < n; i++)
                    if (memcmp(out + 32 * i, ks[k].blake2b ? want_b[i] : want_s[i], 32) != 0)
                        fail_msg("%s: exact blocks, length %zu, prefix %zu, message %zu",
                                 ks[k].name, len, p, i);
            }
            for (size_t i = 0; i < n; i++) free(m[i]);
            free(pre);
        }
    }
}

/* MERKLE_KERNELS_FULL=1: every count 1..64 at every length 0..1100 for every multi-lane
** kernel (the one-message loops have no lanes to get wrong). Release: under 20 s on one
** core. Otherwise skipped. */
static void test_full_cross_product(void **state)
{
    (void)state;
    const char *full = getenv("MERKLE_KERNELS_FULL");
    if (!full || strcmp(full, "1") != 0) {
        print_message("MERKLE_KERNELS_FULL not set: cross product skipped\n");
        return;
    }
    kernel ks[16];
    size_t nk = usable_kernels(ks, 16);
    tu_rng r;
    tu_rng_seed(&r, 4);
    batch *b = malloc(sizeof *b);
    assert_non_null(b);
    for (int alg = 0; alg < 2; alg++)
        for (size_t len = 0; len <= MAXLEN; len++) {
            make_batch(b, &r, len, alg);
            for (size_t k = 0; k < nk; k++)
                if (ks[k].blake2b == alg && ks[k].lanes > 1)
                    for (size_t n = 1; n <= MAXN; n++) check_kernel(&ks[k], b, n, len);
        }
    free(b);
}

/* The public batch entries under each backend, strided with stride != len, stride 0, and
** the tree's shapes (children adjacent: stride = len = 64, n up to 128). */
static void test_public_strided(void **state)
{
    (void)state;
    const char *names[17];
    size_t nb = merkle_sha256_backends(names, 16);
    tu_rng r;
    tu_rng_seed(&r, 5);
    static const size_t shapes[][3] = { { 64, 64, 128 },   { 64, 64, 127 },    { 64, 64, 17 },
                                        { 64, 64, 9 },     { 64, 64, 1 },      { 100, 97, 33 },
                                        { 4096, 4096, 9 }, { 1024, 1024, 21 }, { 0, 40, 20 },
                                        { 70, 0, 3 } };
    uint8_t *out = malloc(128 * 32), *want = malloc(128 * 32);
    assert_non_null(out);
    assert_non_null(want);
    for (int alg = 0; alg < 2; alg++) {
        size_t nbackends = alg ? merkle__blake2b_backends(names, 16) : nb;
        names[nbackends] = "auto"; /* the composite, with its ragged-remainder rule */
        for (size_t bi = 0; bi <= nbackends; bi++) {
            if (alg)
                assert_int_equal(merkle__blake2b_set_backend(names[bi]), MERKLE_OK);
            else
                assert_int_equal(merkle_sha256_set_backend(names[bi]), MERKLE_OK);
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
                size_t stride = shapes[s][0], len = shapes[s][1], n = shapes[s][2];
                const uint8_t *base = g_pool + 1 + tu_rng_below(&r, 64);
                uint8_t pfx = (uint8_t)(s & 1);
                merkle_hash_alg a = alg ? MERKLE_HASH_BLAKE2B_256 : MERKLE_HASH_SHA256;
                assert_int_equal(merkle_hash_batch_strided(out, a, &pfx, 1, base, stride, len, n),
                                 MERKLE_OK);
                for (size_t i = 0; i < n; i++) {
                    if (alg)
                        ref_blake2b(want + 32 * i, &pfx, 1, base + i * stride, len);
                    else
                        ref_sha256(want + 32 * i, &pfx, 1, base + i * stride, len);
                }
                if (memcmp(out, want, 32 * n) != 0)
                    fail_msg("%s backend %s: strided shape %zu differs", alg ? "blake2b" : "sha256",
                             names[bi], s);
            }
        }
    }
    assert_int_equal(merkle_sha256_set_backend("auto"), MERKLE_OK);
    assert_int_equal(merkle__blake2b_set_backend(NULL), MERKLE_OK);
    /* argument errors */
    assert_int_equal(
        merkle_hash_batch_strided(out, MERKLE_HASH_BLAKE2B_256, NULL, 65, g_pool, 1, 1, 1),
        MERKLE_ERR_ARG);
    assert_int_equal(merkle_sha256_batch_strided(out, g_pool, 65, g_pool, 1, 1, 1), MERKLE_ERR_ARG);
    assert_int_equal(merkle_sha256_batch_strided(out, NULL, 0, NULL, 0, 5, 2), MERKLE_ERR_ARG);
    assert_int_equal(merkle_sha256_batch_strided(out, NULL, 0, NULL, 0, 0, 0), MERKLE_OK);
    free(out);
    free(want);
}

/* ------------------------------------------------------------------ dispatch */

static void wrong_batch(uint8_t *out, const uint8_t *const *msgs, size_t n, const uint8_t *prefix,
                        size_t prefix_len, size_t len)
{
    /* Right for every message but the last lane of a batch, as a lane bug would be. */
    merkle__sha256_portable.batch(out, msgs, n, prefix, prefix_len, len);
    if (n > 1) out[32 * (n - 1)] ^= 1;
}

static void wrong_b2(uint8_t *out, const uint8_t *const *msgs, size_t n, const uint8_t *prefix,
                     size_t prefix_len, size_t len)
{
    merkle__blake2b_single()->batch(out, msgs, n, prefix, prefix_len, len);
    if (n > 4) out[32 * 4 + 31] ^= 0x80;
}

static int yes(void)
{
    return 1;
}

static void test_self_test(void **state)
{
    (void)state;
    const merkle__sha256_impl *const *all;
    size_t n = merkle__sha256_all(&all);
    for (size_t i = 0; i < n; i++)
        if (all[i]->available()) assert_int_equal(merkle__sha256_self_test(all[i]), 1);
    merkle__sha256_impl bad = { "bad", yes, merkle__sha256_compress_portable, wrong_batch, 1 };
    assert_int_equal(merkle__sha256_self_test(&bad), 0);
    merkle__blake2b_impl bad2 = { "bad", yes, wrong_b2, 1 };
    assert_int_equal(merkle__blake2b_self_test(&bad2), 0);
    const merkle__blake2b_impl *const *b;
    size_t nb = merkle__blake2b_all(&b);
    for (size_t i = 0; i < nb; i++)
        if (b[i]->available()) assert_int_equal(merkle__blake2b_self_test(b[i]), 1);
}

static void test_set_backend_errors(void **state)
{
    (void)state;
    assert_int_equal(merkle_sha256_set_backend("no-such-kernel"), MERKLE_ERR_ARG);
    assert_int_equal(merkle_sha256_set_backend(NULL),
                     MERKLE_OK); /* NULL = automatic, as every family */
    assert_int_equal(merkle__blake2b_set_backend("no-such-kernel"), MERKLE_ERR_ARG);
    /* A kernel compiled in but not supported here is refused, not installed. */
    const merkle__sha256_impl *const *all;
    size_t n = merkle__sha256_all(&all);
    for (size_t i = 0; i < n; i++)
        if (!all[i]->available())
            assert_int_equal(merkle_sha256_set_backend(all[i]->name), MERKLE_ERR_UNSUPPORTED);
    const merkle__blake2b_impl *const *b;
    size_t nb = merkle__blake2b_all(&b);
    for (size_t i = 0; i < nb; i++)
        if (!b[i]->available())
            assert_int_equal(merkle__blake2b_set_backend(b[i]->name), MERKLE_ERR_UNSUPPORTED);
    assert_int_equal(merkle_sha256_set_backend("auto"), MERKLE_OK);
}

static void test_calibration(void **state)
{
    (void)state;
    merkle__sha256_calibration cal;
    merkle__sha256_calibration_get(&cal);
    assert_true(cal.count >= 1);
    assert_non_null(cal.shorts);
    assert_non_null(cal.longs);
    assert_true(cal.shorts->available() && cal.longs->available());
    /* The chosen kernels are the measured minima. */
    for (size_t i = 0; i < cal.count; i++) {
        assert_true(cal.ns_short[i] > 0);
        assert_true(cal.ns_short[cal.i_shorts] <= cal.ns_short[i]);
        assert_true(cal.ns_long[cal.i_longs] <= cal.ns_long[i]);
    }
    assert_ptr_equal(cal.impl[cal.i_shorts], cal.shorts);
    assert_ptr_equal(cal.impl[cal.i_longs], cal.longs);
    print_message("calibrated: short %s, long %s\n", cal.shorts->name, cal.longs->name);
}

/* Run this program as a child with MERKLE_BACKEND=env_value; return what it prints. 0, or 1
** if this program cannot be executed by itself (a foreign binary run under qemu-user, which
** does not emulate its own children: execl fails with ENOEXEC). */
static int child_backend(const char *env_value, char *buf, size_t cap)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        setenv("MERKLE_BACKEND", env_value, 1);
        execl(g_self, g_self, "--print-backend", (char *)NULL);
        _exit(errno == ENOEXEC ? 126 : 127);
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t k;
    while (got + 1 < cap && (k = read(fds[0], buf + got, cap - 1 - got)) > 0) got += (size_t)k;
    buf[got] = 0;
    close(fds[0]);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 126 && got == 0) return 1;
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    return 0;
}

static void test_env_forcing(void **state)
{
    (void)state;
    char got[256], want[256];
    const char *names[16];
    size_t n = merkle_sha256_backends(names, 16);
    if (n && child_backend(names[0], got, sizeof got)) {
        skip(); /* under qemu-user: the children cannot be run */
        return;
    }
    for (size_t i = 0; i < n; i++) {
        child_backend(names[i], got, sizeof got);
        snprintf(want, sizeof want, "%s ok\n", names[i]);
        assert_string_equal(got, want);
    }
    /* Unknown names and "auto" fall back to the automatic (calibrated) choice. */
    child_backend("auto", want, sizeof want);
    assert_true(strstr(want, " ok\n") != NULL);
    child_backend("no-such-kernel", got, sizeof got);
    assert_true(strstr(got, " ok\n") != NULL);
    const merkle__sha256_impl *const *all;
    size_t na = merkle__sha256_all(&all);
    for (size_t i = 0; i < na; i++)
        if (!all[i]->available()) { /* unsupported here: falls back, still hashes right */
            child_backend(all[i]->name, got, sizeof got);
            assert_true(strstr(got, " ok\n") != NULL);
            assert_true(strncmp(got, all[i]->name, strlen(all[i]->name)) != 0 ||
                        got[strlen(all[i]->name)] != ' ');
        }
}

/* Child mode: print the backend in use and whether a tree-shaped batch hashes right. */
static int print_backend(void)
{
    static uint8_t buf[64 * 64];
    uint8_t out[64 * 32], want[32];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)(i * 29 + 1);
    const uint8_t one = 1;
    if (merkle_sha256_batch_strided(out, &one, 1, buf, 64, 64, 64) != MERKLE_OK) return 1;
    int ok = 1;
    for (size_t i = 0; i < 64; i++) {
        unsigned int k = 0;
        EVP_MD_CTX *md = EVP_MD_CTX_new();
        EVP_DigestInit_ex(md, EVP_sha256(), NULL);
        EVP_DigestUpdate(md, &one, 1);
        EVP_DigestUpdate(md, buf + 64 * i, 64);
        EVP_DigestFinal_ex(md, want, &k);
        EVP_MD_CTX_free(md);
        if (memcmp(out + 32 * i, want, 32) != 0) ok = 0;
    }
    printf("%s %s\n", merkle_sha256_backend(), ok ? "ok" : "WRONG");
    return 0;
}

int main(int argc, char **argv)
{
    g_self = argv[0];
    if (argc > 1 && strcmp(argv[1], "--print-backend") == 0) return print_backend();
    if (sodium_init() < 0) return 1;
    g_pool = malloc(POOL);
    if (!g_pool) return 1;
    tu_rng r;
    tu_rng_seed(&r, 42);
    tu_rng_fill(&r, g_pool, POOL);
    kernel ks[16];
    size_t nk = usable_kernels(ks, 16);
    printf("kernels:");
    for (size_t i = 0; i < nk; i++)
        printf(" %s/%s", ks[i].blake2b ? "blake2b" : "sha256", ks[i].name);
    printf("\n");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_counts),         cmocka_unit_test(test_all_lengths),
        cmocka_unit_test(test_exact_blocks),       cmocka_unit_test(test_full_cross_product),
        cmocka_unit_test(test_public_strided),     cmocka_unit_test(test_self_test),
        cmocka_unit_test(test_set_backend_errors), cmocka_unit_test(test_calibration),
        cmocka_unit_test(test_env_forcing),        cmocka_unit_test(test_node_shapes),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(g_pool);
    return rc;
}
