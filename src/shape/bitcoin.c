/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Raw Bitcoin transactions and blocks (merkle/bitcoin.h): the serialization rules of Bitcoin
** Core's UnserializeTransaction (BIP 144: a zero input count followed by a non-zero flag byte
** introduces witness data), txids without the witness, wtxids with it, and the BIP 141 witness
** commitment of a block's coinbase.
*/
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"
#include "merkle/bitcoin.h"
#include "merkle/hash.h"
#include "merkle/shape.h"

typedef struct reader {
    const uint8_t *p;
    size_t len, pos;
    merkle_error *err;
} reader;

static merkle_status truncated(reader *r, const char *what)
{
    return merkle__fail(r->err, MERKLE_ERR_FORMAT, 0, r->pos, "truncated %s at byte %zu", what,
                        r->pos);
}

static merkle_status skip(reader *r, uint64_t n, const char *what)
{
    if (n > r->len - r->pos) return truncated(r, what);
    r->pos += (size_t)n;
    return MERKLE_OK;
}

/* A CompactSize, minimally encoded. */
static merkle_status compact(reader *r, uint64_t *v, const char *what)
{
    if (r->pos >= r->len) return truncated(r, what);
    uint8_t b = r->p[r->pos];
    size_t n = b < 0xfd ? 0 : b == 0xfd ? 2 : b == 0xfe ? 4 : 8;
    if (n > r->len - r->pos - 1) return truncated(r, what);
    uint64_t x = b;
    if (n) {
        x = 0;
        for (size_t i = 0; i < n; i++) x |= (uint64_t)r->p[r->pos + 1 + i] << (8 * i);
        uint64_t min = n == 2 ? 0xfd : n == 4 ? 0x10000 : 0x100000000ull;
        if (x < min)
            return merkle__fail(r->err, MERKLE_ERR_FORMAT, 0, r->pos,
                                "non-canonical CompactSize (%s) at byte %zu", what, r->pos);
    }
    r->pos += 1 + n;
    *v = x;
    return MERKLE_OK;
}

/* What a transaction's parse records for the block checks (coinbase only). */
typedef struct tx_facts {
    int segwit;
    int has_commitment;
    uint8_t commitment[32];
    int reserved_ok; /* first input's witness is exactly one 32-byte item */
    uint8_t reserved[32];
} tx_facts;

static merkle_status inputs(reader *r, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        uint64_t sl = 0;
        merkle_status st = skip(r, 36, "input outpoint");
        if (st == MERKLE_OK) st = compact(r, &sl, "input script length");
        if (st == MERKLE_OK) st = skip(r, sl, "input script");
        if (st == MERKLE_OK) st = skip(r, 4, "input sequence");
        if (st != MERKLE_OK) return st;
    }
    return MERKLE_OK;
}

static merkle_status outputs(reader *r, uint64_t n, tx_facts *f)
{
    static const uint8_t tag[6] = { 0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed };
    for (uint64_t i = 0; i < n; i++) {
        uint64_t sl = 0;
        merkle_status st = skip(r, 8, "output value");
        if (st == MERKLE_OK) st = compact(r, &sl, "output script length");
        size_t at = r->pos;
        if (st == MERKLE_OK) st = skip(r, sl, "output script");
        if (st != MERKLE_OK) return st;
        if (sl >= 38 && memcmp(r->p + at, tag, 6) == 0) { /* the last one counts (BIP 141) */
            f->has_commitment = 1;
            memcpy(f->commitment, r->p + at + 6, 32);
        }
    }
    return MERKLE_OK;
}

