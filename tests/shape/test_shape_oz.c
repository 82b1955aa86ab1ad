/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The Keccak-256 shaped trees (merkle/shape.h): @openzeppelin/merkle-tree's vectors
** (openzeppelin.json: roots, proofs, multiproofs, dumps), the ABI leaf encoder (decimals,
** batches, errors), sorted leaves, and merkletreejs's vectors. Run under each Keccak kernel
** (tests/CMakeLists.txt: test_shape_oz_keccak_*).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/shape.h"
#include "shape_util.h"
#include "testutil.h"

/* ------------------------------------------------------------------ openzeppelin */

static void check_oz_tree(const merkle_shape *s, const node_t *leaves, size_t n, const json *c)
{
    uint8_t want[32], root[32];
    hex32(want, json_get_str(c, "root"), 0);
    assert_int_equal(merkle_shape_root(root, NULL, s, leaves, n, NULL), MERKLE_OK);
    assert_memory_equal(root, want, 32);
    merkle_shape_tree *t;
    assert_int_equal(merkle_shape_tree_alloc(&t, NULL, s, leaves, n, NULL), MERKLE_OK);
    merkle_shape_tree_root(root, t);
    assert_memory_equal(root, want, 32);
    /* The dump's tree array, node by node, and each value's treeIndex. */
    const json *d = json_get(c, "dump");
    if (d) {
        const json *tree = json_get(d, "tree"), *vals = json_get(d, "values");
        assert_int_equal(tree->len, 2 * n - 1);
        for (size_t i = 0; i < tree->len; i++) {
            uint8_t a[32], b[32];
            hex32(a, json_at(tree, i)->str + 2, 0);
            assert_int_equal(merkle_shape_tree_node(b, t, i), MERKLE_OK);
            assert_memory_equal(a, b, 32);
        }
        for (size_t i = 0; i < vals->len; i++) {
            uint64_t pos;
            assert_int_equal(merkle_shape_tree_position(&pos, t, i), MERKLE_OK);
            assert_int_equal(pos, (uint64_t)json_get(json_at(vals, i), "treeIndex")->integer);
        }
    }
    const json *single = json_get(c, "single");
    for (size_t k = 0; k < single->len; k++) {
        const json *p = json_at(single, k);
        uint64_t pos, idx = (uint64_t)json_get(p, "index")->integer;
        assert_int_equal(merkle_shape_tree_position(&pos, t, idx), MERKLE_OK);
        assert_int_equal(pos, (uint64_t)json_get(p, "tree_index")->integer);
        size_t pl, len;
        node_t *want_p = hex_list(json_get(p, "proof"), &pl, 0);
        node_t path[64];
        assert_int_equal(merkle_shape_tree_branch(path, 64, &len, t, pos), MERKLE_OK);
        assert_int_equal(len, pl);
        if (pl) assert_memory_equal(path, want_p, pl * 32);
        assert_int_equal(
            merkle_shape_verify(s, want, pos, leaves[idx], (const node_t *)path, len, NULL),
            MERKLE_OK);
        if (len) {
            path[len - 1][0] ^= 1;
            assert_int_equal(
                merkle_shape_verify(s, want, pos, leaves[idx], (const node_t *)path, len, NULL),
                MERKLE_ERR_VERIFY);
        }
        free(want_p);
    }
    const json *multi = json_get(c, "multi");
    for (size_t k = 0; multi && k < multi->len; k++) {
        const json *m = json_at(multi, k);
        const json *ij = json_get(m, "indices"), *fj = json_get(m, "proofFlags");
        size_t ni = ij->len;
        uint64_t *pos = malloc(ni * sizeof *pos);
        for (size_t i = 0; i < ni; i++)
            assert_int_equal(
                merkle_shape_tree_position(&pos[i], t, (uint64_t)json_at(ij, i)->integer),
                MERKLE_OK);
        size_t np, nl = 0;
        node_t *want_p = hex_list(json_get(m, "proof"), &np, 0);
        size_t cap = ni * 66 + 1, gp, gf;
        node_t *gl = malloc(cap * 32), *gpr = malloc(cap * 32);
        uint8_t *flags = malloc(cap);
        assert_int_equal(
            merkle_shape_tree_flag_multiproof(gl, gpr, &gp, flags, &gf, cap, t, pos, ni),
            MERKLE_OK);
        assert_int_equal(gp, np);
        if (np) assert_memory_equal(gpr, want_p, np * 32);
        assert_int_equal(gf, fj->len);
        for (size_t i = 0; i < gf; i++) assert_int_equal(flags[i], json_at(fj, i)->boolean);
        /* Leaves: hashes for the simple tree, values for the standard one. */
        const json *lj = json_get(m, "leaves");
        if (lj->len && json_at(lj, 0)->type == JSON_STRING) {
            node_t *wl = hex_list(lj, &nl, 0);
            assert_memory_equal(gl, wl, nl * 32);
            free(wl);
        }
        assert_int_equal(merkle_shape_flag_multiproof_verify(s, want, (const node_t *)gl, ni,
                                                             (const node_t *)gpr, gp, flags, gf,
                                                             NULL),
                         MERKLE_OK);
        if (gf) {
            flags[0] ^= 1;
            assert_int_equal(merkle_shape_flag_multiproof_verify(s, want, (const node_t *)gl, ni,
                                                                 (const node_t *)gpr, gp, flags, gf,
                                                                 NULL),
                             MERKLE_ERR_VERIFY);
            flags[0] ^= 1;
            assert_int_equal(merkle_shape_flag_multiproof_verify(s, want, (const node_t *)gl, ni,
                                                                 (const node_t *)gpr, gp, flags,
                                                                 gf - 1, NULL),
                             MERKLE_ERR_VERIFY);
        }
        free(gl);
        free(gpr);
        free(flags);
        free(want_p);
        free(pos);
    }
    merkle_shape_tree_free(t);
}

