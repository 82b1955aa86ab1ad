/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** `merkle root` and `merkle proof` for the shaped profiles (merkle/shape.h): bitcoin, ssz,
** openzeppelin, bittorrent-v2. The input is a list of 32-byte hashes, one per line in hex
** (bitcoin: display order unless --internal-order); the tree is built by the library. BEP 52
** file hashing (bittorrent-v2 from a file) is in shaped_bt.c.
*/
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "rootio.h"
#include "shaped.h"

typedef unsigned long long ull;

static void rev32(uint8_t *b)
{
    for (int i = 0; i < MERKLE_HASH_LEN / 2; i++) {
        uint8_t t = b[i];
        b[i] = b[MERKLE_HASH_LEN - 1 - i];
        b[MERKLE_HASH_LEN - 1 - i] = t;
    }
}

/* Hashes are shown byte-reversed (bitcoin's display order)? */
static int display_order(const root_opts *o)
{
    return o->profile == MERKLE_PROFILE_BITCOIN && !o->internal_order;
}

int shaped_check_opts(const root_opts *o, const char *sub)
{
    merkle_profile p = o->profile;
    const char *pn = merkle_profile_name(p);
    if ((o->internal_order || o->strict || o->block) && p != MERKLE_PROFILE_BITCOIN)
        return cli_usage_error(
            sub, "--internal-order, --strict and --block belong to the bitcoin profile");
    if (o->block && o->leaves) return cli_usage_error(sub, "give either --leaves or --block");
    if ((o->limit || o->mix_in) && p != MERKLE_PROFILE_SSZ)
        return cli_usage_error(sub, "--limit and --mix-in-length belong to the ssz profile");
    if (o->piece_layer && p != MERKLE_PROFILE_BITTORRENT_V2)
        return cli_usage_error(sub, "--piece-layer belongs to the bittorrent-v2 profile");
    if (o->piece_layer && o->leaves)
        return cli_usage_error(sub, "--piece-layer reads files, not --leaves");
    if ((o->values || o->dump || o->load || o->render) && p != MERKLE_PROFILE_OPENZEPPELIN)
        return cli_usage_error(
            sub, "--values, --dump, --load and --render belong to the openzeppelin profile");
    if (o->render && o->dump) return cli_usage_error(sub, "--render prints the tree: no --dump");
    if (o->load && (o->values || o->leaves || o->dump))
        return cli_usage_error(sub, "--load reads a dump: no --leaves, --values or --dump");
    if (root_profile_classic(p)) return 0;
    if (o->values && o->leaves)
        return cli_usage_error(sub, "give either --leaves or --values, not both");
    if (!o->leaves && !o->values && !o->load && !o->block && p != MERKLE_PROFILE_BITTORRENT_V2)
        return cli_usage_error(sub, "the %s profile reads --leaves (one 32-byte hash per line)%s",
                               pn,
                               p == MERKLE_PROFILE_OPENZEPPELIN ? " or --values TYPES"
                               : p == MERKLE_PROFILE_BITCOIN    ? " or --block (raw blocks)"
                                                                : "");
    return 0;
}

void shaped_shape_from_opts(const root_opts *o, merkle_shape *s)
{
    (void)merkle_shape_init(s, MERKLE_SHAPE_VERSION, o->profile);
    s->hash = o->hash;
    if (o->profile == MERKLE_PROFILE_SSZ) {
        s->limit = o->limit;
        if (o->mix_in) s->flags |= MERKLE_SHAPE_MIX_IN_LENGTH;
    }
}

/* ------------------------------------------------------------------ reading hashes */

typedef struct node_list {
    const char *name;
    int reverse;
    uint64_t line;
    node_t *v;
    size_t n, cap;
} node_list;

static int add_node_cb(void *ctx, const uint8_t *leaf, size_t len)
{
    node_list *l = (node_list *)ctx;
    l->line++;
    if (len != MERKLE_HASH_LEN) {
        cli_error("%s:%llu: expected a 32-byte hash (64 hex digits), got %zu bytes", l->name,
                  (ull)l->line, len);
        return -1;
    }
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 1024;
        node_t *nv = realloc(l->v, nc * sizeof *nv);
        if (!nv) {
            cli_error("%s: out of memory", l->name);
            return -1;
        }
        l->v = nv;
        l->cap = nc;
    }
    memcpy(l->v[l->n], leaf, MERKLE_HASH_LEN);
    if (l->reverse) rev32(l->v[l->n]);
    l->n++;
    return 0;
}

