/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Raw Bitcoin data (merkle/bitcoin.h): the real blocks of ../shared/vectors/bitcoin-blocks.json
** (bitcoinjs-lib's fixtures: header roots and the witness commitment; not committed here, so
** that part skips when absent) against the txids of tests/vectors/bitcoin.json, and built
** transactions and blocks for every rule and error path.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json.h"
#include "merkle/merkle.h"
#include "testutil.h"

static void sha256d(uint8_t out[32], const uint8_t *p, size_t n)
{
    uint8_t h[32];
    merkle_sha256_hash(h, p, n);
    merkle_sha256_hash(out, h, 32);
}

static void rev(uint8_t *h)
{
    for (int i = 0; i < 16; i++) {
        uint8_t t = h[i];
        h[i] = h[31 - i];
        h[31 - i] = t;
    }
}

/* A byte buffer to build transactions in. */
typedef struct buf {
    uint8_t b[4096];
    size_t n;
} buf;

static void put(buf *b, const void *p, size_t n)
{
    memcpy(b->b + b->n, p, n);
    b->n += n;
}
static void put1(buf *b, uint8_t x)
{
    put(b, &x, 1);
}
static void put4(buf *b, uint32_t x)
{
    for (int i = 0; i < 4; i++) put1(b, (uint8_t)(x >> (8 * i)));
}

/* A transaction of one input and one output (script `script`), with or without a witness of
** one item; `plain` receives its serialization without the witness (the txid's bytes). */
static void make_tx(buf *tx, buf *plain, int witness, const uint8_t *script, size_t slen,
                    const uint8_t item[32])
{
    for (int pass = 0; pass < 2; pass++) {
        buf *b = pass ? tx : plain;
        int w = pass && witness;
        b->n = 0;
        put4(b, 2);
        if (w) put(b, "\x00\x01", 2);
        put1(b, 1);
        uint8_t outpoint[36];
        memset(outpoint, 0xab, sizeof outpoint);
        put(b, outpoint, 36);
        put1(b, 0);
        put4(b, 0xffffffff);
        put1(b, 1);
        put(b, "\x40\x42\x0f\x00\x00\x00\x00\x00", 8);
        put1(b, (uint8_t)slen);
        put(b, script, slen);
        if (w) {
            put1(b, 1);
            put1(b, 32);
            put(b, item, 32);
        }
        put4(b, 0);
    }
}

static void test_tx_ids(void **state)
{
    (void)state;
    uint8_t item[32], txid[32], wtxid[32], want[32];
    memset(item, 0x5a, 32);
    buf tx, plain;
    make_tx(&tx, &plain, 1, (const uint8_t *)"\x51", 1, item);
    size_t used = 0;
    int sw = -1;
    merkle_error e;
    assert_int_equal(merkle_bitcoin_tx_id(txid, wtxid, &used, &sw, tx.b, tx.n, &e), MERKLE_OK);
    assert_int_equal(used, tx.n);
    assert_int_equal(sw, 1);
    sha256d(want, plain.b, plain.n);
    assert_memory_equal(txid, want, 32);
    sha256d(want, tx.b, tx.n);
    assert_memory_equal(wtxid, want, 32);
    /* txid alone (no wtxid asked), and trailing bytes left alone. */
    tx.b[tx.n] = 0xee;
    assert_int_equal(merkle_bitcoin_tx_id(txid, NULL, &used, NULL, tx.b, tx.n + 1, &e), MERKLE_OK);
    assert_int_equal(used, tx.n);
    sha256d(want, plain.b, plain.n);
    assert_memory_equal(txid, want, 32);
    /* Without witness: txid == wtxid == SHA-256d of everything. */
    assert_int_equal(merkle_bitcoin_tx_id(txid, wtxid, &used, &sw, plain.b, plain.n, &e),
                     MERKLE_OK);
    assert_int_equal(sw, 0);
    assert_memory_equal(txid, wtxid, 32);
    /* Every truncation is a format error. */
    for (size_t n = 0; n < tx.n; n++)
        if (merkle_bitcoin_tx_id(txid, wtxid, NULL, NULL, tx.b, n, &e) != MERKLE_ERR_FORMAT)
            fail_msg("truncated to %zu bytes: not refused", n);
    /* A non-minimal CompactSize (fd 0100 for 1 input). */
    buf nc;
    nc.n = 0;
    put(&nc, plain.b, 4);
    put(&nc, "\xfd\x01\x00", 3);
    put(&nc, plain.b + 5, plain.n - 5);
    assert_int_equal(merkle_bitcoin_tx_id(txid, NULL, NULL, NULL, nc.b, nc.n, &e),
                     MERKLE_ERR_FORMAT);
    assert_non_null(strstr(e.message, "non-canonical"));
    /* Flag 2 (unknown optional data) and an all-empty witness section. */
    buf bad = tx;
    bad.b[5] = 0x02;
    assert_int_equal(merkle_bitcoin_tx_id(txid, NULL, NULL, NULL, bad.b, bad.n, &e),
                     MERKLE_ERR_FORMAT);
    buf empty;
    empty.n = 0;
    put(&empty, tx.b, plain.n + 2 - 4); /* up to the witness */
    put1(&empty, 0);                    /* zero items */
    put4(&empty, 0);
    assert_int_equal(merkle_bitcoin_tx_id(txid, NULL, NULL, NULL, empty.b, empty.n, &e),
                     MERKLE_ERR_FORMAT);
    assert_int_equal(merkle_bitcoin_tx_id(txid, NULL, NULL, NULL, NULL, 5, &e), MERKLE_ERR_ARG);
}

