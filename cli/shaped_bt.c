/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** BitTorrent v2 (BEP 52) file hashing for the shaped profiles (shaped.c): the 16 KiB block
** hashes of a file streamed a window at a time (a regular file's window on -j threads), the
** pieces root (merkle root --profile bittorrent-v2) and the piece layer (--piece-layer).
*/
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/common/parallel.h" /* compiled into the CLI too (CMakeLists.txt) */
#include "cli.h"
#include "rootio.h"
#include "shaped.h"

#define BT_BLOCK 16384u
#define BT_READ  (1u << 20) /* 64 blocks per read */

typedef struct bt_job {
    int fd;
    uint64_t size;        /* file size */
    uint64_t first, last; /* blocks [first, last) of this thread */
    uint64_t base;        /* block number of leaves[0] */
    node_t *leaves;
    int err; /* errno of a failed read */
} bt_job;

/* SHA-256 of the 16 KiB blocks [first, last) of the file, read with pread. */
static int bt_hash_range(void *arg, unsigned share)
{
    bt_job *j = (bt_job *)arg + share;
    uint8_t *buf = malloc(BT_READ);
    if (!buf) {
        j->err = ENOMEM;
        return 0;
    }
    for (uint64_t b = j->first; b < j->last && !j->err;) {
        uint64_t nb = j->last - b < BT_READ / BT_BLOCK ? j->last - b : BT_READ / BT_BLOCK;
        uint64_t off = b * BT_BLOCK;
        size_t want = (size_t)(off + nb * BT_BLOCK <= j->size ? nb * BT_BLOCK : j->size - off);
        int e = cli_pread_full(j->fd, buf, want, off);
        if (e) {
            j->err = e > 0 ? e : EIO;
            break;
        }
        size_t full = want / BT_BLOCK;
        node_t *dst = j->leaves + (b - j->base);
        (void)merkle_sha256_batch_strided(dst[0], NULL, 0, buf, BT_BLOCK, BT_BLOCK, full);
        if (want % BT_BLOCK) merkle_sha256_hash(dst[full], buf + full * BT_BLOCK, want % BT_BLOCK);
        b += nb;
    }
    free(buf);
    return 0;
}

/*
** The leaf hashes of a file (or stream), 32 bytes per 16 KiB block, handed to fn in order a
** window at a time: constant memory (a window of leaf hashes and one 1 MiB read buffer per
** thread) whatever the file size. A regular file's window is hashed on -j threads, each
** reading a contiguous range of whole blocks with pread; a pipe is read on one thread.
** 0, or -1 after a message (fn returns non-zero to stop, having printed its own).
*/
#define BT_WINDOW 4096u /* blocks: 64 MiB of file, 128 KiB of leaf hashes */

int shaped_bt_stream(const root_opts *o, const char *name, bt_window_fn fn, void *ctx,
                     uint64_t *nblocks)
{
    *nblocks = 0;
    int fd = cli_open_input(name);
    if (fd < 0) {
        cli_error("%s: %s", name, strerror(errno));
        return -1;
    }
    struct stat st;
    int rc = 0;
    node_t *win = malloc(BT_WINDOW * sizeof *win);
    if (!win) {
        cli_error("%s: out of memory", name);
        rc = -1;
    } else if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        cli_error("%s: %s", name, S_ISDIR(st.st_mode) ? strerror(EISDIR) : strerror(errno));
        rc = -1;
    } else if (S_ISREG(st.st_mode)) {
        uint64_t size = (uint64_t)st.st_size, n = (size + BT_BLOCK - 1) / BT_BLOCK;
        unsigned t = o->threads ? o->threads : 1;
        if (t > 64) t = 64;
        for (uint64_t w0 = 0; w0 < n && rc == 0; w0 += BT_WINDOW) {
            uint64_t wn = n - w0 < BT_WINDOW ? n - w0 : BT_WINDOW;
            unsigned tt = (uint64_t)t > wn / 64 ? (unsigned)(wn / 64 ? wn / 64 : 1) : t;
            bt_job jobs[64];
            for (unsigned i = 0; i < tt; i++)
                jobs[i] =
                    (bt_job){ fd, size, w0 + wn * i / tt, w0 + wn * (i + 1) / tt, w0, win, 0 };
            /* A range without a thread is hashed on this one, after the first. */
            (void)merkle__parallel_for(tt, bt_hash_range, NULL, jobs);
            for (unsigned i = 0; i < tt && rc == 0; i++) {
                if (jobs[i].err) {
                    cli_error("%s: %s", name, strerror(jobs[i].err));
                    rc = -1;
                }
            }
            if (rc == 0 && fn(ctx, (const node_t *)win, (size_t)wn) != 0) rc = -1;
            *nblocks += wn;
        }
    } else {
        /* A pipe: whole reads of 1 MiB, the blocks hashed as they come. */
        uint8_t *buf = malloc(BT_READ);
        size_t used = 0, nw = 0;
        int eof = 0;
        if (!buf) {
            cli_error("%s: out of memory", name);
            rc = -1;
        }
        while (rc == 0 && !eof) {
            ssize_t r = read(fd, buf + used, BT_READ - used);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) {
                cli_error("%s: %s", name, strerror(errno));
                rc = -1;
                break;
            }
            if (r == 0) eof = 1;
            used += (size_t)r;
            if (!eof && used < BT_READ) continue;
            size_t full = used / BT_BLOCK, tail = eof ? used % BT_BLOCK : 0;
            for (size_t b = 0; b < full + (tail ? 1 : 0) && rc == 0; b++) {
                if (b < full)
                    (void)merkle_sha256_batch_strided(win[nw], NULL, 0, buf + b * BT_BLOCK,
                                                      BT_BLOCK, BT_BLOCK, 1);
                else
                    merkle_sha256_hash(win[nw], buf + b * BT_BLOCK, tail);
                *nblocks += 1;
                if (++nw == BT_WINDOW) {
                    if (fn(ctx, (const node_t *)win, nw) != 0) rc = -1;
                    nw = 0;
                }
            }
            size_t done = full * BT_BLOCK + tail;
            memmove(buf, buf + done, used - done);
            used -= done;
        }
        if (rc == 0 && nw && fn(ctx, (const node_t *)win, nw) != 0) rc = -1;
        free(buf);
    }
    free(win);
    if (fd != STDIN_FILENO) close(fd);
    if (rc == 0 && *nblocks == 0) {
        cli_error("%s: an empty file has no BEP 52 pieces root", name);
        rc = -1;
    }
    return rc;
}

