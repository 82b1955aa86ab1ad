/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Streaming binary Merkle tree (RFC 6962 shape) with batched hashing.
**
** Leaf hashes collect in t->level until MERKLE_TREE_CHUNK of them are there; the chunk is
** then reduced level by level, one batch call per level, and its root joins the stack of
** perfect-subtree roots (t->stack[h] holds the root of a 2^h-leaf subtree when bit h of
** t->count is set), merging like a binary counter. At the end the pending leaf hashes are
** reduced with promotion and the stack is folded from the smallest subtree upwards. This
** equals the recursive definition because the root of n leaves is the right-nested fold of
** the perfect subtrees given by the set bits of n.
*/
#include <string.h>

#include "tree/tree_impl.h"

static const uint8_t k_leaf_prefix = 0x00;
static const uint8_t k_node_prefix = 0x01;

merkle_status merkle_profile_from_name(merkle_profile *out, const char *name)
{
    if (!out || !name) return MERKLE_ERR_ARG;
    if (strcmp(name, "rfc6962") == 0 || strcmp(name, "rfc9162") == 0) {
        *out = MERKLE_PROFILE_RFC6962;
        return MERKLE_OK;
    }
    static const struct {
        const char *name;
        merkle_profile p;
    } names[] = { { "sia", MERKLE_PROFILE_SIA },
                  { "bitcoin", MERKLE_PROFILE_BITCOIN },
                  { "ssz", MERKLE_PROFILE_SSZ },
                  { "openzeppelin", MERKLE_PROFILE_OPENZEPPELIN },
                  { "bittorrent-v2", MERKLE_PROFILE_BITTORRENT_V2 } };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(name, names[i].name) == 0) {
            *out = names[i].p;
            return MERKLE_OK;
        }
    }
    return MERKLE_ERR_ARG;
}

const char *merkle_profile_name(merkle_profile profile)
{
    switch (profile) {
    case MERKLE_PROFILE_RFC6962: return "rfc6962";
    case MERKLE_PROFILE_SIA: return "sia";
    case MERKLE_PROFILE_BITCOIN: return "bitcoin";
    case MERKLE_PROFILE_SSZ: return "ssz";
    case MERKLE_PROFILE_OPENZEPPELIN: return "openzeppelin";
    case MERKLE_PROFILE_BITTORRENT_V2: return "bittorrent-v2";
    }
    return NULL;
}

merkle_status merkle_profile_defaults(merkle_hash_alg *hash, size_t *leaf_size,
                                      merkle_profile profile)
{
    merkle_hash_alg h;
    size_t ls;
    switch (profile) {
    case MERKLE_PROFILE_RFC6962:
        h = MERKLE_HASH_SHA256;
        ls = MERKLE_RFC6962_DEFAULT_LEAF_SIZE;
        break;
    case MERKLE_PROFILE_SIA:
        h = MERKLE_HASH_BLAKE2B_256;
        ls = MERKLE_SIA_SEGMENT_SIZE;
        break;
    case MERKLE_PROFILE_BITCOIN:
    case MERKLE_PROFILE_SSZ:
        h = MERKLE_HASH_SHA256;
        ls = MERKLE_HASH_LEN;
        break;
    case MERKLE_PROFILE_OPENZEPPELIN:
        h = MERKLE_HASH_KECCAK256;
        ls = MERKLE_HASH_LEN;
        break;
    case MERKLE_PROFILE_BITTORRENT_V2:
        h = MERKLE_HASH_SHA256;
        ls = 16384;
        break;
    default: return MERKLE_ERR_ARG;
    }
    if (hash) *hash = h;
    if (leaf_size) *leaf_size = ls;
    return MERKLE_OK;
}

merkle_status merkle_tree_empty_root(uint8_t out[MERKLE_HASH_LEN], merkle_profile profile,
                                     merkle_hash_alg hash)
{
    if (!out || !merkle__tree_hash_ok(hash)) return MERKLE_ERR_ARG;
    switch (profile) {
    case MERKLE_PROFILE_RFC6962: return merkle_hash(out, hash, NULL, 0);
    case MERKLE_PROFILE_SIA: memset(out, 0, MERKLE_HASH_LEN); return MERKLE_OK;
    default: break;
    }
    return MERKLE_ERR_ARG;
}

