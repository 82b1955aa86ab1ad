/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Validation cache: file identity + stat + digest of files that verified OK, so that a
** later check can skip reading unchanged files. See docs/manifest.md for the rules and the
** threat model.
**
** File format (little-endian):
**   "MRKLVC01"  u32 flags (1 = entries carry an HMAC)  u32 0  u64 count
**   count x { u32 name_len, name, u64 dev, ino, size, i64 mtime_ns, ctime_ns, verified_ns,
**             u8 alg, u8 digest_len, digest, [32-byte HMAC-SHA-256 of the entry so far] }
**   32-byte SHA-256 of everything before it (detects truncation and corruption)
*/
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/internal.h"
#include "manifest/manifest_impl.h"

#define MAGIC       "MRKLVC01"
#define HDR_LEN     24
#define FIXED_LEN   (4 + 6 * 8 + 2)
#define ARENA_CHUNK (64 * 1024)

/*
** An entry is its record exactly as the file stores it (without the HMAC): u32 name_len,
** name, dev, ino, size, mtime_ns, ctime_ns, verified_ns, alg, digest_len, digest. Loaded
** entries point into the file image (read into memory, never mapped: a mapped file could be
** rewritten after its checksum and HMACs were verified), recorded ones into an arena. Nothing
** is copied at load time and save writes the records as they are.
*/
typedef struct ventry {
    uint8_t *rec;
    uint32_t name_len;
    uint8_t live;
    uint8_t mine; /* recorded or forgotten by this process since the last save */
} ventry;

/* Record accessors. */
static const char *rec_name(const ventry *v)
{
    return (const char *)v->rec + 4;
}
static const uint8_t *rec_tail(const ventry *v) /* dev ... digest */
{
    return v->rec + 4 + v->name_len;
}
static size_t rec_size(size_t name_len, size_t dlen)
{
    return FIXED_LEN + name_len + dlen;
}

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t used, cap;
    uint8_t data[];
} arena_chunk;

struct merkle_vcache {
    pthread_mutex_t lock;
    ventry *e;
    size_t n, cap, live;
    merkle__strmap map;
    size_t hint;        /* where find looks first: after the previous hit */
    size_t mapped;      /* entries [0, mapped) are in map (built lazily, see find) */
    uint8_t *blob;      /* loaded file image that loaded records live in */
    arena_chunk *arena; /* records written by record (newest chunk first) */
    int keyed;          /* entries carry an HMAC under the application's key */
    /* HMAC-SHA-256 (RFC 2104) of that key, precomputed (the key itself is not kept): the
    ** contexts after the key's ipad and opad blocks, so that an entry's MAC costs the
    ** compressions of its own bytes and one of the outer hash, with the SHA-NI code (it was
    ** libsodium's portable HMAC, keyed again per entry: 2.7x the time of a whole unkeyed
    ** cached check). */
    merkle_sha256 mac_in, mac_out;
    int dirty;        /* changed since load/save: save rewrites the file only then */
    char *saved_path; /* the file last loaded (cleanly) or saved */
    /* The cache file as this process last saw it (load or save): save merges in what another
    ** process wrote meanwhile. disk: 0 unknown, 1 absent, 2 present with identity disk_id. */
    int disk;
    merkle_file_id disk_id;
    int foreign;    /* owned by another user: a hit is answered only for files we can read */
    int64_t fs_lag; /* ns the file system's clock was behind ours at load (>= 0) */
};

