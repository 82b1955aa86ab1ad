/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Inclusion proof on two threads. The root of n leaves is NODE(L, R) with L the perfect
** subtree of the first k leaves (k the largest power of two below n, RFC 9162's split) and R
** the tree of the rest. The leaf lies in one of them: a prover streams that half, a plain
** tree builder the other, at the same time. The half's proof plus the other half's root (the
** last element of the audit path) is the proof over the whole input; the root joins both.
*/
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"
#include "common/parallel.h"
#include "tree/proof_impl.h"

#define READ_BYTES (1u << 20) /* per-thread read buffer */

/* One half: bytes [off, off + len) of the input. */
typedef struct half_job {
    uint64_t off, len;
    size_t leaf_size;
    merkle_hash_alg hash;
    merkle_profile profile;
    merkle_read_at_fn read_at;
    void *ctx;
    int prove;      /* 1: prover for leaf `index` of this half into *out; 0: root */
    uint64_t index; /* relative to the half */
    merkle_proof *out;
    uint8_t root[MERKLE_HASH_LEN];
    merkle_status status;
} half_job;

/* Stream the half through a prover or a tree (both are large: on the heap, not on a
** thread's stack). */
static void half_main(half_job *h)
{
    uint8_t *buf = malloc(READ_BYTES);
    merkle_prover *pv = h->prove ? malloc(sizeof *pv) : NULL;
    merkle_tree *t = h->prove ? NULL : malloc(sizeof *t);
    merkle_status s = MERKLE_ERR_NOMEM;
    if (!buf || (!pv && !t)) goto done;
    s = h->prove
            ? merkle_prover_init(pv, MERKLE_PROOF_INCLUSION, h->hash, h->leaf_size, h->index, 0)
            : merkle_tree_init(t, h->profile, h->hash, h->leaf_size);
    /* Whole leaves per read where possible, so that batches are not split. */
    size_t step = READ_BYTES;
    if (h->leaf_size < step) step -= step % h->leaf_size;
    for (uint64_t pos = 0; s == MERKLE_OK && pos < h->len;) {
        size_t want = h->len - pos < step ? (size_t)(h->len - pos) : step;
        s = h->read_at(h->ctx, buf, want, h->off + pos);
        if (s == MERKLE_OK)
            s = h->prove ? merkle_prover_write(pv, buf, want) : merkle_tree_write(t, buf, want);
        pos += want;
    }
    if (s == MERKLE_OK)
        s = h->prove ? merkle_prover_finish(h->out, pv, h->profile)
                     : merkle_tree_root(h->root, NULL, t);
done:
    h->status = s;
    free(buf);
    free(pv);
    free(t);
}

/* Share 0 (the calling thread) streams the half the leaf is in, share 1 the other. */
static int half_share(void *arg, unsigned share)
{
    half_job *const *order = arg;
    half_main(order[share]);
    return 0;
}

merkle_status merkle_proof_inclusion_parallel(merkle_proof *out, merkle_profile profile,
                                              merkle_hash_alg hash, size_t leaf_size,
                                              uint64_t total_len, uint64_t index,
                                              merkle_read_at_fn read_at, void *ctx,
                                              unsigned threads, merkle_error *err)
{
    if (!out || !read_at || leaf_size == 0 || !merkle__tree_hash_ok(hash) ||
        !merkle__profile_classic(profile))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "bad argument");
    uint64_t n = total_len / leaf_size + (total_len % leaf_size != 0);
    half_job h[2];
    memset(h, 0, sizeof h);
    for (int j = 0; j < 2; j++) {
        h[j].leaf_size = leaf_size;
        h[j].hash = hash;
        h[j].profile = profile;
        h[j].read_at = read_at;
        h[j].ctx = ctx;
        h[j].out = out;
    }
    if (threads < 2 || n < 2 || index >= n) {
        /* One stream on the calling thread (and the prover's own answer to a bad index). */
        h[0].len = total_len;
        h[0].prove = 1;
        h[0].index = index;
        half_main(&h[0]);
        if (h[0].status != MERKLE_OK)
            return merkle__fail(err, h[0].status, 0, 0, "%s", merkle_strerror(h[0].status));
        return MERKLE_OK;
    }
    uint64_t k = (uint64_t)1 << (63 - __builtin_clzll(n - 1)); /* largest power of 2 < n */
    uint64_t cut = k * leaf_size;
    h[1].off = cut;
    h[0].len = cut;
    h[1].len = total_len - cut;
    int mine = index < k ? 0 : 1;
    h[mine].prove = 1;
    h[mine].index = mine ? index - k : index;
    /* No thread for the other half: the same work, one after the other. */
    half_job *order[2] = { &h[mine], &h[1 - mine] };
    (void)merkle__parallel_for(2, half_share, NULL, order);
    for (int j = 0; j < 2; j++)
        if (h[j].status != MERKLE_OK)
            return merkle__fail(err, h[j].status, 0, 0, "%s", merkle_strerror(h[j].status));
    /* The proven half's path, then the other half's root; the tree root joins both. */
    uint8_t left[MERKLE_HASH_LEN], right[MERKLE_HASH_LEN];
    memcpy(mine ? right : left, out->root, MERKLE_HASH_LEN);
    memcpy(mine ? left : right, h[1 - mine].root, MERKLE_HASH_LEN);
    MERKLE_ASSERT(out->path_len < MERKLE_PROOF_MAX_PATH);
    memcpy(out->path[out->path_len++], h[1 - mine].root, MERKLE_HASH_LEN);
    merkle_status s = merkle_tree_node_hash(out->root, hash, left, right);
    if (s != MERKLE_OK) return merkle__fail(err, s, 0, 0, "%s", merkle_strerror(s));
    out->tree_size = n;
    out->index = index;
    out->end = index + 1;
    return MERKLE_OK;
}