merkle_status merkle_tree_leaf_hash(uint8_t out[MERKLE_HASH_LEN], merkle_hash_alg hash,
                                    const void *data, size_t len)
{
    if (!out || (!data && len)) return MERKLE_ERR_ARG;
    merkle_hasher h;
    merkle_status s = merkle_hasher_init(&h, hash);
    if (s != MERKLE_OK) return s;
    merkle_hasher_update(&h, &k_leaf_prefix, 1);
    merkle_hasher_update(&h, data, len);
    merkle_hasher_final(&h, out);
    return MERKLE_OK;
}

merkle_status merkle_tree_node_hash(uint8_t out[MERKLE_HASH_LEN], merkle_hash_alg hash,
                                    const uint8_t left[MERKLE_HASH_LEN],
                                    const uint8_t right[MERKLE_HASH_LEN])
{
    if (!out || !left || !right) return MERKLE_ERR_ARG;
    uint8_t buf[2 * MERKLE_HASH_LEN];
    memcpy(buf, left, MERKLE_HASH_LEN);
    memcpy(buf + MERKLE_HASH_LEN, right, MERKLE_HASH_LEN);
    return merkle_hash_batch_strided(out, hash, &k_node_prefix, 1, buf, 0, sizeof buf, 1);
}

void merkle__node_level(merkle_hash_alg hash, uint8_t (*out)[MERKLE_HASH_LEN],
                        const uint8_t (*in)[MERKLE_HASH_LEN], size_t npairs)
{
    (void)merkle_hash_batch_strided(out[0], hash, &k_node_prefix, 1, in[0], 2 * MERKLE_HASH_LEN,
                                    2 * MERKLE_HASH_LEN, npairs);
}

void merkle__leaf_level(merkle_hash_alg hash, uint8_t (*out)[MERKLE_HASH_LEN], const uint8_t *base,
                        size_t leaf_size, size_t n)
{
    (void)merkle_hash_batch_strided(out[0], hash, &k_leaf_prefix, 1, base, leaf_size, leaf_size, n);
}

void merkle__reduce(merkle_hash_alg hash, uint8_t (*a)[MERKLE_HASH_LEN],
                    uint8_t (*b)[MERKLE_HASH_LEN], size_t m)
{
    uint8_t(*src)[MERKLE_HASH_LEN] = a;
    uint8_t(*dst)[MERKLE_HASH_LEN] = b;
    while (m > 1) {
        size_t pairs = m / 2;
        merkle__node_level(hash, dst, (const uint8_t(*)[MERKLE_HASH_LEN])src, pairs);
        if (m & 1) memcpy(dst[pairs], src[m - 1], MERKLE_HASH_LEN); /* promoted unchanged */
        m = pairs + (m & 1);
        uint8_t(*tmp)[MERKLE_HASH_LEN] = src;
        src = dst;
        dst = tmp;
    }
    if (src != a) memcpy(a[0], src[0], MERKLE_HASH_LEN);
}

merkle_status merkle_tree_init(merkle_tree *t, merkle_profile profile, merkle_hash_alg hash,
                               size_t leaf_size)
{
    if (!t || !merkle__profile_classic(profile) || leaf_size == 0) return MERKLE_ERR_ARG;
    t->version = MERKLE_TREE_VERSION;
    t->profile = profile;
    t->leaf_size = leaf_size;
    t->count = 0;
    t->pending = 0;
    t->partial_len = 0;
    t->finished = 0;
    t->hash = hash;
    /* Validates the algorithm as well. */
    return merkle_hasher_init(&t->leaf, hash);
}

/* Leaves held so far: stacked + pending (+1 for a started partial leaf). */
static uint64_t held(const merkle_tree *t)
{
    return t->count + t->pending + (t->partial_len ? 1 : 0);
}

size_t merkle_tree_struct_size(void)
{
    return sizeof(merkle_tree);
}

size_t merkle_tree_struct_align(void)
{
    return _Alignof(merkle_tree);
}

uint64_t merkle_tree_leaf_count(const merkle_tree *t)
{
    return held(t);
}

