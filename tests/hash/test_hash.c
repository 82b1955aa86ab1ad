/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Digest layer: known answers, and every SHA-256 backend against OpenSSL in all three call
** shapes (one-shot, streaming with random splits, batch strided and by pointer).
*/
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "hash/impl.h"
#include "merkle/hash.h"
#include "testutil.h"

static void openssl_sha256(uint8_t out[32], const void *data, size_t len)
{
    unsigned int n = 0;
    assert_int_equal(EVP_Digest(data, len, out, &n, EVP_sha256(), NULL), 1);
    assert_int_equal(n, 32);
}

static void test_sha256_kat(void **state)
{
    (void)state;
    uint8_t out[32];
    merkle_sha256_hash(out, "", 0);
    tu_assert_hex(out, 32, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                  "empty");
    merkle_sha256_hash(out, "abc", 3);
    tu_assert_hex(out, 32, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                  "abc");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    merkle_sha256_hash(out, m448, strlen(m448));
    tu_assert_hex(out, 32, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
                  "448-bit");
    const char *m896 =
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
        "klmnopqrlmnopqrsmnopqrstnopqrstu";
    merkle_sha256_hash(out, m896, strlen(m896));
    tu_assert_hex(out, 32, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
                  "896-bit");
    /* One million 'a', streamed in uneven pieces. */
    merkle_sha256 ctx;
    merkle_sha256_init(&ctx);
    uint8_t block[1000];
    memset(block, 'a', sizeof block);
    size_t left = 1000000, piece = 1;
    while (left) {
        size_t k = piece < left ? piece : left;
        if (k > sizeof block) k = sizeof block;
        merkle_sha256_update(&ctx, block, k);
        left -= k;
        piece = piece * 3 % 997 + 1;
    }
    merkle_sha256_final(&ctx, out);
    tu_assert_hex(out, 32, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
                  "million a");
}

static void test_blake2b_kat(void **state)
{
    (void)state;
    uint8_t out[64];
    merkle_blake2b_256(out, "", 0);
    tu_assert_hex(out, 32, "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8",
                  "b2b256 empty");
    merkle_blake2b_256(out, "abc", 3);
    tu_assert_hex(out, 32, "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319",
                  "b2b256 abc");
    /* BLAKE2b-512 of "abc" (RFC 7693 appendix A): the same code with out_len 64. */
    merkle_blake2b b;
    assert_int_equal(merkle_blake2b_init(&b, 64), MERKLE_OK);
    merkle_blake2b_update(&b, "abc", 3);
    merkle_blake2b_final(&b, out);
    tu_assert_hex(out, 64,
                  "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792d"
                  "c252d5de4533cc9518d38aa8dbf1925ab92386edd4009923",
                  "b2b512 abc");
    /* Streaming in pieces equals one-shot; a copied context forks the hash. */
    tu_rng r;
    tu_rng_seed(&r, 7);
    uint8_t msg[3000], one[32], two[32];
    tu_rng_fill(&r, msg, sizeof msg);
    for (size_t len = 0; len < sizeof msg; len += 97) {
        merkle_blake2b_256(one, msg, len);
        assert_int_equal(merkle_blake2b_init(&b, 32), MERKLE_OK);
        size_t off = 0;
        while (off < len) {
            size_t k = (size_t)tu_rng_below(&r, 200) + 1;
            if (k > len - off) k = len - off;
            merkle_blake2b_update(&b, msg + off, k);
            off += k;
        }
        merkle_blake2b copy = b;
        merkle_blake2b_final(&copy, two);
        assert_memory_equal(one, two, 32);
        merkle_blake2b_final(&b, two);
        assert_memory_equal(one, two, 32);
    }
    assert_int_equal(merkle_blake2b_init(&b, 0), MERKLE_ERR_ARG);
    assert_int_equal(merkle_blake2b_init(&b, 65), MERKLE_ERR_ARG);
}

