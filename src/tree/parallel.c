/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Multi-threaded roots. The leaves are split into aligned pieces of P = 2^k leaves; a piece's
** root is the root of a perfect subtree (the piece that holds a short last leaf still has the
** perfect shape). Workers take pieces in order from a shared counter, a window of W pieces at
** a time; the calling thread then pushes the W roots, in order, onto one merkle_tree stack
** (merkle__tree_push_subtree). The remaining T < P leaves are split by the set bits of T into
** smaller aligned perfect subtrees and pushed the same way. This is a compact-range merge:
** the root does not depend on the thread count or on how the pieces were scheduled.
*/
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/parallel.h"
#include "tree/tree_impl.h"

#define PIECE_TARGET_BYTES (4u << 20) /* a piece is about this much input */
#define READ_BUF_BYTES     (1u << 20) /* per-thread read buffer */
#define WINDOW_PER_THREAD  8          /* pieces in flight per thread */

typedef struct job {
    merkle_profile profile;
    merkle_hash_alg hash;
    size_t leaf_size;
    uint64_t total_len;
    merkle_read_at_fn read_at; /* NULL: mem is the input */
    void *ctx;
    const uint8_t *mem;
    uint64_t piece_bytes;  /* P * leaf_size */
    uint64_t piece_target; /* wanted piece size in bytes */

    /* current window: pieces [base, base + count) */
    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_done;
    uint64_t base, count, next, finished;
    uint64_t generation;
    int stop;
    merkle_status error; /* first failure */
    uint8_t (*roots)[MERKLE_HASH_LEN];
} job;

/* Root of input bytes [off, off + len) as its own tree (a perfect subtree of the whole). */
static merkle_status range_root(const job *j, uint64_t off, uint64_t len, uint8_t *buf,
                                uint8_t out[MERKLE_HASH_LEN])
{
    merkle_tree t;
    merkle_status s = merkle_tree_init(&t, j->profile, j->hash, j->leaf_size);
    while (s == MERKLE_OK && len > 0) {
        if (j->read_at == NULL) {
            s = merkle_tree_write(&t, j->mem + off, (size_t)len);
            break;
        }
        /* Whole leaves per read where possible, so batches are not split. */
        size_t n = READ_BUF_BYTES;
        if (j->leaf_size < n) n -= n % j->leaf_size;
        if (n > len) n = (size_t)len;
        s = j->read_at(j->ctx, buf, n, off);
        if (s == MERKLE_OK) s = merkle_tree_write(&t, buf, n);
        off += n;
        len -= n;
    }
    if (s == MERKLE_OK) s = merkle_tree_root(out, NULL, &t);
    return s;
}

static uint64_t piece_len(const job *j, uint64_t piece)
{
    uint64_t off = piece * j->piece_bytes;
    uint64_t left = j->total_len - off;
    return left < j->piece_bytes ? left : j->piece_bytes;
}

static void worker(job *j)
{
    uint8_t *buf = j->read_at ? malloc(READ_BUF_BYTES) : NULL;
    pthread_mutex_lock(&j->mu);
    if (j->read_at && !buf && j->error == MERKLE_OK) j->error = MERKLE_ERR_NOMEM;
    for (;;) {
        while (!j->stop && (j->next >= j->base + j->count)) pthread_cond_wait(&j->cv_work, &j->mu);
        if (j->stop) break;
        uint64_t piece = j->next++;
        merkle_status s = MERKLE_OK;
        uint8_t root[MERKLE_HASH_LEN];
        if (j->error == MERKLE_OK && (buf || !j->read_at)) {
            pthread_mutex_unlock(&j->mu);
            s = range_root(j, piece * j->piece_bytes, piece_len(j, piece), buf, root);
            pthread_mutex_lock(&j->mu);
            if (s == MERKLE_OK)
                memcpy(j->roots[piece - j->base], root, MERKLE_HASH_LEN);
            else if (j->error == MERKLE_OK)
                j->error = s;
        }
        if (++j->finished == j->count) pthread_cond_signal(&j->cv_done);
    }
    pthread_mutex_unlock(&j->mu);
    free(buf);
}

/* The pieces of a run on threads: share 0 (the calling thread) hands them out a window at a
** time and pushes their roots, in order, onto t; shares 1..workers are the workers. */
typedef struct pool {
    job *j;
    merkle_tree *t;
    unsigned height;  /* of a piece's subtree */
    uint64_t pieces;  /* whole pieces */
    size_t window;    /* pieces per window */
    unsigned workers; /* shares with a thread of their own */
} pool;

static int pool_share(void *arg, unsigned share)
{
    pool *p = arg;
    job *j = p->j;
    if (share) {
        worker(j);
        return MERKLE_OK;
    }
    merkle_status s = p->workers ? MERKLE_OK : MERKLE_ERR_UNSUPPORTED;
    for (uint64_t base = 0; s == MERKLE_OK && base < p->pieces; base += p->window) {
        uint64_t count = p->pieces - base < p->window ? p->pieces - base : p->window;
        pthread_mutex_lock(&j->mu);
        j->base = base;
        j->count = count;
        j->next = base;
        j->finished = 0;
        pthread_cond_broadcast(&j->cv_work);
        while (j->finished < count) pthread_cond_wait(&j->cv_done, &j->mu);
        s = j->error;
        pthread_mutex_unlock(&j->mu);
        for (uint64_t i = 0; s == MERKLE_OK && i < count; i++)
            s = merkle__tree_push_subtree(p->t, p->height, j->roots[i]);
    }
    pthread_mutex_lock(&j->mu);
    j->stop = 1;
    pthread_cond_broadcast(&j->cv_work);
    pthread_mutex_unlock(&j->mu);
    return s;
}