static void test_openzeppelin_vectors(void **state)
{
    (void)state;
    json *v = tu_load_vectors("openzeppelin.json");
    merkle_shape s = shape_of(MERKLE_PROFILE_OPENZEPPELIN);
    const json *simple = json_get(v, "simple"), *standard = json_get(v, "standard");
    for (size_t i = 0; i < simple->len; i++) {
        const json *c = json_at(simple, i);
        size_t n;
        node_t *leaves = hex_list(json_get(c, "leaves"), &n, 0);
        check_oz_tree(&s, (const node_t *)leaves, n, c);
        free(leaves);
    }
    for (size_t i = 0; i < standard->len; i++) {
        const json *c = json_at(standard, i);
        const json *types = json_get(c, "types"), *rows = json_get(c, "rows");
        char tl[256] = "";
        for (size_t k = 0; k < types->len; k++) {
            if (k) strcat(tl, ",");
            strcat(tl, json_at(types, k)->str);
        }
        size_t n = rows->len;
        node_t *leaves = malloc(n * 32);
        for (size_t r = 0; r < n; r++) {
            const json *row = json_at(rows, r);
            char line[2048] = "";
            for (size_t k = 0; k < row->len; k++) {
                const json *x = json_at(row, k);
                if (k) strcat(line, ",");
                if (x->type == JSON_BOOL) {
                    strcat(line, x->boolean ? "true" : "false");
                } else {
                    /* Quote everything: commas and spaces in strings survive. */
                    strcat(line, "\"");
                    strcat(line, x->str);
                    strcat(line, "\"");
                }
            }
            merkle_error e;
            assert_int_equal(merkle_shape_abi_leaf(leaves[r], tl, line, strlen(line), &e),
                             MERKLE_OK);
            uint8_t want[32];
            hex32(want, json_at(json_get(c, "leaf_hashes"), r)->str, 0);
            if (memcmp(want, leaves[r], 32) != 0)
                fail_msg("types %s row %zu: leaf hash differs", tl, r);
        }
        /* The batch call gives the same leaves (static types: the Keccak batch path;
        ** string/bytes: row by row). */
        char **rowtext = malloc(n * sizeof *rowtext);
        size_t *rowlen = malloc(n * sizeof *rowlen);
        node_t *batch = malloc(n * 32);
        for (size_t r = 0; r < n; r++) {
            const json *row = json_at(rows, r);
            rowtext[r] = calloc(1, 2048);
            for (size_t k = 0; k < row->len; k++) {
                const json *x = json_at(row, k);
                if (k) strcat(rowtext[r], ",");
                if (x->type == JSON_BOOL) {
                    strcat(rowtext[r], x->boolean ? "true" : "false");
                } else {
                    strcat(rowtext[r], "\"");
                    strcat(rowtext[r], x->str);
                    strcat(rowtext[r], "\"");
                }
            }
            rowlen[r] = strlen(rowtext[r]);
        }
        merkle_error be;
        assert_int_equal(
            merkle_shape_abi_leaves(batch, tl, (const char *const *)rowtext, rowlen, n, &be),
            MERKLE_OK);
        if (memcmp(batch, leaves, n * 32) != 0) fail_msg("types %s: batch leaves differ", tl);
        for (size_t r = 0; r < n; r++) free(rowtext[r]);
        free(rowtext);
        free(rowlen);
        free(batch);
        check_oz_tree(&s, (const node_t *)leaves, n, c);
        free(leaves);
    }
    json_free(v);
}

