/*
** `merkle root --mpi FILE...`: the root of each file computed by all ranks of an MPI job.
**
** For each input, rank 0 stats the file and broadcasts how it will be handled:
**   - a regular file (shared file system): its N leaves are cut into chunks of C leaves, C a
**     power of two, and each rank takes a contiguous run of chunks, so every rank's range
**     starts on a multiple of C. Inside a rank the range is split again among its threads.
**     Each worker covers its range [s, e) with aligned perfect subtrees (2^h leaves starting
**     at a multiple of 2^h, the largest that fits) and computes their roots with the
**     library's streaming builder over pread(2) reads; a piece that holds the short last
**     leaf is still a perfect shape of 2^h leaves. Every rank then sends a status and its
**     (height, root) list to rank 0 in one gather (O(log n) hashes per rank), and rank 0
**     pushes them in order into a merkle_tree (merkle__tree_push_subtree) and prints what
**     `merkle root` prints.
**   - standard input, a --leaves list, anything that is not a regular file, or a name that
**     cannot be stat'ed: rank 0 computes it alone with the single-process code path
**     (root_compute), so output and error messages are exactly those of `merkle root`.
** Every rank takes part in every collective for every file whatever happened to it, and a
** failure travels as a status in the gather: no rank waits for one that failed. The exit
** status (0, or 1 if any input failed) is broadcast so that every rank returns it.
*/
#ifdef MERKLE_WITH_MPI

#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpi_util.h"
#include "rootio.h"
#include "tree/tree_impl.h"

#define MPI_READ_CHUNK (1u << 20)
/* Chunks per rank: enough that ranks get equal shares within ~1/256 of the file. */
#define CHUNKS_PER_RANK 256u
/* A range [s, e) of leaves needs at most 2 * 64 aligned pieces. */
#define MAX_PIECES 128

enum { MODE_LOCAL = 0, MODE_SPLIT = 1 };

typedef struct piece {
    uint64_t start;  /* first leaf */
    unsigned height; /* 2^height leaves */
} piece;

/* Per-thread work: a range of leaves of one file, and its result. */
typedef struct worker {
    const root_opts *o;
    const char *name;
    int fd;
    uint64_t size;   /* file size in bytes at stat time */
    uint64_t first, end; /* leaves [first, end) */
    size_t npieces;
    uint8_t out[MAX_PIECES][1 + MERKLE_HASH_LEN]; /* height byte, root */
    int failed;
    char msg[MPI_MSG_LEN];
} worker;

static void worker_fail(worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void worker_fail(worker *w, const char *fmt, ...)
{
    if (w->failed) return;
    w->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->msg, sizeof w->msg, fmt, ap);
    va_end(ap);
}

/* Cover [s, e) with aligned perfect subtrees, left to right. Returns the count (<= 128). */
static size_t aligned_pieces(uint64_t s, uint64_t e, piece *out)
{
    size_t n = 0;
    while (s < e) {
        unsigned h = s ? (unsigned)__builtin_ctzll(s) : 63u;
        while (h > 0 && ((uint64_t)1 << h) > e - s) h--;
        out[n].start = s;
        out[n].height = h;
        n++;
        s += (uint64_t)1 << h;
    }
    return n;
}

/* Root of leaves [p->start, p->start + 2^height) of the file, streamed with pread. */
static int hash_piece(worker *w, const piece *p, merkle_tree *t, uint8_t *buf,
                      uint8_t root[MERKLE_HASH_LEN])
{
    const size_t ls = w->o->leaf_size;
    uint64_t off = p->start * ls;
    uint64_t leaves = (uint64_t)1 << p->height;
    uint64_t end = (p->start + leaves > w->end) ? w->size : (p->start + leaves) * ls;
    if (end > w->size) end = w->size;
    merkle_status s = merkle_tree_init(t, w->o->profile, w->o->hash, ls);
    if (s != MERKLE_OK) {
        worker_fail(w, "%s: %s", w->name, merkle_strerror(s));
        return -1;
    }
    while (off < end) {
        size_t want = end - off < MPI_READ_CHUNK ? (size_t)(end - off) : MPI_READ_CHUNK;
        size_t used = 0;
        while (used < want) {
            ssize_t got = pread(w->fd, buf + used, want - used, (off_t)(off + used));
            if (got < 0) {
                if (errno == EINTR) continue;
                worker_fail(w, "%s: %s", w->name, strerror(errno));
                return -1;
            }
            if (got == 0) {
                worker_fail(w, "%s: file shrank while it was being read (expected %llu bytes)",
                            w->name, (unsigned long long)w->size);
                return -1;
            }
            used += (size_t)got;
        }
        s = merkle_tree_write(t, buf, used);
        if (s != MERKLE_OK) {
            worker_fail(w, "%s: %s", w->name, merkle_strerror(s));
            return -1;
        }
        off += used;
    }
    if (merkle_tree_leaf_count(t) != leaves) {
        worker_fail(w, "%s: internal error: piece of %llu leaves has %llu", w->name,
                    (unsigned long long)leaves, (unsigned long long)merkle_tree_leaf_count(t));
        return -1;
    }
    s = merkle_tree_root(t, root, NULL);
    if (s != MERKLE_OK) {
        worker_fail(w, "%s: %s", w->name, merkle_strerror(s));
        return -1;
    }
    return 0;
}

