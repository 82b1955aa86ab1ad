/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The validation cache's file (format in cache.c): entry MACs, the buffered hashed writer,
** what may be at the cache's path, reading and parsing an image, merging another process's
** entries, and merkle_vcache_load.
*/
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "os/os.h"

#include "common/internal.h"
#include "common/secure.h"
#include "manifest/cache_impl.h"

/* ---------------------------------------------------------------- serialisation */

/* An entry's HMAC: over a domain tag and the record. */
void merkle__vc_entry_mac(const merkle_vcache *c, const uint8_t *rec, size_t len, uint8_t mac[32])
{
    merkle__hmac_sha256_mac2(&c->mac, mac, "merkle-vcache-v1", 16, rec, len);
}

void merkle__vc_ws_flush(wstream *w)
{
    size_t off = 0;
    while (!w->err && off < w->len) {
        ssize_t r = write(w->fd, w->buf + off, w->len - off);
        if (r < 0) {
            if (errno != EINTR) w->err = errno;
            continue;
        }
        off += (size_t)r;
    }
    w->len = 0;
}

/* Append p[0..n); hashed unless raw. */
void merkle__vc_ws_put(wstream *w, const void *p, size_t n, int raw)
{
    if (!raw) merkle_sha256_update(&w->sha, p, n);
    const uint8_t *q = p;
    while (n && !w->err) {
        size_t k = sizeof w->buf - w->len < n ? sizeof w->buf - w->len : n;
        memcpy(w->buf + w->len, q, k);
        w->len += k;
        q += k;
        n -= k;
        if (w->len == sizeof w->buf) merkle__vc_ws_flush(w);
    }
}

/* ---------------------------------------------------------------- the file on disk */

/*
** What may be at the cache's path. The cache is only ever written over nothing or over a
** regular file that is a cache (magic "MRKLVC" + a version this build reads, or an older
** one): anything else is refused (MERKLE_ERR_UNSAFE) and never truncated, renamed over or
** removed. A symbolic link is refused, never followed (lstat, then O_NOFOLLOW; the open file
** must be the very inode lstat saw). The open never blocks (O_NONBLOCK: a FIFO that appears
** between lstat and open) and never becomes a controlling terminal.
*/

static const char *type_name(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISSOCK(m) ? "a socket"
           : S_ISLNK(m)  ? "a symbolic link"
                         : "not a regular file";
}

/* Classify 8 header bytes (n of them read): 0 this version, 1 an older version (replace
** it), -1 not a cache, -2 a newer version (refused: it is not ours to destroy). */
int merkle__vc_classify_magic(const uint8_t *h, size_t n)
{
    if (n < 8 || memcmp(h, MAGIC, 6) != 0) return -1;
    if (h[6] < '0' || h[6] > '9' || h[7] < '0' || h[7] > '9') return -1;
    int cmp = memcmp(h + 6, &MAGIC[6], 2);
    return cmp == 0 ? 0 : cmp < 0 ? 1 : -2;
}

/*
** Open the cache file at path for reading, if it may be used. Returns MERKLE_OK with *fd -1
** when nothing is there, MERKLE_OK with *fd open, *st its stat and *kind the header class
** (0 or 1 as classify_magic) for a cache, MERKLE_ERR_UNSAFE for anything else, or
** MERKLE_ERR_IO.
*/
merkle_status merkle__vc_open_file(const char *path, int *fd, struct stat *st, int *kind,
                                   merkle_error *error)
{
    *fd = -1;
    struct stat ls;
    if (lstat(path, &ls) != 0) {
        if (errno == ENOENT) return MERKLE_OK;
        return merkle__fail_errno(error, errno, "%s: %s", path, strerror(errno));
    }
    if (S_ISLNK(ls.st_mode))
        return merkle__fail(error, MERKLE_ERR_UNSAFE, 0, 0,
                            "%s: is a symbolic link (a cache is never followed through one: "
                            "give the real path)",
                            path);
    if (!S_ISREG(ls.st_mode))
        return merkle__fail(error, MERKLE_ERR_UNSAFE, 0, 0, "%s: is %s, not a validation cache",
                            path, type_name(ls.st_mode));
    int f = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (f < 0) {
        int e = errno;
        if (e == ENOENT) return MERKLE_OK; /* gone since lstat */
        if (e == ELOOP || e == ENXIO)
            return merkle__fail(error, MERKLE_ERR_UNSAFE, 0, 0, "%s: changed while opened", path);
        return merkle__fail_errno(error, e, "%s: %s", path, strerror(e));
    }
    if (fstat(f, st) != 0 || !S_ISREG(st->st_mode) || st->st_ino != ls.st_ino ||
        st->st_dev != ls.st_dev) {
        close(f);
        return merkle__fail(error, MERKLE_ERR_UNSAFE, 0, 0, "%s: changed while opened", path);
    }
    uint8_t h[8];
    ssize_t n;
    do n = pread(f, h, sizeof h, 0);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        int e = errno;
        close(f);
        return merkle__fail_errno(error, e, "%s: %s", path, strerror(e));
    }
    int k = merkle__vc_classify_magic(h, (size_t)n);
    if (k < 0) {
        close(f);
        if (k == -2)
            return merkle__fail(error, MERKLE_ERR_UNSAFE, 0, 0,
                                "%s: a validation cache of a newer format (%.8s) than this "
                                "merkle reads (%s)",
                                path, (const char *)h, MAGIC);
        return merkle__fail(error, MERKLE_ERR_UNSAFE, 0, 0,
                            "%s: not a merkle validation cache (no %.6s magic)", path, MAGIC);
    }
    *fd = f;
    *kind = k;
    return MERKLE_OK;
}