merkle_status merkle__tree_push_subtree(merkle_tree *t, unsigned height,
                                        const uint8_t root[MERKLE_HASH_LEN])
{
    if (t->version != MERKLE_TREE_VERSION || t->finished || t->pending || t->partial_len ||
        height >= MERKLE_MAX_DEPTH)
        return MERKLE_ERR_STATE;
    uint64_t size = (uint64_t)1 << height;
    if (t->count & (size - 1)) return MERKLE_ERR_STATE;
    if (size > UINT64_MAX - t->count) return MERKLE_ERR_RANGE;
    uint8_t node[MERKLE_HASH_LEN];
    memcpy(node, root, MERKLE_HASH_LEN);
    unsigned h = height;
    while ((t->count >> h) & 1) {
        uint8_t pair[2][MERKLE_HASH_LEN];
        memcpy(pair[0], t->stack[h], MERKLE_HASH_LEN);
        memcpy(pair[1], node, MERKLE_HASH_LEN);
        merkle__node_level(t->hash, &node, (const uint8_t(*)[MERKLE_HASH_LEN])pair, 1);
        h++;
    }
    memcpy(t->stack[h], node, MERKLE_HASH_LEN);
    t->count += size;
    return MERKLE_OK;
}

/* A full chunk of leaf hashes in t->level becomes one subtree root on the stack. */
static merkle_status flush_chunk(merkle_tree *t)
{
    merkle__reduce(t->hash, t->level, t->scratch, MERKLE_TREE_CHUNK);
    t->pending = 0;
    return merkle__tree_push_subtree(t, MERKLE_TREE_CHUNK_LOG2, t->level[0]);
}

/* Room for k more leaves without passing 2^64 - 1? */
static int room(const merkle_tree *t, uint64_t k)
{
    return k <= UINT64_MAX - held(t);
}

merkle_status merkle_tree_push_leaf_hash(merkle_tree *t, const uint8_t hash[MERKLE_HASH_LEN])
{
    if (!t || !hash) return MERKLE_ERR_ARG;
    if (t->version != MERKLE_TREE_VERSION || t->finished || t->partial_len) return MERKLE_ERR_STATE;
    if (!room(t, 1)) return MERKLE_ERR_RANGE;
    memcpy(t->level[t->pending++], hash, MERKLE_HASH_LEN);
    return t->pending == MERKLE_TREE_CHUNK ? flush_chunk(t) : MERKLE_OK;
}

merkle_status merkle_tree_push_leaf(merkle_tree *t, const void *data, size_t len)
{
    if (!t || (!data && len)) return MERKLE_ERR_ARG;
    if (t->version != MERKLE_TREE_VERSION || t->finished || t->partial_len) return MERKLE_ERR_STATE;
    if (!room(t, 1)) return MERKLE_ERR_RANGE;
    merkle_status s = merkle_tree_leaf_hash(t->level[t->pending], t->hash, data, len);
    if (s != MERKLE_OK) return s;
    t->pending++;
    return t->pending == MERKLE_TREE_CHUNK ? flush_chunk(t) : MERKLE_OK;
}

/* Complete the partial stream leaf into the pending level. */
static merkle_status close_partial(merkle_tree *t)
{
    merkle_hasher_final(&t->leaf, t->level[t->pending++]);
    t->partial_len = 0;
    merkle_status s = merkle_hasher_init(&t->leaf, t->hash);
    if (s != MERKLE_OK) return s;
    return t->pending == MERKLE_TREE_CHUNK ? flush_chunk(t) : MERKLE_OK;
}

merkle_status merkle_tree_write(merkle_tree *t, const void *data, size_t len)
{
    if (!t || (!data && len)) return MERKLE_ERR_ARG;
    if (t->version != MERKLE_TREE_VERSION || t->finished) return MERKLE_ERR_STATE;
    const uint8_t *p = (const uint8_t *)data;
    const size_t ls = t->leaf_size;
    while (len) {
        if (t->partial_len || len < ls) {
            /* A leaf that spans writes is hashed incrementally: O(1) memory for any size. */
            if (t->partial_len == 0) {
                if (!room(t, 1)) return MERKLE_ERR_RANGE;
                merkle_hasher_update(&t->leaf, &k_leaf_prefix, 1);
            }
            size_t take = ls - (size_t)t->partial_len;
            if (take > len) take = len;
            merkle_hasher_update(&t->leaf, p, take);
            t->partial_len += take;
            p += take;
            len -= take;
            if (t->partial_len == ls) {
                merkle_status s = close_partial(t);
                if (s != MERKLE_OK) return s;
            }
            continue;
        }
        /* Whole leaves lie in the caller's buffer: hash them in place, a batch at a time. */
        size_t k = len / ls;
        size_t space = MERKLE_TREE_CHUNK - (size_t)t->pending;
        if (k > space) k = space;
        if (!room(t, k)) return MERKLE_ERR_RANGE;
        merkle__leaf_level(t->hash, &t->level[t->pending], p, ls, k);
        t->pending += k;
        p += k * ls;
        len -= k * ls;
        if (t->pending == MERKLE_TREE_CHUNK) {
            merkle_status s = flush_chunk(t);
            if (s != MERKLE_OK) return s;
        }
    }
    return MERKLE_OK;
}