/* Read the level-0 nodes of the named input. 0, or -1 after a message. */
static int read_nodes(const root_opts *o, const char *name, node_list *l)
{
    memset(l, 0, sizeof *l);
    l->name = name;
    l->reverse = display_order(o);
    int fd = cli_open_input(name);
    if (fd < 0) {
        cli_error("%s: %s", name, strerror(errno));
        return -1;
    }
    int rc = root_read_leaves(name, fd, add_node_cb, l);
    if (fd != STDIN_FILENO) close(fd);
    if (rc != 0) {
        free(l->v);
        l->v = NULL;
    }
    return rc;
}

/* Rows of --values waiting for their leaf hashes: one merkle_shape_abi_leaves call per
** ROW_BATCH rows (the Keccak batch kernels hash a group at once). */
#define ROW_BATCH 1024

typedef struct row_batch {
    char *text; /* the rows back to back */
    size_t used, cap;
    size_t off[ROW_BATCH], len[ROW_BATCH];
    uint64_t lineno[ROW_BATCH];
    size_t n;
} row_batch;

/* Hash the waiting rows into l. 0, or -1 after a message. */
static int flush_rows(const root_opts *o, const char *name, node_list *l, row_batch *b)
{
    if (b->n == 0) return 0;
    const char *rows[ROW_BATCH];
    uint8_t h[ROW_BATCH][MERKLE_HASH_LEN];
    for (size_t i = 0; i < b->n; i++) rows[i] = b->text + b->off[i];
    merkle_error err;
    memset(&err, 0, sizeof err);
    merkle_status st = merkle_shape_abi_leaves(h, o->values, rows, b->len, b->n, &err);
    if (st == MERKLE_ERR_ARG && err.line == 0) {
        cli_error("--values: %s", err.message);
        return -1;
    }
    if (st != MERKLE_OK) {
        uint64_t at = err.line >= 1 && err.line <= b->n ? b->lineno[err.line - 1] : b->lineno[0];
        cli_error("%s:%llu: %s", name, (ull)at, err.message[0] ? err.message : merkle_strerror(st));
        return -1;
    }
    for (size_t i = 0; i < b->n; i++) {
        l->line = b->lineno[i] - 1;
        if (add_node_cb(l, h[i], MERKLE_HASH_LEN) != 0) return -1;
    }
    b->n = 0;
    b->used = 0;
    return 0;
}

/* Lines of a descriptor, read in large blocks, with a ceiling on the whole input. */
typedef struct line_reader {
    int fd, eof;
    char *buf;
    size_t cap, start, used;
    uint64_t total; /* bytes read */
    size_t lim;
} line_reader;

/* The next line in *line (its newline included, when it has one), valid until the next call:
** its length; -1 at the end; -2 once the input has passed r->lim bytes; -3 out of memory;
** -4 a read error (errno). */
static ssize_t next_line(line_reader *r, char **line)
{
    for (;;) {
        char *nl = r->used > r->start ? memchr(r->buf + r->start, '\n', r->used - r->start) : NULL;
        if (nl || (r->eof && r->used > r->start)) {
            size_t end = nl ? (size_t)(nl - r->buf) + 1 : r->used;
            *line = r->buf + r->start;
            ssize_t n = (ssize_t)(end - r->start);
            r->start = end;
            return n;
        }
        if (r->eof) return -1;
        if (r->start > 0) {
            memmove(r->buf, r->buf + r->start, r->used - r->start);
            r->used -= r->start;
            r->start = 0;
        }
        if (r->used == r->cap) {
            size_t nc = r->cap ? 2 * r->cap : 64 * 1024;
            char *nb = realloc(r->buf, nc);
            if (!nb) return -3;
            r->buf = nb;
            r->cap = nc;
        }
        size_t want = r->cap - r->used;
        if (want > r->lim + 1 - r->total) want = (size_t)(r->lim + 1 - r->total);
        ssize_t k = read(r->fd, r->buf + r->used, want);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return -4;
        if (k == 0) r->eof = 1;
        r->used += (size_t)k;
        r->total += (uint64_t)k;
        if (r->total > r->lim) return -2;
    }
}