int64_t merkle_vcache_now(void)
{
    struct timespec ts;
#ifdef CLOCK_REALTIME_COARSE
    if (clock_gettime(CLOCK_REALTIME_COARSE, &ts) != 0)
#endif
        clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

merkle_status merkle_vcache_alloc(merkle_vcache **out, const uint8_t *key, size_t key_len)
{
    if (!out || (!key && key_len)) return MERKLE_ERR_ARG;
    merkle_vcache *c = calloc(1, sizeof *c);
    if (!c) return MERKLE_ERR_NOMEM;
    if (key_len) {
        c->keyed = 1;
        uint8_t k[64] = { 0 }, pad[64];
        if (key_len > 64)
            merkle_sha256_hash(k, key, key_len);
        else
            memcpy(k, key, key_len);
        for (int i = 0; i < 64; i++) pad[i] = (uint8_t)(k[i] ^ 0x36);
        merkle_sha256_init(&c->mac_in);
        merkle_sha256_update(&c->mac_in, pad, 64);
        for (int i = 0; i < 64; i++) pad[i] = (uint8_t)(k[i] ^ 0x5c);
        merkle_sha256_init(&c->mac_out);
        merkle_sha256_update(&c->mac_out, pad, 64);
        sodium_memzero(k, sizeof k);
        sodium_memzero(pad, sizeof pad);
    }
    if (sodium_init() < 0) {
        sodium_memzero(c, sizeof *c);
        free(c);
        return MERKLE_ERR_UNSUPPORTED;
    }
    pthread_mutex_init(&c->lock, NULL);
    merkle__strmap_init(&c->map);
    *out = c;
    return MERKLE_OK;
}

static void clear(merkle_vcache *c)
{
    while (c->arena) {
        arena_chunk *next = c->arena->next;
        free(c->arena);
        c->arena = next;
    }
    free(c->e);
    free(c->blob);
    c->blob = NULL;
    c->e = NULL;
    c->n = c->cap = c->live = c->mapped = c->hint = 0;
    merkle__strmap_free(&c->map);
}

/* size bytes of arena memory for one record, or NULL. Locked. */
static uint8_t *arena_get(merkle_vcache *c, size_t size)
{
    arena_chunk *a = c->arena;
    if (!a || a->cap - a->used < size) {
        size_t cap = size > ARENA_CHUNK ? size : ARENA_CHUNK;
        a = malloc(sizeof *a + cap);
        if (!a) return NULL;
        a->next = c->arena;
        a->used = 0;
        a->cap = cap;
        c->arena = a;
    }
    uint8_t *p = a->data + a->used;
    a->used += size;
    return p;
}

/* Put entries [mapped, n) into the map; of two entries with one name the later wins and the
** earlier is dropped. 0, or -1 on allocation failure. Locked. */
static int ensure_map(merkle_vcache *c)
{
    for (; c->mapped < c->n; c->mapped++) {
        ventry *v = &c->e[c->mapped];
        size_t old;
        if (merkle__strmap_get(&c->map, rec_name(v), v->name_len, &old) && c->e[old].live) {
            c->e[old].live = 0;
            c->live--;
        }
        if (merkle__strmap_put(&c->map, rec_name(v), v->name_len, c->mapped) != 0) return -1;
    }
    return 0;
}

/* Index of name, or -1. A check asks for the files in manifest order and the cache keeps
** that order, so find first tries the entry at *hint (hint NULL: never), the one after the
** previous hit: no hashing and no table in the common case. Otherwise the keyed hash table
** (built on first need; it knows only the last entry of a name, see ensure_map). *hint is
** set after the entry found. Before the table is built, the fast path may find an earlier
** entry of a name written twice (only a hand-made file has that); both are authentic and a
** lookup must still match stat and digest, so this is harmless. put and forget go through
** the table. Locked. */
static long long find(merkle_vcache *c, const char *name, size_t len, size_t *hint, int *nomem)
{
    size_t idx;
    size_t h = hint ? *hint : SIZE_MAX;
    if (h < c->n && c->e[h].live && c->e[h].name_len == len &&
        memcmp(rec_name(&c->e[h]), name, len) == 0) {
        idx = h;
    } else {
        if (c->n == 0) return -1;
        if (ensure_map(c) != 0) {
            if (nomem) *nomem = 1;
            return -1;
        }
        if (!merkle__strmap_get(&c->map, name, len, &idx)) return -1;
    }
    if (hint) *hint = idx + 1;
    return (long long)idx;
}

void merkle_vcache_free(merkle_vcache *c)
{
    if (!c) return;
    clear(c);
    free(c->saved_path);
    sodium_memzero(&c->mac_in, sizeof c->mac_in);
    sodium_memzero(&c->mac_out, sizeof c->mac_out);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

size_t merkle_vcache_count(const merkle_vcache *c)
{
    return c ? c->live : 0;
}

/* Write a record (without HMAC) at p. */
static void rec_write(uint8_t *p, const char *name, size_t name_len, const merkle_file_id *id,
                      int64_t verified_ns, uint8_t alg, const uint8_t *digest, uint8_t dlen)
{
    uint8_t n8[8];
    merkle__store_le64(n8, name_len);
    memcpy(p, n8, 4);
    p += 4;
    memcpy(p, name, name_len);
    p += name_len;
    merkle__store_le64(p, id->dev);
    merkle__store_le64(p + 8, id->ino);
    merkle__store_le64(p + 16, id->size);
    merkle__store_le64(p + 24, (uint64_t)id->mtime_ns);
    merkle__store_le64(p + 32, (uint64_t)id->ctime_ns);
    merkle__store_le64(p + 40, (uint64_t)verified_ns);
    p[48] = alg;
    p[49] = dlen;
    memcpy(p + 50, digest, dlen);
}

/* Insert or replace under the lock. 0, or -1 on allocation failure (nothing changed). The
** new record is written to the arena first, so that the table can key on its name; when an
** entry of that name and digest length exists, the record is copied over it and the arena
** space given back. One hash of the name. */
static int put(merkle_vcache *c, const char *name, size_t name_len, const merkle_file_id *id,
               uint8_t alg, const uint8_t *digest, uint8_t dlen, int64_t verified_ns, int mine)
{
    if (ensure_map(c) != 0) return -1;
    if (merkle__grow(&c->e, &c->cap, c->n + 1, sizeof *c->e) != 0) return -1;
    size_t size = rec_size(name_len, dlen);
    uint8_t *r = arena_get(c, size);
    if (!r) return -1;
    rec_write(r, name, name_len, id, verified_ns, alg, digest, dlen);
    size_t idx;
    int f = merkle__strmap_get_or_put(&c->map, (const char *)r + 4, name_len, c->n, &idx);
    if (f < 0) {
        c->arena->used -= size;
        return -1;
    }
    ventry *v;
    if (f == 1) {
        v = &c->e[idx];
        if (rec_tail(v)[49] == dlen) {
            memcpy(v->rec, r, size); /* same name, same length: same size */
            c->arena->used -= size;
        } else {
            v->rec = r; /* the table keeps the old name bytes, valid until clear */
        }
        if (!v->live) c->live++;
    } else {
        v = &c->e[c->n++];
        c->mapped = c->n;
        v->rec = r;
        v->name_len = (uint32_t)name_len;
        c->live++;
    }
    v->live = 1;
    v->mine = (uint8_t)mine;
    c->dirty = 1;
    MERKLE_ASSERT(c->live <= c->n && c->mapped <= c->n && c->n <= c->cap);
    return 0;
}

int merkle__vcache_foreign(const merkle_vcache *c)
{
    return c->foreign;
}

void merkle__vcache_lock(merkle_vcache *c)
{
    pthread_mutex_lock(&c->lock);
}

void merkle__vcache_unlock(merkle_vcache *c)
{
    pthread_mutex_unlock(&c->lock);
}

void merkle__vcache_reserve_locked(merkle_vcache *c, size_t n)
{
    if (n > SIZE_MAX / sizeof *c->e - c->n || ensure_map(c) != 0) return;
    if (c->n + n > c->cap) { /* exactly: a batch about to be recorded */
        if (merkle__realloc_n(&c->e, c->n + n, sizeof *c->e) != 0) return;
        c->cap = c->n + n;
    }
    (void)merkle__strmap_reserve(&c->map, c->map.count + n);
}

merkle_status merkle__vcache_record_locked(merkle_vcache *c, const char *name,
                                           const merkle_file_id *id, merkle_manifest_alg alg,
                                           const uint8_t *digest, size_t len, int64_t verified_ns)
{
    size_t nl = strlen(name);
    if (nl == 0 || nl > UINT32_MAX || !merkle__manifest_len_ok(alg, len)) return MERKLE_ERR_ARG;
    /* The moment of verification on the file system's clock, where that was behind ours. */
    if (verified_ns > INT64_MIN + c->fs_lag) verified_ns -= c->fs_lag;
    return put(c, name, nl, id, (uint8_t)alg, digest, (uint8_t)len, verified_ns, 1)
               ? MERKLE_ERR_NOMEM
               : MERKLE_OK;
}

merkle_status merkle_vcache_record(merkle_vcache *c, const char *name, const merkle_file_id *id,
                                   merkle_manifest_alg alg, const uint8_t *digest, size_t len,
                                   int64_t verified_ns)
{
    if (!c || !name || !id || !digest) return MERKLE_ERR_ARG;
    pthread_mutex_lock(&c->lock);
    merkle_status s = merkle__vcache_record_locked(c, name, id, alg, digest, len, verified_ns);
    pthread_mutex_unlock(&c->lock);
    return s;
}

void merkle_vcache_forget(merkle_vcache *c, const char *name)
{
    if (!c || !name) return;
    pthread_mutex_lock(&c->lock);
    long long idx = find(c, name, strlen(name), NULL, NULL);
    if (idx >= 0) {
        if (c->e[idx].live) c->live--;
        c->e[idx].live = 0;
        c->e[idx].mine = 1; /* a save must not bring it back from another writer's file */
        c->dirty = 1;
    }
    pthread_mutex_unlock(&c->lock);
}

/* 1 when entry v is live and holds the algorithm, length and digest of probe q. */
static int entry_fits(const ventry *v, const merkle__vprobe *q)
{
    const uint8_t *t = rec_tail(v);
    return v->live && t[48] == (uint8_t)q->alg && t[49] == q->len &&
           merkle_ct_equal(t + 50, q->expected, q->len);
}

void merkle__vcache_probe(merkle_vcache *c, merkle__vprobe *p, size_t n, size_t *hint)
{
    pthread_mutex_lock(&c->lock);
    size_t h = hint ? *hint : c->hint;
    for (size_t i = 0; i < n; i++) {
        merkle__vprobe *q = &p[i];
        q->found = 0;
        long long idx = find(c, q->name, q->name_len, &h, NULL);
        if (idx < 0) continue;
        if (!entry_fits(&c->e[idx], q)) {
            if ((size_t)idx < c->mapped) continue;
            /* Found by position before the table knew it: a later entry of the same name
            ** (a hand-made file) would shadow it. Ask the table. */
            idx = find(c, q->name, q->name_len, NULL, NULL);
            if (idx < 0 || !entry_fits(&c->e[idx], q)) continue;
        }
        const uint8_t *t = rec_tail(&c->e[idx]);
        q->id.dev = merkle__load_le64(t);
        q->id.ino = merkle__load_le64(t + 8);
        q->id.size = merkle__load_le64(t + 16);
        q->id.mtime_ns = (int64_t)merkle__load_le64(t + 24);
        q->id.ctime_ns = (int64_t)merkle__load_le64(t + 32);
        q->verified_ns = (int64_t)merkle__load_le64(t + 40);
        q->found = 1;
    }
    if (hint)
        *hint = h;
    else
        c->hint = h;
    pthread_mutex_unlock(&c->lock);
}

int merkle__racy_safe(const merkle_file_id *id, int64_t verified_ns)
{
    /* The file system's timestamp granularity, as far as these two stamps show it: both whole
    ** seconds (ext4 with 128-byte inodes, FAT, many network file systems), 10 ms, ... The
    ** moment of verification is floored to twice that (FAT's mtime counts in 2 s), so that a
    ** write later within the same tick, which leaves the stamps as they were, is never
    ** taken as older than the verification. On nanosecond file systems nothing changes
    ** (except, harmlessly, for one file in a billion with a round stamp). */
    int64_t g = 1;
    for (int64_t p = 1000; p <= 1000000000; p *= 10) {
        if (id->mtime_ns % p != 0 || id->ctime_ns % p != 0) break;
        g = 2 * p;
    }
    int64_t v = verified_ns;
    if (g > 1) v = (v >= 0 ? v / g : (v - g + 1) / g) * g;
    return id->mtime_ns < v && id->ctime_ns < v;
}

int merkle__vprobe_match(const merkle__vprobe *p, const merkle_file_id *id)
{
    /* Racy-file rule (git's "racy git"): a file whose mtime or ctime is not strictly older
    ** than the moment it was verified may have changed within the same clock tick. */
    return p->found && merkle__file_id_equal(&p->id, id) && merkle__racy_safe(id, p->verified_ns);
}

int merkle_vcache_lookup(merkle_vcache *c, const char *name, const merkle_file_id *id,
                         merkle_manifest_alg alg, const uint8_t *expected, size_t len)
{
    if (!c || !name || !id || !expected) return 0;
    merkle__vprobe p;
    p.name = name;
    p.name_len = strlen(name);
    p.alg = alg;
    p.len = len;
    p.expected = expected;
    merkle__vcache_probe(c, &p, 1, NULL);
    if (!merkle__vprobe_match(&p, id)) return 0;
    /* A cache of another user vouches only for files this caller can read itself. */
    return !merkle__vcache_foreign(c) || faccessat(AT_FDCWD, name, R_OK, AT_EACCESS) == 0;
}

/* ---------------------------------------------------------------- serialisation */

static void entry_mac(const merkle_vcache *c, const uint8_t *rec, size_t len, uint8_t mac[32])
{
    merkle_sha256 st = c->mac_in;
    uint8_t inner[32];
    merkle_sha256_update(&st, "merkle-vcache-v1", 16);
    merkle_sha256_update(&st, rec, len);
    merkle_sha256_final(&st, inner);
    st = c->mac_out;
    merkle_sha256_update(&st, inner, 32);
    merkle_sha256_final(&st, mac);
}

/* The cache file is written through a small buffer with a running SHA-256 of the bytes: no
** copy of the whole file in memory. */
typedef struct wstream {
    int fd, err;
    size_t len;
    merkle_sha256 sha;
    uint8_t buf[64 * 1024];
} wstream;

static void ws_flush(wstream *w)
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
static void ws_put(wstream *w, const void *p, size_t n, int raw)
{
    if (!raw) merkle_sha256_update(&w->sha, p, n);
    const uint8_t *q = p;
    while (n && !w->err) {
        size_t k = sizeof w->buf - w->len < n ? sizeof w->buf - w->len : n;
        memcpy(w->buf + w->len, q, k);
        w->len += k;
        q += k;
        n -= k;
        if (w->len == sizeof w->buf) ws_flush(w);
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
enum { DISK_UNKNOWN = 0, DISK_ABSENT = 1, DISK_PRESENT = 2 };

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
static int classify_magic(const uint8_t *h, size_t n)
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
static merkle_status open_cache_file(const char *path, int *fd, struct stat *st, int *kind,
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
    int k = classify_magic(h, (size_t)n);
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

/* Read exactly st_size bytes of fd (a file that grows meanwhile is read up to its size at
** open: the checksum then decides). 0 or an errno; ENOMEM. */
static int read_image(int fd, size_t len, uint8_t **out, size_t *got)
{
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf) return ENOMEM;
    size_t off = 0;
    while (off < len) {
        ssize_t r = pread(fd, buf + off, len - off, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            return e;
        }
        if (r == 0) break;
        off += (size_t)r;
    }
    *out = buf;
    *got = off;
    return 0;
}

/* Directory of path (".", "/" or the part before the last slash) and its last component. */
static int split_path(const char *path, char **dir, const char **base)
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
    if (split_path(path, &dir, &base) != 0) return;
    int64_t ours = merkle_vcache_now();
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    free(dir);
    if (fd < 0) return;
    struct stat st;
    int ok = fstat(fd, &st) == 0;
    close(fd);
    if (!ok) return;
    int64_t fs = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
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
static const char *parse_image(const merkle_vcache *c, uint8_t *buf, size_t len, merkle_vcache *out,
                               size_t *rej, merkle_status *s)
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
        if (!merkle__manifest_len_ok((merkle_manifest_alg)alg, dlen) || nl == 0 ||
            memchr(name, '\0', nl) || (size_t)(end - p) < (size_t)dlen + (has_mac ? 32u : 0u))
            return "bad entry";
        p += dlen;
        int accept = 1;
        if (c->keyed) {
            if (!has_mac) {
                accept = 0;
            } else {
                uint8_t mac[32];
                entry_mac(c, rec, (size_t)(p - rec), mac);
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
    id->ino = merkle__load_le64(t + 8);
    id->size = merkle__load_le64(t + 16);
    id->mtime_ns = (int64_t)merkle__load_le64(t + 24);
    id->ctime_ns = (int64_t)merkle__load_le64(t + 32);
}

/*
** Merge the parsed entries of a cache file written by another process into c: for every name
** this process recorded or forgot since its last save, c's word stands; for every other name
** the file's (it is newer than what this process loaded). Locked. 0, or -1 out of memory.
*/
static int merge_disk(merkle_vcache *c, const merkle_vcache *disk)
{
    if (ensure_map(c) != 0) return -1;
    for (size_t i = 0; i < c->n; i++) {
        ventry *v = &c->e[i];
        if (v->live && !v->mine) {
            v->live = 0;
            c->live--;
        }
    }
    for (size_t i = 0; i < disk->n; i++) {
        const ventry *v = &disk->e[i];
        long long idx = find(c, rec_name(v), v->name_len, NULL, NULL);
        if (idx >= 0 && c->e[idx].mine) continue;
        const uint8_t *t = rec_tail(v);
        merkle_file_id id;
        id_of_rec(&id, t);
        if (put(c, rec_name(v), v->name_len, &id, t[48], t + 50, t[49],
                (int64_t)merkle__load_le64(t + 40), 0) != 0)
            return -1;
    }
    return 0;
}

merkle_status merkle_vcache_load(size_t *loaded, size_t *rejected, merkle_vcache *c,
                                 const char *path, merkle_error *error)
{
    if (loaded) *loaded = 0;
    if (rejected) *rejected = 0;
    if (!c || !path) return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "bad argument");
    int fd, kind = 0;
    struct stat st;
    merkle_status s = open_cache_file(path, &fd, &st, &kind, error);
    if (s != MERKLE_OK) return s;
    probe_fs_clock(c, path);
    if (fd < 0) {
        pthread_mutex_lock(&c->lock);
        if (c->n == 0) c->disk = DISK_ABSENT;
        pthread_mutex_unlock(&c->lock);
        return MERKLE_OK;
    }
    uid_t me = geteuid();
    if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX / 2) {
        close(fd);
        return merkle__fail(error, MERKLE_ERR_FORMAT, 0, 0, "%s: too large", path);
    }
    uint8_t *buf = NULL;
    size_t len = 0;
    int e = read_image(fd, (size_t)st.st_size, &buf, &len);
    close(fd);
    if (e == ENOMEM) return merkle__fail(error, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    if (e) return merkle__fail_errno(error, e, "%s: %s", path, strerror(e));
    merkle_file_id fid;
    merkle__file_id_from_stat(&fid, &st);

    merkle_vcache tmp;
    memset(&tmp, 0, sizeof tmp);
    merkle__strmap_init(&tmp.map);
    size_t rej = 0;
    const char *why =
        len != (size_t)st.st_size ? "truncated" : parse_image(c, buf, len, &tmp, &rej, &s);
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
        clear(&tmp);
        free(buf);
        if (s == MERKLE_OK) s = MERKLE_ERR_FORMAT;
        return merkle__fail(error, s, 0, 0, "%s: %s", path, why);
    }
    size_t got = 0;
    if (was_empty) {
        /* The usual case: adopt the parsed table as it is. */
        clear(c);
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
            if (find(c, rec_name(v), v->name_len, NULL, NULL) >= 0) continue;
            const uint8_t *t = rec_tail(v);
            merkle_file_id id;
            id_of_rec(&id, t);
            if (put(c, rec_name(v), v->name_len, &id, t[48], t + 50, t[49],
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
    clear(&tmp);
    free(buf);
    if (loaded) *loaded = got;
    if (rejected) *rejected = rej;
    if (s != MERKLE_OK) return merkle__fail(error, s, 0, 0, "out of memory");
    return MERKLE_OK;
}

/* ---------------------------------------------------------------- saving */

#define TMP_MARK ".merkle-tmp-"
#define TMP_RAND 6

/* 1 when name (in the cache's directory) is a temporary of a save of the cache `base`:
** ".BASE.merkle-tmp-XXXXXX", or "BASE.tmp.PID" of versions before 0.3. */
static int is_our_tmp_name(const char *name, const char *base)
{
    size_t bl = strlen(base), nl = strlen(name), ml = strlen(TMP_MARK);
    if (nl == 1 + bl + ml + TMP_RAND && name[0] == '.' && memcmp(name + 1, base, bl) == 0 &&
        memcmp(name + 1 + bl, TMP_MARK, ml) == 0) {
        for (size_t i = 1 + bl + ml; i < nl; i++)
            if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'z') ||
                  (name[i] >= 'A' && name[i] <= 'Z')))
                return 0;
        return 1;
    }
    if (nl > bl + 5 && memcmp(name, base, bl) == 0 && memcmp(name + bl, ".tmp.", 5) == 0) {
        for (size_t i = bl + 5; i < nl; i++)
            if (name[i] < '0' || name[i] > '9') return 0;
        return 1;
    }
    return 0;
}

/*
** Under the lock of the cache file: remove what writers killed in the middle of a save left
** behind (a temporary is named only for the instant between its link and its rename, or
** with no O_TMPFILE, while it is written). Only files of our naming that are regular, owned
** by us or by the cache's owner, and empty or starting with the cache magic.
*/
static void remove_stale_temporaries(const char *dir, const char *base, uid_t owner)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return;
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!is_our_tmp_name(de->d_name, base)) continue;
        struct stat st;
        if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            (st.st_uid != geteuid() && st.st_uid != owner))
            continue;
        int ok = st.st_size == 0;
        if (!ok) {
            int f = openat(dfd, de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
            if (f < 0) continue;
            uint8_t h[8];
            ok = pread(f, h, 6, 0) == 6 && memcmp(h, MAGIC, 6) == 0;
            close(f);
        }
        if (ok) (void)unlinkat(dfd, de->d_name, 0);
    }
    closedir(d);
}