/*
** How far the entries of the image prefix buf[0..have) of a len-byte file are well formed:
** *off (the next entry's offset) and *k (entries passed) advance over each entry held whole.
** 1 when every entry of the header's count is passed, 0 when more bytes are needed, -1 when an
** entry cannot be one (the checks of merkle__vc_parse_image, which reads the image again:
** this walk only stops a forged header from making the reader hold the whole file).
*/
static int vc_walk(const uint8_t *buf, size_t have, size_t len, size_t *off, uint64_t *k)
{
    if (have < HDR_LEN) return 0;
    if (len < HDR_LEN + 32) return -1;
    uint64_t flags = merkle__load_le64(buf + 8), count = merkle__load_le64(buf + 16);
    if (flags > 1) return -1;
    size_t mac = flags ? 32u : 0u, end = len - 32;
    if (*off < HDR_LEN) *off = HDR_LEN;
    while (*k < count) {
        size_t o = *off;
        if (end - o < FIXED_LEN) return -1;
        if (have - o < FIXED_LEN) return 0; /* have >= o: o only passes entries held whole */
        uint8_t n8[8] = { 0 };
        memcpy(n8, buf + o, 4);
        uint64_t nl64 = merkle__load_le64(n8);
        if (nl64 == 0 || nl64 > VC_NAME_MAX) return -1;
        size_t nl = (size_t)nl64; /* at most VC_NAME_MAX: fits any size_t */
        if (end - o - FIXED_LEN < nl) return -1;
        if (have - o - FIXED_LEN < nl) return 0;
        const uint8_t *t = buf + o + 4 + nl;
        uint8_t alg = t[48], dlen = t[49];
        if (!merkle__manifest_len_ok((merkle_hash_alg)alg, dlen) || memchr(buf + o + 4, 0, nl) ||
            end - o - FIXED_LEN - nl < (size_t)dlen + mac)
            return -1;
        size_t size = FIXED_LEN + nl + dlen + mac;
        if (have - o < size) return 0;
        *off = o + size;
        (*k)++;
    }
    return *off == end ? 1 : -1;
}

/* Read exactly len (st_size) bytes of fd (a file that grows meanwhile is read up to its size
** at open: the checksum then decides), in growing steps, each checked by vc_walk: an image
** whose entries stop being entries is not read on (a forged header cannot make a sparse file
** of gigabytes be read whole). 0, an errno (ENOMEM), or -1: not a cache image (bad entry). */
int merkle__vc_read_image(int fd, size_t len, uint8_t **out, size_t *got)
{
    size_t cap = len < ((size_t)1 << 20) ? len : (size_t)1 << 20, off = 0, walk_off = 0;
    uint64_t walk_k = 0;
    uint8_t *buf = malloc(cap ? cap : 1);
    if (!buf) return ENOMEM;
    for (;;) {
        while (off < cap) {
            ssize_t r = pread(fd, buf + off, cap - off, (off_t)off);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) {
                int e = errno;
                free(buf);
                return e;
            }
            if (r == 0) break;
            off += (size_t)r;
        }
        if (off < cap || cap == len) break; /* the end of the file (or shorter than at open) */
        if (vc_walk(buf, off, len, &walk_off, &walk_k) < 0) {
            free(buf);
            return -1;
        }
        size_t nc = cap <= len / 2 ? 2 * cap : len;
        uint8_t *nb = realloc(buf, nc);
        if (!nb) {
            free(buf);
            return ENOMEM;
        }
        buf = nb;
        cap = nc;
    }
    *out = buf;
    *got = off;
    return 0;
}