/* --values: one row per line; blank lines are skipped. Leaf hashes into l; the rows kept
** (for --dump) in *rows / *lens when rows is not NULL. */
static int read_rows(const root_opts *o, const char *name, node_list *l, char ***rows,
                     size_t **lens)
{
    memset(l, 0, sizeof *l);
    l->name = name;
    int fd = cli_open_input(name);
    if (fd < 0) {
        cli_error("%s: %s", name, strerror(errno));
        return -1;
    }
    line_reader lr = { fd, 0, NULL, 0, 0, 0, 0, cli_input_max() };
    char *line = NULL;
    size_t nrows = 0, rcap = 0;
    ssize_t got = -1;
    int rc = 0;
    uint64_t lineno = 0;
    row_batch *b = calloc(1, sizeof *b);
    if (!b) {
        cli_error("out of memory");
        rc = -1;
    }
    struct stat st; /* a regular file over the limit: refused before a byte is read */
    if (rc == 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > lr.lim) {
        cli_read_limit_error(name, EFBIG, lr.lim, "a --values list");
        rc = -1;
    }
    while (rc == 0 && (got = next_line(&lr, &line)) >= 0) {
        lineno++;
        size_t len = (size_t)got;
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) len--;
        size_t a = 0;
        while (a < len && (line[a] == ' ' || line[a] == '\t')) a++;
        if (a == len) continue;
        if (!b->text || b->used + (len - a) + 1 > b->cap) {
            size_t nc = b->cap ? b->cap : 64 * 1024;
            while (nc < b->used + (len - a) + 1) nc *= 2;
            char *nt = realloc(b->text, nc);
            if (!nt) {
                cli_error("out of memory");
                rc = -1;
                break;
            }
            b->text = nt;
            b->cap = nc;
        }
        memcpy(b->text + b->used, line + a, len - a);
        b->text[b->used + (len - a)] = 0;
        b->off[b->n] = b->used;
        b->len[b->n] = len - a;
        b->lineno[b->n++] = lineno;
        b->used += len - a + 1;
        if (b->n == ROW_BATCH && flush_rows(o, name, l, b) != 0) {
            rc = -1;
            break;
        }
        if (rows) {
            if (nrows == rcap) {
                rcap = rcap ? 2 * rcap : 256;
                char **nr = realloc(*rows, rcap * sizeof *nr);
                size_t *nl = realloc(*lens, rcap * sizeof *nl);
                if (nr) *rows = nr;
                if (nl) *lens = nl;
                if (!nr || !nl) {
                    cli_error("out of memory");
                    rc = -1;
                    break;
                }
            }
            (*rows)[nrows] = malloc(len - a + 1);
            if (!(*rows)[nrows]) {
                cli_error("out of memory");
                rc = -1;
                break;
            }
            memcpy((*rows)[nrows], line + a, len - a);
            (*rows)[nrows][len - a] = 0;
            (*lens)[nrows++] = len - a;
        }
    }
    if (rc == 0 && got == -2) {
        cli_read_limit_error(name, EFBIG, lr.lim, "a --values list");
        rc = -1;
    }
    if (rc == 0 && got == -3) {
        cli_error("out of memory");
        rc = -1;
    }
    if (rc == 0 && got == -4) {
        cli_error("%s: %s", name, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && flush_rows(o, name, l, b) != 0) rc = -1;
    if (b) free(b->text);
    free(b);
    free(lr.buf);
    if (fd != STDIN_FILENO) close(fd); /* standard input stays open for other inputs "-" */
    if (rc != 0) {
        free(l->v);
        l->v = NULL;
        if (rows) { /* the rows read so far (the callers free them only on success) */
            for (size_t i = 0; i < nrows; i++) free((*rows)[i]);
            free(*rows);
            free(*lens);
            *rows = NULL;
            *lens = NULL;
        }
    }
    return rc;
}

static void free_rows(char **rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++) free(rows[i]);
    free(rows);
}

static int bt_collect_cb(void *ctx, const node_t *leaves, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (add_node_cb(ctx, leaves[i], MERKLE_HASH_LEN) != 0) return -1;
    return 0;
}

/* Largest raw block --block reads (consensus allows 4 MB of weight; hex text doubles it). */
#define MAX_BLOCK_FILE ((size_t)64 << 20)