/* A worker without a thread: the window loop must not wait for it. */
static void pool_unstarted(void *arg, unsigned share)
{
    (void)share;
    ((pool *)arg)->workers--;
}

static unsigned log2u(uint64_t x)
{
    unsigned r = 0;
    while (x >>= 1) r++;
    return r;
}

static merkle_status run(job *j, uint8_t out[MERKLE_HASH_LEN], int *is_empty, unsigned threads)
{
    merkle_tree *t = malloc(sizeof *t);
    if (!t) return MERKLE_ERR_NOMEM;
    merkle_status s = merkle_tree_init(t, j->profile, j->hash, j->leaf_size);
    if (s != MERKLE_OK) {
        free(t);
        return s;
    }
    const uint64_t ls = j->leaf_size;
    const uint64_t nleaves = j->total_len / ls + (j->total_len % ls != 0);
    /* P: the largest power of two with P * leaf_size <= the target (at least 1). */
    uint64_t P = 1;
    while (P * 2 * ls <= j->piece_target && P < ((uint64_t)1 << 40)) P *= 2;
    j->piece_bytes = P * ls;
    const uint64_t pieces = nleaves / P;
    const unsigned height = log2u(P);

    uint8_t *buf = j->read_at ? malloc(READ_BUF_BYTES) : NULL;
    if (j->read_at && !buf) {
        free(t);
        return MERKLE_ERR_NOMEM;
    }
    if (threads > 1 && pieces > 1) {
        /* The coordinator and `threads` workers (one fewer for UINT_MAX: never started). */
        unsigned n = threads < UINT_MAX ? threads + 1 : threads;
        pool p = { j, t, height, pieces, (size_t)threads * WINDOW_PER_THREAD, n - 1 };
        j->roots = malloc(p.window * MERKLE_HASH_LEN);
        if (!j->roots) s = MERKLE_ERR_NOMEM;
        if (s == MERKLE_OK) {
            pthread_mutex_init(&j->mu, NULL);
            pthread_cond_init(&j->cv_work, NULL);
            pthread_cond_init(&j->cv_done, NULL);
            j->base = j->count = j->next = j->finished = 0;
            j->stop = 0;
            j->error = MERKLE_OK;
            s = (merkle_status)merkle__parallel_for(n, pool_share, pool_unstarted, &p);
            pthread_mutex_destroy(&j->mu);
            pthread_cond_destroy(&j->cv_work);
            pthread_cond_destroy(&j->cv_done);
        }
        free(j->roots);
        j->roots = NULL;
    } else {
        /* One thread: stream the whole input through the builder. */
        uint8_t root[MERKLE_HASH_LEN];
        for (uint64_t p = 0; s == MERKLE_OK && p < pieces; p++) {
            s = range_root(j, p * j->piece_bytes, piece_len(j, p), buf, root);
            if (s == MERKLE_OK) s = merkle__tree_push_subtree(t, height, root);
        }
    }
    /* The last T < P leaves: aligned perfect subtrees by the set bits of T, largest first. */
    uint64_t leaf = pieces * P;
    for (int b = (int)height - 1; s == MERKLE_OK && b >= 0; b--) {
        uint64_t size = (uint64_t)1 << b;
        if (nleaves - leaf < size) continue;
        uint64_t off = leaf * ls;
        uint64_t len = size * ls;
        if (len > j->total_len - off) len = j->total_len - off;
        uint8_t root[MERKLE_HASH_LEN];
        s = range_root(j, off, len, buf, root);
        if (s == MERKLE_OK) s = merkle__tree_push_subtree(t, (unsigned)b, root);
        leaf += size;
    }
    if (s == MERKLE_OK) s = merkle_tree_root(out, is_empty, t);
    free(buf);
    free(t);
    return s;
}

merkle_status merkle__root_parallel_ex(uint8_t out[MERKLE_HASH_LEN], int *is_empty,
                                       merkle_profile profile, merkle_hash_alg hash,
                                       size_t leaf_size, uint64_t total_len,
                                       merkle_read_at_fn read_at, void *ctx, const void *mem,
                                       unsigned threads, uint64_t piece_target)
{
    if (!out || (!read_at && !mem && total_len) || leaf_size == 0 ||
        !merkle__profile_classic(profile) || !merkle__tree_hash_ok(hash))
        return MERKLE_ERR_ARG;
    job j;
    memset(&j, 0, sizeof j);
    j.profile = profile;
    j.hash = hash;
    j.leaf_size = leaf_size;
    j.total_len = total_len;
    j.read_at = read_at;
    j.ctx = ctx;
    j.mem = (const uint8_t *)mem;
    j.piece_target = piece_target ? piece_target : PIECE_TARGET_BYTES;
    return run(&j, out, is_empty, threads);
}

merkle_status merkle_tree_root_parallel(uint8_t out[MERKLE_HASH_LEN], int *is_empty,
                                        merkle_profile profile, merkle_hash_alg hash,
                                        size_t leaf_size, uint64_t total_len,
                                        merkle_read_at_fn read_at, void *ctx, unsigned threads)
{
    if (!read_at) return MERKLE_ERR_ARG;
    return merkle__root_parallel_ex(out, is_empty, profile, hash, leaf_size, total_len, read_at,
                                    ctx, NULL, threads, 0);
}

merkle_status merkle_tree_root_bytes_parallel(uint8_t out[MERKLE_HASH_LEN], merkle_profile profile,
                                              merkle_hash_alg hash, size_t leaf_size,
                                              const void *data, size_t len, unsigned threads)
{
    if (!data && len) return MERKLE_ERR_ARG;
    return merkle__root_parallel_ex(out, NULL, profile, hash, leaf_size, len, NULL, NULL,
                                    data ? data : "", threads, 0);
}
