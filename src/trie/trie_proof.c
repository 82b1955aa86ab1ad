/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Verification of trie proofs (format in docs/trie.md). Works in place on the proof bytes:
** every node is its own ID preimage, so it is hashed straight from the buffer. Nothing here
** allocates.
*/
#include <string.h>

#include "common/internal.h"
#include "merkle/hash.h"
#include "trie/trie_impl.h"

/* A parsed node preimage: offsets into the proof buffer. */
typedef struct pnode {
    size_t start, end; /* the preimage bytes */
    size_t nkids;
    size_t kids; /* offset of the first (index, id) entry */
    int hasval;
    size_t vd, vdlen; /* value digest */
    uint64_t kbits;
    size_t key; /* key bytes */
} pnode;

static merkle_status fmt(merkle_error *err, size_t off, const char *what)
{
    return merkle__fail(err, MERKLE_ERR_FORMAT, 0, off, "malformed proof at byte %zu: %s", off,
                        what);
}

static merkle_status get_uv(uint64_t *v, const uint8_t *p, size_t len, size_t *pos,
                            merkle_error *err, const char *what)
{
    size_t at = *pos;
    int r = merkle__uvarint_get(v, p, len, pos);
    if (r == -1) return fmt(err, at, what);
    if (r == -2) return fmt(err, at, "varint overflows 64 bits");
    if (r == -3) return fmt(err, at, "non-canonical varint");
    return MERKLE_OK;
}

/* Parse one node preimage at *pos with token size ts; checks structure only. */
static merkle_status parse_node(pnode *nd, const uint8_t *p, size_t len, size_t *pos, unsigned ts,
                                merkle_error *err)
{
    uint64_t v;
    merkle_status st;
    nd->start = *pos;
    if ((st = get_uv(&v, p, len, pos, err, "truncated child count")) != MERKLE_OK) return st;
    if (v > (1u << ts)) return fmt(err, nd->start, "more children than the branch factor");
    nd->nkids = (size_t)v;
    nd->kids = *pos;
    uint64_t prev = 0;
    for (size_t i = 0; i < nd->nkids; i++) {
        size_t at = *pos;
        if ((st = get_uv(&v, p, len, pos, err, "truncated child index")) != MERKLE_OK) return st;
        if (v >= (1u << ts)) return fmt(err, at, "child index out of range");
        if (i && v <= prev) return fmt(err, at, "child indices not strictly increasing");
        prev = v;
        if (len - *pos < MERKLE_TRIE_ID_LEN) return fmt(err, *pos, "truncated child ID");
        *pos += MERKLE_TRIE_ID_LEN;
    }
    if (*pos >= len) return fmt(err, *pos, "truncated value flag");
    uint8_t flag = p[(*pos)++];
    if (flag > 1) return fmt(err, *pos - 1, "value flag is neither 0 nor 1");
    nd->hasval = flag;
    nd->vd = nd->vdlen = 0;
    if (flag) {
        size_t at = *pos;
        if ((st = get_uv(&v, p, len, pos, err, "truncated value digest length")) != MERKLE_OK)
            return st;
        if (v > 32) return fmt(err, at, "value digest longer than 32 bytes");
        if (len - *pos < v) return fmt(err, *pos, "truncated value digest");
        nd->vd = *pos;
        nd->vdlen = (size_t)v;
        *pos += (size_t)v;
    }
    size_t at = *pos;
    if ((st = get_uv(&v, p, len, pos, err, "truncated key length")) != MERKLE_OK) return st;
    if (v % ts) return fmt(err, at, "key length is not a whole number of tokens");
    uint64_t kb = (v + 7) / 8;
    if (len - *pos < kb) return fmt(err, *pos, "truncated key");
    nd->kbits = v;
    nd->key = *pos;
    *pos += (size_t)kb;
    if ((v & 7) && (p[*pos - 1] & (0xffu >> (v & 7))))
        return fmt(err, *pos - 1, "nonzero key padding");
    nd->end = *pos;
    return MERKLE_OK;
}