static merkle_status witnesses(reader *r, uint64_t nin, tx_facts *f)
{
    int any = 0;
    for (uint64_t i = 0; i < nin; i++) {
        uint64_t items;
        merkle_status st = compact(r, &items, "witness item count");
        if (st != MERKLE_OK) return st;
        any |= items != 0;
        for (uint64_t k = 0; k < items; k++) {
            uint64_t il = 0;
            st = compact(r, &il, "witness item length");
            size_t at = r->pos;
            if (st == MERKLE_OK) st = skip(r, il, "witness item");
            if (st != MERKLE_OK) return st;
            if (i == 0 && items == 1 && il == 32) {
                f->reserved_ok = 1;
                memcpy(f->reserved, r->p + at, 32);
            }
        }
    }
    if (!any)
        return merkle__fail(r->err, MERKLE_ERR_FORMAT, 0, r->pos,
                            "superfluous witness record (every witness is empty)");
    return MERKLE_OK;
}

static void sha256d(uint8_t out[32], merkle_sha256 *c)
{
    uint8_t h[32];
    merkle_sha256_final(c, h);
    merkle_sha256_hash(out, h, 32);
}

static merkle_status parse_tx(uint8_t txid[32], uint8_t wtxid[32], tx_facts *f, reader *r)
{
    size_t start = r->pos;
    memset(f, 0, sizeof *f);
    uint64_t nin, nout = 0;
    uint8_t flag = 0;
    merkle_status st = skip(r, 4, "version");
    if (st == MERKLE_OK) st = compact(r, &nin, "input count");
    size_t body = start + 4; /* where the non-witness serialization continues after version */
    if (st != MERKLE_OK) return st;
    if (nin == 0) { /* an empty input list, or the BIP 144 marker */
        if (r->pos >= r->len) return truncated(r, "flag");
        flag = r->p[r->pos++];
        if (flag != 0) {
            body = r->pos;
            st = compact(r, &nin, "input count");
            if (st == MERKLE_OK) st = inputs(r, nin);
            if (st == MERKLE_OK) st = compact(r, &nout, "output count");
            if (st == MERKLE_OK) st = outputs(r, nout, f);
        }
    } else {
        st = inputs(r, nin);
        if (st == MERKLE_OK) st = compact(r, &nout, "output count");
        if (st == MERKLE_OK) st = outputs(r, nout, f);
    }
    if (st != MERKLE_OK) return st;
    size_t body_end = r->pos;
    if (flag & 1) {
        if (nin == 0)
            return merkle__fail(r->err, MERKLE_ERR_FORMAT, 0, r->pos,
                                "witness flag on a transaction without inputs");
        st = witnesses(r, nin, f);
        if (st != MERKLE_OK) return st;
        f->segwit = 1;
        flag ^= 1;
    }
    if (flag)
        return merkle__fail(r->err, MERKLE_ERR_FORMAT, 0, start,
                            "unknown transaction optional data (flag 0x%02x)", flag);
    st = skip(r, 4, "lock time");
    if (st != MERKLE_OK) return st;
    const uint8_t *p = r->p + start;
    size_t n = r->pos - start;
    merkle_sha256 c;
    if (wtxid) {
        merkle_sha256_init(&c);
        merkle_sha256_update(&c, p, n);
        sha256d(wtxid, &c);
    }
    if (txid) {
        if (!f->segwit && wtxid) {
            memcpy(txid, wtxid, 32);
        } else {
            merkle_sha256_init(&c);
            merkle_sha256_update(&c, p, 4);
            merkle_sha256_update(&c, r->p + body, body_end - body);
            merkle_sha256_update(&c, r->p + r->pos - 4, 4);
            sha256d(txid, &c);
        }
    }
    return MERKLE_OK;
}

merkle_status merkle_bitcoin_tx_id(uint8_t txid[MERKLE_HASH_LEN], uint8_t wtxid[MERKLE_HASH_LEN],
                                   size_t *consumed, int *segwit, const uint8_t *tx, size_t len,
                                   merkle_error *err)
{
    if (!tx && len) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    reader r = { tx ? tx : (const uint8_t *)"", len, 0, err };
    tx_facts f;
    merkle_status st = parse_tx(txid, wtxid, &f, &r);
    if (st != MERKLE_OK) return st;
    if (consumed) *consumed = r.pos;
    if (segwit) *segwit = f.segwit;
    return MERKLE_OK;
}

