/*
** Feeding inputs to trees: byte streams in large reads, hex leaf lists line by line.
*/
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rootio.h"

#define READ_CHUNK (1u << 20)

static int push_leaf_cb(void *ctx, const uint8_t *leaf, size_t len)
{
    merkle_status s = merkle_tree_push_leaf((merkle_tree *)ctx, leaf, len);
    if (s != MERKLE_OK) {
        cli_error("%s", merkle_strerror(s));
        return -1;
    }
    return 0;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

int root_read_leaves(const char *name, int fd, int (*fn)(void *ctx, const uint8_t *leaf, size_t len),
                     void *ctx)
{
    size_t cap = 1 << 16, used = 0, start = 0;
    char *buf = malloc(cap);
    uint8_t *leaf = NULL;
    size_t leaf_cap = 0;
    uint64_t line = 0;
    int eof = 0, rc = 0;
    if (!buf) {
        cli_error("%s: out of memory", name);
        return -1;
    }
    while (rc == 0) {
        /* Find a complete line in buf[start..used), else read more. */
        char *nl = memchr(buf + start, '\n', used - start);
        if (!nl && !eof) {
            if (start > 0) {
                memmove(buf, buf + start, used - start);
                used -= start;
                start = 0;
            }
            if (used == cap) {
                char *nb = realloc(buf, cap * 2);
                if (!nb) {
                    cli_error("%s: out of memory", name);
                    rc = -1;
                    break;
                }
                buf = nb;
                cap *= 2;
            }
            ssize_t got = read(fd, buf + used, cap - used);
            if (got < 0) {
                if (errno == EINTR) continue;
                cli_error("%s: %s", name, strerror(errno));
                rc = -1;
                break;
            }
            if (got == 0) eof = 1;
            used += (size_t)got;
            continue;
        }
        if (!nl && start == used) break; /* clean end (last line had its newline) */
        size_t end = nl ? (size_t)(nl - buf) : used;
        line++;
        /* Trim surrounding white space (a CRLF file works). */
        size_t a = start, b = end;
        while (a < b && is_space(buf[a])) a++;
        while (b > a && is_space(buf[b - 1])) b--;
        size_t hl = b - a;
        if (hl / 2 + 1 > leaf_cap) {
            leaf_cap = hl / 2 + 1;
            uint8_t *nl2 = realloc(leaf, leaf_cap);
            if (!nl2) {
                cli_error("%s: out of memory", name);
                rc = -1;
                break;
            }
            leaf = nl2;
        }
        size_t n;
        merkle_error err;
        if (merkle_hex_decode(leaf, leaf_cap, &n, buf + a, hl, &err) != MERKLE_OK) {
            cli_error("%s:%llu: invalid hex leaf: %s", name, (unsigned long long)line, err.message);
            rc = -1;
            break;
        }
        if (fn(ctx, leaf, n) != 0) {
            rc = -1;
            break;
        }
        start = nl ? end + 1 : used;
        if (!nl) break;
    }
    free(buf);
    free(leaf);
    return rc;
}

static int fail_io(const char *name, int err)
{
    cli_error("%s: %s", name, strerror(err));
    return -1;
}

int root_compute(const root_opts *o, const char *name, uint8_t root[MERKLE_HASH_LEN],
                 root_result *res)
{
    memset(res, 0, sizeof *res);
    int fd = cli_open_input(name);
    if (fd < 0) return fail_io(name, errno);
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (fd != STDIN_FILENO) close(fd);
        return fail_io(name, EISDIR);
    }
    merkle_tree *t = malloc(sizeof *t);
    if (!t) {
        if (fd != STDIN_FILENO) close(fd);
        return fail_io(name, ENOMEM);
    }
    merkle_status s = merkle_tree_init(t, o->profile, o->hash, o->leaf_size);
    int rc = 0;
    if (s != MERKLE_OK) {
        cli_error("%s: %s", name, merkle_strerror(s));
        rc = -1;
    } else if (o->leaves) {
        rc = root_read_leaves(name, fd, push_leaf_cb, t);
    } else {
        uint64_t total = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
#ifdef POSIX_FADV_SEQUENTIAL
        if (S_ISREG(st.st_mode)) (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
        cli_progress prog;
        cli_progress_start(&prog, o->quiet, total, 0);
        uint8_t *buf = malloc(READ_CHUNK);
        if (!buf) rc = fail_io(name, ENOMEM);
        while (rc == 0) {
            /* Fill the whole buffer before hashing so that batches see many whole leaves. */
            size_t used = 0;
            int eof = 0;
            while (used < READ_CHUNK) {
                ssize_t got = read(fd, buf + used, READ_CHUNK - used);
                if (got < 0) {
                    if (errno == EINTR) continue;
                    rc = fail_io(name, errno);
                    break;
                }
                if (got == 0) {
                    eof = 1;
                    break;
                }
                used += (size_t)got;
            }
            if (rc) break;
            s = merkle_tree_write(t, buf, used);
            if (s != MERKLE_OK) {
                cli_error("%s: %s", name, merkle_strerror(s));
                rc = -1;
                break;
            }
            res->bytes += used;
            cli_progress_update(&prog, res->bytes, 0);
            if (eof) break;
        }
        cli_progress_end(&prog);
        free(buf);
    }
    if (fd != STDIN_FILENO) close(fd);
    if (rc == 0) {
        res->leaf_count = merkle_tree_leaf_count(t);
        s = merkle_tree_root(t, root, &res->is_empty);
        if (s != MERKLE_OK) {
            cli_error("%s: %s", name, merkle_strerror(s));
            rc = -1;
        }
    }
    free(t);
    return rc;
}