int merkle__vc_image_oversized(int fd, const struct stat *st, uint64_t *count)
{
    uint64_t n = 0, need = HDR_LEN + 32;
    if (st->st_size >= HDR_LEN + 32) {
        uint8_t hdr[HDR_LEN];
        ssize_t k;
        do k = pread(fd, hdr, HDR_LEN, 0);
        while (k < 0 && errno == EINTR);
        if (k == HDR_LEN) {
            const uint64_t per = FIXED_LEN + VC_NAME_MAX + MERKLE_MAX_DIGEST_LEN + 32;
            n = merkle__load_le64(hdr + 16);
            need = n <= (UINT64_MAX - HDR_LEN - 32) / per ? HDR_LEN + 32 + n * per : UINT64_MAX;
        }
    }
    if (count) *count = n;
    return (uint64_t)st->st_size > need;
}

/* Directory of path (".", "/" or the part before the last slash) and its last component. */
int merkle__vc_split_path(const char *path, char **dir, const char **base)
{
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path) : 1;
    *dir = malloc(dl + 2);
    if (!*dir) return -1;
    if (!slash)
        memcpy(*dir, ".", 2);
    else if (slash == path)
        memcpy(*dir, "/", 2);
    else {
        memcpy(*dir, path, dl);
        (*dir)[dl] = '\0';
    }
    *base = slash ? slash + 1 : path;
    return 0;
}

/*
** The file system's clock against ours: an unnamed temporary file made in the cache's
** directory carries the file system's "now" in its mtime (a network file system's server
** clock, a coarse clock's tick). fs_lag is how far that was behind our clock read just
** before it (so on a local file system, stamped from the same clock, it is 0); entries
** recorded later are stamped that much earlier. Nothing when the directory does not
** allow it (read-only, no O_TMPFILE): the granularity rule in merkle__racy_safe still holds.
*/
static void probe_fs_clock(merkle_vcache *c, const char *path)
{
#ifdef O_TMPFILE
    char *dir;
    const char *base;
    if (merkle__vc_split_path(path, &dir, &base) != 0) return;
    int64_t ours = merkle_vcache_now();
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    free(dir);
    if (fd < 0) return;
    struct stat st;
    int ok = fstat(fd, &st) == 0;
    close(fd);
    if (!ok) return;
    int64_t fs = MERKLE_ST_MTIME_NS(&st);
    c->fs_lag = ours > fs ? ours - fs : 0;
#else
    (void)c;
    (void)path;
#endif
}

static uint64_t get64(const uint8_t **p)
{
    uint64_t v = merkle__load_le64(*p);
    *p += 8;
    return v;
}

/*
** Parse a cache image (buf, len) into out (zeroed by the caller; its entries point into buf).
** Entries whose HMAC fails under c's key are counted in *rej. NULL, or why it is bad.
*/
const char *merkle__vc_parse_image(const merkle_vcache *c, uint8_t *buf, size_t len,
                                   merkle_vcache *out, size_t *rej, merkle_status *s)
{
    if (len < HDR_LEN + 32) return "truncated";
    uint8_t sum[32];
    merkle_sha256_hash(sum, buf, len - 32);
    if (!merkle_ct_equal(sum, buf + len - 32, 32))
        return "checksum mismatch (truncated or corrupt)";
    if (memcmp(buf, MAGIC, 8) != 0) return "an older format: it will be replaced";
    const uint8_t *p = buf + 8;
    uint64_t flags = get64(&p);
    if (flags > 1) return "unknown flags";
    int has_mac = (int)flags;
    uint64_t count = get64(&p);
    const uint8_t *end = buf + len - 32;
    for (uint64_t k = 0; k < count; k++) {
        uint8_t *rec = buf + (p - buf);
        if ((size_t)(end - p) < FIXED_LEN) return "truncated entry";
        uint8_t n8[8] = { 0 };
        memcpy(n8, p, 4);
        size_t nl = (size_t)merkle__load_le64(n8);
        if ((size_t)(end - p) - FIXED_LEN < nl) return "truncated entry";
        const char *name = (const char *)p + 4;
        const uint8_t *t = p + 4 + nl;
        uint8_t alg = t[48], dlen = t[49];
        p = t + 50;
        if (!merkle__manifest_len_ok((merkle_hash_alg)alg, dlen) || nl == 0 || nl > VC_NAME_MAX ||
            memchr(name, '\0', nl) || (size_t)(end - p) < (size_t)dlen + (has_mac ? 32u : 0u))
            return "bad entry";
        p += dlen;
        int accept = 1;
        if (c->keyed) {
            if (!has_mac) {
                accept = 0;
            } else {
                uint8_t mac[32];
                merkle__vc_entry_mac(c, rec, (size_t)(p - rec), mac);
                accept = merkle_ct_equal(mac, p, 32);
            }
        }
        if (has_mac) p += 32;
        if (!accept) {
            (*rej)++;
            continue;
        }
        /* The header's count sizes the first allocation (bounded: it is read from a file). */
        size_t want = out->cap ? out->n + 1 : (count < 1u << 20 ? (size_t)count + 1 : 1u << 20);
        if (merkle__grow(&out->e, &out->cap, want, sizeof *out->e) != 0) {
            *s = MERKLE_ERR_NOMEM;
            return "out of memory";
        }
        ventry *v = &out->e[out->n++];
        v->rec = rec;
        v->name_len = (uint32_t)nl;
        v->live = 1;
        v->mine = 0;
        out->live++;
    }
    if (p != end) return "trailing bytes";
    return NULL;
}

