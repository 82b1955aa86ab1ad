/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle proof --all [root options] [FILE]: every inclusion proof of the tree, one JSON
** document per line, leaf 0 first -- each the proof `merkle proof --index I` prints for the
** same input and options, on one line.
**
** The streaming prover answers one leaf per pass over the input; all of them would take n
** passes. Here the input is read into memory once, the tree is built with every level kept
** (merkle_shape_tree_alloc_bytes / _alloc_leaves, the batch kernels), and every branch comes
** out of one walk over the levels (merkle_shape_tree_branches).
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "rootio.h"

typedef unsigned long long ull;

/* The leaves of a --leaves input, their bytes in one growing buffer. */
typedef struct leaf_buf {
    uint8_t *bytes;
    size_t used, cap;
    size_t *off, *len;
    size_t n, ncap;
} leaf_buf;

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need) {
        if (c > SIZE_MAX / 2 / elem) return -1;
        c *= 2;
    }
    void *q = realloc(*p, c * elem);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

static int add_leaf_cb(void *ctx, const uint8_t *leaf, size_t len)
{
    leaf_buf *b = (leaf_buf *)ctx;
    if (grow((void **)&b->bytes, &b->cap, b->used + len + 1, 1) != 0) goto nomem;
    if (b->n == b->ncap) {
        size_t c = b->ncap, c2 = b->ncap;
        if (grow((void **)&b->off, &c, b->n + 1, sizeof *b->off) != 0 ||
            grow((void **)&b->len, &c2, b->n + 1, sizeof *b->len) != 0)
            goto nomem;
        b->ncap = c < c2 ? c : c2;
    }
    if (len) memcpy(b->bytes + b->used, leaf, len);
    b->off[b->n] = b->used;
    b->len[b->n] = len;
    b->used += len;
    b->n++;
    return 0;
nomem:
    cli_error("out of memory");
    return -1;
}

/* Pretty JSON (merkle_proof_to_json) onto one line: a line break and its indentation become
** one space, or nothing next to a bracket or brace. No string of a proof holds a newline. */
static size_t one_line(char *s, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '\n') {
            s[o++] = s[i];
            continue;
        }
        while (i + 1 < len && s[i + 1] == ' ') i++;
        char next = i + 1 < len ? s[i + 1] : 0;
        char prev = o ? s[o - 1] : 0;
        if (next && next != ']' && next != '}' && prev != '[' && prev != '{') s[o++] = ' ';
    }
    return o;
}