/* A block: header (root field filled from the txids) || count || coinbase || one more tx. */
static void make_block(buf *blk, int commit_ok, int with_commitment, int witness_tx)
{
    uint8_t item[32], other[32];
    memset(item, 0, 32); /* the witness reserved value */
    memset(other, 0x77, 32);
    buf tx2, plain2, cb, cbplain;
    make_tx(&tx2, &plain2, witness_tx, (const uint8_t *)"\x51", 1, other);
    /* wtxid root: coinbase as zero, then tx2's wtxid */
    uint8_t w[2][32];
    memset(w[0], 0, 32);
    sha256d(w[1], tx2.b, tx2.n);
    uint8_t cat[64], wroot[32], commitment[32];
    memcpy(cat, w[0], 32);
    memcpy(cat + 32, w[1], 32);
    sha256d(wroot, cat, 64);
    memcpy(cat, wroot, 32);
    memcpy(cat + 32, item, 32);
    sha256d(commitment, cat, 64);
    if (!commit_ok) commitment[0] ^= 1;
    uint8_t script[38] = { 0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed };
    memcpy(script + 6, commitment, 32);
    if (with_commitment)
        make_tx(&cb, &cbplain, 1, script, sizeof script, item);
    else
        make_tx(&cb, &cbplain, 0, (const uint8_t *)"\x51", 1, item);
    uint8_t ids[2][32];
    sha256d(ids[0], cbplain.b, cbplain.n);
    sha256d(ids[1], plain2.b, plain2.n);
    memcpy(cat, ids[0], 32);
    memcpy(cat + 32, ids[1], 32);
    uint8_t root[32];
    sha256d(root, cat, 64);
    blk->n = 0;
    uint8_t header[80];
    memset(header, 0x11, sizeof header);
    memcpy(header + 36, root, 32);
    put(blk, header, 80);
    put1(blk, 2);
    put(blk, cb.b, cb.n);
    put(blk, tx2.b, tx2.n);
}

static void test_blocks_built(void **state)
{
    (void)state;
    buf blk;
    uint8_t(*ids)[32] = NULL;
    merkle_bitcoin_block info;
    merkle_error e;
    make_block(&blk, 1, 1, 1);
    assert_int_equal(merkle_bitcoin_block_txids_alloc(&ids, &info, blk.b, blk.n, &e), MERKLE_OK);
    assert_int_equal(info.ntx, 2);
    assert_int_equal(info.segwit, 1);
    assert_int_equal(info.has_commitment, 1);
    merkle_shape s;
    merkle_shape_init(&s, MERKLE_SHAPE_VERSION, MERKLE_PROFILE_BITCOIN);
    uint8_t root[32];
    assert_int_equal(merkle_shape_root(root, NULL, &s, (const uint8_t(*)[32])ids, 2, &e),
                     MERKLE_OK);
    assert_memory_equal(root, info.header_root, 32);
    merkle_bitcoin_free(ids);
    /* A commitment that does not match; witness data without a commitment. */
    make_block(&blk, 0, 1, 1);
    assert_int_equal(merkle_bitcoin_block_txids_alloc(&ids, &info, blk.b, blk.n, &e),
                     MERKLE_ERR_VERIFY);
    assert_non_null(ids);
    merkle_bitcoin_free(ids);
    make_block(&blk, 1, 0, 1);
    assert_int_equal(merkle_bitcoin_block_txids_alloc(&ids, &info, blk.b, blk.n, &e),
                     MERKLE_ERR_VERIFY);
    merkle_bitcoin_free(ids);
    /* No witness anywhere and no commitment: fine. */
    make_block(&blk, 1, 0, 0);
    assert_int_equal(merkle_bitcoin_block_txids_alloc(&ids, &info, blk.b, blk.n, &e), MERKLE_OK);
    assert_int_equal(info.segwit, 0);
    merkle_bitcoin_free(ids);
    /* Trailing bytes, truncation, a count that cannot fit (no allocation of it), no txs. */
    make_block(&blk, 1, 1, 1);
    blk.b[blk.n] = 0;
    assert_int_equal(merkle_bitcoin_block_txids_alloc(&ids, &info, blk.b, blk.n + 1, &e),
                     MERKLE_ERR_FORMAT);
    assert_null(ids);
    assert_int_equal(merkle_bitcoin_block_txids_alloc(&ids, &info, blk.b, blk.n - 1, &e),
                     MERKLE_ERR_FORMAT);
    assert_int_equal(e.line, 2);
    blk.b[80] = 0xff;
    memcpy(blk.b + 81, "\xff\xff\xff\xff\xff\xff\xff\x7f", 8);
    assert_int_equal(merkle_bitcoin_block_txids_alloc(&ids, &info, blk.b, 89 + 20, &e),
                     MERKLE_ERR_FORMAT);
    blk.b[80] = 0;
    assert_int_equal(merkle_bitcoin_block_txids_alloc(&ids, &info, blk.b, 81, &e),
                     MERKLE_ERR_FORMAT);
    assert_int_equal(merkle_bitcoin_block_txids_alloc(&ids, &info, blk.b, 79, &e),
                     MERKLE_ERR_FORMAT);
    assert_int_equal(merkle_bitcoin_block_txids_alloc(NULL, &info, blk.b, 79, &e), MERKLE_ERR_ARG);
    merkle_bitcoin_free(NULL);
}