static void id_of_rec(merkle_file_id *id, const uint8_t *t)
{
    id->dev = merkle__load_le64(t);
    id->ino_hi = 0;
    id->ino_lo = merkle__load_le64(t + 8);
    id->size = merkle__load_le64(t + 16);
    id->mtime_ns = (int64_t)merkle__load_le64(t + 24);
    id->ctime_ns = (int64_t)merkle__load_le64(t + 32);
}

/*
** Merge the parsed entries of a cache file written by another process into c: for every name
** this process recorded or forgot since its last save, c's word stands; for every other name
** the file's (it is newer than what this process loaded). Locked. 0, or -1 out of memory.
*/
int merkle__vc_merge_disk(merkle_vcache *c, const merkle_vcache *disk)
{
    if (merkle__vc_ensure_map(c) != 0) return -1;
    for (size_t i = 0; i < c->n; i++) {
        ventry *v = &c->e[i];
        if (v->live && !v->mine) {
            v->live = 0;
            c->live--;
        }
    }
    for (size_t i = 0; i < disk->n; i++) {
        const ventry *v = &disk->e[i];
        long long idx = merkle__vc_find(c, rec_name(v), v->name_len, NULL, NULL);
        if (idx >= 0 && c->e[idx].mine) continue;
        const uint8_t *t = rec_tail(v);
        merkle_file_id id;
        id_of_rec(&id, t);
        if (merkle__vc_put(c, rec_name(v), v->name_len, &id, t[48], t + 50, t[49],
                           (int64_t)merkle__load_le64(t + 40), 0) != 0)
            return -1;
    }
    return 0;
}

/*
** Root trusts an unkeyed cache only when it is root's own and nobody else may write it: any
** user who can write the file can forge an entry ("this file, with this stat, has this
** digest") and make a root check say OK for content that changed. Returns 0 (trusted), or 1
** with error filled (MERKLE_ERR_VERIFY). A keyed cache is authenticated entry by entry
** instead; a user's own run (not root) trusts a cache of another user only for files it can
** read itself (foreign).
*/
int merkle__vc_distrusted(const merkle_vcache *c, const struct stat *st, merkle_error *error,
                          const char *path)
{
    if (c->keyed || geteuid() != 0) return 0;
    if (st->st_uid != 0)
        merkle__fail(error, MERKLE_ERR_VERIFY, 0, 0,
                     "%s: unkeyed and owned by uid %ld: root does not trust it (not read, "
                     "not rewritten)",
                     path, (long)st->st_uid);
    else if (st->st_mode & (S_IWGRP | S_IWOTH))
        merkle__fail(error, MERKLE_ERR_VERIFY, 0, 0,
                     "%s: unkeyed and writable by %s (mode %04o): root does not trust it (not "
                     "read, not rewritten)",
                     path, (st->st_mode & S_IWOTH) ? "others" : "its group",
                     (unsigned)(st->st_mode & 07777));
    else
        return 0;
    return 1;
}

