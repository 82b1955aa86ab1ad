/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Streaming prover: one pass, O(log n) memory, batched hashing.
**
** Every proof kind reduces to the Sia range proof of a target range [start, end):
**   - the roots of the perfect subtrees left of start (one per set bit of start, largest
**     first): they are exactly the stack entries when the stream reaches start;
**   - the roots of the aligned blocks right of end (the block at position i has 2^tz(i)
**     leaves; the last one may be partial): each is a node the builder computes anyway.
** An audit path for leaf i is the range proof of [i, i+1) in bottom-up order; a consistency
** proof from m is the audit path of the old tree's last perfect subtree [m - 2^tz(m), m)
** (plus that subtree's root when m is not a power of two) -- transparency-dev's
** decomposition of RFC 9162 SUBPROOF.
**
** The bulk of the stream goes through the same machinery as merkle_tree: leaves hashed in
** batches into a chunk of MERKLE_TREE_CHUNK hashes, the chunk reduced level by level, its
** root pushed on the subtree stack. Only the chunk that contains start, the chunk that
** contains end, the merges that complete a wanted right-hand block, and the end of the
** stream do extra work, so a proof costs what a root costs.
*/
#include <stddef.h>
#include <string.h>

#include "tree/proof_impl.h"

#define PROVER_VERSION 1u
#define CHUNK          MERKLE_TREE_CHUNK
#define CHUNK_LOG2     MERKLE_TREE_CHUNK_LOG2

static const uint8_t k_leaf_prefix = 0x00;

merkle_status merkle_prover_init(merkle_prover *p, merkle_proof_kind kind, merkle_hash_alg hash,
                                 size_t leaf_size, uint64_t a, uint64_t b)
{
    if (!p || leaf_size == 0 || !merkle__tree_hash_ok(hash)) return MERKLE_ERR_ARG;
    memset(p, 0, offsetof(merkle_prover, leaf));
    p->version = PROVER_VERSION;
    p->kind = kind;
    p->hash = hash;
    p->leaf_size = leaf_size;
    switch (kind) {
    case MERKLE_PROOF_INCLUSION:
        if (a == UINT64_MAX) return MERKLE_ERR_RANGE;
        p->start = a;
        p->end = a + 1;
        break;
    case MERKLE_PROOF_RANGE:
        if (a >= b) return MERKLE_ERR_RANGE;
        p->start = a;
        p->end = b;
        break;
    case MERKLE_PROOF_CONSISTENCY: {
        if (a == 0) return MERKLE_ERR_RANGE;
        /* Target: the old tree's last perfect subtree. */
        p->old_size = a;
        p->start = a - ((uint64_t)1 << merkle__tz(a));
        p->end = a;
        break;
    }
    default: return MERKLE_ERR_ARG;
    }
    p->next_right = p->end;
    return merkle_hasher_init(&p->leaf, hash);
}

static uint64_t held(const merkle_prover *p)
{
    return p->count + p->pending + (p->partial_len ? 1 : 0);
}

size_t merkle_prover_struct_size(void)
{
    return sizeof(merkle_prover);
}

size_t merkle_prover_struct_align(void)
{
    return _Alignof(merkle_prover);
}

size_t merkle_proof_struct_size(void)
{
    return sizeof(merkle_proof);
}

size_t merkle_proof_struct_align(void)
{
    return _Alignof(merkle_proof);
}

uint64_t merkle_prover_leaf_count(const merkle_prover *p)
{
    return p ? held(p) : 0;
}

/* Root of the leaf hashes level[a - c .. b - c) of the chunk that starts at leaf c. */
static void chunk_root(const merkle_prover *p, uint64_t c, uint64_t a, uint64_t b,
                       uint8_t out[MERKLE_HASH_LEN])
{
    uint8_t tmp[CHUNK][MERKLE_HASH_LEN], half[CHUNK / 2][MERKLE_HASH_LEN];
    size_t m = (size_t)(b - a);
    memcpy(tmp, p->level[a - c], m * MERKLE_HASH_LEN);
    merkle__reduce(p->hash, tmp, half, m);
    memcpy(out, tmp[0], MERKLE_HASH_LEN);
}

/*
** Extra work for the chunk of m leaf hashes in level[] that starts at leaf c (m == CHUNK, or
** the final partial chunk), done before the chunk is reduced. final: no more leaves follow.
*/
static void visit_chunk(merkle_prover *p, uint64_t c, uint64_t m, int final)
{
    uint64_t cend = c + m;
    if (!p->have_left && p->start >= c && p->start < cend) {
        /* Left side: the stack entries (big subtrees) then the blocks of [c, start). */
        for (unsigned h = 63; h >= CHUNK_LOG2; h--)
            if ((c >> h) & 1) memcpy(p->left[p->nleft++], p->stack[h], MERKLE_HASH_LEN);
        uint64_t pos = c, off = p->start - c;
        for (int bit = CHUNK_LOG2 - 1; bit >= 0; bit--) {
            if (!((off >> bit) & 1)) continue;
            chunk_root(p, c, pos, pos + ((uint64_t)1 << bit), p->left[p->nleft++]);
            pos += (uint64_t)1 << bit;
        }
        p->have_left = 1;
        if (p->kind == MERKLE_PROOF_INCLUSION) {
            memcpy(p->leaf_hash, p->level[p->start - c], MERKLE_HASH_LEN);
            p->have_leaf = 1;
        }
    }
    if (p->kind == MERKLE_PROOF_CONSISTENCY && !p->have_inner && p->end - p->start < CHUNK &&
        p->start >= c && p->end <= cend) {
        chunk_root(p, c, p->start, p->end, p->inner);
        p->have_inner = 1;
    }
    /* Right-hand blocks that start inside this chunk and are smaller than a chunk (or, at
    ** the end of the stream, any block that starts here: it is cut short at the end). */
    while (p->next_right >= c && p->next_right < cend &&
           (final || (p->next_right & (CHUNK - 1)) != 0)) {
        uint64_t pos = p->next_right;
        unsigned h = merkle__tz(pos);
        uint64_t sz = h >= 64 ? UINT64_MAX : (uint64_t)1 << h;
        uint64_t bend = sz > cend - pos ? cend : pos + sz;
        chunk_root(p, c, pos, bend, p->right[p->nright++]);
        p->next_right = sz > UINT64_MAX - pos ? UINT64_MAX : pos + sz;
    }
}

/* A node of height h covering [s, s + 2^h) was just computed: keep it if wanted. */
static void visit_node(merkle_prover *p, uint64_t s, unsigned h,
                       const uint8_t node[MERKLE_HASH_LEN])
{
    if (s == p->next_right && s != 0 && h == merkle__tz(s)) {
        memcpy(p->right[p->nright++], node, MERKLE_HASH_LEN);
        uint64_t sz = (uint64_t)1 << h;
        p->next_right = sz > UINT64_MAX - s ? UINT64_MAX : s + sz;
    }
    if (p->kind == MERKLE_PROOF_CONSISTENCY && !p->have_inner && s == p->start &&
        p->end - p->start == ((uint64_t)1 << h)) {
        memcpy(p->inner, node, MERKLE_HASH_LEN);
        p->have_inner = 1;
    }
}

/* The full chunk in level[] becomes one subtree root on the stack. */
static void flush_chunk(merkle_prover *p)
{
    uint64_t c = p->count;
    /* Chunks away from the target and from a pending small right block need nothing. */
    if ((p->start >= c && p->start < c + CHUNK) ||
        (p->next_right >= c && p->next_right < c + CHUNK) ||
        (p->kind == MERKLE_PROOF_CONSISTENCY && p->end > c && p->end <= c + CHUNK))
        visit_chunk(p, c, CHUNK, 0);
    merkle__reduce(p->hash, p->level, p->scratch, CHUNK);
    p->pending = 0;
    uint8_t node[MERKLE_HASH_LEN];
    memcpy(node, p->level[0], MERKLE_HASH_LEN);
    unsigned h = CHUNK_LOG2;
    for (;;) {
        visit_node(p, c + CHUNK - ((uint64_t)1 << h), h, node);
        if (!((c >> h) & 1)) break;
        merkle__node(p->hash, node, p->stack[h], node);
        h++;
    }
    memcpy(p->stack[h], node, MERKLE_HASH_LEN);
    p->count = c + CHUNK;
}

static int room(const merkle_prover *p, uint64_t k)
{
    return k <= UINT64_MAX - 1 - held(p);
}

static merkle_status check(const merkle_prover *p)
{
    if (!p || p->version != PROVER_VERSION) return MERKLE_ERR_ARG;
    if (p->finished) return MERKLE_ERR_STATE;
    return MERKLE_OK;
}

merkle_status merkle_prover_push_leaf_hash(merkle_prover *p, const uint8_t hash[MERKLE_HASH_LEN])
{
    merkle_status s = check(p);
    if (s != MERKLE_OK) return s;
    if (!hash) return MERKLE_ERR_ARG;
    if (p->partial_len) return MERKLE_ERR_STATE;
    if (!room(p, 1)) return MERKLE_ERR_RANGE;
    memcpy(p->level[p->pending++], hash, MERKLE_HASH_LEN);
    if (p->pending == CHUNK) flush_chunk(p);
    return MERKLE_OK;
}

merkle_status merkle_prover_push_leaf(merkle_prover *p, const void *data, size_t len)
{
    merkle_status s = check(p);
    if (s != MERKLE_OK) return s;
    if (!data && len) return MERKLE_ERR_ARG;
    if (p->partial_len) return MERKLE_ERR_STATE;
    if (!room(p, 1)) return MERKLE_ERR_RANGE;
    s = merkle_tree_leaf_hash(p->level[p->pending], p->hash, data, len);
    if (s != MERKLE_OK) return s;
    if (++p->pending == CHUNK) flush_chunk(p);
    return MERKLE_OK;
}

static merkle_status close_partial(merkle_prover *p)
{
    merkle_hasher_final(&p->leaf, p->level[p->pending++]);
    p->partial_len = 0;
    merkle_status s = merkle_hasher_init(&p->leaf, p->hash);
    if (p->pending == CHUNK) flush_chunk(p);
    return s;
}

merkle_status merkle_prover_write(merkle_prover *p, const void *data, size_t len)
{
    merkle_status s = check(p);
    if (s != MERKLE_OK) return s;
    if (!data && len) return MERKLE_ERR_ARG;
    const uint8_t *d = (const uint8_t *)data;
    const size_t ls = p->leaf_size;
    while (len) {
        if (p->partial_len || len < ls) {
            /* A leaf that spans writes is hashed incrementally. */
            if (p->partial_len == 0) {
                if (!room(p, 1)) return MERKLE_ERR_RANGE;
                merkle_hasher_update(&p->leaf, &k_leaf_prefix, 1);
            }
            size_t take = ls - (size_t)p->partial_len;
            if (take > len) take = len;
            merkle_hasher_update(&p->leaf, d, take);
            p->partial_len += take;
            d += take;
            len -= take;
            if (p->partial_len == ls && (s = close_partial(p)) != MERKLE_OK) return s;
            continue;
        }
        /* Whole leaves in the caller's buffer: hashed in place, a batch at a time. */
        size_t k = len / ls;
        size_t space = CHUNK - (size_t)p->pending;
        if (k > space) k = space;
        if (!room(p, k)) return MERKLE_ERR_RANGE;
        merkle__leaf_level(p->hash, &p->level[p->pending], d, ls, k);
        p->pending += k;
        d += k * ls;
        len -= k * ls;
        if (p->pending == CHUNK) flush_chunk(p);
    }
    return MERKLE_OK;
}

merkle_status merkle_prover_finish(merkle_proof *out, merkle_prover *p, merkle_profile profile)
{
    merkle_status s = check(p);
    if (s != MERKLE_OK) return s;
    if (!out || !merkle__profile_classic(profile)) return MERKLE_ERR_ARG;
    if (p->partial_len && (s = close_partial(p)) != MERKLE_OK) return s;
    p->finished = 1;
    uint64_t c = p->count, m = p->pending, n = c + m;
    if (p->end > n) return MERKLE_ERR_RANGE; /* index (or old size, or range end) not reached */
    if (m) visit_chunk(p, c, m, 1);
    if (p->next_right < c) {
        /* A right-hand block that started in the stack and was cut short by the end of the
        ** stream: its root folds the pending chunk and the stack entries inside it. */
        unsigned h = merkle__tz(p->next_right);
        uint8_t acc[MERKLE_HASH_LEN];
        int have = 0;
        if (m) {
            chunk_root(p, c, c, n, acc);
            have = 1;
        }
        for (unsigned hh = CHUNK_LOG2; hh < h && hh < 64; hh++) {
            if (!((c >> hh) & 1)) continue;
            if (have) {
                merkle__node(p->hash, acc, p->stack[hh], acc);
            } else {
                memcpy(acc, p->stack[hh], MERKLE_HASH_LEN);
                have = 1;
            }
        }
        memcpy(p->right[p->nright++], acc, MERKLE_HASH_LEN);
        p->next_right = n;
    }

    memset(out, 0, offsetof(merkle_proof, path));
    out->version = MERKLE_PROOF_VERSION;
    out->kind = p->kind;
    out->profile = profile;
    out->hash = p->hash;
    out->tree_size = n;
    out->leaf_size = p->leaf_size;

    /* The tree root: the pending chunk, then the stack from the smallest subtree up. */
    uint8_t acc[MERKLE_HASH_LEN];
    int have = 0;
    if (m) {
        merkle__reduce(p->hash, p->level, p->scratch, (size_t)m);
        memcpy(acc, p->level[0], MERKLE_HASH_LEN);
        have = 1;
    }
    for (unsigned h = 0; h < 64; h++) {
        if (!((c >> h) & 1)) continue;
        if (have) {
            merkle__node(p->hash, acc, p->stack[h], acc);
        } else {
            memcpy(acc, p->stack[h], MERKLE_HASH_LEN);
            have = 1;
        }
    }
    memcpy(out->root, acc, MERKLE_HASH_LEN);
    out->flags = MERKLE_PROOF_HAS_ROOT;

    size_t len = 0;
    switch (p->kind) {
    case MERKLE_PROOF_RANGE:
        out->index = p->start;
        out->end = p->end;
        memcpy(out->path, p->left, p->nleft * (size_t)MERKLE_HASH_LEN);
        memcpy(out->path[p->nleft], p->right, p->nright * (size_t)MERKLE_HASH_LEN);
        len = p->nleft + p->nright;
        break;
    case MERKLE_PROOF_INCLUSION:
        out->index = p->start;
        out->end = p->end;
        memcpy(out->leaf_hash, p->leaf_hash, MERKLE_HASH_LEN);
        out->flags |= MERKLE_PROOF_HAS_LEAF_HASH;
        len =
            merkle__lr_to_path(out->path, (const uint8_t(*)[MERKLE_HASH_LEN])p->left, p->nleft,
                               (const uint8_t(*)[MERKLE_HASH_LEN])p->right, p->nright, p->start, 0);
        break;
    case MERKLE_PROOF_CONSISTENCY: {
        out->index = p->old_size;
        out->flags |= MERKLE_PROOF_HAS_OLD_ROOT;
        /* Old root: the left subtrees folded onto the old tree's last perfect subtree. */
        uint8_t old[MERKLE_HASH_LEN];
        memcpy(old, p->inner, MERKLE_HASH_LEN);
        for (size_t i = p->nleft; i-- > 0;) merkle__node(p->hash, old, p->left[i], old);
        memcpy(out->old_root, old, MERKLE_HASH_LEN);
        if (p->old_size == n) break; /* same tree: empty proof */
        if (p->start != 0) memcpy(out->path[len++], p->inner, MERKLE_HASH_LEN);
        size_t got = merkle__lr_to_path(out->path + len, (const uint8_t(*)[MERKLE_HASH_LEN])p->left,
                                        p->nleft, (const uint8_t(*)[MERKLE_HASH_LEN])p->right,
                                        p->nright, p->start, merkle__tz(p->old_size));
        len += got;
        break;
    }
    }
    out->path_len = len;
    return len > MERKLE_PROOF_MAX_PATH ? MERKLE_ERR_STATE : MERKLE_OK;
}

static merkle_status from_hashes(merkle_proof *pr, merkle_proof_kind kind, merkle_hash_alg hash,
                                 const uint8_t (*leaf_hashes)[MERKLE_HASH_LEN], uint64_t n,
                                 uint64_t a)
{
    merkle_prover p;
    merkle_status s = merkle_prover_init(&p, kind, hash, 1, a, 0);
    for (uint64_t i = 0; s == MERKLE_OK && i < n; i++)
        s = merkle_prover_push_leaf_hash(&p, leaf_hashes[i]);
    if (s == MERKLE_OK) s = merkle_prover_finish(pr, &p, MERKLE_PROFILE_RFC6962);
    return s;
}

merkle_status merkle_proof_inclusion_path(uint8_t (*path)[MERKLE_HASH_LEN], size_t cap,
                                          size_t *path_len, uint8_t root[MERKLE_HASH_LEN],
                                          merkle_hash_alg hash,
                                          const uint8_t (*leaf_hashes)[MERKLE_HASH_LEN], uint64_t n,
                                          uint64_t index)
{
    if (!path_len || (!path && cap) || (!leaf_hashes && n)) return MERKLE_ERR_ARG;
    if (index >= n) return MERKLE_ERR_RANGE;
    merkle_proof pr;
    merkle_status s = from_hashes(&pr, MERKLE_PROOF_INCLUSION, hash, leaf_hashes, n, index);
    if (s != MERKLE_OK) return s;
    *path_len = pr.path_len;
    if (pr.path_len > cap) return MERKLE_ERR_BUFFER;
    if (pr.path_len) memcpy(path, pr.path, pr.path_len * MERKLE_HASH_LEN);
    if (root) memcpy(root, pr.root, MERKLE_HASH_LEN);
    return MERKLE_OK;
}

merkle_status merkle_proof_consistency_path(uint8_t (*path)[MERKLE_HASH_LEN], size_t cap,
                                            size_t *path_len, uint8_t old_root[MERKLE_HASH_LEN],
                                            uint8_t new_root[MERKLE_HASH_LEN], merkle_hash_alg hash,
                                            const uint8_t (*leaf_hashes)[MERKLE_HASH_LEN],
                                            uint64_t n, uint64_t old_size)
{
    if (!path_len || (!path && cap) || (!leaf_hashes && n)) return MERKLE_ERR_ARG;
    if (old_size == 0 || old_size > n) return MERKLE_ERR_RANGE;
    merkle_proof pr;
    merkle_status s = from_hashes(&pr, MERKLE_PROOF_CONSISTENCY, hash, leaf_hashes, n, old_size);
    if (s != MERKLE_OK) return s;
    *path_len = pr.path_len;
    if (pr.path_len > cap) return MERKLE_ERR_BUFFER;
    if (pr.path_len) memcpy(path, pr.path, pr.path_len * MERKLE_HASH_LEN);
    if (old_root) memcpy(old_root, pr.old_root, MERKLE_HASH_LEN);
    if (new_root) memcpy(new_root, pr.root, MERKLE_HASH_LEN);
    return MERKLE_OK;
}