/* --block: the txids of a raw block (binary, or hex text with an optional 0x and blanks),
** after the library's checks and the header's root. 0, or -1 after a message. */
static int read_block(const char *name, node_list *l)
{
    memset(l, 0, sizeof *l);
    l->name = name;
    int fd = cli_open_input(name);
    if (fd < 0) {
        cli_error("%s: %s", name, strerror(errno));
        return -1;
    }
    size_t n = 0, cap = 1 << 20;
    uint8_t *raw = malloc(cap);
    int rc = raw ? 0 : -1;
    if (!raw) cli_error("out of memory");
    while (rc == 0) {
        if (n == cap) {
            if (cap >= MAX_BLOCK_FILE + 1) {
                cli_error("%s: larger than %zu MiB: not a block", name, MAX_BLOCK_FILE >> 20);
                rc = -1;
                break;
            }
            uint8_t *nr = realloc(raw, cap * 2);
            if (!nr) {
                cli_error("out of memory");
                rc = -1;
                break;
            }
            raw = nr;
            cap *= 2;
        }
        ssize_t got = read(fd, raw + n, cap - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            cli_error("%s: %s", name, strerror(errno));
            rc = -1;
        }
        if (got <= 0) break;
        n += (size_t)got;
        if (n > MAX_BLOCK_FILE) {
            cli_error("%s: larger than %zu MiB: not a block", name, MAX_BLOCK_FILE >> 20);
            rc = -1;
        }
    }
    if (fd != STDIN_FILENO) close(fd);
    /* Hex text: only hex digits and blanks (an optional 0x first). */
    size_t a = 0;
    while (rc == 0 && a < n && strchr(" \t\r\n", raw[a])) a++;
    if (rc == 0 && n - a >= 2 && raw[a] == '0' && (raw[a + 1] == 'x' || raw[a + 1] == 'X')) a += 2;
    int hex = rc == 0 && n > a;
    for (size_t i = a; hex && i < n; i++)
        hex =
            isxdigit(raw[i]) || raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\r' || raw[i] == '\n';
    size_t len = n;
    if (hex) {
        size_t w = 0, digits = 0;
        for (size_t i = a; i < n; i++) {
            if (!isxdigit(raw[i])) continue;
            int v = raw[i] <= '9' ? raw[i] - '0' : (raw[i] | 0x20) - 'a' + 10;
            if (digits++ % 2 == 0)
                raw[w] = (uint8_t)((unsigned)v << 4);
            else
                raw[w++] |= (uint8_t)v;
        }
        if (digits % 2) {
            cli_error("%s: odd number of hex digits", name);
            rc = -1;
        }
        len = w;
    }
    uint8_t(*ids)[MERKLE_HASH_LEN] = NULL;
    merkle_bitcoin_block info;
    merkle_error err;
    memset(&err, 0, sizeof err);
    if (rc == 0) {
        merkle_status st = merkle_bitcoin_block_txids_alloc(&ids, &info, raw, len, &err);
        if (st == MERKLE_ERR_FORMAT) {
            if (err.line)
                cli_error("%s: not a Bitcoin block: transaction %llu: %s", name, (ull)err.line,
                          err.message);
            else
                cli_error("%s: not a Bitcoin block: %s", name, err.message);
            rc = -1;
        } else if (st != MERKLE_OK) {
            cli_error("%s: %s", name, err.message[0] ? err.message : merkle_strerror(st));
            rc = -1;
        }
    }
    if (rc == 0) {
        merkle_shape s;
        uint8_t root[MERKLE_HASH_LEN];
        merkle_shape_init(&s, MERKLE_SHAPE_VERSION, MERKLE_PROFILE_BITCOIN);
        if (merkle_shape_root(root, NULL, &s, (const uint8_t(*)[MERKLE_HASH_LEN])ids, info.ntx,
                              &err) != MERKLE_OK ||
            memcmp(root, info.header_root, MERKLE_HASH_LEN) != 0) {
            cli_error("%s: the header's merkle root is not the root of the block's transactions",
                      name);
            rc = -1;
        }
    }
    for (uint64_t i = 0; rc == 0 && i < info.ntx; i++)
        if (add_node_cb(l, ids[i], MERKLE_HASH_LEN) != 0) rc = -1;
    merkle_bitcoin_free(ids);
    free(raw);
    if (rc != 0) {
        free(l->v);
        l->v = NULL;
    }
    return rc;
}

/* Read the level-0 nodes: hashes (--leaves), ABI rows (--values), a raw block's txids
** (--block), or a file's block hashes (bittorrent-v2, kept in memory for proofs). */
static int read_input(const root_opts *o, const char *name, node_list *l, char ***rows,
                      size_t **lens)
{
    if (o->values) return read_rows(o, name, l, rows, lens);
    if (o->block) return read_block(name, l);
    if (o->profile == MERKLE_PROFILE_BITTORRENT_V2 && !o->leaves) {
        memset(l, 0, sizeof *l);
        l->name = name;
        uint64_t nb;
        if (shaped_bt_stream(o, name, bt_collect_cb, l, &nb) == 0) return 0;
        free(l->v);
        l->v = NULL;
        return -1;
    }
    return read_nodes(o, name, l);
}

/* --dump: the tree's dump() JSON into a file that must not exist yet, durably
** (cli_write_new_file). */
static int write_dump(const root_opts *o, const merkle_shape_tree *t, char **rows, size_t *lens)
{
    size_t need = 0;
    merkle_error err;
    memset(&err, 0, sizeof err);
    merkle_status st = merkle_shape_tree_dump_json(NULL, 0, &need, t, o->values,
                                                   (const char *const *)rows, lens, &err);
    char *buf = st == MERKLE_ERR_BUFFER ? malloc(need) : NULL;
    if (buf)
        st = merkle_shape_tree_dump_json(buf, need, &need, t, o->values, (const char *const *)rows,
                                         lens, &err);
    if (!buf || st != MERKLE_OK) {
        cli_error("--dump: %s", err.message[0] ? err.message : merkle_strerror(st));
        free(buf);
        return -1;
    }
    int rc = cli_write_new_file(o->dump, buf, need - 1, "--dump");
    free(buf);
    return rc;
}