static void check_backend_against_openssl(const char *name)
{
    assert_int_equal(merkle_sha256_set_backend(name), MERKLE_OK);
    assert_string_equal(merkle_sha256_backend(), name);
    tu_rng r;
    tu_rng_seed(&r, 42);
    enum { MAXLEN = 1024 + 64 };
    uint8_t *msg = malloc(MAXLEN * 20);
    tu_rng_fill(&r, msg, MAXLEN * 20);
    uint8_t want[32], got[32];
    uint8_t *outs = malloc(32 * 20);
    uint8_t *refbuf = malloc(MAXLEN + 64);
    for (size_t len = 0; len <= 1024; len++) {
        /* one-shot */
        openssl_sha256(want, msg, len);
        merkle_sha256_hash(got, msg, len);
        assert_memory_equal(want, got, 32);
        /* streaming, random split */
        merkle_sha256 ctx;
        merkle_sha256_init(&ctx);
        size_t off = 0;
        while (off < len) {
            size_t k = (size_t)tu_rng_below(&r, 130) + 1;
            if (k > len - off) k = len - off;
            merkle_sha256_update(&ctx, msg + off, k);
            off += k;
        }
        merkle_sha256_final(&ctx, got);
        assert_memory_equal(want, got, 32);
        /* batch, strided and by pointer, with prefixes of 0, 1 and 33 bytes */
        size_t n = 1 + (size_t)tu_rng_below(&r, 19);
        size_t plens[3] = { 0, 1, 33 };
        for (int pi = 0; pi < 3; pi++) {
            size_t pl = plens[pi];
            const uint8_t *prefix = msg + MAXLEN * 19;
            size_t stride = len + (size_t)tu_rng_below(&r, 3);
            if (stride * n > MAXLEN * 19) stride = len;
            assert_int_equal(
                merkle_sha256_batch_strided(outs, pl ? prefix : NULL, pl, msg, stride, len, n),
                MERKLE_OK);
            const uint8_t *ptrs[20];
            for (size_t i = 0; i < n; i++) ptrs[i] = msg + (size_t)tu_rng_below(&r, MAXLEN * 18);
            uint8_t outs2[32 * 20];
            assert_int_equal(merkle_sha256_batch(outs2, pl ? prefix : NULL, pl, ptrs, len, n),
                             MERKLE_OK);
            for (size_t i = 0; i < n; i++) {
                memcpy(refbuf, prefix, pl);
                memcpy(refbuf + pl, msg + i * stride, len);
                openssl_sha256(want, refbuf, pl + len);
                assert_memory_equal(want, outs + 32 * i, 32);
                memcpy(refbuf + pl, ptrs[i], len);
                openssl_sha256(want, refbuf, pl + len);
                assert_memory_equal(want, outs2 + 32 * i, 32);
            }
        }
    }
    /* random long messages */
    uint8_t *big = malloc(1 << 20);
    for (int i = 0; i < 8; i++) {
        size_t len = (size_t)tu_rng_below(&r, 1 << 20);
        tu_rng_fill(&r, big, len);
        openssl_sha256(want, big, len);
        merkle_sha256_hash(got, big, len);
        assert_memory_equal(want, got, 32);
    }
    free(big);
    free(refbuf);
    free(outs);
    free(msg);
}

static void test_every_backend(void **state)
{
    (void)state;
    const char *names[16];
    size_t n = merkle_sha256_backends(names, 16);
    assert_true(n >= 1);
    int saw_portable = 0;
    for (size_t i = 0; i < n && i < 16; i++) {
        print_message("backend %s\n", names[i]);
        check_backend_against_openssl(names[i]);
        if (strcmp(names[i], "portable") == 0) saw_portable = 1;
    }
    assert_true(saw_portable);
    assert_int_equal(merkle_sha256_set_backend("no-such-backend"), MERKLE_ERR_ARG);
    assert_int_equal(merkle_sha256_set_backend(NULL),
                     MERKLE_OK); /* NULL = automatic, as every family */
    assert_int_equal(merkle_sha256_set_backend("portable"), MERKLE_OK);
}