static json *g_blocks, *g_txids;

static const char *shared_path(void)
{
    const char *e = getenv("MERKLE_SHARED_VECTORS");
    static char path[4096];
    if (e && *e)
        snprintf(path, sizeof path, "%s/bitcoin-blocks.json", e);
    else
        snprintf(path, sizeof path, "%s/../../../shared/vectors/bitcoin-blocks.json",
                 MERKLE_VECTOR_DIR);
    return path;
}

/* The real blocks: header root = root of our txids, txids = bitcoinjs-lib's (bitcoin.json),
** the witness commitment found and checked. */
static void test_real_blocks(void **state)
{
    (void)state;
    if (!g_blocks) skip();
    const json *blocks = json_get(g_blocks, "blocks");
    const json *theirs = json_get(g_txids, "blocks");
    size_t checked = 0;
    for (size_t i = 0; i < blocks->len; i++) {
        const json *b = json_at(blocks, i);
        size_t n = 0;
        uint8_t *raw = tu_unhex(json_get_str(b, "hex"), &n);
        uint8_t(*ids)[32] = NULL;
        merkle_bitcoin_block info;
        merkle_error e;
        if (merkle_bitcoin_block_txids_alloc(&ids, &info, raw, n, &e) != MERKLE_OK)
            fail_msg("%s: %s", json_get_str(b, "description"), e.message);
        tu_assert_hex(info.header_root, 32, json_get_str(b, "merkleRoot"), "header root");
        merkle_shape s;
        merkle_shape_init(&s, MERKLE_SHAPE_VERSION, MERKLE_PROFILE_BITCOIN);
        uint8_t root[32];
        assert_int_equal(merkle_shape_root(root, NULL, &s, (const uint8_t(*)[32])ids, info.ntx, &e),
                         MERKLE_OK);
        assert_memory_equal(root, info.header_root, 32);
        const char *wc = json_get_str(b, "witnessCommit");
        assert_int_equal(info.has_commitment, wc != NULL);
        if (wc) tu_assert_hex(info.commitment, 32, wc, "witness commitment");
        /* The same block in bitcoin.json (by name): every txid, display order. */
        for (size_t k = 0; theirs && k < theirs->len; k++) {
            const json *t = json_at(theirs, k);
            if (strcmp(json_get_str(t, "name"), json_get_str(b, "description")) != 0) continue;
            const json *list = json_get(t, "txids");
            assert_int_equal(list->len, info.ntx);
            for (size_t j = 0; j < list->len; j++) {
                uint8_t d[32];
                memcpy(d, ids[j], 32);
                rev(d);
                tu_assert_hex(d, 32, json_at(list, j)->str, "txid");
            }
            checked++;
        }
        merkle_bitcoin_free(ids);
        free(raw);
    }
    assert_true(checked >= 5);
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]); /* one case by name (glob) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tx_ids),
        cmocka_unit_test(test_blocks_built),
        cmocka_unit_test(test_real_blocks),
    };
    g_blocks = json_parse_file(shared_path());
    g_txids = json_parse_file(MERKLE_VECTOR_DIR "/bitcoin.json");
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (!g_blocks && rc == 0) {
        printf("SKIP: %s not found (real blocks are not committed; set MERKLE_SHARED_VECTORS): "
               "only the tests without them ran\n",
               shared_path());
        rc = 77;
    }
    json_free(g_blocks);
    json_free(g_txids);
    return rc;
}
