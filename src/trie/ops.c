/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The text operation format of `merkle trie` (docs/trie.md): one operation per line,
** "put KEYHEX VALUEHEX" or "del KEYHEX", fields separated by white space, a lone "-" for an
** empty key or value, blank lines and '#' comments ignored, a lone "commit" (a batch boundary
** of merkledb's history) ignored too.
*/
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"
#include "trie/trie_impl.h"

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Decode a hex field in place into dst (room for flen/2 bytes); "-" is empty. */
static merkle_status field(uint8_t *dst, size_t *n, const char *f, size_t flen, merkle_error *e)
{
    if (flen == 1 && f[0] == '-') {
        *n = 0;
        return MERKLE_OK;
    }
    return merkle_hex_decode(dst, flen / 2, n, f, flen, e);
}

/*
** Consecutive puts are gathered into a run and applied with merkle_trie_put_batch (a sorted
** bulk build into an empty trie, prefetching puts into a non-empty one; the later duplicate
** wins, as in order). Their decoded bytes stay in scratch, which the run fills up; a del, a
** bad line, a full scratch or the end flushes the run first, so operations before a bad line
** are applied as documented. Short runs are put one by one (a batch costs a sort).
*/
#define RUN_MIN 64

typedef struct run {
    const uint8_t **kp, **vp;
    size_t *kl, *vl;
    uint64_t *line;
    size_t *off;
    size_t n, cap;
    int noalloc; /* growing failed: put one by one from now on */
} run;

static void run_free(run *r)
{
    free(r->kp);
    free(r->vp);
    free(r->kl);
    free(r->vl);
    free(r->line);
    free(r->off);
}

static int run_grow(run *r)
{
    /* parallel arrays: one capacity (the widest element sizes it) */
    size_t nc = merkle__grow_cap(r->cap, r->cap + 1, sizeof(uint64_t));
    if (nc == 0 || merkle__realloc_n(&r->kp, nc, sizeof *r->kp) != 0 ||
        merkle__realloc_n(&r->vp, nc, sizeof *r->vp) != 0 ||
        merkle__realloc_n(&r->kl, nc, sizeof *r->kl) != 0 ||
        merkle__realloc_n(&r->vl, nc, sizeof *r->vl) != 0 ||
        merkle__realloc_n(&r->line, nc, sizeof *r->line) != 0 ||
        merkle__realloc_n(&r->off, nc, sizeof *r->off) != 0)
        return -1;
    r->cap = nc;
    return 0;
}

/* Apply the run; *applied counts the puts done. */
static merkle_status run_flush(merkle_trie *t, run *r, uint64_t *applied, merkle_error *err)
{
    merkle_status st = MERKLE_OK;
    if (r->n >= RUN_MIN) {
        merkle_error e;
        st = merkle_trie_put_batch(t, r->kp, r->kl, r->vp, r->vl, r->n, &e);
        if (st == MERKLE_OK)
            *applied += r->n;
        else /* arguments and lengths were checked per line: this is NOMEM */
            st = merkle__fail(err, st, r->line[0], r->off[0], "%s", merkle_strerror(st));
    } else {
        for (size_t i = 0; i < r->n; i++) {
            st = merkle_trie_put(t, r->kp[i], r->kl[i], r->vp[i], r->vl[i]);
            if (st != MERKLE_OK) {
                st = merkle__fail(err, st, r->line[i], r->off[i], "%s", merkle_strerror(st));
                break;
            }
            (*applied)++;
        }
    }
    r->n = 0;
    return st;
}

merkle_status merkle_trie_apply_text(uint64_t *ops, merkle_trie *t, const char *text, size_t len,
                                     uint8_t *scratch, size_t scratch_cap, merkle_error *err)
{
    if (t == NULL || (text == NULL && len) || (scratch == NULL && scratch_cap))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "invalid argument");
    uint64_t line = 0, applied = 0;
    size_t pos = 0, used = 0; /* scratch bytes held by the run */
    run r;
    memset(&r, 0, sizeof r);
    merkle_status st = MERKLE_OK;
    while (pos < len) {
        line++;
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        const char *f[3];
        size_t fl[3];
        int nf = 0, extra = 0;
        size_t i = pos;
        while (i < end) {
            while (i < end && is_space(text[i])) i++;
            if (i >= end || text[i] == '#') break;
            size_t s = i;
            while (i < end && !is_space(text[i])) i++;
            if (nf < 3) {
                f[nf] = text + s;
                fl[nf] = i - s;
                nf++;
            } else {
                extra = 1;
            }
        }
        size_t lstart = pos;
        pos = end + 1;
        if (nf == 0) continue;
        /* "commit" ends a batch of merkledb's history (cli/cmd_trie_mdb.c); a plain trie
        ** has no history, so it is a no-op here. */
        if (nf == 1 && !extra && fl[0] == 6 && memcmp(f[0], "commit", 6) == 0) continue;
        int is_put = fl[0] == 3 && memcmp(f[0], "put", 3) == 0;
        int is_del = fl[0] == 3 && memcmp(f[0], "del", 3) == 0;
        if (!is_put && !is_del) {
            int show = fl[0] > 40 ? 40 : (int)fl[0];
            for (int k = 0; k < show; k++)
                if ((unsigned char)f[0][k] < 0x20 || (unsigned char)f[0][k] > 0x7e) show = k;
            st = merkle__fail(err, MERKLE_ERR_FORMAT, line, lstart,
                              "unknown operation '%.*s' (expected put, del or commit)", show, f[0]);
            break;
        }
        int want = is_put ? 3 : 2;
        if (nf != want || extra) {
            st = merkle__fail(
                err, MERKLE_ERR_FORMAT, line, lstart, "%s",
                is_put ? (nf < want ? "put needs KEYHEX and VALUEHEX" : "put takes 2 fields")
                       : (nf < want ? "del needs KEYHEX" : "del takes 1 field"));
            break;
        }
        size_t need = fl[1] / 2 + (is_put ? fl[2] / 2 : 0);
        if (need > scratch_cap) {
            st = merkle__fail(err, MERKLE_ERR_BUFFER, line, lstart,
                              "line needs %zu bytes of scratch space, have %zu", need, scratch_cap);
            break;
        }
        if (!is_put || need > scratch_cap - used) { /* the run goes first */
            if ((st = run_flush(t, &r, &applied, err)) != MERKLE_OK) break;
            used = 0;
        }
        uint8_t *at = scratch + used;
        merkle_error e;
        size_t kl, vl = 0;
        if (field(at, &kl, f[1], fl[1], &e) != MERKLE_OK) {
            st = merkle__fail(err, MERKLE_ERR_FORMAT, line, lstart, "invalid key: %s", e.message);
            break;
        }
        if (is_put && field(at + kl, &vl, f[2], fl[2], &e) != MERKLE_OK) {
            st = merkle__fail(err, MERKLE_ERR_FORMAT, line, lstart, "invalid value: %s", e.message);
            break;
        }
        if (is_put && (kl > MERKLE_TRIE_MAX_KEY || vl > MERKLE_TRIE_MAX_VALUE)) {
            st = merkle__fail(err, MERKLE_ERR_RANGE, line, lstart, "%s",
                              merkle_strerror(MERKLE_ERR_RANGE));
            break;
        }
        if (is_put && !r.noalloc && (r.n < r.cap || run_grow(&r) == 0)) {
            r.kp[r.n] = at;
            r.kl[r.n] = kl;
            r.vp[r.n] = at + kl;
            r.vl[r.n] = vl;
            r.line[r.n] = line;
            r.off[r.n] = lstart;
            r.n++;
            used += kl + vl;
            continue;
        }
        if (is_put) { /* no room for the run's bookkeeping: one by one */
            r.noalloc = 1;
            if ((st = run_flush(t, &r, &applied, err)) != MERKLE_OK) break;
            used = 0;
        }
        st = is_put ? merkle_trie_put(t, at, kl, at + kl, vl) : merkle_trie_delete(NULL, t, at, kl);
        if (st != MERKLE_OK) {
            st = merkle__fail(err, st, line, lstart, "%s", merkle_strerror(st));
            break;
        }
        applied++;
    }
    /* A bad line keeps its own error; the run before it is applied all the same. */
    merkle_error fe;
    merkle_status fst = run_flush(t, &r, &applied, st == MERKLE_OK ? err : &fe);
    if (st == MERKLE_OK) st = fst;
    run_free(&r);
    if (ops) *ops = applied;
    return st;
}