static merkle_status vfail(merkle_error *err, size_t node, const char *what)
{
    return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0, "node %zu: %s", node, what);
}

/* First bit where a (abits) and b (bbits) differ, capped at min(abits, bbits). */
static uint64_t prefix_bits(const uint8_t *a, uint64_t abits, const uint8_t *b, uint64_t bbits)
{
    uint64_t m = abits < bbits ? abits : bbits;
    for (uint64_t i = 0; i < (m + 7) / 8; i++) {
        unsigned x = (unsigned)(a[i] ^ b[i]);
        if (x) {
            uint64_t r = i * 8 + (uint64_t)(__builtin_clz(x) - 24);
            return r < m ? r : m;
        }
    }
    return m;
}

merkle_status merkle_trie_proof_verify(merkle_trie_proof_info *info,
                                       const uint8_t root[MERKLE_TRIE_ID_LEN], const uint8_t *p,
                                       size_t len, merkle_error *err)
{
    if ((p == NULL && len) || root == NULL)
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid argument");
    merkle_status st;
    uint64_t v;
    if (len < 7 || memcmp(p, "MTRP", 4) != 0) return fmt(err, 0, "not a trie proof (magic MTRP)");
    if (p[4] != 1) return fmt(err, 4, "unsupported proof version");
    unsigned ts = p[5];
    if (ts != 1 && ts != 2 && ts != 4 && ts != 8) return fmt(err, 5, "bad token size");
    if (p[6] > 1) return fmt(err, 6, "present flag is neither 0 nor 1");
    int present = p[6];
    size_t pos = 7;
    if ((st = get_uv(&v, p, len, &pos, err, "truncated key length")) != MERKLE_OK) return st;
    if (v > MERKLE_TRIE_MAX_KEY || len - pos < v) return fmt(err, pos, "truncated key");
    const uint8_t *key = p + pos;
    size_t key_len = (size_t)v;
    uint64_t kbits = (uint64_t)key_len * 8;
    pos += key_len;
    const uint8_t *value = NULL;
    size_t value_len = 0;
    if (present) {
        if ((st = get_uv(&v, p, len, &pos, err, "truncated value length")) != MERKLE_OK) return st;
        if (len - pos < v) return fmt(err, pos, "truncated value");
        value = p + pos;
        value_len = (size_t)v;
        pos += value_len;
    }
    uint64_t count;
    size_t count_at = pos;
    if ((st = get_uv(&count, p, len, &pos, err, "truncated node count")) != MERKLE_OK) return st;
    /* A lookup path has at most one node per token of the key, plus the root. */
    if (count > kbits / ts + 1) return fmt(err, count_at, "more nodes than the key has tokens");

    /* Parse every node first, so that a malformed proof is reported as such. */
    size_t nodes_at = pos;
    for (uint64_t i = 0; i < count; i++) {
        pnode nd;
        if ((st = parse_node(&nd, p, len, &pos, ts, err)) != MERKLE_OK) return st;
    }
    if (pos != len) return fmt(err, pos, "trailing bytes after the last node");

    uint8_t expect[MERKLE_TRIE_ID_LEN];
    memcpy(expect, root, sizeof expect);
    static const uint8_t zero_id[MERKLE_TRIE_ID_LEN];
    if (count == 0) {
        if (!merkle_ct_equal(root, zero_id, sizeof zero_id))
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "proof has no nodes but the root is not the empty-trie ID");
        if (present)
            return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                                "proof claims the key is present in an empty trie");
        goto ok;
    }
    pos = nodes_at;
    uint64_t prev_bits = 0;
    for (size_t i = 0; i < count; i++) {
        pnode nd;
        merkle_status again = parse_node(&nd, p, len, &pos, ts, NULL);
        MERKLE_ASSERT(again == MERKLE_OK); /* the first pass parsed the same bytes */
        (void)again;
        uint8_t id[MERKLE_TRIE_ID_LEN];
        merkle_sha256_hash(id, p + nd.start, nd.end - nd.start);
        if (!merkle_ct_equal(id, expect, sizeof id))
            return vfail(err, i,
                         i ? "does not hash to the child ID named by its parent"
                           : "does not hash to the root ID");
        const uint8_t *nkey = p + nd.key;
        if (i && nd.kbits < prev_bits + ts)
            return vfail(err, i, "key does not extend its parent's key");
        int last = i + 1 == count;
        int on_path = nd.kbits <= kbits && prefix_bits(nkey, nd.kbits, key, kbits) >= nd.kbits;
        if (!on_path || nd.kbits == kbits) {
            /* The lookup ends here. */
            if (!last) return vfail(err, i, "the lookup ends here but the proof goes on");
            int has = on_path && nd.hasval;
            if (has != present)
                return vfail(err, i,
                             present ? "the key is absent, the proof claims present"
                                     : "the key is present, the proof claims absent");
            if (present) {
                uint8_t d[32];
                size_t dl;
                const uint8_t *dp = merkle__trie_value_digest(d, value, value_len, &dl);
                if (dl != nd.vdlen || (dl && !merkle_ct_equal(dp, p + nd.vd, dl)))
                    return vfail(err, i, "the value does not match the node's value digest");
            }
            goto ok;
        }
        unsigned tok =
            ((unsigned)key[nd.kbits >> 3] >> (8 - (nd.kbits & 7) - ts)) & ((1u << ts) - 1);
        size_t kp = nd.kids;
        int hit = 0;
        for (size_t k = 0; k < nd.nkids; k++) {
            (void)merkle__uvarint_get(&v, p, len, &kp);
            if (v == tok) {
                memcpy(expect, p + kp, sizeof expect);
                hit = 1;
            }
            kp += MERKLE_TRIE_ID_LEN;
        }
        if (!hit) {
            if (!last) return vfail(err, i, "no child on the key's path but the proof goes on");
            if (present) return vfail(err, i, "the key is absent, the proof claims present");
            goto ok;
        }
        if (last) return vfail(err, i, "the proof stops before the end of the key's path");
        prev_bits = nd.kbits;
    }