/* The smallest transaction: version, one-byte counts, lock time. */
#define MIN_TX 10

merkle_status merkle_bitcoin_block_txids_alloc(uint8_t (**txids)[MERKLE_HASH_LEN],
                                               merkle_bitcoin_block *info, const uint8_t *block,
                                               size_t len, merkle_error *err)
{
    if (!txids || !info || (!block && len))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL argument");
    *txids = NULL;
    memset(info, 0, sizeof *info);
    reader r = { block ? block : (const uint8_t *)"", len, 0, err };
    if (len < 80) return merkle__fail(err, MERKLE_ERR_FORMAT, 0, 0, "a block header is 80 bytes");
    memcpy(info->header_root, block + 36, 32);
    r.pos = 80;
    uint64_t n;
    merkle_status st = compact(&r, &n, "transaction count");
    if (st != MERKLE_OK) return st;
    if (n == 0)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, r.pos, "a block without transactions");
    if (n > (r.len - r.pos) / MIN_TX)
        return merkle__fail(err, MERKLE_ERR_FORMAT, 0, r.pos,
                            "%llu transactions cannot fit in %zu bytes", (unsigned long long)n,
                            r.len - r.pos);
    uint8_t(*ids)[32] = malloc((size_t)n * 32);
    uint8_t(*wids)[32] = malloc((size_t)n * 32);
    if (!ids || !wids) {
        free(ids);
        free(wids);
        return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    }
    tx_facts coinbase, f;
    for (uint64_t i = 0; i < n && st == MERKLE_OK; i++) {
        st = parse_tx(ids[i], wids[i], i == 0 ? &coinbase : &f, &r);
        if (st != MERKLE_OK && err) err->line = i + 1;
        if (st == MERKLE_OK) info->segwit |= (i == 0 ? coinbase.segwit : f.segwit);
    }
    if (st == MERKLE_OK && r.pos != r.len)
        st = merkle__fail(err, MERKLE_ERR_FORMAT, 0, r.pos, "%zu bytes after the last transaction",
                          r.len - r.pos);
    if (st != MERKLE_OK) {
        free(ids);
        free(wids);
        return st;
    }
    info->ntx = n;
    memset(wids[0], 0, 32); /* BIP 141: the coinbase's wtxid is taken as zero */
    merkle_shape s;
    merkle_shape_init(&s, MERKLE_SHAPE_VERSION, MERKLE_PROFILE_BITCOIN);
    s.flags &= ~(uint32_t)MERKLE_SHAPE_DETECT_MUTATION;
    st = merkle_shape_root(info->witness_root, NULL, &s, (const uint8_t(*)[32])wids, n, err);
    free(wids);
    if (st != MERKLE_OK) {
        free(ids);
        return st;
    }
    *txids = ids;
    info->has_commitment = coinbase.has_commitment;
    if (coinbase.has_commitment) {
        memcpy(info->commitment, coinbase.commitment, 32);
        if (!coinbase.reserved_ok)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 1, 0,
                                "the coinbase's witness is not one 32-byte reserved value");
        merkle_sha256 c;
        merkle_sha256_init(&c);
        merkle_sha256_update(&c, info->witness_root, 32);
        merkle_sha256_update(&c, coinbase.reserved, 32);
        uint8_t want[32];
        sha256d(want, &c);
        if (memcmp(want, coinbase.commitment, 32) != 0)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 1, 0,
                                "the witness commitment does not match the wtxids");
    } else if (info->segwit) {
        return merkle__fail(err, MERKLE_ERR_VERIFY, 1, 0,
                            "witness data in a block without a witness commitment");
    }
    return MERKLE_OK;
}

void merkle_bitcoin_free(void *p)
{
    free(p);
}