int proof_all(const root_opts *o, const char *name, int cometbft)
{
    int fd = cli_open_input(name);
    if (fd < 0) {
        cli_error("%s: %s", name, strerror(errno));
        return CLI_FAIL;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error("%s: %s", name, strerror(EISDIR));
        if (fd != STDIN_FILENO) close(fd);
        return CLI_FAIL;
    }
    merkle_shape s;
    (void)merkle_shape_init(&s, MERKLE_SHAPE_VERSION, o->profile);
    s.hash = o->hash;
    merkle_shape_tree *t = NULL;
    merkle_error err;
    memset(&err, 0, sizeof err);
    merkle_status ms = MERKLE_OK;
    leaf_buf lb;
    memset(&lb, 0, sizeof lb);
    char *data = NULL;
    size_t data_len = 0;
    int rc = 0;
    if (o->leaves) {
        rc = root_read_leaves(name, fd, add_leaf_cb, &lb);
    } else {
        int e = cli_read_fd(fd, SIZE_MAX, &data, &data_len);
        if (e) {
            cli_read_error(NULL, name, e, SIZE_MAX);
            rc = -1;
        }
    }
    if (fd != STDIN_FILENO) close(fd);
    const uint8_t **ptr = NULL;
    for (size_t i = 0; rc == 0 && o->leaf_hashes && i < lb.n; i++)
        if (lb.len[i] != MERKLE_HASH_LEN) {
            cli_error("%s:%zu: expected a 32-byte leaf hash (64 hex digits), got %zu bytes", name,
                      i + 1, lb.len[i]);
            rc = -1;
        }
    if (rc == 0 && o->leaf_hashes) { /* the lines are level 0: back to back in lb.bytes */
        ms = merkle_shape_tree_alloc(
            &t, NULL, &s, (const uint8_t(*)[MERKLE_HASH_LEN])(lb.n ? lb.bytes : NULL), lb.n, &err);
    } else if (rc == 0 && o->leaves) {
        ptr = malloc((lb.n ? lb.n : 1) * sizeof *ptr);
        if (!ptr) {
            cli_error("out of memory");
            rc = -1;
        }
        for (size_t i = 0; ptr && i < lb.n; i++) ptr[i] = lb.bytes + lb.off[i];
        if (rc == 0) ms = merkle_shape_tree_alloc_leaves(&t, &s, ptr, lb.len, lb.n, &err);
    } else if (rc == 0) {
        ms = merkle_shape_tree_alloc_bytes(&t, &s, o->leaf_size, data, data_len, &err);
    }
    if (rc == 0 && ms != MERKLE_OK) {
        cli_error("%s: %s", name, err.message[0] ? err.message : merkle_strerror(ms));
        rc = -1;
    }
    uint64_t n = t ? merkle_shape_tree_count(t) : 0;
    size_t total = 0;
    uint64_t *off = NULL;
    uint8_t(*paths)[MERKLE_HASH_LEN] = NULL;
    if (rc == 0) {
        off = malloc((size_t)(n + 1) * sizeof *off);
        ms = off ? merkle_shape_tree_branches(NULL, 0, &total, off, t) : MERKLE_ERR_NOMEM;
        if (ms == MERKLE_OK || ms == MERKLE_ERR_BUFFER) {
            paths = malloc((total ? total : 1) * MERKLE_HASH_LEN);
            ms =
                paths ? merkle_shape_tree_branches(paths, total, &total, off, t) : MERKLE_ERR_NOMEM;
        }
        if (ms != MERKLE_OK) {
            cli_error("%s: %s", name, merkle_strerror(ms));
            rc = -1;
        }
    }
    merkle_proof *pr = rc == 0 ? calloc(1, sizeof *pr) : NULL;
    if (rc == 0 && !pr) {
        cli_error("out of memory");
        rc = -1;
    }
    char *json = NULL;
    size_t json_cap = 0;
    for (uint64_t i = 0; rc == 0 && i < n; i++) {
        pr->version = MERKLE_PROOF_VERSION;
        pr->kind = MERKLE_PROOF_INCLUSION;
        pr->profile = o->profile;
        pr->hash = o->hash;
        pr->tree_size = n;
        pr->index = i;
        pr->end = i + 1;
        pr->leaf_size = o->leaves ? 0 : o->leaf_size;
        pr->flags = MERKLE_PROOF_HAS_ROOT | MERKLE_PROOF_HAS_LEAF_HASH;
        merkle_shape_tree_root(pr->root, t);
        uint64_t pos = 0;
        (void)merkle_shape_tree_position(&pos, t, i);
        (void)merkle_shape_tree_node(pr->leaf_hash, t, pos);
        pr->path_len = (size_t)(off[i + 1] - off[i]);
        memcpy(pr->path, paths[off[i]], pr->path_len * MERKLE_HASH_LEN);
        const uint8_t *leaf;
        size_t leaf_len;
        if (o->leaf_hashes) { /* no leaf bytes: the proof carries the leaf hash */
            leaf = NULL;
            leaf_len = 0;
        } else if (o->leaves) {
            leaf = lb.len[i] ? lb.bytes + lb.off[i] : (const uint8_t *)"";
            leaf_len = lb.len[i];
        } else {
            uint64_t lo = i * o->leaf_size;
            leaf = (const uint8_t *)data + lo;
            leaf_len = data_len - lo < o->leaf_size ? (size_t)(data_len - lo) : o->leaf_size;
        }
        size_t need = 0;
        if (cometbft)
            (void)merkle_proof_to_cometbft_json(NULL, 0, &need, pr);
        else
            (void)merkle_proof_to_json(NULL, 0, &need, pr, leaf, leaf_len);
        if (grow((void **)&json, &json_cap, need, 1) != 0) {
            cli_error("out of memory");
            rc = -1;
            break;
        }
        ms = !json || !need ? MERKLE_ERR_STATE
             : cometbft     ? merkle_proof_to_cometbft_json(json, json_cap, &need, pr)
                            : merkle_proof_to_json(json, json_cap, &need, pr, leaf, leaf_len);
        if (ms != MERKLE_OK || !json || need == 0) {
            cli_error("%s", merkle_strerror(ms));
            rc = -1;
            break;
        }
        size_t len = cometbft ? need - 2 : one_line(json, need - 1); /* without the NUL */
        json[len++] = '\n';
        char *x = NULL;
        const char *line = json;
        if (cli_hex_0x && !cometbft) {
            x = cli_json_0x(json, len, &len);
            if (!x) {
                cli_error("out of memory");
                rc = -1;
                break;
            }
            line = x;
        }
        size_t wrote = fwrite(line, 1, len, stdout);
        free(x);
        if (wrote != len) {
            cli_error("write error: %s", strerror(errno));
            rc = -1;
        }
    }
    if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
        cli_error("write error: %s", strerror(errno));
        rc = -1;
    }
    free(json);
    free(pr);
    free(paths);
    free(off);
    free(ptr);
    merkle_shape_tree_free(t);
    free(lb.bytes);
    free(lb.off);
    free(lb.len);
    free(data);
    return rc == 0 ? CLI_OK : CLI_FAIL;
}