static void warn_mutated(const char *name)
{
    fprintf(stderr,
            "%s: warning: %s: mutated transaction list (CVE-2012-2459): two equal sibling "
            "hashes; Bitcoin Core rejects a block with this list\n",
            cli_progname, name);
}

/* Longest leafEncoding a dump may carry ("t1,t2,..."), with its NUL. */
#define MAX_TYPES 4096

/* --load: a dump() JSON file into a checked tree; its leafEncoding into types[MAX_TYPES]
** ("" for a simple-v1 dump) when types is not NULL. NULL after a message. */
static merkle_shape_tree *load_dump(const char *name, char *types)
{
    char *buf;
    size_t len;
    int e = cli_read_file(name, cli_input_max(), &buf, &len);
    if (e) {
        cli_read_limit_error(name, e, cli_input_max(), "a --load dump");
        return NULL;
    }
    merkle_shape_tree *t = NULL;
    merkle_error err;
    memset(&err, 0, sizeof err);
    merkle_status st =
        merkle_shape_tree_alloc_dump(&t, types, types ? MAX_TYPES : 0, buf, len, &err);
    free(buf);
    if (st != MERKLE_OK) {
        cli_error("%s: %s", name, err.message[0] ? err.message : merkle_strerror(st));
        return NULL;
    }
    return t;
}

/* ------------------------------------------------------------------ root */

int shaped_root(const root_opts *o, const char *name, uint8_t root[MERKLE_HASH_LEN],
                root_result *res)
{
    memset(res, 0, sizeof *res);
    if (o->profile == MERKLE_PROFILE_BITTORRENT_V2 && !o->leaves)
        return shaped_bt_root(o, name, root, res);
    if (o->load) {
        merkle_shape_tree *t = load_dump(name, NULL);
        if (!t) return -1;
        merkle_shape_tree_root(root, t);
        res->leaf_count = merkle_shape_tree_count(t);
        merkle_shape_tree_free(t);
        return 0;
    }
    node_list l;
    char **rows = NULL;
    size_t *lens = NULL;
    if (read_input(o, name, &l, o->dump ? &rows : NULL, &lens) != 0) return -1;
    if (o->profile == MERKLE_PROFILE_BITTORRENT_V2 && l.n == 0) {
        /* BEP 52: an empty file has no pieces root (libtorrent writes none). */
        cli_error("%s: an empty list has no BEP 52 pieces root", name);
        free_rows(rows, l.n);
        free(lens);
        free(l.v);
        return -1;
    }
    merkle_shape s;
    shaped_shape_from_opts(o, &s);
    merkle_error err;
    memset(&err, 0, sizeof err);
    merkle_status st;
    if (o->dump) {
        merkle_shape_tree *t = NULL;
        st = merkle_shape_tree_alloc(&t, &res->shape_flags, &s, (const node_t *)l.v, l.n, &err);
        if (st == MERKLE_OK) {
            merkle_shape_tree_root(root, t);
            if (write_dump(o, t, rows, lens) != 0) st = MERKLE_ERR_IO;
        }
        merkle_shape_tree_free(t);
        free_rows(rows, l.n);
        free(lens);
        if (st == MERKLE_ERR_IO) {
            free(l.v);
            return -1;
        }
    } else {
        st = merkle_shape_root(root, &res->shape_flags, &s, (const node_t *)l.v, l.n, &err);
    }
    free(l.v);
    if (st != MERKLE_OK) {
        cli_error("%s: %s", name, err.message[0] ? err.message : merkle_strerror(st));
        return -1;
    }
    res->leaf_count = l.n;
    res->is_empty = l.n == 0;
    if (res->shape_flags & MERKLE_SHAPE_MUTATED) warn_mutated(name);
    if (display_order(o)) rev32(root);
    return 0;
}

/* ------------------------------------------------------------------ proofs */

/* Parse "A,B,C" into a fresh array. 0, or -1 for a bad list. */
static int parse_list(const char *s, uint64_t **out, size_t *n)
{
    *n = 0;
    *out = NULL;
    size_t cap = 1;
    for (const char *p = s; *p; p++) cap += *p == ',';
    uint64_t *v = malloc(cap * sizeof *v);
    if (!v) return -1;
    char buf[32];
    const char *p = s;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 0 || len >= sizeof buf) break;
        memcpy(buf, p, len);
        buf[len] = 0;
        if (cli_parse_u64(buf, &v[*n]) != 0) break;
        (*n)++;
        if (!e) {
            *out = v;
            return 0;
        }
        p = e + 1;
    }
    free(v);
    return -1;
}

static int write_out(const void *buf, size_t len)
{
    if (len && fwrite(buf, 1, len, stdout) != len) return -1;
    return fflush(stdout) != 0 || ferror(stdout) ? -1 : 0;
}

