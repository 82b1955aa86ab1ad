/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** `merkle root --mpi FILE...`: the root of each file computed by all ranks of an MPI job.
**
** For each input, rank 0 stats the file and broadcasts how it will be handled:
**   - a regular file (shared file system): its N leaves are cut into chunks of C leaves, C a
**     power of two (about N / (256 * ranks)), and each rank takes a contiguous run of
**     chunks, so every rank's range starts on a multiple of C. The rank covers its range
**     with aligned perfect subtrees (2^h leaves starting at a multiple of 2^h, the largest
**     that fits: at most 2 * 64 of them) and computes each one's root with the library's
**     threaded merkle_tree_root_parallel (-j threads) over pread(2); a piece that holds the short
**     last leaf is still a perfect shape of 2^h leaves. Every rank then sends a status and
**     its (height, root) list to rank 0 in one gather (O(log n) hashes per rank), and rank 0
**     appends them in order to a merkle_compact_range (the public compact-range API) and
**     prints what `merkle root` prints.
**   - standard input, a --leaves list, anything that is not a regular file, or a name that
**     cannot be stat'ed: rank 0 computes it alone with the single-process code path
**     (root_compute), so output and error messages are exactly those of `merkle root`.
** Every rank takes part in every collective for every file whatever happened to it, and a
** failure travels as a status in the gather: no rank waits for one that failed. The exit
** status (0, or 1 if any input failed) is broadcast so that every rank returns it.
*/
#include "rootio.h"

/* Without MERKLE_WITH_MPI this file is empty; cli/mpi_stub.c answers --mpi. */
#ifdef MERKLE_WITH_MPI

#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpi_util.h"

/* Chunks per rank: enough that ranks get equal shares within ~1/256 of the file. */
#define CHUNKS_PER_RANK 256u
/* A range [s, e) of leaves needs at most 2 * 64 aligned pieces. */
#define MAX_PIECES 128

enum { MODE_LOCAL = 0, MODE_SPLIT = 1 };

typedef struct piece {
    uint64_t start;  /* first leaf */
    unsigned height; /* 2^height leaves */
} piece;

/* read_at context of one piece: the rank's descriptor, the piece's offset in the file. */
typedef struct piece_reader {
    int fd;
    uint64_t base;
    atomic_int err; /* first errno seen (0 = none, -1 = the file shrank) */
} piece_reader;