/* Leaf sorting: shared 8-byte prefixes and repeated leaves keep a stable bytewise order. */
static void test_sort_leaves(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 5);
    size_t n = 3000;
    node_t *v = malloc(n * 32);
    tu_rng_fill(&r, v[0], n * 32);
    for (size_t i = 0; i < n; i++) {
        if (i % 3 == 0) memset(v[i], 0xab, 8);           /* a common prefix */
        if (i % 7 == 0 && i) memcpy(v[i], v[i / 2], 32); /* repeats */
        if (i % 11 == 0) v[i][7] = (uint8_t)(i & 1);
    }
    merkle_shape s = shape_of(MERKLE_PROFILE_OPENZEPPELIN);
    merkle_shape_tree *t;
    assert_int_equal(merkle_shape_tree_alloc(&t, NULL, &s, (const node_t *)v, n, NULL), MERKLE_OK);
    /* Reference: position k holds the k-th smallest (node, index). */
    size_t *ord = malloc(n * sizeof *ord);
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        while (j > 0 && memcmp(v[ord[j - 1]], v[i], 32) > 0) {
            ord[j] = ord[j - 1];
            j--;
        }
        ord[j] = i;
    }
    for (size_t k = 0; k < n; k++) {
        uint64_t pos;
        assert_int_equal(merkle_shape_tree_position(&pos, t, ord[k]), MERKLE_OK);
        assert_int_equal(pos, 2 * n - 2 - k);
    }
    merkle_shape_tree_free(t);
    free(ord);
    free(v);
}

/* The reference for decimal parsing: one 32-byte multiply-by-10 pass per digit. -1 beyond
** 2^256. */
static int ref_dec(uint8_t w[32], const char *v, size_t len)
{
    memset(w, 0, 32);
    for (size_t i = 0; i < len; i++) {
        unsigned carry = (unsigned)(v[i] - '0');
        for (int k = 31; k >= 0; k--) {
            unsigned x = w[k] * 10u + carry;
            w[k] = (uint8_t)x;
            carry = x >> 8;
        }
        if (carry) return -1;
    }
    return 0;
}