/* Write a proof or multiproof document: its size queried, then written. The exit status. */
typedef merkle_status (*doc_fn)(char *out, size_t cap, size_t *out_len, const void *ctx);

static int write_doc(doc_fn fn, const void *ctx, int text, const char *(*why)(merkle_status))
{
    size_t need = 0;
    merkle_status s = fn(NULL, 0, &need, ctx);
    char *buf = s == MERKLE_ERR_BUFFER ? malloc(need) : NULL;
    if (buf) s = fn(buf, need, &need, ctx);
    int rc = CLI_FAIL;
    if (s == MERKLE_OK) {
        if (text) need--; /* the NUL */
        char *x = text && cli_hex_0x ? cli_json_0x(buf, need, &need) : NULL;
        if (text && cli_hex_0x && !x) {
            cli_error("out of memory");
            free(buf);
            return CLI_FAIL;
        }
        rc = write_out(x ? x : buf, need) == 0 ? CLI_OK : CLI_FAIL;
        free(x);
        if (rc != CLI_OK) cli_error("write error: %s", strerror(errno));
    } else {
        cli_error("%s", s == MERKLE_ERR_BUFFER ? "out of memory" : why(s));
    }
    free(buf);
    return rc;
}

typedef struct proof_doc {
    const merkle_proof *p;
    int binary;
} proof_doc;

static merkle_status proof_doc_fn(char *out, size_t cap, size_t *out_len, const void *ctx)
{
    const proof_doc *d = ctx;
    return d->binary ? merkle_proof_encode((uint8_t *)out, cap, out_len, d->p, NULL, 0)
                     : merkle_proof_to_json(out, cap, out_len, d->p, NULL, 0);
}

static const char *no_memory(merkle_status s)
{
    (void)s;
    return "out of memory";
}

/* One branch as a merkle_proof (JSON or binary). */
static int single_proof(const merkle_shape_tree *t, uint64_t pos, int binary)
{
    merkle_proof *p = malloc(sizeof *p);
    if (!p) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    merkle_status s = merkle_shape_tree_proof(p, t, pos);
    if (s != MERKLE_OK) {
        free(p);
        cli_error("position %llu: %s", (ull)pos,
                  s == MERKLE_ERR_RANGE ? "not a node of this tree" : merkle_strerror(s));
        return CLI_FAIL;
    }
    proof_doc d = { p, binary };
    int rc = write_doc(proof_doc_fn, &d, !binary, no_memory);
    free(p);
    return rc;
}

typedef struct multi_doc {
    const merkle_shape_tree *t;
    const uint64_t *pos;
    size_t n;
} multi_doc;

static merkle_status multi_doc_fn(char *out, size_t cap, size_t *out_len, const void *ctx)
{
    const multi_doc *d = ctx;
    return merkle_shape_tree_multiproof_json(out, cap, out_len, d->t, d->pos, d->n);
}

static const char *gindex_why(merkle_status s)
{
    return s == MERKLE_ERR_ARG     ? "generalized indices must be distinct and none an ancestor of "
                                     "another"
           : s == MERKLE_ERR_RANGE ? "a generalized index is not a node of this tree"
                                   : merkle_strerror(s);
}

static const char *flag_why(merkle_status s)
{
    return s == MERKLE_ERR_ARG ? "indices must be distinct" : merkle_strerror(s);
}

/* Several positions: a multiproof document (generalized indices for ssz and bittorrent-v2,
** proofFlags for openzeppelin). */
static int multiproof(const root_opts *o, const merkle_shape_tree *t, const uint64_t *pos, size_t n)
{
    multi_doc d = { t, pos, n };
    return write_doc(multi_doc_fn, &d, 1,
                     o->profile == MERKLE_PROFILE_OPENZEPPELIN ? flag_why : gindex_why);
}

/* The leaf hash of a --value: the ABI leaf of the row under types, or (a SimpleMerkleTree:
** types NULL or "") the 32-byte leaf itself. 0, or -1 after a message. */
static int value_leaf(uint8_t out[MERKLE_HASH_LEN], const char *types, const char *row)
{
    merkle_error err;
    memset(&err, 0, sizeof err);
    if (types && *types) {
        merkle_status st = merkle_shape_abi_leaf(out, types, row, strlen(row), &err);
        if (st != MERKLE_OK) {
            cli_error("--value '%s': %s", row, err.message[0] ? err.message : merkle_strerror(st));
            return -1;
        }
        return 0;
    }
    const char *h = row[0] == '0' && (row[1] == 'x' || row[1] == 'X') ? row + 2 : row;
    size_t got = 0;
    if (merkle_hex_decode(out, MERKLE_HASH_LEN, &got, h, strlen(h), NULL) != MERKLE_OK ||
        got != MERKLE_HASH_LEN) {
        cli_error("--value '%s': a leaf of a --leaves tree is 32 bytes in hex", row);
        return -1;
    }
    return 0;
}