static merkle_status piece_read_at(void *ctx, void *buf, size_t len, uint64_t offset)
{
    piece_reader *r = (piece_reader *)ctx;
    int e = cli_pread_full(r->fd, buf, len, r->base + offset);
    if (e == 0) return MERKLE_OK;
    int none = 0;
    atomic_compare_exchange_strong(&r->err, &none, e);
    return MERKLE_ERR_IO;
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

/* Start of part k of n equal parts of [a, b) (parts differ by at most one unit). */
static uint64_t part_start(uint64_t a, uint64_t b, uint64_t k, uint64_t n)
{
    uint64_t len = b - a, q = len / n, r = len % n;
    return a + q * k + (k < r ? k : r);
}

/*
** This rank's share of a split file: fills hdr and *out (malloc'd, 33 bytes per piece:
** height, root). Failures go into hdr; the caller always takes part in the gather.
*/
static void rank_work(const root_opts *o, const char *name, uint64_t size, int rank, int nranks,
                      unsigned threads, mpi_hdr *hdr, uint8_t **out)
{
    memset(hdr, 0, sizeof *hdr);
    *out = NULL;
    const uint64_t ls = o->leaf_size;
    const uint64_t nleaves = size / ls + (size % ls != 0);
    /* Chunk: a power of two, about nleaves / (nranks * CHUNKS_PER_RANK) leaves. */
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
    if (first == end && rank != 0) return;
    int fd = open(name, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        mpi_hdr_fail(hdr, rank, "%s: %s", name, strerror(errno));
        return;
    }
    piece pieces[MAX_PIECES];
    size_t n = aligned_pieces(first, end, pieces);
    uint8_t *recs = n ? malloc(n * (1 + MERKLE_HASH_LEN)) : NULL;
    if (n && !recs) {
        close(fd);
        mpi_hdr_fail(hdr, rank, "%s: %s", name, strerror(ENOMEM));
        return;
    }
#ifdef POSIX_FADV_SEQUENTIAL
    if (n)
        (void)posix_fadvise(fd, (off_t)(first * ls), (off_t)((end - first) * ls),
                            POSIX_FADV_SEQUENTIAL);
#endif
    for (size_t i = 0; i < n; i++) {
        /* The piece's bytes: its 2^h leaves, the last piece of the file ending short. */
        uint64_t off = pieces[i].start * ls;
        uint64_t len = ((uint64_t)1 << pieces[i].height) * ls;
        if (len > size - off) len = size - off;
        piece_reader rd = { .fd = fd, .base = off };
        atomic_init(&rd.err, 0);
        uint8_t *rec = recs + i * (1 + MERKLE_HASH_LEN);
        merkle_status s = merkle_tree_root_parallel(rec + 1, NULL, o->profile, o->hash,
                                                    o->leaf_size, len, piece_read_at, &rd, threads);
        rec[0] = (uint8_t)pieces[i].height;
        int e = atomic_load(&rd.err);
        if (s != MERKLE_OK && e > 0) {
            mpi_hdr_fail(hdr, rank, "%s: %s", name, strerror(e));
        } else if (s != MERKLE_OK && e < 0) {
            mpi_hdr_fail(hdr, rank, "%s: file shrank while it was being read (expected %llu bytes)",
                         name, (unsigned long long)size);
        } else if (s != MERKLE_OK) {
            mpi_hdr_fail(hdr, rank, "%s: %s", name, merkle_strerror(s));
        }
        if (s != MERKLE_OK) break;
    }
    close(fd);
    if (hdr->status) {
        free(recs);
        return;
    }
    hdr->count = (int32_t)n;
    *out = recs;
}

/* Rank 0: fold the gathered pieces of all ranks, in order, into one compact range (the
** public merkle_compact_range API) and take its root; no pieces: the empty file's root. */
static int merge_root(const root_opts *o, const char *name, const uint8_t *pieces, size_t n,
                      uint8_t root[MERKLE_HASH_LEN])
{
    merkle_status s;
    if (n == 0) {
        s = merkle_tree_empty_root(root, o->profile, o->hash);
    } else {
        merkle_compact_range *r = malloc(sizeof *r);
        if (!r) {
            cli_error("%s: %s", name, strerror(ENOMEM));
            return -1;
        }
        s = merkle_compact_range_init(r, o->hash, 0);
        for (size_t i = 0; s == MERKLE_OK && i < n; i++) {
            const uint8_t *rec = pieces + i * (1 + MERKLE_HASH_LEN);
            s = merkle_compact_range_append_subtree(r, rec[0], rec + 1);
        }
        if (s == MERKLE_OK) s = merkle_compact_range_root(root, r);
        free(r);
    }
    if (s != MERKLE_OK) {
        cli_error("%s: %s", name, merkle_strerror(s));
        return -1;
    }
    return 0;
}

/* Threads per rank: -j N as given, else mpi_default_threads(). Collective. */
static unsigned threads_per_rank(const root_opts *o)
{
    unsigned def = mpi_default_threads(); /* every rank calls it: it is collective */
    return o->threads_given ? o->threads : def;
}

/* One input, on every rank. Returns 0 or -1 (on rank 0: message printed). */
static int root_one(const root_opts *o, const char *name, int rank, int nranks, unsigned threads)
{
    /* [0] mode, [1] size */
    uint64_t plan[2] = { MODE_LOCAL, 0 };
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
    int fail =
        mpi_gather_results(&hdr, mine, 1 + MERKLE_HASH_LEN, rank, nranks, &all, &total, NULL, 0);
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