merkle_status merkle_tree_root(uint8_t out[MERKLE_HASH_LEN], int *is_empty, merkle_tree *t)
{
    if (!t || !out) return MERKLE_ERR_ARG;
    if (t->version != MERKLE_TREE_VERSION || t->finished) return MERKLE_ERR_STATE;
    if (t->partial_len) {
        merkle_status s = close_partial(t);
        if (s != MERKLE_OK) return s;
    }
    t->finished = 1;
    if (is_empty) *is_empty = held(t) == 0;
    if (held(t) == 0) return merkle_tree_empty_root(out, t->profile, t->hash);
    uint8_t acc[MERKLE_HASH_LEN];
    int have = 0;
    if (t->pending) {
        merkle__reduce(t->hash, t->level, t->scratch, (size_t)t->pending);
        memcpy(acc, t->level[0], MERKLE_HASH_LEN);
        have = 1;
    }
    for (unsigned h = 0; h < MERKLE_MAX_DEPTH; h++) {
        if (!((t->count >> h) & 1)) continue;
        if (have) {
            uint8_t pair[2][MERKLE_HASH_LEN];
            memcpy(pair[0], t->stack[h], MERKLE_HASH_LEN);
            memcpy(pair[1], acc, MERKLE_HASH_LEN);
            merkle__node_level(t->hash, &acc, (const uint8_t(*)[MERKLE_HASH_LEN])pair, 1);
        } else {
            memcpy(acc, t->stack[h], MERKLE_HASH_LEN);
            have = 1;
        }
    }
    memcpy(out, acc, MERKLE_HASH_LEN);
    return MERKLE_OK;
}

merkle_status merkle_tree_root_list(uint8_t out[MERKLE_HASH_LEN], merkle_profile profile,
                                    merkle_hash_alg hash, const uint8_t *const *leaves,
                                    const size_t *lens, size_t n)
{
    if (!out || (n && (!leaves || !lens))) return MERKLE_ERR_ARG;
    merkle_tree t;
    merkle_status s = merkle_tree_init(&t, profile, hash, 1);
    for (size_t i = 0; i < n; i++)
        if (!leaves[i] && lens[i]) return MERKLE_ERR_ARG;
    /* The leaf hashes go straight into the pending level, a chunk's worth per batch. */
    for (size_t i = 0; s == MERKLE_OK && i < n;) {
        size_t k = MERKLE_TREE_CHUNK - (size_t)t.pending;
        if (k > n - i) k = n - i;
        merkle__leaf_list(t.hash, &t.level[t.pending], leaves + i, lens + i, k);
        t.pending += k;
        i += k;
        if (t.pending == MERKLE_TREE_CHUNK) s = flush_chunk(&t);
    }
    if (s == MERKLE_OK) s = merkle_tree_root(out, NULL, &t);
    return s;
}

merkle_status merkle_tree_root_bytes(uint8_t out[MERKLE_HASH_LEN], merkle_profile profile,
                                     merkle_hash_alg hash, size_t leaf_size, const void *data,
                                     size_t len)
{
    if (!out) return MERKLE_ERR_ARG;
    merkle_tree t;
    merkle_status s = merkle_tree_init(&t, profile, hash, leaf_size);
    if (s == MERKLE_OK) s = merkle_tree_write(&t, data, len);
    if (s == MERKLE_OK) s = merkle_tree_root(out, NULL, &t);
    return s;
}