merkle_status merkle_vcache_load(size_t *loaded, size_t *rejected, merkle_vcache *c,
                                 const char *path, merkle_error *error)
{
    if (loaded) *loaded = 0;
    if (rejected) *rejected = 0;
    if (!c || !path) return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "bad argument");
    int fd, kind = 0;
    struct stat st;
    merkle_status s = merkle__vc_open_file(path, &fd, &st, &kind, error);
    if (s != MERKLE_OK) return s;
    probe_fs_clock(c, path);
    if (fd < 0) {
        pthread_mutex_lock(&c->lock);
        if (c->n == 0) c->disk = DISK_ABSENT;
        pthread_mutex_unlock(&c->lock);
        return MERKLE_OK;
    }
    uid_t me = geteuid();
    if (merkle__vc_distrusted(c, &st, error, path)) {
        close(fd);
        pthread_mutex_lock(&c->lock);
        c->distrusted = 1;
        merkle__file_id_from_stat(&c->distrusted_id, &st);
        pthread_mutex_unlock(&c->lock);
        return MERKLE_ERR_VERIFY;
    }
    /* Bounded before anything is read whole (a warning for the caller: the check goes on
    ** without the cache). */
    uint64_t count;
    if (merkle__vc_image_oversized(fd, &st, &count)) {
        close(fd);
        return merkle__fail(error, MERKLE_ERR_FORMAT, 0, 0,
                            "%s: %llu bytes, more than its %llu entries could need: not read", path,
                            (unsigned long long)st.st_size, (unsigned long long)count);
    }
    if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX / 2) {
        close(fd);
        return merkle__fail(error, MERKLE_ERR_FORMAT, 0, 0, "%s: too large", path);
    }
    uint8_t *buf = NULL;
    size_t len = 0;
    int e = merkle__vc_read_image(fd, (size_t)st.st_size, &buf, &len);
    close(fd);
    if (e == ENOMEM) return merkle__fail(error, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    if (e < 0) /* the first bytes already are no cache: the rest is not read */
        return merkle__fail(error, MERKLE_ERR_FORMAT, 0, 0, "%s: bad entry", path);
    if (e) return merkle__fail_errno(error, e, "%s: %s", path, strerror(e));
    merkle_file_id fid;
    merkle__file_id_from_stat(&fid, &st);

    merkle_vcache tmp;
    memset(&tmp, 0, sizeof tmp);
    merkle__strmap_init(&tmp.map);
    size_t rej = 0;
    const char *why = len != (size_t)st.st_size
                          ? "truncated"
                          : merkle__vc_parse_image(c, buf, len, &tmp, &rej, &s);
    pthread_mutex_lock(&c->lock);
    int was_empty = c->n == 0;
    if (was_empty) {
        /* This is the file a save replaces: the one this process has seen. */
        c->disk = DISK_PRESENT;
        c->disk_id = fid;
        c->foreign = me != 0 && st.st_uid != me;
    }
    if (why) {
        pthread_mutex_unlock(&c->lock);
        merkle__vc_clear(&tmp);
        free(buf);
        if (s == MERKLE_OK) s = MERKLE_ERR_FORMAT;
        return merkle__fail(error, s, 0, 0, "%s: %s", path, why);
    }
    size_t got = 0;
    if (was_empty) {
        /* The usual case: adopt the parsed table as it is. */
        merkle__vc_clear(c);
        c->e = tmp.e;
        c->n = tmp.n;
        c->cap = tmp.cap;
        c->live = tmp.live;
        c->mapped = 0;
        c->blob = buf; /* the records live in it */
        buf = NULL;
        got = tmp.n;
        memset(&tmp, 0, sizeof tmp);
        merkle__strmap_init(&tmp.map);
    } else {
        /* Loaded entries go under entries recorded in this process. */
        for (size_t i = 0; i < tmp.n; i++) {
            const ventry *v = &tmp.e[i];
            if (merkle__vc_find(c, rec_name(v), v->name_len, NULL, NULL) >= 0) continue;
            const uint8_t *t = rec_tail(v);
            merkle_file_id id;
            id_of_rec(&id, t);
            if (merkle__vc_put(c, rec_name(v), v->name_len, &id, t[48], t + 50, t[49],
                               (int64_t)merkle__load_le64(t + 40), 0) != 0) {
                s = MERKLE_ERR_NOMEM;
                break;
            }
            got++;
        }
    }
    if (was_empty && s == MERKLE_OK && rej == 0) {
        free(c->saved_path);
        c->saved_path = strdup(path);
        c->dirty = 0;
    }
    pthread_mutex_unlock(&c->lock);
    merkle__vc_clear(&tmp);
    free(buf);
    if (loaded) *loaded = got;
    if (rejected) *rejected = rej;
    if (s != MERKLE_OK) return merkle__fail(error, s, 0, 0, "out of memory");
    return MERKLE_OK;
}
