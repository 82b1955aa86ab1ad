/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** `merkle check --mpi MANIFEST...`: rank 0 runs `merkle check` itself (reads and parses the
** manifests, prints every line and summary in manifest order, keeps the cache); for each
** manifest it hands the entries out to all ranks, balanced by file size (largest first, each
** to the rank with the fewest bytes so far), every rank checks its share with the library's
** threaded merkle_manifest_check on the shared file system, and one gather brings the
** per-file results back. The other ranks only serve: per manifest one broadcast (request),
** one scatter (their entries), one gather (results); a DONE request releases them.
**
** With --cache, rank 0 answers unchanged files from the cache before distributing (stat on
** rank 0), and records the files that other ranks verified OK with the identity rank 0 saw
** and a time taken before that stat: a file changed after it is newer than the record and
** is re-hashed next time, exactly as for a local check. Only rank 0 writes the cache.
*/
#include "mpi_check.h"

/* Without MERKLE_WITH_MPI this file is empty; cli/mpi_stub.c answers --mpi. */
#ifdef MERKLE_WITH_MPI

#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mpi_util.h"

enum { REQ_JOB = 1, REQ_DONE = 2 };

/* Bytes a file costs besides its size (open, stat, close): a few microseconds of hashing. */
#define FILE_COST 16384u

/* One result as it travels back to rank 0 (same binary on every rank). */
typedef struct wire_result {
    int32_t status;
    int32_t sys_errno;
    int32_t from_cache;
    int32_t pad;
    uint64_t size;
    uint8_t digest[MERKLE_MAX_DIGEST_LEN];
} wire_result;

static int g_rank = -1, g_nranks = 0;
static unsigned g_default_threads = 1;

/* Item header in a rank's request buffer, followed by digest[dlen] and name + NUL. */
typedef struct wire_item {
    uint8_t alg, dlen, pad[2];
    uint32_t name_len;
} wire_item;

static size_t item_size(const merkle_manifest_entry *e)
{
    return sizeof(wire_item) + e->digest_len + e->name_len + 1;
}

static uint8_t *put_item(uint8_t *p, const merkle_manifest_entry *e)
{
    wire_item h = { (uint8_t)e->alg, (uint8_t)e->digest_len, { 0, 0 }, (uint32_t)e->name_len };
    memcpy(p, &h, sizeof h);
    p += sizeof h;
    memcpy(p, e->digest, e->digest_len);
    p += e->digest_len;
    memcpy(p, e->name, e->name_len);
    p += e->name_len;
    *p++ = '\0';
    return p;
}

/*
** Check the items of buf[0..len) (this rank's share) and pack one wire_result per item into
** *out (malloc'd). Failures of the whole batch (memory, a bad item) go into hdr.
*/
static void serve_items(const uint8_t *buf, size_t len, const merkle_check_opts *o, mpi_hdr *hdr,
                        uint8_t **out)
{
    memset(hdr, 0, sizeof *hdr);
    *out = NULL;
    size_t n = 0;
    for (size_t pos = 0; pos < len; n++) {
        wire_item h;
        if (len - pos < sizeof h) break;
        memcpy(&h, buf + pos, sizeof h);
        pos += sizeof h + h.dlen + (size_t)h.name_len + 1;
    }
    if (n == 0) return;
    merkle_manifest_entry *ents = calloc(n, sizeof *ents);
    merkle_check_result *res = calloc(n, sizeof *res);
    wire_result *w = calloc(n, sizeof *w);
    if (!ents || !res || !w) {
        mpi_hdr_fail(hdr, g_rank, "out of memory for %zu files", n);
        goto done;
    }
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        wire_item h;
        memcpy(&h, buf + pos, sizeof h);
        pos += sizeof h;
        if (h.dlen > MERKLE_MAX_DIGEST_LEN || pos + h.dlen + h.name_len + 1 > len) {
            mpi_hdr_fail(hdr, g_rank, "internal error: malformed request");
            goto done;
        }
        ents[i].alg = (merkle_hash_alg)h.alg;
        ents[i].digest_len = h.dlen;
        memcpy(ents[i].digest, buf + pos, h.dlen);
        pos += h.dlen;
        ents[i].name = (const char *)buf + pos;
        ents[i].name_len = h.name_len;
        pos += (size_t)h.name_len + 1;
    }
    merkle_error err;
    memset(&err, 0, sizeof err);
    merkle_status s = merkle_manifest_check(res, ents, n, o, &err);
    if (s != MERKLE_OK) {
        mpi_hdr_fail(hdr, g_rank, "%s", err.message[0] ? err.message : merkle_strerror(s));
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        w[i].status = (int32_t)res[i].status;
        w[i].sys_errno = res[i].sys_errno;
        w[i].from_cache = res[i].from_cache;
        w[i].size = res[i].size;
        memcpy(w[i].digest, res[i].digest, MERKLE_MAX_DIGEST_LEN);
    }
    hdr->count = (int32_t)n;
    *out = (uint8_t *)w;
    w = NULL;