/* uint256 decimals (1..80 digits, leading zeros, around 2^256) against the reference, and
** merkle_shape_abi_leaves against merkle_shape_abi_leaf over groups and a bad row. */
static void test_abi_decimal_and_batch(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_seed(&r, 77);
    const char *max =
        "115792089237316195423570985008687907853269984665640564039457584007913129639935";
    for (int t = 0; t < 4000; t++) {
        char d[96];
        size_t len = 1 + tu_rng_below(&r, 80);
        for (size_t i = 0; i < len; i++) d[i] = (char)('0' + tu_rng_below(&r, 10));
        if (t % 5 == 0) memcpy(d, max, len = 78); /* 2^256 - 1, then nudged */
        if (t % 5 == 0 && t % 10 == 0) d[77] = (char)('0' + tu_rng_below(&r, 10));
        d[len] = 0;
        uint8_t want[32], got[32];
        size_t n = 0;
        merkle_error e;
        int ok = ref_dec(want, d, len) == 0;
        merkle_status st = merkle_shape_abi_encode(got, sizeof got, &n, "uint256", d, len, &e);
        if (ok != (st == MERKLE_OK)) fail_msg("decimal %s: status %d, reference %d", d, st, ok);
        if (ok && memcmp(got, want, 32) != 0) fail_msg("decimal %s: wrong word", d);
    }
    /* 2,500 rows (three groups of the batch), then one bad row in the third group. */
    size_t n = 2500;
    char **rows = malloc(n * sizeof *rows);
    size_t *lens = malloc(n * sizeof *lens);
    node_t *one = malloc(n * 32), *all = malloc(n * 32);
    for (size_t i = 0; i < n; i++) {
        rows[i] = malloc(160);
        int k = snprintf(rows[i], 160, "0x%016llx%016llx%08x,%llu%llu, %s",
                         (unsigned long long)tu_rng_next(&r), (unsigned long long)tu_rng_next(&r),
                         (unsigned)i, (unsigned long long)tu_rng_next(&r),
                         (unsigned long long)tu_rng_next(&r), i % 2 ? "true" : "false");
        lens[i] = (size_t)k;
        merkle_error e;
        assert_int_equal(
            merkle_shape_abi_leaf(one[i], "address,uint256,bool", rows[i], lens[i], &e), MERKLE_OK);
    }
    merkle_error e;
    assert_int_equal(merkle_shape_abi_leaves(all, "address,uint256,bool", (const char *const *)rows,
                                             lens, n, &e),
                     MERKLE_OK);
    assert_memory_equal(all, one, n * 32);
    /* Dynamic types take the row-by-row path: same leaves as single calls. */
    assert_int_equal(
        merkle_shape_abi_leaves(all, "string,string,bool", (const char *const *)rows, lens, 7, &e),
        MERKLE_OK);
    for (size_t i = 0; i < 7; i++) {
        assert_int_equal(merkle_shape_abi_leaf(one[i], "string,string,bool", rows[i], lens[i], &e),
                         MERKLE_OK);
        assert_memory_equal(all[i], one[i], 32);
    }
    strcpy(rows[2100], "0x12,1,true");
    lens[2100] = strlen(rows[2100]);
    assert_int_equal(merkle_shape_abi_leaves(all, "address,uint256,bool", (const char *const *)rows,
                                             lens, n, &e),
                     MERKLE_ERR_FORMAT);
    assert_int_equal(e.line, 2101);
    assert_int_equal(e.offset, 0);
    assert_int_equal(merkle_shape_abi_leaves(all, "uint7", (const char *const *)rows, lens, n, &e),
                     MERKLE_ERR_ARG);
    assert_int_equal(e.line, 0);
    assert_int_equal(merkle_shape_abi_leaves(NULL, "uint8", NULL, NULL, 3, &e), MERKLE_ERR_ARG);
    assert_int_equal(merkle_shape_abi_leaves(NULL, "uint8", NULL, NULL, 0, &e), MERKLE_OK);
    for (size_t i = 0; i < n; i++) free(rows[i]);
    free(rows);
    free(lens);
    free(one);
    free(all);
}

static void test_abi_errors(void **state)
{
    (void)state;
    uint8_t out[32], buf[256];
    size_t n;
    merkle_error e;
    static const struct {
        const char *types, *row;
        merkle_status st;
    } bad[] = {
        { "uint7", "1", MERKLE_ERR_ARG },
        { "bytes33", "0x00", MERKLE_ERR_ARG },
        { "tuple", "1", MERKLE_ERR_ARG },
        { "uint256,", "1", MERKLE_ERR_ARG },
        { "uint8", "256", MERKLE_ERR_FORMAT },
        { "int8", "128", MERKLE_ERR_FORMAT },
        { "int8", "-129", MERKLE_ERR_FORMAT },
        { "uint256", "-1", MERKLE_ERR_FORMAT },
        { "address", "0x12", MERKLE_ERR_FORMAT },
        { "bool", "yes", MERKLE_ERR_FORMAT },
        { "bytes4", "0x0102", MERKLE_ERR_FORMAT },
        { "bytes", "0x1", MERKLE_ERR_FORMAT },
        { "uint256,uint256", "1", MERKLE_ERR_FORMAT },
        { "string", "\"open", MERKLE_ERR_FORMAT },
        { "uint256",
          "115792089237316195423570985008687907853269984665640564039457584007913129639936",
          MERKLE_ERR_FORMAT },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        merkle_status st =
            merkle_shape_abi_leaf(out, bad[i].types, bad[i].row, strlen(bad[i].row), &e);
        if (st != bad[i].st) fail_msg("%s / %s: status %d", bad[i].types, bad[i].row, st);
    }
    /* -128 fits int8; a quoted comma stays in the string; the buffer size is reported. */
    assert_int_equal(merkle_shape_abi_leaf(out, "int8", "-128", 4, &e), MERKLE_OK);
    assert_int_equal(merkle_shape_abi_encode(buf, 8, &n, "string", "\"a,b\"", 5, &e),
                     MERKLE_ERR_BUFFER);
    assert_int_equal(n, 96);
    assert_int_equal(merkle_shape_abi_encode(buf, sizeof buf, &n, "string", "\"a,b\"", 5, &e),
                     MERKLE_OK);
    assert_int_equal(buf[63], 3);
    assert_memory_equal(buf + 64, "a,b", 3);
    /* A heap tree has no empty form. */
    merkle_shape s = shape_of(MERKLE_PROFILE_OPENZEPPELIN);
    assert_int_equal(merkle_shape_root(out, NULL, &s, NULL, 0, &e), MERKLE_ERR_RANGE);
}