static int bt_push_cb(void *ctx, const node_t *leaves, size_t n)
{
    merkle_status s = merkle_shape_builder_push((merkle_shape_builder *)ctx, leaves, n);
    if (s != MERKLE_OK) cli_error("%s", merkle_strerror(s));
    return s != MERKLE_OK;
}

/* --piece-layer: piece roots (subtrees of 2^h blocks, the last padded with zero leaves). */
typedef struct bt_layer {
    const char *name;
    merkle_shape piece; /* bittorrent-v2 with limit 2^h */
    node_t *leaves;     /* the current piece's leaf hashes */
    size_t have, per;   /* in the current piece; blocks per piece */
    uint64_t pieces;    /* pieces finished */
    node_t first;       /* held back until a second piece shows the file is larger */
} bt_layer;

static void bt_emit(const bt_layer *l, const uint8_t h[MERKLE_HASH_LEN])
{
    char hex[2 * MERKLE_HASH_LEN + 1];
    merkle_hex_encode(hex, h, MERKLE_HASH_LEN);
    cli_print_digest_line(stdout, hex, l->name, 0, 0);
}

static int bt_piece_done(bt_layer *l)
{
    node_t h;
    merkle_status s =
        merkle_shape_root(h, NULL, &l->piece, (const node_t *)l->leaves, l->have, NULL);
    if (s != MERKLE_OK) {
        cli_error("%s: %s", l->name, merkle_strerror(s));
        return -1;
    }
    if (l->pieces == 0)
        memcpy(l->first, h, MERKLE_HASH_LEN);
    else {
        if (l->pieces == 1) bt_emit(l, l->first);
        bt_emit(l, h);
    }
    l->pieces++;
    l->have = 0;
    return 0;
}

static int bt_layer_cb(void *ctx, const node_t *leaves, size_t n)
{
    bt_layer *l = (bt_layer *)ctx;
    while (n) {
        size_t take = l->per - l->have < n ? l->per - l->have : n;
        memcpy(l->leaves[l->have], leaves, take * MERKLE_HASH_LEN);
        l->have += take;
        leaves += take;
        n -= take;
        if (l->have == l->per && bt_piece_done(l) != 0) return -1;
    }
    return 0;
}

int shaped_piece_layer(const root_opts *o, const char *name)
{
    bt_layer l;
    memset(&l, 0, sizeof l);
    l.name = name;
    shaped_shape_from_opts(o, &l.piece);
    l.per = (size_t)(o->piece_layer / BT_BLOCK);
    l.piece.limit = l.per;
    l.leaves = malloc(l.per * sizeof *l.leaves);
    if (!l.leaves) {
        cli_error("%s: out of memory", name);
        return -1;
    }
    uint64_t nblocks;
    int rc = shaped_bt_stream(o, name, bt_layer_cb, &l, &nblocks);
    /* The last, partial piece: only a file of more than one piece has a layer. */
    if (rc == 0 && l.have && l.pieces > 0) rc = bt_piece_done(&l);
    free(l.leaves);
    return rc;
}

int shaped_bt_root(const root_opts *o, const char *name, uint8_t root[MERKLE_HASH_LEN],
                   root_result *res)
{
    merkle_shape s;
    shaped_shape_from_opts(o, &s);
    merkle_shape_builder *b = NULL;
    merkle_error err;
    memset(&err, 0, sizeof err);
    if (merkle_shape_builder_alloc(&b, &s, &err) != MERKLE_OK) {
        cli_error("%s: %s", name, err.message);
        return -1;
    }
    uint64_t nblocks;
    int rc = shaped_bt_stream(o, name, bt_push_cb, b, &nblocks);
    if (rc == 0 && merkle_shape_builder_root(root, NULL, b) != MERKLE_OK) rc = -1;
    res->leaf_count = nblocks;
    merkle_shape_builder_free(b);
    return rc;
}