static void *worker_run(void *arg)
{
    worker *w = (worker *)arg;
    piece pieces[MAX_PIECES];
    size_t n = aligned_pieces(w->first, w->end, pieces);
    merkle_tree *t = malloc(sizeof *t);
    uint8_t *buf = malloc(MPI_READ_CHUNK);
    if (!t || !buf) {
        worker_fail(w, "%s: %s", w->name, strerror(ENOMEM));
    } else {
        for (size_t i = 0; i < n; i++) {
            if (hash_piece(w, &pieces[i], t, buf, w->out[i] + 1) != 0) break;
            w->out[i][0] = (uint8_t)pieces[i].height;
            w->npieces = i + 1;
        }
    }
    free(buf);
    free(t);
    return NULL;
}

/* Start of part k of n equal parts of [a, b) (parts differ by at most one unit). */
static uint64_t part_start(uint64_t a, uint64_t b, uint64_t k, uint64_t n)
{
    uint64_t len = b - a, q = len / n, r = len % n;
    return a + q * k + (k < r ? k : r);
}

/*
** This rank's share of a split file: fills hdr and *out (malloc'd, 33 bytes per piece).
** Never fails in a way that skips the gather: failures go into hdr.
*/
static void rank_work(const root_opts *o, const char *name, uint64_t size, int rank, int nranks,
                      unsigned threads, mpi_hdr *hdr, uint8_t **out)
{
    memset(hdr, 0, sizeof *hdr);
    *out = NULL;
    const uint64_t ls = o->leaf_size;
    const uint64_t nleaves = size / ls + (size % ls != 0);
    /* Chunk size: a power of two, about nleaves / (nranks * CHUNKS_PER_RANK). */
    uint64_t target = nleaves / ((uint64_t)nranks * CHUNKS_PER_RANK);
    uint64_t chunk = 1;
    while (chunk <= target / 2) chunk <<= 1;
    uint64_t nchunks = nleaves / chunk + (nleaves % chunk != 0);
    uint64_t c0 = part_start(0, nchunks, (uint64_t)rank, (uint64_t)nranks);
    uint64_t c1 = part_start(0, nchunks, (uint64_t)rank + 1, (uint64_t)nranks);
    uint64_t first = c0 * chunk, end = c1 * chunk;
    if (end > nleaves) end = nleaves;
    if (first > end) first = end;

    /* Rank 0 always opens the file, as `merkle root` would even for an empty one. */
    int fd = -1;
    if (first < end || rank == 0) {
        fd = open(name, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            mpi_hdr_fail(hdr, rank, "%s: %s", name, strerror(errno));
            return;
        }
    }
    if (first == end) {
        if (fd >= 0) close(fd);
        return;
    }
#ifdef POSIX_FADV_SEQUENTIAL
    (void)posix_fadvise(fd, (off_t)(first * ls), 0, POSIX_FADV_SEQUENTIAL);
#endif
    uint64_t span = end - first;
    if (threads > span) threads = (unsigned)span;
    if (threads < 1) threads = 1;
    worker *ws = calloc(threads, sizeof *ws);
    uint8_t *buf = ws ? malloc((size_t)threads * MAX_PIECES * (1 + MERKLE_HASH_LEN)) : NULL;
    if (!buf) {
        free(ws);
        close(fd);
        mpi_hdr_fail(hdr, rank, "%s: %s", name, strerror(ENOMEM));
        return;
    }
    pthread_t *tids = calloc(threads, sizeof *tids);
    int *started = calloc(threads, sizeof *started);
    for (unsigned i = 0; i < threads; i++) {
        worker *w = &ws[i];
        w->o = o;
        w->name = name;
        w->fd = fd;
        w->size = size;
        w->first = part_start(first, end, i, threads);
        w->end = part_start(first, end, i + 1u, threads);
        /* Thread 0 runs on this thread; the others in their own if they can be started. */
        if (i > 0 && tids && started && pthread_create(&tids[i], NULL, worker_run, w) == 0)
            started[i] = 1;
    }
    worker_run(&ws[0]);
    for (unsigned i = 1; i < threads; i++) {
        if (started && started[i])
            pthread_join(tids[i], NULL);
        else
            worker_run(&ws[i]);
    }
    close(fd);
    size_t np = 0;
    for (unsigned i = 0; i < threads; i++) {
        if (ws[i].failed) {
            mpi_hdr_fail(hdr, rank, "%s", ws[i].msg);
            break;
        }
        memcpy(buf + np * (1 + MERKLE_HASH_LEN), ws[i].out, ws[i].npieces * (1 + MERKLE_HASH_LEN));
        np += ws[i].npieces;
    }
    if (hdr->status == 0) {
        hdr->count = (int32_t)np;
        *out = buf;
    } else {
        free(buf);
    }
    free(started);
    free(tids);
    free(ws);
}