static void test_generic_and_errors(void **state)
{
    (void)state;
    merkle_hash_alg alg;
    assert_int_equal(merkle_hash_alg_from_name(&alg, "sha256"), MERKLE_OK);
    assert_int_equal(alg, MERKLE_HASH_SHA256);
    assert_int_equal(merkle_hash_alg_from_name(&alg, "blake2b-256"), MERKLE_OK);
    assert_int_equal(alg, MERKLE_HASH_BLAKE2B_256);
    assert_int_equal(merkle_hash_alg_from_name(&alg, "md5"), MERKLE_ERR_ARG);
    assert_int_equal(merkle_hash_alg_from_name(NULL, "sha256"), MERKLE_ERR_ARG);
    assert_null(merkle_hash_alg_name((merkle_hash_alg)99));
    uint8_t out[32], want[32];
    assert_int_equal(merkle_hash(out, (merkle_hash_alg)99, "", 0), MERKLE_ERR_ARG);
    assert_int_equal(merkle_hash(out, MERKLE_HASH_SHA256, NULL, 5), MERKLE_ERR_ARG);
    merkle_hasher h;
    assert_int_equal(merkle_hasher_init(&h, (merkle_hash_alg)0), MERKLE_ERR_ARG);
    for (int a = 1; a <= 2; a++) {
        assert_int_equal(merkle_hasher_init(&h, TU_TREE_HASH(a)), MERKLE_OK);
        merkle_hasher_update(&h, "ab", 2);
        merkle_hasher_update(&h, "c", 1);
        merkle_hasher_final(&h, out);
        assert_int_equal(merkle_hash(want, TU_TREE_HASH(a), "abc", 3), MERKLE_OK);
        assert_memory_equal(out, want, 32);
        /* generic batch == one-shot of prefix || message */
        uint8_t outs[3 * 32];
        const uint8_t data[] = "xyzxyzxyz";
        assert_int_equal(merkle_hash_batch_strided(outs, TU_TREE_HASH(a), (const uint8_t *)"ab", 2,
                                                   data, 3, 3, 3),
                         MERKLE_OK);
        assert_int_equal(merkle_hash(want, TU_TREE_HASH(a), "abxyz", 5), MERKLE_OK);
        for (int i = 0; i < 3; i++) assert_memory_equal(outs + 32 * i, want, 32);
        assert_int_equal(merkle_hash_batch_strided(outs, TU_TREE_HASH(a), NULL, 65, data, 3, 3, 1),
                         MERKLE_ERR_ARG);
        assert_int_equal(merkle_hash_batch_strided(NULL, TU_TREE_HASH(a), NULL, 0, data, 3, 3, 1),
                         MERKLE_ERR_ARG);
        assert_int_equal(merkle_hash_batch_strided(outs, TU_TREE_HASH(a), NULL, 0, data, 3, 3, 0),
                         MERKLE_OK);
    }
    const uint8_t *p[1] = { (const uint8_t *)"x" };
    assert_int_equal(merkle_sha256_batch(out, NULL, 1, p, 1, 1), MERKLE_ERR_ARG);
    assert_int_equal(merkle_sha256_batch(NULL, NULL, 0, p, 1, 1), MERKLE_ERR_ARG);
}

static void test_hex_and_ct(void **state)
{
    (void)state;
    uint8_t buf[4];
    size_t n = 99;
    merkle_error err = { 0 };
    assert_int_equal(merkle_hex_decode(buf, 4, &n, "00fFa1", 6, &err), MERKLE_OK);
    assert_int_equal(n, 3);
    assert_int_equal(buf[1], 0xff);
    assert_int_equal(merkle_hex_decode(buf, 4, &n, "0g", 2, &err), MERKLE_ERR_FORMAT);
    assert_int_equal(err.offset, 1);
    assert_int_equal(merkle_hex_decode(buf, 4, &n, "abc", 3, &err), MERKLE_ERR_FORMAT);
    assert_int_equal(merkle_hex_decode(buf, 2, &n, "aabbcc", 6, &err), MERKLE_ERR_BUFFER);
    assert_int_equal(n, 3);
    assert_int_equal(merkle_hex_decode(buf, 4, &n, NULL, 2, NULL), MERKLE_ERR_ARG);
    assert_int_equal(merkle_hex_decode(NULL, 0, &n, "", 0, NULL), MERKLE_OK);
    assert_int_equal(n, 0);
    char hex[9];
    const uint8_t b[4] = { 0xde, 0xad, 0x00, 0x0f };
    merkle_hex_encode(hex, b, 4);
    assert_string_equal(hex, "dead000f");
    assert_true(merkle_ct_equal("abc", "abc", 3));
    assert_false(merkle_ct_equal("abc", "abd", 3));
    assert_true(merkle_ct_equal("x", "y", 0));
    for (int s = -11; s <= 0; s++) assert_non_null(merkle_strerror((merkle_status)s));
    assert_string_equal(merkle_strerror((merkle_status)-1000), "unknown error");
    assert_string_equal(merkle_version(), MERKLE_VERSION_STRING);
}

