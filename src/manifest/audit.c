/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle_manifest_audit: a directory against a manifest, hashdeep-style -- changed, missing,
** moved and new files. The walk lists regular files; the check engine (check.c) hashes the
** listed ones; unlisted files are hashed only when some entry is missing, to pair moves.
*/
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/os.h"

#include "common/internal.h"
#include "manifest/manifest_impl.h"
#include "merkle/manifest.h"

merkle_status merkle_audit_opts_init(merkle_audit_opts *o, uint32_t version)
{
    if (!o || version == 0 || version > MERKLE_AUDIT_OPTS_VERSION) return MERKLE_ERR_ARG;
    memset(o, 0, sizeof *o);
    o->version = version;
    return MERKLE_OK;
}

typedef struct namelist {
    char **v;
    size_t n, cap;
} namelist;

static void nl_free(namelist *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
}

/* Append a copy of path[0..len). 0, or -1 when out of memory. */
static int nl_push(namelist *l, const char *path, size_t len)
{
    if (merkle__grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v) != 0) return -1;
    char *c = malloc(len + 1);
    if (!c) return -1;
    memcpy(c, path, len + 1);
    l->v[l->n++] = c;
    return 0;
}

/* Walk dirfd/rel recursively; regular files go to out (names relative to dirfd). Returns 0
** or an errno (the first error; the walk goes on). skip: a file to leave out (or NULL). */
static int walk(int dirfd, const char *rel, namelist *out, const merkle_file_id *skip)
{
    /* The top is opened anew, not dup'ed: a dup would share the caller's directory offset,
    ** and a second audit of the same dirfd would then list nothing. */
    int fd = openat(dirfd, rel[0] ? rel : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return errno;
    DIR *d = fdopendir(fd);
    if (!d) {
        int e = errno;
        close(fd);
        return e;
    }
    int first_err = 0;
    struct dirent *de;
    size_t rl = strlen(rel);
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
        size_t nl = strlen(de->d_name);
        char *path = malloc(rl + nl + 2);
        if (!path) {
            first_err = ENOMEM;
            break;
        }
        size_t pl = 0;
        if (rl) {
            memcpy(path, rel, rl);
            path[rl] = '/';
            pl = rl + 1;
        }
        memcpy(path + pl, de->d_name, nl + 1);
        struct stat st;
        if (fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (!first_err) first_err = errno;
        } else if (S_ISDIR(st.st_mode)) {
            int e = walk(dirfd, path, out, skip);
            if (e && !first_err) first_err = e;
        } else if (S_ISREG(st.st_mode) &&
                   !(skip && (uint64_t)st.st_dev == skip->dev &&
                     (uint64_t)st.st_ino == skip->ino_lo && skip->ino_hi == 0)) {
            if (nl_push(out, path, pl + nl) != 0 && !first_err) first_err = ENOMEM;
        }
        free(path);
    }
    closedir(d);
    return first_err;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A missing entry or a new file, for pairing by digest (find_moved). */
typedef struct move_key {
    const uint8_t *digest;
    size_t dlen; /* the same in all keys sorted together */
    const char *name;
    size_t idx; /* entry index (missing) or index into the new-file list */
} move_key;

static int cmp_move(const void *a, const void *b)
{
    const move_key *x = a, *y = b;
    int c = memcmp(x->digest, y->digest, x->dlen);
    return c ? c : strcmp(x->name, y->name);
}

/*
** Moved files: pair entries that are missing (miss[0..nm), indices into e) with new files
** (newv[0..nn)) of the same digest, for each algorithm and digest length among the missing
** entries. New files are hashed only here, once per such algorithm (a file that cannot be
** read stays new). Within one digest, missing names and new names are paired in byte order
** of their names, the first with the first; a name listed twice pairs once. Sets
** moved_to[i] for paired entries and used[k] for paired new files. MERKLE_OK or the status
** of the failure (err filled).
*/
static merkle_status find_moved(const merkle_manifest_entry *e, const size_t *miss, size_t nm,
                                char *const *newv, size_t nn, const merkle_check_opts *o, int dirfd,
                                const char **moved_to, uint8_t *used, merkle_error *err)
{
    merkle_check_result *res = malloc(nn * sizeof *res);
    move_key *mk = malloc(nm * sizeof *mk);
    move_key *nk = malloc(nn * sizeof *nk);
    uint8_t *done = calloc(nm, 1); /* missing entries whose algorithm was handled */
    merkle_status s = MERKLE_OK;
    if (!res || !mk || !nk || !done) s = merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    for (size_t a = 0; s == MERKLE_OK && a < nm; a++) {
        if (done[a]) continue;
        const merkle_manifest_entry *ea = &e[miss[a]];
        merkle_hash_alg alg = ea->alg;
        size_t dlen = ea->digest_len;
        size_t km = 0, kn = 0;
        for (size_t q = a; q < nm; q++) {
            const merkle_manifest_entry *eq = &e[miss[q]];
            if (eq->alg != alg || eq->digest_len != dlen) continue;
            done[q] = 1;
            mk[km].digest = eq->digest;
            mk[km].dlen = dlen;
            mk[km].name = eq->name;
            mk[km].idx = miss[q];
            km++;
        }
        s = merkle__manifest_hash_files_at(res, (const char *const *)newv, nn, alg, dlen, o, dirfd,
                                           1, err);
        if (s != MERKLE_OK) break;
        for (size_t k = 0; k < nn; k++) {
            if (used[k] || res[k].status != MERKLE_CHECK_OK) continue;
            nk[kn].digest = res[k].digest;
            nk[kn].dlen = dlen;
            nk[kn].name = newv[k];
            nk[kn].idx = k;
            kn++;
        }
        qsort(mk, km, sizeof *mk, cmp_move);
        qsort(nk, kn, sizeof *nk, cmp_move);
        /* Merge the two sorted lists; within a digest, pair in name order. */
        size_t i = 0, j = 0;
        while (i < km && j < kn) {
            int c = memcmp(mk[i].digest, nk[j].digest, dlen);
            if (c < 0) {
                i++;
            } else if (c > 0) {
                j++;
            } else {
                const char *to = newv[nk[j].idx];
                used[nk[j].idx] = 1;
                /* every listing of this name (same digest) moved to the same file */
                size_t i0 = i;
                while (i < km && memcmp(mk[i].digest, mk[i0].digest, dlen) == 0 &&
                       strcmp(mk[i].name, mk[i0].name) == 0)
                    moved_to[mk[i++].idx] = to;
                j++;
            }
        }
    }
    free(res);
    free(mk);
    free(nk);
    free(done);
    return s;
}

/* Is the name found[0..fl) among sorted[0..n) (sorted by name bytes)? */
static int listed(const merkle_manifest_entry *sorted, size_t n, const char *name, size_t fl)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const merkle_manifest_entry *en = &sorted[mid];
        size_t k = en->name_len < fl ? en->name_len : fl;
        int cr = memcmp(en->name, name, k);
        if (!cr) cr = en->name_len < fl ? -1 : en->name_len > fl;
        if (!cr) return 1;
        if (cr < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

static void emit(const merkle_audit_opts *o, merkle_audit_kind kind, const char *name,
                 const char *to, size_t entry, int sys_errno)
{
    if (!o->on_event) return;
    merkle_audit_event ev = { kind, name, to, entry, sys_errno };
    o->on_event(o->event_ctx, &ev);
}

static void stage(const merkle_audit_opts *o, merkle_audit_stage st, uint64_t files)
{
    if (o->on_stage) o->on_stage(o->progress_ctx, st, files);
}

/* Everything an audit allocates, freed in one place. */
typedef struct audit_mem {
    merkle_manifest_entry *entries; /* the manifest's entries, names normalised */
    merkle_manifest_entry *sorted;  /* the same, sorted by name */
    merkle_check_result *res;
    namelist found;
    char **newv; /* found, not listed: pointers into found */
    const char **moved_to;
    uint8_t *used;
    size_t *miss;
} audit_mem;

static void audit_mem_free(audit_mem *a)
{
    free(a->entries);
    free(a->sorted);
    free(a->res);
    nl_free(&a->found);
    free(a->newv);
    free(a->moved_to);
    free(a->used);
    free(a->miss);
}

/* Report in the documented order; counts totals into *c. */
static void report(merkle_audit_counts *c, const audit_mem *a, size_t count, size_t nn,
                   const merkle_audit_opts *o)
{
    for (size_t i = 0; i < count; i++) {
        const char *name = a->entries[i].name;
        switch (a->res[i].status) {
        case MERKLE_CHECK_OK: c->ok++; break;
        case MERKLE_CHECK_MISMATCH:
            c->changed++;
            emit(o, MERKLE_AUDIT_CHANGED, name, NULL, i, 0);
            break;
        case MERKLE_CHECK_MISSING:
            if (a->moved_to[i]) break;
            c->missing++;
            emit(o, MERKLE_AUDIT_MISSING, name, NULL, i, 0);
            break;
        default:
            c->unreadable++;
            emit(o, MERKLE_AUDIT_UNREADABLE, name, NULL, i, a->res[i].sys_errno);
            break;
        }
    }
    for (size_t i = 0; i < count; i++) {
        if (!a->moved_to[i]) continue;
        c->moved++;
        emit(o, MERKLE_AUDIT_MOVED, a->entries[i].name, a->moved_to[i], i, 0);
    }
    for (size_t k = 0; k < nn; k++) {
        if (a->used[k]) continue;
        c->new_files++;
        emit(o, MERKLE_AUDIT_NEW, a->newv[k], NULL, SIZE_MAX, 0);
    }
}

static merkle_status audit_at(merkle_audit_counts *counts, const merkle_manifest *m, int dirfd,
                              const merkle_audit_opts *opts, merkle_error *err);

merkle_status merkle_manifest_audit(merkle_audit_counts *counts, const merkle_manifest *m,
                                    const char *dir, const merkle_audit_opts *opts,
                                    merkle_error *err)
{
    if (counts) memset(counts, 0, sizeof *counts);
    if (!m || !dir) return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL manifest or directory");
    if (opts && (opts->version == 0 || opts->version > MERKLE_AUDIT_OPTS_VERSION))
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "unknown merkle_audit_opts version");
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        int e = errno;
        return merkle__fail_errno(err, e, "%s: %s", dir, strerror(e));
    }
    merkle_status s = audit_at(counts, m, dirfd, opts, err);
    close(dirfd);
    return s;
}