done:
    free(w);
    free(res);
    free(ents);
}

/* The collective part of one request, on every rank: scatter, check, gather. */
static int run_job(const uint8_t *sendbuf, const int *counts, const int *displs,
                   const merkle_check_opts *o, uint8_t **all, size_t *total, char *msg,
                   size_t msg_cap)
{
    int mine = 0;
    MPI_Scatter(counts, 1, MPI_INT, &mine, 1, MPI_INT, 0, MPI_COMM_WORLD);
    uint8_t *buf = malloc((size_t)mine + 1);
    if (!buf) {
        /* Cannot even receive: end the job rather than leave rank 0 waiting. */
        cli_error("out of memory (rank %d)", g_rank);
        MPI_Abort(MPI_COMM_WORLD, CLI_FAIL);
    }
    MPI_Scatterv(sendbuf, counts, displs, MPI_BYTE, buf, mine, MPI_BYTE, 0, MPI_COMM_WORLD);
    mpi_hdr hdr;
    uint8_t *recs = NULL;
    serve_items(buf, (size_t)mine, o, &hdr, &recs);
    int fail = mpi_gather_results(&hdr, recs, sizeof(wire_result), g_rank, g_nranks, all, total,
                                  msg, msg_cap);
    free(recs);
    free(buf);
    return fail;
}

int mpi_check_start(void)
{
    if (mpi_start(&g_rank, &g_nranks) != 0) return CLI_FAIL;
    g_default_threads = mpi_default_threads();
    if (g_rank == 0) return -1;
    for (;;) {
        uint32_t req[3] = { 0, 0, 0 }; /* kind, status, threads */
        MPI_Bcast(req, 3, MPI_UINT32_T, 0, MPI_COMM_WORLD);
        if (req[0] != REQ_JOB) {
            MPI_Finalize();
            return (int)req[1];
        }
        merkle_check_opts o;
        merkle_check_opts_init(&o, MERKLE_CHECK_OPTS_VERSION);
        o.threads = req[2] ? req[2] : g_default_threads;
        uint8_t *all = NULL;
        size_t total = 0;
        run_job(NULL, NULL, NULL, &o, &all, &total, NULL, 0);
        free(all);
    }
}

int mpi_check_finish(int status)
{
    uint32_t req[3] = { REQ_DONE, (uint32_t)status, 0 };
    MPI_Bcast(req, 3, MPI_UINT32_T, 0, MPI_COMM_WORLD);
    if (fflush(stdout) != 0 || ferror(stdout)) status = CLI_FAIL;
    MPI_Finalize();
    return status;
}

/* Min-heap of (load, rank) for the largest-first assignment. */
typedef struct load {
    uint64_t bytes;
    int rank;
} load;

static int load_less(const load *a, const load *b)
{
    return a->bytes < b->bytes || (a->bytes == b->bytes && a->rank < b->rank);
}

static void heap_down(load *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && load_less(&h[l], &h[m])) m = l;
        if (r < n && load_less(&h[r], &h[m])) m = r;
        if (m == i) return;
        load t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static const uint64_t *g_weights; /* for the qsort below (rank 0 only, single-threaded) */

static int by_weight_desc(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (g_weights[x] != g_weights[y]) return g_weights[x] > g_weights[y] ? -1 : 1;
    return x < y ? -1 : (x > y);
}

static merkle_status fail_status(merkle_error *error, merkle_status s, const char *msg)
{
    if (error) {
        memset(error, 0, sizeof *error);
        error->status = s;
        size_t l = strlen(msg);
        if (l >= sizeof error->message) l = sizeof error->message - 1;
        memcpy(error->message, msg, l);
        error->message[l] = '\0';
    }
    return s;
}

/* The state of one distributed check on rank 0. */
typedef struct mpi_plan {
    int *owner;       /* rank of each entry; -1 none yet, -2 answered by the cache */
    uint64_t *weight; /* FILE_COST + size */
    merkle_file_id *ids;
    uint8_t *have_id;
    size_t *order, m; /* entries to hand out */
    load *heap;
    int *counts, *displs;
    uint64_t *bytes;
    uint8_t *sendbuf;
} mpi_plan;