/* A fresh, unique temporary name in dir for base: ".BASE.merkle-tmp-XXXXXX". */
static void tmp_name(char *out, size_t cap, const char *dir, const char *base)
{
    static const char az[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    uint8_t r[TMP_RAND];
    randombytes_buf(r, sizeof r);
    char x[TMP_RAND + 1];
    for (int i = 0; i < TMP_RAND; i++) x[i] = az[r[i] % 62];
    x[TMP_RAND] = '\0';
    snprintf(out, cap, "%s/.%s%s%s", dir, base, TMP_MARK, x);
}

/* Write the whole cache to fd: header, live entries (with HMACs when keyed), checksum. */
static int write_all(merkle_vcache *c, wstream *w)
{
#ifdef MERKLE_CHECKS
    size_t live = 0;
    for (size_t i = 0; i < c->n; i++) live += c->e[i].live;
    MERKLE_ASSERT(live == c->live); /* the header's count is the records that follow */
#endif
    uint8_t hdr[HDR_LEN];
    memcpy(hdr, MAGIC, 8);
    merkle__store_le64(hdr + 8, c->keyed ? 1u : 0u); /* u32 flags + u32 zero */
    merkle__store_le64(hdr + 16, c->live);
    ws_put(w, hdr, sizeof hdr, 0);
    for (size_t i = 0; i < c->n && !w->err; i++) {
        const ventry *v = &c->e[i];
        if (!v->live) continue;
        size_t size = rec_size(v->name_len, rec_tail(v)[49]);
        ws_put(w, v->rec, size, 0);
        if (c->keyed) {
            uint8_t mac[32];
            entry_mac(c, v->rec, size, mac);
            ws_put(w, mac, sizeof mac, 0);
        }
    }
    uint8_t sum[32];
    merkle_sha256_final(&w->sha, sum);
    ws_put(w, sum, sizeof sum, 1);
    ws_flush(w);
    return w->err;
}

/*
** Make the new cache file's contents, durable, as a named temporary in dir: an unnamed
** O_TMPFILE written and then linked to its name (so that a kill while writing leaves
** nothing), or where the file system lacks O_TMPFILE a file created under a unique name.
** old: the stat of the file being replaced (NULL: none): its mode and owner are kept.
** Returns 0 and *tfd (open), or an errno (EPERM when the owner cannot be kept).
*/
static int make_temporary(merkle_vcache *c, const char *dir, const char *base,
                          const struct stat *old, char *name, size_t cap, int *tfd, wstream *w)
{
    int named = 0, fd = -1;
#ifdef O_TMPFILE
    fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
    if (fd < 0) {
        for (int tries = 0; tries < 100 && fd < 0; tries++) {
            tmp_name(name, cap, dir, base);
            fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
            if (fd < 0 && errno != EEXIST) break;
        }
        if (fd < 0) return errno;
        named = 1;
    }
    int e = 0;
    if (old) {
        if (fchmod(fd, old->st_mode & 07777) != 0) e = errno;
        if (!e && (old->st_uid != geteuid() || old->st_gid != getegid()) &&
            fchown(fd, old->st_uid, old->st_gid) != 0)
            e = errno == EPERM ? EPERM : errno;
    }
    if (!e) {
        w->fd = fd;
        w->err = 0;
        w->len = 0;
        merkle_sha256_init(&w->sha);
        e = write_all(c, w);
    }
    if (!e && fsync(fd) != 0) e = errno;
    if (!e && !named) {
        /* Give the unnamed file a name: through /proc (no privilege needed), else
        ** AT_EMPTY_PATH (needs CAP_DAC_READ_SEARCH). */
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        for (int tries = 0; tries < 100; tries++) {
            tmp_name(name, cap, dir, base);
            int r = linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
#ifdef AT_EMPTY_PATH
            if (r != 0 && errno == ENOENT) r = linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH);
#endif
            if (r == 0) {
                named = 1;
                break;
            }
            if (errno != EEXIST) {
                e = errno;
                break;
            }
        }
        if (!e && !named) e = EEXIST;
    }
    if (e) {
        if (named) unlink(name);
        close(fd);
        return e;
    }
    *tfd = fd;
    return 0;
}

