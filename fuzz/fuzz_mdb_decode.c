/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Fuzz the merkledb proof decoders (merkle/mdb.h) and the verifiers behind them, on
** untrusted bytes. Input byte 0 selects:
**   bits 0-1  0: sync.RangeProof, 1: sync.ChangeProof, 2: a key proof path (the rest is a
**             sequence of [length byte][length bytes] sync.ProofNode messages), 3: as 0
**   bits 2-3  branch factor of the verifier: 2, 4, 16, 256
** bytes 1..32 are a root ID, the rest the proof. Every decoded proof must satisfy the
** documented invariants (key bytes, ascending child indexes below 256); a proof whose key
** lengths are all non-negative must encode, decode again and encode to the same bytes; and
** then the verifier runs (range: RangeProof.Verify without bounds and with bounds taken from
** the proof's own keys; change: VerifyChangeProof on a small fixed database; path:
** Proof.Verify of the proof's last node key) and must return a verdict without crashing.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merkle/mdb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_nodes(const merkle_mdb_node *n, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (n[i].key_bits >= 0 && n[i].key_len != (size_t)((n[i].key_bits + 7) / 8)) abort();
        if (n[i].key_len && n[i].key == NULL) abort();
        if (n[i].key_bits > 0 && (n[i].key_bits % 8) != 0 &&
            (n[i].key[n[i].key_len - 1] & (0xffu >> (n[i].key_bits % 8))) != 0)
            abort(); /* padding bits are zero */
        for (size_t c = 0; c < n[i].nchildren; c++) {
            if (n[i].children[c].index > 255) abort();
            if (c && n[i].children[c].index <= n[i].children[c - 1].index) abort();
        }
    }
}

static int keys_valid(const merkle_mdb_node *n, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (n[i].key_bits < 0) return 0;
    return 1;
}

/* encode(p) -> decode -> encode must give the same bytes. */
static void round_trip(const merkle_mdb_proof *p, merkle_mdb_msg msg)
{
    if (!keys_valid(p->start_proof, p->nstart) || !keys_valid(p->end_proof, p->nend)) return;
    size_t need = 0, need2 = 0;
    merkle_status st = merkle_mdb_proof_encode(NULL, 0, &need, p, msg);
    if (st != MERKLE_OK && st != MERKLE_ERR_BUFFER) abort();
    uint8_t *a = malloc(need + 1);
    if (a == NULL) abort();
    if (merkle_mdb_proof_encode(a, need, &need, p, msg) != MERKLE_OK) abort();
    merkle_mdb_proof *q = NULL;
    merkle_mdb_result res;
    if (merkle_mdb_proof_decode(&q, &res, msg, a, need) != MERKLE_OK) abort();
    if (q->nstart != p->nstart || q->nend != p->nend || q->nkvs != p->nkvs) abort();
    (void)merkle_mdb_proof_encode(NULL, 0, &need2, q, msg);
    uint8_t *b = malloc(need2 + 1);
    if (b == NULL) abort();
    if (merkle_mdb_proof_encode(b, need2, &need2, q, msg) != MERKLE_OK) abort();
    if (need2 != need || memcmp(a, b, need) != 0) abort();
    merkle_mdb_proof_free(q);
    free(a);
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned bfs[] = { 2, 4, 16, 256 };
    if (size < 33 || size > 1 << 16) return 0;
    unsigned mode = data[0] & 3, bf = bfs[(data[0] >> 2) & 3];
    const uint8_t *root = data + 1, *body = data + 33;
    size_t len = size - 33;
    merkle_mdb_proof *p = NULL;
    merkle_mdb_result res;
    merkle_mdb_maybe none = { NULL, 0, 0 };
    if (mode == 2) {
        const uint8_t *bufs[64];
        size_t lens[64], n = 0, pos = 0;
        while (pos < len && n < 64) {
            size_t l = body[pos++];
            if (l > len - pos) l = len - pos;
            bufs[n] = body + pos;
            lens[n++] = l;
            pos += l;
        }
        merkle_status st = merkle_mdb_path_decode(&p, &res, bufs, lens, n);
        if (st != MERKLE_OK) {
            if (st != MERKLE_ERR_FORMAT || res.kind == MERKLE_MDB_OK) abort();
            return 0;
        }
        if (p->nstart != n) abort();
        check_nodes(p->start_proof, p->nstart);
        const merkle_mdb_node *last = n ? &p->start_proof[n - 1] : NULL;
        const uint8_t *key = last && last->key_bits >= 0 ? last->key : NULL;
        size_t key_len = key ? last->key_len : 0;
        merkle_mdb_maybe value = { body, len > 8 ? 8 : len, (data[0] >> 4) & 1 };
        st = merkle_mdb_verify_key(&res, p, key, key_len, value, root, bf);
        if (st != MERKLE_OK && st != MERKLE_ERR_VERIFY) abort();
        merkle_mdb_proof_free(p);
        return 0;
    }
    merkle_mdb_msg msg = mode == 1 ? MERKLE_MDB_CHANGE_PROOF : MERKLE_MDB_RANGE_PROOF;
    merkle_status st = merkle_mdb_proof_decode(&p, &res, msg, body, len);
    if (st != MERKLE_OK) {
        if (st != MERKLE_ERR_FORMAT || res.kind == MERKLE_MDB_OK) abort();
        return 0;
    }
    check_nodes(p->start_proof, p->nstart);
    check_nodes(p->end_proof, p->nend);
    for (size_t i = 0; i < p->nkvs; i++) {
        if (p->kvs[i].key_len && p->kvs[i].key == NULL) abort();
        if (msg == MERKLE_MDB_RANGE_PROOF && !p->kvs[i].value.some) abort();
    }
    round_trip(p, msg);
    int64_t max_length = (int64_t)(data[0] >> 4) + 1;
    if (msg == MERKLE_MDB_RANGE_PROOF) {
        st = merkle_mdb_verify_range(&res, p, none, none, root, bf, INT64_MAX);
        if (st != MERKLE_OK && st != MERKLE_ERR_VERIFY) abort();
        if (p->nkvs) {
            merkle_mdb_maybe start = { p->kvs[0].key, p->kvs[0].key_len, 1 };
            merkle_mdb_maybe end = { p->kvs[p->nkvs - 1].key, p->kvs[p->nkvs - 1].key_len, 1 };
            st = merkle_mdb_verify_range(&res, p, start, end, root, bf, max_length);
            if (st != MERKLE_OK && st != MERKLE_ERR_VERIFY) abort();
        }
    } else {
        merkle_mdb_db *db;
        if (merkle_mdb_db_alloc(&db, bf, 1) != MERKLE_OK) abort();
        static const uint8_t k[3] = { 0x61, 0x62, 0x6b };
        merkle_mdb_op ops[3];
        for (int i = 0; i < 3; i++) {
            memset(&ops[i], 0, sizeof ops[i]);
            ops[i].key = k + i;
            ops[i].key_len = (size_t)(3 - i);
            ops[i].value = k;
            ops[i].value_len = (size_t)i;
        }
        if (merkle_mdb_db_commit(db, ops, 3, NULL, NULL) != MERKLE_OK) abort();
        st =
            merkle_mdb_verify_change(&res, p, merkle_mdb_db_trie(db), none, none, root, max_length);
        if (st != MERKLE_OK && st != MERKLE_ERR_VERIFY) abort();
        merkle_mdb_db_free(db);
    }
    merkle_mdb_proof_free(p);
    return 0;
}