static void plan_free(mpi_plan *p)
{
    free(p->sendbuf);
    free(p->bytes);
    free(p->displs);
    free(p->counts);
    free(p->heap);
    free(p->order);
    free(p->have_id);
    free(p->ids);
    free(p->weight);
    free(p->owner);
}

static int plan_alloc(mpi_plan *p, size_t n)
{
    memset(p, 0, sizeof *p);
    p->owner = malloc(n * sizeof *p->owner);
    p->weight = malloc(n * sizeof *p->weight);
    p->ids = malloc(n * sizeof *p->ids);
    p->have_id = calloc(n, 1);
    p->order = malloc(n * sizeof *p->order);
    p->heap = malloc((size_t)g_nranks * sizeof *p->heap);
    p->counts = calloc((size_t)g_nranks, sizeof *p->counts);
    p->displs = calloc((size_t)g_nranks, sizeof *p->displs);
    p->bytes = calloc((size_t)g_nranks, sizeof *p->bytes);
    return p->owner && p->weight && p->ids && p->have_id && p->order && p->heap && p->counts &&
                   p->displs && p->bytes
               ? 0
               : -1;
}

/* Rank 0 looks at every file (size for the balance, identity for the cache), answers what
** the cache vouches for, and gives the rest out largest first, each to the least loaded
** rank. */
static void plan_assign(mpi_plan *p, merkle_check_result *results,
                        const merkle_manifest_entry *entries, size_t n,
                        const merkle_check_opts *local)
{
    p->m = 0;
    for (size_t i = 0; i < n; i++) {
        const merkle_manifest_entry *e = &entries[i];
        memset(&results[i], 0, sizeof results[i]);
        p->owner[i] = -1;
        p->weight[i] = FILE_COST;
        if (local->dash_is_stdin && strcmp(e->name, "-") == 0) {
            p->owner[i] = 0; /* standard input is rank 0's */
            continue;
        }
        /* names are relative to local->dir (NULL: the current directory) */
        char *joined = NULL;
        const char *path = e->name;
        if (local->dir) {
            size_t dl = strlen(local->dir), nl = strlen(e->name);
            joined = malloc(dl + nl + 2);
            if (joined) {
                memcpy(joined, local->dir, dl);
                joined[dl] = '/';
                memcpy(joined + dl + 1, e->name, nl + 1);
                path = joined;
            }
        }
        int have = (!local->dir || joined) &&
                   merkle_file_id_of(&p->ids[i], path, NULL) == MERKLE_OK && p->ids[i].regular;
        free(joined);
        if (have) {
            p->have_id[i] = 1;
            p->weight[i] += p->ids[i].size;
            if (local->cache && merkle_vcache_lookup(local->cache, e->name, &p->ids[i], e->alg,
                                                     e->digest, e->digest_len)) {
                results[i].status = MERKLE_CHECK_OK;
                results[i].from_cache = 1;
                memcpy(results[i].digest, e->digest, e->digest_len);
                p->owner[i] = -2; /* answered */
                continue;
            }
        }
        p->order[p->m++] = i;
    }
    for (int r = 0; r < g_nranks; r++) p->heap[r] = (load){ 0, r };
    for (size_t i = 0; i < n; i++)
        if (p->owner[i] == 0) p->heap[0].bytes += p->weight[i];
    heap_down(p->heap, (size_t)g_nranks, 0);
    g_weights = p->weight;
    qsort(p->order, p->m, sizeof *p->order, by_weight_desc);
    for (size_t k = 0; k < p->m; k++) {
        size_t i = p->order[k];
        p->owner[i] = p->heap[0].rank;
        p->heap[0].bytes += p->weight[i];
        heap_down(p->heap, (size_t)g_nranks, 0);
    }
}