static void fsync_dir(const char *dir)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
}

/*
** Save: lock the cache file that is there (flock on it; a writer that waited on a file that
** has been replaced meanwhile starts again on the new one), merge what other processes saved
** since this one loaded, write a temporary in the same directory, fsync, rename it over the
** path (or link it there when there is no file yet: a file that appears meanwhile is locked
** and merged in its turn), fsync the directory. The old file is intact on any error.
*/
merkle_status merkle_vcache_save(merkle_vcache *c, const char *path, merkle_error *error)
{
    if (!c || !path || !*path) return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "bad argument");
    pthread_mutex_lock(&c->lock);
    int clean = !c->dirty && c->saved_path && strcmp(c->saved_path, path) == 0;
    pthread_mutex_unlock(&c->lock);
    if (clean) return MERKLE_OK; /* nothing changed since this very file was loaded or written */
    char *dir;
    const char *base;
    size_t cap = strlen(path) + sizeof TMP_MARK + TMP_RAND + 8;
    char *tname = malloc(cap);
    wstream *w = malloc(sizeof *w);
    if (!tname || !w || split_path(path, &dir, &base) != 0) {
        free(tname);
        free(w);
        return merkle__fail(error, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    }
    merkle_status s = MERKLE_OK;
    /* Locked until the file is in place, so that a record made meanwhile is not lost to
    ** the clean state set at the end. */
    pthread_mutex_lock(&c->lock);
    for (int attempt = 0;; attempt++) {
        if (attempt == 1000) {
            s = merkle__fail(error, MERKLE_ERR_IO, 0, 0, "%s: kept changing while saved", path);
            break;
        }
        int lfd, kind = 0;
        struct stat lst;
        s = open_cache_file(path, &lfd, &lst, &kind, error);
        if (s != MERKLE_OK) break;
        if (lfd >= 0) {
            int r;
            do r = flock(lfd, LOCK_EX);
            while (r != 0 && errno == EINTR);
            /* (no flock on this file system: go on unlocked, as before) */
            struct stat now;
            if (lstat(path, &now) != 0 || now.st_ino != lst.st_ino || now.st_dev != lst.st_dev) {
                close(lfd); /* replaced while we waited: lock the new one */
                continue;
            }
            if (fstat(lfd, &lst) != 0) {
                s = merkle__fail_errno(error, errno, "%s: %s", path, strerror(errno));
                close(lfd);
                break;
            }
            uint8_t h[8];
            ssize_t n = pread(lfd, h, sizeof h, 0);
            if (n < 0 || classify_magic(h, (size_t)n) < 0) {
                close(lfd); /* rewritten in place into something else: look again */
                continue;
            }
            merkle_file_id fid;
            merkle__file_id_from_stat(&fid, &lst);
            if (c->disk != DISK_PRESENT || !merkle__file_id_equal(&fid, &c->disk_id)) {
                /* Another process saved since we looked: take its entries. A file that does
                ** not parse (corrupt) has none to give. */
                uint8_t *img = NULL;
                size_t len = 0;
                if ((uint64_t)lst.st_size <= (uint64_t)SIZE_MAX / 2 &&
                    read_image(lfd, (size_t)lst.st_size, &img, &len) == 0) {
                    merkle_vcache disk;
                    memset(&disk, 0, sizeof disk);
                    merkle__strmap_init(&disk.map);
                    size_t rej = 0;
                    merkle_status ps = MERKLE_OK;
                    if (len == (size_t)lst.st_size && !parse_image(c, img, len, &disk, &rej, &ps) &&
                        merge_disk(c, &disk) != 0)
                        s = merkle__fail(error, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
                    clear(&disk);
                    free(img);
                    if (s != MERKLE_OK) {
                        close(lfd);
                        break;
                    }
                }
            }
            remove_stale_temporaries(dir, base, lst.st_uid);
        }
        int tfd = -1;
        int e = make_temporary(c, dir, base, lfd >= 0 ? &lst : NULL, tname, cap, &tfd, w);
        if (e) {
            if (lfd >= 0) close(lfd);
            if (e == EPERM && lfd >= 0)
                s = merkle__fail_errno(error, e,
                                       "%s: belongs to uid %ld: this process cannot keep that "
                                       "owner, so it does not replace it",
                                       path, (long)lst.st_uid);
            else
                s = merkle__fail_errno(error, e, "%s: %s", path, strerror(e));
            break;
        }
        int r;
        if (lfd >= 0) {
            r = rename(tname, path);
        } else {
            r = link(tname, path); /* fails when a file appeared: never over one */
            if (r == 0) unlink(tname);
        }
        e = r != 0 ? errno : 0;
        if (e) unlink(tname);
        struct stat ns;
        int have_ns = !e && fstat(tfd, &ns) == 0;
        close(tfd);
        if (lfd >= 0) close(lfd);
        if (e == EEXIST || e == ENOENT) continue; /* raced: start again */
        if (e) {
            s = merkle__fail_errno(error, e, "%s: %s", path, strerror(e));
            break;
        }
        fsync_dir(dir);
        free(c->saved_path);
        c->saved_path = strdup(path);
        c->dirty = 0;
        for (size_t i = 0; i < c->n; i++) c->e[i].mine = 0;
        c->disk = have_ns ? DISK_PRESENT : DISK_UNKNOWN;
        if (have_ns) merkle__file_id_from_stat(&c->disk_id, &ns);
        s = MERKLE_OK;
        break;
    }
    pthread_mutex_unlock(&c->lock);
    free(w);
    free(tname);
    free(dir);
    return s;
}