/* Rank 0: fold the gathered pieces of all ranks into the root. */
static int merge_root(const root_opts *o, const char *name, const uint8_t *pieces, size_t n,
                      uint8_t root[MERKLE_HASH_LEN])
{
    merkle_tree *t = malloc(sizeof *t);
    if (!t) {
        cli_error("%s: %s", name, strerror(ENOMEM));
        return -1;
    }
    merkle_status s = merkle_tree_init(t, o->profile, o->hash, o->leaf_size);
    for (size_t i = 0; s == MERKLE_OK && i < n; i++) {
        const uint8_t *rec = pieces + i * (1 + MERKLE_HASH_LEN);
        s = merkle__tree_push_subtree(t, rec[0], rec + 1);
    }
    if (s == MERKLE_OK) s = merkle_tree_root(t, root, NULL);
    free(t);
    if (s != MERKLE_OK) {
        cli_error("%s: %s", name, merkle_strerror(s));
        return -1;
    }
    return 0;
}

/* Which ranks share this node: the thread budget of the node is divided among them. */
static unsigned threads_per_rank(const root_opts *o)
{
    MPI_Comm node;
    int local = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
    }
    unsigned share = cli_num_cpus() / (unsigned)(local > 0 ? local : 1);
    if (share < 1) share = 1;
    unsigned t = o->threads ? o->threads : share;
    return t < share ? t : share;
}

/* One input, on every rank. Returns 0 or -1 (on rank 0: message printed). */
static int root_one(const root_opts *o, const char *name, int rank, int nranks, unsigned threads)
{
    /* [0] mode, [1] size */
    uint64_t plan[2] = {MODE_LOCAL, 0};
    if (rank == 0) {
        struct stat st;
        if (!o->leaves && strcmp(name, "-") != 0 && stat(name, &st) == 0 && S_ISREG(st.st_mode)) {
            plan[0] = MODE_SPLIT;
            plan[1] = (uint64_t)st.st_size;
        }
    }
    MPI_Bcast(plan, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (plan[0] == MODE_LOCAL) {
        if (rank != 0) return 0;
        uint8_t root[MERKLE_HASH_LEN];
        root_result res;
        if (root_compute(o, name, root, &res) != 0) return -1;
        mpi_print_root(root, name);
        return 0;
    }

    mpi_hdr hdr;
    uint8_t *mine = NULL;
    rank_work(o, name, plan[1], rank, nranks, threads, &hdr, &mine);
    uint8_t *all = NULL;
    size_t total = 0;
    int fail = mpi_gather_results(&hdr, mine, 1 + MERKLE_HASH_LEN, rank, nranks, &all, &total);
    free(mine);
    if (rank != 0) return 0;
    int rc = 0;
    if (fail == 0) {
        uint8_t root[MERKLE_HASH_LEN];
        rc = merge_root(o, name, all, total, root);
        if (rc == 0) mpi_print_root(root, name);
    } else {
        rc = -1;
    }
    free(all);
    return rc;
}

int root_run_mpi(const root_opts *o, const char *const *names, int n)
{
    int rank, nranks;
    if (mpi_start(&rank, &nranks) != 0) return CLI_FAIL;
    unsigned threads = threads_per_rank(o);
    int status = CLI_OK;
    for (int i = 0; i < n; i++)
        if (root_one(o, names[i], rank, nranks, threads) != 0) status = CLI_FAIL;
    return mpi_finish(rank, status);
}

#endif