/* leafLookup(value): the input index of the value whose leaf hash is h -- the last one, as
** @openzeppelin/merkle-tree's hash lookup keeps the last index of a repeated value -- and
** its tree position. 0, or -1 when no value has it. */
static int value_lookup(const merkle_shape_tree *t, const uint8_t h[MERKLE_HASH_LEN], uint64_t *pos)
{
    for (uint64_t i = merkle_shape_tree_count(t); i-- > 0;) {
        uint8_t node[MERKLE_HASH_LEN];
        if (merkle_shape_tree_position(pos, t, i) == MERKLE_OK &&
            merkle_shape_tree_node(node, t, *pos) == MERKLE_OK &&
            memcmp(node, h, MERKLE_HASH_LEN) == 0)
            return 0;
    }
    return -1;
}

/* Build the tree of one input for proofs (--load: the dump's tree and leafEncoding into
** types[MAX_TYPES]; else types is the --values TYPES or ""). NULL after a message. */
static merkle_shape_tree *proof_tree(const root_opts *o, const char *name, uint32_t *flags,
                                     char *types)
{
    *flags = 0;
    if (o->load) return load_dump(name, types);
    snprintf(types, MAX_TYPES, "%s", o->values ? o->values : "");
    node_list l;
    if (read_input(o, name, &l, NULL, NULL) != 0) return NULL;
    merkle_shape s;
    shaped_shape_from_opts(o, &s);
    merkle_error err;
    memset(&err, 0, sizeof err);
    merkle_shape_tree *t = NULL;
    merkle_status st = merkle_shape_tree_alloc(&t, flags, &s, (const node_t *)l.v, l.n, &err);
    free(l.v);
    if (st != MERKLE_OK) {
        cli_error("%s: %s", name, err.message[0] ? err.message : merkle_strerror(st));
        return NULL;
    }
    return t;
}

/* --value ROW...: getProof(value) / getMultiProof(values). The exit status. */
static int prove_values(const root_opts *o, const char *name, const char *const *vals, size_t nvals,
                        int binary)
{
    if (nvals > 1 && binary)
        return cli_usage_error("proof", "multiproofs are written as JSON only");
    char *types = malloc(MAX_TYPES);
    uint64_t *pos = malloc(nvals * sizeof *pos);
    uint32_t flags = 0;
    merkle_shape_tree *t = types && pos ? proof_tree(o, name, &flags, types) : NULL;
    if (!types || !pos) cli_error("out of memory");
    int rc = t ? CLI_OK : CLI_FAIL;
    for (size_t i = 0; rc == CLI_OK && i < nvals; i++) {
        uint8_t h[MERKLE_HASH_LEN];
        if (value_leaf(h, types, vals[i]) != 0) {
            rc = CLI_FAIL;
        } else if (value_lookup(t, h, &pos[i]) != 0) {
            char hex[2 * MERKLE_HASH_LEN + 1];
            merkle_hex_encode(hex, h, MERKLE_HASH_LEN);
            cli_error("%s: --value '%s': not in the tree (leaf hash 0x%s)", name, vals[i], hex);
            rc = CLI_FAIL;
        }
    }
    if (rc == CLI_OK)
        rc = nvals == 1 ? single_proof(t, pos[0], binary) : multiproof(o, t, pos, nvals);
    merkle_shape_tree_free(t);
    free(pos);
    free(types);
    return rc;
}

int shaped_render(const root_opts *o, const char *name)
{
    char *types = malloc(MAX_TYPES);
    uint32_t flags;
    merkle_shape_tree *t = types ? proof_tree(o, name, &flags, types) : NULL;
    free(types);
    if (!t) {
        if (!types) cli_error("out of memory");
        return -1;
    }
    /* renderMerkleTree: a depth-first walk of the tree array from the root, left child
    ** first; each line is the path's rails ("│  " or "   " per ancestor that has / has not
    ** a sibling below), the branch ("├─ " for a left child, "└─ " for a right one), then
    ** "I) 0x<node>". The path is at most 64 steps deep: a bit per step. */
    uint64_t n = merkle_shape_tree_count(t), size = 2 * n - 1;
    struct {
        uint64_t i, bits;
        unsigned depth;
    } stack[2 * 64 + 2];
    size_t sp = 0;
    stack[sp].i = 0;
    stack[sp].bits = 0;
    stack[sp++].depth = 0;
    int rc = 0;
    while (sp > 0 && rc == 0) {
        sp--;
        uint64_t i = stack[sp].i, bits = stack[sp].bits;
        unsigned d = stack[sp].depth;
        for (unsigned k = 0; k + 1 < d; k++)
            fputs((bits >> k) & 1 ? "\xe2\x94\x82  " : "   ", stdout);
        if (d)
            fputs((bits >> (d - 1)) & 1 ? "\xe2\x94\x9c\xe2\x94\x80 " : "\xe2\x94\x94\xe2\x94\x80 ",
                  stdout);
        uint8_t node[MERKLE_HASH_LEN];
        char hex[2 * MERKLE_HASH_LEN + 1];
        if (merkle_shape_tree_node(node, t, i) != MERKLE_OK) {
            cli_error("%s: node %llu: not in the tree", name, (ull)i);
            rc = -1;
            break;
        }
        merkle_hex_encode(hex, node, MERKLE_HASH_LEN);
        printf("%llu) 0x%s\n", (ull)i, hex);
        if (2 * i + 2 < size && d < 64) {
            stack[sp].i = 2 * i + 2; /* right: pushed first, printed after the left */
            stack[sp].bits = bits;
            stack[sp++].depth = d + 1;
            stack[sp].i = 2 * i + 1;
            stack[sp].bits = bits | ((uint64_t)1 << d);
            stack[sp++].depth = d + 1;
        }
    }
    merkle_shape_tree_free(t);
    return rc;
}