static merkle_status audit_at(merkle_audit_counts *counts, const merkle_manifest *m, int dirfd,
                              const merkle_audit_opts *opts, merkle_error *err)
{
    merkle_audit_opts o;
    if (!opts) {
        merkle_audit_opts_init(&o, MERKLE_AUDIT_OPTS_VERSION);
    } else if (opts->version == 0 || opts->version > MERKLE_AUDIT_OPTS_VERSION) {
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "unknown merkle_audit_opts version");
    } else {
        o = *opts;
    }
    if (!m || (!m->entries && m->count) || dirfd < 0)
        return merkle__fail(err, MERKLE_ERR_ARG, 0, 0, "NULL manifest or bad directory");
    merkle_audit_counts c;
    memset(&c, 0, sizeof c);
    if (counts) *counts = c;
    size_t n = m->count, one = n ? n : 1;
    audit_mem a;
    memset(&a, 0, sizeof a);
    a.entries = malloc(one * sizeof *a.entries);
    a.sorted = malloc(one * sizeof *a.sorted);
    a.res = calloc(one, sizeof *a.res);
    a.moved_to = calloc(one, sizeof *a.moved_to);
    a.miss = malloc(one * sizeof *a.miss);
    if (!a.entries || !a.sorted || !a.res || !a.moved_to || !a.miss) {
        audit_mem_free(&a);
        return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    }
    /* Names relative to the directory: "./a" and "a" are the same file. */
    if (n) memcpy(a.entries, m->entries, n * sizeof *a.entries);
    for (size_t i = 0; i < n; i++) {
        merkle_manifest_entry *e = &a.entries[i];
        while (e->name[0] == '.' && e->name[1] == '/') {
            e->name += 2;
            e->name_len -= 2;
            while (e->name[0] == '/') {
                e->name++;
                e->name_len--;
            }
        }
    }

    int werr = walk(dirfd, "", &a.found, o.skip);
    if (werr == ENOMEM) {
        audit_mem_free(&a);
        return merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    }
    if (werr) {
        c.walk_errors = 1;
        emit(&o, MERKLE_AUDIT_WALK_ERROR, "", NULL, SIZE_MAX, werr);
    }

    merkle_check_opts co;
    merkle_check_opts_init(&co, MERKLE_CHECK_OPTS_VERSION);
    co.threads = o.threads;
    co.progress = o.progress;
    co.progress_ctx = o.progress_ctx;
    stage(&o, MERKLE_AUDIT_STAGE_CHECK, n);
    merkle_status s = merkle__manifest_check_at(a.res, a.entries, n, &co, dirfd, err);

    /* New files: found under the directory, not listed (sorted by name). */
    size_t nn = 0, nm = 0;
    if (s == MERKLE_OK) {
        a.newv = malloc((a.found.n ? a.found.n : 1) * sizeof *a.newv);
        a.used = calloc(a.found.n ? a.found.n : 1, 1);
        if (!a.newv || !a.used) s = merkle__fail(err, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    }
    if (s == MERKLE_OK) {
        if (a.found.n) qsort(a.found.v, a.found.n, sizeof *a.found.v, cmp_str);
        merkle_manifest byname; /* a shallow copy sorted by name, for binary search */
        memset(&byname, 0, sizeof byname);
        if (n) memcpy(a.sorted, a.entries, n * sizeof *a.sorted);
        byname.entries = a.sorted;
        byname.count = n;
        (void)merkle_manifest_sort(&byname, NULL); /* duplicate names are fine here */
        for (size_t i = 0; i < a.found.n; i++)
            if (!listed(a.sorted, n, a.found.v[i], strlen(a.found.v[i])))
                a.newv[nn++] = a.found.v[i];
        /* Moved: a missing entry whose digest a new file has. */
        for (size_t i = 0; i < n; i++)
            if (a.res[i].status == MERKLE_CHECK_MISSING) a.miss[nm++] = i;
        if (nm && nn) {
            stage(&o, MERKLE_AUDIT_STAGE_MOVES, nn);
            s = find_moved(a.entries, a.miss, nm, a.newv, nn, &co, dirfd, a.moved_to, a.used, err);
        }
    }
    if (s == MERKLE_OK) {
        stage(&o, MERKLE_AUDIT_STAGE_REPORT, 0);
        report(&c, &a, n, nn, &o);
        if (counts) *counts = c;
    }
    audit_mem_free(&a);
    return s;
}