/* ------------------------------------------------------------------ merkletreejs */

/* merkletreejs options as shape flags: sortPairs -> SORTED_PAIRS, sortLeaves -> SORT_LEAVES,
** duplicateOdd -> ODD_DUPLICATE, the default -> ODD_PROMOTE without prefixes, isBitcoinTree ->
** the bitcoin profile over display-order hashes. ("complete" is not a shape of ours: the
** generator records that it differs from @openzeppelin/merkle-tree.) */
static void test_merkletreejs_vectors(void **state)
{
    (void)state;
    json *v = tu_load_vectors("merkletreejs.json");
    const json *trees = json_get(v, "trees");
    size_t checked = 0;
    for (size_t i = 0; i < trees->len; i++) {
        const json *t = json_at(trees, i), *o = json_get(t, "options");
        if (json_get(o, "complete")) continue;
        size_t n = (size_t)json_get(t, "n")->integer;
        node_t *leaves = malloc(n * 32);
        for (size_t k = 0; k < n; k++) {
            uint8_t be[4] = { (uint8_t)(k >> 24), (uint8_t)(k >> 16), (uint8_t)(k >> 8),
                              (uint8_t)k };
            merkle_keccak256_hash(leaves[k], be, 4);
        }
        merkle_shape s;
        uint8_t root[32], want[32];
        int bitcoin = json_get(o, "isBitcoinTree") != NULL;
        if (bitcoin) {
            s = shape_of(MERKLE_PROFILE_BITCOIN);
            for (size_t k = 0; k < n; k++) rev32(leaves[k]);
        } else {
            s = shape_of(MERKLE_PROFILE_SSZ); /* SHA-256, no prefix */
            s.odd =
                json_get(o, "duplicateOdd") ? MERKLE_SHAPE_ODD_DUPLICATE : MERKLE_SHAPE_ODD_PROMOTE;
            if (json_get(o, "sortPairs")) s.flags |= MERKLE_SHAPE_SORTED_PAIRS;
            if (json_get(o, "sortLeaves")) s.flags |= MERKLE_SHAPE_SORT_LEAVES;
            if (!strcmp(json_get_str(t, "hash"), "keccak256")) s.hash = MERKLE_HASH_KECCAK256;
        }
        assert_int_equal(merkle_shape_root(root, NULL, &s, (const node_t *)leaves, n, NULL),
                         MERKLE_OK);
        if (bitcoin) rev32(root);
        hex32(want, json_get_str(t, "root"), 0);
        if (memcmp(root, want, 32) != 0)
            fail_msg("merkletreejs %s, n = %zu", json_get_str(t, "name"), n);
        checked++;
        free(leaves);
    }
    assert_true(checked >= 40);
    json_free(v);
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_openzeppelin_vectors),  cmocka_unit_test(test_abi_errors),
        cmocka_unit_test(test_abi_decimal_and_batch), cmocka_unit_test(test_sort_leaves),
        cmocka_unit_test(test_merkletreejs_vectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