int shaped_prove(const root_opts *o, const char *name, const char *idx, const char *gidx,
                 const char *const *vals, size_t nvals, int binary)
{
    const char *sub = "proof";
    merkle_profile p = o->profile;
    if (o->piece_layer) return cli_usage_error(sub, "--piece-layer belongs to merkle root");
    if (o->dump) return cli_usage_error(sub, "--dump belongs to merkle root");
    if (gidx && p != MERKLE_PROFILE_SSZ && p != MERKLE_PROFILE_BITTORRENT_V2)
        return cli_usage_error(sub, "--gindex belongs to the ssz and bittorrent-v2 profiles");
    if (nvals && (idx || gidx))
        return cli_usage_error(sub, "give either --index I[,I...] or --value ROW, not both");
    if (nvals) return prove_values(o, name, vals, nvals, binary);
    if (!idx == !gidx)
        return cli_usage_error(sub, "give exactly one of --index I[,I...] or --gindex G[,G...]");
    uint64_t *list;
    size_t n;
    if (parse_list(idx ? idx : gidx, &list, &n) != 0)
        return cli_usage_error(sub,
                               "%s needs a comma-separated list of non-negative integers, got '%s'",
                               idx ? "--index" : "--gindex", idx ? idx : gidx);
    if (n > 1 && p == MERKLE_PROFILE_BITCOIN) {
        free(list);
        return cli_usage_error(sub, "the bitcoin profile proves one transaction at a time");
    }
    if (n > 1 && binary) {
        free(list);
        return cli_usage_error(sub, "multiproofs are written as JSON only");
    }
    merkle_shape_tree *t = NULL;
    uint32_t flags = 0;
    if (o->load) {
        t = load_dump(name, NULL);
        if (!t) {
            free(list);
            return CLI_FAIL;
        }
    } else {
        node_list l;
        if (read_input(o, name, &l, NULL, NULL) != 0) {
            free(list);
            return CLI_FAIL;
        }
        merkle_shape s;
        shaped_shape_from_opts(o, &s);
        merkle_error err;
        memset(&err, 0, sizeof err);
        merkle_status st = merkle_shape_tree_alloc(&t, &flags, &s, (const node_t *)l.v, l.n, &err);
        free(l.v);
        if (st != MERKLE_OK) {
            free(list);
            cli_error("%s: %s", name, err.message[0] ? err.message : merkle_strerror(st));
            return CLI_FAIL;
        }
    }
    if (flags & MERKLE_SHAPE_MUTATED) warn_mutated(name);
    int rc = CLI_OK;
    /* Leaf indices become positions (gindex / array index). */
    uint64_t *pos = malloc(n * sizeof *pos);
    for (size_t i = 0; pos && i < n; i++) {
        if (gidx) {
            pos[i] = list[i];
        } else if (merkle_shape_tree_position(&pos[i], t, list[i]) != MERKLE_OK) {
            cli_error("%s: index %llu was not reached: the input has %llu leaves", name,
                      (ull)list[i], (ull)merkle_shape_tree_count(t));
            rc = CLI_FAIL;
            break;
        }
    }
    if (!pos) {
        cli_error("out of memory");
        rc = CLI_FAIL;
    }
    if (rc == CLI_OK) {
        if ((flags & MERKLE_SHAPE_MUTATED) && o->strict)
            rc = CLI_FAIL;
        else if (n == 1)
            rc = single_proof(t, pos[0], binary);
        else
            rc = multiproof(o, t, pos, n);
    }
    free(pos);
    free(list);
    merkle_shape_tree_free(t);
    return rc;
}