/* Keccak-256 (original padding) against @noble/hashes and the keccak npm binding, one-shot,
** streaming in every split and batched; SHA3-256 differs. */
static void test_keccak256_kat(void **state)
{
    (void)state;
    json *v = tu_load_vectors("keccak256.json");
    const json *vs = json_get(v, "vectors");
    assert_true(vs->len >= 20);
    uint8_t *m = malloc(8192), out[32];
    for (size_t k = 0; k < vs->len; k++) {
        const json *e = json_at(vs, k);
        size_t len = (size_t)json_get(e, "len")->integer;
        for (size_t j = 0; j < len; j++) m[j] = (uint8_t)(j * 7 + len);
        const char *want = json_get_str(e, "digest");
        merkle_keccak256_hash(out, m, len);
        tu_assert_hex(out, 32, want, "keccak256 one-shot");
        for (size_t cut = 0; cut <= len; cut += len / 7 + 1) {
            merkle_keccak256 c;
            merkle_keccak256_init(&c);
            merkle_keccak256_update(&c, m, cut);
            merkle_keccak256_update(&c, m + cut, len - cut);
            merkle_keccak256_final(&c, out);
            tu_assert_hex(out, 32, want, "keccak256 split");
        }
        merkle_hasher h;
        assert_int_equal(merkle_hasher_init(&h, MERKLE_HASH_KECCAK256), MERKLE_OK);
        merkle_hasher_update(&h, m, len);
        merkle_hasher_final(&h, out);
        tu_assert_hex(out, 32, want, "keccak256 hasher");
        /* Batch: the message after a prefix of its first byte(s), three copies. */
        size_t p = len < 5 ? len : 5;
        uint8_t outs[96];
        memcpy(m + 4096, m, len);
        assert_int_equal(
            merkle_hash_batch_strided(outs, MERKLE_HASH_KECCAK256, m, p, m + p, 0, len - p, 3),
            MERKLE_OK);
        for (int i = 0; i < 3; i++) tu_assert_hex(outs + 32 * i, 32, want, "keccak256 batch");
    }
    /* The 64-byte node shape (no prefix) against the streaming code. */
    uint8_t pairs[10][64], outs[10][32];
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < 64; j++) pairs[i][j] = (uint8_t)(i * 31 + j);
    assert_int_equal(merkle_keccak256_batch_strided(outs[0], NULL, 0, pairs[0], 64, 64, 10),
                     MERKLE_OK);
    for (int i = 0; i < 10; i++) {
        merkle_keccak256_hash(out, pairs[i], 64);
        assert_memory_equal(out, outs[i], 32);
    }
    /* Every multi-buffer kernel against the streaming code: ragged counts and strides. */
    static const char *const kernels[] = { "portable", "avx2", "avx512" };
    uint8_t *msgs = malloc(41 * 100), ref[41][32], got[41][32];
    for (int i = 0; i < 41 * 100; i++) msgs[i] = (uint8_t)(i * 29 + 3);
    for (size_t k = 0; k < 3; k++) {
        merkle__keccak256_msg64_fn fn = merkle__keccak256_kernel(kernels[k]);
        if (!fn) {
            print_message("keccak kernel %s: not on this CPU\n", kernels[k]);
            continue;
        }
        for (size_t stride = 64; stride <= 100; stride += 36)
            for (size_t n = 1; n <= 41; n++) {
                for (size_t i = 0; i < n; i++) merkle_keccak256_hash(ref[i], msgs + i * stride, 64);
                memset(got, 0, sizeof got);
                fn(got[0], msgs, stride, n);
                if (memcmp(got, ref, n * 32) != 0)
                    fail_msg("keccak kernel %s: %zu messages, stride %zu", kernels[k], n, stride);
            }
    }
    /* The 32-byte-message kernels (OpenZeppelin's second leaf hash) likewise. */
    for (size_t k = 0; k < 3; k++) {
        merkle__keccak256_msg64_fn fn = merkle__keccak256_kernel32(kernels[k]);
        if (!fn) continue;
        for (size_t stride = 32; stride <= 100; stride += 68)
            for (size_t n = 1; n <= 41; n++) {
                for (size_t i = 0; i < n; i++) merkle_keccak256_hash(ref[i], msgs + i * stride, 32);
                memset(got, 0, sizeof got);
                fn(got[0], msgs, stride, n);
                if (memcmp(got, ref, n * 32) != 0)
                    fail_msg("keccak kernel %s: %zu 32-byte messages, stride %zu", kernels[k], n,
                             stride);
            }
    }
    uint8_t outs32[10][32];
    assert_int_equal(merkle_keccak256_batch_strided(outs32[0], NULL, 0, pairs[0], 64, 32, 10),
                     MERKLE_OK);
    for (int i = 0; i < 10; i++) {
        merkle_keccak256_hash(out, pairs[i], 32);
        assert_memory_equal(out, outs32[i], 32);
    }
    assert_null(merkle__keccak256_kernel("sse9"));
    assert_null(merkle__keccak256_kernel32("sse9"));
    assert_non_null(merkle__keccak256_backend());
    free(msgs);
    merkle_hash_alg a;
    assert_int_equal(merkle_hash_alg_from_name(&a, "keccak256"), MERKLE_OK);
    assert_int_equal(a, MERKLE_HASH_KECCAK256);
    assert_int_equal(a, 7);
    assert_string_equal(merkle_hash_alg_name(a), "keccak256");
    assert_int_equal(merkle_hash_alg_from_name(&a, "sha3-256"), MERKLE_ERR_ARG);
    assert_int_equal(merkle_keccak256_batch_strided(outs[0], pairs[0], 65, pairs[0], 64, 64, 1),
                     MERKLE_ERR_ARG);
    free(m);
    json_free(v);
}