ok:
    if (info) {
        info->branch_factor = 1u << ts;
        info->present = present;
        info->key = key;
        info->key_len = key_len;
        info->value = value;
        info->value_len = value_len;
        info->nodes = (size_t)count;
    }
    return MERKLE_OK;
}

static int claim_bytes_eq(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

merkle_status merkle_trie_proof_verify_claim(const uint8_t root[MERKLE_TRIE_ID_LEN],
                                             const uint8_t *proof, size_t len, const uint8_t *key,
                                             size_t key_len, merkle_trie_claim_kind kind,
                                             const uint8_t *value, size_t value_len,
                                             unsigned branch_factor, merkle_error *err)
{
    if (!root || !proof || (!key && key_len) || (!value && value_len) ||
        (kind != MERKLE_TRIE_CLAIM_PRESENT && kind != MERKLE_TRIE_CLAIM_VALUE &&
         kind != MERKLE_TRIE_CLAIM_ABSENT))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "bad argument");
    merkle_trie_proof_info info;
    merkle_status s = merkle_trie_proof_verify(&info, root, proof, len, err);
    if (s != MERKLE_OK) return s;
    if (branch_factor && info.branch_factor != branch_factor)
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "the proof is for branch factor %u, not %u", info.branch_factor,
                            branch_factor);
    if (!claim_bytes_eq(info.key, info.key_len, key, key_len))
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "the proof is for another key (%zu bytes), not the one claimed",
                            info.key_len);
    if (kind == MERKLE_TRIE_CLAIM_ABSENT && info.present)
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0, "the key is present, not absent");
    if (kind != MERKLE_TRIE_CLAIM_ABSENT && !info.present)
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0, "the key is absent, not present");
    if (kind == MERKLE_TRIE_CLAIM_VALUE &&
        !claim_bytes_eq(info.value, info.value_len, value, value_len))
        return merkle__fail(err, MERKLE_ERR_VERIFY, 0, 0,
                            "the key is present with another value (%zu bytes)", info.value_len);
    return MERKLE_OK;
}