/* Pack each rank's entries, in manifest order, into one scatter buffer. */
static merkle_status plan_pack(mpi_plan *p, const merkle_manifest_entry *entries, size_t n,
                               merkle_error *error)
{
    size_t total_bytes = 0;
    for (size_t i = 0; i < n; i++)
        if (p->owner[i] >= 0) {
            p->bytes[p->owner[i]] += item_size(&entries[i]);
            total_bytes += item_size(&entries[i]);
        }
    if (total_bytes > (size_t)INT32_MAX)
        return fail_status(error, MERKLE_ERR_RANGE,
                           "manifest too large to distribute (2 GiB of names)");
    p->sendbuf = malloc(total_bytes + 1);
    if (!p->sendbuf) return fail_status(error, MERKLE_ERR_NOMEM, "out of memory");
    size_t off = 0;
    for (int r = 0; r < g_nranks; r++) {
        p->displs[r] = (int)off;
        p->counts[r] = (int)p->bytes[r];
        off += p->bytes[r];
        p->bytes[r] = (uint64_t)p->displs[r]; /* now: write cursor */
    }
    for (size_t i = 0; i < n; i++)
        if (p->owner[i] >= 0)
            p->bytes[p->owner[i]] =
                (uint64_t)(put_item(p->sendbuf + p->bytes[p->owner[i]], &entries[i]) - p->sendbuf);
    return MERKLE_OK;
}

/* Results arrive rank by rank, each rank's in manifest order: put them in place, and record
** in the cache what the other ranks verified (rank 0's own share went through it already). */
static merkle_status plan_collect(mpi_plan *p, merkle_check_result *results,
                                  const merkle_manifest_entry *entries, size_t n,
                                  const merkle_check_opts *local, const uint8_t *all, size_t got,
                                  int64_t before, merkle_error *error)
{
    size_t *start = calloc((size_t)g_nranks + 1, sizeof *start);
    if (!start) return fail_status(error, MERKLE_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (p->owner[i] >= 0) start[p->owner[i] + 1]++;
    for (int r = 0; r < g_nranks; r++) start[r + 1] += start[r];
    size_t m = start[g_nranks];
    for (size_t i = 0; i < n; i++)
        if (p->owner[i] >= 0) p->order[start[p->owner[i]]++] = i; /* start[r]: rank r's end */
    free(start);
    size_t k = 0;
    for (; k < m && k < got; k++) {
        size_t i = p->order[k];
        wire_result w;
        memcpy(&w, all + k * sizeof w, sizeof w);
        merkle_check_result *res = &results[i];
        res->status = (merkle_check_status)w.status;
        res->sys_errno = w.sys_errno;
        res->from_cache = (uint8_t)(w.from_cache != 0);
        res->size = w.size;
        memcpy(res->digest, w.digest, MERKLE_MAX_DIGEST_LEN);
        if (p->owner[i] != 0 && local->cache) {
            const merkle_manifest_entry *e = &entries[i];
            if (res->status == MERKLE_CHECK_OK && p->have_id[i])
                (void)merkle_vcache_record(local->cache, e->name, &p->ids[i], e->alg, res->digest,
                                           e->digest_len, before);
            else if (res->status != MERKLE_CHECK_OK)
                merkle_vcache_forget(local->cache, e->name);
        }
    }
    if (k != got || k != m)
        return fail_status(error, MERKLE_ERR_STATE, "internal error: result count");
    return MERKLE_OK;
}

merkle_status mpi_manifest_check(merkle_check_result *results, const merkle_manifest_entry *entries,
                                 size_t n, const merkle_check_opts *opts, merkle_error *error)
{
    merkle_check_opts local;
    merkle_check_opts_init(&local, MERKLE_CHECK_OPTS_VERSION);
    if (opts) local = *opts;
    local.progress = NULL;
    local.progress_ctx = NULL;
    unsigned req_threads = local.threads;
    if (local.threads == 0) local.threads = g_default_threads;
    if (g_nranks <= 1 || n == 0) return merkle_manifest_check(results, entries, n, &local, error);
    if (!results || !entries) return fail_status(error, MERKLE_ERR_ARG, "no entries");

    mpi_plan p;
    merkle_status st = MERKLE_OK;
    if (plan_alloc(&p, n) != 0) {
        st = fail_status(error, MERKLE_ERR_NOMEM, "out of memory");
        goto out;
    }
    int64_t before = merkle_vcache_now();
    plan_assign(&p, results, entries, n, &local);
    st = plan_pack(&p, entries, n, error);
    if (st != MERKLE_OK) goto out;

    uint32_t req[3] = { REQ_JOB, 0, req_threads };
    MPI_Bcast(req, 3, MPI_UINT32_T, 0, MPI_COMM_WORLD);
    uint8_t *all = NULL;
    size_t got = 0;
    char msg[MPI_MSG_LEN];
    if (run_job(p.sendbuf, p.counts, p.displs, &local, &all, &got, msg, sizeof msg)) {
        st = fail_status(error, MERKLE_ERR_IO, msg);
        free(all);
        goto out;
    }
    st = plan_collect(&p, results, entries, n, &local, all, got, before, error);
    free(all);
out:
    plan_free(&p);
    return st;
}

#endif