/* One algorithm enum (docs/library.md rule 7): names and lengths of every digest; the tree
** layer refuses the checksum-list digests. */
static void test_one_alg_enum(void **state)
{
    (void)state;
    static const struct {
        merkle_hash_alg alg;
        int value;
        const char *name;
        size_t len;
    } k[] = { { MERKLE_HASH_MD5, 1, "md5", 16 },
              { MERKLE_HASH_SHA1, 2, "sha1", 20 },
              { MERKLE_HASH_SHA256, 3, "sha256", 32 },
              { MERKLE_HASH_SHA512, 4, "sha512", 64 },
              { MERKLE_HASH_BLAKE2B, 5, "blake2b", 64 },
              { MERKLE_HASH_BLAKE2B_256, 6, "blake2b-256", 32 },
              { MERKLE_HASH_KECCAK256, 7, "keccak256", 32 } };
    for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
        assert_int_equal((int)k[i].alg, k[i].value);
        assert_string_equal(merkle_hash_alg_name(k[i].alg), k[i].name);
        assert_int_equal(merkle_hash_alg_len(k[i].alg), k[i].len);
        merkle_hasher h;
        uint8_t out[MERKLE_HASH_LEN];
        int tree = k[i].value >= 6 || k[i].value == 3;
        assert_int_equal(merkle_hasher_init(&h, k[i].alg), tree ? MERKLE_OK : MERKLE_ERR_ARG);
        assert_int_equal(merkle_hash(out, k[i].alg, "", 0), tree ? MERKLE_OK : MERKLE_ERR_ARG);
    }
    assert_int_equal(MERKLE_HASH_AUTO, 0);
    assert_null(merkle_hash_alg_name(MERKLE_HASH_AUTO));
    assert_int_equal(merkle_hash_alg_len(MERKLE_HASH_AUTO), 0);
    assert_int_equal(merkle_hash_alg_len((merkle_hash_alg)8), 0);
    assert_int_equal(merkle_hasher_struct_size(), sizeof(merkle_hasher));
    assert_int_equal(merkle_hasher_struct_align(), _Alignof(merkle_hasher));
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256_kat),    cmocka_unit_test(test_blake2b_kat),
        cmocka_unit_test(test_every_backend), cmocka_unit_test(test_generic_and_errors),
        cmocka_unit_test(test_hex_and_ct),    cmocka_unit_test(test_keccak256_kat),
        cmocka_unit_test(test_one_alg_enum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
